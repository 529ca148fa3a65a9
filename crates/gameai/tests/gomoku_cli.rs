//! `gameai gomoku play` and `gameai gomoku match` as a user runs them.

#![allow(clippy::unwrap_used)] // test helpers may panic: that is a failed test

mod common;
#[cfg(unix)]
use common::group_signalled_after_2_s;
use common::{
    Scratch, assert_failed, fails_with, gameai, interrupted_after_2_s, interrupted_report,
    json_number, text, words,
};

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
            "Exactly-Five",
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
    assert!(!stdout.contains(") forfeit"), "{stdout}");
    let json = stdout.lines().last().unwrap();
    assert_eq!(
        json_number(json, "a_wins") + json_number(json, "draws") + json_number(json, "b_wins"),
        2.0
    );
    // The rule as the program names it, however it was spelled.
    assert!(json.contains("\"rule\":\"exactly-five\""), "{json}");
}

/// With a node budget the games are the same at any number of threads (on the clock, two
/// games at once on a busy machine would play other moves); external brains cannot count
/// nodes, and a budget is either nodes or time.
#[test]
fn a_node_budget_replays_a_match() {
    let games = |threads: &str| {
        let args = format!(
            "gomoku match alphabeta bestfirst --games 4 --nodes 4000 --size 9 --memory-mb 4 \
             --json --boards --threads {threads}"
        );
        let out = gameai(&words(&args), b"");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(stdout.contains(", 4,000 nodes a move, 9x9"), "{stdout}");
        let json = stdout.lines().last().unwrap().to_string();
        assert!(
            json.contains("\"time_ms\":null,\"nodes\":[4000,4000],"),
            "{json}"
        );
        // Games finish in any order; the boards and results, not the times, must agree.
        // (Trimmed: the game printed last is followed by the summary, the others by the
        // next game, so their blocks end differently.)
        let mut blocks: Vec<String> = stdout
            .split("\ngame ")
            .skip(1)
            .map(|b| b.split("\n\n").next().unwrap().trim_end().to_string())
            .collect();
        blocks.sort();
        (blocks, json_number(&json, "a_points"))
    };
    let one = games("1");
    assert_eq!(one.0.len(), 4);
    assert_eq!(games("2"), one);
    // Each engine its own budget.
    let out = gameai(
        &words("gomoku match alphabeta bestfirst --games 2 --nodes 3000,9000 --size 9 --json"),
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("A 3,000 nodes, B 9,000 nodes a move"),
        "{stdout}"
    );
    assert!(stdout.contains("\"nodes\":[3000,9000],"), "{stdout}");
    fails_with(&[
        (
            "gomoku match alphabeta bestfirst --nodes 3000,x",
            "expected a number of nodes (at least 1), or two separated by a comma",
        ),
        (
            "gomoku match alphabeta bestfirst --nodes 0",
            "expected a number of nodes (at least 1)",
        ),
        ("gomoku play --nodes 0", "--nodes"),
        (
            "gomoku match cmd:true bestfirst --nodes 100",
            "--nodes needs built-in engines: cmd:true is an external brain",
        ),
        (
            "gomoku play --engine cmd:true --nodes 100",
            "cmd:true is an external brain",
        ),
        (
            "gomoku match alphabeta bestfirst --nodes 100 --time-ms 5",
            "cannot be used with",
        ),
    ]);
}

#[test]
fn an_external_brain_that_fails_forfeits() {
    // `true` exits at once: it never answers, so every game is lost by forfeit.
    let out = gameai(
        &words("gomoku match cmd:true bestfirst --games 2 --time-ms 10 --size 9 --json"),
        b"",
    );
    // The report is complete, and the exit status says that an engine failed.
    assert_failed(
        &out,
        "A (true) forfeited 2 of 2 games (the report above is complete)",
    );
    let stdout = text(&out.stdout);
    // Each game says which side forfeited, and the summary counts them.
    assert_eq!(stdout.matches("A (true) forfeits").count(), 2, "{stdout}");
    assert!(stdout.contains("0 wins, 0 draws, 2 losses"), "{stdout}");
    assert!(
        stdout.contains("A (true) forfeited 2 of 2 games"),
        "{stdout}"
    );
    assert!(!stdout.contains("B (bestfirst) forfeited"), "{stdout}");
    assert!(
        stdout.contains("\"a_forfeits\":2,\"b_forfeits\":0,\"games_asked\":2}"),
        "{stdout}"
    );
}

