//! `export` end to end: every format read back by an independent reader (Python's
//! sqlite3, json and csv modules, through `scripts/read-export.py`), row and band
//! counts equal to `stats` and to the bank read by the zstd and csv crates, a sampled
//! row equal field by field; an export killed at any moment leaves FILE absent or
//! complete; bad input is exit 2 with nothing written; 16×16 banks; the filters.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use common::{factory, generate, listing, read_bank, Row};
use serde_json::Value;

/// A 100,000-row 9×9 bank, made once for the tests of this file (1,000 seeds × 100
/// variants: cheap to make, as big as the acceptance asks).
fn bank_100k() -> &'static Path {
    static BANK: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &BANK
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let bank = generate(dir.path().join("bank"))
                .count(100_000)
                .variants(100)
                .seed(14)
                .arg("--no-histograms")
                .bank();
            (dir, bank)
        })
        .1
}

/// `export BANK --to FILE ARGS... -q`, not yet run.
fn export(bank: &Path, to: &Path, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = factory();
    cmd.arg("export").arg(bank).arg("--to").arg(to).args(args);
    cmd
}

/// The summary `scripts/read-export.py` prints for FILE read as FORMAT, sampling row
/// `id`.
fn read_back(file: &Path, format: &str, id: u64) -> Value {
    let id = id.to_string();
    let args = [file.as_os_str(), format.as_ref(), id.as_ref()];
    summary_of("python3".as_ref(), "read-export.py", &args)
}

/// Runs `PYTHON scripts/SCRIPT ARGS...` and parses the JSON summary it prints.
fn summary_of(python: &std::ffi::OsStr, script: &str, args: &[&std::ffi::OsStr]) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(script);
    let out = Command::new(python)
        .arg(path)
        .args(args)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{script} {args:?}: {}",
        crate::common::stderr_of(&out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Rows per band as `stats` prints them (its table: `band  rows  ...`).
fn stats_bands(bank: &Path) -> BTreeMap<String, u64> {
    let out = factory().arg("stats").arg(bank).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut bands = BTreeMap::new();
    for band in ["easy", "medium", "hard", "expert"] {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(band))
            .unwrap_or_else(|| panic!("no line for {band} in\n{text}"));
        let n: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        if n > 0 {
            bands.insert(band.to_string(), n);
        }
    }
    bands
}

fn bands_of(summary: &Value) -> BTreeMap<String, u64> {
    summary["bands"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect()
}

fn sample(summary: &Value) -> BTreeMap<String, String> {
    summary["sample"]
        .as_object()
        .unwrap_or_else(|| panic!("no sampled row in {summary}"))
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect()
}

fn as_fields(row: &Row) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("id".to_string(), row.id.to_string()),
        ("puzzle".to_string(), row.puzzle.clone()),
        ("solution".to_string(), row.solution.clone()),
        ("clues".to_string(), row.clues.to_string()),
        ("difficulty".to_string(), row.difficulty.clone()),
        ("canonical".to_string(), row.canonical.clone()),
        ("rating".to_string(), row.rating.clone()),
        ("technique".to_string(), row.technique.clone()),
    ])
}

/// The summary `scripts/read-parquet.py` prints for a Parquet FILE, read by DuckDB and
/// by pyarrow (from the virtual environment `scripts/test-deps` makes), sampling row
/// `id`.
fn read_parquet(file: &Path, id: u64) -> Value {
    let python = crate::common::test_python();
    let id = id.to_string();
    let args = [file.as_os_str(), id.as_ref()];
    summary_of(python.as_os_str(), "read-parquet.py", &args)
}

