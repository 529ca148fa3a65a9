//! The olympiad input and output format.
//!
//! Input: `N G`, then G games of N ball counts each. Numbers are separated by ASCII white space
//! (spaces, tabs, line ends, form feeds; not vertical tabs, nor Unicode spaces) and may be
//! spread over lines however the writer liked (the original sample was wrapped). Output:
//! one result per line, `1` (first player wins), `2` (second player wins) or `0` (draw).
//!
//! Errors name the line and the problem, so a user can fix a 1000-game file by hand.

use std::fmt;

use thiserror::Error;

use crate::position::{MAX_PILES, MIN_PILES, Position, PositionError};
use crate::rules::Winner;

/// A problem of the format: the number of piles and the games. Every game is one the format
/// can hold (see [`Problem::new`]), so that writing it ([`Display`](fmt::Display)) and
/// parsing the text back gives the same problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    piles: usize,
    games: Vec<Position>,
}

/// Why games cannot make a [`Problem`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ProblemError {
    /// N outside the supported range.
    #[error("N = {piles} is outside the supported range of piles, {MIN_PILES}..={MAX_PILES}")]
    PileCount {
        /// The N given.
        piles: usize,
    },
    /// A game with another number of piles than N.
    #[error("game {game} has {found} piles, not N = {piles}")]
    GameSize {
        /// One-based game number.
        game: usize,
        /// Its number of piles.
        found: usize,
        /// N.
        piles: usize,
    },
    /// A game the format cannot write: the format holds only ball counts, and reads them as
    /// a start (the first player to move, two-ball piles owned alternately from the second
    /// player's, left to right).
    #[error(
        "game {game} is not a starting position the format can hold (its ball counts would read back as another position)"
    )]
    NotAStart {
        /// One-based game number.
        game: usize,
    },
}

impl Problem {
    /// A problem of `games` with `piles` piles each.
    ///
    /// ```
    /// use twofour::{Player, Position, Problem, parse};
    /// let start = Position::new(&[2, 2, 2]).unwrap();
    /// let p = Problem::new(3, vec![start.clone()]).unwrap();
    /// assert_eq!(parse(&p.to_string()).unwrap(), p);
    /// // The same balls with the second player to move: not a start the format can hold.
    /// let other = Position::from_piles(start.piles().to_vec(), Player::Second).unwrap();
    /// assert!(Problem::new(3, vec![other]).is_err());
    /// ```
    ///
    /// # Errors
    /// When `piles` is outside the supported range, a game has another number of piles, or
    /// a game is not the position its ball counts read back as.
    pub fn new(piles: usize, games: Vec<Position>) -> Result<Problem, ProblemError> {
        if !(MIN_PILES..=MAX_PILES).contains(&piles) {
            return Err(ProblemError::PileCount { piles });
        }
        let mut balls = Vec::with_capacity(piles);
        for (i, game) in games.iter().enumerate() {
            let found = game.piles().len();
            if found != piles {
                return Err(ProblemError::GameSize {
                    game: i + 1,
                    found,
                    piles,
                });
            }
            balls.clear();
            balls.extend(game.piles().iter().map(|p| u64::from(p.balls())));
            if Position::from_counts_list(&balls).as_ref() != Ok(game) {
                return Err(ProblemError::NotAStart { game: i + 1 });
            }
        }
        Ok(Problem { piles, games })
    }

    /// N, the number of piles of every game.
    #[must_use]
    pub fn piles(&self) -> usize {
        self.piles
    }

    /// The games' starting positions, in input order.
    #[must_use]
    pub fn games(&self) -> &[Position] {
        &self.games
    }

    /// The games, taken out of the problem.
    #[must_use]
    pub fn into_games(self) -> Vec<Position> {
        self.games
    }
}

/// What is wrong with an input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
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
        /// The token as found (cut to 40 characters, with its length).
        token: String,
    },
    /// A non-negative integer too large for any field of the format (above `u64::MAX`).
    #[error("`{token}` is too large a number")]
    TooLarge {
        /// The token as found (cut to 40 characters, with its length).
        token: String,
    },
    /// N outside the supported range.
    #[error("N = {n} is outside the supported range of piles, {MIN_PILES}..={MAX_PILES}")]
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
    /// The input holds one number only.
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
type Lines<'a> = std::iter::Enumerate<Box<dyn Iterator<Item = &'a str> + Send + Sync + 'a>>;

/// "1 game", "2 games".
fn games_count(n: u64) -> String {
    format!("{n} game{}", if n == 1 { "" } else { "s" })
}

