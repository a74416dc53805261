//! Every fill and carve strategy on its own, beside the `sudoku` crate 0.8 doing the
//! same job, so that `sudoku-factory bench`'s combined figures can be taken apart.
//!
//! * `strategy_fill/*`: one complete random grid per iteration. `digits` gets a small
//!   sample, since it is slow by design.
//! * `strategy_carve/*`: carve a fixed set of 32 complete grids to the end
//!   (`stop_at = 0`); the `sudoku` crate's
//!   `generate_with_symmetry_and_rng_from(.., Symmetry::None, ..)` is the peer of
//!   `minimal` (shuffle the cells, keep each removal while the puzzle stays unique).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use sudoku::Sudoku;
use sudoku_factory::engine::board::{Board, Nine};
use sudoku_factory::engine::generate::{Carve, Fill, Symmetry};
use sudoku_factory::engine::grid::Cells;

fn fills(c: &mut Criterion) {
    let mut g = c.benchmark_group("strategy_fill");
    g.throughput(Throughput::Elements(1));
    for f in Fill::ALL {
        if f == Fill::Digits {
            g.sample_size(10);
        }
        let mut rng = Pcg64::seed_from_u64(1);
        g.bench_function(f.name(), |b| b.iter(|| Nine::fill(f, &mut rng)));
        g.sample_size(100);
    }
    let mut rng = rand_pcg03::Pcg64::new(1, 1);
    g.bench_function("sudoku-crate", |b| {
        b.iter(|| Sudoku::generate_solved_with_rng(&mut rng))
    });
    g.finish();
}

fn carves(c: &mut Criterion) {
    let mut rng = Pcg64::seed_from_u64(2);
    let grids: Vec<Cells> = (0..32)
        .map(|_| Nine::fill(Fill::Backtrack, &mut rng))
        .collect();
    let mut g = c.benchmark_group("strategy_carve");
    g.throughput(Throughput::Elements(grids.len() as u64));
    g.sample_size(20);
    for s in Carve::ALL {
        let mut rng = Pcg64::seed_from_u64(3);
        g.bench_function(s.name(), |b| {
            b.iter(|| {
                grids
                    .iter()
                    .map(|g| Nine::carve(s, 0, Symmetry::None, g, &mut rng).n_clues as u32)
                    .sum::<u32>()
            })
        });
    }
    let peers: Vec<Sudoku> = grids
        .iter()
        .map(|s| Sudoku::from_bytes(*s).expect("a complete valid grid"))
        .collect();
    let mut rng = rand_pcg03::Pcg64::new(3, 3);
    g.bench_function("sudoku-crate", |b| {
        b.iter_batched(
            || peers.clone(),
            |peers| {
                peers
                    .into_iter()
                    .map(|s| {
                        Sudoku::generate_with_symmetry_and_rng_from(
                            s,
                            sudoku::Symmetry::None,
                            &mut rng,
                        )
                        .n_clues() as u32
                    })
                    .sum::<u32>()
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, fills, carves);
criterion_main!(benches);
