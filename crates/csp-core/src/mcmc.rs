//! Approximate marginals for problems too large to count exactly: a block Gibbs sampler.
//!
//! When a component needs more search than the [`Budget`] allows, exact counting gives up
//! ([`CspError::BudgetExceeded`]). [`estimate`] then answers approximately: it propagates, finds
//! one solution by depth-first search, and runs a Markov chain over solutions. Each step picks a
//! *block* of variables (a random variable, the variables it shares constraints with, breadth
//! first, up to [`McmcConfig::block`], plus a few variables drawn from anywhere so that trues can
//! travel between distant regions under the global total), keeps every other variable as it is,
//! and redraws the block **exactly uniformly** among the assignments that keep all constraints
//! (with the exact engine of this crate on the small sub-problem).
//!
//! Why this is sound: each step samples from the exact conditional distribution of the block
//! given the rest, so the uniform distribution over solutions is stationary. Averages converge
//! to the exact marginals when the chain can reach every solution from every other through such
//! blocks; that holds when blocks can cover every pair of solutions' differences and is not
//! guaranteed on adversarial problems, hence "approximate". Variables that are forced in fact
//! but not by propagation (more often with "between" constraints, to which propagation applies
//! fewer rules) still take places in the blocks, which can leave too few for the variables
//! that must change together: a larger block helps. The result says how many steps were
//! averaged and gives each probability a standard error by batch means
//! ([`Estimate::std_errors`]), which allows for the correlation between successive states
//! but cannot see solutions the chain never reaches. Whenever exact counting fits the budget,
//! prefer [`crate::analyze`].
//!
//! ```
//! use csp_core::{estimate, BoolCsp, McmcConfig};
//! use csp_core::rand::SeedableRng;
//!
//! let mut csp = BoolCsp::new(5);
//! csp.exactly(&[0, 1, 2], 1)?;
//! csp.set_total(2);
//! let mut rng = csp_core::rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
//! let e = estimate(&csp, &McmcConfig::default(), &mut rng)?;
//! // Exact: 1/3 for cells 0..3, 1/2 for cells 3 and 4.
//! assert!((e.probabilities[0] - 1.0 / 3.0).abs() < 0.05);
//! assert!((e.probabilities[4] - 0.5).abs() < 0.05);
//! // Each estimate comes with its standard error (batch means over the averaged steps).
//! assert!(e.std_errors.iter().all(|&se| se > 0.0 && se < 0.05));
//! # Ok::<(), csp_core::CspError>(())
//! ```

use rand::{Rng, RngExt};

use crate::{BoolCsp, Budget, CspError, propagate, sample};

/// Options of [`estimate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McmcConfig {
    /// Variables redrawn together in one step (neighbours first, a quarter drawn at random).
    /// 0 and 1 count as 2: a lone variable is pinned by "exactly k" constraints (and by a
    /// total), so a chain of single redraws would never move and report its first solution
    /// as certain.
    pub block: usize,
    /// Steps whose states are averaged. With 0, the estimate is the state after the burn-in
    /// (one solution, every probability 0 or 1). A step redraws one block, so the more
    /// variables a problem has, the more steps its averages need (with thousands of
    /// variables, the default's can leave some probabilities near 0 or 1 that are 1/2). The
    /// estimate's [`Estimate::std_errors`] say how far the averages may be from where the
    /// chain is heading; comparing runs with different seeds, or counting exactly where the
    /// budget allows, also catches a chain that is stuck.
    pub steps: u64,
    /// Steps run first and not averaged.
    pub burn_in: u64,
    /// Search nodes allowed to find the first solution. When the plain search runs out, a
    /// search that propagates after every decision gets `search_nodes / 100` decisions (at
    /// least one; fewer on problems whose constraints hold more than `4000` variables in
    /// all, so that its full propagations cost at most `40 * search_nodes` constraint
    /// memberships) before the chain gives up with [`CspError::BudgetExceeded`].
    pub search_nodes: u64,
}

impl Default for McmcConfig {
    fn default() -> Self {
        McmcConfig {
            block: 16,
            steps: 4000,
            burn_in: 400,
            search_nodes: 1_000_000,
        }
    }
}

