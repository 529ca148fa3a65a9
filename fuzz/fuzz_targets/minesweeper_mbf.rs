//! The MBF board reader on arbitrary bytes.
//!
//! Reading must never panic; a board that reads must write back to as many bytes (mines in
//! cell order), read back to an equal board and write the same bytes again; revealing every
//! safe cell of it must win; and on small boards every blind set (of up to 4 cells) must
//! flip to a board with as many mines and the same number on every other safe cell.
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
    if board.len() <= 256 {
        let rule = minesweeper::FirstClick::Safe;
        for set in minesweeper::blind_sets(&board, rule, 0, 4) {
            let twin = minesweeper::flip_cells(&board, &set).expect("blind sets flip");
            assert_eq!(twin.mine_count(), board.mine_count());
            for c in (0..board.len()).filter(|c| !set.contains(c) && !board.is_mine(*c)) {
                assert_eq!(twin.adjacent_mines(c), board.adjacent_mines(c));
            }
        }
    }
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
