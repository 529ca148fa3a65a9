//! `gameai showcase`: one short run of every game crate, and a summary table.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::CliError;

/// Options of `gameai showcase`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A few seconds instead of about twenty: fewer games, and one short Gomoku game
    /// instead of two (the win rates and means are then rougher).
    #[arg(long)]
    pub quick: bool,
}

/// One line of the summary table.
#[derive(Debug)]
pub struct Row {
    /// The game.
    pub game: &'static str,
    /// What was done.
    pub task: String,
    /// What came out.
    pub result: String,
    /// How long it took.
    pub time: Duration,
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<(), CliError> {
    let start = Instant::now();
    let mut rows = Vec::new();
    rows.extend(crate::twofour_cmd::showcase(out)?);
    rows.extend(crate::minesweeper_cmd::showcase(args.quick, out)?);
    rows.extend(crate::battleship_cmd::showcase(args.quick, out)?);
    rows.extend(crate::gomoku_cmd::showcase(args.quick, out)?);
    writeln!(out)?;
    print_table(&rows, out)?;
    writeln!(out, "total {:.2} s", start.elapsed().as_secs_f64())?;
    Ok(())
}

fn print_table(rows: &[Row], out: &mut impl Write) -> Result<(), CliError> {
    let w =
        |f: fn(&Row) -> usize, title: &str| rows.iter().map(f).max().unwrap_or(0).max(title.len());
    let (wg, wt, wr) = (
        w(|r| r.game.chars().count(), "game"),
        w(|r| r.task.chars().count(), "task"),
        w(|r| r.result.chars().count(), "result"),
    );
    writeln!(
        out,
        "| {:wg$} | {:wt$} | {:wr$} | {:>9} |",
        "game", "task", "result", "time"
    )?;
    writeln!(
        out,
        "|{}|{}|{}|{}|",
        "-".repeat(wg + 2),
        "-".repeat(wt + 2),
        "-".repeat(wr + 2),
        "-".repeat(11)
    )?;
    for r in rows {
        writeln!(
            out,
            "| {:wg$} | {:wt$} | {:wr$} | {:>7.1}ms |",
            r.game,
            r.task,
            r.result,
            r.time.as_secs_f64() * 1000.0
        )?;
    }
    Ok(())
}
