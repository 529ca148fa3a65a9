//! Exact expected shot counts on small boards.
//!
//! How good is the greedy posterior shooter, really? Against uniformly random fleets the
//! game is a one-player decision problem under uncertainty, and on small boards it can be
//! solved exactly: every labelled fleet is enumerated, a state of knowledge is the set of
//! fleets still consistent with the answers (plus the cells already shot), and
//!
//! - [`Strategy::Optimal`] takes, in every state, the shot minimising the expected number of
//!   shots to the end (expectimax over the answers, memoised on the state);
//! - [`Strategy::Greedy`] takes the shot most likely to hit, averaging over ties exactly as
//!   the seeded tie-break of [`PosteriorShooter`](crate::shooters::PosteriorShooter) does in
//!   expectation.
//!
//! The gap between the two is the price of greedy play, measured rather than guessed. Three
//! exact shortcuts keep the search small without changing its value: a cell that holds a ship
//! in every consistent fleet is shot at once (it must be shot some time, and shooting it
//! first only brings its answer earlier); a shot whose lower bound (one shot plus the
//! ship cells still to hit) cannot beat the best shot found is skipped; and a state whose
//! fleets all have the same cells left to hit is worth exactly that many shots, under every
//! strategy, without a search.
//!
//! ```
//! use battleship::optimal::{ExactLimits, Strategy, exact_mean_shots};
//! use battleship::{Geometry, Rules};
//!
//! // One ship of length 2 on a 1x4 strip: shoot cell 1 or 2 first; 8/3 shots on average.
//! let geo = Geometry::new(&Rules::with_lengths(4, 1, &[2]))?;
//! let best = exact_mean_shots(&geo, Strategy::Optimal, &ExactLimits::default())?;
//! assert!((best.mean_shots - 8.0 / 3.0).abs() < 1e-12);
//! assert_eq!(best.fleets, 3);
//! # Ok::<(), battleship::Error>(())
//! ```

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::sync::Arc;

use crate::Error;
use crate::game::Shot;
use crate::rules::{Adjacency, Feedback, Geometry, MAX_CELLS, cells_of};

/// Which shot is taken in each state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// The shot with the least expected number of shots to the end.
    Optimal,
    /// The shot most likely to hit; ties are averaged (a uniformly random tie-break).
    Greedy,
    /// The shot most likely to hit, the lowest cell index among ties: one line of play per
    /// answer, so far cheaper to value than [`Strategy::Greedy`].
    GreedyFirst,
}

/// Size limits of the exact computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExactLimits {
    /// Most labelled fleets enumerated.
    pub max_fleets: usize,
    /// Most distinct knowledge states stored (the states left out of the memo, where a
    /// single line of play is left or greedy play is valued from at most a few fleets, are
    /// not counted).
    pub max_states: usize,
}

impl Default for ExactLimits {
    fn default() -> Self {
        ExactLimits {
            max_fleets: 200_000,
            max_states: 20_000_000,
        }
    }
}

/// The exact value of a strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactValue {
    /// Expected number of shots to sink every ship, over uniformly random fleets.
    pub mean_shots: f64,
    /// Labelled fleets on the board.
    pub fleets: usize,
    /// Knowledge states stored in the memo.
    pub states: usize,
    /// The first shots the strategy takes (optimal: every first shot achieving the value;
    /// greedy: its tied first shots).
    pub first_shots: Vec<usize>,
}

/// The expected number of shots `strategy` needs against a uniformly random fleet of `geo`.
///
/// # Errors
/// [`Error::TooLarge`] beyond `limits`, [`Error::Rules`] under salvo rules (one shot per turn
/// only).
pub fn exact_mean_shots(
    geo: &Arc<Geometry>,
    strategy: Strategy,
    limits: &ExactLimits,
) -> Result<ExactValue, Error> {
    if geo.rules().salvo > 1 {
        return Err(Error::Rules(
            "exact shot counts are computed for one shot per turn".into(),
        ));
    }
    let fleets = all_fleets(geo, limits.max_fleets)?;
    let n = fleets.len();
    let mut solver = Solver::new(geo, fleets, strategy, limits.max_states);
    let all: Vec<u32> = (0..n as u32).collect();
    let fp = all
        .iter()
        .fold(0u128, |a, &f| a ^ solver.zobrist[f as usize]);
    let (mean_shots, _, first) = solver.value(&all, fp, 0, 0, f64::INFINITY, true)?;
    Ok(ExactValue {
        mean_shots,
        fleets: n,
        states: solver.memo.len(),
        first_shots: first,
    })
}

