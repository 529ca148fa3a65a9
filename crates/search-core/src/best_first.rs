//! Best-first search over a tree grown in a flat arena.
//!
//! Alpha-beta searches the whole tree to a uniform depth, again at every iteration. A best-first
//! search instead keeps the tree it has grown in memory and, at each step, walks from the root
//! to the one leaf that looks most worth looking at, expands it (creates and evaluates all its
//! children at once) and backs the new values up to the root by negamax. Time goes where the
//! game is decided, lines grow as deep as they need, and the work of one move can be kept for
//! the next (see [`BestFirst::advance`]).
//!
//! # Layout
//!
//! The tree lives in two parallel vectors indexed by `u32`: a 16-byte header per node (score,
//! visit count, first child, child count, best child) and the node's move. The children of a
//! node are allocated together when it is expanded, so they are contiguous and the header only
//! needs the index of the first one; a node never stores its parent or its position, because
//! the walk from the root replays the moves on the caller's game. The caller chooses the memory
//! bound in bytes; when an expansion would cross it the search stops and says so
//! ([`BestFirstResult::arena_full`]).
//!
//! The tree is a tree: a position reached by two move orders is two nodes, grown and proven
//! apart (the search keeps no table and asks for no [`Keyed`](crate::Keyed) key). Where
//! transpositions abound, as in small games played to the end, the arena fills with copies
//! long before the root is proven; there the [`Searcher`](crate::Searcher) or the
//! [`Solver`](crate::Solver), whose tables answer every copy at once, prove it.
//!
//! # Values
//!
//! Each node's score is its negamax value for its own side to move, with proven results counted
//! in plies from that node ([`Score`]). Leaves score by [`Evaluate::evaluate`] or by their
//! outcome; an interior node takes the best of its negated children. A node is *closed* when
//! growing the tree cannot change its outcome (a finished game, a child closed and lost for its
//! mover, or all children closed); closed nodes are never selected again, and when the root is
//! closed the search stops. Stopping at the first proven win is what makes best-first search a
//! good solver, at a price: the distance of a proven win is that of the win found, which may
//! not be the quickest one (it is never claimed quicker than it is); and so a proven loss may
//! come sooner than its distance says (the opponent's wins found need not be the quickest), but
//! never later.
//!
//! A closed node is also *exact* (its outcome is the game's) unless its value rests on moves
//! left out: where [`Game::is_selective`] says the generated moves are not all that matter, or
//! where a position has more than 16,383 moves (a node keeps the first 16,383 in the game's
//! move order), only a win found among the moves kept is proven; a draw or a loss there holds
//! among those moves alone. A search whose root is closed but not exact stops with
//! [`BestFirstResult::exact`] false.
//!
//! [`Game::is_selective`]: crate::Game::is_selective
//!
//! # Selection policies
//!
//! [`Policy`] says which child to descend into: the rule of the classic Gomoku arena programs
//! (score minus a multiple of the visits), the principal variation (best-first minimax), or UCT
//! on a squashed score.
//!
//! ```
//! use search_core::best_first::{BestFirst, BestFirstConfig, Policy};
//! use search_core::{Evaluate, Game, Limits, Outcome, Score};
//!
//! /// Take 1, 2 or 3 from a pile; whoever takes the last stone wins.
//! struct Nim(u32);
//! impl Game for Nim {
//!     type Move = u32;
//!     fn generate_moves(&self, m: &mut Vec<u32>) { m.extend((1..=3).filter(|&k| k <= self.0)) }
//!     fn play(&mut self, k: &u32) { self.0 -= k }
//!     fn undo(&mut self, k: &u32) { self.0 += k }
//!     fn outcome(&self) -> Option<Outcome> { (self.0 == 0).then_some(Outcome::Loss) }
//! }
//! impl Evaluate for Nim {
//!     fn evaluate(&self) -> i32 { 0 }
//! }
//!
//! let config = BestFirstConfig { memory_bytes: 1 << 20, policy: Policy::Principal };
//! let mut search = BestFirst::new(config);
//! let mut game = Nim(10);
//! let r = search.search(&mut game, &Limits::default());
//! assert!(r.exact);
//! assert_eq!(r.best_move, Some(2)); // leave a multiple of 4
//! assert_eq!(r.score, Score::win_in(5));
//! assert_eq!(game.0, 10); // the game is left as it was
//! assert!(search.arena_bytes() <= 1 << 20);
//! ```

use std::time::{Duration, Instant};

use crate::alphabeta::Halt;
use crate::{Evaluate, Limits, Outcome, Score, Stats};

/// Which child a [`BestFirst`] search descends into on its way to the next leaf.
///
/// Whatever the policy, closed children are skipped and the values backed up are plain negamax
/// values, so on a tree small enough to expand completely every policy finds the same
/// outcome (win, draw or loss); policies differ in what they look at first, and so may
/// name different moves, and a win found first need not be the quickest (a node is closed at
/// the first proven win among its children).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Policy {
    /// The highest child value minus `visit_weight` per visit of the child: the rule of the
    /// classic arena Gomoku programs. The visit penalty lets a child that keeps being chosen
    /// give way to its siblings now and then, so the search widens as it deepens.
    ScoreMinusVisits {
        /// Score units subtracted per visit (8 in the classic programs, whose scores run in
        /// the tens to hundreds). At 0 it always takes the highest value, as
        /// [`Policy::Principal`] does (up to ties); a negative weight
        /// rewards visits and so narrows the search instead of widening it.
        visit_weight: i32,
    },
    /// Always the best child (fewest visits on ties): best-first minimax, which expands the
    /// leaf at the end of the principal variation. It never looks at a sibling until that
    /// sibling's value is the best, so a sibling whose evaluation undersells it (an unseen
    /// win in three, say) may wait for a long time while the best-looking child is expanded
    /// again and again; [`Policy::Uct`] or [`Policy::ScoreMinusVisits`] spread the search
    /// and find such moves far sooner. Like every policy here it proves a win by finding one
    /// winning child, but a draw or a loss only by closing every child, which on a game of
    /// any size is the exact [`Solver`](crate::Solver)'s job.
    Principal,
    /// UCT: the child value squashed into `-1..1` by `v / (scale + |v|)`, plus
    /// `exploration * sqrt(ln(parent visits) / (child visits + 1))`.
    Uct {
        /// Weight of the exploration term (about 0.5 to 1.5; finite and non-negative).
        exploration: f64,
        /// Score magnitude that counts as "half decided" (a typical evaluation difference;
        /// positive: 0 or less counts as 1, which squashes every value but the smallest to
        /// about its sign).
        scale: f64,
    },
}

