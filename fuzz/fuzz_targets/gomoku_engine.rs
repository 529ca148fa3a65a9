//! The main Gomoku engine behind the Gomocup brain, on positions built from arbitrary bytes.
//!
//! The first byte chooses the board size (5 to 15) and the rule, the second how many stones
//! the `BOARD` block holds (at most 60); the next pairs of bytes are those stones (the
//! opponent's first, then alternating, so that any number of them is a position with the
//! brain to move; cells off the board or taken again are left to the brain to refuse), and
//! one more pair, if there is one, is the opponent's `TURN`.
//!
//! Each answer must be `OK`, `ERROR ...`, `DEBUG ...`, `MESSAGE ...` or a move that the brain
//! has just put on its board, on an empty cell. After `DONE` or `TURN` the brain must answer
//! with a move unless it refuses the block or the move (`ERROR BOARD ...`, `ERROR TURN ...`)
//! or the game is over: an engine that fails to choose a legal move is a failure, not an
//! answer. Nothing may panic. Turns are short (the engine gets a few milliseconds), so each
//! input runs quickly.
#![no_main]

use gomoku::protocol::Brain;
use gomoku::{AlphaBetaEngine, Move};
use libfuzzer_sys::fuzz_target;

/// Most stones given in the `BOARD` block.
const MAX_STONES: usize = 60;

fuzz_target!(|data: &[u8]| {
    let [first, count, rest @ ..] = data else {
        return;
    };
    let size = 5 + usize::from(first & 0x0f) % 11;
    let rule = if first & 0x10 == 0 { 0 } else { 1 };
    let stones = usize::from(*count) % (MAX_STONES + 1);
    let mut pairs = rest.chunks_exact(2).map(|p| (p[0] % 16, p[1] % 16));
    let mut lines = vec![
        format!("START {size}"),
        format!("INFO rule {rule}"),
        "INFO timeout_turn 40".to_string(),
        "INFO timeout_match 0".to_string(),
        "BOARD".to_string(),
    ];
    // The opponent's stone first: with an odd number the opponent has one more (the brain
    // plays White), with an even number as many (the brain plays Black).
    for (k, (x, y)) in pairs.by_ref().take(stones).enumerate() {
        lines.push(format!("{x},{y},{}", 2 - k % 2));
    }
    lines.push("DONE".to_string());
    if let Some((x, y)) = pairs.next() {
        lines.push(format!("TURN {x},{y}"));
    }

    let mut brain = Brain::new(AlphaBetaEngine::with_memo_bytes(1 << 20));
    for line in &lines {
        let out = brain.handle_line(line);
        let asks_for_a_move = line == "DONE" || line.starts_with("TURN ");
        let mut moved = false;
        for reply in &out.lines {
            let word = reply.split(' ').next().unwrap_or("");
            let cell = reply
                .split_once(',')
                .and_then(|(x, y)| Some((x.parse::<u8>().ok()?, y.parse::<u8>().ok()?)));
            match cell {
                Some((x, y)) => {
                    let board = brain.board().expect("a move needs a game");
                    let m = Move::new(x, y);
                    assert_eq!(board.history().last(), Some(&m), "{line:?} -> {reply:?}");
                    assert!(usize::from(x) < size && usize::from(y) < size, "{reply:?}");
                    moved = true;
                }
                None => assert!(
                    matches!(word, "OK" | "ERROR" | "DEBUG" | "MESSAGE"),
                    "{line:?} -> {reply:?}"
                ),
            }
        }
        if asks_for_a_move && !moved {
            let refused = out.lines.iter().any(|r| {
                r.starts_with("ERROR BOARD")
                    || r.starts_with("ERROR TURN")
                    || r == "ERROR the game is over"
            });
            assert!(refused, "{lines:?}: {line:?} -> {:?}", out.lines);
        }
    }
});