/// What [`estimate`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Per variable, the fraction of averaged states in which it was true (exactly 0 or 1 for
    /// variables that propagation decides).
    pub probabilities: Vec<f64>,
    /// Per variable, the value propagation proves (sound, unlike the estimates).
    pub forced: Vec<Option<bool>>,
    /// Per variable, the standard error of its probability by batch means: the averaged
    /// steps are cut into [`STD_ERROR_BATCHES`] runs of consecutive steps, and the spread of
    /// the runs' averages says how much the whole average would vary from run to run. It
    /// allows for the correlation between successive states as long as a batch is much
    /// longer than the chain's memory; a chain stuck among some of the solutions (or slower
    /// than a batch) shows small errors around a wrong value, and a variable that never
    /// changed shows 0 ([`Estimate::unmoved`] lists those). 0 for forced variables;
    /// infinite with fewer than 2 averaged steps.
    pub std_errors: Vec<f64>,
    /// States averaged.
    pub steps: u64,
    /// Variables the chain moved (those propagation leaves undecided).
    pub chain_vars: usize,
}

impl Estimate {
    /// The variables that propagation leaves undecided and that held one value in every
    /// averaged state (probability exactly 0 or 1; none when no step was averaged). A
    /// variable can be certain without propagation proving it, and then rightly never
    /// moves; but where it is not, the chain never tried its other value, and its estimate
    /// (with a standard error of 0) says nothing. A non-empty list is the cheap warning sign
    /// of a chain stuck among some of the solutions: compare runs with other seeds or larger
    /// blocks, or count exactly where the budget allows.
    ///
    /// ```
    /// use csp_core::{estimate, BoolCsp, McmcConfig};
    /// use csp_core::rand::SeedableRng;
    ///
    /// // A row where every three neighbours hold exactly one true: 0,3,6,... or 1,4,7,...
    /// // (or 2,5,8,...): going from one to another flips the whole row.
    /// let n = 30;
    /// let mut csp = BoolCsp::new(n);
    /// for i in 0..n - 2 {
    ///     csp.exactly(&[i, i + 1, i + 2], 1)?;
    /// }
    /// let mut rng = csp_core::rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    /// let e = estimate(&csp, &McmcConfig::default(), &mut rng)?;
    /// // Every variable is true in one solution of three, yet the chain never left its first.
    /// assert_eq!(e.unmoved().len(), n);
    /// # Ok::<(), csp_core::CspError>(())
    /// ```
    #[must_use]
    pub fn unmoved(&self) -> Vec<usize> {
        if self.steps == 0 {
            return Vec::new();
        }
        (0..self.probabilities.len())
            .filter(|&v| {
                self.forced[v].is_none()
                    && (self.probabilities[v] == 0.0 || self.probabilities[v] == 1.0)
            })
            .collect()
    }
}

/// How many runs of consecutive steps [`estimate`] cuts its averaged steps into for
/// [`Estimate::std_errors`] (fewer when there are fewer steps): enough for the spread of
/// their averages to be measured, few enough for each to be long.
pub const STD_ERROR_BATCHES: u64 = 20;

/// Approximate marginals by block Gibbs sampling (see the module docs).
///
/// # Errors
/// [`CspError::Inconsistent`] when propagation or the search proves there is no solution;
/// [`CspError::BudgetExceeded`] when no solution is found within
/// [`McmcConfig::search_nodes`], or when redrawing one block exactly takes more than the
/// default [`Budget`] (10 million nodes; only with blocks far larger than the default).
pub fn estimate<R: Rng + ?Sized>(
    csp: &BoolCsp,
    config: &McmcConfig,
    rng: &mut R,
) -> Result<Estimate, CspError> {
    let forced = propagate(csp)?;
    let mut chain = Chain::new(csp, &forced, config.search_nodes)?;
    for _ in 0..config.burn_in {
        chain.step(config.block, rng)?;
    }
    let n = csp.num_vars();
    let mut trues = vec![0u64; n];
    let mut batch = BatchMeans::new(n, config.steps);
    for step in 0..config.steps {
        chain.step(config.block, rng)?;
        for (t, &b) in trues.iter_mut().zip(&chain.state) {
            *t += u64::from(b);
        }
        if batch.closes(step) {
            let totals: Vec<f64> = trues.iter().map(|&t| t as f64).collect();
            batch.close(&totals);
        }
    }
    let steps = config.steps.max(1);
    let probabilities = (0..n)
        .map(|v| match forced[v] {
            Some(b) => f64::from(u8::from(b)),
            None if config.steps == 0 => f64::from(u8::from(chain.state[v])),
            None => trues[v] as f64 / steps as f64,
        })
        .collect();
    let std_errors = (0..n)
        .map(|v| match forced[v] {
            Some(_) => 0.0,
            None => batch.std_error(v),
        })
        .collect();
    Ok(Estimate {
        probabilities,
        forced,
        std_errors,
        steps: config.steps,
        chain_vars: chain.movable.len(),
    })
}

