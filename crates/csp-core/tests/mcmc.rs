//! The block Gibbs estimate against exact marginals.
#![allow(clippy::unwrap_used)]

mod common;

use csp_core::{Budget, CspError, McmcConfig, analyze, estimate};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Blocks of 8 on problems of 24 variables (so no step redraws everything): after 20,000
/// steps every marginal is within 0.05 of the exact one, and propagation's verdicts agree.
#[test]
fn estimates_approach_exact_marginals() {
    let config = McmcConfig {
        block: 8,
        steps: 20_000,
        burn_in: 1_000,
        ..McmcConfig::default()
    };
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
                for v in 0..24 {
                    assert!(
                        (a.probabilities[v] - e.probabilities[v]).abs() < 0.05,
                        "seed {seed} var {v}: exact {} estimate {}",
                        a.probabilities[v],
                        e.probabilities[v]
                    );
                    if let Some(b) = e.forced[v] {
                        assert_eq!(a.forced[v], Some(b), "seed {seed} var {v}");
                    }
                }
            }
            (a, e) => panic!("seed {seed}: exact {a:?} but estimate {e:?}"),
        }
    }
    assert!(checked >= 12, "only {checked} consistent problems");
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
/// over 400,000 variables (half of them true) is searched once for a first solution and, at
/// every step, read only until the block is full. Every marginal is one half by symmetry.
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
}
