//! Rules validation, fleets and their file format, text positions, the engine and the
//! simulator.
#![allow(clippy::unwrap_used, clippy::needless_range_loop)]

use std::sync::Arc;

use battleship::{
    Adjacency, Dir, Error, Feedback, Fleet, Game, Geometry, Placer, Rules, ShipPlacement, ShipSpec,
    ShooterKind, Shot, View, cells_of, game_seed, play, read_fleet, read_fleets, seeded_fleet,
    text,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn geo(r: &Rules) -> Arc<Geometry> {
    Geometry::new(r).unwrap()
}

fn msg(e: Error) -> String {
    e.to_string()
}

#[test]
fn rules_are_validated() {
    let bad = |f: &dyn Fn(&mut Rules), expected: &str| {
        let mut r = Rules::standard();
        f(&mut r);
        let e = msg(Geometry::new(&r).unwrap_err());
        assert!(e.contains(expected), "{e}");
    };
    bad(&|r| r.width = 0, "is empty");
    bad(&|r| r.width = 13, "at most 128");
    bad(&|r| r.fleet.clear(), "1 to 32 ships");
    bad(
        &|r| r.fleet[1].name = "Carrier".into(),
        "two ships are named `Carrier`",
    );
    bad(
        &|r| r.fleet[1].name = " Carrier ".into(),
        "two ships are named `Carrier`",
    );
    bad(&|r| r.fleet[0].length = 11, "does not fit on a 10x10 board");
    // A ship longer than both sides is a fleet that cannot fit, like one with too many cells.
    let mut r = Rules::standard();
    r.fleet[0].length = 11;
    assert!(matches!(Geometry::new(&r), Err(Error::FleetDoesNotFit(_))));
    bad(
        &|r| r.fleet[0].length = 0,
        "has length 0: a ship covers at least one cell",
    );
    bad(&|r| r.salvo = 0, "a salvo has 1 to 100 shots");
    bad(
        &|r| r.salvo = 101,
        "a salvo has 1 to 100 shots (one per cell of the board), not 101",
    );
    bad(&|r| r.fleet[2].name = " ".into(), "has no name");
    // 17 cells cannot fit on 4x4 = 16 cells.
    bad(
        &|r| {
            r.width = 4;
            r.height = 4;
            r.fleet = vec![ShipSpec::new("A", 4); 1];
            r.fleet
                .extend((0..13).map(|i| ShipSpec::new(&format!("B{i}"), 1)));
        },
        "cannot fit",
    );
    // Three 3-ships do not fit on 3x3 without touching.
    let r = Rules {
        width: 3,
        height: 3,
        fleet: vec![
            ShipSpec::new("A", 3),
            ShipSpec::new("B", 3),
            ShipSpec::new("C", 3),
        ],
        adjacency: Adjacency::NoTouch,
        ..Rules::standard()
    };
    assert!(matches!(Geometry::new(&r), Err(Error::FleetDoesNotFit(_))));
    assert!(
        Geometry::new(&Rules {
            adjacency: Adjacency::Allowed,
            ..r
        })
        .is_ok()
    );
    // Each limit is inclusive: 128 cells, 32 ships, one shot per cell, ship cells filling
    // the board.
    let good = |f: &dyn Fn(&mut Rules)| {
        let mut r = Rules::standard();
        f(&mut r);
        Geometry::new(&r).unwrap();
    };
    good(&|r| (r.width, r.height) = (16, 8));
    good(&|r| {
        r.fleet = (0..32)
            .map(|i| ShipSpec::new(&format!("S{i}"), 1))
            .collect()
    });
    bad(
        &|r| {
            r.fleet = (0..33)
                .map(|i| ShipSpec::new(&format!("S{i}"), 1))
                .collect()
        },
        "1 to 32 ships, not 33",
    );
    good(&|r| r.salvo = 100);
    good(&|r| {
        (r.width, r.height) = (4, 4);
        r.fleet = vec![ShipSpec::new("A", 4)];
        r.fleet
            .extend((0..12).map(|i| ShipSpec::new(&format!("B{i}"), 1)));
    });
    assert_eq!(Rules::by_name("standard").unwrap(), Rules::standard());
    assert_eq!(Rules::by_name("no-touch").unwrap(), Rules::no_touch());
    for f in Feedback::ALL {
        assert_eq!(f.to_string(), f.name());
    }
    assert!(Rules::by_name("nope").is_err());
    assert!(matches!(
        "nope".parse::<Feedback>(),
        Err(Error::UnknownName {
            kind: "feedback",
            ..
        })
    ));
    assert!(matches!(
        "nope".parse::<Adjacency>(),
        Err(Error::UnknownName {
            kind: "adjacency rule",
            ..
        })
    ));
    for a in Adjacency::ALL {
        assert_eq!(a.to_string().parse::<Adjacency>().unwrap(), a);
        assert_eq!(
            format!(" {} ", a.name().to_ascii_uppercase())
                .parse::<Adjacency>()
                .unwrap(),
            a
        );
    }
    assert!(matches!(
        "nope".parse::<ShooterKind>(),
        Err(Error::UnknownName { kind: "shooter", ref name, .. }) if name == "nope"
    ));
    assert!(matches!(
        "nope".parse::<battleship::Placer>(),
        Err(Error::UnknownName { kind: "placer", .. })
    ));
    for f in Feedback::ALL {
        assert_eq!(f.name().parse::<Feedback>().unwrap(), f);
    }
    for k in ShooterKind::ALL {
        assert_eq!(k.name().parse::<ShooterKind>().unwrap(), k);
    }
    // Names ignore ASCII case and surrounding spaces, as the Minesweeper crate's do.
    let loud = |name: &str| format!(" {} ", name.to_ascii_uppercase());
    assert_eq!(
        Rules::by_name(&loud("no-touch")).unwrap(),
        Rules::no_touch()
    );
    for f in Feedback::ALL {
        assert_eq!(loud(f.name()).parse::<Feedback>().unwrap(), f);
    }
    for k in ShooterKind::ALL {
        assert_eq!(loud(k.name()).parse::<ShooterKind>().unwrap(), k);
    }
    for p in [battleship::Placer::Uniform, battleship::Placer::AntiDensity] {
        assert_eq!(loud(p.name()).parse::<battleship::Placer>().unwrap(), p);
    }
}

/// Whether ships of `lengths` can be placed on `w` x `h` without touching, by brute force.
fn fits_apart(w: usize, h: usize, lengths: &[usize], taken: &[(usize, usize)]) -> bool {
    let Some((&l, rest)) = lengths.split_first() else {
        return true;
    };
    let near = |(x, y): (usize, usize)| {
        taken
            .iter()
            .any(|&(a, b)| a.abs_diff(x) <= 1 && b.abs_diff(y) <= 1)
    };
    for vertical in [false, true] {
        for y in 0..h {
            for x in 0..w {
                let cells: Vec<(usize, usize)> = (0..l)
                    .map(|i| if vertical { (x, y + i) } else { (x + i, y) })
                    .collect();
                if cells.iter().any(|&(a, b)| a >= w || b >= h || near((a, b))) {
                    continue;
                }
                let more: Vec<_> = taken.iter().copied().chain(cells).collect();
                if fits_apart(w, h, rest, &more) {
                    return true;
                }
            }
        }
    }
    false
}

/// The no-touch room check refuses only fleets that cannot be placed (by brute force, on
/// every board of up to 4x4 and fleets of up to four ships of lengths 1 to 3), and refuses
/// at once a crowded fleet that a search for a placement could not rule out.
#[test]
fn no_touch_fleets_without_room_are_refused() {
    let mut refused = 0;
    for (w, h) in (1..=4).flat_map(|w| (1..=4).map(move |h| (w, h))) {
        for ships in 1..=4u32 {
            for code in 0..3usize.pow(ships) {
                let lengths: Vec<usize> =
                    (0..ships).map(|i| code / 3usize.pow(i) % 3 + 1).collect();
                let r = Rules {
                    width: w,
                    height: h,
                    fleet: (lengths.iter().enumerate())
                        .map(|(i, &l)| ShipSpec::new(&format!("S{i}"), l))
                        .collect(),
                    adjacency: Adjacency::NoTouch,
                    ..Rules::standard()
                };
                if let Err(e) = r.validate()
                    && msg(e.clone()).contains("no-touch")
                {
                    refused += 1;
                    assert!(!fits_apart(w, h, &lengths, &[]), "{w}x{h} {lengths:?}: {e}");
                }
            }
        }
    }
    assert!(refused > 100, "{refused}");
    let crowded = Rules {
        fleet: (0..12)
            .map(|i| ShipSpec::new(&format!("S{i}"), 5))
            .collect(),
        ..Rules::no_touch()
    };
    let start = std::time::Instant::now();
    let e = msg(Geometry::new(&crowded).unwrap_err());
    assert!(e.contains("this fleet's blocks take 144"), "{e}");
    assert!(start.elapsed().as_secs() < 1);
    // The bound is tight: a ship as long as a one-row board.
    let row = Rules {
        width: 5,
        height: 1,
        fleet: vec![ShipSpec::new("A", 5)],
        ..Rules::no_touch()
    };
    assert!(Geometry::new(&row).is_ok());
}

fn place(x: usize, y: usize, dir: Dir) -> ShipPlacement {
    ShipPlacement { x, y, dir }
}

#[test]
fn fleets_are_validated() {
    let g = geo(&Rules::standard());
    let ok = vec![
        place(0, 0, Dir::Horizontal),
        place(0, 1, Dir::Horizontal),
        place(0, 2, Dir::Horizontal),
        place(0, 3, Dir::Horizontal),
        place(0, 4, Dir::Horizontal),
    ];
    assert!(Fleet::new(&g, ok.clone()).is_ok());
    let e = msg(Fleet::new(&g, ok[..4].to_vec()).unwrap_err());
    assert!(e.contains("4 ships given, the fleet has 5"), "{e}");
    let mut out = ok.clone();
    out[0] = place(6, 0, Dir::Horizontal);
    let e = msg(Fleet::new(&g, out).unwrap_err());
    assert!(
        e.contains("Carrier at 6,0 (h) leaves the 10x10 board"),
        "{e}"
    );
    let mut over = ok.clone();
    over[1] = place(4, 0, Dir::Vertical);
    let e = msg(Fleet::new(&g, over).unwrap_err());
    assert!(e.contains("Battleship overlaps Carrier"), "{e}");
    // Touching: fine under standard, refused under no-touch.
    let nt = geo(&Rules::no_touch());
    let e = msg(Fleet::new(&nt, ok.clone()).unwrap_err());
    assert!(e.contains("touches"), "{e}");
    // Coordinates too large to add to (no overflow, no wrap into another row).
    for (x, y, dir) in [
        (usize::MAX, 0, Dir::Horizontal),
        (usize::MAX - 1, 1, Dir::Horizontal),
        (0, usize::MAX, Dir::Vertical),
    ] {
        let mut far = ok.clone();
        far[4] = place(x, y, dir);
        let e = msg(Fleet::new(&g, far).unwrap_err());
        assert!(e.contains("leaves the 10x10 board"), "{e}");
    }
    // Just off the board: one column right of it growing down, one row below it growing
    // right; the last column and row still hold ships.
    for (x, y, dir) in [(10, 0, Dir::Vertical), (0, 10, Dir::Horizontal)] {
        let mut edge = ok.clone();
        edge[4] = place(x, y, dir);
        let e = msg(Fleet::new(&g, edge).unwrap_err());
        assert!(e.contains("leaves the 10x10 board"), "{e}");
        assert_eq!(g.ship_cells(4, x, y, dir == Dir::Vertical), None);
    }
    assert_eq!(g.ship_cells(4, 9, 8, true), Some(1 << 89 | 1 << 99));
    assert_eq!(g.ship_cells(4, 8, 9, false), Some(3 << 98));
    assert_eq!(g.ship_cells(5, 0, 0, false), None, "no ship 5");
    // A board too large to count its cells is refused, not overflowed.
    let huge = Rules::with_lengths(usize::MAX, 2, &[1]);
    let e = msg(huge.validate().unwrap_err());
    assert!(e.contains("at most 128 are supported"), "{e}");
    // Its cells are not given as usize::MAX, which the count saturates at.
    assert!(e.contains("has more cells than a usize counts"), "{e}");
    let big = msg(Rules::with_lengths(1000, 2, &[1]).validate().unwrap_err());
    assert!(big.contains("board 1000x2 has 2000 cells"), "{big}");
}

#[test]
fn views_take_only_answers_the_rules_can_give() {
    let r = |feedback| Rules {
        feedback,
        ..Rules::with_lengths(5, 5, &[3, 2])
    };
    let answers = [
        (Shot::Hit { ship: Some(0) }, [false, false, true, false]),
        (
            Shot::Sunk {
                ship: 1,
                cells: None,
            },
            // Not under sunk-reveals-cells, whose sinkings give the cells.
            [true, false, true, false],
        ),
        (
            Shot::Sunk {
                ship: 1,
                cells: Some(0b11),
            },
            [false, false, false, true],
        ),
        (
            Shot::Sunk {
                ship: 1,
                cells: Some(0b110),
            },
            [false, false, false, false],
        ),
        (Shot::Hit { ship: Some(7) }, [false; 4]),
    ];
    for (shot, allowed) in answers {
        for (feedback, ok) in Feedback::ALL.into_iter().zip(allowed) {
            let mut v = View::new(geo(&r(feedback)));
            // The other cells of a sinking ship were hit before it (those it reveals, or
            // the other cell of the two-cell ship).
            if let Shot::Sunk { cells, .. } = shot {
                let ship = (feedback == Feedback::HitNamesShip).then_some(1);
                let c = cells.unwrap_or(0b11);
                for cell in (1..128).filter(|&i| c >> i & 1 == 1) {
                    v.record(cell, Shot::Hit { ship }).unwrap();
                }
            }
            let before = v.clone();
            let got = v.record(0, shot);
            assert_eq!(got.is_ok(), ok, "{shot:?} under {feedback:?}: {got:?}");
            if !ok {
                assert_eq!(v, before, "a refused answer leaves the view as it was");
            }
        }
    }
    // A ship sinks once.
    let mut v = View::new(geo(&r(Feedback::Standard)));
    let sunk = Shot::Sunk {
        ship: 1,
        cells: None,
    };
    v.record(1, Shot::Hit { ship: None }).unwrap();
    v.record(0, sunk).unwrap();
    assert!(msg(v.record(2, sunk).unwrap_err()).contains("already sunk"));
    // A ship sinks on a line of hits of its length through the sinking cell.
    let mut v = View::new(geo(&r(Feedback::Standard)));
    v.record(2, Shot::Hit { ship: None }).unwrap();
    assert!(msg(v.record(0, sunk).unwrap_err()).contains("no line of its length"));
    v.record(5, Shot::Hit { ship: None }).unwrap();
    v.record(0, sunk).unwrap();
    // The answer distribution of a cell off the board: a certain miss.
    let post = battleship::infer::exact_posterior(&v, &csp_core::Budget::default()).unwrap();
    let d = battleship::infer::answer_distribution(&v, &post, 500);
    assert_eq!(d[0], (Shot::Miss, 1.0));
    assert!(
        d[1..]
            .iter()
            .all(|&(_, p)| p == 0.0 && p.is_sign_positive()),
        "{d:?}"
    );
}

#[test]
fn fleet_files_round_trip_and_report_errors() {
    let g = geo(&Rules::standard());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let fleets: Vec<Fleet> = (0..20)
        .map(|_| Fleet::random(&g, &mut rng).unwrap())
        .collect();
    let file: String = fleets.iter().map(|f| f.to_json(&g) + "\n").collect();
    assert_eq!(read_fleets(&g, &file).unwrap(), fleets);
    // Ships in any order, blank lines skipped.
    let line = r#"{"width":10,"height":10,"ships":[{"length":2,"x":0,"y":9,"dir":"h"},{"length":3,"x":0,"y":2,"dir":"h"},{"length":5,"x":0,"y":0,"dir":"h"},{"length":4,"x":9,"y":0,"dir":"v"},{"length":3,"x":5,"y":5,"dir":"v"}]}"#;
    let f = read_fleets(&g, &format!("\n{line}\n\n")).unwrap();
    assert_eq!(read_fleets(&g, &format!("\u{feff}{line}\n")).unwrap(), f);
    assert_eq!(f[0].placements()[4], place(0, 9, Dir::Horizontal));
    assert_eq!(f[0].placements()[2], place(0, 2, Dir::Horizontal));
    // Fields the reader does not use may hold any JSON; integers may be written as floats.
    let extra = line
        .replacen(
            r#""width":10"#,
            r#""name":"caf\u00e9 \ud83d\ude00\r","score":-12.5e-3,"width":10.0"#,
            1,
        )
        .replacen(r#""x":0,"y":9"#, r#""x":0e3,"y":90E-1"#, 1);
    assert_eq!(read_fleets(&g, &extra).unwrap(), f);
    // However large or small a number in a field nobody reads.
    let extreme = line.replacen(r#""width":10"#, r#""a":1e999,"b":-1e-999,"width":10"#, 1);
    assert_eq!(read_fleets(&g, &extreme).unwrap(), f);
    let cases = [
        ("", "line 1: column 1: unexpected end of line"),
        ("[1]", "line 1: expected an object, found an array"),
        (r#"{"width":9,"height":10,"ships":[]}"#, "the board is 9x10"),
        (r#"{"width":10,"height":10}"#, "missing array `ships`"),
        (r#"{"width":-1,"height":10}"#, "`width` is -1"),
        (r#"{"width":"10","height":10}"#, "`width` is a string"),
        (
            r#"{"width":10.5,"height":10}"#,
            "fleet: `width` is 10.5, expected a whole number, 0 or more",
        ),
        (
            r#"{"width":-1e1,"height":10}"#,
            "fleet: `width` is -1e1, expected a whole number, 0 or more",
        ),
        (
            r#"{"width":1e300,"height":10}"#,
            "fleet: `width` is too large",
        ),
        (
            r#"{"width":1e999,"height":10}"#,
            "fleet: `width` is too large",
        ),
        // Whole or not is read from the text, not from a rounded float.
        (
            r#"{"width":10.0000000000000001,"height":10}"#,
            "fleet: `width` is 10.0000000000000001, expected a whole number, 0 or more",
        ),
        (
            r#"{"width":010,"height":10}"#,
            "column 10: a number does not start with 0 unless it is 0",
        ),
        (
            r#"{"width":10,"height":10,"width":8}"#,
            "column 25: the key \"width\" appears twice in one object",
        ),
        (
            r#"{"width":10,"height":10,"ships":{}}"#,
            "`ships` is an object, expected an array",
        ),
        (
            r#"{"width":10,"height":10,"ships":[5]}"#,
            "ship 1 is an integer, expected an object",
        ),
        (
            r#"{"width":10,"height":10,"ships":[{"length":5,"x":0,"y":0,"dir":1}]}"#,
            "ship 1: `dir` is an integer, expected \"h\" or \"v\"",
        ),
        (
            r#"{"width":10,"s":"\q"}"#,
            "column 18: unknown escape in string",
        ),
        (
            r#"{"width":10,"height":10,"ships":[{"length":6,"x":0,"y":0,"dir":"h"}]}"#,
            "length 6 is not in the fleet",
        ),
        (
            r#"{"width":10,"height":10,"ships":[{"length":5,"x":0,"y":0,"dir":"d"}]}"#,
            "dir `d` is not",
        ),
        (
            r#"{"width":10,"height":10,"ships":[{"length":5,"x":0,"y":0,"dir":"h"}]}"#,
            "1 ship given, the fleet has 5",
        ),
        (
            r#"{"width":10,"height":10,"ships":[{"length":5,"x":0,"y":0}]}"#,
            "missing string field `dir`",
        ),
    ];
    for (input, expected) in cases {
        let e = msg(read_fleet(&g, input).unwrap_err());
        assert!(e.contains(expected), "{input}: {e}");
    }
    let e = msg(read_fleets(&g, &format!("{line}\n{{oops\n")).unwrap_err());
    assert!(e.starts_with("line 2: column 2"), "{e}");
    // A fleet the rules refuse: its line, and the fleet's own error inside.
    let overlap = line.replacen(r#""y":2"#, r#""y":0"#, 1);
    assert_ne!(overlap, line);
    match read_fleets(&g, &format!("{line}\n\n{overlap}\n")).unwrap_err() {
        Error::FleetLine { line: 3, error } => {
            assert!(matches!(*error, Error::InvalidFleet(ref m) if m.contains("overlaps")));
        }
        e => panic!("{e:?}"),
    }
    let e = read_fleet(&g, &overlap).unwrap_err();
    assert!(
        std::error::Error::source(&e).is_none(),
        "the reason is in the message"
    );
    let e = msg(e);
    assert!(e.starts_with("line 1: invalid fleet: "), "{e}");
    assert!(e.contains("overlaps"), "{e}");
}

#[test]
fn text_positions_round_trip_and_report_errors() {
    let p = text::read("..o.\r\nxs..  \n....\n\n").unwrap();
    assert_eq!((p.width, p.height), (4, 3));
    assert_eq!(p.misses, 1 << 2);
    assert_eq!(p.hits, 1 << 4);
    assert_eq!(p.sunk, 1 << 5);
    assert_eq!(text::read(&text::write(&p).unwrap()).unwrap(), p);
    // Built by hand past the 128 cells the masks hold, or with none: refused, as reading
    // refuses such a text (a huge one was written, up to memory's end).
    for (width, height) in [(20, 10), (1 << 20, 1 << 20), (0, 5), (usize::MAX, 2)] {
        let big = text::TextPosition {
            width,
            height,
            misses: u128::MAX,
            hits: 0,
            sunk: 0,
        };
        let e = msg(text::write(&big).unwrap_err());
        assert!(e.contains("a position has 1 to 128 cells"), "{e}");
    }
    let e = msg(text::read("...\n..\n").unwrap_err());
    assert_eq!(e, "line 2: row has 2 cells, the first row has 3");
    let e = msg(text::read("..\n.q\n").unwrap_err());
    assert_eq!(
        e,
        "line 2: column 2: unknown character `q` (expected `.`, `o`, `x` or `s`)"
    );
    assert_eq!(
        msg(text::read("\n\n").unwrap_err()),
        "line 1: the position is empty"
    );
    assert_eq!(text::read("\u{feff}..o.\r\nxs..  \n....\n").unwrap(), p);
    // Lines ended by CR alone (old Mac files) are lines too, and counted as such.
    assert_eq!(text::read("..o.\rxs..\r....\r").unwrap(), p);
    assert_eq!(
        msg(text::read("..o.\rxs.q\r....\r").unwrap_err()),
        "line 2: column 4: unknown character `q` (expected `.`, `o`, `x` or `s`)"
    );
    // Blank lines before the rows are skipped, and line numbers still count them; a blank
    // line between rows is named.
    assert_eq!(text::read("\n  \r\n..o.\nxs..\n....\n").unwrap(), p);
    assert_eq!(
        msg(text::read("\n\n..\n.q\n").unwrap_err()),
        "line 4: column 2: unknown character `q` (expected `.`, `o`, `x` or `s`)"
    );
    assert_eq!(
        msg(text::read("..o.\n\nxs..\n").unwrap_err()),
        "line 2: a blank line between rows"
    );
    let big = ".".repeat(12) + "\n";
    assert_eq!(
        msg(text::read(&big.repeat(12)).unwrap_err()),
        "line 11: more than 128 cells",
        "the first row past 128 cells is named"
    );
    let full = text::read(&(".".repeat(16) + "\n").repeat(8)).unwrap();
    assert_eq!((full.width, full.height), (16, 8), "128 cells are allowed");
    // The view takes the position's size, not the rules'.
    let v = text::read("..o...\n......\n.x....\n......\n......\n")
        .unwrap()
        .view(&Rules::standard())
        .unwrap();
    let r = v.geometry().rules();
    assert_eq!((r.width, r.height, r.fleet.len()), (6, 5, 5));
    assert_eq!((v.misses(), v.hits()), (1 << 2, 1 << 13));
    // Sunk cells need rules under which a sinking is announced.
    let rules = Rules::with_lengths(4, 3, &[2]);
    for feedback in Feedback::ALL {
        let r = Rules {
            feedback,
            ..rules.clone()
        };
        let sunk = text::read("ss..\n....\n....\n").unwrap().view(&r);
        let hit = text::read("xx..\n....\n....\n").unwrap().view(&r);
        assert!(hit.is_ok());
        if feedback == Feedback::Bare {
            assert!(msg(sunk.unwrap_err()).contains("mark those cells as hits"));
        } else {
            assert!(sunk.is_ok(), "{feedback:?}");
        }
    }
}

#[test]
fn the_engine_answers_as_the_feedback_rule_says() {
    for feedback in Feedback::ALL {
        let r = Rules {
            feedback,
            ..Rules::standard()
        };
        let g = geo(&r);
        let fleet = Fleet::new(
            &g,
            vec![
                place(0, 0, Dir::Horizontal),
                place(0, 2, Dir::Horizontal),
                place(0, 4, Dir::Horizontal),
                place(0, 6, Dir::Horizontal),
                place(0, 8, Dir::Horizontal),
            ],
        )
        .unwrap();
        let mut game = Game::new(g.clone(), fleet).unwrap();
        assert_eq!(game.shoot(9).unwrap(), Shot::Miss);
        // What is wrong with a shot is told apart by the error, not only its message.
        assert_eq!(game.shoot(9), Err(Error::AlreadyShot { cell: 9 }));
        assert_eq!(game.shoot(100), Err(Error::OffBoard { cell: 100 }));
        assert_eq!(
            game.shoot(100).unwrap_err().to_string(),
            "invalid shot: cell 100 is off the board"
        );
        // The patrol boat (ship 4) at row 8.
        let first = game.shoot(80).unwrap();
        let second = game.shoot(81).unwrap();
        match feedback {
            Feedback::Bare => {
                assert_eq!(first, Shot::Hit { ship: None });
                assert_eq!(second, Shot::Hit { ship: None });
            }
            Feedback::HitNamesShip => {
                assert_eq!(first, Shot::Hit { ship: Some(4) });
                assert_eq!(
                    second,
                    Shot::Sunk {
                        ship: 4,
                        cells: None
                    }
                );
            }
            Feedback::Standard => {
                assert_eq!(first, Shot::Hit { ship: None });
                assert_eq!(
                    second,
                    Shot::Sunk {
                        ship: 4,
                        cells: None
                    }
                );
            }
            Feedback::SunkRevealsCells => {
                assert_eq!(
                    second,
                    Shot::Sunk {
                        ship: 4,
                        cells: Some(0b11 << 80)
                    }
                );
            }
        }
        assert!(!game.is_over());
        for c in cells_of(game.fleet().all_cells()) {
            if game.view().unknown() >> c & 1 == 1 {
                game.shoot(c).unwrap();
            }
        }
        assert!(game.is_over());
        assert_eq!(game.shoot(99), Err(Error::GameOver));
        // With every cell shot, a shooter has nothing to choose.
        let mut view = View::new(g.clone());
        for c in 0..100 {
            view.record(c, Shot::Miss).unwrap();
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for kind in [
            ShooterKind::Random,
            ShooterKind::Density,
            ShooterKind::Article,
        ] {
            let mut shooter = kind.build();
            assert_eq!(
                shooter.choose(&view, &mut rng).map(|d| d.cell),
                Err(Error::NoCellLeft),
                "{kind}"
            );
        }
    }
}

#[test]
fn every_shooter_finishes_games_reproducibly() {
    for r in [Rules::standard(), Rules::no_touch()] {
        let g = geo(&r);
        for kind in ShooterKind::ALL {
            for i in 0..2 {
                let fleet = seeded_fleet(&g, Placer::Uniform, 3, i).unwrap();
                let mut a = kind.build();
                let ra = play(&g, fleet.clone(), a.as_mut(), game_seed(4, i));
                assert!(ra.error.is_none(), "{kind}: {:?}", ra.error);
                assert!((17..=100).contains(&ra.shots), "{kind}: {}", ra.shots);
                let mut b = kind.build();
                let rb = play(&g, fleet, b.as_mut(), game_seed(4, i));
                assert_eq!(ra.shots, rb.shots, "{kind} is not reproducible");
            }
        }
    }
}

#[test]
fn salvo_games_finish() {
    let r = Rules {
        salvo: 3,
        ..Rules::standard()
    };
    let g = geo(&r);
    // The last ship cells may all be pending within a turn: nothing left to shoot can hit.
    for kind in [
        ShooterKind::Posterior,
        ShooterKind::Endgame,
        ShooterKind::Density,
    ] {
        for i in 0..3 {
            let fleet = seeded_fleet(&g, Placer::Uniform, 1, i).unwrap();
            let mut s = kind.build();
            let rec = play(&g, fleet, s.as_mut(), game_seed(2, i));
            assert!(rec.error.is_none(), "{kind} game {i}: {:?}", rec.error);
            assert!((17..=100).contains(&rec.shots));
        }
    }
}

#[test]
fn anti_density_fleets_hug_the_edges() {
    let g = geo(&Rules::standard());
    let edge = |f: &Fleet| {
        cells_of(f.all_cells())
            .filter(|&c| c % 10 == 0 || c % 10 == 9 || c / 10 == 0 || c / 10 == 9)
            .count()
    };
    let (mut u, mut a) = (0, 0);
    for i in 0..20 {
        u += edge(&seeded_fleet(&g, Placer::Uniform, 1, i).unwrap());
        a += edge(&seeded_fleet(&g, Placer::AntiDensity, 1, i).unwrap());
    }
    assert!(a > u + 40, "anti-density {a} edge cells vs uniform {u}");
}

/// Uniform fleets: each of the 180 placements of the patrol boat on the empty board should be
/// about equally likely... not quite (edges interact with other ships), so compare the cell
/// frequencies of all ships with the exact empty-board marginals of a small board instead,
/// under both adjacency rules (no-touch rejects fleets by the ships' halos).
#[test]
fn random_fleets_are_uniform_on_a_small_board() {
    for adjacency in [Adjacency::Allowed, Adjacency::NoTouch] {
        let r = Rules {
            width: 5,
            height: 5,
            fleet: vec![
                ShipSpec::new("A", 3),
                ShipSpec::new("B", 2),
                ShipSpec::new("C", 2),
            ],
            adjacency,
            ..Rules::standard()
        };
        let g = geo(&r);
        let view = View::new(g.clone());
        let exact =
            battleship::infer::exact_posterior(&view, &csp_core::Budget::default()).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let n = 20_000;
        let mut counts = [0u32; 25];
        for _ in 0..n {
            let f = Fleet::random(&g, &mut rng).unwrap();
            for c in cells_of(f.all_cells()) {
                counts[c] += 1;
            }
        }
        for c in 0..25 {
            let p = exact.hit[c];
            let f = f64::from(counts[c]) / f64::from(n);
            let se = (p * (1.0 - p) / f64::from(n)).sqrt();
            assert!(
                (f - p).abs() < 5.0 * se.max(1e-9),
                "{adjacency:?}, cell {c}: {f} vs {p}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any sequence of shots: the engine never panics, refuses repeats, answers consistently
    /// with the fleet, and the game ends exactly when every ship cell has been hit.
    #[test]
    fn arbitrary_shot_sequences(seed in any::<u64>(), shots in proptest::collection::vec(0usize..110, 0..150), feedback in 0usize..4, no_touch in any::<bool>()) {
        let r = Rules {
            feedback: Feedback::ALL[feedback],
            adjacency: if no_touch { Adjacency::NoTouch } else { Adjacency::Allowed },
            ..Rules::standard()
        };
        let g = geo(&r);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let fleet = Fleet::random(&g, &mut rng).unwrap();
        let ships = fleet.all_cells();
        let mut game = Game::new(g.clone(), fleet).unwrap();
        let mut shot = 0u128;
        for c in shots {
            let over = game.is_over();
            let res = game.shoot(c);
            if c >= 100 || over || shot >> c & 1 == 1 {
                prop_assert!(res.is_err());
                continue;
            }
            let s = res.unwrap();
            shot |= 1u128 << c;
            prop_assert_eq!(s == Shot::Miss, ships >> c & 1 == 0);
            prop_assert_eq!(game.is_over(), ships & !shot == 0);
            // The view stays consistent with the truth: the exact posterior never says 0 for a
            // ship cell (cheap once a few shots are in; skip early positions).
            if game.view().shots() > 60 && !game.is_over() {
                let post = battleship::infer::exact_posterior(game.view(), &csp_core::Budget { max_nodes: 200_000 });
                match post {
                    Ok(p) => {
                        for k in cells_of(ships) {
                            prop_assert!(p.hit[k] > 0.0);
                        }
                    }
                    // Too large to count within the budget: nothing to check here. Any other
                    // error (the true fleet found inconsistent, say) is a failure.
                    Err(battleship::Error::Csp(csp_core::CspError::BudgetExceeded { .. })) => {}
                    Err(e) => prop_assert!(false, "the posterior refused the true fleet's view: {e}"),
                }
            }
        }
    }

    /// Fleets written as JSON read back identically; random fleets are valid.
    #[test]
    fn fleet_json_round_trip(seed in any::<u64>(), no_touch in any::<bool>()) {
        let r = if no_touch { Rules::no_touch() } else { Rules::standard() };
        let g = geo(&r);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let f = Fleet::random(&g, &mut rng).unwrap();
        prop_assert_eq!(f.all_cells().count_ones(), 17);
        prop_assert_eq!(read_fleet(&g, &f.to_json(&g)).unwrap(), f);
    }

    /// Fleets of any lengths (repeated ones too, ships of one cell) on boards of any size
    /// read back identically from their JSON.
    #[test]
    fn fleet_json_round_trip_on_any_rules(
        seed in any::<u64>(),
        w in 2usize..16,
        h in 2usize..12,
        lengths in proptest::collection::vec(1usize..6, 1..7),
        no_touch in any::<bool>(),
    ) {
        let mut r = Rules::with_lengths(w, h, &lengths);
        if no_touch {
            r.adjacency = Adjacency::NoTouch;
        }
        let Ok(g) = Geometry::new(&r) else {
            return Ok(());
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        if let Ok(f) = Fleet::random(&g, &mut rng) {
            prop_assert_eq!(read_fleet(&g, &f.to_json(&g)).unwrap(), f);
        }
    }

    /// Arbitrary text (a byte-order mark, CR, spaces, upper case, characters of several
    /// bytes, blank lines anywhere, more than 128 cells) never panics the position reader,
    /// and accepted positions round-trip.
    #[test]
    fn text_reader_never_panics(s in "\u{feff}?[.oxsOXSqé \r\n]{0,300}") {
        if let Ok(p) = text::read(&s) {
            prop_assert_eq!(text::read(&text::write(&p).unwrap()).unwrap(), p);
        }
    }
}

/// A board one row high and wider than 64 cells: the vertical orientation of a ship has no
/// placement and must not overflow the 128-cell masks (found by fuzzing the text reader).
#[test]
fn a_long_single_row_board_has_no_vertical_placements() {
    let input = format!("{}.\n", "s".repeat(70));
    let pos = battleship::text::read(&input).unwrap();
    let rules = battleship::Rules {
        fleet: vec![
            battleship::ShipSpec::new("A", 3),
            battleship::ShipSpec::new("B", 2),
        ],
        ..battleship::Rules::standard()
    };
    // Whatever the verdict on this position, it is a value, not a panic.
    if let Ok(view) = pos.view(&rules) {
        let _ = battleship::infer::exact_posterior(&view, &csp_core::Budget { max_nodes: 20_000 });
    }
}

/// The placement problems of the standard board, and of an oblong 12x5 board, where the
/// carrier spans the height, keep the halo relation symmetric (the counting engines rely on
/// it).
#[test]
fn placement_problems_have_symmetric_halos() {
    for mut r in [Rules::standard(), Rules::no_touch()] {
        geo(&r).empty_problem().unwrap().check_halos().unwrap();
        r.width = 12;
        r.height = 5;
        geo(&r).empty_problem().unwrap().check_halos().unwrap();
    }
}

/// A game's view written as text marks exactly the cells of the sunk ships `s` whenever it
/// can be written, and the rest as the view has them; under feedback that reveals or names
/// the sunk ships' cells it can always be written. Random games on small boards, under every
/// adjacency and feedback rule, at every shot.
#[test]
fn game_views_written_as_text_mark_the_sunk_ships() {
    use battleship::text::TextPosition;
    use rand::seq::SliceRandom;
    let mut refused = 0;
    let mut written_with_sinkings = 0;
    for adjacency in [Adjacency::Allowed, Adjacency::NoTouch] {
        for feedback in Feedback::ALL {
            let mut r = Rules::with_lengths(5, 4, &[3, 2, 2]);
            r.adjacency = adjacency;
            r.feedback = feedback;
            let g = geo(&r);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
            for _ in 0..40 {
                let fleet = Fleet::random(&g, &mut rng).unwrap();
                let mut game = Game::new(g.clone(), fleet.clone()).unwrap();
                let mut order: Vec<usize> = (0..20).collect();
                order.shuffle(&mut rng);
                for cell in order {
                    if game.is_over() {
                        break;
                    }
                    game.shoot(cell).unwrap();
                    let view = game.view();
                    let sunk = (0..3)
                        .filter(|&i| view.sunk()[i].is_some())
                        .fold(0, |m, i| m | fleet.cells(i));
                    match TextPosition::from_view(view) {
                        Ok(p) => {
                            assert_eq!(p.sunk, sunk, "{feedback:?}");
                            assert_eq!(p.hits, view.hits() & !sunk, "{feedback:?}");
                            assert_eq!(p.misses, view.misses());
                            assert_eq!((p.width, p.height), (5, 4));
                            written_with_sinkings += usize::from(sunk != 0);
                            // It reads back as a view of the same shots.
                            let back = text::read(&text::write(&p).unwrap()).unwrap();
                            assert_eq!(back, p);
                            let v = p.view(&r).unwrap();
                            assert_eq!(v.shots(), view.shots());
                        }
                        Err(Error::AmbiguousSinking(_)) => {
                            assert_eq!(feedback, Feedback::Standard);
                            refused += 1;
                        }
                        Err(e) => panic!("{feedback:?}: {e}"),
                    }
                }
            }
        }
    }
    assert!(written_with_sinkings > 100, "{written_with_sinkings}");
    assert!(refused > 0);
}

/// Two readings of one line of hits: the 2 sank at the middle one, with both neighbours hit.
#[test]
fn a_sinking_the_hits_cannot_place_is_refused_as_text() {
    let from_view = battleship::text::TextPosition::from_view;
    // A game on a `w` x `h` board with ships of `lengths` at `ships`, after `shots`.
    let played = |w, h, lengths: &[usize], ships: Vec<ShipPlacement>, shots: &[usize]| {
        let g = geo(&Rules::with_lengths(w, h, lengths));
        let mut game = Game::new(g.clone(), Fleet::new(&g, ships).unwrap()).unwrap();
        for &cell in shots {
            game.shoot(cell).unwrap();
        }
        game
    };
    let ships = || vec![place(0, 0, Dir::Horizontal), place(2, 0, Dir::Vertical)];
    let mut game = played(3, 3, &[2, 3], ships(), &[2, 0, 1]);
    assert_eq!(
        msg(from_view(game.view()).unwrap_err()),
        "cannot write the position as text: the view does not say whether the hits at 0,0 \
         2,0 belong to sunk ships"
    );
    // Once the 3 sinks too, the union is known.
    for cell in [5, 8] {
        game.shoot(cell).unwrap();
    }
    let p = from_view(game.view()).unwrap();
    assert_eq!(text::write(&p).unwrap(), "sss\n..s\n..s\n");
    // Hit after the 2 sank, the third cell of the line is not one it could hold.
    let game = played(3, 3, &[2, 3], ships(), &[0, 1, 2]);
    let p = from_view(game.view()).unwrap();
    assert_eq!(text::write(&p).unwrap(), "ssx\n...\n...\n");
    // The sinking alone allows cells 1-2 or 2-3 for the first 2, but the hit at 1 could then
    // belong to no ship: the miss at 0 and the sunk ship leave the other 2 no room there.
    let pair = vec![place(1, 0, Dir::Horizontal), place(3, 0, Dir::Horizontal)];
    let game = played(5, 1, &[2, 2], pair, &[0, 1, 3, 2]);
    assert!(game.view().sunk()[0].is_some());
    let p = from_view(game.view()).unwrap();
    assert_eq!(text::write(&p).unwrap(), "ossx.\n");
}
