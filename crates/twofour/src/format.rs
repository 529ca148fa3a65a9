//! The olympiad input and output format.
//!
//! Input: `N G`, then G games of N ball counts each. Numbers are separated by any white space and
//! may be spread over lines however the writer liked (the original sample was wrapped). Output:
//! one result per line, `1` (first player wins), `2` (second player wins) or `0` (draw).
//!
//! Errors name the line and the problem, so a user can fix a 1000-game file by hand.

use std::fmt;

use thiserror::Error;

use crate::position::{MAX_PILES, MIN_PILES, Position, PositionError};
use crate::rules::Winner;

/// A parsed input: the number of piles and the games.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// N, the number of piles of every game.
    pub piles: usize,
    /// The games' starting positions, in input order.
    pub games: Vec<Position>,
}

/// What is wrong with an input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseErrorKind {
    /// The input holds no number at all.
    #[error("the input is empty; it must start with `N G`")]
    Empty,
    /// The input is not UTF-8 text.
    #[error("the input is not text (invalid UTF-8)")]
    NotText,
    /// A token that is not a non-negative integer.
    #[error("`{token}` is not a non-negative integer")]
    BadToken {
        /// The token as found (cut to 40 characters).
        token: String,
    },
    /// A non-negative integer too large for any field of the format (above `u64::MAX`).
    #[error("`{token}` is too large a number")]
    TooLarge {
        /// The token as found (cut to 40 characters).
        token: String,
    },
    /// N outside the supported range.
    #[error("N = {n} piles is outside the supported range {MIN_PILES}..={MAX_PILES}")]
    PileCount {
        /// The N given.
        n: u64,
    },
    /// A game that breaks the rules.
    #[error("game {game}: {error}")]
    Game {
        /// One-based game number.
        game: u64,
        /// What is wrong with it.
        error: PositionError,
    },
    /// The input ends early.
    #[error(
        "the input ends after {found} of the {expected} numbers it announces ({} of {piles} piles)",
        games_count(*.games)
    )]
    Missing {
        /// Numbers expected after `N G`.
        expected: u128,
        /// Numbers found after `N G`.
        found: u128,
        /// G.
        games: u64,
        /// N.
        piles: u64,
    },
    /// The header line has only one number.
    #[error("the input ends after N; it must start with `N G`")]
    MissingGameCount,
    /// Input after the last game.
    #[error("unexpected `{token}` after the {} announced", games_count(*.games))]
    Extra {
        /// The first extra token.
        token: String,
        /// G.
        games: u64,
    },
}

/// An input error with its one-based line number.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {kind}")]
pub struct ParseError {
    /// One-based line where the problem was found.
    pub line: usize,
    /// The problem.
    pub kind: ParseErrorKind,
}

/// The lines of a text, ended by LF, CR LF or a lone CR (old Mac files), numbered from 0.
type Lines<'a> = std::iter::Enumerate<Box<dyn Iterator<Item = &'a str> + 'a>>;

/// "1 game", "2 games".
fn games_count(n: u64) -> String {
    format!("{n} game{}", if n == 1 { "" } else { "s" })
}

struct Tokens<'a> {
    lines: Lines<'a>,
    current: Option<(usize, std::str::SplitWhitespace<'a>)>,
    last_line: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Tokens {
            // A piece ending in LF loses it and the one CR before it (CR LF); a last piece
            // without LF loses its final lone CR, which ends it; any other CR ends a line.
            lines: (Box::new(text.split_inclusive('\n').flat_map(|l| {
                match l.strip_suffix('\n') {
                    Some(body) => body.strip_suffix('\r').unwrap_or(body),
                    None => l.strip_suffix('\r').unwrap_or(l),
                }
                .split('\r')
            })) as Box<dyn Iterator<Item = &'a str>>)
                .enumerate(),
            current: None,
            last_line: 1,
        }
    }

    /// The next token and its line.
    fn next_token(&mut self) -> Option<(usize, &'a str)> {
        loop {
            if let Some((line, words)) = &mut self.current
                && let Some(w) = words.next()
            {
                return Some((*line, w));
            }
            let (i, l) = self.lines.next()?;
            self.last_line = i + 1;
            self.current = Some((i + 1, l.split_whitespace()));
        }
    }

    /// The next number, or `None` at the end of the input.
    fn next_number(&mut self) -> Result<Option<(usize, u64)>, ParseError> {
        let Some((line, tok)) = self.next_token() else {
            return Ok(None);
        };
        let token = || tok.chars().take(40).collect();
        // Digits only: `u64::from_str` would also take a leading `+`, which the format does
        // not have.
        if !tok.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseError {
                line,
                kind: ParseErrorKind::BadToken { token: token() },
            });
        }
        match tok.parse::<u64>() {
            Ok(n) => Ok(Some((line, n))),
            // Digits alone fail only by being too many.
            Err(_) => Err(ParseError {
                line,
                kind: ParseErrorKind::TooLarge { token: token() },
            }),
        }
    }
}

