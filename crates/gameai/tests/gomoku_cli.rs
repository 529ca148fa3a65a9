//! `gameai gomoku play` and `gameai gomoku match` as a user runs them.

#![allow(clippy::unwrap_used)] // test helpers may panic: that is a failed test

mod common;
use common::{Scratch, assert_failed, fails_with, gameai, text, words};

/// The value of `"key":value` in a one-line JSON object.
fn json_number(line: &str, key: &str) -> f64 {
    let start = line.find(&format!("\"{key}\":")).unwrap() + key.len() + 3;
    let rest = &line[start..];
    let end = rest.find([',', '}']).unwrap();
    rest[..end].parse().unwrap()
}

#[test]
fn match_between_built_in_engines() {
    let out = gameai(
        &words(
            "gomoku match alphabeta bestfirst --games 4 --time-ms 20 --size 11 --json --memory-mb 8",
        ),
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout.matches("\ngame ").count() + usize::from(stdout.starts_with("game ")),
        4
    );
    assert!(stdout.contains("A as Black: "), "{stdout}");
    let json = stdout.lines().last().unwrap();
    let (a, d, b) = (
        json_number(json, "a_wins"),
        json_number(json, "draws"),
        json_number(json, "b_wins"),
    );
    assert_eq!(a + d + b, 4.0);
    assert_eq!(json_number(json, "a_points"), a + d / 2.0);
    // Colours alternate: games 1 and 3 have A as Black.
    let games: Vec<&str> = stdout.lines().filter(|l| l.starts_with("game ")).collect();
    assert!(games[0].contains("A X B O") && games[1].contains("A O B X"));
    assert!(games[0].contains("opening  1") && games[1].contains("opening  1"));
    assert!(games[2].contains("opening  2"));
}

#[test]
fn match_against_the_brain_program() {
    let brain = format!(
        "cmd:{} --engine bestfirst",
        env!("CARGO_BIN_EXE_pbrain-gameai")
    );
    let out = gameai(
        &[
            "gomoku",
            "match",
            &brain,
            "bestfirst",
            "--games",
            "2",
            "--time-ms",
            "30",
            "--size",
            "9",
            "--rule",
            "exact",
            "--json",
            "--memory-mb",
            "8",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("A = gameai-bestfirst vs B = bestfirst"),
        "{stdout}"
    );
    assert!(!stdout.contains("forfeits"), "{stdout}");
    let json = stdout.lines().last().unwrap();
    assert_eq!(
        json_number(json, "a_wins") + json_number(json, "draws") + json_number(json, "b_wins"),
        2.0
    );
}

#[test]
fn an_external_brain_that_fails_forfeits() {
    // `true` exits at once: it never answers, so every game is lost by forfeit.
    let out = gameai(
        &words("gomoku match cmd:true bestfirst --games 2 --time-ms 10 --size 9"),
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches("forfeits").count(), 2, "{stdout}");
    assert!(stdout.contains("0 wins, 0 draws, 2 losses"), "{stdout}");
}

#[test]
fn openings_from_a_file() {
    let dir = Scratch::new("openings");
    let path = dir.file("openings.txt");
    std::fs::write(&path, "# one opening\n4,4 4,3 e5\n").unwrap();
    let out = gameai(
        &[
            "gomoku",
            "match",
            "bestfirst",
            "bestfirst",
            "--games",
            "2",
            "--time-ms",
            "10",
            "--size",
            "9",
            "--openings",
            path.to_str().unwrap(),
            "--boards",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("1 openings"));
    std::fs::write(&path, "4,4 4,4\n").unwrap();
    let out = gameai(
        &[
            "gomoku",
            "match",
            "bestfirst",
            "bestfirst",
            "--openings",
            path.to_str().unwrap(),
        ],
        b"",
    );
    assert_failed(&out, "openings line 1");
}

#[test]
fn bad_options_fail_with_one_line() {
    for (args, want) in [
        ("gomoku match deep-blue bestfirst", "unknown engine"),
        (
            "gomoku match bestfirst bestfirst --rule renju",
            "unknown rule",
        ),
        (
            "gomoku match bestfirst bestfirst --size 40",
            "board size 40",
        ),
        ("gomoku play --colour green", "unknown colour"),
    ] {
        let out = gameai(&words(args), b"");
        assert!(!out.status.success(), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn a_match_of_no_games_is_refused() {
    fails_with(&[
        (
            "gomoku match bestfirst bestfirst --games 0",
            "must be at least 1",
        ),
        (
            "gomoku match bestfirst bestfirst --threads 0",
            "must be at least 1",
        ),
    ]);
}

#[test]
fn play_a_game_in_the_terminal() {
    // White against the engine on 9x9; the input runs out, which ends the session.
    let out = gameai(
        &words("gomoku play --engine bestfirst --colour white --size 9 --time-ms 20 --memory-mb 8"),
        b"e3\nnonsense\n0,0\nundo\nundo\nundo\n8,8\n",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("You play White (O) against bestfirst"),
        "{stdout}"
    );
    assert!(stdout.contains("Cannot read \"nonsense\""), "{stdout}");
    assert!(stdout.contains("bestfirst plays"), "{stdout}");
    // Each undo takes back a pair of moves: after two, only the engine's first stone is
    // left, and a third has nothing to take back.
    assert_eq!(stdout.matches("Nothing to undo.").count(), 1, "{stdout}");
    // The board diagram is shown before each of your moves.
    assert!(stdout.matches("Your move").count() >= 5, "{stdout}");
}
