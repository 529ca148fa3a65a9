//! Statistical tests of the uniform sampler (fixed seeds, so they are deterministic).
#![allow(clippy::unwrap_used, clippy::needless_range_loop)]

use std::collections::HashMap;

use csp_core::{BoolCsp, Budget, Sampler, analyze, sample};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

const N: usize = 20_000;

/// Exact solutions by brute force.
fn solutions(csp: &BoolCsp) -> Vec<Vec<bool>> {
    let n = csp.num_vars();
    (0u64..1 << n)
        .map(|mask| (0..n).map(|v| mask >> v & 1 == 1).collect::<Vec<bool>>())
        .filter(|a| csp.is_satisfied_by(a))
        .collect()
}

/// Draws `N` samples; checks that each is a solution and that each empirical marginal is
/// within 5 standard errors `sqrt(p (1 - p) / N)` of the exact marginal (brute force).
/// For one variable, a 5-sigma deviation has probability about 6e-7, so a correct sampler
/// fails this essentially never, while a biased one (e.g. ignoring box weights `C(s, j)`,
/// which shifts marginals by several percent, i.e. >> 5 * 0.0035) fails it.
/// Variables with exact marginal 0 or 1 must never deviate.
fn check_marginals(csp: &BoolCsp, seed: u64) {
    let sols = solutions(csp);
    assert!(!sols.is_empty());
    let n = csp.num_vars();
    let exact: Vec<f64> = (0..n)
        .map(|v| sols.iter().filter(|s| s[v]).count() as f64 / sols.len() as f64)
        .collect();
    // analyze agrees with the brute force (it is the sampler's reference elsewhere).
    let a = analyze(csp, &Budget::default()).unwrap();
    for v in 0..n {
        assert!((a.probabilities[v] - exact[v]).abs() < 1e-12);
    }
    let sampler = Sampler::new(csp, &Budget::default()).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut hits = vec![0usize; n];
    for _ in 0..N {
        let s = sampler.sample(&mut rng).unwrap();
        assert!(csp.is_satisfied_by(&s), "not a solution: {s:?}");
        for v in 0..n {
            hits[v] += usize::from(s[v]);
        }
    }
    for v in 0..n {
        let p = exact[v];
        let emp = hits[v] as f64 / N as f64;
        if p == 0.0 || p == 1.0 {
            assert_eq!(emp, p, "var {v} is forced");
        } else {
            let se = (p * (1.0 - p) / N as f64).sqrt();
            assert!(
                (emp - p).abs() <= 5.0 * se,
                "var {v}: empirical {emp} vs exact {p} (5 se = {})",
                5.0 * se
            );
        }
    }
}

/// Pearson chi-square of the frequencies of each distinct solution against the uniform
/// distribution. With `d = K - 1` degrees of freedom the statistic has mean `d` and standard
/// deviation `sqrt(2 d)`; we require it below `d + 6 sqrt(2 d) + 10`, far in the upper tail
/// (a p-value well below 1e-4 for the sizes used), which a uniform sampler essentially never
/// exceeds but a non-uniform one (e.g. choosing box counts without their weights) does by
/// hundreds.
fn check_uniform(csp: &BoolCsp, seed: u64) {
    let sols = solutions(csp);
    let k = sols.len();
    assert!(k >= 2);
    let sampler = Sampler::new(csp, &Budget::default()).unwrap();
    assert_eq!(sampler.solutions().to_u64(), Some(k as u64));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut freq: HashMap<Vec<bool>, usize> = HashMap::new();
    for _ in 0..N {
        *freq.entry(sampler.sample(&mut rng).unwrap()).or_default() += 1;
    }
    assert_eq!(freq.len(), k, "every solution should appear");
    let e = N as f64 / k as f64;
    let chi2: f64 = sols
        .iter()
        .map(|s| {
            let o = freq.get(s).copied().unwrap_or(0) as f64;
            (o - e) * (o - e) / e
        })
        .sum();
    let d = (k - 1) as f64;
    let bound = d + 6.0 * (2.0 * d).sqrt() + 10.0;
    assert!(chi2 < bound, "chi2 {chi2} >= {bound} with {k} solutions");
}

