//! `gameai gomoku`: play against the engine in the terminal, or run engine matches.
//!
//! A match plays N games between two engines, each a built-in one (`alphabeta`, the main
//! engine; `bestfirst`, the classic arena engine) or an external Gomocup brain run as a
//! program (`cmd:PROGRAM ARGS...`). Games start from openings (a built-in set or a file) and
//! come in pairs with colours swapped, so an opening's advantage cancels out.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use gomoku::protocol::ExternalEngine;
use gomoku::{
    AlphaBetaEngine, BestFirstEngine, Board, Budget, Engine, GomokuError, Move, Rule, Stone,
};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use search_core::best_first::{BestFirstConfig, Policy};

use crate::showcase::Row;
use crate::{CliError, plural};

/// Options of `gameai gomoku`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Play against the engine: type moves as `h7` (column letter, row number as shown) or
    /// `7,7` (zero-based x,y); `undo` takes back your last move, `quit` ends.
    Play(PlayArgs),
    /// Play engines against each other from openings, colours swapped, and summarise
    /// (Ctrl-C summarises the games played so far; a forfeit makes the exit status 1).
    Match(MatchArgs),
}

#[derive(Debug, clap::Args)]
struct PlayArgs {
    /// The engine: alphabeta, bestfirst or cmd:PROGRAM ARGS... (a Gomocup brain; the words
    /// are split at whitespace, with no quoting, so the program's path cannot hold a space).
    #[arg(long, default_value = "alphabeta", value_parser = engine_name)]
    engine: String,
    /// Your colour: black (moves first) or white.
    #[arg(long, default_value = "black", visible_alias = "color", value_parser = colour)]
    colour: Stone,
    /// Engine thinking time per move, in milliseconds (at least 1).
    #[arg(long, default_value_t = 1000, value_parser = crate::values::at_least_one::<u64>)]
    time_ms: u64,
    /// Search nodes per move instead of time: the engine then plays the same moves on any
    /// machine (built-in engines only).
    #[arg(long, conflicts_with = "time_ms", value_parser = crate::values::at_least_one::<u64>)]
    nodes: Option<u64>,
    #[command(flatten)]
    game: GameArgs,
}

#[derive(Debug, clap::Args)]
struct GameArgs {
    /// Board side (5..=32).
    #[arg(long, default_value_t = 15, value_parser = board_side)]
    size: usize,
    /// freestyle (five or more wins) or exactly-five (`exact` for short).
    #[arg(long, default_value = "freestyle", value_parser = crate::values::name_of::<Rule>)]
    rule: String,
    /// Memory for each built-in engine's tree or table, in MiB (default 64); an external
    /// brain is told it as the limit of its whole process (`INFO max_memory`), so it has
    /// less for its table (default 350, Gomocup's limit; pbrain-gameai keeps 72 MiB for the
    /// rest). At least 1.
    #[arg(long, value_parser = crate::values::at_least_one::<usize>)]
    memory_mb: Option<usize>,
}

