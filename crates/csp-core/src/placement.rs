//! Finite-domain "placement" variables: each variable takes one value from its domain, a value
//! is a set of elements of a universe of at most [`MAX_ELEMENTS`] elements, and the chosen
//! values must be pairwise disjoint (optionally keeping each value's *halo* free of the
//! others).
//!
//! This is the shape of Battleship (elements are cells, a variable is a ship, a value is one
//! way to lay it on the board) and of other packing puzzles with translated pieces. Domains
//! are stored as [`Family`]s: one *shape* (a bitset anchored at element 0) translated by every
//! allowed *start* offset. Filtering a domain is then a bitwise `AND` on a 128-bit start mask,
//! and "which starts of this family avoid the occupied set `M`" is
//! `starts & !(OR over o in shape of M >> o)`: a handful of shifts instead of a loop over
//! values. That is what lets exact counting of the empty 10x10 Battleship board (about
//! 3 · 10^10 fleets) finish in about 6.5 s on one core (docs/PERFORMANCE.md; some 112
//! million nodes, so with a budget past the default's 10 million): the last
//! variable of every branch is counted with one population count instead of being
//! enumerated.
//!
//! Constraints:
//! - every pair of variables takes disjoint values, and a value's [`Family::with_halo`] halo
//!   (for example its cells plus their 8 neighbours) must not meet another value's cells;
//!   the halo relation must be symmetric (`p`'s halo meets `q`'s cells exactly when `q`'s halo
//!   meets `p`'s cells), which the usual "grown by one cell" halos are. The counting,
//!   propagation and sampling below test only a value's cells against the halos of the
//!   values already chosen, so with an asymmetric relation (for example families with halos
//!   beside families without, on one board) their answers depend on the order of the
//!   variables; [`PlacementCsp::is_solution`] tests both ways. Adding a variable refuses
//!   the commonest such mix, pieces from
//!   [`Grid::translates_no_touch`](crate::Grid::translates_no_touch) beside pieces without a
//!   halo, at no cost; halo tables made or shared by hand are checked pair of families by
//!   pair of families ([`PlacementCsp::check_halos`]) each time such a problem is counted
//!   or a chain started on it, and an asymmetric relation is an error;
//! - [`PlacementCsp::require`]: elements that some variable must cover;
//! - [`PlacementCsp::forbid`]: elements no variable may cover;
//! - [`PlacementCsp::require_var`]: elements a given variable must cover;
//! - [`PlacementCsp::retain`]: any other unary restriction of a domain, such as "fixed to a
//!   subset of its values".
//!
//! Algorithms:
//! - [`propagate_placements`]: domain filtering to a fixpoint (forbidden elements, values of
//!   fixed variables, required elements that only one variable can still cover);
//! - [`analyze_placements`]: exact number of solutions and exact per-value and per-element
//!   counts, by backtracking that first branches on *which variable covers* the lowest
//!   uncovered required element (each solution is reached once, since the coverer is
//!   unique), prunes when the remaining variables are too small to cover what is required,
//!   and counts the last free variable with one population count (its per-start counts are
//!   accumulated in bit-sliced counters, a few word operations per node). With nothing
//!   required left, it branches on the variables one by one, unless they need at least three
//!   quarters of the elements they can still reach (or their smallest halos, laid side by
//!   side, would cover them all): on such a crowded board it branches on
//!   the lowest reachable element, covered by some variable or left empty, which meets the
//!   packing's dead ends once instead of once per order of interchangeable variables (and it
//!   prunes when they need more elements than they can reach). The lowest element is the
//!   lowest index, so how the elements are numbered matters: on a grid numbered row by row
//!   (`y * width + x`), a long thin board is counted far faster standing (short rows, the
//!   search fills it row by row, meeting dead ends early) than lying (long rows, whose dead
//!   ends show only after many pieces are placed): give the narrow side as the width;
//! - [`sample_placements`]: exactly-uniform solutions, by walking the exact counts: draw the
//!   first variable's value with probability proportional to its number of completions, fix
//!   it, recount, and so on (from counts without labels where the labelled ones would
//!   overflow);
//! - [`PlacementChain`] / [`estimate_placements`]: the fallback when exact counting exceeds
//!   its [`Budget`]. It starts from one solution, found by a randomised search (on a board
//!   crowded from the start, where placing the pieces one by one soon runs out of nodes, by
//!   branching as the count does on the lowest element left open), then runs a Markov chain
//!   (Gibbs sampler) that re-places one *pair* of variables
//!   uniformly among their jointly consistent values. Re-placing a single variable uniformly
//!   already leaves the uniform distribution invariant, but cannot make two variables swap
//!   the required elements they cover; pair moves can. The chain's estimates carry the usual
//!   Monte Carlo error and correlation between successive sweeps (each element's estimate
//!   comes with a standard error by batch means), and sweeps alone are right
//!   in the limit only where pair moves connect the solutions;
//!   [`PlacementChain::step_block`] redraws three or more variables exactly where they do
//!   not (see [`PlacementChain`]).
//! - [`analyze_placements_naive`]: a plain enumeration of every assignment, the reference for
//!   tests and benchmarks.
//! - [`FrontierCount`](crate::FrontierCount): the exact count by dynamic programming over
//!   the elements in order, memoised on what the chosen values cover and block ahead (work
//!   per distinct frontier, not per solution), with exactly uniform draws from its table
//!   and the per-value and per-element counts of [`analyze_placements`].
//!
//! Variables are labelled: two variables with the same domain (two ships of the same length,
//! or the pieces of a tiling) are different variables, and a solution that swaps their values
//! is another solution, so the counts are labelled counts (divide by `k!` for `k`
//! interchangeable pieces). The search does not pay for the labels where it can avoid it:
//! variables with identical domains are interchangeable while unassigned, so when an element
//! must be covered it tries only the first unassigned one of each such group and counts its
//! completions once per member, and when it branches on variables, the first unassigned
//! member of a group takes the smallest of the group's values (once for each member that
//! could) and the others only values above it; the credits of a group are shared out
//! equally at the end. The 6x6 board's 6728 domino tilings (18! labelled orders each) are
//! counted in 33,094 nodes (the `tilings` example), and each set of `k` identical pieces on
//! an open board is visited once, not `k!` times. Labelled counts of many identical pieces
//! soon pass [`CspError::CountOverflow`]; [`analyze_placements_unlabelled`] counts each set
//! of values of a group once (the number of tilings itself). Where the counts pass even
//! that, the same exact cover can be written as a [`BoolCsp`](crate::BoolCsp) (one variable
//! per placement, exactly one true among the placements covering each cell) for the boolean
//! engine, whose counts are big integers. That does not help a search that runs past its
//! node budget: the boolean engine does about as much work on the same cover, so give the
//! search a larger [`Budget`] instead. Interchangeable pieces that can never meet (single
//! cells, say) are better counted by hand, as binomials: the search still places them one
//! by one.
//!
//! # Example
//!
//! Two dominoes on a 3x3 grid (elements `y * 3 + x`), one of them covering the corner 0:
//!
//! ```
//! use csp_core::{Budget, Family, PlacementCsp, analyze_placements};
//!
//! // Horizontal dominoes start in columns 0-1, vertical ones in rows 0-1.
//! let horizontal = Family::new(0b11, 0b011_011_011)?;
//! let vertical = Family::new(0b1001, 0b000_111_111)?;
//! let mut p = PlacementCsp::new(9)?;
//! for _ in 0..2 {
//!     p.add_var(vec![horizontal.clone(), vertical.clone()])?;
//! }
//! let all = analyze_placements(&p, &Budget::default())?;
//! // 12 placements each; 88 of the 144 ordered pairs are disjoint.
//! assert_eq!(all.solutions, 88);
//! p.require(1)?; // a hit on the corner
//! let a = analyze_placements(&p, &Budget::default())?;
//! // Either domino covers the corner, in 2 ways; the other then has 8 placements left.
//! assert_eq!(a.solutions, 2 * 2 * 8);
//! assert_eq!(a.element_counts[0], a.solutions);
//! # Ok::<(), csp_core::CspError>(())
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use rand::{Rng, RngExt};

use crate::mcmc::BatchMeans;
use crate::{Budget, CspError};

/// The largest universe: elements are bits of a `u128`.
pub const MAX_ELEMENTS: usize = 128;

/// The most variables a placement problem may have: the engines keep sets of variables as
/// the bits of a `u64`.
pub const MAX_VARS: usize = 64;

/// Starts `s` of `shape` whose translate `shape << s` meets `mask`.
#[inline]
pub(crate) fn meeting_starts(shape: u128, mask: u128) -> u128 {
    let mut r = 0u128;
    let mut sh = shape;
    while sh != 0 {
        let o = sh.trailing_zeros();
        r |= mask >> o;
        sh &= sh - 1;
    }
    r
}

/// The starts of a family `g` that meet the block of a value of a family `f`, for any start
/// of `f`: `meeting_starts(g.shape, f.block(s))`, which the counting and sampling loops ask
/// for every start `s` in turn. Where `f`'s block is its own cells, it is one pattern shifted
/// by `s` (the starts `s + i - o`, `i` a cell of `f`, `o` of `g`), computed once and stored
/// shifted up by `k`, `g`'s largest offset, so that none is negative; with a halo table, it
/// is computed for each start.
#[derive(Clone, Copy)]
struct Meets(Option<(u128, u32)>);

impl Meets {
    fn new(f: &Family, g: &Family) -> Meets {
        Meets(
            127u32
                .checked_sub(g.shape.leading_zeros())
                .filter(|&k| f.halo.is_none() && f.shape.leading_zeros() >= k)
                .map(|k| (meeting_starts(g.shape, f.shape << k), k)),
        )
    }

    /// `meeting_starts(g.shape, f.block(s))`, for the `f` and `g` this was made for.
    #[inline]
    fn at(self, f: &Family, g: &Family, s: u32) -> u128 {
        match self.0 {
            Some((m, k)) if s >= k => m << (s - k),
            Some((m, k)) => m >> (k - s),
            None => meeting_starts(g.shape, f.block(s)),
        }
    }
}

/// The values of a pair of variables that avoid `block` and together cover `need`: for each
/// value `(family, start)` of the first variable (from families `fa`) that avoids `block`,
/// the number of values of the second (from `fb`) that avoid `block` and the first's block
/// and cover what the first leaves of `need`, pushed to `out` (cleared first) when not 0;
/// returns their sum.
///
/// The starts of a family that meet a set are an OR of shifts of it, so everything that
/// does not depend on the first value is computed once: the second's starts that avoid
/// `block`, those that cover each needed element, and the starts of each second family that
/// meet the first's values ([`Meets`]). A test checks the counts against the plain
/// computation.
fn pair_weights(
    fa: &[Family],
    fb: &[Family],
    block: u128,
    need: u128,
    out: &mut Vec<(usize, u32, u32)>,
) -> u64 {
    out.clear();
    // Per family of the second variable: its starts that avoid `block`, and for each
    // element of `need` (as a bit) the starts that cover it.
    let second: Vec<(u128, Vec<(u128, u128)>)> = fb
        .iter()
        .map(|g| {
            let covers = bits(need)
                .map(|e| (1u128 << e, meeting_starts(g.shape, 1u128 << e)))
                .collect();
            (g.free_starts(block), covers)
        })
        .collect();
    let mut total = 0u64;
    for (fi, f) in fa.iter().enumerate() {
        let meets: Vec<Meets> = fb.iter().map(|g| Meets::new(f, g)).collect();
        for s in bits(f.free_starts(block)) {
            let rest = need & !f.cells(s);
            let w: u32 = fb
                .iter()
                .zip(&second)
                .zip(&meets)
                .map(|((g, (free, covers)), meets)| {
                    let mut m = free & !meets.at(f, g, s);
                    for &(e, cover) in covers {
                        if rest & e != 0 {
                            m &= cover;
                        }
                    }
                    m.count_ones()
                })
                .sum();
            if w > 0 {
                out.push((fi, s, w));
                total += u64::from(w);
            }
        }
    }
    total
}

/// Bits of a `u128`, lowest first.
#[inline]
pub(crate) fn bits(mut m: u128) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let b = m.trailing_zeros();
            m &= m - 1;
            Some(b)
        }
    })
}

/// The `n`-th set bit (0-based) of `m`; `m` must have more than `n` bits set.
#[inline]
fn nth_bit(mut m: u128, n: u32) -> u32 {
    for _ in 0..n {
        m &= m - 1;
    }
    m.trailing_zeros()
}

/// A family of values: one shape translated by each allowed start.
///
/// The value with start `s` covers the elements `shape << s`. Its *halo* (by default its own
/// cells) is the set of elements no other variable may cover while it is chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    shape: u128,
    starts: u128,
    halo: Option<Arc<[u128]>>,
    /// Where the halos come from, so that [`PlacementCsp::add_var`] can refuse the commonest
    /// asymmetric halo relation for free.
    halo_source: HaloSource,
    /// Whether the halo table was shared from another family ([`Family::share_halo`]), which
    /// may have been built for another grid.
    shared: bool,
}

/// Where a family's halos come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HaloSource {
    /// No halo table: each value's halo is its cells.
    Cells,
    /// [`crate::Grid::translates_no_touch`] on a grid of this width and height: cells and
    /// their eight neighbours.
    NoTouch(usize, usize),
    /// A table given by hand ([`Family::with_halo`]): not checked.
    Table,
}

impl HaloSource {
    /// The halo rule, for the sources whose rule is known: families of two different known
    /// rules make the halo relation asymmetric (one placement's halo meets the other's cells
    /// while the other's does not meet the first's) wherever the board lets them lie side by
    /// side (which is nearly always; [`PlacementCsp::add_var`] refuses every such mix).
    fn rule(self) -> Option<Option<(usize, usize)>> {
        match self {
            HaloSource::Cells => Some(None),
            HaloSource::NoTouch(w, h) => Some(Some((w, h))),
            HaloSource::Table => None,
        }
    }
}

impl Family {
    /// The family of translates `shape << s` for every bit `s` of `starts`.
    ///
    /// # Errors
    /// [`CspError::InvalidPlacement`] if `shape` is empty or a translate does not fit in 128
    /// bits.
    pub fn new(shape: u128, starts: u128) -> Result<Family, CspError> {
        if shape == 0 {
            return Err(CspError::InvalidPlacement(
                "a family's shape is empty".into(),
            ));
        }
        let top = 127 - shape.leading_zeros();
        if starts != 0 && top + (127 - starts.leading_zeros()) > 127 {
            return Err(CspError::InvalidPlacement(format!(
                "shape {shape:#x} translated by start {} leaves the 128 elements",
                127 - starts.leading_zeros()
            )));
        }
        Ok(Family {
            shape,
            starts,
            halo: None,
            halo_source: HaloSource::Cells,
            shared: false,
        })
    }

