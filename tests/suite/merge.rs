//! `merge`: the workers of one run merge into the single-process bank byte for byte;
//! overlapping banks lose their duplicates; `--max-per-class` caps each canonical
//! form; a tight `--memory` changes nothing in the output; a bad input is an error
//! that leaves nothing behind.

use crate::common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use common::{factory, generate, listing, read_bank, rewrite_shard, Gen};
use predicates::prelude::*;
use sudoku_factory::bank::read_manifest;

/// Merges `inputs` into `dir/name` with `extra` options; asserts success.
fn merge(dir: &Path, name: &str, inputs: &[&Path], extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    factory()
        .arg("merge")
        .arg(&out)
        .args(inputs)
        .args(extra)
        .assert()
        .success();
    out
}

/// (file, xxh3) of every shard, from the manifest; the manifest must be complete.
fn checksums(dir: &Path) -> Vec<(String, String)> {
    let m = read_manifest(dir).unwrap();
    assert!(m.complete, "{} is not complete", dir.display());
    m.shards.into_iter().map(|s| (s.file, s.xxh3)).collect()
}

/// Ids run 0..n and no puzzle appears twice.
fn assert_clean(dir: &Path) -> Vec<common::Row> {
    let rows = read_bank(dir);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.id, i as u64, "ids of {} are not 0..n", dir.display());
    }
    let distinct: HashSet<&str> = rows.iter().map(|r| r.puzzle.as_str()).collect();
    assert_eq!(
        distinct.len(),
        rows.len(),
        "duplicate puzzles in {}",
        dir.display()
    );
    rows
}

/// The run split across workers: 12 shards.
fn the_run(out: PathBuf) -> Gen {
    generate(out)
        .count(12_000)
        .variants(4)
        .shard_rows(1000)
        .seed(21)
}

#[test]
fn the_workers_of_a_run_merge_into_the_single_process_bank_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let single = the_run(dir.path().join("single")).bank();
    let workers: Vec<PathBuf> = (0..3)
        .map(|k| {
            let k = k.to_string();
            the_run(dir.path().join(format!("w{k}")))
                .args(["--workers", "3", "--worker", &k])
                .bank()
        })
        .collect();
    let inputs: Vec<&Path> = workers.iter().map(PathBuf::as_path).collect();
    let merged = merge(dir.path(), "merged", &inputs, &["-q"]);
    assert_eq!(checksums(&merged), checksums(&single));
    let tight = merge(dir.path(), "tight", &inputs, &["-q", "--memory", "64K"]);
    assert_eq!(checksums(&tight), checksums(&single));
    // The order of the inputs does not matter for one run: ids decide.
    let reversed: Vec<&Path> = inputs.iter().rev().copied().collect();
    let rev = merge(dir.path(), "reversed", &reversed, &["-q"]);
    assert_eq!(checksums(&rev), checksums(&single));
    // No temporary file is left, and verify accepts the merged bank as it is.
    assert!(listing(&tight).iter().all(|n| !n.starts_with('.')));
    common::verify(&merged).assert().code(0);
}

#[test]
fn the_same_bank_twice_merges_into_itself() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        generate(dir.path().join(name))
            .count(3000)
            .variants(5)
            .seed(4)
            .bank()
    };
    let (a, b) = (run("a"), run("b"));
    let out = dir.path().join("ab");
    factory()
        .arg("merge")
        .arg(&out)
        .args([&a, &b])
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "rows read                   6000",
        ))
        .stderr(predicates::str::contains(
            "duplicates removed          3000",
        ))
        .stderr(predicates::str::contains(
            "rows written                3000",
        ));
    assert_eq!(checksums(&out), checksums(&a));
}