/// Ctrl-C stops a match cleanly: the games in play finish, and the report covers the games
/// played, the first ones, with the number asked for in the JSON line.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_match_and_reports_the_games_played() {
    let args: Vec<String> = words(
        "gomoku match alphabeta bestfirst --games 100000 --nodes 300 --size 9 --threads 2 --json",
    )
    .into_iter()
    .map(String::from)
    .collect();
    let out = interrupted_after_2_s(&args);
    let played = interrupted_report(&out, 100000);
    assert!(played > 0, "{}", text(&out.stderr));
    // Every game started was finished and reported, and they are the first ones.
    let stdout = text(&out.stdout);
    let numbers: Vec<usize> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("game "))
        .map(|l| l.split(':').next().unwrap().trim().parse().unwrap())
        .collect();
    let mut sorted = numbers.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (1..=played).collect::<Vec<_>>(), "{stdout}");
    assert!(stdout.contains(&format!(" of {played} points")), "{stdout}");
    let json = stdout.lines().last().unwrap();
    assert_eq!(json_number(json, "games"), played as f64, "{json}");
    assert_eq!(json_number(json, "games_asked"), 100000.0, "{json}");
}

/// A terminal's Ctrl-C goes to the whole process group: an external brain, in a group of
/// its own, is not stopped with `gameai`, so the game in play finishes and nobody forfeits.
#[cfg(unix)]
#[test]
fn ctrl_c_at_the_terminal_lets_an_external_brain_finish_its_game() {
    let brain = format!("cmd:{}", env!("CARGO_BIN_EXE_pbrain-gameai"));
    let mut args: Vec<String> = vec!["gomoku".into(), "match".into(), brain];
    args.extend(
        words("bestfirst --games 1000 --time-ms 20 --size 9 --json")
            .into_iter()
            .map(String::from),
    );
    let out = group_signalled_after_2_s(&args, "INT");
    let played = interrupted_report(&out, 1000);
    let stdout = text(&out.stdout);
    assert!(!stdout.contains(") forfeits"), "{stdout}");
    let json = stdout.lines().last().unwrap();
    assert_eq!(json_number(json, "games"), played as f64, "{json}");
    assert_eq!(json_number(json, "a_forfeits"), 0.0, "{json}");
}

/// Without `--memory-mb` an external brain is told Gomocup's limit for its whole process,
/// 350 MiB (a built-in engine's 64 would leave a brain little for its table), and with it,
/// what it says.
#[cfg(unix)]
#[test]
fn an_external_brain_is_told_gomocups_memory_limit_by_default() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Scratch::new("brain-memory");
    let log = dir.file("log");
    let brain = dir.file("brain.sh");
    // Says OK to START and nothing else, writing down what it is told.
    std::fs::write(
        &brain,
        format!(
            "#!/bin/sh\nwhile IFS= read -r line; do\n  echo \"$line\" >> '{}'\n  \
             case \"$line\" in START*) echo OK;; esac\ndone\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&brain, std::fs::Permissions::from_mode(0o755)).unwrap();
    let engine = format!("cmd:{}", brain.display());
    for (extra, told) in [(None, 350u64 << 20), (Some("100"), 100 << 20)] {
        let _ = std::fs::remove_file(&log);
        let mut args = vec!["gomoku", "match", &engine, "bestfirst", "--games", "1"];
        args.extend(["--time-ms", "10", "--size", "9"]);
        if let Some(mb) = extra {
            args.extend(["--memory-mb", mb]);
        }
        let out = gameai(&args, b"");
        assert_failed(&out, "forfeited 1 of 1 game");
        let said = std::fs::read_to_string(&log).unwrap();
        assert!(
            said.lines().any(|l| l == format!("INFO max_memory {told}")),
            "{said}"
        );
    }
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
    assert!(text(&out.stdout).contains(", 1 opening\n"));
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
            "invalid value '40' for '--size <SIZE>': expected 5 to 32 cells a side",
        ),
        ("gomoku play --colour green", "unknown colour"),
        // The American spelling is the same option.
        ("gomoku play --color green", "unknown colour"),
        // Memory beyond the machine is refused before any game, for either engine.
        (
            "gomoku match alphabeta bestfirst --memory-mb 100000000000",
            "cannot allocate 104857600000000000 bytes for the alphabeta engine",
        ),
        (
            "gomoku match bestfirst alphabeta --memory-mb 100000000000",
            "cannot allocate 104857600000000000 bytes for the bestfirst engine",
        ),
        (
            "gomoku match bestfirst bestfirst --memory-mb 18446744073709551615",
            "--memory-mb 18446744073709551615 is too large",
        ),
    ] {
        let out = gameai(&words(args), b"");
        assert!(!out.status.success(), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
        // The argument parser's refusals (status 2) add a usage hint after a blank line.
        let lines = if out.status.code() == Some(2) { 3 } else { 1 };
        assert_eq!(err.lines().count(), lines, "{err}");
    }
}

