//! The best-first arena search against plain minimax on random synthetic games.

#![allow(clippy::unwrap_used)] // test helpers may panic: that is a failed test

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use search_core::best_first::{BestFirst, BestFirstConfig, Policy};
use search_core::synthetic::RandomGame;
use search_core::{Game, Limits, Outcome, Score, Stats, minimax};

const POLICIES: [Policy; 4] = [
    Policy::Principal,
    Policy::ScoreMinusVisits { visit_weight: 8 },
    Policy::ScoreMinusVisits { visit_weight: 1000 },
    Policy::Uct {
        exploration: 1.0,
        scale: 50.0,
    },
];

fn config(policy: Policy) -> BestFirstConfig {
    BestFirstConfig {
        memory_bytes: 64 << 20,
        policy,
    }
}

/// The exact negamax value with distances, searching every line to its end.
fn exact_value(game: &mut RandomGame, height: u32) -> Score {
    minimax::negamax(game, height + 1, &mut Stats::default())
}

/// Checks an exact best-first score against the negamax value: the same outcome; a draw is 0;
/// a proven win may be counted longer than the quickest one (the search stops at the first
/// proven win), never shorter; dually, a proven loss may be counted longer than the longest
/// resistance, never shorter.
fn agrees(found: Score, exact: Score) -> bool {
    let outcome = |s: Score| s.proven_outcome().unwrap_or(Outcome::Draw);
    outcome(found) == outcome(exact)
        && match outcome(exact) {
            Outcome::Draw => found == Score::DRAW,
            Outcome::Win => found <= exact,
            Outcome::Loss => found >= exact,
        }
}

fn arb_tree() -> impl Strategy<Value = (RandomGame, u32)> {
    (any::<u64>(), 1u32..=7, 1u64..=5)
        .prop_map(|(seed, height, moves)| (RandomGame::new(seed, 1 << 40, height, moves), height))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Expanded completely, every policy finds the exact outcome, and a move that keeps it.
    #[test]
    fn full_expansion_is_minimax((mut game, height) in arb_tree(), p in 0usize..4) {
        let exact = exact_value(&mut game, height);
        let mut search = BestFirst::new(config(POLICIES[p]));
        let r = search.search(&mut game, &Limits::default());
        prop_assert_eq!(game.path(), &[0]);
        prop_assert!(r.exact);
        prop_assert!(!r.stopped && !r.arena_full);
        prop_assert!(agrees(r.score, exact), "{} vs {}", r.score, exact);
        match r.best_move {
            None => {
                let mut moves = Vec::new();
                game.generate_moves(&mut moves);
                prop_assert!(game.outcome().is_some() || moves.is_empty());
            }
            Some(mv) => {
                let root = minimax::solve(&mut game);
                game.play(&mv);
                let after = minimax::solve(&mut game).flip();
                game.undo(&mv);
                prop_assert_eq!(after, root);
                prop_assert_eq!(r.pv.first(), Some(&mv));
            }
        }
    }

    /// Whatever the memory bound, the arena stays inside it and the game is unwound.
    #[test]
    fn memory_bound_respected(seed in any::<u64>(), bytes in 0usize..20_000, p in 0usize..4) {
        let mut game = RandomGame::bushy(seed, 1 << 40, 10, 4);
        let mut search = BestFirst::new(BestFirstConfig { memory_bytes: bytes, policy: POLICIES[p] });
        let r = search.search(&mut game, &Limits::default());
        prop_assert_eq!(game.path(), &[0]);
        prop_assert!(search.arena_bytes() <= bytes.max(BestFirst::<RandomGame>::node_bytes()));
        prop_assert!(r.tree_nodes <= search.capacity());
        // The tree is far larger than 20 KB: the search must say why it stopped.
        prop_assert!(r.arena_full);
        prop_assert!(!r.exact);
        // Reserving everything up front stays inside the bound too.
        let mut reserved = BestFirst::<RandomGame>::new(BestFirstConfig { memory_bytes: bytes, policy: POLICIES[p] });
        reserved.reserve_all();
        prop_assert!(reserved.arena_bytes() <= bytes.max(BestFirst::<RandomGame>::node_bytes()));
        let r2 = reserved.search(&mut game, &Limits::default());
        prop_assert_eq!(r2.tree_nodes, r.tree_nodes);
        // Even with no room for the root's children there is a legal move to play.
        let mut moves = Vec::new();
        game.generate_moves(&mut moves);
        prop_assert!(moves.contains(&r.best_move.unwrap()));
    }

    /// Re-rooting after a move keeps a valid tree: growing it to the end gives the child's
    /// exact value, as a fresh search does.
    #[test]
    fn advance_then_grow_is_exact((mut game, height) in arb_tree(), budget in 1u64..200, p in 0usize..4) {
        let mut search = BestFirst::new(config(POLICIES[p]));
        let r = search.search(&mut game, &Limits::nodes(budget));
        let Some(mv) = r.best_move else { return Ok(()); };
        let kept = search.advance(std::slice::from_ref(&mv));
        prop_assert!(kept <= r.tree_nodes);
        game.play(&mv);
        let exact = exact_value(&mut game, height);
        let r2 = search.grow(&mut game, &Limits::default());
        prop_assert_eq!(game.path().len(), 2);
        prop_assert!(r2.exact);
        prop_assert!(agrees(r2.score, exact), "{} vs {}", r2.score, exact);
        // Growing the kept tree does not redo its work.
        let fresh = BestFirst::new(config(POLICIES[p])).search(&mut game, &Limits::default());
        prop_assert!(r2.stats.nodes <= fresh.stats.nodes);
    }
}