/// For each of `candidates`: the exact expected number of shots to the end when it is fired
/// now and `then` plays on, from the position where `fleets` (per-ship cell masks) are the
/// fleets still consistent with what was seen, `shots` the cells fired at and `hits` the hits
/// among them. This is one step of policy improvement: taking the best candidate and then
/// greedy play is never worse in expectation than greedy play alone.
///
/// # Errors
/// [`Error::TooLarge`] past `max_states` knowledge states, [`Error::Inconsistent`] without
/// fleets, [`Error::InvalidFleet`] for a fleet without one mask per ship of the rules,
/// [`Error::Shot`] for a candidate already shot or off the board.
pub fn shot_values(
    geo: &Geometry,
    fleets: Vec<Vec<u128>>,
    shots: u128,
    hits: u128,
    candidates: &[usize],
    then: Strategy,
    max_states: usize,
) -> Result<Vec<f64>, Error> {
    let (values, complete) =
        shot_values_within(geo, fleets, shots, hits, candidates, then, max_states)?;
    if complete {
        Ok(values)
    } else {
        Err(Error::TooLarge(format!(
            "more than {max_states} knowledge states"
        )))
    }
}

/// As [`shot_values`], but a search that runs out of room keeps what it found: the values
/// of the candidates valued, in order, before `max_states` knowledge states were stored, and
/// whether that is all of them. Taking the best of those is still one step of policy
/// improvement, over fewer candidates, so a caller can bound the work of a decision without
/// losing it.
///
/// # Errors
/// As [`shot_values`], except [`Error::TooLarge`].
pub fn shot_values_within(
    geo: &Geometry,
    fleets: Vec<Vec<u128>>,
    shots: u128,
    hits: u128,
    candidates: &[usize],
    then: Strategy,
    max_states: usize,
) -> Result<(Vec<f64>, bool), Error> {
    if fleets.is_empty() {
        return Err(Error::Inconsistent);
    }
    let cells = geo.rules().cells();
    if let Some(&c) = candidates
        .iter()
        .find(|&&c| c >= cells || shots >> c & 1 == 1)
    {
        return Err(Error::Shot(format!(
            "cell {c} is off the board or already shot"
        )));
    }
    let ships = geo.rules().fleet.len();
    if let Some(f) = fleets.iter().find(|f| f.len() != ships) {
        return Err(Error::InvalidFleet(format!(
            "{} ship masks given for a fleet of {ships} ships",
            f.len()
        )));
    }
    let n = fleets.len();
    let mut solver = Solver::new(geo, fleets, then, max_states);
    let all: Vec<u32> = (0..n as u32).collect();
    let mut out = Vec::with_capacity(candidates.len());
    for &c in candidates {
        let m = 1u128 << c;
        let mut v = 1.0;
        let (sets, branches) = solver.branches(&all, hits, c);
        for b in &branches {
            if b.over {
                continue;
            }
            let h = if b.shot == Shot::Miss { hits } else { hits | m };
            let set = &sets[b.range.clone()];
            match solver.value(set, b.fp, shots | m, h, f64::INFINITY, false) {
                Ok((sub, _, _)) => v += set.len() as f64 / n as f64 * sub,
                Err(Error::TooLarge(_)) => return Ok((out, false)),
                Err(e) => return Err(e),
            }
        }
        solver.recycle_branches(sets, branches);
        out.push(v);
    }
    Ok((out, true))
}

/// Every labelled fleet of `geo` as per-ship cell masks, by depth-first placement.
fn all_fleets(geo: &Geometry, max: usize) -> Result<Vec<Vec<u128>>, Error> {
    let rules = geo.rules();
    let mut per_ship: Vec<Vec<u128>> = Vec::with_capacity(rules.fleet.len());
    for (i, s) in rules.fleet.iter().enumerate() {
        let mut v = Vec::new();
        for y in 0..rules.height {
            for x in 0..rules.width {
                for vertical in [false, true] {
                    if vertical && s.length == 1 {
                        continue;
                    }
                    if let Some(m) = geo.ship_cells(i, x, y, vertical) {
                        v.push(m);
                    }
                }
            }
        }
        per_ship.push(v);
    }
    let mut out = Vec::new();
    let mut stack = Vec::with_capacity(per_ship.len());
    place(geo, &per_ship, &mut stack, 0, 0, &mut out, max)?;
    Ok(out)
}

