//! Placement problems (ships on small grids) against the plain enumeration, the exact sampler
//! and the Markov chain against exact marginals, and the 10x10 fixture.
#![allow(clippy::unwrap_used, clippy::needless_range_loop)]

use csp_core::{
    Budget, CspError, Family, FrontierCount, Grid, PlacementChain, PlacementCsp, PlacementSampler,
    Value, analyze_placements, analyze_placements_naive, analyze_placements_unlabelled,
    count_placements, estimate_placements, propagate_placements, sample_placements,
};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const BIG: Budget = Budget {
    max_nodes: u64::MAX,
};

/// The halo of cell set `cells` on a `w` x `h` grid: the cells and their 8 neighbours.
fn halo(cells: u128, w: usize, h: usize) -> u128 {
    let mut out = 0u128;
    for c in 0..w * h {
        if cells >> c & 1 == 1 {
            let (x, y) = ((c % w) as i64, (c / w) as i64);
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (nx, ny) = (x + dx, y + dy);
                    if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
                        out |= 1u128 << (ny as usize * w + nx as usize);
                    }
                }
            }
        }
    }
    out
}

/// The two families (horizontal, vertical) of a ship of length `len` on a `w` x `h` grid.
fn ship(len: usize, w: usize, h: usize, no_touch: bool) -> Vec<Family> {
    let mut out = Vec::new();
    for vertical in [false, true] {
        let shape: u128 = (0..len).fold(0, |a, i| a | 1u128 << (if vertical { i * w } else { i }));
        let mut starts = 0u128;
        for y in 0..h {
            for x in 0..w {
                let fits = if vertical { y + len <= h } else { x + len <= w };
                if fits {
                    starts |= 1u128 << (y * w + x);
                }
            }
        }
        let mut f = Family::new(shape, starts).unwrap();
        if no_touch {
            let table = (0..128u32)
                .map(|s| {
                    if starts >> s & 1 == 1 {
                        halo(shape << s, w, h)
                    } else {
                        0
                    }
                })
                .collect();
            f = f.with_halo(table).unwrap();
        }
        out.push(f);
        if len == 1 {
            break;
        }
    }
    out
}

fn fleet(lens: &[usize], w: usize, h: usize, no_touch: bool) -> PlacementCsp {
    let mut p = PlacementCsp::new(w * h).unwrap();
    for &l in lens {
        p.add_var(ship(l, w, h, no_touch)).unwrap();
    }
    p
}

fn assert_same(p: &PlacementCsp) {
    let naive = analyze_placements_naive(p, &BIG);
    let fast = analyze_placements(p, &BIG);
    let solutions = match (naive, fast) {
        (Ok(n), Ok(f)) => {
            assert_eq!(n.solutions, f.solutions);
            assert_eq!(n.element_counts, f.element_counts);
            assert_eq!(n.value_counts, f.value_counts);
            n.solutions
        }
        (Ok(n), Err(CspError::Inconsistent)) => {
            assert_eq!(n.solutions, 0);
            0
        }
        (n, f) => panic!("naive {n:?} fast {f:?}"),
    };
    // The count over element frontiers agrees, labelled and counting each set of a group's
    // values once.
    let frontier = FrontierCount::new(p, &BIG).unwrap();
    assert_eq!(frontier.labelled().unwrap(), solutions);
    let by_frontier = frontier.analyze().unwrap();
    let naive = analyze_placements_naive(p, &BIG).unwrap();
    assert_eq!(by_frontier.solutions, solutions);
    assert_eq!(by_frontier.element_counts, naive.element_counts);
    assert_eq!(by_frontier.value_counts, naive.value_counts);
    let unlabelled = match analyze_placements_unlabelled(p, &BIG) {
        Ok(a) => a.solutions,
        Err(CspError::Inconsistent) => 0,
        Err(e) => panic!("{e:?}"),
    };
    assert_eq!(frontier.unlabelled(), unlabelled);
    // The chain starts from a solution exactly when there is one (on a crowded board by
    // its search over elements, elsewhere by its search over variables).
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(solutions as u64);
    match PlacementChain::new(p, &BIG, &mut rng) {
        Ok(chain) => {
            assert!(solutions > 0, "a start without a solution");
            assert!(p.is_solution(chain.state()), "{:?}", chain.state());
        }
        Err(CspError::Inconsistent) => assert_eq!(solutions, 0),
        Err(e) => panic!("{e:?}"),
    }
}

/// Every labelled solution of a small problem, by trying every value of every variable.
fn labelled_solutions(p: &PlacementCsp) -> Vec<Vec<Value>> {
    let mut all: Vec<Vec<Value>> = vec![Vec::new()];
    for v in 0..p.num_vars() {
        let mut values = Vec::new();
        for (family, f) in p.domain(v).unwrap().iter().enumerate() {
            for start in 0..128u32 {
                if f.starts() >> start & 1 == 1 {
                    values.push(Value { family, start });
                }
            }
        }
        all = all
            .into_iter()
            .flat_map(|a| {
                values.iter().map(move |&x| {
                    let mut a = a.clone();
                    a.push(x);
                    a
                })
            })
            .collect();
    }
    all.retain(|a| p.is_solution(a));
    all
}

/// The frontier count's draws are uniform over the labelled solutions (each order of
/// interchangeable variables as likely as the others), with and without halos, required
/// and forbidden elements: Pearson's statistic against the uniform distribution, on fixed
/// seeds, within five standard deviations of its mean (`k - 1` for `k` solutions).
#[test]
fn the_frontier_count_draws_uniformly() {
    let mut required = fleet(&[2, 1, 1], 3, 3, false);
    required.require(1 << 4).unwrap();
    let mut forbidden = fleet(&[2, 2, 2], 4, 3, false);
    forbidden.forbid(1 << 5 | 1 << 6).unwrap();
    let mut both = fleet(&[2, 2, 1], 4, 4, true);
    both.require(1 << 0).unwrap();
    both.forbid(1 << 10).unwrap();
    for (case, p) in [required, forbidden, both].iter().enumerate() {
        let all = labelled_solutions(p);
        assert!(all.len() > 10, "case {case}: {}", all.len());
        let count = FrontierCount::new(p, &BIG).unwrap();
        assert_eq!(count.labelled().unwrap(), all.len() as u128);
        let per_solution = 40;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(case as u64);
        let mut seen: std::collections::HashMap<Vec<Value>, usize> = Default::default();
        for _ in 0..per_solution * all.len() {
            let s = count.sample(&mut rng).unwrap();
            assert!(p.is_solution(&s), "case {case}: {s:?}");
            *seen.entry(s).or_default() += 1;
        }
        assert_eq!(seen.len(), all.len(), "case {case}");
        let expected = per_solution as f64;
        let chi2: f64 = all
            .iter()
            .map(|a| (seen[a] as f64 - expected).powi(2) / expected)
            .sum();
        let df = (all.len() - 1) as f64;
        assert!(
            chi2 < df + 5.0 * (2.0 * df).sqrt(),
            "case {case}: {chi2} for {df}"
        );
    }
}

