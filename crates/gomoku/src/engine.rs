//! The engine interface and the main engine: alpha-beta over the pattern evaluation.

use std::time::{Duration, Instant};

use search_core::{Limits, SearchConfig, Searcher, Tuning};

use crate::search::SearchGame;
use crate::threat::{ThreatLimits, ThreatSolver};
use crate::{Board, GomokuError, Move, Position, Threat};

/// How much an engine may spend on one move.
///
/// A time budget is what a tournament gives; a node budget makes a game replayable: the same
/// engine, in the same state (its tables remember earlier moves of the game), given the same
/// board and the same number of nodes, chooses the same move on any machine, under any load
/// and beside any number of other games, where the clock would let the machine's speed
/// decide. A node budget bounds the work, not the time it takes.
///
/// ```
/// use std::time::Duration;
/// use gomoku::{AlphaBetaEngine, Board, Budget, Engine, Move, Rule};
/// let mut board = Board::new(9, Rule::Freestyle)?;
/// board.play(Move::new(4, 4))?;
/// let mut first = AlphaBetaEngine::with_memo_bytes(1 << 20);
/// let mut second = AlphaBetaEngine::with_memo_bytes(1 << 20);
/// let a = first.choose_move_within(&board, Budget::Nodes(20_000))?;
/// let b = second.choose_move_within(&board, Budget::Nodes(20_000))?;
/// assert_eq!(a, b);
/// // A duration is a time budget.
/// assert_eq!(Budget::from(Duration::from_millis(5)), Budget::Time(Duration::from_millis(5)));
/// # Ok::<(), gomoku::GomokuError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Wall-clock time, as in [`Engine::choose_move`].
    Time(Duration),
    /// Search nodes, whatever the clock says. [`AlphaBetaEngine`] gives its threat searches
    /// the shares of the nodes it gives them of its time, and alpha-beta the rest (all of
    /// it: there is no soft limit, so the last iteration is usually cut short);
    /// [`BestFirstEngine`](crate::BestFirstEngine) counts the tree nodes it creates. Each
    /// search checks its count every 256 nodes, so [`AlphaBetaEngine`]'s six searches may
    /// exceed the budget by about 1,500 nodes in all: noticeable on budgets of a few
    /// thousand, not beyond.
    ///
    /// A move depends on the engine's memory as well as on the budget: the same budget with
    /// another table size (or the table of another target's pointer width) may give
    /// another move.
    ///
    /// Nothing else limits the search: `Nodes(u64::MAX)` searches until the game is solved
    /// (or, for [`BestFirstEngine`](crate::BestFirstEngine), until its arena is full),
    /// which on an open board is never. For a fixed depth, see
    /// [`AlphaBetaEngine::choose_move_limited`].
    Nodes(u64),
}

impl From<Duration> for Budget {
    fn from(time: Duration) -> Budget {
        Budget::Time(time)
    }
}

/// A Gomoku player.
pub trait Engine: Send {
    /// A short name for reports.
    fn name(&self) -> &str;
    /// Forget everything about the previous game (memo, killers, ...). Engines that keep
    /// memory between moves also forget it by themselves when the board size or the rule
    /// changes, whose positions their memory cannot tell apart; within one size and rule,
    /// what they keep stays sound from one game to the next.
    fn new_game(&mut self) {}
    /// A legal move for the side to move on `board` (which is not over), within `time`.
    ///
    /// Budgets of a few milliseconds are not kept to the microsecond: the searches check the
    /// clock every few hundred nodes, and [`AlphaBetaEngine`] searches for at least a
    /// millisecond, so a budget of a millisecond or two can take a millisecond or two more.
    /// Larger budgets keep a margin: [`AlphaBetaEngine`] stops its searches at seven eighths
    /// of the budget, [`BestFirstEngine`](crate::BestFirstEngine) a tenth of it (at least
    /// 2 ms) before its end.
    ///
    /// # Errors
    /// [`GomokuError::GameOver`] if the game is over.
    fn choose_move(&mut self, board: &Board, time: Duration) -> Result<Move, GomokuError>;

    /// A legal move for the side to move on `board` (which is not over), within `budget`.
    ///
    /// The provided method answers a time budget with [`Engine::choose_move`] and refuses a
    /// node budget: an engine that counts its work overrides it, as both built-in engines do.
    ///
    /// # Errors
    /// [`GomokuError::GameOver`] if the game is over; [`GomokuError::NodesUnsupported`] for a
    /// node budget given to an engine that cannot keep one (an external brain).
    fn choose_move_within(&mut self, board: &Board, budget: Budget) -> Result<Move, GomokuError> {
        match budget {
            Budget::Time(time) => self.choose_move(board, time),
            Budget::Nodes(_) => Err(GomokuError::NodesUnsupported(self.name().to_string())),
        }
    }
}

