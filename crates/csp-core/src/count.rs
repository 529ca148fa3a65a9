//! Exact counting: components, boxes, enumeration and combination.

use std::borrow::Cow;

use crate::propagate;
use crate::{BigUint, BoolCsp, Budget, CspError};

/// Groups of items stored flat: group `i` is `items[start[i]..start[i + 1]]`.
#[derive(Debug, Clone)]
pub(crate) struct Groups<T> {
    start: Vec<usize>,
    items: Vec<T>,
}

impl<T> Groups<T> {
    fn with_capacity(groups: usize, items: usize) -> Self {
        let mut start = Vec::with_capacity(groups + 1);
        start.push(0);
        Groups {
            start,
            items: Vec::with_capacity(items),
        }
    }

    /// Closes the current group (the items pushed since the last call).
    fn close(&mut self) {
        self.start.push(self.items.len());
    }

    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    pub fn get(&self, i: usize) -> &[T] {
        &self.items[self.start[i]..self.start[i + 1]]
    }

    pub fn iter(&self) -> impl Iterator<Item = &[T]> {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// One independent component: constraints sharing variables, with variables merged into boxes.
#[derive(Debug, Clone)]
pub(crate) struct Component {
    /// Variables of each box, boxes in search order.
    pub boxes: Groups<usize>,
    /// Local constraint indices of each box.
    box_rows: Groups<usize>,
    /// The most trues each local constraint allows.
    row_max: Vec<u32>,
    /// How many fewer it allows at the least (0 for "exactly" constraints).
    row_slack: Vec<u32>,
    /// Number of variables of each local constraint.
    row_size: Vec<u32>,
    /// `binom[b][j - binom_lo[b]] = C(size of box b, j)`, for the `j` its constraints allow:
    /// at most the smallest of their maxima, at least what each of them must take from it.
    binom: Groups<BigUint>,
    /// The smallest number of trues each box can hold (see `binom`).
    binom_lo: Vec<u32>,
    /// Number of variables in the component.
    pub num_vars: usize,
}

/// Everything the counter and the sampler need after propagation.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub values: Vec<Option<bool>>,
    pub components: Vec<Component>,
    pub free_vars: Vec<usize>,
    /// Trues still to place on the unknown variables, when a total is set.
    pub total_rem: Option<u64>,
}

impl Prepared {
    /// The most trues one component may take: what the total leaves, or no limit.
    pub fn max_trues(&self) -> usize {
        self.total_rem
            .map_or(usize::MAX, |t| usize::try_from(t).unwrap_or(usize::MAX))
    }
}

/// A sequence of numbers indexed from `off`: `vals[i]` is the entry of index `off + i`.
#[derive(Debug, Clone)]
pub(crate) struct Dist {
    pub off: usize,
    pub vals: Vec<BigUint>,
}

impl Dist {
    fn unit() -> Dist {
        Dist {
            off: 0,
            vals: vec![BigUint::one()],
        }
    }

    pub fn max_index(&self) -> usize {
        self.off + self.vals.len() - 1
    }

    /// The total weight, as the one entry of a distribution of 0 trues.
    fn folded(&self) -> Dist {
        let mut sum = BigUint::zero();
        for x in &self.vals {
            sum.add_assign(x);
        }
        Dist {
            off: 0,
            vals: vec![sum],
        }
    }

    /// The entry of index `k` (zero outside the stored range).
    pub fn get(&self, k: usize) -> &BigUint {
        k.checked_sub(self.off)
            .and_then(|i| self.vals.get(i))
            .unwrap_or(&ZERO)
    }

    /// `Σ_k self[k] · y(k)`, with `tmp` as scratch.
    fn dot<'a>(&self, y: impl Fn(usize) -> &'a BigUint, tmp: &mut BigUint) -> BigUint {
        let mut acc = BigUint::zero();
        for (i, x) in self.vals.iter().enumerate() {
            let y = y(self.off + i);
            if !x.is_zero() && !y.is_zero() {
                x.mul_into(y, tmp);
                acc.add_assign(tmp);
            }
        }
        acc
    }

    fn conv(&self, other: &Dist) -> Dist {
        let mut vals = vec![BigUint::zero(); self.vals.len() + other.vals.len() - 1];
        let mut tmp = BigUint::zero();
        for (i, a) in self.vals.iter().enumerate() {
            if a.is_zero() {
                continue;
            }
            for (j, b) in other.vals.iter().enumerate() {
                if b.is_zero() {
                    continue;
                }
                a.mul_into(b, &mut tmp);
                vals[i + j].add_assign(&tmp);
            }
        }
        Dist {
            off: self.off + other.off,
            vals,
        }
    }
}

/// The weight of each global number of trues `k` on the components: the number of ways to
/// complete it on the free variables.
#[derive(Debug, Clone)]
pub(crate) enum FreeWeight {
    /// No total: `2^free` whatever `k`.
    Const(BigUint),
    /// Total: `C(free, rem - k)`, stored for `k` in `off..off + vals.len()`, 0 elsewhere.
    Table(Dist),
}

static ZERO: BigUint = BigUint::zero();

