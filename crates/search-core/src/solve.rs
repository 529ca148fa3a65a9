//! Exact win/draw/loss solving with alpha-beta on three values, a bounded memo and symmetry.
//!
//! Each optimisation is a switch in [`SolverConfig`], so the same solver runs as a plain
//! depth-first search, with merged moves, with a memo, and with a memo that also answers
//! symmetric positions; benchmarks compare the levels on the same inputs.
//!
//! With only three values, alpha-beta is very effective: a move that wins ends the search of its
//! position, and a window of (draw, win) only asks "can the side to move win?". The memo
//! stores the bounds such narrow searches prove, not just exact values.

use std::time::Instant;

use crate::alphabeta::Halt;
use crate::game::{generate_moves, memo_wanted};
use crate::{Game, Keyed, Limits, MemoTable, Outcome, Stats};

/// Which optimisations the [`Solver`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SolverConfig {
    /// Search only one move of each [`move_class`](crate::Game::move_class).
    pub merge_moves: bool,
    /// Memo size in bytes; 0 disables the memo (any other size gets at least one bucket of
    /// two entries, which may be more than a size of a few bytes), and so does a game whose
    /// [`Keyed::Key`] has size zero, such as `()`.
    pub memo_bytes: usize,
    /// Store and look up positions under their smallest symmetric key
    /// ([`Keyed::symmetric_keys`]), so one solved position also answers its images.
    pub symmetry: bool,
    /// Search moves in the order of [`Game::order_moves`] (otherwise
    /// in generation order).
    pub order_moves: bool,
}

impl SolverConfig {
    /// Depth-first alpha-beta over every generated move, nothing remembered.
    pub const PLAIN: SolverConfig = SolverConfig {
        merge_moves: false,
        memo_bytes: 0,
        symmetry: false,
        order_moves: false,
    };

    /// Everything on, with a memo of `memo_bytes` bytes.
    #[must_use]
    pub fn full(memo_bytes: usize) -> SolverConfig {
        SolverConfig {
            merge_moves: true,
            memo_bytes,
            symmetry: true,
            order_moves: true,
        }
    }
}

impl Default for SolverConfig {
    /// Everything on, with a 1 MiB memo.
    fn default() -> Self {
        SolverConfig::full(1 << 20)
    }
}

/// What the memo knows about a position: its value lies in `lo..=hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bounds {
    lo: Outcome,
    hi: Outcome,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            lo: Outcome::Loss,
            hi: Outcome::Win,
        }
    }
}

