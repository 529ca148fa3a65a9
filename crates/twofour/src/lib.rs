//! The TwoFour pile game: rules, an exact solver, and the olympiad input/output format.
//!
//! N piles hold 0 to 4 balls each, 2N balls in all. A move takes one ball from a pile and puts
//! it on another, allowed when the receiver then holds no more balls than the giver keeps. A
//! pile that a move leaves with exactly two balls belongs to the player who moved; any other
//! touched pile loses its owner. At the start, the two-ball piles are dealt alternately,
//! starting with the second player. The first player moves first. When no move is left (every
//! pile holds two), the owner of more piles wins; equal is a draw.
//!
//! The game always ends (each move lowers the sum of the squared pile sizes by at least 2), so
//! it can be solved exactly. [`TwoFourSolver`] does it on `search-core` at five levels
//! ([`Level`]): the article's four (plain depth-first search, merged move kinds, a memo on
//! canonical kind counts, and the player-swap duality) and a multiset form that solves a
//! game of a thousand piles in about a minute and a half, and the next ones of the same size
//! far faster from what its memo keeps (three in 108 s, measured with a 4 GiB memo; see
//! `docs/PERFORMANCE.md`).
//!
//! # Example
//!
//! ```
//! use twofour::{parse, write_results, Level, TwoFourSolver};
//!
//! let input = "5 4\n0 3 4 1 2\n2 2 2 2 2\n1 1 2 2 4\n4 3 2 1 0\n";
//! let problem = parse(input)?;
//! let mut solver = TwoFourSolver::new(Level::Multiset);
//! let results: Vec<_> = problem.games().iter().map(|g| solver.solve(g)).collect();
//! assert_eq!(write_results(&results), "1\n2\n1\n1\n");
//!
//! // The optimal line of the first game, move by move.
//! let line = solver.principal_line(&problem.games()[0]);
//! assert_eq!(line[0].to_string(), "pile 2 (3) -> pile 4 (1)");
//! # Ok::<(), twofour::ParseError>(())
//! ```
#![deny(missing_docs)]

mod format;
mod position;
mod random;
mod rules;
mod solver;

pub use format::{
    Games, ParseError, ParseErrorKind, Problem, ProblemError, parse, parse_bytes, read_games,
    read_games_bytes, write_results,
};
pub use position::{
    Counts, KindMove, MAX_PILES, MIN_PILES, Move, Multiset, Position, PositionError, check_piles,
};
pub use random::random_game;
pub use rules::{Pile, Player, Winner};
/// The search crate this one builds on, re-exported so that the types of its API
/// (`Outcome`, `Stats`, and the `Game` trait whose `play` and `undo` step a [`Position`])
/// need no dependency of their own. `Game::play` trusts its move, as searches need it to
/// (a move from `Game::moves` of the same position); a move from elsewhere can leave the
/// position broken without a word, or panic (a pile index past the end; a count that
/// overflows, in a build with overflow checks): use [`Position::play_move`], which checks it.
pub use search_core;
pub use solver::{
    DEFAULT_MEMO_BYTES, Level, MAX_SUGGESTED_MEMO_BYTES, TwoFourSolver, UnknownLevel,
    memo_bytes_for, solve,
};
/// `rand`, whose `Rng` [`random_game`] takes, and `rand_xoshiro`, for a seeded one,
/// re-exported so that a caller's generator is of the versions this crate was built with.
pub use {rand, rand_xoshiro};

/// This crate's README: its examples run as doctests, so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
