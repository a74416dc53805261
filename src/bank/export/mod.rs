//! `export`'s formats, as pure functions over the raw CSV fields of a bank's rows: the
//! [`Schema`] read from a shard's header (every column the bank has, typed by name),
//! the row filter ([`Filter`]: bands, one row per canonical form, a limit), the SQLite
//! table and its statements, and the JSON Lines and `quizzes,solutions` row encoders.
//! The formats do no I/O: [`stream`] reads the shards and writes the streamed formats, and
//! `sqlite` loads the database; the formats only say what goes into them.
//!
//! Columns are found by header name (DESIGN.md: more may be added at the end), so a
//! column this version does not know — `rating` and `technique` before they existed,
//! anything later — passes through as text. Rows are encoded into a reused buffer:
//! nothing is allocated per row (the export's hot loop).

mod parquet;
mod rows;
mod sqlite;
pub mod stream;

use std::collections::HashSet;
use std::path::Path;

pub use rows::Request;
pub use stream::{export, Destination, Exported};

use crate::bank::format::canonical_key;
use crate::bank::reader::Fields;
use crate::engine::grid::Size;

/// The schema version of an exported SQLite file (`PRAGMA user_version`): bumped when
/// the `puzzles` or `meta` tables change shape.
pub const SQLITE_USER_VERSION: u32 = 1;

/// The connection settings of the bulk load, in order (`PRAGMA name = value`). A load
/// into a file nobody else sees yet: no journal, no fsync per commit (the finished
/// file is fsynced before its rename); pages of 16 KiB instead of 4 (a quarter of the
/// page-cache work per row: 2.0 s of CPU instead of 2.5 on 1M rows; 64 KiB was faster
/// into memory but slower onto disk, 1.4-1.9 s against 1.2-1.3); a page cache of
/// 16 MiB, which also bounds the sorter of the index builds (more did not speed them
/// up). Every row is checked by [`Schema::field`] against the rules the table's CHECK
/// constraints state (board lengths, clue range, non-negative integers), so the load
/// skips evaluating them a second time (`length()` scans each board: 0.2 s of 1M
/// rows); the pragma is the connection's, the constraints stay in the schema.
pub const SQLITE_LOAD_PRAGMAS: [(&str, &str); 6] = [
    ("journal_mode", "OFF"),
    ("synchronous", "OFF"),
    ("locking_mode", "EXCLUSIVE"),
    ("page_size", "16384"),
    ("cache_size", "-16384"),
    ("ignore_check_constraints", "ON"),
];

/// The indexes, created after the load (one sort each instead of a B-tree update per
/// row): the app's query by band in id order, and lookups by canonical form.
pub const SQLITE_INDEXES: [&str; 2] = [
    "CREATE INDEX puzzles_difficulty_id ON puzzles (difficulty, id)",
    "CREATE INDEX puzzles_canonical ON puzzles (canonical)",
];

/// An output format of `export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A SQLite database: tables `puzzles` and `meta`.
    Sqlite,
    /// One JSON object per row.
    Jsonl,
    /// The public 9×9 datasets' `quizzes,solutions` CSV, `0` for an empty cell.
    CsvKaggle,
    /// Plain CSV with the bank's own header (optionally zstd-compressed).
    Csv,
    /// The Sudoku Exchange puzzle bank's 100-byte lines ([`Schema::write_exchange`]).
    SudokuExchange,
    /// The OpenSudoku app's XML import file: the streamed part is its `<game>`
    /// elements ([`Schema::write_opensudoku`]); `export` wraps them in folders.
    OpenSudoku,
    /// Apache Parquet: typed columns, zstd row groups, the manifest as metadata.
    Parquet,
}

/// The Sudoku Exchange puzzle bank's files and the SE ratings they hold (below
/// each bound, in tenths; the last one takes the rest), as that bank splits them.
pub const EXCHANGE_FILES: [(&str, u16); 4] = [
    ("easy.txt", 15),
    ("medium.txt", 25),
    ("hard.txt", 50),
    ("diabolical.txt", u16::MAX),
];

