//! Comparing strategies side by side: every fill × carve combination on the same
//! budget, the same thread count and the same random streams, measured for speed
//! (puzzles/s, per-puzzle latency of fill + carve in an HdrHistogram), for what the
//! puzzles look like (clue counts, bands, minimality) and for diversity (distinct
//! canonical forms of the solution grids and of the puzzles).
//!
//! Puzzle `i` of every combination draws from [`item_rng`]`(seed, Seed, i, 0)`, so two
//! combinations differ only by their strategies. Two modes:
//!
//! * Strategy mode (no [`BandPlan`]): every carve runs to the end (`stop_at = 0`), so
//!   the figures describe the strategy, not a band request; shares are of the default
//!   band table.
//! * Band mode ([`BenchConfig::bands`], `bench --difficulty`): for each band and each
//!   combination, every puzzle is made as `run::seed::make_seed` makes a seed:
//!   fill, draw a clue target inside the band, carve towards it, and start again until
//!   the clue count lands in the band. Rows count only puzzles that landed, with the
//!   latency and the attempts of all their tries, so puzzles/s is the rate of a bank
//!   of that band. Attempts are bounded: when one puzzle runs out of them (`minimal`
//!   never carves an easy puzzle) the whole combination stops and its row says
//!   `unreachable`, as `generate` would refuse it. Each band also gets a peer row:
//!   the `sudoku` crate 0.8 in the same pool (module `peer`, feature `sudoku-peer`);
//!   [`render_fastest`] names our fastest combination per band with its ratio to it.
//!
//! Architecture invariant: no I/O here. [`run`] measures inside whatever rayon pool it
//! is called in; the renderers return strings that `cmd::bench` writes.

#[cfg(feature = "sudoku-peer")]
pub mod peer;

use std::collections::HashSet;
use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use rand::Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::engine::bands::{BandTable, Scale};
use crate::engine::board::{Board, Rating};
use crate::engine::generate::{Carve, Fill, Symmetry};
use crate::engine::grid::Size;
use crate::run::rng::{item_rng, Purpose};
use crate::run::seed::{make_seed, Recipe};

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

/// Band mode: which bands to measure and how hard one puzzle may try to land in one.
#[derive(Clone, Debug)]
pub struct BandPlan {
    pub table: BandTable,
    /// Band indices of `table` to measure, in this order.
    pub selected: Vec<usize>,
    /// Fill-and-carve attempts one puzzle may take before its combination is declared
    /// unreachable for the band (`generate --max-attempts`).
    pub max_attempts: u32,
}

/// What to compare and how.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Board size; [`run`] must be called with the matching [`Board`]. The peer rows
    /// exist for 9×9 only (the `sudoku` crate makes nothing else).
    pub size: Size,
    pub fills: Vec<Fill>,
    pub carves: Vec<Carve>,
    pub budget: Budget,
    pub seed: u64,
    /// Reported only (the caller builds the pool); recorded so rows say how they ran.
    pub threads: usize,
    /// `Some` for band mode; `None` carves to the end (strategy mode).
    pub bands: Option<BandPlan>,
}

/// True when this build measures the `sudoku` crate as the peer of each band.
pub const HAS_PEER: bool = cfg!(feature = "sudoku-peer");

/// The peer's `fill` and `carve` names in the rows: the crate, and how it is used (its
/// `generate`, then clues added back up to the target).
pub const PEER_FILL: &str = "sudoku-crate";
pub const PEER_CARVE: &str = "generate+add";

/// What makes the puzzles of one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Maker {
    /// One of our fill × carve combinations.
    Ours(Fill, Carve),
    /// The `sudoku` crate 0.8, used as its users would ([`peer`]).
    #[cfg(feature = "sudoku-peer")]
    Peer,
}

impl Maker {
    /// The row's `fill` and `carve` names.
    pub fn names(self) -> (&'static str, &'static str) {
        match self {
            Maker::Ours(f, c) => (f.name(), c.name()),
            #[cfg(feature = "sudoku-peer")]
            Maker::Peer => (PEER_FILL, PEER_CARVE),
        }
    }
}

/// The fills compared when none is named: all but `digits`, which is slow by design.
pub fn default_fills() -> Vec<Fill> {
    Fill::ALL
        .into_iter()
        .filter(|f| *f != Fill::Digits)
        .collect()
}

/// What band mode adds to a row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BandFigures {
    /// The band every puzzle of the row was made for.
    pub band: String,
    /// False when a puzzle ran out of attempts: the combination stopped there, and the
    /// row's figures are all zero.
    pub reached: bool,
    /// Fill-and-carve attempts per landed puzzle, and the most one puzzle took (the
    /// bound itself when the band was not reached).
    pub attempts_mean: f64,
    pub attempts_max: u32,
}

/// What a row's puzzles rate (9×9: the technique rater after the timing, so the
/// speed columns do not include it).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingFigures {
    /// Mean SE rating of the puzzles.
    pub se_mean: f64,
    /// Share of the puzzles in each band of the default rating table.
    pub se_shares: Vec<(String, f64)>,
    /// Fill-and-carve time on one core per puzzle rated 5.0 or more, in
    /// microseconds: what a hard puzzle costs this way (`None`: none rated that high).
    pub us_per_se5: Option<f64>,
}

