//! A small JSON reader for the fleet files: all of JSON (objects, arrays, strings with every
//! escape, numbers, booleans, null), so that fields the reader does not use may hold anything,
//! with errors that give the column. Integers that fit in `i64` stay exact.

use std::fmt;

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
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
            Json::Float(_) => "a number with a fraction or an exponent",
            Json::Str(_) => "a string",
            Json::Arr(_) => "an array",
            Json::Obj(_) => "an object",
        }
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
        Err(JsonError {
            column: self.i + 1,
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
                    let k = self.string()?;
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

    /// A number: an integer where it is one and fits in `i64`, otherwise a float, so that a
    /// field the reader does not use may hold any JSON number.
    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.i;
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
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
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Json::Float(x)),
            _ => {
                self.i = start;
                self.err(format!("`{text}` is out of range"))
            }
        }
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
            ("1e999", 1),
            ("[1, -1e400]", 5),
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

    /// Integers stay exact while they fit in `i64`; every other JSON number is read as a float,
    /// so that a field nobody reads cannot make a line unreadable.
    #[test]
    fn reads_every_json_number() {
        for (text, v) in [
            ("0", Json::Int(0)),
            ("-0", Json::Int(0)),
            ("9223372036854775807", Json::Int(i64::MAX)),
            ("-9223372036854775808", Json::Int(i64::MIN)),
            (
                "9223372036854775808",
                Json::Float(9_223_372_036_854_775_808.0),
            ),
            ("1.5", Json::Float(1.5)),
            ("-0.25", Json::Float(-0.25)),
            ("2e3", Json::Float(2000.0)),
            ("2E+3", Json::Float(2000.0)),
            ("25e-1", Json::Float(2.5)),
            ("3.0", Json::Float(3.0)),
        ] {
            assert_eq!(parse(text), Ok(v), "{text}");
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
        let siblings = format!("[{}]", vec![r#"[], [1], {}, {"a": 1}"#; 20].join(", "));
        assert!(matches!(parse(&siblings), Ok(Json::Arr(items)) if items.len() == 80));
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
