//! The bank format (DESIGN.md, "Bank layout" and "CSV columns"), the one place both
//! sides of a bank read it from: the columns and the row format, the file names, the
//! manifest with its typed parameters, the frame layout of a run (which rows share a
//! zstd frame, so that `merge` reproduces a run's bytes), the canonical key of
//! deduplication, and the seed record of a staged run's seed files. No I/O: the
//! writers (`sink`) and the readers (`reader`, `verify`, `merge`, `export`, `stats`)
//! depend on this module, never on each other.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::engine::bands::{BandTable, Scale};
use crate::engine::board::{Board, Rating};
use crate::engine::grid::Size;

/// Declares the bank's columns once: [`COLUMNS`] for readers and [`HEADER`], the CSV
/// header line every shard starts with.
macro_rules! columns {
    ($first:literal $(, $rest:literal)* $(,)?) => {
        /// The columns of a shard, in order (DESIGN.md).
        pub const COLUMNS: &[&str] = &[$first $(, $rest)*];
        /// The CSV header of every shard.
        pub const HEADER: &[u8] = concat!($first $(, ",", $rest)*, "\n").as_bytes();
    };
}

columns!(
    "id",
    "puzzle",
    "solution",
    "clues",
    "difficulty",
    "canonical",
    "rating",
    "technique"
);

/// How many of [`COLUMNS`] every shard has: banks made before the technique rating
/// end after `canonical`.
pub const REQUIRED_COLUMNS: usize = 6;

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