/// One combination's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    /// Band mode only; absent from the JSON in strategy mode.
    #[serde(flatten)]
    pub banded: Option<BandFigures>,
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
    pub clues_min: u16,
    pub clues_max: u16,
    /// Share of the puzzles in each band, in table order (the default table in strategy
    /// mode, the measured one in band mode).
    pub band_shares: Vec<(String, f64)>,
    /// Puzzles of the sample that are minimal, out of `minimal_checked`.
    pub minimal: u64,
    pub minimal_checked: u64,
    pub distinct_grids: u64,
    pub distinct_puzzles: u64,
    /// 9×9 only.
    pub ratings: Option<RatingFigures>,
}

/// One measured puzzle; `C` is the board's cells.
struct Sample<C> {
    /// Fill + carve of every attempt it took.
    nanos: u64,
    solution: C,
    puzzle: C,
    n_clues: u16,
    /// The SE rating in tenths, for rating bands.
    rating: Option<u8>,
    attempts: u32,
}

fn make<B: Board>(fill_with: Fill, carve_with: Carve, seed: u64, i: u64) -> Sample<B::Cells> {
    let mut rng = item_rng(seed, Purpose::Seed, i, 0);
    let start = Instant::now();
    // `black_box` on the way in and out: fill and carve are pure, so without it the
    // optimiser would be free to move them across the clock reads.
    let rng = black_box(&mut rng);
    let solution = black_box(B::fill(fill_with, rng));
    let outcome = black_box(B::carve(carve_with, 0, Symmetry::None, &solution, rng));
    let nanos = start.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64;
    Sample {
        nanos,
        solution,
        puzzle: outcome.puzzle,
        n_clues: outcome.n_clues,
        rating: None,
        attempts: 1,
    }
}

/// One try at band `lo..=hi`: fill, a target drawn inside the band, carve towards it
/// (the order of `run::seed::make_seed`). Returns the solution, the puzzle and its clues.
fn attempt<B: Board, R: Rng + ?Sized>(
    maker: Maker,
    lo: u16,
    hi: u16,
    rng: &mut R,
) -> (B::Cells, B::Cells, u16) {
    match maker {
        Maker::Ours(fill_with, carve_with) => {
            let solution = B::fill(fill_with, rng);
            let target = rng.random_range(lo..=hi);
            let out = B::carve(carve_with, target, Symmetry::None, &solution, rng);
            (solution, out.puzzle, out.n_clues)
        }
        #[cfg(feature = "sudoku-peer")]
        Maker::Peer => {
            // `run` adds peer rows on 9×9 only, where B::Cells is the crate's board.
            assert_eq!(
                B::SIZE,
                Size::Nine,
                "the sudoku crate makes 9x9 puzzles only"
            );
            let clamp = |v: u16| u8::try_from(v).unwrap_or(u8::MAX);
            let (solution, puzzle, n_clues) = peer::attempt(clamp(lo), clamp(hi), rng);
            let (mut s, mut p) = (B::empty(), B::empty());
            s.as_mut().copy_from_slice(&solution);
            p.as_mut().copy_from_slice(&puzzle);
            (s, p, u16::from(n_clues))
        }
    }
}

/// What one band's row aims at: who makes the puzzles, for which band of which plan,
/// from which seed.
struct Aim<'a> {
    maker: Maker,
    plan: &'a BandPlan,
    band: usize,
    seed: u64,
}

/// A puzzle that landed in its band: solution, puzzle, clues, rating, attempts taken.
type Landed<C> = (C, C, u16, Option<Rating>, u32);

/// Puzzle `i` of the band `aim` names: attempts until one lands. `None` when this
/// puzzle ran out of attempts (then it sets `gave_up`) or another one already had.
fn make_in_band<B: Board>(aim: &Aim<'_>, i: u64, gave_up: &AtomicBool) -> Option<Sample<B::Cells>> {
    if gave_up.load(Ordering::Relaxed) {
        return None;
    }
    let start = Instant::now();
    let landed = match aim.plan.table.scale() {
        Scale::Rating => land_rated::<B>(aim, i),
        Scale::Clues => land_by_clues::<B>(aim, i, gave_up),
    };
    let Some((solution, puzzle, n_clues, rating, attempts)) = black_box(landed) else {
        gave_up.store(true, Ordering::Relaxed);
        return None;
    };
    Some(Sample {
        nanos: start.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64,
        solution,
        puzzle,
        n_clues,
        rating: rating.map(|r| r.rating),
        attempts,
    })
}

/// [`make_in_band`] for a clue band: fill and carve towards the band until a puzzle's
/// clue count lands in it.
fn land_by_clues<B: Board>(
    aim: &Aim<'_>,
    i: u64,
    gave_up: &AtomicBool,
) -> Option<Landed<B::Cells>> {
    let spec = &aim.plan.table.bands()[aim.band];
    let mut rng = item_rng(aim.seed, Purpose::Seed, i, 0);
    for attempts in 1..=aim.plan.max_attempts {
        // Checked per attempt, so a combination that cannot reach the band stops within
        // one attempt per thread once any of its puzzles has given up.
        if gave_up.load(Ordering::Relaxed) {
            return None;
        }
        let (solution, puzzle, n_clues) = black_box(attempt::<B, _>(
            aim.maker,
            spec.lo,
            spec.hi,
            black_box(&mut rng),
        ));
        if aim.plan.table.accepts(aim.band, n_clues) {
            return Some((solution, puzzle, n_clues, None, attempts));
        }
    }
    None
}

