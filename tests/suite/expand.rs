//! Expansion and the canonical form through the binary: `--variants`, `canon`,
//! `transform`.

use crate::common;

use std::collections::{HashMap, HashSet};

use common::{factory, generate, read_bank};
use sudoku::Sudoku;

const MINIMAL: &str =
    "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";
const MINIMAL_CANON: &str =
    "000000001002001000003040050004000602010070508200600040050200700408700000701308000";
const SMALLEST_GRID: &str =
    "123456789456789123789123456214365897365897214897214365531642978642978531978531642";

fn stdout_of(assert: assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

#[test]
fn a_bank_with_100_variants_has_no_duplicates_and_count_over_100_classes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out)
        .count(10_000)
        .variants(100)
        .seed(9)
        .shard_rows(3000)
        .run();
    let rows = read_bank(&out);
    assert_eq!(rows.len(), 10_000);
    let puzzles: HashSet<&str> = rows.iter().map(|r| r.puzzle.as_str()).collect();
    assert_eq!(puzzles.len(), 10_000, "a puzzle string repeats");
    let mut classes: HashMap<&str, Vec<&common::Row>> = HashMap::new();
    for r in &rows {
        classes.entry(r.canonical.as_str()).or_default().push(r);
    }
    assert_eq!(classes.len(), 100);
    for members in classes.values() {
        assert_eq!(members.len(), 100);
        // Variants share clue count and band with their seed, and each is still
        // uniquely solvable with its own solution column (checked on a sample).
        assert!(members
            .iter()
            .all(|r| r.clues == members[0].clues && r.difficulty == members[0].difficulty));
        for r in members.iter().step_by(25) {
            let s = Sudoku::from_str_line(&r.puzzle).unwrap();
            assert!(s.is_uniquely_solvable());
            assert_eq!(s.solution().unwrap().to_str_line().to_string(), r.solution);
        }
    }
    // The canonical column is the canonical form of each row's puzzle.
    let sample: String = rows
        .iter()
        .step_by(97)
        .map(|r| format!("{}\n", r.puzzle))
        .collect();
    let forms = stdout_of(
        factory()
            .arg("canon")
            .write_stdin(sample)
            .assert()
            .success(),
    );
    for (form, r) in forms.lines().zip(rows.iter().step_by(97)) {
        assert_eq!(form, r.canonical);
    }
}

#[test]
fn canon_prints_the_design_examples() {
    let input = format!("{MINIMAL}\n{SMALLEST_GRID}\n");
    let out = stdout_of(factory().arg("canon").write_stdin(input).assert().success());
    assert_eq!(out, format!("{MINIMAL_CANON}\n{SMALLEST_GRID}\n"));
}

#[test]
fn transform_prints_reproducible_equivalents() {
    let run = |seed: &str| {
        stdout_of(
            factory()
                .args(["transform", "--seed", seed, "--count", "20"])
                .write_stdin(format!("{MINIMAL}\n"))
                .assert()
                .success(),
        )
    };
    let out = run("5");
    assert_eq!(out, run("5"));
    assert_ne!(out, run("6"));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 20);
    assert!(lines.iter().collect::<HashSet<_>>().len() > 1);
    let forms = stdout_of(
        factory()
            .arg("canon")
            .write_stdin(out.clone())
            .assert()
            .success(),
    );
    assert!(forms.lines().all(|f| f == MINIMAL_CANON));
    for l in &lines {
        assert!(Sudoku::from_str_line(l).unwrap().is_uniquely_solvable());
    }
}
