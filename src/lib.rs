//! sudoku-factory: banks of uniquely solvable, graded Sudoku puzzles.
pub mod canon;
pub mod cli;
pub mod cmd;
pub mod generate;
pub mod grade;
pub mod grid;
pub mod pipeline;
pub mod rng;
pub mod sink;
pub mod solve;
pub mod transform;
