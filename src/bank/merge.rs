//! Merging banks: the workers' directories of one run, or banks of different runs,
//! into one bank with fresh ids — duplicates removed, optionally at most K rows per
//! canonical form, in a deterministic order, within a memory budget.
//!
//! **Order.** Every row gets an [`OrderKey`]. When all inputs come from the same run
//! (their manifests' params are equal except `workers`/`worker`), the key is the
//! original id: the workers' interleaved shards fall back into place and merging the N
//! workers of a run reproduces the single-process bank ([`Order::Id`]). Otherwise rows
//! come input by input, in the order given, and by id inside an input
//! ([`Order::Input`]). Either way the key ends with the row's position on disk, so it
//! is a total order. A duplicate puzzle keeps its first row in that order; with
//! `--max-per-class K` the first K rows of each canonical form stay (duplicates are
//! removed first, so they do not count). Survivors are renumbered 0.. in key order.
//!
//! **Memory.** Rows that fit in the budget are merged in memory. Otherwise they are
//! spread over P partitions by a hash of the canonical form (of the puzzle when a row
//! has none): two copies of a puzzle share their canonical form, so both deduplication
//! and the cap only ever compare rows of one partition. Each partition is spilled to
//! a hidden temporary file under OUT, then loaded alone, sorted by key, deduplicated
//! and capped, and written back as a sorted run; a k-way merge of the runs by key
//! restores the global order. The survivors and their order do not depend on P, so
//! the output is byte-identical with or without a tight budget.
//!
//! **Bytes.** Frames are cut with [`format::frame_layout`] (the generator's own
//! layout, for the first input's `variants`) and encoded with [`FrameEncoder`]: the
//! same rows give the same bytes as `generate`. Every input is read completely before
//! the first output file is created, so a bad input leaves nothing under a final name.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::bank::format::{self, canonical_key, key_set, KeyHasher, Manifest, Params};
use crate::bank::sink::{
    self, BankWriter, FrameEncoder, FrameSender, SinkConfig, SinkError, SpillDir, SpillReader,
};
use crate::bank::{self, BankError, Digest, Label, Row, RowError, ShardReader};
use crate::engine::board::{Board, Rating};
use crate::engine::grid::Size;
use crate::engine::nxn::MAX_CELLS;
use crate::engine::rating::Technique;

/// Estimated memory of one row of boards `C` held in memory: the record, its share
/// of the deduplication and cap tables, and slack for the sort.
const fn row_bytes<C>() -> u64 {
    std::mem::size_of::<Record<C>>() as u64 + 64
}
/// Most partitions: each needs an open file while rows are spread and merged, and
/// 512 stays below the usual limit of 1024 open files. Past 512 × `--memory` of rows
/// a partition exceeds the budget.
const MAX_PARTITIONS: u64 = 512;
/// The most rows a shard's buffer is sized for before it is read (a larger shard
/// grows it as it goes).
const PRESIZE_ROWS: u64 = 1 << 20;
/// Rows shown per missing-shard list before "… and N more".
const SHOWN_MISSING: usize = 10;

/// Why a merge failed. Every message names the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    Bank(#[from] BankError),
    #[error(transparent)]
    Sink(#[from] SinkError),
    #[error("{manifest}: the bank is incomplete ({rows} rows listed){missing}; {hint}")]
    Incomplete {
        manifest: PathBuf,
        rows: u64,
        missing: String,
        hint: String,
    },
    #[error("{path}: {what}; the shard is damaged or was changed (check the bank with `sudoku-factory verify`)")]
    ShardMismatch { path: PathBuf, what: String },
    #[error("{path}, {error}")]
    Row { path: PathBuf, error: RowError },
    #[error("{path}: {reason}")]
    UnknownSize { path: PathBuf, reason: String },
    #[error("{first} holds {first_size} puzzles and {other} holds {other_size}; merge combines banks of one size")]
    MixedSizes {
        first: PathBuf,
        first_size: Size,
        other: PathBuf,
        other_size: Size,
    },
    #[error("{first} is graded by {first_scale} and {other} by {other_scale}; merge combines banks of one grade scale (their band names mean different things)")]
    MixedScales {
        first: PathBuf,
        first_scale: String,
        other: PathBuf,
        other_scale: String,
    },
    #[error("{0} is both the output and an input; merge into a new directory")]
    OutIsInput(PathBuf),
    #[error("{action} {path}: {error}")]
    Spill {
        action: &'static str,
        path: PathBuf,
        error: io::Error,
    },
    #[error("compressing a block: {0}")]
    Compress(io::Error),
    #[error("{path}: columns after the bank's own ({columns}); merge writes the bank's columns only and would drop them")]
    ExtraColumns { path: PathBuf, columns: String },
}

