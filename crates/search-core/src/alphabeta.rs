//! Depth-limited alpha-beta, with a transposition table and iterative deepening under a budget.
//!
//! [`alpha_beta`] is the bare algorithm (no memory between calls). [`Searcher`] adds what a game
//! engine needs: a bounded transposition table that stores bounds and best moves, best-move-first
//! ordering, iterative deepening, node/time limits, cancellation from another thread, and a
//! principal variation. When a limit stops a search, every move played is still taken back, and
//! the answer is the one from the last finished iteration.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::game::generate_moves;
use crate::{Bound, Evaluate, Keyed, MemoTable, Score, Stats};

/// Fail-soft alpha-beta to `depth` plies, with the game's own move ordering and no memo.
///
/// Within the window `(alpha, beta)` it returns exactly what [`minimax::negamax`] returns; outside
/// it returns a bound on that value (at most `alpha`, or at least `beta`).
///
/// [`minimax::negamax`]: crate::minimax::negamax
pub fn alpha_beta<G: Evaluate>(
    game: &mut G,
    depth: u32,
    alpha: Score,
    beta: Score,
    stats: &mut Stats,
) -> Score {
    ab_plain(game, depth, 0, alpha, beta, stats)
}

fn ab_plain<G: Evaluate>(
    game: &mut G,
    depth: u32,
    ply: u32,
    mut alpha: Score,
    beta: Score,
    stats: &mut Stats,
) -> Score {
    stats.nodes += 1;
    if let Some(o) = game.outcome() {
        stats.terminals += 1;
        return Score::from_outcome(o, ply);
    }
    if depth == 0 {
        return Score::heuristic(game.evaluate());
    }
    let mut moves = Vec::new();
    game.generate_moves(&mut moves);
    if moves.is_empty() {
        return Score::DRAW;
    }
    game.order_moves(&mut moves);
    let mut best = -Score::INFINITY;
    for mv in &moves {
        game.play(mv);
        let v = -ab_plain(game, depth - 1, ply + 1, -beta, -alpha, stats);
        game.undo(mv);
        if v > best {
            best = v;
            alpha = alpha.max(v);
            if alpha >= beta {
                stats.cutoffs += 1;
                break;
            }
        }
    }
    best
}

/// When a [`Searcher`] must stop. Every field is optional; the default searches until the
/// result is exact (which only ends for small games).
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Deepest iteration to run.
    pub depth: Option<u32>,
    /// Stop after about this many nodes (checked every 1024 nodes).
    pub nodes: Option<u64>,
    /// Stop after about this much time.
    pub time: Option<Duration>,
    /// Stop as soon as another thread sets this flag.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Limits {
    /// Search to exactly `depth` plies.
    #[must_use]
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Search for at most `time`.
    #[must_use]
    pub fn time(time: Duration) -> Limits {
        Limits {
            time: Some(time),
            ..Limits::default()
        }
    }

    /// Search at most about `nodes` nodes.
    #[must_use]
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }
}

/// The answer of a [`Searcher`].
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult<M> {
    /// The move to play; `None` only when the game is over or has no move.
    pub best_move: Option<M>,
    /// Its score for the side to move.
    pub score: Score,
    /// Depth of the last finished iteration (0 if none finished).
    pub depth: u32,
    /// The expected line of play, starting with `best_move`.
    pub pv: Vec<M>,
    /// Whether the score is the game's exact value (the tree was searched to its ends).
    pub exact: bool,
    /// Whether a limit stopped the search before it chose to end.
    pub stopped: bool,
    /// What the search did.
    pub stats: Stats,
    /// Wall time spent.
    pub elapsed: Duration,
}

/// Options of a [`Searcher`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchConfig {
    /// Transposition table size in bytes; 0 disables it.
    pub memo_bytes: usize,
    /// Search only one move of each [`move_class`](crate::Game::move_class).
    pub merge_moves: bool,
}

impl Default for SearchConfig {
    /// A 16 MiB transposition table, no move merging.
    fn default() -> Self {
        SearchConfig {
            memo_bytes: 16 << 20,
            merge_moves: false,
        }
    }
}

#[derive(Debug, Clone)]
struct Entry<M> {
    score: Score,
    depth: u32,
    bound: Bound,
    best: Option<M>,
}

