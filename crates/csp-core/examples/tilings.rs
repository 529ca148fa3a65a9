//! Domino tilings of a board, counted with placement variables: with interchangeable
//! variables grouped (the default) and with the plain labelled search, side by side.
//!
//! ```sh
//! cargo run --release -p csp-core --example tilings -- 4x4 6x6
//! ```
//!
//! Each board is `WxH` with an even number of cells, at most 128.

use std::time::Instant;

use csp_core::{Budget, CspError, Family, PlacementCsp, analyze_placements};

/// One variable per domino, each with the horizontal and the vertical placements; every cell
/// must be covered.
fn problem(w: usize, h: usize) -> Result<PlacementCsp, CspError> {
    let (mut horizontal, mut vertical) = (0u128, 0u128);
    for y in 0..h {
        for x in 0..w {
            if x + 1 < w {
                horizontal |= 1 << (y * w + x);
            }
            if y + 1 < h {
                vertical |= 1 << (y * w + x);
            }
        }
    }
    let mut families = Vec::new();
    if horizontal != 0 {
        families.push(Family::new(0b11, horizontal)?);
    }
    if vertical != 0 {
        families.push(Family::new(1 | 1 << w, vertical)?);
    }
    let mut p = PlacementCsp::new(w * h)?;
    for _ in 0..w * h / 2 {
        p.add_var(families.clone())?;
    }
    p.require(if w * h == 128 {
        u128::MAX
    } else {
        (1u128 << (w * h)) - 1
    })?;
    Ok(p)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let boards: Vec<String> = std::env::args().skip(1).collect();
    let boards = if boards.is_empty() {
        vec!["4x4".to_string()]
    } else {
        boards
    };
    for board in &boards {
        let (w, h) = board
            .split_once('x')
            .and_then(|(w, h)| Some((w.parse::<usize>().ok()?, h.parse::<usize>().ok()?)))
            .ok_or_else(|| format!("`{board}`: expected WxH"))?;
        if w == 0 || h == 0 || w * h > 128 || w * h % 2 == 1 {
            return Err(format!("`{board}`: an even number of cells, 2 to 128, is needed").into());
        }
        for labelled in [false, true] {
            let mut p = problem(w, h)?;
            p.set_labelled_search(labelled);
            let t = Instant::now();
            let result = analyze_placements(&p, &Budget::default());
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let search = if labelled {
                "labelled search"
            } else {
                "grouped search "
            };
            match result {
                Ok(a) => {
                    let orders: u128 = (1..=(w * h / 2) as u128).product();
                    println!(
                        "{board}: {search}: {} tilings ({} labelled), {} nodes, {ms:.1} ms",
                        a.solutions / orders,
                        a.solutions,
                        a.nodes
                    );
                }
                Err(e) => println!("{board}: {search}: {e} ({ms:.1} ms)"),
            }
        }
    }
    Ok(())
}
