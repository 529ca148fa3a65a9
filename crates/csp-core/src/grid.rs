//! Rectangular boards for placement problems.
//!
//! Most placement problems live on a board: ships on a Battleship grid, dominoes or other
//! polyominoes on a rectangle. A [`Grid`] numbers its cells `y * width + x` (so a board of up
//! to 128 cells fits the placement engine's elements) and builds the [`Family`] of every
//! translate of a shape that lies wholly on the board, with or without a "no-touch" halo (the
//! cells of the piece and their eight neighbours), so that callers need not work out start
//! masks and halo tables by hand; [`Grid::orientations`] lists a shape's distinct rotations
//! and mirror images.
//!
//! ```
//! use csp_core::{Budget, Grid, PlacementCsp, analyze_placements};
//!
//! // The 11 domino tilings of a 3x4 board: one variable per domino, every cell covered.
//! let grid = Grid::new(3, 4)?;
//! let horizontal = grid.translates(&[(0, 0), (1, 0)])?;
//! let vertical = grid.translates(&[(0, 0), (0, 1)])?;
//! let mut p = PlacementCsp::new(grid.cells())?;
//! for _ in 0..6 {
//!     p.add_var(vec![horizontal.clone(), vertical.clone()])?;
//! }
//! p.require(grid.all())?;
//! let a = analyze_placements(&p, &Budget::default())?;
//! assert_eq!(a.solutions, 11 * 720); // labelled: 6! orders of the dominoes per tiling
//! # Ok::<(), csp_core::CspError>(())
//! ```

use crate::CspError;
use crate::placement::{Family, MAX_ELEMENTS, bits};

/// A `width` x `height` board whose cell `(x, y)` is element `y * width + x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    width: usize,
    height: usize,
}

impl Grid {
    /// A board of `width` x `height` cells.
    ///
    /// # Errors
    /// [`CspError::InvalidPlacement`] if a side is 0 or the board has more than
    /// [`MAX_ELEMENTS`] cells.
    pub fn new(width: usize, height: usize) -> Result<Grid, CspError> {
        if width == 0 || height == 0 || width.saturating_mul(height) > MAX_ELEMENTS {
            return Err(CspError::InvalidPlacement(format!(
                "a {width}x{height} grid: it needs sides of at least 1 and at most \
                 {MAX_ELEMENTS} cells in all ({} here)",
                width.saturating_mul(height)
            )));
        }
        Ok(Grid { width, height })
    }

    /// Its width.
    #[must_use]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Its height.
    #[must_use]
    pub fn height(&self) -> usize {
        self.height
    }

