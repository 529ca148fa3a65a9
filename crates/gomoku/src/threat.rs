//! Threat-space search: forced wins by continuous fours (VCF) and by continuous threats (VCT).
//!
//! **VCF.** The attacker plays only fours; the defender's answer to a four is forced (block the
//! completion cell), unless the defender can make five first, which refutes the four. The search
//! is therefore narrow, and a win it finds is a proof: no defender move was left out.
//!
//! **VCT.** The attacker may also play moves that threaten a VCF (open threes and the like). The
//! defender's answers to such a threat are not forced, and a solver that tries only the "usual"
//! defences can claim wins that do not exist. This solver stays sound with a locality argument:
//! the threat is a VCF line `L` the attacker would play if the defender passed. A defender move
//! that is not within five cells along a line of any cell of `L`, and is not a four, leaves every
//! pattern along `L` unchanged, so `L` still wins against it. Only the moves near `L` and the
//! defender's fours need searching; each of them gets the full recursive treatment.
//!
//! Failures are memoised by Zobrist key and remaining depth (a position that has no win within
//! `d` moves has none within fewer). Lines are sequences of cell indices, attacker first,
//! alternating colours, ending with the five.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::time::{Duration, Instant};

use search_core::FxHasher;

use crate::position::{Position, Threat};
use crate::{Pattern, Rule};

/// Budget and depth of one threat search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreatLimits {
    /// Stop (answering "no win found") after this long.
    pub time: Option<Duration>,
    /// Stop after about this many nodes (checked every 256 nodes, with the clock: up to 255
    /// more are searched).
    pub nodes: Option<u64>,
    /// Most attacker fours in a VCF.
    pub vcf_depth: u32,
    /// Most attacker threats in a VCT, counting the VCF that ends it as one: up to
    /// `vct_depth - 1` threes or fours (each with every defence searched), then a VCF (so 1
    /// is a VCF alone; with a `vcf_depth` of 0, the last threat is a four of the VCT's own).
    pub vct_depth: u32,
}

impl Default for ThreatLimits {
    /// No time or node limit, VCF up to 15 fours (31 plies), VCT up to 3 threats then a VCF.
    fn default() -> Self {
        ThreatLimits {
            time: None,
            nodes: None,
            vcf_depth: 15,
            vct_depth: 4,
        }
    }
}

impl ThreatLimits {
    /// Default depths under a time limit.
    #[must_use]
    pub fn time(t: Duration) -> ThreatLimits {
        ThreatLimits {
            time: Some(t),
            ..ThreatLimits::default()
        }
    }

    /// Default depths under a node limit.
    #[must_use]
    pub fn nodes(n: u64) -> ThreatLimits {
        ThreatLimits {
            nodes: Some(n),
            ..ThreatLimits::default()
        }
    }
}

type FailMemo = HashMap<u64, u8, BuildHasherDefault<FxHasher>>;

/// A VCF/VCT solver with its failure memo.
///
/// ```
/// use gomoku::{Board, Move, Position, Rule, ThreatLimits, ThreatSolver};
/// let mut b = Board::new(15, Rule::Freestyle)?;
/// // Black: an open three on row 7 (5..=7); White somewhere else.
/// for (x, y) in [(5, 7), (0, 0), (6, 7), (0, 2), (7, 7), (0, 4)] {
///     b.play(Move::new(x, y))?;
/// }
/// let mut pos = Position::from_board(&b);
/// let mut solver = ThreatSolver::new();
/// // Black to move makes an open four: a win by continuous fours in 3 plies.
/// let line = solver.vcf(&mut pos, &ThreatLimits::default()).expect("a forced win");
/// assert_eq!(line.len(), 3);
/// # Ok::<(), gomoku::GomokuError>(())
/// ```
#[derive(Debug, Default)]
pub struct ThreatSolver {
    vcf_fail: FailMemo,
    vct_fail: FailMemo,
    nodes: u64,
    start: Option<Instant>,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    aborted: bool,
    vcf_depth: u32,
    mark: Vec<u32>,
    stamp: u32,
    /// The board size and rule of the positions the memos hold.
    game: Option<(usize, Rule)>,
}

