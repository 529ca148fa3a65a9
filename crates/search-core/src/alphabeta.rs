//! Depth-limited alpha-beta, with a transposition table and iterative deepening under a budget.
//!
//! [`alpha_beta`] is the bare algorithm (no memory between calls). [`Searcher`] adds what a game
//! engine needs: a bounded transposition table that stores bounds and best moves, best-move-first
//! ordering, iterative deepening, node/time limits, cancellation from another thread, a
//! principal variation, and mate-distance pruning (a line that could only end in a later win
//! than one already proven, or an earlier loss, is cut at once, so a proven result ends the
//! deepening instead of every other line being searched to each new horizon). When a limit
//! stops a search, every move played is still taken back, and the answer is the one from the
//! last finished iteration (or a root move the unfinished iteration had already proven better
//! than that one, which it searches first).
//!
//! On top of that, [`Tuning`] selects the classical enhancements, each of which a wide game
//! such as Gomoku needs to search deep:
//!
//! - principal variation search: after the first move, prove the others worse with a null
//!   window and re-search only those that are not;
//! - killer moves (two per ply: moves that caused a cutoff in a sibling position) and the
//!   history heuristic (moves that caused cutoffs anywhere, weighted by depth squared), for
//!   ordering after the memo's best move;
//! - aspiration windows: each iteration first searches a window around the previous score and
//!   widens only if the value falls outside;
//! - late move reductions (off by default: they trade exactness for depth);
//! - forcing extensions (off by default): positions that must answer a threat are searched
//!   beyond the horizon instead of evaluated there;
//! - time management: iterative deepening does not start an iteration that the growth of the
//!   previous ones predicts cannot finish in the time left.
//!
//! All but the reductions and forcing extensions (which search some lines deeper, so they
//! change what a fixed depth means) leave the value of a fixed-depth search unchanged on a
//! tree, or with no transposition table (tested against plain negamax). With the table, a
//! position reached again at a shallower ply may be answered by its deeper search, or by one
//! from an earlier search, so the value can differ from negamax's at that depth (and, since
//! the enhancements change the order of visits, differ between tunings).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::game::{generate_moves, memo_key, memo_wanted, merge_classes};
use crate::{Bound, Evaluate, Keyed, MemoTable, Outcome, Score, Stats};

/// Fail-soft alpha-beta to `depth` plies, with the game's own move ordering and no memo.
///
/// Within the window `(alpha, beta)` it returns exactly what [`minimax::negamax`] returns; outside
/// it returns a bound on that value (at most `alpha`, or at least `beta`). The window must
/// be open, `alpha < beta` (`-Score::INFINITY` and `Score::INFINITY` for the exact value): an
/// empty or inverted one leaves no value inside it, and the result then bounds nothing.
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
/// result is exact (which only ends in reasonable time for small games), or to
/// [`Limits::MAX_DEPTH`] plies. Small means short as well as few positions: each iteration
/// searches again one ply deeper, so a game whose lines run to hundreds of plies costs
/// hundreds of searches even with a table that holds every position, where the
/// [`Solver`](crate::Solver) needs one pass.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Deepest iteration to run (without it, [`Limits::MAX_DEPTH`]).
    pub depth: Option<u32>,
    /// Stop after about this many nodes (checked every 256 nodes, with the clock and the
    /// stop flag; [`BestFirst`](crate::best_first::BestFirst) checks after each expansion,
    /// which adds up to one node's children).
    pub nodes: Option<u64>,
    /// Stop after about this much time. The clock is read at the checks of
    /// [`Limits::nodes`] (every 256 nodes), so a game whose nodes are slow overruns by up to
    /// 256 of them; with [`Tuning::predict_time`] on, an iteration that looks unlikely
    /// to finish in time is not started, so a search usually stops well before.
    pub time: Option<Duration>,
    /// Stop once another thread sets this flag (seen at the next check, as for
    /// [`Limits::nodes`]).
    pub stop: Option<Arc<AtomicBool>>,
    /// Start no new iteration after this much time (the current one may run on to
    /// [`Limits::time`]).
    pub soft_time: Option<Duration>,
}

/// The hard limits of one search, read from [`Limits`]: a node count, a deadline and a stop
/// flag, checked together (every 256 nodes, by each search) by [`Searcher`],
/// [`BestFirst`](crate::best_first::BestFirst) and [`crate::Solver::solve_within`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Halt {
    nodes: Option<u64>,
    deadline: Option<Instant>,
    flag: Option<Arc<AtomicBool>>,
}

impl Halt {
    /// The limits of a search started at `start` whose node count stands at `spent`. A time
    /// too far off to represent is no limit.
    pub(crate) fn new(limits: &Limits, start: Instant, spent: u64) -> Halt {
        Halt {
            nodes: limits.nodes.map(|n| spent.saturating_add(n)),
            deadline: limits.time.and_then(|t| start.checked_add(t)),
            flag: limits.stop.clone(),
        }
    }

    /// Whether a limit is reached with the node count at `nodes`.
    pub(crate) fn reached(&self, nodes: u64) -> bool {
        self.nodes.is_some_and(|n| nodes >= n)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || self
                .flag
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
    }
}

impl Limits {
    /// The deepest iteration a search runs when [`Limits::depth`] is not set: more plies than
    /// any game of this workspace lasts (TwoFour's longest, 8190). A game searched to this
    /// depth without an exact result has lines longer than this, keys that collide,
    /// positions that repeat, or a selective move generator
    /// ([`Game::is_selective`](crate::Game::is_selective)) under every line; the search then
    /// ends with [`SearchResult::stopped`] set, where it would
    /// otherwise deepen forever.
    ///
    /// A search that deepens this far needs a stack to match: in a spawned thread with the
    /// default 2 MiB, even a release build of a simple game can overflow before it (see
    /// [`Searcher`]); set [`Limits::depth`] or a larger stack for games whose lines are
    /// long.
    pub const MAX_DEPTH: u32 = 10_000;

    /// Search to exactly `depth` plies.
    #[must_use]
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Search for about `time` (see the field of that name for how closely it is kept).
    #[must_use]
    pub fn time(time: Duration) -> Limits {
        Limits {
            time: Some(time),
            ..Limits::default()
        }
    }

    /// Search at most about `nodes` nodes: the count is checked every 256 nodes, so a search
    /// may pass it by up to 255, and `Limits::nodes(0)` still searches a few hundred.
    #[must_use]
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// These limits with a depth limit as well: limits combine, the first reached stops.
    ///
    /// ```
    /// use std::time::Duration;
    /// use search_core::Limits;
    /// let l = Limits::nodes(100_000).with_time(Duration::from_millis(50)).with_depth(12);
    /// assert_eq!((l.nodes, l.time, l.depth), (Some(100_000), Some(Duration::from_millis(50)), Some(12)));
    /// ```
    #[must_use]
    pub fn with_depth(self, depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..self
        }
    }

    /// These limits with a time limit as well ([`Limits::time`]).
    #[must_use]
    pub fn with_time(self, time: Duration) -> Limits {
        Limits {
            time: Some(time),
            ..self
        }
    }

    /// These limits with a node limit as well ([`Limits::nodes`]).
    #[must_use]
    pub fn with_nodes(self, nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..self
        }
    }

    /// These limits with a stop flag as well ([`Limits::stop`]).
    #[must_use]
    pub fn with_stop(self, stop: Arc<AtomicBool>) -> Limits {
        Limits {
            stop: Some(stop),
            ..self
        }
    }

    /// These limits with a soft time limit as well ([`Limits::soft_time`]).
    #[must_use]
    pub fn with_soft_time(self, soft_time: Duration) -> Limits {
        Limits {
            soft_time: Some(soft_time),
            ..self
        }
    }
}

/// The answer of a [`Searcher`].
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult<M> {
    /// The move to play; `None` only when the game is over or has no move. When no iteration
    /// finished (a limit before the first, or a depth limit of 0), the root move the
    /// unfinished first iteration found better than the first one searched, if any, and
    /// otherwise the first move of the game's own order: a legal move, not a searched one.
    pub best_move: Option<M>,
    /// Its score for the side to move, from the last finished iteration. When a limit stopped
    /// the next iteration after a root move had proven better than the previous best (which
    /// that iteration searches first), the move is that one and the score its value at the
    /// unfinished depth, a lower bound if it failed high against an aspiration window (in
    /// the first iteration, a root move that beat the first one searched). When no
    /// iteration finished and no such move was found (a limit before the first, or a depth
    /// limit of 0), it is [`Score::DRAW`] and says nothing.
    ///
    /// In a game that generates every move ([`Game::is_selective`](crate::Game::is_selective)
    /// false), a proven win or loss holds whatever `exact` says, and its distance is the
    /// game's when `exact` is set (otherwise it may rest on table entries that earlier
    /// searches left at other depths, and be a few plies off). In a selective game a score
    /// short of an exact result proves nothing: a loss may be that of the moves looked at.
    pub score: Score,
    /// Depth of the last finished iteration (0 if none finished).
    pub depth: u32,
    /// The expected line of play, starting with `best_move`, at most as long as the last
    /// finished iteration was deep (unless extensions searched further), and for a proven win
    /// or loss at most as long as its distance; when no iteration finished, just the fallback
    /// `best_move`. Where it reaches a position the transposition
    /// table answered, it goes on with the moves of the table's exact entries, and so may end
    /// early where the table holds none (or was overwritten): with a table kept from earlier
    /// searches, a proven line can be much shorter than its distance.
    /// ([`Solver::principal_line`](crate::Solver::principal_line) gives a whole line of an
    /// exactly solved game.)
    pub pv: Vec<M>,
    /// Whether the score is the game's exact value (every line was searched to its end, or
    /// cut where no end could change the value).
    pub exact: bool,
    /// Whether a limit stopped the search before it chose to end.
    pub stopped: bool,
    /// What the search did.
    pub stats: Stats,
    /// Wall time spent.
    pub elapsed: Duration,
}

/// One move's value, as [`Searcher::move_scores`] gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveScore<M> {
    /// The move.
    pub mv: M,
    /// Its score for the side to move before it (proven results count the move itself: a
    /// move that wins at once is a win in 1).
    pub score: Score,
    /// Whether the score is the move's exact value.
    pub exact: bool,
    /// Plies searched, the move included (1 more than the search of its position), or 0
    /// when that search finished no iteration (a depth limit of 0, or a limit before the
    /// first): then the score is [`Score::DRAW`] and says nothing.
    pub depth: u32,
    /// Whether a limit stopped the search of its position.
    pub stopped: bool,
}

