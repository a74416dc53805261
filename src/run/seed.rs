//! Making one seed puzzle of a run, the expensive way: fill a complete grid, carve it
//! towards a clue count drawn from the seed's band, and start again from a new grid
//! until the puzzle lands in the band; then its canonical form.
//!
//! With rating bands (`--grade rating`) the target is a technique rating, which no
//! carve can aim at directly. Each attempt carves to the end (`--carve` with no clue
//! target: a minimal puzzle for `minimal`/`target`) and rates it. Ratings only fall
//! as clues come back, and every puzzle between the minimal one and the full grid is
//! still uniquely solvable (a superset of a unique puzzle's clues), so a rating above
//! the band is walked down: the removed cells (whole orbits with `--symmetry`) go back
//! in a random order, and a bisection over how many go back finds where the rating
//! crosses into the band, in about log2(60) ≈ 6 ratings of easier and easier puzzles.
//! A minimal puzzle rated below the band is a failed attempt; so is a crossing that
//! jumps over the band (ratings are not strictly monotone). Only hard bands pay many
//! attempts: they need a hard minimal puzzle to start from. The top bands (a floor
//! of [`CLIMB_FROM`] or more, without `--symmetry`) do not throw away a minimal
//! puzzle rated a little below them: they search its neighbourhood ([`climb`]),
//! where hard puzzles sit near hard puzzles. With `--from`, every attempt of a
//! rating band climbs from one of the puzzles given ([`StartPuzzle`]) instead, and
//! lands on none of their canonical classes. Seed `j` of round
//! `round` draws only from its own stream (`rng::item_rng(seed, Seed, j, round)`), so
//! it is the same whichever thread makes it. The pipeline decides which seeds to make
//! and which duplicates to replace; this module makes one.

use std::time::{Duration, Instant};

use rand::Rng;

use rand::seq::SliceRandom;

use crate::bank::format::SeedPuzzle;
use crate::engine::bands::{rating_steps, BandTable, Scale};
use crate::engine::board::{Board, Rating};
use crate::engine::generate::{Carve, Fill, Symmetry};
use crate::engine::nxn::MAX_CELLS;
use crate::run::rng::{item_rng, Purpose};

/// What making a seed needs of a run's plan.
#[derive(Clone, Copy, Debug)]
pub struct Recipe<'a> {
    /// The run's `--seed`.
    pub seed: u64,
    pub fill: Fill,
    pub carve: Carve,
    pub symmetry: Symmetry,
    pub bands: &'a BandTable,
    /// Band indices to produce, in equal shares (seed `j` gets `selected[j % len]`).
    pub selected: &'a [usize],
    /// Fill-and-carve attempts allowed for one seed to land in its band.
    pub max_attempts: u32,
    /// `--from`: the puzzles the rating bands' climbs start from, instead of random
    /// minimal ones (empty: from scratch).
    pub starts: &'a [StartPuzzle],
}

/// A puzzle of `--from`, which the climbs of a rating band start from: its cells,
/// solution and canonical form (none of the puzzles found may be one of them in
/// disguise), and its rating, found the first time a seed draws it (the same
/// whichever thread does).
#[derive(Debug)]
pub struct StartPuzzle {
    pub puzzle: Vec<u8>,
    pub solution: Vec<u8>,
    pub canonical: Vec<u8>,
    rating: std::sync::OnceLock<Option<Rating>>,
}

impl StartPuzzle {
    /// The start `puzzle` of board `B`, or `None` when it is not uniquely solvable.
    pub fn new<B: Board>(puzzle: &B::Cells) -> Option<StartPuzzle> {
        let crate::engine::board::Verdict::Unique(solution) = B::solve(puzzle) else {
            return None;
        };
        Some(StartPuzzle {
            puzzle: puzzle.as_ref().to_vec(),
            solution: solution.as_ref().to_vec(),
            canonical: B::canonical_form(puzzle).as_ref().to_vec(),
            rating: std::sync::OnceLock::new(),
        })
    }

    /// Its cells and solution as boards of `B`.
    fn cells<B: Board>(&self) -> (B::Cells, B::Cells) {
        let (mut puzzle, mut solution) = (B::empty(), B::empty());
        puzzle.as_mut().copy_from_slice(&self.puzzle);
        solution.as_mut().copy_from_slice(&self.solution);
        (puzzle, solution)
    }
}

/// The digest of `starts`, the puzzles of a `--from` file in order (their cells
/// only: comments, blank lines and the fields after a puzzle do not count), as the
/// manifest records it: 32 hex digits of XXH3-128. A run resumes only from the
/// same puzzles in the same order, since its seeds draw starts by index.
pub fn starts_digest(starts: &[StartPuzzle]) -> String {
    let mut h = twox_hash::XxHash3_128::new();
    for s in starts {
        h.write(&s.puzzle);
    }
    format!("{:032x}", h.finish_128())
}

