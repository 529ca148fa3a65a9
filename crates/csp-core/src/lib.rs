//! Constraint propagation, exact solution counting and exactly-uniform sampling for boolean
//! "exactly k of these variables are true" problems.
//!
//! A [`BoolCsp`] has `num_vars` boolean variables, any number of constraints
//! "exactly `count` of `vars` are true" ([`BoolCsp::exactly`]) and optionally a global total
//! "exactly `T` of *all* variables are true" ([`BoolCsp::set_total`]). This is the shape of
//! Minesweeper: cells are variables (true = mine), each revealed number constrains its hidden
//! neighbours, and the mine counter is the total. Variables that appear in no constraint are
//! still variables: they matter through the total. A constraint may also bound its number of
//! trues from either side ([`BoolCsp::at_most`], [`BoolCsp::at_least`],
//! [`BoolCsp::between`]): every function below takes them, and propagation is strongest on
//! "exactly" constraints.
//!
//! - [`propagate`]: cheap, sound logic only (trivial rules, subset reduction and pairwise
//!   bounds between constraints, the total), to a fixpoint;
//! - [`analyze`]: the exact number of solutions, the probability that each variable is true
//!   under the uniform distribution over solutions, and which variables are forced;
//! - [`count`]: only the number of solutions;
//! - [`sample`] / [`Sampler`]: exactly-uniform random solutions;
//! - [`estimate`]: approximate marginals by block Gibbs sampling, for problems whose components
//!   exceed the exact engine's [`Budget`].
//!
//! The [`placement`] module adds finite-domain variables whose values are sets of elements
//! (bitsets over at most 128 elements, such as ships on a board of up to 128 cells), kept
//! pairwise disjoint (optionally with a "halo" around each value), with required, forbidden
//! and per-variable covering constraints: propagation ([`propagate_placements`]), exact
//! counting with per-value and per-element counts ([`analyze_placements`]), exactly-uniform
//! sampling ([`sample_placements`], and [`PlacementSampler`] for many draws) and a Markov
//! chain sampler as the fallback when counting
//! exceeds its budget ([`PlacementChain`], [`estimate_placements`]). A [`Grid`] builds the
//! domains of pieces on a rectangular board (every translate of a shape, with or without a
//! no-touch halo).
//!
//! # How counting works
//!
//! After propagation, variables in no constraint are *free*. The remaining constraints split
//! into independent connected *components* (constraints sharing variables). Inside a component,
//! variables with identical constraint membership are merged into a *box*: a box of size `s`
//! holding `j` trues stands for `C(s, j)` assignments. Each component's box assignments are
//! enumerated by backtracking (with pruning by the fewest and the most trues every constraint
//! still allows, and by the most the global total leaves), accumulating for each number `m` of
//! trues the weighted number of assignments `W[m]` and each box's weighted number of trues.
//! Components are then combined by convolution over `m`, and each global number of trues `k` is
//! weighted by the number of ways to place the rest of the total on the free variables,
//! `C(free, T - k)` (or `2^free` without a total).
//!
//! Counts are exact [`BigUint`]s: they overflow every primitive type (an expert Minesweeper
//! board has `C(480, 99) ≈ 5.6 · 10^104` mine layouts, far beyond `u128::MAX ≈ 3.4 · 10^38`).
//! Probabilities are exact ratios converted to `f64` only at the end.
//!
//! # Example
//!
//! Five cells, a revealed "1" touching cells 0, 1 and 2, and 2 mines in total:
//!
//! ```
//! use csp_core::rand::SeedableRng;
//! use csp_core::rand_xoshiro::Xoshiro256PlusPlus;
//! use csp_core::{analyze, sample, BigUint, BoolCsp, Budget};
//!
//! let mut csp = BoolCsp::new(5);
//! csp.exactly(&[0, 1, 2], 1)?;
//! csp.set_total(2);
//!
//! let a = analyze(&csp, &Budget::default())?;
//! // One mine among cells 0..3 (3 ways) and one among cells 3 and 4 (2 ways).
//! assert_eq!(a.solutions, BigUint::from_u64(6));
//! assert!((a.probabilities[0] - 1.0 / 3.0).abs() < 1e-12);
//! assert!((a.probabilities[4] - 0.5).abs() < 1e-12);
//! assert_eq!(a.forced, vec![None; 5]);
//! assert_eq!(a.components, 1);
//!
//! // Any `rand` generator will do; the re-exported ones need no dependency of your own.
//! let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
//! let s = sample(&csp, &Budget::default(), &mut rng)?;
//! assert!(csp.is_satisfied_by(&s));
//! # Ok::<(), csp_core::CspError>(())
//! ```
#![deny(missing_docs)]