#[test]
fn a_100k_bank_exports_to_parquet_that_duckdb_and_pyarrow_read_as_the_bank() {
    let bank = bank_100k();
    let rows = read_bank(bank);
    let mut expected = BTreeMap::new();
    for r in &rows {
        *expected.entry(r.difficulty.clone()).or_insert(0u64) += 1;
    }
    let picked = &rows[27_182];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bank.parquet");
    // The format comes from the extension.
    let out = export(bank, &file, &[]).assert().success();
    let stderr = crate::common::stderr_of(&out);
    assert!(
        stderr.contains("exported 100000 of 100000 rows"),
        "{stderr}"
    );
    let summary = read_parquet(&file, picked.id);
    for reader in ["duckdb", "pyarrow"] {
        let read = &summary[reader];
        assert_eq!(read["rows"], 100_000, "{reader}");
        assert_eq!(bands_of(read), expected, "{reader}: rows per band");
        assert_eq!(sample(read), as_fields(picked), "{reader}: the sampled row");
    }
    // DuckDB, asked nothing, reads boards as text and numbers as numbers.
    let types = &summary["duckdb"]["types"];
    for (column, kind) in [
        ("id", "BIGINT"),
        ("puzzle", "VARCHAR"),
        ("solution", "VARCHAR"),
        ("clues", "INTEGER"),
        ("difficulty", "VARCHAR"),
        ("canonical", "VARCHAR"),
        ("rating", "DOUBLE"),
        ("technique", "VARCHAR"),
    ] {
        assert_eq!(types[column], kind, "{column}: {types}");
    }
    let arrow = &summary["pyarrow"];
    for column in ["id", "puzzle", "solution", "clues", "difficulty"] {
        assert_eq!(arrow["required"][column], true, "{column}");
    }
    // zstd row groups of 131,072 rows; the bands and techniques dictionary-encoded;
    // the manifest in the footer.
    assert_eq!(arrow["row_groups"], 1);
    assert_eq!(arrow["compression"], serde_json::json!(["ZSTD"]));
    for column in ["difficulty", "technique", "clues", "rating"] {
        let encodings = arrow["encodings"][column].to_string();
        assert!(
            encodings.contains("RLE_DICTIONARY"),
            "{column}: {encodings}"
        );
    }
    assert_eq!(arrow["manifest_rows"], 100_000);
    assert_eq!(
        arrow["metadata_keys"],
        serde_json::json!(["sudoku-factory.export", "sudoku-factory.manifest"])
    );

    // The filters: every band but the first.
    let part = dir.path().join("part.parquet");
    let keep = expected
        .keys()
        .skip(1)
        .cloned()
        .collect::<Vec<_>>()
        .join(",");
    export(bank, &part, &["--difficulty", &keep])
        .assert()
        .success();
    let kept: u64 = expected.values().skip(1).sum();
    let summary = read_parquet(&part, picked.id);
    for reader in ["duckdb", "pyarrow"] {
        assert_eq!(summary[reader]["rows"], kept, "{reader}");
    }

    // More rows than two row groups: three groups, every row there, the last one
    // sampled.
    let big = generate(dir.path().join("big"))
        .count(300_000)
        .variants(300)
        .seed(5)
        .arg("--no-histograms")
        .bank();
    let file = dir.path().join("big.parquet");
    export(&big, &file, &[]).assert().success();
    let last = read_bank(&big).pop().unwrap();
    let summary = read_parquet(&file, last.id);
    assert_eq!(summary["pyarrow"]["row_groups"], 3);
    for reader in ["duckdb", "pyarrow"] {
        assert_eq!(summary[reader]["rows"], 300_000, "{reader}");
        assert_eq!(sample(&summary[reader]), as_fields(&last), "{reader}");
    }
    // Parquet is a file: standard output is refused, naming why.
    let stderr = crate::common::fails_naming(
        export(bank, Path::new("-"), &["--format", "parquet"]),
        &["--format parquet", "footer"],
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_100k_bank_reads_back_from_every_format() {
    let bank = bank_100k();
    let rows = read_bank(bank);
    assert_eq!(rows.len(), 100_000);
    let stats = stats_bands(bank);
    let mut expected = BTreeMap::new();
    for r in &rows {
        *expected.entry(r.difficulty.clone()).or_insert(0u64) += 1;
    }
    assert_eq!(stats, expected, "stats agrees with the bank");
    let picked = &rows[61_803];
    let dir = tempfile::tempdir().unwrap();

    for (name, format) in [
        ("bank.sqlite", "sqlite"),
        ("bank.jsonl", "jsonl"),
        ("bank.csv", "csv"),
    ] {
        let file = dir.path().join(name);
        // The format comes from the extension.
        let out = export(bank, &file, &[]).assert().success();
        let stderr = crate::common::stderr_of(&out);
        assert!(
            stderr.contains("exported 100000 of 100000 rows") && stderr.contains(name),
            "{stderr}"
        );
        let summary = read_back(&file, format, picked.id);
        assert_eq!(summary["rows"], 100_000, "{format}");
        assert_eq!(bands_of(&summary), stats, "{format}: rows per band");
        assert_eq!(
            sample(&summary),
            as_fields(picked),
            "{format}: row {}",
            picked.id
        );
        if format == "sqlite" {
            assert_eq!(summary["integrity"], "ok");
            assert_eq!(summary["user_version"], 1);
            let meta = summary["meta"].as_object().unwrap();
            assert_eq!(meta["tool"], "sudoku-factory");
            assert_eq!(meta["seed"], "14");
            assert_eq!(meta["rows"], "100000");
            let params: Value = serde_json::from_str(meta["params"].as_str().unwrap()).unwrap();
            assert_eq!(params["variants"], 100);
            let indexes: Vec<&str> = summary["indexes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert!(indexes.contains(&"puzzles_difficulty_id"), "{indexes:?}");
            assert!(indexes.contains(&"puzzles_canonical"), "{indexes:?}");
            // The load skips the CHECK constraints (the exporter checked every row
            // against the same rules); an app's later writes still meet them.
            let writes = &summary["writes"];
            assert_eq!(writes["copy"], "accepted", "{writes}");
            for bad in ["short_puzzle", "too_many_clues"] {
                let outcome = writes[bad].as_str().unwrap();
                assert!(
                    outcome.contains("CHECK constraint failed"),
                    "{bad}: {outcome}"
                );
            }
        }
    }

    // csv-kaggle: `quizzes,solutions`, 0 for empty, one line per row in bank order.
    let kaggle = dir.path().join("kaggle.csv");
    export(bank, &kaggle, &["--format", "csv-kaggle", "-q"])
        .assert()
        .success()
        .stderr("");
    let summary = read_back(&kaggle, "csv-kaggle", picked.id);
    assert_eq!(summary["rows"], 100_000);
    let s = sample(&summary);
    assert_eq!(s["quizzes"], picked.puzzle.replace('.', "0"));
    assert_eq!(s["solutions"], picked.solution);

    // --zstd (implied by .csv.zst): the plain CSV's bytes, compressed.
    let zst = dir.path().join("bank.csv.zst");
    export(bank, &zst, &["-q"]).assert().success();
    let plain = std::fs::read(dir.path().join("bank.csv")).unwrap();
    let unpacked = zstd::decode_all(std::fs::File::open(&zst).unwrap()).unwrap();
    assert!(unpacked == plain, "the .csv.zst holds the .csv");

    // Nothing but the outputs was left in the directory (no temporary files).
    assert_eq!(
        listing(dir.path()),
        [
            "bank.csv",
            "bank.csv.zst",
            "bank.jsonl",
            "bank.sqlite",
            "kaggle.csv"
        ]
    );
}

/// A file the test found after killing an export: complete, or there is none.
fn assert_absent_or_complete(file: &Path, format: &str, delay: u64) {
    if !file.exists() {
        return;
    }
    let summary = read_back(file, format, 0);
    assert_eq!(
        summary["rows"],
        100_000,
        "killed after {delay} ms: {} is partial",
        file.display()
    );
    if format == "sqlite" {
        assert_eq!(summary["integrity"], "ok", "killed after {delay} ms");
    }
}

#[test]
fn a_killed_export_leaves_file_absent_or_complete() {
    let bank = bank_100k();
    let dir = tempfile::tempdir().unwrap();
    let mut outcomes = BTreeSet::new();
    for (format, ext) in [("sqlite", "sqlite"), ("jsonl", "jsonl")] {
        for delay in [0u64, 10, 40, 100, 200, 400, 800, 3000] {
            let file = dir.path().join(format!("killed-{delay}.{ext}"));
            let mut child = Command::new(common::bin())
                .arg("export")
                .arg(bank)
                .arg("--to")
                .arg(&file)
                .arg("-q")
                .spawn()
                .unwrap();
            std::thread::sleep(Duration::from_millis(delay));
            // SIGKILL: no destructor, no clean-up runs.
            let _ = child.kill();
            let status = child.wait().unwrap();
            assert_absent_or_complete(&file, format, delay);
            outcomes.insert((format, file.exists(), status.success()));
        }
    }
    // Every kill landed somewhere: some before the rename, and at 3 s the export had
    // finished (so "complete" was checked on a real file too).
    assert!(outcomes.contains(&("sqlite", false, false)), "{outcomes:?}");
    assert!(outcomes.contains(&("sqlite", true, true)), "{outcomes:?}");
    assert!(outcomes.contains(&("jsonl", true, true)), "{outcomes:?}");
}

#[test]
fn a_later_export_removes_the_temp_file_a_killed_one_left() {
    let dir = tempfile::tempdir().unwrap();
    let bank = small_bank(dir.path(), "bank");
    let file = dir.path().join("out.jsonl");
    // What a SIGKILLed export leaves: its hidden temp file, named with its PID. A
    // finished child's PID is no longer running (the test holds no zombie: it was
    // waited for).
    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let stale = dir.path().join(format!(".out.jsonl.tmp-{dead_pid}"));
    std::fs::write(&stale, b"{\"partial\": ").unwrap();
    // A live process's temp file (this test's own PID) must be left alone, and so
    // must other files' temp files.
    let live = dir
        .path()
        .join(format!(".out.jsonl.tmp-{}", std::process::id()));
    std::fs::write(&live, b"busy").unwrap();
    let other = dir.path().join(format!(".other.jsonl.tmp-{dead_pid}"));
    std::fs::write(&other, b"not ours").unwrap();
    common::factory()
        .arg("export")
        .arg(&bank)
        .arg("--to")
        .arg(&file)
        .arg("-q")
        .assert()
        .success();
    assert!(file.exists());
    assert!(
        !stale.exists(),
        "the dead export's temp file is still there"
    );
    assert!(live.exists(), "a live process's temp file was removed");
    assert!(other.exists(), "another file's temp file was removed");
}

/// A small 9×9 bank (2,000 rows of 200 seeds) under `dir/name`.
fn small_bank(dir: &Path, name: &str) -> PathBuf {
    generate(dir.join(name))
        .count(2000)
        .variants(10)
        .seed(3)
        .arg("--no-histograms")
        .bank()
}

#[test]
fn bad_input_is_exit_2_naming_it_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let file = out_dir.join("x.sqlite");

    // No bank at all.
    let missing = dir.path().join("no-such-bank");
    crate::common::fails_naming(
        export(&missing, &file, &[]),
        &["no-such-bank", "manifest.json"],
    );

    // A directory of shards without a manifest.
    let bank = small_bank(dir.path(), "bank");
    let bare = dir.path().join("bare");
    std::fs::create_dir(&bare).unwrap();
    std::fs::copy(
        bank.join("bank-00000.csv.zst"),
        bare.join("bank-00000.csv.zst"),
    )
    .unwrap();
    crate::common::fails_naming(export(&bare, &file, &[]), &["bare", "manifest.json"]);

    // An incomplete bank (a run that was killed) and one whose shard is gone.
    let partial = dir.path().join("partial");
    std::fs::create_dir(&partial).unwrap();
    std::fs::copy(
        bank.join("bank-00000.csv.zst"),
        partial.join("bank-00000.csv.zst"),
    )
    .unwrap();
    let manifest = std::fs::read_to_string(bank.join("manifest.json")).unwrap();
    std::fs::write(
        partial.join("manifest.json"),
        manifest.replace("\"complete\": true", "\"complete\": false"),
    )
    .unwrap();
    crate::common::fails_naming(
        export(&partial, &file, &[]),
        &["partial", "incomplete", "--resume"],
    );
    let gone = dir.path().join("gone");
    std::fs::create_dir(&gone).unwrap();
    std::fs::copy(bank.join("manifest.json"), gone.join("manifest.json")).unwrap();
    crate::common::fails_naming(export(&gone, &file, &[]), &["bank-00000.csv.zst"]);

    // A damaged shard: same size, one byte changed; found by the checksum on the way.
    let damaged = dir.path().join("damaged");
    std::fs::create_dir(&damaged).unwrap();
    std::fs::copy(bank.join("manifest.json"), damaged.join("manifest.json")).unwrap();
    let mut bytes = std::fs::read(bank.join("bank-00000.csv.zst")).unwrap();
    let at = bytes.len() - 10;
    bytes[at] ^= 0x55;
    std::fs::write(damaged.join("bank-00000.csv.zst"), bytes).unwrap();
    crate::common::fails_naming(export(&damaged, &file, &[]), &["bank-00000.csv.zst"]);

    // Regressions: a hand-edited manifest listing a shard twice was exported with its
    // ids twice, and one naming a shard outside the bank read it from there.
    for (name, listed, needle) in [
        ("twice", None, "listed twice"),
        (
            "outside",
            Some("../bank/bank-00000.csv.zst"),
            "not a file name",
        ),
    ] {
        let edited = dir.path().join(name);
        std::fs::create_dir(&edited).unwrap();
        std::fs::copy(
            bank.join("bank-00000.csv.zst"),
            edited.join("bank-00000.csv.zst"),
        )
        .unwrap();
        let mut manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(bank.join("manifest.json")).unwrap())
                .unwrap();
        let shards = manifest["shards"].as_array_mut().unwrap();
        match listed {
            None => shards.push(shards[0].clone()),
            Some(file) => shards[0]["file"] = file.into(),
        }
        std::fs::write(edited.join("manifest.json"), manifest.to_string()).unwrap();
        crate::common::fails_naming(
            export(&edited, &file, &[]),
            &[name, "manifest.json", needle],
        );
    }

    // Regression: a FILE in a missing directory was reported late, under the
    // temporary file's name (`nodir/.a.jsonl.tmp-PID`).
    let stderr = crate::common::fails_naming(
        export(&bank, &dir.path().join("nodir").join("a.jsonl"), &[]),
        &["nodir", "a.jsonl", "does not exist"],
    );
    assert!(!stderr.contains(".tmp-"), "{stderr}");
    // Regression: a regular file where the directory should be "does not exist".
    let plain = dir.path().join("plain");
    std::fs::write(&plain, "").unwrap();
    crate::common::fails_naming(
        export(&bank, &plain.join("a.jsonl"), &[]),
        &["plain", "is not a directory"],
    );

    // An unknown format, by flag or by extension.
    crate::common::fails_naming(export(&bank, &file, &["--format", "avro"]), &["avro"]);
    let odd = out_dir.join("x.avro");
    crate::common::fails_naming(export(&bank, &odd, &[]), &["x.avro", "--format", "parquet"]);
    // --zstd is for csv only; csv-kaggle is 9x9 only (below, with the 16x16 bank).
    crate::common::fails_naming(export(&bank, &file, &["--zstd"]), &["--zstd", "sqlite"]);
    // A format the name contradicts (regression: JSON Lines went into x.csv.zst).
    for (name, format, says) in [
        ("x.csv.zst", "jsonl", "zstd-compressed CSV: name it .jsonl"),
        ("x.sqlite", "parquet", "a SQLite database: name it .parquet"),
        ("x.parquet", "jsonl", "Parquet: name it .jsonl"),
        (
            "x.csv.zst",
            "csv-kaggle",
            "zstd-compressed CSV: name it .csv",
        ),
        ("x.jsonl", "sqlite", "JSON Lines: name it .sqlite"),
        ("x.db", "csv", "a SQLite database: name it .csv"),
    ] {
        let to = out_dir.join(name);
        crate::common::fails_naming(
            export(&bank, &to, &["--format", format]),
            &[&format!("--format {format} does not fit the name"), says],
        );
    }

    // The bank's own files are never a FILE, even with --force.
    let shard = bank.join("bank-00000.csv.zst");
    let before = std::fs::read(&shard).unwrap();
    crate::common::fails_naming(
        export(&bank, &shard, &["--format", "csv", "--force"]),
        &["bank-00000.csv.zst", "elsewhere"],
    );
    assert!(std::fs::read(&shard).unwrap() == before);

    // Nothing was written by any of these, not even a temporary file.
    assert_eq!(listing(&out_dir), Vec::<String>::new());

    // An existing FILE is refused without --force and left as it was.
    let taken = out_dir.join("taken.jsonl");
    std::fs::write(&taken, "keep me\n").unwrap();
    crate::common::fails_naming(export(&bank, &taken, &[]), &["taken.jsonl", "--force"]);
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "keep me\n");
    export(&bank, &taken, &["--force", "-q"]).assert().success();
    assert_eq!(read_back(&taken, "jsonl", 0)["rows"], 2000);
    assert_eq!(listing(&out_dir), ["taken.jsonl"]);
}

