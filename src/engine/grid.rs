//! The board and its text format.
//!
//! A 9×9 puzzle or grid is a plain `[u8; 81]` in row-major order, `0` for an empty
//! cell and `1..=9` for a digit ([`Cells`]). Keeping the hot representation a bare
//! array (not a struct with a size field) lets the solver, the carver, the symmetry
//! group and the canonical form index it without bounds checks or indirection.
//! [`Size`] names the board sizes the factory makes (4×4, 9×9, 16×16, 25×25); every
//! size shares this file's text format, and the 9×9 kernels (`solve`, `canon`, the
//! rater) take `[u8; 81]` directly.
//!
//! Text format (DESIGN.md): one puzzle per line, the cells in row-major order with no
//! separators; symbols `1`–`9` then `A`, `B`, … (A = 10; lowercase accepted on input),
//! `.` for empty on output, `.` or `0` on input; surrounding whitespace is ignored.
//! Anything else is an error naming the line, the column and the character.

use std::fmt;

/// Number of cells of a 9×9 board.
pub const N_CELLS: usize = 81;

/// A 9×9 board: row-major, `0` = empty, `1..=9` = digit.
pub type Cells = [u8; N_CELLS];

/// The side length of a board: N×N cells in boxes of b×b, N = b².
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    /// 4×4 with 2×2 boxes, for children's books.
    Four,
    /// The classic 9×9 board with 3×3 boxes.
    Nine,
    /// 16×16 with 4×4 boxes.
    Sixteen,
    /// 25×25 with 5×5 boxes.
    TwentyFive,
}

/// Symbol of each value on output: `.` for empty, then `1`–`9`, `A`–`P`.
pub const SYMBOLS: &[u8; 26] = b".123456789ABCDEFGHIJKLMNOP";

impl Size {
    /// Every size, smallest first.
    pub const ALL: [Size; 4] = [Size::Four, Size::Nine, Size::Sixteen, Size::TwentyFive];

    /// The size whose side is `n` (4, 9, 16 or 25).
    pub fn from_side(n: usize) -> Option<Size> {
        Size::ALL.into_iter().find(|s| s.side() == n)
    }

    /// Side length N (also the number of symbols).
    pub fn side(self) -> usize {
        match self {
            Size::Four => 4,
            Size::Nine => 9,
            Size::Sixteen => 16,
            Size::TwentyFive => 25,
        }
    }

    /// Box side b (N = b²).
    pub fn box_side(self) -> usize {
        match self {
            Size::Four => 2,
            Size::Nine => 3,
            Size::Sixteen => 4,
            Size::TwentyFive => 5,
        }
    }

    /// Cells on a board of this size.
    pub fn n_cells(self) -> usize {
        self.side() * self.side()
    }

    /// The symbols of a given, as error messages name them.
    pub fn symbols(self) -> &'static str {
        match self {
            Size::Four => "1-4",
            Size::Nine => "1-9",
            Size::Sixteen => "1-9, A-G",
            Size::TwentyFive => "1-9, A-P",
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{n}x{n}", n = self.side())
    }
}

