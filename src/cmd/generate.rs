//! `sudoku-factory generate`: validate every option before touching the disk, then run
//! the pipeline on a rayon pool of `--threads`, with a progress bar, stage histograms
//! and a summary on stderr. `--resume OUT` rebuilds the same plan from the manifest
//! and continues after the last complete shard.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bank::sink::{self, BankWriter, Manifest, Params, SinkConfig};
use crate::bank::ShardReader;
use crate::cli::GenerateArgs;
use crate::engine::board::Board;
use crate::engine::generate::{Carve, Fill, Symmetry};
use crate::engine::grade::BandTable;
use crate::engine::grid::Size;
use crate::engine::nxn::census::{census4, CensusQuery};
use crate::run::pipeline::{self, canonical_key, Output, Plan, Start, Summary};
use crate::run::timing;

use super::Outcome;

/// Everything a run needs, whether from the command line or from a manifest.
struct Job {
    plan: Plan,
    output: Output,
    dir: PathBuf,
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
            max_attempts: Some(p.max_attempts),
            shard_rows: self.output.shard_rows,
            zstd_level: self.output.zstd_level,
            seed_batch: Some(pipeline::SEED_BATCH),
            workers: self.output.workers,
            worker: self.output.worker,
            merge: None,
        }
    }

    /// Rebuilds the job a manifest was written for.
    fn from_manifest(dir: &Path, m: &Manifest) -> anyhow::Result<Job> {
        if m.version != env!("CARGO_PKG_VERSION") {
            bail!(
                "{} was written by sudoku-factory {}, this is {}; resume it with that version",
                dir.display(),
                m.version,
                env!("CARGO_PKG_VERSION")
            );
        }
        let p = &m.params;
        // A merged bank has no generation params: it cannot be resumed.
        fn need<T: Copy>(value: Option<T>, key: &str) -> anyhow::Result<T> {
            value.with_context(|| format!("manifest.json: params.{key} is missing"))
        }
        let text = |value: &Option<String>, key: &str| {
            value
                .as_deref()
                .map(str::to_string)
                .with_context(|| format!("manifest.json: params.{key} is missing"))
        };
        if need(p.seed_batch, "seed_batch")? != pipeline::SEED_BATCH {
            bail!("manifest.json: params.seed_batch differs from this build's; the bank cannot be resumed exactly");
        }
        let size = p
            .board_size()
            .map_err(|e| anyhow::anyhow!("manifest.json: params.{e}"))?;
        let bands = BandTable::parse_for(&text(&p.bands, "bands")?, size)
            .context("manifest.json: params.bands")?;
        let selected = bands
            .select(&text(&p.difficulty, "difficulty")?)
            .context("manifest.json: params.difficulty")?;
        let fill_name = text(&p.fill, "fill")?;
        let fill_name = fill_name.as_str();
        let fill = Fill::from_name(fill_name)
            .with_context(|| format!("manifest.json: unknown fill strategy {fill_name:?}"))?;
        let carve_name = text(&p.carve, "carve")?;
        let carve_name = carve_name.as_str();
        let carve = Carve::from_name(carve_name)
            .with_context(|| format!("manifest.json: unknown carve strategy {carve_name:?}"))?;
        let symmetry_name = p.symmetry.as_str();
        let symmetry = Symmetry::from_name(symmetry_name)
            .with_context(|| format!("manifest.json: unknown symmetry {symmetry_name:?}"))?;
        Ok(Job {
            plan: Plan {
                size,
                count: need(p.count, "count")?,
                seed: need(p.seed, "seed")?,
                variants: p.variants,
                fill,
                carve,
                symmetry,
                bands,
                selected,
                max_attempts: need(p.max_attempts, "max_attempts")?,
            },
            output: Output {
                shard_rows: p.shard_rows,
                zstd_level: p.zstd_level,
                workers: p.workers,
                worker: p.worker,
            },
            dir: dir.to_path_buf(),
        })
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

    let (job, writer, start) = match &args.resume {
        Some(dir) => {
            let manifest = crate::bank::read_manifest(dir)?;
            if manifest.complete {
                if !args.quiet {
                    eprintln!(
                        "sudoku-factory: {} is already complete ({} rows)",
                        dir.display(),
                        manifest.rows
                    );
                }
                return Ok(Outcome::Clean);
            }
            let job = Job::from_manifest(dir, &manifest)?;
            let start = resume_point(&job, &manifest)?;
            let config = SinkConfig {
                dir: dir.clone(),
                shard_rows: job.output.shard_rows,
                force: false,
            };
            let writer = BankWriter::resume(config, manifest)?;
            (job, writer, start)
        }
        None => {
            let bands = BandTable::parse_for(&args.bands, args.size).context("--bands")?;
            let selected = bands.select(&args.difficulty).context("--difficulty")?;
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
                },
                output: Output {
                    shard_rows: args.shard_rows,
                    zstd_level: args.zstd_level,
                    workers: args.workers,
                    worker: worker_index(args)?,
                },
                dir: args.out.clone().context("--out is required")?,
            };
            check_size_limits(&job.plan)?;
            let config = SinkConfig {
                dir: job.dir.clone(),
                shard_rows: job.output.shard_rows,
                force: args.force,
            };
            let writer = BankWriter::create(config, job.params())?;
            (job, writer, Start::default())
        }
    };

    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(job.plan.count), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} rows  {per_sec}  ETA {eta}",
        )
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    let first = start.id;
    bar.set_position(first);
    let progress = |rows: u64| bar.set_position(first + rows);
    let (summary, manifest, reports) = pool.install(|| {
        crate::with_board!(job.plan.size, B => pipeline::run::<B>(
            &job.plan,
            writer,
            job.output,
            start,
            !args.no_histograms,
            &progress,
        ))
    })?;
    bar.finish_and_clear();
    sink::write_histograms(&job.dir, &reports)?;
    if !args.quiet {
        eprint!(
            "{}",
            report(&job.plan, &summary, &manifest, first, &job.dir)
        );
        if !reports.is_empty() {
            eprint!("{}", timing::table(&reports));
        }
    }
    Ok(Outcome::Clean)
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
    if plan.size != Size::Four {
        return Ok(());
    }
    let census = census4();
    let k = u64::from(plan.variants);
    let n_seeds = plan.count.div_ceil(k);
    let n_selected = plan.selected.len() as u64;
    let table = plan.bands.bands();
    let top = table.iter().map(|b| b.hi).max().unwrap_or(0);
    for (pos, &i) in plan.selected.iter().enumerate() {
        let band = &table[i];
        // Seed j goes to band selected[j % n_selected]; the top band also takes
        // puzzles with more clues than its range.
        let wanted = n_seeds / n_selected + u64::from((pos as u64) < n_seeds % n_selected);
        let hi = if band.hi == top { 16 } else { band.hi };
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
        if wanted > exist {
            bail!(
                "only {exist} essentially different{kind} 4x4 puzzles with {}-{hi} clues exist (band {}), \
                 but --count {} at --variants {k} needs {wanted} distinct seeds there; \
                 raise --variants (each seed gives that many symmetric variants) or ask for fewer puzzles",
                band.lo,
                band.name,
                plan.count,
            );
        }
        if let Some(fewest) = census.min_members(&query) {
            if k > fewest as u64 {
                bail!(
                    "--variants {k} is more than some{kind} 4x4 puzzles with {}-{hi} clues (band {}) have: \
                     as few as {fewest} distinct puzzles are equivalent to one of them; use --variants {fewest} or fewer",
                    band.lo,
                    band.name,
                );
            }
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
        let expected = owned.next().map(sink::shard_name);
        if expected.as_deref() != Some(listed.file.as_str()) {
            bail!(
                "manifest.json lists {} where {} was expected; it was not written by a run that can be resumed",
                listed.file,
                expected.unwrap_or_else(|| "no further shard".into())
            );
        }
    }
    let id = owned.next().map_or(job.plan.count, |s| s * out.shard_rows);
    if out.workers > 1 {
        return Ok(Start { id, seen: None });
    }
    let below = pipeline::batch_start_id(id, job.plan.variants);
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
                        .with_context(|| format!("${var}={v:?} is not a worker index"))
                })
            })
    };
    let worker = match args.worker {
        Some(k) => k,
        None if args.workers == 1 => 0,
        None => from_env().transpose()?.context(
            "--workers needs --worker K (or $SLURM_ARRAY_TASK_ID / $JOB_COMPLETION_INDEX)",
        )?,
    };
    if worker >= args.workers {
        bail!(
            "--worker {worker} is out of range for --workers {} (0..{})",
            args.workers,
            args.workers - 1
        );
    }
    Ok(worker)
}

