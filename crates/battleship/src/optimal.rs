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
//! exact shortcuts keep the search small without changing its value: where what the answers
//! tell does not depend on the order of the shots (every feedback rule but `standard`), a
//! cell that holds a ship in every consistent fleet is shot at once (it must be shot some
//! time, and shooting it first only brings its answer earlier; under `standard` a sinking
//! names the cell that completed the ship, so holding a certain hit back can tell more); a
//! shot whose lower bound (the ship cells still to hit, plus one if it misses: one shot
//! more than those cells, less its chance to hit) cannot beat the best shot found is
//! skipped; and a state whose fleets all have the same cells left to hit is worth exactly
//! that many shots, under every strategy, without a search.
//!
//! ```
//! use battleship::optimal::{ExactLimits, Strategy, exact_mean_shots};
//! use battleship::{Geometry, Rules};
//!
//! // One ship of length 2 on a 4x1 strip: shoot cell 1 or 2 first; 8/3 shots on average.
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
use crate::rules::{Adjacency, Feedback, Geometry, MAX_CELLS, cell_bit, cells_of};

/// Which shot is taken in each state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// not counted). A stored state takes about 120 bytes. The optimal strategy on a 4x4
    /// board with ships 3 and 2 stores 2.8 million; a 4x5 board with the same ships runs
    /// past the default, 4 million, after 16 s of processor time at 0.6 GB, and past 20
    /// million after three minutes at 2.4 GB.
    pub max_states: usize,
    /// Most steps of the search that lists the fleets (one step places one ship): a fleet
    /// crowded onto its board can take a long search to list even few fleets, or none.
    pub max_nodes: u64,
}