/// Why a line of text is not a board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A character that is neither a digit nor an empty-cell marker.
    #[error(
        "line {line}, column {column}: unexpected character {} (expected {expected}, '.' or '0')",
        Shown(*.found)
    )]
    BadChar {
        line: usize,
        column: usize,
        found: char,
        /// The symbols of the size being read, e.g. `1-9`.
        expected: &'static str,
    },
    /// The line holds nothing but whitespace: one puzzle per line, no blank lines.
    #[error("line {line} is blank: expected a puzzle of {expected} cells (one per line, no blank lines)")]
    Blank { line: usize, expected: usize },
    /// The line holds too few or too many cells.
    #[error("line {line}: expected {expected} cells, found {found}")]
    BadLength {
        line: usize,
        expected: usize,
        found: usize,
    },
    /// The line is a whole board of another size (a 16×16 line given to a 9×9
    /// reader): said so, rather than naming its first symbol or its length.
    #[error("line {line}: {cells} cells make a {found} board, not {expected}")]
    OtherSize {
        line: usize,
        cells: usize,
        found: Size,
        expected: Size,
    },
    /// The line is not UTF-8 text; `column` is the character before which the first
    /// invalid byte stands, `byte` that byte.
    #[error("line {line}, column {column}: byte 0x{byte:02x} is not valid UTF-8 text")]
    NotUtf8 {
        line: usize,
        column: usize,
        byte: u8,
    },
    /// A symbol stands twice in one row, column or box: no Sudoku board can hold it,
    /// so it is refused as malformed rather than searched (such boards made the
    /// solver and the canonical form search for a long time to find nothing).
    #[error("line {line}, columns {first} and {second}: {symbol:?} repeats in {unit}")]
    Repeated {
        line: usize,
        /// Columns in the line (as [`ParseError::BadChar`] counts them) of the two cells.
        first: usize,
        second: usize,
        symbol: char,
        unit: Unit,
    },
}

/// A character as an error message shows it: in quotes when it can be seen, else by
/// its code point (`U+0001`), and a byte-order mark by name (an editor may have put
/// one at the start of the file).
struct Shown(char);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            '\u{feff}' => write!(
                f,
                "U+FEFF (a byte-order mark: save the file as UTF-8 without one)"
            ),
            '\'' => write!(f, "\"'\""),
            c if c.is_control() || (c.is_whitespace() && c != ' ') || c == '\u{200b}' => {
                write!(f, "U+{:04X}", u32::from(c))
            }
            c => write!(f, "'{c}'"),
        }
    }
}

/// A row, column or box of a board, numbered from 1 (boxes row-major), as error
/// messages name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Row(usize),
    Column(usize),
    Box(usize),
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unit::Row(k) => write!(f, "row {k}"),
            Unit::Column(k) => write!(f, "column {k}"),
            Unit::Box(k) => write!(f, "box {k}"),
        }
    }
}

/// The first repeated symbol of `cells` (a board of `size`, 0 = empty): the unit and
/// the two cell indices (row-major, from 0), rows first, then columns, then boxes.
/// `None` when no row, column or box holds a value twice.
pub fn find_repeat(cells: &[u8], size: Size) -> Option<(Unit, usize, usize)> {
    // Every line of every command passes through here: the common answer (no
    // repeat) costs one pass of bit operations; only a bad line pays for the search
    // that names the first repeat in reading order.
    if !has_repeat(cells, size) {
        return None;
    }
    first_repeat(cells, size)
}

/// Whether any row, column or box of `cells` holds a value twice: one pass over the
/// cells with a bitmask per unit, no division per cell (the box column advances with
/// a counter) and no clearing per unit. Each size gets its own copy with the side and
/// box side as constants, so the loops are fixed and unrolled.
#[inline]
fn has_repeat(cells: &[u8], size: Size) -> bool {
    match size {
        Size::Four => has_repeat_in::<4, 2>(cells),
        Size::Nine => has_repeat_in::<9, 3>(cells),
        Size::Sixteen => has_repeat_in::<16, 4>(cells),
        Size::TwentyFive => has_repeat_in::<25, 5>(cells),
    }
}

#[inline]
fn has_repeat_in<const N: usize, const B: usize>(cells: &[u8]) -> bool {
    debug_assert_eq!(cells.len(), N * N);
    let (mut cols, mut boxes) = ([0u32; N], [0u32; N]);
    let mut repeats = 0u32;
    for (r, row_cells) in cells.chunks_exact(N).enumerate() {
        let box_base = (r / B) * B;
        let mut row = 0u32;
        for (bc, part) in row_cells.chunks_exact(B).enumerate() {
            let bx = &mut boxes[box_base + bc];
            for (k, &v) in part.iter().enumerate() {
                // Value 0 (empty) maps to bit 0, which is masked off; values are at
                // most 25 (the parser's bound), so the shift stays inside the word.
                let bit = (1u32 << (v & 31)) & !1;
                let col = &mut cols[bc * B + k];
                repeats |= (row | *col | *bx) & bit;
                row |= bit;
                *col |= bit;
                *bx |= bit;
            }
        }
    }
    repeats != 0
}