impl Default for Policy {
    /// [`Policy::Principal`].
    fn default() -> Self {
        Policy::Principal
    }
}

/// Options of a [`BestFirst`] search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BestFirstConfig {
    /// Upper bound on the memory of the tree, in bytes. The arena holds
    /// `memory_bytes / BestFirst::node_bytes()` nodes (at least one, the root).
    pub memory_bytes: usize,
    /// How the next leaf is chosen.
    pub policy: Policy,
}

impl Default for BestFirstConfig {
    /// 64 MiB, [`Policy::Principal`].
    fn default() -> Self {
        BestFirstConfig {
            memory_bytes: 64 << 20,
            policy: Policy::Principal,
        }
    }
}

/// The answer of a [`BestFirst`] search.
#[derive(Debug, Clone, PartialEq)]
pub struct BestFirstResult<M> {
    /// The move to play: the root child with the best backed-up value. `None` only when the
    /// game is over or has no move.
    pub best_move: Option<M>,
    /// The root's backed-up value for the side to move.
    pub score: Score,
    /// The line of best children from the root, starting with `best_move` (empty when the
    /// tree has no room for the root's children, as with no memory: `best_move` is then the
    /// first of the legal moves in the game's order).
    pub pv: Vec<M>,
    /// Whether the outcome of `score` (win, draw or loss) is the game's: every line that
    /// matters reached its end, none through moves left out (by the game,
    /// [`Game::is_selective`](crate::Game::is_selective), or past the first 16,383 moves of a
    /// position, which is all a node keeps). A proven win's distance is that of the win
    /// found, and a proven loss's that of the opponent's wins found: the outcome is the
    /// game's, the distance need not be. A search whose root is closed over moves left out
    /// ends with `exact`, `stopped` and `arena_full` all false: nothing more can be searched.
    pub exact: bool,
    /// Whether a node, time or stop limit ended the search.
    pub stopped: bool,
    /// Whether the search ended because the next expansion would not fit in the memory bound.
    pub arena_full: bool,
    /// Nodes in the tree (including the root and any kept from earlier searches).
    pub tree_nodes: usize,
    /// Leaves expanded by this search.
    pub expansions: u64,
    /// Deepest leaf expanded, in plies from the root.
    pub max_depth: u32,
    /// Nodes created (`nodes`) and finished positions met (`terminals`) by this search.
    pub stats: Stats,
    /// Wall time spent.
    pub elapsed: Duration,
}

impl<M> BestFirstResult<M> {
    /// The game's outcome for the side to move when the result is
    /// [`exact`](BestFirstResult::exact): win, loss or draw; `None` otherwise (a closed root
    /// of a selective game has an outcome of its kept moves only).
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        self.exact
            .then(|| self.score.proven_outcome().unwrap_or(Outcome::Draw))
    }
}

/// Set in [`Header::best`] when the node's outcome can no longer change.
const CLOSED: u16 = 0x8000;
/// Set in [`Header::best`] of a closed node whose outcome rests on moves left out.
const UNPROVEN: u16 = 0x4000;
/// [`Header::best`] value of a node without a best child.
const NO_BEST: u16 = 0x3fff;
/// Set in [`Header::children`] when the node's children leave out moves that could matter.
const SELECTIVE: u16 = 0x8000;
/// Children kept per node (the game's first ones in its move order).
const MAX_CHILDREN: usize = 0x3fff;

/// Everything but the move of a node: 16 bytes.
#[derive(Debug, Clone, Copy)]
struct Header {
    /// Arena index of the first child (children are contiguous); 0 when unexpanded.
    first_child: u32,
    /// Times a selection walk passed through this node.
    visits: u32,
    /// Negamax value for this node's side to move (proven results counted from this node).
    score: i32,
    /// Number of children in the low 14 bits (0 for a leaf), [`SELECTIVE`] in the top bit.
    children: u16,
    /// Offset of the best child in the low 14 bits, [`CLOSED`] and [`UNPROVEN`] above.
    best: u16,
}

