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

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use std::hash::Hasher as _;
use twox_hash::XxHash3_64 as Xxh3;

use crate::bank::format::{
    shard_name, Manifest, Params, ShardRecord, HEADER, HISTOGRAMS, MANIFEST,
};
use crate::bank::seeds::{self, SeedManifest, SeedScan};
use crate::util::output::{self, OutputError};
use crate::util::signals::{creating, remove_on_signal, OnSignal};

/// Why the sink refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    #[error("{}", occupied_message(dir, found, unfinished.as_deref()))]
    Occupied {
        dir: PathBuf,
        /// The first bank file found there.
        found: String,
        /// How to finish the bank there, when its manifest says it is unfinished.
        unfinished: Option<String>,
    },
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
    #[error(transparent)]
    Output(#[from] OutputError),
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
        if first_id.is_multiple_of(shard_rows) {
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

/// Writes `bytes` under the bank's temporary name `.NAME.tmp` (which [`is_bank_file`]
/// knows) and renames it to `path`, so a reader never sees a partial file; with
/// `durable` the data is fsynced before the rename.
fn replace_file(dir: &Path, path: &Path, bytes: &[u8], durable: bool) -> Result<(), SinkError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.tmp"));
    Ok(output::write_via(&tmp, path, bytes, durable)?)
}

fn sync_dir(dir: &Path) -> Result<(), SinkError> {
    Ok(output::sync_dir(dir)?)
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

/// The refusal of `dir`, which holds the bank file `found`; it says how to finish the
/// bank when its manifest says it is unfinished (regression: it said only "pass
/// --force", which throws an interrupted run away).
fn occupied(dir: &Path, found: String) -> SinkError {
    let unfinished = crate::bank::reader::read_manifest(dir)
        .ok()
        .filter(|m| !m.complete)
        .map(|m| m.finish_hint(dir));
    SinkError::Occupied {
        dir: dir.to_path_buf(),
        found,
        unfinished,
    }
}

fn occupied_message(dir: &Path, found: &str, unfinished: Option<&str>) -> String {
    match unfinished {
        Some(hint) => format!(
            "{} holds an unfinished bank (its {MANIFEST} says complete: false): {hint}, or pass --force to replace it",
            dir.display()
        ),
        None => format!(
            "{} already holds a bank (found {found}); pass --force to replace it",
            dir.display()
        ),
    }
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
        Some(name) => Err(occupied(dir, name)),
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
                return Err(occupied(dir, found[0].clone()));
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
        if self.put_shard_in_place()? {
            self.write_manifest()?;
        }
        Ok(())
    }

    /// Syncs the open shard, renames it into place and lists it in the manifest in
    /// memory; false when no shard was open. The caller writes the manifest: until
    /// then a resumed run removes the shard as unfinished.
    fn put_shard_in_place(&mut self) -> Result<bool, SinkError> {
        let Some(shard) = self.open.take() else {
            return Ok(false);
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
            Ok(true)
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

    /// Closes the last shard and marks the manifest complete: one manifest write
    /// lists the last shard and says complete (each is an fsync of the file and one
    /// of the directory: a stage-2 worker's fixed cost).
    pub fn finish(mut self) -> Result<Manifest, SinkError> {
        self.put_shard_in_place()?;
        self.manifest.complete = true;
        self.write_manifest()?;
        Ok(self.manifest.clone())
    }
}

/// Writes each stage's `.hgrm` and `.hlog` (`(stage name, hgrm text, hlog bytes)`,
/// as `run::timing` renders them) under `OUT/histograms/`, each under a temporary
/// name and renamed. Measurements, not bank data: one fsync of the directory at the
/// end instead of two per file, which cost more than recording the histograms on a
/// short run.
pub fn write_histograms<'a>(
    dir: &Path,
    reports: impl IntoIterator<Item = (&'a str, &'a [u8], &'a [u8])>,
) -> Result<(), SinkError> {
    let mut reports = reports.into_iter().peekable();
    if reports.peek().is_none() {
        return Ok(());
    }
    let hist_dir = dir.join(HISTOGRAMS);
    fs::create_dir_all(&hist_dir).map_err(io_err("creating", &hist_dir))?;
    for (stem, hgrm, hlog) in reports {
        replace_file(
            &hist_dir,
            &hist_dir.join(format!("{stem}.hgrm")),
            hgrm,
            false,
        )?;
        replace_file(
            &hist_dir,
            &hist_dir.join(format!("{stem}.hlog")),
            hlog,
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
                    return Err(SinkError::Occupied {
                        dir: dir.to_path_buf(),
                        found: name.unwrap_or_default(),
                        unfinished: None,
                    });
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
