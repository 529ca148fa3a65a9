//! The search position: the board plus everything the engines read in O(1), kept up to date
//! incrementally by [`Position::play`] and [`Position::undo`].
//!
//! Every empty cell carries, for each of the four directions, the 20-bit key of its ten line
//! neighbours (see [`crate::pattern`]). A stone changes the keys of at most forty cells (five
//! each way along four lines): the move updates exactly those, reads their old and new
//! patterns from the table, and adjusts running totals: per colour, how many (cell, direction)
//! pairs show each [`Pattern`], a weighted pattern score, and the number of cells where that
//! colour would make five. Evaluation and threat queries are then table reads, never board
//! scans.

use crate::board::{EMPTY, Geometry, WALL, makes_five, zobrist};
use std::sync::OnceLock;

use crate::pattern::{Pattern, slot_shift, table, table_index};
use crate::{Board, GomokuError, MAX_SIZE, MIN_SIZE, Move, Rule, Stone};

/// What a move on a cell makes for one colour, combining its four lines. Ordered by strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Threat {
    /// Nothing better than a closed two (an open two is [`Threat::Minor`]).
    Quiet,
    /// A (closed) three or an open two somewhere.
    Minor,
    /// One open three: a threat to make an open four.
    OpenThree,
    /// Two open threes at once (a winning double threat unless the opponent has fours).
    ThreeThree,
    /// One four: the opponent must answer on one cell.
    Four,
    /// A four and an open three (wins unless the answer to the four also defends).
    FourThree,
    /// An open four or two fours: cannot be stopped by one move.
    FourFour,
    /// Five: the game is won.
    Five,
}

/// Per-direction weights of the pattern score, indexed by [`Pattern`]. They value the cells
/// where a colour could play, so a position scores its potential, not its past.
pub(crate) const PATTERN_WEIGHT: [i32; 8] = [0, 2, 6, 8, 24, 26, 90, 300];

/// The board with incrementally maintained line patterns, for the engines.
///
/// Methods that take a cell index `p` expect an on-board cell of the position's geometry
/// ([`Geometry::index`], [`Geometry::checked_index`], or a cell the position lists): they
/// are the engines' inner loop and do not check it, so another index (a wall cell, one past
/// the array) panics or gives a meaningless answer. [`Position::is_empty_cell`] alone takes
/// any index. Moves from outside come in through [`Position::from_board`] or a [`Board`],
/// which check them.
#[derive(Debug, Clone)]
pub struct Position {
    geo: Geometry,
    rule: Rule,
    table: &'static [u8],
    combine: &'static [Threat; 4096],
    /// How far along a line a stone changes keys: 4 under freestyle (the table ignores the
    /// fifth cell), 5 under exactly five.
    reach: usize,

    cells: Vec<u8>,
    keys: Vec<[u32; 4]>,
    /// The table entry of each empty cell's four keys (stale on occupied cells).
    pats: Vec<[u8; 4]>,
    /// The combined threat of each empty cell for Black and White.
    threats: Vec<[Threat; 2]>,
    near: Vec<u8>,
    history: Vec<u16>,
    stm: Stone,
    winner: Option<Stone>,
    zkey: u64,
    counts: [[u32; 8]; 2],
    score: [i32; 2],
    fives: Vec<[u8; 2]>,
    five_cells: [u32; 2],
    /// Bounding boxes of the stones after each move, `[x0, x1, y0, y1]`, inclusive.
    bbox: Vec<[u8; 4]>,
}