/// A boxed engine is an engine: programs that pick their engine at run time hold a
/// `Box<dyn Engine>` and use it like any other.
impl<E: Engine + ?Sized> Engine for Box<E> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn new_game(&mut self) {
        (**self).new_game();
    }
    fn choose_move(&mut self, board: &Board, time: Duration) -> Result<Move, GomokuError> {
        (**self).choose_move(board, time)
    }
    fn choose_move_within(&mut self, board: &Board, budget: Budget) -> Result<Move, GomokuError> {
        (**self).choose_move_within(board, budget)
    }
}

/// What the main engine found for its last move, for reports and tests.
#[derive(Debug, Clone, Default)]
pub struct SearchInfo {
    /// How the move was chosen: `"five"` (it wins at once), `"block four"` (it stops the
    /// opponent's five), `"vcf"` or `"vct"` (the first move of a forced win by continuous
    /// fours or threats), `"centre"` (the empty board's move, no search), `"only defence"`
    /// (the one move that stops the opponent's forced win) or `"alpha-beta"`; empty before
    /// the first move.
    pub reason: &'static str,
    /// Depth of the last finished alpha-beta iteration (0 if none ran).
    pub depth: u32,
    /// Alpha-beta nodes.
    pub nodes: u64,
    /// Threat-solver nodes.
    pub threat_nodes: u64,
    /// The score of the move (search-core's scale), when alpha-beta chose it.
    pub score: i32,
    /// The principal variation or winning line.
    pub line: Vec<Move>,
    /// Wall time spent.
    pub elapsed: Duration,
}

/// The main engine: threat-space search (VCF, then VCT) for forced wins and forced defences
/// (against the opponent's VCF and, time permitting, VCT),
/// then iterative-deepening alpha-beta (search-core's [`Searcher`]: transposition table,
/// principal variation search, aspiration windows, late move reductions, extensions of forcing
/// moves; see [`AlphaBetaEngine::TUNING`]) over the incremental pattern evaluation with
/// threat-first move ordering.
///
/// Time control is strict: every phase has its own deadline inside seven eighths of the
/// budget, the rest being a safety margin for the caller; alpha-beta starts no new iteration
/// after 55% of the budget.
///
/// ```
/// use std::time::Duration;
/// use gomoku::{AlphaBetaEngine, Board, Engine, Move, Rule};
/// let mut b = Board::new(15, Rule::Freestyle)?;
/// // Black, to move, has four in a row: the five wins before White's open three on row 9
/// // can become anything.
/// for (x, y) in [(3, 7), (3, 9), (4, 7), (4, 9), (5, 7), (5, 9), (6, 7), (9, 1)] {
///     b.play(Move::new(x, y))?;
/// }
/// let mut e = AlphaBetaEngine::new();
/// let m = e.choose_move(&b, Duration::from_millis(100))?;
/// assert!(m == Move::new(2, 7) || m == Move::new(7, 7));
/// # Ok::<(), gomoku::GomokuError>(())
/// ```
#[derive(Debug)]
pub struct AlphaBetaEngine {
    searcher: Searcher<SearchGame>,
    solver: ThreatSolver,
    info: SearchInfo,
    width: usize,
    /// The board size and rule the memory belongs to.
    game: Option<(usize, crate::Rule)>,
}

impl Default for AlphaBetaEngine {
    fn default() -> Self {
        AlphaBetaEngine::new()
    }
}

/// The longest time any deadline is set ahead: deadlines are instants, and a budget such as
/// `Duration::MAX` cannot be added to one. A year is no limit in practice.
pub(crate) const LONGEST_WAIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// The hard limit of a move: the searches abort at seven eighths of the budget. The rest is
/// kept back: the move must be printed before the clock runs out, searches check the clock only
/// every few hundred nodes, and on a busy machine the thread may lose the processor for a
/// scheduler tick or two right before its deadline.
fn hard_limit(time: Duration) -> Duration {
    (time * 7 / 8).max(Duration::from_millis(1))
}

/// No new alpha-beta iteration starts after this share of the budget (eleven twentieths): an
/// iteration started later would rarely finish before the hard limit.
fn soft_limit(time: Duration) -> Duration {
    time * 11 / 20
}

/// What one move may spend, for sharing it between the phases of the search.
#[derive(Debug, Clone, Copy)]
enum Plan {
    /// The move started at `start`; the searches stop at `deadline` (the hard limit), and
    /// `budget` is the time from one to the other.
    Clock {
        start: Instant,
        budget: Duration,
        deadline: Instant,
    },
    /// The move may search `total` nodes, threat and alpha-beta nodes together.
    Nodes { total: u64 },
}

