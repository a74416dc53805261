//! `import`: anyone's puzzle files into a bank. Each puzzle is solved (rejected, by
//! line, when it has no or several solutions), canonicalised, deduplicated by
//! canonical class against everything imported before it, rated, graded by a band
//! table and written as rows of an ordinary bank, ids in input order: `verify`,
//! `stats`, `render`, `export` and `merge` read it like a generated one.
//!
//! Sources are read in order, a chunk of [`CHUNK`] puzzles at a time; a chunk is
//! solved and rated in parallel, then deduplicated and numbered on one thread, and
//! its rows are cut into frames by id alone (at multiples of [`BLOCK_ROWS`] and at
//! shard boundaries). So the bytes do not depend on the thread count, and memory
//! holds one chunk, a few frames and one 16-byte key per canonical class kept.

use std::collections::HashSet;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::bank::format::{self, ImportSource, Manifest, Params, RowOut, BLOCK_ROWS};
use crate::bank::reader::{digest_file, open_file, open_hashing, Digest, HashingFile, SourceFile};
use crate::bank::sink::{self, BankWriter, FrameEncoder, FrameSender, SinkConfig, SinkError};
use crate::bank::BankError;
use crate::engine::bands::BandTable;
use crate::engine::board::Board;
use crate::engine::board::Verdict;
use crate::engine::grid::parse_board;
use crate::engine::rating::Rating;
use parquet::column::reader::{get_typed_column_reader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, ByteArrayType};
use parquet::file::reader::{FileReader, SerializedFileReader};

/// Puzzles read, solved and rated as one unit of parallel work.
pub const CHUNK: usize = 1 << 14;

/// How a source file holds its puzzles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    /// One puzzle per line in the text format (`.` or `0` for empty cells).
    Text,
    /// CSV with a header; the puzzles are one named column.
    Csv,
    /// Apache Parquet; the puzzles are one named string column.
    Parquet,
}

impl SourceFormat {
    pub fn name(self) -> &'static str {
        match self {
            SourceFormat::Text => "text",
            SourceFormat::Csv => "csv",
            SourceFormat::Parquet => "parquet",
        }
    }

    /// The format a file's name says: `.csv` is CSV, `.parquet` Parquet, anything
    /// else text.
    pub fn of(path: &Path) -> SourceFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("csv") => SourceFormat::Csv,
            Some(e) if e.eq_ignore_ascii_case("parquet") => SourceFormat::Parquet,
            _ => SourceFormat::Text,
        }
    }
}

/// The columns tried, in order, when `--column` is not given: this crate's banks and
/// the public datasets (`quizzes,solutions`; `puzzle,solution,...`).
pub const PUZZLE_COLUMNS: [&str; 4] = ["puzzle", "quizzes", "quiz", "puzzles"];

/// One source, checked and digested before anything is written.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: PathBuf,
    pub format: SourceFormat,
    /// The CSV or Parquet column read (its name as the file has it) and its index.
    pub column: Option<(String, usize)>,
    /// Size and checksum of the file when it was checked: the file must read the same.
    pub digest: Digest,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Bank(#[from] BankError),
    #[error(transparent)]
    Sink(#[from] SinkError),
    #[error("{action} {}: {error}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        error: io::Error,
    },
    #[error("{}: {reason}", path.display())]
    Source { path: PathBuf, reason: String },
    #[error("{} changed while it was imported (it was {} bytes with XXH3 {}, it read as {} bytes with XXH3 {}); import it again once it is complete", path.display(), before.bytes, before.hex(), after.bytes, after.hex())]
    Changed {
        path: PathBuf,
        before: Digest,
        after: Digest,
    },
    #[error("compressing a frame: {0}")]
    Compress(io::Error),
}

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> ImportError + 'a {
    move |error| ImportError::Io {
        action,
        path: path.to_path_buf(),
        error,
    }
}

