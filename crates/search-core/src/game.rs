//! The game abstraction every search in this crate runs on.
//!
//! A game is a mutable position with `play`/`undo`: searches walk the tree in place instead of
//! cloning positions, which is what makes them fast on board games. Everything is seen from the
//! side to move (negamax convention), so one code path serves both players.
//!
//! Optional facilities are default methods rather than extra frameworks: a game that can merge
//! equivalent moves overrides [`Game::move_class`]; a game with a memo key implements [`Keyed`];
//! a game with a heuristic evaluation implements [`Evaluate`].

use std::fmt::Debug;
use std::hash::Hash;

/// The result of a finished game, seen from the side to move.
///
/// Ordered from worst to best for the side to move: `Loss < Draw < Win`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// The side to move has lost.
    Loss,
    /// Neither side wins.
    Draw,
    /// The side to move has won.
    Win,
}

impl Outcome {
    /// The same result seen from the other side.
    ///
    /// ```
    /// use search_core::Outcome;
    /// assert_eq!(Outcome::Win.flip(), Outcome::Loss);
    /// assert_eq!(Outcome::Draw.flip(), Outcome::Draw);
    /// ```
    #[must_use]
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
            Outcome::Win => Outcome::Loss,
        }
    }

    /// `-1`, `0` or `1`.
    #[must_use]
    pub fn signum(self) -> i32 {
        match self {
            Outcome::Loss => -1,
            Outcome::Draw => 0,
            Outcome::Win => 1,
        }
    }
}

/// `loss`, `draw` or `win`, for the side to move.
///
/// ```
/// use search_core::Outcome;
/// assert_eq!(Outcome::Win.to_string(), "win");
/// assert_eq!(format!("{}", Outcome::Loss.flip()), "win");
/// ```
impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Outcome::Loss => "loss",
            Outcome::Draw => "draw",
            Outcome::Win => "win",
        })
    }
}

/// A two-player, zero-sum, perfect-information game position that can be changed in place.
///
/// Implementations must keep `play` and `undo` exact inverses: after `play(m)` then `undo(m)` the
/// position (and its key, if [`Keyed`]) is what it was. Every search in this crate unwinds every
/// move it plays, also when it stops early on a budget.
///
/// Every move hands the turn to the other side: the searches negate a child's value for its
/// parent (negamax). In a game where a player may move again (Dots and Boxes after closing
/// a box, say), make a whole turn one move: the chain of box-closing edges and the edge that
/// ends it (or the last box, when the board fills), each set of edges once (orders of the
/// same edges reach the same position). A move that keeps the turn would be scored for the
/// wrong side, without an error.
pub trait Game {
    /// A move. It should carry whatever `undo` needs to restore the position.
    ///
    /// The searches compare moves with `==` to find a remembered move (the table's best
    /// move, a killer, a move played since the last search) among the moves generated for
    /// the position at hand, and then play the generated one. An equality that ignores what
    /// a move carries for `undo` (a square, but not the stones it flips) is therefore fine,
    /// and lets a killer from a sibling position match; two moves of one position must not
    /// compare equal unless they are the same move.
    type Move: Clone + PartialEq + Debug;

    /// Appends the legal moves of the side to move to `moves` (which the caller has cleared).
    /// A heuristic search may be given fewer (the moves worth searching), and then says so
    /// with [`Game::is_selective`].
    ///
    /// Searches call this only when [`Game::outcome`] is `None`. A non-terminal position that
    /// yields no move is scored as a draw.
    fn generate_moves(&self, moves: &mut Vec<Self::Move>);

    /// Plays `mv`, which was produced by [`Game::generate_moves`] for this position.
    fn play(&mut self, mv: &Self::Move);

    /// Takes back `mv`, the last move played.
    fn undo(&mut self, mv: &Self::Move);

    /// `Some` when the game is over, with the result for the side to move.
    fn outcome(&self) -> Option<Outcome>;

    /// The equivalence class of `mv` in this position, for move merging.
    ///
    /// Two moves of the same position with the same class must lead to positions of the same
    /// value, so a search that merges moves needs to look at only one of them (the first one
    /// generated). The default, `None`, puts every move in a class of its own.
    fn move_class(&self, mv: &Self::Move) -> Option<u64> {
        let _ = mv;
        None
    }

