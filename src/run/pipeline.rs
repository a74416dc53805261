//! The main job's wiring: seed population, expansion, and the ordered hand-off to the
//! sink. Rayon and ordering only — making one seed lives in `run::seed`, the puzzle
//! logic in `engine`, the file writing in `bank::sink`.
//!
//! Shape of a run (DESIGN.md):
//!
//! 1. **Seeds** in fixed batches of [`SEED_BATCH`] indices: every seed `j` is filled,
//!    carved into its band and canonicalised in parallel, drawing only from
//!    (`seed`, `j`, round). Then, in index order, a seed whose canonical form was
//!    already taken is dropped and regenerated with the next round's stream, until the
//!    batch is all distinct. Batches are fixed-size (not per thread), so the outcome is
//!    the same for any thread count.
//! 2. **Expansion**: seed `j` owns ids `j*K .. j*K+K`; variant 0 is the seed, the
//!    others are random symmetry transforms, deduplicated exactly within the seed.
//!    Id ranges are cut into blocks that never cross a shard boundary; blocks are
//!    formatted to CSV bytes in parallel and handed, in id order, to one writer thread
//!    through a bounded channel — so memory is bounded by the channel, whatever
//!    `--count` is, and no lock is taken per row.
//!
//! A staged run (`--stage seeds`, then `--stage expand`) cuts step 1 where it can be
//! cut: a seed's first-round candidate depends only on (`seed`, `j`), so stage 1
//! ([`make_seed_chunks`]) makes the candidates of a worker's chunks and nothing else;
//! stage 2 hands them to [`run`] ([`GivenSeeds`]) in place of making them, and the
//! sequential replacement of duplicates runs unchanged — hence the same bytes.

use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::time::{Duration, Instant, SystemTime};

use rayon::prelude::*;

use crate::bank::format::{
    self, batch_start_id, blocks, canonical_key, key_set, Block, KeyHasher, KeySet, Manifest,
    SeedPuzzle, SEED_BATCH,
};
use crate::bank::seeds::SeedFileError;
use crate::bank::sink::{self, BankWriter, FrameEncoder, FrameSender, SinkError};
use crate::engine::bands::BandTable;
use crate::engine::board::{Board, Rating};
use crate::engine::generate::{Carve, Fill, Symmetry};
use crate::engine::grid::Size;
use crate::run::rng::{item_rng, Purpose};
use crate::run::seed::{make_seed, BandUnreachable, Recipe, StartPuzzle};
use crate::run::timing::{Stage, StageRecorder, StageReport};

/// Replacement rounds for a batch before the seed space is declared exhausted. Only
/// the error depends on it, never a finished bank's bytes.
fn max_rounds(size: Size) -> u32 {
    match size {
        // A 4×4 seed takes microseconds, and a band holds only a few hundred
        // classes (`generate` checks the census first): collecting the last rare
        // ones may take thousands of draws.
        Size::Four => 4096,
        _ => 64,
    }
}

/// What to make.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Board size; [`run`] must be called with the matching [`Board`].
    pub size: Size,
    pub count: u64,
    pub seed: u64,
    /// Puzzles per seed (`--variants`), at least 1.
    pub variants: u32,
    pub fill: Fill,
    pub carve: Carve,
    /// Symmetry of the clue pattern (`none`, or orbits removed together).
    pub symmetry: Symmetry,
    pub bands: BandTable,
    /// Band indices to produce, in equal shares (seed `j` gets `selected[j % len]`).
    pub selected: Vec<usize>,
    /// Fill-and-carve attempts allowed for one seed to land in its band.
    pub max_attempts: u32,
    /// Rate the seeds (the `rating`/`technique` columns); false for `--no-rating`.
    pub rate: bool,
    /// `--from`: the puzzles the rating bands' climbs start from (empty: none).
    pub starts: std::sync::Arc<[StartPuzzle]>,
}

