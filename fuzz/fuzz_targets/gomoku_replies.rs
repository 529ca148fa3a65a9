//! The manager's side of the Gomocup protocol on arbitrary brain output: lines read as
//! answers, comments or a late `ABOUT` answer, moves and names taken from them.
//!
//! Nothing may panic; an answer is its line trimmed, never a comment or empty; while a late
//! `ABOUT` answer is due, only a command's answer (`OK`, `ERROR`, `UNKNOWN`, a move, without
//! `key="value"` fields) is read as an answer, and the first other line is the late answer;
//! a move read back from its own text is the same move; a name is a quoted field of its line.
#![no_main]

use gomoku::protocol::{LineSplitter, ReplyReader, about_name, parse_reply_move};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte: which lines an `ABOUT` goes unanswered before (bit i: line i).
    let (&mask, rest) = data.split_first().unwrap_or((&0, &[]));
    let mut lines = Vec::new();
    let mut s = LineSplitter::new();
    s.push(rest, &mut lines);
    s.finish(&mut lines);
    let mut reader = ReplyReader::new();
    for (i, line) in lines.iter().take(200).enumerate() {
        if i < 8 && mask >> i & 1 == 1 {
            reader.expect_late_about();
        }
        let trimmed = line.trim();
        let first = trimmed.split_whitespace().next().unwrap_or("");
        let comment = trimmed.is_empty()
            || first.eq_ignore_ascii_case("MESSAGE")
            || first.eq_ignore_ascii_case("DEBUG");
        let command_answer = ["OK", "ERROR", "UNKNOWN"]
            .iter()
            .any(|w| first.eq_ignore_ascii_case(w))
            || parse_reply_move(trimmed).is_some();
        let due = reader.about_pending();
        let answer = reader.answer(line);
        if comment {
            assert_eq!(answer, None, "{line:?}");
            assert_eq!(reader.about_pending(), due, "{line:?}");
        } else if due && (trimmed.contains("=\"") || !command_answer) {
            assert_eq!(answer, None, "the late ABOUT answer: {line:?}");
            assert!(!reader.about_pending());
        } else {
            assert_eq!(answer.as_deref(), Some(trimmed), "{line:?}");
            assert_eq!(reader.about_pending(), due, "{line:?}");
        }
        if let Some(m) = parse_reply_move(line) {
            assert_eq!(parse_reply_move(&m.to_string()), Some(m), "{line:?}");
        }
        if let Some(name) = about_name(line) {
            assert!(!name.contains('"'), "{line:?}");
            assert!(line.contains(&format!("name=\"{name}\"")), "{line:?}");
        }
    }
});
