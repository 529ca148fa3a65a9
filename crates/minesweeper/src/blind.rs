//! Coin flips built into a board: sets of cells that no player can tell apart, and the bound
//! they put on any player's win rate.
//!
//! Take a board with a mine on `a` and none on `b`, and move the mine to `b`. If every cell
//! other than `a` and `b` that touches exactly one of them is a mine (say the pair lies along
//! an edge with mines beyond it), no other cell's number changes, so the two boards show a
//! player exactly the same thing until it clicks `a` or `b`, and it then loses one of them.
//! The same holds for any set of cells, half of them mines, whose mines and safe cells can
//! all be exchanged without changing another safe cell's number: a 2x2 block with mines on
//! one diagonal, a chain along an edge. When the first-click rule allows both boards they are
//! equally likely, so over random boards no player wins more than half of the boards that
//! hold such a set. Several sets far enough apart multiply: `k` of them make a class of `2^k`
//! boards of which a player wins at most one. [`bound_class`] assigns each board at most one
//! such class, so that the classes never overlap, which turns this into an upper bound on the
//! win rate of any strategy.

use crate::board::{Board, FirstClick};
use crate::game::{Game, GameState};
use crate::solver::Solver;

/// The cells the first-click `rule` keeps free of mines (or, for [`FirstClick::None`], the
/// clicked cell, which the first click tells apart from any other).
fn protected(board: &Board, rule: FirstClick, start: usize) -> Vec<bool> {
    let mut p = vec![false; board.len()];
    if let Some(s) = p.get_mut(start) {
        *s = true;
    }
    if rule == FirstClick::Zero {
        for n in board.neighbours(start) {
            p[n] = true;
        }
    }
    p
}

/// Search effort per first cell: far more than the sets of up to 8 cells of the classic
/// levels need; past it the cell's search stops (the sets found so far stay valid). It bounds
/// the time on large dense boards, where a cell can start very many sets.
const NODES_PER_CELL: usize = 20_000;

/// The largest blind sets searched for: a larger `max_cells` searches up to this size. Each
/// cell of a growing set is a level of recursion and is rescanned at every step, so the cap
/// bounds both the stack and the work per step.
pub const MAX_BLIND_CELLS: usize = 64;

/// Depth-first search for blind sets whose smallest cell is a given one.
///
/// A set is grown from its smallest cell by repairs: flipping cells changes the numbers of
/// the safe cells around them, and every safe cell left with a changed number must itself
/// join the set or have a neighbour join it that moves its count back. Each branch includes
/// one candidate and excludes the ones before it, so no set is visited twice.
struct Search<'a> {
    board: &'a Board,
    /// Cells the search may not use: the first click's, and cells excluded by earlier
    /// branches.
    banned: Vec<bool>,
    inset: Vec<bool>,
    /// Per cell: how its count of adjacent mines changes when the set is flipped.
    delta: Vec<i8>,
    set: Vec<usize>,
    /// Mines the flip adds minus mines it removes.
    balance: i32,
    max: usize,
    nodes: usize,
    /// Whether the size limit cut a branch since the last [`Search::grow_from`].
    cut: bool,
    found: Vec<Vec<usize>>,
    /// The largest set grown so far (kept for a test of the depth bound).
    #[cfg(test)]
    deepest: usize,
}

impl<'a> Search<'a> {
    /// A search for sets of up to `max` cells that the first-click `rule` (first click on
    /// `start`) allows both ways.
    fn new(board: &'a Board, rule: FirstClick, start: usize, max: usize) -> Self {
        let n = board.len();
        Search {
            board,
            banned: protected(board, rule, start),
            inset: vec![false; n],
            delta: vec![0; n],
            set: Vec::new(),
            balance: 0,
            max: max.min(MAX_BLIND_CELLS),
            nodes: 0,
            cut: false,
            found: Vec::new(),
            #[cfg(test)]
            deepest: 0,
        }
    }

    /// +1 when flipping `c` adds a mine, -1 when it removes one.
    fn sign(&self, c: usize) -> i8 {
        if self.board.is_mine(c) { -1 } else { 1 }
    }

    fn flip(&mut self, c: usize, on: bool) {
        let s = if on { self.sign(c) } else { -self.sign(c) };
        self.inset[c] = on;
        if on {
            self.set.push(c);
        } else {
            self.set.pop();
        }
        self.balance += i32::from(s);
        for n in self.board.neighbours(c) {
            self.delta[n] += s;
        }
    }

    /// A safe cell outside the set whose number the flip changes.
    fn violated(&self, c: usize) -> bool {
        !self.inset[c] && !self.board.is_mine(c) && self.delta[c] != 0
    }

    /// The cells whose joining the set moves the number of violated cell `c` back toward
    /// its own (or removes it, for `c` itself), above `first` and not banned.
    fn repairs(&self, c: usize, first: usize) -> Vec<usize> {
        let want = -self.delta[c].signum();
        let usable = |x: usize| x > first && !self.banned[x] && !self.inset[x];
        std::iter::once(c)
            .filter(|&x| usable(x))
            .chain(
                self.board
                    .neighbours(c)
                    .filter(|&n| usable(n) && self.sign(n) == want),
            )
            .collect()
    }

