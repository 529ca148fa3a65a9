//! Board sizes and mine counts: the three classic levels and custom `WxHxM` ones.

use std::fmt;
use std::str::FromStr;

use rand::Rng;

use crate::board::{Board, BoardError, FirstClick, check_size};

/// A board size and mine count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Level {
    /// The number of columns.
    pub width: usize,
    /// The number of rows.
    pub height: usize,
    /// The number of mines.
    pub mines: usize,
}

/// A level string that does not parse ([`Level::from_str`]), or a first click that does not
/// fit the level ([`Level::start_cell`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LevelError {
    /// Neither a level name nor `WxHxM`.
    #[error(
        "unknown level `{0}`: expected beginner, intermediate, expert or WxHxM (such as 30x16x99)"
    )]
    Unknown(String),
    /// A well-formed `WxHxM` that is not a valid board.
    #[error("invalid level `{text}`: {source}")]
    Invalid {
        /// The level string.
        text: String,
        /// Why the board is invalid.
        source: BoardError,
    },
    /// A first-click cell that is neither `corner`, `centre` nor `X,Y`.
    #[error("start `{0}`: expected corner, centre or X,Y")]
    Start(String),
    /// A `WxHxM` level or an `X,Y` start with a number past the largest `usize`, which no
    /// board comes near.
    #[error("`{0}`: a number is too large for any board (at most 255x255 cells)")]
    NumberTooLarge(String),
    /// A first-click cell outside the board.
    #[error("start {x},{y} is outside the {width}x{height} board")]
    StartOutside {
        /// The column asked for.
        x: usize,
        /// The row asked for.
        y: usize,
        /// The board's width.
        width: usize,
        /// The board's height.
        height: usize,
    },
}

impl Level {
    /// 9x9 with 10 mines.
    pub const BEGINNER: Level = Level {
        width: 9,
        height: 9,
        mines: 10,
    };
    /// 16x16 with 40 mines.
    pub const INTERMEDIATE: Level = Level {
        width: 16,
        height: 16,
        mines: 40,
    };
    /// 30x16 (30 columns, 16 rows) with 99 mines.
    pub const EXPERT: Level = Level {
        width: 30,
        height: 16,
        mines: 99,
    };

    /// A validated level: sides from 1 to 255 and at least one safe cell.
    ///
    /// # Errors
    /// A side of 0 or past 255, or as many mines as cells.
    pub fn new(width: usize, height: usize, mines: usize) -> Result<Level, BoardError> {
        check_size(width, height)?;
        let cells = width * height;
        if mines >= cells {
            return Err(BoardError::TooManyMines { mines, cells });
        }
        Ok(Level {
            width,
            height,
            mines,
        })
    }

    /// The number of cells, `width * height` (saturating at `usize::MAX` for a level built
    /// by hand past the sizes [`Level::new`] accepts).
    pub fn cells(&self) -> usize {
        self.width.saturating_mul(self.height)
    }

    /// The mine density, `mines / cells`.
    pub fn density(&self) -> f64 {
        self.mines as f64 / self.cells().max(1) as f64
    }

    /// The cell index of a first click given as `corner` (0,0), `centre` (or `center`:
    /// column `width / 2`, row `height / 2`), in any ASCII case, or `X,Y` (zero-based column
    /// and row, in digits).
    ///
    /// ```
    /// use minesweeper::Level;
    ///
    /// assert_eq!(Level::EXPERT.start_cell("corner"), Ok(0));
    /// assert_eq!(Level::EXPERT.start_cell("3,3"), Ok(3 * 30 + 3));
    /// assert_eq!(Level::BEGINNER.start_cell("centre"), Ok(4 * 9 + 4));
    /// assert!(Level::BEGINNER.start_cell("9,0").is_err());
    /// ```
    ///
    /// # Errors
    /// A spec of none of these forms, a number too large to read, a level that is no board
    /// (built by hand), or a cell off the board.
    pub fn start_cell(&self, spec: &str) -> Result<usize, LevelError> {
        let (w, h) = (self.width, self.height);
        let spec_t = spec.trim();
        let named = |name: &str| spec_t.eq_ignore_ascii_case(name);
        // Digits only, as in `WxHxM`: `usize::from_str` would also take a leading `+`.
        let number = |s: &str| {
            let s = s.trim();
            all_digits(s).then(|| s.parse::<usize>().ok()).flatten()
        };
        let (x, y) = if named("corner") {
            (0, 0)
        } else if named("centre") || named("center") {
            (w / 2, h / 2)
        } else {
            let Some((x, y)) = spec_t.split_once(',') else {
                return Err(LevelError::Start(spec.to_string()));
            };
            match (number(x), number(y)) {
                (Some(x), Some(y)) => (x, y),
                _ if all_digits(x.trim()) && all_digits(y.trim()) => {
                    return Err(LevelError::NumberTooLarge(spec.to_string()));
                }
                _ => return Err(LevelError::Start(spec.to_string())),
            }
        };
        // A level built by hand may be no board at all (0 wide, or larger than any board):
        // say so before judging the cell against its sides.
        check_size(w, h).map_err(|source| LevelError::Invalid {
            text: self.to_string(),
            source,
        })?;
        if x >= w || y >= h {
            return Err(LevelError::StartOutside {
                x,
                y,
                width: w,
                height: h,
            });
        }
        Ok(y * w + x)
    }