impl FreeWeight {
    /// The weights of every number of trues the components `comps` can hold together.
    pub fn for_components(free: usize, total_rem: Option<u64>, comps: &[Dist]) -> FreeWeight {
        let min_k = comps.iter().map(|w| w.off).sum();
        let max_k = comps.iter().map(Dist::max_index).sum();
        FreeWeight::new(free, total_rem, min_k, max_k)
    }

    /// The weights of the numbers of trues `k` in `min_k..=max_k` (the only ones the caller
    /// reads; 0 is returned outside them).
    pub fn new(free: usize, total_rem: Option<u64>, min_k: usize, max_k: usize) -> FreeWeight {
        match total_rem {
            None => FreeWeight::Const(BigUint::pow2(free as u64)),
            Some(rem) => {
                // k in [rem - free, rem] ∩ [min_k, max_k];
                // j = rem - k in [rem - max_k, min(rem - min_k, free)].
                let jlo = rem.saturating_sub(max_k as u64);
                let Some(jhi) = rem.checked_sub(min_k as u64).map(|j| j.min(free as u64)) else {
                    return FreeWeight::Table(Dist {
                        off: 0,
                        vals: Vec::new(),
                    });
                };
                let mut vals = BigUint::binomial_range(free as u64, jlo, jhi);
                if vals.is_empty() {
                    return FreeWeight::Table(Dist {
                        off: 0,
                        vals: Vec::new(),
                    });
                }
                // Index by k = rem - j, increasing.
                vals.reverse();
                FreeWeight::Table(Dist {
                    off: (rem - jhi) as usize,
                    vals,
                })
            }
        }
    }

    pub fn get(&self, k: usize) -> &BigUint {
        match self {
            FreeWeight::Const(c) => c,
            FreeWeight::Table(d) => d.get(k),
        }
    }
}

/// What the components weigh for one another. With a global total, their numbers of trues
/// interact through it, and the distributions are used as they are. Without one the
/// components are independent: each counts for the others by its total weight alone, and
/// folding every distribution to that one entry keeps the tables built from them at one entry
/// each (unfolded, the free variables' `2^free` was copied into an entry for every number of
/// trues the components before could hold).
pub(crate) fn for_combining(comps: &[Dist], total_rem: Option<u64>) -> Cow<'_, [Dist]> {
    match total_rem {
        Some(_) => Cow::Borrowed(comps),
        None => Cow::Owned(comps.iter().map(Dist::folded).collect()),
    }
}

/// Where a table of [`tails`] built from [`for_combining`]'s distributions is read when the
/// components before hold `trues` trues: at `trues` with a global total, at 0 without one
/// (the folded tables have that one entry).
pub(crate) fn combining_index(total_rem: Option<u64>, trues: usize) -> usize {
    match total_rem {
        Some(_) => trues,
        None => 0,
    }
}

/// The completions of a prefix of the components: `tails[c]`, indexed by the number `s` of
/// trues in the components before `c`, is the weighted number of ways to complete them with
/// components `c..` and the free variables (`tails[comps.len()]` is `f` itself, and
/// `tails[0]` holds one entry, the number of solutions). Each table covers only the numbers
/// of trues the components before `c` can hold, so a component whose number of trues is fixed
/// costs one entry, not one per true before it.
pub(crate) fn tails(comps: &[Dist], f: &FreeWeight) -> Vec<Dist> {
    let k = comps.len();
    // The fewest and the most trues the components before `c` can hold.
    let mut lo = vec![0usize; k + 1];
    let mut hi = vec![0usize; k + 1];
    for (c, w) in comps.iter().enumerate() {
        lo[c + 1] = lo[c] + w.off;
        hi[c + 1] = hi[c] + w.max_index();
    }
    let mut tails = vec![
        Dist {
            off: 0,
            vals: Vec::new(),
        };
        k + 1
    ];
    tails[k] = Dist {
        off: lo[k],
        vals: (lo[k]..=hi[k]).map(|s| f.get(s).clone()).collect(),
    };
    let mut tmp = BigUint::zero();
    for c in (0..k).rev() {
        let (w, next) = (&comps[c], &tails[c + 1]);
        let vals = (lo[c]..=hi[c])
            .map(|s| w.dot(|k| next.get(k + s), &mut tmp))
            .collect();
        tails[c] = Dist { off: lo[c], vals };
    }
    tails
}