#[test]
fn a_limit_of_zero_is_refused_and_writes_nothing() {
    // Regression: `--limit 0` wrote an empty file and exited 0.
    let dir = tempfile::tempdir().unwrap();
    let bank = small_bank(dir.path(), "bank");
    let file = dir.path().join("none.jsonl");
    common::fails_naming(export(&bank, &file, &["--limit", "0"]), &["--limit", "0"]);
    assert!(!file.exists());
}

#[test]
fn filters_pick_bands_one_row_per_class_and_a_limit() {
    let dir = tempfile::tempdir().unwrap();
    let bank = small_bank(dir.path(), "bank");
    let rows = read_bank(&bank);
    let file = dir.path().join("f.jsonl");
    let run = |args: &[&str]| -> Vec<Value> {
        let mut a = vec!["--force", "-q"];
        a.extend_from_slice(args);
        export(&bank, &file, &a).assert().success();
        std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let ids =
        |objs: &[Value]| -> Vec<u64> { objs.iter().map(|o| o["id"].as_u64().unwrap()).collect() };

    let hard: Vec<u64> = rows
        .iter()
        .filter(|r| r.difficulty == "hard" || r.difficulty == "expert")
        .map(|r| r.id)
        .collect();
    assert!(!hard.is_empty());
    assert_eq!(ids(&run(&["--difficulty", "hard,expert"])), hard);
    // `any`, as `generate` reads it: every band (regression: "no such band").
    let all: Vec<u64> = rows.iter().map(|r| r.id).collect();
    assert_eq!(ids(&run(&["--difficulty", "any"])), all);

    let mut seen = BTreeSet::new();
    let firsts: Vec<u64> = rows
        .iter()
        .filter(|r| seen.insert(r.canonical.clone()))
        .map(|r| r.id)
        .collect();
    assert_eq!(firsts.len(), 200, "200 seeds of 10 variants each");
    assert_eq!(ids(&run(&["--one-per-class"])), firsts);

    assert_eq!(ids(&run(&["--limit", "7"])), [0, 1, 2, 3, 4, 5, 6]);
    let both = run(&["--difficulty", "easy", "--one-per-class", "--limit", "3"]);
    assert_eq!(both.len(), 3);
    assert!(both.iter().all(|o| o["difficulty"] == "easy"));

    // A band the bank does not have is an error, not an empty file.
    crate::common::fails_naming(
        export(
            &bank,
            &dir.path().join("none.jsonl"),
            &["--difficulty", "hardd"],
        ),
        &["hardd", "easy, medium, hard, expert"],
    );
}

/// Regression: on a bank graded by rating, an unknown `--difficulty` band was taken
/// (exit 0, an empty file); band names with spaces around them were refused.
#[test]
fn bands_of_a_rating_graded_bank_are_checked_and_names_trimmed() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("rated"))
        .count(40)
        .seed(2)
        .args(["--grade", "rating", "--no-histograms"])
        .bank();
    let file = dir.path().join("x.jsonl");
    // "expert" is a clue band; the rating table's are easy .. extreme.
    crate::common::fails_naming(
        export(&bank, &file, &["--difficulty", "expert"]),
        &[
            "\"expert\": the bank has no such band",
            "easy, medium, hard, diabolical, extreme",
        ],
    );
    crate::common::fails_naming(
        export(&bank, &file, &["--difficulty", "hard,nosuch"]),
        &["\"nosuch\""],
    );
    assert_eq!(listing(dir.path()), ["rated"]);
    let medium = read_bank(&bank)
        .iter()
        .filter(|r| r.difficulty == "easy" || r.difficulty == "medium")
        .count();
    export(&bank, &file, &["--difficulty", "easy, medium", "-q"])
        .assert()
        .success();
    let lines = std::fs::read_to_string(&file).unwrap().lines().count();
    assert_eq!(lines, medium);
}