    /// A random board of this level: see [`Board::random`].
    ///
    /// # Errors
    /// As [`Board::random`]: a level that is no board (built by hand), `start` off the board,
    /// or too many mines for the first-click rule.
    pub fn random_board<R: Rng + ?Sized>(
        &self,
        rule: FirstClick,
        start: usize,
        rng: &mut R,
    ) -> Result<Board, BoardError> {
        Board::random(self.width, self.height, self.mines, rule, start, rng)
    }
}

/// Whether `s` is a non-empty run of ASCII digits.
fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Parses `WxHxM` (three decimal numbers separated by `x` or `X`), without validation.
pub(crate) fn parse_dims(s: &str) -> Option<(usize, usize, usize)> {
    let mut parts = s.split(['x', 'X']);
    let mut next = || -> Option<usize> {
        let p = parts.next()?;
        all_digits(p).then(|| p.parse().ok()).flatten()
    };
    let dims = (next()?, next()?, next()?);
    parts.next().is_none().then_some(dims)
}

impl FromStr for Level {
    type Err = LevelError;

    /// Parses `beginner`, `intermediate`, `expert` (any ASCII case) or `WxHxM` such as
    /// `30x16x99` (width, height, mines).
    fn from_str(s: &str) -> Result<Level, LevelError> {
        let t = s.trim();
        for (name, level) in [
            ("beginner", Level::BEGINNER),
            ("intermediate", Level::INTERMEDIATE),
            ("expert", Level::EXPERT),
        ] {
            if t.eq_ignore_ascii_case(name) {
                return Ok(level);
            }
        }
        let Some((w, h, m)) = parse_dims(t) else {
            // Digits too many to be a number: `WxHxM` all the same, and past any board.
            let parts: Vec<&str> = t.split(['x', 'X']).collect();
            return Err(if parts.len() == 3 && parts.iter().all(|p| all_digits(p)) {
                LevelError::NumberTooLarge(s.to_string())
            } else {
                LevelError::Unknown(s.to_string())
            });
        };
        Level::new(w, h, m).map_err(|source| LevelError::Invalid {
            text: s.to_string(),
            source,
        })
    }
}