    /// Tries every way to include `options` (one each, excluding the earlier ones), until
    /// the node budget runs out.
    fn branch(&mut self, options: &[usize], first: usize) {
        for &x in options {
            if self.nodes > NODES_PER_CELL {
                break;
            }
            self.flip(x, true);
            self.grow(first);
            self.flip(x, false);
            self.banned[x] = true;
        }
        for &x in options {
            self.banned[x] = false;
        }
    }

    /// Adds every blind set whose smallest cell is `first` to `found`, as far as the node
    /// budget allows, and returns the nodes it took (`NODES_PER_CELL + 1` when it ran out).
    fn grow_from(&mut self, first: usize) -> usize {
        self.nodes = 0;
        self.cut = false;
        self.flip(first, true);
        self.grow(first);
        self.flip(first, false);
        self.nodes
    }

    fn grow(&mut self, first: usize) {
        self.nodes += 1;
        #[cfg(test)]
        {
            self.deepest = self.deepest.max(self.set.len());
        }
        if self.nodes > NODES_PER_CELL {
            return;
        }
        // The violated cell with the fewest repairs.
        let mut best: Option<Vec<usize>> = None;
        let mut any = false;
        for i in 0..self.set.len() {
            let d = self.set[i];
            for c in self.board.neighbours(d) {
                if self.violated(c) {
                    any = true;
                    let r = self.repairs(c, first);
                    if best.as_ref().is_none_or(|b| r.len() < b.len()) {
                        best = Some(r);
                    }
                }
            }
        }
        if !any {
            if self.balance == 0 {
                let mut set = self.set.clone();
                set.sort_unstable();
                self.found.push(set);
                return;
            }
            // Nothing to repair but the mine count: another piece must start elsewhere.
            if self.set.len() < self.max {
                let want = -self.balance.signum() as i8;
                let options: Vec<usize> = (first + 1..self.board.len())
                    .filter(|&x| !self.banned[x] && !self.inset[x] && self.sign(x) == want)
                    .collect();
                self.branch(&options, first);
            } else {
                self.cut = true;
            }
            return;
        }
        if let Some(options) = best {
            if self.set.len() < self.max {
                self.branch(&options, first);
            } else {
                self.cut = true;
            }
        }
    }
}

/// The coin flips built into a board: sets of at most `max_cells` cells (and at most
/// [`MAX_BLIND_CELLS`]), half of them mines,
/// whose mines and safe cells can all be exchanged without changing any other safe cell's
/// number, and which the first-click `rule` (first click on `start`) allows both ways. Until
/// it clicks a cell of such a set, a player sees exactly the same on both boards (the mine
/// counter too), and that click is a mine on one of them. A set never holds `start`: under
/// [`FirstClick::None`] too, the first click tells its cell apart (one board loses at once),
/// so no player is blind to it.
///
/// The sets listed are the minimal ones (no smaller blind set inside), found by a search
/// that grows each set from its smallest cell; each set is sorted, and the list is sorted.
/// From each cell the search looks for sets of 2 cells, then of up to 4, and so on up to
/// `max_cells` (a blind set has as many mines as safe cells), each round with a fixed number
/// of steps, and stops early once a round was not cut short by the size: the small sets are
/// found whatever the larger ones cost. A step that must start a new piece of the set
/// elsewhere looks at the rest of the board, so the time per cell grows with the board, and
/// on large dense boards (where blind sets are many) the larger rounds may miss some sets
/// (and then list a set holding one they missed), but no set listed is ever not blind.
///
/// ```
/// use minesweeper::{Board, FirstClick, blind_sets};
///
/// // Top-left corner of a 4x4 board: the mine at (1,0) could as well be at (0,0), since the
/// // mines at (2,0) and (2,1) hide the difference from every other cell.
/// let board = Board::new(4, 4, &[1, 2, 6])?;
/// assert_eq!(blind_sets(&board, FirstClick::Safe, 15, 4), vec![vec![0, 1]]);
/// // A first click on (0,0) tells the two boards apart.
/// assert!(blind_sets(&board, FirstClick::Safe, 0, 4).is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn blind_sets(
    board: &Board,
    rule: FirstClick,
    start: usize,
    max_cells: usize,
) -> Vec<Vec<usize>> {
    let mut search = Search::new(board, rule, start, max_cells);
    let most = search.max;
    if most >= 2 {
        for first in 0..board.len() {
            if search.banned[first] {
                continue;
            }
            // Deeper rounds, each with its own budget, until one is not cut by the size.
            let mut size = 2;
            loop {
                search.max = size.min(most);
                let nodes = search.grow_from(first);
                if search.max == most || (!search.cut && nodes <= NODES_PER_CELL) {
                    break;
                }
                size += 2;
            }
        }
    }
    let mut sets = search.found;
    sets.sort_unstable();
    sets.dedup();
    // Keep the minimal ones. A set inside `s` starts at one of its cells: look only among
    // the sets starting there.
    let mut by_first: Vec<Vec<usize>> = vec![Vec::new(); board.len()];
    for (i, t) in sets.iter().enumerate() {
        by_first[t[0]].push(i);
    }
    let minimal: Vec<bool> = sets
        .iter()
        .map(|s| {
            !s.iter().any(|&c| {
                by_first[c].iter().any(|&j| {
                    let t = &sets[j];
                    t.len() < s.len() && t.iter().all(|x| s.binary_search(x).is_ok())
                })
            })
        })
        .collect();
    sets.into_iter()
        .zip(minimal)
        .filter_map(|(s, keep)| keep.then_some(s))
        .collect()
}

