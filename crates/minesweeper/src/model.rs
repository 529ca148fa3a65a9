//! A small trained local-pattern model: a mine-probability estimate from a cell's 5x5
//! neighbourhood, for positions too large for exact counting.
//!
//! Exact counting ([`crate::Solver`]) is the teacher. [`collect_samples`] plays seeded games with
//! the exact solver and records, for cells that propagation leaves undecided, the neighbourhood
//! as the model sees it and the exact mine probability. [`train`] fits a one-hidden-layer network
//! to those probabilities (cross-entropy against the soft targets, plain SGD, seeded), and
//! [`calibration`] measures on other games how far the model is from the exact probabilities,
//! next to the simple local estimate it replaces ([`local_estimates`]).
//!
//! What the model sees of a cell: each of the 24 other cells of its 5x5 neighbourhood as one of
//! [`CATEGORIES`] (off the board; hidden and undecided; a mine, known or proven by propagation;
//! hidden but proven safe; revealed 0 to 8), and the density of the mines not yet accounted for
//! among the undecided cells, and the simple local estimate of the cell (so the network starts
//! from what the numbers around the cell say and learns what they miss). The 24 one-hot inputs make the first layer a sum of 24 learned
//! vectors, so a prediction costs a few hundred additions. Training augments every sample with a
//! random one of the 8 symmetries of the square, so the model learns no orientation.
//!
//! The crate ships a model trained by the command in `docs/MINESWEEPER.md`
//! ([`PatternModel::builtin`]); the solver uses it when exact counting exceeds its budget.
//!
//! ```
//! use minesweeper::{PatternModel, text};
//!
//! let pos = text::read("3x3x1\n1HH\nHHH\nHHH\n")?;
//! let model = PatternModel::builtin();
//! let p = model.probabilities(&pos)?;
//! assert!(p.mine[0].is_none()); // revealed
//! assert!(p.mine.iter().flatten().all(|&q| (0.0..=1.0).contains(&q)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::Write as _;
use std::sync::OnceLock;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use thiserror::Error;

use crate::board::FirstClick;
use crate::game::{Game, GameState};
use crate::level::Level;
use crate::position::{CellView, Position};
use crate::sim::seeded_board;
use crate::solver::{Decision, Probabilities, SolveError, Solver, constraint_problem};

/// Cells of the neighbourhood the model sees (5x5 minus the cell itself).
pub const NEIGHBOURHOOD: usize = 24;
/// What a neighbourhood cell can be, by its code in [`Sample::features`]: 0 off the board,
/// 1 hidden and undecided, 2 a mine, 3 hidden and proven safe, `4 + n` revealed with `n`
/// adjacent mines (0 to 8).
pub const CATEGORIES: usize = 13;

const OFF: u8 = 0;
const UNDECIDED: u8 = 1;
const MINE: u8 = 2;
const SAFE: u8 = 3;
const REVEALED_0: u8 = 4;

/// The (dx, dy) offsets of the neighbourhood, row by row.
fn offsets() -> [(i32, i32); NEIGHBOURHOOD] {
    let mut out = [(0, 0); NEIGHBOURHOOD];
    let mut k = 0;
    for dy in -2..=2 {
        for dx in -2..=2 {
            if (dx, dy) != (0, 0) {
                out[k] = (dx, dy);
                k += 1;
            }
        }
    }
    out
}

/// For each of the 8 symmetries of the square, where each neighbourhood slot goes.
fn symmetries() -> [[usize; NEIGHBOURHOOD]; 8] {
    let offs = offsets();
    let mut out = [[0; NEIGHBOURHOOD]; 8];
    for (s, table) in out.iter_mut().enumerate() {
        for (i, &(dx, dy)) in offs.iter().enumerate() {
            let (mut x, mut y) = (dx, dy);
            if s & 1 == 1 {
                x = -x;
            }
            if s & 2 == 2 {
                y = -y;
            }
            if s & 4 == 4 {
                std::mem::swap(&mut x, &mut y);
            }
            table[i] = offs.iter().position(|&o| o == (x, y)).unwrap_or(i);
        }
    }
    out
}

/// One training or calibration example: a cell as the model sees it, and its exact mine
/// probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The category of each neighbourhood cell (row by row, the cell itself left out), coded
    /// as [`CATEGORIES`] says.
    pub features: [u8; NEIGHBOURHOOD],
    /// Mines not accounted for, per undecided cell.
    pub density: f32,
    /// The exact mine probability (the teacher's answer).
    pub target: f32,
    /// The simple local estimate of the same cell: an input of the model, and the estimate
    /// it is compared with.
    pub local: f32,
}

/// Why a model file does not load.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The first line is not the model header.
    #[error("not a pattern-model file (expected the header `{HEADER}`)")]
    Header,
    /// A line is malformed.
    #[error("line {line}: {message}")]
    Line {
        /// One-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Training drove a weight past what a model file holds (magnitude 1e6) or to NaN.
    #[error(
        "training diverged (a weight grew past what a model file holds, or became NaN): \
         the learning rate is too large for the samples, or not positive"
    )]
    Diverged,
}

const HEADER: &str = "gameai-minesweeper-pattern-model 1";

/// The trained network: 24 one-hot neighbourhood inputs and the density, one hidden layer of
/// rectified units, a logistic output.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternModel {
    hidden: usize,
    /// `[slot][category][unit]`, flattened.
    embed: Vec<f32>,
    density: Vec<f32>,
    local: Vec<f32>,
    bias: Vec<f32>,
    out: Vec<f32>,
    out_bias: f32,
}

/// The features of every undecided cell of a position, with propagation's verdicts.
struct View {
    /// Per cell: whether it is unrevealed and propagation leaves it undecided.
    undecided: Vec<bool>,
    /// Per cell: the categories of its neighbourhood, for undecided cells (all `OFF`
    /// elsewhere).
    features: Vec<[u8; NEIGHBOURHOOD]>,
    /// The density of the mines not accounted for among the undecided cells (0 when none
    /// is left).
    density: f32,
    /// Per cell: propagation's verdict (`Some(true)` mine, `Some(false)` safe) for unrevealed
    /// cells; `None` for undecided and revealed cells.
    forced: Vec<Option<bool>>,
    /// Per cell: the local estimate of undecided cells.
    local: Vec<f32>,
}

fn view(pos: &Position) -> Result<View, SolveError> {
    let (csp, cell_of) = constraint_problem(pos)?;
    let values = csp_core::propagate(&csp)?;
    let n = pos.len();
    let mut forced = vec![None; n];
    let mut unrevealed = vec![false; n];
    for (v, &cell) in cell_of.iter().enumerate() {
        unrevealed[cell] = true;
        forced[cell] = values[v];
    }
    let mines = forced.iter().filter(|f| **f == Some(true)).count();
    let undecided: Vec<bool> = (0..n)
        .map(|c| unrevealed[c] && forced[c].is_none())
        .collect();
    let open = undecided.iter().filter(|&&u| u).count();
    let density = if open == 0 {
        0.0
    } else {
        (pos.mine_count().saturating_sub(mines) as f32 / open as f32).min(1.0)
    };
    let (w, h) = (pos.width() as i32, pos.height() as i32);
    let offs = offsets();
    let category = |cell: usize| -> u8 {
        match pos.cells()[cell] {
            CellView::Revealed(k) => REVEALED_0 + k.min(8),
            CellView::Mine => MINE,
            CellView::Hidden | CellView::Flagged => match forced[cell] {
                Some(true) => MINE,
                Some(false) => SAFE,
                None => UNDECIDED,
            },
        }
    };
    let mut features = vec![[OFF; NEIGHBOURHOOD]; n];
    let mut local = vec![density; n];
    for cell in (0..n).filter(|&c| undecided[c]) {
        let (x, y) = pos.xy(cell);
        let mut f = [OFF; NEIGHBOURHOOD];
        for (slot, &(dx, dy)) in offs.iter().enumerate() {
            let (nx, ny) = (x as i32 + dx, y as i32 + dy);
            if nx >= 0 && ny >= 0 && nx < w && ny < h {
                f[slot] = category(pos.cell(nx as usize, ny as usize));
            }
        }
        features[cell] = f;
        // The local estimate: the highest "mines still missing / undecided cells around" ratio
        // among the numbers next to the cell, or the density away from numbers.
        let ratio = pos
            .neighbours(cell)
            .filter_map(|m| match pos.cells()[m] {
                CellView::Revealed(k) => {
                    let mut missing = i32::from(k);
                    let mut open = 0;
                    for c in pos.neighbours(m) {
                        match category(c) {
                            MINE => missing -= 1,
                            UNDECIDED => open += 1,
                            _ => {}
                        }
                    }
                    (open > 0).then(|| missing.max(0) as f32 / open as f32)
                }
                _ => None,
            })
            .reduce(f32::max);
        local[cell] = ratio.unwrap_or(density).clamp(0.0, 1.0);
    }
    Ok(View {
        undecided,
        features,
        density,
        forced,
        local,
    })
}