/// Batch means over the averaged steps: batch `b` holds steps
/// `b * steps / batches .. (b + 1) * steps / batches`, so their lengths differ by at most one.
pub(crate) struct BatchMeans {
    steps: u64,
    batches: u64,
    /// Batches closed.
    closed: u64,
    /// The steps before the open batch and after it (`u64::MAX` once all are closed).
    start: u64,
    end: u64,
    /// Running totals at the end of the last closed batch.
    before: Vec<f64>,
    /// Per variable, the mean of the batch means so far and the sum of their squared
    /// differences from it (Welford's update: the textbook "sum of squares less square of
    /// the sum" cancels catastrophically when every batch agrees).
    mean: Vec<f64>,
    m2: Vec<f64>,
}

impl BatchMeans {
    /// Batches for `n` running totals over `steps` steps.
    pub(crate) fn new(n: usize, steps: u64) -> BatchMeans {
        let mut b = BatchMeans {
            steps,
            batches: STD_ERROR_BATCHES.min(steps),
            closed: 0,
            start: 0,
            end: 0,
            before: vec![0.0; n],
            mean: vec![0.0; n],
            m2: vec![0.0; n],
        };
        b.end = b.end_of(0);
        b
    }

    /// The steps up to the end of batch `b`, or `u64::MAX` past the last batch.
    fn end_of(&self, b: u64) -> u64 {
        if b >= self.batches {
            return u64::MAX;
        }
        // u128: `steps * batches` may pass u64.
        ((u128::from(b) + 1) * u128::from(self.steps) / u128::from(self.batches)) as u64
    }

    /// Whether `step` (counted from 0) is the last of a batch.
    pub(crate) fn closes(&self, step: u64) -> bool {
        step + 1 == self.end
    }

    /// Closes the open batch ([`BatchMeans::closes`] said its last step was just taken);
    /// `totals` are the running totals after it.
    pub(crate) fn close(&mut self, totals: &[f64]) {
        let len = (self.end - self.start) as f64;
        self.closed += 1;
        (self.start, self.end) = (self.end, self.end_of(self.closed));
        let k = self.closed as f64;
        let stats = self.mean.iter_mut().zip(&mut self.m2);
        for ((&t, before), (mean, m2)) in totals.iter().zip(&mut self.before).zip(stats) {
            let x = (t - *before) / len;
            let d = x - *mean;
            *mean += d / k;
            *m2 += d * (x - *mean);
            *before = t;
        }
    }

    /// The standard error of variable `v`'s overall mean.
    pub(crate) fn std_error(&self, v: usize) -> f64 {
        if self.batches < 2 {
            return f64::INFINITY;
        }
        let b = self.batches as f64;
        (self.m2[v].max(0.0) / (b - 1.0) / b).sqrt()
    }
}

/// The chain: the current solution and the incidence it needs to build blocks.
struct Chain<'a> {
    csp: &'a BoolCsp,
    state: Vec<bool>,
    /// Variables propagation leaves undecided.
    movable: Vec<usize>,
    /// Constraints of each variable.
    of_var: Vec<Vec<usize>>,
    /// Scratch: block membership (index in the block + 1, 0 = outside).
    in_block: Vec<usize>,
    /// Scratch: the constraints a block meets (all false between steps).
    met: Vec<bool>,
}

