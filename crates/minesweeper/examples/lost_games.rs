//! Which guesses lost the games a better player might have won?
//!
//! Draws the seeded boards of `gameai minesweeper eval` (the same level, first-click rule,
//! start, games and seed give the same boards), keeps those in no coin-flip class of
//! [`bound_class`] (the boards on which the bounds of the `win_bound` example leave any
//! player every chance), plays them with the default solver and prints each lost game's
//! guesses: the cell, its exact mine probability beside the lowest of the position, and the
//! position in the text format. A summary follows: how many guesses were at the lowest
//! probability, and in how many lost games the fatal guess was not.
//!
//! ```sh
//! cargo run --release -p minesweeper --example lost_games -- beginner zero 3,3 10000 1
//! ```
//! Arguments: level, first-click rule, start (`corner`, `centre` or `X,Y`), games, seed.

use minesweeper::{
    Decision, FirstClick, Game, GameState, Level, Solver, board_bound, seeded_board, text,
};

const USAGE: &str = "usage: lost_games LEVEL RULE corner|centre|X,Y GAMES SEED";

/// Probabilities closer than this count as equal (they are ratios of exact counts).
const EQUAL: f64 = 1e-9;

/// One guess: its mine probability, the lowest of its position, and how it is printed.
struct Guess {
    p: f64,
    lowest: f64,
    shown: String,
}

fn parse_args() -> Result<(Level, FirstClick, usize, u64, u64), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 5 {
        return Err(USAGE.into());
    }
    let level: Level = args[0].parse().map_err(|e| format!("{e}"))?;
    let rule: FirstClick = args[1].parse().map_err(|e| format!("{e}"))?;
    let start = level.start_cell(&args[2]).map_err(|e| format!("{e}"))?;
    let num = |s: &String| {
        s.parse::<u64>()
            .map_err(|_| format!("not a number: {s}; {USAGE}"))
    };
    Ok((level, rule, start, num(&args[3])?, num(&args[4])?))
}

/// Plays `game` with `solver`; the guesses, and whether it was won.
fn replay(mut game: Game, solver: &Solver) -> Result<(Vec<Guess>, bool), String> {
    let mut guesses = Vec::new();
    while game.state() == GameState::Playing {
        let view = game.view();
        match solver.decide(&view).map_err(|e| e.to_string())? {
            Decision::Safe(cells) => {
                for c in cells {
                    if !game.is_revealed(c) && game.state() == GameState::Playing {
                        game.reveal(c).map_err(|e| e.to_string())?;
                    }
                }
            }
            Decision::Guess {
                cell,
                mine_probability,
                exact,
            } => {
                let all = solver.probabilities(&view).map_err(|e| e.to_string())?;
                let lowest = all.mine.iter().flatten().fold(1.0f64, |a, &b| a.min(b));
                let (x, y) = view.xy(cell);
                guesses.push(Guess {
                    p: mine_probability,
                    lowest,
                    shown: format!(
                        "guess ({x},{y}) after {} cells revealed: p = {mine_probability:.4}{}, \
                         lowest {lowest:.4}\n{}",
                        view.revealed_count(),
                        if exact { "" } else { " (estimated)" },
                        text::write(&view)
                    ),
                });
                game.reveal(cell).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok((guesses, game.state() == GameState::Won))
}

fn main() {
    let (level, rule, start, games, seed) = match parse_args() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let solver = Solver::default();
    let (mut boards, mut lost, mut guesses, mut at_lowest, mut fatal_above) = (0, 0, 0, 0, 0);
    for i in 0..games {
        let outcome = seeded_board(&level, rule, start, seed, i)
            .map_err(|e| e.to_string())
            .and_then(|board| {
                if board_bound(&board, rule, start, 8).class_sets > 0 {
                    return Ok(None);
                }
                let mut game = Game::new(board);
                game.reveal(start).map_err(|e| e.to_string())?;
                replay(game, &solver).map(Some)
            });
        let (played, won) = match outcome {
            Ok(Some(x)) => x,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("game {i}: {e}");
                std::process::exit(1);
            }
        };
        boards += 1;
        if won {
            continue;
        }
        lost += 1;
        println!("=== game {i}, lost");
        for g in &played {
            println!("{}", g.shown);
        }
        guesses += played.len();
        at_lowest += played.iter().filter(|g| g.p <= g.lowest + EQUAL).count();
        if played.last().is_some_and(|g| g.p > g.lowest + EQUAL) {
            fatal_above += 1;
        }
    }
    println!(
        "{level}, rule {rule}, start {start}, seed {seed}: {boards} of {games} boards in no \
         coin-flip class, {lost} lost; their {guesses} guesses: {at_lowest} at the lowest mine \
         probability; the fatal guess was above the lowest in {fatal_above} games"
    );
}
