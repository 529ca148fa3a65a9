//! The common text position format.
//!
//! The first line is `WxHxM` (width, height, total mines), then come `H` rows of `W`
//! characters: `H` hidden, `F` flagged, `M` known mine, `0`-`8` a revealed number. For example
//! a 4x3 board with 2 mines:
//!
//! ```text
//! 4x3x2
//! 01HH
//! 02HH
//! 01HH
//! ```
//!
//! The reader accepts lines ended by LF, CRLF or CR alone, trailing whitespace on any line
//! and trailing blank lines. Beyond the syntax it runs only cheap structural checks (see
//! [`Position::new`]): a solver decides whether a consistent layout exists.

use std::sync::Arc;

use super::{FormatError, TextError};
use crate::board::{Grid, check_size};
use crate::level::parse_dims;
use crate::position::{self, CellView, Position};

fn at(line: usize, column: Option<usize>, error: TextError) -> FormatError {
    FormatError::Text {
        line,
        column,
        error,
    }
}

/// Reads a text position.
///
/// # Errors
/// Errors name the line of the input (1-based, counting every line: blank lines before the
/// header, which are skipped, shift the rest) and, for a single character, the column
/// (1-based): a bad or missing header, an invalid size, too many mines, a missing or
/// extra row, a row of the wrong width, an unknown character, a number above its number of
/// neighbours or of unrevealed neighbours or below its known-mine neighbours, more known
/// mines than mines, or more mines than unrevealed cells. Flags are the player's marks and
/// may be wrong: any number of them is read.
pub fn read(input: &str) -> Result<Position, FormatError> {
    // A UTF-8 byte-order mark, as some editors write, is not part of the header.
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    // Read line by line: a padded input costs no list of its lines. A CR alone ends a line
    // too (as old Mac editors write), a CRLF once.
    let mut lines = input
        .split('\n')
        .flat_map(|l| l.strip_suffix('\r').unwrap_or(l).split('\r'))
        .map(str::trim_end);
    // Blank lines before the header are skipped; the line numbers count them. `first` is
    // the header's line.
    let mut first = 1;
    let header = loop {
        match lines.next() {
            Some(l) if l.trim().is_empty() => first += 1,
            Some(l) => break l,
            None => return Err(at(1, None, TextError::Empty)),
        }
    };
    let (width, height, mines) = parse_dims(header.trim_start())
        .ok_or_else(|| at(first, None, TextError::BadHeader(shorten(header))))?;
    check_size(width, height).map_err(|_| at(first, None, TextError::BadSize { width, height }))?;
    let count = width * height;
    if mines >= count {
        return Err(at(
            first,
            None,
            TextError::TooManyMines {
                mines,
                cells: count,
            },
        ));
    }
    // Enough rows? Blank lines at the end are no rows; a blank line before the last row is a
    // row of the wrong width, reported below.
    let mut found = 0;
    for (k, row) in lines.clone().enumerate() {
        if found >= height {
            break;
        }
        if !row.is_empty() {
            found = k + 1;
        }
    }
    let blank_inside = lines.clone().take(found).any(str::is_empty);
    if found < height && !blank_inside {
        return Err(at(
            found + first + 1,
            None,
            TextError::MissingRows {
                expected: height,
                found,
            },
        ));
    }
    let mut cells = Vec::with_capacity(count);
    for (y, row) in lines.by_ref().take(height).enumerate() {
        let line = y + first + 1;
        let found = row.chars().count();
        if found != width {
            return Err(at(
                line,
                None,
                TextError::RowWidth {
                    expected: width,
                    found,
                },
            ));
        }
        for (x, c) in row.chars().enumerate() {
            let view = CellView::from_char(c)
                .ok_or_else(|| at(line, Some(x + 1), TextError::UnknownChar(c)))?;
            cells.push(view);
        }
    }
    // The rows are right; past them, the first line with something on it is extra.
    if let Some(extra) = lines.position(|r| !r.trim().is_empty()) {
        return Err(at(
            height + first + 1 + extra,
            None,
            TextError::ExtraRow { expected: height },
        ));
    }
    let grid = Grid::new(width, height)
        .map_err(|_| at(first, None, TextError::BadSize { width, height }))?;
    position::check(&grid, mines, &cells).map_err(|(cell, problem)| match cell {
        Some(c) => {
            let (x, y) = grid.xy(c);
            at(y + first + 1, Some(x + 1), problem.into())
        }
        None => at(first, None, problem.into()),
    })?;
    Ok(Position::from_parts(Arc::new(grid), mines, cells))
}

