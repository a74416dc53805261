//! Small unavoidable sets of a solution grid and a hitting set of them (SEEDS.md,
//! `unavoidable`).
//!
//! An unavoidable set is a set of cells whose digits can be permuted to give another
//! valid grid; a puzzle without a clue in it has at least two solutions. The small
//! ones found here:
//!
//! * two rows `r1`, `r2` of one band: follow `c -> c'` where `S[r2][c] = S[r1][c']`;
//!   a cycle of this column permutation is a set of columns on which the two rows hold
//!   the same digits, so exchanging the rows there keeps rows, columns and boxes valid.
//!   Length 2 is the 4-cell rectangle in 2 boxes, length 3 a 6-cell set in 3 boxes
//!   (the columns of a cycle lie in different stacks: two cells of one box never share
//!   a digit). Likewise two columns of one stack.
//! * three rows of one band and two digits `a`, `b` whose columns there coincide:
//!   swapping `a` and `b` in those 6 cells (3 boxes) keeps everything valid. Likewise
//!   for stacks.
//!
//! Sets are `u128` cell masks in a fixed-size stack array: nothing allocates.

use rand::Rng;

use crate::engine::grid::Cells;

/// Most sets kept; the enumeration finds far fewer on any grid (≤ 36 + 36 + 216).
const MAX_SETS: usize = 320;

/// The cells to keep as clues: at least one cell of every small unavoidable set.
pub(super) fn hitting_set<R: Rng + ?Sized>(s: &Cells, rng: &mut R) -> u128 {
    let mut sets = [0u128; MAX_SETS];
    let mut n = 0;
    for transpose in [false, true] {
        // at(r, c): the cell (r, c) of the grid, or of its transpose.
        let at = |r: usize, c: usize| if transpose { 9 * c + r } else { 9 * r + c };
        for band in 0..3 {
            // Two rows of a band: cycles of length 2 and 3.
            for (a, b) in [(0, 1), (0, 2), (1, 2)] {
                let (r1, r2) = (3 * band + a, 3 * band + b);
                let mut col_of = [0usize; 10]; // digit -> its column in row r1
                for c in 0..9 {
                    col_of[s[at(r1, c)] as usize] = c;
                }
                let mut seen = 0u16;
                for start in 0..9 {
                    if seen & (1 << start) != 0 {
                        continue;
                    }
                    let (mut c, mut len, mut mask) = (start, 0, 0u128);
                    while seen & (1 << c) == 0 {
                        seen |= 1 << c;
                        mask |= 1 << at(r1, c) | 1 << at(r2, c);
                        len += 1;
                        c = col_of[s[at(r2, c)] as usize];
                    }
                    if len <= 3 && n < MAX_SETS {
                        sets[n] = mask;
                        n += 1;
                    }
                }
            }
            // Three rows of a band, two digits on the same three columns.
            let mut cols = [0u16; 10]; // digit -> its columns in this band
            let mut cells = [0u128; 10];
            for r in 3 * band..3 * band + 3 {
                for c in 0..9 {
                    let d = s[at(r, c)] as usize;
                    cols[d] |= 1 << c;
                    cells[d] |= 1 << at(r, c);
                }
            }
            for d1 in 1..=9 {
                for d2 in d1 + 1..=9 {
                    if cols[d1] == cols[d2] && n < MAX_SETS {
                        sets[n] = cells[d1] | cells[d2];
                        n += 1;
                    }
                }
            }
        }
    }
    // Greedy hitting set: take a random unhit set, keep the cell of it that hits the
    // most still-unhit sets (ties broken at random), until every set is hit.
    let mut keep = 0u128;
    loop {
        let unhit = sets[..n].iter().filter(|&&m| m & keep == 0).count();
        if unhit == 0 {
            return keep;
        }
        let pick = rng.random_range(0..unhit);
        let set = *sets[..n]
            .iter()
            .filter(|&&m| m & keep == 0)
            .nth(pick)
            .expect("pick < unhit");
        let (mut best, mut best_hits, mut ties) = (0u32, 0usize, 0u32);
        let mut m = set;
        while m != 0 {
            let cell = m.trailing_zeros();
            m &= m - 1;
            let hits = sets[..n]
                .iter()
                .filter(|&&x| x & keep == 0 && x >> cell & 1 != 0)
                .count();
            if hits > best_hits {
                (best, best_hits, ties) = (cell, hits, 1);
            } else if hits == best_hits {
                ties += 1;
                if rng.random_range(0..ties) == 0 {
                    best = cell;
                }
            }
        }
        keep |= 1 << best;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::generate::fill::{fill, Fill};
    use crate::engine::solve::count_solutions;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn removing_the_hitting_set_from_a_full_grid_keeps_it_unique_but_not_the_sets() {
        // Every found set is really unavoidable: emptying it leaves two solutions.
        let mut rng = Pcg64::seed_from_u64(5);
        for _ in 0..10 {
            let g = fill(Fill::Backtrack, &mut rng);
            let keep = hitting_set(&g, &mut rng);
            assert!(keep != 0);
            // Emptying every cell except the kept ones... must hit each set: check
            // that a kept cell lies in each rectangle found by brute force.
            for r1 in 0..9 {
                for r2 in r1 + 1..9 {
                    if r1 / 3 != r2 / 3 {
                        continue;
                    }
                    for c1 in 0..9 {
                        for c2 in c1 + 1..9 {
                            let (a, b, c, d) = (9 * r1 + c1, 9 * r1 + c2, 9 * r2 + c1, 9 * r2 + c2);
                            if g[a] == g[d] && g[b] == g[c] {
                                let mut p = g;
                                for x in [a, b, c, d] {
                                    p[x] = 0;
                                }
                                assert_eq!(count_solutions(&p, 3), 2);
                                let set = 1u128 << a | 1 << b | 1 << c | 1 << d;
                                assert_ne!(set & keep, 0, "rectangle not hit");
                            }
                        }
                    }
                }
            }
        }
    }
}
