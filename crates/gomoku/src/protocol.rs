//! The Gomocup (piskvork) protocol: both sides of it.
//!
//! A tournament manager talks to a *brain* one line at a time on its standard input and output.
//! This module has the pieces a brain needs, independent of any I/O, so that they can be tested
//! and fuzzed line by line:
//!
//! - [`LineSplitter`] cuts a byte stream into lines at CR, LF or CR LF;
//! - [`parse_line`] turns a line into a [`Command`] and never panics: malformed commands become
//!   [`Command::Malformed`] (answered `ERROR`), unknown ones [`Command::Unknown`] (`UNKNOWN`),
//!   unreadable settings [`Command::BadInfo`] (only a `DEBUG` line: `INFO` gets no answer
//!   but a `MESSAGE` naming a rule the brain does not play);
//! - [`Brain`] is the state machine of a brain around any [`Engine`]: board set-up, turns,
//!   takebacks, settings, and the time it may think for each move ([`TimeControl`]).
//!
//! It also has the manager's side, [`ExternalEngine`]: an [`Engine`] that runs a brain program
//! and asks it for moves, so that matches can pit the built-in engines against any Gomocup
//! brain.
//!
//! ```
//! use gomoku::protocol::Brain;
//! use gomoku::{Board, Engine, GomokuError, Move};
//! use std::time::Duration;
//!
//! /// Plays the first empty cell, row by row.
//! struct FirstEmpty;
//! impl Engine for FirstEmpty {
//!     fn name(&self) -> &str { "first-empty" }
//!     fn choose_move(&mut self, board: &Board, _: Duration) -> Result<Move, GomokuError> {
//!         board.empty_cells().first().copied().ok_or(GomokuError::GameOver)
//!     }
//! }
//!
//! let mut brain = Brain::new(FirstEmpty);
//! assert_eq!(brain.handle_line("START 15").lines, ["OK"]);
//! assert_eq!(brain.handle_line("turn 0,0").lines, ["1,0"]);
//! assert_eq!(brain.handle_line("TURN 7,x").lines[0].split(' ').next(), Some("ERROR"));
//! assert_eq!(brain.handle_line("SWAP 1").lines[0].split(' ').next(), Some("UNKNOWN"));
//! // A block the brain does not play is read to its end and gets one answer there.
//! assert!(brain.handle_line("SWAP2BOARD").lines.is_empty());
//! assert!(brain.handle_line("7,7").lines.is_empty());
//! assert_eq!(brain.handle_line("DONE").lines[0].split(' ').next(), Some("UNKNOWN"));
//! assert!(brain.handle_line("INFO timeout_turn 1000").lines.is_empty());
//! assert!(brain.handle_line("END").quit);
//! ```

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use crate::{Board, Engine, GomokuError, MAX_SIZE, Move, Rule, Stone};

/// Reads `r` to its end in raw chunks, not lines (a brain may end its lines with CR alone,
/// and the splitter bounds a line that never ends), handing each batch of whole lines to
/// `take`, which drains them and says whether to read on.
fn read_lines(mut r: impl Read, mut take: impl FnMut(&mut Vec<String>) -> bool) {
    let mut splitter = LineSplitter::new();
    let (mut buf, mut lines) = ([0u8; 4096], Vec::new());
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
            Ok(n) => {
                splitter.push(&buf[..n], &mut lines);
                if !take(&mut lines) {
                    return;
                }
            }
        }
    }
    splitter.finish(&mut lines);
    take(&mut lines);
}

/// Most characters of a brain's standard error that an error quotes.
const LAST_WORDS_CHARS: usize = 200;

/// Longest line a [`LineSplitter`] keeps (no command is anywhere near this long, and a bound
/// keeps garbage input from eating memory): a longer one comes out as [`TOO_LONG`].
pub const MAX_LINE: usize = 4096;

/// What a [`LineSplitter`] gives for a line longer than [`MAX_LINE`] bytes: not its beginning,
/// which could read as a valid command or move (`TURN 7,7` followed by kilobytes of junk), but
/// a line that [`parse_line`] reports as malformed and no reader takes for a move. (A long
/// `MESSAGE` or `DEBUG` line, a comment either way, keeps its first [`MAX_LINE`] bytes.)
pub const TOO_LONG: &str = "\u{fffd} line too long";

/// Cuts a byte stream into lines at CR, LF or CR LF, whichever the sender uses.
///
/// Bytes may arrive in any chunks; a line is complete when its terminator arrives. Empty lines
/// (including the one between the CR and LF of a CR LF pair) are skipped. Invalid UTF-8 is
/// replaced, never rejected.
#[derive(Debug, Default, Clone)]
pub struct LineSplitter {
    current: Vec<u8>,
    /// The current line has passed [`MAX_LINE`] bytes.
    long: bool,
}

impl LineSplitter {
    /// An empty splitter.
    #[must_use]
    pub fn new() -> LineSplitter {
        LineSplitter::default()
    }

    /// Feeds `bytes`, appending every line they complete to `lines`.
    pub fn push(&mut self, bytes: &[u8], lines: &mut Vec<String>) {
        for &b in bytes {
            if b == b'\n' || b == b'\r' {
                self.flush_into(lines);
            } else if self.current.len() < MAX_LINE {
                self.current.push(b);
            } else {
                self.long = true;
            }
        }
    }

    /// The unterminated last line, if any (at the end of the stream).
    pub fn finish(&mut self, lines: &mut Vec<String>) {
        self.flush_into(lines);
    }

    fn flush_into(&mut self, lines: &mut Vec<String>) {
        let line = String::from_utf8_lossy(&self.current);
        if self.long && !first_word_is(&line, &["MESSAGE", "DEBUG"]) {
            lines.push(TOO_LONG.to_owned());
        } else if !line.is_empty() {
            lines.push(line.into_owned());
        }
        self.current.clear();
        self.long = false;
    }
}

/// A setting sent with `INFO key value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Info {
    /// Milliseconds allowed per move; 0 means "as fast as possible".
    TimeoutTurn(u64),
    /// Milliseconds for the whole match; 0 means no limit.
    TimeoutMatch(u64),
    /// Milliseconds left for the rest of the match (a manager sends a negative value once
    /// the brain has run out of time; it is read as 0).
    TimeLeft(u64),
    /// Memory limit in bytes; 0 means no limit.
    MaxMemory(u64),
    /// Rule bit mask: 1 exactly five, 2 continuous game, 4 renju, 8 caro.
    Rule(u32),
    /// 0 human opponent, 1 brain opponent, 2 tournament, 3 network tournament.
    GameType(u32),
    /// A folder the brain may keep files in.
    Folder(String),
    /// A key this brain does not know (ignored, as the protocol asks).
    Other(String),
}

/// One line from the manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `START n`: a new game on an `n`x`n` board.
    Start(usize),
    /// `RECTSTART w,h`: a new game on a `w`x`h` board.
    RectStart(usize, usize),
    /// `BEGIN`: play the first move.
    Begin,
    /// `TURN x,y`: the opponent played there; answer with a move.
    Turn(Move),
    /// `BOARD`: a position follows, one stone a line, until `DONE`.
    Board,
    /// `SWAP2BOARD`: the Swap2 opening of Gomocup's experimental tournaments (stones as
    /// `x,y` lines, until `DONE`), which [`Brain`] does not play: it reads the block to its
    /// end and answers it once, with `UNKNOWN`.
    Swap2Board,
    /// `x,y,f` inside a `BOARD` block: `f` is 1 for an own stone, 2 for the opponent's, 3 for
    /// a continuous-game marker.
    Stone(Move, u8),
    /// `DONE`: end of a `BOARD` block; answer with a move.
    Done,
    /// `INFO key value`: a setting; no answer (but a `MESSAGE` for a rule the brain does not
    /// play, see [`Brain`]).
    Info(Info),
    /// `END`: exit at once.
    End,
    /// `ABOUT`: describe the brain.
    About,
    /// `RESTART`: a new game on the same board; answer `OK`.
    Restart,
    /// `TAKEBACK x,y`: take back the stone there, the last move (once every move after a
    /// `BOARD` block has been taken back, any stone of the block's side that moved last);
    /// answer `OK`.
    Takeback(Move),
    /// A blank line: ignored.
    Empty,
    /// A known command with bad arguments, with the reason.
    Malformed(String),
    /// An `INFO` line whose value cannot be read, with the reason. The setting is ignored;
    /// as `INFO` gets no answer, a brain only notes it on a `DEBUG` line (which managers
    /// log), never `ERROR`, which a manager could take for the answer to its next command
    /// (`MESSAGE` and `DEBUG` lines are never taken for answers).
    BadInfo(String),
    /// A command this brain does not know, as received.
    Unknown(String),
}

fn parse_number<T: std::str::FromStr>(s: &str) -> Option<T> {
    s.trim().parse().ok()
}

/// As [`parse_number`], for a board size or coordinate: digits only (a sign is refused, as
/// no manager writes one), spaces around allowed.
fn parse_whole<T: std::str::FromStr>(s: &str) -> Option<T> {
    if is_whole_number(s) {
        parse_number(s)
    } else {
        None
    }
}

/// Whether `s` is a plain whole number (digits only, spaces around allowed): where such a
/// field fails to parse, it is too large for its type, not malformed.
fn is_whole_number(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `s` is `count` comma-separated whole numbers (that failed to parse: one of them is
/// too large).
fn whole_numbers(s: &str, count: usize) -> bool {
    s.split(',').count() == count && s.split(',').all(is_whole_number)
}

/// `x,y` (spaces around the parts allowed) into a move; coordinates above 255 are refused.
fn parse_move(s: &str) -> Option<Move> {
    let mut parts = s.split(',');
    let x = parse_whole(parts.next()?)?;
    let y = parse_whole(parts.next()?)?;
    parts.next().is_none().then_some(Move::new(x, y))
}

/// Reads one line from the manager. Never panics: anything it cannot read is
/// [`Command::Malformed`], [`Command::BadInfo`] or [`Command::Unknown`]. Command words are case-insensitive; a
/// trailing CR or surrounding spaces are ignored.
#[must_use]
pub fn parse_line(line: &str) -> Command {
    // A byte-order mark (which some managers write before their first line) is not part of
    // the command.
    let line = line.trim().trim_start_matches('\u{feff}').trim_start();
    if line.is_empty() {
        return Command::Empty;
    }
    if line == TOO_LONG {
        return Command::Malformed(LONG_LINE.to_owned());
    }
    let (word, rest) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    };
    let bad = |what: &str| Command::Malformed(format!("{what}: {line:?}"));
    match word.to_ascii_uppercase().as_str() {
        "START" => match parse_whole::<usize>(rest) {
            Some(n) => Command::Start(n),
            None if is_whole_number(rest) => bad("START board size too large"),
            None => bad("START needs a board size"),
        },
        "RECTSTART" => {
            let mut p = rest.split(',');
            match (
                p.next().and_then(parse_whole::<usize>),
                p.next().and_then(parse_whole::<usize>),
                p.next(),
            ) {
                (Some(w), Some(h), None) => Command::RectStart(w, h),
                _ if whole_numbers(rest, 2) => bad("RECTSTART board size too large"),
                _ => bad("RECTSTART needs width,height"),
            }
        }
        "BEGIN" if rest.is_empty() => Command::Begin,
        "TURN" => match parse_move(rest) {
            Some(m) => Command::Turn(m),
            None if whole_numbers(rest, 2) => bad(OFF_EVERY_BOARD),
            None => bad("TURN needs x,y, two numbers from 0"),
        },
        "BOARD" if rest.is_empty() => Command::Board,
        "SWAP2BOARD" if rest.is_empty() => Command::Swap2Board,
        "DONE" if rest.is_empty() => Command::Done,
        "END" => Command::End,
        "ABOUT" => Command::About,
        "RESTART" => Command::Restart,
        "TAKEBACK" => match parse_move(rest) {
            Some(m) => Command::Takeback(m),
            None if whole_numbers(rest, 2) => bad(OFF_EVERY_BOARD),
            None => bad("TAKEBACK needs x,y, two numbers from 0"),
        },
        "INFO" => {
            parse_info(rest).unwrap_or_else(|why| Command::BadInfo(format!("{why}: {line:?}")))
        }
        "BEGIN" | "BOARD" | "SWAP2BOARD" | "DONE" => bad("no arguments expected"),
        _ => {
            // A stone line of a BOARD block: x,y,f.
            let mut p = line.split(',');
            let stone = (|| {
                let x = parse_whole(p.next()?)?;
                let y = parse_whole(p.next()?)?;
                let f = parse_whole(p.next()?)?;
                p.next()
                    .is_none()
                    .then_some(Command::Stone(Move::new(x, y), f))
            })();
            match stone {
                Some(s) => s,
                // Kept in the block (the prefix) and answered at its `DONE`.
                None if whole_numbers(line, 3) => bad(&format!("{BAD_STONE} (a number above 255)")),
                // A signed number too: a stone line, if a bad one.
                None if line.contains(',')
                    && line.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-') =>
                {
                    bad(BAD_STONE)
                }
                None => Command::Unknown(line.to_string()),
            }
        }
    }
}

/// An `INFO` line's key and value, or what is wrong with them.
fn parse_info(rest: &str) -> Result<Command, String> {
    let (key, value) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    if key.is_empty() {
        return Err("INFO needs a key and a value".into());
    }
    let key = key.to_ascii_lowercase();
    fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
        parse_number(value).ok_or_else(|| {
            if is_whole_number(value) {
                format!("INFO {key} {value} is too large")
            } else {
                format!("INFO {key} needs a non-negative whole number, not {value:?}")
            }
        })
    }
    let info = match key.as_str() {
        "timeout_turn" => Info::TimeoutTurn(number(&key, value)?),
        "timeout_match" => Info::TimeoutMatch(number(&key, value)?),
        "time_left" => {
            let left: i64 = parse_number(value).ok_or_else(|| {
                let negative = value.trim().strip_prefix('-');
                if is_whole_number(negative.unwrap_or(value.trim())) {
                    let which = if negative.is_some() { "small" } else { "large" };
                    format!("INFO {key} {value} is too {which}")
                } else {
                    format!("INFO {key} needs a whole number, not {value:?}")
                }
            })?;
            Info::TimeLeft(left.max(0).unsigned_abs())
        }
        "max_memory" => Info::MaxMemory(number(&key, value)?),
        "rule" => Info::Rule(number(&key, value)?),
        "game_type" => Info::GameType(number(&key, value)?),
        "folder" => Info::Folder(value.to_string()),
        other => Info::Other(other.to_string()),
    };
    Ok(Command::Info(info))
}

