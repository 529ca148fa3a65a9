//! Generic two-player game search.
//!
//! Implement [`Game`] (moves, play, undo, outcome) for a position type and this crate gives you:
//!
//! - [`minimax`]: plain negamax, the slow and obvious reference;
//! - [`alpha_beta`] and the [`Searcher`]: alpha-beta with a bounded transposition table,
//!   best-move-first ordering and iterative deepening under node, time and cancellation limits,
//!   with the enhancements of [`Tuning`] (principal variation search, killers, history,
//!   aspiration windows, late move reductions, forcing extensions, time prediction), symmetry
//!   as the solver has it ([`SearchConfig::symmetry`]), and every root move's score
//!   ([`Searcher::move_scores`]) for analysis;
//! - [`Solver`]: exact win/draw/loss solving with alpha-beta on three values, a bounded memo
//!   ([`MemoTable`]) keyed by a game-supplied canonical key ([`Keyed`]), symmetry (one solved
//!   position also answers its images), and merging of equivalent moves
//!   ([`Game::move_class`]), optionally under node, time and stop limits
//!   ([`Solver::solve_within`]);
//! - [`best_first`]: best-first search over a tree grown in a flat, memory-bounded arena, with
//!   selectable leaf-selection policies and tree reuse between moves;
//! - [`Stats`] counters on everything, so each optimisation's effect can be measured.
//!
//! Scores are seen from the side to move (negamax). Proven results carry their distance in
//! plies ([`Score`]), so the alpha-beta searches prefer quick wins and slow losses (the
//! best-first search stops at the first win it proves, which need not be the quickest).
//!
//! # Example
//!
//! A game of Nim where each player takes 1 or 2 stones and whoever takes the last one wins;
//! moves that take the same number of stones from equal piles are merged, and the memo key
//! forgets the order of the piles.
//!
//! ```
//! use search_core::{Game, Keyed, Outcome, Solver, SolverConfig};
//!
//! #[derive(Clone, Debug)]
//! struct Piles(Vec<u8>);
//!
//! impl Game for Piles {
//!     type Move = (usize, u8); // (pile, stones taken)
//!     fn generate_moves(&self, moves: &mut Vec<(usize, u8)>) {
//!         for (i, &n) in self.0.iter().enumerate() {
//!             moves.extend((1..=n.min(2)).map(|k| (i, k)));
//!         }
//!     }
//!     fn play(&mut self, &(i, k): &(usize, u8)) { self.0[i] -= k }
//!     fn undo(&mut self, &(i, k): &(usize, u8)) { self.0[i] += k }
//!     fn outcome(&self) -> Option<Outcome> {
//!         self.0.iter().all(|&n| n == 0).then_some(Outcome::Loss)
//!     }
//!     fn move_class(&self, &(i, k): &(usize, u8)) -> Option<u64> {
//!         Some(u64::from(self.0[i]) << 8 | u64::from(k))
//!     }
//! }
//!
//! impl Keyed for Piles {
//!     type Key = u64;
//!     fn key(&self) -> u64 {
//!         let mut piles = self.0.clone();
//!         piles.sort(); // pile order does not matter: a canonical key
//!         // Four bits a pile: one key per position for up to 16 piles of up to 15 (empty
//!         // piles aside, which change nothing); a key shared by two positions would make
//!         // the solver answer one with the other's result.
//!         debug_assert!(piles.len() <= 16 && piles.iter().all(|&n| n < 16));
//!         piles.iter().fold(0, |k, &n| k << 4 | u64::from(n))
//!     }
//! }
//!
//! let mut solver = Solver::new(SolverConfig::full(1 << 16));
//! let mut game = Piles(vec![3, 5, 4]);
//! // Piles matter modulo 3 here: 0 ^ 2 ^ 1 != 0, so the first player wins.
//! assert_eq!(solver.solve(&mut game), Outcome::Win);
//! assert!(solver.stats().merged_moves > 0);
//! // The solver leaves the position as it found it.
//! assert_eq!(game.0, vec![3, 5, 4]);
//! ```
#![deny(missing_docs)]

mod alphabeta;
pub mod best_first;
mod game;
mod memo;
pub mod minimax;
mod score;
mod solve;
mod stats;
pub mod synthetic;

pub use alphabeta::{Limits, MoveScore, SearchConfig, SearchResult, Searcher, Tuning, alpha_beta};
pub use game::{Evaluate, Game, Keyed, Outcome, generate_moves};
pub use memo::{Bound, FxHasher, MemoTable};
pub use score::Score;
pub use solve::{Solver, SolverConfig, best_moves_by, move_values_by, principal_line_by};
pub use stats::Stats;