/// The board with every cell of `cells` flipped: mines become safe cells and safe cells
/// mines (`None` when a cell is out of range or repeated, or the flip would leave no safe
/// cell).
#[must_use]
pub fn flip_cells(board: &Board, cells: &[usize]) -> Option<Board> {
    let mut mask = board.mine_mask().to_vec();
    for &c in cells {
        if c >= mask.len() || cells.iter().filter(|&&d| d == c).count() > 1 {
            return None;
        }
        mask[c] = !mask[c];
    }
    mask.iter()
        .any(|m| !m)
        .then(|| Board::from_mask(board.grid().clone(), mask))
}

/// At most this many independent sets make up a board's class in [`bound_class`] (a class
/// of `2^k` boards is checked board by board).
pub const MAX_CLASS_SETS: usize = 6;

/// Whether two cell sets are far enough apart to be flipped independently: no cell of one
/// is a cell of the other or next to one.
fn apart(board: &Board, a: &[usize], b: &[usize]) -> bool {
    a.iter().all(|&x| {
        b.iter().all(|&y| {
            let ((ax, ay), (bx, by)) = (board.xy(x), board.xy(y));
            ax.abs_diff(bx) > 1 || ay.abs_diff(by) > 1
        })
    })
}

/// The first of [`blind_sets`], then every later one apart from all those taken (no shared
/// or neighbouring cells), at most [`MAX_CLASS_SETS`] of them.
fn family(board: &Board, rule: FirstClick, start: usize, max_cells: usize) -> Vec<Vec<usize>> {
    let mut taken: Vec<Vec<usize>> = Vec::new();
    for set in blind_sets(board, rule, start, max_cells) {
        if taken.len() < MAX_CLASS_SETS && taken.iter().all(|t| apart(board, t, &set)) {
            taken.push(set);
        }
    }
    taken
}

/// The independent coin flips that put this board in a class of `2^k` equally likely boards
/// no player can tell apart before clicking one of their cells, and of which every player
/// wins at most one; empty when the board is in no such class.
///
/// The sets are the board's first blind set (of at most `max_cells` cells, see
/// [`blind_sets`]) and each later one apart from those taken (no shared or neighbouring
/// cells), at most [`MAX_CLASS_SETS`]. Flipping any of them changes no number outside them,
/// and a cell of one shows a number that does not depend on the others, so a player learns
/// nothing about one set's flip until it clicks a cell of that set, and each such click
/// loses half of the boards still in play. The class is kept only when every board in it
/// names the same sets (each flip of them is checked), so the classes never overlap: over
/// random boards drawn under `rule`, every strategy's win rate is at most the mean of
/// `2^-k` over boards in a class of `k` sets, and 1 over the others.
///
/// ```
/// use minesweeper::{Board, FirstClick, bound_class, flip_cells};
///
/// // 4x4: the mine at (1,0) could be at (0,0), unseen behind the mines at (2,0) and (2,1).
/// let board = Board::new(4, 4, &[1, 2, 6])?;
/// assert_eq!(bound_class(&board, FirstClick::Safe, 15, 4), vec![vec![0, 1]]);
/// let twin = flip_cells(&board, &[0, 1]).unwrap();
/// assert_eq!(bound_class(&twin, FirstClick::Safe, 15, 4), vec![vec![0, 1]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn bound_class(
    board: &Board,
    rule: FirstClick,
    start: usize,
    max_cells: usize,
) -> Vec<Vec<usize>> {
    let sets = family(board, rule, start, max_cells);
    for mask in 1u32..1 << sets.len() {
        let cells: Vec<usize> = (0..sets.len())
            .filter(|&i| mask >> i & 1 == 1)
            .flat_map(|i| sets[i].iter().copied())
            .collect();
        let same = flip_cells(board, &cells)
            .is_some_and(|other| family(&other, rule, start, max_cells) == sets);
        if !same {
            return Vec::new();
        }
    }
    sets
}

/// A board's shares of two upper bounds on any player's win rate: over random boards drawn
/// under a first-click rule, the mean of either share is at least every strategy's expected
/// win rate (see [`win_bound`]). The shares are not chances of winning a given board; only
/// their means over random boards bound the win rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shares {
    /// `k`, the number of independent coin flips of the board's class ([`bound_class`]);
    /// 0 for a board in none.
    pub class_sets: usize,
    /// `2^-k`, 1 for a board in no class: no player wins more than one board of a class.
    pub coin_flips: f64,
    /// As `coin_flips`, except for a board whose first click's view has no cell that is safe
    /// in every layout: every player must guess there, and survives with probability at most
    /// one minus the lowest exact mine probability of that view, which is then the share
    /// (the same for every board showing the view); 0 when the first click hits a mine.
    pub first_guess: f64,
}

