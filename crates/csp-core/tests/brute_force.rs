//! `analyze`, `count`, `propagate` and `sample` against brute-force enumeration of all 2^n
//! assignments on random small problems.
#![allow(clippy::unwrap_used, clippy::needless_range_loop)]

mod common;

use csp_core::{
    BigUint, BoolCsp, Budget, CspError, Sampler, analyze, analyze_naive, count, propagate,
    true_range,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Exact facts about a problem, by enumerating every assignment.
struct Brute {
    solutions: u64,
    /// Number of solutions in which each variable is true.
    trues: Vec<u64>,
    /// The fewest and the most trues of a solution.
    range: Option<(usize, usize)>,
}

fn brute(csp: &BoolCsp) -> Brute {
    brute_by(csp.num_vars(), |a| csp.is_satisfied_by(a))
}

/// [`brute`] with the solutions told apart by `is_solution`.
fn brute_by(n: usize, is_solution: impl Fn(&[bool]) -> bool) -> Brute {
    let mut solutions = 0;
    let mut trues = vec![0; n];
    let mut a = vec![false; n];
    let mut range: Option<(usize, usize)> = None;
    for mask in 0u64..(1 << n) {
        for (v, x) in a.iter_mut().enumerate() {
            *x = mask >> v & 1 == 1;
        }
        if is_solution(&a) {
            solutions += 1;
            let k = mask.count_ones() as usize;
            range = Some(range.map_or((k, k), |(lo, hi)| (lo.min(k), hi.max(k))));
            for (v, t) in trues.iter_mut().enumerate() {
                *t += u64::from(a[v]);
            }
        }
    }
    Brute {
        solutions,
        trues,
        range,
    }
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
    check_against(csp, brute(csp))
}

fn check_against(csp: &BoolCsp, b: Brute) -> Result<(), TestCaseError> {
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
    let r = true_range(csp, &budget);
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
        prop_assert_eq!(r, Err(CspError::Inconsistent));
        prop_assert!(Sampler::new(csp, &budget).is_err());
        return Ok(());
    }
    let a = a.unwrap();
    prop_assert_eq!(&a.solutions, &BigUint::from_u64(b.solutions));
    prop_assert_eq!(c.unwrap(), BigUint::from_u64(b.solutions));
    prop_assert_eq!(Some(r.unwrap()), b.range);
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

/// A problem with "at most", "at least" and "between" constraints among "exactly" ones:
/// per constraint its kind, membership mask, perturbation of the hidden assignment's trues
/// (the bound) and, for "between", the width on either side.
#[derive(Debug, Clone)]
struct RangeSpec {
    n: usize,
    hidden: Vec<bool>,
    constraints: Vec<(u8, Vec<bool>, i32, u32)>,
    total: Option<i32>,
}

fn range_spec() -> impl Strategy<Value = RangeSpec> {
    (1usize..=13).prop_flat_map(|n| {
        (
            Just(n),
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(
                (
                    0u8..4,
                    prop::collection::vec(prop::bool::weighted(0.35), n),
                    perturbation(),
                    0u32..3,
                ),
                0..=7,
            ),
            prop::option::weighted(0.5, perturbation()),
        )
            .prop_map(|(n, hidden, constraints, total)| RangeSpec {
                n,
                hidden,
                constraints,
                total,
            })
    })
}

/// Builds the problem and, independently of the crate, the bounds `(vars, min, max)` every
/// constraint puts on its trues (a rejected constraint, one with `min` above its size or
/// above `max`, has none: the problem then has no solution).
/// A constraint's variables and the fewest and most trues it allows.
type Bounds = (Vec<usize>, u32, u32);

fn build_ranges(spec: &RangeSpec) -> (BoolCsp, Vec<Bounds>, bool) {
    let mut csp = BoolCsp::new(spec.n);
    let mut bounds = Vec::new();
    let mut ok = true;
    for (kind, mask, d, width) in &spec.constraints {
        let vars: Vec<usize> = (0..spec.n).filter(|&v| mask[v]).collect();
        let t = (vars.iter().filter(|&&v| spec.hidden[v]).count() as i32 + d).max(0) as u32;
        let (min, max, r) = match kind {
            0 => (t, t, csp.exactly(&vars, t)),
            1 => (0, t, csp.at_most(&vars, t)),
            2 => (t, u32::MAX, csp.at_least(&vars, t)),
            _ => {
                let (min, max) = (t.saturating_sub(*width), t + width);
                (min, max, csp.between(&vars, min, max))
            }
        };
        match r {
            Ok(()) => bounds.push((vars, min, max)),
            Err(CspError::Inconsistent) => {
                assert!(min as usize > vars.len());
                ok = false;
            }
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    if let Some(d) = spec.total {
        let t = spec.hidden.iter().filter(|&&b| b).count() as i32 + d;
        csp.set_total(t.max(0) as u32);
    }
    (csp, bounds, ok)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// "At most", "at least" and "between" constraints: every function agrees with brute
    /// force over the bounds as given (not through the crate's own satisfaction check, which
    /// is compared with them too).
    #[test]
    fn between_constraints_match_brute_force(spec in range_spec()) {
        let (csp, bounds, ok) = build_ranges(&spec);
        let total = csp.total();
        let b = brute_by(spec.n, |a| {
            ok && bounds.iter().all(|(vars, min, max)| {
                let t = vars.iter().filter(|&&v| a[v]).count() as u32;
                *min <= t && t <= *max
            }) && total.is_none_or(|t| a.iter().filter(|&&x| x).count() as u32 == t)
        });
        prop_assert_eq!(brute(&csp).solutions, b.solutions);
        if !ok {
            prop_assert_eq!(analyze(&csp, &Budget::default()), Err(CspError::Inconsistent));
        } else {
            check_against(&csp, b)?;
        }
    }

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

/// A long chain of "exactly one of x_i, x_i+1" is one component of thousands of boxes that
/// propagation leaves open, yet cheap to enumerate (two solutions): the enumeration must not
/// need stack in proportion to it. Run on a thread with a small stack.
#[test]
fn a_long_chain_needs_no_deep_stack() {
    let n = 3000;
    let analysed = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let mut csp = BoolCsp::new(n);
            for i in 0..n - 1 {
                csp.exactly(&[i, i + 1], 1).unwrap();
            }
            let a = analyze(&csp, &Budget::default()).unwrap();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            let s = Sampler::new(&csp, &Budget::default())
                .unwrap()
                .sample(&mut rng)
                .unwrap();
            (a, s)
        })
        .unwrap()
        .join()
        .unwrap();
    let (a, s) = analysed;
    assert_eq!(a.solutions, BigUint::from(2u64));
    assert_eq!(a.components, 1);
    assert!(a.probabilities.iter().all(|&p| p == 0.5));
    assert!(s.windows(2).all(|w| w[0] != w[1]));
}

/// Ordering the boxes of a component for the enumeration must not take time quadratic in their
/// number: a chain of 200,000 variables, one box each, is counted well within a minute (with a
/// full scan for the next box at every step it takes longer than that).
#[test]
fn a_very_long_chain_is_counted_in_linear_time() {
    let n = 200_000;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut csp = BoolCsp::new(n);
        for i in 0..n - 1 {
            csp.exactly(&[i, i + 1], 1).unwrap();
        }
        let _ = tx.send(analyze(&csp, &Budget::default()));
    });
    let a = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("a 200,000-variable chain took over a minute")
        .unwrap();
    assert_eq!(a.solutions, BigUint::from(2u64));
    assert_eq!(a.components, 1);
    assert!(a.probabilities.iter().all(|&p| p == 0.5));
}