#[test]
fn a_bank_and_its_superset_merge_without_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let small = generate(dir.path().join("small"))
        .count(3000)
        .variants(4)
        .seed(9)
        .bank();
    let big = generate(dir.path().join("big"))
        .count(7000)
        .variants(4)
        .seed(9)
        .bank();
    let other = generate(dir.path().join("other"))
        .count(2000)
        .variants(4)
        .seed(10)
        .bank();
    // Different runs: input by input. The small bank is a prefix of the big one.
    let merged = merge(dir.path(), "m", &[&small, &big], &["-q"]);
    let rows = assert_clean(&merged);
    assert_eq!(rows.len(), 7000);
    let big_rows = read_bank(&big);
    assert!(rows
        .iter()
        .zip(&big_rows)
        .all(|(a, b)| (&a.puzzle, &a.canonical) == (&b.puzzle, &b.canonical)));

    // Three banks, one of them repeated: the union, in input order.
    let merged = merge(
        dir.path(),
        "m3",
        &[&other, &small, &big, &other],
        &["-q", "--shard-rows", "1500"],
    );
    let rows = assert_clean(&merged);
    let other_rows = read_bank(&other);
    let union: HashSet<String> = other_rows
        .iter()
        .chain(&big_rows)
        .map(|r| r.puzzle.clone())
        .collect();
    assert_eq!(rows.len(), union.len());
    assert_eq!(
        rows[..2000].iter().map(|r| &r.puzzle).collect::<Vec<_>>(),
        other_rows.iter().map(|r| &r.puzzle).collect::<Vec<_>>()
    );
    let m = read_manifest(&merged).unwrap();
    assert_eq!(m.shards[0].rows, 1500);
    assert_eq!(m.params.count, Some(rows.len() as u64));
    let how = m
        .params
        .merge
        .expect("a merged bank says how it was merged");
    assert_eq!(how.order, "input");
    assert_eq!(how.inputs.len(), 4);

    // Regression: banks with different band tables merged fine, then `verify` failed
    // the result ("no `bands` table"); it notes that bands are not checked.
    let six = generate(dir.path().join("six"))
        .count(400)
        .seed(11)
        .difficulty("any")
        .args(["--bands", "six-level"])
        .bank();
    let mixed = merge(dir.path(), "mixed", &[&small, &six], &["-q"]);
    assert_eq!(read_manifest(&mixed).unwrap().params.bands, None);
    common::verify(&mixed).assert().success();
    factory()
        .arg("verify")
        .arg(&mixed)
        .assert()
        .success()
        .stderr(predicates::str::contains("bands are not checked"));
}

#[test]
fn max_per_class_keeps_exactly_k_rows_per_canonical_form() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("v10"))
        .count(2000)
        .variants(10)
        .seed(3)
        .bank();
    let out = dir.path().join("capped");
    factory()
        .arg("merge")
        .arg(&out)
        .arg(&bank)
        .args(["--max-per-class", "3"])
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "rows capped                 1400",
        ));
    let rows = assert_clean(&out);
    assert_eq!(rows.len(), 600);
    let mut per_class = std::collections::HashMap::new();
    for r in &rows {
        *per_class.entry(r.canonical.clone()).or_insert(0) += 1;
    }
    assert_eq!(per_class.len(), 200);
    assert!(per_class.values().all(|&n| n == 3));
    // The first 3 variants of each seed are the ones kept.
    let source = read_bank(&bank);
    let expected: Vec<&str> = source
        .iter()
        .filter(|r| r.id % 10 < 3)
        .map(|r| r.puzzle.as_str())
        .collect();
    assert_eq!(
        rows.iter().map(|r| r.puzzle.as_str()).collect::<Vec<_>>(),
        expected
    );
}