pub mod bignum;
mod count;
mod frontier;
mod grid;
mod mcmc;
mod naive;
pub mod placement;
mod propagate;
mod sample;

pub use bignum::BigUint;
pub use count::{Analysis, AnalysisStats, analyze, count, true_range};
pub use frontier::FrontierCount;
pub use grid::Grid;
pub use mcmc::{Estimate, McmcConfig, STD_ERROR_BATCHES, estimate};
pub use naive::analyze_naive;
pub use placement::{
    Family, PlacementAnalysis, PlacementChain, PlacementCsp, PlacementEstimate, PlacementSampler,
    Value, analyze_placements, analyze_placements_naive, analyze_placements_unlabelled,
    count_placements, estimate_placements, estimate_placements_with_blocks, propagate_placements,
    sample_placements,
};
pub use propagate::propagate;
pub use sample::{Sampler, sample};
/// The random-number crates of this crate's API (the samplers take a `rand` generator; a
/// seeded `rand_xoshiro` one replays its draws), re-exported so that a caller's generator is
/// of the version the API expects, with no dependency of the caller's own.
pub use {rand, rand_xoshiro};

/// Errors of the constraint functions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CspError {
    /// A variable index is not below the number of variables.
    #[error("variable {var} out of range (the problem has {num_vars} variables)")]
    VarOutOfRange {
        /// The offending variable.
        var: usize,
        /// The number of variables of the problem.
        num_vars: usize,
    },
    /// A variable appears twice in one list: a constraint, or a block of
    /// [`PlacementChain::step_block`].
    #[error("variable {var} is listed twice")]
    DuplicateVar {
        /// The repeated variable.
        var: usize,
    },
    /// The problem has no solution.
    #[error("the constraints are inconsistent (no solution)")]
    Inconsistent,
    /// The enumeration of one component (of a placement problem: of the whole problem) needed
    /// more search nodes than [`Budget::max_nodes`]. The caller may fall back to something
    /// cheaper (for example [`propagate`], or a Markov chain).
    #[error("search budget of {max_nodes} nodes exceeded on {component_vars} variables")]
    BudgetExceeded {
        /// The budget that was exceeded.
        max_nodes: u64,
        /// The number of variables whose enumeration was abandoned (those of one component,
        /// or of the whole placement problem).
        component_vars: usize,
    },
    /// A placement problem was built with invalid data (a shape leaving the 128 elements, an
    /// element outside the universe, a halo missing its own cells, too many variables).
    #[error("invalid placement problem: {0}")]
    InvalidPlacement(String),
    /// An exact placement count exceeded what its `u128` counters hold (`u128::MAX >> 7`,
    /// which leaves room for the summed counts of a group of interchangeable variables).
    #[error("the number of solutions is too large for u128 counters")]
    CountOverflow,
}

