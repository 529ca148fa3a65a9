//! Exact strategy values against independent references: a memo-free brute-force expectimax
//! that finds consistent fleets by replaying answers through the game engine, and the real
//! posterior shooter played against every fleet of a small board.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use battleship::optimal::{ExactLimits, Strategy, exact_mean_shots};
use battleship::{Adjacency, Feedback, Fleet, Game, Geometry, ShooterKind, Shot, play};

mod common;
use common::{all_fleets, replay, rules};

/// The answers the `consistent` fleets give to a shot at `c` after `history`, by the game
/// engine: each answer, whether it ends the game, and how many fleets give it.
fn answer_classes(
    geo: &Arc<Geometry>,
    consistent: &[&Fleet],
    history: &[(usize, Shot)],
    c: usize,
) -> Vec<(Shot, bool, usize)> {
    let mut classes: Vec<(Shot, bool, usize)> = Vec::new();
    for f in consistent {
        let mut g = Game::new(geo.clone(), (*f).clone()).unwrap();
        for &(h, _) in history {
            g.shoot(h).unwrap();
        }
        let s = g.shoot(c).unwrap();
        let over = g.is_over();
        match classes.iter_mut().find(|k| k.0 == s && k.1 == over) {
            Some(k) => k.2 += 1,
            None => classes.push((s, over, 1)),
        }
    }
    classes
}

/// The optimal expected number of shots after `history`, by plain recursion: every cell that
/// may hold a ship is tried, and the fleets answering alike form each branch.
fn brute_optimal(geo: &Arc<Geometry>, fleets: &[Fleet], history: &mut Vec<(usize, Shot)>) -> f64 {
    let consistent: Vec<&Fleet> = fleets.iter().filter(|f| replay(geo, f, history)).collect();
    let cells = geo.rules().cells();
    let shot: Vec<usize> = history.iter().map(|h| h.0).collect();
    let mut best = f64::INFINITY;
    for c in (0..cells).filter(|c| !shot.contains(c)) {
        if consistent.iter().all(|f| f.all_cells() >> c & 1 == 0) {
            continue;
        }
        let mut v = 1.0;
        for (s, over, k) in answer_classes(geo, &consistent, history, c) {
            if over {
                continue;
            }
            history.push((c, s));
            v += k as f64 / consistent.len() as f64 * brute_optimal(geo, fleets, history);
            history.pop();
        }
        best = best.min(v);
    }
    best
}

/// Greedy play's expected number of shots after `history`, by plain recursion: the cells
/// that most consistent fleets have a ship on, each equally likely (`first`: the lowest of
/// them alone).
fn brute_greedy(
    geo: &Arc<Geometry>,
    fleets: &[Fleet],
    history: &mut Vec<(usize, Shot)>,
    first: bool,
) -> f64 {
    let consistent: Vec<&Fleet> = fleets.iter().filter(|f| replay(geo, f, history)).collect();
    let cells = geo.rules().cells();
    let shot: Vec<usize> = history.iter().map(|h| h.0).collect();
    let count = |c: usize| {
        consistent
            .iter()
            .filter(|f| f.all_cells() >> c & 1 == 1)
            .count()
    };
    let open: Vec<usize> = (0..cells).filter(|c| !shot.contains(c)).collect();
    let max = open.iter().map(|&c| count(c)).max().unwrap_or(0);
    let mut tied: Vec<usize> = open.into_iter().filter(|&c| count(c) == max).collect();
    if first {
        tied.truncate(1);
    }
    let mut sum = 0.0;
    for &c in &tied {
        let mut v = 1.0;
        for (s, over, k) in answer_classes(geo, &consistent, history, c) {
            if !over {
                history.push((c, s));
                v += k as f64 / consistent.len() as f64 * brute_greedy(geo, fleets, history, first);
                history.pop();
            }
        }
        sum += v;
    }
    sum / tied.len() as f64
}

