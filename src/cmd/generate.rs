//! `sudoku-factory generate`: validate every option before touching the disk, then run
//! the pipeline on a rayon pool of `--threads`, with a progress bar, stage histograms
//! and a summary on stderr. `--resume OUT` rebuilds the same plan from the manifest
//! and continues after the last complete shard.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bank::format::{self, canonical_key, Manifest, Params, SeedPuzzle};
use crate::bank::reader::{self, SeedFiles};
use crate::bank::seeds::{self, ChunkLayout, SeedManifest};
use crate::bank::sink::{self, BankWriter, SeedFileWriter, SinkConfig};
use crate::bank::ShardReader;
use crate::cli::{GenerateArgs, StageArg};
use crate::engine::bands::{BandTable, Scale};
use crate::engine::board::Board;
use crate::engine::generate::{Carve, Fill, Symmetry};
use crate::engine::grid::Size;
use crate::engine::nxn::census::{census4, CensusQuery};
use crate::run::pipeline::{self, Output, PipelineError, Plan, Start, Summary};
use crate::run::timing;
use crate::say;
use crate::util::text::counted;

use super::Outcome;

/// Everything a run needs, whether from the command line or from a manifest.
struct Job {
    plan: Plan,
    output: Output,
    dir: PathBuf,
    /// Stage 2 of a staged run: the directory of stage 1's seed files.
    seeds: Option<PathBuf>,
}

impl Job {
    /// The manifest's `params`: enough to rebuild this job exactly.
    fn params(&self) -> Params {
        let p = &self.plan;
        let selected: Vec<&str> = p
            .selected
            .iter()
            .map(|&i| p.bands.bands()[i].name.as_str())
            .collect();
        Params {
            size: p.size.side() as u64,
            count: Some(p.count),
            seed: Some(p.seed),
            variants: p.variants,
            fill: Some(p.fill.name().to_string()),
            carve: Some(p.carve.name().to_string()),
            symmetry: p.symmetry.name().to_string(),
            bands: Some(p.bands.to_string()),
            difficulty: Some(selected.join(",")),
            grade: (p.bands.scale() == Scale::Rating).then(|| Scale::Rating.name().to_string()),
            max_attempts: Some(p.max_attempts),
            shard_rows: self.output.shard_rows,
            zstd_level: self.output.zstd_level,
            seed_batch: Some(format::SEED_BATCH),
            workers: self.output.workers,
            worker: self.output.worker,
            seeds: self.seeds.as_ref().map(|d| d.display().to_string()),
            merge: None,
            rating: p.rate,
        }
    }

    /// Rebuilds the job a manifest was written for.
    fn from_manifest(dir: &Path, m: &Manifest) -> anyhow::Result<Job> {
        Job::from_params(dir, &m.version, &m.params, format::MANIFEST)
    }

