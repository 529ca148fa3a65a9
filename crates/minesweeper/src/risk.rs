//! Long-term risk: how often a cell would end up in a forced 50/50 if it is left for later.
//!
//! Two hidden cells side by side whose outer neighbours (the three cells beyond each end) are
//! all mines or off the board can never be told apart by any number: if exactly one of them
//! is a mine, the game ends with a coin flip. The same holds for a 2x2 block with two mines on
//! one of its diagonals (safe cells on the other) and all four outer corners mined or off the board. When such a pattern
//! is still *possible* (its outer cells are hidden, not revealed), the layouts in which it
//! forms are layouts in which clicking one of its cells now settles what would later be a
//! coin flip. A guess candidate in such a pattern is therefore worth more than its safety
//! alone: the share of layouts in which it forms is its "influence", used by the solver as
//! a bonus on the look-ahead score. Each pattern is counted with its first cell (the left or
//! top one of a pair, the main diagonal of a block) the mine: by symmetry, half the layouts in
//! which it forms. (The solver's weight was tuned on this share.)

use std::collections::HashMap;

use csp_core::{BigUint, BoolCsp, Budget, CspError};

use crate::position::{CellView, Position};

/// Counts of the potential 50/50 patterns of one position, shared by all candidates.
pub(crate) struct Risk<'a> {
    pos: &'a Position,
    csp: &'a BoolCsp,
    var_of: &'a [Option<usize>],
    forced: &'a [Option<bool>],
    budget: &'a Budget,
    /// Total number of layouts (exact: past 2^1024 it has no `f64`).
    total: &'a BigUint,
    /// Mines not yet known.
    mines_left: usize,
    /// Share of the layouts in which the pattern forms with its first cell the mine, by
    /// (kind, x, y).
    memo: HashMap<(u8, usize, usize), f64>,
}

/// Board coordinates (x, y), possibly off the board.
type Cells = Vec<(i64, i64)>;

const HORIZONTAL: u8 = 0;
const VERTICAL: u8 = 1;
const BLOCK: u8 = 2;

