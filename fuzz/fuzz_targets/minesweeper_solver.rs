//! The solver on arbitrary text positions.
//!
//! `probabilities`, `decide` and `analyze` must never panic (errors are fine). When the
//! probabilities are computed, every unrevealed cell has a finite probability in [0, 1] and
//! every revealed cell none; the cells the solver calls safe are exactly those of probability
//! 0 (a guess only when there is none), and a guess is a cell the player may click (hidden or
//! flagged, not a known mine). `analyze` agrees with the
//! other two, and with a tiny budget (the fallback's estimates) keeps the same shape and makes
//! the fallback's move. Positions are kept small and the search budget low, so that each run
//! stays fast.
#![no_main]

use libfuzzer_sys::fuzz_target;
use minesweeper::{CellView, Decision, Probabilities, Solver, SolverConfig};

/// Larger positions are skipped.
const MAX_CELLS: usize = 400;
/// Positions with more unrevealed cells next to a revealed number are skipped.
const MAX_FRONTIER: usize = 60;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(position) = minesweeper::text::read(input) else {
        return;
    };
    if position.width() * position.height() > MAX_CELLS {
        return;
    }
    let cells = position.cells();
    let frontier = (0..cells.len())
        .filter(|&c| {
            !cells[c].is_revealed() && position.neighbours(c).any(|n| cells[n].is_revealed())
        })
        .count();
    if frontier > MAX_FRONTIER {
        return;
    }
    // Every other input (by the sum of its bytes, so that the corpus stays plain positions)
    // looks two guesses ahead, as the default opening and `--depth 2` do, on fewer frontier
    // cells; the others one guess ahead, in the opening too. With a small endgame budget,
    // every part of the solver runs, none for long.
    let deep = data.iter().fold(0u8, |a, &b| a.wrapping_add(b)) % 2 == 1 && frontier <= 30;
    let depth = if deep { 2 } else { 1 };
    let solver = Solver::new(SolverConfig {
        budget: csp_core::Budget { max_nodes: 200_000 },
        depth,
        max_candidates: if deep {
            4
        } else {
            SolverConfig::default().max_candidates
        },
        second_candidates: 3,
        opening_depth: depth,
        endgame_work: 20_000,
        ..SolverConfig::default()
    });
    let shaped = |p: &Probabilities| {
        assert_eq!(p.mine.len(), cells.len());
        for (c, (view, prob)) in cells.iter().zip(&p.mine).enumerate() {
            match (view.is_revealed(), prob) {
                (true, None) => {}
                (false, Some(x)) => {
                    assert!(x.is_finite() && (0.0..=1.0).contains(x), "cell {c}: {x}");
                }
                _ => panic!("cell {c} ({view:?}) has probability {prob:?}"),
            }
        }
    };
    let probabilities = solver.probabilities(&position).ok();
    if let Some(p) = &probabilities {
        shaped(p);
    }
    let decided = solver.decide(&position);
    if let Ok(seen) = solver.analyze(&position) {
        shaped(&seen.probabilities);
        if seen.exact {
            assert_eq!(Some(&seen.probabilities), probabilities.as_ref());
        }
        assert_eq!(seen.decision.as_ref(), decided.as_ref().ok());
    }
    // Over the budget at once: the fallback's estimates and move.
    let starved = Solver::new(SolverConfig {
        budget: csp_core::Budget { max_nodes: 20 },
        ..SolverConfig::default()
    });
    if let Ok(seen) = starved.analyze(&position) {
        shaped(&seen.probabilities);
        assert_eq!(seen.decision, starved.decide(&position).ok());
    }
    let Ok(decision) = decided else {
        return;
    };
    let prob = |c: usize| probabilities.as_ref().and_then(|p| p.mine[c]);
    // The cells certainly safe, by the exact probabilities (an exact 0 is a forced value:
    // with at most 400 cells no ratio of counts rounds to 0).
    let certain: Vec<usize> = (0..cells.len()).filter(|&c| prob(c) == Some(0.0)).collect();
    match decision {
        Decision::Safe(safe) => {
            assert!(!safe.is_empty());
            for c in &certain {
                assert!(safe.contains(c), "certainly safe cell {c} not revealed");
            }
            for c in safe {
                assert!(
                    matches!(cells[c], CellView::Hidden | CellView::Flagged),
                    "safe cell {c} is {:?}",
                    cells[c]
                );
                if let Some(x) = prob(c) {
                    assert!(x.abs() < 1e-9, "safe cell {c} has mine probability {x}");
                }
            }
        }
        Decision::Guess {
            cell,
            mine_probability,
            ..
        } => {
            assert!(certain.is_empty(), "a guess beside safe cells {certain:?}");
            assert!(
                matches!(cells[cell], CellView::Hidden | CellView::Flagged),
                "guess {cell} is {:?}",
                cells[cell]
            );
            assert!(
                mine_probability.is_finite() && (0.0..1.0).contains(&mine_probability),
                "guess {cell} has mine probability {mine_probability}"
            );
            if let Some(x) = prob(cell) {
                assert_eq!(x, mine_probability, "guess {cell}");
            }
        }
    }
});
