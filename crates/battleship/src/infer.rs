//! The posterior over fleets given a [`View`]: the observations become a csp-core
//! [`PlacementCsp`] (one variable per ship), counted exactly when that fits the budget (by
//! search, or by element frontiers where allowed), and estimated by the Markov chain
//! otherwise.

use csp_core::{
    Budget, CspError, FrontierCount, PlacementAnalysis, PlacementCsp, analyze_placements,
    estimate_placements_with_blocks,
};
use rand::Rng;

use crate::Error;
use crate::game::{Shot, View};
use crate::rules::{Feedback, cell_bit, cells_of};

/// The constraint problem of a view: the fleets consistent with every observation.
///
/// - misses are forbidden, hits (and cells of sunk ships) must be covered;
/// - a hit that names its ship must be covered by that ship;
/// - a ship sunk at cell `c` contains `c` and lies inside the hits made up to that shot; if
///   its cells were revealed it is fixed to them;
/// - when the rules announce sinkings, a ship not announced as sunk is not entirely hit;
/// - cells of sunk ships of unknown identity (text positions) are covered by ships lying
///   entirely inside them.
///
/// # Errors
/// Only for internal inconsistencies of the geometry.
pub fn problem(view: &View) -> Result<PlacementCsp, Error> {
    let geo = view.geometry();
    let rules = geo.rules();
    let mut p = geo.empty_problem()?;
    p.forbid(view.misses())?;
    p.require(view.hits() | view.sunk_cells())?;
    let hits = view.hits() | view.sunk_cells();
    let s_cells = view.sunk_cells();
    for i in 0..rules.fleet.len() {
        let named = view.named(i);
        if named != 0 {
            p.require_var(i, named)?;
        }
        match view.sunk()[i] {
            Some(s) => {
                if let Some(c) = s.cells {
                    p.fix(i, c)?;
                } else {
                    let at = 1u128 << s.at;
                    let inside = s.hits_then;
                    p.retain(i, |c| c & at != 0 && c & !inside == 0)?;
                }
            }
            None => {
                if rules.feedback.reports_sunk() {
                    // Afloat, so not entirely hit (ships inside the sunk cells of a text
                    // position are the sunk ones).
                    p.retain(i, |c| (s_cells != 0 && c & !s_cells == 0) || c & !hits != 0)?;
                }
            }
        }
        if s_cells != 0 {
            p.retain(i, |c| c & s_cells == 0 || c & !s_cells == 0)?;
        }
    }
    Ok(p)
}

/// How the posterior is computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PosteriorConfig {
    /// Search nodes allowed to the exact count before falling back to the chain (0: always
    /// sample).
    pub exact_nodes: u64,
    /// Markov chain sweeps discarded.
    pub burn_in: u64,
    /// Markov chain sweeps recorded.
    pub sweeps: u64,
    /// Ships re-placed together by the block move the chain makes after each sweep (see
    /// `csp_core::estimate_placements_with_blocks`); 0 to 2: none, only the sweeps' moves of
    /// one or two ships. Blocks of three reach fleets that moving two ships at a time
    /// cannot (see [`sampled_posterior`]), at a cost: each is an exact count of the three
    /// ships' placements, and with blocks of three the default shooter took 17 times as
    /// long a shot under bare feedback (docs/BATTLESHIP.md, Design). The shooters use 0;
    /// `gameai battleship show` uses 3.
    pub block: usize,
    /// States allowed to a second exact count, by element frontiers
    /// ([`csp_core::FrontierCount`]), when the search runs past `exact_nodes` (0: none, as
    /// in play, where it would cost too long a shot). It counts the open positions with
    /// many fleets where the search runs out: the empty standard board in about 1.8
    /// million states (3 to 5 s with its marginals), a position with a few shots in fewer.
    /// `gameai battleship show` allows 4,000,000.
    pub frontier_states: u64,
}

impl Default for PosteriorConfig {
    fn default() -> Self {
        PosteriorConfig {
            exact_nodes: 40_000,
            burn_in: 40,
            sweeps: 400,
            block: 0,
            frontier_states: 0,
        }
    }
}

