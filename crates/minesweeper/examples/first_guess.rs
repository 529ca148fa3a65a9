//! Is the solver's first guess the best one? Every cell tried on the same boards.
//!
//! When the first click shows a number, nothing else is revealed and no cell is certainly
//! safe: the next click is a guess, and the same guess on every such board. This example
//! takes the seeded boards of `gameai minesweeper eval` (the same level, first-click rule,
//! start and seed give the same boards) whose first click shows `NUMBER`, and plays each of
//! them once per candidate first guess: the candidate is clicked, then the default solver
//! plays to the end. Every candidate plays the same boards, so two candidates are compared
//! game by game, as the solver's own choice is against each of the others ("only this / only
//! the solver's": games one of the two won and the other lost; under no real difference the
//! standard deviation of their difference is the square root of their sum).
//!
//! The candidates are every hidden cell, one per class of cells that a symmetry of the board
//! fixing the first click maps onto each other (they win the same share of games in
//! expectation), or the cells given as `X,Y;X,Y;...`.
//!
//! ```sh
//! cargo run --release -p minesweeper --example first_guess -- beginner safe corner 1 6000 5
//! cargo run --release -p minesweeper --example first_guess -- intermediate safe corner 1 3000 5 "15,0;15,15;2,0;8,0;2,2;8,8"
//! ```
//! Arguments: level, first-click rule (`safe` or `none`), start (`corner`, `centre` or `X,Y`),
//! the number the first click shows (1 to 8), boards, seed, and optionally the candidates.
//! Games run on two threads; the results do not depend on it.

use minesweeper::{
    Decision, FirstClick, Game, GameState, Level, SolveError, Solver, play_from, seeded_board,
};

const USAGE: &str = "usage: first_guess LEVEL safe|none corner|centre|X,Y NUMBER BOARDS SEED \
                     [X,Y;X,Y;...]";

/// At most this many boards are drawn per board kept, before giving up on `NUMBER`.
const DRAWS_PER_BOARD: u64 = 1000;

struct Args {
    level: Level,
    rule: FirstClick,
    start: usize,
    number: u8,
    boards: usize,
    seed: u64,
    cells: Option<Vec<usize>>,
}

fn parse_args() -> Result<Args, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 6 && args.len() != 7 {
        return Err(USAGE.into());
    }
    let level: Level = args[0].parse().map_err(|e| format!("{e}"))?;
    let rule: FirstClick = args[1].parse().map_err(|e| format!("{e}"))?;
    if rule == FirstClick::Zero {
        return Err("under the zero rule the first click shows no number: use safe or none".into());
    }
    let start = level.start_cell(&args[2]).map_err(|e| format!("{e}"))?;
    let number = match args[3].parse::<u8>() {
        Ok(n @ 1..=8) => n,
        _ => {
            return Err(format!(
                "the first click's number must be 1 to 8: {}",
                args[3]
            ));
        }
    };
    let boards = args[4]
        .parse::<usize>()
        .map_err(|_| format!("not a number: {}", args[4]))?;
    let seed = args[5]
        .parse::<u64>()
        .map_err(|_| format!("not a number: {}", args[5]))?;
    let cells = match args.get(6) {
        None => None,
        Some(list) => Some(
            list.split(';')
                .map(|c| level.start_cell(c.trim()).map_err(|e| format!("{e}")))
                .collect::<Result<Vec<usize>, String>>()?,
        ),
    };
    Ok(Args {
        level,
        rule,
        start,
        number,
        boards,
        seed,
        cells,
    })
}

/// A symmetry of a `w` x `h` board: `(x, y, w, h)` to the image of `(x, y)`, or `None` when it
/// does not apply to the board (a transposition of a board that is not square).
type Symmetry = fn(usize, usize, usize, usize) -> Option<(usize, usize)>;