    /// Rebuilds the job of `params`, read from the manifest `label` in `dir`, written
    /// by sudoku-factory `version`.
    fn from_params(dir: &Path, version: &str, p: &Params, label: &str) -> anyhow::Result<Job> {
        if version != env!("CARGO_PKG_VERSION") {
            bail!(
                "{} was written by sudoku-factory {}, this is {}; resume it with that version",
                dir.display(),
                version,
                env!("CARGO_PKG_VERSION")
            );
        }
        // A merged bank has no generation params: it cannot be resumed (regression: it
        // was refused as "params.seed_batch is missing").
        if p.merge.is_some() {
            bail!(
                "{} was written by merge, not generate: a merge does not resume; run the same merge again with --force",
                dir.display()
            );
        }
        fn need<T>(value: Option<T>, label: &str, key: &str) -> anyhow::Result<T> {
            value.with_context(|| format!("{label}: params.{key} is missing"))
        }
        let text = |value: &Option<String>, key: &str| {
            value
                .as_deref()
                .map(str::to_string)
                .with_context(|| format!("{label}: params.{key} is missing"))
        };
        if need(p.seed_batch, label, "seed_batch")? != format::SEED_BATCH {
            bail!("{label}: params.seed_batch differs from this build's; the run cannot be resumed exactly");
        }
        let size = p
            .board_size()
            .map_err(|e| anyhow::anyhow!("{label}: params.{e}"))?;
        let scale = match p.grade.as_deref() {
            None => Scale::Clues,
            Some(name) => Scale::from_name(name)
                .with_context(|| format!("{label}: unknown params.grade {name:?}"))?,
        };
        let bands = BandTable::parse_scaled(&text(&p.bands, "bands")?, size, scale)
            .with_context(|| format!("{label}: params.bands"))?;
        let selected = bands
            .select(&text(&p.difficulty, "difficulty")?)
            .with_context(|| format!("{label}: params.difficulty"))?;
        let fill_name = text(&p.fill, "fill")?;
        let fill_name = fill_name.as_str();
        let fill = Fill::from_name(fill_name)
            .with_context(|| format!("{label}: unknown fill strategy {fill_name:?}"))?;
        let carve_name = text(&p.carve, "carve")?;
        let carve_name = carve_name.as_str();
        let carve = Carve::from_name(carve_name)
            .with_context(|| format!("{label}: unknown carve strategy {carve_name:?}"))?;
        let symmetry_name = p.symmetry.as_str();
        let symmetry = Symmetry::from_name(symmetry_name)
            .with_context(|| format!("{label}: unknown symmetry {symmetry_name:?}"))?;
        Ok(Job {
            plan: Plan {
                size,
                count: need(p.count, label, "count")?,
                seed: need(p.seed, label, "seed")?,
                variants: p.variants,
                fill,
                carve,
                symmetry,
                bands,
                selected,
                max_attempts: need(p.max_attempts, label, "max_attempts")?,
                rate: p.rating,
            },
            output: Output {
                shard_rows: p.shard_rows,
                zstd_level: p.zstd_level,
                workers: p.workers,
                worker: p.worker,
            },
            dir: dir.to_path_buf(),
            seeds: p.seeds.as_ref().map(PathBuf::from),
        })
    }

    /// The job the command line asks for (no `--resume`).
    fn from_args(args: &GenerateArgs) -> anyhow::Result<Job> {
        let scale = Scale::from(args.grade);
        let bands = super::parse_bands(&args.bands, args.size, scale)?;
        let selected = bands.select(&args.difficulty).context("--difficulty")?;
        if scale == Scale::Rating && args.no_rating {
            bail!("--grade rating needs the rating: it cannot be combined with --no-rating");
        }
        let (carve, symmetry) = (Carve::from(args.carve), Symmetry::from(args.symmetry));
        if !carve.supports_symmetry(symmetry) {
            bail!(
                "--symmetry {} needs --carve minimal or target: {} does not remove clues in orbits",
                symmetry.name(),
                carve.name()
            );
        }
        let job = Job {
            plan: Plan {
                size: args.size,
                count: args.count.context("--count is required")?,
                seed: args.seed,
                variants: args.variants,
                fill: Fill::from(args.fill),
                carve: Carve::from(args.carve),
                symmetry: Symmetry::from(args.symmetry),
                bands,
                selected,
                max_attempts: args.max_attempts,
                rate: !args.no_rating,
            },
            output: Output {
                shard_rows: args.shard_rows,
                zstd_level: args.zstd_level,
                workers: args.workers,
                worker: worker_index(args)?,
            },
            dir: args.out.clone().context("--out is required")?,
            seeds: args.seeds.clone(),
        };
        check_size_limits(&job.plan)?;
        Ok(job)
    }

    /// Seeds of the whole run.
    fn n_seeds(&self) -> u64 {
        self.plan.count.div_ceil(u64::from(self.plan.variants))
    }

    /// Opens and checks stage 1's seed files, for stage 2 (`None` for a whole run).
    fn seed_files(&self) -> anyhow::Result<Option<SeedFiles>> {
        let Some(dir) = &self.seeds else {
            return Ok(None);
        };
        let files = SeedFiles::open(
            dir,
            &self.params(),
            self.n_seeds(),
            self.plan.size.side().pow(2),
        )?;
        Ok(Some(files))
    }
}

