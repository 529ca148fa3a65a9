//! The board-file reader and the pattern-model reader on arbitrary UTF-8.
//!
//! Neither may panic; boards that read must write back to text that reads to the same boards,
//! and a model that reads must write back to text that reads to the same model.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(boards) = minesweeper::read_boards(input) {
        let text = minesweeper::write_boards(&boards);
        assert_eq!(minesweeper::read_boards(&text).expect("written boards read"), boards);
    }
    if let Ok(model) = minesweeper::PatternModel::parse(input) {
        let text = model.to_text();
        assert_eq!(minesweeper::PatternModel::parse(&text).expect("written models read"), model);
    }
});
