//! A naive reference for [`analyze`](crate::analyze): plain backtracking over the constrained
//! variables, one at a time.

use crate::{Analysis, AnalysisStats, BigUint, BoolCsp, Budget, CspError};

/// Exact analysis by the obvious algorithm: the same results as [`analyze`](crate::analyze),
/// usually far more slowly.
///
/// The variables that appear in at least one constraint are assigned one at a time, in index
/// order, by depth-first backtracking; a partial assignment is abandoned as soon as a
/// constraint can no longer be met (more trues than its maximum, or too few variables left to
/// reach its minimum) or the total is exceeded. There is no propagation beforehand, no
/// decomposition into independent components and no merging of equivalent variables into boxes. Each full
/// assignment of the constrained variables with `m` trues stands for `C(free, T - m)`
/// solutions (`free` = the number of variables in no constraint, `T` the total; `2^free`
/// without a total), and this weight is added, as an exact [`BigUint`], to the number of
/// solutions and to the count of every variable that is true in it. Free variables share one
/// count, the number of ways to place one more true among them.
///
/// It is the baseline that [`analyze`](crate::analyze) is measured and tested against. In the
/// result, `components` is 1 when some variable is constrained and 0 otherwise, and the
/// statistics count every variable as its own box, nothing as fixed by propagation, and all the
/// constrained variables as one component.
///
/// # Errors
/// - [`CspError::Inconsistent`] if there is no solution;
/// - [`CspError::BudgetExceeded`] if the search tries more than `budget.max_nodes` variable
///   assignments (in all).
pub fn analyze_naive(csp: &BoolCsp, budget: &Budget) -> Result<Analysis, CspError> {
    if csp.inconsistent {
        return Err(CspError::Inconsistent);
    }
    let n = csp.num_vars;
    // Constraints of each variable.
    let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (r, c) in csp.constraints.iter().enumerate() {
        for &v in &c.vars {
            rows_of[v].push(r);
        }
    }
    let vars: Vec<usize> = (0..n).filter(|&v| !rows_of[v].is_empty()).collect();
    let free_vars: Vec<usize> = (0..n).filter(|&v| rows_of[v].is_empty()).collect();
    let free = free_vars.len() as u64;
    // With a total `t`, a full assignment with `m` trues (`m <= t`, `m <= c` for the `c`
    // constrained variables) reads `C(free, j)` and `C(free - 1, j - 1)` for `j = t - m`: only
    // `j` in `t - c ..= t` (and `j <= free`, beyond which both are 0) is ever read. Without a
    // total, neither table is read.
    let (ways, ways_one_less) = match csp.total.map(u64::from) {
        None => (Binomials::empty(), Binomials::empty()),
        Some(t) => {
            let lo = t.saturating_sub(vars.len() as u64);
            let hi = t.min(free);
            let one_less = match hi.checked_sub(1) {
                // `free >= hi >= 1`.
                Some(hi1) => Binomials::new(free - 1, lo.saturating_sub(1), hi1),
                None => Binomials::empty(),
            };
            (Binomials::new(free, lo, hi), one_less)
        }
    };

    let mut search = Search {
        rows_of: vars.iter().map(|&v| rows_of[v].clone()).collect(),
        rem: csp.constraints.iter().map(|c| i64::from(c.max)).collect(),
        slack: csp
            .constraints
            .iter()
            .map(|c| i64::from(c.max - c.min))
            .collect(),
        open: csp
            .constraints
            .iter()
            .map(|c| c.vars.len() as i64)
            .collect(),
        value: vec![false; vars.len()],
        trues: 0,
        total: csp.total.map(u64::from),
        ways,
        ways_one_less,
        pow_free: BigUint::pow2(free),
        pow_free_one_less: (free > 0).then(|| BigUint::pow2(free - 1)),
        solutions: BigUint::zero(),
        var_count: vec![BigUint::zero(); vars.len()],
        free_count: BigUint::zero(),
        nodes: 0,
        max_nodes: budget.max_nodes,
    };
    search.run()?;
    let Search {
        solutions,
        var_count,
        free_count,
        nodes,
        ..
    } = search;
    if solutions.is_zero() {
        return Err(CspError::Inconsistent);
    }

    let mut probabilities = vec![0.0; n];
    let mut forced = vec![None; n];
    let mut set = |v: usize, numer: &BigUint| {
        probabilities[v] = BigUint::ratio(numer, &solutions);
        forced[v] = if numer.is_zero() {
            Some(false)
        } else if *numer == solutions {
            Some(true)
        } else {
            None
        };
    };
    for (i, &v) in vars.iter().enumerate() {
        set(v, &var_count[i]);
    }
    for &v in &free_vars {
        set(v, &free_count);
    }
    Ok(Analysis {
        solutions,
        probabilities,
        forced,
        components: usize::from(!vars.is_empty()),
        stats: AnalysisStats {
            nodes,
            boxes: vars.len(),
            fixed_by_propagation: 0,
            free_vars: free_vars.len(),
            largest_component: vars.len(),
        },
    })
}

