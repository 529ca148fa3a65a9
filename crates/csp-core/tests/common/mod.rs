//! Problem generators shared by the integration tests.

use csp_core::BoolCsp;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A Minesweeper-like problem: `k` constraints over windows of up to 5 consecutive variables
/// (like a number's neighbourhood), counts taken from a hidden assignment with true-density
/// `density` and now and then lowered by one (so the problem is sometimes inconsistent).
/// Returns the problem (without a total) and the hidden assignment.
pub fn windows(n: usize, seed: u64, k: usize, density: f64) -> (BoolCsp, Vec<bool>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let hidden: Vec<bool> = (0..n).map(|_| rng.random_bool(density)).collect();
    let mut csp = BoolCsp::new(n);
    for _ in 0..k {
        let len = rng.random_range(1..=n.min(5));
        let start = rng.random_range(0..=n - len);
        let vars: Vec<usize> = (start..start + len).collect();
        let mut c = vars.iter().filter(|&&v| hidden[v]).count() as u32;
        if rng.random_bool(0.1) {
            c = c.saturating_sub(1);
        }
        csp.exactly(&vars, c)
            .expect("window variables are distinct and in range");
    }
    (csp, hidden)
}