/// The probability of every cell being a ship cell, and each ship's distribution over its
/// placements, under the uniform distribution over consistent fleets.
#[derive(Debug, Clone, PartialEq)]
pub struct Posterior {
    /// Per cell: the probability that a ship covers it (1 for hits, 0 for misses).
    pub hit: Vec<f64>,
    /// Per ship: `(cells, probability)` of each placement with a positive probability.
    pub ships: Vec<Vec<(u128, f64)>>,
    /// `Some(n)`: exact, over `n` consistent fleets; `None`: estimated by the chain.
    pub solutions: Option<u128>,
    /// Per cell, the standard error of an estimated `hit` (batch means over the chain's
    /// sweeps, as `csp_core::PlacementEstimate::element_std_errors`; 0 for observed cells);
    /// `None` when the probabilities are exact. It measures the chain's noise, not whether
    /// the chain reaches every fleet (see [`sampled_posterior`]).
    pub hit_std_errors: Option<Vec<f64>>,
    /// Search nodes of the exact count, or states of the count by frontiers when that made
    /// it (0 when neither did).
    pub nodes: u64,
}

impl Posterior {
    /// Whether the probabilities are exact.
    pub fn is_exact(&self) -> bool {
        self.solutions.is_some()
    }
}

/// The exact posterior, or [`Error::Csp`] with [`CspError::BudgetExceeded`] beyond
/// `budget`.
///
/// # Errors
/// [`Error::Inconsistent`] when no fleet fits the observations; budget errors as above.
pub fn exact_posterior(view: &View, budget: &Budget) -> Result<Posterior, Error> {
    let p = problem(view)?;
    let a = analyze_placements(&p, budget).map_err(inconsistent)?;
    exact_from(&p, &a)
}

/// The exact posterior by the count over element frontiers ([`csp_core::FrontierCount`]),
/// or [`Error::Csp`] with [`CspError::BudgetExceeded`] beyond `budget` states. The same
/// probabilities as [`exact_posterior`], where their costs differ: the search's grows with
/// the fleets, this count's with the distinct frontiers (rows of cells covered or kept
/// free ahead, and the ships left), so it counts open positions with billions of fleets
/// that the search cannot visit in time, and is slower than the search on positions with
/// few.
///
/// # Errors
/// [`Error::Inconsistent`] when no fleet fits the observations; budget errors as above.
pub fn frontier_posterior(view: &View, budget: &Budget) -> Result<Posterior, Error> {
    let p = problem(view)?;
    let a = FrontierCount::new(&p, budget)
        .and_then(|c| c.analyze())
        .map_err(inconsistent)?;
    exact_from(&p, &a)
}

/// The posterior of the exact counts `a` of problem `p`.
fn exact_from(p: &PlacementCsp, a: &PlacementAnalysis) -> Result<Posterior, Error> {
    if a.solutions == 0 {
        return Err(Error::Inconsistent);
    }
    let t = a.solutions as f64;
    let ships = ship_lists(p, |v, fi, s| a.value_counts[v][fi][s] as f64 / t);
    Ok(Posterior {
        hit: a.marginals(),
        ships,
        solutions: Some(a.solutions),
        hit_std_errors: None,
        nodes: a.nodes,
    })
}

/// Per ship: `(cells, probability)` of each placement whose `prob(ship, family, start)` is
/// positive.
fn ship_lists(
    p: &PlacementCsp,
    prob: impl Fn(usize, usize, usize) -> f64,
) -> Vec<Vec<(u128, f64)>> {
    (0..p.num_vars())
        .map(|v| {
            let mut list = Vec::new();
            for (fi, f) in p.domain(v).unwrap_or(&[]).iter().enumerate() {
                for s in cells_of(f.starts()) {
                    let q = prob(v, fi, s);
                    if q > 0.0 {
                        list.push((f.cells(s as u32), q));
                    }
                }
            }
            list
        })
        .collect()
}

fn inconsistent(e: CspError) -> Error {
    match e {
        CspError::Inconsistent => Error::Inconsistent,
        e => Error::Csp(e),
    }
}

