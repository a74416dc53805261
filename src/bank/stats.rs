//! Summaries of a bank, for `sudoku-factory stats`: rows per band, the clue-count
//! distribution, distinct canonical forms, and per-stage latencies and throughput
//! read from the HdrHistogram files the generator leaves in `OUT/histograms/`.
//!
//! Everything here works on values already read (rows, file contents as bytes or
//! text) and renders into strings — the text report and the SVG chart (plotters'
//! SVG backend drawing into a `String`) — so `cmd::stats` does all the I/O.
//!
//! Latencies are nanoseconds throughout. A `.hlog` (interval log, V2 or V2 deflate
//! histograms in base64) is preferred: merging its intervals gives the exact
//! whole-run histogram *and* progress over time. A `.hgrm` (the percentile
//! distribution text) only gives percentiles, read from its rows; its values are in
//! microseconds, HdrHistogram's usual output scaling and what the generator writes.

use std::fmt::Write as _;

use base64::Engine as _;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;

use crate::bank::format::{canonical_key, KeySet};
use crate::bank::Row;
use crate::engine::bands::{BandTable, Scale};
use crate::engine::grid::Size;
use crate::engine::rating::Technique;

/// The pipeline stages, in pipeline order: the files `OUT/histograms/<stage>.*`.
pub const STAGES: [&str; 5] = ["fill", "carve", "canon", "expand", "write"];

/// Counts over the rows of a bank; one per worker, then merged.
#[derive(Clone, Debug, Default)]
pub struct BankStats {
    pub rows: u64,
    /// Rows per `difficulty` value, in order of first appearance.
    pub per_band: Vec<(String, u64)>,
    /// Rows per clue count (index = clues, as counted in the puzzle).
    pub clues: Vec<u64>,
    /// Rows that carry a canonical form.
    pub with_canonical: u64,
    canonical: KeySet,
    /// Rows per technique rating in tenths (index 23 = 2.3), rated rows only.
    pub ratings: Vec<u64>,
    /// Rows per hardest technique, indexed like [`Technique::ALL`].
    pub techniques: Vec<u64>,
    /// Per band, aligned with `per_band`: rated rows per rating in tenths.
    pub band_ratings: Vec<Vec<u64>>,
}

impl BankStats {
    /// Counts for a bank of 9×9 boards.
    pub fn new() -> BankStats {
        BankStats::for_size(Size::Nine)
    }

    /// Counts for a bank of boards of `size`.
    pub fn for_size(size: Size) -> BankStats {
        BankStats {
            clues: vec![0; size.n_cells() + 1],
            ratings: vec![0; usize::from(u8::MAX) + 1],
            techniques: vec![0; Technique::ALL.len()],
            ..BankStats::default()
        }
    }

    /// Counts one row. Allocates only the first time a band name is seen and when
    /// the set of canonical forms grows.
    pub fn add<C: AsRef<[u8]>>(&mut self, row: &Row<C>) {
        self.rows += 1;
        let band = self.band_index(row.difficulty.as_str());
        self.per_band[band].1 += 1;
        let n_clues = row.puzzle.as_ref().iter().filter(|&&v| v != 0).count();
        self.clues[n_clues] += 1;
        if let Some(r) = row.rating {
            self.ratings[usize::from(r.rating)] += 1;
            self.band_ratings[band][usize::from(r.rating)] += 1;
            if let Some(t) = Technique::ALL.iter().position(|&t| t == r.technique) {
                self.techniques[t] += 1;
            }
        }
        if let Some(canonical) = &row.canonical {
            self.with_canonical += 1;
            self.canonical.insert(canonical_key(canonical.as_ref()));
        }
    }

    /// The index of `band` in `per_band` (and `band_ratings`), added if new.
    fn band_index(&mut self, band: &str) -> usize {
        match self.per_band.iter().position(|(name, _)| name == band) {
            Some(i) => i,
            None => {
                self.per_band.push((band.to_string(), 0));
                self.band_ratings.push(vec![0; usize::from(u8::MAX) + 1]);
                self.per_band.len() - 1
            }
        }
    }

    pub fn merge(&mut self, other: BankStats) {
        self.rows += other.rows;
        for ((band, n), ratings) in other.per_band.into_iter().zip(other.band_ratings) {
            let i = self.band_index(&band);
            self.per_band[i].1 += n;
            for (a, b) in self.band_ratings[i].iter_mut().zip(ratings) {
                *a += b;
            }
        }
        for (a, b) in self.clues.iter_mut().zip(other.clues) {
            *a += b;
        }
        for (a, b) in self.ratings.iter_mut().zip(other.ratings) {
            *a += b;
        }
        for (a, b) in self.techniques.iter_mut().zip(other.techniques) {
            *a += b;
        }
        self.with_canonical += other.with_canonical;
        self.canonical.extend(other.canonical);
    }

