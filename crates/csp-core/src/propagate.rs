//! Cheap, sound propagation to a fixpoint.
//!
//! The variables of the ordinary constraints are renumbered densely; each ordinary row keeps
//! its variables as a sorted list in one flat array, with a worklist of rows changed since
//! they were last compared with their neighbours. The global total is the one row over
//! every variable: a bitset over the dense numbers, plus a count of the variables in no
//! ordinary constraint (on a large Minesweeper board, most of the hidden cells), which it can
//! only decide all together. The work is linear in the sizes of the rows that meet, not in the
//! number of variables.
//!
//! Long rows stay cheap beside many short ones: a variable leaves a long row by a mark on its
//! entry (found by binary search), not by shifting the rest of the row, and the row is
//! compacted once the marked entries outnumber the others (by more than a small slack); a
//! short row meets a long one by binary search in the long one; and rows longer than
//! [`LONG_ROW`] wait until the short rows are quiescent, as the total does, so a cascade
//! along short rows does not re-examine them at every step. Short rows (such as
//! Minesweeper's, of at most 8 cells) shift out a leaving variable and are walked together,
//! as plain sorted lists.

use crate::{BoolCsp, Constraint, CspError};

/// The result of propagation: the values it decided and the reduced ordinary constraints
/// over the still-unknown variables, as `(vars, min, max)`: "exactly" ones with
/// `0 < min == max < vars.len()`, "between" ones with `min < max`, `max > 0`,
/// `min < vars.len()` and not both `min == 0` and `max == vars.len()`.
#[derive(Debug, Clone)]
pub(crate) struct Propagated {
    pub values: Vec<Option<bool>>,
    pub rows: Vec<(Vec<usize>, u32, u32)>,
}

/// Rows with more undecided variables than this are examined only once the shorter rows are
/// quiescent.
const LONG_ROW: u32 = 64;

/// Rows of at most this many entries shift out a leaving variable instead of marking it.
const SHORT_ROW: u32 = 32;

/// The thresholds of the representation (tests force every path with extreme ones).
#[derive(Debug, Clone, Copy)]
struct Tuning {
    /// Rows longer than this wait for the short ones.
    long_row: u32,
    /// Rows of at most this many entries shift out a leaving variable.
    short_row: u32,
    /// A longer row is compacted when its entries exceed twice its undecided variables by
    /// more than this (a short one at once).
    slack: u32,
    /// Whether pairs of rows are always (`Some(true)`) or never (`Some(false)`) compared by
    /// binary search, instead of by their lengths.
    lookup: Option<bool>,
}

const TUNING: Tuning = Tuning {
    long_row: LONG_ROW,
    short_row: SHORT_ROW,
    slack: 16,
    lookup: None,
};

