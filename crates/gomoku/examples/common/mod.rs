//! What the examples share: positional command-line arguments with defaults.

use std::fmt::Display;
use std::str::FromStr;

/// Positional argument `n` (1-based), or `default` when it is absent. An argument that does
/// not parse ends the program with a message naming it, rather than being silently replaced.
pub fn arg<T: FromStr + Display>(n: usize, name: &str, default: T) -> T {
    match std::env::args().nth(n) {
        None => default,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("argument {n} ({name}): cannot read `{s}` (default {default})");
            std::process::exit(2)
        }),
    }
}