#[derive(Debug, clap::Args)]
struct MatchArgs {
    /// First engine: alphabeta, bestfirst or cmd:PROGRAM ARGS... (a Gomocup brain; the
    /// words are split at whitespace, with no quoting, so the program's path cannot hold a
    /// space).
    #[arg(value_parser = engine_name)]
    engine_a: String,
    /// Second engine, likewise.
    #[arg(value_parser = engine_name)]
    engine_b: String,
    /// Number of games (game 2k and 2k+1 share an opening, colours swapped).
    #[arg(long, default_value_t = 16, value_parser = crate::values::at_least_one::<usize>)]
    games: usize,
    /// Thinking time per move, in milliseconds, for both engines (at least 1).
    #[arg(long, default_value_t = 200, value_parser = crate::values::at_least_one::<u64>)]
    time_ms: u64,
    /// Search nodes per move instead of time: every game then replays exactly, on any
    /// machine and at any --threads (built-in engines only). One number for both engines, or
    /// A's and B's separated by a comma: a node is not the same work for both.
    #[arg(long, conflicts_with = "time_ms", allow_hyphen_values = true, value_parser = node_pair)]
    nodes: Option<[u64; 2]>,
    /// Openings file: one opening a line, moves as `x,y` or `h7` separated by spaces, relative
    /// to nothing (absolute cells); `#` starts a comment; `-` reads standard input. Default:
    /// the built-in set.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Games played at once. Engines think on the clock, so more threads than cores makes
    /// them weaker (not with --nodes); the default plays one game at a time. More than four
    /// a core are cut to that.
    #[arg(long, default_value_t = 1, value_parser = crate::values::at_least_one::<usize>)]
    threads: usize,
    /// End with one JSON line of results: engine_a, engine_b, games, time_ms (null under
    /// --nodes) and nodes ([a, b], null without --nodes), size, rule, a_wins, draws,
    /// b_wins, a_points (a win 1, a draw 1/2), a_share (a_points per game), a_mean_ms,
    /// b_mean_ms, a_max_ms, b_max_ms (time a move; 0 for an engine that made no move),
    /// a_forfeits, b_forfeits and games_asked (more than games when Ctrl-C stopped the
    /// match).
    #[arg(long)]
    json: bool,
    /// Print every finished game's board.
    #[arg(long)]
    boards: bool,
    #[command(flatten)]
    game: GameArgs,
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<(), CliError> {
    match &args.command {
        Command::Play(a) => {
            let stdin = std::io::stdin();
            play(a, &mut stdin.lock(), out)
        }
        Command::Match(a) => run_match(a, out),
    }
}

/// The budget of each move: `nodes` when given, else `time_ms`. A node budget is refused for
/// an external brain, which can only be timed.
fn budget(nodes: Option<u64>, time_ms: u64, specs: &[&str]) -> Result<Budget, CliError> {
    let Some(nodes) = nodes else {
        return Ok(Budget::Time(Duration::from_millis(time_ms)));
    };
    match specs.iter().find(|s| s.starts_with("cmd:")) {
        Some(spec) => Err(CliError(format!(
            "--nodes needs built-in engines: {spec} is an external brain, which keeps to a \
             time budget only (use --time-ms)"
        ))),
        None => Ok(Budget::Nodes(nodes)),
    }
}

/// Reads `--nodes` of a match: `N` for both engines, or `A,B`.
fn node_pair(s: &str) -> Result<[u64; 2], String> {
    let number = |t: &str| match t.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "expected a number of nodes (at least 1), or two separated by a comma (A's,B's): \
             {s:?}"
        )),
    };
    match s.split_once(',') {
        None => number(s).map(|n| [n, n]),
        Some((a, b)) => Ok([number(a)?, number(b)?]),
    }
}

/// The budgets of engines A and B in a match.
fn match_budgets(args: &MatchArgs) -> Result<[Budget; 2], CliError> {
    let specs = [args.engine_a.as_str(), args.engine_b.as_str()];
    Ok([
        budget(args.nodes.map(|n| n[0]), args.time_ms, &specs)?,
        budget(args.nodes.map(|n| n[1]), args.time_ms, &specs)?,
    ])
}

/// How a budget reads in reports: "200 ms" or "50,000 nodes".
fn budget_name(budget: Budget) -> String {
    match budget {
        Budget::Time(t) => format!("{} ms", t.as_millis()),
        Budget::Nodes(n) => plural(thousands(n), "node"),
    }
}

fn parse_rule(s: &str) -> Result<Rule, CliError> {
    s.parse()
        .map_err(|e: gomoku::GomokuError| CliError(e.to_string()))
}

/// Reads `--colour`.
fn colour(s: &str) -> Result<Stone, String> {
    s.parse().map_err(|e: gomoku::GomokuError| e.to_string())
}

/// Checks `--size` while the arguments are parsed.
fn board_side(s: &str) -> Result<usize, String> {
    crate::values::count_in(s, gomoku::MIN_SIZE, gomoku::MAX_SIZE, "cells a side")
}

/// Checks an engine's name while the arguments are parsed; whether a `cmd:` brain starts
/// is known only once it is run.
fn engine_name(spec: &str) -> Result<String, String> {
    // The built-in names in any case, as the other names of the command line.
    let name = spec.trim().to_ascii_lowercase();
    match spec.strip_prefix("cmd:") {
        _ if name == "alphabeta" || name == "bestfirst" => Ok(name),
        Some(command) if command.split_whitespace().next().is_some() => Ok(spec.to_string()),
        Some(_) => Err("cmd: needs a program".to_string()),
        None => Err("unknown engine (alphabeta, bestfirst or cmd:PROGRAM ARGS...)".to_string()),
    }
}

/// An engine chosen on the command line.
type AnyEngine = Box<dyn Engine>;

/// Memory of a built-in engine's table or tree when `--memory-mb` is not given, in MiB.
const BUILT_IN_MEMORY_MB: usize = 64;

/// The memory limit an external brain is told when `--memory-mb` is not given, in MiB: the
/// whole process's, as in Gomocup (a brain keeps part of it for more than its table, so
/// the built-in engines' figure would starve it).
const EXTERNAL_MEMORY_MB: usize = 350;

