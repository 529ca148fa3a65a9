//! Battleship: the article's sampler, the density method and the exact/uniform posterior on
//! the same positions, and exact counting (naive vs optimised).
//!
//! The positions are taken along recorded games, `benches/data/battleship-games.txt` (seeded
//! standard games with uniform fleets, played to the end by the hunt/target-with-parity
//! shooter; written by `cargo run --release -p benches --bin record-positions battleship`):
//! the position after every [`EVERY`] shots from shot [`FIRST`] on, as long as the exact
//! posterior needs at most [`EXACT_NODES`] search nodes (so that `exact` runs on every
//! position). Being recorded, they stay the same when the shooter changes.
//!
//! - `battleship/position-map`: one iteration computes a hit map of every recorded position
//!   with `article` (2000 layouts of the article's biased sequential sampler), `density`
//!   (per-ship placement counts), `exact` (the exact posterior, csp-core placement counting)
//!   and `chain` (the Markov chain estimate with the default settings).
//! - `battleship/count-6x6`: the number of fleets and exact marginals of the empty 6x6 board
//!   with ships 3, 2, 2 (touching allowed), `naive` (plain enumeration of every combination)
//!   vs `optimised` (`analyze_placements`).

use std::time::Duration;

use battleship::infer::{PosteriorConfig, exact_posterior, sampled_posterior};
use battleship::shooters::{ArticleSampler, density};
use battleship::{Game, Geometry, Rules, ShipSpec, View, cells_of, read_fleet};
use criterion::{Criterion, criterion_group, criterion_main};
use csp_core::Budget;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The recorded games: per game its fleet (a JSON line) and a line of the cells shot.
const GAMES: &str = include_str!("../data/battleship-games.txt");
/// How many games the file holds.
const GAME_COUNT: usize = 6;
const FIRST: u32 = 10;
const EVERY: u32 = 6;
const EXACT_NODES: u64 = 2_000_000;

fn record() -> Vec<View> {
    let geo = Geometry::new(&Rules::standard()).expect("standard rules");
    let budget = Budget {
        max_nodes: EXACT_NODES,
    };
    let lines: Vec<&str> = GAMES.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        2 * GAME_COUNT,
        "a fleet line and a shots line a game"
    );
    let mut out = Vec::new();
    let mut skipped = 0;
    for game_lines in lines.chunks(2) {
        let fleet = read_fleet(&geo, game_lines[0]).expect("a recorded fleet");
        let mut game = Game::new(geo.clone(), fleet).expect("a fleet of these rules");
        for cell in game_lines[1].split_whitespace() {
            let v = game.view();
            if v.shots() >= FIRST && (v.shots() - FIRST).is_multiple_of(EVERY) {
                if exact_posterior(v, &budget).is_ok() {
                    out.push(v.clone());
                } else {
                    skipped += 1;
                }
            }
            game.shoot(cell.parse().expect("a cell"))
                .expect("a recorded shot");
        }
        assert!(game.is_over(), "a recorded game is played to the end");
    }
    eprintln!(
        "battleship: {} positions from {GAME_COUNT} recorded games, {skipped} skipped (exact over {EXACT_NODES} nodes)",
        out.len()
    );
    out
}

fn battleship(c: &mut Criterion) {
    let positions = record();
    let budget = Budget {
        max_nodes: EXACT_NODES,
    };
    let mut group = c.benchmark_group("battleship/position-map");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("article", |b| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        b.iter(|| {
            let mut total = 0u32;
            for v in &positions {
                let rules = v.geometry().rules();
                let lengths: Vec<usize> = v.afloat().map(|i| rules.fleet[i].length).collect();
                // As the article's shooter draws them: 2000 layouts per position, with one
                // sampler remembering its dead ends, counted into a map of the cells.
                let mut sampler = ArticleSampler::new(v.geometry(), &lengths, v.misses());
                let mut map = vec![0u32; rules.cells()];
                for _ in 0..2000 {
                    if let Some(l) = sampler.sample(&mut rng) {
                        for c in cells_of(l) {
                            map[c] += 1;
                        }
                    }
                }
                total += map.iter().sum::<u32>();
            }
            total
        });
    });
    group.bench_function("density", |b| {
        b.iter(|| positions.iter().map(|v| density(v).len()).sum::<usize>());
    });
    group.bench_function("exact", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|v| exact_posterior(v, &budget).expect("exact").hit.len())
                .sum::<usize>()
        });
    });
    group.bench_function("chain", |b| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let config = PosteriorConfig::default();
        b.iter(|| {
            positions
                .iter()
                .map(|v| {
                    sampled_posterior(v, &config, &mut rng)
                        .expect("chain")
                        .hit
                        .len()
                })
                .sum::<usize>()
        });
    });
    group.finish();

    let small = Rules {
        width: 6,
        height: 6,
        fleet: vec![
            ShipSpec::new("A", 3),
            ShipSpec::new("B", 2),
            ShipSpec::new("C", 2),
        ],
        ..Rules::standard()
    };
    let geo = Geometry::new(&small).expect("6x6 rules");
    let p = geo.empty_problem().expect("problem");
    let big = Budget {
        max_nodes: u64::MAX,
    };
    let mut group = c.benchmark_group("battleship/count-6x6");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("naive", |b| {
        b.iter(|| {
            csp_core::analyze_placements_naive(&p, &big)
                .expect("count")
                .solutions
        });
    });
    group.bench_function("optimised", |b| {
        b.iter(|| {
            csp_core::analyze_placements(&p, &big)
                .expect("count")
                .solutions
        });
    });
    group.finish();
}

criterion_group!(benches, battleship);
criterion_main!(benches);
