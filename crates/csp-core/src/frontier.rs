//! [`FrontierCount`]: exact counting and uniform sampling of a [`PlacementCsp`] memoised
//! on element frontiers.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use rand::{Rng, RngExt};

use crate::placement::{
    MAX_ELEMENTS, PlacementAnalysis, PlacementCsp, Value, meeting_starts, propagate_placements,
};
use crate::{Budget, CspError};

/// A frontier: the element reached, what the chosen values cover and block from it on, and
/// which variables are left (a group's remaining members are always its last ones).
type State = (u32, u128, u128, u64);

/// A hasher for states: their words folded by multiplication, far cheaper than the
/// default SipHash on the millions of lookups of a large count (the keys come from the
/// problem, not from an adversary).
#[derive(Debug, Clone, Copy, Default)]
struct StateHasher(u64);

impl StateHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for StateHasher {
    fn finish(&self) -> u64 {
        self.0 ^ self.0 >> 29
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_u128(&mut self, n: u128) {
        self.add(n as u64);
        self.add((n >> 64) as u64);
    }
}

/// A table of counts by state.
type Memo = HashMap<State, u128, BuildHasherDefault<StateHasher>>;

/// One value that can be anchored at an element: the group of variables it belongs to, its
/// family and start, its cells and its halo.
#[derive(Debug, Clone, Copy)]
struct Anchored {
    group: usize,
    family: usize,
    start: u32,
    cells: u128,
    block: u128,
}

/// The exact count of a placement problem's solutions by dynamic programming over its
/// elements in index order, memoised on the *frontier*: what the values chosen so far cover
/// and block among the elements still to come. It keeps its table to draw exactly uniform
/// solutions ([`FrontierCount::sample`]) and to give the exact count of every value and
/// element ([`FrontierCount::analyze`]).
///
/// The backtracking counter ([`analyze_placements`](crate::analyze_placements)) visits every
/// solution, or every partial solution that leads to one; its node count grows with the
/// number of solutions. Yet two partial solutions that leave the same elements covered and
/// blocked beyond the current element, with the same variables left to place, have the same
/// completions. Walking the elements in order, each value is chosen at its lowest element
/// (its *anchor*), and the state before element `i` is
///
/// - `i`,
/// - the elements `>= i` covered by the values chosen so far,
/// - the elements `>= i` in their halos (on a grid numbered row by row, a few rows' worth),
/// - which variables are left (of a group of interchangeable variables, only how many).
///
/// At element `i` the count either leaves it empty (unless it is required) or anchors there
/// one value of a variable left: one start per family at most, since a family's values are
/// translates of one shape. Each set of values is reached once, along the elements of its
/// anchors in order, so the count of a state is the sum of its successors' counts. A state
/// with one variable left is counted at once, by population counts over its families'
/// starts, and where nothing is required the covered elements are left out of the state
/// (they are blocked anyway), which merges states. Memoised, the work is the number of
/// distinct states, which on a board filled row by row is bounded by the profiles a few
/// rows deep, not by the number of solutions: the empty 10x10 Battleship board's
/// 30,093,975,536 labelled fleets take 1,795,161 states, where the search visits some 112
/// million nodes. It pays where solutions share frontiers: open boards with several
/// pieces (Battleship fleets, tight ones above all), with elements numbered along the
/// narrow side of a grid and pieces a few rows tall; few solutions are found as fast by the
/// search, with no table. Its memory is a table entry of some 80 bytes per state (up to
/// twice that while the table grows), and the [`Budget`] limits the states.
///
/// The counts are of *sets* of values per group of interchangeable variables (variables
/// with identical domains); the labelled count multiplies by `k!` for each group of `k`.
/// Sampling walks the states from the first, choosing each step with probability
/// proportional to its successor's count, then hands the group's values to its variables
/// in a uniformly random order: every labelled solution is drawn with the same probability.
///
/// The halo relation must be symmetric, as everywhere in [`crate::placement`]: a value's
/// cells are tested against the halos of the values chosen before it, never the other way.
///
/// # Example
///
/// The standard Battleship fleet on a 10x10 board has 30,093,975,536 labelled fleets:
///
/// ```
/// use csp_core::{Budget, FrontierCount, Grid, PlacementCsp};
/// use csp_core::rand_xoshiro::Xoshiro256PlusPlus;
/// use csp_core::rand::SeedableRng;
///
/// let grid = Grid::new(10, 10)?;
/// let mut p = PlacementCsp::new(100)?;
/// for len in [5, 4, 3, 3, 2] {
///     let bar: Vec<(usize, usize)> = (0..len).map(|x| (x, 0)).collect();
///     let column: Vec<(usize, usize)> = (0..len).map(|y| (0, y)).collect();
///     p.add_var(vec![grid.translates(&bar)?, grid.translates(&column)?])?;
/// }
/// let mut count = FrontierCount::new(&p, &Budget::default())?;
/// assert_eq!(count.labelled()?, 30_093_975_536);
/// // The two 3-ships are interchangeable: each set of positions is two labelled fleets.
/// assert_eq!(count.unlabelled(), 30_093_975_536 / 2);
///
/// let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
/// let fleet = count.sample(&mut rng)?;
/// assert!(p.is_solution(&fleet));
/// # Ok::<(), csp_core::CspError>(())
/// ```
#[derive(Debug, Clone)]
pub struct FrontierCount {
    universe: u32,
    required: u128,
    forbidden: u128,
    num_vars: usize,
    /// The variables of each group, in index order.
    groups: Vec<Vec<usize>>,
    /// Each group's members as a mask of variable bits.
    group_masks: Vec<u64>,
    /// Each variable's fewest cells.
    min_cells: Vec<u32>,
    /// The values anchored at each element, for every group.
    anchored: Vec<Vec<Anchored>>,
    /// Each group's families as (shape, starts), without the starts that meet a forbidden
    /// element: the last variable is counted from them at once.
    families: Vec<Vec<(u128, u128)>>,
    /// Per group and element `i`: the values anchored at `i` or later. A state with more of
    /// the group's variables left has no completion.
    anchors_from: Vec<Vec<u32>>,
    /// Every variable, as a mask of bits.
    vars: u64,
    /// Every element, as a mask of bits.
    all: u128,
    memo: Memo,
    nodes: u64,
    max_nodes: u64,
    /// The number of solutions counting each set of values of a group once.
    unlabelled: u128,
}

/// `m` without its elements `0..=i`.
#[inline]
fn beyond(m: u128, i: u32) -> u128 {
    m & (!0u128).checked_shl(i + 1).unwrap_or(0)
}

impl FrontierCount {
    /// Counts the solutions of `csp`, keeping the table for [`FrontierCount::sample`] and
    /// [`FrontierCount::analyze`].
    ///
    /// The budget counts states (the error's `max_nodes` is this budget), and each holds
    /// some 80 bytes of memory once counted, up to twice that while the table grows (the
    /// empty 10x10 Battleship board's 1.8 million states peak at about 200 MB with their
    /// analysis), so [`Budget::default`]'s 10 million may take over a gigabyte and a half:
    /// give a smaller budget where memory is short.
    ///
    /// # Errors
    /// [`CspError::BudgetExceeded`] when the count needs more than `budget.max_nodes`
    /// states; [`CspError::CountOverflow`] when the
    /// number of solutions, counting each set of values of a group once, passes `u128`;
    /// [`CspError::InvalidPlacement`] for an asymmetric halo relation among halos made or
    /// shared by hand ([`PlacementCsp::check_halos`]; [`PlacementCsp::add_var`] refuses
    /// the other asymmetric mixes). A problem without solutions is counted (zero), not
    /// an error.
    pub fn new(csp: &PlacementCsp, budget: &Budget) -> Result<FrontierCount, CspError> {
        csp.check_hand_made_halos()?;
        // Propagation first: smaller domains, and the groups of interchangeable variables
        // are those of the reduced problem, as for `analyze_placements_unlabelled`.
        let (reduced, consistent) = match propagate_placements(csp) {
            Ok(p) => (p, true),
            Err(CspError::Inconsistent) => (csp.clone(), false),
            Err(e) => return Err(e),
        };
        let csp = &reduced;
        let num_vars = csp.num_vars();
        let domains: Vec<_> = (0..num_vars).filter_map(|v| csp.domain(v)).collect();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (v, d) in domains.iter().enumerate() {
            match groups.iter_mut().find(|g| domains[g[0]] == *d) {
                Some(g) => g.push(v),
                None => groups.push(vec![v]),
            }
        }
        let group_masks = groups
            .iter()
            .map(|g| g.iter().fold(0u64, |m, &v| m | 1 << v))
            .collect();
        let min_cells = domains
            .iter()
            .map(|d| d.iter().map(|f| f.shape().count_ones()).min().unwrap_or(0))
            .collect();
        let universe = csp.universe() as u32;
        let forbidden = csp.forbidden();
        let mut anchored = vec![Vec::new(); MAX_ELEMENTS];
        let mut families = Vec::with_capacity(groups.len());
        let mut anchors_from = vec![vec![0u32; universe as usize + 1]; groups.len()];
        for (group, g) in groups.iter().enumerate() {
            families.push(
                domains[g[0]]
                    .iter()
                    .map(|f| {
                        (
                            f.shape(),
                            f.starts() & !meeting_starts(f.shape(), forbidden),
                        )
                    })
                    .collect(),
            );
            for (family, f) in domains[g[0]].iter().enumerate() {
                let mut starts = f.starts();
                while starts != 0 {
                    let start = starts.trailing_zeros();
                    starts &= starts - 1;
                    let cells = f.cells(start);
                    if cells == 0 || cells & forbidden != 0 {
                        continue;
                    }
                    let anchor = cells.trailing_zeros() as usize;
                    for n in &mut anchors_from[group][..=anchor] {
                        *n += 1;
                    }
                    anchored[anchor].push(Anchored {
                        group,
                        family,
                        start,
                        cells,
                        block: f.block(start) | cells,
                    });
                }
            }
        }
        let mut count = FrontierCount {
            universe,
            required: csp.required(),
            forbidden,
            num_vars,
            groups,
            group_masks,
            min_cells,
            anchored,
            families,
            anchors_from,
            vars: (!0u64).checked_shr(64 - num_vars as u32).unwrap_or(0),
            all: (!0u128).checked_shr(128 - universe).unwrap_or(0),
            memo: HashMap::default(),
            nodes: 0,
            max_nodes: budget.max_nodes,
            unlabelled: 0,
        };
        if consistent {
            count.unlabelled = count.count((0, 0, 0, count.vars))?;
        }
        Ok(count)
    }

