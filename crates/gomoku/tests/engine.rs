//! The main engine: it never misses a five or the block of a four, answers forced wins with
//! the solver, plays legal moves to the end of a game and keeps to its time.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use gomoku::{
    AlphaBetaEngine, Board, Budget, Engine, Move, Position, Rule, Stone, ThreatLimits, ThreatSolver,
};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Random positions: stones dropped near the centre of a 15x15 board.
fn random_position(rng: &mut Xoshiro256PlusPlus, rule: Rule) -> Board {
    let mut b = Board::new(15, rule).unwrap();
    let n = rng.random_range(8..40);
    while b.history().len() < n && !b.is_over() {
        let m = Move::new(rng.random_range(3..12), rng.random_range(3..12));
        if b.is_legal(m) {
            b.play(m).unwrap();
        }
    }
    b
}

/// Cells where `s` would make five now, found by trying every cell on the board.
fn five_cells(board: &Board, s: Stone) -> Vec<Move> {
    let mut out = Vec::new();
    for m in board.empty_cells() {
        let mut b = board.clone();
        if b.side_to_move() != s {
            // Let the other side pass by playing far away... only if that is harmless.
            continue;
        }
        b.play(m).unwrap();
        if b.winner() == Some(s) {
            out.push(m);
        }
    }
    out
}

/// Cells where the opponent of the side to move would make five (by a board with the
/// opponent to move: the same stones, one extra far stone of ours is not needed because we
/// only read the opponent's lines through empty cells).
fn opponent_five_cells(board: &Board) -> Vec<Move> {
    let pos = Position::from_board(board);
    let op = board.side_to_move().other();
    board
        .empty_cells()
        .into_iter()
        .filter(|m| {
            let q = board.geometry().index(usize::from(m.x), usize::from(m.y));
            pos.is_five_cell(op, q)
        })
        .collect()
}

#[test]
fn never_misses_a_five_or_a_block() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut engine = AlphaBetaEngine::with_memo_bytes(1 << 20);
    let (mut wins, mut blocks) = (0, 0);
    for i in 0..3000 {
        let rule = if i % 2 == 0 {
            Rule::Freestyle
        } else {
            Rule::ExactlyFive
        };
        let board = random_position(&mut rng, rule);
        if board.is_over() {
            continue;
        }
        let me = board.side_to_move();
        let mine = five_cells(&board, me);
        let theirs = opponent_five_cells(&board);
        if mine.is_empty() && theirs.len() != 1 {
            continue;
        }
        let m = engine
            .choose_move(&board, Duration::from_millis(50))
            .unwrap();
        assert!(board.is_legal(m));
        if !mine.is_empty() {
            assert!(mine.contains(&m), "missed a five: {m}\n{board}");
            wins += 1;
        } else {
            assert_eq!(m, theirs[0], "missed the block\n{board}");
            blocks += 1;
        }
        if wins >= 40 && blocks >= 40 {
            break;
        }
    }
    assert!(wins >= 40 && blocks >= 40, "{wins} {blocks}");
}

#[test]
fn plays_a_forced_win_by_fours() {
    let moves =
        "7,7 7,5 6,6 4,4 8,8 9,9 6,4 6,5 5,5 8,2 8,5 3,7 7,4 8,6 9,4 5,4 9,6 6,3 7,6 6,7 9,3 9,7";
    let mut board = Board::new(15, Rule::Freestyle).unwrap();
    for t in moves.split_whitespace() {
        let (x, y) = t.split_once(',').unwrap();
        board
            .play(Move::new(x.parse().unwrap(), y.parse().unwrap()))
            .unwrap();
    }
    let me = board.side_to_move();
    let mut engine = AlphaBetaEngine::with_memo_bytes(1 << 20);
    let mut defender = AlphaBetaEngine::with_memo_bytes(1 << 20);
    // The engine converts the win whatever the defence (the defender is the engine too).
    for _ in 0..30 {
        if board.is_over() {
            break;
        }
        let e = if board.side_to_move() == me {
            &mut engine
        } else {
            &mut defender
        };
        // On node budgets, so that the game is the same on a slow or busy machine.
        let m = e.choose_move_within(&board, Budget::Nodes(20_000)).unwrap();
        board.play(m).unwrap();
    }
    assert_eq!(board.winner(), Some(me), "\n{board}");
}

#[test]
fn defends_against_an_open_three() {
    // White has an open three on row 7; Black (to move) has nothing: Black must stop it so
    // that White has no forced win by fours afterwards.
    let mut board = Board::new(15, Rule::Freestyle).unwrap();
    for (x, y) in [(2, 2), (6, 7), (12, 12), (7, 7), (2, 12), (8, 7)] {
        board.play(Move::new(x, y)).unwrap();
    }
    assert_eq!(board.side_to_move(), Stone::Black);
    let mut engine = AlphaBetaEngine::with_memo_bytes(1 << 20);
    let m = engine
        .choose_move_within(&board, Budget::Nodes(20_000))
        .unwrap();
    board.play(m).unwrap();
    let mut pos = Position::from_board(&board);
    let mut solver = ThreatSolver::new();
    assert!(
        solver.vcf(&mut pos, &ThreatLimits::default()).is_none(),
        "{m} does not defend\n{board}"
    );
}