/// Writes `WxHxM`, which [`Level::from_str`] reads back for a valid level (one that
/// [`Level::new`] accepts; a level built by hand with more mines than cells is written, and
/// refused when read).
impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}x{}", self.width, self.height, self.mines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_levels() {
        assert_eq!("beginner".parse(), Ok(Level::BEGINNER));
        assert_eq!("Intermediate".parse(), Ok(Level::INTERMEDIATE));
        assert_eq!(" expert ".parse(), Ok(Level::EXPERT));
        assert_eq!("30x16x99".parse(), Ok(Level::EXPERT));
        assert_eq!(
            "8X5x3".parse(),
            Ok(Level {
                width: 8,
                height: 5,
                mines: 3
            })
        );
        assert_eq!(Level::EXPERT.to_string(), "30x16x99");
    }

    #[test]
    fn level_errors() {
        let err = |s: &str| s.parse::<Level>().unwrap_err().to_string();
        let unknown = |s: &str| {
            format!(
                "unknown level `{s}`: expected beginner, intermediate, expert or WxHxM (such as 30x16x99)"
            )
        };
        for s in [
            "hard",
            "",
            "30x16",
            "30x16x99x1",
            "+3x3x1",
            "3x-3x1",
            "ax3x1",
        ] {
            assert_eq!(err(s), unknown(s));
        }
        assert_eq!(
            err("0x5x1"),
            "invalid level `0x5x1`: board size 0x5 is empty: width and height must be at least 1"
        );
        assert_eq!(
            err("300x5x1"),
            "invalid level `300x5x1`: board size 300x5 is too large: width and height must be at most 255"
        );
        assert_eq!(
            err("3x3x9"),
            "invalid level `3x3x9`: no safe cell is left with 9 mines on a board of 9 cells"
        );
    }

    #[test]
    fn cells_and_density() {
        assert_eq!(Level::EXPERT.cells(), 480);
        assert_eq!(Level::BEGINNER.cells(), 81);
        assert!((Level::EXPERT.density() - 99.0 / 480.0).abs() < 1e-15);
        assert!((Level::INTERMEDIATE.density() - 0.15625).abs() < 1e-15);
        // The most mines a level may have leaves one safe cell.
        assert_eq!(Level::new(3, 2, 5).map(|l| l.density()), Ok(5.0 / 6.0));
    }

    #[test]
    fn levels_built_by_hand_past_the_sizes_neither_overflow_nor_panic() {
        let huge = Level {
            width: 1 << 40,
            height: 1 << 40,
            mines: 0,
        };
        assert_eq!(huge.cells(), usize::MAX);
        assert!(huge.density() == 0.0);
        assert!(matches!(
            huge.start_cell(&format!("0,{}", (1u64 << 40) - 1)),
            Err(LevelError::Invalid {
                source: BoardError::TooLarge { .. },
                ..
            })
        ));
        let empty = Level {
            width: 0,
            height: 3,
            mines: 0,
        };
        // No board at all: said as such, not as a cell outside it.
        assert!(matches!(
            empty.start_cell("corner"),
            Err(LevelError::Invalid {
                source: BoardError::EmptySize { .. },
                ..
            })
        ));
    }

    /// A number too large for `usize` is named as such, not as an unknown level or start.
    #[test]
    fn numbers_past_usize_are_too_large() {
        let big = "99999999999999999999";
        for level in [format!("{big}x1x1"), format!("9x9x{big}")] {
            assert_eq!(
                level.parse::<Level>(),
                Err(LevelError::NumberTooLarge(level.clone()))
            );
        }
        assert!(matches!(
            format!("{big}x1").parse::<Level>(),
            Err(LevelError::Unknown(_))
        ));
        assert!(matches!(
            format!("9 x9x{big}").parse::<Level>(),
            Err(LevelError::Unknown(_))
        ));
        let start = format!("{big}, 0");
        assert_eq!(
            Level::BEGINNER.start_cell(&start),
            Err(LevelError::NumberTooLarge(start.clone()))
        );
        assert!(
            LevelError::NumberTooLarge(start)
                .to_string()
                .contains("too large for any board")
        );
        assert!(matches!(
            Level::BEGINNER.start_cell(&format!("{big},a")),
            Err(LevelError::Start(_))
        ));
    }

    #[test]
    fn start_cells() {
        let l = Level::INTERMEDIATE;
        assert_eq!(l.start_cell(" corner "), Ok(0));
        assert_eq!(l.start_cell("center"), Ok(8 * 16 + 8));
        assert_eq!(l.start_cell("15, 2"), Ok(2 * 16 + 15));
        // Names in any ASCII case, as level names; numbers in digits only, as in `WxHxM`.
        assert_eq!(l.start_cell("Corner"), Ok(0));
        assert_eq!(l.start_cell("CENTRE"), Ok(8 * 16 + 8));
        let err = |s: &str| l.start_cell(s).unwrap_err().to_string();
        assert_eq!(err("16,0"), "start 16,0 is outside the 16x16 board");
        assert_eq!(err("0,16"), "start 0,16 is outside the 16x16 board");
        for s in [
            "middle", "3", "3,", "-1,2", "1,2,3", "+3,2", "3,+2", "3 4,2",
        ] {
            assert_eq!(
                err(s),
                format!("start `{s}`: expected corner, centre or X,Y")
            );
        }
    }
}