impl<'a> Chain<'a> {
    fn new(csp: &'a BoolCsp, forced: &[Option<bool>], nodes: u64) -> Result<Chain<'a>, CspError> {
        let n = csp.num_vars();
        let mut of_var = vec![Vec::new(); n];
        for (i, c) in csp.constraints().iter().enumerate() {
            for &v in &c.vars {
                of_var[v].push(i);
            }
        }
        let movable: Vec<usize> = (0..n).filter(|&v| forced[v].is_none()).collect();
        let state = match first_solution(csp, forced, &of_var, &movable, nodes) {
            // Where the plain search thrashes, deciding with full propagation in between
            // usually goes straight through.
            Err(over @ CspError::BudgetExceeded { .. }) => {
                match solution_by_propagation(
                    csp,
                    forced,
                    &of_var,
                    propagation_decisions(csp, nodes),
                ) {
                    // Both ran out: report the budget the caller gave.
                    Err(CspError::BudgetExceeded { .. }) => return Err(over),
                    r => r?,
                }
            }
            r => r?,
        };
        Ok(Chain {
            csp,
            state,
            movable,
            of_var,
            in_block: vec![0; n],
            met: vec![false; csp.constraints().len()],
        })
    }

    /// One step: redraw a block exactly from its conditional distribution.
    fn step<R: Rng + ?Sized>(&mut self, size: usize, rng: &mut R) -> Result<(), CspError> {
        if self.movable.is_empty() {
            return Ok(());
        }
        let size = size.max(2).min(self.movable.len());
        let mut block: Vec<usize> = Vec::with_capacity(size);
        let far = size / 4;
        let add = |v: usize, block: &mut Vec<usize>, in_block: &mut [usize]| {
            if in_block[v] == 0 && block.len() < size {
                block.push(v);
                in_block[v] = block.len();
            }
        };
        // Neighbours of a random variable, breadth first.
        let seed = self.movable[rng.random_range(0..self.movable.len())];
        add(seed, &mut block, &mut self.in_block);
        let mut head = 0;
        'grow: while head < block.len() && block.len() < size - far {
            let v = block[head];
            head += 1;
            for &c in &self.of_var[v] {
                for &w in &self.csp.constraints()[c].vars {
                    if block.len() >= size - far {
                        // Full: growing the block reads no more of a long constraint (the
                        // redraw still reads all of it, see `redraw`).
                        break 'grow;
                    }
                    if self.in_block[w] == 0 && self.movable_var(w) {
                        add(w, &mut block, &mut self.in_block);
                    }
                }
            }
        }
        // A few from anywhere (fewer tries than variables, so this always ends).
        for _ in 0..4 * size {
            if block.len() >= size {
                break;
            }
            let w = self.movable[rng.random_range(0..self.movable.len())];
            add(w, &mut block, &mut self.in_block);
        }
        let result = self.redraw(&block, rng);
        for &v in &block {
            self.in_block[v] = 0;
        }
        result
    }

    fn movable_var(&self, v: usize) -> bool {
        self.movable.binary_search(&v).is_ok()
    }

    /// Replaces the block's values by an exactly uniform draw among those that keep every
    /// constraint with the rest fixed.
    ///
    /// It reads every variable of every constraint the block meets (to count the trues
    /// outside the block) and, with a total, the whole state (to count all its trues): a step
    /// takes time linear in the length of those constraints and, with a total, in the number
    /// of variables, however small the block ([`estimate`] also adds up every variable's
    /// value after each averaged step).
    fn redraw<R: Rng + ?Sized>(&mut self, block: &[usize], rng: &mut R) -> Result<(), CspError> {
        let mut sub = BoolCsp::new(block.len());
        // The constraints the block meets, in the order first met.
        let mut seen = Vec::new();
        for &v in block {
            for &c in &self.of_var[v] {
                if !self.met[c] {
                    self.met[c] = true;
                    seen.push(c);
                }
            }
        }
        for &c in &seen {
            self.met[c] = false;
        }
        let mut vars = Vec::new();
        for &c in &seen {
            let con = &self.csp.constraints()[c];
            vars.clear();
            let mut outside = 0u32;
            for &w in &con.vars {
                match self.in_block[w] {
                    0 => outside += u32::from(self.state[w]),
                    i => vars.push(i - 1),
                }
            }
            // The current state satisfies every constraint, so the maximum cannot underflow.
            sub.between(
                &vars,
                con.min.saturating_sub(outside),
                con.max.saturating_sub(outside),
            )?;
        }
        if let Some(t) = self.csp.total() {
            let outside = self.state.iter().filter(|&&b| b).count() as u32
                - block.iter().filter(|&&v| self.state[v]).count() as u32;
            sub.set_total(t.saturating_sub(outside));
        }
        let draw = sample(&sub, &Budget::default(), rng)?;
        for (i, &v) in block.iter().enumerate() {
            self.state[v] = draw[i];
        }
        Ok(())
    }
}

