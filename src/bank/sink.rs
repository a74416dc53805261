//! The bank on disk: zstd-compressed CSV shards and the manifest. This is the only
//! module that writes bank files.
//!
//! Layout (DESIGN.md): `OUT/bank-00000.csv.zst`, … each a zstd frame of CSV with a
//! header row and `shard_rows` rows (the last shorter), plus `OUT/manifest.json`.
//! Crash safety: a shard is written under a hidden temporary name, fsynced, renamed to
//! its final name and the directory fsynced; only then is the manifest rewritten the
//! same way. So a file under a final name is always complete, and the manifest only
//! lists such files.
//!
//! The writer takes *blocks*: already formatted CSV rows for a contiguous id range
//! that never crosses a shard boundary (see [`BankWriter::next_boundary`]). Formatting
//! happens in parallel upstream; here rows are only copied into the compressor, so
//! there is no per-row work and no lock per row.

use crate::signals::{creating, remove_on_signal, OnSignal};
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use std::hash::Hasher as _;
use twox_hash::XxHash3_64 as Xxh3;

use crate::bank::seeds::{self, SeedManifest};
use crate::engine::board::{Board, Rating};
use crate::engine::grade::{BandTable, Scale};
use crate::engine::grid::Size;

/// The CSV header of every shard.
pub const HEADER: &[u8] = b"id,puzzle,solution,clues,difficulty,canonical,rating,technique\n";
/// Name of the manifest inside a bank directory.
pub const MANIFEST: &str = "manifest.json";

/// The zstd level shards are written at unless `--zstd-level` says otherwise. On
/// these rows (mostly random digits, which leave long matches rare) level 1 is both
/// faster and smaller than 3 (and than every level up to 9): a default
/// 1,000,000-row 9×9 bank is 72.0 MB at level 1 against 77.8 MB at 3, and its
/// generation takes a fifth less CPU (4×4, 16×16 and 25×25 banks are also no
/// larger). Banks made before 0.4.2 used 3.
pub const DEFAULT_ZSTD_LEVEL: i32 = 1;
/// Directory of the stage histograms inside a bank directory.
pub const HISTOGRAMS: &str = "histograms";

/// Why the sink refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    #[error("{0} already holds a bank (found {1}); pass --force to replace it")]
    Occupied(PathBuf, String),
    #[error("{0} exists and is not a directory; a bank is a directory")]
    NotADirectory(PathBuf),
    #[error("{dir} holds {file}, seed files of a stage-1 split into {workers} workers; stage 2 reads one split: give this one another --out, or remove those files")]
    OtherSplit {
        dir: PathBuf,
        file: String,
        workers: u64,
    },
    #[error("{0} does not match its size or checksum in the manifest; the bank cannot be resumed (check it with `sudoku-factory verify`)")]
    Corrupt(PathBuf),
    #[error("{action} {path}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
}

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> SinkError + 'a {
    move |source| SinkError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// One finished shard as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardRecord {
    pub file: String,
    pub first_id: u64,
    pub last_id: u64,
    pub rows: u64,
    pub bytes: u64,
    /// XXH3-64 of the compressed file, lowercase hex.
    pub xxh3: String,
}

/// `OUT/manifest.json`: enough to check the bank and to regenerate it exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub tool: String,
    pub version: String,
    /// The generation parameters, as the command line gave them (after defaults).
    pub params: Params,
    pub shards: Vec<ShardRecord>,
    pub rows: u64,
    pub bytes: u64,
    pub complete: bool,
}

/// A manifest's `params`: what the bank was made with, enough to check it and, for
/// a generated bank, to make it again (`generate --resume`). Every field has a
/// default, so a manifest written before a field existed still reads; fields a
/// merged bank does not have (`seed`, `fill`, ...) are absent from its JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Params {
    /// Board side: 4, 9, 16 or 25 (banks from before other sizes existed: 9).
    pub size: u64,
    /// Rows of the bank when complete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Rows made from each seed.
    pub variants: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fill: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carve: Option<String>,
    pub symmetry: String,
    /// The band table, as `--bands` takes it (`default` for the size's table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bands: Option<String>,
    /// The selected bands, comma-separated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<String>,
    /// What the bands grade by: `rating` for `--grade rating`; absent for clue
    /// counts (so a clue-graded bank's manifest is unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grade: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    pub shard_rows: u64,
    pub zstd_level: i32,
    /// Seeds per batch of the build that made the bank (resume needs the same).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed_batch: Option<u64>,
    pub workers: u64,
    pub worker: u64,
    /// Stage 2 of a staged run (`--stage expand`): the directory of stage 1's seed
    /// files, as given on the command line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeds: Option<String>,
    /// How a merged bank was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge: Option<MergeParams>,
    /// False for `generate --no-rating`: the `rating`/`technique` columns are left
    /// empty. Written only when false, so a rated bank's manifest is unchanged.
    #[serde(default = "rated_by_default", skip_serializing_if = "is_rated")]
    pub rating: bool,
}