/// [`make_in_band`] for a rating band. Our combinations make the puzzle exactly as
/// `generate --grade rating` makes a seed (`run::seed::make_seed`: carve to the end,
/// rate, bisect the clues put back). The `sudoku` crate cannot aim at a rating: its
/// row generates a puzzle (its minimal one), rates it and tries again until it lands,
/// which is what its users would have to do.
fn land_rated<B: Board>(aim: &Aim<'_>, i: u64) -> Option<Landed<B::Cells>> {
    let plan = aim.plan;
    match aim.maker {
        Maker::Ours(fill, carve) => {
            let selected = [aim.band];
            let recipe = Recipe {
                starts: &[],
                seed: aim.seed,
                fill,
                carve,
                symmetry: Symmetry::None,
                bands: &plan.table,
                selected: &selected,
                max_attempts: plan.max_attempts,
            };
            make_seed::<B>(&recipe, i, 0)
                .ok()
                .map(|s| (s.solution, s.puzzle, s.n_clues, s.rating, s.attempts))
        }
        #[cfg(feature = "sudoku-peer")]
        Maker::Peer => {
            let mut rng = item_rng(aim.seed, Purpose::Seed, i, 0);
            (1..=plan.max_attempts).find_map(|attempts| {
                let (solution, puzzle, n_clues) = attempt::<B, _>(aim.maker, 17, 17, &mut rng);
                let rating = B::rate(&puzzle)?;
                plan.table.accepts(aim.band, rating.rating).then_some((
                    solution,
                    puzzle,
                    n_clues,
                    Some(rating),
                    attempts,
                ))
            })
        }
    }
}

/// True when no single clue of `puzzle` can be removed without a second solution.
pub fn is_minimal<B: Board>(puzzle: &B::Cells) -> bool {
    let mut p = *puzzle;
    let givens = puzzle.as_ref();
    (0..givens.len()).filter(|&c| givens[c] != 0).all(|c| {
        p.as_mut()[c] = 0;
        let ambiguous = B::count_solutions(&p, 2) == 2;
        p.as_mut()[c] = givens[c];
        ambiguous
    })
}

/// Makes items `0, 1, ...` with `make` over the budget in the current rayon pool, in
/// index order, until the budget is spent or `stop` is set. Returns them and the wall
/// time in seconds.
fn collect<C: Send>(
    budget: Budget,
    stop: &AtomicBool,
    make: impl Fn(u64) -> Option<Sample<C>> + Sync,
) -> (Vec<Sample<C>>, f64) {
    let start = Instant::now();
    let samples = match budget {
        Budget::Count(n) => (0..n).into_par_iter().filter_map(&make).collect(),
        Budget::Time(limit) => {
            // Batches of a few items per thread keep the overshoot small; the first
            // is one item per thread, doubling up to four, so that items of minutes
            // (25x25 carved to the end) overshoot by one item, not four.
            let threads = rayon::current_num_threads() as u64;
            let mut batch = threads;
            let mut all = Vec::new();
            let mut next = 0u64;
            while !stop.load(Ordering::Relaxed) && (all.is_empty() || start.elapsed() < limit) {
                all.par_extend((next..next + batch).into_par_iter().filter_map(&make));
                next += batch;
                batch = (batch * 2).min(threads * 4);
            }
            all
        }
    };
    (samples, start.elapsed().as_secs_f64())
}

/// Measures one combination in strategy mode (carving to the end) in the current pool.
pub fn measure<B: Board>(fill_with: Fill, carve_with: Carve, config: &BenchConfig) -> BenchRow {
    let never = AtomicBool::new(false);
    let (samples, wall) = collect(config.budget, &never, |i| {
        Some(make::<B>(fill_with, carve_with, config.seed, i))
    });
    let maker = Maker::Ours(fill_with, carve_with);
    let table = BandTable::default_for(B::SIZE);
    summarise::<B>(maker, config.threads, wall, &samples, &table, None)
}

/// Measures what `maker` makes for band `band` of `plan` in the current pool: only
/// puzzles that landed count, and one that gives up stops the row (`reached: false`).
pub fn measure_band<B: Board>(
    maker: Maker,
    plan: &BandPlan,
    band: usize,
    config: &BenchConfig,
) -> BenchRow {
    let gave_up = AtomicBool::new(false);
    let aim = Aim {
        maker,
        plan,
        band,
        seed: config.seed,
    };
    let (samples, wall) = collect(config.budget, &gave_up, |i| {
        make_in_band::<B>(&aim, i, &gave_up)
    });
    let name = plan.table.bands()[band].name.clone();
    if gave_up.load(Ordering::Relaxed) {
        // Whatever landed before the stop is a scheduling accident, not a figure.
        let mut row = summarise::<B>(maker, config.threads, 0.0, &[], &plan.table, None);
        row.banded = Some(BandFigures {
            band: name,
            reached: false,
            attempts_mean: 0.0,
            attempts_max: plan.max_attempts,
        });
        return row;
    }
    summarise::<B>(
        maker,
        config.threads,
        wall,
        &samples,
        &plan.table,
        Some(name),
    )
}