impl Default for ExactLimits {
    fn default() -> Self {
        ExactLimits {
            max_fleets: 200_000,
            max_states: 4_000_000,
            max_nodes: 100_000_000,
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
    /// The first shots the strategy takes (optimal: every first shot achieving the value,
    /// except that where some cell is a certain hit and the feedback is not `standard`, only
    /// that cell is listed, as the search considers no other; greedy: its tied first shots).
    pub first_shots: Vec<usize>,
}

/// The expected number of shots `strategy` needs against a uniformly random fleet of `geo`.
///
/// # Errors
/// [`Error::TooLarge`] beyond `limits`, [`Error::Rules`] under salvo rules (one shot per turn
/// only), [`Error::FleetDoesNotFit`] when no fleet can be placed.
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
    let fleets = all_fleets(geo, limits.max_fleets, limits.max_nodes)?;
    let n = fleets.len();
    if n == 0 {
        return Err(Error::FleetDoesNotFit(
            "no placement of the whole fleet exists".into(),
        ));
    }
    let mut solver = Solver::new(geo, fleets, strategy, limits.max_states)?;
    let all: Vec<u32> = (0..n as u32).collect();
    let fp = all.iter().fold(0u128, |a, &f| a ^ zobrist(f as usize));
    let (mean_shots, _, first) = solver.value(
        Node {
            set: &all,
            fp,
            shots: 0,
            hits: 0,
        },
        f64::INFINITY,
        true,
        None,
    )?;
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
/// fleets, [`Error::InvalidFleet`] for a fleet that is not one of the rules (one mask per
/// ship, each a placement of that ship on the board, the ships apart as the adjacency rule
/// requires) or whose ships the shots would not have hit at exactly `hits`, [`Error::Shot`]
/// for a candidate already shot or off the board.
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
    // Each fleet's ships must be placements of theirs on the board that do not overlap
    // (nor touch, under no-touch).
    let width = geo.rules().width;
    let placement = |ship: usize, m: u128| {
        let first = m.trailing_zeros() as usize;
        let (x, y) = (first % width, first / width);
        m != 0
            && (geo.ship_cells(ship, x, y, false) == Some(m)
                || geo.ship_cells(ship, x, y, true) == Some(m))
    };
    let no_touch = geo.rules().adjacency == Adjacency::NoTouch;
    if let Some(i) = fleets.iter().position(|f| {
        f.iter().enumerate().any(|(ship, &m)| !placement(ship, m))
            || f.iter().enumerate().any(|(a, &m)| {
                let near = if no_touch { geo.halo_of(m) } else { m };
                f[..a].iter().any(|&o| o & near != 0)
            })
    }) {
        return Err(Error::InvalidFleet(format!(
            "fleet {i} has a ship mask that is not a placement of its ship on the board, or \
             ships that overlap{}",
            if no_touch { " or touch" } else { "" }
        )));
    }
    // Each fleet must be one the shots could have met: hit exactly where `hits` says.
    if let Some(i) = fleets
        .iter()
        .position(|f| f.iter().fold(0, |u, &m| u | m) & shots != hits)
    {
        return Err(Error::InvalidFleet(format!(
            "fleet {i} does not meet the shots at exactly the hits given"
        )));
    }
    let n = fleets.len();
    let mut solver = Solver::new(geo, fleets, then, max_states)?;
    let all: Vec<u32> = (0..n as u32).collect();
    // Greedy play needs the hit counts of every state; each answer's are derived from the
    // counts of the state before it (see `Solver::branches`), starting from these.
    let root = (then != Strategy::Optimal).then(|| Planes::of(&solver.union, &all, shots));
    let mut out = Vec::with_capacity(candidates.len());
    for &c in candidates {
        let m = 1u128 << c;
        let mut v = 1.0;
        let (sets, branches, planes) = solver.branches(&all, shots, hits, c, root.as_ref());
        for (i, b) in branches.iter().enumerate() {
            if b.over {
                continue;
            }
            let h = if b.shot == Shot::Miss { hits } else { hits | m };
            let set = &sets[b.range.clone()];
            let node = Node {
                set,
                fp: b.fp,
                shots: shots | m,
                hits: h,
            };
            match solver.value(node, f64::INFINITY, false, planes.get(i)) {
                Ok((sub, _, _)) => v += set.len() as f64 / n as f64 * sub,
                Err(Error::TooLarge(_)) => return Ok((out, false)),
                Err(e) => return Err(e),
            }
        }
        solver.recycle_branches(sets, branches, planes);
        out.push(v);
    }
    Ok((out, true))
}

/// Every labelled fleet of `geo` as per-ship cell masks, by depth-first placement.
fn all_fleets(geo: &Geometry, max: usize, max_nodes: u64) -> Result<Vec<Vec<u128>>, Error> {
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
    let mut budget = Budget {
        max_fleets: max,
        nodes_left: max_nodes,
    };
    place(geo, &per_ship, &mut stack, 0, 0, &mut out, &mut budget)?;
    Ok(out)
}

/// What the fleet listing may still spend.
struct Budget {
    max_fleets: usize,
    nodes_left: u64,
}

fn place(
    geo: &Geometry,
    per_ship: &[Vec<u128>],
    stack: &mut Vec<u128>,
    used: u128,
    blocked: u128,
    out: &mut Vec<Vec<u128>>,
    budget: &mut Budget,
) -> Result<(), Error> {
    let max = budget.max_fleets;
    if budget.nodes_left == 0 {
        return Err(Error::TooLarge(
            "the search for the fleets ran past its node budget".into(),
        ));
    }
    budget.nodes_left -= 1;
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
        let halo = if no_touch { geo.halo_of(m) } else { 0 };
        stack.push(m);
        place(geo, per_ship, stack, used | m, blocked | halo, out, budget)?;
        stack.pop();
    }
    Ok(())
}

/// The answer to a shot at `cell` against `fleet` (per-ship cells) after `hits`, as the
/// rules give it, and whether it ends the game.
pub(crate) fn answer(
    fleet: impl Iterator<Item = u128> + Clone,
    hits: u128,
    cell: usize,
    feedback: Feedback,
) -> (Shot, bool) {
    let m = cell_bit(cell);
    let Some((k, ship)) = fleet.clone().enumerate().find(|&(_, c)| c & m != 0) else {
        return (Shot::Miss, false);
    };
    let after = hits | m;
    let over = fleet.into_iter().all(|c| c & !after == 0);
    let sunk = ship & !after == 0;
    let shot = match (feedback, sunk) {
        (Feedback::Bare, _) => Shot::Hit { ship: None },
        (Feedback::HitNamesShip, false) => Shot::Hit { ship: Some(k) },
        (_, false) => Shot::Hit { ship: None },
        (Feedback::SunkRevealsCells, true) => Shot::Sunk {
            ship: k,
            cells: Some(ship),
        },
        (_, true) => Shot::Sunk {
            ship: k,
            cells: None,
        },
    };
    (shot, over)
}

