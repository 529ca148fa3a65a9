//! Minesweeper: exact mine probabilities on recorded expert positions.
//!
//! The positions are recorded once, deterministically: seeded expert games (first click safe,
//! at cell 0) are played by the default solver, and the positions where it had to guess, plus
//! some mid-game positions, are kept when their frontier (hidden cells next to a revealed
//! number) has at least [`MIN_FRONTIER`] cells.
//!
//! - `minesweeper/expert-probabilities`: one iteration builds the solver's constraint problem
//!   of every recorded position and analyses it, either with `naive` (`analyze_naive`:
//!   backtracking over every frontier cell) or `components` (`analyze`: propagation, components,
//!   boxes). The naive analysis is exponential in the whole frontier, so a position is only
//!   recorded when it finishes within [`NAIVE_BUDGET`] nodes (positions where it does not are
//!   skipped and counted on stderr): both functions run on exactly the same positions, and the
//!   ratio is measured on inputs the naive algorithm can handle at all.
//! - `minesweeper/median-solve`: `analyze` alone (problem prebuilt) on each single position, to
//!   read off the median exact solve time on expert positions. Ids are
//!   `pNN-<kind>-f<frontier>`, numbered by increasing frontier size.
//! - `minesweeper/binomials`: the binomial weights of the unconstrained cells, `C(480, 99)`
//!   (an empty expert board), `C(4000, 300)` and `C(65025, 12000)` (a 255x255 board), by the
//!   `naive` walk (`C(n, i + 1) = C(n, i) * (n - i) / (i + 1)`, one long multiplication and
//!   division a step) and by `BigUint::binomial`.

use criterion::{Criterion, criterion_group, criterion_main};
use csp_core::{BoolCsp, Budget, CspError};
use minesweeper::{
    Decision, FirstClick, Game, GameState, Level, Position, Solver, constraint_problem,
    seeded_board,
};
use std::time::Duration;

const SEED: u64 = 2024;
/// Positions where the solver guessed, and mid-game positions (solver certain), to record.
const GUESSES: usize = 20;
const MID_GAME: usize = 10;
/// A mid-game candidate every this many decisions.
const MID_GAME_EVERY: u32 = 12;
const MIN_FRONTIER: usize = 15;
/// Games to play at most while recording.
const MAX_GAMES: u64 = 1000;
/// Search nodes allowed to the naive analysis of one position when recording it.
const NAIVE_BUDGET: Budget = Budget {
    max_nodes: 5_000_000,
};

struct Recorded {
    view: Position,
    csp: BoolCsp,
    frontier: usize,
    kind: &'static str,
}

/// Hidden cells in some constraint, i.e. next to a revealed number.
fn frontier(csp: &BoolCsp) -> usize {
    let mut seen = vec![false; csp.num_vars()];
    for c in csp.constraints() {
        for &v in &c.vars {
            seen[v] = true;
        }
    }
    seen.iter().filter(|&&b| b).count()
}

fn record() -> Vec<Recorded> {
    let solver = Solver::default();
    let (mut guesses, mut mid) = (Vec::new(), Vec::new());
    let mut skipped = 0;
    let mut games = 0;
    'games: for i in 0..MAX_GAMES {
        games += 1;
        let board =
            seeded_board(&Level::EXPERT, FirstClick::Safe, 0, SEED, i).expect("expert board");
        let mut game = Game::new(board);
        game.reveal(0).expect("first click");
        let mut decisions = 0u32;
        while game.state() == GameState::Playing {
            let view = game.view();
            let decision = solver.decide(&view).expect("solver decides");
            decisions += 1;
            let kind = match decision {
                Decision::Guess { .. } if guesses.len() < GUESSES => Some("guess"),
                Decision::Safe(_)
                    if mid.len() < MID_GAME && decisions.is_multiple_of(MID_GAME_EVERY) =>
                {
                    Some("mid")
                }
                _ => None,
            };
            if let Some(kind) = kind {
                let (csp, _) = constraint_problem(&view).expect("consistent position");
                let f = frontier(&csp);
                if f >= MIN_FRONTIER {
                    match csp_core::analyze_naive(&csp, &NAIVE_BUDGET) {
                        Ok(_) => {
                            let r = Recorded {
                                view: view.clone(),
                                csp,
                                frontier: f,
                                kind,
                            };
                            if kind == "guess" {
                                guesses.push(r);
                            } else {
                                mid.push(r);
                            }
                        }
                        Err(CspError::BudgetExceeded { .. }) => skipped += 1,
                        Err(e) => panic!("naive analysis: {e}"),
                    }
                }
            }
            if guesses.len() == GUESSES && mid.len() == MID_GAME {
                break 'games;
            }
            match decision {
                Decision::Safe(cells) => {
                    for c in cells {
                        if !game.is_revealed(c) && game.state() == GameState::Playing {
                            game.reveal(c).expect("safe reveal");
                        }
                    }
                }
                Decision::Guess { cell, .. } => {
                    game.reveal(cell).expect("guess reveal");
                }
            }
        }
    }
    let mut all: Vec<Recorded> = guesses.into_iter().chain(mid).collect();
    all.sort_by_key(|r| r.frontier);
    let fronts: Vec<usize> = all.iter().map(|r| r.frontier).collect();
    eprintln!(
        "minesweeper: {} expert positions from {games} games (frontier sizes {fronts:?}); \
         {skipped} candidates skipped: naive analysis over {} nodes",
        all.len(),
        NAIVE_BUDGET.max_nodes
    );
    all
}

fn minesweeper(c: &mut Criterion) {
    let positions = record();
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
