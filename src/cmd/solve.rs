//! `sudoku-factory solve [FILE|-]`: one puzzle per line in, one line out — the
//! solution, or a verdict (`no solution`, `multiple solutions`, `line N: …`).

use crate::cli::InputArgs;
use crate::grid::{format_into, parse_line, N_CELLS};
use crate::solve::{solve, Verdict};

use super::{for_each_line, Outcome};

pub fn run(args: &InputArgs) -> anyhow::Result<Outcome> {
    for_each_line(&args.input, |line, no, out| {
        let puzzle = match parse_line(line, no) {
            Ok(p) => p,
            Err(e) => {
                writeln!(out, "{e}")?;
                return Ok(false);
            }
        };
        match solve(&puzzle) {
            Verdict::Unique(solution) => {
                let mut buf = [0u8; N_CELLS];
                format_into(&solution, &mut buf);
                out.write_all(&buf)?;
                out.write_all(b"\n")?;
                Ok(true)
            }
            Verdict::NoSolution => writeln!(out, "line {no}: no solution").map(|_| false),
            Verdict::Multiple => writeln!(out, "line {no}: multiple solutions").map(|_| false),
        }
    })
}
