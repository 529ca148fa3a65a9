//! Playing whole games with the solver, and the seeds that make every game replayable.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::board::{Board, BoardError, FirstClick};
use crate::game::{Game, GameState};
use crate::level::Level;
use crate::solver::{Decision, SolveError, Solver};

/// How one game went.
///
/// Equality compares the timings too, which differ from run to run: to check that a game
/// replays the same, compare [`GameRecord::outcome`]s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GameRecord {
    /// Whether every safe cell was revealed.
    pub won: bool,
    /// Reveals that were not certainly safe (the first click counts when the rule allows a
    /// mine there).
    pub guesses: u32,
    /// Guesses made on estimates because exact counting exceeded the solver's budget.
    pub approximate_guesses: u32,
    /// Solver decisions made.
    pub decisions: u32,
    /// Total time spent deciding.
    pub decide_time: Duration,
    /// Longest single decision.
    pub decide_time_max: Duration,
    /// A solver failure that ended the game (counted as a loss).
    pub error: Option<SolveError>,
}

impl GameRecord {
    /// The record without its timings: what a replay of the game reproduces.
    #[must_use]
    pub fn outcome(&self) -> GameRecord {
        GameRecord {
            decide_time: Duration::ZERO,
            decide_time_max: Duration::ZERO,
            ..self.clone()
        }
    }
}

/// Plays `board` to the end: the first click at `start`, then the solver's moves.
/// `first_click_is_guess` says whether the first click could have hit a mine (rule `none`;
/// not on a board without mines, where no click is a guess); a first click on a mine counts
/// as a guess in any case (a board from a file need not say how it was drawn).
pub fn play(board: Board, start: usize, first_click_is_guess: bool, solver: &Solver) -> GameRecord {
    let first_click_is_guess =
        (first_click_is_guess && board.mine_count() > 0) || board.is_mine(start);
    let cells = board.len();
    let mut game = Game::new(board);
    if game.reveal(start).is_err() {
        // No click was made: no guess either.
        return GameRecord {
            error: Some(SolveError::StartOffBoard { cell: start, cells }),
            ..GameRecord::default()
        };
    }
    let mut rec = play_from(game, solver);
    rec.guesses += u32::from(first_click_is_guess);
    rec
}

/// Plays `game` on with the solver's moves until it ends, from wherever its own clicks left
/// it: after an opening chosen by the caller, say, to compare openings on the same boards.
/// The record counts the solver's moves only. Flags are the player's notes to the solver
/// (it counts flagged cells as hidden): a flagged cell it chooses is unflagged and opened.
pub fn play_from(mut game: Game, solver: &Solver) -> GameRecord {
    let mut rec = GameRecord::default();
    while game.state() == GameState::Playing {
        let view = game.view();
        let t = Instant::now();
        let decision = solver.decide(&view);
        let dt = t.elapsed();
        rec.decisions += 1;
        rec.decide_time += dt;
        rec.decide_time_max = rec.decide_time_max.max(dt);
        match decision {
            Ok(Decision::Safe(cells)) => {
                for c in cells {
                    if !game.is_revealed(c) && game.state() == GameState::Playing {
                        // A cell already opened by an earlier flood fill is skipped above; any
                        // other refusal would be a bug, which ends the game as a loss.
                        if let Err(error) = open(&mut game, c) {
                            rec.error = Some(SolveError::MoveRefused { cell: c, error });
                            return rec;
                        }
                    }
                }
            }
            Ok(Decision::Guess { cell, exact, .. }) => {
                rec.guesses += 1;
                rec.approximate_guesses += u32::from(!exact);
                if let Err(error) = open(&mut game, cell) {
                    rec.error = Some(SolveError::MoveRefused { cell, error });
                    return rec;
                }
            }
            Err(e) => {
                rec.error = Some(e);
                return rec;
            }
        }
    }
    rec.won = game.state() == GameState::Won;
    rec
}

/// Reveals `cell`, first removing a flag the player put there.
fn open(game: &mut Game, cell: usize) -> Result<(), crate::game::GameError> {
    game.unflag(cell)?;
    game.reveal(cell).map(|_| ())
}

/// The seed of game `index` of a run seeded with `seed`: games are independent of each other
/// and of the order they are played in, so a parallel run equals a sequential one.
#[must_use]
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut x = seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 31;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^ (x >> 29)
}

