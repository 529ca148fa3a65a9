//! Shooters: one trait, many strategies, from random fire to the exact posterior.
//!
//! Every shooter breaks ties uniformly at random with the generator it is given, so none can
//! be exploited by a fixed firing pattern, and every game is reproducible from its seed. That
//! includes the shooters that value only a few likeliest cells by search (`endgame`, 8 cells;
//! `lookahead`, 5): where the cut falls among equally likely cells, the ones kept are drawn
//! at random.

use std::fmt;
use std::str::FromStr;

use rand::{Rng, RngExt};

use crate::Error;
use crate::game::View;
use crate::infer::{Posterior, PosteriorConfig, answer_entropy, consistent_fleets, posterior};
use crate::optimal;
use crate::rules::{Adjacency, Geometry, cell_bit, cells_of};

mod article;
pub use article::{ArticleSampler, ArticleShooter, MAX_DRAW_NODES, article_layout};

/// One decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The cell to shoot.
    pub cell: usize,
    /// Whether it rests on estimated (sampled) rather than exact probabilities.
    pub estimated: bool,
}

/// A firing strategy.
///
/// # Example
///
/// A shooter of one's own on the crate's posterior, played by [`play`](crate::play): it
/// fires at the likeliest cell, breaking no ties (the built-in shooters break them at
/// random). The generator `choose` is given can be passed on to the inference functions.
///
/// ```
/// use battleship::rand::Rng;
/// use battleship::{Decision, Error, Geometry, Placer, Rules, Shooter, View, infer};
///
/// #[derive(Debug)]
/// struct Likeliest;
///
/// impl Shooter for Likeliest {
///     fn name(&self) -> &'static str {
///         "likeliest"
///     }
///
///     fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
///         let post = infer::posterior(view, &infer::PosteriorConfig::default(), rng)?;
///         let best = battleship::cells_of(view.unknown())
///             .max_by(|&a, &b| post.hit[a].total_cmp(&post.hit[b]))
///             .ok_or(Error::NoCellLeft)?;
///         Ok(Decision { cell: best, estimated: !post.is_exact() })
///     }
/// }
///
/// let geo = Geometry::new(&Rules::with_lengths(6, 6, &[3, 2]))?;
/// let fleet = battleship::seeded_fleet(&geo, Placer::Uniform, 1, 0)?;
/// let record = battleship::play(&geo, fleet, &mut Likeliest, 2);
/// assert!(record.error.is_none());
/// assert!((5..=36).contains(&record.shots));
/// # Ok::<(), battleship::Error>(())
/// ```
pub trait Shooter: fmt::Debug + Send {
    /// The strategy's name.
    fn name(&self) -> &'static str;

    /// The next cell to shoot, among [`View::unknown`].
    ///
    /// It does not check whether the game is over (every ship sunk): the caller does. The
    /// shooters on the posterior notice observations that contradict the rules; the heuristic
    /// ones (random, hunt-target, article, density) do not look that closely and still name a
    /// cell.
    ///
    /// # Errors
    /// [`Error::NoCellLeft`] when no cell is left; for the shooters on the posterior,
    /// [`Error::Inconsistent`] when the observations contradict the rules, and
    /// [`Error::Csp`] when the constraint engine gives up (e.g. no first fleet for the Markov
    /// chain found within its node budget, on a board packed too tightly).
    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error>;
}

/// Every shooter, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShooterKind {
    /// Uniformly random cells.
    Random,
    /// Random hunting; after a hit, the unshot neighbours of unexplained hits.
    HuntTarget,
    /// As hunt/target, hunting only on a lattice that every afloat ship must cross.
    HuntTargetParity,
    /// The published article's strategy (a faithful baseline, biased sampler included).
    Article,
    /// Per-ship placement counts (the usual public "probability density" method).
    Density,
    /// The highest posterior hit probability (exact, or sampled when exact is too costly).
    Posterior,
    /// The most informative shot: the largest entropy of the answer.
    InfoGain,
    /// Posterior hit probability, with information as a tie-breaker near the best.
    Hybrid,
    /// Two-shot look-ahead on the posterior (expected hits of this shot and the next).
    Lookahead,
    /// Posterior-greedy, with an exact search over the remaining fleets near the end.
    Endgame,
}

impl ShooterKind {
    /// Every shooter (the default, [`ShooterKind::BEST`], last).
    pub const ALL: [ShooterKind; 10] = [
        ShooterKind::Random,
        ShooterKind::HuntTarget,
        ShooterKind::HuntTargetParity,
        ShooterKind::Article,
        ShooterKind::Density,
        ShooterKind::InfoGain,
        ShooterKind::Hybrid,
        ShooterKind::Lookahead,
        ShooterKind::Posterior,
        ShooterKind::Endgame,
    ];

    /// The strongest shooter (the default of the commands).
    pub const BEST: ShooterKind = ShooterKind::Endgame;

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            ShooterKind::Random => "random",
            ShooterKind::HuntTarget => "hunt-target",
            ShooterKind::HuntTargetParity => "hunt-target-parity",
            ShooterKind::Article => "article",
            ShooterKind::Density => "density",
            ShooterKind::Posterior => "posterior",
            ShooterKind::InfoGain => "info-gain",
            ShooterKind::Hybrid => "hybrid",
            ShooterKind::Lookahead => "lookahead",
            ShooterKind::Endgame => "endgame",
        }
    }

    /// A fresh shooter of this kind.
    pub fn build(self) -> Box<dyn Shooter> {
        self.build_with(PosteriorConfig::default())
    }

    /// Whether the shooter fires on the posterior, so that a [`PosteriorConfig`] given to
    /// [`ShooterKind::build_with`] changes its play (the others ignore it).
    ///
    /// ```
    /// use battleship::ShooterKind;
    /// assert!(ShooterKind::BEST.uses_posterior());
    /// assert!(!ShooterKind::Density.uses_posterior());
    /// ```
    #[must_use]
    pub fn uses_posterior(self) -> bool {
        matches!(
            self,
            ShooterKind::Posterior
                | ShooterKind::InfoGain
                | ShooterKind::Hybrid
                | ShooterKind::Lookahead
                | ShooterKind::Endgame
        )
    }

    /// A fresh shooter of this kind; posterior-based shooters use `config`.
    pub fn build_with(self, config: PosteriorConfig) -> Box<dyn Shooter> {
        match self {
            ShooterKind::Random => Box::new(RandomShooter),
            ShooterKind::HuntTarget => Box::new(HuntTarget { parity: false }),
            ShooterKind::HuntTargetParity => Box::new(HuntTarget { parity: true }),
            ShooterKind::Article => Box::new(ArticleShooter::default()),
            ShooterKind::Density => Box::new(DensityShooter),
            ShooterKind::Posterior => Box::new(PosteriorShooter { config }),
            ShooterKind::InfoGain => Box::new(InfoGainShooter { config }),
            ShooterKind::Hybrid => Box::new(HybridShooter {
                config,
                ..HybridShooter::default()
            }),
            ShooterKind::Lookahead => Box::new(LookaheadShooter {
                config,
                ..LookaheadShooter::default()
            }),
            ShooterKind::Endgame => Box::new(EndgameShooter {
                config,
                ..EndgameShooter::default()
            }),
        }
    }
}

