//! Minesweeper: boards, a solver that plays them, a seeded game simulator and board/position
//! file formats.
//!
//! - [`Board`]: a mine layout on a [`Grid`] of up to 255x255 cells, numbered row by row
//!   (`y * width + x`), with neighbour lists and adjacent-mine counts precomputed.
//!   [`Board::random`] draws uniformly among the layouts a [`FirstClick`] rule allows.
//! - [`Level`]: the classic sizes ([`Level::BEGINNER`], [`Level::INTERMEDIATE`],
//!   [`Level::EXPERT`]) and custom `WxHxM` ones.
//! - [`Game`]: reveals (with an iterative flood fill from cells with no adjacent mine), flags,
//!   and the won/lost state in O(1).
//! - [`Position`]: the player's view ([`CellView`] per cell plus the total mine count), which
//!   is what a solver receives.
//! - [`Solver`] ([`SolverConfig`]): exact mine probabilities ([`Solver::probabilities`],
//!   counted by `csp-core`) and the move to play ([`Solver::decide`]): every certainly safe
//!   cell at once, otherwise a guess chosen by look-ahead among the nearly safest cells, or by
//!   an exhaustive search for the likeliest win once few layouts remain. Where exact counting
//!   exceeds its budget, a [`Fallback`] estimate (block Gibbs sampling, or the trained
//!   [`PatternModel`]).
//! - [`play`] and [`seeded_board`]: whole games with the solver, reproducible from a seed,
//!   each summed up in a [`GameRecord`].
//! - [`blind_sets`] finds the coin flips built into a board (cells no player can tell apart
//!   before clicking one), and [`bound_class`] turns them into an upper bound on any player's
//!   win rate.
//! - [`mbf`] reads and writes boards in the MBF binary format; [`text`] reads and writes
//!   positions in the common text format.
//!
//! # Example
//!
//! ```
//! use minesweeper::rand::SeedableRng;
//! use minesweeper::rand_xoshiro::Xoshiro256PlusPlus;
//! use minesweeper::{Board, FirstClick, Game, GameState, Level, text};
//!
//! let level: Level = "beginner".parse()?;
//! let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
//! let start = 4 * level.width + 4; // the centre cell
//! let board = Board::random(level.width, level.height, level.mines, FirstClick::Zero, start, &mut rng)?;
//! assert_eq!(board.mine_count(), 10);
//!
//! let mut game = Game::new(board);
//! let reveal = game.reveal(start)?;
//! // The start cell has no adjacent mine: it opens at least itself and its 8 neighbours.
//! assert!(!reveal.mine && reveal.opened.len() >= 9);
//! assert_ne!(game.state(), GameState::Lost);
//!
//! let view = text::write(&game.view());
//! print!("{view}");
//! assert!(view.starts_with("9x9x10\n"));
//! assert_eq!(text::read(&view)?, game.view());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The solver on a position, then on seeded games:
//!
//! ```
//! use minesweeper::{Decision, FirstClick, Level, Solver, SolverConfig, play, seeded_board, text};
//!
//! // A beginner board whose first click, in the corner, showed a 1.
//! let pos = text::read(&format!("9x9x10\n1HHHHHHHH\n{}", "HHHHHHHHH\n".repeat(8)))?;
//! let solver = Solver::new(SolverConfig::default());
//! let p = solver.probabilities(&pos)?;
//! // The 1's mine is one of its three hidden neighbours, each equally likely.
//! for cell in [1, 9, 10] {
//!     assert!((p.mine[cell].unwrap() - 1.0 / 3.0).abs() < 1e-12);
//! }
//! assert_eq!(p.mine[0], None); // revealed
//! // No cell is certainly safe, so the solver guesses, and not next to the 1.
//! match solver.decide(&pos)? {
//!     Decision::Guess { cell, mine_probability, exact } => {
//!         assert!(exact && mine_probability < 1.0 / 3.0);
//!         assert!(![1, 9, 10].contains(&cell));
//!     }
//!     Decision::Safe(_) => unreachable!("no cell is certainly safe"),
//! }
//!
//! // Twenty seeded beginner games, first click at (3,3) opening an area: the same boards
//! // and the same games on every run.
//! let level = Level::BEGINNER;
//! let start = 3 * level.width + 3;
//! let mut won = 0;
//! for i in 0..20 {
//!     let board = seeded_board(&level, FirstClick::Zero, start, 1, i)?;
//!     won += u32::from(play(board, start, false, &solver).won);
//! }
//! println!("won {won} of 20");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod blind;
mod board;
mod boards;
mod endgame;
mod format;
mod game;
mod level;
mod model;
mod position;
mod risk;
mod sim;
mod solver;

pub use blind::{
    MAX_BLIND_CELLS, MAX_CLASS_SETS, Shares, blind_sets, board_bound, bound_class, flip_cells,
    win_bound,
};
pub use board::{Board, BoardError, FirstClick, Grid, MAX_SIDE, Neighbours, ParseFirstClickError};
pub use boards::{BoardSpec, BoardsError, read_boards, write_boards};
/// The constraint engine this crate builds on, re-exported so that the types of its API
/// (`Budget`, `CspError`) need no dependency of their own.
pub use csp_core;
pub use format::{FormatError, TextError, mbf, text};
pub use game::{Game, GameError, GameState, Reveal};
pub use level::{Level, LevelError};
pub use model::{
    CATEGORIES, Calibration, CalibrationBin, Fallback, MAX_HIDDEN, ModelError, NEIGHBOURHOOD,
    PatternModel, Sample, TrainConfig, calibration, collect_samples, local_estimates, train,
};
pub use position::{CellView, Inconsistency, Position, PositionError};
pub use sim::{GameRecord, game_seed, play, play_from, seeded_board};
pub use solver::{
    Analysis, Contradiction, Decision, MAX_ENDGAME_CELLS, Probabilities, SolveError, Solver,
    SolverConfig, constraint_problem, contradiction,
};
/// The random-number crates of this crate's API (random boards take a `rand` generator; the
/// seeded helpers use `rand_xoshiro`'s), re-exported so that a caller's generator is of the
/// version the API expects.
pub use {rand, rand_xoshiro};

/// `1 mine`, `2 mines`: a count and its noun, for error messages.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// This crate's README: its examples run as doctests, so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
