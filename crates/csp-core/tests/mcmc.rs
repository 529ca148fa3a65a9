//! The block Gibbs estimate against exact marginals.
#![allow(clippy::unwrap_used)]

mod common;

use csp_core::{Analysis, Budget, CspError, Estimate, McmcConfig, analyze, estimate};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Blocks of 8, 20,000 steps averaged after 1000.
fn blocks_of_eight() -> McmcConfig {
    McmcConfig {
        block: 8,
        steps: 20_000,
        burn_in: 1_000,
        ..McmcConfig::default()
    }
}

/// Every estimated marginal within 0.05 of the exact one, and every variable the chain
/// never moved forced in fact.
fn assert_near(a: &Analysis, e: &Estimate, seed: u64) {
    for (v, (p, q)) in a.probabilities.iter().zip(&e.probabilities).enumerate() {
        assert!(
            (p - q).abs() < 0.05,
            "seed {seed} var {v}: exact {p} estimate {q}"
        );
        if let Some(b) = e.forced[v] {
            assert_eq!(a.forced[v], Some(b), "seed {seed} var {v}");
        }
    }
}

/// Blocks of 8 on problems of 24 variables (so no step redraws everything): after 20,000
/// steps every marginal is within 0.05 of the exact one, and propagation's verdicts agree.
#[test]
fn estimates_approach_exact_marginals() {
    let config = blocks_of_eight();
    let mut checked = 0;
    for seed in 0..24 {
        let (mut csp, hidden) = common::windows(24, seed, 10, 0.3);
        if seed % 2 == 0 {
            csp.set_total(hidden.iter().filter(|&&b| b).count() as u32);
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let exact = analyze(&csp, &Budget::default());
        let approx = estimate(&csp, &config, &mut rng);
        match (exact, approx) {
            (Err(CspError::Inconsistent), Err(CspError::Inconsistent)) => {}
            (Ok(a), Ok(e)) => {
                checked += 1;
                assert_near(&a, &e, seed);
            }
            (a, e) => panic!("seed {seed}: exact {a:?} but estimate {e:?}"),
        }
    }
    assert!(checked >= 12, "only {checked} consistent problems");
}

/// The same with "at most", "at least" and "between" constraints (windows of 3 to 6
/// variables, their bounds around a hidden assignment's trues), with and without a total.
#[test]
fn estimates_approach_exact_marginals_under_between_constraints() {
    use rand::RngExt;
    let config = blocks_of_eight();
    let n = 24;
    for seed in 0..12u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(100 + seed);
        let hidden: Vec<bool> = (0..n).map(|_| rng.random_bool(0.3)).collect();
        let mut csp = csp_core::BoolCsp::new(n);
        for k in 0..12 {
            let len = rng.random_range(3..=6);
            let at = rng.random_range(0..=n - len);
            let vars: Vec<usize> = (at..at + len).collect();
            let t = vars.iter().filter(|&&v| hidden[v]).count() as u32;
            match k % 4 {
                0 => csp.exactly(&vars, t),
                1 => csp.at_most(&vars, t + 1),
                2 => csp.at_least(&vars, t.saturating_sub(1)),
                _ => csp.between(&vars, t.saturating_sub(1), t + 1),
            }
            .unwrap();
        }
        if seed % 2 == 0 {
            csp.set_total(hidden.iter().filter(|&&b| b).count() as u32);
        }
        let a = analyze(&csp, &Budget::default()).unwrap();
        let e = estimate(&csp, &config, &mut rng).unwrap();
        assert_near(&a, &e, seed);
    }
}

/// The same seed gives the same estimate.
#[test]
fn estimates_are_reproducible() {
    let (csp, _) = common::windows(30, 5, 12, 0.3);
    let run = |seed| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        estimate(&csp, &McmcConfig::default(), &mut rng)
    };
    assert_eq!(run(3), run(3));
}

/// The chain's work does not grow with the square of a constraint's length: one constraint
/// over 400,000 variables (half of them true) is walked once by the search for a first
/// solution. A step stops growing its block from the constraint once the block is full, but
/// its redraw then reads the whole constraint (to count the trues outside the block) and the
/// estimate adds every variable's value to its tally, so a step costs time linear in the
/// constraint's length: 220 steps are a few hundred passes over 400,000 variables.
///
/// Every marginal is one half by symmetry, and the mean of the estimates is one half for any
/// sequence of solutions, even a chain that never moves. In 200 steps a block of 16 redraws
/// only about 1,000 variables drawn at random (the random first variable and four far picks
/// per step), so most marginals stay at 0 or 1; each redraw changes the variable about half
/// the time, so about 500 marginals are strictly between 0 and 1, where a chain that never
/// moves has none. (`every_variable_of_a_long_constraint_is_near_one_half` checks every
/// marginal on a constraint short enough to mix.)
#[test]
fn a_very_long_constraint_is_walked_once() {
    let n = 400_000;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut csp = csp_core::BoolCsp::new(n);
        csp.exactly(&(0..n).collect::<Vec<_>>(), (n / 2) as u32)
            .unwrap();
        let config = McmcConfig {
            steps: 200,
            burn_in: 20,
            ..McmcConfig::default()
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let _ = tx.send(estimate(&csp, &config, &mut rng));
    });
    let e = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("a 400,000-variable constraint took over a minute")
        .unwrap();
    assert_eq!(e.chain_vars, n);
    assert!(e.forced.iter().all(Option::is_none));
    let mean = e.probabilities.iter().sum::<f64>() / n as f64;
    assert!((mean - 0.5).abs() < 1e-9, "mean {mean}");
    let moved = e
        .probabilities
        .iter()
        .filter(|&&p| p > 0.0 && p < 1.0)
        .count();
    assert!(
        moved >= 200,
        "only {moved} marginals strictly between 0 and 1"
    );
}

/// One constraint over 200 variables, half of them true, redrawn by blocks of 16: every
/// marginal is one half, and every estimate is within 0.11 of it. A variable outside the
/// first few of the constraint (which are in every block) is redrawn when it is the block's
/// random first variable or one of its four far picks, about 5 steps in 200, and keeps its
/// value in between: its values are correlated over about `2 * 200 / 5 = 80` steps, so over
/// 40,000 steps its estimate has a standard error of about `sqrt(0.25 * 80 / 40_000)`, 0.022,
/// and 0.11 is five of them. A chain that never moves (or `steps: 0`) has every estimate at
/// 0 or 1.
#[test]
fn every_variable_of_a_long_constraint_is_near_one_half() {
    let n = 200;
    let mut csp = csp_core::BoolCsp::new(n);
    csp.exactly(&(0..n).collect::<Vec<_>>(), (n / 2) as u32)
        .unwrap();
    let config = McmcConfig {
        steps: 40_000,
        burn_in: 1_000,
        ..McmcConfig::default()
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let e = estimate(&csp, &config, &mut rng).unwrap();
    assert_eq!(e.chain_vars, n);
    for (v, p) in e.probabilities.iter().enumerate() {
        assert!((p - 0.5).abs() < 0.11, "var {v}: {p}");
    }
}