fn rated_by_default() -> bool {
    true
}

fn is_rated(rating: &bool) -> bool {
    *rating
}

impl Default for Params {
    fn default() -> Params {
        Params {
            size: 9,
            count: None,
            seed: None,
            variants: 1,
            fill: None,
            carve: None,
            symmetry: "none".into(),
            bands: None,
            difficulty: None,
            grade: None,
            max_attempts: None,
            shard_rows: 1_000_000,
            zstd_level: DEFAULT_ZSTD_LEVEL,
            seed_batch: None,
            workers: 1,
            worker: 0,
            seeds: None,
            merge: None,
            rating: true,
        }
    }
}

impl Manifest {
    /// The sudoku-factory version whose rater gave the rating columns: the version
    /// that wrote the bank, or for a merge the oldest of its inputs' (a merge copies
    /// ratings, it does not rate).
    pub fn rated_by(&self) -> &str {
        let inputs = self.params.merge.as_ref().map(|m| m.inputs.as_slice());
        match inputs {
            Some(inputs) if !inputs.is_empty() => inputs
                .iter()
                .map(|i| i.rated_by.as_deref().unwrap_or(&self.version))
                .min_by_key(|v| version_key(v))
                .unwrap_or(&self.version),
            _ => &self.version,
        }
    }
}

/// A version `MAJOR.MINOR.PATCH` as a key that sorts in release order; an unreadable
/// one sorts last (it counts as current).
pub fn version_key(version: &str) -> (u64, u64, u64) {
    let mut it = version.split('.').map(|p| p.parse::<u64>().ok());
    match (it.next(), it.next(), it.next()) {
        (Some(Some(a)), Some(Some(b)), Some(Some(c))) => (a, b, c),
        _ => (u64::MAX, u64::MAX, u64::MAX),
    }
}

impl Params {
    /// The scale the bank's bands grade by: `clues` (the default) or `rating`.
    pub fn grade_scale(&self) -> &str {
        self.grade.as_deref().unwrap_or("clues")
    }

    /// The bank's band table, read on its scale; `None` when it records none (a
    /// merge of different tables) or one this build cannot read.
    pub fn band_table(&self, size: Size) -> Option<BandTable> {
        let scale = Scale::from_name(self.grade_scale())?;
        BandTable::parse_scaled(self.bands.as_deref()?, size, scale).ok()
    }

    /// The board size `size` names.
    pub fn board_size(&self) -> Result<Size, String> {
        usize::try_from(self.size)
            .ok()
            .and_then(Size::from_side)
            .ok_or_else(|| format!("size {} is not 4, 9, 16 or 25", self.size))
    }

    /// The same run: equal params but for the worker split (`workers`, `worker`) and
    /// where a staged run's seeds were read from (`seeds`: the same bytes either way,
    /// and each node may mount the directory under its own path).
    pub fn same_run(&self, other: &Params) -> bool {
        let strip = |p: &Params| Params {
            workers: 0,
            worker: 0,
            seeds: None,
            ..p.clone()
        };
        strip(self) == strip(other)
    }

    /// The same seed population: equal params but for what only the expansion and
    /// the split use (`workers`, `worker`, `shard_rows`, `zstd_level`, `seeds`). `None`
    /// when equal, else the name of a field that differs.
    pub fn seed_difference(&self, other: &Params) -> Option<&'static str> {
        let (a, b) = (self, other);
        let fields: [(&'static str, bool); 12] = [
            ("size", a.size == b.size),
            ("count", a.count == b.count),
            ("seed", a.seed == b.seed),
            ("variants", a.variants == b.variants),
            ("fill", a.fill == b.fill),
            ("carve", a.carve == b.carve),
            ("symmetry", a.symmetry == b.symmetry),
            ("bands", a.bands == b.bands),
            ("difficulty", a.difficulty == b.difficulty),
            ("grade", a.grade == b.grade),
            ("max_attempts", a.max_attempts == b.max_attempts),
            ("seed_batch", a.seed_batch == b.seed_batch),
        ];
        fields.iter().find(|(_, same)| !same).map(|(name, _)| *name)
    }
}

/// `params.merge` of a merged bank.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeParams {
    /// `id` (the workers of one run) or `input` (input by input).
    pub order: String,
    pub max_per_class: Option<u64>,
    /// The `variants` whose frame layout the merged bank follows.
    pub layout_variants: u32,
    pub inputs: Vec<MergeInput>,
}

/// One input of a merge, for provenance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeInput {
    pub dir: String,
    pub rows: u64,
    pub params: Params,
    /// The sudoku-factory version whose rater gave the input's rating columns (its
    /// [`Manifest::rated_by`]); absent from merges made by earlier builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated_by: Option<String>,
}

/// Settings of the sink.
#[derive(Clone, Debug)]
pub struct SinkConfig {
    pub dir: PathBuf,
    pub shard_rows: u64,
    pub force: bool,
}

