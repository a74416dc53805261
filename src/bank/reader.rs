//! Reading a bank back: the manifest, and the rows of one shard as a stream.
//!
//! This is the read side of [`crate::bank::sink`] (which alone writes bank files), shared by
//! `verify` and `stats`. A shard is read in one pass: the file goes through a hashing
//! reader (so the XXH3-64 of the compressed bytes comes for free), a zstd streaming
//! decoder (a shard is a concatenation of frames) and a csv reader that fills one
//! reused [`csv::ByteRecord`]. Rows come out parsed into fixed-size arrays; the only
//! text a row owns is its band name, kept inline ([`Label`]), so the hot path
//! allocates nothing per row.
//!
//! Two kinds of failure: a [`RowError`] spoils one row and the stream goes on; a
//! [`BankError`] (I/O, a corrupt zstd stream, a missing or unparsable manifest) ends
//! the stream. Both name the file, and a row error names the line and, when it could
//! be read, the id.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use std::hash::Hasher as _;
use twox_hash::XxHash3_64 as Xxh3;

use crate::bank::format::{
    Manifest, Params, SeedPuzzle, ShardRecord, COLUMNS, HEADER, HISTOGRAMS, MANIFEST,
    REQUIRED_COLUMNS,
};
use crate::bank::seeds::SeedScan;
use crate::bank::seeds::{self, SeedFileError, SeedManifest};
use crate::engine::grid::{self, Cells, Size};
use crate::engine::rating::Rating;

/// The columns every shard starts with, in this order (more may follow).
const REQUIRED: &[&str] = COLUMNS.split_at(REQUIRED_COLUMNS).0;

/// Why a bank or a shard could not be read any further.
#[derive(Debug, thiserror::Error)]
pub enum BankError {
    // The causes are part of the message (and deliberately not `source`s, which
    // anyhow would print a second time).
    #[error("{action} {path}: {error}")]
    Io {
        action: &'static str,
        path: PathBuf,
        error: io::Error,
    },
    /// No `manifest.json` in a directory that exists: said as "no bank", with what
    /// the directory holds instead when it is a staged run's seeds.
    #[error("{} holds no bank (no {MANIFEST}){}", dir.display(), seeds_hint(dir))]
    NoManifest { dir: PathBuf },
    /// DIR is a file or is missing: said as such, not as "reading DIR/manifest.json:
    /// Not a directory".
    #[error(
        "{} {}, not a bank (a directory holding {MANIFEST}, as `generate --out` writes)",
        dir.display(),
        if *exists { "is a file" } else { "does not exist" }
    )]
    NotADirectory { dir: PathBuf, exists: bool },
    #[error("{path}: not a valid manifest: {error}")]
    Manifest {
        path: PathBuf,
        error: serde_json::Error,
    },
    #[error("{path}: {reason}")]
    BadManifest { path: PathBuf, reason: String },
    #[error("{path}, line {line}: cannot decode the shard (corrupt zstd data or CSV): {error}")]
    Decode {
        path: PathBuf,
        line: u64,
        error: csv::Error,
    },
    #[error("{path}: expected the header {expected:?}, found {found:?}")]
    Header {
        path: PathBuf,
        expected: String,
        found: String,
    },
    #[error("{path}: {error}")]
    Row { path: PathBuf, error: RowError },
    /// A shard read to the end that is not what the manifest lists.
    #[error("{path}: {what} (run `sudoku-factory verify {dir}`)")]
    Mismatch {
        path: PathBuf,
        dir: PathBuf,
        what: String,
    },
}

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> BankError + 'a {
    move |error| BankError::Io {
        action,
        path: path.to_path_buf(),
        error,
    }
}

/// What a directory without a manifest holds instead, when it is the seed files of a
/// staged run (`generate --stage seeds`): how to make a bank of them.
fn seeds_hint(dir: &Path) -> String {
    let has_seeds = fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("seeds-") && name.ends_with(".json")
        })
    });
    if has_seeds {
        format!(
            "; it holds the seed files of a staged run: make a bank of them with `sudoku-factory generate --seeds {d} --out BANK` and the run's options (an unfinished stage 1 continues with `generate --stage seeds --resume {d}`)",
            d = dir.display()
        )
    } else {
        String::new()
    }
}

/// Why a bank cannot be read whole, found before any row is read (checksums are
/// checked while reading).
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{} is incomplete ({} says complete: false; {rows} rows in {shards} shards so far): {hint}", dir.display(), dir.join(MANIFEST).display())]
    Incomplete {
        dir: PathBuf,
        rows: u64,
        shards: usize,
        hint: String,
    },
    #[error("{} lists {}, which cannot be read (run `sudoku-factory verify {}`): {error}", dir.join(MANIFEST).display(), path.display(), dir.display())]
    Unreadable {
        dir: PathBuf,
        path: PathBuf,
        error: io::Error,
    },
    #[error("{} has {found} bytes, {} lists {listed} (run `sudoku-factory verify {}`)", path.display(), dir.join(MANIFEST).display(), dir.display())]
    WrongSize {
        dir: PathBuf,
        path: PathBuf,
        found: u64,
        listed: u64,
    },
    #[error("{name:?}: the bank has no such band (its bands: {known})")]
    NoSuchBand { name: String, known: String },
    #[error("{} is a file of the bank {} itself: write the output elsewhere", to.display(), dir.display())]
    OwnFile { to: PathBuf, dir: PathBuf },
}

/// A bank whose run did not finish, or whose listed shards are missing or of the
/// wrong size, is refused before anything is written: the one check of `export`,
/// `render` and every reader that needs the whole bank.
pub fn check_complete(dir: &Path, manifest: &Manifest) -> Result<(), OpenError> {
    if !manifest.complete {
        return Err(OpenError::Incomplete {
            dir: dir.to_path_buf(),
            rows: manifest.rows,
            shards: manifest.shards.len(),
            hint: manifest.finish_hint(dir),
        });
    }
    for shard in &manifest.shards {
        let path = dir.join(&shard.file);
        let meta = fs::metadata(&path).map_err(|error| OpenError::Unreadable {
            dir: dir.to_path_buf(),
            path: path.clone(),
            error,
        })?;
        if meta.len() != shard.bytes {
            return Err(OpenError::WrongSize {
                dir: dir.to_path_buf(),
                path,
                found: meta.len(),
                listed: shard.bytes,
            });
        }
    }
    Ok(())
}

/// `--difficulty` names must be bands of the bank's table (clue or rating bands, as
/// its manifest's `grade` says), when its manifest says which (a merged bank of
/// different tables does not: any name is taken).
pub fn check_bands(names: &[String], manifest: &Manifest, size: Size) -> Result<(), OpenError> {
    let Some(table) = manifest.params.band_table(size) else {
        return Ok(());
    };
    for name in names {
        if !table.bands().iter().any(|b| &b.name == name) {
            let known: Vec<&str> = table.bands().iter().map(|b| b.name.as_str()).collect();
            return Err(OpenError::NoSuchBand {
                name: name.clone(),
                known: known.join(", "),
            });
        }
    }
    Ok(())
}

/// An output must not be one of BANK's own files (`--force` would replace the shard
/// being read, or the manifest): `export --to`, `stats --svg`, `render`'s outputs.
pub fn refuse_bank_file(to: &Path, dir: &Path) -> Result<(), OpenError> {
    let name = to.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let is_bank_name = name == MANIFEST || crate::bank::format::shard_index(name).is_some();
    let parent = match to.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (parent, dir_path) = (parent.canonicalize(), dir.canonicalize());
    let same_dir = matches!((&parent, &dir_path), (Ok(a), Ok(b)) if a == b);
    // Every file of `histograms/` is the bank's too (`stats` reads them).
    let in_histograms = matches!((&parent, &dir_path), (Ok(a), Ok(b)) if *a == b.join(HISTOGRAMS));
    if is_bank_name && same_dir || in_histograms {
        return Err(OpenError::OwnFile {
            to: to.to_path_buf(),
            dir: dir.to_path_buf(),
        });
    }
    Ok(())
}

