//! `gameai twofour`: the olympiad solver.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use search_core::Game;
use twofour::{Level, Pile, Player, Position, TwoFourSolver, Winner};

use crate::CliError;

/// Options of `gameai twofour`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Input in the olympiad format (`N G`, then G games of N ball counts), at most 1 GiB;
    /// standard input if absent or `-`.
    #[arg(default_value = "-", hide_default_value = true)]
    file: PathBuf,
    /// Print each game's optimal line of play instead of the bare results.
    #[arg(long)]
    explain: bool,
    /// Solver level: plain, merged, memo, duality or multiset (the fastest). plain and
    /// merged search without a memo: a game of 8 and 12 piles already takes them about a
    /// third and four fifths of a second (docs/PERFORMANCE.md), and their time grows
    /// exponentially with the piles, with nothing printed until a game is solved.
    #[arg(long, default_value = "multiset")]
    level: Level,
    /// Memo size in bytes [default: 983040 (under the olympiad's 1 MB) up to 78 piles, then
    /// 2 N^3 bytes, at most 1 GiB, so that large games do not slow down to a crawl; none when
    /// every game is already over]; 0 runs without a memo, as the plain and merged levels
    /// always do (they ignore this option, and are slow past 8 and 12 piles: see
    /// docs/PERFORMANCE.md)
    #[arg(long, value_parser = crate::values::whole::<usize>)]
    memo_bytes: Option<usize>,
    /// Print search statistics and timing to standard error.
    #[arg(long)]
    stats: bool,
    /// Instead of solving, write G random games of N piles in the olympiad format.
    #[arg(long, num_args = 2, value_names = ["N", "G"], action = clap::ArgAction::Set,
          value_parser = crate::values::whole::<u64>,
          conflicts_with_all = ["file", "explain", "level", "memo_bytes", "stats"])]
    generate: Option<Vec<u64>>,
    /// Seed of --generate [default: 1]
    // Checked by `usage_error`: with `file` defaulted, clap would blame the file instead.
    #[arg(long, value_parser = crate::values::whole::<u64>)]
    seed: Option<u64>,
}

/// A combination of options that clap's attributes cannot say is wrong.
pub fn usage_error(args: &Args) -> Option<&'static str> {
    (args.seed.is_some() && args.generate.is_none())
        .then_some("--seed is the seed of --generate, which is not given")
}

/// How long results may wait in the output buffer.
const FLUSH_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// From this many piles, every result is written as soon as it is found.
const FLUSH_EACH_FROM_PILES: usize = 100;

pub fn run(args: &Args, out: &mut impl Write) -> Result<(), CliError> {
    if let Some(ng) = &args.generate {
        return generate(ng[0], ng[1], args.seed.unwrap_or(1), out);
    }
    let input = crate::read_input(&args.file)?;
    let named =
        |e: twofour::ParseError| CliError(format!("{}: {e}", crate::input_name(&args.file)));
    // The whole input is checked before any game is solved, so that an error comes alone,
    // not after the results of the games before it; the games are read twice instead of
    // being kept (a few bytes of text each, tens of bytes as positions).
    let mut games = 0u64;
    let mut to_search = false;
    for game in twofour::read_games_bytes(&input).map_err(named)? {
        to_search |= !game.map_err(named)?.is_over();
        games += 1;
    }
    let reader = twofour::read_games_bytes(&input).map_err(named)?;
    let piles = reader.piles();
    // No default memo where no game needs a search (no games, or only finished ones): at
    // thousands of piles it would take a gigabyte for nothing.
    let memo_bytes = args.memo_bytes.unwrap_or_else(|| {
        if to_search {
            twofour::memo_bytes_for(piles)
        } else {
            0
        }
    });
    let mut solver = TwoFourSolver::try_with_memo_bytes(args.level, memo_bytes)
        .map_err(|_| crate::allocation_error(memo_bytes, "the memo"))?;
    let start = Instant::now();
    if args.explain {
        writeln!(
            out,
            "(2a / 2b: two balls owned by the first / second player)"
        )?;
    }
    // Results are buffered, but not for long: a long run shows its progress, and an
    // interrupted one keeps the results it found. Games of many piles may each take seconds
    // (the next one may be the slow one), so each of their results goes out at once.
    let every_game = piles >= FLUSH_EACH_FROM_PILES;
    let mut flushed = Instant::now();
    for (i, game) in reader.enumerate() {
        let game = game.map_err(named)?;
        if args.explain {
            explain(i + 1, &game, &mut solver, out)?;
        } else {
            writeln!(out, "{}", solver.solve(&game).code())?;
        }
        if every_game || flushed.elapsed() >= FLUSH_EVERY {
            out.flush()?;
            flushed = Instant::now();
        }
    }
    if args.stats {
        // The answers first: on a terminal the report would otherwise come before the
        // buffered answers it sums up.
        out.flush()?;
        // A report nobody reads (standard error closed) is no reason to fail the run.
        let _ = writeln!(
            std::io::stderr(),
            "{} of {} piles, level {}, {:.3} s; memo {} entries in {} bytes; {}",
            crate::plural(games, "game"),
            piles,
            args.level,
            start.elapsed().as_secs_f64(),
            solver.memo_len(),
            solver.memo_bytes(),
            solver.stats()
        );
    }
    Ok(())
}

