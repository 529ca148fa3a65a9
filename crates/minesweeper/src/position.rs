//! The player's view of a game: what a solver receives.

use std::sync::Arc;

use crate::board::{BoardError, Grid, Neighbours};

/// What the player sees of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CellView {
    /// Not revealed and not flagged.
    #[default]
    Hidden,
    /// Not revealed, flagged by the player (a flag may be wrong).
    Flagged,
    /// A mine known for certain (for example the one that exploded).
    Mine,
    /// Revealed safe cell showing its number of adjacent mines.
    Revealed(u8),
}

/// The character of the text format ([`CellView::to_char`]).
impl std::fmt::Display for CellView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.to_char())
    }
}

impl CellView {
    /// The character of the text format: `H`, `F`, `M` or `0`-`8` (`?` for a number above 8,
    /// which no valid position holds).
    pub fn to_char(self) -> char {
        match self {
            CellView::Hidden => 'H',
            CellView::Flagged => 'F',
            CellView::Mine => 'M',
            CellView::Revealed(n @ 0..=8) => char::from(b'0' + n),
            CellView::Revealed(_) => '?',
        }
    }

    /// The cell of a text-format character, if it is one of `H`, `F`, `M`, `0`-`8`.
    pub fn from_char(c: char) -> Option<CellView> {
        match c {
            'H' => Some(CellView::Hidden),
            'F' => Some(CellView::Flagged),
            'M' => Some(CellView::Mine),
            '0'..='8' => Some(CellView::Revealed(c as u8 - b'0')),
            _ => None,
        }
    }

    /// Whether the cell is revealed (shows a number).
    pub fn is_revealed(self) -> bool {
        matches!(self, CellView::Revealed(_))
    }

    /// The number shown, if revealed.
    pub fn number(self) -> Option<u8> {
        match self {
            CellView::Revealed(n) => Some(n),
            _ => None,
        }
    }
}

/// A cheap local or global contradiction in a position (not a full consistency check).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Inconsistency {
    /// A revealed number above the cell's number of neighbours.
    #[error("revealed {number} but the cell has only {}", crate::plural(*neighbours, "neighbour"))]
    NumberTooLarge {
        /// The number shown.
        number: u8,
        /// The cell's neighbour count.
        neighbours: usize,
    },
    /// A revealed number above the count of its neighbours that are not revealed.
    #[error("revealed {number} with only {} not revealed", crate::plural(*unrevealed, "neighbouring cell"))]
    TooFewUnrevealed {
        /// The number shown.
        number: u8,
        /// Its neighbours that are hidden, flagged or known mines.
        unrevealed: usize,
    },
    /// A revealed number below the count of its neighbours that are known mines.
    #[error("revealed {number} beside {}", crate::plural(*known, "known mine"))]
    TooManyKnownMines {
        /// The number shown.
        number: u8,
        /// Its neighbours shown as known mines.
        known: usize,
    },
    /// More known mines than mines. Flags do not count: they are the player's marks, which
    /// may be wrong, and a position is read and solved with them taken as hidden cells.
    #[error("{} but only {} in all", crate::plural(*marked, "known mine"), crate::plural(*mines, "mine"))]
    TooManyMarked {
        /// Cells shown as known mines.
        marked: usize,
        /// The total mine count.
        mines: usize,
    },
    /// More mines than cells that are not revealed.
    #[error("{} but only {} not revealed", crate::plural(*mines, "mine"), crate::plural(*unrevealed, "cell"))]
    TooFewUnrevealedCells {
        /// The total mine count.
        mines: usize,
        /// Cells hidden, flagged or known mines.
        unrevealed: usize,
    },
}

/// Why [`Position::new`] rejects its input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PositionError {
    /// An invalid board: its size, or a mine total that leaves no safe cell.
    #[error(transparent)]
    Size(#[from] BoardError),
    /// The cell vector does not have `width * height` entries.
    #[error("expected {expected} cells, got {found}")]
    CellCount {
        /// `width * height`.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A contradiction at one cell.
    #[error("cell at column {x}, row {y}: {problem}")]
    Cell {
        /// The column (zero-based).
        x: usize,
        /// The row (zero-based).
        y: usize,
        /// The contradiction.
        problem: Inconsistency,
    },
    /// A contradiction between the mine count and the cells.
    #[error(transparent)]
    Global(Inconsistency),
}

/// The player's view of a game: size, total mine count and what each cell shows.
///
/// Cells are indexed row by row (`y * width + x`), like [`Board`](crate::Board).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    grid: Arc<Grid>,
    mines: usize,
    cells: Vec<CellView>,
}