/// A seed that did not land in its band within the attempts allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "band {band:?} ({range} {scale}) was not reached in {} with --carve {carve}; {hint}",
    crate::util::text::counted(*.attempts, "attempt")
)]
pub struct BandUnreachable {
    pub band: String,
    /// The band's range as `--bands` writes it.
    pub range: String,
    /// `clues` or `rating`.
    pub scale: &'static str,
    pub attempts: u32,
    pub carve: &'static str,
    pub hint: String,
}

/// Makes seed `j` in replacement round `round`: fill, then carve until it lands in
/// its band, at most `max_attempts` times.
pub fn make_seed<B: Board>(
    recipe: &Recipe<'_>,
    j: u64,
    round: u32,
) -> Result<SeedPuzzle<B::Cells>, BandUnreachable> {
    let band = recipe.selected[(j % recipe.selected.len() as u64) as usize];
    let spec = &recipe.bands.bands()[band];
    let mut rng = item_rng(recipe.seed, Purpose::Seed, j, round);
    if recipe.bands.scale() == Scale::Rating {
        return make_rated_seed::<B>(recipe, band, &mut rng);
    }
    let (mut fill_time, mut carve_time) = (Duration::ZERO, Duration::ZERO);
    // The clue counts the attempts reached, for the hint if none lands.
    let (mut fewest, mut most) = (u16::MAX, 0);
    for attempt in 1..=recipe.max_attempts {
        let t0 = Instant::now();
        let solution = B::fill(recipe.fill, &mut rng);
        let t1 = Instant::now();
        let target = rng.random_range(spec.lo..=spec.hi);
        let out = B::carve(recipe.carve, target, recipe.symmetry, &solution, &mut rng);
        let t2 = Instant::now();
        fill_time += t1 - t0;
        carve_time += t2 - t1;
        (fewest, most) = (fewest.min(out.n_clues), most.max(out.n_clues));
        if recipe.bands.accepts(band, out.n_clues) {
            let canonical = B::canonical_form(&out.puzzle);
            return Ok(SeedPuzzle {
                puzzle: out.puzzle,
                solution,
                canonical,
                key: None,
                n_clues: out.n_clues,
                band: band as u8,
                rating: None,
                attempts: attempt,
                fill_time,
                carve_time,
                rate_time: Duration::ZERO,
                canon_time: t2.elapsed(),
            });
        }
    }
    Err(BandUnreachable {
        band: spec.name.clone(),
        range: recipe.bands.range_text(band),
        scale: "clues",
        attempts: recipe.max_attempts,
        carve: recipe.carve.name(),
        hint: clue_hint(recipe, spec.lo, fewest, most),
    })
}

/// Why no attempt landed in a clue band `lo..` (the attempts made `fewest..=most`
/// clues), and what to change.
fn clue_hint(recipe: &Recipe<'_>, lo: u16, fewest: u16, most: u16) -> String {
    let orbits = match recipe.symmetry {
        Symmetry::None => String::new(),
        Symmetry::Rot90 => " (--symmetry rot90 removes clues 4 at a time)".to_string(),
        s => format!(" (--symmetry {} removes clues 2 at a time)", s.name()),
    };
    if most < lo {
        // Every attempt stopped below the band.
        match recipe.carve {
            Carve::Minimal => format!(
                "these minimal puzzles had {fewest}-{most} clues, fewer than the band; try --carve target"
            ),
            _ => format!("the puzzles had {fewest}-{most} clues, fewer than the band; widen it"),
        }
    } else if fewest >= lo {
        // Rare, or only too few attempts (regression: 20 attempts at the default
        // expert band, which takes about 5 on average, blamed the band alone).
        format!(
            "the sparsest of them had {fewest} clues{orbits}: raise --max-attempts (now {}) or widen the band",
            recipe.max_attempts
        )
    } else {
        format!(
            "clue counts went from {fewest} to {most} but skipped the band{orbits}; raise --max-attempts (now {}) or widen it",
            recipe.max_attempts
        )
    }
}

/// Bands starting at this rating (tenths) or higher rate the minimal puzzle first:
/// many minimal puzzles rate below 2.5, so an attempt that cannot land is dropped
/// after one rating. Lower bands skip it: nearly every minimal puzzle rates above
/// them, and rating a minimal puzzle (chains, often) costs more than the bisection.
const RATE_MINIMAL_FROM: u16 = 25;

/// Random orders of putting clues back tried per minimal puzzle that rates above the
/// band: the crossing point differs from order to order, and a new order is cheaper
/// than a new hard minimal puzzle. Measured on `generate --grade rating --count 4000`
/// (diabolical seeds/s per core): 1 order 170, 3 orders 183, 6 orders 132.
const ORDERS_PER_PUZZLE: u32 = 3;

