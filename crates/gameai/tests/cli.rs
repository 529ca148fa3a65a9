//! The `gameai` binary as a user runs it.

#![allow(clippy::unwrap_used)] // test helpers may panic: that is a failed test

mod common;
use common::{
    Scratch, assert_failed, fails_with, gameai, interrupted_after_2_s, interrupted_report,
    json_number, signalled_after_2_s, text, words,
};

const SAMPLE: &str = "5 4\n0 3 4 1 2\n2 2 2 2 2\n1 1 2 2 4\n4 3 2 1 0\n";

#[test]
fn solves_the_sample_at_every_level() {
    for level in ["plain", "merged", "memo", "duality", "multiset"] {
        let out = gameai(&["twofour", "--level", level], SAMPLE.as_bytes());
        assert!(out.status.success(), "{level}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "1\n2\n1\n1\n", "{level}");
    }
}

#[test]
fn malformed_inputs_fail_with_one_line() {
    let cases: [(&[u8], &str); 10] = [
        (b"", "line 1: the input is empty"),
        // A bad later game: no result is printed for the good ones before it.
        (b"3 2\n2 2 2\n1 1 5", "line 3: game 2: pile 3 holds 5 balls"),
        (b"5", "line 1: the input ends after N"),
        (
            b"2 1\n2 2\n",
            "line 1: N = 2 is outside the supported range of piles",
        ),
        (b"3 1\n1 x 2", "line 2: `x` is not a non-negative integer"),
        (b"3 1\n1 1 5", "line 2: game 1: pile 3 holds 5 balls"),
        (b"3 1\n1 1 1", "line 2: game 1: the piles hold 3 balls"),
        (
            b"3 2\n2 2 2\n",
            "line 2: the input ends after 3 of the 6 numbers",
        ),
        (b"3 1\n2 2 2 2", "line 2: unexpected `2`"),
        (b"3 1\n2 2 \xff\xfe", "line 2: the input is not text"),
    ];
    for (input, expected) in cases {
        let out = gameai(&["twofour"], input);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{expected}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("gameai: standard input: {expected}")),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = gameai(&["twofour", "/no/such/file"], b"");
    assert!(!out.status.success());
    assert!(text(&out.stderr).starts_with("gameai: cannot read /no/such/file"));
}

#[test]
fn explain_prints_each_line_of_play() {
    let out = gameai(&["twofour", "--explain"], SAMPLE.as_bytes());
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert_eq!(s.matches("\ngame ").count(), 4);
    // The legend once, before the first game.
    assert!(
        s.starts_with(
            "(2a / 2b: two balls owned by the first / second player)\n\
             game 1: 0 3 4 1 2b  => first player wins (1)"
        ),
        "{s}"
    );
    assert_eq!(s.matches("2a / 2b").count(), 1);
    assert!(s.contains("game 2: 2b 2a 2b 2a 2b  => second player wins (2)"));
    assert!(s.contains("  end: first player owns 3 piles, second player 2: first player wins"));
    assert_eq!(s.matches("  end: ").count(), 4);
}

#[test]
fn generated_input_round_trips() {
    let out = gameai(&["twofour", "--generate", "30", "50", "--seed", "9"], b"");
    assert!(out.status.success());
    let input = out.stdout;
    assert!(text(&input).starts_with("30 50\n"));
    let again = gameai(&["twofour", "--generate", "30", "50", "--seed", "9"], b"");
    assert_eq!(again.stdout, input, "seeded generation is reproducible");
    let solved = gameai(&["twofour", "--stats"], &input);
    assert!(solved.status.success());
    assert_eq!(text(&solved.stdout).lines().count(), 50);
    assert!(text(&solved.stderr).contains("50 games of 30 piles"));
    let bad = gameai(&["twofour", "--generate", "2", "5"], b"");
    assert!(!bad.status.success());
    assert!(text(&bad.stderr).contains("at least 3 piles"));
    // Even for no games: the header would be one the solver refuses.
    let bad = gameai(&["twofour", "--generate", "2", "0"], b"");
    assert!(text(&bad.stderr).contains("at least 3 piles"));
    let none = gameai(&["twofour", "--generate", "3", "0"], b"");
    assert_eq!(text(&none.stdout), "3 0\n");
    // A size no memory could hold is refused by name, not attempted.
    let huge = gameai(&["twofour", "--generate", "18446744073709551615", "1"], b"");
    assert!(!huge.status.success());
    assert!(
        text(&huge.stderr).contains("at most 4095 piles are supported"),
        "{}",
        text(&huge.stderr)
    );
}

#[test]
fn showcase_reports_every_game() {
    // The quick run: the full one plays the same parts with more games.
    let out = gameai(&["showcase", "--quick"], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("| TwoFour "), "{s}");
    assert!(s.contains("| olympiad sample, exact "), "{s}");
    assert!(s.contains("1 2 1 1 (correct)"));
    assert!(s.contains("| 60 beginner games, safe corner start "), "{s}");
    assert!(s.contains("| 16 no-touch games, shooter endgame "), "{s}");
    assert!(
        s.contains("| alphabeta vs bestfirst, 1 game, 10,000 and 70,000 nodes a move "),
        "{s}"
    );
    // A Battleship row is what `battleship eval` prints for the same games.
    let row = "Battleship: standard rules, shooter density: mean ";
    let mean = s
        .lines()
        .find_map(|l| l.strip_prefix(row))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no density row: {s}"));
    let eval = gameai(
        &words("battleship eval --games 100 --seed 1 --shooter density"),
        b"",
    );
    assert!(
        text(&eval.stdout).contains(&format!("mean {mean} shots")),
        "{mean}: {}",
        text(&eval.stdout)
    );
    // Every row of the table has its four columns aligned.
    let table: Vec<&str> = s.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(table.len(), 2 + 2 + 3 + 6 + 1, "{s}");
    let width = table[0].chars().count();
    assert!(table.iter().all(|l| l.chars().count() == width), "{s}");
}

#[test]
fn minesweeper_eval_is_thread_independent_and_json() {
    let run = |threads: &str| {
        let mut args = words("minesweeper eval --level beginner --games 40 --seed 5 --json");
        args.extend(["--threads", threads]);
        let out = gameai(&args, b"");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let s = text(&out.stdout);
        let json = s.lines().last().unwrap().to_owned();
        assert!(json.starts_with("{\"played\":40,\"won\":"), "{json}");
        for key in [
            "win_rate",
            "ci95",
            "avg_guesses",
            "ms_per_move_mean",
            "ms_per_move_max",
        ] {
            assert!(json.contains(&format!("\"{key}\":")), "{key} in {json}");
        }
        // Everything but the timings must match between runs.
        json.split(",\"ms_per_move_mean\"")
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(run("1"), run("2"));
}

/// The summary names the start as a name or a cell, however it was typed, and the JSON line
/// says what was played.
#[test]
fn minesweeper_eval_says_what_it_played() {
    for (start, shown, cell) in [("CORNER", "corner", "[0,0]"), (" 2,1", "2,1", "[2,1]")] {
        let mut args = words("minesweeper eval --level beginner --games 3 --seed 2 --json");
        args.extend(["--start", start]);
        let out = gameai(&args, b"");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let s = text(&out.stdout);
        assert!(
            s.starts_with(&format!("9x9/10 rule safe start {shown} seed 2: won ")),
            "{s}"
        );
        let json = s.lines().last().unwrap();
        let settings =
            format!(",\"level\":\"9x9x10\",\"rule\":\"safe\",\"start\":{cell},\"seed\":2}}");
        assert!(json.ends_with(&settings), "{json}");
    }
}

/// `--bound` reports the library's bound over the same seeded boards, and only for them: the
/// lower of the two bounds, which is the coin flips' with an opening first click and the
/// first click's forced guess with a safe one in the corner.
#[test]
fn minesweeper_eval_bounds_any_player() {
    for (rule, spec, start, first_is_lower) in [
        (minesweeper::FirstClick::Zero, "zero --start 3,3", 30, false),
        (
            minesweeper::FirstClick::Safe,
            "safe --start corner",
            0,
            true,
        ),
    ] {
        let line = format!(
            "minesweeper eval --level 9x9x12 --games 300 --seed 3 --rule {spec} --bound --json"
        );
        let out = gameai(&words(&line), b"");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let s = text(&out.stdout);
        assert!(s.contains("; any player wins at most "), "{s}");
        let json = s.lines().last().unwrap();
        let level: minesweeper::Level = "9x9x12".parse().unwrap();
        let shares: Vec<minesweeper::Shares> = (0..300)
            .map(|i| {
                let b = minesweeper::seeded_board(&level, rule, start, 3, i).unwrap();
                minesweeper::board_bound(&b, rule, start, 8)
            })
            .collect();
        let of = |f: fn(&minesweeper::Shares) -> f64| {
            minesweeper::win_bound(&shares.iter().map(f).collect::<Vec<_>>())
        };
        let (flips, first) = (of(|s| s.coin_flips), of(|s| s.first_guess));
        assert!(flips.0 < 1.0 && first.0 < 1.0, "{flips:?} {first:?}");
        assert_eq!(first.0 < flips.0, first_is_lower, "{flips:?} {first:?}");
        let (b, u) = if first_is_lower { first } else { flips };
        assert!(
            json.contains(&format!(
                "\"win_bound\":{b:.6},\"win_bound_upper95\":{u:.6}"
            )),
            "{json}"
        );
        assert_eq!(
            s.contains("first click's forced guess)"),
            first_is_lower,
            "{s}"
        );
    }
    // Without --bound the fields are absent; with a board file it is refused.
    let plain = gameai(&words("minesweeper eval --games 5 --json"), b"");
    assert!(!text(&plain.stdout).contains("win_bound"));
    let refused = gameai(&words("minesweeper eval --boards any.jsonl --bound"), b"");
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("cannot be used with"));
}

#[test]
fn minesweeper_solve_prints_probabilities_and_a_move() {
    // A position on standard input (`-`), with extra options: success, stdout, stderr.
    let solve = |position: &str, extra: &[&str]| {
        let mut args = vec!["minesweeper", "solve", "-"];
        args.extend(extra);
        let out = gameai(&args, position.as_bytes());
        (out.status.success(), text(&out.stdout), text(&out.stderr))
    };
    // From a file too, whose errors name it.
    let dir = Scratch::new("ms-solve");
    let file = dir.file("pos.txt");
    std::fs::write(&file, "5x3x3\n1H1HH\nHHHHH\nHHHHH\n").unwrap();
    let out = gameai(&["minesweeper", "solve", file.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("  [1]   33  [1]   11   24\n"), "{s}");
    assert!(
        s.contains("move: guess 3,1 (mine probability 11.11%)"),
        "{s}"
    );
    std::fs::write(&file, "5x3x3\n1H1HH\nHHXHH\nHHHHH\n").unwrap();
    let bad = gameai(&["minesweeper", "solve", file.to_str().unwrap()], b"");
    assert!(!bad.status.success());
    let e = text(&bad.stderr);
    assert!(e.contains("pos.txt: line 3, column 3"), "{e}");
    // Only a certain mine reads 100 and only a safe cell 0; flags are marked and count as hidden.
    let (_, o, _) = solve("3x1x1\n1F1\n", &[]);
    assert!(o.contains("  [1] 100F  [1]\n"), "{o}");
    // Each row shows its own cells.
    let (_, o, _) = solve("3x3x1\nHHH\nH1H\nHHH\n", &[]);
    assert!(
        o.contains("\n   12   12   12\n   12  [1]   12\n   12   12   12\n"),
        "{o}"
    );
    let (_, o, _) = solve(&format!("200x1x1\n{}\n", "H".repeat(200)), &[]);
    assert!(o.contains("    1    1") && !o.contains("    0"), "{o}");
    // Over the counting budget: the fallback's estimates and move, said to be estimates.
    let (ok, o, e) = solve("5x3x3\n1H1HH\nHHHHH\nHHHHH\n", &["--budget", "1"]);
    assert!(ok, "{e}");
    assert!(o.starts_with("exact counting exceeded its budget"), "{o}");
    assert!(o.contains("(estimated mine probability"), "{o}");
    let (ok, o, e) = solve("3x1x1\n1HH\n", &[]);
    assert!(
        ok && o.contains("move: reveal the safe cells 2,0"),
        "{o}{e}"
    );
    // A flag on a safe cell is pointed out in the move.
    let (ok, o, e) = solve("3x1x1\n1HF\n", &[]);
    assert!(
        ok && o.contains("move: reveal the safe cells 2,0 (flagged)"),
        "{o}{e}"
    );
    let (_, _, e) = solve("3x1x1\n1HX\n", &[]);
    assert!(e.contains("standard input: line 2, column 3"), "{e}");
    // A finished position has no move, and that is not an error.
    let (ok, o, e) = solve("3x1x1\n1M1\n", &[]);
    assert!(ok && o.contains("move: none"), "{o}{e}");
    // An inconsistent position says where the contradiction lies: in the mine count, or
    // among the numbers.
    let (ok, _, e) = solve("5x1x1\n1H2H1\n", &[]);
    assert!(
        !ok && e.contains(
            "standard input: the position is inconsistent: its revealed numbers need exactly 2 \
             mines, where its mine count says 1"
        ),
        "{e}"
    );
    let (ok, _, e) = solve("4x3x2\n01HH\n02HH\n01HM\n", &[]);
    assert!(
        !ok && e.contains("need 3 to 5 mines, where its mine count says 2"),
        "{e}"
    );
    for numbers in ["4x1x1\n1H0H\n", "5x1x1\n1H1H1\n"] {
        let (ok, _, e) = solve(numbers, &[]);
        assert!(
            !ok && e.contains("inconsistent: no mine layout meets its revealed numbers"),
            "{e}"
        );
    }
}

#[test]
fn minesweeper_board_file_errors_are_clear() {
    let dir = Scratch::new("ms-boards");
    let file = dir.file("boards.jsonl");
    std::fs::write(
        &file,
        "{\"width\":9,\"height\":9,\"mines\":1,\"start\":0,\"mineIndices\":[80]}\n{\"width\":9}\n",
    )
    .unwrap();
    let out = gameai(
        &["minesweeper", "eval", "--boards", file.to_str().unwrap()],
        b"",
    );
    assert_failed(&out, "line 2: missing field `height`");
    std::fs::write(
        &file,
        "{\"width\":9,\"height\":9,\"mines\":1,\"start\":0,\"mineIndices\":[80]}\n",
    )
    .unwrap();
    let ok = gameai(
        &[
            "minesweeper",
            "eval",
            "--boards",
            file.to_str().unwrap(),
            "--json",
        ],
        b"",
    );
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains("{\"played\":1,\"won\":1,"));
}

#[test]
fn minesweeper_no_games_is_an_error_not_an_empty_summary() {
    let dir = Scratch::new("ms-empty");
    let empty = dir.file("empty.jsonl");
    std::fs::write(&empty, "\n").unwrap();
    let empty = format!("minesweeper eval --boards {}", empty.to_str().unwrap());
    fails_with(&[
        ("minesweeper eval --games 0", "must be at least 1"),
        (
            "minesweeper eval --games 2 --threads 0",
            "must be at least 1",
        ),
        (
            "minesweeper boards --games 0 --out x.jsonl",
            "must be at least 1",
        ),
        (empty.as_str(), "no boards"),
    ]);
}

#[test]
fn the_default_memo_grows_with_the_piles() {
    let games = gameai(&words("twofour --generate 200 1 --seed 5"), b"");
    assert!(games.status.success());
    let out = gameai(&words("twofour --stats"), &games.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stats = text(&out.stderr);
    assert!(stats.contains("in 16000000 bytes"), "{stats}");
    let out = gameai(&words("twofour --stats"), SAMPLE.as_bytes());
    assert!(text(&out.stderr).contains("in 983040 bytes"));
    // Nothing to search, nothing allocated: no games, or only finished ones (4095 piles
    // would otherwise take the largest default, 1 GiB).
    let finished = format!("4095 1\n{}\n", ["2"; 4095].join(" "));
    for input in ["4095 0\n", finished.as_str()] {
        let out = gameai(&words("twofour --stats"), input.as_bytes());
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stats = text(&out.stderr);
        assert!(stats.contains("in 0 bytes"), "{stats}");
    }
}

#[test]
fn output_files_can_be_standard_output() {
    let out = gameai(&words("minesweeper boards --games 3 --seed 2 --out -"), b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert_eq!(s.lines().count(), 3, "{s}");
    assert!(s.lines().all(|l| l.starts_with("{\"width\":9")), "{s}");
    // The boards read back as a board file, from standard input.
    let back = gameai(&words("minesweeper eval --boards - --json"), s.as_bytes());
    assert!(back.status.success(), "{}", text(&back.stderr));
    assert!(text(&back.stdout).contains("\"played\":3"));
    // `/dev/stdout` (here a pipe) is standard output too: the boards alone, as with `-`.
    #[cfg(target_os = "linux")]
    {
        let dev = gameai(
            &words("minesweeper boards --games 3 --seed 2 --out /dev/stdout"),
            b"",
        );
        assert!(dev.status.success(), "{}", text(&dev.stderr));
        assert_eq!(text(&dev.stdout), s);
        // Records are refused there as for `-` (the summary goes there), before any game.
        let records = gameai(
            &words("minesweeper eval --games 2 --records /dev/stdout"),
            b"",
        );
        assert_failed(&records, "--records needs a file name");
        // A name ending in a separator is refused at once, even one that leads to a
        // descriptor.
        let slash = gameai(
            &words("minesweeper eval --games 2 --records /dev/stdout/"),
            b"",
        );
        assert_failed(&slash, "it names a directory");
    }
}

/// An input larger than any position or board file could need is refused, before it is
/// read when the file says its size (the file here is sparse: it takes no disk space).
#[test]
fn an_input_over_a_gibibyte_is_refused() {
    let dir = Scratch::new("huge-input");
    let path = dir.file("huge.txt");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len((1 << 30) + 1).unwrap();
    let started = std::time::Instant::now();
    let out = gameai(&["minesweeper", "solve", path.to_str().unwrap()], b"");
    assert_failed(&out, "holds more than 1073741824 bytes");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

/// A model file is refused past 64 MiB, many times the largest model, not read up to the
/// 1 GiB every input may hold (standard input too, which says no size beforehand).
#[test]
fn a_model_file_past_its_size_is_refused() {
    let big = vec![b' '; (64 << 20) + 1];
    let out = gameai(
        &words("minesweeper calibrate --level 5x5x3 --games 1 --model -"),
        &big,
    );
    assert_failed(
        &out,
        "standard input holds more than 67108864 bytes, the most an input of its kind may hold",
    );
}

#[test]
fn a_byte_order_mark_is_not_input() {
    let mut input = b"\xef\xbb\xbf".to_vec();
    input.extend_from_slice(SAMPLE.as_bytes());
    let out = gameai(&["twofour"], &input);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "1\n2\n1\n1\n");
    let out = gameai(
        &words("minesweeper solve -"),
        "\u{feff}3x1x1\n1H1\n".as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn solver_options_are_checked() {
    fails_with(&[
        ("minesweeper eval --games 2 --candidates 0", "at least 1"),
        (
            "minesweeper eval --games 2 --no-lookahead --depth 2",
            "cannot be used with",
        ),
        (
            "minesweeper train --learning-rate nan --out m.txt",
            "expected a positive step size",
        ),
        (
            "minesweeper train --learning-rate 0 --out m.txt",
            "expected a positive step size",
        ),
        (
            "minesweeper train --learning-rate inf --out m.txt",
            "expected a positive step size",
        ),
        ("minesweeper train --hidden 0 --out m.txt", "1 to 1024"),
        ("minesweeper train --hidden 1025 --out m.txt", "1 to 1024"),
        (
            "minesweeper eval --games 100000000000000000",
            "cannot hold the results of 100000000000000000 games in memory",
        ),
        (
            "battleship eval --games 100000000000000000",
            "cannot hold the results of 100000000000000000 games in memory",
        ),
        (
            "gomoku match alphabeta bestfirst --games 100000000000000000",
            "cannot hold the results of 100000000000000000 games in memory",
        ),
        // The output is checked before the games are played.
        (
            "minesweeper train --games 100000 --out no-such-directory/m.txt",
            "cannot write no-such-directory/m.txt",
        ),
        ("minesweeper calibrate --per-position 0", "at least 1"),
        ("minesweeper train --epochs 0 --out m.txt", "at least 1"),
        ("minesweeper eval --endgame-cells 65", "expected 0 to 64"),
        // A level whose boards cannot be drawn fails before any level is played.
        (
            "minesweeper train --level expert,4x4x10 --games 100000 --out m.txt",
            "--level 4x4x10: these games open with a zero at 2,2, and 10 mines do not fit",
        ),
        (
            "minesweeper eval --level 4x4x10 --rule zero --start 2,2 --games 100000000000000000",
            "10 mines do not fit",
        ),
        // Games that leave nothing undecided teach nothing.
        ("minesweeper calibrate --level 3x3x0", "no samples"),
        (
            "twofour --seed 5 games.txt",
            "--seed is the seed of --generate, which is not given",
        ),
        (
            "twofour --seed 5",
            "--seed is the seed of --generate, which is not given",
        ),
        (
            "twofour --generate 3 2 --level plain",
            "cannot be used with",
        ),
        (
            "twofour --generate 3 2 --generate 4 1",
            "cannot be used multiple times",
        ),
    ]);
    let out = gameai(
        &words("twofour --memo-bytes 18446744073709551615"),
        SAMPLE.as_bytes(),
    );
    assert_failed(
        &out,
        "cannot allocate 18446744073709551615 bytes for the memo",
    ); // The levels without a memo allocate none, whatever the size.
    let out = gameai(
        &words("twofour --level merged --memo-bytes 18446744073709551615"),
        SAMPLE.as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "1\n2\n1\n1\n");
}

/// The model the minesweeper crate ships is what the training command its docs quote
/// writes: a change to the solver's play changes the training games, and then the shipped
/// weights must be written again with that command.
#[test]
fn the_shipped_model_is_what_the_training_command_writes() {
    let dir = Scratch::new("shipped-model");
    let model = dir.file("model.weights");
    let mut args = words("minesweeper train --games 1000 --per-position 8 --out");
    args.push(model.to_str().unwrap());
    let out = gameai(&args, b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&model).unwrap();
    let shipped = include_str!("../../minesweeper/src/model.weights");
    assert!(
        written == shipped,
        "crates/minesweeper/src/model.weights is not what `gameai minesweeper train --games \
         1000 --per-position 8 --out crates/minesweeper/src/model.weights` writes: run it"
    );
}

/// A training step so large that the weights leave the finite numbers is reported, and no
/// model is written (it could not be read back).
#[test]
fn training_that_diverges_writes_no_model() {
    let dir = Scratch::new("diverge");
    let model = dir.file("m.txt");
    let mut args = words("minesweeper train --level beginner --games 3 --learning-rate 1e30 --out");
    args.push(model.to_str().unwrap());
    let out = gameai(&args, b"");
    assert_failed(&out, "training diverged");
    assert!(!model.exists());
    assert_eq!(
        std::fs::read_dir(&dir.0).unwrap().count(),
        0,
        "nothing left behind"
    );
}

/// A result is written as soon as it is found, not when the run ends: here the second game
/// of 1000 piles would take minutes, and the first game's result must arrive before it.
#[test]
fn twofour_results_arrive_before_a_slow_game_ends() {
    use std::io::{BufRead, Write};
    let over = vec!["2"; 1000].join(" ");
    let slow: Vec<&str> = (0..1000).map(|i| ["4", "0"][i % 2]).collect();
    let input = format!("1000 2\n{over}\n{}\n", slow.join(" "));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gameai"))
        .current_dir(common::run_dir())
        .args(["twofour", "--memo-bytes", "1000000"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let first = rx.recv_timeout(std::time::Duration::from_secs(30));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(first.as_deref(), Ok("0\n"));
}

#[test]
fn a_reader_that_stops_early_ends_the_run_quietly() {
    use std::io::Read;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gameai"))
        .current_dir(common::run_dir())
        .args(["twofour", "--generate", "30", "200000", "--seed", "1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read a little, as `| head -1` would, then close the pipe.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn other_failures_are_reported_whatever_their_message_says() {
    // A missing file whose name looks like the message of a closed pipe.
    let out = gameai(&["twofour", "/no/such/dir/Broken pipe"], b"");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).starts_with("gameai: cannot read /no/such/dir/Broken pipe"),
        "{}",
        text(&out.stderr)
    );
    // Standard output that cannot be written (a full disk) is named as what failed.
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gameai"))
            .current_dir(common::run_dir())
            .args(["twofour", "--generate", "30", "2000", "--seed", "1"])
            .stdout(full)
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(
            text(&out.stderr).starts_with("gameai: cannot write standard output: "),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_failed_run_keeps_the_old_records_file() {
    let dir = Scratch::new("records-kept");
    let file = dir.file("records.jsonl");
    std::fs::write(&file, "{\"game\":0}\n").unwrap();
    // Too many mines for the zero rule: the games fail after the file was opened.
    let mut args =
        words("minesweeper eval --level 5x5x20 --rule zero --start centre --games 2 --records");
    args.push(file.to_str().unwrap());
    let out = gameai(&args, b"");
    assert!(!out.status.success());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{\"game\":0}\n");
    assert_eq!(
        std::fs::read_dir(&dir.0).unwrap().count(),
        1,
        "no partial file left"
    );
    // A run that succeeds replaces it.
    let mut args = words("minesweeper eval --level 5x5x3 --games 2 --records");
    args.push(file.to_str().unwrap());
    let out = gameai(&args, b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let records = std::fs::read_to_string(&file).unwrap();
    assert_eq!(records.lines().count(), 2);
    // A game ended by the solver would say so; these were not.
    assert!(
        records.lines().all(|l| l.ends_with(",\"error\":null}")),
        "{records}"
    );
    // Standard output carries the summary, not the records.
    let out = gameai(
        &words("minesweeper eval --level 5x5x3 --games 2 --records -"),
        b"",
    );
    assert_failed(&out, "--records needs a file name");
}

/// An output file that is the input file (by another name too) is refused before the run,
/// and the input is left as it was.
#[test]
fn an_output_that_is_the_input_is_refused() {
    let dir = Scratch::new("out-is-in");
    let boards = dir.file("boards.jsonl");
    let line = "{\"width\":9,\"height\":9,\"mines\":1,\"start\":0,\"mineIndices\":[80]}\n";
    std::fs::write(&boards, line).unwrap();
    let other_name = format!("{}/./boards.jsonl", dir.0.display());
    for records in [boards.to_str().unwrap(), other_name.as_str()] {
        let out = gameai(
            &[
                "minesweeper",
                "eval",
                "--boards",
                boards.to_str().unwrap(),
                "--records",
                records,
            ],
            b"",
        );
        assert_failed(&out, "is the input file too");
        assert_eq!(std::fs::read_to_string(&boards).unwrap(), line);
    }
    let fleets = dir.file("fleets.jsonl");
    let fleet = "{\"width\":10,\"height\":10,\"ships\":[{\"length\":5,\"x\":0,\"y\":0,\"dir\":\"h\"},\
                 {\"length\":4,\"x\":0,\"y\":2,\"dir\":\"h\"},{\"length\":3,\"x\":0,\"y\":4,\"dir\":\"h\"},\
                 {\"length\":3,\"x\":0,\"y\":6,\"dir\":\"h\"},{\"length\":2,\"x\":0,\"y\":8,\"dir\":\"h\"}]}\n";
    std::fs::write(&fleets, fleet).unwrap();
    let f = fleets.to_str().unwrap();
    let out = gameai(&["battleship", "eval", "--fleets", f, "--records", f], b"");
    assert_failed(&out, "is the input file too");
    assert_eq!(std::fs::read_to_string(&fleets).unwrap(), fleet);
    let pos = dir.file("pos.txt");
    std::fs::write(&pos, "..........\n".repeat(10)).unwrap();
    let p = pos.to_str().unwrap();
    let out = gameai(&["battleship", "show", p, "--svg", p], b"");
    assert_failed(&out, "is the input file too");
    assert_eq!(
        std::fs::read_to_string(&pos).unwrap(),
        "..........\n".repeat(10)
    );
    // Standard input redirected from the file that would be written.
    #[cfg(unix)]
    {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gameai"))
            .current_dir(common::run_dir())
            .args(["minesweeper", "eval", "--boards", "-", "--records"])
            .arg(&boards)
            .stdin(std::fs::File::open(&boards).unwrap())
            .output()
            .unwrap();
        assert_failed(&out, "is the input file too");
        assert_eq!(std::fs::read_to_string(&boards).unwrap(), line);
    }
    // Different files are fine.
    let out = gameai(
        &[
            "battleship",
            "eval",
            "--fleets",
            f,
            "--records",
            dir.file("r.jsonl").to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// The summary agrees with the games it summarises: eval's JSON line against its own records,
/// and the 95% interval against Wilson's formula.
#[test]
fn minesweeper_eval_summary_counts_its_records() {
    let dir = Scratch::new("summary");
    let file = dir.file("records.jsonl");
    let mut args = words("minesweeper eval --level 9x9x15 --games 30 --seed 4 --json --records");
    args.push(file.to_str().unwrap());
    let out = gameai(&args, b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let json = stdout.lines().last().unwrap();
    let records = std::fs::read_to_string(&file).unwrap();
    let records: Vec<&str> = records.lines().collect();
    assert_eq!(records.len(), 30);
    let won = records
        .iter()
        .filter(|r| r.contains("\"won\":true"))
        .count() as f64;
    let guesses: f64 = records.iter().map(|r| json_number(r, "guesses")).sum();
    assert!(0.0 < won && won < 30.0, "a mixed sample: {won}");
    assert_eq!(json_number(json, "played"), 30.0);
    assert_eq!(json_number(json, "won"), won);
    let rate = won / 30.0;
    assert!(
        (json_number(json, "win_rate") - rate).abs() < 1e-6,
        "{json}"
    );
    assert!(
        (json_number(json, "avg_guesses") - guesses / 30.0).abs() < 1e-4,
        "{json}"
    );
    let (n, z) = (30.0f64, 1.959_964f64);
    let centre = (rate + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (rate * (1.0 - rate) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    let lo = json_number(json, "ci95");
    let hi: f64 = json
        .split("\"ci95\":[")
        .nth(1)
        .unwrap()
        .split([',', ']'])
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (lo - (centre - half)).abs() < 1e-6 && (hi - (centre + half)).abs() < 1e-6,
        "{json}"
    );
    // The text line says the same.
    assert!(
        stdout.contains(&format!("won {won} of 30 = {:.2}%", 100.0 * rate)),
        "{stdout}"
    );
    // A first click that may hit a mine is a guess; a safe one is not.
    for (rule, guessed_first) in [("none", true), ("safe", false)] {
        let mut args = words("minesweeper eval --level 9x9x3 --games 20 --seed 1 --records");
        args.push(file.to_str().unwrap());
        args.extend(["--rule", rule]);
        let out = gameai(&args, b"");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let records = std::fs::read_to_string(&file).unwrap();
        let fewest = records
            .lines()
            .map(|r| json_number(r, "guesses"))
            .fold(f64::INFINITY, f64::min);
        assert_eq!(fewest >= 1.0, guessed_first, "{rule}: {records}");
    }
}

/// `calibrate` lists the model's bins that hold samples, and they hold all of them.
#[test]
fn minesweeper_calibrate_accounts_for_every_sample() {
    let out = gameai(
        &words("minesweeper calibrate --level beginner --games 6 --per-position 3"),
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    let samples: usize = s.split_whitespace().next().unwrap().parse().unwrap();
    assert!(samples > 0, "{s}");
    for name in ["pattern model", "local estimate", "density only"] {
        assert!(s.contains(&format!("| {name} | ")), "{s}");
    }
    let bins: Vec<usize> = s
        .lines()
        .filter(|l| l.starts_with("| 0.") || l.starts_with("| 1."))
        .map(|l| l.split('|').nth(2).unwrap().trim().parse().unwrap())
        .collect();
    assert!(!bins.is_empty() && bins.iter().all(|&c| c > 0), "{s}");
    assert_eq!(bins.iter().sum::<usize>(), samples, "{s}");
}

/// Where an output file cannot be, the run is refused before its games are played.
#[test]
fn an_output_that_is_a_directory_is_refused_before_the_run() {
    let dir = Scratch::new("out-dir");
    let mut args = words("minesweeper train --games 100000000 --out");
    args.push(dir.0.to_str().unwrap());
    let out = gameai(&args, b"");
    assert_failed(&out, "it is a directory");
}

#[test]
fn a_negative_number_is_a_bad_value_of_its_option() {
    fails_with(&[
        (
            "minesweeper eval --games -5",
            "invalid value '-5' for '--games <GAMES>'",
        ),
        (
            "battleship eval --seed -1",
            "invalid value '-1' for '--seed <SEED>'",
        ),
        (
            "gomoku play --time-ms -3",
            "invalid value '-3' for '--time-ms <TIME_MS>'",
        ),
    ]);
}

#[test]
fn train_and_calibrate_show_their_own_defaults() {
    for (command, games, seed) in [("train", "300", "1"), ("calibrate", "100", "2")] {
        let out = gameai(&["minesweeper", command, "--help"], b"");
        assert!(out.status.success());
        let help = text(&out.stdout);
        let line = |option: &str| {
            help.lines()
                .find(|l| l.trim_start().starts_with(option))
                .unwrap_or_default()
                .to_owned()
        };
        assert!(
            line("--games").ends_with(&format!("[default: {games}]")),
            "{help}"
        );
        assert!(
            line("--seed").ends_with(&format!("[default: {seed}]")),
            "{help}"
        );
    }
}

#[test]
fn the_exit_status_tells_parser_refusals_from_other_errors() {
    for (args, status, message) in [
        // The argument parser: a value outside its option's range.
        (
            "minesweeper eval --tolerance 2",
            2,
            "invalid value '2' for '--tolerance <TOLERANCE>'",
        ),
        // Names, checked by the parser in every command.
        (
            "battleship eval --shooter nope",
            2,
            "invalid value 'nope' for '--shooter <SHOOTER>': unknown shooter `nope`",
        ),
        (
            "battleship show - --rules nope",
            2,
            "invalid value 'nope' for '--rules <RULES>': unknown rule set `nope`",
        ),
        (
            "battleship eval --board 10",
            2,
            "invalid value '10' for '--board <BOARD>': expected WxH",
        ),
        (
            "gomoku play --colour green",
            2,
            "invalid value 'green' for '--colour <COLOUR>': unknown colour",
        ),
        (
            "gomoku match deep-blue bestfirst",
            2,
            "invalid value 'deep-blue' for '<ENGINE_A>': unknown engine",
        ),
        (
            "gomoku match bestfirst cmd:",
            2,
            "invalid value 'cmd:' for '<ENGINE_B>': cmd: needs a program",
        ),
        // The form of a value, with a minus too (not taken for an unknown option `-1`).
        (
            "minesweeper eval --start 5,99999999999999999999999",
            2,
            "invalid value '5,99999999999999999999999' for '--start <START>': \
             `5,99999999999999999999999`: a number is too large",
        ),
        (
            "minesweeper eval --start -1,0",
            2,
            "invalid value '-1,0' for '--start <START>': start `-1,0`: expected corner",
        ),
        (
            "minesweeper eval --level -1x2x3",
            2,
            "invalid value '-1x2x3' for '--level <LEVEL>': unknown level",
        ),
        (
            "gomoku match alphabeta bestfirst --nodes -1,2",
            2,
            "invalid value '-1,2' for '--nodes <NODES>': expected a number of nodes",
        ),
        (
            "battleship eval --board -1x2",
            2,
            "invalid value '-1x2' for '--board <BOARD>': expected WxH",
        ),
        (
            "battleship eval --fleet 18446744073709551616",
            2,
            "invalid value '18446744073709551616' for '--fleet <FLEET>': the length \
             18446744073709551616 is too large",
        ),
        // Later checks: a start cell that does not fit the level, a ship the board.
        (
            "minesweeper eval --start 9,0",
            1,
            "gameai: --start 9,0 is outside the 9x9 board",
        ),
        (
            "battleship eval --fleet 11",
            1,
            "gameai: the fleet cannot fit: S0 of length 11 does not fit on a 10x10 board",
        ),
    ] {
        let out = gameai(&words(args), b"");
        assert_eq!(out.status.code(), Some(status), "{args}");
        assert_failed(&out, message);
    }
}

/// Ctrl-C stops a long evaluation cleanly: the games in play finish, the summary, the JSON
/// line and the records cover the games started, the first ones (those of a run of
/// that many games, record for record), and the run fails saying so. Both evaluations, which
/// share the mechanism; the signal is sent with `kill`, as a terminal would.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_an_evaluation_and_keeps_the_games_played() {
    let dir = Scratch::new("interrupt");
    for (game, args) in [
        (
            "minesweeper",
            "minesweeper eval --level expert --seed 3 --json",
        ),
        ("battleship", "battleship eval --seed 3 --json"),
    ] {
        let records = dir.file(&format!("{game}.jsonl"));
        let run = |games: &str| {
            let mut a = words(args);
            a.extend(["--games", games, "--records", records.to_str().unwrap()]);
            a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        };
        // Time to start and play some games; far too little for a million.
        let out = interrupted_after_2_s(&run("1000000"));
        let played = interrupted_report(&out, 1000000);
        let stopped = std::fs::read_to_string(&records).unwrap();
        assert_eq!(stopped.lines().count(), played, "{game}");
        let json = text(&out.stdout).lines().last().unwrap().to_owned();
        let key = if game == "minesweeper" {
            "played"
        } else {
            "games"
        };
        assert_eq!(json_number(&json, key) as usize, played, "{json}");
        assert_eq!(json_number(&json, "games_asked"), 1e6, "{json}");
        if played > 0 {
            let again = gameai(
                &run(&played.to_string())
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
                b"",
            );
            assert!(again.status.success(), "{}", text(&again.stderr));
            assert_eq!(
                std::fs::read_to_string(&records).unwrap(),
                stopped,
                "{game}"
            );
        }
    }
}

/// Ctrl-C outside a run of games quits at once (status 130), and an output file being
/// written is not left half-made: the old file of that name stays as it was, and the
/// temporary file that would have replaced it is removed. The same for the termination
/// signals (`kill`, `timeout`, a closed terminal).
#[cfg(unix)]
#[test]
fn ctrl_c_while_writing_a_file_keeps_the_old_one_and_no_partial_file() {
    let dir = Scratch::new("interrupt-writing");
    let out_file = dir.file("boards.jsonl");
    let mut args: Vec<String> = words(
        "minesweeper boards --level 100x100x2000 --games 100000000 --rule safe --start corner --out",
    )
    .into_iter()
    .map(String::from)
    .collect();
    args.push(out_file.to_str().unwrap().to_owned());
    for signal in ["INT", "TERM", "HUP"] {
        std::fs::write(&out_file, "old\n").unwrap();
        let out = signalled_after_2_s(&args, signal);
        assert_eq!(
            out.status.code(),
            Some(130),
            "{signal}: {}",
            text(&out.stderr)
        );
        assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "old\n");
        let names: Vec<String> = std::fs::read_dir(out_file.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["boards.jsonl"], "{signal}: files left: {names:?}");
    }
}

/// A game in play does not hold up a stopped evaluation for long: under `timeout`, which
/// sends one signal, a run whose game takes minutes (a chain that re-places the whole fleet
/// at each step, with exact counting off) reports what it played once the grace after the
/// signal is over.
#[cfg(unix)]
#[test]
fn a_stopped_evaluation_does_not_wait_long_for_a_slow_game() {
    let args: Vec<String> =
        words("battleship eval --games 2 --threads 1 --block 5 --exact-nodes 0 --seed 3 --json")
            .into_iter()
            .map(String::from)
            .collect();
    let start = std::time::Instant::now();
    let out = signalled_after_2_s(&args, "TERM");
    let took = start.elapsed();
    assert_eq!(interrupted_report(&out, 2), 0);
    assert!(
        text(&out.stderr).contains("games still in play 10 s after the stop are left out"),
        "{}",
        text(&out.stderr)
    );
    let json = text(&out.stdout).lines().last().unwrap().to_owned();
    assert_eq!(json_number(&json, "games"), 0.0, "{json}");
    // Two seconds before the signal, ten of grace, and some to spare on a loaded machine.
    assert!(took < std::time::Duration::from_secs(30), "{took:?}");
}

/// A signal during a command that writes a file and plays no games (`minesweeper boards`)
/// quits at once, leaves no partial file, and says the output was not written.
#[cfg(unix)]
#[test]
fn a_signal_while_writing_boards_says_the_output_was_not_written() {
    let dir = common::Scratch::new("boards-signal");
    let path = dir.file("boards.jsonl");
    let mut args: Vec<String> = words("minesweeper boards --level expert --games 100000000 --out")
        .into_iter()
        .map(String::from)
        .collect();
    args.push(path.to_str().unwrap().to_owned());
    let out = signalled_after_2_s(&args, "TERM");
    assert_eq!(out.status.code(), Some(130));
    let err = text(&out.stderr);
    assert!(
        err.contains("gameai: interrupted: the output was not written"),
        "{err}"
    );
    assert!(!path.exists());
    assert_eq!(
        std::fs::read_dir(&dir.0).unwrap().count(),
        0,
        "nothing left behind"
    );
}

/// A termination signal (from `kill` or `timeout`) stops an evaluation as Ctrl-C does: the
/// games played are reported.
#[cfg(unix)]
#[test]
fn a_termination_signal_stops_an_evaluation_and_keeps_the_games_played() {
    let args: Vec<String> = words("battleship eval --games 1000000 --seed 3 --json")
        .into_iter()
        .map(String::from)
        .collect();
    let out = signalled_after_2_s(&args, "TERM");
    let played = interrupted_report(&out, 1000000);
    let json = text(&out.stdout).lines().last().unwrap().to_owned();
    assert_eq!(json_number(&json, "games"), played as f64, "{json}");
}