    /// Reorders `moves` (generated for this position, after merging) so that the likeliest best
    /// moves come first: a move-ordering hook. Good ordering lets alpha-beta cut off sooner;
    /// it never changes a result. The default keeps generation order. The [`Searcher`] also
    /// puts the memo's best move first by itself.
    ///
    /// [`Searcher`]: crate::Searcher
    fn order_moves(&self, moves: &mut [Self::Move]) {
        let _ = moves;
    }

    /// A small number identifying `mv` across positions (a board cell, say), for the history
    /// heuristic of the [`Searcher`]: moves with the same slot share their cutoff history.
    /// The default, `None`, opts out.
    ///
    /// [`Searcher`]: crate::Searcher
    fn history_slot(&self, mv: &Self::Move) -> Option<usize> {
        let _ = mv;
        None
    }

    /// Whether `moves`, just generated for this position (before any merging of moves of one
    /// [`move_class`](Game::move_class)), leave out legal moves that could change its value:
    /// a selective generator (Gomoku's cut to the best few candidates, say). The [`Searcher`]
    /// then proves nothing under this position: its results there count as reaching the
    /// horizon, so they are not stored as holding at every depth and do not end iterative
    /// deepening as exact. [`BestFirst`] still closes such a node once its kept moves are
    /// decided, but calls its value exact only for a win found among them. The exact
    /// [`Solver`], [`negamax`] and the plain [`alpha_beta`] do not ask: they solve the game
    /// the generated moves describe. Default: never (the moves are all the legal ones, or all
    /// that matter).
    ///
    /// [`Solver`]: crate::Solver
    /// [`negamax`]: crate::minimax::negamax
    /// [`alpha_beta`]: crate::alpha_beta
    /// [`BestFirst`]: crate::best_first::BestFirst
    /// [`Searcher`]: crate::Searcher
    fn is_selective(&self, moves: &[Self::Move]) -> bool {
        let _ = moves;
        false
    }

    /// Whether the side to move must answer an immediate threat (a check, a four), so that a
    /// static evaluation here would be misleading. With [`Tuning::forcing_extensions`], the
    /// [`Searcher`] searches such positions one ply deeper instead of evaluating them at the
    /// horizon. Default: never.
    ///
    /// [`Searcher`]: crate::Searcher
    /// [`Tuning::forcing_extensions`]: crate::Tuning::forcing_extensions
    fn is_forcing(&self) -> bool {
        false
    }
}

/// A game whose positions have a memo key.
///
/// Two positions with equal keys must have the same value for their side to move. A key may
/// therefore be canonical (it forgets what does not matter, such as the order of TwoFour's
/// piles) or a hash (Zobrist keys on a board, where collisions are rare enough to accept).
///
/// Nothing checks this: the memo trusts the key. Positions of different value under one key
/// make the exact [`Solver`](crate::Solver) wrong without a warning, and can keep the
/// [`Searcher`](crate::Searcher) from ever proving a result (it then stops at
/// [`Limits::MAX_DEPTH`](crate::Limits::MAX_DEPTH)). The same holds across games: a solver
/// kept for positions of another variant whose keys mean other positions (another board
/// size, another rule) must forget its memo first ([`Solver::clear_memo`](crate::Solver::clear_memo)).
///
/// A game with no key (yet) implements it with the key `()`: a key of size zero could tell no
/// two positions apart, so it turns the memo off in the [`Solver`](crate::Solver) and the
/// [`Searcher`](crate::Searcher) whatever size their configuration asks for, and they search
/// without one (a key with a few values, such as a `bool`, is trusted like any other).
///
/// ```
/// use search_core::{Game, Keyed, Outcome, Solver, SolverConfig};
///
/// /// Take 1 or 2 from a pile; whoever takes the last stone wins.
/// struct Nim(u32);
/// impl Game for Nim {
///     type Move = u32;
///     fn generate_moves(&self, m: &mut Vec<u32>) { m.extend((1..=2).filter(|&k| k <= self.0)) }
///     fn play(&mut self, k: &u32) { self.0 -= k }
///     fn undo(&mut self, k: &u32) { self.0 += k }
///     fn outcome(&self) -> Option<Outcome> { (self.0 == 0).then_some(Outcome::Loss) }
/// }
/// impl Keyed for Nim {
///     type Key = ();
///     fn key(&self) {}
/// }
///
/// let mut solver = Solver::new(SolverConfig::default());
/// assert_eq!(solver.memo_bytes(), 0); // no memo, whatever the configuration
/// assert_eq!(solver.solve(&mut Nim(4)), Outcome::Win);
/// assert_eq!(solver.solve(&mut Nim(6)), Outcome::Loss); // multiples of 3 lose
/// ```
pub trait Keyed: Game {
    /// The key type: a packed integer for most games. (`Default` fills the memo's empty
    /// slots; any value will do, as the slots are marked empty apart from their key.)
    type Key: Copy + Eq + Ord + Hash + Debug + Default;