/// Both greedy strategies against the recursion above, under every feedback rule, on boards
/// small enough for it and with fleets enough that ties in the likeliest cell matter.
#[test]
fn greedy_values_equal_brute_force_on_tiny_boards() {
    let cases = [
        (3, 3, vec![2], Adjacency::Allowed, Feedback::Standard),
        (4, 2, vec![2, 1], Adjacency::Allowed, Feedback::Bare),
        (2, 4, vec![2, 1], Adjacency::NoTouch, Feedback::Standard),
        (3, 2, vec![2, 1], Adjacency::Allowed, Feedback::HitNamesShip),
        (
            3,
            2,
            vec![2, 2],
            Adjacency::Allowed,
            Feedback::SunkRevealsCells,
        ),
        (4, 3, vec![3, 2], Adjacency::Allowed, Feedback::Standard),
    ];
    let mut differ = 0;
    for (w, h, lens, adj, fb) in cases {
        let geo = Geometry::new(&rules(w, h, &lens, adj, fb)).unwrap();
        let fleets = all_fleets(&geo);
        let mut values = Vec::new();
        for (strategy, first) in [(Strategy::Greedy, false), (Strategy::GreedyFirst, true)] {
            let want = brute_greedy(&geo, &fleets, &mut Vec::new(), first);
            let got = exact_mean_shots(&geo, strategy, &ExactLimits::default()).unwrap();
            assert!(
                (got.mean_shots - want).abs() < 1e-9,
                "{w}x{h} {lens:?} {adj:?} {fb:?} {strategy:?}: {} vs brute force {want}",
                got.mean_shots
            );
            values.push(want);
        }
        differ += usize::from((values[0] - values[1]).abs() > 1e-9);
    }
    // The two strategies are told apart.
    assert!(differ >= 2, "{differ}");
}

#[test]
fn optimal_equals_brute_force_on_tiny_boards() {
    let cases = [
        (2, 3, vec![2], Adjacency::Allowed, Feedback::Standard),
        (3, 3, vec![2], Adjacency::Allowed, Feedback::Standard),
        (1, 6, vec![2, 1], Adjacency::Allowed, Feedback::Bare),
        (2, 4, vec![2, 1], Adjacency::NoTouch, Feedback::Standard),
        (2, 3, vec![2, 1], Adjacency::Allowed, Feedback::HitNamesShip),
        (
            2,
            3,
            vec![2, 2],
            Adjacency::Allowed,
            Feedback::SunkRevealsCells,
        ),
        // Two ships that need two hits each, under the feedback where the order of the shots
        // matters: a certain hit held back can make a later sinking tell more.
        (5, 1, vec![2, 2], Adjacency::Allowed, Feedback::Standard),
        (2, 4, vec![2, 2], Adjacency::Allowed, Feedback::Standard),
    ];
    for (w, h, lens, adj, fb) in cases {
        let geo = Geometry::new(&rules(w, h, &lens, adj, fb)).unwrap();
        let fleets = all_fleets(&geo);
        let want = brute_optimal(&geo, &fleets, &mut Vec::new());
        let got = exact_mean_shots(&geo, Strategy::Optimal, &ExactLimits::default()).unwrap();
        assert_eq!(got.fleets, fleets.len(), "{w}x{h} {lens:?}");
        assert!(
            (got.mean_shots - want).abs() < 1e-9,
            "{w}x{h} {lens:?} {adj:?} {fb:?}: {} vs brute force {want}",
            got.mean_shots
        );
        let greedy = exact_mean_shots(&geo, Strategy::Greedy, &ExactLimits::default()).unwrap();
        assert!(greedy.mean_shots >= got.mean_shots - 1e-9);
    }
}

