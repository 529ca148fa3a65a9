//! Domino tilings of a board, counted with placement variables: with interchangeable
//! variables grouped (the default) and with the plain labelled search, side by side, and
//! without labels (`analyze_placements_unlabelled`).
//!
//! ```sh
//! cargo run --release -p csp-core --example tilings -- 4x4 6x6
//! ```
//!
//! Each board is `WxH` with an even number of cells, at most 128. The first two counts are
//! labelled (each tiling once per order of its interchangeable dominoes, `(cells / 2)!`
//! orders), and a labelled count past `u128::MAX >> 7` is an error,
//! `CspError::CountOverflow`: 6x6 (18 dominoes) is counted, 8x8 (32 dominoes, about
//! `3 · 10^42` labelled tilings) is not. The unlabelled count is the number of tilings.

use std::time::Instant;

use csp_core::{
    Budget, CspError, Family, Grid, PlacementCsp, analyze_placements, analyze_placements_unlabelled,
};

/// One variable per domino, each with the horizontal and the vertical placements; every cell
/// must be covered.
fn problem(w: usize, h: usize) -> Result<PlacementCsp, CspError> {
    let grid = Grid::new(w, h)?;
    let families: Vec<Family> = [
        grid.translates(&[(0, 0), (1, 0)])?,
        grid.translates(&[(0, 0), (0, 1)])?,
    ]
    .into_iter()
    .filter(|f| !f.is_empty())
    .collect();
    let mut p = PlacementCsp::new(grid.cells())?;
    for _ in 0..grid.cells() / 2 {
        p.add_var(families.clone())?;
    }
    p.require(grid.all())?;
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
        for search in ["grouped search ", "labelled search", "unlabelled     "] {
            let mut p = problem(w, h)?;
            p.set_labelled_search(search == "labelled search");
            let t = Instant::now();
            let result = if search == "unlabelled     " {
                analyze_placements_unlabelled(&p, &Budget::default())
            } else {
                analyze_placements(&p, &Budget::default())
            };
            let ms = t.elapsed().as_secs_f64() * 1e3;
            match result {
                Ok(a) if search == "unlabelled     " => {
                    println!(
                        "{board}: {search}: {} tilings, {} nodes, {ms:.1} ms",
                        a.solutions, a.nodes
                    );
                }
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
