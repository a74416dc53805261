//! What the pipeline, `bench` and the commands need from a board size, as one trait.
//!
//! [`Nine`] is the hand-tuned 9×9 path (`grid`, `solve`, `generate`, `canon`, and the
//! shared symmetry group `nxn::transform::Transform<Box3>`); [`Nxn`] is the generic
//! engine ([`crate::engine::nxn`]) for 4×4, 16×16 and 25×25. Code written over
//! `B: Board` is monomorphised per size: no size test, no indirection in the hot loop. Commands pick the implementation once, from `--size` or a
//! manifest, with [`with_board!`](crate::with_board).

use std::fmt::Debug;
use std::hash::Hash;

use rand::Rng;

use crate::engine::generate::{Carve, CarveConfig, Fill, Symmetry};
use crate::engine::grid::{Size, N_CELLS};
use crate::engine::nxn::{self, Shape};

pub use crate::engine::nxn::carve::Carved;
pub use crate::engine::nxn::solve::Verdict;

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
    /// [`CarveConfig::supports_symmetry`] first.
    fn carve<R: Rng + ?Sized>(
        strategy: Carve,
        stop_at: u16,
        symmetry: Symmetry,
        solution: &Self::Cells,
        rng: &mut R,
    ) -> Carved<Self::Cells>;
    /// The exact pattern-first canonical form (DESIGN.md), `0` for empty.
    fn canonical_form(puzzle: &Self::Cells) -> Self::Cells;
    /// A uniformly random element of the symmetry group.
    fn random_transform<R: Rng + ?Sized>(rng: &mut R) -> Self::Transform;
    /// Applies `t` to a puzzle or grid.
    fn apply(t: &Self::Transform, cells: &Self::Cells) -> Self::Cells;
    /// Solutions of `cells`, counted up to `limit`.
    fn count_solutions(cells: &Self::Cells, limit: u32) -> u32;
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

/// The 9×9 fast path.
#[derive(Clone, Copy, Debug, Default)]
pub struct Nine;

impl Board for Nine {
    const SIZE: Size = Size::Nine;
    type Cells = [u8; N_CELLS];
    type Transform = nxn::transform::Transform<nxn::Box3>;

    #[inline]
    fn empty() -> Self::Cells {
        [0; N_CELLS]
    }

    #[inline]
    fn fill<R: Rng + ?Sized>(strategy: Fill, rng: &mut R) -> Self::Cells {
        crate::engine::generate::fill(strategy, rng)
    }

    #[inline]
    fn carve<R: Rng + ?Sized>(
        strategy: Carve,
        stop_at: u16,
        symmetry: Symmetry,
        solution: &Self::Cells,
        rng: &mut R,
    ) -> Carved<Self::Cells> {
        let config = CarveConfig {
            strategy,
            // 9×9 bands never exceed 81 clues (grade checks), so this never saturates.
            stop_at: u8::try_from(stop_at).unwrap_or(u8::MAX),
            symmetry,
        };
        let out = crate::engine::generate::carve_with(&config, solution, rng);
        Carved {
            puzzle: out.puzzle,
            n_clues: u16::from(out.n_clues),
            minimal: out.minimal,
        }
    }

    #[inline]
    fn canonical_form(puzzle: &Self::Cells) -> Self::Cells {
        crate::engine::canon::canonical_form(puzzle)
    }

    #[inline]
    fn random_transform<R: Rng + ?Sized>(rng: &mut R) -> Self::Transform {
        nxn::transform::Transform::<nxn::Box3>::random(rng)
    }

    #[inline]
    fn apply(t: &Self::Transform, cells: &Self::Cells) -> Self::Cells {
        t.apply(cells)
    }

    #[inline]
    fn count_solutions(cells: &Self::Cells, limit: u32) -> u32 {
        crate::engine::solve::count_solutions(cells, limit)
    }

    fn solve(cells: &Self::Cells) -> Verdict<Self::Cells> {
        match crate::engine::solve::solve(cells) {
            crate::engine::solve::Verdict::NoSolution => Verdict::NoSolution,
            crate::engine::solve::Verdict::Unique(grid) => Verdict::Unique(grid),
            crate::engine::solve::Verdict::Multiple => Verdict::Multiple,
        }
    }

    fn is_consistent(cells: &Self::Cells) -> bool {
        crate::engine::grid::is_consistent(cells)
    }

    #[inline]
    fn format_into(cells: &Self::Cells, out: &mut [u8]) {
        let out: &mut [u8; N_CELLS] = out.try_into().expect("a 9x9 row buffer");
        crate::engine::grid::format_into(cells, out);
    }

    #[inline]
    fn format_zeros_into(cells: &Self::Cells, out: &mut [u8]) {
        let out: &mut [u8; N_CELLS] = out.try_into().expect("a 9x9 row buffer");
        crate::engine::grid::format_zeros_into(cells, out);
    }
}

/// Runs `$body` with `$b` bound to the [`Board`] type of the runtime `Size` `$size`.
#[macro_export]
macro_rules! with_board {
    ($size:expr, $b:ident => $body:expr) => {
        match $size {
            $crate::engine::grid::Size::Nine => {
                type $b = $crate::engine::board::Nine;
                $body
            }
            $crate::engine::grid::Size::Four => {
                type $b = $crate::engine::board::Nxn<$crate::engine::nxn::Box2>;
                $body
            }
            $crate::engine::grid::Size::Sixteen => {
                type $b = $crate::engine::board::Nxn<$crate::engine::nxn::Box4>;
                $body
            }
            $crate::engine::grid::Size::TwentyFive => {
                type $b = $crate::engine::board::Nxn<$crate::engine::nxn::Box5>;
                $body
            }
        }
    };
}

/// The generic engine on boxes of `S` (4×4, 16×16, 25×25; also 9×9 as
/// `Nxn<Box3>`, which tests compare with [`Nine`]).
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
        nxn::fill::fill::<S, R>(strategy, rng)
    }

    #[inline]
    fn carve<R: Rng + ?Sized>(
        strategy: Carve,
        stop_at: u16,
        symmetry: Symmetry,
        solution: &Self::Cells,
        rng: &mut R,
    ) -> Carved<Self::Cells> {
        nxn::carve::carve::<S, R>(strategy, stop_at, symmetry, solution, rng)
    }

    #[inline]
    fn canonical_form(puzzle: &Self::Cells) -> Self::Cells {
        nxn::canon::canonical_form::<S>(puzzle)
    }

    #[inline]
    fn random_transform<R: Rng + ?Sized>(rng: &mut R) -> Self::Transform {
        nxn::transform::Transform::<S>::random(rng)
    }

    #[inline]
    fn apply(t: &Self::Transform, cells: &Self::Cells) -> Self::Cells {
        t.apply(cells)
    }

    #[inline]
    fn count_solutions(cells: &Self::Cells, limit: u32) -> u32 {
        nxn::solve::count_solutions::<S>(cells.as_ref(), limit)
    }

    fn solve(cells: &Self::Cells) -> Verdict<Self::Cells> {
        nxn::solve::solve::<S>(cells.as_ref())
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