/// A shard's header line (`None`: the shard is empty) must start with the columns
/// every bank has; the one check of both row readers.
fn check_header(path: &Path, header: Option<&csv::ByteRecord>) -> Result<(), BankError> {
    let fits = |h: &csv::ByteRecord| {
        h.len() >= REQUIRED.len()
            && REQUIRED
                .iter()
                .zip(h.iter())
                .all(|(want, got)| want.as_bytes() == got)
    };
    match header {
        Some(h) if fits(h) => Ok(()),
        _ => Err(BankError::Header {
            path: path.to_path_buf(),
            expected: String::from_utf8_lossy(HEADER.trim_ascii_end()).into_owned(),
            found: header.map_or_else(
                || "an empty shard".to_string(),
                |h| {
                    h.iter()
                        .map(|f| String::from_utf8_lossy(f).into_owned())
                        .collect::<Vec<_>>()
                        .join(",")
                },
            ),
        }),
    }
}

/// How a shard just read differs from its manifest entry — its row count, size or
/// XXH3 — or `None` when it matches: the one comparison of every reader that checks a
/// bank as it reads it (`export`, `render`, `merge`).
pub fn shard_mismatch(shard: &ShardRecord, rows: u64, digest: &Digest) -> Option<String> {
    if rows != shard.rows {
        Some(format!("{rows} rows, the manifest lists {}", shard.rows))
    } else if digest.bytes != shard.bytes {
        Some(format!(
            "{} bytes, the manifest lists {}",
            digest.bytes, shard.bytes
        ))
    } else if !digest.hex().eq_ignore_ascii_case(&shard.xxh3) {
        Some(format!(
            "XXH3 {}, the manifest lists {}",
            digest.hex(),
            shard.xxh3
        ))
    } else {
        None
    }
}

/// Reads every row of the complete bank `dir` (boards of `size`, cells `C`, `empty`
/// the empty board) in order, checking each shard's header, and its row count, size
/// and XXH3 against `manifest` once read; a malformed row stops the read, named.
pub fn for_each_row<C: Copy + AsMut<[u8]>>(
    dir: &Path,
    manifest: &Manifest,
    size: Size,
    empty: C,
    mut per_row: impl FnMut(Row<C>),
) -> Result<(), BankError> {
    for shard in &manifest.shards {
        let path = dir.join(&shard.file);
        let mut reader = ShardReader::open(&path)?;
        reader.read_header()?;
        let mut rows = 0u64;
        while let Some(row) = reader.next_row_of(size, empty) {
            let row = row?.map_err(|error| BankError::Row {
                path: path.clone(),
                error,
            })?;
            rows += 1;
            per_row(row);
        }
        let digest = reader.finish()?;
        if let Some(what) = shard_mismatch(shard, rows, &digest) {
            return Err(BankError::Mismatch {
                path,
                dir: dir.to_path_buf(),
                what,
            });
        }
    }
    Ok(())
}

/// Reads and parses `DIR/manifest.json`. Every listed shard must be a plain file name
/// (read from DIR, never from elsewhere: `../other/bank-00000.csv.zst` is refused)
/// listed once (a repeated entry would be read twice and its ids exported twice).
pub fn read_manifest(dir: &Path) -> Result<Manifest, BankError> {
    let path = dir.join(MANIFEST);
    let bytes = fs::read(&path).map_err(|error| {
        if error.kind() == io::ErrorKind::NotFound && dir.is_dir() {
            BankError::NoManifest {
                dir: dir.to_path_buf(),
            }
        } else if !dir.is_dir() {
            BankError::NotADirectory {
                dir: dir.to_path_buf(),
                exists: dir.exists(),
            }
        } else {
            io_err("reading", &path)(error)
        }
    })?;
    let manifest: Manifest =
        serde_json::from_slice(&bytes).map_err(|error| BankError::Manifest {
            path: path.clone(),
            error,
        })?;
    let mut seen = std::collections::HashSet::new();
    for shard in &manifest.shards {
        let name = shard.file.as_str();
        let plain = !name.is_empty()
            && name != "."
            && name != ".."
            && !name.contains(['/', '\\'])
            && Path::new(name).file_name() == Some(std::ffi::OsStr::new(name));
        let reason = if !plain {
            format!("shard {name:?} is not a file name in the bank's directory")
        } else if !seen.insert(name) {
            format!("shard {name} is listed twice")
        } else {
            continue;
        };
        return Err(BankError::BadManifest { path, reason });
    }
    Ok(manifest)
}

/// A band name held inline up to 30 bytes, so that reading a row allocates nothing;
/// longer names (allowed by `--bands`, but rare) go to the heap.
#[derive(Clone, PartialEq, Eq)]
pub enum Label {
    Inline { len: u8, bytes: [u8; 30] },
    Heap(Box<str>),
}

impl Label {
    /// A label holding `s`.
    pub fn new(s: &str) -> Label {
        if s.len() <= 30 {
            let mut bytes = [0u8; 30];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            Label::Inline {
                len: s.len() as u8,
                bytes,
            }
        } else {
            Label::Heap(s.into())
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Label::Inline { len, bytes } => std::str::from_utf8(&bytes[..*len as usize])
                .expect("built from a &str and cut at its length"),
            Label::Heap(s) => s,
        }
    }
}

impl fmt::Debug for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One parsed row of a shard; `C` is the board's cells (9×9 unless read with
/// [`ShardReader::next_row_of`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row<C = Cells> {
    /// 1-based line of the row in the decompressed shard (the header is line 1).
    pub line: u64,
    pub id: u64,
    pub puzzle: C,
    pub solution: C,
    /// The `clues` column as written (not recounted).
    pub clues: u16,
    pub difficulty: Label,
    /// The `canonical` column; `None` when the field is empty.
    pub canonical: Option<C>,
    /// The `rating` and `technique` columns; `None` when they are empty or the bank
    /// predates them (version 0.1.0).
    pub rating: Option<Rating>,
}

/// Why one row could not be parsed. The stream goes on after it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}{}: {reason}", id.map(|id| format!(" (id {id})")).unwrap_or_default())]
pub struct RowError {
    pub line: u64,
    pub id: Option<u64>,
    pub reason: String,
}

/// A `Read` that hashes and counts every byte that passes through it: a shard's
/// checksum, or an `import` source's, taken while it is read.
pub struct Hashing<R> {
    inner: R,
    hash: Xxh3,
    bytes: u64,
}

impl<R> Hashing<R> {
    pub fn new(inner: R) -> Hashing<R> {
        Hashing {
            inner,
            hash: Xxh3::new(),
            bytes: 0,
        }
    }

    /// Size and checksum of what has been read so far.
    pub fn digest(&self) -> Digest {
        Digest {
            bytes: self.bytes,
            xxh3: self.hash.finish(),
        }
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.write(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

type Decoder = zstd::stream::read::Decoder<'static, BufReader<Hashing<File>>>;

/// Size and XXH3-64 of a shard file as it is on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digest {
    pub bytes: u64,
    pub xxh3: u64,
}

impl Digest {
    /// The checksum as the manifest writes it: 16 lowercase hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.xxh3)
    }
}

/// Streams the rows of one shard; see the module documentation.
pub struct ShardReader {
    path: PathBuf,
    csv: csv::Reader<Decoder>,
    record: csv::ByteRecord,
    /// The header line as read, kept for [`ShardReader::header`].
    header: csv::ByteRecord,
    header_read: bool,
    failed: bool,
}

/// A shard's decompressing stream, hashing and counting the compressed bytes as they
/// are read: what both shard readers start from.
fn open_shard(path: &Path) -> Result<Decoder, BankError> {
    let file = File::open(path).map_err(io_err("opening", path))?;
    let hashing = Hashing::new(file);
    zstd::stream::read::Decoder::with_buffer(BufReader::with_capacity(1 << 16, hashing))
        .map_err(io_err("starting to decompress", path))
}

impl ShardReader {
    /// Opens the shard at `path`. Nothing is read yet.
    pub fn open(path: &Path) -> Result<ShardReader, BankError> {
        let decoder = open_shard(path)?;
        let csv = csv::ReaderBuilder::new()
            .has_headers(false)
            // Field counts are checked per row, so that a short row is a row error
            // and not the end of the shard.
            .flexible(true)
            .buffer_capacity(1 << 16)
            .from_reader(decoder);
        Ok(ShardReader {
            path: path.to_path_buf(),
            csv,
            record: csv::ByteRecord::new(),
            header: csv::ByteRecord::new(),
            header_read: false,
            failed: false,
        })
    }

