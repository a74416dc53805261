//! `sudoku-factory merge OUT IN...`: check every input before anything is written,
//! choose the defaults from the first input, run [`crate::bank::merge`] on a rayon pool of
//! `--threads`, and print a summary on stderr (inputs, rows read, duplicates removed,
//! rows capped, rows written).

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context};

use crate::bank::format::{MergeInput, MergeParams, Params};
use crate::bank::merge::{self, Input, MergeConfig, MergeError, Order};
use crate::bank::sink::{self, SinkConfig};
use crate::cli::MergeArgs;
use crate::engine::grid::Size;
use crate::say;
use crate::util::text::counted;

use super::Outcome;

pub fn run(args: &MergeArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let inputs = args
        .inputs
        .iter()
        .map(|dir| merge::open_input(dir))
        .collect::<Result<Vec<Input>, MergeError>>()?;
    let size = merge::common_size(&inputs)?;
    let scale = merge::common_scale(&inputs)?;
    refuse_out_as_input(&args.out, &inputs)?;
    sink::refuse_occupied(&args.out, args.force)?;
    sink::SpillDir::sweep_stale(&args.out);

    let first = &inputs[0].manifest.params;
    // Inherited settings must be ones `generate` could have written: a hand-edited
    // `shard_rows: 0` made one-row shards, a `zstd_level` of 99 zstd's slowest level.
    let manifest = inputs[0].dir.join(crate::bank::format::MANIFEST);
    // Workers' parts may have cut smaller shards than their bank's.
    let bank_shard_rows = first.bank_shard_rows.unwrap_or(first.shard_rows);
    if args.shard_rows.is_none() && bank_shard_rows == 0 {
        bail!(
            "{}: params.shard_rows is 0; pass --shard-rows N to choose",
            manifest.display()
        );
    }
    if args.zstd_level.is_none() && !(1..=19).contains(&first.zstd_level) {
        bail!(
            "{}: params.zstd_level is {}, not 1-19; pass --zstd-level N to choose",
            manifest.display(),
            first.zstd_level
        );
    }
    let order = Order::choose(&inputs);
    let config = MergeConfig {
        order,
        max_per_class: args.max_per_class,
        memory: args.memory,
        shard_rows: args.shard_rows.unwrap_or(bank_shard_rows),
        zstd_level: args.zstd_level.unwrap_or(first.zstd_level),
        layout_variants: first.variants,
    };
    let params = params(&inputs, &config, size, scale);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.map_or(0, |t| t as usize))
        .build()
        .context("starting the worker threads")?;
    let out = SinkConfig {
        dir: args.out.clone(),
        shard_rows: config.shard_rows,
        force: args.force,
    };
    let (summary, manifest) = pool.install(
        || crate::with_board!(size, B => merge::merge::<B>(&inputs, &config, out, params)),
    )?;

    if !args.quiet {
        let secs = started.elapsed().as_secs_f64();
        say!(
            "sudoku-factory: merged {} into {} in {secs:.2} s (order: {})",
            counted(inputs.len() as u64, "input"),
            args.out.display(),
            match order {
                Order::Id => "original ids, one run",
                Order::Input => "input by input",
            }
        );
        say!("  rows read           {:>12}", summary.rows_read);
        say!("  duplicates removed  {:>12}", summary.duplicates);
        say!("  rows capped         {:>12}", summary.capped);
        say!(
            "  rows written        {:>12}  in {}",
            summary.rows_written,
            counted(manifest.shards.len() as u64, "shard")
        );
        if summary.partitions > 1 {
            say!(
                "  over --memory: spread over {} partitions on disk",
                summary.partitions
            );
        }
        if let Some(missing) = missing_workers(&inputs, order) {
            say!("sudoku-factory: warning: the run had more workers than were merged; missing worker(s) {missing}: their ids are absent and the rest are renumbered");
        }
    }
    Ok(Outcome::Clean)
}

/// Merging into one of the inputs would delete it before it is read in full.
fn refuse_out_as_input(out: &Path, inputs: &[Input]) -> anyhow::Result<()> {
    let Ok(out) = out.canonicalize() else {
        return Ok(()); // OUT does not exist yet
    };
    for input in inputs {
        if input.dir.canonicalize().ok().as_ref() == Some(&out) {
            return Err(MergeError::OutIsInput(input.dir.clone()).into());
        }
    }
    Ok(())
}

/// The merged bank's params: the options, every input's params (provenance: seeds
/// and generation options), `bands` when all inputs agree on it (so that `verify`
/// checks bands), `rating` when every input is rated, and `count` (set by the merge
/// to the rows written).
fn params(inputs: &[Input], config: &MergeConfig, size: Size, scale: String) -> Params {
    let bands: BTreeSet<Option<&str>> = inputs
        .iter()
        .map(|i| i.manifest.params.bands.as_deref())
        .collect();
    let bands = match bands.into_iter().collect::<Vec<_>>()[..] {
        [Some(b)] => Some(b.to_string()),
        _ => None,
    };
    Params {
        size: size.side() as u64,
        shard_rows: config.shard_rows,
        zstd_level: config.zstd_level,
        bands,
        // `verify` reads the bands on the inputs' scale (`clues` is the default).
        grade: (scale != "clues").then_some(scale),
        merge: Some(MergeParams {
            order: config.order.name().to_string(),
            max_per_class: config.max_per_class,
            layout_variants: config.layout_variants,
            inputs: inputs
                .iter()
                .map(|i| MergeInput {
                    dir: i.dir.display().to_string(),
                    rows: i.manifest.rows,
                    params: i.manifest.params.clone(),
                    rated_by: Some(i.manifest.rated_by().to_string()),
                })
                .collect(),
        }),
        // Rated only when every input is: `verify` then checks the columns.
        rating: inputs
            .iter()
            .all(|i| i.manifest.params.rating && i.manifest.rated_by() != "0.1.0"),
        ..Params::default()
    }
}

/// For a merge of one run's workers: the worker indices not given, if any.
fn missing_workers(inputs: &[Input], order: Order) -> Option<String> {
    if order != Order::Id {
        return None;
    }
    let workers = inputs[0].manifest.params.workers;
    let given: BTreeSet<u64> = inputs
        .iter()
        .filter(|i| i.manifest.params.workers == workers)
        .map(|i| i.manifest.params.worker)
        .collect();
    // A single-process bank of the same run covers every worker's shards.
    if inputs.iter().any(|i| i.manifest.params.workers == 1) {
        return None;
    }
    let missing: Vec<String> = (0..workers)
        .filter(|k| !given.contains(k))
        .map(|k| k.to_string())
        .collect();
    (!missing.is_empty()).then(|| missing.join(", "))
}
