//! `digits` (SEEDS.md): place digit 1 nine times, then digit 2 nine times, … up to 9,
//! each copy at a uniformly random cell where it is legal (empty, and the digit not yet
//! in the cell's row, column or box). When a copy has no legal cell left, the whole
//! grid starts over from empty. At the end every digit is checked to occur nine times.
//!
//! Naive and slow by design: it is one of the strategies to benchmark. Nothing is
//! undone step by step, so a run is a sequence of independent attempts, and the
//! expected number of attempts is the inverse of the chance that random placement
//! never paints itself into a corner (measured with `sudoku-factory bench`).

use rand::Rng;

use super::Occupancy;
use crate::engine::grid::{Cells, N_CELLS};

/// Fills a complete grid digit by digit, restarting from scratch when stuck.
pub(super) fn fill<R: Rng + ?Sized>(rng: &mut R) -> Cells {
    loop {
        if let Some(cells) = attempt(rng) {
            return cells;
        }
    }
}

/// One attempt from the empty board; `None` when some copy of a digit had no legal cell.
fn attempt<R: Rng + ?Sized>(rng: &mut R) -> Option<Cells> {
    let mut occ = Occupancy::EMPTY;
    // Legal cells of the current digit, rebuilt before each copy (a stack array).
    let mut legal = [0u8; N_CELLS];
    for d in 1..=9u8 {
        let bit = 1u16 << d;
        for _ in 0..9 {
            let mut n = 0;
            for i in 0..N_CELLS {
                if occ.cells[i] == 0 && occ.candidates(i) & bit != 0 {
                    legal[n] = i as u8;
                    n += 1;
                }
            }
            if n == 0 {
                return None;
            }
            occ.place(legal[rng.random_range(0..n)] as usize, d);
        }
    }
    // The final check of the write-up: every digit occurs nine times. Placement only
    // ever puts a digit where it is legal, so this holds by construction; it is kept
    // because the write-up makes it part of the method.
    let mut counts = [0u8; 10];
    for &v in &occ.cells {
        counts[v as usize] += 1;
    }
    counts[1..].iter().all(|&n| n == 9).then_some(occ.cells)
}
