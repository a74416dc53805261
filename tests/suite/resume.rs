//! Crash safety: a run killed with SIGKILL at any moment resumes into the same bytes,
//! a run ended by SIGTERM or SIGINT also leaves no temporary file (a SIGINT ignored
//! when it started stays ignored), and a write that fails (file-size limit) ends with
//! a clear error and leaves every listed shard intact.

use crate::common;

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{generate, listing, resume, signal_when, Gen};
use predicates::prelude::*;
use sudoku_factory::bank::format::Manifest;
use sudoku_factory::bank::read_manifest;

/// The run that is killed and resumed, long enough (48 shards) to be killed mid-way.
fn the_run(out: &Path) -> Gen {
    generate(out)
        .count(24_000)
        .variants(2)
        .shard_rows(500)
        .seed(11)
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

/// The hidden files (temporary twins, scratch) in `dir`.
fn hidden_files(dir: &Path) -> Vec<String> {
    listing(dir)
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect()
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
    the_run(&dir.join("clean")).bank()
}

#[test]
fn a_run_killed_twice_resumes_into_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let clean = clean_run(dir.path());

    let crashed = dir.path().join("crashed");
    assert!(
        kill_after(the_run(&crashed).loud().std_cmd(), &crashed, 3),
        "the first run finished before it could be killed"
    );
    let second = resume(&crashed).threads(1).loud().std_cmd();
    let killed_again = kill_after(second, &crashed, 20);
    assert!(listed_shards(&crashed) < 48);
    resume(&crashed).run();
    assert_same_bank(&clean, &crashed);
    assert!(
        killed_again,
        "the second run finished before it could be killed"
    );
}

/// A worker's resumed run counts the rows it made itself (regression: it took the
/// worker's rows less the global id it resumed at, which wrapped around to
/// 18446744073709549616 rows, and a rate to match); its shards match a clean run's.
#[test]
fn a_resumed_worker_counts_the_rows_it_made() {
    let dir = tempfile::tempdir().unwrap();
    let worker = |out: &Path| the_run(out).args(["--workers", "2", "--worker", "0"]);
    let clean = worker(&dir.path().join("clean")).bank();
    let crashed = dir.path().join("crashed");
    assert!(
        kill_after(worker(&crashed).threads(1).std_cmd(), &crashed, 6),
        "the worker finished before it could be killed"
    );
    let before = read_manifest(&crashed).unwrap().rows;
    let run = resume(&crashed).loud().run().success();
    let stderr = crate::common::stderr_of(&run);
    let after = read_manifest(&crashed).unwrap().rows;
    let want = format!(": {} rows made in this run", after - before);
    assert!(stderr.contains(&want), "{want} in {stderr}");
    assert_same_bank(&clean, &crashed);
}

/// SIGTERM and SIGINT end the run by that signal, as before, but its unfinished
/// temporary files go first; the run resumes into the same bytes. Regression: both
/// acted as SIGKILL and left the open shard's `.bank-NNNNN.csv.zst.tmp` behind.
#[test]
fn a_run_ended_by_sigterm_or_sigint_leaves_no_temporary_file_and_resumes() {
    // Shards of many blocks, so that one is open (under its temporary name) most of
    // the time; the signal comes while the second one is.
    let run = |out: &Path| {
        generate(out)
            .count(400_000)
            .variants(100)
            .shard_rows(100_000)
            .seed(11)
    };
    let dir = tempfile::tempdir().unwrap();
    let clean = run(&dir.path().join("clean")).bank();
    for (name, signal) in [("term", libc::SIGTERM), ("int", libc::SIGINT)] {
        let out = dir.path().join(name);
        let writing = || listed_shards(&out) >= 1 && !hidden_files(&out).is_empty();
        let mut cmd = run(&out).loud().std_cmd();
        // As from a terminal: the test itself may run with SIGINT ignored (a
        // background job of a script, as CI may start it), which the child inherits.
        // SAFETY: between fork and exec, signal(2) is async-signal-safe.
        unsafe {
            cmd.pre_exec(move || {
                libc::signal(signal, libc::SIG_DFL);
                Ok(())
            });
        }
        let status = signal_when(cmd, writing, signal).expect("the run finished before the signal");
        assert_eq!(status.signal(), Some(signal), "{name}: {status:?}");
        assert_eq!(hidden_files(&out), Vec::<String>::new(), "{name}");
        resume(&out).run();
        assert_same_bank(&clean, &out);
    }
}

/// A SIGINT ignored when the run started (a shell script's background job, `nohup`'s
/// SIGHUP alike) stays ignored: the run goes on and finishes.
#[test]
fn a_signal_ignored_at_start_stays_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    let mut cmd = the_run(&out).loud().std_cmd();
    // SAFETY: between fork and exec, signal(2) is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            Ok(())
        });
    }
    let status = signal_when(cmd, || listed_shards(&out) >= 3, libc::SIGINT)
        .expect("the run finished before the signal");
    assert!(status.success(), "{status:?}");
    assert!(read_manifest(&out).unwrap().complete);
}

