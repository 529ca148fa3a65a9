//! The exact TwoFour solver, at the article's four optimisation levels and one beyond.
//!
//! All levels run the same `search-core` [`Solver`]; a level only switches its options and the
//! position form it runs on, so benchmarks compare the optimisations and nothing else.

use std::fmt;
use std::str::FromStr;

use search_core::{Game, Outcome, Solver, SolverConfig, Stats};

use crate::position::{KindMove, Move, Multiset, Position};
use crate::rules::{Pile, Winner};

/// Memo size used by default: under the olympiad's 1 MB limit, with 61,440 slots for the
/// 16,532 keys of N = 30.
pub const DEFAULT_MEMO_BYTES: usize = 960 * 1024;

/// Largest memo [`memo_bytes_for`] suggests: 1 GiB.
pub const MAX_SUGGESTED_MEMO_BYTES: usize = 1 << 30;

/// A memo size for the [`Level::Multiset`] solver on games of `piles` piles:
/// [`DEFAULT_MEMO_BYTES`] up to about 78 piles, then `2 N^3` bytes, at most
/// [`MAX_SUGGESTED_MEMO_BYTES`]. The entries a run of a few games uses grew like `0.05 N^3`
/// in measurements (16 bytes each, so `0.8 N^3` bytes), which the suggestion covers up to
/// the cap; past about 1100 piles the cap is less than a run uses, and a larger memo (if the
/// machine has it) is faster.
///
/// Why it matters: once the memo cannot hold the positions a search keeps meeting, the
/// search repeats work it has already done, and the time jumps by orders of magnitude
/// (three random games of 200 piles: a fraction of a second with a 16 MB memo, over 100 s
/// with the default; docs/TWOFOUR.md has the commands).
///
/// ```
/// use twofour::{DEFAULT_MEMO_BYTES, memo_bytes_for};
/// assert_eq!(memo_bytes_for(30), DEFAULT_MEMO_BYTES);
/// assert_eq!(memo_bytes_for(200), 16_000_000);
/// assert_eq!(memo_bytes_for(4095), 1 << 30);
/// ```
#[must_use]
pub fn memo_bytes_for(piles: usize) -> usize {
    // In u64: 2 * 4096^3 would overflow a 32-bit usize; the result, at most
    // MAX_SUGGESTED_MEMO_BYTES, fits any.
    let n = piles.min(4096) as u64;
    (2 * n * n * n).clamp(DEFAULT_MEMO_BYTES as u64, MAX_SUGGESTED_MEMO_BYTES as u64) as usize
}

/// How much of the machinery the solver uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// Depth-first alpha-beta over the pile array, trying every legal pair of piles.
    Plain,
    /// As `Plain`, but moves between piles of the same two kinds are searched once
    /// (the article's eight move kinds).
    Merged,
    /// As `Merged`, plus a memo keyed by the kind counts and side to move (pile order ignored).
    Memo,
    /// As `Memo`, plus the player-swap duality: a solved position also answers its dual.
    Duality,
    /// `Duality` on the [`Multiset`] form: moves generated per pair of kinds, no pile array.
    /// The fastest level, and the only one practical for hundreds of piles.
    Multiset,
}

impl Level {
    /// All levels, slowest first.
    pub const ALL: [Level; 5] = [
        Level::Plain,
        Level::Merged,
        Level::Memo,
        Level::Duality,
        Level::Multiset,
    ];

    /// The level's name as accepted by [`Level::from_str`].
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Level::Plain => "plain",
            Level::Merged => "merged",
            Level::Memo => "memo",
            Level::Duality => "duality",
            Level::Multiset => "multiset",
        }
    }

    fn config(self, memo_bytes: usize) -> SolverConfig {
        match self {
            Level::Plain => SolverConfig::PLAIN,
            Level::Merged => SolverConfig {
                merge_moves: true,
                ..SolverConfig::PLAIN
            },
            Level::Memo => SolverConfig {
                merge_moves: true,
                memo_bytes,
                symmetry: false,
                order_moves: false,
            },
            Level::Duality => SolverConfig {
                order_moves: false,
                ..SolverConfig::full(memo_bytes)
            },
            Level::Multiset => SolverConfig::full(memo_bytes),
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown level name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown level `{0}` (expected plain, merged, memo, duality or multiset)")]
pub struct UnknownLevel(String);

impl UnknownLevel {
    /// The name given.
    #[must_use]
    pub fn input(&self) -> &str {
        &self.0
    }
}

impl FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownLevel(s.to_owned()))
    }
}

