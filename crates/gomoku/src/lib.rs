//! Gomoku: the game, an incremental pattern evaluation, a threat-space solver and engines.
//!
//! - [`Board`]: sizes 5..=32, [`Rule::Freestyle`] (five or more wins) and
//!   [`Rule::ExactlyFive`] (an overline does not win), play/undo, Zobrist keys, a text diagram.
//! - [`pattern`]: what a stone makes along a line ([`Pattern`]: two .. five), precomputed for
//!   every 20-bit neighbourhood (five cells each side) into one table per rule (freestyle
//!   needs the middle 16 bits only).
//! - [`Position`]: the board plus per-cell line keys, pattern counts and scores updated
//!   incrementally around each move; [`Threat`] classifies a cell for one colour.
//! - [`ThreatSolver`]: VCF and VCT (sound) forced-win search, returning the winning line.
//! - [`BestFirstEngine`]: the classic arena best-first engine (a 65,536-entry window table,
//!   score minus visits), on search-core's [`best_first`](search_core::best_first) search.
//! - [`protocol`]: the Gomocup (piskvork) protocol: a never-panicking parser, a
//!   [`Brain`](protocol::Brain) state machine around any engine, and
//!   [`ExternalEngine`](protocol::ExternalEngine) to play external brains.
//! - [`Engine`] and the main engine [`AlphaBetaEngine`]: threat search first, then
//!   search-core's alpha-beta over [`SearchGame`] (threat-first move ordering, pattern
//!   evaluation), under a strict time budget, or a node budget ([`Budget`]) for games that
//!   replay exactly on any machine.
//!
//! # Example
//!
//! ```
//! use std::time::Duration;
//! use gomoku::{AlphaBetaEngine, Board, Engine, Rule};
//!
//! let mut board = Board::new(9, Rule::Freestyle)?;
//! let mut engine = AlphaBetaEngine::with_memo_bytes(1 << 20);
//! for _ in 0..6 {
//!     let m = engine.choose_move(&board, Duration::from_millis(30))?;
//!     board.play(m)?;
//! }
//! assert_eq!(board.history().len(), 6);
//! println!("{board}");
//! # Ok::<(), gomoku::GomokuError>(())
//! ```
#![deny(missing_docs)]

pub mod best_first_engine;
mod board;
mod engine;
mod error;
pub mod pattern;
mod position;
pub mod protocol;
mod search;
mod threat;

pub use best_first_engine::BestFirstEngine;
pub use board::{Board, Geometry, MAX_SIZE, MIN_SIZE, Move, PAD, Rule, Stone};
pub use engine::{AlphaBetaEngine, Budget, Engine, SearchInfo};
pub use error::GomokuError;
pub use pattern::Pattern;
pub use position::{Position, Threat, combine};
pub use search::SearchGame;
/// The search crate this one builds on, re-exported so that the types of its API (`Tuning`,
/// `best_first::BestFirstConfig`, `Score`) need no dependency of their own.
pub use search_core;
pub use threat::{ThreatLimits, ThreatSolver};

/// This crate's README: its examples run as doctests, so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