pub fn run(args: &GenerateArgs) -> anyhow::Result<Outcome> {
    let threads = args
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;

    if args.stage == StageArg::Seeds {
        return pool.install(|| seed_stage(args));
    }
    if args.stage == StageArg::Expand && args.seeds.is_none() && args.resume.is_none() {
        bail!("--stage expand needs --seeds DIR (the --out of `generate --stage seeds`)");
    }
    if args.resume.is_some() && (args.workers != 1 || args.worker.is_some()) {
        bail!("--resume takes --workers and --worker from the manifest (only `--stage seeds --resume` needs them)");
    }
    let (job, writer, start, files) = match &args.resume {
        Some(dir) => {
            let manifest = crate::bank::read_manifest(dir)?;
            if manifest.complete {
                // Regression: a complete bank with a damaged shard was reported fine.
                sink::check_listed_shards(dir, &manifest)?;
                if !args.quiet {
                    say!(
                        "sudoku-factory: {} is already complete ({} rows)",
                        dir.display(),
                        manifest.rows
                    );
                }
                return Ok(Outcome::Clean);
            }
            let job = Job::from_manifest(dir, &manifest)?;
            if let Some(seeds) = job.seeds.as_ref().filter(|s| !s.exists()) {
                bail!(
                    "{}: the seed files of stage 1 ({}, as given to --seeds) are not found from here; a relative --seeds is read from where the run started: resume from there, or give --seeds as an absolute path next time",
                    dir.join(format::MANIFEST).display(),
                    seeds.display()
                );
            }
            let files = job.seed_files()?;
            let start = resume_point(&job, &manifest)?;
            let config = SinkConfig {
                dir: dir.clone(),
                shard_rows: job.output.shard_rows,
                force: false,
            };
            let writer = BankWriter::resume(config, manifest)?;
            (job, writer, start, files)
        }
        None => {
            let job = Job::from_args(args)?;
            let files = job.seed_files()?;
            let config = SinkConfig {
                dir: job.dir.clone(),
                shard_rows: job.output.shard_rows,
                force: args.force,
            };
            let writer = BankWriter::create(config, job.params())?;
            (job, writer, Start::default(), files)
        }
    };

    let bar = progress_bar(args.quiet, job.plan.count, "rows");
    let first = start.id;
    bar.set_position(first);
    let progress = |rows: u64| bar.set_position(first + rows);
    let mut files = files;
    let (summary, manifest, reports) = pool.install(|| {
        crate::with_board!(job.plan.size, B => expand::<B>(
            &job,
            writer,
            start,
            files.as_mut(),
            !args.no_histograms,
            &progress,
        ))
    })?;
    bar.finish_and_clear();
    sink::write_histograms(
        &job.dir,
        reports
            .iter()
            .map(|r| (r.stage.name(), r.hgrm.as_bytes(), r.hlog.as_slice())),
    )?;
    if !args.quiet {
        let mut text = report(&job, &summary, &manifest, first);
        if !reports.is_empty() {
            text += &timing::table(&reports);
        }
        say!("{}", text.strip_suffix('\n').unwrap_or(&text));
    }
    Ok(Outcome::Clean)
}

/// Runs the pipeline for boards `B`: the whole run, or stage 2 with the first-round
/// seeds read from `files`.
fn expand<B: Board>(
    job: &Job,
    writer: BankWriter,
    start: Start,
    files: Option<&mut SeedFiles>,
    histograms: bool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Summary, Manifest, Vec<timing::StageReport>), PipelineError> {
    let Some(files) = files else {
        return pipeline::run::<B>(
            &job.plan, writer, job.output, start, None, histograms, progress,
        );
    };
    let mut read = |range: std::ops::Range<u64>| {
        let mut seeds = Vec::with_capacity((range.end - range.start) as usize);
        files.read_seeds(range, B::empty(), &mut seeds)?;
        Ok(seeds)
    };
    pipeline::run::<B>(
        &job.plan,
        writer,
        job.output,
        start,
        Some(&mut read),
        histograms,
        progress,
    )
}