    /// Number of different canonical forms (essentially different puzzles).
    pub fn distinct_canonical(&self) -> usize {
        self.canonical.len()
    }

    /// Rated rows per rating (tenths) of each band, bands as [`Self::bands_in_order`].
    pub fn band_ratings_in_order(&self, table: Option<&BandTable>) -> Vec<(String, Vec<u64>)> {
        self.bands_in_order(table)
            .into_iter()
            .map(|(band, _)| {
                let ratings = self
                    .per_band
                    .iter()
                    .position(|(name, _)| *name == band)
                    .map_or_else(
                        || vec![0; self.ratings.len()],
                        |i| self.band_ratings[i].clone(),
                    );
                (band, ratings)
            })
            .collect()
    }

    /// Rows per band: the bank's table order first (with zeros), then any other name
    /// found in the rows.
    pub fn bands_in_order(&self, table: Option<&BandTable>) -> Vec<(String, u64)> {
        let mut out: Vec<(String, u64)> = table
            .map(|t| t.bands().iter().map(|b| (b.name.clone(), 0)).collect())
            .unwrap_or_default();
        for (band, n) in &self.per_band {
            match out.iter_mut().find(|(name, _)| name == band) {
                Some((_, m)) => *m += n,
                None => out.push((band.clone(), *n)),
            }
        }
        out
    }
}

/// Latency summary of one stage, in nanoseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct StageLatency {
    pub stage: String,
    pub count: u64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

/// One interval of a stage's log: when it ran and how many values it recorded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatePoint {
    /// Start of the interval, seconds from the start of the log.
    pub start: f64,
    /// End of the interval, seconds from the start of the log.
    pub secs: f64,
    /// Values recorded in the interval.
    pub count: u64,
}

impl RatePoint {
    /// Values recorded per second in the interval.
    pub fn per_sec(&self) -> f64 {
        self.count as f64 / (self.secs - self.start)
    }
}

/// Why a histogram file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistogramError {
    #[error("byte {offset}: not an interval log line")]
    Parse { offset: usize },
    #[error("interval {index}: {reason}")]
    Interval { index: usize, reason: String },
    #[error("no histogram data")]
    Empty,
    #[error("line {line}: {reason}")]
    Text { line: usize, reason: String },
}

/// Reads an interval log: the merged latency summary and the rate per interval.
pub fn read_hlog(
    stage: &str,
    bytes: &[u8],
) -> Result<(StageLatency, Vec<RatePoint>), HistogramError> {
    let mut total: Histogram<u64> =
        Histogram::new(3).expect("3 significant figures is a valid precision");
    let mut deserializer = Deserializer::new();
    let mut points = Vec::new();
    let mut start_time: Option<f64> = None;
    let mut base_time: Option<f64> = None;
    let mut first_ts: Option<f64> = None;
    for (index, entry) in IntervalLogIterator::new(bytes).enumerate() {
        let entry = entry.map_err(|e| match e {
            hdrhistogram::serialization::interval_log::LogIteratorError::ParseError { offset } => {
                HistogramError::Parse { offset }
            }
        })?;
        let interval = match entry {
            LogEntry::StartTime(t) => {
                start_time = Some(t.as_secs_f64());
                continue;
            }
            LogEntry::BaseTime(t) => {
                base_time = Some(t.as_secs_f64());
                continue;
            }
            LogEntry::Interval(i) => i,
        };
        let bad = |reason: String| HistogramError::Interval { index, reason };
        let raw = base64::engine::general_purpose::STANDARD
            .decode(interval.encoded_histogram())
            .map_err(|e| bad(format!("base64: {e}")))?;
        let h: Histogram<u64> = deserializer
            .deserialize(&mut raw.as_slice())
            .map_err(|e| bad(format!("histogram: {e:?}")))?;
        total.add(&h).map_err(|e| bad(format!("merging: {e:?}")))?;
        // Timestamps are deltas when the log has a BaseTime; otherwise they may be
        // absolute (after a StartTime) — either way, count from the log's start.
        let ts = interval.start_timestamp().as_secs_f64();
        let origin = match (base_time, start_time) {
            (Some(_), _) => 0.0,
            (None, Some(start)) if ts >= start => start,
            _ => *first_ts.get_or_insert(ts),
        };
        let duration = interval.duration().as_secs_f64();
        if duration > 0.0 {
            points.push(RatePoint {
                start: ts - origin,
                secs: ts - origin + duration,
                count: h.len(),
            });
        }
    }
    if total.is_empty() {
        return Err(HistogramError::Empty);
    }
    let latency = StageLatency {
        stage: stage.to_string(),
        count: total.len(),
        p50: total.value_at_quantile(0.50) as f64,
        p90: total.value_at_quantile(0.90) as f64,
        p99: total.value_at_quantile(0.99) as f64,
        max: total.max() as f64,
    };
    Ok((latency, points))
}

