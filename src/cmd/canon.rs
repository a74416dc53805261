//! `sudoku-factory canon [FILE|-]`: the canonical form of each input line (puzzle or
//! grid), written with `0` for empty cells; a bad line gets its error instead.

use crate::canon::Canonicalizer;
use crate::cli::InputArgs;
use crate::grid::{format_zeros_into, parse_line, N_CELLS};

use super::{for_each_line, Outcome};

pub fn run(args: &InputArgs) -> anyhow::Result<Outcome> {
    let mut canon = Canonicalizer::new();
    for_each_line(&args.input, |line, no, out| match parse_line(line, no) {
        Ok(cells) => {
            let mut buf = [0u8; N_CELLS];
            format_zeros_into(&canon.canonical_form(&cells), &mut buf);
            out.write_all(&buf)?;
            out.write_all(b"\n")?;
            Ok(true)
        }
        Err(e) => writeln!(out, "{e}").map(|_| false),
    })
}