/// The chain's estimate of the posterior. The chain starts from a first consistent fleet,
/// found by a search of at most 5,000,000 nodes (or, where that runs out, drawn by exact
/// counts of at most as many nodes each; see `csp_core::PlacementChain::new`).
///
/// Each sweep moves one or two ships at a time. Where the ships have room, as on an open
/// 10x10 board, that reaches every fleet, and the estimates tend to the uniform posterior as
/// the sweeps grow. Where they do not, it may not: ships of 3, 3 and 2 on 3x3 lie all across
/// or all down, and going from one to the other moves all three at once, so the chain stays
/// with the direction it started in, however long it runs. The same happens on a 10x10 board
/// in play, where hits leave a run that one long ship or two shorter ones can fill and the
/// other ships are hemmed in. Such positions need not be small: after 18 shots with bare
/// feedback, a run of five hits down column 2 to the bottom edge (rows 5 to 9, misses
/// beside it; `docs/positions/battleship-bare-run.txt`) leaves 67,862,676 fleets, and chains
/// of 440 sweeps put cell (1,9) at 58% (seed 1) or 5% (seed 3) where it is 8%. Bare feedback
/// leaves such runs unexplained longest; under the other rules a sinking explains hits.
/// The [`Posterior::hit_std_errors`] measure the chain's noise, not this.
///
/// [`PosteriorConfig::block`] is the remedy: a block move after each sweep re-places that
/// many ships together, exactly (by counting), which turns the 3x3 board and brings the run
/// above to 13%, 7% and 17% (seeds 1 to 3, blocks of three), with standard errors that say
/// where it is still unsure. It costs an exact count a sweep, which play cannot afford: the
/// shooters make no block moves and count exactly wherever their budget allows.
///
/// # Errors
/// [`Error::Inconsistent`] when no fleet fits the observations; [`Error::Csp`] with
/// [`CspError::BudgetExceeded`] when the search for a first fleet ran out of nodes.
pub fn sampled_posterior(
    view: &View,
    config: &PosteriorConfig,
    rng: &mut (impl Rng + ?Sized),
) -> Result<Posterior, Error> {
    let p = problem(view)?;
    let e = estimate_placements_with_blocks(
        &p,
        &Budget {
            max_nodes: 5_000_000,
        },
        config.burn_in,
        config.sweeps,
        config.block,
        rng,
    )
    .map_err(inconsistent)?;
    let ships = ship_lists(&p, |v, fi, s| e.value_probs[v][fi][s]);
    let mut hit = e.marginals();
    let mut errors = e.element_std_errors;
    // Observed cells are certain: remove the chain's rounding noise there.
    for c in cells_of(view.hits() | view.sunk_cells()) {
        hit[c] = 1.0;
        errors[c] = 0.0;
    }
    for c in cells_of(view.misses()) {
        hit[c] = 0.0;
        errors[c] = 0.0;
    }
    Ok(Posterior {
        hit,
        ships,
        solutions: None,
        hit_std_errors: Some(errors),
        nodes: 0,
    })
}

/// The posterior: exact when the count fits `config.exact_nodes` (or, failing that, when
/// the count by frontiers fits `config.frontier_states`), otherwise estimated.
///
/// # Errors
/// [`Error::Inconsistent`] when no fleet fits the observations; otherwise as
/// [`exact_posterior`] and [`frontier_posterior`] (any error of the counts but running out
/// of nodes or states or a count past the counters' range, which fall back to the chain)
/// and [`sampled_posterior`].
pub fn posterior(
    view: &View,
    config: &PosteriorConfig,
    rng: &mut (impl Rng + ?Sized),
) -> Result<Posterior, Error> {
    // Each exact count in turn, within its budget; past it in nodes or states, or in the
    // counters' range, the next, and the chain last.
    type Count = fn(&View, &Budget) -> Result<Posterior, Error>;
    let counts: [(u64, Count); 2] = [
        (config.exact_nodes, exact_posterior),
        (config.frontier_states, frontier_posterior),
    ];
    for (max_nodes, count) in counts {
        if max_nodes > 0 {
            match count(view, &Budget { max_nodes }) {
                Err(Error::Csp(CspError::BudgetExceeded { .. } | CspError::CountOverflow)) => {}
                r => return r,
            }
        }
    }
    sampled_posterior(view, config, rng)
}

