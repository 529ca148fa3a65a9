//! Property tests: format round trips, the flood fill against a brute-force search, win
//! detection, and the first-click rules and uniformity of random boards.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeSet, VecDeque};

use minesweeper::{Board, BoardError, CellView, FirstClick, Game, GameState, Position, mbf, text};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A size: mostly small boards, sometimes very wide or very tall ones.
fn size() -> impl Strategy<Value = (usize, usize)> {
    prop_oneof![
        4 => (1usize..=20, 1usize..=20),
        1 => (1usize..=255, 1usize..=3),
        1 => (1usize..=3, 1usize..=255),
    ]
}

/// A random board: size, then each cell a mine with a random density, at least one safe cell.
fn board() -> impl Strategy<Value = Board> {
    (size(), 0.0f64..0.6).prop_flat_map(|((w, h), density)| {
        prop::collection::vec(prop::bool::weighted(density), w * h).prop_map(move |mut mask| {
            if mask.iter().all(|&m| m) {
                mask[0] = false;
            }
            let mines: Vec<usize> = (0..mask.len()).filter(|&c| mask[c]).collect();
            Board::new(w, h, &mines).unwrap()
        })
    })
}

/// The cells opened by revealing the safe cells `clicks` (skipping flagged cells), by a plain
/// breadth-first search from scratch.
fn brute_force_open(board: &Board, clicks: &[usize], flagged: &BTreeSet<usize>) -> BTreeSet<usize> {
    let mut open = BTreeSet::new();
    for &c in clicks {
        let mut queue = VecDeque::from([c]);
        open.insert(c);
        while let Some(c) = queue.pop_front() {
            if board.adjacent_mines(c) == 0 {
                for n in board.neighbours(c) {
                    if !flagged.contains(&n) && open.insert(n) {
                        queue.push_back(n);
                    }
                }
            }
        }
    }
    open
}

/// The largest mine count the rule allows.
fn max_mines(w: usize, h: usize, rule: FirstClick, start: usize) -> usize {
    let board = Board::new(w, h, &[]).unwrap();
    match rule {
        FirstClick::None | FirstClick::Safe => w * h - 1,
        FirstClick::Zero => w * h - 1 - board.neighbours(start).count(),
    }
}

