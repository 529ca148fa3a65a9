//! Cheap, sound propagation to a fixpoint.
//!
//! The variables of the ordinary constraints are renumbered densely; each ordinary row keeps
//! its undecided variables as a sorted list in one flat array (rows only shrink, in place),
//! with a worklist of rows changed since they were last compared with their neighbours. The
//! global total is the one row over every variable: a bitset over the dense numbers, plus a
//! count of the variables in no ordinary constraint (on a large Minesweeper board, most of
//! the hidden cells), which it can only decide all together. The work is linear in the sizes
//! of the rows that meet, not in the number of variables.

use crate::{BoolCsp, CspError};

/// The result of propagation: the values it decided and the reduced ordinary constraints
/// over the still-unknown variables (each with `0 < count < vars.len()`).
#[derive(Debug, Clone)]
pub(crate) struct Propagated {
    pub values: Vec<Option<bool>>,
    pub rows: Vec<(Vec<usize>, u32)>,
}

struct State {
    /// Ordinary row `r`'s undecided variables (dense numbers, increasing) are
    /// `cells[start[r]..start[r] + len[r]]`.
    start: Vec<usize>,
    cells: Vec<u32>,
    /// The total row's undecided constrained variables, as a bitset over the dense numbers.
    total_bits: Vec<u64>,
    len: Vec<u32>,
    count: Vec<u32>,
    alive: Vec<bool>,
    /// Index of the total row (the last row), if any. It is only ever rewritten with
    /// ordinary rows and never used to rewrite them, so the ordinary rows stay equivalent to
    /// the original constraints on their own.
    total_row: Option<usize>,
    /// Values of the constrained variables (dense numbers).
    values: Vec<Option<bool>>,
    /// Undecided variables outside every ordinary constraint: members of the total row
    /// alone, counted in its `len` but not in its bitset.
    free: u32,
    /// The value given to all of them, once decided.
    free_value: Option<bool>,
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
    /// Scratch lists (taken out while in use): the three parts of a pair of rows.
    parts: [Vec<u32>; 3],
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

/// Splits the sorted lists `a` and `b` into `a \ b`, `b \ a` and `a ∩ b` (each sorted).
fn split_sorted(a: &[u32], b: &[u32], parts: &mut [Vec<u32>; 3]) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if j == b.len() || (i < a.len() && a[i] < b[j]) {
            parts[0].push(a[i]);
            i += 1;
        } else if i == a.len() || b[j] < a[i] {
            parts[1].push(b[j]);
            j += 1;
        } else {
            parts[2].push(a[i]);
            i += 1;
            j += 1;
        }
    }
}

impl State {
    /// The undecided variables of ordinary row `r`.
    fn row(&self, r: usize) -> &[u32] {
        &self.cells[self.start[r]..self.start[r] + self.len[r] as usize]
    }

    fn in_total(&self, d: u32) -> bool {
        self.total_bits[d as usize / 64] >> (d % 64) & 1 == 1
    }

    fn is_total(&self, r: usize) -> bool {
        Some(r) == self.total_row
    }

    fn push(&mut self, r: usize) {
        if self.is_total(r) {
            // The total row touches everything: examine it only once the ordinary rows are
            // quiescent.
            self.total_dirty = true;
        } else if !self.queued[r] {
            self.queued[r] = true;
            self.queue.push(r);
        }
    }

    /// Removes the decided variable `d` from row `r` (if it is there).
    fn remove_from_row(&mut self, r: usize, d: u32, val: bool) -> Result<(), CspError> {
        if !self.alive[r] {
            return Ok(());
        }
        if self.is_total(r) {
            let (w, bit) = (d as usize / 64, 1u64 << (d % 64));
            if self.total_bits[w] & bit == 0 {
                return Ok(());
            }
            self.total_bits[w] &= !bit;
        } else {
            let (s, l) = (self.start[r], self.len[r] as usize);
            let row = &mut self.cells[s..s + l];
            let Ok(k) = row.binary_search(&d) else {
                return Ok(());
            };
            row.copy_within(k + 1.., k);
        }
        self.len[r] -= 1;
        if val {
            if self.count[r] == 0 {
                return Err(CspError::Inconsistent);
            }
            self.count[r] -= 1;
        }
        self.push(r);
        Ok(())
    }

