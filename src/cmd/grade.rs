//! `sudoku-factory grade [FILE|-] [--steps] [--json]`: the technique rating of each
//! 9×9 puzzle on the Sudoku Explainer scale ([`crate::engine::rating`]), one line out
//! per line in: `4.2 xy-wing`, or a verdict (`line N: ...`) for a puzzle without a
//! unique solution (exit 1) or a malformed line (exit 2, every other line still
//! answered). `--steps` adds the solving path, `--json` writes one object per line
//! (`{"line", "error"}` for a line that cannot be rated or read). Lines are rated on
//! every core and answered in input order.

use std::io::{self, Write};

use serde_json::json;

use crate::cli::GradeArgs;
use crate::engine::board::Nine;
use crate::engine::rating::{Chain, Link, Node, Pattern, Rater, Step};

use super::{for_each_line_parallel, LineErrors, Outcome};

pub fn run(args: &GradeArgs) -> anyhow::Result<Outcome> {
    thread_local! {
        /// Each thread's rater and step list, kept across the lines it rates.
        static RATER: std::cell::RefCell<(Rater, Vec<Step>)> =
            std::cell::RefCell::new((Rater::new(), Vec::new()));
    }
    let errors = if args.json {
        LineErrors::Json
    } else {
        LineErrors::Text
    };
    // Rating is 9×9 only: a line of another size is told so. Lines are rated on
    // every core (a hard one takes up to a minute), answered in input order.
    for_each_line_parallel::<Nine>(&args.input, errors, false, |puzzle, no, out| {
        RATER.with(|r| {
            let (rater, steps) = &mut *r.borrow_mut();
            steps.clear();
            let rated = if args.steps {
                rater.rate_with_steps(puzzle, steps)
            } else {
                rater.rate(puzzle)
            };
            answer(args, no, rated, steps, out)
        })
    })
}

/// Writes line `no`'s answer: its rating (and path), or why it has none.
fn answer(
    args: &GradeArgs,
    no: usize,
    rated: Result<crate::engine::rating::Rating, crate::engine::rating::RateError>,
    steps: &[Step],
    out: &mut dyn Write,
) -> io::Result<Outcome> {
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
            let with = args.candidates;
            object["steps"] = steps.iter().map(|s| step_json(s, with)).collect();
        }
        writeln!(out, "{object}")?;
    } else {
        writeln!(out, "{rating} {}", rating.technique.name())?;
        for step in steps {
            write_step(out, step)?;
        }
    }
    Ok(Outcome::Clean)
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

/// A step as JSON: the step's own lists (as in the text form), its patterns one
/// by one, and with `candidates` the board before it.
fn step_json(step: &Step, candidates: bool) -> serde_json::Value {
    let mut object = json!({
        "technique": step.technique.name(),
        "rating": f64::from(step.rating) / 10.0,
        "cells": step.cells,
        "placements": step.placements,
        "eliminations": step.eliminations,
        "patterns": step.patterns.iter().map(pattern_json).collect::<Vec<_>>(),
    });
    if candidates {
        let grid: String = step.grid.iter().map(|&v| char::from(b'0' + v)).collect();
        object["grid"] = grid.into();
        object["candidates"] = step.candidates.iter().map(|&m| digits_text(m)).collect();
    }
    object
}

/// `"129"`: the digits of a candidate mask (bit `d` = digit `d + 1`).
fn digits_text(mask: u16) -> String {
    (0..9)
        .filter(|d| mask >> d & 1 != 0)
        .map(|d| char::from(b'1' + d as u8))
        .collect()
}

/// `{"kind": "row", "number": 3}`: unit `u` (rows, columns, boxes; numbered 1..9).
fn house_json(u: u8) -> serde_json::Value {
    let kind = ["row", "column", "box"][usize::from(u / 9)];
    json!({"kind": kind, "number": u % 9 + 1})
}

fn pattern_json(pattern: &Pattern) -> serde_json::Value {
    let mut object = json!({
        "houses": (0..27u8)
            .filter(|u| pattern.houses >> u & 1 != 0)
            .map(house_json)
            .collect::<Vec<_>>(),
        "digits": (1..=9u8)
            .filter(|d| pattern.digits >> (d - 1) & 1 != 0)
            .collect::<Vec<_>>(),
        "cells": pattern.cells,
        "placements": pattern.placements,
        "eliminations": pattern.eliminations,
    });
    if let Some(chain) = &pattern.chain {
        object["chain"] = chain_json(chain);
    }
    object
}

fn chain_json(chain: &Chain) -> serde_json::Value {
    let node = |n: &Node| {
        let link = match n.link {
            Link::Assumed => json!("assumed"),
            Link::Cell => json!("cell"),
            Link::House(u) => house_json(u),
            Link::Rule(t) => json!({"rule": t.name()}),
        };
        json!({
            "cell": n.cell,
            "digit": n.digit,
            "on": n.on,
            "from": n.from,
            "link": link,
        })
    };
    json!({
        "kind": if chain.forcing { "forcing" } else { "contradiction" },
        "branches": chain
            .branches
            .iter()
            .map(|b| b.iter().map(node).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
    })
}