/// An exact win/draw/loss solver for finite games.
///
/// The game must be finite: every line of play ends. (A game with repetitions must put what
/// decides them into its position and key.) The memo persists across calls, so solving many
/// positions of one game reuses earlier work; [`Solver::clear_memo`] forgets it.
///
/// Its memo holds values, not moves, so it cannot try a remembered best move first as the
/// [`Searcher`](crate::Searcher) does: how fast it proves a result rests on the game's own
/// move order ([`SolverConfig::order_moves`], [`Game::order_moves`]). On a game whose moves
/// come in a poor order, the `Searcher` with a table (and no limits, which searches until
/// the value is exact) may prove the same value with fewer nodes; the `Solver` is the one
/// that needs only [`Game`] and [`Keyed`], keeps its results across calls and answers in one
/// pass whatever the length of the game.
///
/// It answers win, draw or loss. For a game with a score (the margin of boxes in Dots and
/// Boxes, say), ask it threshold questions: wrap the game so that a finished game is a win
/// when the side to move's margin is above a threshold `t` (a draw at `t`, a loss below),
/// put `t` in the key (or use one solver per threshold), and find the exact margin by
/// bisection over `t`; the wrapper delegates every other [`Game`] method, including the
/// optional ones the game overrides.
///
/// A game without a memo key can give itself the key `()` (`type Key = (); fn key(&self) {}`):
/// a key of size zero turns the memo off, whatever [`SolverConfig::memo_bytes`] says, and
/// the solver prunes with alpha-beta alone. A small game can also do without a `Solver`:
/// [`minimax::solve`](crate::minimax::solve) visits the whole tree of any [`Game`] (no
/// pruning, no memo).
///
/// The search recurses once a ply, so its stack grows with the longest line of play: a game
/// thousands of plies long wants more stack than a spawned thread's default of 2 MiB (see
/// [`std::thread::Builder::stack_size`]), in debug builds above all.
///
/// ```
/// use search_core::{Game, Keyed, Outcome, Solver, SolverConfig};
///
/// /// Take 1, 2 or 3 from a pile; whoever takes the last stone wins.
/// #[derive(Clone)]
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
///
/// let mut solver = Solver::new(SolverConfig::full(1 << 16));
/// assert_eq!(solver.solve(&mut Nim(40)), Outcome::Loss); // multiples of 4 lose
/// assert_eq!(solver.solve(&mut Nim(41)), Outcome::Win);
/// assert_eq!(solver.best_moves(&mut Nim(41)), vec![1]);
/// assert_eq!(solver.principal_line(&mut Nim(6)), vec![2, 1, 3]);
/// ```
#[derive(Debug)]
pub struct Solver<G: Keyed> {
    config: SolverConfig,
    memo: Option<MemoTable<G::Key, Bounds>>,
    stats: Stats,
    /// One reusable move buffer per ply, so the search does not allocate per node.
    move_stack: Vec<Vec<G::Move>>,
    keys: Vec<G::Key>,
    /// The limits of the running [`Solver::solve_within`], if any.
    halt: Option<Halt>,
    /// Whether they stopped it: every node then returns at once, storing nothing.
    halted: bool,
}

impl<G: Keyed> Solver<G> {
    /// A solver with the given optimisations.
    ///
    /// A memo larger than the machine can give ends the process, as any allocation does;
    /// where the size comes from a user, [`Solver::try_new`] reports that instead.
    #[must_use]
    pub fn new(config: SolverConfig) -> Self {
        Solver::with_memo(
            config,
            memo_wanted::<G>(config.memo_bytes).then(|| MemoTable::with_memory(config.memo_bytes)),
        )
    }

    /// As [`Solver::new`], or the allocation's error if the memo cannot be had.
    ///
    /// # Errors
    /// When the memo's slots cannot be allocated.
    pub fn try_new(config: SolverConfig) -> Result<Self, std::collections::TryReserveError> {
        let memo = if memo_wanted::<G>(config.memo_bytes) {
            Some(MemoTable::try_with_memory(config.memo_bytes)?)
        } else {
            None
        };
        Ok(Solver::with_memo(config, memo))
    }

    fn with_memo(config: SolverConfig, memo: Option<MemoTable<G::Key, Bounds>>) -> Self {
        Solver {
            config,
            memo,
            stats: Stats::default(),
            move_stack: Vec::new(),
            keys: Vec::new(),
            halt: None,
            halted: false,
        }
    }

    /// The configuration it was made with.
    #[must_use]
    pub fn config(&self) -> SolverConfig {
        self.config
    }

    /// Counters accumulated since it was made or [`Solver::reset_stats`].
    #[must_use]
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Zeroes the counters.
    pub fn reset_stats(&mut self) {
        self.stats = Stats::default();
    }

    /// Bytes held by the memo table (0 without a memo). It never grows after construction.
    #[must_use]
    pub fn memo_bytes(&self) -> usize {
        self.memo.as_ref().map_or(0, MemoTable::memory_bytes)
    }

    /// Entries currently in the memo.
    #[must_use]
    pub fn memo_len(&self) -> usize {
        self.memo.as_ref().map_or(0, MemoTable::len)
    }

    /// Forgets everything memoised.
    pub fn clear_memo(&mut self) {
        if let Some(m) = &mut self.memo {
            m.clear();
        }
    }