    fn assign(&mut self, d: u32, val: bool) -> Result<(), CspError> {
        match self.values[d as usize] {
            Some(old) if old == val => return Ok(()),
            Some(_) => return Err(CspError::Inconsistent),
            None => {}
        }
        self.values[d as usize] = Some(val);
        for k in self.var_start[d as usize]..self.var_start[d as usize + 1] {
            self.remove_from_row(self.var_list[k], d, val)?;
        }
        if let Some(t) = self.total_row {
            self.remove_from_row(t, d, val)?;
        }
        Ok(())
    }

    /// Assigns `val` to every variable outside the ordinary constraints (they are only ever
    /// decided together, by the total row).
    fn assign_free(&mut self, val: bool) -> Result<(), CspError> {
        let (Some(t), free) = (self.total_row, self.free) else {
            return Ok(());
        };
        if free == 0 {
            return Ok(());
        }
        self.free = 0;
        self.free_value = Some(val);
        if self.alive[t] {
            self.len[t] -= free;
            if val {
                if self.count[t] < free {
                    return Err(CspError::Inconsistent);
                }
                self.count[t] -= free;
            }
            self.push(t);
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
            let mut vars = std::mem::take(&mut self.parts[0]);
            vars.clear();
            if self.is_total(i) {
                for_each_bit(&self.total_bits, |d| vars.push(d as u32));
            } else {
                vars.extend_from_slice(self.row(i));
            }
            for &d in &vars {
                self.assign(d, count > 0)?;
            }
            self.parts[0] = vars;
            if self.is_total(i) {
                self.assign_free(count > 0)?;
            }
            return Ok(true);
        }
        Ok(false)
    }

    /// Collects into `out` the rows that may intersect row `i` (other than `i`).
    fn neighbours(&mut self, i: usize, out: &mut Vec<usize>) {
        out.clear();
        if self.is_total(i) {
            out.extend((0..self.alive.len()).filter(|&j| j != i));
            return;
        }
        self.stamp += 1;
        let (s, l) = (self.start[i], self.len[i] as usize);
        let (start, list, mark, stamp) =
            (&self.var_start, &self.var_list, &mut self.mark, self.stamp);
        for &d in &self.cells[s..s + l] {
            for &j in &list[start[d as usize]..start[d as usize + 1]] {
                if j != i && mark[j] != stamp {
                    mark[j] = stamp;
                    out.push(j);
                }
            }
        }
        if let Some(t) = self.total_row {
            out.push(t);
        }
    }

    /// The number of undecided variables rows `i` and `j` share.
    fn intersection(&self, i: usize, j: usize) -> u32 {
        if self.is_total(i) || self.is_total(j) {
            let o = if self.is_total(i) { j } else { i };
            return self.row(o).iter().filter(|&&d| self.in_total(d)).count() as u32;
        }
        let (a, b) = (self.row(i), self.row(j));
        let (mut x, mut y, mut n) = (0, 0, 0);
        while x < a.len() && y < b.len() {
            match a[x].cmp(&b[y]) {
                std::cmp::Ordering::Less => x += 1,
                std::cmp::Ordering::Greater => y += 1,
                std::cmp::Ordering::Equal => {
                    n += 1;
                    x += 1;
                    y += 1;
                }
            }
        }
        n
    }

