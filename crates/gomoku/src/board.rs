//! The game: rules, stones, moves and the board with play/undo and Zobrist keys.
//!
//! The board is a padded array: every row is followed by [`PAD`] wall cells (shared with the
//! start of the next row) and [`PAD`] wall rows lie above and below. A step in any of the four
//! line directions is one constant index offset, and walking up to five cells past an edge never
//! leaves the array, so line scans need no bounds checks. The same geometry is used by the
//! incremental pattern evaluation ([`crate::Position`]).

use std::fmt;
use std::sync::OnceLock;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::GomokuError;

/// Smallest supported board side.
pub const MIN_SIZE: usize = 5;
/// Largest supported board side.
pub const MAX_SIZE: usize = 32;
/// Wall cells around the board: line patterns look five cells each way.
#[doc(hidden)]
pub const PAD: usize = 5;

/// Which lines win.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rule {
    /// Five or more in a row wins.
    #[default]
    Freestyle,
    /// Exactly five in a row wins; six or more (an overline) does not.
    ExactlyFive,
}

impl Rule {
    /// Both rules.
    pub const ALL: [Rule; 2] = [Rule::Freestyle, Rule::ExactlyFive];

    /// The rule's name, `freestyle` or `exactly-five`: what [`Display`](fmt::Display) writes
    /// and [`FromStr`](std::str::FromStr) reads.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::ExactlyFive => "exactly-five",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads a rule's [name](Rule::name) in any case, or the other spellings `free`, `exact` and
/// `exactlyfive`.
///
/// ```
/// use gomoku::Rule;
///
/// assert_eq!("Exactly-Five".parse::<Rule>()?, Rule::ExactlyFive);
/// assert_eq!("exact".parse::<Rule>()?, Rule::ExactlyFive);
/// assert_eq!(" freestyle\n".parse::<Rule>()?, Rule::Freestyle);
/// assert_eq!(Rule::Freestyle.to_string().parse::<Rule>()?, Rule::Freestyle);
/// let e = "renju".parse::<Rule>().unwrap_err();
/// assert_eq!(e.to_string(), "unknown rule \"renju\" (freestyle or exactly-five)");
/// # Ok::<(), gomoku::GomokuError>(())
/// ```
impl std::str::FromStr for Rule {
    type Err = GomokuError;

    /// Parses a rule's name, ignoring ASCII case and surrounding whitespace.
    fn from_str(s: &str) -> Result<Rule, GomokuError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "freestyle" | "free" => Ok(Rule::Freestyle),
            "exactly-five" | "exact" | "exactlyfive" => Ok(Rule::ExactlyFive),
            _ => Err(GomokuError::UnknownRule(s.to_string())),
        }
    }
}

/// A player's colour. Black moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stone {
    /// The first player.
    Black,
    /// The second player.
    White,
}

impl Stone {
    /// The other colour.
    #[must_use]
    pub fn other(self) -> Stone {
        match self {
            Stone::Black => Stone::White,
            Stone::White => Stone::Black,
        }
    }

    /// 0 for Black, 1 for White: an index into per-colour arrays.
    #[must_use]
    pub fn index(self) -> usize {
        match self {
            Stone::Black => 0,
            Stone::White => 1,
        }
    }

    /// The cell code of this colour in the padded array (1 Black, 2 White; 0 empty, 3 wall).
    #[must_use]
    pub fn code(self) -> u8 {
        self.index() as u8 + 1
    }

    /// The colour's name: `black` or `white`, what [`Display`](fmt::Display) writes.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Stone::Black => "black",
            Stone::White => "white",
        }
    }
}

impl fmt::Display for Stone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads a colour's [name](Stone::name) in any case, or `b`/`x` for Black and `w`/`o` for
/// White (the letters of [`Board`]'s display).
///
/// ```
/// use gomoku::Stone;
///
/// assert_eq!("White".parse::<Stone>()?, Stone::White);
/// assert_eq!("x".parse::<Stone>()?, Stone::Black);
/// assert_eq!(Stone::Black.to_string().parse::<Stone>()?, Stone::Black);
/// let e = "red".parse::<Stone>().unwrap_err();
/// assert_eq!(e.to_string(), "unknown colour \"red\" (black or white)");
/// # Ok::<(), gomoku::GomokuError>(())
/// ```
impl std::str::FromStr for Stone {
    type Err = GomokuError;

    /// Parses a colour, ignoring ASCII case and surrounding whitespace.
    fn from_str(s: &str) -> Result<Stone, GomokuError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "black" | "b" | "x" => Ok(Stone::Black),
            "white" | "w" | "o" => Ok(Stone::White),
            _ => Err(GomokuError::UnknownColour(s.to_string())),
        }
    }
}

/// A move: `x` is the column, `y` the row, both zero-based (the Gomocup convention).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Column, from 0 at the left.
    pub x: u8,
    /// Row, from 0 at the top.
    pub y: u8,
}

/// The column letters of the board diagram: `a` to `z`, then `A` to `F` (boards up to 32).
const COLUMN_LETTERS: &str = "abcdefghijklmnopqrstuvwxyzABCDEF";

