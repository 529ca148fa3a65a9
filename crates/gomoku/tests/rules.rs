//! Rules: five, overline and exactly-five detection, exhaustively on a line, against a plain
//! run-length reference; and the pattern table's five entries against the same reference.
#![allow(clippy::unwrap_used)]

use gomoku::{Board, Move, Pattern, Position, Rule, Stone};

const N: usize = 10;

/// Filler stones on even rows from 2 on, never three in a line: they balance the stone counts
/// without making any line.
fn fillers() -> Vec<Move> {
    (2..N as u8)
        .step_by(2)
        .flat_map(|y| {
            (0..N as u8)
                .filter(|x| x % 3 != 2)
                .map(move |x| Move::new(x, y))
        })
        .collect()
}

/// Plays the given Black and White stones (balanced with fillers) so that Black is to move.
fn build(rule: Rule, black: &[Move], white: &[Move]) -> Result<Board, gomoku::GomokuError> {
    let mut b: Vec<Move> = black.to_vec();
    let mut w: Vec<Move> = white.to_vec();
    let mut f = fillers().into_iter();
    while b.len() < w.len() {
        b.push(f.next().unwrap());
    }
    while w.len() < b.len() {
        w.push(f.next().unwrap());
    }
    let mut board = Board::new(N, rule)?;
    for (x, y) in b.iter().zip(&w) {
        board.play(*x)?;
        board.play(*y)?;
    }
    Ok(board)
}

/// Longest run of `colour` (1 Black, 2 White) through `c` in `row`.
fn run_through(row: &[u8], c: usize, colour: u8) -> usize {
    let mut n = 1;
    let mut i = c + 1;
    while i < row.len() && row[i] == colour {
        n += 1;
        i += 1;
    }
    let mut i = c;
    while i > 0 && row[i - 1] == colour {
        n += 1;
        i -= 1;
    }
    n
}

fn wins(run: usize, rule: Rule) -> bool {
    match rule {
        Rule::Freestyle => run >= 5,
        Rule::ExactlyFive => run == 5,
    }
}

/// Whether any run in `row` already wins for `colour`.
fn has_win(row: &[u8], colour: u8, rule: Rule) -> bool {
    let mut i = 0;
    while i < row.len() {
        if row[i] == colour {
            let start = i;
            while i < row.len() && row[i] == colour {
                i += 1;
            }
            if wins(i - start, rule) {
                return true;
            }
        } else {
            i += 1;
        }
    }
    false
}