impl<M> SearchResult<M> {
    /// The game's outcome for the side to move when the result is
    /// [`exact`](SearchResult::exact): win, loss or draw (a score of 0 is a draw only then,
    /// and [`Score::proven_outcome`] leaves it out). `None` short of an exact result, even
    /// where the score is a proven win or loss: that holds for a game that generates every
    /// move (see [`SearchResult::score`]), not for a selective one.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        self.exact
            .then(|| self.score.proven_outcome().unwrap_or(Outcome::Draw))
    }
}

/// Options of a [`Searcher`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchConfig {
    /// Transposition table size in bytes; 0 disables it, and so does a game whose
    /// [`Keyed::Key`] has size zero, such as `()` (a game without a key of its own).
    pub memo_bytes: usize,
    /// Search only one move of each [`move_class`](crate::Game::move_class).
    pub merge_moves: bool,
    /// Store and look up positions under their smallest symmetric key
    /// ([`Keyed::symmetric_keys`]), as the [`Solver`](crate::Solver) does with
    /// [`SolverConfig::symmetry`](crate::SolverConfig::symmetry): one game type then serves
    /// both with symmetry, its [`Keyed::key`] left plain. (A [`Keyed::key`] that is itself
    /// canonical does the same for the searcher alone, without the extra keys a node.)
    pub symmetry: bool,
}

impl Default for SearchConfig {
    /// A 16 MiB transposition table, no move merging, no symmetry. [`Searcher::new`] allocates
    /// and fills the whole table when it is made: a program that makes many searchers for small
    /// games gives them smaller tables, or keeps one searcher.
    fn default() -> Self {
        SearchConfig {
            memo_bytes: 16 << 20,
            merge_moves: false,
            symmetry: false,
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

/// The search enhancements of a [`Searcher`] (see the module docs). The default enables
/// everything that keeps fixed-depth values exact (on trees, or without a transposition
/// table): PVS, killers, history, aspiration windows and time prediction; late move
/// reductions are off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// Principal variation search (null-window searches after the first move).
    pub pvs: bool,
    /// Killer moves: two per ply, tried right after the memo's move.
    pub killers: bool,
    /// History heuristic: the remaining moves are stably sorted by cutoff history. The game's
    /// [`Game::history_slot`](crate::Game::history_slot) must number its moves.
    pub history: bool,
    /// Aspiration window half-width around the previous iteration's score, from depth 3 on.
    pub aspiration: Option<i32>,
    /// Late move reductions: `(after, min_depth)` reduces by one ply the moves after the first
    /// `after` (not the memo move or killers) at depths of at least `min_depth`; a reduced move
    /// that looks better than alpha is searched again at full depth. Only with [`Tuning::pvs`]:
    /// the reduced search is the principal variation search's null-window probe.
    pub late_move_reductions: Option<(usize, u32)>,
    /// Do not start an iteration predicted (from the time the previous ones took) to overrun
    /// the time limit.
    pub predict_time: bool,
    /// At the horizon, search [`Game::is_forcing`](crate::Game::is_forcing) positions one ply
    /// deeper (at most this many plies beyond the iteration's depth) instead of evaluating
    /// them. 0 disables.
    pub forcing_extensions: u32,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            pvs: true,
            killers: true,
            history: true,
            aspiration: Some(50),
            late_move_reductions: None,
            predict_time: true,
            forcing_extensions: 0,
        }
    }
}

impl Tuning {
    /// No enhancement: plain alpha-beta with the memo, as a baseline for measurements.
    pub const PLAIN: Tuning = Tuning {
        pvs: false,
        killers: false,
        history: false,
        aspiration: None,
        late_move_reductions: None,
        predict_time: false,
        forcing_extensions: 0,
    };
}

/// Alpha-beta with a transposition table and iterative deepening.
///
/// The search recurses once a ply, so its stack grows with the iteration's depth: a search
/// that deepens to thousands of plies (up to [`Limits::MAX_DEPTH`] when no depth is set, in a
/// game whose lines are long) wants more stack than a spawned thread's default of 2 MiB (see
/// [`std::thread::Builder::stack_size`]), in debug builds above all; [`Limits::depth`] bounds
/// it.
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
/// assert_eq!(r.outcome(), Some(Outcome::Win));
/// ```
#[derive(Debug)]
pub struct Searcher<G: Keyed + Evaluate> {
    config: SearchConfig,
    tuning: Tuning,
    memo: Option<MemoTable<G::Key, Entry<G::Move>>>,
    stats: Stats,
    move_stack: Vec<Vec<G::Move>>,
    /// Scratch for the symmetric keys of a position.
    keys: Vec<G::Key>,
    /// Per ply, the line found below the node searched there, stored last move first: a
    /// node's line is its best child's with one move pushed, so a node takes its child's
    /// vector instead of copying it (copying made a forced line of `L` plies cost `L^3`
    /// over its `L` iterations).
    pv: Vec<Vec<G::Move>>,
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<u32>,
    // Per-search state.
    start: Instant,
    halt: Halt,
    stopped: bool,
    hit_horizon: bool,
    /// Deepest ply forcing extensions may reach in the running iteration.
    extension_limit: u32,
    /// The previous iteration's best move, searched first at the root.
    root_first: Option<G::Move>,
    /// The best root move of the running iteration, once it beat the first move.
    root_improved: Option<(G::Move, Score)>,
}

/// Largest history table (moves numbered beyond it share no history).
const HISTORY_LIMIT: usize = 1 << 16;

impl<G: Keyed + Evaluate> Searcher<G> {
    /// A searcher with the given options and the default [`Tuning`].
    ///
    /// A memo larger than the machine can give ends the process, as any allocation does;
    /// for a size that comes from a user, [`Searcher::try_new`] reports it instead.
    #[must_use]
    pub fn new(config: SearchConfig) -> Self {
        Searcher::with_tuning(config, Tuning::default())
    }

    /// A searcher with the given options and enhancements.
    #[must_use]
    pub fn with_tuning(config: SearchConfig, tuning: Tuning) -> Self {
        let memo =
            memo_wanted::<G>(config.memo_bytes).then(|| MemoTable::with_memory(config.memo_bytes));
        Searcher::with_memo(config, tuning, memo)
    }

    /// As [`Searcher::new`], or the allocation's error if the memo cannot be had.
    ///
    /// # Errors
    /// When the memo's slots cannot be allocated.
    pub fn try_new(config: SearchConfig) -> Result<Self, std::collections::TryReserveError> {
        Searcher::try_with_tuning(config, Tuning::default())
    }

    /// As [`Searcher::with_tuning`], or the allocation's error if the memo cannot be had.
    ///
    /// ```
    /// use search_core::{SearchConfig, Searcher, Tuning, synthetic::RandomGame};
    /// let huge = SearchConfig { memo_bytes: usize::MAX, ..SearchConfig::default() };
    /// assert!(Searcher::<RandomGame>::try_with_tuning(huge, Tuning::default()).is_err());
    /// assert!(Searcher::<RandomGame>::try_new(huge).is_err());
    /// assert!(Searcher::<RandomGame>::try_new(SearchConfig::default()).is_ok());
    /// ```
    ///
    /// # Errors
    /// When the memo's slots cannot be allocated.
    pub fn try_with_tuning(
        config: SearchConfig,
        tuning: Tuning,
    ) -> Result<Self, std::collections::TryReserveError> {
        let memo = if memo_wanted::<G>(config.memo_bytes) {
            Some(MemoTable::try_with_memory(config.memo_bytes)?)
        } else {
            None
        };
        Ok(Searcher::with_memo(config, tuning, memo))
    }

    fn with_memo(
        config: SearchConfig,
        tuning: Tuning,
        memo: Option<MemoTable<G::Key, Entry<G::Move>>>,
    ) -> Self {
        Searcher {
            config,
            tuning,
            memo,
            stats: Stats::default(),
            move_stack: Vec::new(),
            keys: Vec::new(),
            pv: Vec::new(),
            killers: Vec::new(),
            history: Vec::new(),
            start: Instant::now(),
            halt: Halt::default(),
            stopped: false,
            hit_horizon: false,
            extension_limit: 0,
            root_first: None,
            root_improved: None,
        }
    }

    /// The enhancements in use.
    #[must_use]
    pub fn tuning(&self) -> Tuning {
        self.tuning
    }

    /// Changes the enhancements (the memo is kept).
    pub fn set_tuning(&mut self, tuning: Tuning) {
        self.tuning = tuning;
    }

    /// Forgets the transposition table, killers and history (for a new game, say).
    pub fn clear_memo(&mut self) {
        if let Some(m) = &mut self.memo {
            m.clear();
        }
        self.killers.clear();
        self.history.clear();
    }

    /// Bytes held by the transposition table.
    #[must_use]
    pub fn memo_bytes(&self) -> usize {
        self.memo.as_ref().map_or(0, MemoTable::memory_bytes)
    }

    /// Every legal move of `game`, in generation order, with its score for the side to move:
    /// the position after each move is searched with `limits` ([`Searcher::search`]), one
    /// after another with the same table, and its score turned round. Empty when the game is
    /// over. `game` is left as it was.
    ///
    /// The limits apply to each move's search, so with a time limit the whole takes up to
    /// that time once per move, and with a depth limit each move is searched one ply deeper
    /// than [`Searcher::search`] would search `game` (the move itself). Where
    /// [`Searcher::search`] answers with one move, this answers for every move: how much
    /// worse the others are, or every move's distance to the end in a solved game.
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
    /// let scores = searcher.move_scores(&mut Nim(6), &Limits::default());
    /// let shown: Vec<String> = scores.iter().map(|s| format!("{}: {}", s.mv, s.score)).collect();
    /// // Taking 2 leaves a multiple of 4: a win; the other moves lose to the same answer.
    /// assert_eq!(shown, ["1: loss in 4", "2: win in 3", "3: loss in 2"]);
    /// assert!(scores.iter().all(|s| s.exact));
    /// ```
    pub fn move_scores(&mut self, game: &mut G, limits: &Limits) -> Vec<MoveScore<G::Move>> {
        if game.outcome().is_some() {
            return Vec::new();
        }
        let mut moves = Vec::new();
        game.generate_moves(&mut moves);
        moves
            .into_iter()
            .map(|mv| {
                game.play(&mv);
                let r = self.search(game, limits);
                game.undo(&mv);
                MoveScore {
                    mv,
                    // The child's score is from its own side and its own root.
                    score: (-r.score).from_memo(1),
                    exact: r.exact,
                    // A search that finished no iteration (a depth limit of 0, or a limit
                    // before the first) looked past the move at nothing, and its score
                    // says nothing: no ply was searched. A move that ends the game is one.
                    depth: if r.depth > 0 || r.exact {
                        r.depth + 1
                    } else {
                        0
                    },
                    stopped: r.stopped,
                }
            })
            .collect()
    }