#[test]
fn a_16x16_bank_exports_to_sqlite_and_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("big"))
        .size(16)
        .count(200)
        .variants(20)
        .seed(5)
        .arg("--no-histograms")
        .bank();
    let text = std::fs::read(bank.join("bank-00000.csv.zst")).unwrap();
    let csv_text = zstd::decode_all(text.as_slice()).unwrap();
    let mut reader = csv::Reader::from_reader(csv_text.as_slice());
    let first: Vec<String> = reader
        .records()
        .next()
        .unwrap()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let stats = stats_bands(&bank);
    for (name, format) in [("big.sqlite", "sqlite"), ("big.jsonl", "jsonl")] {
        let file = dir.path().join(name);
        export(&bank, &file, &["-q"]).assert().success();
        let summary = read_back(&file, format, 0);
        assert_eq!(summary["rows"], 200, "{format}");
        assert_eq!(bands_of(&summary), stats, "{format}");
        let s = sample(&summary);
        assert_eq!(s["puzzle"], first[1], "{format}");
        assert_eq!(s["puzzle"].len(), 256);
        assert_eq!(s["solution"], first[2], "{format}");
        if format == "sqlite" {
            assert_eq!(summary["integrity"], "ok");
            assert_eq!(summary["meta"]["size"], "16");
        }
    }
    crate::common::fails_naming(
        export(
            &bank,
            &dir.path().join("k.csv"),
            &["--format", "csv-kaggle"],
        ),
        &["csv-kaggle", "16x16"],
    );
    assert!(!dir.path().join("k.csv").exists());
}

