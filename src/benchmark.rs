//! Comparing strategies side by side: every fill × carve combination on the same
//! budget, the same thread count and the same random streams, measured for speed
//! (puzzles/s, per-puzzle latency of fill + carve in an HdrHistogram), for what the
//! puzzles look like (clue counts, default bands, minimality) and for diversity
//! (distinct canonical forms of the solution grids and of the puzzles).
//!
//! Puzzle `i` of every combination draws from [`item_rng`]`(seed, Seed, i, 0)`, so two
//! combinations differ only by their strategies. Every carve runs to the end
//! (`stop_at = 0`): the figures describe the strategy, not a band request.
//!
//! Architecture invariant: no I/O here. [`run`] measures inside whatever rayon pool it
//! is called in; the renderers return strings that `cmd::bench` writes.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use rayon::prelude::*;
use serde::Serialize;

use crate::canon::canonical_form;
use crate::generate::{carve, fill, Carve, Fill};
use crate::grade::BandTable;
use crate::grid::{n_clues, Cells, N_CELLS};
use crate::rng::{item_rng, Purpose};
use crate::solve::count_solutions;

/// Puzzles of each combination checked for minimality (every clue removed in turn).
pub const MINIMAL_SAMPLE: usize = 20;

/// How much work each combination gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// Exactly this many puzzles.
    Count(u64),
    /// As many puzzles as fit in this wall time (at least one batch).
    Time(Duration),
}

/// What to compare and how.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub fills: Vec<Fill>,
    pub carves: Vec<Carve>,
    pub budget: Budget,
    pub seed: u64,
    /// Reported only (the caller builds the pool); recorded so rows say how they ran.
    pub threads: usize,
}

/// The fills compared when none is named: all but `digits`, which is slow by design.
pub fn default_fills() -> Vec<Fill> {
    Fill::ALL
        .into_iter()
        .filter(|f| *f != Fill::Digits)
        .collect()
}

/// One combination's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    pub fill: &'static str,
    pub carve: &'static str,
    pub threads: usize,
    pub puzzles: u64,
    pub wall_seconds: f64,
    pub puzzles_per_second: f64,
    /// Latency of fill + carve of one puzzle, in microseconds.
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
    pub clues_mean: f64,
    pub clues_min: u8,
    pub clues_max: u8,
    /// Share of the puzzles in each band of the default table, in table order.
    pub band_shares: Vec<(String, f64)>,
    /// Puzzles of the sample that are minimal, out of `minimal_checked`.
    pub minimal: u64,
    pub minimal_checked: u64,
    pub distinct_grids: u64,
    pub distinct_puzzles: u64,
}

/// One measured puzzle.
struct Sample {
    nanos: u64,
    solution: Cells,
    puzzle: Cells,
    n_clues: u8,
}

fn make(fill_with: Fill, carve_with: Carve, seed: u64, i: u64) -> Sample {
    let mut rng = item_rng(seed, Purpose::Seed, i, 0);
    let start = Instant::now();
    // `black_box` on the way in and out: fill and carve are pure, so without it the
    // optimiser would be free to move them across the clock reads.
    let rng = black_box(&mut rng);
    let solution = black_box(fill(fill_with, rng));
    let outcome = black_box(carve(carve_with, &solution, 0, rng));
    let nanos = start.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64;
    Sample {
        nanos,
        solution,
        puzzle: outcome.puzzle,
        n_clues: outcome.n_clues,
    }
}

/// True when no single clue of `puzzle` can be removed without a second solution.
pub fn is_minimal(puzzle: &Cells) -> bool {
    let mut p = *puzzle;
    (0..N_CELLS).filter(|&c| puzzle[c] != 0).all(|c| {
        p[c] = 0;
        let ambiguous = count_solutions(&p, 2) == 2;
        p[c] = puzzle[c];
        ambiguous
    })
}

