//! Every optimised search against plain minimax on random synthetic games.
//!
//! The synthetic game ([`search_core::synthetic::RandomGame`]) exercises every facility of the
//! crate: transpositions, move classes, symmetry, heuristic leaves and move ordering.

#![allow(clippy::unwrap_used)] // test helpers may panic: that is a failed test

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use proptest::prelude::*;
use search_core::synthetic::RandomGame as Synthetic;
use search_core::{
    Game, Limits, Outcome, Score, SearchConfig, Searcher, Solver, SolverConfig, Stats, alpha_beta,
    minimax,
};

fn arb_game(tree: bool) -> impl Strategy<Value = Synthetic> {
    let width = if tree { 1u64 << 40 } else { 12 };
    (any::<u64>(), 1u32..=7, 1u64..=5)
        .prop_map(move |(seed, height, moves)| Synthetic::new(seed, width, height, moves))
}

/// Games deep enough that solving them takes some thousands of nodes.
fn arb_deep_game() -> impl Strategy<Value = Synthetic> {
    (any::<u64>(), 10u32..=16, 3u64..=5)
        .prop_map(|(seed, height, moves)| Synthetic::bushy(seed, 200, height, moves))
}

const CONFIGS: [SolverConfig; 5] = [
    SolverConfig::PLAIN,
    SolverConfig {
        merge_moves: true,
        memo_bytes: 0,
        symmetry: false,
        order_moves: false,
    },
    SolverConfig {
        merge_moves: false,
        memo_bytes: 1 << 12,
        symmetry: false,
        order_moves: false,
    },
    SolverConfig {
        merge_moves: true,
        memo_bytes: 1 << 16,
        symmetry: true,
        order_moves: true,
    },
    // A tiny memo forces constant replacement.
    SolverConfig {
        merge_moves: true,
        memo_bytes: 64,
        symmetry: true,
        order_moves: true,
    },
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The solver, at every configuration, returns plain minimax's result, and leaves the
    /// position untouched.
    #[test]
    fn solver_matches_minimax(g in arb_game(false)) {
        let expected = minimax::solve(&mut g.clone());
        for config in CONFIGS {
            let mut solver = Solver::new(config);
            let mut game = g.clone();
            prop_assert_eq!(solver.solve(&mut game), expected, "{:?}", config);
            prop_assert_eq!(game.path(), g.path());
            // Solving again with a warm memo changes nothing.
            prop_assert_eq!(solver.solve(&mut game), expected);
            // Move values at the root, from the solver and from plain minimax through the
            // free function; the best of them is the root's value.
            let by_minimax = search_core::move_values_by(&mut game, minimax::solve);
            prop_assert_eq!(solver.move_values(&mut game), by_minimax.clone());
            prop_assert_eq!(game.path(), g.path());
            let best = by_minimax.iter().map(|&(_, v)| v).max();
            prop_assert_eq!(best.unwrap_or(expected), expected);
            let line = solver.principal_line(&mut game);
            for mv in &line {
                game.play(mv);
            }
            let end = game.outcome().unwrap_or(Outcome::Draw);
            let at_root = if line.len() % 2 == 0 { end } else { end.flip() };
            prop_assert_eq!(at_root, expected, "the principal line realises the value");
        }
    }

    /// Alpha-beta (plain, and the memo searcher at a fixed depth on trees) returns exactly
    /// negamax's value, and fail-soft bounds outside the window.
    #[test]
    fn alpha_beta_matches_negamax_on_trees(g in arb_game(true), depth in 0u32..=7, a in -120i32..=120, w in 1i32..=80) {
        let mut stats = Stats::default();
        let exact = minimax::negamax(&mut g.clone(), depth, &mut stats);
        let full = alpha_beta(&mut g.clone(), depth, -Score::INFINITY, Score::INFINITY, &mut Stats::default());
        prop_assert_eq!(full, exact);
        let (alpha, beta) = (Score(a), Score(a + w));
        let v = alpha_beta(&mut g.clone(), depth, alpha, beta, &mut Stats::default());
        if v <= alpha {
            prop_assert!(exact <= v);
        } else if v >= beta {
            prop_assert!(exact >= v);
        } else {
            prop_assert_eq!(v, exact);
        }
        if depth > 0 && g.clone().outcome().is_none() {
            let mut s = Searcher::new(SearchConfig { memo_bytes: 1 << 14, merge_moves: false, symmetry: false });
            let r = s.search(&mut g.clone(), &Limits::depth(depth));
            prop_assert_eq!(r.score, exact);
            // The principal variation's first move is a move whose value is the score.
            if let Some(m) = r.best_move {
                let mut h = g.clone();
                h.play(&m);
                let child = -minimax::negamax(&mut h, depth - 1, &mut Stats::default());
                // Negamax counts the child's proven distances from the child: one ply more
                // from the root.
                prop_assert_eq!(child.from_memo(1), exact);
            }
        }
    }

    /// With transpositions, the memo searcher run to the end returns the exact value with the
    /// exact distance to the end, like unbounded negamax.
    #[test]
    fn searcher_solves_dags_exactly(g in arb_game(false), merge in any::<bool>(), bytes in 0usize..5000) {
        let exact = minimax::negamax(&mut g.clone(), 64, &mut Stats::default());
        let mut s = Searcher::new(SearchConfig { memo_bytes: bytes, merge_moves: merge, symmetry: false });
        let mut game = g.clone();
        let r = s.search(&mut game, &Limits::default());
        prop_assert!(r.exact);
        prop_assert_eq!(r.score, exact);
        prop_assert_eq!(game.path(), g.path());
        // A second search reuses the table and still agrees.
        prop_assert_eq!(s.search(&mut game, &Limits::default()).score, exact);
    }

    /// Every root move's score equals minus negamax's value of its position, shifted by the
    /// move: at a fixed depth on trees (each move searched that deep below it), and exactly
    /// with transpositions; the best of them is the root's value.
    #[test]
    fn move_scores_match_negamax(g in arb_game(true), d in arb_game(false), depth in 1u32..=5) {
        let mut s = Searcher::new(SearchConfig { memo_bytes: 1 << 14, merge_moves: false, symmetry: false });
        for (game, limits, plies) in [(g, Limits::depth(depth), depth), (d, Limits::default(), 64)] {
            let mut game = game;
            let scores = s.move_scores(&mut game.clone(), &limits);
            let mut moves = Vec::new();
            if game.outcome().is_none() {
                game.generate_moves(&mut moves);
            }
            prop_assert_eq!(scores.len(), moves.len());
            for (m, got) in moves.iter().zip(&scores) {
                prop_assert_eq!(&got.mv, m);
                game.play(m);
                let child = -minimax::negamax(&mut game, plies, &mut Stats::default());
                game.undo(m);
                prop_assert_eq!(got.score, child.from_memo(1), "move {}", m);
            }
            if plies == 64 && !scores.is_empty() {
                prop_assert!(scores.iter().all(|x| x.exact));
                let best = scores.iter().map(|x| x.score).max().unwrap();
                let root = minimax::negamax(&mut game, plies, &mut Stats::default());
                prop_assert_eq!(best, root);
            }
        }
    }

    /// With a depth limit of 0 nothing below the moves is searched: each score is a draw
    /// that says nothing, at depth 0, except where the move ends the game (exact, depth 1).
    #[test]
    fn move_scores_at_depth_zero_claim_nothing(g in arb_game(false)) {
        let mut s = Searcher::new(SearchConfig { memo_bytes: 1 << 14, merge_moves: false, symmetry: false });
        let mut game = g;
        for got in s.move_scores(&mut game.clone(), &Limits::depth(0)) {
            game.play(&got.mv);
            let over = game.outcome().is_some();
            game.undo(&got.mv);
            if over {
                prop_assert!(got.exact);
                prop_assert_eq!(got.depth, 1);
            } else {
                prop_assert!(!got.exact);
                prop_assert_eq!((got.score, got.depth), (Score::DRAW, 0));
            }
        }
    }

    /// A search stopped part way leaves nothing false in the table: the same searcher, run
    /// to the end afterwards, still returns negamax's exact value.
    #[test]
    fn a_stopped_search_leaves_a_sound_table(
        g in arb_game(false),
        merge in any::<bool>(),
        bytes in 64usize..5000,
        nodes in 1u64..400,
    ) {
        let exact = minimax::negamax(&mut g.clone(), 64, &mut Stats::default());
        let mut s = Searcher::new(SearchConfig { memo_bytes: bytes, merge_moves: merge, symmetry: false });
        let mut game = g.clone();
        s.search(&mut game, &Limits::nodes(nodes));
        prop_assert_eq!(game.path(), g.path());
        let r = s.search(&mut game, &Limits::default());
        prop_assert!(r.exact);
        prop_assert_eq!(r.score, exact);
    }

    /// Stopping on a node budget or a raised flag always unwinds every move and still
    /// answers with a legal move.
    #[test]
    fn stopped_searches_unwind(g in arb_game(true), nodes in 1u64..3000) {
        let mut s = Searcher::new(SearchConfig::default());
        let mut game = g.clone();
        let mut legal = Vec::new();
        game.generate_moves(&mut legal);
        let r = s.search(&mut game, &Limits::nodes(nodes));
        prop_assert_eq!(game.path(), g.path());
        if g.outcome().is_none() && !legal.is_empty() {
            prop_assert!(r.best_move.is_some_and(|m| legal.contains(&m)));
        }
        let flag = Arc::new(AtomicBool::new(true));
        let r = s.search(&mut game, &Limits { stop: Some(flag), ..Limits::default() });
        prop_assert_eq!(game.path(), g.path());
        // The raised flag is seen at the first check, after at most 256 nodes: only a
        // search that small can finish, exactly.
        prop_assert!(r.stats.nodes <= 256, "{} nodes", r.stats.nodes);
        prop_assert!(r.stopped || r.exact);
    }
}