impl<M> Default for Entry<M> {
    fn default() -> Self {
        Entry {
            score: Score::DRAW,
            depth: 0,
            bound: Bound::Exact,
            best: None,
        }
    }
}

/// Alpha-beta with a transposition table and iterative deepening.
///
/// ```
/// use search_core::{Evaluate, Game, Keyed, Limits, Outcome, SearchConfig, Searcher};
///
/// /// Take 1, 2 or 3 from a pile; whoever takes the last stone wins.
/// struct Nim(u32);
/// impl Game for Nim {
///     type Move = u32;
///     fn generate_moves(&self, m: &mut Vec<u32>) { m.extend((1..=3).filter(|&k| k <= self.0)) }
///     fn play(&mut self, k: &u32) { self.0 -= k }
///     fn undo(&mut self, k: &u32) { self.0 += k }
///     fn outcome(&self) -> Option<Outcome> { (self.0 == 0).then_some(Outcome::Loss) }
/// }
/// impl Keyed for Nim {
///     type Key = u32;
///     fn key(&self) -> u32 { self.0 }
/// }
/// impl Evaluate for Nim {
///     fn evaluate(&self) -> i32 { 0 }
/// }
///
/// let mut searcher = Searcher::new(SearchConfig::default());
/// let r = searcher.search(&mut Nim(10), &Limits::default());
/// assert!(r.exact);
/// assert_eq!(r.best_move, Some(2));
/// assert_eq!(r.score.to_string(), "win in 5"); // 10 -> 8 -> .. -> 0 in five plies
/// ```
#[derive(Debug)]
pub struct Searcher<G: Keyed + Evaluate> {
    config: SearchConfig,
    memo: Option<MemoTable<G::Key, Entry<G::Move>>>,
    stats: Stats,
    move_stack: Vec<Vec<G::Move>>,
    pv: Vec<Vec<G::Move>>,
    // Per-search state.
    start: Instant,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    stop_flag: Option<Arc<AtomicBool>>,
    stopped: bool,
    hit_horizon: bool,
}

