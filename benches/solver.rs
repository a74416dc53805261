//! Solver, fill and carve benches, each side by side with the `sudoku` crate 0.8
//! doing the same job on the same inputs, so that ratios come from one run.
//!
//! * `solve_count2/*`: count solutions up to 2 for the first 1,000 puzzles of
//!   `data/qqwing-10k.txt` (minimal puzzles made by Debian's qqwing).
//! * `fill/*`: one complete random grid.
//! * `carve_minimal/*`: carve a fixed set of 64 complete grids to minimal puzzles —
//!   shuffle the cells, empty each, keep the removal while the puzzle stays unique.
//!   The `sudoku` crate's `generate_with_symmetry_and_rng_from(.., Symmetry::None, ..)`
//!   is exactly that loop with its own solver.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use sudoku::Sudoku;
use sudoku_factory::engine::board::{Board, Nine};
use sudoku_factory::engine::generate::{Carve, Fill, Symmetry};
use sudoku_factory::engine::grid::{parse_line, Cells};
use sudoku_factory::engine::nxn::solve::nine::count_solutions;

fn qqwing(n: usize) -> Vec<Cells> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/qqwing-10k.txt"))
        .expect("data/qqwing-10k.txt ships with the repository");
    text.lines()
        .take(n)
        .enumerate()
        .map(|(i, l)| parse_line(l, i + 1).expect("fixture is well formed"))
        .collect()
}

fn solver(c: &mut Criterion) {
    let ours = qqwing(1000);
    let peers: Vec<Sudoku> = ours
        .iter()
        .map(|p| Sudoku::from_bytes(*p).unwrap())
        .collect();
    let mut g = c.benchmark_group("solve_count2");
    g.throughput(Throughput::Elements(ours.len() as u64));
    g.bench_function("sudoku-factory", |b| {
        b.iter(|| ours.iter().map(|p| count_solutions(p, 2)).sum::<u32>())
    });
    g.bench_function("sudoku-crate", |b| {
        b.iter(|| {
            peers
                .iter()
                .map(|p| p.solutions_count_up_to(2))
                .sum::<usize>()
        })
    });
    g.finish();
}

fn fills(c: &mut Criterion) {
    let mut g = c.benchmark_group("fill");
    g.throughput(Throughput::Elements(1));
    let mut rng = Pcg64::seed_from_u64(1);
    g.bench_function("sudoku-factory/backtrack", |b| {
        b.iter(|| Nine::fill(Fill::Backtrack, &mut rng))
    });
    let mut rng = rand_pcg03::Pcg64::new(1, 1);
    g.bench_function("sudoku-crate", |b| {
        b.iter(|| Sudoku::generate_solved_with_rng(&mut rng))
    });
    g.finish();
}

fn carves(c: &mut Criterion) {
    let mut rng = Pcg64::seed_from_u64(2);
    let grids: Vec<Cells> = (0..64)
        .map(|_| Nine::fill(Fill::Backtrack, &mut rng))
        .collect();
    let mut g = c.benchmark_group("carve_minimal");
    g.throughput(Throughput::Elements(grids.len() as u64));
    g.sample_size(20);
    g.bench_function("sudoku-factory", |b| {
        let mut rng = Pcg64::seed_from_u64(3);
        b.iter(|| {
            grids
                .iter()
                .map(|s| Nine::carve(Carve::Minimal, 0, Symmetry::None, s, &mut rng).n_clues as u32)
                .sum::<u32>()
        })
    });
    let peers: Vec<Sudoku> = grids
        .iter()
        .map(|s| Sudoku::from_bytes(*s).unwrap())
        .collect();
    g.bench_function("sudoku-crate", |b| {
        let mut rng = rand_pcg03::Pcg64::new(3, 3);
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

criterion_group!(benches, solver, fills, carves);
criterion_main!(benches);