impl FromStr for ShooterKind {
    type Err = Error;
    /// Parses a shooter's name (ignoring ASCII case and surrounding whitespace), or `best`
    /// for [`ShooterKind::BEST`].
    ///
    /// ```
    /// use battleship::ShooterKind;
    /// assert_eq!(" Density ".parse::<ShooterKind>()?, ShooterKind::Density);
    /// assert_eq!("best".parse::<ShooterKind>()?, ShooterKind::BEST);
    /// assert!("sonar".parse::<ShooterKind>().is_err());
    /// # Ok::<(), battleship::Error>(())
    /// ```
    fn from_str(s: &str) -> Result<Self, Error> {
        if s.trim().eq_ignore_ascii_case("best") {
            return Ok(ShooterKind::BEST);
        }
        ShooterKind::ALL
            .into_iter()
            .find(|k| s.trim().eq_ignore_ascii_case(k.name()))
            .ok_or_else(|| {
                let names: Vec<&str> = ShooterKind::ALL.iter().map(|k| k.name()).collect();
                Error::UnknownName {
                    kind: "shooter",
                    name: s.to_string(),
                    expected: format!("one of {}, or best (the default)", names.join(", ")),
                }
            })
    }
}

impl fmt::Display for ShooterKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A uniformly random cell of `m`.
fn random_cell(m: u128, rng: &mut dyn Rng) -> Result<usize, Error> {
    let n = m.count_ones();
    if n == 0 {
        return Err(Error::NoCellLeft);
    }
    let k = rng.random_range(0..n);
    cells_of(m).nth(k as usize).ok_or(Error::NoCellLeft)
}

/// How far two scores near `x` may differ and still count as equal: 1e-12 relative (absolute
/// below 1), so that rounding in the posterior does not decide ties.
fn tolerance(x: f64) -> f64 {
    1e-12 * x.abs().max(1.0)
}

/// The cell of `candidates` with the highest score, ties (within [`tolerance`]) broken
/// uniformly at random.
fn argmax(
    candidates: u128,
    score: impl Fn(usize) -> f64,
    rng: &mut dyn Rng,
) -> Result<usize, Error> {
    let mut best = f64::NEG_INFINITY;
    let mut ties = 0u128;
    for c in cells_of(candidates) {
        // A score that is not a number ranks last (it compares with nothing).
        let s = score(c);
        let s = if s.is_nan() { f64::NEG_INFINITY } else { s };
        let tol = if best.is_finite() {
            tolerance(best)
        } else {
            0.0
        };
        if s > best + tol || ties == 0 {
            best = s;
            ties = 1u128 << c;
        } else if (s - best).abs() <= tol {
            ties |= 1u128 << c;
        }
    }
    random_cell(ties, rng)
}

/// The `k` cells of `cells` most likely to hit under `p`, likeliest first. Where the cut
/// falls inside a group of equally likely cells (within [`tolerance`], as in [`argmax`]),
/// the cells kept from that group are drawn uniformly at random with `rng`, which is used
/// only then: a fixed order (lowest index first) would let a placer predict which cells are
/// never compared.
fn likeliest(mut cells: Vec<usize>, p: &[f64], k: usize, rng: &mut dyn Rng) -> Vec<usize> {
    cells.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
    if k > 0 && cells.len() > k {
        let cut = p[cells[k - 1]];
        let tied = |c: usize| (p[c] - cut).abs() <= tolerance(cut);
        if tied(cells[k]) {
            // Sorted by probability, the tied cells are contiguous around the cut.
            let start = cells.iter().position(|&c| tied(c)).unwrap_or(k - 1);
            let end = cells.iter().rposition(|&c| tied(c)).map_or(k, |e| e + 1);
            for i in start..k {
                let j = rng.random_range(i..end);
                cells.swap(i, j);
            }
        }
    }
    cells.truncate(k);
    cells
}

/// The starts of a shape that would meet `mask` (the shape shifted back by each of its cells).
fn meeting(shape: u128, mask: u128) -> u128 {
    cells_of(shape).fold(0u128, |a, o| a | mask >> o)
}

/// Edge neighbours (up to 4) of a cell.
fn neighbours4(geo: &Geometry, m: u128) -> u128 {
    let w = geo.rules().width;
    let all = geo.all_cells();
    let mut left_col = 0u128;
    let mut right_col = 0u128;
    for y in 0..geo.rules().height {
        left_col |= 1u128 << (y * w);
        right_col |= 1u128 << (y * w + w - 1);
    }
    // A row as wide as the whole mask (128x1) has no cells above or below.
    let up_down = m.checked_shl(w as u32).unwrap_or(0) | m.checked_shr(w as u32).unwrap_or(0);
    (up_down | ((m & !right_col) << 1) | ((m & !left_col) >> 1)) & all
}

/// Fires uniformly at random.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomShooter;

impl Shooter for RandomShooter {
    fn name(&self) -> &'static str {
        "random"
    }
    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        Ok(Decision {
            cell: random_cell(view.unknown(), rng)?,
            estimated: false,
        })
    }
}

/// Hunt/target: hunts at random (optionally on a parity lattice), and targets the unshot
/// edge neighbours of hits not yet explained by a sunk ship.
#[derive(Debug, Clone, Copy, Default)]
pub struct HuntTarget {
    /// Hunt only on cells with `(x + y) % L == 0`, `L` the shortest afloat ship: every afloat
    /// ship crosses that lattice.
    pub parity: bool,
}

impl Shooter for HuntTarget {
    fn name(&self) -> &'static str {
        if self.parity {
            "hunt-target-parity"
        } else {
            "hunt-target"
        }
    }
    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        let geo = view.geometry();
        let unknown = view.unknown();
        let targets = neighbours4(geo, view.unresolved_hits()) & unknown;
        let cell = if targets != 0 {
            random_cell(targets, rng)?
        } else if self.parity {
            let rules = geo.rules();
            let l = view
                .afloat()
                .map(|i| rules.fleet[i].length)
                .min()
                .unwrap_or(1)
                .max(1);
            let lattice = cells_of(unknown)
                .filter(|&c| (c % rules.width + c / rules.width).is_multiple_of(l))
                .fold(0u128, |a, c| a | 1u128 << c);
            random_cell(if lattice != 0 { lattice } else { unknown }, rng)?
        } else {
            random_cell(unknown, rng)?
        };
        Ok(Decision {
            cell,
            estimated: false,
        })
    }
}

/// The usual public "probability density" method: for every afloat ship, count its
/// placements avoiding misses and sunk ships (under no-touch rules, their neighbours too);
/// when unexplained hits exist, count only placements through them, weighted by the number
/// of hits they cover. Otherwise it ignores interactions between ships (overlaps, covering
/// every hit at once, afloat ships keeping apart under no-touch).
///
/// It relies on sinks being announced: with [`Feedback::Bare`](crate::rules::Feedback::Bare) no hit is ever explained,
/// so it keeps firing beside every hit (a finished ship's line stays open to the other
/// ships' placements), and needs more shots than hunt-target with parity.
#[derive(Debug, Clone, Copy, Default)]
pub struct DensityShooter;