/// Measures one combination in the current rayon pool.
pub fn measure(fill_with: Fill, carve_with: Carve, config: &BenchConfig) -> BenchRow {
    let start = Instant::now();
    let samples: Vec<Sample> = match config.budget {
        Budget::Count(n) => (0..n)
            .into_par_iter()
            .map(|i| make(fill_with, carve_with, config.seed, i))
            .collect(),
        Budget::Time(limit) => {
            // Batches of a few items per thread keep the overshoot small.
            let batch = (rayon::current_num_threads() * 4) as u64;
            let mut all = Vec::new();
            let mut next = 0u64;
            while all.is_empty() || start.elapsed() < limit {
                all.par_extend(
                    (next..next + batch)
                        .into_par_iter()
                        .map(|i| make(fill_with, carve_with, config.seed, i)),
                );
                next += batch;
            }
            all
        }
    };
    let wall = start.elapsed().as_secs_f64();
    summarise(fill_with, carve_with, config.threads, wall, &samples)
}

fn summarise(
    fill_with: Fill,
    carve_with: Carve,
    threads: usize,
    wall: f64,
    samples: &[Sample],
) -> BenchRow {
    let n = samples.len() as u64;
    // Explicit bounds (1 ns to 1 hour): `saturating_record` clamps to the range the
    // histogram has, and an auto-resizing one starts with almost none.
    let mut hist = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3)
        .expect("valid bounds and significant figures");
    for s in samples {
        hist.saturating_record(s.nanos.max(1));
    }
    let table = BandTable::default_9x9();
    let mut per_band = vec![0u64; table.bands().len()];
    for s in samples {
        if let Some(b) = table.grade(s.n_clues) {
            per_band[b] += 1;
        }
    }
    let share = |k: u64| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    let checked = &samples[..samples.len().min(MINIMAL_SAMPLE)];
    let minimal = checked.par_iter().filter(|s| is_minimal(&s.puzzle)).count() as u64;
    let (grids, puzzles): (Vec<Cells>, Vec<Cells>) = samples
        .par_iter()
        .map(|s| (canonical_form(&s.solution), canonical_form(&s.puzzle)))
        .unzip();
    let distinct = |v: Vec<Cells>| v.into_iter().collect::<HashSet<_>>().len() as u64;
    let us = |ns: u64| ns as f64 / 1000.0;
    debug_assert!(samples.iter().all(|s| s.n_clues == n_clues(&s.puzzle)));
    BenchRow {
        fill: fill_with.name(),
        carve: carve_with.name(),
        threads,
        puzzles: n,
        wall_seconds: wall,
        puzzles_per_second: if wall > 0.0 { n as f64 / wall } else { 0.0 },
        p50_us: us(hist.value_at_quantile(0.5)),
        p99_us: us(hist.value_at_quantile(0.99)),
        max_us: us(hist.max()),
        clues_mean: share(samples.iter().map(|s| u64::from(s.n_clues)).sum()),
        clues_min: samples.iter().map(|s| s.n_clues).min().unwrap_or(0),
        clues_max: samples.iter().map(|s| s.n_clues).max().unwrap_or(0),
        band_shares: table
            .bands()
            .iter()
            .zip(&per_band)
            .map(|(b, &k)| (b.name.clone(), share(k)))
            .collect(),
        minimal,
        minimal_checked: checked.len() as u64,
        distinct_grids: distinct(grids),
        distinct_puzzles: distinct(puzzles),
    }
}

/// Measures every combination, fills outer, calling `on_row` after each (progress).
pub fn run(config: &BenchConfig, mut on_row: impl FnMut(&BenchRow)) -> Vec<BenchRow> {
    let mut rows = Vec::new();
    for &f in &config.fills {
        for &c in &config.carves {
            let row = measure(f, c, config);
            on_row(&row);
            rows.push(row);
        }
    }
    rows
}