/// Attempts at one rating step of an `:even` band before another is drawn: a step
/// few carves land on (a 1.7, a 6.2) costs at most this many, and stays in the
/// draw, so its share falls short of an even one only where it is that rare.
const TRIES_PER_STEP: u32 = 16;

/// Bands whose floor is at least this rating (tenths) climb: a minimal puzzle rated
/// below the band, but within [`CLIMB_BELOW`] of its floor, is the start of a search
/// of its neighbourhood (see [`climb`]) instead of a failed attempt. Measured
/// (seeds per CPU second, one thread): `top=9.0-9.5` 2.05× faster, `8.5-9.5` 1.44×,
/// `8.0-9.5` 1.03×; from 7.0 the default `extreme=7.0+` would be 1.10× slower (it
/// lands by walking minimal puzzles down, which the climbs' ratings only delay).
const CLIMB_FROM: u16 = 80;
/// How far below a top band's floor (tenths) a minimal puzzle may rate and still be
/// climbed from.
const CLIMB_BELOW: u16 = 15;
/// A climb ends after this many moves in a row without a rise. Measured (puzzles
/// rated 9.3 or more found by climbs from minimal puzzles rated 8.0 or more, one
/// core, 120 s each): 100 moves 5, 300 moves 10, 1,000 moves 7, 3,000 moves 7; the
/// fixed 60 moves of 0.4.12 found none in 10,000 attempts.
const CLIMB_STALL: u32 = 300;
/// Cells put in, at most, to make a move's puzzle unique again.
const CLIMB_ADDS: usize = 5;

/// Searches the neighbourhood of `start` (a minimal puzzle rated `rating`, below the
/// band) for a puzzle that `fits` the band. A move takes one or two givens out (even
/// odds), puts other cells of `solution` in, at random, until the puzzle is uniquely
/// solvable again (at most [`CLIMB_ADDS`]), then takes out every given it can without
/// losing that, in a random order: a minimal puzzle next to the current one. It
/// becomes the current one when rated no lower (and at most `top`, with a clue count
/// in `clue_range`): the climb walks the plateaus of its rating, where the way up
/// is. The search stops at the first that fits, or after [`CLIMB_STALL`] moves in a
/// row without a rise. Draws only from `rng`, so it is deterministic.
fn climb<B: Board>(
    start: &B::Cells,
    rating: Rating,
    solution: &B::Cells,
    (top, clue_range): (u16, (usize, usize)),
    fits: &dyn Fn(&Rating) -> bool,
    rate: &mut dyn FnMut(&B::Cells) -> Option<Rating>,
    rng: &mut impl Rng,
) -> Option<(B::Cells, Rating)> {
    let (mut current, mut at) = (*start, rating.rating);
    let mut cells = [0u16; MAX_CELLS];
    let mut stall = 0;
    while stall < CLIMB_STALL {
        stall += 1;
        let mut p = current;
        // One or two givens out.
        let n = fill_where(&mut cells, p.as_ref(), |v| v != 0);
        let k = if rng.random_bool(0.5) { 1 } else { 2 };
        if n < k {
            return None;
        }
        let (outs, _) = cells[..n].partial_shuffle(rng, k);
        let mut out = [usize::MAX; 2];
        for (o, &c) in out.iter_mut().zip(outs.iter()) {
            *o = usize::from(c);
            p.as_mut()[*o] = 0;
        }
        // Cells in until unique.
        let n = fill_where(&mut cells, p.as_ref(), |v| v == 0);
        let holes = &mut cells[..n];
        let (adds, _) = holes.partial_shuffle(rng, CLIMB_ADDS + k);
        let mut unique = false;
        for &c in adds
            .iter()
            .filter(|&&c| !out.contains(&usize::from(c)))
            .take(CLIMB_ADDS)
        {
            let c = usize::from(c);
            p.as_mut()[c] = solution.as_ref()[c];
            if B::count_solutions(&p, 2) == 1 {
                unique = true;
                break;
            }
        }
        if !unique {
            continue;
        }
        // Every given that can go, in a random order.
        let n = fill_where(&mut cells, p.as_ref(), |v| v != 0);
        cells[..n].shuffle(rng);
        let p = B::minimize(&p, &cells[..n]);
        let clues = clues_of(p.as_ref());
        if clues < clue_range.0 || clues > clue_range.1 {
            continue;
        }
        let Some(r) = rate(&p) else { continue };
        if fits(&r) {
            return Some((p, r));
        }
        if r.rating >= at && u16::from(r.rating) <= top {
            if r.rating > at {
                stall = 0;
            }
            (current, at) = (p, r.rating);
        }
    }
    None
}

/// Writes into `out` the cells of `cells` whose value passes `keep`; returns how many.
fn fill_where(out: &mut [u16; MAX_CELLS], cells: &[u8], keep: impl Fn(u8) -> bool) -> usize {
    let mut n = 0;
    for (c, &v) in cells.iter().enumerate() {
        if keep(v) {
            out[n] = c as u16;
            n += 1;
        }
    }
    n
}