/// The time settings a manager sends, and the thinking time they allow for one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    /// Milliseconds per move (0: as fast as possible). Gomocup's default is 30 s.
    pub timeout_turn: u64,
    /// Milliseconds for the whole match (0: no limit).
    pub timeout_match: u64,
    /// Milliseconds left in the match, when the manager said.
    pub time_left: Option<u64>,
    /// Milliseconds the brain has thought since the last `time_left`, or since the game
    /// began (or the match limit changed) when none came: taken off the time left, so that
    /// the clock runs down for a manager that sends only `timeout_match`.
    pub spent: u64,
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            timeout_turn: 30_000,
            timeout_match: 0,
            time_left: None,
            spent: 0,
        }
    }
}

impl TimeControl {
    /// Thinking time when the manager asks for speed (`timeout_turn 0`).
    pub const FASTEST: Duration = Duration::from_millis(20);

    /// How long to think about the next move.
    ///
    /// The per-move limit and, in a timed match, a share of the time left (a twelfth: a
    /// game rarely needs more than a dozen hard moves per side, and the share shrinks as the
    /// clock runs down). The time left is the last `time_left` received, which managers send
    /// before every move of a timed match (so a brain may rely on it alone), or else the
    /// match limit, less what the brain has [`spent`](Self::spent) since. A safety margin of
    /// a tenth plus 30 ms is kept back for the process to print its move and for the
    /// manager's clock; the result is never below 5 ms. Asked for
    /// speed (`timeout_turn 0`), the brain thinks [`TimeControl::FASTEST`], or less if its
    /// share of the time left is less.
    #[must_use]
    pub fn think_time(&self) -> Duration {
        let with_margin = |ms: u64| Duration::from_millis(ms.saturating_sub(ms / 10 + 30).max(5));
        let left = self
            .time_left
            .or((self.timeout_match > 0).then_some(self.timeout_match))
            .map(|ms| ms.saturating_sub(self.spent));
        let share = left.map(|ms| ms / 12);
        if self.timeout_turn == 0 {
            return share.map_or(Self::FASTEST, |ms| Self::FASTEST.min(with_margin(ms)));
        }
        with_margin(share.map_or(self.timeout_turn, |ms| ms.min(self.timeout_turn)))
    }
}

/// What the brain answers to one line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Output {
    /// Lines to print, in order (print and flush each).
    pub lines: Vec<String>,
    /// Whether the brain must exit now (`END`).
    pub quit: bool,
}

impl Output {
    fn line(s: impl Into<String>) -> Output {
        Output {
            lines: vec![s.into()],
            quit: false,
        }
    }
    fn none() -> Output {
        Output::default()
    }
}

/// Removes the stone at `m`, the last move. When every move since the last `BOARD` block has
/// been taken back (the first `unordered` moves came from it), the brain's order of a
/// colour's stones is made up, as the block may list them in any order: any stone of the side
/// that moved last may then be the one the manager played last, and the board is rebuilt from
/// the other stones.
fn take_back(board: &mut Board, m: Move, unordered: usize) -> Result<(), String> {
    let history = board.history();
    let Some(&last) = history.last() else {
        return Err("no stone has been played".to_string());
    };
    let after = if last == m {
        let mut before = board.clone();
        before.undo();
        before
    } else {
        let Some(at) = history.iter().position(|&h| h == m) else {
            return Err("no stone there".to_string());
        };
        if history.len() > unordered {
            return Err(format!("the last move was {last}"));
        }
        if at % 2 != (history.len() - 1) % 2 {
            return Err(format!(
                "{m} is not a stone of the side that moved last ({last})"
            ));
        }
        // Each colour's stones in their order, without `m`, alternating from Black again.
        let (mut black, mut white): (Vec<Move>, Vec<Move>) = (Vec::new(), Vec::new());
        for (i, &h) in history.iter().enumerate() {
            if h != m {
                if i % 2 == 0 { &mut black } else { &mut white }.push(h);
            }
        }
        Board::from_stones(board.size(), board.rule(), &black, &white).map_err(|e| e.to_string())?
    };
    // Under exactly five, a block's made-up order may put an end of a six last: taking it
    // back would leave a five, which no real last move can.
    if after.is_over() {
        return Err("taking it back would leave a finished game".to_string());
    }
    *board = after;
    Ok(())
}

/// Builds a replacement engine when the manager announces a memory limit, so the engine can
/// size its tables (the argument is the limit in bytes, 0 for none).
pub type MemoryHook<E> = Box<dyn FnMut(u64) -> E + Send>;

/// A Gomocup brain around an [`Engine`]: feed it the manager's lines with
/// [`Brain::handle_line`] and print what it returns.
///
/// Only square boards are supported (`RECTSTART` with unequal sides answers `ERROR`). Rules:
/// bit 1 of `INFO rule` selects exactly five; renju (bit 4) is played as exactly five without
/// forbidden moves, and the brain says so with a `MESSAGE`. Continuous games (bit 2) and caro
/// (bit 8, where a five blocked at both ends does not win) are not supported: the brain says
/// so with a `MESSAGE` and plays freestyle (or exactly five), so it ends the game at a five
/// the manager may not count. A `BOARD` block with a continuous game's marker (field 3) is
/// refused with `ERROR`; a `SWAP2BOARD` block gets one `UNKNOWN`, at its `DONE`.
///
/// The brain thinks on the clock, as the protocol does: it asks its engine with
/// [`Engine::choose_move`] for the time [`TimeControl`] allows, never with a node budget. A
/// `TURN` when the brain's own colour is to move (after a `TAKEBACK` of its own move) is
/// refused with `ERROR`; after a `BOARD` block the brain plays the colour to move (Black when
/// both colours have as many stones).
pub struct Brain<E: Engine> {
    engine: E,
    board: Option<Board>,
    rule: Rule,
    time: TimeControl,
    max_memory: u64,
    /// The block being read, if any, to its `DONE`, which gets the block's one answer.
    block: Option<Block>,
    /// How many moves at the start of the history came from the last `BOARD` block, whose
    /// order within each colour is made up.
    unordered: usize,
    /// The colour this brain has played in the game (none before its first move): a `TURN`
    /// when that colour is to move (after a `TAKEBACK` of the brain's own move, say) would
    /// give the opponent's stone the brain's colour.
    own: Option<Stone>,
    memory_hook: Option<MemoryHook<E>>,
    about: String,
}

impl<E: Engine> std::fmt::Debug for Brain<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Brain")
            .field("engine", &self.engine.name())
            .field("board", &self.board)
            .field("rule", &self.rule)
            .field("time", &self.time)
            .field("max_memory", &self.max_memory)
            .finish_non_exhaustive()
    }
}

/// A block of lines the brain reads to its `DONE` before it answers.
#[derive(Debug)]
enum Block {
    /// A `BOARD` block: its stones (move, field) in the order given, and the first unreadable
    /// line, which spoils the block (answered at `DONE` with `ERROR`).
    Board {
        stones: Vec<(Move, u8)>,
        unreadable: Option<String>,
    },
    /// A `SWAP2BOARD` block, whose lines are skipped: Swap2 openings are not supported.
    Swap2,
}

impl Block {
    /// Keeps the first unreadable line of a `BOARD` block, for its answer.
    fn spoil(&mut self, why: impl FnOnce() -> String) {
        if let Block::Board { unreadable, .. } = self {
            unreadable.get_or_insert_with(why);
        }
    }
}

/// The one answer to a `SWAP2BOARD` block.
const SWAP2_ANSWER: &str = "UNKNOWN SWAP2BOARD: Swap2 openings are not supported";

/// The reason [`parse_line`] gives for a line shaped like a stone line that is not one.
const BAD_STONE: &str = "a stone line is x,y,field";
/// A move's coordinates that no `u8` holds.
const OFF_EVERY_BOARD: &str = "a coordinate above 255 is off every board";

/// The reason [`parse_line`] gives for [`TOO_LONG`].
const LONG_LINE: &str = "a line of more than 4096 bytes";

/// The answer to an unreadable `INFO` line: a `DEBUG` note, as `INFO` gets no answer.
fn ignored_info(why: &str) -> Output {
    Output::line(format!("DEBUG ignored: {why}"))
}

impl<E: Engine> Brain<E> {
    /// A brain playing with `engine`, waiting for `START`.
    #[must_use]
    pub fn new(engine: E) -> Brain<E> {
        let about = format!(
            "name=\"gameai-{}\", version=\"{}\", author=\"The gameai developers\", country=\"-\"",
            engine.name(),
            env!("CARGO_PKG_VERSION")
        );
        Brain {
            engine,
            board: None,
            rule: Rule::Freestyle,
            time: TimeControl::default(),
            max_memory: 0,
            block: None,
            unordered: 0,
            own: None,
            memory_hook: None,
            about,
        }
    }

    /// Calls `hook` with the limit whenever `INFO max_memory` announces a limit other than
    /// the current one (initially 0, none) and plays with the engine it returns from then on.
    /// The old engine is dropped only once the hook has returned, so a hook that builds its
    /// engine's tables at once briefly holds both: an engine that sizes its tables when it
    /// first thinks keeps within the new limit.
    #[must_use]
    pub fn with_memory_hook(mut self, hook: MemoryHook<E>) -> Brain<E> {
        self.memory_hook = Some(hook);
        self
    }

    /// The current game, once started.
    #[must_use]
    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    /// The time settings received so far.
    #[must_use]
    pub fn time_control(&self) -> TimeControl {
        self.time
    }

    /// The rule of the last `INFO rule` (freestyle before any): the rule of every new game.
    /// The game in progress switches to it too unless it is over or its stones would end
    /// the game under it, and otherwise keeps the rule it was started with.
    #[must_use]
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The memory limit received (0: none).
    #[must_use]
    pub fn max_memory(&self) -> u64 {
        self.max_memory
    }

    /// The engine.
    #[must_use]
    pub fn engine(&self) -> &E {
        &self.engine
    }

    /// Handles one line from the manager.
    pub fn handle_line(&mut self, line: &str) -> Output {
        self.handle(parse_line(line))
    }

    /// Handles one command.
    pub fn handle(&mut self, command: Command) -> Output {
        if self.block.is_some() {
            return self.handle_block(command);
        }
        match command {
            Command::Empty => Output::none(),
            Command::Info(info) => self.info(info),
            Command::Start(n) => self.start(n),
            Command::RectStart(w, h) if w == h => self.start(w),
            Command::RectStart(..) => {
                self.board = None;
                Output::line("ERROR only square boards are supported")
            }
            Command::Restart => match self.board.as_ref().map(Board::size) {
                Some(n) => self.start(n),
                None => Output::line(
                    "ERROR RESTART with no game (START first; a refused START starts none)",
                ),
            },
            Command::Begin => match &self.board {
                None => Output::line(
                    "ERROR BEGIN with no game (START first; a refused START starts none)",
                ),
                Some(b) if !b.history().is_empty() => {
                    Output::line("ERROR BEGIN on a board that is not empty")
                }
                Some(_) => self.reply_move(),
            },
            Command::Turn(m) => {
                let Some(board) = &mut self.board else {
                    return Output::line(
                        "ERROR TURN with no game (START first; a refused START starts none)",
                    );
                };
                if self.own == Some(board.side_to_move()) && !board.is_over() {
                    return Output::line(format!(
                        "ERROR TURN {m}: it is this brain's turn (its colour moves next)"
                    ));
                }
                match board.play(m) {
                    Ok(()) => self.reply_move(),
                    Err(e) => Output::line(format!("ERROR TURN {m}: {e}")),
                }
            }
            Command::Board => {
                // Read to its end even before START, so that it gets one answer, at `DONE`.
                self.block = Some(Block::Board {
                    stones: Vec::new(),
                    unreadable: (self.board.is_none())
                        .then(|| "no game (START first; a refused START starts none)".to_string()),
                });
                Output::none()
            }
            Command::Swap2Board => {
                // One answer for the whole block, at its `DONE`: answered at once, the
                // block's stone lines would each get an `ERROR`, which a manager reads as
                // the answers to its next commands.
                self.block = Some(Block::Swap2);
                Output::none()
            }
            Command::Stone(..) => Output::line("ERROR a stone line outside a BOARD block"),
            Command::Done => Output::line("ERROR DONE without BOARD"),
            Command::Takeback(m) => {
                let Some(board) = &mut self.board else {
                    return Output::line(
                        "ERROR TAKEBACK with no game (START first; a refused START starts none)",
                    );
                };
                match take_back(board, m, self.unordered) {
                    Ok(()) => {
                        self.unordered = self.unordered.min(board.history().len());
                        Output::line("OK")
                    }
                    Err(why) => Output::line(format!("ERROR TAKEBACK {m}: {why}")),
                }
            }
            Command::About => Output::line(self.about.clone()),
            Command::End => Output {
                lines: Vec::new(),
                quit: true,
            },
            Command::Malformed(why) => Output::line(format!("ERROR {why}")),
            Command::BadInfo(why) => ignored_info(&why),
            Command::Unknown(what) => Output::line(format!("UNKNOWN {what}")),
        }
    }

