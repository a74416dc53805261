//! `sudoku-factory transform --seed S --count K [FILE|-]`: K random equivalents of
//! each input line, drawn from (seed, line number) so that reruns agree.

use crate::cli::TransformArgs;
use crate::grid::{format_into, parse_line, N_CELLS};
use crate::rng::{item_rng, Purpose};
use crate::transform::Transform;

use super::{for_each_line, Outcome};

pub fn run(args: &TransformArgs) -> anyhow::Result<Outcome> {
    for_each_line(&args.input, |line, no, out| match parse_line(line, no) {
        Ok(cells) => {
            let mut rng = item_rng(args.seed, Purpose::Transform, no as u64, 0);
            let mut buf = [0u8; N_CELLS];
            for _ in 0..args.count {
                format_into(&Transform::random(&mut rng).apply(&cells), &mut buf);
                out.write_all(&buf)?;
                out.write_all(b"\n")?;
            }
            Ok(true)
        }
        Err(e) => writeln!(out, "{e}").map(|_| false),
    })
}