impl Move {
    /// The move at column `x`, row `y`.
    #[must_use]
    pub fn new(x: u8, y: u8) -> Move {
        Move { x, y }
    }

    /// Reads a move as people type it on a `size` x `size` board: `x,y` (zero-based, as the
    /// protocol writes moves) or the diagram's column letter and row number (`h7`). Columns
    /// 26 to 31 are `A` to `F`, as the diagram shows them; on boards of at most 26 columns,
    /// where no column needs an upper-case letter, `H7` means `h7`.
    ///
    /// ```
    /// use gomoku::Move;
    /// assert_eq!(Move::parse("h7", 15)?, Move::new(7, 7));
    /// assert_eq!(Move::parse(" 3, 4 ", 15)?, Move::new(3, 4));
    /// assert_eq!(Move::parse("A0", 32)?, Move::new(26, 0));
    /// assert_eq!(Move::new(26, 0).name(), "A0");
    /// assert!(Move::parse("p1", 15).is_err()); // column 15 is off a 15x15 board
    /// assert!(matches!(Move::parse("300,1", 15), Err(gomoku::GomokuError::Parse(_))));
    /// # Ok::<(), gomoku::GomokuError>(())
    /// ```
    ///
    /// # Errors
    /// [`GomokuError::Parse`] for text that is not a move (a coordinate past 255, which no
    /// board reaches, included), [`GomokuError::OffBoard`] for a move off the board.
    pub fn parse(text: &str, size: usize) -> Result<Move, GomokuError> {
        let bad = || GomokuError::Parse(text.to_string());
        let s = text.trim();
        let (x, y): (u32, u32) = if let Some((x, y)) = s.split_once(',') {
            (
                x.trim().parse().map_err(|_| bad())?,
                y.trim().parse().map_err(|_| bad())?,
            )
        } else {
            let mut chars = s.chars();
            let c = chars.next().ok_or_else(bad)?;
            let x = match c {
                'a'..='z' => c as u32 - 'a' as u32,
                'A'..='Z' if size <= 26 => c as u32 - 'A' as u32,
                'A'..='F' => 26 + c as u32 - 'A' as u32,
                _ => return Err(bad()),
            };
            (x, chars.as_str().trim().parse().map_err(|_| bad())?)
        };
        match (u8::try_from(x), u8::try_from(y)) {
            (Ok(x), Ok(y)) if usize::from(x) < size && usize::from(y) < size => Ok(Move::new(x, y)),
            (Ok(x), Ok(y)) => Err(GomokuError::OffBoard { x, y, size }),
            _ => Err(bad()),
        }
    }

    /// The move as the board diagram names it: column letter and row number (`h7`).
    #[must_use]
    pub fn name(self) -> String {
        match COLUMN_LETTERS.chars().nth(usize::from(self.x)) {
            Some(c) => format!("{c}{}", self.y),
            None => self.to_string(),
        }
    }
}

impl fmt::Display for Move {
    /// `x,y`, as the Gomocup protocol writes moves.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

/// Cell codes of the padded array.
pub(crate) const EMPTY: u8 = 0;
pub(crate) const WALL: u8 = 3;

/// Index arithmetic of the padded array for one board size.
///
/// The methods trust their indices, as the searches need them to: an index that is not the
/// board's gives a meaningless answer. Only `Geometry::new(size)` for a size of
/// [`MIN_SIZE`] to [`MAX_SIZE`] (or a board's own geometry) is a board's, and
/// [`Position::new`](crate::Position::new) refuses any other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Board side.
    pub(crate) size: usize,
    /// Distance between vertically adjacent cells: `size + PAD`.
    pub(crate) stride: usize,
}

impl Geometry {
    /// The geometry of a `size`x`size` board (the caller checked the size).
    #[must_use]
    pub fn new(size: usize) -> Geometry {
        Geometry {
            size,
            stride: size.saturating_add(PAD),
        }
    }

    /// Board side.
    #[must_use]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Distance between vertically adjacent cells in the padded array: `size + PAD`.
    #[must_use]
    #[doc(hidden)]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Length of the padded array (saturating, for a size no board has).
    #[must_use]
    pub fn len(&self) -> usize {
        self.size
            .saturating_add(2 * PAD)
            .saturating_mul(self.stride)
            .saturating_add(2 * PAD)
    }

    /// Always false: there is at least one cell.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Index of an on-board cell.
    #[must_use]
    pub fn index(&self, x: usize, y: usize) -> usize {
        (y + PAD) * self.stride + x + PAD
    }

    /// The move of an on-board index (another index gives a meaningless move, or panics in a
    /// debug build: see [`Geometry::on_board`]).
    #[must_use]
    pub fn to_move(&self, i: usize) -> Move {
        let j = i - PAD;
        Move {
            x: (j % self.stride) as u8,
            y: (j / self.stride - PAD) as u8,
        }
    }

    /// The index of `m`, if it is on the board.
    #[must_use]
    pub fn checked_index(&self, m: Move) -> Option<usize> {
        let (x, y) = (usize::from(m.x), usize::from(m.y));
        (x < self.size && y < self.size).then(|| self.index(x, y))
    }

