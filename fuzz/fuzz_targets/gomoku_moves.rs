//! `gomoku::Move::parse` on arbitrary text, for every board size.
//!
//! It must not panic; a move it reads lies on the board, and reads back from both of its
//! written forms (`x,y` and the diagram name such as `h7`).
#![no_main]

use gomoku::{MAX_SIZE, MIN_SIZE, Move};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let size = MIN_SIZE + usize::from(first) % (MAX_SIZE - MIN_SIZE + 1);
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    if let Ok(m) = Move::parse(text, size) {
        assert!(
            usize::from(m.x) < size && usize::from(m.y) < size,
            "{m:?} on {size}"
        );
        assert_eq!(Move::parse(&m.to_string(), size).ok(), Some(m), "{m}");
        assert_eq!(Move::parse(&m.name(), size).ok(), Some(m), "{}", m.name());
    }
});
