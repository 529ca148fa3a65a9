//! The solver: exact mine probabilities from `csp-core`, then a choice of move.
//!
//! A position becomes a boolean constraint problem: one variable per unrevealed cell (true =
//! mine), one "exactly n of these" constraint per revealed number, known mines fixed, and the
//! total mine count. `csp-core` counts its solutions exactly, which gives every cell's exact
//! mine probability.
//!
//! The move: reveal every cell that is safe in all solutions. When none is, guess, but not
//! simply the safest cell: among the cells whose safety is within a tolerance of the best, each
//! candidate is scored by a one-step look-ahead, the probability of surviving it *and* the next
//! move: for every number the candidate may show, the problem is counted again with that
//! number added, and the next move is either certain (a safe cell appears) or the best guess
//! then. Cells whose number is already determined ("dead" cells) reveal nothing, and score
//! accordingly low.

use csp_core::{BoolCsp, Budget, CspError};
use thiserror::Error;

use crate::endgame::Endgame;
use crate::position::{CellView, Position};

/// Why the solver cannot answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SolveError {
    /// No mine layout agrees with the position.
    #[error("the position is inconsistent: no mine layout agrees with it")]
    Inconsistent,
    /// Nothing is left to reveal.
    #[error("no hidden cell is left to reveal")]
    NothingToDo,
    /// The constraint engine failed in another way.
    #[error("constraint engine: {0}")]
    Engine(CspError),
}

impl From<CspError> for SolveError {
    fn from(e: CspError) -> Self {
        match e {
            CspError::Inconsistent => SolveError::Inconsistent,
            e => SolveError::Engine(e),
        }
    }
}

/// The solver's options.
#[derive(Debug, Clone, PartialEq)]
pub struct SolverConfig {
    /// Score guesses by a one-step look-ahead (otherwise: the safest cell).
    pub lookahead: bool,
    /// A cell is a look-ahead candidate when its mine probability is at most
    /// `best + tolerance` (absolute).
    pub tolerance: f64,
    /// At most this many candidates are looked at (the safest first).
    pub max_candidates: usize,
    /// Search budget of the constraint engine, per component.
    pub budget: Budget,
    /// Search the endgame exhaustively for the guess most likely to win the whole game when
    /// at most this many cells are undecided (0 turns it off; at most 20 is used).
    pub endgame_cells: usize,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            lookahead: true,
            tolerance: 0.1,
            max_candidates: 8,
            budget: Budget::default(),
            endgame_cells: 14,
        }
    }
}

/// What the solver decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// These cells are safe in every layout: reveal them all.
    Safe(Vec<usize>),
    /// No cell is certainly safe: reveal this one, which is a mine with the given probability.
    Guess {
        /// The cell.
        cell: usize,
        /// Its mine probability: exact, or an estimate when `exact` is false.
        mine_probability: f64,
        /// False when the exact count exceeded the budget and the guess rests on propagation
        /// and local estimates instead.
        exact: bool,
    },
}

/// Exact mine probabilities of a position.
#[derive(Debug, Clone, PartialEq)]
pub struct Probabilities {
    /// Per cell: `None` for revealed cells, else the probability that it holds a mine.
    pub mine: Vec<Option<f64>>,
}

/// The problem of a position, with the map between cells and variables.
struct Problem {
    csp: BoolCsp,
    var_of: Vec<Option<usize>>,
    cell_of: Vec<usize>,
}

fn build(pos: &Position) -> Result<Problem, SolveError> {
    let n = pos.width() * pos.height();
    let mut var_of = vec![None; n];
    let mut cell_of = Vec::new();
    for (cell, v) in pos.cells().iter().enumerate() {
        if !matches!(v, CellView::Revealed(_)) {
            var_of[cell] = Some(cell_of.len());
            cell_of.push(cell);
        }
    }
    let mut csp = BoolCsp::new(cell_of.len());
    let mut vars = Vec::with_capacity(8);
    for (cell, v) in pos.cells().iter().enumerate() {
        match v {
            CellView::Revealed(k) => {
                vars.clear();
                vars.extend(pos.neighbours(cell).filter_map(|c| var_of[c]));
                if vars.is_empty() {
                    if *k != 0 {
                        return Err(SolveError::Inconsistent);
                    }
                } else {
                    csp.exactly(&vars, u32::from(*k))?;
                }
            }
            CellView::Mine => {
                if let Some(var) = var_of[cell] {
                    csp.fix(var, true)?;
                }
            }
            CellView::Hidden | CellView::Flagged => {}
        }
    }
    csp.set_total(pos.mines() as u32);
    Ok(Problem {
        csp,
        var_of,
        cell_of,
    })
}