#[test]
fn defends_against_a_double_three_threat() {
    // White's two open twos cross at 9,7: a double three there wins by continuous threats.
    // Black (to move) has no threat of its own and must leave White without a VCT.
    let mut board = Board::new(15, Rule::Freestyle).unwrap();
    for (x, y) in [
        (0, 0),
        (7, 7),
        (0, 3),
        (8, 7),
        (0, 6),
        (9, 9),
        (0, 9),
        (9, 10),
    ] {
        board.play(Move::new(x, y)).unwrap();
    }
    let mut solver = ThreatSolver::new();
    let mut pos = Position::from_board(&board);
    pos.pass();
    assert!(
        solver.vct(&mut pos, &ThreatLimits::default()).is_some(),
        "White threatens"
    );
    let mut engine = AlphaBetaEngine::with_memo_bytes(1 << 20);
    let m = engine
        .choose_move_within(&board, Budget::Nodes(50_000))
        .unwrap();
    board.play(m).unwrap();
    let mut pos = Position::from_board(&board);
    solver.clear();
    assert!(
        solver.vct(&mut pos, &ThreatLimits::default()).is_none(),
        "{m} does not defend\n{board}"
    );
}

#[test]
fn keeps_to_the_time_and_plays_legal_moves_to_the_end() {
    for (size, rule, ms) in [
        // Generous limits: the test runs next to other busy tests.
        (9usize, Rule::Freestyle, 100u64),
        (15, Rule::ExactlyFive, 150),
        (20, Rule::Freestyle, 120),
    ] {
        let mut board = Board::new(size, rule).unwrap();
        let mut engine = AlphaBetaEngine::with_memo_bytes(4 << 20);
        let limit = Duration::from_millis(ms);
        let mut times = Vec::new();
        let mut searched = 0;
        while !board.is_over() && board.history().len() < 60 {
            let t = Instant::now();
            let m = engine.choose_move(&board, limit).unwrap();
            let spent = t.elapsed();
            times.push(spent);
            // An unfinished alpha-beta search (no proven score) starts new iterations until
            // 55% of the time has passed: the engine uses its time.
            let info = engine.last_info();
            if info.reason == "alpha-beta" && info.score.abs() < 500_000 {
                assert!(
                    spent >= limit * 11 / 20,
                    "{spent:?} of {limit:?} at depth {} on {size}x{size}",
                    info.depth
                );
                searched += 1;
            }
            board.play(m).unwrap();
        }
        assert!(searched > 0, "no move was searched on {size}x{size}");
        // The engine aborts its search at seven eighths of the time; on a machine busy with other
        // tests a thread can still lose the processor for some milliseconds near its
        // deadline, so the test allows that much beyond the limit, and no more, and requires
        // nearly every move to be within it.
        times.sort();
        let slowest = times[times.len() - 1];
        let within = times.iter().filter(|&&t| t <= limit).count();
        assert!(
            slowest <= limit + Duration::from_millis(40),
            "{slowest:?} > {limit:?} on {size}x{size}"
        );
        assert!(within * 10 >= times.len() * 9, "{times:?}");
        engine.new_game();
    }
    // A finished game is an error, not a panic.
    let mut b = Board::new(5, Rule::Freestyle).unwrap();
    for (x, y) in [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
        (3, 0),
        (3, 1),
        (4, 0),
    ] {
        b.play(Move::new(x, y)).unwrap();
    }
    let mut engine = AlphaBetaEngine::with_memo_bytes(1 << 16);
    assert!(engine.choose_move(&b, Duration::from_millis(10)).is_err());
}

/// Time budgets too large to add to a clock reading (`Duration::MAX`) are no limit, not an
/// overflow: the engines and the threat solver still answer, here where the answer is quick.
#[test]
fn huge_time_budgets_do_not_overflow() {
    // Black to move with four in a row on row 7: the five is found at once.
    let mut b = Board::new(15, Rule::Freestyle).unwrap();
    for x in 3..7 {
        b.play(Move::new(x, 7)).unwrap();
        b.play(Move::new(x, 9)).unwrap();
    }
    let m = AlphaBetaEngine::new()
        .choose_move(&b, Duration::MAX)
        .unwrap();
    assert!([Move::new(2, 7), Move::new(7, 7)].contains(&m), "{m}");
    let mut small =
        gomoku::BestFirstEngine::with_config(search_core::best_first::BestFirstConfig {
            memory_bytes: 1 << 20,
            ..search_core::best_first::BestFirstConfig::default()
        });
    assert!(b.is_legal(small.choose_move(&b, Duration::MAX).unwrap()));
    let mut pos = Position::from_board(&b);
    let limits = ThreatLimits {
        time: Some(Duration::MAX),
        ..ThreatLimits::default()
    };
    assert!(ThreatSolver::new().vcf(&mut pos, &limits).is_some());
}
