//! The search enhancements of `Tuning` against plain negamax on random synthetic games.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use proptest::prelude::*;
use search_core::synthetic::RandomGame as Synthetic;
use search_core::{Evaluate, Game, Limits, Score, SearchConfig, Searcher, Stats, Tuning, minimax};

fn arb_tuning() -> impl Strategy<Value = Tuning> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just(None), Just(Some(1)), Just(Some(20)), Just(Some(500))],
    )
        .prop_map(|(pvs, killers, history, aspiration)| Tuning {
            pvs,
            killers,
            history,
            aspiration,
            late_move_reductions: None,
            predict_time: false,
            forcing_extensions: 0,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every combination of PVS, killers, history and aspiration windows gives negamax's
    /// value at a fixed depth on trees (where the memo cannot mix depths).
    #[test]
    fn enhancements_keep_fixed_depth_values(seed in any::<u64>(), height in 1u32..=7,
                                            moves in 2u64..=6, depth in 1u32..=6,
                                            tuning in arb_tuning(), memo in prop_oneof![Just(0usize), Just(1usize << 14)]) {
        let g = Synthetic::new(seed, 1 << 40, height, moves);
        let exact = minimax::negamax(&mut g.clone(), depth, &mut Stats::default());
        let mut s = Searcher::with_tuning(SearchConfig { memo_bytes: memo, merge_moves: false, symmetry: false }, tuning);
        let mut game = g.clone();
        let r = s.search(&mut game, &Limits::depth(depth));
        prop_assert_eq!(r.score, exact, "{:?}", tuning);
        prop_assert_eq!(game.path(), g.path());
        // Every shallower depth agrees too (a fresh memo: a deeper entry may answer a
        // shallower search with better information, by design).
        for d in 1..depth {
            s.clear_memo();
            let r = s.search(&mut game, &Limits::depth(d));
            let e = minimax::negamax(&mut g.clone(), d, &mut Stats::default());
            prop_assert_eq!(r.score, e);
        }
    }

    /// Late move reductions change heuristic values but not solved ones: searched to the end,
    /// the value is negamax's exact value.
    #[test]
    fn reductions_keep_solved_values(seed in any::<u64>(), height in 1u32..=7, moves in 1u64..=5,
                                     after in 1usize..4, min_depth in 2u32..4) {
        let g = Synthetic::new(seed, 12, height, moves);
        let exact = minimax::negamax(&mut g.clone(), 64, &mut Stats::default());
        let tuning = Tuning { late_move_reductions: Some((after, min_depth)), ..Tuning::default() };
        let mut s = Searcher::with_tuning(SearchConfig { memo_bytes: 1 << 12, merge_moves: false, symmetry: false }, tuning);
        let r = s.search(&mut g.clone(), &Limits::default());
        prop_assert!(r.exact);
        prop_assert_eq!(r.score, exact);
    }
}

/// Negamax with forcing extensions: at the horizon, a forcing position is searched one ply
/// deeper while `ply < limit`. The reference for the searcher's extensions.
fn negamax_ext(g: &mut Synthetic, depth: u32, ply: u32, limit: u32) -> Score {
    if let Some(o) = g.outcome() {
        return Score::from_outcome(o, ply);
    }
    let mut depth = depth;
    if depth == 0 {
        if ply < limit && g.is_forcing() {
            depth = 1;
        } else {
            return Score::heuristic(g.evaluate());
        }
    }
    let mut moves = Vec::new();
    g.generate_moves(&mut moves);
    if moves.is_empty() {
        return Score::DRAW;
    }
    let mut best = -Score::INFINITY;
    for m in &moves {
        g.play(m);
        best = best.max(-negamax_ext(g, depth - 1, ply + 1, limit));
        g.undo(m);
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Forcing extensions search exactly the tree of the reference above.
    #[test]
    fn forcing_extensions_match_reference(seed in any::<u64>(), height in 1u32..=8, moves in 2u64..=4,
                                          depth in 1u32..=5, ext in 0u32..=3) {
        let g = Synthetic::new(seed, 1 << 40, height, moves);
        let want = negamax_ext(&mut g.clone(), depth, 0, depth + ext);
        let tuning = Tuning { forcing_extensions: ext, ..Tuning::default() };
        let mut s = Searcher::with_tuning(SearchConfig { memo_bytes: 0, merge_moves: false, symmetry: false }, tuning);
        let r = s.search(&mut g.clone(), &Limits::depth(depth));
        prop_assert_eq!(r.score, want);
    }
}

/// The synthetic game with no forcing position.
#[derive(Clone)]
struct Calm(Synthetic);

impl Game for Calm {
    type Move = u64;
    fn generate_moves(&self, moves: &mut Vec<u64>) {
        self.0.generate_moves(moves);
    }
    fn play(&mut self, mv: &u64) {
        self.0.play(mv);
    }
    fn undo(&mut self, mv: &u64) {
        self.0.undo(mv);
    }
    fn outcome(&self) -> Option<search_core::Outcome> {
        self.0.outcome()
    }
    fn move_class(&self, mv: &u64) -> Option<u64> {
        self.0.move_class(mv)
    }
    fn order_moves(&self, moves: &mut [u64]) {
        self.0.order_moves(moves);
    }
    fn history_slot(&self, mv: &u64) -> Option<usize> {
        self.0.history_slot(mv)
    }
}

impl search_core::Keyed for Calm {
    type Key = u64;
    fn key(&self) -> u64 {
        self.0.key()
    }
    fn symmetric_keys(&self, keys: &mut Vec<u64>) {
        self.0.symmetric_keys(keys);
    }
}

impl Evaluate for Calm {
    fn evaluate(&self) -> i32 {
        self.0.evaluate()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// With extensions off, forcing positions are evaluated like any other, also at the
    /// early horizon of a reduced line.
    #[test]
    fn no_extensions_means_none_under_reductions(seed in any::<u64>(), depth in 2u32..=6) {
        let tuning = Tuning { late_move_reductions: Some((1, 2)), forcing_extensions: 0, ..Tuning::default() };
        let g = Synthetic::bushy(seed, 1 << 40, 12, 3);
        let config = SearchConfig { memo_bytes: 0, merge_moves: false, symmetry: false };
        let forcing = Searcher::with_tuning(config, tuning).search(&mut g.clone(), &Limits::depth(depth));
        let calm = Searcher::with_tuning(config, tuning).search(&mut Calm(g), &Limits::depth(depth));
        prop_assert_eq!(forcing.score, calm.score);
        prop_assert_eq!(forcing.stats.nodes, calm.stats.nodes);
    }
}

/// Time prediction: an iteration that cannot finish is not started, so the search ends
/// before the limit (not at it), and never long after it; without prediction it runs to the
/// limit.
#[test]
fn time_prediction_stops_early_and_never_late() {
    let mut early = 0;
    for limit_ms in [20u64, 60, 150] {
        let limit = Duration::from_millis(limit_ms);
        for predict_time in [true, false] {
            let mut g = Synthetic::bushy(5, 1 << 40, 60, 7);
            let tuning = Tuning {
                predict_time,
                ..Tuning::default()
            };
            let mut s = Searcher::with_tuning(SearchConfig::default(), tuning);
            let t = Instant::now();
            let r = s.search(&mut g, &Limits::time(limit));
            let took = t.elapsed();
            assert!(r.stopped && r.best_move.is_some());
            // The clock is read every 256 nodes: a little past the limit, and more when the
            // thread waits for a core on a busy machine (the game itself would take ages).
            assert!(
                took < limit + Duration::from_millis(250),
                "{took:?} for {limit:?}"
            );
            assert!(r.depth >= 2);
            if predict_time {
                early += usize::from(took < limit);
            } else {
                assert!(took >= limit, "{took:?} for {limit:?} without prediction");
            }
        }
    }
    // On a busy machine one prediction may miss; all three would mean it does nothing.
    assert!(
        early >= 1,
        "prediction never stopped a search before its limit"
    );
}

/// Nim (take 1 to 3; whoever takes the last stone wins) under a key that makes two heaps
/// collide: a broken [`search_core::Keyed`] contract, which no search can detect.
#[derive(Debug, Clone)]
struct CollidingNim(u32);

impl Game for CollidingNim {
    type Move = u32;
    fn generate_moves(&self, moves: &mut Vec<u32>) {
        moves.extend((1..=self.0.min(3)).rev());
    }
    fn play(&mut self, k: &u32) {
        self.0 -= k;
    }
    fn undo(&mut self, k: &u32) {
        self.0 += k;
    }
    fn outcome(&self) -> Option<search_core::Outcome> {
        (self.0 == 0).then_some(search_core::Outcome::Loss)
    }
}

impl search_core::Keyed for CollidingNim {
    type Key = u32;
    fn key(&self) -> u32 {
        self.0 / 2
    }
}

impl Evaluate for CollidingNim {
    fn evaluate(&self) -> i32 {
        0
    }
}

/// Without limits a search deepens until its result is exact; colliding keys can keep it
/// from ever being exact, and the depth cap then ends it, reported as stopped.
#[test]
fn an_unbounded_search_ends_even_when_keys_collide() {
    let mut s = Searcher::new(SearchConfig::default());
    let t = Instant::now();
    let r = s.search(&mut CollidingNim(10), &Limits::default());
    assert!(t.elapsed() < Duration::from_secs(60));
    assert!(
        !r.exact && r.stopped && r.depth == Limits::MAX_DEPTH,
        "{r:?}"
    );
    assert!(r.best_move.is_some());
    // Asked for no depth at all, the search still names a legal move, as its line of play.
    let r = s.search(&mut CollidingNim(10), &Limits::depth(0));
    assert_eq!(r.pv, r.best_move.into_iter().collect::<Vec<_>>());
}

/// A soft limit ends iterative deepening after the first iteration that passes it.
#[test]
fn soft_time_limit() {
    let mut g = Synthetic::bushy(9, 1 << 40, 60, 6);
    let mut s = Searcher::with_tuning(SearchConfig::default(), Tuning::PLAIN);
    let limits = Limits {
        time: Some(Duration::from_secs(5)),
        soft_time: Some(Duration::from_millis(5)),
        ..Limits::default()
    };
    let r = s.search(&mut g, &limits);
    assert!(r.stopped && r.best_move.is_some());
    assert!(r.elapsed < Duration::from_secs(2));
}

/// On random trees (values uncorrelated, so no ordering can help) the enhancements agree with
/// plain alpha-beta and count their re-searches. Their savings are measured on Gomoku.
#[test]
fn enhancements_agree_with_plain_search() {
    let mut plain_nodes = 0;
    let mut tuned_nodes = 0;
    let mut researches = 0;
    for seed in 0..20 {
        let g = Synthetic::bushy(seed, 1 << 40, 40, 8);
        let mut plain = Searcher::with_tuning(SearchConfig::default(), Tuning::PLAIN);
        let mut tuned = Searcher::new(SearchConfig::default());
        let a = plain.search(&mut g.clone(), &Limits::depth(6));
        let b = tuned.search(&mut g.clone(), &Limits::depth(6));
        assert_eq!(a.score, b.score);
        plain_nodes += a.stats.nodes;
        tuned_nodes += b.stats.nodes;
        researches += b.stats.researches;
    }
    assert!(plain_nodes > 0 && tuned_nodes > 0);
    assert!(researches > 0);
}