/// The backtracking state. Variables are referred to by their position in the search order.
struct Search {
    /// Constraints of each variable.
    rows_of: Vec<Vec<usize>>,
    /// Trues each constraint may still take at most (negative: too many).
    rem: Vec<i64>,
    /// How many fewer it needs at least (0 for "exactly" constraints).
    slack: Vec<i64>,
    /// Unassigned variables of each constraint.
    open: Vec<i64>,
    /// The current (partial) assignment.
    value: Vec<bool>,
    /// Trues in the current assignment.
    trues: u64,
    total: Option<u64>,
    /// `C(free, j)` for the `j` that can be read (with a total).
    ways: Binomials,
    /// `C(free - 1, j)` for the `j` that can be read (with a total).
    ways_one_less: Binomials,
    /// `2^free`.
    pow_free: BigUint,
    /// `2^(free - 1)`, or `None` when no variable is free.
    pow_free_one_less: Option<BigUint>,
    solutions: BigUint,
    /// Weighted number of solutions in which each variable is true.
    var_count: Vec<BigUint>,
    /// Weighted number of solutions in which one given free variable is true.
    free_count: BigUint,
    nodes: u64,
    max_nodes: u64,
}

impl Search {
    /// Depth-first search over all assignments of the variables, in index order, false before
    /// true, calling [`Search::leaf`] on each full assignment that keeps every constraint and
    /// the total. The path is kept on an explicit stack, not the thread's: one level per
    /// constrained variable, and there may be millions.
    fn run(&mut self) -> Result<(), CspError> {
        let len = self.value.len();
        // For each variable on the current path (variables `0..tried.len()`), how many of its
        // values, false then true, have been tried: the last one tried is its current value.
        let mut tried: Vec<u8> = Vec::with_capacity(len);
        // Whether the assignment of the variables on the path keeps every constraint, so that
        // the search goes one level deeper.
        let mut descend = true;
        loop {
            if descend {
                if tried.len() == len {
                    self.leaf();
                } else {
                    tried.push(0);
                }
            }
            // The deepest variable on the path: undo its value and try the next, or leave it.
            let Some(i) = tried.len().checked_sub(1) else {
                return Ok(());
            };
            let t = tried[i];
            if t > 0 {
                self.unassign(i, t == 2);
            }
            if t == 2 {
                tried.pop();
                descend = false;
                continue;
            }
            tried[i] = t + 1;
            let x = t == 1;
            self.nodes += 1;
            if self.nodes > self.max_nodes {
                return Err(CspError::BudgetExceeded {
                    max_nodes: self.max_nodes,
                    component_vars: len,
                });
            }
            descend = self.assign(i, x);
        }
    }

    /// Sets variable `i` to `x`; `false` if some constraint or the total can no longer be met.
    /// The bookkeeping is done even then, for [`Search::unassign`].
    fn assign(&mut self, i: usize, x: bool) -> bool {
        self.value[i] = x;
        self.trues += u64::from(x);
        let mut ok = self.total.is_none_or(|t| self.trues <= t);
        for &r in &self.rows_of[i] {
            self.open[r] -= 1;
            self.rem[r] -= i64::from(x);
            if self.rem[r] < 0 || self.rem[r] - self.slack[r] > self.open[r] {
                ok = false;
            }
        }
        ok
    }

    fn unassign(&mut self, i: usize, x: bool) {
        self.trues -= u64::from(x);
        for &r in &self.rows_of[i] {
            self.open[r] += 1;
            self.rem[r] += i64::from(x);
        }
    }

    /// A full assignment of the constrained variables: add its completions on the free ones.
    fn leaf(&mut self) {
        // The weight of the assignment, and the number of its completions in which one given
        // free variable is true.
        let (weight, free_true) = match self.total {
            None => (&self.pow_free, self.pow_free_one_less.as_ref()),
            Some(t) => {
                // `assign` keeps `trues <= t`.
                let j = t - self.trues;
                // Outside the table only when `j > free`: no completion.
                let Some(w) = self.ways.get(j) else {
                    return;
                };
                let wf = j.checked_sub(1).and_then(|j1| self.ways_one_less.get(j1));
                (w, wf)
            }
        };
        self.solutions.add_assign(weight);
        for (count, &x) in self.var_count.iter_mut().zip(&self.value) {
            if x {
                count.add_assign(weight);
            }
        }
        if let Some(w) = free_true {
            self.free_count.add_assign(w);
        }
    }
}

/// The binomial coefficients `C(n, j)` for `j` in a range `lo..=hi`, looked up by `j`.
struct Binomials {
    lo: u64,
    /// `C(n, lo + k)` at `k`.
    table: Vec<BigUint>,
}

impl Binomials {
    fn new(n: u64, lo: u64, hi: u64) -> Binomials {
        Binomials {
            lo,
            table: BigUint::binomial_range(n, lo, hi),
        }
    }

    fn empty() -> Binomials {
        Binomials {
            lo: 0,
            table: Vec::new(),
        }
    }

    /// `C(n, j)`, or `None` outside the range.
    fn get(&self, j: u64) -> Option<&BigUint> {
        let k = usize::try_from(j.checked_sub(self.lo)?).ok()?;
        self.table.get(k)
    }
}