/// Reads a percentile-distribution text (`.hgrm`) whose values are in units of
/// `unit_ns` nanoseconds (1000 for microseconds).
pub fn read_hgrm(stage: &str, text: &str, unit_ns: f64) -> Result<StageLatency, HistogramError> {
    let mut rows: Vec<(f64, f64)> = Vec::new();
    let mut max = None;
    let mut count = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("#[Max") {
            // `#[Max     =      123.000, Total count    =         42]`
            let mut numbers = rest
                .split(['=', ',', ']'])
                .filter_map(|s| s.trim().parse::<f64>().ok());
            max = numbers.next();
            count = numbers.next();
            continue;
        }
        if line.is_empty() || line.starts_with('#') || line.starts_with("Value") {
            continue;
        }
        let mut fields = line.split_whitespace();
        let parsed = (|| {
            let value: f64 = fields.next()?.parse().ok()?;
            let q: f64 = fields.next()?.parse().ok()?;
            Some((value, q))
        })();
        match parsed {
            Some(row) => rows.push(row),
            None => {
                return Err(HistogramError::Text {
                    line: i + 1,
                    reason: format!("expected `VALUE PERCENTILE COUNT ...`, found {line:?}"),
                })
            }
        }
    }
    if rows.is_empty() {
        return Err(HistogramError::Empty);
    }
    let at = |q: f64| {
        rows.iter()
            .find(|&&(_, p)| p >= q)
            .or(rows.last())
            .map_or(0.0, |&(v, _)| v * unit_ns)
    };
    let last = rows.last().map_or(0.0, |&(v, _)| v);
    Ok(StageLatency {
        stage: stage.to_string(),
        count: count.map_or(0, |c| c as u64),
        p50: at(0.50),
        p90: at(0.90),
        p99: at(0.99),
        max: max.unwrap_or(last) * unit_ns,
    })
}

/// The clue histogram's lines from `lo` to `hi` clues: one per count, or on larger
/// boards (a 25×25 bank spans a hundred counts and more) at most 40 buckets of 2, 5,
/// 10, 20, ... counts. Each is (first, last, rows).
fn clue_buckets(clues: &[u64], lo: usize, hi: usize) -> Vec<(usize, usize, u64)> {
    let span = hi - lo + 1;
    let width = [1, 2, 5]
        .iter()
        .flat_map(|&m| (0..6).map(move |e| m * 10usize.pow(e)))
        .filter(|&w| span.div_ceil(w) <= 40)
        .min()
        .unwrap_or(span);
    (lo / width * width..=hi)
        .step_by(width)
        .map(|first| {
            let last = first + width - 1;
            let rows = clues[first.max(lo)..=last.min(hi)].iter().sum();
            (first, last, rows)
        })
        .collect()
}

/// The rating bins of `stats`' histograms, in tenths `(first, last)`, the last one
/// open (`last` 255): whole steps (1.0–1.9, …) split at every band edge — those of
/// the bank's rating table or, for a bank graded by clues, of the default rating
/// table — so that no bin straddles two bands (1.0–1.4, 1.5–1.9, 2.0–2.4, 2.5–2.9, …
/// with the default table), from 0.0 (a full grid rates 0.0) to 9.0+.
pub fn rating_bins(table: Option<&BandTable>) -> Vec<(u16, u16)> {
    let rating = match table {
        Some(t) if t.scale() == Scale::Rating => t.clone(),
        _ => BandTable::default_rating(),
    };
    let mut edges: Vec<u16> = (0..=9).map(|w| 10 * w).collect();
    for b in rating.bands() {
        edges.push(b.lo);
        edges.push(b.hi.saturating_add(1));
    }
    edges.retain(|&e| e <= 90);
    edges.sort_unstable();
    edges.dedup();
    let mut bins: Vec<(u16, u16)> = edges.windows(2).map(|w| (w[0], w[1] - 1)).collect();
    bins.push((*edges.last().expect("0 is an edge"), u16::from(u8::MAX)));
    bins
}

/// Rows of `ratings` (per tenth) in `bin`.
fn bin_rows(ratings: &[u64], (first, last): (u16, u16)) -> u64 {
    let last = usize::from(last).min(ratings.len() - 1);
    ratings[usize::from(first)..=last].iter().sum()
}

/// `1.0-1.4`, or `9.0+` for the open bin.
fn bin_label((first, last): (u16, u16)) -> String {
    let t = |v: u16| format!("{}.{}", v / 10, v % 10);
    match last {
        255 => format!("{}+", t(first)),
        _ => format!("{}-{}", t(first), t(last)),
    }
}

