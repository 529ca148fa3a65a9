//! Parsers of option values, run by the argument parser: a value they refuse ends the run
//! with status 2 and a usage hint, before any work.

/// Parses a count that must be at least 1 (games, threads; `T` unsigned): a run of no games
/// would print rates and means of nothing, and rayon would read 0 threads as "all cores".
pub fn at_least_one<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialEq + Default,
    T::Err: std::fmt::Display,
{
    let n: T = s.parse().map_err(|e: T::Err| e.to_string())?;
    if n == T::default() {
        return Err("must be at least 1".to_string());
    }
    Ok(n)
}

/// Parses a count of `what` from `lo` to `hi`.
pub fn count_in(s: &str, lo: usize, hi: usize, what: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(_) => Err(format!("expected {lo} to {hi} {what}")),
        Err(e) => Err(e.to_string()),
    }
}

/// Checks that `s` names a `T` (a shooter, a rule set, ...) and keeps the name: the
/// command reads it again where it needs the value, and an unknown name is refused with the
/// library's list of known ones.
pub fn name_of<T>(s: &str) -> Result<String, String>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    s.parse::<T>().map_err(|e| e.to_string())?;
    Ok(s.to_string())
}
