//! `verify` end to end: a fresh bank is clean, and each kind of damage — a flipped
//! byte, a dropped row, a puzzle with two solutions, a duplicate — is reported with
//! the shard and row it is in. Damaged shards are rewritten with the zstd crate and
//! the manifest's size and checksum fixed, so that only the row checks can see them.

use crate::common;

use std::path::{Path, PathBuf};

use common::{factory, generate, rewrite_shard};
use predicates::prelude::*;
use sudoku_factory::engine::bands::BandTable;
use sudoku_factory::engine::grid::parse_line;
use sudoku_factory::engine::nxn::solve::nine::count_solutions;

/// A 1000-row bank in shards of 300 rows, in a fresh temporary directory.
fn bank() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out).count(1000).seed(5).shard_rows(300).run();
    (dir, out)
}

fn verify(out: &Path) -> assert_cmd::assert::Assert {
    common::verify(out).assert()
}

#[test]
fn a_fresh_bank_is_clean() {
    let (_dir, out) = bank();
    factory()
        .arg("verify")
        .arg(&out)
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "is clean: 4 shards, 1000 rows checked",
        ));
}

#[test]
fn a_flipped_byte_names_its_shard() {
    let (_dir, out) = bank();
    let path = out.join("bank-00002.csv.zst");
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&path, bytes).unwrap();
    verify(&out)
        .code(1)
        .stderr(predicate::str::contains("bank-00002.csv.zst: xxh3 "))
        .stderr(predicate::str::contains("the manifest says"))
        .stderr(predicate::str::contains("bank-00000.csv.zst").not());
}

#[test]
fn a_dropped_row_is_a_missing_id_and_a_short_shard() {
    let (_dir, out) = bank();
    // Line 0 is the header, so line 51 holds id 300 + 50.
    rewrite_shard(&out, "bank-00001.csv.zst", |lines| {
        assert!(lines[51].starts_with("350,"));
        lines.remove(51);
    });
    verify(&out)
        .code(1)
        .stderr(predicate::str::contains(
            "bank-00001.csv.zst line 52 (id 351): id 350 is missing",
        ))
        .stderr(predicate::str::contains(
            "bank-00001.csv.zst: 299 rows, the manifest says 300",
        ))
        .stderr(predicate::str::contains("checksum").not());
}

/// Regression: a row with a field more than the header passed `verify`, and pandas
/// refused the shard ("Expected 8 fields in line 11, saw 9").
#[test]
fn a_row_wider_than_the_header_is_reported() {
    let (_dir, out) = bank();
    rewrite_shard(&out, "bank-00001.csv.zst", |lines| {
        assert!(lines[10].starts_with("309,"));
        lines[10].push_str(",extra");
    });
    verify(&out).code(1).stderr(predicate::str::contains(
        "bank-00001.csv.zst line 11 (id 309): malformed: expected 8 fields, as the header has, found 9",
    ));
}

#[test]
fn a_puzzle_with_two_solutions_is_reported() {
    let (_dir, out) = bank();
    let bands = BandTable::default_9x9();
    let mut edited_id = String::new();
    rewrite_shard(&out, "bank-00000.csv.zst", |lines| {
        let mut fields: Vec<String> = lines[10].split(',').map(str::to_string).collect();
        edited_id = fields[0].clone();
        let mut puzzle = fields[1].clone().into_bytes();
        // Empty clues until the puzzle has more than one solution; keep the other
        // columns true so that uniqueness is the only rule broken.
        for c in 0..81 {
            if puzzle[c] == b'.' {
                continue;
            }
            puzzle[c] = b'.';
            let cells = parse_line(std::str::from_utf8(&puzzle).unwrap(), 1).unwrap();
            if count_solutions(&cells, 2) > 1 {
                break;
            }
        }
        let clues = puzzle.iter().filter(|&&b| b != b'.').count();
        fields[1] = String::from_utf8(puzzle).unwrap();
        fields[3] = clues.to_string();
        fields[4] = bands.bands()[bands.grade(clues as u8).unwrap()]
            .name
            .clone();
        fields[5] = String::new();
        lines[10] = fields.join(",");
    });
    verify(&out)
        .code(1)
        .stderr(predicate::str::contains(format!(
            "bank-00000.csv.zst line 11 (id {edited_id}): the puzzle has two or more solutions"
        )))
        .stderr(predicate::str::contains("has 1 defect in"));
}