/// The text report: rows per band, the clue histogram, canonical forms, latencies.
pub fn render_text(
    stats: &BankStats,
    table: Option<&BandTable>,
    latencies: &[StageLatency],
) -> String {
    let mut out = String::new();
    let pct = |n: u64| 100.0 * n as f64 / stats.rows.max(1) as f64;
    let _ = writeln!(out, "rows: {}", stats.rows);
    let _ = writeln!(out, "\nrows per band:");
    for (band, n) in stats.bands_in_order(table) {
        let _ = writeln!(out, "  {band:<12} {n:>12} {:>6.1}%", pct(n));
    }
    let _ = writeln!(out, "\nclue counts:");
    let lo = stats.clues.iter().position(|&n| n > 0);
    let hi = stats.clues.iter().rposition(|&n| n > 0);
    if let (Some(lo), Some(hi)) = (lo, hi) {
        let buckets = clue_buckets(&stats.clues, lo, hi);
        let top = buckets.iter().map(|b| b.2).max().unwrap_or(1).max(1);
        let label = |&(first, last, _): &(usize, usize, u64)| match first == last {
            true => first.to_string(),
            false => format!("{first}-{last}"),
        };
        let label_width = buckets.iter().map(|b| label(b).len()).max().unwrap_or(2);
        for bucket in &buckets {
            // Bars of up to 40 characters; any non-zero count gets at least one.
            let n = bucket.2;
            let width = if n == 0 {
                0
            } else {
                ((n * 40).div_ceil(top)) as usize
            };
            let _ = writeln!(
                out,
                "  {:>label_width$} {:<40} {n:>12}",
                label(bucket),
                "#".repeat(width)
            );
        }
    }
    let rated: u64 = stats.ratings.iter().sum();
    if rated > 0 {
        let _ = writeln!(out, "\ntechnique ratings (SE scale, {rated} rated rows):");
        // Bins that meet the band edges, those with rows only.
        let bins: Vec<((u16, u16), u64)> = rating_bins(table)
            .into_iter()
            .map(|bin| (bin, bin_rows(&stats.ratings, bin)))
            .filter(|&(_, n)| n > 0)
            .collect();
        let top = bins.iter().map(|&(_, n)| n).max().unwrap_or(1).max(1);
        for &(bin, n) in &bins {
            let bar = "#".repeat(((n * 40).div_ceil(top)) as usize);
            let _ = writeln!(
                out,
                "  {:>9} {bar:<40} {n:>12} {:>6.1}%",
                bin_label(bin),
                pct(n)
            );
        }
        let _ = writeln!(out, "\nratings per band (rated rows, in the bins above):");
        let width = bins
            .iter()
            .map(|&(bin, _)| bin_label(bin).len())
            .max()
            .unwrap_or(0)
            .max(8);
        let mut header = format!("  {:<12}", "band");
        for &(bin, _) in &bins {
            let _ = write!(header, " {:>width$}", bin_label(bin));
        }
        let _ = writeln!(out, "{header}");
        for (band, ratings) in stats.band_ratings_in_order(table) {
            let mut line = format!("  {band:<12}");
            for &(bin, _) in &bins {
                let _ = write!(line, " {:>width$}", bin_rows(&ratings, bin));
            }
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out, "\nhardest technique:");
        let mut by_count: Vec<(usize, u64)> = stats
            .techniques
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, n)| n > 0)
            .collect();
        by_count.sort_by_key(|&(t, n)| (std::cmp::Reverse(n), t));
        for (t, n) in by_count {
            let name = Technique::ALL[t].name();
            let _ = writeln!(out, "  {name:<24} {n:>12} {:>6.1}%", pct(n));
        }
    }
    let _ = writeln!(
        out,
        "\ndistinct canonical forms: {} (in {} rows with a canonical form)",
        stats.distinct_canonical(),
        stats.with_canonical
    );
    if !latencies.is_empty() {
        let _ = writeln!(
            out,
            "\nstage latencies (µs):\n  {:<8} {:>12} {:>10} {:>10} {:>10} {:>12}",
            "stage", "count", "p50", "p90", "p99", "max"
        );
        for l in latencies {
            let us = |ns: f64| ns / 1000.0;
            let _ = writeln!(
                out,
                "  {:<8} {:>12} {:>10.1} {:>10.1} {:>10.1} {:>12.1}",
                l.stage,
                l.count,
                us(l.p50),
                us(l.p90),
                us(l.p99),
                us(l.max)
            );
        }
    }
    out
}

