//! The main engine against the article's best-first engine: openings of three stones, each
//! played twice with colours swapped, at equal time per move.
#![allow(clippy::unwrap_used)]
use std::time::Duration;

use gomoku::{AlphaBetaEngine, BestFirstEngine, Board, Engine, Move, Rule, Stone};

mod common;

fn main() {
    let ms: u64 = common::arg(1, "ms", 100);
    let openings: [[(u8, u8); 3]; 8] = [
        [(7, 7), (8, 8), (6, 8)],
        [(7, 7), (7, 8), (9, 9)],
        [(7, 7), (6, 6), (8, 5)],
        [(7, 7), (8, 7), (6, 5)],
        [(7, 7), (9, 7), (7, 9)],
        [(7, 7), (8, 6), (5, 7)],
        [(7, 7), (6, 8), (9, 8)],
        [(7, 7), (7, 9), (8, 5)],
    ];
    let limit = Duration::from_millis(ms);
    let mut points = 0.0;
    let mut games = 0;
    for o in openings {
        for ab_black in [true, false] {
            let mut board = Board::new(15, Rule::Freestyle).unwrap();
            for (x, y) in o {
                board.play(Move::new(x, y)).unwrap();
            }
            let mut ab = AlphaBetaEngine::new();
            let mut bf = BestFirstEngine::new();
            while !board.is_over() {
                // After three opening stones White is to move.
                let ab_turn = (board.side_to_move() == Stone::Black) == ab_black;
                let m = if ab_turn {
                    ab.choose_move(&board, limit).unwrap()
                } else {
                    bf.choose_move(&board, limit).unwrap()
                };
                board.play(m).unwrap();
            }
            let ab_stone = if ab_black { Stone::Black } else { Stone::White };
            let p = match board.winner() {
                Some(w) if w == ab_stone => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            points += p;
            games += 1;
            println!(
                "opening {o:?} alpha-beta {ab_stone:?}: {p} ({} moves)",
                board.history().len()
            );
            if p < 1.0 {
                println!("{board}");
            }
        }
    }
    println!("alpha-beta {points} / {games}");
}