/// The density scores of every cell (see [`DensityShooter`]).
pub fn density(view: &View) -> Vec<f64> {
    let geo = view.geometry();
    let rules = geo.rules();
    let unresolved = view.unresolved_hits();
    let resolved = (view.hits() | view.sunk_cells()) & !unresolved;
    let mut blocked = view.misses() | resolved;
    // Under no-touch the cells around a sunk ship are water, as any player of the rules
    // knows. (No other ship may touch an unresolved hit either; like overlaps between the
    // afloat ships, that interaction is left out.)
    if rules.adjacency == Adjacency::NoTouch {
        blocked |= geo.halo_of(resolved);
    }
    let mut score = vec![0.0; rules.cells()];
    let add = |target: bool, score: &mut Vec<f64>| {
        let mut any = false;
        for i in view.afloat() {
            for f in geo.families(i) {
                for s in cells_of(f.starts() & !meeting(f.shape(), blocked)) {
                    let c = f.cells(s as u32);
                    let wgt = if target {
                        f64::from((c & unresolved).count_ones())
                    } else {
                        1.0
                    };
                    if wgt > 0.0 {
                        any = true;
                        for e in cells_of(c) {
                            score[e] += wgt;
                        }
                    }
                }
            }
        }
        any
    };
    if unresolved == 0 || !add(true, &mut score) {
        add(false, &mut score);
    }
    score
}

impl Shooter for DensityShooter {
    fn name(&self) -> &'static str {
        "density"
    }
    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        let s = density(view);
        Ok(Decision {
            cell: argmax(view.unknown(), |c| s[c], rng)?,
            estimated: false,
        })
    }
}

/// Posterior-greedy: shoots the cell most likely to hold a ship under the uniform
/// distribution over the fleets consistent with everything seen.
#[derive(Debug, Clone, Copy, Default)]
pub struct PosteriorShooter {
    /// How the posterior is computed.
    pub config: PosteriorConfig,
}

fn seeded_posterior(
    view: &View,
    config: &PosteriorConfig,
    rng: &mut dyn Rng,
) -> Result<Posterior, Error> {
    let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(rng.next_u64());
    posterior(view, config, &mut r)
}

use rand::SeedableRng;

/// The unknown cell with the best `score` on the posterior of `view` (ties broken with
/// `rng`): the common shape of the posterior-based shooters.
fn best_on_posterior(
    view: &View,
    config: &PosteriorConfig,
    rng: &mut dyn Rng,
    score: impl Fn(&Posterior, usize) -> f64,
) -> Result<Decision, Error> {
    let post = seeded_posterior(view, config, rng)?;
    Ok(Decision {
        cell: argmax(view.unknown(), |c| score(&post, c), rng)?,
        estimated: !post.is_exact(),
    })
}

impl Shooter for PosteriorShooter {
    fn name(&self) -> &'static str {
        "posterior"
    }
    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        best_on_posterior(view, &self.config, rng, |post, c| post.hit[c])
    }
}

/// Greedy play improved by exact look-ahead near the end: once few enough fleets remain
/// consistent (the exact posterior counts them), it enumerates them and fires the candidate
/// with the least exact expected number of shots to the end, assuming greedy play after it
/// ([`optimal::shot_values`]); before that, and whenever the exact search would be too
/// large, it plays as [`PosteriorShooter`].
#[derive(Debug, Clone, Copy)]
pub struct EndgameShooter {
    /// How the posterior is computed.
    pub config: PosteriorConfig,
    /// The search starts when at most this many fleets remain.
    pub max_fleets: usize,
    /// How many of the most likely cells are compared.
    pub candidates: usize,
    /// Knowledge states the exact search of one decision may store (see
    /// [`optimal::ExactLimits::max_states`]); past them it chooses among the candidates
    /// valued so far, or fires greedily if fewer than two were.
    pub max_states: usize,
}

impl Default for EndgameShooter {
    fn default() -> Self {
        EndgameShooter {
            config: PosteriorConfig::default(),
            max_fleets: 6000,
            candidates: 8,
            max_states: 200_000,
        }
    }
}

impl Shooter for EndgameShooter {
    fn name(&self) -> &'static str {
        "endgame"
    }
    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        let post = seeded_posterior(view, &self.config, rng)?;
        let estimated = !post.is_exact();
        let unknown = view.unknown();
        let best = cells_of(unknown).map(|c| post.hit[c]).fold(0.0, f64::max);
        if best < 1.0 - 1e-12
            && post.solutions.is_some_and(|n| n <= self.max_fleets as u128)
            && let Some(cell) = self.search(view, &post, rng)?
        {
            return Ok(Decision { cell, estimated });
        }
        Ok(Decision {
            cell: argmax(unknown, |c| post.hit[c], rng)?,
            estimated,
        })
    }
}

