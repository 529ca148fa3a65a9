//! `gameai showcase`: one short run of every game crate, and a summary table.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::CliError;

/// Options of `gameai showcase`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A few seconds instead of up to a minute: fewer games, and one short Gomoku game
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
    /// Whether the result is the one known to be right, where one is (the TwoFour sample's
    /// answer); `true` where nothing is checked.
    pub correct: bool,
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<(), CliError> {
    let start = Instant::now();
    let mut rows = Vec::new();
    // Each part's lines are shown as they come (the Minesweeper and Battleship parts flush
    // them level by level, TwoFour's are flushed here; Gomoku's come with the table).
    rows.extend(crate::twofour_cmd::showcase(out)?);
    out.flush()?;
    rows.extend(crate::minesweeper_cmd::showcase(args.quick, out)?);
    rows.extend(crate::battleship_cmd::showcase(args.quick, out)?);
    rows.extend(crate::gomoku_cmd::showcase(args.quick, out)?);
    writeln!(out)?;
    print_table(&rows, out)?;
    writeln!(out, "total {:.2} s", start.elapsed().as_secs_f64())?;
    all_correct(&rows)
}

/// An error naming the first row whose result is known to be wrong: the run then fails.
fn all_correct(rows: &[Row]) -> Result<(), CliError> {
    match rows.iter().find(|r| !r.correct) {
        Some(r) => Err(CliError(format!(
            "{} {}: wrong result {}",
            r.game, r.task, r.result
        ))),
        None => Ok(()),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A row whose check failed fails the run, after the table.
    #[test]
    fn a_wrong_result_is_an_error() {
        let row = |correct| Row {
            game: "TwoFour",
            task: "sample".into(),
            result: "1 1 1 1 (WRONG)".into(),
            time: Duration::ZERO,
            correct,
        };
        assert!(all_correct(&[row(true), row(true)]).is_ok());
        let e = all_correct(&[row(true), row(false)]).unwrap_err();
        assert_eq!(e.0, "TwoFour sample: wrong result 1 1 1 1 (WRONG)");
    }
}
