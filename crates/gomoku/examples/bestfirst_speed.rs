//! The best-first engine's speed: one search from built-in opening 1 (`7,7 7,6 7,5`, White
//! to move) with a 512 MiB arena, for each budget given in milliseconds (default 200 and
//! 1000). Prints the nodes created, the expansions, the deepest leaf, the search time and the
//! nodes created per second.
//!
//! ```sh
//! cargo run --release -p gomoku --example bestfirst_speed -- 200 1000
//! ```
#![allow(clippy::unwrap_used)]
use std::time::Duration;

use gomoku::{BestFirstEngine, Board, Engine, Move, Rule};
use search_core::best_first::{BestFirstConfig, Policy};

fn main() {
    let mut budgets: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse().unwrap_or_else(|_| {
                eprintln!("cannot read `{a}` as milliseconds");
                std::process::exit(2)
            })
        })
        .collect();
    if budgets.is_empty() {
        budgets = vec![200, 1000];
    }
    println!(
        "| budget | nodes created | expansions | deepest leaf | search time | nodes per second |"
    );
    println!("|---|---|---|---|---|---|");
    for ms in budgets {
        let mut b = Board::new(15, Rule::Freestyle).unwrap();
        for (x, y) in [(7, 7), (7, 6), (7, 5)] {
            b.play(Move::new(x, y)).unwrap();
        }
        let mut e = BestFirstEngine::with_config(BestFirstConfig {
            memory_bytes: 512 << 20,
            policy: Policy::ScoreMinusVisits { visit_weight: 8 },
        });
        e.choose_move(&b, Duration::from_millis(ms)).unwrap();
        let r = e.last_search().unwrap();
        let secs = r.elapsed.as_secs_f64();
        println!(
            "| {ms} ms | {} | {} | {} plies | {:.0} ms | {:.2} M |",
            r.stats.nodes,
            r.expansions,
            r.max_depth,
            secs * 1000.0,
            r.stats.nodes as f64 / secs / 1e6
        );
    }
}
