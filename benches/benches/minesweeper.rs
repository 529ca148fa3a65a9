//! Minesweeper: exact mine probabilities on recorded expert positions.
//!
//! The positions are read from `benches/data/minesweeper-expert.txt`, recorded once by the
//! `record-positions` tool (`cargo run --release -p benches --bin record-positions
//! minesweeper`): where the default solver had to guess in seeded expert games (first click
//! safe, at cell 0), plus some mid-game positions, each with a frontier (hidden cells next to
//! a revealed number) of at least 15 cells. Being recorded, they stay the same when the
//! solver changes.
//!
//! - `minesweeper/expert-probabilities`: one iteration builds the solver's constraint problem
//!   of every recorded position and analyses it, either with `naive` (`analyze_naive`:
//!   backtracking over every frontier cell) or `components` (`analyze`: propagation, components,
//!   boxes). The naive analysis is exponential in the whole frontier, so only positions it
//!   finishes within [`NAIVE_BUDGET`] nodes were recorded: both functions run on exactly the
//!   same positions, and the ratio is measured on inputs the naive algorithm can handle at all.
//! - `minesweeper/median-solve`: `analyze` alone (problem prebuilt) on each single position, to
//!   read off the median exact solve time on expert positions. Ids are
//!   `pNN-<kind>-f<frontier>`, numbered by increasing frontier size.
//! - `minesweeper/binomials`: the binomial weights of the unconstrained cells, `C(480, 99)`
//!   (an empty expert board), `C(4000, 300)` and `C(65025, 12000)` (a 255x255 board), by the
//!   `naive` walk (`C(n, i + 1) = C(n, i) * (n - i) / (i + 1)`, one long multiplication and
//!   division a step) and by `BigUint::binomial`.

use benches::{NAIVE_BUDGET, frontier};
use criterion::{Criterion, criterion_group, criterion_main};
use csp_core::{BoolCsp, Budget};
use minesweeper::{Position, constraint_problem};
use std::time::Duration;

/// The recorded positions: per position a line `guess` or `mid`, the position in the text
/// format, and a blank line.
const RECORDED: &str = include_str!("../data/minesweeper-expert.txt");
/// How many positions the file holds.
const POSITIONS: usize = 30;

struct Recorded {
    view: Position,
    csp: BoolCsp,
    frontier: usize,
    kind: String,
}

fn recorded() -> Vec<Recorded> {
    // Blocks of lines between blank lines (read by lines, so that a checkout with CRLF line
    // ends reads the same).
    let mut blocks: Vec<Vec<&str>> = vec![Vec::new()];
    for line in RECORDED.lines() {
        if line.trim().is_empty() {
            blocks.push(Vec::new());
        } else if let Some(block) = blocks.last_mut() {
            block.push(line);
        }
    }
    let all: Vec<Recorded> = blocks
        .into_iter()
        .filter(|b| !b.is_empty())
        .map(|block| {
            let (kind, rows) = block.split_first().expect("a kind line, then a position");
            let text = rows.join("\n");
            let view = minesweeper::text::read(&text).expect("a recorded position");
            let (csp, _) = constraint_problem(&view).expect("consistent position");
            Recorded {
                frontier: frontier(&csp),
                view,
                csp,
                kind: kind.trim().to_owned(),
            }
        })
        .collect();
    assert_eq!(all.len(), POSITIONS, "recorded positions");
    let fronts: Vec<usize> = all.iter().map(|r| r.frontier).collect();
    eprintln!("minesweeper: {POSITIONS} recorded expert positions (frontier sizes {fronts:?})");
    all
}

fn minesweeper(c: &mut Criterion) {
    let positions = recorded();
    let budget = Budget::default();

    let mut group = c.benchmark_group("minesweeper/expert-probabilities");
    group.sample_size(10);
    group.bench_function("naive", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|r| {
                    let (csp, _) = constraint_problem(&r.view).expect("consistent");
                    let a = csp_core::analyze_naive(&csp, &NAIVE_BUDGET).expect("within budget");
                    a.probabilities.len()
                })
                .sum::<usize>()
        });
    });
    group.bench_function("components", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|r| {
                    let (csp, _) = constraint_problem(&r.view).expect("consistent");
                    let a = csp_core::analyze(&csp, &budget).expect("solvable");
                    a.probabilities.len()
                })
                .sum::<usize>()
        });
    });
    group.finish();

    let mut group = c.benchmark_group("minesweeper/median-solve");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for (i, r) in positions.iter().enumerate() {
        let id = format!("p{i:02}-{}-f{}", r.kind, r.frontier);
        group.bench_function(id, |b| {
            b.iter(|| csp_core::analyze(&r.csp, &budget).expect("solvable"));
        });
    }
    group.finish();
}

/// The naive walk from `C(n, 0)` to `C(n, k)`, one step at a time.
fn walk(n: u64, k: u64) -> csp_core::BigUint {
    let mut r = csp_core::BigUint::one();
    for i in 0..k.min(n - k) {
        r.mul_u64_assign(n - i);
        r.div_rem_u64_assign(i + 1);
    }
    r
}

fn binomials(c: &mut Criterion) {
    const CASES: [(u64, u64); 3] = [(480, 99), (4000, 300), (65_025, 12_000)];
    for (n, k) in CASES {
        assert_eq!(walk(n, k), csp_core::BigUint::binomial(n, k));
    }
    let mut group = c.benchmark_group("minesweeper/binomials");
    group.sample_size(10);
    group.bench_function("naive", |b| {
        b.iter(|| CASES.iter().map(|&(n, k)| walk(n, k).bits()).sum::<u64>());
    });
    group.bench_function("binomial", |b| {
        b.iter(|| {
            CASES
                .iter()
                .map(|&(n, k)| csp_core::BigUint::binomial(n, k).bits())
                .sum::<u64>()
        });
    });
    group.finish();
}

criterion_group!(benches, minesweeper, binomials);
criterion_main!(benches);
