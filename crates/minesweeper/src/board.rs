//! The board geometry ([`Grid`]), a mine layout ([`Board`]) and the first-click rules.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use rand::{Rng, RngExt};

/// The largest width and height of a board (so that the MBF format, one byte per side, holds
/// every board).
pub const MAX_SIDE: usize = 255;

/// Why a board (or a random layout) cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BoardError {
    /// The width or the height is zero.
    #[error("board size {width}x{height} is empty: width and height must be at least 1")]
    EmptySize {
        /// The requested width.
        width: usize,
        /// The requested height.
        height: usize,
    },
    /// The width or the height is above [`MAX_SIDE`].
    #[error("board size {width}x{height} is too large: width and height must be at most 255")]
    TooLarge {
        /// The requested width.
        width: usize,
        /// The requested height.
        height: usize,
    },
    /// A mine index is not a cell of the board.
    #[error("mine at cell {cell} is outside the board ({})", crate::plural(*cells, "cell"))]
    MineOutOfRange {
        /// The offending index.
        cell: usize,
        /// The number of cells of the board.
        cells: usize,
    },
    /// A mine index is listed more than once.
    #[error("mine at cell {cell} is listed twice")]
    DuplicateMine {
        /// The repeated index.
        cell: usize,
    },
    /// The mines would fill the whole board.
    #[error("no safe cell is left with {} on a board of {}", crate::plural(*mines, "mine"), crate::plural(*cells, "cell"))]
    TooManyMines {
        /// The requested number of mines.
        mines: usize,
        /// The number of cells of the board.
        cells: usize,
    },
    /// The start cell of a random layout is not a cell of the board.
    #[error("start cell {start} is outside the board ({})", crate::plural(*cells, "cell"))]
    StartOutOfRange {
        /// The requested start cell.
        start: usize,
        /// The number of cells of the board.
        cells: usize,
    },
    /// The first-click rule keeps too many cells free for the mines to fit.
    #[error("{} {} not fit with the `{rule}` first-click rule: at most {max}",
        crate::plural(*mines, "mine"), if *mines == 1 { "does" } else { "do" })]
    TooManyMinesForRule {
        /// The requested number of mines.
        mines: usize,
        /// The rule.
        rule: FirstClick,
        /// The largest number of mines the rule allows on this board and start cell.
        max: usize,
    },
}

/// Checks a board size: both sides between 1 and [`MAX_SIDE`].
pub(crate) fn check_size(width: usize, height: usize) -> Result<(), BoardError> {
    if width == 0 || height == 0 {
        Err(BoardError::EmptySize { width, height })
    } else if width > MAX_SIDE || height > MAX_SIDE {
        Err(BoardError::TooLarge { width, height })
    } else {
        Ok(())
    }
}

/// The geometry of a `width` x `height` board: cell numbering and precomputed neighbour lists.
///
/// Cells are numbered row by row: cell `y * width + x` is column `x`, row `y`, both zero-based.
/// A grid is immutable and shared (through [`Arc`]) by boards, games and positions of the same
/// size, so that simulations can build many boards without recomputing neighbours
/// ([`Board::random_in`]).
#[derive(Clone)]
pub struct Grid {
    width: usize,
    height: usize,
    /// `neighbours[offsets[c]..offsets[c + 1]]` are the neighbours of cell `c`.
    offsets: Vec<u32>,
    neighbours: Vec<u16>,
}

impl Grid {
    /// The grid of a `width` x `height` board (both from 1 to [`MAX_SIDE`]).
    ///
    /// # Errors
    /// A side of 0 or past [`MAX_SIDE`].
    pub fn new(width: usize, height: usize) -> Result<Grid, BoardError> {
        check_size(width, height)?;
        let cells = width * height;
        let mut offsets = Vec::with_capacity(cells + 1);
        let mut neighbours = Vec::with_capacity(cells * 8);
        offsets.push(0u32);
        for y in 0..height {
            for x in 0..width {
                for ny in y.saturating_sub(1)..=(y + 1).min(height - 1) {
                    for nx in x.saturating_sub(1)..=(x + 1).min(width - 1) {
                        if nx != x || ny != y {
                            // At most 255 * 255 - 1 = 65024: fits in u16.
                            neighbours.push((ny * width + nx) as u16);
                        }
                    }
                }
                offsets.push(neighbours.len() as u32);
            }
        }
        Ok(Grid {
            width,
            height,
            offsets,
            neighbours,
        })
    }