#[test]
fn a_tight_memory_budget_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let a = generate(dir.path().join("a"))
        .count(6000)
        .variants(6)
        .seed(5)
        .bank();
    let b = generate(dir.path().join("b"))
        .count(9000)
        .variants(6)
        .seed(5)
        .args(["--zstd-level", "3"])
        .bank();
    let c = generate(dir.path().join("c"))
        .count(3000)
        .variants(3)
        .seed(6)
        .bank();
    let opts = ["-q", "--max-per-class", "4", "--shard-rows", "2500"];
    let free = merge(dir.path(), "free", &[&c, &a, &b], &opts);
    let mut tight_opts: Vec<&str> = opts.iter().copied().filter(|&o| o != "-q").collect();
    tight_opts.extend(["--memory", "64K"]);
    let out = dir.path().join("tight");
    factory()
        .arg("merge")
        .arg(&out)
        .args([&c, &a, &b])
        .args(&tight_opts)
        .arg("--threads")
        .arg("1")
        .assert()
        .success()
        .stderr(predicates::str::contains("partitions on disk"));
    assert_eq!(checksums(&out), checksums(&free));
    assert!(!out.join(".merge-spill").exists());
    // Regression: the scratch a killed merge left (no destructor ran) stayed under OUT
    // through later merges that did not spill; any merge into OUT removes it.
    let stale = free.join(".merge-spill");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join(".part-00000.tmp"), vec![0u8; 4096]).unwrap();
    merge(
        dir.path(),
        "free",
        &[&c, &a, &b],
        &[&opts[..], &["--force"]].concat(),
    );
    assert!(!stale.exists());
    let rows = assert_clean(&out);
    // c: 1000 classes × 3; a and b share seed 5, so their classes are capped at 4.
    assert_eq!(rows.len(), 3000 + 1500 * 4);
}

#[test]
fn bad_inputs_are_errors_that_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let good = generate(dir.path().join("good"))
        .count(3000)
        .shard_rows(1000)
        .seed(8)
        .bank();
    let out = dir.path().join("out");
    let refused = |inputs: &[&Path], message: &str| {
        factory()
            .arg("merge")
            .arg(&out)
            .args(inputs)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(message));
        assert!(!out.exists(), "{} was created", out.display());
    };

    // No manifest.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    refused(&[&good, &empty], "empty holds no bank (no manifest.json)");

    // A corrupted shard: same size, one byte changed.
    let bad = dir.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    for name in listing(&good) {
        let from = good.join(&name);
        if from.is_file() {
            std::fs::copy(&from, bad.join(&name)).unwrap();
        }
    }
    let shard = bad.join("bank-00001.csv.zst");
    let mut bytes = std::fs::read(&shard).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&shard, &bytes).unwrap();
    refused(&[&good, &bad], "bad/bank-00001.csv.zst: XXH3");

    // Regression: rows the manifest does not count (a blank line, which CSV readers
    // skip, or a row count edited by hand) merged without a word; the bytes match.
    let blank = dir.path().join("blank");
    std::fs::create_dir(&blank).unwrap();
    for name in listing(&good) {
        if good.join(&name).is_file() {
            std::fs::copy(good.join(&name), blank.join(&name)).unwrap();
        }
    }
    rewrite_shard(&blank, "bank-00002.csv.zst", |lines| lines[5].clear());
    refused(
        &[&good, &blank],
        "blank/bank-00002.csv.zst: 999 rows, the manifest lists 1000",
    );

    // A missing shard file, and an incomplete manifest that says which shards are missing.
    std::fs::remove_file(&shard).unwrap();
    refused(&[&bad], "bad/bank-00001.csv.zst");
    let mut m = read_manifest(&good).unwrap();
    m.shards.truncate(1);
    m.complete = false;
    let partial = dir.path().join("partial");
    std::fs::create_dir(&partial).unwrap();
    std::fs::copy(
        good.join("bank-00000.csv.zst"),
        partial.join("bank-00000.csv.zst"),
    )
    .unwrap();
    let refused_partial = |m: &sudoku_factory::bank::format::Manifest, message: &str| {
        let manifest = serde_json::to_vec(m).unwrap();
        std::fs::write(partial.join("manifest.json"), manifest).unwrap();
        refused(&[&partial], message);
    };
    refused_partial(&m, "missing shards: bank-00001.csv.zst, bank-00002.csv.zst");
    // Regression: the missing shards were listed one by one, so a manifest claiming
    // 2^64 - 1 rows in shards of one row never answered. They are counted now.
    m.params.count = Some(u64::MAX);
    m.params.shard_rows = 1;
    refused_partial(
        &m,
        &format!("bank-00010.csv.zst … and {} more", u64::MAX - 1 - 10),
    );

    // Regression: settings inherited from a hand-edited manifest were taken as they
    // were (`shard_rows: 0` wrote one-row shards); now refused unless given by flag.
    for (name, value, flag, chosen) in [
        ("shard_rows", 0, "--shard-rows", "1000"),
        ("zstd_level", 99, "--zstd-level", "3"),
    ] {
        let edited = dir.path().join(format!("edited-{name}"));
        common::copy_bank(&good, &edited);
        common::edit_manifest(&edited, |m| m["params"][name] = value.into());
        refused(&[&edited], &format!("params.{name} is {value}"));
        refused(&[&edited], flag);
        let merged = merge(
            dir.path(),
            "chosen",
            &[&edited],
            &["-q", "--force", flag, chosen],
        );
        let shards = listing(&merged)
            .into_iter()
            .filter(|f| f.ends_with(".csv.zst"));
        assert_eq!(shards.count(), 3, "{name}");
    }

    // An occupied OUT is refused without --force, and left as it was.
    let other = generate(dir.path().join("other")).count(10).seed(1).bank();
    let before = checksums(&other);
    factory()
        .arg("merge")
        .arg(&other)
        .arg(&good)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--force"));
    assert_eq!(checksums(&other), before);
    merge(dir.path(), "other", &[&good], &["-q", "--force"]);
    assert_eq!(checksums(&other), checksums(&good));
    // OUT may not be an input.
    factory()
        .arg("merge")
        .arg(&good)
        .arg(&good)
        .arg("--force")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("both the output and an input"));
}

