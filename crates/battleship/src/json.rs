//! A minimal JSON reader (objects, arrays, strings, integers, booleans, null): enough for the
//! fleet files, with errors that give the column.

use std::fmt;

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Int(i64),
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
            Json::Int(_) => "a number",
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
            b'-' | b'0'..=b'9' => {
                let start = self.i;
                self.i += 1;
                while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                    self.i += 1;
                }
                if matches!(self.s.get(self.i), Some(b'.' | b'e' | b'E')) {
                    return self.err("only integers are accepted here");
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                match text.parse::<i64>() {
                    Ok(n) => Ok(Json::Int(n)),
                    Err(_) => {
                        self.i = start;
                        self.err(format!("`{text}` is not an integer in range"))
                    }
                }
            }
            _ => self.err("unexpected character (expected a JSON value)"),
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
                    out.push(match e {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'n') => '\n',
                        Some(b't') => '\t',
                        _ => return self.err("unsupported escape in string"),
                    });
                    self.i += 2;
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
            ("1.5", 2),
            ("\"abc", 5),
            ("{} x", 4),
            ("99999999999999999999", 1),
        ] {
            let e = parse(bad).err();
            assert_eq!(e.map(|e| e.column), Some(col), "{bad}");
        }
        let deep = "[".repeat(100);
        assert!(parse(&deep).is_err());
    }
}
