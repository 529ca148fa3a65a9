//! `gameai minesweeper`: evaluate the solver on seeded games or board files, and analyse a
//! position.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use minesweeper::{
    BoardError, BoardSpec, Fallback, FirstClick, GameRecord, Level, PatternModel, Shares, Solver,
    SolverConfig, TrainConfig, board_bound, read_boards, seeded_board, text, win_bound,
};
use rayon::prelude::*;

use crate::CliError;

/// Options of `gameai minesweeper`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Play seeded games (or the boards of a file) with the solver and summarise (Ctrl-C
    /// summarises the games played so far).
    Eval(EvalArgs),
    /// Print each hidden cell's mine probability in a text position, and the solver's move.
    Solve {
        /// A position in the text format (`WxHxM`, then rows of H, F, M and 0-8); `-` reads
        /// standard input.
        file: PathBuf,
        #[command(flatten)]
        solver: SolverArgs,
    },
    /// Write the seeded boards of an eval run to a board file (JSON lines), so other programs
    /// can play exactly the same games.
    Boards(BoardsArgs),
    /// Train the local-pattern model on exact probabilities from seeded games.
    #[command(mut_arg("games", |a| a.default_value("300")),
              mut_arg("seed", |a| a.default_value("1")))]
    Train(TrainArgs),
    /// Measure a pattern model (default: the built-in one) against exact probabilities.
    #[command(mut_arg("games", |a| a.default_value("100")),
              mut_arg("seed", |a| a.default_value("2")))]
    Calibrate(CalibrateArgs),
}

#[derive(Debug, clap::Args)]
struct BoardsArgs {
    #[command(flatten)]
    games: SeededGames,
    /// The file to write; `-` writes the boards to standard output.
    #[arg(long)]
    out: PathBuf,
}

/// Seeded games: which boards `eval` plays, and `boards` writes.
#[derive(Debug, clap::Args)]
struct SeededGames {
    /// beginner, intermediate, expert or WxHxM.
    // (A value with a minus, `-1x2x3`, is read as the value and refused for its number, not
    // taken for an unknown option; so are the others below.)
    #[arg(long, default_value = "beginner", allow_hyphen_values = true)]
    level: Level,
    /// Number of games (at least 1).
    #[arg(long, default_value_t = 100, value_parser = crate::values::at_least_one::<u64>)]
    games: u64,
    /// Seed of the boards: game i is drawn from a seed derived from (seed, i).
    #[arg(long, default_value_t = 1, value_parser = crate::values::whole::<u64>)]
    seed: u64,
    /// First-click rule: safe (never a mine), zero (no mine around it either) or none.
    #[arg(long, default_value = "safe")]
    rule: FirstClick,
    /// First click: corner, centre or X,Y (zero-based column, row).
    #[arg(long, default_value = "corner", allow_hyphen_values = true, value_parser = start_arg)]
    start: String,
}

/// Where training and calibration samples come from.
#[derive(Debug, clap::Args)]
struct SampleArgs {
    /// Levels to play (beginner, intermediate, expert or WxHxM), comma-separated.
    #[arg(
        long,
        default_value = "intermediate,expert",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    level: Vec<Level>,
    /// Games per level (at least 1).
    #[arg(long, value_parser = crate::values::at_least_one::<u64>)]
    games: Option<u64>,
    /// Seed of the boards (and of the choice of cells recorded); the defaults differ between
    /// `train` and `calibrate`, so that a model is calibrated on other games than it was
    /// trained on.
    #[arg(long, value_parser = crate::values::whole::<u64>)]
    seed: Option<u64>,
    /// Undecided cells recorded per position (at least 1).
    #[arg(long, default_value_t = 4, value_parser = crate::values::at_least_one::<usize>)]
    per_position: usize,
}

#[derive(Debug, clap::Args)]
struct TrainArgs {
    #[command(flatten)]
    samples: SampleArgs,
    /// Hidden units (1 to 1024).
    #[arg(long, default_value_t = TrainConfig::default().hidden,
          value_parser = hidden_units)]
    hidden: usize,
    /// Passes over the samples (at least 1).
    #[arg(long, default_value_t = TrainConfig::default().epochs,
          value_parser = crate::values::at_least_one::<usize>)]
    epochs: usize,
    /// Initial SGD step size (a positive number).
    #[arg(long, default_value_t = TrainConfig::default().learning_rate,
          value_parser = learning_rate)]
    learning_rate: f32,
    /// Write the model here; `-` writes it to standard output (and the report to standard
    /// error).
    #[arg(long)]
    out: PathBuf,
}

