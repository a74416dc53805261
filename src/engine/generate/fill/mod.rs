//! Fill strategies: turn an empty board into a complete, valid grid — the five methods
//! of SEEDS.md ("Seed population: fill a complete grid"), written once over a
//! [`Shape`] for every size. One file per strategy, so each can be read against its
//! write-up:
//!
//! * [`backtrack`] — depth-first, row-major, a freshly shuffled value order per cell
//!   visit; on a node budget, after which it fails over to `mrv` (large boards).
//! * [`digits`] — value 1 N times, then 2, …, each at a random legal cell; start over
//!   when stuck. Hopeless beyond 9×9: see [`unsuitable`].
//! * [`mrv`] — forced moves (naked and hidden singles) first, random choices in the
//!   most constrained cell, row and column repairs instead of backtracking.
//! * [`template`] — the fixed pattern grid shuffled by validity-preserving maps.
//! * [`random_add`] — random legal values at random cells, each kept only while the
//!   solver still finds a solution.
//!
//! Some strategy/size pairs cannot finish in reasonable time; [`unsuitable`] names them
//! with a reason so the CLI can refuse before doing any work. [`fill`] still runs them
//! (slowly, possibly for hours) if asked.
//!
//! Architecture invariant: every strategy draws randomness only from the `rng` it is
//! handed, returns a complete grid in which every row, column and box holds 1..=N once,
//! and allocates nothing: all state is stack arrays sized [`MAX_CELLS`] / [`MAX_N`].

mod backtrack;
mod digits;
mod mrv;
mod random_add;
mod template;

use std::marker::PhantomData;

use rand::Rng;

pub use backtrack::{backtrack_within, Exhausted, BACKTRACK_NODE_BUDGET};
pub use mrv::MAX_REPAIRS;

use crate::engine::grid::Size;
use crate::engine::nxn::{Shape, MAX_CELLS, MAX_N};

/// How to fill a complete grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fill {
    /// Depth-first backtracking with a freshly shuffled digit order at every cell.
    Backtrack,
    /// Digit by digit, each copy at a random legal cell; start over when stuck.
    Digits,
    /// Forced moves, then a random digit in the cell with the fewest candidates;
    /// dead cells are repaired by clearing their rows and columns.
    Mrv,
    /// The fixed pattern grid with digits, rows, columns, bands and stacks shuffled.
    Template,
    /// Random legal digits at random empty cells, kept only while a solution exists.
    RandomAdd,
}

impl Fill {
    /// Every strategy, in the order of SEEDS.md.
    pub const ALL: [Fill; 5] = [
        Fill::Backtrack,
        Fill::Digits,
        Fill::Mrv,
        Fill::Template,
        Fill::RandomAdd,
    ];

    /// The strategy's name on the command line and in manifests (DESIGN.md).
    pub fn name(self) -> &'static str {
        match self {
            Fill::Backtrack => "backtrack",
            Fill::Digits => "digits",
            Fill::Mrv => "mrv",
            Fill::Template => "template",
            Fill::RandomAdd => "random-add",
        }
    }

    /// The strategy called `name`, the inverse of [`Fill::name`].
    pub fn from_name(name: &str) -> Option<Fill> {
        Fill::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// Fills a complete valid `S` grid with `strategy`.
///
/// `backtrack` that exhausts [`BACKTRACK_NODE_BUDGET`] continues as `mrv` on the same
/// rng (use [`backtrack_within`] to see whether it did). Pairs named by [`unsuitable`]
/// still run, but may take hours.
pub fn fill<S: Shape, R: Rng + ?Sized>(strategy: Fill, rng: &mut R) -> S::Cells {
    match strategy {
        Fill::Backtrack => backtrack::fill::<S, R>(rng),
        Fill::Digits => digits::fill::<S, R>(rng),
        Fill::Mrv => mrv::fill::<S, R>(rng),
        Fill::Template => template::fill::<S, R>(rng),
        Fill::RandomAdd => random_add::fill::<S, R>(rng),
    }
}

/// Why `strategy` cannot make `size` grids in reasonable time, or `None` when it can.
/// Decided by measurement (release build; the figures below; `sudoku-factory bench
/// --size N --fill STRATEGY` re-measures them), so that the CLI can refuse before any
/// work instead of hanging. `backtrack` is never unsuitable: it fails over to `mrv` instead.
pub fn unsuitable(strategy: Fill, size: Size) -> Option<&'static str> {
    match (strategy, size) {
        // On 9×9 one attempt in ~7,700 succeeds (13 of 100,000). On 16×16 none of 10
        // million succeeded, none of 2 million completed more than 10 of the 16 values,
        // and the share of attempts completing each next value keeps falling (0.81
        // for value 2 down to 0.07 for value 10): a grid would need more than 10¹¹
        // attempts of ~10 µs, well over a week. On 25×25 none of 200,000 attempts
        // completed more than 11 of the 25 values.
        (Fill::Digits, Size::Sixteen | Size::TwentyFive) => Some(
            "digits starts over whenever a value has no legal cell left, and beyond 9x9 \
             practically every attempt does (none of 10 million 16x16 attempts \
             succeeded), so a grid would take well over a week; use mrv, backtrack or \
             template",
        ),
        // With the fast N×N solver (nxn-solve), 8 of the first 11 16×16 seeds took
        // 18–313 ms, but refuting a sparse random board can be exponential for the
        // solver and the other 3 took 10 s, 250 s and over 7 minutes (stopped). On 25×25
        // the first seed had no grid after 5 minutes. (By hand: one fill per seed.)
        (Fill::RandomAdd, Size::Sixteen | Size::TwentyFive) => Some(
            "random-add asks the solver after every addition whether a solution still \
             exists, and beyond 9x9 refuting a sparse board can take the solver minutes \
             (16x16 grids took from 20 ms to over 7 minutes); use mrv, backtrack or template",
        ),
        _ => None,
    }
}