/// The frontier count stops at its budget of states, reports a labelled count past `u128`
/// while still counting and drawing the tilings, and counts zero solutions (refusing to
/// draw one) for a fleet that cannot fit, one for a problem without variables.
#[test]
fn the_frontier_count_reports_budgets_overflows_and_empty_problems() {
    let standard = fleet(&[5, 4, 3, 3, 2], 10, 10, false);
    match FrontierCount::new(&standard, &Budget { max_nodes: 1000 }) {
        Err(CspError::BudgetExceeded {
            max_nodes: 1000,
            component_vars: 5,
        }) => {}
        other => panic!("{other:?}"),
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    // Thirty-two 4-ships tile 8x16 (elements numbered along rows of 8).
    let tiles = fleet(&[4; 32], 8, 16, false);
    let count = FrontierCount::new(&tiles, &BIG).unwrap();
    assert_eq!(count.labelled(), Err(CspError::CountOverflow));
    let unlabelled = analyze_placements_unlabelled(&tiles, &BIG).unwrap();
    assert_eq!(count.unlabelled(), unlabelled.solutions);
    assert!(tiles.is_solution(&count.sample(&mut rng).unwrap()));
    let none = FrontierCount::new(&fleet(&[3, 3, 3, 2], 3, 3, false), &BIG).unwrap();
    assert_eq!((none.unlabelled(), none.labelled()), (0, Ok(0)));
    assert_eq!(none.sample(&mut rng), Err(CspError::Inconsistent));
    let zeros = none.analyze().unwrap();
    assert_eq!(zeros.solutions, 0);
    assert!(zeros.element_counts.iter().all(|&n| n == 0));
    let empty = FrontierCount::new(&PlacementCsp::new(4).unwrap(), &BIG).unwrap();
    assert_eq!(empty.labelled(), Ok(1));
    assert_eq!(empty.sample(&mut rng), Ok(Vec::new()));
    let mut unmet = PlacementCsp::new(4).unwrap();
    unmet.require(1).unwrap();
    let unmet = FrontierCount::new(&unmet, &BIG).unwrap();
    assert_eq!(unmet.labelled(), Ok(0));
}

/// A variable whose last value is behind the walk ends the state at once: 64 single-value
/// variables across 128 elements, and 40 variables of two values each, count within a few
/// hundred states, where keeping each subset of stranded variables as a state took millions
/// (4 times more for each variable of two values).
#[test]
fn the_frontier_count_drops_variables_that_can_no_longer_be_placed() {
    let mut fixed = PlacementCsp::new(128).unwrap();
    for v in 0..64 {
        fixed
            .add_var(vec![Family::new(1, 1 << (2 * v)).unwrap()])
            .unwrap();
    }
    let budget = Budget { max_nodes: 1000 };
    let count = FrontierCount::new(&fixed, &budget).unwrap();
    assert_eq!(count.labelled(), Ok(1));
    let mut pairs = PlacementCsp::new(120).unwrap();
    for v in 0..40 {
        pairs
            .add_var(vec![Family::new(1, 0b11 << (3 * v)).unwrap()])
            .unwrap();
    }
    let count = FrontierCount::new(&pairs, &budget).unwrap();
    assert_eq!(count.labelled(), Ok(1 << 40));
    assert!(count.states() < 1000, "{}", count.states());
}

/// Variables that propagation leaves with the same values are interchangeable, to the count
/// without labels as to the search's: one of two cells, the other forbidden, leaves both
/// variables the same two cells, one set of values.
#[test]
fn the_frontier_count_groups_the_variables_of_the_reduced_problem() {
    let mut p = PlacementCsp::new(3).unwrap();
    p.add_var(vec![Family::new(1, 0b111).unwrap()]).unwrap();
    p.add_var(vec![Family::new(1, 0b011).unwrap()]).unwrap();
    p.forbid(0b100).unwrap();
    let count = FrontierCount::new(&p, &BIG).unwrap();
    assert_eq!((count.unlabelled(), count.labelled()), (1, Ok(2)));
    assert_same(&p);
}

#[test]
fn empty_boards_match_the_enumeration() {
    for no_touch in [false, true] {
        for (lens, w, h) in [
            (&[3, 2, 2][..], 6, 6),
            (&[2, 2][..], 3, 3),
            (&[4, 3][..], 5, 4),
            (&[3, 3, 2, 1][..], 5, 5),
        ] {
            assert_same(&fleet(lens, w, h, no_touch));
        }
    }
}

/// Boards wholly or nearly full, where the search branches on cells (covered, or left
/// empty) instead of on ships: the counts equal the labelled enumeration.
#[test]
fn crowded_boards_match_the_enumeration() {
    for no_touch in [false, true] {
        for (lens, w, h) in [
            (&[2, 2, 2, 2][..], 4, 2),
            (&[3, 3, 3][..], 3, 3),
            (&[1, 1, 1, 1, 1][..], 3, 2),
            (&[3, 2, 2, 1][..], 3, 3),
            (&[3, 3, 2, 2][..], 4, 3),
            (&[2, 2, 2, 1, 1][..], 3, 3),
        ] {
            assert_same(&fleet(lens, w, h, no_touch));
        }
    }
}

/// Ten 4-ships on a 10x4 board fit in 14 ways, each 10! times over as labelled fleets;
/// branching on ships, the count ran past twenty million nodes (every order of the
/// interchangeable ships meets the same dead ends), branching on cells it takes a few.
#[test]
fn a_board_packed_full_counts_quickly() {
    let p = fleet(&[4; 10], 10, 4, false);
    let budget = Budget { max_nodes: 100_000 };
    let a = analyze_placements(&p, &budget).unwrap();
    assert_eq!(a.solutions, 14 * 3_628_800);
    assert!(a.nodes < 10_000, "{}", a.nodes);
    // Every cell is covered in every fleet.
    assert!(a.element_counts.iter().all(|&c| c == a.solutions));
}

/// Twelve single cells on 7x5 under no-touch fit in one way (every other cell of every
/// other row): the halos, not the cells, fill that board, and the search must see it as
/// crowded to count it within a small budget.
#[test]
fn a_board_packed_by_halos_counts_quickly() {
    let p = fleet(&[1; 12], 7, 5, true);
    let budget = Budget { max_nodes: 100_000 };
    let a = analyze_placements(&p, &budget).unwrap();
    assert_eq!(a.solutions, 479_001_600); // 12!
    // The cells at even columns of even rows, each in every fleet.
    for e in 0..35 {
        let on = (e % 7) % 2 == 0 && (e / 7) % 2 == 0;
        assert_eq!(a.element_counts[e], if on { a.solutions } else { 0 }, "{e}");
    }
}

/// The exact sampler on the packed 10x4 board: every draw fills it, and the 14 layouts
/// (the ships' cells, whichever ship holds which) come up equally often (chi-square with 13
/// degrees of freedom below 34.5, its 0.1% point, on a fixed seed).
#[test]
fn a_board_packed_full_samples_every_layout_alike() {
    let p = fleet(&[4; 10], 10, 4, false);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut seen: std::collections::HashMap<Vec<u128>, usize> = Default::default();
    let n = 1400;
    for _ in 0..n {
        let s = sample_placements(&p, &Budget::default(), &mut rng).unwrap();
        assert!(p.is_solution(&s));
        let mut layout: Vec<u128> = (0..10).map(|v| p.cells(v, s[v]).unwrap()).collect();
        layout.sort_unstable();
        *seen.entry(layout).or_default() += 1;
    }
    assert_eq!(seen.len(), 14);
    let expected = n as f64 / 14.0;
    let chi2: f64 = seen
        .values()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    assert!(chi2 < 34.5, "{chi2} {seen:?}");
}

/// The reusable sampler makes the draws `sample_placements` makes from the same generator
/// state, on fleets with and without no-touch, with many ships of one length and with a
/// required cell; it refuses a
/// problem with no solution, as `sample_placements` does, and draws the empty solution of a
/// problem without variables.
#[test]
fn the_reusable_sampler_draws_what_sample_placements_draws() {
    let mut required = fleet(&[3, 2, 2], 5, 4, false);
    required.require(1 << 7).unwrap();
    let problems = [
        fleet(&[3, 2, 2], 6, 6, false),
        fleet(&[3, 2, 2], 6, 6, true),
        fleet(&[4; 10], 10, 4, false),
        fleet(&[1; 6], 4, 4, false),
        required,
    ];
    for (i, p) in problems.iter().enumerate() {
        let mut sampler = PlacementSampler::new(p, &Budget::default()).unwrap();
        let mut a = Xoshiro256PlusPlus::seed_from_u64(i as u64);
        let mut b = a.clone();
        for _ in 0..200 {
            let s = sampler.sample(&mut a).unwrap();
            assert!(p.is_solution(&s), "{i}");
            assert_eq!(
                s,
                sample_placements(p, &Budget::default(), &mut b).unwrap(),
                "{i}"
            );
        }
    }
    let none = fleet(&[2, 2], 2, 2, true);
    assert!(matches!(
        PlacementSampler::new(&none, &Budget::default()),
        Err(CspError::Inconsistent)
    ));
    let empty = PlacementCsp::new(4).unwrap();
    let mut sampler = PlacementSampler::new(&empty, &Budget::default()).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    assert_eq!(sampler.sample(&mut rng).unwrap(), Vec::new());
    let mut unmet = PlacementCsp::new(4).unwrap();
    unmet.require(1).unwrap();
    assert!(matches!(
        PlacementSampler::new(&unmet, &Budget::default()),
        Err(CspError::Inconsistent)
    ));
}

#[test]
fn small_counts_known_by_hand() {
    // Two dominoes on a 2x2 grid: both horizontal or both vertical, 2 labelled ways each.
    let p = fleet(&[2, 2], 2, 2, false);
    assert_eq!(analyze_placements(&p, &BIG).unwrap().solutions, 4);
    // No-touch: impossible.
    let p = fleet(&[2, 2], 2, 2, true);
    assert!(matches!(
        analyze_placements(&p, &BIG),
        Err(CspError::Inconsistent) | Ok(csp_core::PlacementAnalysis { solutions: 0, .. })
    ));
    // A 3 on a 3x1 strip... as a 3x3 grid: 6 placements.
    let p = fleet(&[3], 3, 3, false);
    let a = analyze_placements(&p, &BIG).unwrap();
    assert_eq!(a.solutions, 6);
    assert_eq!(a.element_counts[4], 2); // the centre: middle row and middle column
    assert_eq!(a.element_counts[0], 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// Random constraints (required, forbidden, per-variable covers, a fixed variable) on a
    /// 6x6 board with ships 3, 2, 2: exact counts, per-element and per-value counts equal the
    /// plain enumeration.
    #[test]
    fn random_constraints_match_the_enumeration(
        no_touch in any::<bool>(),
        req in proptest::collection::vec(0usize..36, 0..4),
        forb in proptest::collection::vec(0usize..36, 0..10),
        var_cover in proptest::option::of((0usize..3, 0usize..36)),
        subset in proptest::option::of((0usize..3, any::<u64>())),
    ) {
        let mut p = fleet(&[3, 2, 2], 6, 6, no_touch);
        for &e in &req {
            p.require(1u128 << e).unwrap();
        }
        for &e in &forb {
            if !req.contains(&e) {
                p.forbid(1u128 << e).unwrap();
            }
        }
        if let Some((v, e)) = var_cover {
            p.require_var(v, 1u128 << e).unwrap();
        }
        if let Some((v, bitsel)) = subset {
            // Restrict to values inside a random half of the board.
            let area = u128::from(bitsel) & ((1u128 << 36) - 1);
            p.retain(v, |c| c & !area == 0).unwrap();
        }
        assert_same(&p);
    }

    /// Small boards filled by random fleets, up to full, with forbidden cells: the counts
    /// equal the labelled enumeration whichever way the search branches.
    #[test]
    fn crowded_random_fleets_match_the_enumeration(
        w in 2usize..=4,
        h in 2usize..=4,
        no_touch in any::<bool>(),
        lens in proptest::collection::vec(1usize..=3, 2..=4),
        forb in proptest::collection::vec(0usize..16, 0..3),
        req in proptest::option::of(0usize..16),
    ) {
        let lens: Vec<usize> = lens.into_iter().filter(|&l| l <= w.max(h)).collect();
        let mut p = fleet(&lens, w, h, no_touch);
        for &e in &forb {
            if e < w * h {
                p.forbid(1u128 << e).unwrap();
            }
        }
        // A required cell too, once it is covered the search goes on as on a bare board.
        if let Some(e) = req.filter(|&e| e < w * h && !forb.contains(&e)) {
            p.require(1u128 << e).unwrap();
        }
        assert_same(&p);
    }

    /// Interchangeable variables (three dominoes and a 3, on a 5x5 board) under random
    /// required and forbidden cells: the search branches on one domino for all three when a
    /// cell must be covered, and the counts must still equal the labelled enumeration.
    #[test]
    fn interchangeable_variables_match_the_enumeration(
        no_touch in any::<bool>(),
        req in proptest::collection::vec(0usize..25, 0..5),
        forb in proptest::collection::vec(0usize..25, 0..6),
        fixed in proptest::option::of(0usize..4),
    ) {
        let mut p = fleet(&[2, 3, 2, 2], 5, 5, no_touch);
        for &e in &req {
            p.require(1u128 << e).unwrap();
        }
        for &e in &forb {
            if !req.contains(&e) {
                p.forbid(1u128 << e).unwrap();
            }
        }
        if let Some(v) = fixed {
            // One variable restricted to its values in the top half: no longer in the group.
            p.retain(v, |c| c < 1 << 15).unwrap();
        }
        assert_same(&p);
    }
}

#[test]
fn errors_are_reported() {
    assert!(PlacementCsp::new(129).is_err());
    assert!(Family::new(0, 1).is_err());
    assert!(Family::new(1u128 << 100, 1u128 << 30).is_err());
    let mut p = PlacementCsp::new(10).unwrap();
    assert!(
        p.add_var(vec![Family::new(0b11, 1u128 << 9).unwrap()])
            .is_err()
    );
    assert!(p.require(1u128 << 10).is_err());
    assert!(p.require_var(0, 1).is_err());
    assert!(
        Family::new(0b11, 1)
            .unwrap()
            .with_halo(vec![0; 128])
            .is_err()
    );
    // Starts past the 128 elements have no cells and no halo (no shift overflow, no index
    // out of range).
    let f = Family::new(0b11, 1).unwrap();
    assert_eq!(
        (f.cells(127), f.cells(128), f.block(200)),
        (1u128 << 127, 0, 0)
    );
    let mut halo = vec![0u128; 128];
    halo[0] = 0b111;
    let f = f.with_halo(halo).unwrap();
    assert_eq!((f.block(0), f.block(200)), (0b111, 0));
}

/// Single cells on a 5x1 board: two without a halo around one with a (hand-made) halo. The
/// halo relation is asymmetric, so a count would depend on the order of the variables: the
/// counting, the reference enumeration and the chain refuse the problem.
#[test]
fn an_asymmetric_halo_relation_is_an_error() {
    let grid = Grid::new(5, 1).unwrap();
    let mut p = PlacementCsp::new(5).unwrap();
    p.add_var(vec![grid.translates(&[(0, 0)]).unwrap()])
        .unwrap();
    p.add_var(ship(1, 5, 1, true)).unwrap();
    p.add_var(vec![grid.translates(&[(0, 0)]).unwrap()])
        .unwrap();
    assert!(p.check_halos().is_err());
    match analyze_placements(&p, &Budget::default()) {
        Err(CspError::InvalidPlacement(m)) => assert!(m.contains("asymmetric halos"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        analyze_placements_naive(&p, &Budget::default()),
        Err(CspError::InvalidPlacement(_))
    ));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    assert!(matches!(
        PlacementChain::new(&p, &Budget::default(), &mut rng),
        Err(CspError::InvalidPlacement(_))
    ));
}

#[test]
fn no_variables_and_no_solution_is_inconsistent_everywhere() {
    // Nothing can cover the required element 1.
    let mut p = PlacementCsp::new(4).unwrap();
    p.require(1 << 1).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    assert_eq!(
        analyze_placements(&p, &BIG).unwrap_err(),
        CspError::Inconsistent
    );
    assert_eq!(
        sample_placements(&p, &BIG, &mut rng).unwrap_err(),
        CspError::Inconsistent
    );
    assert_eq!(
        PlacementChain::new(&p, &BIG, &mut rng).unwrap_err(),
        CspError::Inconsistent
    );
    // Without the requirement, the empty assignment is the one solution.
    let p = PlacementCsp::new(4).unwrap();
    assert_eq!(analyze_placements(&p, &BIG).unwrap().solutions, 1);
    assert_eq!(sample_placements(&p, &BIG, &mut rng).unwrap(), Vec::new());
}

#[test]
fn is_solution_checks_everything() {
    let mut p = fleet(&[2, 2], 3, 3, true);
    p.require(1).unwrap();
    let a = Value {
        family: 0,
        start: 0,
    }; // cells 0, 1
    let far = Value {
        family: 0,
        start: 7,
    }; // cells 7, 8
    let near = Value {
        family: 0,
        start: 3,
    }; // cells 3, 4: touches a
    assert!(p.is_solution(&[a, far]));
    assert!(!p.is_solution(&[a, near]));
    assert!(!p.is_solution(&[far, far]));
    assert!(!p.is_solution(&[a]));
}

/// Pieces from a grid's no-touch translates beside pieces without a halo (in either order),
/// or beside the no-touch translates of a grid of another size, are refused as they are
/// added: such a problem's counts would depend on the order of its variables (one cell with
/// a halo and one without on a 4x1 board counted 12 placements one way round and 6 the other).
#[test]
fn mixed_grid_halos_are_refused() {
    let (four, five) = (Grid::new(4, 1).unwrap(), Grid::new(5, 1).unwrap());
    let cell = [(0, 0)];
    let refused = |first: Family, second: Family| {
        let mut p = PlacementCsp::new(5).unwrap();
        p.add_var(vec![first]).unwrap();
        match p.add_var(vec![second]) {
            Err(CspError::InvalidPlacement(m)) => assert!(m.contains("symmetric"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(p.num_vars(), 1);
    };
    let with = four.translates_no_touch(&cell).unwrap();
    let without = four.translates(&cell).unwrap();
    refused(with.clone(), without.clone());
    refused(without.clone(), with.clone());
    refused(with.clone(), five.translates_no_touch(&cell).unwrap());
    // In one variable's domain too.
    let mut p = PlacementCsp::new(4).unwrap();
    assert!(
        p.add_var(vec![
            with.clone(),
            four.translates(&[(0, 0), (1, 0)]).unwrap()
        ])
        .is_err()
    );
    // One method on one grid is fine, and so is a hand-made table beside anything (that is
    // check_halos's to judge).
    let mut p = PlacementCsp::new(4).unwrap();
    p.add_var(vec![with.clone()]).unwrap();
    p.add_var(vec![four.translates_no_touch(&[(0, 0), (1, 0)]).unwrap()])
        .unwrap();
    p.add_var(ship(1, 4, 1, true)).unwrap();
    let mut p = PlacementCsp::new(4).unwrap();
    p.add_var(vec![without.clone()]).unwrap();
    p.add_var(vec![without]).unwrap();
    // A family that shares a no-touch table takes its source along.
    let shared = four.translates(&cell).unwrap().share_halo(&with);
    let mut p = PlacementCsp::new(4).unwrap();
    p.add_var(vec![with]).unwrap();
    p.add_var(vec![shared]).unwrap();
}

#[test]
fn a_shared_halo_table_must_cover_every_start() {
    // Dominoes on a row of `width` cells, with the halo table of a 3-wide row's.
    let d = [(0, 0), (1, 0)];
    let narrow = Grid::new(3, 1).unwrap().translates_no_touch(&d).unwrap();
    let add = |width: usize| {
        let f = Grid::new(width, 1).unwrap().translates(&d).unwrap();
        PlacementCsp::new(width)
            .unwrap()
            .add_var(vec![f.share_halo(&narrow)])
    };
    // On a 4-wide row, start 2 has no entry in the table.
    assert!(matches!(add(4), Err(CspError::InvalidPlacement(_))));
    // The same shape on the same grid shares cleanly.
    assert!(add(3).is_ok());
}

/// A halo keeps other pieces off whichever of the two variables carries it, and whichever
/// comes first in the assignment. (Such a mix makes the halo relation asymmetric, which the
/// counting engines do not support; `is_solution` is the reference that checks both ways.)
#[test]
fn is_solution_respects_a_halo_on_either_side() {
    let start = |s| Value {
        family: 0,
        start: s,
    };
    // On a 3x3 board: a domino with a no-touch halo and one without.
    for haloed_first in [true, false] {
        let mut p = PlacementCsp::new(9).unwrap();
        let (with, without) = (ship(2, 3, 3, true), ship(2, 3, 3, false));
        if haloed_first {
            p.add_var(with).unwrap();
            p.add_var(without).unwrap();
        } else {
            p.add_var(without).unwrap();
            p.add_var(with).unwrap();
        }
        // Cells 0, 1 and cells 3, 4 touch; cells 0, 1 and 7, 8 do not.
        assert!(!p.is_solution(&[start(0), start(3)]), "{haloed_first}");
        assert!(!p.is_solution(&[start(3), start(0)]), "{haloed_first}");
        assert!(p.is_solution(&[start(0), start(7)]), "{haloed_first}");
        assert!(p.is_solution(&[start(7), start(0)]), "{haloed_first}");
    }
}

/// Whether the halo relation of `p` is symmetric, pair of values by pair of values: the
/// definition `check_halos` implements with start masks.
fn halos_symmetric_by_pairs(p: &PlacementCsp) -> bool {
    let values = |v: usize| -> Vec<(u128, u128)> {
        p.domain(v)
            .unwrap()
            .iter()
            .flat_map(|f| {
                (0..128u32)
                    .filter(move |&s| f.starts() >> s & 1 == 1)
                    .map(move |s| (f.cells(s), f.block(s)))
            })
            .collect()
    };
    (0..p.num_vars()).all(|v| {
        (v + 1..p.num_vars()).all(|w| {
            let (a, b) = (values(v), values(w));
            a.iter()
                .all(|&(ca, ha)| b.iter().all(|&(cb, hb)| (cb & ha != 0) == (ca & hb != 0)))
        })
    })
}

/// `check_halos` accepts grown-by-one halos (and no halos), refuses a mix of the two, and
/// agrees with the pairwise definition on random halo tables.
#[test]
fn check_halos_finds_asymmetric_relations() {
    for no_touch in [false, true] {
        let p = fleet(&[3, 2, 2, 1], 5, 4, no_touch);
        assert!(p.check_halos().is_ok(), "{no_touch}");
        assert!(halos_symmetric_by_pairs(&p));
    }
    let mut p = PlacementCsp::new(9).unwrap();
    p.add_var(ship(2, 3, 3, true)).unwrap();
    p.add_var(ship(2, 3, 3, false)).unwrap();
    assert!(
        matches!(p.check_halos(), Err(CspError::InvalidPlacement(m)) if m.contains("asymmetric"))
    );
    assert!(!halos_symmetric_by_pairs(&p));
    // Random tables: each halo is its cells plus random extra cells of a 4x4 board, on
    // monominoes and dominoes (every third round without extra cells: symmetric).
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let (mut ok, mut bad) = (0, 0);
    for round in 0..300 {
        let mut p = PlacementCsp::new(16).unwrap();
        let mono = Grid::new(4, 4).unwrap().translates(&[(0, 0)]).unwrap();
        let domino = Grid::new(4, 4)
            .unwrap()
            .translates(&[(0, 0), (1, 0)])
            .unwrap();
        for f in [mono, domino] {
            let table: Vec<u128> = (0..128u32)
                .map(|s| {
                    if f.starts() >> s & 1 == 1 {
                        let extra = if round % 3 == 0 {
                            0
                        } else {
                            rng.random::<u16>() & rng.random::<u16>() & rng.random::<u16>()
                        };
                        f.cells(s) | u128::from(extra)
                    } else {
                        0
                    }
                })
                .collect();
            p.add_var(vec![f.with_halo(table).unwrap()]).unwrap();
        }
        let want = halos_symmetric_by_pairs(&p);
        assert_eq!(p.check_halos().is_ok(), want, "round {round}");
        // Counting refuses exactly the asymmetric ones, and counts the others right.
        match analyze_placements(&p, &BIG) {
            Ok(a) => {
                assert!(want, "round {round}");
                let naive = analyze_placements_naive(&p, &BIG).unwrap();
                assert_eq!(a.element_counts, naive.element_counts, "round {round}");
            }
            Err(e) => assert!(!want && matches!(e, CspError::InvalidPlacement(_)), "{e}"),
        }
        if want {
            ok += 1;
        } else {
            bad += 1;
        }
    }
    // Both answers occur.
    assert!(ok > 50 && bad > 50, "{ok} {bad}");
}

/// Empirical frequencies of the exact sampler and the chain against exact marginals: every
/// element within 5 standard errors `sqrt(p (1 - p) / n)` (for the chain, `n` is divided by
/// an allowance of 4 for the correlation between sweeps). A wrong sampler such as placing
/// ships one after another uniformly (which over-weights crowded layouts) shifts marginals by
/// several percent and fails.
fn check_sampled(p: &PlacementCsp, seed: u64) {
    let exact = analyze_placements(p, &BIG).unwrap();
    let m = exact.marginals();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = 3000usize;
    let mut hits = vec![0usize; p.universe()];
    for _ in 0..n {
        let s = sample_placements(p, &BIG, &mut rng).unwrap();
        assert!(p.is_solution(&s));
        let cells = s
            .iter()
            .enumerate()
            .fold(0u128, |a, (v, &val)| a | p.cells(v, val).unwrap());
        for e in 0..p.universe() {
            hits[e] += (cells >> e & 1) as usize;
        }
    }
    for e in 0..p.universe() {
        let f = hits[e] as f64 / n as f64;
        let se = (m[e] * (1.0 - m[e]) / n as f64).sqrt();
        assert!(
            (f - m[e]).abs() <= 5.0 * se + 1e-12,
            "exact sampler element {e}: {f} vs {}",
            m[e]
        );
    }
    let sweeps = 20_000u64;
    let est = estimate_placements(p, &BIG, 200, sweeps, &mut rng).unwrap();
    let em = est.marginals();
    for e in 0..p.universe() {
        let se = (m[e] * (1.0 - m[e]) / (sweeps as f64 / 4.0)).sqrt();
        assert!(
            (em[e] - m[e]).abs() <= 5.0 * se + 1e-12,
            "chain element {e}: {} vs {}",
            em[e],
            m[e]
        );
    }
}

#[test]
fn samplers_match_exact_marginals() {
    for no_touch in [false, true] {
        let p = fleet(&[3, 2, 2], 6, 6, no_touch);
        check_sampled(&p, 11);
        // With observations: two hits next to each other, some misses, ship 0 covers cell 14.
        let mut p = fleet(&[3, 2, 2], 6, 6, no_touch);
        p.require((1u128 << 8) | (1u128 << 9)).unwrap();
        p.forbid((1u128 << 7) | (1u128 << 20) | (1u128 << 27))
            .unwrap();
        check_sampled(&p, 12);
    }
}

/// The chain's standard errors (batch means over the recorded sweeps) measure its errors:
/// over the elements of 32 runs (the four problems of `samplers_match_exact_marginals`, eight
/// seeds each, 4000 sweeps), the squared ratio of the error to the standard error averages
/// about 1. Batch means a factor `sqrt(20)` off (one batch's spread, or the batches' sum) fail,
/// and so does the plain binomial error `sqrt(p (1 - p) / sweeps)`, which ignores the
/// correlation between sweeps (here it is far too large, since each sweep's estimate is
/// already an average, Rao-Blackwellised, whose variance is below the binomial one).
#[test]
fn chain_standard_errors_measure_the_error() {
    let (mut z2, mut n) = (0.0, 0);
    for no_touch in [false, true] {
        let open = fleet(&[3, 2, 2], 6, 6, no_touch);
        let mut seen = fleet(&[3, 2, 2], 6, 6, no_touch);
        seen.require((1u128 << 8) | (1u128 << 9)).unwrap();
        seen.forbid((1u128 << 7) | (1u128 << 20) | (1u128 << 27))
            .unwrap();
        for p in [&open, &seen] {
            let m = analyze_placements(p, &BIG).unwrap().marginals();
            for seed in 0..8 {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(300 + seed);
                let est = estimate_placements(p, &BIG, 200, 4000, &mut rng).unwrap();
                for e in 0..p.universe() {
                    let (q, se) = (est.element_probs[e], est.element_std_errors[e]);
                    if m[e] == 0.0 || m[e] == 1.0 {
                        // Up to rounding: the shares of a certain element add up to 1.
                        assert!((q - m[e]).abs() < 1e-9 && se < 1e-9, "{e}: {q} {se}");
                        continue;
                    }
                    assert!(se > 0.0, "element {e}: {q} vs {}", m[e]);
                    z2 += ((q - m[e]) / se).powi(2);
                    n += 1;
                }
            }
        }
    }
    let mean = z2 / f64::from(n);
    assert!(n >= 800, "{n}");
    assert!(
        (0.6..1.8).contains(&mean),
        "mean squared ratio {mean} over {n}"
    );
}

/// Twelve single cells kept apart on 7x5 fill the board's halos almost exactly: placing
/// the pieces one by one, a search for a first solution would meet the dead ends once per
/// order of the interchangeable pieces (and ran out of 5 million nodes before the chain
/// branched on cells on crowded boards), where the exact count branches on cells and takes
/// fewer than 50,000.
#[test]
fn a_packed_board_still_gives_a_chain_a_start() {
    let p = fleet(&[1; 12], 7, 5, true);
    let budget = Budget {
        max_nodes: 5_000_000,
    };
    let exact = analyze_placements(&p, &budget).unwrap();
    assert!(
        exact.solutions > 0 && exact.nodes < 50_000,
        "{}",
        exact.nodes
    );
    for seed in 0..4 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let chain = PlacementChain::new(&p, &budget, &mut rng).unwrap();
        assert!(p.is_solution(chain.state()), "seed {seed}");
    }
    // Where neither way fits the budget, the search's budget is reported.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
    let tiny = Budget { max_nodes: 10 };
    assert!(matches!(
        PlacementChain::new(&p, &tiny, &mut rng),
        Err(CspError::BudgetExceeded { max_nodes: 10, .. })
    ));
}

/// Twelve 4-ships kept apart on 10x10 (the halos fill the board): the chain's search
/// finds a start within 500,000 nodes (a few hundred to a few hundred thousand, by the
/// seed), branching on cells, each covered by one of the interchangeable ships or left
/// empty. Placing the ships one by one, it ran past 5 million nodes, and so does the exact
/// count of the fleets (the draw it then fell back on).
#[test]
fn a_board_crowded_by_halos_gives_a_chain_a_start_quickly() {
    let p = fleet(&[4; 12], 10, 10, true);
    let budget = Budget { max_nodes: 500_000 };
    for seed in 0..4 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let chain = PlacementChain::new(&p, &budget, &mut rng).unwrap();
        assert!(p.is_solution(chain.state()), "seed {seed}");
    }
}

/// Thirty-two straight tetrominoes (horizontal or vertical) on a `w` x `h` board of 128
/// cells, which they fill.
fn bars(w: usize, h: usize) -> PlacementCsp {
    let grid = Grid::new(w, h).unwrap();
    let bar = vec![
        grid.translates(&[(0, 0), (1, 0), (2, 0), (3, 0)]).unwrap(),
        grid.translates(&[(0, 0), (0, 1), (0, 2), (0, 3)]).unwrap(),
    ];
    let mut p = PlacementCsp::new(128).unwrap();
    for _ in 0..32 {
        p.add_var(bar.clone()).unwrap();
    }
    p
}

/// Thirty-two straight tetrominoes tiling 16x8, with hits scattered over it (10 to 105
/// random required cells): covering the hits in their order leaves holes no bar fits, found
/// only once the rest is placed (several of these 20 boards ran out of 200,000 nodes so);
/// filling the board cell by cell, the hits among them, finds a start at once.
#[test]
fn a_full_board_with_required_cells_gives_a_chain_a_start() {
    for seed in 0..20u64 {
        let mut p = bars(16, 8);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let hits = (0..10 + 5 * seed).fold(0u128, |m, _| m | 1u128 << rng.random_range(0..128u32));
        p.require(hits).unwrap();
        let chain = PlacementChain::new(&p, &Budget { max_nodes: 200_000 }, &mut rng).unwrap();
        assert!(p.is_solution(chain.state()), "seed {seed}");
    }
}

/// A crowded board whose one solution leaves its first cell empty, though pieces could
/// cover it: on 3x2 under no-touch, a single cell restricted to cells 1, 3 and 4 and a
/// domino fit only as the single at 3 (bottom left) and the domino upright on the right.
/// The chain's search over cells must try leaving a cell empty, not only covering it.
#[test]
fn a_crowded_start_may_leave_a_coverable_cell_empty() {
    let mut p = fleet(&[1, 2], 3, 2, true);
    p.retain(0, |c| c & 0b11010 != 0).unwrap();
    assert_eq!(count_placements(&p, &BIG).unwrap(), 1);
    for seed in 0..4 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let chain = PlacementChain::new(&p, &BIG, &mut rng).unwrap();
        assert_eq!(chain.cells(0), Some(1 << 3));
        assert_eq!(chain.cells(1), Some(1 << 2 | 1 << 5));
    }
}

/// Thirty-two straight tetrominoes tiling 8x16: each tiling is `32!` (about 2.6e35)
/// labelled solutions, so the labelled count passes the limit of `u128::MAX >> 7`. The exact
/// sampler then draws from the counts without labels, and the chain still gets a start.
#[test]
fn identical_pieces_past_the_count_limit_can_still_be_drawn() {
    let p = bars(8, 16);
    let budget = Budget {
        max_nodes: 1_000_000,
    };
    assert_eq!(
        count_placements(&p, &budget).unwrap_err(),
        CspError::CountOverflow
    );
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let values = sample_placements(&p, &budget, &mut rng).unwrap();
    assert!(p.is_solution(&values));
    let chain = PlacementChain::new(&p, &budget, &mut rng).unwrap();
    assert!(p.is_solution(chain.state()));
}

#[test]
fn chain_swaps_which_ship_covers_a_hit() {
    // Two hits exactly filled by either of the two 2-ships: a single-variable chain would stay
    // with its first choice; pair moves reach both.
    let mut p = fleet(&[2, 2], 4, 4, false);
    p.require(0b11).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut chain = PlacementChain::new(&p, &BIG, &mut rng).unwrap();
    let mut covers0 = 0;
    for _ in 0..2000 {
        chain.sweep(&mut rng);
        covers0 += usize::from(chain.cells(0) == Some(0b11));
        assert!(p.is_solution(chain.state()));
    }
    assert!((800..1200).contains(&covers0), "{covers0}");
    // Variables that do not exist: no cells, and a step that changes nothing.
    assert_eq!(chain.cells(2), None);
    let before = chain.state().to_vec();
    chain.step_pair(0, 7, &mut rng);
    assert_eq!(chain.state(), before);
}

#[test]
fn budget_is_enforced() {
    let p = fleet(&[3, 2, 2], 6, 6, false);
    assert!(matches!(
        analyze_placements(&p, &Budget { max_nodes: 10 }),
        Err(CspError::BudgetExceeded { .. })
    ));
}

/// The empty standard 10x10 board: 30,093,975,536 labelled fleets of 5, 4, 3, 3, 2, by
/// the default search (the two 3-ships placed once per pair) and by the labelled one (once
/// per order), which must agree on every count, and by `FrontierCount`; then ten 4-ships
/// kept apart, by `FrontierCount` and the search. About 6.5 s, 11.5 s, 1.4 s, 0.35 s and 6 s
/// (26 s in all) in release mode on one core (docs/PERFORMANCE.md):
/// `cargo test -p csp-core --release --test placement -- --ignored --nocapture`.
#[test]
#[ignore]
fn standard_board_fixture() {
    let mut p = fleet(&[5, 4, 3, 3, 2], 10, 10, false);
    let mut runs = Vec::new();
    for labelled in [false, true] {
        p.set_labelled_search(labelled);
        let t = std::time::Instant::now();
        let a = analyze_placements(&p, &BIG).unwrap();
        let search = if labelled { "labelled" } else { "default" };
        eprintln!(
            "{search} search: {} fleets in {:?} ({} nodes)",
            a.solutions,
            t.elapsed(),
            a.nodes
        );
        assert_eq!(a.solutions, 30_093_975_536);
        assert_eq!(a.element_counts.iter().sum::<u128>(), 17 * a.solutions);
        runs.push(a);
    }
    assert_eq!(runs[0].element_counts, runs[1].element_counts);
    assert_eq!(runs[0].value_counts, runs[1].value_counts);
    assert!(runs[0].nodes < runs[1].nodes);
    // The count over element frontiers, on the same board and on ten 4-ships kept apart,
    // whose labelled fleets are far too many for the search to visit one by one.
    let frontier = |name: &str, p: &PlacementCsp| {
        let t = std::time::Instant::now();
        let count = FrontierCount::new(p, &BIG).unwrap();
        let fleets = count.labelled().unwrap();
        let states = count.states();
        eprintln!(
            "{name}: frontier count {fleets} fleets in {:?} ({states} states)",
            t.elapsed()
        );
        fleets
    };
    assert_eq!(frontier("standard", &p), 30_093_975_536);
    let t = std::time::Instant::now();
    let a = FrontierCount::new(&p, &BIG).unwrap().analyze().unwrap();
    eprintln!("standard: frontier count and analysis in {:?}", t.elapsed());
    assert_eq!(a.element_counts, runs[0].element_counts);
    assert_eq!(a.value_counts, runs[0].value_counts);
    let tight = fleet(&[4; 10], 10, 10, true);
    let fleets = frontier("ten 4-ships, no-touch", &tight);
    let t = std::time::Instant::now();
    let search = count_placements(&tight, &BIG).unwrap();
    eprintln!(
        "ten 4-ships, no-touch: search {search} fleets in {:?}",
        t.elapsed()
    );
    assert_eq!(fleets, search);
}

/// Starts of each family of `var` in the reduced problem.
fn starts_of(p: &PlacementCsp, var: usize) -> Vec<u128> {
    p.domain(var).unwrap().iter().map(Family::starts).collect()
}

/// On a 1x6 strip: a variable left with one value blocks it for the others, and what that
/// leaves single blocks in turn, whatever the order of the variables (here the last one
/// starts the chain, and its first family is empty).
#[test]
fn propagation_follows_a_chain_of_single_values() {
    let domino = 0b11;
    let mut p = PlacementCsp::new(6).unwrap();
    let c = p
        .add_var(vec![Family::new(domino, 1 << 3 | 1 << 4).unwrap()])
        .unwrap();
    let b = p
        .add_var(vec![Family::new(domino, 1 << 1 | 1 << 2).unwrap()])
        .unwrap();
    let a = p
        .add_var(vec![
            Family::new(0b1_0000_0001, 0).unwrap(),
            Family::new(domino, 1).unwrap(),
        ])
        .unwrap();
    let r = propagate_placements(&p).unwrap();
    assert_eq!(starts_of(&r, a), [0, 1]);
    assert_eq!(starts_of(&r, b), [1 << 2]);
    assert_eq!(starts_of(&r, c), [1 << 4]);
    assert_eq!(analyze_placements(&p, &BIG).unwrap().solutions, 1);
}

/// A required element that only one variable can cover restricts that variable to the
/// values covering it; with two possible coverers neither is restricted.
#[test]
fn propagation_gives_a_required_element_to_its_only_coverer() {
    let mut p = PlacementCsp::new(6).unwrap();
    let a = p
        .add_var(vec![Family::new(0b11, 1 | 1 << 4).unwrap()])
        .unwrap();
    let b = p
        .add_var(vec![Family::new(0b1, 0b1_0011).unwrap()])
        .unwrap();
    p.require(1 << 5).unwrap();
    let r = propagate_placements(&p).unwrap();
    assert_eq!(starts_of(&r, a), [1 << 4]);
    // ... and its value, now the only one, is then blocked for the others.
    assert_eq!(starts_of(&r, b), [0b11]);
    // With two possible coverers neither is restricted.
    let c = p
        .add_var(vec![Family::new(0b1, 1 << 3 | 1 << 5).unwrap()])
        .unwrap();
    let r = propagate_placements(&p).unwrap();
    assert_eq!(starts_of(&r, a), [1 | 1 << 4]);
    assert_eq!(starts_of(&r, b), [0b1_0011]);
    assert_eq!(starts_of(&r, c), [1 << 3 | 1 << 5]);
}

/// A problem takes up to 64 variables (`add_var` refuses a 65th), and propagation handles
/// them all.
#[test]
fn problems_take_at_most_64_variables() {
    let mut p = PlacementCsp::new(128).unwrap();
    for v in 0..64 {
        p.add_var(vec![Family::new(1, 1 << (2 * v)).unwrap()])
            .unwrap();
    }
    assert!(propagate_placements(&p).is_ok());
    assert!(matches!(
        p.add_var(vec![Family::new(1, 1 << 127).unwrap()]),
        Err(CspError::InvalidPlacement(_))
    ));
    assert!(propagate_placements(&p).is_ok());
}

/// A solution covers the required elements and none of the forbidden ones.
#[test]
fn is_solution_refuses_a_forbidden_element() {
    let mut p = PlacementCsp::new(4).unwrap();
    p.add_var(vec![Family::new(0b11, 0b111).unwrap()]).unwrap();
    p.require(1 << 1).unwrap();
    let at = |s| Value {
        family: 0,
        start: s,
    };
    assert!(p.is_solution(&[at(0)]));
    assert!(p.is_solution(&[at(1)]));
    assert!(!p.is_solution(&[at(2)]));
    p.forbid(1).unwrap();
    assert!(!p.is_solution(&[at(0)]));
    assert!(p.is_solution(&[at(1)]));
}

/// The search takes the largest pieces first, whatever their place in the list: fleets whose
/// largest ship comes last count as the enumeration does.
#[test]
fn the_order_of_the_variables_does_not_matter() {
    for no_touch in [false, true] {
        for lens in [&[2, 2, 3][..], &[1, 3, 2], &[2, 1, 4], &[2, 1, 2, 3]] {
            let p = fleet(lens, 4, 4, no_touch);
            assert_same(&p);
            let mut sorted = lens.to_vec();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let q = fleet(&sorted, 4, 4, no_touch);
            assert_eq!(
                analyze_placements(&p, &BIG).unwrap().solutions,
                analyze_placements(&q, &BIG).unwrap().solutions,
                "{lens:?}"
            );
        }
    }
}

/// A count may take exactly `max_nodes` search nodes; one more is over the budget.
#[test]
fn the_placement_budget_counts_nodes() {
    for lens in [&[3, 2][..], &[3, 2, 2]] {
        let p = fleet(lens, 4, 4, false);
        let nodes = analyze_placements(&p, &BIG).unwrap().nodes;
        assert!(nodes > 1);
        assert!(analyze_placements(&p, &Budget { max_nodes: nodes }).is_ok());
        assert!(matches!(
            analyze_placements(
                &p,
                &Budget {
                    max_nodes: nodes - 1
                }
            ),
            Err(CspError::BudgetExceeded { .. })
        ));
    }
}

/// The chain starts from a solution, required elements included (two opposite corners of a
/// 6x6 board, which a random placement of two ships seldom covers), and its search for that
/// first solution keeps to the budget.
#[test]
fn the_chain_starts_from_a_solution_within_the_budget() {
    let mut p = fleet(&[3, 2], 6, 6, false);
    p.require(1 | 1 << 35).unwrap();
    for seed in 0..20 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let chain = PlacementChain::new(&p, &BIG, &mut rng).unwrap();
        assert!(p.is_solution(chain.state()), "seed {seed}");
    }
    let p = fleet(&[3, 2, 2], 6, 6, false);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    assert!(matches!(
        PlacementChain::new(&p, &Budget { max_nodes: 2 }, &mut rng),
        Err(CspError::BudgetExceeded { max_nodes: 2, .. })
    ));
}

/// The limit of pair moves the chain's docs describe: three straight trominoes covering a
/// 3x3 board lie all horizontal or all vertical (half of the solutions each, exactly), but
/// no single or pair move turns a piece, so the chain stays in the direction it started in.
#[test]
fn the_pair_chain_keeps_three_trominoes_in_their_direction() {
    let grid = Grid::new(3, 3).unwrap();
    let domain = || {
        vec![
            grid.translates(&[(0, 0), (1, 0), (2, 0)]).unwrap(),
            grid.translates(&[(0, 0), (0, 1), (0, 2)]).unwrap(),
        ]
    };
    let mut csp = PlacementCsp::new(9).unwrap();
    for _ in 0..3 {
        csp.add_var(domain()).unwrap();
    }
    csp.require(grid.all()).unwrap();
    let exact = analyze_placements(&csp, &Budget::default()).unwrap();
    assert_eq!(exact.solutions, 12);
    let mut seen = [false; 2];
    for seed in 0..20 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut chain = PlacementChain::new(&csp, &Budget::default(), &mut rng).unwrap();
        let direction = chain.state()[0].family;
        seen[direction] = true;
        for _ in 0..50 {
            chain.sweep(&mut rng);
            assert!(
                chain.state().iter().all(|v| v.family == direction),
                "seed {seed}"
            );
        }
    }
    // Both directions are reachable as starting points, never from each other.
    assert_eq!(seen, [true, true]);
}

/// Block moves over three variables reach what pair moves cannot: with the three trominoes
/// of the test above beside a domino on a 4x3 board (the left 3x3 required), a chain that
/// follows every sweep with a block move on a random triple of the four variables matches
/// the exact marginals, within 5 standard errors allowing a factor of 4 for correlation.
#[test]
fn block_moves_mix_where_pairs_cannot() {
    let grid = Grid::new(4, 3).unwrap();
    let mut csp = PlacementCsp::new(12).unwrap();
    for _ in 0..3 {
        csp.add_var(vec![
            grid.translates(&[(0, 0), (1, 0), (2, 0)]).unwrap(),
            grid.translates(&[(0, 0), (0, 1), (0, 2)]).unwrap(),
        ])
        .unwrap();
    }
    csp.add_var(vec![
        grid.translates(&[(0, 0), (1, 0)]).unwrap(),
        grid.translates(&[(0, 0), (0, 1)]).unwrap(),
    ])
    .unwrap();
    let left = (0..3).fold(0u128, |m, y| m | 0b111 << (4 * y));
    csp.require(left).unwrap();
    let exact = analyze_placements(&csp, &BIG).unwrap();
    let m = exact.marginals();
    // The tromino directions: the share of solutions with tromino 0 horizontal.
    let horizontal = exact.value_counts[0][0].iter().sum::<u128>() as f64 / exact.solutions as f64;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut chain = PlacementChain::new(&csp, &BIG, &mut rng).unwrap();
    let sweeps = 8000usize;
    let (mut hits, mut h0) = (vec![0usize; 12], 0usize);
    for _ in 0..sweeps {
        chain.sweep(&mut rng);
        let skip = rng.random_range(0..4);
        let triple: Vec<usize> = (0..4).filter(|&v| v != skip).collect();
        chain.step_block(&triple, &BIG, &mut rng).unwrap();
        assert!(csp.is_solution(chain.state()));
        let cells = (0..4).fold(0u128, |a, v| a | chain.cells(v).unwrap());
        for (e, h) in hits.iter_mut().enumerate() {
            *h += (cells >> e & 1) as usize;
        }
        h0 += usize::from(chain.state()[0].family == 0);
    }
    let n = sweeps as f64 / 4.0;
    for e in 0..12 {
        let f = hits[e] as f64 / sweeps as f64;
        let se = (m[e] * (1.0 - m[e]) / n).sqrt();
        assert!(
            (f - m[e]).abs() <= 5.0 * se + 1e-12,
            "element {e}: {f} vs {}",
            m[e]
        );
    }
    let f = h0 as f64 / sweeps as f64;
    let se = (horizontal * (1.0 - horizontal) / n).sqrt();
    assert!(
        (f - horizontal).abs() <= 5.0 * se,
        "tromino 0 horizontal: {f} vs {horizontal}"
    );
}

/// A block move refuses bad sets and a budget too small for its analysis, and leaves the
/// state as it was; an empty set changes nothing.
#[test]
fn block_move_errors_leave_the_state_unchanged() {
    let p = fleet(&[3, 2, 2], 6, 6, false);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let mut chain = PlacementChain::new(&p, &BIG, &mut rng).unwrap();
    let before = chain.state().to_vec();
    assert_eq!(
        chain.step_block(&[0, 3], &BIG, &mut rng),
        Err(CspError::VarOutOfRange {
            var: 3,
            num_vars: 3
        })
    );
    assert_eq!(
        chain.step_block(&[1, 0, 1], &BIG, &mut rng),
        Err(CspError::DuplicateVar { var: 1 })
    );
    assert!(matches!(
        chain.step_block(&[0, 1, 2], &Budget { max_nodes: 2 }, &mut rng),
        Err(CspError::BudgetExceeded { .. })
    ));
    chain.step_block(&[], &BIG, &mut rng).unwrap();
    assert_eq!(chain.state(), before);
    // A move on the whole fleet is an exact draw: it changes the state sooner or later.
    let moved = (0..20).any(|_| {
        chain.step_block(&[2, 0, 1], &BIG, &mut rng).unwrap();
        chain.state() != before
    });
    assert!(moved && p.is_solution(chain.state()));
}

/// Identical pieces on an open board: five no-touch single cells on 6x6. Each set of five
/// cells, no two of them neighbours (counted here by brute force over every set), is 5!
/// labelled solutions; the grouped search visits each set once, not once per order, so it
/// needs a small fraction of the labelled search's nodes (without ordering the pieces of a
/// group it needed about as many).
#[test]
fn identical_pieces_on_an_open_board_are_placed_once_per_set() {
    let grid = Grid::new(6, 6).unwrap();
    let cell = grid.translates_no_touch(&[(0, 0)]).unwrap();
    let problem = |labelled: bool| {
        let mut p = PlacementCsp::new(36).unwrap();
        for _ in 0..5 {
            p.add_var(vec![cell.clone()]).unwrap();
        }
        p.set_labelled_search(labelled);
        p
    };
    // Every set of five cells, no two of them neighbours: how many, and how many hold the
    // corner.
    fn walk(from: usize, chosen: &mut Vec<usize>, out: &mut (u128, u128)) {
        if chosen.len() == 5 {
            *out = (out.0 + 1, out.1 + u128::from(chosen[0] == 0));
            return;
        }
        for c in from..36 {
            let apart = |d: usize| (c % 6).abs_diff(d % 6) > 1 || (c / 6).abs_diff(d / 6) > 1;
            if chosen.iter().all(|&d| apart(d)) {
                chosen.push(c);
                walk(c + 1, chosen, out);
                chosen.pop();
            }
        }
    }
    let mut found = (0, 0);
    walk(0, &mut Vec::new(), &mut found);
    let (sets, with_corner) = found;
    let grouped = analyze_placements(&problem(false), &BIG).unwrap();
    let labelled = analyze_placements(&problem(true), &BIG).unwrap();
    assert_eq!(grouped.solutions, 120 * sets);
    assert_eq!(grouped.element_counts[0], 120 * with_corner);
    assert_eq!(labelled.solutions, grouped.solutions);
    assert_eq!(labelled.value_counts, grouped.value_counts);
    assert!(
        grouped.nodes * 10 < labelled.nodes,
        "{} against {}",
        grouped.nodes,
        labelled.nodes
    );
}