#[derive(Debug, clap::Args)]
struct CalibrateArgs {
    #[command(flatten)]
    samples: SampleArgs,
    /// A model file written by `train` (default: the built-in model); `-` reads standard input.
    #[arg(long)]
    model: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct EvalArgs {
    #[command(flatten)]
    seeded: SeededGames,
    /// Play the boards of this JSON-lines file instead (fields width, height, mines, start,
    /// mineIndices); `-` reads standard input. A file does not say how its first clicks were
    /// drawn, so a first click counts as a guess only when it hits a mine: boards written
    /// under `--rule none` play the same games, each with one guess fewer when that click is
    /// safe.
    #[arg(long, conflicts_with_all = ["level", "games", "seed", "rule", "start"])]
    boards: Option<PathBuf>,
    /// End with one JSON line of results: played, won, win_rate, ci95 (Wilson's 95% interval,
    /// [low, high]), avg_guesses, ms_per_move_mean, ms_per_move_max, solver_errors,
    /// approximate_guesses (guesses on estimates, exact counting being over budget),
    /// games_asked (more than played when Ctrl-C stopped the run), with --bound win_bound
    /// and win_bound_upper95, and then the games played: level, rule, start ([x, y]) and
    /// seed, or boards (the file).
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores; more than four a core are cut to that). Results
    /// do not depend on it.
    #[arg(long, value_parser = crate::values::at_least_one::<usize>)]
    threads: Option<usize>,
    /// Write one JSON line per game (game, won, guesses, decisions, error) to this file, to
    /// compare two configurations game by game; `game` counts from 0.
    #[arg(long)]
    records: Option<PathBuf>,
    /// Also bound what any player can expect to win on these boards, from the coin flips
    /// built into them (sets of up to 8 cells no player can tell apart), or from these and
    /// the guess the first click may force, whichever is lower; seeded boards only, since a
    /// board file does not say how its boards were drawn. Slow on boards with more mines
    /// than safe cells, which hold very many coin flips.
    #[arg(long, conflicts_with = "boards")]
    bound: bool,
    #[command(flatten)]
    solver: SolverArgs,
}

/// The largest coin flip `--bound` looks for, in cells.
const BOUND_SET_CELLS: usize = 8;

/// Solver options (the defaults are the tuned configuration).
#[derive(Debug, clap::Args)]
struct SolverArgs {
    /// Guess candidates: cells whose mine probability is within this much of the safest.
    #[arg(long, default_value_t = SolverConfig::default().tolerance, value_parser = probability)]
    tolerance: f64,
    /// Guess candidates scored by the look-ahead (at least 1): at most this many next to
    /// revealed numbers and this many away from them, the safest first, with riskier cells
    /// the 50/50 bonus brings within the tolerance.
    #[arg(long, default_value_t = SolverConfig::default().max_candidates,
          value_parser = crate::values::at_least_one::<usize>)]
    candidates: usize,
    /// Search the endgame exhaustively when at most this many cells are undecided (0: never;
    /// 0 to 64).
    #[arg(long, default_value_t = SolverConfig::default().endgame_cells,
          value_parser = endgame_cells)]
    endgame_cells: usize,
    /// ... and at most this many mine layouts remain.
    #[arg(long, default_value_t = SolverConfig::default().endgame_layouts,
          value_parser = crate::values::whole::<usize>)]
    endgame_layouts: usize,
    /// Work budget of one endgame search (layouts handled); over it, the usual guess.
    #[arg(long, default_value_t = SolverConfig::default().endgame_work,
          value_parser = crate::values::whole::<u64>)]
    endgame_work: u64,
    /// Guess the safest cell, without the look-ahead (so no look-ahead option applies).
    #[arg(long, conflicts_with_all = ["candidates", "depth", "second", "opening_depth",
          "opening_cells", "opening_board_cells"])]
    no_lookahead: bool,
    /// Look-ahead depth after the opening: 1, or 2 to value each guess by the best guess
    /// after it (about ten times the work), or 3.
    #[arg(long, default_value_t = SolverConfig::default().depth,
          value_parser = clap::value_parser!(u8).range(1..=3))]
    depth: u8,
    /// Candidates valued in each position one guess ahead (depth 2 and more; at least 1).
    #[arg(long, default_value_t = SolverConfig::default().second_candidates,
          value_parser = crate::values::at_least_one::<usize>)]
    second: usize,
    /// Look-ahead depth in the opening (while at most --opening-cells cells are revealed);
    /// 1 turns the deeper opening off.
    #[arg(long, default_value_t = SolverConfig::default().opening_depth,
          value_parser = clap::value_parser!(u8).range(1..=3))]
    opening_depth: u8,
    /// The opening lasts while at most this many cells are revealed.
    #[arg(long, default_value_t = SolverConfig::default().opening_cells,
          value_parser = crate::values::whole::<usize>)]
    opening_cells: usize,
    /// The opening looks deeper only on boards of at most this many cells.
    #[arg(long, default_value_t = SolverConfig::default().opening_board_cells,
          value_parser = crate::values::whole::<usize>)]
    opening_board_cells: usize,
    /// Guess in closed pockets whose mine count is open as soon as they are the safest,
    /// instead of after the rest of the board.
    #[arg(long)]
    no_postpone_pockets: bool,
    /// Search nodes allowed per component for exact counting; beyond it the solver guesses
    /// with the fallback estimate.
    #[arg(long, default_value_t = csp_core::Budget::default().max_nodes,
          value_parser = crate::values::whole::<u64>)]
    budget: u64,
    /// The fallback estimate: model (the trained pattern model), sampling (block Gibbs
    /// sampling of whole layouts) or local (numbers around the cell only).
    #[arg(long, default_value = fallback_name(Fallback::default()), ignore_case = true,
          value_parser = ["model", "sampling", "local"])]
    fallback: String,
}