fn summarise<B: Board>(
    maker: Maker,
    threads: usize,
    wall: f64,
    samples: &[Sample<B::Cells>],
    table: &BandTable,
    band: Option<String>,
) -> BenchRow {
    let n = samples.len() as u64;
    // Explicit bounds (1 ns to 1 hour): `saturating_record` clamps to the range the
    // histogram has, and an auto-resizing one starts with almost none.
    let mut hist = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3)
        .expect("valid bounds and significant figures");
    for s in samples {
        hist.saturating_record(s.nanos.max(1));
    }
    let mut per_band = vec![0u64; table.bands().len()];
    for s in samples {
        if let Some(b) = table.grade_puzzle(s.n_clues, s.rating) {
            per_band[b] += 1;
        }
    }
    let share = |k: u64| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    let checked = &samples[..samples.len().min(MINIMAL_SAMPLE)];
    let minimal = checked
        .par_iter()
        .filter(|s| is_minimal::<B>(&s.puzzle))
        .count() as u64;
    let (grids, puzzles): (Vec<B::Cells>, Vec<B::Cells>) = samples
        .par_iter()
        .map(|s| (B::canonical_form(&s.solution), B::canonical_form(&s.puzzle)))
        .unzip();
    let distinct = |v: Vec<B::Cells>| v.into_iter().collect::<HashSet<_>>().len() as u64;
    let us = |ns: u64| ns as f64 / 1000.0;
    debug_assert!(samples
        .iter()
        .all(|s| usize::from(s.n_clues) == s.puzzle.as_ref().iter().filter(|&&v| v != 0).count()));
    let banded = band.map(|band| BandFigures {
        band,
        reached: true,
        attempts_mean: share(samples.iter().map(|s| u64::from(s.attempts)).sum()),
        attempts_max: samples.iter().map(|s| s.attempts).max().unwrap_or(0),
    });
    let (fill_name, carve_name) = maker.names();
    let ratings = (B::SIZE == Size::Nine).then(|| {
        // Rated after the timing; a rating band's puzzles come rated.
        let rated: Vec<u8> = samples
            .par_iter()
            .filter_map(|s| {
                s.rating
                    .or_else(|| B::rate_solved(&s.puzzle, &s.solution, u8::MAX).map(|r| r.rating))
            })
            .collect();
        let scale = BandTable::default_rating();
        let k = rated.len() as f64;
        let of = |count: usize| if k == 0.0 { 0.0 } else { count as f64 / k };
        let hard = rated.iter().filter(|&&r| r >= 50).count();
        let nanos: u64 = samples.iter().map(|s| s.nanos).sum();
        RatingFigures {
            se_mean: of(rated.iter().map(|&r| usize::from(r)).sum()) / 10.0,
            se_shares: (0..scale.bands().len())
                .map(|b| {
                    let count = rated
                        .iter()
                        .filter(|&&r| scale.grade(u16::from(r)) == Some(b))
                        .count();
                    (scale.bands()[b].name.clone(), of(count))
                })
                .collect(),
            us_per_se5: (hard > 0).then(|| nanos as f64 / 1000.0 / hard as f64),
        }
    });
    BenchRow {
        banded,
        fill: fill_name,
        carve: carve_name,
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
        ratings,
    }
}

/// Measures every combination, fills outer, calling `on_row` after each (progress).
/// In band mode bands are outermost, and each band ends with the peer's row when this
/// build has it ([`HAS_PEER`]).
pub fn run<B: Board>(config: &BenchConfig, mut on_row: impl FnMut(&BenchRow)) -> Vec<BenchRow> {
    let mut rows = Vec::new();
    let mut push = |row: BenchRow| {
        on_row(&row);
        rows.push(row);
    };
    match &config.bands {
        None => {
            for &f in &config.fills {
                for &c in &config.carves {
                    push(measure::<B>(f, c, config));
                }
            }
        }
        Some(plan) => {
            for &band in &plan.selected {
                for &f in &config.fills {
                    for &c in &config.carves {
                        push(measure_band::<B>(Maker::Ours(f, c), plan, band, config));
                    }
                }
                #[cfg(feature = "sudoku-peer")]
                if B::SIZE == Size::Nine {
                    push(measure_band::<B>(Maker::Peer, plan, band, config));
                }
            }
        }
    }
    rows
}

/// A rate for a sentence: `41.2k/s`.
fn human_rate(per_second: f64) -> String {
    format!("{}/s", crate::util::text::short(per_second))
}

