//! The solver against an independent reference written straight from the rules.
//!
//! The reference shares no code with the crate: its own pile representation, move rule,
//! ownership rule and end-of-game scoring, full minimax (no pruning) memoised on the whole
//! ordered state. Every level of the crate's solver must agree with it.

#![allow(clippy::unwrap_used)] // test helpers may panic: that is a failed test

use std::collections::HashMap;

use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use search_core::Keyed;
use twofour::{Level, Pile, Player, Position, TwoFourSolver, Winner};

/// Result for player 1 (1 win, 0 draw, -1 loss) of the piles `(balls, owner)` (owner 0 none,
/// 1 first, 2 second) with `side` (1 or 2) to move: full minimax, memoised on the whole ordered
/// state packed into an integer (5 bits a pile, at most 12 piles).
fn reference(piles: &mut Vec<(u8, u8)>, side: u8, memo: &mut HashMap<u64, i8>) -> i8 {
    let key = piles.iter().fold(u64::from(side), |k, &(b, o)| {
        k << 5 | u64::from(b) << 2 | u64::from(o)
    });
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let n = piles.len();
    let mut results = Vec::new();
    for i in 0..n {
        for j in 0..n {
            if i == j || piles[i].0 == 0 || piles[j].0 + 1 > piles[i].0 - 1 {
                continue;
            }
            let (si, sj) = (piles[i], piles[j]);
            let gi = si.0 - 1;
            let gj = sj.0 + 1;
            piles[i] = (gi, if gi == 2 { side } else { 0 });
            piles[j] = (gj, if gj == 2 { side } else { 0 });
            results.push(reference(piles, 3 - side, memo));
            piles[i] = si;
            piles[j] = sj;
        }
    }
    let v = if results.is_empty() {
        let first = piles.iter().filter(|p| p.1 == 1).count();
        let second = piles.iter().filter(|p| p.1 == 2).count();
        (first as i64 - second as i64).signum() as i8
    } else if side == 1 {
        *results.iter().max().unwrap()
    } else {
        *results.iter().min().unwrap()
    };
    memo.insert(key, v);
    v
}

fn to_reference(p: &Position) -> (Vec<(u8, u8)>, u8) {
    let piles = p
        .piles()
        .iter()
        .map(|k| (k.balls(), k.owner().map_or(0, Player::number)))
        .collect();
    (piles, p.side_to_move().number())
}

fn winner_code(v: i8) -> Winner {
    match v {
        1 => Winner::First,
        -1 => Winner::Second,
        _ => Winner::Draw,
    }
}

/// Every ball array of `n` piles with 2n balls.
fn all_arrays(n: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut cur = vec![0u8; n];
    fn rec(i: usize, left: i32, cur: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if i == cur.len() {
            if left == 0 {
                out.push(cur.clone());
            }
            return;
        }
        let rest = (cur.len() - i - 1) as i32;
        for b in 0..=4u8 {
            let l = left - i32::from(b);
            if l >= 0 && l <= 4 * rest {
                cur[i] = b;
                rec(i + 1, l, cur, out);
            }
        }
    }
    rec(0, 2 * n as i32, &mut cur, &mut out);
    out
}

/// Every position (any owners of the two-ball piles, either side to move) of an array.
fn all_positions(balls: &[u8]) -> Vec<Position> {
    let twos: Vec<usize> = (0..balls.len()).filter(|&i| balls[i] == 2).collect();
    let mut out = Vec::new();
    for mask in 0..(1u32 << twos.len()) {
        let piles: Vec<Pile> = balls
            .iter()
            .enumerate()
            .map(|(i, &b)| match b {
                0 => Pile::Zero,
                1 => Pile::One,
                3 => Pile::Three,
                4 => Pile::Four,
                _ => {
                    let bit = twos.iter().position(|&t| t == i).unwrap();
                    if mask >> bit & 1 == 1 {
                        Pile::TwoFirst
                    } else {
                        Pile::TwoSecond
                    }
                }
            })
            .collect();
        for side in [Player::First, Player::Second] {
            out.push(Position::from_piles(piles.clone(), side).unwrap());
        }
    }
    out
}

#[test]
fn sample_from_the_olympiad() {
    let problem = twofour::parse("5 4\n0 3 4 1 2\n2 2 2 2 2\n1 1 2 2 4\n4 3 2 1 0\n").unwrap();
    for level in Level::ALL {
        let mut s = TwoFourSolver::new(level);
        let codes: Vec<u8> = problem.games().iter().map(|g| s.solve(g).code()).collect();
        assert_eq!(codes, [1, 2, 1, 1], "{level}");
    }
}