/// The final summary: rows, time, rate, seeds, and per band rows and attempts.
fn report(plan: &Plan, s: &Summary, manifest: &Manifest, first: u64, out: &Path) -> String {
    let secs = s.elapsed.as_secs_f64();
    let made = manifest.rows - first;
    let mut text = format!(
        "sudoku-factory: wrote {} rows in {} shard(s) to {} in {:.2} s ({:.0} rows/s)\n",
        manifest.rows,
        manifest.shards.len(),
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
    text += &format!(
        "  seeds: {} made ({} puzzles per seed), {} dropped and replaced as duplicates by canonical form\n",
        s.seeds, plan.variants, s.seeds_dropped
    );
    text += &format!(
        "  {:<16} {:>12} {:>10} {:>14} {:>13}\n",
        "band", "rows", "seeds", "attempts/seed", "max attempts"
    );
    for (i, band) in plan.bands.bands().iter().enumerate() {
        if s.band_seeds[i] == 0 {
            continue;
        }
        text += &format!(
            "  {:<16} {:>12} {:>10} {:>14.2} {:>13}\n",
            format!("{} {}-{}", band.name, band.lo, band.hi),
            s.band_rows[i],
            s.band_seeds[i],
            s.band_attempts[i] as f64 / s.band_seeds[i] as f64,
            s.band_max_attempts[i]
        );
    }
    text
}
