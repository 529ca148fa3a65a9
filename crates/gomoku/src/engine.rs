//! The engine interface and the main engine: alpha-beta over the pattern evaluation.

use std::time::{Duration, Instant};

use search_core::{Limits, SearchConfig, Searcher, Tuning};

use crate::search::SearchGame;
use crate::threat::{ThreatLimits, ThreatSolver};
use crate::{Board, GomokuError, Move, Position, Threat};

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
}

/// What the main engine found for its last move, for reports and tests.
#[derive(Debug, Clone, Default)]
pub struct SearchInfo {
    /// How the move was chosen.
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
/// // White threatens nothing; Black has four in a row and must complete the five.
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
    /// milliseconds: build the engine before the clock starts, not within a move's time.
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
                merge_moves: false,
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
    /// nothing: no candidate loses, or every candidate loses. When `deadline` comes first, the
    /// candidates not yet checked are kept unchecked (`None` if none was dropped by then).
    fn safe_moves(&mut self, game: &mut SearchGame, deadline: Instant) -> Option<Vec<u16>> {
        let mut cands = Vec::new();
        game.candidates(&mut cands);
        let me = game.pos.side_to_move();
        let mut safe = Vec::with_capacity(cands.len());
        let mut dropped = false;
        for (i, &(_, q)) in cands.iter().enumerate() {
            let cell = usize::from(q);
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                safe.extend(cands[i..].iter().map(|&(_, c)| c));
                break;
            }
            if game.pos.threat(me, cell) >= Threat::Four {
                safe.push(q);
                continue;
            }
            game.pos.play(cell);
            let loses = self.solver.vct(&mut game.pos, &ThreatLimits::time(left));
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

    /// Chooses a move with an explicit alpha-beta depth limit (and the time budget), for tests
    /// and fixed-depth benchmarks.
    ///
    /// # Errors
    /// [`GomokuError::GameOver`] if the game is over.
    pub fn choose_move_limited(
        &mut self,
        board: &Board,
        time: Duration,
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
        let time = time.min(LONGEST_WAIT);
        let budget = hard_limit(time);
        let deadline = start + budget;
        let soft_deadline = start + soft_limit(time);
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
        let vcf_budget = budget / 8;
        let line = self.solver.vcf(
            &mut pos,
            &ThreatLimits::time(vcf_budget.min(deadline.saturating_duration_since(Instant::now()))),
        );
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
            let t = ThreatLimits::time(budget / 8);
            if let Some(defences) = self.solver.defences(&mut pos, &t) {
                root = Some(defences.iter().map(|&c| c as u16).collect());
            }
            self.info.threat_nodes += self.solver.nodes();
        }
        // 5. Own forced win by continuous threats, when not under threat.
        if root.is_none() && pos.five_cells(op) == 0 {
            let t = ThreatLimits::time(budget / 6);
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
                ..ThreatLimits::time(budget / 6)
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
        // 6b. In a quiet position, drop the candidate moves after which the opponent has a
        // forced win by continuous threats: alpha-beta's horizon is too short to see most of
        // them, and they decide most lost games.
        if root.is_none() && game.pos.five_cells(op) == 0 {
            let filter_deadline = start + budget / 3;
            if let Some(safe) = self.safe_moves(&mut game, filter_deadline) {
                root = Some(safe);
            }
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
        let remaining = deadline.saturating_duration_since(now);
        let limits = Limits {
            depth,
            time: Some(remaining.max(Duration::from_millis(1))),
            soft_time: Some(soft_deadline.saturating_duration_since(now)),
            ..Limits::default()
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
}

#[cfg(test)]
mod tests {
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
            let far = Instant::now() + Duration::from_secs(60);
            let got = e.safe_moves(&mut game, far);
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