/// A `Write` that hashes and counts what passes through it.
struct Hashing<W> {
    inner: W,
    hash: Xxh3,
    bytes: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.write(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Turns one block of formatted CSV rows into one zstd frame, on whichever thread
/// formats the block. A shard is the concatenation of its blocks' frames (a valid
/// zstd stream: `zstdcat` and pandas read it whole), so compression runs on every
/// core and the writer thread only appends bytes. Frames depend only on the block's
/// rows, never on the thread that made them: the bytes stay deterministic.
pub struct FrameEncoder {
    compressor: zstd::bulk::Compressor<'static>,
}

impl FrameEncoder {
    /// An encoder at zstd `level`; its context is reused for every block.
    pub fn new(level: i32) -> io::Result<FrameEncoder> {
        Ok(FrameEncoder {
            compressor: zstd::bulk::Compressor::new(level)?,
        })
    }

    /// Starts the plain text of the block that begins at `first_id`: the CSV header
    /// when the block opens a shard.
    pub fn begin_block(shard_rows: u64, first_id: u64, plain: &mut Vec<u8>) {
        plain.clear();
        if first_id % shard_rows == 0 {
            plain.extend_from_slice(HEADER);
        }
    }

    /// Compresses `plain` into `frame` (cleared first), reusing both buffers.
    pub fn encode(&mut self, plain: &[u8], frame: &mut Vec<u8>) -> io::Result<()> {
        frame.clear();
        frame.reserve(zstd::zstd_safe::compress_bound(plain.len()));
        self.compressor.compress_to_buffer(plain, frame)?;
        Ok(())
    }
}

struct OpenShard {
    index: u64,
    tmp: PathBuf,
    /// Removes `tmp` if a signal ends the run before the shard is renamed into place.
    _on_signal: OnSignal,
    file: Hashing<BufWriter<File>>,
    first_id: u64,
    rows: u64,
}

/// Streams blocks of rows into shards and keeps the manifest current.
pub struct BankWriter {
    config: SinkConfig,
    manifest: Manifest,
    open: Option<OpenShard>,
}

/// The file name of shard `index`.
pub fn shard_name(index: u64) -> String {
    format!("bank-{index:05}.csv.zst")
}

/// The index of the shard named `name`, the inverse of [`shard_name`] (`None` for
/// any other name, `bank-1.csv.zst` included).
pub fn shard_index(name: &str) -> Option<u64> {
    let index = name.strip_prefix("bank-")?.strip_suffix(".csv.zst")?;
    let index: u64 = index.parse().ok()?;
    (shard_name(index) == name).then_some(index)
}

fn is_bank_file(name: &str) -> bool {
    name == MANIFEST
        || name == HISTOGRAMS
        || (name.starts_with("bank-") && name.ends_with(".csv.zst"))
        || (name.starts_with(".bank-") && name.ends_with(".tmp"))
        || name == ".manifest.json.tmp"
}

/// Writes `bytes` to `path` atomically: temporary file, fsync, rename, fsync the dir.
fn write_atomic(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), SinkError> {
    replace_file(dir, path, bytes, true)?;
    sync_dir(dir)
}

/// Writes `bytes` under a temporary name and renames it to `path`, so a reader never
/// sees a partial file; with `durable` the data is fsynced before the rename.
fn replace_file(dir: &Path, path: &Path, bytes: &[u8], durable: bool) -> Result<(), SinkError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.tmp"));
    let _on_signal = remove_on_signal(tmp.clone(), false);
    let written = (|| {
        let mut f = creating(|| File::create(&tmp)).map_err(io_err("creating", &tmp))?;
        f.write_all(bytes).map_err(io_err("writing", &tmp))?;
        if durable {
            f.sync_all().map_err(io_err("syncing", &tmp))?;
        }
        drop(f);
        fs::rename(&tmp, path).map_err(io_err("renaming into place", path))
    })();
    if written.is_err() {
        // Never leave a half-written file behind, even a hidden one.
        let _ = fs::remove_file(&tmp);
    }
    written
}

fn sync_dir(dir: &Path) -> Result<(), SinkError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err("syncing directory", dir))
}

/// Frames in flight between a producer and the writer thread: the bound is what
/// keeps memory flat when the disk is slower than the producer.
const FRAMES_IN_FLIGHT: usize = 8;

/// The producer's end of [`write_frames`]: sends frames to the writer thread in id
/// order, and gets their buffers back for reuse.
pub struct FrameSender {
    frames: mpsc::SyncSender<(u64, u64, Vec<u8>)>,
    recycled: mpsc::Receiver<Vec<u8>>,
}

impl FrameSender {
    /// A buffer for the next frame: one the writer is done with, or a new one.
    pub fn buffer(&self) -> Vec<u8> {
        self.recycled.try_recv().unwrap_or_default()
    }

    /// Sends the frame of rows `first_id..first_id + n_rows`; `false` when the
    /// writer has stopped (its error is what [`write_frames`] returns).
    #[must_use]
    pub fn send(&self, first_id: u64, n_rows: u64, frame: Vec<u8>) -> bool {
        self.frames.send((first_id, n_rows, frame)).is_ok()
    }
}