    /// True once the stream is broken: no more rows will come.
    pub fn is_broken(&self) -> bool {
        self.failed
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read_record(&mut self) -> Result<bool, BankError> {
        let read = self.csv.read_byte_record(&mut self.record);
        read.map_err(|error| self.decode_error(error))
    }

    /// A record the CSV decoder could not read: fatal to the shard.
    fn decode_error(&mut self, error: csv::Error) -> BankError {
        self.failed = true;
        BankError::Decode {
            path: self.path.clone(),
            line: self.csv.position().line(),
            error,
        }
    }

    /// Reads and checks the header line: it must start with [`COLUMNS`].
    pub fn read_header(&mut self) -> Result<(), BankError> {
        if self.header_read {
            return Ok(());
        }
        self.header_read = true;
        let more = self.read_record()?;
        check_header(&self.path, more.then_some(&self.record))?;
        self.header.clone_from(&self.record);
        Ok(())
    }

    /// The next row: `None` at the end of the shard (or after a fatal error), a
    /// [`RowError`] inside `Ok` for a malformed row, `Err` when the stream is broken.
    /// Reads the header first if [`ShardReader::read_header`] was not called.
    pub fn next_row(&mut self) -> Option<Result<Result<Row, RowError>, BankError>> {
        self.next_row_of(Size::Nine, [0u8; grid::N_CELLS])
    }

    /// As [`ShardReader::next_row`] for a bank of boards of `size`, whose cells are
    /// `C` (`empty` is the empty board, a template to parse into).
    pub fn next_row_of<C: Copy + AsMut<[u8]>>(
        &mut self,
        size: Size,
        empty: C,
    ) -> Option<Result<Result<Row<C>, RowError>, BankError>> {
        if self.failed {
            return None;
        }
        if !self.header_read {
            if let Err(e) = self.read_header() {
                return Some(Err(e));
            }
        }
        match self.read_record() {
            Ok(false) => None,
            Ok(true) => Some(Ok(self
                .check_width()
                .and_then(|()| parse_record(&self.record, size, empty)))),
            Err(e) => Some(Err(e)),
        }
    }

    /// A row no wider than the header: pandas refuses a row with more fields (and
    /// pads a shorter one; fewer than [`COLUMNS`] is [`parse_record`]'s error).
    fn check_width(&self) -> Result<(), RowError> {
        let (found, want) = (self.record.len(), self.header.len());
        if found <= want {
            return Ok(());
        }
        Err(RowError {
            line: self.record.position().map_or(0, |p| p.line()),
            id: self.record.get(0).and_then(parse_int::<u64>),
            reason: format!("expected {want} fields, as the header has, found {found}"),
        })
    }

    /// The header line (empty until [`ShardReader::read_header`] succeeded): the
    /// bank's columns, [`COLUMNS`] and whatever follows them.
    pub fn header(&self) -> &csv::ByteRecord {
        &self.header
    }

    /// Reads the next row as raw CSV fields into `record` (reused: no allocation per
    /// row), for readers that pass columns through unparsed (`export`). `Ok(false)` at
    /// the end of the shard or after a fatal error. Reads the header first.
    pub fn next_record(&mut self, record: &mut csv::ByteRecord) -> Result<bool, BankError> {
        if self.failed {
            return Ok(false);
        }
        if !self.header_read {
            self.read_header()?;
        }
        let read = self.csv.read_byte_record(record);
        read.map_err(|error| self.decode_error(error))
    }

    /// Reads whatever the decoder left unread and returns the file's size and
    /// checksum. Call after the last row (or after an error) to check the file.
    pub fn finish(self) -> Result<Digest, BankError> {
        let path = self.path;
        let mut hashing = self.csv.into_inner().finish().into_inner();
        io::copy(&mut hashing, &mut io::sink()).map_err(io_err("reading", &path))?;
        Ok(Digest {
            bytes: hashing.bytes,
            xxh3: hashing.hash.finish(),
        })
    }
}

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Streams the raw records of one shard, for readers that pass columns through
/// unparsed (`export`): the same file, hashing and header check as [`ShardReader`],
/// but lines are split with `memchr` instead of the csv crate's state machine, which
/// cost as much as the decompression. A line with a quote (never written by the
/// factory, whose fields need none, but valid CSV) goes through the csv crate.
pub struct RecordReader {
    path: PathBuf,
    decoder: ReadAhead,
    /// Decompressed bytes; `buf[start..end]` is not consumed yet.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// Lines consumed (the header is line 1).
    line: u64,
    header: csv::ByteRecord,
    /// A quoted record, parsed by the csv crate before [`RecordReader::read_rows`]
    /// copies it into its batch.
    quoted: csv::ByteRecord,
}

impl RecordReader {
    /// Opens the shard at `path`. Nothing is read yet.
    pub fn open(path: &Path) -> Result<RecordReader, BankError> {
        let decoder = ReadAhead::start(open_shard(path)?);
        Ok(RecordReader {
            path: path.to_path_buf(),
            decoder,
            buf: Vec::new(),
            start: 0,
            end: 0,
            eof: false,
            line: 0,
            header: csv::ByteRecord::new(),
            quoted: csv::ByteRecord::new(),
        })
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the next rows into `rows` (cleared first): the whole lines of the
    /// decompressed chunk at hand, lent to `rows` with where each field ends instead
    /// of copied field by field. `Ok(false)` at the end. A quoted record comes alone,
    /// its fields copied.
    pub fn read_rows(&mut self, rows: &mut RawRows) -> Result<bool, BankError> {
        rows.ends.clear();
        rows.spans.clear();
        // A whole line in the window, or the end of the stream.
        loop {
            let window = &self.buf[self.start..self.end];
            if !window.is_empty() && (self.eof || memchr::memchr(b'\n', window).is_some()) {
                break;
            }
            if window.is_empty() && self.eof {
                return Ok(false);
            }
            self.fill()?;
        }
        let first = self.start;
        let window = &self.buf[first..self.end];
        // One pass over the window for the commas and newlines of every line (and a
        // quote, which ends the batch before its line).
        let mut at = 0; // where the current line starts
        let mut first_end = 0;
        for hit in memchr::memchr3_iter(b',', b'\n', b'"', window) {
            match window[hit] {
                b',' => rows.ends.push(hit as u32),
                b'\n' => {
                    let end = if hit > at && window[hit - 1] == b'\r' {
                        hit - 1
                    } else {
                        hit
                    };
                    rows.ends.push(end as u32);
                    self.line += 1;
                    rows.close_row(at, first_end, self.line);
                    at = hit + 1;
                    first_end = rows.ends.len();
                }
                _ => break,
            }
        }
        rows.ends.truncate(first_end);
        // At the end of the stream, a last line without a newline.
        if self.eof && at < window.len() && memchr::memchr(b'"', &window[at..]).is_none() {
            let line = &window[at..];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            rows.ends
                .extend(memchr::memchr_iter(b',', line).map(|comma| (at + comma) as u32));
            rows.ends.push((at + line.len()) as u32);
            self.line += 1;
            rows.close_row(at, first_end, self.line);
            at = window.len();
        }
        if rows.spans.is_empty() {
            // The window starts with a quoted record (which may span lines).
            let mut quoted = std::mem::take(&mut self.quoted);
            let more = self.quoted_record(&mut quoted);
            self.quoted = quoted;
            if !more? {
                return Ok(false);
            }
            rows.text.clear();
            rows.base = 0;
            for field in &self.quoted {
                rows.text.extend_from_slice(field);
                rows.ends.push(rows.text.len() as u32);
                // The gap a comma leaves between fields: a field starts one past the
                // end of the one before.
                rows.text.push(b',');
            }
            rows.close_row(0, 0, self.quoted.line());
            return Ok(true);
        }
        self.start = first + at;
        if self.start == self.end {
            // The whole chunk is lent: `rows` takes it, and gives back its last one,
            // which goes back to the decompressing thread with the next fill.
            std::mem::swap(&mut rows.text, &mut self.buf);
            rows.base = first;
            (self.start, self.end) = (0, 0);
        } else {
            rows.text.clear();
            rows.text.extend_from_slice(&self.buf[first..self.start]);
            rows.base = 0;
        }
        Ok(true)
    }

    /// Reads and checks the header line: it must start with [`COLUMNS`]. Once read,
    /// calling it again does nothing.
    pub fn read_header(&mut self) -> Result<(), BankError> {
        if !self.header.is_empty() {
            return Ok(());
        }
        // A UTF-8 byte-order mark (an editor's) is skipped, as the csv crate's
        // reader skips it: `verify` and `export` read the same bank.
        while self.end - self.start < BOM.len() && !self.eof {
            self.fill()?;
        }
        if self.buf[self.start..self.end].starts_with(BOM) {
            self.start += BOM.len();
        }
        let mut header = csv::ByteRecord::new();
        let more = self.next_record(&mut header)?;
        check_header(&self.path, more.then_some(&header))?;
        self.header = header;
        Ok(())
    }

    /// The header line (empty until [`RecordReader::read_header`] succeeded).
    pub fn header(&self) -> &csv::ByteRecord {
        &self.header
    }

    /// Reads the next line into `record` (reused: no allocation per row once it has
    /// grown), with its line number as the record's position. `Ok(false)` at the end.
    pub fn next_record(&mut self, record: &mut csv::ByteRecord) -> Result<bool, BankError> {
        let mut searched = 0; // bytes of the window already known to hold no newline
        loop {
            let window = &self.buf[self.start..self.end];
            let newline = memchr::memchr(b'\n', &window[searched..]).map(|i| searched + i);
            let line_end = match newline {
                Some(i) => i,
                None if self.eof && !window.is_empty() => window.len(),
                None if self.eof => return Ok(false),
                None => {
                    searched = window.len();
                    self.fill()?;
                    continue;
                }
            };
            let line = &window[..line_end];
            if memchr::memchr(b'"', line).is_some() {
                return self.quoted_record(record);
            }
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            record.clear();
            let mut from = 0;
            for comma in memchr::memchr_iter(b',', line) {
                record.push_field(&line[from..comma]);
                from = comma + 1;
            }
            record.push_field(&line[from..]);
            self.line += 1;
            let mut position = csv::Position::new();
            position.set_line(self.line);
            record.set_position(Some(position));
            self.start = (self.start + line_end + 1).min(self.end);
            return Ok(true);
        }
    }

    /// Takes the next chunk of whole lines from the decompressing thread: in place of
    /// the buffer when it is all consumed (the usual case: no copy), else after the
    /// unread bytes (a quoted record across chunks).
    fn fill(&mut self) -> Result<(), BankError> {
        let Some(chunk) = self
            .decoder
            .next_chunk()
            .map_err(io_err("decompressing", &self.path))?
        else {
            self.eof = true;
            return Ok(());
        };
        if self.start == self.end {
            let old = std::mem::replace(&mut self.buf, chunk);
            self.decoder.recycle(old);
            self.start = 0;
            self.end = self.buf.len();
        } else {
            self.buf.copy_within(self.start..self.end, 0);
            self.buf.truncate(self.end - self.start);
            self.buf.extend_from_slice(&chunk);
            self.decoder.recycle(chunk);
            self.start = 0;
            self.end = self.buf.len();
        }
        Ok(())
    }

    /// The slow path: a record with quotes, which may span lines, parsed by the csv
    /// crate from the window.
    fn quoted_record(&mut self, record: &mut csv::ByteRecord) -> Result<bool, BankError> {
        loop {
            let window = &self.buf[self.start..self.end];
            let mut csv = csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(window);
            let parsed = csv.read_byte_record(record);
            let used = (csv.position().byte() as usize).min(window.len());
            let lines = memchr::memchr_iter(b'\n', &window[..used]).count().max(1) as u64;
            // Complete only if the record ended at a newline inside the window (or at
            // the end of the stream).
            let complete = used < window.len() || self.eof;
            match parsed {
                Ok(true) if complete => {
                    let mut position = csv::Position::new();
                    position.set_line(self.line + 1);
                    record.set_position(Some(position));
                    self.line += lines;
                    self.start += used;
                    return Ok(true);
                }
                Err(error) if complete => {
                    return Err(BankError::Decode {
                        path: self.path.clone(),
                        line: self.line + 1,
                        error,
                    })
                }
                Ok(false) => return Ok(false),
                _ => self.fill()?,
            }
        }
    }

    /// Reads whatever is left and returns the file's size and checksum.
    pub fn finish(self) -> Result<Digest, BankError> {
        self.decoder.finish().map_err(io_err("reading", &self.path))
    }
}

/// The fields of a raw CSV row, whatever holds them: the export's formats read rows
/// through this, from a [`RawRows`] batch or (in tests) a `csv::ByteRecord`.
pub trait Fields {
    /// Fields in the row.
    fn len(&self) -> usize;
    /// True for a row of no fields.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Field `i`, or `None` past the last.
    fn get(&self, i: usize) -> Option<&[u8]>;
    /// The row's line in its file (1 is the header), or 0 when unknown.
    fn line(&self) -> u64;
}

impl Fields for csv::ByteRecord {
    fn len(&self) -> usize {
        csv::ByteRecord::len(self)
    }
    fn get(&self, i: usize) -> Option<&[u8]> {
        csv::ByteRecord::get(self, i)
    }
    fn line(&self) -> u64 {
        self.position().map_or(0, |p| p.line())
    }
}

/// Rows of a shard as [`RecordReader::read_rows`] lends them: a decompressed chunk of
/// whole lines and where each row's fields end in it, so a row is read where the
/// decompressor put it rather than copied field by field (which, with the scattered
/// `csv::ByteRecord`s it filled, was a fifth of a JSON Lines export's CPU). Reused
/// from batch to batch: nothing is allocated per row.
#[derive(Debug, Default)]
pub struct RawRows {
    text: Vec<u8>,
    /// Where the rows start in `text`: every offset below counts from here.
    base: usize,
    /// One past the last byte of each field, row after row.
    ends: Vec<u32>,
    spans: Vec<Span>,
}

/// One row of a [`RawRows`]: where its first field starts, its fields' ends, its line.
#[derive(Clone, Debug)]
struct Span {
    start: u32,
    ends: std::ops::Range<u32>,
    line: u64,
}

impl RawRows {
    /// Rows in the batch.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when the batch holds no row.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Ends the row that starts at `start` and whose field ends were pushed from
    /// index `first_end` on.
    fn close_row(&mut self, start: usize, first_end: usize, line: u64) {
        self.spans.push(Span {
            start: start as u32,
            ends: first_end as u32..self.ends.len() as u32,
            line,
        });
    }