/// The figures of [`render_text`] as one JSON object (`stats --json`, documented in
/// the README): ratings as numbers with one decimal, latencies in microseconds.
/// `complete` and `problems` say what the figures cover.
pub fn render_json(
    stats: &BankStats,
    table: Option<&BandTable>,
    latencies: &[StageLatency],
    complete: bool,
    problems: &[String],
) -> String {
    use serde_json::json;
    let rating = |tenths: usize| tenths as f64 / 10.0;
    // One object per count that is not zero, from its index and the count.
    let nonzero = |counts: &[u64], item: &dyn Fn(usize, u64) -> serde_json::Value| {
        counts
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(i, &n)| item(i, n))
            .collect::<Vec<_>>()
    };
    let per_rating =
        |ratings: &[u64]| nonzero(ratings, &|r, n| json!({"rating": rating(r), "rows": n}));
    let band_ratings = stats.band_ratings_in_order(table);
    let bands: Vec<serde_json::Value> = stats
        .bands_in_order(table)
        .into_iter()
        .zip(band_ratings)
        .map(|((name, rows), (_, ratings))| {
            json!({"name": name, "rows": rows, "ratings": per_rating(&ratings)})
        })
        .collect();
    let clues = nonzero(&stats.clues, &|c, n| json!({"clues": c, "rows": n}));
    let bins: Vec<serde_json::Value> = rating_bins(table)
        .into_iter()
        .map(|bin| {
            json!({
                "from": rating(usize::from(bin.0)),
                "to": (bin.1 != 255).then(|| rating(usize::from(bin.1))),
                "rows": bin_rows(&stats.ratings, bin),
            })
        })
        .collect();
    let techniques = nonzero(
        &stats.techniques,
        &|t, n| json!({"technique": Technique::ALL[t].name(), "rows": n}),
    );
    let stages: Vec<serde_json::Value> = latencies
        .iter()
        .map(|l| {
            json!({
                "stage": l.stage, "count": l.count, "p50_us": l.p50 / 1000.0,
                "p90_us": l.p90 / 1000.0, "p99_us": l.p99 / 1000.0, "max_us": l.max / 1000.0,
            })
        })
        .collect();
    let object = json!({
        "rows": stats.rows,
        "complete": complete,
        "problems": problems,
        "bands": bands,
        "clues": clues,
        "rated_rows": stats.ratings.iter().sum::<u64>(),
        "ratings": per_rating(&stats.ratings),
        "rating_bins": bins,
        "techniques": techniques,
        "distinct_canonical": stats.distinct_canonical(),
        "with_canonical": stats.with_canonical,
        "stages": stages,
    });
    format!("{object:#}\n")
}

