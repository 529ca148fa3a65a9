//! The classic arena best-first Gomoku engine, as a second engine to measure the main one
//! against.
//!
//! It is the design of a well-known hobby program, kept faithful on purpose:
//!
//! - **Evaluation.** Every stone scores, in each of the four line directions, by the length of
//!   the run it belongs to and how many ends of the run are blocked: 8/4/0 for a run of two
//!   (open, half-open, closed), 24/12/0 for three, 80/40/0 for four, 999 for five or more
//!   (under exactly five, nothing for six or more, which can never win), 0 for a lone stone.
//!   The engine adds up its own stones and subtracts the opponent's at double weight, which
//!   makes it defend eagerly.
//! - **Pattern table.** What one stone adds to the score depends only on the eight cells around
//!   it on a line (four each side), each empty, own, opposing or off the board: 2 bits a cell,
//!   16 bits a window, so the change is precomputed once for all 65,536 windows
//!   ([`window_gain`]) and a move is scored by four table look-ups (under exactly five, where
//!   runs longer than five stay on the board, by recounting the four lines through it). The
//!   score of a position is updated incrementally by the move just played ([`ArenaPosition`]).
//! - **Candidates.** Only empty cells next to a stone (the eight neighbours, or two steps away
//!   orthogonally) are considered; the counts are kept up to date by play and undo.
//! - **Search.** Best-first in a flat arena ([`search_core::best_first`]): from the root,
//!   descend into the child with the highest score minus 8 per visit, expand the leaf reached
//!   with all its candidates, back the values up by minimax.
//!
//! Where it departs from the original: wins are detected by the rules (five, or exactly five)
//! instead of by a score threshold, so it never mistakes a big score for a win; overlines
//! score nothing under exactly five; a five is made, and the opponent's single four blocked,
//! whatever the search found (given a millisecond or two, it cannot look at every reply;
//! against an open four the game is lost and the search's move is played, which need not
//! block either of its cells); the tree is kept from one move to the next when the game
//! followed it; and the arena is bounded in bytes.
//!
//! Beyond those two rules it guarantees nothing: it has no threat search, so a short forced
//! win (a four and an open three, say) can go unplayed, and a threat of one can go
//! unanswered, wherever its evaluation prefers another move within its budget. The main
//! engine, [`AlphaBetaEngine`](crate::AlphaBetaEngine), searches threats first.
//!
//! ```
//! use gomoku::{BestFirstEngine, Board, Engine, Move, Rule};
//! use std::time::Duration;
//!
//! let mut board = Board::new(15, Rule::Freestyle)?;
//! // Black has four in a row, blocked on the right by White's 8,7...
//! for (x, y) in [(4, 7), (0, 0), (5, 7), (0, 2), (6, 7), (0, 4), (7, 7), (8, 7)] {
//!     board.play(Move::new(x, y))?;
//! }
//! // ...and, to move, completes five at 3,7.
//! let mut engine = BestFirstEngine::new();
//! assert_eq!(engine.choose_move(&board, Duration::from_millis(100))?, Move::new(3, 7));
//! # Ok::<(), gomoku::GomokuError>(())
//! ```

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use search_core::best_first::{BestFirst, BestFirstConfig, BestFirstResult, Policy};
use search_core::{Evaluate, Game, Limits, Outcome};

use crate::{Board, Budget, Engine, GomokuError, Move, Rule};

/// Wall cells around the arena board: line windows look four cells each way, win checks five.
const PAD: usize = 5;
const EMPTY: u8 = 0;
const OWN: u8 = 1;
const OPP: u8 = 2;
const WALL: u8 = 3;

/// The score of one stone on one line: its run has `neighbours` other stones and `blocked`
/// blocked ends (0, 1 or 2).
#[must_use]
#[doc(hidden)]
pub fn stone_weight(neighbours: usize, blocked: usize) -> i32 {
    let open = [[0, 0, 0], [8, 4, 0], [24, 12, 0], [80, 40, 0]];
    match neighbours {
        0..=3 => open[neighbours][blocked.min(2)],
        _ => 999,
    }
}

/// The summed [`stone_weight`]s of the stones of colour `me` (a cell code) on a line of cells,
/// where anything that is not `me` or empty blocks a run, and so do both ends of the slice.
/// Under exactly five a run of six or more can never win and scores nothing.
fn line_score(cells: &[u8], me: u8, rule: Rule) -> i32 {
    let mut total = 0;
    let mut i = 0;
    while i < cells.len() {
        if cells[i] != me {
            i += 1;
            continue;
        }
        let start = i;
        while i < cells.len() && cells[i] == me {
            i += 1;
        }
        let len = i - start;
        let blocked_before = start == 0 || cells[start - 1] != EMPTY;
        let blocked_after = i == cells.len() || cells[i] != EMPTY;
        let blocked = usize::from(blocked_before) + usize::from(blocked_after);
        if rule == Rule::Freestyle || len <= 5 {
            total += len as i32 * stone_weight(len - 1, blocked);
        }
    }
    total
}

