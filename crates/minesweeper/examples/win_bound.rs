//! How many games can any player win? An upper bound from the coin flips built into boards.
//!
//! Draws the seeded boards of `gameai minesweeper eval` (the same level, first-click rule,
//! start, games and seed give the same boards) and puts them in the classes of
//! [`bound_class`]: a board with `k` independent coin flips built in (small sets of cells
//! whose mines and safe cells can be exchanged unseen, such as a mine that could be on
//! either of two cells along an edge) has `2^k - 1` equally likely twins that no player can
//! tell apart from it, and no player wins more than one board of the class. So no player's
//! expected win rate exceeds the mean of `2^-k` (1 for boards in no class). It also prints
//! the bound of [`board_bound`], which replaces a board's share by the survival chance of the
//! guess its first view forces, when that view has no safe cell. The example also plays every
//! board with the default solver and splits its wins between the boards in a class and the
//! others.
//!
//! ```sh
//! cargo run --release -p minesweeper --example win_bound -- beginner safe corner 10000 1
//! cargo run --release -p minesweeper --example win_bound -- expert zero 3,3 10000 1
//! ```
//! Arguments: level, first-click rule, start (`corner`, `centre` or `X,Y`), games, seed, and
//! optionally the largest set looked for (default 8 cells). Games run on two threads; the
//! results do not depend on it.

use minesweeper::{
    FirstClick, Level, Shares, Solver, blind_sets, board_bound, play, seeded_board, win_bound,
};

const USAGE: &str = "usage: win_bound LEVEL RULE corner|centre|X,Y GAMES SEED [MAX_CELLS]";

/// The largest blind set looked for, unless given.
const MAX_CELLS: usize = 8;

/// One board: has a blind set, the solver won, and its shares of the bounds
/// ([`board_bound`], which also gives the number of sets of its class).
type Outcome = (bool, bool, Shares);

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
    // One board: whether it has a blind set, the sets of its class, and whether the solver
    // won.
    let solver = Solver::default();
    let outcome = |i: u64| -> Result<Outcome, String> {
        let board = seeded_board(&level, rule, start, seed, i).map_err(|e| e.to_string())?;
        let blind = !blind_sets(&board, rule, start, max_cells).is_empty();
        let share = board_bound(&board, rule, start, max_cells);
        let won = play(board, start, rule == FirstClick::None, &solver).won;
        Ok((blind, won, share))
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
    let count = |f: &dyn Fn(&Outcome) -> bool| r.iter().filter(|x| f(x)).count();
    let blind = count(&|x| x.0);
    let in_class = count(&|x| x.2.class_sets > 0);
    let several = count(&|x| x.2.class_sets > 1);
    let won = count(&|x| x.1);
    let won_class = count(&|x| x.2.class_sets > 0 && x.1);
    // The most any player can win of the boards in a class, on average over them.
    let class_cap = r
        .iter()
        .filter(|x| x.2.class_sets > 0)
        .map(|x| x.2.coin_flips)
        .fold(0.0, |a, b| a + b);
    let flips: Vec<f64> = r.iter().map(|x| x.2.coin_flips).collect();
    let (bound, upper) = win_bound(&flips);
    let pct = |k: usize, of: usize| 100.0 * k as f64 / of.max(1) as f64;
    println!(
        "{} {} boards, rule {rule}, start {start}, seed {seed}, sets of up to {max_cells} cells: \
         {blind} with a blind set ({:.2}%), {in_class} in a class ({:.2}%), {several} of them \
         with several sets",
        r.len(),
        level,
        pct(blind, r.len()),
        pct(in_class, r.len()),
    );
    println!(
        "coin flips alone: any player wins at most {:.2}% of these games on average (95% \
         upper limit {:.2}%)",
        100.0 * bound,
        100.0 * upper
    );
    // Boards whose first view forces a guess are bounded by that guess instead of their class.
    let shares: Vec<f64> = r.iter().map(|x| x.2.first_guess).collect();
    let (both, both_upper) = win_bound(&shares);
    println!(
        "counting the first click's forced guess too (board_bound): any player wins at most \
         {:.2}% (95% upper limit {:.2}%)",
        100.0 * both,
        100.0 * both_upper
    );
    println!(
        "the solver won {won} ({:.2}%): {won_class} of the {in_class} boards in a class \
         ({:.2}%; any player at most {:.2}% on average), {} of the other {} ({:.2}%)",
        pct(won, r.len()),
        pct(won_class, in_class),
        100.0 * class_cap / in_class.max(1) as f64,
        won - won_class,
        r.len() - in_class,
        pct(won - won_class, r.len() - in_class)
    );
}
