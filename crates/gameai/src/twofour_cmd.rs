//! `gameai twofour`: the olympiad solver.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Instant;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use search_core::Game;
use twofour::{Level, Pile, Player, Position, Problem, TwoFourSolver, Winner};

use crate::CliError;

/// Options of `gameai twofour`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Input in the olympiad format (`N G`, then G games of N ball counts); standard input if
    /// absent or `-`.
    file: Option<PathBuf>,
    /// Print each game's optimal line of play instead of the bare results.
    #[arg(long)]
    explain: bool,
    /// Solver level: plain, merged, memo, duality or multiset (the fastest).
    #[arg(long, default_value = "multiset")]
    level: Level,
    /// Memo size in bytes.
    #[arg(long, default_value_t = twofour::DEFAULT_MEMO_BYTES)]
    memo_bytes: usize,
    /// Print search statistics and timing to standard error.
    #[arg(long)]
    stats: bool,
    /// Instead of solving, write G random games of N piles in the olympiad format.
    #[arg(long, num_args = 2, value_names = ["N", "G"], conflicts_with_all = ["file", "explain"])]
    generate: Option<Vec<u64>>,
    /// Seed of --generate.
    #[arg(long, default_value_t = 1, requires = "generate")]
    seed: u64,
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<(), CliError> {
    if let Some(ng) = &args.generate {
        return generate(ng[0], ng[1], args.seed, out);
    }
    let input = read_input(args.file.as_ref())?;
    let problem = twofour::parse_bytes(&input)?;
    let mut solver = TwoFourSolver::with_memo_bytes(args.level, args.memo_bytes);
    let start = Instant::now();
    for (i, game) in problem.games.iter().enumerate() {
        if args.explain {
            explain(i + 1, game, &mut solver, out)?;
        } else {
            writeln!(out, "{}", solver.solve(game).code())?;
        }
    }
    if args.stats {
        eprintln!(
            "{} games of {} piles, level {}, {:.3} s; memo {} entries in {} bytes; {}",
            problem.games.len(),
            problem.piles,
            args.level,
            start.elapsed().as_secs_f64(),
            solver.memo_len(),
            solver.memo_bytes(),
            solver.stats()
        );
    }
    Ok(())
}

fn read_input(file: Option<&PathBuf>) -> Result<Vec<u8>, CliError> {
    let mut input = Vec::new();
    match file {
        Some(path) if path.as_os_str() != "-" => {
            input = std::fs::read(path)
                .map_err(|e| CliError(format!("cannot read {}: {e}", path.display())))?;
        }
        _ => {
            std::io::stdin()
                .lock()
                .read_to_end(&mut input)
                .map_err(|e| CliError(format!("cannot read standard input: {e}")))?;
        }
    }
    Ok(input)
}

fn generate(n: u64, g: u64, seed: u64, out: &mut impl Write) -> Result<(), CliError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let piles = usize::try_from(n).unwrap_or(usize::MAX);
    let mut games = Vec::new();
    for _ in 0..g {
        games.push(twofour::random_game(piles, &mut rng)?);
    }
    write!(out, "{}", Problem { piles, games })?;
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
    writeln!(
        out,
        "  (2a / 2b: two balls owned by the first / second player)"
    )?;
    let mut p = game.clone();
    for (ply, m) in solver.principal_line(game).iter().enumerate() {
        let mover = p.to_move();
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
        "  end: first player owns {a} piles, second player {b}: {verdict}"
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
        .games
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
        },
        crate::showcase::Row {
            game: "TwoFour",
            task: "1000 random N=30 games, exact".into(),
            result: format!("P1 {} / P2 {} / draw {}", tally[1], tally[2], tally[0]),
            time: random_time,
        },
    ])
}