/// Most failures the VCF memo keeps before it starts again.
const VCF_MEMO_ENTRIES: usize = 1 << 20;
/// Most failures the VCT memo keeps before it starts again.
const VCT_MEMO_ENTRIES: usize = 1 << 18;

impl ThreatSolver {
    /// A solver with empty memos.
    #[must_use]
    pub fn new() -> ThreatSolver {
        ThreatSolver::default()
    }

    /// Forgets the memos. They are valid across searches of positions of one board size and
    /// rule, whose hash keys are their keys; a search of a position of another size or rule
    /// forgets them by itself, as those keys do not say either. They are bounded (2^20 and
    /// 2^18 entries, about 45 MB of hash table at most), and start again when full.
    pub fn clear(&mut self) {
        self.vcf_fail.clear();
        self.vct_fail.clear();
    }

    /// Nodes of the last search.
    #[must_use]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Whether the last search ran out of budget.
    #[must_use]
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    fn begin(&mut self, pos: &Position, limits: &ThreatLimits) {
        let game = Some((pos.geometry().size, pos.rule()));
        if self.game != game {
            self.clear();
            self.game = game;
        }
        let now = Instant::now();
        self.start = Some(now);
        // A time too far off to represent is no limit.
        self.deadline = limits.time.and_then(|t| now.checked_add(t));
        self.node_limit = limits.nodes;
        self.nodes = 0;
        self.aborted = false;
        // A VCT fails or not given the VCF depth its threats may finish with, which its
        // memo's keys do not hold: a failure found with fewer fours allowed says nothing
        // about more.
        if limits.vcf_depth != self.vcf_depth {
            self.vct_fail.clear();
        }
        self.vcf_depth = limits.vcf_depth;
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.aborted {
            return true;
        }
        if self.nodes.is_multiple_of(256) {
            let over_time = self.deadline.is_some_and(|d| Instant::now() >= d);
            let over_nodes = self.node_limit.is_some_and(|n| self.nodes >= n);
            self.aborted = over_time || over_nodes;
        }
        self.aborted
    }

    /// A forced win of the side to move by continuous fours: the line (attacker's moves and
    /// the forced answers, ending with the five), or `None` if there is none within the limits.
    /// `pos` is left as it was.
    pub fn vcf(&mut self, pos: &mut Position, limits: &ThreatLimits) -> Option<Vec<usize>> {
        self.winning_line(pos, limits, limits.vcf_depth, false)
    }

    /// A forced win of the side to move by continuous threats (threes and fours), or `None`.
    /// The line follows the first defence tried at each threat. `pos` is left as it was.
    pub fn vct(&mut self, pos: &mut Position, limits: &ThreatLimits) -> Option<Vec<usize>> {
        self.winning_line(pos, limits, limits.vct_depth, true)
    }

    /// The attack of [`ThreatSolver::vcf`] (fours only) and [`ThreatSolver::vct`] (`threes`
    /// too), to `depth` attacking moves.
    fn winning_line(
        &mut self,
        pos: &mut Position,
        limits: &ThreatLimits,
        depth: u32,
        threes: bool,
    ) -> Option<Vec<usize>> {
        self.begin(pos, limits);
        if pos.winner().is_some() {
            return None;
        }
        let mut line = Vec::new();
        self.attack(pos, depth, threes, &mut line).then_some(line)
    }

    /// If the opponent of the side to move would have a VCF were it their turn, the moves that
    /// may still save the side to move: its own fours, kept unverified, and the cells near the
    /// threatening line after which the opponent has no VCF (all the candidates, unverified,
    /// if it has no four and no other candidate saves, or if the budget runs out while they
    /// are being checked).
    /// `None` if there is no such threat (or the budget ran out before one was found).
    pub fn defences(&mut self, pos: &mut Position, limits: &ThreatLimits) -> Option<Vec<usize>> {
        self.defences_against(pos, limits, false)
    }