    /// Row `b` loses the variables of ordinary row `a`, all of which it holds.
    fn subtract(&mut self, b: usize, a: usize) {
        if self.is_total(b) {
            let (s, l) = (self.start[a], self.len[a] as usize);
            for k in s..s + l {
                let d = self.cells[k] as usize;
                self.total_bits[d / 64] &= !(1u64 << (d % 64));
            }
        } else {
            let (sa, la) = (self.start[a], self.len[a] as usize);
            let (sb, lb) = (self.start[b], self.len[b] as usize);
            let (mut k, mut w) = (sa, sb);
            for idx in sb..sb + lb {
                let x = self.cells[idx];
                while k < sa + la && self.cells[k] < x {
                    k += 1;
                }
                if k < sa + la && self.cells[k] == x {
                    continue;
                }
                self.cells[w] = x;
                w += 1;
            }
        }
        self.len[b] -= self.len[a];
    }

    /// Fills `parts` with `i \ j`, `j \ i` and `i ∩ j` over the constrained variables (the
    /// total row's free variables are not listed).
    fn split(&self, i: usize, j: usize, parts: &mut [Vec<u32>; 3]) {
        for p in parts.iter_mut() {
            p.clear();
        }
        if !self.is_total(i) && !self.is_total(j) {
            split_sorted(self.row(i), self.row(j), parts);
            return;
        }
        // One total row `t` and one ordinary row `o`: `o` splits by membership in `t`, and
        // `t \ o` is the rest of its bitset.
        let (t_part, o_part) = if self.is_total(i) { (0, 1) } else { (1, 0) };
        let o = if self.is_total(i) { j } else { i };
        let row = self.row(o);
        for &d in row {
            parts[if self.in_total(d) { 2 } else { o_part }].push(d);
        }
        let mut k = 0;
        for_each_bit(&self.total_bits, |d| {
            let d = d as u32;
            while k < row.len() && row[k] < d {
                k += 1;
            }
            if k == row.len() || row[k] != d {
                parts[t_part].push(d);
            }
        });
    }