/// The givens of a puzzle.
fn clues_of(cells: &[u8]) -> usize {
    cells.iter().filter(|&&v| v != 0).count()
}

/// [`make_seed`] for a rating table (the module documentation tells how).
fn make_rated_seed<B: Board>(
    recipe: &Recipe<'_>,
    band: usize,
    rng: &mut impl Rng,
) -> Result<SeedPuzzle<B::Cells>, BandUnreachable> {
    let spec = &recipe.bands.bands()[band];
    let (lo, hi) = (spec.lo, spec.hi);
    let (mut fill_time, mut carve_time, mut rate_time) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    // Every puzzle rated here is carved from `solution` and unique. Each rating is
    // asked only "is it at most `cap`, and then what?": the rater stops at the
    // first step above.
    let rate = |cells: &B::Cells, solution: &B::Cells, cap: u16, took: &mut Duration| {
        let t = Instant::now();
        let r = B::rate_solved(cells, solution, cap.min(u16::from(u8::MAX)) as u8);
        *took += t.elapsed();
        r
    };
    // `:even` bands aim each attempt at one rating step, kept for up to
    // `TRIES_PER_STEP` attempts and then drawn again (a rare step costs a few
    // attempts, not the run); other bands take any rating within them.
    let steps = rating_steps(lo, hi).count();
    let mut step = (0u16, TRIES_PER_STEP);
    let (clue_lo, clue_hi) = spec
        .clues
        .map_or((0, usize::MAX), |(a, b)| (usize::from(a), usize::from(b)));
    let mut groups = Groups::default();
    for attempt in 1..=recipe.max_attempts {
        if spec.even {
            if step.1 == TRIES_PER_STEP {
                let k = rng.random_range(0..steps);
                step = (rating_steps(lo, hi).nth(k).expect("k < steps"), 0);
            }
            step.1 += 1;
        }
        // The most this attempt may keep, and what it keeps.
        let top = if spec.even { step.0 } else { hi };
        let fits = |r: &Rating| {
            let r = u16::from(r.rating);
            if spec.even {
                r == step.0
            } else {
                (lo..=hi).contains(&r)
            }
        };
        let bounds = (top, (clue_lo, clue_hi));
        if !recipe.starts.is_empty() {
            // `--from`: a climb from one of the puzzles given, kept below the band (a
            // start above it takes any neighbour in it), landing on no start's class.
            let start = &recipe.starts[rng.random_range(0..recipe.starts.len())];
            let (puzzle, solution) = start.cells::<B>();
            let t = Instant::now();
            let rated = *start
                .rating
                .get_or_init(|| B::rate_solved(&puzzle, &solution, u8::MAX));
            rate_time += t.elapsed();
            let Some(r) = rated else { continue };
            let below = Rating {
                rating: r
                    .rating
                    .min(lo.saturating_sub(1).min(u16::from(u8::MAX)) as u8),
                ..r
            };
            let (t, rated_before) = (Instant::now(), rate_time);
            let found = {
                let mut rate = |p: &B::Cells| rate(p, &solution, top, &mut rate_time);
                climb::<B>(&puzzle, below, &solution, bounds, &fits, &mut rate, rng)
            };
            carve_time += t.elapsed().saturating_sub(rate_time - rated_before);
            let Some((puzzle, rating)) = found else {
                continue;
            };
            let times = (fill_time, carve_time, rate_time);
            let seed = seed_of::<B>(recipe, band, (puzzle, solution), rating, attempt, times);
            if recipe
                .starts
                .iter()
                .all(|s| s.canonical != seed.canonical.as_ref())
            {
                return Ok(seed);
            }
            continue;
        }
        let t0 = Instant::now();
        let solution = B::fill(recipe.fill, rng);
        let t1 = Instant::now();
        let minimal = B::carve(recipe.carve, 0, recipe.symmetry, &solution, rng);
        fill_time += t1 - t0;
        carve_time += t1.elapsed();
        let mut landed = None;
        let mut orders = 1;
        // The band's clue range: a minimal puzzle above its ceiling cannot land.
        let n_minimal = clues_of(minimal.puzzle.as_ref());
        if n_minimal > clue_hi {
            continue;
        }
        if lo >= RATE_MINIMAL_FROM {
            match rate(&minimal.puzzle, &solution, top, &mut rate_time) {
                // Under the clue floor, clues go back below.
                Some(r) if fits(&r) && n_minimal < clue_lo => {}
                Some(r) if fits(&r) => landed = Some((minimal.puzzle, r)),
                Some(r) if u16::from(r.rating) > top => orders = ORDERS_PER_PUZZLE,
                // A top band climbs from a minimal puzzle rated not far below it.
                Some(r)
                    if lo >= CLIMB_FROM
                        && recipe.symmetry == Symmetry::None
                        && n_minimal >= clue_lo
                        && u16::from(r.rating) + CLIMB_BELOW >= lo =>
                {
                    let (t, rated_before) = (Instant::now(), rate_time);
                    let found = {
                        let mut rate = |p: &B::Cells| rate(p, &solution, top, &mut rate_time);
                        climb::<B>(&minimal.puzzle, r, &solution, bounds, &fits, &mut rate, rng)
                    };
                    // A climb's own work (moves, uniqueness) counts as carving.
                    carve_time += t.elapsed().saturating_sub(rate_time - rated_before);
                    match found {
                        Some(found) => landed = Some(found),
                        None => continue,
                    }
                }
                _ => continue,
            }
        }
        for _ in 0..orders {
            if landed.is_some() {
                break;
            }
            groups.shuffle(
                B::SIZE.side(),
                recipe.symmetry,
                minimal.puzzle.as_ref(),
                rng,
            );
            // The search stops at the first rating at or below a ceiling drawn inside
            // the band (the band's top would pile every seed up just under it).
            let ceiling = if spec.even || hi == u16::MAX {
                top
            } else {
                rng.random_range(lo..=hi)
            };
            // The fewest groups back that bring the rating to `ceiling` or below (a
            // lower bound over 0..=len; all back, the full grid, is taken to be low
            // enough and never rated). With the minimal puzzle rated above `hi`, start
            // at 1.
            // No more groups than the clue ceiling allows.
            let most = (0..=groups.len())
                .take_while(|&k| n_minimal + groups.cells_back(k) <= clue_hi)
                .last()
                .unwrap_or(0);
            let (mut left, mut right) = (usize::from(orders > 1), groups.len().min(most + 1));
            let mut best = None;
            while left < right {
                let mid = (left + right) / 2;
                let p = groups.put_back::<B>(&minimal.puzzle, &solution, mid);
                match rate(&p, &solution, ceiling, &mut rate_time) {
                    Some(r) if u16::from(r.rating) > ceiling => left = mid + 1,
                    Some(r) => {
                        right = mid;
                        best = Some((p, r));
                    }
                    None => break,
                }
            }
            landed = best.filter(|(_, r)| fits(r));
            // Under the clue floor: the fewest groups more that reach it, if the
            // rating stays in the band.
            if landed.is_some_and(|(p, _)| clues_of(p.as_ref()) < clue_lo) {
                landed = (0..=most)
                    .find(|&k| n_minimal + groups.cells_back(k) >= clue_lo)
                    .map(|k| groups.put_back::<B>(&minimal.puzzle, &solution, k))
                    .and_then(|p| {
                        rate(&p, &solution, top, &mut rate_time)
                            .filter(|r| fits(r))
                            .map(|r| (p, r))
                    });
            }
        }
        let Some((puzzle, rating)) = landed else {
            continue;
        };
        let times = (fill_time, carve_time, rate_time);
        return Ok(seed_of::<B>(
            recipe,
            band,
            (puzzle, solution),
            rating,
            attempt,
            times,
        ));
    }
    Err(BandUnreachable {
        band: spec.name.clone(),
        range: recipe.bands.range_text(band),
        scale: "rating",
        attempts: recipe.max_attempts,
        carve: recipe.carve.name(),
        // Minimal puzzles rate highest: advice to carve them only where it is new.
        // From the nested chains' floor up, attempts are slow to pay (README, "The top
        // bands": a 9.7 and a 9.8 in about 40 CPU minutes of climbs, nothing at 10.0).
        hint: match recipe.carve {
            _ if !recipe.starts.is_empty() => {
                "no climb from the --from puzzles reached it; raise --max-attempts, or give puzzles rated nearer the band"
            }
            Carve::Minimal if lo >= u16::from(crate::engine::rating::CEILING) => {
                "few puzzles rate this high: from 9.5 up a step needs the (+) rules or nested chains, which climbs from random minimal puzzles seldom reach; climb from puzzles already rated high with --from FILE, or raise --max-attempts a lot and expect tens of CPU minutes a puzzle or more"
            }
            Carve::Minimal => "few puzzles rate this high; raise --max-attempts",
            _ => "few puzzles carved this way rate this high; raise --max-attempts or try --carve minimal",
        }
        .to_string(),
    })
}