/// The window index of the eight cells around a centre: cell codes (0 empty, 1 the placer's,
/// 2 the other colour's, 3 off the board) at offsets -4..=-1 then 1..=4, two bits each, the
/// first one highest.
#[must_use]
#[doc(hidden)]
pub fn window_index(around: [u8; 8]) -> usize {
    around
        .iter()
        .fold(0usize, |acc, &c| (acc << 2) | usize::from(c & 3))
}

/// What placing a stone at the centre of a window changes: `(placer's score, other's score)`,
/// both summed over the nine cells of the window with its ends counted as blocked.
fn compute_gain(index: usize) -> (i16, i16) {
    let mut cells = [EMPTY; 9];
    for (k, slot) in [0usize, 1, 2, 3, 5, 6, 7, 8].into_iter().enumerate() {
        cells[slot] = ((index >> (14 - 2 * k)) & 3) as u8;
    }
    let f = Rule::Freestyle;
    let before = (line_score(&cells, OWN, f), line_score(&cells, OPP, f));
    cells[4] = OWN;
    let after = (line_score(&cells, OWN, f), line_score(&cells, OPP, f));
    ((after.0 - before.0) as i16, (after.1 - before.1) as i16)
}

/// The precomputed table of [`window_gain`]: 65,536 pairs.
fn gains() -> &'static [(i16, i16)] {
    static TABLE: OnceLock<Vec<(i16, i16)>> = OnceLock::new();
    TABLE.get_or_init(|| (0..1 << 16).map(compute_gain).collect())
}

/// What placing a stone at the centre of the window [`window_index`] changes:
/// `(placer's score, other's score)`, from the precomputed 65,536-entry table.
#[must_use]
#[doc(hidden)]
pub fn window_gain(index: usize) -> (i32, i32) {
    let (a, b) = gains()[index & 0xffff];
    (i32::from(a), i32::from(b))
}

/// A Gomoku position from the point of view of one player ("own"), with the classic score kept
/// up to date incrementally: the [`Game`] the best-first search runs on.
///
/// Its `Game::play` trusts its move, as searches need it to (a move from `generate_moves` of
/// the same position): a move off the board or onto a stone breaks the position or panics.
/// [`ArenaPosition::from_board`] of a [`Board`] checked with [`Board::play`] is the checked way.
#[derive(Debug, Clone)]
pub struct ArenaPosition {
    size: usize,
    stride: usize,
    rule: Rule,
    /// Padded cells: [`EMPTY`], [`OWN`], [`OPP`] or [`WALL`].
    cells: Vec<u8>,
    /// Per cell: stones among its candidate neighbourhood.
    near: Vec<u16>,
    /// Cell code of the side to move.
    to_move: u8,
    /// Own score minus twice the opponent's.
    score: i32,
    /// Per move played: cell, score change.
    stack: Vec<(usize, i32)>,
    /// Whether the last move made five.
    won: bool,
    stones: usize,
}

/// Offsets, as (dx, dy), of the cells whose stones make a cell a candidate.
const NEIGHBOURHOOD: [(isize, isize); 12] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (-2, 0),
    (2, 0),
    (0, -2),
    (0, 2),
];

impl ArenaPosition {
    /// The position of `board`, seen by its side to move.
    #[must_use]
    pub fn from_board(board: &Board) -> ArenaPosition {
        let size = board.size();
        let stride = size + 2 * PAD;
        let me = board.side_to_move();
        let mut p = ArenaPosition {
            size,
            stride,
            rule: board.rule(),
            cells: vec![WALL; stride * stride],
            near: vec![0; stride * stride],
            to_move: OWN,
            score: 0,
            stack: Vec::new(),
            won: board.winner().is_some(),
            stones: 0,
        };
        for y in 0..size {
            for x in 0..size {
                let i = p.index(x, y);
                p.cells[i] = match board.get(Move::new(x as u8, y as u8)) {
                    None => EMPTY,
                    Some(s) if s == me => OWN,
                    Some(_) => OPP,
                };
                if p.cells[i] != EMPTY {
                    p.stones += 1;
                    p.touch(i, 1);
                }
            }
        }
        p.score = p.score_from_scratch();
        p
    }

    fn index(&self, x: usize, y: usize) -> usize {
        (y + PAD) * self.stride + x + PAD
    }

    fn to_move_of(&self, i: usize) -> Move {
        Move::new((i % self.stride - PAD) as u8, (i / self.stride - PAD) as u8)
    }

    fn directions(&self) -> [usize; 4] {
        [1, self.stride, self.stride + 1, self.stride - 1]
    }

    /// Adds `delta` to the neighbourhood counts around cell `i`.
    fn touch(&mut self, i: usize, delta: i16) {
        for (dx, dy) in NEIGHBOURHOOD {
            let j = (i as isize + dy * self.stride as isize + dx) as usize;
            self.near[j] = self.near[j].wrapping_add_signed(delta);
        }
    }

    /// Own score minus twice the opponent's (the classic evaluation), kept incrementally.
    #[must_use]
    pub fn score(&self) -> i32 {
        self.score
    }

