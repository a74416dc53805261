//! What the pipeline, `bench` and the commands need from a board size, as one trait.
//!
//! One implementation serves every size: [`Nxn<S>`] over a box [`Shape`] (4×4, 9×9,
//! 16×16, 25×25). Strategies (fill, carve), the symmetry group and the row format are
//! written once; the searches run through the shape's kernel hooks, so [`Nine`] =
//! `Nxn<Box3>` runs the hand-tuned 9×9 solver and canonical form, chosen at compile
//! time. Code written over `B: Board` is monomorphised per size: no size test, no
//! indirection in the hot loop. Commands pick the size once, from `--size` or a
//! manifest, with [`with_board!`](crate::with_board).

use std::fmt::Debug;
use std::hash::Hash;

use rand::Rng;

use crate::engine::generate::{Carve, Fill, Symmetry};
use crate::engine::grid::Size;
use crate::engine::nxn::{self, Shape};

pub use crate::engine::generate::Carved;
pub use crate::engine::nxn::solve::Verdict;
pub use crate::engine::rating::Rating;

/// One board size's puzzle logic, as the pipeline uses it.
pub trait Board: Send + Sync + 'static {
    /// The size this implementation handles.
    const SIZE: Size;
    /// A board: `[u8; N²]`, row-major, 0 = empty.
    type Cells: Copy + Eq + Hash + Debug + Send + Sync + AsRef<[u8]> + AsMut<[u8]>;
    /// An element of the size's symmetry group.
    type Transform: Copy + Send + Sync;

    /// The empty board.
    fn empty() -> Self::Cells;
    /// A complete valid grid made with `strategy`.
    fn fill<R: Rng + ?Sized>(strategy: Fill, rng: &mut R) -> Self::Cells;
    /// Carves `solution` with `strategy`, stopping at `stop_at` clues (0: to the end),
    /// removing whole orbits of `symmetry`. Callers check
    /// [`Carve::supports_symmetry`] first.
    fn carve<R: Rng + ?Sized>(
        strategy: Carve,
        stop_at: u16,
        symmetry: Symmetry,
        solution: &Self::Cells,
        rng: &mut R,
    ) -> Carved<Self::Cells>;
    /// Takes out of `puzzle` (uniquely solvable) every given it can, visiting the
    /// cells of `order`, as long as it stays uniquely solvable: a minimal puzzle.
    fn minimize(puzzle: &Self::Cells, order: &[u16]) -> Self::Cells;
    /// The exact pattern-first canonical form (DESIGN.md), `0` for empty.
    fn canonical_form(puzzle: &Self::Cells) -> Self::Cells;
    /// A uniformly random element of the symmetry group.
    fn random_transform<R: Rng + ?Sized>(rng: &mut R) -> Self::Transform;
    /// A random element of the group that keeps clue patterns symmetric under
    /// `symmetry` symmetric ([`Symmetry::None`]: [`Board::random_transform`]).
    fn random_transform_keeping<R: Rng + ?Sized>(
        symmetry: Symmetry,
        rng: &mut R,
    ) -> Self::Transform;
    /// Applies `t` to a puzzle or grid.
    fn apply(t: &Self::Transform, cells: &Self::Cells) -> Self::Cells;
    /// Solutions of `cells`, counted up to `limit`.
    fn count_solutions(cells: &Self::Cells, limit: u32) -> u32;
    /// The technique rating (SE scale), `None` where the size has no rater (all but
    /// 9×9) or the puzzle is not uniquely solvable.
    fn rate(puzzle: &Self::Cells) -> Option<Rating>;
    /// [`Board::rate`] for a puzzle known to be uniquely solvable with `solution`
    /// (the pipeline's seeds): skips the uniqueness check. A rating above `cap`
    /// (tenths) may be only a lower bound: the rater stops at the first step above
    /// it (`u8::MAX`: never).
    fn rate_solved(puzzle: &Self::Cells, solution: &Self::Cells, cap: u8) -> Option<Rating>;
    /// Solves `cells`, telling apart no, one and several solutions.
    fn solve(cells: &Self::Cells) -> Verdict<Self::Cells>;
    /// True when no row, column or box repeats a value and every value is in range
    /// (empty cells allowed).
    fn is_consistent(cells: &Self::Cells) -> bool;
    /// Writes `cells` in the text format (`.` for empty) into `out`, exactly
    /// `SIZE.n_cells()` bytes.
    fn format_into(cells: &Self::Cells, out: &mut [u8]);
    /// As [`Board::format_into`] with `0` for empty (the canonical column).
    fn format_zeros_into(cells: &Self::Cells, out: &mut [u8]);
}