    /// Takes a setting; says so (`MESSAGE`) when it asks for a rule this brain cannot play.
    fn info(&mut self, info: Info) -> Output {
        match info {
            Info::TimeoutTurn(ms) => self.time.timeout_turn = ms,
            Info::TimeoutMatch(ms) => {
                // Another match limit: the time left of the old one, and the time spent
                // since, no longer apply.
                if ms != self.time.timeout_match {
                    self.time.time_left = None;
                    self.time.spent = 0;
                }
                self.time.timeout_match = ms;
            }
            Info::TimeLeft(ms) => {
                self.time.time_left = Some(ms);
                self.time.spent = 0;
            }
            Info::MaxMemory(bytes) => {
                // Managers repeat their settings; an engine rebuilt for the same limit would
                // only lose what it has learnt (and take time to size its tables).
                if bytes != self.max_memory {
                    self.max_memory = bytes;
                    if let Some(hook) = &mut self.memory_hook {
                        self.engine = hook(bytes);
                    }
                }
            }
            Info::Rule(mask) => {
                let rule = if mask & (1 | 4) != 0 {
                    Rule::ExactlyFive
                } else {
                    Rule::Freestyle
                };
                let unsupported = mask & (2 | 4 | 8);
                if rule != self.rule {
                    self.rule = rule;
                    if let Some(b) = &self.board {
                        // Same stones, new rule (the manager sends the rule before play); a
                        // game over stays over (a six that won under freestyle is not
                        // reopened by exactly five).
                        if !b.is_over()
                            && let Ok(nb) = Board::with_stones(b.size(), rule, b.history())
                            && !nb.is_over()
                        {
                            self.board = Some(nb);
                        }
                    }
                }
                if unsupported != 0 {
                    let notes: Vec<&str> = [
                        (2, "continuous games (2) are not supported"),
                        (4, "renju (4) is played without forbidden moves"),
                        (8, "caro (8) is not supported"),
                    ]
                    .into_iter()
                    .filter(|&(bit, _)| unsupported & bit != 0)
                    .map(|(_, note)| note)
                    .collect();
                    return Output::line(format!(
                        "MESSAGE INFO rule {mask}: {}; playing {rule}",
                        notes.join(", ")
                    ));
                }
            }
            Info::GameType(_) | Info::Folder(_) | Info::Other(_) => {}
        }
        Output::none()
    }

    fn start(&mut self, n: usize) -> Output {
        // A new game's clock is not the last one's (a manager sends the time left before
        // every move of a timed match).
        self.time.time_left = None;
        self.time.spent = 0;
        self.own = None;
        match Board::new(n, self.rule) {
            Ok(b) => {
                self.board = Some(b);
                self.unordered = 0;
                self.engine.new_game();
                Output::line("OK")
            }
            Err(e) => {
                self.board = None;
                Output::line(format!("ERROR {e}"))
            }
        }
    }

    /// Reads a block to its end. A `BOARD` block keeps its stones; one unreadable stone
    /// line (or line of garbage) spoils it, but it is read to its end, so that the manager
    /// gets one answer, at `DONE`, not one for every line after it. A `SWAP2BOARD` block's
    /// stone lines (`x,y`), blank lines and lines of no known command are skipped. Settings
    /// are taken in both. Any other command ends the block with its answer (an `ERROR` for
    /// a `BOARD` block), then is handled as usual.
    fn handle_block(&mut self, command: Command) -> Output {
        match command {
            Command::Empty => Output::none(),
            Command::Info(info) => self.info(info),
            Command::BadInfo(why) => ignored_info(&why),
            Command::End => Output {
                lines: Vec::new(),
                quit: true,
            },
            Command::Stone(m, f) => {
                // A block never ended by `DONE` must not grow without bound.
                const MOST: usize = MAX_SIZE * MAX_SIZE;
                if let Some(Block::Board { stones, unreadable }) = &mut self.block {
                    if stones.len() < MOST {
                        stones.push((m, f));
                    } else {
                        unreadable.get_or_insert_with(|| format!("more than {MOST} stones"));
                    }
                }
                Output::none()
            }
            // Only an unreadable stone line or an overlong line is taken as part of the block:
            // a command with bad arguments interrupts it, as any command does.
            Command::Malformed(why) if why.starts_with(BAD_STONE) || why == LONG_LINE => {
                if let Some(b) = &mut self.block {
                    b.spoil(|| why);
                }
                Output::none()
            }
            Command::Unknown(what) => {
                if let Some(b) = &mut self.block {
                    b.spoil(|| format!("unknown line {what:?}"));
                }
                Output::none()
            }
            Command::Done => match self.block.take() {
                Some(Block::Board {
                    unreadable: Some(why),
                    ..
                }) => Output::line(format!("ERROR BOARD: {why}")),
                Some(Block::Board { stones, .. }) => match self.set_position(&stones) {
                    Ok(()) => self.reply_move(),
                    Err(e) => Output::line(format!("ERROR BOARD: {e}")),
                },
                Some(Block::Swap2) | None => Output::line(SWAP2_ANSWER),
            },
            other => {
                // Anything else ends the block unread: report it rather than guess.
                let mut out = match self.block.take() {
                    Some(Block::Board { .. }) => Output::line("ERROR BOARD block interrupted"),
                    Some(Block::Swap2) | None => Output::line(SWAP2_ANSWER),
                };
                out.lines.extend(self.handle(other).lines);
                out
            }
        }
    }

    /// Rebuilds the board from a `BOARD` block: own stones (field 1) and the opponent's (2),
    /// each in the order given, alternate from the colour that moved first; the game is over
    /// if the final position has a five, whatever the order. Field 3 (a continuous game's
    /// marker of a finished line, a cell no one may play) is refused: this brain does not
    /// play continuous games, and could otherwise answer with a marked cell.
    fn set_position(&mut self, stones: &[(Move, u8)]) -> Result<(), String> {
        let size = self.board.as_ref().map_or(0, Board::size);
        let own: Vec<Move> = stones.iter().filter(|s| s.1 == 1).map(|s| s.0).collect();
        let theirs: Vec<Move> = stones.iter().filter(|s| s.1 == 2).map(|s| s.0).collect();
        if let Some(&(m, f)) = stones.iter().find(|s| !(1..=3).contains(&s.1)) {
            return Err(format!(
                "stone {m} has field {f} (expected 1 for own or 2 for the opponent's)"
            ));
        }
        if let Some(&(m, _)) = stones.iter().find(|s| s.1 == 3) {
            return Err(format!(
                "stone {m} has field 3, a continuous game's marker (continuous games are not supported)"
            ));
        }
        // Checked before the counts, whose message would otherwise hide the real problem.
        if let Some(&(m, _)) = stones
            .iter()
            .find(|s| usize::from(s.0.x) >= size || usize::from(s.0.y) >= size)
        {
            return Err(format!("stone {m} is off the {size}x{size} board"));
        }
        // So is a cell listed twice, which would otherwise show as a count that cannot be.
        let mut seen = std::collections::HashSet::new();
        if let Some(&(m, _)) = stones.iter().find(|s| !seen.insert(s.0)) {
            return Err(format!("cell {m} is listed twice"));
        }
        // We are to move: equal counts mean we are Black, one opponent stone more White.
        let (black, white) = if own.len() == theirs.len() {
            (own, theirs)
        } else if theirs.len() == own.len() + 1 {
            (theirs, own)
        } else {
            return Err(format!(
                "{} own and {} opponent stones cannot be our turn",
                own.len(),
                theirs.len()
            ));
        };
        let board =
            Board::from_stones(size, self.rule, &black, &white).map_err(|e| e.to_string())?;
        if board.is_over() {
            return Err(GomokuError::GameOver.to_string());
        }
        self.unordered = board.history().len();
        // The brain is to move: its colour in this game from now on.
        self.own = Some(board.side_to_move());
        self.board = Some(board);
        Ok(())
    }

    /// Thinks, plays the move on the board and prints it.
    fn reply_move(&mut self) -> Output {
        let think = self.time.think_time();
        let Some(board) = &mut self.board else {
            return Output::line("ERROR no game");
        };
        if board.is_over() {
            return Output::line("ERROR the game is over");
        }
        let start = Instant::now();
        let chosen = self.engine.choose_move(board, think);
        let ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.time.spent = self.time.spent.saturating_add(ms);
        let colour = board.side_to_move();
        match chosen {
            Ok(m) => match board.play(m) {
                Ok(()) => {
                    self.own = Some(colour);
                    Output::line(m.to_string())
                }
                Err(e) => Output::line(format!("ERROR engine chose {m}: {e}")),
            },
            Err(e) => Output::line(format!("ERROR {e}")),
        }
    }
}

/// How many of an external brain's lines wait to be read, at most.
const LINES_QUEUED: usize = 1024;

/// An [`Engine`] that runs an external Gomocup brain and asks it for moves.
///
/// The engine remembers the game the brain holds: a position one opponent's move past it
/// is asked for with `TURN`, as tournament managers do, and any other (a new game, a
/// takeback, another opening) with a complete `BOARD` block, after `RESTART` when the brain
/// holds a game, as the protocol asks (a brain that does not answer `OK` is ended and run
/// afresh, as the protocol has it for `UNKNOWN`). `START` is sent before the first move and
/// again when the board size changes, each time followed by `INFO max_memory`
/// ([`set_max_memory`](Self::set_max_memory)), `INFO rule` and `INFO timeout_turn`; after
/// that, each of them is sent again when it changes. A brain that does not answer a move
/// within the time plus a grace period ([`grace`](Self::grace)), or answers with anything
/// but a legal move, makes `choose_move` fail (a match counts that as a loss). `START` and
/// `RESTART` are off the clock: each may take 5 s plus the grace period, so a call that
/// sends one fails only after that long (a brain that never answers fails its first call
/// after about 6 s with the default grace). A brain that failed may still be thinking, and
/// its late answer would be read as the answer to the next request, so it is run afresh
/// before the next move is asked of it (waiting up to 1 s for its `ABOUT` answer, then
/// sending `START` again); lines that arrive while nothing is asked are dropped.
pub struct ExternalEngine {
    name: String,
    program: String,
    args: Vec<String>,
    /// The last request failed: restart the brain before the next one.
    failed: bool,
    /// Which of the brain's lines are answers.
    replies: ReplyReader,
    /// The moves of the game the brain holds (a `BOARD` block was sent since the last
    /// `START` or `RESTART`), its own answers included; `None` when its board is empty.
    game: Option<Vec<Move>>,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The last line the brain wrote on its standard error, and a channel that closes when
    /// that stream ends: a brain that fails often says why there (an unknown option, a
    /// missing file), and the error that reports it quotes the line.
    last_words: std::sync::Arc<std::sync::Mutex<Option<String>>>,
    stderr_done: Receiver<()>,
    size: Option<usize>,
    rule: Option<Rule>,
    timeout_ms: Option<u64>,
    /// The memory limit to announce, and the one the brain was last told.
    max_memory: u64,
    memory_sent: Option<u64>,
    /// Added to the time per move, and to the 5 s that `START` and `RESTART` may take,
    /// before giving up on the brain (default 1 s).
    pub grace: Duration,
}

impl std::fmt::Debug for ExternalEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalEngine")
            .field("name", &self.name)
            .field("pid", &self.child.id())
            .finish_non_exhaustive()
    }
}