/// One solution, by depth-first search over the undecided variables (in an order that keeps
/// constraints together), pruning with every constraint's and the total's bounds.
fn first_solution(
    csp: &BoolCsp,
    forced: &[Option<bool>],
    of_var: &[Vec<usize>],
    movable: &[usize],
    max_nodes: u64,
) -> Result<Vec<bool>, CspError> {
    let n = csp.num_vars();
    let mut state: Vec<bool> = forced.iter().map(|f| *f == Some(true)).collect();
    // Order: constrained variables breadth first through shared constraints, then the rest.
    let mut order = Vec::with_capacity(movable.len());
    let mut placed = vec![false; n];
    // A constraint is walked once: walking it again would place nothing new.
    let mut walked = vec![false; csp.constraints().len()];
    for &s in movable {
        if placed[s] || of_var[s].is_empty() {
            continue;
        }
        placed[s] = true;
        let mut head = order.len();
        order.push(s);
        while head < order.len() {
            let v = order[head];
            head += 1;
            for &c in &of_var[v] {
                if std::mem::replace(&mut walked[c], true) {
                    continue;
                }
                for &w in &csp.constraints()[c].vars {
                    if !placed[w] && forced[w].is_none() {
                        placed[w] = true;
                        order.push(w);
                    }
                }
            }
        }
    }
    order.extend(movable.iter().copied().filter(|&v| !placed[v]));
    // Per constraint: trues so far and undecided variables left.
    let mut trues: Vec<u32> = csp
        .constraints()
        .iter()
        .map(|c| c.vars.iter().filter(|&&v| state[v]).count() as u32)
        .collect();
    let mut open: Vec<u32> = csp
        .constraints()
        .iter()
        .map(|c| c.vars.iter().filter(|&&v| forced[v].is_none()).count() as u32)
        .collect();
    let mut total_trues = state.iter().filter(|&&b| b).count() as u32;
    let mut nodes = 0u64;
    // Iterative DFS: at depth d, choice[d] is the value tried for order[d] (false first when
    // the density is low, as in Minesweeper; both are tried).
    let mut choice: Vec<u8> = Vec::with_capacity(order.len());
    let fits = |c: usize, trues: &[u32], open: &[u32]| {
        let con = &csp.constraints()[c];
        trues[c] <= con.max && trues[c] + open[c] >= con.min
    };
    let total_ok = |total_trues: u32, left: usize| {
        csp.total()
            .is_none_or(|t| total_trues <= t && total_trues as usize + left >= t as usize)
    };
    if !total_ok(total_trues, order.len()) || !(0..trues.len()).all(|c| fits(c, &trues, &open)) {
        return Err(CspError::Inconsistent);
    }
    loop {
        let d = choice.len();
        if d == order.len() {
            break;
        }
        // Try the next value at depth d (0 = false, 1 = true, 2 = exhausted: backtrack).
        choice.push(0);
        loop {
            let depth = choice.len() - 1;
            let v = order[depth];
            let value = choice[depth];
            if value >= 2 {
                choice.pop();
                if choice.is_empty() {
                    return Err(CspError::Inconsistent);
                }
                // Undo the previous depth's assignment, then try its next value.
                let prev = choice.len() - 1;
                let pv = order[prev];
                for &c in &of_var[pv] {
                    open[c] += 1;
                    trues[c] -= u32::from(state[pv]);
                }
                total_trues -= u32::from(state[pv]);
                state[pv] = false;
                choice[prev] += 1;
                continue;
            }
            nodes += 1;
            if nodes > max_nodes {
                return Err(CspError::BudgetExceeded {
                    max_nodes,
                    component_vars: order.len(),
                });
            }
            let b = value == 1;
            state[v] = b;
            total_trues += u32::from(b);
            for &c in &of_var[v] {
                open[c] -= 1;
                trues[c] += u32::from(b);
            }
            let ok = total_ok(total_trues, order.len() - depth - 1)
                && of_var[v].iter().all(|&c| fits(c, &trues, &open));
            if ok {
                break;
            }
            for &c in &of_var[v] {
                open[c] += 1;
                trues[c] -= u32::from(b);
            }
            total_trues -= u32::from(b);
            state[v] = false;
            choice[depth] += 1;
        }
    }
    Ok(state)
}

/// How many decisions [`solution_by_propagation`] may make with a budget of `nodes`:
/// `nodes / 100`, and fewer on large problems. Each decision runs a full propagation, which
/// visits every constraint membership, so the search's work is kept within `40 * nodes`
/// memberships: on problems of up to 480 cells of Minesweeper (at most 3840 memberships) the
/// cap is never below `nodes / 100`, while a 120x120 position that no search finds a layout
/// for gives up in a few hundred decisions instead of spending tens of seconds on 10,000.
fn propagation_decisions(csp: &BoolCsp, nodes: u64) -> u64 {
    let memberships: u64 = csp
        .constraints()
        .iter()
        .map(|c| c.vars.len() as u64)
        .sum::<u64>()
        .max(1);
    (nodes / 100)
        .min(nodes.saturating_mul(40) / memberships)
        .max(1)
}

/// One solution, for problems where [`first_solution`] runs out of nodes: the constrained
/// variables are decided one at a time (false first), each decision followed by full
/// propagation ([`propagate`], with its subset reasoning), which proves many other variables
/// and finds most dead ends at once; a contradiction undoes the latest decision. The
/// variables in no constraint are filled in last, as the total requires. At most
/// `max_decisions` propagations.
fn solution_by_propagation(
    csp: &BoolCsp,
    forced: &[Option<bool>],
    of_var: &[Vec<usize>],
    max_decisions: u64,
) -> Result<Vec<bool>, CspError> {
    let mut search = Decisions {
        csp,
        of_var,
        made: Vec::new(),
        spent: 0,
        max_decisions,
    };
    search
        .descend(forced.to_vec())?
        .ok_or(CspError::Inconsistent)
}

