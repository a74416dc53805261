//! `digits` (SEEDS.md) on any board: place value 1 N times, then value 2 N times, … up
//! to N, each copy at a uniformly random cell where it is legal (empty, and the value
//! not yet in the cell's row, column or box). When a copy has no legal cell left, the
//! whole grid starts over from empty. At the end every value is checked to occur N
//! times. As in the 9×9 [`crate::engine::generate::fill`](mod@super), nothing is undone
//! step by step, so a run is a sequence of independent attempts.
//!
//! Naive by design, and on large boards hopeless: the chance that an attempt never
//! paints itself into a corner falls steeply with N (figures at [`super::unsuitable`],
//! which names 16×16 and 25×25 so the CLI refuses them).
//!
//! One attempt is cheap however large the board, so that measuring that chance is
//! cheap too: the legal cells of the current value are found a row at a time as
//! N-bit column masks (a row that already holds the value has none; otherwise its
//! empty columns minus the columns holding the value minus the stacks whose box in
//! this band holds it), so a copy costs O(N) word operations, not a scan of N² cells.

use rand::Rng;

use crate::engine::nxn::{Shape, MAX_CELLS, MAX_N};

/// Fills a complete grid value by value, restarting from scratch when stuck.
pub(super) fn fill<S: Shape, R: Rng + ?Sized>(rng: &mut R) -> S::Cells {
    let mut cells = [0u8; MAX_CELLS];
    loop {
        if attempt::<S, R>(&mut cells, rng) {
            let mut out = S::empty();
            out.as_mut().copy_from_slice(&cells[..S::CELLS]);
            return out;
        }
    }
}

/// One attempt from the empty board into `cells`; false when some copy of a value had
/// no legal cell.
pub(super) fn attempt<S: Shape, R: Rng + ?Sized>(cells: &mut [u8; MAX_CELLS], rng: &mut R) -> bool {
    let n = S::N;
    let b = S::B;
    let all_cols = (1u32 << n) - 1;
    let stack_cols = (1u32 << b) - 1; // the columns of stack 0
    cells[..S::CELLS].fill(0);
    // free_cols[r]: bit c set when cell (r, c) is empty.
    let mut free_cols = [all_cols; MAX_N];
    for v in 1..=n as u8 {
        // Where value v already stands: bit r / c / box.
        let (mut rows_v, mut cols_v, mut boxes_v) = (0u32, 0u32, 0u32);
        for _ in 0..n {
            // legal[r]: the columns where v may go in row r.
            let mut legal = [0u32; MAX_N];
            let mut total = 0;
            for band in 0..b {
                // Columns of the stacks whose box in this band already holds v.
                let mut blocked = cols_v;
                for s in 0..b {
                    if boxes_v >> (band * b + s) & 1 != 0 {
                        blocked |= stack_cols << (s * b);
                    }
                }
                for r in band * b..band * b + b {
                    if rows_v >> r & 1 == 0 {
                        legal[r] = free_cols[r] & !blocked;
                        total += legal[r].count_ones();
                    }
                }
            }
            if total == 0 {
                return false;
            }
            // The k-th legal cell in row-major order: uniform over all legal cells.
            let mut k = rng.random_range(0..total);
            let mut r = 0;
            while k >= legal[r].count_ones() {
                k -= legal[r].count_ones();
                r += 1;
            }
            let c = super::nth_bit(legal[r], k) as usize;
            cells[r * n + c] = v;
            free_cols[r] &= !(1 << c);
            rows_v |= 1 << r;
            cols_v |= 1 << c;
            boxes_v |= 1 << ((r / b) * b + c / b);
        }
    }
    // The write-up's final check: every value occurs N times. Placement only puts a
    // value where it is legal, so this holds by construction; it is kept because the
    // write-up makes it part of the method.
    let mut counts = [0u16; MAX_N + 1];
    for &v in &cells[..S::CELLS] {
        counts[v as usize] += 1;
    }
    counts[1..=n].iter().all(|&k| k as usize == n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::nxn::{solves, Box3, Box4};
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn a_successful_attempt_is_a_valid_grid_and_a_failed_one_stops_early() {
        let mut rng = Pcg64::seed_from_u64(8);
        let mut cells = [0u8; MAX_CELLS];
        let (mut ok, mut failed) = (0, 0);
        while ok < 5 {
            if attempt::<Box3, _>(&mut cells, &mut rng) {
                assert!(solves::<Box3>(&cells[..81], &cells[..81]));
                ok += 1;
            } else {
                // Stuck before the end: some cell is still empty, and what was placed
                // is consistent.
                assert!(cells[..81].contains(&0));
                assert!(crate::engine::nxn::is_consistent::<Box3>(&cells[..81]));
                failed += 1;
            }
        }
        // 9×9 attempts fail far more often than not (measured: ~1 in 7,700 succeeds).
        assert!(failed > 0);
    }

    #[test]
    fn failed_16x16_attempts_leave_a_consistent_partial_grid() {
        let mut rng = Pcg64::seed_from_u64(9);
        let mut cells = [0u8; MAX_CELLS];
        for _ in 0..100 {
            if !attempt::<Box4, _>(&mut cells, &mut rng) {
                assert!(crate::engine::nxn::is_consistent::<Box4>(&cells[..256]));
            }
        }
    }
}