impl Format {
    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Sqlite => "sqlite",
            Format::Jsonl => "jsonl",
            Format::CsvKaggle => "csv-kaggle",
            Format::Csv => "csv",
            Format::SudokuExchange => "sudoku-exchange",
            Format::OpenSudoku => "opensudoku",
            Format::Parquet => "parquet",
        }
    }

    /// The format a file name implies, and whether it asks for zstd: `.sqlite`/`.db`,
    /// `.jsonl`, `.opensudoku`, `.parquet`, `.csv`, `.csv.zst` (case-insensitive); `None` for
    /// anything else.
    pub fn infer(path: &Path) -> Option<(Format, bool)> {
        // Lossy: a name that is not UTF-8 still has the extension it has.
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        if name.ends_with(".sqlite") || name.ends_with(".db") || name.ends_with(".sqlite3") {
            Some((Format::Sqlite, false))
        } else if name.ends_with(".jsonl") {
            Some((Format::Jsonl, false))
        } else if name.ends_with(".opensudoku") {
            Some((Format::OpenSudoku, false))
        } else if name.ends_with(".parquet") {
            Some((Format::Parquet, false))
        } else if name.ends_with(".csv.zst") {
            Some((Format::Csv, true))
        } else if name.ends_with(".csv") {
            Some((Format::Csv, false))
        } else {
            None
        }
    }
}

/// What a column holds, which decides its SQLite type, its check and its JSON form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A non-negative integer (`id`, `clues`): a JSON number, an SQLite INTEGER.
    Integer,
    /// A decimal number (`rating`): a JSON number, an SQLite REAL.
    Real,
    /// A board in the text format (`puzzle`, `solution`, `canonical`): exactly one
    /// character per cell, checked in SQLite.
    Cells,
    /// Anything else: text.
    Text,
}

/// One column of the bank, as the header names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
    /// An empty field is an error (otherwise it is NULL / `null`).
    pub required: bool,
    /// The largest value of an integer column (`clues`: the board's cell count).
    pub max: Option<u64>,
}

/// Why a bank's header or one of its rows cannot be exported. Messages say what is
/// wrong; the command adds the file and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("column {0:?} appears twice in the header")]
    DuplicateColumn(String),
    #[error("the header is not UTF-8")]
    HeaderNotUtf8,
    #[error("expected {expected} fields as in the header, found {found}")]
    FieldCount { expected: usize, found: usize },
    #[error("{column}: {reason}")]
    Field { column: String, reason: String },
    #[error("csv-kaggle is the public 9x9 layout (81 digits, 0 for empty); a {0} bank does not fit it: export it as csv or jsonl")]
    KaggleSize(Size),
    #[error("the Sudoku Exchange layout is 9x9 (81 digits) with an SE rating; a {0} bank does not fit it: export it as csv or jsonl")]
    ExchangeSize(Size),
    #[error("the Sudoku Exchange layout needs each puzzle's SE rating, and this row has none (a bank made with --no-rating has no ratings: generate it again without it)")]
    ExchangeUnrated,
    #[error("the OpenSudoku app plays 9x9 puzzles (81 digits); a {0} bank does not fit it: export it as csv or jsonl")]
    OpenSudokuSize(Size),
}

/// The columns of a bank (from a shard's header) and how to export them.
#[derive(Clone, Debug)]
pub struct Schema {
    pub columns: Vec<Column>,
    pub size: Size,
    difficulty: usize,
    puzzle: usize,
    solution: usize,
    canonical: usize,
    /// The `rating` column, when the bank has one.
    rating: Option<usize>,
}

