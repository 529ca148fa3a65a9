//! `gameai battleship`: evaluate shooters on seeded fleets or fleet files, and show a
//! position's hit probabilities.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use battleship::{
    Adjacency, Feedback, Fleet, GameRecord, Geometry, Placer, Rules, ShooterKind, infer, play,
    read_fleets, seeded_fleet, shooter_seed,
    shooters::{EndgameShooter, HybridShooter, LookaheadShooter},
    text,
};
use rand::SeedableRng;
use rayon::prelude::*;

use crate::CliError;
use crate::showcase::Row;

/// Options of `gameai battleship`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Play seeded games (or the fleets of a file) with a shooter and summarise (Ctrl-C
    /// summarises the games played so far).
    Eval(EvalArgs),
    /// Show a position's hit probabilities as a coloured heatmap and write it as SVG.
    Show(ShowArgs),
}

#[derive(Debug, clap::Args)]
struct RuleArgs {
    /// Rule set: standard (ships may touch) or no-touch.
    #[arg(long, default_value = "standard", value_parser = rule_set_name)]
    rules: String,
    /// What the defender reveals: standard, bare, hit-names-ship or sunk-reveals-cells.
    #[arg(long, default_value = "standard", value_parser = crate::values::name_of::<Feedback>)]
    feedback: String,
    /// The fleet as ship lengths, comma-separated (ships named S0, S1, ...), instead of the
    /// standard Carrier 5, Battleship 4, Destroyer 3, Submarine 3, Patrol Boat 2; e.g.
    /// `4,3,3,2,2,2,1,1,1,1`.
    // (A list with a negative length is read as the value, and refused for that length, not
    // taken for an unknown option.)
    #[arg(long, allow_hyphen_values = true, value_parser = fleet_arg)]
    fleet: Option<String>,
}

impl RuleArgs {
    fn rules(&self) -> Result<Rules, CliError> {
        let mut r = Rules::by_name(&self.rules)?;
        if let Some(fleet) = &self.fleet {
            let lengths = fleet_lengths(fleet).map_err(|e| CliError(format!("--fleet: {e}")))?;
            r = Rules {
                adjacency: r.adjacency,
                ..Rules::with_lengths(r.width, r.height, &lengths)
            };
        }
        r.feedback = self.feedback.parse()?;
        Ok(r)
    }
}

/// Parses a board size `WxH`.
fn board_size(s: &str) -> Result<(usize, usize), CliError> {
    s.split_once('x')
        .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
        .ok_or_else(|| CliError(format!("--board `{s}`: expected WxH, such as 10x10")))
}

/// The ship lengths of `--fleet`.
fn fleet_lengths(s: &str) -> Result<Vec<usize>, String> {
    s.split(',')
        .map(|l| {
            let l = l.trim();
            l.parse::<usize>().map_err(|_| {
                if !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()) {
                    format!("the length {l} is too large")
                } else {
                    "expected ship lengths separated by commas, such as 5,4,3,3,2".to_string()
                }
            })
        })
        .collect()
}

/// Checks the form of `--fleet` while the arguments are parsed (the rules check the ships).
fn fleet_arg(s: &str) -> Result<String, String> {
    fleet_lengths(s)?;
    Ok(s.to_string())
}

/// Checks `--board` while the arguments are parsed (the rules check its size later).
fn board_arg(s: &str) -> Result<String, String> {
    board_size(s).map_err(|_| "expected WxH, such as 10x10".to_string())?;
    Ok(s.to_string())
}

/// Checks `--rules` while the arguments are parsed (without the crate's `invalid rules:`).
fn rule_set_name(s: &str) -> Result<String, String> {
    match Rules::by_name(s) {
        Ok(_) => Ok(s.to_string()),
        Err(battleship::Error::Rules(m)) => Err(m),
        Err(e) => Err(e.to_string()),
    }
}

/// The board and fleet of `r`, for summaries: `10x10 board, fleet 5,4,3,3,2`.
fn board_and_fleet(r: &Rules) -> String {
    let lengths: Vec<String> = r.fleet.iter().map(|s| s.length.to_string()).collect();
    format!(
        "{}x{} board, fleet {}",
        r.width,
        r.height,
        lengths.join(",")
    )
}