/// Propagation beside one long constraint must not take time quadratic in its length:
/// - a chain of 900,001 variables, exactly one true in every three in a row, and exactly
///   300,000 trues among all of them (so the chain's phase with a true at variable 0, which
///   would have one more, is ruled out);
/// - a chain of 900,000 variables, exactly one true in every two in a row, half of them
///   true, and variable 0 true, which decides every variable;
/// - the same chain with its 300,000 variables at multiples of three holding exactly as many
///   trues as there are multiples of six (a constraint of which no link of the chain is a
///   subset, so it stays as long as the chain is undecided).
///
/// Each is propagated well within a minute. (Shifting the long constraint's list at every
/// removal, walking it for every short constraint it meets, or examining it again at every
/// step of the chain took longer than that.)
#[test]
fn a_constraint_over_a_long_chain_propagates_in_linear_time() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let n = 900_001;
        let mut triples = BoolCsp::new(n);
        for i in 0..n - 2 {
            triples.exactly(&[i, i + 1, i + 2], 1).unwrap();
        }
        triples
            .exactly(&(0..n).collect::<Vec<_>>(), 300_000)
            .unwrap();
        let n = 900_000;
        let mut pairs = BoolCsp::new(n);
        let mut thirds = BoolCsp::new(n);
        let multiples: Vec<usize> = (0..n).step_by(3).collect();
        thirds.exactly(&multiples, n.div_ceil(6) as u32).unwrap();
        for i in 0..n - 1 {
            pairs.exactly(&[i, i + 1], 1).unwrap();
            thirds.exactly(&[i, i + 1], 1).unwrap();
        }
        pairs.exactly(&(0..n).collect::<Vec<_>>(), 450_000).unwrap();
        pairs.fix(0, true).unwrap();
        thirds.fix(0, true).unwrap();
        let _ = tx.send([propagate(&triples), propagate(&pairs), propagate(&thirds)]);
    });
    let [triples, pairs, thirds] = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("propagating beside a long constraint took over a minute");
    assert!(
        triples
            .unwrap()
            .iter()
            .enumerate()
            .all(|(v, x)| match v % 3 {
                0 => *x == Some(false),
                _ => x.is_none(),
            })
    );
    for decided in [pairs.unwrap(), thirds.unwrap()] {
        assert!(
            decided
                .iter()
                .enumerate()
                .all(|(v, x)| *x == Some(v % 2 == 0))
        );
    }
}