/// Writes the games one at a time, so that any number of them streams in constant memory
/// (the same text as [`twofour::Problem`]'s `Display`).
fn generate(n: u64, g: u64, seed: u64, out: &mut impl Write) -> Result<(), CliError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let piles = usize::try_from(n).unwrap_or(usize::MAX);
    // Checked even for no games, so that the header written is one the solver reads back.
    twofour::check_piles(piles)?;
    let mut first = true;
    for _ in 0..g {
        let game = twofour::random_game(piles, &mut rng)?;
        if first {
            writeln!(out, "{piles} {g}")?;
            first = false;
        }
        let balls: Vec<String> = game.piles().iter().map(|p| p.balls().to_string()).collect();
        writeln!(out, "{}", balls.join(" "))?;
    }
    if first {
        writeln!(out, "{piles} 0")?;
    }
    Ok(())
}

/// Prints the optimal line of one game, move by move, and who owns what at the end.
fn explain(
    number: usize,
    game: &Position,
    solver: &mut TwoFourSolver,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let winner = solver.solve(game);
    writeln!(
        out,
        "game {number}: {game}  => {winner} ({})",
        winner.code()
    )?;
    let mut p = game.clone();
    for (ply, m) in solver.principal_line(game).iter().enumerate() {
        let mover = p.side_to_move();
        p.play(m);
        writeln!(
            out,
            "  {:>3}. {:<13} {:<26}  {p}",
            ply + 1,
            mover.to_string(),
            m.to_string()
        )?;
    }
    let owned = |who: Player| p.piles().iter().filter(|&&k| k == Pile::two(who)).count();
    let (a, b) = (owned(Player::First), owned(Player::Second));
    let verdict = match p.final_winner() {
        Some(Winner::Draw) => "draw".to_owned(),
        Some(w) => w.to_string(),
        None => "unfinished".to_owned(),
    };
    writeln!(
        out,
        "  end: first player owns {}, second player {b}: {verdict}",
        crate::plural(a, "pile")
    )?;
    Ok(())
}

/// The showcase's TwoFour part: the olympiad sample and 1000 random games of 30 piles.
pub fn showcase(out: &mut impl Write) -> Result<Vec<crate::showcase::Row>, CliError> {
    let sample = "5 4\n0 3 4 1 2\n2 2 2 2 2\n1 1 2 2 4\n4 3 2 1 0\n";
    let problem = twofour::parse(sample)?;
    let mut solver = TwoFourSolver::new(Level::Multiset);
    let start = Instant::now();
    let codes: Vec<String> = problem
        .games()
        .iter()
        .map(|g| solver.solve(g).code().to_string())
        .collect();
    let sample_time = start.elapsed();
    let ok = codes == ["1", "2", "1", "1"];
    writeln!(
        out,
        "TwoFour: olympiad sample -> {} (expected 1 2 1 1)",
        codes.join(" ")
    )?;

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2002);
    let games: Vec<Position> = (0..1000)
        .map(|_| twofour::random_game(30, &mut rng))
        .collect::<Result<_, _>>()?;
    let start = Instant::now();
    let mut tally = [0usize; 3];
    for g in &games {
        tally[usize::from(solver.solve(g).code())] += 1;
    }
    let random_time = start.elapsed();
    writeln!(
        out,
        "TwoFour: 1000 random games of 30 piles (seed 2002): first wins {}, second wins {}, draws {}; memo {} KiB, {}",
        tally[1],
        tally[2],
        tally[0],
        solver.memo_bytes() / 1024,
        solver.stats()
    )?;
    Ok(vec![
        crate::showcase::Row {
            game: "TwoFour",
            task: "olympiad sample, exact".into(),
            result: format!(
                "{} ({})",
                codes.join(" "),
                if ok { "correct" } else { "WRONG" }
            ),
            time: sample_time,
            correct: ok,
        },
        crate::showcase::Row {
            game: "TwoFour",
            task: "1000 random N=30 games, exact".into(),
            result: format!("P1 {} / P2 {} / draw {}", tally[1], tally[2], tally[0]),
            time: random_time,
            correct: true,
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_games_stream_the_problem_format() {
        let mut out = Vec::new();
        generate(30, 7, 11, &mut out).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let games = (0..7)
            .map(|_| twofour::random_game(30, &mut rng).unwrap())
            .collect();
        let expected = twofour::Problem::new(30, games).unwrap().to_string();
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        assert!(generate(2, 3, 1, &mut Vec::new()).is_err());
    }
}