/// Regression: on boards other than 9×9, a given that differs from the solution was
/// placed as if the board were 9 wide ("row 1, column 6" for 4×4's cell 5).
#[test]
fn a_wrong_given_is_placed_on_its_own_board_size() {
    for (size, side) in [(4usize, 4usize), (16, 16)] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("bank");
        generate(&out).size(size).count(5).variants(1).seed(3).run();
        let mut expected = String::new();
        rewrite_shard(&out, "bank-00000.csv.zst", |lines| {
            let mut fields: Vec<String> = lines[1].split(',').map(str::to_string).collect();
            let solution: Vec<char> = fields[2].chars().collect();
            let mut puzzle: Vec<char> = fields[1].chars().collect();
            // The first given past the first row, changed to another symbol of the
            // solution's (so the row still parses).
            let c = (side..side * side).find(|&c| puzzle[c] != '.').unwrap();
            puzzle[c] = *solution.iter().find(|&&v| v != solution[c]).unwrap();
            fields[1] = puzzle.into_iter().collect();
            lines[1] = fields.join(",");
            expected = format!(
                "the puzzle's given at row {}, column {} differs from the solution",
                c / side + 1,
                c % side + 1
            );
        });
        verify(&out)
            .code(1)
            .stderr(predicate::str::contains(format!(
                "bank-00000.csv.zst line 2 (id 0): {expected}"
            )));
    }
}

/// Regression: a fresh bank failed `verify` ("rating 8.3 forcing-chain, the rater
/// says 8.4") when a shard began inside a seed's variants (`--shard-rows` not a
/// multiple of `--variants`): its first row, a variant, was re-rated, and a variant
/// may rate 0.1 from its seed, whose rating the bank carries. Such rows are held to
/// the run the shard before ends with, and a wrong one is still caught.
#[test]
fn a_run_split_between_shards_is_checked_against_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out).count(2000).variants(4).shard_rows(383).run();
    verify(&out).code(0);
    // Shard 2 opens at id 766, the third variant of the seed at id 764 (shard 1),
    // one whose own rating is not its seed's.
    let mut seed_rating = String::new();
    let mut variant = String::new();
    rewrite_shard(&out, "bank-00001.csv.zst", |lines| {
        let seed = lines.iter().find(|l| l.starts_with("764,")).unwrap();
        seed_rating = seed.split(',').nth(6).unwrap().to_string();
    });
    rewrite_shard(&out, "bank-00002.csv.zst", |lines| {
        let mut fields: Vec<String> = lines[1].split(',').map(str::to_string).collect();
        assert_eq!(fields[0], "766");
        assert_eq!(
            fields[6], seed_rating,
            "a variant carries its seed's rating"
        );
        variant = fields[1].clone();
        fields[6] = "1.0".into();
        lines[1] = fields.join(",");
    });
    let own = factory()
        .arg("grade")
        .write_stdin(format!("{variant}\n"))
        .assert()
        .code(0);
    let own = common::stdout_of(&own);
    assert!(
        !own.starts_with(&format!("{seed_rating} ")),
        "the case this test is for: the variant rates {own} against its seed's {seed_rating}"
    );
    verify(&out)
        .code(1)
        .stderr(predicate::str::contains(
            "bank-00002.csv.zst line 2 (id 766): rating 1.0",
        ))
        .stderr(predicate::str::contains(format!(
            "the rater says {seed_rating}"
        )))
        .stderr(predicate::str::contains("has 1 defect in"));
}

#[test]
fn a_copied_puzzle_is_a_duplicate_of_the_first() {
    let (_dir, out) = bank();
    let mut first = String::new();
    rewrite_shard(&out, "bank-00000.csv.zst", |lines| first = lines[5].clone());
    rewrite_shard(&out, "bank-00003.csv.zst", |lines| {
        // Same row under this row's id: only the duplicate check can object.
        let (id, _) = lines[3].split_once(',').unwrap();
        let (_, rest) = first.split_once(',').unwrap();
        lines[3] = format!("{id},{rest}");
    });
    verify(&out)
        .code(1)
        .stderr(predicate::str::contains(
            "bank-00003.csv.zst line 4 (id 902): the same puzzle as id 4",
        ))
        .stderr(predicate::str::contains("has 1 defect in"));
}

/// The transpose of a 9×9 grid in the text format: another member of its class.
fn transposed(grid: &str) -> String {
    let cells = grid.as_bytes();
    (0..81)
        .map(|i| char::from(cells[(i % 9) * 9 + i / 9]))
        .collect()
}

#[test]
fn a_second_seed_of_a_class_is_reported() {
    let (_dir, out) = bank();
    let mut first = String::new();
    rewrite_shard(&out, "bank-00000.csv.zst", |lines| first = lines[5].clone());
    rewrite_shard(&out, "bank-00003.csv.zst", |lines| {
        // Seed 4 transposed, under this row's id: a different puzzle (no duplicate)
        // with right columns (same canonical form, clues, band and rating).
        let (id, _) = lines[3].split_once(',').unwrap();
        let mut fields: Vec<String> = first.split(',').map(str::to_string).collect();
        fields[0] = id.to_string();
        fields[1] = transposed(&fields[1]);
        fields[2] = transposed(&fields[2]);
        lines[3] = fields.join(",");
    });
    verify(&out)
        .code(1)
        .stderr(predicate::str::contains(
            "bank-00003.csv.zst line 4 (id 902): a second seed of the canonical class of id 4 \
             (a generated bank's seeds are essentially different)",
        ))
        .stderr(predicate::str::contains("has 1 defect in"));
}