/// The cheap structural checks of a position: a contradiction, with its cell if local.
pub(crate) fn check(
    grid: &Grid,
    mines: usize,
    cells: &[CellView],
) -> Result<(), (Option<usize>, Inconsistency)> {
    let mut marked = 0;
    let mut unrevealed = 0;
    for (cell, &view) in cells.iter().enumerate() {
        match view {
            CellView::Hidden | CellView::Flagged => unrevealed += 1,
            CellView::Mine => {
                marked += 1;
                unrevealed += 1;
            }
            CellView::Revealed(number) => {
                let neighbours = grid.neighbour_count(cell);
                if usize::from(number) > neighbours {
                    return Err((
                        Some(cell),
                        Inconsistency::NumberTooLarge { number, neighbours },
                    ));
                }
                let (mut open, mut known) = (0, 0);
                for n in grid.neighbours(cell) {
                    match cells.get(n) {
                        Some(CellView::Revealed(_)) => {}
                        Some(CellView::Mine) => {
                            open += 1;
                            known += 1;
                        }
                        _ => open += 1,
                    }
                }
                if usize::from(number) > open {
                    return Err((
                        Some(cell),
                        Inconsistency::TooFewUnrevealed {
                            number,
                            unrevealed: open,
                        },
                    ));
                }
                if usize::from(number) < known {
                    return Err((
                        Some(cell),
                        Inconsistency::TooManyKnownMines { number, known },
                    ));
                }
            }
        }
    }
    if marked > mines {
        return Err((None, Inconsistency::TooManyMarked { marked, mines }));
    }
    if mines > unrevealed {
        return Err((
            None,
            Inconsistency::TooFewUnrevealedCells { mines, unrevealed },
        ));
    }
    Ok(())
}

impl Position {
    /// A position of `width` x `height` cells (row by row) with `mines` mines in all.
    ///
    /// Runs cheap structural checks only (sizes, each number against its neighbourhood, the
    /// mine count against the known mines and the unrevealed cells; flags are a player's notes
    /// and are not counted); a position that passes may still have no consistent mine layout.
    ///
    /// # Errors
    /// An invalid size, a number of cells other than `width * height`, a number above its
    /// number of neighbours or of unrevealed neighbours or below its known-mine neighbours,
    /// more known mines than `mines`, or more mines than unrevealed cells.
    pub fn new(
        width: usize,
        height: usize,
        mines: usize,
        cells: Vec<CellView>,
    ) -> Result<Position, PositionError> {
        Position::new_in(Arc::new(Grid::new(width, height)?), mines, cells)
    }

    /// [`Position::new`] on an existing grid.
    ///
    /// # Errors
    /// As [`Position::new`], but for the size, which the grid has.
    pub fn new_in(
        grid: Arc<Grid>,
        mines: usize,
        cells: Vec<CellView>,
    ) -> Result<Position, PositionError> {
        if cells.len() != grid.len() {
            return Err(PositionError::CellCount {
                expected: grid.len(),
                found: cells.len(),
            });
        }
        if mines >= grid.len() {
            return Err(BoardError::TooManyMines {
                mines,
                cells: grid.len(),
            }
            .into());
        }
        check(&grid, mines, &cells).map_err(|(cell, problem)| match cell {
            Some(c) => {
                let (x, y) = grid.xy(c);
                PositionError::Cell { x, y, problem }
            }
            None => PositionError::Global(problem),
        })?;
        Ok(Position { grid, mines, cells })
    }

    /// An unchecked position (the caller guarantees `cells.len() == grid.len()`).
    pub(crate) fn from_parts(grid: Arc<Grid>, mines: usize, cells: Vec<CellView>) -> Position {
        Position { grid, mines, cells }
    }

    /// The grid (size and neighbour lists).
    pub fn grid(&self) -> &Arc<Grid> {
        &self.grid
    }

    /// The number of columns.
    pub fn width(&self) -> usize {
        self.grid.width()
    }

    /// The number of rows.
    pub fn height(&self) -> usize {
        self.grid.height()
    }

    /// The number of cells, `width * height`.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Always false: a position has at least one cell.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The total number of mines on the board (named as
    /// [`Board::mine_count`](crate::Board::mine_count) is: `Board::mines` lists the mined
    /// cells).
    pub fn mine_count(&self) -> usize {
        self.mines
    }

    /// Every cell, row by row.
    pub fn cells(&self) -> &[CellView] {
        &self.cells
    }

