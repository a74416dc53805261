//! `sudoku-factory transform [--size N] --seed S --count K [FILE|-]`: K random
//! equivalents of each input line, drawn from (seed, line number) so that reruns agree.

use crate::cli::TransformArgs;
use crate::engine::board::Board;
use crate::run::rng::{item_rng, Purpose};

use super::{for_each_line_as, write_cells, LineErrors, Outcome};

pub fn run(args: &TransformArgs) -> anyhow::Result<Outcome> {
    crate::with_board!(args.size, B => transform_lines::<B>(args))
}

fn transform_lines<B: Board>(args: &TransformArgs) -> anyhow::Result<Outcome> {
    // A malformed line answers with its message on each of its K lines.
    let errors = LineErrors::TextTimes(args.count);
    for_each_line_as::<B>(&args.input, errors, true, |cells, no, out| {
        let mut rng = item_rng(args.seed, Purpose::Transform, no as u64, 0);
        for _ in 0..args.count {
            let t = B::random_transform(&mut rng);
            write_cells::<B>(out, &B::apply(&t, &cells), false)?;
        }
        Ok(Outcome::Clean)
    })
}
