//! Prints the moves of self-play games that come closest to the time limit.
#![allow(clippy::unwrap_used)]
use std::time::{Duration, Instant};

use gomoku::{AlphaBetaEngine, Board, Engine, Rule};

mod common;

fn main() {
    let ms: u64 = common::arg(1, "ms", 30);
    let size: usize = common::arg(2, "size", 9);
    let limit = Duration::from_millis(ms);
    let mut worst = Duration::ZERO;
    for _ in 0..5 {
        let mut board = Board::new(size, Rule::Freestyle).unwrap();
        let mut engine = AlphaBetaEngine::with_memo_bytes(4 << 20);
        while !board.is_over() {
            let t = Instant::now();
            let m = engine.choose_move(&board, limit).unwrap();
            let took = t.elapsed();
            worst = worst.max(took);
            if took > limit * 8 / 10 {
                let i = engine.last_info();
                println!(
                    "{:?} {} depth {} nodes {} threat {} took {:?}",
                    i.reason,
                    board.history().len(),
                    i.depth,
                    i.nodes,
                    i.threat_nodes,
                    took
                );
            }
            board.play(m).unwrap();
        }
    }
    println!("worst {worst:?} for {limit:?}");
}
