//! The posterior against brute force: on small boards every labelled fleet is enumerated,
//! and a fleet is consistent with a game exactly when replaying the game's shots against it
//! gives the same answers. The exact posterior must match these counts under every adjacency
//! and feedback rule (per cell, per ship placement, and the distribution of the next
//! answer), and the sampled posterior must be within a stated bound.
#![allow(clippy::unwrap_used, clippy::needless_range_loop)]

use battleship::infer::{
    Posterior, PosteriorConfig, answer_distribution, answer_entropy, exact_posterior,
    frontier_posterior, posterior, sampled_posterior,
};
use battleship::{Adjacency, Feedback, Fleet, Game, Geometry, Rules, ShooterKind, Shot, View};
use csp_core::Budget;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

mod common;
use common::{all_fleets, replay, rules};

/// How the checked games choose their shots.
#[derive(Clone, Copy, PartialEq)]
enum Shots {
    /// The hunt/target shooter.
    HuntTarget,
    /// Three shots in four at a ship cell not yet fired at, chosen at random (the shooter
    /// sees the fleet), the others anywhere: many ships hit side by side, and sunk ones
    /// among hits of others.
    Peeking,
}

/// Plays a few shots and checks the posterior at every step.
fn check_game(r: &Rules, seed: u64, steps: usize, sampled: bool, shots: Shots) {
    let geo = Geometry::new(r).unwrap();
    let fleets = all_fleets(&geo);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let target = battleship::Fleet::random(&geo, &mut rng).unwrap();
    let ship_cells = target.all_cells();
    let mut game = Game::new(geo.clone(), target).unwrap();
    let mut shooter = ShooterKind::HuntTarget.build();
    let mut history = Vec::new();
    for _ in 0..steps {
        if game.is_over() {
            break;
        }
        let view = game.view().clone();
        // The counting engines need a symmetric halo relation; the board's families give one.
        battleship::infer::problem(&view)
            .unwrap()
            .check_halos()
            .unwrap();
        let consistent: Vec<&Fleet> = fleets
            .iter()
            .filter(|f| replay(&geo, f, &history))
            .collect();
        let cells = r.width * r.height;
        let brute = check_exact(&view, &consistent, &format!("{r:?} after {history:?}"));
        if sampled {
            let config = PosteriorConfig {
                exact_nodes: 0,
                burn_in: 100,
                sweeps: 6000,
                ..PosteriorConfig::default()
            };
            let s = sampled_posterior(&view, &config, &mut rng).unwrap();
            assert!(!s.is_exact());
            let errors = s.hit_std_errors.as_deref().unwrap();
            assert_eq!(errors.len(), cells);
            // Observed cells are certain, exactly, with no error.
            for c in 0..cells {
                if (view.hits() | view.sunk_cells()) >> c & 1 == 1 {
                    assert_eq!((s.hit[c], errors[c]), (1.0, 0.0), "hit cell {c}");
                } else if view.misses() >> c & 1 == 1 {
                    assert_eq!((s.hit[c], errors[c]), (0.0, 0.0), "missed cell {c}");
                } else {
                    // 0 where the averaged conditional chances never vary (a ship alone
                    // with two places: one half in every sweep).
                    assert!((0.0..0.05).contains(&errors[c]), "cell {c}: {}", errors[c]);
                }
            }
            // With no nodes allowed to the exact count, the posterior is the chain's.
            let quick = PosteriorConfig {
                exact_nodes: 0,
                burn_in: 1,
                sweeps: 1,
                ..PosteriorConfig::default()
            };
            assert!(!posterior(&view, &quick, &mut rng).unwrap().is_exact());
            // Rao-Blackwellised chain estimates: within 5 standard errors of one sample
            // per 4 sweeps (a generous allowance for correlation), plus 0.01.
            for c in 0..cells {
                let p = brute[c];
                let se = (p * (1.0 - p) / 1500.0).sqrt();
                assert!(
                    (s.hit[c] - p).abs() <= 5.0 * se + 0.01,
                    "sampled cell {c}: {} vs {p} ({r:?}, after {history:?})",
                    s.hit[c]
                );
            }
        }
        let cell = match shots {
            Shots::HuntTarget => shooter.choose(&view, &mut rng).unwrap().cell,
            Shots::Peeking => {
                let fired = view.misses() | view.hits() | view.sunk_cells();
                let unshot = |c: &usize| fired >> c & 1 == 0;
                let ships: Vec<usize> = (0..cells)
                    .filter(|c| ship_cells >> c & 1 == 1 && unshot(c))
                    .collect();
                let any: Vec<usize> = (0..cells).filter(unshot).collect();
                let from = if !ships.is_empty() && rng.random_bool(0.75) {
                    ships
                } else {
                    any
                };
                from[rng.random_range(0..from.len())]
            }
        };
        let shot = game.shoot(cell).unwrap();
        assert_eq!(shot, answer(&view, game.fleet(), cell));
        history.push((cell, shot));
    }
}

