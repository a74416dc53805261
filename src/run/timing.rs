//! Where the time goes: one HdrHistogram per pipeline stage, in nanoseconds.
//!
//! Stages and what one value measures: `fill` (one complete grid), `carve` (one
//! carve walk), `canon` (one canonical form), `expand` (making, formatting and
//! compressing one block of rows: measured per block, so one value per block),
//! `write` (appending one row to its shard: a block's time spread over its rows, so
//! the log's counts add up to the rows written). Workers do not record into shared histograms:
//! they return their durations with their results, and the single thread that
//! consumes those results records them — so there is no lock and no atomic on the hot
//! path, and merging is free.
//!
//! Besides the whole-run histogram each stage keeps an *interval* histogram that is
//! cut every [`INTERVAL`] into an interval log (HdrHistogram's `.hlog` format, V2
//! deflate, base64), which gives throughput over time. At the end both are rendered:
//! `.hgrm` (the percentile-distribution text of HdrHistogram's
//! `outputPercentileDistribution`, values in microseconds) and `.hlog`.

use std::fmt::Write as _;
use std::time::{Duration, Instant, SystemTime};

use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::Histogram;

/// How often an interval is cut into the `.hlog`.
pub const INTERVAL: Duration = Duration::from_secs(1);

/// A pipeline stage that is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Fill,
    Carve,
    Canon,
    Expand,
    Write,
}

impl Stage {
    pub const ALL: [Stage; 5] = [
        Stage::Fill,
        Stage::Carve,
        Stage::Canon,
        Stage::Expand,
        Stage::Write,
    ];

    /// What one recorded value measures.
    pub fn unit(self) -> &'static str {
        match self {
            Stage::Fill | Stage::Carve => "attempt",
            Stage::Canon => "seed",
            Stage::Expand => "block",
            Stage::Write => "row",
        }
    }

    /// File stem and table label.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Fill => "fill",
            Stage::Carve => "carve",
            Stage::Canon => "canon",
            Stage::Expand => "expand",
            Stage::Write => "write",
        }
    }
}

/// Records `count` values `value` into `h`, growing it to hold `value`; a value no
/// histogram can hold (beyond about 2^62 ns) is clamped to its largest.
#[inline]
fn grow_record(h: &mut Histogram<u64>, value: u64, count: u64) {
    if h.record_n(value, count).is_err() {
        h.saturating_record_n(value, count);
    }
}

fn new_histogram() -> Histogram<u64> {
    // From 1 ns at 3 significant digits, growing to the largest value recorded (a
    // fixed bound of an hour would cost 270 KiB of counts, zeroed, per histogram: a
    // large part of a short run).
    Histogram::new(3).expect("3 significant digits are valid")
}

/// The recorder of one stage, owned by the one thread that records it.
pub struct StageRecorder {
    stage: Stage,
    total: Histogram<u64>,
    interval: Histogram<u64>,
    /// Items recorded (rows for `expand` and `write`, attempts for `fill` and
    /// `carve`, seeds for `canon`).
    items: u64,
    busy: Duration,
    interval_start: Instant,
    run_start: Instant,
    log: Vec<u8>,
    serializer: V2DeflateSerializer,
    wall_start: SystemTime,
    started_log: bool,
}

impl StageRecorder {
    /// A recorder whose interval clock starts at `run_start` (shared by all stages,
    /// so their logs line up).
    pub fn new(stage: Stage, run_start: Instant, wall_start: SystemTime) -> StageRecorder {
        StageRecorder {
            stage,
            total: new_histogram(),
            interval: new_histogram(),
            items: 0,
            busy: Duration::ZERO,
            interval_start: run_start,
            run_start,
            log: Vec::new(),
            serializer: V2DeflateSerializer::new(),
            wall_start,
            started_log: false,
        }
    }

    /// Records `elapsed`, which covered `items` items (rows of a block, attempts of a
    /// seed), as `items` values of `elapsed / items`: so a histogram's count is the
    /// number of items, and the `write` log's counts add up to the rows written.
    /// Cuts an interval when one is due.
    #[inline]
    pub fn record(&mut self, elapsed: Duration, items: u64) {
        if items == 0 {
            return;
        }
        let per_item =
            (elapsed.as_nanos() / u128::from(items)).clamp(1, u128::from(u64::MAX)) as u64;
        grow_record(&mut self.total, per_item, items);
        grow_record(&mut self.interval, per_item, items);
        self.items += items;
        self.busy += elapsed;
        if self.interval_start.elapsed() >= INTERVAL {
            self.cut_interval();
        }
    }

    /// Records one measurement, `elapsed`, of a unit that held `items` items (a block
    /// of rows): one value in the histogram, `items` towards the throughput. Unlike
    /// [`StageRecorder::record`] nothing is averaged away, so the percentiles are
    /// those of what was timed. Cuts an interval when one is due.
    #[inline]
    pub fn record_one(&mut self, elapsed: Duration, items: u64) {
        let ns = elapsed.as_nanos().clamp(1, u128::from(u64::MAX)) as u64;
        grow_record(&mut self.total, ns, 1);
        grow_record(&mut self.interval, ns, 1);
        self.items += items;
        self.busy += elapsed;
        if self.interval_start.elapsed() >= INTERVAL {
            self.cut_interval();
        }
    }

    /// Writes the interval histogram so far into the log and starts a new one.
    fn cut_interval(&mut self) {
        let now = Instant::now();
        if !self.interval.is_empty() {
            let mut builder = IntervalLogWriterBuilder::new();
            if !self.started_log {
                builder
                    .add_comment(&format!(
                        "sudoku-factory {} stage, values in ns",
                        self.stage.name()
                    ))
                    .with_start_time(self.wall_start)
                    .with_base_time(self.wall_start);
            }
            let mut log = builder
                .begin_log_with(&mut self.log, &mut self.serializer)
                .expect("writing to memory does not fail");
            log.write_histogram(
                &self.interval,
                self.interval_start - self.run_start,
                now - self.interval_start,
                Tag::new(self.stage.name()),
            )
            .expect("writing to memory does not fail");
            self.started_log = true;
            self.interval.reset();
        }
        self.interval_start = now;
    }