#[test]
fn advance_keeps_the_subtree() {
    let mut game = RandomGame::bushy(7, 1 << 40, 12, 3);
    let mut search = BestFirst::new(config(Policy::Principal));
    let r = search.search(&mut game, &Limits::nodes(5_000));
    assert!(r.stopped);
    let mv = r.best_move.unwrap();
    let reply = r.pv[1];
    let kept = search.advance(&[mv, reply]);
    assert!(
        kept > 1,
        "the principal line was expanded, so its subtree is kept"
    );
    assert!(kept < r.tree_nodes);
    assert_eq!(search.tree_nodes(), kept);
    // The kept tree's root answers like the old tree's node did.
    game.play(&mv);
    game.play(&reply);
    let r2 = search.grow(&mut game, &Limits::nodes(0));
    assert_eq!(r2.best_move.as_ref(), r.pv.get(2));
    // A line that leaves the tree clears it.
    assert_eq!(search.advance(&[u64::MAX]), 0);
    assert_eq!(search.tree_nodes(), 0);
}

#[test]
fn limits_stop_and_unwind() {
    for p in POLICIES {
        let mut game = RandomGame::bushy(3, 1 << 40, 30, 5);
        let mut search = BestFirst::new(config(p));

        let r = search.search(&mut game, &Limits::nodes(1_000));
        assert!(r.stopped && !r.exact);
        assert!(r.max_depth >= 1 && u64::from(r.max_depth) < r.expansions);
        assert_eq!(game.path(), &[0]);
        // Checked after every expansion of at most 6 children.
        assert!(r.stats.nodes < 1_000 + 7);
        assert!(r.best_move.is_some());

        let t = Instant::now();
        let r = search.search(&mut game, &Limits::time(Duration::from_millis(30)));
        assert!(r.stopped);
        assert!(t.elapsed() < Duration::from_millis(500));
        assert_eq!(game.path(), &[0]);

        let stop = Arc::new(AtomicBool::new(true));
        let limits = Limits {
            stop: Some(stop),
            ..Limits::default()
        };
        let r = search.search(&mut game, &limits);
        // The root is always expanded once, then the flag is seen.
        assert!(r.stopped);
        assert_eq!((r.expansions, r.max_depth), (1, 0));
        assert!(r.best_move.is_some());
        assert_eq!(game.path(), &[0]);
    }
}

#[test]
fn finished_game_has_no_move() {
    // Find a root that is already over.
    let seed = (0..1000u64)
        .find(|&s| RandomGame::new(s, 1 << 40, 5, 3).outcome().is_some())
        .unwrap();
    let mut game = RandomGame::new(seed, 1 << 40, 5, 3);
    let r = BestFirst::new(config(Policy::Principal)).search(&mut game, &Limits::default());
    assert!(r.exact);
    assert_eq!(r.best_move, None);
    assert_eq!(
        r.score,
        Score::from_outcome(game.outcome().unwrap(), 0),
        "the root's own outcome"
    );
}

#[test]
fn policies_reach_proven_wins_in_bushy_games() {
    // Bushy games of height 6 end only at the last ply; all policies must solve them.
    for seed in 0..20 {
        let mut game = RandomGame::bushy(seed, 1 << 40, 6, 3);
        let exact = minimax::solve(&mut game);
        for p in POLICIES {
            let r = BestFirst::new(config(p)).search(&mut game, &Limits::default());
            assert!(r.exact);
            let o = r.score.proven_outcome().unwrap_or(Outcome::Draw);
            assert_eq!(o, exact, "seed {seed} policy {p:?}");
        }
    }
}