    /// The number of columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The number of rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The number of cells, `width * height`.
    pub fn len(&self) -> usize {
        self.width * self.height
    }

    /// Always false: a grid has at least one cell. (Here for the `len`/`is_empty` convention.)
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The index of the cell at column `x`, row `y`: `y * width + x`, not checked (with
    /// wrapping arithmetic, so it never panics; off the board the result may be another
    /// cell's index, so check `x < width` and `y < height` first).
    pub fn cell(&self, x: usize, y: usize) -> usize {
        y.wrapping_mul(self.width).wrapping_add(x)
    }

    /// The column and row of a cell index.
    pub fn xy(&self, cell: usize) -> (usize, usize) {
        (cell % self.width, cell / self.width)
    }

    /// The up-to-8 neighbours of a cell, in row-major order; empty if `cell` is out of range.
    pub fn neighbours(&self, cell: usize) -> Neighbours<'_> {
        Neighbours {
            inner: self.neighbour_slice(cell).iter(),
        }
    }

    /// The number of neighbours of a cell (3, 5 or 8 on boards at least 2 wide and high); 0 if
    /// `cell` is out of range.
    pub fn neighbour_count(&self, cell: usize) -> usize {
        self.neighbour_slice(cell).len()
    }

    /// The neighbours of a cell as the raw `u16` slice stored in the grid (every cell index
    /// fits in a `u16`); empty if `cell` is out of range.
    pub fn neighbour_slice(&self, cell: usize) -> &[u16] {
        match (
            self.offsets.get(cell),
            self.offsets.get(cell.saturating_add(1)),
        ) {
            (Some(&a), Some(&b)) => self.neighbours.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

impl PartialEq for Grid {
    fn eq(&self, other: &Grid) -> bool {
        // The neighbour lists are a function of the size.
        self.width == other.width && self.height == other.height
    }
}

impl Eq for Grid {}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Grid")
            .field("width", &self.width)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

/// An iterator over the neighbours of a cell ([`Grid::neighbours`]).
#[derive(Debug, Clone)]
pub struct Neighbours<'a> {
    inner: std::slice::Iter<'a, u16>,
}

impl Iterator for Neighbours<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        self.inner.next().map(|&n| usize::from(n))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for Neighbours<'_> {}

/// Which mine layouts a random board may have, given the player's first click.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FirstClick {
    /// The first clicked cell is never a mine (the classic Windows rule).
    #[default]
    Safe,
    /// The first clicked cell and its neighbours are mine-free, so the first click opens an
    /// area.
    Zero,
    /// No constraint: the first click may hit a mine.
    None,
}

impl FirstClick {
    /// The rule's name, as accepted by [`FromStr`]: `safe`, `zero` or `none`.
    pub fn name(self) -> &'static str {
        match self {
            FirstClick::Safe => "safe",
            FirstClick::Zero => "zero",
            FirstClick::None => "none",
        }
    }
}

impl fmt::Display for FirstClick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown first-click rule name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown first-click rule `{0}`: expected safe, zero or none")]
pub struct ParseFirstClickError(String);

impl ParseFirstClickError {
    /// The name given.
    #[must_use]
    pub fn input(&self) -> &str {
        &self.0
    }
}

impl FromStr for FirstClick {
    type Err = ParseFirstClickError;