/// The exact posterior of `view` against the fleets consistent with it: their number, each
/// cell's share of them (returned), each ship's placements, and the next answer at every
/// cell not yet fired at.
fn check_exact(view: &View, consistent: &[&Fleet], what: &str) -> Vec<f64> {
    let post = exact_posterior(view, &Budget::default()).unwrap();
    assert!(post.is_exact());
    assert_eq!(post.solutions, Some(consistent.len() as u128), "{what}");
    let n = consistent.len() as f64;
    let brute: Vec<f64> = (0..post.hit.len())
        .map(|c| {
            consistent
                .iter()
                .filter(|f| f.all_cells() >> c & 1 == 1)
                .count() as f64
                / n
        })
        .collect();
    for (c, (p, b)) in post.hit.iter().zip(&brute).enumerate() {
        assert!((p - b).abs() < 1e-9, "{what}, cell {c}: {p} vs {b}");
    }
    check_ships(&post, consistent);
    // The count by element frontiers gives the same posterior, to the last bit.
    let frontier = frontier_posterior(view, &Budget::default()).unwrap();
    assert_eq!(frontier.solutions, post.solutions, "{what}");
    assert_eq!(
        (&frontier.hit, &frontier.ships),
        (&post.hit, &post.ships),
        "{what}"
    );
    let fired = view.misses() | view.hits() | view.sunk_cells();
    for c in (0..post.hit.len()).filter(|c| fired >> c & 1 == 0) {
        check_answers(view, &post, consistent, c);
    }
    brute
}

/// Each ship's placements and their probabilities are the shares of the consistent fleets
/// that put the ship there, and no placement of those fleets is missing.
fn check_ships(post: &Posterior, consistent: &[&Fleet]) {
    let n = consistent.len() as f64;
    for (i, list) in post.ships.iter().enumerate() {
        for &(cells, p) in list {
            let k = consistent.iter().filter(|f| f.cells(i) == cells).count();
            assert!(
                (p - k as f64 / n).abs() < 1e-9,
                "ship {i} at {cells:#x}: {p}, {k}/{n}"
            );
        }
        assert!(
            consistent
                .iter()
                .all(|f| list.iter().any(|&(c, _)| c == f.cells(i)))
        );
    }
}

/// The answer a consistent fleet gives to a shot at `cell` after the shots of `view`.
fn answer(view: &View, fleet: &Fleet, cell: usize) -> Shot {
    let feedback = view.geometry().rules().feedback;
    let fired = view.hits() | view.sunk_cells() | 1 << cell;
    let Some(i) = (0..fleet.placements().len()).find(|&i| fleet.cells(i) >> cell & 1 == 1) else {
        return Shot::Miss;
    };
    let c = fleet.cells(i);
    match feedback {
        Feedback::Bare => Shot::Hit { ship: None },
        _ if c & !fired == 0 => Shot::Sunk {
            ship: i,
            cells: (feedback == Feedback::SunkRevealsCells).then_some(c),
        },
        Feedback::HitNamesShip => Shot::Hit { ship: Some(i) },
        _ => Shot::Hit { ship: None },
    }
}