#[test]
fn an_incomplete_manifest_and_an_extra_shard_are_reported() {
    let (_dir, out) = bank();
    let manifest_path = out.join("manifest.json");
    let text = std::fs::read_to_string(&manifest_path).unwrap();
    std::fs::write(
        &manifest_path,
        text.replace("\"complete\": true", "\"complete\": false"),
    )
    .unwrap();
    std::fs::copy(
        out.join("bank-00000.csv.zst"),
        out.join("bank-00007.csv.zst"),
    )
    .unwrap();
    verify(&out)
        .code(1)
        .stderr(predicate::str::contains(
            "manifest.json: the manifest says `complete: false`: the run did not finish (finish it with `generate --resume DIR`)",
        ))
        .stderr(predicate::str::contains(
            "bank-00007.csv.zst: on disk but not listed in the manifest",
        ));
}

/// Regression: a shard listed with `last_id` 2^64 - 1 read "claims ids 0..=… in 300
/// rows, expected to start at id 0" (it does start there), the id count overflowed,
/// and the next shard was held to start past the last id. Each shard's message now
/// says what is wrong, and the next one is held to the id its rows lead to.
#[test]
fn a_shard_range_that_does_not_fit_its_rows_is_named_as_such() {
    let (_dir, out) = bank();
    crate::common::edit_manifest(&out, |m| m["shards"][0]["last_id"] = u64::MAX.into());
    let out = verify(&out).code(1);
    let stderr = crate::common::stderr_of(&out);
    assert!(
        stderr.contains(&format!(
            "shard bank-00000.csv.zst claims ids 0..={} for its 300 rows",
            u64::MAX
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("expected to start"), "{stderr}");
    assert!(!stderr.contains("bank-00001.csv.zst starts at"), "{stderr}");
}

#[test]
fn no_manifest_is_a_fatal_error() {
    let dir = tempfile::tempdir().unwrap();
    factory()
        .arg("verify")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds no bank (no manifest.json)"));
}

/// A staged run's seed directory is named as one, with how to make a bank of it.
/// Regression: "reading seeds/manifest.json: No such file or directory".
#[test]
fn a_seed_directory_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = dir.path().join("seeds");
    common::generate(&seeds)
        .arg("--stage")
        .arg("seeds")
        .count(50)
        .run();
    for command in ["verify", "stats", "export"] {
        factory()
            .arg(command)
            .arg(&seeds)
            .args(if command == "export" {
                &["--to", "out.jsonl"][..]
            } else {
                &[]
            })
            .current_dir(dir.path())
            .assert()
            .code(2)
            .stderr(predicate::str::contains("holds no bank"))
            .stderr(predicate::str::contains("the seed files of a staged run"))
            .stderr(predicate::str::contains("--seeds"));
    }
}

/// Columns swapped in a shard's header (and its rows): one defect, the header, not
/// one per row read by position. Regression: 300 "clues is not a number" besides.
#[test]
fn a_header_of_other_column_order_is_one_defect() {
    let (_dir, out) = bank();
    rewrite_shard(&out, "bank-00001.csv.zst", |lines| {
        for line in lines.iter_mut() {
            let mut fields: Vec<&str> = line.split(',').collect();
            fields.swap(3, 4);
            *line = fields.join(",");
        }
    });
    let run = verify(&out).code(1);
    let stderr = crate::common::stderr_of(&run);
    assert!(
        stderr.contains("found \"id,puzzle,solution,difficulty,clues"),
        "{stderr}"
    );
    assert!(stderr.contains("has 1 defect"), "{stderr}");
    assert!(!stderr.contains("malformed"), "{stderr}");
}

/// Replaces `from` by `to` in `out`'s manifest, then runs `verify`: clean, with a
/// note that says `says`.
fn noted_after_editing_the_manifest(out: &Path, from: &str, to: &str, says: &str) {
    let path = out.join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace(from, to);
    assert_ne!(edited, text, "{from} is in the manifest");
    std::fs::write(&path, edited).unwrap();
    factory()
        .arg("verify")
        .arg(out)
        .assert()
        .success()
        .stderr(predicate::str::contains(says));
}

/// A manifest whose `tool` is another program is checked with a note saying so.
/// Regression: accepted without a word.
#[test]
fn another_tools_manifest_is_noted() {
    let (_dir, out) = bank();
    noted_after_editing_the_manifest(
        &out,
        "\"tool\": \"sudoku-factory\"",
        "\"tool\": \"other-factory\"",
        "was made by \"other-factory\", not sudoku-factory",
    );
}

/// A bank from a newer build, or with a version that is none, is checked with a note
/// saying so. Regression: accepted without a word.
#[test]
fn a_newer_or_unreadable_version_is_noted() {
    let (_dir, out) = bank();
    let mut was = format!("\"version\": \"{}\"", env!("CARGO_PKG_VERSION"));
    for (version, says) in [("9.0.0", "newer than"), ("banana", "a version unlike")] {
        let now = format!("\"version\": \"{version}\"");
        let note = format!("made by sudoku-factory \"{version}\", {says} this build");
        noted_after_editing_the_manifest(&out, &was, &now, &note);
        was = now;
    }
}