impl Plan {
    /// The limits of a threat search that may take `num / den` of the move, and no more than
    /// is left of it after `spent` threat nodes.
    fn threat_share(self, num: u32, den: u32, spent: u64) -> ThreatLimits {
        match self {
            Plan::Clock {
                budget, deadline, ..
            } => ThreatLimits::time(
                (budget * num / den).min(deadline.saturating_duration_since(Instant::now())),
            ),
            Plan::Nodes { total } => ThreatLimits::nodes(
                (total / u64::from(den) * u64::from(num)).min(total.saturating_sub(spent)),
            ),
        }
    }

    /// What is left, when `spent` threat nodes have been searched, of the part of the move
    /// that ends at `num / den` of it (the whole move counted from its start); `None` once it
    /// is used up.
    fn left_until(self, num: u32, den: u32, spent: u64) -> Option<ThreatLimits> {
        match self {
            Plan::Clock { start, budget, .. } => {
                let left = (start + budget * num / den).saturating_duration_since(Instant::now());
                (!left.is_zero()).then(|| ThreatLimits::time(left))
            }
            Plan::Nodes { total } => {
                let left = (total / u64::from(den) * u64::from(num)).saturating_sub(spent);
                (left > 0).then(|| ThreatLimits::nodes(left))
            }
        }
    }
}

impl AlphaBetaEngine {
    /// The alpha-beta enhancements the engine uses. Killers and history are off: the
    /// threat-first order of the move generator beats both (they add nodes, measured with the
    /// `tuning` example); principal variation search, a wide aspiration window and late move
    /// reductions after the fourth move save nodes; fours at the horizon are played out (up to
    /// eight plies), a quiescence search for Gomoku. Time prediction is off: the growth of
    /// Gomoku iterations varies too much to predict, so the engine instead starts no iteration
    /// after a soft limit (55% of the budget) and aborts at a hard one (87.5%), keeping the best
    /// root move the unfinished iteration had proven.
    pub const TUNING: Tuning = Tuning {
        pvs: true,
        killers: false,
        history: false,
        aspiration: Some(300),
        late_move_reductions: Some((4, 3)),
        predict_time: false,
        forcing_extensions: 8,
    };

    /// An engine with a 64 MiB transposition table. Writing the table takes tens of
    /// milliseconds (more on a busy machine): build the engine before the clock starts, not
    /// within a move's time, or give it a table in proportion to the time it has.
    #[must_use]
    pub fn new() -> AlphaBetaEngine {
        AlphaBetaEngine::with_memo_bytes(64 << 20)
    }

    /// An engine whose transposition table takes about `bytes` bytes, allocated now.
    ///
    /// # Panics
    /// If the table cannot be allocated; where the size comes from a user,
    /// [`AlphaBetaEngine::try_with_memo_bytes`] reports that instead.
    #[must_use]
    pub fn with_memo_bytes(bytes: usize) -> AlphaBetaEngine {
        AlphaBetaEngine::try_with_memo_bytes(bytes)
            .unwrap_or_else(|e| panic!("a transposition table of {bytes} bytes: {e}"))
    }

    /// As [`AlphaBetaEngine::with_memo_bytes`], or the allocation's error if the table
    /// cannot be had.
    ///
    /// ```
    /// use gomoku::AlphaBetaEngine;
    /// assert!(AlphaBetaEngine::try_with_memo_bytes(usize::MAX).is_err());
    /// assert!(AlphaBetaEngine::try_with_memo_bytes(1 << 20).is_ok());
    /// ```
    ///
    /// # Errors
    /// When the table cannot be allocated.
    pub fn try_with_memo_bytes(
        bytes: usize,
    ) -> Result<AlphaBetaEngine, std::collections::TryReserveError> {
        let searcher = Searcher::try_with_tuning(
            SearchConfig {
                memo_bytes: bytes,
                ..SearchConfig::default()
            },
            AlphaBetaEngine::TUNING,
        )?;
        // Build the pattern tables now, not on the clock of the first move.
        crate::position::build_tables();
        Ok(AlphaBetaEngine {
            searcher,
            solver: ThreatSolver::new(),
            info: SearchInfo::default(),
            width: 20,
            game: None,
        })
    }

    /// What the last [`Engine::choose_move`] found.
    #[must_use]
    pub fn last_info(&self) -> &SearchInfo {
        &self.info
    }

    /// Changes the alpha-beta enhancements (for measurements).
    pub fn set_tuning(&mut self, tuning: Tuning) {
        self.searcher.set_tuning(tuning);
    }

    /// Sets how many candidate moves are searched in quiet positions (default 20).
    pub fn set_width(&mut self, width: usize) {
        self.width = width.max(1);
    }

    fn finish(
        &mut self,
        start: Instant,
        reason: &'static str,
        pos: &Position,
        cell: usize,
    ) -> Move {
        self.info.reason = reason;
        self.info.elapsed = start.elapsed();
        pos.to_move(cell)
    }

