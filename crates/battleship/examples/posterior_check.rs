//! Compares the exact and the sampled posterior along seeded games: the largest difference of
//! a cell's hit probability, and the time of each.
//!
//! `cargo run --release -p battleship --example posterior_check -- [standard|no-touch] [GAMES]`

use std::time::Instant;

use battleship::infer::{PosteriorConfig, exact_posterior, sampled_posterior};
use battleship::{Game, Geometry, Placer, Rules, ShooterKind, game_seed, seeded_fleet};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn main() -> Result<(), battleship::Error> {
    let args: Vec<String> = std::env::args().collect();
    let rules = Rules::by_name(args.get(1).map_or("standard", String::as_str))?;
    let games: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let geo = Geometry::new(&rules)?;
    let budget = battleship::csp_core::Budget {
        max_nodes: 20_000_000,
    };
    let config = PosteriorConfig::default();
    for g in 0..games {
        let fleet = seeded_fleet(&geo, Placer::Uniform, 9, g)?;
        let mut game = Game::new(geo.clone(), fleet)?;
        let mut shooter = ShooterKind::HuntTargetParity.build();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(game_seed(10, g));
        while !game.is_over() {
            let view = game.view().clone();
            if view.shots() >= 8 && view.shots().is_multiple_of(4) {
                let t = Instant::now();
                let exact = exact_posterior(&view, &budget);
                let te = t.elapsed();
                let t = Instant::now();
                let s = sampled_posterior(&view, &config, &mut rng)?;
                let ts = t.elapsed();
                if let Ok(e) = exact {
                    let d = e
                        .hit
                        .iter()
                        .zip(&s.hit)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f64::max);
                    println!(
                        "game {g} shot {:>2}: {:>14} fleets, {:>9} nodes, exact {:>8.2} ms, sampled {:>6.2} ms, max |diff| {:.3}",
                        view.shots(),
                        e.solutions.unwrap_or(0),
                        e.nodes,
                        te.as_secs_f64() * 1e3,
                        ts.as_secs_f64() * 1e3,
                        d
                    );
                } else {
                    println!("game {g} shot {:>2}: exact over budget", view.shots());
                }
            }
            let d = shooter.choose(&view, &mut rng)?;
            game.shoot(d.cell)?;
        }
    }
    Ok(())
}