    /// The number of solutions, counting each set of values of a group of interchangeable
    /// variables once (for `k` identical dominoes, the tilings rather than their `k!` orders).
    pub fn unlabelled(&self) -> u128 {
        self.unlabelled
    }

    /// The number of solutions, as [`count_placements`](crate::count_placements) gives it:
    /// every variable labelled.
    ///
    /// # Errors
    /// [`CspError::CountOverflow`] when it passes `u128`.
    pub fn labelled(&self) -> Result<u128, CspError> {
        self.unlabelled
            .checked_mul(self.labels()?)
            .ok_or(CspError::CountOverflow)
    }

    /// The labelled solutions of each set of values: `k!` for each group of `k`.
    fn labels(&self) -> Result<u128, CspError> {
        let mut labels = 1u128;
        for g in &self.groups {
            for k in 2..=g.len() as u128 {
                labels = labels.checked_mul(k).ok_or(CspError::CountOverflow)?;
            }
        }
        Ok(labels)
    }

    /// The number of states in the table: the work the count took.
    pub fn states(&self) -> usize {
        self.memo.len()
    }

    /// The exact labelled counts, as [`analyze_placements`](crate::analyze_placements)
    /// gives them: solutions, per value of each variable and per element (`nodes` is the
    /// number of states in the table). A pass over the table, layer by layer of elements,
    /// counts the ways to reach each state; a value anchored on the way from a state to the
    /// next is in (ways to reach the state) x (completions of the next) solutions.
    ///
    /// ```
    /// use csp_core::{Budget, FrontierCount, Grid, PlacementCsp, analyze_placements};
    ///
    /// // Two dominoes and a single cell on 3x3, none touching another.
    /// let grid = Grid::new(3, 3)?;
    /// let mut p = PlacementCsp::new(9)?;
    /// for _ in 0..2 {
    ///     p.add_var(vec![
    ///         grid.translates_no_touch(&[(0, 0), (1, 0)])?,
    ///         grid.translates_no_touch(&[(0, 0), (0, 1)])?,
    ///     ])?;
    /// }
    /// p.add_var(vec![grid.translates_no_touch(&[(0, 0)])?])?;
    /// let a = FrontierCount::new(&p, &Budget::default())?.analyze()?;
    /// let search = analyze_placements(&p, &Budget::default())?;
    /// assert_eq!(a.solutions, search.solutions);
    /// assert_eq!(a.element_counts, search.element_counts);
    /// assert_eq!(a.value_counts, search.value_counts);
    /// # Ok::<(), csp_core::CspError>(())
    /// ```
    ///
    /// A problem without solutions gives zero counts, never [`CspError::Inconsistent`]
    /// (which `analyze_placements` returns when propagation alone proves it).
    ///
    /// # Errors
    /// [`CspError::CountOverflow`] when the labelled counts pass `u128`.
    pub fn analyze(&self) -> Result<PlacementAnalysis, CspError> {
        let mut elements = vec![0u128; self.universe as usize];
        // Per group, family and start: the sets of values in which a member takes it.
        let mut values: Vec<Vec<Vec<u128>>> = self
            .families
            .iter()
            .map(|f| vec![vec![0u128; MAX_ELEMENTS]; f.len()])
            .collect();
        // Each count below is at most the number of solutions, so none overflows.
        let mut add = |group: usize, family: usize, start: u32, cells: u128, n: u128| {
            values[group][family][start as usize] += n;
            let mut c = cells;
            while c != 0 {
                elements[c.trailing_zeros() as usize] += n;
                c &= c - 1;
            }
        };
        let mut layer: Memo = HashMap::default();
        if self.unlabelled > 0 && self.vars != 0 {
            layer.insert((0, 0, 0, self.vars), 1);
        }
        while !layer.is_empty() {
            let mut next: Memo = HashMap::default();
            for (state, ways) in layer {
                let (i, cov, blk, rem) = state;
                if rem.count_ones() == 1 {
                    let ahead = (!0u128).checked_shl(i).unwrap_or(0);
                    let open_required = self.required & ahead & !cov;
                    let group = self.group_masks.iter().position(|&m| m & rem != 0);
                    for (family, shape, mut free) in self.last_starts(i, blk, open_required, rem) {
                        while free != 0 {
                            let start = free.trailing_zeros();
                            free &= free - 1;
                            if let Some(g) = group {
                                add(g, family, start, shape << start, ways);
                            }
                        }
                    }
                    continue;
                }
                for (child, value) in self.successors(state) {
                    let completions = self.known(child).unwrap_or(0);
                    if completions == 0 {
                        continue;
                    }
                    if let Some(a) = value {
                        add(a.group, a.family, a.start, a.cells, ways * completions);
                    }
                    if child.3 != 0 {
                        *next.entry(child).or_insert(0) += ways;
                    }
                }
            }
            layer = next;
        }
        // Labels: each set of values is the same number of labelled solutions, and a
        // group's value is taken by each of its `k` members in a `k`-th of them.
        let labels = self.labels()?;
        let scale = |n: u128, by: u128| n.checked_mul(by).ok_or(CspError::CountOverflow);
        let mut value_counts = vec![Vec::new(); self.num_vars];
        for (g, members) in self.groups.iter().enumerate() {
            let per_member = labels / members.len() as u128;
            let counts = values[g]
                .iter()
                .map(|f| f.iter().map(|&n| scale(n, per_member)).collect())
                .collect::<Result<Vec<Vec<u128>>, CspError>>()?;
            for &v in members {
                value_counts[v].clone_from(&counts);
            }
        }
        Ok(PlacementAnalysis {
            solutions: scale(self.unlabelled, labels)?,
            value_counts,
            element_counts: elements
                .into_iter()
                .map(|n| scale(n, labels))
                .collect::<Result<_, _>>()?,
            nodes: self.memo.len() as u64,
        })
    }

