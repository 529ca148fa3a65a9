//! The posterior against brute force: on small boards every labelled fleet is enumerated,
//! and a fleet is consistent with a game exactly when replaying the game's shots against it
//! gives the same answers. The exact posterior must match these counts under every adjacency
//! and feedback rule, and the sampled posterior must be within a stated bound.
#![allow(clippy::unwrap_used, clippy::needless_range_loop)]

use battleship::infer::{PosteriorConfig, exact_posterior, sampled_posterior};
use battleship::{Adjacency, Feedback, Fleet, Game, Geometry, Rules, ShooterKind};
use csp_core::Budget;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

mod common;
use common::{all_fleets, replay, rules};

/// Plays a few shots with `shooter` and checks the posterior at every step.
fn check_game(r: &Rules, seed: u64, steps: usize, sampled: bool) {
    let geo = Geometry::new(r).unwrap();
    let fleets = all_fleets(&geo);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let target = battleship::Fleet::random(&geo, &mut rng).unwrap();
    let mut game = Game::new(geo.clone(), target);
    let mut shooter = ShooterKind::HuntTarget.build();
    let mut history = Vec::new();
    for _ in 0..steps {
        if game.is_over() {
            break;
        }
        let view = game.view().clone();
        let consistent: Vec<&Fleet> = fleets
            .iter()
            .filter(|f| replay(&geo, f, &history))
            .collect();
        let n = consistent.len() as f64;
        let cells = r.width * r.height;
        let mut brute = vec![0.0; cells];
        for f in &consistent {
            for c in 0..cells {
                brute[c] += (f.all_cells() >> c & 1) as f64;
            }
        }
        let post = exact_posterior(&view, &Budget::default()).unwrap();
        assert_eq!(
            post.solutions,
            Some(consistent.len() as u128),
            "{r:?} after {history:?}"
        );
        for c in 0..cells {
            assert!(
                (post.hit[c] - brute[c] / n).abs() < 1e-9,
                "cell {c}: {} vs {}",
                post.hit[c],
                brute[c] / n
            );
        }
        if sampled {
            let config = PosteriorConfig {
                exact_nodes: 0,
                burn_in: 100,
                sweeps: 6000,
            };
            let s = sampled_posterior(&view, &config, &mut rng).unwrap();
            // Rao-Blackwellised chain estimates: within 5 standard errors of one sample
            // per 4 sweeps (a generous allowance for correlation), plus 0.01.
            for c in 0..cells {
                let p = brute[c] / n;
                let se = (p * (1.0 - p) / 1500.0).sqrt();
                assert!(
                    (s.hit[c] - p).abs() <= 5.0 * se + 0.01,
                    "sampled cell {c}: {} vs {p} ({r:?}, after {history:?})",
                    s.hit[c]
                );
            }
        }
        let d = shooter.choose(&view, &mut rng).unwrap();
        let shot = game.shoot(d.cell).unwrap();
        history.push((d.cell, shot));
    }
}

/// With ships 3, 2, 2, and with three ships of one length, where the exact count branches on
/// one of them for all (the group search of csp-core) and must still give labelled counts.
#[test]
fn exact_posterior_matches_brute_force_under_every_rule() {
    for (lengths, seeds) in [(&[3, 2, 2][..], 0..2), (&[2, 2, 2][..], 3..4)] {
        for adjacency in [Adjacency::Allowed, Adjacency::NoTouch] {
            for feedback in Feedback::ALL {
                let r = rules(5, 5, lengths, adjacency, feedback);
                for seed in seeds.clone() {
                    check_game(&r, seed, 25, false);
                }
            }
        }
    }
}

#[test]
fn sampled_posterior_is_close_to_brute_force_under_every_rule() {
    for adjacency in [Adjacency::Allowed, Adjacency::NoTouch] {
        for feedback in Feedback::ALL {
            let r = rules(6, 6, &[3, 2, 2], adjacency, feedback);
            check_game(&r, 7, 14, true);
        }
    }
}