#[derive(Debug)]
enum Engine {
    Piles(Solver<Position>),
    Multiset(Solver<Multiset>),
}

/// Solves TwoFour positions exactly. Keep one solver for many positions: its memo carries over.
///
/// The search recurses once a ply, and a game of N piles lasts up to 2N plies: a ply takes
/// about 170 bytes of stack in an optimised build and 700 in a debug build, whose frames are
/// larger (the 2047 plies of the 4095 piles `3 1 3 1 ... 3 1 2` needed between 300 and 350
/// KiB, and between 1.2 and 1.5 MiB; a test solves them on a thread of 512 KiB), so the
/// longest games of 4095 piles want about 1.5 MiB and 6 MiB. A spawned thread has 2 MiB
/// unless [`std::thread::Builder::stack_size`] says otherwise; the main thread usually 8 MiB.
///
/// ```
/// use twofour::{Level, Position, TwoFourSolver, Winner};
///
/// let mut solver = TwoFourSolver::new(Level::Multiset);
/// let game = Position::new(&[0, 3, 4, 1, 2]).unwrap();
/// assert_eq!(solver.solve(&game), Winner::First);
/// // An optimal line of play, ending when every pile holds two balls.
/// let line = solver.principal_line(&game);
/// assert!(!line.is_empty());
/// assert!(solver.memo_bytes() < 1_000_000);
/// ```
#[derive(Debug)]
pub struct TwoFourSolver {
    level: Level,
    engine: Engine,
}

impl TwoFourSolver {
    /// A solver at `level` with the default memo size ([`DEFAULT_MEMO_BYTES`]).
    #[must_use]
    pub fn new(level: Level) -> Self {
        Self::with_memo_bytes(level, DEFAULT_MEMO_BYTES)
    }

    /// A solver at `level` whose memo (if the level has one) uses at most `memo_bytes` bytes
    /// (but at least 32, two entries, for a size above 0); 0 means no memo (the search then
    /// solves each position afresh, as the plain and merged levels do).
    ///
    /// # Panics
    /// If the memo cannot be allocated; where the size comes from a user,
    /// [`TwoFourSolver::try_with_memo_bytes`] reports that instead.
    #[must_use]
    pub fn with_memo_bytes(level: Level, memo_bytes: usize) -> Self {
        Self::try_with_memo_bytes(level, memo_bytes)
            .unwrap_or_else(|e| panic!("a memo of {memo_bytes} bytes: {e}"))
    }

    /// As [`TwoFourSolver::with_memo_bytes`], or the allocation's error if the memo cannot
    /// be had.
    ///
    /// ```
    /// use twofour::{Level, TwoFourSolver};
    /// assert!(TwoFourSolver::try_with_memo_bytes(Level::Multiset, usize::MAX).is_err());
    /// // The plain level has no memo to allocate.
    /// assert!(TwoFourSolver::try_with_memo_bytes(Level::Plain, usize::MAX).is_ok());
    /// ```
    ///
    /// # Errors
    /// When the memo's slots cannot be allocated.
    pub fn try_with_memo_bytes(
        level: Level,
        memo_bytes: usize,
    ) -> Result<Self, std::collections::TryReserveError> {
        let config = level.config(memo_bytes);
        let engine = match level {
            Level::Multiset => Engine::Multiset(Solver::try_new(config)?),
            _ => Engine::Piles(Solver::try_new(config)?),
        };
        Ok(TwoFourSolver { level, engine })
    }

    /// Its level.
    #[must_use]
    pub fn level(&self) -> Level {
        self.level
    }

    /// The exact result for the side to move.
    pub fn outcome(&mut self, position: &Position) -> Outcome {
        match &mut self.engine {
            Engine::Piles(s) => s.solve(&mut position.clone()),
            Engine::Multiset(s) => s.solve(&mut position.to_multiset()),
        }
    }