/// [`find_repeat`]'s search for a board known to hold a repeat: units in the order
/// the error names them (rows, then columns, then boxes).
#[cold]
fn first_repeat(cells: &[u8], size: Size) -> Option<(Unit, usize, usize)> {
    let (n, b) = (size.side(), size.box_side());
    debug_assert_eq!(cells.len(), n * n);
    // seen[v]: 1 + the cell holding v in the current unit (0: not seen). Stack only.
    let mut seen = [0usize; 26];
    // The k-th cell of unit u, for rows (0), columns (1) and boxes (2).
    let cell_of = |unit: usize, u: usize, k: usize| match unit {
        0 => u * n + k,
        1 => k * n + u,
        _ => ((u / b) * b + k / b) * n + (u % b) * b + k % b,
    };
    let names: [fn(usize) -> Unit; 3] = [Unit::Row, Unit::Column, Unit::Box];
    for (unit, name) in names.into_iter().enumerate() {
        for u in 0..n {
            seen.fill(0);
            for k in 0..n {
                let cell = cell_of(unit, u, k);
                let v = usize::from(cells[cell]);
                if v == 0 {
                    continue;
                }
                if seen[v] != 0 {
                    return Some((name(u + 1), seen[v] - 1, cell));
                }
                seen[v] = cell + 1;
            }
        }
    }
    None
}

impl ParseError {
    /// The error as a command reports it: a whole board of another size gets the way
    /// out (`--size N`, where the command takes it: `takes_size`).
    pub fn explained(&self, takes_size: bool) -> String {
        match self {
            ParseError::OtherSize { found, .. } if takes_size => {
                format!("{self}: pass --size {}", found.side())
            }
            ParseError::OtherSize { expected, .. } => {
                format!("{self}: this command reads {expected} boards only")
            }
            _ => self.to_string(),
        }
    }
}

/// Parses one input line of any `size` as a board, as every command that reads
/// puzzles does: the text format ([`parse_sized`]), and then no symbol repeated in a
/// row, column or box ([`ParseError::Repeated`]). `bytes` is the raw line without its
/// line terminator; bytes that are not UTF-8 are a [`ParseError::NotUtf8`].
pub fn parse_board(
    bytes: &[u8],
    line_no: usize,
    size: Size,
    out: &mut [u8],
) -> Result<(), ParseError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ParseError::NotUtf8 {
        line: line_no,
        column: String::from_utf8_lossy(&bytes[..e.valid_up_to()])
            .chars()
            .count()
            + 1,
        byte: bytes[e.valid_up_to()],
    })?;
    parse_sized(text, line_no, size, out)
        .map_err(|e| other_size(text, line_no, size).unwrap_or(e))?;
    match find_repeat(out, size) {
        None => Ok(()),
        Some((unit, a, b)) => {
            let leading = text.len() - text.trim_start().len();
            let lead_chars = text[..leading].chars().count();
            Err(ParseError::Repeated {
                line: line_no,
                first: lead_chars + a + 1,
                second: lead_chars + b + 1,
                symbol: char::from(SYMBOLS[usize::from(out[a])]),
                unit,
            })
        }
    }
}

/// [`ParseError::OtherSize`] if `text` (which failed to parse as `expected`) is a
/// whole board of another size: as many symbols as its cells, each one of its own.
fn other_size(text: &str, line: usize, expected: Size) -> Option<ParseError> {
    let body = text.trim();
    let cells = body.chars().count();
    let found = Size::ALL
        .into_iter()
        .find(|s| *s != expected && s.n_cells() == cells)?;
    let max = found.side() as u32;
    body.chars()
        .all(|ch| match ch {
            '.' | '0' => true,
            _ => ch.to_digit(36).is_some_and(|v| v <= max),
        })
        .then_some(ParseError::OtherSize {
            line,
            cells,
            found,
            expected,
        })
}

