//! `sudoku-factory canon [FILE|-]`: the canonical form of each input line (puzzle or
//! grid), written with `0` for empty cells as DESIGN.md defines it.

use crate::canon::Canonicalizer;
use crate::cli::InputArgs;

use super::{for_each_line, write_cells, Outcome};

pub fn run(args: &InputArgs) -> anyhow::Result<Outcome> {
    let mut canon = Canonicalizer::new();
    for_each_line(&args.input, |cells, _, out| {
        write_cells(out, &canon.canonical_form(&cells), true).map(|_| Outcome::Clean)
    })
}