    /// Gives every value a halo: `halo[s]` for start `s` (the vector has one entry per start
    /// bit, 128 in all). Each halo must contain its value's cells.
    ///
    /// # Errors
    /// [`CspError::InvalidPlacement`] if `halo` does not have 128 entries or a halo misses one
    /// of its value's cells.
    pub fn with_halo(mut self, halo: Vec<u128>) -> Result<Family, CspError> {
        if halo.len() != MAX_ELEMENTS {
            return Err(CspError::InvalidPlacement(format!(
                "a halo table needs {MAX_ELEMENTS} entries, not {}",
                halo.len()
            )));
        }
        self.halo = Some(halo.into());
        self.halo_source = HaloSource::Table;
        self.check_halo()?;
        Ok(self)
    }

    /// Marks the halos as [`crate::Grid::translates_no_touch`]'s on a `width` x `height` grid.
    pub(crate) fn no_touch_on(mut self, width: usize, height: usize) -> Family {
        self.halo_source = HaloSource::NoTouch(width, height);
        self
    }

    /// Refuses a value whose halo misses one of its own cells.
    fn check_halo(&self) -> Result<(), CspError> {
        match bits(self.starts).find(|&s| self.block(s) & self.cells(s) != self.cells(s)) {
            Some(s) => Err(CspError::InvalidPlacement(format!(
                "the halo of start {s} does not contain its cells"
            ))),
            None => Ok(()),
        }
    }

    /// Shares the halo table of `other` (cheap: reference counted). The tables are per start,
    /// so `other` must have been built for the same shape on the same grid, with every start
    /// of this family. Only a value whose shared halo misses its own cells is detected
    /// ([`PlacementCsp::add_var`] refuses it); a halo built for another grid (cut at another
    /// edge) is not, and makes the halo relation asymmetric ([`PlacementCsp::check_halos`]
    /// finds that). A family of another shape is returned unchanged: nothing is shared.
    #[must_use]
    pub fn share_halo(mut self, other: &Family) -> Family {
        if other.shape == self.shape {
            self.halo.clone_from(&other.halo);
            self.halo_source = other.halo_source;
            self.shared = true;
        }
        self
    }

    /// Whether the halos were given by hand or shared from another family: only then can
    /// the halo relation be asymmetric in a problem that [`PlacementCsp::add_var`] accepted.
    fn hand_made_halos(&self) -> bool {
        self.shared || self.halo_source == HaloSource::Table
    }

    /// The shape anchored at element 0.
    pub fn shape(&self) -> u128 {
        self.shape
    }

    /// The allowed starts.
    pub fn starts(&self) -> u128 {
        self.starts
    }

    /// Keeps only the starts in `mask`.
    pub fn restrict(&mut self, mask: u128) {
        self.starts &= mask;
    }

    /// The number of values.
    pub fn len(&self) -> u32 {
        self.starts.count_ones()
    }

    /// Whether the family has no value left.
    pub fn is_empty(&self) -> bool {
        self.starts == 0
    }

    /// The elements covered by start `s`: the shape's translate, clipped to the 128
    /// elements (nothing for `s >= 128`). Any start has cells; whether it is a value of the
    /// family is [`Family::starts`]'s to say.
    #[inline]
    pub fn cells(&self, s: u32) -> u128 {
        self.shape.checked_shl(s).unwrap_or(0)
    }

    /// Whether some value of the family covers exactly `cells`.
    fn holds(&self, cells: u128) -> bool {
        let (c, h) = (cells.trailing_zeros(), self.shape.trailing_zeros());
        cells != 0 && c >= h && self.starts >> (c - h) & 1 == 1 && self.cells(c - h) == cells
    }

    /// The halo of start `s`: its entry of the halo table, or its cells when the family has
    /// no table (nothing for `s >= 128`).
    #[inline]
    pub fn block(&self, s: u32) -> u128 {
        match &self.halo {
            Some(h) => h.get(s as usize).copied().unwrap_or(0),
            None => self.cells(s),
        }
    }

    /// Starts whose cells avoid `blocked` entirely.
    #[inline]
    fn free_starts(&self, blocked: u128) -> u128 {
        self.starts & !meeting_starts(self.shape, blocked)
    }
}

/// One variable's value: the family it belongs to and its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value {
    /// Index of the family in the variable's domain.
    pub family: usize,
    /// The start offset.
    pub start: u32,
}

/// A placement problem: variables with [`Family`] domains over a universe of elements.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlacementCsp {
    universe: usize,
    vars: Vec<Vec<Family>>,
    required: u128,
    forbidden: u128,
    /// Search every labelled assignment (see [`PlacementCsp::set_labelled_search`]).
    labelled_search: bool,
}

impl PlacementCsp {
    /// A problem over elements `0..universe` (at most [`MAX_ELEMENTS`]) with no variables.
    ///
    /// # Errors
    /// [`CspError::InvalidPlacement`] if the universe is larger than [`MAX_ELEMENTS`].
    pub fn new(universe: usize) -> Result<PlacementCsp, CspError> {
        if universe > MAX_ELEMENTS {
            return Err(CspError::InvalidPlacement(format!(
                "a universe of {universe} elements is larger than {MAX_ELEMENTS}"
            )));
        }
        Ok(PlacementCsp {
            universe,
            ..PlacementCsp::default()
        })
    }

    fn universe_mask(&self) -> u128 {
        if self.universe == MAX_ELEMENTS {
            u128::MAX
        } else {
            (1u128 << self.universe) - 1
        }
    }

    fn check_elements(&self, elems: u128) -> Result<(), CspError> {
        let outside = elems & !self.universe_mask();
        if outside != 0 {
            return Err(CspError::InvalidPlacement(format!(
                "element {} is outside the universe of {} elements",
                outside.trailing_zeros(),
                self.universe
            )));
        }
        Ok(())
    }

    fn check_var(&self, var: usize) -> Result<(), CspError> {
        if var >= self.vars.len() {
            return Err(CspError::VarOutOfRange {
                var,
                num_vars: self.vars.len(),
            });
        }
        Ok(())
    }

    /// Adds a variable whose domain is the union of `families`; returns its index. A
    /// variable without values (no families, or families of a piece that fits nowhere) is
    /// accepted, and leaves the problem without solutions: [`analyze_placements`] and the
    /// functions on it report [`CspError::Inconsistent`] (the reference enumeration,
    /// [`analyze_placements_naive`], counts 0 solutions).
    ///
    /// # Errors
    /// [`CspError::InvalidPlacement`] if a value covers (or its halo reaches) an element
    /// outside the universe, or has a halo that misses one of its cells (a table shared from
    /// a family with other starts), or if two families hold a value with the same cells (a
    /// one-cell ship given both orientations, say): the counts and marginals count values,
    /// so such a value would weigh twice; also past [`MAX_VARS`] variables. Also if the
    /// problem would hold families without a halo table beside families from
    /// [`Grid::translates_no_touch`](crate::Grid::translates_no_touch), or families from the
    /// no-touch translates of grids of different sizes: their halo relation is asymmetric (a
    /// piece without a halo could lie beside one with a halo, but not the other way round),
    /// which makes every count depend on the order of the variables. (Halo tables given or
    /// shared by hand are checked where they are used: counting and starting a chain run
    /// [`PlacementCsp::check_halos`] on them.)
    pub fn add_var(&mut self, families: Vec<Family>) -> Result<usize, CspError> {
        if self.vars.len() >= MAX_VARS {
            return Err(CspError::InvalidPlacement(format!(
                "a variable past the {MAX_VARS} a placement problem may have"
            )));
        }
        for (i, f) in families.iter().enumerate() {
            f.check_halo()?;
            for s in bits(f.starts) {
                let cells = f.cells(s);
                self.check_elements(f.block(s) | cells)?;
                if let Some(j) = families[..i].iter().position(|g| g.holds(cells)) {
                    return Err(CspError::InvalidPlacement(format!(
                        "families {j} and {i} both hold the value covering {cells:#x}"
                    )));
                }
            }
        }
        let mut rules = self
            .vars
            .iter()
            .flatten()
            .chain(&families)
            .filter_map(|f| f.halo_source.rule());
        if let Some(first) = rules.next()
            && let Some(other) = rules.find(|&r| r != first)
        {
            let name = |r: Option<(usize, usize)>| match r {
                None => "without a halo".to_string(),
                Some((w, h)) => format!("with the no-touch halo of a {w}x{h} grid"),
            };
            return Err(CspError::InvalidPlacement(format!(
                "families {} beside families {}: the halo relation would not be symmetric, \
                 and the counts would depend on the order of the variables",
                name(first),
                name(other)
            )));
        }
        self.vars.push(families);
        Ok(self.vars.len() - 1)
    }

    /// The number of elements.
    pub fn universe(&self) -> usize {
        self.universe
    }

    /// The number of variables.
    pub fn num_vars(&self) -> usize {
        self.vars.len()
    }

    /// The domain of `var`, if it exists.
    pub fn domain(&self, var: usize) -> Option<&[Family]> {
        self.vars.get(var).map(Vec::as_slice)
    }

    /// The number of values left in the domain of `var` (0 for a variable that does not
    /// exist).
    pub fn domain_size(&self, var: usize) -> u32 {
        self.vars
            .get(var)
            .map_or(0, |fs| fs.iter().map(Family::len).sum())
    }

    /// Elements some variable must cover.
    pub fn required(&self) -> u128 {
        self.required
    }

    /// Elements no variable may cover.
    pub fn forbidden(&self) -> u128 {
        self.forbidden
    }

    /// With `true`, exact counting searches every labelled assignment, as if no two variables
    /// were interchangeable: the counts are the same, but the search visits up to `k!` times
    /// as many nodes for `k` variables with identical domains, so fewer problems fit a
    /// [`Budget`]. The default (`false`) branches on one of a group of interchangeable
    /// variables for all of them (see the [module documentation](self)). A caller whose node
    /// budgets and results were calibrated on the labelled search keeps them with `true`.
    pub fn set_labelled_search(&mut self, on: bool) {
        self.labelled_search = on;
    }

    /// Requires every element of `elems` to be covered by some variable.
    ///
    /// # Errors
    /// [`CspError::InvalidPlacement`] for an element outside the universe.
    pub fn require(&mut self, elems: u128) -> Result<(), CspError> {
        self.check_elements(elems)?;
        self.required |= elems;
        Ok(())
    }

    /// Forbids every element of `elems` to be covered.
    ///
    /// # Errors
    /// [`CspError::InvalidPlacement`] for an element outside the universe.
    pub fn forbid(&mut self, elems: u128) -> Result<(), CspError> {
        self.check_elements(elems)?;
        self.forbidden |= elems;
        Ok(())
    }

    /// Requires variable `var` to cover every element of `elems` (which are then required).
    ///
    /// # Errors
    /// [`CspError::VarOutOfRange`], or [`CspError::InvalidPlacement`] for an element outside
    /// the universe.
    pub fn require_var(&mut self, var: usize, elems: u128) -> Result<(), CspError> {
        self.check_var(var)?;
        self.check_elements(elems)?;
        self.required |= elems;
        for f in &mut self.vars[var] {
            let mut keep = f.starts;
            for e in bits(elems) {
                keep &= meeting_starts(f.shape, 1u128 << e);
            }
            f.starts = keep;
        }
        Ok(())
    }

    /// Keeps only the values of `var` whose cells satisfy `keep` (for example "the cells are a
    /// subset of these elements and contain that one").
    ///
    /// # Errors
    /// [`CspError::VarOutOfRange`].
    pub fn retain(
        &mut self,
        var: usize,
        mut keep: impl FnMut(u128) -> bool,
    ) -> Result<(), CspError> {
        self.check_var(var)?;
        for f in &mut self.vars[var] {
            let mut starts = f.starts;
            for s in bits(f.starts) {
                if !keep(f.cells(s)) {
                    starts &= !(1u128 << s);
                }
            }
            f.starts = starts;
        }
        Ok(())
    }

    /// Fixes `var` to the values whose cells are exactly `cells`.
    ///
    /// # Errors
    /// [`CspError::VarOutOfRange`].
    pub fn fix(&mut self, var: usize, cells: u128) -> Result<(), CspError> {
        self.retain(var, |c| c == cells)
    }

    /// The cells of `var` taking `value`, if both exist.
    pub fn cells(&self, var: usize, value: Value) -> Option<u128> {
        let f = self.vars.get(var)?.get(value.family)?;
        (value.start < 128 && f.starts >> value.start & 1 == 1).then(|| f.cells(value.start))
    }

    /// Whether `assignment` (one value per variable) is a solution: every value in its
    /// domain, values pairwise compatible (disjoint, halos respected both ways), required
    /// elements covered, forbidden ones not.
    pub fn is_solution(&self, assignment: &[Value]) -> bool {
        if assignment.len() != self.vars.len() {
            return false;
        }
        let mut placed: Vec<(u128, u128)> = Vec::with_capacity(assignment.len());
        for (v, &val) in assignment.iter().enumerate() {
            let Some(cells) = self.cells(v, val) else {
                return false;
            };
            let block = self.vars[v][val.family].block(val.start);
            if placed
                .iter()
                .any(|&(c, b)| c & block != 0 || cells & b != 0)
            {
                return false;
            }
            placed.push((cells, block));
        }
        let covered = placed.iter().fold(0u128, |a, &(c, _)| a | c);
        covered & self.required == self.required && covered & self.forbidden == 0
    }

    /// Checks that the halo relation is symmetric between every two variables: a value of
    /// one meets the halo of a value of the other exactly when the second meets the halo of
    /// the first (see the [module documentation](self) for why the algorithms need it).
    /// [`PlacementCsp::add_var`] checks only where the halos come from (it refuses
    /// [`crate::Grid::translates_no_touch`] families beside families without a halo, or
    /// beside those of a grid of another size); [`analyze_placements`] (and so the other
    /// counts and the exact sampler) and [`PlacementChain::new`] run this check on the
    /// families whose halos were given ([`Family::with_halo`]) or shared
    /// ([`Family::share_halo`]) by hand, and refuse an asymmetric problem; call it yourself
    /// to find out when the problem is built. Each pair of distinct families held by two
    /// different variables is compared once, value against start masks. Problems whose
    /// families all come from one [`crate::Grid`] by one method (all
    /// [`crate::Grid::translates`] or all [`crate::Grid::translates_no_touch`]) always
    /// pass.
    ///
    /// ```
    /// use csp_core::{Grid, PlacementCsp};
    /// let grid = Grid::new(4, 4)?;
    /// let mut csp = PlacementCsp::new(16)?;
    /// csp.add_var(vec![grid.translates_no_touch(&[(0, 0), (1, 0)])?])?;
    /// csp.add_var(vec![grid.translates_no_touch(&[(0, 0), (0, 1)])?])?;
    /// assert!(csp.check_halos().is_ok());
    /// // A single cell whose hand-made halo is itself and the cell to its right: a domino
    /// // just left of it has the cell in its halo, but is not in the cell's.
    /// let cell = grid.translates(&[(0, 0)])?;
    /// let table = (0..128)
    ///     .map(|s| match cell.starts() >> s & 1 {
    ///         1 => (cell.cells(s) | cell.cells(s) << 1) & grid.all(),
    ///         _ => 0,
    ///     })
    ///     .collect();
    /// csp.add_var(vec![cell.with_halo(table)?])?;
    /// assert!(csp.check_halos().is_err());
    /// // Pieces without a halo beside the no-touch ones are refused as they are added.
    /// assert!(csp.add_var(vec![grid.translates(&[(0, 0)])?]).is_err());
    /// # Ok::<(), csp_core::CspError>(())
    /// ```
    ///
    /// # Errors
    /// [`CspError::InvalidPlacement`] naming the first asymmetric pair of values found.
    pub fn check_halos(&self) -> Result<(), CspError> {
        self.check_halo_pairs(|_, _| true)
    }