    /// Who wins `position` under optimal play.
    pub fn solve(&mut self, position: &Position) -> Winner {
        Winner::from_outcome(self.outcome(position), position.side_to_move())
    }

    /// Every legal move with its result for the player making it.
    pub fn move_values(&mut self, position: &Position) -> Vec<(Move, Outcome)> {
        search_core::move_values_by(&mut position.clone(), |p| self.outcome(p))
    }

    /// The moves that achieve the best result for the side to move.
    pub fn optimal_moves(&mut self, position: &Position) -> Vec<Move> {
        search_core::best_moves_by(&mut position.clone(), |p| self.outcome(p))
    }

    /// A line of optimal play to the end of the game: each player makes the first of its
    /// optimal moves. (The game always ends: every move lowers the sum of squared pile sizes.)
    ///
    /// The same line as [`search_core::principal_line_by`] with [`TwoFourSolver::outcome`],
    /// found through the at most eight kinds of move at each ply rather than every pair of
    /// piles, so that a line of thousands of piles takes time in proportion to its length
    /// times the number of piles, not to the cube of the number of piles.
    pub fn principal_line(&mut self, position: &Position) -> Vec<Move> {
        let mut p = position.clone();
        let mut line = Vec::new();
        while let Some(mv) = self.first_optimal_move(&mut p) {
            p.play(&mv);
            line.push(mv);
        }
        line
    }

    /// The first of [`TwoFourSolver::optimal_moves`] (in the order of
    /// [`Position`]'s moves: by giving pile, then receiving pile), `None` once the game is
    /// over. A move's result depends only on the kinds of its two piles, so each kind of move
    /// is valued once, on the first piles of its two kinds.
    fn first_optimal_move(&mut self, p: &mut Position) -> Option<Move> {
        if p.is_over() {
            return None;
        }
        let mut first = [usize::MAX; 6];
        for (i, pile) in p.piles().iter().enumerate().rev() {
            first[pile.index()] = i;
        }
        let mut kinds = Vec::new();
        p.to_multiset().generate_moves(&mut kinds);
        let valued: Vec<(KindMove, Outcome)> = kinds
            .into_iter()
            .map(|k| {
                let mv = Move {
                    from: first[k.from.index()],
                    to: first[k.to.index()],
                    from_was: k.from,
                    to_was: k.to,
                };
                p.play(&mv);
                let v = self.outcome(p).flip();
                p.undo(&mv);
                (k, v)
            })
            .collect();
        let best = valued.iter().map(|&(_, v)| v).max()?;
        let good = |from: Pile, to: Pile| {
            valued
                .iter()
                .any(|&(k, v)| v == best && k == KindMove { from, to })
        };
        // The smallest giving pile of an optimal kind, then its smallest receiving pile.
        let (from, giver) = p
            .piles()
            .iter()
            .enumerate()
            .find(|&(_, &g)| Pile::ALL.into_iter().any(|t| good(g, t)))
            .map(|(i, &g)| (i, g))?;
        let (to, taker) = p
            .piles()
            .iter()
            .enumerate()
            .find(|&(_, &t)| good(giver, t))
            .map(|(j, &t)| (j, t))?;
        Some(Move {
            from,
            to,
            from_was: giver,
            to_was: taker,
        })
    }

    /// Counters of the underlying search.
    #[must_use]
    pub fn stats(&self) -> Stats {
        match &self.engine {
            Engine::Piles(s) => s.stats(),
            Engine::Multiset(s) => s.stats(),
        }
    }

    /// Bytes held by the memo (fixed at construction; 0 for levels without one).
    #[must_use]
    pub fn memo_bytes(&self) -> usize {
        match &self.engine {
            Engine::Piles(s) => s.memo_bytes(),
            Engine::Multiset(s) => s.memo_bytes(),
        }
    }

    /// Forgets everything memoised (the memory stays allocated).
    pub fn clear_memo(&mut self) {
        match &mut self.engine {
            Engine::Piles(s) => s.clear_memo(),
            Engine::Multiset(s) => s.clear_memo(),
        }
    }