    /// Iterative deepening from depth 1 until a limit is reached or the value is exact.
    /// `game` is left as it was, also when a limit stops the search.
    ///
    /// The transposition table is kept from one call to the next (the moves of one game
    /// reuse it), and it trusts the keys: before searching a position of another variant
    /// whose keys mean other positions (another board size, another rule), call
    /// [`clear_memo`](Self::clear_memo) or use another searcher, or an exact result may be
    /// wrong (see [`Keyed`]).
    pub fn search(&mut self, game: &mut G, limits: &Limits) -> SearchResult<G::Move> {
        self.start = Instant::now();
        self.halt = Halt::new(limits, self.start, 0);
        self.stopped = false;
        self.stats = Stats::default();
        // Killers belong to one search; history decays so that old cutoffs fade.
        self.killers.clear();
        for h in &mut self.history {
            *h /= 8;
        }

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
        let max_depth = limits.depth.unwrap_or(Limits::MAX_DEPTH);
        let mut depth = 1;
        let mut last_iteration = Duration::ZERO;
        let mut growth = 2.0f64;
        while depth <= max_depth {
            let iteration_start = Instant::now();
            if depth > 1 && self.should_not_start(limits, last_iteration, growth) {
                self.stopped = true;
                break;
            }
            self.root_improved = None;
            // Searched first, so that a root move that beats the first one (and is kept if
            // the iteration stops) beats the previous best, with or without the memo and after
            // an aspiration window failed low.
            self.root_first = result.best_move.clone();
            let score = self.root(game, depth, result.score);
            if self.stopped {
                // A root move that beat the previous best at the new depth is better
                // information than the last finished iteration.
                if let Some((m, s)) = self.root_improved.take() {
                    result.pv = vec![m.clone()];
                    result.best_move = Some(m);
                    result.score = s;
                }
                break;
            }
            result.score = score;
            result.depth = depth;
            result.pv = self.pv.first().cloned().unwrap_or_default();
            result.pv.reverse();
            // A proven result's line may go on past the iteration's depth, to the end it
            // names: the table and mate-distance pruning can settle lines in fewer
            // iterations than the distance.
            let limit = match score.plies_to_end() {
                Some(plies) if !self.hit_horizon => plies.max(depth),
                _ => depth,
            };
            self.extend_line(game, &mut result.pv, limit);
            result.best_move = result.pv.first().cloned();
            if !self.hit_horizon {
                result.exact = true;
                break;
            }
            let took = iteration_start.elapsed();
            if last_iteration > Duration::from_micros(200) {
                growth = (took.as_secs_f64() / last_iteration.as_secs_f64()).clamp(1.5, 8.0);
            }
            last_iteration = took;
            depth += 1;
        }
        if limits.depth.is_none() && !result.exact {
            // Only a limit ends an unbounded search short of an exact result; the depth cap
            // is one.
            self.stopped = true;
        }
        if result.best_move.is_none() {
            // Stopped before the first iteration finished (or asked for depth 0): still give
            // a legal move, as the line of play too.
            let mut moves = Vec::new();
            game.generate_moves(&mut moves);
            game.order_moves(&mut moves);
            result.best_move = moves.into_iter().next();
            result.pv = result.best_move.iter().cloned().collect();
        }
        result.stopped = self.stopped;
        result.stats = self.stats;
        result.elapsed = self.start.elapsed();
        result
    }

    /// Continues `line` (at most `depth` moves in all) with the table's best moves where it
    /// stops short: a position the table answered has no line of its own. Only exact entries
    /// are followed (a bound's move is a refutation or a guess, not the expected move), only
    /// with moves the position generates (a key may be a hash), and never where the position
    /// the move leads to is known to have another value than the move should leave (an exact
    /// entry or the end of the game with another score): a canonical key shares an entry
    /// between positions, such as mirror images, whose best moves differ. A move of a proven
    /// value is followed only where it is shown to keep it; where nothing is known past the
    /// move of a heuristic value, the line ends with that move. `game` is left as it was.
    fn extend_line(&self, game: &mut G, line: &mut Vec<G::Move>, depth: u32) {
        let Some(memo) = &self.memo else {
            return;
        };
        let limit = depth as usize;
        if line.is_empty() || line.len() >= limit {
            return;
        }
        for mv in line.iter() {
            game.play(mv);
        }
        let mut moves = Vec::new();
        let symmetry = self.config.symmetry;
        let key = |game: &G| memo_key(game, symmetry, &mut Vec::new());
        // The value of a position for its side to move, where it is known exactly.
        let exact = |game: &G| match game.outcome() {
            Some(o) => Some(Score::from_outcome(o, 0)),
            None => memo
                .get(&key(game))
                .filter(|e| e.bound == Bound::Exact)
                .map(|e| e.score),
        };
        while line.len() < limit && game.outcome().is_none() {
            // A value of a subtree searched to its ends (a proven win or loss, or a draw
            // searched out) holds for every position under the key, so a move stored for
            // another of them must be shown to keep it here.
            let Some((best, value, settled)) = memo
                .get(&key(game))
                .filter(|e| e.bound == Bound::Exact)
                .and_then(|e| {
                    let settled = e.depth == u32::MAX || e.score.is_proven();
                    Some((e.best.clone()?, e.score, settled))
                })
            else {
                break;
            };
            moves.clear();
            game.generate_moves(&mut moves);
            // The generated move, not the stored one: moves that compare equal may differ in
            // what they carry for `undo` (the stored one may be another position's, under a
            // key shared by symmetry).
            let Some(best) = moves.iter().find(|m| **m == best).cloned() else {
                break;
            };
            game.play(&best);
            match exact(game) {
                // The move leaves another value: the entry was stored by another position
                // under the same key.
                Some(child) if -child.from_memo(1) != value => {
                    game.undo(&best);
                    break;
                }
                Some(_) => line.push(best),
                // Nothing known past a heuristic value's move (a horizon leaf is not
                // stored): the line ends with the move, as the search's own line would. A
                // settled value's move must be shown to keep it.
                None if !settled => {
                    line.push(best);
                    break;
                }
                None => {
                    game.undo(&best);
                    break;
                }
            }
        }
        for mv in line.iter().rev() {
            game.undo(mv);
        }
    }

    /// Whether the next iteration should not start: the soft limit has passed, or (with time
    /// prediction) the previous iteration's time times its growth exceeds what is left.
    fn should_not_start(&self, limits: &Limits, last: Duration, growth: f64) -> bool {
        let elapsed = self.start.elapsed();
        if limits.soft_time.is_some_and(|s| elapsed >= s) {
            return true;
        }
        if let (true, Some(t)) = (self.tuning.predict_time, limits.time) {
            let left = t.saturating_sub(elapsed);
            return last.as_secs_f64() * growth > left.as_secs_f64();
        }
        false
    }

    /// One iteration at the root, inside an aspiration window around `previous` when enabled.
    fn root(&mut self, game: &mut G, depth: u32, previous: Score) -> Score {
        let full = (-Score::INFINITY, Score::INFINITY);
        let (mut alpha, mut beta) = match self.tuning.aspiration {
            Some(w) if depth >= 3 && !previous.is_proven() => (
                Score(previous.0.saturating_sub(w.max(1))),
                Score(previous.0.saturating_add(w.max(1))),
            ),
            _ => full,
        };
        self.extension_limit = depth.saturating_add(self.tuning.forcing_extensions);
        loop {
            self.hit_horizon = false;
            let score = self.node(game, depth, 0, alpha, beta);
            if self.stopped {
                return score;
            }
            if score <= alpha && alpha > full.0 {
                self.stats.researches += 1;
                alpha = full.0;
            } else if score >= beta && beta < full.1 {
                self.stats.researches += 1;
                beta = full.1;
            } else {
                return score;
            }
        }
    }

