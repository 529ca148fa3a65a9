//! A game in progress: a board plus what the player has revealed and flagged.

use std::fmt;

use crate::board::Board;
use crate::position::{CellView, Position};

/// Whether a game goes on, is won or is lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameState {
    /// Safe cells remain hidden and no mine was revealed.
    Playing,
    /// Every safe cell is revealed.
    Won,
    /// A mine was revealed.
    Lost,
}

impl fmt::Display for GameState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameState::Playing => "playing",
            GameState::Won => "won",
            GameState::Lost => "lost",
        })
    }
}

/// An illegal action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GameError {
    /// The cell index is not on the board.
    #[error("cell {cell} is outside the board ({})", crate::plural(*cells, "cell"))]
    OutOfRange {
        /// The index given.
        cell: usize,
        /// The number of cells of the board.
        cells: usize,
    },
    /// The cell is already revealed.
    #[error("cell {cell} is already revealed")]
    AlreadyRevealed {
        /// The index given.
        cell: usize,
    },
    /// Revealing a flagged cell: unflag it first.
    #[error("cell {cell} is flagged: unflag it before revealing it")]
    Flagged {
        /// The index given.
        cell: usize,
    },
    /// The game is already won or lost.
    #[error("the game is over: {state}")]
    Over {
        /// The final state.
        state: GameState,
    },
}

/// The outcome of [`Game::reveal`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reveal<'a> {
    /// Whether the revealed cell was a mine (the game is then lost).
    pub mine: bool,
    /// The cells opened by this reveal, the clicked one first, then in flood-fill order. A
    /// mine opens just itself.
    pub opened: &'a [usize],
    /// The game state after the reveal.
    pub state: GameState,
}

const HIDDEN: u8 = 0;
const FLAGGED: u8 = 1;
const REVEALED: u8 = 2;
const EXPLODED: u8 = 3;

/// A game: a [`Board`] and the player's reveals and flags.
///
/// Revealing a cell with no adjacent mine opens its neighbours too, repeatedly (an iterative
/// flood fill; flagged cells are never opened by it). The game is won when every safe cell is
/// revealed and lost when a mine is. Counters keep [`Game::state`] O(1), and a reveal allocates
/// nothing (the opened cells are appended to a log sized once per game; a clone's log holds
/// only what it has, and grows on its first reveal).
#[derive(Debug, Clone)]
pub struct Game {
    board: Board,
    cells: Vec<u8>,
    revealed: usize,
    flags: usize,
    state: GameState,
    /// Every opened cell, in order.
    log: Vec<usize>,
}

impl Game {
    /// A new game on `board`, with every cell hidden.
    pub fn new(board: Board) -> Game {
        let cells = vec![HIDDEN; board.len()];
        let log = Vec::with_capacity(board.len() - board.mine_count() + 1);
        Game {
            board,
            cells,
            revealed: 0,
            flags: 0,
            state: GameState::Playing,
            log,
        }
    }

    /// Starts over on a new board, reusing this game's buffers.
    pub fn restart(&mut self, board: Board) {
        self.cells.clear();
        self.cells.resize(board.len(), HIDDEN);
        self.log.clear();
        self.log.reserve(board.len() - board.mine_count() + 1);
        self.revealed = 0;
        self.flags = 0;
        self.state = GameState::Playing;
        self.board = board;
    }

    /// The board (with the mines: not for a fair player).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Playing, won or lost (O(1)).
    pub fn state(&self) -> GameState {
        self.state
    }

    /// The number of revealed safe cells.
    pub fn revealed_count(&self) -> usize {
        self.revealed
    }

    /// The number of safe cells still hidden (or flagged).
    pub fn safe_remaining(&self) -> usize {
        self.board.len() - self.board.mine_count() - self.revealed
    }

    /// The number of flagged cells.
    pub fn flag_count(&self) -> usize {
        self.flags
    }

    /// Every cell opened so far, in the order opened.
    pub fn opened(&self) -> &[usize] {
        &self.log
    }

    /// Whether `cell` is revealed (including an exploded mine).
    pub fn is_revealed(&self, cell: usize) -> bool {
        matches!(self.cells.get(cell), Some(&REVEALED | &EXPLODED))
    }

