//! `template` (SEEDS.md): start from one fixed pattern grid and shuffle it by
//! validity-preserving maps.
//!
//! The pattern: row 1 is `1..9`; each next row is the previous one shifted left by 3
//! inside a band and by 1 at a band boundary, i.e. row `r` is row 1 rotated by
//! `3·(r mod 3) + r div 3`. Then a random relabelling of the digits, a random order of
//! the rows inside each band, of the columns inside each stack, of the bands and of
//! the stacks. (No transposition: the write-up does not list it.) Very fast, but every
//! grid is equivalent to the pattern, so all grids share one canonical form — the low
//! diversity the write-up warns about, which the tests and `bench` make visible.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::engine::grid::{Cells, N_CELLS};

/// The fixed pattern grid (1-based digits).
const PATTERN: Cells = {
    let mut g = [0u8; N_CELLS];
    let mut r = 0;
    while r < 9 {
        let shift = 3 * (r % 3) + r / 3;
        let mut c = 0;
        while c < 9 {
            g[9 * r + c] = ((c + shift) % 9 + 1) as u8;
            c += 1;
        }
        r += 1;
    }
    g
};

/// A random order of 9 lines that keeps every chute (band or stack) together: the
/// chutes are shuffled, then the three lines inside each. `lines[i]` is the source
/// line of output line `i`.
fn chute_order<R: Rng + ?Sized>(rng: &mut R) -> [u8; 9] {
    let mut chutes = [0u8, 1, 2];
    chutes.shuffle(rng);
    let mut lines = [0u8; 9];
    for (out, &src) in chutes.iter().enumerate() {
        let mut inner = [0u8, 1, 2];
        inner.shuffle(rng);
        for (i, &k) in inner.iter().enumerate() {
            lines[3 * out + i] = 3 * src + k;
        }
    }
    lines
}

/// Fills a complete grid: the pattern, shuffled.
pub(super) fn fill<R: Rng + ?Sized>(rng: &mut R) -> Cells {
    let mut digits = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
    digits.shuffle(rng);
    let rows = chute_order(rng);
    let cols = chute_order(rng);
    let mut g = [0u8; N_CELLS];
    for (r, &sr) in rows.iter().enumerate() {
        for (c, &sc) in cols.iter().enumerate() {
            g[9 * r + c] = digits[PATTERN[9 * sr as usize + sc as usize] as usize - 1];
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_is_the_described_grid() {
        let row = |r: usize| PATTERN[9 * r..9 * r + 9].to_vec();
        assert_eq!(row(0), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(row(1), [4, 5, 6, 7, 8, 9, 1, 2, 3]);
        assert_eq!(row(2), [7, 8, 9, 1, 2, 3, 4, 5, 6]);
        assert_eq!(row(3), [2, 3, 4, 5, 6, 7, 8, 9, 1]);
        assert_eq!(row(8), [9, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert!(crate::engine::grid::is_consistent(&PATTERN));
    }
}