    /// One exactly uniform solution (labelled: each of a group's orders equally likely), one
    /// value per variable.
    ///
    /// # Errors
    /// [`CspError::Inconsistent`] when there is no solution.
    pub fn sample(&self, rng: &mut (impl Rng + ?Sized)) -> Result<Vec<Value>, CspError> {
        if self.unlabelled == 0 {
            return Err(CspError::Inconsistent);
        }
        let mut values = vec![
            Value {
                family: 0,
                start: 0,
            };
            self.num_vars
        ];
        let mut left: Vec<Vec<usize>> = self.groups.clone();
        let mut state: State = (0, 0, 0, self.vars);
        while state.3 != 0 {
            // Every state the walk meets was counted, and so were its successors: their
            // counts are known and add up to the state's, so one is always chosen.
            let total = self.known(state).unwrap_or(0);
            let mut r = rng.random_range(0..total.max(1));
            let mut next = None;
            for (child, value) in self.successors(state) {
                let c = self.known(child).unwrap_or(0);
                if r < c {
                    next = Some((child, value));
                    break;
                }
                r -= c;
            }
            let (child, value) = next.ok_or(CspError::Inconsistent)?;
            if let Some(a) = value {
                let members = &mut left[a.group];
                let var = members.swap_remove(rng.random_range(0..members.len()));
                values[var] = Value {
                    family: a.family,
                    start: a.start,
                };
            }
            state = child;
        }
        Ok(values)
    }