    /// The same score recounted over the whole board (whole lines, board edges blocking).
    #[must_use]
    #[doc(hidden)]
    pub fn score_from_scratch(&self) -> i32 {
        let n = self.size;
        let mut own = 0;
        let mut opp = 0;
        let mut line = Vec::with_capacity(n);
        let rule = self.rule;
        let mut add_line = |line: &Vec<u8>| {
            own += line_score(line, OWN, rule);
            opp += line_score(line, OPP, rule);
        };
        for y in 0..n {
            line.clear();
            line.extend((0..n).map(|x| self.cells[self.index(x, y)]));
            add_line(&line);
        }
        for x in 0..n {
            line.clear();
            line.extend((0..n).map(|y| self.cells[self.index(x, y)]));
            add_line(&line);
        }
        for d in 0..2 * n - 1 {
            // Diagonals x - y = d - (n - 1) and anti-diagonals x + y = d.
            let k = d as isize - (n as isize - 1);
            line.clear();
            line.extend(
                (0..n)
                    .filter_map(|y| {
                        let x = y as isize + k;
                        (0..n as isize).contains(&x).then_some((x as usize, y))
                    })
                    .map(|(x, y)| self.cells[self.index(x, y)]),
            );
            add_line(&line);
            line.clear();
            line.extend(
                (0..n)
                    .filter_map(|y| {
                        let x = d as isize - y as isize;
                        (0..n as isize).contains(&x).then_some((x as usize, y))
                    })
                    .map(|(x, y)| self.cells[self.index(x, y)]),
            );
            add_line(&line);
        }
        own - 2 * opp
    }

    /// The score change of placing colour `c` at the empty cell `i`, from the table.
    ///
    /// The table sees four cells each side, and that is enough while every run stays below
    /// six stones: a run that reaches past the window makes five with the new stone, which
    /// ends the game, and a run's far end counts only through a weight linear in the blocked
    /// ends (the change is the same whether it is blocked or not). Under exactly five longer
    /// runs stay on the board, so there the four lines through the cell are recounted.
    fn gain(&self, i: usize, c: u8) -> i32 {
        if self.rule == Rule::ExactlyFive {
            return self.gain_by_recount(i, c);
        }
        let (mut placer, mut other) = (0, 0);
        for d in self.directions() {
            let mut around = [WALL; 8];
            for (k, step) in [-4isize, -3, -2, -1, 1, 2, 3, 4].into_iter().enumerate() {
                let j = (i as isize + step * d as isize) as usize;
                let cell = self.cells[j];
                // Re-code from the placer's point of view.
                around[k] = match cell {
                    EMPTY | WALL => cell,
                    x if x == c => OWN,
                    _ => OPP,
                };
            }
            let (a, b) = window_gain(window_index(around));
            placer += a;
            other += b;
        }
        if c == OWN {
            placer - 2 * other
        } else {
            other - 2 * placer
        }
    }

    /// [`ArenaPosition::gain`] by recounting the four whole lines through the empty cell `i`.
    fn gain_by_recount(&self, i: usize, c: u8) -> i32 {
        let other = OWN + OPP - c;
        // A line is at most a board side long: no allocation in the search's every move.
        let mut buffer = [WALL; crate::board::MAX_SIZE];
        let (mut placer_gain, mut other_gain) = (0, 0);
        for d in self.directions() {
            let mut start = i;
            while self.cells[start - d] != WALL {
                start -= d;
            }
            let mut len = 0;
            let mut j = start;
            while self.cells[j] != WALL {
                buffer[len] = self.cells[j];
                len += 1;
                j += d;
            }
            let line = &mut buffer[..len];
            let at = (i - start) / d;
            let score = |line: &[u8]| {
                (
                    line_score(line, c, self.rule),
                    line_score(line, other, self.rule),
                )
            };
            let before = score(line);
            line[at] = c;
            let after = score(line);
            placer_gain += after.0 - before.0;
            other_gain += after.1 - before.1;
        }
        if c == OWN {
            placer_gain - 2 * other_gain
        } else {
            other_gain - 2 * placer_gain
        }
    }

    /// Whether the stone at `i` makes five (exactly five under that rule).
    fn makes_five(&self, i: usize) -> bool {
        let c = self.cells[i];
        self.directions().into_iter().any(|d| {
            let mut run = 1;
            let mut j = i + d;
            while self.cells[j] == c {
                run += 1;
                j += d;
            }
            let mut j = i - d;
            while self.cells[j] == c {
                run += 1;
                j -= d;
            }
            match self.rule {
                Rule::Freestyle => run >= 5,
                Rule::ExactlyFive => run == 5,
            }
        })
    }

    /// The moves played since the position was built, as board moves.
    #[must_use]
    pub fn line(&self) -> Vec<Move> {
        self.stack
            .iter()
            .map(|&(i, _)| self.to_move_of(i))
            .collect()
    }
}

impl Game for ArenaPosition {
    type Move = Move;

