//! Do Monte Carlo rollouts choose better guesses than the solver's one-step look-ahead?
//!
//! Plays the same seeded boards twice: with the default [`Solver`], and with a player that
//! asks the solver for its move but, when the move is a guess (and more than 2000 layouts
//! remain, where the solver's own exhaustive endgame search does not already decide), values
//! the guess candidates by playing the game to its end from each of them with the default
//! solver, on layouts drawn exactly uniformly from the position's posterior (`csp_core::Sampler`),
//! and may switch to a better-valued one. This is one step of rollout policy improvement over
//! the solver; the example prints the paired result.
//!
//! ```sh
//! cargo run --release -p minesweeper --example rollouts -- beginner safe corner 2000 99 joint 100 8
//! cargo run --release -p minesweeper --example rollouts -- beginner safe corner 2000 99 guarded 200 6 2
//! ```
//! Arguments: level, first-click rule, start (`corner`, `centre` or `X,Y`), games, seed, mode,
//! samples per decision (`N`), candidates (`K`, the solver's guess first, then the other
//! undecided cells within 0.1 of the lowest mine probability, safest first), and for
//! `guarded` a z-score:
//!
//! - `joint N K`: N layouts drawn once; every candidate is played on each (a candidate that is
//!   a mine in the layout loses); the candidate with the most wins is played, the solver's on
//!   ties.
//! - `guarded N K Z`: per candidate, N layouts drawn with that cell safe; its value is its exact
//!   probability of being safe times its share of wins. The player switches from the solver's
//!   guess only to a candidate whose value is higher by more than Z standard errors of the
//!   difference.
//!
//! Games run on two threads; the results do not depend on it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use csp_core::{Budget, Sampler};
use minesweeper::{
    Board, CellView, Decision, FirstClick, Game, GameState, Level, Position, Solver,
    constraint_problem, game_seed, seeded_board,
};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Layout counts up to this are left to the solver's exhaustive endgame search.
const ENDGAME_LAYOUTS: u64 = 2000;
/// Candidates lie within this of the lowest mine probability.
const TOLERANCE: f64 = 0.1;

#[derive(Debug, Clone, Copy)]
enum Mode {
    Joint,
    Guarded(f64),
}

#[derive(Debug, Clone, Copy)]
struct Rollouts {
    mode: Mode,
    samples: usize,
    candidates: usize,
}

/// What one game with rollouts did.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    /// Guesses valued by rollouts.
    valued: u64,
    /// Guesses where the player left the solver's choice.
    switched: u64,
}

/// Plays `board` (a layout consistent with `pos`) from `pos`: the revealed cells again, then
/// `first`, then the solver to the end.
fn rollout(solver: &Solver, board: Board, pos: &Position, first: usize) -> bool {
    let mut game = Game::new(board);
    for (c, v) in pos.cells().iter().enumerate() {
        if matches!(v, CellView::Revealed(_)) && !game.is_revealed(c) && game.reveal(c).is_err() {
            return false;
        }
    }
    if game.reveal(first).is_err() {
        return false;
    }
    finish(solver, &mut game, None, 0).0
}

/// The board of one sampled assignment.
fn board_of(pos: &Position, cell_of: &[usize], assign: &[bool]) -> Option<Board> {
    let mines: Vec<usize> = (0..cell_of.len())
        .filter(|&v| assign[v])
        .map(|v| cell_of[v])
        .collect();
    Board::new(pos.width(), pos.height(), &mines).ok()
}

