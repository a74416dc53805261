//! `random-add` (SEEDS.md) on any board: add a random legal value at a random empty
//! cell; after each addition ask the solver ([`Shape::count_solutions`],
//! limit 1) whether at least one solution still exists, otherwise undo and try another
//! value or cell; repeat until the grid is full.
//!
//! As in the 9×9 [`crate::engine::generate::fill`](mod@super), a refuted addition stays
//! refuted: if the board `P` plus `(cell, v)` has no solution, neither has any `P' ⊇ P` plus
//! `(cell, v)`, because more givens never add solutions. So refuted values are
//! remembered per cell (`banned`) for the rest of the run and never drawn again. Since
//! the board always keeps a solution, every empty cell has a value that is neither
//! banned nor illegal (that solution's own value), so the loop cannot get stuck; each
//! step either fills a cell or bans a value, so it ends after at most N²·N solver calls.
//!
//! The cost is N² solver calls at least, each a search for one completion of a partly
//! filled board: on 25×25 its speed is the solver's, and so are the figures in
//! [`super::unsuitable`].

use rand::Rng;

use super::{random_value, Occupancy};
use crate::engine::nxn::{Shape, MAX_CELLS};

/// Fills a complete grid by random additions checked by the solver.
pub(super) fn fill<S: Shape, R: Rng + ?Sized>(rng: &mut R) -> S::Cells {
    let mut occ = Occupancy::<S>::new();
    let mut banned = [0u32; MAX_CELLS];
    // Empty cells, as a set that supports O(1) random pick and removal.
    let mut empty = [0u16; MAX_CELLS];
    for (i, e) in empty[..S::CELLS].iter_mut().enumerate() {
        *e = i as u16;
    }
    let mut n_empty = S::CELLS;
    while n_empty > 0 {
        let k = rng.random_range(0..n_empty);
        let cell = empty[k] as usize;
        let options = occ.candidates(cell) & !banned[cell];
        // Never empty: the board keeps a solution X, and X's value at `cell` is legal
        // (the givens are part of X) and not banned (adding it keeps X a solution).
        debug_assert!(options != 0, "a solvable board has an option in every cell");
        if options == 0 {
            continue;
        }
        let v = random_value(options, rng);
        occ.place(cell, v);
        if S::count_solutions(&occ.cells[..S::CELLS], 1) == 0 {
            occ.clear(cell);
            banned[cell] |= 1 << v;
            continue;
        }
        n_empty -= 1;
        empty.swap(k, n_empty);
    }
    occ.to_cells()
}
