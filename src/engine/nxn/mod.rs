//! The engine over a box shape: boards of any box side b (N = b², N² cells) —
//! 4×4, 9×9, 16×16 and 25×25 (DESIGN.md, "Text format"). Everything above the
//! searches (fill and carve strategies, the symmetry group, the row format, the
//! pipeline) is written once over a [`Shape`], monomorphised per size so loop bounds
//! are constants.
//!
//! The searches are the shape's **kernels** ([`Shape::count_solutions`],
//! [`Shape::solve`], [`Shape::removal_keeps_unique`], [`Shape::canonical_form`]):
//! by default this module's generic [`solve`] and [`canon`]; [`Box3`] plugs in the
//! 9×9 ones in [`crate::engine::nxn::solve::nine`] and [`crate::engine::nxn::canon::nine`], hand-tuned to
//! 81 cells (27-bit band words, fixed permutation tables) and several times faster
//! there. The hook is resolved at compile time: no size test in a hot loop. Tests
//! check the generic kernels against the 9×9 ones on `Box3`.
//!
//! Representation: a board is `S::Cells`, a plain `[u8; N²]` in row-major order,
//! `0` = empty, `1..=N` = a symbol. Candidate sets are `u32` masks with bit `v` for
//! value `v` (N ≤ 25, so bits 1..=25). Scratch arrays are sized for the largest board
//! ([`MAX_N`], [`MAX_CELLS`]) and live on the stack: nothing here allocates per puzzle.
//!
//! Architecture invariant: like the rest of the puzzle logic, this module does no I/O,
//! never sees a clap type and draws randomness only from an `rng` it is handed.

pub mod canon;
pub mod census;
pub mod solve;
pub mod transform;

use std::fmt::Debug;
use std::hash::Hash;

use crate::engine::grid::Size;

/// Largest side the engine handles (25×25).
pub const MAX_N: usize = 25;
/// Cells of the largest board.
pub const MAX_CELLS: usize = MAX_N * MAX_N;