/// The guess to play instead of the solver's `guess`, or `None` to keep it (also when the
/// position is not one the rollouts value).
fn improve(
    solver: &Solver,
    pos: &Position,
    guess: usize,
    cfg: &Rollouts,
    seed: u64,
) -> Option<usize> {
    let (csp, cell_of) = constraint_problem(pos).ok()?;
    let budget = Budget::default();
    let a = csp_core::analyze(&csp, &budget).ok()?;
    if a.solutions.to_u64().is_some_and(|s| s <= ENDGAME_LAYOUTS) {
        return None;
    }
    let clickable =
        |v: usize| a.forced[v] != Some(true) && !matches!(pos.cells()[cell_of[v]], CellView::Mine);
    let best = (0..cell_of.len())
        .filter(|&v| clickable(v))
        .map(|v| a.probabilities[v])
        .fold(f64::INFINITY, f64::min);
    let mut near: Vec<usize> = (0..cell_of.len())
        .filter(|&v| {
            clickable(v) && a.forced[v].is_none() && a.probabilities[v] <= best + TOLERANCE
        })
        .collect();
    near.sort_by(|&x, &y| a.probabilities[x].total_cmp(&a.probabilities[y]));
    let mut cands = vec![guess];
    cands.extend(
        near.iter()
            .map(|&v| cell_of[v])
            .filter(|&c| c != guess)
            .take(cfg.candidates.saturating_sub(1)),
    );
    if cands.len() < 2 {
        return None;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = cfg.samples;
    let chosen = match cfg.mode {
        Mode::Joint => {
            let sampler = Sampler::new(&csp, &budget).ok()?;
            let mut wins = vec![0usize; cands.len()];
            for _ in 0..n {
                let board = board_of(pos, &cell_of, &sampler.sample(&mut rng).ok()?)?;
                for (w, &c) in wins.iter_mut().zip(&cands) {
                    if !board.is_mine(c) && rollout(solver, board.clone(), pos, c) {
                        *w += 1;
                    }
                }
            }
            (1..cands.len()).fold(0, |b, i| if wins[i] > wins[b] { i } else { b })
        }
        Mode::Guarded(z) => {
            // (value, variance of its estimate) per candidate.
            let mut vals = Vec::with_capacity(cands.len());
            for &c in &cands {
                let v = cell_of.iter().position(|&x| x == c)?;
                let safe = 1.0 - a.probabilities[v];
                let mut given_safe = csp.clone();
                given_safe.fix(v, false).ok()?;
                let sampler = Sampler::new(&given_safe, &budget).ok()?;
                let mut wins = 0usize;
                for _ in 0..n {
                    let board = board_of(pos, &cell_of, &sampler.sample(&mut rng).ok()?)?;
                    wins += usize::from(rollout(solver, board, pos, c));
                }
                let q = wins as f64 / n as f64;
                // Laplace-smoothed share for the variance, so that 0 or n wins is not certain.
                let qs = (wins as f64 + 1.0) / (n as f64 + 2.0);
                vals.push((safe * q, safe * safe * qs * (1.0 - qs) / n as f64));
            }
            (1..cands.len()).fold(0, |b, i| {
                let gain = vals[i].0 - vals[0].0;
                if gain > z * (vals[i].1 + vals[0].1).sqrt() && vals[i].0 > vals[b].0 {
                    i
                } else {
                    b
                }
            })
        }
    };
    Some(cands[chosen])
}

/// Plays one game from its first click.
fn play(
    solver: &Solver,
    board: Board,
    start: usize,
    rollouts: Option<&Rollouts>,
    seed: u64,
) -> (bool, Counts) {
    let mut game = Game::new(board);
    if game.reveal(start).is_err() {
        return (false, Counts::default());
    }
    finish(solver, &mut game, rollouts, seed)
}

/// Plays on with the solver's moves until the game ends; whether it is won. With `rollouts`,
/// guesses may be changed by [`improve`].
fn finish(
    solver: &Solver,
    game: &mut Game,
    rollouts: Option<&Rollouts>,
    seed: u64,
) -> (bool, Counts) {
    let mut counts = Counts::default();
    let mut guesses = 0u64;
    while game.state() == GameState::Playing {
        let view = game.view();
        match solver.decide(&view) {
            Ok(Decision::Safe(cells)) => {
                for c in cells {
                    if !game.is_revealed(c) && game.state() == GameState::Playing {
                        let _ = game.reveal(c);
                    }
                }
            }
            Ok(Decision::Guess { cell, .. }) => {
                let mut choice = cell;
                if let Some(c) =
                    rollouts.and_then(|cfg| improve(solver, &view, cell, cfg, seed ^ guesses))
                {
                    counts.valued += 1;
                    counts.switched += u64::from(c != cell);
                    choice = c;
                }
                guesses += 1;
                let _ = game.reveal(choice);
            }
            Err(_) => return (false, counts),
        }
    }
    (game.state() == GameState::Won, counts)
}

fn parse_args() -> Result<(Level, FirstClick, usize, u64, u64, Rollouts), String> {
    const USAGE: &str =
        "usage: rollouts LEVEL RULE corner|X,Y GAMES SEED joint N K | guarded N K Z";
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 8 {
        return Err(USAGE.into());
    }
    let level: Level = args[0].parse().map_err(|e| format!("{e}"))?;
    let rule: FirstClick = args[1].parse().map_err(|e| format!("{e}"))?;
    let start = level.start_cell(&args[2]).map_err(|e| format!("{e}"))?;
    let num = |s: &String| s.parse::<u64>().map_err(|_| format!("not a number: {s}"));
    let (games, seed) = (num(&args[3])?, num(&args[4])?);
    let samples = num(&args[6])? as usize;
    let candidates = num(&args[7])? as usize;
    let mode = match (args[5].as_str(), args.get(8)) {
        ("joint", None) => Mode::Joint,
        ("guarded", Some(z)) => Mode::Guarded(z.parse().map_err(|_| format!("not a number: {z}"))?),
        _ => return Err(USAGE.into()),
    };
    if samples == 0 {
        return Err("at least one sample is needed".into());
    }
    let cfg = Rollouts {
        mode,
        samples,
        candidates,
    };
    Ok((level, rule, start, games, seed, cfg))
}

fn main() {
    let (level, rule, start, games, seed, cfg) = match parse_args() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let solver = Solver::default();
    let next = AtomicU64::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= games {
                        break;
                    }
                    let board = match seeded_board(&level, rule, start, seed, i) {
                        Ok(b) => b,
                        Err(e) => {
                            eprintln!("{e}");
                            std::process::exit(1);
                        }
                    };
                    let (base, _) = play(&solver, board.clone(), start, None, 0);
                    let (with, counts) =
                        play(&solver, board, start, Some(&cfg), game_seed(seed ^ 77, i));
                    if let Ok(mut r) = results.lock() {
                        r.push((base, with, counts));
                    }
                }
            });
        }
    });
    let r = results.into_inner().unwrap_or_default();
    let won = |f: fn(&(bool, bool, Counts)) -> bool| r.iter().filter(|x| f(x)).count();
    let (base, with) = (won(|x| x.0), won(|x| x.1));
    let (only_base, only_with) = (won(|x| x.0 && !x.1), won(|x| !x.0 && x.1));
    let valued: u64 = r.iter().map(|x| x.2.valued).sum();
    let switched: u64 = r.iter().map(|x| x.2.switched).sum();
    println!(
        "{} games: solver {base} won, with rollouts {with}; only the solver {only_base}, only with \
         rollouts {only_with}, net {:+} (s.d. {:.1}); {valued} guesses valued, {switched} changed",
        r.len(),
        only_with as i64 - only_base as i64,
        ((only_base + only_with) as f64).sqrt(),
    );
}
