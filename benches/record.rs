//! Records the inputs of the `minesweeper` and `battleship` benchmarks into `benches/data`,
//! which the benchmarks read, so that their inputs stay the same when the players that made
//! them change:
//!
//! ```sh
//! cargo run --release -p benches --bin record-positions minesweeper > benches/data/minesweeper-expert.txt
//! cargo run --release -p benches --bin record-positions battleship > benches/data/battleship-games.txt
//! ```
//!
//! Minesweeper: seeded expert games (first click safe, at cell 0) are played by the default
//! solver, and the positions where it had to guess, plus some mid-game positions, are kept
//! when their frontier (hidden cells next to a revealed number) has at least
//! [`MIN_FRONTIER`] cells and the naive analysis finishes within [`NAIVE_BUDGET`] nodes
//! (both analyses must run on the same positions). Each position is written as a line
//! `guess` or `mid`, the position in the text format, and a blank line, in order of
//! increasing frontier.
//!
//! Battleship: seeded standard games, whole, as fleets and the cells shot (see
//! `battleship_games`); the benchmark takes its positions along them.

use benches::{NAIVE_BUDGET, frontier};
use csp_core::CspError;
use minesweeper::{
    Decision, FirstClick, Game, GameState, Level, Position, Solver, constraint_problem,
    seeded_board,
};

const SEED: u64 = 2024;
/// Positions where the solver guessed, and mid-game positions (solver certain), to record.
const GUESSES: usize = 20;
const MID_GAME: usize = 10;
/// A mid-game candidate every this many decisions.
const MID_GAME_EVERY: u32 = 12;
const MIN_FRONTIER: usize = 15;
/// Games to play at most while recording.
const MAX_GAMES: u64 = 1000;

struct Recorded {
    view: Position,
    frontier: usize,
    kind: &'static str,
}

fn record() -> Vec<Recorded> {
    let solver = Solver::default();
    let (mut guesses, mut mid) = (Vec::new(), Vec::new());
    let mut skipped = 0;
    let mut games = 0;
    'games: for i in 0..MAX_GAMES {
        games += 1;
        let board =
            seeded_board(&Level::EXPERT, FirstClick::Safe, 0, SEED, i).expect("expert board");
        let mut game = Game::new(board);
        game.reveal(0).expect("first click");
        let mut decisions = 0u32;
        while game.state() == GameState::Playing {
            let view = game.view();
            let decision = solver.decide(&view).expect("solver decides");
            decisions += 1;
            let kind = match decision {
                Decision::Guess { .. } if guesses.len() < GUESSES => Some("guess"),
                Decision::Safe(_)
                    if mid.len() < MID_GAME && decisions.is_multiple_of(MID_GAME_EVERY) =>
                {
                    Some("mid")
                }
                _ => None,
            };
            if let Some(kind) = kind {
                let (csp, _) = constraint_problem(&view).expect("consistent position");
                let f = frontier(&csp);
                if f >= MIN_FRONTIER {
                    match csp_core::analyze_naive(&csp, &NAIVE_BUDGET) {
                        Ok(_) => {
                            let r = Recorded {
                                view: view.clone(),
                                frontier: f,
                                kind,
                            };
                            if kind == "guess" {
                                guesses.push(r);
                            } else {
                                mid.push(r);
                            }
                        }
                        Err(CspError::BudgetExceeded { .. }) => skipped += 1,
                        Err(e) => panic!("naive analysis: {e}"),
                    }
                }
            }
            if guesses.len() == GUESSES && mid.len() == MID_GAME {
                break 'games;
            }
            match decision {
                Decision::Safe(cells) => {
                    for c in cells {
                        if !game.is_revealed(c) && game.state() == GameState::Playing {
                            game.reveal(c).expect("safe reveal");
                        }
                    }
                }
                Decision::Guess { cell, .. } => {
                    game.reveal(cell).expect("guess reveal");
                }
            }
        }
    }
    let mut all: Vec<Recorded> = guesses.into_iter().chain(mid).collect();
    all.sort_by_key(|r| r.frontier);
    let fronts: Vec<usize> = all.iter().map(|r| r.frontier).collect();
    eprintln!(
        "minesweeper: {} expert positions from {games} games (frontier sizes {fronts:?}); \
         {skipped} candidates skipped: naive analysis over {} nodes",
        all.len(),
        NAIVE_BUDGET.max_nodes
    );
    all
}

/// The Battleship benchmark's games: seeded standard games (uniform fleets) played to the
/// end by the hunt/target-with-parity shooter, each written as its fleet (a JSON line, as
/// `--fleets` files have them) and a line of the cells shot, in order. The benchmark replays
/// them and takes its positions along the way.
fn battleship_games() {
    use battleship::{Game, Geometry, Placer, Rules, ShooterKind, game_seed, seeded_fleet};
    use rand::SeedableRng;
    const SEED: u64 = 2024;
    const GAMES: u64 = 6;
    let geo = Geometry::new(&Rules::standard()).expect("standard rules");
    for g in 0..GAMES {
        let fleet = seeded_fleet(&geo, Placer::Uniform, SEED, g).expect("fleet");
        println!("{}", fleet.to_json(&geo));
        let mut game = Game::new(geo.clone(), fleet).expect("a fleet of these rules");
        let mut shooter = ShooterKind::HuntTargetParity.build();
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(game_seed(SEED + 1, g));
        let mut shots = Vec::new();
        while !game.is_over() {
            let d = shooter.choose(game.view(), &mut rng).expect("decision");
            game.shoot(d.cell).expect("shot");
            shots.push(d.cell.to_string());
        }
        println!("{}", shots.join(" "));
    }
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("minesweeper") => {
            for r in record() {
                print!("{}\n{}\n", r.kind, minesweeper::text::write(&r.view));
            }
        }
        Some("battleship") => battleship_games(),
        _ => {
            eprintln!("usage: record-positions minesweeper|battleship > FILE");
            std::process::exit(2);
        }
    }
}