impl Source {
    /// Checks `path` (a readable file; for CSV and Parquet, the puzzle column:
    /// `column`, or the first of [`PUZZLE_COLUMNS`] present) and digests it.
    pub fn open(path: &Path, column: Option<&str>) -> Result<Source, ImportError> {
        if path.as_os_str() == "-" {
            return Err(ImportError::Source {
                path: path.to_path_buf(),
                reason: "import reads files, not standard input: the manifest records each source's size and checksum; save the input to a file and import that"
                    .to_string(),
            });
        }
        if path.is_dir() {
            return Err(ImportError::Source {
                path: path.to_path_buf(),
                reason:
                    "is a directory, not a file of puzzles (a bank is read by merge, not import)"
                        .to_string(),
            });
        }
        let format = SourceFormat::of(path);
        let column = match format {
            SourceFormat::Text => None,
            SourceFormat::Csv => Some(csv_column(path, column)?),
            SourceFormat::Parquet => Some(parquet_column(path, column)?),
        };
        Ok(Source {
            path: path.to_path_buf(),
            format,
            column,
            digest: digest_file(path)?,
        })
    }

    /// How the manifest records this source.
    pub fn record(&self) -> ImportSource {
        ImportSource {
            file: self.path.display().to_string(),
            format: self.format.name().to_string(),
            column: self.column.as_ref().map(|(name, _)| name.clone()),
            bytes: self.digest.bytes,
            xxh3: self.digest.hex(),
        }
    }
}

/// The index of the puzzle column in the header of the CSV file at `path`.
fn csv_column(path: &Path, wanted: Option<&str>) -> Result<(String, usize), ImportError> {
    let mut reader = csv::ReaderBuilder::new().from_reader(open_hashing(path)?);
    let header = reader.byte_headers().map_err(|e| ImportError::Source {
        path: path.to_path_buf(),
        reason: format!("reading the CSV header: {e}"),
    })?;
    let names: Vec<String> = header
        .iter()
        .map(|h| String::from_utf8_lossy(h).trim().to_string())
        .collect();
    pick_column(path, &names, wanted)
}

/// The index of the puzzle column among the top-level columns of the Parquet file at
/// `path`, which must hold strings (or raw bytes).
fn parquet_column(path: &Path, wanted: Option<&str>) -> Result<(String, usize), ImportError> {
    let reader = open_parquet(path)?;
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let names: Vec<String> = schema.columns().iter().map(|c| c.path().string()).collect();
    let (name, i) = pick_column(path, &names, wanted)?;
    let column = schema.column(i);
    if column.physical_type() != parquet::basic::Type::BYTE_ARRAY {
        return Err(ImportError::Source {
            path: path.to_path_buf(),
            reason: format!(
                "column {name:?} holds {}, not strings of puzzles",
                column.physical_type()
            ),
        });
    }
    // Found now rather than at the row group that uses it, with nothing written yet.
    for group in reader.metadata().row_groups() {
        let codec = group.column(i).compression();
        use parquet::basic::Compression as C;
        if !matches!(
            codec,
            C::UNCOMPRESSED | C::SNAPPY | C::GZIP(_) | C::LZ4 | C::LZ4_RAW | C::ZSTD(_)
        ) {
            return Err(ImportError::Source {
                path: path.to_path_buf(),
                reason: format!(
                    "column {name:?} is compressed with {codec}, which this build does not read (it reads uncompressed, snappy, gzip, lz4 and zstd): write it again with one of those"
                ),
            });
        }
    }
    if column.max_rep_level() > 0 {
        return Err(ImportError::Source {
            path: path.to_path_buf(),
            reason: format!("column {name:?} is a list, not one puzzle per row"),
        });
    }
    Ok((name, i))
}

fn open_parquet(path: &Path) -> Result<SerializedFileReader<SourceFile>, ImportError> {
    SerializedFileReader::new(open_file(path)?).map_err(|e| ImportError::Source {
        path: path.to_path_buf(),
        reason: format!("not a Parquet file this reader can read: {e}"),
    })
}

/// `wanted`, or the first of [`PUZZLE_COLUMNS`], among a source's column `names`
/// (without regard to case).
fn pick_column(
    path: &Path,
    names: &[String],
    wanted: Option<&str>,
) -> Result<(String, usize), ImportError> {
    let find = |name: &str| names.iter().position(|n| n.eq_ignore_ascii_case(name));
    let found = match wanted {
        Some(name) => find(name),
        None => PUZZLE_COLUMNS.iter().find_map(|c| find(c)),
    };
    let shown = names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    match found {
        Some(i) => Ok((names[i].clone(), i)),
        None => Err(ImportError::Source {
            path: path.to_path_buf(),
            reason: match wanted {
                _ if names.is_empty() => "no header line: the file is empty".to_string(),
                Some(name) => format!("no column {name:?} (it has {shown})"),
                None => format!(
                    "no puzzle column (it has {shown}; tried {}): pass --column NAME",
                    PUZZLE_COLUMNS.join(", ")
                ),
            },
        }),
    }
}