    /// Like [`ThreatSolver::defences`] against a VCT threat: the candidates also include the
    /// side to move's counter-threats anywhere near the stones (its open threes, and its
    /// closed threes, whose four can later answer one of the attacker's threes); its own
    /// fours are kept unverified, the other candidates only if the opponent has no VCT
    /// after them. `None` if there is no threat, no candidate is kept, or the budget ran out:
    /// the caller then has nothing reliable to restrict its search to.
    ///
    /// Against a VCF the cells near its line hold every defence (see the module docs).
    /// A VCT's threats branch with the defender's answers, and only the line found is
    /// looked near: a defence farther away that is not a counter-threat is not offered.
    /// The moves returned are each checked; the list may be incomplete.
    pub fn vct_defences(
        &mut self,
        pos: &mut Position,
        limits: &ThreatLimits,
    ) -> Option<Vec<usize>> {
        self.defences_against(pos, limits, true)
    }

    fn defences_against(
        &mut self,
        pos: &mut Position,
        limits: &ThreatLimits,
        threes: bool,
    ) -> Option<Vec<usize>> {
        self.begin(pos, limits);
        if pos.winner().is_some() {
            return None;
        }
        let depth = if threes {
            limits.vct_depth
        } else {
            limits.vcf_depth
        };
        pos.pass();
        let mut threat = Vec::new();
        let found = self.attack(pos, depth, threes, &mut threat);
        pos.pass();
        if !found || self.aborted {
            return None;
        }
        let mut all = self.relevant(pos, &threat);
        let me = pos.side_to_move();
        if threes {
            for q in pos.cells_near_stones(4) {
                if pos.is_empty_cell(q)
                    && (pos.threat(me, q) >= Threat::OpenThree
                        || pos.patterns(me, q).contains(&Pattern::Three))
                    && !all.contains(&q)
                {
                    all.push(q);
                }
            }
        }
        let mut saving = Vec::new();
        for &r in &all {
            if pos.threat(me, r) >= Threat::Four {
                saving.push(r);
                continue;
            }
            pos.play(r);
            let mut l = Vec::new();
            let loses = self.attack(pos, depth, threes, &mut l);
            pos.take_back();
            if self.aborted {
                return if threes { None } else { Some(all) };
            }
            if !loses {
                saving.push(r);
            }
        }
        if saving.is_empty() {
            return if threes { None } else { Some(all) };
        }
        Some(saving)
    }