/// The constraint problem the solver builds for a position, and the cell of each variable.
///
/// One variable per unrevealed cell (true = mine), numbered in cell order; one "exactly n of
/// these" constraint per revealed number with hidden neighbours; known mines fixed to true; the
/// position's mine count as the total. This is exactly the problem [`Solver::probabilities`]
/// and [`Solver::decide`] hand to `csp_core::analyze`, for benchmarking or inspecting it.
///
/// # Errors
/// [`SolveError::Inconsistent`] when a revealed number cannot be met (a non-zero number without
/// hidden neighbours, or more than it has); other engine errors as [`SolveError::Engine`].
pub fn constraint_problem(pos: &Position) -> Result<(BoolCsp, Vec<usize>), SolveError> {
    let p = build(pos)?;
    Ok((p.csp, p.cell_of))
}

/// The solver. It keeps no state between positions: the same position always gets the same
/// decision.
#[derive(Debug, Clone, Default)]
pub struct Solver {
    config: SolverConfig,
}

impl Solver {
    /// A solver with these options.
    #[must_use]
    pub fn new(config: SolverConfig) -> Self {
        Solver { config }
    }

    /// Exact mine probabilities of every unrevealed cell.
    ///
    /// # Errors
    /// When the position is inconsistent or too large for the budget.
    pub fn probabilities(&self, pos: &Position) -> Result<Probabilities, SolveError> {
        let p = build(pos)?;
        let a = csp_core::analyze(&p.csp, &self.config.budget)?;
        let mut mine = vec![None; p.var_of.len()];
        for (var, &cell) in p.cell_of.iter().enumerate() {
            mine[cell] = Some(a.probabilities[var]);
        }
        Ok(Probabilities { mine })
    }