/// The simple local estimate of each unrevealed cell's mine probability, after propagation:
/// 0 or 1 for cells propagation decides; for a cell next to numbers, the highest ratio of mines
/// still missing to undecided cells among those numbers; elsewhere, the density of the mines not
/// accounted for. This is the estimate the model is measured against.
///
/// # Errors
/// When propagation finds the position inconsistent.
pub fn local_estimates(pos: &Position) -> Result<Probabilities, SolveError> {
    let v = view(pos)?;
    Ok(decided_or(pos, &v.forced, |c| f64::from(v.local[c])))
}

/// Per cell: `None` if revealed, 1 for known mines and 0 or 1 where propagation (`forced`)
/// decides, `estimate(cell)` elsewhere.
fn decided_or(
    pos: &Position,
    forced: &[Option<bool>],
    estimate: impl Fn(usize) -> f64,
) -> Probabilities {
    Probabilities {
        mine: (0..pos.len())
            .map(|c| match (pos.cells()[c], forced[c]) {
                (CellView::Revealed(_), _) => None,
                (CellView::Mine, _) | (_, Some(true)) => Some(1.0),
                (_, Some(false)) => Some(0.0),
                _ => Some(estimate(c)),
            })
            .collect(),
    }
}

/// What the solver guesses with when exact counting exceeds its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fallback {
    /// The trained pattern model ([`PatternModel::builtin`]).
    PatternModel,
    /// The simple local estimate ([`local_estimates`]).
    Local,
    /// Marginals estimated by `csp_core::estimate` (block Gibbs sampling over whole layouts),
    /// seeded from the position so the same position gets the same decision. The default: it
    /// plays best of the three (see `docs/MINESWEEPER.md`), at a few milliseconds a move.
    /// A run that leaves some undecided cell unchanged throughout
    /// (`csp_core::Estimate::unmoved`: its 0 or 1 says nothing) is repeated once with blocks
    /// twice as large, whose estimates are used. Should the sampler find no first layout
    /// within its budget, the pattern model decides.
    #[default]
    Sampling,
}

