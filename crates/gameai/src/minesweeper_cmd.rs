//! `gameai minesweeper`: evaluate the solver on seeded games or board files, and analyse a
//! position.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use minesweeper::{
    BoardError, BoardSpec, FirstClick, GameRecord, Level, Solver, SolverConfig, read_boards,
    seeded_board, text,
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
    /// Play seeded games (or the boards of a file) with the solver and summarise.
    Eval(EvalArgs),
    /// Print each hidden cell's mine probability in a text position, and the solver's move.
    Solve {
        /// A position in the text format (`WxHxM`, then rows of H, F, M and 0-8).
        file: PathBuf,
    },
}

#[derive(Debug, clap::Args)]
struct EvalArgs {
    /// beginner, intermediate, expert or WxHxM.
    #[arg(long, default_value = "beginner")]
    level: Level,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Seed of the boards: game i is drawn from a seed derived from (seed, i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// First-click rule: safe (never a mine), zero (no mine around it either) or none.
    #[arg(long, default_value = "safe")]
    rule: FirstClick,
    /// First click: corner, centre or X,Y (zero-based column, row).
    #[arg(long, default_value = "corner")]
    start: String,
    /// Play the boards of this JSON-lines file instead (fields width, height, mines, start,
    /// mineIndices).
    #[arg(long, conflicts_with_all = ["level", "games", "seed", "rule", "start"])]
    boards: Option<PathBuf>,
    /// End with one JSON line of results.
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<(), CliError> {
    match &args.command {
        Command::Eval(e) => eval(e, out),
        Command::Solve { file } => solve(file, out),
    }
}

fn start_cell(spec: &str, level: &Level) -> Result<usize, CliError> {
    let (w, h) = (level.width, level.height);
    let (x, y) = match spec {
        "corner" => (0, 0),
        "centre" | "center" => (w / 2, h / 2),
        xy => {
            let parsed = xy
                .split_once(',')
                .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)));
            parsed.ok_or_else(|| {
                CliError(format!("--start `{xy}`: expected corner, centre or X,Y"))
            })?
        }
    };
    if x >= w || y >= h {
        return Err(CliError(format!(
            "--start {x},{y} is outside the {w}x{h} board"
        )));
    }
    Ok(y * w + x)
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
    time: Duration,
    time_max: Duration,
}