struct Tokens<'a> {
    lines: Lines<'a>,
    current: Option<(usize, std::str::SplitAsciiWhitespace<'a>)>,
    last_line: usize,
    /// The line of the last token returned (1 before any), where an input that ends early
    /// is reported: blank lines after it are not where a number went missing.
    token_line: usize,
}

/// A token as an error shows it: its first 40 characters, then `...` and the token's length
/// if it is longer (so that a cut number is not read as the number in the file), control and
/// other unprintable characters escaped (so that a stray byte-order mark or terminal escape
/// is seen, not obeyed).
fn shown(token: &str) -> String {
    let mut s = String::new();
    for c in token.chars().take(40) {
        // Quotes and backslashes as they are: only what cannot be seen is escaped.
        if matches!(c, '\'' | '"' | '\\') {
            s.push(c);
        } else {
            s.extend(c.escape_debug());
        }
    }
    let len = token.chars().count();
    if len > 40 {
        s.push_str(&format!("... ({len} characters in all)"));
    }
    s
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
            })) as Box<dyn Iterator<Item = &'a str> + Send + Sync>)
                .enumerate(),
            current: None,
            last_line: 1,
            token_line: 1,
        }
    }

    /// The next token and its line.
    fn next_token(&mut self) -> Option<(usize, &'a str)> {
        loop {
            if let Some((line, words)) = &mut self.current
                && let Some(w) = words.next()
            {
                self.token_line = *line;
                return Some((*line, w));
            }
            let (i, l) = self.lines.next()?;
            self.last_line = i + 1;
            self.current = Some((i + 1, l.split_ascii_whitespace()));
        }
    }

    /// The next number, or `None` at the end of the input.
    fn next_number(&mut self) -> Result<Option<(usize, u64)>, ParseError> {
        let Some((line, tok)) = self.next_token() else {
            return Ok(None);
        };
        let token = || shown(tok);
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
/// assert_eq!((p.piles(), p.games().len()), (5, 2));
///
/// let e = twofour::parse("3 1\n1 2 5\n").unwrap_err();
/// assert_eq!(e.to_string(), "line 2: game 1: pile 3 holds 5 balls; a pile holds 0 to 4");
/// ```
///
/// # Errors
/// A [`ParseError`] naming the line and the problem: a bad token, N out of range, a pile outside
/// 0..=4, a game whose balls do not total 2N, missing numbers, or input after the last game.
pub fn parse(input: &str) -> Result<Problem, ParseError> {
    let games = read_games(input)?;
    let piles = games.piles();
    Ok(Problem {
        piles,
        games: games.collect::<Result<_, _>>()?,
    })
}

/// [`parse`] for raw bytes, reporting non-UTF-8 input as an error instead of failing.
///
/// # Errors
/// As [`parse`], plus [`ParseErrorKind::NotText`] with the line of the first invalid byte.
pub fn parse_bytes(input: &[u8]) -> Result<Problem, ParseError> {
    parse(text(input)?)
}

/// The games of an input, read one at a time: what [`parse`] reads, in memory that does not
/// grow with the number of games (a file of millions of small games holds a few bytes per
/// game, and a [`Position`] takes tens).
///
/// ```
/// let mut games = twofour::read_games("3 2\n2 2 2\n1 1 4\n").unwrap();
/// assert_eq!((games.piles(), games.announced()), (3, 2));
/// assert_eq!(games.next().unwrap().unwrap().to_string(), "2b 2a 2b");
/// assert!(games.next().unwrap().is_ok());
/// assert!(games.next().is_none());
///
/// // An error ends the games; the ones before it were read.
/// let games: Vec<_> = twofour::read_games("3 2\n2 2 2\n1 1\n").unwrap().collect();
/// assert!(games[0].is_ok() && games[1].is_err() && games.len() == 2);
/// ```
///
/// # Errors
/// The header's errors (an empty input, a bad or too large number in it, no game count, N
/// out of range) at once; the others as the iterator's last item.
pub fn read_games(input: &str) -> Result<Games<'_>, ParseError> {
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
    Ok(Games {
        tokens: t,
        piles,
        announced: g,
        read: 0,
        balls: Vec::with_capacity(piles),
        done: false,
    })
}

/// [`read_games`] for raw bytes, reporting non-UTF-8 input as an error instead of failing.
///
/// # Errors
/// As [`read_games`], plus [`ParseErrorKind::NotText`] with the line of the first invalid
/// byte (at once: the whole input is checked first).
pub fn read_games_bytes(input: &[u8]) -> Result<Games<'_>, ParseError> {
    read_games(text(input)?)
}