/// One line per band of band-mode rows, in their order: the fastest of our
/// combinations that reached it, and its ratio to the `sudoku` crate's row, e.g.
/// `fastest in medium: mrv+target 41.2k/s, 3.1× the sudoku crate (13.3k/s)`.
/// When that combination repeats solution grids (`template`: one grid class in
/// disguise), the line goes on with the fastest whose grids are all distinct.
/// Empty for strategy-mode rows.
pub fn render_fastest(rows: &[BenchRow]) -> String {
    let mut bands: Vec<&str> = Vec::new();
    for r in rows {
        if let Some(b) = &r.banded {
            if !bands.contains(&b.band.as_str()) {
                bands.push(&b.band);
            }
        }
    }
    let mut out = String::new();
    for band in bands {
        let in_band = |r: &&BenchRow| r.banded.as_ref().is_some_and(|b| b.band == band);
        let reached = |r: &&BenchRow| r.banded.as_ref().is_some_and(|b| b.reached);
        let is_peer = |r: &&BenchRow| r.fill == PEER_FILL && r.carve == PEER_CARVE;
        let fastest = |diverse_only: bool| {
            rows.iter()
                .filter(in_band)
                .filter(reached)
                .filter(|r| !is_peer(r))
                .filter(|r| !diverse_only || r.distinct_grids == r.puzzles)
                .max_by(|a, b| a.puzzles_per_second.total_cmp(&b.puzzles_per_second))
        };
        let peer = rows.iter().filter(in_band).find(is_peer);
        // "mrv+target 41.2k/s, 3.1× the sudoku crate (13.3k/s)"
        let describe = |r: &BenchRow| {
            let mut s = format!(
                "{}+{} {}",
                r.fill,
                r.carve,
                human_rate(r.puzzles_per_second)
            );
            match peer {
                Some(p) if reached(&p) => {
                    let _ = write!(
                        s,
                        ", {:.1}× the sudoku crate ({})",
                        r.puzzles_per_second / p.puzzles_per_second,
                        human_rate(p.puzzles_per_second)
                    );
                }
                _ => {}
            }
            s
        };
        let _ = write!(out, "fastest in {band}: ");
        match fastest(false) {
            Some(r) => {
                out.push_str(&describe(r));
                if r.distinct_grids < r.puzzles {
                    match fastest(true) {
                        Some(d) => {
                            let _ = write!(out, "; with all grids distinct: {}", describe(d));
                        }
                        None => out.push_str("; none with all grids distinct"),
                    }
                }
            }
            None => out.push_str("no combination reached it"),
        }
        match peer {
            // With the feature, only a size the crate does not make lacks the row.
            None if HAS_PEER => out.push_str(" (no sudoku crate row: it makes 9x9 puzzles only)"),
            None => out.push_str(" (no sudoku crate row: built without the sudoku-peer feature)"),
            Some(p) if !reached(&p) => {
                let attempts = p.banded.as_ref().map_or(0, |b| b.attempts_max);
                let _ = write!(
                    out,
                    "; the sudoku crate did not reach it in {attempts} attempts"
                );
            }
            Some(p) if fastest(false).is_none() => {
                let _ = write!(
                    out,
                    "; the sudoku crate: {}",
                    human_rate(p.puzzles_per_second)
                );
            }
            Some(_) => {}
        }
        out.push('\n');
    }
    out
}

/// True for band-mode rows (they get the `band`, attempts and `status` columns).
fn banded(rows: &[BenchRow]) -> bool {
    rows.first().is_some_and(|r| r.banded.is_some())
}

/// Column headers of the text table and the CSV, in order.
fn header(rows: &[BenchRow]) -> Vec<String> {
    let mut h: Vec<String> = Vec::new();
    if banded(rows) {
        h.push("band".to_string());
    }
    h.extend(["fill", "carve", "threads", "puzzles"].map(String::from));
    if banded(rows) {
        h.extend(["attempts_mean", "attempts_max"].map(String::from));
    }
    h.extend(
        [
            "puzzles/s",
            "p50_us",
            "p99_us",
            "max_us",
            "clues_mean",
            "clues_min",
            "clues_max",
        ]
        .map(String::from),
    );
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
    if rows.first().is_some_and(|r| r.ratings.is_some()) {
        h.push("se_mean".to_string());
        h.extend(
            BandTable::default_rating()
                .bands()
                .iter()
                .map(|b| format!("se_{}_%", b.name)),
        );
        h.push("us_per_se5".to_string());
    }
    h.extend(
        ["minimal", "distinct_grids", "distinct_puzzles"]
            .iter()
            .map(|s| s.to_string()),
    );
    if banded(rows) {
        h.push("status".to_string());
    }
    h
}

/// A row's cells. The figures of a band that was not reached are `missing` ("-" in
/// the table, empty in the CSV, so that a reader sees no number rather than a 0).
fn cells(r: &BenchRow, missing: &str) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(b) = &r.banded {
        v.push(b.band.clone());
    }
    v.extend([
        r.fill.to_string(),
        r.carve.to_string(),
        r.threads.to_string(),
    ]);
    let figures_from = v.len();
    v.push(r.puzzles.to_string());
    if let Some(b) = &r.banded {
        v.push(format!("{:.2}", b.attempts_mean));
        v.push(b.attempts_max.to_string());
    }
    v.extend([
        format!("{:.1}", r.puzzles_per_second),
        format!("{:.1}", r.p50_us),
        format!("{:.1}", r.p99_us),
        format!("{:.1}", r.max_us),
        format!("{:.2}", r.clues_mean),
        r.clues_min.to_string(),
        r.clues_max.to_string(),
    ]);
    v.extend(
        r.band_shares
            .iter()
            .map(|(_, s)| format!("{:.1}", s * 100.0)),
    );
    if let Some(se) = &r.ratings {
        v.push(format!("{:.2}", se.se_mean));
        v.extend(
            se.se_shares
                .iter()
                .map(|(_, s)| format!("{:.1}", s * 100.0)),
        );
        v.push(
            se.us_per_se5
                .map_or(missing.to_string(), |us| format!("{us:.0}")),
        );
    }
    v.push(format!("{}/{}", r.minimal, r.minimal_checked));
    v.push(r.distinct_grids.to_string());
    v.push(r.distinct_puzzles.to_string());
    if let Some(b) = &r.banded {
        if b.reached {
            v.push("ok".to_string());
        } else {
            // Keep the bound that was hit: it says how hard the combination tried.
            let bound = figures_from + 2;
            for (k, cell) in v.iter_mut().enumerate().skip(figures_from) {
                if k != bound {
                    *cell = missing.to_string();
                }
            }
            v.push("unreachable".to_string());
        }
    }
    v
}