/// Stage 1 of a staged run (`--stage seeds`): this worker's chunks of first-round
/// seeds into `OUT/seeds-K-of-N.bin`, or (`--resume OUT`) the chunks still missing.
fn seed_stage(args: &GenerateArgs) -> anyhow::Result<Outcome> {
    if args.seeds.is_some() {
        bail!("--stage seeds makes seed files; --seeds is for --stage expand");
    }
    let (job, mut writer, chunk_seeds) = match &args.resume {
        Some(dir) => {
            let (workers, worker) = (args.workers, worker_index(args)?);
            let path = seeds::manifest_path(dir, worker, workers);
            if !path.exists() {
                bail!(
                    "{} does not exist: nothing to resume for worker {worker} of {workers} (same --workers as the first run?)",
                    path.display()
                );
            }
            let m = reader::read_seed_manifest(&path)?;
            let label = path.display().to_string();
            if m.complete {
                if !args.quiet {
                    say!(
                        "sudoku-factory: {label} is already complete ({} chunks)",
                        m.chunks
                    );
                }
                return Ok(Outcome::Clean);
            }
            let job = Job::from_params(dir, &m.version, &m.params, &label)?;
            let layout = ChunkLayout {
                n_seeds: job.n_seeds(),
                chunk_seeds: m.chunk_seeds,
                workers,
            };
            if m.n_seeds != layout.n_seeds || m.chunk_seeds == 0 {
                bail!("{label}: n_seeds or chunk_seeds contradict the params; start this worker again without --resume");
            }
            let scan =
                reader::scan_seed_part(&seeds::part_path(dir, worker, workers), &layout, worker)?;
            let chunk_seeds = m.chunk_seeds;
            (job, SeedFileWriter::resume(dir, m, scan)?, chunk_seeds)
        }
        None => {
            let job = Job::from_args(args)?;
            let mut params = job.params();
            params.seeds = None;
            let manifest = SeedManifest {
                tool: env!("CARGO_PKG_NAME").to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                params,
                chunk_seeds: seeds::CHUNK_SEEDS,
                n_seeds: job.n_seeds(),
                chunks: 0,
                bytes: 0,
                xxh3: String::new(),
                complete: false,
            };
            let writer = SeedFileWriter::create(&job.dir, manifest, args.force)?;
            (job, writer, seeds::CHUNK_SEEDS)
        }
    };
    let (workers, worker) = (job.output.workers, job.output.worker);
    let layout = ChunkLayout {
        n_seeds: job.n_seeds(),
        chunk_seeds,
        workers,
    };
    let done = writer.chunks();
    let todo: Vec<u64> = layout.chunks_of(worker).skip(done as usize).collect();
    let ranges: Vec<_> = todo.iter().map(|&c| layout.seeds_of(c)).collect();
    let total: u64 = layout
        .chunks_of(worker)
        .map(|c| layout.seeds_of(c).count() as u64)
        .sum();
    let bar = progress_bar(args.quiet, total, "seeds");
    bar.set_position(total - ranges.iter().map(|r| r.end - r.start).sum::<u64>());
    let summary = crate::with_board!(job.plan.size, B => make_seeds::<B>(&job.plan, &todo, &ranges, &mut writer, &bar))?;
    bar.finish_and_clear();
    let manifest = writer.finish()?;
    if !args.quiet {
        let path = seeds::data_path(&job.dir, worker, workers);
        let secs = summary.elapsed.as_secs_f64();
        say!(
            "sudoku-factory: stage 1, worker {worker} of {workers}: {} seeds made in {:.2} s ({:.0} seeds/s); {} holds {} chunks, {} bytes ({:.1} bytes/seed)",
            summary.seeds,
            secs,
            summary.seeds as f64 / secs.max(1e-9),
            path.display(),
            manifest.chunks,
            manifest.bytes,
            manifest.bytes as f64 / total.max(1) as f64,
        );
        if done > 0 {
            say!("  resumed after {}", counted(done, "complete chunk"));
        }
    }
    Ok(Outcome::Clean)
}

