//! search-core: plain minimax against its optimised searches on the same synthetic games.

use criterion::{Criterion, criterion_group, criterion_main};
use search_core::synthetic::RandomGame;
use search_core::{
    Limits, Score, SearchConfig, Searcher, Solver, SolverConfig, Stats, alpha_beta, minimax,
};

/// Depth-limited search of a bushy tree (2 to 6 moves a position) to depth 8.
fn depth_limited(c: &mut Criterion) {
    let game = RandomGame::bushy(3, 1 << 40, 40, 5);
    let mut group = c.benchmark_group("search/depth8");
    group.sample_size(20);
    group.bench_function("minimax", |b| {
        b.iter(|| minimax::negamax(&mut game.clone(), 8, &mut Stats::default()));
    });
    group.bench_function("alpha-beta", |b| {
        b.iter(|| {
            let (lo, hi) = (-Score::INFINITY, Score::INFINITY);
            alpha_beta(&mut game.clone(), 8, lo, hi, &mut Stats::default())
        });
    });
    let mut searcher = Searcher::new(SearchConfig::default());
    group.bench_function("iterative deepening + memo", |b| {
        b.iter(|| {
            searcher.clear_memo();
            searcher.search(&mut game.clone(), &Limits::depth(8)).score
        });
    });
    group.finish();
}

/// Exact solving of a game with many transpositions (16 positions a ply, 16 plies).
fn exact(c: &mut Criterion) {
    let game = RandomGame::bushy(5, 16, 16, 3);
    let mut group = c.benchmark_group("search/solve");
    group.sample_size(20);
    group.bench_function("minimax", |b| b.iter(|| minimax::solve(&mut game.clone())));
    group.bench_function("alpha-beta", |b| {
        b.iter(|| Solver::new(SolverConfig::PLAIN).solve(&mut game.clone()));
    });
    let mut solver = Solver::new(SolverConfig::full(1 << 16));
    group.bench_function("alpha-beta + merge + memo + symmetry", |b| {
        b.iter(|| {
            solver.clear_memo();
            solver.solve(&mut game.clone())
        });
    });
    group.finish();
}

criterion_group!(benches, depth_limited, exact);
criterion_main!(benches);
