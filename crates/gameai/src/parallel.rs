//! Playing many seeded games on all cores, with a progress bar, that Ctrl-C stops cleanly.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Once, mpsc};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::CliError;

/// Whether a run of games that Ctrl-C may stop is under way.
static GAMES: AtomicBool = AtomicBool::new(false);
/// Set by the first Ctrl-C of a run of games.
static STOP: AtomicBool = AtomicBool::new(false);

/// Handles Ctrl-C for the whole program, and the termination signals SIGTERM and SIGHUP
/// alike (`kill`, `timeout`, a closed terminal). During a run of games the first one stops
/// it cleanly: no new game starts, the games in play finish (see [`STOP_GRACE`]), and the
/// caller reports the games played (a long evaluation keeps what it measured, also under
/// `timeout`). Otherwise, and at a second signal, the program quits at once, with the
/// status a shell gives a program stopped by Ctrl-C (130, whichever the signal), after
/// removing the temporary files of outputs not yet complete (old files of their names stay
/// as they were). Without a handler (it could not be installed), the signals quit at once,
/// as by default.
pub fn handle_interrupts() {
    static WATCH: Once = Once::new();
    WATCH.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if GAMES.load(Ordering::SeqCst) && !STOP.swap(true, Ordering::SeqCst) {
                let _ = writeln!(
                    std::io::stderr(),
                    "\ngameai: stopping: the games in play finish (for up to {} s), then the \
                     games played are reported (Ctrl-C again quits at once)",
                    STOP_GRACE.as_secs()
                );
                return;
            }
            let removed = crate::output::remove_partials();
            if STOP.load(Ordering::SeqCst) {
                let _ = writeln!(
                    std::io::stderr(),
                    "\ngameai: quit at once: no report, no records written"
                );
            } else if removed > 0 {
                let _ = writeln!(
                    std::io::stderr(),
                    "\ngameai: interrupted: the output was not written (a file of its name is \
                     as it was)"
                );
            }
            std::process::exit(130);
        });
    });
}

/// Runs `run` as a run of games that the first Ctrl-C stops cleanly: while it runs, that
/// Ctrl-C only sets [`stop_requested`], which `run` checks before starting each game; after
/// it, Ctrl-C quits at once again.
pub fn stoppable<R>(run: impl FnOnce() -> R) -> R {
    handle_interrupts();
    GAMES.store(true, Ordering::SeqCst);
    let r = run();
    // A Ctrl-C from now on quits at once: what is left is quick (the report).
    GAMES.store(false, Ordering::SeqCst);
    r
}

/// Whether Ctrl-C has asked the run of games under way to stop (see [`stoppable`]).
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// The results of a run of games: of all of them, or, when Ctrl-C stopped the run, of the
/// games started before it (games are started in order, so these are what a run of that
/// many games gives, whatever the number of threads).
pub struct Played<T> {
    /// The results, in game order.
    pub results: Vec<T>,
    /// The number of games asked for, when the run was stopped before the last.
    pub stopped_of: Option<u64>,
}

impl<T> Played<T> {
    /// `Ok` after a complete run; after a stopped one, the error that says so, to return
    /// once the games played are reported.
    pub fn finished(&self) -> Result<(), CliError> {
        match self.stopped_of {
            None => Ok(()),
            Some(asked) => Err(CliError(format!(
                "interrupted: the report covers the first {} of {asked} games",
                self.results.len()
            ))),
        }
    }
}