pub(crate) fn prepare(csp: &BoolCsp) -> Result<Prepared, CspError> {
    let prop = propagate::run(csp)?;
    let n = csp.num_vars;
    let fixed_true = prop.values.iter().filter(|v| **v == Some(true)).count();
    let unknown = prop.values.iter().filter(|v| v.is_none()).count();
    let total_rem = match csp.total {
        None => None,
        Some(t) => {
            let rem = (t as usize)
                .checked_sub(fixed_true)
                .filter(|&r| r <= unknown)
                .ok_or(CspError::Inconsistent)?;
            Some(rem as u64)
        }
    };

    // Union-find over variables, joined through rows.
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut in_row = vec![false; n];
    for (vars, _, _) in &prop.rows {
        for &v in vars {
            in_row[v] = true;
        }
        let r0 = find(&mut parent, vars[0]);
        for &v in &vars[1..] {
            let r = find(&mut parent, v);
            if r != r0 {
                parent[r] = r0;
            }
        }
    }
    let free_vars: Vec<usize> = (0..n)
        .filter(|&v| prop.values[v].is_none() && !in_row[v])
        .collect();
    // Group rows by component root.
    let mut comp_of_root = vec![usize::MAX; n];
    let mut comp_rows: Vec<Vec<usize>> = Vec::new();
    for (ri, (vars, _, _)) in prop.rows.iter().enumerate() {
        let root = find(&mut parent, vars[0]);
        if comp_of_root[root] == usize::MAX {
            comp_of_root[root] = comp_rows.len();
            comp_rows.push(Vec::new());
        }
        comp_rows[comp_of_root[root]].push(ri);
    }
    let components = comp_rows
        .iter()
        .map(|rows| build_component(&prop.rows, rows))
        .collect();
    Ok(Prepared {
        values: prop.values,
        components,
        free_vars,
        total_rem,
    })
}

fn build_component(all_rows: &[(Vec<usize>, u32, u32)], rows: &[usize]) -> Component {
    // (variable, local row) membership pairs, sorted: each variable's rows are contiguous.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (local, &ri) in rows.iter().enumerate() {
        pairs.extend(all_rows[ri].0.iter().map(|&v| (v, local)));
    }
    pairs.sort_unstable();
    // Per variable: its index range in `pairs` (its membership signature).
    let mut var_ranges: Vec<(usize, usize, usize)> = Vec::new(); // (var, start, end)
    for (k, &(v, _)) in pairs.iter().enumerate() {
        match var_ranges.last_mut() {
            Some(last) if last.0 == v => last.2 = k + 1,
            _ => var_ranges.push((v, k, k + 1)),
        }
    }
    let sig = |r: &(usize, usize, usize)| pairs[r.1..r.2].iter().map(|p| p.1);
    var_ranges.sort_by(|a, b| sig(a).cmp(sig(b)).then(a.0.cmp(&b.0)));
    // Boxes: runs of equal signatures.
    let mut box_vars: Vec<(usize, usize)> = Vec::new(); // range in var_ranges
    for k in 0..var_ranges.len() {
        match box_vars.last_mut() {
            Some(last) if sig(&var_ranges[last.0]).eq(sig(&var_ranges[k])) => last.1 = k + 1,
            _ => box_vars.push((k, k + 1)),
        }
    }
    let nb = box_vars.len();
    let nrows = rows.len();
    let row_min: Vec<u32> = rows.iter().map(|&ri| all_rows[ri].1).collect();
    let row_max: Vec<u32> = rows.iter().map(|&ri| all_rows[ri].2).collect();
    let row_size: Vec<u32> = rows.iter().map(|&ri| all_rows[ri].0.len() as u32).collect();
    let mut brows: Groups<usize> = Groups::with_capacity(nb, pairs.len());
    for &(lo, _) in &box_vars {
        brows.items.extend(sig(&var_ranges[lo]));
        brows.close();
    }
    let rows_of = |b: usize| brows.get(b).iter().copied();
    let size_of = |b: usize| box_vars[b].1 - box_vars[b].0;

    let sizes: Vec<usize> = (0..nb).map(size_of).collect();
    let order = search_order(&brows, &sizes, nrows);
    let mut boxes = Groups::with_capacity(nb, var_ranges.len());
    let mut box_rows = Groups::with_capacity(nb, brows.items.len());
    let mut binom = Groups::with_capacity(nb, var_ranges.len() + nb);
    let mut binom_lo = Vec::with_capacity(nb);
    for &b in &order {
        let (lo, hi) = box_vars[b];
        boxes.items.extend(var_ranges[lo..hi].iter().map(|r| r.0));
        boxes.close();
        box_rows.items.extend(rows_of(b));
        box_rows.close();
        // The enumeration never puts more trues in a box than any of its constraints counts,
        // nor fewer than a constraint still needs once all its other variables are true. The
        // table holds only that range: for "exactly n/2 of n" one coefficient, not n/2.
        let s = size_of(b) as u32;
        let most = rows_of(b).map(|r| row_max[r]).fold(s, u32::min);
        let least = rows_of(b)
            .map(|r| row_min[r].saturating_sub(row_size[r] - s))
            .fold(0, u32::max);
        binom
            .items
            .extend(BigUint::binomial_range(s.into(), least.into(), most.into()));
        binom.close();
        binom_lo.push(least);
    }
    Component {
        num_vars: var_ranges.len(),
        boxes,
        box_rows,
        row_slack: row_max.iter().zip(&row_min).map(|(a, b)| a - b).collect(),
        row_max,
        row_size,
        binom,
        binom_lo,
    }
}