#[test]
fn greedy_value_matches_the_posterior_shooter() {
    for (adj, lens) in [
        (Adjacency::Allowed, vec![3, 2]),
        (Adjacency::NoTouch, vec![2, 2]),
    ] {
        let geo = Geometry::new(&rules(4, 3, &lens, adj, Feedback::Standard)).unwrap();
        let exact = exact_mean_shots(&geo, Strategy::Greedy, &ExactLimits::default()).unwrap();
        let optimal = exact_mean_shots(&geo, Strategy::Optimal, &ExactLimits::default()).unwrap();
        assert!(optimal.mean_shots <= exact.mean_shots + 1e-9);
        // Every fleet, several tie-break seeds: only the tie-breaks are random.
        let fleets = all_fleets(&geo);
        let mut shots = Vec::new();
        for (i, f) in fleets.iter().enumerate() {
            for s in 0..8u64 {
                let mut shooter = ShooterKind::Posterior.build();
                let rec = play(&geo, f.clone(), shooter.as_mut(), (i as u64) << 8 | s);
                assert!(rec.error.is_none());
                shots.push(f64::from(rec.shots));
            }
        }
        let n = shots.len() as f64;
        let mean = shots.iter().sum::<f64>() / n;
        let var = shots.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let se = (var / n).sqrt();
        assert!(
            (mean - exact.mean_shots).abs() <= 4.0 * se + 1e-9,
            "{adj:?}: simulated {mean} ± {se}, exact greedy {}",
            exact.mean_shots
        );
    }
}

#[test]
fn exact_values_are_for_one_shot_a_turn() {
    let salvo = battleship::Rules {
        salvo: 2,
        ..rules(3, 3, &[2], Adjacency::Allowed, Feedback::Standard)
    };
    let geo = Geometry::new(&salvo).unwrap();
    let e = exact_mean_shots(&geo, Strategy::Greedy, &ExactLimits::default()).unwrap_err();
    assert!(e.to_string().contains("one shot per turn"), "{e}");
}

#[test]
fn consistent_fleets_are_the_brute_force_set() {
    use battleship::infer::{consistent_fleets, exact_posterior};
    use csp_core::Budget;
    for adj in [Adjacency::Allowed, Adjacency::NoTouch] {
        for fb in Feedback::ALL {
            let geo = Geometry::new(&rules(5, 5, &[3, 2, 2], adj, fb)).unwrap();
            let fleets = all_fleets(&geo);
            for seed in 0..3u64 {
                let target = fleets[(seed as usize * 37) % fleets.len()].clone();
                let mut game = Game::new(geo.clone(), target).unwrap();
                let mut shooter = ShooterKind::HuntTarget.build();
                let mut rng =
                    <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(seed);
                let mut history = Vec::new();
                while !game.is_over() {
                    let view = game.view().clone();
                    let post = exact_posterior(&view, &Budget::default()).unwrap();
                    let mut got = consistent_fleets(&view, &post, 100_000).unwrap();
                    let mut want: Vec<Vec<u128>> = fleets
                        .iter()
                        .filter(|f| replay(&geo, f, &history))
                        .map(|f| (0..3).map(|i| f.cells(i)).collect())
                        .collect();
                    got.sort();
                    want.sort();
                    assert_eq!(got, want, "{adj:?} {fb:?} after {history:?}");
                    let c = shooter.choose(&view, &mut rng).unwrap().cell;
                    history.push((c, game.shoot(c).unwrap()));
                }
            }
        }
    }
}