    /// Parses `safe`, `zero` or `none` (ignoring ASCII case and surrounding whitespace).
    fn from_str(s: &str) -> Result<FirstClick, ParseFirstClickError> {
        let t = s.trim();
        [FirstClick::Safe, FirstClick::Zero, FirstClick::None]
            .into_iter()
            .find(|r| t.eq_ignore_ascii_case(r.name()))
            .ok_or_else(|| ParseFirstClickError(s.to_string()))
    }
}

/// A mine layout on a grid: which cells hold mines, with the adjacent-mine count of every cell
/// precomputed.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    grid: Arc<Grid>,
    mines: Vec<bool>,
    adjacent: Vec<u8>,
    mine_count: usize,
}

impl Board {
    /// A board with mines on the given cells (index `y * width + x`).
    ///
    /// # Errors
    /// Empty or too large size, a mine index out of range, a duplicate mine, or mines
    /// on every cell.
    pub fn new(width: usize, height: usize, mines: &[usize]) -> Result<Board, BoardError> {
        Board::new_in(Arc::new(Grid::new(width, height)?), mines)
    }

    /// [`Board::new`] on an existing grid.
    ///
    /// # Errors
    /// As [`Board::new`], but for the size, which the grid has.
    pub fn new_in(grid: Arc<Grid>, mines: &[usize]) -> Result<Board, BoardError> {
        let cells = grid.len();
        // Cells first, so that a list naming a cell off the board or twice says so (such a
        // list is also too long before it is wrong in any other way).
        let mut mask = vec![false; cells];
        for &cell in mines {
            match mask.get_mut(cell) {
                None => return Err(BoardError::MineOutOfRange { cell, cells }),
                Some(true) => return Err(BoardError::DuplicateMine { cell }),
                Some(m) => *m = true,
            }
        }
        if mines.len() >= cells {
            return Err(BoardError::TooManyMines {
                mines: mines.len(),
                cells,
            });
        }
        Ok(Board::from_mask(grid, mask))
    }

    /// Builds a board from a mask of `grid.len()` cells with at least one safe cell.
    pub(crate) fn from_mask(grid: Arc<Grid>, mines: Vec<bool>) -> Board {
        let mut adjacent = vec![0u8; mines.len()];
        let mut mine_count = 0;
        for (cell, _) in mines.iter().enumerate().filter(|(_, m)| **m) {
            mine_count += 1;
            for n in grid.neighbours(cell) {
                if let Some(a) = adjacent.get_mut(n) {
                    *a += 1;
                }
            }
        }
        Board {
            grid,
            mines,
            adjacent,
            mine_count,
        }
    }

    /// A random layout of `mines` mines on a `width` x `height` board, uniform over all
    /// layouts that the first-click `rule` allows for a first click on `start`.
    ///
    /// # Errors
    /// An invalid size, `start` out of range, or too many mines for the board or the
    /// rule.
    pub fn random<R: Rng + ?Sized>(
        width: usize,
        height: usize,
        mines: usize,
        rule: FirstClick,
        start: usize,
        rng: &mut R,
    ) -> Result<Board, BoardError> {
        Board::random_in(Arc::new(Grid::new(width, height)?), mines, rule, start, rng)
    }

    /// [`Board::random`] on an existing grid (saves recomputing the neighbour lists when
    /// drawing many boards of one size).
    ///
    /// # Errors
    /// As [`Board::random`], but for the size, which the grid has.
    pub fn random_in<R: Rng + ?Sized>(
        grid: Arc<Grid>,
        mines: usize,
        rule: FirstClick,
        start: usize,
        rng: &mut R,
    ) -> Result<Board, BoardError> {
        let cells = grid.len();
        if start >= cells {
            return Err(BoardError::StartOutOfRange { start, cells });
        }
        if mines >= cells {
            return Err(BoardError::TooManyMines { mines, cells });
        }
        let mut free = vec![true; cells];
        match rule {
            FirstClick::None => {}
            FirstClick::Safe => free[start] = false,
            FirstClick::Zero => {
                free[start] = false;
                for n in grid.neighbours(start) {
                    free[n] = false;
                }
            }
        }
        let mut candidates: Vec<u32> = (0..cells as u32).filter(|&c| free[c as usize]).collect();
        if mines > candidates.len() {
            return Err(BoardError::TooManyMinesForRule {
                mines,
                rule,
                max: candidates.len(),
            });
        }
        // Partial Fisher-Yates: the first `mines` candidates form a uniform random subset.
        let n = candidates.len();
        for i in 0..mines {
            let j = rng.random_range(i..n);
            candidates.swap(i, j);
        }
        let mut mask = vec![false; cells];
        for &c in &candidates[..mines] {
            mask[c as usize] = true;
        }
        Ok(Board::from_mask(grid, mask))
    }