/// Makes the seed chunks `todo` (seeds `ranges`) of boards `B` and appends them to
/// `writer`.
fn make_seeds<B: Board>(
    plan: &Plan,
    todo: &[u64],
    ranges: &[std::ops::Range<u64>],
    writer: &mut SeedFileWriter,
    bar: &ProgressBar,
) -> Result<Summary, PipelineError> {
    let mut compressor = zstd::bulk::Compressor::new(3).map_err(PipelineError::Compress)?;
    let (mut plain, mut record) = (Vec::new(), Vec::new());
    let mut emit = |i: usize, made: &[SeedPuzzle<B::Cells>]| -> Result<(), PipelineError> {
        seeds::encode_chunk(
            todo[i],
            ranges[i].start,
            made,
            &mut compressor,
            &mut plain,
            &mut record,
        )
        .map_err(PipelineError::Compress)?;
        writer.append(&record)?;
        bar.inc(made.len() as u64);
        Ok(())
    };
    pipeline::make_seed_chunks::<B>(plan, ranges, &mut emit)
}

/// The progress bar of `len` items on stderr (hidden with `--quiet`).
fn progress_bar(quiet: bool, len: u64, unit: &str) -> ProgressBar {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{wide_bar}}] {{human_pos}}/{{human_len}} {unit}  {{per_sec}}  ETA {{eta}}"
        ))
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    bar
}

/// Refuses, before any work, what a board size cannot deliver: a fill strategy that
/// cannot finish on it, and on 4×4 (where every puzzle is known, [`census4`]) more
/// essentially different seeds than exist in a band, or more variants per seed than
/// some puzzle of the band has.
fn check_size_limits(plan: &Plan) -> anyhow::Result<()> {
    if let Some(reason) = crate::engine::generate::fill::unsuitable(plan.fill, plan.size) {
        bail!(
            "--fill {} on {} boards: {reason}",
            plan.fill.name(),
            plan.size
        );
    }
    // A symmetric pattern is a union of orbits: rot90 cannot make 30 clues on 9x9.
    if plan.symmetry != Symmetry::None && plan.bands.scale() == Scale::Clues {
        let n = plan.size.side();
        for &i in &plan.selected {
            let band = &plan.bands.bands()[i];
            let top = usize::from(band.hi).min(n * n);
            if !(usize::from(band.lo)..=top).any(|c| plan.symmetry.can_have(n, c)) {
                bail!(
                    "no {}-symmetric {} pattern has {}-{top} clues (band {}): its clues come in orbits; choose another band with --difficulty or --bands, or another --symmetry",
                    plan.symmetry.name(),
                    plan.size,
                    band.lo,
                    band.name
                );
            }
        }
    }
    if plan.size != Size::Four {
        return Ok(());
    }
    let census = census4();
    let k = u64::from(plan.variants);
    let n_seeds = plan.count.div_ceil(k);
    let n_selected = plan.selected.len() as u64;
    let table = plan.bands.bands();
    for (pos, &i) in plan.selected.iter().enumerate() {
        let band = &table[i];
        // Seed j goes to band selected[j % n_selected], within the band's own range
        // (`BandTable::accepts`: the top band takes no puzzle above it either).
        let wanted = n_seeds / n_selected + u64::from((pos as u64) < n_seeds % n_selected);
        let hi = band.hi;
        let query = CensusQuery {
            clues: band.lo..=hi,
            minimal_only: plan.carve == Carve::Minimal,
            symmetry: plan.symmetry,
        };
        let kind = match (plan.carve == Carve::Minimal, plan.symmetry) {
            (false, Symmetry::None) => String::new(),
            (true, Symmetry::None) => " minimal".to_string(),
            (false, s) => format!(" {}-symmetric", s.name()),
            (true, s) => format!(" minimal {}-symmetric", s.name()),
        };
        let exist = census.count(&query) as u64;
        if exist == 0 {
            bail!(
                "no{kind} 4x4 puzzle with {}-{hi} clues exists (band {}): choose another band with --difficulty{}",
                band.lo,
                band.name,
                match (plan.carve == Carve::Minimal, plan.symmetry) {
                    (false, Symmetry::None) => "",
                    (true, Symmetry::None) => ", or another --carve",
                    (false, _) => ", or another --symmetry",
                    (true, _) => ", or another --carve or --symmetry",
                }
            );
        }
        if wanted > exist {
            bail!(
                "only {exist} essentially different{kind} 4x4 puzzles with {}-{hi} clues exist (band {}), \
                 but --count {} at --variants {k} needs {} there; \
                 raise --variants (each seed gives that many symmetric variants) or ask for fewer puzzles",
                band.lo,
                band.name,
                plan.count,
                counted(wanted, "distinct seed"),
            );
        }
        // Only then: with a symmetry this enumerates each matching class (< 1 s).
        let fewest = if k > 1 {
            census.min_variants(&query)
        } else {
            None
        };
        if let Some(fewest) = fewest.filter(|&fewest| k > fewest as u64) {
            let kept = if plan.symmetry == Symmetry::None {
                String::new()
            } else {
                format!(" that keep its {} symmetry", plan.symmetry.name())
            };
            bail!(
                "--variants {k} is more than some{kind} 4x4 puzzles with {}-{hi} clues (band {}) have: \
                 as few as {fewest} distinct puzzles{kept} are equivalent to one of them; use --variants {fewest} or fewer",
                band.lo,
                band.name,
            );
        }
    }
    Ok(())
}