/// One field, checked and typed; text borrows the record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Field<'a> {
    Null,
    Integer(i64),
    /// The value and its text as written (copied into JSON as it is).
    Real(f64, &'a [u8]),
    /// Text, checked to be UTF-8.
    Text(&'a [u8]),
}

impl Schema {
    /// The schema of a bank of `size` whose shards start with `header` (which the
    /// reader has checked to start with the known columns).
    pub fn from_header(header: &csv::ByteRecord, size: Size) -> Result<Schema, ExportError> {
        let mut columns: Vec<Column> = Vec::with_capacity(header.len());
        for raw in header.iter() {
            let name = std::str::from_utf8(raw).map_err(|_| ExportError::HeaderNotUtf8)?;
            if columns.iter().any(|c| c.name == name) {
                return Err(ExportError::DuplicateColumn(name.to_string()));
            }
            let (kind, required) = match name {
                "id" | "clues" => (Kind::Integer, true),
                "puzzle" | "solution" => (Kind::Cells, true),
                "canonical" => (Kind::Cells, false),
                "difficulty" => (Kind::Text, true),
                "rating" => (Kind::Real, false),
                _ => (Kind::Text, false),
            };
            let max = (name == "clues").then_some(size.n_cells() as u64);
            columns.push(Column {
                name: name.to_string(),
                kind,
                required,
                max,
            });
        }
        let find = |want: &str| {
            columns
                .iter()
                .position(|c| c.name == want)
                .ok_or_else(|| ExportError::Field {
                    column: want.to_string(),
                    reason: "missing from the header".to_string(),
                })
        };
        Ok(Schema {
            difficulty: find("difficulty")?,
            puzzle: find("puzzle")?,
            solution: find("solution")?,
            canonical: find("canonical")?,
            rating: columns.iter().position(|c| c.name == "rating"),
            columns,
            size,
        })
    }

    /// Field `i` of `record`, checked against its column: UTF-8, a number where one is
    /// due, one character per cell for boards. Allocates only on error.
    #[inline]
    pub fn field<'a>(&self, record: &'a impl Fields, i: usize) -> Result<Field<'a>, ExportError> {
        let column = &self.columns[i];
        let raw = record.get(i).unwrap_or_default();
        let fail = |reason: String| ExportError::Field {
            column: column.name.clone(),
            reason,
        };
        if raw.is_empty() {
            return if column.required {
                Err(fail("empty".to_string()))
            } else {
                Ok(Field::Null)
            };
        }
        if column.kind == Kind::Cells {
            // The hot check (three boards a row): one branch-free pass over the bytes
            // that the compiler vectorises, and no UTF-8 validation (ASCII is UTF-8).
            if raw.len() == self.size.n_cells() && raw.iter().fold(true, |ok, &b| ok & is_cell(b)) {
                return Ok(Field::Text(raw));
            }
            return Err(fail(format!(
                "expected {} cells (1-9, A-Z, '.' or '0'), found {:?}",
                self.size.n_cells(),
                String::from_utf8_lossy(raw)
            )));
        }
        // Numbers are checked on the bytes (ASCII digits are UTF-8): two of a row's
        // fields, parsed without a UTF-8 pass or the general float parser.
        let lossy = || String::from_utf8_lossy(raw);
        match column.kind {
            Kind::Integer => {
                // As `str::parse::<u64>`: digits, with an optional leading `+`.
                let digits = raw.strip_prefix(b"+").unwrap_or(raw);
                let n = (!digits.is_empty())
                    .then(|| {
                        digits.iter().try_fold(0i64, |n, &b| {
                            let digit = b.wrapping_sub(b'0');
                            (digit < 10)
                                .then(|| n.checked_mul(10)?.checked_add(i64::from(digit)))
                                .flatten()
                        })
                    })
                    .flatten()
                    .ok_or_else(|| fail(format!("{:?} is not a non-negative integer", lossy())))?;
                match column.max {
                    Some(max) if n as u64 > max => Err(fail(format!("{n} is more than {max}"))),
                    _ => Ok(Field::Integer(n)),
                }
            }
            Kind::Real => {
                // The plain decimal grammar (digits without a leading zero, an
                // optional fraction) is valid JSON as it is, so the text can be copied
                // instead of reformatted.
                plain_decimal(raw)
                    .map(|v| Field::Real(v, raw))
                    .ok_or_else(|| fail(format!("{:?} is not a decimal number", lossy())))
            }
            Kind::Text => std::str::from_utf8(raw)
                .map(|_| Field::Text(raw))
                .map_err(|_| fail("not UTF-8".to_string())),
            Kind::Cells => unreachable!("boards are checked above"),
        }
    }

    /// Checks that `record` has the header's field count.
    pub fn check_len(&self, record: &impl Fields) -> Result<(), ExportError> {
        if record.len() == self.columns.len() {
            Ok(())
        } else {
            Err(ExportError::FieldCount {
                expected: self.columns.len(),
                found: record.len(),
            })
        }
    }

    /// `CREATE TABLE puzzles (...)`: `id INTEGER PRIMARY KEY` and every other column
    /// with its type, NOT NULL where required, and a length check on boards.
    pub fn create_table_sql(&self) -> String {
        let n = self.size.n_cells();
        let mut sql = String::from("CREATE TABLE puzzles (\n");
        for (i, c) in self.columns.iter().enumerate() {
            let name = quote_ident(&c.name);
            let mut def = match (c.name.as_str(), c.kind) {
                ("id", _) => format!("{name} INTEGER PRIMARY KEY"),
                (_, Kind::Integer) => format!("{name} INTEGER"),
                (_, Kind::Real) => format!("{name} REAL"),
                (_, Kind::Cells | Kind::Text) => format!("{name} TEXT"),
            };
            if c.required && c.name != "id" {
                def += " NOT NULL";
            }
            // The same constraints as [`Schema::field`] checks, so a row that passes
            // it passes these (the bulk load relies on that to skip them).
            match (c.kind, c.max) {
                (Kind::Integer, Some(max)) => {
                    def += &format!(" CHECK ({name} BETWEEN 0 AND {max})")
                }
                (Kind::Cells, _) => def += &format!(" CHECK (length({name}) = {n})"),
                (Kind::Integer, None) => def += &format!(" CHECK ({name} >= 0)"),
                _ => {}
            }
            if i + 1 < self.columns.len() {
                def.push(',');
            }
            sql += &format!("  {def}\n");
        }
        sql.push(')');
        sql
    }

    /// `INSERT INTO puzzles VALUES (?1, ...)` in header order.
    pub fn insert_sql(&self) -> String {
        let marks: Vec<String> = (1..=self.columns.len()).map(|i| format!("?{i}")).collect();
        format!("INSERT INTO puzzles VALUES ({})", marks.join(", "))
    }

    /// The header of the JSON Lines keys: `"name":` for each column, made once.
    pub fn json_keys(&self) -> Vec<Vec<u8>> {
        self.columns
            .iter()
            .map(|c| {
                let mut key = serde_json::to_vec(&c.name).expect("a string serialises");
                key.push(b':');
                key
            })
            .collect()
    }

    /// Appends `record` as one JSON object and a newline: numbers as numbers, empty
    /// optional fields as `null`. `keys` comes from [`Schema::json_keys`].
    pub fn write_json(
        &self,
        record: &impl Fields,
        keys: &[Vec<u8>],
        out: &mut Vec<u8>,
    ) -> Result<(), ExportError> {
        self.check_len(record)?;
        let mut num = itoa::Buffer::new();
        out.push(b'{');
        for (i, key) in keys.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(key);
            match self.field(record, i)? {
                Field::Null => out.extend_from_slice(b"null"),
                Field::Integer(n) => out.extend_from_slice(num.format(n).as_bytes()),
                Field::Real(_, text) => out.extend_from_slice(text),
                // Board characters need no escape (`Schema::field` checked them).
                Field::Text(text) if self.columns[i].kind == Kind::Cells => {
                    out.push(b'"');
                    out.extend_from_slice(text);
                    out.push(b'"');
                }
                Field::Text(text) => write_json_str(text, out),
            }
        }
        out.extend_from_slice(b"}\n");
        Ok(())
    }

    /// Appends `record` as a `quizzes,solutions` row: 81 digits each, `0` for empty.
    pub fn write_kaggle(&self, record: &impl Fields, out: &mut Vec<u8>) -> Result<(), ExportError> {
        if self.size != Size::Nine {
            return Err(ExportError::KaggleSize(self.size));
        }
        self.check_len(record)?;
        for (n, i) in [self.puzzle, self.solution].into_iter().enumerate() {
            let Field::Text(cells) = self.field(record, i)? else {
                unreachable!("a required board column is text");
            };
            if n > 0 {
                out.push(b',');
            }
            out.extend(cells.iter().map(|&b| if b == b'.' { b'0' } else { b }));
        }
        out.push(b'\n');
        Ok(())
    }

    /// Appends `record` as a line of the Sudoku Exchange puzzle bank: 12 hex digits of
    /// the SHA-1 of the puzzle's digits, a space, the 81 digits (`0` for empty), a
    /// space, the SE rating right-aligned in 4 characters (`nn.n`), a newline: 100
    /// bytes. Returns the rating in tenths (which of [`EXCHANGE_FILES`] it goes to).
    pub fn write_exchange(
        &self,
        record: &impl Fields,
        out: &mut Vec<u8>,
    ) -> Result<u16, ExportError> {
        use sha1::{Digest, Sha1};
        if self.size != Size::Nine {
            return Err(ExportError::ExchangeSize(self.size));
        }
        self.check_len(record)?;
        let rating = match self.rating.map(|i| self.field(record, i)).transpose()? {
            Some(Field::Real(value, text)) => (value, text),
            _ => return Err(ExportError::ExchangeUnrated),
        };
        let Field::Text(cells) = self.field(record, self.puzzle)? else {
            unreachable!("a required board column is text");
        };
        let mut digits = [0u8; 81];
        for (d, &c) in digits.iter_mut().zip(cells) {
            *d = if c == b'.' { b'0' } else { c };
        }
        let tenths = (rating.0 * 10.0).round();
        if !(0.0..1000.0).contains(&tenths) || rating.1.len() > 4 {
            return Err(ExportError::Field {
                column: "rating".to_string(),
                reason: format!(
                    "{:?} does not fit the layout's nn.n",
                    String::from_utf8_lossy(rating.1)
                ),
            });
        }
        // Written byte by byte: nothing allocated per row.
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let hash = Sha1::digest(digits);
        for byte in &hash[..6] {
            out.extend_from_slice(&[HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 15)]]);
        }
        out.push(b' ');
        out.extend_from_slice(&digits);
        let tenths = tenths as u16;
        let (whole, tenth) = ((tenths / 10) as u8, (tenths % 10) as u8);
        let tens = if whole >= 10 { b'0' + whole / 10 } else { b' ' };
        out.extend_from_slice(&[b' ', tens, b'0' + whole % 10, b'.', b'0' + tenth, b'\n']);
        Ok(tenths)
    }

    /// Appends `record` as an OpenSudoku `<game>` element on its own line: the
    /// puzzle's 81 digits (`0` for empty) in its `data` attribute.
    pub fn write_opensudoku(
        &self,
        record: &impl Fields,
        out: &mut Vec<u8>,
    ) -> Result<(), ExportError> {
        if self.size != Size::Nine {
            return Err(ExportError::OpenSudokuSize(self.size));
        }
        self.check_len(record)?;
        let Field::Text(cells) = self.field(record, self.puzzle)? else {
            unreachable!("a required board column is text");
        };
        out.extend_from_slice(b"    <game data=\"");
        out.extend(cells.iter().map(|&b| if b == b'.' { b'0' } else { b }));
        out.extend_from_slice(b"\"/>\n");
        Ok(())
    }

    /// Checks every field of `record` (for formats that copy it as it is).
    pub fn check(&self, record: &impl Fields) -> Result<(), ExportError> {
        self.check_len(record)?;
        for i in 0..self.columns.len() {
            self.field(record, i)?;
        }
        Ok(())
    }
}

