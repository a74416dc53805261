//! `backtrack` (SEEDS.md) on any board: depth-first backtracking over the cells in
//! row-major order, as the 9×9 [`crate::engine::generate::fill`](mod@super) does; at
//! every visit of a cell its candidate values are tried in a freshly shuffled order, so
//! every run yields a different grid.
//!
//! Plain backtracking has a heavy tail that grows with the board: an early bad choice
//! in row-major order is only discovered rows later, and undoing it means exhausting
//! everything in between. On 4×4 and 9×9 that never matters; on 16×16 and 25×25 a run
//! can go on for hours. The rule is "backtrack must not hang on large sizes",
//! so the search has a node budget, [`BACKTRACK_NODE_BUDGET`] placements, and when it
//! is spent the grid is made by `mrv` from the current rng state instead (a fail-over:
//! still a random valid grid, deterministic for a given rng). [`backtrack_within`]
//! exposes the budgeted search itself, so callers and measurements can see how often
//! that happens.
//!
//! The search is iterative (an explicit stack of shuffled orders, one per cell) so a
//! 625-deep descent costs no call frames; all state is stack arrays, no allocation.

use rand::seq::SliceRandom;
use rand::Rng;

use super::Occupancy;
use crate::engine::nxn::{Shape, MAX_CELLS, MAX_N};

/// Placements `backtrack` may make before it fails over to `mrv`: 16 ms of CPU time
/// on 16×16, 24 ms on 25×25.
///
/// Measured on 200 seeds each (placements needed, rounded up to a power of two): 9×9
/// needs at most 512, so it never fails over. 16×16 has the heavy tail: 153 runs
/// finish within 2¹⁴, 183 within 2¹⁶, 191 within 2²⁰ and 194 within 2²⁴, while 6 are
/// still searching at 2²⁴ (0.4 s). 25×25 finishes 15 runs within 2²⁰ and 27 within
/// 2²². Raising the budget past 2²⁰ saves a handful of runs per 200 at 16× the
/// worst-case cost, so 2²⁰ it is: ~4.5 % of 16×16 grids and ~92 % of 25×25 grids
/// come from the fail-over (measured over 200 seeds per size).
pub const BACKTRACK_NODE_BUDGET: u64 = 1 << 20;

/// The budget of [`backtrack_within`] ran out before the grid was complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exhausted {
    /// Placements made (the budget).
    pub nodes: u64,
}

/// Fills a complete grid by backtracking, or by `mrv` once the budget is spent.
pub(super) fn fill<S: Shape, R: Rng + ?Sized>(rng: &mut R) -> S::Cells {
    match backtrack_within::<S, R>(rng, BACKTRACK_NODE_BUDGET) {
        Ok(cells) => cells,
        Err(_) => super::mrv::fill::<S, R>(rng),
    }
}

/// Backtracking alone: a complete grid, or [`Exhausted`] after `budget` placements.
pub fn backtrack_within<S: Shape, R: Rng + ?Sized>(
    rng: &mut R,
    budget: u64,
) -> Result<S::Cells, Exhausted> {
    let mut occ = Occupancy::<S>::new();
    // order[pos][..len[pos]]: the legal values of cell `pos` at its current visit, in
    // the shuffled order they are tried; next[pos] is the next one to try. Only the
    // legal values are shuffled (the 9×9 code shuffles all nine and skips illegal
    // ones): the order of the legal values is uniform either way, with fewer draws.
    let mut order = [[0u8; MAX_N]; MAX_CELLS];
    let mut len = [0u8; MAX_CELLS];
    let mut next = [0u8; MAX_CELLS];
    let mut nodes = 0u64;

    // Invariant: cells 0..pos hold a consistent partial grid; cell `pos` is empty and
    // `order[pos]` was drawn when it was entered.
    let mut pos = 0;
    enter::<S, R>(&occ, pos, &mut order[pos], &mut len[pos], rng);
    next[pos] = 0;
    loop {
        if next[pos] < len[pos] {
            let v = order[pos][next[pos] as usize];
            next[pos] += 1;
            occ.place(pos, v);
            nodes += 1;
            if pos + 1 == S::CELLS {
                return Ok(occ.to_cells());
            }
            if nodes >= budget {
                return Err(Exhausted { nodes });
            }
            pos += 1;
            enter::<S, R>(&occ, pos, &mut order[pos], &mut len[pos], rng);
            next[pos] = 0;
        } else {
            // Every value of this cell failed: undo the previous cell's choice. The
            // empty board always has a completion, so the search never backs out of
            // cell 0.
            debug_assert!(pos > 0, "the empty board has a completion");
            if pos == 0 {
                return Err(Exhausted { nodes });
            }
            pos -= 1;
            occ.clear(pos);
        }
    }
}

/// A fresh visit of cell `pos`: its legal values in a freshly shuffled order.
#[inline(always)]
fn enter<S: Shape, R: Rng + ?Sized>(
    occ: &Occupancy<S>,
    pos: usize,
    order: &mut [u8; MAX_N],
    len: &mut u8,
    rng: &mut R,
) {
    let mut free = occ.candidates(pos);
    let mut n = 0;
    while free != 0 {
        order[n] = free.trailing_zeros() as u8;
        free &= free - 1;
        n += 1;
    }
    order[..n].shuffle(rng);
    *len = n as u8;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::nxn::{solves, Box2, Box3, Box5};
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn small_boards_finish_well_within_the_budget() {
        let mut rng = Pcg64::seed_from_u64(3);
        for _ in 0..100 {
            let g = backtrack_within::<Box2, _>(&mut rng, 1_000).expect("4x4 is easy");
            assert!(solves::<Box2>(&g, &g));
        }
        for _ in 0..100 {
            let g = backtrack_within::<Box3, _>(&mut rng, BACKTRACK_NODE_BUDGET)
                .expect("9x9 never needs the fail-over");
            assert!(solves::<Box3>(&g, &g));
        }
    }

    #[test]
    fn the_budget_stops_the_search_on_25x25() {
        // 625 placements cannot complete a 25×25 grid unless no choice ever fails;
        // a budget of 600 must come back exhausted, at exactly the budget.
        let mut rng = Pcg64::seed_from_u64(4);
        assert_eq!(
            backtrack_within::<Box5, _>(&mut rng, 600),
            Err(Exhausted { nodes: 600 })
        );
    }

    #[test]
    fn backtrack_on_25x25_returns_a_grid_instead_of_hanging() {
        // With the real budget, 25×25 nearly always fails over to mrv (measured: ~92 %
        // of seeds) and still returns a valid grid, within a few tens of milliseconds.
        let mut rng = Pcg64::seed_from_u64(5);
        let g = fill::<Box5, _>(&mut rng);
        assert!(solves::<Box5>(&g, &g));
    }
}
