//! Connect Four (and connect-k on other boards) built on `search-core`: a whole game in one
//! file, to show what a new game needs and what each part of the crate then gives it.
//!
//! - [`Game`]: drop a stone in a column, take it back, and say when the game is over;
//! - [`Keyed`]: a canonical key (the stones and whose turn it is, in one `u64`) and its
//!   mirror image, so the [`Solver`]'s memo answers a position and its reflection at once;
//! - [`Evaluate`]: a heuristic (open lines of `k` cells, counted by how full they are), so the
//!   [`Searcher`] can play boards too large to solve.
//!
//! ```sh
//! # Solve small boards exactly, with every optimisation of the solver on and (up to 20
//! # cells) with none, to compare:
//! cargo run --release -p search-core --example connect_four -- solve 4x4 5x4 4x5 5x5 6x4
//! # Connect three on tiny boards, checked against plain minimax:
//! cargo run --release -p search-core --example connect_four -- solve 3x3:3 4x3:3 3x4:3
//! # A game on the standard 7x6 board, the searcher against itself at 100 ms a move:
//! cargo run --release -p search-core --example connect_four -- play 7x6 100
//! ```
use std::sync::Arc;
use std::time::{Duration, Instant};

use search_core::{
    Evaluate, Game, Keyed, Limits, Outcome, SearchConfig, Searcher, Solver, SolverConfig, minimax,
};

/// The board's shape, shared by every copy of a position.
#[derive(Debug)]
struct Shape {
    width: u32,
    height: u32,
    /// Stones in a row that win.
    k: u32,
    /// Every line of `k` cells, as a bit mask.
    lines: Vec<u64>,
}

/// A position. Column `c` owns bits `c * (height + 1) ..`, bottom first, with one spare bit
/// on top, so that a stone's neighbours in every direction are fixed shifts away and lines
/// never wrap from one column into the next.
#[derive(Debug, Clone)]
struct ConnectK {
    shape: Arc<Shape>,
    /// The stones of the side to move.
    mine: u64,
    /// All stones.
    all: u64,
    /// Stones played.
    plies: u32,
}

impl ConnectK {
    /// An empty `width` x `height` board where `k` in a row wins.
    fn new(width: u32, height: u32, k: u32) -> Result<ConnectK, String> {
        // In u64: a u32 product can wrap to a small number on absurd sizes.
        if width == 0 || height == 0 || (u64::from(height) + 1) * u64::from(width) > 64 {
            return Err(format!(
                "a {width}x{height} board does not fit: (height + 1) x width must be 1 to 64"
            ));
        }
        if k < 2 || k > width.max(height) {
            return Err(format!(
                "{k} in a row cannot be made on a {width}x{height} board"
            ));
        }
        let h1 = height + 1;
        let bit = |x: u32, y: u32| 1u64 << (x * h1 + y);
        let mut lines = Vec::new();
        for x in 0..width as i32 {
            for y in 0..height as i32 {
                for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    let (ex, ey) = (x + dx * (k as i32 - 1), y + dy * (k as i32 - 1));
                    if (0..width as i32).contains(&ex) && (0..height as i32).contains(&ey) {
                        lines.push(
                            (0..k as i32)
                                .map(|i| bit((x + dx * i) as u32, (y + dy * i) as u32))
                                .fold(0, |m, b| m | b),
                        );
                    }
                }
            }
        }
        Ok(ConnectK {
            shape: Arc::new(Shape {
                width,
                height,
                k,
                lines,
            }),
            mine: 0,
            all: 0,
            plies: 0,
        })
    }

    fn column_bits(&self, x: u32) -> u64 {
        ((1u64 << self.shape.height) - 1) << (x * (self.shape.height + 1))
    }

    /// Whether the stones `s` hold `k` in a row.
    fn wins(&self, s: u64) -> bool {
        let h1 = u64::from(self.shape.height + 1);
        // Vertical, horizontal and the two diagonals are shifts by 1, h+1, h+2 and h.
        [1, h1, h1 + 1, h1 - 1].into_iter().any(|d| {
            let mut run = s;
            for _ in 1..self.shape.k {
                // One column of 63 cells has a diagonal shift of 64: nothing lines up.
                run &= run.checked_shr(d as u32).unwrap_or(0);
            }
            run != 0
        })
    }

    /// The canonical key: the stones of the side to move plus all stones (plus the bottom
    /// row), which tells every position apart (the classic encoding of Connect Four solvers).
    fn key_of(mine: u64, all: u64, width: u32, height: u32) -> u64 {
        let bottom = (0..width).fold(0u64, |b, x| b | 1u64 << (x * (height + 1)));
        mine + all + bottom
    }

    /// `bits` with the columns in reverse order.
    fn mirror(&self, bits: u64) -> u64 {
        let (w, h1) = (self.shape.width, self.shape.height + 1);
        let col = u64::MAX >> (64 - h1);
        (0..w).fold(0, |m, x| {
            m | ((bits >> (x * h1)) & col) << ((w - 1 - x) * h1)
        })
    }

    /// The board, `X` for the first player and `O` for the second, top row first.
    fn render(&self) -> String {
        let first = if self.plies.is_multiple_of(2) {
            self.mine
        } else {
            self.mine ^ self.all
        };
        let mut s = String::new();
        for y in (0..self.shape.height).rev() {
            for x in 0..self.shape.width {
                let b = 1u64 << (x * (self.shape.height + 1) + y);
                s.push(if first & b != 0 {
                    'X'
                } else if self.all & b != 0 {
                    'O'
                } else {
                    '.'
                });
            }
            s.push('\n');
        }
        s
    }
}

