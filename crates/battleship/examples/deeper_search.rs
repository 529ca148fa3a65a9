//! Does searching deeper than the `endgame` shooter pay? Plays the same seeded uniform fleets
//! with the `endgame` shooter whose exact search starts once at most 2000 fleets remain (the
//! base these variants were measured against; the default now starts from 6000, after the
//! `wide` measurements) and with a deeper variant of it, and prints the paired difference in
//! shots.
//!
//! ```sh
//! cargo run --release -p battleship --example deeper_search -- no-touch 2000 11 optimal 20
//! cargo run --release -p battleship --example deeper_search -- no-touch 2000 11 particles 300
//! cargo run --release -p battleship --example deeper_search -- standard 4000 11 wide 6000
//! ```
//! Arguments: `standard` or `no-touch`, games, seed, and the variant:
//!
//! - `optimal K`: once at most K fleets remain, the candidates are valued with optimal play
//!   after them (exact expectimax, [`Strategy::Optimal`]) instead of greedy play, so the last
//!   shots are played optimally; a search that runs out of its 20,000 stored knowledge
//!   states chooses among the candidates it valued by then, and falls back to the default
//!   valuation when that is fewer than two.
//! - `particles P`: before the exact endgame (more than 2000 fleets left), the four likeliest
//!   cells are valued by the same one step of policy improvement, on P fleets drawn by the
//!   Markov chain instead of the exact list.
//! - `wide F`: the same search (the 8 likeliest cells valued exactly, greedy play after
//!   them) starts once at most F fleets remain instead of 2000 (`wide 6000` is the default
//!   shooter).
//!
//! Games run on two threads; the results do not depend on it.

use std::sync::Arc;
use std::time::Instant;

use battleship::infer::{PosteriorConfig, consistent_fleets, posterior};
use battleship::optimal::Strategy;
use battleship::shooters::{EndgameShooter, chain_fleets, improvement_step};
use battleship::{
    Decision, Error, Geometry, Placer, Rules, Shooter, View, cells_of, play, seeded_fleet,
};
use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Debug, Clone, Copy)]
enum Variant {
    Optimal(usize),
    Particles(u32),
    Wide(usize),
}

/// The exact search starts once at most this many fleets remain, in the base shooter.
const BASE_FLEETS: usize = 2000;

/// The base shooter's rules (exact search once at most [`BASE_FLEETS`] fleets remain, among
/// the 8 likeliest cells), with the variant's deeper search added.
#[derive(Debug)]
struct Deeper {
    variant: Variant,
    config: PosteriorConfig,
    /// Decisions the deeper search valued, and those where it ran out of states.
    searched: u64,
    too_large: u64,
}

impl Shooter for Deeper {
    fn name(&self) -> &'static str {
        "deeper"
    }

    fn choose(&mut self, view: &View, rng: &mut dyn Rng) -> Result<Decision, Error> {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(rng.next_u64());
        let post = posterior(view, &self.config, &mut r)?;
        let estimated = !post.is_exact();
        let unknown: Vec<usize> = cells_of(view.unknown()).collect();
        let top = unknown.iter().map(|&c| post.hit[c]).fold(0.0, f64::max);
        let mut cell = None;
        if top > 0.0 && top < 1.0 - 1e-12 {
            let limit = match self.variant {
                Variant::Wide(f) => f.max(BASE_FLEETS),
                _ => BASE_FLEETS,
            };
            if post.solutions.is_some_and(|n| n <= limit as u128) {
                let fleets = consistent_fleets(view, &post, limit)?;
                // Searches the base shooter would not make.
                self.searched += u64::from(fleets.len() > BASE_FLEETS);
                if let Variant::Optimal(k) = self.variant
                    && fleets.len() <= k
                {
                    self.searched += 1;
                    let then = Strategy::Optimal;
                    cell = improvement_step(view, &post, fleets.clone(), 8, then, 20_000, rng)?;
                    self.too_large += u64::from(cell.is_none());
                }
                if cell.is_none() {
                    let then = Strategy::GreedyFirst;
                    cell = improvement_step(view, &post, fleets, 8, then, 200_000, rng)?;
                }
            } else if let Variant::Particles(p) = self.variant {
                let fleets = chain_fleets(view, self.config.burn_in, p, &mut r)?;
                self.searched += 1;
                let then = Strategy::GreedyFirst;
                cell = improvement_step(view, &post, fleets, 4, then, 200_000, rng)?;
                self.too_large += u64::from(cell.is_none());
            }
        }
        let cell = match cell {
            Some(c) => c,
            // Greedy: the likeliest hit, ties at random.
            None => {
                let tied: Vec<usize> = unknown
                    .iter()
                    .copied()
                    .filter(|&c| post.hit[c] >= top - 1e-12)
                    .collect();
                tied[rng.random_range(0..tied.len())]
            }
        };
        Ok(Decision { cell, estimated })
    }
}