    /// Closes the last interval; returns the `.hgrm` text, the `.hlog` bytes and the
    /// summary line's figures.
    pub fn finish(mut self) -> StageReport {
        self.cut_interval();
        StageReport {
            stage: self.stage,
            hgrm: percentile_distribution(&self.total, 1000.0),
            hlog: self.log,
            count: self.total.len(),
            p50: self.total.value_at_quantile(0.50),
            p90: self.total.value_at_quantile(0.90),
            p99: self.total.value_at_quantile(0.99),
            max: self.total.max(),
            items: self.items,
            busy: self.busy,
        }
    }
}

/// One stage's results, ready to be written and summarised.
#[derive(Clone, Debug)]
pub struct StageReport {
    pub stage: Stage,
    pub hgrm: String,
    pub hlog: Vec<u8>,
    pub count: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
    pub items: u64,
    pub busy: Duration,
}

impl StageReport {
    /// Items per second of busy time in this stage (per thread doing it).
    pub fn throughput(&self) -> f64 {
        self.items as f64 / self.busy.as_secs_f64().max(1e-9)
    }
}

/// HdrHistogram's percentile-distribution text, values divided by `scale` (1000 for
/// µs from ns), five ticks per half distance like the reference implementation.
pub fn percentile_distribution(h: &Histogram<u64>, scale: f64) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>12} {:>14} {:>10} {:>14}\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    );
    if h.is_empty() {
        return out;
    }
    let mut total = 0u64;
    for v in h.iter_quantiles(5) {
        total += v.count_since_last_iteration();
        let q = v.quantile_iterated_to();
        let value = v.value_iterated_to() as f64 / scale;
        if q < 1.0 {
            let _ = writeln!(
                out,
                "{value:12.3} {q:2.12} {total:10} {:14.2}",
                1.0 / (1.0 - q)
            );
        } else {
            let _ = writeln!(out, "{value:12.3} {q:2.12} {total:10}");
        }
    }
    let _ = writeln!(
        out,
        "#[Mean    = {:12.3}, StdDeviation   = {:12.3}]",
        h.mean() / scale,
        h.stdev() / scale
    );
    let _ = writeln!(
        out,
        "#[Max     = {:12.3}, Total count    = {:12}]",
        h.max() as f64 / scale,
        h.len()
    );
    let _ = writeln!(
        out,
        "#[Buckets = {:12}, SubBuckets     = {:12}]",
        h.buckets(),
        h.distinct_values()
    );
    out
}

/// The stderr table: count, p50, p90, p99, max (µs) and throughput per stage.
pub fn table(reports: &[StageReport]) -> String {
    let mut out = format!(
        "  {:<8} {:<8} {:>10} {:>10} {:>10} {:>10} {:>11} {:>14}\n",
        "stage", "per", "count", "p50 µs", "p90 µs", "p99 µs", "max µs", "items/s/thread"
    );
    for r in reports.iter().filter(|r| r.count > 0) {
        let us = |ns: u64| ns as f64 / 1000.0;
        let _ = writeln!(
            out,
            "  {:<8} {:<8} {:>10} {:>10.1} {:>10.1} {:>10.1} {:>11.1} {:>14.0}",
            r.stage.name(),
            r.stage.unit(),
            r.count,
            us(r.p50),
            us(r.p90),
            us(r.p99),
            us(r.max),
            r.throughput()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorder(stage: Stage) -> StageRecorder {
        StageRecorder::new(stage, Instant::now(), SystemTime::now())
    }

    #[test]
    fn record_one_keeps_each_measurement() {
        // Regression (issue #11): `expand` recorded a block's average once per row,
        // so with one block p50 = p99 = max whatever was measured.
        let mut r = recorder(Stage::Expand);
        for ms in [1, 2, 3, 100] {
            r.record_one(Duration::from_millis(ms), 1000);
        }
        let report = r.finish();
        assert_eq!(report.count, 4, "one value per block");
        assert_eq!(report.items, 4000, "rows still count towards throughput");
        assert!(
            report.p50 < 2_100_000 && report.p50 > 1_900_000,
            "{}",
            report.p50
        );
        assert!(report.max > 99_000_000, "{}", report.max);
    }

    #[test]
    fn histograms_grow_to_an_hour_and_clamp_beyond_what_any_can_hold() {
        // Histograms start small and grow: a long value is kept, not clamped to the
        // first bound, and a value past any bound is clamped, not a panic.
        let mut h = new_histogram();
        grow_record(&mut h, 3_600_000_000_000, 2);
        grow_record(&mut h, 5, 1);
        assert_eq!(h.len(), 3);
        assert!(h.max() >= 3_599_000_000_000, "{}", h.max());
        assert_eq!(h.min(), 5);
        grow_record(&mut h, u64::MAX, 1);
        assert_eq!(h.len(), 4);
        assert!(h.max() >= 3_599_000_000_000, "{}", h.max());
    }

    #[test]
    fn record_spreads_a_block_over_its_items() {
        let mut r = recorder(Stage::Write);
        r.record(Duration::from_micros(100), 10);
        let report = r.finish();
        assert_eq!(report.count, 10);
        assert!(
            report.p50 >= 9_990 && report.p50 <= 10_010,
            "{}",
            report.p50
        );
        assert!(table(&[report]).contains("write    row"));
    }
}