/// `export` ended by SIGTERM mid-file: neither the file nor its temporary twin stays.
#[test]
fn an_export_ended_by_sigterm_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank"))
        .count(300_000)
        .variants(100)
        .bank();
    let db = dir.path().join("out.sqlite");
    let mut cmd = Command::new(common::bin());
    cmd.arg("export")
        .arg(&bank)
        .arg("--to")
        .arg(&db)
        .arg("--quiet");
    let status = signal_when(
        cmd,
        || {
            listing(dir.path())
                .iter()
                .any(|n| n.starts_with(".out.sqlite.tmp-"))
        },
        libc::SIGTERM,
    )
    .expect("the export finished before the signal");
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    assert_eq!(hidden_files(dir.path()), Vec::<String>::new());
    assert!(!db.exists());
}

#[test]
fn a_run_killed_before_its_first_shard_resumes_from_zero() {
    let dir = tempfile::tempdir().unwrap();
    let clean = clean_run(dir.path());
    let crashed = dir.path().join("crashed");
    let mut child = the_run(&crashed)
        .loud()
        .std_cmd()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while !crashed.join("manifest.json").exists() {
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    resume(&crashed).run();
    assert_same_bank(&clean, &crashed);
}

#[test]
fn resuming_a_complete_bank_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out).count(30).run();
    let before = std::fs::read(out.join("bank-00000.csv.zst")).unwrap();
    resume(&out)
        .loud()
        .run()
        .stderr(predicates::str::contains("already complete"));
    assert_eq!(
        std::fs::read(out.join("bank-00000.csv.zst")).unwrap(),
        before
    );
    // Regression: a complete bank with a damaged shard was "already complete" (exit
    // 0); `--resume` checks listed shards whether the bank is complete or not.
    let mut damaged = before.clone();
    damaged.truncate(before.len() / 2);
    std::fs::write(out.join("bank-00000.csv.zst"), &damaged).unwrap();
    resume(&out)
        .cmd()
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "bank-00000.csv.zst does not match its size or checksum",
        ));
    assert_eq!(
        std::fs::read(out.join("bank-00000.csv.zst")).unwrap(),
        damaged,
        "left as it is, for verify to examine"
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
        .arg(common::bin())
        .args(generate(&out).count(400).shard_rows(5).argv())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = crate::common::stderr_of(&output);
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
    generate(file.join("bank"))
        .count(10)
        .loud()
        .cmd()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("creating").and(predicates::str::contains("not-a-dir")));
    // The file itself as OUT (generate and merge): named as what it is. Regression:
    // merge said "reading not-a-dir: Not a directory".
    generate(&file)
        .count(10)
        .cmd()
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "not-a-dir exists and is not a directory",
        ));
    let bank = generate(dir.path().join("bank")).count(10).bank();
    common::factory()
        .arg("merge")
        .arg(&file)
        .arg(&bank)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "not-a-dir exists and is not a directory",
        ));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

/// Regression: resume used to try `remove_file` on the `histograms` directory of an
/// earlier run, and trusted the manifest's totals instead of summing its shards.
#[test]
fn resume_keeps_histograms_and_recomputes_totals() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out).count(3000).shard_rows(500).run();
    let clean = read_manifest(&out).unwrap();
    // As if the run had died after two shards, with an older run's histograms around
    // and stale totals in the manifest.
    let mut m = clean.clone();
    m.shards.truncate(2);
    m.complete = false;
    std::fs::write(out.join("manifest.json"), serde_json::to_vec(&m).unwrap()).unwrap();
    assert!(out.join("histograms").is_dir());
    resume(&out).run();
    let resumed = read_manifest(&out).unwrap();
    assert_eq!(resumed.shards, clean.shards);
    assert_eq!((resumed.rows, resumed.bytes), (clean.rows, clean.bytes));
    common::verify(&out).assert().success();
}

/// Regression: a hand-edited manifest with `params.variants`, `shard_rows` or
/// `workers` at 0 made `--resume` panic on a division by zero, and
/// `max_attempts` at 0 gave a message about an unreachable band. Each is refused,
/// naming the key, and the bank is left as it was.
#[test]
fn a_manifest_param_of_zero_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let made = generate(dir.path().join("made"))
        .count(400)
        .variants(4)
        .shard_rows(100)
        .seed(2)
        .bank();
    for key in ["variants", "shard_rows", "workers", "max_attempts"] {
        let out = dir.path().join(key);
        common::copy_bank(&made, &out);
        let edited = common::edit_manifest(&out, |m| {
            m["complete"] = false.into();
            m["params"][key] = 0.into();
        });
        let before = listing(&out);
        resume(&out)
            .cmd()
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!("params.{key} is 0")))
            .stderr(predicate::str::contains("panicked").not());
        assert_eq!(listing(&out), before, "{key}");
        assert_eq!(
            std::fs::read(out.join("manifest.json")).unwrap(),
            edited,
            "{key}"
        );
    }
}
