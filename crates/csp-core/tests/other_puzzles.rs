//! csp-core on puzzles other than the two games it was built for, against counts known in
//! closed form or from the literature: the engines are generic, not tuned to Minesweeper and
//! Battleship.
#![allow(clippy::unwrap_used)]

use csp_core::{
    BigUint, BoolCsp, Budget, CspError, Grid, PlacementCsp, analyze, analyze_placements, count,
    sample_placements,
};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The boolean problem of an `n x n` Latin square (`n = b * b` with `b x b` boxes too when
/// `boxes`): variable `(r * n + c) * n + d` says "digit `d` at row `r`, column `c`", and every
/// cell, and every digit in every row, column (and box), is "exactly one of these".
fn latin(b: usize, boxes: bool) -> BoolCsp {
    let n = b * b;
    let var = |r: usize, c: usize, d: usize| (r * n + c) * n + d;
    let mut csp = BoolCsp::new(n * n * n);
    for i in 0..n {
        for j in 0..n {
            csp.exactly(&(0..n).map(|d| var(i, j, d)).collect::<Vec<_>>(), 1)
                .unwrap();
            csp.exactly(&(0..n).map(|c| var(i, c, j)).collect::<Vec<_>>(), 1)
                .unwrap();
            csp.exactly(&(0..n).map(|r| var(r, i, j)).collect::<Vec<_>>(), 1)
                .unwrap();
            if boxes {
                let (r0, c0) = (i / b * b, i % b * b);
                let cells = (0..n).map(|k| var(r0 + k / b, c0 + k % b, j));
                csp.exactly(&cells.collect::<Vec<_>>(), 1).unwrap();
            }
        }
    }
    csp
}

#[test]
fn four_by_four_latin_squares_and_sudokus() {
    let budget = Budget::default();
    // 576 Latin squares of order 4, of which 288 are 4x4 Sudoku grids.
    assert_eq!(
        count(&latin(2, false), &budget).unwrap(),
        BigUint::from_u64(576)
    );
    let sudoku = latin(2, true);
    let a = analyze(&sudoku, &budget).unwrap();
    assert_eq!(a.solutions, BigUint::from_u64(288));
    // By symmetry every digit is equally likely in every cell.
    assert!(a.probabilities.iter().all(|&p| (p - 0.25).abs() < 1e-12));

    // A clue fixes a digit: 288 / 4 grids have a 1 in the corner.
    let mut clued = sudoku.clone();
    clued.exactly(&[0], 1).unwrap();
    assert_eq!(count(&clued, &budget).unwrap(), BigUint::from_u64(72));
}

/// One domino variable per two cells of a `w x h` board (horizontal and vertical
/// placements), every cell covered.
fn tiling(w: usize, h: usize) -> PlacementCsp {
    let grid = Grid::new(w, h).unwrap();
    let dominoes = vec![
        grid.translates(&[(0, 0), (1, 0)]).unwrap(),
        grid.translates(&[(0, 0), (0, 1)]).unwrap(),
    ];
    let mut p = PlacementCsp::new(grid.cells()).unwrap();
    for _ in 0..grid.cells() / 2 {
        p.add_var(dominoes.clone()).unwrap();
    }
    p.require(grid.all()).unwrap();
    p
}

fn factorial(n: u128) -> u128 {
    (1..=n).product()
}

#[test]
fn domino_tilings() {
    // Tilings of a 2 x n strip are Fibonacci numbers, of the 4x4 square 36, of 6x6 6728
    // (Kasteleyn; Temperley and Fisher). Variables are labelled, so every tiling is counted
    // once per order of its dominoes; the search visits one order per tiling, as the
    // dominoes are interchangeable.
    for (w, h, tilings) in [(2, 5, 8), (2, 8, 34), (4, 4, 36), (3, 4, 11), (6, 6, 6728)] {
        let p = tiling(w, h);
        let a = analyze_placements(&p, &Budget::default()).unwrap();
        // Far fewer nodes than labelled tilings.
        assert!(
            u128::from(a.nodes) < 100 * tilings,
            "{w}x{h}: {} nodes",
            a.nodes
        );
        assert_eq!(
            a.solutions,
            tilings * factorial((w * h / 2) as u128),
            "{w}x{h}"
        );
    }
}

#[test]
fn counts_past_u128_are_reported_not_wrapped() {
    // 12,988,816 tilings of 8x8 times 32! orders, and 4x16's 1,292,697 times 32!, exceed
    // what the counters hold: an error, in every build (no overflow panic in debug builds).
    for (w, h) in [(8, 8), (4, 16)] {
        let p = tiling(w, h);
        let r = analyze_placements(&p, &Budget::default());
        assert_eq!(r.unwrap_err(), CspError::CountOverflow, "{w}x{h}");
    }
}

#[test]
fn the_labelled_search_counts_the_same_with_more_nodes() {
    let mut p = tiling(4, 4);
    let grouped = analyze_placements(&p, &Budget::default()).unwrap();
    p.set_labelled_search(true);
    let labelled = analyze_placements(&p, &Budget::default()).unwrap();
    assert_eq!(grouped.solutions, labelled.solutions);
    assert_eq!(grouped.value_counts, labelled.value_counts);
    assert_eq!(grouped.element_counts, labelled.element_counts);
    // Every order of the 8 dominoes against one.
    assert!(
        labelled.nodes > 1000 * grouped.nodes,
        "{} vs {}",
        labelled.nodes,
        grouped.nodes
    );
}

#[test]
fn a_sampled_tiling_is_a_tiling() {
    let (w, h) = (6, 6);
    let p = tiling(w, h);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let tiling = sample_placements(&p, &Budget::default(), &mut rng).unwrap();
    assert!(p.is_solution(&tiling));
    let mut covered = 0u128;
    for (var, &value) in tiling.iter().enumerate() {
        let cells = p.cells(var, value).unwrap();
        assert_eq!(cells.count_ones(), 2);
        assert_eq!(covered & cells, 0);
        covered |= cells;
    }
    assert_eq!(covered, (1u128 << (w * h)) - 1);
}

/// The `n`-queens problem: one queen in every row and every column ("exactly one"), at most
/// one on every diagonal ("at most one"): variable `r * n + c` is a queen at row `r`, column
/// `c`.
fn queens(n: usize) -> BoolCsp {
    let mut csp = BoolCsp::new(n * n);
    for i in 0..n {
        csp.exactly(&(0..n).map(|c| i * n + c).collect::<Vec<_>>(), 1)
            .unwrap();
        csp.exactly(&(0..n).map(|r| r * n + i).collect::<Vec<_>>(), 1)
            .unwrap();
    }
    for d in 0..2 * n - 1 {
        let down: Vec<usize> = (0..n)
            .filter_map(|r| {
                (d + r)
                    .checked_sub(n - 1)
                    .filter(|&c| c < n)
                    .map(|c| r * n + c)
            })
            .collect();
        let up: Vec<usize> = (0..n)
            .filter_map(|r| d.checked_sub(r).filter(|&c| c < n).map(|c| r * n + c))
            .collect();
        csp.at_most(&down, 1).unwrap();
        csp.at_most(&up, 1).unwrap();
    }
    csp
}

/// The numbers of ways to place `n` non-attacking queens on an `n x n` board (OEIS A000170),
/// counted exactly, and 8 queens drawn uniformly: each draw is one of the 92 solutions, every
/// square is a queen in its share of them (by symmetry, a corner in 4 of 92).
#[test]
fn n_queens() {
    let known = [1u64, 0, 0, 2, 10, 4, 40, 92];
    for (i, &solutions) in known.iter().enumerate() {
        let n = i + 1;
        match count(&queens(n), &Budget::default()) {
            Ok(c) => assert_eq!(c, BigUint::from_u64(solutions), "{n} queens"),
            Err(e) => assert!(solutions == 0 && e == CspError::Inconsistent, "{n}: {e}"),
        }
    }
    let csp = queens(8);
    let a = analyze(&csp, &Budget::default()).unwrap();
    assert!((a.probabilities[0] - 4.0 / 92.0).abs() < 1e-12);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
    for _ in 0..20 {
        let s = csp_core::sample(&csp, &Budget::default(), &mut rng).unwrap();
        assert!(csp.is_satisfied_by(&s));
        assert_eq!(s.iter().filter(|&&q| q).count(), 8);
    }
}