impl ExternalEngine {
    /// Starts `program` with `args` and names the engine by its `ABOUT` answer (or the
    /// program's name if it gives none within a second).
    ///
    /// On Unix the brain runs in a process group of its own, so that a terminal's Ctrl-C,
    /// or a signal `timeout` sends to the group of the program that started it, reaches
    /// that program alone: it decides when the brain ends (when the engine is dropped:
    /// `END`, then a kill), and can let a game in play finish. If that program dies at
    /// once, the brain sees its input close, as brains do when a manager ends.
    ///
    /// # Errors
    /// [`GomokuError::External`] when the program cannot be started.
    pub fn spawn(program: &str, args: &[String]) -> Result<ExternalEngine, GomokuError> {
        let io_error =
            |e: std::io::Error| GomokuError::External(format!("cannot run {program}: {e}"));
        let mut command = Process::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(io_error)?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(GomokuError::External(format!("no pipes to {program}")));
            }
        };
        // Bounded: a brain that writes faster than it is read waits for the reader, and its
        // lines do not pile up in memory.
        let (tx, rx) = mpsc::sync_channel(LINES_QUEUED);
        thread::spawn(move || {
            read_lines(stdout, |lines| lines.drain(..).all(|l| tx.send(l).is_ok()));
        });
        // Standard error is read to its end (a brain must never block on it), keeping the
        // last line that is not blank, cut to a length fit for a message.
        let last_words = std::sync::Arc::new(std::sync::Mutex::new(None));
        let (done_tx, stderr_done) = mpsc::channel::<()>();
        if let Some(stderr) = child.stderr.take() {
            let last = std::sync::Arc::clone(&last_words);
            thread::spawn(move || {
                let _done = done_tx;
                read_lines(stderr, |lines| {
                    if let Some(l) = lines.drain(..).rev().find(|l| !l.trim().is_empty())
                        && let Ok(mut slot) = last.lock()
                    {
                        *slot = Some(l.trim().chars().take(LAST_WORDS_CHARS).collect());
                    }
                    true
                });
            });
        }
        let mut engine = ExternalEngine {
            name: program.to_string(),
            program: program.to_string(),
            args: args.to_vec(),
            failed: false,
            replies: ReplyReader::new(),
            game: None,
            child,
            stdin,
            lines: rx,
            last_words,
            stderr_done,
            size: None,
            rule: None,
            timeout_ms: None,
            max_memory: 0,
            memory_sent: None,
            grace: Duration::from_millis(1000),
        };
        // A brain that does not even take ABOUT fails later, on its first move, where a match
        // can count it as a forfeit. One that is slow to start answers it later, and that
        // answer is then skipped.
        let deadline = Instant::now() + Duration::from_secs(1);
        if engine.send("ABOUT").is_ok() {
            match engine.answer(deadline) {
                Ok(line) => {
                    if let Some(name) = about_name(&line) {
                        engine.name = name;
                    }
                }
                Err(_) => engine.replies.expect_late_about(),
            }
        }
        Ok(engine)
    }

    /// Sets the memory limit the brain is told (`INFO max_memory`, in bytes, before its next
    /// move), as tournament managers tell it; 0, the default, is the protocol's "no limit".
    /// Nothing enforces it: a brain is trusted to keep to it.
    pub fn set_max_memory(&mut self, bytes: u64) {
        self.max_memory = bytes;
    }

    /// Replaces the brain by a fresh run of the same program (the old one is ended as on
    /// drop), keeping the grace period and the memory limit.
    fn restart(&mut self) -> Result<(), GomokuError> {
        let mut fresh = ExternalEngine::spawn(&self.program, &self.args)?;
        fresh.grace = self.grace;
        fresh.max_memory = self.max_memory;
        drop(std::mem::replace(self, fresh));
        Ok(())
    }

    /// When an answer that may take `t` (plus the grace period) is due.
    fn deadline(&self, t: Duration) -> Instant {
        Instant::now()
            + t.saturating_add(self.grace)
                .min(crate::engine::LONGEST_WAIT)
    }

    /// Sends `START size` and reads the brain's `OK`: a new, empty board.
    fn start(&mut self, size: usize) -> Result<(), GomokuError> {
        self.send(&format!("START {size}"))?;
        let line = self.answer(self.deadline(INIT_WAIT))?;
        // The protocol's own example answers "OK - everything is good".
        if !is_ok(&line) {
            return Err(GomokuError::External(format!(
                "{} refused START {size}: {line}",
                self.name
            )));
        }
        self.size = Some(size);
        self.game = None;
        // Every setting is sent again after it.
        self.memory_sent = None;
        self.rule = None;
        self.timeout_ms = None;
        Ok(())
    }

    fn send(&mut self, line: &str) -> Result<(), GomokuError> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| self.gone(format!("{} stopped reading: {e}", self.name)))
    }

    /// The error for a brain that stopped reading or exited: `message`, with the last line
    /// the brain wrote on its standard error, once that stream has ended (waiting for it a
    /// moment: the brain may be exiting still).
    fn gone(&self, message: String) -> GomokuError {
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(500));
        match self.last_words.lock().ok().and_then(|w| w.clone()) {
            Some(words) => GomokuError::External(format!(
                "{message} (its last words on standard error: {words})"
            )),
            None => GomokuError::External(message),
        }
    }

    fn next_line(&mut self, deadline: Instant) -> Result<String, GomokuError> {
        let now = Instant::now();
        // Past the deadline even when lines are waiting: a brain that writes without end
        // would otherwise never time out.
        if now >= deadline {
            return Err(GomokuError::External(format!("{} timed out", self.name)));
        }
        match self.lines.recv_timeout(deadline - now) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => {
                Err(GomokuError::External(format!("{} timed out", self.name)))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.gone(format!("{} exited", self.name))),
        }
    }

    /// Reads lines until one that is an answer ([`ReplyReader::answer`]).
    fn answer(&mut self, deadline: Instant) -> Result<String, GomokuError> {
        loop {
            let line = self.next_line(deadline)?;
            if let Some(answer) = self.replies.answer(&line) {
                return Ok(answer);
            }
        }
    }
}

/// The manager's reading of a brain's output: which lines answer a command, which are for
/// people (`MESSAGE`, `DEBUG`, blank lines) and which is the late answer to an `ABOUT` the
/// manager stopped waiting for. [`ExternalEngine`] reads its brain with one.
#[derive(Debug, Clone, Default)]
pub struct ReplyReader {
    /// `ABOUT` went unanswered within its wait: its answer may still come, and must not be
    /// taken for the answer to a later command.
    about_pending: bool,
}

impl ReplyReader {
    /// A reader that expects no late `ABOUT` answer.
    #[must_use]
    pub fn new() -> ReplyReader {
        ReplyReader::default()
    }

    /// Notes that an `ABOUT` went unanswered within its wait: its answer may still come.
    pub fn expect_late_about(&mut self) {
        self.about_pending = true;
    }

    /// Whether the late answer to `ABOUT` is still expected.
    #[must_use]
    pub fn about_pending(&self) -> bool {
        self.about_pending
    }

    /// The answer `line` gives, trimmed; `None` for a comment or the late answer to `ABOUT`
    /// (which is then no longer expected). While that answer is due, it is the first line
    /// that is no command's answer (brains answer in order): not `OK`, `ERROR`, `UNKNOWN` or
    /// a move, or holding `key="value"` fields. An old brain may answer `ABOUT` in plain
    /// words (`MyBrain 1.0`), and one that never answers it still has its other answers read.
    pub fn answer(&mut self, line: &str) -> Option<String> {
        if is_comment(line) {
            return None;
        }
        let line = line.trim();
        let an_answer =
            first_word_is(line, &["OK", "ERROR", "UNKNOWN"]) || parse_move(line).is_some();
        if self.about_pending && (line.contains("=\"") || !an_answer) {
            self.about_pending = false;
            return None;
        }
        Some(line.to_string())
    }
}

/// The brain's name in its answer to `ABOUT` (`name="..."`), if it gives one.
#[must_use]
pub fn about_name(line: &str) -> Option<String> {
    about_field(line, "name")
}

/// A brain's move, `x,y` (spaces around the parts allowed; coordinates above 255 are
/// refused), as the manager reads it.
#[must_use]
pub fn parse_reply_move(line: &str) -> Option<Move> {
    parse_move(line)
}

/// A `BOARD` block of `history` for the brain playing `me`.
fn board_block(history: &[Move], me: Stone) -> String {
    let mut block = String::from("BOARD\n");
    for (i, m) in history.iter().enumerate() {
        let mover = if i % 2 == 0 {
            Stone::Black
        } else {
            Stone::White
        };
        let field = if mover == me { 1 } else { 2 };
        block.push_str(&format!("{},{},{field}\n", m.x, m.y));
    }
    block.push_str("DONE");
    block
}

/// Whether a brain's answer accepts the command: `OK`, in any case, maybe with a remark.
fn is_ok(line: &str) -> bool {
    first_word_is(line, &["OK"])
}

/// A line a brain writes for people, never an answer: `MESSAGE`, `DEBUG` or a blank line.
fn is_comment(line: &str) -> bool {
    line.trim().is_empty() || first_word_is(line, &["MESSAGE", "DEBUG"])
}

/// Whether the line's first word is one of `words` (upper case), in any case.
fn first_word_is(line: &str, words: &[&str]) -> bool {
    line.split_whitespace()
        .next()
        .is_some_and(|w| words.iter().any(|x| w.eq_ignore_ascii_case(x)))
}

/// How long `START` and `RESTART` may take (besides the grace period): they are not on the
/// clock, and a brain may set up large tables for them.
const INIT_WAIT: Duration = Duration::from_secs(5);

/// The value of `key="value"` in an `ABOUT` answer: the fields are read in order, so that
/// neither a longer key ending in `key` nor a value holding `key="` is taken for it.
fn about_field(line: &str, key: &str) -> Option<String> {
    let mut rest = line;
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq]
            .rsplit(|c: char| c == ',' || c.is_whitespace())
            .next()
            .unwrap_or("");
        let value_start = eq + 2;
        let len = rest[value_start..].find('"')?;
        if name == key {
            return Some(rest[value_start..value_start + len].to_string());
        }
        rest = &rest[value_start + len + 1..];
    }
    None
}

impl Engine for ExternalEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) {}

    fn choose_move(&mut self, board: &Board, time: Duration) -> Result<Move, GomokuError> {
        if board.is_over() {
            return Err(GomokuError::GameOver);
        }
        if self.failed {
            self.restart()?;
        }
        let chosen = self.ask(board, time);
        self.failed = chosen.is_err();
        chosen
    }
}

impl ExternalEngine {
    /// Sends what the brain needs to know of `board` and reads its move.
    fn ask(&mut self, board: &Board, time: Duration) -> Result<Move, GomokuError> {
        // Nothing was asked since the last answer: whatever came since is not an answer. (At
        // most a queue's worth: a brain that writes without end would keep this loop going.)
        for _ in 0..LINES_QUEUED {
            let Ok(line) = self.lines.try_recv() else {
                break;
            };
            self.replies.answer(&line);
        }
        // START first, then the settings, as tournament managers send them (a brain may set
        // its defaults again when it starts a board).
        if self.size != Some(board.size()) {
            self.start(board.size())?;
        }
        if self.memory_sent != Some(self.max_memory) {
            self.send(&format!("INFO max_memory {}", self.max_memory))?;
            self.memory_sent = Some(self.max_memory);
        }
        let rule_changed = self.rule != Some(board.rule());
        if rule_changed {
            let mask = match board.rule() {
                Rule::Freestyle => 0,
                Rule::ExactlyFive => 1,
            };
            self.send(&format!("INFO rule {mask}"))?;
            self.rule = Some(board.rule());
        }
        // 2^31 - 1 ms is the protocol's "unlimited"; brains may keep the value in 32 bits.
        // 0 is its "as fast as possible".
        let ms = time.as_millis().min(i32::MAX as u128) as u64;
        if self.timeout_ms != Some(ms) {
            self.send(&format!("INFO timeout_turn {ms}"))?;
            self.send("INFO timeout_match 0")?;
            self.timeout_ms = Some(ms);
        }
        let history = board.history();
        let next = match &self.game {
            Some(held)
                if !rule_changed
                    && history.len() == held.len() + 1
                    && history.starts_with(held) =>
            {
                history.last().copied()
            }
            _ => None,
        };
        if let Some(m) = next {
            // The game the brain holds, one opponent's move on.
            self.send(&format!("TURN {},{}", m.x, m.y))?;
        } else {
            if self.game.is_some() {
                // "If there is any open match, the manager sends RESTART command before the
                // BOARD command."
                // A brain that does not answer OK is ended and run again, as the protocol
                // has it for UNKNOWN (and a late answer could be read as the next one).
                // So is one that has exited since its last answer.
                let restarted = self.send("RESTART").is_ok()
                    && self
                        .answer(self.deadline(INIT_WAIT))
                        .is_ok_and(|line| is_ok(&line));
                if !restarted {
                    self.restart()?;
                    return self.ask(board, time);
                }
                self.game = None;
            }
            if history.is_empty() {
                // The protocol's own opening; an empty block is not one some brains accept.
                self.send("BEGIN")?;
            } else {
                self.send(&board_block(history, board.side_to_move()))?;
            }
        }
        // Whatever the answer, the brain now holds a game; a failed request restarts it.
        self.game = Some(history.to_vec());
        let line = self.answer(self.deadline(time))?;
        match parse_reply_move(&line) {
            Some(m) if board.is_legal(m) => {
                if let Some(held) = &mut self.game {
                    held.push(m);
                }
                Ok(m)
            }
            Some(m) => Err(GomokuError::External(format!(
                "{} played the illegal move {m}",
                self.name
            ))),
            None => Err(GomokuError::External(format!(
                "{} answered {line:?}",
                self.name
            ))),
        }
    }
}

impl Drop for ExternalEngine {
    fn drop(&mut self) {
        let _ = self.send("END");
        // Give the brain a moment to exit by itself, then make sure it is gone.
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitter_accepts_every_line_ending() {
        let mut s = LineSplitter::new();
        let mut lines = Vec::new();
        s.push(b"START 15\r\nBEGIN\rTURN 1,", &mut lines);
        s.push(b"2\nINFO rule 1", &mut lines);
        assert_eq!(lines, ["START 15", "BEGIN", "TURN 1,2"]);
        s.finish(&mut lines);
        assert_eq!(lines.last().map(String::as_str), Some("INFO rule 1"));
        // A CR LF pair split between two reads ends one line, not two.
        let mut lines = Vec::new();
        s.push(b"OK\r", &mut lines);
        s.push(b"\n7,7\r", &mut lines);
        s.push(b"\n", &mut lines);
        s.finish(&mut lines);
        assert_eq!(lines, ["OK", "7,7"]);
    }

    #[test]
    fn splitter_bounds_long_lines() {
        let mut s = LineSplitter::new();
        let mut lines = Vec::new();
        s.push(&vec![b'x'; 3 * MAX_LINE], &mut lines);
        s.push(b"\nEND\n", &mut lines);
        assert_eq!(lines, [TOO_LONG, "END"]);
        assert!(LONG_LINE.contains(&format!(" {MAX_LINE} ")));
        // The first MAX_LINE bytes of a longer line are a valid command; the line is not.
        let mut long = b"TURN 7,7".to_vec();
        long.resize(MAX_LINE, b' ');
        lines.clear();
        s.push(&long, &mut lines);
        s.push(b"\n", &mut lines);
        assert_eq!(parse_line(&lines[0]), Command::Turn(Move::new(7, 7)));
        long.extend_from_slice(b"junk\n");
        lines.clear();
        s.push(&long, &mut lines);
        assert_eq!(lines, [TOO_LONG]);
        assert!(matches!(parse_line(&lines[0]), Command::Malformed(_)));
        assert_eq!(parse_move(&lines[0]), None);
        // A long comment stays a comment (a brain's MESSAGE before its move is skipped).
        let mut message = b"MESSAGE ".to_vec();
        message.resize(2 * MAX_LINE, b'x');
        message.push(b'\n');
        lines.clear();
        s.push(&message, &mut lines);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("MESSAGE xx") && lines[0].len() == MAX_LINE);
        assert!(is_comment(&lines[0]));
        // Blanks are no comment: a long line of them is refused like any other.
        let mut blank = vec![b' '; 2 * MAX_LINE];
        blank.extend_from_slice(b"TURN 7,7\n");
        lines.clear();
        s.push(&blank, &mut lines);
        assert_eq!(lines, [TOO_LONG]);
    }

