//! A seeded random game for testing and benchmarking searches.
//!
//! Positions are `(ply, id)` pairs: each has a seeded number of moves, each leading to a child
//! `(ply + 1, id')`, and finished positions have seeded outcomes. With a small id range many
//! lines meet again (transpositions); with a huge one the game is a tree. Two moves to the same
//! child share a move class (so merging is sound), `id` and its mirror `width - 1 - id` have the
//! same future (a symmetry, reported by [`Keyed::symmetric_keys`]), leaves have a seeded
//! heuristic value, and move ordering shuffles. Every search of this crate can be checked
//! against [`minimax`](crate::minimax) on it, as this crate's own tests do.
//!
//! ```
//! use search_core::synthetic::RandomGame;
//! use search_core::{minimax, Solver, SolverConfig};
//!
//! let mut game = RandomGame::new(42, 10, 8, 4);
//! let exact = minimax::solve(&mut game);
//! assert_eq!(Solver::new(SolverConfig::full(1 << 16)).solve(&mut game), exact);
//! ```

use crate::{Evaluate, Game, Keyed, Outcome};

/// The random game; see the [module documentation](self).
#[derive(Debug, Clone)]
pub struct RandomGame {
    seed: u64,
    /// Range of node ids at each ply.
    width: u64,
    /// Last ply: positions there are finished.
    height: u32,
    max_moves: u64,
    /// Every position before the last ply has at least two moves and none ends early.
    bushy: bool,
    /// The line played so far: (ply, id) of each position, root first.
    path: Vec<u64>,
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl RandomGame {
    /// A game whose positions at each ply are ids in `0..width`, that ends at ply `height`
    /// (and at random earlier), with up to `max_moves` moves a position. A small `width` makes
    /// many lines meet again; a huge one makes the game a tree. A position lists its moves in
    /// one vector, so `max_moves` must be a number of `u64`s memory can hold; keys put the ply
    /// above bit 48, so with a `width` above 2^48 keys of different plies may (rarely) meet.
    ///
    /// # Panics
    /// If `width` is 0 (a game needs room for its root).
    #[must_use]
    pub fn new(seed: u64, width: u64, height: u32, max_moves: u64) -> Self {
        assert!(width > 0, "width must be positive");
        RandomGame {
            seed,
            width,
            height,
            max_moves,
            bushy: false,
            path: vec![0],
        }
    }
    /// Like [`RandomGame::new`], but no line ends before ply `height` and every position before
    /// it has 2 to `max_moves + 1` moves: a game of known, exponential size, for benchmarks and
    /// time limits.
    ///
    /// # Panics
    /// If `width` or `max_moves` is 0.
    #[must_use]
    pub fn bushy(seed: u64, width: u64, height: u32, max_moves: u64) -> Self {
        assert!(max_moves > 0, "max_moves must be positive");
        RandomGame {
            bushy: true,
            ..RandomGame::new(seed, width, height, max_moves)
        }
    }
    /// The ids of the positions of the line played so far, root (id 0) first.
    #[must_use]
    pub fn path(&self) -> &[u64] {
        &self.path
    }
    fn ply(&self) -> u32 {
        (self.path.len() - 1) as u32
    }
    fn id(&self) -> u64 {
        self.path.last().copied().unwrap_or(0)
    }
    /// Mirror-invariant hash of the current position.
    fn hash(&self, salt: u64) -> u64 {
        let x = self.id();
        let canon = x.min(self.width - 1 - x);
        mix(self.seed ^ mix(u64::from(self.ply()) << 40 ^ canon ^ salt << 56))
    }
}

impl Game for RandomGame {
    type Move = u64; // the child's id

    fn generate_moves(&self, moves: &mut Vec<u64>) {
        let n = if self.bushy {
            (self.hash(1) % self.max_moves).saturating_add(2)
        } else {
            self.hash(1) % self.max_moves.saturating_add(1)
        };
        moves.extend((0..n).map(|k| mix(self.hash(2) ^ k) % self.width));
    }
    fn play(&mut self, mv: &u64) {
        self.path.push(*mv);
    }
    fn undo(&mut self, _mv: &u64) {
        self.path.pop();
    }
    fn outcome(&self) -> Option<Outcome> {
        let h = self.hash(3);
        // Finished at the last ply, and sometimes earlier.
        let over = self.ply() >= self.height || (!self.bushy && h.is_multiple_of(7));
        over.then_some(match h % 3 {
            0 => Outcome::Loss,
            1 => Outcome::Draw,
            _ => Outcome::Win,
        })
    }
    fn move_class(&self, mv: &u64) -> Option<u64> {
        Some(*mv)
    }
    fn order_moves(&self, moves: &mut [u64]) {
        // Any order must give the same values; use a seeded shuffle-like sort.
        moves.sort_by_key(|&m| mix(m ^ self.seed));
    }
    fn is_forcing(&self) -> bool {
        // About one position in four, for the forcing-extension tests.
        self.hash(4).is_multiple_of(4)
    }
    fn history_slot(&self, mv: &u64) -> Option<usize> {
        // Few slots, so that history is shared across positions and reorders moves.
        Some((mv % 61) as usize)
    }
}

impl Keyed for RandomGame {
    type Key = u64;
    fn key(&self) -> u64 {
        u64::from(self.ply()) << 48 | self.id()
    }
    fn symmetric_keys(&self, keys: &mut Vec<u64>) {
        keys.push(u64::from(self.ply()) << 48 | (self.width - 1 - self.id()));
    }
}

impl Evaluate for RandomGame {
    fn evaluate(&self) -> i32 {
        (self.hash(4) % 201) as i32 - 100
    }
}
