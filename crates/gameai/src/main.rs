//! `gameai`: the command-line front end of the workspace.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod battleship_cmd;
mod gomoku_cmd;
mod minesweeper_cmd;
mod output;
mod parallel;
mod showcase;
mod twofour_cmd;
mod values;

/// Game-playing AI: solve, play and evaluate the games of the gameai crates.
#[derive(Debug, Parser)]
#[command(
    name = "gameai",
    version,
    about,
    after_help = "Exit status: 0 on success; 2 when the argument parser refuses the command \
line (an unknown option, a missing argument, an unknown name, a number it cannot read or \
outside the range it checks; the message ends with a usage hint); 1 for any other error, \
reported on one line starting `gameai:` (an input that cannot be read or parsed, an \
inconsistent position, a board or fleet that the rules refuse, options that do not fit the \
board, the fleet or each other, an external brain that does not start)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run every game's part of the demonstration and print a summary table.
    Showcase(showcase::Args),
    /// Solve TwoFour games given in the olympiad format (from FILE or standard input).
    ///
    /// Prints one line per game: 1 (the first player wins), 2 (the second player wins) or 0
    /// (a draw), each as soon as its game is solved. The input is read as a stream of
    /// numbers, `N G` and then G games of N ball counts, whatever the line breaks: a game may
    /// span lines and a line may hold several games, so a miscounted line usually shows up as
    /// a game whose balls do not add up, or as numbers missing or left over at the end (but
    /// goes unnoticed where the numbers happen to form valid games).
    #[command(override_usage = "gameai twofour [OPTIONS] [FILE]\n       \
                                gameai twofour --generate <N> <G> [--seed <SEED>]")]
    Twofour(twofour_cmd::Args),
    /// Evaluate the Minesweeper solver, or analyse a position.
    Minesweeper(minesweeper_cmd::Args),
    /// Evaluate Battleship shooters, or show a position's hit probabilities.
    Battleship(battleship_cmd::Args),
    /// Play Gomoku against the engine, or run engine matches.
    #[command(
        after_help = "The engine as a Gomocup brain, for tournament managers such as \
piskvork, is the program pbrain-gameai, built beside gameai (`cargo build --release -p \
gameai`); `pbrain-gameai --help` says what it speaks."
    )]
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