    /// [`PlacementCsp::check_halos`] where halos were made or shared by hand: the only
    /// families whose relation [`PlacementCsp::add_var`] cannot vouch for (cheap, and free
    /// without such families).
    pub(crate) fn check_hand_made_halos(&self) -> Result<(), CspError> {
        if self.vars.iter().flatten().any(Family::hand_made_halos) {
            self.check_halo_pairs(|p, q| p.hand_made_halos() || q.hand_made_halos())
        } else {
            Ok(())
        }
    }

    /// [`PlacementCsp::check_halos`] on the pairs of families that `which` selects. The
    /// relation between two values depends only on their families, so each pair of distinct
    /// families that occur in two different variables is checked once, value by value of
    /// one against start masks of the other.
    fn check_halo_pairs(&self, which: impl Fn(&Family, &Family) -> bool) -> Result<(), CspError> {
        // Distinct families, each with the variables holding it.
        let mut distinct: Vec<(&Family, u64)> = Vec::new();
        for (v, fv) in self.vars.iter().enumerate() {
            for f in fv {
                match distinct.iter_mut().find(|d| d.0 == f) {
                    Some(d) => d.1 |= 1 << v,
                    None => distinct.push((f, 1 << v)),
                }
            }
        }
        let family_index = |v: usize, f: &Family| self.vars[v].iter().position(|g| g == f);
        for (i, &(p, pv)) in distinct.iter().enumerate() {
            // Per element, the starts of `p` whose halo holds it.
            let mut held = [0u128; MAX_ELEMENTS];
            for s in bits(p.starts) {
                for e in bits(p.block(s)) {
                    held[e as usize] |= 1 << s;
                }
            }
            for &(q, qv) in &distinct[i..] {
                // Two different variables holding them, `v` the one with `p`.
                let (v, w) = match (pv.trailing_zeros(), qv.trailing_zeros()) {
                    (v, w) if v != w => (v, w),
                    (v, _) if qv & !(1 << v) != 0 => (v, (qv & !(1 << v)).trailing_zeros()),
                    (v, _) if pv & !(1 << v) != 0 => ((pv & !(1 << v)).trailing_zeros(), v),
                    _ => continue,
                };
                if !which(p, q) {
                    continue;
                }
                let (v, w) = (v as usize, w as usize);
                for t in bits(q.starts) {
                    // Starts of `p` whose cells meet `q`'s halo, against those whose halo
                    // meets `q`'s cells.
                    let meets_halo = meeting_starts(p.shape, q.block(t)) & p.starts;
                    let halo_meets = bits(q.cells(t)).fold(0, |m, e| m | held[e as usize]);
                    let odd = meets_halo ^ halo_meets;
                    if odd != 0 {
                        let s = odd.trailing_zeros();
                        let (first, second) = if meets_halo & 1u128 << s != 0 {
                            ("meets", "does not meet")
                        } else {
                            ("does not meet", "meets")
                        };
                        let (a, b) = (family_index(v, p), family_index(w, q));
                        let (a, b) = (a.unwrap_or(0), b.unwrap_or(0));
                        return Err(CspError::InvalidPlacement(format!(
                            "asymmetric halos: variable {v} (family {a}, start {s}) \
                             {first} the halo of variable {w} (family {b}, start {t}), \
                             whose cells it {second} with its own halo"
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Filters the domains of `csp` to a fixpoint and returns the reduced problem (with the same
/// solutions):
/// - values covering a forbidden element are removed;
/// - a variable with a single value blocks its halo for every other variable;
/// - a required element that only one variable can still cover restricts that variable to
///   the values covering it.
///
/// # Errors
/// [`CspError::Inconsistent`] when a domain becomes empty or a required element can no longer
/// be covered.
#[allow(clippy::needless_range_loop)] // `v` indexes several parallel tables
pub fn propagate_placements(csp: &PlacementCsp) -> Result<PlacementCsp, CspError> {
    let mut p = csp.clone();
    let n = p.vars.len();
    // Unreachable through `add_var`, which refuses more; kept as the guard of the masks.
    if n > MAX_VARS {
        return Err(CspError::InvalidPlacement(format!(
            "{n} variables: at most {MAX_VARS} are supported"
        )));
    }
    for fs in &mut p.vars {
        for f in fs.iter_mut() {
            f.starts = f.free_starts(p.forbidden);
        }
    }
    let mut applied_single = vec![false; n];
    loop {
        let mut changed = false;
        for v in 0..n {
            if p.vars[v].iter().all(Family::is_empty) {
                return Err(CspError::Inconsistent);
            }
        }
        // Singletons block their halos for everyone else.
        for v in 0..n {
            if applied_single[v] || p.domain_size(v) != 1 {
                continue;
            }
            applied_single[v] = true;
            let Some((fi, s)) = p.vars[v]
                .iter()
                .enumerate()
                .find(|(_, f)| !f.is_empty())
                .map(|(i, f)| (i, f.starts.trailing_zeros()))
            else {
                return Err(CspError::Inconsistent);
            };
            let block = p.vars[v][fi].block(s);
            for (w, fs) in p.vars.iter_mut().enumerate() {
                if w != v {
                    for f in fs.iter_mut() {
                        let before = f.starts;
                        f.starts = f.free_starts(block);
                        changed |= before != f.starts;
                    }
                }
            }
        }
        // Required elements with a single possible coverer.
        for e in bits(p.required) {
            let m = 1u128 << e;
            let mut coverer = None;
            let mut many = false;
            for (v, fs) in p.vars.iter().enumerate() {
                if fs
                    .iter()
                    .any(|f| f.starts & meeting_starts(f.shape, m) != 0)
                {
                    if coverer.is_some() {
                        many = true;
                        break;
                    }
                    coverer = Some(v);
                }
            }
            match (coverer, many) {
                (None, _) => return Err(CspError::Inconsistent),
                (Some(v), false) => {
                    for f in &mut p.vars[v] {
                        let before = f.starts;
                        f.starts &= meeting_starts(f.shape, m);
                        changed |= before != f.starts;
                    }
                }
                _ => {}
            }
        }
        if !changed {
            return Ok(p);
        }
    }
}

/// Exact counts of a placement problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacementAnalysis {
    /// The number of solutions.
    pub solutions: u128,
    /// `value_counts[v][f][s]`: solutions in which variable `v` takes start `s` of its family
    /// `f` (128 entries per family).
    pub value_counts: Vec<Vec<Vec<u128>>>,
    /// Solutions covering each element (one entry per element of the universe).
    pub element_counts: Vec<u128>,
    /// Search nodes visited.
    pub nodes: u64,
}

impl PlacementAnalysis {
    /// The probability that each element is covered, under the uniform distribution over
    /// solutions.
    pub fn marginals(&self) -> Vec<f64> {
        let t = self.solutions as f64;
        self.element_counts
            .iter()
            .map(|&c| if t > 0.0 { c as f64 / t } else { 0.0 })
            .collect()
    }
}

/// The starts of family `fi` above the value (`ff`, `fs`) in the order of values (family,
/// then start).
#[inline]
fn above(ff: usize, fs: u32, fi: usize) -> u128 {
    match fi.cmp(&ff) {
        std::cmp::Ordering::Less => 0,
        std::cmp::Ordering::Equal => u128::MAX.checked_shl(fs + 1).unwrap_or(0),
        std::cmp::Ordering::Greater => u128::MAX,
    }
}

/// Bit-sliced counters: 128 counters, one per start, incremented by a whole mask at once.
#[derive(Debug, Clone)]
struct SlicedCounter {
    planes: [u128; 24],
    adds: u32,
}

impl SlicedCounter {
    const LIMIT: u32 = (1 << 24) - 1;

    fn new() -> SlicedCounter {
        SlicedCounter {
            planes: [0; 24],
            adds: 0,
        }
    }

    /// Adds one to every counter whose bit is set in `m`; flushes into `out` (each count
    /// times `weight`) before it could overflow.
    #[inline]
    fn add(&mut self, m: u128, out: &mut [u128], weight: u128) {
        let mut carry = m;
        for p in &mut self.planes {
            if carry == 0 {
                break;
            }
            let t = *p & carry;
            *p ^= carry;
            carry = t;
        }
        self.adds += 1;
        if self.adds == Self::LIMIT {
            self.flush(out, weight);
        }
    }

    fn flush(&mut self, out: &mut [u128], weight: u128) {
        for (k, p) in self.planes.iter_mut().enumerate() {
            for s in bits(*p) {
                // Wrapping: see `Counter::credit`.
                out[s as usize] = out[s as usize].wrapping_add(weight.wrapping_shl(k as u32));
            }
            *p = 0;
        }
        self.adds = 0;
    }
}

/// Per variable, per family, per start: a count.
type ValueCounts = Vec<Vec<Vec<u128>>>;

struct Counter<'a> {
    vars: &'a [Vec<Family>],
    required: u128,
    /// The variables' sizes and groups. The free phase assigns the variables in the order
    /// of decreasing size, so the last one (counted in one step) is the one with the most
    /// values. The variables of a group are interchangeable while unassigned, so the
    /// covering phase branches on one of them for all.
    sizes: Sizes,
    /// Per variable, the lowest value (family, start) that its group's unassigned members
    /// may no longer take, once the free phase has given one member the smallest value of
    /// them all; `None` while no member has been placed that way. Indexed by the group's
    /// lowest variable.
    floor: Vec<Option<(usize, u32)>>,
    /// Whether some group has two members or more: without, no floor is ever set, and the
    /// hot loops skip looking for one.
    grouped: bool,
    /// Credits, labelled: per variable, family and start, the solutions in which the variable
    /// takes that value, except that within a group only their sum over the group is right
    /// until [`Counter::finish`] shares it out.
    counts: Vec<Vec<Vec<u128>>>,
    /// The distinct weights of the subtrees searched so far: how many subtrees of the
    /// labelled search each stands for (the product of the group sizes it was chosen for).
    weights: Vec<u128>,
    /// Bit-sliced credits of the subtrees of weight 1 (`sliced[v][f]`), and of the others
    /// (`weighted[w - 1][v][f]` for weight `weights[w]`).
    sliced: Vec<Vec<SlicedCounter>>,
    weighted: Vec<Vec<Vec<SlicedCounter>>>,
    nodes: u64,
    max_nodes: u64,
    /// Whether the counts are labelled. Without labels each set of values of a group
    /// counts once, and each member's credits end as the group's sum (see
    /// [`analyze_placements_unlabelled`]).
    labels: bool,
}

/// Counts stay below this, so that credits summed over a group of at most 64 variables fit
/// in a `u128`.
const COUNT_LIMIT: u128 = u128::MAX >> 7;

/// No limit on the nodes of a count.
const UNLIMITED: Budget = Budget {
    max_nodes: u64::MAX,
};

impl Counter<'_> {
    fn over(&self, c: u128, x: u128) -> Result<u128, CspError> {
        c.checked_add(x)
            .filter(|&t| t <= COUNT_LIMIT)
            .ok_or(CspError::CountOverflow)
    }

    /// The index of `weight` in `weights` (added with its own sliced counters if new).
    fn weight_index(&mut self, weight: u128) -> usize {
        if let Some(i) = self.weights.iter().position(|&w| w == weight) {
            return i;
        }
        self.weights.push(weight);
        self.weighted.push(
            self.vars
                .iter()
                .map(|fs| vec![SlicedCounter::new(); fs.len()])
                .collect(),
        );
        self.weights.len() - 1
    }

    /// The index of the weight `k` times that of index `w` (without labels, `w`).
    fn grown_weight(&mut self, w: usize, k: u128) -> Result<usize, CspError> {
        if !self.labels {
            return Ok(w);
        }
        let weight = self.weights[w]
            .checked_mul(k)
            .filter(|&x| x <= COUNT_LIMIT)
            .ok_or(CspError::CountOverflow)?;
        Ok(self.weight_index(weight))
    }

    /// How many labelled choices one choice among the interchangeable `peers` stands for:
    /// their number, or 1 without labels.
    fn orders(&self, peers: u64) -> u128 {
        if self.labels {
            u128::from(peers.count_ones())
        } else {
            1
        }
    }

    /// The starts of family `fi` that variable `v` may still take under its group's floor:
    /// the group's unassigned members take values above it.
    #[inline]
    fn allowed(&self, v: usize, fi: usize) -> u128 {
        if !self.grouped {
            return u128::MAX;
        }
        let rep = self.sizes.group[v].trailing_zeros() as usize;
        match self.floor[rep] {
            None => u128::MAX,
            Some((ff, fs)) => above(ff, fs, fi),
        }
    }

    /// Flushes the sliced counters and shares each group's credits equally among its
    /// variables: the problem is symmetric under any permutation of a group, so each has the
    /// same labelled counts. Credits that do not share out evenly can only come from an
    /// asymmetric halo relation, which makes the counts depend on the order of the
    /// variables: an error, not a silently rounded answer.
    fn finish(mut self) -> Result<(ValueCounts, u64), CspError> {
        let weighted = self.weights[1..].iter().zip(&mut self.weighted);
        for (w, fs) in std::iter::once((&1, &mut self.sliced)).chain(weighted) {
            for (v, f) in fs.iter_mut().enumerate() {
                for (fi, sc) in f.iter_mut().enumerate() {
                    sc.flush(&mut self.counts[v][fi], *w);
                }
            }
        }
        for v in 0..self.vars.len() {
            let g = self.sizes.group[v];
            // Once per group, at its lowest variable.
            if g.count_ones() < 2 || g.trailing_zeros() as usize != v {
                continue;
            }
            let k = if self.labels {
                u128::from(g.count_ones())
            } else {
                1
            };
            for fi in 0..self.counts[v].len() {
                for s in 0..MAX_ELEMENTS {
                    let sum: u128 = bits(u128::from(g))
                        .map(|u| self.counts[u as usize][fi][s])
                        .sum();
                    if !sum.is_multiple_of(k) {
                        return Err(CspError::InvalidPlacement(
                            "the halo relation is not symmetric (see PlacementCsp::check_halos)"
                                .into(),
                        ));
                    }
                    for u in bits(u128::from(g)) {
                        self.counts[u as usize][fi][s] = sum / k;
                    }
                }
            }
        }
        Ok((self.counts, self.nodes))
    }

    /// Counts the completions in which some unassigned variable covers element `e`: each
    /// solution has exactly one such variable, so each is counted once.
    fn cover(
        &mut self,
        e: u32,
        unassigned: u64,
        blocked: u128,
        covered: u128,
        w: usize,
    ) -> Result<u128, CspError> {
        let vars = self.vars;
        let m = 1u128 << e;
        let mut total = 0u128;
        for v in bits(unassigned as u128) {
            let v = v as usize;
            // The unassigned variables of a group are interchangeable: the first of them
            // covers `e` for all `k`, and each of its completions counts `k` times.
            let peers = self.sizes.group[v] & unassigned;
            if peers & ((1u64 << v) - 1) != 0 {
                continue;
            }
            let k = self.orders(peers);
            let wk = if k == 1 { w } else { self.grown_weight(w, k)? };
            for (fi, f) in vars[v].iter().enumerate() {
                let cand =
                    f.free_starts(blocked) & meeting_starts(f.shape, m) & self.allowed(v, fi);
                for s in bits(cand) {
                    let c = self.assign(v, fi, s, unassigned, blocked, covered, wk)?;
                    total = self.over(total, c * k)?;
                }
            }
        }
        Ok(total)
    }

    /// Counts the completions with variable `v` set to start `s` of its family `fi`, and
    /// credits them to that value, in a subtree of weight index `w`.
    #[allow(clippy::too_many_arguments)]
    fn assign(
        &mut self,
        v: usize,
        fi: usize,
        s: u32,
        unassigned: u64,
        blocked: u128,
        covered: u128,
        w: usize,
    ) -> Result<u128, CspError> {
        let vars = self.vars;
        let f = &vars[v][fi];
        let c = self.count(
            unassigned & !(1u64 << v),
            blocked | f.block(s),
            covered | f.cells(s),
            w,
        )?;
        self.credit(v, fi, s, c, w);
        Ok(c)
    }

    /// Credits `c` solutions of a subtree of weight index `w` to a value.
    ///
    /// Credits never exceed the final count of their value, which the checked totals keep
    /// within [`COUNT_LIMIT`]; they can overflow only on the way to a total that overflows,
    /// and then the count ends in [`CspError::CountOverflow`] and they are thrown away. So
    /// they wrap instead of being checked on this hot path (and instead of panicking in
    /// builds with overflow checks).
    #[inline]
    fn credit(&mut self, v: usize, fi: usize, s: u32, c: u128, w: usize) {
        let x = if w == 0 {
            c
        } else {
            c.wrapping_mul(self.weights[w])
        };
        let slot = &mut self.counts[v][fi][s as usize];
        *slot = slot.wrapping_add(x);
    }

    /// Credits one solution of a subtree of weight index `w` to each start of `m`.
    #[inline]
    fn credit_mask(&mut self, v: usize, fi: usize, m: u128, w: usize) {
        if w == 0 {
            self.sliced[v][fi].add(m, &mut self.counts[v][fi], 1);
        } else {
            let weight = self.weights[w];
            self.weighted[w - 1][v][fi].add(m, &mut self.counts[v][fi], weight);
        }
    }

    /// The number of labelled completions of a node of the search: the variables of
    /// `unassigned` are still to place, `blocked` holds the halos placed, `covered` their
    /// cells. The node stands for `weights[w]` nodes of the labelled search, and its credits
    /// count that many times.
    fn count(
        &mut self,
        unassigned: u64,
        blocked: u128,
        covered: u128,
        w: usize,
    ) -> Result<u128, CspError> {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Err(CspError::BudgetExceeded {
                max_nodes: self.max_nodes,
                component_vars: self.vars.len(),
            });
        }
        let need = self.required & !covered;
        let vars = self.vars;
        if need != 0 {
            let cap: u32 = bits(unassigned as u128)
                .map(|v| self.sizes.max_size[v as usize])
                .sum();
            if need.count_ones() > cap {
                return Ok(0);
            }
            return self.cover(need.trailing_zeros(), unassigned, blocked, covered, w);
        }
        match unassigned.count_ones() {
            0 => Ok(1),
            1 => {
                let v = unassigned.trailing_zeros() as usize;
                let mut total = 0u128;
                for (fi, f) in vars[v].iter().enumerate() {
                    let a = f.free_starts(blocked) & self.allowed(v, fi);
                    if a != 0 {
                        total += u128::from(a.count_ones());
                        self.credit_mask(v, fi, a, w);
                    }
                }
                Ok(total)
            }
            2 => {
                // The last two variables: loop over the first, count the second in one step.
                let (a, b) = match self.sizes.order.iter().find(|&&v| unassigned >> v & 1 == 1) {
                    Some(&a) => (a, (unassigned & !(1u64 << a)).trailing_zeros() as usize),
                    None => return Ok(0),
                };
                // Two members of one group: `a` takes the smaller value, for both orders.
                let pair = self.sizes.group[a] >> b & 1 == 1;
                let k = self.orders(if pair { 1 << a | 1 << b } else { 1 << a });
                let wk = if k == 1 { w } else { self.grown_weight(w, k)? };
                let mut total = 0u128;
                // The starts of `b` that avoid `blocked`, whatever `a`'s value.
                let open: Vec<u128> = vars[b]
                    .iter()
                    .enumerate()
                    .map(|(gi, g)| g.free_starts(blocked) & self.allowed(b, gi))
                    .collect();
                for (fi, f) in vars[a].iter().enumerate() {
                    let free = f.free_starts(blocked) & self.allowed(a, fi);
                    // Each value of `a` counts as a node of the budget.
                    self.nodes += u64::from(free.count_ones());
                    if self.nodes > self.max_nodes {
                        return Err(CspError::BudgetExceeded {
                            max_nodes: self.max_nodes,
                            component_vars: self.vars.len(),
                        });
                    }
                    let meets: Vec<Meets> = vars[b].iter().map(|g| Meets::new(f, g)).collect();
                    for s in bits(free) {
                        let mut c = 0u128;
                        for (gi, g) in vars[b].iter().enumerate() {
                            let mut m = open[gi] & !meets[gi].at(f, g, s);
                            if pair {
                                m &= above(fi, s, gi);
                            }
                            if m != 0 {
                                c += u128::from(m.count_ones());
                                self.credit_mask(b, gi, m, wk);
                            }
                        }
                        if c > 0 {
                            self.credit(a, fi, s, c, wk);
                            total = self.over(total, c * k)?;
                        }
                    }
                }
                Ok(total)
            }
            _ => {
                // Forward check (every unassigned variable still has a value), and the
                // elements the variables can still reach with the fewest of them they need.
                let Some((reach, crowded)) = self
                    .sizes
                    .room(vars, unassigned, blocked, |v, fi| self.allowed(v, fi))
                else {
                    return Ok(0);
                };
                if crowded {
                    // A nearly full board (by cells, or by the smallest halos, which would
                    // fill it if they did not overlap): branch on its lowest free element,
                    // covered or left empty, where dead ends show at once (branching on
                    // variables tries the interchangeable ones in every order before it
                    // finds them).
                    let e = reach.trailing_zeros();
                    let covering = self.cover(e, unassigned, blocked, covered, w)?;
                    let empty = self.count(unassigned, blocked | 1u128 << e, covered, w)?;
                    return self.over(covering, empty);
                }
                let Some(&v) = self.sizes.order.iter().find(|&&v| unassigned >> v & 1 == 1) else {
                    return Ok(0);
                };
                // With `k` interchangeable members unassigned, `v` takes the smallest of
                // their values (any of the `k` could have), and the others values above it.
                let peers = self.sizes.group[v] & unassigned;
                let k = self.orders(peers);
                let wk = if k == 1 { w } else { self.grown_weight(w, k)? };
                let rep = self.sizes.group[v].trailing_zeros() as usize;
                let saved = self.floor[rep];
                let mut total = 0u128;
                for (fi, f) in vars[v].iter().enumerate() {
                    for s in bits(f.free_starts(blocked) & self.allowed(v, fi)) {
                        if peers.count_ones() > 1 {
                            self.floor[rep] = Some((fi, s));
                        }
                        let c = self.assign(v, fi, s, unassigned, blocked, covered, wk)?;
                        total = self.over(total, c * k)?;
                    }
                }
                self.floor[rep] = saved;
                Ok(total)
            }
        }
    }
}

/// What the searches over a propagated problem know of each variable before they start.
struct Sizes {
    /// Largest value size (for the covering bound).
    max_size: Vec<u32>,
    /// Smallest value size (for the room bound of a crowded node).
    min_size: Vec<u32>,
    /// Smallest halo (cells included) of any value: under no-touch what a value takes from
    /// the board, at least.
    min_block: Vec<u32>,
    /// The variables by decreasing value size.
    order: Vec<usize>,
    /// The variables with the same domain (itself included); the variable alone without
    /// `grouped`.
    group: Vec<u64>,
}

impl Sizes {
    /// The sizes of `p`'s variables, and with `grouped` their groups of interchangeable
    /// ones (a count asked for the labelled search is not grouped; a search for one
    /// solution always may be).
    fn new(p: &PlacementCsp, grouped: bool) -> Sizes {
        let n = p.vars.len();
        let max_size: Vec<u32> = p
            .vars
            .iter()
            .map(|fs| fs.iter().map(|f| f.shape.count_ones()).max().unwrap_or(0))
            .collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&v| (std::cmp::Reverse(max_size[v]), v));
        let group: Vec<u64> = (0..n)
            .map(|v| {
                (0..n)
                    .filter(|&u| u == v || (grouped && p.vars[u] == p.vars[v]))
                    .fold(0u64, |g, u| g | 1 << u)
            })
            .collect();
        let min_size: Vec<u32> = p
            .vars
            .iter()
            .map(|fs| fs.iter().map(|f| f.shape.count_ones()).min().unwrap_or(0))
            .collect();
        let min_block: Vec<u32> = p
            .vars
            .iter()
            .map(|fs| {
                fs.iter()
                    .flat_map(|f| bits(f.starts).map(|s| f.block(s).count_ones()))
                    .min()
                    .unwrap_or(0)
            })
            .collect();
        Sizes {
            max_size,
            min_size,
            min_block,
            order,
            group,
        }
    }

    /// At a node whose variables `unassigned` are still to place with `blocked` taken and
    /// nothing left to cover: `None` when some variable has no value left or the elements
    /// they can reach are fewer than the fewest they need; otherwise those elements, and
    /// whether the node is crowded (the variables need three quarters of them, or their
    /// smallest halos all of them), where branching on the lowest element finds dead ends
    /// at once and branching on variables meets them once per order of interchangeable
    /// ones. `allowed` restricts a variable's starts in a family (the count's floors).
    #[inline]
    fn room(
        &self,
        vars: &[Vec<Family>],
        unassigned: u64,
        blocked: u128,
        allowed: impl Fn(usize, usize) -> u128,
    ) -> Option<(u128, bool)> {
        let mut reach = 0u128;
        let (mut least, mut halos) = (0u32, 0u32);
        for v in bits(unassigned as u128) {
            let v = v as usize;
            least += self.min_size[v];
            halos += self.min_block[v];
            let mut any = false;
            for (fi, f) in vars[v].iter().enumerate() {
                let free = f.free_starts(blocked) & allowed(v, fi);
                any |= free != 0;
                reach |= bits(f.shape).fold(0, |r, b| r | free << b);
            }
            if !any {
                return None;
            }
        }
        let room = reach.count_ones();
        if least > room {
            return None;
        }
        Some((reach, 4 * least >= 3 * room || halos >= room))
    }
}

/// Counts the solutions of `csp` exactly, with the number of solutions per value and per
/// element (see the [module documentation](self) for the algorithm).
///
/// # Errors
/// - [`CspError::Inconsistent`] if propagation proves there is no solution (a problem whose
///   inconsistency only the search finds returns `solutions == 0`);
/// - [`CspError::BudgetExceeded`] after `budget.max_nodes` search nodes;
/// - [`CspError::CountOverflow`] if a count exceeds `u128::MAX >> 7` (so that the counts of a
///   group of interchangeable variables, summed, fit in a `u128`); the weight of a partial
///   assignment is checked as it is made, so a problem with dozens of interchangeable
///   variables can report this before the search would find that it has no solution;
/// - [`CspError::InvalidPlacement`] when the halo relation between values of different
///   variables is not symmetric (see [`PlacementCsp::check_halos`]).
pub fn analyze_placements(
    csp: &PlacementCsp,
    budget: &Budget,
) -> Result<PlacementAnalysis, CspError> {
    analyze(csp, budget, true)
}

/// [`analyze_placements`] without labels, for problems with interchangeable pieces (the
/// dominoes of a tiling): each set of values that a group of variables with the same domain
/// takes counts once (`solutions` is the labelled count divided by `k!` for every group of
/// `k`: the number of tilings, say), and each member's value counts are the group's: how
/// many of those solutions give the value to some member. So a member takes a value in a
/// uniformly drawn labelled solution with probability its count over the sum of its counts
/// (the group's size times `solutions`). `element_counts` count each solution covering the
/// element once, so [`PlacementAnalysis::marginals`] are the labelled analysis's. Counts
/// are `k!` smaller per group, which keeps problems with many identical pieces below
/// [`CspError::CountOverflow`] (the 6x6 board's 6728 domino tilings are 6728 · 18!
/// labelled solutions, past the limit). Groups are formed whatever
/// [`PlacementCsp::set_labelled_search`] says.
///
/// ```
/// use csp_core::{Budget, Grid, PlacementCsp, analyze_placements_unlabelled};
///
/// // The domino tilings of a 4x4 board: 8 interchangeable dominoes.
/// let grid = Grid::new(4, 4)?;
/// let domino = vec![grid.translates(&[(0, 0), (1, 0)])?, grid.translates(&[(0, 0), (0, 1)])?];
/// let mut p = PlacementCsp::new(16)?;
/// for _ in 0..8 {
///     p.add_var(domino.clone())?;
/// }
/// p.require(grid.all())?;
/// let a = analyze_placements_unlabelled(&p, &Budget::default())?;
/// assert_eq!(a.solutions, 36);
/// assert!(a.marginals().iter().all(|&m| m == 1.0)); // every cell is covered
/// # Ok::<(), csp_core::CspError>(())
/// ```
///
/// # Errors
/// As [`analyze_placements`].
pub fn analyze_placements_unlabelled(
    csp: &PlacementCsp,
    budget: &Budget,
) -> Result<PlacementAnalysis, CspError> {
    if csp.labelled_search {
        let mut grouped = csp.clone();
        grouped.labelled_search = false;
        return analyze(&grouped, budget, false);
    }
    analyze(csp, budget, false)
}

/// The exact analysis, labelled or not.
fn analyze(
    csp: &PlacementCsp,
    budget: &Budget,
    labels: bool,
) -> Result<PlacementAnalysis, CspError> {
    let p = propagate_placements(csp)?;
    p.check_hand_made_halos()?;
    let n = p.vars.len();
    let sizes = Sizes::new(&p, !p.labelled_search);
    let group = sizes.group.clone();
    let grouped = group.iter().any(|g| g.count_ones() > 1);
    let mut c = Counter {
        vars: &p.vars,
        required: p.required,
        sizes,
        floor: vec![None; n],
        grouped,
        counts: p
            .vars
            .iter()
            .map(|fs| vec![vec![0u128; MAX_ELEMENTS]; fs.len()])
            .collect(),
        weights: vec![1],
        sliced: p
            .vars
            .iter()
            .map(|fs| vec![SlicedCounter::new(); fs.len()])
            .collect(),
        weighted: Vec::new(),
        nodes: 0,
        max_nodes: budget.max_nodes,
        labels,
    };
    let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let solutions = c.count(all, 0, 0, 0)?;
    let (counts, nodes) = c.finish()?;
    // Without labels a member's counts are its group's: the group covers an element in as
    // many solutions as one member's counts say, so each group is summed once.
    let first_of_group = |v: usize| labels || (group[v] & ((1u64 << v) - 1)) == 0;
    let element_counts = element_counts(&p, &counts, csp.universe, first_of_group);
    Ok(PlacementAnalysis {
        solutions,
        value_counts: counts,
        element_counts,
        nodes,
    })
}

/// Solutions covering each element: the counts of the variables `summed` says, added up.
fn element_counts<T: Copy + Into<u128>>(
    p: &PlacementCsp,
    counts: &[Vec<Vec<T>>],
    universe: usize,
    summed: impl Fn(usize) -> bool,
) -> Vec<u128> {
    let mut out = vec![0u128; universe];
    for (v, fs) in p.vars.iter().enumerate().filter(|&(v, _)| summed(v)) {
        for (fi, f) in fs.iter().enumerate() {
            for s in 0..MAX_ELEMENTS as u32 {
                let c: u128 = counts[v][fi][s as usize].into();
                if c > 0 {
                    for e in bits(f.cells(s)) {
                        out[e as usize] += c;
                    }
                }
            }
        }
    }
    out
}

/// Counts the solutions of `csp` (see [`analyze_placements`]).
///
/// # Errors
/// As [`analyze_placements`].
pub fn count_placements(csp: &PlacementCsp, budget: &Budget) -> Result<u128, CspError> {
    analyze_placements(csp, budget).map(|a| a.solutions)
}

/// The reference enumeration: every combination of values, variable after variable, checked
/// pairwise, then the required elements checked at the leaves. Exponential; for tests and
/// benchmarks. It takes the problems [`analyze_placements`] takes, and refuses the others
/// as it does (an asymmetric halo relation), so that the two answer the same questions.
/// Having no propagation, it reports a problem without solutions as `solutions == 0`,
/// where [`analyze_placements`] may report [`CspError::Inconsistent`].
///
/// # Errors
/// [`CspError::BudgetExceeded`] after `budget.max_nodes` nodes, [`CspError::CountOverflow`],
/// [`CspError::InvalidPlacement`] when the halo relation is not symmetric
/// ([`PlacementCsp::check_halos`]).
pub fn analyze_placements_naive(
    csp: &PlacementCsp,
    budget: &Budget,
) -> Result<PlacementAnalysis, CspError> {
    csp.check_hand_made_halos()?;
    fn rec(
        csp: &PlacementCsp,
        v: usize,
        chosen: &mut Vec<Value>,
        placed: &mut Vec<(u128, u128)>,
        counts: &mut [Vec<Vec<u128>>],
        nodes: &mut u64,
        max_nodes: u64,
    ) -> Result<u128, CspError> {
        *nodes += 1;
        if *nodes > max_nodes {
            return Err(CspError::BudgetExceeded {
                max_nodes,
                component_vars: csp.vars.len(),
            });
        }
        if v == csp.vars.len() {
            let covered = placed.iter().fold(0u128, |a, &(c, _)| a | c);
            let ok = covered & csp.required == csp.required && covered & csp.forbidden == 0;
            if ok {
                for (w, val) in chosen.iter().enumerate() {
                    counts[w][val.family][val.start as usize] += 1;
                }
            }
            return Ok(u128::from(ok));
        }
        let mut total = 0u128;
        for (fi, f) in csp.vars[v].iter().enumerate() {
            for s in bits(f.starts) {
                let (cells, block) = (f.cells(s), f.block(s));
                if placed
                    .iter()
                    .any(|&(c, b)| c & block != 0 || cells & b != 0)
                {
                    continue;
                }
                chosen.push(Value {
                    family: fi,
                    start: s,
                });
                placed.push((cells, block));
                let r = rec(csp, v + 1, chosen, placed, counts, nodes, max_nodes);
                chosen.pop();
                placed.pop();
                total = total.checked_add(r?).ok_or(CspError::CountOverflow)?;
            }
        }
        Ok(total)
    }
    let mut counts: Vec<Vec<Vec<u128>>> = csp
        .vars
        .iter()
        .map(|fs| vec![vec![0u128; MAX_ELEMENTS]; fs.len()])
        .collect();
    let mut nodes = 0;
    let solutions = rec(
        csp,
        0,
        &mut Vec::new(),
        &mut Vec::new(),
        &mut counts,
        &mut nodes,
        budget.max_nodes,
    )?;
    let element_counts = element_counts(csp, &counts, csp.universe, |_| true);
    Ok(PlacementAnalysis {
        solutions,
        value_counts: counts,
        element_counts,
        nodes,
    })
}

/// Picks an index with probability proportional to `weights[i]`.
fn pick_weighted(
    weights: &[(usize, u32, u128)],
    total: u128,
    rng: &mut (impl Rng + ?Sized),
) -> Value {
    // u128 totals: draw 128 random bits and reduce (the bias is below 2^-64 for totals
    // below 2^64, which is every count met in practice; exactness of the walk is kept by the
    // rejection loop below).
    let zone = u128::MAX - u128::MAX % total;
    let r = loop {
        let x = (u128::from(rng.random::<u64>()) << 64) | u128::from(rng.random::<u64>());
        if x < zone {
            break x % total;
        }
    };
    let mut acc = 0u128;
    for &(fi, s, w) in weights {
        acc += w;
        if r < acc {
            return Value {
                family: fi,
                start: s,
            };
        }
    }
    // Unreachable when the weights sum to `total`; the last value is a safe answer.
    let &(fi, s, _) = weights.last().unwrap_or(&(0, 0, 0));
    Value {
        family: fi,
        start: s,
    }
}

/// Draws one solution exactly uniformly: the value of variable 0 is drawn with probability
/// proportional to its number of completions, fixed, the problem recounted, and so on.
/// Costs one exact analysis per variable (each smaller than the last), each with the whole
/// `budget`: up to `budget.max_nodes` nodes per variable in all. Where the labelled counts
/// pass [`CspError::CountOverflow`]'s limit (many interchangeable variables: a group of `k`
/// multiplies every count by `k!`), the draw counts each group's sets of values once
/// instead, which needs only the same ratios (a second analysis where the first one
/// overflows).
///
/// # Errors
/// As [`analyze_placements`] (for any of the analyses; [`CspError::CountOverflow`] only
/// when the counts without labels pass the limit too); [`CspError::Inconsistent`] when
/// there is no solution.
pub fn sample_placements(
    csp: &PlacementCsp,
    budget: &Budget,
    rng: &mut (impl Rng + ?Sized),
) -> Result<Vec<Value>, CspError> {
    sample(csp, budget, budget, rng, true)
}

/// [`sample_placements`], from labelled counts where they fit (`labels`) or from unlabelled
/// ones throughout.
///
/// The first count, of the whole problem, gets `first`; the later ones, each with one more
/// variable fixed, get `rest`. A caller that must decide whether to draw from the problem
/// alone (the chain's block moves) gives `first` its budget and `rest` none, so that no draw
/// fails part way on a count that depends on the values drawn before it.
fn sample(
    csp: &PlacementCsp,
    first: &Budget,
    rest: &Budget,
    rng: &mut (impl Rng + ?Sized),
    labels: bool,
) -> Result<Vec<Value>, CspError> {
    let mut p = csp.clone();
    if p.vars.is_empty() && analyze_placements(&p, first)?.solutions == 0 {
        // The loop below asks for a count only per variable: with none, ask once.
        return Err(CspError::Inconsistent);
    }
    let mut out = Vec::with_capacity(p.vars.len());
    for v in 0..p.vars.len() {
        let budget = if v == 0 { first } else { rest };
        let (weights, total) = next_weights(&p, v, budget, labels)?;
        let val = pick_weighted(&weights, total, rng);
        fix_value(&mut p, v, val);
        out.push(val);
    }
    Ok(out)
}

/// The values of variable `v` of `p` (whose variables before `v` are fixed) that have
/// completions, each with its number of completions, and their total: the weights of
/// [`sample`]'s draw of `v`, from labelled counts where they fit (`labels`) or unlabelled
/// ones.
fn next_weights(
    p: &PlacementCsp,
    v: usize,
    budget: &Budget,
    labels: bool,
) -> Result<Weights, CspError> {
    // Labelled counts past the limit may still be unlabelled ones within it: the draw needs
    // only the ratios of the variable's counts.
    let a = match labels.then(|| analyze_placements(p, budget)) {
        None | Some(Err(CspError::CountOverflow)) => analyze_placements_unlabelled(p, budget)?,
        Some(a) => a?,
    };
    if a.solutions == 0 {
        return Err(CspError::Inconsistent);
    }
    let weights: Vec<(usize, u32, u128)> = a.value_counts[v]
        .iter()
        .enumerate()
        .flat_map(|(fi, cs)| {
            cs.iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(move |(s, &c)| (fi, s as u32, c))
        })
        .collect();
    let total = weights
        .iter()
        .try_fold(0u128, |t, w| t.checked_add(w.2))
        .ok_or(CspError::CountOverflow)?;
    Ok((weights, total))
}

/// A variable's values with completions, `(family, start, count)`, and their total.
type Weights = (Vec<(usize, u32, u128)>, u128);

/// Fixes variable `v` of `p` to `val`: its domain keeps that one value.
fn fix_value(p: &mut PlacementCsp, v: usize, val: Value) {
    for (fi, f) in p.vars[v].iter_mut().enumerate() {
        f.starts = if fi == val.family {
            f.starts & (1u128 << val.start)
        } else {
            0
        };
    }
}

/// Draws many solutions exactly uniformly, counting each partial draw's completions once.
///
/// [`sample_placements`] recounts the problem for every variable of every draw. Draws share
/// their first values, and the counts that choose the next value depend only on the values
/// drawn before it, so this sampler keeps them, keyed by those values: the first variable's
/// counts are made once, the second's once per value of the first, and so on. Draws from the
/// same generator state are the ones [`sample_placements`] would make (the same counts, the
/// same random numbers). What it keeps is bounded ([`PlacementSampler::KEPT_BYTES`]);
/// past the bound it counts the rest afresh, as [`sample_placements`] does.
///
/// ```
/// use csp_core::{Budget, Grid, PlacementCsp, PlacementSampler};
/// use csp_core::rand::SeedableRng;
/// use csp_core::rand_xoshiro::Xoshiro256PlusPlus;
///
/// // Three dominoes covering a 3x2 board: 3 tilings, each in 3! = 6 labelled orders.
/// let grid = Grid::new(3, 2)?;
/// let mut csp = PlacementCsp::new(6)?;
/// for _ in 0..3 {
///     csp.add_var(vec![
///         grid.translates(&[(0, 0), (1, 0)])?,
///         grid.translates(&[(0, 0), (0, 1)])?,
///     ])?;
/// }
/// csp.require(grid.all())?;
/// let mut sampler = PlacementSampler::new(&csp, &Budget::default())?;
/// let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
/// let mut all_vertical = 0;
/// for _ in 0..600 {
///     let draw = sampler.sample(&mut rng)?;
///     all_vertical += usize::from(draw.iter().all(|v| v.family == 1));
/// }
/// // The three vertical dominoes are one tiling in three.
/// assert!((150..250).contains(&all_vertical), "{all_vertical}");
/// # Ok::<(), csp_core::CspError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PlacementSampler {
    csp: PlacementCsp,
    budget: Budget,
    /// Per prefix of drawn values, the next variable's weights and their total.
    kept: HashMap<Vec<Value>, Arc<Weights>>,
    /// The estimated bytes held by `kept`.
    kept_bytes: usize,
}

impl PlacementSampler {
    /// About the most memory, in bytes, that a sampler's kept counts take (their weights,
    /// keys and allocations, as estimated when they are kept): 64 MiB.
    pub const KEPT_BYTES: usize = 64 << 20;

    /// A sampler for the solutions of `csp`, whose counts each get `budget`. The first
    /// variable's counts are made here.
    ///
    /// # Errors
    /// As [`sample_placements`]: [`CspError::Inconsistent`] when there is no solution, and
    /// the errors of [`analyze_placements`] for the first count.
    pub fn new(csp: &PlacementCsp, budget: &Budget) -> Result<PlacementSampler, CspError> {
        let mut sampler = PlacementSampler {
            csp: csp.clone(),
            budget: *budget,
            kept: HashMap::new(),
            kept_bytes: 0,
        };
        if csp.vars.is_empty() {
            if analyze_placements(csp, budget)?.solutions == 0 {
                return Err(CspError::Inconsistent);
            }
        } else {
            sampler.weights(&sampler.csp.clone(), &[])?;
        }
        Ok(sampler)
    }

    /// One solution, exactly uniformly: each variable's value in turn, with probability
    /// proportional to its number of completions.
    ///
    /// # Errors
    /// As [`sample_placements`], for counts not made before.
    pub fn sample(&mut self, rng: &mut (impl Rng + ?Sized)) -> Result<Vec<Value>, CspError> {
        let mut p = self.csp.clone();
        let mut out = Vec::with_capacity(p.vars.len());
        for v in 0..p.vars.len() {
            let w = self.weights(&p, &out)?;
            let val = pick_weighted(&w.0, w.1, rng);
            fix_value(&mut p, v, val);
            out.push(val);
        }
        Ok(out)
    }

    /// The weights of the next variable of `p`, whose earlier variables hold `prefix`.
    fn weights(&mut self, p: &PlacementCsp, prefix: &[Value]) -> Result<Arc<Weights>, CspError> {
        if let Some(w) = self.kept.get(prefix) {
            return Ok(Arc::clone(w));
        }
        let w = Arc::new(next_weights(p, prefix.len(), &self.budget, true)?);
        // The weights, the key's values, and the entry's allocations and table slot.
        let bytes = std::mem::size_of_val(w.0.as_slice())
            + std::mem::size_of_val(prefix)
            + 4 * std::mem::size_of::<Vec<Value>>()
            + 64;
        if self.kept_bytes + bytes <= Self::KEPT_BYTES {
            self.kept_bytes += bytes;
            self.kept.insert(prefix.to_vec(), Arc::clone(&w));
        }
        Ok(w)
    }
}

/// A Markov chain over the solutions of a placement problem whose stationary distribution is
/// uniform: each step re-places a pair of variables uniformly among the value pairs
/// consistent with every other variable and with the required elements (a Gibbs update on the
/// pair). It is the fallback when [`analyze_placements`] exceeds its budget: estimates are
/// correlated from sweep to sweep, and they converge to the exact ones only when pair moves
/// connect every solution to every other. Where three or more variables must move at once,
/// the chain never leaves the solutions it can reach. Three straight trominoes that must
/// cover a 3x3 board, say: from three horizontal ones, no single or pair move can turn any
/// vertical (the third piece holds a row it would cross), so the chain reports probability 0
/// for every vertical placement, where the exact answer is 1/2 for each piece's direction;
/// in Battleship, a 2x5 block of hits walled in by misses holding a 5, a 3 and a 2 cannot
/// trade the 5's row without moving all three. (Exact counting usually fits its budget in
/// such small, tight positions.) [`PlacementChain::step_block`] removes the limit where it
/// matters: it redraws any set of variables exactly, by counting their completions, so
/// moves over sets of three or more reach what pairs cannot, at the cost of an exact
/// analysis of the set each time. [`PlacementChain::sweep`] makes only single and pair
/// moves; interleave block moves with it where pair moves may not connect the solutions.
///
/// # Example
///
/// The three trominoes above, with a block move over all three after each sweep:
///
/// ```
/// use csp_core::{Budget, Grid, PlacementChain, PlacementCsp};
/// use csp_core::rand::SeedableRng;
/// use csp_core::rand_xoshiro::Xoshiro256PlusPlus;
///
/// let grid = Grid::new(3, 3)?;
/// let mut csp = PlacementCsp::new(9)?;
/// for _ in 0..3 {
///     csp.add_var(vec![
///         grid.translates(&[(0, 0), (1, 0), (2, 0)])?, // family 0: horizontal
///         grid.translates(&[(0, 0), (0, 1), (0, 2)])?, // family 1: vertical
///     ])?;
/// }
/// csp.require(grid.all())?;
/// let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
/// let mut chain = PlacementChain::new(&csp, &Budget::default(), &mut rng)?;
/// let mut horizontal = 0;
/// for _ in 0..400 {
///     chain.sweep(&mut rng);
///     chain.step_block(&[0, 1, 2], &Budget::default(), &mut rng)?;
///     horizontal += usize::from(chain.state()[0].family == 0);
/// }
/// // Half of the solutions are horizontal; without the block move the chain would stay
/// // in the direction it started in.
/// assert!((100..300).contains(&horizontal));
/// # Ok::<(), csp_core::CspError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PlacementChain {
    p: PlacementCsp,
    state: Vec<Value>,
    /// Scratch: candidate weights of the first variable of a pair move.
    scratch: Vec<(usize, u32, u32)>,
}

impl PlacementChain {
    /// Starts a chain at a solution found by randomised depth-first search (the start is not
    /// uniform; discard a burn-in of sweeps before using the chain). The search covers the
    /// required elements, then places the variables one by one. Where the pieces crowd the
    /// board from the start (by the test the exact count uses: they need three quarters of
    /// the elements they can reach, or their smallest halos all of them), that search has a
    /// tenth of the budget; past it, a second search branches, wherever the board is still
    /// crowded, on the lowest element left open, covered by one of each set of
    /// interchangeable variables or left empty, as the count does there (placing pieces one
    /// by one, the first meets the packing's dead ends once per order of the
    /// interchangeable ones), and restarts with twice the nodes after each fruitless try.
    /// (The first search keeps the starts of earlier versions wherever it finds one: the
    /// same from the same generator state.) Where the searches run out of nodes, the start
    /// is drawn by [`sample_placements`] instead, with the same budget for each of its
    /// counts (the start is then uniform).
    ///
    /// # Errors
    /// [`CspError::Inconsistent`] when there is no solution, [`CspError::BudgetExceeded`] when
    /// the search for a first solution needs more than `budget.max_nodes` nodes and so does a
    /// count of the exact draw (the chain starts from the propagated problem, as
    /// [`propagate_placements`] builds it); [`CspError::InvalidPlacement`] when hand-made
    /// halos make the halo relation asymmetric (see [`PlacementCsp::check_halos`]).
    pub fn new(
        csp: &PlacementCsp,
        budget: &Budget,
        rng: &mut (impl Rng + ?Sized),
    ) -> Result<PlacementChain, CspError> {
        let p = propagate_placements(csp)?;
        p.check_hand_made_halos()?;
        let n = p.vars.len();
        let mut partial = vec![None; n];
        let sizes = Sizes::new(&p, true);
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let crowded = matches!(
            sizes.room(&p.vars, all, 0, |_, _| u128::MAX),
            Some((_, true))
        );
        let mut nodes = 0u64;
        let found = if crowded {
            // The search by variables first, with a tenth of the budget: on the small crowded
            // problems of play it finds the start at once (the start earlier versions made);
            // the search over elements then, with the rest.
            let first = (budget.max_nodes / 10).max(1);
            match first_solution(&p, &mut partial, 0, 0, &mut nodes, first, rng) {
                Err(CspError::BudgetExceeded { .. }) if budget.max_nodes > first => {
                    partial.fill(None);
                    PackedStart {
                        p: &p,
                        sizes,
                        nodes: 0,
                        max_nodes: 0,
                    }
                    .restarts(&mut partial, all, budget.max_nodes - first, rng)
                }
                r => r,
            }
        } else {
            first_solution(&p, &mut partial, 0, 0, &mut nodes, budget.max_nodes, rng)
        };
        let state = start_or_draw(&p, found, partial, budget, rng)?;
        Ok(PlacementChain {
            p,
            state,
            scratch: Vec::new(),
        })
    }

    /// The current solution (one value per variable).
    pub fn state(&self) -> &[Value] {
        &self.state
    }

    /// The cells of variable `v` in the current solution (`None` if `v` is not a variable).
    pub fn cells(&self, v: usize) -> Option<u128> {
        let val = self.state.get(v)?;
        Some(self.p.vars[v][val.family].cells(val.start))
    }

    /// The union of the halos and of the cells of the variables outside `skip` (a set of
    /// variable indices, as bits: at most 64 variables).
    fn others(&self, skip: u64) -> (u128, u128) {
        let (mut block, mut cells) = (0u128, 0u128);
        for (w, val) in self.state.iter().enumerate() {
            if skip >> w & 1 == 0 {
                let f = &self.p.vars[w][val.family];
                block |= f.block(val.start);
                cells |= f.cells(val.start);
            }
        }
        (block, cells)
    }

    /// Re-places variables `a` and `b` (`a != b`) uniformly among their consistent pairs, or
    /// variable `a` alone when `a == b`. Does nothing if either is not a variable.
    pub fn step_pair(&mut self, a: usize, b: usize, rng: &mut (impl Rng + ?Sized)) {
        let n = self.state.len();
        if a >= n || b >= n {
            return;
        }
        let (block, cells) = self.others(1 << a | 1 << b);
        let need = self.p.required & !cells;
        let vars = &self.p.vars;
        // Starts of family f that avoid `blk` and cover every element of `need`.
        let allowed = |f: &Family, blk: u128, need: u128| -> u128 {
            let mut m = f.free_starts(blk);
            for e in bits(need) {
                m &= meeting_starts(f.shape, 1u128 << e);
            }
            m
        };
        if a == b {
            let masks: Vec<u128> = vars[a].iter().map(|f| allowed(f, block, need)).collect();
            let total: u32 = masks.iter().map(|m| m.count_ones()).sum();
            if total == 0 {
                return;
            }
            let mut r = rng.random_range(0..total);
            for (fi, m) in masks.iter().enumerate() {
                let c = m.count_ones();
                if r < c {
                    self.state[a] = Value {
                        family: fi,
                        start: nth_bit(*m, r),
                    };
                    return;
                }
                r -= c;
            }
            return;
        }
        let total = pair_weights(&vars[a], &vars[b], block, need, &mut self.scratch);
        if total == 0 {
            return;
        }
        let mut r = rng.random_range(0..total);
        let mut pick = None;
        for &(fi, s, w) in &self.scratch {
            if r < u64::from(w) {
                pick = Some((fi, s));
                break;
            }
            r -= u64::from(w);
        }
        let Some((fa, sa)) = pick else { return };
        let f = &vars[a][fa];
        let (ca, ba) = (f.cells(sa), f.block(sa));
        let masks: Vec<u128> = vars[b]
            .iter()
            .map(|g| allowed(g, block | ba, need & !ca))
            .collect();
        let mut r = u32::try_from(r).unwrap_or(0);
        for (fi, m) in masks.iter().enumerate() {
            let c = m.count_ones();
            if r < c {
                self.state[a] = Value {
                    family: fa,
                    start: sa,
                };
                self.state[b] = Value {
                    family: fi,
                    start: nth_bit(*m, r),
                };
                return;
            }
            r -= c;
        }
    }

    /// Re-places the variables of `vars` jointly, exactly uniformly among their assignments
    /// consistent with every other variable and with the required and forbidden elements (a
    /// Gibbs update on the set, drawn by [`sample_placements`] on the problem restricted to
    /// it). With every variable in `vars` it is an independent exact draw; with three or more
    /// it makes the moves that pairs cannot (see the [type's documentation](PlacementChain)).
    /// An empty set does nothing.
    ///
    /// # Errors
    /// [`CspError::VarOutOfRange`] for an index that is not a variable,
    /// [`CspError::DuplicateVar`] for one given twice, and [`CspError::BudgetExceeded`] when
    /// the exact analysis of the set needs more than `budget.max_nodes` nodes. On an error
    /// the state is unchanged.
    pub fn step_block(
        &mut self,
        vars: &[usize],
        budget: &Budget,
        rng: &mut (impl Rng + ?Sized),
    ) -> Result<(), CspError> {
        self.redraw(vars, budget, None, rng)
    }

    /// [`PlacementChain::step_block`], its first count (of the whole set) within `budget`
    /// and the later ones within `rest` (`None`: `budget` too).
    fn redraw(
        &mut self,
        vars: &[usize],
        budget: &Budget,
        rest: Option<&Budget>,
        rng: &mut (impl Rng + ?Sized),
    ) -> Result<(), CspError> {
        let n = self.state.len();
        let mut chosen = 0u64;
        for &v in vars {
            if v >= n {
                return Err(CspError::VarOutOfRange {
                    var: v,
                    num_vars: n,
                });
            }
            // At most 64 variables (`PlacementChain::new` refuses more).
            if chosen >> v & 1 == 1 {
                return Err(CspError::DuplicateVar { var: v });
            }
            chosen |= 1 << v;
        }
        if vars.is_empty() {
            return Ok(());
        }
        let (block, cells) = self.others(chosen);
        // The halo relation is symmetric (`check_halos`), so keeping the set's cells out of
        // the others' halos also keeps the others' cells out of the set's halos.
        let mut sub = PlacementCsp::new(self.p.universe)?;
        for &v in vars {
            sub.add_var(self.p.vars[v].clone())?;
        }
        sub.forbid(block | self.p.forbidden)?;
        sub.require(self.p.required & !cells)?;
        let values = sample(&sub, budget, rest.unwrap_or(budget), rng, true)?;
        for (&v, val) in vars.iter().zip(values) {
            self.state[v] = val;
        }
        Ok(())
    }

    /// One sweep: a single-variable move for every variable (cheap: a few word operations
    /// each), then one pair move on a uniformly drawn pair (costlier: it enumerates the first
    /// variable's values; it is what lets variables exchange the required elements they
    /// cover).
    pub fn sweep(&mut self, rng: &mut (impl Rng + ?Sized)) {
        let n = self.state.len();
        for a in 0..n {
            self.step_pair(a, a, rng);
        }
        if n > 1 {
            let a = rng.random_range(0..n);
            let b = rng.random_range(0..n - 1);
            let b = if b >= a { b + 1 } else { b };
            self.step_pair(a, b, rng);
        }
    }
}

/// The start the searches of [`PlacementChain::new`] found in `partial` (`found`), or,
/// where they ran out of nodes, an exact draw from the propagated problem `p` within
/// `budget` a count (and, where that runs out too, the budget exceeded).
fn start_or_draw(
    p: &PlacementCsp,
    found: Result<bool, CspError>,
    partial: Vec<Option<Value>>,
    budget: &Budget,
    rng: &mut (impl Rng + ?Sized),
) -> Result<Vec<Value>, CspError> {
    match found {
        Ok(true) => Ok(partial.into_iter().flatten().collect()),
        Ok(false) => Err(CspError::Inconsistent),
        Err(CspError::BudgetExceeded { .. }) => match sample_placements(p, budget, rng) {
            Ok(values) => Ok(values),
            Err(CspError::BudgetExceeded { .. } | CspError::CountOverflow) => {
                Err(CspError::BudgetExceeded {
                    max_nodes: budget.max_nodes,
                    component_vars: p.vars.len(),
                })
            }
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// Randomised depth-first search for one solution: while a required element is uncovered,
/// branch on the (variable, value) pairs covering the lowest one; then place the remaining
/// variables one by one, with a forward check that each still has a value.
fn first_solution(
    p: &PlacementCsp,
    state: &mut [Option<Value>],
    blocked: u128,
    covered: u128,
    nodes: &mut u64,
    max_nodes: u64,
    rng: &mut (impl Rng + ?Sized),
) -> Result<bool, CspError> {
    *nodes += 1;
    if *nodes > max_nodes {
        return Err(CspError::BudgetExceeded {
            max_nodes,
            component_vars: p.vars.len(),
        });
    }
    let need = p.required & !covered;
    let free: Vec<usize> = (0..state.len()).filter(|&v| state[v].is_none()).collect();
    let mut cands: Vec<(usize, Value)> = Vec::new();
    if need != 0 {
        let cap: u32 = free
            .iter()
            .map(|&v| {
                p.vars[v]
                    .iter()
                    .map(|f| f.shape.count_ones())
                    .max()
                    .unwrap_or(0)
            })
            .sum();
        if need.count_ones() > cap {
            return Ok(false);
        }
        let m = 1u128 << need.trailing_zeros();
        for &v in &free {
            push_values(&mut cands, v, &p.vars[v], |f| {
                f.free_starts(blocked) & meeting_starts(f.shape, m)
            });
        }
    } else {
        let Some(&v) = free.first() else {
            return Ok(true);
        };
        for &w in &free {
            if p.vars[w].iter().all(|f| f.free_starts(blocked) == 0) {
                return Ok(false);
            }
        }
        push_values(&mut cands, v, &p.vars[v], |f| f.free_starts(blocked));
    }
    while !cands.is_empty() {
        let i = rng.random_range(0..cands.len());
        let (v, val) = cands.swap_remove(i);
        let f = &p.vars[v][val.family];
        state[v] = Some(val);
        if first_solution(
            p,
            state,
            blocked | f.block(val.start),
            covered | f.cells(val.start),
            nodes,
            max_nodes,
            rng,
        )? {
            return Ok(true);
        }
        state[v] = None;
    }
    Ok(false)
}

/// Adds to `cands` the values of variable `v` (of families `fs`) at the starts `starts`
/// picks in each family, family by family, lowest start first.
fn push_values(
    cands: &mut Vec<(usize, Value)>,
    v: usize,
    fs: &[Family],
    starts: impl Fn(&Family) -> u128,
) {
    for (fi, f) in fs.iter().enumerate() {
        for s in bits(starts(f)) {
            cands.push((
                v,
                Value {
                    family: fi,
                    start: s,
                },
            ));
        }
    }
}

/// The randomised search for a chain's first solution on a crowded board (see
/// [`PlacementChain::new`]).
struct PackedStart<'a> {
    p: &'a PlacementCsp,
    sizes: Sizes,
    nodes: u64,
    max_nodes: u64,
}

impl PackedStart<'_> {
    /// [`PackedStart::search`] from scratch, again and again with twice the nodes of the
    /// last try until `max_nodes` are spent: its times are heavy-tailed (on twelve 4-ships
    /// kept apart on 10x10, from a few hundred nodes to a few hundred thousand, by the seed),
    /// and a fresh random try soon finds one of the short runs.
    fn restarts(
        &mut self,
        state: &mut [Option<Value>],
        unassigned: u64,
        max_nodes: u64,
        rng: &mut (impl Rng + ?Sized),
    ) -> Result<bool, CspError> {
        let mut limit = 1024u64;
        loop {
            self.max_nodes = max_nodes.min(self.nodes.saturating_add(limit));
            match self.search(state, unassigned, 0, 0, rng) {
                Err(CspError::BudgetExceeded { .. }) if self.max_nodes < max_nodes => {
                    state.fill(None);
                    limit = limit.saturating_mul(2);
                }
                r => return r,
            }
        }
    }

    /// Whether the variables `unassigned` have values completing `state`, with `blocked`
    /// taken and `covered` covered by the others (`state` then holds them). At a crowded
    /// node, the lowest element the variables can reach, covered or (when no covering
    /// completes, and it is not required) left empty, so that the board fills in order and
    /// a hole shows at once; elsewhere the lowest required element left uncovered, covered
    /// by some variable; with none, the largest variable placed anywhere. Of a group of
    /// interchangeable unassigned variables only the first covers an element (any solution
    /// with another one there is the same with the two exchanged).
    fn search(
        &mut self,
        state: &mut [Option<Value>],
        unassigned: u64,
        blocked: u128,
        covered: u128,
        rng: &mut (impl Rng + ?Sized),
    ) -> Result<bool, CspError> {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Err(CspError::BudgetExceeded {
                max_nodes: self.max_nodes,
                component_vars: self.p.vars.len(),
            });
        }
        let vars = &self.p.vars;
        let need = self.p.required & !covered;
        if unassigned == 0 {
            return Ok(need == 0);
        }
        let cap: u32 = bits(unassigned as u128)
            .map(|v| self.sizes.max_size[v as usize])
            .sum();
        if need.count_ones() > cap {
            return Ok(false);
        }
        let Some((reach, crowded)) = self.sizes.room(vars, unassigned, blocked, |_, _| !0) else {
            return Ok(false);
        };
        if need & !reach != 0 {
            return Ok(false);
        }
        let mut cands: Vec<(usize, Value)> = Vec::new();
        let mut empty = None;
        if crowded {
            let e = reach.trailing_zeros();
            self.covering(e, unassigned, blocked, &mut cands);
            empty = Some(1u128 << e).filter(|&m| need & m == 0);
        } else if need != 0 {
            self.covering(need.trailing_zeros(), unassigned, blocked, &mut cands);
        } else if let Some(&v) = self.sizes.order.iter().find(|&&v| unassigned >> v & 1 == 1) {
            push_values(&mut cands, v, &vars[v], |f| f.free_starts(blocked));
        }
        while !cands.is_empty() {
            let (v, val) = cands.swap_remove(rng.random_range(0..cands.len()));
            let f = &vars[v][val.family];
            state[v] = Some(val);
            if self.search(
                state,
                unassigned & !(1u64 << v),
                blocked | f.block(val.start),
                covered | f.cells(val.start),
                rng,
            )? {
                return Ok(true);
            }
            state[v] = None;
        }
        match empty {
            Some(e) => self.search(state, unassigned, blocked | e, covered, rng),
            None => Ok(false),
        }
    }

    /// Adds to `cands` the values covering element `e` of the first unassigned variable of
    /// each group.
    fn covering(&self, e: u32, unassigned: u64, blocked: u128, cands: &mut Vec<(usize, Value)>) {
        let m = 1u128 << e;
        for v in bits(unassigned as u128) {
            let v = v as usize;
            if self.sizes.group[v] & unassigned & ((1u64 << v) - 1) != 0 {
                continue;
            }
            push_values(cands, v, &self.p.vars[v], |f| {
                f.free_starts(blocked) & meeting_starts(f.shape, m)
            });
        }
    }
}

/// Monte Carlo estimates from a [`PlacementChain`].
///
/// The estimates are Rao-Blackwellised: after each sweep, every variable contributes the
/// exact distribution of its value *given the other variables' current values* (uniform over
/// its consistent values), instead of the single value it happens to hold. This has the same
/// expectation and a much smaller variance.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacementEstimate {
    /// Sweeps recorded after the burn-in (0 when only the state after the burn-in was
    /// recorded, as [`estimate_placements`] does when asked for no samples).
    pub samples: u64,
    /// `value_probs[v][f][s]`: estimated probability that variable `v` takes start `s` of
    /// family `f`.
    pub value_probs: Vec<Vec<Vec<f64>>>,
    /// Estimated probability that each element is covered: the sum of the variables'
    /// estimates of covering it, at most 1 (on short runs that sum can pass 1, as each
    /// variable's share is taken given the others' values in the same state; it is clamped).
    pub element_probs: Vec<f64>,
    /// Per element, the standard error of its estimate by batch means over the recorded
    /// sweeps (see [`Estimate::std_errors`](crate::Estimate::std_errors), which is computed
    /// the same way): sound only as far as the chain mixes within a batch, so a chain stuck
    /// among some of the solutions shows small errors around wrong values. Infinite with
    /// fewer than 2 recorded sweeps.
    pub element_std_errors: Vec<f64>,
}

impl PlacementEstimate {
    /// The estimated probability that each element is covered.
    pub fn marginals(&self) -> Vec<f64> {
        self.element_probs.clone()
    }
}

impl PlacementChain {
    /// A sweep, then (with `block > 2`) a block move on `block` variables drawn uniformly
    /// (the first `block` of a partial shuffle of `order`, which holds every variable once),
    /// skipped when its analysis runs out of `budget`.
    fn sweep_and_block(
        &mut self,
        order: &mut [usize],
        block: usize,
        budget: &Budget,
        rng: &mut (impl Rng + ?Sized),
    ) -> Result<(), CspError> {
        self.sweep(rng);
        if block > 2 {
            let set = crate::sample::partial_shuffle(order, block, rng);
            // Only the first count may skip the move: it depends on the other variables
            // alone, which the move keeps, so skipping keeps the chain uniform.
            match self.redraw(set, budget, Some(&UNLIMITED), rng) {
                Ok(()) | Err(CspError::BudgetExceeded { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Adds, for every variable, its conditional distribution given the others to `acc`.
    #[allow(clippy::needless_range_loop)] // `v` indexes the state and the variables too
    fn accumulate(&self, acc: &mut [Vec<Vec<f64>>]) {
        for v in 0..self.state.len() {
            let (block, cells) = self.others(1 << v);
            let need = self.p.required & !cells;
            let masks: Vec<u128> = self.p.vars[v]
                .iter()
                .map(|f| {
                    let mut m = f.free_starts(block);
                    for e in bits(need) {
                        m &= meeting_starts(f.shape, 1u128 << e);
                    }
                    m
                })
                .collect();
            let total: u32 = masks.iter().map(|m| m.count_ones()).sum();
            if total == 0 {
                continue;
            }
            let w = 1.0 / f64::from(total);
            for (fi, m) in masks.iter().enumerate() {
                for s in bits(*m) {
                    acc[v][fi][s as usize] += w;
                }
            }
        }
    }
}

/// Runs a [`PlacementChain`] for `burn_in` sweeps, then records `samples` sweeps
/// (Rao-Blackwellised, see [`PlacementEstimate`]). With `samples` 0 it records once, at
/// the state after the burn-in, so that the estimate always describes solutions (then the
/// distribution of each variable given the others' values in that one state, not an
/// average over states).
///
/// A sweep re-places pairs of variables. Where pieces nearly fill the board, pair moves may
/// not connect the solutions: the chain then stays among some of them and the estimate can
/// be far off with nothing to show it. There, run a [`PlacementChain`]
/// with [`PlacementChain::step_block`] over larger sets of variables, or count exactly.
///
/// # Errors
/// As [`PlacementChain::new`].
pub fn estimate_placements(
    csp: &PlacementCsp,
    budget: &Budget,
    burn_in: u64,
    samples: u64,
    rng: &mut (impl Rng + ?Sized),
) -> Result<PlacementEstimate, CspError> {
    estimate_placements_with_blocks(csp, budget, burn_in, samples, 0, rng)
}

/// [`estimate_placements`] with a block move after every sweep: `block` variables drawn
/// uniformly at random (all of them if there are fewer) re-placed jointly by
/// [`PlacementChain::step_block`], which reaches solutions that pair moves cannot (three
/// pieces that must trade the required elements they cover, say). `block` of 2 or less
/// adds nothing to the sweeps' pair moves, and gives [`estimate_placements`]'s estimate.
///
/// A block move whose exact analysis of the whole set needs more than `budget.max_nodes`
/// nodes is skipped, which keeps the chain uniform: whether it is skipped depends only on
/// the variables outside the block, which the move does not change (the narrower counts
/// that follow, each with one more variable of the set fixed, are not limited, so a move
/// once begun ends). Each block move costs exact counts over its variables, many times a
/// sweep's single and pair moves.
///
/// # Errors
/// As [`PlacementChain::new`].
#[allow(clippy::needless_range_loop)] // `s` is a start offset as well as an index
pub fn estimate_placements_with_blocks(
    csp: &PlacementCsp,
    budget: &Budget,
    burn_in: u64,
    samples: u64,
    block: usize,
    rng: &mut (impl Rng + ?Sized),
) -> Result<PlacementEstimate, CspError> {
    let mut chain = PlacementChain::new(csp, budget, rng)?;
    let n = chain.state.len();
    let mut order: Vec<usize> = (0..n).collect();
    let block = block.min(n);
    for _ in 0..burn_in {
        chain.sweep_and_block(&mut order[..], block, budget, rng)?;
    }
    let mut acc: Vec<Vec<Vec<f64>>> = chain
        .p
        .vars
        .iter()
        .map(|fs| vec![vec![0.0; MAX_ELEMENTS]; fs.len()])
        .collect();
    let mut batch = BatchMeans::new(csp.universe, samples);
    for sweep in 0..samples {
        chain.sweep_and_block(&mut order[..], block, budget, rng)?;
        chain.accumulate(&mut acc);
        if batch.closes(sweep) {
            batch.close(&element_sums(&chain.p.vars, &acc, csp.universe));
        }
    }
    if samples == 0 {
        chain.accumulate(&mut acc);
    }
    let t = samples.max(1) as f64;
    let mut element_probs = vec![0.0; csp.universe];
    for (v, fs) in chain.p.vars.iter().enumerate() {
        for (fi, f) in fs.iter().enumerate() {
            for s in 0..MAX_ELEMENTS {
                let x = &mut acc[v][fi][s];
                if *x > 0.0 {
                    *x /= t;
                    for e in bits(f.cells(s as u32)) {
                        element_probs[e as usize] += *x;
                    }
                }
            }
        }
    }
    // Each variable's share is exact given the others, but the others' states differ, so on
    // a short run the shares of one element can add up past 1: a probability is no more.
    for p in &mut element_probs {
        *p = p.min(1.0);
    }
    Ok(PlacementEstimate {
        samples,
        value_probs: acc,
        element_probs,
        element_std_errors: (0..csp.universe).map(|e| batch.std_error(e)).collect(),
    })
}

/// Per element, the sum of the accumulated shares of the values covering it.
fn element_sums(vars: &[Vec<Family>], acc: &[Vec<Vec<f64>>], universe: usize) -> Vec<f64> {
    let mut sums = vec![0.0; universe];
    for (fs, acc) in vars.iter().zip(acc) {
        for (f, acc) in fs.iter().zip(acc) {
            for (s, &x) in acc.iter().enumerate() {
                if x > 0.0 {
                    for e in bits(f.cells(s as u32)) {
                        sums[e as usize] += x;
                    }
                }
            }
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Grid;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Three identical dominoes and two identical single cells, no-touch, on a 5x5 board,
    /// with one cell required.
    fn two_groups() -> PlacementCsp {
        let grid = Grid::new(5, 5).unwrap();
        let domino = vec![
            grid.translates_no_touch(&[(0, 0), (1, 0)]).unwrap(),
            grid.translates_no_touch(&[(0, 0), (0, 1)]).unwrap(),
        ];
        let cell = vec![grid.translates_no_touch(&[(0, 0)]).unwrap()];
        let mut p = PlacementCsp::new(25).unwrap();
        for _ in 0..3 {
            p.add_var(domino.clone()).unwrap();
        }
        for _ in 0..2 {
            p.add_var(cell.clone()).unwrap();
        }
        p.require(1 << 6).unwrap();
        p
    }

    /// Where the searches for a start run out of nodes, the start is an exact draw, or,
    /// when its counts run out too, the caller's budget is reported exceeded.
    #[test]
    fn a_start_the_searches_miss_is_drawn() {
        let grid = Grid::new(4, 4).unwrap();
        let mut p = PlacementCsp::new(16).unwrap();
        for len in [3, 2] {
            let shape: Vec<(usize, usize)> = (0..len).map(|i| (i, 0)).collect();
            p.add_var(vec![grid.translates(&shape).unwrap()]).unwrap();
        }
        let p = propagate_placements(&p).unwrap();
        let over = || {
            Err(CspError::BudgetExceeded {
                max_nodes: 1,
                component_vars: 2,
            })
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let drawn = start_or_draw(&p, over(), vec![None; 2], &UNLIMITED, &mut rng).unwrap();
        assert!(p.is_solution(&drawn), "{drawn:?}");
        let tiny = Budget { max_nodes: 1 };
        assert_eq!(
            start_or_draw(&p, over(), vec![None; 2], &tiny, &mut rng),
            Err(CspError::BudgetExceeded {
                max_nodes: 1,
                component_vars: 2
            })
        );
        assert_eq!(
            start_or_draw(&p, Ok(false), vec![None; 2], &tiny, &mut rng),
            Err(CspError::Inconsistent)
        );
    }

    /// Without labels each group's sets of values count once, and a member's counts are
    /// the group's: `k` times its labelled counts, over `k!` per group.
    #[test]
    fn unlabelled_counts_are_the_labelled_ones_without_the_orders() {
        let p = two_groups();
        let budget = Budget::default();
        let l = analyze_placements(&p, &budget).unwrap();
        let u = analyze_placements_unlabelled(&p, &budget).unwrap();
        assert!(u.solutions > 0);
        assert_eq!(l.solutions, u.solutions * 6 * 2);
        // Each solution covering an element counts once, labelled or not.
        for (&lc, &uc) in l.element_counts.iter().zip(&u.element_counts) {
            assert_eq!(lc, uc * 6 * 2);
        }
        assert_eq!(l.marginals(), u.marginals());
        // Whatever the labelled-search switch says.
        let mut flagged = p.clone();
        flagged.set_labelled_search(true);
        let f = analyze_placements_unlabelled(&flagged, &budget).unwrap();
        assert_eq!(f.solutions, u.solutions);
        assert_eq!(f.value_counts, u.value_counts);
        for v in 0..5 {
            let k = if v < 3 { 3 } else { 2 };
            for (lf, uf) in l.value_counts[v].iter().zip(&u.value_counts[v]) {
                for (&lc, &uc) in lf.iter().zip(uf) {
                    assert_eq!(lc * k * u.solutions, uc * l.solutions, "variable {v}");
                }
            }
        }
    }

    /// Drawn from unlabelled counts, each variable takes each value as often as the exact
    /// labelled counts say (within 5 standard errors), members of a group alike.
    #[test]
    fn unlabelled_draws_are_uniform_over_labelled_solutions() {
        let p = two_groups();
        let budget = Budget::default();
        let exact = analyze_placements(&p, &budget).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 4000u32;
        let mut seen: Vec<Vec<Vec<u32>>> = exact
            .value_counts
            .iter()
            .map(|fs| vec![vec![0; MAX_ELEMENTS]; fs.len()])
            .collect();
        for _ in 0..n {
            let values = sample(&p, &budget, &budget, &mut rng, false).unwrap();
            assert!(p.is_solution(&values));
            for (v, val) in values.iter().enumerate() {
                seen[v][val.family][val.start as usize] += 1;
            }
        }
        for (v, fs) in exact.value_counts.iter().enumerate() {
            for (fi, cs) in fs.iter().enumerate() {
                for (s, &c) in cs.iter().enumerate() {
                    let q = c as f64 / exact.solutions as f64;
                    let f = f64::from(seen[v][fi][s]) / f64::from(n);
                    let se = (q * (1.0 - q) / f64::from(n)).sqrt();
                    assert!(
                        (f - q).abs() <= 5.0 * se + 1e-12,
                        "{v} {fi} {s}: {f} vs {q}"
                    );
                }
            }
        }
    }

    /// Three straight trominoes covering 3x3: pair moves never turn them (each piece's
    /// direction stays as the chain started it), block moves of three do, and the estimate
    /// finds each direction half the time, as the exact count does. Below three, blocks add
    /// nothing: the estimate is `estimate_placements`'s, draw for draw.
    #[test]
    fn block_moves_reach_what_pairs_cannot() {
        use rand::SeedableRng;
        let grid = Grid::new(3, 3).unwrap();
        let mut p = PlacementCsp::new(9).unwrap();
        for _ in 0..3 {
            p.add_var(vec![
                grid.translates(&[(0, 0), (1, 0), (2, 0)]).unwrap(),
                grid.translates(&[(0, 0), (0, 1), (0, 2)]).unwrap(),
            ])
            .unwrap();
        }
        p.require(grid.all()).unwrap();
        let budget = Budget::default();
        let across = |e: &PlacementEstimate| e.value_probs[0][0].iter().sum::<f64>();
        for seed in 0..4 {
            let run = |block| {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                estimate_placements_with_blocks(&p, &budget, 20, 400, block, &mut rng).unwrap()
            };
            let pairs = run(2);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            assert_eq!(
                pairs,
                estimate_placements(&p, &budget, 20, 400, &mut rng).unwrap()
            );
            assert!(across(&pairs) < 1e-9 || across(&pairs) > 1.0 - 1e-9);
            // 400 sweeps of one independent draw each: within 5 standard errors of 1/2.
            let blocks = run(3);
            assert!(
                (across(&blocks) - 0.5).abs() < 5.0 * 0.025,
                "{}",
                across(&blocks)
            );
            assert_eq!(run(usize::MAX), blocks);
        }
    }

    /// A variable without values is accepted and leaves no solution: the exact count says
    /// the problem is inconsistent, the reference enumeration counts 0, the sampler fails.
    #[test]
    fn a_variable_without_values_leaves_no_solution() {
        use rand::SeedableRng;
        let grid = Grid::new(3, 2).unwrap();
        let long = grid.translates(&[(0, 0), (1, 0), (2, 0), (3, 0)]).unwrap();
        for domain in [vec![], vec![long]] {
            let mut p = PlacementCsp::new(6).unwrap();
            p.add_var(vec![grid.translates(&[(0, 0)]).unwrap()])
                .unwrap();
            p.add_var(domain).unwrap();
            let budget = Budget::default();
            assert!(matches!(
                count_placements(&p, &budget),
                Err(CspError::Inconsistent)
            ));
            assert_eq!(analyze_placements_naive(&p, &budget).unwrap().solutions, 0);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            assert!(sample_placements(&p, &budget, &mut rng).is_err());
        }
    }

    /// The 65th variable is refused when it is added, not when the problem is analysed.
    #[test]
    fn variables_past_the_limit_are_refused_when_added() {
        let mut p = PlacementCsp::new(128).unwrap();
        for _ in 0..MAX_VARS {
            p.add_var(vec![Family::new(1, u128::MAX).unwrap()]).unwrap();
        }
        let e = p.add_var(vec![Family::new(1, 1).unwrap()]).unwrap_err();
        assert!(e.to_string().contains("past the 64"), "{e}");
        assert_eq!(p.num_vars(), MAX_VARS);
    }

    /// Three monominoes on four cells, from one state: the empty cell's shares, one half
    /// from each variable, add up to 3/2; it is reported as a probability, 1.
    #[test]
    fn coverage_estimates_stay_probabilities() {
        use rand::SeedableRng;
        let mut p = PlacementCsp::new(4).unwrap();
        for _ in 0..3 {
            p.add_var(vec![Family::new(1, 0b1111).unwrap()]).unwrap();
        }
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        let e = estimate_placements(&p, &Budget::default(), 0, 0, &mut rng).unwrap();
        let mut probs = e.element_probs.clone();
        probs.sort_by(f64::total_cmp);
        assert_eq!(probs, [0.5, 0.5, 0.5, 1.0]);
    }

    /// A value held by two families of one variable would be counted twice (a uniform
    /// domain of two families {0, 1} and {0} gave element 0 the probability 2/3): refused.
    #[test]
    fn a_value_in_two_families_is_refused() {
        let mut p = PlacementCsp::new(4).unwrap();
        let twice = p.add_var(vec![
            Family::new(1, 0b11).unwrap(),
            Family::new(1, 0b01).unwrap(),
        ]);
        assert!(
            matches!(twice, Err(CspError::InvalidPlacement(_))),
            "{twice:?}"
        );
        // The same cells from another shape and start, too.
        let shifted = p.add_var(vec![
            Family::new(0b10, 0b1).unwrap(),
            Family::new(0b1, 0b10).unwrap(),
        ]);
        assert!(
            matches!(shifted, Err(CspError::InvalidPlacement(_))),
            "{shifted:?}"
        );
        assert_eq!(p.num_vars(), 0);
        // Overlapping cells are fine when no two values are the same.
        let v = p.add_var(vec![
            Family::new(0b11, 0b101).unwrap(),
            Family::new(1, 0b1111).unwrap(),
        ]);
        assert_eq!(v, Ok(0));
        assert_eq!(p.domain_size(0), 6);
    }

    #[test]
    fn meeting_starts_matches_a_loop() {
        let shape = 0b1011u128;
        let mask = (1u128 << 7) | (1u128 << 20);
        let m = meeting_starts(shape, mask);
        for s in 0..120u32 {
            assert_eq!(m >> s & 1 == 1, (shape << s) & mask != 0, "start {s}");
        }
    }

    /// The pair move's counts, start by start, against the plain computation: for each
    /// value of the first variable, the values of the second that avoid both blocks and
    /// cover what is needed, tested cell by cell; and the exact count of the same pair
    /// against the naive search. Pieces of several shapes on grids up to the full 128
    /// elements (so that shifted patterns reach the top bits), with and without no-touch
    /// halos, random blocked and needed cells.
    #[test]
    fn pair_weights_match_the_plain_count() {
        let pieces: [&[(usize, usize)]; 5] = [
            &[(0, 0), (1, 0)],
            &[(0, 0), (0, 1), (0, 2)],
            &[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)],
            &[(0, 0), (1, 0), (1, 1)],
            &[(1, 0), (0, 1), (1, 1), (2, 1)],
        ];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut out = Vec::new();
        let (mut checked, mut counted) = (0, 0);
        for &(w, h) in &[(4, 3), (10, 10), (16, 8), (11, 11)] {
            let grid = Grid::new(w, h).unwrap();
            for round in 0..60 {
                let family = |i: usize| {
                    let piece = pieces[i % 5];
                    if round % 2 == 0 {
                        grid.translates(piece).unwrap()
                    } else {
                        grid.translates_no_touch(piece).unwrap()
                    }
                };
                // Distinct pieces within a domain (a variable holds each value once).
                let first = rng.random_range(0..5);
                let fa: Vec<Family> = (0..rng.random_range(1..3))
                    .map(|i| family(first + i))
                    .collect();
                // Every third problem, two variables of one domain (a group).
                let fb: Vec<Family> = if round % 3 == 0 {
                    fa.clone()
                } else {
                    let first = rng.random_range(0..5);
                    (0..rng.random_range(1..4))
                        .map(|i| family(first + i))
                        .collect()
                };
                let universe = grid.all();
                let random_cells = |rng: &mut Xoshiro256PlusPlus, n: u32| {
                    (0..n).fold(0u128, |m, _| m | 1u128 << rng.random_range(0..w * h)) & universe
                };
                let blocked = rng.random_range(0..6);
                let block = random_cells(&mut rng, blocked);
                let needed = rng.random_range(0..3);
                let need = random_cells(&mut rng, needed) & !block;
                let total = pair_weights(&fa, &fb, block, need, &mut out);
                let mut plain = Vec::new();
                for (fi, f) in fa.iter().enumerate() {
                    for s in bits(f.starts()) {
                        if f.cells(s) & block != 0 {
                            continue;
                        }
                        let n: u32 = fb
                            .iter()
                            .map(|g| {
                                bits(g.starts())
                                    .filter(|&t| {
                                        let cells = g.cells(t);
                                        cells & (block | f.block(s)) == 0
                                            && need & !(f.cells(s) | cells) == 0
                                    })
                                    .count() as u32
                            })
                            .sum();
                        if n > 0 {
                            plain.push((fi, s, n));
                        }
                    }
                }
                assert_eq!(out, plain, "{w}x{h}, round {round}");
                assert_eq!(total, plain.iter().map(|x| u64::from(x.2)).sum::<u64>());
                checked += plain.len();
                // The exact count's last step (one variable looped over, the other counted
                // in one step) on the same pair, against the naive search.
                let mut p = PlacementCsp::new(w * h).unwrap();
                p.add_var(fa.clone()).unwrap();
                p.add_var(fb.clone()).unwrap();
                p.forbid(block).unwrap();
                p.require(need).unwrap();
                let budget = Budget::default();
                match (
                    analyze_placements(&p, &budget),
                    analyze_placements_naive(&p, &budget),
                ) {
                    (Ok(exact), Ok(naive)) => {
                        assert_eq!(exact.solutions, naive.solutions, "{w}x{h}, round {round}");
                        assert_eq!(exact.value_counts, naive.value_counts);
                        assert_eq!(exact.element_counts, naive.element_counts);
                        counted += 1;
                    }
                    // No solution: an error from the engine, a count of 0 from the naive one.
                    (Err(CspError::Inconsistent), Ok(naive)) => assert_eq!(naive.solutions, 0),
                    (exact, naive) => panic!("{w}x{h}, round {round}: {exact:?} {naive:?}"),
                }
            }
        }
        assert!(checked > 1000 && counted > 100, "{checked} {counted}");
    }

    #[test]
    fn sliced_counter_counts() {
        let mut out = vec![0u128; 128];
        let mut c = SlicedCounter::new();
        for i in 0..1000u128 {
            c.add(i | 1, &mut out, 3);
        }
        c.flush(&mut out, 3);
        assert_eq!(out[0], 3000);
        assert_eq!(out[1], 1500);
        assert_eq!(
            out[9],
            3 * (0..1000u128).filter(|i| i >> 9 & 1 == 1).count() as u128
        );
    }

    /// A family of another shape shares nothing: a single cell offered a domino's no-touch
    /// halos keeps its cells as its halos.
    #[test]
    fn a_halo_of_another_shape_is_not_shared() {
        let grid = Grid::new(4, 4).unwrap();
        let domino = grid.translates_no_touch(&[(0, 0), (1, 0)]).unwrap();
        let cell = grid.translates(&[(0, 0)]).unwrap();
        let shared = cell.clone().share_halo(&domino);
        for s in bits(cell.starts()) {
            assert_eq!(shared.block(s), cell.cells(s), "start {s}");
        }
        let mut csp = PlacementCsp::new(16).unwrap();
        csp.add_var(vec![shared]).unwrap();
        csp.add_var(vec![cell]).unwrap();
        assert!(csp.check_halos().is_ok());
    }
}
