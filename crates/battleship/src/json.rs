//! A small JSON reader for the fleet files: all of JSON (objects, arrays, strings with every
//! escape, numbers of any size, booleans, null) nested up to 32 deep, so that fields the
//! reader does not use may hold anything, with errors that give the column (in characters).
//! Strict where JSON is: no leading zeros, no raw control characters in strings, and (a
//! choice, as JSON leaves it open) no key twice in one object. Integers that fit in `i64` are
//! read as such; every other number keeps its text, so that nothing is lost to rounding.

use std::fmt;

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Int(i64),
    /// A number that is not an integer fitting in `i64`, as written.
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(kv) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Int(_) => "an integer",
            Json::Num(_) => "a number with a fraction or an exponent",
            Json::Str(_) => "a string",
            Json::Arr(_) => "an array",
            Json::Obj(_) => "an object",
        }
    }
}

/// What a JSON number's text stands for, decided on the text itself (a float would round
/// `2.0000000000000001` to 2 and `1e-400` to 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Whole {
    /// A whole number, `-0` read as 0.
    Exact(i128),
    /// Not a whole number.
    Fraction,
    /// A whole number beyond `i128`.
    Huge,
}

/// Reads a JSON number's text (as [`Json::Num`] keeps it, or any valid JSON number).
pub(crate) fn whole(text: &str) -> Whole {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, "0"),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Whole::Exact(0);
    }
    let significant = digits.trim_end_matches('0');
    let zeros = digits.len() - significant.len();
    // The value is `significant * 10^scale`; an exponent too long to read is beyond any
    // whole number a fleet could use, or a fraction.
    let Ok(exp) = exp.parse::<i64>() else {
        return if exp.starts_with('-') {
            Whole::Fraction
        } else {
            Whole::Huge
        };
    };
    let scale = exp
        .saturating_add(zeros as i64)
        .saturating_sub(frac.len() as i64);
    if scale < 0 {
        return Whole::Fraction;
    }
    let value = u32::try_from(scale)
        .ok()
        .and_then(|scale| 10i128.checked_pow(scale))
        .and_then(|p| significant.parse::<i128>().ok()?.checked_mul(p));
    match value {
        Some(v) if negative => Whole::Exact(-v),
        Some(v) => Whole::Exact(v),
        None => Whole::Huge,
    }
}