/// Per cell, the mine probability that `csp_core::estimate` samples (0 for revealed cells),
/// seeded from the position so the same position gets the same estimates; `None` when the
/// sampler finds no first layout within its budget.
fn sampled_marginals(pos: &Position) -> Result<Option<Vec<f64>>, SolveError> {
    let (csp, cell_of) = constraint_problem(pos)?;
    let mut seed = 0xcbf2_9ce4_8422_2325u64;
    for c in pos.cells() {
        seed = (seed ^ u64::from(c.to_char() as u32)).wrapping_mul(0x100_0000_01b3);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let config = csp_core::McmcConfig::default();
    let mut e = match csp_core::estimate(&csp, &config, &mut rng) {
        Ok(e) => e,
        Err(csp_core::CspError::BudgetExceeded { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    // A variable the chain never moved (and propagation did not decide) has an estimate of
    // 0 or 1 that says nothing: the chain may be stuck among some of the layouts, and its
    // 0 would be guessed first. Once more with blocks twice as large, which reach layouts
    // the first blocks could not; its estimates are kept, stuck or not (a variable may be
    // certain without propagation proving it).
    if !e.unmoved().is_empty() {
        let wider = csp_core::McmcConfig {
            block: 2 * config.block,
            ..config
        };
        match csp_core::estimate(&csp, &wider, &mut rng) {
            Ok(again) => e = again,
            Err(csp_core::CspError::BudgetExceeded { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let mut p = vec![0.0; pos.len()];
    for (var, &cell) in cell_of.iter().enumerate() {
        p[cell] = e.probabilities[var];
    }
    Ok(Some(p))
}

/// What the solver has without exact counting: the estimates of `how` (with every cell
/// propagation decides as such) and the decision they give, from one run of the sampler, so
/// that a guess's probability is the one the estimates give its cell. The decision is every
/// cell propagation proves safe, else the undecided cell with the lowest estimate (the first
/// in cell order among equals); `None` when no cell is left to click.
pub(crate) fn fallback(
    pos: &Position,
    how: Fallback,
) -> Result<(Probabilities, Option<Decision>), SolveError> {
    fallback_on(pos, &view(pos)?, how)
}

/// [`fallback`] with the position's propagated view `v`.
fn fallback_on(
    pos: &Position,
    v: &View,
    how: Fallback,
) -> Result<(Probabilities, Option<Decision>), SolveError> {
    let sampled = match how {
        Fallback::Sampling => sampled_marginals(pos)?,
        Fallback::PatternModel | Fallback::Local => None,
    };
    let model = PatternModel::builtin();
    let estimate = |c: usize| match (&sampled, how) {
        (Some(p), _) => p[c],
        (None, Fallback::Local) => f64::from(v.local[c]),
        // The pattern model, also where the sampler has nothing to say.
        (None, _) => f64::from(model.predict(&v.features[c], v.density, v.local[c])),
    };
    let probabilities = decided_or(pos, &v.forced, estimate);
    let safe = safe_cells(pos, v);
    let decision = if safe.is_empty() {
        (0..pos.len())
            .filter(|&c| v.undecided[c])
            .map(|c| (estimate(c), c))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(mine_probability, cell)| Decision::Guess {
                cell,
                mine_probability,
                exact: false,
            })
    } else {
        Some(Decision::Safe(safe))
    };
    Ok((probabilities, decision))
}

/// The decision of [`fallback`], [`SolveError::NothingToDo`] when there is none. Cells
/// propagation proves safe are found without the estimates (no sampling).
pub(crate) fn fallback_decision(pos: &Position, how: Fallback) -> Result<Decision, SolveError> {
    let v = view(pos)?;
    let safe = safe_cells(pos, &v);
    if !safe.is_empty() {
        return Ok(Decision::Safe(safe));
    }
    fallback_on(pos, &v, how)?.1.ok_or(SolveError::NothingToDo)
}

/// The cells propagation proves safe (known mines aside).
fn safe_cells(pos: &Position, v: &View) -> Vec<usize> {
    (0..pos.len())
        .filter(|&c| v.forced[c] == Some(false) && !matches!(pos.cells()[c], CellView::Mine))
        .collect()
}

impl PatternModel {
    /// The model shipped with the crate (trained by the command in `docs/MINESWEEPER.md`).
    #[must_use]
    pub fn builtin() -> &'static PatternModel {
        static MODEL: OnceLock<PatternModel> = OnceLock::new();
        MODEL.get_or_init(|| {
            // The shipped weights are checked by a test; should they ever fail to load, an
            // untrained model (1/2 for every cell) keeps the solver working.
            PatternModel::parse(include_str!("model.weights"))
                .unwrap_or_else(|_| PatternModel::zeros(1))
        })
    }

    /// A model with all weights zero: it predicts 1/2 everywhere.
    fn zeros(hidden: usize) -> PatternModel {
        PatternModel {
            hidden,
            embed: vec![0.0; NEIGHBOURHOOD * CATEGORIES * hidden],
            density: vec![0.0; hidden],
            local: vec![0.0; hidden],
            bias: vec![0.0; hidden],
            out: vec![0.0; hidden],
            out_bias: 0.0,
        }
    }

    /// Hidden units.
    #[must_use]
    pub fn hidden_units(&self) -> usize {
        self.hidden
    }

    fn hidden_layer(
        &self,
        features: &[u8; NEIGHBOURHOOD],
        density: f32,
        local: f32,
        h: &mut [f32],
    ) {
        for (u, x) in h.iter_mut().enumerate() {
            *x = self.bias[u] + self.density[u] * density + self.local[u] * local;
        }
        for (slot, &cat) in features.iter().enumerate() {
            let row = (slot * CATEGORIES + usize::from(cat).min(CATEGORIES - 1)) * self.hidden;
            for (x, w) in h.iter_mut().zip(&self.embed[row..row + self.hidden]) {
                *x += w;
            }
        }
        for x in h.iter_mut() {
            *x = x.max(0.0);
        }
    }

    /// The model's mine probability for one cell as the model sees it: its neighbourhood
    /// (coded as [`CATEGORIES`] says; a code above 12 reads as 12), the density of
    /// unaccounted mines and the cell's local estimate. Both are probabilities: a value
    /// outside `[0, 1]` is taken as the nearest end, and NaN as 1/2, so that the answer is
    /// always a probability.
    #[must_use]
    pub fn predict(&self, features: &[u8; NEIGHBOURHOOD], density: f32, local: f32) -> f32 {
        let unit = |x: f32| probability_or_half(f64::from(x)) as f32;
        let mut h = vec![0.0; self.hidden];
        self.hidden_layer(features, unit(density), unit(local), &mut h);
        let z = self.out_bias + h.iter().zip(&self.out).map(|(a, b)| a * b).sum::<f32>();
        sigmoid(z)
    }

    /// Mine probabilities of every unrevealed cell: 0 or 1 where propagation decides the cell,
    /// the model's estimate elsewhere. Costs one propagation and a few hundred additions per
    /// cell, whatever the size of the board.
    ///
    /// # Errors
    /// When propagation finds the position inconsistent.
    pub fn probabilities(&self, pos: &Position) -> Result<Probabilities, SolveError> {
        let v = view(pos)?;
        Ok(decided_or(pos, &v.forced, |c| {
            f64::from(self.predict(&v.features[c], v.density, v.local[c]))
        }))
    }

    /// Every weight: embedding, density, local, bias, output weights, output bias.
    fn weights(&self) -> impl Iterator<Item = &f32> {
        self.embed
            .iter()
            .chain(&self.density)
            .chain(&self.local)
            .chain(&self.bias)
            .chain(&self.out)
            .chain(std::iter::once(&self.out_bias))
    }

    /// The model as text (the format [`PatternModel::parse`] reads).
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{HEADER}\nhidden {} neighbourhood {NEIGHBOURHOOD} categories {CATEGORIES}\n",
            self.hidden
        );
        let line = |s: &mut String, name: &str, v: &[f32]| {
            s.push_str(name);
            for x in v {
                let _ = write!(s, " {x}");
            }
            s.push('\n');
        };
        for slot in 0..NEIGHBOURHOOD {
            for cat in 0..CATEGORIES {
                let row = (slot * CATEGORIES + cat) * self.hidden;
                line(&mut s, "embed", &self.embed[row..row + self.hidden]);
            }
        }
        line(&mut s, "density", &self.density);
        line(&mut s, "local", &self.local);
        line(&mut s, "bias", &self.bias);
        line(&mut s, "out", &self.out);
        line(&mut s, "out_bias", &[self.out_bias]);
        s
    }

    /// Reads a model written by [`PatternModel::to_text`]: every line, the last one too,
    /// ends with a line end (a file without one after its last number may have been cut
    /// short inside it).
    ///
    /// # Errors
    /// [`ModelError`] naming the first bad line.
    pub fn parse(text: &str) -> Result<PatternModel, ModelError> {
        // A UTF-8 byte-order mark, as some editors write, is not part of the header.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, l)) if l.trim() == HEADER => {}
            _ => return Err(ModelError::Header),
        }
        let bad = |line: usize, message: &str| ModelError::Line {
            line: line + 1,
            message: message.to_owned(),
        };
        let (i, shape) = lines.next().ok_or_else(|| bad(1, "missing shape line"))?;
        let words: Vec<&str> = shape.split_whitespace().collect();
        let hidden = match words.as_slice() {
            ["hidden", h, "neighbourhood", n, "categories", c]
                if n.parse() == Ok(NEIGHBOURHOOD) && c.parse() == Ok(CATEGORIES) =>
            {
                h.parse::<usize>()
                    .ok()
                    .filter(|&h| (1..=MAX_HIDDEN).contains(&h))
                    .ok_or_else(|| bad(i, &format!("hidden units must be 1 to {MAX_HIDDEN}")))?
            }
            _ => {
                return Err(bad(
                    i,
                    &format!(
                        "expected `hidden H neighbourhood {NEIGHBOURHOOD} categories {CATEGORIES}`"
                    ),
                ));
            }
        };
        let mut m = PatternModel::zeros(hidden);
        // A line missing at the end is named by the line it should have been.
        let end = text.lines().count();
        let mut read = |name: &str, want: usize| -> Result<Vec<f32>, ModelError> {
            let (i, l) = lines
                .next()
                .ok_or_else(|| bad(end, &format!("missing `{name}` line")))?;
            let mut words = l.split_whitespace();
            if words.next() != Some(name) {
                return Err(bad(i, &format!("expected `{name}`")));
            }
            let v = words
                .map(|w| {
                    w.parse::<f32>()
                        .ok()
                        .filter(|x| x.is_finite() && x.abs() <= MAX_WEIGHT)
                })
                .collect::<Option<Vec<f32>>>()
                .ok_or_else(|| {
                    bad(
                        i,
                        &format!("expected finite numbers of magnitude at most {MAX_WEIGHT:e}"),
                    )
                })?;
            if v.len() != want {
                return Err(bad(i, &format!("expected {want} numbers, got {}", v.len())));
            }
            Ok(v)
        };
        for row in 0..NEIGHBOURHOOD * CATEGORIES {
            let v = read("embed", hidden)?;
            m.embed[row * hidden..(row + 1) * hidden].copy_from_slice(&v);
        }
        m.density = read("density", hidden)?;
        m.local = read("local", hidden)?;
        m.bias = read("bias", hidden)?;
        m.out = read("out", hidden)?;
        m.out_bias = read("out_bias", 1)?[0];
        // Anything after the last line is not part of this model (two files joined, say).
        if let Some((i, _)) = lines.find(|(_, l)| !l.trim().is_empty()) {
            return Err(bad(i, "unexpected line after `out_bias`"));
        }
        // Every line of a written model ends with a line end: a file cut inside its last
        // number (`-1.15` of `-1.150249`) would otherwise load as another model.
        if !text.trim_end_matches([' ', '\t']).ends_with('\n') {
            return Err(bad(
                end - 1,
                "the file ends inside its last line (cut short?): no line end after `out_bias`",
            ));
        }
        Ok(m)
    }
}

/// `x` within `[0, 1]`, NaN as 1/2.
fn probability_or_half(x: f64) -> f64 {
    if x.is_nan() { 0.5 } else { x.clamp(0.0, 1.0) }
}

/// The largest weight magnitude [`PatternModel::parse`] accepts. Within it every activation
/// stays finite (at most [`MAX_HIDDEN`] hidden units of 27 inputs each: below 3e16), so a
/// model read from a file always gives probabilities; trained weights are far smaller.
const MAX_WEIGHT: f32 = 1e6;

/// The most hidden units a model may have: [`PatternModel::parse`] reads no more, and
/// [`train`] trains no more.
pub const MAX_HIDDEN: usize = 1024;

fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

/// Plays `games` seeded games of `level` with the exact `solver` and records samples: at every
/// decision, up to `per_position` undecided cells (chosen at random) with their exact mine
/// probabilities. Game `i` uses the board [`seeded_board`]`(level, rule, start, seed, i)`.
///
/// # Errors
/// When a board cannot be drawn (e.g. too many mines for the first-click rule).
pub fn collect_samples(
    level: &Level,
    rule: FirstClick,
    start: usize,
    games: u64,
    seed: u64,
    per_position: usize,
    solver: &Solver,
) -> Result<Vec<Sample>, crate::BoardError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed.wrapping_add(0x9e37_79b9_7f4a_7c15));
    let mut out = Vec::new();
    for i in 0..games {
        let mut game = Game::new(seeded_board(level, rule, start, seed, i)?);
        if game.reveal(start).is_err() {
            continue;
        }
        while game.state() == GameState::Playing {
            let pos = game.view();
            let Ok(exact) = solver.probabilities(&pos) else {
                break;
            };
            if let Ok(v) = view(&pos) {
                let mut cells: Vec<usize> = (0..pos.len()).filter(|&c| v.undecided[c]).collect();
                // A partial shuffle picks `per_position` of them.
                for k in 0..cells.len().min(per_position) {
                    let j = rng.random_range(k..cells.len());
                    cells.swap(k, j);
                }
                for &c in cells.iter().take(per_position) {
                    if let Some(p) = exact.mine[c] {
                        out.push(Sample {
                            features: v.features[c],
                            density: v.density,
                            target: p as f32,
                            local: v.local[c],
                        });
                    }
                }
            }
            let step = match solver.decide(&pos) {
                Ok(Decision::Safe(cells)) => cells,
                Ok(Decision::Guess { cell, .. }) => vec![cell],
                Err(_) => break,
            };
            for c in step {
                if !game.is_revealed(c) && game.state() == GameState::Playing {
                    let _ = game.reveal(c);
                }
            }
        }
    }
    Ok(out)
}

/// Training options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    /// Hidden units, 1 to [`MAX_HIDDEN`] (others are taken as the nearest of the two).
    pub hidden: usize,
    /// Passes over the samples.
    pub epochs: usize,
    /// SGD step size at the start; it decays linearly to a tenth by the end. It should be
    /// positive and small (the default suits the samples of `collect_samples`): a step too
    /// large, negative or not a number drives the weights past any bound, and [`train`]
    /// reports that it diverged.
    pub learning_rate: f32,
    /// Seed of the initial weights, the sample order and the symmetry of each presentation.
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            hidden: 16,
            epochs: 8,
            learning_rate: 0.02,
            seed: 1,
        }
    }
}