    fn pair(&mut self, i: usize, j: usize) -> Result<(), CspError> {
        let inter = self.intersection(i, j);
        if inter == 0 {
            return Ok(());
        }
        let (li, lj, ci, cj) = (self.len[i], self.len[j], self.count[i], self.count[j]);
        if inter == li && inter == lj {
            // Same set.
            if ci != cj {
                return Err(CspError::Inconsistent);
            }
            let kill = if self.is_total(i) { i } else { j };
            self.alive[kill] = false;
            return Ok(());
        }
        // Subset reduction: B := B \ A with count c_B - c_A (A ordinary).
        for (a, b) in [(i, j), (j, i)] {
            if inter == self.len[a] && !self.is_total(a) {
                if self.count[a] > self.count[b] {
                    return Err(CspError::Inconsistent);
                }
                self.subtract(b, a);
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
        // List the three parts first: assignments rewrite rows i and j.
        let mut parts = std::mem::take(&mut self.parts);
        self.split(i, j, &mut parts);
        let sides = [Some(i), Some(j), None];
        for ((part, decision), side) in parts.iter().zip([only_i, only_j, both]).zip(sides) {
            if let Some(val) = decision {
                // The total row's part outside the other row holds the free variables too.
                if side.is_some_and(|r| self.is_total(r)) {
                    self.assign_free(val)?;
                }
                for &d in part {
                    self.assign(d, val)?;
                }
            }
        }
        self.parts = parts;
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
    // Dense numbers for the variables of the ordinary constraints, in increasing order (so
    // rows read back in order); `orig` maps them back.
    let mut dense = vec![u32::MAX; n];
    for c in &csp.constraints {
        for &v in &c.vars {
            dense[v] = 0;
        }
    }
    let mut orig = Vec::new();
    for (v, d) in dense.iter_mut().enumerate() {
        if *d == 0 {
            *d = orig.len() as u32;
            orig.push(v);
        }
    }
    let m = orig.len();
    let nord = csp.constraints.len();
    let nrows = nord + usize::from(csp.total.is_some());
    let mut start = Vec::with_capacity(nord);
    let mut cells = Vec::new();
    let mut len = Vec::with_capacity(nrows);
    let mut count = Vec::with_capacity(nrows);
    let mut var_start = vec![0usize; m + 1];
    for c in &csp.constraints {
        start.push(cells.len());
        let from = cells.len();
        cells.extend(c.vars.iter().map(|&v| dense[v]));
        cells[from..].sort_unstable();
        for &v in &c.vars {
            var_start[dense[v] as usize + 1] += 1;
        }
        len.push(c.vars.len() as u32);
        count.push(c.count);
    }
    for d in 0..m {
        var_start[d + 1] += var_start[d];
    }
    let mut fill = var_start.clone();
    let mut var_list = vec![0usize; var_start[m]];
    for (r, c) in csp.constraints.iter().enumerate() {
        for &v in &c.vars {
            let d = dense[v] as usize;
            var_list[fill[d]] = r;
            fill[d] += 1;
        }
    }
    let mut total_row = None;
    let mut total_bits = Vec::new();
    let mut free = 0;
    if let Some(t) = csp.total {
        if t as usize > n {
            return Err(CspError::Inconsistent);
        }
        total_bits = vec![u64::MAX; m.div_ceil(64)];
        if !m.is_multiple_of(64) {
            total_bits[m / 64] = (1u64 << (m % 64)) - 1;
        }
        free = (n - m) as u32;
        len.push(n as u32);
        count.push(t);
        total_row = Some(nord);
    }
    let mut st = State {
        start,
        cells,
        total_bits,
        len,
        count,
        alive: vec![true; nrows],
        total_row,
        values: vec![None; m],
        free,
        free_value: None,
        var_start,
        var_list,
        queue: (0..nord).rev().collect(),
        queued: vec![true; nrows],
        total_dirty: total_row.is_some(),
        mark: vec![0; nrows],
        stamp: 0,
        parts: Default::default(),
        nbuf: Vec::new(),
    };
    st.run()?;
    let rows = (0..nord)
        .filter(|&r| st.alive[r])
        .map(|r| {
            (
                st.row(r).iter().map(|&d| orig[d as usize]).collect(),
                st.count[r],
            )
        })
        .collect();
    // Variables outside the ordinary constraints share the total row's verdict (none
    // without a total).
    let mut values = vec![st.free_value; n];
    for (d, &v) in orig.iter().enumerate() {
        values[v] = st.values[d];
    }
    Ok(Propagated { values, rows })
}

/// Cheap logic only: the values of variables that simple rules prove, to a fixpoint.
///
/// The rules: a constraint with count 0 makes its variables false, one with count equal to
/// its size makes them true; two identical constraints must agree; when one constraint's set
/// is a subset of another's, the larger is reduced to the difference; for two overlapping
/// constraints, the bounds on the number of trues in their intersection can decide the
/// intersection or either difference. The global total takes part as a constraint over all
/// variables. Every value returned holds in all solutions (vacuously when there are none,
/// which propagation does not always notice), but not every forced value is found;
/// [`analyze`](crate::analyze) finds all of them.
///
/// # Errors
/// [`CspError::Inconsistent`] if a contradiction is found (the problem has no solution).
/// Not finding one does not prove that a solution exists.
pub fn propagate(csp: &BoolCsp) -> Result<Vec<Option<bool>>, CspError> {
    run(csp).map(|p| p.values)
}

#[cfg(test)]
mod tests {
    use super::{for_each_bit, split_sorted};

    #[test]
    fn bits_are_listed_across_words() {
        let mut seen = Vec::new();
        for_each_bit(&[0b1010_0001, 0, 1 << 3 | 1 << 63], |d| seen.push(d));
        assert_eq!(seen, [0, 5, 7, 131, 191]);
    }

    #[test]
    fn sorted_lists_split_into_differences_and_intersection() {
        let mut parts: [Vec<u32>; 3] = Default::default();
        split_sorted(&[1, 4, 6, 9, 70], &[0, 4, 5, 9, 80, 81], &mut parts);
        assert_eq!(parts[0], [1, 6, 70]);
        assert_eq!(parts[1], [0, 5, 80, 81]);
        assert_eq!(parts[2], [4, 9]);
    }
}
