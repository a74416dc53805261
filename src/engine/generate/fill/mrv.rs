//! `mrv` (SEEDS.md): a steered random fill without backtracking.
//!
//! 1. Fill one box (the top-left one; every box is equivalent under the symmetry
//!    group) with a random permutation of 1..9.
//! 2. Before every random choice, place everything that is forced, as the write-up
//!    lists it: cells with a single candidate, and the last free digit of a row,
//!    column or box — a unit with one empty cell, whose cell then has at most that one
//!    candidate, so both are found by one "naked single" sweep. Repeat until nothing
//!    is forced. (Hidden singles — a digit with one free *place* in a unit — are not
//!    in the write-up; adding them cut the random choices from ~42 to ~38 per grid but
//!    made a fill 5× slower here, 42 µs against 8 µs, so they are left out.)
//! 3. Make the random choice in the cell with the fewest candidates ("minimum
//!    remaining values"; ties broken uniformly at random): a random candidate digit.
//! 4. When cells are left without candidates ("dead" cells), do not backtrack but
//!    repair: clear every row that holds an empty dead cell, plus one cell in each row
//!    at the column of such a dead cell (i.e. that column), and go on filling.
//! 5. Give up and restart from an empty board after [`MAX_REPAIRS`] repairs (the
//!    write-up says "about 20–30").
//!
//! The write-up is for 16×16 and 25×25 (where it fills a few boxes first); this crate's
//! board is 9×9, so the same steps run on 9×9. Invariant: only legal digits are ever
//! placed, so the board is always consistent and a full board is a valid grid; every
//! step fills a cell or repairs, and repairs are capped, so an attempt always ends.
//! State is ten `u128` bit sets and the cells, on the stack: no allocation.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::engine::grid::{Cells, N_CELLS};

/// Repairs allowed in one attempt before starting over (SEEDS.md: about 20–30).
const MAX_REPAIRS: u32 = 25;
/// All 81 cells as a bit set (bit `i` = cell `i`, row-major).
const ALL81: u128 = (1 << N_CELLS) - 1;

/// The 27 units (rows, columns, boxes) as 81-bit cell sets.
static UNITS: [u128; 27] = {
    let mut u = [0u128; 27];
    let mut i = 0;
    while i < N_CELLS {
        let (r, c) = (i / 9, i % 9);
        u[r] |= 1 << i;
        u[9 + c] |= 1 << i;
        u[18 + (r / 3) * 3 + c / 3] |= 1 << i;
        i += 1;
    }
    u
};

/// Per cell, its 20 peers (same row, column or box) as a bit set.
static PEERS: [u128; N_CELLS] = {
    let mut p = [0u128; N_CELLS];
    let mut i = 0;
    while i < N_CELLS {
        let (r, c) = (i / 9, i % 9);
        p[i] = (UNITS[r] | UNITS[9 + c] | UNITS[18 + (r / 3) * 3 + c / 3]) & !(1 << i);
        i += 1;
    }
    p
};

/// The board of one attempt, kept **per digit**: `possible[d]` is the set of cells
/// that no placed `d` sees. Why bit sets: every question the method asks — which cells
/// are dead, which are naked singles, which cells have the fewest candidates — becomes
/// a few 128-bit operations over all 81 cells at once (a bit-sliced candidate count),
/// which is what makes `mrv` faster than `backtrack` on 9×9 (measured in
/// `benches/strategies.rs`). A cell's candidates are `possible[d] ∩ empty` over d.
struct Board {
    cells: Cells,
    /// Index 1..=9; index 0 unused.
    possible: [u128; 10],
    empty: u128,
}

/// Bit-sliced candidate counts of the empty cells: cell `i` has
/// `b0[i] + 2·b1[i] + 4·b2[i] + 8·b3[i]` candidates.
struct Counts {
    b: [u128; 4],
}

impl Counts {
    /// The empty cells with exactly `k` candidates.
    #[inline(always)]
    fn equal(&self, k: u32, empty: u128) -> u128 {
        let mut m = empty;
        for (bit, plane) in self.b.iter().enumerate() {
            m &= if k >> bit & 1 != 0 { *plane } else { !*plane };
        }
        m
    }
}

/// What propagation left behind.
enum After {
    /// Every cell is filled: a valid grid.
    Full,
    /// Nothing is forced and no cell is dead: time for a random choice.
    Open(Counts),
    /// Some empty cells have no candidate: rows and columns (9-bit sets) to repair.
    Dead { rows: u16, cols: u16 },
}

impl Board {
    fn new() -> Board {
        Board {
            cells: [0; N_CELLS],
            possible: [ALL81; 10],
            empty: ALL81,
        }
    }

    /// Puts `d` in empty cell `i`; the caller has checked that `d` is a candidate.
    #[inline(always)]
    fn place(&mut self, i: usize, d: u8) {
        debug_assert!(self.possible[d as usize] & self.empty & (1 << i) != 0);
        self.cells[i] = d;
        self.empty &= !(1u128 << i);
        self.possible[d as usize] &= !PEERS[i];
    }