/// Reads the text file `path` (standard input for `-`) and parses it with `parse` (after a
/// byte-order mark, if any); either failure is an error that names the file.
pub fn parse_file<T, E: std::fmt::Display>(
    path: &std::path::Path,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<T, CliError> {
    parse_file_at_most(path, MAX_INPUT_BYTES, parse)
}

/// [`parse_file`] for a kind of file that holds at most `limit` bytes: a larger one is
/// refused before more than `limit` bytes are read.
pub fn parse_file_at_most<T, E: std::fmt::Display>(
    path: &std::path::Path,
    limit: u64,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<T, CliError> {
    let text = String::from_utf8(read_input_at_most(path, limit)?).map_err(|_| {
        CliError(format!(
            "cannot read {}: it is not UTF-8 text",
            input_name(path)
        ))
    })?;
    parse(strip_bom(&text)).map_err(|e| CliError(format!("{}: {e}", input_name(path))))
}

/// The most bytes an input may hold. More is refused, not read until memory runs out (a
/// device such as `/dev/zero` never ends).
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Reads all of `path` (standard input for `-`), up to [`MAX_INPUT_BYTES`].
pub fn read_input(path: &std::path::Path) -> Result<Vec<u8>, CliError> {
    read_input_at_most(path, MAX_INPUT_BYTES)
}

/// Reads all of `path` (standard input for `-`), up to `most` bytes.
pub fn read_input_at_most(path: &std::path::Path, most: u64) -> Result<Vec<u8>, CliError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let limit = most + 1;
    let too_large = || {
        CliError(format!(
            "{} holds more than {most} bytes{}, the most an input of its kind may hold",
            input_name(path),
            if most == MAX_INPUT_BYTES {
                " (1 GiB)"
            } else {
                ""
            }
        ))
    };
    if is_dash(path) {
        std::io::stdin().lock().take(limit).read_to_end(&mut bytes)
    } else {
        let file = std::fs::File::open(path)
            .map_err(|e| CliError(format!("cannot read {}: {e}", input_name(path))))?;
        // A regular file says its size: one too large is refused before it is read.
        if file.metadata().is_ok_and(|m| m.is_file() && m.len() > most) {
            return Err(too_large());
        }
        file.take(limit).read_to_end(&mut bytes)
    }
    .map_err(|e| CliError(format!("cannot read {}: {e}", input_name(path))))?;
    if bytes.len() as u64 > most {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The text without the byte-order mark some editors put at the start of UTF-8 files.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The message for `bytes` of memory that could not be had for `what`.
pub fn allocation_error(bytes: usize, what: &str) -> CliError {
    CliError(format!(
        "cannot allocate {bytes} bytes for {what}: choose a smaller size"
    ))
}

/// `1 game`, `2 games`, `3 losses`: a count and its noun.
pub fn plural(n: impl std::fmt::Display, noun: &str) -> String {
    let n = n.to_string();
    match (n.as_str(), noun.ends_with('s')) {
        ("1", _) => format!("1 {noun}"),
        (_, true) => format!("{n} {noun}es"),
        (_, false) => format!("{n} {noun}s"),
    }
}

/// A probability as a whole percentage that never rounds a possibility away: only a certain
/// event reads 100 and only an impossible one 0 (a mine in Minesweeper, a hit in Battleship).
pub fn percent(p: f64) -> String {
    percent_to(p, 0)
}

/// A probability as a percentage with two decimals, which, as [`percent`], never rounds a
/// possibility away: a guess that may be safe never reads 100.00.
pub fn percent_2dp(p: f64) -> String {
    percent_to(p, 2)
}

/// `p` in percent with `decimals` decimals, kept one last digit away from 0 and 100 unless
/// it is impossible or certain.
fn percent_to(p: f64, decimals: usize) -> String {
    let step = 10f64.powi(-(decimals as i32));
    let shown = if p <= 0.0 {
        0.0
    } else if p >= 1.0 {
        100.0
    } else {
        (100.0 * p).clamp(step, 100.0 - step)
    };
    format!("{shown:.decimals$}")
}

/// Writes `contents` to the output file `path`, or to `out` (standard output) for `-`.
/// Returns whether it went to a file, so that the caller says so only then (standard output
/// then carries the contents alone). A path naming standard output (`/dev/stdout`) counts as
/// `-`.
pub fn write_output(
    path: &std::path::Path,
    contents: &[u8],
    out: &mut impl Write,
) -> Result<bool, CliError> {
    if is_standard_output(path) {
        out.write_all(contents)?;
        return Ok(false);
    }
    let mut file = output::OutputFile::create(path)?;
    file.write_with(|w| w.write_all(contents))?;
    file.commit()?;
    Ok(true)
}

/// Checks, before a long run, that the output file `path` (not `-`) can be written, leaving
/// nothing behind: it is written once the run is over.
pub fn check_output(path: &std::path::Path) -> Result<(), CliError> {
    output::check_not_directory_name(path)?;
    // What is written directly (a terminal, a pipe, `/dev/stdout`) is not opened twice:
    // that could block (a pipe with no reader yet) or end a reader's input early.
    if !is_dash(path) && !output::is_direct(path) {
        // Opened and dropped: a regular file's temporary copy is removed at once.
        output::OutputFile::create(path)?;
    }
    Ok(())
}

/// Refuses an output file that is also the input file `input` (or, for `-`, the file
/// standard input was redirected from): the output would replace what was read (board or
/// fleet files, a position), losing it.
pub fn check_not_input(output: &std::path::Path, input: &std::path::Path) -> Result<(), CliError> {
    let same = if is_dash(input) {
        output::is_stdin(output)
    } else {
        output::same_file(input, output)
    };
    if is_standard_output(output) || !same {
        return Ok(());
    }
    Err(CliError(format!(
        "{} is the input file too: writing it would replace what is read; choose another name",
        output.display()
    )))
}

/// `-` stands for standard input (or output, for an output file), as for most command-line
/// tools.
fn is_dash(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether the output `path` is standard output: `-`, or a name for the file or pipe standard
/// output goes to (`/dev/stdout`), written through it so that the order of the output holds.
fn is_standard_output(path: &std::path::Path) -> bool {
    is_dash(path) || output::is_stdout(path)
}

/// How errors name an input.
pub fn input_name(path: &std::path::Path) -> String {
    if is_dash(path) {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    }
}

/// As [`parse_file`] for a JSON-lines file of `what` (boards, fleets), which must hold at
/// least one: a run of none would summarise nothing.
pub fn parse_lines_file<T, E: std::fmt::Display>(
    path: &std::path::Path,
    what: &str,
    parse: impl FnOnce(&str) -> Result<Vec<T>, E>,
) -> Result<Vec<T>, CliError> {
    let items = parse_file(path, parse)?;
    if items.is_empty() {
        return Err(CliError(format!(
            "{}: no {what} (one JSON object a line)",
            input_name(path)
        )));
    }
    Ok(items)
}

/// The `--records` file of an `eval`: one JSON line per game, `{"game":i,...}` on line `i`.
struct RecordsFile(std::path::PathBuf);

impl RecordsFile {
    /// Checks that the file (when a path is given) can be written before the games are
    /// played, so that a bad path fails at once, not after a long run; the file itself is
    /// written once the games are over (a run stopped before then leaves nothing behind),
    /// and an old file of that name is replaced only once the new one is complete. `-` is
    /// refused: standard output carries the summary.
    fn create(path: Option<&std::path::Path>) -> Result<Option<RecordsFile>, CliError> {
        path.map(|path| {
            if is_standard_output(path) {
                return Err(CliError(
                    "--records needs a file name: standard output carries the summary".into(),
                ));
            }
            check_output(path)?;
            Ok(RecordsFile(path.to_owned()))
        })
        .transpose()
    }

    /// Writes a line per game; `fields` gives the JSON fields after the game's index.
    fn write<T>(self, games: &[T], fields: impl Fn(&T) -> String) -> Result<(), CliError> {
        let mut file = output::OutputFile::create(&self.0)?;
        file.write_with(|w| {
            games
                .iter()
                .enumerate()
                .try_for_each(|(i, game)| writeln!(w, "{{\"game\":{i},{}}}", fields(game)))
        })?;
        file.commit()
    }
}

/// Standard output that remembers whether its reader went away (`gameai ... | head`), so that
/// only that case ends quietly: any other failure, even one whose message mentions a broken
/// pipe (an external engine that stopped reading, a file of that name), is reported, and a
/// failure to write it (a full disk) says so.
struct Stdout<W> {
    inner: W,
    closed: bool,
    failed: bool,
}

impl<W: Write> Stdout<W> {
    fn note<T>(&mut self, r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r
            && e.kind() != io::ErrorKind::Interrupted
        {
            self.failed = true;
            self.closed |= e.kind() == io::ErrorKind::BrokenPipe;
        }
        r
    }
}

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.inner.write(buf);
        self.note(r)
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = self.inner.flush();
        self.note(r)
    }
}

/// The stack of the thread that runs a command. The TwoFour solver recurses once a ply (up to
/// 8190 plies at 4095 piles), which on games of thousands of piles needs more stack than the
/// main thread has on some platforms (1 MiB on Windows). Only the pages used are committed.
const STACK_BYTES: usize = 64 << 20;

/// The command line's grammar: the derived one, with every option that takes a value
/// accepting a leading minus, so that `--games -5` is reported as a bad value of `--games`
/// rather than as an unknown argument `-5`.
fn command() -> clap::Command {
    fn negatives(cmd: clap::Command) -> clap::Command {
        cmd.mut_args(|a| {
            let takes = a.get_action().takes_values();
            a.allow_negative_numbers(takes)
        })
        .mut_subcommands(negatives)
    }
    negatives(Cli::command())
}

fn main() -> ExitCode {
    let cli = match Cli::from_arg_matches(&command().get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if let Command::Twofour(args) = &cli.command
        && let Some(msg) = twofour_cmd::usage_error(args)
    {
        // As clap reports its own usage errors (exit code 2).
        let mut cmd = command();
        cmd.build(); // names the subcommands' usage lines after the program
        let sub = cmd.find_subcommand_mut("twofour").map(std::mem::take);
        sub.unwrap_or(cmd)
            .error(ErrorKind::MissingRequiredArgument, msg)
            .exit();
    }
    match std::thread::Builder::new()
        .name("gameai".into())
        .stack_size(STACK_BYTES)
        .spawn(move || run(cli))
    {
        // A panic has been reported by the panic hook; exit as a panicking main would.
        Ok(thread) => thread.join().unwrap_or(ExitCode::from(101)),
        Err(e) => {
            let _ = writeln!(io::stderr(), "gameai: cannot start a thread: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs one command and turns its result into the exit code.
fn run(cli: Cli) -> ExitCode {
    parallel::handle_interrupts();
    let mut out = io::BufWriter::new(Stdout {
        inner: io::stdout().lock(),
        closed: false,
        failed: false,
    });
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
        Err(_) if out.get_ref().closed => ExitCode::SUCCESS,
        Err(CliError(msg)) if out.get_ref().failed => {
            let _ = writeln!(io::stderr(), "gameai: cannot write standard output: {msg}");
            ExitCode::FAILURE
        }
        Err(CliError(msg)) => {
            // What the command wrote before it failed (a stopped evaluation's report) goes
            // out before the message, not after it when the buffer is dropped.
            let _ = out.flush();
            let _ = writeln!(io::stderr(), "gameai: {msg}");
            ExitCode::FAILURE
        }
    }
}