/// Fits a model to the samples' exact probabilities (cross-entropy against the soft targets),
/// by stochastic gradient descent, every presentation in a random one of the 8 symmetries.
/// The same samples and options give the same model. A hand-made sample's numbers are read
/// as [`PatternModel::predict`] reads its inputs: density, local estimate and target are
/// probabilities, a value past 0 or 1 counts as that end and one that is not a number as
/// 1/2 (a target of 7 or NaN would drive the weights past any finite value).
///
/// # Errors
/// [`ModelError::Diverged`] when a weight ends past the ±1e6 a model file holds, or as NaN:
/// the step size was too large for the samples (or not a positive number).
pub fn train(samples: &[Sample], config: &TrainConfig) -> Result<PatternModel, ModelError> {
    let unit = |x: f32| probability_or_half(f64::from(x)) as f32;
    let hidden = config.hidden.clamp(1, MAX_HIDDEN);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(config.seed);
    let mut m = PatternModel::zeros(hidden);
    let scale = 1.0 / (NEIGHBOURHOOD as f32).sqrt();
    for w in m
        .embed
        .iter_mut()
        .chain(m.density.iter_mut())
        .chain(m.local.iter_mut())
    {
        *w = (rng.random::<f32>() * 2.0 - 1.0) * scale;
    }
    for w in &mut m.out {
        *w = (rng.random::<f32>() * 2.0 - 1.0) / (hidden as f32).sqrt();
    }
    m.bias.fill(0.1);
    // Start the output at the average target, so early steps learn patterns, not the mean.
    let mean = samples
        .iter()
        .map(|s| f64::from(unit(s.target)))
        .sum::<f64>()
        / samples.len().max(1) as f64;
    let mean = mean.clamp(0.01, 0.99) as f32;
    m.out_bias = (mean / (1.0 - mean)).ln();
    if samples.is_empty() {
        // Nothing to learn, however many passes are asked for.
        return Ok(m);
    }
    let sym = symmetries();
    let mut order: Vec<usize> = (0..samples.len()).collect();
    let mut h = vec![0.0f32; hidden];
    let steps = config.epochs.saturating_mul(samples.len()).max(1) as f32;
    let mut step = 0.0f32;
    let mut features = [0u8; NEIGHBOURHOOD];
    for _ in 0..config.epochs {
        for k in (1..order.len()).rev() {
            let j = rng.random_range(0..=k);
            order.swap(k, j);
        }
        for &i in &order {
            let s = &samples[i];
            let t = &sym[rng.random_range(0..8usize)];
            for (slot, &cat) in s.features.iter().enumerate() {
                // As the model reads a category (a hand-made sample may hold any byte).
                features[t[slot]] = cat.min(CATEGORIES as u8 - 1);
            }
            let lr = config.learning_rate * (1.0 - 0.9 * step / steps);
            step += 1.0;
            let (density, local) = (unit(s.density), unit(s.local));
            m.hidden_layer(&features, density, local, &mut h);
            let z = m.out_bias + h.iter().zip(&m.out).map(|(a, b)| a * b).sum::<f32>();
            // d(cross-entropy)/dz for a soft target.
            let g = sigmoid(z) - unit(s.target);
            m.out_bias -= lr * g;
            for (u, &hu) in h.iter().enumerate() {
                let gh = if hu > 0.0 { g * m.out[u] } else { 0.0 };
                m.out[u] -= lr * g * hu;
                if gh != 0.0 {
                    m.bias[u] -= lr * gh;
                    m.density[u] -= lr * gh * density;
                    m.local[u] -= lr * gh * local;
                    for (slot, &cat) in features.iter().enumerate() {
                        m.embed[(slot * CATEGORIES + usize::from(cat)) * hidden + u] -= lr * gh;
                    }
                }
            }
        }
    }
    // A step size too large for the samples (or not positive) drives weights past any
    // bound, to infinities and NaN: such a model gives no probabilities, nor reads back.
    let diverged = m.weights().any(|w| w.is_nan() || w.abs() > MAX_WEIGHT);
    if diverged {
        return Err(ModelError::Diverged);
    }
    Ok(m)
}

/// One bin of a reliability table: samples whose estimate fell in `[low, high)` (the last
/// bin, `[0.9, 1]`, holds the estimates of 1 too).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationBin {
    /// Lower end of the estimate range.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// Samples in the bin.
    pub count: usize,
    /// Mean estimate in the bin.
    pub mean_estimate: f64,
    /// Mean exact probability in the bin (equal to the mean estimate when calibrated).
    pub mean_exact: f64,
}

/// How close an estimate is to the exact probabilities on a set of samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// Samples measured.
    pub samples: usize,
    /// Mean absolute difference from the exact probability.
    pub mean_abs_error: f64,
    /// Mean squared difference from the exact probability.
    pub mean_sq_error: f64,
    /// Expected calibration error: the bins' mean |estimate - exact|, weighted by size.
    pub calibration_error: f64,
    /// Ten bins of the estimate, 0.1 wide.
    pub bins: Vec<CalibrationBin>,
}