/// The fingerprint key of fleet `f`: fixed pseudo-random bits (splitmix64 of the index), so
/// that the fingerprint of a set of fleets, the XOR of their keys, tells sets apart with
/// overwhelming probability. Computed, not stored: a few multiplications cost less than
/// a cache miss.
fn zobrist(f: usize) -> u128 {
    let mix = |i: u64| {
        let mut z = 0x2545_f491_4f6c_dd1du64.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let i = 2 * f as u64;
    u128::from(mix(i + 1)) << 64 | u128::from(mix(i + 2))
}

/// The largest set of fleets whose greedy value is not memoised.
const SMALL_SET: usize = 8;

struct Solver {
    /// Every fleet's ships, one fleet after another (`ships` each), as indices into
    /// `placements`: two bytes a ship instead of sixteen, so that the fleets of a large
    /// search stay in the processor's caches (a shot that hits reads them).
    fleets: Vec<u16>,
    /// The cells of every ship placement that some fleet uses.
    placements: Vec<u128>,
    ships: usize,
    union: Vec<u128>,
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
    spare_planes: Vec<Vec<Planes>>,
    /// Per answer key (see [`Solver::key`]): its class's place in the list being built by
    /// [`Solver::branches`], or `u32::MAX`.
    slot: Vec<u32>,
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

/// A state of knowledge: the fleets still consistent (`set`, with fingerprint `fp`), the
/// cells fired at (`shots`) and the hits among them.
#[derive(Clone, Copy)]
struct Node<'a> {
    set: &'a [u32],
    fp: u128,
    shots: u128,
    hits: u128,
}

/// Per cell, how many fleets of a set have a ship there, kept bit-sliced: plane `k` holds
/// bit `k` of every cell's count. Adding a fleet is a ripple-carry addition of its cells
/// over the planes, a few word operations instead of one increment per cell, and the
/// highest count is found plane by plane from the top.
#[derive(Clone)]
struct Planes {
    planes: [u128; 33],
    /// Planes in use: the ones above are zero.
    used: usize,
}

impl Default for Planes {
    fn default() -> Self {
        Planes {
            planes: [0; 33],
            used: 0,
        }
    }
}

/// Adds one to the bit-sliced count of every cell of `cells` (plane `k` holds bit `k` of
/// each cell's count), carrying from plane to plane; returns how many planes the carry
/// reached. The planes must be enough for the counts.
fn ripple_add(planes: &mut [u128], cells: u128) -> usize {
    let mut carry = cells;
    let mut k = 0;
    while carry != 0 {
        let next = planes[k] & carry;
        planes[k] ^= carry;
        carry = next;
        k += 1;
    }
    k
}

impl Planes {
    /// The counts of the cells outside `shots` over the fleets of `set`.
    fn of(union: &[u128], set: &[u32], shots: u128) -> Planes {
        let mut p = Planes::default();
        for &f in set {
            p.add(union[f as usize] & !shots);
        }
        p
    }

    /// Counts one fleet with ships on the cells of `cells`.
    fn add(&mut self, cells: u128) {
        let k = ripple_add(&mut self.planes, cells);
        self.used = self.used.max(k);
    }

    /// Takes away the counts of `other`, a subset's (no count drops below zero), by
    /// ripple-borrow subtraction plane by plane.
    fn subtract(&mut self, other: &Planes) {
        let mut borrow = 0u128;
        for k in 0..self.used {
            if k >= other.used && borrow == 0 {
                break;
            }
            let a = self.planes[k];
            let b = other.planes[k];
            self.planes[k] = a ^ b ^ borrow;
            borrow = (!a & (b | borrow)) | (a & b & borrow);
        }
        while self.used > 0 && self.planes[self.used - 1] == 0 {
            self.used -= 1;
        }
    }

    /// Forgets the counts outside `keep`.
    fn keep(&mut self, keep: u128) {
        for p in &mut self.planes[..self.used] {
            *p &= keep;
        }
        while self.used > 0 && self.planes[self.used - 1] == 0 {
            self.used -= 1;
        }
    }

    /// The cells with the highest count, and that count.
    fn top(&self) -> (u128, u32) {
        let planes = &self.planes[..self.used];
        let mut top = planes.iter().fold(0, |a, &p| a | p);
        let mut max = 0u32;
        for k in (0..planes.len()).rev() {
            if top & planes[k] != 0 {
                top &= planes[k];
                max |= 1 << k;
            }
        }
        (top, max)
    }
}

impl Solver {
    fn new(
        geo: &Geometry,
        fleets: Vec<Vec<u128>>,
        strategy: Strategy,
        max_states: usize,
    ) -> Result<Solver, Error> {
        let union = fleets
            .iter()
            .map(|f| f.iter().fold(0, |a, &c| a | c))
            .collect();
        let ships = geo.rules().fleet.len();
        // A board has at most 128 cells, so at most 256 placements of each length (there
        // are at most 128 lengths): the indices of real placements fit in two bytes.
        let mut index: HashMap<u128, u16> = HashMap::new();
        let mut placements = Vec::new();
        let mut flat = Vec::with_capacity(fleets.len() * ships);
        for &c in fleets.iter().flatten() {
            let i = match index.get(&c) {
                Some(&i) => i,
                None => {
                    let i = u16::try_from(placements.len()).map_err(|_| {
                        Error::InvalidFleet("more than 65,536 different ship masks".into())
                    })?;
                    placements.push(c);
                    index.insert(c, i);
                    i
                }
            };
            flat.push(i);
        }
        let rules = geo.rules();
        Ok(Solver {
            fleets: flat,
            placements,
            ships,
            union,
            feedback: rules.feedback,
            strategy,
            ship_cells: rules.fleet.iter().map(|s| s.length as u32).sum(),
            cells: rules.cells(),
            max_states,
            memo: HashMap::default(),
            spare: Vec::new(),
            spare_branches: Vec::new(),
            spare_cells: Vec::new(),
            spare_planes: Vec::new(),
            slot: vec![u32::MAX; 2 * (2 + 2 * ships)],
        })
    }

    /// The answer classes of a shot at `cell` from the fleets of `set` (`shots` fired so
    /// far, `hits` among them), and the fleets of `set` grouped by class, in their order
    /// within each class: a branch's fleets are the returned list's slice at its `range`.
    /// One list for all classes instead of one per class: this runs in every state of the
    /// search. Hand them back with [`Solver::recycle_branches`] when done with them.
    ///
    /// Given the hit counts of `set` (`parent`), it also returns each class's counts after
    /// the shot, for greedy play to find its next shot without another pass over the
    /// fleets: the counts of the classes that hit are summed as the fleets are sorted, and
    /// the misses' are what is left of the parent's, usually the largest class.
    fn branches(
        &mut self,
        set: &[u32],
        shots: u128,
        hits: u128,
        cell: usize,
        parent: Option<&Planes>,
    ) -> (Vec<u32>, Vec<Branch>, Vec<Planes>) {
        let mut out = self.spare_branches.pop().unwrap_or_default();
        out.clear();
        let mut planes = self.spare_planes.pop().unwrap_or_default();
        planes.clear();
        // Each fleet's class, then the class sizes (kept in `range.end` until placed).
        let mut class = self.spare.pop().unwrap_or_default();
        class.clear();
        let m = 1u128 << cell;
        let left = !(shots | m);
        // Answers that name no cells have a small key, and their class is found by it;
        // answers that reveal a sunk ship's cells are compared in full.
        let keyed = self.feedback != Feedback::SunkRevealsCells;
        for &f in set {
            let f = f as usize;
            let u = self.union[f];
            let k = if keyed {
                let key = self.key(f, u, hits, m);
                match self.slot[key] {
                    u32::MAX => {
                        self.slot[key] = out.len() as u32;
                        self.new_branch(f, hits, cell, &mut out, &mut planes, parent)
                    }
                    k => k as usize,
                }
            } else {
                let (shot, over) = if u & m == 0 {
                    (Shot::Miss, false)
                } else {
                    answer(self.fleet(f), hits, cell, self.feedback)
                };
                match out.iter().position(|b| b.shot == shot && b.over == over) {
                    Some(k) => k,
                    None => self.new_branch(f, hits, cell, &mut out, &mut planes, parent),
                }
            };
            let b = &mut out[k];
            b.range.end += 1;
            b.fp ^= zobrist(f);
            if parent.is_some() && u & m != 0 {
                planes[k].add(u & left);
            }
            class.push(k as u32);
        }
        if keyed {
            self.slot.fill(u32::MAX);
        }
        if let Some(parent) = parent
            && let Some(miss) = out.iter().position(|b| b.shot == Shot::Miss)
        {
            let mut rest = parent.clone();
            for (k, p) in planes.iter().enumerate() {
                if k != miss {
                    rest.subtract(p);
                }
            }
            rest.keep(!m);
            planes[miss] = rest;
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
        (sets, out, planes)
    }

    /// The ship cells of fleet `f`, one mask per ship.
    fn fleet(&self, f: usize) -> impl Iterator<Item = u128> + Clone + '_ {
        self.fleets[f * self.ships..(f + 1) * self.ships]
            .iter()
            .map(|&p| self.placements[usize::from(p)])
    }

    /// A small number that tells the answers to a shot at `m` apart, for feedback that
    /// names no cells: the miss, the hit, which ship is hit or sunk as the rules say, and
    /// whether the game ends. `u` is the union of the fleet's ships.
    fn key(&self, f: usize, u: u128, hits: u128, m: u128) -> usize {
        if u & m == 0 {
            return 0;
        }
        let (k, ship) = self
            .fleet(f)
            .enumerate()
            .find(|&(_, c)| c & m != 0)
            .unwrap_or((0, 0));
        let after = hits | m;
        let sunk = ship & !after == 0;
        let class = match (self.feedback, sunk) {
            (Feedback::Bare, _) | (Feedback::Standard, false) => 1,
            (Feedback::HitNamesShip, false) => 2 + k,
            (Feedback::HitNamesShip, true) => 2 + self.ships + k,
            (_, _) => 2 + k,
        };
        2 * class + usize::from(u & !after == 0)
    }

    /// Opens the class of fleet `f`'s answer to a shot at `cell`, with empty counts when
    /// counts are kept, and returns its place.
    fn new_branch(
        &self,
        f: usize,
        hits: u128,
        cell: usize,
        out: &mut Vec<Branch>,
        planes: &mut Vec<Planes>,
        parent: Option<&Planes>,
    ) -> usize {
        let (shot, over) = answer(self.fleet(f), hits, cell, self.feedback);
        out.push(Branch {
            shot,
            over,
            range: 0..0,
            fp: 0,
        });
        if parent.is_some() {
            planes.push(Planes::default());
        }
        out.len() - 1
    }

    /// Keeps a list of fleets for [`Solver::branches`] to reuse.
    fn recycle(&mut self, list: Vec<u32>) {
        self.spare.push(list);
    }

    /// Keeps the answer classes of [`Solver::branches`], its list of fleets and its counts
    /// for reuse.
    fn recycle_branches(&mut self, sets: Vec<u32>, branches: Vec<Branch>, planes: Vec<Planes>) {
        self.spare.push(sets);
        self.spare_branches.push(branches);
        self.spare_planes.push(planes);
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

    /// Greedy play's expected number of shots still needed from a state of at most
    /// [`SMALL_SET`] fleets (the union of each fleet's ships, and the fleet), valued as
    /// [`Solver::value`] values it, in the same order of operations, so to the same bits,
    /// but on the stack: most states of a search are this small, and the lists, counts and
    /// memo that pay off on large states cost more here than the valuation itself. Not for
    /// feedback that reveals a sunk ship's cells (see [`Solver::key`]).
    fn few_value(&self, set: &[(u128, u32)], shots: u128, hits: u128) -> f64 {
        let Some((&(first, _), rest)) = set.split_first() else {
            return 0.0;
        };
        let left = first & !shots;
        if rest.iter().all(|&(u, _)| u & !shots == left) {
            return f64::from(left.count_ones());
        }
        self.few_shoot(set, shots, hits)
    }

    /// [`Solver::few_value`] of a state known to hold fleets with different cells still to
    /// hit (so more than one line of play, and some cell to shoot): greedy play's next shot
    /// and what follows it.
    fn few_shoot(&self, set: &[(u128, u32)], shots: u128, hits: u128) -> f64 {
        let n = set.len();
        // Counts up to SMALL_SET = 8 fit in four bit planes.
        let mut planes = [0u128; 4];
        for &(u, _) in set.iter() {
            ripple_add(&mut planes, u & !shots);
        }
        let mut top = planes.iter().fold(0, |a, &p| a | p);
        for p in planes.iter().rev() {
            if top & p != 0 {
                top &= p;
            }
        }
        let tied = match self.strategy {
            Strategy::GreedyFirst => top & top.wrapping_neg(),
            _ => top,
        };
        debug_assert!(
            tied != 0,
            "a state with one line of play has no shot to value"
        );
        let mut sum = 0.0;
        for c in cells_of(tied) {
            let m = 1u128 << c;
            // Answer classes in order of first appearance, as `Solver::branches` has them.
            let mut keys = [0usize; SMALL_SET];
            let mut classes = [0usize; SMALL_SET];
            let mut count = 0;
            for (key, &(u, f)) in keys.iter_mut().zip(set.iter()) {
                *key = self.key(f as usize, u, hits, m);
                if !classes[..count].contains(key) {
                    classes[count] = *key;
                    count += 1;
                }
            }
            let mut v = 1.0;
            let mut part = [(0u128, 0u32); SMALL_SET];
            for &class in &classes[..count] {
                // Odd keys end the game: nothing follows them.
                if class & 1 == 1 {
                    continue;
                }
                let mut len = 0;
                for (&key, &fleet) in keys.iter().zip(set.iter()) {
                    if key == class {
                        part[len] = fleet;
                        len += 1;
                    }
                }
                let h = if class == 0 { hits } else { hits | m };
                let sub = self.few_value(&part[..len], shots | m, h);
                v += len as f64 / n as f64 * sub;
            }
            sum += v;
        }
        sum / f64::from(tied.count_ones())
    }

    /// The expected number of shots still needed from the state `node`, searched only as
    /// far as needed to show it is at least `beta`: the answer is `(value, true)` when exact
    /// and `(bound, false)` with `bound >= beta` otherwise. At the root also the chosen
    /// first shots. `counts`, when given, are the hit counts of the state's fleets (from
    /// [`Solver::branches`]), which greedy play would otherwise count here.
    fn value(
        &mut self,
        node: Node<'_>,
        beta: f64,
        root: bool,
        counts: Option<&Planes>,
    ) -> Result<(f64, bool, Vec<usize>), Error> {
        let Node {
            set,
            fp,
            shots,
            hits,
        } = node;
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
        if !memoise && !root && self.feedback != Feedback::SunkRevealsCells {
            let mut few = [(0u128, 0u32); SMALL_SET];
            for (slot, &f) in few.iter_mut().zip(set) {
                *slot = (self.union[f as usize], f);
            }
            // `set` has more than one line of play (checked above), so straight to the shot.
            let v = self.few_shoot(&few[..set.len()], shots, hits);
            return Ok((v, true, Vec::new()));
        }
        let n = set.len();
        // Greedy play needs only the likeliest cells, which the bit-sliced counts give
        // without counting cell by cell (handed down from the state before, or counted
        // here at the root); the optimal search ranks every cell.
        let own;
        let here = match (self.strategy, counts) {
            (Strategy::Optimal, _) => None,
            (_, Some(p)) => Some(p),
            (_, None) => {
                own = Planes::of(&self.union, set, shots);
                Some(&own)
            }
        };
        let (cands, max, count) = if let Some(here) = here {
            let (top, max) = here.top();
            let mut cands = self.spare_cells.pop().unwrap_or_default();
            cands.clear();
            match self.strategy {
                Strategy::GreedyFirst => cands.extend(cells_of(top).take(1)),
                _ => cands.extend(cells_of(top)),
            }
            (cands, max, None)
        } else {
            let count = self.counts(set, shots);
            let max = count[..self.cells].iter().copied().max().unwrap_or(0);
            let mut cands = self.spare_cells.pop().unwrap_or_default();
            cands.clear();
            if max as usize == n && self.feedback != Feedback::Standard {
                // A certain hit is taken at once (see the module documentation).
                cands.extend(count.iter().position(|&k| k == max));
            } else {
                cands.extend((0..self.cells).filter(|&c| count[c] > 0));
            }
            cands.sort_by_key(|&c| std::cmp::Reverse(count[c]));
            (cands, max, Some(count))
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
            let (sets, branches, planes) = self.branches(set, shots, hits, c, here);
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
                let node = Node {
                    set: child,
                    fp: b.fp,
                    shots: shots | m,
                    hits: h,
                };
                let (sub, sub_exact, _) = self.value(node, child_beta, false, planes.get(i))?;
                low += w * (sub - low_of(&lows, i));
                if let Some(l) = lows.get_mut(i) {
                    *l = sub;
                }
                if !sub_exact {
                    exact = false;
                    break;
                }
            }
            self.recycle_branches(sets, branches, planes);
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
    use crate::Fleet;
    use crate::game::Game;
    use crate::rules::Rules;

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
            let fleets = all_fleets(&geo, 10_000, u64::MAX).unwrap();
            for (i, f) in fleets.iter().enumerate().step_by(7) {
                let fleet = Fleet::from_cells(&geo, f).unwrap();
                let mut g = Game::new(Arc::clone(&geo), fleet).unwrap();
                let mut hits = 0u128;
                // A fixed scan order, shifted per fleet.
                for k in 0..16 {
                    if g.is_over() {
                        break;
                    }
                    let c = (k * 5 + i) % 16;
                    let (want, over) = answer(f.iter().copied(), hits, c, fb);
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
        let fleets = all_fleets(&geo, 100_000, u64::MAX).unwrap();
        let n = fleets.len();
        let solver = Solver::new(&geo, fleets, Strategy::GreedyFirst, 10).unwrap();
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
            let planes = Planes::of(&solver.union, &set, shots);
            assert_eq!(planes.top(), (want, max), "round {round}");
            assert_eq!(per_cell(&planes)[..], count[..], "round {round}");
        }
    }

    /// The counts held bit-sliced in `p`, cell by cell.
    fn per_cell(p: &Planes) -> [u32; MAX_CELLS] {
        let mut count = [0u32; MAX_CELLS];
        for (k, plane) in p.planes.iter().enumerate() {
            for c in cells_of(*plane) {
                count[c] += 1 << k;
            }
        }
        count
    }

    #[test]
    fn answer_classes_and_their_counts_match_a_plain_sort() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        for fb in Feedback::ALL {
            let geo = Geometry::new(&rules(5, 5, &[3, 2, 2], Adjacency::Allowed, fb)).unwrap();
            let fleets = all_fleets(&geo, 100_000, u64::MAX).unwrap();
            let n = fleets.len();
            let mut solver = Solver::new(&geo, fleets, Strategy::GreedyFirst, 10).unwrap();
            for round in 0..200 {
                let size = [1, 3, 40, 500, n][round % 5];
                let set: Vec<u32> = (0..size).map(|_| rng.random_range(0..n as u32)).collect();
                let shots = rng.random::<u128>() & rng.random::<u128>() & ((1u128 << 25) - 1);
                let hits = shots & rng.random::<u128>();
                let cell = (0..25).find(|&c| shots >> c & 1 == 0).unwrap_or(24);
                let shots = shots & !(1u128 << cell);
                let hits = hits & !(1u128 << cell);
                let parent = Planes::of(&solver.union, &set, shots);
                let (sets, branches, planes) =
                    solver.branches(&set, shots, hits, cell, Some(&parent));
                assert_eq!(planes.len(), branches.len());
                let mut seen = 0;
                for (b, p) in branches.iter().zip(&planes) {
                    let class = &sets[b.range.clone()];
                    seen += class.len();
                    for &f in class {
                        let f = f as usize;
                        let want = if solver.union[f] >> cell & 1 == 0 {
                            (Shot::Miss, false)
                        } else {
                            answer(solver.fleet(f), hits, cell, fb)
                        };
                        assert!(want == (b.shot, b.over), "{fb:?} round {round}");
                    }
                    // Classes are told apart: no two have the same answer.
                    let same = branches
                        .iter()
                        .filter(|o| o.shot == b.shot && o.over == b.over)
                        .count();
                    assert_eq!(same, 1, "{fb:?} round {round}");
                    let want = solver.counts(class, shots | 1u128 << cell);
                    assert_eq!(per_cell(p)[..], want[..], "{fb:?} round {round}");
                }
                assert_eq!(seen, set.len());
                solver.recycle_branches(sets, branches, planes);
            }
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
        // Hits the fleets do not show (more hits than ship cells, here) are refused, not
        // searched: the search's bounds count the ship cells still to hit.
        let row =
            Geometry::new(&rules(4, 1, &[2], Adjacency::Allowed, Feedback::Standard)).unwrap();
        let fleets = || vec![vec![0b0011u128], vec![0b0110], vec![0b1100]];
        assert!(matches!(
            shot_values(&row, fleets(), 0, 0b111, &[3], Strategy::Optimal, 1000),
            Err(Error::InvalidFleet(_))
        ));
        assert!(matches!(
            shot_values(&row, fleets(), 0b10, 0, &[3], Strategy::Optimal, 1000),
            Err(Error::InvalidFleet(_))
        ));
        // Cell 1 shot and hit: two fleets left. Firing at 0 or 2 ends the game at once half
        // the time and one shot later otherwise; firing at 3 first wastes a shot.
        let left = vec![vec![0b0011u128], vec![0b0110]];
        let v = shot_values(&row, left, 0b10, 0b10, &[0, 2, 3], Strategy::Optimal, 1000).unwrap();
        assert_eq!(v, [1.5, 1.5, 2.5]);
        // Masks of the wrong size, or ships that overlap, are refused: with more hit cells
        // than ship cells, the count of cells still to hit would go below zero.
        let strip =
            Geometry::new(&rules(7, 1, &[2], Adjacency::Allowed, Feedback::Standard)).unwrap();
        let wide = vec![vec![0b111u128], vec![0b1111], vec![0b10111]];
        assert!(matches!(
            shot_values(&strip, wide, 0b111, 0b111, &[6], Strategy::Optimal, 1000),
            Err(Error::InvalidFleet(_))
        ));
        let overlapping = vec![vec![0b111u128, 0b1100_0000], vec![0b111, 0b110]];
        assert!(matches!(
            shot_values(&geo, overlapping, 0, 0, &[0], Strategy::Optimal, 1000),
            Err(Error::InvalidFleet(_))
        ));
        // More different ship masks than placement indices can name (three cells of the
        // first 80 for the first ship, the last two cells for the second).
        let big = Geometry::new(&rules(
            16,
            8,
            &[3, 2],
            Adjacency::Allowed,
            Feedback::Standard,
        ))
        .unwrap();
        let many: Vec<Vec<u128>> = (0..80u32)
            .flat_map(|a| (a + 1..80).flat_map(move |b| (b + 1..80).map(move |c| (a, b, c))))
            .take(70_000)
            .map(|(a, b, c)| vec![1u128 << a | 1 << b | 1 << c, 0b11 << 126])
            .collect();
        // Such masks are no placements, so `shot_values` refuses them first; the solver's
        // own limit holds all the same.
        assert!(matches!(
            shot_values(&big, many.clone(), 0, 0, &[0], Strategy::GreedyFirst, 100),
            Err(Error::InvalidFleet(m)) if m.contains("not a placement")
        ));
        assert!(matches!(
            Solver::new(&big, many, Strategy::GreedyFirst, 100),
            Err(Error::InvalidFleet(m)) if m.contains("65,536")
        ));
        // A mask of the right size that is no placement on the board (a cell past its
        // end, a bent ship), and ships that touch under no-touch, are refused too.
        let one =
            Geometry::new(&rules(4, 4, &[1], Adjacency::Allowed, Feedback::Standard)).unwrap();
        for mask in [1u128 << 100, 1 << 16] {
            assert!(matches!(
                shot_values(&one, vec![vec![mask]], 0, 0, &[0], Strategy::GreedyFirst, 100),
                Err(Error::InvalidFleet(m)) if m.contains("not a placement")
            ));
        }
        // Cells 0, 1 and 4 of a 4-wide board: an L, not a line.
        let bent = vec![vec![0b1_0011u128, 0b1100_0000_0000]];
        assert!(matches!(
            shot_values(&geo, bent, 0, 0, &[15], Strategy::GreedyFirst, 100),
            Err(Error::InvalidFleet(m)) if m.contains("not a placement")
        ));
        let apart = |adjacency| {
            let geo = Geometry::new(&rules(4, 4, &[2, 2], adjacency, Feedback::Standard)).unwrap();
            // Two vertical ships in the first two columns, side by side.
            let side_by_side = vec![vec![0b1_0001u128, 0b10_0010]];
            shot_values(&geo, side_by_side, 0, 0, &[15], Strategy::GreedyFirst, 100)
        };
        assert!(apart(Adjacency::Allowed).is_ok());
        assert!(matches!(
            apart(Adjacency::NoTouch),
            Err(Error::InvalidFleet(m)) if m.contains("touch")
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
            ..ExactLimits::default()
        };
        assert!(matches!(
            exact_mean_shots(&geo, Strategy::Optimal, &small),
            Err(Error::TooLarge(_))
        ));
        let few_states = ExactLimits {
            max_states: 10,
            ..ExactLimits::default()
        };
        assert!(matches!(
            exact_mean_shots(&geo, Strategy::Optimal, &few_states),
            Err(Error::TooLarge(_))
        ));
        let few_nodes = ExactLimits {
            max_nodes: 20,
            ..ExactLimits::default()
        };
        assert!(matches!(
            exact_mean_shots(&geo, Strategy::Optimal, &few_nodes),
            Err(Error::TooLarge(_))
        ));
        // Four one-cell ships fit a 3x3 board under no-touch (its corners: 4! labelled
        // fleets), five do not (refused by the geometry already).
        let crowded = |ships: usize| {
            Geometry::new(&rules(
                3,
                3,
                &vec![1; ships],
                Adjacency::NoTouch,
                Feedback::Standard,
            ))
        };
        let four = crowded(4).unwrap();
        let v = exact_mean_shots(&four, Strategy::Optimal, &ExactLimits::default()).unwrap();
        assert_eq!((v.fleets, v.mean_shots), (24, 4.0));
        assert!(matches!(crowded(5), Err(Error::FleetDoesNotFit(_))));
    }
}