/// `answer_distribution` against the answers of the consistent fleets, in its order: miss,
/// then per the rules a hit; per ship a hit naming it and its sinking; or each sinking that
/// can follow (per ship afloat, or per ship afloat and placement) and a hit that sinks
/// nothing.
fn check_answers(view: &View, post: &Posterior, consistent: &[&Fleet], cell: usize) {
    let n = consistent.len() as f64;
    let answers: Vec<Shot> = consistent.iter().map(|f| answer(view, f, cell)).collect();
    let share =
        |keep: &dyn Fn(&Shot) -> bool| answers.iter().filter(|a| keep(a)).count() as f64 / n;
    let ships = post.ships.len();
    let afloat = (0..ships).filter(|&i| view.sunk()[i].is_none());
    let mut want = vec![(Shot::Miss, share(&|a| *a == Shot::Miss))];
    let plain = Shot::Hit { ship: None };
    match view.geometry().rules().feedback {
        Feedback::Bare => want.push((plain, share(&|a| *a != Shot::Miss))),
        Feedback::HitNamesShip => {
            for i in 0..ships {
                let hit = Shot::Hit { ship: Some(i) };
                want.push((hit, share(&|a| *a == hit)));
                let sunk = Shot::Sunk {
                    ship: i,
                    cells: None,
                };
                want.push((sunk, share(&|a| *a == sunk)));
            }
        }
        Feedback::Standard => {
            for i in afloat {
                let sunk = Shot::Sunk {
                    ship: i,
                    cells: None,
                };
                want.push((sunk, share(&|a| *a == sunk)));
            }
            want.push((plain, share(&|a| *a == plain)));
        }
        Feedback::SunkRevealsCells => {
            for i in afloat {
                for &(c, _) in &post.ships[i] {
                    let sunk = Shot::Sunk {
                        ship: i,
                        cells: Some(c),
                    };
                    let p = share(&|a| *a == sunk);
                    if p > 0.0 {
                        want.push((sunk, p));
                    }
                }
            }
            // Every sinking is listed.
            let sunk = share(&|a| matches!(a, Shot::Sunk { .. }));
            assert!((want[1..].iter().map(|w| w.1).sum::<f64>() - sunk).abs() < 1e-9);
            want.push((plain, share(&|a| *a == plain)));
        }
    }
    // Labelled as the game labels the fleets' answers.
    let got = answer_distribution(view, post, cell);
    assert_eq!(got.len(), want.len(), "cell {cell}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.0, w.0, "cell {cell}: {got:?} vs {want:?}");
        assert!((g.1 - w.1).abs() < 1e-9, "cell {cell}: {got:?} vs {want:?}");
    }
    let h: f64 = want
        .iter()
        .filter(|w| w.1 > 1e-15)
        .map(|w| -w.1 * w.1.log2())
        .sum();
    assert!((answer_entropy(view, post, cell) - h).abs() < 1e-9);
}

/// Calls `f` with the rules of a `w` x `h` board and these ships under each adjacency and
/// feedback rule.
fn for_every_rule(w: usize, h: usize, lengths: &[usize], mut f: impl FnMut(&Rules)) {
    for adjacency in [Adjacency::Allowed, Adjacency::NoTouch] {
        for feedback in Feedback::ALL {
            f(&rules(w, h, lengths, adjacency, feedback));
        }
    }
}

/// With ships 3, 2, 2, and with three ships of one length, where the exact count branches on
/// one of them for all (the group search of csp-core) and must still give labelled counts.
#[test]
fn exact_posterior_matches_brute_force_under_every_rule() {
    for (lengths, seeds) in [(&[3, 2, 2][..], 0..2), (&[2, 2, 2][..], 3..4)] {
        for_every_rule(5, 5, lengths, |r| {
            for seed in seeds.clone() {
                check_game(r, seed, 25, false, Shots::HuntTarget);
            }
        });
    }
}

/// Games whose shooter sees the fleet: ships hit side by side and sunk among the hits of
/// others, so the ship a sinking names could lie on several of the hits.
#[test]
fn exact_posterior_matches_brute_force_when_ships_are_hit_side_by_side() {
    for_every_rule(5, 4, &[3, 2, 2], |r| {
        for seed in 0..6 {
            check_game(r, seed, 20, false, Shots::Peeking);
        }
    });
}

#[test]
fn sampled_posterior_is_close_to_brute_force_under_every_rule() {
    for_every_rule(6, 6, &[3, 2, 2], |r| {
        check_game(r, 7, 14, true, Shots::HuntTarget)
    });
}

/// What a text position shows of `fleet` once the cells of `shot` have been fired at:
/// `(misses, hits, sunk cells)`, the cells of a ship all hit being sunk cells when the rules
/// announce sinkings and hits otherwise.
fn render(fleet: &Fleet, shot: u128, reports_sunk: bool) -> (u128, u128, u128) {
    let (mut hits, mut sunk) = (0, 0);
    for i in 0..fleet.placements().len() {
        let c = fleet.cells(i);
        if reports_sunk && c & !shot == 0 {
            sunk |= c;
        } else {
            hits |= c & shot;
        }
    }
    (shot & !fleet.all_cells(), hits, sunk)
}