    /// Entries in the memo.
    #[must_use]
    pub fn memo_len(&self) -> usize {
        match &self.engine {
            Engine::Piles(s) => s.memo_len(),
            Engine::Multiset(s) => s.memo_len(),
        }
    }
}

/// Who wins `position`, solved with a fresh [`Level::Multiset`] solver whose memo is sized for
/// the position's number of piles ([`memo_bytes_for`]: 2 N^3 bytes past 78 piles, 1 GiB from
/// about 813 piles on, allocated at once; a machine without that memory aborts). To solve
/// many positions, or to choose the memory, keep a [`TwoFourSolver`]
/// ([`TwoFourSolver::with_memo_bytes`]) instead: its memo carries over.
///
/// ```
/// use twofour::{solve, Position, Winner};
/// assert_eq!(solve(&Position::new(&[2, 2, 2, 2, 2]).unwrap()), Winner::Second);
/// ```
#[must_use]
pub fn solve(position: &Position) -> Winner {
    TwoFourSolver::with_memo_bytes(Level::Multiset, memo_bytes_for(position.piles().len()))
        .solve(position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn levels_are_named_and_parsed_back() {
        let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
        assert_eq!(names, ["plain", "merged", "memo", "duality", "multiset"]);
        for level in Level::ALL {
            assert_eq!(level.to_string(), level.name());
            assert_eq!(level.name().parse::<Level>(), Ok(level));
            // In any ASCII case, with spaces around, as the other crates' names.
            let shouted = format!(" {} ", level.name().to_ascii_uppercase());
            assert_eq!(shouted.parse::<Level>(), Ok(level));
        }
        assert_eq!(
            "fast".parse::<Level>(),
            Err(UnknownLevel("fast".to_owned()))
        );
        assert_eq!("fast".parse::<Level>().unwrap_err().input(), "fast");
    }

    #[test]
    fn every_level_values_the_moves_as_the_plain_search_does() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        let games: Vec<Position> = (0..5)
            .map(|_| crate::random_game(7, &mut rng).unwrap())
            .collect();
        let mut plain = TwoFourSolver::new(Level::Plain);
        let mut nodes = Vec::new();
        for level in Level::ALL {
            let mut s = TwoFourSolver::with_memo_bytes(level, 1 << 20);
            assert_eq!(s.level(), level);
            let mut total = 0;
            for g in &games {
                let want = plain.move_values(g);
                assert!(!want.is_empty());
                s.clear_memo();
                let before = s.stats().nodes;
                assert_eq!(s.move_values(g), want, "{level}");
                total += s.stats().nodes - before;
                // The optimal moves are those of the best value, in the same order.
                let best = want.iter().map(|&(_, v)| v).max();
                let optimal: Vec<Move> = want
                    .iter()
                    .filter(|&&(_, v)| Some(v) == best)
                    .map(|&(m, _)| m)
                    .collect();
                assert_eq!(s.optimal_moves(g), optimal, "{level}");
            }
            assert!(total > 0, "{level}");
            nodes.push(total);
            if level != Level::Plain && level != Level::Merged {
                // The memo takes (nearly) the bytes given; solving again from it is a look-up,
                // and after clearing it a whole search again.
                let bytes = s.memo_bytes();
                assert!(bytes > 1 << 19 && bytes <= 1 << 20, "{level}: {bytes}");
                let g = &games[0];
                s.clear_memo();
                let n0 = s.stats().nodes;
                s.outcome(g);
                let first = s.stats().nodes - n0;
                s.outcome(g);
                let again = s.stats().nodes - n0 - first;
                s.clear_memo();
                s.outcome(g);
                let cleared = s.stats().nodes - n0 - first - again;
                assert!(
                    again < first && cleared == first,
                    "{level}: {first} {again} {cleared}"
                );
            }
        }
        // Merging the moves of one kind searches fewer positions than trying every pair.
        assert!(nodes[1] < nodes[0], "{nodes:?}");
    }

    #[test]
    fn the_default_memo_fits_the_olympiad_limit() {
        assert_eq!(DEFAULT_MEMO_BYTES, 983_040);
    }
}
