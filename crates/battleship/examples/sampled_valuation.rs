//! Can the `endgame` shooter's valuation work on a sample of the fleets, where there are too
//! many to list? Plays seeded games with the default shooter and stops at every position
//! whose exact count of consistent fleets lies in `(LO, HI]` (and no cell is a certain hit).
//! There it lists the fleets and values the 8 likeliest cells exactly, as the `endgame`
//! shooter does (one step of policy improvement: the expected number of shots to the end
//! when greedy play follows the cell; `optimal::shot_values`), then values the same cells on
//! `P` fleets drawn uniformly from the list, `REPS` times per position. It prints the mean
//! regret, in shots, of the cell greedy play fires (the likeliest, the lowest among ties) and
//! of the cell the sample prefers, both measured with the exact values; a valuation that
//! could replace greedy play must have the smaller. It also prints the mean time of the exact
//! valuation of a position (on one thread, with the other thread busy too). The positions are the ones the default
//! shooter reaches, but every one is valued, so the figures are per position, not per game.
//!
//! ```sh
//! cargo run --release -p battleship --example sampled_valuation -- no-touch 100 20000 60000 1000,3000,6000 4
//! cargo run --release -p battleship --example sampled_valuation -- no-touch 100 60000 150000 1000,3000,6000 4
//! ```
//!
//! Arguments: `standard` or `no-touch`, games (seed 1, the games of `gameai battleship eval
//! --seed 1`), `LO`, `HI`, the sample sizes, the repetitions, and optionally a margin `D`:
//! then the sample's cell is fired only when a second, independent sample of the same size
//! also values it at least `D` shots below greedy's cell, and both samples agree on that.
//! Positions are valued on two threads; the exact valuation stores up to 2 million
//! knowledge states, and a position it cannot value within them is skipped (and counted).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use battleship::infer::{PosteriorConfig, consistent_fleets, posterior};
use battleship::optimal::{Strategy, shot_values_within};
use battleship::{
    Decision, Error, Geometry, Placer, Rules, Shooter, ShooterKind, View, cells_of, play,
    seeded_fleet, shooter_seed,
};
use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Candidates valued, as the `endgame` shooter values them.
const CANDIDATES: usize = 8;
/// Knowledge states the valuations may store.
const STATES: usize = 2_000_000;

/// A position to value: its fleets, shots, hits (sunk cells included) and the candidates,
/// likeliest first.
#[derive(Debug)]
struct Position {
    fleets: Vec<Vec<u128>>,
    shots: u128,
    hits: u128,
    order: Vec<usize>,
}

/// The default shooter, which also keeps the positions whose count lies in `(lo, hi]`.
#[derive(Debug)]
struct Collector {
    inner: Box<dyn Shooter>,
    lo: u128,
    hi: u128,
    found: Vec<Position>,
}

impl Shooter for Collector {
    fn name(&self) -> &'static str {
        "collector"
    }

    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(1);
        let post = posterior(view, &PosteriorConfig::default(), &mut r)?;
        let top = cells_of(view.unknown())
            .map(|c| post.hit[c])
            .fold(0.0, f64::max);
        if top < 1.0 - 1e-12 && post.solutions.is_some_and(|n| n > self.lo && n <= self.hi) {
            let hi = usize::try_from(self.hi).unwrap_or(usize::MAX);
            let fleets = consistent_fleets(view, &post, hi)?;
            let mut order: Vec<usize> = cells_of(view.unknown())
                .filter(|&c| post.hit[c] > 0.0)
                .collect();
            // Stable: ties stay in cell order, so greedy's cell is the lowest among ties.
            order.sort_by(|&a, &b| post.hit[b].total_cmp(&post.hit[a]));
            order.truncate(CANDIDATES);
            let shots = view.misses() | view.hits() | view.sunk_cells();
            let hits = view.hits() | view.sunk_cells();
            self.found.push(Position {
                fleets,
                shots,
                hits,
                order,
            });
        }
        self.inner.choose(view, rng)
    }
}

/// One position's results: greedy's regret, the time of the exact valuation (seconds), then
/// per sample size the mean regret of the sample's choice and the share of repetitions in
/// which that was greedy's cell.
type Outcome = (f64, f64, Vec<(f64, f64)>);

/// The expected shots of `order`'s cells, valued on `fleets`; `None` past [`STATES`].
fn values(geo: &Geometry, fleets: Vec<Vec<u128>>, p: &Position) -> Result<Option<Vec<f64>>, Error> {
    let (v, complete) = shot_values_within(
        geo,
        fleets,
        p.shots,
        p.hits,
        &p.order,
        Strategy::GreedyFirst,
        STATES,
    )?;
    Ok(complete.then_some(v))
}

