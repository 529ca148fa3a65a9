//! Cheap, sound propagation to a fixpoint.
//!
//! Constraints are kept as bitsets over the still-unknown variables in one flat array, with a
//! worklist of rows changed since they were last compared with their neighbours.

use crate::{BoolCsp, CspError};

/// The result of propagation: the values it decided and the reduced ordinary constraints
/// over the still-unknown variables (each with `0 < count < vars.len()`).
#[derive(Debug, Clone)]
pub(crate) struct Propagated {
    pub values: Vec<Option<bool>>,
    pub rows: Vec<(Vec<usize>, u32)>,
}

struct State {
    /// Words per row bitset.
    words: usize,
    /// Row `r`'s bitset is `bits[r * words..(r + 1) * words]`.
    bits: Vec<u64>,
    len: Vec<u32>,
    count: Vec<u32>,
    alive: Vec<bool>,
    /// Index of the total row (the last row), if any. It is only ever rewritten with
    /// ordinary rows and never used to rewrite them, so the ordinary rows stay equivalent to
    /// the original constraints on their own.
    total_row: Option<usize>,
    values: Vec<Option<bool>>,
    /// Ordinary rows that contained each variable initially (rows only ever shrink), as
    /// `var_list[var_start[v]..var_start[v + 1]]`.
    var_start: Vec<usize>,
    var_list: Vec<usize>,
    /// Worklist of ordinary rows changed since they were last examined.
    queue: Vec<usize>,
    queued: Vec<bool>,
    /// Whether the total row changed since it was last examined.
    total_dirty: bool,
    /// Scratch marks for neighbour collection.
    mark: Vec<usize>,
    stamp: usize,
    /// Scratch buffers (taken out while in use).
    masks: Vec<u64>,
    nbuf: Vec<usize>,
}

/// Calls `f` on every set bit of `bits`.
fn for_each_bit(bits: &[u64], mut f: impl FnMut(usize)) {
    for (w, &word) in bits.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            f(w * 64 + x.trailing_zeros() as usize);
            x &= x - 1;
        }
    }
}

impl State {
    fn row(&self, r: usize) -> &[u64] {
        &self.bits[r * self.words..(r + 1) * self.words]
    }

    fn push(&mut self, r: usize) {
        if Some(r) == self.total_row {
            // The total row touches everything: examine it only once the ordinary rows are
            // quiescent.
            self.total_dirty = true;
        } else if !self.queued[r] {
            self.queued[r] = true;
            self.queue.push(r);
        }
    }

    /// Removes the decided variable `v` from row `r` (if it is there).
    fn remove_from_row(&mut self, r: usize, v: usize, val: bool) -> Result<(), CspError> {
        let idx = r * self.words + v / 64;
        let bit = 1u64 << (v % 64);
        if self.alive[r] && self.bits[idx] & bit != 0 {
            self.bits[idx] &= !bit;
            self.len[r] -= 1;
            if val {
                if self.count[r] == 0 {
                    return Err(CspError::Inconsistent);
                }
                self.count[r] -= 1;
            }
            self.push(r);
        }
        Ok(())
    }

    fn assign(&mut self, v: usize, val: bool) -> Result<(), CspError> {
        match self.values[v] {
            Some(old) if old == val => return Ok(()),
            Some(_) => return Err(CspError::Inconsistent),
            None => {}
        }
        self.values[v] = Some(val);
        for k in self.var_start[v]..self.var_start[v + 1] {
            self.remove_from_row(self.var_list[k], v, val)?;
        }
        if let Some(t) = self.total_row {
            self.remove_from_row(t, v, val)?;
        }
        Ok(())
    }

    /// Assigns `val` to every variable of `mask`.
    fn assign_mask(&mut self, mask: &[u64], val: bool) -> Result<(), CspError> {
        for (k, &word) in mask.iter().enumerate() {
            let mut x = word;
            while x != 0 {
                self.assign(k * 64 + x.trailing_zeros() as usize, val)?;
                x &= x - 1;
            }
        }
        Ok(())
    }