    /// One cell (`None` if out of range).
    pub fn get(&self, cell: usize) -> Option<CellView> {
        self.cells.get(cell).copied()
    }

    /// The cell at column `x`, row `y` (`None` if out of range).
    pub fn at(&self, x: usize, y: usize) -> Option<CellView> {
        if x < self.width() && y < self.height() {
            self.get(self.grid.cell(x, y))
        } else {
            None
        }
    }

    /// The up-to-8 neighbours of a cell (empty if out of range).
    pub fn neighbours(&self, cell: usize) -> Neighbours<'_> {
        self.grid.neighbours(cell)
    }

    /// The index of the cell at column `x`, row `y`: `y * width + x`, not checked (with
    /// wrapping arithmetic, so it never panics; off the board the result may be another
    /// cell's index, so check `x < width` and `y < height` first).
    pub fn cell(&self, x: usize, y: usize) -> usize {
        self.grid.cell(x, y)
    }

    /// The column and row of a cell index.
    pub fn xy(&self, cell: usize) -> (usize, usize) {
        self.grid.xy(cell)
    }

    /// The number of cells showing `view`.
    pub fn count(&self, view: CellView) -> usize {
        self.cells.iter().filter(|&&c| c == view).count()
    }

    /// The number of revealed cells.
    pub fn revealed_count(&self) -> usize {
        self.cells.iter().filter(|c| c.is_revealed()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CellView::{Flagged as F, Hidden as H, Mine as M, Revealed as R};

    #[test]
    fn chars_round_trip() {
        for c in "HFM012345678".chars() {
            assert_eq!(CellView::from_char(c).unwrap().to_char(), c);
            assert_eq!(CellView::from_char(c).unwrap().to_string(), c.to_string());
        }
        assert_eq!(CellView::from_char('9'), None);
        assert_eq!(R(9).to_char(), '?');
        assert_eq!(CellView::from_char('h'), None);
        assert_eq!(
            [R(0), R(7), H, F, M].map(CellView::number),
            [Some(0), Some(7), None, None, None]
        );
        assert_eq!(
            [R(3), H, F, M].map(CellView::is_revealed),
            [true, false, false, false]
        );
    }

    #[test]
    fn position_errors() {
        let e = |w, h, m, cells: Vec<CellView>| Position::new(w, h, m, cells).unwrap_err();
        assert_eq!(
            e(2, 2, 1, vec![H; 3]).to_string(),
            "expected 4 cells, got 3"
        );
        assert_eq!(
            e(0, 2, 1, vec![]).to_string(),
            "board size 0x2 is empty: width and height must be at least 1"
        );
        assert_eq!(
            e(2, 2, 4, vec![H; 4]).to_string(),
            "no safe cell is left with 4 mines on a board of 4 cells"
        );
        assert_eq!(
            e(2, 2, 1, vec![H, R(4), H, H]).to_string(),
            "cell at column 1, row 0: revealed 4 but the cell has only 3 neighbours"
        );
        assert_eq!(
            e(2, 2, 1, vec![R(0), R(2), H, R(0)]).to_string(),
            "cell at column 1, row 0: revealed 2 with only 1 neighbouring cell not revealed"
        );
        assert_eq!(
            e(2, 2, 2, vec![M, R(1), M, H]).to_string(),
            "cell at column 1, row 0: revealed 1 beside 2 known mines"
        );
        assert_eq!(
            e(2, 2, 1, vec![M, M, H, H]).to_string(),
            "2 known mines but only 1 mine in all"
        );
        // Flags may be wrong, and more of them than mines is a position a player can reach.
        let p = Position::new(2, 2, 1, vec![F, F, F, H]).unwrap();
        assert_eq!(p.at(0, 0), Some(F));
        assert_eq!(
            e(3, 1, 2, vec![R(1), H, R(1)]).to_string(),
            "2 mines but only 1 cell not revealed"
        );
        let p = Position::new(2, 2, 1, vec![M, R(1), R(1), R(1)]).unwrap();
        assert_eq!(p.at(1, 1), Some(R(1)));
        assert_eq!(p.at(2, 1), None);
        // Column 2 of row 0 would be cell 2 of the row below: still off the board.
        assert_eq!(p.at(2, 0), None);
        assert_eq!(p.at(0, 2), None);
        assert_eq!(p.count(M), 1);
        assert_eq!(p.count(R(1)), 3);
        assert_eq!(p.count(H), 0);
        assert_eq!((p.len(), p.is_empty()), (4, false));
        assert_eq!(p.revealed_count(), 3);
    }
}