/// The seed of a rating band that landed, `(puzzle, solution)`, with its canonical
/// form, after `attempt` attempts that took `(fill, carve, rate)` time.
fn seed_of<B: Board>(
    recipe: &Recipe<'_>,
    band: usize,
    (puzzle, solution): (B::Cells, B::Cells),
    rating: Rating,
    attempt: u32,
    (fill_time, carve_time, rate_time): (Duration, Duration, Duration),
) -> SeedPuzzle<B::Cells> {
    let t = Instant::now();
    let canonical = B::canonical_form(&puzzle);
    let canon_time = t.elapsed();
    let n_clues = clues_of(puzzle.as_ref()) as u16;
    debug_assert!(recipe.bands.clues_fit(band, n_clues));
    SeedPuzzle {
        puzzle,
        solution,
        canonical,
        key: None,
        n_clues,
        band: band as u8,
        rating: Some(rating),
        attempts: attempt,
        fill_time,
        carve_time,
        rate_time,
        canon_time,
    }
}

/// The removed cells of a carved puzzle in a random order, in groups that go back
/// together (a whole orbit with `--symmetry`, else one cell): fixed arrays, so an
/// attempt allocates nothing.
struct Groups {
    /// Cells in the order they go back.
    order: [u16; MAX_CELLS],
    /// `ends[g]`: the end in `order` of group `g`.
    ends: [u16; MAX_CELLS],
    len: usize,
}

