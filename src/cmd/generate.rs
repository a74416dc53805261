//! `sudoku-factory generate`: validate every option before touching the disk, then run
//! the pipeline on a rayon pool of `--threads`, with a progress bar, stage histograms
//! and a summary on stderr. `--resume OUT` rebuilds the same plan from the manifest
//! and continues after the last complete shard.

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bank::format::{self, Manifest, SeedPuzzle};
use crate::bank::reader::{self, SeedFiles};
use crate::bank::seeds::{self, ChunkLayout, SeedManifest};
use crate::bank::sink::{self, BankWriter, SeedFileWriter, SinkConfig};
use crate::cli::{GenerateArgs, StageArg};
use crate::engine::bands::Scale;
use crate::engine::board::{Board, Nine};
use crate::engine::generate::{Carve, Fill, Symmetry};
use crate::engine::grid::{parse_board, Size};
use crate::run::pipeline::{self, Output, PipelineError, Plan, Start, Summary};
use crate::run::plan::{check_feasible, resume_point, Job};
use crate::run::seed::{starts_digest, StartPuzzle};
use crate::run::timing;
use crate::say;
use crate::util::text::counted;

use super::Outcome;

/// The job the command line asks for (no `--resume`).
fn job_from_args(args: &GenerateArgs) -> anyhow::Result<Job> {
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
    if args.from.is_some() {
        if scale != Scale::Rating {
            bail!("--from starts the climbs of rating bands: it needs --grade rating");
        }
        if symmetry != Symmetry::None {
            bail!(
                "--from climbs one or two givens at a time: it cannot keep --symmetry {}",
                symmetry.name()
            );
        }
        if args.workers != 1 || args.stage != StageArg::All {
            bail!("--from runs in one process: it cannot be combined with --workers or --stage");
        }
    }
    let count = args.count.context("--count is required")?;
    let job = Job {
        plan: Plan {
            size: args.size,
            count,
            seed: args.seed,
            variants: args.variants,
            fill: Fill::from(args.fill),
            carve: Carve::from(args.carve),
            symmetry: Symmetry::from(args.symmetry),
            bands,
            selected,
            max_attempts: args.max_attempts,
            rate: !args.no_rating,
            starts: match &args.from {
                Some(path) => read_starts(path)?.into(),
                None => std::sync::Arc::from([]),
            },
        },
        output: Output {
            shard_rows: format::part_shard_rows(count, args.shard_rows, args.workers),
            bank_shard_rows: args.shard_rows,
            zstd_level: args.zstd_level,
            workers: args.workers,
            worker: worker_index(args)?,
        },
        dir: args.out.clone().context("--out is required")?,
        seeds: args.seeds.clone(),
        // Absolute, so that `--resume` finds the file from anywhere.
        from: args
            .from
            .as_ref()
            .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone())),
    };
    check_feasible(&job.plan)?;
    Ok(job)
}

/// The puzzles of `--from FILE`: each line's first field (up to a blank, a comma or
/// a semicolon: `puzzle 8.5` and `puzzle,8.5` alike), a 9×9 puzzle with one
/// solution; blank lines and lines starting with `#` are skipped. A bad line is an
/// error naming it (and the column, for a bad character).
fn read_starts(path: &std::path::Path) -> anyhow::Result<Vec<StartPuzzle>> {
    let label = format!("--from {}", path.display());
    let text = std::fs::read(path).with_context(|| format!("{label}: cannot read it"))?;
    let mut starts = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let body = line.trim_ascii_start();
        if body.is_empty() || body.starts_with(b"#") {
            continue;
        }
        // The first field, with the leading blanks that columns count.
        let end = line.len() - body.len()
            + body
                .iter()
                .position(|b| b.is_ascii_whitespace() || matches!(b, b',' | b';'))
                .unwrap_or(body.len());
        let mut cells = Nine::empty();
        parse_board(&line[..end], i + 1, Size::Nine, &mut cells)
            .map_err(|e| anyhow::anyhow!("{label}: {}", super::board_error(&e, false)))?;
        let start = StartPuzzle::new::<Nine>(&cells).with_context(|| {
            format!("{label}: line {}: the puzzle has no unique solution", i + 1)
        })?;
        starts.push(start);
    }
    if starts.is_empty() {
        bail!("{label}: no puzzle in it");
    }
    Ok(starts)
}

/// The puzzles of the `--from` file of the run `dir` resumes, when they are the ones
/// its manifest's digest records (the seeds draw starts by index: other puzzles, or
/// the same in another order, would not make the same bank).
fn starts_to_resume(
    dir: &std::path::Path,
    from: &std::path::Path,
    params: &crate::bank::format::Params,
) -> anyhow::Result<Vec<StartPuzzle>> {
    let manifest = dir.join(format::MANIFEST);
    let starts = read_starts(from).with_context(|| format!("{}: resuming", manifest.display()))?;
    if params.from_digest.as_deref() != Some(starts_digest(&starts).as_str()) {
        bail!(
            "{}: the puzzles of --from {} changed since the run started (their digest differs), so it cannot be resumed into the same bank: put the file back as it was, or run it again with --force",
            manifest.display(),
            from.display()
        );
    }
    Ok(starts)
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
            let mut job = Job::from_manifest(dir, &manifest)?;
            if let Some(from) = &job.from {
                job.plan.starts = starts_to_resume(dir, from, &manifest.params)?.into();
            }
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
            let job = job_from_args(args)?;
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
    // The seeds this worker writes rows of: only their chunks are decompressed; of
    // the others it needs the canonical keys, which the files keep uncompressed.
    let wanted = |seeds: std::ops::Range<u64>| job.writes_rows_of(seeds);
    let mut read = |range: std::ops::Range<u64>| {
        let mut seeds = Vec::with_capacity((range.end - range.start) as usize);
        files.read_seeds(range, B::empty(), &wanted, &mut seeds)?;
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
            if job.from.is_some() {
                bail!("{label}: a --from run has no seed stage (was the manifest edited?)");
            }
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
            let job = job_from_args(args)?;
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
    // The first column fits the longest band with its range (`:even` ones are long).
    let label = |i: usize, band: &crate::engine::bands::Band| {
        format!("{} {}", band.name, plan.bands.range_text(i))
    };
    let w = (plan.bands.bands().iter().enumerate())
        .map(|(i, b)| label(i, b).len())
        .fold(22, usize::max);
    text += &format!(
        "  {:<w$} {:>12} {:>10} {:>14} {:>13} {:>16}\n",
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
            "  {:<w$} {:>12} {:>10} {:>14.2} {:>13} {:>16}\n",
            label(i, band),
            s.band_rows[i],
            s.band_seeds[i],
            s.band_attempts[i] as f64 / s.band_seeds[i] as f64,
            s.band_max_attempts[i],
            rate
        );
    }
    // The spread inside each rating band: how many seeds rate each step.
    if plan.bands.scale() == Scale::Rating {
        text += "  seeds per rating, per band:\n";
        for (i, band) in plan.bands.bands().iter().enumerate() {
            let steps: Vec<String> = s.band_ratings[i]
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n > 0)
                .map(|(r, n)| format!("{}.{}: {n}", r / 10, r % 10))
                .collect();
            if !steps.is_empty() {
                text += &format!("  {:<w$} {}\n", band.name, steps.join("  "));
            }
        }
    }
    text
}