/// Column headers of the text table and the CSV, in order.
fn header(rows: &[BenchRow]) -> Vec<String> {
    let mut h: Vec<String> = [
        "fill",
        "carve",
        "threads",
        "puzzles",
        "puzzles/s",
        "p50_us",
        "p99_us",
        "max_us",
        "clues_mean",
        "clues_min",
        "clues_max",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let bands = rows.first().map_or_else(
        || {
            BandTable::default_9x9()
                .bands()
                .iter()
                .map(|b| b.name.clone())
                .collect()
        },
        |r| {
            r.band_shares
                .iter()
                .map(|(b, _)| b.clone())
                .collect::<Vec<_>>()
        },
    );
    h.extend(bands.into_iter().map(|b| format!("{b}_%")));
    h.extend(
        ["minimal", "distinct_grids", "distinct_puzzles"]
            .iter()
            .map(|s| s.to_string()),
    );
    h
}

fn cells(r: &BenchRow) -> Vec<String> {
    let mut v = vec![
        r.fill.to_string(),
        r.carve.to_string(),
        r.threads.to_string(),
        r.puzzles.to_string(),
        format!("{:.1}", r.puzzles_per_second),
        format!("{:.1}", r.p50_us),
        format!("{:.1}", r.p99_us),
        format!("{:.1}", r.max_us),
        format!("{:.2}", r.clues_mean),
        r.clues_min.to_string(),
        r.clues_max.to_string(),
    ];
    v.extend(
        r.band_shares
            .iter()
            .map(|(_, s)| format!("{:.1}", s * 100.0)),
    );
    v.push(format!("{}/{}", r.minimal, r.minimal_checked));
    v.push(r.distinct_grids.to_string());
    v.push(r.distinct_puzzles.to_string());
    v
}

/// The rows as CSV records, header first (the caller feeds a `csv::Writer`).
pub fn csv_records(rows: &[BenchRow]) -> Vec<Vec<String>> {
    std::iter::once(header(rows))
        .chain(rows.iter().map(cells))
        .collect()
}

/// The rows as an aligned text table: names left-aligned, numbers right-aligned.
pub fn render_table(rows: &[BenchRow]) -> String {
    let records = csv_records(rows);
    let n_cols = records[0].len();
    let widths: Vec<usize> = (0..n_cols)
        .map(|c| records.iter().map(|r| r[c].len()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &records {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c < 2 {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    out
}

/// Reads one figure of a row, for a chart panel.
type Metric = fn(&BenchRow) -> f64;

/// A two-panel bar chart (puzzles/s above, mean clues below), one bar per combination.
pub fn render_svg(rows: &[BenchRow]) -> String {
    const BAR: f64 = 28.0;
    const GAP: f64 = 10.0;
    const LEFT: f64 = 60.0;
    const PANEL: f64 = 180.0;
    const LABELS: f64 = 110.0;
    let width = LEFT + rows.len().max(1) as f64 * (BAR + GAP) + 20.0;
    let height = 40.0 + 2.0 * (PANEL + 40.0) + LABELS;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let panels: [(&str, &str, Metric); 2] = [
        ("puzzles/s", "#4878cf", |r| r.puzzles_per_second),
        ("mean clues", "#d65f5f", |r| r.clues_mean),
    ];
    for (k, (title, colour, value)) in panels.iter().enumerate() {
        let top = 40.0 + k as f64 * (PANEL + 40.0);
        let base = top + PANEL;
        let max = rows.iter().map(value).fold(0.0, f64::max);
        let _ = writeln!(
            s,
            r#"<text x="10" y="{:.0}" font-size="13" font-weight="bold">{title} (max {max:.1})</text>"#,
            top - 10.0
        );
        let _ = writeln!(
            s,
            r#"<line x1="{LEFT}" y1="{base}" x2="{:.0}" y2="{base}" stroke="black"/>"#,
            width - 10.0
        );
        for (i, r) in rows.iter().enumerate() {
            let v = value(r);
            let h = if max > 0.0 { v / max * PANEL } else { 0.0 };
            let x = LEFT + i as f64 * (BAR + GAP);
            let _ = writeln!(
                s,
                r#"<rect x="{x:.1}" y="{:.1}" width="{BAR}" height="{h:.1}" fill="{colour}"><title>{}+{}: {v:.1}</title></rect>"#,
                base - h,
                r.fill,
                r.carve
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="9">{v:.0}</text>"#,
                x + BAR / 2.0,
                base - h - 3.0
            );
        }
    }
    let label_top = 40.0 + 2.0 * (PANEL + 40.0) - 30.0;
    for (i, r) in rows.iter().enumerate() {
        let x = LEFT + i as f64 * (BAR + GAP) + BAR / 2.0;
        let _ = writeln!(
            s,
            r#"<text x="{x:.1}" y="{label_top:.1}" transform="rotate(60 {x:.1} {label_top:.1})">{}+{}</text>"#,
            r.fill, r.carve
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(fills: Vec<Fill>, carves: Vec<Carve>, n: u64) -> BenchConfig {
        BenchConfig {
            fills,
            carves,
            budget: Budget::Count(n),
            seed: 7,
            threads: 1,
        }
    }

    #[test]
    fn default_fills_leave_out_digits_only() {
        let f = default_fills();
        assert!(!f.contains(&Fill::Digits));
        assert_eq!(f.len(), Fill::ALL.len() - 1);
    }

    #[test]
    fn one_row_per_combination_with_consistent_figures() {
        let c = config(
            vec![Fill::Backtrack, Fill::Template],
            vec![Carve::Minimal, Carve::Unavoidable],
            12,
        );
        let mut seen = 0;
        let rows = run(&c, |_| seen += 1);
        assert_eq!(seen, 4);
        assert_eq!(rows.len(), 4);
        for r in &rows {
            assert_eq!(r.puzzles, 12);
            assert!(r.p50_us <= r.p99_us && r.p99_us <= r.max_us);
            // A fill and a carve take microseconds, never nanoseconds.
            assert!(
                r.p50_us >= 0.5,
                "{}+{}: p50 {} us",
                r.fill,
                r.carve,
                r.p50_us
            );
            assert!(17 <= r.clues_min && r.clues_min <= r.clues_max && r.clues_max < 81);
            assert!(f64::from(r.clues_min) <= r.clues_mean);
            assert!(r.clues_mean <= f64::from(r.clues_max));
            let total: f64 = r.band_shares.iter().map(|(_, s)| s).sum();
            assert!((total - 1.0).abs() < 1e-9, "{total}");
            assert_eq!(r.minimal_checked, 12);
            assert!(r.distinct_puzzles <= 12 && r.distinct_puzzles >= r.distinct_grids);
        }
        // Minimal carving yields minimal puzzles, by definition.
        assert_eq!(rows[0].minimal, 12);
        // One pattern grid: one class; backtracking: all different.
        assert_eq!(rows[2].distinct_grids, 1);
        assert_eq!(rows[0].distinct_grids, 12);
    }

    #[test]
    fn same_seed_same_puzzles() {
        let a = make(Fill::Mrv, Carve::Target, 3, 5);
        let b = make(Fill::Mrv, Carve::Target, 3, 5);
        assert_eq!(a.puzzle, b.puzzle);
        assert_ne!(a.puzzle, make(Fill::Mrv, Carve::Target, 3, 6).puzzle);
    }

    #[test]
    fn minimality_check_sees_a_redundant_clue() {
        let s = make(Fill::Backtrack, Carve::Minimal, 1, 0);
        assert!(is_minimal(&s.puzzle));
        let mut more = s.puzzle;
        let c = (0..N_CELLS).find(|&c| more[c] == 0).expect("a carved cell");
        more[c] = s.solution[c];
        assert!(!is_minimal(&more));
    }

    #[test]
    fn time_budget_makes_at_least_one_batch() {
        let mut c = config(vec![Fill::Template], vec![Carve::Target], 0);
        c.budget = Budget::Time(Duration::from_millis(1));
        let r = measure(Fill::Template, Carve::Target, &c);
        assert!(r.puzzles >= 1);
    }

    #[test]
    fn renderers_show_every_row() {
        let rows = run(
            &config(vec![Fill::Template], Carve::ALL.to_vec(), 3),
            |_| {},
        );
        let table = render_table(&rows);
        assert_eq!(table.lines().count(), 1 + rows.len());
        assert!(table.lines().all(|l| !l.ends_with(' ')));
        let records = csv_records(&rows);
        assert!(records.iter().all(|r| r.len() == records[0].len()));
        let svg = render_svg(&rows);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<rect x=").count(), 2 * rows.len());
    }
}
