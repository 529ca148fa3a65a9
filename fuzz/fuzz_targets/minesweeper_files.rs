//! The board-file reader, the pattern-model reader and the level and first-click parsers on
//! arbitrary UTF-8.
//!
//! None may panic; boards that read must write back to text that reads to the same boards,
//! a model that reads must write back to text that reads to the same model and give
//! probabilities in [0, 1] on a position, and a first click
//! that parses (the input's first line a level, the second a start) lies on the board.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(boards) = minesweeper::read_boards(input) {
        let text = minesweeper::write_boards(&boards).expect("boards read are written");
        assert_eq!(
            minesweeper::read_boards(&text).expect("written boards read"),
            boards
        );
    }
    let mut lines = input.lines();
    if let (Some(level), Some(start)) = (lines.next(), lines.next())
        && let Ok(level) = level.parse::<minesweeper::Level>()
        && let Ok(cell) = level.start_cell(start)
    {
        assert!(cell < level.cells());
    }
    if let Ok(model) = minesweeper::PatternModel::parse(input) {
        let text = model.to_text();
        assert_eq!(
            minesweeper::PatternModel::parse(&text).expect("written models read"),
            model
        );
        // Whatever its weights, a model that reads gives probabilities.
        let position = minesweeper::text::read("4x3x3\nHH1H\nH21H\nHHHH\n").expect("a position");
        let p = model
            .probabilities(&position)
            .expect("a consistent position");
        for x in p.mine.iter().flatten() {
            assert!((0.0..=1.0).contains(x), "{x}");
        }
    }
});
