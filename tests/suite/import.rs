//! `import` end to end: the qqwing file and a Kaggle-layout CSV become banks that
//! `verify` reports clean, rows in input order with the puzzles as given; the
//! manifest's source checksum is an independent XXH3 of the file; the bytes are the
//! same for any thread count; malformed, unsolvable and non-unique puzzles are
//! reported by line with counts and exit 1, the good rows kept; duplicates by
//! canonical class are dropped or kept; bad usage is exit 2 with nothing written.

use crate::common;

use std::path::{Path, PathBuf};

use common::{factory, read_bank, stderr_of};

fn qqwing() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/qqwing-10k.txt")
}

fn qqwing_lines() -> Vec<String> {
    std::fs::read_to_string(qqwing())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// `import ARGS... --out OUT`, run; returns the exit code and stderr.
fn import(out: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = factory()
        .arg("import")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    (output.status.code(), stderr_of(&output))
}

fn verify_clean(bank: &Path) {
    let out = factory().arg("verify").arg(bank).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

fn manifest(bank: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(bank.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn the_qqwing_file_becomes_a_clean_bank_in_input_order_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    let (code, stderr) = import(&one, &[qqwing().to_str().unwrap(), "--threads", "1"]);
    assert_eq!(code, Some(0), "{stderr}");
    verify_clean(&one);

    let lines = qqwing_lines();
    let rows = read_bank(&one);
    // Every row is an input line as given, in input order; a line is left out only
    // as a duplicate of the canonical class of a row kept before it.
    let mut at = 0;
    for row in &rows {
        while lines[at] != row.puzzle {
            at += 1;
        }
        at += 1;
    }
    let classes: std::collections::HashSet<&str> =
        rows.iter().map(|r| r.canonical.as_str()).collect();
    assert_eq!(classes.len(), rows.len(), "one row per canonical class");
    let dropped = lines.len() - rows.len();
    assert!(
        stderr.contains(&format!("duplicates dropped  {dropped:>12}")),
        "{stderr}"
    );
    for (id, row) in rows.iter().enumerate() {
        assert_eq!(row.id, id as u64);
        assert!(!row.rating.is_empty() && !row.technique.is_empty());
    }

    // The manifest names the source with its size and an XXH3 taken independently.
    let bytes = std::fs::read(qqwing()).unwrap();
    let source = &manifest(&one)["params"]["import"]["sources"][0];
    assert_eq!(source["bytes"], bytes.len() as u64);
    assert_eq!(
        source["xxh3"],
        format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes))
    );
    assert_eq!(source["format"], "text");

    // Two threads, and shards that cut the rows differently from chunks: same bytes
    // as one thread with the same shards.
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    let q = qqwing();
    let q = q.to_str().unwrap();
    for (out, threads) in [(&a, "1"), (&b, "2")] {
        let args = [q, "--threads", threads, "--shard-rows", "3000", "-q"];
        assert_eq!(import(out, &args).0, Some(0));
    }
    let shards = common::listing(&a);
    assert_eq!(shards, common::listing(&b));
    assert!(shards.len() >= 5, "{shards:?}");
    for name in shards.iter().filter(|n| n.ends_with(".csv.zst")) {
        assert_eq!(
            std::fs::read(a.join(name)).unwrap(),
            std::fs::read(b.join(name)).unwrap(),
            "{name}"
        );
    }
    verify_clean(&a);
}

#[test]
fn a_kaggle_layout_csv_imports_by_its_column_and_grades_by_rating() {
    let dir = tempfile::tempdir().unwrap();
    // The public dataset's layout: `quizzes,solutions`, 81 digits, `0` for empty.
    let lines = qqwing_lines();
    let text_bank = dir.path().join("text");
    let first: Vec<&String> = lines.iter().take(1500).collect();
    let text = dir.path().join("first.txt");
    std::fs::write(
        &text,
        first.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    assert_eq!(
        import(&text_bank, &[text.to_str().unwrap(), "-q"]).0,
        Some(0)
    );
    let solved = read_bank(&text_bank);
    let mut csv = String::from("quizzes,solutions\n");
    for row in &solved {
        csv += &format!("{},{}\n", row.puzzle.replace('.', "0"), row.solution);
    }
    let kaggle = dir.path().join("kaggle.csv");
    std::fs::write(&kaggle, csv).unwrap();

    let bank = dir.path().join("bank");
    let (code, stderr) = import(
        &bank,
        &[kaggle.to_str().unwrap(), "--grade", "rating", "-q"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    verify_clean(&bank);
    let rows = read_bank(&bank);
    assert_eq!(rows.len(), solved.len());
    let rating_bands = ["easy", "medium", "hard", "diabolical", "extreme"];
    for (row, text_row) in rows.iter().zip(&solved) {
        assert_eq!(
            row.puzzle.replace('.', "0"),
            text_row.puzzle.replace('.', "0")
        );
        assert_eq!(row.solution, text_row.solution);
        assert_eq!(row.rating, text_row.rating);
        assert!(rating_bands.contains(&row.difficulty.as_str()), "{row:?}");
    }
    let source = &manifest(&bank)["params"]["import"]["sources"][0];
    assert_eq!(source["format"], "csv");
    assert_eq!(source["column"], "quizzes");
    assert_eq!(manifest(&bank)["params"]["grade"], "rating");

    // --column names another column; a missing one is refused before anything is
    // written, naming the columns there are.
    let (code, stderr) = import(
        &dir.path().join("missing"),
        &[kaggle.to_str().unwrap(), "--column", "puzzle_text"],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("no column \"puzzle_text\"")
            && stderr.contains("\"quizzes\", \"solutions\""),
        "{stderr}"
    );
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn bad_puzzles_are_reported_by_line_with_counts_and_the_good_rows_kept() {
    let dir = tempfile::tempdir().unwrap();
    let lines = qqwing_lines();
    let input = [
        lines[0].as_str(),
        // Line 2: a character that is no cell.
        "12x4",
        lines[1].as_str(),
        // Line 4: no solution (r1c9 can only be 9, and column 9 has one), no clash.
        "12345678.........9...............................................................",
        // Line 5: many solutions.
        "123456789........................................................................",
        lines[2].as_str(),
        // Line 7: the first puzzle again: a duplicate, not an error.
        lines[0].as_str(),
    ];
    let file = dir.path().join("mixed.txt");
    std::fs::write(&file, input.join("\n") + "\n").unwrap();
    let bank = dir.path().join("bank");
    let rejects = dir.path().join("rejects.csv");
    let (code, stderr) = import(
        &bank,
        &[
            file.to_str().unwrap(),
            "--rejects",
            rejects.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(1), "{stderr}");
    for expected in [
        "mixed.txt: line 2, column 3: unexpected character 'x'",
        "mixed.txt: line 4: no solution",
        "mixed.txt: line 5: more than one solution",
        "puzzles read                   7",
        "malformed                      1",
        "no solution                    1",
        "not unique                     1",
        "duplicates dropped             1",
        "rows written                   3",
        "3 rejected puzzles not imported",
    ] {
        assert!(stderr.contains(expected), "{expected:?} not in: {stderr}");
    }
    verify_clean(&bank);
    let rows = read_bank(&bank);
    let puzzles: Vec<&str> = rows.iter().map(|r| r.puzzle.as_str()).collect();
    assert_eq!(puzzles, [&lines[0], &lines[1], &lines[2]]);

    // Every rejected puzzle, read back as CSV by the csv crate.
    let mut reader = csv::Reader::from_path(&rejects).unwrap();
    let listed: Vec<(String, u64, String)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_string(), r[1].parse().unwrap(), r[2].to_string())
        })
        .collect();
    assert_eq!(
        listed.iter().map(|(_, line, _)| *line).collect::<Vec<_>>(),
        [2, 4, 5]
    );
    assert!(listed[0].0.ends_with("mixed.txt") && listed[2].2 == "more than one solution");

    // --keep-duplicates keeps the repeated puzzle (and counts it).
    let kept = dir.path().join("kept");
    let (code, stderr) = import(&kept, &[file.to_str().unwrap(), "--keep-duplicates"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("duplicates kept                1"),
        "{stderr}"
    );
    assert_eq!(read_bank(&kept).len(), 4);
}

#[test]
fn an_equivalent_puzzle_is_a_duplicate_and_bad_usage_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let lines = qqwing_lines();
    // A relabelled, transposed copy of the first puzzle: another text, the same class.
    let relabel = |c: char| match c.to_digit(10) {
        Some(d) => char::from_digit(d % 9 + 1, 10).unwrap(),
        None => c,
    };
    let cells: Vec<char> = lines[0].chars().map(relabel).collect();
    let transposed: String = (0..81).map(|i| cells[(i % 9) * 9 + i / 9]).collect();
    assert_ne!(transposed, lines[0]);
    let file = dir.path().join("pair.txt");
    std::fs::write(&file, format!("{}\n{transposed}\n", lines[0])).unwrap();
    let bank = dir.path().join("bank");
    let (code, stderr) = import(&bank, &[file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("duplicates dropped             1"),
        "{stderr}"
    );
    assert_eq!(read_bank(&bank).len(), 1);

    // An existing bank is refused without --force; a directory is no input; both
    // exit 2 and leave OUT as it was.
    let (code, stderr) = import(&bank, &[file.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--force"), "{stderr}");
    let (code, stderr) = import(&dir.path().join("none"), &[dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("is a directory"), "{stderr}");
    let (code, stderr) = import(&dir.path().join("none"), &["-"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("not standard input"), "{stderr}");
    assert!(!dir.path().join("none").exists());

    // Regressions: --rejects over an input (with --force it replaced the puzzles
    // being read) or over a file of the bank being written (its manifest was
    // replaced by the rejects, and `verify` failed).
    let text = std::fs::read(&file).unwrap();
    let manifest_before = std::fs::read(bank.join("manifest.json")).unwrap();
    let rejects_over = [file.clone(), bank.join("manifest.json")];
    for rejects in &rejects_over {
        let (code, stderr) = import(
            &bank,
            &[
                file.to_str().unwrap(),
                "--force",
                "--rejects",
                rejects.to_str().unwrap(),
            ],
        );
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains("is also an input") || stderr.contains("is a file of the bank"),
            "{stderr}"
        );
    }
    assert_eq!(std::fs::read(&file).unwrap(), text);
    assert_eq!(
        std::fs::read(bank.join("manifest.json")).unwrap(),
        manifest_before
    );
    verify_clean(&bank);

    // An empty CSV says so; a puzzle no band takes says what it has.
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let (code, stderr) = import(&dir.path().join("e"), &[empty.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("no header line: the file is empty"),
        "{stderr}"
    );
    let clues = lines[0].chars().filter(|c| c.is_ascii_digit()).count();
    let (code, stderr) = import(
        &dir.path().join("nb"),
        &[file.to_str().unwrap(), "--bands", "full=70-81"],
    );
    assert_eq!(code, Some(1), "{stderr}");
    let said = format!("line 1: no band of the table takes it ({clues} clues, rating ");
    assert!(stderr.contains(&said), "{stderr}");
}

#[test]
fn parquet_files_import_by_column_with_nulls_and_bad_rows_named_by_row() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kaggle.parquet");
    let brotli = dir.path().join("brotli.parquet");
    // Written by pyarrow (snappy, its default), row groups of 100 rows: the Kaggle
    // layout's `quizzes`, `0` for empty, a null at row 6 and a bad cell at row 151.
    let script = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq
lines = open(sys.argv[1]).read().split()[:300]
quizzes = [l.replace(".", "0") for l in lines]
quizzes[5] = None
quizzes[150] = "12x"
table = pa.table({"n": list(range(300)), "quizzes": quizzes})
pq.write_table(table, sys.argv[2], row_group_size=100)
pq.write_table(table, sys.argv[3], compression="brotli")
"#;
    let out = std::process::Command::new(common::test_python())
        .args(["-c", script])
        .arg(qqwing())
        .arg(&file)
        .arg(&brotli)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));

    let bank = dir.path().join("bank");
    let (code, stderr) = import(&bank, &[file.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stderr}");
    for expected in [
        "kaggle.parquet: row 6: no puzzle (null) (in column \"quizzes\")",
        "kaggle.parquet: row 151, column 3: unexpected character 'x'",
        "malformed                      2",
        "rows written                 298",
    ] {
        assert!(stderr.contains(expected), "{expected:?} not in: {stderr}");
    }
    verify_clean(&bank);
    // Every other row, in order (regression: a null shifted the values after it).
    let lines = qqwing_lines();
    let expected: Vec<&String> = lines[..300]
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 5 && *i != 150)
        .map(|(_, l)| l)
        .collect();
    let rows = read_bank(&bank);
    let puzzles: Vec<&String> = rows.iter().map(|r| &r.puzzle).collect();
    assert_eq!(puzzles, expected);

    // Our own Parquet export imports back to the same rows, byte for byte.
    let exported = dir.path().join("bank.parquet");
    let out = factory()
        .args([
            "export",
            bank.to_str().unwrap(),
            "--to",
            exported.to_str().unwrap(),
            "-q",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let again = dir.path().join("again");
    assert_eq!(
        import(&again, &[exported.to_str().unwrap(), "-q"]).0,
        Some(0)
    );
    let shard = "bank-00000.csv.zst";
    assert_eq!(
        zstd::decode_all(std::fs::File::open(bank.join(shard)).unwrap()).unwrap(),
        zstd::decode_all(std::fs::File::open(again.join(shard)).unwrap()).unwrap()
    );

    // A column of numbers, and a codec this build does not read: refused before
    // anything is written, naming why.
    let (code, stderr) = import(
        &dir.path().join("n"),
        &[file.to_str().unwrap(), "--column", "n"],
    );
    assert_eq!(code, Some(2));
    assert!(stderr.contains("column \"n\" holds INT64"), "{stderr}");
    let (code, stderr) = import(&dir.path().join("b"), &[brotli.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("BROTLI"), "{stderr}");
    assert!(!dir.path().join("n").exists() && !dir.path().join("b").exists());
}

/// Regression: a quote never closed swallowed the lines after it into one field,
/// reported as "unexpected character U+000A" with no word of the lost lines.
#[test]
fn an_unclosed_quote_is_named_with_the_lines_it_swallowed() {
    let dir = tempfile::tempdir().unwrap();
    let lines = qqwing_lines();
    let csv = dir.path().join("quote.csv");
    let text = format!(
        "puzzle\n{}\n\"{}\n{}\n{}\n",
        lines[0], lines[1], lines[2], lines[3]
    );
    std::fs::write(&csv, text).unwrap();
    let (code, stderr) = import(&dir.path().join("bank"), &[csv.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("line 3: field \"puzzle\" is quoted and runs on over 3 more lines"),
        "{stderr}"
    );
    assert_eq!(read_bank(&dir.path().join("bank")).len(), 1);
}