impl Position {
    /// An empty position on the board of `geo`.
    ///
    /// # Errors
    /// [`GomokuError::BadSize`] when `geo` is not that of a board of 5 to 32 cells a side.
    pub fn new(geo: Geometry, rule: Rule) -> Result<Position, GomokuError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&geo.size) {
            return Err(GomokuError::BadSize(geo.size));
        }
        Ok(Position::empty(geo, rule))
    }

    /// An empty position on a geometry known to be valid.
    fn empty(geo: Geometry, rule: Rule) -> Position {
        let cells = geo.fresh_cells();
        let n = cells.len();
        let mut p = Position {
            geo,
            rule,
            table: table(rule),
            combine: combine_table(),
            reach: match rule {
                Rule::Freestyle => 4,
                Rule::ExactlyFive => 5,
            },

            cells,
            keys: vec![[0; 4]; n],
            pats: vec![[0; 4]; n],
            threats: vec![[Threat::Quiet; 2]; n],
            near: vec![0; n],
            history: Vec::new(),
            stm: Stone::Black,
            winner: None,
            zkey: 0,
            counts: [[0; 8]; 2],
            score: [0; 2],
            fives: vec![[0; 2]; n],
            five_cells: [0; 2],
            bbox: Vec::new(),
        };
        p.recompute();
        p
    }

    /// The position of `board` (its moves replayed).
    #[must_use]
    pub fn from_board(board: &Board) -> Position {
        let mut p = Position::empty(board.geometry(), board.rule());
        for &m in board.history() {
            if let Some(i) = p.geo.checked_index(m) {
                p.play(i);
            }
        }
        // The board's judgement, not the replay's: a position given by its stones has a
        // made-up order, which may pass through a five that a later stone made an overline.
        p.winner = board.winner();
        p
    }

    /// Recomputes every key, pattern and total from the cells: what the incremental updates
    /// avoid (used on creation, by tests as their reference, and by the benchmarks).
    #[doc(hidden)]
    pub fn recount(&mut self) {
        self.recompute();
    }

    fn recompute(&mut self) {
        let dirs = self.geo.directions();
        self.counts = [[0; 8]; 2];
        self.score = [0; 2];
        self.five_cells = [0; 2];
        for i in 0..self.cells.len() {
            self.fives[i] = [0; 2];
            if self.cells[i] == WALL {
                continue;
            }
            for (d, &o) in dirs.iter().enumerate() {
                let mut key = 0u32;
                for k in 1..=self.reach {
                    key |= u32::from(self.cells[i + k * o]) << slot_shift(k as isize);
                    key |= u32::from(self.cells[i - k * o]) << slot_shift(-(k as isize));
                }
                self.keys[i][d] = key;
            }
            if self.cells[i] == EMPTY {
                for d in 0..4 {
                    let b = self.lookup(self.keys[i][d]);
                    self.pats[i][d] = b;
                    self.apply(i, b, 1);
                }
                self.set_threats(i);
            }
        }
    }

    /// A fresh recount of the totals, compared with the incremental ones: `true` if equal.
    #[must_use]
    #[doc(hidden)]
    pub fn check_incremental(&self) -> bool {
        let mut fresh = self.clone();
        fresh.recompute();
        let empty_agree = (0..self.cells.len())
            .filter(|&i| self.cells[i] == EMPTY)
            .all(|i| fresh.pats[i] == self.pats[i] && fresh.threats[i] == self.threats[i]);
        empty_agree
            && fresh.keys == self.keys
            && fresh.counts == self.counts
            && fresh.score == self.score
            && fresh.five_cells == self.five_cells
            && fresh.fives == self.fives
    }

    #[inline]
    fn lookup(&self, key: u32) -> u8 {
        self.table[table_index(self.rule, key)]
    }

    #[inline]
    fn set_threats(&mut self, i: usize) {
        let b = self.pats[i];
        let t = self.combine;
        for c in 0..2 {
            let sh = 4 * c;
            let idx = usize::from((b[0] >> sh) & 7)
                | usize::from((b[1] >> sh) & 7) << 3
                | usize::from((b[2] >> sh) & 7) << 6
                | usize::from((b[3] >> sh) & 7) << 9;
            self.threats[i][c] = t[idx];
        }
    }

    #[inline]
    fn apply(&mut self, i: usize, b: u8, sign: i32) {
        for c in 0..2 {
            let pat = usize::from((b >> (4 * c)) & 7);
            self.counts[c][pat] = self.counts[c][pat].wrapping_add_signed(sign);
            self.score[c] += sign * PATTERN_WEIGHT[pat];
            if pat == Pattern::Five as usize {
                let f = &mut self.fives[i][c];
                if sign > 0 {
                    *f += 1;
                    if *f == 1 {
                        self.five_cells[c] += 1;
                    }
                } else {
                    *f -= 1;
                    if *f == 0 {
                        self.five_cells[c] -= 1;
                    }
                }
            }
        }
    }

    /// Moves the (empty) cell `i` from table entry `ob` to `nb` in the totals.
    #[inline]
    fn change(&mut self, i: usize, ob: u8, nb: u8) {
        for c in 0..2 {
            let o = usize::from((ob >> (4 * c)) & 7);
            let n = usize::from((nb >> (4 * c)) & 7);
            if o == n {
                continue;
            }
            self.counts[c][o] -= 1;
            self.counts[c][n] += 1;
            self.score[c] += PATTERN_WEIGHT[n] - PATTERN_WEIGHT[o];
            const FIVE: usize = Pattern::Five as usize;
            if n == FIVE {
                let f = &mut self.fives[i][c];
                *f += 1;
                if *f == 1 {
                    self.five_cells[c] += 1;
                }
            } else if o == FIVE {
                let f = &mut self.fives[i][c];
                *f -= 1;
                if *f == 0 {
                    self.five_cells[c] -= 1;
                }
            }
        }
    }

    #[inline]
    fn update_neighbours(&mut self, p: usize, code: u8) {
        let dirs = self.geo.directions();
        let code = u32::from(code);
        for (d, &o) in dirs.iter().enumerate() {
            // Outwards on each side; past the edge there are only walls, so stop there.
            for forward in [true, false] {
                for k in 1..=self.reach {
                    let (q, shift) = if forward {
                        (p + k * o, slot_shift(-(k as isize)))
                    } else {
                        (p - k * o, slot_shift(k as isize))
                    };
                    let cell = self.cells[q];
                    if cell == WALL {
                        break;
                    }
                    let new = self.keys[q][d] ^ (code << shift);
                    self.keys[q][d] = new;
                    if cell == EMPTY {
                        let (ob, nb) = (self.pats[q][d], self.lookup(new));
                        if ob != nb {
                            self.change(q, ob, nb);
                            self.pats[q][d] = nb;
                            self.set_threats(q);
                        }
                    }
                }
            }
        }
    }

    /// Plays `m` for the side to move, after checking it; returns its cell. The checked form
    /// of [`play`](Self::play), for moves that come from outside a search.
    ///
    /// # Errors
    /// Off the board, on an occupied cell, or after a five.
    pub fn try_play(&mut self, m: Move) -> Result<usize, GomokuError> {
        if self.winner.is_some() {
            return Err(GomokuError::GameOver);
        }
        let p = self.geo.empty_cell(&self.cells, m)?;
        self.play(p);
        Ok(p)
    }

    /// Plays the side to move on the empty on-board cell `p`. This is the search's hot path:
    /// the caller guarantees the cell (checked only in debug builds; in release a cell off
    /// the board or occupied corrupts the position). [`try_play`](Self::try_play) checks.
    pub fn play(&mut self, p: usize) {
        debug_assert!(
            self.geo.on_board(p) && self.cells[p] == EMPTY,
            "play on cell {p}, which is not an empty cell of the board"
        );
        let s = self.stm;
        let code = s.code();
        let mut wins = false;
        for d in 0..4 {
            let b = self.pats[p][d];
            wins |= (b >> (4 * s.index())) & 7 == Pattern::Five as u8;
            self.apply(p, b, -1);
        }
        self.cells[p] = code;
        self.update_neighbours(p, code);
        let stride = self.geo.stride;
        for dy in 0..5 {
            let row = p + dy * stride - 2 * stride;
            for q in row - 2..=row + 2 {
                self.near[q] += 1;
            }
        }
        let z = zobrist();
        self.zkey ^= z.cells[s.index()][self.geo.zobrist_index(p)] ^ z.white_to_move;
        self.history.push(p as u16);
        let m = self.geo.to_move(p);
        let b = match self.bbox.last() {
            Some(&[x0, x1, y0, y1]) => [x0.min(m.x), x1.max(m.x), y0.min(m.y), y1.max(m.y)],
            None => [m.x, m.x, m.y, m.y],
        };
        self.bbox.push(b);
        if wins {
            self.winner = Some(s);
        }
        self.stm = s.other();
    }

    /// Takes back the last move; returns its cell, or `None` (and changes nothing) when no
    /// move was played or a pass made since has not been taken back (by another pass).
    pub fn undo(&mut self) -> Option<usize> {
        let p = usize::from(*self.history.last()?);
        let s = self.stm.other();
        let code = s.code();
        if self.cells[p] != code {
            // The last stone is the side to move's own: an odd number of passes since.
            return None;
        }
        self.history.pop();
        self.bbox.pop();
        self.cells[p] = EMPTY;
        self.update_neighbours(p, code);
        for d in 0..4 {
            let b = self.lookup(self.keys[p][d]);
            self.pats[p][d] = b;
            self.apply(p, b, 1);
        }
        self.set_threats(p);
        let stride = self.geo.stride;
        for dy in 0..5 {
            let row = p + dy * stride - 2 * stride;
            for q in row - 2..=row + 2 {
                self.near[q] -= 1;
            }
        }
        let z = zobrist();
        self.zkey ^= z.cells[s.index()][self.geo.zobrist_index(p)] ^ z.white_to_move;
        self.winner = None;
        self.stm = s;
        Some(p)
    }

    /// [`undo`](Self::undo) where the search knows there is a move to take back: a search
    /// that lost count of its passes stops here in debug builds instead of going on with a
    /// stone too many.
    pub(crate) fn take_back(&mut self) {
        let undone = self.undo();
        debug_assert!(
            undone.is_some(),
            "nothing to take back, or a pass outstanding"
        );
    }

    /// Passes: the other side moves next (a null move, for threat detection). Undo with
    /// another `pass`.
    pub fn pass(&mut self) {
        self.stm = self.stm.other();
        self.zkey ^= zobrist().white_to_move;
    }

    /// The geometry of the padded array.
    #[must_use]
    pub fn geometry(&self) -> Geometry {
        self.geo
    }

    /// The winning rule.
    #[must_use]
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The side to move.
    #[must_use]
    pub fn side_to_move(&self) -> Stone {
        self.stm
    }

    /// Who just made five, if anyone.
    #[must_use]
    pub fn winner(&self) -> Option<Stone> {
        self.winner
    }

    /// Number of stones on the board.
    #[must_use]
    pub fn stones(&self) -> usize {
        self.history.len()
    }

    /// Whether every cell is taken.
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.history.len() == self.geo.size * self.geo.size
    }

    /// Cells played so far, in order.
    #[must_use]
    pub fn history(&self) -> &[u16] {
        &self.history
    }

    /// The last move's cell.
    #[must_use]
    pub fn last(&self) -> Option<usize> {
        self.history.last().map(|&p| usize::from(p))
    }

    /// The Zobrist key (the same as [`Board::key`] for the same stones).
    #[must_use]
    pub fn key(&self) -> u64 {
        self.zkey
    }

    /// The padded cell array (0 empty, 1 Black, 2 White, 3 wall).
    #[must_use]
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// Whether cell `p` is empty and on the board.
    #[must_use]
    pub fn is_empty_cell(&self, p: usize) -> bool {
        self.cells.get(p) == Some(&EMPTY)
    }

    /// Whether a stone lies within two cells (in both coordinates) of `p`.
    #[must_use]
    pub fn has_neighbour(&self, p: usize) -> bool {
        self.near[p] > 0
    }

    /// The pattern `s` would make on cell `p` along direction `d` (0..4).
    #[must_use]
    pub fn pattern(&self, s: Stone, p: usize, d: usize) -> Pattern {
        let b = if self.cells[p] == EMPTY {
            self.pats[p][d]
        } else {
            self.lookup(self.keys[p][d])
        };
        Pattern::from_bits(b >> (4 * s.index()))
    }

    /// The four patterns `s` would make on `p`.
    #[must_use]
    pub fn patterns(&self, s: Stone, p: usize) -> [Pattern; 4] {
        std::array::from_fn(|d| self.pattern(s, p, d))
    }

    /// What a stone of `s` on the empty cell `p` would make, all lines together.
    #[must_use]
    pub fn threat(&self, s: Stone, p: usize) -> Threat {
        if self.cells[p] == EMPTY {
            self.threats[p][s.index()]
        } else {
            combine(self.patterns(s, p))
        }
    }

    /// The summed pattern weights (the per-direction weights of the pattern score, by
    /// [`Pattern`]) of both colours' four patterns on the empty cell `p`: how much a stone
    /// there matters to the lines through it.
    #[must_use]
    pub fn cell_weight(&self, p: usize) -> i32 {
        self.pats[p]
            .iter()
            .map(|&b| {
                PATTERN_WEIGHT[usize::from(b & 7)] + PATTERN_WEIGHT[usize::from((b >> 4) & 7)]
            })
            .sum()
    }

    /// Number of empty cells where `s` would make five.
    #[must_use]
    pub fn five_cells(&self, s: Stone) -> u32 {
        self.five_cells[s.index()]
    }

    /// Number of (empty cell, direction) pairs where `s` would make `pattern`.
    #[must_use]
    pub fn pattern_count(&self, s: Stone, pattern: Pattern) -> u32 {
        self.counts[s.index()][pattern as usize]
    }

    /// The weighted pattern score of `s` (sum over empty cells and directions).
    #[must_use]
    pub fn pattern_score(&self, s: Stone) -> i32 {
        self.score[s.index()]
    }

    /// Whether `s` making five on `p` is recorded (a direction with [`Pattern::Five`]).
    #[must_use]
    pub fn is_five_cell(&self, s: Stone, p: usize) -> bool {
        self.fives[p][s.index()] > 0
    }

    /// Appends the cells where `s` would make five. Looks along the lines through `around`
    /// first (a new four's completion is always there) and scans the board only if some are
    /// still missing.
    pub fn find_five_cells(&self, s: Stone, around: Option<usize>, out: &mut Vec<usize>) {
        let want = self.five_cells[s.index()] as usize;
        let start = out.len();
        if want == 0 {
            return;
        }
        if let Some(p) = around {
            for o in self.geo.directions() {
                for k in 1..=4usize {
                    for q in [p + k * o, p - k * o] {
                        if self.cells[q] == EMPTY
                            && self.is_five_cell(s, q)
                            && !out[start..].contains(&q)
                        {
                            out.push(q);
                        }
                    }
                }
            }
            if out.len() - start >= want {
                return;
            }
            out.truncate(start);
        }
        for q in self.on_board_cells() {
            if self.cells[q] == EMPTY && self.is_five_cell(s, q) {
                out.push(q);
            }
        }
    }

    /// The move that needs no search: a five for the side to move (`true`), or else the block
    /// of the opponent's only five (`false`). Facing two or more, there is none: every move
    /// loses.
    pub(crate) fn forced_cell(&self) -> Option<(usize, bool)> {
        let me = self.stm;
        let mut cells = Vec::new();
        if self.five_cells(me) > 0 {
            self.find_five_cells(me, None, &mut cells);
            if let Some(&q) = cells.first() {
                return Some((q, true));
            }
        }
        if self.five_cells(me.other()) > 0 {
            cells.clear();
            self.find_five_cells(me.other(), None, &mut cells);
            if let [q] = cells[..] {
                return Some((q, false));
            }
        }
        None
    }

    /// The on-board cells within `margin` of the stones' bounding box, row by row (every cell
    /// when the board is empty).
    pub fn cells_near_stones(&self, margin: usize) -> impl Iterator<Item = usize> + '_ {
        let g = self.geo;
        let last = g.size - 1;
        let [x0, x1, y0, y1] = match self.bbox.last() {
            Some(&[x0, x1, y0, y1]) => [
                usize::from(x0).saturating_sub(margin),
                usize::from(x1).saturating_add(margin).min(last),
                usize::from(y0).saturating_sub(margin),
                usize::from(y1).saturating_add(margin).min(last),
            ],
            None => [0, last, 0, last],
        };
        (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| g.index(x, y)))
    }

    /// All on-board indices, row by row.
    pub fn on_board_cells(&self) -> impl Iterator<Item = usize> + '_ {
        let g = self.geo;
        (0..g.size).flat_map(move |y| (0..g.size).map(move |x| g.index(x, y)))
    }

    /// The move of cell `p`.
    #[must_use]
    pub fn to_move(&self, p: usize) -> Move {
        self.geo.to_move(p)
    }

    /// Whether a five made by a stone of `code` just placed on `p` is on the board, checked by
    /// scanning the lines (the reference for the pattern tables' five detection).
    #[must_use]
    pub fn scan_five(&self, p: usize, code: u8) -> bool {
        makes_five(&self.cells, &self.geo, p, code, self.rule)
    }
}