/// Builds the engine described by `spec` (see [`MatchArgs::engine_a`]).
fn make_engine(spec: &str, memory_mb: Option<usize>) -> Result<AnyEngine, CliError> {
    let external = spec.starts_with("cmd:");
    let memory_mb = memory_mb.unwrap_or(if external {
        EXTERNAL_MEMORY_MB
    } else {
        BUILT_IN_MEMORY_MB
    });
    let bytes = memory_mb
        .checked_mul(1 << 20)
        .ok_or_else(|| CliError(format!("--memory-mb {memory_mb} is too large")))?;
    let too_large = |_| crate::allocation_error(bytes, &format!("the {spec} engine"));
    if spec == "alphabeta" || spec == "bestfirst" {
        // The size asked for, before the engine cuts it to what its tables can index.
        Vec::<u8>::new()
            .try_reserve_exact(bytes)
            .map_err(too_large)?;
    }
    match spec {
        "alphabeta" => Ok(Box::new(
            AlphaBetaEngine::try_with_memo_bytes(bytes).map_err(too_large)?,
        )),
        "bestfirst" => Ok(Box::new(
            BestFirstEngine::try_with_config(BestFirstConfig {
                memory_bytes: bytes,
                policy: Policy::ScoreMinusVisits { visit_weight: 8 },
            })
            .map_err(too_large)?,
        )),
        _ => {
            let Some(command) = spec.strip_prefix("cmd:") else {
                return Err(CliError(format!(
                    "unknown engine {spec:?} (alphabeta, bestfirst or cmd:PROGRAM ARGS...)"
                )));
            };
            let mut words = command.split_whitespace().map(str::to_string);
            let program = words
                .next()
                .ok_or_else(|| CliError("cmd: needs a program".into()))?;
            let rest: Vec<String> = words.collect();
            let mut brain = ExternalEngine::spawn(&program, &rest)?;
            brain.set_max_memory(bytes as u64);
            Ok(Box::new(brain))
        }
    }
}

fn move_name(m: Move) -> String {
    format!("{} ({m})", m.name())
}

fn colour_name(s: Stone) -> &'static str {
    match s {
        Stone::Black => "Black (X)",
        Stone::White => "White (O)",
    }
}

fn play(args: &PlayArgs, input: &mut impl BufRead, out: &mut impl Write) -> Result<(), CliError> {
    let rule = parse_rule(&args.game.rule)?;
    let mut board = Board::new(args.game.size, rule)?;
    let human = args.colour;
    let budget = budget(args.nodes, args.time_ms, &[&args.engine])?;
    let mut engine = make_engine(&args.engine, args.game.memory_mb)?;
    // The centre cell as an example of both ways to name a cell (`h7 or 7,7` on 15x15).
    let c = u8::try_from(board.size() / 2).unwrap_or(0);
    let centre = Move::new(c, c);
    let example = format!("{} or {centre}", centre.name());
    writeln!(
        out,
        "You play {} against {}. Moves: {example}; undo; quit.",
        colour_name(human),
        engine.name()
    )?;
    loop {
        if let Some(w) = board.winner() {
            writeln!(out, "{board}")?;
            let who = if w == human {
                "You win"
            } else {
                "The engine wins"
            };
            writeln!(out, "{who} ({}).", colour_name(w))?;
            return Ok(());
        }
        if board.is_full() {
            writeln!(out, "{board}")?;
            writeln!(out, "Draw: the board is full.")?;
            return Ok(());
        }
        if board.side_to_move() != human {
            let t = Instant::now();
            let m = engine.choose_move_within(&board, budget)?;
            board.play(m)?;
            writeln!(
                out,
                "{} plays {} ({} ms)",
                engine.name(),
                move_name(m),
                t.elapsed().as_millis()
            )?;
            continue;
        }
        writeln!(out, "{board}")?;
        write!(out, "Your move ({}): ", colour_name(human))?;
        out.flush()?;
        let mut bytes = Vec::new();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            writeln!(out)?;
            return Ok(());
        }
        // A line that is not UTF-8 is shown with replacement characters and refused as a
        // move, like any other unreadable input, rather than ending the game.
        let line = String::from_utf8_lossy(&bytes);
        let cmd = line.trim();
        match cmd.to_ascii_lowercase().as_str() {
            "" => continue,
            "quit" | "exit" | "q" => return Ok(()),
            "undo" | "u" => {
                // At the prompt the last move is the engine's reply to your last move.
                if board.history().len() >= 2 {
                    board.undo();
                    board.undo();
                    engine.new_game();
                } else {
                    writeln!(out, "Nothing to undo.")?;
                }
                continue;
            }
            "help" | "?" => {
                writeln!(
                    out,
                    "Type a cell as column letter and row number ({}) or as x,y ({centre}), \
                     both as the board shows them; undo; quit.",
                    centre.name()
                )?;
                continue;
            }
            _ => {}
        }
        match Move::parse(cmd, board.size()) {
            Err(GomokuError::Parse(_)) => writeln!(
                out,
                "Cannot read {cmd:?}: type a cell like {example}, undo or quit."
            )?,
            Err(e) => writeln!(out, "{cmd}: {e}")?,
            Ok(m) => match board.play(m) {
                Ok(()) => {}
                Err(e) => writeln!(out, "{}: {e}", move_name(m))?,
            },
        }
    }
}