/// The error of a line of `found` cells where `expected` were due.
fn bad_length(line: usize, expected: usize, found: usize) -> ParseError {
    if found == 0 {
        ParseError::Blank { line, expected }
    } else {
        ParseError::BadLength {
            line,
            expected,
            found,
        }
    }
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
                    expected: Size::Nine.symbols(),
                })
            }
        };
        if n < N_CELLS {
            cells[n] = value;
        }
        n += 1;
    }
    if n != N_CELLS {
        return Err(bad_length(line_no, N_CELLS, n));
    }
    Ok(cells)
}

/// Parses one line of the text format for a board of any `size` into `out`, which
/// must hold exactly `size.n_cells()` cells. Errors as [`parse_line`] (this for
/// 9×9 only, into a `[u8; 81]`).
pub fn parse_sized(
    text: &str,
    line_no: usize,
    size: Size,
    out: &mut [u8],
) -> Result<(), ParseError> {
    let n_cells = size.n_cells();
    debug_assert_eq!(out.len(), n_cells);
    if parse_ascii(text.as_bytes(), size, out) {
        return Ok(());
    }
    // Not a plain well-formed line: the character-by-character reading finds what
    // is wrong and names its column (columns count characters, not bytes).
    parse_chars(text, line_no, size, out)
}

/// [`parse_sized`] one character at a time: the reading that names a bad line's
/// column, and the reference the fast path is tested against.
fn parse_chars(text: &str, line_no: usize, size: Size, out: &mut [u8]) -> Result<(), ParseError> {
    let n_cells = size.n_cells();
    let leading = text.len() - text.trim_start().len();
    let body = text.trim();
    let lead_chars = text[..leading].chars().count();
    let max = size.side() as u8;
    let mut n = 0usize;
    for (i, ch) in body.chars().enumerate() {
        let value = match ch {
            '.' | '0' => Some(0),
            '1'..='9' => Some(ch as u8 - b'0'),
            'A'..='Z' => Some(ch as u8 - b'A' + 10),
            'a'..='z' => Some(ch as u8 - b'a' + 10),
            _ => None,
        };
        let value = value.filter(|&v| v <= max).ok_or(ParseError::BadChar {
            line: line_no,
            column: lead_chars + i + 1,
            found: ch,
            expected: size.symbols(),
        })?;
        if n < n_cells {
            out[n] = value;
        }
        n += 1;
    }
    if n != n_cells {
        return Err(bad_length(line_no, n_cells, n));
    }
    Ok(())
}

/// The value of each byte in the text format: `.` and `0` are 0, `1`-`9` are 1-9,
/// `A`-`Z` and `a`-`z` are 10-35; any other byte is [`NOT_A_SYMBOL`].
const VALUE_OF: [u8; 256] = {
    let mut table = [NOT_A_SYMBOL; 256];
    table[b'.' as usize] = 0;
    let mut b = b'0';
    while b <= b'9' {
        table[b as usize] = b - b'0';
        b += 1;
    }
    let mut b = b'A';
    while b <= b'Z' {
        table[b as usize] = b - b'A' + 10;
        table[(b + 32) as usize] = b - b'A' + 10;
        b += 1;
    }
    table
};
const NOT_A_SYMBOL: u8 = u8::MAX;

/// The fast path of [`parse_sized`]: an ASCII line of exactly the board's symbols
/// (surrounding ASCII white space allowed) is read with one table look-up per byte,
/// no branch per cell. `false` leaves the line to the slow path, which says what is
/// wrong with it (and reads non-ASCII white space, which `str::trim` takes too).
#[inline]
fn parse_ascii(bytes: &[u8], size: Size, out: &mut [u8]) -> bool {
    let body = bytes.trim_ascii();
    if body.len() != out.len() {
        return false;
    }
    let max = size.side() as u8;
    let mut bad = false;
    for (o, &b) in out.iter_mut().zip(body) {
        let v = VALUE_OF[usize::from(b)];
        bad |= v > max;
        *o = v;
    }
    !bad
}