/// Combining many independent components whose numbers of trues vary takes time about
/// quadratic in the width of their joint distribution, not cubic: 3000 components, each a pair of
/// constraints on three variables (the middle one true, or the outer two), and 100 free
/// variables under a total. The marginals must add up to the total, and every component's
/// middle variable (and every outer one) has the same probability.
#[test]
fn many_varying_components_are_combined_quickly() {
    let k = 3000;
    let total = (3 * k / 2) as u32 + 50;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut csp = BoolCsp::new(3 * k + 100);
        for i in 0..k {
            csp.exactly(&[3 * i, 3 * i + 1], 1).unwrap();
            csp.exactly(&[3 * i + 1, 3 * i + 2], 1).unwrap();
        }
        csp.set_total(total);
        let _ = tx.send(analyze(&csp, &Budget::default()));
    });
    let a = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("3000 components took over a minute")
        .unwrap();
    assert_eq!(a.components, k);
    let sum: f64 = a.probabilities.iter().sum();
    assert!((sum - f64::from(total)).abs() < 1e-6, "sum {sum}");
    let (outer, middle) = (a.probabilities[0], a.probabilities[1]);
    assert!(0.0 < middle && middle < 1.0);
    assert!((outer + middle - 1.0).abs() < 1e-12);
    for i in 0..k {
        assert_eq!(a.probabilities[3 * i], outer);
        assert_eq!(a.probabilities[3 * i + 1], middle);
        assert_eq!(a.probabilities[3 * i + 2], outer);
    }
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
    // The reduced row takes part in later deductions: {0,1} = 1 inside {0,1,2,3} = 2 leaves
    // {2,3} = 1, which inside {2,3,4} = 1 makes 4 safe (neither original pair says so).
    let mut csp = BoolCsp::new(5);
    csp.exactly(&[0, 1], 1).unwrap();
    csp.exactly(&[0, 1, 2, 3], 2).unwrap();
    csp.exactly(&[2, 3, 4], 1).unwrap();
    assert_eq!(
        propagate(&csp).unwrap(),
        vec![None, None, None, None, Some(false)]
    );
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