/// `export BANK --to - ARGS...` run in `cwd`, not yet run.
fn export_stdout(bank: &Path, cwd: &Path, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = export(bank, Path::new("-"), args);
    cmd.current_dir(cwd);
    cmd
}

/// `--to -`: the streamed formats go to standard output, byte for byte what they
/// write to a file; SQLite (a file it seeks in) and a missing `--format` are refused.
/// Regression: `--to -` wrote a file named `-` in the working directory.
#[test]
fn standard_output_takes_the_streamed_formats() {
    let dir = tempfile::tempdir().unwrap();
    let bank = small_bank(dir.path(), "bank");
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    for (name, args) in [
        ("a.jsonl", &["--format", "jsonl"][..]),
        ("a.csv", &["--format", "csv"][..]),
        ("a.csv.zst", &["--format", "csv", "--zstd"][..]),
        ("k.csv", &["--format", "csv-kaggle"][..]),
    ] {
        let file = dir.path().join(name);
        export(&bank, &file, &[args, &["-q"]].concat())
            .assert()
            .success();
        let out = export_stdout(&bank, &cwd, &[args, &["-q"]].concat())
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        let want = std::fs::read(&file).unwrap();
        assert!(out.stdout == want, "{name}: stdout differs from the file");
        assert!(out.stderr.is_empty(), "{name}: {out:?}");
    }
    // The summary names standard output.
    let out = export_stdout(&bank, &cwd, &["--format", "jsonl", "--limit", "3"])
        .output()
        .unwrap();
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 3);
    let err = crate::common::stderr_of(&out);
    assert!(
        err.contains("exported 3 of 2000 rows to standard output"),
        "{err}"
    );

    let stderr = crate::common::fails_naming(
        export_stdout(&bank, &cwd, &["--format", "sqlite"]),
        &["sqlite", "standard output", "--to"],
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    crate::common::fails_naming(export_stdout(&bank, &cwd, &[]), &["--to -", "--format"]);
    assert_eq!(listing(&cwd), Vec::<String>::new());
}