    /// Candidate digits of cell `i` (bits 1..=9).
    #[inline(always)]
    fn candidates(&self, i: usize) -> u16 {
        let mut m = 0u16;
        for d in 1..=9 {
            m |= (((self.possible[d] >> i) & 1) as u16) << d;
        }
        m
    }

    /// Candidate counts of all empty cells: a 4-bit ripple-carry adder per cell, run
    /// on 81 cells in parallel, one digit plane at a time.
    #[inline(always)]
    fn counts(&self) -> Counts {
        let mut b = [0u128; 4];
        for d in 1..=9 {
            let mut carry = self.possible[d] & self.empty;
            for plane in &mut b {
                let next = *plane & carry;
                *plane ^= carry;
                carry = next;
            }
        }
        Counts { b }
    }

    /// Places forced digits until none is left (step 2), then reports the state.
    fn propagate(&mut self) -> After {
        loop {
            if self.empty == 0 {
                return After::Full;
            }
            let counts = self.counts();
            let dead = counts.equal(0, self.empty);
            if dead != 0 {
                let (mut rows, mut cols) = (0u16, 0u16);
                let mut m = dead;
                while m != 0 {
                    let i = m.trailing_zeros() as usize;
                    m &= m - 1;
                    rows |= 1 << (i / 9);
                    cols |= 1 << (i % 9);
                }
                return After::Dead { rows, cols };
            }
            // Naked singles, digit by digit. Two singles of one digit may see each
            // other; the second is then no longer a candidate (`m` is re-masked after
            // each placement) and shows up as a dead cell in the next round.
            let naked = counts.equal(1, self.empty);
            if naked != 0 {
                for d in 1..=9u8 {
                    let mut m = naked & self.possible[d as usize] & self.empty;
                    while m != 0 {
                        self.place(m.trailing_zeros() as usize, d);
                        m &= self.possible[d as usize] & self.empty;
                    }
                }
                continue;
            }
            return After::Open(counts);
        }
    }

    /// Step 4: clears rows `rows` and columns `cols` (9-bit sets), then rebuilds the
    /// digit planes from the cells left (repairs are rare: well under one per grid).
    fn repair(&mut self, rows: u16, cols: u16) {
        for i in 0..N_CELLS {
            if rows & (1 << (i / 9)) != 0 || cols & (1 << (i % 9)) != 0 {
                self.cells[i] = 0;
            }
        }
        self.possible = [ALL81; 10];
        self.empty = 0;
        for (i, &d) in self.cells.iter().enumerate() {
            if d == 0 {
                self.empty |= 1 << i;
            } else {
                self.possible[d as usize] &= !PEERS[i];
            }
        }
    }

    /// Step 3: an empty cell with the fewest candidates, uniformly at random among ties.
    fn most_constrained<R: Rng + ?Sized>(&self, counts: &Counts, rng: &mut R) -> usize {
        for k in 2..=9 {
            let mut tied = counts.equal(k, self.empty);
            if tied != 0 {
                for _ in 0..rng.random_range(0..tied.count_ones()) {
                    tied &= tied - 1;
                }
                return tied.trailing_zeros() as usize;
            }
        }
        unreachable!("propagation returns Open only with an empty cell of 2..=9 candidates")
    }
}

/// Fills a complete grid; restarts when an attempt runs out of repairs.
pub(super) fn fill<R: Rng + ?Sized>(rng: &mut R) -> Cells {
    loop {
        if let Some(cells) = attempt(rng) {
            return cells;
        }
    }
}

/// One attempt from the empty board; `None` after too many repairs.
fn attempt<R: Rng + ?Sized>(rng: &mut R) -> Option<Cells> {
    let mut board = Board::new();
    // Step 1: box 0 (cells 0-2, 9-11, 18-20) gets a random permutation.
    let mut perm = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
    perm.shuffle(rng);
    for (k, &d) in perm.iter().enumerate() {
        board.place(9 * (k / 3) + k % 3, d);
    }
    let mut repairs = 0;
    loop {
        match board.propagate() {
            After::Full => return Some(board.cells),
            After::Dead { rows, cols } => {
                repairs += 1;
                if repairs > MAX_REPAIRS {
                    return None;
                }
                board.repair(rows, cols);
            }
            After::Open(counts) => {
                let i = board.most_constrained(&counts, rng);
                let d = super::random_digit(board.candidates(i), rng);
                board.place(i, d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_peers_have_the_right_sizes() {
        assert!(UNITS.iter().all(|u| u.count_ones() == 9));
        assert!(PEERS.iter().all(|p| p.count_ones() == 20));
        assert_eq!(UNITS[..9].iter().fold(0, |a, u| a | u), ALL81);
        assert_eq!(UNITS[18..].iter().fold(0, |a, u| a | u), ALL81);
    }

    #[test]
    fn counts_match_candidates() {
        let mut b = Board::new();
        b.place(0, 1);
        b.place(40, 2);
        let counts = b.counts();
        for i in (0..N_CELLS).filter(|&i| b.cells[i] == 0) {
            let k = b.candidates(i).count_ones();
            assert_ne!(counts.equal(k, b.empty) & (1 << i), 0, "cell {i}");
        }
    }
}
