//! The olympiad parser on arbitrary bytes, and the solver on whatever parses.
//!
//! Parsing must never panic, and reading game by game must agree with it; a parsed problem
//! must print back to an equal problem; and every parsed game must solve to the same result
//! at two levels, with a principal line that is legal and ends with that result. Both levels
//! share the memo and its symmetric keys, so the first two games of a small problem (at most
//! 10 piles) are also solved at the `merged` level, which has neither.
#![no_main]

use libfuzzer_sys::fuzz_target;
use search_core::Game;
use twofour::{Level, TwoFourSolver};

fuzz_target!(|data: &[u8]| {
    let parsed = twofour::parse_bytes(data);
    // The game-by-game reader gives the same games, or the same error.
    let streamed: Result<Vec<_>, _> =
        twofour::read_games_bytes(data).and_then(|games| games.collect());
    match (&parsed, &streamed) {
        (Ok(problem), Ok(games)) => assert_eq!(problem.games(), &games[..]),
        (Err(e), Err(f)) => assert_eq!(e, f),
        _ => panic!("parse: {parsed:?}, read_games: {streamed:?}"),
    }
    let Ok(problem) = parsed else {
        return;
    };
    let again = twofour::parse(&problem.to_string()).expect("printed problems parse");
    assert_eq!(again, problem);
    // Keep each run fast: the solver's cost grows steeply with N.
    if problem.piles() > 40 {
        return;
    }
    let mut fast = TwoFourSolver::new(Level::Multiset);
    let mut other = TwoFourSolver::new(Level::Duality);
    let mut plain = TwoFourSolver::new(Level::Merged);
    for (i, game) in problem.games().iter().take(8).enumerate() {
        let winner = fast.solve(game);
        assert_eq!(other.solve(game), winner, "{game}");
        if problem.piles() <= 10 && i < 2 {
            assert_eq!(plain.solve(game), winner, "{game}");
        }
        let mut p = game.clone();
        for m in fast.principal_line(game) {
            assert!(p.is_legal(m.from, m.to));
            p.play(&m);
        }
        assert_eq!(p.final_winner(), Some(winner));
    }
});