    #[test]
    fn parses_commands() {
        assert_eq!(parse_line("start 20\r"), Command::Start(20));
        assert_eq!(
            parse_line("  RectStart 20, 15 "),
            Command::RectStart(20, 15)
        );
        assert_eq!(parse_line("TURN 3, 4"), Command::Turn(Move::new(3, 4)));
        assert_eq!(parse_line("10,11,2"), Command::Stone(Move::new(10, 11), 2));
        assert_eq!(
            parse_line("INFO timeout_turn 5000"),
            Command::Info(Info::TimeoutTurn(5000))
        );
        assert_eq!(
            parse_line("INFO Folder C:\\my dir"),
            Command::Info(Info::Folder("C:\\my dir".into()))
        );
        assert_eq!(
            parse_line("INFO evaluate 1,2"),
            Command::Info(Info::Other("evaluate".into()))
        );
        assert_eq!(parse_line(""), Command::Empty);
        assert!(matches!(parse_line("START"), Command::Malformed(_)));
        assert!(matches!(parse_line("START -1"), Command::Malformed(_)));
        assert!(matches!(parse_line("TURN 300,1"), Command::Malformed(_)));
        assert!(matches!(parse_line("TURN 1,2,3"), Command::Malformed(_)));
        // Coordinates and sizes are digits: no sign, as no manager writes one.
        for line in [
            "TURN +1,2",
            "TURN 1,+2",
            "START +15",
            "RECTSTART +9,9",
            "+1,2,1",
        ] {
            assert!(matches!(parse_line(line), Command::Malformed(_)), "{line}");
        }
        for line in ["BEGIN now", "BOARD 1", "DONE x"] {
            assert_eq!(
                parse_line(line),
                Command::Malformed(format!("no arguments expected: {line:?}"))
            );
        }
        assert_eq!(
            parse_line("INFO timeout_turn -5"),
            Command::BadInfo(
                "INFO timeout_turn needs a non-negative whole number, not \"-5\": \"INFO timeout_turn -5\""
                    .into()
            )
        );
        assert!(matches!(
            parse_line("INFO timeout_turn lots"),
            Command::BadInfo(_)
        ));
        // A manager sends a negative time left once the brain has run out of time.
        assert_eq!(
            parse_line("INFO time_left -50"),
            Command::Info(Info::TimeLeft(0))
        );
        assert_eq!(
            parse_line("INFO time_left 2147483647"),
            Command::Info(Info::TimeLeft(2_147_483_647))
        );
        assert!(matches!(
            parse_line("INFO time_left soon"),
            Command::BadInfo(_)
        ));
        assert!(matches!(parse_line("INFO"), Command::BadInfo(_)));
        assert!(matches!(parse_line("1,2"), Command::Malformed(_)));
        assert!(matches!(parse_line("SWAP2BOARD"), Command::Swap2Board));
        assert!(matches!(parse_line("swap2board 1"), Command::Malformed(_)));
        assert!(matches!(parse_line("ÿÿ,é"), Command::Unknown(_)));
    }

    #[test]
    fn think_time_keeps_a_margin() {
        let mut t = TimeControl {
            timeout_turn: 1000,
            ..TimeControl::default()
        };
        assert_eq!(t.think_time(), Duration::from_millis(870));
        t.timeout_match = 60_000;
        t.time_left = Some(6_000);
        assert_eq!(t.think_time(), Duration::from_millis(500 - 80));
        t.time_left = Some(10);
        assert_eq!(t.think_time(), Duration::from_millis(5));
        t.timeout_turn = 0;
        assert_eq!(
            t.think_time(),
            Duration::from_millis(5),
            "the share is less"
        );
        t.time_left = None;
        assert_eq!(t.think_time(), TimeControl::FASTEST);
        t.timeout_match = 0;
        assert_eq!(t.think_time(), TimeControl::FASTEST);
        // The time left counts without a match limit; "unlimited" is 2^31 - 1 ms.
        t.timeout_turn = 1000;
        t.time_left = Some(1200);
        assert_eq!(t.think_time(), Duration::from_millis(100 - 40));
        t.time_left = Some(2_147_483_647);
        assert_eq!(t.think_time(), Duration::from_millis(870));
        // Without a time left, the match limit stands for it, less the time spent since
        // the game began.
        t.time_left = None;
        t.timeout_match = 3600;
        assert_eq!(t.think_time(), Duration::from_millis(300 - 60));
        t.spent = 1200;
        assert_eq!(t.think_time(), Duration::from_millis(200 - 50));
        t.spent = 5000;
        assert_eq!(t.think_time(), Duration::from_millis(5));
        // With a time left, only what was spent after it counts.
        t.spent = 600;
        t.time_left = Some(1800);
        assert_eq!(t.think_time(), Duration::from_millis(100 - 40));
    }

    /// The brain counts its thinking time against the match when the manager sends no time
    /// left, and starts counting afresh at each time left and each new game.
    #[test]
    fn the_brain_counts_its_own_time() {
        struct Slow;
        impl Engine for Slow {
            fn name(&self) -> &str {
                "slow"
            }
            fn choose_move(&mut self, board: &Board, _: Duration) -> Result<Move, GomokuError> {
                std::thread::sleep(Duration::from_millis(30));
                (0..board.size() as u8)
                    .flat_map(|y| (0..board.size() as u8).map(move |x| Move::new(x, y)))
                    .find(|&m| board.is_legal(m))
                    .ok_or_else(|| GomokuError::NoMove("full".into()))
            }
        }
        let mut b = Brain::new(Slow);
        say(&mut b, "INFO timeout_match 100000");
        say(&mut b, "START 15");
        say(&mut b, "BEGIN");
        let spent = b.time_control().spent;
        assert!(spent >= 30, "{spent}");
        say(&mut b, "INFO time_left 90000");
        assert_eq!(b.time_control().spent, 0);
        say(&mut b, "TURN 7,7");
        assert!(b.time_control().spent >= 30);
        say(&mut b, "RESTART");
        assert_eq!(b.time_control().spent, 0);
        say(&mut b, "BEGIN");
        assert!(b.time_control().spent >= 30);
        say(&mut b, "INFO timeout_match 50000");
        assert_eq!(b.time_control().spent, 0);
    }

    use crate::engine::tests::FirstEmpty;

    fn say<E: Engine>(brain: &mut Brain<E>, line: &str) -> Vec<String> {
        brain.handle_line(line).lines
    }

    fn first_word(lines: &[String]) -> &str {
        lines
            .first()
            .and_then(|l| l.split(' ').next())
            .unwrap_or("")
    }

    /// A `BOARD` block sent to a brain lists the moves in order as `x,y,field`, the field 1
    /// for the brain's own stones and 2 for its opponent's.
    #[test]
    fn a_board_block_gives_each_move_its_column_row_and_owner() {
        let history = [Move::new(1, 2), Move::new(3, 4), Move::new(0, 5)];
        assert_eq!(
            board_block(&history, Stone::White),
            "BOARD\n1,2,2\n3,4,1\n0,5,2\nDONE"
        );
        assert_eq!(
            board_block(&history, Stone::Black),
            "BOARD\n1,2,1\n3,4,2\n0,5,1\nDONE"
        );
        assert_eq!(board_block(&[], Stone::Black), "BOARD\nDONE");
    }

    /// The three shapes of Gomocup's Swap2 block (no stones, three, five) each get exactly
    /// one answer, at `DONE`; the stones change nothing; a command inside ends the block.
    #[test]
    fn a_swap2_block_gets_one_answer() {
        let mut b = Brain::new(FirstEmpty);
        assert_eq!(say(&mut b, "START 15"), ["OK"]);
        for stones in [
            &[][..],
            &["7,7", "8,7", "9,9"],
            &["7,7", "8,7", "9,9", "8,8", "8,6"],
        ] {
            assert!(say(&mut b, "SWAP2BOARD").is_empty());
            for l in stones.iter().chain(&["", "INFO timeout_turn 500"]) {
                assert!(say(&mut b, l).is_empty(), "{l:?}");
            }
            let out = say(&mut b, "DONE");
            assert_eq!(out.len(), 1, "{out:?}");
            assert_eq!(first_word(&out), "UNKNOWN");
            assert!(b.board().unwrap().history().is_empty());
        }
        assert_eq!(b.time_control().timeout_turn, 500);
        // The game that follows is played as usual.
        assert!(say(&mut b, "BOARD").is_empty());
        assert!(say(&mut b, "7,7,2").is_empty());
        assert_eq!(say(&mut b, "DONE"), ["0,0"]);
        // A block cut short by another command: its answer, then the command's.
        assert!(say(&mut b, "SWAP2BOARD").is_empty());
        assert!(say(&mut b, "7,8").is_empty());
        // A line of no known command inside the block does not end it.
        assert!(say(&mut b, "SWAP2OPTION 2").is_empty());
        assert!(say(&mut b, "7,9").is_empty());
        let out = say(&mut b, "TURN 1,0");
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(first_word(&out), "UNKNOWN");
        assert_eq!(out[1], "2,0");
        assert_eq!(say(&mut b, "DONE")[0], "ERROR DONE without BOARD");
        assert!(say(&mut b, "SWAP2BOARD").is_empty());
        assert!(b.handle_line("END").quit);
    }

    #[test]
    fn numbers_too_large_are_named_so() {
        let malformed = |line: &str| match parse_line(line) {
            Command::Malformed(why) | Command::BadInfo(why) => why,
            other => panic!("{line:?} parsed as {other:?}"),
        };
        assert_eq!(
            malformed("TURN 300,1"),
            "a coordinate above 255 is off every board: \"TURN 300,1\""
        );
        assert_eq!(
            malformed("TAKEBACK 1, 256"),
            "a coordinate above 255 is off every board: \"TAKEBACK 1, 256\""
        );
        assert_eq!(
            malformed("TURN 300,x"),
            "TURN needs x,y, two numbers from 0: \"TURN 300,x\""
        );
        assert_eq!(
            malformed("TURN -1,2"),
            "TURN needs x,y, two numbers from 0: \"TURN -1,2\""
        );
        assert_eq!(
            malformed("START 99999999999999999999"),
            "START board size too large: \"START 99999999999999999999\""
        );
        assert_eq!(
            malformed("RECTSTART 20,99999999999999999999"),
            "RECTSTART board size too large: \"RECTSTART 20,99999999999999999999\""
        );
        assert_eq!(
            malformed("INFO max_memory 18446744073709551616"),
            "INFO max_memory 18446744073709551616 is too large: \
             \"INFO max_memory 18446744073709551616\""
        );
        assert_eq!(
            malformed("INFO time_left -99999999999999999999"),
            "INFO time_left -99999999999999999999 is too small: \
             \"INFO time_left -99999999999999999999\""
        );
        assert_eq!(
            malformed("INFO time_left 99999999999999999999"),
            "INFO time_left 99999999999999999999 is too large: \
             \"INFO time_left 99999999999999999999\""
        );
        assert!(malformed("INFO time_left 12x").contains("needs a whole number"));
        assert!(malformed("7,7,300").starts_with(BAD_STONE));
        assert!(malformed("300,7,1").contains("above 255"));
        // In a block, such a stone line spoils the block, answered at its `DONE`.
        let mut b = Brain::new(FirstEmpty);
        say(&mut b, "START 15");
        for l in ["BOARD", "300,1,1"] {
            assert!(say(&mut b, l).is_empty());
        }
        assert!(say(&mut b, "DONE")[0].contains("above 255"));
    }

    #[test]
    fn a_byte_order_mark_before_the_first_command_is_ignored() {
        assert_eq!(parse_line("\u{feff}START 15\r"), Command::Start(15));
        let mut s = LineSplitter::default();
        let mut lines = Vec::new();
        s.push(b"\xEF\xBB\xBFSTART 15\n", &mut lines);
        assert_eq!(parse_line(&lines[0]), Command::Start(15));
    }

    #[test]
    fn a_turn_when_the_brain_is_to_move_is_refused() {
        let mut b = Brain::new(FirstEmpty);
        say(&mut b, "START 15");
        assert_eq!(say(&mut b, "BEGIN"), ["0,0"]);
        assert_eq!(say(&mut b, "TURN 5,5"), ["1,0"]);
        // The brain's own move taken back: Black, the brain, is to move, and a `TURN` would
        // play the opponent's stone as Black's.
        assert_eq!(say(&mut b, "TAKEBACK 1,0"), ["OK"]);
        let out = say(&mut b, "TURN 2,0");
        assert!(
            out[0].starts_with("ERROR TURN 2,0: it is this brain's turn"),
            "{out:?}"
        );
        assert_eq!(b.board().unwrap().history().len(), 2);
        // Both moves taken back, the opponent is to move again.
        assert_eq!(say(&mut b, "TAKEBACK 5,5"), ["OK"]);
        assert_eq!(say(&mut b, "TURN 2,0"), ["1,0"]);
        // A new game: the brain may be White.
        say(&mut b, "RESTART");
        assert_eq!(say(&mut b, "TURN 7,7"), ["0,0"]);
        assert_eq!(say(&mut b, "TAKEBACK 0,0"), ["OK"]);
        assert!(first_word(&say(&mut b, "TURN 1,1")) == "ERROR");
    }