/// Where a resumed run starts, and the dedup state of the seed batches before it,
/// rebuilt from the `canonical` column of the complete shards (variant 0 of each seed).
/// A worker's earlier seeds are in other workers' shards: it recomputes them instead.
fn resume_point(job: &Job, manifest: &Manifest) -> anyhow::Result<Start> {
    let out = &job.output;
    let n_shards = job.plan.count.div_ceil(out.shard_rows);
    let mut owned = (0..n_shards).filter(|&s| out.owns(s));
    for listed in &manifest.shards {
        let expected = owned.next().map(format::shard_name);
        if expected.as_deref() != Some(listed.file.as_str()) {
            bail!(
                "manifest.json lists {} where {} was expected; it was not written by a run that can be resumed",
                listed.file,
                expected.unwrap_or_else(|| "no further shard".into())
            );
        }
    }
    let id = owned.next().map_or(job.plan.count, |s| s * out.shard_rows);
    // A worker's earlier seeds are elsewhere; stage 2 re-reads them from the seed
    // files (cheap) rather than from the shards.
    if out.workers > 1 || job.seeds.is_some() {
        return Ok(Start { id, seen: None });
    }
    let below = format::batch_start_id(id, job.plan.variants);
    let seen = crate::with_board!(job.plan.size, B => seen_below::<B>(job, manifest, below))?;
    Ok(Start {
        id,
        seen: Some(seen),
    })
}

/// The canonical keys of the seeds (variant 0 rows) below id `below`, read back from
/// the complete shards of a bank of boards `B`.
fn seen_below<B: Board>(
    job: &Job,
    manifest: &Manifest,
    below: u64,
) -> anyhow::Result<HashSet<u128>> {
    let k = u64::from(job.plan.variants);
    let mut seen = HashSet::new();
    for shard in manifest.shards.iter().filter(|s| s.first_id < below) {
        let mut reader = ShardReader::open(&job.dir.join(&shard.file))?;
        reader.read_header()?;
        while let Some(row) = reader.next_row_of(B::SIZE, B::empty()) {
            let row = row?.map_err(|e| anyhow::anyhow!("{}: {e}", shard.file))?;
            if row.id >= below {
                break;
            }
            if row.id % k == 0 {
                let canonical = row.canonical.with_context(|| {
                    format!("{}: row {} has no canonical form", shard.file, row.id)
                })?;
                seen.insert(canonical_key(canonical.as_ref()));
            }
        }
    }
    Ok(seen)
}