fn records(rows: &[BenchRow], missing: &str) -> Vec<Vec<String>> {
    std::iter::once(header(rows))
        .chain(rows.iter().map(|r| cells(r, missing)))
        .collect()
}

/// The rows as CSV records, header first (the caller feeds a `csv::Writer`).
pub fn csv_records(rows: &[BenchRow]) -> Vec<Vec<String>> {
    records(rows, "")
}

/// The rows as an aligned text table: names left-aligned, numbers right-aligned.
pub fn render_table(rows: &[BenchRow]) -> String {
    let records = records(rows, "-");
    let names = if banded(rows) { 3 } else { 2 };
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
                if c < names || c + 1 == n_cols && banded(rows) {
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

/// A row's name on the chart: `fill+carve`, after its band in band mode.
fn label(r: &BenchRow) -> String {
    match &r.banded {
        Some(b) => format!("{} {}+{}", b.band, r.fill, r.carve),
        None => format!("{}+{}", r.fill, r.carve),
    }
}

/// The angle of the bar labels, clockwise from horizontal, in degrees.
const LABEL_ANGLE: f64 = 60.0;

/// How far a rotated label of `chars` characters reaches right and down from its
/// anchor: 11 px sans-serif is at most about 6.5 px per character.
fn label_extent(chars: usize) -> (f64, f64) {
    let length = 6.5 * chars as f64;
    let angle = LABEL_ANGLE.to_radians();
    (length * angle.cos(), length * angle.sin())
}

/// Reads one figure of a row, for a chart panel.
type Metric = fn(&BenchRow) -> f64;

/// The colours of the rating bands' shares, easiest first (a sequential ramp).
const BAND_COLOURS: [&str; 6] = [
    "#c6dbef", "#9ecae1", "#6baed6", "#3182bd", "#08519c", "#08306b",
];

/// The bar chart, one bar per combination: puzzles/s and mean clues; when the rows
/// are rated (9×9), also their mean SE rating, the puzzles rated 5.0+ made per
/// core-second, and each row's puzzles split by default rating band (stacked).
pub fn render_svg(rows: &[BenchRow]) -> String {
    const BAR: f64 = 28.0;
    const GAP: f64 = 10.0;
    const LEFT: f64 = 60.0;
    const PANEL: f64 = 180.0;
    let rated = rows.iter().any(|r| r.ratings.is_some());
    let mut panels: Vec<(&str, &str, Metric)> = vec![
        ("puzzles/s", "#4878cf", |r| r.puzzles_per_second),
        ("mean clues", "#d65f5f", |r| r.clues_mean),
    ];
    if rated {
        panels.push(("mean SE rating", "#6acc65", |r| {
            r.ratings.as_ref().map_or(0.0, |x| x.se_mean)
        }));
        panels.push(("puzzles rated 5.0+ per core-second", "#b47cc7", |r| {
            r.ratings
                .as_ref()
                .and_then(|x| x.us_per_se5)
                .map_or(0.0, |us| 1e6 / us)
        }));
    }
    let n_panels = panels.len() + usize::from(rated);
    // Room for every rotated label, below and to the right of its bar: the last
    // label reaches past the last bar (issue #11: it was cut off).
    let centre = |i: usize| LEFT + i as f64 * (BAR + GAP) + BAR / 2.0;
    let (mut right, mut down) = (0.0f64, 0.0f64);
    for (i, r) in rows.iter().enumerate() {
        let (dx, dy) = label_extent(label(r).len());
        right = right.max(centre(i) + dx);
        down = down.max(dy);
    }
    let labels = f64::max(110.0, 20.0 + down);
    let width = f64::max(
        LEFT + rows.len().max(1) as f64 * (BAR + GAP) + 20.0,
        right + 10.0,
    );
    // Room for the band legend beside the last panel's title.
    let width = if rated {
        width.max(LEFT + 610.0)
    } else {
        width
    };
    let height = 40.0 + n_panels as f64 * (PANEL + 40.0) + labels;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let axis = |s: &mut String, title: &str, top: f64| {
        let base = top + PANEL;
        let _ = writeln!(
            s,
            r#"<text x="10" y="{:.0}" font-size="13" font-weight="bold">{title}</text>"#,
            top - 10.0
        );
        let _ = writeln!(
            s,
            r#"<line x1="{LEFT}" y1="{base}" x2="{:.0}" y2="{base}" stroke="black"/>"#,
            width - 10.0
        );
    };
    for (k, (title, colour, value)) in panels.iter().enumerate() {
        let top = 40.0 + k as f64 * (PANEL + 40.0);
        let base = top + PANEL;
        let max = rows.iter().map(value).fold(0.0, f64::max);
        // Small figures (a mean rating) keep a decimal on their bars.
        let digits = usize::from(max < 100.0);
        axis(&mut s, &format!("{title} (max {max:.1})"), top);
        for (i, r) in rows.iter().enumerate() {
            let v = value(r);
            let h = if max > 0.0 { v / max * PANEL } else { 0.0 };
            let x = LEFT + i as f64 * (BAR + GAP);
            let _ = writeln!(
                s,
                r#"<rect x="{x:.1}" y="{:.1}" width="{BAR}" height="{h:.1}" fill="{colour}"><title>{}: {v:.1}</title></rect>"#,
                base - h,
                label(r)
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="9">{v:.digits$}</text>"#,
                x + BAR / 2.0,
                base - h - 3.0
            );
        }
    }
    if rated {
        // Each row's puzzles by default rating band, stacked from the easiest up to
        // 100 %, with a legend of the bands.
        let top = 40.0 + panels.len() as f64 * (PANEL + 40.0);
        let base = top + PANEL;
        axis(&mut s, "share per rating band (default table)", top);
        let names: Vec<&str> = rows
            .iter()
            .find_map(|r| r.ratings.as_ref())
            .map(|x| x.se_shares.iter().map(|(n, _)| n.as_str()).collect())
            .unwrap_or_default();
        for (j, name) in names.iter().enumerate() {
            let x = 300.0 + j as f64 * 75.0;
            let colour = BAND_COLOURS[j.min(BAND_COLOURS.len() - 1)];
            let _ = writeln!(
                s,
                r#"<rect class="legend" x="{x:.0}" y="{:.0}" width="10" height="10" fill="{colour}"/><text x="{:.0}" y="{:.0}">{name}</text>"#,
                top - 20.0,
                x + 14.0,
                top - 11.0
            );
        }
        for (i, r) in rows.iter().enumerate() {
            let Some(x) = &r.ratings else { continue };
            let left = LEFT + i as f64 * (BAR + GAP);
            let mut y = base;
            for (j, (name, share)) in x.se_shares.iter().enumerate() {
                let h = share * PANEL;
                y -= h;
                let colour = BAND_COLOURS[j.min(BAND_COLOURS.len() - 1)];
                let _ = writeln!(
                    s,
                    r#"<rect class="share" x="{left:.1}" y="{y:.1}" width="{BAR}" height="{h:.1}" fill="{colour}"><title>{}: {name} {:.0} %</title></rect>"#,
                    label(r),
                    100.0 * share
                );
            }
        }
    }
    let label_top = 40.0 + n_panels as f64 * (PANEL + 40.0) - 30.0;
    for (i, r) in rows.iter().enumerate() {
        let x = centre(i);
        let _ = writeln!(
            s,
            r#"<text x="{x:.1}" y="{label_top:.1}" transform="rotate({LABEL_ANGLE} {x:.1} {label_top:.1})">{}</text>"#,
            label(r)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Nine;
    use crate::engine::grid::N_CELLS;

    fn config(fills: Vec<Fill>, carves: Vec<Carve>, n: u64) -> BenchConfig {
        BenchConfig {
            size: Size::Nine,
            fills,
            carves,
            budget: Budget::Count(n),
            seed: 7,
            threads: 1,
            bands: None,
        }
    }

    fn band_config(carves: Vec<Carve>, n: u64, max_attempts: u32) -> BenchConfig {
        let table = BandTable::default_9x9();
        BenchConfig {
            bands: Some(BandPlan {
                selected: table.select("any").expect("known bands"),
                table,
                max_attempts,
            }),
            ..config(vec![Fill::Mrv], carves, n)
        }
    }

    #[test]
    fn band_mode_lands_every_puzzle_in_its_band() {
        let c = band_config(vec![Carve::Target], 6, 10_000);
        let rows = run::<Nine>(&c, |_| {});
        let per_band = 1 + usize::from(HAS_PEER);
        assert_eq!(rows.len(), 4 * per_band);
        let table = BandTable::default_9x9();
        for (k, r) in rows.iter().enumerate() {
            let b = r.banded.as_ref().expect("band mode rows");
            let band = &table.bands()[k / per_band];
            assert_eq!(b.band, band.name);
            assert!(b.reached, "{}+{} in {}", r.fill, r.carve, b.band);
            assert_eq!(r.puzzles, 6);
            assert!(band.lo <= r.clues_min && r.clues_max <= band.hi, "{r:?}");
            let share = r.band_shares[k / per_band].1;
            assert!((share - 1.0).abs() < 1e-9, "{r:?}");
            assert!(b.attempts_mean >= 1.0 && b.attempts_max >= 1);
        }
        let fastest = render_fastest(&rows);
        assert_eq!(fastest.lines().count(), 4);
        assert!(
            fastest.starts_with("fastest in easy: mrv+target "),
            "{fastest}"
        );
        if HAS_PEER {
            assert!(rows[1].fill == PEER_FILL && rows[1].carve == PEER_CARVE);
            assert!(fastest.contains("× the sudoku crate"), "{fastest}");
        }
    }

    #[test]
    fn an_unreachable_band_stops_after_its_attempts() {
        let mut c = band_config(vec![Carve::Minimal], 50, 5);
        let plan = c.bands.as_mut().expect("band mode");
        plan.selected = vec![0];
        let rows = run::<Nine>(&c, |_| {});
        let r = &rows[0];
        let b = r.banded.as_ref().expect("band mode rows");
        assert_eq!(
            (b.band.as_str(), b.reached, b.attempts_max),
            ("easy", false, 5)
        );
        assert_eq!(r.puzzles, 0);
        let table = render_table(&rows);
        let line = table.lines().nth(1).expect("one row");
        assert!(
            line.ends_with("unreachable") && line.contains(" - "),
            "{line}"
        );
        let csv = csv_records(&rows);
        assert_eq!(csv[1].last().map(String::as_str), Some("unreachable"));
        assert!(render_fastest(&rows).contains("fastest in easy: no combination reached it"));
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
        let rows = run::<Nine>(&c, |_| seen += 1);
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
            // What the puzzles rate: shares of the default rating table, a mean on
            // the scale, a cost per 5.0+ puzzle exactly when there is one.
            let se = r.ratings.as_ref().expect("9x9 rows are rated");
            let total: f64 = se.se_shares.iter().map(|(_, s)| s).sum();
            assert!((total - 1.0).abs() < 1e-9, "{total}");
            assert!((1.0..=9.5).contains(&se.se_mean), "{}", se.se_mean);
            let hard: f64 = se.se_shares[3..].iter().map(|(_, s)| s).sum();
            assert_eq!(se.us_per_se5.is_some(), hard > 0.0, "{se:?}");
        }
        // Minimal carving yields minimal puzzles, by definition.
        assert_eq!(rows[0].minimal, 12);
        // One pattern grid: one class; backtracking: all different.
        assert_eq!(rows[2].distinct_grids, 1);
        assert_eq!(rows[0].distinct_grids, 12);
    }

    #[test]
    fn same_seed_same_puzzles() {
        let a = make::<Nine>(Fill::Mrv, Carve::Target, 3, 5);
        let b = make::<Nine>(Fill::Mrv, Carve::Target, 3, 5);
        assert_eq!(a.puzzle, b.puzzle);
        assert_ne!(
            a.puzzle,
            make::<Nine>(Fill::Mrv, Carve::Target, 3, 6).puzzle
        );
    }

    #[test]
    fn minimality_check_sees_a_redundant_clue() {
        let s = make::<Nine>(Fill::Backtrack, Carve::Minimal, 1, 0);
        assert!(is_minimal::<Nine>(&s.puzzle));
        let mut more = s.puzzle;
        let c = (0..N_CELLS).find(|&c| more[c] == 0).expect("a carved cell");
        more[c] = s.solution[c];
        assert!(!is_minimal::<Nine>(&more));
    }

    #[test]
    fn time_budget_makes_at_least_one_batch() {
        let mut c = config(vec![Fill::Template], vec![Carve::Target], 0);
        c.budget = Budget::Time(Duration::from_millis(1));
        let r = measure::<Nine>(Fill::Template, Carve::Target, &c);
        assert!(r.puzzles >= 1);
    }

    /// The rows of the template fill with every carve, `n` puzzles each.
    fn template_with_every_carve(n: u64) -> Vec<BenchRow> {
        run::<Nine>(
            &config(vec![Fill::Template], Carve::ALL.to_vec(), n),
            |_| {},
        )
    }

    #[test]
    fn renderers_show_every_row() {
        let rows = template_with_every_carve(3);
        let table = render_table(&rows);
        assert_eq!(table.lines().count(), 1 + rows.len());
        assert!(table.lines().all(|l| !l.ends_with(' ')));
        let records = csv_records(&rows);
        assert!(records.iter().all(|r| r.len() == records[0].len()));
        let svg = render_svg(&rows);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        // 9×9 rows are rated: four panels of bars (speed, clues, mean SE, 5.0+ per
        // core-second), then each row's band shares stacked to the panel's height.
        assert!(rows.iter().all(|r| r.ratings.is_some()));
        assert_eq!(svg.matches("<rect x=").count(), 4 * rows.len());
        assert!(svg.contains("share per rating band"));
        for r in &rows {
            let stacked: f64 = svg
                .lines()
                .filter(|l| l.starts_with("<rect class=\"share\""))
                .filter(|l| l.contains(&format!("<title>{}: ", label(r))))
                .map(|l| attr(l, "height"))
                .sum();
            assert!((stacked - 180.0).abs() < 0.5, "{}: {stacked}", label(r));
        }
    }

    /// The value of attribute `name` in `tag`.
    fn attr(tag: &str, name: &str) -> f64 {
        let at = tag.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
        tag[at..].split('"').next().unwrap().parse().unwrap()
    }

    #[test]
    fn every_bar_label_fits_on_the_canvas() {
        // Regression (issue #11): the last rotated label ran past the right edge.
        let rows = template_with_every_carve(2);
        let svg = render_svg(&rows);
        let header = svg.lines().next().unwrap();
        let (width, height) = (attr(header, "width"), attr(header, "height"));
        let labels: Vec<&str> = svg.lines().filter(|l| l.contains("rotate(")).collect();
        assert_eq!(labels.len(), rows.len());
        for line in labels {
            let text = line.split('>').nth(1).unwrap().trim_end_matches("</text");
            let (dx, dy) = label_extent(text.len());
            let (x, y) = (attr(line, "x"), attr(line, "y"));
            assert!(
                x + dx <= width && y + dy <= height,
                "{line} in {width}x{height}"
            );
        }
    }
}
