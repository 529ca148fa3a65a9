//! Exact expected shots of the optimal and the greedy strategy on a small board.
//!
//! ```sh
//! cargo run --release -p battleship --example optimal_gap -- 4 4 3,2 standard
//! ```
//! Arguments: width, height, ship lengths, `standard` or `no-touch`, and optionally a
//! feedback rule (default `standard`) and the most knowledge states stored (default
//! `ExactLimits::default()`'s, 4 million; about 120 bytes each).

use std::time::Instant;

use battleship::optimal::{ExactLimits, Strategy, exact_mean_shots};
use battleship::{Adjacency, Feedback, Geometry, Rules};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        return Err(
            "usage: optimal_gap WIDTH HEIGHT LENGTHS standard|no-touch [FEEDBACK [MAX_STATES]]"
                .into(),
        );
    }
    let lens: Vec<usize> = args[2]
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let adjacency = match args[3].as_str() {
        "standard" => Adjacency::Allowed,
        "no-touch" => Adjacency::NoTouch,
        other => return Err(format!("unknown adjacency {other}").into()),
    };
    let feedback = match args.get(4).map(String::as_str) {
        None => Feedback::Standard,
        Some(name) => Feedback::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| format!("unknown feedback {name}"))?,
    };
    let rules = Rules {
        adjacency,
        feedback,
        ..Rules::with_lengths(args[0].parse()?, args[1].parse()?, &lens)
    };
    let geo = Geometry::new(&rules)?;
    let mut limits = ExactLimits::default();
    if let Some(n) = args.get(5) {
        limits.max_states = n.parse()?;
    }
    let mut values = Vec::new();
    for s in [Strategy::Optimal, Strategy::Greedy] {
        let t = Instant::now();
        let v = exact_mean_shots(&geo, s, &limits)?;
        println!(
            "{s:?}: {:.4} shots ({} fleets, {} states, {:.1} s, first shots {:?})",
            v.mean_shots,
            v.fleets,
            v.states,
            t.elapsed().as_secs_f64(),
            v.first_shots
        );
        values.push(v.mean_shots);
    }
    println!(
        "greedy - optimal = {:.4} shots ({:.2}%)",
        values[1] - values[0],
        100.0 * (values[1] - values[0]) / values[0]
    );
    Ok(())
}