/// Why a puzzle was not imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reject {
    /// Not a board of the size (the parse error, naming line and column).
    Malformed(String),
    NoSolution,
    NotUnique,
    /// No band of the table takes its clue count or rating (in tenths, when rated).
    NoBand {
        clues: u16,
        rating: Option<u8>,
    },
}

impl std::fmt::Display for Reject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reject::Malformed(e) => f.write_str(e),
            Reject::NoSolution => f.write_str("no solution"),
            Reject::NotUnique => f.write_str("more than one solution"),
            Reject::NoBand { clues, rating } => {
                write!(f, "no band of the table takes it ({clues} clues")?;
                if let Some(r) = rating {
                    write!(f, ", rating {}.{}", r / 10, r % 10)?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A puzzle not imported: the source (index into the sources), its line, and why.
#[derive(Clone, Debug)]
pub struct Rejected {
    pub source: usize,
    pub line: u64,
    pub reason: Reject,
}

/// Options of an import.
#[derive(Clone, Debug)]
pub struct ImportConfig {
    pub bands: BandTable,
    pub keep_duplicates: bool,
    /// Whether to fill the `rating` and `technique` columns (9×9).
    pub rate: bool,
    pub shard_rows: u64,
    pub zstd_level: i32,
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Puzzles (lines or records) read.
    pub read: u64,
    pub malformed: u64,
    pub no_solution: u64,
    pub not_unique: u64,
    pub no_band: u64,
    /// Puzzles of a canonical class imported before: dropped, or kept with
    /// `keep_duplicates`.
    pub duplicates: u64,
    pub written: u64,
    /// Rows written per band of the table.
    pub per_band: Vec<u64>,
}

impl ImportSummary {
    /// Puzzles rejected (malformed, unsolvable, not unique, in no band).
    pub fn rejected(&self) -> u64 {
        self.malformed + self.no_solution + self.not_unique + self.no_band
    }
}

/// One input puzzle: its line and its cells, or why they could not be read.
struct Entry<C> {
    line: u64,
    cells: Result<C, String>,
}

/// A puzzle that solved uniquely, ready to be kept.
struct Made<C> {
    puzzle: C,
    solution: C,
    canonical: C,
    key: u128,
    clues: u16,
    band: usize,
    rating: Option<Rating>,
}

/// Reads one source a chunk at a time, hashing its bytes as they pass.
enum Puzzles {
    Text(BufReader<HashingFile>),
    Csv {
        reader: csv::Reader<HashingFile>,
        column: usize,
        record: csv::ByteRecord,
    },
    Parquet {
        reader: SerializedFileReader<SourceFile>,
        column: usize,
        /// The next row group, and the reader of the column in the current one.
        group: usize,
        current: Option<ColumnReaderImpl<ByteArrayType>>,
        /// Compressed bytes of the row groups done (progress).
        done: u64,
        values: Vec<ByteArray>,
        defs: Vec<i16>,
    },
}

impl Puzzles {
    fn open(source: &Source) -> Result<Puzzles, ImportError> {
        let path = &source.path;
        let column = source.column.as_ref().map_or(0, |(_, i)| *i);
        Ok(match source.format {
            SourceFormat::Text => {
                Puzzles::Text(BufReader::with_capacity(1 << 16, open_hashing(path)?))
            }
            SourceFormat::Csv => Puzzles::Csv {
                reader: csv::ReaderBuilder::new().from_reader(open_hashing(path)?),
                column,
                record: csv::ByteRecord::new(),
            },
            SourceFormat::Parquet => Puzzles::Parquet {
                reader: open_parquet(path)?,
                column,
                group: 0,
                current: None,
                done: 0,
                values: Vec::new(),
                defs: Vec::new(),
            },
        })
    }

    /// Bytes of the file read so far (for progress).
    fn progress(&self) -> u64 {
        match self {
            Puzzles::Text(r) => r.get_ref().digest().bytes,
            Puzzles::Csv { reader, .. } => reader.get_ref().digest().bytes,
            Puzzles::Parquet { done, .. } => *done,
        }
    }

    /// The size and checksum of the file as it was read: hashed on the way for text
    /// and CSV (read to the end), read once more for Parquet (read at offsets).
    fn digest(&self, path: &Path) -> Result<Digest, ImportError> {
        Ok(match self {
            Puzzles::Text(r) => r.get_ref().digest(),
            Puzzles::Csv { reader, .. } => reader.get_ref().digest(),
            Puzzles::Parquet { .. } => digest_file(path)?,
        })
    }

    /// Appends up to `max` puzzles of boards `B` to `out` (lines numbered from
    /// `*line + 1`); false at the end of the file.
    fn next_chunk<B: Board>(
        &mut self,
        source: &Source,
        max: usize,
        line: &mut u64,
        text: &mut Vec<u8>,
        out: &mut Vec<Entry<B::Cells>>,
    ) -> Result<bool, ImportError> {
        let path = &source.path;
        let parse = |bytes: &[u8], line: u64| {
            let mut cells = B::empty();
            parse_board(bytes, line as usize, B::SIZE, cells.as_mut())
                .map(|()| cells)
                .map_err(|e| e.explained(true))
        };
        while out.len() < max {
            match self {
                Puzzles::Text(reader) => {
                    text.clear();
                    let read = reader
                        .read_until(b'\n', text)
                        .map_err(io_err("reading", path))?;
                    if read == 0 {
                        return Ok(false);
                    }
                    *line += 1;
                    let bytes = text.strip_suffix(b"\n").unwrap_or(text);
                    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
                    out.push(Entry {
                        line: *line,
                        cells: parse(bytes, *line),
                    });
                }
                Puzzles::Csv {
                    reader,
                    column,
                    record,
                } => {
                    let more = match reader.read_byte_record(record) {
                        Ok(more) => more,
                        Err(e) => {
                            let at = e.position().map_or(*line + 1, |p| p.line());
                            match e.into_kind() {
                                csv::ErrorKind::Io(e) => {
                                    return Err(io_err("reading", path)(e));
                                }
                                csv::ErrorKind::UnequalLengths {
                                    expected_len, len, ..
                                } => {
                                    *line = at;
                                    out.push(Entry {
                                        line: at,
                                        cells: Err(format!(
                                            "line {at}: {len} fields, the header has {expected_len}"
                                        )),
                                    });
                                    continue;
                                }
                                other => {
                                    return Err(ImportError::Source {
                                        path: path.clone(),
                                        reason: format!("line {at}: {other:?}"),
                                    })
                                }
                            }
                        }
                    };
                    if !more {
                        return Ok(false);
                    }
                    *line = record.position().map_or(*line + 1, |p| p.line());
                    let name = source.column.as_ref().map_or("", |(n, _)| n.as_str());
                    let field = record.get(*column).unwrap_or_default();
                    // A quote opened and never closed swallows the lines after it
                    // into the field.
                    let more_lines = memchr::memchr_iter(b'\n', field).count();
                    let cells = if more_lines > 0 {
                        Err(format!(
                            "line {line}: field {name:?} is quoted and runs on over {more_lines} more line{}: is its closing quote missing?",
                            if more_lines == 1 { "" } else { "s" }
                        ))
                    } else {
                        parse(field, *line).map_err(|e| format!("{e} (in field {name:?})"))
                    };
                    out.push(Entry { line: *line, cells });
                }
                Puzzles::Parquet {
                    reader,
                    column,
                    group,
                    current,
                    done,
                    values,
                    defs,
                } => {
                    let parquet_err = |e: parquet::errors::ParquetError| ImportError::Source {
                        path: path.clone(),
                        reason: format!("row group {group}: {e}"),
                    };
                    let Some(columns) = current else {
                        if *group == reader.num_row_groups() {
                            return Ok(false);
                        }
                        let chunk = reader.get_row_group(*group).map_err(parquet_err)?;
                        let column_reader =
                            chunk.get_column_reader(*column).map_err(parquet_err)?;
                        *current = Some(get_typed_column_reader::<ByteArrayType>(column_reader));
                        continue;
                    };
                    values.clear();
                    defs.clear();
                    let want = max - out.len();
                    let (rows, _, _) = columns
                        .read_records(want, Some(defs), None, values)
                        .map_err(parquet_err)?;
                    if rows == 0 {
                        *done += reader.metadata().row_group(*group).compressed_size() as u64;
                        *group += 1;
                        *current = None;
                        continue;
                    }
                    let name = source.column.as_ref().map_or("", |(n, _)| n.as_str());
                    let mut next = values.iter();
                    for k in 0..rows {
                        *line += 1;
                        // A required column has no definition levels: every row a value.
                        let present = defs.get(k).is_none_or(|&d| d > 0);
                        // A null has no value: the next value is the next row's.
                        let value = if present { next.next() } else { None };
                        let cells = match value {
                            // The parse error's "line N" is the row's number.
                            Some(value) => parse(value.data(), *line).map_err(|e| {
                                e.strip_prefix("line ")
                                    .map_or(e.clone(), |r| format!("row {r}"))
                            }),
                            None => Err(format!("row {line}: no puzzle (null)")),
                        }
                        .map_err(|e| format!("{e} (in column {name:?})"));
                        out.push(Entry { line: *line, cells });
                    }
                }
            }
        }
        Ok(true)
    }
}

/// Solves, rates and grades one entry.
fn make<B: Board>(
    entry: &Entry<B::Cells>,
    config: &ImportConfig,
) -> Result<Made<B::Cells>, Reject> {
    let puzzle = *entry
        .cells
        .as_ref()
        .map_err(|e| Reject::Malformed(e.clone()))?;
    let solution = match B::solve(&puzzle) {
        Verdict::NoSolution => return Err(Reject::NoSolution),
        Verdict::Multiple => return Err(Reject::NotUnique),
        Verdict::Unique(solution) => solution,
    };
    let clues = puzzle.as_ref().iter().filter(|&&v| v != 0).count() as u16;
    let rating = if config.rate {
        B::rate_solved(&puzzle, &solution, u8::MAX)
    } else {
        None
    };
    let band = config
        .bands
        .grade_puzzle(clues, rating.map(|r| r.rating))
        .ok_or(Reject::NoBand {
            clues,
            rating: rating.map(|r| r.rating),
        })?;
    let canonical = B::canonical_form(&puzzle);
    Ok(Made {
        puzzle,
        solution,
        canonical,
        key: format::class_key::<B>(&canonical),
        clues,
        band,
        rating,
    })
}

/// Imports `sources` (already checked by [`Source::open`]) into a bank of boards `B`
/// at `out`. `on_reject` hears of every puzzle not imported, in input order;
/// `on_progress` of the source bytes read. Rejected puzzles are not errors: the
/// summary counts them and the bank holds every other one.
pub fn import<B: Board>(
    sources: &[Source],
    config: &ImportConfig,
    out: SinkConfig,
    params: Params,
    mut on_reject: impl FnMut(&Rejected),
    on_progress: impl Fn(u64),
) -> Result<(ImportSummary, Manifest), ImportError> {
    let dir = out.dir.clone();
    let created = !dir.exists();
    let shard_rows = out.shard_rows;
    let result = (|| {
        let writer = BankWriter::create(out, params)?;
        let mut summary = ImportSummary {
            per_band: vec![0; config.bands.bands().len()],
            ..ImportSummary::default()
        };
        let manifest = sink::write_frames(
            writer,
            |_, _| {},
            |sender| {
                let mut seen: HashSet<u128> = HashSet::new();
                let mut pending: Vec<Made<B::Cells>> = Vec::new();
                let mut next_id = 0u64;
                let mut entries = Vec::with_capacity(CHUNK);
                let mut text = Vec::new();
                for (s, source) in sources.iter().enumerate() {
                    let mut puzzles = Puzzles::open(source)?;
                    let mut line = 0u64;
                    let mut reported = 0u64;
                    loop {
                        entries.clear();
                        let more = puzzles.next_chunk::<B>(
                            source,
                            CHUNK,
                            &mut line,
                            &mut text,
                            &mut entries,
                        )?;
                        let made: Vec<_> =
                            entries.par_iter().map(|e| make::<B>(e, config)).collect();
                        for (entry, made) in entries.iter().zip(made) {
                            summary.read += 1;
                            match made {
                                Err(reason) => {
                                    *match reason {
                                        Reject::Malformed(_) => &mut summary.malformed,
                                        Reject::NoSolution => &mut summary.no_solution,
                                        Reject::NotUnique => &mut summary.not_unique,
                                        Reject::NoBand { .. } => &mut summary.no_band,
                                    } += 1;
                                    on_reject(&Rejected {
                                        source: s,
                                        line: entry.line,
                                        reason,
                                    });
                                }
                                Ok(made) => {
                                    if !seen.insert(made.key) {
                                        summary.duplicates += 1;
                                        if !config.keep_duplicates {
                                            continue;
                                        }
                                    }
                                    summary.per_band[made.band] += 1;
                                    pending.push(made);
                                }
                            }
                        }
                        let last = !more && s + 1 == sources.len();
                        if !send_blocks::<B>(
                            &mut pending,
                            &mut next_id,
                            last,
                            config,
                            shard_rows,
                            sender,
                        )? {
                            return Ok(());
                        }
                        let read = puzzles.progress();
                        on_progress(read.saturating_sub(reported));
                        reported = read;
                        if !more {
                            break;
                        }
                    }
                    let read = puzzles.digest(&source.path)?;
                    if read != source.digest {
                        return Err(ImportError::Changed {
                            path: source.path.clone(),
                            before: source.digest,
                            after: read,
                        });
                    }
                }
                summary.written = next_id;
                Ok(())
            },
        )?;
        Ok((summary, manifest))
    })();
    if result.is_err() && created {
        // Only removes the directory if the failed import left it empty.
        sink::remove_dir_if_empty(&dir);
    }
    result
}

/// Cuts the pending rows (ids from `*next_id`) into blocks that end at multiples of
/// [`BLOCK_ROWS`] or at shard boundaries, formats and compresses the complete ones in
/// parallel and sends them in id order; with `last`, the incomplete tail too. False
/// when the writer has stopped (its error is what the import returns).
fn send_blocks<B: Board>(
    pending: &mut Vec<Made<B::Cells>>,
    next_id: &mut u64,
    last: bool,
    config: &ImportConfig,
    shard_rows: u64,
    sender: &FrameSender,
) -> Result<bool, ImportError> {
    let end = *next_id + pending.len() as u64;
    let mut blocks = Vec::new();
    let mut id = *next_id;
    while id < end {
        let stop = ((id / BLOCK_ROWS + 1) * BLOCK_ROWS).min(format::next_boundary(shard_rows, id));
        if stop > end && !last {
            break;
        }
        blocks.push(id..stop.min(end));
        id = stop.min(end);
    }
    let base = *next_id;
    let mut frames: Vec<Vec<u8>> = blocks.iter().map(|_| sender.buffer()).collect();
    blocks
        .par_iter()
        .zip(frames.par_iter_mut())
        .map_init(
            || (FrameEncoder::new(config.zstd_level), Vec::new()),
            |(encoder, plain), (ids, frame)| {
                let encoder = encoder
                    .as_mut()
                    .map_err(|e| io::Error::new(e.kind(), e.to_string()))?;
                FrameEncoder::begin_block(shard_rows, ids.start, plain);
                let rows = &pending[(ids.start - base) as usize..(ids.end - base) as usize];
                for (id, m) in (ids.start..).zip(rows) {
                    let row = RowOut {
                        id,
                        puzzle: &m.puzzle,
                        solution: &m.solution,
                        clues: m.clues,
                        band: config.bands.bands()[m.band].name.as_str(),
                        canonical: Some(&m.canonical),
                        rating: m.rating,
                    };
                    format::format_row::<B>(plain, &row);
                }
                encoder.encode(plain, frame)
            },
        )
        .collect::<io::Result<()>>()
        .map_err(ImportError::Compress)?;
    for (ids, frame) in blocks.iter().zip(frames) {
        if !sender.send(ids.start, ids.end - ids.start, frame) {
            return Ok(false);
        }
    }
    pending.drain(..(id - base) as usize);
    *next_id = id;
    Ok(true)
}