fn place(
    geo: &Geometry,
    per_ship: &[Vec<u128>],
    stack: &mut Vec<u128>,
    used: u128,
    blocked: u128,
    out: &mut Vec<Vec<u128>>,
    max: usize,
) -> Result<(), Error> {
    let i = stack.len();
    if i == per_ship.len() {
        if out.len() >= max {
            return Err(Error::TooLarge(format!("more than {max} fleets")));
        }
        out.push(stack.clone());
        return Ok(());
    }
    let no_touch = geo.rules().adjacency == Adjacency::NoTouch;
    for &m in &per_ship[i] {
        if m & (used | blocked) != 0 {
            continue;
        }
        let halo = if no_touch {
            cells_of(m).fold(0u128, |a, c| a | geo.halo(c))
        } else {
            0
        };
        stack.push(m);
        place(geo, per_ship, stack, used | m, blocked | halo, out, max)?;
        stack.pop();
    }
    Ok(())
}

/// The answer to a shot at `cell` against `fleet` (per-ship cells) after `hits`, as the
/// rules give it, and whether it ends the game.
fn answer(fleet: &[u128], hits: u128, cell: usize, feedback: Feedback) -> (Shot, bool) {
    let m = 1u128 << cell;
    let Some(k) = fleet.iter().position(|&c| c & m != 0) else {
        return (Shot::Miss, false);
    };
    let after = hits | m;
    let over = fleet.iter().all(|&c| c & !after == 0);
    let sunk = fleet[k] & !after == 0;
    let shot = match (feedback, sunk) {
        (Feedback::Bare, _) => Shot::Hit { ship: None },
        (Feedback::HitNamesShip, false) => Shot::Hit { ship: Some(k) },
        (_, false) => Shot::Hit { ship: None },
        (Feedback::SunkRevealsCells, true) => Shot::Sunk {
            ship: k,
            cells: Some(fleet[k]),
        },
        (_, true) => Shot::Sunk {
            ship: k,
            cells: None,
        },
    };
    (shot, over)
}

/// The largest set of fleets whose greedy value is not memoised.
const SMALL_SET: usize = 8;

struct Solver {
    /// Every fleet's per-ship cells, one fleet after another (`ships` each): one block of
    /// memory, read fleet by fleet in every state of the search.
    fleets: Vec<u128>,
    ships: usize,
    union: Vec<u128>,
    zobrist: Vec<u128>,
    feedback: Feedback,
    strategy: Strategy,
    ship_cells: u32,
    cells: usize,
    max_states: usize,
    /// Per state: its value, or a lower bound (`false`).
    memo: HashMap<(u128, u128), (f64, bool), BuildHasherDefault<KeyHasher>>,
    /// Lists of fleets no longer in use, for [`Solver::branches`] to reuse.
    spare: Vec<Vec<u32>>,
    /// Lists of answer classes and of cells no longer in use: every state needs one of
    /// each, and reusing them saves an allocation apiece.
    spare_branches: Vec<Vec<Branch>>,
    spare_cells: Vec<Vec<usize>>,
}

/// Hashes memo keys, which need no protection against chosen collisions: every state's key
/// holds a fingerprint of pseudo-random 128-bit words, so mixing the words with one
/// multiplication spreads them well, at a fraction of the default hasher's cost.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        // The table indexes by the low bits: fold the well-mixed high half into them.
        self.0 ^ self.0 >> 29
    }
}

/// One answer class of a shot: the answer, whether the game ends, where the fleets giving
/// it lie in the list [`Solver::branches`] returns with it, and their fingerprint.
struct Branch {
    shot: Shot,
    over: bool,
    range: Range<usize>,
    fp: u128,
}

