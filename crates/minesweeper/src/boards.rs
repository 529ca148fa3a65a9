//! Board files: JSON lines, one board per line, as other solvers' test harnesses write them.
//!
//! Each line is an object with `width`, `height`, `mines`, `start` (the cell index
//! `y * width + x` of the first click) and `mineIndices` (an array of cell indices); any other
//! field is ignored, and so are blank lines. A minimal JSON reader is enough for this and keeps
//! the crate free of a serialisation framework.

use thiserror::Error;

use crate::board::Board;

/// One board of a board file, with its first click.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardSpec {
    /// The board.
    pub board: Board,
    /// The cell of the first click.
    pub start: usize,
}

/// What is wrong with a board file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {message}")]
pub struct BoardsError {
    /// One-based line number.
    pub line: usize,
    /// The problem.
    pub message: String,
}

/// A JSON value, as far as board files need it.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool,
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

const MAX_DEPTH: usize = 64;

impl Reader<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\r' | b'\n') {
            self.i += 1;
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("invalid JSON at byte {}: {what}", self.i + 1))
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return self.err("nested too deeply");
        }
        self.ws();
        match self.s.get(self.i) {
            None => self.err("unexpected end"),
            Some(b'{') => {
                self.i += 1;
                let mut fields = Vec::new();
                if self.eat(b'}') {
                    return Ok(Json::Object(fields));
                }
                loop {
                    self.ws();
                    let Json::String(k) = self.string()? else {
                        return self.err("expected a key");
                    };
                    if !self.eat(b':') {
                        return self.err("expected `:`");
                    }
                    fields.push((k, self.value(depth + 1)?));
                    if self.eat(b'}') {
                        return Ok(Json::Object(fields));
                    }
                    if !self.eat(b',') {
                        return self.err("expected `,` or `}`");
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b']') {
                        return Ok(Json::Array(items));
                    }
                    if !self.eat(b',') {
                        return self.err("expected `,` or `]`");
                    }
                }
            }
            Some(b'"') => self.string(),
            Some(b't') => self.word("true", Json::Bool),
            Some(b'f') => self.word("false", Json::Bool),
            Some(b'n') => self.word("null", Json::Null),
            Some(_) => self.number(),
        }
    }

    fn word(&mut self, w: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            self.err("unknown word")
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        while self.i < self.s.len()
            && matches!(
                self.s[self.i],
                b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'
            )
        {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .map(Json::Number)
            .map_or_else(|| self.err("bad number"), Ok)
    }

    fn string(&mut self) -> Result<Json, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return self.err("expected a string");
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return self.err("unterminated string"),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(Json::String(String::from_utf8_lossy(&out).into_owned()));
                }
                Some(b'\\') => {
                    // Keys and values we read are plain ASCII; keep escapes as text.
                    out.extend_from_slice(self.s.get(self.i..self.i + 2).unwrap_or(b"\\"));
                    self.i += 2;
                }
                Some(&c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

fn parse_json(line: &str) -> Result<Json, String> {
    let mut r = Reader {
        s: line.as_bytes(),
        i: 0,
    };
    let v = r.value(0)?;
    r.ws();
    if r.i != r.s.len() {
        return r.err("trailing characters");
    }
    Ok(v)
}

fn field<'a>(fields: &'a [(String, Json)], name: &str) -> Result<&'a Json, String> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
        .ok_or_else(|| format!("missing field `{name}`"))
}

fn whole(v: &Json, name: &str) -> Result<usize, String> {
    match v {
        Json::Number(n) if n.fract() == 0.0 && *n >= 0.0 && *n <= 1e9 => Ok(*n as usize),
        _ => Err(format!("`{name}` must be a non-negative integer")),
    }
}

fn board_line(line: &str) -> Result<BoardSpec, String> {
    let Json::Object(fields) = parse_json(line)? else {
        return Err("expected a JSON object".into());
    };
    let width = whole(field(&fields, "width")?, "width")?;
    let height = whole(field(&fields, "height")?, "height")?;
    let mines = whole(field(&fields, "mines")?, "mines")?;
    let start = whole(field(&fields, "start")?, "start")?;
    let Json::Array(items) = field(&fields, "mineIndices")? else {
        return Err("`mineIndices` must be an array".into());
    };
    let indices = items
        .iter()
        .map(|v| whole(v, "mineIndices"))
        .collect::<Result<Vec<_>, _>>()?;
    if indices.len() != mines {
        return Err(format!(
            "`mines` is {mines} but `mineIndices` lists {}",
            indices.len()
        ));
    }
    let board = Board::new(width, height, &indices).map_err(|e| e.to_string())?;
    if start >= width * height {
        return Err(format!(
            "`start` {start} is outside the {width}x{height} board"
        ));
    }
    Ok(BoardSpec { board, start })
}

/// Reads a board file (JSON lines).
///
/// ```
/// let text = r#"{"width":3,"height":2,"mines":1,"start":0,"mineIndices":[5],"seed":"x"}"#;
/// let boards = minesweeper::read_boards(text).unwrap();
/// assert_eq!(boards[0].start, 0);
/// assert!(boards[0].board.is_mine(5));
/// ```
///
/// # Errors
/// The first bad line, with its number: invalid JSON, a missing or mistyped field, a mine count
/// that does not match the list, or a board the rules reject.
pub fn read_boards(text: &str) -> Result<Vec<BoardSpec>, BoardsError> {
    // A UTF-8 byte-order mark, as some editors write, is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            board_line(l).map_err(|message| BoardsError {
                line: i + 1,
                message,
            })
        })
        .collect()
}

