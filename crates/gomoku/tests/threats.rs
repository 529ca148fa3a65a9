//! The threat-space solver: known forced wins are found, and every claimed win survives a
//! replay against every defence (checked with the board's rules only).
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::time::{Duration, Instant};

use gomoku::{Board, Move, Position, Rule, Stone, ThreatLimits, ThreatSolver};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn parse_moves(s: &str) -> Vec<Move> {
    s.split_whitespace()
        .map(|t| {
            let (x, y) = t.split_once(',').unwrap();
            Move::new(x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

fn board_of(size: usize, rule: Rule, moves: &[Move]) -> Board {
    let mut b = Board::new(size, rule).unwrap();
    for &m in moves {
        b.play(m).unwrap();
    }
    b
}

/// Whether the side to move can make five at once (by trying every cell).
fn has_five_now(board: &mut Board) -> bool {
    let me = board.side_to_move();
    for m in board.empty_cells() {
        board.play(m).unwrap();
        let won = board.winner() == Some(me);
        board.undo();
        if won {
            return true;
        }
    }
    false
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Vcf,
    Vct,
}

/// Proves that the side to move wins, using the solver only to propose attacking moves: each
/// proposed move is played, then every legal defence is tried (a defence that makes five
/// refutes the claim), and the attacker must win again from each position the defence leaves,
/// down to a five on the board. `budget` bounds the attacker's moves (the solver may pick a
/// different, longer line at each step, so it is generous). `proven` remembers positions
/// already proved (by Zobrist key), as defences often transpose.
fn proves_win(board: &mut Board, solver: &mut ThreatSolver, kind: Kind, budget: u32) -> bool {
    proves_memo(board, solver, kind, budget, &mut HashSet::new())
}

fn proves_memo(
    board: &mut Board,
    solver: &mut ThreatSolver,
    kind: Kind,
    budget: u32,
    proven: &mut HashSet<u64>,
) -> bool {
    let attacker = board.side_to_move();
    if proven.contains(&board.key()) || has_five_now(board) {
        return true;
    }
    if budget == 0 {
        return false;
    }
    let mut pos = Position::from_board(board);
    let limits = ThreatLimits::default();
    let line = match kind {
        Kind::Vcf => solver.vcf(&mut pos, &limits),
        Kind::Vct => solver.vct(&mut pos, &limits),
    };
    let Some(line) = line else {
        return false;
    };
    let first = pos.to_move(line[0]);
    board.play(first).unwrap();
    let mut ok = board.winner() == Some(attacker);
    if !ok && !board.is_over() {
        ok = true;
        for d in board.empty_cells() {
            board.play(d).unwrap();
            let refuted = board.winner() == Some(attacker.other())
                || !proves_memo(board, solver, kind, budget - 1, proven);
            board.undo();
            if refuted {
                ok = false;
                break;
            }
        }
    }
    board.undo();
    if ok {
        proven.insert(board.key());
    }
    ok
}

/// Replays a VCF line: each attacker move is a four whose only answer is the line's next move.
fn check_vcf_line(board: &Board, cells: &[usize]) {
    let mut b = board.clone();
    let pos = Position::from_board(board);
    let attacker = b.side_to_move();
    for (i, &c) in cells.iter().enumerate() {
        let m = pos.to_move(c);
        b.play(m).unwrap();
        if i + 1 == cells.len() {
            assert_eq!(b.winner(), Some(attacker), "the line ends with a five");
        } else {
            assert_eq!(b.winner(), None);
        }
        if i % 2 == 0 && i + 1 < cells.len() {
            // Defender to move: every move but the line's block lets the attacker make five.
            let block = pos.to_move(cells[i + 1]);
            for d in b.empty_cells() {
                if d == block {
                    continue;
                }
                let mut t = b.clone();
                t.play(d).unwrap();
                assert_ne!(t.winner(), Some(attacker.other()), "defence {d} makes five");
                assert!(has_five_now(&mut t), "{d} defends the four at move {i}");
            }
        }
    }
}

/// Positions (freestyle, 15x15, move lists) whose side to move wins by continuous fours, and
/// the length in plies of the line the solver found when the set was made (with
/// `cargo run --release -p gomoku --example find_vcf -- 15 4000`). Every line is checked
/// below by replaying it against every defence.
const VCF_SET: &[(&str, usize)] = &[
    // An open three becomes an open four.
    ("7,7 0,0 8,7 0,2 9,7 0,4", 3),
    (
        "7,7 7,5 6,6 4,4 8,8 9,9 6,4 6,5 5,5 8,2 8,5 3,7 7,4 8,6 9,4 5,4 9,6 6,3 7,6 6,7 9,3 9,7",
        19,
    ),
    (
        "7,7 6,6 6,8 5,9 8,6 10,4 5,7 7,9 4,7 6,7 6,9 3,6 7,6 7,8 4,5 4,8 3,7 9,10 1,7 2,7 5,6 6,5 5,5 5,4 8,9 6,3 6,4 4,6 8,8 8,5 8,11 8,12 7,5 5,3",
        15,
    ),
    (
        "7,7 8,7 8,6 6,8 7,6 7,8 10,6 11,6 8,8 9,6 10,5 5,10 6,9 10,7 9,9 6,6 9,7 7,9 7,5 10,8",
        19,
    ),
    (
        "7,7 8,7 8,6 5,9 7,6 6,6 7,5 7,8 9,7 10,8 9,5 10,4 9,4 9,8",
        15,
    ),
    (
        "7,7 9,5 9,9 10,10 11,7 9,7 8,10 10,8 11,9 9,4 9,3 10,11 10,12 9,6 9,8 11,6 7,9 10,9 10,7 9,11 7,10 7,6",
        15,
    ),
    (
        "7,7 8,7 8,6 5,9 9,5 11,3 10,4 6,8 11,4 13,4 9,8 9,4 9,6 7,6 9,7 9,9 11,9 7,5 8,5 10,7 10,5 10,2 12,5 11,5 13,6 10,3 13,2 12,3 9,3 13,5 12,4 13,3 14,3 10,1 10,8 12,10 9,0 8,8 11,2 12,7 7,4 12,8 6,3 5,2 12,6 10,6 12,11 5,4 5,5 6,5 4,3 6,6 6,9 5,7 4,8 4,6 3,5",
        15,
    ),
    (
        "7,7 7,5 5,5 4,4 6,4 8,2 5,7 4,7 5,4 5,3 5,8 5,6 6,5 4,6 4,8 7,6 6,6 6,7 4,5 6,3",
        19,
    ),
    (
        "7,7 9,5 7,3 9,3 9,2 7,4 8,2 6,2 5,5 9,1 8,8 4,4 10,10 6,6 11,2 10,2 9,9 11,11 11,1",
        15,
    ),
    (
        "7,7 7,5 6,6 8,8 5,5 6,4 4,4 3,3 4,2 4,5 6,2 8,6 5,3 7,1 5,6 10,8 9,7 5,2",
        15,
    ),
    (
        "7,7 9,5 7,3 9,3 9,2 7,4 10,4 10,7 8,5 8,4 10,2 8,2 10,5 10,1 10,6 10,3 5,4 8,3 12,3 8,0 8,1 9,6 9,8 9,4 9,7 12,4 7,9 8,8 6,3 9,0 7,10 7,6 7,12 7,8 4,5 7,2 7,13 7,11 3,6 2,7 7,0 6,1 5,0 5,7 7,5 6,4 5,5 6,5 5,2 5,6 4,7 4,6",
        15,
    ),
    (
        "7,7 9,5 9,9 6,6 9,6 7,6 8,5 4,6 3,6 5,6 8,6 7,4 8,8 8,4 10,10 11,11 5,4 10,6 7,3 4,7 8,9 8,7 8,3 6,3 6,5 9,3 5,7 9,4 6,4",
        15,
    ),
    (
        "7,7 9,5 7,5 9,7 7,6 7,4 9,4 10,3 7,9 7,8 10,5 12,7 7,2 11,6 6,1 8,3 11,3 10,7 13,7 8,5 11,8",
        15,
    ),
    (
        "7,7 9,5 9,9 6,6 9,7 8,7 8,6 7,5 6,5 5,7 4,8 8,4 9,3 7,3 10,6 5,1 6,2 7,4 7,2 10,4 11,4 9,4 6,4 9,6 6,3 6,1 8,1 9,0 7,9 11,5 7,8 8,5 10,5 7,10",
        17,
    ),
    (
        "7,7 9,5 7,5 9,7 7,4 7,8 7,6 7,3 10,6 8,6 9,4 8,5 6,4 8,4 8,3 8,7 8,8 10,5 11,4 11,5 12,5 9,6 6,9 9,9 9,8 9,2 6,2 6,1 11,6 10,7 11,7 10,8 11,9 11,10 4,4 5,3",
        25,
    ),
];

#[test]
fn finds_known_vcf_wins_quickly() {
    let mut solver = ThreatSolver::new();
    let mut slowest = Duration::ZERO;
    let mut long = 0;
    for &(moves, plies) in VCF_SET {
        let board = board_of(15, Rule::Freestyle, &parse_moves(moves));
        let mut pos = Position::from_board(&board);
        solver.clear();
        let t = Instant::now();
        let line = solver
            .vcf(&mut pos, &ThreatLimits::default())
            .unwrap_or_else(|| panic!("no VCF found in {moves}"));
        slowest = slowest.max(t.elapsed());
        assert!(line.len() % 2 == 1);
        assert!(line.len() <= plies, "{} plies for {moves}", line.len());
        long = long.max(line.len());
        check_vcf_line(&board, &line);
        // The depth limit counts attacker fours: exactly enough fours still finds a win,
        // and whatever is found never has more fours than allowed.
        let fours = (plies as u32 - 1) / 2;
        for depth in [fours, fours.saturating_sub(2)] {
            let limits = ThreatLimits {
                vcf_depth: depth,
                ..ThreatLimits::default()
            };
            solver.clear();
            match solver.vcf(&mut pos, &limits) {
                Some(l) => assert!(l.len() <= 2 * depth as usize + 1),
                None => assert!(depth < fours),
            }
        }
    }
    assert!(long >= 25);
    println!(
        "{} positions, longest line {long} plies, slowest solve {slowest:?}",
        VCF_SET.len()
    );
    assert!(slowest < Duration::from_millis(500), "{slowest:?}");
}

/// The VCT failure memo holds for one VCF depth: a position whose only wins are long VCFs
/// has no VCT when its threats may not end in a VCF, and then does when they may (a memo
/// kept across the two searches answered the second from the first).
#[test]
fn a_vct_failure_is_remembered_for_its_vcf_depth_only() {
    let (moves, _) = VCF_SET[VCF_SET.len() - 1];
    let board = board_of(15, Rule::Freestyle, &parse_moves(moves));
    let mut pos = Position::from_board(&board);
    let mut solver = ThreatSolver::new();
    let no_vcf = ThreatLimits {
        vcf_depth: 0,
        ..ThreatLimits::default()
    };
    assert!(solver.vct(&mut pos, &no_vcf).is_none());
    assert!(solver.vct(&mut pos, &ThreatLimits::default()).is_some());
}

#[test]
fn no_vcf_where_none_exists() {
    // A lone open two has no forced win by fours.
    let board = board_of(15, Rule::Freestyle, &parse_moves("7,7 0,0 8,7 0,3"));
    let mut pos = Position::from_board(&board);
    let mut solver = ThreatSolver::new();
    assert!(solver.vcf(&mut pos, &ThreatLimits::default()).is_none());
    // Nor by threats: an open three alone is answered.
    assert!(solver.vct(&mut pos, &ThreatLimits::default()).is_none());
    // Two open twos that cross at an empty cell make a double three there: a VCT, not a VCF.
    let board = board_of(
        15,
        Rule::Freestyle,
        &parse_moves("7,7 0,0 8,7 0,3 9,9 0,6 9,10 0,9"),
    );
    let mut pos = Position::from_board(&board);
    assert!(solver.vcf(&mut pos, &ThreatLimits::default()).is_none());
    let line = solver.vct(&mut pos, &ThreatLimits::default()).unwrap();
    assert_eq!(pos.to_move(line[0]), Move::new(9, 7));
    let mut b = board.clone();
    assert!(proves_win(&mut b, &mut solver, Kind::Vct, 6));
}

/// `vct_depth` counts the VCF that ends the line as a threat: the double three above is a
/// three and then a VCF, two threats; with one, a VCT is a VCF, searched with the VCF's work
/// (the last threat can only be a four, which the VCF tries: a three there would need a five
/// right after the defence).
#[test]
fn vct_depth_counts_the_closing_vcf() {
    let board = board_of(
        15,
        Rule::Freestyle,
        &parse_moves("7,7 0,0 8,7 0,3 9,9 0,6 9,10 0,9"),
    );
    let depth = |d: u32| ThreatLimits {
        vct_depth: d,
        ..ThreatLimits::default()
    };
    let mut pos = Position::from_board(&board);
    assert!(ThreatSolver::new().vct(&mut pos, &depth(1)).is_none());
    let line = ThreatSolver::new().vct(&mut pos, &depth(2)).unwrap();
    assert_eq!(pos.to_move(line[0]), Move::new(9, 7));
    let mut searched = 0;
    for board in random_positions(11, 200) {
        let mut pos = Position::from_board(&board);
        let (mut vcf, mut vct) = (ThreatSolver::new(), ThreatSolver::new());
        let by_fours = vcf.vcf(&mut pos, &ThreatLimits::default());
        let by_threats = vct.vct(&mut pos, &depth(1));
        assert_eq!(by_threats, by_fours);
        // One node more: the VCT's own, before it hands over to the VCF.
        assert!(
            vct.nodes() <= vcf.nodes() + 1,
            "{} {}",
            vct.nodes(),
            vcf.nodes()
        );
        searched += u32::from(by_fours.is_none());
    }
    assert!(searched > 50, "{searched} positions without a VCF");
    // With no VCF allowed, the one threat is played by the VCT itself: an open four wins.
    let board = board_of(15, Rule::Freestyle, &parse_moves("5,7 0,0 6,7 0,2 7,7 0,4"));
    let mut pos = Position::from_board(&board);
    let no_vcf = ThreatLimits {
        vcf_depth: 0,
        ..depth(1)
    };
    assert!(ThreatSolver::new().vcf(&mut pos, &no_vcf).is_none());
    assert!(ThreatSolver::new().vct(&mut pos, &no_vcf).is_some());
}

/// Random positions on small boards: every VCF and VCT the solver claims is proved by the
/// replay against every defence, and positions leave the solver unchanged.
#[test]
fn claimed_wins_survive_every_defence() {
    let mut solver = ThreatSolver::new();
    let mut claims = [0u32; 2];
    for board in random_positions(7, 400) {
        let before = board.key();
        for (k, kind) in [Kind::Vcf, Kind::Vct].into_iter().enumerate() {
            let mut pos = Position::from_board(&board);
            let limits = ThreatLimits {
                vct_depth: 3,
                ..ThreatLimits::default()
            };
            let line = match kind {
                Kind::Vcf => solver.vcf(&mut pos, &limits),
                Kind::Vct => solver.vct(&mut pos, &limits),
            };
            assert_eq!(pos.key(), before, "the solver restores the position");
            if let Some(line) = line {
                claims[k] += 1;
                let mut b = board.clone();
                assert!(
                    proves_win(&mut b, &mut solver, kind, 40),
                    "{kind:?} claim refuted in\n{board}{:?} {:?}\n{:?}",
                    board.rule(),
                    board.side_to_move(),
                    line.iter().map(|&c| pos.to_move(c)).collect::<Vec<_>>(),
                    kind = if kind == Kind::Vcf { "VCF" } else { "VCT" }
                );
            }
        }
    }
    // The test is only meaningful if claims were made.
    assert!(claims[0] > 20 && claims[1] > claims[0], "{claims:?}");
    let _ = Stone::Black;
}

/// Positions of 6 to 19 random stones near the centre of 8x8 to 10x10 boards (so that lines
/// form), under both rules, games already over left out.
fn random_positions(seed: u64, count: usize) -> Vec<Board> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut out = Vec::new();
    for game in 0..count {
        let size = 8 + game % 3;
        let rule = if game % 2 == 0 {
            Rule::Freestyle
        } else {
            Rule::ExactlyFive
        };
        let mut board = Board::new(size, rule).unwrap();
        let stones = rng.random_range(6..20);
        let lo = (size / 2 - 3) as u8;
        let hi = (size / 2 + 3) as u8;
        while board.history().len() < stones && !board.is_over() {
            let m = Move::new(rng.random_range(lo..=hi), rng.random_range(lo..=hi));
            if board.is_legal(m) {
                board.play(m).unwrap();
            }
        }
        if !board.is_over() {
            out.push(board);
        }
    }
    out
}

/// The empty cells after which the opponent of the side to move has no win of the given
/// kind within `limits` (by the solver), found by trying every one.
fn saving_cells(
    board: &Board,
    solver: &mut ThreatSolver,
    kind: Kind,
    limits: &ThreatLimits,
) -> HashSet<usize> {
    let pos = Position::from_board(board);
    let mut out = HashSet::new();
    for m in board.empty_cells() {
        let mut b = board.clone();
        b.play(m).unwrap();
        if b.is_over() {
            // Our five saves everything.
            out.insert(b.geometry().index(usize::from(m.x), usize::from(m.y)));
            continue;
        }
        let mut p = Position::from_board(&b);
        let win = match kind {
            Kind::Vcf => solver.vcf(&mut p, limits),
            Kind::Vct => solver.vct(&mut p, limits),
        };
        if win.is_none() {
            out.insert(pos.geometry().index(usize::from(m.x), usize::from(m.y)));
        }
    }
    out
}

/// Fails, naming them, if some of the `saving` moves are not among the `defences`.
fn assert_none_left_out(
    saving: &HashSet<usize>,
    defences: &HashSet<usize>,
    pos: &Position,
    board: &Board,
) {
    let left_out: Vec<Move> = saving
        .difference(defences)
        .map(|&q| pos.to_move(q))
        .collect();
    assert!(
        left_out.is_empty(),
        "saving moves left out: {left_out:?}\n{board}"
    );
}

/// Against a VCF threat, `defences` returns every move that saves the side to move (found
/// by trying every empty cell), and besides them only its own fours; when nothing saves,
/// it returns its candidates unverified; without a threat, nothing. This pins the locality
/// argument: no saving move lies outside the cells it looks at.
#[test]
fn vcf_defences_contain_every_saving_move() {
    let mut solver = ThreatSolver::new();
    let (mut threats, mut lost, mut partial) = (0, 0, 0);
    for board in random_positions(11, 1000) {
        let mut pos = Position::from_board(&board);
        let me = pos.side_to_move();
        let limits = ThreatLimits::default();
        // Whether the opponent has a VCF were it their turn.
        pos.pass();
        let threat = solver.vcf(&mut pos, &limits).is_some();
        pos.pass();
        let defences = solver.defences(&mut pos, &limits);
        assert_eq!(defences.is_some(), threat, "\n{board}");
        let Some(defences) = defences else {
            continue;
        };
        threats += 1;
        let d: HashSet<usize> = defences.iter().copied().collect();
        assert_eq!(d.len(), defences.len(), "no cell twice");
        assert!(d.iter().all(|&q| pos.is_empty_cell(q)));
        let saving = saving_cells(&board, &mut solver, Kind::Vcf, &ThreatLimits::default());
        assert_none_left_out(&saving, &d, &pos, &board);
        if saving.is_empty() {
            // Every candidate, unverified: at least the cells of the threat line.
            assert!(!defences.is_empty());
            lost += 1;
        } else {
            for q in d.difference(&saving) {
                assert!(
                    pos.threat(me, *q) >= gomoku::Threat::Four,
                    "{}",
                    pos.to_move(*q)
                );
            }
            if saving.len() < board.empty_cells().len() {
                partial += 1;
            }
        }
    }
    // Threats of both outcomes occurred.
    assert!(
        threats > 30 && lost > 5 && partial > 10,
        "{threats} {lost} {partial}"
    );
}

/// Against a VCT threat, `vct_defences` returns every move after which the opponent has no
/// VCT (each empty cell tried), and besides them only the side's own fours (kept
/// unverified); it returns nothing without a threat, and otherwise only when no move saves.
/// Among the saving moves are counter-threats far from the threat: a closed three, whose
/// four can later answer one of the attacker's threes. Prints how many positions held a
/// threat and how many of those had an answer (`-- --nocapture`).
#[test]
fn vct_defences_contain_every_saving_move() {
    let mut solver = ThreatSolver::new();
    let (mut threats, mut answered) = (0, 0);
    for board in random_positions(12, 600) {
        let mut pos = Position::from_board(&board);
        let me = pos.side_to_move();
        let limits = ThreatLimits {
            vct_depth: 3,
            ..ThreatLimits::default()
        };
        pos.pass();
        let threat = solver.vct(&mut pos, &limits).is_some();
        pos.pass();
        let defences = solver.vct_defences(&mut pos, &limits);
        if !threat {
            assert_eq!(defences, None, "\n{board}");
            continue;
        }
        threats += 1;
        let saving = saving_cells(&board, &mut solver, Kind::Vct, &limits);
        let Some(defences) = defences else {
            assert!(saving.is_empty(), "{saving:?}\n{board}");
            continue;
        };
        answered += 1;
        let d: HashSet<usize> = defences.iter().copied().collect();
        assert_none_left_out(&saving, &d, &pos, &board);
        assert!(!defences.is_empty());
        for &q in &defences {
            if pos.threat(me, q) >= gomoku::Threat::Four {
                continue;
            }
            pos.play(q);
            assert!(
                solver.vct(&mut pos, &limits).is_none(),
                "{}\n{board}",
                pos.to_move(q)
            );
            pos.undo();
        }
    }
    eprintln!("{threats} positions under a VCT threat, {answered} of them with defences");
    assert!(threats > 100 && answered > 100, "{threats} {answered}");
}

/// Budgets: the node count is reported, a node limit or a past deadline stops the search
/// (answering "no win"), and the failure memo makes a repeated search cheaper until
/// `clear`.
#[test]
fn threat_budgets_counters_and_memo() {
    // A position with threats on both sides but no VCT for the side to move within depth 4
    // needs thousands of nodes.
    let mut solver = ThreatSolver::new();
    let mut searched = None;
    for board in random_positions(13, 200) {
        let mut pos = Position::from_board(&board);
        solver.clear();
        if solver.vct(&mut pos, &ThreatLimits::default()).is_none() && solver.nodes() > 2000 {
            searched = Some((board, solver.nodes()));
            break;
        }
    }
    let (board, nodes) = searched.expect("a position with a long search");
    assert!(!solver.aborted());
    let mut pos = Position::from_board(&board);
    // The failure is remembered: the same search again stops at once.
    assert!(solver.vct(&mut pos, &ThreatLimits::default()).is_none());
    assert!(solver.nodes() < nodes / 10, "{} of {nodes}", solver.nodes());
    solver.clear();
    assert!(solver.vct(&mut pos, &ThreatLimits::default()).is_none());
    assert_eq!(solver.nodes(), nodes);
    // A node limit: checked every 256 nodes.
    solver.clear();
    let limits = ThreatLimits {
        nodes: Some(1000),
        ..ThreatLimits::default()
    };
    assert!(solver.vct(&mut pos, &limits).is_none());
    assert!(solver.aborted());
    assert!(
        (1000..1000 + 256).contains(&solver.nodes()),
        "{}",
        solver.nodes()
    );
    // A deadline already past.
    solver.clear();
    let limits = ThreatLimits::time(Duration::ZERO);
    assert_eq!(limits.time, Some(Duration::ZERO));
    assert_eq!(limits.vct_depth, ThreatLimits::default().vct_depth);
    assert!(solver.vct(&mut pos, &limits).is_none());
    assert!(solver.aborted());
    assert_eq!(solver.nodes(), 256);
    // An aborted search keeps only the failures of the sub-searches it finished: a full
    // search afterwards gives the same answer, a little cheaper at most.
    assert!(solver.vct(&mut pos, &ThreatLimits::default()).is_none());
    assert!(!solver.aborted());
    assert!(solver.nodes() <= nodes && solver.nodes() > nodes - 256);
}

/// When the defender has a four, the attacker's only move is the block; it continues the
/// attack if the block is itself a four (VCF) or a double three (VCT). White's four on
/// column 5 (rows 2-5, Black's stone above it) is blocked at (5,6).
#[test]
fn blocking_a_four_can_continue_the_attack() {
    let limits = ThreatLimits::default();
    let mut solver = ThreatSolver::new();
    // Black's block makes an open four on row 6 (2-5): a VCF of three plies.
    let board = board_of(
        15,
        Rule::Freestyle,
        &parse_moves("5,1 5,2 2,6 5,3 3,6 5,4 4,6 5,5"),
    );
    let mut pos = Position::from_board(&board);
    let line = solver.vcf(&mut pos, &limits).expect("the block wins");
    assert_eq!(pos.to_move(line[0]), Move::new(5, 6));
    assert_eq!(line.len(), 3);
    check_vcf_line(&board, &line);
    // Black's block makes two open threes (row 6 and the diagonal down to the left): no
    // VCF, a VCT.
    let board = board_of(
        15,
        Rule::Freestyle,
        &parse_moves("5,1 5,2 3,6 5,3 4,6 5,4 4,7 5,5 3,8 14,14"),
    );
    let mut pos = Position::from_board(&board);
    solver.clear();
    assert!(solver.vcf(&mut pos, &limits).is_none());
    let line = solver.vct(&mut pos, &limits).expect("the block wins");
    assert_eq!(pos.to_move(line[0]), Move::new(5, 6));
    let mut b = board.clone();
    assert!(proves_win(&mut b, &mut solver, Kind::Vct, 8));
    // A block that makes only one open three wins neither way.
    let board = board_of(
        15,
        Rule::Freestyle,
        &parse_moves("5,1 5,2 3,6 5,3 4,6 5,4 0,14 5,5"),
    );
    let mut pos = Position::from_board(&board);
    solver.clear();
    assert!(solver.vcf(&mut pos, &limits).is_none());
    assert!(solver.vct(&mut pos, &limits).is_none());
}

/// A failure remembered at a shallow depth does not hide a win found deeper: the memo
/// keeps the depth each failure was searched to.
#[test]
fn a_shallow_failure_does_not_hide_a_deeper_win() {
    let mut solver = ThreatSolver::new();
    let mut checked = 0;
    for &(moves, plies) in VCF_SET {
        let board = board_of(15, Rule::Freestyle, &parse_moves(moves));
        let mut pos = Position::from_board(&board);
        solver.clear();
        let fours = (plies as u32 - 1) / 2;
        if fours <= 3 {
            // A shallow depth of 0 stores no failure: nothing to check.
            continue;
        }
        let shallow = ThreatLimits {
            vcf_depth: fours.saturating_sub(3),
            ..ThreatLimits::default()
        };
        if solver.vcf(&mut pos, &shallow).is_some() {
            continue;
        }
        checked += 1;
        let line = solver
            .vcf(&mut pos, &ThreatLimits::default())
            .unwrap_or_else(|| panic!("the deeper search finds the win of {moves}"));
        check_vcf_line(&board, &line);
    }
    assert!(checked >= 5, "{checked}");
}

/// The memos hold positions by hash key, which says neither the board size nor the rule: a
/// solver asked about another size or rule forgets them by itself, so the same stones on a
/// larger board are not answered with a failure found on a smaller one.
#[test]
fn a_solver_forgets_its_memos_for_another_board_or_rule() {
    let moves = parse_moves("6,4 0,0 7,4 0,8 8,4 2,8");
    let limits = ThreatLimits::default();
    let vcf = |solver: &mut ThreatSolver, size: usize, rule: Rule| {
        let b = board_of(size, rule, &moves);
        solver.vcf(&mut Position::from_board(&b), &limits)
    };
    let fresh = vcf(&mut ThreatSolver::new(), 15, Rule::Freestyle);
    assert_eq!(
        fresh.as_ref().map(Vec::len),
        Some(3),
        "an open three makes an open four"
    );
    // On 9x9 the three stands at the edge, and its four can be blocked.
    let mut solver = ThreatSolver::new();
    assert_eq!(vcf(&mut solver, 9, Rule::Freestyle), None);
    assert_eq!(vcf(&mut solver, 15, Rule::Freestyle), fresh);
    // Between rules too.
    assert_eq!(
        vcf(&mut solver, 15, Rule::ExactlyFive).is_some(),
        fresh.is_some()
    );
    assert_eq!(vcf(&mut solver, 15, Rule::Freestyle), fresh);
}

/// A VCF failure remembered at one depth does not answer a deeper search: on one solver, a
/// search with one four too few and then one with enough still finds the win.
#[test]
fn a_vcf_failure_at_a_smaller_depth_does_not_hide_a_deeper_win() {
    let mut solver = ThreatSolver::new();
    let mut hidden = 0;
    for &(moves, plies) in VCF_SET {
        let board = board_of(15, Rule::Freestyle, &parse_moves(moves));
        let mut pos = Position::from_board(&board);
        let fours = (plies as u32 - 1) / 2;
        let limits = |vcf_depth| ThreatLimits {
            vcf_depth,
            ..ThreatLimits::default()
        };
        solver.clear();
        if solver.vcf(&mut pos, &limits(fours - 1)).is_none() {
            hidden += 1;
        }
        assert!(solver.vcf(&mut pos, &limits(fours)).is_some(), "{moves}");
    }
    assert!(hidden > 0);
}

/// A budget that runs out while `vct_defences` checks its candidates leaves nothing reliable:
/// the answer is `None` whenever the solver says it stopped.
#[test]
fn vct_defences_cut_short_by_the_budget_answer_nothing() {
    let mut solver = ThreatSolver::new();
    let mut cut_while_checking = 0;
    for board in random_positions(12, 200) {
        let mut pos = Position::from_board(&board);
        let full = ThreatLimits {
            vct_depth: 3,
            ..ThreatLimits::default()
        };
        solver.clear();
        pos.pass();
        let threat = solver.vct(&mut pos, &full).is_some();
        pos.pass();
        if !threat {
            continue;
        }
        for k in 1..=40 {
            let limits = ThreatLimits {
                nodes: Some(256 * k),
                ..full
            };
            solver.clear();
            let defences = solver.vct_defences(&mut pos, &limits);
            if !solver.aborted() {
                break;
            }
            assert_eq!(defences, None, "{} nodes\n{board}", 256 * k);
            cut_while_checking += 1;
        }
    }
    assert!(cut_while_checking > 0);
}

/// When nothing saves the side to move, `defences` returns every candidate it looked at
/// unverified: the threat line's cells first, then every empty cell within five of one of
/// them along a line (the module's locality bound, the fifth cell included), and no other.
#[test]
fn a_lost_position_offers_every_cell_within_five_of_the_threat() {
    // Black's open four on row 7, White (three stones in the corners) to move: either
    // end makes five, and White has no four.
    let board = board_of(
        15,
        Rule::Freestyle,
        &parse_moves("5,7 0,0 6,7 14,0 7,7 0,14 8,7"),
    );
    let mut pos = Position::from_board(&board);
    let mut solver = ThreatSolver::new();
    let defences = solver.defences(&mut pos, &ThreatLimits::default()).unwrap();
    let q = pos.to_move(defences[0]);
    assert!(q == Move::new(4, 7) || q == Move::new(9, 7), "{q}");
    let mut expected = HashSet::from([q]);
    for (dx, dy) in [(1i32, 0i32), (0, 1), (1, 1), (1, -1)] {
        for k in (-5..=5).filter(|&k| k != 0) {
            let (x, y) = (i32::from(q.x) + k * dx, i32::from(q.y) + k * dy);
            if (0..15).contains(&x) && (0..15).contains(&y) {
                let m = Move::new(x as u8, y as u8);
                if board.get(m).is_none() {
                    expected.insert(m);
                }
            }
        }
    }
    let found: HashSet<Move> = defences.iter().map(|&c| pos.to_move(c)).collect();
    assert_eq!(found.len(), defences.len(), "no cell twice");
    assert_eq!(found, expected);
}