/// Measures an estimate (`estimate(sample)`) against the exact probabilities of the samples.
/// Estimates are taken within `[0, 1]` (a value outside counts as the nearest end); a NaN
/// estimate is counted as 1/2, as it says nothing.
pub fn calibration(samples: &[Sample], estimate: impl Fn(&Sample) -> f64) -> Calibration {
    let mut bins: Vec<CalibrationBin> = (0..10)
        .map(|b| CalibrationBin {
            low: f64::from(b) / 10.0,
            high: f64::from(b + 1) / 10.0,
            count: 0,
            mean_estimate: 0.0,
            mean_exact: 0.0,
        })
        .collect();
    let (mut abs, mut sq) = (0.0, 0.0);
    for s in samples {
        let e = probability_or_half(estimate(s));
        let t = f64::from(s.target);
        abs += (e - t).abs();
        sq += (e - t) * (e - t);
        let b = ((e * 10.0) as usize).min(9);
        bins[b].count += 1;
        bins[b].mean_estimate += e;
        bins[b].mean_exact += t;
    }
    let n = samples.len().max(1) as f64;
    let mut ece = 0.0;
    for b in &mut bins {
        if b.count > 0 {
            b.mean_estimate /= b.count as f64;
            b.mean_exact /= b.count as f64;
            ece += b.count as f64 / n * (b.mean_estimate - b.mean_exact).abs();
        }
    }
    Calibration {
        samples: samples.len(),
        mean_abs_error: abs / n,
        mean_sq_error: sq / n,
        calibration_error: ece,
        bins,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::text;

    #[test]
    fn the_shipped_model_loads_and_round_trips() {
        let m = PatternModel::parse(include_str!("model.weights")).unwrap();
        assert!(m.hidden_units() >= 1);
        assert_eq!(PatternModel::parse(&m.to_text()).unwrap(), m);
        assert_eq!(
            PatternModel::parse(&format!("\u{feff}{}", m.to_text())).unwrap(),
            m
        );
        assert_eq!(PatternModel::builtin(), &m);
        // Blank lines may follow the model; nothing else may (two files joined, say).
        let text = m.to_text();
        assert_eq!(PatternModel::parse(&format!("{text}\n\n")).unwrap(), m);
        let lines = text.lines().count();
        let err = PatternModel::parse(&format!("{text}\n{text}")).unwrap_err();
        assert_eq!(
            err,
            ModelError::Line {
                line: lines + 2,
                message: "unexpected line after `out_bias`".into()
            }
        );
    }

    /// The largest model with the largest weights a file may hold still gives probabilities.
    #[test]
    fn the_largest_weights_keep_every_activation_finite() {
        let mut m = PatternModel::zeros(1024);
        let sign = |k: usize| {
            if k.is_multiple_of(2) {
                MAX_WEIGHT
            } else {
                -MAX_WEIGHT
            }
        };
        for v in [&mut m.embed, &mut m.density, &mut m.local, &mut m.bias] {
            v.fill(MAX_WEIGHT);
        }
        for (k, w) in m.out.iter_mut().enumerate() {
            *w = sign(k);
        }
        m.out_bias = -MAX_WEIGHT;
        let m = PatternModel::parse(&m.to_text()).unwrap();
        for features in [[0u8; NEIGHBOURHOOD], [12u8; NEIGHBOURHOOD]] {
            let p = m.predict(&features, 1.0, 1.0);
            assert!((0.0..=1.0).contains(&p), "{p}");
        }
    }

    #[test]
    fn malformed_model_files_are_errors() {
        assert_eq!(PatternModel::parse(""), Err(ModelError::Header));
        let good = PatternModel::zeros(2).to_text();
        assert!(PatternModel::parse(&good).is_ok());
        // A file cut short names the first line missing.
        let cut: String = good.lines().take(10).map(|l| format!("{l}\n")).collect();
        assert_eq!(
            PatternModel::parse(&cut).unwrap_err().to_string(),
            "line 11: missing `embed` line"
        );
        let lines = good.lines().count();
        let no_out_bias: String = good
            .lines()
            .take(lines - 1)
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            PatternModel::parse(&no_out_bias).unwrap_err().to_string(),
            format!("line {lines}: missing `out_bias` line")
        );
        // Cut inside the last number: no line end after it.
        let cut_number = format!("{}5", good.trim_end());
        assert_eq!(
            PatternModel::parse(&cut_number).unwrap_err().to_string(),
            format!(
                "line {lines}: the file ends inside its last line (cut short?): no line end \
                 after `out_bias`"
            )
        );
        assert!(PatternModel::parse(&format!("{cut_number}\n")).is_ok());
        let nan = good.replacen("embed 0 0", "embed NaN 0", 1);
        assert!(matches!(
            PatternModel::parse(&nan),
            Err(ModelError::Line { line: 3, .. })
        ));
        // Weights so large that sums of them overflow would give no probability at all.
        let huge = good.replacen("embed 0 0", "embed 3e38 0", 1);
        assert_eq!(
            PatternModel::parse(&huge).unwrap_err().to_string(),
            PatternModel::parse(&nan).unwrap_err().to_string()
        );
        let big = good.replacen("embed 0 0", "embed 1e6 -1e6", 1);
        assert!(PatternModel::parse(&big).is_ok());
        let shape = good.replacen("hidden 2", "hidden 0", 1);
        assert!(matches!(
            PatternModel::parse(&shape),
            Err(ModelError::Line { line: 2, .. })
        ));
        // Another version, or a network of another shape, is refused.
        let version = good.replacen(HEADER, "gameai-minesweeper-pattern-model 2", 1);
        assert_eq!(PatternModel::parse(&version), Err(ModelError::Header));
        for (from, to) in [
            (format!("neighbourhood {NEIGHBOURHOOD}"), "neighbourhood 25"),
            (format!("categories {CATEGORIES}"), "categories 12"),
        ] {
            let other = good.replacen(&from, to, 1);
            assert_ne!(other, good);
            assert!(matches!(
                PatternModel::parse(&other),
                Err(ModelError::Line { line: 2, .. })
            ));
        }
    }

    #[test]
    fn symmetries_are_the_eight_turns_and_reflections_of_the_square() {
        // The offsets: the 5x5 square around the cell, row by row, the cell left out.
        let offs = offsets();
        let mut want = Vec::new();
        for dy in -2..=2 {
            for dx in -2..=2 {
                if (dx, dy) != (0, 0) {
                    want.push((dx, dy));
                }
            }
        }
        assert_eq!(offs[..], want[..]);
        // Each table moves every slot by one linear map of determinant 1 or -1 (read off the
        // images of (1, 0) and (0, 1)); the identity comes first and the 8 maps differ.
        let sym = symmetries();
        assert_eq!(sym[0], core::array::from_fn(|i| i));
        let slot = |o: (i32, i32)| offs.iter().position(|&x| x == o).unwrap();
        let mut maps = Vec::new();
        for t in &sym {
            let (a, c) = offs[t[slot((1, 0))]];
            let (b, d) = offs[t[slot((0, 1))]];
            assert_eq!((a * d - b * c).abs(), 1, "{t:?}");
            for (i, &(x, y)) in offs.iter().enumerate() {
                assert_eq!(offs[t[i]], (a * x + b * y, c * x + d * y), "{t:?}");
            }
            maps.push((a, b, c, d));
        }
        maps.sort_unstable();
        maps.dedup();
        assert_eq!(maps.len(), 8);
    }

    #[test]
    fn features_see_numbers_mines_and_the_edge() {
        // The top-left corner cell: the edge to its left, a revealed 1 to its right, an
        // undecided cell diagonally below.
        let pos = text::read("3x2x1\nH1H\nHHH\n").unwrap();
        let v = view(&pos).unwrap();
        let (f, density) = (v.features[0], v.density);
        let offs = offsets();
        let slot = |dx, dy| offs.iter().position(|&o| o == (dx, dy)).unwrap();
        assert_eq!(f[slot(-1, 0)], OFF);
        assert_eq!(f[slot(1, 0)], REVEALED_0 + 1);
        assert_eq!(f[slot(1, 1)], UNDECIDED);
        assert!(density > 0.0 && density <= 1.0);
        assert!(
            v.undecided[0] && !v.undecided[1],
            "revealed cells are decided"
        );
    }

    #[test]
    fn predict_is_a_rectified_hidden_layer_and_a_logistic_output() {
        // Two hidden units, weights set by hand; a revealed 1 in the first slot.
        let mut m = PatternModel::zeros(2);
        let mut f = [UNDECIDED; NEIGHBOURHOOD];
        f[0] = REVEALED_0 + 1;
        m.bias = vec![0.5, -1.0];
        m.density = vec![1.0, 0.5];
        m.local = vec![2.0, 0.0];
        m.embed[usize::from(REVEALED_0 + 1) * 2] = 0.25;
        m.out = vec![3.0, 5.0];
        m.out_bias = -4.0;
        // Unit 0: 0.5 + 1.0 * 0.2 + 2.0 * 0.3 + 0.25 = 1.55; unit 1: -1.0 + 0.5 * 0.2 < 0,
        // rectified to 0. Output: -4 + 3 * 1.55 + 5 * 0 = 0.65, through the logistic.
        let want = 1.0 / (1.0 + (-0.65f32).exp());
        let got = m.predict(&f, 0.2, 0.3);
        assert!((got - want).abs() < 1e-6, "{got} against {want}");
    }

    /// A hand-made sample may hold any byte as a category: training reads it as the model
    /// does (the last category), instead of indexing past its row or into another slot's.
    #[test]
    fn training_reads_out_of_range_categories_as_the_last() {
        let sample = |cat: u8, target| Sample {
            features: [cat; NEIGHBOURHOOD],
            density: 0.1,
            target,
            local: 0.1,
        };
        let config = TrainConfig {
            epochs: 3,
            ..TrainConfig::default()
        };
        let last = (CATEGORIES - 1) as u8;
        for wild in [CATEGORIES as u8, 13, 255] {
            let odd = [sample(wild, 0.5), sample(UNDECIDED, 0.2)];
            let clamped = [sample(last, 0.5), sample(UNDECIDED, 0.2)];
            assert_eq!(train(&odd, &config), train(&clamped, &config), "{wild}");
        }
    }

    #[test]
    fn training_learns_a_simple_rule_and_is_reproducible() {
        // Teacher: probability 0.9 when the right neighbour is a revealed 8 (a made-up rule),
        // else 0.1. The model must learn it from either orientation.
        let mut samples = Vec::new();
        let offs = offsets();
        let right = offs.iter().position(|&o| o == (1, 0)).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        for _ in 0..2000 {
            let mut f = [UNDECIDED; NEIGHBOURHOOD];
            let hot = rng.random::<bool>();
            if hot {
                f[right] = REVEALED_0 + 8;
            }
            samples.push(Sample {
                features: f,
                density: 0.2,
                target: if hot { 0.9 } else { 0.1 },
                local: 0.2,
            });
        }
        let config = TrainConfig {
            epochs: 4,
            ..TrainConfig::default()
        };
        let m = train(&samples, &config).unwrap();
        assert_eq!(m, train(&samples, &config).unwrap());
        let mut hot = [UNDECIDED; NEIGHBOURHOOD];
        hot[right] = REVEALED_0 + 8;
        let cold = [UNDECIDED; NEIGHBOURHOOD];
        assert!(
            (m.predict(&hot, 0.2, 0.2) - 0.9).abs() < 0.1,
            "{}",
            m.predict(&hot, 0.2, 0.2)
        );
        assert!(
            (m.predict(&cold, 0.2, 0.2) - 0.1).abs() < 0.1,
            "{}",
            m.predict(&cold, 0.2, 0.2)
        );
        // The mirror image (the 8 on the left) was learned through the symmetries.
        let left = offs.iter().position(|&o| o == (-1, 0)).unwrap();
        let mut mirrored = [UNDECIDED; NEIGHBOURHOOD];
        mirrored[left] = REVEALED_0 + 8;
        assert!(m.predict(&mirrored, 0.2, 0.2) > 0.7);
    }

    #[test]
    fn fallbacks_reveal_proven_cells_then_guess_an_undecided_one() {
        // The 0 at (0, 1) proves the two cells below it safe.
        let pos = text::read("4x3x2\n01HH\n01HH\nHHHH\n").unwrap();
        for how in [Fallback::PatternModel, Fallback::Local, Fallback::Sampling] {
            match fallback_decision(&pos, how).unwrap() {
                Decision::Safe(cells) => assert!(cells.contains(&8) && cells.contains(&9)),
                d => panic!("{how:?}: expected the cells below the 0s, got {d:?}"),
            }
        }
        // Nothing proven: a guess, flagged as not exact, on a hidden cell.
        let pos = text::read("3x3x2\n1HH\nHHH\nHHH\n").unwrap();
        for how in [Fallback::PatternModel, Fallback::Local, Fallback::Sampling] {
            match fallback_decision(&pos, how).unwrap() {
                Decision::Guess {
                    cell,
                    exact,
                    mine_probability,
                } => {
                    assert!(!exact && cell != 0);
                    assert!((0.0..=1.0).contains(&mine_probability));
                }
                d => panic!("{how:?}: expected a guess, got {d:?}"),
            }
        }
        // The same position gets the same decision.
        assert_eq!(
            fallback_decision(&pos, Fallback::Sampling),
            fallback_decision(&pos, Fallback::Sampling)
        );
    }

    #[test]
    fn local_estimates_by_hand() {
        // The 1 at (0, 0) misses 1 mine among 3 undecided cells; the 2 at (2, 0) has the
        // known mine at (3, 0) and misses 1 among 4. Nothing is forced. Away from the
        // numbers: the 6 mines not accounted for over the 12 undecided cells.
        let pos = text::read("5x3x7\n1H2MH\nHHHHH\nHHHHH\n").unwrap();
        let third = 1.0 / 3.0;
        #[rustfmt::skip]
        let want = [
            None, Some(third), None, Some(1.0), Some(0.5),
            Some(third), Some(third), Some(0.25), Some(0.25), Some(0.5),
            Some(0.5), Some(0.5), Some(0.5), Some(0.5), Some(0.5),
        ];
        let got = local_estimates(&pos).unwrap().mine;
        for (c, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.is_some(), w.is_some(), "cell {c}");
            if let (Some(g), Some(w)) = (g, w) {
                assert!((g - w).abs() < 1e-6, "cell {c}: {g} against {w}");
            }
        }
        let v = view(&pos).unwrap();
        assert_eq!(v.density, 0.5);
        assert_eq!(v.undecided.iter().filter(|&&u| u).count(), 12);
    }

    #[test]
    fn estimates_are_certain_where_propagation_decides() {
        // The 1 beside the known mine proves its other neighbours safe; the other 1 holds the
        // one mine left among the three cells at its right.
        let pos = text::read("5x2x2\nM1H1H\nHHHHH\n").unwrap();
        let safe = [2, 5, 6, 7];
        for how in [Fallback::PatternModel, Fallback::Local, Fallback::Sampling] {
            let e = fallback(&pos, how).unwrap().0.mine;
            for (c, &p) in e.iter().enumerate() {
                let want = match c {
                    0 => Some(1.0),
                    1 | 3 => None,
                    c if safe.contains(&c) => Some(0.0),
                    _ => {
                        assert!(p.is_some_and(|p| p > 0.0 && p < 1.0), "{how:?} {c}: {p:?}");
                        continue;
                    }
                };
                assert_eq!(p, want, "{how:?} cell {c}");
            }
        }
        assert_eq!(
            local_estimates(&pos).unwrap(),
            fallback(&pos, Fallback::Local).unwrap().0
        );
    }

    #[test]
    fn sampled_estimates_agree_with_exact_probabilities() {
        // On positions this small the sampler's blocks (16 variables) hold nearly every
        // cell, so its 4000 steps average nearly independent layouts: a share off by 0.04
        // would be about five standard deviations out (0.0075 at p = 1/3).
        let solver = crate::Solver::default();
        for t in [
            "5x2x2\nM1H1H\nHHHHH\n",
            "6x3x4\n1H1H1H\nHHHHHH\nHHHHHH\n",
            "4x4x3\n2HHH\nHHHH\nHH1H\nHHHH\n",
        ] {
            let pos = text::read(t).unwrap();
            let exact = solver.probabilities(&pos).unwrap().mine;
            let sampled = fallback(&pos, Fallback::Sampling).unwrap().0.mine;
            assert_eq!(sampled.len(), exact.len());
            for (c, (s, e)) in sampled.iter().zip(&exact).enumerate() {
                assert_eq!(s.is_some(), e.is_some(), "{t} cell {c}");
                if let (Some(s), Some(e)) = (s, e) {
                    assert!((s - e).abs() < 0.04, "{t} cell {c}: {s} against {e}");
                }
            }
        }
    }

    /// Hand-made samples with numbers past 0 and 1, or not numbers at all, train a model that
    /// can be written and read back (its weights were infinite or NaN).
    #[test]
    fn samples_out_of_range_train_a_readable_model() {
        for (density, target, local) in [
            (f32::INFINITY, 0.5, 0.5),
            (0.5, 7.0, 0.5),
            (0.5, f32::NAN, 0.5),
            (5.0, 0.5, -3.0),
        ] {
            let sample = Sample {
                features: [1; NEIGHBOURHOOD],
                density,
                target,
                local,
            };
            let m = train(&vec![sample; 20], &TrainConfig::default()).unwrap();
            assert!(
                PatternModel::parse(&m.to_text()).is_ok(),
                "{density} {target} {local}"
            );
        }
    }

    /// A position whose first sampling run, with blocks of 16, never moves some cells (it
    /// reported 0% for cells 16% to 54% likely to be mines, and guessed one of them): the
    /// second run, with blocks twice as large, brings every estimate near the exact one.
    #[test]
    fn a_stuck_sampling_run_is_not_trusted() {
        let t = "8x8x16\nHHH2HHHH\nHHHHHHH2\nHH1HHHH1\nHH11122H\nH3H101HH\nHHH10122\n\
                 HH32101H\nHHHH101H\n";
        let pos = text::read(t).unwrap();
        let exact = crate::Solver::default().probabilities(&pos).unwrap().mine;
        let sampled = fallback(&pos, Fallback::Sampling).unwrap().0.mine;
        for (c, (s, e)) in sampled.iter().zip(&exact).enumerate() {
            if let (Some(s), Some(e)) = (s, e) {
                assert!((s - e).abs() < 0.06, "cell {c}: {s} against {e}");
            }
        }
    }

    /// The model's parameters in one list (embedding, density, local, bias, output weights,
    /// output bias), for the gradient check.
    fn parameters(m: &PatternModel) -> Vec<f64> {
        m.weights().map(|&w| f64::from(w)).collect()
    }

    /// The cross-entropy of `s` under the parameters `w` (laid out as by `parameters`) of a
    /// model with `hidden` units, computed directly in f64.
    fn loss(w: &[f64], hidden: usize, s: &Sample) -> f64 {
        let embed = NEIGHBOURHOOD * CATEGORIES * hidden;
        let at = |block: usize, u: usize| w[embed + block * hidden + u];
        let mut z = w[w.len() - 1];
        for u in 0..hidden {
            let mut x = at(2, u) + at(0, u) * f64::from(s.density) + at(1, u) * f64::from(s.local);
            for (slot, &cat) in s.features.iter().enumerate() {
                x += w[(slot * CATEGORIES + usize::from(cat)) * hidden + u];
            }
            z += at(3, u) * x.max(0.0);
        }
        let p = 1.0 / (1.0 + (-z).exp());
        let t = f64::from(s.target);
        -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
    }

    #[test]
    fn training_steps_down_the_gradient_at_a_decaying_rate() {
        // One sample (the same in every symmetry), presented twice: the model must be the
        // initial one moved by `-rate * gradient` and then by `-0.55 * rate * gradient` (the
        // rate decays linearly to a tenth over the two steps), the gradient of the
        // cross-entropy taken by central differences.
        let s = Sample {
            features: [REVEALED_0 + 2; NEIGHBOURHOOD],
            density: 0.3,
            target: 0.3,
            local: 0.6,
        };
        let rate = 0.5;
        let config = |epochs| TrainConfig {
            hidden: 3,
            epochs,
            learning_rate: rate,
            seed: 5,
        };
        let start = train(&[s], &config(0)).unwrap();
        assert_eq!(start.hidden_units(), 3);
        // A category past the last reads as the last (features from outside the crate).
        let last = [(CATEGORIES - 1) as u8; NEIGHBOURHOOD];
        assert_eq!(
            start.predict(&[200; NEIGHBOURHOOD], 0.3, 0.6),
            start.predict(&last, 0.3, 0.6)
        );
        assert_ne!(
            start.predict(&last, 0.3, 0.6),
            start.predict(&[UNDECIDED; NEIGHBOURHOOD], 0.3, 0.6)
        );
        // The initial weights: small, spread, the output starting at the mean target.
        let scale = 1.0 / (NEIGHBOURHOOD as f32).sqrt();
        let inputs: Vec<f32> = [&start.embed, &start.density, &start.local]
            .into_iter()
            .flatten()
            .copied()
            .collect();
        assert!(inputs.iter().all(|x| x.abs() <= scale));
        assert!(inputs.iter().any(|x| x.abs() > scale / 2.0));
        assert!(inputs.iter().any(|&x| x > 0.0) && inputs.iter().any(|&x| x < 0.0));
        assert!(start.density.iter().chain(&start.local).all(|&x| x != 0.0));
        assert!(start.out.iter().all(|x| x.abs() <= 1.0 / 3f32.sqrt()));
        assert!(start.out.iter().any(|x| x.abs() > 0.5 / 3f32.sqrt()));
        assert!(start.bias.iter().all(|&b| b == 0.1));
        assert!((start.out_bias - (0.3f32 / 0.7).ln()).abs() < 1e-6);
        let step = |w: &[f64], rate: f64| -> Vec<f64> {
            (0..w.len())
                .map(|i| {
                    let h = 1e-6;
                    let (mut up, mut down) = (w.to_vec(), w.to_vec());
                    up[i] += h;
                    down[i] -= h;
                    let gradient = (loss(&up, 3, &s) - loss(&down, 3, &s)) / (2.0 * h);
                    w[i] - rate * gradient
                })
                .collect()
        };
        let once = step(&parameters(&start), f64::from(rate));
        let twice = step(&once, f64::from(rate) * 0.55);
        for (got, want) in [
            (
                parameters(&train(&[s], &config(1)).unwrap()),
                step(&parameters(&start), f64::from(rate)),
            ),
            (parameters(&train(&[s], &config(2)).unwrap()), twice),
        ] {
            assert_eq!(got.len(), want.len());
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!((g - w).abs() < 1e-5, "parameter {i}: {g} against {w}");
            }
        }
        // Both kinds of hidden unit occur: active ones (whose bias moved) and rectified ones.
        let biases = NEIGHBOURHOOD * CATEGORIES * 3 + 6;
        let moved = (biases..biases + 3)
            .filter(|&i| (once[i] - 0.1).abs() > 1e-4)
            .count();
        assert!(moved == 1 || moved == 2, "{moved} of 3 units active");
        // The steps lower the loss.
        let before = loss(&parameters(&start), 3, &s);
        assert!(loss(&once, 3, &s) < before);
    }

    #[test]
    fn the_initial_weights_are_small_spread_and_start_at_the_mean_target() {
        let s = |target| Sample {
            features: [UNDECIDED; NEIGHBOURHOOD],
            density: 0.2,
            target,
            local: 0.2,
        };
        let m = train(
            &[s(0.3), s(0.5)],
            &TrainConfig {
                hidden: 16,
                epochs: 0,
                ..TrainConfig::default()
            },
        )
        .unwrap();
        assert_eq!(m.hidden_units(), 16);
        // Out-of-range sizes are taken as the nearest the format holds, and read back.
        for (asked, got) in [(0, 1), (MAX_HIDDEN + 1, MAX_HIDDEN)] {
            let config = TrainConfig {
                hidden: asked,
                epochs: 0,
                ..TrainConfig::default()
            };
            let big = train(&[s(0.3)], &config).unwrap();
            assert_eq!(big.hidden_units(), got);
            assert_eq!(PatternModel::parse(&big.to_text()).unwrap(), big);
        }
        // The output starts at the mean target, 0.4.
        assert!(
            (m.out_bias - (0.4f32 / 0.6).ln()).abs() < 1e-6,
            "{}",
            m.out_bias
        );
        let bound = 1.0 / 4.0; // 1 / sqrt(16)
        assert!(m.out.iter().all(|w| w.abs() <= bound));
        assert!(m.out.iter().any(|&w| w > bound / 2.0));
        assert!(m.out.iter().any(|&w| w < -bound / 2.0));
        // No samples: the mean is taken as 0 and clamped, not divided by zero.
        let empty = train(&[], &TrainConfig::default()).unwrap();
        assert!((empty.out_bias - (0.01f32 / 0.99).ln()).abs() < 1e-5);
        // Nor are passes over nothing made, however many are asked for.
        let endless = TrainConfig {
            epochs: usize::MAX,
            ..TrainConfig::default()
        };
        assert_eq!(train(&[], &endless), Ok(empty));
    }

    /// Whatever the step size, a model trained gives probabilities and reads back; one that
    /// would not is refused as diverged.
    #[test]
    fn a_wild_step_size_trains_a_readable_model_or_says_it_diverged() {
        let s = |target: f32, k: u8| Sample {
            features: [k % 13; NEIGHBOURHOOD],
            density: 0.2,
            local: 0.4,
            target,
        };
        let samples: Vec<Sample> = (0..40).map(|k| s(f32::from(k % 5) / 4.0, k)).collect();
        let mut diverged = 0;
        for rate in [
            0.02,
            1.0,
            100.0,
            1e8,
            1e20,
            3e38,
            -0.02,
            -5.0,
            f32::NAN,
            f32::INFINITY,
        ] {
            let config = TrainConfig {
                hidden: 8,
                epochs: 4,
                learning_rate: rate,
                ..TrainConfig::default()
            };
            let m = match train(&samples, &config) {
                Ok(m) => m,
                Err(ModelError::Diverged) => {
                    diverged += 1;
                    continue;
                }
                Err(e) => panic!("{rate}: {e}"),
            };
            assert_eq!(PatternModel::parse(&m.to_text()).as_ref(), Ok(&m), "{rate}");
            for x in &samples {
                let p = m.predict(&x.features, x.density, x.local);
                assert!((0.0..=1.0).contains(&p), "{rate}: {p}");
            }
        }
        assert!(diverged >= 4, "{diverged}");
        assert!(train(&samples, &TrainConfig::default()).is_ok());
    }

    #[test]
    fn samples_are_every_undecided_cell_met_with_its_exact_probability() {
        // Replays the same seeded games: with room for every cell of a position, the samples
        // are all the undecided cells of every position met before each move.
        let level = Level {
            width: 5,
            height: 4,
            mines: 4,
        };
        let solver = Solver::default();
        let collect = |per_position| {
            collect_samples(&level, FirstClick::Safe, 0, 8, 3, per_position, &solver).unwrap()
        };
        let all = collect(1000);
        let (mut want, mut positions) = (Vec::new(), 0);
        for i in 0..8 {
            let mut game = Game::new(seeded_board(&level, FirstClick::Safe, 0, 3, i).unwrap());
            game.reveal(0).unwrap();
            while game.state() == GameState::Playing {
                let pos = game.view();
                let exact = solver.probabilities(&pos).unwrap();
                let v = view(&pos).unwrap();
                let open: Vec<usize> = (0..pos.len()).filter(|&c| v.undecided[c]).collect();
                positions += usize::from(!open.is_empty());
                for c in open {
                    want.push((v.features[c], exact.mine[c].unwrap() as f32, v.local[c]));
                }
                let step = match solver.decide(&pos).unwrap() {
                    Decision::Safe(cells) => cells,
                    Decision::Guess { cell, .. } => vec![cell],
                };
                for c in step {
                    if !game.is_revealed(c) && game.state() == GameState::Playing {
                        game.reveal(c).unwrap();
                    }
                }
            }
        }
        let key = |x: &([u8; NEIGHBOURHOOD], f32, f32)| (x.0, x.1.to_bits(), x.2.to_bits());
        let mut got: Vec<_> = all
            .iter()
            .map(|s| (s.features, s.target, s.local))
            .collect();
        got.sort_by_key(key);
        want.sort_by_key(key);
        assert!(want.len() > positions && positions > 8);
        assert_eq!(got, want);
        assert!(all.iter().all(|s| s.density > 0.0 && s.density <= 1.0));
        // The same seed, the same samples; one a position, as many as positions.
        assert_eq!(collect(1000), all);
        assert_eq!(collect(1).len(), positions);
    }

    #[test]
    fn calibration_bins_and_errors_by_hand() {
        // Estimates (raw, then clamped to [0, 1]) and exact probabilities:
        // bin 0: 0.05 (0), -0.2 -> 0 (0); bin 1: 0.15 (0.3), 0.12 (0.1), 0.1 (0.1);
        // bin 9: 0.95 (1), 1.5 -> 1 (1).
        let pairs = [
            (0.05, 0.0),
            (0.15, 0.3),
            (0.12, 0.1),
            (0.95, 1.0),
            (1.5, 1.0),
            (-0.2, 0.0),
            (0.1, 0.1),
        ];
        let samples: Vec<Sample> = pairs
            .iter()
            .map(|&(e, t)| Sample {
                features: [UNDECIDED; NEIGHBOURHOOD],
                density: 0.2,
                target: t as f32,
                local: e as f32,
            })
            .collect();
        let c = calibration(&samples, |s| f64::from(s.local));
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        assert_eq!(c.samples, 7);
        // |e - t|: 0.05 + 0.15 + 0.02 + 0.05 = 0.27; squares: 0.0025 + 0.0225 + 0.0004 +
        // 0.0025 = 0.0279.
        assert!(close(c.mean_abs_error, 0.27 / 7.0), "{c:?}");
        assert!(close(c.mean_sq_error, 0.0279 / 7.0), "{c:?}");
        // Bin means: 0.025 against 0, 0.37 / 3 against 0.5 / 3, 0.975 against 1.
        assert!(
            close(c.calibration_error, (0.05 + 0.13 + 0.05) / 7.0),
            "{c:?}"
        );
        assert_eq!(c.bins.len(), 10);
        for (b, bin) in c.bins.iter().enumerate() {
            assert!(close(bin.low, b as f64 / 10.0) && close(bin.high, (b + 1) as f64 / 10.0));
            let (count, estimate, exact) = match b {
                0 => (2, 0.025, 0.0),
                1 => (3, 0.37 / 3.0, 0.5 / 3.0),
                9 => (2, 0.975, 1.0),
                _ => (0, 0.0, 0.0),
            };
            assert_eq!(bin.count, count, "bin {b}");
            assert!(
                close(bin.mean_estimate, estimate) && close(bin.mean_exact, exact),
                "bin {b}: {bin:?}"
            );
        }
        // A NaN estimate says nothing: it counts as 1/2, and the errors stay numbers.
        let c = calibration(&samples[..1], |_| f64::NAN);
        assert!(close(c.mean_abs_error, 0.5), "{c:?}");
        assert_eq!(c.bins[5].count, 1);
        // The model's answer is a probability whatever its density and local estimate.
        let model = PatternModel::builtin();
        let f = [UNDECIDED; NEIGHBOURHOOD];
        for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -3.0, 1e30] {
            let p = model.predict(&f, x, x);
            assert!((0.0..=1.0).contains(&p), "{x}: {p}");
        }
        assert_eq!(model.predict(&f, 7.0, -1.0), model.predict(&f, 1.0, 0.0));
        // No samples: zero errors, empty bins.
        let c = calibration(&[], |_| 0.5);
        assert_eq!(
            (c.samples, c.mean_abs_error, c.calibration_error),
            (0, 0.0, 0.0)
        );
    }

    #[test]
    fn calibration_of_the_exact_answer_is_perfect() {
        let samples: Vec<Sample> = (0..100)
            .map(|i| Sample {
                features: [UNDECIDED; NEIGHBOURHOOD],
                density: 0.2,
                target: (i as f32) / 100.0,
                local: 0.2,
            })
            .collect();
        let c = calibration(&samples, |s| f64::from(s.target));
        assert!(c.mean_abs_error < 1e-7 && c.calibration_error < 1e-7);
        let c = calibration(&samples, |_| 0.5);
        assert!((c.mean_abs_error - 0.25).abs() < 0.01);
        assert_eq!(c.bins.iter().map(|b| b.count).sum::<usize>(), 100);
    }
}