    /// Row `i` (`i < len()`).
    pub fn row(&self, i: usize) -> RawRow<'_> {
        let span = &self.spans[i];
        RawRow {
            text: &self.text[self.base..],
            start: span.start,
            ends: &self.ends[span.ends.start as usize..span.ends.end as usize],
            line: span.line,
        }
    }
}

/// A row of a [`RawRows`], its fields borrowed from the batch.
#[derive(Clone, Copy, Debug)]
pub struct RawRow<'a> {
    text: &'a [u8],
    start: u32,
    ends: &'a [u32],
    line: u64,
}

impl Fields for RawRow<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.ends.len()
    }
    #[inline]
    fn get(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)? as usize;
        let start = match i {
            0 => self.start as usize,
            _ => self.ends[i - 1] as usize + 1,
        };
        self.text.get(start..end)
    }
    fn line(&self) -> u64 {
        self.line
    }
}

/// Decompression on its own thread, one chunk ahead: `export`'s reader splits the
/// lines of one chunk while the next is being decompressed (decompressing was half
/// of the reader's time, and the reader was the export's critical path). Chunks end
/// at a newline (the rest of a line waits for the next chunk), so the reader rarely
/// copies; buffers go back to the thread to be reused.
struct ReadAhead {
    chunks: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    spare: std::sync::mpsc::Sender<Vec<u8>>,
    thread: Option<std::thread::JoinHandle<io::Result<Digest>>>,
}