    /// The defender's moves that can matter against the threat line `line` (see the module
    /// docs): cells within five along a line of a cell of `line`, and the defender's fours.
    /// The defender is the side to move. Cells of the line come first.
    fn relevant(&mut self, pos: &Position, line: &[usize]) -> Vec<usize> {
        let n = pos.cells().len();
        if self.mark.len() != n {
            self.mark = vec![0; n];
            self.stamp = 0;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let mut out = Vec::new();
        let add = |q: usize, out: &mut Vec<usize>, mark: &mut Vec<u32>| {
            if pos.is_empty_cell(q) && mark[q] != stamp {
                mark[q] = stamp;
                out.push(q);
            }
        };
        for &c in line {
            add(c, &mut out, &mut self.mark);
        }
        let dirs = pos.geometry().directions();
        for &c in line {
            for o in dirs {
                for k in 1..=5usize {
                    add(c + k * o, &mut out, &mut self.mark);
                    add(c - k * o, &mut out, &mut self.mark);
                }
            }
        }
        let d = pos.side_to_move();
        for q in pos.on_board_cells() {
            if pos.is_empty_cell(q) && pos.threat(d, q) >= Threat::Four {
                add(q, &mut out, &mut self.mark);
            }
        }
        out
    }

    /// The attacker (side to move) looks for a win within `depth` threats.
    fn attack(
        &mut self,
        pos: &mut Position,
        depth: u32,
        threes: bool,
        line: &mut Vec<usize>,
    ) -> bool {
        if self.tick() {
            return false;
        }
        let a = pos.side_to_move();
        let d = a.other();
        let mut cells = Vec::new();
        if pos.five_cells(a) > 0 {
            let mine = pos.history().iter().rev().nth(1).map(|&p| usize::from(p));
            pos.find_five_cells(a, mine, &mut cells);
            if let Some(&q) = cells.first() {
                line.push(q);
                return true;
            }
            return false;
        }
        if depth == 0 {
            return false;
        }
        let key = pos.key();
        let memo = if threes {
            &self.vct_fail
        } else {
            &self.vcf_fail
        };
        if memo.get(&key).is_some_and(|&f| u32::from(f) >= depth) {
            return false;
        }
        if threes {
            // Continuous fours first: cheaper, and a win is a win.
            let before = line.len();
            let vcf_depth = self.vcf_depth;
            if self.attack(pos, vcf_depth, false, line) {
                return true;
            }
            line.truncate(before);
            if self.aborted || (depth == 1 && self.vcf_depth > 0) {
                // With one threat left, a three would leave the attacker needing a five after
                // the defence, which it cannot have; a four wins only as a double four, which
                // the VCF just tried (when it may play a four at all).
                return false;
            }
        }
        let mut moves: Vec<(Threat, usize)> = Vec::new();
        if pos.five_cells(d) > 0 {
            // The defender has a four: block it, if the block is itself a threat.
            pos.find_five_cells(d, pos.last(), &mut cells);
            if cells.len() == 1 {
                let t = pos.threat(a, cells[0]);
                if t >= Threat::Four || (threes && t >= Threat::OpenThree) {
                    moves.push((t, cells[0]));
                }
            }
        } else {
            let min = if threes {
                Threat::OpenThree
            } else {
                Threat::Four
            };
            for q in pos.on_board_cells() {
                if pos.is_empty_cell(q) {
                    let t = pos.threat(a, q);
                    if t >= min {
                        moves.push((t, q));
                    }
                }
            }
            moves.sort_by_key(|x| std::cmp::Reverse(x.0));
        }
        for &(_, q) in &moves {
            let before = line.len();
            pos.play(q);
            line.push(q);
            let ok = self.defend(pos, depth - 1, threes, line);
            pos.take_back();
            if ok {
                return true;
            }
            line.truncate(before);
            if self.aborted {
                return false;
            }
        }
        if !self.aborted {
            let (memo, cap) = if threes {
                (&mut self.vct_fail, VCT_MEMO_ENTRIES)
            } else {
                (&mut self.vcf_fail, VCF_MEMO_ENTRIES)
            };
            // The memos are a cache, not a store: a full one starts again.
            if memo.len() >= cap && !memo.contains_key(&key) {
                memo.clear();
            }
            let e = memo.entry(key).or_insert(0);
            *e = (*e).max(depth.min(255) as u8);
        }
        false
    }

    /// The defender (side to move) answers the attacker's last move; true if the attacker
    /// still wins within `depth` more threats.
    fn defend(
        &mut self,
        pos: &mut Position,
        depth: u32,
        threes: bool,
        line: &mut Vec<usize>,
    ) -> bool {
        if self.tick() {
            return false;
        }
        let d = pos.side_to_move();
        let a = d.other();
        if pos.five_cells(d) > 0 {
            return false;
        }
        if pos.five_cells(a) > 0 {
            let mut cells = Vec::new();
            pos.find_five_cells(a, pos.last(), &mut cells);
            let Some(&b) = cells.first() else {
                return false;
            };
            pos.play(b);
            line.push(b);
            let ok = self.attack(pos, depth, threes, line);
            pos.take_back();
            if !ok {
                line.pop();
            }
            return ok;
        }
        if !threes {
            return false;
        }
        // A threat that is not a four: it must be a VCF if the defender passed.
        pos.pass();
        let mut threat = Vec::new();
        let vcf_depth = self.vcf_depth;
        let real = self.attack(pos, vcf_depth, false, &mut threat);
        pos.pass();
        if !real || self.aborted {
            return false;
        }
        let defences = self.relevant(pos, &threat);
        let mut first: Option<Vec<usize>> = None;
        for r in defences {
            pos.play(r);
            let mut sub = vec![r];
            let ok = self.attack(pos, depth, true, &mut sub);
            pos.take_back();
            if !ok {
                return false;
            }
            if first.is_none() {
                first = Some(sub);
            }
        }
        line.extend(first.unwrap_or_default());
        true
    }
}