impl EndgameShooter {
    /// The candidate with the least expected number of shots, or `None` when the search is
    /// too large (the caller then plays greedily).
    fn search(
        &self,
        view: &View,
        post: &Posterior,
        rng: &mut dyn Rng,
    ) -> Result<Option<usize>, Error> {
        let fleets = match consistent_fleets(view, post, self.max_fleets) {
            Ok(f) => f,
            Err(Error::TooLarge(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        improvement_step(
            view,
            post,
            fleets,
            self.candidates,
            optimal::Strategy::GreedyFirst,
            self.max_states,
            rng,
        )
    }
}

/// One step of policy improvement, the [`EndgameShooter`]'s choice: among the `candidates`
/// likeliest cells of `post` that can hit, the one with the least expected number of shots
/// to the end when `then` plays on after it, valued exactly over `fleets` (per-ship cells of
/// the fleets taken as the equally likely ones left, e.g. [`consistent_fleets`]); ties go to
/// the likelier hit, then at random. Past `max_states` stored knowledge states the valuation
/// stops, and the choice is among the candidates valued by then, leaving out a group of
/// equally likely cells that it valued only in part (so that their indices do not decide
/// which are compared). `None` when no cell can hit (under salvo rules the rest may be
/// pending this turn) or the budget ran out with fewer than two candidates left to compare.
///
/// # Errors
/// [`Error::Inconsistent`] without fleets; [`Error::Mismatch`] when `post` has another
/// number of cells or ships than `view`, or a ship placement that does not fit the ship.
pub fn improvement_step(
    view: &View,
    post: &Posterior,
    fleets: Vec<Vec<u128>>,
    candidates: usize,
    then: optimal::Strategy,
    max_states: usize,
    rng: &mut dyn Rng,
) -> Result<Option<usize>, Error> {
    crate::infer::check_fits(view, post)?;
    let able: Vec<usize> = cells_of(view.unknown())
        .filter(|&c| post.hit[c] > 0.0)
        .collect();
    let mut order = likeliest(able, &post.hit, candidates.max(1), rng);
    if order.is_empty() {
        return Ok(None);
    }
    let shots = view.misses() | view.hits() | view.sunk_cells();
    let hits = view.hits() | view.sunk_cells();
    // The candidates valued within the budget, likeliest first. When the budget ran out
    // after one, that one is greedy's own choice, which the caller then makes with its
    // random tie-break.
    let (values, complete) = optimal::shot_values_within(
        view.geometry(),
        fleets,
        shots,
        hits,
        &order,
        then,
        max_states,
    )?;
    let valued = if complete {
        values.len()
    } else {
        whole_groups(&order, values.len(), &post.hit)
    };
    if !complete && valued < 2 {
        return Ok(None);
    }
    order.truncate(valued);
    let values = &values[..valued];
    // Least expected shots; ties to the likelier hit, then at random.
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let tied = order
        .iter()
        .zip(values)
        .filter(|&(_, &v)| v <= low + 1e-9)
        .fold(0u128, |m, (&c, _)| m | 1u128 << c);
    argmax(tied, |c| post.hit[c], rng).map(Some)
}

/// How many of the first `valued` cells of `order` (sorted likeliest first under `p`) to
/// compare when the valuation stopped there: all of them, unless the cell after them is as
/// likely as the last (within [`tolerance`]), and then those before that group of equally
/// likely cells. Equally likely cells are valued in index order (only those drawn at
/// [`likeliest`]'s cut are shuffled), so the valued part of a group cut short would be its
/// lowest cells, and a placer could learn which cells are never compared.
fn whole_groups(order: &[usize], valued: usize, p: &[f64]) -> usize {
    let Some(&next) = order.get(valued) else {
        return valued;
    };
    let q = p[next];
    let mut n = valued;
    while n > 0 && (p[order[n - 1]] - q).abs() <= tolerance(q) {
        n -= 1;
    }
    n
}

/// The entropy (bits) of a distribution given by probabilities.
pub fn entropy(p: &[f64]) -> f64 {
    p.iter()
        .filter(|&&x| x > 1e-15)
        .map(|&x| -x * x.log2())
        .sum()
}

/// Information gain: the shot whose answer is the least predictable (largest entropy), i.e.
/// the largest expected reduction of the posterior's entropy. Ties go to the likelier hit,
/// then at random: once every answer is certain (all entropies 0) it fires the certain hits,
/// not cells it knows to be water.
#[derive(Debug, Clone, Copy, Default)]
pub struct InfoGainShooter {
    /// How the posterior is computed.
    pub config: PosteriorConfig,
}

impl Shooter for InfoGainShooter {
    fn name(&self) -> &'static str {
        "info-gain"
    }
    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        let post = seeded_posterior(view, &self.config, rng)?;
        let unknown = view.unknown();
        let info: Vec<(usize, f64)> = cells_of(unknown)
            .map(|c| (c, answer_entropy(view, &post, c)))
            .collect();
        let top = info
            .iter()
            .map(|&(_, h)| h)
            .fold(f64::NEG_INFINITY, f64::max);
        let most = info
            .iter()
            .filter(|&&(_, h)| h >= top - tolerance(top))
            .fold(0u128, |m, &(c, _)| m | 1u128 << c);
        Ok(Decision {
            cell: argmax(most, |c| post.hit[c], rng)?,
            estimated: !post.is_exact(),
        })
    }
}

/// Hybrid: the posterior hit probability, plus a small weight on the answer's entropy, so
/// that among shots almost equally likely to hit, the more informative one is taken.
#[derive(Debug, Clone, Copy)]
pub struct HybridShooter {
    /// How the posterior is computed.
    pub config: PosteriorConfig,
    /// Weight of the entropy (bits) against the hit probability. NaN reads as 0, and a
    /// weight beyond ±1e9 as ±1e9, so that every score is a finite number and equal ones
    /// stay ties.
    pub info_weight: f64,
}

impl Default for HybridShooter {
    fn default() -> Self {
        HybridShooter {
            config: PosteriorConfig::default(),
            info_weight: 0.05,
        }
    }
}

impl Shooter for HybridShooter {
    fn name(&self) -> &'static str {
        "hybrid"
    }
    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        let w = if self.info_weight.is_nan() {
            0.0
        } else {
            self.info_weight.clamp(-1e9, 1e9)
        };
        best_on_posterior(view, &self.config, rng, |post, c| {
            post.hit[c] + w * answer_entropy(view, post, c)
        })
    }
}

/// Two-shot look-ahead on the posterior: among the cells most likely to hit, the one that
/// maximises the expected number of hits over this shot and the best next shot, the next shot
/// being chosen after seeing this shot's answer (miss, hit, or which ship it sinks).
///
/// The hit probabilities are the posterior's (exact or estimated, as for
/// [`PosteriorShooter`]); the second shot's value is estimated from fleets drawn by the
/// Markov chain of csp-core ([`csp_core::PlacementChain`]), which keeps each decision within
/// a few milliseconds.
#[derive(Debug, Clone, Copy)]
pub struct LookaheadShooter {
    /// How the posterior is computed.
    pub config: PosteriorConfig,
    /// Fleets drawn for the look-ahead (one per chain sweep, after a burn-in).
    pub samples: u32,
    /// How many of the most likely cells are compared.
    pub candidates: usize,
    /// Only cells whose hit probability is at least this fraction of the best are compared.
    pub min_ratio: f64,
}

impl Default for LookaheadShooter {
    fn default() -> Self {
        LookaheadShooter {
            config: PosteriorConfig::default(),
            samples: 800,
            candidates: 5,
            min_ratio: 0.8,
        }
    }
}

/// Fleets drawn from the Markov chain over the fleets consistent with `view`: per fleet, the
/// cells of every ship (in fleet order).
///
/// # Errors
/// [`Error::Inconsistent`] when no fleet fits the observations.
pub fn chain_fleets(
    view: &View,
    burn_in: u64,
    samples: u32,
    rng: &mut (impl Rng + ?Sized),
) -> Result<Vec<Vec<u128>>, Error> {
    let p = crate::infer::problem(view)?;
    let n = p.num_vars();
    let mut chain = csp_core::PlacementChain::new(
        &p,
        &csp_core::Budget {
            max_nodes: 5_000_000,
        },
        rng,
    )
    .map_err(|e| match e {
        csp_core::CspError::Inconsistent => Error::Inconsistent,
        e => Error::Csp(e),
    })?;
    for _ in 0..burn_in {
        chain.sweep(rng);
    }
    let mut out = Vec::with_capacity(samples.min(1 << 16) as usize);
    for _ in 0..samples {
        chain.sweep(rng);
        out.push((0..n).filter_map(|v| chain.cells(v)).collect());
    }
    Ok(out)
}

/// The answer to a shot at `cell` from a drawn fleet (`known`: the cells already hit), as the
/// feedback rule gives it: the exact search's own [`optimal::answer`].
fn answer_to(view: &View, fleet: &[u128], cell: usize, known: u128) -> crate::Shot {
    let feedback = view.geometry().rules().feedback;
    optimal::answer(fleet.iter().copied(), known, cell, feedback).0
}