/// Adds the Minesweeper "1-2-1" pattern on cells `[a, b, c, d, e]`: {a,b,c} = 1,
/// {b,c,d} = 2, {c,d,e} = 1 (b and d mines, a, c and e safe).
fn one_two_one(csp: &mut BoolCsp, [a, b, c, d, e]: [usize; 5]) {
    csp.exactly(&[a, b, c], 1).unwrap();
    csp.exactly(&[b, c, d], 2).unwrap();
    csp.exactly(&[c, d, e], 1).unwrap();
}

/// The Minesweeper "1-2-1" pattern: hidden cells a b c d e with {a,b,c} = 1, {b,c,d} = 2 and
/// {c,d,e} = 1 force b and d to be mines and a, c, e to be safe.
#[test]
fn one_two_one_pattern() {
    let mut csp = BoolCsp::new(5);
    one_two_one(&mut csp, [0, 1, 2, 3, 4]);
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
    // Propagation alone (the rule for two overlapping rows) finds all of it.
    assert_eq!(propagate(&csp).unwrap(), a.forced);
}

/// The rule for two overlapping rows on variables listed out of order and far apart, the
/// 1-2-1 pattern again (a = 9, b = 2, c = 70, d = 5, e = 33 among 80 variables), then the
/// 1-1 pattern along an edge ({a,b} = 1 and {a,b,c} = 1 leave c safe) and two rows whose
/// overlap is forced full ({p,q,r} = 3 beside {q,r,s,t} = 2: s and t are safe).
#[test]
fn overlapping_rows_decide_their_parts() {
    let (a, b, c, d, e) = (9, 2, 70, 5, 33);
    let mut csp = BoolCsp::new(80);
    one_two_one(&mut csp, [a, b, c, d, e]);
    let p = propagate(&csp).unwrap();
    for (v, want) in [(a, false), (b, true), (c, false), (d, true), (e, false)] {
        assert_eq!(p[v], Some(want), "variable {v}");
    }
    assert_eq!(p.iter().filter(|x| x.is_some()).count(), 5);

    let mut csp = BoolCsp::new(80);
    csp.exactly(&[64, 3], 1).unwrap();
    csp.exactly(&[3, 77, 64], 1).unwrap();
    let p = propagate(&csp).unwrap();
    assert_eq!((p[3], p[64], p[77]), (None, None, Some(false)));

    let mut csp = BoolCsp::new(80);
    csp.exactly(&[40, 10, 11], 3).unwrap();
    csp.exactly(&[11, 79, 10, 0], 2).unwrap();
    let p = propagate(&csp).unwrap();
    assert_eq!(
        [p[40], p[10], p[11], p[79], p[0]],
        [Some(true), Some(true), Some(true), Some(false), Some(false)]
    );

    // {a,b,c} = 2 and {b,c,d} = 1 overlapping in two: a is a mine, and d is safe.
    let mut csp = BoolCsp::new(80);
    csp.exactly(&[50, 8, 66], 2).unwrap();
    csp.exactly(&[66, 8, 1], 1).unwrap();
    let p = propagate(&csp).unwrap();
    assert_eq!(
        (p[50], p[1], p[8], p[66]),
        (Some(true), Some(false), None, None)
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

/// Deductions through the global total reach constrained variables in every word of the
/// total's bitset: {0,1} = 1 and {65,66} = 1 use up a total of 2, so every other variable is
/// false, and then {1,2,64} = 1 makes 1 true and 0 false; the same with the total on the
/// other side (68: 2 and 64 true, {1,2,64} = 2 makes 1 false and 0 true). `analyze` agrees
/// (its forced values are exact: they hold in every solution).
#[test]
fn the_total_decides_constrained_variables_past_the_first_word() {
    // (count of {1,2,64}, total, the value of most variables, the value of 1)
    for (c, total, most, one) in [(1, 2, false, true), (2, 68, true, false)] {
        let mut csp = BoolCsp::new(70);
        csp.exactly(&[0, 1], 1).unwrap();
        csp.exactly(&[65, 66], 1).unwrap();
        csp.exactly(&[1, 2, 64], c).unwrap();
        csp.set_total(total);
        let mut expected = vec![Some(most); 70];
        expected[1] = Some(one);
        expected[65] = None;
        expected[66] = None;
        assert_eq!(propagate(&csp).unwrap(), expected, "total {total}");
        let a = analyze(&csp, &Budget::default()).unwrap();
        assert_eq!(a.forced, expected, "total {total}");
        assert_eq!(a.solutions, BigUint::from_u64(2));
    }
}

/// The statistics describe the decomposition: two independent components of three boxes
/// each, three free variables, one variable fixed by propagation.
#[test]
fn statistics_describe_the_decomposition() {
    let mut csp = BoolCsp::new(13);
    // Component 1: {0,1,2,3} = 2, {2,3,4} = 1: boxes {0,1}, {2,3}, {4}.
    csp.exactly(&[0, 1, 2, 3], 2).unwrap();
    csp.exactly(&[2, 3, 4], 1).unwrap();
    // Component 2: {5,6,7} = 1, {7,8} = 1: boxes {5,6}, {7}, {8}.
    csp.exactly(&[5, 6, 7], 1).unwrap();
    csp.exactly(&[7, 8], 1).unwrap();
    // 12 is fixed by propagation; 9, 10, 11 are free.
    csp.exactly(&[12], 1).unwrap();
    csp.set_total(6);
    let a = analyze(&csp, &Budget::default()).unwrap();
    assert_eq!(a.components, 2);
    assert_eq!(a.stats.boxes, 6);
    assert_eq!(a.stats.free_vars, 3);
    assert_eq!(a.stats.fixed_by_propagation, 1);
    assert_eq!(a.stats.largest_component, 5);
    assert!(a.stats.nodes > 0);
    let b = brute(&csp);
    assert_eq!(a.solutions, BigUint::from_u64(b.solutions));
}

/// A component may take exactly `max_nodes` search nodes; one more is over the budget.
#[test]
fn the_budget_counts_nodes_per_component() {
    let mut csp = BoolCsp::new(8);
    csp.exactly(&[0, 1, 2, 3, 4], 2).unwrap();
    csp.exactly(&[3, 4, 5, 6, 7], 2).unwrap();
    let nodes = analyze(&csp, &Budget::default()).unwrap().stats.nodes;
    assert!(nodes > 1);
    for (max_nodes, ok) in [(nodes, true), (nodes - 1, false)] {
        let budget = Budget { max_nodes };
        match analyze(&csp, &budget) {
            Ok(a) => assert!(ok, "{max_nodes} nodes: {a:?}"),
            Err(e) => {
                assert!(!ok, "{max_nodes} nodes: {e}");
                assert_eq!(
                    e,
                    CspError::BudgetExceeded {
                        max_nodes,
                        component_vars: 8
                    }
                );
            }
        }
        assert_eq!(count(&csp, &budget).is_ok(), ok);
    }
    // Two copies side by side: each component stays within the budget, though together
    // they take twice as many nodes.
    let mut twins = BoolCsp::new(16);
    for base in [0, 8] {
        let v = |i: usize| base + i;
        twins.exactly(&[v(0), v(1), v(2), v(3), v(4)], 2).unwrap();
        twins.exactly(&[v(3), v(4), v(5), v(6), v(7)], 2).unwrap();
    }
    let a = analyze(&twins, &Budget { max_nodes: nodes }).unwrap();
    assert_eq!(a.stats.nodes, 2 * nodes);
    assert!(
        analyze(
            &twins,
            &Budget {
                max_nodes: nodes - 1
            }
        )
        .is_err()
    );
}

/// A variable that two rows force both ways is a contradiction that propagation reports on
/// its own, before any counting.
#[test]
fn propagation_reports_a_contradiction() {
    let mut csp = BoolCsp::new(3);
    csp.exactly(&[0, 1], 2).unwrap();
    csp.exactly(&[0, 2], 0).unwrap();
    assert_eq!(propagate(&csp), Err(CspError::Inconsistent));
    // Through a chain: the 1-2-1 pattern on 0..5 makes 0 and 4 safe, so {0,4} = 1 cannot hold.
    let mut csp = BoolCsp::new(5);
    one_two_one(&mut csp, [0, 1, 2, 3, 4]);
    csp.exactly(&[0, 4], 1).unwrap();
    assert_eq!(propagate(&csp), Err(CspError::Inconsistent));
}

/// The total, once an ordinary row is taken out of it, overlaps another row; the rule for
/// two overlapping rows then decides the variables outside every row (vars 4 to 9) all
/// together, both ways.
#[test]
fn the_total_decides_the_unconstrained_variables_through_an_overlap() {
    // (count of {1,2,3}, total, the value of 1; 0 and the six outside the rows take the
    // other value, and one of 2, 3 is true): {1,2,3} = 2 with a total of 2 makes 1 a mine and
    // the rest safe; {1,2,3} = 1 with a total of 8 makes 1 safe and the rest mines.
    for (b_count, total, one) in [(2, 2, true), (1, 8, false)] {
        let mut csp = BoolCsp::new(10);
        csp.exactly(&[0, 1], 1).unwrap();
        csp.exactly(&[1, 2, 3], b_count).unwrap();
        csp.set_total(total);
        let mut expected = vec![Some(!one); 10];
        expected[1] = Some(one);
        expected[2] = None;
        expected[3] = None;
        assert_eq!(propagate(&csp).unwrap(), expected, "total {total}");
        let b = brute(&csp);
        assert_eq!(b.solutions, 2);
        for (v, want) in expected.iter().enumerate() {
            if let Some(x) = want {
                assert_eq!(b.trues[v], if *x { 2 } else { 0 }, "variable {v}");
            }
        }
    }
}

/// Propagating "between" constraints must not take time quadratic in a chain of deductions:
/// 200,000 variables, the first true, "at most one" and "at least one" of every two in a row
/// in turn (so each link decides the next variable), alone and with the total they imply,
/// are decided well within a minute. (Running the whole propagator again for each variable a
/// link decided took 2.3 s at 8000 variables, and would take about half an hour here.)
#[test]
fn a_chain_of_between_constraints_propagates_in_linear_time() {
    let n = 200_000;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut csp = BoolCsp::new(n);
        csp.fix(0, true).unwrap();
        for i in 0..n - 1 {
            if i % 2 == 0 {
                csp.at_most(&[i, i + 1], 1).unwrap();
            } else {
                csp.at_least(&[i, i + 1], 1).unwrap();
            }
        }
        let alone = propagate(&csp);
        csp.set_total(n as u32 / 2);
        let _ = tx.send((alone, propagate(&csp)));
    });
    let (alone, with_total) = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("propagating a chain of between constraints took over a minute");
    for decided in [alone.unwrap(), with_total.unwrap()] {
        assert!(
            decided
                .iter()
                .enumerate()
                .all(|(v, x)| *x == Some(v % 2 == 0))
        );
    }
}
