//! Battleship: rules as data, a seeded game engine, exact and uniformly sampled posteriors over
//! fleets (on csp-core's placement variables), shooters from random fire to the exact
//! posterior, and fleet placers.
//!
//! - [`Rules`]: board size (up to 128 cells), the fleet as named ship lengths, the adjacency
//!   rule ([`Adjacency::Allowed`] or [`Adjacency::NoTouch`]), what the defender reveals
//!   ([`Feedback`]) and the salvo size; [`Geometry`] is what is derived from them once.
//! - [`Fleet`]: a validated placement of every ship; [`Fleet::random`] is exactly uniform;
//!   [`read_fleets`] reads the JSON-lines fleet files.
//! - [`Game`] answers shots; [`View`] is what the shooter knows.
//! - [`infer`]: the observations as a [`csp_core::PlacementCsp`] and the posterior hit
//!   probabilities, exact ([`infer::exact_posterior`]) or sampled by a Markov chain when
//!   exact counting exceeds its budget ([`infer::posterior`] says which).
//! - [`shooters`]: the [`Shooter`] trait and every strategy ([`ShooterKind`]).
//! - [`optimal`]: exact expected shot counts on small boards (optimal and greedy play), and
//!   the exact one-step improvement of greedy play used by the default shooter near the end.
//! - [`play`], [`seeded_fleet`], [`Placer`]: seeded games and fleets.
//! - [`text`]: positions as text (`.` unknown, `o` miss, `x` hit, `s` sunk).
//!
//! # Example
//!
//! ```
//! use battleship::{Geometry, Placer, Rules, ShooterKind, game_seed, play, seeded_fleet};
//!
//! let geo = Geometry::new(&Rules::standard())?;
//! let fleet = seeded_fleet(&geo, Placer::Uniform, 7, 0)?;
//! let mut shooter = ShooterKind::HuntTargetParity.build();
//! let record = play(&geo, fleet, shooter.as_mut(), game_seed(8, 0));
//! assert!(record.error.is_none());
//! // 17 ship cells: at least 17 shots, at most 100.
//! assert!((17..=100).contains(&record.shots));
//!
//! // The exact posterior of a position: one hit in the middle of a 6x6 board, ships 3 and 2.
//! use battleship::{ShipSpec, infer, text};
//! let rules = Rules {
//!     width: 6,
//!     height: 6,
//!     fleet: vec![ShipSpec::new("Cruiser", 3), ShipSpec::new("Patrol", 2)],
//!     ..Rules::standard()
//! };
//! let pos = text::read("......\n......\n..x...\n......\n......\n......\n")?;
//! let view = pos.view(&rules)?;
//! let post = infer::exact_posterior(&view, &battleship::csp_core::Budget::default())?;
//! assert_eq!(post.hit[2 * 6 + 2], 1.0);
//! // A neighbour of the hit is far more likely than a corner.
//! assert!(post.hit[2 * 6 + 3] > 3.0 * post.hit[0]);
//! # Ok::<(), battleship::Error>(())
//! ```
#![deny(missing_docs)]

mod fleet;
mod game;
pub mod infer;
mod json;
pub mod optimal;
mod rules;
pub mod shooters;
mod sim;
pub mod text;

/// The constraint engine this crate builds on, re-exported so that the types of its API
/// (`Budget`, `CspError`) need no dependency of their own.
pub use csp_core;
pub use fleet::{Dir, Fleet, ShipPlacement, read_fleet, read_fleets};
pub use game::{Game, Shot, Sunk, View, cells_xy, xy};
pub use rules::{Adjacency, Feedback, Geometry, MAX_CELLS, MAX_SHIPS, Rules, ShipSpec, cells_of};
pub use shooters::{Decision, Shooter, ShooterKind};
pub use sim::{
    ANTI_DENSITY_CANDIDATES, ANTI_DENSITY_DRAWS, GameRecord, Placer, game_seed, play, seeded_fleet,
    shooter_seed,
};
/// The random-number crates of this crate's API (`Fleet::random` and the shooters take a
/// `rand` generator; the seeded helpers use `rand_xoshiro`'s), re-exported so that a
/// caller's generator is of the version the API expects.
pub use {rand, rand_xoshiro};

/// Every error of the crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The rules are not valid (or the name of a rule set is unknown).
    #[error("invalid rules: {0}")]
    Rules(String),
    /// The name of a shooter, placer, feedback or adjacency rule is not one of the known
    /// ones.
    #[error("unknown {kind} `{name}` (expected {expected})")]
    UnknownName {
        /// What was named: `shooter`, `placer`, `feedback` or `adjacency rule`.
        kind: &'static str,
        /// The name given.
        name: String,
        /// The known names.
        expected: String,
    },
    /// The fleet cannot be placed on the board.
    #[error("the fleet cannot fit: {0}")]
    FleetDoesNotFit(String),
    /// No uniformly random fleet could be drawn within the samplers' budgets (the fleet
    /// may fit, but too tightly for rejection sampling, and with too many fleets to count).
    #[error("could not draw a random fleet: {0}")]
    DrawFailed(String),
    /// A fleet breaks the rules (overlap, out of bounds, touching under no-touch).
    #[error("invalid fleet: {0}")]
    InvalidFleet(String),
    /// A shot at a cell that is not on the board.
    #[error("invalid shot: cell {cell} is off the board")]
    OffBoard {
        /// The cell shot at.
        cell: usize,
    },
    /// A shot at a cell already shot.
    #[error("invalid shot: cell {cell} was already shot")]
    AlreadyShot {
        /// The cell shot at.
        cell: usize,
    },
    /// A shot after every ship was sunk.
    #[error("invalid shot: the game is over")]
    GameOver,
    /// A shooter was asked for a shot with no unshot cell left.
    #[error("invalid shot: no cell is left to shoot")]
    NoCellLeft,
    /// Any other shot or answer the rules do not allow: an answer that names a ship that
    /// does not exist or that the feedback rule does not name, masks that overlap, a shot
    /// a shooter may not choose in a salvo turn.
    #[error("invalid shot: {0}")]
    Shot(String),
    /// A fleet file line that reads as a fleet the rules do not allow: `error` says why
    /// (an [`Error::InvalidFleet`]; the message includes it, so it is not given as the
    /// error's source, which would repeat it in a chain of errors).
    #[error("line {line}: {error}")]
    FleetLine {
        /// The 1-based line.
        line: usize,
        /// What is wrong with the fleet.
        error: Box<Error>,
    },
    /// A malformed file line.
    #[error("line {line}: {message}")]
    Parse {
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A game's view written as text ([`text::TextPosition::from_view`]) whose sunk ships'
    /// cells it cannot tell: which hits are sunk and which afloat.
    #[error("cannot write the position as text: {0}")]
    AmbiguousSinking(String),
    /// No fleet is consistent with the observations.
    #[error("no fleet is consistent with the observations")]
    Inconsistent,
    /// An exact computation would exceed its size limits.
    #[error("too large for an exact computation: {0}")]
    TooLarge(String),
    /// A posterior given with a position is not one of that position's (another board or
    /// fleet).
    #[error("the posterior is not the position's: {0}")]
    Mismatch(String),
    /// The constraint engine failed (budget exceeded, ...).
    #[error("constraint engine: {0}")]
    Csp(#[from] csp_core::CspError),
}

/// This crate's README: its examples run as doctests, so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
