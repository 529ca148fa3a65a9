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
    #[doc(hidden)]
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
        // Every four, and every block of the opponent's open four, lies within two cells of a
        // stone of its line, as the other candidates do; the wider margin only adds cells
        // that the threat checks below drop.
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

    /// Every position leaves out moves (cells far from the stones, candidates past the
    /// width, moves that do not answer an open three, at the root those the engine ruled
    /// out), except where a five decides: the side to move plays its own, or blocks the
    /// opponent's, every other move losing at once. So the search proves only what forced
    /// fives prove, not a loss because the few moves it looked at lose.
    fn is_selective(&self, _moves: &[u16]) -> bool {
        !self.is_forcing()
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
        self.pos.take_back();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tests::random_board;
    use crate::threat::{ThreatLimits, ThreatSolver};
    use crate::{Board, Move, Rule};

    /// The cells where `s` would make five now, by playing each on a copy of the board.
    fn five_cells(board: &Board, s: Stone) -> Vec<usize> {
        let pos = Position::from_board(board);
        let geo = board.geometry();
        board
            .empty_cells()
            .into_iter()
            .filter(|&m| {
                // Play `s` there, whoever is to move: a pass first if it is not `s`'s turn.
                let mut b = board.clone();
                if b.side_to_move() != s {
                    let Some(&pass) = b.empty_cells().iter().find(|&&p| p != m) else {
                        return false;
                    };
                    if b.play(pass).is_err() || b.is_over() {
                        return false;
                    }
                }
                b.play(m).is_ok() && b.winner() == Some(s)
            })
            .map(|m| geo.index(usize::from(m.x), usize::from(m.y)))
            .filter(|&q| pos.is_empty_cell(q))
            .collect()
    }

    /// Move generation against brute force on random positions of both rules: with a five to
    /// play, one move that makes it; facing a four, exactly the cells that block it; facing
    /// an open three, a set of moves outside which every move (that is not a four) loses to
    /// continuous fours. The static evaluation's decided values agree.
    #[test]
    fn candidates_keep_every_move_that_does_not_lose_at_once() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(8);
        let mut reference = ThreatSolver::new();
        let mut seen = [0usize; 4];
        for g in 0..400 {
            let size = 9 + g % 3;
            let rule = if g % 2 == 0 {
                Rule::Freestyle
            } else {
                Rule::ExactlyFive
            };
            let stones = rng.random_range(5..24);
            let b = random_board(&mut rng, size, rule, (1, size as u8 - 2), stones);
            if b.is_over() {
                continue;
            }
            let game = SearchGame::new(Position::from_board(&b));
            let me = game.pos.side_to_move();
            let op = me.other();
            let mut cands = Vec::new();
            game.candidates(&mut cands);
            let cells: Vec<usize> = cands.iter().map(|&(_, q)| usize::from(q)).collect();
            let (mine, theirs) = (five_cells(&b, me), five_cells(&b, op));
            if !mine.is_empty() {
                seen[0] += 1;
                assert_eq!(cells.len(), 1, "\n{b}");
                assert!(mine.contains(&cells[0]), "\n{b}");
                assert_eq!(game.static_eval(), WIN_NEXT);
                continue;
            }
            if !theirs.is_empty() {
                seen[1] += 1;
                let mut want = theirs.clone();
                want.sort_unstable();
                let mut got = cells.clone();
                got.sort_unstable();
                assert_eq!(got, want, "\n{b}");
                if theirs.len() >= 2 {
                    assert_eq!(game.static_eval(), -LOSS_NEXT);
                }
                continue;
            }
            if game.pos.pattern_count(op, Pattern::OpenFour) == 0 {
                seen[2] += 1;
                assert!(!cells.is_empty() && cells.len() <= game.width, "\n{b}");
                continue;
            }
            seen[3] += 1;
            let mut pos = game.pos.clone();
            for q in pos.on_board_cells().collect::<Vec<_>>() {
                if !pos.is_empty_cell(q) || cells.contains(&q) {
                    continue;
                }
                assert!(pos.threat(me, q) < Threat::Four, "{q}\n{b}");
                pos.play(q);
                let loses = reference.vcf(&mut pos, &ThreatLimits::default()).is_some();
                pos.take_back();
                assert!(loses, "{:?} was left out but holds\n{b}", pos.to_move(q));
            }
        }
        assert!(seen.iter().all(|&n| n >= 10), "{seen:?}");
    }

    /// Only a five to play or to block makes the moves complete: with a four on the board
    /// the search may prove what follows, elsewhere it may not.
    #[test]
    fn only_positions_decided_by_a_five_are_searched_in_full() {
        use search_core::Game;
        let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(3);
        let (mut quiet, mut forced) = (0, 0);
        for _ in 0..200 {
            let board = random_board(&mut rng, 15, Rule::Freestyle, (3, 11), 24);
            if board.is_over() {
                continue;
            }
            let g = SearchGame::new(Position::from_board(&board));
            let me = g.pos.side_to_move();
            let five =
                !five_cells(&board, me).is_empty() || !five_cells(&board, me.other()).is_empty();
            let mut moves = Vec::new();
            g.generate_moves(&mut moves);
            assert_eq!(g.is_selective(&moves), !five);
            if five {
                forced += 1;
            } else {
                quiet += 1;
            }
        }
        assert!(quiet > 0 && forced > 0, "{quiet} {forced}");
    }

    /// In a quiet position the candidates are the `width` best cells near the stones by
    /// their ordering score, best first; the score is the threat a cell makes for the side to
    /// move plus the block it makes against the opponent, plus the cell's pattern weight.
    #[test]
    fn quiet_candidates_are_the_best_scored_cells_near_the_stones() {
        let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(4);
        let mut cut = 0;
        for g in 0..200 {
            let rule = if g % 2 == 0 {
                Rule::Freestyle
            } else {
                Rule::ExactlyFive
            };
            let b = random_board(&mut rng, 15, rule, (3, 11), 4 + g % 20);
            let mut game = SearchGame::new(Position::from_board(&b));
            let pos = &game.pos;
            let me = pos.side_to_move();
            let op = me.other();
            if b.is_over()
                || pos.five_cells(me) > 0
                || pos.five_cells(op) > 0
                || pos.pattern_count(op, Pattern::OpenFour) > 0
            {
                continue;
            }
            let mut near: Vec<(i32, u16)> = pos
                .on_board_cells()
                .filter(|&q| pos.is_empty_cell(q) && pos.has_neighbour(q))
                .map(|q| {
                    let score = ATTACK[pos.threat(me, q) as usize]
                        + DEFENCE[pos.threat(op, q) as usize]
                        + pos.cell_weight(q);
                    assert_eq!(game.move_score(me, q), score);
                    (score, q as u16)
                })
                .collect();
            near.sort_unstable_by_key(|&(score, _)| std::cmp::Reverse(score));
            game.width = 12;
            let mut got = Vec::new();
            game.candidates(&mut got);
            assert_eq!(got.len(), near.len().min(12));
            assert!(got.windows(2).all(|w| w[0].0 >= w[1].0), "best first");
            // The same scores as the best 12 (cells tied at the cut may differ).
            let scores = |v: &[(i32, u16)]| v.iter().map(|&(s, _)| s).collect::<Vec<_>>();
            assert_eq!(scores(&got), scores(&near[..got.len()]));
            let mut cells: Vec<u16> = got.iter().map(|&(_, q)| q).collect();
            for &(score, q) in &got {
                let q = usize::from(q);
                assert!(pos.is_empty_cell(q) && pos.has_neighbour(q), "cell {q}");
                assert_eq!(score, game.move_score(me, q));
            }
            cells.sort_unstable();
            cells.dedup();
            assert_eq!(cells.len(), got.len(), "no cell twice");
            cut += usize::from(near.len() > 12);
        }
        assert!(cut > 0);
    }

    /// The empty board's only candidate is its centre; moves given for the root are the
    /// root's moves at that number of stones only; a move's history slot is its cell.
    #[test]
    fn the_centre_first_root_moves_and_history_slots() {
        use search_core::Game;
        for size in [9, 15, 20] {
            let b = Board::new(size, Rule::Freestyle).unwrap();
            let mut game = SearchGame::new(Position::from_board(&b));
            let mut moves = Vec::new();
            game.generate_moves(&mut moves);
            let c = size / 2;
            assert_eq!(moves, vec![game.pos.geometry().index(c, c) as u16]);
            assert_eq!(game.history_slot(&moves[0]), Some(usize::from(moves[0])));
            game.root_moves = Some((0, vec![3, 5]));
            moves.clear();
            game.generate_moves(&mut moves);
            assert_eq!(moves, vec![3, 5]);
            game.root_moves = Some((1, vec![3, 5]));
            moves.clear();
            game.generate_moves(&mut moves);
            assert_eq!(moves.len(), 1);
        }
    }

    /// A finished game is lost for the side to move (its opponent just made five), a full
    /// board without a five is drawn, anything else goes on; the evaluation is the static one,
    /// whose decided values come first.
    #[test]
    fn outcomes_and_the_static_evaluation() {
        use search_core::{Evaluate, Game};
        let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(6);
        let mut seen = [0usize; 3];
        for g in 0..300 {
            let size = 5 + g % 3;
            let b = random_board(&mut rng, size, Rule::Freestyle, (0, size as u8 - 1), 25);
            let game = SearchGame::new(Position::from_board(&b));
            let want = if b.winner().is_some() {
                seen[0] += 1;
                Some(Outcome::Loss)
            } else if b.is_full() {
                seen[1] += 1;
                Some(Outcome::Draw)
            } else {
                seen[2] += 1;
                None
            };
            assert_eq!(game.outcome(), want, "\n{b}");
            if want.is_none() {
                assert_eq!(game.evaluate(), game.static_eval());
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
        // An open three to make an open four of, and no four against: won soon.
        let mut b = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in [(5, 7), (0, 0), (6, 7), (0, 2), (7, 7), (0, 4)] {
            b.play(Move::new(x, y)).unwrap();
        }
        let game = SearchGame::new(Position::from_board(&b));
        assert_eq!(game.static_eval(), WIN_SOON);
        // The same open three, but White has a four to block first: not won soon.
        let mut b = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in [
            (5, 7),
            (0, 0),
            (6, 7),
            (0, 1),
            (7, 7),
            (0, 2),
            (14, 14),
            (0, 3),
        ] {
            b.play(Move::new(x, y)).unwrap();
        }
        let game = SearchGame::new(Position::from_board(&b));
        assert_ne!(game.static_eval(), WIN_SOON);
        // A quiet position: the side to move's patterns count six fifths.
        let mut b = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in [(7, 7), (8, 8), (6, 7), (9, 9)] {
            b.play(Move::new(x, y)).unwrap();
        }
        let game = SearchGame::new(Position::from_board(&b));
        let (me, op) = (game.pos.side_to_move(), game.pos.side_to_move().other());
        let want = game.pos.pattern_score(me) * 6 / 5 - game.pos.pattern_score(op);
        assert_eq!(game.static_eval(), want);
        assert!(game.pos.pattern_score(me) > 0 && game.pos.pattern_score(op) > 0);
    }
}
