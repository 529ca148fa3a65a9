//! Finds positions with long forced wins by continuous fours, for the solver's test set: plays
//! seeded semi-random games (a random pick among the engine's best candidates) and prints every
//! position whose side to move has a VCF of at least the given number of plies.
#![allow(clippy::unwrap_used)]
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use gomoku::{Board, Move, Position, Rule, SearchGame, ThreatLimits, ThreatSolver};

mod common;

fn main() {
    let min_len: usize = common::arg(1, "min len", 15);
    let games: u64 = common::arg(2, "games", 200);
    let mut solver = ThreatSolver::new();
    for seed in 0..games {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut board = Board::new(15, Rule::Freestyle).unwrap();
        board.play(Move::new(7, 7)).unwrap();
        while !board.is_over() && board.history().len() < 60 {
            let mut pos = Position::from_board(&board);
            let limits = ThreatLimits {
                vcf_depth: 20,
                ..ThreatLimits::default()
            };
            if let Some(line) = solver.vcf(&mut pos, &limits) {
                if line.len() >= min_len {
                    let moves: Vec<String> = board
                        .history()
                        .iter()
                        .map(|m| format!("{},{}", m.x, m.y))
                        .collect();
                    println!("{} plies: {}", line.len(), moves.join(" "));
                }
                break;
            }
            let g = SearchGame::new(pos);
            let mut c = Vec::new();
            g.candidates(&mut c);
            let k = c.len().min(4);
            let (_, q) = c[rng.random_range(0..k)];
            board.play(g.pos.to_move(usize::from(q))).unwrap();
        }
    }
}
