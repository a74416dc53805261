//! Fill strategies for every board size: the five methods of SEEDS.md ("Seed
//! population: fill a complete grid") written once over a [`Shape`], so 4×4, 16×16 and
//! 25×25 get the same strategies as the hand-tuned 9×9 code in
//! [`crate::generate::fill`], whose semantics each file here follows. One file per
//! strategy, so each can be read against its write-up:
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

use super::{Shape, MAX_CELLS, MAX_N};

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
    use super::super::Box2;
    use super::*;

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