/// Refuses a shard whose header has columns after [`format::HEADER`]'s: `merge` writes
/// the bank's columns only (regression: it dropped them without a word; `export`
/// passes them through).
fn check_columns(reader: &ShardReader, path: &Path) -> Result<(), MergeError> {
    let ours = format::HEADER.iter().filter(|&&b| b == b',').count() + 1;
    let header = reader.header();
    if header.len() <= ours {
        return Ok(());
    }
    let columns = header
        .iter()
        .skip(ours)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect::<Vec<_>>()
        .join(",");
    Err(MergeError::ExtraColumns {
        path: path.to_path_buf(),
        columns,
    })
}

fn spill_err<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> MergeError + 'a {
    move |error| MergeError::Spill {
        action,
        path: path.to_path_buf(),
        error,
    }
}

/// Parses a memory size: a number of bytes with an optional binary suffix, `K`, `M`,
/// `G` or `T` (optionally followed by `i`, `B` or `iB`), e.g. `512M`, `2G`, `64KiB`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size (expected e.g. 512M, 2G, 65536)"))?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KI" | "KIB" => 10,
        "M" | "MB" | "MI" | "MIB" => 20,
        "G" | "GB" | "GI" | "GIB" => 30,
        "T" | "TB" | "TI" | "TIB" => 40,
        // `1.5G`, `1e9`: the number stopped early.
        u if u.starts_with(['.', ',']) => {
            return Err(format!(
                "{text:?}: a size is a whole number of bytes or of K, M, G or T (1536M, not 1.5G)"
            ))
        }
        _ => {
            return Err(format!(
            "{text:?}: {:?} is not a unit (use K, M, G or T after a whole number, e.g. 512M or 2G)",
            unit.trim()
        ))
        }
    };
    number
        .checked_mul(1u64 << shift)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{text:?}: the size must be above 0 and below 16 EiB"))
}

/// One input bank, checked: a complete manifest whose every shard is on disk with
/// the listed size and checksum.
#[derive(Clone, Debug)]
pub struct Input {
    pub dir: PathBuf,
    /// The board size, from the manifest.
    pub size: Size,
    pub manifest: Manifest,
}

/// The one board size of `inputs`; an error naming two inputs that differ.
pub fn common_size(inputs: &[Input]) -> Result<Size, MergeError> {
    let first = inputs.first().expect("merge has at least one input");
    match inputs.iter().find(|i| i.size != first.size) {
        Some(other) => Err(MergeError::MixedSizes {
            first: first.dir.clone(),
            first_size: first.size,
            other: other.dir.clone(),
            other_size: other.size,
        }),
        None => Ok(first.size),
    }
}

/// The grade scale every input was banded by (`clues` or `rating`), or why there is
/// none: one bank's `easy` is 36–40 clues, the other's a rating of 1.0–1.4.
pub fn common_scale(inputs: &[Input]) -> Result<String, MergeError> {
    let scale = |i: &Input| i.manifest.params.grade_scale().to_string();
    let first = inputs.first().expect("merge has at least one input");
    match inputs.iter().find(|i| scale(i) != scale(first)) {
        Some(other) => Err(MergeError::MixedScales {
            first: first.dir.clone(),
            first_scale: scale(first),
            other: other.dir.clone(),
            other_scale: scale(other),
        }),
        None => Ok(scale(first)),
    }
}