    /// The padded index of `m` if it is an empty cell of the board among `cells`, or why not.
    pub(crate) fn empty_cell(&self, cells: &[u8], m: Move) -> Result<usize, GomokuError> {
        let Some(i) = self.checked_index(m) else {
            return Err(GomokuError::OffBoard {
                x: m.x,
                y: m.y,
                size: self.size,
            });
        };
        if cells[i] != EMPTY {
            return Err(GomokuError::Occupied { x: m.x, y: m.y });
        }
        Ok(i)
    }

    /// Index offsets of the four line directions: horizontal, vertical, both diagonals.
    #[must_use]
    pub fn directions(&self) -> [usize; 4] {
        [1, self.stride, self.stride + 1, self.stride - 1]
    }

    /// Whether index `i` is on the board.
    #[must_use]
    pub fn on_board(&self, i: usize) -> bool {
        let Some(j) = i.checked_sub(PAD) else {
            return false;
        };
        let row = j / self.stride;
        row >= PAD && row < PAD + self.size && j % self.stride < self.size
    }

    /// A fresh padded array: empty cells on the board, walls around.
    #[must_use]
    #[doc(hidden)]
    pub fn fresh_cells(&self) -> Vec<u8> {
        (0..self.len())
            .map(|i| if self.on_board(i) { EMPTY } else { WALL })
            .collect()
    }

    /// The Zobrist index of an on-board index (independent of the board size).
    #[must_use]
    #[doc(hidden)]
    pub fn zobrist_index(&self, i: usize) -> usize {
        let m = self.to_move(i);
        usize::from(m.y) * MAX_SIZE + usize::from(m.x)
    }
}

/// Random keys of (colour, cell) and of the side to move, from a fixed seed so that keys are
/// the same in every run.
pub(crate) struct Zobrist {
    pub(crate) cells: [[u64; MAX_SIZE * MAX_SIZE]; 2],
    pub(crate) white_to_move: u64,
}

pub(crate) fn zobrist() -> &'static Zobrist {
    static Z: OnceLock<Box<Zobrist>> = OnceLock::new();
    Z.get_or_init(|| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        let mut z = Box::new(Zobrist {
            cells: [[0; MAX_SIZE * MAX_SIZE]; 2],
            white_to_move: 0,
        });
        for c in &mut z.cells {
            for k in c.iter_mut() {
                *k = rng.next_u64();
            }
        }
        z.white_to_move = rng.next_u64();
        z
    })
}

/// Length of the run of `code` through `i` along offset `d` (counting `i` itself, which the
/// caller has set to `code`).
pub(crate) fn run_length(cells: &[u8], i: usize, d: usize, code: u8) -> usize {
    let mut n = 1;
    let mut j = i + d;
    while cells[j] == code {
        n += 1;
        j += d;
    }
    let mut j = i - d;
    while cells[j] == code {
        n += 1;
        j -= d;
    }
    n
}

/// Whether a stone of `code` at `i` (already placed) completes a winning line under `rule`.
pub(crate) fn makes_five(cells: &[u8], geo: &Geometry, i: usize, code: u8, rule: Rule) -> bool {
    geo.directions().iter().any(|&d| {
        let n = run_length(cells, i, d, code);
        match rule {
            Rule::Freestyle => n >= 5,
            Rule::ExactlyFive => n == 5,
        }
    })
}

/// A Gomoku game: the stones, the move history, the side to move and the result.
///
/// ```
/// use gomoku::{Board, Move, Rule, Stone};
/// let mut b = Board::new(15, Rule::Freestyle)?;
/// for x in 0..4 {
///     b.play(Move::new(x, 0))?; // Black
///     b.play(Move::new(x, 1))?; // White
/// }
/// b.play(Move::new(4, 0))?;
/// assert_eq!(b.winner(), Some(Stone::Black));
/// assert!(b.play(Move::new(9, 9)).is_err()); // the game is over
/// b.undo();
/// assert_eq!(b.winner(), None);
/// # Ok::<(), gomoku::GomokuError>(())
/// ```
///
/// Two boards are equal when they hold the same game: the same size and rule, the same
/// moves in the same order (so the same stones too), and set up the same way (a board from
/// [`Board::from_stones`] has a made-up order, which taking moves back treats differently,
/// so it differs from one played move by move). To compare positions alone, compare their
/// stones, or their [keys](Board::key) where a collision does not matter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    geo: Geometry,
    rule: Rule,
    cells: Vec<u8>,
    history: Vec<Move>,
    winner: Option<Stone>,
    key: u64,
    /// How many of the first moves have a made-up order ([`Board::with_stones`]): taking
    /// one of them back judges the position by its stones again.
    made_up: usize,
}

