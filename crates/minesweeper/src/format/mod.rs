//! Board and position file formats: [`mbf`] (binary boards) and [`text`] (player views).

pub mod mbf;
pub mod text;

use crate::position::Inconsistency;

/// Why reading an MBF board or a text position failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// MBF: fewer than the 4 header bytes.
    #[error("MBF data is {len} bytes long: too short for the 4-byte header")]
    MbfTooShort {
        /// The data length.
        len: usize,
    },
    /// MBF: zero width or height.
    #[error("MBF board size {width}x{height} is empty: width and height must be at least 1")]
    MbfEmptySize {
        /// The width byte.
        width: u8,
        /// The height byte.
        height: u8,
    },
    /// MBF: as many mines as cells, or more.
    #[error("MBF header declares {}, leaving no safe cell on a {width}x{height} board", crate::plural(usize::from(*mines), "mine"))]
    MbfTooManyMines {
        /// The declared mine count.
        mines: u16,
        /// The width byte.
        width: u8,
        /// The height byte.
        height: u8,
    },
    /// MBF: the data length is not `4 + 2 * mines`.
    #[error(
        "MBF data is {len} bytes long, expected {expected} (4 header bytes and 2 per mine for {})",
        crate::plural(usize::from(*mines), "mine")
    )]
    MbfLength {
        /// The data length.
        len: usize,
        /// `4 + 2 * mines`.
        expected: usize,
        /// The declared mine count.
        mines: u16,
    },
    /// MBF: a mine outside the board.
    #[error("MBF mine {index} at column {x}, row {y} is outside the {width}x{height} board")]
    MbfMineOutside {
        /// The mine's rank in the file, from 1.
        index: usize,
        /// Its column byte.
        x: u8,
        /// Its row byte.
        y: u8,
        /// The width byte.
        width: u8,
        /// The height byte.
        height: u8,
    },
    /// MBF: the same cell listed twice.
    #[error("MBF mine {index} at column {x}, row {y} repeats an earlier mine")]
    MbfDuplicateMine {
        /// The mine's rank in the file, from 1.
        index: usize,
        /// Its column byte.
        x: u8,
        /// Its row byte.
        y: u8,
    },
    /// Text: an error at a line (1-based) and, where it applies, a column (1-based, in
    /// characters).
    #[error("line {line}{}: {error}", column_suffix(.column))]
    Text {
        /// The line, from 1 (the header is line 1, the first row line 2).
        line: usize,
        /// The column, from 1, when the error is about one character.
        column: Option<usize>,
        /// What is wrong.
        error: TextError,
    },
}

fn column_suffix(column: &Option<usize>) -> String {
    column.map(|c| format!(", column {c}")).unwrap_or_default()
}

/// What is wrong in a text position ([`FormatError::Text`] adds the place).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TextError {
    /// No header line.
    #[error("empty input: expected a `WxHxM` header")]
    Empty,
    /// The first line is not `WxHxM`.
    #[error("bad header `{0}`: expected `WxHxM` (width, height, mines) such as `30x16x99`")]
    BadHeader(String),
    /// A width or height out of 1 to 255 (one too large to be a number at all makes the
    /// header a [`TextError::BadHeader`]).
    #[error("board size {width}x{height} is not allowed: width and height must be 1 to 255")]
    BadSize {
        /// The width given.
        width: usize,
        /// The height given.
        height: usize,
    },
    /// As many mines as cells, or more.
    #[error("no safe cell is left with {} on a board of {}", crate::plural(*mines, "mine"), crate::plural(*cells, "cell"))]
    TooManyMines {
        /// The mine count given.
        mines: usize,
        /// `width * height`.
        cells: usize,
    },
    /// The input ends before the last row.
    #[error("missing row: expected {expected} rows, found {found}")]
    MissingRows {
        /// The height.
        expected: usize,
        /// The rows present.
        found: usize,
    },
    /// A non-blank line after the last row.
    #[error("extra line after the {expected} rows of the board")]
    ExtraRow {
        /// The height.
        expected: usize,
    },
    /// A row of the wrong width (after trailing whitespace is removed).
    #[error("row is {found} characters wide, expected {expected}")]
    RowWidth {
        /// The width.
        expected: usize,
        /// The row's width.
        found: usize,
    },
    /// A character other than `H`, `F`, `M`, `0`-`8`.
    #[error("unknown character `{}` (expected H, F, M or 0-8)", .0.escape_debug())]
    UnknownChar(char),
    /// A cheap contradiction (at a cell, or on line 1 for the mine count).
    #[error(transparent)]
    Inconsistent(#[from] Inconsistency),
}