/// Every fleet consistent with `view`, as per-ship cell masks, from its exact posterior
/// `post`: the combinations of each ship's possible placements that are pairwise compatible
/// (disjoint, and apart under no-touch) and cover every hit. Every other constraint of the
/// view concerns one ship alone and is already in its placements.
///
/// # Errors
/// [`Error::TooLarge`] past `max` fleets, when `post` is not exact, or when the enumeration
/// tries more than [`LIST_STEPS`] placements (a second or two: a guard, which no position of
/// the classic rules is known to reach) or the list would take more than [`LIST_BYTES`]
/// bytes; [`Error::Inconsistent`] when the enumeration
/// disagrees with the exact count, which means that `post` is not the exact posterior of
/// `view`; [`Error::Mismatch`] when `post` has another number of cells or ships, or a
/// ship placement that does not fit the ship (of another length, or off the board).
pub fn consistent_fleets(
    view: &View,
    post: &Posterior,
    max: usize,
) -> Result<Vec<Vec<u128>>, Error> {
    list_fleets(view, post, max, LIST_STEPS)
}

/// Checks that `post` has the board's cells and the fleet's ships of `view`: as many of
/// each, and every placement of a ship on the board and as long as that ship.
///
/// # Errors
/// [`Error::Mismatch`] otherwise.
pub(crate) fn check_fits(view: &View, post: &Posterior) -> Result<(), Error> {
    let rules = view.geometry().rules();
    let (cells, ships) = (rules.cells(), rules.fleet.len());
    if post.hit.len() != cells || post.ships.len() != ships {
        return Err(Error::Mismatch(format!(
            "{} cells and {} ships, the position has {cells} and {ships}",
            post.hit.len(),
            post.ships.len()
        )));
    }
    let board = view.geometry().all_cells();
    for (i, (list, ship)) in post.ships.iter().zip(&rules.fleet).enumerate() {
        if let Some(&(placement, _)) = list
            .iter()
            .find(|&&(c, _)| c & !board != 0 || c.count_ones() as usize != ship.length)
        {
            return Err(Error::Mismatch(format!(
                "ship {i} ({}, length {}) has a placement of {} cells{}",
                ship.name,
                ship.length,
                placement.count_ones(),
                if placement & !board != 0 {
                    " off the board"
                } else {
                    ""
                }
            )));
        }
    }
    Ok(())
}

/// Placements [`consistent_fleets`] may try before it gives up.
pub const LIST_STEPS: u64 = 200_000_000;

/// Memory [`consistent_fleets`] may take for its list (1 GiB): some ten million fleets of
/// five ships. The step limit alone would let a list outgrow the machine first.
pub const LIST_BYTES: usize = 1 << 30;

