//! `backtrack` (SEEDS.md): depth-first backtracking over the cells in row-major order;
//! at every visit of a cell its candidate digits are tried in a freshly shuffled
//! order, so every run yields a different grid. Row, column and box occupancy are
//! 9-bit masks ([`Occupancy`]), so a cell's candidates are one OR and one NOT.

use rand::seq::SliceRandom;
use rand::Rng;

use super::Occupancy;
use crate::engine::grid::{Cells, N_CELLS};

/// Recursive search state: the grid being built and the rng.
struct Backtracker<'r, R: ?Sized> {
    occ: Occupancy,
    rng: &'r mut R,
}

impl<R: Rng + ?Sized> Backtracker<'_, R> {
    /// Fills cells `pos..81`; invariant: cells `0..pos` hold a consistent partial grid.
    fn place(&mut self, pos: usize) -> bool {
        if pos == N_CELLS {
            return true;
        }
        let free = self.occ.candidates(pos);
        let mut order = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        order.shuffle(self.rng);
        for d in order {
            if free & (1 << d) == 0 {
                continue;
            }
            self.occ.place(pos, d);
            if self.place(pos + 1) {
                return true;
            }
            self.occ.clear(pos);
        }
        false
    }
}

/// Fills a complete grid by backtracking.
pub(super) fn fill<R: Rng + ?Sized>(rng: &mut R) -> Cells {
    let mut bt = Backtracker {
        occ: Occupancy::EMPTY,
        rng,
    };
    // The empty board always has a completion, so the search cannot fail.
    let complete = bt.place(0);
    debug_assert!(complete);
    bt.occ.cells
}