/// Parses `--endgame-cells`: up to what the endgame search can take.
fn endgame_cells(s: &str) -> Result<usize, String> {
    crate::values::count_in(s, 0, minesweeper::MAX_ENDGAME_CELLS, "cells")
}

/// Parses `--hidden`: enough units to learn, few enough to allocate.
fn hidden_units(s: &str) -> Result<usize, String> {
    crate::values::count_in(s, 1, minesweeper::MAX_HIDDEN, "hidden units")
}

/// Parses `--tolerance`: a probability, 0 to 1.
fn probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        Ok(_) => Err("expected a probability between 0 and 1".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// Parses `--learning-rate`: a positive, finite step size (NaN or infinity would train a
/// model of NaN weights, which no file can hold).
fn learning_rate(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        Ok(_) => Err("expected a positive step size, such as 0.02".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The command-line name of a fallback estimate.
fn fallback_name(fallback: Fallback) -> &'static str {
    match fallback {
        Fallback::PatternModel => "model",
        Fallback::Sampling => "sampling",
        Fallback::Local => "local",
    }
}

impl SolverArgs {
    fn config(&self) -> SolverConfig {
        SolverConfig {
            lookahead: !self.no_lookahead,
            depth: self.depth,
            second_candidates: self.second,
            opening_depth: self.opening_depth,
            opening_cells: self.opening_cells,
            opening_board_cells: self.opening_board_cells,
            tolerance: self.tolerance,
            max_candidates: self.candidates,
            endgame_cells: self.endgame_cells,
            endgame_layouts: self.endgame_layouts,
            endgame_work: self.endgame_work,
            postpone_pockets: !self.no_postpone_pockets,
            budget: csp_core::Budget {
                max_nodes: self.budget,
            },
            // Any case, as the parser allows.
            fallback: match self.fallback.to_ascii_lowercase().as_str() {
                "local" => Fallback::Local,
                "sampling" => Fallback::Sampling,
                _ => Fallback::PatternModel,
            },
            ..SolverConfig::default()
        }
    }
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<(), CliError> {
    match &args.command {
        Command::Eval(e) => eval(e, out),
        Command::Solve { file, solver } => solve(file, solver, out),
        Command::Boards(b) => boards(b, out),
        Command::Train(t) => train(t, out),
        Command::Calibrate(c) => calibrate(c, out),
    }
}

/// Samples from seeded games: every level of `a`, games in parallel, the opening first click
/// at (3,3) (or the centre of smaller boards), in a fixed order whatever the threads.
fn samples(
    a: &SampleArgs,
    default_games: u64,
    default_seed: u64,
) -> Result<Vec<minesweeper::Sample>, CliError> {
    let games = a.games.unwrap_or(default_games);
    let seed = a.seed.unwrap_or(default_seed);
    // A level whose boards cannot be drawn fails now, not after the levels before it.
    for level in &a.level {
        let (x, y, start) = opening(level);
        minesweeper::seeded_board(level, FirstClick::Zero, start, seed, 0).map_err(|e| {
            CliError(format!(
                "--level {level}: these games open with a zero at {x},{y}, and {e}"
            ))
        })?;
    }
    let solver = Solver::new(SolverConfig::default());
    let bar = crate::parallel::games_bar(games.saturating_mul(a.level.len() as u64));
    let played = play_sample_games(a, games, seed, &solver, &bar);
    // Cleared before any error is printed, too.
    bar.finish_and_clear();
    let out = played?;
    if out.is_empty() {
        return Err(CliError(
            "no samples: these games recorded no undecided cell with an exact probability (on \
             a level with few mines the first click may open the whole board)"
                .into(),
        ));
    }
    Ok(out)
}

/// The first click of the training games: (3,3), or the centre of smaller boards, as
/// (x, y, cell).
fn opening(level: &Level) -> (usize, usize, usize) {
    let (x, y) = (3.min(level.width / 2), 3.min(level.height / 2));
    (x, y, y * level.width + x)
}

/// The games of [`samples`], level after level.
fn play_sample_games(
    a: &SampleArgs,
    games: u64,
    seed: u64,
    solver: &Solver,
    bar: &indicatif::ProgressBar,
) -> Result<Vec<minesweeper::Sample>, CliError> {
    let mut out = Vec::new();
    for (li, level) in a.level.iter().enumerate() {
        let start = opening(level).2;
        let level_seed = seed.wrapping_add(li as u64 * 1_000_003);
        // Collected into a buffer made for the count: a count beyond memory is an error.
        let mut parts = crate::parallel::results_buffer(games)?;
        (0..usize::try_from(games).unwrap_or(0))
            .into_par_iter()
            .map(|i| {
                let r = minesweeper::collect_samples(
                    level,
                    FirstClick::Zero,
                    start,
                    1,
                    minesweeper::game_seed(level_seed, i as u64),
                    a.per_position,
                    solver,
                );
                bar.inc(1);
                r
            })
            .collect_into_vec(&mut parts);
        for p in parts {
            out.extend(p?);
        }
    }
    Ok(out)
}

fn boards(a: &BoardsArgs, out: &mut impl Write) -> Result<(), CliError> {
    let g = &a.games;
    let start = start_cell(&g.start, &g.level)?;
    // One line a board, written as it is drawn: memory stays the same for any count.
    let line = |i: u64| -> Result<String, CliError> {
        let board = seeded_board(&g.level, g.rule, start, g.seed, i)?;
        minesweeper::write_boards(&[minesweeper::BoardSpec { board, start }])
            .map_err(|e| CliError(e.to_string()))
    };
    if crate::is_standard_output(&a.out) {
        // No progress bar: on a terminal it would draw among the boards.
        for i in 0..g.games {
            out.write_all(line(i)?.as_bytes())?;
        }
        return Ok(());
    }
    // Progress on standard error (shown on a terminal only): a large count takes a while.
    let bar = crate::parallel::games_bar(g.games);
    let mut file = crate::output::OutputFile::create(&a.out)?;
    let written = (0..g.games).try_for_each(|i| {
        let text = line(i)?;
        file.write_with(|w| w.write_all(text.as_bytes()))?;
        bar.inc(1);
        Ok::<(), CliError>(())
    });
    // Cleared before any error is printed, too.
    bar.finish_and_clear();
    written?;
    file.commit()?;
    writeln!(
        out,
        "wrote {} to {}",
        crate::plural(g.games, "board"),
        a.out.display()
    )?;
    Ok(())
}

fn train(a: &TrainArgs, out: &mut impl Write) -> Result<(), CliError> {
    crate::check_output(&a.out)?;
    let data = samples(&a.samples, 300, 1)?;
    let config = TrainConfig {
        hidden: a.hidden,
        epochs: a.epochs,
        learning_rate: a.learning_rate,
        seed: a.samples.seed.unwrap_or(1),
    };
    // A step too large drives the weights to infinity; such a model could not be read back.
    let model = minesweeper::train(&data, &config).map_err(|_| {
        CliError(format!(
            "training diverged (the weights grew past what a model file holds) at \
             --learning-rate {}: try a smaller one{}",
            a.learning_rate,
            match minesweeper::TrainConfig::default().learning_rate {
                d if d < a.learning_rate => format!(", such as the default {d}"),
                _ => String::new(),
            }
        ))
    })?;
    let text = model.to_text();
    let fit = minesweeper::calibration(&data, |s| {
        f64::from(model.predict(&s.features, s.density, s.local))
    });
    let report = format!(
        "trained on {} samples: mean |error| {:.4}, mean squared error {:.5}",
        data.len(),
        fit.mean_abs_error,
        fit.mean_sq_error,
    );
    if crate::write_output(&a.out, text.as_bytes(), out)? {
        writeln!(out, "{report}; written to {}", a.out.display())?;
    } else {
        // A report nobody reads (standard error closed) is no reason to fail the run.
        let _ = writeln!(std::io::stderr(), "{report}");
    }
    Ok(())
}

/// The most bytes a model file may hold: many times the largest model as written.
const MAX_MODEL_BYTES: u64 = 64 << 20;

fn calibrate(a: &CalibrateArgs, out: &mut impl Write) -> Result<(), CliError> {
    let model = match &a.model {
        // The largest model (1024 hidden units) takes about 4 MB as written.
        Some(path) => crate::parse_file_at_most(path, MAX_MODEL_BYTES, PatternModel::parse)?,
        None => PatternModel::builtin().clone(),
    };
    let data = samples(&a.samples, 100, 2)?;
    let m = minesweeper::calibration(&data, |s| {
        f64::from(model.predict(&s.features, s.density, s.local))
    });
    let l = minesweeper::calibration(&data, |s| f64::from(s.local));
    let d = minesweeper::calibration(&data, |s| f64::from(s.density));
    writeln!(
        out,
        "{} samples (undecided cells, exact probability as the reference)",
        data.len()
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "| estimate | mean abs error | mean squared error | calibration error |"
    )?;
    writeln!(out, "|---|---:|---:|---:|")?;
    for (name, c) in [
        ("pattern model", &m),
        ("local estimate", &l),
        ("density only", &d),
    ] {
        writeln!(
            out,
            "| {name} | {:.4} | {:.5} | {:.4} |",
            c.mean_abs_error, c.mean_sq_error, c.calibration_error
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "| model estimate | samples | mean estimate | mean exact probability |"
    )?;
    writeln!(out, "|---|---:|---:|---:|")?;
    for b in m.bins.iter().filter(|b| b.count > 0) {
        writeln!(
            out,
            "| {:.1}-{:.1} | {} | {:.3} | {:.3} |",
            b.low, b.high, b.count, b.mean_estimate, b.mean_exact
        )?;
    }
    Ok(())
}

/// Checks the form of `--start` while the arguments are parsed; whether the cell is on the
/// board is known once the level is.
fn start_arg(spec: &str) -> Result<String, String> {
    // On a one-cell level, only the form of a start can be wrong before its place.
    let one = Level {
        width: 1,
        height: 1,
        mines: 0,
    };
    match one.start_cell(spec) {
        Err(
            e @ (minesweeper::LevelError::Start(_) | minesweeper::LevelError::NumberTooLarge(_)),
        ) => Err(e.to_string()),
        _ => Ok(spec.to_string()),
    }
}

fn start_cell(spec: &str, level: &Level) -> Result<usize, CliError> {
    level.start_cell(spec).map_err(|e| match e {
        // These messages begin with the word `start`.
        minesweeper::LevelError::Start(_) | minesweeper::LevelError::StartOutside { .. } => {
            CliError(format!("--{e}"))
        }
        _ => CliError(format!("--start {e}")),
    })
}

/// Summary of an evaluation.
#[derive(Debug, Default)]
struct Summary {
    played: u64,
    won: u64,
    guesses: u64,
    approximate: u64,
    decisions: u64,
    errors: u64,
    /// The first game a solver error ended (counted from 1, as messages count) and its
    /// error: the summary line names it, so that a failed run says why.
    first_error: Option<(u64, String)>,
    time: Duration,
    time_max: Duration,
}

impl Summary {
    /// Adds the next game's record (the games in order).
    fn add(&mut self, r: &minesweeper::GameRecord) {
        self.played += 1;
        if let Some(e) = &r.error {
            let game = self.played;
            self.first_error
                .get_or_insert_with(|| (game, e.to_string()));
        }
        self.won += u64::from(r.won);
        self.guesses += u64::from(r.guesses);
        self.approximate += u64::from(r.approximate_guesses);
        self.decisions += u64::from(r.decisions);
        self.errors += u64::from(r.error.is_some());
        self.time += r.decide_time;
        self.time_max = self.time_max.max(r.decide_time_max);
    }

    fn win_rate(&self) -> f64 {
        if self.played == 0 {
            0.0
        } else {
            self.won as f64 / self.played as f64
        }
    }

    /// Wilson score interval at 95%.
    fn ci95(&self) -> (f64, f64) {
        if self.played == 0 {
            return (0.0, 1.0);
        }
        let n = self.played as f64;
        let p = self.win_rate();
        let z = 1.959_964f64;
        let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
        (centre - half, centre + half)
    }

    fn ms_per_move(&self) -> f64 {
        if self.decisions == 0 {
            0.0
        } else {
            self.time.as_secs_f64() * 1000.0 / self.decisions as f64
        }
    }
}

fn eval(a: &EvalArgs, out: &mut impl Write) -> Result<(), CliError> {
    let solver = Solver::new(a.solver.config());
    let g = &a.seeded;
    // Boards of a file, or seeded boards drawn inside the workers (so a long run does not hold
    // every board in memory).
    let specs = match &a.boards {
        Some(path) => Some(crate::parse_lines_file(path, "boards", read_boards)?),
        None => None,
    };
    // The first click of seeded games (a board file gives each board's own).
    let start = match specs {
        Some(_) => 0,
        None => {
            let start = start_cell(&g.start, &g.level)?;
            // Boards that cannot be drawn fail at once, not after every game has tried.
            seeded_board(&g.level, g.rule, start, g.seed, 0)?;
            start
        }
    };
    // What was played, for the summary line and, as JSON fields, for the JSON line.
    let (label, settings) = match &a.boards {
        Some(path) => {
            let name = crate::input_name(path);
            let json = format!(",\"boards\":\"{}\"", crate::output::json_escape(&name));
            (format!("boards of {name}"), json)
        }
        None => {
            let l = &g.level;
            let (x, y) = (start % l.width, start / l.width);
            // The start as given by name, or as the cell it names.
            let name = g.start.trim().to_ascii_lowercase();
            let shown = match name.as_str() {
                "corner" | "centre" | "center" => name,
                _ => format!("{x},{y}"),
            };
            let (w, h, m, rule, seed) = (l.width, l.height, l.mines, g.rule.name(), g.seed);
            let label = format!("{w}x{h}/{m} rule {rule} start {shown} seed {seed}");
            let json = format!(
                ",\"level\":\"{w}x{h}x{m}\",\"rule\":\"{rule}\",\"start\":[{x},{y}],\"seed\":{seed}"
            );
            (label, json)
        }
    };
    let games = specs.as_ref().map_or(g.games, |s| s.len() as u64);
    // Each game's record, and with --bound its board's shares of the bounds.
    let none = Shares {
        class_sets: 0,
        coin_flips: 1.0,
        first_guess: 1.0,
    };
    let play_one = {
        let (level, rule, seed, bound) = (g.level, g.rule, g.seed, a.bound);
        move |i: u64| -> Result<(GameRecord, Shares), BoardError> {
            match &specs {
                Some(specs) => {
                    let BoardSpec { board, start } = &specs[i as usize];
                    let r = minesweeper::play(board.clone(), *start, false, &solver);
                    Ok((r, none))
                }
                None => seeded_board(&level, rule, start, seed, i).map(|b| {
                    let share = if bound {
                        board_bound(&b, rule, start, BOUND_SET_CELLS)
                    } else {
                        none
                    };
                    let r = minesweeper::play(b, start, rule == FirstClick::None, &solver);
                    (r, share)
                }),
            }
        }
    };
    if let (Some(records), Some(boards)) = (&a.records, &a.boards) {
        crate::check_not_input(records, boards)?;
    }
    let records_file = crate::RecordsFile::create(a.records.as_deref())?;
    // Results come back in game order, so the summary does not depend on scheduling.
    let run = crate::parallel::play_games(games, a.threads, play_one)?;
    let complete = run.finished();
    let played = run.results.into_iter().collect::<Result<Vec<_>, _>>()?;
    // The lower of the two bounds, and what it counts.
    let bound = a.bound.then(|| {
        let of =
            |f: fn(&Shares) -> f64| win_bound(&played.iter().map(|p| f(&p.1)).collect::<Vec<_>>());
        let (flips, first) = (of(|s| s.coin_flips), of(|s| s.first_guess));
        if first.0 < flips.0 {
            (first, "coin flips and the first click's forced guess")
        } else {
            (flips, "coin flips")
        }
    });
    let records: Vec<GameRecord> = played.into_iter().map(|p| p.0).collect();
    let mut s = Summary::default();
    for r in &records {
        s.add(r);
    }
    let (lo, hi) = s.ci95();
    writeln!(
        out,
        "{label}: won {} of {} = {:.2}% (95% CI {:.2}-{:.2}%), {:.2} guesses/game, {:.3} ms/move mean, {:.1} ms max{}{}{}",
        s.won,
        s.played,
        100.0 * s.win_rate(),
        100.0 * lo,
        100.0 * hi,
        s.guesses as f64 / s.played.max(1) as f64,
        s.ms_per_move(),
        s.time_max.as_secs_f64() * 1000.0,
        match &s.first_error {
            Some((game, error)) => format!(
                ", {} solver errors (the first, game {game}: {error})",
                s.errors
            ),
            None => String::new(),
        },
        if s.approximate > 0 {
            format!(
                ", {} guesses on estimates (exact count over budget)",
                s.approximate
            )
        } else {
            String::new()
        },
        match bound {
            Some(((b, u), from)) => format!(
                "; any player wins at most {:.2}% on average (95% upper limit {:.2}%; from {from})",
                100.0 * b,
                100.0 * u
            ),
            None => String::new(),
        }
    )?;
    if a.json {
        let bound_fields = match bound {
            Some(((b, u), _)) => format!(",\"win_bound\":{b:.6},\"win_bound_upper95\":{u:.6}"),
            None => String::new(),
        };
        writeln!(
            out,
            "{{\"played\":{},\"won\":{},\"win_rate\":{:.6},\"ci95\":[{:.6},{:.6}],\"avg_guesses\":{:.4},\"ms_per_move_mean\":{:.4},\"ms_per_move_max\":{:.4},\"solver_errors\":{},\"approximate_guesses\":{},\"games_asked\":{games}{bound_fields}{settings}}}",
            s.played,
            s.won,
            s.win_rate(),
            lo,
            hi,
            s.guesses as f64 / s.played.max(1) as f64,
            s.ms_per_move(),
            s.time_max.as_secs_f64() * 1000.0,
            s.errors,
            s.approximate
        )?;
    }
    // After the summary, so that a file that cannot be written costs the records alone.
    if let Some(file) = records_file {
        file.write(&records, |r| {
            format!(
                "\"won\":{},\"guesses\":{},\"decisions\":{},\"error\":{}",
                r.won,
                r.guesses,
                r.decisions,
                // A game the solver ended is lost, and not by a mine.
                r.error.as_ref().map_or("null".to_owned(), |e| format!(
                    "\"{}\"",
                    crate::output::json_escape(&e.to_string())
                ))
            )
        })?;
    }
    complete
}

fn solve(file: &std::path::Path, args: &SolverArgs, out: &mut impl Write) -> Result<(), CliError> {
    let pos = crate::parse_file(file, text::read)?;
    let config = args.config();
    let budget = config.budget;
    let solver = Solver::new(config);
    let seen = match solver.analyze(&pos) {
        Err(minesweeper::SolveError::Inconsistent) => {
            // Say where the contradiction lies, where counting can tell.
            let why = match minesweeper::contradiction(&pos, &budget) {
                Some(c) => c.to_string(),
                None => "no mine layout agrees with it".to_owned(),
            };
            return Err(CliError(format!(
                "{}: the position is inconsistent: {why}",
                crate::input_name(file)
            )));
        }
        r => r?,
    };
    let probs = &seen.probabilities;
    if !seen.exact {
        writeln!(
            out,
            "exact counting exceeded its budget (--budget): the probabilities are the fallback's estimates (--fallback)"
        )?;
    }
    writeln!(
        out,
        "mine probability of each hidden cell in percent ([n] a revealed number, [M] a known mine, F after a flagged cell, which counts as hidden):"
    )?;
    for y in 0..pos.height() {
        let row: String = (0..pos.width())
            .map(|x| {
                let cell = y * pos.width() + x;
                let shown = match (pos.cells()[cell], probs.mine[cell]) {
                    (minesweeper::CellView::Revealed(n), _) => format!("[{n}]"),
                    (minesweeper::CellView::Mine, _) => "[M]".to_owned(),
                    (minesweeper::CellView::Flagged, Some(p)) => format!("{}F", crate::percent(p)),
                    (_, Some(p)) => crate::percent(p),
                    (_, None) => "?".to_owned(),
                };
                format!("{shown:>5}")
            })
            .collect();
        writeln!(out, "{row}")?;
    }
    let Some(decision) = seen.decision else {
        writeln!(
            out,
            "move: none (nothing is left to reveal: every safe cell is open)"
        )?;
        return Ok(());
    };
    match decision {
        minesweeper::Decision::Safe(cells) => {
            // A flag on a safe cell is a mistake the player will want pointed out.
            let list: Vec<String> = cells
                .iter()
                .map(|&c| {
                    let flagged = pos.cells()[c] == minesweeper::CellView::Flagged;
                    format!(
                        "{},{}{}",
                        c % pos.width(),
                        c / pos.width(),
                        if flagged { " (flagged)" } else { "" }
                    )
                })
                .collect();
            writeln!(out, "move: reveal the safe cells {}", list.join(" "))?;
        }
        minesweeper::Decision::Guess {
            cell,
            mine_probability,
            exact,
        } => writeln!(
            out,
            "move: guess {},{} ({}mine probability {}%)",
            cell % pos.width(),
            cell / pos.width(),
            if exact { "" } else { "estimated " },
            crate::percent_2dp(mine_probability)
        )?,
    }
    Ok(())
}

/// The showcase's Minesweeper part: a few hundred seeded games per level (a few dozen with
/// `quick`).
pub fn showcase(quick: bool, out: &mut impl Write) -> Result<Vec<crate::showcase::Row>, CliError> {
    let solver = Solver::new(SolverConfig::default());
    let mut rows = Vec::new();
    // A few hundred games give win rates within a few points; `--quick` plays a few dozen.
    let [b, i, e] = if quick { [60, 40, 30] } else { [500, 300, 200] };
    for (name, level, games) in [
        ("beginner", Level::BEGINNER, b),
        ("intermediate", Level::INTERMEDIATE, i),
        ("expert", Level::EXPERT, e),
    ] {
        let t = std::time::Instant::now();
        let records: Vec<_> = (0..games)
            .into_par_iter()
            .map(|i| {
                seeded_board(&level, FirstClick::Safe, 0, 1, i)
                    .map(|b| minesweeper::play(b, 0, false, &solver))
            })
            .collect();
        let mut s = Summary::default();
        for r in records {
            s.add(&r?);
        }
        writeln!(
            out,
            "Minesweeper: {name} ({}x{}/{}), first click safe at the corner: won {} of {}",
            level.width, level.height, level.mines, s.won, s.played
        )?;
        // Shown as it comes: the showcase takes a while.
        out.flush()?;
        rows.push(crate::showcase::Row {
            game: "Minesweeper",
            task: format!("{games} {name} games, safe corner start"),
            result: {
                let (lo, hi) = s.ci95();
                format!(
                    "{:.1}% won (95%: {:.1}-{:.1}%)",
                    100.0 * s.win_rate(),
                    100.0 * lo,
                    100.0 * hi
                )
            },
            time: t.elapsed(),
            correct: true,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    /// A guess's probability never reads certain when it is not: one safe cell among 65,025
    /// is 99.99%, not 100.00% (and a near-safe cell 0.01%, not 0.00%).
    #[test]
    fn a_probability_is_never_rounded_to_certain() {
        assert_eq!(crate::percent_2dp(65_024.0 / 65_025.0), "99.99");
        assert_eq!(crate::percent_2dp(1.0 / 65_025.0), "0.01");
        assert_eq!(crate::percent_2dp(1.0), "100.00");
        assert_eq!(crate::percent_2dp(0.0), "0.00");
        assert_eq!(crate::percent_2dp(0.15484), "15.48");
    }

    /// `gameai minesweeper` alone, to parse its options in tests.
    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn solver_config(argv: &[&str]) -> SolverConfig {
        let cli = Cli::try_parse_from(argv).unwrap();
        match cli.args.command {
            Command::Eval(e) => e.solver.config(),
            Command::Solve { solver, .. } => solver.config(),
            other => panic!("not a solver command: {other:?}"),
        }
    }

    #[test]
    fn the_command_line_defaults_are_the_library_defaults() {
        assert_eq!(solver_config(&["m", "eval"]), SolverConfig::default());
        assert_eq!(
            solver_config(&["m", "solve", "p.txt"]),
            SolverConfig::default()
        );
        let config = solver_config(&[
            "m",
            "eval",
            "--fallback",
            "model",
            "--opening-depth",
            "1",
            "--no-postpone-pockets",
            "--endgame-layouts",
            "50000",
            "--endgame-work",
            "20000000",
        ]);
        assert_eq!(config.fallback, Fallback::PatternModel);
        assert_eq!(config.opening_depth, 1);
        assert!(!config.postpone_pockets);
        assert_eq!(config.endgame_layouts, 50_000);
        assert_eq!(config.endgame_work, 20_000_000);
    }

    /// Every solver option reaches the solver's configuration.
    #[test]
    fn every_solver_option_is_passed_on() {
        let config = solver_config(&[
            "m",
            "eval",
            "--tolerance",
            "0.2",
            "--candidates",
            "5",
            "--endgame-cells",
            "30",
            "--endgame-layouts",
            "500",
            "--endgame-work",
            "777",
            "--depth",
            "2",
            "--second",
            "3",
            "--opening-depth",
            "3",
            "--opening-cells",
            "12",
            "--opening-board-cells",
            "500",
            "--no-postpone-pockets",
            "--budget",
            "1234",
            "--fallback",
            "local",
        ]);
        let expected = SolverConfig {
            lookahead: true,
            tolerance: 0.2,
            max_candidates: 5,
            budget: csp_core::Budget { max_nodes: 1234 },
            endgame_cells: 30,
            endgame_layouts: 500,
            endgame_work: 777,
            fallback: Fallback::Local,
            depth: 2,
            second_candidates: 3,
            opening_depth: 3,
            opening_cells: 12,
            opening_board_cells: 500,
            postpone_pockets: false,
            ..SolverConfig::default()
        };
        assert_eq!(config, expected);
        let config = solver_config(&["m", "solve", "p.txt", "--no-lookahead"]);
        assert!(!config.lookahead);
        let config = solver_config(&["m", "eval", "--fallback", "sampling"]);
        assert_eq!(config.fallback, Fallback::Sampling);
        // In any case, as the other names.
        let config = solver_config(&["m", "eval", "--fallback", "Sampling"]);
        assert_eq!(config.fallback, Fallback::Sampling);
        let config = solver_config(&["m", "eval", "--fallback", "LOCAL"]);
        assert_eq!(config.fallback, Fallback::Local);
    }

    /// Training and calibration samples come from games opened at (3,3), or at the centre
    /// of a smaller board, each level with its own seed.
    #[test]
    fn samples_open_at_3_3_or_the_centre() {
        let beginner: Level = "beginner".parse().unwrap();
        let small: Level = "5x5x5".parse().unwrap();
        let a = SampleArgs {
            level: vec![beginner, small],
            games: Some(6),
            seed: Some(7),
            per_position: 2,
        };
        let got = samples(&a, 100, 2).unwrap();
        let solver = Solver::new(SolverConfig::default());
        let mut expected = Vec::new();
        for (level, start, seed) in [(&beginner, 3 * 9 + 3, 7), (&small, 2 * 5 + 2, 1_000_010)] {
            let before = expected.len();
            for i in 0..6 {
                expected.extend(
                    minesweeper::collect_samples(
                        level,
                        FirstClick::Zero,
                        start,
                        1,
                        minesweeper::game_seed(seed, i),
                        2,
                        &solver,
                    )
                    .unwrap(),
                );
            }
            assert!(expected.len() > before, "{level:?} gave no samples");
        }
        assert_eq!(got, expected);
    }

    /// The summary's counts, rates and Wilson interval.
    #[test]
    fn the_summary_adds_up_its_games() {
        let mut s = Summary::default();
        assert_eq!(
            (s.win_rate(), s.ci95(), s.ms_per_move()),
            (0.0, (0.0, 1.0), 0.0)
        );
        for i in 0..10u32 {
            s.add(&GameRecord {
                won: i < 8,
                guesses: i,
                approximate_guesses: i % 2,
                decisions: 4,
                decide_time: Duration::from_millis(8),
                decide_time_max: Duration::from_millis(u64::from(i)),
                error: (i >= 7).then_some(minesweeper::SolveError::NothingToDo),
            });
        }
        assert_eq!((s.played, s.won, s.guesses, s.approximate), (10, 8, 45, 5));
        assert_eq!((s.decisions, s.errors), (40, 3));
        assert_eq!(
            s.first_error,
            Some((8, minesweeper::SolveError::NothingToDo.to_string()))
        );
        assert_eq!(s.time_max, Duration::from_millis(9));
        assert!((s.win_rate() - 0.8).abs() < 1e-12);
        assert!((s.ms_per_move() - 2.0).abs() < 1e-9);
        // Wilson's interval for 8 of 10.
        let (lo, hi) = s.ci95();
        assert!(
            (lo - 0.490_162).abs() < 1e-5 && (hi - 0.943_318).abs() < 1e-5,
            "{lo} {hi}"
        );
    }
}
