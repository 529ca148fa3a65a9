//! Parsers of option values, run by the argument parser: a value they refuse ends the run
//! with status 2 and a usage hint, before any work.

/// An unsigned integer type of option values.
pub trait Unsigned: std::str::FromStr<Err = std::num::ParseIntError> + PartialEq + Default {
    /// The largest value, as the refusal of a larger one says.
    const MAX: u128;
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Unsigned for $t {
            const MAX: u128 = <$t>::MAX as u128;
        }
    )*};
}
unsigned!(u8, u16, u32, u64, usize);

/// Parses a whole number of 0 or more (`T` unsigned), saying in words what is wrong with
/// anything else (the standard reading says "invalid digit found in string" of `-1`).
pub fn whole<T: Unsigned>(s: &str) -> Result<T, String> {
    whole_from(s, "0 or more")
}

/// As [`whole`], the refusal naming the values allowed (`from`).
fn whole_from<T: Unsigned>(s: &str, from: &str) -> Result<T, String> {
    use std::num::IntErrorKind;
    s.parse()
        .map_err(|e: std::num::ParseIntError| match e.kind() {
            IntErrorKind::Empty => format!("expected a whole number of {from}, found nothing"),
            IntErrorKind::PosOverflow => format!("too large: at most {}", T::MAX),
            _ if s.trim_start().starts_with('-') => {
                format!("expected a whole number of {from}, not a negative one")
            }
            _ => format!("expected a whole number of {from}, in digits"),
        })
}

/// Parses a count that must be at least 1 (games, threads; `T` unsigned): a run of no games
/// would print rates and means of nothing, and rayon would read 0 threads as "all cores".
pub fn at_least_one<T: Unsigned>(s: &str) -> Result<T, String> {
    let n: T = whole_from(s, "1 or more")?;
    if n == T::default() {
        return Err("must be at least 1".to_string());
    }
    Ok(n)
}

/// Parses a count of `what` from `lo` to `hi`.
pub fn count_in(s: &str, lo: usize, hi: usize, what: &str) -> Result<usize, String> {
    let range = format!("{lo} to {hi} {what}");
    match whole_from::<usize>(s, &range) {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(_) => Err(format!("expected {range}")),
        Err(e) => Err(e),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers are refused in words that say what is allowed, not in the standard
    /// reading's "invalid digit found in string".
    #[test]
    fn refusals_say_what_a_number_may_be() {
        assert_eq!(whole::<u64>("12"), Ok(12));
        assert_eq!(
            whole::<u64>("-1"),
            Err("expected a whole number of 0 or more, not a negative one".into())
        );
        assert_eq!(
            whole::<u64>("1.5"),
            Err("expected a whole number of 0 or more, in digits".into())
        );
        assert_eq!(
            whole::<u64>(""),
            Err("expected a whole number of 0 or more, found nothing".into())
        );
        assert_eq!(whole::<u8>("256"), Err("too large: at most 255".into()));
        assert_eq!(
            at_least_one::<usize>("-5"),
            Err("expected a whole number of 1 or more, not a negative one".into())
        );
        assert_eq!(at_least_one::<usize>("0"), Err("must be at least 1".into()));
        assert_eq!(
            count_in("x", 2, 5, "cells"),
            Err("expected a whole number of 2 to 5 cells, in digits".into())
        );
        assert_eq!(
            count_in("6", 2, 5, "cells"),
            Err("expected 2 to 5 cells".into())
        );
        assert_eq!(count_in("5", 2, 5, "cells"), Ok(5));
    }
}