/// Writes cells of any size in the text format (`.` for empty, `A` = 10), without
/// allocating. `out` must be as long as `cells`.
#[inline]
pub fn format_sized_into(cells: &[u8], out: &mut [u8]) {
    for (o, &v) in out.iter_mut().zip(cells) {
        *o = if v == 0 { b'.' } else { symbol(v) };
    }
}

/// The symbol of value `v` in 1..=25 (`SYMBOLS[v]`), computed rather than looked up
/// so that the row formatter's loops have no bounds check and vectorise.
#[inline(always)]
fn symbol(v: u8) -> u8 {
    b'0' + v + if v > 9 { b'A' - b'9' - 1 } else { 0 }
}

/// As [`format_sized_into`], with `0` for empty (the canonical-form convention).
#[inline]
pub fn format_sized_zeros_into(cells: &[u8], out: &mut [u8]) {
    for (o, &v) in out.iter_mut().zip(cells) {
        *o = if v == 0 { b'0' } else { symbol(v) };
    }
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

    fn board(text: &str, size: Size) -> Result<Vec<u8>, ParseError> {
        let mut out = vec![0; size.n_cells()];
        parse_board(text.as_bytes(), 7, size, &mut out).map(|()| out)
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2000))]
        /// The table-driven ASCII reading and the character reading agree on every
        /// line: the same cells, or the same error. Lines are drawn from the board's
        /// symbols with a few strangers (other letters, white space, a non-ASCII
        /// character), at about the board's length.
        #[test]
        fn the_fast_parse_agrees_with_the_character_parse(
            side in proptest::sample::select(vec![4usize, 9, 16, 25]),
            picks in proptest::collection::vec(0usize..64, 0..700),
            extra in 0usize..3,
        ) {
            let size = Size::from_side(side).unwrap();
            let alphabet: Vec<char> = ".0123456789ABCDEFGHIJKLMNOPabcdpz \t\u{b}\u{a0}é*"
                .chars()
                .collect();
            let mut line: String = picks
                .iter()
                .take(size.n_cells() + extra)
                .map(|&i| {
                    // Mostly symbols of this size, so that many lines are well formed.
                    if i < 48 { SYMBOLS[i % (side + 1)] as char } else { alphabet[i % alphabet.len()] }
                })
                .collect();
            if picks.first() == Some(&7) {
                line = format!("  {line}\r");
            }
            let (mut fast, mut slow) = (vec![9u8; size.n_cells()], vec![9u8; size.n_cells()]);
            let a = parse_sized(&line, 3, size, &mut fast);
            let b = parse_chars(&line, 3, size, &mut slow);
            proptest::prop_assert_eq!(a.is_ok(), b.is_ok(), "{:?}", line);
            match (a, b) {
                (Ok(()), Ok(())) => proptest::prop_assert_eq!(fast, slow),
                (Err(x), Err(y)) => proptest::prop_assert_eq!(x.to_string(), y.to_string()),
                _ => unreachable!(),
            }
        }

        /// The one-pass bitmask check and the search that names the repeat agree on
        /// every board of every size: sparse boards (mostly no repeat) and dense ones
        /// (mostly a repeat).
        #[test]
        fn the_fast_repeat_check_agrees_with_the_search(
            side in proptest::sample::select(vec![4usize, 9, 16, 25]),
            density in 0u32..100,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let size = Size::from_side(side).unwrap();
            let mut state = seed | 1;
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let cells: Vec<u8> = (0..size.n_cells())
                .map(|_| {
                    if (next() % 100) as u32 >= density / 4 {
                        0
                    } else {
                        (next() % side as u64) as u8 + 1
                    }
                })
                .collect();
            proptest::prop_assert_eq!(
                has_repeat(&cells, size),
                first_repeat(&cells, size).is_some()
            );
        }
    }

    #[test]
    fn computed_symbols_are_the_table() {
        for v in 1..=25u8 {
            assert_eq!(symbol(v), SYMBOLS[usize::from(v)], "value {v}");
        }
    }

    /// A line of `len` blank cells but for two givens, each (cell, symbol).
    fn two_givens(len: usize, a: (usize, u8), b: (usize, u8)) -> String {
        let mut line = vec![b'.'; len];
        line[a.0] = a.1;
        line[b.0] = b.1;
        String::from_utf8(line).expect("ASCII")
    }

    #[test]
    fn a_repeated_symbol_is_refused_naming_its_unit_and_columns() {
        let row = format!("  5..5{}", ".".repeat(77));
        assert_eq!(
            board(&row, Size::Nine).unwrap_err().to_string(),
            "line 7, columns 3 and 6: '5' repeats in row 1"
        );
        let col = two_givens(81, (4, b'8'), (76, b'8'));
        assert!(matches!(
            board(&col, Size::Nine),
            Err(ParseError::Repeated {
                unit: Unit::Column(5),
                first: 5,
                second: 77,
                ..
            })
        ));
        // Cells 0 and 10 (rows 1 and 2) share only box 1.
        let bx = two_givens(81, (0, b'3'), (10, b'3'));
        assert!(matches!(
            board(&bx, Size::Nine),
            Err(ParseError::Repeated {
                unit: Unit::Box(1),
                symbol: '3',
                ..
            })
        ));
        // 16x16: box 4 is the top-right one; lowercase 'g' is G = 16.
        let big = two_givens(256, (12, b'g'), (16 + 15, b'G'));
        assert!(matches!(
            board(&big, Size::Sixteen),
            Err(ParseError::Repeated {
                unit: Unit::Box(4),
                symbol: 'G',
                ..
            })
        ));
    }

    #[test]
    fn a_valid_board_of_every_size_passes_the_repeat_check() {
        for size in Size::ALL {
            let n = size.side();
            let b = size.box_side();
            // The pattern grid: (b·(r mod b) + r div b + c) mod n, plus one.
            let text: String = (0..n * n)
                .map(|i| {
                    let (r, c) = (i / n, i % n);
                    char::from(SYMBOLS[(b * (r % b) + r / b + c) % n + 1])
                })
                .collect();
            assert_eq!(find_repeat(&board(&text, size).unwrap(), size), None);
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_a_malformed_line() {
        let mut bytes = b"12".to_vec();
        bytes.push(0xff);
        bytes.extend(std::iter::repeat_n(b'.', 78));
        let mut out = [0u8; 81];
        assert_eq!(
            parse_board(&bytes, 2, Size::Nine, &mut out),
            Err(ParseError::NotUtf8 {
                line: 2,
                column: 3,
                byte: 0xff
            })
        );
    }

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
        // A blank line (whitespace only) is named as one, for every size.
        let err = parse_line(" \t", 4).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 4 is blank: expected a puzzle of 81 cells (one per line, no blank lines)"
        );
        let mut cells = [0u8; 256];
        let err = parse_sized("", 5, Size::Sixteen, &mut cells).unwrap_err();
        assert_eq!(
            err,
            ParseError::Blank {
                line: 5,
                expected: 256
            }
        );
    }

    /// A whole board of another size is named as one, whatever its first odd symbol
    /// or its length would have said; a line that is no board of any size is not.
    #[test]
    fn a_board_of_another_size_is_named_as_such() {
        let sixteen = format!("G{}", ".".repeat(255));
        let four = format!("1.{}4.", ".".repeat(12));
        let cases = [
            (&sixteen, Size::Nine, Some((256, Size::Sixteen))),
            (&four, Size::Nine, Some((16, Size::Four))),
            (&PUZZLE.to_string(), Size::Four, Some((81, Size::Nine))),
            (&PUZZLE.to_string(), Size::Sixteen, Some((81, Size::Nine))),
            // 'H' is no 16x16 symbol; 17 cells are no board.
            (&format!("H{}", ".".repeat(255)), Size::Nine, None),
            (&".".repeat(17), Size::Nine, None),
        ];
        for (line, expected, other) in cases {
            let mut out = vec![0u8; expected.n_cells()];
            let err = parse_board(line.as_bytes(), 4, expected, &mut out).unwrap_err();
            match other {
                Some((cells, found)) => assert_eq!(
                    err,
                    ParseError::OtherSize {
                        line: 4,
                        cells,
                        found,
                        expected
                    }
                ),
                None => assert!(
                    !matches!(err, ParseError::OtherSize { .. }),
                    "{line}: {err}"
                ),
            }
        }
        let mut out = [0u8; 81];
        let err = parse_board(sixteen.as_bytes(), 2, Size::Nine, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: 256 cells make a 16x16 board, not 9x9"
        );
    }

    /// Regression: characters were shown in Rust's debug form (`'\u{feff}'`, `'\''`).
    #[test]
    fn unseen_characters_are_named_by_code_point() {
        let msg = |ch: char| {
            let line = format!("{ch}{}", &PUZZLE[1..]);
            parse_line(&line, 1).unwrap_err().to_string()
        };
        assert!(
            msg('\u{feff}').contains("U+FEFF (a byte-order mark"),
            "{}",
            msg('\u{feff}')
        );
        assert!(
            msg('\u{1}').contains("character U+0001 ("),
            "{}",
            msg('\u{1}')
        );
        assert!(
            msg('\u{7f}').contains("character U+007F ("),
            "{}",
            msg('\u{7f}')
        );
        assert!(msg('\'').contains(r#"character "'" ("#), "{}", msg('\''));
        assert!(msg('\\').contains(r"character '\' ("), "{}", msg('\\'));
        assert!(msg('é').contains("character 'é' ("), "{}", msg('é'));
    }

    #[test]
    fn every_size_round_trips_its_symbols_and_names_bad_ones() {
        for size in Size::ALL {
            let n = size.side();
            // Row-major values 0..=N repeating: every symbol and the empty cell.
            let cells: Vec<u8> = (0..size.n_cells()).map(|i| (i % (n + 1)) as u8).collect();
            let mut text = vec![0u8; cells.len()];
            format_sized_into(&cells, &mut text);
            let text = String::from_utf8(text).unwrap();
            let mut back = vec![0u8; cells.len()];
            parse_sized(&text, 1, size, &mut back).unwrap();
            assert_eq!(back, cells, "{size}");
            parse_sized(&text.to_lowercase(), 1, size, &mut back).unwrap();
            assert_eq!(back, cells, "{size}: lowercase is accepted");
            assert_eq!(Size::from_side(n), Some(size));
        }
        let mut out = [0u8; 16];
        let err = parse_sized("1234341221434325", 7, Size::Four, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 7, column 16: unexpected character '5' (expected 1-4, '.' or '0')"
        );
        let mut out = [0u8; 256];
        let line = format!("{}H", ".".repeat(255));
        let err = parse_sized(&line, 2, Size::Sixteen, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2, column 256: unexpected character 'H' (expected 1-9, A-G, '.' or '0')"
        );
        let mut nine = [0u8; 81];
        parse_sized(PUZZLE, 1, Size::Nine, &mut nine).unwrap();
        assert_eq!(nine, parse_line(PUZZLE, 1).unwrap());
    }

    #[test]
    fn consistency_spots_a_repeated_digit() {
        let mut cells = parse_line(PUZZLE, 1).unwrap();
        assert!(is_consistent(&cells));
        cells[0] = 9; // row 0 already has a 9 at column 2
        assert!(!is_consistent(&cells));
    }
}