#[test]
fn every_size_merges_its_workers_into_the_single_process_bank() {
    // Issue #11: merge combined 9×9 banks only.
    let dir = tempfile::tempdir().unwrap();
    for (size, count, variants) in [(4, 300, 3), (16, 240, 8), (25, 20, 4)] {
        let run = |name: String| {
            generate(dir.path().join(name))
                .size(size)
                .count(count)
                .variants(variants)
                .shard_rows(50)
                .seed(3)
        };
        let single = run(format!("single-{size}")).bank();
        let workers: Vec<PathBuf> = (0..2)
            .map(|k: u32| {
                run(format!("w{k}-{size}"))
                    .args(["--workers", "2", "--worker", &k.to_string()])
                    .bank()
            })
            .collect();
        let refs: Vec<&Path> = workers.iter().map(PathBuf::as_path).collect();
        let merged = merge(dir.path(), &format!("merged-{size}"), &refs, &["-q"]);
        assert_eq!(checksums(&merged), checksums(&single), "{size}x{size}");
        factory().arg("verify").arg(&merged).assert().success();
    }
}

#[test]
fn two_sixteen_by_sixteen_banks_merge_without_duplicates_in_or_out_of_memory() {
    let dir = tempfile::tempdir().unwrap();
    let bank = |name: &str, count: u64| {
        generate(dir.path().join(name))
            .size(16)
            .count(count)
            .variants(6)
            .shard_rows(100)
            .seed(11)
            .bank()
    };
    let a = bank("a", 300);
    let b = bank("b", 480); // a superset of a: same seed, more seeds
    let free = merge(dir.path(), "free", &[&a, &b], &["-q"]);
    let rows = assert_clean(&free);
    assert_eq!(rows.len(), 480, "every row of a is a duplicate of one of b");
    assert!(rows.iter().all(|r| r.puzzle.len() == 256));
    let tight = merge(
        dir.path(),
        "tight",
        &[&a, &b],
        &["-q", "--memory", "16K", "--threads", "1"],
    );
    assert_eq!(checksums(&tight), checksums(&free));
    assert!(!tight.join(".merge-spill").exists());
    factory().arg("verify").arg(&tight).assert().success();
    let manifest = read_manifest(&tight).unwrap();
    assert_eq!(manifest.params.size, 16);
}