/// The Sudoku Exchange puzzle bank's layout, read by an independent parser (Python's
/// hashlib and plain byte offsets): 100-byte records of a 12-hex SHA-1 prefix of the
/// digits, the 81 digits, the rating as `nn.n`; easy.txt below 1.5, medium.txt below
/// 2.5, hard.txt below 5.0, diabolical.txt the rest. Prints `[[file, digits,
/// rating], ...]`.
const EXCHANGE_PARSER: &str = r#"
import hashlib, json, re, sys
from pathlib import Path
below = {"easy.txt": 1.5, "medium.txt": 2.5, "hard.txt": 5.0, "diabolical.txt": 99}
above = {"easy.txt": 0, "medium.txt": 1.5, "hard.txt": 2.5, "diabolical.txt": 5.0}
out = []
for name in sys.argv[2:]:
    data = Path(sys.argv[1], name).read_bytes()
    assert len(data) % 100 == 0, (name, len(data))
    for k in range(0, len(data), 100):
        rec = data[k:k + 100].decode("ascii")
        assert rec[12] == " " and rec[94] == " " and rec[99] == "\n", repr(rec)
        digits, rating = rec[13:94], rec[95:99]
        assert re.fullmatch(r"[0-9]{81}", digits), digits
        assert rec[:12] == hashlib.sha1(digits.encode()).hexdigest()[:12], rec
        assert re.fullmatch(r"[ 1-9][0-9]\.[0-9]", rating), repr(rating)
        assert above[name] <= float(rating) < below[name], (name, rating)
        out.append([name, digits, rating.strip()])
