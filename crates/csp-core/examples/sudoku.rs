//! csp-core on a puzzle it was not built for: counts the 4x4 Sudoku grids (288) and those
//! that complete a few clues, and draws one completion uniformly at random.
//!
//! ```sh
//! cargo run --release -p csp-core --example sudoku -- "1...|..2.|.3..|...4" 7
//! ```
//!
//! The clues are four rows of four characters (`1`-`4`, or `.` for an empty cell) separated
//! by `|`; the second argument seeds the draw.

use csp_core::{BoolCsp, Budget, analyze, sample};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

const B: usize = 2;
const N: usize = B * B;

/// Variable "digit `d` (0-based) at row `r`, column `c`".
fn var(r: usize, c: usize, d: usize) -> usize {
    (r * N + c) * N + d
}

/// Every cell holds one digit; every digit appears once in every row, column and box.
fn grid() -> Result<BoolCsp, csp_core::CspError> {
    let mut csp = BoolCsp::new(N * N * N);
    for i in 0..N {
        for j in 0..N {
            csp.exactly(&(0..N).map(|d| var(i, j, d)).collect::<Vec<_>>(), 1)?;
            csp.exactly(&(0..N).map(|c| var(i, c, j)).collect::<Vec<_>>(), 1)?;
            csp.exactly(&(0..N).map(|r| var(r, i, j)).collect::<Vec<_>>(), 1)?;
            let (r0, c0) = (i / B * B, i % B * B);
            let cells: Vec<usize> = (0..N).map(|k| var(r0 + k / B, c0 + k % B, j)).collect();
            csp.exactly(&cells, 1)?;
        }
    }
    Ok(csp)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let clues = args
        .next()
        .unwrap_or_else(|| "....|....|....|....".to_string());
    let seed: u64 = args.next().map_or(Ok(1), |s| s.parse())?;
    let budget = Budget::default();

    let mut csp = grid()?;
    println!("4x4 Sudoku grids: {}", analyze(&csp, &budget)?.solutions);

    let rows: Vec<&str> = clues.split('|').collect();
    if rows.len() != N || rows.iter().any(|r| r.chars().count() != N) {
        return Err(format!("clues: expected {N} rows of {N} characters, got `{clues}`").into());
    }
    for (r, row) in rows.iter().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            match ch {
                '.' => {}
                '1'..='4' => csp.exactly(&[var(r, c, ch as usize - '1' as usize)], 1)?,
                _ => return Err(format!("clues: unknown character `{ch}`").into()),
            }
        }
    }
    let a = match analyze(&csp, &budget) {
        Ok(a) => a,
        Err(csp_core::CspError::Inconsistent) => {
            println!("no grid completes these clues");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    println!("grids completing `{clues}`: {}", a.solutions);

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let s = sample(&csp, &budget, &mut rng)?;
    println!("one of them, drawn uniformly (seed {seed}):");
    for r in 0..N {
        let row: String = (0..N)
            .map(|c| {
                (0..N)
                    .find(|&d| s[var(r, c, d)])
                    .map_or('?', |d| (b'1' + d as u8) as char)
            })
            .collect();
        println!("  {row}");
    }
    Ok(())
}
