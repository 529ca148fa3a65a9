//! `analyze`, `count`, `propagate` and `sample` against brute-force enumeration of all 2^n
//! assignments on random small problems.
#![allow(clippy::unwrap_used, clippy::needless_range_loop)]

mod common;

use csp_core::{
    BigUint, BoolCsp, Budget, CspError, Sampler, analyze, analyze_naive, count, propagate,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Exact facts about a problem, by enumerating every assignment.
struct Brute {
    solutions: u64,
    /// Number of solutions in which each variable is true.
    trues: Vec<u64>,
}

fn brute(csp: &BoolCsp) -> Brute {
    let n = csp.num_vars();
    let mut solutions = 0;
    let mut trues = vec![0; n];
    let mut a = vec![false; n];
    for mask in 0u64..(1 << n) {
        for (v, x) in a.iter_mut().enumerate() {
            *x = mask >> v & 1 == 1;
        }
        if csp.is_satisfied_by(&a) {
            solutions += 1;
            for (v, t) in trues.iter_mut().enumerate() {
                *t += u64::from(a[v]);
            }
        }
    }
    Brute { solutions, trues }
}

/// A random problem description: number of variables, a hidden assignment, constraints as
/// (membership mask, count perturbation) and an optional total with its perturbation.
/// Counts are taken from the hidden assignment (so the problem is usually satisfiable) and
/// perturbed now and then (so it is sometimes not).
#[derive(Debug, Clone)]
struct Spec {
    n: usize,
    hidden: Vec<bool>,
    constraints: Vec<(Vec<bool>, i32)>,
    total: Option<i32>,
}

fn perturbation() -> impl Strategy<Value = i32> {
    prop_oneof![8 => Just(0), 1 => Just(1), 1 => Just(-1)]
}

fn spec() -> impl Strategy<Value = Spec> {
    (1usize..=14).prop_flat_map(|n| {
        (
            Just(n),
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(
                (
                    // Sparse-ish subsets so that some variables stay free.
                    prop::collection::vec(prop::bool::weighted(0.3), n),
                    perturbation(),
                ),
                0..=6,
            ),
            prop::option::weighted(0.6, perturbation()),
        )
            .prop_map(|(n, hidden, constraints, total)| Spec {
                n,
                hidden,
                constraints,
                total,
            })
    })
}

/// Builds the problem; `None` if `exactly` rejected a constraint as inconsistent (count out of
/// range), in which case the problem has no solution.
fn build(spec: &Spec) -> (BoolCsp, bool) {
    let mut csp = BoolCsp::new(spec.n);
    let mut ok = true;
    for (mask, d) in &spec.constraints {
        let vars: Vec<usize> = (0..spec.n).filter(|&v| mask[v]).collect();
        let c = vars.iter().filter(|&&v| spec.hidden[v]).count() as i32 + d;
        let c = c.max(0) as u32;
        match csp.exactly(&vars, c) {
            Ok(()) => {}
            Err(CspError::Inconsistent) => {
                assert!(c as usize > vars.len());
                ok = false;
            }
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    if let Some(d) = spec.total {
        let t = spec.hidden.iter().filter(|&&b| b).count() as i32 + d;
        csp.set_total(t.max(0) as u32);
    }
    (csp, ok)
}

fn check(csp: &BoolCsp) -> Result<(), TestCaseError> {
    let b = brute(csp);
    let budget = Budget::default();

    // propagate: never contradicts brute force.
    match propagate(csp) {
        Ok(values) => {
            for (v, val) in values.iter().enumerate() {
                if let Some(x) = val {
                    let expected = if *x { b.solutions } else { 0 };
                    // (Vacuously true without solutions: propagation is incomplete.)
                    prop_assert!(
                        b.solutions == 0 || b.trues[v] == expected,
                        "propagate claimed var {} = {}",
                        v,
                        x
                    );
                }
            }
        }
        Err(e) => {
            prop_assert_eq!(e, CspError::Inconsistent);
            prop_assert_eq!(b.solutions, 0, "propagate: false inconsistency");
        }
    }

    let a = analyze(csp, &budget);
    let c = count(csp, &budget);
    // The naive reference agrees with the engine, whatever the outcome.
    let naive = analyze_naive(csp, &budget);
    match (&a, &naive) {
        (Ok(x), Ok(y)) => {
            prop_assert_eq!(&x.solutions, &y.solutions);
            prop_assert_eq!(&x.forced, &y.forced);
            for (p, q) in x.probabilities.iter().zip(&y.probabilities) {
                prop_assert!((p - q).abs() < 1e-12, "naive {} vs {}", q, p);
            }
        }
        (x, y) => prop_assert_eq!(x, y),
    }
    if b.solutions == 0 {
        prop_assert_eq!(a, Err(CspError::Inconsistent));
        prop_assert_eq!(c, Err(CspError::Inconsistent));
        prop_assert!(Sampler::new(csp, &budget).is_err());
        return Ok(());
    }
    let a = a.unwrap();
    prop_assert_eq!(&a.solutions, &BigUint::from_u64(b.solutions));
    prop_assert_eq!(c.unwrap(), BigUint::from_u64(b.solutions));
    for v in 0..csp.num_vars() {
        let p = b.trues[v] as f64 / b.solutions as f64;
        prop_assert!(
            (a.probabilities[v] - p).abs() < 1e-12,
            "var {}: {} vs {}",
            v,
            a.probabilities[v],
            p
        );
        let forced = if b.trues[v] == 0 {
            Some(false)
        } else if b.trues[v] == b.solutions {
            Some(true)
        } else {
            None
        };
        prop_assert_eq!(a.forced[v], forced, "forced var {}", v);
    }

    // A few samples: all are solutions, and the sampler agrees on the count.
    let sampler = Sampler::new(csp, &budget).unwrap();
    prop_assert_eq!(sampler.solutions(), &a.solutions);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(b.solutions);
    for _ in 0..5 {
        let s = sampler.sample(&mut rng).unwrap();
        prop_assert!(csp.is_satisfied_by(&s));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn matches_brute_force(spec in spec()) {
        let (csp, ok) = build(&spec);
        if !ok {
            prop_assert_eq!(brute(&csp).solutions, 0);
            prop_assert_eq!(analyze(&csp, &Budget::default()), Err(CspError::Inconsistent));
            prop_assert_eq!(propagate(&csp), Err(CspError::Inconsistent));
        } else {
            check(&csp)?;
        }
    }

    /// Denser problems: overlapping constraints over most variables, where propagation and
    /// the pairwise rules do most of the work.
    #[test]
    fn dense_matches_brute_force(
        n in 4usize..=12,
        seed in any::<u64>(),
        k in 2usize..=8,
        with_total in any::<bool>(),
    ) {
        let (mut csp, hidden) = common::windows(n, seed, k, 0.4);
        if with_total {
            csp.set_total(hidden.iter().filter(|&&b| b).count() as u32);
        }
        check(&csp)?;
    }
}

#[test]
fn validation_errors() {
    let mut csp = BoolCsp::new(3);
    assert_eq!(
        csp.exactly(&[0, 3], 1),
        Err(CspError::VarOutOfRange {
            var: 3,
            num_vars: 3
        })
    );
    assert_eq!(
        csp.exactly(&[1, 0, 1], 1),
        Err(CspError::DuplicateVar { var: 1 })
    );
    assert!(csp.constraints().is_empty());
    assert_eq!(
        csp.fix(5, true),
        Err(CspError::VarOutOfRange {
            var: 5,
            num_vars: 3
        })
    );
    // Still consistent: 8 solutions.
    assert_eq!(
        count(&csp, &Budget::default()).unwrap(),
        BigUint::from_u64(8)
    );
    assert_eq!(csp.exactly(&[0, 1], 3), Err(CspError::Inconsistent));
    assert_eq!(
        analyze(&csp, &Budget::default()),
        Err(CspError::Inconsistent)
    );
}

#[test]
fn total_out_of_range_is_inconsistent() {
    let mut csp = BoolCsp::new(3);
    csp.set_total(4);
    assert_eq!(propagate(&csp), Err(CspError::Inconsistent));
    assert_eq!(count(&csp, &Budget::default()), Err(CspError::Inconsistent));
    csp.set_total(3);
    assert_eq!(propagate(&csp).unwrap(), vec![Some(true); 3]);
    csp.clear_total();
    assert_eq!(
        count(&csp, &Budget::default()).unwrap(),
        BigUint::from_u64(8)
    );
}

#[test]
fn empty_problem() {
    let csp = BoolCsp::new(0);
    let a = analyze(&csp, &Budget::default()).unwrap();
    assert_eq!(a.solutions, BigUint::one());
    assert!(a.probabilities.is_empty());
    assert_eq!(a.components, 0);
}

#[test]
fn propagation_subset_rule() {
    // {0,1} has 1, {0,1,2} has 2 => 2 is true; {2,3} has 1 => 3 is false.
    let mut csp = BoolCsp::new(5);
    csp.exactly(&[0, 1], 1).unwrap();
    csp.exactly(&[0, 1, 2], 2).unwrap();
    csp.exactly(&[2, 3], 1).unwrap();
    let p = propagate(&csp).unwrap();
    assert_eq!(p, vec![None, None, Some(true), Some(false), None]);
    // The total decides the free variable 4: 2 trues in {0,1,2}, total 3.
    csp.set_total(3);
    assert_eq!(propagate(&csp).unwrap()[4], Some(true));
}

/// Variables in no constraint are decided together, through the total, whether many or none
/// are left once the constrained ones are counted.
#[test]
fn variables_outside_the_constraints_follow_the_total() {
    let n = 5000;
    let with_total = |t: u32| {
        let mut csp = BoolCsp::new(n);
        csp.exactly(&[10, 11], 1).unwrap();
        csp.exactly(&[4000, 4001, 4002], 3).unwrap();
        csp.set_total(t);
        propagate(&csp)
    };
    // 1 + 3 trues in the constraints: a total of 4 leaves none for the rest, n - 1 all of it.
    for (t, rest) in [(4, Some(false)), (n as u32 - 1, Some(true)), (5, None)] {
        let p = with_total(t).unwrap();
        assert_eq!(p[10], None);
        assert_eq!(p[4000..4003], [Some(true); 3]);
        for v in (0..n).filter(|v| ![10, 11, 4000, 4001, 4002].contains(v)) {
            assert_eq!(p[v], rest, "total {t}, variable {v}");
        }
    }
    assert_eq!(with_total(3), Err(CspError::Inconsistent));
    // Without constraints the total alone decides everything or nothing.
    for (t, all) in [(0, Some(false)), (7, Some(true)), (3, None)] {
        let mut csp = BoolCsp::new(7);
        csp.set_total(t);
        assert_eq!(propagate(&csp).unwrap(), vec![all; 7]);
    }
}

/// The Minesweeper "1-2-1" pattern: hidden cells a b c d e with {a,b,c} = 1, {b,c,d} = 2 and
/// {c,d,e} = 1 force b and d to be mines and a, c, e to be safe.
#[test]
fn one_two_one_pattern() {
    let mut csp = BoolCsp::new(5);
    csp.exactly(&[0, 1, 2], 1).unwrap();
    csp.exactly(&[1, 2, 3], 2).unwrap();
    csp.exactly(&[2, 3, 4], 1).unwrap();
    let a = analyze(&csp, &Budget::default()).unwrap();
    assert_eq!(a.solutions, BigUint::one());
    assert_eq!(
        a.forced,
        vec![
            Some(false),
            Some(true),
            Some(false),
            Some(true),
            Some(false)
        ]
    );
}

/// A larger chain-shaped frontier (20 variables, 2^20 assignments), checked once against
/// brute force.
#[test]
fn medium_problem_against_brute_force() {
    use rand::RngExt;
    let n = 20;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    let hidden: Vec<bool> = (0..n).map(|_| rng.random_bool(0.3)).collect();
    let mut csp = BoolCsp::new(n);
    for start in (0..16).step_by(2) {
        let vars: Vec<usize> = (start..start + 4).collect();
        let c = vars.iter().filter(|&&v| hidden[v]).count() as u32;
        csp.exactly(&vars, c).unwrap();
    }
    csp.set_total(hidden.iter().filter(|&&b| b).count() as u32);
    let b = brute(&csp);
    let a = analyze(&csp, &Budget::default()).unwrap();
    assert_eq!(a.solutions, BigUint::from_u64(b.solutions));
    for v in 0..n {
        let p = b.trues[v] as f64 / b.solutions as f64;
        assert!((a.probabilities[v] - p).abs() < 1e-12);
    }
}

#[test]
fn budget_exceeded() {
    // A long chain of overlapping constraints with many solutions.
    let n = 60;
    let mut csp = BoolCsp::new(n);
    for s in 0..n - 2 {
        csp.exactly(&[s, s + 1, s + 2], 1).unwrap();
    }
    // Windows of 3 overlapping by one: the number of solutions grows exponentially.
    let mut csp2 = BoolCsp::new(n);
    for s in (0..n - 2).step_by(2) {
        csp2.exactly(&[s, s + 1, s + 2], 1).unwrap();
    }
    let err = analyze(&csp2, &Budget { max_nodes: 100 }).unwrap_err();
    assert!(matches!(
        err,
        CspError::BudgetExceeded { max_nodes: 100, .. }
    ));
    assert!(analyze(&csp2, &Budget::default()).is_ok());
    assert!(analyze(&csp, &Budget::default()).is_ok());
}