print(json.dumps(out))
"#;

#[test]
fn sudoku_exchange_files_match_the_published_layout() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("rated"))
        .count(600)
        .variants(2)
        .seed(5)
        .args(["--grade", "rating", "--no-histograms"])
        .bank();
    let to = dir.path().join("exchange");
    export(&bank, &to, &["--format", "sudoku-exchange", "-q"])
        .assert()
        .success();
    let files = ["easy.txt", "medium.txt", "hard.txt", "diabolical.txt"];
    let out = Command::new("python3")
        .arg("-c")
        .arg(EXCHANGE_PARSER)
        .arg(&to)
        .args(files)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let parsed: Vec<(String, String, String)> = serde_json::from_slice(&out.stdout).unwrap();
    // Every row once, with its digits and rating, in its rating's file.
    let mut got: Vec<(String, String)> = parsed
        .iter()
        .map(|(_, d, r)| (d.clone(), r.clone()))
        .collect();
    let mut want: Vec<(String, String)> = read_bank(&bank)
        .iter()
        .map(|r| (r.puzzle.replace('.', "0"), r.rating.clone()))
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    let in_file = |f: &str| parsed.iter().filter(|p| p.0 == f).count();
    assert!(files.iter().all(|f| in_file(f) > 0), "every file has rows");

    // With --difficulty: one file of those bands.
    let hard = dir.path().join("hard.txt");
    export(
        &bank,
        &hard,
        &["--format", "sudoku-exchange", "--difficulty", "hard", "-q"],
    )
    .assert()
    .success();
    let rows = read_bank(&bank)
        .iter()
        .filter(|r| r.difficulty == "hard")
        .count();
    assert_eq!(std::fs::metadata(&hard).unwrap().len(), 100 * rows as u64);

    // An unrated bank cannot fill the layout: exit 2, naming why, and no directory.
    let unrated = generate(dir.path().join("unrated"))
        .count(20)
        .args(["--no-rating", "--no-histograms"])
        .bank();
    let none = dir.path().join("none");
    crate::common::fails_naming(
        export(&unrated, &none, &["--format", "sudoku-exchange"]),
        &["needs each puzzle's SE rating", "--no-rating"],
    );
    assert!(!none.exists(), "the failed export left its directory");

    // Regression: a file where the directory goes was told "pass --force to replace
    // its easy.txt, ...", and with --force "creating ...: File exists".
    let file = dir.path().join("file.txt");
    std::fs::write(&file, "mine\n").unwrap();
    for force in [false, true] {
        let mut cmd = export(&bank, &file, &["--format", "sudoku-exchange"]);
        if force {
            cmd.arg("--force");
        }
        crate::common::fails_naming(cmd, &["is a file", "writes a directory", "--difficulty"]);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
    }
}