    /// The successors of a state that is not final, each with the value it anchors.
    fn successors(&self, (i, cov, blk, rem): State) -> Vec<(State, Option<Anchored>)> {
        let bit = 1u128 << i;
        let mut out = Vec::new();
        if blk & bit != 0 {
            out.push(((i + 1, beyond(cov, i), beyond(blk, i), rem), None));
            return out;
        }
        if self.required & bit == 0 {
            out.push(((i + 1, cov, blk, rem), None));
        }
        for a in &self.anchored[i as usize] {
            let left = rem & self.group_masks[a.group];
            if left == 0 || a.cells & blk != 0 {
                continue;
            }
            // The group's members are interchangeable: the first one left stands for all.
            let rem = rem & !(left & left.wrapping_neg());
            // Where nothing is required, what is covered matters only as part of what is
            // blocked: leaving it out merges states.
            let cov = if self.required == 0 {
                0
            } else {
                beyond(cov | a.cells, i)
            };
            out.push(((i + 1, cov, beyond(blk | a.block, i), rem), Some(*a)));
        }
        out
    }

    /// The completions of a state with one variable left (`rem`, a single bit): its values
    /// anchored at `i` or later that avoid what is blocked and cover every required element
    /// left open, counted a family at a time with a few shifts per element.
    fn last(&self, i: u32, blk: u128, open_required: u128, rem: u64) -> u128 {
        self.last_starts(i, blk, open_required, rem)
            .map(|(_, _, free)| u128::from(free.count_ones()))
            .sum()
    }

