//! `sudoku-factory canon [--size N] [FILE|-]`: the canonical form of each input line
//! (puzzle or grid), written with `0` for empty cells as DESIGN.md defines it. On
//! 16×16 and 25×25 the form is exact but can be slow on full grids (README).

use crate::cli::InputArgs;
use crate::engine::board::Board;

use super::{for_each_line, write_cells, Outcome};

pub fn run(args: &InputArgs) -> anyhow::Result<Outcome> {
    crate::with_board!(args.size, B => canon_lines::<B>(args))
}

fn canon_lines<B: Board>(args: &InputArgs) -> anyhow::Result<Outcome> {
    for_each_line::<B>(&args.input, |cells, _, out| {
        write_cells::<B>(out, &B::canonical_form(&cells), true).map(|_| Outcome::Clean)
    })
}