    fn generate_moves(&self, moves: &mut Vec<Move>) {
        if self.stones == 0 {
            let c = (self.size / 2) as u8;
            moves.push(Move::new(c, c));
            return;
        }
        for y in 0..self.size {
            for x in 0..self.size {
                let i = self.index(x, y);
                if self.cells[i] == EMPTY && self.near[i] > 0 {
                    moves.push(Move::new(x as u8, y as u8));
                }
            }
        }
    }

    fn play(&mut self, mv: &Move) {
        let i = self.index(usize::from(mv.x), usize::from(mv.y));
        let c = self.to_move;
        let delta = self.gain(i, c);
        self.cells[i] = c;
        self.score += delta;
        self.stack.push((i, delta));
        self.touch(i, 1);
        self.stones += 1;
        self.won = self.makes_five(i);
        self.to_move = OWN + OPP - c;
    }

    fn undo(&mut self, _mv: &Move) {
        if let Some((i, delta)) = self.stack.pop() {
            self.cells[i] = EMPTY;
            self.score -= delta;
            self.touch(i, -1);
            self.stones -= 1;
            self.won = false;
            self.to_move = OWN + OPP - self.to_move;
        }
    }

    /// The candidates leave out the empty cells far from every stone, which can matter (a
    /// distant block that is also a threat), so the search proves only wins through them.
    fn is_selective(&self, moves: &[Move]) -> bool {
        moves.len() < self.size * self.size - self.stones
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.won {
            // The player who just moved made five.
            Some(Outcome::Loss)
        } else if self.stones == self.size * self.size {
            Some(Outcome::Draw)
        } else {
            None
        }
    }
}

impl Evaluate for ArenaPosition {
    fn evaluate(&self) -> i32 {
        if self.to_move == OWN {
            self.score
        } else {
            -self.score
        }
    }
}

/// The classic arena best-first engine; see the [module documentation](self).
#[derive(Debug)]
pub struct BestFirstEngine {
    search: BestFirst<ArenaPosition>,
    /// The game the tree belongs to: the history at the root of the last search, and the
    /// move chosen.
    tree_line: Option<(Vec<Move>, Move)>,
    /// The board size and rule of the tree's game.
    game: Option<(usize, Rule)>,
    reuse: bool,
    last: Option<BestFirstResult<Move>>,
}

impl Default for BestFirstEngine {
    fn default() -> Self {
        BestFirstEngine::new()
    }
}

impl BestFirstEngine {
    /// Default arena size: 256 MiB (about 15 million nodes).
    pub const DEFAULT_MEMORY: usize = 256 << 20;

    /// The engine as the classic program plays: score minus 8 per visit, 256 MiB arena.
    #[must_use]
    pub fn new() -> BestFirstEngine {
        BestFirstEngine::with_config(BestFirstConfig {
            memory_bytes: Self::DEFAULT_MEMORY,
            policy: Policy::ScoreMinusVisits { visit_weight: 8 },
        })
    }

    /// The engine with another arena size or selection policy. The arena is reserved now.
    ///
    /// # Panics
    /// If the arena cannot be allocated; where the size comes from a user,
    /// [`BestFirstEngine::try_with_config`] reports that instead.
    #[must_use]
    pub fn with_config(config: BestFirstConfig) -> BestFirstEngine {
        BestFirstEngine::try_with_config(config)
            .unwrap_or_else(|e| panic!("a best-first arena of {} bytes: {e}", config.memory_bytes))
    }

    /// As [`BestFirstEngine::with_config`], or the allocation's error if the arena cannot
    /// be had. (The arena holds at most 2^32 - 1 nodes, so a larger size is cut to that
    /// before it is reserved.)
    ///
    /// ```
    /// use gomoku::BestFirstEngine;
    /// use gomoku::search_core::best_first::{BestFirstConfig, Policy};
    /// let policy = Policy::ScoreMinusVisits { visit_weight: 8 };
    /// let config = BestFirstConfig { memory_bytes: 1 << 20, policy };
    /// assert!(BestFirstEngine::try_with_config(config).is_ok());
    /// ```
    ///
    /// # Errors
    /// When the arena cannot be allocated.
    pub fn try_with_config(
        config: BestFirstConfig,
    ) -> Result<BestFirstEngine, std::collections::TryReserveError> {
        let mut search = BestFirst::new(config);
        // Growing the arena mid-search would copy it on the clock, and the pattern tables are
        // built on first use (this engine's own, and those of the position its forced-move
        // check reads): all now, not on the clock of the first move.
        search.try_reserve_all()?;
        let _ = gains();
        crate::position::build_tables();
        Ok(BestFirstEngine {
            search,
            tree_line: None,
            game: None,
            reuse: true,
            last: None,
        })
    }

    /// Whether to keep the tree from one move to the next (on by default).
    pub fn set_reuse(&mut self, reuse: bool) {
        self.reuse = reuse;
        if !reuse {
            self.search.clear();
            self.tree_line = None;
        }
    }

    /// What the last search did (nodes, depth, score, ...).
    #[must_use]
    pub fn last_search(&self) -> Option<&BestFirstResult<Move>> {
        self.last.as_ref()
    }