    /// The values that complete a state with one variable left, as `(family, shape,
    /// starts)` per family of the variable's group ([`FrontierCount::last`]).
    fn last_starts(
        &self,
        i: u32,
        blk: u128,
        open_required: u128,
        rem: u64,
    ) -> impl Iterator<Item = (usize, u128, u128)> + '_ {
        let group = self.group_masks.iter().position(|&m| m & rem != 0);
        let families = group.map_or(&[][..], |g| &self.families[g]);
        families
            .iter()
            .enumerate()
            .map(move |(family, &(shape, starts))| {
                // Starts whose lowest cell, at `start + shape.trailing_zeros()`, is `i` or
                // later.
                let from = i.saturating_sub(shape.trailing_zeros());
                let mut free = starts & (!0u128).checked_shl(from).unwrap_or(0);
                free &= !meeting_starts(shape, blk);
                let mut open = open_required;
                while open != 0 && free != 0 {
                    free &= meeting_starts(shape, open & open.wrapping_neg());
                    open &= open - 1;
                }
                (family, shape, free)
            })
    }

    /// The number of completions of a state when it is known without a search: a final
    /// state, one that cannot be completed (a required element blocked, or too little room
    /// for the variables left), one with a single variable left, or one in the table.
    fn known(&self, (i, cov, blk, rem): State) -> Option<u128> {
        let ahead = (!0u128).checked_shl(i).unwrap_or(0);
        let open_required = self.required & ahead & !cov;
        if rem == 0 {
            return Some(u128::from(open_required == 0));
        }
        if i >= self.universe || open_required & blk != 0 {
            return Some(0);
        }
        // A group with more variables left than values still to come: some variable can no
        // longer be placed (without this, each subset of such variables would be a state).
        let stranded = self
            .group_masks
            .iter()
            .zip(&self.anchors_from)
            .any(|(&m, from)| (rem & m).count_ones() > from[i as usize]);
        if stranded {
            return Some(0);
        }
        let room = ahead & !(blk | self.forbidden) & self.all;
        let need: u32 = (0..self.num_vars)
            .filter(|&v| rem >> v & 1 == 1)
            .map(|v| self.min_cells[v])
            .sum();
        if need > room.count_ones() {
            return Some(0);
        }
        if rem.count_ones() == 1 {
            return Some(self.last(i, blk, open_required, rem));
        }
        self.memo.get(&(i, cov, blk, rem)).copied()
    }

    /// The number of completions of a state (sets of values per group), searching and
    /// filling the table where it is not [known](Self::known).
    fn count(&mut self, state: State) -> Result<u128, CspError> {
        if let Some(n) = self.known(state) {
            return Ok(n);
        }
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Err(CspError::BudgetExceeded {
                max_nodes: self.max_nodes,
                component_vars: self.num_vars,
            });
        }
        let mut n = 0u128;
        for (child, _) in self.successors(state) {
            n = n
                .checked_add(self.count(child)?)
                .ok_or(CspError::CountOverflow)?;
        }
        self.memo.insert(state, n);
        Ok(n)
    }
}
