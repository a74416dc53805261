//! Crash safety: a run killed with SIGKILL at any moment resumes into the same bytes,
//! and a write that fails (file-size limit) ends with a clear error and leaves every
//! listed shard intact.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{factory, listing};
use predicates::prelude::*;
use sudoku_factory::bank::read_manifest;
use sudoku_factory::sink::Manifest;

const ARGS: [&str; 8] = [
    "--count",
    "24000",
    "--variants",
    "2",
    "--shard-rows",
    "500",
    "--seed",
    "11",
];

fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("sudoku-factory")
}

fn listed_shards(dir: &Path) -> usize {
    read_manifest(dir).map(|m| m.shards.len()).unwrap_or(0)
}

/// Starts `generate` (or `generate --resume`), waits until the manifest lists at least
/// `shards` shards, then kills it with SIGKILL. Returns whether it was still running.
fn kill_after(mut cmd: Command, dir: &Path, shards: usize) -> bool {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while listed_shards(dir) < shards && Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    true
}

fn assert_same_bank(a: &Path, b: &Path) {
    let (ma, mb): (Manifest, Manifest) = (read_manifest(a).unwrap(), read_manifest(b).unwrap());
    assert!(ma.complete && mb.complete);
    assert_eq!(ma.shards, mb.shards, "shard records differ");
    for s in &ma.shards {
        let (x, y) = (
            std::fs::read(a.join(&s.file)).unwrap(),
            std::fs::read(b.join(&s.file)).unwrap(),
        );
        assert!(x == y, "{} differs", s.file);
    }
    let shards = |d: &Path| {
        listing(d)
            .into_iter()
            .filter(|n| n.contains("bank-"))
            .collect::<Vec<_>>()
    };
    assert_eq!(shards(a), shards(b), "leftover or missing files");
}

/// The uninterrupted run that a resumed one must match, in `dir/clean`.
fn clean_run(dir: &Path) -> std::path::PathBuf {
    let clean = dir.join("clean");
    factory()
        .arg("generate")
        .args(ARGS)
        .arg("--out")
        .arg(&clean)
        .arg("-q")
        .assert()
        .success();
    clean
}

#[test]
fn a_run_killed_twice_resumes_into_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let clean = clean_run(dir.path());

    let crashed = dir.path().join("crashed");
    let mut first = Command::new(bin());
    first.arg("generate").args(ARGS).arg("--out").arg(&crashed);
    assert!(
        kill_after(first, &crashed, 3),
        "the first run finished before it could be killed"
    );
    let mut second = Command::new(bin());
    second
        .args(["generate", "--threads", "1", "--resume"])
        .arg(&crashed);
    let killed_again = kill_after(second, &crashed, 20);
    assert!(listed_shards(&crashed) < 48);
    factory()
        .args(["generate", "--resume"])
        .arg(&crashed)
        .arg("-q")
        .assert()
        .success();
    assert_same_bank(&clean, &crashed);
    assert!(
        killed_again,
        "the second run finished before it could be killed"
    );
}

#[test]
fn a_run_killed_before_its_first_shard_resumes_from_zero() {
    let dir = tempfile::tempdir().unwrap();
    let clean = clean_run(dir.path());
    let crashed = dir.path().join("crashed");
    let mut cmd = Command::new(bin());
    cmd.arg("generate").args(ARGS).arg("--out").arg(&crashed);
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while !crashed.join("manifest.json").exists() {
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    factory()
        .args(["generate", "--resume"])
        .arg(&crashed)
        .arg("-q")
        .assert()
        .success();
    assert_same_bank(&clean, &crashed);
}

#[test]
fn resuming_a_complete_bank_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    factory()
        .args(["generate", "--count", "30", "-q"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let before = std::fs::read(out.join("bank-00000.csv.zst")).unwrap();
    factory()
        .args(["generate", "--resume"])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicates::str::contains("already complete"));
    assert_eq!(
        std::fs::read(out.join("bank-00000.csv.zst")).unwrap(),
        before
    );
}

#[test]
fn a_file_size_limit_gives_a_clear_error_and_intact_listed_shards() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    // Shards of 5 rows stay under 4 KiB; the manifest grows with every shard it lists
    // and crosses the limit part-way, so the failure comes mid-run.
    let output = Command::new("bash")
        .args(["-c", "ulimit -f 4 && exec \"$@\"", "_"])
        .arg(bin())
        .args([
            "generate",
            "--count",
            "400",
            "--shard-rows",
            "5",
            "-q",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("File too large"), "{stderr}");
    assert!(stderr.starts_with("sudoku-factory: "), "{stderr}");
    let manifest = read_manifest(&out).unwrap();
    assert!(!manifest.complete);
    assert!(
        !manifest.shards.is_empty(),
        "the limit should hit after some shards"
    );
    for s in &manifest.shards {
        let bytes = std::fs::read(out.join(&s.file)).unwrap();
        assert_eq!(bytes.len() as u64, s.bytes);
        assert_eq!(
            format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)),
            s.xxh3
        );
        assert_eq!(
            zstd::decode_all(bytes.as_slice())
                .unwrap()
                .iter()
                .filter(|&&b| b == b'\n')
                .count(),
            6
        );
    }
    assert!(
        !listing(&out).iter().any(|n| n.ends_with(".tmp")),
        "a temporary file was left behind"
    );
}

#[test]
fn an_out_that_cannot_be_created_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    factory()
        .args(["generate", "--count", "10"])
        .arg("--out")
        .arg(file.join("bank"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("creating").and(predicates::str::contains("not-a-dir")));
}

/// Regression: resume used to try `remove_file` on the `histograms` directory of an
/// earlier run, and trusted the manifest's totals instead of summing its shards.
#[test]
fn resume_keeps_histograms_and_recomputes_totals() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    factory()
        .args(["generate", "--count", "3000", "--shard-rows", "500", "-q"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let clean = read_manifest(&out).unwrap();
    // As if the run had died after two shards, with an older run's histograms around
    // and stale totals in the manifest.
    let mut m = clean.clone();
    m.shards.truncate(2);
    m.complete = false;
    std::fs::write(out.join("manifest.json"), serde_json::to_vec(&m).unwrap()).unwrap();
    assert!(out.join("histograms").is_dir());
    factory()
        .args(["generate", "--resume"])
        .arg(&out)
        .arg("-q")
        .assert()
        .success();
    let resumed = read_manifest(&out).unwrap();
    assert_eq!(resumed.shards, clean.shards);
    assert_eq!((resumed.rows, resumed.bytes), (clean.rows, clean.bytes));
    factory()
        .arg("verify")
        .arg(&out)
        .arg("-q")
        .assert()
        .success();
}
