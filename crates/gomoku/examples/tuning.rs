//! Compares alpha-beta enhancements at a fixed depth on a few middle-game positions.
#![allow(clippy::unwrap_used)]
use std::time::{Duration, Instant};

use gomoku::{AlphaBetaEngine, Board, Rule};
use gomoku::{Position, SearchGame};
use search_core::{Limits, SearchConfig, Searcher, Tuning};

mod common;

fn positions() -> Vec<Board> {
    // Middle games reached by the engine playing itself quickly from a few openings.
    let mut out = Vec::new();
    for opening in [
        [(7u8, 7u8), (8, 8), (6, 8)],
        [(7, 7), (7, 8), (9, 9)],
        [(7, 7), (6, 6), (8, 5)],
    ] {
        let mut b = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in opening {
            b.play(gomoku::Move::new(x, y)).unwrap();
        }
        let mut e = AlphaBetaEngine::with_memo_bytes(1 << 20);
        for _ in 0..8 {
            let m = e
                .choose_move_limited(&b, Duration::from_secs(10), Some(3))
                .unwrap();
            b.play(m).unwrap();
        }
        out.push(b);
    }
    out
}

fn main() {
    let depth: u32 = common::arg(1, "depth", 6);
    let ps = positions();
    let variants: [(&str, Tuning); 7] = [
        ("plain", Tuning::PLAIN),
        (
            "pvs",
            Tuning {
                pvs: true,
                ..Tuning::PLAIN
            },
        ),
        (
            "pvs+asp300",
            Tuning {
                pvs: true,
                aspiration: Some(300),
                ..Tuning::PLAIN
            },
        ),
        (
            "pvs+lmr(4,3)",
            Tuning {
                pvs: true,
                late_move_reductions: Some((4, 3)),
                ..Tuning::PLAIN
            },
        ),
        (
            "pvs+history",
            Tuning {
                pvs: true,
                history: true,
                ..Tuning::PLAIN
            },
        ),
        (
            "pvs+killers",
            Tuning {
                pvs: true,
                killers: true,
                ..Tuning::PLAIN
            },
        ),
        ("engine", AlphaBetaEngine::TUNING),
    ];
    for (name, t) in variants {
        let mut nodes = 0;
        let start = Instant::now();
        for b in &ps {
            let mut s = Searcher::with_tuning(
                SearchConfig {
                    memo_bytes: 16 << 20,
                    merge_moves: false,
                    symmetry: false,
                },
                t,
            );
            let mut g = SearchGame::new(Position::from_board(b));
            let r = s.search(&mut g, &Limits::depth(depth));
            nodes += r.stats.nodes;
        }
        let s = start.elapsed().as_secs_f64();
        println!(
            "{name:<18} nodes {nodes:>9} time {:>7.3}s {:>9.0} n/s",
            s,
            nodes as f64 / s
        );
    }
}