impl Header {
    /// The [`Header::best`] flags of a node: closed, and exact unless `proven` is false.
    fn flags(closed: bool, proven: bool) -> u16 {
        match (closed, proven) {
            (false, _) => 0,
            (true, true) => CLOSED,
            (true, false) => CLOSED | UNPROVEN,
        }
    }
    /// A leaf; a closed one is exact unless `proven` is false.
    fn leaf(score: Score, closed: bool, proven: bool) -> Header {
        let flags = Header::flags(closed, proven);
        Header {
            first_child: 0,
            visits: 0,
            score: score.0,
            children: 0,
            best: NO_BEST | flags,
        }
    }
    fn closed(&self) -> bool {
        self.best & CLOSED != 0
    }
    /// Closed, with the game's outcome.
    fn exact(&self) -> bool {
        self.best & (CLOSED | UNPROVEN) == CLOSED
    }
    fn count(&self) -> usize {
        usize::from(self.children & !SELECTIVE)
    }
    fn selective(&self) -> bool {
        self.children & SELECTIVE != 0
    }
    fn best_offset(&self) -> Option<u32> {
        let b = self.best & NO_BEST;
        (b != NO_BEST).then_some(u32::from(b))
    }
    /// Neither expanded nor closed: the only kind of node a search expands.
    fn open_leaf(&self) -> bool {
        self.count() == 0 && !self.closed()
    }
}

/// A child's value seen from its parent: negated, and one ply further from a proven end.
fn up(child: i32) -> Score {
    let s = -child;
    if s > Score::MAX_HEURISTIC {
        Score((s - 1).max(Score::MAX_HEURISTIC + 1))
    } else if s < -Score::MAX_HEURISTIC {
        Score((s + 1).min(-Score::MAX_HEURISTIC - 1))
    } else {
        Score(s)
    }
}

/// A best-first search with its tree; see the [module documentation](self).
///
/// The tree survives between calls: [`BestFirst::search`] starts from scratch,
/// [`BestFirst::advance`] keeps the subtree below the moves actually played, and
/// [`BestFirst::grow`] continues growing the kept tree.
#[derive(Debug)]
pub struct BestFirst<G: Evaluate> {
    config: BestFirstConfig,
    /// Node headers; index 0 is the root.
    headers: Vec<Header>,
    /// `moves[i - 1]` is the move into node `i` (the root has none).
    moves: Vec<G::Move>,
    /// Nodes the memory bound allows.
    capacity: usize,
    /// The selection walk: arena indices, root first.
    path: Vec<u32>,
    scratch: Vec<G::Move>,
}