    #[test]
    fn commands_without_a_game_do_not_say_before_start() {
        let mut b = Brain::new(FirstEmpty);
        assert_eq!(first_word(&say(&mut b, "START 4")), "ERROR");
        for l in ["TURN 7,7", "BEGIN", "RESTART", "TAKEBACK 7,7"] {
            let out = say(&mut b, l);
            assert!(
                out[0].starts_with("ERROR") && out[0].contains("a refused START starts none"),
                "{l}: {out:?}"
            );
        }
    }

    #[test]
    fn brain_session() {
        let mut b = Brain::new(FirstEmpty);
        assert_eq!(first_word(&say(&mut b, "BEGIN")), "ERROR");
        // A BOARD block before START is read to its end and answered once.
        for l in ["BOARD", "1,1,1", "DONE"] {
            let out = say(&mut b, l);
            if l == "DONE" {
                assert_eq!(
                    out,
                    ["ERROR BOARD: no game (START first; a refused START starts none)"]
                );
            } else {
                assert!(out.is_empty(), "{l}: {out:?}");
            }
        }
        assert_eq!(first_word(&say(&mut b, "START 4")), "ERROR");
        assert_eq!(first_word(&say(&mut b, "RECTSTART 20,15")), "ERROR");
        assert_eq!(say(&mut b, "RECTSTART 10,10"), ["OK"]);
        assert_eq!(b.board().map(Board::size), Some(10));
        assert_eq!(say(&mut b, "START 15"), ["OK"]);
        assert_eq!(say(&mut b, "BEGIN"), ["0,0"]);
        assert_eq!(first_word(&say(&mut b, "BEGIN")), "ERROR");
        assert_eq!(say(&mut b, "TURN 5,5"), ["1,0"]);
        assert_eq!(first_word(&say(&mut b, "TURN 5,5")), "ERROR", "occupied");
        assert_eq!(
            first_word(&say(&mut b, "TURN 15,0")),
            "ERROR",
            "off the board"
        );
        assert_eq!(
            first_word(&say(&mut b, "TAKEBACK 5,5")),
            "ERROR",
            "not the last"
        );
        assert_eq!(say(&mut b, "TAKEBACK 1,0"), ["OK"]);
        assert_eq!(say(&mut b, "TAKEBACK 5,5"), ["OK"]);
        assert_eq!(b.board().map(|b| b.history().len()), Some(1));
        // A BOARD block: we (1) are White with one stone, the opponent has two.
        assert!(say(&mut b, "BOARD").is_empty());
        assert!(say(&mut b, "7,7,2").is_empty());
        assert!(say(&mut b, "8,8,1").is_empty());
        assert!(say(&mut b, "INFO time_left 1000").is_empty());
        assert!(say(&mut b, "7,8,2").is_empty());
        assert_eq!(say(&mut b, "DONE"), ["0,0"]);
        let board = b.board().unwrap();
        assert_eq!(
            board.history(),
            [
                Move::new(7, 7),
                Move::new(8, 8),
                Move::new(7, 8),
                Move::new(0, 0)
            ]
        );
        assert_eq!(board.get(Move::new(8, 8)), Some(Stone::White));
        // Blocks that describe no position we can play, each named; then a block interrupted
        // by another command.
        for (stones, error) in [
            (
                &["1,1,1", "2,2,1"][..],
                "2 own and 0 opponent stones cannot be our turn",
            ),
            (
                &["1,1,9"],
                "stone 1,1 has field 9 (expected 1 for own or 2 for the opponent's)",
            ),
            (&["99,3,1"], "stone 99,3 is off the 15x15 board"),
            // A cell twice, of one owner or of both: not a count that cannot be our turn.
            (&["7,7,1", "7,7,1"], "cell 7,7 is listed twice"),
            (&["7,7,1", "7,7,2"], "cell 7,7 is listed twice"),
            // A continuous game's marker: a cell no one may play, which this brain would not
            // know to avoid.
            (
                &["1,1,1", "2,2,2", "3,3,2", "4,4,3"],
                "stone 4,4 has field 3, a continuous game's marker (continuous games are not supported)",
            ),
        ] {
            for l in std::iter::once(&"BOARD").chain(stones) {
                assert!(say(&mut b, l).is_empty());
            }
            assert_eq!(say(&mut b, "DONE"), [format!("ERROR BOARD: {error}")]);
        }
        assert!(say(&mut b, "BOARD").is_empty());
        let out = say(&mut b, "TURN 3,3");
        assert_eq!(first_word(&out), "ERROR");
        assert_eq!(
            out.len(),
            2,
            "the interrupting command is still answered: {out:?}"
        );
        // One unreadable line spoils a block, which is still read to its end and answered
        // once, at DONE, naming the first such line; an unreadable INFO inside it gets only
        // a DEBUG note, and the position stays as it was.
        let before = b.board().unwrap().history().to_vec();
        for l in ["BOARD", "1,2", "garbage", "3,3,1"] {
            assert!(say(&mut b, l).is_empty(), "{l}");
        }
        assert_eq!(first_word(&say(&mut b, "INFO timeout_turn lots")), "DEBUG");
        assert_eq!(
            say(&mut b, "DONE"),
            ["ERROR BOARD: a stone line is x,y,field: \"1,2\""]
        );
        for l in ["BOARD", "garbage"] {
            assert!(say(&mut b, l).is_empty(), "{l}");
        }
        assert_eq!(
            say(&mut b, "DONE"),
            ["ERROR BOARD: unknown line \"garbage\""]
        );
        assert_eq!(b.board().unwrap().history(), before);
        // A line too long to read spoils a block as garbage does.
        for l in ["BOARD", "3,3,1", TOO_LONG, "4,4,2"] {
            assert!(say(&mut b, l).is_empty(), "{l}");
        }
        assert_eq!(
            say(&mut b, "DONE"),
            ["ERROR BOARD: a line of more than 4096 bytes"]
        );
        assert_eq!(b.board().unwrap().history(), before);
        // A block that never ends keeps at most a board's worth of stones.
        assert!(say(&mut b, "BOARD").is_empty());
        for _ in 0..3 * MAX_SIZE * MAX_SIZE {
            assert!(say(&mut b, "1,1,1").is_empty());
        }
        assert!(matches!(
            &b.block,
            Some(Block::Board { stones, .. }) if stones.len() == MAX_SIZE * MAX_SIZE
        ));
        assert_eq!(
            say(&mut b, "DONE"),
            [format!(
                "ERROR BOARD: more than {} stones",
                MAX_SIZE * MAX_SIZE
            )]
        );
        assert_eq!(b.board().unwrap().history(), before);
        // A command with bad arguments still interrupts a block, answered at once.
        for l in ["BOARD", "3,3,1"] {
            assert!(say(&mut b, l).is_empty(), "{l}");
        }
        let out = say(&mut b, "DONE x");
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(out[0], "ERROR BOARD block interrupted");
        assert!(out[1].starts_with("ERROR "), "{out:?}");
        assert_eq!(
            first_word(&say(&mut b, "DONE")),
            "ERROR",
            "the block was closed"
        );
        assert_eq!(b.board().unwrap().history(), before);
        // Outside a block too, INFO gets no ERROR.
        assert_eq!(
            say(&mut b, "INFO"),
            ["DEBUG ignored: INFO needs a key and a value: \"INFO\""]
        );
        // Settings.
        assert!(say(&mut b, "INFO rule 1").is_empty());
        for (mask, playing, named) in [
            (8, "freestyle", &["caro"][..]),
            (3, "exactly-five", &["continuous"]),
            (4, "exactly-five", &["renju"]),
            (12, "exactly-five", &["renju", "caro"]),
        ] {
            let out = say(&mut b, &format!("INFO rule {mask}"));
            assert_eq!(out.len(), 1);
            assert!(
                out[0].starts_with(&format!("MESSAGE INFO rule {mask}: "))
                    && out[0].ends_with(playing),
                "{out:?}"
            );
            for rule in ["continuous", "renju", "caro"] {
                assert_eq!(out[0].contains(rule), named.contains(&rule), "{out:?}");
            }
        }
        assert!(say(&mut b, "INFO rule 1").is_empty());
        assert_eq!(b.rule(), Rule::ExactlyFive);
        assert_eq!(b.board().map(Board::rule), Some(Rule::ExactlyFive));
        assert!(say(&mut b, "INFO max_memory 83886080").is_empty());
        assert_eq!(b.max_memory(), 83_886_080);
        assert!(say(&mut b, "INFO timeout_turn 2000").is_empty());
        assert!(say(&mut b, "INFO some_new_key 7").is_empty());
        assert_eq!(b.time_control().timeout_turn, 2000);
        // The time left holds until the next game or another match limit.
        assert!(say(&mut b, "INFO time_left -50").is_empty());
        assert_eq!(b.time_control().time_left, Some(0));
        assert!(say(&mut b, "INFO timeout_match 600000").is_empty());
        assert_eq!(b.time_control().time_left, None);
        assert!(say(&mut b, "INFO time_left 4000").is_empty());
        assert_eq!(say(&mut b, "RESTART"), ["OK"]);
        assert_eq!(b.time_control().time_left, None);
        assert_eq!(b.board().map(|b| b.history().len()), Some(0));
        assert!(say(&mut b, "ABOUT")[0].starts_with("name=\"gameai-first-empty\""));
        assert_eq!(first_word(&say(&mut b, "PLAY 1,1")), "UNKNOWN");
        assert_eq!(first_word(&say(&mut b, "TURN")), "ERROR");
        assert!(b.handle_line("end").quit);
        // The debug form names the engine and shows the settings.
        let shown = format!("{b:?}");
        assert!(
            shown.contains("first-empty") && shown.contains("timeout_turn: 2000"),
            "{shown}"
        );
    }

    /// A brain that says something before its name, sleeps through the first move asked of
    /// it (once: it leaves the file `$1` behind) and answers `n,0` to a board of `n` stones.
    #[cfg(unix)]
    const SLOW_BRAIN: &str = r#"
while read -r line; do
  case "$line" in
    ABOUT*) echo "MESSAGE starting"; echo 'name="slowpoke", version="1"' ;;
    START*) echo OK ;;
    BOARD*) n=0 ;;
    [0-9]*) n=$((n+1)) ;;
    DONE*) if [ ! -e "$1" ]; then : > "$1"; sleep 1; fi; echo "$n,0" ;;
  esac
done
"#;

    /// A file a test brain may create, removed when the test ends, even by a failed assertion.
    #[cfg(unix)]
    struct Mark(std::path::PathBuf);

    #[cfg(unix)]
    impl Drop for Mark {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// Runs the shell script `script` as a brain whose `$1` names a file it may leave behind
    /// (removed first, and again when the returned mark is dropped), returned with the engine.
    #[cfg(unix)]
    fn brain_with_mark(script: &str, tag: &str) -> (ExternalEngine, Mark) {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mark =
            std::env::temp_dir().join(format!("gomoku-{tag}-brain-{}-{n}", std::process::id()));
        let _ = std::fs::remove_file(&mark);
        let e = shell_brain_with(script, &[mark.to_string_lossy().into_owned()]);
        (e, Mark(mark))
    }

    #[cfg(unix)]
    #[test]
    fn a_brain_that_timed_out_is_restarted_and_its_late_answer_never_read() {
        let (mut e, mark) = brain_with_mark(SLOW_BRAIN, "slow");
        // The name comes from the ABOUT answer, past the MESSAGE before it.
        assert_eq!(e.name(), "slowpoke");
        e.grace = Duration::from_millis(300);
        let mut board = Board::new(15, Rule::Freestyle).unwrap();
        let err = e
            .choose_move(&board, Duration::from_millis(10))
            .unwrap_err();
        assert!(err.to_string().contains("timed out"), "{err}");
        // The first run answers `0,0` when it wakes; the move asked for next, with one stone
        // on the board, must be the restarted brain's `1,0`.
        board.play(Move::new(7, 7)).unwrap();
        let m = e.choose_move(&board, Duration::from_secs(3)).unwrap();
        assert_eq!(m, Move::new(1, 0));
        drop(mark);
    }

    /// Runs the shell script `script` as a brain.
    #[cfg(unix)]
    fn shell_brain(script: &str) -> ExternalEngine {
        shell_brain_with(script, &[])
    }

    /// Runs the shell script `script` as a brain, with `args` as `$1`, `$2`, ...
    #[cfg(unix)]
    fn shell_brain_with(script: &str, args: &[String]) -> ExternalEngine {
        let mut all = vec!["-c".to_string(), script.to_string(), "brain".to_string()];
        all.extend_from_slice(args);
        ExternalEngine::spawn("sh", &all).unwrap()
    }

    /// A brain that ends its lines with CR alone, as the protocol allows.
    #[cfg(unix)]
    #[test]
    fn a_brain_may_end_its_lines_with_cr() {
        let mut e = shell_brain(
            r#"
while read -r line; do
  case "$line" in
    ABOUT*) printf 'name="cr-only"\r' ;;
    START*) printf 'OK\r' ;;
    DONE*|BEGIN*) printf 'MESSAGE thinking\r7,7\r' ;;
  esac
done
"#,
        );
        assert_eq!(e.name(), "cr-only");
        let board = Board::new(15, Rule::Freestyle).unwrap();
        let m = e.choose_move(&board, Duration::from_secs(3)).unwrap();
        assert_eq!(m, Move::new(7, 7));
    }

    /// `OK` may be followed by a remark (the protocol's own example answers START with
    /// "OK - everything is good"); any other first word refuses the board.
    #[cfg(unix)]
    #[test]
    fn an_ok_with_a_remark_accepts_start() {
        let script = |answer: &str| {
            format!(
                r#"
while read -r line; do
  case "$line" in
    ABOUT*) echo 'name="remarks"' ;;
    START*) echo '{answer}' ;;
    DONE*|BEGIN*) echo 7,7 ;;
  esac