    /// Its number of cells, the universe of its placement problems.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.width * self.height
    }

    /// Every cell, as a mask.
    #[must_use]
    pub fn all(&self) -> u128 {
        u128::MAX >> (MAX_ELEMENTS - self.cells())
    }

    /// The element of cell `(x, y)`, if it is on the board.
    #[must_use]
    pub fn element(&self, x: usize, y: usize) -> Option<usize> {
        (x < self.width && y < self.height).then(|| y * self.width + x)
    }

    /// Element `e` and its (up to eight) neighbours, sides and corners; nothing for an
    /// element off the board.
    #[must_use]
    pub fn neighbourhood(&self, e: usize) -> u128 {
        if e >= self.cells() {
            return 0;
        }
        let (x, y) = (e % self.width, e / self.width);
        let mut m = 0u128;
        for ny in y.saturating_sub(1)..=(y + 1).min(self.height - 1) {
            for nx in x.saturating_sub(1)..=(x + 1).min(self.width - 1) {
                m |= 1u128 << (ny * self.width + nx);
            }
        }
        m
    }

    /// The distinct orientations of `shape` among its four rotations and their mirror
    /// images, each with its cells sorted by row, then column, and moved to touch the top
    /// and left edges (no offset smaller than 0 in either direction, some offset 0 in
    /// each): one for a square, two for a straight piece, four for a T, eight for an L of
    /// four. Each orientation gives one family ([`Grid::translates`] or
    /// [`Grid::translates_no_touch`]); a piece that may lie in any orientation is a variable
    /// whose domain is all of them (a domain may not hold one placement twice, which giving
    /// every rotation of a symmetric piece would do). Repeated cells count once; an empty
    /// shape has no orientations (no piece, so nothing to place).
    ///
    /// ```
    /// use csp_core::{Budget, Family, Grid, PlacementCsp, count_placements};
    ///
    /// // The L tetromino, in all its orientations, on a 4x2 board covered by two of them.
    /// let l = [(0, 0), (0, 1), (0, 2), (1, 2)];
    /// assert_eq!(Grid::orientations(&l).len(), 8);
    /// let grid = Grid::new(4, 2)?;
    /// let domain = Grid::orientations(&l)
    ///     .iter()
    ///     .map(|o| grid.translates(o))
    ///     .collect::<Result<Vec<Family>, _>>()?;
    /// let mut csp = PlacementCsp::new(grid.cells())?;
    /// csp.add_var(domain.clone())?;
    /// csp.add_var(domain)?;
    /// csp.require(grid.all())?;
    /// // Two tilings, each counted once per order of the two pieces.
    /// assert_eq!(count_placements(&csp, &Budget::default())?, 4);
    /// # Ok::<(), csp_core::CspError>(())
    /// ```
    #[must_use]
    pub fn orientations(shape: &[(usize, usize)]) -> Vec<Vec<(usize, usize)>> {
        let mut out: Vec<Vec<(usize, usize)>> = Vec::new();
        if shape.is_empty() {
            return out;
        }
        // i128: every usize offset and its negation fit, so no coordinate wraps.
        let cells: Vec<(i128, i128)> = shape.iter().map(|&(x, y)| (x as i128, y as i128)).collect();
        for turn in 0..8 {
            let mut o: Vec<(i128, i128)> = cells
                .iter()
                .map(|&(x, y)| {
                    let (x, y) = if turn >= 4 { (-x, y) } else { (x, y) };
                    match turn % 4 {
                        0 => (x, y),
                        1 => (-y, x),
                        2 => (-x, -y),
                        _ => (y, -x),
                    }
                })
                .collect();
            let (min_x, min_y) = o.iter().fold((i128::MAX, i128::MAX), |(a, b), &(x, y)| {
                (a.min(x), b.min(y))
            });
            let mut o: Vec<(usize, usize)> = o
                .drain(..)
                .map(|(x, y)| ((x - min_x) as usize, (y - min_y) as usize))
                .collect();
            o.sort_unstable_by_key(|&(x, y)| (y, x));
            o.dedup();
            if !out.contains(&o) {
                out.push(o);
            }
        }
        out
    }

    /// The family of every translate of `shape` that lies wholly on the board. `shape`
    /// lists the piece's cells as `(dx, dy)` offsets from its start cell (`(0, 0)` need not
    /// be one of them); the value with start `s` covers the cells at those offsets from
    /// element `s`. A piece that fits nowhere gives a family without values (and where an
    /// offset reaches past the grid's width, the family's [`Family::shape`] is not the
    /// piece's: the offset folds into the next row; with no values, nothing uses it).
    ///
    /// # Errors
    /// [`CspError::InvalidPlacement`] if `shape` is empty, or all its cells lie beyond the
    /// 128 elements.
    pub fn translates(&self, shape: &[(usize, usize)]) -> Result<Family, CspError> {
        Family::new(self.shape_mask(shape)?, self.starts(shape))
    }

    /// As [`Grid::translates`], with a no-touch halo: while a value is chosen, no other
    /// variable may cover its cells or their neighbours (sides and corners).
    ///
    /// # Errors
    /// As [`Grid::translates`].
    pub fn translates_no_touch(&self, shape: &[(usize, usize)]) -> Result<Family, CspError> {
        let mask = self.shape_mask(shape)?;
        let starts = self.starts(shape);
        let halo = (0..MAX_ELEMENTS as u32)
            .map(|s| {
                if starts >> s & 1 == 1 {
                    bits(mask << s).fold(0, |h, e| h | self.neighbourhood(e as usize))
                } else {
                    0
                }
            })
            .collect();
        Ok(Family::new(mask, starts)?
            .with_halo(halo)?
            .no_touch_on(self.width, self.height))
    }

    /// The shape as a mask at start 0 (cells beyond the 128 elements left out: they keep the
    /// piece off the board anyway).
    fn shape_mask(&self, shape: &[(usize, usize)]) -> Result<u128, CspError> {
        if shape.is_empty() {
            return Err(CspError::InvalidPlacement("a shape has no cells".into()));
        }
        let mask = shape
            .iter()
            .filter_map(|&(dx, dy)| {
                dy.checked_mul(self.width)
                    .and_then(|o| o.checked_add(dx))
                    .filter(|&e| e < MAX_ELEMENTS)
            })
            .fold(0u128, |m, e| m | 1u128 << e);
        if mask == 0 {
            return Err(CspError::InvalidPlacement(format!(
                "every cell of the shape lies beyond the {MAX_ELEMENTS} elements of a \
                 {}x{} grid",
                self.width, self.height
            )));
        }
        Ok(mask)
    }

    /// The start cells from which every cell of `shape` is on the board.
    fn starts(&self, shape: &[(usize, usize)]) -> u128 {
        let (mut starts, w, h) = (0u128, self.width, self.height);
        for y in 0..h {
            for x in 0..w {
                if shape
                    .iter()
                    .all(|&(dx, dy)| x.saturating_add(dx) < w && y.saturating_add(dy) < h)
                {
                    starts |= 1u128 << (y * w + x);
                }
            }
        }
        starts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translates_lie_on_the_board() {
        let g = Grid::new(4, 3).unwrap();
        // An L tromino: (0,0), (0,1), (1,1).
        let l = g.translates(&[(0, 0), (0, 1), (1, 1)]).unwrap();
        // Starts in columns 0-2, rows 0-1.
        let expected = (0..2)
            .flat_map(|y| (0..3).map(move |x| y * 4 + x))
            .fold(0u128, |m, e| m | 1u128 << e);
        assert_eq!(l.starts(), expected);
        assert_eq!(l.cells(5), 1 << 5 | 1 << 9 | 1 << 10);
        // Too long to fit: no value, and no error.
        assert!(g.translates(&[(0, 0), (0, 3)]).unwrap().is_empty());
        assert!(g.translates(&[]).is_err());
        assert!(g.translates(&[(0, 200)]).is_err());
        assert!(Grid::new(0, 3).is_err());
        assert!(Grid::new(16, 9).is_err());
        assert_eq!(Grid::new(16, 8).unwrap().all(), u128::MAX);
        assert_eq!(g.all(), (1 << 12) - 1);
        assert_eq!(g.element(3, 2), Some(11));
        assert_eq!(g.element(4, 0), None);
    }

    #[test]
    fn no_touch_halos_hold_the_piece_and_its_neighbours() {
        let g = Grid::new(4, 3).unwrap();
        let d = g.translates_no_touch(&[(0, 0), (1, 0)]).unwrap();
        // A domino at the top-left corner: cells 0, 1; neighbours 2, 4, 5, 6.
        assert_eq!(d.block(0), 0b111 | 0b111 << 4);
        // Starting at (0, 1): columns 0-2 of all three rows.
        assert_eq!(d.block(4), 0b111 | 0b111 << 4 | 0b111 << 8);
        assert_eq!(d.block(3), 0, "no value starts at the last column");
        assert_eq!(g.neighbourhood(11), 1 << 6 | 1 << 7 | 1 << 10 | 1 << 11);
        assert_eq!(g.neighbourhood(12), 0);
    }

    #[test]
    fn orientations_are_distinct_and_complete() {
        let count = |shape: &[(usize, usize)]| Grid::orientations(shape).len();
        assert_eq!(count(&[(0, 0)]), 1);
        assert_eq!(count(&[(0, 0), (1, 0), (0, 1), (1, 1)]), 1);
        assert_eq!(count(&[(0, 0), (1, 0), (2, 0)]), 2);
        assert_eq!(count(&[(0, 0), (1, 0), (2, 0), (1, 1)]), 4); // T
        assert_eq!(count(&[(0, 0), (1, 0), (1, 1), (2, 1)]), 4); // S: its mirror is Z
        assert_eq!(count(&[(0, 0), (0, 1), (0, 2), (1, 2)]), 8); // L
        // F pentomino: 8; X pentomino: 1; I pentomino: 2.
        assert_eq!(count(&[(1, 0), (2, 0), (0, 1), (1, 1), (1, 2)]), 8);
        assert_eq!(count(&[(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)]), 1);
        assert_eq!(count(&[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]), 2);
        assert_eq!(count(&[]), 0);
        // Offsets at the ends of usize do not wrap: two cells usize::MAX apart stay so.
        let far = Grid::orientations(&[(usize::MAX, 0), (0, 0)]);
        assert_eq!(far.len(), 2);
        assert!(far.contains(&vec![(0, 0), (usize::MAX, 0)]), "{far:?}");
        // Far from the origin and with a repeated cell: moved to the edges, listed once.
        let l = Grid::orientations(&[(5, 5), (5, 6), (5, 7), (6, 7), (6, 7)]);
        assert_eq!(l[0], vec![(0, 0), (0, 1), (0, 2), (1, 2)]);
        for o in &l {
            assert_eq!(o.len(), 4);
            assert!(o.iter().any(|&(x, _)| x == 0) && o.iter().any(|&(_, y)| y == 0));
            assert!(o.windows(2).all(|w| (w[0].1, w[0].0) < (w[1].1, w[1].0)));
        }
        // The 12 free pentominoes make the 63 fixed ones.
        let pentominoes: [&[(usize, usize)]; 12] = [
            &[(1, 0), (2, 0), (0, 1), (1, 1), (1, 2)],
            &[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)],
            &[(0, 0), (0, 1), (0, 2), (0, 3), (1, 3)],
            &[(1, 0), (1, 1), (0, 2), (1, 2), (0, 3)],
            &[(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)],
            &[(0, 0), (1, 0), (2, 0), (1, 1), (1, 2)],
            &[(0, 0), (2, 0), (0, 1), (1, 1), (2, 1)],
            &[(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)],
            &[(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)],
            &[(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)],
            &[(1, 0), (0, 1), (1, 1), (1, 2), (1, 3)],
            &[(0, 0), (1, 0), (1, 1), (1, 2), (2, 2)],
        ];
        assert_eq!(pentominoes.iter().map(|p| count(p)).sum::<usize>(), 63);
    }
}