/// The propagation state. `MARKS` is whether any row is longer than the tuning's
/// `short_row` (only then can an entry be marked gone); without it, the checks for marks are
/// compiled out.
struct State<const MARKS: bool> {
    /// Ordinary row `r`'s entries are `cells[start[r]..start[r] + stored(r)]`, dense numbers
    /// in increasing order; its undecided variables are those entries not marked in `gone`
    /// (`len[r]` of them).
    start: Vec<usize>,
    /// The numbers of entries (empty without `MARKS`: then they are the `len`s).
    stored: Vec<u32>,
    cells: Vec<u32>,
    /// Marks, by position in `cells`, of the entries that have left their row (empty
    /// without `MARKS`).
    gone: Vec<u64>,
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
    /// Worklists of ordinary rows changed since they were last examined: rows of at most
    /// [`LONG_ROW`] variables when queued, and the longer ones.
    queue: Vec<usize>,
    long_queue: Vec<usize>,
    queued: Vec<bool>,
    /// Whether the total row changed since it was last examined.
    total_dirty: bool,
    /// Scratch marks for neighbour collection.
    mark: Vec<usize>,
    stamp: usize,
    /// Scratch lists (taken out while in use): the three parts of a pair of rows.
    parts: [Vec<u32>; 3],
    nbuf: Vec<usize>,
    tuning: Tuning,
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

/// Walks the increasing lists `a` and `b` together, leaving out the entries at the positions
/// for which `skip_a` or `skip_b` holds, and calls `f(0, x)` for each `x` only in `a`,
/// `f(1, x)` for each only in `b` and `f(2, x)` for each in both, in increasing order.
fn merge(
    a: &[u32],
    skip_a: impl Fn(usize) -> bool,
    b: &[u32],
    skip_b: impl Fn(usize) -> bool,
    mut f: impl FnMut(usize, u32),
) {
    let (mut i, mut j) = (0, 0);
    loop {
        while i < a.len() && skip_a(i) {
            i += 1;
        }
        while j < b.len() && skip_b(j) {
            j += 1;
        }
        match (a.get(i).copied(), b.get(j).copied()) {
            (Some(x), Some(y)) => {
                if x < y {
                    f(0, x);
                    i += 1;
                } else if y < x {
                    f(1, y);
                    j += 1;
                } else {
                    f(2, x);
                    i += 1;
                    j += 1;
                }
            }
            (Some(x), None) => {
                f(0, x);
                i += 1;
            }
            (None, Some(y)) => {
                f(1, y);
                j += 1;
            }
            (None, None) => return,
        }
    }
}

/// The number of entries that the increasing lists `a` and `b` share, leaving out those at
/// the positions for which `skip_a` or `skip_b` holds.
fn common(
    a: &[u32],
    skip_a: impl Fn(usize) -> bool,
    b: &[u32],
    skip_b: impl Fn(usize) -> bool,
) -> u32 {
    let (mut x, mut y, mut n) = (0, 0, 0);
    while x < a.len() && y < b.len() {
        if skip_a(x) {
            x += 1;
        } else if skip_b(y) {
            y += 1;
        } else {
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
    }
    n
}

/// Whether looking up each of `small` entries in a list of `large` (a long one: over twice
/// `short_row`) by binary search is cheaper than walking both lists together.
fn lopsided(small: u32, large: u32, short_row: u32) -> bool {
    large > 2 * short_row
        && u64::from(small) * u64::from(33 - large.leading_zeros()) < u64::from(large)
}

impl<const MARKS: bool> State<MARKS> {
    /// Whether ordinary rows `s` and `l` (`s` the shorter) are compared by looking each
    /// variable of `s` up in `l`.
    fn lopsided(&self, s: usize, l: usize) -> bool {
        self.tuning.lookup.unwrap_or_else(|| {
            MARKS && lopsided(self.stored(s), self.stored(l), self.tuning.short_row)
        })
    }

    /// The positions in `cells` of ordinary row `r`'s entries.
    fn span(&self, r: usize) -> std::ops::Range<usize> {
        self.start[r]..self.start[r] + self.stored(r) as usize
    }

    fn is_gone(&self, k: usize) -> bool {
        self.gone[k / 64] >> (k % 64) & 1 == 1
    }

    /// Whether ordinary row `r` has no gone entries.
    fn is_clean(&self, r: usize) -> bool {
        !MARKS || self.stored[r] == self.len[r]
    }

    /// The number of ordinary row `r`'s entries (its undecided variables when no row can
    /// have gone entries, and `stored` is left empty).
    fn stored(&self, r: usize) -> u32 {
        if MARKS { self.stored[r] } else { self.len[r] }
    }

    /// Ordinary row `r`'s entries, some of them perhaps gone.
    fn entries(&self, r: usize) -> &[u32] {
        &self.cells[self.span(r)]
    }

    /// Whether the entry at index `k` of ordinary row `r`'s entries is gone (never, in a row
    /// without gone entries).
    fn skip(&self, r: usize) -> impl Fn(usize) -> bool + '_ {
        let (start, clean) = (self.start[r], self.is_clean(r));
        move |k| !clean && self.is_gone(start + k)
    }

    /// The undecided variables of ordinary row `r`, in increasing order.
    fn live(&self, r: usize) -> impl Iterator<Item = u32> + '_ {
        let skip = self.skip(r);
        (self.entries(r).iter().enumerate())
            .filter(move |&(k, _)| !skip(k))
            .map(|(_, &d)| d)
    }

    /// The position in `cells` of the undecided variable `d` in ordinary row `r`, if it is
    /// there.
    #[inline]
    fn find(&self, r: usize, d: u32) -> Option<usize> {
        let span = self.span(r);
        let clean = self.is_clean(r);
        let k = span.start + self.cells[span].binary_search(&d).ok()?;
        (clean || !self.is_gone(k)).then_some(k)
    }

    /// Marks the entry at position `k` of `cells` as gone from its row.
    fn mark_gone(&mut self, k: usize) {
        self.gone[k / 64] |= 1 << (k % 64);
    }

    /// Takes variable `d`, if it is there, out of ordinary row `r`. Returns whether it was.
    #[inline]
    fn take_out(&mut self, r: usize, d: u32) -> bool {
        let (start, stored) = (self.start[r], self.stored(r));
        let row = &mut self.cells[start..start + stored as usize];
        let Ok(k) = row.binary_search(&d) else {
            return false;
        };
        if !MARKS || (stored == self.len[r] && stored <= self.tuning.short_row) {
            // A short row without gone entries shifts its tail.
            row.copy_within(k + 1.., k);
            if MARKS {
                self.stored[r] -= 1;
            }
            self.len[r] -= 1;
            return true;
        }
        if self.is_gone(start + k) {
            return false;
        }
        self.mark_gone(start + k);
        self.len[r] -= 1;
        self.compact_if_sparse(r);
        true
    }