    /// The grid (size and neighbour lists).
    pub fn grid(&self) -> &Arc<Grid> {
        &self.grid
    }

    /// The number of columns.
    pub fn width(&self) -> usize {
        self.grid.width
    }

    /// The number of rows.
    pub fn height(&self) -> usize {
        self.grid.height
    }

    /// The number of cells, `width * height`.
    pub fn len(&self) -> usize {
        self.mines.len()
    }

    /// Always false: a board has at least one cell.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The number of mines.
    pub fn mine_count(&self) -> usize {
        self.mine_count
    }

    /// Whether `cell` holds a mine (false if `cell` is out of range).
    #[inline]
    pub fn is_mine(&self, cell: usize) -> bool {
        self.mines.get(cell).copied().unwrap_or(false)
    }

    /// The mine mask, one entry per cell.
    pub fn mine_mask(&self) -> &[bool] {
        &self.mines
    }

    /// The indices of the mined cells, in increasing order.
    pub fn mines(&self) -> impl Iterator<Item = usize> + '_ {
        self.mines
            .iter()
            .enumerate()
            .filter_map(|(c, &m)| m.then_some(c))
    }

    /// The up-to-8 neighbours of a cell (empty if `cell` is out of range).
    pub fn neighbours(&self, cell: usize) -> Neighbours<'_> {
        self.grid.neighbours(cell)
    }

    /// The number of mines among the neighbours of `cell` (0 if `cell` is out of range).
    #[inline]
    pub fn adjacent_mines(&self, cell: usize) -> u8 {
        self.adjacent.get(cell).copied().unwrap_or(0)
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
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Board")
            .field("width", &self.width())
            .field("height", &self.height())
            .field("mines", &self.mines().collect::<Vec<_>>())
            .finish()
    }
}

