//! `gameai battleship` as a user runs it.
#![allow(clippy::unwrap_used)]

use std::process::Output;

mod common;
use common::{Scratch, assert_failed, fails_with, text, words};

fn gameai(args: &[&str]) -> Output {
    common::gameai(args, b"")
}

fn last_json(out: &Output) -> String {
    text(&out.stdout).lines().last().unwrap().to_owned()
}

#[test]
fn eval_prints_json_and_does_not_depend_on_threads() {
    let args = |t: &'static str| {
        let mut a = words("battleship eval --games 6 --seed 3 --shooter hunt-target-parity --json");
        a.extend(["--threads", t]);
        a
    };
    let a = gameai(&args("1"));
    assert!(a.status.success(), "{}", text(&a.stderr));
    let b = gameai(&args("2"));
    let ja = last_json(&a);
    for key in [
        "\"games\":6,\"seed\":3,\"placer\":\"uniform\",",
        // A shooter that ignores the posterior has no posterior settings.
        "\"shooter_settings\":\"hunt-target-parity\",\"exact_nodes\":null,\"sweeps\":null,\"block\":null,",
        "\"mean_shots\":",
        "\"median_shots\":",
        "\"p90_shots\":",
        "\"max_shots\":",
        "\"ms_per_shot_mean\":",
        "\"ms_per_shot_max\":",
    ] {
        assert!(ja.contains(key), "{ja}");
    }
    // Everything but the timings is identical.
    let strip = |s: &str| s.split(",\"ms_per_shot_mean\"").next().unwrap().to_owned();
    assert_eq!(strip(&ja), strip(&last_json(&b)));
    // So with the default shooter (exact counts, its endgame search and random tie-breaks,
    // each game on its own seed), on a smaller board to keep the test quick.
    let args = |t: &'static str| {
        let mut a = words("battleship eval --games 4 --seed 5 --board 7x7 --fleet 4,3,2 --json");
        a.extend(["--threads", t]);
        a
    };
    let (a, b) = (gameai(&args("1")), gameai(&args("2")));
    assert!(a.status.success(), "{}", text(&a.stderr));
    assert!(last_json(&a).contains("\"shooter\":\"endgame\""));
    assert_eq!(strip(&last_json(&a)), strip(&last_json(&b)));
}