impl Default for Groups {
    fn default() -> Groups {
        Groups {
            order: [0; MAX_CELLS],
            ends: [0; MAX_CELLS],
            len: 0,
        }
    }
}

impl Groups {
    /// Groups the empty cells of `puzzle` (side `n`) by orbits of `symmetry`, in a
    /// random order.
    fn shuffle(&mut self, n: usize, symmetry: Symmetry, puzzle: &[u8], rng: &mut impl Rng) {
        let mut removed = [0u16; MAX_CELLS];
        let mut n_removed = 0;
        for (c, _) in puzzle.iter().enumerate().filter(|(_, &v)| v == 0) {
            removed[n_removed] = c as u16;
            n_removed += 1;
        }
        removed[..n_removed].shuffle(rng);
        let mut taken = [false; MAX_CELLS];
        let (mut n_order, mut len) = (0, 0);
        for &c in &removed[..n_removed] {
            if taken[usize::from(c)] {
                continue;
            }
            let (orbit, orbit_len) = symmetry.orbit_in(n, usize::from(c));
            for &o in &orbit[..orbit_len] {
                let o = usize::from(o);
                if puzzle[o] == 0 && !std::mem::replace(&mut taken[o], true) {
                    self.order[n_order] = o as u16;
                    n_order += 1;
                }
            }
            self.ends[len] = n_order as u16;
            len += 1;
        }
        self.len = len;
    }

    fn len(&self) -> usize {
        self.len
    }

    /// How many cells the first `k` groups put back.
    fn cells_back(&self, k: usize) -> usize {
        match k {
            0 => 0,
            k => usize::from(self.ends[k - 1]),
        }
    }