/// Limits on the exact enumeration.
///
/// The budget counts search nodes, not time, so that a result does not depend on the
/// machine. Within a component the search meets every solution, box by box (it caches no
/// sub-counts: splitting the problem into components and variables into boxes is what keeps
/// it small), so the nodes grow with the number of solutions (those with no more trues than
/// a global total leaves, as the search stops at that many): a chain
/// of overlapping constraints has exponentially many in its length, and a long enough one
/// runs past any budget. What a node costs depends on the component: every solution the enumeration
/// reaches adds its weight to each box's count of trues (for the marginals of [`analyze`]),
/// so on a large component with many solutions (a long chain of constraints, thousands of
/// variables) a node costs time in proportion to the component's boxes, and the default
/// budget can take minutes to run out: on a long chain of constraints such as `exactly 1
/// of {2i, 2i + 1, 2i + 2}`, [`analyze`] spends many times as long a node as [`count`],
/// which keeps no marginals. A caller that needs an answer quickly on such problems sets a
/// smaller `max_nodes` (and falls back on [`estimate`] past it), or calls [`count`] when
/// the number of solutions is all it needs.
///
/// Two parts of the work are outside the budget, as they are not search: combining the
/// components through a global total, whose cost grows with the square of the number of
/// components (when many of them may each hold several numbers of trues), and the binomial
/// coefficients of the variables no constraint names, whose cost grows with their number
/// and with the size of the numbers (millions of free variables make numbers of millions of
/// bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Maximum number of search nodes (box assignments tried) per component; exceeding it makes
    /// [`analyze`], [`count`] and [`sample`] return [`CspError::BudgetExceeded`].
    pub max_nodes: u64,
}

impl Default for Budget {
    /// 10 million nodes per component: about a second of enumeration on components of up to
    /// a few hundred variables whose counts fit in a few machine words; a node costs more as
    /// the counts grow (each multiplies them) and as the component does, up to minutes for
    /// [`analyze`] on components of thousands of variables (see [`Budget`]).
    fn default() -> Self {
        Budget {
            max_nodes: 10_000_000,
        }
    }
}

/// One constraint: between `min` and `max` of `vars` (both included) are true; "exactly
/// `k`" when `min == max`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constraint {
    /// The variables, sorted, without duplicates.
    pub vars: Vec<usize>,
    /// The fewest of them that are true.
    pub min: u32,
    /// The most of them that are true (at most `vars.len()`).
    pub max: u32,
}

impl Constraint {
    /// Whether it is an "exactly `k`" constraint (`min == max`).
    pub fn is_exact(&self) -> bool {
        self.min == self.max
    }

    /// Whether `trues` of its variables being true keeps it.
    pub fn allows(&self, trues: u32) -> bool {
        (self.min..=self.max).contains(&trues)
    }
}

/// A boolean constraint problem: `num_vars` variables, "exactly k of these" constraints (or
/// "between min and max of these") and an optional global total.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoolCsp {
    num_vars: usize,
    constraints: Vec<Constraint>,
    total: Option<u32>,
    /// Set when a constraint that no assignment keeps was added (`min > vars.len()`, or
    /// `min > max`).
    inconsistent: bool,
}

impl BoolCsp {
    /// A problem with `num_vars` variables and no constraints. The analyses keep a few words
    /// per variable, so billions of variables need as many words of memory (and a count
    /// fails as an allocation failure does where the machine has not got them).
    pub fn new(num_vars: usize) -> BoolCsp {
        BoolCsp {
            num_vars,
            ..BoolCsp::default()
        }
    }

    /// The number of variables.
    pub fn num_vars(&self) -> usize {
        self.num_vars
    }

    /// Adds the constraint "exactly `count` of `vars` are true".
    ///
    /// # Errors
    /// - [`CspError::VarOutOfRange`] / [`CspError::DuplicateVar`]: the constraint is rejected
    ///   and the problem is unchanged;
    /// - [`CspError::Inconsistent`] if `count > vars.len()`: the problem is marked as having no
    ///   solution (later calls to [`analyze`] etc. return `Inconsistent` too).
    pub fn exactly(&mut self, vars: &[usize], count: u32) -> Result<(), CspError> {
        self.between(vars, count, count)
    }

    /// Adds the constraint "at most `max` of `vars` are true".
    ///
    /// # Errors
    /// [`CspError::VarOutOfRange`] / [`CspError::DuplicateVar`]: the constraint is rejected and
    /// the problem is unchanged.
    pub fn at_most(&mut self, vars: &[usize], max: u32) -> Result<(), CspError> {
        self.between(vars, 0, max)
    }