fn rule() -> impl Strategy<Value = FirstClick> {
    prop_oneof![
        Just(FirstClick::Safe),
        Just(FirstClick::Zero),
        Just(FirstClick::None)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn mbf_round_trip(board in board()) {
        let bytes = mbf::write(&board);
        prop_assert_eq!(bytes.len(), 4 + 2 * board.mine_count());
        let back = mbf::read(&bytes).unwrap();
        prop_assert_eq!(&back, &board);
        prop_assert_eq!(mbf::write(&back), bytes);
    }

    /// Random views of random boards: revealed numbers only on safe cells, `M` only on mines
    /// (no more of them than mines), flags anywhere and any number of them (they are the
    /// player's marks and may be wrong).
    #[test]
    fn text_round_trip(board in board(), seed in any::<u64>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut known = 0;
        let cells: Vec<CellView> = (0..board.len())
            .map(|c| match rng.random_range(0..4) {
                1 if !board.is_mine(c) => CellView::Revealed(board.adjacent_mines(c)),
                2 | 3 => {
                    if board.is_mine(c) && known < board.mine_count() && rng.random() {
                        known += 1;
                        CellView::Mine
                    } else {
                        CellView::Flagged
                    }
                }
                _ => CellView::Hidden,
            })
            .collect();
        let position =
            Position::new(board.width(), board.height(), board.mine_count(), cells).unwrap();
        let s = text::write(&position);
        prop_assert_eq!(s.lines().count(), board.height() + 1);
        let back = text::read(&s).unwrap();
        prop_assert_eq!(&back, &position);
        prop_assert_eq!(text::write(&back), s.clone());
        // CRLF and trailing whitespace read the same.
        let crlf = s.replace('\n', " \r\n") + "\r\n\n";
        prop_assert_eq!(text::read(&crlf).unwrap(), position);
    }

    /// Reveal random cells until the game ends; after every reveal compare with a
    /// brute-force search and check the flood-fill invariants and the state.
    #[test]
    fn flood_fill_matches_brute_force(board in board(), seed in any::<u64>(), flag_some in any::<bool>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut game = Game::new(board.clone());
        let mut flagged = BTreeSet::new();
        if flag_some {
            for _ in 0..3 {
                let c = rng.random_range(0..board.len());
                game.flag(c).unwrap();
                flagged.insert(c);
            }
            prop_assert_eq!(game.flag_count(), flagged.len());
        }
        let mut clicks = Vec::new();
        let safe = board.len() - board.mine_count();
        for _ in 0..board.len() * 2 {
            let c = rng.random_range(0..board.len());
            if game.is_revealed(c) {
                prop_assert!(game.reveal(c).is_err());
                continue;
            }
            if flagged.contains(&c) {
                prop_assert!(game.reveal(c).is_err());
                continue;
            }
            let before = game.revealed_count();
            let r = game.reveal(c).unwrap();
            let (mine, opened, state) = (r.mine, r.opened.to_vec(), r.state);
            prop_assert_eq!(opened[0], c);
            prop_assert_eq!(state, game.state());
            if mine {
                prop_assert!(board.is_mine(c));
                prop_assert_eq!(opened, vec![c]);
                prop_assert_eq!(game.state(), GameState::Lost);
                prop_assert_eq!(game.view().get(c), Some(CellView::Mine));
                prop_assert!(game.reveal(c).is_err());
                break;
            }
            clicks.push(c);
            let opened_set: BTreeSet<usize> = opened.iter().copied().collect();
            prop_assert_eq!(opened_set.len(), opened.len(), "no cell opened twice");
            prop_assert_eq!(game.revealed_count(), before + opened.len());
            let revealed: BTreeSet<usize> =
                (0..board.len()).filter(|&c| game.is_revealed(c)).collect();
            prop_assert_eq!(&revealed, &brute_force_open(&board, &clicks, &flagged));
            for &c in &revealed {
                prop_assert!(!board.is_mine(c));
                if board.adjacent_mines(c) == 0 {
                    for n in board.neighbours(c) {
                        prop_assert!(game.is_revealed(n) || flagged.contains(&n));
                    }
                }
            }
            let expect = if revealed.len() == safe { GameState::Won } else { GameState::Playing };
            prop_assert_eq!(game.state(), expect);
            if expect == GameState::Won {
                prop_assert!(game.reveal(c).is_err());
                break;
            }
        }
        // Whatever happened, the view reads back through the text format, however many
        // flags it has.
        prop_assert_eq!(text::read(&text::write(&game.view())).unwrap(), game.view());
    }

    /// Revealing every safe cell, in a random order, wins exactly at the last one.
    #[test]
    fn revealing_all_safe_cells_wins(board in board(), seed in any::<u64>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut safe: Vec<usize> = (0..board.len()).filter(|&c| !board.is_mine(c)).collect();
        for i in (1..safe.len()).rev() {
            safe.swap(i, rng.random_range(0..=i));
        }
        let mut game = Game::new(board);
        for &c in &safe {
            // Cells opened by an earlier flood fill are skipped; any other means the game
            // is not yet won.
            if !game.is_revealed(c) {
                prop_assert_eq!(game.state(), GameState::Playing);
                game.reveal(c).unwrap();
            }
        }
        prop_assert_eq!(game.state(), GameState::Won);
        prop_assert_eq!(game.safe_remaining(), 0);
    }

    #[test]
    fn random_boards_respect_the_rule(
        (w, h) in (1usize..=12, 1usize..=12),
        start_frac in 0.0f64..1.0,
        mine_frac in 0.0f64..1.1,
        rule in rule(),
        seed in any::<u64>(),
    ) {
        let cells = w * h;
        let start = ((start_frac * cells as f64) as usize).min(cells - 1);
        let max = max_mines(w, h, rule, start);
        let mines = (mine_frac * (max + 1) as f64) as usize;
        let draw = |seed| {
            Board::random(w, h, mines, rule, start, &mut Xoshiro256PlusPlus::seed_from_u64(seed))
        };
        if mines > max {
            let err = draw(seed).unwrap_err();
            if mines >= cells {
                prop_assert_eq!(err, BoardError::TooManyMines { mines, cells });
            } else {
                prop_assert_eq!(err, BoardError::TooManyMinesForRule { mines, rule, max });
            }
            return Ok(());
        }
        for s in seed..seed.wrapping_add(20) {
            let b = draw(s).unwrap();
            prop_assert_eq!((b.width(), b.height()), (w, h));
            prop_assert_eq!(b.mine_count(), mines);
            prop_assert_eq!(b.mines().count(), mines);
            match rule {
                FirstClick::None => {}
                FirstClick::Safe => prop_assert!(!b.is_mine(start)),
                FirstClick::Zero => {
                    prop_assert!(!b.is_mine(start));
                    prop_assert_eq!(b.adjacent_mines(start), 0);
                }
            }
            prop_assert_eq!(&draw(s).unwrap(), &b, "reproducible for a seed");
        }
    }
}

/// Counts, over 20k seeded draws of `sample`, how often each cell and each mine layout occur,
/// and checks both against the uniform distribution over the `layouts` layouts of `mines`
/// mines on the `allowed` cells (within 5 standard errors).
fn check_uniform(
    cells: usize,
    mines: usize,
    allowed: &[usize],
    layouts: usize,
    sample: impl Fn(u64) -> Vec<usize>,
) {
    let draws = 20_000u64;
    let mut per_cell = vec![0u64; cells];
    let mut per_layout = std::collections::BTreeMap::<Vec<usize>, u64>::new();
    for seed in 0..draws {
        let layout = sample(seed);
        assert_eq!(layout.len(), mines);
        for &c in &layout {
            per_cell[c] += 1;
        }
        *per_layout.entry(layout).or_default() += 1;
    }
    let n = draws as f64;
    let within = |count: u64, p: f64, what: &str| {
        let se = (n * p * (1.0 - p)).sqrt();
        let z = (count as f64 - n * p) / se;
        assert!(
            z.abs() < 5.0,
            "{what}: {count} draws, expected {:.1} (z = {z:.2})",
            n * p
        );
    };
    let p_cell = mines as f64 / allowed.len() as f64;
    for (c, &count) in per_cell.iter().enumerate() {
        if allowed.contains(&c) {
            within(count, p_cell, &format!("cell {c}"));
        } else {
            assert_eq!(count, 0, "cell {c} is never a mine");
        }
    }
    assert_eq!(per_layout.len(), layouts, "every allowed layout occurs");
    for (layout, &count) in &per_layout {
        within(count, 1.0 / layouts as f64, &format!("layout {layout:?}"));
    }
}

fn sampler(
    w: usize,
    h: usize,
    mines: usize,
    rule: FirstClick,
    start: usize,
) -> impl Fn(u64) -> Vec<usize> {
    move |seed| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        Board::random(w, h, mines, rule, start, &mut rng)
            .unwrap()
            .mines()
            .collect()
    }
}