    /// Whether `cell` is flagged.
    pub fn is_flagged(&self, cell: usize) -> bool {
        self.cells.get(cell) == Some(&FLAGGED)
    }

    fn check(&self, cell: usize) -> Result<u8, GameError> {
        if self.state != GameState::Playing {
            return Err(GameError::Over { state: self.state });
        }
        match self.cells.get(cell) {
            None => Err(GameError::OutOfRange {
                cell,
                cells: self.cells.len(),
            }),
            Some(&REVEALED | &EXPLODED) => Err(GameError::AlreadyRevealed { cell }),
            Some(&s) => Ok(s),
        }
    }

    /// Reveals `cell`. A mine loses the game; a safe cell with no adjacent mine opens its
    /// neighbours, and so on (flagged cells stay closed).
    ///
    /// # Errors
    /// When the game is over, or `cell` is out of range, already revealed or flagged (the
    /// game is unchanged).
    pub fn reveal(&mut self, cell: usize) -> Result<Reveal<'_>, GameError> {
        if self.check(cell)? == FLAGGED {
            return Err(GameError::Flagged { cell });
        }
        let start = self.log.len();
        self.log.push(cell);
        if self.board.is_mine(cell) {
            self.cells[cell] = EXPLODED;
            self.state = GameState::Lost;
            return Ok(Reveal {
                mine: true,
                opened: &self.log[start..],
                state: self.state,
            });
        }
        self.cells[cell] = REVEALED;
        // Breadth-first flood fill, using the log itself as the queue.
        let grid = self.board.grid();
        let mut next = start;
        while let Some(&c) = self.log.get(next) {
            next += 1;
            if self.board.adjacent_mines(c) != 0 {
                continue;
            }
            for &n in grid.neighbour_slice(c) {
                let n = usize::from(n);
                if let Some(s @ &mut HIDDEN) = self.cells.get_mut(n) {
                    *s = REVEALED;
                    self.log.push(n);
                }
            }
        }
        self.revealed += self.log.len() - start;
        if self.safe_remaining() == 0 {
            self.state = GameState::Won;
        }
        Ok(Reveal {
            mine: false,
            opened: &self.log[start..],
            state: self.state,
        })
    }

    /// Flags `cell` (no change if already flagged).
    ///
    /// # Errors
    /// When the game is over, or `cell` is out of range or revealed.
    pub fn flag(&mut self, cell: usize) -> Result<(), GameError> {
        if self.check(cell)? == HIDDEN {
            self.cells[cell] = FLAGGED;
            self.flags += 1;
        }
        Ok(())
    }

    /// Removes the flag of `cell` (no change if not flagged).
    ///
    /// # Errors
    /// When the game is over, or `cell` is out of range or revealed.
    pub fn unflag(&mut self, cell: usize) -> Result<(), GameError> {
        if self.check(cell)? == FLAGGED {
            self.cells[cell] = HIDDEN;
            self.flags -= 1;
        }
        Ok(())
    }

    /// Flags or unflags `cell`; returns whether it is now flagged.
    ///
    /// # Errors
    /// When the game is over, or `cell` is out of range or revealed.
    pub fn toggle_flag(&mut self, cell: usize) -> Result<bool, GameError> {
        if self.check(cell)? == FLAGGED {
            self.cells[cell] = HIDDEN;
            self.flags -= 1;
            Ok(false)
        } else {
            self.cells[cell] = FLAGGED;
            self.flags += 1;
            Ok(true)
        }
    }

    /// What the player sees of `cell` (`None` if out of range). An exploded mine shows as
    /// [`CellView::Mine`]; other mines stay hidden even after the game ends.
    pub fn cell_view(&self, cell: usize) -> Option<CellView> {
        Some(match *self.cells.get(cell)? {
            HIDDEN => CellView::Hidden,
            FLAGGED => CellView::Flagged,
            REVEALED => CellView::Revealed(self.board.adjacent_mines(cell)),
            _ => CellView::Mine,
        })
    }

    /// The player's view of the whole board, with the total mine count.
    ///
    /// It passes the checks of [`Position::new`] and of the text format reader, however many
    /// flags the player placed (flags are not counted against the mines).
    pub fn view(&self) -> Position {
        let cells = (0..self.cells.len())
            .map(|c| self.cell_view(c).unwrap_or_default())
            .collect();
        Position::from_parts(self.board.grid().clone(), self.board.mine_count(), cells)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_with_more_flags_than_mines_is_a_valid_position() {
        let board = Board::new(3, 3, &[0]).unwrap();
        let mut g = Game::new(board);
        for c in [1, 2, 5] {
            g.flag(c).unwrap();
        }
        let view = g.view();
        let text = crate::format::text::write(&view);
        assert_eq!(crate::format::text::read(&text).unwrap(), view);
        assert!(Position::new(3, 3, 1, view.cells().to_vec()).is_ok());
    }

    #[test]
    fn reveal_flood_and_errors() {
        // *..
        // ...
        // ...
        let board = Board::new(3, 3, &[0]).unwrap();
        let mut g = Game::new(board);
        assert_eq!(
            g.reveal(9).unwrap_err().to_string(),
            "cell 9 is outside the board (9 cells)"
        );
        g.flag(1).unwrap();
        assert_eq!(g.flag_count(), 1);
        assert_eq!(
            g.reveal(1).unwrap_err().to_string(),
            "cell 1 is flagged: unflag it before revealing it"
        );
        let r = g.reveal(8).unwrap();
        assert!(!r.mine);
        assert_eq!(r.state, GameState::Playing);
        let mut opened = r.opened.to_vec();
        opened.sort_unstable();
        assert_eq!(opened, [2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            g.reveal(4).unwrap_err().to_string(),
            "cell 4 is already revealed"
        );
        assert_eq!(
            g.flag(4).unwrap_err(),
            GameError::AlreadyRevealed { cell: 4 }
        );
        assert!(!g.toggle_flag(1).unwrap());
        assert_eq!(g.flag_count(), 0);
        let r = g.reveal(1).unwrap();
        assert_eq!(r.opened, [1]);
        assert_eq!(r.state, GameState::Won);
        assert_eq!(g.state(), GameState::Won);
        assert_eq!(
            g.reveal(0).unwrap_err().to_string(),
            "the game is over: won"
        );
    }

    #[test]
    fn flags_and_the_log_of_opened_cells() {
        // .*.
        // ...
        let mut g = Game::new(Board::new(3, 2, &[1]).unwrap());
        assert!(!g.is_flagged(1) && !g.is_revealed(1));
        g.flag(1).unwrap();
        g.flag(1).unwrap();
        g.flag(0).unwrap();
        assert!(g.is_flagged(1) && g.is_flagged(0) && !g.is_flagged(2));
        assert_eq!(g.flag_count(), 2);
        g.unflag(0).unwrap();
        g.unflag(0).unwrap();
        assert!(!g.is_flagged(0) && g.is_flagged(1));
        assert_eq!(g.flag_count(), 1);
        assert!(g.toggle_flag(2).unwrap());
        assert_eq!(g.flag_count(), 2);
        assert!(!g.toggle_flag(2).unwrap());
        assert_eq!(g.flag_count(), 1);
        assert!(!g.is_flagged(6), "out of range");
        assert_eq!(
            g.unflag(6).unwrap_err(),
            GameError::OutOfRange { cell: 6, cells: 6 }
        );
        g.reveal(3).unwrap();
        g.reveal(0).unwrap();
        assert_eq!(g.opened(), [3, 0]);
        assert!(g.is_revealed(3) && g.is_revealed(0) && !g.is_revealed(4));
        assert!(!g.is_revealed(6));
        assert_eq!((g.revealed_count(), g.safe_remaining()), (2, 3));
        assert_eq!(g.view().cells()[1], CellView::Flagged);
    }

    #[test]
    fn lose() {
        let board = Board::new(2, 1, &[0]).unwrap();
        let mut g = Game::new(board.clone());
        let r = g.reveal(0).unwrap();
        assert!(r.mine);
        assert_eq!(r.opened, [0]);
        assert_eq!(g.state(), GameState::Lost);
        assert_eq!(g.view().cells(), [CellView::Mine, CellView::Hidden]);
        assert_eq!(g.flag(1).unwrap_err().to_string(), "the game is over: lost");
        g.restart(board);
        assert_eq!(g.state(), GameState::Playing);
        assert_eq!(g.reveal(1).unwrap().state, GameState::Won);
        assert_eq!(g.view().cells(), [CellView::Hidden, CellView::Revealed(1)]);
    }
}