    /// Trivial rules on row `i`. Returns whether the row was used up.
    fn trivial(&mut self, i: usize) -> Result<bool, CspError> {
        let (len, count) = (self.len[i], self.count[i]);
        if count > len {
            return Err(CspError::Inconsistent);
        }
        if len == 0 {
            self.alive[i] = false;
            return Ok(true);
        }
        if count == 0 || count == len {
            self.alive[i] = false;
            let mut mask = std::mem::take(&mut self.masks);
            mask.clear();
            mask.extend_from_slice(self.row(i));
            self.assign_mask(&mask, count > 0)?;
            self.masks = mask;
            return Ok(true);
        }
        Ok(false)
    }

    /// Collects into `out` the rows that may intersect row `i` (other than `i`).
    fn neighbours(&mut self, i: usize, out: &mut Vec<usize>) {
        out.clear();
        if Some(i) == self.total_row {
            out.extend((0..self.alive.len()).filter(|&j| j != i));
            return;
        }
        self.stamp += 1;
        let (start, list, mark, stamp) =
            (&self.var_start, &self.var_list, &mut self.mark, self.stamp);
        for_each_bit(&self.bits[i * self.words..(i + 1) * self.words], |v| {
            for &j in &list[start[v]..start[v + 1]] {
                if j != i && mark[j] != stamp {
                    mark[j] = stamp;
                    out.push(j);
                }
            }
        });
        if let Some(t) = self.total_row {
            out.push(t);
        }
    }

    fn pair(&mut self, i: usize, j: usize) -> Result<(), CspError> {
        let inter: u32 = self
            .row(i)
            .iter()
            .zip(self.row(j))
            .map(|(a, b)| (a & b).count_ones())
            .sum();
        if inter == 0 {
            return Ok(());
        }
        let (li, lj, ci, cj) = (self.len[i], self.len[j], self.count[i], self.count[j]);
        let is_total = |r: usize| Some(r) == self.total_row;
        if inter == li && inter == lj {
            // Same set.
            if ci != cj {
                return Err(CspError::Inconsistent);
            }
            let kill = if is_total(i) { i } else { j };
            self.alive[kill] = false;
            return Ok(());
        }
        // Subset reduction: B := B \ A with count c_B - c_A (A ordinary).
        for (a, b) in [(i, j), (j, i)] {
            if inter == self.len[a] && !is_total(a) {
                if self.count[a] > self.count[b] {
                    return Err(CspError::Inconsistent);
                }
                let w = self.words;
                for k in 0..w {
                    self.bits[b * w + k] &= !self.bits[a * w + k];
                }
                self.len[b] -= self.len[a];
                self.count[b] -= self.count[a];
                self.push(b);
                return Ok(());
            }
        }
        // Bounds on x = number of trues in the intersection.
        let (a, b) = (li - inter, lj - inter);
        let xmin = ci.saturating_sub(a).max(cj.saturating_sub(b));
        let xmax = inter.min(ci).min(cj);
        if xmin > xmax {
            return Err(CspError::Inconsistent);
        }
        // Trues in i \ j range over [ci - xmax, ci - xmin], in j \ i over [cj - xmax, cj - xmin].
        let only_i = (a > 0 && (ci == xmin || ci - xmax == a)).then_some(ci != xmin);
        let only_j = (b > 0 && (cj == xmin || cj - xmax == b)).then_some(cj != xmin);
        let both = (xmax == 0 || xmin == inter).then_some(xmin == inter);
        if only_i.is_none() && only_j.is_none() && both.is_none() {
            return Ok(());
        }
        // Copy the three masks first: assignments rewrite rows i and j.
        let w = self.words;
        let mut mask = std::mem::take(&mut self.masks);
        mask.clear();
        for k in 0..w {
            let (x, y) = (self.bits[i * w + k], self.bits[j * w + k]);
            mask.extend_from_slice(&[x & !y, y & !x, x & y]);
        }
        for (part, decision) in [only_i, only_j, both].into_iter().enumerate() {
            if let Some(val) = decision {
                for k in 0..w {
                    let mut x = mask[3 * k + part];
                    while x != 0 {
                        let v = k * 64 + x.trailing_zeros() as usize;
                        x &= x - 1;
                        self.assign(v, val)?;
                    }
                }
            }
        }
        self.masks = mask;
        Ok(())
    }