impl Board {
    /// An empty `size`x`size` board (5..=32).
    ///
    /// # Errors
    /// [`GomokuError::BadSize`] outside 5..=32.
    pub fn new(size: usize, rule: Rule) -> Result<Board, GomokuError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(GomokuError::BadSize(size));
        }
        let geo = Geometry::new(size);
        Ok(Board {
            geo,
            rule,
            cells: geo.fresh_cells(),
            history: Vec::new(),
            winner: None,
            key: 0,
            made_up: 0,
        })
    }

    /// Board side.
    #[must_use]
    pub fn size(&self) -> usize {
        self.geo.size
    }

    /// The winning rule.
    #[must_use]
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The padded-array geometry.
    #[must_use]
    pub fn geometry(&self) -> Geometry {
        self.geo
    }

    /// The colour that plays next.
    #[must_use]
    pub fn side_to_move(&self) -> Stone {
        if self.history.len().is_multiple_of(2) {
            Stone::Black
        } else {
            Stone::White
        }
    }

    /// The stone on `m`; `None` for an empty or off-board cell.
    #[must_use]
    pub fn get(&self, m: Move) -> Option<Stone> {
        match self.geo.checked_index(m).map(|i| self.cells[i]) {
            Some(1) => Some(Stone::Black),
            Some(2) => Some(Stone::White),
            _ => None,
        }
    }

    /// Whether `m` is a legal move now.
    #[must_use]
    pub fn is_legal(&self, m: Move) -> bool {
        self.winner.is_none()
            && self
                .geo
                .checked_index(m)
                .is_some_and(|i| self.cells[i] == EMPTY)
    }

    /// Plays `m` for the side to move.
    ///
    /// # Errors
    /// Off the board, on an occupied cell, or after the game ended.
    pub fn play(&mut self, m: Move) -> Result<(), GomokuError> {
        if self.winner.is_some() || self.is_full() {
            return Err(GomokuError::GameOver);
        }
        let i = self.geo.empty_cell(&self.cells, m)?;
        let s = self.side_to_move();
        self.cells[i] = s.code();
        let z = zobrist();
        self.key ^= z.cells[s.index()][self.geo.zobrist_index(i)] ^ z.white_to_move;
        self.history.push(m);
        if makes_five(&self.cells, &self.geo, i, s.code(), self.rule) {
            self.winner = Some(s);
        }
        Ok(())
    }

    /// A board holding the given stones, for a position known by its stones and not by the
    /// order they were played in. The order is made up (Black's and White's stones
    /// alternately, each colour's in the order given), so [`Board::undo`] takes back the
    /// last stone of that order; only the final position decides whether the game is over
    /// (a five of either colour anywhere). The side to move follows from the counts: Black
    /// when both colours have as many stones, White when Black has one more.
    ///
    /// ```
    /// use gomoku::{Board, Move, Rule, Stone};
    ///
    /// let black = [Move::new(7, 7), Move::new(8, 8)];
    /// let white = [Move::new(7, 8)];
    /// let b = Board::from_stones(15, Rule::Freestyle, &black, &white)?;
    /// assert_eq!(b.side_to_move(), Stone::White);
    /// assert!(Board::from_stones(15, Rule::Freestyle, &white, &black).is_err());
    /// # Ok::<(), gomoku::GomokuError>(())
    /// ```
    ///
    /// # Errors
    /// [`GomokuError::StoneCounts`] when White has more stones than Black or Black two or
    /// more than White; as [`Board::new`] and [`Board::play`] for the size and for a stone off the
    /// board or on another.
    pub fn from_stones(
        size: usize,
        rule: Rule,
        black: &[Move],
        white: &[Move],
    ) -> Result<Board, GomokuError> {
        if black.len() != white.len() && black.len() != white.len() + 1 {
            return Err(GomokuError::StoneCounts {
                black: black.len(),
                white: white.len(),
            });
        }
        let mut order = Vec::with_capacity(black.len() + white.len());
        for (i, &b) in black.iter().enumerate() {
            order.push(b);
            order.extend(white.get(i));
        }
        Board::with_stones(size, rule, &order)
    }

    /// A board with `moves` played in order, where only the final position decides whether
    /// the game is over: a five of either colour anywhere. For a position known only by its
    /// stones (a Gomocup `BOARD` block) the order is made up, and under exactly five a made-up
    /// order may pass through a five that a later stone turns into an overline.
    ///
    /// # Errors
    /// Off the board or on an occupied cell, as [`Board::play`].
    pub(crate) fn with_stones(
        size: usize,
        rule: Rule,
        moves: &[Move],
    ) -> Result<Board, GomokuError> {
        let mut b = Board::new(size, rule)?;
        for &m in moves {
            b.play(m)?;
            b.winner = None;
        }
        b.made_up = b.history.len();
        b.winner = b.five_on_board();
        Ok(b)
    }

    /// The colour with a five anywhere on the board, judged by the stones alone; the side
    /// that moved last first (its five is the one the last move may have made).
    fn five_on_board(&self) -> Option<Stone> {
        let last = self.side_to_move().other();
        [last, last.other()].into_iter().find(|&s| {
            self.history
                .iter()
                .skip(s.index())
                .step_by(2)
                .filter_map(|&m| self.geo.checked_index(m))
                .any(|i| makes_five(&self.cells, &self.geo, i, s.code(), self.rule))
        })
    }

    /// Takes back the last move; `None` if there is none.
    ///
    /// After a game played move by move no five is left on the board (the game ended at the
    /// first). Taking back a move of a position given by its stones (a Gomocup `BOARD`
    /// block) may leave one, under exactly five when the stone taken back had made a five
    /// an overline: the board is then judged by its stones.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.history.pop()?;
        let i = self.geo.checked_index(m)?;
        let s = self.side_to_move();
        self.cells[i] = EMPTY;
        let z = zobrist();
        self.key ^= z.cells[s.index()][self.geo.zobrist_index(i)] ^ z.white_to_move;
        self.winner = None;
        if self.history.len() < self.made_up {
            self.made_up = self.history.len();
            self.winner = self.five_on_board();
        }
        Some(m)
    }

    /// The moves played so far, in order.
    #[must_use]
    pub fn history(&self) -> &[Move] {
        &self.history
    }

    /// The player who just made five (under the rule), if any.
    #[must_use]
    pub fn winner(&self) -> Option<Stone> {
        self.winner
    }

    /// Whether every cell is taken.
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.history.len() == self.geo.size * self.geo.size
    }

    /// Whether no more moves can be played (a winner or a full board).
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.winner.is_some() || self.is_full()
    }

    /// The Zobrist key of the position (stones and side to move).
    #[must_use]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The Zobrist key recomputed from the stones, for checking the incremental one.
    #[must_use]
    #[doc(hidden)]
    pub fn key_from_scratch(&self) -> u64 {
        let z = zobrist();
        let mut k = 0;
        for y in 0..self.geo.size {
            for x in 0..self.geo.size {
                let i = self.geo.index(x, y);
                if let c @ (1 | 2) = self.cells[i] {
                    k ^= z.cells[usize::from(c - 1)][self.geo.zobrist_index(i)];
                }
            }
        }
        if self.side_to_move() == Stone::White {
            k ^= z.white_to_move;
        }
        k
    }

    /// The padded cell array (codes: 0 empty, 1 Black, 2 White, 3 wall).
    #[must_use]
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// Every empty cell, row by row.
    #[must_use]
    pub fn empty_cells(&self) -> Vec<Move> {
        let mut v = Vec::new();
        for y in 0..self.geo.size {
            for x in 0..self.geo.size {
                if self.cells[self.geo.index(x, y)] == EMPTY {
                    v.push(Move::new(x as u8, y as u8));
                }
            }
        }
        v
    }
}

