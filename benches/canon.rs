//! Canonical form speed, next to the peer crate `sudoku` 0.8 on the same inputs.
//!
//! Note that the peer answers a different question on puzzles: its
//! `Sudoku::canonicalized()` solves the puzzle, minlexes the *solution grid*
//! and applies that map to the puzzle (it returns `None` without a unique
//! solution), so its puzzle time includes a solve and its form is not
//! pattern-first. On full grids both compute the plain minlex.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use sudoku_factory::canon::Canonicalizer;
use sudoku_factory::grid::parse_line;

const GRID: &str =
    "123456789456789123789123456214365897365897214897214365531642978642978531978531642";

fn parse(s: &str) -> [u8; 81] {
    parse_line(s, 1).expect("benchmark inputs are well formed")
}

/// The first 1000 puzzles of `data/qqwing-10k.txt`.
fn puzzles() -> Vec<[u8; 81]> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/qqwing-10k.txt");
    let text =
        std::fs::read_to_string(path).expect("data/qqwing-10k.txt ships with the repository");
    text.lines().take(1000).map(parse).collect()
}

fn bench(c: &mut Criterion) {
    let puzzles = puzzles();
    // A full grid that is not already minimal: the solution of the first puzzle.
    let grid = sudoku::Sudoku::from_bytes(puzzles[0])
        .expect("valid puzzle")
        .solution()
        .expect("uniquely solvable")
        .to_bytes();
    let smallest = parse(GRID);

    let mut group = c.benchmark_group("full_grid");
    let mut canon = Canonicalizer::new();
    group.bench_function("ours", |b| {
        b.iter(|| canon.canonical_form(black_box(&grid)))
    });
    let peer_grid = sudoku::Sudoku::from_bytes(grid).expect("valid grid");
    group.bench_function("sudoku-0.8", |b| {
        b.iter(|| black_box(&peer_grid).canonicalized())
    });
    // The smallest grid has 648 automorphisms: the worst case for ties.
    group.bench_function("ours_smallest", |b| {
        b.iter(|| canon.canonical_form(black_box(&smallest)))
    });
    let peer_smallest = sudoku::Sudoku::from_bytes(smallest).expect("valid grid");
    group.bench_function("sudoku-0.8_smallest", |b| {
        b.iter(|| black_box(&peer_smallest).canonicalized())
    });
    group.finish();

    // One iteration = all 1000 puzzles; divide by 1000 for per-puzzle time.
    let mut group = c.benchmark_group("minimal_puzzles_x1000");
    group.sample_size(20);
    group.bench_function("ours", |b| {
        b.iter(|| {
            for p in &puzzles {
                black_box(canon.canonical_form(black_box(p)));
            }
        })
    });
    let peers: Vec<_> = puzzles
        .iter()
        .map(|p| sudoku::Sudoku::from_bytes(*p).expect("valid puzzle"))
        .collect();
    group.bench_function("sudoku-0.8", |b| {
        b.iter(|| {
            for p in &peers {
                black_box(black_box(p).canonicalized());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