/// The order in which the enumeration assigns boxes: greedily, the box that brings a started
/// constraint closest to completion, so that later boxes are determined or pruned early.
///
/// A box's key (smaller is better): whether none of its constraints has started, the fewest
/// boxes left in a started constraint (in any of its constraints while none has started), its
/// number of constraints (more first), its size (smaller first), and its index. A full scan
/// for the smallest key at every step costs time quadratic in the number of boxes; beyond
/// [`SCAN_BOXES`] boxes the same order comes from a heap instead ([`heap_order`]).
fn search_order(brows: &Groups<usize>, sizes: &[usize], nrows: usize) -> Vec<usize> {
    if brows.len() <= SCAN_BOXES {
        scan_order(brows, sizes, nrows)
    } else {
        heap_order(brows, sizes, nrows)
    }
}

/// Up to this many boxes (nearly every component of a Minesweeper position) the full scan is
/// faster than keeping a heap (timed on chains of boxes sharing three constraints each).
const SCAN_BOXES: usize = 100;

/// The search order by a full scan for the smallest key at every step.
fn scan_order(brows: &Groups<usize>, sizes: &[usize], nrows: usize) -> Vec<usize> {
    let nb = brows.len();
    let mut state = OrderState::new(brows, nrows);
    let mut used = vec![false; nb];
    let mut order = Vec::with_capacity(nb);
    for _ in 0..nb {
        let mut best: Option<(usize, OrderKey)> = None;
        for b in (0..nb).filter(|&b| !used[b]) {
            let key = state.key(brows.get(b), sizes[b]);
            if best.is_none_or(|(_, k)| key < k) {
                best = Some((b, key));
            }
        }
        let Some((b, _)) = best else { break };
        used[b] = true;
        order.push(b);
        state.pick(brows.get(b));
    }
    order
}

/// The search order with the boxes waiting in a heap. Picking a box only makes the keys of the
/// boxes sharing a constraint with it smaller, so only those are rekeyed (pushed again), and
/// a stale entry is skipped when it surfaces: the cost is proportional to the pairs of boxes
/// sharing a constraint, not to the square of the number of boxes.
fn heap_order(brows: &Groups<usize>, sizes: &[usize], nrows: usize) -> Vec<usize> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let nb = brows.len();
    let mut state = OrderState::new(brows, nrows);
    // The boxes of each constraint, by a counting sort of the (box, constraint) pairs.
    let mut start = vec![0usize; nrows + 1];
    for (r, &n) in state.row_boxes_left.iter().enumerate() {
        start[r + 1] = start[r] + n;
    }
    let mut fill = start.clone();
    let mut row_boxes = vec![0usize; start[nrows]];
    for b in 0..nb {
        for &r in brows.get(b) {
            row_boxes[fill[r]] = b;
            fill[r] += 1;
        }
    }
    let mut heap: BinaryHeap<Reverse<(OrderKey, usize)>> = (0..nb)
        .map(|b| Reverse((state.key(brows.get(b), sizes[b]), b)))
        .collect();
    let mut used = vec![false; nb];
    let mut rekeyed = vec![usize::MAX; nb];
    let mut order = Vec::with_capacity(nb);
    while let Some(Reverse((key, b))) = heap.pop() {
        if used[b] || key != state.key(brows.get(b), sizes[b]) {
            continue;
        }
        used[b] = true;
        order.push(b);
        state.pick(brows.get(b));
        for &r in brows.get(b) {
            for &other in &row_boxes[start[r]..start[r + 1]] {
                // A box sharing several constraints with `b` is rekeyed once.
                if !used[other] && rekeyed[other] != b {
                    rekeyed[other] = b;
                    heap.push(Reverse((state.key(brows.get(other), sizes[other]), other)));
                }
            }
        }
    }
    order
}

/// `(no constraint started, fewest boxes left, usize::MAX - constraints, size)`.
type OrderKey = (bool, usize, usize, usize);

/// What a box's ordering key depends on.
struct OrderState {
    row_boxes_left: Vec<usize>,
    row_started: Vec<bool>,
}

impl OrderState {
    fn new(brows: &Groups<usize>, nrows: usize) -> Self {
        let mut row_boxes_left = vec![0; nrows];
        for &r in &brows.items {
            row_boxes_left[r] += 1;
        }
        OrderState {
            row_boxes_left,
            row_started: vec![false; nrows],
        }
    }

    /// Records that the box with constraints `rows` comes next.
    fn pick(&mut self, rows: &[usize]) {
        for &r in rows {
            self.row_started[r] = true;
            self.row_boxes_left[r] -= 1;
        }
    }

    fn key(&self, rows: &[usize], size: usize) -> OrderKey {
        let started = rows.iter().any(|&r| self.row_started[r]);
        let closest = rows
            .iter()
            .filter(|&&r| self.row_started[r] || !started)
            .map(|&r| self.row_boxes_left[r])
            .min()
            .unwrap_or(usize::MAX);
        (!started, closest, usize::MAX - rows.len(), size)
    }
}

/// Depth-first enumeration of a component's box assignments.
struct Dfs<'a, F> {
    comp: &'a Component,
    rem: Vec<u32>,
    cap: Vec<u32>,
    js: Vec<u32>,
    weights: Vec<BigUint>,
    nodes: u64,
    max_nodes: u64,
    /// The most trues an assignment may have (the global total's remainder): the boxes
    /// give no more, so that a small total cuts a component's search short.
    max_trues: usize,
    visit: F,
    stop: bool,
}