/// [`consistent_fleets`] with a given limit on the placements tried.
fn list_fleets(
    view: &View,
    post: &Posterior,
    max: usize,
    max_steps: u64,
) -> Result<Vec<Vec<u128>>, Error> {
    check_fits(view, post)?;
    let Some(total) = post.solutions else {
        return Err(Error::TooLarge(
            "the posterior is estimated, not exact".into(),
        ));
    };
    if total > max as u128 {
        return Err(Error::TooLarge(format!("{total} fleets, more than {max}")));
    }
    let geo = view.geometry();
    let no_touch = geo.rules().adjacency == crate::rules::Adjacency::NoTouch;
    let placements: Vec<Vec<(u128, u128)>> = post
        .ships
        .iter()
        .map(|list| {
            list.iter()
                .map(|&(cells, _)| {
                    let block = if no_touch { geo.halo_of(cells) } else { cells };
                    (cells, block)
                })
                .collect()
        })
        .collect();
    let required = view.hits() | view.sunk_cells();
    // reach[i]: every cell ships i.. can cover, to drop partial fleets that cannot cover
    // the hits.
    let mut reach = vec![0u128; placements.len() + 1];
    for i in (0..placements.len()).rev() {
        reach[i] = reach[i + 1] | placements[i].iter().fold(0, |a, &(c, _)| a | c);
    }
    // Every hit is covered by exactly one ship, so a whole fleet has exactly this many cells
    // off the hits; a partial fleet with more cannot be completed. Without this cut, a view
    // whose hits name no ship (bare feedback) lets the enumeration wander through millions
    // of partial fleets for a few thousand whole ones.
    let ship_cells: u32 = placements
        .iter()
        .filter_map(|list| list.first().map(|&(c, _)| c.count_ones()))
        .sum();
    // The count is within `max`, which may be far more than memory holds: the list is
    // reserved whole, within its memory limit, before the search.
    let fleet_bytes = std::mem::size_of::<Vec<u128>>() + 16 * placements.len();
    let too_large = || {
        Error::TooLarge(format!(
            "a list of {total} fleets takes more than {LIST_BYTES} bytes"
        ))
    };
    let listed = usize::try_from(total)
        .ok()
        .filter(|&n| n.saturating_mul(fleet_bytes) <= LIST_BYTES)
        .ok_or_else(too_large)?;
    let mut out = Vec::new();
    out.try_reserve_exact(listed).map_err(|_| too_large())?;
    let mut stack = Vec::with_capacity(placements.len());
    let ctx = Combine {
        placements: &placements,
        reach: &reach,
        required,
        spare: ship_cells.saturating_sub(required.count_ones()),
        steps: std::cell::Cell::new(max_steps),
    };
    if !ctx.run(0, 0, 0, &mut stack, &mut out) {
        return Err(Error::TooLarge(format!(
            "listing {total} fleets took more than {max_steps} steps"
        )));
    }
    if out.len() as u128 != total {
        return Err(Error::Inconsistent);
    }
    Ok(out)
}

struct Combine<'a> {
    placements: &'a [Vec<(u128, u128)>],
    reach: &'a [u128],
    required: u128,
    /// Ship cells off the required cells in a whole fleet.
    spare: u32,
    /// Placements still allowed to be tried.
    steps: std::cell::Cell<u64>,
}

impl Combine<'_> {
    /// Extends the partial fleet `stack` (covering `used`, its halo `blocked`, `off` of its
    /// cells off the required ones) by every compatible placement of the next ship; false
    /// when the steps run out.
    fn run(
        &self,
        used: u128,
        blocked: u128,
        off: u32,
        stack: &mut Vec<u128>,
        out: &mut Vec<Vec<u128>>,
    ) -> bool {
        let i = stack.len();
        if self.required & !used & !self.reach[i] != 0 {
            return true;
        }
        if i == self.placements.len() {
            out.push(stack.clone());
            return true;
        }
        let list = &self.placements[i];
        let Some(left) = self.steps.get().checked_sub(list.len() as u64) else {
            return false;
        };
        self.steps.set(left);
        for &(cells, block) in list {
            if cells & blocked != 0 || block & used != 0 {
                continue;
            }
            let off = off + (cells & !self.required).count_ones();
            if off > self.spare {
                continue;
            }
            stack.push(cells);
            let done = self.run(used | cells, blocked | block, off, stack, out);
            stack.pop();
            if !done {
                return false;
            }
        }
        true
    }
}