#[derive(Debug, clap::Args)]
struct EvalArgs {
    /// Number of games (at least 1).
    #[arg(long, default_value_t = 100, value_parser = crate::values::at_least_one::<u64>)]
    games: u64,
    /// Seed: fleet i and the shooter's choices in game i derive from (seed, i).
    #[arg(long, default_value_t = 1, value_parser = crate::values::whole::<u64>)]
    seed: u64,
    /// random, hunt-target, hunt-target-parity, article, density, info-gain, hybrid,
    /// lookahead, posterior or endgame (the default, the strongest; `best` names it too).
    #[arg(long, default_value = "endgame", value_parser = crate::values::name_of::<ShooterKind>)]
    shooter: String,
    #[command(flatten)]
    rules: RuleArgs,
    /// Shots per turn (salvo): each turn's shots are chosen before any is answered. The
    /// figures count shots, not turns, and each shot chosen is one decision, those of the
    /// last turn left unfired included.
    #[arg(long, default_value_t = 1, value_parser = crate::values::whole::<usize>)]
    salvo: usize,
    /// Board size `WxH` (at most 128 cells).
    #[arg(long, default_value = "10x10", allow_hyphen_values = true, value_parser = board_arg)]
    board: String,
    /// How the seeded fleets are placed: uniform or anti-density.
    #[arg(long, default_value = "uniform", value_parser = crate::values::name_of::<Placer>)]
    placer: String,
    /// Play the fleets of this JSON-lines file instead of seeded ones; `-` reads standard
    /// input.
    #[arg(long, conflicts_with_all = ["games", "placer"])]
    fleets: Option<PathBuf>,
    /// Posterior shooters: search nodes of the exact count before sampling (default 40000).
    #[arg(long, value_parser = crate::values::whole::<u64>)]
    exact_nodes: Option<u64>,
    /// Posterior shooters: Markov chain sweeps recorded when sampling (at least 1; default
    /// 400).
    #[arg(long, value_parser = crate::values::at_least_one::<u64>)]
    sweeps: Option<u64>,
    /// Posterior shooters: ships the Markov chain re-places together after each sweep when
    /// sampling (default 0: none, only the sweeps' moves of one or two ships). 3 reaches
    /// fleets that those moves cannot, such as a run of hits that one long ship or two
    /// shorter ones can fill, at the cost of an exact count a sweep: many times slower, and
    /// each ship more multiplies it again. At most the fleet's number of ships.
    #[arg(long, value_parser = crate::values::whole::<usize>)]
    block: Option<usize>,
    /// Hybrid shooter: weight of the answer's entropy (bits) against the hit probability
    /// (default 0.05).
    #[arg(long, allow_negative_numbers = true, value_parser = info_weight)]
    info_weight: Option<f64>,
    /// Endgame shooter: how many of the likeliest cells its exact search compares
    /// (default 8; at least 1).
    #[arg(long, value_parser = crate::values::at_least_one::<usize>)]
    candidates: Option<usize>,
    /// Endgame shooter: its exact search starts once at most this many fleets remain
    /// (default 6000; 0 to 1000000; 0 never searches, playing as `posterior`).
    #[arg(long, value_parser = search_fleets)]
    search_fleets: Option<usize>,
    /// Endgame shooter: knowledge states its exact search may store for one decision; past
    /// them it chooses among the candidates valued so far (default 200000; 1 to 50000000;
    /// memory grows with it, about 50 bytes a state).
    #[arg(long, value_parser = search_states)]
    search_states: Option<usize>,
    /// End with one JSON line of results: the settings (games, seed, placer (null for the
    /// fleets of a file), shooter, shooter_settings, exact_nodes, sweeps and block (null
    /// for shooters off the posterior), rules, feedback, width, height, fleet, salvo), then
    /// mean_shots, sem_shots (its standard error; null from one game), median_shots,
    /// p90_shots, max_shots, min_shots, ms_per_shot_mean, ms_per_shot_max,
    /// estimated_shot_fraction (the share of decisions on sampled probabilities), all null
    /// when no game finished, errors (games ended by a shooter error) and games_asked (more
    /// than games when Ctrl-C stopped the run). The median and
    /// p90 are by nearest rank: of an even number of games, the median is the lower of the
    /// two middle ones.
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores; more than four a core are cut to that). Results
    /// do not depend on it.
    #[arg(long, value_parser = crate::values::at_least_one::<usize>)]
    threads: Option<usize>,
    /// Write one JSON line per game (game, shots, estimated, error) to this file, to compare
    /// two shooters or settings game by game; `game` counts from 0 (game 0 is the one
    /// messages call game 1).
    #[arg(long)]
    records: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct ShowArgs {
    /// A position: one row per line, `.` unknown, `o` miss, `x` hit, `s` sunk; `-` reads
    /// standard input.
    file: PathBuf,
    #[command(flatten)]
    rules: RuleArgs,
    /// Write the heatmap as SVG to this file (replacing it), after the terminal heatmap; `-`
    /// writes the SVG to standard output instead of the terminal heatmap.
    #[arg(long, default_value = "heatmap.svg")]
    svg: PathBuf,
    /// Seed of the sampler (used only when exact counting is too costly) and of the default
    /// shooter's choice among equally likely cells.
    #[arg(long, default_value_t = 1, value_parser = crate::values::whole::<u64>)]
    seed: u64,
    /// Search nodes of the exact count before falling back to the Markov chain: far more
    /// than a shooter's budget, as one position may take a moment (some 20 million nodes a
    /// second; with the standard fleet, a position with one hit is exact within the
    /// default).
    #[arg(long, default_value_t = SHOW_EXACT_NODES, value_parser = crate::values::whole::<u64>)]
    exact_nodes: u64,
    /// States of a second exact count, by element frontiers, when the search runs past
    /// --exact-nodes (0: none): it counts open positions with many fleets that the search
    /// cannot (the empty standard board in about 1.8 million states and a few seconds),
    /// with some 80 to 160 bytes of memory a state.
    #[arg(long, default_value_t = SHOW_FRONTIER_STATES, value_parser = crate::values::whole::<u64>)]
    frontier_states: u64,
    /// Markov chain sweeps recorded when sampling (at least 1).
    #[arg(long, default_value_t = infer::PosteriorConfig::default().sweeps,
          value_parser = crate::values::at_least_one::<u64>)]
    sweeps: u64,
    /// Ships the Markov chain re-places together after each sweep, when sampling [default:
    /// 3]: 3 reaches fleets that moving one or two ships at a time cannot, such as a run
    /// of hits that one long ship or two shorter ones can fill (with fewer ships, all of
    /// them); 0 to 2 moves only one or two, as the shooters do in play (faster, and it may
    /// stay among some of the fleets). At most the fleet's number of ships.
    #[arg(long, value_parser = crate::values::whole::<usize>)]
    block: Option<usize>,
    /// Colour the terminal heatmap: auto (when writing to a terminal and `NO_COLOR` is not
    /// set), always or never.
    #[arg(long, value_enum, ignore_case = true, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// The exact-count budget of `show`.
const SHOW_EXACT_NODES: u64 = 50_000_000;

/// The budget of `show`'s count by frontiers: some 80 bytes a state once counted, and up
/// to twice that while the table grows (the empty board's 1.8 million states take 200 MB).
const SHOW_FRONTIER_STATES: u64 = 4_000_000;

/// The chain's block moves of `show`: a heatmap is worth the time that play cannot spare.
const SHOW_BLOCK: usize = 3;

/// `--block n` for a fleet of `ships`: no more than the ships there are, so that what the
/// settings say is what the chain does.
fn check_block(n: usize, ships: usize) -> Result<usize, CliError> {
    if n > ships {
        return Err(CliError(format!(
            "--block {n}: the fleet has {} (each ship more in a block multiplies its cost)",
            crate::plural(ships, "ship")
        )));
    }
    Ok(n)
}

/// When `show` colours its heatmap with terminal escape codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ColorChoice {
    /// When standard output is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    /// Always.
    Always,
    /// Never: plain text, for files and pipes.
    Never,
}

