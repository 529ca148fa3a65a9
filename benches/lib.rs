//! Benchmarks of the gameai workspace (see `benches/`), and the `bench-report` tool that turns
//! criterion's results into the ratio tables of `docs/PERFORMANCE.md`.

/// The README's code examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The frontier of a Minesweeper constraint problem: the hidden cells in some constraint,
/// i.e. next to a revealed number (shared by the `minesweeper` benchmark and the
/// `record-positions` tool that chooses its positions).
pub fn frontier(csp: &csp_core::BoolCsp) -> usize {
    let mut seen = vec![false; csp.num_vars()];
    for c in csp.constraints() {
        for &v in &c.vars {
            seen[v] = true;
        }
    }
    seen.iter().filter(|&&b| b).count()
}

/// Search nodes the naive analysis of one recorded Minesweeper position may take: the
/// `record-positions` tool keeps only positions it solves within them, so that the
/// benchmark's naive and engine analyses run on the same positions.
pub const NAIVE_BUDGET: csp_core::Budget = csp_core::Budget {
    max_nodes: 5_000_000,
};
