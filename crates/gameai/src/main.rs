//! `gameai`: the command-line front end of the workspace.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod battleship_cmd;
mod gomoku_cmd;
mod minesweeper_cmd;
mod parallel;
mod showcase;
mod twofour_cmd;

/// Game-playing AI: solve, play and evaluate the games of the gameai crates.
#[derive(Debug, Parser)]
#[command(name = "gameai", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run every game's part of the demonstration and print a summary table.
    Showcase(showcase::Args),
    /// Solve TwoFour games given in the olympiad format (from FILE or standard input).
    Twofour(twofour_cmd::Args),
    /// Evaluate the Minesweeper solver, or analyse a position.
    Minesweeper(minesweeper_cmd::Args),
    /// Evaluate Battleship shooters, or show a position's hit probabilities.
    Battleship(battleship_cmd::Args),
    /// Play Gomoku against the engine, or run engine matches.
    Gomoku(gomoku_cmd::Args),
}

/// A failure to report on one line and exit non-zero.
#[derive(Debug)]
pub struct CliError(pub String);

impl<E: std::error::Error> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError(e.to_string())
    }
}

/// Creates a `--records` file of `eval` before the games are played, so that a path that
/// cannot be written fails at once, not after a long run.
fn create_records(path: &std::path::Path) -> Result<std::fs::File, CliError> {
    std::fs::File::create(path)
        .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))
}

/// Writes one line per game to a file from [`create_records`], game `i` on line `i`.
fn write_records(
    file: std::fs::File,
    path: &std::path::Path,
    lines: impl IntoIterator<Item = String>,
) -> Result<(), CliError> {
    let mut w = io::BufWriter::new(file);
    lines
        .into_iter()
        .try_for_each(|line| writeln!(w, "{line}"))
        .and_then(|()| w.flush())
        .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = io::BufWriter::new(io::stdout().lock());
    let result = match cli.command {
        Command::Showcase(args) => showcase::run(&args, &mut out),
        Command::Twofour(args) => twofour_cmd::run(&args, &mut out),
        Command::Minesweeper(args) => minesweeper_cmd::run(&args, &mut out),
        Command::Battleship(args) => battleship_cmd::run(&args, &mut out),
        Command::Gomoku(args) => gomoku_cmd::run(&args, &mut out),
    };
    let result = result.and_then(|()| out.flush().map_err(CliError::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`gameai ... | head`) is the reader's choice, not an error.
        Err(CliError(msg)) if msg.contains("Broken pipe") => ExitCode::SUCCESS,
        Err(CliError(msg)) => {
            let _ = writeln!(io::stderr(), "gameai: {msg}");
            ExitCode::FAILURE
        }
    }
}