/// Occupancy of a partly filled `S` board: bit `v` of `rows[r]` is set when value `v`
/// stands in row `r`, likewise for columns and boxes, so a cell's candidates are one
/// OR and one NOT. Stack arrays sized for the largest board (no allocation).
#[derive(Clone, Debug)]
pub(crate) struct Occupancy<S: Shape> {
    /// Row-major, only the first `S::CELLS` used; 0 = empty.
    pub cells: [u8; MAX_CELLS],
    pub rows: [u32; MAX_N],
    pub cols: [u32; MAX_N],
    pub boxes: [u32; MAX_N],
    shape: PhantomData<S>,
}

impl<S: Shape> Occupancy<S> {
    /// The empty board.
    pub fn new() -> Self {
        Occupancy {
            cells: [0; MAX_CELLS],
            rows: [0; MAX_N],
            cols: [0; MAX_N],
            boxes: [0; MAX_N],
            shape: PhantomData,
        }
    }

    /// Values still legal in cell `i` (bits 1..=N), ignoring whether it is empty.
    #[inline(always)]
    pub fn candidates(&self, i: usize) -> u32 {
        !(self.rows[S::row(i)] | self.cols[S::col(i)] | self.boxes[S::box_of(i)]) & S::all_values()
    }

    /// Puts value `v` in empty cell `i`; the caller has checked it is legal.
    #[inline(always)]
    pub fn place(&mut self, i: usize, v: u8) {
        let bit = 1u32 << v;
        debug_assert!(self.cells[i] == 0 && self.candidates(i) & bit != 0);
        self.cells[i] = v;
        self.rows[S::row(i)] |= bit;
        self.cols[S::col(i)] |= bit;
        self.boxes[S::box_of(i)] |= bit;
    }

    /// Empties cell `i` (a no-op when it is empty already).
    #[inline(always)]
    pub fn clear(&mut self, i: usize) {
        let v = self.cells[i];
        if v == 0 {
            return;
        }
        let keep = !(1u32 << v);
        self.cells[i] = 0;
        self.rows[S::row(i)] &= keep;
        self.cols[S::col(i)] &= keep;
        self.boxes[S::box_of(i)] &= keep;
    }

    /// The board as an `S` grid.
    pub fn to_cells(&self) -> S::Cells {
        let mut out = S::empty();
        out.as_mut().copy_from_slice(&self.cells[..S::CELLS]);
        out
    }
}

/// The `k`-th set bit (0-based) of `mask`: picks a uniformly random member of a set
/// when `k` is drawn below its popcount.
#[inline(always)]
pub(crate) fn nth_bit(mut mask: u32, k: u32) -> u32 {
    for _ in 0..k {
        mask &= mask - 1;
    }
    mask.trailing_zeros()
}