/// A board's [`Shares`] of the bounds on any player's win rate over random boards drawn
/// under `rule` (first click on `start`), with coin flips of up to `max_cells` cells. (A
/// first view that exact counting cannot handle within the default budget counts as having
/// a safe cell; a `start` off the board counts as no first click at all, and so protects no
/// cell.)
///
/// ```
/// use minesweeper::{Board, FirstClick, board_bound};
///
/// // A corner pair: one board of a class of two.
/// let board = Board::new(4, 4, &[1, 2, 6])?;
/// let shares = board_bound(&board, FirstClick::Safe, 15, 8);
/// assert_eq!((shares.coin_flips, shares.first_guess), (0.5, 0.5));
/// // A first click on (0,0) settles the pair, but it shows 1: each of (1,0), (0,1) and
/// // (1,1) is a mine with probability 1/3 and every other cell with 2/12, so every player
/// // must then risk at least 1/6.
/// let shares = board_bound(&board, FirstClick::Safe, 0, 8);
/// assert_eq!(shares.coin_flips, 1.0);
/// assert!((shares.first_guess - 5.0 / 6.0).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn board_bound(board: &Board, rule: FirstClick, start: usize, max_cells: usize) -> Shares {
    let k = bound_class(board, rule, start, max_cells).len();
    let coin_flips = 0.5f64.powi(i32::try_from(k).unwrap_or(i32::MAX));
    let first_guess = first_view_survival(board, start).unwrap_or(coin_flips);
    Shares {
        class_sets: k,
        coin_flips,
        first_guess,
    }
}

/// The best chance of surviving the guess the first click's view forces: `None` when the view
/// has a cell safe in every layout (or the game is over, or the view is too large to count),
/// `Some(0)` when the first click hits a mine.
fn first_view_survival(board: &Board, start: usize) -> Option<f64> {
    let mut game = Game::new(board.clone());
    if game.reveal(start).ok()?.mine {
        return Some(0.0);
    }
    if game.state() != GameState::Playing {
        return None;
    }
    let p = Solver::default().probabilities(&game.view()).ok()?;
    let lowest = p.mine.iter().flatten().copied().fold(1.0f64, f64::min);
    (lowest > 0.0).then_some(1.0 - lowest)
}