/// Per game: shots and decision time (ms) of the base shooter, then of the variant.
type Row = (u32, f64, u32, f64);

fn run(
    geo: &Arc<Geometry>,
    variant: Variant,
    seed: u64,
    games: std::ops::Range<u64>,
) -> Result<(Vec<Row>, u64, u64), Error> {
    let mut deeper = Deeper {
        variant,
        config: PosteriorConfig::default(),
        searched: 0,
        too_large: 0,
    };
    let mut rows = Vec::new();
    for i in games {
        let fleet = seeded_fleet(geo, Placer::Uniform, seed, i)?;
        // As `gameai battleship eval` seeds its games, so the first column is its games.
        let shooter_seed = battleship::shooter_seed(seed, i);
        let mut base = EndgameShooter {
            max_fleets: BASE_FLEETS,
            ..EndgameShooter::default()
        };
        let a = play(geo, fleet.clone(), &mut base, shooter_seed);
        let b = play(geo, fleet, &mut deeper, shooter_seed);
        if let Some(e) = a.error.clone().or_else(|| b.error.clone()) {
            return Err(e);
        }
        let ms =
            |r: &battleship::GameRecord| r.decide_time.as_secs_f64() * 1e3 / f64::from(r.shots);
        rows.push((a.shots, ms(&a), b.shots, ms(&b)));
    }
    Ok((rows, deeper.searched, deeper.too_large))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: deeper_search standard|no-touch GAMES SEED optimal K|particles P|wide F";
    if args.len() != 5 {
        return Err(usage.into());
    }
    let rules = Rules::by_name(&args[0]).map_err(|e| format!("{e}; {usage}"))?;
    let number = |s: &String| {
        s.parse::<usize>()
            .map_err(|_| format!("not a number: {s}; {usage}"))
    };
    let games = number(&args[1])? as u64;
    let seed = args[2]
        .parse::<u64>()
        .map_err(|_| format!("not a seed: {}; {usage}", args[2]))?;
    let variant = match args[3].as_str() {
        "optimal" => Variant::Optimal(number(&args[4])?),
        "particles" => Variant::Particles(u32::try_from(number(&args[4])?)?),
        "wide" => Variant::Wide(number(&args[4])?),
        other => return Err(format!("unknown variant {other}; {usage}").into()),
    };
    if games < 2 {
        return Err("play at least 2 games".into());
    }
    let geo = Geometry::new(&rules)?;
    let start = Instant::now();
    let half = games / 2;
    let (first, second) = std::thread::scope(|s| {
        let h = s.spawn(|| run(&geo, variant, seed, 0..half));
        let second = run(&geo, variant, seed, half..games);
        (h.join(), second)
    });
    let first = first.map_err(|_| "a worker thread panicked")??;
    let second = second?;
    let rows: Vec<Row> = first.0.into_iter().chain(second.0).collect();
    let (searched, too_large) = (first.1 + second.1, first.2 + second.2);
    let n = rows.len() as f64;
    let mean = |f: fn(&Row) -> f64| rows.iter().map(f).sum::<f64>() / n;
    let diff = mean(|r| f64::from(r.2) - f64::from(r.0));
    let sd = (rows
        .iter()
        .map(|r| (f64::from(r.2) - f64::from(r.0) - diff).powi(2))
        .sum::<f64>()
        / (n - 1.0))
        .sqrt();
    println!(
        "{} games, {:?}: endgame {:.3} shots ({:.2} ms/shot), variant {:.3} ({:.2} ms/shot), \
         difference {diff:+.3} ± {:.3} (s.e.); deeper searches {searched}, {too_large} too large; {:.0} s",
        rows.len(),
        variant,
        mean(|r| f64::from(r.0)),
        mean(|r| r.1),
        mean(|r| f64::from(r.2)),
        mean(|r| r.3),
        sd / n.sqrt(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
