//! The puzzle engine: boards, their text format, solving, making, transforming,
//! canonicalising and grading puzzles. No I/O, no clap type, no global state, and
//! randomness only from an `rng` it is handed (`tests/tidy.rs` checks the first and
//! the third).
//!
//! * [`grid`] — the sizes, the 9×9 board (`[u8; 81]`, 0 = empty) and the one-line
//!   text format of every size, with the line reader's checks.
//! * [`solve`] — the hand-tuned 9×9 counting solver (digit bitboards, singles, MRV)
//!   and the carve step's uniqueness test: the hot loop of everything.
//! * [`generate`] — the 9×9 seed strategies: [`generate::fill`] builds complete grids,
//!   [`generate::carve`] removes clues while the solution stays unique,
//!   [`generate::symmetry`] gives the orbits a symmetric carve removes together.
//! * [`canon`] — the exact pattern-first 9×9 canonical form.
//! * [`nxn`] — the engine over a box `Shape` for 4×4, 16×16 and 25×25 (solver, fill,
//!   carve, canonical form, the 4×4 census), and for every size, 9×9 included, the
//!   symmetry group as a value type ([`nxn::transform`], expansion).
//! * [`grade`] — difficulty bands by clue count.
//! * [`rating`] — the 9×9 technique rating on the Sudoku Explainer scale: a logical
//!   solver applying the easiest technique at each step (singles to dynamic forcing
//!   chains); the puzzle's rating is its hardest step. No allocation per step.
//! * [`board`] — the `Board` trait: one size's puzzle logic as the pipeline, `bench`
//!   and the commands use it, implemented by the 9×9 fast path (`Nine`) and by `nxn`
//!   (`Nxn<S>`), chosen at compile time ([`with_board!`](crate::with_board)).

pub mod board;
pub mod canon;
pub mod generate;
pub mod grade;
pub mod grid;
pub mod nxn;
pub mod rating;
pub mod solve;