/// The classic board: the engine on 3×3 boxes, with the hand-tuned 9×9 kernels
/// ([`Shape`]'s hooks for [`nxn::Box3`]).
pub type Nine = Nxn<nxn::Box3>;

/// Runs `$body` with `$b` bound to the [`Board`] type of the runtime `Size` `$size`.
#[macro_export]
macro_rules! with_board {
    ($size:expr, $b:ident => $body:expr) => {
        $crate::with_board!(@arms $size, $b => $body;
            Nine Box3, Four Box2, Sixteen Box4, TwentyFive Box5)
    };
    (@arms $size:expr, $b:ident => $body:expr; $($size_name:ident $shape:ident),*) => {
        match $size {
            $($crate::engine::grid::Size::$size_name => {
                type $b = $crate::engine::board::Nxn<$crate::engine::nxn::$shape>;
                $body
            })*
        }
    };
}

/// The engine on boxes of `S`: 4×4, 9×9 ([`Nine`]), 16×16 and 25×25. Strategies are
/// written once; the searches go through `S`'s kernel hooks.
#[derive(Clone, Copy, Debug, Default)]
pub struct Nxn<S>(std::marker::PhantomData<S>);

impl<S: Shape> Board for Nxn<S> {
    const SIZE: Size = S::SIZE;
    type Cells = S::Cells;
    type Transform = nxn::transform::Transform<S>;

    #[inline]
    fn empty() -> Self::Cells {
        S::empty()
    }

    #[inline]
    fn fill<R: Rng + ?Sized>(strategy: Fill, rng: &mut R) -> Self::Cells {
        crate::engine::generate::fill::<S, R>(strategy, rng)
    }

    #[inline]
    fn carve<R: Rng + ?Sized>(
        strategy: Carve,
        stop_at: u16,
        symmetry: Symmetry,
        solution: &Self::Cells,
        rng: &mut R,
    ) -> Carved<Self::Cells> {
        crate::engine::generate::carve::<S, R>(strategy, stop_at, symmetry, solution, rng)
    }

    #[inline]
    fn minimize(puzzle: &Self::Cells, order: &[u16]) -> Self::Cells {
        crate::engine::generate::minimize::<S>(*puzzle, order)
    }

    #[inline]
    fn canonical_form(puzzle: &Self::Cells) -> Self::Cells {
        S::canonical_form(puzzle)
    }

    #[inline]
    fn random_transform<R: Rng + ?Sized>(rng: &mut R) -> Self::Transform {
        nxn::transform::Transform::<S>::random(rng)
    }

    #[inline]
    fn random_transform_keeping<R: Rng + ?Sized>(
        symmetry: Symmetry,
        rng: &mut R,
    ) -> Self::Transform {
        nxn::transform::Transform::<S>::random_keeping(symmetry, rng)
    }

    #[inline]
    fn apply(t: &Self::Transform, cells: &Self::Cells) -> Self::Cells {
        t.apply(cells)
    }

    #[inline]
    fn count_solutions(cells: &Self::Cells, limit: u32) -> u32 {
        S::count_solutions(cells.as_ref(), limit)
    }

    fn solve(cells: &Self::Cells) -> Verdict<Self::Cells> {
        S::solve(cells.as_ref())
    }

    #[inline]
    fn rate(puzzle: &Self::Cells) -> Option<Rating> {
        crate::engine::rating::rate(nine(puzzle)?)
    }

    #[inline]
    fn rate_solved(puzzle: &Self::Cells, solution: &Self::Cells, cap: u8) -> Option<Rating> {
        let (puzzle, solution) = (nine(puzzle)?, nine(solution)?);
        Some(crate::engine::rating::rate_solved(puzzle, solution, cap))
    }

    fn is_consistent(cells: &Self::Cells) -> bool {
        nxn::is_consistent::<S>(cells.as_ref())
    }

    #[inline]
    fn format_into(cells: &Self::Cells, out: &mut [u8]) {
        crate::engine::grid::format_sized_into(cells.as_ref(), out);
    }

    #[inline]
    fn format_zeros_into(cells: &Self::Cells, out: &mut [u8]) {
        crate::engine::grid::format_sized_zeros_into(cells.as_ref(), out);
    }
}

/// The 9×9 board `cells` is, `None` for every other size: the rater ([`crate::engine::rating`])
/// is 9×9's. (The length is the shape's constant: the test folds away.)
#[inline(always)]
fn nine(cells: &impl AsRef<[u8]>) -> Option<&[u8; 81]> {
    cells.as_ref().try_into().ok()
}