/// The input as text, or the line of its first byte that is not UTF-8.
fn text(input: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(input).map_err(|e| ParseError {
        // Line ends as `parse` counts them: LF, CR LF, or a lone CR.
        line: 1 + input[..e.valid_up_to()]
            .iter()
            .enumerate()
            .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && input.get(i + 1) != Some(&b'\n')))
            .count(),
        kind: ParseErrorKind::NotText,
    })
}

/// The games of an input, from [`read_games`]: each game's starting position in input
/// order, then an error if the input goes on after the last one. After an error the
/// iterator ends.
pub struct Games<'a> {
    tokens: Tokens<'a>,
    piles: usize,
    announced: u64,
    read: u64,
    balls: Vec<u64>,
    done: bool,
}

impl fmt::Debug for Games<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Games")
            .field("piles", &self.piles)
            .field("announced", &self.announced)
            .field("read", &self.read)
            .finish_non_exhaustive()
    }
}

impl Games<'_> {
    /// N, the number of piles of every game.
    #[must_use]
    pub fn piles(&self) -> usize {
        self.piles
    }

    /// G, the number of games the header announces.
    #[must_use]
    pub fn announced(&self) -> u64 {
        self.announced
    }

    /// The next game, or the input's end (`None` when nothing follows the last game).
    fn read_next(&mut self) -> Result<Option<Position>, ParseError> {
        let (t, piles, g) = (&mut self.tokens, self.piles, self.announced);
        if self.read == g {
            return match t.next_token() {
                Some((line, token)) => Err(ParseError {
                    line,
                    kind: ParseErrorKind::Extra {
                        token: shown(token),
                        games: g,
                    },
                }),
                None => Ok(None),
            };
        }
        let game = self.read + 1;
        let balls = &mut self.balls;
        balls.clear();
        let mut game_line = t.last_line;
        while balls.len() < piles {
            let Some((line, b)) = t.next_number()? else {
                let found = (game - 1) as u128 * piles as u128 + balls.len() as u128;
                return Err(ParseError {
                    line: t.token_line,
                    kind: ParseErrorKind::Missing {
                        expected: g as u128 * piles as u128,
                        found,
                        games: g,
                        piles: piles as u64,
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
        let position = Position::from_counts_list(balls).map_err(|error| ParseError {
            line: game_line,
            kind: ParseErrorKind::Game { game, error },
        })?;
        self.read = game;
        Ok(Some(position))
    }
}

/// After its last item (a game, or an error), a `Games` gives only `None`.
impl std::iter::FusedIterator for Games<'_> {}

impl Iterator for Games<'_> {
    type Item = Result<Position, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.read_next();
        self.done = !matches!(next, Ok(Some(_)));
        next.transpose()
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

    /// N = MAX_PILES is read and accepted; one more is refused.
    #[test]
    fn the_largest_pile_count_is_read() {
        let p = parse(&format!("{MAX_PILES} 0")).unwrap();
        assert_eq!((p.piles(), p.games().len()), (MAX_PILES, 0));
        let game = vec!["2"; MAX_PILES].join(" ");
        assert_eq!(
            parse(&format!("{MAX_PILES} 1\n{game}"))
                .unwrap()
                .games()
                .len(),
            1
        );
        assert!(err(&format!("{} 0", MAX_PILES + 1)).contains("outside the supported range"));
        assert!(Problem::new(MAX_PILES, Vec::new()).is_ok());
    }

    /// A token of exactly 40 characters is shown whole, with no "characters in all".
    #[test]
    fn a_token_of_forty_characters_is_shown_whole() {
        let t = "9".repeat(40);
        assert_eq!(
            err(&format!("3 1\n2 2 {t}")),
            format!("line 2: `{t}` is too large a number")
        );
    }

    /// Games can be read on one thread and solved on others.
    #[test]
    fn games_can_be_sent_and_shared() {
        fn send_sync<T: Send + Sync>(_: &T) {}
        let games = read_games("3 1\n4 0 2\n").unwrap();
        send_sync(&games);
        let solved = std::thread::scope(|s| s.spawn(move || games.count()).join().unwrap());
        assert_eq!(solved, 1);
    }

    #[test]
    fn parses_wrapped_sample() {
        // The sample as the article printed it, with its line breaks scrambled.
        let p = parse("5 4\n\n0 34 12 22 22 2\n\n1 1\n\n2 24 4\n\n3 21 0\n");
        // "34" is not a pile: this scrambling is not valid input.
        assert!(p.is_err());
        let p = parse("5 4\n0 3 4\n1 2 2 2\n2 2 2 1 1 2 2 4\n4 3 2 1\r\n0\n").unwrap();
        assert_eq!(p.games().len(), 4);
        assert_eq!(p.games()[3].to_string(), "4 3 2b 1 0");
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
        assert_eq!(parse("\u{feff}3 1\n2 2 2\n").unwrap().games().len(), 1);
        // Only ASCII white space separates numbers, and what cannot be printed is shown
        // escaped: a second byte-order mark, a no-break space, a terminal escape.
        assert_eq!(
            err("3 1\n\u{feff}2 2 2"),
            "line 2: `\\u{feff}2` is not a non-negative integer"
        );
        assert_eq!(
            err("3 1\n2\u{a0}2 2"),
            "line 2: `2\\u{a0}2` is not a non-negative integer"
        );
        assert_eq!(
            err("3 1\nit's"),
            "line 2: `it's` is not a non-negative integer"
        );
        assert_eq!(
            err("3 1\n2 2 2\n\u{1b}[2J"),
            "line 3: unexpected `\\u{1b}[2J` after the 1 game announced"
        );
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
            "line 1: N = 2 is outside the supported range of piles, 3..=4095"
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
        // The short game's line, not that of the blank lines after it.
        assert_eq!(
            err("3 2\n2 2 2\n2 2\n\n\n"),
            "line 3: the input ends after 5 of the 6 numbers it announces (2 games of 3 piles)"
        );
        // A cut token says so, with its length: the 40 digits shown are another number.
        assert_eq!(
            err(&format!("3 1\n2 2 {}", "9".repeat(100))),
            format!(
                "line 2: `{}... (100 characters in all)` is too large a number",
                "9".repeat(40)
            )
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
            "line 1: N = 4096 is outside the supported range of piles, 3..=4095"
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
            assert_eq!(parse(&good).unwrap().games().len(), 2, "{eol:?}");
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

    /// A problem holds only games its text can say: the format writes ball counts alone, so
    /// a game with other owners of its two-ball piles, or the second player to move, would
    /// read back as another game.
    #[test]
    fn only_games_the_format_can_hold_make_a_problem() {
        use crate::rules::{Pile, Player};
        let start = Position::new(&[2, 2, 2, 1, 3]).unwrap();
        assert_eq!(
            Problem::new(2, Vec::new()),
            Err(ProblemError::PileCount { piles: 2 })
        );
        assert_eq!(Problem::new(3, Vec::new()).unwrap().to_string(), "3 0\n");
        assert_eq!(
            Problem::new(4, vec![start.clone()]),
            Err(ProblemError::GameSize {
                game: 1,
                found: 5,
                piles: 4
            })
        );
        let mut piles = start.piles().to_vec();
        piles.swap(0, 1);
        assert_ne!(piles, start.piles());
        let swapped = Position::from_piles(piles, Player::First).unwrap();
        assert_eq!(
            Problem::new(5, vec![start.clone(), swapped]),
            Err(ProblemError::NotAStart { game: 2 })
        );
        let second = Position::from_piles(start.piles().to_vec(), Player::Second).unwrap();
        assert_eq!(
            Problem::new(5, vec![second]),
            Err(ProblemError::NotAStart { game: 1 })
        );
        let moved = Position::from_piles(
            vec![
                Pile::Three,
                Pile::One,
                Pile::two(Player::First),
                Pile::One,
                Pile::Three,
            ],
            Player::First,
        )
        .unwrap();
        assert!(Problem::new(5, vec![moved]).is_err());
        let p = Problem::new(5, vec![start.clone(), start]).unwrap();
        assert_eq!(parse(&p.to_string()).unwrap(), p);
        assert_eq!(p.into_games().len(), 2);
    }

    proptest::proptest! {
        /// Any problem of random starts writes as text that parses back to it.
        #[test]
        fn random_problems_round_trip(piles in 3usize..40, games in 0usize..5, seed: u64) {
            use rand::SeedableRng;
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let games: Vec<Position> = (0..games)
                .map(|_| crate::random_game(piles, &mut rng).unwrap())
                .collect();
            let p = Problem::new(piles, games).unwrap();
            proptest::prop_assert_eq!(parse(&p.to_string()).unwrap(), p);
        }
    }
}