impl Game for ConnectK {
    /// A column, 0 on the left.
    type Move = u32;

    fn generate_moves(&self, moves: &mut Vec<u32>) {
        let top = |x: u32| 1u64 << (x * (self.shape.height + 1) + self.shape.height - 1);
        moves.extend((0..self.shape.width).filter(|&x| self.all & top(x) == 0));
    }

    fn play(&mut self, &x: &u32) {
        // The stone lands on the lowest free cell: adding the column's bottom bit to the
        // column's stones carries into it.
        let bottom = 1u64 << (x * (self.shape.height + 1));
        self.mine ^= self.all;
        self.all |= (self.all + bottom) & self.column_bits(x);
        self.plies += 1;
    }

    fn undo(&mut self, &x: &u32) {
        let column = self.all & self.column_bits(x);
        let top = 1u64 << (63 - column.leading_zeros());
        self.all ^= top;
        self.mine ^= self.all;
        self.plies -= 1;
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.wins(self.mine ^ self.all) {
            Some(Outcome::Loss) // the player who just moved made a line
        } else if self.plies == self.shape.width * self.shape.height {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn order_moves(&self, moves: &mut [u32]) {
        // Central columns take part in more lines.
        let centre = self.shape.width as i32 - 1;
        moves.sort_by_key(|&x| (2 * x as i32 - centre).abs());
    }
}

impl Keyed for ConnectK {
    type Key = u64;

    fn key(&self) -> u64 {
        ConnectK::key_of(self.mine, self.all, self.shape.width, self.shape.height)
    }

    fn symmetric_keys(&self, keys: &mut Vec<u64>) {
        let (mine, all) = (self.mirror(self.mine), self.mirror(self.all));
        keys.push(ConnectK::key_of(
            mine,
            all,
            self.shape.width,
            self.shape.height,
        ));
    }
}

impl Evaluate for ConnectK {
    fn evaluate(&self) -> i32 {
        // A line still open to one side only is worth more the fuller it is.
        let theirs = self.mine ^ self.all;
        let worth = |n: u32| [0, 1, 4, 16, 64, 256, 1024, 4096][n.min(7) as usize];
        self.shape
            .lines
            .iter()
            .map(
                |&l| match ((l & self.mine).count_ones(), (l & theirs).count_ones()) {
                    (m, 0) => worth(m),
                    (0, t) => -worth(t),
                    _ => 0,
                },
            )
            .sum()
    }
}

/// `WxH` or `WxH:K` (K in a row wins; 4 by default).
fn parse_board(s: &str) -> Result<ConnectK, String> {
    let (size, k) = s.split_once(':').unwrap_or((s, "4"));
    let (w, h) = size
        .split_once('x')
        .ok_or_else(|| format!("`{s}`: expected WxH or WxH:K, e.g. 7x6 or 4x3:3"))?;
    let num = |t: &str| {
        t.parse::<u32>()
            .map_err(|_| format!("`{s}`: `{t}` is not a number"))
    };
    ConnectK::new(num(w)?, num(h)?, num(k)?)
}

fn describe(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "first player wins",
        Outcome::Draw => "draw",
        Outcome::Loss => "second player wins",
    }
}

fn solve(boards: &[String]) -> Result<(), String> {
    // Every board is checked before the table starts, so a bad one prints no header.
    let games = boards
        .iter()
        .map(|b| parse_board(b))
        .collect::<Result<Vec<_>, _>>()?;
    println!(
        "| board | k | result | best first moves (columns) | solver: nodes, memo hits, time | plain solver: nodes, time | plain minimax |"
    );
    println!("|---|---:|---|---|---|---|---|");
    for (b, mut game) in boards.iter().zip(games) {
        let (w, h, k) = (game.shape.width, game.shape.height, game.shape.k);
        let cells = w * h;
        let mut full = Solver::new(SolverConfig::full(16 << 20));
        let t = Instant::now();
        let value = full.solve(&mut game);
        let full_time = t.elapsed();
        let stats = full.stats();
        let best: Vec<String> = full
            .best_moves(&mut game)
            .iter()
            .map(u32::to_string)
            .collect();
        // The plain solver (no memo, no ordering) grows a hundredfold by 25 cells, and
        // minimax, which visits every line of play, is only for the smallest boards.
        let plain = if cells <= 20 {
            let mut plain = Solver::new(SolverConfig::PLAIN);
            let t = Instant::now();
            if plain.solve(&mut game) != value {
                return Err(format!("{b}: the plain solver disagrees"));
            }
            format!("{}, {:.1?}", plain.stats().nodes, t.elapsed())
        } else {
            "(over 20 cells: skipped)".to_owned()
        };
        let reference = if cells <= 12 {
            let o = minimax::solve(&mut game);
            if o != value {
                return Err(format!("{b}: minimax says {}", describe(o)));
            }
            "agrees"
        } else {
            "(over 12 cells: skipped)"
        };
        println!(
            "| {w}x{h} | {k} | {} | {} | {}, {}, {:.1?} | {plain} | {reference} |",
            describe(value),
            best.join(" "),
            stats.nodes,
            stats.memo_hits,
            full_time
        );
    }
    Ok(())
}

fn play(board: &str, ms: u64) -> Result<(), String> {
    let mut game = parse_board(board)?;
    let mut searcher: Searcher<ConnectK> = Searcher::new(SearchConfig::default());
    while game.outcome().is_none() {
        let r = searcher.search(&mut game, &Limits::time(Duration::from_millis(ms)));
        let Some(x) = r.best_move else {
            return Err("the searcher found no move".into());
        };
        println!(
            "ply {:>2}: column {x} (depth {}, score {}, {} nodes)",
            game.plies + 1,
            r.depth,
            r.score.0,
            r.stats.nodes
        );
        game.play(&x);
    }
    print!("{}", game.render());
    let last = if game.plies % 2 == 1 {
        "first"
    } else {
        "second"
    };
    match game.outcome() {
        Some(Outcome::Loss) => println!("the {last} player wins after {} plies", game.plies),
        _ => println!("draw after {} plies", game.plies),
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("solve") if args.len() > 1 => solve(&args[1..]),
        Some("play") if args.len() == 3 => args[2]
            .parse()
            .map_err(|_| format!("`{}` is not a number of milliseconds", args[2]))
            .and_then(|ms| play(&args[1], ms)),
        _ => Err("usage: connect_four solve WxH[:K]... | connect_four play WxH[:K] MS".into()),
    };
    if let Err(e) = result {
        eprintln!("connect_four: {e}");
        std::process::exit(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of play of a small board, checking play/undo, keys and outcomes against a
    /// plain grid replay.
    fn walk(game: &mut ConnectK, grid: &mut Vec<Vec<u8>>, depth: u32) {
        let (w, h) = (game.shape.width as usize, game.shape.height as usize);
        let k = game.shape.k as usize;
        let mover = (game.plies % 2) as u8 + 1;
        let last = 3 - mover;
        // The reference: does the player who just moved hold k in a row?
        let cell = |x: i32, y: i32| {
            x >= 0 && y >= 0 && grid.get(x as usize).and_then(|c| c.get(y as usize)) == Some(&last)
        };
        let line = (0..w as i32).any(|x| {
            (0..h as i32).any(|y| {
                [(1, 0), (0, 1), (1, 1), (1, -1)]
                    .iter()
                    .any(|&(dx, dy)| (0..k as i32).all(|i| cell(x + dx * i, y + dy * i)))
            })
        });
        let full = grid.iter().all(|c| c.len() == h);
        let expected = if game.plies > 0 && line {
            Some(Outcome::Loss)
        } else if full {
            Some(Outcome::Draw)
        } else {
            None
        };
        assert_eq!(game.outcome(), expected, "{}", game.render());
        // The mirror key is the key of the mirrored grid.
        let mut keys = Vec::new();
        game.symmetric_keys(&mut keys);
        let mut mirrored = game.clone();
        (mirrored.mine, mirrored.all) = (game.mirror(game.mine), game.mirror(game.all));
        assert_eq!(keys, vec![mirrored.key()]);
        if expected.is_some() || depth == 0 {
            return;
        }
        let mut moves = Vec::new();
        game.generate_moves(&mut moves);
        let open: Vec<u32> = (0..w)
            .filter(|&x| grid[x].len() < h)
            .map(|x| x as u32)
            .collect();
        assert_eq!(moves, open);
        for x in moves {
            let before = (game.mine, game.all, game.key());
            game.play(&x);
            grid[x as usize].push(mover);
            walk(game, grid, depth - 1);
            grid[x as usize].pop();
            game.undo(&x);
            assert_eq!((game.mine, game.all, game.key()), before);
        }
    }

    #[test]
    fn moves_outcomes_and_keys_match_a_grid_replay() {
        for (w, h, k) in [(4, 3, 3), (3, 4, 3), (4, 4, 4), (5, 2, 2)] {
            let mut game = ConnectK::new(w, h, k).unwrap();
            walk(&mut game, &mut vec![Vec::new(); w as usize], 8);
        }
    }

    #[test]
    fn keys_tell_positions_apart() {
        // Every position reachable on a 4x3 board has its own key.
        fn collect(game: &mut ConnectK, seen: &mut std::collections::HashMap<u64, (u64, u64)>) {
            let e = seen.entry(game.key()).or_insert((game.mine, game.all));
            assert_eq!(*e, (game.mine, game.all));
            if game.outcome().is_some() {
                return;
            }
            let mut moves = Vec::new();
            game.generate_moves(&mut moves);
            for x in moves {
                game.play(&x);
                collect(game, seen);
                game.undo(&x);
            }
        }
        let mut seen = std::collections::HashMap::new();
        collect(&mut ConnectK::new(4, 3, 4).unwrap(), &mut seen);
        assert!(seen.len() > 1000);
    }

    #[test]
    fn the_solvers_agree_with_minimax() {
        for b in ["3x3:3", "4x3:3", "3x4:3", "4x3:4", "5x2:2"] {
            let mut game = parse_board(b).unwrap();
            let reference = minimax::solve(&mut game);
            for config in [SolverConfig::PLAIN, SolverConfig::full(1 << 20)] {
                assert_eq!(Solver::new(config).solve(&mut game), reference, "{b}");
            }
        }
        // Two in a row on a board two wide: the first stone's neighbour wins.
        assert_eq!(
            Solver::new(SolverConfig::default()).solve(&mut parse_board("2x2:2").unwrap()),
            Outcome::Win
        );
    }

    /// One column as tall as a key allows (63 cells, 62 below the diagonal shift of 64):
    /// alternating stones never make a vertical line, so it is a draw.
    #[test]
    fn one_tall_column_is_a_draw() {
        for b in ["1x62:2", "1x63:2", "1x63:3"] {
            let mut game = parse_board(b).unwrap();
            assert_eq!(
                Solver::new(SolverConfig::full(1 << 16)).solve(&mut game),
                Outcome::Draw,
                "{b}"
            );
            assert_eq!(game.mirror(game.all), game.all);
        }
    }

    #[test]
    fn bad_boards_are_refused() {
        for b in [
            "7",
            "9x7",
            "0x3",
            "3x3:5",
            "3x3:1",
            "ax3",
            "3x3:x",
            "1x4294967295",
            "65536x65535",
        ] {
            assert!(parse_board(b).is_err(), "{b}");
        }
    }
}
