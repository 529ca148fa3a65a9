//! Board files: JSON lines, one board per line, as other solvers' test harnesses write them.
//!
//! Each line is an object with `width`, `height`, `mines`, `start` (the cell index
//! `y * width + x` of the first click) and `mineIndices` (an array of cell indices); any other
//! field is ignored (it may hold any JSON value, nested up to 63 levels inside the line's
//! object), and so are blank lines.
//! A small JSON reader is enough for this and keeps the crate free of a serialisation
//! framework. It reads JSON's syntax strictly (no `+`, leading zeros or bare points in
//! numbers; escapes decoded, raw control characters refused) and refuses a key given twice;
//! the numbers it uses must be written as digits, so that none is a rounded fraction.

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
    /// A number as written (its syntax checked), so that nothing is lost to rounding.
    Number(String),
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

    /// An error at byte `at` (0-based; a position past the end names the column after
    /// it), named by its column in characters (1-based), as editors count.
    fn err_at<T>(&self, at: usize, what: &str) -> Result<T, String> {
        let before = &self.s[..at.min(self.s.len())];
        // Continuation bytes of UTF-8 start no character.
        let column = before.iter().filter(|&&b| b & 0xc0 != 0x80).count() + 1;
        Err(format!("invalid JSON at column {column}: {what}"))
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        self.err_at(self.i, what)
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
        self.ws();
        match self.s.get(self.i) {
            None => self.err("unexpected end"),
            // The line's object is at depth 0: 63 levels of arrays or objects inside it,
            // whatever they hold.
            Some(b'{' | b'[') if depth >= MAX_DEPTH => self.err("nested too deeply"),
            Some(b'{') => {
                self.i += 1;
                let mut fields: Vec<(String, Json)> = Vec::new();
                let mut keys = std::collections::HashSet::new();
                if self.eat(b'}') {
                    return Ok(Json::Object(fields));
                }
                loop {
                    self.ws();
                    let at = self.i;
                    let Json::String(k) = self.string()? else {
                        return self.err("expected a key");
                    };
                    // A set once the object is past a handful of keys: a list scan per key
                    // would make a line of many keys quadratic.
                    let twice = if fields.len() < 16 {
                        fields.iter().any(|(seen, _)| *seen == k)
                    } else {
                        if keys.is_empty() {
                            keys.extend(fields.iter().map(|(seen, _)| seen.clone()));
                        }
                        !keys.insert(k.clone())
                    };
                    if twice {
                        return self.err_at(at, &format!("the key {k:?} appears twice"));
                    }
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
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.err("expected a value"),
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

    /// Digits from `self.i`: how many.
    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - start
    }

    /// A number in JSON's syntax: `-`? (`0` | a digit 1-9 then digits), then an optional
    /// fraction (`.` and digits) and exponent (`e` or `E`, a sign, digits).
    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        let bad = |r: &Self| r.err_at(start, "not a JSON number");
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        let leading_zero = self.s.get(self.i) == Some(&b'0');
        let int = self.digits();
        if int == 0 || (leading_zero && int > 1) {
            return bad(self);
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return bad(self);
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return bad(self);
            }
        }
        // Only ASCII was taken.
        let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        Ok(Json::Number(text))
    }

    /// Four hexadecimal digits of a `\u` escape, at `self.i`.
    fn hex4(&mut self) -> Result<u16, String> {
        let code = self
            .s
            .get(self.i..self.i + 4)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| u16::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match code {
            Some(c) => {
                self.i += 4;
                Ok(c)
            }
            None => self.err("expected four hexadecimal digits after `\\u`"),
        }
    }

    fn string(&mut self) -> Result<Json, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return self.err("expected a string");
        }
        self.i += 1;
        let mut out = String::new();
        loop {
            let at = self.i;
            match self.s.get(self.i) {
                None => return self.err("unterminated string"),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(Json::String(out));
                }
                Some(b'\\') => {
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
                        Some(b'u') => {
                            // One UTF-16 unit, or a surrogate pair of two escapes.
                            let mut units = vec![self.hex4()?];
                            if (0xd800..0xdc00).contains(&units[0])
                                && self.s[self.i..].starts_with(b"\\u")
                            {
                                self.i += 2;
                                units.push(self.hex4()?);
                            }
                            match char::decode_utf16(units).collect::<Vec<_>>().as_slice() {
                                [Ok(c)] => *c,
                                _ => return self.err_at(at, "unpaired surrogate in `\\u` escape"),
                            }
                        }
                        None => return self.err("unterminated string"),
                        _ => return self.err_at(at, "unknown escape in string"),
                    });
                }
                Some(&c) if c < 0x20 => {
                    return self.err("a control character in a string must be escaped");
                }
                Some(&c) => {
                    // The line is text: copy one UTF-8 character whole, its length read from
                    // its first byte.
                    let len = match c {
                        0x00..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    let Some(ch) = self
                        .s
                        .get(self.i..self.i + len)
                        .and_then(|b| std::str::from_utf8(b).ok())
                    else {
                        return self.err("invalid text");
                    };
                    out.push_str(ch);
                    self.i += len;
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

/// The largest count or cell index a board file may hold (far beyond any board).
const MAX_WHOLE: usize = 1_000_000_000;

/// A non-negative integer, written as digits (a fraction or an exponent is refused: whole or
/// not would depend on rounding).
fn whole(v: &Json, name: &str) -> Result<usize, String> {
    match v {
        Json::Number(t) if t.bytes().all(|b| b.is_ascii_digit()) => t
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= MAX_WHOLE)
            .ok_or_else(|| format!("`{name}` is {t}, larger than {MAX_WHOLE}")),
        Json::Number(t) => Err(format!(
            "`{name}` is {t}, expected a non-negative integer written as digits"
        )),
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
        .enumerate()
        .map(|(k, v)| whole(v, &format!("mineIndices[{k}]")))
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
        // JSON's whitespace only: a line of other blanks is an error, not a blank line.
        .filter(|(_, l)| !l.trim_matches([' ', '\t', '\r']).is_empty())
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
/// let text = write_boards(std::slice::from_ref(&spec))?;
/// assert_eq!(text, "{\"width\":3,\"height\":2,\"mines\":2,\"start\":0,\"mineIndices\":[1,5]}\n");
/// assert_eq!(read_boards(&text)?, vec![spec]);
///
/// // A first click off the board could not be read back.
/// let off = BoardSpec { board: Board::new(3, 2, &[1])?, start: 6 };
/// assert_eq!(
///     write_boards(&[off]).unwrap_err().to_string(),
///     "line 1: `start` 6 is outside the 3x2 board"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// A board whose `start` is not one of its cells (the line it would have been on, and why):
/// [`read_boards`] would refuse it.
pub fn write_boards(specs: &[BoardSpec]) -> Result<String, BoardsError> {
    let mut out = String::new();
    for (i, s) in specs.iter().enumerate() {
        if s.start >= s.board.len() {
            return Err(BoardsError {
                line: i + 1,
                message: format!(
                    "`start` {} is outside the {}x{} board",
                    s.start,
                    s.board.width(),
                    s.board.height()
                ),
            });
        }
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
    Ok(out)
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
        // Blank lines are JSON's blanks; other white space is no JSON.
        let ok = "{\"width\":2,\"height\":2,\"mines\":1,\"start\":0,\"mineIndices\":[1]}";
        assert_eq!(read_boards(&format!(" \t\r\n{ok}\n")).unwrap().len(), 1);
        for blank in ["\u{a0}", "\u{c}", "\u{2028}"] {
            assert!(
                e(&format!("{ok}\n{blank}\n")).starts_with("line 2: "),
                "{blank:?}"
            );
        }
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
            "line 1: `width` is -2, expected a non-negative integer written as digits"
        );
        assert_eq!(
            e("{\"width\":\"2\"}"),
            "line 1: `width` must be a non-negative integer"
        );
        // Whole or not is read from the digits, never from a rounded float.
        for (value, message) in [
            (
                "2.0000000000000001",
                "expected a non-negative integer written as digits",
            ),
            (
                "1e-400",
                "expected a non-negative integer written as digits",
            ),
            ("1e1", "expected a non-negative integer written as digits"),
            ("2000000001", "larger than 1000000000"),
            ("99999999999999999999999", "larger than 1000000000"),
        ] {
            let line = format!(
                "{{\"width\":2,\"height\":2,\"mines\":1,\"start\":0,\"mineIndices\":[{value}]}}"
            );
            assert_eq!(
                e(&line),
                format!("line 1: `mineIndices[0]` is {value}, {message}")
            );
        }
        // JSON's syntax: no `+`, no leading zero, digits on both sides of a point; a key once.
        for (json, byte, what) in [
            ("{\"width\":+3}", 10, "expected a value"),
            ("{\"width\":03}", 10, "not a JSON number"),
            ("{\"width\":3.}", 10, "not a JSON number"),
            ("{\"width\":.5}", 10, "expected a value"),
            ("{\"width\":1.2.3}", 13, "expected `,` or `}`"),
            ("{\"width\":-}", 10, "not a JSON number"),
            ("{\"mineIndices\":[0,]}", 19, "expected a value"),
            (
                "{\"width\":2,\"width\":3}",
                12,
                "the key \"width\" appears twice",
            ),
            (
                "{\"a\":\"tab\there\"}",
                10,
                "a control character in a string must be escaped",
            ),
            ("{\"a\":\"\\q\"}", 7, "unknown escape in string"),
            (
                "{\"a\":\"\\ud800\"}",
                7,
                "unpaired surrogate in `\\u` escape",
            ),
            (
                "{\"a\":\"\\u12\"}",
                9,
                "expected four hexadecimal digits after `\\u`",
            ),
        ] {
            assert_eq!(
                e(json),
                format!("line 1: invalid JSON at column {byte}: {what}"),
                "{json}"
            );
        }
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
        // The same limit when the innermost array is empty.
        let empty = |k: usize| nested(k).replace("[0]", "[]");
        assert!(read_boards(&empty(63)).is_ok());
        assert!(e(&empty(64)).contains("nested too deeply"));
        // A line may end inside a number, a word or an escape; the error names the column
        // after it. Columns count characters, not bytes.
        assert_eq!(
            e("{\"é€\":x}"),
            "line 1: invalid JSON at column 7: expected a value"
        );
        assert_eq!(
            e("{\"width\":2"),
            "line 1: invalid JSON at column 11: expected `,` or `}`"
        );
        assert_eq!(e("7"), "line 1: expected a JSON object");
        assert_eq!(e("[tru"), "line 1: invalid JSON at column 2: unknown word");
        assert_eq!(
            e("{\"a\\"),
            "line 1: invalid JSON at column 5: unterminated string"
        );
    }

    /// Keys are checked once each: a duplicate past the first handful of keys is found, and
    /// a line of 400,000 keys is read in linear time (a list scan per key took minutes).
    #[test]
    fn many_keys_are_checked_in_linear_time() {
        let keys = |n: usize| (0..n).map(|k| format!("\"k{k}\":0")).collect::<Vec<_>>();
        for n in [3, 16, 17, 40] {
            let mut line = keys(n);
            line.push("\"k2\":1".into());
            let e = read_boards(&format!("{{{}}}", line.join(","))).unwrap_err();
            assert!(
                e.to_string().contains("the key \"k2\" appears twice"),
                "{n}: {e}"
            );
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = keys(400_000);
            let board = ["\"width\":2", "\"height\":1", "\"mines\":0", "\"start\":0"];
            line.extend(board.map(String::from));
            line.push("\"mineIndices\":[]".into());
            let _ = tx.send(read_boards(&format!("{{{}}}", line.join(","))).map(|b| b.len()));
        });
        let read = rx.recv_timeout(std::time::Duration::from_secs(60));
        assert_eq!(read, Ok(Ok(1)), "400,000 keys not read within a minute");
    }

    /// Boards are written as they are read, and a first click off the board is refused with
    /// the line it would have been on.
    #[test]
    fn written_boards_read_back() {
        let specs = vec![
            BoardSpec {
                board: Board::new(3, 2, &[1, 5]).unwrap(),
                start: 0,
            },
            BoardSpec {
                board: Board::new(4, 3, &[]).unwrap(),
                start: 11,
            },
        ];
        let text = write_boards(&specs).unwrap();
        assert_eq!(
            text,
            "{\"width\":3,\"height\":2,\"mines\":2,\"start\":0,\"mineIndices\":[1,5]}\n\
             {\"width\":4,\"height\":3,\"mines\":0,\"start\":11,\"mineIndices\":[]}\n"
        );
        assert_eq!(read_boards(&text).unwrap(), specs);
        let mut off = specs;
        off[1].start = 12;
        assert_eq!(
            write_boards(&off).unwrap_err(),
            BoardsError {
                line: 2,
                message: "`start` 12 is outside the 4x3 board".into()
            }
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
    fn escapes_are_decoded() {
        assert_eq!(
            parse_json(r#""a\"b\\c\/\n\u00e9\ud83d\ude00""#),
            Ok(Json::String("a\"b\\c/\né😀".to_string()))
        );
        // Every short escape, a space, and characters of two, three and four bytes.
        assert_eq!(
            parse_json(r#""\b\f\r\t é€😀""#),
            Ok(Json::String("\u{8}\u{c}\r\t é€😀".to_string()))
        );
        // An escaped quote does not end a key, so this key is not `width`...
        assert_eq!(
            read_boards(r#"{"wid\"th":2}"#).unwrap_err().to_string(),
            "line 1: missing field `width`"
        );
        // ...but an escaped letter is the letter.
        let line = r#"{"w\u0069dth":2,"height":1,"mines":0,"start":0,"mineIndices":[]}"#;
        assert_eq!(read_boards(line).unwrap()[0].board.width(), 2);
    }

    /// The largest whole number a board file may hold is read; one more is refused.
    #[test]
    fn the_largest_whole_number_is_read() {
        assert_eq!(
            whole(&Json::Number("1000000000".into()), "start"),
            Ok(MAX_WHOLE)
        );
        assert!(whole(&Json::Number("1000000001".into()), "start").is_err());
    }
}