    /// The exact result of `game` for its side to move. `game` is left as it was.
    ///
    /// The memo is kept from one call to the next, which is what makes solving many positions
    /// of one game fast, and it trusts the keys: before solving a position of another variant
    /// whose keys mean other positions (another board size, another rule), call
    /// [`clear_memo`](Self::clear_memo) or use another solver, or the answer may be wrong
    /// (see [`Keyed`]).
    pub fn solve(&mut self, game: &mut G) -> Outcome {
        // No limits, whatever an earlier `solve_within` left behind: one unwound by a panic
        // in the game's code never cleared its own.
        self.halt = None;
        self.halted = false;
        self.search(game, Outcome::Loss, Outcome::Win, 0)
    }

    /// [`Solver::solve`] under [`Limits::nodes`] (counted from this call), [`Limits::time`]
    /// and [`Limits::stop`], checked every 256 nodes as by the [`Searcher`](crate::Searcher):
    /// `None` when one of them ends the search first. An exact solve has no iterations, so
    /// [`Limits::depth`] and [`Limits::soft_time`] are ignored.
    ///
    /// What the memo learned from the subtrees finished before the stop stays (it is exact),
    /// so solving again, with a larger budget, goes on from there; a stopped search stores
    /// nothing of the positions it left unfinished. `game` is left as it was.
    ///
    /// ```
    /// use search_core::{Game, Keyed, Limits, Outcome, Solver, SolverConfig};
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
    ///
    /// // Without a memo the plain search of a pile of 40 visits millions of positions.
    /// let mut solver = Solver::new(SolverConfig::PLAIN);
    /// assert_eq!(solver.solve_within(&mut Nim(40), &Limits::nodes(10_000)), None);
    /// assert!(solver.stats().nodes < 10_000 + 256);
    /// // With a memo the budget is plenty.
    /// let mut solver = Solver::new(SolverConfig::full(1 << 16));
    /// assert_eq!(solver.solve_within(&mut Nim(40), &Limits::nodes(10_000)), Some(Outcome::Loss));
    /// ```
    pub fn solve_within(&mut self, game: &mut G, limits: &Limits) -> Option<Outcome> {
        let start = Instant::now();
        self.halt = Some(Halt::new(limits, start, self.stats.nodes));
        self.halted = false;
        let value = self.search(game, Outcome::Loss, Outcome::Win, 0);
        let halted = std::mem::take(&mut self.halted);
        self.halt = None;
        (!halted).then_some(value)
    }

    /// Whether the limits of [`Solver::solve_within`] have stopped the search (checked
    /// every 256 nodes).
    fn out_of_budget(&mut self) -> bool {
        if !self.halted
            && self.stats.nodes.is_multiple_of(256)
            && let Some(h) = &self.halt
        {
            self.halted = h.reached(self.stats.nodes);
        }
        self.halted
    }

    /// Every legal move with its exact result for the side to move (each move is listed).
    /// Empty when the game is over.
    ///
    /// Each move is solved on its own, so this costs up to one [`Solver::solve`] per move: the
    /// memo of an earlier `solve` of the same position mostly holds bounds (what alpha-beta
    /// needed to decide the value), not every child's exact value, and helps only in part.
    /// With [`SolverConfig::merge_moves`] on, the moves of one [`Game::move_class`] are solved
    /// once and share the value (as in [`move_values_by`]); with it off, classes are ignored
    /// here as in [`Solver::solve`].
    pub fn move_values(&mut self, game: &mut G) -> Vec<(G::Move, Outcome)> {
        let merge = self.config.merge_moves;
        values_of(game, merge, |g| self.solve(g))
    }

    /// The moves that achieve the position's value, in generation order.
    pub fn best_moves(&mut self, game: &mut G) -> Vec<G::Move> {
        let merge = self.config.merge_moves;
        best_of(values_of(game, merge, |g| self.solve(g)))
    }