impl<F: FnMut(&[u32], usize, &BigUint) -> bool> Dfs<'_, F> {
    /// Tries every consistent number of trues in each box, box after box. A loop over an
    /// explicit level rather than recursion, so that a component of many boxes (a long chain
    /// of constraints, cheap to enumerate) does not overflow the stack.
    fn run(&mut self) -> Result<(), CspError> {
        let comp = self.comp;
        let nb = comp.boxes.len();
        // The largest count level `k` may take, and the trues of the boxes before `k`.
        let mut hi_at = vec![0u32; nb];
        let mut m_at = vec![0usize; nb + 1];
        let mut k = 0usize;
        // Whether level `k` is entered afresh, or resumed after the level below it is done.
        let mut entering = true;
        loop {
            let j = if entering {
                if k == nb {
                    if !(self.visit)(&self.js, m_at[k], &self.weights[k]) {
                        self.stop = true;
                    }
                    if k == 0 {
                        return Ok(());
                    }
                    k -= 1;
                    entering = false;
                    continue;
                }
                let s = comp.boxes.get(k).len() as u32;
                let (mut lo, mut hi) = (0, s);
                for &r in comp.box_rows.get(k) {
                    // At most `rem` more trues, at least `rem - slack`.
                    let rem = self.rem[r];
                    let others = self.cap[r] - s;
                    lo = lo.max(rem.saturating_sub(comp.row_slack[r]).saturating_sub(others));
                    hi = hi.min(rem);
                }
                let left = self.max_trues.saturating_sub(m_at[k]);
                hi = hi.min(u32::try_from(left).unwrap_or(u32::MAX));
                if lo > hi {
                    if k == 0 {
                        return Ok(());
                    }
                    k -= 1;
                    entering = false;
                    continue;
                }
                for &r in comp.box_rows.get(k) {
                    self.cap[r] -= s;
                }
                hi_at[k] = hi;
                lo
            } else {
                let j = self.js[k];
                for &r in comp.box_rows.get(k) {
                    self.rem[r] += j;
                }
                if self.stop || j == hi_at[k] {
                    let s = comp.boxes.get(k).len() as u32;
                    for &r in comp.box_rows.get(k) {
                        self.cap[r] += s;
                    }
                    if k == 0 {
                        return Ok(());
                    }
                    k -= 1;
                    continue;
                }
                j + 1
            };
            self.nodes += 1;
            if self.nodes > self.max_nodes {
                return Err(CspError::BudgetExceeded {
                    max_nodes: self.max_nodes,
                    component_vars: comp.num_vars,
                });
            }
            for &r in comp.box_rows.get(k) {
                self.rem[r] -= j;
            }
            self.js[k] = j;
            let (head, tail) = self.weights.split_at_mut(k + 1);
            // The search's bounds lie within the table's: they count the trues already given
            // to the constraints' earlier boxes, the table's the most those could hold.
            let b = &comp.binom.get(k)[(j - comp.binom_lo[k]) as usize];
            if b.is_one() {
                tail[0].clone_from(&head[k]);
            } else {
                head[k].mul_into(b, &mut tail[0]);
            }
            m_at[k + 1] = m_at[k] + j as usize;
            k += 1;
            entering = true;
        }
    }
}

impl Component {
    /// Calls `visit(js, m, weight)` for every consistent box assignment with at most
    /// `max_trues` trues (`js[b]` trues in box `b`, `m` trues in all, `weight` = product of
    /// `C(size, j)`), until it returns `false`. Returns the number of search nodes.
    pub fn enumerate<F: FnMut(&[u32], usize, &BigUint) -> bool>(
        &self,
        max_nodes: u64,
        max_trues: usize,
        visit: F,
    ) -> Result<u64, CspError> {
        let nb = self.boxes.len();
        let mut weights = vec![BigUint::zero(); nb + 1];
        weights[0] = BigUint::one();
        let mut dfs = Dfs {
            comp: self,
            rem: self.row_max.clone(),
            cap: self.row_size.clone(),
            js: vec![0; nb],
            weights,
            nodes: 0,
            max_nodes,
            max_trues,
            visit,
            stop: false,
        };
        dfs.run()?;
        Ok(dfs.nodes)
    }