impl<G: Keyed + Evaluate> Searcher<G>
where
    G::Key: Default,
{
    /// A searcher with the given options.
    #[must_use]
    pub fn new(config: SearchConfig) -> Self {
        Searcher {
            config,
            memo: (config.memo_bytes > 0).then(|| MemoTable::with_memory(config.memo_bytes)),
            stats: Stats::default(),
            move_stack: Vec::new(),
            pv: Vec::new(),
            start: Instant::now(),
            deadline: None,
            node_limit: None,
            stop_flag: None,
            stopped: false,
            hit_horizon: false,
        }
    }

    /// Forgets the transposition table (for a new game, say).
    pub fn clear_memo(&mut self) {
        if let Some(m) = &mut self.memo {
            m.clear();
        }
    }

    /// Bytes held by the transposition table.
    #[must_use]
    pub fn memo_bytes(&self) -> usize {
        self.memo.as_ref().map_or(0, MemoTable::memory_bytes)
    }

    /// Iterative deepening from depth 1 until a limit is reached or the value is exact.
    /// `game` is left as it was, also when a limit stops the search.
    pub fn search(&mut self, game: &mut G, limits: &Limits) -> SearchResult<G::Move> {
        self.start = Instant::now();
        self.deadline = limits.time.map(|t| self.start + t);
        self.node_limit = limits.nodes;
        self.stop_flag = limits.stop.clone();
        self.stopped = false;
        self.stats = Stats::default();

        let mut result = SearchResult {
            best_move: None,
            score: Score::DRAW,
            depth: 0,
            pv: Vec::new(),
            exact: false,
            stopped: false,
            stats: Stats::default(),
            elapsed: Duration::ZERO,
        };
        if let Some(o) = game.outcome() {
            result.score = Score::from_outcome(o, 0);
            result.exact = true;
            return result;
        }
        let max_depth = limits.depth.unwrap_or(u32::MAX - 1);
        let mut depth = 1;
        while depth <= max_depth {
            self.hit_horizon = false;
            let score = self.node(game, depth, 0, -Score::INFINITY, Score::INFINITY);
            if self.stopped {
                break;
            }
            result.score = score;
            result.depth = depth;
            result.pv = self.pv.first().cloned().unwrap_or_default();
            result.best_move = result.pv.first().cloned();
            if !self.hit_horizon {
                result.exact = true;
                break;
            }
            depth += 1;
        }
        if result.best_move.is_none() {
            // Stopped before the first iteration finished: still give a legal move.
            let mut moves = Vec::new();
            game.generate_moves(&mut moves);
            game.order_moves(&mut moves);
            result.best_move = moves.into_iter().next();
        }
        result.stopped = self.stopped;
        result.stats = self.stats;
        result.elapsed = self.start.elapsed();
        result
    }

    fn should_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.stats.nodes.is_multiple_of(1024) {
            let over_nodes = self.node_limit.is_some_and(|n| self.stats.nodes >= n);
            let over_time = self.deadline.is_some_and(|d| Instant::now() >= d);
            let flagged = self
                .stop_flag
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed));
            self.stopped = over_nodes || over_time || flagged;
        }
        self.stopped
    }

    fn node(&mut self, game: &mut G, depth: u32, ply: u32, mut alpha: Score, beta: Score) -> Score {
        let p = ply as usize;
        if self.pv.len() <= p {
            self.pv.resize_with(p + 1, Vec::new);
            self.move_stack.resize_with(p + 1, Vec::new);
        }
        self.pv[p].clear();
        self.stats.nodes += 1;
        if self.should_stop() {
            return Score::DRAW;
        }
        if let Some(o) = game.outcome() {
            self.stats.terminals += 1;
            return Score::from_outcome(o, ply);
        }
        if depth == 0 {
            self.hit_horizon = true;
            return Score::heuristic(game.evaluate());
        }

        let key = self.memo.as_ref().map(|_| game.key());
        let mut memo_move = None;
        if let (Some(memo), Some(key)) = (&self.memo, key) {
            self.stats.memo_probes += 1;
            if let Some(e) = memo.get(&key) {
                self.stats.memo_hits += 1;
                memo_move = e.best.clone();
                let s = e.score.from_memo(ply);
                let usable = ply > 0
                    && e.depth >= depth
                    && match e.bound {
                        Bound::Exact => true,
                        Bound::Lower => s >= beta,
                        Bound::Upper => s <= alpha,
                    };
                if usable {
                    self.stats.memo_cutoffs += 1;
                    // A stored entry that was searched past the horizon keeps the flag honest.
                    if e.depth != u32::MAX {
                        self.hit_horizon = true;
                    }
                    return s;
                }
            }
        }

        let mut moves = std::mem::take(&mut self.move_stack[p]);
        self.stats.merged_moves += generate_moves(game, &mut moves, self.config.merge_moves);
        if moves.is_empty() {
            self.move_stack[p] = moves;
            return Score::DRAW;
        }
        game.order_moves(&mut moves);
        if let Some(m) = &memo_move
            && let Some(i) = moves.iter().position(|x| x == m)
        {
            moves[..=i].rotate_right(1);
        }

        let alpha0 = alpha;
        let horizon_before = self.hit_horizon;
        self.hit_horizon = false;
        let mut best = -Score::INFINITY;
        let mut best_move = None;
        for mv in &moves {
            game.play(mv);
            let v = -self.node(game, depth - 1, ply + 1, -beta, -alpha);
            game.undo(mv);
            if self.stopped {
                break;
            }
            if v > best {
                best = v;
                best_move = Some(mv.clone());
                let (head, tail) = self.pv.split_at_mut(p + 1);
                head[p].clear();
                head[p].push(mv.clone());
                head[p].extend_from_slice(&tail[0]);
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        self.stats.cutoffs += 1;
                        break;
                    }
                }
            }
        }
        self.move_stack[p] = moves;
        let subtree_exact = !self.hit_horizon;
        self.hit_horizon |= horizon_before;
        if self.stopped {
            return Score::DRAW;
        }

        if let (Some(memo), Some(key)) = (&mut self.memo, key) {
            let bound = if best <= alpha0 {
                Bound::Upper
            } else if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            // A subtree searched to its ends holds at any depth.
            let stored_depth = if subtree_exact { u32::MAX } else { depth };
            let entry = Entry {
                score: best.to_memo(ply),
                depth: stored_depth,
                bound,
                best: best_move,
            };
            memo.store(key, entry, depth.min(255) as u8);
        }
        best
    }
}
