//! The text position format: one row per line, `.` unknown, `o` miss, `x` hit, `s` a cell of
//! a sunk ship.
//!
//! The format does not say which ship sank where. For inference the `s` cells are the union
//! of the sunk ships: each lies wholly inside them, and every ship not among them is afloat,
//! so it is not wholly hit (see [`infer::problem`](crate::infer::problem)). Only rules that
//! announce sinkings can have `s` cells ([`TextPosition::view`]).

use std::sync::Arc;

use crate::Error;
use crate::game::View;
use crate::rules::{Geometry, MAX_CELLS, Rules};

/// A parsed position: its size and masks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPosition {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Missed cells.
    pub misses: u128,
    /// Hit cells of ships not known to be sunk.
    pub hits: u128,
    /// Cells of sunk ships.
    pub sunk: u128,
}

impl TextPosition {
    /// The view of this position under `rules` (whose width and height are replaced by the
    /// position's).
    ///
    /// # Errors
    /// When the rules do not fit the position's board ([`Error::Rules`],
    /// [`Error::FleetDoesNotFit`]), or the position has sunk cells under rules that never
    /// announce a sinking ([`Feedback::Bare`](crate::Feedback::Bare); [`Error::Rules`]), or
    /// its masks overlap (a position built by hand; [`Error::Shot`]).
    pub fn view(&self, rules: &Rules) -> Result<View, Error> {
        if self.sunk != 0 && !rules.feedback.reports_sunk() {
            return Err(Error::Rules(format!(
                "the position has sunk cells (`s`), but under `{}` feedback no sinking is \
                 announced: mark those cells as hits (`x`)",
                rules.feedback.name()
            )));
        }
        let r = Rules {
            width: self.width,
            height: self.height,
            ..rules.clone()
        };
        let geo: Arc<Geometry> = Geometry::new(&r)?;
        View::from_masks(geo, self.misses, self.hits, self.sunk)
    }
}

/// Reads a position. Accepts lines ended by LF, CRLF or CR alone, trailing spaces, blank
/// lines before and after the rows and a UTF-8 byte-order mark at the start.
///
/// # Errors
/// [`Error::Parse`] with the line (and column in the message): unknown characters, rows of
/// different lengths, a blank line between rows, an empty input or more than 128 cells.
pub fn read(input: &str) -> Result<TextPosition, Error> {
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    // A CR alone ends a line too (as old Mac editors write), a CRLF once.
    let lines: Vec<&str> = input
        .split('\n')
        .flat_map(|l| l.strip_suffix('\r').unwrap_or(l).split('\r'))
        .map(str::trim_end)
        .collect();
    let (Some(first), Some(last)) = (
        lines.iter().position(|r| !r.is_empty()),
        lines.iter().rposition(|r| !r.is_empty()),
    ) else {
        return Err(Error::Parse {
            line: 1,
            message: "the position is empty".into(),
        });
    };
    let rows = &lines[first..=last];
    let width = rows[0].chars().count();
    let mut p = TextPosition {
        width,
        height: rows.len(),
        misses: 0,
        hits: 0,
        sunk: 0,
    };
    for (y, row) in rows.iter().enumerate() {
        let line = first + y + 1;
        let len = row.chars().count();
        if len == 0 {
            return Err(Error::Parse {
                line,
                message: "a blank line between rows".into(),
            });
        }
        if len != width {
            return Err(Error::Parse {
                line,
                message: format!("row has {len} cells, the first row has {width}"),
            });
        }
        if width * (y + 1) > MAX_CELLS {
            return Err(Error::Parse {
                line,
                message: format!("more than {MAX_CELLS} cells"),
            });
        }
        for (x, ch) in row.chars().enumerate() {
            let m = 1u128 << (y * width + x);
            match ch {
                '.' => {}
                'o' | 'O' => p.misses |= m,
                'x' | 'X' => p.hits |= m,
                's' | 'S' => p.sunk |= m,
                _ => {
                    return Err(Error::Parse {
                        line,
                        message: format!(
                            "column {}: unknown character `{}` (expected `.`, `o`, `x` or `s`)",
                            x + 1,
                            ch.escape_debug()
                        ),
                    });
                }
            }
        }
    }
    Ok(p)
}

/// Writes a position (inverse of [`read`]).
///
/// # Errors
/// [`Error::Rules`] for a position [`read`] could not give back (built by hand): no cells,
/// or more than the 128 its masks hold.
pub fn write(p: &TextPosition) -> Result<String, Error> {
    let cells = p.width.checked_mul(p.height);
    if !cells.is_some_and(|n| (1..=MAX_CELLS).contains(&n)) {
        return Err(Error::Rules(format!(
            "a {}x{} position: a position has 1 to {MAX_CELLS} cells",
            p.width, p.height
        )));
    }
    let mut s = String::with_capacity((p.width + 1) * p.height);
    let bit = |mask: u128, b: usize| mask >> b & 1 == 1;
    for y in 0..p.height {
        for x in 0..p.width {
            let b = y * p.width + x;
            s.push(if bit(p.misses, b) {
                'o'
            } else if bit(p.hits, b) {
                'x'
            } else if bit(p.sunk, b) {
                's'
            } else {
                '.'
            });
        }
        s.push('\n');
    }
    Ok(s)
}