/// A uniformly random member of a non-empty value set.
#[inline(always)]
pub(crate) fn random_value<R: Rng + ?Sized>(mask: u32, rng: &mut R) -> u8 {
    debug_assert!(mask != 0);
    nth_bit(mask, rng.random_range(0..mask.count_ones())) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::nxn::{solves, Box2, Box3, Box4, Box5};
    use rand::SeedableRng;
    use rand_pcg::Pcg64;
    use std::collections::HashSet;

    /// `count` grids of `strategy` on `S` from one seed; each must be complete and valid.
    fn valid_grids<S: Shape>(strategy: Fill, seed: u64, count: usize) -> Vec<S::Cells> {
        let mut rng = Pcg64::seed_from_u64(seed);
        (0..count)
            .map(|_| {
                let g = fill::<S, _>(strategy, &mut rng);
                assert!(
                    solves::<S>(g.as_ref(), g.as_ref()),
                    "{} on {}x{}: invalid grid {g:?}",
                    strategy.name(),
                    S::N,
                    S::N
                );
                g
            })
            .collect()
    }

    fn every_suitable_strategy_fills_valid_grids<S: Shape>(count: usize) {
        for f in Fill::ALL {
            if unsuitable(f, S::SIZE).is_none() {
                valid_grids::<S>(f, 11, count);
            }
        }
    }

    #[test]
    fn every_strategy_fills_valid_4x4_grids() {
        every_suitable_strategy_fills_valid_grids::<Box2>(50);
    }

    #[test]
    fn every_strategy_fills_valid_9x9_grids() {
        every_suitable_strategy_fills_valid_grids::<Box3>(20);
    }

    #[test]
    fn every_suitable_strategy_fills_valid_16x16_grids() {
        every_suitable_strategy_fills_valid_grids::<Box4>(3);
    }

    #[test]
    fn every_suitable_strategy_fills_valid_25x25_grids() {
        every_suitable_strategy_fills_valid_grids::<Box5>(2);
    }

    #[test]
    fn only_the_measured_hopeless_pairs_are_unsuitable() {
        for f in [Fill::Digits, Fill::RandomAdd] {
            assert!(unsuitable(f, Size::Sixteen).is_some());
            assert!(unsuitable(f, Size::TwentyFive).is_some());
        }
        for size in [Size::Four, Size::Nine] {
            for f in Fill::ALL {
                assert_eq!(unsuitable(f, size), None, "{} {size:?}", f.name());
            }
        }
        for f in [Fill::Backtrack, Fill::Mrv, Fill::Template] {
            for size in Size::ALL {
                assert_eq!(unsuitable(f, size), None, "{} {size:?}", f.name());
            }
        }
    }

    /// Different seeds, different grids: `count` fills from `count` seeds all differ.
    fn varied<S: Shape>(strategy: Fill, count: u64) {
        let grids: HashSet<S::Cells> = (0..count)
            .map(|seed| fill::<S, _>(strategy, &mut Pcg64::seed_from_u64(seed)))
            .collect();
        assert_eq!(
            grids.len() as u64,
            count,
            "{} on {}x{}",
            strategy.name(),
            S::N,
            S::N
        );
    }

    #[test]
    fn backtrack_and_mrv_vary_with_the_seed_on_large_boards() {
        varied::<Box4>(Fill::Backtrack, 8);
        varied::<Box5>(Fill::Backtrack, 4);
        varied::<Box4>(Fill::Mrv, 20);
        varied::<Box5>(Fill::Mrv, 20);
    }

    #[test]
    fn same_rng_state_gives_same_grid() {
        for f in Fill::ALL {
            let a = fill::<Box2, _>(f, &mut Pcg64::seed_from_u64(99));
            let b = fill::<Box2, _>(f, &mut Pcg64::seed_from_u64(99));
            assert_eq!(a, b, "{}", f.name());
        }
        let a = fill::<Box5, _>(Fill::Mrv, &mut Pcg64::seed_from_u64(99));
        let b = fill::<Box5, _>(Fill::Mrv, &mut Pcg64::seed_from_u64(99));
        assert_eq!(a, b);
    }

    #[test]
    fn occupancy_tracks_place_and_clear() {
        let mut occ = Occupancy::<Box2>::new();
        occ.place(0, 1);
        assert_eq!(occ.candidates(1), 0b11100); // row 0 lost 1
        assert_eq!(occ.candidates(5), 0b11100); // box 0 lost 1
        assert_eq!(occ.candidates(15), 0b11110);
        occ.clear(0);
        assert_eq!(occ.candidates(1), Box2::all_values());
        assert_eq!(occ.to_cells(), Box2::empty());
    }
}
