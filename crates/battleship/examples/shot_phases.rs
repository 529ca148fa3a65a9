//! Where a shooter's shots go: replays the games of `gameai battleship eval` (the same seeded
//! fleets and shooter seeds, so the same shots) and sorts every miss by what the fleet, known
//! here but not to the shooter, was like at the time: a *hunting* miss, while no ship was hit
//! and afloat, by how many ships were still afloat; or a *targeting* miss, while some ship was
//! hit but not yet sunk. It also tells which ship was left for last and what finding it cost,
//! against a lower bound for any strategy from the same positions: when the last ship is
//! alone and unhit, the chance that the first `t` shots find it is at most the sum of the `t`
//! largest hit probabilities (exact posterior), so no strategy expects fewer misses before
//! hitting it than the sum over `t` of one minus that sum, where positive.
//!
//! `cargo run --release -p battleship --example shot_phases -- RULES GAMES [SHOOTER] [SEED]`
//!
//! (`RULES`: standard or no-touch; `SHOOTER` defaults to the default one, `SEED` to 1.)

use std::sync::Arc;

use battleship::{
    Decision, Error, Fleet, Game, Geometry, Placer, Rules, Shooter, ShooterKind, View, cells_of,
    infer::exact_posterior, play, seeded_fleet, shooter_seed,
};

/// Tallies of one or more games.
#[derive(Debug, Default, Clone)]
struct Tally {
    games: u64,
    shots: u64,
    /// Hunting misses by the number of ships afloat (index 1..=ships).
    hunting: Vec<u64>,
    targeting: u64,
    /// By the length of the ship left for last: games, and hunting misses while it was alone.
    last_games: Vec<u64>,
    last_misses: Vec<u64>,
    /// By the length of the last ship: the sum of the lower bounds, and the games bounded
    /// (those whose exact posterior fit the budget).
    last_bound: Vec<f64>,
    last_bounded: Vec<u64>,
    last_bounded_misses: Vec<u64>,
}

impl Tally {
    fn new(ships: usize, longest: usize) -> Tally {
        Tally {
            hunting: vec![0; ships + 1],
            last_games: vec![0; longest + 1],
            last_misses: vec![0; longest + 1],
            last_bound: vec![0.0; longest + 1],
            last_bounded: vec![0; longest + 1],
            last_bounded_misses: vec![0; longest + 1],
            ..Tally::default()
        }
    }

    fn add(&mut self, o: &Tally) {
        self.games += o.games;
        self.shots += o.shots;
        self.targeting += o.targeting;
        add_all(&mut self.hunting, &o.hunting);
        add_all(&mut self.last_games, &o.last_games);
        add_all(&mut self.last_misses, &o.last_misses);
        add_all(&mut self.last_bound, &o.last_bound);
        add_all(&mut self.last_bounded, &o.last_bounded);
        add_all(&mut self.last_bounded_misses, &o.last_bounded_misses);
    }
}

