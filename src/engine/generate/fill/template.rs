//! `template` (SEEDS.md) on any board: start from one fixed pattern grid and shuffle it
//! by validity-preserving maps, as the 9×9 [`crate::engine::generate::fill`](mod@super) does.
//!
//! The pattern: row 0 is `1..=N`; each next row is the previous one shifted left by B
//! inside a band and by 1 at a band boundary, i.e. row `r` is row 0 rotated by
//! `B·(r mod B) + r div B`, so the value at `(r, c)` is
//! `(B·(r mod B) + r div B + c) mod N + 1`. It is valid: within a band the B rows are
//! rotations by multiples of B, so each box (B consecutive columns) gets B disjoint
//! runs of B values; the B bands are offset by 1, 2, … < B, so columns never repeat.
//!
//! Then a random relabelling of the values, a random order of the rows inside each
//! band, of the columns inside each stack, of the bands and of the stacks. (No
//! transposition: the write-up does not list it.) Very fast, but every grid is
//! equivalent to the pattern: the low diversity the write-up warns about.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::engine::nxn::{Shape, MAX_N};

/// The pattern's value (1-based) at `(r, c)`.
#[inline(always)]
pub(super) fn pattern<S: Shape>(r: usize, c: usize) -> u8 {
    (((r % S::B) * S::B + r / S::B + c) % S::N + 1) as u8
}

/// A random order of the N lines that keeps every chute (band or stack) together: the
/// chutes are shuffled, then the B lines inside each. `lines[i]` is the source line
/// of output line `i`.
fn chute_order<S: Shape, R: Rng + ?Sized>(rng: &mut R) -> [u8; MAX_N] {
    let b = S::B;
    let mut chutes = [0u8; MAX_N];
    for (k, x) in chutes[..b].iter_mut().enumerate() {
        *x = k as u8;
    }
    chutes[..b].shuffle(rng);
    let mut lines = [0u8; MAX_N];
    for (out, &src) in chutes[..b].iter().enumerate() {
        let mut inner = [0u8; MAX_N];
        for (k, x) in inner[..b].iter_mut().enumerate() {
            *x = k as u8;
        }
        inner[..b].shuffle(rng);
        for (i, &k) in inner[..b].iter().enumerate() {
            lines[b * out + i] = (b as u8) * src + k;
        }
    }
    lines
}

/// Fills a complete grid: the pattern, shuffled.
pub(super) fn fill<S: Shape, R: Rng + ?Sized>(rng: &mut R) -> S::Cells {
    let mut values = [0u8; MAX_N];
    for (k, x) in values[..S::N].iter_mut().enumerate() {
        *x = k as u8 + 1;
    }
    values[..S::N].shuffle(rng);
    let rows = chute_order::<S, R>(rng);
    let cols = chute_order::<S, R>(rng);
    let mut g = S::empty();
    let cells = g.as_mut();
    for (r, &sr) in rows[..S::N].iter().enumerate() {
        for (c, &sc) in cols[..S::N].iter().enumerate() {
            cells[S::N * r + c] = values[pattern::<S>(sr as usize, sc as usize) as usize - 1];
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::nxn::{is_consistent, solves, Box2, Box3, Box4, Box5};
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    fn pattern_grid<S: Shape>() -> Vec<u8> {
        (0..S::CELLS)
            .map(|i| pattern::<S>(S::row(i), S::col(i)))
            .collect()
    }

    #[test]
    fn the_pattern_is_the_described_grid_at_every_size() {
        let p = pattern_grid::<Box3>();
        // Same rows as the 9×9 template.rs test.
        assert_eq!(p[0..9], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(p[9..18], [4, 5, 6, 7, 8, 9, 1, 2, 3]);
        assert_eq!(p[27..36], [2, 3, 4, 5, 6, 7, 8, 9, 1]);
        assert_eq!(p[72..81], [9, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            pattern_grid::<Box2>(),
            [1, 2, 3, 4, 3, 4, 1, 2, 2, 3, 4, 1, 4, 1, 2, 3]
        );
        assert!(solves::<Box4>(
            &pattern_grid::<Box4>(),
            &pattern_grid::<Box4>()
        ));
        assert!(solves::<Box5>(
            &pattern_grid::<Box5>(),
            &pattern_grid::<Box5>()
        ));
    }

    /// The band/stack shift structure every shuffled pattern keeps, once the
    /// relabelling is sorted out. Write the grid as `G(r, c) = π(a_r + b_c mod N)`: the
    /// pattern's row shift `a_r` and column `b_c` after the row and column moves, and
    /// the relabelling π. Relabel each value by the column where row 0 holds it; then
    /// row r maps column c to the column of value `b_c + (a_r − a_0)`. Rows of row 0's
    /// band are shifted by a multiple of B, which moves whole stacks: the B values of
    /// row r in one stack all sit in *one* stack of row 0. Rows of other bands are
    /// shifted by `k·B + j` with `0 < j < B`, which splits every stack over exactly
    /// *two* stacks of row 0. A random grid keeps neither.
    fn has_template_structure<S: Shape>(g: &[u8]) -> bool {
        let (n, b) = (S::N, S::B);
        // column_in_row0[v]: where row 0 holds value v (the relabelling).
        let mut column_in_row0 = [0usize; MAX_N + 1];
        for c in 0..n {
            column_in_row0[g[c] as usize] = c;
        }
        for r in 1..n {
            for s in 0..b {
                // The stacks of row 0 that hold row r's values of stack s.
                let mut stacks_hit = 0u32;
                for c in s * b..s * b + b {
                    stacks_hit |= 1 << (column_in_row0[g[r * n + c] as usize] / b);
                }
                let want = if r / b == 0 { 1 } else { 2 };
                if stacks_hit.count_ones() != want {
                    return false;
                }
            }
        }
        true
    }

    #[test]
    fn template_grids_keep_the_band_and_stack_shift_structure() {
        let mut rng = Pcg64::seed_from_u64(12);
        for _ in 0..100 {
            let g = fill::<Box2, _>(&mut rng);
            assert!(has_template_structure::<Box2>(&g), "{g:?}");
        }
        for _ in 0..20 {
            let g = fill::<Box4, _>(&mut rng);
            assert!(has_template_structure::<Box4>(&g), "{g:?}");
        }
        // And the check can fail: a grid from mrv is not a shuffled pattern in general.
        let mut found_other = false;
        for _ in 0..20 {
            let g = super::super::mrv::fill::<Box4, _>(&mut rng);
            found_other |= !has_template_structure::<Box4>(&g);
        }
        assert!(found_other);
        assert!(is_consistent::<Box4>(&pattern_grid::<Box4>()));
    }
}