    /// The next move in `pos`.
    ///
    /// # Errors
    /// When the position is inconsistent, too large for the budget, or has nothing to reveal.
    pub fn decide(&self, pos: &Position) -> Result<Decision, SolveError> {
        let p = build(pos)?;
        let a = match csp_core::analyze(&p.csp, &self.config.budget) {
            Ok(a) => a,
            Err(CspError::BudgetExceeded { .. }) => return self.decide_approximately(pos, &p),
            Err(e) => return Err(e.into()),
        };
        // Cells the player may still click: unrevealed and not known mines.
        let open: Vec<usize> = (0..p.cell_of.len())
            .filter(|&v| {
                !matches!(pos.cells()[p.cell_of[v]], CellView::Mine) && a.forced[v] != Some(true)
            })
            .collect();
        if open.is_empty() {
            return Err(SolveError::NothingToDo);
        }
        let safe: Vec<usize> = open
            .iter()
            .filter(|&&v| a.forced[v] == Some(false))
            .map(|&v| p.cell_of[v])
            .collect();
        if !safe.is_empty() {
            return Ok(Decision::Safe(safe));
        }
        if let Some(v) = self.endgame(pos, &p, &a.forced) {
            return Ok(Decision::Guess {
                cell: p.cell_of[v],
                mine_probability: a.probabilities[v],
                exact: true,
            });
        }
        let best = open
            .iter()
            .map(|&v| a.probabilities[v])
            .fold(f64::INFINITY, f64::min);
        let mut candidates: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&v| a.probabilities[v] <= best + self.config.tolerance)
            .collect();
        candidates.sort_by(|&x, &y| a.probabilities[x].total_cmp(&a.probabilities[y]));
        candidates.truncate(self.config.max_candidates.max(1));
        let mut choice = *candidates.first().ok_or(SolveError::NothingToDo)?;
        if self.config.lookahead && candidates.len() > 1 {
            let mut best_score = f64::NEG_INFINITY;
            for &v in &candidates {
                let score = self.lookahead(pos, &p, v, 1.0 - a.probabilities[v])?;
                if score > best_score + 1e-12 {
                    best_score = score;
                    choice = v;
                }
            }
        }
        Ok(Decision::Guess {
            cell: p.cell_of[choice],
            mine_probability: a.probabilities[choice],
            exact: true,
        })
    }

    /// The variable to guess by exhaustive endgame search, when few cells are undecided and
    /// the search fits its budget.
    fn endgame(&self, pos: &Position, p: &Problem, forced: &[Option<bool>]) -> Option<usize> {
        let undecided: Vec<usize> = (0..forced.len())
            .filter(|&v| {
                forced[v].is_none() && !matches!(pos.cells()[p.cell_of[v]], CellView::Mine)
            })
            .collect();
        let n = undecided.len();
        if n < 2 || n > self.config.endgame_cells.min(20) {
            return None;
        }
        let is_mine = |v: usize| {
            forced[v] == Some(true) || matches!(pos.cells()[p.cell_of[v]], CellView::Mine)
        };
        let bit_of = |v: usize| undecided.iter().position(|&u| u == v);
        // Each constraint over the undecided cells: (mask, mines still to place).
        let mut rules = Vec::new();
        for c in p.csp.constraints() {
            let known = c.vars.iter().filter(|&&v| is_mine(v)).count() as u32;
            let mask = c
                .vars
                .iter()
                .filter_map(|&v| bit_of(v))
                .fold(0u32, |m, b| m | 1 << b);
            rules.push((mask, c.count.checked_sub(known)?));
        }
        let known_mines = (0..forced.len()).filter(|&v| is_mine(v)).count() as u32;
        let left = p.csp.total()?.checked_sub(known_mines)?;
        let layouts: Vec<u32> = (0..1u32 << n)
            .filter(|m| m.count_ones() == left)
            .filter(|m| rules.iter().all(|&(mask, k)| (m & mask).count_ones() == k))
            .collect();
        if layouts.len() < 2 || layouts.len() > 5000 {
            return None;
        }
        let neighbours = undecided
            .iter()
            .map(|&v| {
                let mut mask = 0u32;
                let mut known = 0u8;
                for c in pos.neighbours(p.cell_of[v]) {
                    match p.var_of[c] {
                        Some(w) if is_mine(w) => known += 1,
                        Some(w) => mask |= bit_of(w).map_or(0, |b| 1 << b),
                        None => {}
                    }
                }
                (mask, known)
            })
            .collect();
        let (best, _) = Endgame::new(neighbours, layouts, 200_000).best_guess()?;
        Some(undecided[best])
    }

    /// The fallback when exact counting exceeds the budget (huge custom boards): cells proven
    /// by propagation, else the cell with the lowest local estimate, which for a cell next to
    /// numbers is the highest "mines left / cells left" ratio among them, and for any other
    /// cell the density of the unaccounted mines.
    fn decide_approximately(&self, pos: &Position, p: &Problem) -> Result<Decision, SolveError> {
        let forced = csp_core::propagate(&p.csp)?;
        let clickable = |v: usize| {
            forced[v] != Some(true) && !matches!(pos.cells()[p.cell_of[v]], CellView::Mine)
        };
        let safe: Vec<usize> = (0..p.cell_of.len())
            .filter(|&v| clickable(v) && forced[v] == Some(false))
            .map(|v| p.cell_of[v])
            .collect();
        if !safe.is_empty() {
            return Ok(Decision::Safe(safe));
        }
        let known = (0..forced.len())
            .filter(|&v| forced[v] == Some(true))
            .count();
        let unknown = forced.iter().filter(|f| f.is_none()).count().max(1);
        let density = pos.mines().saturating_sub(known) as f64 / unknown as f64;
        let estimate = |v: usize| {
            let cell = p.cell_of[v];
            pos.neighbours(cell)
                .filter_map(|n| match pos.cells()[n] {
                    CellView::Revealed(k) => {
                        let around: Vec<usize> =
                            pos.neighbours(n).filter_map(|c| p.var_of[c]).collect();
                        let mines = around.iter().filter(|&&w| forced[w] == Some(true)).count();
                        let open = around.iter().filter(|&&w| forced[w].is_none()).count();
                        (open > 0).then(|| (f64::from(k) - mines as f64).max(0.0) / open as f64)
                    }
                    _ => None,
                })
                .reduce(f64::max)
                .unwrap_or(density)
        };
        let best = (0..p.cell_of.len())
            .filter(|&v| clickable(v))
            .map(|v| (estimate(v), v))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .ok_or(SolveError::NothingToDo)?;
        Ok(Decision::Guess {
            cell: p.cell_of[best.1],
            mine_probability: best.0.clamp(0.0, 1.0),
            exact: false,
        })
    }

    /// The probability of surviving a guess at variable `v` and the move after it.
    fn lookahead(
        &self,
        pos: &Position,
        p: &Problem,
        v: usize,
        p_safe: f64,
    ) -> Result<f64, SolveError> {
        let cell = p.cell_of[v];
        let neighbours: Vec<usize> = pos.neighbours(cell).filter_map(|c| p.var_of[c]).collect();
        let mut outcomes: Vec<(f64, f64)> = Vec::new(); // (solutions, survival of next move)
        for shown in 0..=neighbours.len() as u32 {
            let mut csp = p.csp.clone();
            csp.fix(v, false)?;
            if csp.exactly(&neighbours, shown).is_err() {
                continue;
            }
            let a = match csp_core::analyze(&csp, &self.config.budget) {
                Ok(a) => a,
                Err(CspError::Inconsistent) => continue,
                Err(e) => return Err(e.into()),
            };
            let weight = a.solutions.to_f64();
            // The best chance of surviving the next move; certain when nothing is left to
            // reveal (the guess won the game) or when a safe cell appears.
            let next = (0..a.forced.len())
                .filter(|&w| w != v && a.forced[w] != Some(true))
                .filter(|&w| !matches!(pos.cells()[p.cell_of[w]], CellView::Mine))
                .map(|w| {
                    if a.forced[w] == Some(false) {
                        1.0
                    } else {
                        1.0 - a.probabilities[w]
                    }
                })
                .reduce(f64::max)
                .unwrap_or(1.0);
            outcomes.push((weight, next));
        }
        let total: f64 = outcomes.iter().map(|o| o.0).sum();
        if total <= 0.0 {
            return Ok(0.0);
        }
        let after: f64 = outcomes.iter().map(|(w, s)| w / total * s).sum();
        Ok(p_safe * after)
    }
}