impl Summary {
    fn add(&mut self, r: &minesweeper::GameRecord) {
        self.played += 1;
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
    let solver = Solver::new(SolverConfig::default());
    // Boards of a file, or seeded boards drawn inside the workers (so a long run does not hold
    // every board in memory).
    let (specs, label) = if let Some(path) = &a.boards {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError(format!("cannot read {}: {e}", path.display())))?;
        let specs = read_boards(&text).map_err(|e| CliError(format!("{}: {e}", path.display())))?;
        (Some(specs), format!("boards of {}", path.display()))
    } else {
        let l = &a.level;
        let label = format!(
            "{}x{}/{} rule {} start {} seed {}",
            l.width,
            l.height,
            l.mines,
            a.rule.name(),
            a.start,
            a.seed
        );
        (None, label)
    };
    let start = start_cell(&a.start, &a.level)?;
    let games = specs.as_ref().map_or(a.games, |s| s.len() as u64);
    let play_one = |i: u64| -> Result<GameRecord, BoardError> {
        match &specs {
            Some(specs) => {
                let BoardSpec { board, start } = &specs[i as usize];
                Ok(minesweeper::play(board.clone(), *start, false, &solver))
            }
            None => seeded_board(&a.level, a.rule, start, a.seed, i)
                .map(|b| minesweeper::play(b, start, a.rule == FirstClick::None, &solver)),
        }
    };
    let bar = ProgressBar::new(games);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {elapsed} (eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .map_err(|e| CliError(format!("cannot start worker threads: {e}")))?;
    // Results are collected in game order, so the summary does not depend on scheduling.
    let records: Vec<_> = pool.install(|| {
        (0..games)
            .into_par_iter()
            .map(|i| {
                let r = play_one(i);
                bar.inc(1);
                r
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut s = Summary::default();
    for r in records {
        s.add(&r?);
    }
    let (lo, hi) = s.ci95();
    writeln!(
        out,
        "{label}: won {} of {} = {:.2}% (95% CI {:.2}-{:.2}%), {:.2} guesses/game, {:.3} ms/move mean, {:.1} ms max{}{}",
        s.won,
        s.played,
        100.0 * s.win_rate(),
        100.0 * lo,
        100.0 * hi,
        s.guesses as f64 / s.played.max(1) as f64,
        s.ms_per_move(),
        s.time_max.as_secs_f64() * 1000.0,
        if s.errors > 0 {
            format!(", {} solver errors", s.errors)
        } else {
            String::new()
        },
        if s.approximate > 0 {
            format!(
                ", {} guesses on estimates (exact count over budget)",
                s.approximate
            )
        } else {
            String::new()
        }
    )?;
    if a.json {
        writeln!(
            out,
            "{{\"played\":{},\"won\":{},\"win_rate\":{:.6},\"ci95\":[{:.6},{:.6}],\"avg_guesses\":{:.4},\"ms_per_move_mean\":{:.4},\"ms_per_move_max\":{:.4},\"solver_errors\":{},\"approximate_guesses\":{}}}",
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
    Ok(())
}

fn solve(file: &PathBuf, out: &mut impl Write) -> Result<(), CliError> {
    let input = std::fs::read_to_string(file)
        .map_err(|e| CliError(format!("cannot read {}: {e}", file.display())))?;
    let pos = text::read(&input).map_err(|e| CliError(format!("{}: {e}", file.display())))?;
    let solver = Solver::new(SolverConfig::default());
    let probs = solver.probabilities(&pos)?;
    writeln!(out, "mine probability of each hidden cell (percent):")?;
    for y in 0..pos.height() {
        let row: Vec<String> = (0..pos.width())
            .map(|x| {
                match (
                    pos.cells()[y * pos.width() + x],
                    probs.mine[y * pos.width() + x],
                ) {
                    (minesweeper::CellView::Revealed(n), _) => format!("{n:>4}"),
                    (minesweeper::CellView::Mine, _) => "   M".to_owned(),
                    (_, Some(p)) => format!("{:>4.0}", 100.0 * p),
                    (_, None) => "   ?".to_owned(),
                }
            })
            .collect();
        writeln!(out, "{}", row.join(""))?;
    }
    match solver.decide(&pos)? {
        minesweeper::Decision::Safe(cells) => {
            let list: Vec<String> = cells
                .iter()
                .map(|&c| format!("{},{}", c % pos.width(), c / pos.width()))
                .collect();
            writeln!(out, "move: reveal the safe cells {}", list.join(" "))?;
        }
        minesweeper::Decision::Guess {
            cell,
            mine_probability,
            exact,
        } => writeln!(
            out,
            "move: guess {},{} (mine probability {}{:.2}%)",
            cell % pos.width(),
            cell / pos.width(),
            if exact { "" } else { "estimated " },
            100.0 * mine_probability
        )?,
    }
    Ok(())
}

/// The showcase's Minesweeper part: a few dozen seeded games per level.
pub fn showcase(out: &mut impl Write) -> Result<Vec<crate::showcase::Row>, CliError> {
    let solver = Solver::new(SolverConfig::default());
    let mut rows = Vec::new();
    for (name, level, games) in [
        ("beginner", Level::BEGINNER, 60u64),
        ("intermediate", Level::INTERMEDIATE, 40),
        ("expert", Level::EXPERT, 30),
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
        rows.push(crate::showcase::Row {
            game: "Minesweeper",
            task: format!("{games} {name} games, safe corner start"),
            result: format!("{:.0}% won", 100.0 * s.win_rate()),
            time: t.elapsed(),
        });
    }
    Ok(rows)
}