impl ReadAhead {
    const CHUNK: usize = 1 << 18;

    fn start(mut decoder: Decoder) -> ReadAhead {
        let (send, chunks) = std::sync::mpsc::sync_channel(2);
        let (spare, spares) = std::sync::mpsc::channel::<Vec<u8>>();
        let thread = std::thread::spawn(move || -> io::Result<Digest> {
            let mut carry: Vec<u8> = Vec::new();
            loop {
                // A spare keeps its length: only bytes past it are zeroed before the
                // read overwrites them (zeroing whole chunks was 2 % of an export).
                let mut buf = spares.try_recv().unwrap_or_default();
                let filled = carry.len();
                buf.resize(filled.max(Self::CHUNK / 2) + Self::CHUNK, 0);
                buf[..filled].copy_from_slice(&carry);
                let n = match read_full(&mut decoder, &mut buf[filled..]) {
                    Ok(n) => n,
                    Err(e) => {
                        let _ = send.send(Err(e));
                        break;
                    }
                };
                buf.truncate(filled + n);
                if n == 0 {
                    if !buf.is_empty() && send.send(Ok(buf)).is_err() {
                        return Err(gone());
                    }
                    break;
                }
                // Keep the partial last line for the next chunk.
                carry.clear();
                if let Some(last) = memchr::memrchr(b'\n', &buf) {
                    carry.extend_from_slice(&buf[last + 1..]);
                    buf.truncate(last + 1);
                } else {
                    carry = std::mem::take(&mut buf);
                    continue;
                }
                // The reader stopped early (`--limit`): no need to read on.
                if send.send(Ok(buf)).is_err() {
                    return Err(gone());
                }
            }
            drop(send);
            let mut hashing = decoder.finish().into_inner();
            io::copy(&mut hashing, &mut io::sink())?;
            Ok(Digest {
                bytes: hashing.bytes,
                xxh3: hashing.hash.finish(),
            })
        });
        ReadAhead {
            chunks,
            spare,
            thread: Some(thread),
        }
    }

    /// The next chunk; `None` at the end.
    fn next_chunk(&mut self) -> io::Result<Option<Vec<u8>>> {
        match self.chunks.recv() {
            Ok(chunk) => chunk.map(Some),
            Err(_) => Ok(None),
        }
    }

    fn recycle(&self, buf: Vec<u8>) {
        let _ = self.spare.send(buf);
    }

    /// Waits for the thread: the file's size and checksum, once it is read to the end.
    fn finish(mut self) -> io::Result<Digest> {
        // Drain what the reader did not take, so the thread reaches the end.
        while let Ok(chunk) = self.chunks.recv() {
            chunk?;
        }
        self.thread
            .take()
            .expect("joined once")
            .join()
            .map_err(|_| io::Error::other("the decompressing thread panicked"))?
    }
}

fn gone() -> io::Error {
    io::Error::other("the shard's reader stopped")
}

/// Reads until `buf` is full or the stream ends; the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A file opened for reading, its bytes hashed and counted as they are read: an
/// `import` source.
pub type HashingFile = Hashing<File>;

/// A file opened for reading as it is: a Parquet source, read at offsets.
pub type SourceFile = File;

/// Opens the file at `path` as a [`SourceFile`].
pub fn open_file(path: &Path) -> Result<SourceFile, BankError> {
    File::open(path).map_err(io_err("opening", path))
}

/// Opens the file at `path` as a [`HashingFile`].
pub fn open_hashing(path: &Path) -> Result<HashingFile, BankError> {
    Ok(Hashing::new(
        File::open(path).map_err(io_err("opening", path))?,
    ))
}

/// Size and XXH3-64 of a file, read in one pass.
pub fn digest_file(path: &Path) -> Result<Digest, BankError> {
    let file = File::open(path).map_err(io_err("opening", path))?;
    let mut hashing = Hashing::new(file);
    io::copy(&mut hashing, &mut io::sink()).map_err(io_err("reading", path))?;
    Ok(hashing.digest())
}

/// Parses one CSV record into a [`Row`], without allocating unless it is malformed.
fn parse_record<C: Copy + AsMut<[u8]>>(
    record: &csv::ByteRecord,
    size: Size,
    empty: C,
) -> Result<Row<C>, RowError> {
    let line = record.position().map_or(0, |p| p.line());
    let field = |i: usize| record.get(i).unwrap_or_default();
    let id = parse_int::<u64>(field(0));
    let fail = |reason: String| RowError { line, id, reason };
    if record.len() < REQUIRED.len() {
        return Err(fail(format!(
            "expected at least {} fields, found {}",
            REQUIRED.len(),
            record.len()
        )));
    }
    let id = id.ok_or_else(|| fail(format!("id {:?} is not a number", lossy(field(0)))))?;
    let cells = |i: usize| -> Result<C, RowError> {
        let text = std::str::from_utf8(field(i))
            .map_err(|_| fail(format!("{}: not UTF-8", REQUIRED[i])))?;
        let mut out = empty;
        grid::parse_sized(text, line as usize, size, out.as_mut())
            .map_err(|e| fail(format!("{}: {e}", REQUIRED[i])))?;
        Ok(out)
    };
    let puzzle = cells(1)?;
    let solution = cells(2)?;
    let clues = parse_int::<u16>(field(3))
        .ok_or_else(|| fail(format!("clues {:?} is not a number", lossy(field(3)))))?;
    let difficulty = std::str::from_utf8(field(4))
        .map(Label::new)
        .map_err(|_| fail("difficulty: not UTF-8".to_string()))?;
    let canonical = if field(5).is_empty() {
        None
    } else {
        Some(cells(5)?)
    };
    let (rating, technique) = (field(6), field(7));
    let rating = if rating.is_empty() && technique.is_empty() {
        None
    } else {
        let parsed = std::str::from_utf8(rating)
            .ok()
            .zip(std::str::from_utf8(technique).ok())
            .and_then(|(r, t)| Rating::parse(r, t));
        Some(parsed.ok_or_else(|| {
            fail(format!(
                "rating {:?} / technique {:?} is not a rating like 2.3 and a technique name",
                lossy(rating),
                lossy(technique)
            ))
        })?)
    };
    Ok(Row {
        line,
        id,
        puzzle,
        solution,
        clues,
        difficulty,
        canonical,
        rating,
    })
}