impl<G: Evaluate> BestFirst<G> {
    /// An empty search with the given options.
    #[must_use]
    pub fn new(config: BestFirstConfig) -> Self {
        let capacity = (config.memory_bytes / Self::node_bytes()).clamp(1, u32::MAX as usize);
        BestFirst {
            config,
            headers: Vec::new(),
            moves: Vec::new(),
            capacity,
            path: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Bytes one node takes in the arena (header plus move).
    #[must_use]
    pub fn node_bytes() -> usize {
        std::mem::size_of::<Header>() + std::mem::size_of::<G::Move>()
    }

    /// Most nodes the tree may hold under the memory bound.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Nodes in the tree now (0 before the first search).
    #[must_use]
    pub fn tree_nodes(&self) -> usize {
        self.headers.len()
    }

    /// Bytes reserved by the arena: never more than the configured bound, except that the
    /// arena always holds the root node (its header, [`BestFirst::node_bytes`] at most),
    /// however small the bound.
    #[must_use]
    pub fn arena_bytes(&self) -> usize {
        self.headers.capacity() * std::mem::size_of::<Header>()
            + self.moves.capacity() * std::mem::size_of::<G::Move>()
    }

    /// The options.
    #[must_use]
    pub fn config(&self) -> BestFirstConfig {
        self.config
    }

    /// Changes the selection policy; the tree is kept (values do not depend on the policy).
    pub fn set_policy(&mut self, policy: Policy) {
        self.config.policy = policy;
    }

    /// Reserves the whole arena now, so that no search pauses to grow it (a reallocation
    /// copies the tree: tens of milliseconds for a large one). Operating systems commit the
    /// pages only when they are first written, so this costs address space, not memory. An
    /// arena larger than the address space the machine gives aborts the process, as a failed
    /// allocation does: [`BestFirst::try_reserve_all`] returns the error instead.
    pub fn reserve_all(&mut self) {
        self.headers
            .reserve_exact(self.capacity.saturating_sub(self.headers.len()));
        self.moves
            .reserve_exact((self.capacity - 1).saturating_sub(self.moves.len()));
    }

    /// As [`BestFirst::reserve_all`], or the allocation's error if the arena cannot be had
    /// (the tree is then as it was; part of the arena may have been reserved).
    ///
    /// # Errors
    /// When the arena cannot be allocated.
    pub fn try_reserve_all(&mut self) -> Result<(), std::collections::TryReserveError> {
        let headers = self.capacity.saturating_sub(self.headers.len());
        let moves = (self.capacity - 1).saturating_sub(self.moves.len());
        self.headers.try_reserve_exact(headers)?;
        self.moves.try_reserve_exact(moves)
    }

    /// Forgets the tree (the arena's memory is kept for the next search).
    pub fn clear(&mut self) {
        self.headers.clear();
        self.moves.clear();
    }

    /// The root's children as `(move, value for the root's side to move, visits, exact)`, in
    /// the game's move order: what the search thinks of each move.
    #[must_use]
    pub fn root_children(&self) -> Vec<(G::Move, Score, u32, bool)> {
        let Some(root) = self.headers.first() else {
            return Vec::new();
        };
        self.child_range(root)
            .map(|c| {
                let h = self.headers[c];
                (self.moves[c - 1].clone(), up(h.score), h.visits, h.exact())
            })
            .collect()
    }

    fn child_range(&self, h: &Header) -> std::ops::Range<usize> {
        let first = h.first_child as usize;
        first..first + h.count()
    }

    /// Searches `game` from scratch until the root is closed, a limit is reached or the arena
    /// is full. `game` is left as it was. [`Limits::depth`] and [`Limits::soft_time`] are
    /// ignored (a best-first tree has no uniform depth and no iterations; use
    /// [`Limits::time`]); [`Limits::nodes`] counts the nodes this search creates.
    pub fn search(&mut self, game: &mut G, limits: &Limits) -> BestFirstResult<G::Move> {
        self.clear();
        self.grow(game, limits)
    }

    /// Like [`BestFirst::search`], but keeps growing the current tree, which must be the tree of
    /// `game`: the one of the last search, moved along by [`BestFirst::advance`] with the
    /// moves played since. After [`BestFirst::clear`] it is a fresh search.
    pub fn grow(&mut self, game: &mut G, limits: &Limits) -> BestFirstResult<G::Move> {
        let start = Instant::now();
        let halt = Halt::new(limits, start, 0);
        let mut result = BestFirstResult {
            best_move: None,
            score: Score::DRAW,
            pv: Vec::new(),
            exact: false,
            stopped: false,
            arena_full: false,
            tree_nodes: 0,
            expansions: 0,
            max_depth: 0,
            stats: Stats::default(),
            elapsed: Duration::ZERO,
        };
        if self.headers.is_empty() {
            let root = match game.outcome() {
                Some(o) => Header::leaf(Score::from_outcome(o, 0), true, true),
                None => Header::leaf(Score::heuristic(game.evaluate()), false, false),
            };
            if self.headers.capacity() == 0 {
                self.headers.reserve_exact(1);
            }
            self.headers.push(root);
            result.stats.nodes += 1;
        }
        loop {
            if self.headers[0].closed() {
                break;
            }
            // Always expand the root once, so that there is a move to give.
            let root_open = self.headers[0].open_leaf();
            if !root_open && halt.reached(result.stats.nodes) {
                result.stopped = true;
                break;
            }
            match self.step(game, &mut result) {
                Step::Expanded => {}
                Step::Full => {
                    result.arena_full = true;
                    break;
                }
                Step::Nothing => break,
            }
        }
        self.fill_answer(game, &mut result);
        result.elapsed = start.elapsed();
        result
    }

    /// One selection, expansion and backup. Leaves `game` as it found it.
    fn step(&mut self, game: &mut G, result: &mut BestFirstResult<G::Move>) -> Step {
        // Selection: walk down the open children, playing their moves.
        self.path.clear();
        self.path.push(0);
        let mut node = 0usize;
        loop {
            let h = self.headers[node];
            if h.count() == 0 {
                break;
            }
            self.headers[node].visits = h.visits.saturating_add(1);
            match self.select_child(&h) {
                Some(c) => {
                    game.play(&self.moves[c - 1]);
                    self.path.push(c as u32);
                    node = c;
                }
                None => {
                    // Every child is closed but the node was not marked so: cannot happen with
                    // consistent backups; repair the node and stop this walk.
                    self.unwind(game);
                    self.backup(&[]);
                    return Step::Nothing;
                }
            }
        }
        self.headers[node].visits = self.headers[node].visits.saturating_add(1);
        if !self.headers[node].open_leaf() {
            self.unwind(game);
            return Step::Nothing;
        }

        // Expansion: all children at once, contiguous at the end of the arena.
        let mut moves = std::mem::take(&mut self.scratch);
        moves.clear();
        game.generate_moves(&mut moves);
        game.order_moves(&mut moves);
        let selective = game.is_selective(&moves) || moves.len() > MAX_CHILDREN;
        moves.truncate(MAX_CHILDREN);
        let first = self.headers.len();
        if first + moves.len() > self.capacity {
            self.scratch = moves;
            self.unwind(game);
            return Step::Full;
        }
        self.reserve(moves.len());
        if moves.is_empty() {
            // No move and no outcome: a draw by the convention of this crate (unproven when
            // the game admits to leaving moves out).
            self.headers[node] = Header::leaf(Score::DRAW, true, !selective);
        } else {
            for mv in &moves {
                game.play(mv);
                let child = match game.outcome() {
                    Some(o) => {
                        result.stats.terminals += 1;
                        Header::leaf(Score::from_outcome(o, 0), true, true)
                    }
                    None => Header::leaf(Score::heuristic(game.evaluate()), false, false),
                };
                game.undo(mv);
                self.headers.push(child);
                self.moves.push(mv.clone());
            }
            result.stats.nodes += moves.len() as u64;
            let h = &mut self.headers[node];
            h.first_child = first as u32;
            h.children = moves.len() as u16 | if selective { SELECTIVE } else { 0 };
        }
        self.scratch = moves;
        result.expansions += 1;
        // The path starts at the root, 0 plies deep.
        result.max_depth = result.max_depth.max(self.path.len() as u32 - 1);
        self.unwind(game);
        let path = std::mem::take(&mut self.path);
        self.backup(&path);
        self.path = path;
        Step::Expanded
    }

    /// Grows the arena's reservation for `extra` more nodes, doubling but never past the bound.
    fn reserve(&mut self, extra: usize) {
        let need = self.headers.len() + extra;
        if need > self.headers.capacity() {
            let want = (self.headers.capacity() * 2)
                .max(need)
                .max(64)
                .min(self.capacity);
            self.headers.reserve_exact(want - self.headers.len());
        }
        // `moves` holds one entry less than `headers` (no root move).
        let need = need - 1;
        if need > self.moves.capacity() {
            let want = (self.moves.capacity() * 2)
                .max(need)
                .max(64)
                .min(self.capacity - 1);
            self.moves.reserve_exact(want - self.moves.len());
        }
    }

    /// Takes back the moves of the selection walk.
    fn unwind(&self, game: &mut G) {
        for &i in self.path[1..].iter().rev() {
            game.undo(&self.moves[i as usize - 1]);
        }
    }

    /// The child of `h` to descend into, by the policy; `None` when all children are closed.
    fn select_child(&self, h: &Header) -> Option<usize> {
        let range = self.child_range(h);
        let mut best: Option<(usize, f64)> = None;
        let parent_visits = f64::from(h.visits.max(1));
        for c in range {
            let ch = self.headers[c];
            if ch.closed() {
                continue;
            }
            let v = f64::from(up(ch.score).0);
            let visits = f64::from(ch.visits);
            let priority = match self.config.policy {
                Policy::ScoreMinusVisits { visit_weight } => v - f64::from(visit_weight) * visits,
                // Fewer visits win ties: a tiny penalty below one score unit.
                Policy::Principal => v - visits / (visits + 1.0) * 0.5,
                Policy::Uct { exploration, scale } => {
                    let scale = if scale > 0.0 { scale } else { 1.0 };
                    v / (scale + v.abs())
                        + exploration * (parent_visits.ln() / (visits + 1.0)).sqrt()
                }
            };
            if best.is_none_or(|(_, p)| priority > p) {
                best = Some((c, priority));
            }
        }
        best.map(|(c, _)| c)
    }

    /// Recomputes value, best child and closure of the nodes of `path` from the bottom up,
    /// stopping as soon as a node does not change. An empty path repairs the root.
    fn backup(&mut self, path: &[u32]) {
        let nodes: Vec<u32> = if path.is_empty() {
            vec![0]
        } else {
            path.to_vec()
        };
        for &n in nodes.iter().rev() {
            let n = n as usize;
            let h = self.headers[n];
            if h.count() == 0 {
                continue;
            }
            let mut best = -Score::INFINITY;
            let mut best_offset = 0usize;
            let (mut all_closed, mut all_exact, mut best_exact) = (true, true, false);
            let mut best_sure = false;
            for (k, c) in self.child_range(&h).enumerate() {
                let ch = self.headers[c];
                let v = up(ch.score);
                // A proven win before anything else, even a quicker win through moves left
                // out; then the higher value; of equal values, an exact one: the value is
                // then proven, with its move.
                let sure = ch.exact() && v.proven_outcome() == Some(Outcome::Win);
                if (sure, v, ch.exact()) > (best_sure, best, best_exact) {
                    (best_sure, best, best_exact) = (sure, v, ch.exact());
                    best_offset = k;
                }
                all_closed &= ch.closed();
                all_exact &= ch.exact();
            }
            let best_child = self.headers[h.first_child as usize + best_offset];
            let closed = all_closed || (best_child.closed() && best.proven_outcome().is_some());
            // A win needs one winning move, the best one (a proven win whenever there is
            // one); any other outcome needs every move, so none may have been left out.
            let exact = (best_exact && best.proven_outcome() == Some(Outcome::Win))
                || (all_exact && !h.selective());
            let new_best = best_offset as u16 | Header::flags(closed, exact);
            let changed = h.score != best.0 || h.best != new_best;
            self.headers[n].score = best.0;
            self.headers[n].best = new_best;
            if !changed {
                break;
            }
        }
    }

    fn fill_answer(&self, game: &G, result: &mut BestFirstResult<G::Move>) {
        let root = self.headers[0];
        result.score = Score(root.score);
        result.exact = root.exact();
        result.tree_nodes = self.headers.len();
        let mut h = root;
        while let Some(b) = h.best_offset().filter(|_| h.count() > 0) {
            let c = h.first_child as usize + b as usize;
            result.pv.push(self.moves[c - 1].clone());
            h = self.headers[c];
        }
        result.best_move = result.pv.first().cloned();
        if result.best_move.is_none() && game.outcome().is_none() {
            // The arena could not even hold the root's children: still give a legal move.
            let mut moves = Vec::new();
            game.generate_moves(&mut moves);
            game.order_moves(&mut moves);
            result.best_move = moves.into_iter().next();
        }
    }

    /// Re-roots the tree at the position reached by `moves` from the current root, keeping that
    /// subtree (compacted in place, so the memory bound holds) and dropping the rest. Returns
    /// the number of nodes kept; 0 when the line left the tree, in which case the tree is
    /// cleared and the next [`BestFirst::grow`] starts afresh.
    pub fn advance(&mut self, moves: &[G::Move]) -> usize {
        if self.headers.is_empty() {
            return 0;
        }
        let mut node = 0usize;
        for mv in moves {
            let h = self.headers[node];
            match self.child_range(&h).find(|&c| self.moves[c - 1] == *mv) {
                Some(c) => node = c,
                None => {
                    self.clear();
                    return 0;
                }
            }
        }
        if node == 0 {
            return self.headers.len();
        }
        // The children blocks of the subtree, in arena order. Blocks were appended in
        // expansion order, so moving each one down to a write cursor never overwrites a block
        // still to be moved.
        let mut blocks: Vec<(u32, usize)> = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let h = self.headers[n];
            if h.count() > 0 {
                blocks.push((h.first_child, h.count()));
                stack.extend(self.child_range(&h));
            }
        }
        blocks.sort_unstable();
        let mut new_root = self.headers[node];
        let mut cursor = 1usize;
        let mut remap: Vec<(u32, u32)> = Vec::with_capacity(blocks.len());
        for &(first, len) in &blocks {
            let first = first as usize;
            remap.push((first as u32, cursor as u32));
            for k in 0..len {
                self.headers[cursor + k] = self.headers[first + k];
                self.moves.swap(cursor + k - 1, first + k - 1);
            }
            cursor += len;
        }
        self.headers.truncate(cursor);
        self.moves.truncate(cursor - 1);
        let new_index = |old: u32| -> u32 {
            let i = remap.partition_point(|&(o, _)| o < old);
            remap.get(i).map_or(0, |&(_, n)| n)
        };
        if new_root.count() > 0 {
            new_root.first_child = new_index(new_root.first_child);
        }
        self.headers[0] = new_root;
        for i in 1..self.headers.len() {
            if self.headers[i].count() > 0 {
                self.headers[i].first_child = new_index(self.headers[i].first_child);
            }
        }
        self.headers.len()
    }
}

enum Step {
    Expanded,
    Full,
    Nothing,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;