    /// The candidate moves of `game` after which the opponent has no forced win by continuous
    /// threats (moves that make a four are kept unchecked), or `None` when that restricts
    /// nothing: no candidate loses, or every candidate loses. The checks may take the move
    /// up to a third of its plan; once that is used up, the candidates not yet checked are
    /// kept unchecked (`None` if none was dropped by then).
    fn safe_moves(&mut self, game: &mut SearchGame, plan: Plan) -> Option<Vec<u16>> {
        let mut cands = Vec::new();
        game.candidates(&mut cands);
        let me = game.pos.side_to_move();
        let mut safe = Vec::with_capacity(cands.len());
        let mut dropped = false;
        for (i, &(_, q)) in cands.iter().enumerate() {
            let cell = usize::from(q);
            let Some(limits) = plan.left_until(1, 3, self.info.threat_nodes) else {
                safe.extend(cands[i..].iter().map(|&(_, c)| c));
                break;
            };
            if game.pos.threat(me, cell) >= Threat::Four {
                safe.push(q);
                continue;
            }
            game.pos.play(cell);
            let loses = self.solver.vct(&mut game.pos, &limits);
            game.pos.take_back();
            self.info.threat_nodes += self.solver.nodes();
            if self.solver.aborted() {
                safe.extend(cands[i..].iter().map(|&(_, c)| c));
                break;
            }
            if loses.is_some() {
                dropped = true;
            } else {
                safe.push(q);
            }
        }
        (dropped && !safe.is_empty()).then_some(safe)
    }

    /// Chooses a move within `budget` (a [`Budget`], or a `Duration` for a time budget) and,
    /// when `depth` is given, with alpha-beta stopping at that depth, for tests and
    /// fixed-depth benchmarks.
    ///
    /// # Errors
    /// [`GomokuError::GameOver`] if the game is over.
    pub fn choose_move_limited(
        &mut self,
        board: &Board,
        budget: impl Into<Budget>,
        depth: Option<u32>,
    ) -> Result<Move, GomokuError> {
        let start = Instant::now();
        if board.is_over() {
            return Err(GomokuError::GameOver);
        }
        // Memo keys tell neither the board size nor the rule. (Nothing to clear before the
        // first move.)
        let game = Some((board.size(), board.rule()));
        if self.game.is_some() && self.game != game {
            self.new_game();
        }
        self.game = game;
        let (plan, soft_deadline) = match budget.into() {
            Budget::Time(time) => {
                let time = time.min(LONGEST_WAIT);
                let budget = hard_limit(time);
                let deadline = start + budget;
                let plan = Plan::Clock {
                    start,
                    budget,
                    deadline,
                };
                (plan, Some(start + soft_limit(time)))
            }
            Budget::Nodes(total) => (Plan::Nodes { total }, None),
        };
        self.info = SearchInfo::default();
        let mut pos = Position::from_board(board);
        let me = pos.side_to_move();
        let op = me.other();

        // 1. Five now; 2. block the opponent's four.
        if let Some((q, five)) = pos.forced_cell() {
            let reason = if five { "five" } else { "block four" };
            return Ok(self.finish(start, reason, &pos, q));
        }
        // 3. Own forced win by continuous fours.
        let line = self
            .solver
            .vcf(&mut pos, &plan.threat_share(1, 8, self.info.threat_nodes));
        self.info.threat_nodes += self.solver.nodes();
        if let Some(line) = line
            && let Some(&first) = line.first()
        {
            self.info.line = line.iter().map(|&c| pos.to_move(c)).collect();
            return Ok(self.finish(start, "vcf", &pos, first));
        }
        // 4. The opponent's threats: restrict the root to the moves that may defend.
        let mut root: Option<Vec<u16>> = None;
        if pos.five_cells(op) == 0 {
            let t = plan.threat_share(1, 8, self.info.threat_nodes);
            if let Some(defences) = self.solver.defences(&mut pos, &t) {
                root = Some(defences.iter().map(|&c| c as u16).collect());
            }
            self.info.threat_nodes += self.solver.nodes();
        }
        // 5. Own forced win by continuous threats, when not under threat.
        if root.is_none() && pos.five_cells(op) == 0 {
            let t = plan.threat_share(1, 6, self.info.threat_nodes);
            let line = self.solver.vct(&mut pos, &t);
            self.info.threat_nodes += self.solver.nodes();
            if let Some(line) = line
                && let Some(&first) = line.first()
            {
                self.info.line = line.iter().map(|&c| pos.to_move(c)).collect();
                return Ok(self.finish(start, "vct", &pos, first));
            }
            // 6. The opponent's threat by continuous threats: keep to the moves that stop it.
            let t = ThreatLimits {
                vct_depth: 3,
                ..plan.threat_share(1, 6, self.info.threat_nodes)
            };
            if let Some(defences) = self.solver.vct_defences(&mut pos, &t) {
                root = Some(defences.iter().map(|&c| c as u16).collect());
            }
            self.info.threat_nodes += self.solver.nodes();
        }
        // 7. Alpha-beta.
        let stones = pos.stones();
        let mut game = SearchGame::new(pos);
        game.width = self.width;
        // 6a. The empty board: its one candidate is the centre, nothing to search for.
        if stones == 0 {
            let mut c = Vec::new();
            game.candidates(&mut c);
            if let [(_, q)] = c[..] {
                return Ok(self.finish(start, "centre", &game.pos, usize::from(q)));
            }
        }
        // 6b. In a quiet position, drop the candidate moves after which the opponent has a
        // forced win by continuous threats: alpha-beta's horizon is too short to see most of
        // them, and they decide most lost games.
        if root.is_none()
            && game.pos.five_cells(op) == 0
            && let Some(safe) = self.safe_moves(&mut game, plan)
        {
            root = Some(safe);
        }
        if let Some(r) = root {
            if r.len() == 1 {
                let q = usize::from(r[0]);
                return Ok(self.finish(start, "only defence", &game.pos, q));
            }
            if !r.is_empty() {
                game.root_moves = Some((stones, r));
            }
        }
        let now = Instant::now();
        let limits = match plan {
            Plan::Clock { deadline, .. } => Limits {
                depth,
                time: Some(
                    deadline
                        .saturating_duration_since(now)
                        .max(Duration::from_millis(1)),
                ),
                soft_time: soft_deadline.map(|d| d.saturating_duration_since(now)),
                ..Limits::default()
            },
            // Alpha-beta has what the threat searches left, and at least one node (a
            // search checks its count every few hundred nodes, so it gets that many).
            Plan::Nodes { total } => Limits {
                depth,
                nodes: Some(total.saturating_sub(self.info.threat_nodes).max(1)),
                ..Limits::default()
            },
        };
        let r = self.searcher.search(&mut game, &limits);
        self.info.depth = r.depth;
        self.info.nodes = r.stats.nodes;
        self.info.score = r.score.0;
        self.info.line =
            r.pv.iter()
                .map(|&c| game.pos.to_move(usize::from(c)))
                .collect();
        let cell = match r.best_move {
            Some(c) => usize::from(c),
            None => {
                let mut c = Vec::new();
                game.candidates(&mut c);
                match c.first() {
                    Some(&(_, q)) => usize::from(q),
                    None => game
                        .pos
                        .on_board_cells()
                        .find(|&q| game.pos.is_empty_cell(q))
                        .ok_or_else(|| GomokuError::NoMove("the board is full".into()))?,
                }
            }
        };
        Ok(self.finish(start, "alpha-beta", &game.pos, cell))
    }
}