#[test]
fn a_match_of_no_games_or_no_memory_is_refused() {
    fails_with(&[
        (
            "gomoku match bestfirst bestfirst --games 0",
            "must be at least 1",
        ),
        (
            "gomoku match bestfirst bestfirst --threads 0",
            "must be at least 1",
        ),
        // No memory at all is not a limit an engine can honour.
        ("gomoku play --memory-mb 0", "must be at least 1"),
        (
            "gomoku match bestfirst bestfirst --memory-mb 0",
            "must be at least 1",
        ),
        // Nor is no time: a move needs some.
        ("gomoku play --time-ms 0", "must be at least 1"),
        (
            "gomoku match bestfirst bestfirst --time-ms 0",
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

    // An empty line asks again; `quit` ends the session, and what follows is not read.
    let out = gameai(
        &words("gomoku play --engine bestfirst --colour white --size 9 --time-ms 20 --memory-mb 8"),
        b"e3\n\nquit\n8,8\n",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches("Your move").count(), 3, "{stdout}");
    assert!(!stdout.contains("Cannot read"), "{stdout}");
    // Each engine move is named both ways, as in `bestfirst plays e4 (4,4) (3 ms)`.
    let plays: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split("bestfirst plays ").nth(1))
        .collect();
    assert_eq!(plays.len(), 2, "{stdout}");
    for p in plays {
        let mut words = p.split(' ');
        let (name, pair) = (words.next().unwrap(), words.next().unwrap());
        let (x, y) = pair
            .trim_start_matches('(')
            .trim_end_matches(')')
            .split_once(',')
            .unwrap();
        let (x, y): (u8, u8) = (x.parse().unwrap(), y.parse().unwrap());
        assert_eq!(name, format!("{}{y}", char::from(b'a' + x)), "{p}");
    }
}

/// A brain that plays the first empty cell in reading order loses every game to the main
/// engine, whichever side either is on: the results, colours and move counts are the games'.
#[test]
fn the_winner_of_each_game_is_the_engine_that_made_five() {
    let dir = Scratch::new("gomoku-first-empty");
    let script = dir.file("first-empty.sh");
    std::fs::write(
        &script,
        r#"play() {
  for y in 0 1 2 3 4 5 6 7 8; do for x in 0 1 2 3 4 5 6 7 8; do
    case "$occ" in *" $x,$y "*) ;; *) occ="$occ$x,$y "; echo "$x,$y"; return ;; esac
  done; done
}
while read -r line; do
  case "$line" in
    ABOUT*) echo 'name="first-empty"' ;;
    END*) exit ;;
    START*|RESTART*) occ=" "; echo OK ;;
    BOARD*) occ=" " ;;
    TURN*) occ="$occ${line#TURN } "; play ;;
    [0-9]*) occ="$occ${line%,*} " ;;
    DONE*) play ;;
  esac
done
"#,
    )
    .unwrap();
    let weak = format!("cmd:sh {}", script.display());
    for (a, b, summary, colours) in [
        (
            "alphabeta",
            weak.as_str(),
            "2 wins, 0 draws, 0 losses",
            "A as Black: 1-0-0, A as White: 1-0-0",
        ),
        (
            weak.as_str(),
            "alphabeta",
            "0 wins, 0 draws, 2 losses",
            "A as Black: 0-0-1, A as White: 0-0-1",
        ),
    ] {
        let out = gameai(
            &[
                "gomoku",
                "match",
                a,
                b,
                "--games",
                "2",
                "--time-ms",
                "20",
                "--size",
                "9",
                "--memory-mb",
                "8",
            ],
            b"",
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let s = text(&out.stdout);
        assert!(s.contains(summary), "{s}");
        assert!(s.contains(colours), "{s}");
        assert!(s.contains("alphabeta made five"), "{s}");
        assert!(
            s.contains(" first-empty: "),
            "named by its ABOUT answer: {s}"
        );
        assert!(!s.contains(") forfeit"), "{s}");
        // Both engines moved in every game, and their moves are counted: with the three
        // stones of the first opening, they make up the moves a game.
        let mut both = 0;
        for engine in ["A ", "B "] {
            let line = s
                .lines()
                .find(|l| l.starts_with(engine) && l.contains(" moves, "));
            let moves: u32 = line
                .and_then(|l| l.split(": ").nth(1))
                .and_then(|m| m.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            assert!(moves >= 6, "at least three a game: {engine}: {s}");
            both += moves;
        }
        let per_game = f64::from(both + 2 * 3) / 2.0;
        assert!(
            s.contains(&format!("\n{per_game:.1} moves a game")),
            "{per_game}: {s}"
        );
    }
}