/// Adds `b` to `a`, element by element.
fn add_all<T: Copy + std::ops::AddAssign>(a: &mut [T], b: &[T]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// A shooter that writes down the cells another one chooses.
#[derive(Debug)]
struct Recorder {
    inner: Box<dyn Shooter>,
    cells: Vec<usize>,
}

impl Shooter for Recorder {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn choose(&mut self, view: &View, rng: &mut dyn rand::Rng) -> Result<Decision, Error> {
        let d = self.inner.choose(view, rng)?;
        self.cells.push(d.cell);
        Ok(d)
    }
}

/// Plays game `i` as `gameai battleship eval` does, then replays its shots to tally the
/// misses.
fn game(
    geo: &Arc<Geometry>,
    kind: ShooterKind,
    seed: u64,
    i: u64,
    tally: &mut Tally,
) -> Result<(), Error> {
    let rules = geo.rules();
    let fleet: Fleet = seeded_fleet(geo, Placer::Uniform, seed, i)?;
    let ships: Vec<u128> = (0..rules.fleet.len()).map(|s| fleet.cells(s)).collect();
    let mut recorder = Recorder {
        inner: kind.build(),
        cells: Vec::new(),
    };
    let record = play(geo, fleet.clone(), &mut recorder, shooter_seed(seed, i));
    if let Some(e) = record.error {
        return Err(e);
    }
    let mut game = Game::new(Arc::clone(geo), fleet)?;
    // The last ship's length, and whether its position was bounded.
    let mut last: Option<(usize, bool)> = None;
    for cell in recorder.cells {
        let shot = game.view().misses() | game.view().hits();
        let afloat: Vec<usize> = (0..ships.len())
            .filter(|&s| ships[s] & shot != ships[s])
            .collect();
        let damaged = afloat.iter().any(|&s| ships[s] & shot != 0);
        if afloat.len() == 1 && last.is_none() {
            let len = rules.fleet[afloat[0]].length;
            tally.last_games[len] += 1;
            let bound = if damaged {
                None
            } else {
                hunting_bound(game.view())
            };
            if let Some(b) = bound {
                tally.last_bound[len] += b;
                tally.last_bounded[len] += 1;
            }
            last = Some((len, bound.is_some()));
        }
        game.shoot(cell)?;
        tally.shots += 1;
        if ships.iter().all(|&m| m >> cell & 1 == 0) {
            if damaged {
                tally.targeting += 1;
            } else {
                tally.hunting[afloat.len()] += 1;
                if afloat.len() == 1 {
                    let len = rules.fleet[afloat[0]].length;
                    tally.last_misses[len] += 1;
                    if last == Some((len, true)) {
                        tally.last_bounded_misses[len] += 1;
                    }
                }
            }
        }
    }
    tally.games += 1;
    Ok(())
}

/// The lower bound on the misses any strategy expects before its first hit, from `view`
/// (exact posterior; `None` over its budget).
fn hunting_bound(view: &View) -> Option<f64> {
    let budget = battleship::csp_core::Budget {
        max_nodes: 20_000_000,
    };
    let post = exact_posterior(view, &budget).ok()?;
    let mut p: Vec<f64> = cells_of(view.unknown()).map(|c| post.hit[c]).collect();
    p.sort_by(|a, b| b.total_cmp(a));
    let mut found = 0.0;
    let mut bound = 0.0;
    for x in p {
        found += x;
        if found >= 1.0 {
            break;
        }
        bound += 1.0 - found;
    }
    Some(bound)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: shot_phases RULES GAMES [SHOOTER] [SEED]";
    let rules = Rules::by_name(args.get(1).map_or("standard", String::as_str))?;
    let games: u64 = match args.get(2) {
        Some(s) => s.parse().map_err(|_| usage)?,
        None => 1000,
    };
    let kind: ShooterKind = match args.get(3) {
        Some(s) => s.parse()?,
        None => ShooterKind::BEST,
    };
    let seed: u64 = match args.get(4) {
        Some(s) => s.parse().map_err(|_| usage)?,
        None => 1,
    };
    let geo = Geometry::new(&rules)?;
    let ships = rules.fleet.len();
    let longest = rules.fleet.iter().map(|s| s.length).max().unwrap_or(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    // Thread t plays games t, t + threads, ...; the sums do not depend on the split.
    let parts: Vec<Result<Tally, Error>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let geo = &geo;
                scope.spawn(move || {
                    let mut tally = Tally::new(ships, longest);
                    for i in (t..games).step_by(threads as usize) {
                        game(geo, kind, seed, i, &mut tally)?;
                    }
                    Ok(tally)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Shot("a worker panicked".into())))
            })
            .collect()
    });
    let mut total = Tally::new(ships, longest);
    for p in parts {
        total.add(&p?);
    }
    let n = total.games.max(1) as f64;
    let hunting: u64 = total.hunting.iter().sum();
    println!(
        "{} rules, shooter {}, seed {seed}: {} games, {:.2} shots a game",
        args.get(1).map_or("standard", String::as_str),
        kind.name(),
        total.games,
        total.shots as f64 / n
    );
    println!(
        "misses a game: {:.2} hunting, {:.2} targeting (a ship hit and afloat)",
        hunting as f64 / n,
        total.targeting as f64 / n
    );
    for k in (1..=ships).rev() {
        println!(
            "  hunting with {k} ship(s) afloat: {:.2}",
            total.hunting[k] as f64 / n
        );
    }
    for (len, &g) in total.last_games.iter().enumerate() {
        if g > 0 {
            let b = total.last_bounded[len];
            println!(
                "  left for last: a ship of {len} in {:.1}% of games, {:.2} hunting misses to find it; \
                 where it was alone and unhit and the posterior exact ({b} games): {:.2}, lower bound {:.2}",
                100.0 * g as f64 / n,
                total.last_misses[len] as f64 / g as f64,
                total.last_bounded_misses[len] as f64 / b.max(1) as f64,
                total.last_bound[len] / b.max(1) as f64
            );
        }
    }
    Ok(())
}