/// The probability distribution of the answer to a shot at `cell`, each answer labelled with
/// the [`Shot`] the game would give: the miss; then, under [`Feedback::Standard`], the
/// sinking of each ship still afloat (under [`Feedback::SunkRevealsCells`], of each of its
/// placements, as the cells tell them apart); then the plain hit, every hit that sinks nothing.
/// Under [`Feedback::HitNamesShip`] the hit is split by ship instead: the miss, then for each
/// ship (in the fleet's order, sunk ones included, at probability 0) the hit that names it
/// without sinking it and the hit that sinks it. Under [`Feedback::Bare`] there are the miss
/// and the hit. Used by the information-gain and hybrid shooters ([`answer_entropy`] is the
/// entropy of this distribution).
///
/// `post` must be a posterior of `view` (from [`posterior`] or [`exact_posterior`] of it):
/// this function returns plain numbers and checks nothing, so one of another board or fleet
/// gives meaningless ones ([`consistent_fleets`] checks).
///
/// ```
/// use battleship::{Geometry, Rules, Shot, View};
/// use battleship::infer::{answer_distribution, exact_posterior};
///
/// let geo = Geometry::new(&Rules::with_lengths(4, 1, &[2]))?;
/// let view = View::new(geo);
/// let post = exact_posterior(&view, &csp_core::Budget::default())?;
/// // The ship of 2 lies on cells 0-1, 1-2 or 2-3: a shot at cell 0 misses two times in three
/// // and never sinks it.
/// let d = answer_distribution(&view, &post, 0);
/// assert_eq!(d[0].0, Shot::Miss);
/// assert!((d[0].1 - 2.0 / 3.0).abs() < 1e-12);
/// assert_eq!(d[1], (Shot::Sunk { ship: 0, cells: None }, 0.0));
/// assert_eq!(d[2].0, Shot::Hit { ship: None });
/// # Ok::<(), battleship::Error>(())
/// ```
pub fn answer_distribution(view: &View, post: &Posterior, cell: usize) -> Vec<(Shot, f64)> {
    // A cell off the board (nothing there) is a certain miss.
    let m = cell_bit(cell);
    let p_hit = post.hit.get(cell).copied().unwrap_or(0.0).clamp(0.0, 1.0);
    let mut out = vec![(Shot::Miss, 1.0 - p_hit)];
    let feedback = view.geometry().rules().feedback;
    let plain = Shot::Hit { ship: None };
    match feedback {
        Feedback::Bare => out.push((plain, p_hit)),
        Feedback::HitNamesShip => {
            let known = view.hits() | view.sunk_cells();
            for (ship, list) in post.ships.iter().enumerate() {
                let (mut hit, mut sunk) = (0.0, 0.0);
                for (c, p) in list.iter().filter(|(c, _)| c & m != 0) {
                    if c & !known == m {
                        sunk += p;
                    } else {
                        hit += p;
                    }
                }
                out.push((Shot::Hit { ship: Some(ship) }, hit));
                out.push((Shot::Sunk { ship, cells: None }, sunk));
            }
        }
        Feedback::Standard | Feedback::SunkRevealsCells => {
            let known = view.hits() | view.sunk_cells();
            let mut sunk_total = 0.0;
            for (ship, list) in post.ships.iter().enumerate() {
                if view.sunk().get(ship).is_some_and(Option::is_some) {
                    continue;
                }
                if feedback == Feedback::SunkRevealsCells {
                    // Each sunk placement is its own answer.
                    for (c, p) in list {
                        if c & m != 0 && c & !known == m {
                            out.push((
                                Shot::Sunk {
                                    ship,
                                    cells: Some(*c),
                                },
                                *p,
                            ));
                            sunk_total += p;
                        }
                    }
                } else {
                    let s: f64 = list
                        .iter()
                        .filter(|(c, _)| c & m != 0 && c & !known == m)
                        .fold(0.0, |a, (_, p)| a + p);
                    out.push((Shot::Sunk { ship, cells: None }, s));
                    sunk_total += s;
                }
            }
            out.push((plain, (p_hit - sunk_total).max(0.0)));
        }
    }
    out
}