    /// Adds the constraint "at least `min` of `vars` are true".
    ///
    /// # Errors
    /// As [`BoolCsp::between`].
    pub fn at_least(&mut self, vars: &[usize], min: u32) -> Result<(), CspError> {
        self.between(vars, min, u32::MAX)
    }

    /// Adds the constraint "between `min` and `max` of `vars` (both included) are true".
    /// With `min == max` it is [`BoolCsp::exactly`]; a `max` above `vars.len()` means
    /// `vars.len()`, and a constraint that every assignment keeps (`min == 0` and
    /// `max >= vars.len()`) is checked and then left out.
    ///
    /// Counting, sampling and estimating take every kind alike. Propagation applies to
    /// "between" constraints the rules that need no other constraint (all of their trues
    /// placed: the rest are false; all their variables needed: they are true) and, with a
    /// total, the rule that their trues and the other variables' add up to it; the pairwise
    /// rules between constraints apply to "exactly" ones only.
    ///
    /// # Errors
    /// - [`CspError::VarOutOfRange`] / [`CspError::DuplicateVar`]: the constraint is rejected
    ///   and the problem is unchanged;
    /// - [`CspError::Inconsistent`] if `min > vars.len()` or `min > max`: the problem is marked
    ///   as having no solution (later calls to [`analyze`] etc. return `Inconsistent` too).
    pub fn between(&mut self, vars: &[usize], min: u32, max: u32) -> Result<(), CspError> {
        let mut sorted = vars.to_vec();
        sorted.sort_unstable();
        for (i, &v) in sorted.iter().enumerate() {
            if v >= self.num_vars {
                return Err(CspError::VarOutOfRange {
                    var: v,
                    num_vars: self.num_vars,
                });
            }
            if i > 0 && sorted[i - 1] == v {
                return Err(CspError::DuplicateVar { var: v });
            }
        }
        if min as usize > sorted.len() || min > max {
            self.inconsistent = true;
            return Err(CspError::Inconsistent);
        }
        let max = max.min(u32::try_from(sorted.len()).unwrap_or(u32::MAX));
        if !sorted.is_empty() && (min > 0 || (max as usize) < sorted.len()) {
            self.constraints.push(Constraint {
                vars: sorted,
                min,
                max,
            });
        }
        Ok(())
    }

    /// Requires exactly `total` of all `num_vars` variables to be true. Without a total every
    /// assignment satisfying the constraints counts once. Calling it again replaces the total.
    pub fn set_total(&mut self, total: u32) {
        self.total = Some(total);
    }

    /// Removes the global total.
    pub fn clear_total(&mut self) {
        self.total = None;
    }

    /// The global total, if set.
    pub fn total(&self) -> Option<u32> {
        self.total
    }

    /// Fixes a variable: the same as `exactly(&[var], value as u32)`.
    ///
    /// # Errors
    /// [`CspError::VarOutOfRange`].
    pub fn fix(&mut self, var: usize, value: bool) -> Result<(), CspError> {
        self.exactly(&[var], u32::from(value))
    }

    /// The constraints added so far (each with sorted variables).
    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    /// Whether a full assignment (one `bool` per variable) satisfies every constraint and the
    /// total. `false` if the length is wrong or the problem was marked inconsistent.
    pub fn is_satisfied_by(&self, assignment: &[bool]) -> bool {
        if self.inconsistent || assignment.len() != self.num_vars {
            return false;
        }
        let ok = self.constraints.iter().all(|c| {
            let trues = c.vars.iter().filter(|&&v| assignment[v]).count();
            u32::try_from(trues).is_ok_and(|t| c.allows(t))
        });
        ok && self
            .total
            .is_none_or(|t| assignment.iter().filter(|&&b| b).count() == t as usize)
    }
}

/// This crate's README: its examples run as doctests, so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
