//! The main Gomoku engine behind the Gomocup brain, on positions built from arbitrary bytes.
//!
//! The first byte chooses the board size (5 to 15) and the rule; the next pairs of bytes are
//! stones, given to the brain as one `BOARD` block (its owner alternating, cells off the board
//! or taken again are left to the brain to refuse); one more pair is the opponent's `TURN`.
//! Each answer must be `OK`, `ERROR ...` or a move that the brain has just put on its board,
//! on an empty cell; nothing may panic. Turns are short (the engine gets a few milliseconds),
//! so each input runs quickly.
#![no_main]

use gomoku::protocol::Brain;
use gomoku::{AlphaBetaEngine, Move};
use libfuzzer_sys::fuzz_target;

/// Most stones given in the `BOARD` block.
const MAX_STONES: usize = 60;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let size = 5 + usize::from(first & 0x0f) % 11;
    let rule = if first & 0x10 == 0 { 0 } else { 1 };
    let mut pairs = rest.chunks_exact(2).map(|p| (p[0] % 16, p[1] % 16));
    let mut lines = vec![
        format!("START {size}"),
        format!("INFO rule {rule}"),
        "INFO timeout_turn 40".to_string(),
        "INFO timeout_match 0".to_string(),
        "BOARD".to_string(),
    ];
    for (k, (x, y)) in pairs.by_ref().take(MAX_STONES).enumerate() {
        lines.push(format!("{x},{y},{}", 1 + k % 2));
    }
    lines.push("DONE".to_string());
    if let Some((x, y)) = pairs.next() {
        lines.push(format!("TURN {x},{y}"));
    }

    let mut brain = Brain::new(AlphaBetaEngine::with_memo_bytes(1 << 20));
    for line in &lines {
        let out = brain.handle_line(line);
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
                }
                None => assert!(
                    matches!(word, "OK" | "ERROR" | "DEBUG" | "MESSAGE"),
                    "{line:?} -> {reply:?}"
                ),
            }
        }
    }
});