    /// Re-roots the kept tree at `board` when the game went on from the tree's root through the
    /// move this engine chose, and the same colour is to move (the tree's scores are from its
    /// root player's side, and weigh the two colours differently); otherwise clears it.
    fn prepare_tree(&mut self, board: &Board) {
        let history = board.history();
        // The same moves on another board size or under another rule are another game.
        let game = Some((board.size(), board.rule()));
        let same_game = self.game == game;
        self.game = game;
        let kept = match &self.tree_line {
            Some((root, chosen))
                if self.reuse
                    && same_game
                    && history.len() > root.len() + 1
                    && (history.len() - root.len()).is_multiple_of(2)
                    && history.starts_with(root)
                    && history[root.len()] == *chosen =>
            {
                self.search.advance(&history[root.len()..]) > 0
            }
            _ => false,
        };
        if !kept {
            self.search.clear();
        }
    }
}

impl Engine for BestFirstEngine {
    fn name(&self) -> &str {
        "bestfirst"
    }

    fn new_game(&mut self) {
        self.search.clear();
        self.tree_line = None;
        self.last = None;
    }

    fn choose_move(&mut self, board: &Board, time: Duration) -> Result<Move, GomokuError> {
        self.choose_move_within(board, Budget::Time(time))
    }

    /// With a node budget, the tree grows by about that many nodes (one expansion more at
    /// most), the nodes kept from the previous move not counted.
    fn choose_move_within(&mut self, board: &Board, budget: Budget) -> Result<Move, GomokuError> {
        if board.is_over() {
            return Err(GomokuError::GameOver);
        }
        let start = Instant::now();
        self.prepare_tree(board);
        let mut position = ArenaPosition::from_board(board);
        let limits = match budget {
            Budget::Time(time) => {
                // The search checks the clock once an expansion; keep a tenth back for the
                // last one, for returning the answer and for a busy machine's scheduling.
                let margin = (time / 10).max(Duration::from_millis(2));
                Limits::time(time.saturating_sub(margin).saturating_sub(start.elapsed()))
            }
            Budget::Nodes(nodes) => Limits {
                nodes: Some(nodes),
                ..Limits::default()
            },
        };
        let result = self.search.grow(&mut position, &limits);
        // What the search may have had no time to see, it plays all the same.
        let chosen = forced_move(board)
            .or(result.best_move.filter(|&m| board.is_legal(m)))
            .or_else(|| board.empty_cells().first().copied())
            .ok_or_else(|| GomokuError::NoMove("the board is full".into()))?;
        self.tree_line = Some((board.history().to_vec(), chosen));
        self.last = Some(result);
        Ok(chosen)
    }
}