/// A progress bar counting games.
pub fn games_bar(games: u64) -> ProgressBar {
    let bar = ProgressBar::new(games);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {elapsed} (eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// An error when the results of `games` games could not be held in any memory (more bytes
/// than an address space has): such a count could never be played to its end.
pub fn check_results_fit<T>(games: u64) -> Result<(), CliError> {
    let fits = usize::try_from(games)
        .ok()
        .and_then(|n| n.checked_mul(std::mem::size_of::<T>().max(1)))
        .is_some_and(|bytes| bytes <= isize::MAX as usize);
    if fits { Ok(()) } else { Err(no_room(games)) }
}

/// The error for a count of games whose results do not fit in memory.
fn no_room(games: u64) -> CliError {
    CliError(format!(
        "cannot hold the results of {games} games in memory: choose fewer"
    ))
}

/// An empty vector with room for the results of `games` games, or an error saying there is
/// not that much memory (instead of an abort, or a panic on a count beyond any memory).
pub fn results_buffer<T>(games: u64) -> Result<Vec<T>, CliError> {
    let mut v = Vec::new();
    usize::try_from(games)
        .ok()
        .and_then(|n| v.try_reserve_exact(n).ok())
        .ok_or_else(|| no_room(games))?;
    Ok(v)
}

/// `requested` worker threads, or four a core of this machine if that is fewer (saying so
/// on standard error): the games share the cores, so more threads only slow each game down,
/// and behind thousands of them the thread that gathers the results and answers Ctrl-C
/// waits its turn (a stop took minutes where it promises seconds).
pub fn usable_threads(requested: usize) -> usize {
    let most = most_threads();
    if requested > most {
        let _ = writeln!(
            std::io::stderr(),
            "gameai: --threads {requested}: using {most}, four a core of this machine (more \
             only slow the games down)"
        );
    }
    requested.min(most)
}

/// Four threads a core of this machine.
fn most_threads() -> usize {
    4 * std::thread::available_parallelism().map_or(1, |c| c.get())
}

/// How long the games in play may run on after the signal that stops a run of games: the
/// ones still in play then are left out of the report (a game can take minutes under some
/// settings, and `timeout` sends a single signal).
pub const STOP_GRACE: Duration = Duration::from_secs(10);

/// Runs `play_one(i)` for every game `i` in `0..games` on `threads` workers (all cores when
/// `None`), with a progress bar. The results come back in game order, so a summary built from
/// them does not depend on the number of threads or on scheduling. Ctrl-C stops the run (see
/// [`Played`]); the games still in play [`STOP_GRACE`] after it are left to run on unseen
/// (the program ends soon after its report), so the results are those of the games before
/// the first of them.
pub fn play_games<T: Send + 'static>(
    games: u64,
    threads: Option<usize>,
    play_one: impl Fn(u64) -> T + Send + Sync + 'static,
) -> Result<Played<T>, CliError> {
    // The results in game order, and those that came before an earlier game's: memory grows
    // with the games played, not with the games asked for (a count far beyond what a run
    // could play must not take the memory up front).
    check_results_fit::<T>(games)?;
    let mut results: Vec<T> = Vec::new();
    let mut early: std::collections::BTreeMap<usize, T> = std::collections::BTreeMap::new();
    let bar = games_bar(games);
    // No more workers than games (rayon reads 0 as one per core).
    let workers = threads.map_or(0, |t| {
        usable_threads(t)
            .min(usize::try_from(games).unwrap_or(usize::MAX))
            .max(1)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| CliError(format!("cannot start worker threads: {e}")))?;
    // More games than `usize` counts could never be played, so stop there.
    let len = usize::try_from(games).unwrap_or(usize::MAX);
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    stoppable(|| {
        // The workers run under a thread of their own, which is not waited for when the
        // games in play outlast the grace after a stop.
        let runner = std::thread::spawn(move || {
            // Games are handed out in order, one at a time, so that when Ctrl-C stops the
            // run the games played are the first ones (splitting the range among the
            // workers, each would play a block of its own, and all but the first block's
            // games would be lost).
            let next = AtomicUsize::new(0);
            let (next, play_one) = (&next, &play_one);
            pool.scope(|s| {
                for _ in 0..pool.current_num_threads().min(len) {
                    let tx = tx.clone();
                    s.spawn(move |_| {
                        while !stop_requested() {
                            let i = next.fetch_add(1, Ordering::SeqCst);
                            if i >= len || tx.send((i, play_one(i as u64))).is_err() {
                                break;
                            }
                        }
                    });
                }
            });
        });
        let mut stopped_at: Option<Instant> = None;
        let finished = loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok((i, r)) => {
                    early.insert(i, r);
                    while let Some(r) = early.remove(&results.len()) {
                        results.push(r);
                    }
                    bar.inc(1);
                }
                // Every worker is done: all games played, or the run stopped.
                Err(mpsc::RecvTimeoutError::Disconnected) => break true,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if stop_requested() {
                        let at = *stopped_at.get_or_insert_with(Instant::now);
                        if at.elapsed() >= STOP_GRACE {
                            break false;
                        }
                    }
                }
            }
        };
        if finished {
            // The workers are done; a panic in one of them is passed on.
            if let Err(panic) = runner.join() {
                std::panic::resume_unwind(panic);
            }
        } else {
            let _ = writeln!(
                std::io::stderr(),
                "\ngameai: games still in play {} s after the stop are left out",
                STOP_GRACE.as_secs()
            );
        }
    });
    bar.finish_and_clear();
    let complete = results.len() as u64 == games;
    Ok(Played {
        results,
        stopped_of: (!complete).then_some(games),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Threads past four a core are cut to that; fewer are kept.
    #[test]
    fn threads_are_cut_to_four_a_core() {
        let most = most_threads();
        assert_eq!(usable_threads(1), 1);
        assert_eq!(usable_threads(most), most);
        assert_eq!(usable_threads(most + 1), most);
        assert_eq!(usable_threads(usize::MAX), most);
    }
}