/// `--worker`, or the index a cluster scheduler gives an array task.
fn worker_index(args: &GenerateArgs) -> anyhow::Result<u64> {
    let from_env = || {
        ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"]
            .iter()
            .find_map(|var| {
                std::env::var(var).ok().map(|v| {
                    v.trim()
                        .parse::<u64>()
                        .map(|k| (k, format!("${var}")))
                        .with_context(|| format!("${var}={v:?} is not a worker index"))
                })
            })
    };
    // The index and where it came from, for the message when it is out of range.
    let (worker, source) = match args.worker {
        Some(k) => (k, "--worker".to_string()),
        None if args.workers == 1 => (0, "--worker".to_string()),
        None => from_env().transpose()?.context(
            "--workers needs --worker K (or $SLURM_ARRAY_TASK_ID / $JOB_COMPLETION_INDEX)",
        )?,
    };
    if worker >= args.workers {
        bail!(
            "{source} {worker} is out of range for --workers {} (0..{})",
            args.workers,
            args.workers - 1
        );
    }
    Ok(worker)
}

/// The final summary: rows, time, rate, seeds, and per band rows and attempts.
fn report(job: &Job, s: &Summary, manifest: &Manifest, first: u64) -> String {
    let (plan, out, staged) = (&job.plan, &job.dir, job.seeds.is_some());
    let secs = s.elapsed.as_secs_f64();
    // This run's rows (a worker's bank holds only its shards, so its row count less
    // the global id it resumed at is no count: it wrapped around).
    let made: u64 = s.band_rows.iter().sum();
    let mut text = format!(
        "sudoku-factory: wrote {} in {} to {} in {:.2} s ({:.0} rows/s)\n",
        counted(manifest.rows, "row"),
        counted(manifest.shards.len() as u64, "shard"),
        out.display(),
        secs,
        made as f64 / secs.max(1e-9)
    );
    if plan.symmetry != Symmetry::None {
        text += &format!(
            "  clue patterns symmetric under {}; carving removed whole orbits, so \"minimal\" means minimal with respect to orbits\n",
            plan.symmetry.name()
        );
    }
    if first > 0 {
        text += &format!("  resumed at id {first}: {made} rows made in this run\n");
    }
    let origin = if staged {
        "read from the seed files"
    } else {
        "made"
    };
    text += &format!(
        "  seeds: {} {origin} ({} puzzles per seed), {} dropped and replaced as duplicates by canonical form\n",
        s.seeds, plan.variants, s.seeds_dropped
    );
    // Seeds/s on one core: what a band costs, whatever the thread count (staged
    // expansion reads its seeds, so there is no time to report).
    let scale = plan.bands.scale().name();
    text += &format!(
        "  {:<22} {:>12} {:>10} {:>14} {:>13} {:>16}\n",
        format!("band ({scale})"),
        "rows",
        "seeds",
        "attempts/seed",
        "max attempts",
        "seeds/s per core"
    );
    for (i, band) in plan.bands.bands().iter().enumerate() {
        if s.band_seeds[i] == 0 {
            continue;
        }
        let took = s.band_seed_time[i].as_secs_f64();
        let rate = if took > 0.0 {
            format!("{:.0}", s.band_seeds[i] as f64 / took)
        } else {
            "-".to_string()
        };
        text += &format!(
            "  {:<22} {:>12} {:>10} {:>14.2} {:>13} {:>16}\n",
            format!("{} {}", band.name, plan.bands.range_text(i)),
            s.band_rows[i],
            s.band_seeds[i],
            s.band_attempts[i] as f64 / s.band_seeds[i] as f64,
            s.band_max_attempts[i],
            rate
        );
    }
    text
}