    /// A line of optimal play from `game` to the end: each side plays the first of its
    /// [`best_moves`](Solver::best_moves). `game` is left as it was. Optimal for the outcome
    /// only: every move keeps the result, but the winner need not take the quickest win nor
    /// the loser the slowest loss (the [`Searcher`](crate::Searcher)'s scores count plies).
    pub fn principal_line(&mut self, game: &mut G) -> Vec<G::Move> {
        let merge = self.config.merge_moves;
        line_of(game, merge, |g| self.solve(g))
    }

    fn memo_key(&mut self, game: &G) -> G::Key {
        crate::game::memo_key(game, self.config.symmetry, &mut self.keys)
    }

    fn search(
        &mut self,
        game: &mut G,
        mut alpha: Outcome,
        mut beta: Outcome,
        ply: usize,
    ) -> Outcome {
        self.stats.nodes += 1;
        if self.halt.is_some() && self.out_of_budget() {
            // Any value: the callers see `halted` and store nothing.
            return Outcome::Draw;
        }
        if let Some(o) = game.outcome() {
            self.stats.terminals += 1;
            return o;
        }
        let key = self.memo.is_some().then(|| self.memo_key(game));
        let mut known = Bounds::default();
        if let (Some(memo), Some(key)) = (&self.memo, key) {
            self.stats.memo_probes += 1;
            if let Some(b) = memo.get(&key) {
                self.stats.memo_hits += 1;
                known = *b;
                if known.lo == known.hi || known.lo >= beta || known.hi <= alpha {
                    self.stats.memo_cutoffs += 1;
                    return if known.hi <= alpha {
                        known.hi
                    } else {
                        known.lo
                    };
                }
                alpha = alpha.max(known.lo);
                beta = beta.min(known.hi);
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let nodes_before = self.stats.nodes;

        if self.move_stack.len() <= ply {
            self.move_stack.resize_with(ply + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.move_stack[ply]);
        self.stats.merged_moves += generate_moves(game, &mut moves, self.config.merge_moves);
        if self.config.order_moves {
            game.order_moves(&mut moves);
        }

        let mut best = if moves.is_empty() {
            Outcome::Draw
        } else {
            Outcome::Loss
        };
        for mv in &moves {
            game.play(mv);
            let v = self.search(game, beta.flip(), alpha.flip(), ply + 1).flip();
            game.undo(mv);
            if self.halted {
                self.move_stack[ply] = moves;
                return best;
            }
            if v > best {
                best = v;
                if best > alpha {
                    alpha = best;
                    if alpha >= beta {
                        self.stats.cutoffs += 1;
                        break;
                    }
                }
            }
        }
        self.move_stack[ply] = moves;

        if let (Some(memo), Some(key)) = (&mut self.memo, key) {
            let bounds = if best <= alpha0 {
                Bounds {
                    lo: known.lo,
                    hi: best.min(known.hi),
                }
            } else if best >= beta0 {
                Bounds {
                    lo: best.max(known.lo),
                    hi: known.hi,
                }
            } else {
                Bounds { lo: best, hi: best }
            };
            let work = 64 - (self.stats.nodes - nodes_before).leading_zeros();
            memo.store(key, bounds, work as u8);
        }
        best
    }
}

/// Every legal move of `game` with its result for the side making it, given `value`, the
/// exact result of a position for its own side to move (for example [`Solver::solve`], or a
/// solver of an equivalent, smaller game). Empty when the game is over; `game` is left as it
/// was.
///
/// [`Solver`] answers with these functions; a wrapper that solves a projection of its game
/// (a canonical form, a different representation) gets the same move-level answers from them.
/// Moves of one [`Game::move_class`] lead to positions of one value, so `value` is asked once
/// per class (TwoFour's N^2 pile moves fall in at most 8 classes).
pub fn move_values_by<G: Game>(
    game: &mut G,
    value: impl FnMut(&mut G) -> Outcome,
) -> Vec<(G::Move, Outcome)> {
    values_of(game, true, value)
}

/// [`move_values_by`], asking `value` once per class when `merge` is on and once per move
/// otherwise.
fn values_of<G: Game>(
    game: &mut G,
    merge: bool,
    mut value: impl FnMut(&mut G) -> Outcome,
) -> Vec<(G::Move, Outcome)> {
    if game.outcome().is_some() {
        return Vec::new();
    }
    let mut moves = Vec::new();
    game.generate_moves(&mut moves);
    let mut known: Vec<(u64, Outcome)> = Vec::new();
    moves
        .into_iter()
        .map(|mv| {
            let class = if merge { game.move_class(&mv) } else { None };
            if let Some(&(_, v)) = known.iter().find(|&&(c, _)| Some(c) == class) {
                return (mv, v);
            }
            game.play(&mv);
            let v = value(game).flip();
            game.undo(&mv);
            if let Some(c) = class {
                known.push((c, v));
            }
            (mv, v)
        })
        .collect()
}

/// The moves of `game` that achieve its best result under `value` (see [`move_values_by`]),
/// in generation order.
pub fn best_moves_by<G: Game>(game: &mut G, value: impl FnMut(&mut G) -> Outcome) -> Vec<G::Move> {
    best_of(move_values_by(game, value))
}

/// The moves of `values` with the best value, in their order.
fn best_of<M>(values: Vec<(M, Outcome)>) -> Vec<M> {
    let best = values.iter().map(|(_, v)| *v).max();
    values
        .into_iter()
        .filter(|(_, v)| Some(*v) == best)
        .map(|(m, _)| m)
        .collect()
}

/// A line of optimal play from `game` to the end under `value`: each side plays the first of
/// its [`best_moves_by`]. `game` is left as it was. Optimal for the outcome only (every move
/// keeps the result, whatever its length). The line ends only when the game does, so `value`
/// must describe a game without endless play.
pub fn principal_line_by<G: Game>(
    game: &mut G,
    value: impl FnMut(&mut G) -> Outcome,
) -> Vec<G::Move> {
    line_of(game, true, value)
}

/// [`principal_line_by`], with moves merged by class only when `merge` is on.
fn line_of<G: Game>(
    game: &mut G,
    merge: bool,
    mut value: impl FnMut(&mut G) -> Outcome,
) -> Vec<G::Move> {
    let mut line = Vec::new();
    while let Some(mv) = best_of(values_of(game, merge, &mut value))
        .into_iter()
        .next()
    {
        game.play(&mv);
        line.push(mv);
    }
    for mv in line.iter().rev() {
        game.undo(mv);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Two piles; take 1 or 2 stones from either; whoever takes the last stone wins. The
    /// piles swapped are the same game, so `(a, b)` and `(b, a)` are symmetric keys.
    #[derive(Clone)]
    struct Piles(u32, u32);
    impl Game for Piles {
        type Move = (bool, u32);
        fn generate_moves(&self, m: &mut Vec<(bool, u32)>) {
            for (second, pile) in [(false, self.0), (true, self.1)] {
                m.extend((1..=2).filter(|&k| k <= pile).map(|k| (second, k)));
            }
        }
        fn play(&mut self, &(second, k): &(bool, u32)) {
            if second { self.1 -= k } else { self.0 -= k }
        }
        fn undo(&mut self, &(second, k): &(bool, u32)) {
            if second { self.1 += k } else { self.0 += k }
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.0 + self.1 == 0).then_some(Outcome::Loss)
        }
    }
    impl Keyed for Piles {
        type Key = (u32, u32);
        fn key(&self) -> (u32, u32) {
            (self.0, self.1)
        }
        fn symmetric_keys(&self, keys: &mut Vec<(u32, u32)>) {
            keys.push((self.1, self.0));
        }
    }

    /// [`Piles`] with the move classes its function gives.
    #[derive(Clone)]
    struct Classed(Piles, fn(&Piles, &(bool, u32)) -> Option<u64>);
    impl Game for Classed {
        type Move = (bool, u32);
        fn generate_moves(&self, m: &mut Vec<(bool, u32)>) {
            self.0.generate_moves(m);
        }
        fn play(&mut self, mv: &(bool, u32)) {
            self.0.play(mv);
        }
        fn undo(&mut self, mv: &(bool, u32)) {
            self.0.undo(mv);
        }
        fn outcome(&self) -> Option<Outcome> {
            self.0.outcome()
        }
        fn move_class(&self, mv: &(bool, u32)) -> Option<u64> {
            (self.1)(&self.0, mv)
        }
    }
    impl Keyed for Classed {
        type Key = (u32, u32);
        fn key(&self) -> (u32, u32) {
            self.0.key()
        }
    }

    /// One pile, take 1 or 2, whoever takes the last stone wins; the game keeps a record of
    /// its moves and `undo` insists on taking back the last one, as a game whose undo reads
    /// its own history must.
    #[derive(Clone)]
    struct Logged {
        pile: u32,
        played: Vec<u32>,
    }
    impl Game for Logged {
        type Move = u32;
        fn generate_moves(&self, m: &mut Vec<u32>) {
            m.extend((1..=2).filter(|&k| k <= self.pile));
        }
        fn play(&mut self, &k: &u32) {
            self.pile -= k;
            self.played.push(k);
        }
        fn undo(&mut self, &k: &u32) {
            assert_eq!(self.played.pop(), Some(k), "a move taken back out of order");
            self.pile += k;
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.pile == 0).then_some(Outcome::Loss)
        }
    }
    impl Keyed for Logged {
        type Key = u32;
        fn key(&self) -> u32 {
            self.pile
        }
    }

    /// A principal line is taken back last move first, by the solver's method and by the
    /// free function alike: a line of unequal moves on a game whose undo depends on the
    /// order leaves the game as it was.
    #[test]
    fn a_principal_line_is_taken_back_last_move_first() {
        let mut g = Logged {
            pile: 4,
            played: Vec::new(),
        };
        let line = Solver::new(SolverConfig::default()).principal_line(&mut g);
        assert_eq!(line, vec![1, 1, 2]);
        assert_eq!((g.pile, g.played.len()), (4, 0));
        let mut solver = Solver::new(SolverConfig::PLAIN);
        let line = principal_line_by(&mut g, |g: &mut Logged| solver.solve(g));
        assert_eq!(line, vec![1, 1, 2]);
        assert_eq!((g.pile, g.played.len()), (4, 0));
    }

    /// Two moves of one class are merged as any more are: one kept, one counted.
    #[test]
    fn two_moves_of_one_class_merge_into_one() {
        let g = merged(Piles(1, 1));
        let mut moves = Vec::new();
        assert_eq!(generate_moves(&g, &mut moves, true), 1);
        assert_eq!(moves, vec![(false, 1)]);
        assert_eq!(generate_moves(&g, &mut moves, false), 0);
        assert_eq!(moves.len(), 2);
    }

    /// Moves from either of two equal piles are one class.
    fn merged(piles: Piles) -> Classed {
        Classed(piles, |p, &(second, k)| {
            let apart = second && p.0 != p.1;
            Some(u64::from(k) + if apart { 10 } else { 0 })
        })
    }

    /// Every move claims one class: wrong, to tell whether classes are used.
    fn one_class(piles: Piles) -> Classed {
        Classed(piles, |_, _| Some(0))
    }

    /// Move values ask for one position of each move class, and agree with the solver's own.
    #[test]
    fn move_values_ask_once_per_class() {
        let mut solver = Solver::new(config(false));
        for (a, b, classes) in [(3, 3, 2), (3, 2, 4), (1, 1, 1), (2, 0, 2)] {
            let mut calls = 0;
            let mut g = merged(Piles(a, b));
            let values = move_values_by(&mut g, |g| {
                calls += 1;
                solver.solve(&mut g.0)
            });
            assert_eq!(calls, classes, "({a}, {b})");
            assert_eq!(values, solver.move_values(&mut Piles(a, b)), "({a}, {b})");
        }
    }

    /// With move merging off, the move-level answers ignore classes as the search does; with
    /// it on, a class shares the value of its first move.
    #[test]
    fn move_level_answers_merge_only_when_the_solver_does() {
        // (1, 2): taking one from the second pile wins, the other moves lose.
        let mut plain = Solver::new(SolverConfig::PLAIN);
        let truth = plain.move_values(&mut Piles(1, 2));
        let mut plain = Solver::new(SolverConfig::PLAIN);
        assert_eq!(plain.move_values(&mut one_class(Piles(1, 2))), truth);
        let wins: Vec<_> = truth.iter().filter(|(_, v)| *v == Outcome::Win).collect();
        assert_eq!(wins, [&((true, 1), Outcome::Win)]);
        assert_eq!(plain.best_moves(&mut one_class(Piles(1, 2))), [(true, 1)]);
        assert_eq!(
            plain.principal_line(&mut one_class(Piles(1, 2))),
            [(true, 1), (false, 1), (true, 1)]
        );
        let mut merging = Solver::new(SolverConfig::full(1 << 12));
        let shared = merging.move_values(&mut one_class(Piles(1, 2)));
        // (The shared value is wrong too: the search below merges the same way.)
        assert!(shared.iter().all(|&(_, v)| v == shared[0].1), "{shared:?}");
    }

    /// [`Piles`] whose move generator panics when the fuse is lit: a bug in a game's code.
    #[derive(Clone)]
    struct Fused(Piles, bool);
    impl Game for Fused {
        type Move = (bool, u32);
        fn generate_moves(&self, m: &mut Vec<(bool, u32)>) {
            assert!(!self.1, "the game's own bug");
            self.0.generate_moves(m);
        }
        fn play(&mut self, m: &(bool, u32)) {
            self.0.play(m);
        }
        fn undo(&mut self, m: &(bool, u32)) {
            self.0.undo(m);
        }
        fn outcome(&self) -> Option<Outcome> {
            self.0.outcome()
        }
    }
    impl Keyed for Fused {
        type Key = (u32, u32);
        fn key(&self) -> (u32, u32) {
            self.0.key()
        }
    }

    /// A panic in the game's code that unwinds out of `solve_within` leaves no limit behind:
    /// the solver, kept, solves exactly again.
    #[test]
    fn a_panic_inside_solve_within_leaves_no_limit_behind() {
        let mut truth = Solver::new(SolverConfig::PLAIN);
        let mut solver = Solver::new(SolverConfig::PLAIN);
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            solver.solve_within(
                &mut Fused(Piles(9, 9), true),
                &Limits::time(Duration::from_millis(1)),
            )
        }));
        assert!(panicked.is_err());
        // The time limit has long passed: a search under it would stop at once.
        std::thread::sleep(Duration::from_millis(20));
        for (a, b) in [(9, 9), (9, 8), (10, 7), (11, 9)] {
            let want = truth.solve(&mut Fused(Piles(a, b), false));
            assert_eq!(
                solver.solve(&mut Fused(Piles(a, b), false)),
                want,
                "({a}, {b})"
            );
        }
    }

    fn config(symmetry: bool) -> SolverConfig {
        SolverConfig {
            symmetry,
            ..SolverConfig::full(1 << 12)
        }
    }

    #[test]
    fn accessors_counters_and_the_memo_lifecycle() {
        let mut s = Solver::new(config(true));
        assert_eq!(s.config(), config(true));
        assert_eq!(s.memo_len(), 0);
        assert!(s.memo_bytes() > (1 << 12) / 2 && s.memo_bytes() <= 1 << 12);
        // (a, b) loses exactly when a and b leave the same remainder mod 3.
        assert_eq!(s.solve(&mut Piles(4, 6)), Outcome::Win);
        let first = s.stats();
        assert!(s.memo_len() >= 2);
        assert!(first.nodes > 1 && first.memo_probes > 0 && first.memo_hits > 0);
        // Solved again, the root is answered by the memo.
        s.reset_stats();
        assert_eq!(s.stats(), Stats::default());
        assert_eq!(s.solve(&mut Piles(4, 6)), Outcome::Win);
        let again = s.stats();
        assert_eq!((again.nodes, again.memo_probes), (1, 1));
        assert_eq!((again.memo_hits, again.memo_cutoffs), (1, 1));
        // Forgotten, it searches as the first time.
        s.clear_memo();
        assert_eq!(s.memo_len(), 0);
        s.reset_stats();
        assert_eq!(s.solve(&mut Piles(4, 6)), Outcome::Win);
        assert_eq!(s.stats(), first);
        let plain = Solver::<Piles>::new(SolverConfig::PLAIN);
        assert_eq!((plain.memo_bytes(), plain.memo_len()), (0, 0));
    }

    #[test]
    fn alpha_beta_cuts_what_plain_minimax_visits() {
        for (a, b) in [(3, 4), (4, 4), (5, 3)] {
            let mut stats = Stats::default();
            let value = crate::minimax::solve_with_stats(&mut Piles(a, b), &mut stats);
            let mut s = Solver::new(SolverConfig::PLAIN);
            assert_eq!(s.solve(&mut Piles(a, b)), value);
            assert!(s.stats().cutoffs > 0 && s.stats().terminals > 0, "{a} {b}");
            assert!(
                s.stats().nodes < stats.nodes / 2,
                "{a} {b}: {:?} {stats:?}",
                s.stats()
            );
        }
    }

    #[test]
    fn symmetry_answers_the_mirror_image_and_only_with_the_switch() {
        for symmetry in [true, false] {
            let mut s = Solver::new(config(symmetry));
            assert_eq!(s.solve(&mut Piles(5, 2)), Outcome::Loss);
            s.reset_stats();
            assert_eq!(s.solve(&mut Piles(2, 5)), Outcome::Loss);
            assert_eq!(s.stats().nodes == 1, symmetry, "symmetry {symmetry}");
        }
    }

    #[test]
    fn memo_bounds_that_decide_the_window_answer_without_a_search() {
        // Bounds planted in the memo (not the game's true value, 4 vs 6 being a win) are
        // returned as they are when they settle the question the window asks.
        let cases = [
            // A lower bound at or above beta.
            (
                Outcome::Draw,
                Outcome::Win,
                Outcome::Loss,
                Outcome::Draw,
                Outcome::Draw,
            ),
            // An upper bound at or below alpha.
            (
                Outcome::Loss,
                Outcome::Draw,
                Outcome::Draw,
                Outcome::Win,
                Outcome::Draw,
            ),
            // An exact value, whatever the window.
            (
                Outcome::Loss,
                Outcome::Loss,
                Outcome::Loss,
                Outcome::Win,
                Outcome::Loss,
            ),
        ];
        for (lo, hi, alpha, beta, answer) in cases {
            let mut s = Solver::new(config(false));
            s.memo.as_mut().unwrap().store((4, 6), Bounds { lo, hi }, 0);
            assert_eq!(s.search(&mut Piles(4, 6), alpha, beta, 0), answer);
            assert_eq!((s.stats().nodes, s.stats().memo_cutoffs), (1, 1));
        }
        // Bounds that do not settle it narrow the window, and the position is searched.
        let mut s = Solver::new(config(false));
        s.memo.as_mut().unwrap().store(
            (4, 6),
            Bounds {
                lo: Outcome::Draw,
                hi: Outcome::Win,
            },
            0,
        );
        assert_eq!(
            s.search(&mut Piles(4, 6), Outcome::Loss, Outcome::Win, 0),
            Outcome::Win
        );
        assert!(s.stats().nodes > 1);
    }
}
