//! Making a seed puzzle the expensive way: fill a complete grid, then carve clues out
//! of it while the solution stays unique (SEEDS.md).
//!
//! Each family is a file: [`fill`](mod@fill) builds complete grids, [`carve`](mod@carve)
//! removes clues, [`symmetry`] gives the orbits a symmetric carve removes together.
//! Strategies are value enums so that the pipeline can pick one per run without
//! dynamic dispatch in the hot loop, and so that adding a strategy is adding a variant
//! and a function in the family's file.
//!
//! Architecture invariant: generation draws randomness only from the `rng` it is
//! handed; it never seeds one itself, which is what makes the bank deterministic.

pub mod carve;
pub mod fill;
pub mod symmetry;

pub use carve::{carve, minimize, Carve, Carved};
pub use fill::{fill, Fill};
pub use symmetry::Symmetry;
