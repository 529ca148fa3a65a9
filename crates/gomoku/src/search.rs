//! The Gomoku position as a search-core game: threat-aware move generation, threat-first move
//! ordering and the pattern evaluation.
//!
//! Move generation prunes hard, in the way strong Gomoku programs do: a side that can make five
//! plays it; a side facing a four blocks it; a side facing an open three (a threat of an open
//! four) either makes a four of its own or plays on one of the cells where the opponent would
//! make a four (every defence of a line threat is such a cell); otherwise the candidates are the
//! empty cells within two of a stone, sorted by what they make for both colours and cut to the
//! best [`SearchGame::width`]. Alpha-beta therefore spends its nodes on the lines that matter.

use std::cell::RefCell;

use search_core::{Evaluate, Game, Keyed, Outcome};

use crate::position::{Position, Threat};
use crate::{Pattern, Stone};

/// Ordering bonus of a cell by the threat it makes for the side to move, by [`Threat`].
const ATTACK: [i32; 8] = [0, 0, 400, 3000, 350, 8000, 20000, 100_000];
/// Ordering bonus of a cell by the threat it would make for the opponent (blocking value).
const DEFENCE: [i32; 8] = [0, 0, 300, 1500, 200, 5000, 10000, 50_000];

/// Heuristic value of having five to play (the side to move wins next move).
pub const WIN_NEXT: i32 = 50_000;
/// Heuristic value of facing two fives (lost next move).
pub const LOSS_NEXT: i32 = 40_000;
/// Heuristic value of an open four to play with no four against (won in three plies).
pub const WIN_SOON: i32 = 30_000;

/// A [`Position`] searched by search-core's alpha-beta. Moves are cell indices.
#[derive(Debug, Clone)]
pub struct SearchGame {
    /// The position.
    pub pos: Position,
    /// Most candidate moves searched in a quiet position.
    pub width: usize,
    /// Moves allowed at the root (at `root_stones` stones), if restricted.
    pub root_moves: Option<(usize, Vec<u16>)>,
    /// A reused buffer for move generation.
    scratch: RefCell<Vec<(i32, u16)>>,
}

impl SearchGame {
    /// A search game on `pos` with the default width.
    #[must_use]
    pub fn new(pos: Position) -> SearchGame {
        SearchGame {
            pos,
            width: 20,
            root_moves: None,
            scratch: RefCell::new(Vec::with_capacity(256)),
        }
    }

    /// The ordering score of cell `q` for the side to move `me`.
    #[must_use]
    pub fn move_score(&self, me: Stone, q: usize) -> i32 {
        let pos = &self.pos;
        ATTACK[pos.threat(me, q) as usize]
            + DEFENCE[pos.threat(me.other(), q) as usize]
            + pos.cell_weight(q)
    }

    /// Generates the candidate moves with their ordering scores, best first.
    pub fn candidates(&self, out: &mut Vec<(i32, u16)>) {
        out.clear();
        let pos = &self.pos;
        let me = pos.side_to_move();
        let op = me.other();
        let last = pos.last();
        let mut cells = Vec::new();
        if pos.five_cells(me) > 0 {
            let mine = pos.history().iter().rev().nth(1).map(|&p| usize::from(p));
            pos.find_five_cells(me, mine, &mut cells);
            if let Some(&q) = cells.first() {
                out.push((i32::MAX, q as u16));
            }
            return;
        }
        if pos.five_cells(op) > 0 {
            pos.find_five_cells(op, last, &mut cells);
            out.extend(cells.iter().map(|&q| (i32::MAX, q as u16)));
            return;
        }
        if pos.stones() == 0 {
            let c = pos.geometry().size / 2;
            out.push((0, pos.geometry().index(c, c) as u16));
            return;
        }
        let defending = pos.pattern_count(op, Pattern::OpenFour) > 0;
        // Fours can be made up to four cells from a stone; other candidates lie within two.
        let margin = if defending { 4 } else { 2 };
        for q in pos.cells_near_stones(margin) {
            if !pos.is_empty_cell(q) {
                continue;
            }
            if defending {
                let mine = pos.threat(me, q) >= Threat::Four;
                let theirs = pos.threat(op, q) >= Threat::Four;
                if mine || theirs {
                    out.push((self.move_score(me, q), q as u16));
                }
            } else if pos.has_neighbour(q) {
                out.push((self.move_score(me, q), q as u16));
            }
        }
        let keep = if defending {
            out.len()
        } else {
            self.width.max(1)
        };
        if out.len() > keep {
            out.select_nth_unstable_by(keep - 1, |a, b| b.0.cmp(&a.0));
            out.truncate(keep);
        }
        out.sort_unstable_by_key(|a| std::cmp::Reverse(a.0));
    }

    /// The static evaluation for the side to move.
    #[must_use]
    pub fn static_eval(&self) -> i32 {
        let pos = &self.pos;
        let me = pos.side_to_move();
        let op = me.other();
        if pos.five_cells(me) > 0 {
            return WIN_NEXT;
        }
        if pos.five_cells(op) >= 2 {
            return -LOSS_NEXT;
        }
        if pos.five_cells(op) == 0 && pos.pattern_count(me, Pattern::OpenFour) > 0 {
            return WIN_SOON;
        }
        pos.pattern_score(me) * 6 / 5 - pos.pattern_score(op)
    }

    /// The threat a move on `q` makes for the side to move.
    #[must_use]
    pub fn threat(&self, q: usize) -> Threat {
        self.pos.threat(self.pos.side_to_move(), q)
    }
}

impl Game for SearchGame {
    type Move = u16;

    fn generate_moves(&self, moves: &mut Vec<u16>) {
        if let Some((n, list)) = &self.root_moves
            && *n == self.pos.stones()
        {
            moves.extend_from_slice(list);
            return;
        }
        let mut c = self.scratch.take();
        self.candidates(&mut c);
        moves.extend(c.iter().map(|&(_, q)| q));
        self.scratch.replace(c);
    }

    fn history_slot(&self, mv: &u16) -> Option<usize> {
        Some(usize::from(*mv))
    }

    /// A four on the board (either side's) makes the next move forced or winning: such
    /// positions are searched past the horizon instead of evaluated.
    fn is_forcing(&self) -> bool {
        let me = self.pos.side_to_move();
        self.pos.five_cells(me) > 0 || self.pos.five_cells(me.other()) > 0
    }

    fn play(&mut self, mv: &u16) {
        self.pos.play(usize::from(*mv));
    }

    fn undo(&mut self, _mv: &u16) {
        self.pos.undo();
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.pos.winner().is_some() {
            Some(Outcome::Loss)
        } else if self.pos.is_full() {
            Some(Outcome::Draw)
        } else {
            None
        }
    }
}

impl Keyed for SearchGame {
    type Key = u64;
    fn key(&self) -> u64 {
        self.pos.key()
    }
}

impl Evaluate for SearchGame {
    fn evaluate(&self) -> i32 {
        self.static_eval()
    }
}
