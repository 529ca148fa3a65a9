//! The crate's error type.

use thiserror::Error;

/// What can go wrong with a Gomoku board or engine.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GomokuError {
    /// The board side is outside the supported range.
    #[error("board size {0} is not supported (must be 5..=32)")]
    BadSize(usize),
    /// A move outside the board.
    #[error("move {x},{y} is off the {size}x{size} board")]
    OffBoard {
        /// Column.
        x: u8,
        /// Row.
        y: u8,
        /// Board side.
        size: usize,
    },
    /// A move on an occupied cell.
    #[error("cell {x},{y} is already occupied")]
    Occupied {
        /// Column.
        x: u8,
        /// Row.
        y: u8,
    },
    /// A move after the game ended (a five was made or the board is full).
    #[error("the game is over")]
    GameOver,
    /// An engine was asked for a move it cannot give (no legal move).
    #[error("no legal move: {0}")]
    NoMove(String),
    /// An external engine (a Gomocup brain run as a program) could not be started, stopped
    /// answering, or answered with something other than a legal move.
    #[error("external engine: {0}")]
    External(String),
    /// Text that does not describe a move or a position.
    #[error("cannot parse {0:?}")]
    Parse(String),
    /// A rule's name that is not one ([`Rule`](crate::Rule)'s `FromStr`).
    #[error("unknown rule {0:?} (freestyle or exactly-five)")]
    UnknownRule(String),
    /// A colour's name that is not one ([`Stone`](crate::Stone)'s `FromStr`).
    #[error("unknown colour {0:?} (black or white)")]
    UnknownColour(String),
    /// A node budget given to an engine that keeps to time budgets only (an external brain:
    /// see [`Budget`](crate::Budget)).
    #[error("the {0} engine cannot keep to a node budget: give it a time budget")]
    NodesUnsupported(String),
    /// Stones that no game reaches ([`Board::from_stones`](crate::Board::from_stones)): more
    /// white stones than black, or two or more black.
    #[error(
        "{black} black and {white} white stones: Black moves first, so Black has as many stones as White or one more"
    )]
    StoneCounts {
        /// Black stones given.
        black: usize,
        /// White stones given.
        white: usize,
    },
}