#[test]
fn five_overline_and_exactly_five_on_every_line() {
    let mut checked = 0;
    for rule in [Rule::Freestyle, Rule::ExactlyFive] {
        for code in 0..3usize.pow(N as u32) {
            let mut row = [0u8; N];
            let mut r = code;
            for v in &mut row {
                *v = (r % 3) as u8;
                r /= 3;
            }
            for c in 0..N {
                if row[c] != 1 {
                    continue;
                }
                let mut before = row;
                before[c] = 0;
                if has_win(&before, 1, rule) || has_win(&before, 2, rule) {
                    continue;
                }
                let cells = |v: u8| -> Vec<Move> {
                    (0..N)
                        .filter(|&i| before[i] == v)
                        .map(|i| Move::new(i as u8, 0))
                        .collect()
                };
                let Ok(mut board) = build(rule, &cells(1), &cells(2)) else {
                    // Under exactly five, building a six-run passes through a five: the
                    // position cannot arise in a game.
                    assert_eq!(rule, Rule::ExactlyFive);
                    continue;
                };
                assert_eq!(board.side_to_move(), Stone::Black);
                assert_eq!(board.winner(), None);
                if checked % 16 == 0 {
                    // The pattern table agrees (a sample: building positions is slower).
                    let pos = Position::from_board(&board);
                    let q = board.geometry().index(c, 0);
                    let table_five = pos.pattern(Stone::Black, q, 0) == Pattern::Five;
                    assert_eq!(
                        table_five,
                        wins(run_through(&row, c, 1), rule),
                        "{row:?} {c}"
                    );
                }
                board.play(Move::new(c as u8, 0)).unwrap();
                let expected = wins(run_through(&row, c, 1), rule);
                assert_eq!(
                    board.winner() == Some(Stone::Black),
                    expected,
                    "{rule:?} {row:?} last {c}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100_000);
}

/// Every direction: a line of five (and six) through a cell in each of the four directions.
#[test]
fn all_directions_and_edges() {
    for rule in [Rule::Freestyle, Rule::ExactlyFive] {
        for size in [5usize, 6, 15, 32] {
            let dirs: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
            for (dx, dy) in dirs {
                for len in [4usize, 5, 6] {
                    if len > size {
                        continue;
                    }
                    // The line starts at a corner-ish cell so it touches the edges.
                    let (x0, y0) = (0i32, if dy < 0 { size as i32 - 1 } else { 0 });
                    let line: Vec<Move> = (0..len as i32)
                        .map(|k| Move::new((x0 + k * dx) as u8, (y0 + k * dy) as u8))
                        .collect();
                    for last in 0..len {
                        let mut black: Vec<Move> = line.clone();
                        let lm = black.remove(last);
                        // White stones far away, in a pattern that never lines up.
                        let mut board = Board::new(size, rule).unwrap();
                        let mut white = board
                            .empty_cells()
                            .into_iter()
                            .filter(|m| !line.contains(m))
                            .filter(|m| (m.x as usize + m.y as usize * 2).is_multiple_of(5));
                        let mut ok = true;
                        for b in &black {
                            if board.play(*b).is_err() || board.winner().is_some() {
                                // An intermediate five (exactly-five, six in a row).
                                ok = false;
                                break;
                            }
                            match white.next() {
                                Some(w) => board.play(w).unwrap(),
                                None => ok = false,
                            }
                        }
                        if !ok || board.winner().is_some() {
                            continue;
                        }
                        board.play(lm).unwrap();
                        let expected = match rule {
                            Rule::Freestyle => len >= 5,
                            Rule::ExactlyFive => len == 5,
                        };
                        assert_eq!(
                            board.winner() == Some(Stone::Black),
                            expected,
                            "{rule:?} size {size} dir {dx},{dy} len {len}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn errors_and_game_over() {
    assert!(Board::new(4, Rule::Freestyle).is_err());
    assert!(Board::new(33, Rule::Freestyle).is_err());
    let mut b = Board::new(5, Rule::Freestyle).unwrap();
    assert!(b.play(Move::new(5, 0)).is_err());
    b.play(Move::new(0, 0)).unwrap();
    assert!(b.play(Move::new(0, 0)).is_err());
    assert_eq!(b.undo(), Some(Move::new(0, 0)));
    assert_eq!(b.undo(), None);
    // Fill the 5x5 board without a five: a draw by a full board.
    let mut b = Board::new(5, Rule::Freestyle).unwrap();
    let order: Vec<Move> = (0..25u8).map(|i| Move::new(i % 5, i / 5)).collect();
    // Colour by 2x1 stripes so nothing lines up five.
    let (mut bl, mut wh): (Vec<Move>, Vec<Move>) =
        order.iter().partition(|m| ((m.x / 2) + m.y) % 2 == 0);
    while !bl.is_empty() || !wh.is_empty() {
        if let Some(m) = bl.pop() {
            b.play(m).unwrap();
        }
        if let Some(m) = wh.pop() {
            b.play(m).unwrap();
        } else if !bl.is_empty() {
            break;
        }
    }
    assert!(b.winner().is_none() && b.is_full(), "{b}");
    assert!(b.play(Move::new(0, 0)).is_err());
    assert!(b.is_over());
    let text = b.to_string();
    assert_eq!(text.lines().count(), 6);
}