/// The whole board, one row per line: `*` for a mine, else the adjacent-mine count.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..self.height() {
            for x in 0..self.width() {
                let c = self.cell(x, row);
                if self.mines[c] {
                    f.write_str("*")?;
                } else {
                    write!(f, "{}", self.adjacent[c])?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_of_corners_edges_and_centre() {
        let g = Grid::new(3, 3).unwrap();
        // Out of range, up to the last index there is: none.
        for cell in [9, usize::MAX] {
            assert!(g.neighbour_slice(cell).is_empty());
            assert_eq!(g.neighbours(cell).count(), 0);
        }
        assert_eq!(g.neighbours(0).collect::<Vec<_>>(), [1, 3, 4]);
        assert_eq!(g.neighbours(1).collect::<Vec<_>>(), [0, 2, 3, 4, 5]);
        assert_eq!(g.neighbours(4).count(), 8);
        assert_eq!(g.neighbours(9).count(), 0);
        let line = Grid::new(1, 1).unwrap();
        assert_eq!(line.neighbours(0).count(), 0);
        let big = Grid::new(255, 255).unwrap();
        assert_eq!(big.neighbours(255 * 255 - 1).count(), 3);
        // The iterator knows its length before it is walked.
        assert_eq!(g.neighbours(1).len(), 5);
        assert_eq!(g.neighbours(4).size_hint(), (8, Some(8)));
    }

    #[test]
    fn sizes_equality_and_debug_output() {
        let g = Grid::new(3, 3).unwrap();
        assert_eq!((g.len(), g.is_empty()), (9, false));
        assert_eq!(g, Grid::new(3, 3).unwrap());
        assert_ne!(g, Grid::new(3, 4).unwrap());
        assert_ne!(g, Grid::new(4, 3).unwrap());
        assert_eq!(format!("{g:?}"), "Grid { width: 3, height: 3, .. }");
        let b = Board::new(3, 2, &[4, 1]).unwrap();
        assert_eq!((b.len(), b.is_empty()), (6, false));
        assert_eq!(
            format!("{b:?}"),
            "Board { width: 3, height: 2, mines: [1, 4] }"
        );
    }

    #[test]
    fn board_errors() {
        assert_eq!(
            Board::new(0, 3, &[]).unwrap_err().to_string(),
            "board size 0x3 is empty: width and height must be at least 1"
        );
        assert_eq!(
            Board::new(256, 3, &[]).unwrap_err().to_string(),
            "board size 256x3 is too large: width and height must be at most 255"
        );
        assert_eq!(
            Board::new(2, 2, &[4]).unwrap_err().to_string(),
            "mine at cell 4 is outside the board (4 cells)"
        );
        assert_eq!(
            Board::new(2, 2, &[1, 1]).unwrap_err().to_string(),
            "mine at cell 1 is listed twice"
        );
        assert_eq!(
            Board::new(2, 2, &[0, 1, 2, 3]).unwrap_err().to_string(),
            "no safe cell is left with 4 mines on a board of 4 cells"
        );
        // A list that is both too long and wrong says what is wrong with it.
        assert_eq!(
            Board::new(1, 1, &[5]).unwrap_err().to_string(),
            "mine at cell 5 is outside the board (1 cell)"
        );
        assert_eq!(
            Board::new(2, 2, &[0, 0, 0, 0]).unwrap_err().to_string(),
            "mine at cell 0 is listed twice"
        );
        let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(1);
        assert_eq!(
            Board::random(3, 3, 2, FirstClick::Safe, 9, &mut rng)
                .unwrap_err()
                .to_string(),
            "start cell 9 is outside the board (9 cells)"
        );
        assert_eq!(
            Board::random(3, 3, 2, FirstClick::Zero, 4, &mut rng)
                .unwrap_err()
                .to_string(),
            "2 mines do not fit with the `zero` first-click rule: at most 0"
        );
        assert_eq!(
            Board::random(3, 3, 1, FirstClick::Zero, 4, &mut rng)
                .unwrap_err()
                .to_string(),
            "1 mine does not fit with the `zero` first-click rule: at most 0"
        );
        assert!(Board::random(3, 3, 5, FirstClick::Zero, 0, &mut rng).is_ok());
        assert!(Board::random(3, 3, 6, FirstClick::Zero, 0, &mut rng).is_err());
    }

    #[test]
    fn adjacent_counts() {
        let b = Board::new(3, 2, &[0, 5]).unwrap();
        assert_eq!(b.to_string(), "*21\n12*\n");
        assert_eq!(b.mine_count(), 2);
        assert!(b.is_mine(5) && !b.is_mine(4) && !b.is_mine(99));
        assert_eq!(b.xy(5), (2, 1));
        assert_eq!(b.cell(2, 1), 5);
    }

    #[test]
    fn first_click_parse() {
        assert_eq!("Zero".parse::<FirstClick>(), Ok(FirstClick::Zero));
        assert_eq!("safe".parse::<FirstClick>(), Ok(FirstClick::Safe));
        assert_eq!("none".parse::<FirstClick>(), Ok(FirstClick::None));
        assert_eq!(
            "x".parse::<FirstClick>().unwrap_err().to_string(),
            "unknown first-click rule `x`: expected safe, zero or none"
        );
        assert_eq!("x".parse::<FirstClick>().unwrap_err().input(), "x");
    }
}