/// The value of `raw` when it is a plain decimal (digits without a leading zero, an
/// optional `.` and digits), else `None`. The value is `str::parse::<f64>`'s: up to
/// 15 digits the digits and the power of ten are exact doubles and IEEE division
/// rounds their quotient correctly, as the parser rounds the decimal; longer texts
/// go to the parser.
fn plain_decimal(raw: &[u8]) -> Option<f64> {
    let (int, frac) = match raw.iter().position(|&b| b == b'.') {
        Some(dot) => (&raw[..dot], &raw[dot + 1..]),
        None => (raw, &b"0"[..]),
    };
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    if !(digits(int) && digits(frac) && (int == b"0" || int[0] != b'0')) {
        return None;
    }
    if int.len() + frac.len() <= 15 {
        let whole = |s: &[u8]| s.iter().fold(0u64, |n, &b| 10 * n + u64::from(b - b'0'));
        let scale = 10u64.pow(frac.len() as u32);
        return Some((whole(int) * scale + whole(frac)) as f64 / scale as f64);
    }
    std::str::from_utf8(raw).ok()?.parse().ok()
}

/// A character of a board's text: `1`-`9`, a letter, `.` or `0`. Branch-free, so a
/// fold over a board vectorises.
#[inline]
fn is_cell(b: u8) -> bool {
    (b.wrapping_sub(b'0') < 10) | ((b | 0x20).wrapping_sub(b'a') < 26) | (b == b'.')
}

