//! `sudoku-factory generate`: validate every option before touching the disk, then run
//! the pipeline on a rayon pool of `--threads`, with a progress bar and a summary on
//! stderr.

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use crate::cli::GenerateArgs;
use crate::generate::{Carve, Fill};
use crate::grade::BandTable;
use crate::pipeline::{self, Plan, Summary};
use crate::sink::{BankWriter, SinkConfig};

use super::Outcome;

pub fn run(args: &GenerateArgs) -> anyhow::Result<Outcome> {
    let bands = BandTable::parse(&args.bands).context("--bands")?;
    let selected = bands.select(&args.difficulty).context("--difficulty")?;
    let threads = args
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let plan = Plan {
        count: args.count,
        seed: args.seed,
        variants: args.variants,
        fill: Fill::from(args.fill),
        carve: Carve::from(args.carve),
        bands,
        selected,
        max_attempts: args.max_attempts,
    };
    let params = json!({
        "size": 9,
        "count": plan.count,
        "seed": plan.seed,
        "variants": plan.variants,
        "fill": plan.fill.name(),
        "carve": plan.carve.name(),
        "bands": plan.bands.to_string(),
        "difficulty": plan.selected.iter().map(|&i| plan.bands.bands()[i].name.clone()).collect::<Vec<_>>(),
        "max_attempts": plan.max_attempts,
        "shard_rows": args.shard_rows,
        "zstd_level": args.zstd_level,
        "seed_batch": pipeline::SEED_BATCH,
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;
    let writer = BankWriter::create(
        SinkConfig {
            dir: args.out.clone(),
            shard_rows: args.shard_rows,
            force: args.force,
        },
        params,
    )?;

    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(plan.count), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} rows  {per_sec}  ETA {eta}",
        )
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    let progress = |rows: u64| bar.set_position(rows);
    let (summary, manifest) = pool.install(|| {
        pipeline::run(
            &plan,
            writer,
            pipeline::Output {
                shard_rows: args.shard_rows,
                zstd_level: args.zstd_level,
            },
            &progress,
        )
    })?;
    bar.finish_and_clear();
    if !args.quiet {
        eprint!(
            "{}",
            report(
                &plan,
                &summary,
                manifest.shards.len(),
                &args.out.display().to_string()
            )
        );
    }
    Ok(Outcome::Clean)
}

/// The final summary: rows, time, rate, seeds, and per band rows and attempts.
fn report(plan: &Plan, s: &Summary, shards: usize, out: &str) -> String {
    let secs = s.elapsed.as_secs_f64();
    let mut text = format!(
        "sudoku-factory: wrote {} rows in {} shard(s) to {} in {:.2} s ({:.0} rows/s)\n",
        s.rows,
        shards,
        out,
        secs,
        s.rows as f64 / secs.max(1e-9)
    );
    text += &format!(
        "  seeds: {} made ({} per seed), {} dropped and replaced as duplicates by canonical form\n",
        s.seeds, plan.variants, s.seeds_dropped
    );
    text += &format!(
        "  {:<12} {:>12} {:>10} {:>14} {:>13}\n",
        "band", "rows", "seeds", "attempts/seed", "max attempts"
    );
    for (i, band) in plan.bands.bands().iter().enumerate() {
        if s.band_seeds[i] == 0 {
            continue;
        }
        text += &format!(
            "  {:<12} {:>12} {:>10} {:>14.2} {:>13}\n",
            format!("{} {}-{}", band.name, band.lo, band.hi),
            s.band_rows[i],
            s.band_seeds[i],
            s.band_attempts[i] as f64 / s.band_seeds[i] as f64,
            s.band_max_attempts[i]
        );
    }
    text
}