/// The entropy, in bits, of the answer to a shot at `cell`: how much the answer is expected
/// to tell (the information-gain shooter's score). Of [`answer_distribution`], with the same
/// requirement on `post`.
pub fn answer_entropy(view: &View, post: &Posterior, cell: usize) -> f64 {
    let p: Vec<f64> = answer_distribution(view, post, cell)
        .iter()
        .map(|&(_, p)| p)
        .collect();
    crate::shooters::entropy(&p)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::game::Game;
    use crate::rules::{Geometry, Rules};
    use crate::sim::{Placer, seeded_fleet};

    /// Ships of 3, 3 and 2 on 3x3 lie all across or all down (12 fleets each): moving one or
    /// two at a time, the chain keeps the direction it starts in; with blocks of three it
    /// finds the exact posterior. (All across, the middle column is always covered, where
    /// the exact chance of its end cells is 11/12: the stuck chain is 1/12 off there.)
    #[test]
    fn blocks_of_three_turn_a_full_board() {
        let geo = Geometry::new(&Rules::with_lengths(3, 3, &[3, 3, 2])).unwrap();
        let view = View::new(geo);
        let exact = exact_posterior(&view, &Budget::default()).unwrap();
        let mut worst = [0.0f64; 2];
        for seed in 0..4 {
            for (i, block) in [0, 3].into_iter().enumerate() {
                let config = PosteriorConfig {
                    exact_nodes: 0,
                    sweeps: 4000,
                    block,
                    ..PosteriorConfig::default()
                };
                let mut rng =
                    <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(seed);
                let s = sampled_posterior(&view, &config, &mut rng).unwrap();
                for (a, b) in s.hit.iter().zip(&exact.hit) {
                    worst[i] = worst[i].max((a - b).abs());
                }
            }
        }
        // Pairs: stuck. Blocks: 4000 independent draws, each cell within 5 standard errors
        // (at most 0.022) of the exact share.
        assert!(worst[0] > 0.08, "{worst:?}");
        assert!(worst[1] < 0.03, "{worst:?}");
    }

    /// A posterior from another position (another board, another fleet) is refused, not
    /// indexed past its end.
    #[test]
    fn a_posterior_of_another_position_is_refused() {
        let small = Geometry::new(&Rules::with_lengths(6, 6, &[3, 2])).unwrap();
        let fleet = seeded_fleet(&small, Placer::Uniform, 1, 0).unwrap();
        let mut game = Game::new(Arc::clone(&small), fleet).unwrap();
        let first = cells_of(game.fleet().cells(0)).next().unwrap();
        game.shoot(first).unwrap();
        let post = exact_posterior(game.view(), &Budget::default()).unwrap();
        let standard = View::new(Geometry::new(&Rules::standard()).unwrap());
        assert!(matches!(
            consistent_fleets(&standard, &post, 1000),
            Err(Error::Mismatch(_))
        ));
        let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(1);
        let e = crate::shooters::improvement_step(
            &standard,
            &post,
            Vec::new(),
            4,
            crate::optimal::Strategy::Greedy,
            1000,
            &mut rng,
        );
        assert!(matches!(e, Err(Error::Mismatch(_))), "{e:?}");
        // A five-ship posterior against the two-ship view: answers without a panic (it
        // indexed the view's two sinkings by the posterior's five ships).
        let wide = Posterior {
            hit: vec![0.5; 100],
            ships: vec![vec![(1, 1.0)]; 5],
            solutions: None,
            hit_std_errors: None,
            nodes: 0,
        };
        let d = answer_distribution(game.view(), &wide, 0);
        assert_eq!(d.len(), 7, "miss, a sinking per ship, hit: {d:?}");
        // The same board and number of ships in another order: the posterior's first ship
        // has placements of 2 cells, the view's first ship 3 (the listing returned fleets the
        // rules do not allow).
        let swapped = Geometry::new(&Rules::with_lengths(6, 6, &[2, 3])).unwrap();
        let other = exact_posterior(&View::new(swapped), &Budget::default()).unwrap();
        let e = consistent_fleets(&View::new(Arc::clone(&small)), &other, 100_000);
        assert!(
            matches!(&e, Err(Error::Mismatch(m)) if m.contains("length 3")),
            "{e:?}"
        );
    }

    /// A view of the standard board with bare feedback (no hit names its ship), met by the
    /// default shooter in a seeded game: 12 hits, 12 misses, 2942 fleets. Listing them used
    /// to try hundreds of millions of placements.
    fn bare_view() -> View {
        let rules = Rules {
            feedback: Feedback::Bare,
            ..Rules::standard()
        };
        let geo = Geometry::new(&rules).unwrap();
        let fleet = seeded_fleet(&geo, Placer::Uniform, 1, 49).unwrap();
        let hits: u128 = 0x100_4790_2409_0040_0000_0000;
        let misses: u128 = 0x4002_0844_4080_1222_0400_0000;
        let mut game = Game::new(geo, fleet).unwrap();
        for c in cells_of(hits | misses) {
            let shot = game.shoot(c).unwrap();
            assert_eq!(shot == crate::game::Shot::Miss, misses >> c & 1 == 1);
        }
        game.view().clone()
    }

    /// A list past its memory limit is refused before the search, however large `max`.
    #[test]
    fn listing_stops_at_its_memory_limit() {
        let geo = Geometry::new(&Rules::with_lengths(7, 7, &[3, 2, 2, 2])).unwrap();
        let view = View::new(geo);
        let post = exact_posterior(&view, &Budget::default()).unwrap();
        let n = post.solutions.unwrap();
        let bytes = (std::mem::size_of::<Vec<u128>>() + 16 * 4) as u128;
        assert!(n * bytes > LIST_BYTES as u128, "{n} fleets");
        let clock = std::time::Instant::now();
        let e = consistent_fleets(&view, &post, usize::MAX);
        assert!(
            matches!(&e, Err(Error::TooLarge(m)) if m.contains("bytes")),
            "{:?}",
            e.map(|l| l.len())
        );
        assert!(clock.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn listing_cuts_partial_fleets_and_stops_at_its_step_limit() {
        let view = bare_view();
        let post = exact_posterior(&view, &Budget::default()).unwrap();
        let n = post.solutions.unwrap() as usize;
        assert_eq!(n, 2942);
        // Under a million placements tried (without the cut on cells off the hits, more
        // than LIST_STEPS).
        let fleets = list_fleets(&view, &post, n, 1_000_000).unwrap();
        assert_eq!(fleets.len(), n);
        assert_eq!(consistent_fleets(&view, &post, n).unwrap(), fleets);
        assert!(matches!(
            list_fleets(&view, &post, n, 10),
            Err(Error::TooLarge(_))
        ));
        assert!(matches!(
            consistent_fleets(&view, &post, n - 1),
            Err(Error::TooLarge(_))
        ));
    }

    /// A count past the exact counters' range falls back to the chain, as a count past its
    /// node budget does: 32 single-cell ships on 128 cells under bare feedback, 31 of them
    /// hit, have 32! x 97 labelled fleets (more than 2^121) within a few dozen nodes.
    #[test]
    fn a_count_too_large_for_the_counters_is_sampled() {
        use crate::shooters::ShooterKind;
        use rand::SeedableRng;
        let names: Vec<String> = (0..32).map(|i| format!("ship {i}")).collect();
        let rules = Rules {
            width: 16,
            height: 8,
            fleet: names.iter().map(|n| crate::ShipSpec::new(n, 1)).collect(),
            adjacency: crate::Adjacency::Allowed,
            feedback: Feedback::Bare,
            salvo: 1,
        };
        let geo = Geometry::new(&rules).unwrap();
        let fleet = seeded_fleet(&geo, Placer::Uniform, 3, 0).unwrap();
        let ships = fleet.all_cells();
        let mut game = Game::new(geo, fleet).unwrap();
        for c in cells_of(ships).take(31) {
            game.shoot(c).unwrap();
        }
        let view = game.view();
        assert!(matches!(
            exact_posterior(view, &Budget::default()),
            Err(Error::Csp(CspError::CountOverflow))
        ));
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let config = PosteriorConfig::default();
        let post = posterior(view, &config, &mut rng).unwrap();
        assert!(!post.is_exact());
        // The last ship is on one of the 97 unknown cells, any alike.
        let unknown: Vec<f64> = cells_of(view.unknown()).map(|c| post.hit[c]).collect();
        assert_eq!(unknown.len(), 97);
        // The chain's estimates average each sweep's exact chances given the other ships,
        // which here are the same for every cell: exactly 1/97.
        for p in unknown {
            assert!((p - 1.0 / 97.0).abs() < 1e-12, "{p}");
        }
        for kind in [ShooterKind::Posterior, ShooterKind::Endgame] {
            let d = kind.build().choose(view, &mut rng).unwrap();
            assert!(view.unknown() >> d.cell & 1 == 1);
        }
    }
}
