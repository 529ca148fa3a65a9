//! Plays the main engine against itself and prints each move's search figures.
#![allow(clippy::unwrap_used)]
use std::time::Duration;

use gomoku::{AlphaBetaEngine, Board, Engine, Rule};

mod common;

fn main() {
    let ms: u64 = common::arg(1, "ms", 200);
    let mut board = Board::new(15, Rule::Freestyle).unwrap();
    let mut e = AlphaBetaEngine::new();
    while !board.is_over() {
        let m = e.choose_move(&board, Duration::from_millis(ms)).unwrap();
        let i = e.last_info();
        println!(
            "{:>3} {} {:<12} depth {:>2} nodes {:>8} threat {:>7} score {:>8} {:>6.1} ms {:>8.0} n/s",
            board.history().len() + 1,
            m,
            i.reason,
            i.depth,
            i.nodes,
            i.threat_nodes,
            i.score,
            i.elapsed.as_secs_f64() * 1000.0,
            i.nodes as f64 / i.elapsed.as_secs_f64()
        );
        board.play(m).unwrap();
    }
    println!("{board}\nwinner {:?}", board.winner());
}
