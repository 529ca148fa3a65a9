//! `pbrain-gameai` as a tournament manager sees it: a scripted Gomocup session with garbage
//! lines, checking every reply, that moves are legal, and that they come within the time limit.

#![allow(clippy::unwrap_used)] // test helpers may panic: that is a failed test

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use gomoku::{Board, Move, Rule, Stone};

const TURN_MS: u64 = 300;
/// Process start-up and pipes: what a manager's clock would also see on a loaded machine.
const SLACK_MS: u64 = 250;

struct Brain {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Brain {
    fn start(engine: &str) -> Brain {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-gameai"))
            .args(["--engine", engine])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        Brain {
            child,
            stdin,
            lines: rx,
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\n").as_bytes());
    }

    fn reply(&mut self, within: Duration) -> String {
        self.lines
            .recv_timeout(within)
            .unwrap_or_else(|_| panic!("no reply within {within:?}"))
    }

    /// Asserts that nothing is printed for a while.
    fn silent(&mut self) {
        if let Ok(l) = self.lines.recv_timeout(Duration::from_millis(50)) {
            panic!("unexpected output {l:?}");
        }
    }

    /// Sends `line`, expects a legal move within the time limit, and plays it on `board`.
    fn expect_move(&mut self, line: &str, board: &mut Board) -> Move {
        let t = Instant::now();
        self.send(line);
        let reply = self.reply(Duration::from_secs(10));
        let spent = t.elapsed();
        let m = parse_move(&reply).unwrap_or_else(|| panic!("{line:?} answered {reply:?}"));
        assert!(
            spent < Duration::from_millis(TURN_MS + SLACK_MS),
            "{line:?} took {spent:?}"
        );
        board
            .play(m)
            .unwrap_or_else(|e| panic!("illegal move {m}: {e}"));
        m
    }
}

fn parse_move(s: &str) -> Option<Move> {
    let (x, y) = s.split_once(',')?;
    Some(Move::new(x.parse().ok()?, y.parse().ok()?))
}

fn first_word(s: &str) -> &str {
    s.split(' ').next().unwrap_or("")
}

/// A legal move for the manager's side: the empty cell nearest the centre, scanning.
fn some_move(board: &Board) -> Move {
    let c = (board.size() / 2) as i32;
    *board
        .empty_cells()
        .iter()
        .min_by_key(|m| (i32::from(m.x) - c).abs() + (i32::from(m.y) - c).abs() * 2)
        .unwrap()
}

fn session(engine: &str) {
    let mut b = Brain::start(engine);
    for info in [
        format!("INFO timeout_turn {TURN_MS}"),
        "INFO timeout_match 1000000".into(),
        "INFO time_left 1000000".into(),
        "INFO max_memory 83886080".into(),
        "INFO game_type 1".into(),
        "INFO rule 0".into(),
        "INFO folder /nowhere/in particular".into(),
        "INFO a_key_from_the_future 12".into(),
    ] {
        b.send(&info);
    }
    b.silent();

    // Garbage before the game.
    let garbage: [(&[u8], &str); 7] = [
        (b"HELLO WORLD\n", "UNKNOWN"),
        (b"TURN 99\n", "ERROR"),
        (b"START abc\n", "ERROR"),
        (b"\xff\xfe\x00garbage\n", "UNKNOWN"),
        (b"BEGIN\n", "ERROR"),
        (b"1,2,3,4\n", "ERROR"),
        (b"INFO\n", "DEBUG"),
    ];
    for (bytes, want) in garbage {
        b.send_raw(bytes);
        let r = b.reply(Duration::from_secs(2));
        assert_eq!(
            first_word(&r),
            want,
            "{:?} -> {r:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    b.send("RECTSTART 20,10");
    assert_eq!(first_word(&b.reply(Duration::from_secs(2))), "ERROR");

    // A game where the brain begins, with CR LF line ends.
    b.send_raw(b"START 15\r\n");
    assert_eq!(b.reply(Duration::from_secs(2)), "OK");
    let mut board = Board::new(15, Rule::Freestyle).unwrap();
    b.expect_move("BEGIN", &mut board);
    // Lines that arrive while the brain thinks are answered in order, none lost.
    let m = some_move(&board);
    board.play(m).unwrap();
    b.send_raw(format!("TURN {},{}\nABOUT\nFOO\n", m.x, m.y).as_bytes());
    let mv = b.reply(Duration::from_secs(5));
    board.play(parse_move(&mv).unwrap()).unwrap();
    assert!(b.reply(Duration::from_secs(2)).starts_with("name=\""));
    assert_eq!(first_word(&b.reply(Duration::from_secs(2))), "UNKNOWN");
    for _ in 0..5 {
        if board.is_over() {
            break;
        }
        let m = some_move(&board);
        board.play(m).unwrap();
        if board.is_over() {
            break;
        }
        b.expect_move(&format!("TURN {},{}", m.x, m.y), &mut board);
    }
    // Take back the last move, then a move that is not the last.
    let last = *board.history().last().unwrap();
    b.send(&format!("TAKEBACK {},{}", last.x, last.y));
    assert_eq!(b.reply(Duration::from_secs(2)), "OK");
    board.undo();
    b.send("TAKEBACK 14,14");
    assert_eq!(first_word(&b.reply(Duration::from_secs(2))), "ERROR");

    // A BOARD block with CR-only line ends and a garbage field: the brain is White here.
    b.send_raw(b"RESTART\r");
    assert_eq!(b.reply(Duration::from_secs(2)), "OK");
    let mut board = Board::new(15, Rule::Freestyle).unwrap();
    for m in [Move::new(7, 7), Move::new(7, 8), Move::new(8, 7)] {
        board.play(m).unwrap();
    }
    b.send_raw(b"BOARD\r7,7,2\r7,8,1\r8,7,2\r");
    b.silent();
    let t = Instant::now();
    b.send_raw(b"DONE\r");
    let reply = b.reply(Duration::from_secs(5));
    assert!(t.elapsed() < Duration::from_millis(TURN_MS + SLACK_MS));
    let m = parse_move(&reply).unwrap();
    assert_eq!(board.side_to_move(), Stone::White);
    board.play(m).unwrap();
    b.send("BOARD");
    b.send("1,1,7");
    b.send("DONE");
    assert_eq!(first_word(&b.reply(Duration::from_secs(2))), "ERROR");

    // END: exits promptly, printing nothing.
    let t = Instant::now();
    b.send("END");
    let status = loop {
        if let Some(s) = b.child.try_wait().unwrap() {
            break s;
        }
        assert!(t.elapsed() < Duration::from_secs(2), "END did not exit");
        thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success());
    assert!(b.lines.recv_timeout(Duration::from_millis(100)).is_err());
}

#[test]
fn alphabeta_brain_session() {
    session("alphabeta");
}

#[test]
fn bestfirst_brain_session() {
    session("bestfirst");
}

#[test]
fn exits_when_input_closes() {
    let mut b = Brain::start("alphabeta");
    b.send("START 15");
    assert_eq!(b.reply(Duration::from_secs(2)), "OK");
    drop(b.stdin);
    let t = Instant::now();
    loop {
        if b.child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(2));
        thread::sleep(Duration::from_millis(10));
    }
}

/// `END` while the engine thinks ends the program at once, with no move printed: the
/// protocol asks a brain to terminate as soon as possible and write nothing after `END`.
#[test]
fn end_interrupts_a_long_think() {
    for engine in ["alphabeta", "bestfirst"] {
        let mut b = Brain::start(engine);
        b.send("INFO timeout_turn 30000");
        b.send("START 15");
        assert_eq!(b.reply(Duration::from_secs(2)), "OK");
        // A quiet middle game: nothing forced, so the engine spends its time.
        b.send("BOARD");
        for (x, y, f) in [
            (7, 7, 2),
            (8, 8, 1),
            (6, 9, 2),
            (9, 6, 1),
            (5, 5, 2),
            (10, 11, 1),
        ] {
            b.send(&format!("{x},{y},{f}"));
        }
        b.send("DONE");
        thread::sleep(Duration::from_millis(300));
        let t = Instant::now();
        b.send("END");
        let status = loop {
            if let Some(s) = b.child.try_wait().unwrap() {
                break s;
            }
            assert!(
                t.elapsed() < Duration::from_secs(2),
                "{engine}: END did not interrupt the think"
            );
            thread::sleep(Duration::from_millis(10));
        };
        assert!(status.success());
        assert!(b.lines.recv_timeout(Duration::from_millis(100)).is_err());
    }
}