/// The state of [`solution_by_propagation`].
struct Decisions<'a> {
    csp: &'a BoolCsp,
    of_var: &'a [Vec<usize>],
    /// The decisions on the current path.
    made: Vec<(usize, bool)>,
    /// Propagations so far.
    spent: u64,
    max_decisions: u64,
}

impl Decisions<'_> {
    /// A solution extending `forced` (what propagation proves under the decisions made), or
    /// `None` when there is none. Depth first, false before true, over an explicit stack of
    /// decisions (a long run of them must not exhaust the thread's stack).
    fn descend(&mut self, forced: Vec<Option<bool>>) -> Result<Option<Vec<bool>>, CspError> {
        /// A decided level: how many variables propagation left undecided there (for the
        /// budget's report; the values themselves are recomputed from the decisions, so a deep
        /// path does not hold a copy of them per level), the variable branched on, and how
        /// many of its two values were tried.
        struct Level {
            undecided: usize,
            var: usize,
            tried: u8,
        }
        let mut levels: Vec<Level> = Vec::new();
        // A state to look at: a new level, or a leaf to complete.
        let mut arrived = Some(forced);
        loop {
            if let Some(forced) = arrived.take() {
                let branch =
                    (0..forced.len()).find(|&v| forced[v].is_none() && !self.of_var[v].is_empty());
                match branch {
                    Some(var) => levels.push(Level {
                        undecided: forced.iter().filter(|f| f.is_none()).count(),
                        var,
                        tried: 0,
                    }),
                    None => {
                        if let Some(solution) = self.fill_free(&forced) {
                            return Ok(Some(solution));
                        }
                        // A dead leaf: its parent's decision is undone below.
                        self.made.pop();
                    }
                }
            }
            let Some(level) = levels.last_mut() else {
                return Ok(None);
            };
            if level.tried == 2 {
                levels.pop();
                self.made.pop();
                continue;
            }
            let value = level.tried == 1;
            level.tried += 1;
            let v = level.var;
            self.spent += 1;
            if self.spent > self.max_decisions {
                return Err(CspError::BudgetExceeded {
                    max_nodes: self.max_decisions,
                    component_vars: level.undecided,
                });
            }
            let mut with = self.csp.clone();
            for &(w, b) in &self.made {
                with.fix(w, b)?;
            }
            with.fix(v, value)?;
            match propagate(&with) {
                Ok(f) => {
                    self.made.push((v, value));
                    arrived = Some(f);
                }
                Err(CspError::Inconsistent) => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Every constrained variable decided: the free ones take what the total leaves.
    fn fill_free(&self, forced: &[Option<bool>]) -> Option<Vec<bool>> {
        let mut state: Vec<bool> = forced.iter().map(|f| *f == Some(true)).collect();
        let trues = state.iter().filter(|&&b| b).count();
        let free: Vec<usize> = (0..forced.len()).filter(|&v| forced[v].is_none()).collect();
        let want = match self.csp.total() {
            Some(t) => (t as usize).checked_sub(trues)?,
            None => 0,
        };
        for &v in free.get(..want)? {
            state[v] = true;
        }
        self.csp.is_satisfied_by(&state).then_some(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Two steps make two batches, enough for a finite standard error: batch means 1 and
    /// 0 have mean 1/2 and standard error sqrt(1/2 / 1 / 2) = 1/2.
    #[test]
    fn two_batches_give_a_standard_error() {
        let mut b = BatchMeans::new(1, 2);
        assert!(b.closes(0));
        b.close(&[1.0]);
        assert!(b.closes(1));
        b.close(&[1.0]);
        assert!((b.std_error(0) - 0.5).abs() < 1e-12, "{}", b.std_error(0));
    }

    /// A chain that mixes moves every undecided variable; with no averaged step there is
    /// nothing to judge, and forced variables are never listed.
    #[test]
    fn unmoved_lists_only_undecided_variables_that_never_changed() {
        let mut csp = BoolCsp::new(6);
        csp.exactly(&[0, 1, 2], 1).unwrap();
        csp.exactly(&[4], 1).unwrap();
        csp.set_total(3);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let e = estimate(&csp, &McmcConfig::default(), &mut rng).unwrap();
        assert_eq!(e.forced[4], Some(true));
        assert!(e.unmoved().is_empty(), "{:?}", e.probabilities);
        let still = McmcConfig {
            steps: 0,
            ..McmcConfig::default()
        };
        assert!(
            estimate(&csp, &still, &mut rng)
                .unwrap()
                .unmoved()
                .is_empty()
        );
    }

    #[test]
    fn first_solution_satisfies_the_problem() {
        let mut csp = BoolCsp::new(8);
        csp.exactly(&[0, 1, 2], 2).unwrap();
        csp.exactly(&[2, 3, 4], 1).unwrap();
        csp.exactly(&[4, 5, 6, 7], 3).unwrap();
        csp.set_total(5);
        let forced = propagate(&csp).unwrap();
        let mut c = Chain::new(&csp, &forced, 1000).unwrap();
        assert!(csp.is_satisfied_by(&c.state));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        for _ in 0..200 {
            c.step(3, &mut rng).unwrap();
            assert!(csp.is_satisfied_by(&c.state));
        }
    }

    #[test]
    fn no_solution_is_an_error() {
        let mut csp = BoolCsp::new(3);
        csp.exactly(&[0, 1], 1).unwrap();
        csp.exactly(&[1, 2], 1).unwrap();
        csp.exactly(&[0, 2], 1).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        assert_eq!(
            estimate(&csp, &McmcConfig::default(), &mut rng),
            Err(CspError::Inconsistent)
        );
    }

    #[test]
    fn propagation_finds_what_the_plain_search_cannot() {
        // A chain x_i + x_{i+1} = 1: the plain search needs one node per variable, more
        // than 5; one decision and propagation settle it.
        let n = 30;
        let mut csp = BoolCsp::new(n);
        for i in 0..n - 1 {
            csp.exactly(&[i, i + 1], 1).unwrap();
        }
        csp.set_total(15);
        let forced = propagate(&csp).unwrap();
        let (of_var, movable) = incidence(&csp, &forced);
        assert!(matches!(
            first_solution(&csp, &forced, &of_var, &movable, 5),
            Err(CspError::BudgetExceeded { .. })
        ));
        let s = solution_by_propagation(&csp, &forced, &of_var, 1).unwrap();
        assert!(csp.is_satisfied_by(&s));
        // Two separate chains of ten need a decision each: over a budget of one, the report
        // names the variables the second decision would have started from.
        let mut two = BoolCsp::new(20);
        for i in (0..9).chain(10..19) {
            two.exactly(&[i, i + 1], 1).unwrap();
        }
        let two_forced = propagate(&two).unwrap();
        let (two_of_var, _) = incidence(&two, &two_forced);
        assert_eq!(
            solution_by_propagation(&two, &two_forced, &two_of_var, 1),
            Err(CspError::BudgetExceeded {
                max_nodes: 1,
                component_vars: 10
            })
        );
        assert!(solution_by_propagation(&two, &two_forced, &two_of_var, 2).is_ok());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let cfg = McmcConfig {
            search_nodes: 5,
            ..McmcConfig::default()
        };
        // The estimate now starts (its chain cannot flip the whole chain of pairs, so its
        // marginals stay those of the layout found: each 0 or 1).
        let e = estimate(&csp, &cfg, &mut rng).unwrap();
        assert!(
            e.probabilities.iter().all(|&p| p == 0.0 || p == 1.0),
            "{e:?}"
        );
    }

    fn incidence(csp: &BoolCsp, forced: &[Option<bool>]) -> (Vec<Vec<usize>>, Vec<usize>) {
        let mut of_var = vec![Vec::new(); csp.num_vars()];
        for (i, c) in csp.constraints().iter().enumerate() {
            for &v in &c.vars {
                of_var[v].push(i);
            }
        }
        let movable = (0..csp.num_vars())
            .filter(|&v| forced[v].is_none())
            .collect();
        (of_var, movable)
    }

    /// Independent pairs "exactly one of a, b": each decision settles one pair alone, so a
    /// solution takes one decision per pair, on a small stack.
    #[test]
    fn many_decisions_need_no_deep_stack() {
        let pairs = 2000;
        let found = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                let mut csp = BoolCsp::new(2 * pairs);
                for i in 0..pairs {
                    csp.exactly(&[2 * i, 2 * i + 1], 1).unwrap();
                }
                let forced = propagate(&csp).unwrap();
                let (of_var, _) = incidence(&csp, &forced);
                let s = solution_by_propagation(&csp, &forced, &of_var, u64::MAX).unwrap();
                csp.is_satisfied_by(&s)
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(found);
    }

    #[test]
    fn propagation_search_finds_a_solution_exactly_when_there_is_one() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let (mut solvable, mut unsolvable) = (0, 0);
        for _ in 0..400 {
            let n = rng.random_range(1..=10usize);
            let mut csp = BoolCsp::new(n);
            for _ in 0..rng.random_range(0..=5) {
                let vars: Vec<usize> = (0..n).filter(|_| rng.random_bool(0.4)).collect();
                let k = rng.random_range(0..=vars.len() as u32);
                csp.exactly(&vars, k).unwrap();
            }
            if rng.random_bool(0.5) {
                csp.set_total(rng.random_range(0..=n as u32));
            }
            let exists = (0..1u32 << n).any(|m| {
                let a: Vec<bool> = (0..n).map(|v| m >> v & 1 == 1).collect();
                csp.is_satisfied_by(&a)
            });
            let found = propagate(&csp).and_then(|forced| {
                let (of_var, _) = incidence(&csp, &forced);
                solution_by_propagation(&csp, &forced, &of_var, u64::MAX)
            });
            match found {
                Ok(s) => {
                    assert!(exists && csp.is_satisfied_by(&s), "{csp:?}");
                    solvable += 1;
                }
                Err(CspError::Inconsistent) => {
                    assert!(!exists, "{csp:?}");
                    unsolvable += 1;
                }
                Err(e) => panic!("{e:?}"),
            }
        }
        assert!(solvable > 50 && unsolvable > 50, "{solvable} {unsolvable}");
    }

    /// A block of 0 or 1 counts as 2: single redraws would never move under "exactly"
    /// constraints, and the first solution would read as certain.
    #[test]
    fn a_block_below_two_still_moves() {
        let mut csp = BoolCsp::new(6);
        csp.exactly(&[0, 1, 2], 1).unwrap();
        csp.exactly(&[3, 4, 5], 2).unwrap();
        csp.set_total(3);
        for block in [0, 1] {
            let cfg = McmcConfig {
                block,
                ..McmcConfig::default()
            };
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
            let e = estimate(&csp, &cfg, &mut rng).unwrap();
            for v in 0..6 {
                let exact = if v < 3 { 1.0 / 3.0 } else { 2.0 / 3.0 };
                assert!(
                    (e.probabilities[v] - exact).abs() < 0.1,
                    "block {block}: {:?}",
                    e.probabilities
                );
            }
        }
    }

    /// The propagating search's decisions shrink with the problem's size, so that its
    /// full propagations cost about the same work however large the problem; small
    /// problems keep `nodes / 100`.
    #[test]
    fn the_propagating_search_is_bounded_by_work() {
        let chain = |n: usize| {
            let mut csp = BoolCsp::new(n);
            for i in 0..n - 1 {
                csp.exactly(&[i, i + 1], 1).unwrap();
            }
            csp
        };
        // 479 constraints of 2: 958 memberships.
        assert_eq!(propagation_decisions(&chain(480), 1_000_000), 10_000);
        // 20,000 memberships: 40M / 20,000.
        assert_eq!(propagation_decisions(&chain(10_001), 1_000_000), 2_000);
        assert_eq!(propagation_decisions(&chain(10_001), 5), 1);
        assert_eq!(propagation_decisions(&BoolCsp::new(3), 1_000_000), 10_000);
    }

    #[test]
    fn search_budget_is_reported() {
        // Fifteen separate pairs x + y = 1: the plain search needs a node per variable, more
        // than 5, and the propagating one a decision per pair, more than its 1.
        let n = 30;
        let mut csp = BoolCsp::new(n);
        for i in 0..n / 2 {
            csp.exactly(&[2 * i, 2 * i + 1], 1).unwrap();
        }
        csp.set_total(15);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let cfg = McmcConfig {
            search_nodes: 5,
            ..McmcConfig::default()
        };
        assert!(matches!(
            estimate(&csp, &cfg, &mut rng),
            Err(CspError::BudgetExceeded { max_nodes: 5, .. })
        ));
    }

    /// Batch means by hand: four batches of one step each, whose means are 1, 0, 1, 0 (sample
    /// variance 1/3), give the standard error sqrt(1/3 / 4) of their mean.
    #[test]
    fn batch_means_give_the_textbook_standard_error() {
        let mut b = BatchMeans::new(1, 4);
        let mut total = 0.0;
        for (step, x) in [1.0, 0.0, 1.0, 0.0].into_iter().enumerate() {
            total += x;
            assert!(b.closes(step as u64));
            b.close(&[total]);
        }
        let se = b.std_error(0);
        assert!((se - (1.0f64 / 12.0).sqrt()).abs() < 1e-12, "{se}");
    }
}