/// A header for an error message: at most 40 characters of it, with `...` for the rest.
fn shorten(header: &str) -> String {
    // Control characters escaped, so that the message shows them instead of acting on the
    // terminal.
    let escaped = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect()
    };
    match header.char_indices().nth(40) {
        Some((end, _)) => format!("{}...", escaped(&header[..end])),
        None => escaped(header),
    }
}

/// Writes a position: the `WxHxM` header and one line per row, each ending with `\n`.
pub fn write(position: &Position) -> String {
    let (w, h) = (position.width(), position.height());
    let mut out = String::with_capacity((w + 1) * h + 16);
    out.push_str(&format!("{w}x{h}x{}\n", position.mine_count()));
    for row in position.cells().chunks(w.max(1)) {
        out.extend(row.iter().map(|c| c.to_char()));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        read(s).unwrap_err().to_string()
    }

    #[test]
    fn reads_and_writes() {
        let s = "4x3x2\r\n01HH  \r\n02FH\n01HM\t\n\n  \n";
        let p = read(s).unwrap();
        assert_eq!((p.width(), p.height(), p.mine_count()), (4, 3, 2));
        assert_eq!(p.at(2, 1), Some(CellView::Flagged));
        assert_eq!(p.at(3, 2), Some(CellView::Mine));
        assert_eq!(p.at(1, 1), Some(CellView::Revealed(2)));
        assert_eq!(write(&p), "4x3x2\n01HH\n02FH\n01HM\n");
        assert_eq!(read(&write(&p)).unwrap(), p);
        assert_eq!(read(&format!("\u{feff}{s}")).unwrap(), p);
    }

    /// A long first line is quoted in part; a position padded with blank lines is read.
    #[test]
    fn long_headers_are_shortened_and_padding_is_read() {
        let header = "9".repeat(100_000);
        assert_eq!(
            err(&format!("{header}\nHHH\n")),
            format!(
                "line 1: bad header `{}...`: expected `WxHxM` (width, height, mines) such as `30x16x99`",
                "9".repeat(40)
            )
        );
        let padded = format!("3x1x1\nHH1\n{}", "\n".repeat(1_000_000));
        assert_eq!(read(&padded).unwrap().mine_count(), 1);
        assert_eq!(err("é".repeat(41).as_str()).matches('é').count(), 40);
    }

    #[test]
    fn error_messages() {
        assert_eq!(err(""), "line 1: empty input: expected a `WxHxM` header");
        assert_eq!(
            err("\n \r\n"),
            "line 1: empty input: expected a `WxHxM` header"
        );
        assert_eq!(
            err("3x3\nHHH\n"),
            "line 1: bad header `3x3`: expected `WxHxM` (width, height, mines) such as `30x16x99`"
        );
        // Lines ended by CR alone are lines, as with LF or CRLF, and counted as such.
        assert_eq!(
            read("3x3x1\rHHH\rH1H\rHHH\r").unwrap(),
            read("3x3x1\nHHH\nH1H\nHHH\n").unwrap()
        );
        assert_eq!(err("3x3x1\rHHH\rH9H\rHHH\r"), err("3x3x1\nHHH\nH9H\nHHH\n"));
        assert!(err("3x3x1\rHHH\rH9H\rHHH\r").starts_with("line 3, column 2: "));
        // A control character in a bad header is shown escaped.
        assert!(err("3x\u{1}3x1\nHHH\nHHH\nHHH\n").contains("`3x\\u{1}3x1`"));
        // Blank lines before the header are skipped, and counted.
        let p = read("\n \r\n3x3x1\nHHH\nH1H\nHHH\n").unwrap();
        assert_eq!(p, read("3x3x1\nHHH\nH1H\nHHH\n").unwrap());
        assert_eq!(
            err("\n\n3x3x1\nHHH\nH9H\nHHH\n"),
            "line 5, column 2: ".to_string() + &err("3x3x1\nHHH\nH9H\nHHH\n")[18..]
        );
        assert_eq!(
            err("\n3x3\nHHH\n"),
            "line 2: bad header `3x3`: expected `WxHxM` (width, height, mines) such as `30x16x99`"
        );
        assert!(err("\n3x3x9\n").starts_with("line 2: no safe cell"));
        assert!(err("\n3x3x1\nHHH\n").starts_with("line 4: "));
        assert!(err("\n3x3x1\nHHH\nHHH\nHHH\nHHH\n").starts_with("line 6: "));
        assert_eq!(
            err("0x3x1\n"),
            "line 1: board size 0x3 is not allowed: width and height must be 1 to 255"
        );
        assert_eq!(
            err("256x3x1\n"),
            "line 1: board size 256x3 is not allowed: width and height must be 1 to 255"
        );
        assert_eq!(
            err("2x2x4\nHH\nHH\n"),
            "line 1: no safe cell is left with 4 mines on a board of 4 cells"
        );
        assert_eq!(
            err("3x3x1\nHHH\nHHH\n\n"),
            "line 4: missing row: expected 3 rows, found 2"
        );
        assert_eq!(
            err("3x2x1\nHHH\nHHH\nHHH\n"),
            "line 4: extra line after the 2 rows of the board"
        );
        assert_eq!(
            err("3x4x1\nHHH\n"),
            "line 3: missing row: expected 4 rows, found 1"
        );
        // Missing rows are named before a row's contents.
        assert_eq!(
            err("3x3x1\nHH\n"),
            "line 3: missing row: expected 3 rows, found 1"
        );
        assert_eq!(
            err("3x3x1\nHHx\n\n\n"),
            "line 3: missing row: expected 3 rows, found 1"
        );
        assert_eq!(
            err("3x1x1\nHHH\nHHH\n"),
            "line 3: extra line after the 1 rows of the board"
        );
        // The extra line named is the first with something on it; a blank line among the
        // rows is a row of the wrong width.
        assert_eq!(
            err("3x1x1\nHHH\n\n \nHHH\n"),
            "line 5: extra line after the 1 rows of the board"
        );
        assert_eq!(
            err("3x1x1\n\nHHH\n"),
            "line 2: row is 0 characters wide, expected 3"
        );
        // Rows missing after a blank line: the blank line is named, not a count of rows
        // that takes it for one.
        assert_eq!(
            err("3x3x1\n\nHHH\n"),
            "line 2: row is 0 characters wide, expected 3"
        );
        assert_eq!(
            err("3x3x1\nHHH\nHH\nHHH\n"),
            "line 3: row is 2 characters wide, expected 3"
        );
        assert_eq!(
            err("3x3x1\nHHH\n\nHHH\n"),
            "line 3: row is 0 characters wide, expected 3"
        );
        assert_eq!(
            err("7x3x1\nHHHHHHH\nHHHHHHx\nHHHHHHH\n"),
            "line 3, column 7: unknown character `x` (expected H, F, M or 0-8)"
        );
        assert_eq!(
            err("3x1x1\nHé9\n"),
            "line 2, column 2: unknown character `é` (expected H, F, M or 0-8)"
        );
        // A control character is shown escaped, not written to the terminal.
        assert_eq!(
            read("3x1x1\nH\x1bH\n").unwrap_err().to_string(),
            "line 2, column 2: unknown character `\\u{1b}` (expected H, F, M or 0-8)"
        );
        assert_eq!(
            err("2x2x1\nH4\nHH\n"),
            "line 2, column 2: revealed 4 but the cell has only 3 neighbours"
        );
        assert_eq!(
            err("3x2x1\n0H2\n000\n"),
            "line 2, column 3: revealed 2 with only 1 neighbouring cell not revealed"
        );
        assert_eq!(
            err("3x1x2\nM1M\n"),
            "line 2, column 2: revealed 1 beside 2 known mines"
        );
        assert_eq!(
            err("3x1x1\nMHM\n"),
            "line 1: 2 known mines but only 1 mine in all"
        );
        // More flags than mines: a player's wrong marks, read and written back unchanged.
        let text = "3x1x1\nF1F\n";
        assert_eq!(write(&read(text).unwrap()), text);
        assert_eq!(
            err("3x1x2\n1H0\n"),
            "line 1: 2 mines but only 1 cell not revealed"
        );
    }

    /// Errors about the header, an invalid size or a mine count the rows contradict, name
    /// the header's line, not line 1: blank lines before the header move it, as they move
    /// the rows.
    #[test]
    fn header_errors_name_the_header_line_after_blank_lines() {
        assert_eq!(
            err("\n0x3x1\n"),
            "line 2: board size 0x3 is not allowed: width and height must be 1 to 255"
        );
        assert_eq!(
            err("\n\n3x1x1\nMHM\n"),
            "line 3: 2 known mines but only 1 mine in all"
        );
        assert_eq!(
            err("\n3x1x2\n1H0\n"),
            "line 2: 2 mines but only 1 cell not revealed"
        );
    }
}