/// Why a run could not be completed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    BandUnreachable(#[from] BandUnreachable),
    #[error("only {found} essentially different seed puzzles found after {rounds} rounds of replacing duplicates, {wanted} needed; ask for fewer seeds (raise --variants) or widen the bands")]
    SeedSpaceExhausted {
        found: u64,
        wanted: u64,
        rounds: u32,
    },
    #[error(transparent)]
    Sink(#[from] SinkError),
    #[error(transparent)]
    SeedFile(#[from] SeedFileError),
    #[error("compressing a block: {0}")]
    Compress(std::io::Error),
    #[error("the writer thread stopped unexpectedly")]
    WriterGone,
}

/// Counters of a finished run, for the summary.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub rows: u64,
    pub seeds: u64,
    pub seeds_dropped: u64,
    /// Per band (table order): rows written, seeds made, attempts spent, most attempts for one seed.
    pub band_rows: Vec<u64>,
    pub band_seeds: Vec<u64>,
    pub band_attempts: Vec<u64>,
    pub band_max_attempts: Vec<u32>,
    /// Per band: thread time making its seeds (fill, carve, rate, canonical form), so
    /// the summary can tell what a seed of each band costs one core.
    pub band_seed_time: Vec<Duration>,
    /// Per band: how many seeds came rated each rating (tenths, index 0..=HIGHEST),
    /// for seeds made for a rating band (the others are rated after the band is
    /// chosen).
    pub band_ratings: Vec<[u64; RATINGS]>,
    pub elapsed: Duration,
}

/// The ratings a summary counts apart: every one the rater gives. Regression: up to
/// 0.4.12 they stopped at 9.5, and a seed rated 9.7 was counted as 9.5.
const RATINGS: usize = crate::engine::rating::HIGHEST as usize + 1;

impl Summary {
    /// Zero counters for a table of `n_bands` bands.
    pub fn for_bands(n_bands: usize) -> Summary {
        Summary {
            band_rows: vec![0; n_bands],
            band_seeds: vec![0; n_bands],
            band_attempts: vec![0; n_bands],
            band_max_attempts: vec![0; n_bands],
            band_seed_time: vec![Duration::ZERO; n_bands],
            band_ratings: vec![[0; RATINGS]; n_bands],
            ..Summary::default()
        }
    }

    /// Counts `seeds` (final ones) per band: seeds, attempts, most attempts.
    fn count_seeds<C>(&mut self, seeds: &[SeedPuzzle<C>]) {
        for s in seeds {
            let b = s.band as usize;
            self.band_seeds[b] += 1;
            self.band_attempts[b] += u64::from(s.attempts);
            self.band_max_attempts[b] = self.band_max_attempts[b].max(s.attempts);
            self.band_seed_time[b] += s.fill_time + s.carve_time + s.rate_time + s.canon_time;
            if let Some(r) = s.rating {
                self.band_ratings[b][usize::from(r.rating).min(RATINGS - 1)] += 1;
            }
        }
        self.seeds += seeds.len() as u64;
    }
}

impl Plan {
    /// What making one seed needs of the plan.
    pub fn recipe(&self) -> Recipe<'_> {
        Recipe {
            seed: self.seed,
            fill: self.fill,
            carve: self.carve,
            symmetry: self.symmetry,
            bands: &self.bands,
            selected: &self.selected,
            max_attempts: self.max_attempts,
            starts: &self.starts,
        }
    }
}