    /// `W[m]` (weighted number of assignments with `m` trues, for `m` up to `max_trues`)
    /// and, if `marginals`, the weighted number of trues of each box for each `m` (`S[m][b]`,
    /// flattened, same offset).
    pub fn count(
        &self,
        max_nodes: u64,
        max_trues: usize,
        marginals: bool,
    ) -> Result<(Dist, Vec<Vec<BigUint>>, u64), CspError> {
        let nb = self.boxes.len();
        let nm = self.num_vars + 1;
        let mut w = vec![BigUint::zero(); nm];
        let mut s: Vec<Vec<BigUint>> = if marginals {
            vec![Vec::new(); nm]
        } else {
            Vec::new()
        };
        let nodes = self.enumerate(max_nodes, max_trues, |js, m, weight| {
            w[m].add_assign(weight);
            if marginals {
                let row = &mut s[m];
                if row.is_empty() {
                    row.resize(nb, BigUint::zero());
                }
                for (acc, &j) in row.iter_mut().zip(js) {
                    acc.add_mul_u64_assign(weight, u64::from(j));
                }
            }
            true
        })?;
        let lo = w
            .iter()
            .position(|x| !x.is_zero())
            .ok_or(CspError::Inconsistent)?;
        let hi = w.iter().rposition(|x| !x.is_zero()).unwrap_or(lo);
        let w = Dist {
            off: lo,
            vals: w.drain(lo..=hi).collect(),
        };
        if marginals {
            s = s.drain(lo..=hi).collect();
        }
        Ok((w, s, nodes))
    }
}

/// Statistics of an [`analyze`] call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AnalysisStats {
    /// Search nodes (box assignments tried) over all components.
    pub nodes: u64,
    /// Number of boxes (classes of variables with identical constraint membership).
    pub boxes: usize,
    /// Variables decided by propagation before the enumeration.
    pub fixed_by_propagation: usize,
    /// Unknown variables in no constraint (they only matter through the total).
    pub free_vars: usize,
    /// Number of variables of the largest component.
    pub largest_component: usize,
}

/// The exact result of [`analyze`].
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Exact number of satisfying assignments of all `num_vars` variables.
    pub solutions: BigUint,
    /// Probability that each variable is true under the uniform distribution over solutions.
    /// These are exact ratios converted to `f64` (within a few ulps of the nearest `f64`): a variable that is almost certain can show
    /// 1.0 (or 0.0) without being certain; [`Analysis::forced`] says which are.
    pub probabilities: Vec<f64>,
    /// `Some(v)` when the variable has value `v` in every solution.
    pub forced: Vec<Option<bool>>,
    /// Number of independent constrained components (after propagation).
    pub components: usize,
    /// Search statistics.
    pub stats: AnalysisStats,
}

/// Per-component counts after enumeration.
struct Counted {
    comps: Vec<Dist>,
    marg: Vec<Vec<Vec<BigUint>>>,
    stats: AnalysisStats,
}

fn count_components(
    prep: &Prepared,
    budget: &Budget,
    marginals: bool,
) -> Result<Counted, CspError> {
    let mut stats = AnalysisStats {
        fixed_by_propagation: prep.values.iter().filter(|v| v.is_some()).count(),
        free_vars: prep.free_vars.len(),
        ..AnalysisStats::default()
    };
    let mut comps = Vec::with_capacity(prep.components.len());
    let mut marg = Vec::with_capacity(prep.components.len());
    for c in &prep.components {
        let (w, s, nodes) = c.count(budget.max_nodes, prep.max_trues(), marginals)?;
        stats.nodes += nodes;
        stats.boxes += c.boxes.len();
        stats.largest_component = stats.largest_component.max(c.num_vars);
        comps.push(w);
        marg.push(s);
    }
    Ok(Counted { comps, marg, stats })
}