impl fmt::Display for Board {
    /// Rows top to bottom, numbered from 0 on the left; columns lettered a, b, ... (a = x 0)
    /// on top. `X` is Black, `O` White, `.` empty; the last move is marked with brackets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.geo.size;
        write!(f, "   ")?;
        for c in COLUMN_LETTERS.chars().take(n) {
            write!(f, " {c}")?;
        }
        writeln!(f)?;
        let last = self.history.last().copied();
        for y in 0..n {
            write!(f, "{y:>3}")?;
            for x in 0..n {
                let m = Move::new(x as u8, y as u8);
                let ch = match self.get(m) {
                    Some(Stone::Black) => 'X',
                    Some(Stone::White) => 'O',
                    None => '.',
                };
                if Some(m) == last {
                    write!(f, "[{ch}")?;
                } else if x > 0 && Some(Move::new(x as u8 - 1, y as u8)) == last {
                    write!(f, "]{ch}")?;
                } else {
                    write!(f, " {ch}")?;
                }
            }
            if Some(Move::new(n as u8 - 1, y as u8)) == last {
                write!(f, "]")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Stones judged by the stones alone: a four of one colour ended by the other colour's
    /// stone is no five, and where both colours show a five the side that moved last wins.
    #[test]
    fn stones_alone_judge_only_each_colours_own_runs() {
        let m = Move::new;
        // White's (0..=3, 0) ended by Black's stone on (4, 0): four, not five.
        let black = [m(4, 0), m(9, 9), m(9, 11), m(11, 12), m(13, 9)];
        let white = [m(0, 0), m(1, 0), m(2, 0), m(3, 0)];
        let b = Board::from_stones(15, Rule::Freestyle, &black, &white).unwrap();
        assert_eq!(b.winner(), None);
        // Fives of both colours, as many stones each: White moved last.
        let black: Vec<Move> = (0..5).map(|x| m(x, 0)).collect();
        let white: Vec<Move> = (0..5).map(|x| m(x, 2)).collect();
        let b = Board::from_stones(15, Rule::Freestyle, &black, &white).unwrap();
        assert_eq!(b.winner(), Some(Stone::White));
    }

    /// Black's (3..=8, 7) played in order with White's stones far apart, Black last: under
    /// exactly five the order passes through a five that the last stone makes an overline.
    pub(crate) fn overline_made_up_order() -> Vec<Move> {
        let whites = [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0)];
        let mut moves = Vec::new();
        for k in 0..6u8 {
            moves.push(Move::new(3 + k, 7));
            if let Some(&(x, y)) = whites.get(usize::from(k)) {
                moves.push(Move::new(x, y));
            }
        }
        moves
    }

    #[test]
    fn a_board_from_its_stones() {
        let m = Move::new;
        let black = [m(3, 7), m(4, 7), m(5, 7), m(6, 7), m(7, 7)];
        let white = [m(0, 0), m(1, 0), m(2, 0), m(3, 0)];
        // Black's five wins, whatever order the stones came in.
        let b = Board::from_stones(15, Rule::Freestyle, &black, &white).unwrap();
        assert_eq!(b.winner(), Some(Stone::Black));
        assert_eq!(b.history().len(), 9);
        let b = Board::from_stones(15, Rule::Freestyle, &black[..4], &white).unwrap();
        assert_eq!((b.winner(), b.side_to_move()), (None, Stone::Black));
        assert_eq!(b.get(m(3, 7)), Some(Stone::Black));
        assert_eq!(b.get(m(3, 0)), Some(Stone::White));
        let e = Board::from_stones(15, Rule::Freestyle, &black, &white[..3]).unwrap_err();
        assert_eq!(e, GomokuError::StoneCounts { black: 5, white: 3 });
        assert!(e.to_string().contains("5 black and 3 white"), "{e}");
        assert!(Board::from_stones(15, Rule::Freestyle, &white, &black).is_err());
        assert!(matches!(
            Board::from_stones(15, Rule::Freestyle, &[m(1, 1)], &[m(1, 1)]),
            Err(GomokuError::Occupied { .. })
        ));
        assert!(matches!(
            Board::from_stones(15, Rule::Freestyle, &[m(15, 1)], &[]),
            Err(GomokuError::OffBoard { .. })
        ));
        assert!(Board::from_stones(15, Rule::Freestyle, &[], &[]).is_ok());
    }

    #[test]
    fn taking_back_a_stone_of_a_made_up_order_judges_the_stones_again() {
        let moves = overline_made_up_order();
        let mut b = Board::with_stones(15, Rule::ExactlyFive, &moves).unwrap();
        assert_eq!(
            b.winner(),
            None,
            "an overline does not win under exactly five"
        );
        assert_eq!(b.undo(), Some(Move::new(8, 7)));
        assert_eq!(
            b.winner(),
            Some(Stone::Black),
            "the five (3..=7, 7) is left"
        );
        assert!(b.is_over());
        // Under freestyle the six wins, and so does the five under it.
        let mut f = Board::with_stones(15, Rule::Freestyle, &moves).unwrap();
        assert_eq!(f.winner(), Some(Stone::Black));
        f.undo();
        assert_eq!(f.winner(), Some(Stone::Black));
        // Moves played after the made-up ones are judged as they are played and taken back.
        let mut g = Board::with_stones(15, Rule::ExactlyFive, &moves[..4]).unwrap();
        g.play(Move::new(10, 10)).unwrap();
        g.play(Move::new(11, 11)).unwrap();
        g.undo();
        assert_eq!(g.winner(), None);
        g.undo();
        g.undo();
        assert_eq!(g.winner(), None);
        assert_eq!(g.history(), &moves[..3]);
    }

    /// A game of up to `stones` random moves on the cells `lo..=hi` in both coordinates,
    /// stopped early if it ends. The tests of the position and the engine use it too.
    pub(crate) fn random_board(
        rng: &mut impl rand::Rng,
        size: usize,
        rule: Rule,
        (lo, hi): (u8, u8),
        stones: usize,
    ) -> Board {
        use rand::RngExt;
        assert!(
            stones <= usize::from(hi - lo + 1).pow(2),
            "room for the stones"
        );
        let mut b = Board::new(size, rule).unwrap();
        while b.history().len() < stones && !b.is_over() {
            let m = Move::new(rng.random_range(lo..=hi), rng.random_range(lo..=hi));
            if b.is_legal(m) {
                b.play(m).unwrap();
            }
        }
        b
    }

    #[test]
    fn boards_are_equal_when_they_hold_the_same_game() {
        let play = |moves: &[(u8, u8)], rule| {
            let mut b = Board::new(9, rule).unwrap();
            for &(x, y) in moves {
                b.play(Move::new(x, y)).unwrap();
            }
            b
        };
        let a = play(&[(4, 4), (5, 5), (3, 3)], Rule::Freestyle);
        assert_eq!(a, a.clone());
        assert_eq!(a, play(&[(4, 4), (5, 5), (3, 3)], Rule::Freestyle));
        // The same stones in another order, or under another rule, or on another size.
        assert_ne!(a, play(&[(3, 3), (5, 5), (4, 4)], Rule::Freestyle));
        assert_ne!(a, play(&[(4, 4), (5, 5), (3, 3)], Rule::ExactlyFive));
        let mut wide = Board::new(10, Rule::Freestyle).unwrap();
        for (x, y) in [(4, 4), (5, 5), (3, 3)] {
            wide.play(Move::new(x, y)).unwrap();
        }
        assert_ne!(a, wide);
        // Taking a move back gives the board before it.
        let mut b = a.clone();
        b.undo();
        assert_eq!(b, play(&[(4, 4), (5, 5)], Rule::Freestyle));
        // Set up from its stones, the same order is made up: not the same game.
        let set = Board::from_stones(
            9,
            Rule::Freestyle,
            &[Move::new(4, 4), Move::new(3, 3)],
            &[Move::new(5, 5)],
        )
        .unwrap();
        assert_eq!(set.history(), a.history());
        assert_ne!(set, a);
    }

    #[test]
    fn colours_read_back_from_their_names() {
        for s in [Stone::Black, Stone::White] {
            assert_eq!(s.to_string().parse::<Stone>().unwrap(), s);
            assert_eq!(s.name().to_uppercase().parse::<Stone>().unwrap(), s);
        }
        assert_eq!(" o\n".parse::<Stone>().unwrap(), Stone::White);
        assert!(matches!(
            "".parse::<Stone>(),
            Err(GomokuError::UnknownColour(e)) if e.is_empty()
        ));
    }

    /// Every cell of every board size reads back from its diagram name and from `x,y`, and
    /// the names are those of the diagram's column letters.
    #[test]
    fn moves_read_back_from_their_names() {
        for size in MIN_SIZE..=MAX_SIZE {
            for y in 0..size as u8 {
                for x in 0..size as u8 {
                    let m = Move::new(x, y);
                    let name = m.name();
                    assert_eq!(Move::parse(&name, size), Ok(m), "{name} on {size}");
                    assert_eq!(Move::parse(&m.to_string(), size), Ok(m));
                    let letter = COLUMN_LETTERS.chars().nth(usize::from(x)).unwrap();
                    assert_eq!(name, format!("{letter}{y}"));
                }
            }
        }
        assert_eq!(Move::new(0, 3).name(), "a3");
        assert_eq!(Move::new(25, 9).name(), "z9");
        assert_eq!(Move::new(31, 31).name(), "F31");
        // Beyond the diagram's 32 letters a move is named as the protocol writes it.
        assert_eq!(Move::new(40, 2).name(), "40,2");
    }

    #[test]
    fn upper_case_columns_depend_on_the_board_size() {
        // Up to 26 columns upper case is the same letter; beyond, `A` to `F` are 26 to 31.
        assert_eq!(Move::parse("H7", 15), Ok(Move::new(7, 7)));
        assert_eq!(Move::parse("Z0", 26), Ok(Move::new(25, 0)));
        assert_eq!(Move::parse("A3", 27), Ok(Move::new(26, 3)));
        assert_eq!(Move::parse("F3", 32), Ok(Move::new(31, 3)));
        assert_eq!(
            Move::parse("B3", 27),
            Err(GomokuError::OffBoard {
                x: 27,
                y: 3,
                size: 27
            })
        );
        assert_eq!(Move::parse("G3", 32), Err(GomokuError::Parse("G3".into())));
        assert_eq!(Move::parse("z3", 32), Ok(Move::new(25, 3)));
    }

    #[test]
    fn bad_and_off_board_moves_are_told_apart() {
        let off = |x, y, size| Err(GomokuError::OffBoard { x, y, size });
        let bad = |s: &str| Err(GomokuError::Parse(s.into()));
        assert_eq!(Move::parse("14,14", 15), Ok(Move::new(14, 14)));
        assert_eq!(Move::parse("15,0", 15), off(15, 0, 15));
        assert_eq!(Move::parse("0,15", 15), off(0, 15, 15));
        assert_eq!(Move::parse("15,15", 15), off(15, 15, 15));
        assert_eq!(Move::parse("o14", 15), Ok(Move::new(14, 14)));
        assert_eq!(Move::parse("p0", 15), off(15, 0, 15));
        assert_eq!(Move::parse("a15", 15), off(0, 15, 15));
        // Numbers past a byte are not moves on any board.
        assert_eq!(Move::parse("256,0", 15), bad("256,0"));
        assert_eq!(Move::parse("a256", 15), bad("a256"));
        for s in [
            "", " ", "7", "7,", ",7", "x,1", "1,y", "-1,2", "#3", "h", "h-1", "hh",
        ] {
            assert_eq!(Move::parse(s, 15), bad(s), "{s:?}");
        }
    }

    /// `checked_index` is `None` exactly off the board, and agrees with `on_board`,
    /// `index` and `to_move`; every cell of the padded array is a wall or on the board.
    #[test]
    fn geometry_indices_round_trip() {
        for size in [MIN_SIZE, 9, 15, MAX_SIZE] {
            let geo = Geometry::new(size);
            assert!(!geo.is_empty());
            let cells = geo.fresh_cells();
            assert_eq!(cells.len(), geo.len());
            let mut on = 0;
            for (i, &cell) in cells.iter().enumerate() {
                if geo.on_board(i) {
                    on += 1;
                    assert_eq!(cell, EMPTY);
                    let m = geo.to_move(i);
                    assert_eq!(geo.checked_index(m), Some(i));
                    assert_eq!(geo.index(usize::from(m.x), usize::from(m.y)), i);
                } else {
                    assert_eq!(cell, WALL);
                }
            }
            assert_eq!(on, size * size);
            for (x, y) in [
                (size, 0),
                (0, size),
                (size, size),
                (size + 3, 1),
                (255, 255),
            ] {
                assert_eq!(
                    geo.checked_index(Move::new(x as u8, y as u8)),
                    None,
                    "{x},{y}"
                );
            }
            // Five steps past any edge, in any direction, stay inside the array.
            for y in 0..size {
                for x in 0..size {
                    let i = geo.index(x, y);
                    for d in geo.directions() {
                        assert!(i + 5 * d < geo.len() && i >= 5 * d);
                    }
                }
            }
        }
    }

    #[test]
    fn play_refuses_with_the_right_error() {
        let mut b = Board::new(5, Rule::Freestyle).unwrap();
        assert_eq!(
            b.play(Move::new(5, 0)),
            Err(GomokuError::OffBoard {
                x: 5,
                y: 0,
                size: 5
            })
        );
        assert_eq!(
            b.play(Move::new(0, 5)),
            Err(GomokuError::OffBoard {
                x: 0,
                y: 5,
                size: 5
            })
        );
        b.play(Move::new(2, 2)).unwrap();
        assert_eq!(
            b.play(Move::new(2, 2)),
            Err(GomokuError::Occupied { x: 2, y: 2 })
        );
        assert!(!b.is_legal(Move::new(2, 2)));
        assert!(!b.is_legal(Move::new(5, 5)));
        assert!(b.is_legal(Move::new(4, 4)));
        assert_eq!(b.get(Move::new(2, 2)), Some(Stone::Black));
        assert_eq!(b.get(Move::new(7, 7)), None);
        assert_eq!(b.history(), &[Move::new(2, 2)]);
    }

    /// A 5x5 board filled without a five: Black on the cells with `(x + 2y) mod 4 < 2`
    /// (13 of them), White on the others; no line holds more than two stones of a colour in a row.
    pub(crate) fn drawn_board() -> Board {
        let mut b = Board::new(5, Rule::Freestyle).unwrap();
        let all = (0..25u8).map(|i| Move::new(i % 5, i / 5));
        let (black, white): (Vec<Move>, Vec<Move>) =
            all.partition(|m| (usize::from(m.x) + 2 * usize::from(m.y)) % 4 < 2);
        assert_eq!((black.len(), white.len()), (13, 12));
        for (k, &m) in black.iter().enumerate() {
            assert!(!b.is_full() && !b.is_over());
            b.play(m).unwrap();
            if let Some(&w) = white.get(k) {
                b.play(w).unwrap();
            }
        }
        b
    }

    #[test]
    fn a_full_board_without_five_is_a_draw() {
        let mut b = drawn_board();
        assert_eq!(b.winner(), None);
        assert!(b.is_full() && b.is_over());
        assert!(b.empty_cells().is_empty());
        assert!(!b.is_legal(Move::new(0, 0)));
        assert_eq!(b.play(Move::new(0, 0)), Err(GomokuError::GameOver));
        let last = b.undo().unwrap();
        assert!(!b.is_full() && !b.is_over());
        assert_eq!(b.empty_cells(), vec![last]);
        assert!(b.is_legal(last));
    }

    #[test]
    fn cells_hold_the_stone_codes() {
        let mut b = Board::new(6, Rule::Freestyle).unwrap();
        b.play(Move::new(1, 2)).unwrap();
        b.play(Move::new(5, 5)).unwrap();
        let geo = b.geometry();
        assert_eq!(b.cells().len(), geo.len());
        assert_eq!(b.cells()[geo.index(1, 2)], Stone::Black.code());
        assert_eq!(b.cells()[geo.index(5, 5)], Stone::White.code());
        assert_eq!(b.cells()[geo.index(0, 0)], EMPTY);
        assert_eq!(b.cells()[geo.index(0, 0) - 1], WALL);
        assert_eq!((Stone::Black.code(), Stone::White.code()), (1, 2));
        assert_eq!(Stone::White.index(), 1);
        assert_eq!(Stone::Black.other(), Stone::White);
    }

    /// The diagram brackets the last move, at the left edge, inside a row and at the right
    /// edge.
    #[test]
    fn the_diagram_marks_the_last_move() {
        let mut b = Board::new(5, Rule::Freestyle).unwrap();
        assert_eq!(
            b.to_string(),
            "    a b c d e\n  0 . . . . .\n  1 . . . . .\n  2 . . . . .\n  3 . . . . .\n  4 . . . . .\n"
        );
        b.play(Move::new(0, 1)).unwrap();
        b.play(Move::new(2, 2)).unwrap();
        assert_eq!(
            b.to_string(),
            "    a b c d e\n  0 . . . . .\n  1 X . . . .\n  2 . .[O]. .\n  3 . . . . .\n  4 . . . . .\n"
        );
        b.play(Move::new(4, 3)).unwrap();
        assert_eq!(
            b.to_string(),
            "    a b c d e\n  0 . . . . .\n  1 X . . . .\n  2 . . O . .\n  3 . . . .[X]\n  4 . . . . .\n"
        );
        b.play(Move::new(0, 4)).unwrap();
        assert_eq!(
            b.to_string(),
            "    a b c d e\n  0 . . . . .\n  1 X . . . .\n  2 . . O . .\n  3 . . . . X\n  4[O]. . . .\n"
        );
    }
}