#[test]
fn time_limit_stops_a_deep_search() {
    // Wide and deep: far too big to finish.
    let mut g = Synthetic::bushy(7, 1 << 40, 60, 8);
    let mut s = Searcher::new(SearchConfig::default());
    let r = s.search(&mut g, &Limits::time(std::time::Duration::from_millis(50)));
    assert!(r.stopped && !r.exact);
    assert!(r.elapsed < std::time::Duration::from_millis(1000));
    assert!(r.depth >= 2 && r.best_move.is_some());
    assert_eq!(g.path(), &[0]);
}

#[test]
fn memo_and_merging_reduce_work() {
    let g = Synthetic::bushy(11, 40, 14, 4);
    let mut plain = Solver::new(SolverConfig::PLAIN);
    let mut full = Solver::new(SolverConfig::full(1 << 16));
    assert_eq!(plain.solve(&mut g.clone()), full.solve(&mut g.clone()));
    assert!(
        full.stats().nodes * 4 < plain.stats().nodes,
        "{} vs {}",
        full.stats(),
        plain.stats()
    );
    assert!(full.stats().memo_hits > 0 && full.stats().merged_moves > 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A search stopped by a node limit answers with the last finished iteration's move, or
    /// with a root move that the unfinished iteration had proven better than that one: by
    /// plain negamax at the unfinished depth, it is worth more. Without a memo the previous
    /// best is not the memo's move, so the searcher must put it first itself.
    #[test]
    fn a_stopped_search_never_trades_its_move_down(
        seed in any::<u64>(),
        height in 4u32..=9,
        moves in 2u64..=5,
        nodes in 300u64..20_000,
        aspiration in any::<bool>(),
    ) {
        let tuning = search_core::Tuning {
            aspiration: aspiration.then_some(1),
            ..search_core::Tuning::default()
        };
        let config = SearchConfig { memo_bytes: 0, merge_moves: false, symmetry: false };
        let game = Synthetic::bushy(seed, 1 << 40, height, moves);
        let r = Searcher::with_tuning(config, tuning).search(&mut game.clone(), &Limits::nodes(nodes));
        if r.stopped && r.depth > 0 {
            // The same searcher, fresh, stopped at the finished depth instead.
            let finished = Searcher::with_tuning(config, tuning)
                .search(&mut game.clone(), &Limits::depth(r.depth));
            prop_assert_eq!(finished.depth, r.depth);
            let (chosen, previous) = (r.best_move.unwrap(), finished.best_move.unwrap());
            if chosen != previous {
                let value = |m: &u64| {
                    let mut g = game.clone();
                    g.play(m);
                    -minimax::negamax(&mut g, r.depth, &mut Stats::default())
                };
                prop_assert!(value(&chosen) > value(&previous), "{chosen} vs {previous}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A solve stopped by its node budget answers nothing, stays within the budget (checked
    /// every 256 nodes), unwinds every move and leaves the memo sound: solving on with larger
    /// budgets ends in the value of an unlimited solve; a raised flag stops it at the first
    /// check.
    #[test]
    fn a_stopped_solve_leaves_a_sound_memo(g in arb_deep_game(), nodes in 1u64..600) {
        // (Too many nodes for plain minimax: the memo solver, checked against it above.)
        let mut reference = Solver::new(SolverConfig::full(1 << 20));
        let expected = reference.solve(&mut g.clone());
        for config in CONFIGS {
            let mut solver = Solver::new(config);
            let mut game = g.clone();
            let mut budget = nodes;
            let value = loop {
                let before = solver.stats().nodes;
                let v = solver.solve_within(&mut game, &Limits::nodes(budget));
                prop_assert_eq!(game.path(), g.path());
                let used = solver.stats().nodes - before;
                prop_assert!(used < budget + 256, "{} nodes for {}", used, budget);
                if let Some(v) = v {
                    break v;
                }
                prop_assert!(used >= budget, "stopped after {} nodes of {}", used, budget);
                budget *= 2;
            };
            prop_assert_eq!(value, expected, "{:?}", config);
            prop_assert_eq!(solver.solve(&mut game), expected);
            let flag = Arc::new(AtomicBool::new(true));
            let mut fresh = Solver::new(config);
            let v = fresh.solve_within(&mut game, &Limits { stop: Some(flag), ..Limits::default() });
            prop_assert_eq!(game.path(), g.path());
            prop_assert!(fresh.stats().nodes <= 256);
            prop_assert!(v.is_none_or(|v| v == expected));
        }
    }
}