/// The seeds `range` of phase 1, all distinct: the first round (`given`, read from
/// stage 1's seed files, or `make(j, 0)` for every `j`, made in parallel), then in
/// index order every seed whose canonical form is already in `seen` is replaced by
/// `make(j, round)` of the next round, until the batch is all distinct. `wanted` is
/// only for the error message.
fn make_seed_batch<C: AsRef<[u8]> + Send>(
    make: &(dyn Fn(u64, u32) -> Result<SeedPuzzle<C>, PipelineError> + Sync),
    given: Option<Vec<SeedPuzzle<C>>>,
    range: std::ops::Range<u64>,
    wanted: u64,
    max_rounds: u32,
    seen: &mut KeySet,
    summary: &mut Summary,
) -> Result<Vec<SeedPuzzle<C>>, PipelineError> {
    let mut seeds = match given {
        Some(seeds) => seeds,
        None => range
            .clone()
            .into_par_iter()
            .map(|j| make(j, 0))
            .collect::<Result<_, _>>()?,
    };
    debug_assert_eq!(seeds.len() as u64, range.end - range.start);
    let mut pending: Vec<usize> = (0..seeds.len()).collect();
    for round in 1..=max_rounds + 1 {
        let mut dups = Vec::new();
        for &k in &pending {
            let seed = &seeds[k];
            let key = seed
                .key
                .unwrap_or_else(|| canonical_key(seed.canonical.as_ref()));
            if !seen.insert(key) {
                dups.push(k);
            }
        }
        summary.seeds_dropped += dups.len() as u64;
        if dups.is_empty() {
            break;
        }
        if round > max_rounds {
            return Err(PipelineError::SeedSpaceExhausted {
                found: seen.len() as u64,
                wanted,
                rounds: max_rounds,
            });
        }
        let fresh = dups
            .par_iter()
            .map(|&k| make(range.start + k as u64, round))
            .collect::<Result<Vec<_>, _>>()?;
        for (&k, s) in dups.iter().zip(fresh) {
            seeds[k] = s;
        }
        pending = dups;
    }
    summary.count_seeds(&seeds);
    Ok(seeds)
}

/// Calls `emit(v, puzzle, solution)` for variants `0..upto` of `seed` (seed index `j`),
/// in order. Variant 0 is the seed; each other one is a random transform whose puzzle
/// differs from all earlier variants of this seed. `seen` is scratch, reused.
fn for_each_variant<B: Board>(
    plan: &Plan,
    j: u64,
    seed: &SeedPuzzle<B::Cells>,
    upto: u32,
    seen: &mut CellSet<B::Cells>,
    mut emit: impl FnMut(u32, &B::Cells, &B::Cells),
) {
    seen.clear();
    let mut rng = item_rng(plan.seed, Purpose::Variants, j, 0);
    seen.insert(seed.puzzle);
    emit(0, &seed.puzzle, &seed.solution);
    for v in 1..upto {
        // The group has 2·6^8·9! ≈ 1.2·10^12 elements on 9×9 (more on the larger
        // sizes) and a puzzle's automorphism group is tiny, so a repeat is rare and
        // this loop ends after a draw or two. A 4×4 puzzle has at most
        // 128·4! = 3,072 images: `generate` caps `--variants` there before any work.
        loop {
            // A symmetric seed's variants keep its symmetry (a smaller subgroup).
            let t = B::random_transform_keeping(plan.symmetry, &mut rng);
            let puzzle = B::apply(&t, &seed.puzzle);
            if seen.insert(puzzle) {
                emit(v, &puzzle, &B::apply(&t, &seed.solution));
                break;
            }
        }
    }
}

/// Formats the rows of `block` from the seeds of the current batch.
fn format_block<B: Board>(
    plan: &Plan,
    block: &Block,
    batch_start: u64,
    seeds: &[SeedPuzzle<B::Cells>],
    ratings: &[Option<Rating>],
    scratch: &mut BlockScratch,
    seen: &mut CellSet<B::Cells>,
) {
    let k = u64::from(plan.variants);
    let names = plan.bands.bands();
    let out = &mut scratch.plain;
    let (first_seed, last_seed) = (block.first_id / k, (block.end_id - 1) / k);
    for j in first_seed..=last_seed {
        let seed = &seeds[(j - batch_start) as usize];
        let band = names[seed.band as usize].name.as_str();
        let rating = ratings[(j - batch_start) as usize];
        let upto = ((block.end_id - j * k).min(k)) as u32;
        for_each_variant::<B>(plan, j, seed, upto, seen, |v, puzzle, solution| {
            let id = j * k + u64::from(v);
            if id >= block.first_id {
                let row = format::RowOut {
                    id,
                    puzzle,
                    solution,
                    clues: seed.n_clues,
                    band,
                    canonical: Some(&seed.canonical),
                    rating,
                };
                format::format_row::<B>(out, &row);
            }
        });
    }
}