/// The upper bound on any player's expected win rate over random boards, from their shares
/// (one field of [`board_bound`]'s [`Shares`]): the mean, and the upper end of its 95%
/// interval (normal approximation), capped at 1; `(1, 1)` for no boards.
///
/// ```
/// use minesweeper::win_bound;
///
/// // Four boards: one in a class of two, one in a class of four.
/// let (bound, upper) = win_bound(&[1.0, 0.5, 1.0, 0.25]);
/// assert_eq!(bound, 0.6875);
/// assert!(upper > bound && upper <= 1.0);
/// ```
#[must_use]
pub fn win_bound(shares: &[f64]) -> (f64, f64) {
    if shares.is_empty() {
        return (1.0, 1.0);
    }
    let n = shares.len() as f64;
    let mean = shares.iter().sum::<f64>() / n;
    let var = shares.iter().map(|&v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, (mean + 1.96 * (var / n).sqrt()).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Grid;
    use crate::game::{Game, GameState};
    use proptest::prelude::*;
    use std::sync::Arc;

    /// Whether flipping the cells of `set` (mines become safe and safe cells mines) leaves the
    /// number of every other safe cell unchanged and the number of mines too.
    fn blind(board: &Board, set: &[usize]) -> bool {
        let mines = set.iter().filter(|&&c| board.is_mine(c)).count();
        2 * mines == set.len()
            && set.iter().flat_map(|&d| board.neighbours(d)).all(|c| {
                if set.contains(&c) || board.is_mine(c) {
                    return true;
                }
                let change: i32 = set
                    .iter()
                    .filter(|&&d| board.neighbours(c).any(|n| n == d))
                    .map(|&d| if board.is_mine(d) { -1 } else { 1 })
                    .sum();
                change == 0
            })
    }

    /// The brute-force definition: every set of 2 to `k` cells outside the ones the rule
    /// protects that [`blind`] accepts, keeping the minimal ones; sorted.
    fn brute(board: &Board, rule: FirstClick, start: usize, k: usize) -> Vec<Vec<usize>> {
        let guard = protected(board, rule, start);
        let cells: Vec<usize> = (0..board.len()).filter(|&c| !guard[c]).collect();
        let mut valid: Vec<Vec<usize>> = Vec::new();
        let mut stack: Vec<Vec<usize>> = cells.iter().map(|&c| vec![c]).collect();
        while let Some(set) = stack.pop() {
            if set.len() >= 2 && blind(board, &set) {
                valid.push(set.clone());
            }
            if set.len() < k {
                let last = *set.last().unwrap();
                for &c in cells.iter().filter(|&&c| c > last) {
                    let mut next = set.clone();
                    next.push(c);
                    stack.push(next);
                }
            }
        }
        let all = valid.clone();
        valid.retain(|s| {
            !all.iter()
                .any(|t| t.len() < s.len() && t.iter().all(|c| s.contains(c)))
        });
        valid.sort();
        valid
    }

    /// Small dense boards (so that blind sets are common), with a rule and a first click.
    fn board_strategy(max_side: usize) -> impl Strategy<Value = (Board, FirstClick, usize)> {
        (1usize..=max_side, 1usize..=max_side, 0u8..3).prop_flat_map(|(w, h, r)| {
            let rule = [FirstClick::Safe, FirstClick::Zero, FirstClick::None][r as usize];
            (
                proptest::collection::vec(0u8..10, w * h),
                0..w * h,
                Just((w, h, rule)),
            )
                .prop_map(|(dens, start, (w, h, rule))| {
                    let mines: Vec<usize> = (0..w * h).filter(|&c| dens[c] < 5).collect();
                    let mines = if mines.len() == w * h {
                        mines[1..].to_vec()
                    } else {
                        mines
                    };
                    let grid = Arc::new(Grid::new(w, h).unwrap());
                    (Board::new_in(grid, &mines).unwrap(), rule, start)
                })
        })
    }

    proptest! {
        #[test]
        fn sets_equal_brute_force((board, rule, start) in board_strategy(4), k in 2usize..=5) {
            prop_assert_eq!(blind_sets(&board, rule, start, k), brute(&board, rule, start, k));
        }

        #[test]
        fn larger_boards_list_only_blind_sets((board, rule, start) in board_strategy(9)) {
            for set in blind_sets(&board, rule, start, 8) {
                prop_assert!(blind(&board, &set), "{set:?}");
                let guard = protected(&board, rule, start);
                prop_assert!(set.iter().all(|&c| !guard[c]));
            }
        }

        #[test]
        fn bound_classes_never_overlap((board, rule, start) in board_strategy(7)) {
            classes_never_overlap(&board, rule, start)?;
        }

        #[test]
        fn a_class_looks_the_same_until_each_set_is_clicked(
            (board, rule, start) in board_strategy(8),
        ) {
            class_looks_the_same(&board, rule, start)?;
        }
    }

    /// The board of `board`'s class with the sets of `mask`'s bits flipped.
    fn class_board(board: &Board, sets: &[Vec<usize>], mask: u32) -> Board {
        let cells: Vec<usize> = (0..sets.len())
            .filter(|&i| mask >> i & 1 == 1)
            .flat_map(|i| sets[i].clone())
            .collect();
        flip_cells(board, &cells).unwrap()
    }

    /// The sets of a board's class are blind and apart, and every board of the class names
    /// the same sets; returns how many sets there are.
    fn classes_never_overlap(
        board: &Board,
        rule: FirstClick,
        start: usize,
    ) -> Result<usize, TestCaseError> {
        let sets = bound_class(board, rule, start, 6);
        for (i, s) in sets.iter().enumerate() {
            prop_assert!(blind(board, s));
            for t in &sets[..i] {
                prop_assert!(apart(board, s, t));
            }
        }
        // Every board of the class names the same sets, so it is the same class.
        for mask in 1u32..1 << sets.len() {
            let other = class_board(board, &sets, mask);
            prop_assert_ne!(&other, board);
            prop_assert_eq!(other.mine_count(), board.mine_count());
            prop_assert_eq!(bound_class(&other, rule, start, 6), sets.clone());
        }
        Ok(sets.len())
    }

    /// The boards of a class show the same views until a set is clicked, and each click
    /// into a set loses half of the boards left; returns how many sets there are.
    fn class_looks_the_same(
        board: &Board,
        rule: FirstClick,
        start: usize,
    ) -> Result<usize, TestCaseError> {
        let sets = bound_class(board, rule, start, 6);
        let inside: Vec<usize> = sets.iter().flatten().copied().collect();
        let mut games: Vec<Game> = (0u32..1 << sets.len())
            .map(|mask| Game::new(class_board(board, &sets, mask)))
            .collect();
        // Every safe cell outside the sets, on every board: the views stay equal.
        for c in (0..board.len()).filter(|c| !inside.contains(c) && !board.is_mine(*c)) {
            if !games[0].is_revealed(c) {
                for g in &mut games {
                    g.reveal(c).unwrap();
                }
            }
            prop_assert!(games.iter().all(|g| g.view() == games[0].view()));
        }
        // A click in each set in turn loses half the boards left; the rest look alike.
        for set in &sets {
            let before = games.len();
            for g in &mut games {
                g.reveal(set[0]).unwrap();
            }
            games.retain(|g| g.state() != GameState::Lost);
            prop_assert_eq!(2 * games.len(), before);
            prop_assert!(games.iter().all(|g| g.view() == games[0].view()));
        }
        Ok(sets.len())
    }

    /// The two class checks above reach boards with classes, of several sets too: on 300
    /// boards drawn as the property tests draw them, with a fixed seed.
    #[test]
    fn the_class_checks_see_classes() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = board_strategy(8);
        let (mut with_class, mut with_several) = (0, 0);
        for _ in 0..300 {
            let (board, rule, start) = strategy.new_tree(&mut runner).unwrap().current();
            let k = classes_never_overlap(&board, rule, start).unwrap();
            assert_eq!(class_looks_the_same(&board, rule, start).unwrap(), k);
            with_class += usize::from(k >= 1);
            with_several += usize::from(k >= 2);
        }
        assert!(
            with_class >= 30 && with_several >= 3,
            "{with_class}, {with_several}"
        );
    }

    /// Plays both boards with the same clicks (every safe cell of the first board outside
    /// the set, `start` first): the views stay identical; then a click on `probe` wins the
    /// first board and loses its twin.
    fn look_the_same(board: &Board, set: &[usize], start: usize, probe: usize) {
        let twin = flip_cells(board, set).unwrap();
        let (mut g1, mut g2) = (Game::new(board.clone()), Game::new(twin));
        for c in std::iter::once(start).chain(0..board.len()) {
            if set.contains(&c) || board.is_mine(c) || g1.is_revealed(c) {
                continue;
            }
            g1.reveal(c).unwrap();
            g2.reveal(c).unwrap();
            assert_eq!(g1.view(), g2.view());
        }
        for &c in set.iter().filter(|&&c| c != probe && !board.is_mine(c)) {
            g1.reveal(c).unwrap();
        }
        assert_eq!(g1.state(), GameState::Playing);
        g1.reveal(probe).unwrap();
        g2.reveal(probe).unwrap();
        assert_eq!(g1.state(), GameState::Won);
        assert_eq!(g2.state(), GameState::Lost);
    }

    #[test]
    fn the_two_boards_look_the_same_until_the_set_is_clicked() {
        // 5x5, first click (4,4); mines (1,0), (2,0), (2,1) and (3,4): (0,0)/(1,0) is blind.
        let board = Board::new(5, 5, &[1, 2, 7, 23]).unwrap();
        assert_eq!(
            blind_sets(&board, FirstClick::Safe, 24, 8),
            vec![vec![0, 1]]
        );
        look_the_same(&board, &[0, 1], 24, 0);
        // 5x5, the top-left 2x2 block with mines on (1,0) and (0,1), and a mine on (2,2).
        let board = Board::new(5, 5, &[1, 5, 12]).unwrap();
        assert_eq!(
            blind_sets(&board, FirstClick::Zero, 24, 8),
            vec![vec![0, 1, 5, 6]]
        );
        look_the_same(&board, &[0, 1, 5, 6], 24, 0);
        // A beginner board (seed 5, game 548 of a zero first click at (3,3)): along the left
        // edge, mines on (0,4) and (0,7) or on (0,5) and (0,8); no smaller set shows it.
        let mines = [6, 27, 28, 33, 36, 41, 53, 63, 64, 66];
        let board = Board::new(9, 9, &mines).unwrap();
        let chain = vec![36, 45, 63, 72];
        assert!(!blind_sets(&board, FirstClick::Zero, 30, 3).contains(&chain));
        assert!(blind_sets(&board, FirstClick::Zero, 30, 4).contains(&chain));
        look_the_same(&board, &chain, 30, 45);
    }

    /// Two independent coin flips: four boards that show the same until a set is clicked,
    /// and after a safe click in one set, the two left still show the same.
    #[test]
    fn independent_sets_make_a_class_of_four() {
        // 8x5: the corner pair (0,0)/(1,0) behind mines (2,0), (2,1), and the corner pair
        // (7,4)/(6,4) behind mines (5,4), (5,3).
        let grid = Arc::new(Grid::new(8, 5).unwrap());
        let board = Board::new_in(grid, &[1, 2, 10, 38, 37, 29]).unwrap();
        let sets = bound_class(&board, FirstClick::Safe, 20, 4);
        assert_eq!(sets, vec![vec![0, 1], vec![38, 39]]);
        let boards: Vec<Board> = [vec![], vec![0, 1], vec![38, 39], vec![0, 1, 38, 39]]
            .iter()
            .map(|f| flip_cells(&board, f).unwrap())
            .collect();
        let mut games: Vec<Game> = boards.iter().cloned().map(Game::new).collect();
        let outside = |c: usize| ![0, 1, 38, 39].contains(&c) && !board.is_mine(c);
        for c in std::iter::once(20).chain(0..40).filter(|&c| outside(c)) {
            if !games[0].is_revealed(c) {
                for g in &mut games {
                    g.reveal(c).unwrap();
                }
            }
        }
        assert!(games.iter().all(|g| g.view() == games[0].view()));
        // Cell (0,0) is safe on the first and third boards: they still look the same.
        for g in &mut games {
            g.reveal(0).unwrap();
        }
        let alive: Vec<usize> = (0..4)
            .filter(|&i| games[i].state() != GameState::Lost)
            .collect();
        assert_eq!(alive, vec![0, 2]);
        assert_eq!(games[0].view(), games[2].view());
    }

    #[test]
    fn the_first_click_rule_protects_its_cells() {
        let board = Board::new(5, 5, &[1, 2, 7, 23]).unwrap();
        // A zero first click at (1,1) covers the pair: no board can have a mine there.
        assert!(blind_sets(&board, FirstClick::Zero, 6, 8).is_empty());
        assert_eq!(
            blind_sets(&board, FirstClick::None, 24, 8),
            vec![vec![0, 1]]
        );
        assert!(blind_sets(&board, FirstClick::None, 0, 8).is_empty());
        assert!(flip_cells(&board, &[0, 25]).is_none());
        assert!(flip_cells(&board, &[0, 0]).is_none());
    }

    #[test]
    fn the_bound_averages_the_shares() {
        assert_eq!(win_bound(&[]), (1.0, 1.0));
        assert_eq!(win_bound(&[1.0, 1.0, 1.0]), (1.0, 1.0));
        assert_eq!(win_bound(&[0.5, 0.5]), (0.5, 0.5));
        // Mean 0.625, sample variance 0.0625, standard error 0.125.
        let (b, u) = win_bound(&[0.5, 0.5, 0.5, 1.0]);
        assert_eq!(b, 0.625);
        assert!((u - (0.625 + 1.96 * 0.125)).abs() < 1e-12);
        // The upper limit stops at 1.
        assert_eq!(win_bound(&[1.0, 0.5]).1, 1.0);
    }

    /// Every board of a small level, equally likely under the rule.
    fn all_boards(w: usize, h: usize, mines: usize, rule: FirstClick, start: usize) -> Vec<Board> {
        let grid = Arc::new(Grid::new(w, h).unwrap());
        let guard = protected(&Board::new_in(grid.clone(), &[]).unwrap(), rule, start);
        let free: Vec<usize> = (0..w * h)
            .filter(|&c| rule == FirstClick::None || !guard[c])
            .collect();
        let mut out = Vec::new();
        let mut pick = vec![0usize; mines];
        fn rec(
            free: &[usize],
            from: usize,
            k: usize,
            pick: &mut Vec<usize>,
            out: &mut Vec<Vec<usize>>,
        ) {
            if k == pick.len() {
                out.push(pick.clone());
                return;
            }
            for i in from..free.len() {
                pick[k] = free[i];
                rec(free, i + 1, k + 1, pick, out);
            }
        }
        let mut sets = Vec::new();
        rec(&free, 0, 0, &mut pick, &mut sets);
        for m in sets {
            out.push(Board::new_in(grid.clone(), &m).unwrap());
        }
        out
    }

    /// The best any player can do, by exhaustive search over every layout from the start
    /// (cells safe in every remaining layout are revealed for free, so the first click is
    /// too when the rule makes it safe).
    fn optimal(boards: &[Board]) -> f64 {
        let n = boards[0].len();
        let neighbours = (0..n)
            .map(|c| (boards[0].neighbours(c).fold(0u64, |m, d| m | 1 << d), 0u8))
            .collect();
        let layouts = boards
            .iter()
            .map(|b| b.mines().fold(0u64, |m, c| m | 1 << c))
            .collect();
        crate::endgame::Endgame::new(neighbours, layouts, u64::MAX)
            .best_guess()
            .unwrap()
            .1
    }

    /// On small levels, the bound is at least what the best player wins (found by exhaustive
    /// search), and below 1.
    #[test]
    fn the_bound_holds_against_the_best_player() {
        for (w, h, m, rule, start) in [
            (4, 3, 3, FirstClick::Safe, 0),
            (4, 4, 3, FirstClick::Safe, 0),
            (5, 3, 3, FirstClick::Safe, 7),
            (4, 4, 4, FirstClick::Safe, 5),
            (5, 4, 3, FirstClick::Zero, 0),
        ] {
            let boards = all_boards(w, h, m, rule, start);
            let best = optimal(&boards);
            let shares: Vec<Shares> = boards
                .iter()
                .map(|b| board_bound(b, rule, start, 8))
                .collect();
            let of = |f: fn(&Shares) -> f64| win_bound(&shares.iter().map(f).collect::<Vec<_>>()).0;
            let bound = of(|s| s.first_guess);
            let flips = of(|s| s.coin_flips);
            assert!(
                best <= bound + 1e-12,
                "{w}x{h}/{m}: best {best} > bound {bound}"
            );
            assert!(best <= flips + 1e-12, "{w}x{h}/{m}: best {best} > {flips}");
            assert!(bound < 1.0 && flips < 1.0, "{w}x{h}/{m}: {bound} {flips}");
            eprintln!(
                "{w}x{h}/{m} {rule}: best {best:.4}, bound {bound:.4}, coin flips {flips:.4}"
            );
        }
    }

    /// A class's sets are the board's blind sets in order, skipping each that shares a cell
    /// with one already taken or touches one (edge or corner), up to [`MAX_CLASS_SETS`]:
    /// checked against the same rule written with coordinates, on random dense boards where
    /// sets touch at distance 1, lie just apart at distance 2 (in a line and off one), and
    /// are left out for want of room.
    #[test]
    fn a_family_skips_sets_that_touch_one_taken() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let (mut touching, mut straight, mut diagonal, mut full) = (0, 0, 0, 0);
        for (w, h, mines, boards) in [(7, 7, 20, 400), (16, 16, 100, 20)] {
            let grid = Arc::new(Grid::new(w, h).unwrap());
            // The smallest distance between two cells of the sets, in king moves, and
            // whether one such closest pair of cells shares a row or a column.
            let gap = |a: &[usize], b: &[usize]| {
                a.iter()
                    .flat_map(|&x| b.iter().map(move |&y| (x, y)))
                    .map(|(x, y)| {
                        let (dx, dy) = ((x % w).abs_diff(y % w), (x / w).abs_diff(y / w));
                        (dx.max(dy), dx.min(dy) == 0)
                    })
                    .min_by_key(|&(d, straight)| (d, !straight))
                    .unwrap()
            };
            for _ in 0..boards {
                let board =
                    Board::random_in(grid.clone(), mines, FirstClick::Safe, 0, &mut rng).unwrap();
                let mut expected: Vec<Vec<usize>> = Vec::new();
                for set in blind_sets(&board, FirstClick::Safe, 0, 6) {
                    let closest = expected.iter().map(|t| gap(t, &set)).min();
                    match closest {
                        Some((1, _)) => touching += 1,
                        Some((0, _)) => {}
                        _ if expected.len() == MAX_CLASS_SETS => full += 1,
                        _ => {
                            match closest {
                                Some((2, true)) => straight += 1,
                                Some((2, false)) => diagonal += 1,
                                _ => {}
                            }
                            expected.push(set);
                        }
                    }
                }
                assert_eq!(family(&board, FirstClick::Safe, 0, 6), expected);
            }
        }
        assert!(
            touching > 0 && straight > 0 && diagonal > 0 && full > 0,
            "{touching} {straight} {diagonal} {full}"
        );
        eprintln!(
            "touching {touching}, apart in a line {straight}, off one {diagonal}, no room {full}"
        );
    }

    /// The search from each cell stops at its node budget exactly, leaves no cell banned
    /// for the next one, and what it found by then is blind. On a dense 16x16 board with
    /// sets of up to 10 cells, two cells reach the budget when each step repairs the
    /// changed number with the fewest ways to repair it (the search's effort, pinned).
    #[test]
    fn each_cell_search_stops_at_its_budget() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        let board = Board::random(16, 16, 100, FirstClick::Safe, 0, &mut rng).unwrap();
        let guard = protected(&board, FirstClick::Safe, 0);
        let mut search = Search::new(&board, FirstClick::Safe, 0, 10);
        let mut capped = 0;
        for first in (0..board.len()).filter(|&c| !guard[c]) {
            let nodes = search.grow_from(first);
            assert!(nodes <= NODES_PER_CELL + 1, "cell {first}: {nodes} nodes");
            capped += usize::from(nodes == NODES_PER_CELL + 1);
            assert_eq!(search.banned, guard, "cell {first}");
            assert!(search.set.is_empty() && search.delta.iter().all(|&d| d == 0));
        }
        assert_eq!(capped, 2);
        assert!(!search.found.is_empty());
        assert!(
            search
                .found
                .iter()
                .all(|s| s.len() <= 10 && blind(&board, s))
        );
    }

    /// On a dense board the larger sets are many and the search for them runs out of steps:
    /// the sets of two cells are found all the same, whatever size is asked for.
    #[test]
    fn small_sets_are_found_whatever_size_is_asked_for() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        let board = Board::random(12, 12, 108, FirstClick::Safe, 0, &mut rng).unwrap();
        let pairs = blind_sets(&board, FirstClick::Safe, 0, 2);
        assert!(pairs.len() > 20, "{}", pairs.len());
        for max in [4, 6, 8] {
            let sets = blind_sets(&board, FirstClick::Safe, 0, max);
            let listed: Vec<&Vec<usize>> = sets.iter().filter(|s| s.len() == 2).collect();
            assert_eq!(listed.len(), pairs.len(), "sets of up to {max} cells");
            // None holds one of the pairs.
            assert!(sets.iter().all(|s| s.len() == 2
                || !pairs.iter().any(|p| p.iter().all(|c| s.contains(c)))));
        }
    }

    /// However large the size asked for, a set grows at most `MAX_BLIND_CELLS` levels deep:
    /// on an almost empty board a set swallows safe cells one level at a time until the node
    /// budget, which would take tens of thousands of stack frames.
    #[test]
    fn set_growth_is_bounded_in_depth() {
        let board = Board::new(60, 60, &[3599]).unwrap();
        let deepest = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let mut search = Search::new(&board, FirstClick::None, 0, usize::MAX);
                search.grow_from(0);
                search.deepest
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(deepest, MAX_BLIND_CELLS);
    }

    #[test]
    fn walled_in_cells_far_apart_pair_up() {
        // 7x3: cell (0,0) walled in by mines (1,0), (0,1), (1,1); cell (6,2) is a mine
        // walled in by (5,1), (6,1), (5,2).
        let grid = Arc::new(Grid::new(7, 3).unwrap());
        let mines = [1, 7, 8, 12, 13, 19, 20];
        let board = Board::new_in(grid, &mines).unwrap();
        assert!(blind_sets(&board, FirstClick::Safe, 3, 2).contains(&vec![0, 20]));
    }
}
