//! `pbrain-gameai`: the Gomoku engine as a Gomocup (piskvork) brain on standard input/output.
//!
//! A reader thread turns standard input into lines (CR, LF or CR LF) and queues them, so that
//! lines arriving while the engine thinks are neither lost nor misread; the main thread
//! answers them in order, flushing after every line. `END` is acted on as soon as it is
//! read, even while the engine thinks: the move being thought about and any line still
//! queued before `END` go unanswered, since the protocol asks a brain to terminate as soon as
//! possible and to write nothing after it. A panic inside the engine is caught and answered
//! with `ERROR`, and a closed output ends the program quietly.
//!
//! Options (for testing; tournament managers pass none): `--engine alphabeta|bestfirst`;
//! `--help` prints them.

use std::io::{self, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use gomoku::protocol::{Brain, Command, LineSplitter, parse_line};
use gomoku::{AlphaBetaEngine, BestFirstEngine, Board, Engine, GomokuError, Move};
use search_core::best_first::{BestFirstConfig, Policy};

/// Memory used when the manager sets no limit.
const DEFAULT_MEMORY: u64 = 256 << 20;

/// Memory the engine needs besides its table: the threat solver's memos (about 45 MB when
/// full, some 53 MB while the larger one grows) and the program itself.
const OTHER_MEMORY: u64 = 72 << 20;

/// The smallest table the engine is given, whatever the limit.
const MIN_TABLE: u64 = 1 << 20;

/// The table size for a memory limit of `bytes` (0: none): what the rest of the process may
/// need is set aside, and at most half of the limit goes to the table (but at least 1 MiB).
fn table_bytes(bytes: u64) -> usize {
    let budget = if bytes == 0 {
        DEFAULT_MEMORY
    } else {
        bytes
            .saturating_sub(OTHER_MEMORY)
            .min(bytes / 2)
            .clamp(MIN_TABLE, DEFAULT_MEMORY)
    };
    usize::try_from(budget).unwrap_or(usize::MAX)
}

/// Table bytes the alpha-beta engine may write per millisecond of its first move's time.
/// Its table is written when it is built, on that move's clock (the protocol sends the
/// memory limit just before the first move, so there is no time to build it in between);
/// at this rate the writing takes a small share of the move even on a slow, busy machine
/// (it runs at several times the rate), so a short time limit gets a smaller table instead
/// of an overrun. The best-first engine only reserves its arena, which costs no time.
const TABLE_BYTES_PER_MS: u64 = 50 << 10;

/// The table size for a memory limit of `bytes` (0: none) and a first move of `time`:
/// [`table_bytes`], at most [`TABLE_BYTES_PER_MS`] a millisecond (at least [`MIN_TABLE`]).
fn timed_table_bytes(bytes: u64, time: Duration) -> usize {
    let ms = u64::try_from(time.as_millis()).unwrap_or(u64::MAX);
    let cap = ms.saturating_mul(TABLE_BYTES_PER_MS).max(MIN_TABLE);
    table_bytes(bytes).min(usize::try_from(cap).unwrap_or(usize::MAX))
}

/// The engine `kind` sized for a memory limit of `bytes` (0: none) and a first move of
/// `time`: a table the machine cannot give is halved until it can, down to [`MIN_TABLE`]
/// (which it must give: failing that ends the move in an error).
fn build(kind: &str, bytes: u64, time: Duration) -> Box<dyn Engine> {
    let min = usize::try_from(MIN_TABLE).unwrap_or(usize::MAX);
    let mut budget = match kind {
        "bestfirst" => table_bytes(bytes),
        _ => timed_table_bytes(bytes, time),
    };
    loop {
        let engine: Result<Box<dyn Engine>, _> = match kind {
            "bestfirst" => BestFirstEngine::try_with_config(BestFirstConfig {
                memory_bytes: budget,
                policy: Policy::ScoreMinusVisits { visit_weight: 8 },
            })
            .map(|e| Box::new(e) as _),
            _ => AlphaBetaEngine::try_with_memo_bytes(budget).map(|e| Box::new(e) as _),
        };
        match engine {
            Ok(engine) => return engine,
            Err(e) if budget <= min => panic!("a table of {budget} bytes: {e}"),
            Err(_) => budget = (budget / 2).max(min),
        }
    }
}

/// The engine, built when it is first asked for a move. A manager announces the memory limit
/// after the program starts: an engine built at once would fill its default tables first and
/// hold them beside the ones built for the limit. The first move's time also bounds the
/// table (see [`TABLE_BYTES_PER_MS`]).
struct Lazy {
    kind: String,
    bytes: u64,
    engine: Option<Box<dyn Engine>>,
}

impl Lazy {
    fn new(kind: &str, bytes: u64) -> Lazy {
        Lazy {
            kind: kind.to_string(),
            bytes,
            engine: None,
        }
    }
}

impl Engine for Lazy {
    fn name(&self) -> &str {
        &self.kind
    }

    fn new_game(&mut self) {
        if let Some(e) = &mut self.engine {
            e.new_game();
        }
    }

    fn choose_move(&mut self, board: &Board, time: Duration) -> Result<Move, GomokuError> {
        let start = Instant::now();
        let engine = self
            .engine
            .get_or_insert_with(|| build(&self.kind, self.bytes, time));
        // Sizing the tables takes from the move's time.
        engine.choose_move(board, time.saturating_sub(start.elapsed()))
    }
}

/// The engine the options name: `--engine NAME` or `--engine=NAME`, `alphabeta` without
/// either; anything else is refused, so that a mistyped option does not go unnoticed.
fn engine_kind(args: &[String]) -> Result<String, String> {
    let mut kind = "alphabeta".to_string();
    let mut args = args.iter();
    while let Some(a) = args.next() {
        if a == "--engine" {
            kind = args.next().cloned().ok_or("--engine needs a name")?;
        } else if let Some(k) = a.strip_prefix("--engine=") {
            kind = k.to_string();
        } else {
            return Err(format!("unknown option {a:?}"));
        }
    }
    if kind != "alphabeta" && kind != "bestfirst" {
        return Err(format!("unknown engine {kind:?}"));
    }
    Ok(kind)
}

/// What `--help` prints.
const USAGE: &str = "pbrain-gameai: the gameai Gomoku engine as a Gomocup brain (commands on \
standard input, answers on standard output)\n\nUsage: pbrain-gameai [--engine alphabeta|bestfirst]\n\n\
Give it to a Gomocup tournament manager (piskvork and the like), which passes no options.\n\
Commands: START, RECTSTART (square boards), BEGIN, TURN, BOARD ... DONE, INFO, TAKEBACK,\n\
RESTART, ABOUT, END; boards 5 to 32 wide; freestyle or exactly five (INFO rule).\n\
INFO timeout_turn, timeout_match and time_left set the time a move (at most a twelfth of the\n\
time left), max_memory the memory (a table of up to 256 MiB without a limit).\n\
END exits at once, leaving unanswered any command still queued or being thought about; to\n\
try it by hand with piped input, end the input instead of sending END.\n\
Options:\n  --engine alphabeta   the main engine (default)\n  \
--engine bestfirst   the classic best-first engine\n\n\
Details: docs/GOMOKU-PLAY.md, \"The Gomocup brain: pbrain-gameai\".\n";

/// The arguments as text; one that is not UTF-8 is refused (no option takes such a value).
fn text_args(args: impl Iterator<Item = std::ffi::OsString>) -> Result<Vec<String>, String> {
    args.map(|a| {
        a.into_string()
            .map_err(|a| format!("argument {a:?} is not UTF-8 text"))
    })
    .collect()
}

fn main() {
    let args = text_args(std::env::args_os().skip(1));
    if let Ok(args) = &args
        && args.iter().any(|a| a == "--help" || a == "-h")
    {
        let _ = io::stdout().write_all(USAGE.as_bytes());
        return;
    }
    let kind = match args.and_then(|args| engine_kind(&args)) {
        Ok(kind) => kind,
        Err(e) => {
            let _ = writeln!(io::stderr(), "pbrain-gameai: {e}");
            std::process::exit(2);
        }
    };

    let (tx, rx) = mpsc::channel::<String>();
    thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        let mut splitter = LineSplitter::new();
        let mut buf = [0u8; 4096];
        let mut lines = Vec::new();
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => splitter.push(&buf[..n], &mut lines),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
            for line in lines.drain(..) {
                if matches!(parse_line(&line), Command::End) {
                    std::process::exit(0);
                }
                if tx.send(line).is_err() {
                    return;
                }
            }
        }
        splitter.finish(&mut lines);
        for line in lines {
            if matches!(parse_line(&line), Command::End) {
                std::process::exit(0);
            }
            let _ = tx.send(line);
        }
    });

    // The pattern tables every engine shares, built now rather than on the first move's
    // clock (an engine with the smallest table builds them).
    let _ = AlphaBetaEngine::try_with_memo_bytes(0);
    let hook_kind = kind.clone();
    let mut brain = Brain::new(Lazy::new(&kind, 0))
        .with_memory_hook(Box::new(move |b| Lazy::new(&hook_kind, b)));
    let mut out = io::stdout().lock();
    // Ends when standard input closes (the manager is gone) or on END.
    for line in rx {
        let answer = catch_unwind(AssertUnwindSafe(|| brain.handle_line(&line)));
        let (lines, quit) = match answer {
            Ok(o) => (o.lines, o.quit),
            Err(_) => (vec!["ERROR internal error".to_string()], false),
        };
        for l in lines {
            if writeln!(out, "{l}").and_then(|()| out.flush()).is_err() {
                return;
            }
        }
        if quit {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Lazy, MIN_TABLE, engine_kind, table_bytes, timed_table_bytes};

    /// The table leaves room for the rest of the process under the manager's limit.
    #[test]
    fn the_table_fits_the_limit_with_room_to_spare() {
        const MIB: usize = 1 << 20;
        assert_eq!(table_bytes(0), 256 * MIB, "no limit");
        assert_eq!(
            table_bytes(350_000_000),
            175_000_000,
            "Gomocup's limit: half"
        );
        assert_eq!(
            table_bytes(80 * MIB as u64),
            8 * MIB,
            "the rest needs 72 MiB"
        );
        assert_eq!(table_bytes(10_000_000), MIB, "never less than 1 MiB");
        assert_eq!(
            table_bytes(u64::MAX),
            256 * MIB,
            "never more than the default"
        );
    }
    use gomoku::{Board, Engine, Rule};
    use std::time::Duration;

    /// A short first move gets a table it can write in a small share of its time; a long
    /// one the table the memory limit allows.
    #[test]
    fn a_short_first_move_gets_a_small_table() {
        const MIB: usize = 1 << 20;
        let ms = Duration::from_millis;
        assert_eq!(timed_table_bytes(0, ms(50)), 2_560_000);
        assert_eq!(timed_table_bytes(0, ms(1000)), 51_200_000);
        assert_eq!(timed_table_bytes(0, ms(30_000)), 256 * MIB);
        assert_eq!(timed_table_bytes(350_000_000, ms(5000)), 175_000_000);
        assert_eq!(timed_table_bytes(0, ms(0)), MIN_TABLE as usize);
        assert_eq!(timed_table_bytes(0, Duration::MAX), 256 * MIB);
    }

    /// Nothing is allocated until the first move is asked for; the engine then plays.
    #[test]
    fn the_engine_is_built_when_first_asked_for_a_move() {
        for kind in ["alphabeta", "bestfirst"] {
            let mut e = Lazy::new(kind, 8 << 20);
            assert_eq!(e.name(), kind);
            e.new_game();
            assert!(e.engine.is_none());
            let board = Board::new(15, Rule::Freestyle).unwrap();
            let m = e.choose_move(&board, Duration::from_millis(50)).unwrap();
            assert!(board.is_legal(m));
            assert_eq!(e.engine.as_ref().map(|e| e.name()), Some(kind));
        }
    }

    /// Arguments that are not UTF-8 are an error, not a panic.
    #[cfg(unix)]
    #[test]
    fn arguments_that_are_not_text_are_refused() {
        use std::ffi::OsString;
        use std::os::unix::ffi::OsStringExt;
        let ok = super::text_args([OsString::from("--engine")].into_iter());
        assert_eq!(ok, Ok(vec!["--engine".to_string()]));
        let bad = super::text_args([OsString::from_vec(vec![0xff])].into_iter());
        assert!(bad.unwrap_err().contains("not UTF-8"));
    }

    #[test]
    fn options_name_the_engine_or_are_refused() {
        let kind =
            |args: &[&str]| engine_kind(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
        assert_eq!(kind(&[]).unwrap(), "alphabeta");
        assert_eq!(kind(&["--engine", "bestfirst"]).unwrap(), "bestfirst");
        assert_eq!(kind(&["--engine=bestfirst"]).unwrap(), "bestfirst");
        assert_eq!(kind(&["--engine"]).unwrap_err(), "--engine needs a name");
        assert_eq!(
            kind(&["--engine", "mcts"]).unwrap_err(),
            "unknown engine \"mcts\""
        );
        assert_eq!(
            kind(&["--engin=bestfirst"]).unwrap_err(),
            "unknown option \"--engin=bestfirst\""
        );
    }
}
