//! `sudoku-factory grade [FILE|-] [--steps] [--json]`: the technique rating of each
//! 9×9 puzzle on the Sudoku Explainer scale ([`crate::engine::rating`]), one line out
//! per line in: `4.2 xy-wing`, or a verdict (`line N: ...`) for a puzzle without a
//! unique solution (exit 1) or a malformed line (exit 2, every other line still
//! answered). `--steps` adds the solving path, `--json` writes one object per line
//! (`{"line", "error"}` for a line that cannot be rated or read).

use std::io::{self, Write};

use serde_json::json;

use crate::cli::GradeArgs;
use crate::engine::board::Nine;
use crate::engine::rating::{Rater, Step};

use super::{for_each_line_as, LineErrors, Outcome};

pub fn run(args: &GradeArgs) -> anyhow::Result<Outcome> {
    let mut rater = Rater::new();
    let mut steps = Vec::new();
    let errors = if args.json {
        LineErrors::Json
    } else {
        LineErrors::Text
    };
    // Rating is 9×9 only: a line of another size is told so.
    for_each_line_as::<Nine>(&args.input, errors, false, |puzzle, no, out| {
        steps.clear();
        let rated = if args.steps {
            rater.rate_with_steps(&puzzle, &mut steps)
        } else {
            rater.rate(&puzzle)
        };
        let rating = match rated {
            Ok(rating) => rating,
            Err(e) if args.json => {
                let line = json!({"line": no, "error": e.to_string()});
                return writeln!(out, "{line}").map(|_| Outcome::Defects);
            }
            Err(e) => return writeln!(out, "line {no}: {e}").map(|_| Outcome::Defects),
        };
        if args.json {
            let mut object = json!({
                "line": no,
                "rating": f64::from(rating.rating) / 10.0,
                "technique": rating.technique.name(),
            });
            if args.steps {
                object["steps"] = steps.iter().map(step_json).collect();
            }
            writeln!(out, "{object}")?;
        } else {
            writeln!(out, "{rating} {}", rating.technique.name())?;
            for step in &steps {
                write_step(out, step)?;
            }
        }
        Ok(Outcome::Clean)
    })
}

/// `r1c2`: a cell (0..80, row-major) as solvers write it.
fn cell_name(cell: u8) -> String {
    format!("r{}c{}", cell / 9 + 1, cell % 9 + 1)
}

/// One step as an indented text line: rating, technique, pattern, what it did.
fn write_step(out: &mut dyn Write, step: &Step) -> io::Result<()> {
    write!(
        out,
        "  {}.{} {}",
        step.rating / 10,
        step.rating % 10,
        step.technique.name()
    )?;
    if !step.cells.is_empty() {
        let cells: Vec<String> = step.cells.iter().map(|&c| cell_name(c)).collect();
        write!(out, " [{}]", cells.join(" "))?;
    }
    for &(c, d) in &step.placements {
        write!(out, " {}={d}", cell_name(c))?;
    }
    for &(c, d) in &step.eliminations {
        write!(out, " {}<>{d}", cell_name(c))?;
    }
    writeln!(out)
}

fn step_json(step: &Step) -> serde_json::Value {
    json!({
        "technique": step.technique.name(),
        "rating": f64::from(step.rating) / 10.0,
        "cells": step.cells,
        "placements": step.placements,
        "eliminations": step.eliminations,
    })
}
