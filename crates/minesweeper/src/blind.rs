//! Coin flips built into a board: sets of cells that no player can tell apart, and the bound
//! they put on any player's win rate.
//!
//! Take a board with a mine on `a` and none on `b`, and move the mine to `b`. If every cell
//! other than `a` and `b` that touches exactly one of them is a mine (say the pair lies along
//! an edge with mines beyond it), no other cell's number changes, so the two boards show a
//! player exactly the same thing until it clicks `a` or `b`, and it then loses one of them.
//! The same holds for a 2x2 block with mines on one diagonal, flipped to the other, when the
//! cells touching only one corner of the block are mines. When the first-click rule allows
//! both boards they are equally likely, so over random boards no player wins more than half
//! of the boards that hold such a set. [`bound_set`] picks one set per board so that the boards
//! pair up exactly, which turns this into an upper bound on the win rate of any strategy: at
//! most `1 - P(paired) / 2`.

use crate::board::{Board, FirstClick};

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

/// Whether cells `a` and `b` are neighbours (distinct, at most one step apart each way).
fn adjacent(board: &Board, a: usize, b: usize) -> bool {
    let ((ax, ay), (bx, by)) = (board.xy(a), board.xy(b));
    a != b && ax.abs_diff(bx) <= 1 && ay.abs_diff(by) <= 1
}

/// Whether flipping the cells of `set` (mines become safe and safe cells mines) leaves the
/// number of every other safe cell unchanged: each such cell touches as many mines of the set
/// as safe cells of it. Checked on the cells around the set.
fn blind(board: &Board, set: &[usize]) -> bool {
    set.iter().flat_map(|&d| board.neighbours(d)).all(|c| {
        if set.contains(&c) || board.is_mine(c) {
            return true;
        }
        let (mut mines, mut safe) = (0, 0);
        for &d in set.iter().filter(|&&d| adjacent(board, c, d)) {
            if board.is_mine(d) {
                mines += 1;
            } else {
                safe += 1;
            }
        }
        mines == safe
    })
}

/// The coin flips built into a board: every set of cells, half of them mines, whose mines
/// and safe cells can be exchanged without changing any other cell's number, and which the
/// first-click `rule` (first click on `start`) allows both ways. Two shapes are looked for:
/// pairs of cells (one mine), and 2x2 blocks with mines on one diagonal. Until it clicks a
/// cell of the set, a player sees the same on both boards, and that click is a mine on one of
/// them. Each set is sorted; the list is sorted.
///
/// ```
/// use minesweeper::{Board, FirstClick, blind_sets};
///
/// // Top-left corner of a 4x4 board: the mine at (1,0) could as well be at (0,0), since the
/// // mines at (2,0) and (2,1) hide the difference from every other cell.
/// let board = Board::new(4, 4, &[1, 2, 6])?;
/// assert_eq!(blind_sets(&board, FirstClick::Safe, 15), vec![vec![0, 1]]);
/// // A first click on (0,0) tells the two boards apart.
/// assert!(blind_sets(&board, FirstClick::Safe, 0).is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn blind_sets(board: &Board, rule: FirstClick, start: usize) -> Vec<Vec<usize>> {
    let guard = protected(board, rule, start);
    let free = |c: usize| !guard[c];
    let (w, h) = (board.width(), board.height());
    // Cells whose every neighbour is a mine: two of them, far apart, form a pair as well.
    let enclosed: Vec<usize> = (0..board.len())
        .filter(|&c| free(c) && board.neighbours(c).all(|n| board.is_mine(n)))
        .collect();
    let mut sets = Vec::new();
    for a in (0..board.len()).filter(|&a| free(a)) {
        let (ax, ay) = board.xy(a);
        let near = |b: usize| {
            let (bx, by) = board.xy(b);
            ax.abs_diff(bx) <= 2 && ay.abs_diff(by) <= 2
        };
        // Pairs within two steps: check the cells around both.
        for by in ay.saturating_sub(2)..(ay + 3).min(h) {
            for bx in ax.saturating_sub(2)..(ax + 3).min(w) {
                let b = board.cell(bx, by);
                if b > a && free(b) && board.is_mine(a) != board.is_mine(b) && blind(board, &[a, b])
                {
                    sets.push(vec![a, b]);
                }
            }
        }
        // Farther apart, no cell touches both: each must be walled in by mines.
        if enclosed.binary_search(&a).is_ok() {
            for &b in enclosed.iter().filter(|&&b| b > a && !near(b)) {
                if board.is_mine(a) != board.is_mine(b) {
                    sets.push(vec![a, b]);
                }
            }
        }
        // The 2x2 block with `a` at its top left, mines on one diagonal.
        if ax + 1 < w && ay + 1 < h {
            let block = [a, a + 1, a + w, a + w + 1];
            let m = block.map(|c| board.is_mine(c));
            if block.iter().all(|&c| free(c))
                && m[0] == m[3]
                && m[1] == m[2]
                && m[0] != m[1]
                && blind(board, &block)
            {
                sets.push(block.to_vec());
            }
        }
    }
    sets.sort_unstable();
    sets
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