/// SIGTERM while a merge creates its partitions on disk: the scratch directory goes
/// with the run (regression: the sweep raced the files still being created, and
/// `.merge-spill` with up to 200 partition files was left behind).
#[test]
fn a_merge_terminated_while_it_spills_leaves_no_scratch() {
    let dir = tempfile::tempdir().unwrap();
    let a = the_run(dir.path().join("a")).bank();
    let b = generate(dir.path().join("b")).count(12_000).seed(22).bank();
    for (k, files) in [1usize, 10, 40, 100, 160].into_iter().enumerate() {
        let out = dir.path().join(format!("out{k}"));
        let spill = out.join(".merge-spill");
        let mut cmd = std::process::Command::new(common::bin());
        cmd.arg("merge").arg(&out).arg(&a).arg(&b);
        cmd.args(["--memory", "64K", "--threads", "1"]);
        let spilled = || std::fs::read_dir(&spill).is_ok_and(|d| d.count() >= files);
        let Some(status) = common::signal_when(cmd, spilled, libc::SIGTERM) else {
            continue; // finished first: nothing to check
        };
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGTERM), "{files} files");
        assert!(!spill.exists(), "{files} files: {:?}", listing(&spill));
    }
}

/// An unfinished merge (a full disk, say) is finished by the same merge again, and
/// both `verify` and `generate --resume` say so (regression: verify said "rerun
/// generate", and --resume "params.seed_batch is missing").
#[test]
fn an_unfinished_merge_says_to_merge_again() {
    let dir = tempfile::tempdir().unwrap();
    let a = generate(dir.path().join("a")).count(2000).bank();
    let out = merge(dir.path(), "out", &[&a], &["-q"]);
    let manifest = out.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("\"complete\": true", "\"complete\": false"),
    )
    .unwrap();
    factory()
        .arg("verify")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "the merge did not finish (run the same merge again with --force)",
        ));
    factory()
        .args(["generate", "--resume"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "was written by merge, not generate: a merge does not resume; run the same merge again with --force",
        ));
}

/// Columns after the bank's own (DESIGN lets a bank grow some; `export` passes them
/// through) are refused before anything is written, named (regression: merge
/// dropped them without a word).
#[test]
fn columns_merge_would_drop_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = generate(dir.path().join("a")).count(500).bank();
    rewrite_shard(&a, "bank-00000.csv.zst", |lines| {
        lines[0].push_str(",source");
        for line in &mut lines[1..] {
            line.push_str(",b7");
        }
    });
    let out = dir.path().join("out");
    factory()
        .arg("merge")
        .arg(&out)
        .arg(&a)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "bank-00000.csv.zst: columns after the bank's own (source); merge writes the bank's columns only and would drop them",
        ));
    assert!(!out.exists());
}

#[test]
fn banks_of_different_sizes_do_not_merge() {
    let dir = tempfile::tempdir().unwrap();
    let nine = generate(dir.path().join("nine")).count(20).bank();
    let four = generate(dir.path().join("four")).size(4).count(20).bank();
    let out = dir.path().join("out");
    factory()
        .arg("merge")
        .arg(&out)
        .args([&nine, &four])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("9x9 puzzles"))
        .stderr(predicates::str::contains("4x4"))
        .stderr(predicates::str::contains("one size"));
    assert!(!out.exists(), "a refused merge created its output");
}