    /// Drops ordinary row `r`'s gone entries once they outnumber the others by more than the
    /// slack (so that walking a row costs at most about twice its undecided variables), and
    /// from a short row at once.
    #[inline]
    fn compact_if_sparse(&mut self, r: usize) {
        if !MARKS {
            return;
        }
        let (stored, len) = (self.stored[r], self.len[r]);
        if stored == len
            || (stored > self.tuning.short_row && stored <= 2 * len + self.tuning.slack)
        {
            return;
        }
        let span = self.span(r);
        let mut w = span.start;
        for k in span {
            // Positions before `k` are already cleared, so `w <= k` is too.
            let gone = self.is_gone(k);
            self.gone[k / 64] &= !(1 << (k % 64));
            if !gone {
                self.cells[w] = self.cells[k];
                w += 1;
            }
        }
        self.stored[r] = (w - self.start[r]) as u32;
    }

    fn in_total(&self, d: u32) -> bool {
        self.total_bits[d as usize / 64] >> (d % 64) & 1 == 1
    }

    fn is_total(&self, r: usize) -> bool {
        Some(r) == self.total_row
    }

    #[inline]
    fn push(&mut self, r: usize) {
        if self.is_total(r) {
            // The total row touches everything: examine it only once the ordinary rows are
            // quiescent.
            self.total_dirty = true;
        } else if !self.queued[r] {
            self.queued[r] = true;
            if self.len[r] > self.tuning.long_row {
                self.long_queue.push(r);
            } else {
                self.queue.push(r);
            }
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
            self.len[r] -= 1;
        } else if !self.take_out(r, d) {
            return Ok(());
        }
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
                if self.is_clean(i) {
                    vars.extend_from_slice(self.entries(i));
                } else {
                    vars.extend(self.live(i));
                }
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
        let clean = self.is_clean(i);
        for k in self.span(i) {
            if !clean && self.is_gone(k) {
                continue;
            }
            let d = self.cells[k] as usize;
            for &j in &self.var_list[self.var_start[d]..self.var_start[d + 1]] {
                if j != i && self.mark[j] != self.stamp {
                    self.mark[j] = self.stamp;
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
            if self.is_clean(o) {
                let row = self.entries(o);
                return row.iter().filter(|&&d| self.in_total(d)).count() as u32;
            }
            return self.live(o).filter(|&d| self.in_total(d)).count() as u32;
        }
        let (s, l) = if self.stored(i) <= self.stored(j) {
            (i, j)
        } else {
            (j, i)
        };
        if self.lopsided(s, l) {
            return self.live(s).filter(|&d| self.find(l, d).is_some()).count() as u32;
        }
        let (a, b) = (self.entries(i), self.entries(j));
        if self.is_clean(i) && self.is_clean(j) {
            // (Without gone entries, the walk needs no look at the marks.)
            return common(a, |_| false, b, |_| false);
        }
        common(a, self.skip(i), b, self.skip(j))
    }

    /// Row `b` loses the variables of ordinary row `a`, all of which it holds.
    fn subtract(&mut self, b: usize, a: usize) {
        let a_clean = self.is_clean(a);
        let a_span = self.span(a);
        if !self.is_total(b)
            && (!MARKS || (self.is_clean(b) && self.stored(b) <= self.tuning.short_row))
        {
            // A short row is rewritten in place, walking both rows together.
            let b_span = self.span(b);
            let (mut k, mut w) = (a_span.start, b_span.start);
            for idx in b_span {
                let x = self.cells[idx];
                while k < a_span.end && self.cells[k] < x {
                    k += 1;
                }
                if k < a_span.end && self.cells[k] == x && (a_clean || !self.is_gone(k)) {
                    continue;
                }
                self.cells[w] = x;
                w += 1;
            }
            if MARKS {
                self.stored[b] = (w - self.start[b]) as u32;
            }
            self.len[b] -= self.len[a];
            return;
        }
        for k in a_span {
            if !a_clean && self.is_gone(k) {
                continue;
            }
            let d = self.cells[k];
            if self.is_total(b) {
                self.total_bits[d as usize / 64] &= !(1u64 << (d % 64));
            } else if let Some(p) = self.find(b, d) {
                self.mark_gone(p);
            }
        }
        self.len[b] -= self.len[a];
        if !self.is_total(b) {
            self.compact_if_sparse(b);
        }
    }

    /// Fills `parts` with `i \ j`, `j \ i` and `i ∩ j` over the constrained variables (the
    /// total row's free variables are not listed), at least those that `need` asks for.
    fn split(&self, i: usize, j: usize, parts: &mut [Vec<u32>; 3], need: [bool; 3]) {
        for p in parts.iter_mut() {
            p.clear();
        }
        if !self.is_total(i) && !self.is_total(j) {
            let (s, l, ps, pl) = if self.stored(i) <= self.stored(j) {
                (i, j, 0, 1)
            } else {
                (j, i, 1, 0)
            };
            if !self.lopsided(s, l) {
                let (a, b) = (self.entries(i), self.entries(j));
                let mut keep = |part: usize, d| {
                    if need[part] {
                        parts[part].push(d);
                    }
                };
                if self.is_clean(i) && self.is_clean(j) {
                    merge(a, |_| false, b, |_| false, &mut keep);
                } else {
                    merge(a, self.skip(i), b, self.skip(j), &mut keep);
                }
                return;
            }
            // Look the short row's variables up in the long one; walk the long one only when
            // its own part is needed (its variables are then all decided).
            if need[ps] || need[2] {
                for d in self.live(s) {
                    let part = if self.find(l, d).is_some() { 2 } else { ps };
                    if need[part] {
                        parts[part].push(d);
                    }
                }
            }
            if need[pl] {
                parts[pl].extend(self.live(l).filter(|&d| self.find(s, d).is_none()));
            }
            return;
        }
        // One total row `t` and one ordinary row `o`: `o` splits by membership in `t`, and
        // `t \ o` is the rest of its bitset.
        let (t_part, o_part) = if self.is_total(i) { (0, 1) } else { (1, 0) };
        let o = if self.is_total(i) { j } else { i };
        for d in self.live(o) {
            parts[if self.in_total(d) { 2 } else { o_part }].push(d);
        }
        if need[t_part] {
            let mut row = self.live(o).peekable();
            for_each_bit(&self.total_bits, |d| {
                let d = d as u32;
                while row.next_if(|&x| x < d).is_some() {}
                if row.next_if_eq(&d).is_none() {
                    parts[t_part].push(d);
                }
            });
        }
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
        let decisions = [only_i, only_j, both];
        self.split(i, j, &mut parts, decisions.map(|d| d.is_some()));
        let sides = [Some(i), Some(j), None];
        for ((part, decision), side) in parts.iter().zip(decisions).zip(sides) {
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
            let i = if let Some(i) = self.queue.pop().or_else(|| self.long_queue.pop()) {
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
    if csp.constraints.iter().all(Constraint::is_exact) {
        run_tuned(csp, TUNING)
    } else {
        run_between(csp, TUNING)
    }
}

/// Propagation with "between" constraints: the "exactly" ones (with the values found so far
/// added as constraints of one variable) go through the full propagator, then the "between"
/// ones apply their own two rules with those values, and with a total the rule that their
/// trues and those of the other variables add up to it, by a worklist (a constraint is looked
/// at again only when one of its variables is decided), until neither decides anything new.
/// Values that touch no "exactly" constraint, without a total, need no second run of the
/// propagator; a problem whose deductions pass back and forth between the two kinds many
/// times costs one run of the propagator for each pass.
fn run_between(csp: &BoolCsp, tuning: Tuning) -> Result<Propagated, CspError> {
    if csp.inconsistent {
        return Err(CspError::Inconsistent);
    }
    let n = csp.num_vars;
    let (exact, between): (Vec<&Constraint>, Vec<&Constraint>) =
        csp.constraints.iter().partition(|c| c.is_exact());
    let mut in_exact = vec![false; n];
    for c in &exact {
        for &v in &c.vars {
            in_exact[v] = true;
        }
    }
    // The "between" constraints of each variable.
    let mut of_var: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, c) in between.iter().enumerate() {
        for &v in &c.vars {
            of_var[v].push(i);
        }
    }
    let mut work = BoolCsp {
        num_vars: n,
        constraints: exact.into_iter().cloned().collect(),
        total: csp.total,
        inconsistent: false,
    };
    // The trues among a constraint's variables and the undecided ones, and the bounds on the
    // trues among these.
    let tally = |c: &Constraint, values: &[Option<bool>]| -> Result<(u32, u32, u32), CspError> {
        let (mut trues, mut open) = (0u32, 0u32);
        for &v in &c.vars {
            match values[v] {
                Some(true) => trues += 1,
                Some(false) => {}
                None => open += 1,
            }
        }
        if trues > c.max || trues + open < c.min {
            return Err(CspError::Inconsistent);
        }
        Ok((open, c.min.saturating_sub(trues), (c.max - trues).min(open)))
    };
    loop {
        let mut p = run_tuned(&work, tuning)?;
        let mut st = BetweenState {
            left: match csp.total {
                None => None,
                Some(t) => {
                    let trues = p.values.iter().filter(|v| **v == Some(true)).count() as u64;
                    let open = p.values.iter().filter(|v| v.is_none()).count() as u64;
                    let rem = u64::from(t)
                        .checked_sub(trues)
                        .ok_or(CspError::Inconsistent)?;
                    Some((rem, open))
                }
            },
            values: std::mem::take(&mut p.values),
            queue: (0..between.len()).rev().collect(),
            queued: vec![true; between.len()],
            decided: Vec::new(),
        };
        while let Some(i) = st.queue.pop() {
            st.queued[i] = false;
            let c = between[i];
            let (open, min, max) = tally(c, &st.values)?;
            let (open, min, max) = (u64::from(open), u64::from(min), u64::from(max));
            // With a total, the trues inside and outside the constraint add up to what is left.
            let (lo, hi, outside) = match st.left {
                None => (min, max, None),
                Some((rem, all_open)) => {
                    let rest = all_open - open;
                    let (lo, hi) = (min.max(rem.saturating_sub(rest)), max.min(rem));
                    if lo > hi {
                        return Err(CspError::Inconsistent);
                    }
                    // The undecided variables outside hold `rem - hi ..= rem - lo` trues.
                    let outside = if rest == 0 {
                        None
                    } else if rem == lo {
                        Some(false)
                    } else if rem - hi == rest {
                        Some(true)
                    } else {
                        None
                    };
                    (lo, hi, outside)
                }
            };
            if open > 0 && (hi == 0 || lo == open) {
                let value = lo == open;
                for &v in &c.vars {
                    st.set(v, value, &of_var);
                }
            } else if let Some(value) = outside {
                for v in 0..n {
                    if c.vars.binary_search(&v).is_err() {
                        st.set(v, value, &of_var);
                    }
                }
            }
        }
        let decided = std::mem::take(&mut st.decided);
        p.values = st.values;
        // The propagator sees decided values only through its constraints and the total.
        let rerun = decided.iter().any(|&(v, _)| in_exact[v])
            || (work.total.is_some() && !decided.is_empty());
        if !rerun {
            for c in &between {
                let (open, min, max) = tally(c, &p.values)?;
                if open > 0 && (min > 0 || max < open) {
                    let vars = c.vars.iter().copied().filter(|&v| p.values[v].is_none());
                    p.rows.push((vars.collect(), min, max));
                }
            }
            return Ok(p);
        }
        work.constraints
            .extend(decided.into_iter().map(|(v, value)| Constraint {
                vars: vec![v],
                min: u32::from(value),
                max: u32::from(value),
            }));
    }
}

/// The worklist of [`run_between`]'s rules for "between" constraints.
struct BetweenState {
    /// With a total: the trues still to place, and the undecided variables.
    left: Option<(u64, u64)>,
    values: Vec<Option<bool>>,
    /// Constraints to look at (again), and whether each is queued.
    queue: Vec<usize>,
    queued: Vec<bool>,
    /// The values decided, in order.
    decided: Vec<(usize, bool)>,
}

impl BetweenState {
    /// Decides `v` (if undecided) and queues the "between" constraints it is in.
    fn set(&mut self, v: usize, value: bool, of_var: &[Vec<usize>]) {
        if self.values[v].is_some() {
            return;
        }
        self.values[v] = Some(value);
        self.decided.push((v, value));
        if let Some((rem, open)) = &mut self.left {
            *open -= 1;
            *rem = rem.saturating_sub(u64::from(value));
        }
        for &j in &of_var[v] {
            if !std::mem::replace(&mut self.queued[j], true) {
                self.queue.push(j);
            }
        }
    }
}

fn run_tuned(csp: &BoolCsp, tuning: Tuning) -> Result<Propagated, CspError> {
    if csp
        .constraints
        .iter()
        .any(|c| c.vars.len() > tuning.short_row as usize)
    {
        run_with::<true>(csp, tuning)
    } else {
        run_with::<false>(csp, tuning)
    }
}

fn run_with<const MARKS: bool>(csp: &BoolCsp, tuning: Tuning) -> Result<Propagated, CspError> {
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
        // Only "exactly" constraints come here (`run` sends the others to `run_between`).
        count.push(c.min);
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
    // Rows only shrink, and short ones never keep gone entries: without a long row, no
    // entry is ever marked.
    let gone = if MARKS {
        vec![0; cells.len().div_ceil(64)]
    } else {
        Vec::new()
    };
    let stored = if MARKS {
        len[..nord].to_vec()
    } else {
        Vec::new()
    };
    let mut queue = Vec::with_capacity(nord);
    let mut long_queue = Vec::new();
    for r in (0..nord).rev() {
        if len[r] > tuning.long_row {
            long_queue.push(r);
        } else {
            queue.push(r);
        }
    }
    let mut st = State::<MARKS> {
        start,
        stored,
        cells,
        gone,
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
        queue,
        long_queue,
        queued: vec![true; nrows],
        total_dirty: total_row.is_some(),
        mark: vec![0; nrows],
        stamp: 0,
        parts: Default::default(),
        nbuf: Vec::new(),
        tuning,
    };
    st.run()?;
    let rows = (0..nord)
        .filter(|&r| st.alive[r])
        .map(|r| {
            let vars = st.live(r).map(|d| orig[d as usize]).collect();
            (vars, st.count[r], st.count[r])
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
/// its size makes them true (and a "between" constraint whose maximum is reached makes the
/// rest false, one that needs all its undecided variables makes them true); of the "exactly"
/// constraints, two identical ones must agree; when one constraint's set
/// is a subset of another's, the larger is reduced to the difference; for two overlapping
/// constraints, the bounds on the number of trues in their intersection can decide the
/// intersection or either difference. The global total takes part as a constraint over all
/// variables (with "between" constraints too: what they hold and what the rest of the
/// variables hold add up to the total).
/// Every value returned holds in all solutions (vacuously when there are none, which
/// propagation does not always notice), but not every forced value is found;
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
    use super::{SHORT_ROW, TUNING, Tuning, for_each_bit, lopsided, merge, run_tuned};
    use crate::{BoolCsp, CspError};
    use proptest::prelude::*;

    /// Representations forced to their extremes: every row waiting as a long one, marking
    /// its leaving variables and compacted as soon as they outnumber the others, rows always
    /// or never compared by lookup, short rows shifting.
    const EXTREMES: [Tuning; 5] = [
        TUNING,
        Tuning {
            long_row: 0,
            short_row: 0,
            slack: 0,
            lookup: Some(true),
        },
        Tuning {
            long_row: 1,
            short_row: 0,
            slack: 0,
            lookup: Some(false),
        },
        Tuning {
            long_row: 3,
            short_row: 2,
            slack: 1,
            lookup: None,
        },
        Tuning {
            long_row: 2,
            short_row: 11,
            slack: 0,
            lookup: Some(true),
        },
    ];

    /// Whether the pairwise rules would still decide something, or reduce a row, for two
    /// rows of undecided variables (sorted) and their counts.
    fn pair_rule_applies((a, ca): (&[usize], u32), (b, cb): (&[usize], u32)) -> bool {
        let inter = a.iter().filter(|v| b.binary_search(v).is_ok()).count() as u32;
        let (la, lb) = (a.len() as u32, b.len() as u32);
        if inter == 0 {
            return false;
        }
        if inter == la || inter == lb {
            return true;
        }
        let (only_a, only_b) = (la - inter, lb - inter);
        let xmin = ca.saturating_sub(only_a).max(cb.saturating_sub(only_b));
        let xmax = inter.min(ca).min(cb);
        xmin > xmax
            || ca == xmin
            || ca - xmax == only_a
            || cb == xmin
            || cb - xmax == only_b
            || xmax == 0
            || xmin == inter
    }

    /// Sets the total to the hidden assignment's trues shifted by `shift` (if any); returns
    /// every assignment of the variables and the number of solutions among them.
    fn with_total(
        csp: &mut BoolCsp,
        hidden: &[bool],
        shift: Option<i32>,
    ) -> (Vec<Vec<bool>>, usize) {
        let n = hidden.len();
        if let Some(shift) = shift {
            let trues = hidden.iter().filter(|&&b| b).count() as i32;
            csp.set_total((trues + shift).max(0) as u32);
        }
        let assignments: Vec<Vec<bool>> = (0u32..1 << n)
            .map(|m| (0..n).map(|v| m >> v & 1 == 1).collect())
            .collect();
        let solutions = assignments
            .iter()
            .filter(|a| csp.is_satisfied_by(a))
            .count();
        (assignments, solutions)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Whatever the thresholds, the decided values, the reduced rows and the total admit
        /// exactly the solutions of the original problem (by enumerating every assignment),
        /// and a contradiction is reported only for a problem without solutions.
        #[test]
        fn reduced_problem_has_the_same_solutions(
            n in 1usize..=11,
            hidden in prop::collection::vec(any::<bool>(), 11),
            rows in prop::collection::vec(
                (prop::collection::vec(prop::bool::weighted(0.5), 11), -1i32..=1, 0u8..4),
                0..=7,
            ),
            total in prop::option::of(-1i32..=1),
        ) {
            let mut csp = BoolCsp::new(n);
            for (mask, shift, dense) in &rows {
                // Some rows cover nearly everything, so that short rows meet long ones.
                let vars: Vec<usize> = (0..n).filter(|&v| mask[v] || *dense == 0).collect();
                let trues = vars.iter().filter(|&&v| hidden[v]).count() as i32;
                // Counts from the hidden assignment, now and then off by one.
                let shift = if *dense == 1 { *shift } else { 0 };
                let _ = csp.exactly(&vars, (trues + shift).max(0) as u32);
            }
            let (assignments, solutions) = with_total(&mut csp, &hidden[..n], total);
            for tuning in EXTREMES {
                match run_tuned(&csp, tuning) {
                    Err(e) => {
                        prop_assert_eq!(e, CspError::Inconsistent);
                        prop_assert_eq!(solutions, 0, "false contradiction with {:?}", tuning);
                    }
                    Ok(p) => {
                        for a in &assignments {
                            let trues = |vars: &[usize]| vars.iter().filter(|&&v| a[v]).count() as u32;
                            let reduced = p.values.iter().zip(a).all(|(v, x)| v.is_none_or(|v| v == *x))
                                && p.rows.iter().all(|(vars, count, _)| trues(vars) == *count)
                                && csp.total().is_none_or(|t| trues(&(0..n).collect::<Vec<_>>()) == t);
                            prop_assert_eq!(
                                reduced,
                                csp.is_satisfied_by(a),
                                "assignment {:?} with {:?}: {:?}",
                                a,
                                tuning,
                                p
                            );
                        }
                        for (r, (vars, count, max)) in p.rows.iter().enumerate() {
                            prop_assert_eq!(count, max);
                            prop_assert!(vars.windows(2).all(|w| w[0] < w[1]));
                            prop_assert!(0 < *count && (*count as usize) < vars.len());
                            prop_assert!(vars.iter().all(|&v| p.values[v].is_none()));
                            // A fixpoint: no two rows left that the rules would act on.
                            for (other, c, _) in &p.rows[r + 1..] {
                                prop_assert!(
                                    !pair_rule_applies((vars, *count), (other, *c)),
                                    "rows {:?} and {:?} left with {:?}",
                                    (vars, count),
                                    (other, c),
                                    tuning
                                );
                            }
                        }
                    }
                }
            }
        }

        /// With "between" constraints among the "exactly" ones, the decided values and the
        /// reduced rows admit exactly the solutions of the original problem, each reduced row
        /// is over undecided variables and decides nothing on its own, and a contradiction is
        /// reported only for a problem without solutions.
        #[test]
        fn between_constraints_keep_the_solutions(
            n in 1usize..=10,
            hidden in prop::collection::vec(any::<bool>(), 10),
            rows in prop::collection::vec(
                (prop::collection::vec(prop::bool::weighted(0.4), 10), 0u8..5, -1i32..=1, 0u32..3),
                1..=6,
            ),
            total in prop::option::of(-1i32..=1),
        ) {
            let mut csp = BoolCsp::new(n);
            for (mask, kind, shift, width) in &rows {
                let vars: Vec<usize> = (0..n).filter(|&v| mask[v]).collect();
                let trues = vars.iter().filter(|&&v| hidden[v]).count() as i32;
                let t = (trues + shift).max(0) as u32;
                let _ = match kind {
                    0 => csp.exactly(&vars, t),
                    1 => csp.at_most(&vars, t),
                    2 => csp.at_least(&vars, t),
                    _ => csp.between(&vars, t.saturating_sub(*width), t + width),
                };
            }
            let (assignments, solutions) = with_total(&mut csp, &hidden[..n], total);
            match super::run(&csp) {
                Err(e) => {
                    prop_assert_eq!(e, CspError::Inconsistent);
                    prop_assert_eq!(solutions, 0, "false contradiction");
                }
                Ok(p) => {
                    for a in &assignments {
                        let trues = |vars: &[usize]| vars.iter().filter(|&&v| a[v]).count() as u32;
                        let reduced = p.values.iter().zip(a).all(|(v, x)| v.is_none_or(|v| v == *x))
                            && p.rows.iter().all(|(vars, min, max)| (*min..=*max).contains(&trues(vars)))
                            && csp.total().is_none_or(|t| trues(&(0..n).collect::<Vec<_>>()) == t);
                        prop_assert_eq!(reduced, csp.is_satisfied_by(a), "{:?}: {:?}", a, p);
                    }
                    for (vars, min, max) in &p.rows {
                        let len = vars.len() as u32;
                        prop_assert!(vars.windows(2).all(|w| w[0] < w[1]));
                        prop_assert!(vars.iter().all(|&v| p.values[v].is_none()));
                        prop_assert!(min <= max && *max <= len && *max > 0 && *min < len);
                        prop_assert!(*min > 0 || *max < len);
                    }
                }
            }
        }
    }

    /// Two rows overlapping a third bound the cells they share from both sides: here that
    /// forces variables 1, 6 and 8, which one side alone leaves open. Every value
    /// propagation proves is the one all four solutions share, and it proves them all.
    #[test]
    fn overlaps_are_bounded_from_both_rows() {
        let mut csp = BoolCsp::new(9);
        csp.exactly(&[0, 1, 3, 4, 6, 7, 8], 2).unwrap();
        csp.exactly(&[2, 4, 5, 6, 7, 8], 3).unwrap();
        csp.exactly(&[0, 2, 3, 4, 5, 7], 4).unwrap();
        let solutions: Vec<u32> = (0..1u32 << 9)
            .filter(|&m| {
                csp.constraints().iter().all(|c| {
                    let on = c.vars.iter().filter(|&&v| m >> v & 1 == 1).count() as u32;
                    (c.min..=c.max).contains(&on)
                })
            })
            .collect();
        assert_eq!(solutions.len(), 4);
        let shared: Vec<Option<bool>> = (0..9)
            .map(|v| {
                let on = solutions.iter().filter(|&&m| m >> v & 1 == 1).count();
                (on == 0 || on == 4).then_some(on == 4)
            })
            .collect();
        assert_eq!(crate::propagate(&csp).unwrap(), shared);
        let (n, t, f) = (None, Some(true), Some(false));
        assert_eq!(shared, [n, f, t, n, n, t, f, n, f]);
    }

    /// A "between" constraint beside the total decides what lies outside it, and what lies
    /// inside: at most 2 of 0..3 with 4 trues among 5 makes 3 and 4 true (and then, with 0
    /// fixed false, 1 and 2 true); at least 3 of 0..4 with a total of 3 makes 4 false.
    /// Two overlapping rows force the part of either that lies outside the other: with
    /// `x0 + x1 = 1`, `x1 + x2 + x3 + x4 = 1`, `x3` false and two mines in all, `x2 + x4`
    /// must be 1, so `x1` is false and `x0` true, whichever row comes first.
    #[test]
    fn overlapping_rows_force_the_outside_part_of_either() {
        for first_short in [true, false] {
            let mut csp = BoolCsp::new(5);
            let (short, long) = (vec![0, 1], vec![1, 2, 3, 4]);
            if first_short {
                csp.exactly(&short, 1).unwrap();
                csp.exactly(&long, 1).unwrap();
            } else {
                csp.exactly(&long, 1).unwrap();
                csp.exactly(&short, 1).unwrap();
            }
            csp.fix(3, false).unwrap();
            csp.set_total(2);
            assert_eq!(
                super::run(&csp).unwrap().values,
                [Some(true), Some(false), None, Some(false), None],
                "short row first: {first_short}"
            );
        }
    }

    #[test]
    fn between_constraints_meet_the_total() {
        let mut csp = BoolCsp::new(5);
        csp.at_most(&[0, 1, 2], 2).unwrap();
        csp.set_total(4);
        let values = super::run(&csp).unwrap().values;
        assert_eq!(values, [None, None, None, Some(true), Some(true)]);
        csp.fix(0, false).unwrap();
        assert_eq!(
            super::run(&csp).unwrap().values,
            [Some(false), Some(true), Some(true), Some(true), Some(true)]
        );
        let mut csp = BoolCsp::new(5);
        csp.at_least(&[0, 1, 2, 3], 3).unwrap();
        csp.set_total(3);
        assert_eq!(super::run(&csp).unwrap().values[4], Some(false));
        csp.set_total(2);
        assert_eq!(super::run(&csp).unwrap_err(), CspError::Inconsistent);
    }

    /// A "between" constraint must hold at least what the undecided variables outside it
    /// cannot: at most 1 of 0..3 with 4 trues among 5 leaves at least 2 inside, a
    /// contradiction (a bound one lower lets it pass); with 3 trues the one inside leaves
    /// exactly 2 for the two outside, which are true.
    #[test]
    fn between_constraints_hold_what_the_rest_cannot() {
        let mut csp = BoolCsp::new(5);
        csp.at_most(&[0, 1, 2], 1).unwrap();
        csp.set_total(4);
        assert_eq!(super::run(&csp).unwrap_err(), CspError::Inconsistent);
        assert_eq!(crate::propagate(&csp), Err(CspError::Inconsistent));
        csp.set_total(3);
        assert_eq!(
            super::run(&csp).unwrap().values,
            [None, None, None, Some(true), Some(true)]
        );
    }

    #[test]
    fn bits_are_listed_across_words() {
        let mut seen = Vec::new();
        for_each_bit(&[0b1010_0001, 0, 1 << 3 | 1 << 63], |d| seen.push(d));
        assert_eq!(seen, [0, 5, 7, 131, 191]);
    }

    #[test]
    fn sorted_lists_split_into_differences_and_intersection() {
        let mut parts: [Vec<u32>; 3] = Default::default();
        let (a, b) = ([1, 4, 6, 9, 70], [0, 3, 4, 5, 9, 80, 81]);
        // Position 1 of `b` (3) has left its list.
        merge(&a, |_| false, &b, |k| k == 1, |part, d| parts[part].push(d));
        assert_eq!(parts[0], [1, 6, 70]);
        assert_eq!(parts[1], [0, 5, 80, 81]);
        assert_eq!(parts[2], [4, 9]);
    }

    #[test]
    fn binary_search_only_against_a_much_longer_list() {
        // Short rows are always walked together.
        assert!(!lopsided(8, 8, SHORT_ROW));
        assert!(!lopsided(1, 64, SHORT_ROW));
        assert!(!lopsided(0, 1, SHORT_ROW));
        assert!(lopsided(1, 65, SHORT_ROW));
        assert!(!lopsided(10, 65, SHORT_ROW));
        assert!(lopsided(2, 1000, SHORT_ROW));
        assert!(!lopsided(1000, 10_000, SHORT_ROW));
        assert!(lopsided(1, u32::MAX, SHORT_ROW));
    }
}