/// A syntax error at a (1-based) column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    pub column: usize,
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl P<'_> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, JsonError> {
        // Characters, not bytes: every byte but a UTF-8 continuation byte starts one.
        let before = self.s[..self.i.min(self.s.len())]
            .iter()
            .filter(|&&b| b & 0xc0 != 0x80)
            .count();
        Err(JsonError {
            column: before + 1,
            message: message.into(),
        })
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\r' | b'\n') {
            self.i += 1;
        }
    }

    fn lit(&mut self, word: &str, v: Json) -> Result<Json, JsonError> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            self.err("unexpected character (expected a JSON value)")
        }
    }

    fn value(&mut self) -> Result<Json, JsonError> {
        self.ws();
        let Some(&c) = self.s.get(self.i) else {
            return self.err("unexpected end of line (expected a JSON value)");
        };
        match c {
            b'{' | b'[' if self.depth >= 32 => self.err("nested too deeply"),
            b'{' => {
                self.depth += 1;
                self.i += 1;
                let mut kv = Vec::new();
                let mut keys = std::collections::HashSet::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(Json::Obj(kv));
                }
                loop {
                    self.ws();
                    if self.s.get(self.i) != Some(&b'"') {
                        return self.err("expected a key in double quotes");
                    }
                    let at = self.i;
                    let k = self.string()?;
                    // A set once the object is past a handful of keys: a list scan per key
                    // would make a line of many keys quadratic.
                    let twice = if kv.len() < 16 {
                        kv.iter().any(|(seen, _)| *seen == k)
                    } else {
                        if keys.is_empty() {
                            keys.extend(kv.iter().map(|(seen, _)| seen.clone()));
                        }
                        !keys.insert(k.clone())
                    };
                    if twice {
                        self.i = at;
                        return self.err(format!("the key {k:?} appears twice in one object"));
                    }
                    self.ws();
                    if self.s.get(self.i) != Some(&b':') {
                        return self.err("expected `:`");
                    }
                    self.i += 1;
                    let v = self.value()?;
                    kv.push((k, v));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            self.depth -= 1;
                            return Ok(Json::Obj(kv));
                        }
                        _ => return self.err("expected `,` or `}`"),
                    }
                }
            }
            b'[' => {
                self.depth += 1;
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            self.depth -= 1;
                            return Ok(Json::Arr(items));
                        }
                        _ => return self.err("expected `,` or `]`"),
                    }
                }
            }
            b'"' => self.string().map(Json::Str),
            b't' => self.lit("true", Json::Bool(true)),
            b'f' => self.lit("false", Json::Bool(false)),
            b'n' => self.lit("null", Json::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => self.err("unexpected character (expected a JSON value)"),
        }
    }

    /// A number: an integer where it is one and fits in `i64`, otherwise its text, so that a
    /// field the reader does not use may hold any JSON number.
    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.i;
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        if self.s.get(self.i) == Some(&b'0')
            && self.s.get(self.i + 1).is_some_and(u8::is_ascii_digit)
        {
            return self.err("a number does not start with 0 unless it is 0");
        }
        self.digits()?;
        let mut integral = true;
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            self.digits()?;
            integral = false;
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            self.digits()?;
            integral = false;
        }
        // Only ASCII digits, signs, `.` and `e` were taken, so the text is valid UTF-8.
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        if integral && let Ok(n) = text.parse::<i64>() {
            return Ok(Json::Int(n));
        }
        Ok(Json::Num(text.to_string()))
    }

    /// One or more decimal digits.
    fn digits(&mut self) -> Result<(), JsonError> {
        let start = self.i;
        while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        if self.i == start {
            return self.err("expected a digit");
        }
        Ok(())
    }

    /// Four hexadecimal digits after `\u`, at `self.i`.
    fn hex4(&mut self) -> Result<u32, JsonError> {
        let Some(code) = self
            .s
            .get(self.i..self.i + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
        else {
            return self.err("expected four hexadecimal digits after `\\u`");
        };
        self.i += 4;
        Ok(code)
    }

    /// A `\u` escape, `self.i` just past the `u`: one UTF-16 unit or a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let at = self.i - 2;
        let hi = self.hex4()?;
        // `None`: a high surrogate without a low one right after it, or a low one alone
        // (which `char::from_u32` refuses).
        let code = if (0xd800..0xdc00).contains(&hi) {
            if self.s[self.i..].starts_with(b"\\u") {
                self.i += 2;
                let lo = self.hex4()?;
                (0xdc00..0xe000)
                    .contains(&lo)
                    .then(|| 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
            } else {
                None
            }
        } else {
            Some(hi)
        };
        match code.and_then(char::from_u32) {
            Some(c) => Ok(c),
            None => {
                self.i = at;
                self.err("unpaired surrogate in `\\u` escape")
            }
        }
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1; // opening quote
        let mut out = String::new();
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return self.err("unterminated string");
            };
            match c {
                b'"' => {
                    self.i += 1;
                    return Ok(out);
                }
                b'\\' => {
                    let e = self.s.get(self.i + 1).copied();
                    self.i += 2;
                    out.push(match e {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => self.unicode_escape()?,
                        _ => {
                            self.i -= 2;
                            return self.err("unknown escape in string");
                        }
                    });
                }
                0x00..=0x1f => {
                    return self.err("a control character in a string must be escaped");
                }
                _ => {
                    // Copy one UTF-8 character.
                    let rest = &self.s[self.i..];
                    let len = match c {
                        0x00..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    let Some(ch) = rest.get(..len).and_then(|b| std::str::from_utf8(b).ok()) else {
                        return self.err("invalid UTF-8 in string");
                    };
                    out.push_str(ch);
                    self.i += len;
                }
            }
        }
    }
}