impl Engine for AlphaBetaEngine {
    fn name(&self) -> &str {
        "alphabeta"
    }

    fn new_game(&mut self) {
        self.searcher.clear_memo();
        self.solver.clear();
    }

    fn choose_move(&mut self, board: &Board, time: Duration) -> Result<Move, GomokuError> {
        self.choose_move_limited(board, time, None)
    }

    fn choose_move_within(&mut self, board: &Board, budget: Budget) -> Result<Move, GomokuError> {
        self.choose_move_limited(board, budget, None)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Rule;

    fn board(moves: &[(u8, u8)]) -> Board {
        let mut b = Board::new(15, Rule::Freestyle).unwrap();
        for &(x, y) in moves {
            b.play(Move::new(x, y)).unwrap();
        }
        b
    }

    #[test]
    fn time_limits() {
        assert_eq!(
            hard_limit(Duration::from_millis(800)),
            Duration::from_millis(700)
        );
        assert_eq!(hard_limit(Duration::ZERO), Duration::from_millis(1));
        assert_eq!(
            soft_limit(Duration::from_millis(200)),
            Duration::from_millis(110)
        );
    }

    /// Plays the first empty cell, row by row: an engine that only times itself.
    pub(crate) struct FirstEmpty;

    impl Engine for FirstEmpty {
        fn name(&self) -> &str {
            "first-empty"
        }
        fn choose_move(&mut self, board: &Board, _: Duration) -> Result<Move, GomokuError> {
            board
                .empty_cells()
                .first()
                .copied()
                .ok_or(GomokuError::GameOver)
        }
    }

    /// Plays up to `moves` moves from `board` with `engine` on `budget` each (fewer if the
    /// game ends), and returns them.
    fn node_game(
        engine: &mut dyn Engine,
        mut board: Board,
        moves: usize,
        budget: Budget,
    ) -> Vec<Move> {
        let mut played = Vec::new();
        for _ in 0..moves {
            if board.is_over() {
                break;
            }
            let m = engine.choose_move_within(&board, budget).unwrap();
            board.play(m).unwrap();
            played.push(m);
        }
        played
    }

    /// A node budget gives the same game every time, whatever the machine is doing: the
    /// same moves from fresh engines, and within one move the same node counts. The count
    /// stays near the budget (the searches check it every 256 nodes).
    #[test]
    fn a_node_budget_replays_exactly() {
        let start = board(&[(7, 7), (8, 8), (8, 6)]);
        let budget = Budget::Nodes(30_000);
        let mut first = AlphaBetaEngine::with_memo_bytes(1 << 20);
        let mut second = AlphaBetaEngine::with_memo_bytes(1 << 20);
        let a = node_game(&mut first, start.clone(), 12, budget);
        // The second engine's moves take a while longer: the clock does not matter.
        let mut b = Vec::new();
        let mut pos = start.clone();
        for _ in 0..a.len() {
            std::thread::sleep(Duration::from_millis(2));
            let m = second.choose_move_within(&pos, budget).unwrap();
            pos.play(m).unwrap();
            b.push(m);
        }
        assert_eq!(a, b);
        // One move: the same counts, within the budget and its checks.
        let mut one = AlphaBetaEngine::with_memo_bytes(1 << 20);
        let mut two = AlphaBetaEngine::with_memo_bytes(1 << 20);
        let quiet = board(&[(7, 7), (8, 8), (8, 6), (6, 8), (9, 7)]);
        let m = one.choose_move_limited(&quiet, budget, None).unwrap();
        assert_eq!(two.choose_move_limited(&quiet, budget, None).unwrap(), m);
        let (i, j) = (one.last_info(), two.last_info());
        assert_eq!(
            (i.reason, i.nodes, i.threat_nodes),
            (j.reason, j.nodes, j.threat_nodes)
        );
        assert_eq!(i.reason, "alpha-beta");
        assert!(i.nodes > 0 && i.threat_nodes > 0, "{i:?}");
        // Six searches, each of which may run up to 255 nodes past its share.
        assert!(i.nodes + i.threat_nodes < 30_000 + 6 * 256, "{i:?}");
        // More nodes, a deeper search.
        let mut deep = AlphaBetaEngine::with_memo_bytes(1 << 20);
        deep.choose_move_within(&quiet, Budget::Nodes(300_000))
            .unwrap();
        assert!(
            deep.last_info().depth > i.depth,
            "{:?} {i:?}",
            deep.last_info()
        );
    }

    /// An engine that keeps only to time refuses a node budget by default, and takes a time
    /// budget as its `choose_move` does.
    #[test]
    fn engines_that_only_time_themselves_refuse_node_budgets() {
        let b = board(&[(7, 7)]);
        let mut e: Box<dyn Engine> = Box::new(FirstEmpty);
        assert_eq!(
            e.choose_move_within(&b, Budget::Nodes(10)),
            Err(GomokuError::NodesUnsupported("first-empty".into()))
        );
        let time = Budget::Time(Duration::from_millis(1));
        assert_eq!(e.choose_move_within(&b, time), Ok(Move::new(0, 0)));
    }

    /// The moves that need no search say why they were chosen: a five, the block of a
    /// single four, a forced win by fours (with its line).
    #[test]
    fn answers_that_need_no_search() {
        let mut e = AlphaBetaEngine::new();
        let t = Duration::from_secs(5);
        // Black to move with four in a row (open at both ends): five.
        let b = board(&[
            (3, 7),
            (3, 9),
            (4, 7),
            (4, 9),
            (5, 7),
            (5, 9),
            (6, 7),
            (9, 1),
        ]);
        let m = e.choose_move(&b, t).unwrap();
        assert!(m == Move::new(2, 7) || m == Move::new(7, 7));
        assert_eq!(e.last_info().reason, "five");
        // White to move facing Black's four (3..=6 on row 7, blocked at 2): the block at 7.
        let b = board(&[(3, 7), (2, 7), (4, 7), (3, 9), (5, 7), (9, 9), (6, 7)]);
        assert_eq!(e.choose_move(&b, t).unwrap(), Move::new(7, 7));
        assert_eq!(e.last_info().reason, "block four");
        // Black to move with an open three and nothing to fear: the open four wins by fours.
        let b = board(&[(5, 7), (0, 0), (6, 7), (0, 2), (7, 7), (0, 4)]);
        let m = e.choose_move(&b, t).unwrap();
        assert_eq!(e.last_info().reason, "vcf");
        assert_eq!(e.last_info().line.first(), Some(&m));
        assert_eq!(e.last_info().line.len(), 3);
        assert!(e.last_info().threat_nodes > 0);
        assert_eq!(e.last_info().nodes, 0, "no alpha-beta search");
        // An empty board has one candidate, the centre: played without a search, however
        // long the move may take.
        let empty = Board::new(15, Rule::Freestyle).unwrap();
        let clock = Instant::now();
        let centre = e.choose_move(&empty, Duration::from_secs(30)).unwrap();
        assert!(
            clock.elapsed() < Duration::from_secs(1),
            "{:?}",
            clock.elapsed()
        );
        assert_eq!(centre, Move::new(7, 7));
        assert_eq!(e.last_info().reason, "centre");
        assert_eq!(e.last_info().nodes, 0, "no alpha-beta search");
        // A boxed engine is the engine.
        let mut boxed: Box<dyn Engine> = Box::new(AlphaBetaEngine::new());
        assert_eq!(e.name(), "alphabeta"); // the name matches and brains report
        assert_eq!(boxed.name(), e.name());
        assert_eq!(boxed.choose_move(&b, t).unwrap(), m);
    }

    /// The safety filter keeps exactly the candidates after which the opponent has no VCT
    /// (or that make a four), and restricts nothing when no candidate or every candidate
    /// loses: checked against the threat solver move by move on random positions.
    #[test]
    fn safety_filter_drops_exactly_the_losing_candidates() {
        use crate::board::tests::random_board;
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(21);
        let mut e = AlphaBetaEngine::new();
        let mut reference = ThreatSolver::new();
        let (mut restricted, mut quiet) = (0, 0);
        for g in 0..150 {
            let size = 9 + g % 3;
            let stones = rng.random_range(6..16);
            let range = (2, size as u8 - 3);
            let b = random_board(&mut rng, size, Rule::Freestyle, range, stones);
            let pos = Position::from_board(&b);
            let me = pos.side_to_move();
            if b.is_over() || pos.five_cells(me) > 0 || pos.five_cells(me.other()) > 0 {
                continue;
            }
            let mut game = SearchGame::new(pos);
            let got = e.safe_moves(&mut game, Plan::Nodes { total: u64::MAX });
            let mut cands = Vec::new();
            game.candidates(&mut cands);
            let mut safe = Vec::new();
            for &(_, q) in &cands {
                let cell = usize::from(q);
                if game.pos.threat(me, cell) >= Threat::Four {
                    safe.push(q);
                    continue;
                }
                game.pos.play(cell);
                let loses = reference
                    .vct(&mut game.pos, &ThreatLimits::default())
                    .is_some();
                game.pos.take_back();
                if !loses {
                    safe.push(q);
                }
            }
            let want = (safe.len() < cands.len() && !safe.is_empty()).then_some(safe);
            assert_eq!(got, want, "\n{b}");
            if got.is_some() {
                restricted += 1;
            } else {
                quiet += 1;
            }
        }
        assert!(restricted > 10 && quiet > 10, "{restricted} {quiet}");
    }
    /// When a single move survives the defences and the safety filter, the engine plays it
    /// without a search, and it is the only one: after any other empty cell the opponent
    /// wins by continuous threats (reference: the threat solver, cell by cell). The positions
    /// were found among random ones by the engine itself.
    #[test]
    fn an_only_defence_is_played_without_search() {
        // (board size, moves, the only defence)
        type Fixture = (usize, &'static [(u8, u8)], (u8, u8));
        let positions: [Fixture; 3] = [
            (
                10,
                &[
                    (7, 7),
                    (5, 5),
                    (3, 2),
                    (4, 4),
                    (5, 4),
                    (2, 3),
                    (5, 6),
                    (7, 2),
                    (3, 3),
                    (6, 7),
                    (4, 5),
                    (4, 6),
                    (3, 4),
                ],
                (3, 5),
            ),
            (
                9,
                &[
                    (3, 5),
                    (5, 6),
                    (6, 4),
                    (5, 4),
                    (4, 3),
                    (6, 6),
                    (2, 4),
                    (4, 6),
                    (5, 3),
                    (4, 5),
                ],
                (3, 6),
            ),
            (
                11,
                &[
                    (3, 6),
                    (3, 8),
                    (4, 5),
                    (2, 4),
                    (5, 5),
                    (8, 2),
                    (5, 3),
                    (8, 5),
                    (5, 6),
                ],
                (5, 4),
            ),
        ];
        let mut e = AlphaBetaEngine::new();
        let mut reference = ThreatSolver::new();
        for (size, moves, (x, y)) in positions {
            let mut b = Board::new(size, Rule::Freestyle).unwrap();
            for &(x, y) in moves {
                b.play(Move::new(x, y)).unwrap();
            }
            let m = e.choose_move(&b, Duration::from_secs(5)).unwrap();
            assert_eq!(m, Move::new(x, y), "\n{b}");
            let info = e.last_info();
            assert_eq!(info.reason, "only defence");
            assert_eq!((info.nodes, info.depth), (0, 0), "no alpha-beta search");
            let mut pos = Position::from_board(&b);
            let me = pos.side_to_move();
            let cells: Vec<usize> = pos.on_board_cells().collect();
            for q in cells {
                if !pos.is_empty_cell(q) || pos.to_move(q) == m {
                    continue;
                }
                assert!(pos.threat(me, q) < Threat::Four, "{q} makes a four\n{b}");
                pos.play(q);
                let loses = reference.vct(&mut pos, &ThreatLimits::default()).is_some();
                pos.take_back();
                assert!(loses, "{:?} does not lose\n{b}", pos.to_move(q));
            }
        }
    }
    /// A new game starts from empty tables, whether asked for or because the board's size or
    /// rule changed: the same fixed-depth search then takes exactly the nodes it took in a
    /// fresh engine, while repeating it in the same game takes fewer (the tables remember).
    #[test]
    fn tables_are_cleared_between_games() {
        let moves = [(7, 7), (8, 8), (8, 6), (6, 8), (9, 7)];
        let fixed = |e: &mut AlphaBetaEngine, rule| {
            let mut b = Board::new(15, rule).unwrap();
            for &(x, y) in &moves {
                b.play(Move::new(x, y)).unwrap();
            }
            let m = e
                .choose_move_limited(&b, Duration::from_secs(60), Some(4))
                .unwrap();
            let info = e.last_info();
            assert_eq!(info.reason, "alpha-beta");
            (m, info.nodes, info.threat_nodes)
        };
        let mut fresh = AlphaBetaEngine::new();
        let first = fixed(&mut fresh, Rule::Freestyle);
        let mut fresh = AlphaBetaEngine::new();
        let exact = fixed(&mut fresh, Rule::ExactlyFive);
        let mut e = AlphaBetaEngine::new();
        assert_eq!(fixed(&mut e, Rule::Freestyle), first);
        let again = fixed(&mut e, Rule::Freestyle);
        assert!(again.1 < first.1, "{again:?} {first:?}");
        e.new_game();
        assert_eq!(fixed(&mut e, Rule::Freestyle), first);
        // Another rule: the same stones, so the same memo keys, but a new game.
        assert_eq!(fixed(&mut e, Rule::ExactlyFive), exact);
    }

    /// The width bounds the moves searched in quiet positions: one candidate means the first
    /// of the ordered candidates, found with fewer nodes.
    #[test]
    fn width_bounds_the_moves_searched() {
        let b = board(&[(7, 7), (8, 8), (8, 6), (6, 8), (9, 7)]);
        let t = Duration::from_secs(60);
        let mut wide = AlphaBetaEngine::new();
        wide.choose_move_limited(&b, t, Some(3)).unwrap();
        let mut narrow = AlphaBetaEngine::new();
        narrow.set_width(0); // read as 1
        let m = narrow.choose_move_limited(&b, t, Some(3)).unwrap();
        assert_eq!(narrow.last_info().reason, "alpha-beta");
        assert!(narrow.last_info().nodes < wide.last_info().nodes);
        let pos = Position::from_board(&b);
        let mut game = SearchGame::new(pos);
        game.width = 1;
        let mut cands = Vec::new();
        game.candidates(&mut cands);
        assert_eq!(m, game.pos.to_move(usize::from(cands[0].1)));
    }

    /// The tuning set is the one searched with: plain alpha-beta at a fixed depth visits
    /// another number of nodes than the engine's tuning. A boxed engine forwards everything.
    #[test]
    fn tuning_is_applied_and_boxes_forward() {
        let b = board(&[(7, 7), (8, 8), (8, 6), (6, 8), (9, 7)]);
        let t = Duration::from_secs(60);
        let nodes = |tuning: Option<Tuning>| {
            let mut e = AlphaBetaEngine::new();
            if let Some(tuning) = tuning {
                e.set_tuning(tuning);
            }
            e.choose_move_limited(&b, t, Some(4)).unwrap();
            assert_eq!(e.last_info().reason, "alpha-beta");
            e.last_info().nodes
        };
        assert_ne!(nodes(None), nodes(Some(Tuning::PLAIN)));
        assert_eq!(nodes(None), nodes(Some(AlphaBetaEngine::TUNING)));

        let mut boxed: Box<crate::BestFirstEngine> = Box::default();
        assert_eq!(Engine::name(&boxed), "bestfirst");
        Engine::choose_move(&mut boxed, &b, Duration::from_millis(20)).unwrap();
        assert!(boxed.last_search().is_some());
        Engine::new_game(&mut boxed);
        assert!(boxed.last_search().is_none());
    }
}