    fn should_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.stats.nodes.is_multiple_of(256) {
            self.stopped = self.halt.reached(self.stats.nodes);
        }
        self.stopped
    }

    /// Puts the memo move, then the killers, first; sorts the rest by history if enabled.
    fn order(
        &self,
        game: &G,
        moves: &mut [G::Move],
        memo_move: Option<&G::Move>,
        p: usize,
    ) -> usize {
        let mut front = 0;
        if let Some(m) = memo_move
            && let Some(i) = moves.iter().position(|x| x == m)
        {
            moves[..=i].rotate_right(1);
            front = 1;
        }
        if self.tuning.killers
            && let Some(ks) = self.killers.get(p)
        {
            for k in ks.iter().flatten() {
                if let Some(i) = moves[front..].iter().position(|x| x == k) {
                    moves[front..=front + i].rotate_right(1);
                    front += 1;
                }
            }
        }
        if self.tuning.history && !self.history.is_empty() {
            let h = &self.history;
            moves[front..].sort_by_cached_key(|m| {
                std::cmp::Reverse(
                    game.history_slot(m)
                        .and_then(|s| h.get(s).copied())
                        .unwrap_or(0),
                )
            });
        }
        front
    }

    fn record_cutoff(&mut self, game: &G, mv: &G::Move, depth: u32, p: usize) {
        if self.tuning.killers {
            if self.killers.len() <= p {
                self.killers.resize_with(p + 1, || [None, None]);
            }
            let ks = &mut self.killers[p];
            if ks[0].as_ref() != Some(mv) {
                ks[1] = ks[0].take();
                ks[0] = Some(mv.clone());
            }
        }
        if self.tuning.history
            && let Some(s) = game.history_slot(mv)
            && s < HISTORY_LIMIT
        {
            if self.history.len() <= s {
                self.history.resize(s + 1, 0);
            }
            let h = &mut self.history[s];
            *h = h.saturating_add(depth.saturating_mul(depth));
        }
    }

    fn node(
        &mut self,
        game: &mut G,
        mut depth: u32,
        ply: u32,
        mut alpha: Score,
        beta: Score,
    ) -> Score {
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
        if ply > 0 {
            // Mate-distance pruning: a game that goes on ends at the next ply at the soonest,
            // so nothing here scores above a win there or below a loss there. A window outside
            // that range is settled without a search, and as a proven bound (no horizon): once
            // a root move wins, the other moves' lines end where they could only win later,
            // and deepening stops with an exact result.
            let most = Score::win_in(ply + 1);
            if most <= alpha {
                return most;
            }
            let least = Score::loss_in(ply + 1);
            if least >= beta {
                return least;
            }
        }
        if depth == 0 {
            // With extensions off, never: a reduced line reaches its horizon before the
            // iteration's depth, where the ply test alone would extend it.
            if self.tuning.forcing_extensions > 0 && ply < self.extension_limit && game.is_forcing()
            {
                depth = 1;
            } else {
                self.hit_horizon = true;
                return Score::heuristic(game.evaluate());
            }
        }

        let key = self
            .memo
            .is_some()
            .then(|| memo_key(game, self.config.symmetry, &mut self.keys));
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

        if ply == 0 && self.root_first.is_some() {
            memo_move.clone_from(&self.root_first);
        }
        let mut moves = std::mem::take(&mut self.move_stack[p]);
        generate_moves(game, &mut moves, false);
        // Moves left out could change the value: nothing here is proven. (Merging moves of
        // one class leaves out nothing of value, so the game is asked before it.)
        let selective = game.is_selective(&moves);
        if self.config.merge_moves {
            self.stats.merged_moves += merge_classes(game, &mut moves);
        }
        if moves.is_empty() {
            self.move_stack[p] = moves;
            self.hit_horizon |= selective;
            return Score::DRAW;
        }
        game.order_moves(&mut moves);
        let protected = self.order(game, &mut moves, memo_move.as_ref(), p);

        let alpha0 = alpha;
        let horizon_before = self.hit_horizon;
        self.hit_horizon = selective;
        let mut best = -Score::INFINITY;
        let mut best_move = None;
        for (i, mv) in moves.iter().enumerate() {
            game.play(mv);
            let v = if i == 0 || !self.tuning.pvs {
                -self.node(game, depth - 1, ply + 1, -beta, -alpha)
            } else {
                let reduce = match self.tuning.late_move_reductions {
                    Some((after, min_depth)) => {
                        depth >= min_depth && i >= after.max(protected) && depth >= 2
                    }
                    None => false,
                };
                let null = Score(alpha.0 + 1);
                let mut v = if reduce {
                    -self.node(game, depth - 2, ply + 1, -null, -alpha)
                } else {
                    -self.node(game, depth - 1, ply + 1, -null, -alpha)
                };
                if reduce && v > alpha && !self.stopped {
                    self.stats.researches += 1;
                    v = -self.node(game, depth - 1, ply + 1, -null, -alpha);
                }
                if v > alpha && v < beta && !self.stopped {
                    self.stats.researches += 1;
                    v = -self.node(game, depth - 1, ply + 1, -beta, -alpha);
                }
                v
            };
            game.undo(mv);
            if self.stopped {
                break;
            }
            // A root move that beat the first one in an earlier pass of this iteration (before
            // its aspiration window widened) is known to beat it only if it does so again.
            if ply == 0 && self.root_improved.as_ref().is_some_and(|(m, _)| m == mv) {
                self.root_improved = None;
            }
            if v > best {
                best = v;
                best_move = Some(mv.clone());
                // The child's line (reversed) becomes this node's, with the move at its end;
                // the child's slot gets this node's old vector, cleared when it is next used.
                let (head, tail) = self.pv.split_at_mut(p + 1);
                std::mem::swap(&mut head[p], &mut tail[0]);
                head[p].push(mv.clone());
                if ply == 0 && i > 0 && v > alpha {
                    self.root_improved = Some((mv.clone(), v));
                }
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        self.stats.cutoffs += 1;
                        self.record_cutoff(game, mv, depth, p);
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Game, Keyed, Outcome};

    /// Mate-distance pruning settles a node without a search only when no result there can
    /// reach the window: at ply 2 the soonest win is at ply 3, so a window above a win at
    /// ply 4 is searched (and the win at ply 3 found), and only a window above that is cut.
    #[test]
    fn mate_distance_pruning_cuts_only_above_the_soonest_win() {
        let config = SearchConfig {
            memo_bytes: 0,
            ..SearchConfig::default()
        };
        let mut s: Searcher<Subtract> = Searcher::new(config);
        let soonest = Score::win_in(3);
        assert_eq!(
            s.node(&mut Subtract(1), 3, 2, Score::win_in(4), Score::INFINITY),
            soonest
        );
        let nodes = s.stats.nodes;
        assert_eq!(
            s.node(&mut Subtract(1), 3, 2, soonest, Score::INFINITY),
            soonest
        );
        assert_eq!(s.stats.nodes, nodes + 1, "searched below a cut node");
    }

    /// A complete tree of `b` moves a position and `d` plies, with distinct leaf values and
    /// a perfect evaluation (every position's exact negamax value), its moves ordered best
    /// first or worst first. Node `n`'s children are `n * b + 1 ..= n * b + b`.
    #[derive(Clone)]
    struct Uniform {
        b: u64,
        d: u32,
        best_first: bool,
        /// Added to the evaluation at even plies, to make iterations disagree.
        skew: i32,
        values: Arc<Vec<i32>>,
        path: Vec<u64>,
    }

    impl Uniform {
        fn new(b: u64, d: u32, best_first: bool) -> Uniform {
            let nodes = ((b.pow(d + 1) - 1) / (b - 1)) as usize;
            let first_leaf = ((b.pow(d) - 1) / (b - 1)) as usize;
            let leaves = nodes - first_leaf;
            let mut values = vec![0i32; nodes];
            // Distinct leaf values: a permutation of 0..leaves (7919 is prime to 3^d).
            for j in 0..leaves {
                values[first_leaf + j] = ((j * 7919) % leaves) as i32 - (leaves / 2) as i32;
            }
            for n in (0..first_leaf).rev() {
                let kids = (1..=b as usize).map(|k| -values[n * b as usize + k]);
                values[n] = kids.max().unwrap_or(0);
            }
            Uniform {
                b,
                d,
                best_first,
                skew: 0,
                values: Arc::new(values),
                path: vec![0],
            }
        }
        fn node(&self) -> u64 {
            *self.path.last().unwrap()
        }
        fn value(&self, n: u64) -> i32 {
            self.values[n as usize]
        }
    }

    impl Game for Uniform {
        type Move = u64;
        fn generate_moves(&self, moves: &mut Vec<u64>) {
            if self.path.len() <= self.d as usize {
                let n = self.node();
                moves.extend((1..=self.b).map(|k| n * self.b + k));
            }
        }
        fn play(&mut self, mv: &u64) {
            self.path.push(*mv);
        }
        fn undo(&mut self, _: &u64) {
            self.path.pop();
        }
        fn outcome(&self) -> Option<Outcome> {
            None
        }
        fn order_moves(&self, moves: &mut [u64]) {
            // A move's value for the mover is minus its child's value.
            if self.best_first {
                moves.sort_by_key(|&m| self.value(m));
            } else {
                moves.sort_by_key(|&m| -self.value(m));
            }
        }
    }

    impl Keyed for Uniform {
        type Key = u64;
        fn key(&self) -> u64 {
            self.node()
        }
    }

    impl Evaluate for Uniform {
        fn evaluate(&self) -> i32 {
            let skew = if self.path.len() % 2 == 1 {
                self.skew
            } else {
                0
            };
            self.value(self.node()) + skew
        }
    }

    /// Positions alpha-beta visits in a perfectly ordered complete tree of depth `d`: at ply
    /// `k`, `b^ceil(k/2) + b^floor(k/2) - 1` (Knuth and Moore's minimal tree).
    fn minimal_tree(b: u64, d: u32) -> u64 {
        (0..=d)
            .map(|k| b.pow(k.div_ceil(2)) + b.pow(k / 2) - 1)
            .sum()
    }

    fn full_tree(b: u64, d: u32) -> u64 {
        (0..=d).map(|k| b.pow(k)).sum()
    }

    #[test]
    fn plain_alpha_beta_visits_the_minimal_tree_and_without_order_far_more() {
        for (b, d) in [(3, 5), (3, 6), (4, 4)] {
            for best_first in [true, false] {
                let mut g = Uniform::new(b, d, best_first);
                let mut stats = Stats::default();
                let v = alpha_beta(&mut g, d, -Score::INFINITY, Score::INFINITY, &mut stats);
                assert_eq!(v, Score(g.value(0)));
                if best_first {
                    assert_eq!(stats.nodes, minimal_tree(b, d), "b {b} d {d}");
                    assert!(stats.cutoffs > 0);
                } else {
                    // Worst first, bounds from above still cut a little.
                    assert!(stats.nodes > minimal_tree(b, d) * 2, "b {b} d {d}");
                    assert!(stats.nodes <= full_tree(b, d));
                }
            }
        }
        // Finished positions are counted.
        let mut stats = Stats::default();
        let mut g = crate::synthetic::RandomGame::bushy(3, 1 << 40, 4, 2);
        alpha_beta(&mut g, 4, -Score::INFINITY, Score::INFINITY, &mut stats);
        assert!(stats.terminals > 0);
    }

    /// One search to `depth` without memo: its value and counters.
    fn run(g: &mut Uniform, tuning: Tuning, depth: u32) -> (Score, Stats) {
        let config = SearchConfig {
            memo_bytes: 0,
            merge_moves: false,
            symmetry: false,
        };
        let mut s = Searcher::with_tuning(config, tuning);
        assert_eq!(s.tuning(), tuning);
        assert_eq!(s.memo_bytes(), 0);
        let r = s.search(g, &Limits::depth(depth));
        assert_eq!(r.depth, depth);
        (r.score, r.stats)
    }

    #[test]
    fn iterative_deepening_with_and_without_null_windows_visits_minimal_trees() {
        let (b, d) = (3, 6);
        let mut g = Uniform::new(b, d, true);
        let every_iteration: u64 = (1..=d).map(|k| minimal_tree(b, k)).sum();
        let pvs = Tuning {
            pvs: true,
            ..Tuning::PLAIN
        };
        for tuning in [Tuning::PLAIN, pvs] {
            let (v, stats) = run(&mut g, tuning, d);
            assert_eq!(v, Score(g.value(0)));
            assert_eq!(stats.nodes, every_iteration, "{tuning:?}");
            assert_eq!(stats.researches, 0);
        }
        // Worst first, the null windows fail high and are searched again.
        let mut worst = Uniform::new(b, d, false);
        let (v, stats) = run(&mut worst, pvs, d);
        assert_eq!(v, Score(worst.value(0)));
        assert!(stats.researches > 0);
    }

    #[test]
    fn late_move_reductions_save_nodes_and_keep_the_value() {
        let (b, d) = (3, 6);
        let pvs = Tuning {
            pvs: true,
            ..Tuning::PLAIN
        };
        let lmr = Tuning {
            late_move_reductions: Some((1, 2)),
            ..pvs
        };
        for best_first in [true, false] {
            let mut g = Uniform::new(b, d, best_first);
            let (v0, s0) = run(&mut g, pvs, d);
            let (v1, s1) = run(&mut g, lmr, d);
            assert_eq!(v0, v1);
            assert!(
                s1.nodes < s0.nodes,
                "{best_first}: {} {}",
                s1.nodes,
                s0.nodes
            );
            // Reduced searches that fail high are searched again at full depth.
            assert_eq!(s1.researches > s0.researches, !best_first);
        }
    }

    #[test]
    fn every_counter_counts() {
        use crate::synthetic::RandomGame;
        // Few ids a ply: lines meet again, so the memo answers and moves merge.
        let mut g = RandomGame::bushy(5, 12, 6, 3);
        let config = SearchConfig {
            memo_bytes: 1 << 16,
            merge_moves: true,
            symmetry: false,
        };
        let r = Searcher::<RandomGame>::new(config).search(&mut g, &Limits::depth(7));
        let s = r.stats;
        assert!(s.nodes > 100 && s.terminals > 0 && s.cutoffs > 0, "{s:?}");
        assert!(
            s.memo_probes > s.memo_hits && s.memo_hits > s.memo_cutoffs,
            "{s:?}"
        );
        assert!(s.memo_cutoffs > 0 && s.merged_moves > 0, "{s:?}");
    }

    /// Take one or two from a pile, the last to take wins; `only_ones` generates the taking
    /// of one alone, and says whether it admits to leaving out the other move.
    struct Take {
        left: u32,
        only_ones: bool,
        admits: bool,
    }

    impl Game for Take {
        type Move = u32;
        fn generate_moves(&self, moves: &mut Vec<u32>) {
            let most = if self.only_ones { 1 } else { 2 };
            moves.extend((1..=most).filter(|&k| k <= self.left));
        }
        fn play(&mut self, mv: &u32) {
            self.left -= mv;
        }
        fn undo(&mut self, mv: &u32) {
            self.left += mv;
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.left == 0).then_some(Outcome::Loss)
        }
        fn is_selective(&self, _moves: &[u32]) -> bool {
            self.admits
        }
    }

    impl Keyed for Take {
        type Key = u32;
        fn key(&self) -> u32 {
            self.left
        }
    }

    impl Evaluate for Take {
        fn evaluate(&self) -> i32 {
            0
        }
    }

    /// Take one or two, each move generated twice (the copies one class); it calls itself
    /// selective when it sees fewer than all of its moves.
    struct TwinTake(u32);

    impl Game for TwinTake {
        type Move = (u32, u8);
        fn generate_moves(&self, moves: &mut Vec<(u32, u8)>) {
            for k in (1..=2).filter(|&k| k <= self.0) {
                moves.extend([(k, 0), (k, 1)]);
            }
        }
        fn play(&mut self, mv: &(u32, u8)) {
            self.0 -= mv.0;
        }
        fn undo(&mut self, mv: &(u32, u8)) {
            self.0 += mv.0;
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.0 == 0).then_some(Outcome::Loss)
        }
        fn move_class(&self, mv: &(u32, u8)) -> Option<u64> {
            Some(u64::from(mv.0))
        }
        fn is_selective(&self, moves: &[(u32, u8)]) -> bool {
            moves.len() < 2 * self.0.min(2) as usize
        }
    }

    impl Keyed for TwinTake {
        type Key = u32;
        fn key(&self) -> u32 {
            self.0
        }
    }

    impl Evaluate for TwinTake {
        fn evaluate(&self) -> i32 {
            0
        }
    }

    /// Merging the copies of a move leaves out nothing: the game is asked whether it is
    /// selective about the moves it generated, not the merged ones, and the win is proven.
    #[test]
    fn merged_moves_do_not_make_a_generator_selective() {
        let config = SearchConfig {
            merge_moves: true,
            ..SearchConfig::default()
        };
        let mut s = Searcher::<TwinTake>::new(config);
        let r = s.search(&mut TwinTake(4), &Limits::depth(12));
        assert!(r.stats.merged_moves > 0);
        assert!(r.exact && r.score == Score::from_outcome(Outcome::Win, 3));
        // Proven at depth 3: the lines that could only win later are cut there (the winning
        // line is searched before any other reaches the horizon).
        assert_eq!(r.depth, 3);
    }

    /// A pile of 4 is a win (take one), but a search shown only the taking of one finds a
    /// loss in 4: it may report it, not prove it.
    #[test]
    fn a_selective_game_proves_nothing() {
        let search = |only_ones, admits| {
            let mut g = Take {
                left: 4,
                only_ones,
                admits,
            };
            let mut s = Searcher::<Take>::new(SearchConfig::default());
            let r = s.search(&mut g, &Limits::depth(12));
            assert_eq!(g.left, 4);
            r
        };
        let full = search(false, false);
        assert!(full.exact && full.score == Score::from_outcome(Outcome::Win, 3));
        // The win in 3 is proven at depth 3 (the lines that could only win later are cut
        // there; the winning line comes first), and the deepening stops.
        assert_eq!(full.depth, 3);
        // Shown one move, without admitting it: a false proof.
        let fooled = search(true, false);
        assert!(fooled.exact && fooled.score == Score::from_outcome(Outcome::Loss, 4));
        // Admitting it: the same score, unproven, so deepening goes on to the limit.
        let honest = search(true, true);
        assert_eq!(honest.score, Score::from_outcome(Outcome::Loss, 4));
        assert!(!honest.exact);
        assert_eq!(honest.depth, 12);
    }

    #[test]
    fn node_time_and_flag_limits_end_an_iteration_midway() {
        use crate::synthetic::RandomGame;
        // Far too big to finish; no time prediction, so only the checks inside an
        // iteration (every 256 nodes) can stop it.
        let mut g = RandomGame::bushy(7, 1 << 40, 60, 8);
        let mut s = Searcher::<RandomGame>::with_tuning(SearchConfig::default(), Tuning::PLAIN);
        let r = s.search(&mut g, &Limits::nodes(5000));
        assert!(r.stopped && !r.exact);
        assert!(
            (5000..5000 + 256).contains(&r.stats.nodes),
            "{}",
            r.stats.nodes
        );
        let r = s.search(&mut g, &Limits::time(Duration::from_millis(30)));
        assert!(r.stopped && !r.exact);
        assert!(r.elapsed >= Duration::from_millis(30), "{:?}", r.elapsed);
        assert!(r.elapsed < Duration::from_millis(1000), "{:?}", r.elapsed);
        let flag = Arc::new(AtomicBool::new(true));
        let r = s.search(
            &mut g,
            &Limits {
                stop: Some(flag),
                ..Limits::default()
            },
        );
        assert!(r.stopped && r.stats.nodes <= 256, "{}", r.stats.nodes);
        assert_eq!(g.path(), &[0]);
    }

    #[test]
    fn aspiration_windows_narrow_from_the_third_iteration_and_widen_on_failure() {
        let (b, d) = (3, 6);
        let wide = Tuning::PLAIN;
        let narrow = Tuning {
            aspiration: Some(1),
            ..Tuning::PLAIN
        };
        // A perfect evaluation: every iteration finds the same value, inside the window,
        // and the narrow window cuts more of the badly ordered tree.
        let mut g = Uniform::new(b, d, false);
        let (v0, s0) = run(&mut g, wide, d);
        let (v1, s1) = run(&mut g, narrow, d);
        assert_eq!(v0, v1);
        assert_eq!(s1.researches, 0);
        assert!(s1.nodes < s0.nodes, "{} {}", s1.nodes, s0.nodes);
        // An evaluation skewed at every other ply: successive iterations disagree, the
        // window fails, and the search widens it (the value is the skewed search's own).
        g.skew = 500;
        let (v0, s0) = run(&mut g, wide, d);
        let (v1, s1) = run(&mut g, narrow, d);
        assert_eq!(v0, v1);
        assert_eq!(s0.researches, 0);
        // Iterations 3 to 6 each fail once, alternately low and high.
        assert_eq!(s1.researches, 4);
    }

    /// A root of 300 moves, then two moves a position to the horizon. The root player's
    /// value is 0 below move 0, -50 below moves 2 and up, and -100 below move 1 except on
    /// its third visit, where it is 100: an evaluation that changes under the search, as a
    /// table or history can make it. The fourth visit of move 1 raises `stop`.
    struct Fickle {
        path: Vec<u32>,
        visits_of_1: u32,
        stop: Arc<AtomicBool>,
    }

    impl Game for Fickle {
        type Move = u32;
        fn generate_moves(&self, moves: &mut Vec<u32>) {
            match self.path.len() {
                0 => moves.extend(0..300),
                1 | 2 => moves.extend(0..2),
                _ => {}
            }
        }
        fn play(&mut self, &mv: &u32) {
            if self.path.is_empty() && mv == 1 {
                self.visits_of_1 += 1;
                if self.visits_of_1 == 4 {
                    self.stop.store(true, Ordering::Relaxed);
                }
            }
            self.path.push(mv);
        }
        fn undo(&mut self, _: &u32) {
            self.path.pop();
        }
        fn outcome(&self) -> Option<Outcome> {
            None
        }
    }

    impl Keyed for Fickle {
        type Key = u64;
        fn key(&self) -> u64 {
            self.path.iter().fold(1, |k, &m| k * 301 + u64::from(m))
        }
    }

    impl Evaluate for Fickle {
        fn evaluate(&self) -> i32 {
            let root = match self.path.first() {
                None | Some(0) => 0,
                Some(1) if self.visits_of_1 == 3 => 100,
                Some(1) => -100,
                Some(_) => -50,
            };
            if self.path.len().is_multiple_of(2) {
                root
            } else {
                -root
            }
        }
    }

    #[test]
    fn a_root_move_that_no_longer_beats_the_first_is_not_returned() {
        // Iteration 3 runs in the window -1..1 around iteration 2's value (0, move 0). Move 1
        // fails high (100) on its third visit; the window widens, and the second pass finds
        // it at -100, then stops midway. That move is no longer known to be better than the
        // last finished iteration's.
        let stop = Arc::new(AtomicBool::new(false));
        let mut g = Fickle {
            path: Vec::new(),
            visits_of_1: 0,
            stop: Arc::clone(&stop),
        };
        let config = SearchConfig {
            memo_bytes: 0,
            merge_moves: false,
            symmetry: false,
        };
        let tuning = Tuning {
            aspiration: Some(1),
            ..Tuning::PLAIN
        };
        let mut s = Searcher::with_tuning(config, tuning);
        let r = s.search(
            &mut g,
            &Limits {
                depth: Some(3),
                stop: Some(stop),
                ..Limits::default()
            },
        );
        assert_eq!(g.visits_of_1, 4);
        assert!(r.stopped && r.stats.researches == 1, "{r:?}");
        assert_eq!((r.best_move, r.score, r.depth), (Some(0), Score(0), 2));
        // And its whole line, iteration 2's: move 0, then the first of the two replies (all
        // are equal). The first move's own line at the unfinished depth is cut short.
        assert_eq!(r.pv, vec![0, 0]);
    }

    /// A stored bound answers a node (below the root) exactly when it settles the window: a
    /// lower bound at beta fails high at once and an upper bound at alpha fails low, with no
    /// move searched; bounds strictly inside the window only narrow it.
    #[test]
    fn a_stored_bound_at_the_window_edge_answers_without_a_search() {
        let config = SearchConfig {
            memo_bytes: 1 << 16,
            merge_moves: false,
            symmetry: false,
        };
        // (bound, stored score, alpha, beta, answered from the table)
        let cases = [
            (Bound::Lower, 5, 4, 5, true),
            (Bound::Lower, 5, 4, 6, false),
            (Bound::Upper, 5, 5, 6, true),
            (Bound::Upper, 5, 4, 6, false),
        ];
        for (bound, stored, alpha, beta, answered) in cases {
            let mut g = Uniform::new(3, 3, true);
            g.play(&1);
            let mut s = Searcher::with_tuning(config, Tuning::PLAIN);
            let entry = Entry {
                score: Score(stored),
                depth: 10,
                bound,
                best: None,
            };
            s.memo.as_mut().unwrap().store(g.key(), entry, 1);
            let v = s.node(&mut g, 2, 1, Score(alpha), Score(beta));
            let case = format!("{bound:?} {stored} in {alpha}..{beta}");
            assert_eq!(s.stats.memo_cutoffs, u64::from(answered), "{case}");
            if answered {
                assert_eq!((v, s.stats.nodes), (Score(stored), 1), "{case}");
            } else {
                assert!(s.stats.nodes > 1, "{case}");
            }
        }
    }

    /// Three moves a position to four plies, every position worth 0; it records the lines
    /// whose ends it evaluates.
    struct Flat {
        path: Vec<u32>,
        evaluated: std::cell::RefCell<Vec<Vec<u32>>>,
    }

    impl Game for Flat {
        type Move = u32;
        fn generate_moves(&self, moves: &mut Vec<u32>) {
            if self.path.len() < 4 {
                moves.extend(0..3);
            }
        }
        fn play(&mut self, &mv: &u32) {
            self.path.push(mv);
        }
        fn undo(&mut self, _: &u32) {
            self.path.pop();
        }
        fn outcome(&self) -> Option<Outcome> {
            None
        }
    }

    impl Keyed for Flat {
        type Key = u64;
        fn key(&self) -> u64 {
            self.path.iter().fold(1, |k, &m| k * 4 + u64::from(m))
        }
    }

    impl Evaluate for Flat {
        fn evaluate(&self) -> i32 {
            self.evaluated.borrow_mut().push(self.path.clone());
            0
        }
    }

    /// Late move reductions spare the killers even where they stand among the moves the
    /// count `after` would reduce: with `after` 1 and two killers in front, the second killer
    /// is searched to full depth, and only the move behind them is reduced.
    #[test]
    fn late_move_reductions_spare_the_killers() {
        let config = SearchConfig {
            memo_bytes: 0,
            merge_moves: false,
            symmetry: false,
        };
        let tuning = Tuning {
            pvs: true,
            killers: true,
            late_move_reductions: Some((1, 1)),
            ..Tuning::PLAIN
        };
        let mut s = Searcher::with_tuning(config, tuning);
        let mut g = Flat {
            path: Vec::new(),
            evaluated: std::cell::RefCell::new(Vec::new()),
        };
        // Moves 2 and 1 are the killers: the order is 2, 1, 0.
        s.killers = vec![[Some(2), Some(1)]];
        let v = s.node(&mut g, 2, 0, -Score::INFINITY, Score::INFINITY);
        assert_eq!(v, Score(0));
        let evaluated = g.evaluated.into_inner();
        let under = |m: u32| -> Vec<usize> {
            (evaluated.iter())
                .filter(|l| l[0] == m)
                .map(Vec::len)
                .collect()
        };
        for killer in [2, 1] {
            let lengths = under(killer);
            assert!(
                !lengths.is_empty() && lengths.iter().all(|&n| n == 2),
                "{evaluated:?}"
            );
        }
        assert_eq!(under(0), vec![1], "{evaluated:?}");
    }

    /// A race with a quick way out: at the start the side to move may finish the game and win
    /// at once, or wait; after a wait only waiting is left, for a million plies, which end
    /// in a draw. Every position has its own key, so the memo cannot shorten the waiting
    /// line.
    #[derive(Clone)]
    struct FinishOrWait {
        waited: u32,
        finished: bool,
    }

    impl Game for FinishOrWait {
        type Move = bool;
        fn generate_moves(&self, moves: &mut Vec<bool>) {
            if self.waited == 0 {
                moves.push(true);
            }
            moves.push(false);
        }
        fn play(&mut self, &finish: &bool) {
            if finish {
                self.finished = true;
            } else {
                self.waited += 1;
            }
        }
        fn undo(&mut self, &finish: &bool) {
            if finish {
                self.finished = false;
            } else {
                self.waited -= 1;
            }
        }
        fn outcome(&self) -> Option<Outcome> {
            if self.finished {
                Some(Outcome::Loss)
            } else {
                (self.waited >= 1_000_000).then_some(Outcome::Draw)
            }
        }
    }

    impl Keyed for FinishOrWait {
        type Key = (u32, bool);
        fn key(&self) -> (u32, bool) {
            (self.waited, self.finished)
        }
    }

    impl Evaluate for FinishOrWait {
        fn evaluate(&self) -> i32 {
            0
        }
    }

    /// Once the best root move is a proven win that no other move could better, the search
    /// is exact: the other moves' lines are cut where they could only win later, not searched
    /// to the horizon of every deeper iteration (without a limit, to `Limits::MAX_DEPTH`,
    /// 10,000 plies down one line; with a time limit, to its end).
    #[test]
    fn a_proven_win_ends_deepening() {
        for tuning in [Tuning::PLAIN, Tuning::default()] {
            for memo_bytes in [0, 1 << 16] {
                let mut s = Searcher::with_tuning(
                    SearchConfig {
                        memo_bytes,
                        ..SearchConfig::default()
                    },
                    tuning,
                );
                let mut g = FinishOrWait {
                    waited: 0,
                    finished: false,
                };
                // The node limit only bounds a search that would not stop by itself.
                let limits = Limits {
                    nodes: Some(100_000),
                    ..Limits::default()
                };
                let r = s.search(&mut g, &limits);
                assert!(r.exact && !r.stopped, "{r:?}");
                assert_eq!(
                    (r.depth, r.best_move, r.score),
                    (1, Some(true), Score::win_in(1))
                );
                assert!(r.stats.nodes <= 10, "{:?}", r.stats);
            }
        }
    }

    /// A row of cells; a move puts a stone on an empty cell with no stone beside it, and
    /// whoever cannot move loses. The key is canonical (the row or its mirror image, whichever
    /// is smaller), so a position and its mirror image share a table entry, whose move is
    /// right for only one of them.
    #[derive(Clone)]
    struct Row {
        cells: u32,
        stones: u32,
    }

    impl Row {
        fn mirror(&self, m: u32) -> u32 {
            m.reverse_bits() >> (32 - self.cells)
        }
    }

    impl Game for Row {
        type Move = u32;
        fn generate_moves(&self, moves: &mut Vec<u32>) {
            let near = self.stones | self.stones << 1 | self.stones >> 1;
            moves.extend((0..self.cells).filter(|&c| near >> c & 1 == 0));
        }
        fn play(&mut self, mv: &u32) {
            self.stones |= 1 << mv;
        }
        fn undo(&mut self, mv: &u32) {
            self.stones &= !(1 << mv);
        }
        fn outcome(&self) -> Option<Outcome> {
            let mut moves = Vec::new();
            self.generate_moves(&mut moves);
            moves.is_empty().then_some(Outcome::Loss)
        }
    }

    impl Keyed for Row {
        type Key = u32;
        fn key(&self) -> u32 {
            self.stones.min(self.mirror(self.stones))
        }
    }

    impl Evaluate for Row {
        fn evaluate(&self) -> i32 {
            0
        }
    }

    /// The exact score of a `Row` position (win or loss, in how many plies), by brute force:
    /// the winner ends the game soonest, the loser late as it can.
    fn row_score(g: &mut Row, memo: &mut std::collections::HashMap<u32, Score>) -> Score {
        if let Some(&s) = memo.get(&g.stones) {
            return s;
        }
        let mut moves = Vec::new();
        g.generate_moves(&mut moves);
        let mut best = Score::loss_in(0);
        for (i, mv) in moves.iter().enumerate() {
            g.play(mv);
            let s = -row_score(g, memo).from_memo(1);
            g.undo(mv);
            best = if i == 0 { s } else { best.max(s) };
        }
        memo.insert(g.stones, best);
        best
    }

    /// A canonical key shares table entries between mirror images: the line of play still
    /// follows only moves that keep the score, each ending the game as soon (or as late) as
    /// the position's value says, also when the table holds the mirror image's moves.
    #[test]
    fn the_line_keeps_the_score_under_canonical_keys() {
        let mut memo = std::collections::HashMap::new();
        let mut extended = 0;
        for cells in 6..=14 {
            for stones in (0..cells).flat_map(|a| (a + 2..cells).map(move |b| 1u32 << a | 1 << b)) {
                let mut g = Row { cells, stones };
                if g.outcome().is_some() || g.mirror(stones) == stones {
                    continue;
                }
                memo.clear();
                // The mirror image first: its entries are in the table for the search.
                let mut s = Searcher::<Row>::new(SearchConfig::default());
                let mirror = g.mirror(stones);
                s.search(
                    &mut Row {
                        cells,
                        stones: mirror,
                    },
                    &Limits::default(),
                );
                let r = s.search(&mut g, &Limits::default());
                assert!(r.exact, "{cells} {stones:b}: {r:?}");
                assert_eq!(r.score, row_score(&mut g, &mut memo), "{cells} {stones:b}");
                let mut want = r.score;
                let line = r.pv.clone();
                for mv in &line {
                    g.play(mv);
                    // The child's value, seen from the mover, is the parent's.
                    let got = -row_score(&mut g, &mut memo).from_memo(1);
                    assert_eq!(got, want, "{cells} {stones:b}: {line:?} at {mv}");
                    want = row_score(&mut g, &mut memo);
                }
                extended += usize::from(line.len() > 1);
            }
        }
        assert!(extended > 5, "{extended}");
    }

    /// Tic-tac-toe, with the stones of the side to move and of the other side as 9-bit
    /// masks, keyed canonically: the smallest of its 8 images under the board's symmetries.
    #[derive(Clone)]
    struct Ttt {
        mover: u32,
        other: u32,
    }

    /// Where each of the 8 symmetries of the 3x3 board sends each cell.
    fn ttt_symmetries() -> &'static [[u32; 9]] {
        static MAPS: std::sync::OnceLock<Vec<[u32; 9]>> = std::sync::OnceLock::new();
        MAPS.get_or_init(ttt_maps)
    }

    fn ttt_maps() -> Vec<[u32; 9]> {
        let mut out = Vec::new();
        for t in 0..8 {
            let mut map = [0u32; 9];
            for (c, m) in map.iter_mut().enumerate() {
                let (mut x, mut y) = (c as u32 % 3, c as u32 / 3);
                if t >= 4 {
                    x = 2 - x;
                }
                for _ in 0..t % 4 {
                    (x, y) = (2 - y, x);
                }
                *m = y * 3 + x;
            }
            out.push(map);
        }
        out
    }

    fn ttt_map(m: u32, map: &[u32; 9]) -> u32 {
        (0..9)
            .filter(|c| m >> c & 1 == 1)
            .fold(0, |a, c| a | 1 << map[c as usize])
    }

    impl Ttt {
        fn lines(m: u32) -> bool {
            [0o7, 0o70, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124]
                .iter()
                .any(|&l| l & !m == 0)
        }
    }

    impl Game for Ttt {
        type Move = u32;
        fn generate_moves(&self, moves: &mut Vec<u32>) {
            moves.extend((0..9).filter(|c| (self.mover | self.other) >> c & 1 == 0));
        }
        fn play(&mut self, mv: &u32) {
            (self.mover, self.other) = (self.other, self.mover | 1 << mv);
        }
        fn undo(&mut self, mv: &u32) {
            (self.mover, self.other) = (self.other & !(1 << mv), self.mover);
        }
        fn outcome(&self) -> Option<Outcome> {
            if Ttt::lines(self.other) {
                Some(Outcome::Loss)
            } else if (self.mover | self.other) == 0o777 {
                Some(Outcome::Draw)
            } else {
                None
            }
        }
    }

    impl Keyed for Ttt {
        type Key = u32;
        fn key(&self) -> u32 {
            ttt_symmetries()
                .iter()
                .map(|m| ttt_map(self.mover, m) | ttt_map(self.other, m) << 9)
                .min()
                .unwrap_or(0)
        }
    }

    impl Evaluate for Ttt {
        fn evaluate(&self) -> i32 {
            0
        }
    }

    /// The exact score of a tic-tac-toe position, by brute force (the winner ends the game
    /// soonest, the loser late as it can; a draw is a draw).
    fn ttt_score(g: &mut Ttt, memo: &mut std::collections::HashMap<(u32, u32), Score>) -> Score {
        if let Some(o) = g.outcome() {
            return Score::from_outcome(o, 0);
        }
        if let Some(&s) = memo.get(&(g.mover, g.other)) {
            return s;
        }
        let mut moves = Vec::new();
        g.generate_moves(&mut moves);
        let mut best = -Score::INFINITY;
        for mv in &moves {
            g.play(mv);
            best = best.max(-ttt_score(g, memo).from_memo(1));
            g.undo(mv);
        }
        memo.insert((g.mover, g.other), best);
        best
    }

    /// Under a canonical key, the line of play of an exact draw keeps the draw too: a table
    /// move stored by a symmetric image may lose in this position, and a drawn value is
    /// checked like a proven one (it was not, and lines of drawn positions held losing
    /// moves).
    #[test]
    fn the_line_of_a_draw_keeps_it_under_canonical_keys() {
        fn positions(g: &mut Ttt, out: &mut Vec<(u32, u32)>) {
            out.push((g.mover, g.other));
            if g.outcome().is_some() {
                return;
            }
            let mut moves = Vec::new();
            g.generate_moves(&mut moves);
            for mv in &moves {
                g.play(mv);
                positions(g, out);
                g.undo(mv);
            }
        }
        let mut all = Vec::new();
        positions(&mut Ttt { mover: 0, other: 0 }, &mut all);
        all.sort_unstable();
        all.dedup();
        let (mut checked, mut draws) = (0, 0);
        let mut memo = std::collections::HashMap::new();
        for &(mover, other) in &all {
            let mut g = Ttt { mover, other };
            if g.outcome().is_some() {
                continue;
            }
            for map in ttt_symmetries() {
                let image = Ttt {
                    mover: ttt_map(mover, map),
                    other: ttt_map(other, map),
                };
                if (image.mover, image.other) == (mover, other) {
                    continue;
                }
                // The image first: its entries are in the table for the search.
                let mut s = Searcher::<Ttt>::new(SearchConfig {
                    memo_bytes: 1 << 20,
                    ..SearchConfig::default()
                });
                s.search(&mut image.clone(), &Limits::default());
                let r = s.search(&mut g, &Limits::default());
                assert!(r.exact);
                let mut want = ttt_score(&mut g, &mut memo);
                assert_eq!(r.score, want);
                draws += usize::from(want == Score::DRAW);
                for mv in &r.pv {
                    g.play(mv);
                    let got = -ttt_score(&mut g, &mut memo).from_memo(1);
                    assert_eq!(got, want, "{mover:o} {other:o}: {:?} at {mv}", r.pv);
                    want = ttt_score(&mut g, &mut memo);
                }
                for mv in r.pv.iter().rev() {
                    g.undo(mv);
                }
                checked += 1;
            }
        }
        assert!(checked > 5000 && draws > 1000, "{checked} {draws}");
    }

    /// Tic-tac-toe keyed plainly, its images given as symmetric keys.
    #[derive(Clone)]
    struct PlainTtt(Ttt);

    impl Game for PlainTtt {
        type Move = u32;
        fn generate_moves(&self, moves: &mut Vec<u32>) {
            self.0.generate_moves(moves);
        }
        fn play(&mut self, mv: &u32) {
            self.0.play(mv);
        }
        fn undo(&mut self, mv: &u32) {
            self.0.undo(mv);
        }
        fn outcome(&self) -> Option<Outcome> {
            self.0.outcome()
        }
    }

    impl Keyed for PlainTtt {
        type Key = u32;
        fn key(&self) -> u32 {
            self.0.mover | self.0.other << 9
        }
        fn symmetric_keys(&self, keys: &mut Vec<u32>) {
            keys.extend(
                ttt_symmetries()
                    .iter()
                    .map(|m| ttt_map(self.0.mover, m) | ttt_map(self.0.other, m) << 9),
            );
        }
    }

    impl Evaluate for PlainTtt {
        fn evaluate(&self) -> i32 {
            0
        }
    }

    /// `SearchConfig::symmetry` stores positions under their smallest symmetric key: the
    /// search of a plainly keyed game then matches the one keyed canonically, node for node,
    /// with the exact scores, and searches fewer nodes than without it.
    #[test]
    fn symmetry_keys_the_table_as_a_canonical_key_does() {
        let config = |symmetry| SearchConfig {
            memo_bytes: 1 << 20,
            symmetry,
            ..SearchConfig::default()
        };
        let mut memo = std::collections::HashMap::new();
        for (mover, other) in [(0, 0), (1 << 4, 0), (1, 1 << 4), (1 << 1, 1 << 4 | 1)] {
            let mut plain = Searcher::<PlainTtt>::new(config(true));
            let mut canonical = Searcher::<Ttt>::new(config(false));
            let mut without = Searcher::<PlainTtt>::new(config(false));
            let mut g = Ttt { mover, other };
            let a = plain.search(&mut PlainTtt(g.clone()), &Limits::default());
            let b = canonical.search(&mut g, &Limits::default());
            let c = without.search(&mut PlainTtt(g.clone()), &Limits::default());
            assert!(a.exact && b.exact && c.exact);
            let want = ttt_score(&mut g, &mut memo);
            assert_eq!((a.score, b.score, c.score), (want, want, want));
            assert_eq!(a.stats.nodes, b.stats.nodes, "{mover:o} {other:o}");
            assert!(a.stats.nodes <= c.stats.nodes, "{mover:o} {other:o}");
            if mover == 0 {
                // From the empty board, many positions are images of others.
                assert!(a.stats.nodes * 2 < c.stats.nodes, "{a:?} {c:?}");
            }
        }
    }

    /// `Row` with moves that carry the position they were generated in (as moves carry
    /// what `undo` needs, such as the stones a move flips), compared by their cell alone.
    #[derive(Clone)]
    struct CarryRow(Row);

    #[derive(Debug, Clone)]
    struct CarryMove {
        cell: u32,
        before: u32,
    }

    impl PartialEq for CarryMove {
        fn eq(&self, other: &CarryMove) -> bool {
            self.cell == other.cell
        }
    }

    impl Game for CarryRow {
        type Move = CarryMove;
        fn generate_moves(&self, moves: &mut Vec<CarryMove>) {
            let mut cells = Vec::new();
            self.0.generate_moves(&mut cells);
            let before = self.0.stones;
            moves.extend(cells.into_iter().map(|cell| CarryMove { cell, before }));
        }
        fn play(&mut self, mv: &CarryMove) {
            self.0.play(&mv.cell);
        }
        fn undo(&mut self, mv: &CarryMove) {
            self.0.stones = mv.before;
        }
        fn outcome(&self) -> Option<Outcome> {
            self.0.outcome()
        }
    }

    impl Keyed for CarryRow {
        type Key = u32;
        fn key(&self) -> u32 {
            self.0.key()
        }
    }

    impl Evaluate for CarryRow {
        fn evaluate(&self) -> i32 {
            0
        }
    }

    /// The line of play is made of the moves generated for its positions, not of moves the
    /// table remembers from a mirror image (equal by `==`, but carrying the other position):
    /// played and taken back, those would leave the game changed.
    #[test]
    fn the_line_is_made_of_generated_moves() {
        let mut foreign = 0;
        for cells in 6..=14 {
            let mut s = Searcher::<CarryRow>::new(SearchConfig::default());
            for stones in (0..cells).flat_map(|a| (a + 2..cells).map(move |b| 1u32 << a | 1 << b)) {
                let mut g = CarryRow(Row { cells, stones });
                if g.outcome().is_some() {
                    continue;
                }
                // One searcher for every position: the table holds mirror images' moves.
                let r = s.search(&mut g, &Limits::default());
                assert_eq!(g.0.stones, stones, "{cells} {stones:b}: the game changed");
                for mv in &r.pv {
                    let mut moves = Vec::new();
                    g.generate_moves(&mut moves);
                    assert!(moves.contains(mv), "{cells} {stones:b}: {r:?}");
                    foreign += usize::from(mv.before != g.0.stones);
                    g.play(mv);
                }
                for mv in r.pv.iter().rev() {
                    g.undo(mv);
                }
            }
        }
        assert_eq!(foreign, 0, "moves of another position in the lines");
    }

    /// `outcome` is the game's outcome where the result is exact, and nothing otherwise: not
    /// for a heuristic value, and not for a selective game's "loss" (4 stones are a win in
    /// the game, lost only when the taking of two is left out); and so for best-first
    /// results.
    #[test]
    fn the_outcome_is_what_was_proven() {
        let take = |left, only_ones, admits| Take {
            left,
            only_ones,
            admits,
        };
        let mut s = Searcher::<Take>::new(SearchConfig::default());
        // 9 stones: the mover takes to a multiple of 3 and wins; 9 is lost.
        let r = s.search(&mut take(10, false, false), &Limits::default());
        assert_eq!((r.exact, r.outcome()), (true, Some(Outcome::Win)));
        let r = s.search(&mut take(9, false, false), &Limits::default());
        assert_eq!((r.exact, r.outcome()), (true, Some(Outcome::Loss)));
        s.clear_memo();
        let r = s.search(&mut take(40, false, false), &Limits::depth(3));
        assert_eq!((r.exact, r.outcome()), (false, None));
        // Taking one at a time from 4, admitted to leave out moves: every line ends in a
        // loss, but the game is a win.
        let r = s.search(&mut take(4, true, true), &Limits::default());
        assert_eq!(r.score.proven_outcome(), Some(Outcome::Loss));
        assert_eq!((r.exact, r.outcome()), (false, None));
        let mut bf = crate::best_first::BestFirst::new(crate::best_first::BestFirstConfig {
            memory_bytes: 1 << 20,
            policy: crate::best_first::Policy::Principal,
        });
        let r = bf.search(&mut take(10, false, false), &Limits::default());
        assert_eq!((r.exact, r.outcome()), (true, Some(Outcome::Win)));
        let r = bf.search(&mut take(40, false, false), &Limits::nodes(5));
        assert_eq!((r.exact, r.outcome()), (false, None));
        // A position with no move and no end is a draw, and exactly so.
        struct Stuck;
        impl Game for Stuck {
            type Move = u32;
            fn generate_moves(&self, _: &mut Vec<u32>) {}
            fn play(&mut self, _: &u32) {}
            fn undo(&mut self, _: &u32) {}
            fn outcome(&self) -> Option<Outcome> {
                None
            }
        }
        impl Keyed for Stuck {
            type Key = u32;
            fn key(&self) -> u32 {
                0
            }
        }
        impl Evaluate for Stuck {
            fn evaluate(&self) -> i32 {
                7
            }
        }
        let r =
            Searcher::<Stuck>::new(SearchConfig::default()).search(&mut Stuck, &Limits::default());
        assert_eq!((r.exact, r.outcome()), (true, Some(Outcome::Draw)));
        let mut bf =
            crate::best_first::BestFirst::<Stuck>::new(crate::best_first::BestFirstConfig {
                memory_bytes: 1 << 20,
                policy: crate::best_first::Policy::Principal,
            });
        let r = bf.search(&mut Stuck, &Limits::default());
        assert_eq!((r.exact, r.outcome()), (true, Some(Outcome::Draw)));
    }

    /// One move a position, numbered by the ply, for `len` plies; then the side to move
    /// has lost.
    #[derive(Clone)]
    struct Forced {
        at: u32,
        len: u32,
    }

    impl Game for Forced {
        type Move = u32;
        fn generate_moves(&self, moves: &mut Vec<u32>) {
            if self.at < self.len {
                moves.push(self.at);
            }
        }
        fn play(&mut self, &mv: &u32) {
            assert_eq!(mv, self.at, "a move played out of order");
            self.at += 1;
        }
        fn undo(&mut self, _: &u32) {
            self.at -= 1;
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.at == self.len).then_some(Outcome::Loss)
        }
    }

    impl Keyed for Forced {
        type Key = u32;
        fn key(&self) -> u32 {
            self.at
        }
    }

    impl Evaluate for Forced {
        fn evaluate(&self) -> i32 {
            0
        }
    }

    /// A forced line of 2000 plies, deepened one ply at a time to its end, with and without
    /// the table: the line of play is the whole line, in order (lines are built last move
    /// first and turned round at the root).
    #[test]
    fn a_long_forced_line_comes_out_whole_and_in_order() {
        let len = 2000;
        for memo_bytes in [0, 1 << 20] {
            let mut s = Searcher::<Forced>::new(SearchConfig {
                memo_bytes,
                ..SearchConfig::default()
            });
            let r = s.search(&mut Forced { at: 0, len }, &Limits::default());
            assert!(r.exact, "{memo_bytes}: {:?}", r.stats);
            assert_eq!(r.depth, len);
            // An even number of plies: the side to move at the root is the one left stuck.
            assert_eq!(r.score, Score::loss_in(len));
            assert_eq!(r.pv, (0..len).collect::<Vec<_>>());
        }
    }

    /// Take 1, 3 or 4 from a pile; whoever cannot move loses (the side to move loses
    /// exactly when the pile is 0 or 2 modulo 7).
    #[derive(Clone)]
    struct Subtract(u32);

    impl Game for Subtract {
        type Move = u32;
        fn generate_moves(&self, moves: &mut Vec<u32>) {
            moves.extend([1, 3, 4].into_iter().filter(|&k| k <= self.0));
        }
        fn play(&mut self, mv: &u32) {
            self.0 -= mv;
        }
        fn undo(&mut self, mv: &u32) {
            self.0 += mv;
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.0 == 0).then_some(Outcome::Loss)
        }
    }

    impl Keyed for Subtract {
        type Key = u32;
        fn key(&self) -> u32 {
            self.0
        }
    }

    impl Evaluate for Subtract {
        fn evaluate(&self) -> i32 {
            0
        }
    }

    /// A proven result comes with a line of play to the end it names, as long as the
    /// distance, even where the search proved it in fewer iterations than that (the table
    /// and mate-distance pruning settle lines early, more so in a searcher used before).
    #[test]
    fn a_proven_line_reaches_the_end_it_names() {
        let check = |s: &mut Searcher<Subtract>, n: u32| {
            let mut g = Subtract(n);
            let r = s.search(&mut g, &Limits::default());
            assert!(r.exact, "{n}: {r:?}");
            let lost = matches!(n % 7, 0 | 2);
            assert_eq!(
                r.outcome(),
                Some(if lost { Outcome::Loss } else { Outcome::Win })
            );
            let plies = r.score.plies_to_end().unwrap() as usize;
            assert_eq!(r.pv.len(), plies, "{n}: depth {} {r:?}", r.depth);
            for mv in &r.pv {
                let mut moves = Vec::new();
                g.generate_moves(&mut moves);
                assert!(moves.contains(mv), "{n}: {r:?}");
                g.play(mv);
            }
            assert_eq!(g.0, 0, "{n}: {r:?}");
        };
        let mut reused = Searcher::<Subtract>::new(SearchConfig::default());
        for n in (1..=60).chain((1..=60).rev()) {
            check(&mut Searcher::new(SearchConfig::default()), n);
            check(&mut reused, n);
        }
    }

    /// A search to a given depth short of any result has a line of that many moves: the
    /// move into a horizon leaf (which the table does not hold) ends it.
    #[test]
    fn a_heuristic_line_reaches_the_horizon() {
        for depth in 1..=6 {
            let mut g = Take {
                left: 40,
                only_ones: false,
                admits: false,
            };
            let mut s = Searcher::<Take>::new(SearchConfig::default());
            let r = s.search(&mut g, &Limits::depth(depth));
            assert!(!r.exact, "{depth}: {r:?}");
            assert_eq!(r.pv.len(), depth as usize, "{depth}: {r:?}");
        }
    }

    /// Where the table answers a position of the line, the line goes on with its moves: a
    /// proven win in 3 has a line of 3 moves, not one that stops at the table hit.
    #[test]
    fn the_line_goes_on_through_table_hits() {
        for left in 4..=12 {
            let mut g = Take {
                left,
                only_ones: false,
                admits: false,
            };
            let mut s = Searcher::<Take>::new(SearchConfig::default());
            let r = s.search(&mut g, &Limits::default());
            assert!(r.exact, "{left}: {r:?}");
            let plies = r.score.plies_to_end().unwrap() as usize;
            assert_eq!(r.pv.len(), plies, "{left}: {r:?}");
            // A line of play that ends the game as the score says.
            for mv in &r.pv {
                let mut moves = Vec::new();
                g.generate_moves(&mut moves);
                assert!(moves.contains(mv), "{left}: {r:?}");
                g.play(mv);
            }
            assert_eq!(g.left, 0, "{left}: {r:?}");
        }
    }
}