done
"#
            )
        };
        let board = Board::new(15, Rule::Freestyle).unwrap();
        let mut e = shell_brain(&script("OK - everything is good"));
        assert_eq!(
            e.choose_move(&board, Duration::from_secs(3)).unwrap(),
            Move::new(7, 7)
        );
        let mut e = shell_brain(&script("OKAY"));
        let err = e.choose_move(&board, Duration::from_secs(3)).unwrap_err();
        assert!(err.to_string().contains("refused START 15: OKAY"), "{err}");
    }

    /// The brain is told the memory limit before its first move (0: none), and again when it
    /// changes.
    #[cfg(unix)]
    #[test]
    fn the_brain_is_told_the_memory_limit() {
        // The brain answers with the last limit it was told, in MiB, as its column.
        let script = r#"
mem=-1
while read -r line; do
  case "$line" in
    "INFO max_memory "*) mem=$(( ${line#INFO max_memory } / 1048576 )) ;;
    START*) echo OK ;;
    RESTART*) echo OK ;;
    DONE*|BEGIN*) echo "$mem,0" ;;
  esac
done
"#;
        let mut e = shell_brain(script);
        let board = Board::new(15, Rule::Freestyle).unwrap();
        let t = Duration::from_secs(3);
        assert_eq!(e.choose_move(&board, t).unwrap(), Move::new(0, 0));
        e.set_max_memory(5 << 20);
        assert_eq!(e.choose_move(&board, t).unwrap(), Move::new(5, 0));
    }

    /// The settings follow START, so a brain that sets its defaults again when it starts a
    /// board still plays by them; a new board size gets them again.
    #[cfg(unix)]
    #[test]
    fn the_settings_follow_start() {
        // The brain answers with its rule plus 1 as the column and its limit in MiB plus 1
        // as the row; START forgets both.
        let script = r#"
rule=-1
mem=-1
while read -r line; do
  case "$line" in
    START*) rule=-1; mem=-1; echo OK ;;
    "INFO rule "*) rule=${line#INFO rule } ;;
    "INFO max_memory "*) mem=$(( ${line#INFO max_memory } / 1048576 )) ;;
    RESTART*) echo OK ;;
    DONE*|BEGIN*) echo "$((rule + 1)),$((mem + 1))" ;;
  esac
done
"#;
        let mut e = shell_brain(script);
        e.set_max_memory(5 << 20);
        let t = Duration::from_secs(3);
        for size in [15, 9] {
            let board = Board::new(size, Rule::ExactlyFive).unwrap();
            assert_eq!(e.choose_move(&board, t).unwrap(), Move::new(2, 6), "{size}");
        }
    }

    /// A brain slow to start answers ABOUT after the engine stopped waiting; that answer is
    /// not taken for the answer to START, whether in `key="value"` fields or, as old brains
    /// answer, in plain words.
    #[cfg(unix)]
    #[test]
    fn a_late_about_answer_is_skipped() {
        for about in [
            r#"name="sleepy", version="1""#,
            "Sleepy brain 1.0 by nobody",
        ] {
            let mut e = shell_brain(&format!(
                r#"
sleep 2
while read -r line; do
  case "$line" in
    ABOUT*) echo '{about}' ;;
    START*) echo OK ;;
    DONE*|BEGIN*) echo 3,4 ;;
  esac
done
"#
            ));
            assert_eq!(e.name(), "sh", "no name within the wait");
            let board = Board::new(15, Rule::Freestyle).unwrap();
            let m = e.choose_move(&board, Duration::from_secs(3)).unwrap();
            assert_eq!(m, Move::new(3, 4), "{about}");
        }
    }

    /// A brain that keeps its game between requests, as the protocol's template brains do,
    /// and refuses a stone on an occupied cell (and a `START` while it holds a game). A
    /// position one move past the game it holds is asked for with `TURN`; any other with a
    /// `BOARD` block after `RESTART`, or after a fresh run of the program when the brain
    /// answers `RESTART` with `UNKNOWN` or not at all.
    #[cfg(unix)]
    #[test]
    fn the_brain_follows_one_game_and_is_restarted_for_another() {
        // `$1`: how the brain takes RESTART. It answers `n,y`: n the stones it holds, y 9
        // after TURN and, after a block, the number of RESTARTs it took; then it holds its
        // own stone too.
        let script = r#"
cells=" "; restarts=0
answer() {
  if [ -n "$err" ]; then echo "$err"; return; fi
  n=0; for c in $cells; do n=$((n+1)); done
  echo "$n,$1"; cells="$cells$n,$1 "
}
add() {
  case "$cells" in *" $1 "*) err="ERROR stone on $1" ;; *) cells="$cells$1 " ;; esac
}
while read -r line; do
  case "$line" in
    ABOUT*) echo 'name="keeper"' ;;
    START*) if [ "$cells" = " " ]; then echo OK; else echo 'ERROR a game is open'; fi ;;
    RESTART*) case "$1" in
      ok) cells=" "; restarts=$((restarts+1)); echo OK ;;
      unknown) echo 'UNKNOWN RESTART' ;;
    esac ;;
    TURN*) err=; add "${line#TURN }"; answer 9 ;;
    BOARD*) err= ;;
    [0-9]*,*) add "${line%,*}" ;;
    DONE*) answer $restarts ;;
    BEGIN*) err=; answer $restarts ;;
  esac
done
"#;
        for restart in ["ok", "unknown", "silent"] {
            let mut e = shell_brain_with(script, &[restart.to_string()]);
            e.grace = Duration::from_millis(300);
            assert_eq!(e.name(), "keeper");
            let t = Duration::from_secs(3);
            let mut board = Board::new(15, Rule::Freestyle).unwrap();
            board.play(Move::new(7, 7)).unwrap();
            assert_eq!(e.choose_move(&board, t).unwrap(), Move::new(1, 0));
            board.play(Move::new(1, 0)).unwrap();
            board.play(Move::new(8, 8)).unwrap();
            // One move on: TURN, and the brain holds all three stones.
            assert_eq!(
                e.choose_move(&board, t).unwrap(),
                Move::new(3, 9),
                "{restart}"
            );
            // The brain that takes RESTART is the same process throughout; the others run
            // afresh, never having taken one.
            let took = |n: u8| if restart == "ok" { n } else { 0 };
            // Another position of two stones: a fresh board with both. (Not for the silent
            // brain: each unanswered RESTART costs its whole wait.)
            if restart != "silent" {
                let mut other = Board::new(15, Rule::Freestyle).unwrap();
                other.play(Move::new(7, 7)).unwrap();
                other.play(Move::new(2, 2)).unwrap();
                assert_eq!(
                    e.choose_move(&other, t).unwrap(),
                    Move::new(2, took(1)),
                    "{restart}"
                );
            }
            // A new game starts empty.
            let board = Board::new(15, Rule::Freestyle).unwrap();
            assert_eq!(
                e.choose_move(&board, t).unwrap(),
                Move::new(0, took(2)),
                "{restart}"
            );
        }
    }

    /// The engine tells the brain the rule, the board size and the time (again whenever
    /// they change) and each stone's owner: a brain that answers with what it was told.
    #[cfg(unix)]
    #[test]
    fn the_brain_is_told_the_rule_size_time_and_owners() {
        // Answers (own stones + 4 x rule, opponent stones + size - 15 + seconds a move - 3),
        // or garbage before it has a size and a time.
        let mut e = shell_brain(
            r#"
S=; R=0; T=
while read -r line; do
  case "$line" in
    ABOUT*) echo 'name="echo"' ;;
    START*) S=${line#START }; echo OK ;;
    "INFO rule"*) R=${line#INFO rule } ;;
    "INFO timeout_turn"*) T=${line#INFO timeout_turn } ;;
    BOARD*) own=0; opp=0 ;;
    *,*,1) own=$((own+1)) ;;
    *,*,2) opp=$((opp+1)) ;;
    DONE*) if [ -z "$S" ] || [ -z "$T" ]; then echo nothing; else echo "$((own + 4*R)),$((opp + S - 15 + T/1000 - 3))"; fi ;;
  esac
done
"#,
        );
        let t = Duration::from_secs(3);
        // White to move: one own stone, two of the opponent's.
        let mut b = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in [(7, 7), (8, 8), (9, 9)] {
            b.play(Move::new(x, y)).unwrap();
        }
        assert_eq!(e.choose_move(&b, t).unwrap(), Move::new(1, 2));
        // Black to move on a larger board under exactly five, with a second more a move.
        let mut b = Board::new(19, Rule::ExactlyFive).unwrap();
        for (x, y) in [(7, 7), (8, 8)] {
            b.play(Move::new(x, y)).unwrap();
        }
        assert_eq!(
            e.choose_move(&b, t + Duration::from_secs(1)).unwrap(),
            Move::new(5, 6)
        );
    }

    /// Dropping the engine sends `END` and gives the brain time to exit by itself.
    #[cfg(unix)]
    #[test]
    fn a_dropped_engine_ends_its_brain() {
        let script = r#"
while read -r line; do
  case "$line" in
    ABOUT*) echo 'name="ender"' ;;
    END*) : > "$1"; exit 0 ;;
  esac
done
"#;
        let (e, mark) = brain_with_mark(script, "ended");
        assert_eq!(e.name(), "ender");
        drop(e);
        assert!(mark.0.exists(), "the brain saw END before it was stopped");
    }

    /// A brain that writes without end (`yes`, faster than its lines are read) times out on
    /// time, with its lines' queue bounded, instead of being read forever.
    #[cfg(unix)]
    #[test]
    fn a_brain_that_never_stops_writing_times_out() {
        let Ok(mut e) = ExternalEngine::spawn("yes", &["MESSAGE x".to_string()]) else {
            return; // no `yes` here
        };
        e.grace = Duration::from_millis(200);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let board = Board::new(15, Rule::Freestyle).unwrap();
            let _ = tx.send(e.choose_move(&board, Duration::from_millis(20)));
        });
        // START waits a few seconds at most; reading lines past every deadline never ends.
        let answer = rx.recv_timeout(Duration::from_secs(30));
        let err = answer
            .expect("still reading the brain's lines")
            .unwrap_err();
        assert!(err.to_string().contains("timed out"), "{err}");
    }

    /// A brain that exits, answers garbage or plays an illegal move makes the request fail,
    /// saying which.
    #[cfg(unix)]
    #[test]
    fn a_brain_that_fails_is_reported() {
        let mut board = Board::new(15, Rule::Freestyle).unwrap();
        board.play(Move::new(0, 0)).unwrap();
        let t = Duration::from_secs(3);
        for (done, expected) in [
            ("exit 0", "exited"),
            ("echo 'hello there'", "answered \"hello there\""),
            ("echo 0,0", "played the illegal move 0,0"),
            ("echo 15,0", "played the illegal move 15,0"),
        ] {
            let script = format!(
                r#"
while read -r line; do
  case "$line" in
    ABOUT*) echo 'name="failing"' ;;
    START*) echo OK ;;
    DONE*) {done} ;;
  esac