#[test]
fn eval_plays_a_fleet_file_and_the_default_shooter() {
    let dir = Scratch::new("bs-fleets");
    let file = dir.file("fleets.jsonl");
    let line = r#"{"width":10,"height":10,"ships":[{"length":5,"x":0,"y":0,"dir":"h"},{"length":4,"x":0,"y":2,"dir":"h"},{"length":3,"x":0,"y":4,"dir":"h"},{"length":3,"x":0,"y":6,"dir":"h"},{"length":2,"x":0,"y":8,"dir":"h"}]}"#;
    std::fs::write(&file, format!("{line}\n{line}\n")).unwrap();
    let out = gameai(&[
        "battleship",
        "eval",
        "--fleets",
        file.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(last_json(&out).contains("\"games\":2"));
    assert!(last_json(&out).contains("\"shooter\":\"endgame\""));
    // The summary names the seed, which the shooters' draws depend on.
    let summary = text(&out.stdout);
    assert!(summary.contains(", seed 1, shooter endgame"), "{summary}");
    // The settings that tell runs of one shooter apart.
    let settings = gameai(&[
        "battleship",
        "eval",
        "--fleets",
        file.to_str().unwrap(),
        "--search-fleets",
        "300",
        "--sweeps",
        "50",
        "--json",
    ]);
    let json = last_json(&settings);
    assert!(
        json.contains("\"shooter_settings\":\"endgame (8 candidates, from 300 fleets,"),
        "{json}"
    );
    assert!(json.contains("\"sweeps\":50,\"block\":0,"), "{json}");
    // Touching ships are refused under no-touch, with the line.
    std::fs::write(
        &file,
        format!("{line}\n{}\n", line.replace("\"y\":2", "\"y\":1")),
    )
    .unwrap();
    let out = gameai(&[
        "battleship",
        "eval",
        "--rules",
        "no-touch",
        "--fleets",
        file.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("line 2: invalid fleet: Battleship touches Carrier"),
        "{err}"
    );
    std::fs::write(&file, "{\"width\":10\n").unwrap();
    let out = gameai(&["battleship", "eval", "--fleets", file.to_str().unwrap()]);
    assert_failed(&out, "line 1: column");
    // Fleets of another board: the error says how to ask for it.
    std::fs::write(&file, "{\"width\":6,\"height\":6,\"ships\":[]}\n").unwrap();
    let out = gameai(&["battleship", "eval", "--fleets", file.to_str().unwrap()]);
    assert_failed(
        &out,
        "line 1: the board is 6x6, the rules say 10x10 (--board sets the board of the rules)",
    );
    let out = gameai(&["battleship", "eval", "--shooter", "nope"]);
    assert!(text(&out.stderr).contains("unknown shooter `nope`"));
    assert!(!text(&out.stderr).contains("invalid rules"));
    let out = gameai(&["battleship", "eval", "--placer", "nope"]);
    assert!(text(&out.stderr).contains("unknown placer `nope`"));
}

#[test]
fn show_prints_a_heatmap_and_writes_svg() {
    let dir = Scratch::new("bs-show");
    let pos = dir.file("pos.txt");
    let svg = dir.file("map.svg");
    let mut rows = [".........."; 10];
    rows[4] = "....xo....";
    rows[0] = "ssss......";
    rows[1] = "o.........";
    std::fs::write(&pos, rows.join("\n")).unwrap();
    let show = |extra: &str| {
        let mut args = vec!["battleship", "show", pos.to_str().unwrap()];
        args.extend(["--svg", svg.to_str().unwrap()]);
        args.extend(words(extra));
        let out = gameai(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let s = show("");
    assert!(
        s.contains("best shot (endgame, the default shooter): "),
        "{s}"
    );
    // The default budget counts this position exactly; without the search, the count by
    // frontiers does, to the same map; without either, the chain estimates.
    assert!(s.starts_with("exact: "), "{s}");
    assert_eq!(show("--exact-nodes 0"), s);
    let chain = show("--exact-nodes 0 --frontier-states 0");
    assert!(
        chain.starts_with(
            "estimated by the Markov chain (exact counting skipped by --exact-nodes 0 and \
             --frontier-states 0; standard errors up to "
        ),
        "{chain}"
    );
    // Here the shooter's own budget is exceeded too, and it samples as in play.
    assert!(chain.contains("shooter's own sampled estimate"), "{chain}");
    let over = show("--exact-nodes 1 --frontier-states 1");
    assert!(
        over.contains("(exact counting over --exact-nodes and --frontier-states; "),
        "{over}"
    );
    assert_eq!(show("--exact-nodes 1"), s);
    // One sweep averaged has no spread to measure.
    let one = show("--exact-nodes 0 --frontier-states 0 --sweeps 1");
    assert!(
        one.contains("no standard errors: fewer than 2 sweeps averaged"),
        "{one}"
    );
    // Written to a pipe: plain text, one row a line (a sunk cell, then percentages).
    assert!(!s.contains('\x1b'), "{s}");
    let row0 = s.lines().nth(1).unwrap();
    assert!(row0.starts_with("  s   s   s   s "), "{row0}");
    assert_eq!(row0.split_whitespace().count(), 10, "{row0}");
    // Each row shows its own cells: the miss in row 1, the hit and miss in row 4.
    let cells = |row: usize| -> Vec<String> {
        s.lines()
            .nth(1 + row)
            .unwrap()
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(cells(1)[0], "o", "{s}");
    assert_eq!(cells(4)[4..6], ["x", "o"], "{s}");
    assert!(cells(9).iter().all(|c| c.parse::<u32>().is_ok()), "{s}");
    // The chain's length is the one asked for.
    assert_ne!(
        show("--exact-nodes 0 --frontier-states 0 --sweeps 1"),
        show("--exact-nodes 0 --frontier-states 0"),
        "one sweep estimates differently from the default"
    );
    let c = show("--color always");
    assert!(c.contains("\x1b[48;2;"), "{c}");
    // The same labels under the colours.
    assert_eq!(
        c.lines()
            .nth(1)
            .unwrap()
            .replace("\x1b[0m", "")
            .split("\x1b[")
            .filter_map(|p| p.split_once('m').map(|(_, l)| l.to_owned()))
            .collect::<String>()
            .trim_end(),
        row0.trim_end()
    );
    let svg_text = std::fs::read_to_string(&svg).unwrap();
    assert!(svg_text.starts_with("<svg") && svg_text.contains("<rect"));
    // The picture's cells carry the same labels, row by row.
    let pictured: Vec<&str> = svg_text
        .split("text-anchor=\"middle\">")
        .skip(1)
        .map(|t| t.split('<').next().unwrap())
        .collect();
    let printed: Vec<&str> = s
        .lines()
        .skip(1)
        .take(10)
        .flat_map(str::split_whitespace)
        .collect();
    assert_eq!(pictured, printed);
    assert_eq!(svg_text.matches("<rect ").count(), 100);
    assert!(svg_text.contains("<rect x=\"200\" y=\"160\""), "{svg_text}");
    // On the empty no-touch board (past every budget) the shooter fires on its chain's
    // estimate, and says so.
    std::fs::write(&pos, [".........."; 10].join("\n")).unwrap();
    let empty = show("--rules no-touch --exact-nodes 1000 --frontier-states 0");
    assert!(
        empty.contains("chosen on the shooter's own sampled estimate"),
        "{empty}"
    );
    // The documented run of hits, where the shooter's chain misreads the position: the
    // likeliest cell of the exact map is named beside the shot.
    let bare_run = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/positions/battleship-bare-run.txt"
    );
    let out = gameai(&[
        "battleship",
        "show",
        bare_run,
        "--feedback",
        "bare",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("(hit probability 15.89%; the highest on this map is 21.66%, at 7,3)"),
        "{s}"
    );
    // One patrol boat: 180 fleets, counted exactly by the shooter too.
    let small = show("--fleet 2");
    assert!(
        small.contains("best shot") && !small.contains("sampled"),
        "{small}"
    );
    // Ships of 3, 3 and 2 fill 3x3 all across or all down. The chain moving two ships at a
    // time (--block 0) keeps its first direction: a whole row or column always covered. With
    // the default blocks of three it turns, and only the centre is certain, as exactly.
    std::fs::write(&pos, "...\n...\n...\n").unwrap();
    let rows = |extra: &str| -> Vec<String> {
        let s = show(&format!(
            "--fleet 3,3,2 --exact-nodes 0 --frontier-states 0 {extra}"
        ));
        s.lines().skip(1).take(3).map(str::to_owned).collect()
    };
    // Some row or some column read 100 throughout.
    let row_or_column = |rows: &[String]| {
        let cell = |y: usize, x: usize| rows[y].split_whitespace().nth(x) == Some("100");
        (0..3).any(|i| (0..3).all(|j| cell(i, j)) || (0..3).all(|j| cell(j, i)))
    };
    let stuck = rows("--block 0");
    assert!(row_or_column(&stuck), "{stuck:?}");
    let turned = rows("");
    assert!(!row_or_column(&turned), "{turned:?}");
    assert_eq!(turned.concat().matches("100").count(), 1, "{turned:?}");
    std::fs::write(&pos, "..q\n").unwrap();
    let out = gameai(&["battleship", "show", pos.to_str().unwrap()]);
    assert_failed(&out, "line 1: column 3: unknown character `q`");
}

#[test]
fn show_handles_finished_positions_standard_output_and_feedback() {
    let dir = Scratch::new("bs-show-edges");
    let svg = dir.file("map.svg");
    let show = |position: &str, extra: &str| {
        let mut args = words("battleship show - --fleet 2");
        args.extend(["--svg", svg.to_str().unwrap()]);
        args.extend(words(extra));
        common::gameai(&args, position.as_bytes())
    };
    // Every ship sunk: no shot to recommend.
    let out = show("ss.\n...\n...\n", "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("no shot left") && !s.contains("best shot"),
        "{s}"
    );
    // The default fleet on a small position's board: the error says where the board came
    // from and what to do.
    let out = common::gameai(
        &words("battleship show - --svg -"),
        b".....\n.....\n.....\n",
    );
    assert_failed(
        &out,
        "the fleet cannot fit: 17 ship cells on 15 cells (the board is the position's, 5x3; \
         give a fleet for it with --fleet)",
    );
    // With a fleet given, only where the board came from.
    let out = common::gameai(
        &words("battleship show - --svg - --fleet 4,4,4,4"),
        b".....\n.....\n.....\n",
    );
    assert_failed(&out, "(the board is the position's, 5x3)");
    assert!(!text(&out.stderr).contains("with --fleet"));
    // More hits than ship cells: said as such, not taken for a sunk ship written `x`.
    let out = common::gameai(
        &words("battleship show - --svg - --fleet 3,2"),
        b"xxxx\nxxxx\n....\n....\n",
    );
    assert_failed(
        &out,
        "the position marks 8 cells hit or sunk, and the fleet has 5 ship cells",
    );
    assert!(!text(&out.stderr).contains("mark its"));
    // A ship longer than both sides of the position's board says so too.
    let out = common::gameai(&words("battleship show - --svg -"), b"x...\n");
    assert_failed(
        &out,
        "Carrier of length 5 does not fit on a 4x1 board (the board is the position's, 4x1; \
         give a fleet for it with --fleet)",
    );
    // Eight dominoes tile 4x4: every cell is certain, and the chain's estimates, within
    // rounding of 1, are shown as such, not as "99" (likely).
    let mut args = words(
        "battleship show - --fleet 2,2,2,2,2,2,2,2 --exact-nodes 0 --frontier-states 0 --svg",
    );
    args.push(svg.to_str().unwrap());
    let out = common::gameai(&args, b"....\n....\n....\n....\n");
    let s = text(&out.stdout);
    let rows: Vec<&str> = s.lines().skip(1).take(4).collect();
    assert!(
        rows.iter()
            .all(|r| r.split_whitespace().all(|c| c == "100")),
        "{s}"
    );
    // One fleet left, in words that agree with the number.
    let out = show("oxo\noxo\nooo\n", "--feedback bare");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("exact: 1 consistent fleet\n"));
    // The map estimated, the shot counted exactly on the shooter's own budget: said so.
    let out = show("...\n.x.\n...\n", "--exact-nodes 0 --frontier-states 0");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("chosen on the shooter's own exact count"), "{s}");
    // `--svg -`, or standard output by its name: the SVG alone on standard output.
    for svg in ["-", "/dev/stdout"] {
        if svg != "-" && !cfg!(target_os = "linux") {
            continue;
        }
        let mut args = words("battleship show - --fleet 2 --svg");
        args.push(svg);
        let out = common::gameai(&args, b"...\n.x.\n...\n");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let s = text(&out.stdout);
        assert!(
            s.starts_with("<svg") && s.trim_end().ends_with("</svg>"),
            "{svg}: {s}"
        );
        // The lines around the terminal heatmap go to standard error, not nowhere.
        let e = text(&out.stderr);
        assert!(
            e.starts_with("exact: ") && e.contains("\nbest shot (endgame, the default shooter): "),
            "{svg}: {e}"
        );
    }
    // An SVG path that cannot be written is refused before the posterior is computed or
    // the heatmap printed.
    let mut args = words("battleship show - --fleet 2 --svg");
    let missing = dir.file("no-such-dir").join("map.svg");
    args.push(missing.to_str().unwrap());
    let out = common::gameai(&args, b"...\n.x.\n...\n");
    assert!(!out.status.success());
    assert_eq!(text(&out.stdout), "", "heatmap printed before the refusal");
    assert!(
        text(&out.stderr).contains("no-such-dir"),
        "{}",
        text(&out.stderr)
    );
    // A finished ship written as hits: under announced sinkings no fleet fits, and the
    // error says how to write it; with bare feedback the same position is fine.
    let out = show("oxxo\n.oo.\n", "");
    assert_failed(&out, "mark its cells `s`, not `x`");
    // The same ship standing upright: the run is read on the position's own board.
    let out = show("oxo\noxo\nooo\n", "");
    assert_failed(&out, "mark its cells `s`, not `x`");
    let out = show("oxxo\n.oo.\n", "--feedback bare");
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A hit walled in by misses is the trouble here, not the run of two hits (marked `s`,
    // no fleet fits either): no hint about finished ships.
    let out = common::gameai(
        &words("battleship show - --fleet 2,2 --svg -"),
        b"xxo\nooo\nxo.\n",
    );
    assert!(!out.status.success());
    assert!(
        !text(&out.stderr).contains("mark its cells"),
        "{}",
        text(&out.stderr)
    );
    // A hit walled in by misses, as long as no ship: no fleet fits, and the hint about
    // finished ships would not help.
    let out = show("xo\no.\n", "");
    assert!(!out.status.success());
    assert!(
        !text(&out.stderr).contains("mark its cells"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("no fleet"),
        "{}",
        text(&out.stderr)
    );
    // Sunk cells where no sinking is announced, and a chain asked to record nothing.
    let out = show("ss.\n...\n...\n", "--feedback bare");
    assert_failed(&out, "mark those cells as hits");
    let out = show("...\n.x.\n...\n", "--exact-nodes 0 --sweeps 0");
    assert_failed(&out, "must be at least 1");
    // The fleet here is one patrol boat: a block of two is more ships than there are.
    let out = show("...\n.x.\n...\n", "--block 2");
    assert_failed(&out, "--block 2: the fleet has 1 ship (");
    // Asked for, three is refused as well; only the default adapts to the fleet.
    let out = show("...\n.x.\n...\n", "--block 3");
    assert_failed(&out, "--block 3: the fleet has 1 ship (");
    let out = show("...\n.x.\n...\n", "--salvo 3");
    assert_failed(&out, "unexpected argument '--salvo'");
    // Options that apply to other shooters only.
    fails_with(&[
        (
            "battleship eval --games 2 --shooter random --sweeps 5",
            "--exact-nodes, --sweeps and --block apply to the shooters on the posterior",
        ),
        (
            "battleship eval --games 2 --shooter density --block 3",
            "--exact-nodes, --sweeps and --block apply to the shooters on the posterior",
        ),
        // Blocks of more ships than the fleet has would be recorded as asked, not as made.
        (
            "battleship eval --games 2 --fleet 3,2 --board 5x5 --block 3",
            "--block 3: the fleet has 2 ships",
        ),
        (
            "battleship eval --games 2 --salvo 101",
            "a salvo has 1 to 100 shots",
        ),
    ]);
}

/// The posterior options reach the default shooter: with the chain on every position, one
/// sweep plays other games than the default number.
#[test]
fn posterior_options_reach_the_default_shooter() {
    let shots = |extra: &str| {
        let dir = Scratch::new("bs-posterior");
        let file = dir.file("records.jsonl");
        let mut args = words("battleship eval --games 4 --seed 3 --threads 1 --records");
        args.push(file.to_str().unwrap());
        args.extend(words(extra));
        let out = gameai(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(|l| l.split(",\"estimated\"").next().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_ne!(
        shots("--exact-nodes 0"),
        shots("--exact-nodes 0 --sweeps 1")
    );
    // Block moves of three change the chain, and so the games; of two, nothing.
    let base = shots("--exact-nodes 0 --sweeps 4");
    assert_eq!(base, shots("--exact-nodes 0 --sweeps 4 --block 2"));
    assert_ne!(base, shots("--exact-nodes 0 --sweeps 4 --block 3"));
}

#[test]
fn eval_records_one_line_per_game() {
    let dir = Scratch::new("bs-records");
    let file = dir.file("records.jsonl");
    let mut args = words("battleship eval --games 5 --seed 2 --shooter density --json --records");
    args.push(file.to_str().unwrap());
    let out = gameai(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let records = std::fs::read_to_string(&file).unwrap();
    let shots: Vec<u32> = records
        .lines()
        .enumerate()
        .map(|(i, line)| {
            assert!(
                line.starts_with(&format!("{{\"game\":{i},\"shots\":")),
                "{line}"
            );
            assert!(line.ends_with(",\"estimated\":0,\"error\":null}"), "{line}");
            let field = line.split("\"shots\":").nth(1).unwrap();
            field.split(',').next().unwrap().parse().unwrap()
        })
        .collect();
    assert_eq!(shots.len(), 5);
    // The records add up to the summary.
    let mean = f64::from(shots.iter().sum::<u32>()) / 5.0;
    assert!(
        last_json(&out).contains(&format!("\"mean_shots\":{mean:.4}")),
        "{}",
        last_json(&out)
    );
    // An unwritable path is a clear error.
    let missing = dir.file("missing/records.jsonl");
    let mut bad = words("battleship eval --games 1 --records");
    bad.push(missing.to_str().unwrap());
    let out = gameai(&bad);
    assert_failed(&out, "cannot write");
}

#[test]
fn info_weight_sets_the_hybrid_weight_and_is_refused_elsewhere() {
    let run = |extra: &str| {
        gameai(&words(&format!(
            "battleship eval --games 3 --seed 5 --shooter hybrid --json {extra}"
        )))
    };
    let default = run("");
    assert!(default.status.success(), "{}", text(&default.stderr));
    // The default weight spelled out plays the same games.
    let same = run("--info-weight 0.05");
    assert!(same.status.success(), "{}", text(&same.stderr));
    let strip = |o: &Output| {
        let j = last_json(o);
        j.split(",\"ms_per_shot_mean\"").next().unwrap().to_owned()
    };
    assert_eq!(strip(&default), strip(&same));
    assert!(text(&same.stdout).contains("shooter hybrid (info weight 0.05)"));
    // A weight that makes the entropy dominate plays other games (it hardly finishes a ship).
    let heavy = run("--info-weight 50");
    assert!(heavy.status.success(), "{}", text(&heavy.stderr));
    assert_ne!(strip(&default), strip(&heavy));
    fails_with(&[
        (
            "battleship eval --games 1 --shooter posterior --info-weight 0.3",
            "applies to the hybrid shooter only",
        ),
        (
            "battleship eval --games 1 --shooter hybrid --info-weight=-1",
            "must be a finite number >= 0",
        ),
        // Negative numbers are values, refused for what they are, not unknown options.
        (
            "battleship eval --games 1 --shooter hybrid --info-weight -1",
            "must be a finite number >= 0",
        ),
        (
            "battleship eval --games 1 --fleet -1,2",
            "invalid value '-1,2' for '--fleet <FLEET>': expected ship lengths",
        ),
    ]);
}

#[test]
fn endgame_search_options_set_the_search_and_are_refused_elsewhere() {
    let run = |extra: &str| {
        let out = gameai(&words(&format!(
            "battleship eval --games 3 --seed 5 --json {extra}"
        )));
        assert!(out.status.success(), "{}", text(&out.stderr));
        out
    };
    // The games' figures, without the shooter's name and the timings.
    let games = |o: &Output| {
        let j = last_json(o);
        let from = j.find("\"mean_shots\"").unwrap();
        let to = j.find(",\"ms_per_shot_mean\"").unwrap();
        j[from..to].to_owned()
    };
    let default = run("");
    // The defaults spelled out play the same games.
    let same = run("--candidates 8 --search-fleets 6000 --search-states 200000");
    assert_eq!(games(&default), games(&same));
    assert!(
        text(&same.stdout)
            .contains("shooter endgame (8 candidates, from 6000 fleets, 200000 states)")
    );

    // Without the search it is the greedy posterior shooter, shot for shot; these games
    // differ from the default's.
    let never = run("--search-fleets 0");
    let posterior = run("--shooter posterior");
    assert_eq!(games(&never), games(&posterior));
    assert_ne!(games(&never), games(&default));
    fails_with(&[
        (
            "battleship eval --games 1 --shooter posterior --candidates 16",
            "apply to the endgame shooter only",
        ),
        (
            "battleship eval --games 1 --shooter density --search-fleets 100",
            "apply to the endgame shooter only",
        ),
        (
            "battleship eval --games 1 --shooter hybrid --info-weight 0.3 --candidates 16",
            "apply to the endgame shooter only",
        ),
        (
            "battleship eval --games 1 --candidates 0",
            "invalid value '0' for '--candidates <CANDIDATES>': must be at least 1",
        ),
        (
            "battleship eval --games 1 --search-fleets 2000000",
            "for '--search-fleets <SEARCH_FLEETS>': expected 0 to 1000000 fleets",
        ),
        (
            "battleship eval --games 1 --shooter posterior --search-states 1000",
            "apply to the endgame shooter only",
        ),
        (
            "battleship eval --games 1 --search-fleets 0 --candidates 3",
            "--candidates and --search-states set the endgame search, which --search-fleets 0 \
             turns off",
        ),
        (
            "battleship eval --games 1 --search-fleets 0 --search-states 10",
            "which --search-fleets 0 turns off",
        ),
        (
            "battleship eval --games 1 --search-states 0",
            "for '--search-states <SEARCH_STATES>': expected 1 to 50000000 states",
        ),
        (
            "battleship eval --games 1 --search-states 60000000",
            "for '--search-states <SEARCH_STATES>': expected 1 to 50000000 states",
        ),
    ]);
}

/// The rule set is named in the summary and the JSON as the program spells it, however
/// `--rules` was written (a newline in it would have split the JSON line in two).
#[test]
fn the_rule_set_is_named_as_the_program_spells_it() {
    let out = gameai(&[
        "battleship",
        "eval",
        "--games",
        "2",
        "--shooter",
        "random",
        "--rules",
        " No-Touch\n",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("no-touch rules, standard feedback"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(
        last_json(&out).contains("\"rules\":\"no-touch\""),
        "{stdout}"
    );
    // `show --color` takes its names in any case too.
    let out = common::gameai(
        &words("battleship show - --fleet 2 --svg - --color NEVER"),
        b"...\n.x.\n...\n",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn no_games_is_an_error_not_an_empty_summary() {
    let dir = Scratch::new("bs-empty");
    let empty = dir.file("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let empty = format!("battleship eval --fleets {}", empty.to_str().unwrap());
    fails_with(&[
        ("battleship eval --games 0", "must be at least 1"),
        (
            "battleship eval --games 2 --threads 0",
            "must be at least 1",
        ),
        (&empty, "no fleets"),
    ]);
}

#[test]
fn eval_plays_other_boards_and_fleets() {
    let out = gameai(&words(
        "battleship eval --games 4 --board 6x6 --fleet 3,2,2 --rules no-touch --json",
    ));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let j = last_json(&out);
    assert!(
        j.contains("\"width\":6,\"height\":6,\"fleet\":[3,2,2]"),
        "{j}"
    );
    assert!(text(&out.stdout).contains("6x6 board, fleet 3,2,2"));
    // Every game sinks the 7 ship cells within the 36 cells.
    let mean: f64 = j
        .split("\"mean_shots\":")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!((7.0..=36.0).contains(&mean), "{mean}");
    // The default run names its board and fleet in the JSON line only.
    let out = gameai(&words("battleship eval --games 1 --shooter density --json"));
    assert!(last_json(&out).contains("\"width\":10,\"height\":10,\"fleet\":[5,4,3,3,2]"));
    assert!(!text(&out.stdout).contains("board, fleet"));
    fails_with(&[
        (
            "battleship eval --games 1 --board 12x12",
            "at most 128 are supported",
        ),
        ("battleship eval --games 1 --board 10", "expected WxH"),
        (
            "battleship eval --games 1 --fleet 5,x",
            "expected ship lengths",
        ),
        (
            "battleship eval --games 1 --fleet 11",
            "does not fit on a 10x10 board",
        ),
    ]);
}
