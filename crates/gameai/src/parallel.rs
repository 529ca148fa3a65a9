//! Playing many seeded games on all cores, with a progress bar.

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::CliError;

/// A progress bar counting games.
pub fn games_bar(games: u64) -> ProgressBar {
    let bar = ProgressBar::new(games);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {elapsed} (eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// An empty vector with room for the results of `games` games, or an error saying there is
/// not that much memory (instead of an abort, or a panic on a count beyond any memory).
pub fn results_buffer<T>(games: u64) -> Result<Vec<T>, CliError> {
    let mut v = Vec::new();
    usize::try_from(games)
        .ok()
        .and_then(|n| v.try_reserve_exact(n).ok())
        .ok_or_else(|| {
            CliError(format!(
                "cannot hold the results of {games} games in memory: choose fewer"
            ))
        })?;
    Ok(v)
}

/// Runs `play_one(i)` for every game `i` in `0..games` on `threads` workers (all cores when
/// `None`), with a progress bar. The results come back in game order, so a summary built from
/// them does not depend on the number of threads or on scheduling.
pub fn play_games<T: Send>(
    games: u64,
    threads: Option<usize>,
    play_one: impl Fn(u64) -> T + Sync,
) -> Result<Vec<T>, CliError> {
    let mut results = results_buffer(games)?;
    let bar = games_bar(games);
    // No more workers than games (rayon reads 0 as one per core).
    let workers = threads.map_or(0, |t| {
        t.min(usize::try_from(games).unwrap_or(usize::MAX)).max(1)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| CliError(format!("cannot start worker threads: {e}")))?;
    // The buffer was made for the count, so it fits in `usize`.
    let len = usize::try_from(games).unwrap_or(0);
    pool.install(|| {
        (0..len)
            .into_par_iter()
            .map(|i| {
                let r = play_one(i as u64);
                bar.inc(1);
                r
            })
            .collect_into_vec(&mut results);
    });
    bar.finish_and_clear();
    Ok(results)
}