    /// Processes the worklist to a fixpoint.
    fn run(&mut self) -> Result<(), CspError> {
        let mut nbuf = std::mem::take(&mut self.nbuf);
        loop {
            let i = if let Some(i) = self.queue.pop() {
                self.queued[i] = false;
                i
            } else if let Some(t) = self.total_row.filter(|_| self.total_dirty) {
                self.total_dirty = false;
                t
            } else {
                break;
            };
            if !self.alive[i] || self.trivial(i)? {
                continue;
            }
            self.neighbours(i, &mut nbuf);
            for &j in &nbuf {
                if !self.alive[i] {
                    break;
                }
                if self.alive[j] {
                    self.pair(i, j)?;
                }
            }
        }
        self.nbuf = nbuf;
        Ok(())
    }
}

pub(crate) fn run(csp: &BoolCsp) -> Result<Propagated, CspError> {
    if csp.inconsistent {
        return Err(CspError::Inconsistent);
    }
    let n = csp.num_vars;
    let words = n.div_ceil(64);
    let nord = csp.constraints.len();
    let nrows = nord + usize::from(csp.total.is_some());
    let mut bits = vec![0u64; nrows * words];
    let mut len = Vec::with_capacity(nrows);
    let mut count = Vec::with_capacity(nrows);
    let mut var_start = vec![0usize; n + 1];
    for (r, c) in csp.constraints.iter().enumerate() {
        for &v in &c.vars {
            bits[r * words + v / 64] |= 1 << (v % 64);
            var_start[v + 1] += 1;
        }
        len.push(c.vars.len() as u32);
        count.push(c.count);
    }
    for v in 0..n {
        var_start[v + 1] += var_start[v];
    }
    let mut fill = var_start.clone();
    let mut var_list = vec![0usize; var_start[n]];
    for (r, c) in csp.constraints.iter().enumerate() {
        for &v in &c.vars {
            var_list[fill[v]] = r;
            fill[v] += 1;
        }
    }
    let mut total_row = None;
    if let Some(t) = csp.total {
        if t as usize > n {
            return Err(CspError::Inconsistent);
        }
        let row = &mut bits[nord * words..];
        row.fill(u64::MAX);
        if !n.is_multiple_of(64) {
            row[words - 1] = (1u64 << (n % 64)) - 1;
        }
        len.push(n as u32);
        count.push(t);
        total_row = Some(nord);
    }
    let mut st = State {
        words,
        bits,
        len,
        count,
        alive: vec![true; nrows],
        total_row,
        values: vec![None; n],
        var_start,
        var_list,
        queue: (0..nord).rev().collect(),
        queued: vec![true; nrows],
        total_dirty: total_row.is_some(),
        mark: vec![0; nrows],
        stamp: 0,
        masks: Vec::new(),
        nbuf: Vec::new(),
    };
    st.run()?;
    let rows = (0..nord)
        .filter(|&r| st.alive[r])
        .map(|r| {
            let mut vars = Vec::with_capacity(st.len[r] as usize);
            for_each_bit(st.row(r), |v| vars.push(v));
            (vars, st.count[r])
        })
        .collect();
    Ok(Propagated {
        values: st.values,
        rows,
    })
}

/// Cheap logic only: the values of variables that simple rules prove, to a fixpoint.
///
/// The rules: a constraint with count 0 makes its variables false, one with count equal to
/// its size makes them true; two identical constraints must agree; when one constraint's set
/// is a subset of another's, the larger is reduced to the difference; for two overlapping
/// constraints, the bounds on the number of trues in their intersection can decide the
/// intersection or either difference. The global total takes part as a constraint over all
/// variables. Every value returned is forced (true in all solutions), but not every forced
/// value is found; [`analyze`](crate::analyze) finds all of them.
///
/// # Errors
/// [`CspError::Inconsistent`] if a contradiction is found (the problem has no solution).
/// Not finding one does not prove that a solution exists.
pub fn propagate(csp: &BoolCsp) -> Result<Vec<Option<bool>>, CspError> {
    run(csp).map(|p| p.values)
}
