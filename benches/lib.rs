//! Benchmarks of the gameai workspace (see `benches/`), and the `bench-report` tool that turns
//! criterion's results into the ratio tables of `docs/PERFORMANCE.md`.

/// The README's code examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