/// One panel of vertical bars, one per `(label, puzzles)` in order, with about
/// `labels` of the labels under them.
fn bar_panel<DB: plotters::prelude::DrawingBackend>(
    panel: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    caption: String,
    bars: &[(String, u64)],
    x_desc: &str,
    color: plotters::style::RGBAColor,
    labels: usize,
) -> Result<(), String> {
    use plotters::prelude::*;
    let top = bars.iter().map(|b| b.1).max().unwrap_or(0).max(1);
    let mut chart = ChartBuilder::on(panel)
        .caption(caption, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(
            (0..bars.len() as u32).into_segmented(),
            0u64..top + top / 10 + 1,
        )
        .map_err(|e| e.to_string())?;
    let label = |v: &SegmentValue<u32>| match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => bars
            .get(*i as usize)
            .map_or_else(String::new, |b| b.0.clone()),
        SegmentValue::Last => String::new(),
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(labels)
        .x_label_formatter(&label)
        .x_desc(x_desc)
        .y_desc("puzzles")
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(
            Histogram::vertical(&chart)
                .style(color.filled())
                .margin(2)
                .data(bars.iter().enumerate().map(|(i, b)| (i as u32, b.1))),
        )
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// The stages' progress over the run: per stage, the share of its work done by
/// each second (its values counted interval by interval). On one 0–100 % axis
/// every stage reads alike, whatever its unit and rate and however short or long
/// the run: a steep line is a fast stretch, a flat one a stall, and where each
/// line starts and ends says when the stage ran.
fn progress_panel<DB: plotters::prelude::DrawingBackend>(
    panel: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    rates: &[&(String, Vec<RatePoint>)],
) -> Result<(), String> {
    use plotters::prelude::*;
    let x_max = rates
        .iter()
        .flat_map(|(_, p)| p.iter().map(|p| p.secs))
        .fold(0.0f64, f64::max)
        .max(1e-3);
    let mut chart = ChartBuilder::on(panel)
        .caption("Progress per stage", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..x_max * 1.02, 0.0..105.0)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("seconds")
        .y_desc("% of the stage's work done")
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (stage, points)) in rates.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let total: u64 = points.iter().map(|p| p.count).sum();
        let first = points.first().map_or(0.0, |p| p.start);
        let ran = points.last().map_or(0.0, |p| p.secs) - first;
        // From the first interval's start at 0 %, a point at each interval's end.
        let line = std::iter::once((first, 0.0)).chain(points.iter().scan(0u64, |done, p| {
            *done += p.count;
            Some((p.secs, 100.0 * *done as f64 / total.max(1) as f64))
        }));
        let short = crate::util::text::short;
        let label = format!(
            "{stage}: {total} in {ran:.1} s ({}/s)",
            short(total as f64 / ran.max(1e-9))
        );
        chart
            .draw_series(LineSeries::new(line, color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// The SVG chart: the clue distribution, the rating histogram in the bins of
/// [`rating_bins`] when rows are rated, and, when there are interval logs, each
/// stage's progress over time ([`progress_panel`]).
pub fn render_svg(
    stats: &BankStats,
    table: Option<&BandTable>,
    rates: &[(String, Vec<RatePoint>)],
) -> Result<String, String> {
    use plotters::prelude::*;

    let rates: Vec<_> = rates.iter().filter(|(_, p)| !p.is_empty()).collect();
    // The rating bins from the first with rows to the last (the ones between kept,
    // so that the axis is the scale).
    let mut bins: Vec<((u16, u16), u64)> = rating_bins(table)
        .into_iter()
        .map(|bin| (bin, bin_rows(&stats.ratings, bin)))
        .collect();
    let first = bins.iter().position(|b| b.1 > 0);
    let last = bins.iter().rposition(|b| b.1 > 0);
    bins = match (first, last) {
        (Some(a), Some(z)) => bins[a..=z].to_vec(),
        _ => Vec::new(),
    };
    let n_panels = 1 + usize::from(!bins.is_empty()) + usize::from(!rates.is_empty());
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (900, 420 * n_panels as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut panels = root.split_evenly((n_panels, 1)).into_iter();
        let clue_panel = panels.next().expect("one panel at least");
        let rating_panel = if bins.is_empty() { None } else { panels.next() };
        let rate_panel = panels.next();

        let lo = stats.clues.iter().position(|&n| n > 0).unwrap_or(17);
        let hi = stats.clues.iter().rposition(|&n| n > 0).unwrap_or(40);
        let clue_bars: Vec<(String, u64)> =
            (lo..=hi).map(|c| (c.to_string(), stats.clues[c])).collect();
        let caption = format!(
            "Clue counts ({})",
            crate::util::text::counted(stats.rows, "puzzle")
        );
        // Plotters' default: about ten labels.
        bar_panel(&clue_panel, caption, &clue_bars, "clues", BLUE.mix(0.6), 10)?;

        if let Some(panel) = &rating_panel {
            let rated: u64 = stats.ratings.iter().sum();
            let bars: Vec<(String, u64)> =
                bins.iter().map(|&(bin, n)| (bin_label(bin), n)).collect();
            let caption = format!(
                "Technique ratings, SE scale ({})",
                crate::util::text::counted(rated, "rated puzzle")
            );
            bar_panel(panel, caption, &bars, "SE rating", RED.mix(0.5), bars.len())?;
        }

        if let Some(panel) = &rate_panel {
            progress_panel(panel, &rates)?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::Label;
    use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
    use hdrhistogram::serialization::V2DeflateSerializer;
    use std::time::{Duration, SystemTime};

    fn row(clues: usize, band: &str, canonical: u8) -> Row {
        let mut puzzle = [0u8; 81];
        for (i, c) in puzzle.iter_mut().enumerate().take(clues) {
            *c = (i % 9) as u8 + 1;
        }
        Row {
            line: 2,
            id: 0,
            puzzle,
            solution: [1; 81],
            clues: clues as u16,
            difficulty: Label::new(band),
            canonical: Some([canonical; 81]),
            rating: Some(crate::engine::rating::Rating {
                rating: 10 + canonical,
                technique: Technique::ALL[usize::from(canonical)],
            }),
        }
    }

    #[test]
    fn a_wide_clue_range_is_shown_in_at_most_40_buckets() {
        let mut clues = vec![0u64; 626];
        clues[17] = 3;
        clues[40] = 1;
        // 9×9: one line per count, 17 to 40.
        let lines = clue_buckets(&clues, 17, 40);
        assert_eq!(lines.len(), 24);
        assert_eq!((lines[0], lines[23]), ((17, 17, 3), (40, 40, 1)));
        // 25×25: 253 to 383 clues, 131 counts, in buckets of 5 from 250.
        clues[253] = 2;
        clues[254] = 4;
        clues[383] = 7;
        let lines = clue_buckets(&clues, 253, 383);
        assert_eq!(lines.len(), 27);
        assert_eq!(lines[0], (250, 254, 6));
        assert_eq!(lines[26], (380, 384, 7));
        assert_eq!(lines.iter().map(|l| l.2).sum::<u64>(), 13);
        // 41 counts: buckets of 2.
        assert_eq!(clue_buckets(&clues, 100, 140).len(), 21);
    }

    #[test]
    fn rating_bins_meet_the_band_edges() {
        let default: Vec<(u16, u16)> = rating_bins(None);
        for bin in [
            (10, 14),
            (15, 19),
            (20, 24),
            (25, 29),
            (30, 39),
            (50, 59),
            (70, 79),
        ] {
            assert!(default.contains(&bin), "{bin:?} in {default:?}");
        }
        assert_eq!(default.first(), Some(&(0, 9)));
        assert_eq!(default.last(), Some(&(90, 255)));
        let own = BandTable::parse_rating("gentle=1.0-2.0,tough=4.0-6.0,mad=8.0+").unwrap();
        let bins = rating_bins(Some(&own));
        for bin in [
            (10, 19),
            (20, 20),
            (21, 29),
            (40, 49),
            (60, 60),
            (61, 69),
            (80, 89),
        ] {
            assert!(bins.contains(&bin), "{bin:?} in {bins:?}");
        }
        // Contiguous: each bin starts where the last one ended.
        assert!(bins.windows(2).all(|w| w[0].1 + 1 == w[1].0));
        assert_eq!(bin_label((90, 255)), "9.0+");
        assert_eq!(bin_label((15, 19)), "1.5-1.9");
    }

    #[test]
    fn counts_bands_clues_and_canonical_forms() {
        let mut a = BankStats::new();
        a.add(&row(24, "hard", 1));
        a.add(&row(24, "hard", 1));
        let mut b = BankStats::new();
        b.add(&row(36, "easy", 2));
        a.merge(b);
        assert_eq!(a.rows, 3);
        assert_eq!((a.clues[24], a.clues[36]), (2, 1));
        assert_eq!(a.distinct_canonical(), 2);
        // Ratings 1.1 (twice, full-house) and 1.2 (hidden-single) survive the merge.
        assert_eq!((a.ratings[11], a.ratings[12]), (2, 1));
        assert_eq!((a.techniques[1], a.techniques[2]), (2, 1));
        let table = BandTable::default_9x9();
        assert_eq!(
            a.bands_in_order(Some(&table)),
            vec![
                ("easy".to_string(), 1),
                ("medium".to_string(), 0),
                ("hard".to_string(), 2),
                ("expert".to_string(), 0)
            ]
        );
        let text = render_text(&a, Some(&table), &[]);
        assert!(
            text.contains("technique ratings (SE scale, 3 rated rows)"),
            "{text}"
        );
        assert!(text.contains("    1.0-1.4 "), "{text}");
        assert!(text.contains("ratings per band"), "{text}");
        let line = format!("  {:<24} {:>12} {:>6.1}%", "full-house", 2, 66.7);
        assert!(text.contains(&line), "{text}");
        assert!(
            text.contains("  hard                    2   66.7%"),
            "{text}"
        );
        assert!(
            text.contains(&format!("  24 {:<40} {:>12}", "#".repeat(40), 2)),
            "{text}"
        );
        assert!(
            text.contains(&format!("  36 {:<40} {:>12}", "#".repeat(20), 1)),
            "{text}"
        );
        assert!(
            text.contains("distinct canonical forms: 2 (in 3 rows"),
            "{text}"
        );
    }

    /// An interval log written the way the generator writes one: V2 deflate, a
    /// StartTime and BaseTime, a header per interval.
    fn hlog(intervals: &[&[u64]]) -> Vec<u8> {
        let mut log = Vec::new();
        let mut serializer = V2DeflateSerializer::new();
        let now = SystemTime::now();
        for (i, values) in intervals.iter().enumerate() {
            let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
            for &v in *values {
                h.record(v).unwrap();
            }
            let mut builder = IntervalLogWriterBuilder::new();
            if i == 0 {
                builder.with_start_time(now).with_base_time(now);
            }
            let mut writer = builder.begin_log_with(&mut log, &mut serializer).unwrap();
            writer
                .write_histogram(
                    &h,
                    Duration::from_secs(i as u64),
                    Duration::from_secs(1),
                    Tag::new("fill"),
                )
                .unwrap();
        }
        log
    }

    #[test]
    fn an_interval_log_gives_merged_percentiles_and_rates() {
        let log = hlog(&[&[1000, 2000, 3000], &[4000; 7]]);
        let (lat, points) = read_hlog("fill", &log).unwrap();
        assert_eq!(lat.count, 10);
        assert!((3990.0..=4010.0).contains(&lat.p50), "{lat:?}");
        assert!((3990.0..=4010.0).contains(&lat.max), "{lat:?}");
        assert_eq!(
            points,
            vec![
                RatePoint {
                    start: 0.0,
                    secs: 1.0,
                    count: 3
                },
                RatePoint {
                    start: 1.0,
                    secs: 2.0,
                    count: 7
                }
            ]
        );
        assert!(matches!(
            read_hlog("fill", b"garbage line\n"),
            Err(HistogramError::Parse { .. })
        ));
    }

    #[test]
    fn a_percentile_text_gives_percentiles_in_ns() {
        let text = "       Value     Percentile TotalCount 1/(1-Percentile)\n\n\
                    \x20     1.000 0.000000000000          1           1.00\n\
                    \x20     2.000 0.500000000000          5           2.00\n\
                    \x20     3.000 0.900000000000          9          10.00\n\
                    \x20     9.000 1.000000000000         10\n\
                    #[Mean    =        2.500, StdDeviation   =        1.000]\n\
                    #[Max     =        9.000, Total count    =           10]\n\
                    #[Buckets =           20, SubBuckets     =         2048]\n";
        let lat = read_hgrm("carve", text, 1000.0).unwrap();
        assert_eq!(
            lat,
            StageLatency {
                stage: "carve".into(),
                count: 10,
                p50: 2000.0,
                p90: 3000.0,
                p99: 9000.0,
                max: 9000.0
            }
        );
        let err = read_hgrm("carve", "Value\nnot a row\n", 1000.0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: expected `VALUE PERCENTILE COUNT ...`, found \"not a row\""
        );
    }

    /// The number in attribute `name="..."` of an SVG element's line.
    fn attr_of(line: &str, name: &str) -> f64 {
        let key = format!(" {name}=\"");
        let at = line.find(&key).expect("the attribute") + key.len();
        line[at..].split('"').next().unwrap().parse().unwrap()
    }

    #[test]
    fn the_chart_is_an_svg_with_both_panels() {
        let mut s = BankStats::new();
        s.add(&row(24, "hard", 1));
        s.add(&row(30, "medium", 1));
        let only_clues = render_svg(&s, None, &[]).unwrap();
        assert!(only_clues.starts_with("<svg"), "{}", &only_clues[..40]);
        assert!(only_clues.contains("Clue counts (2 puzzles)"));
        // A bar for every count from the fewest clues to the most (plotters' segmented
        // `lo..hi` ends with hi's segment), each inside the chart's 12-pixel margin.
        let bar_ends: Vec<f64> = only_clues
            .lines()
            .filter(|l| l.starts_with("<rect") && l.contains("fill=\"#0000FF\""))
            .map(|l| attr_of(l, "x") + attr_of(l, "width"))
            .collect();
        assert_eq!(bar_ends.len(), 7, "24 to 30 clues: {only_clues}");
        assert!(
            bar_ends.iter().all(|&end| end <= 900.0 - 12.0),
            "{bar_ends:?}"
        );
        // The rows are rated (1.1 and 1.1): a rating panel, its bins labelled.
        assert!(only_clues.contains("Technique ratings, SE scale (2 rated puzzles)"));
        assert!(only_clues.contains("\n1.0-1.4\n"), "{only_clues}");
        let rates = vec![(
            "fill".to_string(),
            vec![
                RatePoint {
                    start: 0.0,
                    secs: 1.0,
                    count: 10,
                },
                RatePoint {
                    start: 1.0,
                    secs: 2.0,
                    count: 30,
                },
            ],
        )];
        let both = render_svg(&s, None, &rates).unwrap();
        assert!(both.contains("Progress per stage"));
        assert!(both.contains("fill: 40 in 2.0 s (20.0/s)"), "{both}");
        // 0 %, 25 % after the first second, 100 % at the end: rising, the last
        // point the highest of the panel's line.
        let ys = series_points(&both);
        assert_eq!(ys.len(), 3, "{both}");
        assert!(ys[0].1 > ys[1].1 && ys[1].1 > ys[2].1, "{ys:?}");
        let quarter = (ys[0].1 - ys[1].1) / (ys[0].1 - ys[2].1);
        assert!((quarter - 0.25).abs() < 0.02, "{ys:?}");
    }

    /// The points of the first series line in an SVG chart (x, y pixels).
    fn series_points(svg: &str) -> Vec<(f64, f64)> {
        let line = svg
            .lines()
            .find(|l| l.contains("<polyline") && l.contains("stroke-width=\"2\""))
            .unwrap_or_else(|| panic!("no series line in {svg}"));
        let points = line
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        points
            .split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    /// Regression (issue #11): a run shorter than one interval has one rate point, and
    /// its throughput panel was empty.
    #[test]
    fn one_interval_still_draws_a_line() {
        let mut s = BankStats::new();
        s.add(&row(24, "hard", 1));
        let rates = vec![(
            "expand".to_string(),
            vec![RatePoint {
                start: 0.0,
                secs: 0.4,
                count: 2000,
            }],
        )];
        let svg = render_svg(&s, None, &rates).unwrap();
        assert_eq!(series_points(&svg).len(), 2, "{svg}");
    }
}