/// Parses one JSON value filling the whole line.
pub(crate) fn parse(line: &str) -> Result<Json, JsonError> {
    let mut p = P {
        s: line.as_bytes(),
        i: 0,
        depth: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.i < p.s.len() {
        return p.err("unexpected text after the JSON value");
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys are checked once each: a duplicate past the first handful of keys is found, and
    /// a line of 400,000 keys is read in linear time (a list scan per key took minutes).
    #[test]
    fn many_keys_are_checked_in_linear_time() {
        let keys = |n: usize| (0..n).map(|k| format!("\"k{k}\":0")).collect::<Vec<_>>();
        for n in [3, 16, 17, 40] {
            let mut line = keys(n);
            line.push("\"k2\":1".into());
            let e = parse(&format!("{{{}}}", line.join(","))).unwrap_err();
            assert!(
                e.to_string().contains("the key \"k2\" appears twice"),
                "{n}: {e}"
            );
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(parse(&format!("{{{}}}", keys(400_000).join(","))).is_ok());
        });
        let read = rx.recv_timeout(std::time::Duration::from_secs(60));
        assert_eq!(read, Ok(true), "400,000 keys not read within a minute");
    }

    #[test]
    fn parses_and_reports() {
        let v = parse(r#" {"a": [1, -2, "x\"y"], "b": {"c": true, "d": null}} "#);
        let v = v.unwrap_or(Json::Null);
        assert_eq!(
            v.get("a"),
            Some(&Json::Arr(vec![
                Json::Int(1),
                Json::Int(-2),
                Json::Str("x\"y".into())
            ]))
        );
        assert_eq!(v.get("b").and_then(|b| b.get("c")), Some(&Json::Bool(true)));
        for (bad, col) in [
            ("{", 2),
            ("[1,]", 4),
            ("{\"a\" 1}", 6),
            ("\"abc", 5),
            ("{} x", 4),
            ("-", 2),
            ("-x", 2),
            ("1.", 3),
            (".5", 1),
            ("1.e3", 3),
            ("1e", 3),
            ("1e+", 4),
            ("01", 1),
            ("[1, -012]", 6),
            ("00", 1),
            ("{\"a\":1,\"a\":1}", 8),
            ("\"tab\there\"", 5),
            ("\"x\u{0}\"", 3),
            // Columns count characters.
            ("{\"é€😀\":1 x}", 10),
            ("tru", 1),
            ("nul", 1),
            ("fals", 1),
        ] {
            let e = parse(bad).err();
            assert_eq!(e.map(|e| e.column), Some(col), "{bad}");
        }
        let deep = "[".repeat(100);
        assert!(parse(&deep).is_err());
    }

    /// Integers stay exact while they fit in `i64`; every other JSON number keeps its text, so
    /// that a field nobody reads cannot make a line unreadable, however large or small.
    #[test]
    fn reads_every_json_number() {
        for (text, v) in [
            ("0", Json::Int(0)),
            ("-0", Json::Int(0)),
            ("9223372036854775807", Json::Int(i64::MAX)),
            ("-9223372036854775808", Json::Int(i64::MIN)),
        ] {
            assert_eq!(parse(text), Ok(v), "{text}");
        }
        for text in [
            "9223372036854775808",
            "1.5",
            "-0.25",
            "2e3",
            "2E+3",
            "25e-1",
            "3.0",
            "1e400",
            "-1e-400",
            "0.0",
        ] {
            assert_eq!(parse(text), Ok(Json::Num(text.into())), "{text}");
        }
    }

    /// Whether a number is whole is read from its text, against exact decimal arithmetic.
    #[test]
    fn whole_numbers_are_read_exactly() {
        for (text, w) in [
            ("3.0", Whole::Exact(3)),
            ("3e0", Whole::Exact(3)),
            ("30e-1", Whole::Exact(3)),
            ("0.03e2", Whole::Exact(3)),
            ("1.5e1", Whole::Exact(15)),
            ("-2.50e1", Whole::Exact(-25)),
            ("-0.0", Whole::Exact(0)),
            ("0e99999999999999999999", Whole::Exact(0)),
            ("9223372036854775808", Whole::Exact(1 << 63)),
            ("1.5", Whole::Fraction),
            ("2.0000000000000001", Whole::Fraction),
            ("1e-400", Whole::Fraction),
            ("1e-99999999999999999999", Whole::Fraction),
            ("1e38", Whole::Exact(10i128.pow(38))),
            ("1e39", Whole::Huge),
            ("1e99999999999999999999", Whole::Huge),
        ] {
            assert_eq!(whole(text), w, "{text}");
        }
    }

    #[test]
    fn reads_every_literal_escape_and_character_width() {
        let v = parse(r#"[true, false, null, "\" \\ \/ \b \f \n \r \t", "é€😀"]"#);
        assert_eq!(
            v,
            Ok(Json::Arr(vec![
                Json::Bool(true),
                Json::Bool(false),
                Json::Null,
                Json::Str("\" \\ / \u{8} \u{c} \n \r \t".into()),
                Json::Str("é€😀".into()),
            ]))
        );
        assert_eq!(
            parse(r#""\u0041\u00e9\u20AC\ud83d\ude00\u0000""#),
            Ok(Json::Str("Aé€😀\0".into()))
        );
        // The ends of the surrogate ranges: the first and the last pair.
        assert_eq!(
            parse(r#""\ud800\udc00\udbff\udfff""#),
            Ok(Json::Str("\u{10000}\u{10FFFF}".into()))
        );
        for (bad, col, message) in [
            (r#""ab\x""#, 4, "unknown escape in string"),
            (r#""\"#, 2, "unknown escape in string"),
            (
                r#""\u12""#,
                4,
                "expected four hexadecimal digits after `\\u`",
            ),
            (
                r#""\u+123""#,
                4,
                "expected four hexadecimal digits after `\\u`",
            ),
            (
                r#""\u12g4""#,
                4,
                "expected four hexadecimal digits after `\\u`",
            ),
            (r#""x\ud83d""#, 3, "unpaired surrogate in `\\u` escape"),
            (r#""x\ud83d\n""#, 3, "unpaired surrogate in `\\u` escape"),
            (
                r#""x\ud83d\u0041""#,
                3,
                "unpaired surrogate in `\\u` escape",
            ),
            (r#""x\ude00""#, 3, "unpaired surrogate in `\\u` escape"),
            (r#""abcd\ude00""#, 6, "unpaired surrogate in `\\u` escape"),
            (
                r#""x\ud83d\uzzzz""#,
                11,
                "expected four hexadecimal digits after `\\u`",
            ),
        ] {
            assert_eq!(
                parse(bad),
                Err(JsonError {
                    column: col,
                    message: message.into()
                }),
                "{bad}"
            );
        }
    }

    /// The nesting limit counts open brackets, not brackets seen: siblings close theirs.
    #[test]
    fn nesting_is_limited_by_depth_not_by_count() {
        // Forty of each kind of sibling, more than the limit of 32 levels.
        let siblings = format!("[{}]", vec![r#"[], [1], {}, {"a": 1}"#; 40].join(", "));
        assert!(matches!(parse(&siblings), Ok(Json::Arr(items)) if items.len() == 160));
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&nested(32)).is_ok());
        assert_eq!(
            parse(&nested(33)),
            Err(JsonError {
                column: 33,
                message: "nested too deeply".into()
            })
        );
        let objects = |n: usize| format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
        assert!(parse(&objects(32)).is_ok());
        assert!(parse(&objects(33)).is_err());
    }
}