impl ColorChoice {
    fn enabled(self) -> bool {
        use std::io::IsTerminal;
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

pub fn run(args: &Args, out: &mut impl Write) -> Result<(), CliError> {
    match &args.command {
        Command::Eval(e) => eval(e, out),
        Command::Show(s) => show(s, out),
    }
}

/// Summary statistics of a set of games.
#[derive(Debug, Default)]
struct Summary {
    shots: Vec<u32>,
    decisions: u64,
    estimated: u64,
    errors: u64,
    /// The first game a shooter error ended (counted from 1, as messages count) and its
    /// error: the summary line names it, so that a failed run says why.
    first_error: Option<(usize, String)>,
    time: Duration,
    time_max: Duration,
}

impl Summary {
    /// The summary of `records`, game `i` (from 0) at index `i`.
    fn new(records: &[GameRecord]) -> Summary {
        let mut s = Summary::default();
        for (i, r) in records.iter().enumerate() {
            if let Some(e) = &r.error {
                s.errors += 1;
                s.first_error.get_or_insert_with(|| (i + 1, e.to_string()));
                continue;
            }
            s.shots.push(r.shots);
            s.decisions += u64::from(r.decisions);
            s.estimated += u64::from(r.estimated);
            s.time += r.decide_time;
            s.time_max = s.time_max.max(r.decide_time_max);
        }
        s.shots.sort_unstable();
        s
    }

    fn mean(&self) -> f64 {
        if self.shots.is_empty() {
            return 0.0;
        }
        self.shots.iter().map(|&x| f64::from(x)).sum::<f64>() / self.shots.len() as f64
    }

    /// Standard error of the mean.
    fn sem(&self) -> f64 {
        let n = self.shots.len() as f64;
        if n < 2.0 {
            return 0.0;
        }
        let m = self.mean();
        let var = self
            .shots
            .iter()
            .map(|&x| (f64::from(x) - m).powi(2))
            .sum::<f64>()
            / (n - 1.0);
        (var / n).sqrt()
    }

    /// The `q`-quantile (nearest rank).
    fn quantile(&self, q: f64) -> u32 {
        if self.shots.is_empty() {
            return 0;
        }
        let rank = ((q * self.shots.len() as f64).ceil() as usize).clamp(1, self.shots.len());
        self.shots[rank - 1]
    }

    /// The shot figures of `--json`: `null` when no game finished (and the standard error
    /// `null` below two games), not zeros that would read as measurements.
    fn json_shot_figures(&self) -> String {
        let (Some(&min), Some(&max)) = (self.shots.first(), self.shots.last()) else {
            return "\"mean_shots\":null,\"sem_shots\":null,\"median_shots\":null,\"p90_shots\":null,\"max_shots\":null,\"min_shots\":null".to_owned();
        };
        let sem = if self.shots.len() < 2 {
            "null".to_owned()
        } else {
            format!("{:.4}", self.sem())
        };
        format!(
            "\"mean_shots\":{:.4},\"sem_shots\":{sem},\"median_shots\":{},\"p90_shots\":{},\"max_shots\":{max},\"min_shots\":{min}",
            self.mean(),
            self.quantile(0.5),
            self.quantile(0.9),
        )
    }

    /// The shot figures of the summary line, in words where `--json` has `null`.
    fn text_shot_figures(&self) -> String {
        let Some(&max) = self.shots.last() else {
            return "no game finished, so no shot figures".to_owned();
        };
        let sem = if self.shots.len() < 2 {
            "no error bar from one game".to_owned()
        } else {
            format!("± {:.2}", self.sem())
        };
        format!(
            "mean {:.2} shots ({sem}), median {}, p90 {}, max {max}",
            self.mean(),
            self.quantile(0.5),
            self.quantile(0.9),
        )
    }

    fn ms_per_shot(&self) -> f64 {
        if self.decisions == 0 {
            0.0
        } else {
            self.time.as_secs_f64() * 1000.0 / self.decisions as f64
        }
    }
}

/// The most fleets `--search-fleets` may ask the endgame shooter to list (each is kept in
/// memory while it searches).
const MAX_SEARCH_FLEETS: usize = 1_000_000;

/// The most knowledge states `--search-states` allows the endgame search (each takes about
/// 50 bytes of memory in every worker thread).
const MAX_SEARCH_STATES: usize = 50_000_000;

/// Parses `--info-weight`: a finite weight, 0 or more.
fn info_weight(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(w) if w.is_finite() && w >= 0.0 => Ok(w),
        Ok(_) => Err("must be a finite number >= 0".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// Parses `--search-fleets`: 0 to [`MAX_SEARCH_FLEETS`].
fn search_fleets(s: &str) -> Result<usize, String> {
    crate::values::count_in(s, 0, MAX_SEARCH_FLEETS, "fleets")
}

/// Parses `--search-states`: 1 to [`MAX_SEARCH_STATES`].
fn search_states(s: &str) -> Result<usize, String> {
    crate::values::count_in(s, 1, MAX_SEARCH_STATES, "states")
}

/// The shooter as its own options (`--info-weight`, `--candidates`, `--search-fleets`,
/// `--search-states`) set it; each applies to one shooter only.
#[derive(Debug, Clone, Copy)]
enum Tuned {
    /// No shooter-specific option: the kind's defaults.
    Default(ShooterKind),
    /// The hybrid shooter with this weight on the answer's entropy.
    Hybrid(f64),
    /// The endgame shooter with these search settings (its posterior set per game).
    Endgame(EndgameShooter),
}

impl Tuned {
    fn new(a: &EvalArgs, kind: ShooterKind) -> Result<Tuned, CliError> {
        let only = |options: &str, shooter: ShooterKind| {
            CliError(format!(
                "{options} to the {shooter} shooter only, not to {kind}"
            ))
        };
        if (a.exact_nodes.is_some() || a.sweeps.is_some() || a.block.is_some())
            && !kind.uses_posterior()
        {
            return Err(CliError(format!(
                "--exact-nodes, --sweeps and --block apply to the shooters on the posterior \
                 (posterior, info-gain, hybrid, lookahead, endgame), not to {kind}"
            )));
        }
        let endgame_options =
            a.candidates.is_some() || a.search_fleets.is_some() || a.search_states.is_some();
        if endgame_options && kind != ShooterKind::Endgame {
            return Err(only(
                "--candidates, --search-fleets and --search-states apply",
                ShooterKind::Endgame,
            ));
        }
        if let Some(w) = a.info_weight {
            if kind != ShooterKind::Hybrid {
                return Err(only("--info-weight applies", ShooterKind::Hybrid));
            }
            return Ok(Tuned::Hybrid(w));
        }
        if !endgame_options {
            return Ok(Tuned::Default(kind));
        }
        // No search, nothing for its settings to set: said, not ignored.
        if a.search_fleets == Some(0) && (a.candidates.is_some() || a.search_states.is_some()) {
            return Err(CliError(
                "--candidates and --search-states set the endgame search, which \
                 --search-fleets 0 turns off"
                    .into(),
            ));
        }
        let d = EndgameShooter::default();
        let candidates = a.candidates.unwrap_or(d.candidates);
        let max_fleets = a.search_fleets.unwrap_or(d.max_fleets);
        let max_states = a.search_states.unwrap_or(d.max_states);
        Ok(Tuned::Endgame(EndgameShooter {
            candidates,
            max_fleets,
            max_states,
            ..d
        }))
    }

    fn build(self, config: infer::PosteriorConfig) -> Box<dyn battleship::Shooter> {
        match self {
            Tuned::Default(kind) => kind.build_with(config),
            Tuned::Hybrid(info_weight) => Box::new(HybridShooter {
                config,
                info_weight,
            }),
            Tuned::Endgame(e) => Box::new(EndgameShooter { config, ..e }),
        }
    }

    /// The shooter's name with every setting it has, defaults spelled out, so that runs with
    /// the same settings carry the same text however they were asked for (`--json`'s
    /// `shooter_settings`).
    fn settings(self) -> String {
        match self {
            Tuned::Default(ShooterKind::Hybrid) => {
                Tuned::Hybrid(HybridShooter::default().info_weight).label()
            }
            Tuned::Default(ShooterKind::Endgame) => {
                Tuned::Endgame(EndgameShooter::default()).label()
            }
            Tuned::Default(ShooterKind::Lookahead) => {
                let l = LookaheadShooter::default();
                format!(
                    "{} ({} candidates, ratio {}, {} fleets)",
                    ShooterKind::Lookahead,
                    l.candidates,
                    l.min_ratio,
                    l.samples
                )
            }
            _ => self.label(),
        }
    }

    /// The shooter's name, with the options that set it.
    fn label(self) -> String {
        match self {
            Tuned::Default(kind) => kind.to_string(),
            Tuned::Hybrid(w) => format!("{} (info weight {w})", ShooterKind::Hybrid),
            Tuned::Endgame(e) => format!(
                "{} ({} candidates, from {} fleets, {} states)",
                ShooterKind::Endgame,
                e.candidates,
                e.max_fleets,
                e.max_states
            ),
        }
    }
}

fn eval(a: &EvalArgs, out: &mut impl Write) -> Result<(), CliError> {
    let mut rules = a.rules.rules()?;
    (rules.width, rules.height) = board_size(&a.board)?;
    rules.salvo = a.salvo;
    let geo = Geometry::new(&rules)?;
    let kind: ShooterKind = a.shooter.parse()?;
    let placer: Placer = a.placer.parse()?;
    let tuned = Tuned::new(a, kind)?;
    // The rules, as the summary names them.
    let rules_label = format!(
        "{} rules, {}{} feedback{}",
        rules.rule_set_name(),
        if (rules.width, rules.height) != (10, 10) || a.rules.fleet.is_some() {
            format!("{}, ", board_and_fleet(&rules))
        } else {
            String::new()
        },
        rules.feedback,
        if rules.salvo > 1 {
            format!(", salvo of {}", rules.salvo)
        } else {
            String::new()
        },
    );
    let (fleets, label) = if let Some(path) = &a.fleets {
        let f = crate::parse_lines_file(path, "fleets", |t| {
            read_fleets(&geo, t).map_err(|e| match &e {
                battleship::Error::Parse { message, .. }
                    if message.starts_with("the board is ") =>
                {
                    format!("{e} (--board sets the board of the rules)")
                }
                _ => e.to_string(),
            })
        })?;
        (
            Some(f),
            // The shooters' seed still matters (their tie-breaks and chains).
            format!(
                "fleets of {}, {rules_label}, seed {}",
                crate::input_name(path),
                a.seed
            ),
        )
    } else {
        (
            None,
            format!("{rules_label}, {placer} fleets, seed {}", a.seed),
        )
    };
    let games = fleets.as_ref().map_or(a.games, |f| f.len() as u64);
    let mut config = infer::PosteriorConfig::default();
    if let Some(n) = a.exact_nodes {
        config.exact_nodes = n;
    }
    if let Some(n) = a.block {
        config.block = check_block(n, rules.fleet.len())?;
    }
    if let Some(n) = a.sweeps {
        config.sweeps = n;
        config.burn_in = config.burn_in.min(n);
    }
    if fleets.is_none() {
        // A fleet that cannot be drawn fails at once, not after every game has tried.
        seeded_fleet(&geo, placer, a.seed, 0)?;
    }
    let from_file = fleets.is_some();
    let play_one = {
        let (geo, seed) = (geo.clone(), a.seed);
        // The first game whose fleet could not be drawn: the report ends there, so the games
        // after it are not played (each failed draw costs seconds).
        let failed = std::sync::atomic::AtomicU64::new(u64::MAX);
        move |i: u64| -> Result<GameRecord, CliError> {
            if i > failed.load(std::sync::atomic::Ordering::SeqCst) {
                return Err(CliError(
                    "not played: an earlier fleet could not be drawn".into(),
                ));
            }
            let fleet: Fleet = match &fleets {
                Some(f) => f[i as usize].clone(),
                // Drawing may fail for one seed and not another (a crowded fleet): say which.
                None => seeded_fleet(&geo, placer, seed, i).map_err(|e| {
                    failed.fetch_min(i, std::sync::atomic::Ordering::SeqCst);
                    CliError(format!("game {} (seed {seed}): {e}", i + 1))
                })?,
            };
            let mut shooter = tuned.build(config);
            Ok(play(&geo, fleet, shooter.as_mut(), shooter_seed(seed, i)))
        }
    };
    if let (Some(records), Some(fleets)) = (&a.records, &a.fleets) {
        crate::check_not_input(records, fleets)?;
    }
    let records_file = crate::RecordsFile::create(a.records.as_deref())?;
    let run = crate::parallel::play_games(games, a.threads, play_one)?;
    let complete = run.finished();
    let (records, complete) = games_before_failure(run.results, complete);
    let s = Summary::new(&records);
    let shooter_label = tuned.label();
    // Like the shot figures, no times when no game finished (as `null` in the JSON).
    let times = if !s.shots.is_empty() {
        format!(
            ", {:.3} ms/shot mean, {:.1} ms max",
            s.ms_per_shot(),
            s.time_max.as_secs_f64() * 1000.0
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{label}, shooter {shooter_label}: {}, {}{times}{}{}",
        crate::plural(records.len(), "game"),
        s.text_shot_figures(),
        if s.estimated > 0 {
            format!(
                ", {:.1}% of shots on sampled probabilities",
                100.0 * s.estimated as f64 / s.decisions.max(1) as f64
            )
        } else {
            String::new()
        },
        match &s.first_error {
            Some((game, error)) => format!(
                ", {} ended by shooter errors (left out of the shot figures; the first, game \
                 {game}: {error})",
                crate::plural(s.errors, "game")
            ),
            None => String::new(),
        }
    )?;
    if a.json {
        let finished = |figure: String| {
            if s.shots.is_empty() {
                "null".to_owned()
            } else {
                figure
            }
        };
        writeln!(
            out,
            "{{\"games\":{},\"seed\":{},\"placer\":{},\"shooter\":\"{}\",\"shooter_settings\":\"{}\",\"exact_nodes\":{},\"sweeps\":{},\"block\":{},\"rules\":\"{}\",\"feedback\":\"{}\",\"width\":{},\"height\":{},\"fleet\":[{}],\"salvo\":{},{},\"ms_per_shot_mean\":{},\"ms_per_shot_max\":{},\"estimated_shot_fraction\":{},\"errors\":{},\"games_asked\":{games}}}",
            records.len(),
            a.seed,
            // The fleets' source: a placer, or `null` for the fleets of a file.
            if from_file {
                "null".to_owned()
            } else {
                format!("\"{placer}\"")
            },
            kind,
            tuned.settings(),
            // The posterior's budgets, for the shooters that use it (`null` for the others).
            posterior_setting(kind, config.exact_nodes),
            posterior_setting(kind, config.sweeps),
            posterior_setting(kind, config.block as u64),
            rules.rule_set_name(),
            rules.feedback,
            rules.width,
            rules.height,
            rules
                .fleet
                .iter()
                .map(|f| f.length.to_string())
                .collect::<Vec<_>>()
                .join(","),
            rules.salvo,
            s.json_shot_figures(),
            // Like the shot figures, `null` when no game finished.
            finished(format!("{:.4}", s.ms_per_shot())),
            finished(format!("{:.4}", s.time_max.as_secs_f64() * 1000.0)),
            finished(format!(
                "{:.4}",
                s.estimated as f64 / s.decisions.max(1) as f64
            )),
            s.errors
        )?;
    }
    // After the summary, so that a file that cannot be written costs the records alone.
    if let Some(file) = records_file {
        file.write(&records, |r| {
            format!(
                "\"shots\":{},\"estimated\":{},\"error\":{}",
                r.shots,
                r.estimated,
                r.error.as_ref().map_or("null".to_owned(), |e| format!(
                    "\"{}\"",
                    crate::output::json_escape(&e.to_string())
                ))
            )
        })?;
    }
    complete
}

/// The records of the games before the first that failed to start, and `complete` or the
/// failure. A fleet that cannot be drawn for some game (a crowded fleet, drawn for the first
/// game but not for a later one) ends the run there, as Ctrl-C does: the games before it
/// are reported, and the error says where the report stops.
fn games_before_failure(
    results: Vec<Result<GameRecord, CliError>>,
    complete: Result<(), CliError>,
) -> (Vec<GameRecord>, Result<(), CliError>) {
    let mut records = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok(record) => records.push(record),
            Err(e) => {
                let why = format!(
                    "{}; the report covers the {} before it",
                    e.0,
                    crate::plural(records.len(), "game")
                );
                return (records, Err(CliError(why)));
            }
        }
    }
    (records, complete)
}

/// A setting of the posterior in `--json`: its value for a shooter on the posterior, `null`
/// for the others, which ignore it.
fn posterior_setting(kind: ShooterKind, value: u64) -> String {
    if kind.uses_posterior() {
        value.to_string()
    } else {
        "null".to_owned()
    }
}

/// The colour of a probability: blue (0) through yellow to red (1).
fn colour(p: f64) -> (u8, u8, u8) {
    let p = p.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64, t: f64| (a + (b - a) * t).round() as u8;
    if p < 0.5 {
        let t = p * 2.0;
        (
            lerp(30.0, 250.0, t),
            lerp(60.0, 220.0, t),
            lerp(160.0, 60.0, t),
        )
    } else {
        let t = (p - 0.5) * 2.0;
        (
            lerp(250.0, 220.0, t),
            lerp(220.0, 30.0, t),
            lerp(60.0, 30.0, t),
        )
    }
}

/// The cells of the straight runs of hits (cells marked `x`) as long as a ship of the fleet
/// and closed at both ends (by the board's edge, a miss or a sunk cell): what a finished
/// ship written with `x` looks like.
fn closed_hit_runs_of_ship_length(view: &battleship::View, rules: &Rules) -> u128 {
    let (w, h) = (rules.width, rules.height);
    let lengths: Vec<usize> = rules.fleet.iter().map(|s| s.length).collect();
    let unknown = view.unknown();
    let mut found = 0u128;
    for (outer, inner, vertical) in [(h, w, false), (w, h, true)] {
        let cell = |a: usize, b: usize| if vertical { b * w + a } else { a * w + b };
        for a in 0..outer {
            let (mut run, mut start) = (0u128, 0usize);
            for b in 0..=inner {
                if b < inner && view.hits() >> cell(a, b) & 1 == 1 {
                    if run == 0 {
                        start = b;
                    }
                    run |= 1 << cell(a, b);
                    continue;
                }
                let closed =
                    |end: Option<usize>| end.is_none_or(|e| unknown >> cell(a, e) & 1 == 0);
                let before = start.checked_sub(1);
                let after = (b < inner).then_some(b);
                if run != 0
                    && lengths.contains(&(run.count_ones() as usize))
                    && closed(before)
                    && closed(after)
                {
                    found |= run;
                }
                run = 0;
            }
        }
    }
    found
}

/// Whether the inconsistent position `view` would fit the rules with the runs of hits that
/// look like finished ships ([`closed_hit_runs_of_ship_length`]) marked sunk: the likely
/// slip under feedback that announces sinkings. A quick check (a small count, else the
/// search for one fleet that fits); `false` when it cannot tell.
fn fits_with_finished_ships_sunk(view: &battleship::View, rules: &Rules) -> bool {
    let runs = closed_hit_runs_of_ship_length(view, rules);
    if runs == 0 {
        return false;
    }
    let Ok(sunk) = battleship::View::from_masks(
        std::sync::Arc::clone(view.geometry()),
        view.misses(),
        view.hits() & !runs,
        view.sunk_cells() | runs,
    ) else {
        return false;
    };
    let quick = infer::PosteriorConfig {
        exact_nodes: 1_000_000,
        burn_in: 0,
        sweeps: 1,
        block: 0,
        frontier_states: 0,
    };
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    infer::posterior(&sunk, &quick, &mut rng).is_ok()
}

fn show(a: &ShowArgs, out: &mut impl Write) -> Result<(), CliError> {
    // A file that cannot be written is refused before the work (which may take seconds).
    crate::check_not_input(&a.svg, &a.file)?;
    crate::check_output(&a.svg)?;
    let pos = crate::parse_file(&a.file, text::read)?;
    let mut rules = a.rules.rules()?;
    // The position's board, as its view has it.
    (rules.width, rules.height) = (pos.width, pos.height);
    // The fleet (the default one, unless given) for the board of the position's rows.
    let on_the_board = |e: battleship::Error| {
        CliError(format!(
            "{e} (the board is the position's, {}x{}{})",
            pos.width,
            pos.height,
            if a.rules.fleet.is_some() {
                ""
            } else {
                "; give a fleet for it with --fleet"
            }
        ))
    };
    let view = pos.view(&rules).map_err(|e| match e {
        battleship::Error::FleetDoesNotFit(_) => on_the_board(e),
        e => e.into(),
    })?;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(a.seed);
    let config = infer::PosteriorConfig {
        exact_nodes: a.exact_nodes,
        sweeps: a.sweeps,
        // The default asks for three; a fleet of fewer ships moves them all at once.
        block: match a.block {
            Some(n) => check_block(n, rules.fleet.len())?,
            None => SHOW_BLOCK.min(rules.fleet.len()),
        },
        frontier_states: a.frontier_states,
        ..infer::PosteriorConfig::default()
    };
    let ship_cells: usize = rules.fleet.iter().map(|s| s.length).sum();
    let marked = (view.hits() | view.sunk_cells()).count_ones() as usize;
    let post = infer::posterior(&view, &config, &mut rng).map_err(|e| {
        if e == battleship::Error::Inconsistent && marked > ship_cells {
            return CliError(format!(
                "{e}: the position marks {marked} cells hit or sunk, and the fleet has \
                 {ship_cells} ship cells"
            ));
        }
        // A finished ship written with `x` is the likely slip: under feedback that announces
        // sinkings, a ship whose cells are all hit is sunk, and an afloat one cannot be.
        if e == battleship::Error::Inconsistent
            && rules.feedback.reports_sunk()
            && fits_with_finished_ships_sunk(&view, &rules)
        {
            CliError(format!(
                "{e} (under {} feedback a ship whose cells are all hit is sunk: mark its \
                 cells `s`, not `x`; with the closed runs of hits as long as a ship marked \
                 `s`, some fleet fits)",
                rules.feedback
            ))
        } else if let battleship::Error::Csp(battleship::csp_core::CspError::BudgetExceeded {
            max_nodes,
            ..
        }) = e
        {
            // The chain found no fleet to start from (after counting was over --exact-nodes).
            CliError(format!(
                "{}the Markov chain found no fleet that fits the position to start from within \
                 {max_nodes} search nodes (a fleet crowded on its board, or one that no fleet \
                 of the rules can meet)",
                if a.exact_nodes > 0 {
                    "too many fleets to count within --exact-nodes, and "
                } else {
                    ""
                }
            ))
        } else {
            e.into()
        }
    })?;
    let (w, h) = (pos.width, pos.height);
    let mut post = post;
    if post.solutions.is_none() {
        // An estimate within rounding of certain is shown as certain: the heatmap tells
        // "99" (likely, not certain) from "100" only where the probabilities are exact.
        for p in &mut post.hit {
            if *p > 1.0 - 1e-9 {
                *p = 1.0;
            } else if *p < 1e-9 {
                *p = 0.0;
            }
        }
    }
    let svg = heatmap_svg(&view, &post.hit, w, h);
    // How the map was made, and the shot the default shooter would fire.
    let method = match post.solutions {
        Some(n) => format!(
            "exact: {n} consistent fleet{}",
            if n == 1 { "" } else { "s" }
        ),
        None => {
            let largest = post
                .hit_std_errors
                .iter()
                .flatten()
                .fold(0.0f64, |m, &e| m.max(e));
            let why = match (a.exact_nodes, a.frontier_states) {
                (0, 0) => "exact counting skipped by --exact-nodes 0 and --frontier-states 0",
                (0, _) => "exact counting skipped by --exact-nodes 0, and over --frontier-states",
                (_, 0) => "exact counting over --exact-nodes, and skipped by --frontier-states 0",
                _ => "exact counting over --exact-nodes and --frontier-states",
            };
            let errors = if largest.is_finite() {
                format!(
                    "standard errors up to {:.2} points, by batch means: the chain's noise, \
                     blind to fleets it cannot reach; other --seed values, or a larger \
                     --exact-nodes or --frontier-states, tell",
                    100.0 * largest
                )
            } else {
                "no standard errors: fewer than 2 sweeps averaged".to_string()
            };
            format!("estimated by the Markov chain ({why}; {errors})")
        }
    };
    let best = best_shot(&view, &post, a.seed)?;
    if crate::is_standard_output(&a.svg) {
        // The SVG goes to standard output, and nothing else does: the two lines that
        // would frame the terminal heatmap go to standard error.
        crate::write_output(&a.svg, svg.as_bytes(), out)?;
        let _ = writeln!(std::io::stderr(), "{method}\n{best}");
        return Ok(());
    }
    // The terminal heatmap first: a file that cannot be written does not hide it.
    writeln!(out, "{method}")?;
    let colored = a.color.enabled();
    for y in 0..h {
        let mut line = String::new();
        for x in 0..w {
            let c = y * w + x;
            let label = format!("{:>3} ", cell_label(&view, &post.hit, c));
            if colored {
                let (r, g, b) = colour(post.hit[c]);
                line.push_str(&format!(
                    "\x1b[48;2;{r};{g};{b}m\x1b[38;2;0;0;0m{label}\x1b[0m"
                ));
            } else {
                line.push_str(&label);
            }
        }
        writeln!(out, "{}", if colored { &line } else { line.trim_end() })?;
    }
    writeln!(out, "{best}")?;
    if crate::write_output(&a.svg, svg.as_bytes(), out)? {
        writeln!(out, "wrote {}", a.svg.display())?;
    }
    Ok(())
}

/// The line that names the shot the default shooter fires at `view` (with `seed` for its
/// choices), beside the likeliest cell of the map `post`.
fn best_shot(
    view: &battleship::View,
    post: &infer::Posterior,
    seed: u64,
) -> Result<String, CliError> {
    let w = view.geometry().rules().width;
    let unknown = view.unknown();
    // No best shot when no unknown cell can hit (every ship is sunk or fully hit).
    let likeliest = (0..post.hit.len())
        .filter(|&c| unknown >> c & 1 == 1)
        .max_by(|&x, &y| post.hit[x].total_cmp(&post.hit[y]))
        .filter(|&b| post.hit[b] > 0.0);
    let Some(b) = likeliest else {
        return Ok("no shot left: every ship is hit in every consistent fleet".into());
    };
    // What the default shooter fires: the likeliest hit (ties at random), or near the end
    // what its exact search prefers.
    let mut shooter = ShooterKind::BEST.build();
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let d = shooter.choose(view, &mut rng)?;
    let c = d.cell;
    let highest = if post.hit[c] < post.hit[b] {
        format!(
            "; the highest on this map is {:.2}%, at {},{}",
            100.0 * post.hit[b],
            b % w,
            b / w
        )
    } else {
        String::new()
    };
    let why = if d.estimated {
        "; chosen on the shooter's own sampled estimate, as in play"
    } else if post.solutions.is_none() {
        "; chosen on the shooter's own exact count (its budget, not --exact-nodes), where this \
         map is estimated"
    } else if post.hit[c] < post.hit[b] {
        // On exact probabilities the shooter leaves the likeliest cell only for its search
        // of the endgame.
        "; chosen by the shooter's exact search over the remaining fleets, for fewer shots to \
         the end"
    } else {
        ""
    };
    Ok(format!(
        "best shot ({}, the default shooter): {},{} (hit probability {:.2}%{highest}){why}",
        ShooterKind::BEST,
        c % w,
        c / w,
        100.0 * post.hit[c],
    ))
}

/// What a heatmap shows in cell `c`: `o` for a miss, `x` for a hit, `s` for a sunk ship's
/// cell, else the hit probability in whole percent (never 0 for a cell that may hold a
/// ship, nor 100 for one that may not).
fn cell_label(view: &battleship::View, hit: &[f64], c: usize) -> String {
    let m = 1u128 << c;
    if view.misses() & m != 0 {
        "o".to_owned()
    } else if view.hits() & m != 0 {
        "x".to_owned()
    } else if view.sunk_cells() & m != 0 {
        "s".to_owned()
    } else {
        crate::percent(hit[c])
    }
}

/// The heatmap of hit probabilities `hit` as an SVG picture, `w` x `h` cells.
fn heatmap_svg(view: &battleship::View, hit: &[f64], w: usize, h: usize) -> String {
    let cell = 40;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"12\">\n",
        w * cell,
        h * cell
    );
    for y in 0..h {
        for x in 0..w {
            let c = y * w + x;
            let (r, g, b) = colour(hit[c]);
            let label = cell_label(view, hit, c);
            svg.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{cell}\" height=\"{cell}\" fill=\"rgb({r},{g},{b})\" stroke=\"#333\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{label}</text>\n",
                x * cell,
                y * cell,
                x * cell + cell / 2,
                y * cell + cell / 2 + 4
            ));
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// The showcase's Battleship part: seeded games per shooter, under standard and no-touch
/// rules (fewer with `quick`).
pub fn showcase(quick: bool, out: &mut impl Write) -> Result<Vec<Row>, CliError> {
    let mut rows = Vec::new();
    // The default shooter costs a few milliseconds a shot, the others microseconds.
    let (cheap, best) = if quick { (100, 16) } else { (500, 200) };
    for (rules, name) in [
        (Rules::standard(), "standard"),
        (
            Rules {
                adjacency: Adjacency::NoTouch,
                feedback: Feedback::Standard,
                ..Rules::standard()
            },
            "no-touch",
        ),
    ] {
        let geo: Arc<Geometry> = Geometry::new(&rules)?;
        let shooters: Vec<(ShooterKind, u64)> = if name == "standard" {
            vec![
                (ShooterKind::Random, cheap),
                (ShooterKind::HuntTargetParity, cheap),
                (ShooterKind::Density, cheap),
                (ShooterKind::BEST, best),
            ]
        } else {
            vec![(ShooterKind::Density, cheap), (ShooterKind::BEST, best)]
        };
        for (kind, games) in shooters {
            let t = Instant::now();
            let records: Vec<Result<GameRecord, battleship::Error>> = (0..games)
                .into_par_iter()
                .map(|i| {
                    let fleet = seeded_fleet(&geo, Placer::Uniform, 1, i)?;
                    let mut s = kind.build();
                    Ok(play(&geo, fleet, s.as_mut(), shooter_seed(1, i)))
                })
                .collect();
            let records: Vec<GameRecord> = records.into_iter().collect::<Result<_, _>>()?;
            let s = Summary::new(&records);
            writeln!(
                out,
                "Battleship: {name} rules, shooter {kind}: mean {:.2} shots over {} games",
                s.mean(),
                s.shots.len()
            )?;
            // Shown as it comes: the showcase takes a while.
            out.flush()?;
            rows.push(Row {
                game: "Battleship",
                task: format!("{games} {name} games, shooter {kind}"),
                result: format!("mean {:.1} ± {:.1} shots", s.mean(), s.sem()),
                time: t.elapsed(),
                correct: true,
            });
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults the help of `--exact-nodes`, `--sweeps` and `--block` states are the
    /// library's.
    #[test]
    fn the_posterior_defaults_in_the_help_are_the_librarys() {
        let d = infer::PosteriorConfig::default();
        assert_eq!((d.exact_nodes, d.sweeps, d.block), (40_000, 400, 0));
    }

    /// A cell that may hold a ship never reads 0, and one that may be water never 100;
    /// only certainties do.
    #[test]
    fn heatmap_labels_do_not_round_a_possibility_away() {
        let rules = battleship::Rules::standard();
        let view = text::read("o.........\n".repeat(10).trim_end())
            .unwrap()
            .view(&rules)
            .unwrap();
        let mut hit = vec![0.0; 100];
        hit[1] = 0.004;
        hit[2] = 0.996;
        hit[3] = 1.0;
        hit[4] = 0.5;
        let labels: Vec<String> = (0..5).map(|c| cell_label(&view, &hit, c)).collect();
        assert_eq!(labels, ["o", "1", "99", "100", "50"]);
        assert_eq!(cell_label(&view, &hit, 5), "0");
        let svg = heatmap_svg(&view, &hit, 10, 10);
        assert!(
            svg.contains(">1</text>") && svg.contains(">99</text>"),
            "{svg}"
        );
    }

    fn record(shots: u32, decisions: u32, ms: u64, error: bool) -> GameRecord {
        GameRecord {
            shots,
            decisions,
            estimated: 1,
            decide_time: Duration::from_millis(ms),
            decide_time_max: Duration::from_millis(ms),
            error: error.then(|| battleship::Error::Rules("test".into())),
        }
    }

    /// Mean, standard error, nearest-rank quantiles and time a shot, over the games that
    /// ended without an error.
    #[test]
    fn the_summary_describes_the_finished_games() {
        let empty = Summary::new(&[]);
        assert_eq!(
            (empty.mean(), empty.sem(), empty.quantile(0.5)),
            (0.0, 0.0, 0)
        );
        assert_eq!(empty.ms_per_shot(), 0.0);
        let records: Vec<GameRecord> = [40, 50, 44, 46, 60]
            .into_iter()
            .map(|s| record(s, s, 2 * u64::from(s), false))
            .chain([record(99, 99, 1000, true)])
            .collect();
        let s = Summary::new(&records);
        assert_eq!((s.errors, s.estimated, s.decisions), (1, 5, 240));
        assert_eq!(s.first_error, Some((6, "invalid rules: test".to_owned())));
        assert!((s.mean() - 48.0).abs() < 1e-12);
        // Sample variance (64 + 4 + 16 + 4 + 144) / 4 = 58, over 5 games.
        assert!(
            (s.sem() - (58.0f64 / 5.0).sqrt()).abs() < 1e-12,
            "{}",
            s.sem()
        );
        assert_eq!(
            Summary::new(&records[..1]).sem(),
            0.0,
            "one game has no spread"
        );
        assert_eq!(
            [0.2, 0.5, 0.9, 1.0].map(|q| s.quantile(q)),
            [40, 46, 60, 60]
        );
        assert_eq!(s.quantile(0.0), 40);
        assert!((s.ms_per_shot() - 2.0).abs() < 1e-9);
        assert_eq!(s.time_max, Duration::from_millis(120));
    }

    /// A game whose fleet could not be drawn ends the report there: the games before it
    /// are kept (not the ones after, which a run of fewer games would not have played), and
    /// the error says so.
    #[test]
    fn a_failed_draw_ends_the_report_at_its_game() {
        let fail = || Err(CliError("game 3 (seed 1): could not draw".into()));
        let results = vec![
            Ok(record(40, 40, 1, false)),
            Ok(record(41, 41, 1, true)),
            fail(),
            Ok(record(42, 42, 1, false)),
            fail(),
        ];
        let (records, complete) = games_before_failure(results, Ok(()));
        assert_eq!(
            records.iter().map(|r| r.shots).collect::<Vec<_>>(),
            [40, 41]
        );
        assert_eq!(
            complete.unwrap_err().0,
            "game 3 (seed 1): could not draw; the report covers the 2 games before it"
        );
        let (records, complete) = games_before_failure(vec![Ok(record(40, 40, 1, false))], Ok(()));
        assert_eq!((records.len(), complete.is_ok()), (1, true));
        let (_, first) = games_before_failure(vec![fail()], Ok(()));
        assert!(
            first
                .unwrap_err()
                .0
                .ends_with("covers the 0 games before it")
        );
    }

    /// With no finished game the shot figures of `--json` are `null`, not zeros, and so is
    /// the standard error of a single game.
    #[test]
    fn no_finished_game_has_no_shot_figures() {
        let failed = Summary::new(&[record(40, 40, 1, true)]);
        assert_eq!(
            failed.json_shot_figures(),
            "\"mean_shots\":null,\"sem_shots\":null,\"median_shots\":null,\"p90_shots\":null,\"max_shots\":null,\"min_shots\":null"
        );
        let one = Summary::new(&[record(40, 40, 1, true), record(45, 45, 1, false)]);
        assert_eq!(
            one.json_shot_figures(),
            "\"mean_shots\":45.0000,\"sem_shots\":null,\"median_shots\":45,\"p90_shots\":45,\"max_shots\":45,\"min_shots\":45"
        );
        let two = Summary::new(&[record(40, 40, 1, false), record(44, 44, 1, false)]);
        assert_eq!(
            two.json_shot_figures(),
            "\"mean_shots\":42.0000,\"sem_shots\":2.0000,\"median_shots\":40,\"p90_shots\":44,\"max_shots\":44,\"min_shots\":40"
        );
    }

    /// Blue through yellow to red, clamped.
    #[test]
    fn colours_run_from_blue_through_yellow_to_red() {
        assert_eq!(colour(0.0), (30, 60, 160));
        assert_eq!(colour(0.25), (140, 140, 110));
        assert_eq!(colour(0.5), (250, 220, 60));
        assert_eq!(colour(0.75), (235, 125, 45));
        assert_eq!(colour(1.0), (220, 30, 30));
        assert_eq!(colour(-1.0), colour(0.0));
        assert_eq!(colour(2.0), colour(1.0));
    }

    /// Every shooter with settings of its own spells them out, defaults included, so that
    /// `shooter_settings` tells runs with other settings apart.
    #[test]
    fn settings_spell_out_the_defaults() {
        assert_eq!(
            Tuned::Default(ShooterKind::Lookahead).settings(),
            "lookahead (5 candidates, ratio 0.8, 800 fleets)"
        );
        assert_eq!(
            Tuned::Default(ShooterKind::Hybrid).settings(),
            Tuned::Hybrid(HybridShooter::default().info_weight).settings()
        );
        assert!(
            Tuned::Default(ShooterKind::Endgame)
                .settings()
                .starts_with("endgame (8 candidates, from ")
        );
        assert_eq!(Tuned::Default(ShooterKind::Density).settings(), "density");
    }

    /// A fleet of one's own keeps the rule set's board and adjacency.
    #[test]
    fn a_custom_fleet_keeps_the_rule_sets_adjacency() {
        let args = RuleArgs {
            rules: "no-touch".into(),
            feedback: "standard".into(),
            fleet: Some("3, 2".into()),
        };
        let r = args.rules().unwrap();
        assert_eq!(r.adjacency, battleship::Adjacency::NoTouch);
        assert_eq!((r.width, r.height), (10, 10));
        assert_eq!(r.fleet.len(), 2);
    }

    /// Nearest rank rounds the rank up: the 0.9-quantile of six games is the sixth (rank
    /// 5.4 up to 6), not the fifth.
    #[test]
    fn nearest_rank_rounds_up() {
        let records: Vec<GameRecord> = (1..=6).map(|s| record(s, s, 1, false)).collect();
        let s = Summary::new(&records);
        assert_eq!(s.quantile(0.9), 6);
        assert_eq!(s.quantile(0.5), 3);
    }
}