/// A merge of rating-graded banks keeps the scale: `verify` reads the bands as
/// ratings and passes. Regression: the merged params lost `grade: rating`, and
/// `verify` failed every such merge ("LO is not a number") without checking bands.
#[test]
fn rating_graded_banks_merge_into_a_bank_verify_checks() {
    let dir = tempfile::tempdir().unwrap();
    let run = |k: u64| {
        generate(dir.path().join(format!("w{k}")))
            .arg("--grade")
            .arg("rating")
            .count(400)
            .variants(2)
            .shard_rows(100)
            .args(["--workers", "2", "--worker", &k.to_string()])
            .bank()
    };
    let (w0, w1) = (run(0), run(1));
    let out = merge(dir.path(), "merged", &[&w0, &w1], &[]);
    let m = read_manifest(&out).unwrap();
    assert_eq!(m.params.grade.as_deref(), Some("rating"));
    assert!(m.params.bands.is_some());
    factory()
        .arg("verify")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicates::str::contains("is clean"))
        .stderr(predicates::str::contains("bands are not checked").not());
}

/// Banks graded on different scales are refused: their band names mean different
/// things (`easy`: 36-40 clues, or a rating of 1.0-1.4).
#[test]
fn banks_of_different_grade_scales_do_not_merge() {
    let dir = tempfile::tempdir().unwrap();
    let clues = generate(dir.path().join("clues")).count(20).bank();
    let rated = generate(dir.path().join("rated"))
        .arg("--grade")
        .arg("rating")
        .count(20)
        .bank();
    let out = dir.path().join("out");
    factory()
        .arg("merge")
        .arg(&out)
        .args([&clues, &rated])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("graded by clues"))
        .stderr(predicates::str::contains("by rating"))
        .stderr(predicates::str::contains("one grade scale"));
    assert!(!out.exists(), "a refused merge created its output");
}

/// A merge records which version rated each input, so that `verify` holds a bank
/// rated by an earlier rater to consistency instead of re-rating it. Regression:
/// the merged manifest said 0.4.0 whatever its inputs, and `verify` re-rated them.
#[test]
fn a_merge_remembers_which_rater_rated_its_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let old = generate(dir.path().join("old")).count(200).bank();
    let manifest = old.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let version = format!("\"version\": \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&version), "{text}");
    std::fs::write(&manifest, text.replace(&version, "\"version\": \"0.3.0\"")).unwrap();
    let new = generate(dir.path().join("new")).count(200).seed(5).bank();
    let out = merge(dir.path(), "merged", &[&old, &new], &[]);
    let m = read_manifest(&out).unwrap();
    assert_eq!(m.rated_by(), "0.3.0");
    let inputs = &m.params.merge.as_ref().unwrap().inputs;
    assert_eq!(inputs[0].rated_by.as_deref(), Some("0.3.0"));
    assert_eq!(
        inputs[1].rated_by.as_deref(),
        Some(env!("CARGO_PKG_VERSION"))
    );
    factory()
        .arg("verify")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicates::str::contains("rated by sudoku-factory 0.3.0"));
    // Merged again, the oldest rater is still the one named.
    let again = merge(dir.path(), "again", &[&out], &[]);
    assert_eq!(read_manifest(&again).unwrap().rated_by(), "0.3.0");
}

/// Regression: a manifest that lists a shard with an impossible row count made
/// `merge` size its buffer by it and abort ("capacity overflow", or a failed
/// allocation of 312 GB) before the shard was read. Now the shard is read and its
/// real count refused, as `export` and `verify` refuse it.
#[test]
fn a_shard_listed_with_too_many_rows_is_refused_not_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank")).count(200).seed(6).bank();
    common::edit_manifest(&bank, |m| {
        m["shards"][0]["rows"] = 1_000_000_000_000_000_000u64.into();
    });
    let out = dir.path().join("merged");
    factory()
        .arg("merge")
        .arg(&out)
        .arg(&bank)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "200 rows, the manifest lists 1000000000000000000",
        ));
    assert!(!out.exists());
}