/// Exact analysis: number of solutions, per-variable probabilities and forced values.
///
/// Runs [`propagate`](crate::propagate) first, then enumerates each independent component
/// (see the [crate documentation](crate) for the scheme).
///
/// # Errors
/// - [`CspError::Inconsistent`] if there is no solution;
/// - [`CspError::BudgetExceeded`] if a component needs more than `budget.max_nodes` search
///   nodes (the caller may fall back to [`propagate`](crate::propagate) alone).
pub fn analyze(csp: &BoolCsp, budget: &Budget) -> Result<Analysis, CspError> {
    let prep = prepare(csp)?;
    let Counted { comps, marg, stats } = count_components(&prep, budget, true)?;
    let k = comps.len();
    let combined = for_combining(&comps, prep.total_rem);
    let f = FreeWeight::for_components(prep.free_vars.len(), prep.total_rem, &combined);

    // The completions after each component; the distribution of the trues before it is
    // built up as the loop goes (`prefix`).
    let tails = tails(&combined, &f);
    let solutions = tails[0].get(0).clone();
    if solutions.is_zero() {
        return Err(CspError::Inconsistent);
    }

    let n = csp.num_vars;
    let mut probabilities = vec![0.0; n];
    let mut forced = prep.values.clone();
    for (v, val) in prep.values.iter().enumerate() {
        if let Some(b) = val {
            probabilities[v] = if *b { 1.0 } else { 0.0 };
        }
    }
    let mut tmp = BigUint::zero();
    let mut prefix = Dist::unit();
    for (ci, comp) in prep.components.iter().enumerate() {
        let w = &comps[ci];
        let after = &tails[ci + 1];
        // R[m] = Σ_s prefix[s] · after[s + m]: the completions of m trues in this component
        // (one figure for every m when the components are independent: `r` holds it alone).
        let cw = &combined[ci];
        let r: Vec<BigUint> = (0..cw.vals.len())
            .map(|i| prefix.dot(|k| after.get(k + cw.off + i), &mut tmp))
            .collect();
        for (b, vars) in comp.boxes.iter().enumerate() {
            let mut numer = BigUint::zero();
            for i in 0..w.vals.len() {
                let ri = &r[i.min(r.len() - 1)];
                if let Some(sb) = marg[ci][i].get(b)
                    && !sb.is_zero()
                    && !ri.is_zero()
                {
                    sb.mul_into(ri, &mut tmp);
                    numer.add_assign(&tmp);
                }
            }
            let denom = solutions.mul_u64(vars.len() as u64);
            let p = BigUint::ratio(&numer, &denom);
            let fv = if numer.is_zero() {
                Some(false)
            } else if numer == denom {
                Some(true)
            } else {
                None
            };
            for &v in vars {
                probabilities[v] = p;
                forced[v] = fv;
            }
        }
        prefix = prefix.conv(cw);
    }
    // Now the distribution of the trues of all the components.
    let all = &prefix;
    if !prep.free_vars.is_empty() {
        let (p, fv) = match prep.total_rem {
            None => (0.5, None),
            Some(rem) => {
                // Solutions with one given free variable true: Σ_k G[k] C(free - 1, rem - 1 - k).
                let numer = if rem == 0 {
                    BigUint::zero()
                } else {
                    let g = FreeWeight::new(
                        prep.free_vars.len() - 1,
                        Some(rem - 1),
                        all.off,
                        all.max_index(),
                    );
                    all.dot(|k| g.get(k), &mut tmp)
                };
                let fv = if numer.is_zero() {
                    Some(false)
                } else if numer == solutions {
                    Some(true)
                } else {
                    None
                };
                (BigUint::ratio(&numer, &solutions), fv)
            }
        };
        for &v in &prep.free_vars {
            probabilities[v] = p;
            forced[v] = fv;
        }
    }
    Ok(Analysis {
        solutions,
        probabilities,
        forced,
        components: k,
        stats,
    })
}

/// The exact number of solutions (0 is reported as [`CspError::Inconsistent`], like
/// [`analyze`]). Cheaper than [`analyze`]: no per-variable marginals.
///
/// # Errors
/// As [`analyze`].
pub fn count(csp: &BoolCsp, budget: &Budget) -> Result<BigUint, CspError> {
    let prep = prepare(csp)?;
    let counted = count_components(&prep, budget, false)?;
    let comps = for_combining(&counted.comps, prep.total_rem);
    let all = comps.iter().fold(Dist::unit(), |acc, c| acc.conv(c));
    let f = FreeWeight::for_components(prep.free_vars.len(), prep.total_rem, &comps);
    let solutions = all.dot(|k| f.get(k), &mut BigUint::zero());
    if solutions.is_zero() {
        return Err(CspError::Inconsistent);
    }
    Ok(solutions)
}