/// The OpenSudoku file as the app's importer reads it (version 2: `<opensudoku
/// version="2">`, `<folder name>`, `<game data>` of 81 digits), by Python's XML
/// parser. Prints `{folder: [data, ...]}` in file order.
const OPENSUDOKU_PARSER: &str = r#"
import json, re, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "opensudoku" and root.get("version") == "2", root.attrib
folders = {}
for folder in root:
    assert folder.tag == "folder", folder.tag
    games = []
    for game in folder:
        assert game.tag == "game"
        assert re.fullmatch(r"[0-9]{81}", game.get("data")), game.attrib
        games.append(game.get("data"))
    folders[folder.get("name")] = games
print(json.dumps(list(folders.items())))
"#;

fn parse_opensudoku(file: &Path) -> Vec<(String, Vec<String>)> {
    let out = Command::new("python3")
        .arg("-c")
        .arg(OPENSUDOKU_PARSER)
        .arg(file)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn an_opensudoku_file_has_a_folder_per_band_as_the_app_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let bank = small_bank(dir.path(), "bank");
    let rows = read_bank(&bank);
    let file = dir.path().join("book.opensudoku");
    export(&bank, &file, &["-q"]).assert().success();
    let folders = parse_opensudoku(&file);
    // The bank's bands in its table's order, each with its rows in bank order.
    let names: Vec<&str> = folders.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["easy", "medium", "hard", "expert"]);
    for (name, games) in &folders {
        let want: Vec<String> = rows
            .iter()
            .filter(|r| &r.difficulty == name)
            .map(|r| r.puzzle.replace('.', "0"))
            .collect();
        assert_eq!(games, &want, "{name}");
    }
    // --folder: one folder, its name escaped; --limit counts across folders.
    let one = dir.path().join("one.opensudoku");
    let name = r#"Book <1> & "friends""#;
    export(&bank, &one, &["--folder", name, "--limit", "7", "-q"])
        .assert()
        .success();
    let folders = parse_opensudoku(&one);
    assert_eq!(folders.len(), 1);
    assert_eq!((folders[0].0.as_str(), folders[0].1.len()), (name, 7));
    // A band of the table with no rows gets no empty folder.
    let two = generate(dir.path().join("two"))
        .count(40)
        .difficulty("easy,hard")
        .arg("--no-histograms")
        .bank();
    let file = dir.path().join("two.opensudoku");
    export(&two, &file, &["-q"]).assert().success();
    let folders = parse_opensudoku(&file);
    let names: Vec<&str> = folders.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["easy", "hard"]);
    assert!(folders.iter().all(|(_, games)| games.len() == 20));
}
