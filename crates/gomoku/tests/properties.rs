//! Property tests: play/undo and Zobrist keys against recomputation from scratch, and the
//! incremental pattern evaluation against a full recount.
#![allow(clippy::unwrap_used)]

use gomoku::{Board, Move, Pattern, Position, Rule, Stone};
use proptest::prelude::*;

fn arb_rule() -> impl Strategy<Value = Rule> {
    prop_oneof![Just(Rule::Freestyle), Just(Rule::ExactlyFive)]
}

/// Plays the pseudo-random choices as moves (each picks among the empty cells), stopping at
/// the end of the game; stones cluster in a window so that lines and fives actually form.
fn play_out(board: &mut Board, picks: &[u16], window: usize) -> Vec<Move> {
    let n = board.size();
    let w = window.min(n);
    let mut played = Vec::new();
    for &p in picks {
        if board.is_over() {
            break;
        }
        let empty: Vec<Move> = board
            .empty_cells()
            .into_iter()
            .filter(|m| usize::from(m.x) < w && usize::from(m.y) < w)
            .collect();
        if empty.is_empty() {
            break;
        }
        let m = empty[usize::from(p) % empty.len()];
        board.play(m).unwrap();
        played.push(m);
    }
    played
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Keys after every move equal keys recomputed from the stones; undo restores every key;
    /// the side to move alternates.
    #[test]
    fn play_undo_and_keys(size in 5usize..=32, rule in arb_rule(), window in 5usize..12,
                          picks in prop::collection::vec(any::<u16>(), 0..80)) {
        let mut board = Board::new(size, rule).unwrap();
        let fresh = board.clone();
        let mut keys = vec![board.key()];
        let n = board.size();
        let w = window.min(n);
        for &p in &picks {
            if board.is_over() {
                prop_assert!(board.play(Move::new(0, 0)).is_err());
                break;
            }
            let empty: Vec<Move> = board.empty_cells().into_iter()
                .filter(|m| usize::from(m.x) < w && usize::from(m.y) < w).collect();
            if empty.is_empty() { break; }
            let m = empty[usize::from(p) % empty.len()];
            let side = board.side_to_move();
            board.play(m).unwrap();
            prop_assert_eq!(board.get(m), Some(side));
            prop_assert_eq!(board.side_to_move(), side.other());
            prop_assert_eq!(board.key(), board.key_from_scratch());
            keys.push(board.key());
        }
        // Distinct positions along one game have distinct keys (a 64-bit collision is
        // vanishingly unlikely).
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        sorted.dedup();
        prop_assert_eq!(sorted.len(), keys.len());
        while let Some(m) = board.undo() {
            keys.pop();
            prop_assert_eq!(board.get(m), None);
            prop_assert_eq!(Some(&board.key()), keys.last());
            prop_assert_eq!(board.winner(), None);
        }
        prop_assert_eq!(board.key(), fresh.key());
        prop_assert_eq!(board.cells(), fresh.cells());
    }

    /// The incremental position (keys, pattern counts, scores, five cells) equals a full
    /// recount after every move and every undo, and agrees with the board on keys and winner.
    #[test]
    fn incremental_patterns_equal_recount(size in 5usize..=20, rule in arb_rule(), window in 5usize..10,
                                          picks in prop::collection::vec(any::<u16>(), 0..60)) {
        let mut board = Board::new(size, rule).unwrap();
        let moves = play_out(&mut board, &picks, window);
        let mut replay = Board::new(size, rule).unwrap();
        let mut pos = Position::new(board.geometry(), rule).unwrap();
        for &m in &moves {
            let q = board.geometry().index(usize::from(m.x), usize::from(m.y));
            pos.play(q);
            replay.play(m).unwrap();
            prop_assert!(pos.check_incremental());
            prop_assert_eq!(pos.key(), replay.key());
            prop_assert_eq!(pos.winner(), replay.winner());
        }
        while pos.undo().is_some() {
            replay.undo();
            prop_assert!(pos.check_incremental());
            prop_assert_eq!(pos.key(), replay.key());
        }
    }

    /// Five cells read from the pattern table are exactly the cells where playing makes five
    /// (checked by playing there on the board).
    #[test]
    fn five_cells_match_the_rules(size in 5usize..=16, rule in arb_rule(), window in 5usize..9,
                                  picks in prop::collection::vec(any::<u16>(), 0..50)) {
        let mut board = Board::new(size, rule).unwrap();
        play_out(&mut board, &picks, window);
        if board.is_over() {
            return Ok(());
        }
        let pos = Position::from_board(&board);
        let geo = board.geometry();
        let mut count = [0u32; 2];
        let mut complete = true;
        for m in board.empty_cells() {
            let q = geo.index(usize::from(m.x), usize::from(m.y));
            for s in [Stone::Black, Stone::White] {
                // Play `s` there: pass with a far move when it is not `s`'s turn.
                let mut b = board.clone();
                let table = pos.patterns(s, q).contains(&Pattern::Five);
                let wins = if b.side_to_move() == s {
                    b.play(m).unwrap();
                    b.winner() == Some(s)
                } else {
                    // The other side plays somewhere that cannot matter... if such a cell exists.
                    // A far move (that does not itself win) cannot change the lines at m.
                    let far = b.empty_cells().into_iter().find(|f| {
                        let far_away = (i32::from(f.x) - i32::from(m.x)).abs() > 5
                            || (i32::from(f.y) - i32::from(m.y)).abs() > 5;
                        far_away && {
                            let mut t = b.clone();
                            t.play(*f).unwrap();
                            t.winner().is_none()
                        }
                    });
                    match far {
                        Some(f) => {
                            b.play(f).unwrap();
                            b.play(m).unwrap();
                            b.winner() == Some(s)
                        }
                        None => {
                            complete = false;
                            continue;
                        }
                    }
                };
                prop_assert_eq!(table, wins, "{:?} at {:?}\n{}", s, m, board);
                prop_assert_eq!(pos.is_five_cell(s, q), table);
                if table { count[s.index()] += 1; }
            }
        }
        // Counts are comparable when every cell was checked for both colours.
        if complete {
            prop_assert_eq!(pos.five_cells(Stone::Black), count[0]);
            prop_assert_eq!(pos.five_cells(Stone::White), count[1]);
        }
    }
}