/// The six orders of three items, lexicographic: the 9×9 kernels' permutations of
/// bands, stacks and the lines inside them.
pub(crate) const PERMS3: [[u8; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// A board shape: box side `B`, side `N = B²`, `CELLS = N²` cells.
pub trait Shape: Copy + Clone + Debug + Default + Send + Sync + 'static {
    /// Box side b.
    const B: usize;
    /// Side N = b² (also the number of symbols).
    const N: usize = Self::B * Self::B;
    /// Cells N².
    const CELLS: usize = Self::N * Self::N;
    /// The runtime name of this shape.
    const SIZE: Size;
    /// A board: `[u8; N²]`, row-major, 0 = empty.
    type Cells: Copy + Eq + Hash + Debug + Send + Sync + AsRef<[u8]> + AsMut<[u8]>;

    /// The empty board.
    fn empty() -> Self::Cells;

    /// Bits 1..=N: every value.
    #[inline(always)]
    fn all_values() -> u32 {
        ((1u32 << Self::N) - 1) << 1
    }

    /// Row of cell `i`.
    #[inline(always)]
    fn row(i: usize) -> usize {
        i / Self::N
    }

    /// Column of cell `i`.
    #[inline(always)]
    fn col(i: usize) -> usize {
        i % Self::N
    }

    /// Box of cell `i` (boxes numbered row-major).
    #[inline(always)]
    fn box_of(i: usize) -> usize {
        (Self::row(i) / Self::B) * Self::B + Self::col(i) / Self::B
    }

    /// The `k`-th cell (row-major inside the box) of box `b`.
    #[inline(always)]
    fn box_cell(b: usize, k: usize) -> usize {
        let (r, c) = (
            (b / Self::B) * Self::B + k / Self::B,
            (b % Self::B) * Self::B + k % Self::B,
        );
        r * Self::N + c
    }

    // The kernels: the searches every strategy, command and bank check runs through,
    // chosen per shape at compile time. The defaults are this engine's generic
    // solver and canonical form; `Box3` plugs in the hand-tuned 9×9 ones
    // ([`crate::engine::nxn::solve::nine`], [`crate::engine::nxn::canon::nine`]), which are several times
    // faster on the classic board. Callers always go through these hooks, never the
    // generic functions, so every size gets its fastest kernel.

    /// Solutions of `cells` (`CELLS` long), counted up to `limit`.
    #[inline]
    fn count_solutions(cells: &[u8], limit: u32) -> u32 {
        solve::count_solutions::<Self>(cells, limit)
    }

    /// Solves `cells`, telling apart no, one and several solutions.
    #[inline]
    fn solve(cells: &[u8]) -> solve::Verdict<Self::Cells> {
        solve::solve::<Self>(cells)
    }

    /// The carve test: `puzzle` was uniquely solvable with `value` in `cell`, which is
    /// now empty; true when it still is (no solution puts another value there).
    #[inline]
    fn removal_keeps_unique(puzzle: &[u8], cell: usize, value: u8) -> bool {
        solve::removal_keeps_unique::<Self>(puzzle, cell, value)
    }

    /// The exact pattern-first canonical form (DESIGN.md), `0` for empty.
    #[inline]
    fn canonical_form(puzzle: &Self::Cells) -> Self::Cells {
        canon::canonical_form::<Self>(puzzle)
    }
}

macro_rules! shape {
    ($(#[$doc:meta])* $name:ident, $b:literal, $size:expr $(, { $($kernel:item)* })?) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Shape for $name {
            const B: usize = $b;
            const SIZE: Size = $size;
            type Cells = [u8; $b * $b * $b * $b];

            #[inline(always)]
            fn empty() -> Self::Cells {
                [0; $b * $b * $b * $b]
            }

            $($($kernel)*)?
        }
    };
}

shape!(
    /// 4×4 with 2×2 boxes.
    Box2, 2, Size::Four
);
shape!(
    /// 9×9 with 3×3 boxes, on the hand-tuned 9×9 kernels. Tests check those against
    /// the generic ones (`nxn::solve::count_solutions::<Box3>`, `nxn::canon`).
    Box3, 3, Size::Nine, {
        #[inline]
        fn count_solutions(cells: &[u8], limit: u32) -> u32 {
            crate::engine::nxn::solve::nine::count_solutions(nine(cells), limit)
        }

        #[inline]
        fn solve(cells: &[u8]) -> solve::Verdict<Self::Cells> {
            crate::engine::nxn::solve::nine::solve(nine(cells))
        }

        #[inline]
        fn removal_keeps_unique(puzzle: &[u8], cell: usize, value: u8) -> bool {
            crate::engine::nxn::solve::nine::removal_keeps_unique(nine(puzzle), cell, value)
        }

        #[inline]
        fn canonical_form(puzzle: &Self::Cells) -> Self::Cells {
            crate::engine::nxn::canon::nine::canonical_form(puzzle)
        }
    }
);
shape!(
    /// 16×16 with 4×4 boxes.
    Box4, 4, Size::Sixteen
);
shape!(
    /// 25×25 with 5×5 boxes.
    Box5, 5, Size::TwentyFive
);

/// A 9×9 board as the 9×9 kernels take it. Callers pass `Box3::CELLS` cells, so the
/// length check never fails.
#[inline(always)]
fn nine(cells: &[u8]) -> &[u8; 81] {
    cells.try_into().expect("a 9x9 board has 81 cells")
}

/// Number of givens (non-empty cells).
#[inline]
pub fn n_clues(cells: &[u8]) -> u16 {
    cells.iter().filter(|&&v| v != 0).count() as u16
}

/// True when every row, column and box of the `S` board `cells` holds each value at
/// most once and every value is at most N. Empty cells are allowed.
pub fn is_consistent<S: Shape>(cells: &[u8]) -> bool {
    debug_assert_eq!(cells.len(), S::CELLS);
    let (mut rows, mut cols, mut boxes) = ([0u32; MAX_N], [0u32; MAX_N], [0u32; MAX_N]);
    for (i, &v) in cells.iter().enumerate() {
        if v == 0 {
            continue;
        }
        if usize::from(v) > S::N {
            return false;
        }
        let bit = 1u32 << v;
        let (r, c, b) = (S::row(i), S::col(i), S::box_of(i));
        if (rows[r] | cols[c] | boxes[b]) & bit != 0 {
            return false;
        }
        rows[r] |= bit;
        cols[c] |= bit;
        boxes[b] |= bit;
    }
    true
}

/// True when `grid` is a complete valid `S` grid that agrees with every given of `puzzle`.
pub fn solves<S: Shape>(puzzle: &[u8], grid: &[u8]) -> bool {
    grid.iter().all(|&v| v != 0)
        && is_consistent::<S>(grid)
        && puzzle.iter().zip(grid).all(|(&p, &g)| p == 0 || p == g)
}

/// Runs the generic test function `$check` on every shape: 4×4, 9×9, 16×16, 25×25.
#[cfg(test)]
macro_rules! on_every_shape {
    ($check:ident) => {{
        use $crate::engine::nxn::{Box2, Box3, Box4, Box5};
        $check::<Box2>();
        $check::<Box3>();
        $check::<Box4>();
        $check::<Box5>();
    }};
}
#[cfg(test)]
pub(crate) use on_every_shape;

/// The pattern grid value(r, c) = ((r mod b)·b + r div b + c) mod N + 1: a valid
/// grid for every box side (and a very symmetric one), for tests.
#[cfg(test)]
pub(crate) fn pattern_grid<S: Shape>() -> S::Cells {
    let mut g = S::empty();
    for (i, cell) in g.as_mut().iter_mut().enumerate() {
        let (r, c) = (S::row(i), S::col(i));
        *cell = (((r % S::B) * S::B + r / S::B + c) % S::N + 1) as u8;
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry_is_a_partition<S: Shape>() {
        let mut seen_box = vec![0usize; S::CELLS];
        for b in 0..S::N {
            for k in 0..S::N {
                let i = S::box_cell(b, k);
                assert_eq!(S::box_of(i), b);
                seen_box[i] += 1;
            }
        }
        assert!(seen_box.iter().all(|&n| n == 1));
        assert_eq!(S::all_values().count_ones() as usize, S::N);
        assert_eq!(S::empty().as_ref().len(), S::CELLS);
        assert_eq!(S::SIZE.side(), S::N);
    }

    #[test]
    fn every_shape_has_consistent_geometry() {
        on_every_shape!(geometry_is_a_partition);
    }

    #[test]
    fn consistency_spots_repeats_in_rows_columns_and_boxes() {
        // 1 2 | 3 4
        // 3 4 | 1 2
        // ----+----
        // 2 1 | 4 3
        // 4 3 | 2 1
        let grid = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];
        assert!(is_consistent::<Box2>(&grid));
        assert!(solves::<Box2>(&grid, &grid));
        let mut bad = grid;
        bad.swap(0, 1); // rows stay fine, columns 0 and 1 now repeat
        assert!(!is_consistent::<Box2>(&bad));
        let mut too_big = grid;
        too_big[0] = 5;
        assert!(!is_consistent::<Box2>(&too_big));
    }
}
