//! `analyze_naive` (plain backtracking) against `analyze` (propagation, components, boxes) on
//! random Minesweeper-like problems too large for brute force: the same solutions,
//! probabilities and forced values. (Both are also checked against brute-force enumeration in
//! `brute_force.rs`.)
#![allow(clippy::unwrap_used)]

mod common;

use csp_core::{Analysis, BigUint, BoolCsp, Budget, CspError, analyze, analyze_naive};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn same(a: &Analysis, b: &Analysis) -> Result<(), TestCaseError> {
    prop_assert_eq!(&a.solutions, &b.solutions);
    prop_assert_eq!(a.probabilities.len(), b.probabilities.len());
    for (v, (p, q)) in a.probabilities.iter().zip(&b.probabilities).enumerate() {
        prop_assert!((p - q).abs() < 1e-12, "var {}: {} vs {}", v, p, q);
    }
    prop_assert_eq!(&a.forced, &b.forced);
    Ok(())
}

fn check(csp: &BoolCsp) -> Result<(), TestCaseError> {
    let budget = Budget::default();
    let fast = analyze(csp, &budget);
    let naive = analyze_naive(csp, &budget);
    match (&fast, &naive) {
        (Ok(a), Ok(b)) => same(a, b),
        (Err(CspError::Inconsistent), Err(CspError::Inconsistent)) => Ok(()),
        _ => Err(TestCaseError::fail(format!(
            "analyze: {fast:?}\nanalyze_naive: {naive:?}"
        ))),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Minesweeper-like problems: windows of consecutive variables, some variables fixed, a
    /// total most of the time.
    #[test]
    fn naive_matches_analyze_on_windows(
        n in 4usize..=24,
        seed in any::<u64>(),
        k in 2usize..=12,
        fixes in 0usize..=2,
        with_total in any::<bool>(),
    ) {
        let (mut csp, hidden) = common::windows(n, seed, k, 0.3);
        use rand::RngExt;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
        for _ in 0..fixes {
            let v = rng.random_range(0..n);
            csp.fix(v, hidden[v]).unwrap();
        }
        if with_total {
            csp.set_total(hidden.iter().filter(|&&b| b).count() as u32);
        }
        check(&csp)?;
    }
}

#[test]
fn empty_and_unconstrained_problems() {
    let budget = Budget::default();
    let a = analyze_naive(&BoolCsp::new(0), &budget).unwrap();
    assert_eq!(a.solutions, BigUint::one());
    assert_eq!(a.components, 0);

    let mut csp = BoolCsp::new(4);
    let a = analyze_naive(&csp, &budget).unwrap();
    assert_eq!(a.solutions, BigUint::from_u64(16));
    assert_eq!(a.probabilities, vec![0.5; 4]);
    csp.set_total(4);
    let a = analyze_naive(&csp, &budget).unwrap();
    assert_eq!(a.solutions, BigUint::one());
    assert_eq!(a.forced, vec![Some(true); 4]);
    csp.set_total(5);
    assert_eq!(analyze_naive(&csp, &budget), Err(CspError::Inconsistent));
    csp.set_total(0);
    assert_eq!(
        analyze_naive(&csp, &budget).unwrap().forced,
        vec![Some(false); 4]
    );
}

#[test]
fn marked_inconsistent() {
    let mut csp = BoolCsp::new(3);
    assert_eq!(csp.exactly(&[0, 1], 3), Err(CspError::Inconsistent));
    assert_eq!(
        analyze_naive(&csp, &Budget::default()),
        Err(CspError::Inconsistent)
    );
}

/// The crate example: a "1" touching cells 0, 1 and 2, 2 mines among 5 cells.
#[test]
fn crate_example() {
    let mut csp = BoolCsp::new(5);
    csp.exactly(&[0, 1, 2], 1).unwrap();
    csp.set_total(2);
    let a = analyze_naive(&csp, &Budget::default()).unwrap();
    assert_eq!(a.solutions, BigUint::from_u64(6));
    assert!((a.probabilities[0] - 1.0 / 3.0).abs() < 1e-12);
    assert!((a.probabilities[4] - 0.5).abs() < 1e-12);
    assert_eq!(a.forced, vec![None; 5]);
    assert_eq!(a.stats.free_vars, 2);
}

#[test]
fn budget_exceeded() {
    // Windows of 3 overlapping by one: the number of solutions grows exponentially.
    let n = 41;
    let mut csp = BoolCsp::new(n);
    for s in (0..n - 2).step_by(2) {
        csp.exactly(&[s, s + 1, s + 2], 1).unwrap();
    }
    let err = analyze_naive(&csp, &Budget { max_nodes: 100 }).unwrap_err();
    assert_eq!(
        err,
        CspError::BudgetExceeded {
            max_nodes: 100,
            component_vars: n
        }
    );
    let naive = analyze_naive(&csp, &Budget::default()).unwrap();
    let fast = analyze(&csp, &Budget::default()).unwrap();
    assert_eq!(naive.solutions, fast.solutions);
    assert!(naive.stats.nodes > fast.stats.nodes);
}

/// The search keeps its path off the thread's stack: one level per constrained variable, with
/// a million of them (two nodes each, well within the default budget), on a thread with a
/// 256 KiB stack.
#[test]
fn a_long_problem_needs_no_deep_stack() {
    let analysed = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            // One constraint over a million variables, none true: a single solution.
            let n = 1_000_000;
            let mut csp = BoolCsp::new(n);
            csp.exactly(&(0..n).collect::<Vec<_>>(), 0).unwrap();
            let wide = analyze_naive(&csp, &Budget::default()).unwrap();
            // A chain of 100,000 variables, neighbours differing: two solutions.
            let n = 100_000;
            let mut csp = BoolCsp::new(n);
            for i in 0..n - 1 {
                csp.exactly(&[i, i + 1], 1).unwrap();
            }
            let chain = analyze_naive(&csp, &Budget::default()).unwrap();
            (wide, chain)
        })
        .unwrap()
        .join()
        .unwrap();
    let (wide, chain) = analysed;
    assert_eq!(wide.solutions, BigUint::one());
    assert_eq!(wide.forced, vec![Some(false); 1_000_000]);
    assert_eq!(wide.stats.nodes, 2_000_000);
    assert_eq!(chain.solutions, BigUint::from_u64(2));
    assert!(chain.probabilities.iter().all(|&p| p == 0.5));
    assert!(chain.forced.iter().all(Option::is_none));
}

/// Variables in no constraint cost no table of binomials per variable: 300,000 of them (a
/// table would take gigabytes) are counted at once, with and without a total, alone and next
/// to a few constrained variables, as `analyze` counts them.
#[test]
fn many_unconstrained_variables_are_counted_at_once() {
    let n = 300_000;
    let mut alone = BoolCsp::new(n);
    let mut with_some = BoolCsp::new(n);
    with_some.exactly(&[0, 1, 2], 1).unwrap();
    with_some.exactly(&[2, 3], 1).unwrap();
    for total in [
        None,
        Some(0),
        Some(1),
        Some(100_000),
        Some(150_000),
        Some(299_999),
    ] {
        for csp in [&mut alone, &mut with_some] {
            if let Some(t) = total {
                csp.set_total(t);
            }
            check(csp).unwrap();
        }
    }
    alone.set_total(150_000);
    let a = analyze_naive(&alone, &Budget::default()).unwrap();
    assert_eq!(a.solutions, BigUint::binomial(300_000, 150_000));
    assert!(a.probabilities.iter().all(|&p| (p - 0.5).abs() < 1e-12));
    assert_eq!(a.stats.free_vars, n);
}
