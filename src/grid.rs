//! The board and its text format.
//!
//! A 9×9 puzzle or grid is a plain `[u8; 81]` in row-major order, `0` for an empty
//! cell and `1..=9` for a digit ([`Cells`]). Keeping the hot representation a bare
//! array (not a struct with a size field) lets the solver, the carver, the symmetry
//! group and the canonical form index it without bounds checks or indirection.
//! [`Size`] names the board sizes the text format knows, so that other box sizes can
//! get their own representation later without touching the 9×9 fast path.
//!
//! Text format (DESIGN.md): one puzzle per line, the cells in row-major order with no
//! separators; digits `1`–`9`, `.` for empty on output, `.` or `0` on input;
//! surrounding whitespace is ignored. Anything else is an error naming the line, the
//! column and the character.

use std::fmt;

/// Number of cells of a 9×9 board.
pub const N_CELLS: usize = 81;

/// A 9×9 board: row-major, `0` = empty, `1..=9` = digit.
pub type Cells = [u8; N_CELLS];

/// The side length of a board. Only 9×9 is implemented so far; the type exists so
/// that command-line flags and error messages already speak in sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// The classic 9×9 board with 3×3 boxes.
    Nine,
}

impl Size {
    /// Cells on a board of this size.
    pub fn n_cells(self) -> usize {
        match self {
            Size::Nine => N_CELLS,
        }
    }
}

/// Why a line of text is not a board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A character that is neither a digit nor an empty-cell marker.
    #[error(
        "line {line}, column {column}: unexpected character {found:?} (expected 1-9, '.' or '0')"
    )]
    BadChar {
        line: usize,
        column: usize,
        found: char,
    },
    /// The line holds too few or too many cells.
    #[error("line {line}: expected {expected} cells, found {found}")]
    BadLength {
        line: usize,
        expected: usize,
        found: usize,
    },
}

/// Parses one line of the text format. `line_no` (1-based) is only used to name the
/// line in errors; columns count characters from 1 in the line as given, including
/// any leading whitespace, so that an editor's column matches.
pub fn parse_line(text: &str, line_no: usize) -> Result<Cells, ParseError> {
    let leading = text.len() - text.trim_start().len();
    let body = text.trim();
    let lead_chars = text[..leading].chars().count();
    let mut cells = [0u8; N_CELLS];
    let mut n = 0usize;
    for (i, ch) in body.chars().enumerate() {
        let value = match ch {
            '1'..='9' => ch as u8 - b'0',
            '.' | '0' => 0,
            _ => {
                return Err(ParseError::BadChar {
                    line: line_no,
                    column: lead_chars + i + 1,
                    found: ch,
                })
            }
        };
        if n < N_CELLS {
            cells[n] = value;
        }
        n += 1;
    }
    if n != N_CELLS {
        return Err(ParseError::BadLength {
            line: line_no,
            expected: N_CELLS,
            found: n,
        });
    }
    Ok(cells)
}

/// Writes `cells` in the text format into `out` (`.` for empty), without allocating.
#[inline]
pub fn format_into(cells: &Cells, out: &mut [u8; N_CELLS]) {
    for (o, &v) in out.iter_mut().zip(cells.iter()) {
        *o = if v == 0 { b'.' } else { b'0' + v };
    }
}

/// Writes `cells` with `0` for empty cells (the canonical-form convention).
#[inline]
pub fn format_zeros_into(cells: &Cells, out: &mut [u8; N_CELLS]) {
    for (o, &v) in out.iter_mut().zip(cells.iter()) {
        *o = b'0' + v;
    }
}

/// Number of givens (non-empty cells).
#[inline]
pub fn n_clues(cells: &Cells) -> u8 {
    cells.iter().filter(|&&v| v != 0).count() as u8
}

/// True when every row, column and box holds each of its digits at most once.
/// Empty cells are allowed; a full grid that passes is a valid Sudoku solution.
pub fn is_consistent(cells: &Cells) -> bool {
    let mut rows = [0u16; 9];
    let mut cols = [0u16; 9];
    let mut boxes = [0u16; 9];
    for (i, &v) in cells.iter().enumerate() {
        if v == 0 {
            continue;
        }
        if v > 9 {
            return false;
        }
        let bit = 1u16 << v;
        let (r, c) = (i / 9, i % 9);
        let b = (r / 3) * 3 + c / 3;
        if rows[r] & bit != 0 || cols[c] & bit != 0 || boxes[b] & bit != 0 {
            return false;
        }
        rows[r] |= bit;
        cols[c] |= bit;
        boxes[b] |= bit;
    }
    true
}

/// True when `grid` is a complete valid solution and agrees with every given of `puzzle`.
pub fn solves(puzzle: &Cells, grid: &Cells) -> bool {
    grid.iter().all(|&v| (1..=9).contains(&v))
        && is_consistent(grid)
        && puzzle.iter().zip(grid).all(|(&p, &g)| p == 0 || p == g)
}

/// Displays a board in the text format; for messages and tests, not the hot path.
pub struct Display<'a>(pub &'a Cells);

impl fmt::Display for Display<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; N_CELLS];
        format_into(self.0, &mut buf);
        f.write_str(std::str::from_utf8(&buf).expect("format_into writes ASCII only"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";

    #[test]
    fn round_trips_and_accepts_zero_and_whitespace() {
        let cells = parse_line(PUZZLE, 1).unwrap();
        assert_eq!(Display(&cells).to_string(), PUZZLE);
        let zeros = PUZZLE.replace('.', "0");
        assert_eq!(parse_line(&format!("  {zeros}\t"), 1).unwrap(), cells);
        assert_eq!(n_clues(&cells), 26);
    }

    #[test]
    fn names_line_column_and_character() {
        let mut bad = PUZZLE.to_string();
        bad.replace_range(39..40, "x");
        let err = parse_line(&format!(" {bad}"), 12).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 12, column 41: unexpected character 'x' (expected 1-9, '.' or '0')"
        );
        let err = parse_line(&PUZZLE[1..], 3).unwrap_err();
        assert_eq!(err.to_string(), "line 3: expected 81 cells, found 80");
    }

    #[test]
    fn consistency_spots_a_repeated_digit() {
        let mut cells = parse_line(PUZZLE, 1).unwrap();
        assert!(is_consistent(&cells));
        cells[0] = 9; // row 0 already has a 9 at column 2
        assert!(!is_consistent(&cells));
    }
}
