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

/// The standard errors say how far the estimates are from the exact marginals: over the
/// undecided variables of 40 problems, run with short chains (2000 steps, blocks of 8) so
/// that the errors are large enough to see, the squared ratio of error to standard error
/// averages about 1 (Student's t with 19 degrees of freedom has 19/17), and a ratio past 4
/// is rare. Standard errors `sqrt(20)` times too small or too large (the spread of one
/// batch's average, or of the batches' sum) fail both ways; so does the plain binomial
/// error, which ignores that successive states are alike.
#[test]
fn standard_errors_measure_the_error() {
    let config = McmcConfig {
        block: 8,
        steps: 2_000,
        burn_in: 200,
        ..McmcConfig::default()
    };
    let (mut z2, mut far, mut n) = (0.0, 0, 0);
    for seed in 0..40 {
        let (mut csp, hidden) = common::windows(24, 1000 + seed, 10, 0.3);
        csp.set_total(hidden.iter().filter(|&&b| b).count() as u32);
        let Ok(a) = analyze(&csp, &Budget::default()) else {
            continue;
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let e = estimate(&csp, &config, &mut rng).unwrap();
        assert_eq!(e.std_errors.len(), csp.num_vars());
        for v in 0..csp.num_vars() {
            let (p, q, se) = (a.probabilities[v], e.probabilities[v], e.std_errors[v]);
            if e.forced[v].is_some() {
                assert_eq!(se, 0.0, "seed {seed} var {v}");
                continue;
            }
            if p == 0.0 || p == 1.0 {
                // Never moves: the estimate is exact and its error 0.
                assert_eq!((q, se), (p, 0.0), "seed {seed} var {v}");
                continue;
            }
            assert!(se > 0.0, "seed {seed} var {v}: exact {p}, estimate {q}");
            let z = (q - p) / se;
            z2 += z * z;
            far += usize::from(z.abs() > 4.0);
            n += 1;
        }
    }
    assert!(n >= 300, "only {n} undecided variables");
    let mean = z2 / n as f64;
    assert!(
        (0.6..1.8).contains(&mean),
        "mean squared ratio {mean} over {n}"
    );
    assert!(far * 100 <= n, "{far} of {n} ratios past 4");
}

/// Too few steps for a spread: the error is unknown, not 0.
#[test]
fn one_step_has_no_standard_error() {
    let mut csp = csp_core::BoolCsp::new(3);
    csp.exactly(&[0, 1, 2], 1).unwrap();
    for steps in [0, 1] {
        let config = McmcConfig {
            steps,
            ..McmcConfig::default()
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let e = estimate(&csp, &config, &mut rng).unwrap();
        assert!(e.std_errors.iter().all(|s| s.is_infinite()), "{e:?}");
    }
}