/// Parses an input in the olympiad format.
///
/// ```
/// let p = twofour::parse("5 2\n0 3 4 1 2\n2 2\n2 2 2").unwrap();
/// assert_eq!((p.piles, p.games.len()), (5, 2));
///
/// let e = twofour::parse("3 1\n1 2 5\n").unwrap_err();
/// assert_eq!(e.to_string(), "line 2: game 1: pile 3 holds 5 balls; a pile holds 0 to 4");
/// ```
///
/// # Errors
/// A [`ParseError`] naming the line and the problem: a bad token, N out of range, a pile outside
/// 0..=4, a game whose balls do not total 2N, missing numbers, or input after the last game.
pub fn parse(input: &str) -> Result<Problem, ParseError> {
    // A UTF-8 byte-order mark, as some editors write, is not a token.
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    let mut t = Tokens::new(input);
    let (line, n) = t.next_number()?.ok_or(ParseError {
        line: 1,
        kind: ParseErrorKind::Empty,
    })?;
    let (_, g) = t.next_number()?.ok_or(ParseError {
        line,
        kind: ParseErrorKind::MissingGameCount,
    })?;
    let piles = usize::try_from(n)
        .ok()
        .filter(|p| (MIN_PILES..=MAX_PILES).contains(p))
        .ok_or(ParseError {
            line,
            kind: ParseErrorKind::PileCount { n },
        })?;
    let mut games = Vec::new();
    let mut balls = Vec::with_capacity(piles);
    for game in 1..=g {
        balls.clear();
        let mut game_line = t.last_line;
        while balls.len() < piles {
            let Some((line, b)) = t.next_number()? else {
                let found = (game - 1) as u128 * piles as u128 + balls.len() as u128;
                return Err(ParseError {
                    line: t.last_line,
                    kind: ParseErrorKind::Missing {
                        expected: g as u128 * piles as u128,
                        found,
                        games: g,
                        piles: n,
                    },
                });
            };
            game_line = line;
            if b > 4 {
                return Err(ParseError {
                    line,
                    kind: ParseErrorKind::Game {
                        game,
                        error: PositionError::PileOutOfRange {
                            index: balls.len(),
                            balls: b,
                        },
                    },
                });
            }
            balls.push(b);
        }
        let position = Position::from_counts_list(&balls).map_err(|error| ParseError {
            line: game_line,
            kind: ParseErrorKind::Game { game, error },
        })?;
        games.push(position);
    }
    if let Some((line, token)) = t.next_token() {
        return Err(ParseError {
            line,
            kind: ParseErrorKind::Extra {
                token: token.chars().take(40).collect(),
                games: g,
            },
        });
    }
    Ok(Problem { piles, games })
}

/// [`parse`] for raw bytes, reporting non-UTF-8 input as an error instead of failing.
///
/// # Errors
/// As [`parse`], plus [`ParseErrorKind::NotText`] with the line of the first invalid byte.
pub fn parse_bytes(input: &[u8]) -> Result<Problem, ParseError> {
    match std::str::from_utf8(input) {
        Ok(text) => parse(text),
        Err(e) => Err(ParseError {
            // Line ends as `parse` counts them: LF, CR LF, or a lone CR.
            line: 1 + input[..e.valid_up_to()]
                .iter()
                .enumerate()
                .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && input.get(i + 1) != Some(&b'\n')))
                .count(),
            kind: ParseErrorKind::NotText,
        }),
    }
}