done
"#
            );
            let mut e = shell_brain(&script);
            let err = e.choose_move(&board, t).unwrap_err();
            assert!(err.to_string().contains(expected), "{done}: {err}");
        }
    }

    /// A brain that fails at once (an unknown option, say) usually says why on its standard
    /// error: the error quotes its last line, and a brain that says nothing gets none.
    #[cfg(unix)]
    #[test]
    fn a_brain_that_exits_is_quoted_from_its_standard_error() {
        let board = Board::new(15, Rule::Freestyle).unwrap();
        let t = Duration::from_secs(3);
        let mut e = shell_brain("echo 'starting' >&2; echo 'unknown engine \"foo\"' >&2; exit 2");
        let err = e.choose_move(&board, t).unwrap_err().to_string();
        assert!(
            err.ends_with("(its last words on standard error: unknown engine \"foo\")"),
            "{err}"
        );
        let mut quiet = shell_brain("exit 2");
        let err = quiet.choose_move(&board, t).unwrap_err().to_string();
        assert!(!err.contains("last words"), "{err}");
    }

    #[test]
    fn a_rule_the_stones_cannot_follow_waits_for_the_next_game() {
        let mut b = Brain::new(FirstEmpty);
        assert!(say(&mut b, "INFO rule 1").is_empty());
        assert_eq!(say(&mut b, "START 15"), ["OK"]);
        // Black's six in a row (4,0 played last) is no win under exactly five; White went on.
        for l in [
            "BOARD", "0,0,1", "0,5,2", "1,0,1", "1,5,2", "2,0,1", "2,5,2", "3,0,1", "3,5,2",
            "5,0,1", "6,5,2", "4,0,1", "8,8,2",
        ] {
            assert!(say(&mut b, l).is_empty(), "{l}");
        }
        assert_eq!(say(&mut b, "DONE"), ["6,0"]);
        // The same stones in another order, in which Black's exact five 0..=4 comes before
        // the stone that makes it six: the position, not the order, decides.
        for l in [
            "BOARD", "0,0,1", "0,5,2", "1,0,1", "1,5,2", "2,0,1", "2,5,2", "3,0,1", "3,5,2",
            "4,0,1", "6,5,2", "5,0,1", "8,8,2",
        ] {
            assert!(say(&mut b, l).is_empty(), "{l}");
        }
        assert_eq!(say(&mut b, "DONE"), ["6,0"]);
        // A five in the final position ends the game, whoever made it.
        for l in [
            "BOARD", "0,0,1", "0,5,2", "1,0,1", "1,5,2", "2,0,1", "2,5,2", "3,0,1", "3,5,2",
            "4,0,1", "6,5,2",
        ] {
            assert!(say(&mut b, l).is_empty(), "{l}");
        }
        assert_eq!(say(&mut b, "DONE"), ["ERROR BOARD: the game is over"]);
        // Under freestyle the six would have ended the game before White's last move: the
        // game in progress keeps its rule, and the next one gets the new rule.
        assert!(say(&mut b, "INFO rule 0").is_empty());
        assert_eq!(b.rule(), Rule::Freestyle);
        let board = b.board().unwrap();
        assert_eq!(
            (board.rule(), board.history().len()),
            (Rule::ExactlyFive, 13)
        );
        assert_eq!(say(&mut b, "RESTART"), ["OK"]);
        assert_eq!(b.board().map(Board::rule), Some(Rule::Freestyle));
        // Without such stones, the game in progress switches.
        assert_eq!(say(&mut b, "TURN 7,7"), ["0,0"]);
        assert!(say(&mut b, "INFO rule 1").is_empty());
        assert_eq!(b.board().map(Board::rule), Some(Rule::ExactlyFive));
        assert_eq!(b.board().map(|b| b.history().len()), Some(2));
        // A game won by a six under freestyle stays won when the rule becomes exactly five.
        assert!(say(&mut b, "INFO rule 0").is_empty());
        assert_eq!(say(&mut b, "RESTART"), ["OK"]);
        for l in [
            "BOARD", "0,0,1", "0,5,2", "1,0,1", "1,5,2", "2,0,1", "2,5,2", "3,0,1", "3,5,2",
            "5,0,1", "6,5,2",
        ] {
            assert!(say(&mut b, l).is_empty(), "{l}");
        }
        assert_eq!(say(&mut b, "DONE"), ["4,0"]);
        assert!(b.board().is_some_and(Board::is_over));
        assert!(say(&mut b, "INFO rule 1").is_empty());
        assert_eq!(b.rule(), Rule::ExactlyFive);
        assert_eq!(b.board().map(Board::rule), Some(Rule::Freestyle));
        assert!(b.board().is_some_and(Board::is_over));
        assert!(say(&mut b, "TURN 9,9")[0].starts_with("ERROR"));
    }

    #[test]
    fn memory_hook_rebuilds_the_engine() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        let mut b = Brain::new(FirstEmpty).with_memory_hook(Box::new(move |bytes| {
            if let Ok(mut v) = log.lock() {
                v.push(bytes);
            }
            FirstEmpty
        }));
        assert!(say(&mut b, "INFO max_memory 1000").is_empty());
        assert_eq!(*seen.lock().unwrap(), [1000]);
        // The same limit again keeps the engine; another one rebuilds it, and so does none.
        assert!(say(&mut b, "INFO max_memory 1000").is_empty());
        assert!(say(&mut b, "INFO max_memory 2000").is_empty());
        assert!(say(&mut b, "INFO max_memory 0").is_empty());
        assert_eq!(*seen.lock().unwrap(), [1000, 2000, 0]);
        assert_eq!(b.max_memory(), 0);
    }

    /// After a `BOARD` block the order of each colour's stones is the brain's guess, so any
    /// stone of the side that moved last may be taken back; the other side's, or an empty
    /// cell, may not.
    #[test]
    fn takeback_after_a_board_block_takes_any_stone_of_the_last_mover() {
        let mut b = Brain::new(FirstEmpty);
        assert_eq!(say(&mut b, "START 15"), ["OK"]);
        // The opponent (2) has 7,7 and 8,8, we (1) have 7,8: the opponent moved last.
        for line in ["BOARD", "7,7,2", "8,8,2", "7,8,1"] {
            assert!(say(&mut b, line).is_empty());
        }
        assert_eq!(say(&mut b, "DONE"), ["0,0"]);
        // Our reply 0,0 is known to be the last move, so our stone from the block is not.
        assert!(
            say(&mut b, "TAKEBACK 7,8")[0].starts_with("ERROR"),
            "0,0 came after it"
        );
        assert_eq!(say(&mut b, "TAKEBACK 0,0"), ["OK"]);
        assert!(
            say(&mut b, "TAKEBACK 7,8")[0].starts_with("ERROR"),
            "ours, not the opponent's"
        );
        assert!(say(&mut b, "TAKEBACK 3,3")[0].starts_with("ERROR"), "empty");
        // The opponent's first stone in the block may have been its last move.
        assert_eq!(say(&mut b, "TAKEBACK 7,7"), ["OK"]);
        let board = b.board().unwrap();
        assert_eq!(board.history(), [Move::new(8, 8), Move::new(7, 8)]);
        assert_eq!(board.get(Move::new(7, 7)), None);
        // And it is the opponent's to play again; after that move, only it can be taken back.
        assert_eq!(say(&mut b, "TURN 7,7"), ["0,0"]);
        assert_eq!(b.board().unwrap().history().len(), 4);
        assert!(say(&mut b, "TAKEBACK 7,8")[0].starts_with("ERROR"));
        assert_eq!(say(&mut b, "TAKEBACK 0,0"), ["OK"]);
        assert!(
            say(&mut b, "TAKEBACK 8,8")[0].starts_with("ERROR"),
            "7,7 was played after it"
        );
        assert_eq!(say(&mut b, "TAKEBACK 7,7"), ["OK"]);
        // Back in the block's stones, with ours (7,8) the last: then the opponent's 8,8.
        assert!(
            say(&mut b, "TAKEBACK 8,8")[0].starts_with("ERROR"),
            "ours came last"
        );
        assert_eq!(say(&mut b, "TAKEBACK 7,8"), ["OK"]);
        assert_eq!(say(&mut b, "TAKEBACK 8,8"), ["OK"]);
        assert!(b.board().unwrap().history().is_empty());
        assert!(
            say(&mut b, "TAKEBACK 8,8")[0].starts_with("ERROR"),
            "nothing left"
        );

        // Under exactly five, the opponent's six is no win, but taking back one of its ends
        // would leave a five: no real last move does that.
        let mut b = Brain::new(FirstEmpty);
        assert!(say(&mut b, "INFO rule 1").is_empty());
        assert_eq!(say(&mut b, "START 15"), ["OK"]);
        assert!(say(&mut b, "BOARD").is_empty());
        for x in 3..9 {
            assert!(say(&mut b, &format!("{x},7,2")).is_empty());
        }
        for x in [0, 2, 4, 6, 8] {
            assert!(say(&mut b, &format!("{x},0,1")).is_empty());
        }
        assert_eq!(say(&mut b, "DONE"), ["1,0"]);
        assert_eq!(say(&mut b, "TAKEBACK 1,0"), ["OK"]);
        for end in ["3,7", "8,7"] {
            let answer = say(&mut b, &format!("TAKEBACK {end}"));
            assert!(
                answer[0].ends_with("would leave a finished game"),
                "{answer:?}"
            );
        }
        assert_eq!(say(&mut b, "TAKEBACK 5,7"), ["OK"]);
        assert_eq!(b.board().map(|b| b.history().len()), Some(10));
        assert!(!b.board().unwrap().is_over());
    }

    /// One line of the generated sessions: every command, with arguments in and out of
    /// range, or garbage.
    const ANY_LINE: &str = "(START [0-9]{1,2}|RECTSTART [0-9]{1,2},[0-9]{1,2}|BEGIN|BOARD|DONE|TURN [0-9],[0-9]|[0-9],[0-9],[0-4]|TAKEBACK [0-9],[0-9]|RESTART|ABOUT|END|INFO (rule|timeout_turn|timeout_match|time_left|max_memory) -?[0-9]{1,4}|\\PC{0,12})";

    proptest::proptest! {
        /// Any text, cut into lines any way and read in any chunks: the chunks give the lines
        /// the whole text gives, nothing panics, and every answer is one the protocol allows.
        #[test]
        fn brain_never_panics(
            text in proptest::string::string_regex(&format!("{ANY_LINE}([\r\n]{{1,2}}{ANY_LINE}){{0,30}}")).unwrap(),
            cuts in proptest::collection::vec(0usize..600, 0..8),
        ) {
            let bytes = text.as_bytes();
            let mut whole = Vec::new();
            let mut s = LineSplitter::new();
            s.push(bytes, &mut whole);
            s.finish(&mut whole);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort_unstable();
            cuts.push(bytes.len());
            let (mut lines, mut from) = (Vec::new(), 0);
            for c in cuts {
                s.push(&bytes[from..c], &mut lines);
                from = c;
            }
            s.finish(&mut lines);
            proptest::prop_assert_eq!(&lines, &whole);
            let mut b = Brain::new(FirstEmpty);
            for line in &lines {
                let out = b.handle_line(line);
                for reply in &out.lines {
                    let ok = matches!(first_word(std::slice::from_ref(reply)), "OK" | "ERROR" | "UNKNOWN" | "DEBUG" | "MESSAGE")
                        || reply.starts_with("name=")
                        || reply.split_once(',').is_some_and(|(x, y)| {
                            x.parse::<u8>().is_ok() && y.parse::<u8>().is_ok()
                        });
                    proptest::prop_assert!(ok, "{line:?} -> {reply:?}");
                }
            }
        }
    }

    /// Comments are never answers; a late `ABOUT` answer is skipped once, whether in fields
    /// or in plain words, and an answer that comes first is still read.
    #[test]
    fn replies_are_told_from_comments_and_late_abouts() {
        let mut r = ReplyReader::new();
        assert_eq!(r.answer("  7,8 \r").as_deref(), Some("7,8"));
        for comment in ["", "   ", "MESSAGE hi", "debug x"] {
            assert_eq!(r.answer(comment), None, "{comment:?}");
        }
        assert_eq!(r.answer("Old Brain 1.0").as_deref(), Some("Old Brain 1.0"));
        for about in [r#"name="b", version="1""#, "Old Brain 1.0"] {
            r.expect_late_about();
            assert_eq!(r.answer("MESSAGE still thinking"), None);
            assert!(r.about_pending());
            assert_eq!(r.answer("ok").as_deref(), Some("ok"));
            assert_eq!(r.answer("3, 4").as_deref(), Some("3, 4"));
            assert!(r.about_pending(), "answers come before it");
            assert_eq!(r.answer(about), None);
            assert!(!r.about_pending());
            assert_eq!(r.answer(about).as_deref(), Some(about));
        }
        assert_eq!(parse_reply_move(" 3 , 4"), Some(Move::new(3, 4)));
        assert_eq!(parse_reply_move("3,256"), None);
        assert_eq!(
            about_name(r#"version="2", name="x y""#).as_deref(),
            Some("x y")
        );
    }

    #[test]
    fn about_fields() {
        let line = r#"name="pbrain-x", version="1.0", author="A""#;
        assert_eq!(about_field(line, "name").as_deref(), Some("pbrain-x"));
        assert_eq!(about_field(line, "country"), None);
        let tricky = r#"nickname="a", author="x name="y", name="b""#;
        assert_eq!(about_field(tricky, "name").as_deref(), Some("b"));
        assert_eq!(about_field(tricky, "author").as_deref(), Some("x name="));
        assert_eq!(about_field(r#"name="unclosed"#, "name"), None);
        assert_eq!(about_field("name=\"\"", "name").as_deref(), Some(""));
    }

    /// Fields may follow one another after a bare comma, without a space: a field's name is
    /// what follows the last comma or white space before its `="`.
    #[test]
    fn about_fields_after_a_bare_comma() {
        let line = r#"name="a",author="b",version="1.0""#;
        assert_eq!(about_field(line, "name").as_deref(), Some("a"));
        assert_eq!(about_field(line, "author").as_deref(), Some("b"));
        assert_eq!(about_field(line, "version").as_deref(), Some("1.0"));
    }

    /// A `BOARD` stone just past an edge (a coordinate equal to the size) is off the board,
    /// in either coordinate, and named so before the stones are counted.
    #[test]
    fn a_board_stone_just_past_either_edge_is_off_the_board() {
        let mut b = Brain::new(FirstEmpty);
        assert_eq!(say(&mut b, "START 15"), ["OK"]);
        for (stone, error) in [
            ("15,3,1", "stone 15,3 is off the 15x15 board"),
            ("3,15,1", "stone 3,15 is off the 15x15 board"),
        ] {
            for l in ["BOARD", stone] {
                assert!(say(&mut b, l).is_empty(), "{l}");
            }
            assert_eq!(say(&mut b, "DONE"), [format!("ERROR BOARD: {error}")]);
        }
    }

    /// Managers repeat their settings: the same match limit again keeps the time left; only
    /// another limit forgets it.
    #[test]
    fn a_repeated_match_limit_keeps_the_time_left() {
        let mut b = Brain::new(FirstEmpty);
        say(&mut b, "INFO timeout_match 100000");
        say(&mut b, "START 15");
        say(&mut b, "INFO time_left 6000");
        say(&mut b, "INFO timeout_match 100000");
        assert_eq!(b.time_control().time_left, Some(6000));
        say(&mut b, "INFO timeout_match 50000");
        assert_eq!(b.time_control().time_left, None);
    }

    /// A `TURN` after the game ended is refused because the game is over, not because it
    /// would be the brain's turn.
    #[test]
    fn a_turn_after_the_end_says_the_game_is_over() {
        let mut b = Brain::new(FirstEmpty);
        say(&mut b, "START 15");
        for x in 0..4 {
            assert_eq!(say(&mut b, &format!("TURN {x},5")), [format!("{x},0")]);
        }
        assert_eq!(say(&mut b, "TURN 4,5"), ["ERROR the game is over"]);
        assert_eq!(
            say(&mut b, "TURN 5,5"),
            ["ERROR TURN 5,5: the game is over"]
        );
    }
}