/// Reads and checks the bank in `dir` (manifest complete, every listed shard present
/// with its size and XXH3). Reads every shard file once.
pub fn open_input(dir: &Path) -> Result<Input, MergeError> {
    let manifest = bank::read_manifest(dir)?;
    let size = manifest
        .params
        .board_size()
        .map_err(|reason| MergeError::UnknownSize {
            path: dir.join(format::MANIFEST),
            reason,
        })?;
    if !manifest.complete {
        let missing = match missing_shards(&manifest, SHOWN_MISSING) {
            Some((names, total)) if total > 0 => {
                let mut text = format!("; missing shards: {}", names.join(", "));
                if total > names.len() as u64 {
                    text += &format!(" … and {} more", total - names.len() as u64);
                }
                text
            }
            _ => String::new(),
        };
        return Err(MergeError::Incomplete {
            manifest: dir.join(format::MANIFEST),
            rows: manifest.rows,
            missing,
            hint: manifest.finish_hint(dir),
        });
    }
    for shard in &manifest.shards {
        let path = dir.join(&shard.file);
        let digest = bank::digest_file(&path)?;
        check_digest(&path, shard, &digest)?;
    }
    // Extra columns refused before anything is written (each shard is checked again
    // as it is read).
    if let Some(shard) = manifest.shards.first() {
        let path = dir.join(&shard.file);
        let mut reader = ShardReader::open(&path)?;
        reader.read_header()?;
        check_columns(&reader, &path)?;
    }
    Ok(Input {
        dir: dir.to_path_buf(),
        size,
        manifest,
    })
}

fn check_digest(
    path: &Path,
    shard: &format::ShardRecord,
    digest: &Digest,
) -> Result<(), MergeError> {
    match bank::reader::shard_mismatch(shard, shard.rows, digest) {
        None => Ok(()),
        Some(what) => Err(MergeError::ShardMismatch {
            path: path.to_path_buf(),
            what,
        }),
    }
}

/// The shards a generated bank (or worker) should hold but its manifest does not
/// list: the first `shown` names and how many in all; `None` when the params do not
/// say (not a generated bank). Counted, not listed: a manifest's `count` may be
/// anything, and walking its shards one by one could take forever.
fn missing_shards(m: &Manifest, shown: usize) -> Option<(Vec<String>, u64)> {
    let p = &m.params;
    let count = p.count?;
    let shard_rows = p.shard_rows.max(1);
    let workers = p.workers.max(1);
    let worker = p.worker;
    let n_shards = count.div_ceil(shard_rows);
    // The worker's shards: worker, worker + workers, ... below n_shards.
    let owned = if worker < n_shards {
        (n_shards - 1 - worker) / workers + 1
    } else {
        0
    };
    let listed: HashSet<&str> = m.shards.iter().map(|s| s.file.as_str()).collect();
    let owned_listed = listed
        .iter()
        .filter_map(|name| format::shard_index(name))
        .filter(|&s| s < n_shards && s % workers == worker)
        .count() as u64;
    let total = owned - owned_listed.min(owned);
    // Each index looked at is listed or missing: at most |listed| + `shown` of them.
    let names = (worker..n_shards)
        .step_by(usize::try_from(workers).unwrap_or(usize::MAX))
        .map(format::shard_name)
        .filter(|name| !listed.contains(name.as_str()))
        .take(shown.min(usize::try_from(total).unwrap_or(usize::MAX)))
        .collect();
    Some((names, total))
}

/// How rows are ordered before renumbering; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// All inputs come from one run: by original id.
    Id,
    /// Input by input in the order given, by id inside each.
    Input,
}

impl Order {
    pub fn name(self) -> &'static str {
        match self {
            Order::Id => "id",
            Order::Input => "input",
        }
    }

    /// [`Order::Id`] when every input was generated with the same params except
    /// `workers`/`worker`, else [`Order::Input`].
    pub fn choose(inputs: &[Input]) -> Order {
        let Some(first) = inputs.first().map(|i| &i.manifest.params) else {
            return Order::Input;
        };
        let generated = first.seed.is_some();
        if generated && inputs.iter().all(|i| i.manifest.params.same_run(first)) {
            Order::Id
        } else {
            Order::Input
        }
    }
}

/// Where a row goes in the merged bank: compared field by field. The last two fields
/// (the shard's position among all inputs' shards and the row's line in it) make
/// every key unique.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct OrderKey {
    major: u64,
    minor: u64,
    shard: u64,
    line: u64,
}

/// One row on its way through the merge; `C` is the board's cells.
#[derive(Clone, Debug)]
struct Record<C> {
    key: OrderKey,
    puzzle: C,
    solution: C,
    canonical: Option<C>,
    clues: u16,
    difficulty: Label,
    rating: Option<Rating>,
}

