//! Canonical form speed, next to the peer crate `sudoku` 0.8 on the same inputs.
//!
//! Note that the peer answers a different question on puzzles: its
//! `Sudoku::canonicalized()` solves the puzzle, minlexes the *solution grid*
//! and applies that map to the puzzle (it returns `None` without a unique
//! solution), so its puzzle time includes a solve and its form is not
//! pattern-first. On full grids both compute the plain minlex.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use sudoku_factory::engine::grid::{parse_line, parse_sized};
use sudoku_factory::engine::nxn::canon::nine::Canonicalizer;
use sudoku_factory::engine::nxn::canon::Canonicalizer as NxnCanonicalizer;
use sudoku_factory::engine::nxn::transform::Transform;
use sudoku_factory::engine::nxn::{Box2, Box4, Box5, Shape};

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

/// A random valid 16×16 grid (randomised backtracking, seed 2025).
const GRID_16: &str = "6B2FC5397D41EAG8GA91F2BD58EC64373D74EA186GF92C5BCE85G4673AB2F91D9C365D82BE1F7GA448B217EAG56D9FC3AFGE69CB237481D5571D3FG4AC98BE2626D79CA51B3G48EFB4AG2EDFC985376113E9864GDF27A5BC85FCB173E4A6D29GD94BAGF681CE5372E168D32C475AGBF9F2C3785E96GB1D4A7G5A4B91F2D3C68E";
/// A random valid 25×25 grid (same generator).
const GRID_25: &str = "2OJE4K758NPIM6BL193AFGHCDPD1H92EBCGOFK786M54I3JNAL5K8A3FOPML9EHD12GNCJ6B74ILGINBH6D19C34JA8FK7P25MEOF6C7M43IJA5GN2LBEDOHK9P81JEPDC5479216OGN38MIFALBKHKA3OFLP6BDH4589G7CN1JEIM2H27G5NA8KMBPIFJEDL641C3O9IL986OJC31D7AMEPBHK2GF4N514MBNIFGHEKCL32J9OA57P8D6872JEGD3LBIAFK51O6MN94CHP3IKPAJNE26L9GCHD475BM8O1F4BFM175OAI628N3HCJP9EDKLGCHO6L8M94KJDP17I3GFE52ABNN9D5G1CFPHMOEB4AK28LI3J6763NI7CBHF5219LKOPAJ8DMEG4ACLKO31NIP85J4GF6EDMH792BBM52P98KD4FH7EINL1GCOA6J3DJE9HALMGO3N6PC4IB27815FKG14F8E2J67ABDOM953HKNILPCEPACIDKLN3G8B965JF1O4H27M7FB3JPI15CNM2HOKA4EDL6G98M5HLD694OJEKCIF728BGPN13AON642MGAE87L15DCHP93BKFIJ98G1KBH27F4J3APMNIL6COD5E";

fn parse_grid<S: Shape>(text: &str) -> S::Cells {
    let mut cells = S::empty();
    parse_sized(text, 1, S::SIZE, cells.as_mut()).expect("benchmark grids are well formed");
    cells
}

/// The pattern grid ((r mod b)·b + r div b + c) mod N + 1: the most symmetric grid,
/// the worst case of the full-grid search.
fn pattern_grid<S: Shape>() -> S::Cells {
    let mut g = S::empty();
    for (i, cell) in g.as_mut().iter_mut().enumerate() {
        let (r, c) = (i / S::N, i % S::N);
        *cell = (((r % S::B) * S::B + r / S::B + c) % S::N + 1) as u8;
    }
    g
}

/// `n` puzzles: random transforms of `grid` with each cell kept with probability
/// `keep_percent` % (the density of carved puzzles; uniqueness does not matter
/// for the canonical form's cost).
fn carved<S: Shape>(grid: &S::Cells, keep_percent: u32, n: usize) -> Vec<S::Cells> {
    let mut rng = Pcg64::seed_from_u64(u64::from(keep_percent));
    (0..n)
        .map(|_| {
            let mut p = Transform::<S>::random(&mut rng).apply(grid);
            for cell in p.as_mut() {
                if rng.random_range(0..100) >= keep_percent {
                    *cell = 0;
                }
            }
            p
        })
        .collect()
}

/// The generic engine's canonical form at every size. Puzzle groups run 100
/// puzzles per iteration: divide by 100 for the per-puzzle time.
fn bench_nxn(c: &mut Criterion) {
    let mut canon = NxnCanonicalizer::new();
    let mut group = c.benchmark_group("nxn_puzzles_x100");
    group.sample_size(20);
    let four = carved::<Box2>(&pattern_grid::<Box2>(), 50, 100);
    group.bench_function("4x4_keep50", |b| {
        b.iter(|| {
            for p in &four {
                black_box(canon.canonical_form::<Box2>(black_box(p)));
            }
        })
    });
    let grid16 = parse_grid::<Box4>(GRID_16);
    for keep in [45, 55, 60] {
        let puzzles = carved::<Box4>(&grid16, keep, 100);
        group.bench_function(format!("16x16_keep{keep}"), |b| {
            b.iter(|| {
                for p in &puzzles {
                    black_box(canon.canonical_form::<Box4>(black_box(p)));
                }
            })
        });
    }
    let grid25 = parse_grid::<Box5>(GRID_25);
    for keep in [45, 55, 60] {
        let puzzles = carved::<Box5>(&grid25, keep, 100);
        group.bench_function(format!("25x25_keep{keep}"), |b| {
            b.iter(|| {
                for p in &puzzles {
                    black_box(canon.canonical_form::<Box5>(black_box(p)));
                }
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("nxn_full_grids");
    group.sample_size(10);
    group.bench_function("16x16_random", |b| {
        b.iter(|| canon.canonical_form::<Box4>(black_box(&grid16)))
    });
    group.bench_function("25x25_random", |b| {
        b.iter(|| canon.canonical_form::<Box5>(black_box(&grid25)))
    });
    let (p16, p25) = (pattern_grid::<Box4>(), pattern_grid::<Box5>());
    group.bench_function("16x16_pattern_grid", |b| {
        b.iter(|| canon.canonical_form::<Box4>(black_box(&p16)))
    });
    group.bench_function("25x25_pattern_grid", |b| {
        b.iter(|| canon.canonical_form::<Box5>(black_box(&p25)))
    });
    group.finish();
}

criterion_group!(benches, bench, bench_nxn);
criterion_main!(benches);