    /// The key of the current position.
    fn key(&self) -> Self::Key;

    /// Appends the keys of positions known to have the same value for their own side to move,
    /// such as board rotations or a player-swap duality. Default: none.
    ///
    /// Searches that use symmetry (the exact [`Solver`](crate::Solver), with
    /// [`SolverConfig::symmetry`](crate::SolverConfig::symmetry), and the
    /// [`Searcher`](crate::Searcher), with
    /// [`SearchConfig::symmetry`](crate::SearchConfig::symmetry)) store and look up the
    /// smallest of [`Keyed::key`] and these keys, so one solved position answers all its
    /// images. The searcher's table then holds one image's best move for all of them, which
    /// it only tries first, and its line of play follows a table move only where the value it
    /// leads to checks out.
    fn symmetric_keys(&self, keys: &mut Vec<Self::Key>) {
        let _ = keys;
    }
}

/// The key a memo stores `game` under: its own, or with `symmetry` the smallest of it and its
/// [`Keyed::symmetric_keys`] (`scratch` holds those).
pub(crate) fn memo_key<G: Keyed>(game: &G, symmetry: bool, scratch: &mut Vec<G::Key>) -> G::Key {
    let key = game.key();
    if !symmetry {
        return key;
    }
    scratch.clear();
    game.symmetric_keys(scratch);
    scratch.iter().copied().fold(key, Ord::min)
}

/// Whether a search over `G` gets a memo of `bytes` bytes: not with 0 bytes, and not with a
/// key of size zero (such as `()`), which holds one value for every position and so could
/// only answer one position with another's result.
pub(crate) fn memo_wanted<G: Keyed>(bytes: usize) -> bool {
    bytes > 0 && std::mem::size_of::<G::Key>() > 0
}

/// A game with a heuristic evaluation, for depth-limited search.
pub trait Evaluate: Game {
    /// A heuristic value of a non-terminal position for the side to move.
    ///
    /// It must lie within `-Score::MAX_HEURISTIC..=Score::MAX_HEURISTIC` so that it is never
    /// mistaken for a proven result; searches clamp it there.
    ///
    /// [`Score::MAX_HEURISTIC`]: crate::Score::MAX_HEURISTIC
    fn evaluate(&self) -> i32;
}

/// Generates the moves of `game` into `moves` (cleared first). With `merge`, keeps only the
/// first move of each [`Game::move_class`]; returns how many moves merging removed.
///
/// Move classes are compared by a linear scan, which is fastest for the handful of classes
/// games have in practice (TwoFour has 8).
pub fn generate_moves<G: Game + ?Sized>(game: &G, moves: &mut Vec<G::Move>, merge: bool) -> u64 {
    moves.clear();
    game.generate_moves(moves);
    if merge { merge_classes(game, moves) } else { 0 }
}

/// Keeps the first move of each [`Game::move_class`] in `moves`; returns how many were
/// dropped.
pub(crate) fn merge_classes<G: Game + ?Sized>(game: &G, moves: &mut Vec<G::Move>) -> u64 {
    if moves.len() < 2 {
        return 0;
    }
    let before = moves.len();
    let mut seen: Vec<u64> = Vec::new();
    moves.retain(|mv| match game.move_class(mv) {
        None => true,
        Some(c) if seen.contains(&c) => false,
        Some(c) => {
            seen.push(c);
            true
        }
    });
    (before - moves.len()) as u64
}