/// Every position with N <= 7: each memo level against the plain depth-first search and the
/// independent reference. Plain search runs on one ordering of each multiset of piles (pile
/// order cannot matter to it: the reference, which does see order, checks that on all of them).
#[test]
fn every_position_up_to_seven_piles() {
    let mut memo_levels: Vec<TwoFourSolver> = [Level::Memo, Level::Duality, Level::Multiset]
        .into_iter()
        .map(TwoFourSolver::new)
        .collect();
    let mut plain = TwoFourSolver::new(Level::Plain);
    let mut merged = TwoFourSolver::new(Level::Merged);
    let mut checked = 0;
    for n in 3..=7 {
        let mut reference_memo = HashMap::new();
        for balls in all_arrays(n) {
            let sorted = balls.windows(2).all(|w| w[0] <= w[1]);
            for p in all_positions(&balls) {
                let (mut piles, side) = to_reference(&p);
                let expected = winner_code(reference(&mut piles, side, &mut reference_memo));
                for s in &mut memo_levels {
                    assert_eq!(
                        s.solve(&p),
                        expected,
                        "{:?} on {p} ({:?})",
                        s.level(),
                        p.side_to_move()
                    );
                }
                if sorted || n <= 6 {
                    assert_eq!(plain.solve(&p), expected, "plain on {p}");
                    assert_eq!(merged.solve(&p), expected, "merged on {p}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
    for s in &memo_levels {
        assert!(s.memo_bytes() < 1_000_000);
    }
}

fn arb_position(max_piles: usize) -> impl Strategy<Value = Position> {
    (3..=max_piles, any::<u64>(), any::<u64>(), any::<bool>()).prop_map(
        |(n, seed, owners, second)| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let start = twofour::random_game(n, &mut rng).unwrap();
            let piles = start
                .piles()
                .iter()
                .enumerate()
                .map(|(i, &p)| match (p.owner(), owners >> (i % 64) & 1) {
                    (Some(_), 1) => Pile::TwoFirst,
                    (Some(_), _) => Pile::TwoSecond,
                    (None, _) => p,
                })
                .collect();
            let side = if second {
                Player::Second
            } else {
                Player::First
            };
            Position::from_piles(piles, side).unwrap()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random positions up to N = 10: every level agrees with the independent reference (a
    /// plain depth-first minimax that memoises whole ordered states). The crate's plain level,
    /// whose worst cases at N = 10 take seconds, runs up to N = 8.
    #[test]
    fn random_positions_up_to_ten_piles(p in arb_position(10)) {
        let (mut piles, side) = to_reference(&p);
        let expected = winner_code(reference(&mut piles, side, &mut HashMap::new()));
        for level in Level::ALL {
            if level == Level::Plain && p.piles().len() > 8 {
                continue;
            }
            prop_assert_eq!(TwoFourSolver::new(level).solve(&p), expected, "{} on {}", level, p);
        }
    }

    /// The principal line is legal, optimal at every step, and ends with the solved result.
    #[test]
    fn principal_line_realises_the_value(p in arb_position(12)) {
        let mut s = TwoFourSolver::new(Level::Multiset);
        let winner = s.solve(&p);
        let mut q = p.clone();
        for m in s.principal_line(&p) {
            prop_assert!(q.is_legal(m.from, m.to));
            // `play` and `undo` trust the piles the move records.
            prop_assert_eq!((m.from_was, m.to_was), (q.piles()[m.from], q.piles()[m.to]));
            prop_assert_eq!(s.solve(&q), winner);
            search_core::Game::play(&mut q, &m);
        }
        prop_assert_eq!(q.final_winner(), Some(winner));
    }
}

/// The workload: 1000 random games of 30 piles in one solver with the default memo
/// (under 1 MB, pinned in the solver's unit tests), the memo levels agreeing on all of them,
/// and the memo holding what they need: a second pass is answered from it alone.
#[test]
fn thousand_games_of_thirty_piles_fit_in_one_megabyte() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2002);
    let games: Vec<Position> = (0..1000)
        .map(|_| twofour::random_game(30, &mut rng).unwrap())
        .collect();
    let mut fast = TwoFourSolver::new(Level::Multiset);
    let mut duality = TwoFourSolver::new(Level::Duality);
    let mut tally = [0usize; 3];
    for g in &games {
        let w = fast.solve(g);
        assert_eq!(duality.solve(g), w, "{g}");
        tally[usize::from(w.code())] += 1;
    }
    // The multiset form with its move order searches fewer nodes than the pile array.
    let first = fast.stats();
    assert!(
        first.nodes < duality.stats().nodes,
        "{} {}",
        first.nodes,
        duality.stats().nodes
    );
    // The memo (the default, under 1 MB) kept what the games needed: solving them again
    // takes one node each, its root answered from the memo.
    for g in &games {
        fast.solve(g);
    }
    let again = fast.stats();
    assert_eq!(again.nodes - first.nodes, 1000);
    assert_eq!(again.memo_cutoffs - first.memo_cutoffs, 1000);
    assert!(fast.memo_len() > 1000);
    // The results docs/PERFORMANCE.md gives for these games (the games of
    // `gameai twofour --generate 30 1000 --seed 2002`): 777 draws, 223 first-player wins.
    assert_eq!(tally, [777, 223, 0]);
}

/// The number of distinct memo keys (kind counts and side to move) for N piles: the size of the
/// whole game graph as the memo sees it. N = 30 has 16,532, for which the default memo has
/// room (61,440 entries); the count grows like N^4. The count is from the formula for the
/// ones; the memo key that relies on it is checked against the reference by the tests above.
#[test]
fn memo_key_space_sizes() {
    fn keys(n: u64) -> u64 {
        let mut total = 0;
        for fours in 0..=n {
            for threes in 0..=n - fours {
                for zeros in 0..=n - fours - threes {
                    // Balls total 2N: ones = threes + 2 fours - 2 zeros.
                    let Some(ones) = (threes + 2 * fours).checked_sub(2 * zeros) else {
                        continue;
                    };
                    let Some(twos) = n.checked_sub(fours + threes + zeros + ones) else {
                        continue;
                    };
                    // Any split of the twos between the owners, either side to move.
                    total += 2 * (twos + 1);
                }
            }
        }
        total
    }
    assert_eq!(keys(5), 60);
    assert_eq!(keys(30), 16_532);
    assert_eq!(keys(100), 1_563_796);
    // The formula counts the crate's keys: every position of N <= 7, one per multiset of
    // piles (the key forgets the order), gives that many distinct keys.
    for n in 3..=7 {
        let mut distinct = std::collections::HashSet::new();
        for balls in all_arrays(n) {
            if balls.windows(2).all(|w| w[0] <= w[1]) {
                distinct.extend(all_positions(&balls).iter().map(Keyed::key));
            }
        }
        assert_eq!(distinct.len() as u64, keys(n as u64), "N = {n}");
    }
}

/// The multiset level's move ordering (quiet moves first) pays off on large games: the same
/// results with far fewer nodes than generation order. The games are those of
/// `gameai twofour --generate 100 10 --seed 5`.
#[test]
fn quiet_moves_first_search_fewer_nodes() {
    use search_core::{Solver, SolverConfig};
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let games: Vec<Position> = (0..10)
        .map(|_| twofour::random_game(100, &mut rng).unwrap())
        .collect();
    let ordered_config = SolverConfig::full(32 << 20);
    let mut ordered = Solver::new(ordered_config);
    let mut unordered = Solver::new(SolverConfig {
        order_moves: false,
        ..ordered_config
    });
    for g in &games {
        let (mut a, mut b) = (g.to_multiset(), g.to_multiset());
        assert_eq!(ordered.solve(&mut a), unordered.solve(&mut b));
    }
    let (o, u) = (ordered.stats().nodes, unordered.stats().nodes);
    println!(
        "nodes: ordered {o}, generation order {u}, ratio {:.2}",
        u as f64 / o as f64
    );
    assert!(u as f64 > 1.8 * o as f64, "ordered {o} vs unordered {u}");
}

/// The longest line the tests can build at the largest N: 4095 piles `3 1 3 1 ... 3 1 2`, where
/// every move turns a 3 and a 1 into two 2s, 2047 plies deep (the first player makes 1024 of
/// the 2047 piles of two). The search recurses once a ply; in this optimised build it fits a
/// thread of 512 KiB (the stack figures of `TwoFourSolver`'s docs).
#[test]
fn a_long_line_fits_a_small_stack() {
    let mut balls: Vec<u8> = [3, 1].repeat(2047);
    balls.push(2);
    let game = Position::new(&balls).unwrap();
    let winner = std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(move || TwoFourSolver::new(Level::Multiset).solve(&game))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(winner, Winner::First);
}

/// `principal_line`, which values the kinds of move, gives the line of the generic
/// `principal_line_by` over every pair of piles (each side plays the first of its optimal
/// moves), at every level, on random positions with owned piles and either side to move.
#[test]
fn the_principal_line_is_the_first_optimal_move_at_every_ply() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(24);
    for round in 0..300 {
        let n = 3 + round % 8;
        let mut p = twofour::random_game(n, &mut rng).unwrap();
        // A few random moves in, so that piles are owned and either side may move.
        for _ in 0..round % 5 {
            let mut moves = Vec::new();
            search_core::Game::generate_moves(&p, &mut moves);
            let Some(mv) = moves.get(round * 7 % moves.len().max(1)) else {
                break;
            };
            search_core::Game::play(&mut p, mv);
        }
        for level in Level::ALL {
            if n > 8 && matches!(level, Level::Plain | Level::Merged) {
                continue;
            }
            let mut solver = TwoFourSolver::new(level);
            let generic = search_core::principal_line_by(&mut p.clone(), |q| solver.outcome(q));
            assert_eq!(solver.principal_line(&p), generic, "{p} at {level}");
        }
    }
}
