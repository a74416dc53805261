//! `sudoku-factory import FILE... --out BANK`: checks every source (readable, the CSV
//! column present) and digests it before anything is written, runs
//! [`crate::bank::import`] on a rayon pool of `--threads` with a progress bar over the
//! source bytes, reports rejected puzzles by file and line (the first few on stderr,
//! all of them in `--rejects FILE`), and prints a summary. Exit 1 when a puzzle was
//! rejected (the bank still holds every good one).

use std::io::Write;
use std::time::Instant;

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bank::format::{ImportParams, Params};
use crate::bank::import::{self, ImportConfig, Reject, Rejected, Source};
use crate::bank::reader::refuse_bank_file;
use crate::bank::sink::{self, SinkConfig};
use crate::cli::{GradeArg, ImportArgs};
use crate::engine::bands::Scale;
use crate::say;
use crate::util::output::{refuse_existing, refuse_input, TempOutput, WriteBack};
use crate::util::text::counted;

use super::Outcome;

/// Rejected puzzles named on stderr; the rest are counted (and all go to --rejects).
const SHOWN: u64 = 20;

pub fn run(args: &ImportArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let scale = Scale::from(args.grade);
    if args.no_rating && args.grade == GradeArg::Rating {
        bail!("--no-rating cannot go with --grade rating: rating bands need the rating");
    }
    let bands = super::parse_bands(&args.bands, args.size, scale)?;
    let sources = args
        .inputs
        .iter()
        .map(|path| Source::open(path, args.column.as_deref()))
        .collect::<Result<Vec<_>, _>>()?;
    sink::refuse_occupied(&args.out, args.force)?;
    if let Some(rejects) = &args.rejects {
        refuse_existing(rejects, args.force)?;
        refuse_input(rejects, args.inputs.iter().map(|p| p.as_path()))?;
        // The bank about to be written (with --force, over one that is there).
        refuse_bank_file(rejects, &args.out)?;
    }
    let total: u64 = sources.iter().map(|s| s.digest.bytes).sum();
    let params = Params {
        size: args.size.side() as u64,
        bands: Some(bands.to_string()),
        grade: (scale == Scale::Rating).then(|| scale.name().to_string()),
        shard_rows: args.shard_rows,
        zstd_level: args.zstd_level,
        import: Some(ImportParams {
            keep_duplicates: args.keep_duplicates,
            sources: sources.iter().map(Source::record).collect(),
        }),
        rating: !args.no_rating,
        ..Params::default()
    };
    let config = ImportConfig {
        bands,
        keep_duplicates: args.keep_duplicates,
        rate: !args.no_rating,
        shard_rows: args.shard_rows,
        zstd_level: args.zstd_level,
    };
    let out = SinkConfig {
        dir: args.out.clone(),
        shard_rows: args.shard_rows,
        force: args.force,
    };

    let mut rejects = match &args.rejects {
        Some(path) => {
            let file = TempOutput::new(path)?;
            let mut csv =
                csv::Writer::from_writer(std::io::BufWriter::new(WriteBack::new(file.create()?)));
            csv.write_record(["file", "line", "reason"])
                .with_context(|| format!("writing {}", file.tmp().display()))?;
            Some((file, csv))
        }
        None => None,
    };
    let mut shown = 0u64;
    let mut reject_error: Option<anyhow::Error> = None;
    let bar = progress(args.quiet, total);
    let on_reject = |r: &Rejected| {
        let file = sources[r.source].path.display().to_string();
        let message = match &r.reason {
            Reject::Malformed(e) => format!("{file}: {e}"),
            other => format!("{file}: line {}: {other}", r.line),
        };
        if shown < SHOWN {
            bar.suspend(|| say!("sudoku-factory: import: {message}"));
        }
        shown += 1;
        if let Some((file_out, csv)) = &mut rejects {
            if reject_error.is_none() {
                let line = r.line.to_string();
                let reason = r.reason.to_string();
                if let Err(e) = csv.write_record([file.as_str(), line.as_str(), reason.as_str()]) {
                    reject_error = Some(
                        anyhow::Error::new(e)
                            .context(format!("writing {}", file_out.tmp().display())),
                    );
                }
            }
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.map_or(0, |t| t as usize))
        .build()
        .context("starting the worker threads")?;
    let (summary, manifest) = pool.install(|| {
        crate::with_board!(args.size, B => import::import::<B>(
            &sources,
            &config,
            out,
            params,
            on_reject,
            |bytes| bar.inc(bytes),
        ))
    })?;
    bar.finish_and_clear();
    if let Some(e) = reject_error {
        return Err(e);
    }
    if let Some((file, csv)) = rejects {
        let name = file.tmp().display().to_string();
        let mut inner = csv
            .into_inner()
            .map_err(|e| anyhow::anyhow!("writing {name}: {}", e.error()))?;
        inner.flush().with_context(|| format!("writing {name}"))?;
        drop(inner);
        file.commit()?;
    }

    let rejected = summary.rejected();
    if shown > SHOWN {
        say!(
            "sudoku-factory: import: ... and {} more{}",
            counted(shown - SHOWN, "rejected puzzle"),
            match &args.rejects {
                Some(p) => format!(" (all in {})", p.display()),
                None => " (pass --rejects FILE for the list)".to_string(),
            }
        );
    }
    if !args.quiet {
        let secs = started.elapsed().as_secs_f64();
        say!(
            "sudoku-factory: imported {} into {} in {secs:.2} s",
            counted(sources.len() as u64, "file"),
            args.out.display()
        );
        say!("  puzzles read        {:>12}", summary.read);
        say!("  malformed           {:>12}", summary.malformed);
        say!("  no solution         {:>12}", summary.no_solution);
        say!("  not unique          {:>12}", summary.not_unique);
        if summary.no_band > 0 {
            say!("  in no band          {:>12}", summary.no_band);
        }
        say!(
            "  duplicates {}  {:>12}",
            if args.keep_duplicates {
                "kept   "
            } else {
                "dropped"
            },
            summary.duplicates
        );
        say!(
            "  rows written        {:>12}  in {}",
            summary.written,
            counted(manifest.shards.len() as u64, "shard")
        );
        for (band, n) in config.bands.bands().iter().zip(&summary.per_band) {
            say!("    {:<17} {:>12}", band.name, n);
        }
    }
    if rejected > 0 {
        say!(
            "sudoku-factory: import: {} not imported; the bank holds the {} kept",
            counted(rejected, "rejected puzzle"),
            counted(summary.written, "row")
        );
        return Ok(Outcome::Defects);
    }
    Ok(Outcome::Clean)
}

fn progress(quiet: bool, total: u64) -> ProgressBar {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        // Drawn only when stderr is a terminal.
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {binary_bytes}/{binary_total_bytes}  {binary_bytes_per_sec}  ETA {eta}",
        )
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    bar
}