/// Runs `produce` on this thread while a writer thread appends the frames it sends
/// to `writer`, so that file writes and fsyncs overlap the next frames' work; then,
/// only if `produce` succeeded, finishes the bank. A producer that fails (a band it
/// cannot reach) leaves the bank incomplete — its written shards listed, resumable —
/// never a manifest marked complete that holds part of the rows. `on_write(elapsed,
/// rows)` runs on the writer thread after each frame. The one writer of `generate`
/// and `merge`. An error of the writer wins over the producer's, because it explains
/// why the producer stopped.
pub fn write_frames<E: From<SinkError>>(
    writer: BankWriter,
    mut on_write: impl FnMut(Duration, u64) + Send,
    produce: impl FnOnce(&FrameSender) -> Result<(), E>,
) -> Result<Manifest, E> {
    let (to_writer, frames) = mpsc::sync_channel::<(u64, u64, Vec<u8>)>(FRAMES_IN_FLIGHT);
    let (recycle, recycled) = mpsc::channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        let writer_thread = scope.spawn(move || -> Result<BankWriter, SinkError> {
            let mut writer = writer;
            for (first_id, n_rows, frame) in frames {
                let t = Instant::now();
                writer.write_block(first_id, n_rows, &frame)?;
                on_write(t.elapsed(), n_rows);
                let _ = recycle.send(frame);
            }
            Ok(writer)
        });
        let sender = FrameSender {
            frames: to_writer,
            recycled,
        };
        let produced = produce(&sender);
        drop(sender);
        let written = writer_thread
            .join()
            .expect("the writer thread does not panic");
        match (produced, written) {
            (_, Err(e)) => Err(E::from(e)),
            // Dropped unfinished: the open shard's temporary file is removed.
            (Err(e), Ok(_)) => Err(e),
            (Ok(()), Ok(writer)) => writer.finish().map_err(E::from),
        }
    })
}

/// One row on its way out, borrowed from whoever made it (the pipeline's seed and
/// variant, `merge`'s record): the fields of DESIGN.md's columns.
#[derive(Clone, Copy, Debug)]
pub struct RowOut<'a, C> {
    pub id: u64,
    pub puzzle: &'a C,
    pub solution: &'a C,
    pub clues: u16,
    pub band: &'a str,
    pub canonical: Option<&'a C>,
    pub rating: Option<Rating>,
}

