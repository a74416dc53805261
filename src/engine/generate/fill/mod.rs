//! Fill strategies: turn an empty board into a complete, valid grid (SEEDS.md, "Seed
//! population"). One file per strategy, so each can be read against its write-up:
//!
//! * [`backtrack`] — depth-first backtracking, a freshly shuffled digit order per cell.
//! * [`digits`] — digit 1 nine times, then 2, …; restart from scratch when stuck.
//! * [`mrv`] — forced moves first, random choices in the most constrained cell, row
//!   and column repairs instead of backtracking.
//! * [`template`] — one fixed pattern grid, shuffled by validity-preserving maps.
//! * [`random_add`] — random legal digits at random cells, each checked by the solver.
//!
//! Architecture invariant: every strategy draws randomness only from the `rng` it is
//! handed, returns a complete grid in which every row, column and box holds 1..=9
//! once, and allocates nothing (all state is stack arrays of fixed size).

mod backtrack;
mod digits;
mod mrv;
mod random_add;
mod template;

use rand::Rng;

use crate::engine::grid::Cells;

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

/// Fills a complete valid grid with `strategy`.
pub fn fill<R: Rng + ?Sized>(strategy: Fill, rng: &mut R) -> Cells {
    match strategy {
        Fill::Backtrack => backtrack::fill(rng),
        Fill::Digits => digits::fill(rng),
        Fill::Mrv => mrv::fill(rng),
        Fill::Template => template::fill(rng),
        Fill::RandomAdd => random_add::fill(rng),
    }
}

/// Box index of cell `(r, c)`.
#[inline(always)]
pub(crate) fn box_of(r: usize, c: usize) -> usize {
    (r / 3) * 3 + c / 3
}

/// Occupancy of a partly filled grid: bit `d` of `rows[r]` is set when digit `d`
/// stands in row `r`, likewise for columns and boxes. Shared by the strategies that
/// place digits one at a time; a cell's candidates are one OR and one NOT.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Occupancy {
    pub cells: Cells,
    pub rows: [u16; 9],
    pub cols: [u16; 9],
    pub boxes: [u16; 9],
}

/// Bits 1..=9: all digits.
pub(crate) const ALL_DIGITS: u16 = 0x3fe;

impl Occupancy {
    pub const EMPTY: Occupancy = Occupancy {
        cells: [0; 81],
        rows: [0; 9],
        cols: [0; 9],
        boxes: [0; 9],
    };

    /// Digits still legal in empty cell `i` (bits 1..=9).
    #[inline(always)]
    pub fn candidates(&self, i: usize) -> u16 {
        let (r, c) = (i / 9, i % 9);
        !(self.rows[r] | self.cols[c] | self.boxes[box_of(r, c)]) & ALL_DIGITS
    }

    /// Puts digit `d` in empty cell `i`; the caller has checked it is legal.
    #[inline(always)]
    pub fn place(&mut self, i: usize, d: u8) {
        let (r, c) = (i / 9, i % 9);
        let bit = 1u16 << d;
        debug_assert!(self.cells[i] == 0 && self.candidates(i) & bit != 0);
        self.cells[i] = d;
        self.rows[r] |= bit;
        self.cols[c] |= bit;
        self.boxes[box_of(r, c)] |= bit;
    }

    /// Empties cell `i` (a no-op when it is empty already).
    #[inline(always)]
    pub fn clear(&mut self, i: usize) {
        let d = self.cells[i];
        if d == 0 {
            return;
        }
        let (r, c) = (i / 9, i % 9);
        let keep = !(1u16 << d);
        self.cells[i] = 0;
        self.rows[r] &= keep;
        self.cols[c] &= keep;
        self.boxes[box_of(r, c)] &= keep;
    }
}

/// The `k`-th set bit (0-based) of `mask`: picks a uniformly random member of a set
/// when `k` is drawn below its popcount.
#[inline(always)]
pub(crate) fn nth_bit(mut mask: u16, k: u32) -> u8 {
    for _ in 0..k {
        mask &= mask - 1;
    }
    mask.trailing_zeros() as u8
}

/// A uniformly random member of a non-empty digit set.
#[inline(always)]
pub(crate) fn random_digit<R: Rng + ?Sized>(mask: u16, rng: &mut R) -> u8 {
    debug_assert!(mask != 0);
    nth_bit(mask, rng.random_range(0..mask.count_ones()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::grid::is_consistent;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// True when `g` is a complete valid grid: all cells 1..=9 and no clash.
    fn complete(g: &Cells) -> bool {
        g.iter().all(|&v| (1..=9).contains(&v)) && is_consistent(g)
    }

    #[test]
    fn names_round_trip() {
        for f in Fill::ALL {
            assert_eq!(Fill::from_name(f.name()), Some(f));
        }
        assert_eq!(Fill::from_name("random_add"), None);
    }

    #[test]
    fn every_strategy_fills_valid_and_varied_grids() {
        for f in Fill::ALL {
            let mut rng = Pcg64::seed_from_u64(7);
            let grids: Vec<Cells> = (0..20).map(|_| fill(f, &mut rng)).collect();
            for g in &grids {
                assert!(complete(g), "{}: invalid grid {g:?}", f.name());
            }
            let distinct: std::collections::HashSet<_> = grids.iter().collect();
            assert_eq!(distinct.len(), grids.len(), "{}: repeated grid", f.name());
        }
    }

    #[test]
    fn same_rng_state_gives_same_grid() {
        for f in Fill::ALL {
            let a = fill(f, &mut Pcg64::seed_from_u64(99));
            let b = fill(f, &mut Pcg64::seed_from_u64(99));
            assert_eq!(a, b, "{}", f.name());
        }
    }
}