/// Per-thread scratch of the expansion, reused block after block: the plain rows of a
/// block and the encoder's zstd context. (The variant set of the current seed is
/// typed by the board size, so it lives in a per-size thread-local: [`with_seen`].)
struct BlockScratch {
    plain: Vec<u8>,
    encoder: FrameEncoder,
}

thread_local! {
    /// This thread's block scratch and the zstd level it was made for.
    static SCRATCH: RefCell<Option<(i32, BlockScratch)>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's scratch, creating it (one zstd context) on first use.
fn with_scratch<T>(
    level: i32,
    f: impl FnOnce(&mut BlockScratch) -> std::io::Result<T>,
) -> std::io::Result<T> {
    SCRATCH.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|(l, _)| *l != level) {
            let scratch = BlockScratch {
                plain: Vec::new(),
                encoder: FrameEncoder::new(level)?,
            };
            *slot = Some((level, scratch));
        }
        f(&mut slot.as_mut().expect("filled above").1)
    })
}

/// A set of boards, hashed by [`KeyHasher`] (8 bytes at a time): a seed's variants
/// are checked against it once per row (std's SipHash: 2 % more CPU on a
/// `--variants 100` run).
type CellSet<C> = HashSet<C, BuildHasherDefault<KeyHasher>>;

/// Runs `f` with this thread's variant set for boards `B`, kept across blocks so its
/// table is allocated once per thread, not per seed. One `thread_local!` cannot be
/// generic, so the sets of all sizes share a type-keyed map, looked up once per block.
fn with_seen<B: Board, T>(f: impl FnOnce(&mut CellSet<B::Cells>) -> T) -> T {
    use std::any::{Any, TypeId};
    use std::collections::HashMap;
    thread_local! {
        static SEEN: RefCell<HashMap<TypeId, Box<dyn Any>>> = RefCell::new(HashMap::new());
    }
    SEEN.with(|cell| {
        let mut map = cell.borrow_mut();
        let set = map
            .entry(TypeId::of::<B>())
            .or_insert_with(|| Box::new(CellSet::<B::Cells>::default()))
            .downcast_mut::<CellSet<B::Cells>>()
            .expect("the entry of B holds B's cells");
        f(set)
    })
}

/// How the sink is fed: rows per shard and the zstd level of every frame.
#[derive(Clone, Copy, Debug)]
pub struct Output {
    /// Rows per shard of this process's output: a worker's part may cut smaller
    /// shards than the bank's ([`crate::bank::format::part_shard_rows`]).
    pub shard_rows: u64,
    /// Rows per shard of the bank (`--shard-rows`), which the parts merge into.
    pub bank_shard_rows: u64,
    pub zstd_level: i32,
    /// This process makes only the shards `s` with `s % workers == worker`
    /// (`--workers N --worker K`); 1 and 0 for a whole bank.
    pub workers: u64,
    pub worker: u64,
}

impl Output {
    /// True when shard `index` is this worker's to write.
    pub fn owns(&self, shard_index: u64) -> bool {
        shard_index % self.workers == self.worker
    }
}

/// Where a run starts: from scratch, or (`--resume`) after the rows already on disk.
#[derive(Clone, Debug, Default)]
pub struct Start {
    /// First id to write; every smaller id is already in a complete shard (or, for a
    /// worker, in another worker's shard).
    pub id: u64,
    /// Hashes of the canonical forms of every seed in the batches before the one that
    /// holds `id` — the dedup state those batches left (see [`canonical_key`]). `None`
    /// when that state is not at hand (a worker's other shards are elsewhere): the
    /// seed batches are then recomputed from the first, which gives the same state.
    pub seen: Option<KeySet>,
}

/// Stage 2 of a staged run: reads the first-round seeds of a batch (a range of seed
/// indices, asked for in order) from stage 1's seed files.
pub type GivenSeeds<'a, C> =
    &'a mut dyn FnMut(std::ops::Range<u64>) -> Result<Vec<SeedPuzzle<C>>, PipelineError>;