/// Appends UTF-8 `text` as a JSON string (quotes and escapes by serde_json's rules).
fn write_json_str(text: &[u8], out: &mut Vec<u8>) {
    // Board text and band names need no escape: copy them. Anything else goes through
    // serde_json, which escapes quotes, backslashes and control characters.
    if text
        .iter()
        .fold(true, |ok, &b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'))
    {
        out.push(b'"');
        out.extend_from_slice(text);
        out.push(b'"');
    } else {
        let text = std::str::from_utf8(text).expect("Field::Text is checked UTF-8");
        serde_json::to_writer(&mut *out, text).expect("writing to a Vec cannot fail");
    }
}

/// An SQL identifier in double quotes (a column name from a header may be anything).
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Which rows an export keeps, in bank order.
#[derive(Debug, Default)]
pub struct Filter {
    /// Keep only these bands (empty: all).
    pub difficulty: Vec<String>,
    /// Keep the first row of each canonical form: the 128-bit hashes of the forms
    /// seen (16 bytes per class, never the rows).
    pub one_per_class: Option<HashSet<u128>>,
    /// Stop after this many rows.
    pub limit: Option<u64>,
    /// Rows kept so far.
    pub kept: u64,
}

impl Filter {
    /// True once `limit` rows were kept: nothing more needs reading.
    pub fn full(&self) -> bool {
        self.limit.is_some_and(|l| self.kept >= l)
    }

    /// Whether to export `record` (counted as kept when true). A row without a
    /// canonical form is its own class, keyed by its puzzle.
    pub fn keep(&mut self, schema: &Schema, record: &impl Fields) -> bool {
        if self.full() {
            return false;
        }
        if !self.difficulty.is_empty() {
            let band = record.get(schema.difficulty).unwrap_or_default();
            if !self.difficulty.iter().any(|d| d.as_bytes() == band) {
                return false;
            }
        }
        if let Some(seen) = &mut self.one_per_class {
            let canonical = record.get(schema.canonical).unwrap_or_default();
            let key = if canonical.is_empty() {
                // Kept apart from forms: a puzzle's text has '.', a form has '0'.
                canonical_key(record.get(schema.puzzle).unwrap_or_default())
            } else {
                canonical_key(canonical)
            };
            if !seen.insert(key) {
                return false;
            }
        }
        self.kept += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::format::{COLUMNS, REQUIRED_COLUMNS};

    /// Regression: a FILE whose name is not UTF-8 had no extension to infer from.
    #[cfg(unix)]
    #[test]
    fn the_format_comes_from_a_non_utf8_names_extension() {
        use std::os::unix::ffi::OsStrExt;
        let name = |bytes: &[u8]| std::path::PathBuf::from(std::ffi::OsStr::from_bytes(bytes));
        assert_eq!(
            Format::infer(&name(b"o\xff.jsonl")),
            Some((Format::Jsonl, false))
        );
        assert_eq!(
            Format::infer(&name(b"\xfe.csv.zst")),
            Some((Format::Csv, true))
        );
        assert_eq!(Format::infer(&name(b"o\xff")), None);
    }

    const PUZZLE: &str =
        "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";
    const SOLUTION: &str =
        "123456789456789123789123456214365897365897214897214365531642978642978531978531642";

    fn record(fields: &[&str]) -> csv::ByteRecord {
        csv::ByteRecord::from(fields.to_vec())
    }

    fn schema(extra: &[&str]) -> Schema {
        // The columns every bank has (banks before the rating stop there).
        let mut header = COLUMNS[..REQUIRED_COLUMNS].to_vec();
        header.extend_from_slice(extra);
        Schema::from_header(&record(&header), Size::Nine).unwrap()
    }

    #[test]
    fn formats_come_from_the_extension() {
        let f = |name: &str| Format::infer(Path::new(name));
        assert_eq!(f("out/a.sqlite"), Some((Format::Sqlite, false)));
        assert_eq!(f("a.DB"), Some((Format::Sqlite, false)));
        assert_eq!(f("a.jsonl"), Some((Format::Jsonl, false)));
        assert_eq!(f("a.csv"), Some((Format::Csv, false)));
        assert_eq!(f("a.csv.zst"), Some((Format::Csv, true)));
        assert_eq!(f("a.Parquet"), Some((Format::Parquet, false)));
        assert_eq!(f("a.opensudoku"), Some((Format::OpenSudoku, false)));
        assert_eq!(f("a.avro"), None);
        assert_eq!(f("noext"), None);
    }

    #[test]
    fn json_has_numbers_as_numbers_and_passes_unknown_columns_through() {
        let s = schema(&["rating", "technique", "future"]);
        let keys = s.json_keys();
        let mut out = Vec::new();
        let rec = record(&[
            "7", PUZZLE, SOLUTION, "26", "hard", "", "4.2", "xy-wing", "a\"b",
        ]);
        s.write_json(&rec, &keys, &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["clues"], 26);
        assert_eq!(v["rating"], 4.2);
        assert_eq!(v["canonical"], serde_json::Value::Null);
        assert_eq!(v["technique"], "xy-wing");
        assert_eq!(v["future"], "a\"b");
        assert_eq!(v["puzzle"], PUZZLE);
        assert!(out.ends_with(b"}\n"));
    }

    #[test]
    fn bad_fields_name_their_column() {
        let s = schema(&["rating"]);
        let keys = s.json_keys();
        let mut out = Vec::new();
        let bad_clues = record(&["1", PUZZLE, SOLUTION, "2x", "hard", "", ""]);
        let e = s.write_json(&bad_clues, &keys, &mut out).unwrap_err();
        assert_eq!(e.to_string(), "clues: \"2x\" is not a non-negative integer");
        let short = record(&["1", &PUZZLE[1..], SOLUTION, "26", "hard", "", ""]);
        assert!(s
            .check(&short)
            .unwrap_err()
            .to_string()
            .starts_with("puzzle: expected 81 cells"));
        for bad in ["1e3", "07.5", "-1.0", ".5", "4."] {
            let rating = record(&["1", PUZZLE, SOLUTION, "26", "hard", "", bad]);
            assert!(s.check(&rating).is_err(), "{bad}");
        }
        let too_many = record(&["1", PUZZLE, SOLUTION, "82", "hard", "", ""]);
        assert_eq!(
            s.check(&too_many).unwrap_err().to_string(),
            "clues: 82 is more than 81"
        );
        let rating = record(&["1", PUZZLE, SOLUTION, "26", "hard", "", "0.5"]);
        assert_eq!(s.field(&rating, 6), Ok(Field::Real(0.5, &b"0.5"[..])));
        let few = record(&["1", PUZZLE]);
        assert_eq!(
            s.check(&few).unwrap_err(),
            ExportError::FieldCount {
                expected: 7,
                found: 2
            }
        );
    }

    proptest::proptest! {
        /// The numbers read on the bytes are the standard parsers' values, and
        /// accepted exactly where the grammar allows (any text, so most are refused).
        #[test]
        fn numbers_are_parsed_as_the_standard_parsers_do(
            text in "[+0-9.]{0,24}|[0-9]{1,8}[.][0-9]{1,8}|[1-9][0-9]{10,20}[.][0-9]{0,9}",
        ) {
            proptest::prop_assume!(!text.is_empty(), "an empty field is null or an error");
            let s = schema(&["rating"]);
            let std_int = text
                .parse::<u64>()
                .ok()
                .and_then(|n| i64::try_from(n).ok())
                .filter(|&n| n <= 81);
            let clues = record(&["1", PUZZLE, SOLUTION, &text, "hard", "", ""]);
            proptest::prop_assert_eq!(s.field(&clues, 3).ok(), std_int.map(Field::Integer));
            let (int, frac) = text.split_once('.').unwrap_or((&text, "0"));
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            let plain = digits(int) && digits(frac) && (int == "0" || !int.starts_with('0'));
            let std_real = text.parse::<f64>().ok().filter(|_| plain);
            let rating = record(&["1", PUZZLE, SOLUTION, "26", "hard", "", &text]);
            let want = std_real.map(|v| Field::Real(v, text.as_bytes()));
            proptest::prop_assert_eq!(s.field(&rating, 6).ok(), want);
        }
    }

    #[test]
    fn kaggle_rows_use_zeros_and_refuse_other_sizes() {
        let s = schema(&[]);
        let mut out = Vec::new();
        s.write_kaggle(
            &record(&["1", PUZZLE, SOLUTION, "26", "hard", ""]),
            &mut out,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("{},{SOLUTION}\n", PUZZLE.replace('.', "0"))
        );
        let header = record(&COLUMNS[..REQUIRED_COLUMNS]);
        let big = Schema::from_header(&header, Size::Sixteen).unwrap();
        let row = record(&["1", &"1".repeat(256), &"1".repeat(256), "256", "easy", ""]);
        assert!(matches!(
            big.write_kaggle(&row, &mut Vec::new()),
            Err(ExportError::KaggleSize(Size::Sixteen))
        ));
    }

    #[test]
    fn the_table_types_and_checks_every_column() {
        let sql = schema(&["rating", "technique"]).create_table_sql();
        assert!(
            sql.contains("\"id\" INTEGER PRIMARY KEY CHECK (\"id\" >= 0),"),
            "{sql}"
        );
        assert!(
            sql.contains("\"puzzle\" TEXT NOT NULL CHECK (length(\"puzzle\") = 81)"),
            "{sql}"
        );
        assert!(
            sql.contains("\"canonical\" TEXT CHECK (length(\"canonical\") = 81)"),
            "{sql}"
        );
        assert!(
            sql.contains("\"clues\" INTEGER NOT NULL CHECK (\"clues\" BETWEEN 0 AND 81)"),
            "{sql}"
        );
        assert!(sql.contains("\"rating\" REAL,"), "{sql}");
        assert!(sql.contains("\"technique\" TEXT\n"), "{sql}");
        assert_eq!(
            schema(&[]).insert_sql(),
            "INSERT INTO puzzles VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
        );
        let dup = record(&[&COLUMNS[..REQUIRED_COLUMNS], &["id"]].concat());
        assert_eq!(
            Schema::from_header(&dup, Size::Nine).unwrap_err(),
            ExportError::DuplicateColumn("id".into())
        );
    }

    #[test]
    fn the_filter_keeps_bands_first_of_class_and_a_limit() {
        let s = schema(&[]);
        let form = "0".repeat(81);
        let other = format!("{}1", "0".repeat(80));
        let rows = [
            record(&["0", PUZZLE, SOLUTION, "26", "hard", &form]),
            record(&["1", PUZZLE, SOLUTION, "26", "hard", &form]),
            record(&["2", PUZZLE, SOLUTION, "36", "easy", &other]),
            record(&["3", PUZZLE, SOLUTION, "26", "hard", &other]),
            record(&["4", PUZZLE, SOLUTION, "26", "hard", ""]),
        ];
        let kept = |mut f: Filter| -> Vec<usize> {
            (0..rows.len()).filter(|&i| f.keep(&s, &rows[i])).collect()
        };
        assert_eq!(kept(Filter::default()), [0, 1, 2, 3, 4]);
        let hard = || Filter {
            difficulty: vec!["hard".into()],
            ..Filter::default()
        };
        assert_eq!(kept(hard()), [0, 1, 3, 4]);
        let classes = Filter {
            one_per_class: Some(HashSet::new()),
            ..hard()
        };
        assert_eq!(kept(classes), [0, 3, 4]);
        let limit = Filter {
            limit: Some(2),
            ..Filter::default()
        };
        assert_eq!(kept(limit), [0, 1]);
    }
}