impl Solver {
    fn new(
        geo: &Geometry,
        fleets: Vec<Vec<u128>>,
        strategy: Strategy,
        max_states: usize,
    ) -> Solver {
        let union = fleets
            .iter()
            .map(|f| f.iter().fold(0, |a, &c| a | c))
            .collect();
        let ships = geo.rules().fleet.len();
        let flat = fleets.iter().flat_map(|f| f.iter().copied()).collect();
        // Fingerprints of fleet sets: XOR of fixed pseudo-random 128-bit keys (splitmix64).
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let zobrist = (0..fleets.len())
            .map(|_| u128::from(next()) << 64 | u128::from(next()))
            .collect();
        let rules = geo.rules();
        Solver {
            fleets: flat,
            ships,
            union,
            zobrist,
            feedback: rules.feedback,
            strategy,
            ship_cells: rules.fleet.iter().map(|s| s.length as u32).sum(),
            cells: rules.cells(),
            max_states,
            memo: HashMap::default(),
            spare: Vec::new(),
            spare_branches: Vec::new(),
            spare_cells: Vec::new(),
        }
    }

    /// The answer classes of a shot at `cell` from the fleets of `set` (`hits` so far),
    /// and the fleets of `set` grouped by class, in their order within each class: a
    /// branch's fleets are the returned list's slice at its `range`. One list for all
    /// classes instead of one per class: this runs in every state of the search. Hand both
    /// back with [`Solver::recycle_branches`] when done with them.
    fn branches(&mut self, set: &[u32], hits: u128, cell: usize) -> (Vec<u32>, Vec<Branch>) {
        let mut out = self.spare_branches.pop().unwrap_or_default();
        out.clear();
        // Each fleet's class, then the class sizes (kept in `range.end` until placed).
        let mut class = self.spare.pop().unwrap_or_default();
        class.clear();
        for &f in set {
            let f = f as usize;
            let (shot, over) = if self.union[f] >> cell & 1 == 0 {
                (Shot::Miss, false)
            } else {
                let fleet = &self.fleets[f * self.ships..(f + 1) * self.ships];
                answer(fleet, hits, cell, self.feedback)
            };
            let z = self.zobrist[f];
            let k = match out.iter().position(|b| b.shot == shot && b.over == over) {
                Some(k) => k,
                None => {
                    out.push(Branch {
                        shot,
                        over,
                        range: 0..0,
                        fp: 0,
                    });
                    out.len() - 1
                }
            };
            let b = &mut out[k];
            b.range.end += 1;
            b.fp ^= z;
            class.push(k as u32);
        }
        let mut start = 0;
        for b in &mut out {
            let len = b.range.end;
            b.range = start..start;
            start += len;
        }
        let mut sets = self.spare.pop().unwrap_or_default();
        sets.clear();
        sets.resize(set.len(), 0);
        for (&f, &k) in set.iter().zip(&class) {
            let r = &mut out[k as usize].range;
            sets[r.end] = f;
            r.end += 1;
        }
        self.recycle(class);
        (sets, out)
    }

    /// Keeps a list of fleets for [`Solver::branches`] to reuse.
    fn recycle(&mut self, list: Vec<u32>) {
        self.spare.push(list);
    }

    /// Keeps the answer classes of [`Solver::branches`] and its list of fleets for reuse.
    fn recycle_branches(&mut self, sets: Vec<u32>, branches: Vec<Branch>) {
        self.spare.push(sets);
        self.spare_branches.push(branches);
    }

    /// The largest chance that one shot hits, over the cells not yet shot.
    fn best_hit_chance(&self, set: &[u32], shots: u128) -> f64 {
        let count = self.counts(set, shots);
        let max = count.iter().copied().max().unwrap_or(0);
        (f64::from(max) / set.len() as f64).min(1.0)
    }

    /// Per cell not in `shots`: how many fleets of `set` have a ship there (on the stack:
    /// this runs in every state of the search).
    fn counts(&self, set: &[u32], shots: u128) -> [u32; MAX_CELLS] {
        let mut count = [0u32; MAX_CELLS];
        for &f in set {
            for c in cells_of(self.union[f as usize] & !shots) {
                count[c] += 1;
            }
        }
        count
    }

