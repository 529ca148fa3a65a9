//! How many games can any player win? An upper bound from the coin flips built into boards.
//!
//! Draws the seeded boards of `gameai minesweeper eval` (the same level, first-click rule,
//! start, games and seed give the same boards) and counts those that [`bound_set`] matches
//! with a twin: the board with the mines and safe cells of a small set exchanged (a mine
//! moved between two cells along an edge, say), which no player can tell apart from it
//! before clicking a cell of the set, and which the first-click rule makes equally likely.
//! No player wins both boards of such a couple, so no player's expected win rate exceeds
//! `1 - P(matched) / 2`. The example also plays every board with the default solver and
//! splits its wins between the matched boards (where no player averages more than one half)
//! and the others.
//!
//! ```sh
//! cargo run --release -p minesweeper --example win_bound -- beginner safe corner 10000 1
//! cargo run --release -p minesweeper --example win_bound -- expert zero 3,3 10000 1
//! ```
//! Arguments: level, first-click rule, start (`corner`, `centre` or `X,Y`), games, seed, and
//! optionally the largest set looked for (default 8 cells). Games run on two threads; the
//! results do not depend on it.

use minesweeper::{FirstClick, Level, Solver, blind_sets, bound_set, play, seeded_board};

const USAGE: &str = "usage: win_bound LEVEL RULE corner|centre|X,Y GAMES SEED [MAX_CELLS]";

/// The largest blind set looked for, unless given.
const MAX_CELLS: usize = 8;

/// One board: has a blind pair, is matched with a twin, the solver won.
type Outcome = (bool, bool, bool);

fn parse_args() -> Result<(Level, FirstClick, usize, u64, u64, usize), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 5 && args.len() != 6 {
        return Err(USAGE.into());
    }
    let level: Level = args[0].parse().map_err(|e| format!("{e}"))?;
    let rule: FirstClick = args[1].parse().map_err(|e| format!("{e}"))?;
    let start = level.start_cell(&args[2]).map_err(|e| format!("{e}"))?;
    let num = |s: &String| s.parse::<u64>().map_err(|_| format!("not a number: {s}"));
    let max_cells = match args.get(5) {
        Some(k) => num(k)? as usize,
        None => MAX_CELLS,
    };
    Ok((
        level,
        rule,
        start,
        num(&args[3])?,
        num(&args[4])?,
        max_cells,
    ))
}

fn main() {
    let (level, rule, start, games, seed, max_cells) = match parse_args() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    // One board: whether it has a blind set, is matched with a twin, and the solver won.
    let solver = Solver::default();
    let outcome = |i: u64| -> Result<Outcome, String> {
        let board = seeded_board(&level, rule, start, seed, i).map_err(|e| e.to_string())?;
        let blind = !blind_sets(&board, rule, start, max_cells).is_empty();
        let matched = bound_set(&board, rule, start, max_cells).is_some();
        let won = play(board, start, rule == FirstClick::None, &solver).won;
        Ok((blind, matched, won))
    };
    // Two threads, each taking every other board.
    let r: Result<Vec<Vec<Outcome>>, String> = std::thread::scope(|s| {
        let outcome = &outcome;
        let parts: Vec<_> = (0..2)
            .map(|t| s.spawn(move || (t..games).step_by(2).map(outcome).collect()))
            .collect();
        parts
            .into_iter()
            .map(|p| p.join().unwrap_or_else(|_| Err("a thread panicked".into())))
            .collect()
    });
    let r: Vec<Outcome> = match r {
        Ok(parts) => parts.into_iter().flatten().collect(),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let n = r.len() as f64;
    let count = |f: &dyn Fn(&Outcome) -> bool| r.iter().filter(|x| f(x)).count();
    let blind = count(&|x| x.0);
    let matched = count(&|x| x.1);
    let won = count(&|x| x.2);
    let won_matched = count(&|x| x.1 && x.2);
    let p = matched as f64 / n;
    let se = (p * (1.0 - p) / n).sqrt();
    let pct = |k: usize, of: usize| 100.0 * k as f64 / of.max(1) as f64;
    println!(
        "{} {} boards, rule {rule}, start {start}, seed {seed}: {blind} with a blind set \
         ({:.2}%), {matched} matched with a twin ({:.2}%)",
        r.len(),
        level,
        pct(blind, r.len()),
        100.0 * p
    );
    println!(
        "any player wins at most {:.2}% of these games on average (95% upper limit {:.2}%)",
        100.0 * (1.0 - p / 2.0),
        100.0 * (1.0 - (p - 1.96 * se).max(0.0) / 2.0)
    );
    println!(
        "the solver won {won} ({:.2}%): {won_matched} of the {matched} matched boards ({:.2}%), \
         {} of the other {} ({:.2}%)",
        pct(won, r.len()),
        pct(won_matched, matched),
        won - won_matched,
        r.len() - matched,
        pct(won - won_matched, r.len() - matched)
    );
}
