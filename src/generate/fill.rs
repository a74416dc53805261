//! Fill strategies: turn an empty board into a complete, valid grid.
//!
//! `backtrack` (SEEDS.md): depth-first backtracking over the cells in row-major order;
//! at every visit of a cell its candidate digits are tried in a freshly shuffled order,
//! so every run yields a different grid. Row, column and box occupancy are 9-bit masks,
//! so a cell's candidates are one OR and one NOT.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::grid::{Cells, N_CELLS};

/// How to fill a complete grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fill {
    /// Depth-first backtracking with a freshly shuffled digit order at every cell.
    Backtrack,
}

impl Fill {
    /// The strategy's name on the command line and in manifests.
    pub fn name(self) -> &'static str {
        match self {
            Fill::Backtrack => "backtrack",
        }
    }
}

/// Fills a complete valid grid with `strategy`.
pub fn fill<R: Rng + ?Sized>(strategy: Fill, rng: &mut R) -> Cells {
    match strategy {
        Fill::Backtrack => backtrack(rng),
    }
}

/// Occupancy masks (bit `d` set when digit `d` is used) and the grid being built.
struct Backtracker<'r, R: ?Sized> {
    cells: Cells,
    rows: [u16; 9],
    cols: [u16; 9],
    boxes: [u16; 9],
    rng: &'r mut R,
}

impl<R: Rng + ?Sized> Backtracker<'_, R> {
    fn place(&mut self, pos: usize) -> bool {
        if pos == N_CELLS {
            return true;
        }
        let (r, c) = (pos / 9, pos % 9);
        let b = (r / 3) * 3 + c / 3;
        let used = self.rows[r] | self.cols[c] | self.boxes[b];
        let mut order = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        order.shuffle(self.rng);
        for d in order {
            let bit = 1u16 << d;
            if used & bit != 0 {
                continue;
            }
            self.cells[pos] = d;
            self.rows[r] |= bit;
            self.cols[c] |= bit;
            self.boxes[b] |= bit;
            if self.place(pos + 1) {
                return true;
            }
            self.rows[r] &= !bit;
            self.cols[c] &= !bit;
            self.boxes[b] &= !bit;
        }
        self.cells[pos] = 0;
        false
    }
}

fn backtrack<R: Rng + ?Sized>(rng: &mut R) -> Cells {
    let mut bt = Backtracker {
        cells: [0; N_CELLS],
        rows: [0; 9],
        cols: [0; 9],
        boxes: [0; 9],
        rng,
    };
    // The empty board always has a completion, so the search cannot fail.
    let complete = bt.place(0);
    debug_assert!(complete);
    bt.cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::is_consistent;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn backtrack_fills_valid_and_varied_grids() {
        let mut rng = Pcg64::seed_from_u64(7);
        let a = fill(Fill::Backtrack, &mut rng);
        let b = fill(Fill::Backtrack, &mut rng);
        for g in [&a, &b] {
            assert!(g.iter().all(|&v| (1..=9).contains(&v)));
            assert!(is_consistent(g));
        }
        assert_ne!(a, b);
    }
}
