//! The text position reader on arbitrary UTF-8.
//!
//! Reading must never panic; a position that reads must write back to text that reads to an
//! equal position, and writing that again gives the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(position) = minesweeper::text::read(input) else {
        return;
    };
    let text = minesweeper::text::write(&position);
    let again = minesweeper::text::read(&text).expect("written positions read");
    assert_eq!(again, position);
    assert_eq!(minesweeper::text::write(&again), text);
});
