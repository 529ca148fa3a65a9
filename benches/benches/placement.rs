//! csp-core placement counting with interchangeable variables: the labelled search, which
//! places identical pieces in every order, against the default grouped search, which places
//! each set of them once, on the same problems.
//!
//! - `placement/identical-open`: five single cells kept apart (no-touch) on an open 6x6
//!   board, no cell required: the count and every marginal.
//! - `placement/identical-tiling`: the 4x4 board's domino tilings (eight dominoes, every
//!   cell required).
//!
//! And exact uniform sampling, 100 draws of a fleet of ships 3, 2, 2 on an empty 6x6 board:
//! `sample_placements`, which recounts the problem for every variable of every draw,
//! against a reusable `PlacementSampler`, which keeps the counts of the partial draws
//! (`placement/sample-100`; the same draws, as a test checks).
//!
//! And exact counting of fleets on an empty board, by the backtracking search
//! (`count_placements`, which visits every fleet but the last ship's, counted by a
//! population count) against the count memoised on element frontiers (`FrontierCount`,
//! which visits each frontier once): ships 5, 4, 3, 3, 2 on 8x8 (`placement/count-open`),
//! and seven 3-ships kept apart on 7x7 (`placement/count-tight`, a crowded board).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use csp_core::rand::SeedableRng;
use csp_core::rand_xoshiro::Xoshiro256PlusPlus;
use csp_core::{
    Budget, FrontierCount, Grid, PlacementCsp, PlacementSampler, analyze_placements,
    count_placements, sample_placements,
};

/// `pieces` copies of the same variable on a `w` x `h` board: single cells kept apart, or
/// dominoes covering every cell.
fn problem(w: usize, h: usize, pieces: usize, tiling: bool) -> PlacementCsp {
    let grid = Grid::new(w, h).expect("grid");
    let families = if tiling {
        vec![
            grid.translates(&[(0, 0), (1, 0)]).expect("family"),
            grid.translates(&[(0, 0), (0, 1)]).expect("family"),
        ]
    } else {
        vec![grid.translates_no_touch(&[(0, 0)]).expect("family")]
    };
    let mut p = PlacementCsp::new(grid.cells()).expect("problem");
    for _ in 0..pieces {
        p.add_var(families.clone()).expect("variable");
    }
    if tiling {
        p.require(grid.all()).expect("cover");
    }
    p
}

/// A benchmark group of ten samples over two seconds: enough for the ratios these
/// comparisons are about.
fn short_group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    group
}

fn placement(c: &mut Criterion) {
    let big = Budget {
        max_nodes: u64::MAX,
    };
    for (name, w, h, pieces, tiling) in [
        ("placement/identical-open", 6, 6, 5, false),
        ("placement/identical-tiling", 4, 4, 8, true),
    ] {
        let grouped = problem(w, h, pieces, tiling);
        let mut labelled = grouped.clone();
        labelled.set_labelled_search(true);
        let a = analyze_placements(&grouped, &big).expect("count");
        let b = analyze_placements(&labelled, &big).expect("count");
        assert_eq!(
            a.value_counts, b.value_counts,
            "{name}: the two searches differ"
        );
        let mut group = short_group(c, name);
        group.bench_function("labelled", |b| {
            b.iter(|| {
                analyze_placements(&labelled, &big)
                    .expect("count")
                    .solutions
            });
        });
        group.bench_function("grouped", |b| {
            b.iter(|| analyze_placements(&grouped, &big).expect("count").solutions);
        });
        group.finish();
    }
}

/// Ships of lengths 3, 2, 2 on an empty 6x6 board (touching allowed).
fn fleet() -> PlacementCsp {
    fleet_on(6, 6, &[3, 2, 2], false)
}

/// Ships of the given lengths (at least 2) on an empty `w` x `h` board, kept apart or not.
fn fleet_on(w: usize, h: usize, lengths: &[usize], no_touch: bool) -> PlacementCsp {
    let grid = Grid::new(w, h).expect("grid");
    let mut p = PlacementCsp::new(grid.cells()).expect("problem");
    for &len in lengths {
        let cells: Vec<(usize, usize)> = (0..len).map(|i| (i, 0)).collect();
        let down: Vec<(usize, usize)> = (0..len).map(|i| (0, i)).collect();
        let family = |shape: &[(usize, usize)]| {
            if no_touch {
                grid.translates_no_touch(shape).expect("family")
            } else {
                grid.translates(shape).expect("family")
            }
        };
        p.add_var(vec![family(&cells), family(&down)])
            .expect("variable");
    }
    p
}

fn counting(c: &mut Criterion) {
    let big = Budget {
        max_nodes: u64::MAX,
    };
    for (name, w, h, lengths, no_touch) in [
        ("placement/count-open", 8, 8, &[5, 4, 3, 3, 2][..], false),
        ("placement/count-tight", 7, 7, &[3; 7][..], true),
    ] {
        let p = fleet_on(w, h, lengths, no_touch);
        let frontier = FrontierCount::new(&p, &big).expect("count");
        assert_eq!(
            frontier.labelled(),
            count_placements(&p, &big),
            "{name}: the two counts differ"
        );
        let mut group = short_group(c, name);
        group.bench_function("search", |b| {
            b.iter(|| count_placements(&p, &big).expect("count"));
        });
        group.bench_function("frontier", |b| {
            b.iter(|| FrontierCount::new(&p, &big).expect("count").unlabelled());
        });
        group.finish();
    }
}

fn sampling(c: &mut Criterion) {
    let p = fleet();
    let budget = Budget::default();
    let mut group = short_group(c, "placement/sample-100");
    group.bench_function("sample_placements", |b| {
        b.iter(|| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            (0..100)
                .map(|_| {
                    sample_placements(&p, &budget, &mut rng)
                        .expect("draw")
                        .len()
                })
                .sum::<usize>()
        });
    });
    group.bench_function("PlacementSampler", |b| {
        b.iter(|| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            let mut sampler = PlacementSampler::new(&p, &budget).expect("sampler");
            (0..100)
                .map(|_| sampler.sample(&mut rng).expect("draw").len())
                .sum::<usize>()
        });
    });
    group.finish();
}

criterion_group!(benches, placement, sampling, counting);
criterion_main!(benches);