    #[test]
    fn header_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Header>(), 16);
    }

    #[test]
    fn up_moves_proven_scores_one_ply() {
        assert_eq!(up(Score::loss_in(3).0), Score::win_in(4));
        assert_eq!(up(Score::win_in(0).0), Score::loss_in(1));
        assert_eq!(up(17), Score(-17));
        // The heuristic band's edges stay put; the proven band's far ends stay proven.
        let max = Score::MAX_HEURISTIC;
        assert_eq!(up(-max), Score(max));
        assert_eq!(up(max), Score(-max));
        assert_eq!(up(-max - 1), Score(max + 1));
        assert_eq!(up(max + 1), Score(-max - 1));
        assert_eq!(up(-max - 2), Score(max + 1));
        assert_eq!(up(max + 2), Score(-max - 1));
    }

    #[test]
    fn a_solved_tree_reports_its_root_moves_and_proven_values() {
        use crate::minimax;
        use crate::synthetic::RandomGame;
        let mut game = RandomGame::bushy(9, 1 << 40, 5, 2);
        let config = BestFirstConfig {
            memory_bytes: 1 << 20,
            policy: Policy::ScoreMinusVisits { visit_weight: 8 },
        };
        let mut bf = BestFirst::new(config);
        assert_eq!(bf.config(), config);
        bf.set_policy(Policy::Principal);
        assert_eq!(bf.config().policy, Policy::Principal);
        assert!(bf.root_children().is_empty());
        let r = bf.search(&mut game, &Limits::default());
        assert!(r.exact && r.stats.terminals > 0);
        let mut moves = Vec::new();
        game.generate_moves(&mut moves);
        game.order_moves(&mut moves);
        let children = bf.root_children();
        assert_eq!(children.len(), moves.len());
        // A proven root needs only some of its children exact; those carry their values.
        let (mut exact_children, mut visits_seen) = (0, 0);
        for ((mv, score, visits, exact), expected) in children.into_iter().zip(moves) {
            assert_eq!(mv, expected);
            visits_seen += visits;
            if exact {
                exact_children += 1;
                game.play(&mv);
                let value = minimax::solve(&mut game).flip();
                game.undo(&mv);
                assert_eq!(score.proven_outcome().unwrap_or(Outcome::Draw), value);
            }
        }
        assert!(exact_children > 0 && visits_seen > 0);
        let root = r.score.proven_outcome().unwrap_or(Outcome::Draw);
        assert_eq!(root, minimax::solve(&mut game));
    }

    /// The random game with one position in eight (by id; never the root) cut to its first
    /// move, saying so or not.
    struct Cut {
        game: crate::synthetic::RandomGame,
        admits: bool,
    }

    impl Cut {
        fn cut_here(&self) -> bool {
            let path = self.game.path();
            path.len() > 1 && path.last().is_some_and(|id| id % 8 == 0)
        }
    }

    impl Game for Cut {
        type Move = <crate::synthetic::RandomGame as Game>::Move;
        fn generate_moves(&self, moves: &mut Vec<Self::Move>) {
            self.game.generate_moves(moves);
            if self.cut_here() {
                moves.truncate(1);
            }
        }
        fn play(&mut self, mv: &Self::Move) {
            self.game.play(mv);
        }
        fn undo(&mut self, mv: &Self::Move) {
            self.game.undo(mv);
        }
        fn outcome(&self) -> Option<crate::Outcome> {
            self.game.outcome()
        }
        fn is_selective(&self, moves: &[Self::Move]) -> bool {
            let mut all = Vec::new();
            self.game.generate_moves(&mut all);
            self.admits && moves.len() < all.len()
        }
    }

    impl Evaluate for Cut {
        fn evaluate(&self) -> i32 {
            self.game.evaluate()
        }
    }

    /// Proofs through a cut position are claimed only for wins, and those hold in the whole
    /// game; a game that hides its cuts gets false proofs, which is what the flag is for.
    #[test]
    fn moves_left_out_prove_only_wins() {
        use crate::minimax;
        use crate::synthetic::RandomGame;
        let (mut exact, mut unproven, mut fooled) = (0, 0, 0);
        for seed in 0..200 {
            let game = RandomGame::bushy(seed, 1 << 40, 4, 3);
            let value = minimax::solve(&mut game.clone());
            for admits in [true, false] {
                let mut cut = Cut {
                    game: game.clone(),
                    admits,
                };
                let mut bf = BestFirst::new(BestFirstConfig::default());
                let r = bf.search(&mut cut, &Limits::default());
                // The tree is small enough to close whatever is kept.
                assert!(!r.stopped && !r.arena_full);
                assert!(bf.headers[0].closed());
                let found = r.score.proven_outcome().unwrap_or(Outcome::Draw);
                if !admits {
                    fooled += usize::from(r.exact && found != value);
                    continue;
                }
                if r.exact {
                    exact += 1;
                    assert_eq!(found, value, "seed {seed}");
                } else {
                    unproven += 1;
                }
                // So does every root move reported exact.
                for (mv, score, _, child_exact) in bf.root_children() {
                    if child_exact {
                        let mut g = game.clone();
                        g.play(&mv);
                        let v = minimax::solve(&mut g).flip();
                        assert_eq!(score.proven_outcome().unwrap_or(Outcome::Draw), v);
                    }
                }
            }
        }
        assert!(
            exact > 5 && unproven > 5 && fooled > 5,
            "{exact} {unproven} {fooled}"
        );
    }

    /// A root with `n` moves, all lost at once but the last, which wins at once.
    struct Wide {
        n: u32,
        /// The one winning move, if any.
        wins: Option<u32>,
        played: Option<u32>,
    }

    impl Game for Wide {
        type Move = u32;
        fn generate_moves(&self, moves: &mut Vec<u32>) {
            moves.extend(0..self.n);
        }
        fn play(&mut self, mv: &u32) {
            self.played = Some(*mv);
        }
        fn undo(&mut self, _mv: &u32) {
            self.played = None;
        }
        fn outcome(&self) -> Option<Outcome> {
            // Seen from the side to move after the root's move.
            self.played.map(|m| {
                if Some(m) == self.wins {
                    Outcome::Loss
                } else {
                    Outcome::Win
                }
            })
        }
    }

    impl Evaluate for Wide {
        fn evaluate(&self) -> i32 {
            0
        }
    }

    /// A proven win is preferred to a quicker one through moves left out (which may not be
    /// a win at all): the root takes the proven win's distance and move, and is exact.
    #[test]
    fn a_win_is_proven_by_the_best_child_alone() {
        let (quick, slow) = (Score::loss_in(2).0, Score::loss_in(4).0);
        let run = |kids: [(i32, bool); 2]| {
            let mut bf = tree(Policy::Principal, &[(quick, 0, true), (slow, 0, true)], 0);
            for (k, (score, proven)) in kids.into_iter().enumerate() {
                bf.headers[k + 1] = Header::leaf(Score(score), true, proven);
            }
            bf.backup(&[]);
            let root = bf.headers[0];
            (
                root.closed(),
                root.exact(),
                root.best_offset(),
                Score(root.score),
            )
        };
        // The quick win is unproven: the slow proven one is taken, exact.
        assert_eq!(
            run([(quick, false), (slow, true)]),
            (true, true, Some(1), Score::win_in(5))
        );
        // Neither proven: the quick one, not exact.
        assert_eq!(
            run([(quick, false), (slow, false)]),
            (true, false, Some(0), Score::win_in(3))
        );
        // Both proven: exact, the quick one.
        assert_eq!(
            run([(quick, true), (slow, true)]),
            (true, true, Some(0), Score::win_in(3))
        );
        // Equal wins, one proven: it is taken, whichever comes first, and proves the root.
        assert_eq!(
            run([(quick, false), (quick, true)]),
            (true, true, Some(1), Score::win_in(3))
        );
        assert_eq!(
            run([(quick, true), (quick, false)]),
            (true, true, Some(0), Score::win_in(3))
        );
    }

    #[test]
    fn a_node_cut_to_its_first_moves_proves_only_wins() {
        let most = MAX_CHILDREN as u32;
        for (n, wins, exact, win) in [
            // Every move kept: a win or a loss is the game's.
            (most, Some(most - 1), true, true),
            (most, None, true, false),
            // The win is past the cut: the kept moves all lose, which proves nothing.
            (20_000, Some(19_999), false, false),
        ] {
            let mut game = Wide {
                n,
                wins,
                played: None,
            };
            let mut bf = BestFirst::new(BestFirstConfig::default());
            let r = bf.search(&mut game, &Limits::default());
            assert_eq!(bf.root_children().len(), MAX_CHILDREN.min(n as usize));
            // The kept moves decide the root either way; only with every move kept is a
            // loss the game's.
            assert!(bf.headers[0].closed() && !r.stopped);
            assert_eq!(r.exact, exact, "{n}");
            let outcome = if win { Outcome::Win } else { Outcome::Loss };
            assert_eq!(r.score.proven_outcome(), Some(outcome), "{n}");
        }
    }

    /// After a search stopped midway, every expanded node holds the negamax of its children,
    /// and is closed or exact exactly as the rule says.
    #[test]
    fn every_interior_node_backs_up_its_children() {
        use crate::synthetic::RandomGame;
        for seed in 0..20 {
            let mut game = RandomGame::new(seed, 1 << 40, 12, 4);
            let mut bf = BestFirst::new(BestFirstConfig::default());
            let r = bf.search(&mut game, &Limits::nodes(300 + 50 * seed));
            assert!(r.stats.nodes > 0);
            for h in bf.headers.iter().filter(|h| h.count() > 0) {
                let kids: Vec<Header> = bf.child_range(h).map(|c| bf.headers[c]).collect();
                // The best value, a proven win before any other.
                let sure =
                    |k: &Header| k.exact() && up(k.score).proven_outcome() == Some(Outcome::Win);
                let best = kids.iter().map(|k| (sure(k), up(k.score))).max().unwrap().1;
                assert_eq!(Score(h.score), best, "seed {seed}");
                let all_closed = kids.iter().all(Header::closed);
                let best_kid = kids[h.best_offset().unwrap() as usize];
                assert_eq!(up(best_kid.score), best);
                let closed = all_closed || (best_kid.closed() && best.proven_outcome().is_some());
                assert_eq!(h.closed(), closed, "seed {seed}");
                // Of the best children, an exact one is chosen if there is one.
                let exact_best = kids.iter().any(|k| up(k.score) == best && k.exact());
                assert!(!kids.iter().any(sure) || sure(&best_kid), "seed {seed}");
                assert_eq!(best_kid.exact(), exact_best, "seed {seed}");
                let win = best.proven_outcome() == Some(Outcome::Win);
                let all_exact = kids.iter().all(Header::exact);
                let exact = (exact_best && win) || (all_exact && !h.selective());
                assert_eq!(h.exact(), exact, "seed {seed}");
            }
        }
    }

    #[test]
    fn an_expansion_that_exactly_fills_the_arena_is_made() {
        use crate::synthetic::RandomGame;
        type Bf = BestFirst<RandomGame>;
        let mut game = RandomGame::bushy(9, 1 << 40, 30, 2);
        let mut moves = Vec::new();
        game.generate_moves(&mut moves);
        let nodes = 1 + moves.len();
        let mut bf = Bf::new(BestFirstConfig {
            memory_bytes: nodes * Bf::node_bytes(),
            policy: Policy::Principal,
        });
        let r = bf.search(&mut game, &Limits::default());
        assert_eq!(bf.tree_nodes(), nodes);
        assert!(r.arena_full && !r.exact);
    }

    #[test]
    fn reserving_the_arena_takes_the_bound_and_no_more() {
        type Bf = BestFirst<crate::synthetic::RandomGame>;
        // A 16-byte header and an 8-byte move a node.
        assert_eq!(Bf::node_bytes(), 24);
        let mut bf = Bf::new(BestFirstConfig {
            memory_bytes: 24_000,
            policy: Policy::Principal,
        });
        assert_eq!(bf.capacity(), 1000);
        assert_eq!(bf.arena_bytes(), 0);
        bf.reserve_all();
        // Headers for every node, moves for all but the root.
        assert!(bf.arena_bytes() >= 1000 * 16 + 999 * 8);
        assert!(bf.arena_bytes() <= 24_000);
        // The fallible form reserves the same.
        let mut tried = Bf::new(bf.config());
        tried.try_reserve_all().unwrap();
        assert_eq!(tried.arena_bytes(), bf.arena_bytes());
        // However large the bound, the arena indexes at most u32::MAX nodes.
        let huge = Bf::new(BestFirstConfig {
            memory_bytes: usize::MAX,
            policy: Policy::Principal,
        });
        assert_eq!(huge.capacity(), u32::MAX as usize);
    }

    /// A bare tree: a root with `root_visits` visits over leaves of the given (score for
    /// the leaf's side to move, visits, exact).
    fn tree(
        policy: Policy,
        kids: &[(i32, u32, bool)],
        root_visits: u32,
    ) -> BestFirst<crate::synthetic::RandomGame> {
        let mut bf = BestFirst::new(BestFirstConfig {
            memory_bytes: 1 << 16,
            policy,
        });
        bf.headers.push(Header {
            first_child: 1,
            visits: root_visits,
            score: 0,
            children: kids.len() as u16,
            best: NO_BEST,
        });
        for &(score, visits, exact) in kids {
            let mut h = Header::leaf(Score(score), exact, true);
            h.visits = visits;
            bf.headers.push(h);
        }
        bf
    }

    #[test]
    fn every_policy_picks_the_child_its_formula_ranks_first() {
        // The documented formulas, spelled out again; the first of equal priorities wins.
        fn priority(policy: Policy, v: f64, visits: f64, parent: f64) -> f64 {
            match policy {
                Policy::ScoreMinusVisits { visit_weight } => v - f64::from(visit_weight) * visits,
                Policy::Principal => v - 0.5 * visits / (visits + 1.0),
                Policy::Uct { exploration, scale } => {
                    let scale = if scale > 0.0 { scale } else { 1.0 };
                    v / (scale + v.abs()) + exploration * (parent.ln() / (visits + 1.0)).sqrt()
                }
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut seen = 0;
        for case in 0..3000 {
            let policy = match case % 5 {
                0 => Policy::Principal,
                1 => Policy::ScoreMinusVisits {
                    visit_weight: next(20) as i32 - 4,
                },
                2 => Policy::Uct {
                    exploration: next(30) as f64 / 10.0,
                    scale: next(400) as f64,
                },
                3 => Policy::Uct {
                    exploration: 1.0,
                    scale: -(next(3) as f64),
                },
                _ => Policy::ScoreMinusVisits { visit_weight: 0 },
            };
            let kids: Vec<(i32, u32, bool)> = (0..2 + next(4))
                .map(|_| {
                    // Small scores tie often; some are proven.
                    let score = match next(6) {
                        0 => Score::win_in(next(9) as u32).0,
                        1 => next(7) as i32 - 3,
                        _ => next(2001) as i32 - 1000,
                    };
                    (score, next(12) as u32, next(5) == 0)
                })
                .collect();
            let root_visits = next(300) as u32;
            let bf = tree(policy, &kids, root_visits);
            let parent = f64::from(root_visits.max(1));
            let mut expected: Option<(usize, f64)> = None;
            for (i, &(score, visits, exact)) in kids.iter().enumerate() {
                let v = f64::from(up(score).0);
                let p = priority(policy, v, f64::from(visits), parent);
                if !exact && expected.is_none_or(|(_, q)| p > q) {
                    expected = Some((i + 1, p));
                }
            }
            let got = bf.select_child(&bf.headers[0]);
            assert_eq!(
                got,
                expected.map(|(c, _)| c),
                "{policy:?} {kids:?} {root_visits}"
            );
            seen += usize::from(got.is_some());
        }
        assert!(seen > 2500);
    }
}