/// Builds the tables every position shares (the pattern tables of both rules and the
/// threat table), so that an engine can do it when it is made rather than on the clock of
/// its first move (a good part of a second in a debug build, milliseconds in a release
/// build).
pub(crate) fn build_tables() {
    let _ = table(Rule::Freestyle);
    let _ = table(Rule::ExactlyFive);
    let _ = combine_table();
}

/// [`combine`] for every four patterns (3 bits each, direction 0 lowest).
fn combine_table() -> &'static [Threat; 4096] {
    static T: OnceLock<Box<[Threat; 4096]>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Box::new([Threat::Quiet; 4096]);
        for (i, e) in t.iter_mut().enumerate() {
            *e = combine(std::array::from_fn(|d| {
                Pattern::from_bits((i >> (3 * d)) as u8)
            }));
        }
        t
    })
}

/// Combines the four line patterns of a cell into one [`Threat`].
#[must_use]
pub fn combine(p: [Pattern; 4]) -> Threat {
    let mut fours = 0;
    let mut threes = 0;
    let mut minor = false;
    for &x in &p {
        match x {
            Pattern::Five => return Threat::Five,
            Pattern::OpenFour => fours += 2,
            Pattern::Four => fours += 1,
            Pattern::OpenThree => threes += 1,
            Pattern::Three | Pattern::OpenTwo => minor = true,
            _ => {}
        }
    }
    match (fours, threes) {
        (f, _) if f >= 2 => Threat::FourFour,
        (1, t) if t >= 1 => Threat::FourThree,
        (1, _) => Threat::Four,
        (_, t) if t >= 2 => Threat::ThreeThree,
        (_, 1) => Threat::OpenThree,
        _ if minor => Threat::Minor,
        _ => Threat::Quiet,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tests::random_board;
    use crate::{Board, Move};

    /// On an empty board every cell and direction holds a lone stone's pattern: nothing.
    #[test]
    fn an_empty_position_is_counted() {
        for rule in [Rule::Freestyle, Rule::ExactlyFive] {
            let p = Position::new(Geometry::new(9), rule).unwrap();
            for s in [Stone::Black, Stone::White] {
                assert_eq!(p.pattern_count(s, Pattern::None), 81 * 4);
                for pat in &Pattern::ALL[1..] {
                    assert_eq!(p.pattern_count(s, *pat), 0);
                }
                assert_eq!(p.pattern_score(s), 0);
                assert_eq!(p.five_cells(s), 0);
            }
            assert!(p.check_incremental());
        }
    }

    /// The reference check notices a corruption of any table it compares (keys, patterns,
    /// threats, counts, scores, five cells), and `recount` repairs it.
    #[test]
    fn check_incremental_notices_every_table() {
        let mut b = Board::new(9, Rule::Freestyle).unwrap();
        for (x, y) in [(4, 4), (0, 0), (5, 4), (0, 2), (6, 4), (0, 4), (7, 4)] {
            b.play(Move::new(x, y)).unwrap();
        }
        let good = Position::from_board(&b);
        assert!(good.check_incremental());
        assert_eq!(good.five_cells(Stone::Black), 2);
        let empty = good.geo.index(8, 8);
        type Corruption = fn(&mut Position, usize);
        let corruptions: [(&str, Corruption); 8] = [
            ("keys", |p, i| p.keys[i][1] ^= 4),
            ("patterns", |p, i| p.pats[i][2] ^= 1),
            ("threats", |p, i| p.threats[i][1] = Threat::Five),
            ("counts", |p, _| p.counts[1][3] += 1),
            ("score", |p, _| p.score[0] -= 1),
            ("five cells", |p, _| p.five_cells[1] += 1),
            ("fives", |p, i| p.fives[i][0] = 1),
            ("counts of the other colour", |p, _| p.counts[0][0] -= 1),
        ];
        for (what, corrupt) in corruptions {
            let mut p = good.clone();
            corrupt(&mut p, empty);
            assert!(!p.check_incremental(), "{what}");
            p.recount();
            assert!(p.check_incremental(), "{what}");
            assert_eq!(
                p.pattern_score(Stone::Black),
                good.pattern_score(Stone::Black)
            );
            assert_eq!(p.five_cells(Stone::White), good.five_cells(Stone::White));
        }
    }

    /// The checked move refuses what the hot path would corrupt, and changes nothing then;
    /// an undo with a pass outstanding changes nothing either.
    #[test]
    fn checked_moves_and_undos_leave_bad_requests_harmless() {
        let geo = Geometry::new(9);
        let mut p = Position::new(geo, Rule::Freestyle).unwrap();
        let a = p.try_play(Move::new(4, 4)).unwrap();
        assert_eq!(a, geo.index(4, 4));
        let before = p.clone();
        assert_eq!(
            p.try_play(Move::new(4, 4)),
            Err(GomokuError::Occupied { x: 4, y: 4 })
        );
        assert_eq!(
            p.try_play(Move::new(9, 0)),
            Err(GomokuError::OffBoard {
                x: 9,
                y: 0,
                size: 9
            })
        );
        p.pass();
        assert_eq!(p.undo(), None, "a pass not taken back");
        p.pass();
        assert_eq!(p.key(), before.key());
        assert_eq!(p.history(), before.history());
        assert!(p.check_incremental());
        assert_eq!(p.undo(), Some(a));
        assert_eq!(p.undo(), None);
        assert!(p.check_incremental());
        for x in 0..5 {
            p.try_play(Move::new(x, 0)).unwrap();
            if x < 4 {
                p.try_play(Move::new(x, 8)).unwrap();
            }
        }
        assert_eq!(p.winner(), Some(Stone::Black));
        assert_eq!(p.try_play(Move::new(8, 8)), Err(GomokuError::GameOver));
    }

    /// Any margin, however large, reaches the edges and no further.
    #[test]
    fn cells_near_stones_take_any_margin() {
        let geo = Geometry::new(9);
        let mut p = Position::new(geo, Rule::Freestyle).unwrap();
        p.play(geo.index(4, 3));
        assert_eq!(p.cells_near_stones(1).count(), 9);
        assert_eq!(p.cells_near_stones(5).count(), 81);
        let all: Vec<usize> = p.on_board_cells().collect();
        assert_eq!(p.cells_near_stones(usize::MAX).collect::<Vec<_>>(), all);
    }

    /// The accessors follow the moves, passes and undos, up to a full board.
    #[test]
    fn accessors_follow_the_game() {
        let geo = Geometry::new(5);
        let mut p = Position::new(geo, Rule::ExactlyFive).unwrap();
        assert_eq!(p.rule(), Rule::ExactlyFive);
        assert_eq!((p.stones(), p.last(), p.history()), (0, None, &[][..]));
        let a = geo.index(1, 2);
        let b = geo.index(3, 0);
        p.play(a);
        p.play(b);
        assert_eq!(p.stones(), 2);
        assert_eq!(p.last(), Some(b));
        assert_eq!(p.history(), &[a as u16, b as u16]);
        assert_eq!(p.side_to_move(), Stone::Black);
        assert!(!p.is_empty_cell(a) && p.is_empty_cell(geo.index(0, 0)));
        assert!(!p.is_empty_cell(geo.index(0, 0) - 1)); // a wall
        p.pass();
        assert_eq!(p.side_to_move(), Stone::White);
        assert_eq!(p.stones(), 2);
        p.pass();
        assert_eq!(p.undo(), Some(b));
        assert_eq!((p.stones(), p.last()), (1, Some(a)));
        // Fill the board without a five.
        let mut p = Position::new(geo, Rule::Freestyle).unwrap();
        for &m in crate::board::tests::drawn_board().history() {
            assert!(!p.is_full());
            p.play(geo.checked_index(m).unwrap());
        }
        assert_eq!(p.stones(), 25);
        assert!(p.is_full());
        assert_eq!(p.winner(), None);
        p.undo();
        assert!(!p.is_full());
    }

    /// Random games (stones off the border ring of 7x7 to 12x12 boards, both rules) with the
    /// position after every move.
    fn random_games(seed: u64, games: usize, mut f: impl FnMut(&Board, &mut Position)) {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        for g in 0..games {
            let size = 7 + g % 6;
            let rule = [Rule::Freestyle, Rule::ExactlyFive][g % 2];
            let (lo, hi) = (1, size as u8 - 2);
            // At most 30 stones, leaving part of the (hi - lo + 1)^2 cells empty.
            let stones = 30.min(usize::from(hi - lo + 1).pow(2) - 5);
            let game = random_board(&mut rng, size, rule, (lo, hi), stones);
            // Replayed, to look at every position along the game.
            let mut b = Board::new(size, rule).unwrap();
            let mut pos = Position::new(b.geometry(), rule).unwrap();
            for &m in game.history() {
                b.play(m).unwrap();
                pos.play(b.geometry().index(usize::from(m.x), usize::from(m.y)));
                f(&b, &mut pos);
            }
        }
    }

    /// The per-cell readings (neighbours, weights, counts, scores, five cells, the region
    /// near the stones) against their definitions, and the patterns of a stone on the board
    /// against those of its cell before it was played.
    #[test]
    fn readings_match_their_definitions() {
        let mut wins = 0;
        random_games(3, 200, |b, pos| {
            let geo = b.geometry();
            let stones: Vec<Move> = b.history().to_vec();
            let empty: Vec<usize> = pos
                .on_board_cells()
                .filter(|&q| pos.is_empty_cell(q))
                .collect();
            for &q in &empty {
                let m = geo.to_move(q);
                let near = stones
                    .iter()
                    .any(|s| s.x.abs_diff(m.x) <= 2 && s.y.abs_diff(m.y) <= 2);
                assert_eq!(pos.has_neighbour(q), near, "{m}");
                let weight: i32 = [Stone::Black, Stone::White]
                    .iter()
                    .flat_map(|&s| pos.patterns(s, q))
                    .map(|pat| PATTERN_WEIGHT[pat as usize])
                    .sum();
                assert_eq!(pos.cell_weight(q), weight);
            }
            for s in [Stone::Black, Stone::White] {
                let pats: Vec<Pattern> = empty.iter().flat_map(|&q| pos.patterns(s, q)).collect();
                for pat in Pattern::ALL {
                    let n = pats.iter().filter(|&&x| x == pat).count() as u32;
                    assert_eq!(pos.pattern_count(s, pat), n);
                }
                let score: i32 = pats.iter().map(|&x| PATTERN_WEIGHT[x as usize]).sum();
                assert_eq!(pos.pattern_score(s), score);
                // Five cells, looked for around any cell, after cells already in the list.
                let all: Vec<usize> = empty
                    .iter()
                    .copied()
                    .filter(|&q| pos.is_five_cell(s, q))
                    .collect();
                assert_eq!(all.len() as u32, pos.five_cells(s));
                for around in [None, pos.last(), Some(empty[0])] {
                    let mut out = vec![usize::MAX; 3];
                    pos.find_five_cells(s, around, &mut out);
                    let mut found = out[3..].to_vec();
                    found.sort_unstable();
                    assert_eq!(found, all, "{s:?} around {around:?}");
                }
            }
            // The cells near the stones: their bounding box grown by the margin.
            for margin in [0, 1, 3] {
                let (x0, x1) = (
                    stones.iter().map(|s| s.x).min().unwrap(),
                    stones.iter().map(|s| s.x).max().unwrap(),
                );
                let (y0, y1) = (
                    stones.iter().map(|s| s.y).min().unwrap(),
                    stones.iter().map(|s| s.y).max().unwrap(),
                );
                let m = margin as u8;
                let want: Vec<usize> = pos
                    .on_board_cells()
                    .filter(|&q| {
                        let c = geo.to_move(q);
                        c.x + m >= x0 && c.x <= x1 + m && c.y + m >= y0 && c.y <= y1 + m
                    })
                    .collect();
                assert_eq!(pos.cells_near_stones(margin).collect::<Vec<_>>(), want);
            }
            // The last stone: what it makes now is what its cell offered before.
            let q = pos.last().unwrap();
            let mover = pos.side_to_move().other();
            let code = mover.code();
            assert_eq!(pos.scan_five(q, code), b.winner() == Some(mover));
            wins += usize::from(b.winner().is_some());
            let after: Vec<_> = [Stone::Black, Stone::White]
                .map(|s| (pos.patterns(s, q), pos.threat(s, q)))
                .to_vec();
            pos.undo();
            let before: Vec<_> = [Stone::Black, Stone::White]
                .map(|s| (pos.patterns(s, q), pos.threat(s, q)))
                .to_vec();
            assert_eq!(after, before);
            pos.play(q);
        });
        assert!(wins > 10, "{wins}");
        // An empty position: every cell is near the (absent) stones.
        let pos = Position::new(Geometry::new(6), Rule::Freestyle).unwrap();
        assert_eq!(pos.cells_near_stones(2).count(), 36);
        assert!(!pos.has_neighbour(pos.geometry().index(3, 3)));
    }

    #[test]
    fn combined_threats() {
        use Pattern::{Five, Four, None as No, OpenFour, OpenThree, OpenTwo, Three, Two};
        let cases = [
            ([No, No, No, No], Threat::Quiet),
            ([Two, Two, No, Two], Threat::Quiet),
            ([No, OpenTwo, No, No], Threat::Minor),
            ([No, No, Three, No], Threat::Minor),
            ([OpenThree, Two, No, No], Threat::OpenThree),
            ([OpenThree, No, OpenThree, Three], Threat::ThreeThree),
            ([No, Four, No, Three], Threat::Four),
            ([Four, OpenThree, No, No], Threat::FourThree),
            ([Four, No, No, Four], Threat::FourFour),
            ([No, OpenFour, No, No], Threat::FourFour),
            ([Four, OpenFour, Five, No], Threat::Five),
        ];
        for (p, t) in cases {
            assert_eq!(combine(p), t, "{p:?}");
            let idx = p
                .iter()
                .enumerate()
                .fold(0, |a, (d, &x)| a | (x as usize) << (3 * d));
            assert_eq!(combine_table()[idx], t);
        }
    }

    /// A position given by its stones takes the board's judgement: the made-up order passes
    /// through Black's five (3..=7, 7), which the last stone makes an overline.
    #[test]
    fn a_position_from_made_up_stones_is_not_won_by_a_five_it_passed_through() {
        let moves = crate::board::tests::overline_made_up_order();
        let b = Board::with_stones(15, Rule::ExactlyFive, &moves).unwrap();
        assert_eq!(b.winner(), None);
        let p = Position::from_board(&b);
        assert_eq!(p.winner(), None);
        let f = Board::with_stones(15, Rule::Freestyle, &moves).unwrap();
        assert_eq!(Position::from_board(&f).winner(), Some(Stone::Black));
    }

    #[test]
    fn a_position_needs_the_geometry_of_a_board_of_a_valid_size() {
        for size in [0, 4, 33, 40, usize::MAX] {
            assert_eq!(
                Position::new(Geometry::new(size), Rule::Freestyle).err(),
                Some(GomokuError::BadSize(size))
            );
        }
        // A size no board has still gives a geometry, without overflow.
        let huge = Geometry::new(usize::MAX);
        assert_eq!(
            (huge.size(), huge.stride(), huge.len()),
            (usize::MAX, usize::MAX, usize::MAX)
        );
        for size in [5, 15, 32] {
            assert!(Position::new(Geometry::new(size), Rule::ExactlyFive).is_ok());
        }
    }
}