/// Appends one CSV row of a bank (DESIGN.md's columns `id,puzzle,solution,clues,
/// difficulty,canonical,rating,technique`) for boards `B`: the one row format of
/// `generate` and `merge`. `canonical: None` leaves its field empty, `rating: None`
/// the last two (sizes without a rater). A band name that needs CSV
/// quoting (never a generated one: those are `[A-Za-z0-9_-]`) is quoted.
pub fn format_row<B: Board>(out: &mut Vec<u8>, row: &RowOut<'_, B::Cells>) {
    let RowOut {
        id,
        puzzle,
        solution,
        clues,
        band,
        canonical,
        rating,
    } = *row;
    // A board's cells are exactly as many bytes as its text: the buffer is one.
    let mut text = B::empty();
    let buf = text.as_mut();
    let mut num = itoa::Buffer::new();
    out.extend_from_slice(num.format(id).as_bytes());
    out.push(b',');
    B::format_into(puzzle, buf);
    out.extend_from_slice(buf);
    out.push(b',');
    B::format_into(solution, buf);
    out.extend_from_slice(buf);
    out.push(b',');
    out.extend_from_slice(num.format(clues).as_bytes());
    out.push(b',');
    if band.contains([',', '"', '\n', '\r']) {
        out.push(b'"');
        out.extend_from_slice(band.replace('"', "\"\"").as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(band.as_bytes());
    }
    out.push(b',');
    if let Some(c) = canonical {
        B::format_zeros_into(c, buf);
        out.extend_from_slice(buf);
    }
    out.push(b',');
    if let Some(r) = rating {
        out.extend_from_slice(num.format(r.rating / 10).as_bytes());
        out.push(b'.');
        out.push(b'0' + r.rating % 10);
        out.push(b',');
        out.extend_from_slice(r.technique.name().as_bytes());
    } else {
        out.push(b',');
    }
    out.push(b'\n');
}

/// Name of the scratch directory under an output directory (hidden; see [`SpillDir`]).
const SPILL_DIR: &str = ".merge-spill";

/// A buffered scratch file being written.
pub type SpillWriter = BufWriter<File>;
/// A buffered scratch file being read.
pub type SpillReader = BufReader<File>;

/// Scratch files for work that does not fit in memory (`merge`'s partitions and
/// sorted runs): a hidden directory under the output directory, removed with
/// everything in it when dropped, on success or error. Never holds a bank file.
pub struct SpillDir {
    path: PathBuf,
    _on_signal: OnSignal,
}

impl SpillDir {
    /// Creates the scratch directory under `out` (and `out` itself if needed).
    pub fn create(out: &Path) -> Result<SpillDir, SinkError> {
        let path = out.join(SPILL_DIR);
        let on_signal = remove_on_signal(path.clone(), true);
        creating(|| fs::create_dir_all(&path)).map_err(io_err("creating", &path))?;
        Ok(SpillDir {
            path,
            _on_signal: on_signal,
        })
    }

    /// Removes the scratch directory a killed merge (Ctrl-C, SIGKILL: no destructor
    /// ran) left under `out`; a merge into `out` calls it first, spilling or not.
    pub fn sweep_stale(out: &Path) {
        let _ = fs::remove_dir_all(out.join(SPILL_DIR));
    }

    /// The path of scratch file `i` of `kind`.
    pub fn file(&self, kind: &str, i: u64) -> PathBuf {
        self.path.join(format!(".{kind}-{i:05}.tmp"))
    }

    /// Creates (or truncates) scratch file `i` of `kind` for writing, under the signal
    /// sweep's lock (regression: a merge interrupted while it created its partitions
    /// left the directory behind, its sweep racing the files still being created).
    pub fn create_file(&self, kind: &str, i: u64, buffer: usize) -> Result<SpillWriter, SinkError> {
        let path = self.file(kind, i);
        let f = creating(|| File::create(&path)).map_err(io_err("creating", &path))?;
        Ok(BufWriter::with_capacity(buffer, f))
    }

    /// Opens scratch file `i` of `kind` for reading.
    pub fn open_file(&self, kind: &str, i: u64, buffer: usize) -> Result<SpillReader, SinkError> {
        let path = self.file(kind, i);
        let f = File::open(&path).map_err(io_err("opening", &path))?;
        Ok(BufReader::with_capacity(buffer, f))
    }

    /// Deletes scratch file `i` of `kind` (once read, to give the space back early).
    pub fn remove_file(&self, kind: &str, i: u64) -> Result<(), SinkError> {
        let path = self.file(kind, i);
        fs::remove_file(&path).map_err(io_err("removing", &path))
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// Removes `dir` if it is empty (a failed command that created it leaves nothing).
pub fn remove_dir_if_empty(dir: &Path) {
    let _ = fs::remove_dir(dir);
}

/// Refuses `dir` if it already holds bank files, unless `force`; writes nothing.
/// For commands that must fail before a long computation rather than after it
/// (`merge`); [`BankWriter::create`] still checks again and clears the old files.
pub fn refuse_occupied(dir: &Path, force: bool) -> Result<(), SinkError> {
    if dir.exists() && !dir.is_dir() {
        return Err(SinkError::NotADirectory(dir.to_path_buf()));
    }
    if force || !dir.exists() {
        return Ok(());
    }
    match bank_files(dir)?.into_iter().next() {
        Some(name) => Err(SinkError::Occupied(dir.to_path_buf(), name)),
        None => Ok(()),
    }
}

/// The names of the bank files (shards, manifest, histograms, leftovers) in `dir`, sorted.
fn bank_files(dir: &Path) -> Result<Vec<String>, SinkError> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_err("reading", dir))? {
        let entry = entry.map_err(io_err("reading", dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_bank_file(&name) {
            found.push(name);
        }
    }
    found.sort();
    Ok(found)
}

/// Checks that every shard `manifest` lists in `dir` has its listed size and XXH3
/// (what `--resume` relies on, whether the bank is complete or not).
pub fn check_listed_shards(dir: &Path, manifest: &Manifest) -> Result<(), SinkError> {
    for shard in &manifest.shards {
        let path = dir.join(&shard.file);
        let bytes = fs::read(&path).map_err(io_err("reading listed shard", &path))?;
        let sum = format!("{:016x}", twox_hash::XxHash3_64::oneshot(&bytes));
        if bytes.len() as u64 != shard.bytes || sum != shard.xxh3 {
            return Err(SinkError::Corrupt(path));
        }
    }
    Ok(())
}

impl BankWriter {
    /// Prepares `config.dir`: creates it, or refuses an existing bank unless `force`
    /// (then removes the old bank's files, and only those).
    pub fn create(config: SinkConfig, params: Params) -> Result<BankWriter, SinkError> {
        let dir = &config.dir;
        if dir.exists() && !dir.is_dir() {
            return Err(SinkError::NotADirectory(dir.clone()));
        }
        fs::create_dir_all(dir).map_err(io_err("creating", dir))?;
        let found = bank_files(dir)?;
        if !found.is_empty() {
            if !config.force {
                return Err(SinkError::Occupied(dir.clone(), found[0].clone()));
            }
            for name in &found {
                let path = dir.join(name);
                if name == HISTOGRAMS {
                    fs::remove_dir_all(&path).map_err(io_err("removing old histograms", &path))?;
                } else {
                    fs::remove_file(&path).map_err(io_err("removing old bank file", &path))?;
                }
            }
        }
        let writer = BankWriter {
            manifest: Manifest {
                tool: env!("CARGO_PKG_NAME").to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                params,
                shards: Vec::new(),
                rows: 0,
                bytes: 0,
                complete: false,
            },
            config,
            open: None,
        };
        // Written before any shard, so that a run killed at any moment can be resumed.
        writer.write_manifest()?;
        Ok(writer)
    }

    /// Reopens a bank whose run was interrupted: keeps the shards `manifest` lists
    /// (after checking each one's size and checksum), deletes everything else of a
    /// bank (temporary files, a shard renamed before the manifest caught up), and
    /// continues after the last listed shard.
    pub fn resume(config: SinkConfig, mut manifest: Manifest) -> Result<BankWriter, SinkError> {
        let dir = &config.dir;
        check_listed_shards(dir, &manifest)?;
        let listed: Vec<&str> = manifest.shards.iter().map(|s| s.file.as_str()).collect();
        // The histograms of an earlier run are kept until this run replaces them.
        for name in bank_files(dir)? {
            if name != MANIFEST && name != HISTOGRAMS && !listed.contains(&name.as_str()) {
                let path = dir.join(&name);
                fs::remove_file(&path).map_err(io_err("removing unfinished file", &path))?;
            }
        }
        // Totals are derived from the listed shards, never trusted from the file.
        manifest.rows = manifest.shards.iter().map(|s| s.rows).sum();
        manifest.bytes = manifest.shards.iter().map(|s| s.bytes).sum();
        manifest.complete = false;
        Ok(BankWriter {
            config,
            manifest,
            open: None,
        })
    }

    /// The first id after `id` at which a new shard starts: blocks must end there.
    pub fn next_boundary(shard_rows: u64, id: u64) -> u64 {
        (id / shard_rows + 1) * shard_rows
    }

    /// Appends the frame of a block of `n_rows` rows starting at id `first_id` (made by
    /// [`FrameEncoder`]). Blocks arrive in id order and never cross a shard boundary.
    pub fn write_block(
        &mut self,
        first_id: u64,
        n_rows: u64,
        frame: &[u8],
    ) -> Result<(), SinkError> {
        if n_rows == 0 {
            return Ok(());
        }
        let index = first_id / self.config.shard_rows;
        debug_assert_eq!(index, (first_id + n_rows - 1) / self.config.shard_rows);
        if self.open.is_none() {
            self.open = Some(self.open_shard(index, first_id)?);
        }
        let shard = self.open.as_mut().expect("opened above");
        debug_assert_eq!(shard.index, index);
        debug_assert_eq!(shard.first_id + shard.rows, first_id);
        shard
            .file
            .write_all(frame)
            .map_err(io_err("writing", &shard.tmp))?;
        shard.rows += n_rows;
        if first_id + n_rows == (index + 1) * self.config.shard_rows {
            self.close_shard()?;
        }
        Ok(())
    }

    fn open_shard(&self, index: u64, first_id: u64) -> Result<OpenShard, SinkError> {
        let tmp = self.config.dir.join(format!(".{}.tmp", shard_name(index)));
        let on_signal = remove_on_signal(tmp.clone(), false);
        let file = creating(|| File::create(&tmp)).map_err(io_err("creating shard", &tmp))?;
        Ok(OpenShard {
            index,
            tmp,
            _on_signal: on_signal,
            file: Hashing {
                inner: BufWriter::with_capacity(1 << 20, file),
                hash: Xxh3::new(),
                bytes: 0,
            },
            first_id,
            rows: 0,
        })
    }

    fn close_shard(&mut self) -> Result<(), SinkError> {
        let Some(shard) = self.open.take() else {
            return Ok(());
        };
        let tmp = shard.tmp.clone();
        let result = (|| {
            let hashing = shard.file;
            let file = hashing.inner.into_inner().map_err(|e| SinkError::Io {
                action: "flushing",
                path: tmp.clone(),
                source: e.into_error(),
            })?;
            file.sync_all().map_err(io_err("syncing", &tmp))?;
            let name = shard_name(shard.index);
            let path = self.config.dir.join(&name);
            fs::rename(&tmp, &path).map_err(io_err("renaming shard into place", &path))?;
            sync_dir(&self.config.dir)?;
            self.manifest.shards.push(ShardRecord {
                file: name,
                first_id: shard.first_id,
                last_id: shard.first_id + shard.rows - 1,
                rows: shard.rows,
                bytes: hashing.bytes,
                xxh3: format!("{:016x}", hashing.hash.finish()),
            });
            self.manifest.rows += shard.rows;
            self.manifest.bytes += hashing.bytes;
            self.write_manifest()
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }

    fn write_manifest(&self) -> Result<(), SinkError> {
        let mut json = serde_json::to_vec_pretty(&self.manifest).expect("manifest serialises");
        json.push(b'\n');
        write_atomic(&self.config.dir, &self.config.dir.join(MANIFEST), &json)
    }

    /// Closes the last shard and marks the manifest complete.
    pub fn finish(mut self) -> Result<Manifest, SinkError> {
        self.close_shard()?;
        self.manifest.complete = true;
        self.write_manifest()?;
        Ok(self.manifest.clone())
    }
}

/// Writes each stage's `.hgrm` and `.hlog` under `OUT/histograms/`, each under a
/// temporary name and renamed. Measurements, not bank data: one fsync of the
/// directory at the end instead of two per file, which cost more than recording the
/// histograms on a short run.
pub fn write_histograms(
    dir: &Path,
    reports: &[crate::run::timing::StageReport],
) -> Result<(), SinkError> {
    if reports.is_empty() {
        return Ok(());
    }
    let hist_dir = dir.join(HISTOGRAMS);
    fs::create_dir_all(&hist_dir).map_err(io_err("creating", &hist_dir))?;
    for r in reports {
        let stem = r.stage.name();
        replace_file(
            &hist_dir,
            &hist_dir.join(format!("{stem}.hgrm")),
            r.hgrm.as_bytes(),
            false,
        )?;
        replace_file(
            &hist_dir,
            &hist_dir.join(format!("{stem}.hlog")),
            &r.hlog,
            false,
        )?;
    }
    sync_dir(&hist_dir)
}

impl Drop for BankWriter {
    /// A run that fails (or panics) must not leave a half-written shard behind.
    fn drop(&mut self) {
        if let Some(shard) = self.open.take() {
            let _ = fs::remove_file(&shard.tmp);
        }
    }
}

/// Writes one stage-1 worker's seed file (format: [`crate::bank::seeds`]): chunk
/// records appended to `seeds-K-of-N.bin.part` and flushed one by one (a killed
/// worker keeps every complete chunk), then fsynced and renamed to `seeds-K-of-N.bin`,
/// and only then the manifest marked complete with the file's size and checksum.
pub struct SeedFileWriter {
    dir: PathBuf,
    part: PathBuf,
    manifest: SeedManifest,
    file: Hashing<BufWriter<File>>,
}

/// What a resumed seed file keeps: its valid chunks, their bytes and their hash so far
/// (from [`crate::bank::reader::scan_seed_part`]).
pub struct SeedScan {
    pub chunks: u64,
    pub bytes: u64,
    pub hash: Xxh3,
}

impl SeedFileWriter {
    /// Starts the seed file of worker `manifest.params.worker` of
    /// `manifest.params.workers` in `dir` (created if missing); refuses to replace
    /// that worker's files unless `force`. Other workers' files are never touched.
    pub fn create(
        dir: &Path,
        manifest: SeedManifest,
        force: bool,
    ) -> Result<SeedFileWriter, SinkError> {
        fs::create_dir_all(dir).map_err(io_err("creating", dir))?;
        let (k, n) = (manifest.params.worker, manifest.params.workers);
        // Stage 2 refuses a directory of two splits: say so now, before the work.
        for entry in fs::read_dir(dir).map_err(io_err("reading", dir))? {
            let name = entry.map_err(io_err("reading", dir))?.file_name();
            let name = name.to_string_lossy();
            if let Some((_, workers)) = seeds::parse_manifest_name(&name) {
                if workers != n {
                    return Err(SinkError::OtherSplit {
                        dir: dir.to_path_buf(),
                        file: name.into_owned(),
                        workers,
                    });
                }
            }
        }
        let mine = [
            seeds::manifest_path(dir, k, n),
            seeds::data_path(dir, k, n),
            seeds::part_path(dir, k, n),
        ];
        for path in &mine {
            if path.exists() {
                if !force {
                    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                    return Err(SinkError::Occupied(
                        dir.to_path_buf(),
                        name.unwrap_or_default(),
                    ));
                }
                fs::remove_file(path).map_err(io_err("removing old seed file", path))?;
            }
        }
        let writer = SeedFileWriter::open(dir, manifest, None)?;
        // Written before any chunk, so that a worker killed at any moment can resume.
        writer.write_manifest()?;
        Ok(writer)
    }

    /// Reopens an interrupted seed file: keeps the chunks `scan` found valid, cuts
    /// off whatever follows them (a chunk half-written when the worker died).
    pub fn resume(
        dir: &Path,
        manifest: SeedManifest,
        scan: SeedScan,
    ) -> Result<SeedFileWriter, SinkError> {
        SeedFileWriter::open(dir, manifest, Some(scan))
    }

    fn open(
        dir: &Path,
        mut manifest: SeedManifest,
        scan: Option<SeedScan>,
    ) -> Result<SeedFileWriter, SinkError> {
        let part = seeds::part_path(dir, manifest.params.worker, manifest.params.workers);
        let file = fs::OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(scan.is_none())
            .open(&part)
            .map_err(io_err("opening", &part))?;
        let scan = scan.unwrap_or(SeedScan {
            chunks: 0,
            bytes: 0,
            hash: Xxh3::new(),
        });
        file.set_len(scan.bytes)
            .map_err(io_err("cutting off an unfinished chunk of", &part))?;
        let mut file = file;
        io::Seek::seek(&mut file, io::SeekFrom::End(0)).map_err(io_err("seeking", &part))?;
        manifest.chunks = scan.chunks;
        manifest.complete = false;
        Ok(SeedFileWriter {
            dir: dir.to_path_buf(),
            part,
            manifest,
            file: Hashing {
                inner: BufWriter::with_capacity(1 << 16, file),
                hash: scan.hash,
                bytes: scan.bytes,
            },
        })
    }

    /// Chunks already in the file.
    pub fn chunks(&self) -> u64 {
        self.manifest.chunks
    }

    /// Appends one encoded chunk ([`seeds::encode_chunk`]) and hands it to the OS.
    pub fn append(&mut self, record: &[u8]) -> Result<(), SinkError> {
        self.file
            .write_all(record)
            .and_then(|()| self.file.flush())
            .map_err(io_err("writing", &self.part))?;
        self.manifest.chunks += 1;
        Ok(())
    }

    /// Syncs the file, renames it to its final name and completes the manifest.
    pub fn finish(mut self) -> Result<SeedManifest, SinkError> {
        let (k, n) = (self.manifest.params.worker, self.manifest.params.workers);
        let file = self.file.inner.into_inner().map_err(|e| SinkError::Io {
            action: "flushing",
            path: self.part.clone(),
            source: e.into_error(),
        })?;
        file.sync_all().map_err(io_err("syncing", &self.part))?;
        let path = seeds::data_path(&self.dir, k, n);
        fs::rename(&self.part, &path).map_err(io_err("renaming seed file into place", &path))?;
        sync_dir(&self.dir)?;
        self.manifest.bytes = self.file.bytes;
        self.manifest.xxh3 = format!("{:016x}", self.file.hash.finish());
        self.manifest.complete = true;
        let m = &self.manifest;
        let mut json = serde_json::to_vec_pretty(m).expect("manifest serialises");
        json.push(b'\n');
        write_atomic(&self.dir, &seeds::manifest_path(&self.dir, k, n), &json)?;
        Ok(self.manifest)
    }

    fn write_manifest(&self) -> Result<(), SinkError> {
        let (k, n) = (self.manifest.params.worker, self.manifest.params.workers);
        let mut json = serde_json::to_vec_pretty(&self.manifest).expect("manifest serialises");
        json.push(b'\n');
        write_atomic(&self.dir, &seeds::manifest_path(&self.dir, k, n), &json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_index_inverts_shard_name_and_refuses_other_names() {
        for index in [0, 7, 99_999, 123_456, u64::MAX] {
            assert_eq!(shard_index(&shard_name(index)), Some(index));
        }
        for name in [
            "bank-1.csv.zst",
            "bank-00001.csv",
            "bank-0000x.csv.zst",
            "manifest.json",
        ] {
            assert_eq!(shard_index(name), None, "{name}");
        }
    }

    #[test]
    fn params_read_old_manifests_with_their_defaults() {
        // A 9×9 bank from before `size` and `symmetry` existed.
        let old: Params = serde_json::from_str(
            r#"{"count": 10, "seed": 1, "variants": 5, "fill": "template", "carve": "minimal",
                "bands": "default", "difficulty": "easy", "max_attempts": 3, "shard_rows": 4,
                "zstd_level": 3, "seed_batch": 4096, "unknown_later_field": true}"#,
        )
        .unwrap();
        assert_eq!(old.board_size(), Ok(Size::Nine));
        assert_eq!(old.symmetry, "none");
        assert_eq!((old.workers, old.worker), (1, 0));
        assert_eq!(old.variants, 5);
        let bad = Params {
            size: 7,
            ..Params::default()
        };
        assert_eq!(
            bad.board_size().unwrap_err(),
            "size 7 is not 4, 9, 16 or 25"
        );
    }

    #[test]
    fn params_round_trip_and_omit_what_a_bank_does_not_have() {
        let merged = Params {
            size: 16,
            count: Some(3),
            ..Params::default()
        };
        let json = serde_json::to_value(&merged).unwrap();
        assert!(
            json.get("seed").is_none() && json.get("merge").is_none(),
            "{json}"
        );
        assert_eq!(serde_json::from_value::<Params>(json).unwrap(), merged);
        let worker = Params {
            seed: Some(9),
            workers: 3,
            worker: 2,
            ..merged.clone()
        };
        let other = Params {
            workers: 1,
            worker: 0,
            ..worker.clone()
        };
        assert!(worker.same_run(&other));
        assert!(worker.same_run(&Params {
            seeds: Some("/mnt/seeds".into()),
            ..worker.clone()
        }));
        assert!(!worker.same_run(&Params {
            seed: Some(10),
            ..worker.clone()
        }));
        // Stage 2 may choose its own split, shards and compression, not its seeds.
        let expand = Params {
            shard_rows: 7,
            zstd_level: 9,
            workers: 5,
            worker: 4,
            seeds: Some("seeds".into()),
            ..worker.clone()
        };
        assert_eq!(worker.seed_difference(&expand), None);
        let other_seed = Params {
            seed: Some(10),
            ..worker.clone()
        };
        assert_eq!(worker.seed_difference(&other_seed), Some("seed"));
    }
}