/// The fewest and the most true variables over the solutions of `csp`: how many mines the
/// revealed numbers of a Minesweeper position allow, say, once its mine count is cleared.
///
/// With a global total `t` the answer is `(t, t)` when there is a solution. Without one, each
/// component is enumerated once, as by [`count`], and the extremes add up: components and free
/// variables do not constrain each other. Not every number between the two need be reached:
/// "exactly 1 of {a, b}", "of {a, c}" and "of {a, d}" hold with one true (`a`) or three
/// (`b`, `c`, `d`), never two. [`count`] with a number as the total says whether it is.
///
/// ```
/// use csp_core::{BoolCsp, Budget, true_range};
/// let mut csp = BoolCsp::new(5);
/// csp.exactly(&[0, 1, 2], 2)?; // two of the first three
/// csp.fix(3, true)?; // one more, fixed; variable 4 is free
/// assert_eq!(true_range(&csp, &Budget::default())?, (3, 4));
/// csp.set_total(4);
/// assert_eq!(true_range(&csp, &Budget::default())?, (4, 4));
/// # Ok::<(), csp_core::CspError>(())
/// ```
///
/// # Errors
/// As [`count`]: [`CspError::Inconsistent`] without a solution, [`CspError::BudgetExceeded`]
/// when a component needs more search nodes than the budget allows.
pub fn true_range(csp: &BoolCsp, budget: &Budget) -> Result<(usize, usize), CspError> {
    if let Some(t) = csp.total {
        count(csp, budget)?;
        return Ok((t as usize, t as usize));
    }
    let prep = prepare(csp)?;
    let counted = count_components(&prep, budget, false)?;
    let fixed = prep.values.iter().filter(|v| **v == Some(true)).count();
    let fewest = fixed + counted.comps.iter().map(|d| d.off).sum::<usize>();
    let most =
        fixed + prep.free_vars.len() + counted.comps.iter().map(Dist::max_index).sum::<usize>();
    Ok((fewest, most))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A box's table of binomials covers only the numbers of trues its constraints allow: at
    /// most the smallest of their counts, at least what each needs once its other variables
    /// are all true. "Exactly n/2 of n" stores one coefficient (a table from 0 would take
    /// gigabytes at this size, before the search could count a node against its budget).
    /// The total bounds the trues of each component's search: a chain of "at most one of two
    /// neighbours" has billions of solutions, but with one true in all only 60, found in a
    /// few hundred nodes (the search used to enumerate them all, past any budget).
    #[test]
    fn a_small_total_cuts_the_search_short() {
        let n = 60;
        let mut csp = BoolCsp::new(n);
        for i in 0..n - 1 {
            csp.at_most(&[i, i + 1], 1).unwrap();
        }
        csp.set_total(1);
        let a = analyze(&csp, &Budget::default()).unwrap();
        assert_eq!(a.solutions, BigUint::from_u64(60));
        assert!(a.stats.nodes < 10_000, "{} nodes", a.stats.nodes);
        assert!(
            a.probabilities
                .iter()
                .all(|&p| (p - 1.0 / 60.0).abs() < 1e-12)
        );
        csp.set_total(2);
        // C(60, 2) pairs less the 59 adjacent ones.
        assert_eq!(
            count(&csp, &Budget::default()).unwrap(),
            BigUint::from_u64(1711)
        );
        let s = crate::Sampler::new(&csp, &Budget::default()).unwrap();
        let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(3);
        for _ in 0..20 {
            let x = s.sample(&mut rng).unwrap();
            assert_eq!(x.iter().filter(|&&v| v).count(), 2);
            assert!(x.windows(2).all(|w| !(w[0] && w[1])));
        }
    }

    #[test]
    fn a_box_stores_binomials_only_for_the_trues_it_can_hold() {
        let n = 200_000;
        let mut csp = BoolCsp::new(n);
        csp.exactly(&(0..n).collect::<Vec<_>>(), (n / 2) as u32)
            .unwrap();
        let prep = prepare(&csp).unwrap();
        assert_eq!(prep.components.len(), 1);
        assert_eq!(prep.components[0].binom.get(0).len(), 1);
        let a = analyze(&csp, &Budget { max_nodes: 1 }).unwrap();
        assert_eq!(a.solutions, BigUint::binomial(n as u64, n as u64 / 2));

        // Boxes {0..20} (first constraint only), {20..30} (both), {30..50} (second only).
        let table = |first: u32, second: u32| {
            let mut csp = BoolCsp::new(50);
            csp.exactly(&(0..30).collect::<Vec<_>>(), first).unwrap();
            csp.exactly(&(20..50).collect::<Vec<_>>(), second).unwrap();
            let prep = prepare(&csp).unwrap();
            let comp = &prep.components[0];
            let b = (0..3).find(|&b| comp.boxes.get(b).contains(&0)).unwrap();
            // j trues in the shared box.
            let c = |n: u32, k: u32| BigUint::binomial(n.into(), k.into());
            let mut expected = BigUint::zero();
            for j in 0..=first.min(second).min(10) {
                expected += &(&(&c(10, j) * &c(20, first - j)) * &c(20, second - j));
            }
            assert_eq!(count(&csp, &Budget::default()).unwrap(), expected);
            (comp.binom_lo[b], comp.binom.get(b).len())
        };
        // At most 10 of the 20; none needed.
        assert_eq!(table(10, 10), (0, 11));
        // 25 of the first 30: the shared box holds at most 10, so this one at least 15.
        assert_eq!(table(25, 10), (15, 6));
    }

    /// Components whose number of trues is fixed widen nothing: the completion tables hold
    /// one entry each, however many trues come before them.
    #[test]
    fn fixed_components_make_one_entry_tails() {
        let k = 1000;
        let comps: Vec<Dist> = (0..k)
            .map(|_| Dist {
                off: 2,
                vals: vec![BigUint::from_u64(3)],
            })
            .collect();
        let f = FreeWeight::new(10, Some(2 * k as u64 + 4), 2 * k, 2 * k);
        let tails = tails(&comps, &f);
        assert!(tails.iter().all(|t| t.vals.len() == 1));
        assert_eq!(tails[k].off, 2 * k);
        assert_eq!(tails[k].vals[0], BigUint::binomial(10, 4));
        // 3^k layouts of the components times C(10, 4) on the free variables.
        let mut expected = BigUint::binomial(10, 4);
        for _ in 0..k {
            expected.mul_u64_assign(3);
        }
        assert_eq!(*tails[0].get(0), expected);
    }

    proptest! {
        #[test]
        fn the_heap_gives_the_scan_order(
            nrows in 1usize..10,
            boxes in proptest::collection::vec(
                (proptest::collection::btree_set(0usize..10, 1..5), 1usize..4),
                1..80,
            ),
        ) {
            let mut brows = Groups::with_capacity(boxes.len(), 0);
            let mut sizes = Vec::new();
            for (rows, size) in &boxes {
                let mut rows: Vec<usize> = rows.iter().map(|r| r % nrows).collect();
                rows.sort_unstable();
                rows.dedup();
                brows.items.extend(rows);
                brows.close();
                sizes.push(*size);
            }
            prop_assert_eq!(
                heap_order(&brows, &sizes, nrows),
                scan_order(&brows, &sizes, nrows)
            );
        }
    }
}
