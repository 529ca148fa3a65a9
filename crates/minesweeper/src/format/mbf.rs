//! The MBF binary board format.
//!
//! Layout: `u8` width, `u8` height, `u16` big-endian mine count, then per mine one byte for
//! its column and one for its row, both zero-based. The data is exactly `4 + 2 * mines` bytes.

use std::sync::Arc;

use super::FormatError;
use crate::board::{Board, Grid};

/// Reads an MBF board.
///
/// # Errors
/// Data too short for the header or not exactly `4 + 2 * mines` bytes, zero width or
/// height, a mine outside the board, a duplicate mine, or no safe cell.
pub fn read(bytes: &[u8]) -> Result<Board, FormatError> {
    let &[width, height, m0, m1, ref rest @ ..] = bytes else {
        return Err(FormatError::MbfTooShort { len: bytes.len() });
    };
    if width == 0 || height == 0 {
        return Err(FormatError::MbfEmptySize { width, height });
    }
    let mines = u16::from_be_bytes([m0, m1]);
    let (w, h) = (usize::from(width), usize::from(height));
    if usize::from(mines) >= w * h {
        return Err(FormatError::MbfTooManyMines {
            mines,
            width,
            height,
        });
    }
    let expected = 4 + 2 * usize::from(mines);
    if bytes.len() != expected {
        return Err(FormatError::MbfLength {
            len: bytes.len(),
            expected,
            mines,
        });
    }
    let mut mask = vec![false; w * h];
    for (i, pair) in rest.chunks_exact(2).enumerate() {
        let &[x, y] = pair else { continue };
        let index = i + 1;
        if x >= width || y >= height {
            return Err(FormatError::MbfMineOutside {
                index,
                x,
                y,
                width,
                height,
            });
        }
        let cell = usize::from(y) * w + usize::from(x);
        if let Some(m) = mask.get_mut(cell) {
            if *m {
                return Err(FormatError::MbfDuplicateMine { index, x, y });
            }
            *m = true;
        }
    }
    let grid = Grid::new(w, h).map_err(|_| FormatError::MbfEmptySize { width, height })?;
    Ok(Board::from_mask(Arc::new(grid), mask))
}

/// Writes a board in MBF (mines in increasing cell order). Every board fits: sides are at most
/// 255 and mines fewer than 255 * 255.
pub fn write(board: &Board) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + 2 * board.mine_count());
    // Sides are at most 255 and the mine count below 65025: the casts are exact.
    out.push(board.width() as u8);
    out.push(board.height() as u8);
    out.extend_from_slice(&(board.mine_count() as u16).to_be_bytes());
    for cell in board.mines() {
        let (x, y) = board.xy(cell);
        out.push(x as u8);
        out.push(y as u8);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_small() {
        let board = Board::new(3, 2, &[0, 5]).unwrap();
        let bytes = write(&board);
        assert_eq!(bytes, [3, 2, 0, 2, 0, 0, 2, 1]);
        assert_eq!(read(&bytes).unwrap(), board);
        let big = Board::new(255, 255, &[65024]).unwrap();
        assert_eq!(write(&big), [255, 255, 0, 1, 254, 254]);
        assert_eq!(read(&write(&big)).unwrap(), big);
    }

    #[test]
    fn error_messages() {
        let e = |b: &[u8]| read(b).unwrap_err().to_string();
        assert_eq!(
            e(&[3, 2, 0]),
            "MBF data is 3 bytes long: too short for the 4-byte header"
        );
        assert_eq!(
            e(&[0, 2, 0, 0]),
            "MBF board size 0x2 is empty: width and height must be at least 1"
        );
        assert_eq!(
            e(&[2, 2, 0, 4, 0, 0, 0, 1, 1, 0, 1, 1]),
            "MBF header declares 4 mines, leaving no safe cell on a 2x2 board"
        );
        assert_eq!(
            e(&[3, 2, 0, 2, 0, 0, 2]),
            "MBF data is 7 bytes long, expected 8 (4 header bytes and 2 per mine for 2 mines)"
        );
        assert_eq!(
            e(&[3, 2, 0, 1, 0, 0, 2]),
            "MBF data is 7 bytes long, expected 6 (4 header bytes and 2 per mine for 1 mine)"
        );
        assert_eq!(
            e(&[3, 2, 0, 2, 0, 0, 3, 1]),
            "MBF mine 2 at column 3, row 1 is outside the 3x2 board"
        );
        assert_eq!(
            e(&[3, 2, 0, 2, 0, 0, 0, 2]),
            "MBF mine 2 at column 0, row 2 is outside the 3x2 board"
        );
        assert_eq!(
            e(&[3, 2, 0, 3, 2, 1, 0, 0, 2, 1]),
            "MBF mine 3 at column 2, row 1 repeats an earlier mine"
        );
    }

    /// A zero height is an empty size, as a zero width is: the size is checked on both sides
    /// before the mine count, which would otherwise report 0 mines as too many for no cells.
    #[test]
    fn a_zero_height_is_an_empty_size() {
        assert_eq!(
            read(&[2, 0, 0, 0]).unwrap_err(),
            FormatError::MbfEmptySize {
                width: 2,
                height: 0
            }
        );
    }
}
