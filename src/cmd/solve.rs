//! `sudoku-factory solve [--size N] [FILE|-]`: one puzzle per line in, one line out —
//! the solution, or a verdict (`line N: no solution`, `line N: multiple solutions`, or
//! the parse error). Exit 1 when a puzzle has no unique solution, 2 for malformed lines.

use crate::cli::InputArgs;
use crate::engine::board::{Board, Verdict};

use super::{for_each_line, write_cells, Outcome};

pub fn run(args: &InputArgs) -> anyhow::Result<Outcome> {
    crate::with_board!(args.size, B => solve_lines::<B>(args))
}

fn solve_lines<B: Board>(args: &InputArgs) -> anyhow::Result<Outcome> {
    for_each_line::<B>(&args.input, |puzzle, no, out| match B::solve(&puzzle) {
        Verdict::Unique(solution) => {
            write_cells::<B>(out, &solution, false).map(|_| Outcome::Clean)
        }
        Verdict::NoSolution => writeln!(out, "line {no}: no solution").map(|_| Outcome::Defects),
        Verdict::Multiple => {
            writeln!(out, "line {no}: multiple solutions").map(|_| Outcome::Defects)
        }
    })
}
