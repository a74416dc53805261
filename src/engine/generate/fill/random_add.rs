//! `random-add` (SEEDS.md): add a random legal digit at a random empty cell; after each
//! addition ask the solver whether at least one solution still exists, otherwise undo
//! and try another digit or cell; repeat until the grid is full.
//!
//! A refuted addition stays refuted: if the grid `P` plus `(cell, d)` has no solution,
//! neither has any `P' ⊇ P` plus `(cell, d)`, because more givens never add solutions.
//! So refuted digits are remembered per cell (`banned`) for the rest of the run and
//! never drawn again — "try another" without retrying what is known to fail. Since the
//! grid always keeps a solution, every empty cell has a digit that is neither banned
//! nor illegal (that solution's own digit), so the loop cannot get stuck; each step
//! either fills a cell or bans a digit, so it ends after at most 81·9 solver calls.

use rand::Rng;

use super::{random_digit, Occupancy};
use crate::engine::grid::{Cells, N_CELLS};
use crate::engine::solve::count_solutions;

/// Fills a complete grid by random additions checked by the solver.
pub(super) fn fill<R: Rng + ?Sized>(rng: &mut R) -> Cells {
    let mut occ = Occupancy::EMPTY;
    let mut banned = [0u16; N_CELLS];
    // Empty cells, as a set that supports O(1) random pick and removal.
    let mut empty: [u8; N_CELLS] = std::array::from_fn(|i| i as u8);
    let mut n_empty = N_CELLS;
    while n_empty > 0 {
        let k = rng.random_range(0..n_empty);
        let cell = empty[k] as usize;
        let options = occ.candidates(cell) & !banned[cell];
        // Never empty: the grid keeps a solution S, and S's digit at `cell` is legal
        // (the givens are part of S) and not banned (adding it keeps S a solution).
        debug_assert!(options != 0, "a solvable grid has an option in every cell");
        if options == 0 {
            continue;
        }
        let d = random_digit(options, rng);
        occ.place(cell, d);
        if count_solutions(&occ.cells, 1) == 0 {
            occ.clear(cell);
            banned[cell] |= 1 << d;
            continue;
        }
        n_empty -= 1;
        empty.swap(k, n_empty);
    }
    occ.cells
}