/// The cells `cell` is mapped to by the symmetries of a `w` x `h` board that fix `start`
/// (reflections, and on a square board the transpositions and quarter turns).
fn images(w: usize, h: usize, start: usize, cell: usize) -> Vec<usize> {
    let maps: [Symmetry; 8] = [
        |x, y, _, _| Some((x, y)),
        |x, y, w, _| Some((w - 1 - x, y)),
        |x, y, _, h| Some((x, h - 1 - y)),
        |x, y, w, h| Some((w - 1 - x, h - 1 - y)),
        |x, y, w, h| (w == h).then_some((y, x)),
        |x, y, w, h| (w == h).then_some((w - 1 - y, h - 1 - x)),
        |x, y, w, h| (w == h).then_some((w - 1 - y, x)),
        |x, y, w, h| (w == h).then_some((y, h - 1 - x)),
    ];
    let (sx, sy) = (start % w, start / w);
    let mut out: Vec<usize> = maps
        .iter()
        .filter(|m| m(sx, sy, w, h) == Some((sx, sy)))
        .filter_map(|m| m(cell % w, cell / w, w, h))
        .map(|(x, y)| y * w + x)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Clicks `first`, then lets the solver play to the end: whether the game was won.
fn finish(mut game: Game, first: usize, solver: &Solver) -> Result<bool, String> {
    game.reveal(first).map_err(|e| e.to_string())?;
    let rec = play_from(game, solver);
    match rec.error {
        Some(e) => Err(e.to_string()),
        None => Ok(rec.won),
    }
}

fn run(a: &Args) -> Result<(), String> {
    let (w, h) = (a.level.width, a.level.height);
    let (sx, sy) = (a.start % w, a.start / w);
    let around = (sx.saturating_sub(1)..=(sx + 1).min(w - 1)).count()
        * (sy.saturating_sub(1)..=(sy + 1).min(h - 1)).count()
        - 1;
    if usize::from(a.number) > around.min(a.level.mines) {
        return Err(format!(
            "the first click at {sx},{sy} cannot show {}: it has {around} neighbours and the \
             board {} mines",
            a.number, a.level.mines
        ));
    }
    // The boards whose first click shows the number: uniform given that view.
    let mut boards = Vec::new();
    let mut drawn = 0u64;
    while boards.len() < a.boards {
        if drawn >= DRAWS_PER_BOARD * a.boards as u64 {
            return Err(format!(
                "the first click shows {} on {} of {drawn} boards drawn",
                a.number,
                boards.len()
            ));
        }
        let board =
            seeded_board(&a.level, a.rule, a.start, a.seed, drawn).map_err(|e| e.to_string())?;
        drawn += 1;
        if !board.is_mine(a.start) && board.adjacent_mines(a.start) == a.number {
            boards.push(board);
        }
    }
    let Some(first) = boards.first() else {
        return Err("no boards to play".into());
    };
    let solver = Solver::default();
    let mut game = Game::new(first.clone());
    game.reveal(a.start).map_err(|e| e.to_string())?;
    if game.state() == GameState::Won {
        return Err("the first click alone wins these boards: there is no guess to study".into());
    }
    let view = game.view();
    let own = match solver.decide(&view) {
        Ok(Decision::Guess { cell, .. }) => cell,
        Ok(Decision::Safe(_)) => return Err("the first view has a certainly safe cell".into()),
        Err(SolveError::Inconsistent) => return Err("the first view is inconsistent".into()),
        Err(e) => return Err(e.to_string()),
    };
    let hidden: Vec<usize> = (0..w * h).filter(|&c| !game.is_revealed(c)).collect();
    let mut cells = match &a.cells {
        Some(list) => {
            if let Some(&c) = list.iter().find(|c| game.is_revealed(**c)) {
                return Err(format!(
                    "cell {},{} is revealed by the first click",
                    c % w,
                    c / w
                ));
            }
            list.clone()
        }
        // One cell per symmetry class: the smallest index of each.
        None => hidden
            .iter()
            .copied()
            .filter(|&c| images(w, h, a.start, c)[0] == c)
            .collect(),
    };
    // The solver's own cell stands for its class.
    let own_class = images(w, h, a.start, own);
    cells.retain(|c| !own_class.contains(c) || *c == own);
    if !cells.contains(&own) {
        cells.insert(0, own);
    }
    println!(
        "{} {} boards (seed {}, rule {}, start {},{}) whose first click shows {}: {} boards \
         drawn; the solver guesses {},{} ({} cells like it); {} candidates",
        boards.len(),
        a.level,
        a.seed,
        a.rule,
        a.start % w,
        a.start / w,
        a.number,
        drawn,
        own % w,
        own / w,
        own_class.len(),
        cells.len()
    );
    // Each candidate's wins, board by board; two threads, each taking every other candidate.
    let play = |c: usize| -> Result<Vec<bool>, String> {
        boards
            .iter()
            .map(|b| {
                if b.is_mine(c) {
                    return Ok(false);
                }
                let mut g = Game::new(b.clone());
                g.reveal(a.start).map_err(|e| e.to_string())?;
                finish(g, c, &solver)
            })
            .collect()
    };
    let wins: Result<Vec<(usize, Vec<bool>)>, String> = std::thread::scope(|s| {
        let (play, cells) = (&play, &cells);
        let parts: Vec<_> = (0..2)
            .map(|t| {
                s.spawn(move || {
                    (t..cells.len())
                        .step_by(2)
                        .map(|k| play(cells[k]).map(|w| (cells[k], w)))
                        .collect::<Result<Vec<_>, String>>()
                })
            })
            .collect();
        let mut all = Vec::new();
        for p in parts {
            all.extend(
                p.join()
                    .unwrap_or_else(|_| Err("a thread panicked".into()))?,
            );
        }
        Ok(all)
    });
    let mut wins = wins?;
    let base = wins
        .iter()
        .find(|x| x.0 == own)
        .map(|x| x.1.clone())
        .ok_or("the solver's cell was not played")?;
    let won = |v: &[bool]| v.iter().filter(|&&x| x).count();
    wins.sort_by_key(|x| (std::cmp::Reverse(won(&x.1)), x.0));
    println!("cell   class  won   win rate  only this / only the solver's  net  s.d.");
    for (c, v) in &wins {
        let only_this = v.iter().zip(&base).filter(|(x, y)| **x && !**y).count();
        let only_own = v.iter().zip(&base).filter(|(x, y)| !**x && **y).count();
        println!(
            "{:>2},{:<2}  {:>5}  {:>5}  {:>6.2}%  {:>5} / {:<5}  {:>+5}  {:>5.1}{}",
            c % w,
            c / w,
            images(w, h, a.start, *c).len(),
            won(v),
            100.0 * won(v) as f64 / boards.len() as f64,
            only_this,
            only_own,
            only_this as i64 - only_own as i64,
            ((only_this + only_own) as f64).sqrt(),
            if *c == own { "  (the solver's)" } else { "" }
        );
    }
    Ok(())
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&args) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