/// The first id after `id` at which a new shard of `shard_rows` rows starts: blocks
/// must end there.
pub fn next_boundary(shard_rows: u64, id: u64) -> u64 {
    (id / shard_rows + 1) * shard_rows
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
    /// A worker's part whose shards are smaller than the bank's (a run of fewer shards
    /// than workers: [`part_shard_rows`]): the `--shard-rows` of the bank its parts
    /// merge into, which `merge` takes as its default. Absent when they are equal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bank_shard_rows: Option<u64>,
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
    /// What an imported bank was made from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import: Option<ImportParams>,
    /// `generate --from FILE`: the file of puzzles the climbs started from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// With `from`: the digest of its puzzles in order ([`crate::run::seed`]'s
    /// `starts_digest`), which `--resume` checks the file against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_digest: Option<String>,
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
            bank_shard_rows: None,
            zstd_level: DEFAULT_ZSTD_LEVEL,
            seed_batch: None,
            workers: 1,
            worker: 0,
            seeds: None,
            merge: None,
            import: None,
            from: None,
            from_digest: None,
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

impl Manifest {
    /// How to finish this bank when its manifest says `complete: false`: a generated
    /// bank is resumed, a merge or an import is run again (`generate --resume` of
    /// such a bank fails: it records no generation parameters).
    pub fn finish_hint(&self, dir: &std::path::Path) -> String {
        if self.params.merge.is_some() {
            "run the same merge again with --force".to_string()
        } else if self.params.import.is_some() {
            "run the same import again with --force".to_string()
        } else {
            format!(
                "finish it with `sudoku-factory generate --resume {}`",
                dir.display()
            )
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

    /// The scale the bank's bands grade by, parsed: what `grade` names, clues when
    /// it is absent; the error says which name this build does not know.
    pub fn scale(&self) -> Result<Scale, String> {
        let name = self.grade_scale();
        Scale::from_name(name).ok_or_else(|| format!("grade: unknown scale {name:?}"))
    }

    /// The bank's band table, read on its scale; `None` when it records none (a
    /// merge of different tables) or one this build cannot read.
    pub fn band_table(&self, size: Size) -> Option<BandTable> {
        let scale = self.scale().ok()?;
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
    /// the split use ([`Params::EXPANSION_ONLY`]). `None` when equal, else the name of
    /// a field that differs (the first in the manifest's order). A field added to
    /// `Params` counts here unless it is named there.
    pub fn seed_difference(&self, other: &Params) -> Option<String> {
        let fields = |p: &Params| match serde_json::to_value(p) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => unreachable!("Params serialises to a JSON object"),
        };
        let (a, b) = (fields(self), fields(other));
        a.keys()
            .chain(b.keys())
            .filter(|k| !Self::EXPANSION_ONLY.contains(&k.as_str()))
            .find(|&k| a.get(k) != b.get(k))
            .cloned()
    }

    /// The fields a staged run's stage 2 may choose for itself: its split, shards and
    /// compression, where it read the seeds from, and what only a merge records.
    pub const EXPANSION_ONLY: [&'static str; 8] = [
        "workers",
        "worker",
        "shard_rows",
        "bank_shard_rows",
        "zstd_level",
        "seeds",
        "merge",
        "rating",
    ];
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

/// `params.import` of an imported bank: its sources, in the order read (ids follow
/// that order), each with the checksum of the bytes read, so that the bank can be
/// traced to, and remade from, exactly those files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportParams {
    /// Whether puzzles of a canonical class already imported were kept.
    pub keep_duplicates: bool,
    pub sources: Vec<ImportSource>,
}

/// One source file of an import.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportSource {
    /// The path as given on the command line.
    pub file: String,
    /// `text`, `csv` or `parquet`.
    pub format: String,
    /// The column read, for `csv` and `parquet`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    pub bytes: u64,
    /// XXH3-64 of the file's bytes, lowercase hex.
    pub xxh3: String,
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

/// Seeds per batch of phase 1. Part of the determinism contract: changing it changes
/// which duplicate seeds get replaced, hence the bank's bytes.
pub const SEED_BATCH: u64 = 1024;
/// The shard size of each worker's part of a run of `count` rows split `workers`
/// ways, for a bank of `shard_rows`-row shards: the bank's own, unless the bank has
/// fewer shards than there are workers — then `count / workers` (rounded up), so that
/// every worker writes an equal share of the rows instead of one worker all of them
/// (`--variants 1` at the default shard size puts up to a million rows in shard 0).
/// `merge` re-cuts the rows into the bank's shards, so the bytes are the single run's.
pub fn part_shard_rows(count: u64, shard_rows: u64, workers: u64) -> u64 {
    if workers <= 1 {
        return shard_rows;
    }
    shard_rows.min(count.div_ceil(workers).max(1))
}

/// Most rows in one formatted block (blocks are the unit of parallel work).
pub const BLOCK_ROWS: u64 = 4096;
/// A contiguous id range inside one shard, formatted in parallel.
pub struct Block {
    pub first_id: u64,
    pub end_id: u64,
}

/// Cuts ids `[start, end)` into blocks that never cross a shard boundary and, where
/// they can, hold whole seeds (`k` rows each, about [`BLOCK_ROWS`] rows per block):
/// the variants of a seed are drawn in sequence (each is deduplicated against the
/// earlier ones), so a block that starts inside a seed must redraw its first variants.
pub fn blocks(start: u64, end: u64, shard_rows: u64, k: u64) -> Vec<Block> {
    let seeds_per_block = (BLOCK_ROWS / k).max(1);
    let mut out = Vec::new();
    let mut id = start;
    while id < end {
        let stop = end
            .min(next_boundary(shard_rows, id))
            .min((id / k + seeds_per_block) * k);
        out.push(Block {
            first_id: id,
            end_id: stop,
        });
        id = stop;
    }
    out
}

/// The id ranges, one zstd frame each, that the pipeline cuts a whole bank of `count`
/// rows into, in id order: the blocks of every seed batch. `merge` re-encodes rows
/// with the same layout, so that merging the workers of one run reproduces its bytes.
pub fn frame_layout(
    count: u64,
    variants: u32,
    shard_rows: u64,
) -> impl Iterator<Item = std::ops::Range<u64>> {
    let k = u64::from(variants.max(1));
    let n_seeds = count.div_ceil(k);
    (0..n_seeds)
        .step_by(SEED_BATCH as usize)
        .flat_map(move |batch_start| {
            let batch_end = n_seeds.min(batch_start + SEED_BATCH);
            blocks(batch_start * k, count.min(batch_end * k), shard_rows, k)
                .into_iter()
                .map(|b| b.first_id..b.end_id)
        })
}

/// The key under which a seed's canonical form (cells of any size, `0` = empty) is
/// remembered for deduplication.
#[inline]
pub fn canonical_key(canonical: &[u8]) -> u128 {
    twox_hash::XxHash3_128::oneshot(canonical)
}

/// A set of [`canonical_key`]s. The keys are already 128-bit hashes, so hashing them
/// again (std's SipHash) only costs time: [`KeyHasher`] folds the two halves.
pub type KeySet = std::collections::HashSet<u128, std::hash::BuildHasherDefault<KeyHasher>>;

/// An empty [`KeySet`] with room for `n` keys.
pub fn key_set(n: usize) -> KeySet {
    KeySet::with_capacity_and_hasher(n, Default::default())
}

/// The hasher of a [`KeySet`]: a key's two 64-bit halves XORed (each is already
/// uniform). Anything else hashed with it (the boards of a seed's variants) is
/// folded 8 bytes at a time with a multiply: fast, and good enough for sets of our
/// own data, which no adversary chooses.
#[derive(Default)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u128(&mut self, key: u128) {
        self.0 ^= key as u64 ^ (key >> 64) as u64;
    }
}

/// The key of a canonical form given as cells (0 = empty): [`canonical_key`] of its
/// text with `0` for empty, so it matches the key of the bank's `canonical` column
/// (`render`'s `--exclude` and one-per-class rule compare them).
pub fn class_key<B: Board>(canonical: &B::Cells) -> u128 {
    let mut text = B::empty();
    B::format_zeros_into(canonical, text.as_mut());
    canonical_key(text.as_ref())
}

/// The first id of the seed batch that holds `id`: a resumed run regenerates from
/// there (the batch's seeds depend on the batches before it, not on written rows).
pub fn batch_start_id(id: u64, variants: u32) -> u64 {
    let k = u64::from(variants);
    (id / k) / SEED_BATCH * SEED_BATCH * k
}

/// One seed puzzle, made the expensive way; `C` is the board's cells.
#[derive(Clone, Copy, Debug)]
pub struct SeedPuzzle<C> {
    pub puzzle: C,
    pub solution: C,
    pub canonical: C,
    pub n_clues: u16,
    pub band: u8,
    /// Its technique rating when making it rated it (rating bands); else `None` and
    /// the pipeline rates it when it writes rows.
    pub rating: Option<Rating>,
    /// [`canonical_key`] of `canonical`, when it came with the seed (stage 1's files
    /// carry it, and a seed stage 2 writes no rows of has only that, no boards);
    /// `None`: computed from `canonical`.
    pub key: Option<u128>,
    /// Fill-and-carve attempts it took to land in the band.
    pub attempts: u32,
    /// Time spent filling, carving and rating (all attempts) and canonicalising this seed.
    pub fill_time: Duration,
    pub carve_time: Duration,
    pub rate_time: Duration,
    pub canon_time: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_hasher_tells_apart_keys_and_boards_that_differ_anywhere() {
        use std::hash::BuildHasher;
        let build = std::hash::BuildHasherDefault::<KeyHasher>::default();
        // Keys: either half changes the hash.
        let key = canonical_key(b"123");
        assert_ne!(build.hash_one(key), build.hash_one(key ^ 1));
        assert_ne!(build.hash_one(key), build.hash_one(key ^ (1 << 100)));
        // Boards: each step of the fold is a bijection of the state, so a change in
        // any one byte (the last, lone one of 81 included) changes the hash.
        let board = [7u8; 81];
        let h = build.hash_one(board);
        for i in 0..81 {
            let mut other = board;
            other[i] = 8;
            assert_ne!(h, build.hash_one(other), "byte {i}");
        }
        let mut set = key_set(0);
        assert!((0..10_000u128).all(|k| set.insert(canonical_key(&k.to_le_bytes()))));
        assert!(!set.insert(canonical_key(&5u128.to_le_bytes())));
    }

    #[test]
    fn worker_parts_cut_smaller_shards_only_when_the_bank_has_fewer_than_workers() {
        // One process, and runs of at least as many shards as workers: the bank's.
        assert_eq!(part_shard_rows(30_000, 1_000_000, 1), 1_000_000);
        assert_eq!(part_shard_rows(10_000_000, 1_000_000, 3), 1_000_000);
        // Fewer shards than workers: an equal share each, rounded up.
        assert_eq!(part_shard_rows(30_000, 1_000_000, 3), 10_000);
        assert_eq!(part_shard_rows(2_500_000, 1_000_000, 3), 833_334);
        assert_eq!(part_shard_rows(10, 1_000_000, 3), 4);
        // No rows: never a zero-row shard size.
        assert_eq!(part_shard_rows(0, 1_000_000, 3), 1);
    }

    /// Regression: `export` and `stats` told a user to `generate --resume` an
    /// unfinished merged bank, which has nothing to resume (`verify` already said to
    /// run the merge again); every reader now asks the manifest.
    #[test]
    fn an_unfinished_merge_is_finished_by_merging_again() {
        let dir = std::path::Path::new("out");
        let mut manifest = Manifest {
            tool: "sudoku-factory".into(),
            version: "0.4.2".into(),
            params: Params::default(),
            shards: Vec::new(),
            rows: 0,
            bytes: 0,
            complete: false,
        };
        assert_eq!(
            manifest.finish_hint(dir),
            "finish it with `sudoku-factory generate --resume out`"
        );
        manifest.params.merge = Some(MergeParams {
            order: "id".into(),
            max_per_class: None,
            layout_variants: 1,
            inputs: Vec::new(),
        });
        assert_eq!(
            manifest.finish_hint(dir),
            "run the same merge again with --force"
        );
    }

    #[test]
    fn the_header_is_the_columns_joined() {
        let header = std::str::from_utf8(HEADER).unwrap();
        assert_eq!(header, format!("{}\n", COLUMNS.join(",")));
        assert_eq!(&COLUMNS[..REQUIRED_COLUMNS].last(), &Some(&"canonical"));
    }

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
        assert_eq!(worker.seed_difference(&other_seed).as_deref(), Some("seed"));
    }

    #[test]
    fn the_frame_layout_tiles_the_bank_inside_shards() {
        for (count, k, shard_rows) in [(10_000, 4, 1000), (5, 1, 2), (3_000_001, 100, 250_000)] {
            let ranges: Vec<_> = frame_layout(count, k, shard_rows).collect();
            assert_eq!(ranges.first().unwrap().start, 0);
            assert_eq!(ranges.last().unwrap().end, count);
            for w in ranges.windows(2) {
                assert_eq!(w[0].end, w[1].start);
            }
            for r in &ranges {
                assert!(r.start < r.end);
                assert_eq!(r.start / shard_rows, (r.end - 1) / shard_rows);
            }
        }
        assert_eq!(frame_layout(0, 3, 10).count(), 0);
    }

    #[test]
    fn blocks_cover_the_range_without_crossing_shards() {
        for (k, max_rows) in [
            (1, BLOCK_ROWS),
            (7, BLOCK_ROWS),
            (1000, BLOCK_ROWS),
            (50_000, 50_000),
        ] {
            let bs = blocks(5, 200_000, 30_000, k);
            assert_eq!(bs.first().unwrap().first_id, 5);
            assert_eq!(bs.last().unwrap().end_id, 200_000);
            for w in bs.windows(2) {
                assert_eq!(w[0].end_id, w[1].first_id);
            }
            for b in &bs {
                assert_eq!(b.first_id / 30_000, (b.end_id - 1) / 30_000, "k={k}");
                assert!(b.end_id - b.first_id <= max_rows, "k={k}");
                // A block ends on a seed boundary unless a shard or the range ends there.
                assert!(
                    b.end_id % k == 0 || b.end_id % 30_000 == 0 || b.end_id == 200_000,
                    "k={k}"
                );
            }
        }
    }
}