/// The set that matches this board with a twin no player can win together with it: the
/// first of [`blind_sets`], provided the board with that set flipped has the same first set
/// (so that the matching is exact: each of the two boards names the other).
///
/// Any strategy wins at most one board of each such couple, and the first-click rule makes
/// both equally likely, so over random boards drawn under `rule` every strategy's win rate is
/// at most `1 - P(bound_set is some) / 2`.
///
/// ```
/// use minesweeper::{Board, FirstClick, bound_set, flip_cells};
///
/// let board = Board::new(4, 4, &[1, 2, 6])?;
/// assert_eq!(bound_set(&board, FirstClick::Safe, 15), Some(vec![0, 1]));
/// let twin = flip_cells(&board, &[0, 1]).unwrap();
/// assert_eq!(bound_set(&twin, FirstClick::Safe, 15), Some(vec![0, 1]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn bound_set(board: &Board, rule: FirstClick, start: usize) -> Option<Vec<usize>> {
    let first = blind_sets(board, rule, start).into_iter().next()?;
    let twin = flip_cells(board, &first)?;
    (blind_sets(&twin, rule, start).first() == Some(&first)).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Grid;
    use crate::game::{Game, GameState};
    use proptest::prelude::*;
    use std::sync::Arc;

    /// The brute-force definition: every pair of cells and every 2x2 block, flipped, that
    /// holds as many mines as safe cells (the block's on a diagonal), lies outside the cells
    /// the rule protects, and leaves the number of every other safe cell unchanged.
    fn brute(board: &Board, rule: FirstClick, start: usize) -> Vec<Vec<usize>> {
        let guard = protected(board, rule, start);
        let (w, n) = (board.width(), board.len());
        let mut shapes: Vec<Vec<usize>> = Vec::new();
        for a in 0..n {
            shapes.extend((a + 1..n).map(|b| vec![a, b]));
            let (x, y) = board.xy(a);
            if x + 1 < w && y + 1 < board.height() {
                shapes.push(vec![a, a + 1, a + w, a + w + 1]);
            }
        }
        let mut out: Vec<Vec<usize>> = shapes
            .into_iter()
            .filter(|set| {
                let m: Vec<bool> = set.iter().map(|&c| board.is_mine(c)).collect();
                let mines = m.iter().filter(|&&x| x).count();
                let diagonal = set.len() == 2 || (m[0] == m[3] && m[1] == m[2]);
                if 2 * mines != set.len() || !diagonal || set.iter().any(|&c| guard[c]) {
                    return false;
                }
                let twin = flip_cells(board, set).unwrap();
                (0..n)
                    .filter(|c| !set.contains(c) && !board.is_mine(*c))
                    .all(|c| board.adjacent_mines(c) == twin.adjacent_mines(c))
            })
            .collect();
        out.sort();
        out
    }

    fn board_strategy() -> impl Strategy<Value = (Board, FirstClick, usize)> {
        (1usize..=7, 1usize..=7, 0u8..3).prop_flat_map(|(w, h, r)| {
            let rule = [FirstClick::Safe, FirstClick::Zero, FirstClick::None][r as usize];
            (
                proptest::collection::vec(0u8..10, w * h),
                0..w * h,
                Just((w, h, rule)),
            )
                .prop_map(|(dens, start, (w, h, rule))| {
                    // Dense boards, so that walled-in cells and blind sets are common.
                    let mines: Vec<usize> = (0..w * h).filter(|&c| dens[c] < 6).collect();
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
        fn sets_equal_brute_force((board, rule, start) in board_strategy()) {
            prop_assert_eq!(blind_sets(&board, rule, start), brute(&board, rule, start));
        }

        #[test]
        fn bound_sets_match_boards_exactly((board, rule, start) in board_strategy()) {
            if let Some(set) = bound_set(&board, rule, start) {
                let twin = flip_cells(&board, &set).unwrap();
                prop_assert_ne!(&twin, &board);
                prop_assert_eq!(twin.mine_count(), board.mine_count());
                prop_assert_eq!(bound_set(&twin, rule, start), Some(set));
            }
        }
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
        assert_eq!(blind_sets(&board, FirstClick::Safe, 24), vec![vec![0, 1]]);
        look_the_same(&board, &[0, 1], 24, 0);
        // 5x5, the top-left 2x2 block with mines on (1,0) and (0,1), and a mine on (2,2).
        let board = Board::new(5, 5, &[1, 5, 12]).unwrap();
        assert_eq!(
            blind_sets(&board, FirstClick::Zero, 24),
            vec![vec![0, 1, 5, 6]]
        );
        look_the_same(&board, &[0, 1, 5, 6], 24, 0);
    }

    #[test]
    fn the_first_click_rule_protects_its_cells() {
        let board = Board::new(5, 5, &[1, 2, 7, 23]).unwrap();
        // A zero first click at (1,1) covers the pair: no board can have a mine there.
        assert!(blind_sets(&board, FirstClick::Zero, 6).is_empty());
        assert_eq!(blind_sets(&board, FirstClick::None, 24), vec![vec![0, 1]]);
        assert!(blind_sets(&board, FirstClick::None, 0).is_empty());
        assert!(flip_cells(&board, &[0, 25]).is_none());
        assert!(flip_cells(&board, &[0, 0]).is_none());
    }

    #[test]
    fn walled_in_cells_far_apart_pair_up() {
        // 7x3: cell (0,0) walled in by mines (1,0), (0,1), (1,1); cell (6,2) is a mine
        // walled in by (5,1), (6,1), (5,2).
        let grid = Arc::new(Grid::new(7, 3).unwrap());
        let mines = [1, 7, 8, 12, 13, 19, 20];
        let board = Board::new_in(grid, &mines).unwrap();
        assert!(blind_sets(&board, FirstClick::Safe, 3).contains(&vec![0, 20]));
    }
}