#[test]
fn shot_values_agree_with_the_exact_values() {
    use battleship::optimal::shot_values;
    for adj in [Adjacency::Allowed, Adjacency::NoTouch] {
        let geo = Geometry::new(&rules(4, 3, &[3, 2], adj, Feedback::Standard)).unwrap();
        let fleets: Vec<Vec<u128>> = all_fleets(&geo)
            .iter()
            .map(|f| (0..2).map(|i| f.cells(i)).collect())
            .collect();
        let cells: Vec<usize> = (0..12).collect();
        let limits = ExactLimits::default();
        let optimal = exact_mean_shots(&geo, Strategy::Optimal, &limits).unwrap();
        let v = shot_values(
            &geo,
            fleets.clone(),
            0,
            0,
            &cells,
            Strategy::Optimal,
            1 << 24,
        )
        .unwrap();
        let best = v.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(
            (best - optimal.mean_shots).abs() < 1e-9,
            "{best} vs {optimal:?}"
        );
        for &c in &optimal.first_shots {
            assert!((v[c] - best).abs() < 1e-9);
        }
        let greedy = exact_mean_shots(&geo, Strategy::Greedy, &limits).unwrap();
        let g = shot_values(
            &geo,
            fleets.clone(),
            0,
            0,
            &greedy.first_shots,
            Strategy::Greedy,
            1 << 24,
        )
        .unwrap();
        let mean = g.iter().sum::<f64>() / g.len() as f64;
        assert!(
            (mean - greedy.mean_shots).abs() < 1e-9,
            "{mean} vs {greedy:?}"
        );
        // One line of greedy play per answer is a policy too: never better than optimal.
        let first = shot_values(
            &geo,
            fleets.clone(),
            0,
            0,
            &cells,
            Strategy::GreedyFirst,
            1 << 24,
        )
        .unwrap();
        assert!(first.iter().all(|&x| x >= best - 1e-9));
        // A position already won: one more shot costs exactly that shot.
        let won = fleets[0].iter().fold(0u128, |a, &c| a | c);
        let free = (0..12).find(|&c| won >> c & 1 == 0).unwrap();
        let v = shot_values(
            &geo,
            vec![fleets[0].clone()],
            won,
            won,
            &[free],
            Strategy::Greedy,
            1000,
        )
        .unwrap();
        assert_eq!(v, vec![1.0]);
        // Bad requests are errors: a cell already shot (with fleets that all missed it, so
        // that only the candidate is wrong), ...
        let missed_5: Vec<Vec<u128>> = fleets
            .iter()
            .filter(|f| f.iter().all(|&c| c >> 5 & 1 == 0))
            .cloned()
            .collect();
        assert!(
            shot_values(
                &geo,
                missed_5.clone(),
                1 << 5,
                0,
                &[0],
                Strategy::Greedy,
                1 << 20
            )
            .is_ok()
        );
        let e = shot_values(&geo, missed_5, 1 << 5, 0, &[5], Strategy::Greedy, 1000).unwrap_err();
        assert!(e.to_string().contains("already shot"), "{e}");
        assert!(shot_values(&geo, fleets.clone(), 1, 0, &[0], Strategy::Greedy, 1000).is_err());
        assert!(shot_values(&geo, fleets, 0, 0, &[12], Strategy::Greedy, 1000).is_err());
        assert!(shot_values(&geo, Vec::new(), 0, 0, &[0], Strategy::Greedy, 1000).is_err());
    }
}

#[test]
fn a_search_out_of_room_keeps_the_candidates_it_valued() {
    use battleship::optimal::{shot_values, shot_values_within};
    let geo = Geometry::new(&rules(
        4,
        4,
        &[3, 2],
        Adjacency::Allowed,
        Feedback::Standard,
    ))
    .unwrap();
    let fleets: Vec<Vec<u128>> = all_fleets(&geo)
        .iter()
        .map(|f| (0..2).map(|i| f.cells(i)).collect())
        .collect();
    let cells: Vec<usize> = (0..16).collect();
    let then = Strategy::GreedyFirst;
    let all = shot_values(&geo, fleets.clone(), 0, 0, &cells, then, 1 << 24).unwrap();
    let (same, complete) =
        shot_values_within(&geo, fleets.clone(), 0, 0, &cells, then, 1 << 24).unwrap();
    assert!(complete);
    assert_eq!(same, all);
    // Every budget gives a prefix of the full answer, and some budget a strict one.
    let mut partial = 0;
    for budget in [1, 10, 30, 100, 300, 1000] {
        let (some, complete) =
            shot_values_within(&geo, fleets.clone(), 0, 0, &cells, then, budget).unwrap();
        assert_eq!(some, all[..some.len()], "budget {budget}");
        assert_eq!(complete, some.len() == cells.len(), "budget {budget}");
        if !complete {
            assert!(shot_values(&geo, fleets.clone(), 0, 0, &cells, then, budget).is_err());
            partial += usize::from(!some.is_empty());
        }
    }
    assert!(partial > 0);
}