/// Expected hits of the best second shot after a shot at `cell`, per drawn fleet: for every
/// answer the shot can get, the largest number of drawn fleets (of those giving it) covering
/// one unknown cell, summed over answers and divided by the number of fleets. A cell off the
/// board is a certain miss. The fleets must be fleets of `view`'s rules (as
/// [`consistent_fleets`] lists them): nothing is checked.
pub fn second_shot_value(view: &View, fleets: &[Vec<u128>], cell: usize) -> f64 {
    if fleets.is_empty() {
        return 0.0;
    }
    let known = view.hits() | view.sunk_cells();
    let open = view.unknown() & !cell_bit(cell);
    let cells = view.geometry().rules().cells();
    // Per answer, how many fleets giving it cover each cell; answers are few (a handful, or
    // under sunk-reveals-cells one per revealed placement), so a list beats hashing.
    let mut counts: Vec<(crate::Shot, Vec<u32>)> = Vec::new();
    for f in fleets {
        let answer = answer_to(view, f, cell, known);
        let at = match counts.iter().position(|(a, _)| *a == answer) {
            Some(at) => at,
            None => {
                counts.push((answer, vec![0; cells]));
                counts.len() - 1
            }
        };
        let union = f.iter().fold(0u128, |u, c| u | c) & open;
        for d in cells_of(union) {
            counts[at].1[d] += 1;
        }
    }
    let total: u32 = counts
        .iter()
        .map(|(_, row)| row.iter().copied().max().unwrap_or(0))
        .sum();
    f64::from(total) / fleets.len() as f64
}