/// Five cells, {0,1,2} = 1, total 2: 6 solutions, marginals 1/3 and 1/2.
fn tiny() -> BoolCsp {
    let mut csp = BoolCsp::new(5);
    csp.exactly(&[0, 1, 2], 1).unwrap();
    csp.set_total(2);
    csp
}

/// Boxes of different sizes (so weights C(s, j) matter), two components and free variables.
fn boxes_and_components() -> BoolCsp {
    let mut csp = BoolCsp::new(12);
    // Component 1: {0,1,2,3} = 2, {2,3,4} = 1  => boxes {0,1}, {2,3}, {4}.
    csp.exactly(&[0, 1, 2, 3], 2).unwrap();
    csp.exactly(&[2, 3, 4], 1).unwrap();
    // Component 2: {5,6,7} = 1, {7,8} = 1.
    csp.exactly(&[5, 6, 7], 1).unwrap();
    csp.exactly(&[7, 8], 1).unwrap();
    // 9, 10, 11 are free.
    csp.set_total(5);
    csp
}

/// A Minesweeper-like corner: a 4x4 board with the top-left 2x2 revealed.
fn minesweeper_corner() -> BoolCsp {
    // Hidden cells: index by (r, c) over the 4x4 board minus the revealed (0..2, 0..2).
    let cell = |r: usize, c: usize| -> usize {
        let idx = r * 4 + c;
        // Revealed cells 0, 1, 4, 5 are removed from the numbering.
        idx - [0, 1, 4, 5].iter().filter(|&&x| x < idx).count()
    };
    let mut csp = BoolCsp::new(12);
    // Numbers on the revealed cells (only hidden neighbours listed).
    csp.exactly(&[cell(0, 2), cell(1, 2)], 1).unwrap(); // (0,1)
    csp.exactly(&[cell(2, 0), cell(2, 1)], 1).unwrap(); // (1,0)
    csp.exactly(
        &[cell(0, 2), cell(1, 2), cell(2, 0), cell(2, 1), cell(2, 2)],
        2,
    )
    .unwrap(); // (1,1)
    csp.set_total(4);
    csp
}

#[test]
fn marginals_tiny() {
    check_marginals(&tiny(), 1);
}

#[test]
fn marginals_boxes_and_components() {
    check_marginals(&boxes_and_components(), 2);
}

#[test]
fn marginals_minesweeper_corner() {
    check_marginals(&minesweeper_corner(), 3);
}

#[test]
fn marginals_without_total() {
    let mut csp = boxes_and_components();
    csp.clear_total();
    check_marginals(&csp, 4);
}

#[test]
fn uniform_over_solutions_tiny() {
    check_uniform(&tiny(), 5);
}

#[test]
fn uniform_over_solutions_with_boxes() {
    // {0,1,2,3} = 1 with {3,4,5} = 2 and total 3: boxes {0,1,2}, {3}, {4,5}, free {6};
    // solutions have quite different box weights.
    let mut csp = BoolCsp::new(7);
    csp.exactly(&[0, 1, 2, 3], 1).unwrap();
    csp.exactly(&[3, 4, 5], 2).unwrap();
    csp.set_total(3);
    check_uniform(&csp, 6);
}

/// "At most", "at least" and "between" constraints beside an "exactly" one, with and without
/// a total: solutions with different numbers of trues in a box (so the weights matter).
fn with_bounds(total: Option<u32>) -> BoolCsp {
    let mut csp = BoolCsp::new(9);
    csp.at_most(&[0, 1, 2, 3], 2).unwrap();
    csp.at_least(&[2, 3, 4, 5], 2).unwrap();
    csp.between(&[4, 5, 6, 7], 1, 2).unwrap();
    csp.exactly(&[7, 8], 1).unwrap();
    if let Some(t) = total {
        csp.set_total(t);
    }
    csp
}

#[test]
fn uniform_and_marginals_with_between_constraints() {
    for (seed, total) in [(11, None), (12, Some(4)), (13, Some(3))] {
        check_uniform(&with_bounds(total), seed);
        check_marginals(&with_bounds(total), seed + 10);
    }
}

#[test]
fn deterministic_for_a_seed() {
    let csp = boxes_and_components();
    let draw = |seed| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..20)
            .map(|_| sample(&csp, &Budget::default(), &mut rng).unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(draw(9), draw(9));
    assert_ne!(draw(9), draw(10));
}