fn parse_int<T: std::str::FromStr>(bytes: &[u8]) -> Option<T> {
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file in `dir` whose name looks like a shard (`bank-*.csv.zst`), sorted.
pub fn shard_files(dir: &Path) -> Result<Vec<String>, BankError> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_err("reading", dir))? {
        let entry = entry.map_err(io_err("reading", dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("bank-") && name.ends_with(".csv.zst") {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Reads `DIR/seeds-K-of-N.json`.
pub fn read_seed_manifest(path: &Path) -> Result<SeedManifest, SeedFileError> {
    let bytes = fs::read(path).map_err(|error| SeedFileError::Io {
        action: "reading",
        path: path.to_path_buf(),
        error,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| SeedFileError::Corrupt {
        path: path.to_path_buf(),
        what: format!("not a valid seed manifest: {e}"),
    })
}

/// Reads one chunk record of `file` into `head` and `payload` (its metadata, then its
/// boards): `Ok(None)` at a clean end of file or a record cut short or damaged (what
/// a killed writer leaves).
fn read_chunk_record(
    file: &mut impl Read,
    head: &mut [u8; seeds::HEADER_BYTES],
    payload: &mut Vec<u8>,
) -> io::Result<Option<seeds::ChunkHeader>> {
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..])? {
            0 => return Ok(None),
            n => filled += n,
        }
    }
    let Some(h) = seeds::ChunkHeader::decode(head) else {
        return Ok(None);
    };
    payload.clear();
    let want = h.record_bytes() - seeds::HEADER_BYTES as u64;
    let got = file.take(want).read_to_end(payload)?;
    let whole = got as u64 == want && {
        let (meta, boards) = payload.split_at(h.meta_bytes());
        h.checks_meta(head, meta) && h.checks_boards(boards)
    };
    Ok(whole.then_some(h))
}

/// The valid prefix of an interrupted seed file `DIR/seeds-K-of-N.bin.part`: the chunks
/// of `worker` in `layout`, in order, each whole and matching its checksum; it stops
/// at the first one that is not (the writer died there). A missing file has none.
pub fn scan_seed_part(
    path: &Path,
    layout: &seeds::ChunkLayout,
    worker: u64,
) -> Result<SeedScan, SeedFileError> {
    let mut scan = SeedScan {
        chunks: 0,
        bytes: 0,
        hash: Xxh3::new(),
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(scan),
        Err(error) => {
            return Err(SeedFileError::Io {
                action: "opening",
                path: path.to_path_buf(),
                error,
            })
        }
    };
    let mut file = BufReader::with_capacity(1 << 16, file);
    let (mut head, mut payload) = ([0u8; seeds::HEADER_BYTES], Vec::new());
    for c in layout.chunks_of(worker) {
        let h = read_chunk_record(&mut file, &mut head, &mut payload).map_err(|error| {
            SeedFileError::Io {
                action: "reading",
                path: path.to_path_buf(),
                error,
            }
        })?;
        let want = layout.seeds_of(c);
        match h {
            Some(h)
                if h.chunk == c
                    && h.first == want.start
                    && u64::from(h.n_seeds) == want.end - want.start =>
            {
                scan.hash.write(&head);
                scan.hash.write(&payload);
                scan.chunks += 1;
                scan.bytes += (head.len() + payload.len()) as u64;
            }
            _ => break,
        }
    }
    Ok(scan)
}

/// The seed files of stage 1, read by stage 2 in seed order: chunk `c` comes from
/// worker `c % N`'s file. [`SeedFiles::open`] checks every file first (same run,
/// complete, its size as its manifest says, every chunk's header and metadata, and
/// the boards of the chunks this worker writes rows of), so a bad file stops the run
/// before it writes anything; each chunk is checked again as it is read. Of a chunk
/// it writes no rows of, a worker reads only the header and metadata, at their
/// offset.
pub struct SeedFiles {
    layout: seeds::ChunkLayout,
    files: Vec<SeedFile>,
    next_chunk: u64,
    next_seed: u64,
    /// The decompressed boards of the current chunk, whose first seed is `plain_first`
    /// (when `boards` says they were wanted; its header and metadata are in `meta`).
    plain: Vec<u8>,
    boards: bool,
    plain_first: u64,
    plain_seeds: u64,
    /// The current chunk's header and metadata.
    meta: Vec<u8>,
    /// The current chunk's compressed boards (when wanted).
    compressed: Vec<u8>,
    decompressor: zstd::bulk::Decompressor<'static>,
    board_bytes: usize,
    /// Workers of stage 1 (`N`).
    pub workers: u64,
}

/// One worker's seed file, and the offset of the next chunk to read from it.
struct SeedFile {
    path: PathBuf,
    file: File,
    offset: u64,
}

impl SeedFile {
    /// Reads and checks the record of chunk `c` (seeds `want`) at `self.offset` and
    /// moves past it: its header and metadata into `meta`, and, when `boards` is
    /// given, its compressed boards into it.
    fn read_chunk(
        &mut self,
        c: u64,
        want: std::ops::Range<u64>,
        meta: &mut Vec<u8>,
        boards: Option<&mut Vec<u8>>,
    ) -> Result<(), SeedFileError> {
        use std::io::{Seek, SeekFrom};
        let corrupt = |what: String| SeedFileError::Corrupt {
            path: self.path.clone(),
            what,
        };
        let n = want.end - want.start;
        meta.resize(seeds::HEADER_BYTES + n as usize * seeds::META_BYTES, 0);
        let mut read_at = |offset: u64, buf: &mut [u8]| match self
            .file
            .seek(SeekFrom::Start(offset))
            .and_then(|_| self.file.read_exact(buf))
        {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                Err(corrupt(format!("chunk {c} is cut short")))
            }
            Err(error) => Err(SeedFileError::Io {
                action: "reading",
                path: self.path.clone(),
                error,
            }),
            Ok(()) => Ok(()),
        };
        read_at(self.offset, meta)?;
        let (head, rest) = meta.split_at(seeds::HEADER_BYTES);
        let head: &[u8; seeds::HEADER_BYTES] = head.try_into().expect("a header");
        let h = seeds::ChunkHeader::decode(head)
            .filter(|h| h.chunk == c && h.first == want.start && u64::from(h.n_seeds) == n)
            .filter(|h| h.checks_meta(head, rest))
            .ok_or_else(|| corrupt(format!("chunk {c} is missing or damaged")))?;
        let at = self.offset + h.record_bytes() - u64::from(h.board_bytes);
        if let Some(boards) = boards {
            boards.resize(h.board_bytes as usize, 0);
            read_at(at, boards)?;
            if !h.checks_boards(boards) {
                return Err(corrupt(format!("chunk {c}: its boards are damaged")));
            }
        }
        self.offset += h.record_bytes();
        Ok(())
    }
}

impl SeedFiles {
    /// Opens and checks every seed file in `dir` against `expect` (the params of this
    /// run) for boards of `cells` cells; `n_seeds` is the run's seed count, and this
    /// worker writes rows of the ranges of seeds `wanted` says yes to (asked once per
    /// chunk).
    pub fn open(
        dir: &Path,
        expect: &Params,
        n_seeds: u64,
        cells: usize,
        wanted: &dyn Fn(std::ops::Range<u64>) -> bool,
    ) -> Result<SeedFiles, SeedFileError> {
        let io = |action, path: &Path| {
            let path = path.to_path_buf();
            move |error| SeedFileError::Io {
                action,
                path,
                error,
            }
        };
        let mut splits = std::collections::BTreeSet::new();
        for entry in fs::read_dir(dir).map_err(io("reading", dir))? {
            let entry = entry.map_err(io("reading", dir))?;
            if let Some((_, n)) = seeds::parse_manifest_name(&entry.file_name().to_string_lossy()) {
                splits.insert(n);
            }
        }
        let workers = match (splits.first(), splits.last()) {
            (None, _) | (_, None) => return Err(SeedFileError::NoSeedFiles(dir.to_path_buf())),
            (Some(&a), Some(&b)) if a != b => {
                return Err(SeedFileError::MixedSplits {
                    dir: dir.to_path_buf(),
                    a,
                    b,
                })
            }
            (Some(&n), _) => n,
        };
        let layout_of = |m: &SeedManifest| seeds::ChunkLayout {
            n_seeds: m.n_seeds,
            chunk_seeds: m.chunk_seeds,
            workers,
        };
        let mut layout = None;
        let mut files = Vec::new();
        let (mut meta, mut boards) = (Vec::new(), Vec::new());
        for k in 0..workers {
            let mpath = seeds::manifest_path(dir, k, workers);
            if !mpath.exists() {
                return Err(SeedFileError::Missing {
                    path: mpath,
                    worker: k,
                    workers,
                });
            }
            let m = read_seed_manifest(&mpath)?;
            let other = |what: &str| SeedFileError::OtherRun {
                path: mpath.clone(),
                what: what.to_string(),
            };
            if m.version != env!("CARGO_PKG_VERSION") {
                return Err(SeedFileError::OtherVersion {
                    path: mpath,
                    found: m.version,
                    this: env!("CARGO_PKG_VERSION"),
                });
            }
            if let Some(field) = m.params.seed_difference(expect) {
                return Err(other(&field));
            }
            if m.n_seeds != n_seeds {
                return Err(other("the number of seeds"));
            }
            if (m.params.workers, m.params.worker) != (workers, k) || m.chunk_seeds == 0 {
                return Err(SeedFileError::Corrupt {
                    path: mpath,
                    what: "its workers, worker or chunk size contradict its name".into(),
                });
            }
            let this = layout_of(&m);
            if *layout.get_or_insert(this) != this {
                return Err(other("the chunk size"));
            }
            if !m.complete {
                return Err(SeedFileError::Incomplete {
                    path: mpath,
                    worker: k,
                    workers,
                });
            }
            let path = seeds::data_path(dir, k, workers);
            if !path.exists() {
                return Err(SeedFileError::Missing {
                    path,
                    worker: k,
                    workers,
                });
            }
            let file = File::open(&path).map_err(io("opening", &path))?;
            let bytes = file.metadata().map_err(io("reading", &path))?.len();
            let corrupt = |what: &str| SeedFileError::Corrupt {
                path: path.clone(),
                what: what.to_string(),
            };
            if m.chunks != this.chunks_of(k).count() as u64 || bytes != m.bytes {
                return Err(corrupt("its size differs from its manifest"));
            }
            let mut seed_file = SeedFile {
                path: path.clone(),
                file,
                offset: 0,
            };
            // Every chunk's header and metadata, and the boards this worker will use.
            for c in this.chunks_of(k) {
                let want = this.seeds_of(c);
                let mine = wanted(want.clone()).then_some(&mut boards);
                seed_file.read_chunk(c, want, &mut meta, mine)?;
            }
            if seed_file.offset != bytes {
                return Err(corrupt("it holds more than its chunks"));
            }
            seed_file.offset = 0;
            files.push(seed_file);
        }
        let layout = layout.expect("there is at least one worker");
        Ok(SeedFiles {
            layout,
            files,
            next_chunk: 0,
            next_seed: 0,
            plain: Vec::new(),
            boards: false,
            plain_first: 0,
            plain_seeds: 0,
            meta,
            compressed: boards,
            decompressor: zstd::bulk::Decompressor::new()
                .map_err(io("starting to decompress", dir))?,
            board_bytes: seeds::board_bytes(cells),
            workers,
        })
    }

    /// Appends the first-round seeds `range` (boards like `empty`) to `out`. Ranges
    /// must come in order, from seed 0, without gaps. Only a chunk whose range of
    /// seeds `wanted` says yes to is decompressed: the seeds of the others come with their
    /// metadata and key (all that deduplication needs) and `empty` boards.
    pub fn read_seeds<C: Copy + AsMut<[u8]>>(
        &mut self,
        range: std::ops::Range<u64>,
        empty: C,
        wanted: &dyn Fn(std::ops::Range<u64>) -> bool,
        out: &mut Vec<SeedPuzzle<C>>,
    ) -> Result<(), SeedFileError> {
        assert_eq!(range.start, self.next_seed, "seed ranges are read in order");
        for j in range {
            if j >= self.plain_first + self.plain_seeds {
                self.load_chunk(wanted)?;
            }
            let i = (j - self.plain_first) as usize;
            let short = || self.corrupt("a chunk is shorter than it says");
            let meta = &self.meta[seeds::HEADER_BYTES..];
            let mut seed = seeds::decode_meta(meta, i, empty).ok_or_else(short)?;
            if self.boards && !seeds::decode_boards(&self.plain, i, &mut seed) {
                return Err(short());
            }
            out.push(seed);
            self.next_seed = j + 1;
        }
        Ok(())
    }

    fn corrupt(&self, what: &str) -> SeedFileError {
        let w = self.layout.worker_of(self.next_chunk.saturating_sub(1));
        SeedFileError::Corrupt {
            path: self.files[w as usize].path.clone(),
            what: what.to_string(),
        }
    }

    fn load_chunk(
        &mut self,
        wanted: &dyn Fn(std::ops::Range<u64>) -> bool,
    ) -> Result<(), SeedFileError> {
        let c = self.next_chunk;
        self.next_chunk += 1;
        let want = self.layout.seeds_of(c);
        let n = want.end - want.start;
        self.boards = wanted(want.clone());
        let file = &mut self.files[self.layout.worker_of(c) as usize];
        let compressed = self.boards.then_some(&mut self.compressed);
        file.read_chunk(c, want.clone(), &mut self.meta, compressed)?;
        self.plain.clear();
        if self.boards {
            self.plain.reserve(n as usize * self.board_bytes);
            let plain_len = self
                .decompressor
                .decompress_to_buffer(&self.compressed, &mut self.plain)
                .map_err(|e| self.corrupt(&format!("chunk {c}: {e}")))?;
            if plain_len != n as usize * self.board_bytes {
                return Err(self.corrupt(&format!("chunk {c} holds the wrong number of bytes")));
            }
        }
        self.plain_first = want.start;
        self.plain_seeds = n;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const PUZZLE: &str =
        "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";

    fn write_shard(dir: &Path, frames: &[&str]) -> PathBuf {
        let path = dir.join("bank-00000.csv.zst");
        let mut file = File::create(&path).unwrap();
        for text in frames {
            file.write_all(&zstd::encode_all(text.as_bytes(), 3).unwrap())
                .unwrap();
        }
        path
    }

    #[test]
    fn reads_rows_across_frames_and_hashes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let solution = "1".repeat(81);
        let header = std::str::from_utf8(HEADER).unwrap();
        let a = format!("{header}0,{PUZZLE},{solution},26,hard,\n");
        let b = format!(
            "1,{PUZZLE},{solution},26,a-rather-long-band-name-of-more-than-30-bytes,{}\n",
            "0".repeat(81)
        );
        let path = write_shard(dir.path(), &[&a, &b]);
        let mut reader = ShardReader::open(&path).unwrap();
        let r0 = reader.next_row().unwrap().unwrap().unwrap();
        assert_eq!((r0.line, r0.id, r0.clues), (2, 0, 26));
        assert_eq!(grid::Display(&r0.puzzle).to_string(), PUZZLE);
        assert_eq!(r0.difficulty.as_str(), "hard");
        assert_eq!(r0.canonical, None);
        let r1 = reader.next_row().unwrap().unwrap().unwrap();
        assert_eq!((r1.line, r1.id), (3, 1));
        assert_eq!(
            r1.difficulty.as_str(),
            "a-rather-long-band-name-of-more-than-30-bytes"
        );
        assert_eq!(r1.canonical, Some([0; 81]));
        assert!(reader.next_row().is_none());
        let digest = reader.finish().unwrap();
        assert_eq!(digest, digest_file(&path).unwrap());
        assert_eq!(digest.bytes, fs::metadata(&path).unwrap().len());
    }

    #[test]
    fn a_bad_row_names_its_line_and_id_and_the_stream_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let header = std::str::from_utf8(HEADER).unwrap();
        let bad = PUZZLE.replace("43", "4x");
        let text =
            format!("{header}7,{bad},{PUZZLE},26,hard,\n8,short\n9,{PUZZLE},{PUZZLE},2x,hard,\n");
        let path = write_shard(dir.path(), &[&text]);
        let mut reader = ShardReader::open(&path).unwrap();
        let e = reader.next_row().unwrap().unwrap().unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2 (id 7): puzzle: line 2, column 8: unexpected character 'x' (expected 1-9, '.' or '0')"
        );
        let e = reader.next_row().unwrap().unwrap().unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3 (id 8): expected at least 6 fields, found 2"
        );
        let e = reader.next_row().unwrap().unwrap().unwrap_err();
        assert_eq!(e.to_string(), "line 4 (id 9): clues \"2x\" is not a number");
        assert!(reader.next_row().is_none());
    }

    #[test]
    fn a_wrong_header_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_shard(dir.path(), &["id,puzzle\n1,2\n"]);
        let mut reader = ShardReader::open(&path).unwrap();
        let e = reader.read_header().unwrap_err();
        assert!(matches!(e, BankError::Header { .. }));
        assert!(e.to_string().contains("bank-00000.csv.zst"), "{e}");
    }

    #[test]
    fn corrupt_zstd_is_a_fatal_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bank-00000.csv.zst");
        fs::write(&path, b"this is not zstd at all").unwrap();
        let mut reader = ShardReader::open(&path).unwrap();
        let e = reader.next_row().unwrap().unwrap_err();
        assert!(e.to_string().contains("bank-00000.csv.zst"), "{e}");
        assert!(reader.next_row().is_none());
        assert_eq!(reader.finish().unwrap().bytes, 23);
    }

    /// A row's fields and its line.
    type Owned = (Vec<Vec<u8>>, u64);

    /// Every row of the shard at `path` as [`RecordReader::read_rows`] lends them: its
    /// fields and its line, and the file's digest at the end.
    fn lent_rows(path: &Path) -> (Vec<Owned>, Digest) {
        let mut reader = RecordReader::open(path).unwrap();
        reader.read_header().unwrap();
        let (mut rows, mut batch) = (Vec::new(), RawRows::default());
        while reader.read_rows(&mut batch).unwrap() {
            assert!(!batch.is_empty());
            for i in 0..batch.len() {
                let row = batch.row(i);
                let fields = (0..row.len()).map(|f| row.get(f).unwrap().to_vec());
                rows.push((fields.collect(), row.line()));
            }
        }
        (rows, reader.finish().unwrap())
    }

    /// The rows of `text` as the csv crate reads them (the header skipped), with lines.
    fn csv_rows(text: &str) -> Vec<Owned> {
        let mut slow = csv::ReaderBuilder::new()
            .flexible(true)
            .from_reader(text.as_bytes());
        slow.byte_records()
            .map(|r| {
                let r = r.unwrap();
                (r.iter().map(<[u8]>::to_vec).collect(), r.line())
            })
            .collect()
    }

    #[test]
    fn the_record_reader_splits_fast_and_slow_lines_alike() {
        let dir = tempfile::tempdir().unwrap();
        let header = std::str::from_utf8(HEADER).unwrap();
        // A quoted band name with a comma, a quote and a newline; a CRLF line; a last
        // line without a newline; frames cut in the middle of a line.
        let text = format!(
            "{header}0,{PUZZLE},{PUZZLE},26,\"odd, \"\"band\"\"\nname\",,,\n1,{PUZZLE},{PUZZLE},26,hard,,2.3,naked-single\r\n2,{PUZZLE},{PUZZLE},26,hard,,,x"
        );
        let (a, b) = text.split_at(text.len() / 2);
        let path = write_shard(dir.path(), &[a, b]);
        let mut fast = RecordReader::open(&path).unwrap();
        fast.read_header().unwrap();
        fast.read_header().unwrap(); // a second call reads nothing
        assert_eq!(fast.header().len(), header.trim_end().split(',').count());
        let mut slow = csv::ReaderBuilder::new().from_reader(text.as_bytes());
        let mut record = csv::ByteRecord::new();
        let mut lines = Vec::new();
        for want in slow.byte_records() {
            assert!(fast.next_record(&mut record).unwrap());
            assert_eq!(record, want.unwrap());
            lines.push(record.position().unwrap().line());
        }
        assert_eq!(lines, [2, 4, 5]);
        assert!(!fast.next_record(&mut record).unwrap());
        assert_eq!(fast.finish().unwrap(), digest_file(&path).unwrap());
        // Lent rows: the same fields and lines, the quoted record copied on its own.
        // (The csv crate counts the line after a CRLF one short.)
        let (lent, digest) = lent_rows(&path);
        assert_eq!(digest, digest_file(&path).unwrap());
        let fields =
            |rows: Vec<Owned>| -> Vec<Vec<Vec<u8>>> { rows.into_iter().map(|r| r.0).collect() };
        let lent_lines: Vec<u64> = lent.iter().map(|r| r.1).collect();
        assert_eq!(lent_lines, [2, 4, 5]);
        assert_eq!(fields(lent), fields(csv_rows(&text)));
    }

    /// Regression: a shard with a byte-order mark before its header (an editor's)
    /// was clean to `verify`, `stats` and `merge` (the csv crate skips the mark) and
    /// refused by `export`.
    #[test]
    fn both_readers_skip_a_byte_order_mark() {
        let dir = tempfile::tempdir().unwrap();
        let header = std::str::from_utf8(HEADER).unwrap();
        let row = format!("0,{PUZZLE},{PUZZLE},26,hard,,2.3,naked-single\n");
        let path = write_shard(dir.path(), &[&format!("\u{feff}{header}{row}")]);
        let mut slow = ShardReader::open(&path).unwrap();
        slow.read_header().unwrap();
        let mut fast = RecordReader::open(&path).unwrap();
        fast.read_header().unwrap();
        assert_eq!(fast.header().get(0), Some(&b"id"[..]));
        let (rows, digest) = lent_rows(&path);
        assert_eq!(rows.len(), 1);
        assert_eq!(digest, digest_file(&path).unwrap());
    }

    #[test]
    fn the_record_reader_reads_across_many_chunks_with_quoted_lines_on_their_edges() {
        // ~1.5 MB of rows, several read-ahead chunks; every third row has a quoted field
        // holding newlines, so some chunk edges (cut at a newline) fall inside a quote.
        let dir = tempfile::tempdir().unwrap();
        let header = std::str::from_utf8(HEADER).unwrap();
        let mut text = header.to_string();
        for id in 0..8000 {
            if id % 3 == 0 {
                text += &format!("{id},{PUZZLE},{PUZZLE},26,\"a\nquoted,\n\nband\",,,\n");
            } else {
                text += &format!("{id},{PUZZLE},{PUZZLE},26,hard,,1.2,hidden-single\n");
            }
        }
        let path = write_shard(dir.path(), &[&text]);
        let mut fast = RecordReader::open(&path).unwrap();
        fast.read_header().unwrap();
        let mut slow = csv::ReaderBuilder::new().from_reader(text.as_bytes());
        let mut record = csv::ByteRecord::new();
        let mut n = 0;
        for want in slow.byte_records() {
            let want = want.unwrap();
            assert!(fast.next_record(&mut record).unwrap(), "row {n}");
            assert_eq!(record, want, "row {n}");
            assert_eq!(
                record.position().unwrap().line(),
                want.position().unwrap().line()
            );
            n += 1;
        }
        assert_eq!(n, 8000);
        assert!(!fast.next_record(&mut record).unwrap());
        assert_eq!(fast.finish().unwrap(), digest_file(&path).unwrap());
        assert_eq!(
            lent_rows(&path),
            (csv_rows(&text), digest_file(&path).unwrap())
        );
        // Without quotes, whole chunks are lent; cut into frames mid-line, and with a
        // last line that has no newline.
        let plain: String = (0..8000)
            .map(|id| format!("{id},{PUZZLE},{PUZZLE},26,hard,,1.2,hidden-single\n"))
            .collect();
        let plain = format!("{header}{}7,{PUZZLE},,,", plain);
        let (a, b) = plain.split_at(plain.len() / 3);
        let path = write_shard(dir.path(), &[a, b]);
        let (rows, digest) = lent_rows(&path);
        assert_eq!(rows.len(), 8001);
        assert_eq!(
            (rows, digest),
            (csv_rows(&plain), digest_file(&path).unwrap())
        );
        // Dropped half-way (export --limit), the reader and its thread just stop.
        let mut early = RecordReader::open(&path).unwrap();
        early.read_header().unwrap();
        assert!(early.next_record(&mut record).unwrap());
        drop(early);
    }

    #[test]
    fn a_missing_manifest_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_manifest(dir.path()).unwrap_err();
        assert!(e.to_string().contains("manifest.json"), "{e}");
        fs::write(dir.path().join(MANIFEST), b"{").unwrap();
        let e = read_manifest(dir.path()).unwrap_err();
        assert!(matches!(e, BankError::Manifest { .. }));
    }
}
