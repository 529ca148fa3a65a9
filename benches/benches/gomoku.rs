//! Gomoku: incremental pattern evaluation against a full-board recount, the main engine's
//! alpha-beta in nodes per second (plain against the engine's enhancements), and the VCF
//! solver on a 19-ply forced win.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gomoku::{
    AlphaBetaEngine, Board, Move, Position, Rule, SearchGame, ThreatLimits, ThreatSolver,
};
use search_core::{Limits, SearchConfig, Searcher, Tuning};

/// Middle-game positions (freestyle 15x15) without an immediate forced win.
const POSITIONS: [&str; 3] = [
    "7,7 7,5 6,6 4,4 8,8 9,9 6,4 6,5 5,5 8,2 8,5 3,7",
    "7,7 8,7 8,6 6,8 7,6 7,8 10,6 11,6 8,8 9,6 10,5 5,10",
    "7,7 9,5 9,9 6,6 9,6 7,6 8,5 4,6 3,6 5,6 8,6 7,4",
];

/// A 19-ply win by continuous fours (from the solver's test set).
const VCF_19: &str =
    "7,7 7,5 6,6 4,4 8,8 9,9 6,4 6,5 5,5 8,2 8,5 3,7 7,4 8,6 9,4 5,4 9,6 6,3 7,6 6,7 9,3 9,7";

fn board(moves: &str) -> Board {
    let mut b = Board::new(15, Rule::Freestyle).expect("size");
    for t in moves.split_whitespace() {
        let (x, y) = t.split_once(',').expect("x,y");
        b.play(Move::new(x.parse().expect("x"), y.parse().expect("y")))
            .expect("legal");
    }
    b
}

/// Every empty cell near the stones: play it, read the evaluation, take it back. Incremental
/// updates touch at most forty cells; the recount rebuilds every key and total.
fn evaluation(c: &mut Criterion) {
    let b = board(POSITIONS[0]);
    let mut group = c.benchmark_group("gomoku/evaluation");
    let cells: Vec<usize> = {
        let p = Position::from_board(&b);
        p.cells_near_stones(2)
            .filter(|&q| p.is_empty_cell(q))
            .collect()
    };
    group.throughput(Throughput::Elements(cells.len() as u64));
    let mut game = SearchGame::new(Position::from_board(&b));
    group.bench_function("play + full recount + undo", |bench| {
        bench.iter(|| {
            let mut sum = 0i64;
            for &q in &cells {
                game.pos.play(q);
                game.pos.recount();
                sum += i64::from(game.static_eval());
                game.pos.undo();
            }
            black_box(sum)
        });
    });
    let mut game = SearchGame::new(Position::from_board(&b));
    group.bench_function("play + incremental update + undo", |bench| {
        bench.iter(|| {
            let mut sum = 0i64;
            for &q in &cells {
                game.pos.play(q);
                sum += i64::from(game.static_eval());
                game.pos.undo();
            }
            black_box(sum)
        });
    });
    group.finish();
}

/// Nodes searched by a fixed-depth alpha-beta over all positions (the memo cleared before
/// each, its memory reused).
fn search_nodes(searcher: &mut Searcher<SearchGame>, games: &[SearchGame], depth: u32) -> u64 {
    games
        .iter()
        .map(|g| {
            searcher.clear_memo();
            let mut g = g.clone();
            searcher.search(&mut g, &Limits::depth(depth)).stats.nodes
        })
        .sum()
}

/// Fixed-depth alpha-beta on the three positions; criterion's throughput is nodes per second.
fn search(c: &mut Criterion) {
    let depth = 7;
    let mut group = c.benchmark_group("gomoku/alpha-beta depth 7");
    group.sample_size(10);
    for (name, tuning) in [
        ("plain alpha-beta + memo", Tuning::PLAIN),
        (
            "engine tuning (PVS, aspiration, LMR, extensions)",
            AlphaBetaEngine::TUNING,
        ),
    ] {
        let games: Vec<SearchGame> = POSITIONS
            .iter()
            .map(|p| SearchGame::new(Position::from_board(&board(p))))
            .collect();
        let mut searcher = Searcher::with_tuning(SearchConfig::default(), tuning);
        let nodes = search_nodes(&mut searcher, &games, depth);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |bench| {
            bench.iter(|| black_box(search_nodes(&mut searcher, &games, depth)));
        });
    }
    group.finish();
}

/// The VCF solver on a 19-ply win, from an empty memo each time (the position is built
/// outside the timing).
fn vcf(c: &mut Criterion) {
    let b = board(VCF_19);
    let mut group = c.benchmark_group("gomoku/vcf 19 plies");
    let mut solver = ThreatSolver::new();
    let found = solver.vcf(&mut Position::from_board(&b), &ThreatLimits::default());
    assert!(
        found.is_some_and(|line| !line.is_empty()),
        "the benchmark's win is found"
    );
    group.bench_function("vcf", |bench| {
        bench.iter_batched(
            || Position::from_board(&b),
            |mut pos| {
                solver.clear();
                black_box(solver.vcf(&mut pos, &ThreatLimits::default()))
            },
            criterion::BatchSize::SmallInput,
        );
    });
    group.finish();
}

criterion_group!(benches, evaluation, search, vcf);
criterion_main!(benches);