/// Where stage 1 hands the seeds of chunk `i`, in chunk order.
pub type ChunkSink<'a, C> = &'a mut dyn FnMut(usize, &[SeedPuzzle<C>]) -> Result<(), PipelineError>;

/// Stage 1 of a staged run: makes the first-round seeds of `chunks` (ranges of seed
/// indices, in order) in parallel, in waves of about a batch, and hands each chunk's
/// seeds, in order, to `emit(i, seeds)` (`i` indexes `chunks`). No deduplication: that
/// is stage 2's, in seed order. Returns the counters for the summary.
pub fn make_seed_chunks<B: Board>(
    plan: &Plan,
    chunks: &[std::ops::Range<u64>],
    emit: ChunkSink<'_, B::Cells>,
) -> Result<Summary, PipelineError> {
    let started = Instant::now();
    let n_bands = plan.bands.bands().len();
    let mut summary = Summary::for_bands(n_bands);
    let recipe = plan.recipe();
    let mut i = 0;
    let mut indices = Vec::new();
    while i < chunks.len() {
        // A wave: whole chunks, about SEED_BATCH seeds, so every core has work.
        let mut end = i;
        indices.clear();
        while end < chunks.len() && (indices.len() as u64) < SEED_BATCH {
            indices.extend(chunks[end].clone());
            end += 1;
        }
        // Each seed is rated here, with its making: the rating is per seed, so it
        // divides by N with the seeds, and stage 2 reads it from the file.
        let seeds = indices
            .par_iter()
            .map(|&j| make_seed::<B>(&recipe, j, 0).map(|seed| rated::<B>(plan, seed)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut rest = seeds.as_slice();
        for (c, range) in chunks.iter().enumerate().take(end).skip(i) {
            let (mine, after) = rest.split_at((range.end - range.start) as usize);
            emit(c, mine)?;
            rest = after;
        }
        summary.count_seeds(&seeds);
        i = end;
    }
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// The technique rating of `seed`, as a bank's `rating` column gives it.
fn rate_seed<B: Board>(seed: &SeedPuzzle<B::Cells>) -> Option<Rating> {
    B::rate_solved(&seed.puzzle, &seed.solution, u8::MAX)
}

/// `seed` with its rating when the run rates and making it did not.
fn rated<B: Board>(plan: &Plan, mut seed: SeedPuzzle<B::Cells>) -> SeedPuzzle<B::Cells> {
    if plan.rate && seed.rating.is_none() {
        seed.rating = rate_seed::<B>(&seed);
    }
    seed
}

/// The producer thread's recorders of the seed stages, when it makes the seeds.
struct SeedRecorders {
    fill: StageRecorder,
    carve: StageRecorder,
    canon: StageRecorder,
}

/// Runs the whole job into `writer` on the current rayon pool, starting at `start`;
/// `progress` is told the number of rows written so far after every block. With
/// `histograms`, stage latencies are recorded and returned.
pub fn run<B: Board>(
    plan: &Plan,
    writer: BankWriter,
    output: Output,
    start: Start,
    mut given: Option<GivenSeeds<'_, B::Cells>>,
    histograms: bool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Summary, Manifest, Vec<StageReport>), PipelineError> {
    let shard_rows = output.shard_rows;
    let started = Instant::now();
    let wall = SystemTime::now();
    let n_bands = plan.bands.bands().len();
    let mut summary = Summary::for_bands(n_bands);
    let k = u64::from(plan.variants);
    let n_seeds = plan.count.div_ceil(k);
    let (first_batch, mut seen) = match start.seen {
        Some(seen) => (batch_start_id(start.id, plan.variants) / k, seen),
        // Room for every key up front (to a bound: a huge run still grows it), so the
        // set is not rehashed as it fills.
        None => (0, key_set(n_seeds.min(1 << 22) as usize)),
    };
    let recorder = |stage| StageRecorder::new(stage, started, wall);
    // Seeds read from stage 1's files carry no timings: only those made here do.
    let mut seed_rec = (histograms && given.is_none()).then(|| SeedRecorders {
        fill: recorder(Stage::Fill),
        carve: recorder(Stage::Carve),
        canon: recorder(Stage::Canon),
    });
    let mut expand_rec = histograms.then(|| recorder(Stage::Expand));
    let mut write_rec = histograms.then(|| recorder(Stage::Write));
    let on_write = |elapsed, n_rows| {
        if let Some(r) = write_rec.as_mut() {
            r.record(elapsed, n_rows);
        }
    };
    let produce = |sender: &FrameSender| -> Result<(), PipelineError> {
        let mut written = 0u64;
        for batch_start in (first_batch..n_seeds).step_by(SEED_BATCH as usize) {
            let batch_end = n_seeds.min(batch_start + SEED_BATCH);
            let recipe = plan.recipe();
            let make = |j, round| Ok(make_seed::<B>(&recipe, j, round)?);
            let range = batch_start..batch_end;
            let first = given.as_mut().map(|read| read(range.clone())).transpose()?;
            let seeds = make_seed_batch(
                &make,
                first,
                range,
                n_seeds,
                max_rounds(plan.size),
                &mut seen,
                &mut summary,
            )?;
            if let Some(r) = seed_rec.as_mut() {
                for s in &seeds {
                    let n = u64::from(s.attempts);
                    r.fill.record(s.fill_time, n);
                    r.carve.record(s.carve_time, n);
                    r.canon.record(s.canon_time, 1);
                }
            }
            let ids = (start.id.max(batch_start * k), plan.count.min(batch_end * k));
            // Format and compress a wave of blocks in parallel, then send them in
            // id order. A worker keeps only the blocks of its own shards; it still
            // made every seed above, because later seeds depend on them.
            let mut all = blocks(ids.0, ids.1, shard_rows, k);
            all.retain(|b| output.owns(b.first_id / shard_rows));
            let mut needed = vec![false; seeds.len()];
            for b in &all {
                for j in (b.first_id / k)..b.end_id.div_ceil(k) {
                    let band = seeds[(j - batch_start) as usize].band as usize;
                    summary.band_rows[band] += b.end_id.min((j + 1) * k) - b.first_id.max(j * k);
                    needed[(j - batch_start) as usize] = true;
                }
            }
            // The technique rating of every seed this worker writes rows of, seed by seed
            // in parallel (rating costs a third to all of making the seed); variants carry
            // their seed's (their own may differ by 0.1: SE's path depends on the
            // orientation). Seeds
            // made for rating bands, and seeds from stage 1's files, come rated.
            let ratings: Vec<Option<Rating>> = seeds
                .par_iter()
                .zip(needed.par_iter())
                .map(|(seed, &needed)| {
                    (needed && plan.rate)
                        .then(|| seed.rating.or_else(|| rate_seed::<B>(seed)))
                        .flatten()
                })
                .collect();
            for wave in all.chunks(rayon::current_num_threads() * 2) {
                let mut bufs: Vec<(Vec<u8>, Duration)> = wave
                    .iter()
                    .map(|_| (sender.buffer(), Duration::ZERO))
                    .collect();
                wave.par_iter()
                    .zip(bufs.par_iter_mut())
                    .try_for_each(|(b, (frame, took))| {
                        let t = Instant::now();
                        with_scratch(output.zstd_level, |scratch| {
                            FrameEncoder::begin_block(shard_rows, b.first_id, &mut scratch.plain);
                            with_seen::<B, _>(|seen| {
                                format_block::<B>(
                                    plan,
                                    b,
                                    batch_start,
                                    &seeds,
                                    &ratings,
                                    scratch,
                                    seen,
                                )
                            });
                            scratch.encoder.encode(&scratch.plain, frame)
                        })?;
                        *took = t.elapsed();
                        Ok(())
                    })
                    .map_err(PipelineError::Compress)?;
                for (b, (buf, took)) in wave.iter().zip(bufs) {
                    let n_rows = b.end_id - b.first_id;
                    if let Some(r) = expand_rec.as_mut() {
                        r.record_one(took, n_rows);
                    }
                    if !sender.send(b.first_id, n_rows, buf) {
                        return Err(PipelineError::WriterGone);
                    }
                    written += n_rows;
                    progress(written);
                }
            }
        }
        Ok(())
    };
    // A writer error explains a producer's WriterGone, so it wins (write_frames).
    let manifest = sink::write_frames(writer, on_write, produce)?;
    summary.rows = manifest.rows;
    summary.elapsed = started.elapsed();
    let mut reports = Vec::new();
    if let Some(r) = seed_rec {
        reports.extend([r.fill.finish(), r.carve.finish(), r.canon.finish()]);
    }
    reports.extend(expand_rec.map(StageRecorder::finish));
    if let Some(w) = write_rec {
        reports.push(w.finish());
    }
    Ok((summary, manifest, reports))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::grid::N_CELLS;

    fn summary(n_bands: usize) -> Summary {
        Summary::for_bands(n_bands)
    }

    /// A fake seed maker whose seeds fall into `classes` canonical classes.
    fn fake(
        classes: u64,
    ) -> impl Fn(u64, u32) -> Result<SeedPuzzle<[u8; N_CELLS]>, PipelineError> + Sync {
        move |j, round| {
            let mut canonical = [0u8; N_CELLS];
            let class = (j / 2 + u64::from(round) * 17) % classes;
            canonical[..8].copy_from_slice(&class.to_le_bytes());
            Ok(SeedPuzzle {
                puzzle: [0; N_CELLS],
                solution: [0; N_CELLS],
                canonical,
                key: None,
                n_clues: 30,
                band: 0,
                attempts: 1,
                rating: None,
                rate_time: Duration::ZERO,
                fill_time: Duration::ZERO,
                carve_time: Duration::ZERO,
                canon_time: Duration::ZERO,
            })
        }
    }

    /// Regression: a seed rated above 9.5 was counted as 9.5 in the summary.
    #[test]
    fn the_summary_counts_each_rating_up_to_the_highest() {
        let mut s = summary(1);
        let seed = |rating| SeedPuzzle {
            rating: Some(crate::engine::board::Rating {
                rating,
                technique: crate::engine::rating::Technique::NestedForcingChain,
            }),
            ..fake(1)(0, 0).unwrap()
        };
        s.count_seeds(&[seed(97), seed(119), seed(97)]);
        assert_eq!((s.band_ratings[0][97], s.band_ratings[0][119]), (2, 1));
        assert_eq!(s.band_ratings[0].iter().sum::<u64>(), 3);
    }

    #[test]
    fn duplicate_seeds_are_replaced_until_distinct() {
        let mut seen = key_set(0);
        let mut s = summary(1);
        let seeds = make_seed_batch(&fake(50), None, 0..40, 40, 64, &mut seen, &mut s).unwrap();
        let distinct: HashSet<_> = seeds.iter().map(|s| s.canonical).collect();
        assert_eq!(distinct.len(), 40);
        assert!(
            s.seeds_dropped > 0,
            "the fake maker collides by construction"
        );
        // Deterministic: the same batch again gives the same seeds.
        let again = make_seed_batch(
            &fake(50),
            None,
            0..40,
            40,
            64,
            &mut key_set(0),
            &mut summary(1),
        )
        .unwrap();
        assert!(seeds
            .iter()
            .zip(&again)
            .all(|(a, b)| a.canonical == b.canonical));
    }

    #[test]
    fn a_too_small_seed_space_is_an_error_that_counts_what_exists() {
        let err = make_seed_batch(
            &fake(5),
            None,
            0..8,
            8,
            64,
            &mut key_set(0),
            &mut summary(1),
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                PipelineError::SeedSpaceExhausted {
                    found: 5,
                    wanted: 8,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err
            .to_string()
            .contains("only 5 essentially different seed puzzles"));
    }
}
