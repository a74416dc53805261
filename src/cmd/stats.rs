//! `sudoku-factory stats OUT [--svg FILE]`: read every row of a bank (shards in
//! parallel) and print a summary on stdout — rows per band, the clue distribution,
//! distinct canonical forms and, when `OUT/histograms/` exists, stage latencies —
//! then, with `--svg FILE`, the SVG chart (never over a file of the bank; over an
//! existing FILE only with `--force`; written under a temporary name and renamed). It
//! only reads the bank: nothing is written into `OUT`. The summary is the data this command was asked for, so it goes to
//! stdout; warnings go to stderr.

use std::fs;
use std::path::Path;

use anyhow::Context;
use rayon::prelude::*;

use crate::bank::stats::{self, BankStats, RatePoint, StageLatency};
use crate::bank::{self, ShardReader};
use crate::cli::StatsArgs;
use crate::engine::board::Board;
use crate::util::text::counted;

use crate::say;

use super::{write_stdout, Outcome};
use crate::bank::format::{ShardRecord, HISTOGRAMS};
use crate::bank::reader::{refuse_bank_file, shard_mismatch};
use crate::util::output::{refuse_existing, write_file};

pub fn run(args: &StatsArgs) -> anyhow::Result<Outcome> {
    let dir = &args.out;
    // The chart's FILE is checked before anything is read.
    if let Some(svg) = &args.svg {
        if svg == std::path::Path::new("-") {
            anyhow::bail!(
                "--svg -: stats writes the chart to a file; name one, e.g. --svg clues.svg"
            );
        }
        refuse_existing(svg, args.force)?;
        refuse_bank_file(svg, dir)?;
    }
    let manifest = bank::read_manifest(dir)?;
    let size = manifest.params.board_size().map_err(|e| {
        anyhow::anyhow!(
            "{}: params.{e}",
            dir.join(crate::bank::format::MANIFEST).display()
        )
    })?;
    // Bands in the table's order (with empty ones), on the bank's scale.
    let table = manifest.params.band_table(size);
    if !manifest.complete {
        say!(
            "sudoku-factory: warning: {} is incomplete (complete: false; {} in {} so far): these numbers cover only that part; {}",
            dir.display(),
            counted(manifest.rows, "row"),
            counted(manifest.shards.len() as u64, "shard"),
            manifest.finish_hint(dir)
        );
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.map_or(0, |t| t as usize))
        .build()
        .context("starting the worker threads")?;

    let per_shard: Vec<(BankStats, Vec<String>)> = pool.install(|| {
        manifest
            .shards
            .par_iter()
            .map(|record| crate::with_board!(size, B => read_shard::<B>(dir, record)))
            .collect()
    });
    let mut total = BankStats::for_size(size);
    let mut problems = Vec::new();
    for (s, p) in per_shard {
        total.merge(s);
        problems.extend(p);
    }
    for p in &problems {
        say!("sudoku-factory: warning: {p}");
    }

    let (latencies, rates) = read_histograms(&dir.join(HISTOGRAMS));
    let report = if args.json {
        stats::render_json(
            &total,
            table.as_ref(),
            &latencies,
            manifest.complete,
            &problems,
        )
    } else {
        stats::render_text(&total, table.as_ref(), &latencies)
    };
    write_stdout(&report)?;

    if let Some(svg_path) = &args.svg {
        let svg = stats::render_svg(&total, table.as_ref(), &rates)
            .map_err(|e| anyhow::anyhow!("drawing the chart: {e}"))?;
        write_file(svg_path, svg.as_bytes())?;
        say!("sudoku-factory: wrote the chart to {}", svg_path.display());
    }
    Ok(if problems.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Defects
    })
}

/// The counts of one shard, and what could not be read: malformed rows are skipped
/// (`verify` is the command that judges them), and a shard that is not what the
/// manifest lists (row count, size, XXH3) is named.
fn read_shard<B: Board>(dir: &Path, record: &ShardRecord) -> (BankStats, Vec<String>) {
    let path = &dir.join(&record.file);
    let mut stats = BankStats::for_size(B::SIZE);
    let mut problems = Vec::new();
    let mut reader = match ShardReader::open(path) {
        Ok(r) => r,
        Err(e) => return (stats, vec![e.to_string()]),
    };
    let (mut rows, mut malformed) = (0u64, 0u64);
    while let Some(item) = reader.next_row_of(B::SIZE, B::empty()) {
        match item {
            Ok(Ok(row)) => stats.add(&row),
            Ok(Err(_)) => malformed += 1,
            Err(e) => {
                problems.push(e.to_string());
                return (stats, problems);
            }
        }
        rows += 1;
    }
    // Regression: a shard rewritten with other rows (valid zstd, wrong checksum) was
    // summarised without a word and `stats` exited 0.
    match reader.finish() {
        Ok(digest) => {
            if let Some(what) = shard_mismatch(record, rows, &digest) {
                problems.push(format!(
                    "{}: {what}; these numbers include it (run `sudoku-factory verify {}`)",
                    path.display(),
                    dir.display()
                ));
            }
        }
        Err(e) => problems.push(e.to_string()),
    }
    if malformed > 0 {
        problems.push(format!(
            "{}: {} skipped (run `sudoku-factory verify`)",
            path.display(),
            counted(malformed, "malformed row")
        ));
    }
    (stats, problems)
}

/// Latencies (and rates over time) of every stage that has a histogram file; a
/// missing directory or file, or one that recorded nothing (a worker past the last
/// shard writes no rows), just means no such section. Unreadable files are reported
/// on stderr and skipped.
fn read_histograms(dir: &Path) -> (Vec<StageLatency>, Vec<(String, Vec<RatePoint>)>) {
    let mut latencies = Vec::new();
    let mut rates = Vec::new();
    if !dir.is_dir() {
        return (latencies, rates);
    }
    for stage in stats::STAGES {
        let hlog = dir.join(format!("{stage}.hlog"));
        if let Ok(bytes) = fs::read(&hlog) {
            match stats::read_hlog(stage, &bytes) {
                Ok((latency, points)) => {
                    latencies.push(latency);
                    rates.push((stage.to_string(), points));
                    continue;
                }
                Err(stats::HistogramError::Empty) => continue,
                Err(e) => say!("sudoku-factory: warning: {}: {e}", hlog.display()),
            }
        }
        let hgrm = dir.join(format!("{stage}.hgrm"));
        if let Ok(text) = fs::read_to_string(&hgrm) {
            match stats::read_hgrm(stage, &text, 1000.0) {
                Ok(latency) => latencies.push(latency),
                Err(stats::HistogramError::Empty) => {}
                Err(e) => say!("sudoku-factory: warning: {}: {e}", hgrm.display()),
            }
        }
    }
    (latencies, rates)
}
