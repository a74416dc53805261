//! Whole-pipeline benches: `generate` as the binary runs it, into a temporary directory.
//!
//! * `seeds/*`: 2,000 seed puzzles (`--variants 1`), on 1 and 2 threads — the
//!   expensive phase and its scaling.
//! * `expand/*`: 200,000 rows from 200 seeds (`--variants 1000`) on 2 threads — the
//!   expansion throughput in rows/s, written and compressed to disk.
//! * each with and without stage histograms, to show what recording them costs.
//!
//! `scripts/bench-expansion.sh` puts the expansion rate next to `zstd -T2` compressing
//! the same CSV bytes, and measures memory at 10 million rows.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sudoku_factory::bank::format::{Params, DEFAULT_ZSTD_LEVEL};
use sudoku_factory::bank::sink::{BankWriter, SinkConfig};
use sudoku_factory::engine::bands::BandTable;
use sudoku_factory::engine::board::Nine;
use sudoku_factory::engine::generate::{Carve, Fill, Symmetry};
use sudoku_factory::engine::grid::Size;
use sudoku_factory::run::pipeline::{run, Output, Plan, Start};

fn plan(count: u64, variants: u32) -> Plan {
    let bands = BandTable::default_9x9();
    let selected = bands.select("any").expect("any is always valid");
    Plan {
        size: Size::Nine,
        count,
        seed: 1,
        variants,
        fill: Fill::Backtrack,
        carve: Carve::Target,
        symmetry: Symmetry::None,
        bands,
        selected,
        max_attempts: 10_000,
        rate: true,
        starts: std::sync::Arc::from([]),
    }
}

fn generate(plan: &Plan, threads: usize, histograms: bool) -> u64 {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let output = Output {
        shard_rows: 1_000_000,
        bank_shard_rows: 1_000_000,
        zstd_level: DEFAULT_ZSTD_LEVEL,
        workers: 1,
        worker: 0,
    };
    let config = SinkConfig {
        dir: dir.path().to_path_buf(),
        shard_rows: output.shard_rows,
        force: false,
    };
    let writer = BankWriter::create(config, Params::default()).expect("an empty directory");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("threads");
    let (summary, _, _) = pool
        .install(|| {
            run::<Nine>(
                plan,
                writer,
                output,
                Start::default(),
                None,
                histograms,
                &|_| {},
            )
        })
        .expect("the run succeeds");
    summary.rows
}

fn seeds(c: &mut Criterion) {
    let p = plan(2000, 1);
    let mut g = c.benchmark_group("seeds");
    g.sample_size(10);
    g.throughput(Throughput::Elements(p.count));
    for threads in [1, 2] {
        g.bench_function(format!("threads-{threads}"), |b| {
            b.iter(|| generate(&p, threads, true))
        });
    }
    g.bench_function("threads-2-no-histograms", |b| {
        b.iter(|| generate(&p, 2, false))
    });
    g.finish();
}

fn expand(c: &mut Criterion) {
    let p = plan(200_000, 1000);
    let mut g = c.benchmark_group("expand");
    g.sample_size(10);
    g.throughput(Throughput::Elements(p.count));
    g.bench_function("threads-2", |b| b.iter(|| generate(&p, 2, true)));
    g.bench_function("threads-2-no-histograms", |b| {
        b.iter(|| generate(&p, 2, false))
    });
    g.finish();
}

criterion_group!(benches, seeds, expand);
criterion_main!(benches);
