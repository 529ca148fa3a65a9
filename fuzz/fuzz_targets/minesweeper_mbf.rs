//! The MBF board reader on arbitrary bytes.
//!
//! Reading must never panic; a board that reads must write back to as many bytes (mines in
//! cell order), read back to an equal board and write the same bytes again; and revealing
//! every safe cell of it must win.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(board) = minesweeper::mbf::read(data) else {
        return;
    };
    let bytes = minesweeper::mbf::write(&board);
    assert_eq!(bytes.len(), data.len());
    let again = minesweeper::mbf::read(&bytes).expect("written boards read");
    assert_eq!(again, board);
    assert_eq!(minesweeper::mbf::write(&again), bytes);
    // The game runs on any board without panicking.
    let mut game = minesweeper::Game::new(board);
    for cell in 0..game.board().len() {
        if game.state() != minesweeper::GameState::Playing {
            break;
        }
        if !game.board().is_mine(cell) && !game.is_revealed(cell) {
            let _ = game.reveal(cell).expect("hidden safe cells reveal");
        }
    }
    assert_eq!(game.state(), minesweeper::GameState::Won);
});
