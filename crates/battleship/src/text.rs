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
use crate::rules::{Geometry, MAX_CELLS, Rules, cell_bit, cells_of};

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

    /// The position of `view` in the text format: misses, hits, and as `s` the cells of the
    /// ships it knows to be sunk.
    ///
    /// A game's view records each sinking (which ship, at which cell, the hits made by then),
    /// not the ship's cells, so they are worked out here: a sunk ship holds its revealed cells
    /// ([`Feedback::SunkRevealsCells`](crate::Feedback::SunkRevealsCells)), or else lies on a
    /// line of its length through the cell that sank it, on cells hit by then, holding the
    /// hits named for it ([`Feedback::HitNamesShip`](crate::Feedback::HitNamesShip)) and
    /// none named for another; the sunk ships do not overlap. The text needs only the union
    /// of their cells. When every way of placing the sunk ships so gives the same union
    /// (always under those two feedback rules, and in most positions under the standard
    /// one), that is it; otherwise the exact count of the fleets that fit the whole view
    /// (misses, and the hits the ships afloat must cover) settles it where it can. Where even
    /// the whole view leaves it open (a 2 sunk in the middle of three hits, the third hit
    /// free to belong to a ship afloat), the text cannot say which hits are sunk and which
    /// are afloat, and the conversion is refused. Reading the text back gives a view that
    /// knows the sunk cells but not which ship sank where: the format says no more.
    ///
    /// ```
    /// use battleship::{Dir, Fleet, Game, Geometry, Rules, ShipPlacement, text};
    ///
    /// let geo = Geometry::new(&Rules::with_lengths(4, 3, &[3, 2]))?;
    /// let at = |x, y, dir| ShipPlacement { x, y, dir };
    /// let fleet = Fleet::new(&geo, vec![at(0, 0, Dir::Horizontal), at(3, 1, Dir::Vertical)])?;
    /// let mut game = Game::new(geo, fleet)?;
    /// for cell in [0, 1, 2, 3, 7, 11] {
    ///     game.shoot(cell)?; // the 3 sinks at cell 2, the 2 at cell 11
    /// }
    /// let pos = text::TextPosition::from_view(game.view())?;
    /// assert_eq!(text::write(&pos)?, "ssso\n...s\n...s\n");
    /// # Ok::<(), battleship::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AmbiguousSinking`] when the sunk ships' cells cannot be told from the view
    /// (see above), or when the count that would tell takes more than a million nodes;
    /// [`Error::Inconsistent`] when no fleet fits the view, and [`Error::TooLarge`] when
    /// telling takes more than a million steps (views built by hand).
    pub fn from_view(view: &View) -> Result<TextPosition, Error> {
        let geo = view.geometry();
        let rules = geo.rules();
        let named_all = (0..rules.fleet.len()).fold(0, |m, i| m | view.named(i));
        let mut candidates: Vec<Vec<u128>> = Vec::new();
        for (ship, sunk) in view.sunk().iter().enumerate() {
            let Some(sunk) = sunk else { continue };
            let named = view.named(ship);
            let others = named_all & !named;
            let list: Vec<u128> = match sunk.cells {
                Some(cells) => vec![cells],
                None => geo
                    .placements(ship)
                    .filter(|&c| {
                        c & cell_bit(sunk.at) != 0
                            && c & !sunk.hits_then == 0
                            && named & !c == 0
                            && c & others == 0
                    })
                    .collect(),
            };
            candidates.push(list);
        }
        let mut unions = Vec::new();
        let mut visits = 0;
        sunk_unions(&candidates, 0, 0, &mut unions, &mut visits);
        if visits > SUNK_UNION_VISITS {
            return Err(Error::TooLarge(format!(
                "telling which hits {} sunk ships hold took more than {SUNK_UNION_VISITS} steps",
                candidates.len()
            )));
        }
        let union = match unions[..] {
            [] => return Err(Error::Inconsistent),
            [one] => one,
            _ => settled_union(view, unions[0] ^ unions[1])?,
        };
        Ok(TextPosition {
            width: rules.width,
            height: rules.height,
            misses: view.misses(),
            hits: view.hits() & !union,
            sunk: view.sunk_cells() | union,
        })
    }
}

/// Nodes the exact count of the fleets may take to settle the sunk ships' cells where the
/// sinkings alone leave them open.
const SETTLE_NODES: u64 = 1_000_000;

/// The union of the sunk ships' cells in every fleet consistent with `view`, from the exact
/// posterior: where the sinkings alone allow several (differing on `open`), the rest of the
/// view (misses, the hits the ships afloat must cover) may still settle it.
fn settled_union(view: &View, open: u128) -> Result<u128, Error> {
    let geo = view.geometry();
    let cells = |mask: u128| {
        cells_of(mask)
            .map(|c| {
                let (x, y) = crate::xy(geo, c);
                format!("{x},{y}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let budget = csp_core::Budget {
        max_nodes: SETTLE_NODES,
    };
    let post = match crate::infer::exact_posterior(view, &budget) {
        Ok(post) => post,
        Err(Error::Csp(csp_core::CspError::BudgetExceeded { .. })) => {
            return Err(Error::AmbiguousSinking(format!(
                "the sinkings alone do not say whether the hits at {} belong to sunk ships, and \
                 counting the fleets that fit the view took more than {SETTLE_NODES} nodes",
                cells(open)
            )));
        }
        Err(e) => return Err(e),
    };
    // The chance that a sunk ship covers each cell: 0 or 1 everywhere when the union is
    // settled (the sunk ships never overlap).
    let mut share = vec![0.0; geo.rules().cells()];
    for (ship, sunk) in view.sunk().iter().enumerate() {
        if sunk.is_some() {
            for &(mask, p) in post.ships.get(ship).map_or(&[][..], Vec::as_slice) {
                for c in cells_of(mask) {
                    share[c] += p;
                }
            }
        }
    }
    let (mut union, mut unsettled) = (0u128, 0u128);
    for (c, &p) in share.iter().enumerate() {
        if p > 1.0 - 1e-9 {
            union |= cell_bit(c);
        } else if p > 1e-9 {
            unsettled |= cell_bit(c);
        }
    }
    if unsettled == 0 {
        Ok(union)
    } else {
        Err(Error::AmbiguousSinking(format!(
            "the view does not say whether the hits at {} belong to sunk ships",
            cells(unsettled)
        )))
    }
}

/// The most partial choices [`TextPosition::from_view`] tries when working out the sunk
/// ships' cells: far more than real positions take (a handful of sunk ships with a few
/// lines each), a bound for views built by hand with many ships sunk on a block of hits.
const SUNK_UNION_VISITS: u64 = 1_000_000;

/// Collects into `unions` the distinct unions of one disjoint choice per sunk ship from
/// `candidates[k..]` on top of `used`, stopping once two are known or past
/// [`SUNK_UNION_VISITS`] (counted in `visits`).
fn sunk_unions(
    candidates: &[Vec<u128>],
    k: usize,
    used: u128,
    unions: &mut Vec<u128>,
    visits: &mut u64,
) {
    *visits += 1;
    if unions.len() > 1 || *visits > SUNK_UNION_VISITS {
        return;
    }
    let Some(list) = candidates.get(k) else {
        if !unions.contains(&used) {
            unions.push(used);
        }
        return;
    };
    for &c in list {
        if c & used == 0 {
            sunk_unions(candidates, k + 1, used | c, unions, visits);
        }
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