/// The built-in openings, as offsets from the centre (Black, White, Black, ...). Short and
/// not decisive for either side; every opening is played twice, colours swapped.
const OPENINGS: [&[(i8, i8)]; 10] = [
    &[(0, 0), (0, -1), (0, -2)],
    &[(0, 0), (0, -1), (2, -2)],
    &[(0, 0), (0, -1), (-2, 0)],
    &[(0, 0), (0, -1), (-1, 1)],
    &[(0, 0), (1, -1), (2, -2)],
    &[(0, 0), (1, -1), (2, 0)],
    &[(0, 0), (1, -1), (0, 2)],
    &[(0, 0), (1, -1), (-1, 2)],
    &[(0, 0), (1, 0), (-1, -1), (2, 1)],
    &[(0, 0), (2, 1), (-1, 1), (1, -2)],
];

/// The built-in openings placed on a board of `size`.
fn builtin_openings(size: usize) -> Vec<Vec<Move>> {
    let c = (size / 2) as i32;
    OPENINGS
        .iter()
        .filter_map(|o| {
            o.iter()
                .map(|&(dx, dy)| {
                    let (x, y) = (c + i32::from(dx), c + i32::from(dy));
                    (x >= 0 && y >= 0 && (x as usize) < size && (y as usize) < size)
                        .then(|| Move::new(x as u8, y as u8))
                })
                .collect::<Option<Vec<Move>>>()
        })
        .collect()
}

/// Reads an openings file: one opening a line, moves separated by spaces.
fn read_openings(text: &str, size: usize, rule: Rule) -> Result<Vec<Vec<Move>>, CliError> {
    let mut openings = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut board = Board::new(size, rule)?;
        let mut moves = Vec::new();
        // Why the game is over, and the move that ended it.
        let why = |board: &Board, last: &str| match board.winner() {
            Some(s) => format!("{} has five after {last}", colour_name(s)),
            None => format!("the board is full after {last}"),
        };
        let mut last = "";
        for word in line.split_whitespace() {
            let m = Move::parse(word, size)
                .map_err(|e| CliError(format!("openings line {}: {e}", n + 1)))?;
            if board.is_over() {
                return Err(CliError(format!(
                    "openings line {}: {word}: the game is over ({}): an opening must leave \
                     something to play",
                    n + 1,
                    why(&board, last)
                )));
            }
            board
                .play(m)
                .map_err(|e| CliError(format!("openings line {}: {word}: {e}", n + 1)))?;
            moves.push(m);
            last = word;
        }
        if board.is_over() {
            return Err(CliError(format!(
                "openings line {}: the opening ends the game ({}): nothing is left to play",
                n + 1,
                why(&board, last)
            )));
        }
        openings.push(moves);
    }
    if openings.is_empty() {
        return Err(CliError("the openings file has no opening".into()));
    }
    Ok(openings)
}

/// How one game ended, for engine A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Result3 {
    Win,
    Draw,
    Loss,
}

/// One finished game.
#[derive(Debug, Clone)]
struct GameRecord {
    opening: usize,
    a_black: bool,
    result: Result3,
    /// Why it ended, in words.
    reason: String,
    /// The engine (0 for A, 1 for B) that lost by a failure or an illegal move.
    forfeit: Option<usize>,
    moves: usize,
    board: String,
    /// Per engine (A, B): moves made, total thinking time, longest think.
    think: [(u32, Duration, Duration); 2],
}

