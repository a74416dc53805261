//! The calibration of the technique rater against Sudoku Explainer's own ratings,
//! run by `scripts/calibrate-rating` (ignored in the normal suite: it rates ~10,000
//! puzzles). Reads `puzzle rating` lines from the file named by `SE_RATED` (default
//! `../shared/data/se-rated.txt`) and prints the agreement table: exact and ±0.2
//! shares per SE integer tier, ±0.5 on 5.0+, the share in the same default band, and
//! Spearman's rank correlation. `SE_LIMIT` takes the first N lines; `SE_MISMATCHES=1`
//! also lists the puzzles rated differently (`=all`: every puzzle).

use rayon::prelude::*;
use sudoku_factory::engine::bands::BandTable;
use sudoku_factory::engine::grid::parse_line;
use sudoku_factory::engine::rating::Rater;

/// Ranks with ties given their average rank.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = avg;
        }
        i = j + 1;
    }
    r
}

fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for i in 0..a.len() {
        let (x, y) = (ra[i] - ma, rb[i] - mb);
        sab += x * y;
        saa += x * x;
        sbb += y * y;
    }
    sab / (saa * sbb).sqrt()
}

#[test]
#[ignore = "calibration: run by scripts/calibrate-rating"]
fn calibrate_against_se() {
    let path = std::env::var("SE_RATED").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/se-rated.txt").to_string()
    });
    let limit: usize = std::env::var("SE_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let rows: Vec<(String, u8)> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(limit)
        .map(|l| {
            let mut it = l.split_whitespace();
            let p = it.next().expect("puzzle").to_string();
            // A file without ratings (e.g. data/qqwing-10k.txt) rates as 0.0.
            let r: f64 = it
                .next()
                .map_or(0.0, |r| r.parse().expect("rating is a number"));
            (p, (r * 10.0).round() as u8)
        })
        .collect();
    let start = std::time::Instant::now();
    let ours: Vec<(u8, &'static str)> = rows
        .par_iter()
        .enumerate()
        .map_init(Rater::new, |rater, (i, (p, _))| {
            let cells = parse_line(p, i + 1).expect("puzzle parses");
            let r = rater.rate(&cells).expect("puzzle is valid");
            (r.rating, r.technique.name())
        })
        .collect();
    let secs = start.elapsed().as_secs_f64();
    println!("{} puzzles from {path}, rated in {secs:.1} s", rows.len());
    // Soundness, on every step of every puzzle: the rater skips a deduction that
    // contradicts the solution, so only the steps can show a wrong finder.
    let unsound: Vec<String> = rows
        .par_iter()
        .enumerate()
        .map_init(
            || (Rater::new(), Vec::new()),
            |(rater, steps), (i, (p, _))| {
                let cells = parse_line(p, i + 1).expect("puzzle parses");
                steps.clear();
                rater
                    .rate_with_steps(&cells, steps)
                    .expect("puzzle is valid");
                let grid = rater.grid();
                steps
                    .iter()
                    .find(|s| {
                        s.placements.iter().any(|&(c, d)| grid[c as usize] != d)
                            || s.eliminations.iter().any(|&(c, d)| grid[c as usize] == d)
                    })
                    .map(|s| format!("{p} {}", s.technique.name()))
            },
        )
        .flatten()
        .collect();
    for u in &unsound {
        println!("unsound step: {u}");
    }
    assert!(
        unsound.is_empty(),
        "{} puzzles with an unsound step",
        unsound.len()
    );
    println!("tier  count  exact  ±0.2   ±0.5   same-band");
    // The default rating band of a rating in tenths (DESIGN.md: easy 1.0–1.4, medium
    // 1.5–2.4, hard 2.5–4.9, diabolical 5.0–6.9, extreme 7.0+).
    let bands = BandTable::default_rating();
    let band = |r: u8| bands.grade(r);
    let mut totals = [0usize; 5];
    let mut below5 = [0usize; 2];
    let mut above5 = [0usize; 2];
    for tier in 1..=10u8 {
        let mut t = [0usize; 5];
        for (i, (_, se)) in rows.iter().enumerate() {
            if se / 10 != tier {
                continue;
            }
            let d = (ours[i].0 as i32 - *se as i32).abs();
            t[0] += 1;
            t[1] += (d == 0) as usize;
            t[2] += (d <= 2) as usize;
            t[3] += (d <= 5) as usize;
            t[4] += (band(ours[i].0) == band(*se)) as usize;
            if *se < 50 {
                below5[0] += 1;
                below5[1] += (d == 0) as usize;
            } else {
                above5[0] += 1;
                above5[1] += (d <= 5) as usize;
            }
        }
        if t[0] == 0 {
            continue;
        }
        let pct = |k: usize| 100.0 * t[k] as f64 / t[0] as f64;
        println!(
            "{tier}.x  {:5}  {:5.1}% {:5.1}% {:5.1}% {:5.1}%",
            t[0],
            pct(1),
            pct(2),
            pct(3),
            pct(4)
        );
        for k in 0..5 {
            totals[k] += t[k];
        }
    }
    let pct = |k: usize| 100.0 * totals[k] as f64 / totals[0].max(1) as f64;
    println!(
        "all   {:5}  {:5.1}% {:5.1}% {:5.1}% {:5.1}%",
        totals[0],
        pct(1),
        pct(2),
        pct(3),
        pct(4)
    );
    println!(
        "exact below 5.0: {:.1}% of {}; within ±0.5 at 5.0+: {:.1}% of {}",
        100.0 * below5[1] as f64 / below5[0].max(1) as f64,
        below5[0],
        100.0 * above5[1] as f64 / above5[0].max(1) as f64,
        above5[0]
    );
    let a: Vec<f64> = rows.iter().map(|r| r.1 as f64).collect();
    let b: Vec<f64> = ours.iter().map(|r| r.0 as f64).collect();
    println!("Spearman rank correlation: {:.3}", spearman(&a, &b));
    if let Ok(which) = std::env::var("SE_MISMATCHES") {
        for (i, (p, se)) in rows.iter().enumerate() {
            if ours[i].0 != *se || which == "all" {
                println!("{p} se={se} ours={} {}", ours[i].0, ours[i].1);
            }
        }
    }
}

#[test]
#[ignore = "diagnosis: prints the path of the puzzle in SE_PUZZLE"]
fn steps_of_one_puzzle() {
    let Ok(line) = std::env::var("SE_PUZZLE") else {
        return;
    };
    let cells = parse_line(&line, 1).expect("puzzle parses");
    let mut steps = Vec::new();
    let r = Rater::new()
        .rate_with_steps(&cells, &mut steps)
        .expect("valid");
    for s in &steps {
        let at = |c: u8| format!("r{}c{}", c / 9 + 1, c % 9 + 1);
        let cells: Vec<String> = s.cells.iter().map(|&c| at(c)).collect();
        let place: Vec<String> = s
            .placements
            .iter()
            .map(|&(c, d)| format!("{}={d}", at(c)))
            .collect();
        let elims: Vec<String> = s
            .eliminations
            .iter()
            .map(|&(c, d)| format!("{}<>{d}", at(c)))
            .collect();
        println!(
            "{} {} [{}] {} {}",
            s.rating,
            s.technique.name(),
            cells.join(","),
            place.join(" "),
            elims.join(" ")
        );
    }
    println!("rating {r} {}", r.technique.name());
}