impl Shooter for LookaheadShooter {
    fn name(&self) -> &'static str {
        "lookahead"
    }
    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(rng.next_u64());
        let post = posterior(view, &self.config, &mut r)?;
        let unknown = view.unknown();
        let order = likeliest(
            cells_of(unknown).collect(),
            &post.hit,
            self.candidates.max(1),
            &mut r,
        );
        let Some(&first) = order.first() else {
            return Err(Error::NoCellLeft);
        };
        let best = post.hit[first];
        let cands = order
            .iter()
            .filter(|&&c| post.hit[c] >= self.min_ratio * best)
            .fold(0u128, |m, &c| m | 1u128 << c);
        if cands.count_ones() <= 1 || best >= 1.0 - 1e-9 {
            return Ok(Decision {
                cell: argmax(unknown, |c| post.hit[c], rng)?,
                estimated: !post.is_exact(),
            });
        }
        let fleets = chain_fleets(view, self.config.burn_in, self.samples, &mut r)?;
        let cell = argmax(
            cands,
            |c| post.hit[c] + second_shot_value(view, &fleets, c),
            rng,
        )?;
        Ok(Decision {
            cell,
            estimated: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Feedback, Placer, Rules, ShipSpec, Shot, game_seed, play, seeded_fleet};

    #[test]
    fn argmax_draws_uniformly_among_scores_equal_within_a_relative_tolerance() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        let cells = [3usize, 5, 9, 70, 127];
        let m = cells.iter().fold(0u128, |m, &c| m | 1u128 << c);
        // At scale 1 and at scale 10^6: three scores equal within 1e-12 relative, two lower.
        for scale in [1.0, 1e6] {
            let score = |c: usize| {
                scale
                    * match c {
                        3 => 1.0,
                        5 => 1.0 + 1e-13,
                        70 => 1.0 - 1e-13,
                        9 => 0.5,
                        _ => 0.2,
                    }
            };
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            let mut picked = [0u32; 128];
            for _ in 0..3000 {
                picked[argmax(m, score, &mut rng).unwrap()] += 1;
            }
            assert_eq!(picked[9] + picked[127], 0);
            // 1000 expected each, s.d. about 26.
            for c in [3, 5, 70] {
                assert!(
                    (880..=1120).contains(&picked[c]),
                    "{scale}: {c} {}",
                    picked[c]
                );
            }
        }
        // A clear maximum is always taken; no candidate is an error.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        assert_eq!(argmax(m, |c| c as f64, &mut rng).unwrap(), 127);
        assert_eq!(argmax(m, |c| -(c as f64), &mut rng).unwrap(), 3);
        assert!(argmax(0, |_| 0.0, &mut rng).is_err());
        // A score that is not a number ranks last, wherever it comes.
        for nan_cell in cells {
            let score = |c: usize| if c == nan_cell { f64::NAN } else { c as f64 };
            let best = if nan_cell == 127 { 70 } else { 127 };
            assert_eq!(argmax(m, score, &mut rng).unwrap(), best, "{nan_cell}");
        }
    }

    /// Under no-touch the density keeps off the cells around a sunk ship; with touching
    /// allowed they stay open.
    #[test]
    fn density_keeps_off_the_cells_around_sunk_ships_under_no_touch() {
        for adjacency in [Adjacency::Allowed, Adjacency::NoTouch] {
            let rules = Rules {
                adjacency,
                ..Rules::with_lengths(6, 6, &[3, 2])
            };
            let geo = Geometry::new(&rules).unwrap();
            let mut view = View::new(Arc::clone(&geo));
            // The 3 along the top edge, cells 0, 1 and 2, sunk.
            view.record(0, Shot::Hit { ship: None }).unwrap();
            view.record(1, Shot::Hit { ship: None }).unwrap();
            view.record(
                2,
                Shot::Sunk {
                    ship: 0,
                    cells: None,
                },
            )
            .unwrap();
            let d = density(&view);
            let around = [3, 6, 7, 8, 9];
            for c in around {
                assert_eq!(
                    d[c] == 0.0,
                    adjacency == Adjacency::NoTouch,
                    "{adjacency:?} {c}"
                );
            }
            // Elsewhere the 2 can lie anywhere: the far corner still scores.
            assert!(d[35] > 0.0);
        }
    }

    /// An entropy weight that is not a number plays as 0, and one past 1e9 as 1e9: scores
    /// stay finite, and the hybrid keeps to the cells that may hit.
    #[test]
    fn the_hybrid_reads_wild_weights_as_finite_ones() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        let geo = Geometry::new(&Rules::with_lengths(6, 6, &[3, 2])).unwrap();
        let mut view = View::new(geo);
        view.record(14, crate::game::Shot::Hit { ship: None })
            .unwrap();
        let choose = |info_weight: f64, seed: u64| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut h = HybridShooter {
                info_weight,
                ..HybridShooter::default()
            };
            h.choose(&view, &mut rng).unwrap().cell
        };
        for seed in 0..20 {
            assert_eq!(choose(f64::NAN, seed), choose(0.0, seed));
            let near = [8, 13, 15, 20];
            assert!(near.contains(&choose(0.0, seed)), "{}", choose(0.0, seed));
            for w in [f64::INFINITY, f64::MAX] {
                assert_eq!(choose(w, seed), choose(1e9, seed));
                assert_eq!(choose(-w, seed), choose(-1e9, seed));
            }
        }
    }

    #[test]
    fn likeliest_draws_the_cells_kept_at_a_tied_cut() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        // Cells 0-1 are the likeliest; 2, 3, 4 and 5 tie below them; 6 trails.
        let p = [0.9, 0.8, 0.5, 0.5, 0.5, 0.5, 0.1];
        let mut kept = [0u32; 7];
        for seed in 0..4000 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let top = likeliest((0..7).collect(), &p, 3, &mut rng);
            assert_eq!(top.len(), 3);
            assert_eq!(&top[..2], &[0, 1], "the untied cells keep their places");
            for c in top {
                kept[c] += 1;
            }
        }
        assert_eq!((kept[0], kept[1], kept[6]), (4000, 4000, 0));
        // Each tied cell is kept a quarter of the time: 1000 expected, s.d. about 27.
        for (c, &n) in kept.iter().enumerate().take(6).skip(2) {
            assert!((850..=1150).contains(&n), "cell {c} kept {n} times of 4000");
        }
        // Two of the tied group kept, among 4: each kept half the time.
        let mut pairs = [0u32; 7];
        for seed in 0..4000 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            for c in likeliest((0..7).rev().collect(), &p, 4, &mut rng) {
                pairs[c] += 1;
            }
        }
        for (c, &n) in pairs.iter().enumerate().take(6).skip(2) {
            assert!(
                (1850..=2150).contains(&n),
                "cell {c} kept {n} times of 4000"
            );
        }
    }

    #[test]
    fn posterior_shooters_use_the_config_they_are_built_with_and_their_names() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        let view = View::new(small(Feedback::Standard));
        let sampled = PosteriorConfig {
            exact_nodes: 0,
            ..PosteriorConfig::default()
        };
        for kind in [
            ShooterKind::Posterior,
            ShooterKind::InfoGain,
            ShooterKind::Hybrid,
            ShooterKind::Endgame,
        ] {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
            let mut exact = kind.build_with(PosteriorConfig::default());
            assert_eq!(exact.name(), kind.name());
            assert!(
                !exact.choose(&view, &mut rng).unwrap().estimated,
                "{kind:?}"
            );
            let mut chain = kind.build_with(sampled);
            assert!(chain.choose(&view, &mut rng).unwrap().estimated, "{kind:?}");
        }
        // The look-ahead estimates its second shot from drawn fleets whatever the config.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut look = ShooterKind::Lookahead.build_with(sampled);
        assert_eq!(look.name(), "lookahead");
        assert!(look.choose(&view, &mut rng).unwrap().estimated);
    }

    #[test]
    fn the_endgame_search_leaves_greedy_play_where_it_finds_better() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        // 5x5 with ships of 3 and 2, nothing shot: 956 fleets, few enough to search. The
        // centre is the likeliest hit, but firing beside it leaves fewer shots to the end.
        let rules = Rules {
            width: 5,
            height: 5,
            fleet: vec![ShipSpec::new("A", 3), ShipSpec::new("B", 2)],
            ..Rules::standard()
        };
        let view = View::new(Geometry::new(&rules).unwrap());
        for seed in 0..10 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let greedy = PosteriorShooter::default().choose(&view, &mut rng).unwrap();
            assert_eq!(greedy.cell, 12);
            let endgame = EndgameShooter::default().choose(&view, &mut rng).unwrap();
            assert_ne!(endgame.cell, 12);
            assert!(!endgame.estimated);
            // Below its fleet threshold it plays greedily.
            let mut small = EndgameShooter {
                max_fleets: 955,
                ..EndgameShooter::default()
            };
            assert_eq!(small.choose(&view, &mut rng).unwrap().cell, 12);
        }
    }

    #[test]
    fn likeliest_uses_no_randomness_without_a_tie_at_the_cut() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        let p = [0.2, 0.5, 0.5, 0.9, 0.1, 0.1];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut fresh = rng.clone();
        // The cut (3 cells) falls between 0.5 and 0.2; the tie below it does not matter.
        let top = likeliest((0..6).collect(), &p, 3, &mut rng);
        assert_eq!(top[0], 3);
        let mut rest = top[1..].to_vec();
        rest.sort_unstable();
        assert_eq!(rest, vec![1, 2]);
        assert_eq!(rng.next_u64(), fresh.next_u64(), "no draw was made");
        // Fewer cells than the cut: all of them, likeliest first.
        assert_eq!(likeliest(vec![4, 0], &p, 3, &mut rng), vec![0, 4]);
        assert!(likeliest(Vec::new(), &p, 3, &mut rng).is_empty());
        assert!(likeliest((0..6).collect(), &p, 0, &mut rng).is_empty());
    }

    fn small(feedback: Feedback) -> Arc<Geometry> {
        let rules = Rules {
            width: 3,
            height: 3,
            fleet: vec![ShipSpec::new("A", 3), ShipSpec::new("B", 2)],
            feedback,
            ..Rules::standard()
        };
        Geometry::new(&rules).unwrap()
    }

    fn m(cells: &[usize]) -> u128 {
        cells.iter().fold(0, |a, &c| a | 1u128 << c)
    }

    #[test]
    fn second_shot_value_counts_the_best_cell_per_answer() {
        let fleets = vec![
            vec![m(&[0, 1, 2]), m(&[3, 4])],
            vec![m(&[6, 7, 8]), m(&[4, 5])],
            vec![m(&[0, 3, 6]), m(&[7, 8])],
        ];
        let view = View::new(small(Feedback::Bare));
        // Centre: two hits with no common next cell, one miss.
        assert!((second_shot_value(&view, &fleets, 4) - 2.0 / 3.0).abs() < 1e-12);
        // Corner: the two hits share cell 3, the miss has a cell of its own.
        assert!((second_shot_value(&view, &fleets, 0) - 1.0).abs() < 1e-12);
        assert_eq!(second_shot_value(&view, &[], 0), 0.0);
        // Off the board: a certain miss, after which the best cell (3, say) holds a ship in
        // two of the three fleets.
        for off in [9, 127, 128, usize::MAX] {
            assert!((second_shot_value(&view, &fleets, off) - 2.0 / 3.0).abs() < 1e-12);
        }
    }

    #[test]
    fn second_shot_value_uses_the_sunk_answer() {
        let fleets = vec![
            vec![m(&[0, 1, 2]), m(&[3, 4])],
            vec![m(&[6, 7, 8]), m(&[4, 5])],
            vec![m(&[0, 3, 6]), m(&[7, 8])],
        ];
        let bare = View::from_masks(small(Feedback::Bare), 0, m(&[3]), 0).unwrap();
        let standard = View::from_masks(small(Feedback::Standard), 0, m(&[3]), 0).unwrap();
        // With cell 3 hit, a shot at 4 sinks B in the first fleet: "sunk" tells it apart
        // from the second fleet's plain hit.
        assert!((second_shot_value(&bare, &fleets, 4) - 2.0 / 3.0).abs() < 1e-12);
        assert!((second_shot_value(&standard, &fleets, 4) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_valuation_cut_short_compares_only_whole_groups_of_equally_likely_cells() {
        let p = [0.5, 0.4, 0.4, 0.4, 0.2, 0.2, 0.0];
        let order = [0, 1, 2, 3, 4, 5];
        // Stopped inside the group of 0.4: only the cell before it.
        assert_eq!(whole_groups(&order, 2, &p), 1);
        assert_eq!(whole_groups(&order, 3, &p), 1);
        // Stopped between groups, or with every candidate valued: all of them.
        assert_eq!(whole_groups(&order, 4, &p), 4);
        assert_eq!(whole_groups(&order, 1, &p), 1);
        assert_eq!(whole_groups(&order, 6, &p), 6);
        // Inside the first group: none.
        let flat = [0.3; 4];
        assert_eq!(whole_groups(&[0, 1, 2, 3], 2, &flat), 0);
        // Equal within the relative tolerance counts as equal.
        let near = [0.4, 0.4 * (1.0 + 1e-14), 0.1];
        assert_eq!(whole_groups(&[0, 1, 2], 1, &near), 0);
    }

    #[test]
    fn second_shot_value_tells_apart_every_answer_the_rules_give() {
        let fleets = vec![
            vec![m(&[0, 1, 2]), m(&[3, 4])],
            vec![m(&[6, 7, 8]), m(&[4, 5])],
            vec![m(&[0, 3, 6]), m(&[7, 8])],
        ];
        // (The fleets are taken as given; they need not fit the views.) With cell 3 hit, a
        // shot at 4 sinks B in the first fleet and hits it in the second: under
        // hit-names-ship both name B, and only the sinking tells them apart.
        let named = View::from_masks(small(Feedback::HitNamesShip), 0, m(&[3]), 0).unwrap();
        assert!((second_shot_value(&named, &fleets, 4) - 1.0).abs() < 1e-12);
        // A first shot at 0 hits A in one fleet and B in the other: only the name tells.
        let apart = vec![
            vec![m(&[0, 1, 2]), m(&[4, 5])],
            vec![m(&[6, 7, 8]), m(&[0, 3])],
        ];
        let fresh = |f| View::new(small(f));
        assert!((second_shot_value(&fresh(Feedback::HitNamesShip), &apart, 0) - 1.0).abs() < 1e-12);
        assert!((second_shot_value(&fresh(Feedback::Standard), &apart, 0) - 0.5).abs() < 1e-12);
        // With cells 3 and 5 hit, a shot at 4 sinks B in the first two fleets, on (3, 4) or
        // on (4, 5): only revealed cells tell them apart.
        let fleets = &fleets[..2];
        let hits = m(&[3, 5]);
        let standard = View::from_masks(small(Feedback::Standard), 0, hits, 0).unwrap();
        let revealed = View::from_masks(small(Feedback::SunkRevealsCells), 0, hits, 0).unwrap();
        assert!((second_shot_value(&standard, fleets, 4) - 0.5).abs() < 1e-12);
        assert!((second_shot_value(&revealed, fleets, 4) - 1.0).abs() < 1e-12);
    }

    /// Once every answer is certain, information gain has nothing to choose by: it fires the
    /// certain hit, not the cell it knows to be water (a 4x1 board, one ship of 2, cell 1 hit
    /// and cell 0 missed: the ship is on cells 1 and 2).
    #[test]
    fn information_gain_fires_certain_hits_once_nothing_is_left_to_learn() {
        use rand::SeedableRng;
        for feedback in Feedback::ALL {
            let rules = Rules {
                width: 4,
                height: 1,
                fleet: vec![ShipSpec::new("A", 2)],
                feedback,
                ..Rules::standard()
            };
            let geo = Geometry::new(&rules).unwrap();
            let view = View::from_masks(geo, m(&[0]), m(&[1]), 0).unwrap();
            for seed in 0..20 {
                let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
                let d = ShooterKind::InfoGain
                    .build()
                    .choose(&view, &mut rng)
                    .unwrap();
                assert_eq!(d.cell, 2, "{feedback:?}, seed {seed}");
            }
        }
    }

    /// The valuation may stop inside a group of equally likely cells whose valued part holds
    /// the best value of all: the choice is then among the whole groups before it. On a 4x3
    /// board with ships of 3 and 2, misses at cells 1 and 4, and room for 6 stored states,
    /// three cells are valued, and the third, left out, is the best.
    #[test]
    fn the_best_value_may_lie_in_the_group_left_out() {
        use crate::optimal::Strategy;
        use rand::SeedableRng;
        let rules = Rules {
            width: 4,
            height: 3,
            fleet: vec![ShipSpec::new("A", 3), ShipSpec::new("B", 2)],
            ..Rules::standard()
        };
        let geo = Geometry::new(&rules).unwrap();
        let misses = m(&[1, 4]);
        let view = View::from_masks(geo.clone(), misses, 0, 0).unwrap();
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let post = posterior(&view, &PosteriorConfig::default(), &mut rng).unwrap();
        let fleets = consistent_fleets(&view, &post, 1000).unwrap();
        let mut order: Vec<usize> = (0..12).filter(|&c| post.hit[c] > 0.0).collect();
        order.sort_by(|&a, &b| post.hit[b].total_cmp(&post.hit[a]));
        let then = Strategy::GreedyFirst;
        let (v, complete) =
            optimal::shot_values_within(&geo, fleets.clone(), misses, 0, &order, then, 6).unwrap();
        assert!(!complete);
        assert_eq!((v.len(), whole_groups(&order, v.len(), &post.hit)), (3, 2));
        assert!(v[2] < v[0] && v[0] < v[1], "{v:?}");
        for seed in 0..8 {
            let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let cell = improvement_step(&view, &post, fleets.clone(), 12, then, 6, &mut r);
            assert_eq!(cell.unwrap(), Some(order[0]));
        }
    }

    #[test]
    fn improvement_step_over_every_cell_plays_an_optimal_first_shot() {
        use crate::optimal::{ExactLimits, Strategy, exact_mean_shots};
        use rand::SeedableRng;
        let geo = small(Feedback::Standard);
        let view = View::new(geo.clone());
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let post = posterior(&view, &PosteriorConfig::default(), &mut rng).unwrap();
        let fleets = consistent_fleets(&view, &post, 10_000).unwrap();
        // The whole game solved independently: its optimal first shots and their value.
        let exact = exact_mean_shots(&geo, Strategy::Optimal, &ExactLimits::default()).unwrap();
        let all = geo.rules().cells();
        for seed in 0..4 {
            let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let cell = improvement_step(
                &view,
                &post,
                fleets.clone(),
                all,
                Strategy::Optimal,
                1 << 20,
                &mut r,
            )
            .unwrap()
            .unwrap();
            assert!(exact.first_shots.contains(&cell), "{cell} {exact:?}");
            // Nothing shot yet: no shots, no hits.
            let v = optimal::shot_values(
                &geo,
                fleets.clone(),
                0,
                0,
                &[cell],
                Strategy::Optimal,
                1 << 20,
            )
            .unwrap();
            assert!((v[0] - exact.mean_shots).abs() < 1e-9);
        }
        // One candidate: the likeliest hit.
        let best = (0..all).map(|c| post.hit[c]).fold(0.0, f64::max);
        let one = improvement_step(
            &view,
            &post,
            fleets.clone(),
            1,
            Strategy::GreedyFirst,
            1 << 20,
            &mut rng,
        )
        .unwrap()
        .unwrap();
        assert_eq!(post.hit[one], best);
        // With room for some candidates only, it takes the best of those, from whole groups
        // of equally likely cells (on the empty board all nine are alike; after a miss they
        // form groups by the board's symmetries).
        let then = Strategy::GreedyFirst;
        let (mut tried, mut declined) = (0, 0);
        for miss in 0..all {
            let view = View::from_masks(geo.clone(), m(&[miss]), 0, 0).unwrap();
            let post = posterior(&view, &PosteriorConfig::default(), &mut rng).unwrap();
            let fleets = consistent_fleets(&view, &post, 10_000).unwrap();
            let mut order: Vec<usize> = (0..all).filter(|&c| post.hit[c] > 0.0).collect();
            order.sort_by(|&a, &b| post.hit[b].total_cmp(&post.hit[a]));
            for budget in 1..80 {
                let (v, complete) = optimal::shot_values_within(
                    &geo,
                    fleets.clone(),
                    m(&[miss]),
                    0,
                    &order,
                    then,
                    budget,
                )
                .unwrap();
                let cell =
                    improvement_step(&view, &post, fleets.clone(), all, then, budget, &mut rng)
                        .unwrap();
                if complete {
                    continue;
                }
                let n = whole_groups(&order, v.len(), &post.hit);
                if n < 2 {
                    assert_eq!(cell, None, "miss {miss}, budget {budget}");
                    declined += 1;
                    continue;
                }
                tried += 1;
                let low = v[..n].iter().copied().fold(f64::INFINITY, f64::min);
                let at = order.iter().position(|&c| Some(c) == cell).unwrap();
                assert!(
                    at < n && v[at] <= low + 1e-9,
                    "miss {miss}, budget {budget}"
                );
            }
        }
        // Both cases met: stopped between groups, and inside the first.
        assert!(tried > 0 && declined > 0, "{tried} {declined}");
        let view = View::from_masks(geo.clone(), m(&[0]), 0, 0).unwrap();
        let post = posterior(&view, &PosteriorConfig::default(), &mut rng).unwrap();
        let fleets = consistent_fleets(&view, &post, 10_000).unwrap();
        // Over its state budget it declines; without fleets it is an error.
        let tiny = improvement_step(&view, &post, fleets, all, Strategy::Optimal, 1, &mut rng);
        assert_eq!(tiny.unwrap(), None);
        let none = improvement_step(
            &view,
            &post,
            Vec::new(),
            all,
            Strategy::Optimal,
            1 << 20,
            &mut rng,
        );
        assert!(matches!(none, Err(Error::Inconsistent)));
    }

    #[test]
    fn every_shooter_plays_on_a_single_row_or_column_of_128_cells() {
        // The widest boards the rules allow: a row of 128 cells has nothing above or below.
        for (width, height) in [(128, 1), (1, 128)] {
            let rules = Rules {
                width,
                height,
                fleet: vec![ShipSpec::new("Patrol", 2)],
                ..Rules::standard()
            };
            let geo = Geometry::new(&rules).unwrap();
            let fleet = seeded_fleet(&geo, Placer::Uniform, 1, 0).unwrap();
            for kind in ShooterKind::ALL {
                let mut s = kind.build();
                let rec = play(&geo, fleet.clone(), s.as_mut(), game_seed(1, 0));
                assert!(rec.error.is_none(), "{kind}: {:?}", rec.error);
                assert!((2..=128).contains(&rec.shots), "{kind}: {}", rec.shots);
            }
        }
    }

    #[test]
    fn lookahead_games_finish_and_repeat_with_the_seed() {
        let rules = Rules {
            width: 6,
            height: 6,
            fleet: vec![
                ShipSpec::new("Cruiser", 3),
                ShipSpec::new("Destroyer", 2),
                ShipSpec::new("Patrol", 2),
            ],
            ..Rules::standard()
        };
        let geo = Geometry::new(&rules).unwrap();
        for i in 0..3 {
            let fleet = seeded_fleet(&geo, Placer::Uniform, 3, i).unwrap();
            let shots: Vec<u32> = (0..2)
                .map(|_| {
                    let mut s = ShooterKind::Lookahead.build();
                    let rec = play(&geo, fleet.clone(), s.as_mut(), game_seed(4, i));
                    assert!(rec.error.is_none(), "{:?}", rec.error);
                    rec.shots
                })
                .collect();
            assert!((7..=36).contains(&shots[0]));
            assert_eq!(shots[0], shots[1]);
        }
    }

    /// Edge neighbours stop at the sides of the board: the last cell of a row has none at
    /// the start of the next, the first cell of a row none at the end of the one before.
    #[test]
    fn edge_neighbours_do_not_wrap_between_rows() {
        let geo = Geometry::new(&Rules::with_lengths(6, 6, &[3, 2])).unwrap();
        assert_eq!(neighbours4(&geo, 1 << 5), 1 << 4 | 1 << 11);
        assert_eq!(neighbours4(&geo, 1 << 6), 1 << 0 | 1 << 7 | 1 << 12);
        assert_eq!(
            neighbours4(&geo, 1 << 14),
            1 << 8 | 1 << 13 | 1 << 15 | 1 << 20
        );
    }

    /// Hunting with parity fires only on the lattice of the shortest ship afloat: with a 2
    /// afloat, on cells whose x + y is even.
    #[test]
    fn parity_hunts_on_the_lattice_of_the_shortest_ship() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        let geo = Geometry::new(&Rules::with_lengths(6, 6, &[3, 2])).unwrap();
        let view = View::new(Arc::clone(&geo));
        let mut s = HuntTarget { parity: true };
        for seed in 0..50 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let c = s.choose(&view, &mut rng).unwrap().cell;
            assert_eq!((c % 6 + c / 6) % 2, 0, "seed {seed}: cell {c}");
        }
    }

    /// In target mode each placement through unexplained hits counts once per hit it
    /// covers: a 3 on a 5-cell row with hits at 1 and 2 lies at 0, 1 (two hits each) or 2
    /// (one hit).
    #[test]
    fn density_weighs_target_placements_by_the_hits_they_cover() {
        let geo = Geometry::new(&Rules::with_lengths(5, 2, &[3])).unwrap();
        let mut view = View::new(Arc::clone(&geo));
        view.record(1, Shot::Hit { ship: None }).unwrap();
        view.record(2, Shot::Hit { ship: None }).unwrap();
        let d = density(&view);
        assert_eq!(&d[..5], &[2.0, 4.0, 5.0, 3.0, 1.0]);
        assert!(d[5..].iter().all(|&x| x == 0.0), "{d:?}");
    }
}