/// A five for the side to move, or else the one cell that blocks the opponent's only five:
/// the moves the search would find given time, played without it.
fn forced_move(board: &Board) -> Option<Move> {
    let pos = crate::Position::from_board(board);
    pos.forced_cell().map(|(q, _)| pos.to_move(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node budget grows the tree by that many nodes (and at most one expansion more),
    /// whatever the clock says, so that games replay: two engines play the same moves.
    #[test]
    fn a_node_budget_replays_exactly() {
        let mut board = Board::new(11, Rule::Freestyle).unwrap();
        board.play(Move::new(5, 5)).unwrap();
        let config = BestFirstConfig {
            memory_bytes: 4 << 20,
            policy: Policy::ScoreMinusVisits { visit_weight: 8 },
        };
        let mut engines = [
            BestFirstEngine::with_config(config),
            BestFirstEngine::with_config(config),
        ];
        let budget = Budget::Nodes(2000);
        let mut lines = [Vec::new(), Vec::new()];
        for (e, line) in engines.iter_mut().zip(&mut lines) {
            let mut b = board.clone();
            for _ in 0..10 {
                let m = e.choose_move_within(&b, budget).unwrap();
                let grown = e.last_search().unwrap().stats.nodes;
                // 121 cells: no expansion adds more children than that.
                assert!((2000..2000 + 121).contains(&grown), "{grown}");
                b.play(m).unwrap();
                line.push(m);
                if b.is_over() {
                    break;
                }
            }
        }
        assert_eq!(lines[0], lines[1]);
    }

    /// With no time to search, a five is still made and a single four still blocked, even
    /// where the evaluation prefers an attack (an open four and an open three at 7,10).
    #[test]
    fn fives_and_blocks_need_no_time() {
        let mut b = Board::new(15, Rule::Freestyle).unwrap();
        let black = [(2, 2), (5, 10), (6, 10), (8, 10), (7, 8), (7, 9)];
        let white = [(3, 2), (4, 2), (5, 2), (6, 2), (14, 14), (0, 14)];
        for (bl, wh) in black.into_iter().zip(white) {
            b.play(Move::new(bl.0, bl.1)).unwrap();
            b.play(Move::new(wh.0, wh.1)).unwrap();
        }
        let mut e = BestFirstEngine::new();
        for ms in [0, 1, 2] {
            let m = e.choose_move(&b, Duration::from_millis(ms)).unwrap();
            assert_eq!(m, Move::new(7, 2), "{ms} ms");
        }
        // White to move after Black's block: White's five is gone, Black threatens none.
        b.play(Move::new(7, 2)).unwrap();
        b.play(Move::new(1, 2)).unwrap();
        // Black to move with four in a row at 5..=8 on row 10 (made by 7,10): five at once.
        b.play(Move::new(7, 10)).unwrap();
        b.play(Move::new(0, 0)).unwrap();
        let m = e.choose_move(&b, Duration::ZERO).unwrap();
        assert!([Move::new(4, 10), Move::new(9, 10)].contains(&m), "{m:?}");
        b.play(m).unwrap();
        assert!(b.is_over());
    }

    #[test]
    fn weights_of_the_classic_program() {
        // An open three scores 3 x 24 on its line, a closed one nothing.
        let f = Rule::Freestyle;
        assert_eq!(line_score(&[0, 1, 1, 1, 0], OWN, f), 72);
        assert_eq!(line_score(&[2, 1, 1, 1, 2], OWN, f), 0);
        assert_eq!(line_score(&[1, 1, 0, 1], OWN, f), 2 * 4);
        assert_eq!(line_score(&[0, 1, 1, 1, 1, 1, 0], OWN, f), 5 * 999);
        assert_eq!(line_score(&[0, 1, 1, 1, 1, 1, 1, 0], OWN, f), 6 * 999);
        // Under exactly five an overline is dead; five still counts.
        let x = Rule::ExactlyFive;
        assert_eq!(line_score(&[0, 1, 1, 1, 1, 1, 0], OWN, x), 5 * 999);
        assert_eq!(line_score(&[0, 1, 1, 1, 1, 1, 1, 0, 1, 1], OWN, x), 2 * 4);
    }

    #[test]
    fn table_matches_direct_computation() {
        // Centre of an empty window: a lone stone is worth nothing.
        assert_eq!(window_gain(0), (0, 0));
        // _ _ _ X [.] X _ _ _ : joining two lone stones into an open three.
        let idx = window_index([0, 0, 0, 1, 1, 0, 0, 0]);
        assert_eq!(window_gain(idx), (72, 0));
        // _ O O O [.] _ _ _ _ : blocking an open three leaves it half-open: 3 x 24 -> 3 x 12.
        let idx = window_index([0, 2, 2, 2, 0, 0, 0, 0]);
        assert_eq!(window_gain(idx), (0, 36 - 72));
        // The window's own ends block: # O O O [.] is already half-open, and becomes closed.
        let idx = window_index([3, 2, 2, 2, 0, 0, 0, 0]);
        assert_eq!(window_gain(idx), (0, -36));
        // The table is indexed as the function it was built from (every 97th entry); the
        // values themselves are checked against whole-board recounts in the property tests.
        for idx in (0..1 << 16).step_by(97) {
            let (a, b) = compute_gain(idx);
            assert_eq!(window_gain(idx), (i32::from(a), i32::from(b)));
        }
    }

    fn random_game(seed: u64, size: usize, plies: usize, rule: Rule) -> Board {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut board = Board::new(size, rule).unwrap();
        for _ in 0..plies {
            let empty = board.empty_cells();
            if board.is_over() || empty.is_empty() {
                break;
            }
            let m = empty[rng.random_range(0..empty.len())];
            board.play(m).unwrap();
            if board.winner().is_some() {
                board.undo();
                break;
            }
        }
        board
    }

    /// The candidates by brute force: the empty cells with a stone among their eight
    /// neighbours or two steps away along a row or column (the centre on an empty board).
    fn cells_near_stones(board: &Board) -> Vec<Move> {
        let size = board.size() as i32;
        let stone = |x: i32, y: i32| {
            (0..size).contains(&x)
                && (0..size).contains(&y)
                && board.get(Move::new(x as u8, y as u8)).is_some()
        };
        let mut near: Vec<Move> = board
            .empty_cells()
            .into_iter()
            .filter(|m| {
                let (x, y) = (i32::from(m.x), i32::from(m.y));
                (-2..=2).any(|dy: i32| {
                    (-2..=2).any(|dx: i32| {
                        let reach = dx.abs().max(dy.abs()) == 1
                            || (dx.abs() == 2 && dy == 0)
                            || (dy.abs() == 2 && dx == 0);
                        reach && stone(x + dx, y + dy)
                    })
                })
            })
            .collect();
        if board.history().is_empty() {
            let c = (size / 2) as u8;
            near.push(Move::new(c, c));
        }
        near
    }

    proptest::proptest! {
        /// The incremental score equals a full recount, and the candidates a brute-force
        /// search, after every move and undo of random games under either rule, as long as
        /// no five is made (a five scores 999 a stone however the window sees it). Under
        /// exactly five the games go on through overlines, which score nothing.
        #[test]
        fn incremental_score_and_candidates_match_recounts(
            seed in 0u64..1_000_000,
            size in 5usize..=19,
            exactly in proptest::bool::ANY,
        ) {
            let rule = if exactly { Rule::ExactlyFive } else { Rule::Freestyle };
            let game = random_game(seed, size, if exactly { 120 } else { 40 }, rule);
            let mut board = Board::new(size, rule).unwrap();
            let mut p = ArenaPosition::from_board(&board);
            let check = |p: &ArenaPosition, board: &Board| {
                let mut moves = Vec::new();
                p.generate_moves(&mut moves);
                (p.score() - p.score_from_scratch(), moves == cells_near_stones(board))
            };
            for &m in game.history() {
                p.play(&m);
                board.play(m).unwrap();
                proptest::prop_assert_eq!(check(&p, &board), (0, true), "{}", board);
                proptest::prop_assert_eq!(p.line(), board.history().to_vec());
            }
            while let Some(m) = board.undo() {
                p.undo(&m);
                proptest::prop_assert_eq!(check(&p, &board), (0, true), "{}", board);
            }
            proptest::prop_assert_eq!(p.score(), 0);
        }

        /// A position built from a board has the candidates of a brute-force search.
        #[test]
        fn candidates_are_the_cells_near_stones(seed in 0u64..1_000_000, size in 5usize..=15) {
            let board = random_game(seed, size, 12, Rule::Freestyle);
            let p = ArenaPosition::from_board(&board);
            let mut moves = Vec::new();
            p.generate_moves(&mut moves);
            proptest::prop_assert_eq!(moves, cells_near_stones(&board));
        }
    }

    #[test]
    fn blocks_a_four() {
        // Black 3..=6 on row 7, blocked on the left by White: White must take 7,7.
        let mut board = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in [(3, 7), (2, 7), (4, 7), (0, 0), (5, 7), (0, 2), (6, 7)] {
            board.play(Move::new(x, y)).unwrap();
        }
        for policy in [
            Policy::ScoreMinusVisits { visit_weight: 8 },
            Policy::Principal,
            Policy::Uct {
                exploration: 1.0,
                scale: 100.0,
            },
        ] {
            let mut e = BestFirstEngine::with_config(BestFirstConfig {
                memory_bytes: 16 << 20,
                policy,
            });
            let m = e.choose_move(&board, Duration::from_millis(100)).unwrap();
            assert_eq!(m, Move::new(7, 7), "{policy:?}");
        }
    }

    #[test]
    fn exactly_five_ignores_overlines() {
        // Black: 0..=3 and 5 on row 0, White elsewhere; Black then plays 4: six in a row.
        let after_six = |rule| {
            let mut board = Board::new(15, rule).unwrap();
            for (b, w) in [
                (0, (0, 5)),
                (1, (2, 5)),
                (2, (4, 5)),
                (3, (6, 5)),
                (5, (8, 5)),
            ] {
                board.play(Move::new(b, 0)).unwrap();
                board.play(Move::new(w.0, w.1)).unwrap();
            }
            let mut p = ArenaPosition::from_board(&board);
            p.play(&Move::new(4, 0));
            p.outcome()
        };
        assert_eq!(
            after_six(Rule::ExactlyFive),
            None,
            "six in a row does not win"
        );
        assert_eq!(
            after_six(Rule::Freestyle),
            Some(Outcome::Loss),
            "freestyle: six wins"
        );
        // An exact five wins under both rules, along every direction and from either end.
        for rule in [Rule::Freestyle, Rule::ExactlyFive] {
            for (dx, dy) in [(1i32, 0i32), (0, 1), (1, 1), (1, -1)] {
                for last in [0, 2, 4] {
                    let cell = |k: i32| Move::new((3 + k * dx) as u8, (7 + k * dy) as u8);
                    let mut board = Board::new(15, rule).unwrap();
                    let mut whites = (0u8..).map(|x| Move::new(x, 14));
                    for k in (0..5).filter(|&k| k != last) {
                        board.play(cell(k)).unwrap();
                        board.play(whites.next().unwrap()).unwrap();
                    }
                    let mut p = ArenaPosition::from_board(&board);
                    assert_eq!(p.outcome(), None);
                    p.play(&cell(last));
                    assert_eq!(
                        p.outcome(),
                        Some(Outcome::Loss),
                        "{rule:?} {dx},{dy} {last}"
                    );
                }
            }
        }
    }

    #[test]
    fn wins_at_once_and_keeps_the_tree() {
        let mut board = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in [
            (7, 7),
            (0, 0),
            (8, 7),
            (0, 2),
            (9, 7),
            (0, 4),
            (10, 7),
            (0, 6),
        ] {
            board.play(Move::new(x, y)).unwrap();
        }
        let mut e = BestFirstEngine::new();
        let m = e.choose_move(&board, Duration::from_millis(100)).unwrap();
        assert!(m == Move::new(6, 7) || m == Move::new(11, 7));
        let r = e.last_search().unwrap();
        assert!(r.exact, "a win in one is proven");
        // The other side of it: White, to move, cannot stop the open four, but the search
        // looked at the cells near the stones alone and so does not claim the loss as proven.
        let mut lost = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in [(7, 7), (0, 0), (8, 7), (0, 2), (9, 7), (0, 4), (10, 7)] {
            lost.play(Move::new(x, y)).unwrap();
        }
        let mut e = BestFirstEngine::new();
        // Time enough to close the root on a slow machine: the search stops once it is.
        e.choose_move(&lost, Duration::from_secs(10)).unwrap();
        let r = e.last_search().unwrap();
        assert_eq!(r.score.proven_outcome(), Some(Outcome::Loss));
        assert!(!r.exact && !r.stopped, "{r:?}");
        let p = ArenaPosition::from_board(&lost);
        let mut moves = Vec::new();
        p.generate_moves(&mut moves);
        assert!(p.is_selective(&moves));

        // A quiet position: think, then continue along the tree.
        let mut board = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in [(7, 7), (8, 8), (6, 8)] {
            board.play(Move::new(x, y)).unwrap();
        }
        let mut e = BestFirstEngine::new();
        let m = e.choose_move(&board, Duration::from_millis(100)).unwrap();
        let pv = e.last_search().unwrap().pv.clone();
        board.play(m).unwrap();
        let reply = pv.get(1).copied().unwrap();
        board.play(reply).unwrap();
        // With no time to search, the tree is what was kept (and the root's expansion, if it
        // was a leaf): more than a fresh engine builds with no time.
        let mut fresh = BestFirstEngine::new();
        let nodes = |e: &mut BestFirstEngine, board: &Board| {
            let m = e.choose_move(board, Duration::ZERO).unwrap();
            assert!(board.is_legal(m));
            e.last_search().unwrap().tree_nodes
        };
        let before = e.search.tree_nodes();
        let reused = nodes(&mut e, &board);
        let scratch = nodes(&mut fresh, &board);
        assert!(
            reused > scratch && reused < before,
            "{reused} {scratch} {before}"
        );
        // Three plies on along the tree's line, the other colour is to move: the tree goes.
        e.choose_move(&board, Duration::from_millis(100)).unwrap();
        let mut odd = board.clone();
        for &mv in &e.last_search().unwrap().pv[..3] {
            odd.play(mv).unwrap();
        }
        assert_eq!(
            nodes(&mut e, &odd),
            nodes(&mut BestFirstEngine::new(), &odd)
        );
        // The same moves on a larger board, or under the other rule, are another game: the
        // tree (whose moves may be off the board, or valued under the other rule) goes.
        for (size, rule) in [(19, Rule::Freestyle), (15, Rule::ExactlyFive)] {
            let mut line = board.clone();
            let m = e.choose_move(&line, Duration::from_millis(100)).unwrap();
            let reply = e.last_search().unwrap().pv.get(1).copied().unwrap();
            line.play(m).unwrap();
            line.play(reply).unwrap();
            let mut twin = Board::new(size, rule).unwrap();
            for &mv in line.history() {
                twin.play(mv).unwrap();
            }
            e.prepare_tree(&twin);
            assert!(e.search.tree_nodes() <= 1, "{size} {rule:?}");
            assert!(twin.is_legal(e.choose_move(&twin, Duration::from_millis(20)).unwrap()));
        }
    }
    /// The evaluation is the score for its owner to move and its negation after a move; a
    /// full board without a five is a draw; the engine is named, forgets its tree for a new
    /// game, and with reuse off builds every tree afresh.
    #[test]
    fn evaluation_draws_and_engine_settings() {
        let mut board = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in [(7, 7), (0, 0), (7, 8), (0, 2)] {
            board.play(Move::new(x, y)).unwrap();
        }
        // Black (to move) has an open two: 2 x 8.
        let mut p = ArenaPosition::from_board(&board);
        assert_eq!(p.score(), 16);
        assert_eq!(p.evaluate(), p.score());
        p.play(&Move::new(5, 9));
        assert_eq!(p.evaluate(), -p.score());
        let full = ArenaPosition::from_board(&crate::board::tests::drawn_board());
        assert_eq!(full.outcome(), Some(Outcome::Draw));

        let mut e = BestFirstEngine::with_config(BestFirstConfig {
            memory_bytes: 16 << 20,
            policy: Policy::ScoreMinusVisits { visit_weight: 8 },
        });
        assert_eq!(e.name(), "bestfirst");
        e.choose_move(&board, Duration::from_millis(30)).unwrap();
        assert!(e.search.tree_nodes() > 1 && e.last_search().is_some());
        e.new_game();
        assert_eq!(e.search.tree_nodes(), 0);
        assert!(e.last_search().is_none());
        // With reuse off the tree goes at once, and the next search starts from nothing
        // however the game went on.
        e.choose_move(&board, Duration::from_millis(30)).unwrap();
        e.set_reuse(false);
        assert_eq!(e.search.tree_nodes(), 0);
        let m = e.choose_move(&board, Duration::from_millis(30)).unwrap();
        let reply = e.last_search().unwrap().pv.get(1).copied().unwrap();
        let mut next = board.clone();
        next.play(m).unwrap();
        next.play(reply).unwrap();
        let zero = |e: &mut BestFirstEngine| {
            e.choose_move(&next, Duration::ZERO).unwrap();
            e.last_search().unwrap().tree_nodes
        };
        assert_eq!(zero(&mut e), zero(&mut BestFirstEngine::new()));
    }
}