impl fmt::Display for Problem {
    /// Writes the problem in the olympiad format, one game per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.piles, self.games.len())?;
        for game in &self.games {
            let mut first = true;
            for p in game.piles() {
                if !first {
                    f.write_str(" ")?;
                }
                first = false;
                write!(f, "{}", p.balls())?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// The olympiad output: one result code per line.
///
/// ```
/// use twofour::{write_results, Winner};
/// assert_eq!(write_results(&[Winner::First, Winner::Draw]), "1\n0\n");
/// ```
#[must_use]
pub fn write_results(results: &[Winner]) -> String {
    results.iter().map(|w| format!("{}\n", w.code())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(input: &str) -> String {
        parse(input).unwrap_err().to_string()
    }

    #[test]
    fn parses_wrapped_sample() {
        // The sample as the article printed it, with its line breaks scrambled.
        let p = parse("5 4\n\n0 34 12 22 22 2\n\n1 1\n\n2 24 4\n\n3 21 0\n");
        // "34" is not a pile: this scrambling is not valid input.
        assert!(p.is_err());
        let p = parse("5 4\n0 3 4\n1 2 2 2\n2 2 2 1 1 2 2 4\n4 3 2 1\r\n0\n").unwrap();
        assert_eq!(p.games.len(), 4);
        assert_eq!(p.games[3].to_string(), "4 3 2b 1 0");
    }

    #[test]
    fn errors_name_line_and_problem() {
        assert_eq!(
            err(""),
            "line 1: the input is empty; it must start with `N G`"
        );
        assert_eq!(
            err("  \n 5"),
            "line 2: the input ends after N; it must start with `N G`"
        );
        assert_eq!(err("5 x\n"), "line 1: `x` is not a non-negative integer");
        assert_eq!(
            err("3 1\n+2 2 2"),
            "line 2: `+2` is not a non-negative integer"
        );
        assert_eq!(
            err("3 1\n2 2 2 x"),
            "line 2: unexpected `x` after the 1 game announced"
        );
        // A byte-order mark is not a token.
        assert_eq!(parse("\u{feff}3 1\n2 2 2\n").unwrap().games.len(), 1);
        assert_eq!(
            err("5 99999999999999999999\n"),
            "line 1: `99999999999999999999` is too large a number"
        );
        assert_eq!(
            err("5 1\n1 2 -3"),
            "line 2: `-3` is not a non-negative integer"
        );
        assert_eq!(
            err("2 1\n2 2\n"),
            "line 1: N = 2 piles is outside the supported range 3..=4095"
        );
        assert_eq!(
            err("3 2\n2 2 2\n\n1 1 7"),
            "line 4: game 2: pile 3 holds 7 balls; a pile holds 0 to 4"
        );
        assert_eq!(
            err("3 1\n2 2\n1\n"),
            "line 3: game 1: the piles hold 5 balls, but 3 piles need exactly 2N = 6 balls"
        );
        assert_eq!(
            err("3 2\n2 2 2\n2 2\n"),
            "line 3: the input ends after 5 of the 6 numbers it announces (2 games of 3 piles)"
        );
        assert_eq!(
            err("3 1\n2 2 2\n\n9\n"),
            "line 4: unexpected `9` after the 1 game announced"
        );
        assert_eq!(
            err("3 1\n2 2 99999999999999999999999"),
            "line 2: `99999999999999999999999` is too large a number"
        );
        assert_eq!(
            parse_bytes(b"3 1\n2 2 \xff").unwrap_err().to_string(),
            "line 2: the input is not text (invalid UTF-8)"
        );
        assert_eq!(
            err("4096 1\n"),
            "line 1: N = 4096 piles is outside the supported range 3..=4095"
        );
        assert_eq!(
            err("3 1\n"),
            "line 1: the input ends after 0 of the 3 numbers it announces (1 game of 3 piles)"
        );
    }

    /// Lines end with LF, CR LF or a lone CR alike, and errors name the right one.
    #[test]
    fn every_line_ending_counts_lines() {
        for eol in ["\n", "\r\n", "\r"] {
            let text = ["3 2", "2 2 2", "2 2 7", ""].join(eol);
            assert_eq!(
                err(&text),
                "line 3: game 2: pile 3 holds 7 balls; a pile holds 0 to 4",
                "{eol:?}"
            );
            let good = ["3 2", "2 2 2", "1 2 3", ""].join(eol);
            assert_eq!(parse(&good).unwrap().games.len(), 2, "{eol:?}");
            // An input ending early names its last line, ended or not.
            for text in [format!("3 1{eol}"), format!("3 1{eol}2 2{eol}")] {
                let line = text.matches(eol).count();
                assert!(
                    err(&text).starts_with(&format!("line {line}: the input ends")),
                    "{text:?}"
                );
            }
            let mut bytes = ["3 1", "2 2", "2"].join(eol).into_bytes();
            bytes.push(0xff);
            let e = parse_bytes(&bytes).unwrap_err().to_string();
            assert_eq!(
                e, "line 3: the input is not text (invalid UTF-8)",
                "{eol:?}"
            );
        }
        // A lone CR before a CR LF ends a line of its own, for text and bytes alike.
        let text = "3 1\r\r\n2 2 7\n";
        assert_eq!(
            err(text),
            "line 3: game 1: pile 3 holds 7 balls; a pile holds 0 to 4"
        );
        let e = parse_bytes(b"3 1\r\r\n2 2 \xff").unwrap_err();
        assert_eq!(e.line, 3);
    }

    #[test]
    fn huge_game_count_fails_without_allocating() {
        let e = parse("3 18446744073709551615\n2 2 2\n").unwrap_err();
        assert!(matches!(e.kind, ParseErrorKind::Missing { found: 3, .. }));
    }

    #[test]
    fn write_then_parse_round_trips() {
        let p = parse("4 2\n4 0 2 2\n1 1 3 3\n").unwrap();
        assert_eq!(p.to_string(), "4 2\n4 0 2 2\n1 1 3 3\n");
        assert_eq!(parse(&p.to_string()).unwrap(), p);
    }
}