/// Bytes of a spilled record of `cells` cells before its band name: the key, three
/// boards, a flag for the canonical form, the clues, the rating (a flag, tenths and
/// the technique's index), the band's length.
const fn spill_fixed(cells: usize) -> usize {
    32 + 3 * cells + 1 + 2 + 3 + 2
}

/// [`spill_fixed`] for the largest board (25×25): the stack buffer of one record.
const MAX_FIXED: usize = spill_fixed(MAX_CELLS);

impl<C: Copy + AsRef<[u8]> + AsMut<[u8]>> Record<C> {
    /// The partition of this row: by canonical form, so that every copy of a puzzle
    /// and every member of a class meet in one partition.
    fn partition(&self, n: u64) -> u64 {
        let h = canonical_key(self.canonical.as_ref().unwrap_or(&self.puzzle).as_ref());
        ((h >> 64) as u64) % n
    }

    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let n = self.puzzle.as_ref().len();
        let mut buf = [0u8; MAX_FIXED];
        let buf = &mut buf[..spill_fixed(n)];
        let k = &self.key;
        for (i, v) in [k.major, k.minor, k.shard, k.line].into_iter().enumerate() {
            buf[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        buf[32..32 + n].copy_from_slice(self.puzzle.as_ref());
        buf[32 + n..32 + 2 * n].copy_from_slice(self.solution.as_ref());
        let at = 32 + 2 * n;
        if let Some(c) = &self.canonical {
            buf[at..at + n].copy_from_slice(c.as_ref());
            buf[at + n] = 1;
        }
        buf[at + n + 1..at + n + 3].copy_from_slice(&self.clues.to_le_bytes());
        if let Some(r) = self.rating {
            let technique = Technique::ALL.iter().position(|&t| t == r.technique);
            buf[at + n + 3] = 1;
            buf[at + n + 4] = r.rating;
            buf[at + n + 5] = technique.unwrap_or(0) as u8;
        }
        let label = self.difficulty.as_str().as_bytes();
        let len = u16::try_from(label.len()).unwrap_or(u16::MAX);
        buf[at + n + 6..].copy_from_slice(&len.to_le_bytes());
        out.write_all(buf)?;
        out.write_all(&label[..usize::from(len)])
    }

    /// Reads one record of boards like `empty`; `None` at a clean end of file.
    fn read_from(input: &mut impl Read, empty: C) -> io::Result<Option<Record<C>>> {
        let n = empty.as_ref().len();
        let mut buf = [0u8; MAX_FIXED];
        let buf = &mut buf[..spill_fixed(n)];
        match input.read_exact(&mut buf[..1]) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        input.read_exact(&mut buf[1..])?;
        let u = |i: usize| u64::from_le_bytes(buf[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        let cells = |at: usize| {
            let mut c = empty;
            c.as_mut().copy_from_slice(&buf[at..at + n]);
            c
        };
        let at = 32 + 2 * n;
        let clues = u16::from_le_bytes([buf[at + n + 1], buf[at + n + 2]]);
        let rating = (buf[at + n + 3] == 1).then(|| Rating {
            rating: buf[at + n + 4],
            technique: Technique::ALL[usize::from(buf[at + n + 5]) % Technique::ALL.len()],
        });
        let len = u16::from_le_bytes([buf[at + n + 6], buf[at + n + 7]]);
        let mut label = vec![0u8; usize::from(len)];
        input.read_exact(&mut label)?;
        let label = std::str::from_utf8(&label)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a band name is not UTF-8"))?;
        Ok(Some(Record {
            key: OrderKey {
                major: u(0),
                minor: u(1),
                shard: u(2),
                line: u(3),
            },
            puzzle: cells(32),
            solution: cells(32 + n),
            canonical: (buf[at + n] == 1).then(|| cells(at)),
            clues,
            difficulty: Label::new(label),
            rating,
        }))
    }
}

impl<C> Record<C> {
    /// Appends the CSV row with id `id`, byte for byte as `generate` writes it.
    fn format<B: Board<Cells = C>>(&self, id: u64, out: &mut Vec<u8>) {
        let row = format::RowOut {
            id,
            puzzle: &self.puzzle,
            solution: &self.solution,
            clues: self.clues,
            band: self.difficulty.as_str(),
            canonical: self.canonical.as_ref(),
            rating: self.rating,
        };
        format::format_row::<B>(out, &row);
    }
}

/// Options of a merge.
#[derive(Clone, Debug)]
pub struct MergeConfig {
    pub order: Order,
    /// `--max-per-class`: rows kept per canonical form.
    pub max_per_class: Option<u64>,
    /// `--memory`: bytes of rows held at once (approximately).
    pub memory: u64,
    pub shard_rows: u64,
    pub zstd_level: i32,
    /// The `variants` whose frame layout the output follows (see the module docs).
    pub layout_variants: u32,
}

/// Counters of a finished merge, for the summary.
#[derive(Clone, Debug, Default)]
pub struct MergeSummary {
    pub rows_read: u64,
    pub duplicates: u64,
    pub capped: u64,
    pub rows_written: u64,
    /// Partitions spilled to disk; 1 when everything fit in memory.
    pub partitions: u64,
}

/// The partitions needed for `rows` rows of `row_bytes` each under a budget of
/// `memory` bytes.
fn partitions_for(rows: u64, row_bytes: u64, memory: u64) -> u64 {
    rows.saturating_mul(row_bytes)
        .div_ceil(memory.max(1))
        .clamp(1, MAX_PARTITIONS)
}

/// Reads every row of one shard (`shard` is its position among all inputs' shards).
fn read_shard<B: Board>(
    input: &Input,
    index: u64,
    record: &format::ShardRecord,
    shard: u64,
    order: Order,
    mut each: impl FnMut(Record<B::Cells>) -> Result<(), MergeError>,
) -> Result<(), MergeError> {
    let path = input.dir.join(&record.file);
    let mut reader = ShardReader::open(&path)?;
    reader.read_header()?;
    check_columns(&reader, &path)?;
    let mut rows = 0u64;
    while let Some(row) = reader.next_row_of(B::SIZE, B::empty()) {
        let row: Row<B::Cells> = row?.map_err(|error| MergeError::Row {
            path: path.clone(),
            error,
        })?;
        rows += 1;
        let clues = row.clues;
        if usize::from(clues) > B::SIZE.n_cells() {
            return Err(MergeError::Row {
                path: path.clone(),
                error: RowError {
                    line: row.line,
                    id: Some(row.id),
                    reason: format!("clues {clues} is more than a {} board holds", B::SIZE),
                },
            });
        }
        let (major, minor) = match order {
            Order::Id => (row.id, 0),
            Order::Input => (index, row.id),
        };
        each(Record {
            key: OrderKey {
                major,
                minor,
                shard,
                line: row.line,
            },
            puzzle: row.puzzle,
            solution: row.solution,
            canonical: row.canonical,
            clues,
            difficulty: row.difficulty,
            rating: row.rating,
        })?;
    }
    // The shard was checked when the input was opened; check the bytes actually read,
    // and the rows they hold (a manifest that lists fewer rows than its shard, or a
    // blank line, which CSV readers skip, merged without a word).
    let digest = reader.finish()?;
    match bank::reader::shard_mismatch(record, rows, &digest) {
        None => Ok(()),
        Some(what) => Err(MergeError::ShardMismatch { path, what }),
    }
}

/// Every (input index, input, shard record, global shard position), in input order.
fn all_shards(inputs: &[Input]) -> Vec<(u64, &Input, &format::ShardRecord, u64)> {
    let mut out = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        for s in &input.manifest.shards {
            let pos = out.len() as u64;
            out.push((i as u64, input, s, pos));
        }
    }
    out
}

/// Sorts `records` by key and keeps the first copy of each puzzle and, with a cap,
/// the first `max` rows of each canonical form. Only correct for a whole partition.
fn select<C: Copy + AsRef<[u8]> + AsMut<[u8]>>(
    records: &mut Vec<Record<C>>,
    max_per_class: Option<u64>,
    summary: &mut MergeSummary,
) {
    records.sort_unstable_by_key(|r| r.key);
    let mut seen = key_set(records.len());
    let mut per_class: HashMap<u128, u64, BuildHasherDefault<KeyHasher>> = HashMap::default();
    records.retain(|r| {
        if !seen.insert(canonical_key(r.puzzle.as_ref())) {
            summary.duplicates += 1;
            return false;
        }
        if let (Some(max), Some(c)) = (max_per_class, &r.canonical) {
            let n = per_class.entry(canonical_key(c.as_ref())).or_insert(0);
            if *n >= max {
                summary.capped += 1;
                return false;
            }
            *n += 1;
        }
        true
    });
}

/// Merges `inputs` into a new bank in `out` (checked with [`open_input`], in the
/// order given); `params` become the manifest's params, with `count` set to the rows
/// written (what `verify` expects of a complete bank). Runs on the current rayon pool.
pub fn merge<B: Board>(
    inputs: &[Input],
    config: &MergeConfig,
    out: SinkConfig,
    params: Params,
) -> Result<(MergeSummary, Manifest), MergeError> {
    let rows_in: u64 = inputs.iter().map(|i| i.manifest.rows).sum();
    let partitions = partitions_for(rows_in, row_bytes::<B::Cells>(), config.memory);
    let mut summary = MergeSummary {
        partitions,
        ..MergeSummary::default()
    };
    let shards = all_shards(inputs);
    if partitions == 1 {
        let per_shard = shards
            .par_iter()
            .map(|&(i, input, record, pos)| {
                // Room for the rows the manifest lists, to a bound: a damaged count
                // is found when the shard is read, not by the allocator.
                let mut rows = Vec::with_capacity(record.rows.min(PRESIZE_ROWS) as usize);
                read_shard::<B>(input, i, record, pos, config.order, |r| {
                    rows.push(r);
                    Ok(())
                })?;
                Ok(rows)
            })
            .collect::<Result<Vec<_>, MergeError>>()?;
        let mut records = Vec::with_capacity(rows_in as usize);
        for rows in per_shard {
            records.extend(rows);
        }
        summary.rows_read = records.len() as u64;
        select(&mut records, config.max_per_class, &mut summary);
        summary.rows_written = records.len() as u64;
        let manifest = write_bank::<B>(records.into_iter().map(Ok), config, out, params, &summary)?;
        return Ok((summary, manifest));
    }

    // Too big for the budget: spread, select per partition, merge the sorted runs.
    let created_out = !out.dir.exists();
    let result = (|| {
        let spill = SpillDir::create(&out.dir)?;
        let buffer = (config.memory / (2 * partitions)).clamp(4 << 10, 1 << 20) as usize;
        let mut files = (0..partitions)
            .map(|p| Ok((spill.create_file("part", p, buffer)?, spill.file("part", p))))
            .collect::<Result<Vec<_>, MergeError>>()?;
        let mut sizes = vec![0u64; partitions as usize];
        for &(i, input, record, pos) in &shards {
            read_shard::<B>(input, i, record, pos, config.order, |r| {
                let p = r.partition(partitions) as usize;
                sizes[p] += 1;
                let (file, path) = &mut files[p];
                r.write_to(file).map_err(spill_err("writing", path))
            })?;
        }
        summary.rows_read = sizes.iter().sum();
        for (file, path) in files {
            file.into_inner().map_err(|e| MergeError::Spill {
                action: "writing",
                path: path.clone(),
                error: e.into_error(),
            })?;
        }
        for p in 0..partitions {
            let part = spill.file("part", p);
            let mut reader = spill.open_file("part", p, buffer)?;
            let mut records = Vec::with_capacity(sizes[p as usize] as usize);
            while let Some(r) =
                Record::read_from(&mut reader, B::empty()).map_err(spill_err("reading", &part))?
            {
                records.push(r);
            }
            drop(reader);
            spill.remove_file("part", p)?;
            select(&mut records, config.max_per_class, &mut summary);
            summary.rows_written += records.len() as u64;
            let run = spill.file("run", p);
            let mut w = spill.create_file("run", p, buffer)?;
            for r in &records {
                r.write_to(&mut w).map_err(spill_err("writing", &run))?;
            }
            w.flush().map_err(spill_err("writing", &run))?;
        }
        let runs = (0..partitions)
            .map(|p| Ok((spill.open_file("run", p, buffer)?, spill.file("run", p))))
            .collect::<Result<Vec<_>, MergeError>>()?;
        let merged = KWayMerge::new(runs, B::empty())?;
        let manifest = write_bank::<B>(merged, config, out.clone(), params, &summary)?;
        drop(spill);
        Ok(manifest)
    })();
    if result.is_err() && created_out {
        // Only removes the directory if the failed merge left it empty.
        sink::remove_dir_if_empty(&out.dir);
    }
    result.map(|manifest| (summary, manifest))
}

/// The records of sorted run files, merged by key.
struct KWayMerge<C> {
    runs: Vec<(SpillReader, PathBuf)>,
    heap: BinaryHeap<Reverse<(OrderKey, usize)>>,
    heads: Vec<Option<Record<C>>>,
    empty: C,
}

impl<C: Copy + AsRef<[u8]> + AsMut<[u8]>> KWayMerge<C> {
    fn new(runs: Vec<(SpillReader, PathBuf)>, empty: C) -> Result<KWayMerge<C>, MergeError> {
        let mut merge = KWayMerge {
            heap: BinaryHeap::with_capacity(runs.len()),
            heads: (0..runs.len()).map(|_| None).collect(),
            runs,
            empty,
        };
        for i in 0..merge.runs.len() {
            merge.refill(i)?;
        }
        Ok(merge)
    }

    fn refill(&mut self, i: usize) -> Result<(), MergeError> {
        let (reader, path) = &mut self.runs[i];
        if let Some(r) =
            Record::read_from(reader, self.empty).map_err(spill_err("reading", path))?
        {
            self.heap.push(Reverse((r.key, i)));
            self.heads[i] = Some(r);
        }
        Ok(())
    }
}

impl<C: Copy + AsRef<[u8]> + AsMut<[u8]>> Iterator for KWayMerge<C> {
    type Item = Result<Record<C>, MergeError>;

    fn next(&mut self) -> Option<Self::Item> {
        let Reverse((_, i)) = self.heap.pop()?;
        let record = self.heads[i].take().expect("a run in the heap has a head");
        Some(self.refill(i).map(|()| record))
    }
}

/// Renumbers `records` (in key order) 0.. and writes them as a bank: frames cut by
/// the generator's layout, formatted and compressed in parallel waves.
fn write_bank<B: Board>(
    mut records: impl Iterator<Item = Result<Record<B::Cells>, MergeError>>,
    config: &MergeConfig,
    out: SinkConfig,
    mut params: Params,
    summary: &MergeSummary,
) -> Result<Manifest, MergeError> {
    params.count = Some(summary.rows_written);
    let shard_rows = out.shard_rows;
    let writer = BankWriter::create(out, params)?;
    let layout = format::frame_layout(summary.rows_written, config.layout_variants, shard_rows);
    sink::write_frames(
        writer,
        |_, _| {},
        |sender| encode_frames::<B>(&mut records, layout, config.zstd_level, shard_rows, sender),
    )
}

/// Cuts `records` by `layout`, formats and compresses the blocks in parallel waves and
/// sends each frame to the writer, in id order, until the writer stops.
fn encode_frames<B: Board>(
    records: &mut impl Iterator<Item = Result<Record<B::Cells>, MergeError>>,
    layout: impl Iterator<Item = std::ops::Range<u64>>,
    level: i32,
    shard_rows: u64,
    sender: &FrameSender,
) -> Result<(), MergeError> {
    let mut layout = layout.peekable();
    let wave_len = rayon::current_num_threads() * 2;
    while layout.peek().is_some() {
        let mut wave = Vec::with_capacity(wave_len);
        for range in layout.by_ref().take(wave_len) {
            let rows = records
                .by_ref()
                .take((range.end - range.start) as usize)
                .collect::<Result<Vec<_>, _>>()?;
            debug_assert_eq!(rows.len() as u64, range.end - range.start);
            wave.push((range.start, rows));
        }
        let mut frames: Vec<Vec<u8>> = wave.iter().map(|_| sender.buffer()).collect();
        wave.par_iter()
            .zip(frames.par_iter_mut())
            .map_init(
                || (FrameEncoder::new(level), Vec::new()),
                |(encoder, plain), ((first_id, rows), frame)| {
                    let encoder = encoder
                        .as_mut()
                        .map_err(|e| io::Error::new(e.kind(), e.to_string()))?;
                    FrameEncoder::begin_block(shard_rows, *first_id, plain);
                    for (id, r) in (*first_id..).zip(rows) {
                        r.format::<B>(id, plain);
                    }
                    encoder.encode(plain, frame)
                },
            )
            .collect::<io::Result<()>>()
            .map_err(MergeError::Compress)?;
        for ((first_id, rows), frame) in wave.iter().zip(frames) {
            if !sender.send(*first_id, rows.len() as u64, frame) {
                return Ok(()); // the writer failed; its error is reported
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Nine;
    use crate::engine::grid::N_CELLS;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1gb"), Ok(1 << 30));
        assert_eq!(parse_size("100B"), Ok(100));
        for bad in ["", "G", "12X", "0", "1.5G", "99999999999T", "3I"] {
            assert!(parse_size(bad).is_err(), "{bad:?} should be refused");
        }
        // Regression: `1.5G` was "unknown unit (use K, M, G or T)", naming G.
        assert!(parse_size("1.5G").unwrap_err().contains("1536M, not 1.5G"));
        assert!(parse_size("1e9")
            .unwrap_err()
            .contains("\"e9\" is not a unit"));
    }

    fn record(major: u64, puzzle: u8, canonical: u8) -> Record<[u8; N_CELLS]> {
        Record {
            key: OrderKey {
                major,
                minor: 0,
                shard: 0,
                line: major + 2,
            },
            puzzle: [puzzle; N_CELLS],
            solution: [9; N_CELLS],
            canonical: Some([canonical; N_CELLS]),
            clues: 30,
            difficulty: Label::new("medium"),
            rating: Some(Rating {
                rating: 42,
                technique: Technique::XyWing,
            }),
        }
    }

    #[test]
    fn select_keeps_the_first_copy_and_the_first_k_of_a_class() {
        // Out of order on purpose: selection follows the key, not arrival.
        let mut rs = vec![
            record(3, 1, 7),
            record(0, 1, 7),
            record(1, 2, 7),
            record(2, 3, 7),
            record(4, 4, 8),
        ];
        let mut s = MergeSummary::default();
        select(&mut rs, Some(2), &mut s);
        let kept: Vec<u64> = rs.iter().map(|r| r.key.major).collect();
        assert_eq!(kept, [0, 1, 4]);
        assert_eq!((s.duplicates, s.capped), (1, 1));
    }

    #[test]
    fn records_survive_the_spill_format() {
        let mut r = record(5, 3, 4);
        r.difficulty = Label::new("a-very-long-band-name-beyond-thirty-bytes");
        let mut none = record(6, 1, 1);
        none.canonical = None;
        none.rating = None;
        let mut bytes = Vec::new();
        r.write_to(&mut bytes).unwrap();
        none.write_to(&mut bytes).unwrap();
        let mut input = bytes.as_slice();
        let a = Record::read_from(&mut input, [0; N_CELLS])
            .unwrap()
            .unwrap();
        let b = Record::read_from(&mut input, [0; N_CELLS])
            .unwrap()
            .unwrap();
        assert!(Record::read_from(&mut input, [0; N_CELLS])
            .unwrap()
            .is_none());
        let (mut x, mut y) = (Vec::new(), Vec::new());
        r.format::<Nine>(0, &mut x);
        a.format::<Nine>(0, &mut y);
        assert_eq!(x, y);
        assert_eq!(a.key, r.key);
        assert_eq!(a.rating, r.rating);
        assert_eq!(b.canonical, None);
        assert_eq!(b.rating, None);
    }

    #[test]
    fn partitions_grow_with_rows_and_shrink_with_memory() {
        let row = row_bytes::<[u8; N_CELLS]>();
        assert_eq!(partitions_for(0, row, 1 << 30), 1);
        assert_eq!(partitions_for(1000, row, 1 << 30), 1);
        assert!(partitions_for(1_000_000, row, 64 << 10) == MAX_PARTITIONS);
        let p = partitions_for(12_000, row, 1 << 20);
        assert!(partitions_for(12_000, row_bytes::<[u8; 625]>(), 1 << 20) > p);
        assert!(p > 1 && p < 20, "{p}");
    }
}