#[test]
fn uniform_safe_corner() {
    // 3x3, 2 mines, safe first click at the corner: 8 cells, 28 layouts.
    let allowed = [1, 2, 3, 4, 5, 6, 7, 8];
    check_uniform(9, 2, &allowed, 28, sampler(3, 3, 2, FirstClick::Safe, 0));
}

#[test]
fn uniform_zero_corner() {
    // 4x3, 2 mines, zero first click at the corner: cells 0, 1, 4, 5 are free; 8 cells left.
    let allowed = [2, 3, 6, 7, 8, 9, 10, 11];
    check_uniform(12, 2, &allowed, 28, sampler(4, 3, 2, FirstClick::Zero, 0));
}

#[test]
fn uniform_zero_centre() {
    // 4x4, 3 mines, zero first click on cell 5: cells 0-2, 4-6, 8-10 are free; 7 left.
    let allowed = [3, 7, 11, 12, 13, 14, 15];
    check_uniform(16, 3, &allowed, 35, sampler(4, 4, 3, FirstClick::Zero, 5));
}

#[test]
fn uniform_no_rule() {
    // 3x2, 2 mines, any layout: 15 layouts.
    check_uniform(
        6,
        2,
        &[0, 1, 2, 3, 4, 5],
        15,
        sampler(3, 2, 2, FirstClick::None, 0),
    );
}

#[test]
fn uniformity_check_catches_a_small_bias() {
    // A sampler that redraws one in five layouts holding cell 8 (cell 8 is then a mine
    // about 15% less often than it should) fails the check.
    let fair = sampler(3, 3, 2, FirstClick::Safe, 0);
    let biased = move |seed: u64| {
        let layout = fair(seed);
        if layout.contains(&8) && seed.is_multiple_of(5) {
            fair(seed + 1_000_000)
        } else {
            layout
        }
    };
    let allowed = [1, 2, 3, 4, 5, 6, 7, 8];
    let result = std::panic::catch_unwind(|| check_uniform(9, 2, &allowed, 28, biased));
    assert!(result.is_err());
}
#[test]
fn flags_stop_the_flood_fill() {
    // One mine, in the far corner: one click opens every safe cell but the flagged one.
    let board = Board::new(4, 4, &[15]).unwrap();
    let mut game = Game::new(board);
    game.flag(5).unwrap();
    let r = game.reveal(0).unwrap();
    assert!(!r.opened.contains(&5));
    assert_eq!(game.state(), GameState::Playing);
    game.unflag(5).unwrap();
    assert_eq!(game.reveal(5).unwrap().state, GameState::Won);
}

#[test]
fn big_board_flood_fill_is_iterative() {
    // A 255x255 board with one mine in a corner: a single click opens all other cells
    // (a recursive fill would overflow the stack).
    let board = Board::new(255, 255, &[0]).unwrap();
    let mut game = Game::new(board);
    let r = game.reveal(255 * 255 - 1).unwrap();
    assert_eq!(r.opened.len(), 255 * 255 - 1);
    assert_eq!(r.state, GameState::Won);
}