    /// The cells not in `shots` where the most fleets of `set` have a ship, and how many.
    /// The counts are kept bit-sliced: plane `k` holds bit `k` of every cell's count, and
    /// adding a fleet is a ripple-carry addition of its cells over the planes, a few word
    /// operations instead of one increment per cell; the highest count is then found plane
    /// by plane from the top.
    fn likeliest(&self, set: &[u32], shots: u128) -> (u128, u32) {
        let mut planes = [0u128; 33];
        let mut used = 0;
        for &f in set {
            let mut carry = self.union[f as usize] & !shots;
            let mut k = 0;
            while carry != 0 {
                let next = planes[k] & carry;
                planes[k] ^= carry;
                carry = next;
                k += 1;
            }
            used = used.max(k);
        }
        let mut top = planes[..used].iter().fold(0, |a, &p| a | p);
        let mut max = 0u32;
        for k in (0..used).rev() {
            if top & planes[k] != 0 {
                top &= planes[k];
                max |= 1 << k;
            }
        }
        (top, max)
    }

    /// The expected number of shots still needed from the state (`set` of consistent fleets
    /// with fingerprint `fp`, `shots` fired, `hits` among them), searched only as far as
    /// needed to show it is at least `beta`: the answer is `(value, true)` when exact and
    /// `(bound, false)` with `bound >= beta` otherwise. At the root also the chosen first
    /// shots.
    fn value(
        &mut self,
        set: &[u32],
        fp: u128,
        shots: u128,
        hits: u128,
        beta: f64,
        root: bool,
    ) -> Result<(f64, bool, Vec<usize>), Error> {
        // One line of play is left when every fleet has the same cells still to hit: each is
        // then a certain hit, so every strategy shoots exactly those. Checked before the
        // memo, and not stored in it: such states are most of a deep search.
        if !root && let Some((&first, rest)) = set.split_first() {
            let left = self.union[first as usize] & !shots;
            if rest
                .iter()
                .all(|&f| self.union[f as usize] & !shots == left)
            {
                return Ok((f64::from(left.count_ones()), true, Vec::new()));
            }
        }
        // Greedy play from a few fleets is cheaper to value again than to look up in a memo
        // of millions of states, where it is hardly ever found (about one lookup in a
        // thousand, measured on endgame positions); the optimal search, which tries every
        // shot order, keeps all its states.
        let memoise = self.strategy == Strategy::Optimal || set.len() > SMALL_SET;
        if memoise
            && !root
            && let Some(&(v, exact)) = self.memo.get(&(shots, fp))
            && (exact || v >= beta)
        {
            return Ok((v, exact, Vec::new()));
        }
        if self.memo.len() >= self.max_states {
            return Err(Error::TooLarge(format!(
                "more than {} knowledge states",
                self.max_states
            )));
        }
        let n = set.len();
        // Greedy play needs only the likeliest cells, which the bit-sliced count gives
        // without counting cell by cell; the optimal search ranks every cell.
        let (cands, max, count) = if self.strategy == Strategy::Optimal {
            let count = self.counts(set, shots);
            let max = count[..self.cells].iter().copied().max().unwrap_or(0);
            let mut cands = self.spare_cells.pop().unwrap_or_default();
            cands.clear();
            if max as usize == n {
                // A certain hit is taken at once (see the module documentation).
                cands.extend(count.iter().position(|&k| k == max));
            } else {
                cands.extend((0..self.cells).filter(|&c| count[c] > 0));
            }
            cands.sort_by_key(|&c| std::cmp::Reverse(count[c]));
            (cands, max, Some(count))
        } else {
            let (top, max) = self.likeliest(set, shots);
            let mut cands = self.spare_cells.pop().unwrap_or_default();
            cands.clear();
            match self.strategy {
                Strategy::GreedyFirst => cands.extend(cells_of(top).take(1)),
                _ => cands.extend(cells_of(top)),
            }
            (cands, max, None)
        };
        if max == 0 {
            // Every ship cell of every fleet is shot: nothing is left to do.
            self.spare_cells.push(cands);
            return Ok((0.0, true, Vec::new()));
        }
        let optimal = self.strategy == Strategy::Optimal;
        let remaining = self.ship_cells - hits.count_ones();
        let mut best = f64::INFINITY;
        let mut best_cells = Vec::new();
        // The least lower bound among candidates cut off before their value was known.
        let mut cut_low = f64::INFINITY;
        let mut sum = 0.0;
        for &c in &cands {
            // What a candidate must beat: the best so far, and the caller's bound (the root
            // wants every tied first shot, so it compares with a margin).
            let target = if optimal {
                if root { best + 1e-9 } else { best.min(beta) }
            } else {
                f64::INFINITY
            };
            let p_hit = f64::from(count.as_ref().map_or(max, |k| k[c])) / n as f64;
            if 1.0 + f64::from(remaining) - p_hit >= target {
                // Sorted by hit chance, so every later candidate is bounded as badly.
                cut_low = cut_low.min(1.0 + f64::from(remaining) - p_hit);
                break;
            }
            let m = 1u128 << c;
            let (sets, branches) = self.branches(set, hits, c);
            // Per answer: a lower bound on what follows it (the ship cells still to hit,
            // plus the chance that the next shot misses). Only the optimal search prunes
            // with them; a greedy value is summed in full, from bounds of zero (an empty
            // list, which does not allocate: this runs in every state of the search).
            let mut lows: Vec<f64> = if optimal {
                branches
                    .iter()
                    .map(|b| {
                        if b.over {
                            0.0
                        } else {
                            let r = remaining - u32::from(b.shot != Shot::Miss);
                            let chance = self.best_hit_chance(&sets[b.range.clone()], shots | m);
                            f64::from(r) + 1.0 - chance
                        }
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let low_of = |lows: &[f64], i: usize| lows.get(i).copied().unwrap_or(0.0);
            let weight = |b: &Branch| b.range.len() as f64 / n as f64;
            let mut low: f64 = 1.0
                + branches
                    .iter()
                    .enumerate()
                    .map(|(i, b)| weight(b) * low_of(&lows, i))
                    .sum::<f64>();
            let mut exact = true;
            for (i, b) in branches.iter().enumerate() {
                if b.over {
                    continue;
                }
                if low >= target {
                    exact = false;
                    break;
                }
                let w = weight(b);
                // The child must stay below this for the candidate to beat `target`.
                let child_beta = low_of(&lows, i) + (target - low) / w;
                let h = if b.shot == Shot::Miss { hits } else { hits | m };
                let child = &sets[b.range.clone()];
                let (sub, sub_exact, _) =
                    self.value(child, b.fp, shots | m, h, child_beta, false)?;
                low += w * (sub - low_of(&lows, i));
                if let Some(l) = lows.get_mut(i) {
                    *l = sub;
                }
                if !sub_exact {
                    exact = false;
                    break;
                }
            }
            self.recycle_branches(sets, branches);
            if !exact {
                cut_low = cut_low.min(low);
                continue;
            }
            let v = low;
            sum += v;
            if !optimal {
                continue;
            }
            if v < best - 1e-9 {
                best = v;
                best_cells.clear();
                best_cells.push(c);
            } else if (v - best).abs() <= 1e-9 {
                best_cells.push(c);
            }
        }
        let (v, exact) = match self.strategy {
            Strategy::Greedy | Strategy::GreedyFirst => (sum / cands.len() as f64, true),
            Strategy::Optimal if best < beta || root => (best, true),
            // Nothing beat the caller's bound: report a lower bound at least `beta`.
            Strategy::Optimal => (best.min(cut_low).max(beta), false),
        };
        if memoise {
            self.memo.insert((shots, fp), (v, exact));
        }
        let first = match (root, self.strategy) {
            (false, _) => {
                self.spare_cells.push(cands);
                Vec::new()
            }
            (true, Strategy::Optimal) => best_cells,
            (true, Strategy::Greedy | Strategy::GreedyFirst) => cands,
        };
        Ok((v, exact, first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::rules::Rules;
    use crate::{Dir, Fleet, ShipPlacement};

    fn rules(w: usize, h: usize, lens: &[usize], adjacency: Adjacency, fb: Feedback) -> Rules {
        Rules {
            adjacency,
            feedback: fb,
            ..Rules::with_lengths(w, h, lens)
        }
    }

    #[test]
    fn answers_match_the_game_engine() {
        for fb in Feedback::ALL {
            let geo = Geometry::new(&rules(4, 4, &[3, 2], Adjacency::Allowed, fb)).unwrap();
            let fleets = all_fleets(&geo, 10_000).unwrap();
            for (i, f) in fleets.iter().enumerate().step_by(7) {
                let placements = f
                    .iter()
                    .map(|&m| {
                        let c0 = m.trailing_zeros() as usize;
                        let dir = if m.count_ones() > 1 && m & (1u128 << (c0 + 1)) == 0 {
                            Dir::Vertical
                        } else {
                            Dir::Horizontal
                        };
                        ShipPlacement {
                            x: c0 % 4,
                            y: c0 / 4,
                            dir,
                        }
                    })
                    .collect();
                let fleet = Fleet::new(&geo, placements).unwrap();
                let mut g = Game::new(Arc::clone(&geo), fleet);
                let mut hits = 0u128;
                // A fixed scan order, shifted per fleet.
                for k in 0..16 {
                    if g.is_over() {
                        break;
                    }
                    let c = (k * 5 + i) % 16;
                    let (want, over) = answer(f, hits, c, fb);
                    let got = g.shoot(c).unwrap();
                    assert_eq!(got, want);
                    assert_eq!(g.is_over(), over);
                    if got != Shot::Miss {
                        hits |= 1u128 << c;
                    }
                }
            }
        }
    }

    #[test]
    fn one_ship_on_a_strip_by_hand() {
        let geo =
            Geometry::new(&rules(4, 1, &[2], Adjacency::Allowed, Feedback::Standard)).unwrap();
        for s in [Strategy::Optimal, Strategy::Greedy] {
            let v = exact_mean_shots(&geo, s, &ExactLimits::default()).unwrap();
            assert!((v.mean_shots - 8.0 / 3.0).abs() < 1e-12, "{s:?} {v:?}");
            assert_eq!(v.first_shots, vec![1, 2]);
        }
        // A strip of five: placements 01 12 23 34. Shooting 1 first: hit (1/2) leaves 01/12,
        // one more guess; miss leaves 23/34 with 3 certain. 1 + 1/2 * 1.5 + 1/2 * 2.5 = 3.
        let geo =
            Geometry::new(&rules(5, 1, &[2], Adjacency::Allowed, Feedback::Standard)).unwrap();
        let v = exact_mean_shots(&geo, Strategy::Optimal, &ExactLimits::default()).unwrap();
        assert!((v.mean_shots - 3.0).abs() < 1e-12, "{v:?}");
    }

    #[test]
    fn likeliest_cells_are_those_counted_most() {
        use rand::{RngExt, SeedableRng};
        let geo = Geometry::new(&rules(
            5,
            5,
            &[3, 2, 2],
            Adjacency::Allowed,
            Feedback::Standard,
        ))
        .unwrap();
        let fleets = all_fleets(&geo, 100_000).unwrap();
        let n = fleets.len();
        let solver = Solver::new(&geo, fleets, Strategy::GreedyFirst, 10);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        for round in 0..300 {
            // Sets from one fleet to all of them, and shots that leave cells or none.
            let size = [1, 2, 7, 100, n][round % 5];
            let set: Vec<u32> = (0..size).map(|_| rng.random_range(0..n as u32)).collect();
            let shots = rng.random::<u128>() & rng.random::<u128>() & ((1u128 << 25) - 1);
            let count = solver.counts(&set, shots);
            let max = count.iter().copied().max().unwrap();
            let want = if max == 0 {
                0
            } else {
                (0..25)
                    .filter(|&c| count[c] == max)
                    .fold(0u128, |m, c| m | 1 << c)
            };
            assert_eq!(solver.likeliest(&set, shots), (want, max), "round {round}");
        }
    }

    #[test]
    fn fleets_of_the_wrong_shape_are_errors() {
        let geo = Geometry::new(&rules(
            4,
            4,
            &[3, 2],
            Adjacency::Allowed,
            Feedback::Standard,
        ))
        .unwrap();
        let fleets = vec![vec![0b111u128]];
        assert!(matches!(
            shot_values(&geo, fleets, 0, 0, &[0], Strategy::GreedyFirst, 100),
            Err(Error::InvalidFleet(_))
        ));
    }

    #[test]
    fn limits_are_errors() {
        let geo = Geometry::new(&rules(
            5,
            5,
            &[3, 2],
            Adjacency::Allowed,
            Feedback::Standard,
        ))
        .unwrap();
        let small = ExactLimits {
            max_fleets: 10,
            max_states: 1000,
        };
        assert!(matches!(
            exact_mean_shots(&geo, Strategy::Optimal, &small),
            Err(Error::TooLarge(_))
        ));
        let few_states = ExactLimits {
            max_fleets: 100_000,
            max_states: 10,
        };
        assert!(matches!(
            exact_mean_shots(&geo, Strategy::Optimal, &few_states),
            Err(Error::TooLarge(_))
        ));
    }
}