    /// `puzzle` with its first `k` groups back from `solution`.
    fn put_back<B: Board>(&self, puzzle: &B::Cells, solution: &B::Cells, k: usize) -> B::Cells {
        let mut p = *puzzle;
        for &c in &self.order[..self.cells_back(k)] {
            let c = usize::from(c);
            p.as_mut()[c] = solution.as_ref()[c];
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Nine;
    use crate::engine::grid::Cells;

    fn recipe<'a>(bands: &'a BandTable, selected: &'a [usize], max_attempts: u32) -> Recipe<'a> {
        Recipe {
            seed: 42,
            fill: Fill::Template,
            carve: Carve::Target,
            symmetry: Symmetry::None,
            bands,
            selected,
            max_attempts,
            starts: &[],
        }
    }

    /// Seed `j` of a one-band rating table `band` carved minimal, with `--seed seed`.
    fn minimal_seed(
        band: &str,
        attempts: u32,
        seed: u64,
        j: u64,
    ) -> Result<SeedPuzzle<Cells>, BandUnreachable> {
        let bands = BandTable::parse_rating(band).unwrap();
        let mut r = recipe(&bands, &[0], attempts);
        (r.carve, r.seed) = (Carve::Minimal, seed);
        make_seed::<Nine>(&r, j, 0)
    }

    /// Every puzzle a climb rates is uniquely solvable, minimal and on the start's
    /// solution; a climb nothing fits makes its moves and gives up; the same stream
    /// gives the same climb.
    #[test]
    fn a_climb_moves_between_minimal_puzzles_of_one_solution() {
        let mut rng = item_rng(5, Purpose::Seed, 0, 0);
        let solution = Nine::fill(Fill::Backtrack, &mut rng);
        let start = Nine::carve(Carve::Minimal, 0, Symmetry::None, &solution, &mut rng).puzzle;
        let rating = Nine::rate_solved(&start, &solution, u8::MAX).expect("rated");
        let run = |fits: &dyn Fn(&Rating) -> bool, seed: u64| {
            let mut rated = Vec::new();
            let mut rate = |p: &Cells| {
                rated.push(*p);
                Nine::rate_solved(p, &solution, u8::MAX)
            };
            let mut rng = item_rng(seed, Purpose::Seed, 1, 0);
            let bounds = (95, (17, 81));
            let found = climb::<Nine>(&start, rating, &solution, bounds, fits, &mut rate, &mut rng);
            (found, rated)
        };
        let (found, rated) = run(&|_| false, 1);
        assert!(found.is_none());
        assert!(
            rated.len() >= 10,
            "{} moves rated; a climb stops after {CLIMB_STALL} in a row without a rise",
            rated.len()
        );
        assert!(rated.iter().any(|p| *p != start), "the climb moved");
        for p in &rated {
            assert_eq!(Nine::count_solutions(p, 2), 1, "unique");
            for (c, &v) in p.iter().enumerate() {
                assert!(v == 0 || v == solution[c], "a given off the solution");
                if v != 0 {
                    let mut less = *p;
                    less[c] = 0;
                    assert_eq!(Nine::count_solutions(&less, 2), 2, "minimal");
                }
            }
        }
        // A band above the start: what lands fits, and the same stream lands it again.
        let above = |r: &Rating| r.rating > rating.rating;
        let (a, _) = run(&above, 2);
        let (b, _) = run(&above, 2);
        assert_eq!(a, b);
        let (p, r) = a.expect("a neighbour rated above the start");
        assert!(r.rating > rating.rating);
        assert_eq!(Nine::rate_solved(&p, &solution, u8::MAX), Some(r));
    }

    /// A top band lands by climbing, and the seed is the same every time.
    #[test]
    fn a_top_band_seed_lands_and_is_the_same_every_time() {
        let a = minimal_seed("top=8.0-9.5", 20_000, 42, 0).unwrap();
        let rating = a.rating.expect("rated");
        assert!((80..=95).contains(&rating.rating), "{rating:?}");
        assert_eq!(
            Nine::rate_solved(&a.puzzle, &a.solution, u8::MAX),
            Some(rating)
        );
        let b = minimal_seed("top=8.0-9.5", 20_000, 42, 0).unwrap();
        assert_eq!((a.puzzle, a.rating), (b.puzzle, b.rating));
    }

    /// Regression: a climb of 60 moves, one given at a time, left seeds of `9.2+`
    /// without a puzzle after 10,000 attempts (0.4.12, `--seed 7`); walking the
    /// plateaus lands each of these in a few hundred.
    #[test]
    fn a_band_above_the_common_dynamic_chains_lands_by_climbing() {
        for j in 0..4 {
            let a = minimal_seed("top=9.2+", 10_000, 7, j).unwrap();
            let rating = a.rating.expect("rated");
            assert!(rating.rating >= 92, "{rating:?}");
            assert_eq!(
                Nine::rate_solved(&a.puzzle, &a.solution, u8::MAX),
                Some(rating)
            );
        }
    }

    #[test]
    fn a_seed_lands_in_its_band_and_is_the_same_every_time() {
        let bands = BandTable::default_9x9();
        let r = recipe(&bands, &[0, 1, 2, 3], 100);
        for j in 0..8 {
            let a = make_seed::<Nine>(&r, j, 0).unwrap();
            let spec = &bands.bands()[a.band as usize];
            assert!(
                (spec.lo..=spec.hi).contains(&a.n_clues),
                "{j}: {}",
                a.n_clues
            );
            assert_eq!(usize::from(a.band), r.selected[(j % 4) as usize]);
            let b = make_seed::<Nine>(&r, j, 0).unwrap();
            assert_eq!(
                (a.puzzle, a.solution, a.canonical),
                (b.puzzle, b.solution, b.canonical)
            );
            let other_round = make_seed::<Nine>(&r, j, 1).unwrap();
            assert_ne!(
                a.puzzle, other_round.puzzle,
                "a new round draws a new stream"
            );
        }
    }

    #[test]
    fn an_unreachable_band_is_an_error_that_says_what_to_change() {
        let bands =
            BandTable::parse_for("rare=17-17,easy=36-40", crate::engine::grid::Size::Nine).unwrap();
        let r = recipe(&bands, &[0], 2);
        let e = make_seed::<Nine>(&r, 0, 0).unwrap_err();
        assert_eq!((e.range.as_str(), e.attempts), ("17-17", 2));
        assert!(e.to_string().contains("widen the band"), "{e}");
        assert!(
            e.to_string().contains("raise --max-attempts (now 2)"),
            "{e}"
        );
    }

    /// A band from the nested chains' floor up says that more attempts seldom help.
    #[test]
    fn an_unreachable_nested_band_says_how_rare_it_is() {
        let e = minimal_seed("top=10.0+", 3, 42, 0).unwrap_err();
        assert_eq!((e.range.as_str(), e.attempts), ("10.0+", 3));
        assert!(e.to_string().contains("nested chains"), "{e}");
        assert!(e.to_string().contains("--from FILE"), "{e}");
        assert!(e.to_string().contains("raise --max-attempts"), "{e}");
    }

    /// A `--from` run whose climbs miss the band says so, and lands nothing else:
    /// a start rated far below it stays below in one climb.
    #[test]
    fn an_unreachable_band_from_given_puzzles_names_them() {
        let easy = Nine::carve(
            Carve::Target,
            40,
            Symmetry::None,
            &Nine::fill(Fill::Backtrack, &mut item_rng(3, Purpose::Seed, 0, 0)),
            &mut item_rng(3, Purpose::Seed, 1, 0),
        )
        .puzzle;
        let starts = [StartPuzzle::new::<Nine>(&easy).expect("unique")];
        let bands = BandTable::parse_rating("top=9.0+").unwrap();
        let r = Recipe {
            starts: &starts,
            ..recipe(&bands, &[0], 1)
        };
        let e = make_seed::<Nine>(&r, 0, 0).unwrap_err();
        assert!(e.to_string().contains("the --from puzzles"), "{e}");
        assert_eq!(
            starts[0]
                .rating
                .get()
                .copied()
                .flatten()
                .map(|r| r.rating < 90),
            Some(true)
        );
    }

    #[test]
    fn a_rated_seed_lands_in_its_rating_band_with_its_true_rating() {
        let bands = BandTable::default_rating();
        let selected = [0, 1, 2, 3, 4];
        let r = Recipe {
            carve: Carve::Minimal,
            ..recipe(&bands, &selected, 200)
        };
        for j in 0..10 {
            let a = make_seed::<Nine>(&r, j, 0).unwrap();
            assert_eq!(usize::from(a.band), selected[(j % 5) as usize]);
            let rating = a.rating.expect("rating bands rate their seeds");
            assert_eq!(
                Some(rating),
                Nine::rate(&a.puzzle),
                "{j}: the stated rating is the rater's"
            );
            assert_eq!(
                bands.grade(rating.rating),
                Some(usize::from(a.band)),
                "{j}: {rating:?}"
            );
            assert_eq!(Nine::count_solutions(&a.puzzle, 2), 1, "{j}: unique");
            assert!(a
                .puzzle
                .iter()
                .zip(&a.solution)
                .all(|(&p, &s)| p == 0 || p == s));
            assert_eq!(
                usize::from(a.n_clues),
                a.puzzle.iter().filter(|&&v| v != 0).count()
            );
            let b = make_seed::<Nine>(&r, j, 0).unwrap();
            assert_eq!(
                (a.puzzle, a.rating),
                (b.puzzle, b.rating),
                "{j}: deterministic"
            );
        }
    }

    #[test]
    fn an_even_band_lands_its_seeds_on_its_steps_and_spreads_them() {
        let bands = BandTable::parse_rating("medium=1.5-2.4@17-40:even").unwrap();
        let r = recipe(&bands, &[0], 2000);
        let mut per_step = std::collections::BTreeMap::<u8, u32>::new();
        for j in 0..60 {
            let a = make_seed::<Nine>(&r, j, 0).unwrap();
            let rating = a.rating.expect("rated").rating;
            assert!(
                rating_steps(15, 24).any(|s| s == u16::from(rating)),
                "{rating}"
            );
            *per_step.entry(rating).or_default() += 1;
        }
        // Without :even, this band's seeds are three quarters 1.5 (the walk down
        // from a minimal puzzle jumps over the rest); spread, no step has half.
        assert!(per_step.len() >= 3, "{per_step:?}");
        assert!(per_step.values().all(|&n| n < 30), "{per_step:?}");
    }

    #[test]
    fn rated_seeds_keep_the_symmetry_of_the_clue_pattern() {
        let bands = BandTable::default_rating();
        let r = Recipe {
            carve: Carve::Minimal,
            symmetry: Symmetry::Rot180,
            ..recipe(&bands, &[0, 2], 200)
        };
        for j in 0..4 {
            let a = make_seed::<Nine>(&r, j, 0).unwrap();
            for c in 0..81 {
                assert_eq!(a.puzzle[c] == 0, a.puzzle[80 - c] == 0, "{j}: cell {c}");
            }
        }
    }

    #[test]
    fn an_unreachable_rating_is_an_error_naming_the_range() {
        // Two attempts at a random minimal puzzle rated 11.9, the hardest known:
        // both fail.
        let bands = BandTable::parse_rating("easy=1.0-2.0,impossible=11.9+").unwrap();
        let r = recipe(&bands, &[1], 2);
        let e = make_seed::<Nine>(&r, 0, 0).unwrap_err();
        assert_eq!((e.range.as_str(), e.scale), ("11.9+", "rating"));
        assert!(e.to_string().contains("raise --max-attempts"), "{e}");
        assert!(e.to_string().contains("try --carve minimal"), "{e}");
        // Regression: a minimal carve was told to try --carve minimal.
        let r = Recipe {
            carve: Carve::Minimal,
            ..r
        };
        let e = make_seed::<Nine>(&r, 0, 0).unwrap_err();
        assert!(e.to_string().contains("raise --max-attempts"), "{e}");
        assert!(!e.to_string().contains("try --carve"), "{e}");
    }
}