/// Writes boards in the format [`read_boards`] reads: one JSON object per line with `width`,
/// `height`, `mines`, `start` and `mineIndices`.
///
/// ```
/// use minesweeper::{Board, BoardSpec, read_boards, write_boards};
///
/// let spec = BoardSpec { board: Board::new(3, 2, &[1, 5])?, start: 0 };
/// let text = write_boards(std::slice::from_ref(&spec));
/// assert_eq!(text, "{\"width\":3,\"height\":2,\"mines\":2,\"start\":0,\"mineIndices\":[1,5]}\n");
/// assert_eq!(read_boards(&text)?, vec![spec]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn write_boards(specs: &[BoardSpec]) -> String {
    let mut out = String::new();
    for s in specs {
        let mines: Vec<String> = (0..s.board.len())
            .filter(|&c| s.board.is_mine(c))
            .map(|c| c.to_string())
            .collect();
        out.push_str(&format!(
            "{{\"width\":{},\"height\":{},\"mines\":{},\"start\":{},\"mineIndices\":[{}]}}\n",
            s.board.width(),
            s.board.height(),
            s.board.mine_count(),
            s.start,
            mines.join(",")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_and_ignores_other_fields() {
        let text = "{\"width\":4,\"height\":4,\"mines\":2,\"start\":5,\"mineIndices\":[0,15],\
                    \"extra\":{\"a\":[1,2,{\"b\":null}],\"s\":\"q\\\"x\"},\"t\":true}\n\n\
                    {\"mineIndices\":[], \"start\":0, \"mines\":0, \"height\":2, \"width\":2}\n";
        let b = read_boards(text).unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].start, 5);
        assert!(b[0].board.is_mine(0) && b[0].board.is_mine(15));
        assert_eq!(b[1].board.mine_count(), 0);
        // A byte-order mark before the first line is not part of it.
        assert_eq!(read_boards(&format!("\u{feff}{text}")).unwrap(), b);
    }

    #[test]
    fn errors_name_the_line() {
        let e = |t: &str| read_boards(t).unwrap_err().to_string();
        assert_eq!(
            e("\n{\"width\":2,\"height\":2,\"mines\":1,\"start\":0}"),
            "line 2: missing field `mineIndices`"
        );
        assert_eq!(
            e("{\"width\":2,\"height\":2,\"mines\":2,\"start\":0,\"mineIndices\":[1]}"),
            "line 1: `mines` is 2 but `mineIndices` lists 1"
        );
        assert_eq!(
            e("{\"width\":2,\"height\":2,\"mines\":1,\"start\":9,\"mineIndices\":[1]}"),
            "line 1: `start` 9 is outside the 2x2 board"
        );
        assert_eq!(
            e("{\"width\":-2}"),
            "line 1: `width` must be a non-negative integer"
        );
        assert!(e("{\"width\":2,").starts_with("line 1: invalid JSON"));
        assert!(e(&"[".repeat(100)).contains("nested too deeply"));
        // An ignored field may nest 63 arrays deep inside the line's object, not 64.
        let nested = |k: usize| {
            format!(
                "{{\"width\":2,\"height\":1,\"mines\":0,\"start\":0,\"mineIndices\":[],\"x\":{}0{}}}",
                "[".repeat(k),
                "]".repeat(k)
            )
        };
        assert!(read_boards(&nested(63)).is_ok());
        assert!(e(&nested(64)).contains("nested too deeply"));
        // A line may end inside a number, a word or an escape; the error names the byte.
        assert_eq!(
            e("{\"width\":2"),
            "line 1: invalid JSON at byte 11: expected `,` or `}`"
        );
        assert_eq!(e("7"), "line 1: expected a JSON object");
        assert_eq!(e("[tru"), "line 1: invalid JSON at byte 2: unknown word");
        assert_eq!(
            e("{\"a\\"),
            "line 1: invalid JSON at byte 6: unterminated string"
        );
    }

    #[test]
    fn start_is_checked_against_the_whole_board() {
        let line = |start: usize| {
            format!(
                "{{\"width\":4,\"height\":3,\"mines\":1,\"start\":{start},\"mineIndices\":[0]}}"
            )
        };
        // The last cell is a valid start (beyond width + height, within width * height).
        assert_eq!(read_boards(&line(11)).unwrap()[0].start, 11);
        assert_eq!(
            read_boards(&line(12)).unwrap_err().to_string(),
            "line 1: `start` 12 is outside the 4x3 board"
        );
    }

    #[test]
    fn escapes_are_kept_as_text() {
        assert_eq!(
            parse_json(r#""a\"b\\c""#),
            Ok(Json::String(r#"a\"b\\c"#.to_string()))
        );
        // An escaped quote does not end a key, so this key is not `width`.
        assert_eq!(
            read_boards(r#"{"wid\"th":2}"#).unwrap_err().to_string(),
            "line 1: missing field `width`"
        );
    }
}
