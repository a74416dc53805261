//! Technique rating speed (`rating::Rater`, one thread), on three inputs:
//!
//! * `grade/easy-36-40`: 1,000 puzzles of 36–40 clues, carved with the crate's own
//!   `target` strategy from `backtrack` grids (the bank's easy band);
//! * `grade/minimal`: the first 1,000 minimal puzzles of `data/qqwing-10k.txt`;
//! * `grade/se-5.0+`: every 8th puzzle rated 5.0 or more in
//!   `../shared/data/se-rated.txt` (skipped when that file is absent);
//! * `grade/se-2.x` to `grade/se-9.x`: every 4th puzzle of that file's lines rated
//!   2.0–2.9, 3.0–3.9 and so on (every line for 9.x, the smallest tier: 371), the
//!   rater's speed per SE tier. The hard tiers cost what their chains cost, so a
//!   change that helps one tier and slows another shows here, not in the mix.
//!
//! Throughput is in puzzles, so criterion prints ratings/s. Beside each, the
//! `sudoku` crate 0.8's `StrategySolver` with its singles-to-quads strategies on the
//! same inputs (`*/sudoku-crate`); it stops where those strategies stop, so on the
//! 5.0+ set it is not comparable and left out.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use sudoku::strategy::{Strategy, StrategySolver};
use sudoku::Sudoku;
use sudoku_factory::engine::board::{Board, Nine};
use sudoku_factory::engine::generate::{Carve, Fill, Symmetry};
use sudoku_factory::engine::grid::{parse_line, Cells};
use sudoku_factory::engine::rating::Rater;

fn easy(n: usize) -> Vec<Cells> {
    let mut rng = Pcg64::seed_from_u64(7);
    (0..n)
        .map(|_| {
            let grid = Nine::fill(Fill::Backtrack, &mut rng);
            let stop: u16 = rng.random_range(36..=40);
            Nine::carve(Carve::Target, stop, Symmetry::None, &grid, &mut rng).puzzle
        })
        .collect()
}

fn lines(path: &str, keep: impl Fn(usize, &str) -> bool) -> Option<Vec<Cells>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .enumerate()
            .filter(|(i, l)| keep(*i, l))
            .map(|(i, l)| {
                let p = l.split_whitespace().next().expect("a puzzle per line");
                parse_line(p, i + 1).expect("fixture is well formed")
            })
            .collect(),
    )
}

/// The `sudoku` crate's strategies, in SE's order.
const PEER: &[Strategy] = &[
    Strategy::HiddenSingles,
    Strategy::NakedSingles,
    Strategy::LockedCandidates,
    Strategy::NakedPairs,
    Strategy::XWing,
    Strategy::HiddenPairs,
    Strategy::NakedTriples,
    Strategy::Swordfish,
    Strategy::HiddenTriples,
    Strategy::XyWing,
    Strategy::XyzWing,
    Strategy::NakedQuads,
    Strategy::Jellyfish,
    Strategy::HiddenQuads,
];

fn bench_set(c: &mut Criterion, name: &str, puzzles: &[Cells], peer: bool, samples: usize) {
    let mut g = c.benchmark_group(format!("grade/{name}"));
    g.throughput(Throughput::Elements(puzzles.len() as u64));
    g.sample_size(samples);
    let mut rater = Rater::new();
    g.bench_function("rater", |b| {
        b.iter(|| {
            puzzles
                .iter()
                .map(|p| rater.rate(p).expect("valid puzzle").rating as u32)
                .sum::<u32>()
        })
    });
    if peer {
        let sudokus: Vec<Sudoku> = puzzles
            .iter()
            .map(|p| Sudoku::from_bytes(*p).expect("a valid puzzle"))
            .collect();
        g.bench_function("sudoku-crate", |b| {
            b.iter(|| {
                sudokus
                    .iter()
                    .filter(|s| StrategySolver::from_sudoku(**s).solve(PEER).is_ok())
                    .count()
            })
        });
    }
    g.finish();
}

fn grade(c: &mut Criterion) {
    bench_set(c, "easy-36-40", &easy(1000), true, 20);
    let qq = concat!(env!("CARGO_MANIFEST_DIR"), "/data/qqwing-10k.txt");
    let minimal =
        lines(qq, |i, _| i < 1000).expect("data/qqwing-10k.txt ships with the repository");
    bench_set(c, "minimal", &minimal, true, 10);
    let se = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/se-rated.txt");
    let hard = lines(se, |i, l| {
        i % 8 == 0
            && l.split_whitespace()
                .nth(1)
                .and_then(|r| r.parse::<f64>().ok())
                .is_some_and(|r| r >= 5.0)
    });
    if let Some(hard) = hard {
        bench_set(c, "se-5.0+", &hard, false, 10);
    }
    for tier in 2..=9u32 {
        let every = if tier == 9 { 1 } else { 4 };
        let in_tier = |l: &str| {
            l.split_whitespace()
                .nth(1)
                .and_then(|r| r.parse::<f64>().ok())
                // Tenths, as the file writes them: 2.0 to 2.9 is tier 2.
                .is_some_and(|r| (r * 10.0).round() as u32 / 10 == tier)
        };
        let Some(all) = lines(se, |_, l| in_tier(l)) else {
            break;
        };
        let set: Vec<Cells> = all.into_iter().step_by(every).collect();
        bench_set(c, &format!("se-{tier}.x"), &set, false, 10);
    }
}

criterion_group!(benches, grade);
criterion_main!(benches);
