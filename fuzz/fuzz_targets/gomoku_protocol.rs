//! The Gomocup brain on arbitrary input: bytes cut into lines at any chunk boundary, each
//! line parsed and handled by a brain around a quick engine.
//!
//! Nothing may panic; every answer must be one the protocol allows (`OK`, `ERROR ...`,
//! `UNKNOWN ...`, the `ABOUT` line, or a move); `INFO` gets no answer, only a `DEBUG` note
//! when it cannot be read and a `MESSAGE` for a rule the brain does not play; a move must be
//! the stone the brain just put on its own board, legally; the stones on its board change
//! only as the command says (a `TURN` adds the opponent's, a move answer the brain's own, a
//! `TAKEBACK` removes one, a `BOARD` block or `START` replaces them); and cutting the input
//! differently must not change the lines.
#![no_main]

use std::time::Duration;

use gomoku::protocol::{Brain, Command, LineSplitter, parse_line};
use gomoku::{Board, Engine, GomokuError, Move};
use libfuzzer_sys::fuzz_target;

/// Plays the empty cell nearest the last move: instant and deterministic.
struct Nearest;

impl Engine for Nearest {
    fn name(&self) -> &str {
        "nearest"
    }
    fn choose_move(&mut self, board: &Board, _: Duration) -> Result<Move, GomokuError> {
        let last = board.history().last().copied().unwrap_or(Move::new(0, 0));
        board
            .empty_cells()
            .into_iter()
            .min_by_key(|m| (m.x.abs_diff(last.x), m.y.abs_diff(last.y)))
            .ok_or(GomokuError::GameOver)
    }
}

/// Whether a reply is a move (`x,y`).
fn is_move(reply: &str) -> bool {
    reply
        .split_once(',')
        .is_some_and(|(x, y)| x.parse::<u8>().is_ok() && y.parse::<u8>().is_ok())
}

fuzz_target!(|data: &[u8]| {
    // The same bytes in one piece and in pieces of 3 give the same lines.
    let mut whole = Vec::new();
    let mut s = LineSplitter::new();
    s.push(data, &mut whole);
    s.finish(&mut whole);
    let mut pieces = Vec::new();
    let mut s = LineSplitter::new();
    for chunk in data.chunks(3) {
        s.push(chunk, &mut pieces);
    }
    s.finish(&mut pieces);
    assert_eq!(whole, pieces);

    let mut brain = Brain::new(Nearest);
    for line in whole.iter().take(200) {
        let command = parse_line(line);
        let before = brain.board().map(|b| b.history().len());
        let out = brain.handle_line(line);
        match command {
            // A setting is taken silently, except a rule the brain cannot play, which it
            // names in one MESSAGE.
            Command::Info(gomoku::protocol::Info::Rule(mask)) if mask & (2 | 4 | 8) != 0 => {
                assert_eq!(out.lines.len(), 1, "{line:?}");
                assert!(out.lines[0].starts_with("MESSAGE "), "{line:?}");
            }
            Command::Info(_) => assert!(out.lines.is_empty(), "{line:?} -> {:?}", out.lines),
            Command::BadInfo(_) => {
                assert_eq!(out.lines.len(), 1, "{line:?}");
                assert!(out.lines[0].starts_with("DEBUG "), "{line:?}");
            }
            _ => {}
        }
        for reply in &out.lines {
            let word = reply.split(' ').next().unwrap_or("");
            let is_move = is_move(reply);
            assert!(
                is_move
                    || matches!(word, "OK" | "ERROR" | "UNKNOWN")
                    || reply.starts_with("name=\"")
                    || word == "DEBUG" && matches!(parse_line(line), Command::BadInfo(_))
                    || word == "MESSAGE" && matches!(parse_line(line), Command::Info(_)),
                "{line:?} -> {reply:?}"
            );
            if is_move {
                let board = brain.board().expect("a move needs a game");
                let (x, y) = reply.split_once(',').expect("checked above");
                let m = Move::new(x.parse().expect("checked"), y.parse().expect("checked"));
                assert_eq!(board.history().last(), Some(&m), "{line:?}");
                assert!(board.get(m).is_some());
            }
        }
        if out.quit {
            break;
        }
        // Stones come from the commands that bring them and from the brain's own move, and
        // from nothing else.
        let own = out.lines.iter().filter(|r| is_move(r)).count();
        assert!(own <= 1, "{line:?} -> {:?}", out.lines);
        if let (Some(b), Some(a)) = (before, brain.board().map(|b| b.history().len())) {
            match command {
                // A whole new position.
                Command::Done => {}
                Command::Start(_) | Command::RectStart(..) | Command::Restart => {
                    assert!(a == 0 || a == b, "{line:?}");
                }
                // The opponent's stone, refused as a whole or kept (also when the game then
                // ends, or the engine fails), and the answer.
                Command::Turn(_) => {
                    let stone = !out.lines.iter().any(|r| r.starts_with("ERROR TURN"));
                    let want = b + usize::from(stone) + own;
                    assert_eq!(a, want, "{line:?} -> {:?}", out.lines);
                }
                // Refused (inside a BOARD block too, which the line also interrupts), or one
                // stone fewer.
                Command::Takeback(_) => {
                    let refused = out.lines.iter().any(|r| r.starts_with("ERROR TAKEBACK"));
                    assert_eq!(a + usize::from(!refused), b, "{line:?} -> {:?}", out.lines);
                }
                _ => assert_eq!(a, b + own, "{line:?} -> {:?}", out.lines),
            }
        }
    }
});