fn play_game(
    args: &MatchArgs,
    rule: Rule,
    opening: &[Move],
    opening_index: usize,
    a_black: bool,
    engines: &mut [AnyEngine; 2],
) -> Result<GameRecord, CliError> {
    let mut board = Board::new(args.game.size, rule)?;
    for &m in opening {
        board.play(m)?;
    }
    for e in engines.iter_mut() {
        e.new_game();
    }
    let budgets = match_budgets(args)?;
    let mut think = [(0u32, Duration::ZERO, Duration::ZERO); 2];
    let engine_of = |s: Stone| usize::from((s == Stone::Black) != a_black);
    let (result, reason, forfeit) = loop {
        if let Some(w) = board.winner() {
            let a_won = engine_of(w) == 0;
            break (
                if a_won { Result3::Win } else { Result3::Loss },
                format!("{} made five", engines[engine_of(w)].name()),
                None,
            );
        }
        if board.is_full() {
            break (Result3::Draw, "board full".to_string(), None);
        }
        let who = engine_of(board.side_to_move());
        let t = Instant::now();
        let chosen = engines[who].choose_move_within(&board, budgets[who]);
        let spent = t.elapsed();
        let failure = match chosen {
            Ok(m) => board
                .play(m)
                .err()
                .map(|e| format!("illegal move {m}: {e}")),
            Err(e) => Some(e.to_string()),
        };
        // Only moves made count: a forfeit is reported as such, not as a move.
        if failure.is_none() {
            think[who].0 += 1;
            think[who].1 += spent;
            think[who].2 = think[who].2.max(spent);
        }
        if let Some(why) = failure {
            break (
                if who == 0 {
                    Result3::Loss
                } else {
                    Result3::Win
                },
                format!(
                    "{} ({}) forfeits: {why}",
                    ["A", "B"][who],
                    engines[who].name()
                ),
                Some(who),
            );
        }
    };
    Ok(GameRecord {
        opening: opening_index,
        a_black,
        result,
        reason,
        forfeit,
        moves: board.history().len(),
        board: board.to_string(),
        think,
    })
}

