//! `sudoku-factory transform --seed S --count K [FILE|-]`: K random equivalents of
//! each input line, drawn from (seed, line number) so that reruns agree.

use crate::cli::TransformArgs;
use crate::rng::{item_rng, Purpose};
use crate::transform::Transform;

use super::{for_each_line, write_cells, Outcome};

pub fn run(args: &TransformArgs) -> anyhow::Result<Outcome> {
    for_each_line(&args.input, |cells, no, out| {
        let mut rng = item_rng(args.seed, Purpose::Transform, no as u64, 0);
        for _ in 0..args.count {
            write_cells(out, &Transform::random(&mut rng).apply(&cells), false)?;
        }
        Ok(Outcome::Clean)
    })
}