impl<'a> Risk<'a> {
    /// The patterns of `pos`, whose constraint problem is `csp` (variable of each cell in
    /// `var_of`), with `forced` values and `total` layouts.
    pub(crate) fn new(
        pos: &'a Position,
        csp: &'a BoolCsp,
        var_of: &'a [Option<usize>],
        forced: &'a [Option<bool>],
        budget: &'a Budget,
        total: &'a BigUint,
    ) -> Risk<'a> {
        let known = var_of
            .iter()
            .enumerate()
            .filter(|&(c, v)| {
                matches!(pos.cells()[c], CellView::Mine)
                    || v.is_some_and(|v| forced[v] == Some(true))
            })
            .count();
        Risk {
            pos,
            csp,
            var_of,
            forced,
            budget,
            total,
            mines_left: pos.mine_count().saturating_sub(known),
            memo: HashMap::new(),
        }
    }

    /// The cell at (x, y) when it is on the board.
    fn at(&self, x: i64, y: i64) -> Option<usize> {
        let (w, h) = (self.pos.width() as i64, self.pos.height() as i64);
        (x >= 0 && y >= 0 && x < w && y < h).then(|| (y * w + x) as usize)
    }

    /// The variable of a hidden cell that is not a known mine.
    fn open_var(&self, cell: usize) -> Option<usize> {
        if matches!(self.pos.cells()[cell], CellView::Mine) {
            return None;
        }
        self.var_of[cell].filter(|&v| self.forced[v] != Some(true))
    }

    /// Share of the layouts in which the pattern `kind` anchored at (x, y) (its top-left
    /// cell) forms, with its first cell a mine; 0 when it cannot form.
    fn pattern(&mut self, kind: u8, x: i64, y: i64) -> Result<f64, CspError> {
        if x < 0 || y < 0 {
            return Ok(0.0);
        }
        let key = (kind, x as usize, y as usize);
        if let Some(&r) = self.memo.get(&key) {
            return Ok(r);
        }
        let r = self.share(kind, x, y)?;
        self.memo.insert(key, r);
        Ok(r)
    }

    /// [`Risk::pattern`] without the memo: the layouts counted exactly, then divided.
    fn share(&self, kind: u8, x: i64, y: i64) -> Result<f64, CspError> {
        // (cells that must be mines, cells that must be safe, outer cells).
        let (mines, safe, outer): (Cells, Cells, Cells) = match kind {
            HORIZONTAL => (
                vec![(x, y)],
                vec![(x + 1, y)],
                (-1..=1)
                    .flat_map(|d| [(x - 1, y + d), (x + 2, y + d)])
                    .collect(),
            ),
            VERTICAL => (
                vec![(x, y)],
                vec![(x, y + 1)],
                (-1..=1)
                    .flat_map(|d| [(x + d, y - 1), (x + d, y + 2)])
                    .collect(),
            ),
            _ => (
                vec![(x, y), (x + 1, y + 1)],
                vec![(x + 1, y), (x, y + 1)],
                vec![
                    (x - 1, y - 1),
                    (x + 2, y - 1),
                    (x - 1, y + 2),
                    (x + 2, y + 2),
                ],
            ),
        };
        let mut mine_vars = Vec::new();
        let mut safe_vars = Vec::new();
        for &(a, b) in &mines {
            match self.at(a, b).and_then(|c| self.open_var(c)) {
                Some(v) => mine_vars.push(v),
                None => return Ok(0.0),
            }
        }
        for &(a, b) in &safe {
            match self.at(a, b).and_then(|c| self.open_var(c)) {
                Some(v) => safe_vars.push(v),
                None => return Ok(0.0),
            }
        }
        let mut missing = 0;
        for &(a, b) in &outer {
            let Some(c) = self.at(a, b) else { continue };
            if matches!(self.pos.cells()[c], CellView::Revealed(_)) {
                return Ok(0.0);
            }
            if let Some(v) = self.open_var(c) {
                if self.forced[v] == Some(false) {
                    return Ok(0.0);
                }
                mine_vars.push(v);
                missing += 1;
            }
        }
        // Only patterns close to forming: at most one outer mine still missing for a pair,
        // none for a block.
        if missing + mines.len() > 2 || missing + mines.len() > self.mines_left {
            return Ok(0.0);
        }
        let mut csp = self.csp.clone();
        let fixed = mine_vars
            .iter()
            .map(|&v| (v, true))
            .chain(safe_vars.iter().map(|&v| (v, false)))
            .try_for_each(|(v, value)| csp.fix(v, value));
        match fixed.and_then(|()| csp_core::count(&csp, self.budget)) {
            Ok(n) => Ok(BigUint::ratio(&n, self.total)),
            Err(CspError::Inconsistent) => Ok(0.0),
            Err(e) => Err(e),
        }
    }

    /// The influence of `cell` (mine probability `p`): the share of the layouts in which it
    /// lies in a 50/50 that could still form, at most `min(p, 1 - p)`.
    pub(crate) fn influence(&mut self, cell: usize, p: f64) -> Result<f64, CspError> {
        let (x, y) = self.pos.xy(cell);
        let (x, y) = (x as i64, y as i64);
        let pairs = self.pattern(HORIZONTAL, x, y)?
            + self.pattern(HORIZONTAL, x - 1, y)?
            + self.pattern(VERTICAL, x, y)?
            + self.pattern(VERTICAL, x, y - 1)?;
        let mut block: f64 = 0.0;
        for (a, b) in [(x, y), (x - 1, y), (x, y - 1), (x - 1, y - 1)] {
            block = block.max(self.pattern(BLOCK, a, b)?);
        }
        Ok((pairs + block).min(p).min(1.0 - p).max(0.0))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::format::text;
    use crate::solver::{Problem, build};

    /// Every mine layout of the hidden cells that agrees with the numbers and the mine count,
    /// by brute force over the position itself (not the constraint problem).
    pub(crate) fn layouts(pos: &Position) -> Vec<Vec<bool>> {
        let hidden: Vec<usize> = (0..pos.len())
            .filter(|&c| !pos.cells()[c].is_revealed())
            .collect();
        let mut out = Vec::new();
        for bits in 0u32..1 << hidden.len() {
            if bits.count_ones() as usize != pos.mine_count() {
                continue;
            }
            let mut mine = vec![false; pos.len()];
            for (i, &c) in hidden.iter().enumerate() {
                mine[c] = bits >> i & 1 == 1;
            }
            let agrees = (0..pos.len()).all(|c| match pos.cells()[c] {
                CellView::Revealed(k) => {
                    !mine[c] && pos.neighbours(c).filter(|&n| mine[n]).count() == usize::from(k)
                }
                CellView::Mine => mine[c],
                _ => true,
            });
            if agrees {
                out.push(mine);
            }
        }
        out
    }

    /// The share of layouts in which the pattern forms, counted directly.
    fn share(
        pos: &Position,
        all: &[Vec<bool>],
        mines: &[(i64, i64)],
        safe: &[(i64, i64)],
        outer: &[(i64, i64)],
        max_missing: usize,
    ) -> f64 {
        let (w, h) = (pos.width() as i64, pos.height() as i64);
        let on = |&(x, y): &(i64, i64)| {
            (x >= 0 && y >= 0 && x < w && y < h).then(|| (y * w + x) as usize)
        };
        let certain = |c: usize| all.iter().all(|l| l[c]);
        let inside: Option<Vec<usize>> = mines.iter().chain(safe).map(on).collect();
        let Some(inside) = inside else { return 0.0 };
        if inside
            .iter()
            .any(|&c| pos.cells()[c].is_revealed() || certain(c))
        {
            return 0.0;
        }
        let outer: Vec<usize> = outer.iter().filter_map(on).collect();
        if outer.iter().any(|&c| pos.cells()[c].is_revealed()) {
            return 0.0;
        }
        if outer.iter().any(|&c| all.iter().all(|l| !l[c])) {
            return 0.0;
        }
        let missing = outer.iter().filter(|&&c| !certain(c)).count();
        let known = (0..pos.len()).filter(|&c| certain(c)).count();
        if missing > max_missing || missing + mines.len() > pos.mine_count() - known {
            return 0.0;
        }
        let n = all
            .iter()
            .filter(|l| {
                mines.iter().all(|m| l[on(m).unwrap()])
                    && safe.iter().all(|s| !l[on(s).unwrap()])
                    && outer.iter().all(|&c| l[c])
            })
            .count();
        n as f64 / all.len() as f64
    }

    /// The influence of `cell` (mine probability `p`) counted over every layout in `all`.
    pub(crate) fn reference(pos: &Position, all: &[Vec<bool>], cell: usize, p: f64) -> f64 {
        let (x, y) = pos.xy(cell);
        let (x, y) = (x as i64, y as i64);
        let h = |x: i64, y: i64| {
            let outer: Vec<_> = (-1..=1)
                .flat_map(|d| [(x - 1, y + d), (x + 2, y + d)])
                .collect();
            share(pos, all, &[(x, y)], &[(x + 1, y)], &outer, 1)
        };
        let v = |x: i64, y: i64| {
            let outer: Vec<_> = (-1..=1)
                .flat_map(|d| [(x + d, y - 1), (x + d, y + 2)])
                .collect();
            share(pos, all, &[(x, y)], &[(x, y + 1)], &outer, 1)
        };
        let b = |x: i64, y: i64| {
            let outer = [
                (x - 1, y - 1),
                (x + 2, y - 1),
                (x - 1, y + 2),
                (x + 2, y + 2),
            ];
            share(
                pos,
                all,
                &[(x, y), (x + 1, y + 1)],
                &[(x + 1, y), (x, y + 1)],
                &outer,
                0,
            )
        };
        let pairs = h(x, y) + h(x - 1, y) + v(x, y) + v(x, y - 1);
        let block = [b(x, y), b(x - 1, y), b(x, y - 1), b(x - 1, y - 1)]
            .into_iter()
            .fold(0.0, f64::max);
        (pairs + block).min(p).min(1.0 - p).max(0.0)
    }

    #[test]
    fn influence_matches_brute_force_counts() {
        // Positions from seeded games on two small boards, one the other turned on its
        // side: the start (in either corner, so that patterns along every edge can form)
        // and a few other safe cells revealed.
        let mut positions = Vec::new();
        for (width, height) in [(5, 4), (4, 5)] {
            let level = crate::level::Level {
                width,
                height,
                mines: 4,
            };
            let cells = level.cells();
            for seed in 0..40u64 {
                let start = if seed % 2 == 0 { 0 } else { cells - 1 };
                let board = crate::sim::seeded_board(
                    &level,
                    crate::board::FirstClick::Safe,
                    start,
                    seed,
                    0,
                )
                .unwrap();
                let mut game = crate::game::Game::new(board.clone());
                game.reveal(start).unwrap();
                for k in 0..(seed % 3) {
                    let c = (seed * 7 + k * 11) as usize % cells;
                    if !board.is_mine(c) && !game.is_revealed(c) {
                        game.reveal(c).unwrap();
                    }
                }
                if game.state() == crate::game::GameState::Playing {
                    positions.push(text::write(&game.view()));
                }
            }
        }
        assert!(check(&positions), "no pattern found in any position");
    }

    /// A text position with its constraint problem and exact analysis.
    struct Analysed {
        pos: Position,
        problem: Problem,
        analysis: csp_core::Analysis,
        budget: Budget,
    }

    impl Analysed {
        fn new(t: &str) -> Analysed {
            let pos = text::read(t).unwrap();
            let problem = build(&pos).unwrap();
            let budget = Budget::default();
            let analysis = csp_core::analyze(&problem.csp, &budget).unwrap();
            Analysed {
                pos,
                problem,
                analysis,
                budget,
            }
        }

        /// Each undecided cell with its mine probability and influence.
        fn influences(&self) -> Vec<(usize, f64, f64)> {
            let a = &self.analysis;
            let mut risk = Risk::new(
                &self.pos,
                &self.problem.csp,
                &self.problem.var_of,
                &a.forced,
                &self.budget,
                &a.solutions,
            );
            self.problem
                .cell_of
                .iter()
                .enumerate()
                .filter(|&(v, _)| a.forced[v].is_none())
                .map(|(v, &c)| {
                    let p = a.probabilities[v];
                    (c, p, risk.influence(c, p).unwrap())
                })
                .collect()
        }
    }

    /// Compares every undecided cell's influence in each text position with the brute-force
    /// reference; true when some influence is positive.
    fn check(positions: &[String]) -> bool {
        let mut any = false;
        for t in positions {
            let a = Analysed::new(t);
            let all = layouts(&a.pos);
            assert_eq!(a.analysis.solutions.to_f64(), all.len() as f64, "{t}");
            for (c, p, got) in a.influences() {
                let expected = reference(&a.pos, &all, c, p);
                assert!(
                    (got - expected).abs() < 1e-12,
                    "{t} cell {c}: {got} vs {expected}"
                );
                any |= got > 0.0;
            }
        }
        any
    }

    #[test]
    fn pairs_still_waiting_for_an_outer_mine_count() {
        // A corridor of four cells, one end a known mine, three mines in all: two of the
        // three hidden cells are mines, in three equally likely layouts. The pair (1, 2)
        // forms when cell 3 (its one outer cell still hidden) is a mine, in layouts {1, 3}
        // and {2, 3}; counted with its first cell the mine, in {1, 3} alone: one of three.
        // The pair (2, 3) likewise in {1, 2} alone (cell 1 a mine, and cell 2). Cell 2 lies
        // in both, so its share (2/3) is capped at its chance of being safe (1/3); the same
        // along a column.
        for t in ["4x1x3\nMHHH\n", "1x4x3\nM\nH\nH\nH\n"] {
            assert!(check(&[t.to_string()]), "{t}");
            let a = Analysed::new(t);
            assert_eq!(a.analysis.solutions.to_f64(), 3.0, "{t}");
            let found = a.influences();
            assert_eq!(found.len(), 3, "{t}");
            for (cell, p, got) in found {
                assert!((p - 2.0 / 3.0).abs() < 1e-12, "{t} cell {cell}: p {p}");
                assert!((got - 1.0 / 3.0).abs() < 1e-12, "{t} cell {cell}: {got}");
            }
        }
    }

    #[test]
    fn blocks_are_found_from_each_of_their_cells() {
        // A 2x2 block at (1, 1) whose four outer corners are known mines. In the first
        // position the numbers around it leave only its two diagonals (an unavoidable
        // 50/50 already); in the second, some of its neighbours are hidden, so it forms in
        // only some layouts. Each of the block's cells must see it, whichever corner of the
        // block the cell is.
        let positions = [
            "4x4x6\nM22M\n2HH2\n2HH2\nM22M\n",
            "4x4x6\nM2HM\n2HHH\nHHH2\nMHHM\n",
        ];
        for t in positions {
            assert!(check(&[t.to_string()]), "{t}");
            let a = Analysed::new(t);
            let all = layouts(&a.pos);
            let formed = all
                .iter()
                .filter(|l| l[5] && l[10] && !l[6] && !l[9])
                .count();
            assert!(formed > 0, "{t}");
            let share = formed as f64 / all.len() as f64;
            let found = a.influences();
            for cell in [5, 6, 9, 10] {
                let &(_, p, got) = found.iter().find(|f| f.0 == cell).unwrap();
                assert!(
                    (got - share.min(p).min(1.0 - p)).abs() < 1e-12,
                    "{t} cell {cell}: {got}, block share {share}, p {p}"
                );
            }
        }
    }
}
