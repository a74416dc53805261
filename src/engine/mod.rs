//! The puzzle engine: boards, their text format, solving, making, transforming,
//! canonicalising and grading puzzles. No I/O, no clap type, no global state, and
//! randomness only from an `rng` it is handed (`tests/suite/tidy.rs` checks the first
//! and the third).
//!
//! * [`grid`] — the sizes, the 9×9 board (`[u8; 81]`, 0 = empty) and the one-line
//!   text format of every size, with the line reader's checks.
//! * [`nxn`] — the box [`nxn::Shape`] of every size (4×4, 9×9, 16×16, 25×25) with
//!   its kernel hooks; the generic solver [`nxn::solve`] with the hand-tuned 9×9
//!   kernel beside it ([`nxn::solve::nine`]: band bitboards, singles, MRV, the carve
//!   step's uniqueness test, the hot loop of everything), the generic canonical form
//!   [`nxn::canon`] with its 9×9 kernel [`nxn::canon::nine`] (exact, pattern-first);
//!   the symmetry group as a value type ([`nxn::transform`], expansion) and the 4×4
//!   census.
//! * [`generate`] — the seed strategies of every size, written once over a `Shape`:
//!   [`generate::fill`](mod@generate::fill) builds complete grids,
//!   [`generate::carve`](mod@generate::carve) removes clues while the solution stays
//!   unique, [`generate::symmetry`] gives the orbits a symmetric carve removes together.
//! * [`bands`] — difficulty band tables: clue ranges, or rating ranges with
//!   `--grade rating`.
//! * [`rating`] — the 9×9 technique rating on the Sudoku Explainer scale: a logical
//!   solver applying the easiest technique at each step (singles to dynamic forcing
//!   chains); the puzzle's rating is its hardest step. No allocation per step.
//! * [`board`] — the `Board` trait: one size's puzzle logic as the pipeline, `bench`
//!   and the commands use it, implemented once by `Nxn<S>` (`Nine` = `Nxn<Box3>`),
//!   the size chosen at compile time ([`with_board!`](crate::with_board)).

pub mod bands;
pub mod board;
pub mod generate;
pub mod grid;
pub mod nxn;
pub mod rating;