/// `m` of the position's fleets, drawn uniformly without repetition.
fn draw(p: &Position, m: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<Vec<u128>> {
    let n = p.fleets.len();
    let mut idx: Vec<usize> = (0..n).collect();
    let m = m.min(n);
    for i in 0..m {
        let j = rng.random_range(i..n);
        idx.swap(i, j);
    }
    idx[..m].iter().map(|&i| p.fleets[i].clone()).collect()
}

/// The index of the least value (the first among ties).
fn least(v: &[f64]) -> usize {
    let low = v.iter().copied().fold(f64::INFINITY, f64::min);
    v.iter().position(|&x| x <= low + 1e-9).unwrap_or(0)
}

/// Values one position exactly and on samples; `None` when the exact valuation does not fit.
fn assess(
    geo: &Geometry,
    p: &Position,
    sizes: &[usize],
    reps: usize,
    margin: Option<f64>,
    seed: u64,
) -> Result<Option<Outcome>, Error> {
    let clock = Instant::now();
    let Some(exact) = values(geo, p.fleets.clone(), p)? else {
        return Ok(None);
    };
    let secs = clock.elapsed().as_secs_f64();
    let best = exact[least(&exact)];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut per = Vec::new();
    for &m in sizes {
        let (mut regret, mut greedy) = (0.0, 0.0);
        for _ in 0..reps {
            let Some(v) = values(geo, draw(p, m, &mut rng), p)? else {
                return Ok(None);
            };
            let mut pick = least(&v);
            if let Some(d) = margin
                && pick != 0
            {
                let Some(w) = values(geo, draw(p, m, &mut rng), p)? else {
                    return Ok(None);
                };
                if !(v[pick] + d < v[0] && w[pick] + d < w[0]) {
                    pick = 0;
                }
            }
            regret += exact[pick] - best;
            greedy += f64::from(pick == 0);
        }
        per.push((regret / reps as f64, greedy / reps as f64));
    }
    Ok(Some((exact[0] - best, secs, per)))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: sampled_valuation standard|no-touch GAMES LO HI P[,P...] REPS [D]";
    if args.len() != 6 && args.len() != 7 {
        return Err(usage.into());
    }
    let rules = Rules::by_name(&args[0]).map_err(|e| format!("{e}; {usage}"))?;
    let number = |s: &str| {
        s.parse::<usize>()
            .map_err(|_| format!("not a number: {s}; {usage}"))
    };
    let games = number(&args[1])? as u64;
    let lo = number(&args[2])? as u128;
    let hi = number(&args[3])? as u128;
    let sizes = args[4]
        .split(',')
        .map(number)
        .collect::<Result<Vec<_>, _>>()?;
    let reps = number(&args[5])?.max(1);
    let margin = match args.get(6) {
        Some(s) => Some(
            s.parse::<f64>()
                .map_err(|_| format!("not a margin: {s}; {usage}"))?,
        ),
        None => None,
    };
    if lo >= hi || sizes.is_empty() {
        return Err(format!("need LO < HI and at least one sample size; {usage}").into());
    }
    let geo = Geometry::new(&rules)?;
    let start = Instant::now();
    let mut positions = Vec::new();
    for i in 0..games {
        let fleet = seeded_fleet(&geo, Placer::Uniform, 1, i)?;
        let mut collector = Collector {
            inner: ShooterKind::Endgame.build(),
            lo,
            hi,
            found: Vec::new(),
        };
        let record = play(&geo, fleet, &mut collector, shooter_seed(1, i));
        if let Some(e) = record.error {
            return Err(e.into());
        }
        positions.extend(collector.found);
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let skipped = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(p) = positions.get(k) else { break };
                    match assess(&geo, p, &sizes, reps, margin, k as u64) {
                        Ok(Some(o)) => results.lock().expect("no panics").push(o),
                        Ok(None) => {
                            skipped.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            *failure.lock().expect("no panics") = Some(e);
                            break;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner()? {
        return Err(e.into());
    }
    let results = results.into_inner()?;
    let n = results.len() as f64;
    println!(
        "{games} games, {} positions with ({lo}, {hi}] fleets ({:.2} a game), {} valued, \
         {} over {STATES} states; {:.0} s",
        positions.len(),
        positions.len() as f64 / games as f64,
        results.len(),
        skipped.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
    if results.is_empty() {
        return Ok(());
    }
    let greedy = results.iter().map(|r| r.0).sum::<f64>() / n;
    let secs = results.iter().map(|r| r.1).sum::<f64>() / n;
    println!(
        "greedy's cell: mean regret {greedy:.4} shots; exact valuation {:.0} ms a position",
        secs * 1e3
    );
    for (i, m) in sizes.iter().enumerate() {
        let regret = results.iter().map(|r| r.2[i].0).sum::<f64>() / n;
        let same = results.iter().map(|r| r.2[i].1).sum::<f64>() / n;
        println!(
            "sample of {m}: mean regret {regret:.4} shots; greedy's cell chosen {:.1}%",
            100.0 * same
        );
    }
    Ok(())
}