/// Plays the games of a match on `args.threads` workers: game `g` from opening
/// `(g / 2) % openings.len()`, engine A black in the even games. `done` hears of each game
/// as it finishes (so a long match can show its progress), in the order they finish; the
/// first error, from a game or from `done`, ends the match (so does an empty list of
/// openings). Games start in order, and after Ctrl-C none starts: the games in play finish,
/// so the games played are the first ones.
fn play_games(
    args: &MatchArgs,
    rule: Rule,
    openings: &[Vec<Move>],
    mut done: impl FnMut(usize, GameRecord) -> Result<(), CliError>,
) -> Result<(), CliError> {
    if openings.is_empty() {
        return Err(CliError("no opening fits on this board".into()));
    }
    // Each worker builds its engines once and plays the next game not yet begun with them
    // (external brains start once a worker).
    let workers = crate::parallel::usable_threads(args.threads.max(1)).min(args.games.max(1));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| CliError(format!("cannot start worker threads: {e}")))?;
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<GameRecord, CliError>)>();
    // Set once the match has ended early: the games not yet begun are skipped.
    let ended = std::sync::atomic::AtomicBool::new(false);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| -> Result<(), CliError> {
        scope.spawn(|| {
            let tx = tx;
            pool.install(|| {
                (0..workers).into_par_iter().for_each(|_| {
                    let mut engines = (|| -> Result<[AnyEngine; 2], CliError> {
                        Ok([
                            make_engine(&args.engine_a, args.game.memory_mb)?,
                            make_engine(&args.engine_b, args.game.memory_mb)?,
                        ])
                    })();
                    loop {
                        if ended.load(std::sync::atomic::Ordering::Relaxed)
                            || crate::parallel::stop_requested()
                        {
                            return;
                        }
                        let g = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        if g >= args.games {
                            return;
                        }
                        let r = match engines.as_mut() {
                            Ok(engines) => {
                                let o = (g / 2) % openings.len();
                                play_game(args, rule, &openings[o], o, g.is_multiple_of(2), engines)
                            }
                            Err(e) => Err(CliError(e.0.clone())),
                        };
                        // No one listens once the match has ended.
                        if tx.send((g, r)).is_err() {
                            ended.store(true, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            });
        });
        let result = rx.into_iter().try_for_each(|(g, r)| done(g, r?));
        ended.store(true, std::sync::atomic::Ordering::Relaxed);
        result
    })
}

fn run_match(args: &MatchArgs, out: &mut impl Write) -> Result<(), CliError> {
    let rule = parse_rule(&args.game.rule)?;
    Board::new(args.game.size, rule)?;
    let openings = match &args.openings {
        Some(path) => crate::parse_file(path, |text| {
            read_openings(text, args.game.size, rule).map_err(|e| e.0)
        })?,
        None => builtin_openings(args.game.size),
    };
    let budgets = match_budgets(args)?;
    // Check both specs (and name the engines) before starting.
    let names = [
        make_engine(&args.engine_a, args.game.memory_mb)?
            .name()
            .to_string(),
        make_engine(&args.engine_b, args.game.memory_mb)?
            .name()
            .to_string(),
    ];
    writeln!(
        out,
        "Match: A = {} vs B = {}, {}, {} a move, {}x{} {}, {}",
        names[0],
        names[1],
        plural(args.games, "game"),
        if budgets[0] == budgets[1] {
            budget_name(budgets[0])
        } else {
            format!(
                "A {}, B {}",
                budget_name(budgets[0]),
                budget_name(budgets[1])
            )
        },
        args.game.size,
        args.game.size,
        rule,
        // Each opening is played twice, once with each engine as Black.
        plural(openings.len().min(args.games.div_ceil(2)), "opening")
    )?;
    out.flush()?;
    let bar = ProgressBar::new(args.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, {elapsed} ({eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let start = Instant::now();
    // Held as the games finish: memory grows with the games played, not with the games
    // asked for.
    crate::parallel::check_results_fit::<GameRecord>(args.games as u64)?;
    let mut records: std::collections::BTreeMap<usize, GameRecord> =
        std::collections::BTreeMap::new();
    // The first Ctrl-C lets the games in play finish and reports them.
    crate::parallel::stoppable(|| {
        play_games(args, rule, &openings, |g, r| {
            bar.inc(1);
            let (a_colour, b_colour) = if r.a_black { ("X", "O") } else { ("O", "X") };
            let result = match r.result {
                Result3::Win => "A wins",
                Result3::Draw => "draw",
                Result3::Loss => "B wins",
            };
            bar.suspend(|| -> Result<(), CliError> {
                writeln!(
                    out,
                    "game {:>3}: opening {:>2}, A {a_colour} B {b_colour}: {result} after {} \
                 moves ({})",
                    g + 1,
                    r.opening + 1,
                    r.moves,
                    r.reason
                )?;
                if args.boards {
                    writeln!(out, "{}", r.board)?;
                }
                out.flush()?;
                Ok(())
            })?;
            records.insert(g, r);
            Ok(())
        })
    })?;
    bar.finish_and_clear();
    // Fewer than asked only when Ctrl-C stopped the match: games start in order and each
    // one started is finished, so these are the first ones.
    let played = records
        .keys()
        .enumerate()
        .take_while(|(i, g)| i == *g)
        .count();

    let mut points = 0.0;
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut by_colour = [[0usize; 3]; 2]; // [A black, A white][win, draw, loss]
    let mut think = [(0u32, Duration::ZERO, Duration::ZERO); 2];
    let mut total_moves = 0;
    let mut forfeits = [0usize; 2];
    for r in records.into_values() {
        if let Some(who) = r.forfeit {
            forfeits[who] += 1;
        }
        let k = match r.result {
            Result3::Win => {
                wins += 1;
                points += 1.0;
                0
            }
            Result3::Draw => {
                draws += 1;
                points += 0.5;
                1
            }
            Result3::Loss => {
                losses += 1;
                2
            }
        };
        by_colour[usize::from(!r.a_black)][k] += 1;
        total_moves += r.moves;
        for (t, rt) in think.iter_mut().zip(r.think) {
            t.0 += rt.0;
            t.1 += rt.1;
            t.2 = t.2.max(rt.2);
        }
    }
    let games = played.max(1) as f64;
    let share = 100.0 * points / games;
    writeln!(out)?;
    writeln!(
        out,
        "A ({}) {}, {}, {}: {points:.1} of {} points ({share:.1}%)",
        names[0],
        plural(wins, "win"),
        plural(draws, "draw"),
        plural(losses, "loss"),
        played
    )?;
    for (i, name) in names.iter().enumerate() {
        // A forfeit is a result, but one an engine in working order does not give.
        if forfeits[i] > 0 {
            writeln!(
                out,
                "{} ({name}) forfeited {} of {}: by a failure or an illegal move (see the games \
                 above)",
                ["A", "B"][i],
                forfeits[i],
                plural(played, "game")
            )?;
        }
    }
    writeln!(
        out,
        "A as Black: {}-{}-{}, A as White: {}-{}-{} (win-draw-loss)",
        by_colour[0][0],
        by_colour[0][1],
        by_colour[0][2],
        by_colour[1][0],
        by_colour[1][1],
        by_colour[1][2]
    )?;
    let mean_ms = |t: (u32, Duration, Duration)| {
        if t.0 == 0 {
            0.0
        } else {
            t.1.as_secs_f64() * 1000.0 / f64::from(t.0)
        }
    };
    for (i, name) in names.iter().enumerate() {
        writeln!(
            out,
            "{} {name}: {} move{}, {:.1} ms mean, {:.1} ms longest",
            ["A", "B"][i],
            think[i].0,
            if think[i].0 == 1 { "" } else { "s" },
            mean_ms(think[i]),
            // In the mean's unit and precision, so that it is never below the mean.
            think[i].2.as_secs_f64() * 1000.0
        )?;
    }
    writeln!(
        out,
        "{:.1} moves a game, {:.1} s in all",
        total_moves as f64 / games,
        start.elapsed().as_secs_f64()
    )?;
    if args.json {
        writeln!(
            out,
            "{{\"engine_a\":\"{}\",\"engine_b\":\"{}\",\"games\":{},\"time_ms\":{},\"nodes\":{},\
             \"size\":{},\
             \"rule\":\"{}\",\"a_wins\":{wins},\"draws\":{draws},\"b_wins\":{losses},\
             \"a_points\":{points},\"a_share\":{:.4},\"a_mean_ms\":{:.2},\"b_mean_ms\":{:.2},\
             \"a_max_ms\":{:.2},\"b_max_ms\":{:.2},\"a_forfeits\":{},\"b_forfeits\":{},\
             \"games_asked\":{}}}",
            crate::output::json_escape(&names[0]),
            crate::output::json_escape(&names[1]),
            played,
            match args.nodes {
                None => args.time_ms.to_string(),
                Some(_) => "null".into(),
            },
            // A's and B's.
            match args.nodes {
                Some([a, b]) => format!("[{a},{b}]"),
                None => "null".into(),
            },
            args.game.size,
            rule.name(),
            points / games,
            mean_ms(think[0]),
            mean_ms(think[1]),
            think[0].2.as_secs_f64() * 1000.0,
            think[1].2.as_secs_f64() * 1000.0,
            forfeits[0],
            forfeits[1],
            args.games
        )?;
    }
    if played < args.games {
        out.flush()?;
        return Err(CliError(format!(
            "interrupted: the report covers the first {played} of {} games",
            args.games
        )));
    }
    // A match an engine could not play to the end is not a clean result: say so in the
    // exit status too, so that a script testing a brain sees it.
    let failed: Vec<String> = (0..2)
        .filter(|&i| forfeits[i] > 0)
        .map(|i| {
            format!(
                "{} ({}) forfeited {} of {}",
                ["A", "B"][i],
                names[i],
                forfeits[i],
                plural(played, "game")
            )
        })
        .collect();
    if !failed.is_empty() {
        out.flush()?;
        return Err(CliError(format!(
            "{} (the report above is complete)",
            failed.join(", ")
        )));
    }
    Ok(())
}

/// This game's part of `gameai showcase`: the main engine against the classic best-first
/// engine, two games with colours swapped (one short game with `quick`), printed as boards.
pub fn showcase(quick: bool, out: &mut impl Write) -> Result<Vec<Row>, CliError> {
    let t = Instant::now();
    // The two games run side by side; `--quick` plays one with a tenth of the nodes. On
    // node budgets the games are the same on every machine; the best-first engine's nodes
    // are cheaper, and seven of them take about the time of one of the main engine's.
    let (nodes, games) = if quick {
        ([10_000, 70_000], 1)
    } else {
        ([100_000, 700_000], 2)
    };
    let args = MatchArgs {
        engine_a: "alphabeta".into(),
        engine_b: "bestfirst".into(),
        games,
        time_ms: 0,
        nodes: Some(nodes),
        openings: None,
        threads: games,
        json: false,
        boards: false,
        game: GameArgs {
            size: 15,
            rule: "freestyle".into(),
            // Room for the best-first engine's tree over the whole game.
            memory_mb: None,
        },
    };
    let budget = format!(
        "{} and {} nodes a move",
        thousands(nodes[0]),
        thousands(nodes[1])
    );
    // The first built-in opening for every game.
    let openings: Vec<Vec<Move>> = builtin_openings(15).into_iter().take(1).collect();
    let mut records: Vec<Option<GameRecord>> = vec![None; games];
    play_games(&args, Rule::Freestyle, &openings, |g, r| {
        records[g] = Some(r);
        Ok(())
    })?;
    let (mut won, mut drawn, mut lost) = (0, 0, 0);
    for r in records.into_iter().flatten() {
        let (x, o) = if r.a_black {
            ("alphabeta", "bestfirst")
        } else {
            ("bestfirst", "alphabeta")
        };
        writeln!(
            out,
            "Gomoku: {x} (X) against {o} (O), 15x15 freestyle, alphabeta {} and bestfirst {} \
             nodes a move:",
            thousands(nodes[0]),
            thousands(nodes[1])
        )?;
        write!(out, "{}", r.board)?;
        let result = match r.result {
            Result3::Win => {
                won += 1;
                "alphabeta wins"
            }
            Result3::Draw => {
                drawn += 1;
                "draw"
            }
            Result3::Loss => {
                lost += 1;
                "bestfirst wins"
            }
        };
        writeln!(out, "{result} after {} moves ({})", r.moves, r.reason)?;
    }
    Ok(vec![Row {
        game: "Gomoku",
        task: format!(
            "alphabeta vs bestfirst, {}, {budget}",
            plural(games, "game")
        ),
        result: format!("won {won}, drawn {drawn}, lost {lost}"),
        time: t.elapsed(),
        correct: true,
    }])
}

/// `n` with a comma every three digits: 700,000.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in engines are named in any case (and come out as the program spells
    /// them); a brain's command line is kept as written.
    #[test]
    fn engine_names_are_read_in_any_case() {
        assert_eq!(engine_name("AlphaBeta").as_deref(), Ok("alphabeta"));
        assert_eq!(engine_name(" BESTFIRST ").as_deref(), Ok("bestfirst"));
        assert_eq!(
            engine_name("cmd:./Brain -X").as_deref(),
            Ok("cmd:./Brain -X")
        );
        assert!(engine_name("alpha").is_err());
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(700_000), "700,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn an_opening_that_ends_the_game_is_refused_and_says_why() {
        let five = "a0 b0 a1 b1 a2 b2 a3 b3 a4";
        let e = read_openings(&format!("h7\n{five}\n"), 15, Rule::Freestyle).unwrap_err();
        assert_eq!(
            e.0,
            "openings line 2: the opening ends the game (Black (X) has five after a4): nothing \
             is left to play"
        );
        // A five before the last move: the move after it is refused, and the five named.
        let e = read_openings(&format!("{five} c5 c6"), 15, Rule::Freestyle).unwrap_err();
        assert_eq!(
            e.0,
            "openings line 1: c5: the game is over (Black (X) has five after a4): an opening \
             must leave something to play"
        );
        assert_eq!(
            read_openings("h7 h8\n", 15, Rule::Freestyle).unwrap().len(),
            1
        );
    }

    fn quick_match(games: usize) -> MatchArgs {
        MatchArgs {
            engine_a: "bestfirst".into(),
            engine_b: "bestfirst".into(),
            games,
            time_ms: 5,
            nodes: None,
            openings: None,
            threads: 2,
            json: false,
            boards: false,
            game: GameArgs {
                size: 9,
                rule: "freestyle".into(),
                memory_mb: Some(8),
            },
        }
    }

    #[test]
    fn play_games_reports_each_game_once_with_its_opening_and_colours() {
        let openings = builtin_openings(9);
        assert!(openings.len() >= 2);
        let mut seen = Vec::new();
        play_games(&quick_match(5), Rule::Freestyle, &openings[..2], |g, r| {
            seen.push((g, r.opening, r.a_black));
            Ok(())
        })
        .unwrap();
        seen.sort_unstable();
        let want: Vec<_> = (0..5).map(|g| (g, (g / 2) % 2, g % 2 == 0)).collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn play_games_stops_at_the_first_error() {
        let err = play_games(&quick_match(2), Rule::Freestyle, &[], |_, _| Ok(())).unwrap_err();
        assert!(err.0.contains("no opening"), "{}", err.0);
        let err = play_games(
            &quick_match(2),
            Rule::Freestyle,
            &builtin_openings(9),
            |_, _| Err(CliError("stop".into())),
        )
        .unwrap_err();
        assert_eq!(err.0, "stop");
    }

    #[test]
    fn reads_user_moves() {
        assert_eq!(Move::parse("H7", 15), Ok(Move::new(7, 7)));
        assert_eq!(Move::parse("a0", 32), Ok(Move::new(0, 0)));
        for bad in ["h", "7", "1,2,3", "é4", ""] {
            assert!(
                matches!(Move::parse(bad, 15), Err(GomokuError::Parse(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            Move::parse("p1", 15),
            Err(GomokuError::OffBoard { .. })
        ));
        for x in 0..32u8 {
            let m = Move::new(x, 5);
            assert_eq!(Move::parse(&m.name(), 32), Ok(m));
        }
    }

    #[test]
    fn plays_a_scripted_session() {
        let args = PlayArgs {
            engine: "bestfirst".into(),
            colour: Stone::Black,
            time_ms: 20,
            nodes: None,
            game: GameArgs {
                size: 9,
                rule: "freestyle".into(),
                memory_mb: Some(8),
            },
        };
        let input = "h7\nzz\n4,4\n4,4\nundo\nhelp\n0,0\nquit\n";
        let mut out = Vec::new();
        play(&args, &mut input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Cannot read \"zz\""), "{text}");
        // The second 4,4 (or the first, if the engine took it) is refused.
        assert!(text.contains("already occupied"), "{text}");
        assert!(text.contains("Type a cell as column letter"), "{text}");
        assert!(text.matches("bestfirst plays").count() >= 3, "{text}");
    }
}