/// Text positions know no order of shots and no ship names: a fleet is consistent with one
/// exactly when firing the same cells at it shows the same position. The exact posterior of
/// the view a position gives must count those fleets, under every rule; the positions come
/// from random shots at random fleets, each with one ship all hit (sunk, where sinkings are
/// announced), so that ships lie across, beside and inside sunk cells.
#[test]
fn text_positions_match_brute_force_under_every_rule() {
    let mut seen_sunk = 0;
    for_every_rule(5, 4, &[3, 2, 2], |r| {
        let (adjacency, feedback) = (r.adjacency, r.feedback);
        let geo = Geometry::new(r).unwrap();
        let fleets = all_fleets(&geo);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        for _ in 0..12 {
            let truth = &fleets[rng.random_range(0..fleets.len())];
            let mut shot = (0..20)
                .filter(|_| rng.random_bool(0.25))
                .fold(0u128, |m, c| m | 1 << c);
            shot |= truth.cells(rng.random_range(0..3));
            let position = render(truth, shot, feedback.reports_sunk());
            let (misses, hits, sunk) = position;
            seen_sunk += usize::from(sunk != 0);
            let view = View::from_masks(geo.clone(), misses, hits, sunk).unwrap();
            let consistent: Vec<&Fleet> = fleets
                .iter()
                .filter(|f| render(f, shot, feedback.reports_sunk()) == position)
                .collect();
            check_exact(
                &view,
                &consistent,
                &format!("{adjacency:?} {feedback:?}, shots {shot:#x}"),
            );
        }
    });
    assert!(seen_sunk > 0);
}

/// A shot off the board (past the last cell, or past the 128 a view can hold) meets water,
/// also beside ships known to be sunk.
#[test]
fn answers_off_the_board_are_misses() {
    for feedback in Feedback::ALL {
        let r = rules(4, 3, &[3, 2], Adjacency::Allowed, feedback);
        let geo = Geometry::new(&r).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let game = Game::new(geo.clone(), Fleet::random(&geo, &mut rng).unwrap()).unwrap();
        let mut views = vec![game.view().clone()];
        if feedback.reports_sunk() {
            // A text position with the 2-cell ship sunk in the corner: no answer sinks it
            // again.
            views.push(View::from_masks(geo.clone(), 1 << 5, 0, 0b11).unwrap());
        }
        for view in &views {
            let post = exact_posterior(view, &Budget::default()).unwrap();
            for cell in [12, 127, 128, 1000] {
                let d = answer_distribution(view, &post, cell);
                assert_eq!(d[0], (Shot::Miss, 1.0), "{feedback:?} {cell}");
                assert!(
                    d[1..].iter().all(|&(_, p)| p == 0.0),
                    "{feedback:?} {cell}: {d:?}"
                );
            }
        }
    }
}

/// A ship reported sunk includes the cell whose shot sank it. On a 6x6 board with ships of
/// 2, 3 and 3 (the 2 on (2,0)-(3,0), the 3s down from (0,0) and (1,0)), hits at (0,0),
/// (1,0), (3,0), then (2,0) sinking the 2: the 2 may lie on (1,0)-(2,0) or (2,0)-(3,0), not
/// on (0,0)-(1,0) (it would have sunk a shot earlier), and only the sinking cell tells.
#[test]
fn a_sunk_ship_holds_the_cell_that_sank_it() {
    use battleship::{Dir, ShipPlacement};
    // Under standard feedback (a hit that names its ship would settle it earlier).
    for feedback in [Feedback::Standard] {
        let r = rules(6, 6, &[2, 3, 3], Adjacency::Allowed, feedback);
        let geo = Geometry::new(&r).unwrap();
        let at = |x, y, dir| ShipPlacement { x, y, dir };
        let fleet = Fleet::new(
            &geo,
            vec![
                at(2, 0, Dir::Horizontal),
                at(0, 0, Dir::Vertical),
                at(1, 0, Dir::Vertical),
            ],
        )
        .unwrap();
        let mut game = Game::new(geo.clone(), fleet).unwrap();
        let mut history = Vec::new();
        for c in [0, 1, 3, 2] {
            history.push((c, game.shoot(c).unwrap()));
        }
        assert!(
            matches!(history[3].1, Shot::Sunk { .. }),
            "{:?}",
            history[3]
        );
        let consistent: Vec<Fleet> = all_fleets(&geo)
            .into_iter()
            .filter(|f| replay(&geo, f, &history))
            .collect();
        let refs: Vec<&Fleet> = consistent.iter().collect();
        // The ship of 2 on either side of the sinking cell.
        let sides: std::collections::HashSet<usize> =
            consistent.iter().map(|f| f.placements()[0].x).collect();
        assert_eq!(sides, [1, 2].into_iter().collect());
        check_exact(game.view(), &refs, &format!("{feedback:?}"));
    }
}