/// Board number `index` of a seeded run: uniform among the layouts `rule` allows for a first
/// click at `start`.
///
/// # Errors
/// When the level cannot hold its mines under the rule, `start` is off its board, or a
/// hand-built level has no valid size.
pub fn seeded_board(
    level: &Level,
    rule: FirstClick,
    start: usize,
    seed: u64,
    index: u64,
) -> Result<Board, BoardError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(game_seed(seed, index));
    Board::random(
        level.width,
        level.height,
        level.mines,
        rule,
        start,
        &mut rng,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::SolverConfig;

    #[test]
    fn plays_beginner_games_to_the_end() {
        let level = Level::BEGINNER;
        let solver = Solver::new(SolverConfig::default());
        let mut won = 0;
        for i in 0..40 {
            let board = seeded_board(&level, FirstClick::Safe, 0, 7, i).unwrap();
            let r = play(board, 0, false, &solver);
            assert!(r.error.is_none(), "{:?}", r.error);
            won += u32::from(r.won);
            // Every guess after the first click is a decision; a safe first click is none.
            assert!(r.guesses <= r.decisions, "{r:?}");
        }
        // A reasonable solver wins most beginner games.
        assert!(won >= 28, "won {won} of 40");
    }

    #[test]
    fn a_first_click_on_a_mine_is_a_lost_guess_whatever_the_rule_says() {
        let solver = Solver::default();
        for rule_allows_a_mine in [false, true] {
            let board = Board::new(3, 3, &[0, 8]).unwrap();
            let r = play(board, 0, rule_allows_a_mine, &solver);
            assert!(!r.won);
            assert_eq!((r.guesses, r.decisions), (1, 0));
            assert!(r.error.is_none());
        }
    }

    /// Under a rule that lets the first click hit a mine, that click is a guess, except on
    /// a board without mines, where it cannot.
    #[test]
    fn a_first_click_is_a_guess_only_where_a_mine_may_lie() {
        let solver = Solver::default();
        let r = play(Board::new(1, 1, &[]).unwrap(), 0, true, &solver);
        assert!(r.won);
        assert_eq!(r.guesses, 0);
        let r = play(Board::new(3, 1, &[2]).unwrap(), 0, true, &solver);
        assert!(r.won);
        assert_eq!(r.guesses, 1);
    }

    #[test]
    fn a_wrong_flag_does_not_stop_the_game_and_a_bad_start_is_named() {
        // 4x1 with the mine at the end; the player flagged the safe cell 0.
        let mut game = Game::new(Board::new(4, 1, &[3]).unwrap());
        game.flag(0).unwrap();
        game.reveal(1).unwrap();
        let r = play_from(game, &Solver::default());
        assert!(r.won && r.error.is_none(), "{r:?}");
        // Off the board: no click, so no guess, even under a rule where the first is one.
        let r = play(
            Board::new(4, 4, &[0]).unwrap(),
            100,
            true,
            &Solver::default(),
        );
        assert_eq!(
            r.error,
            Some(SolveError::StartOffBoard {
                cell: 100,
                cells: 16
            })
        );
        assert_eq!(r.guesses, 0);
    }

    #[test]
    fn a_tiny_budget_falls_back_to_estimates_and_still_plays() {
        let solver = Solver::new(SolverConfig {
            budget: csp_core::Budget { max_nodes: 1 },
            ..SolverConfig::default()
        });
        let mut approximate = 0;
        for i in 0..10 {
            let board = seeded_board(&Level::INTERMEDIATE, FirstClick::Zero, 0, 3, i).unwrap();
            let r = play(board, 0, false, &solver);
            assert!(r.error.is_none(), "{:?}", r.error);
            approximate += r.approximate_guesses;
        }
        assert!(approximate > 0);
    }

    #[test]
    fn playing_on_from_the_first_click_is_playing_the_game() {
        let solver = Solver::default();
        for i in 0..20 {
            let board = seeded_board(&Level::BEGINNER, FirstClick::None, 0, 5, i).unwrap();
            let whole = play(board.clone(), 0, true, &solver);
            // A replay is the same game, but for its timings.
            let again = play(board.clone(), 0, true, &solver);
            assert_eq!(again.outcome(), whole.outcome());
            let mut game = Game::new(board);
            game.reveal(0).unwrap();
            let rest = play_from(game, &solver);
            assert_eq!(
                (rest.won, rest.guesses + 1, rest.decisions, rest.error),
                (whole.won, whole.guesses, whole.decisions, whole.error)
            );
        }
    }

    #[test]
    fn seeds_are_reproducible_and_distinct() {
        let l = Level::INTERMEDIATE;
        let a = seeded_board(&l, FirstClick::Zero, 51, 1, 3).unwrap();
        assert_eq!(a, seeded_board(&l, FirstClick::Zero, 51, 1, 3).unwrap());
        assert_ne!(a, seeded_board(&l, FirstClick::Zero, 51, 1, 4).unwrap());
        assert_ne!(game_seed(1, 2), game_seed(2, 1));
    }
}
