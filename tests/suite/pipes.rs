//! Closed and failing standard streams (DESIGN.md: "a broken pipe is not an error"):
//! a report piped into `head` that stops reading, or a stderr nobody reads, never makes
//! a command panic or skip its files; a full disk under stdout is an error (exit 2)
//! with a message. Regressions: `stats`, `bench`, `verify`, `generate` and `export`
//! used to exit 101 (a panic in `print!`/`eprintln!`) in these cases. And an output
//! named on the command line that is a pipe or a device is refused, never renamed over.

use crate::common;

use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Stdio};

use common::{bin, generate, verify};

/// A pipe whose reading end is already closed: every write to it fails with EPIPE,
/// whatever the timing (a real `| head -1` closes it at some point during the run).
fn closed_pipe() -> Stdio {
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills two new descriptors that this function alone owns; the
    // read end is closed here and the write end moved into one `OwnedFd`.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0, "pipe()");
        libc::close(fds[0]);
        Stdio::from(OwnedFd::from_raw_fd(fds[1]))
    }
}

fn run(args: &[&std::ffi::OsStr], stdout: Stdio, stderr: Stdio) -> std::process::Output {
    // In a scratch directory: a binary that wrote a stray file (an old `export --to -`
    // wrote one named `-`) must not leave it in the checkout.
    let cwd = tempfile::tempdir().unwrap();
    Command::new(bin())
        .current_dir(cwd.path())
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .output()
        .expect("the binary runs")
}

fn small_bank(dir: &Path) -> std::path::PathBuf {
    generate(dir.join("bank"))
        .count(300)
        .seed(5)
        .arg("--no-histograms")
        .bank()
}

#[test]
fn a_closed_stdout_ends_no_report_early_and_skips_no_file() {
    let tmp = tempfile::tempdir().unwrap();
    let bank = small_bank(tmp.path());
    let svg = tmp.path().join("chart.svg");
    let out = run(
        &[
            "stats".as_ref(),
            bank.as_os_str(),
            "--svg".as_ref(),
            svg.as_os_str(),
        ],
        closed_pipe(),
        Stdio::piped(),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));

    let dir = tmp.path().join("bench");
    let out = run(
        &[
            "bench".as_ref(),
            "--count".as_ref(),
            "3".as_ref(),
            "--fill".as_ref(),
            "mrv".as_ref(),
            "--carve".as_ref(),
            "target".as_ref(),
            "--out".as_ref(),
            dir.as_os_str(),
        ],
        closed_pipe(),
        Stdio::null(),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    for file in ["bench.csv", "bench.json", "bench.svg"] {
        assert!(dir.join(file).is_file(), "{file} written");
    }
}

/// Runs `args` with standard output on /dev/full: exit 2, naming standard output.
fn fails_onto_a_full_disk(args: &[&std::ffi::OsStr], what: &str) {
    let full = std::fs::File::create("/dev/full").unwrap();
    let out = run(args, Stdio::from(full), Stdio::piped());
    assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
    let err = crate::common::stderr_of(&out);
    assert!(
        err.contains("writing to standard output: "),
        "{what}: {err}"
    );
}

/// `export --to -` into a reader that went away (`| head`) stops there, exit 0 and no
/// error, in every format that goes to standard output (regression: csv, plain or
/// `--zstd`, failed with "Broken pipe", exit 2); onto a full disk it is an error
/// naming standard output.
#[test]
fn export_to_standard_output_stops_at_a_closed_pipe() {
    let tmp = tempfile::tempdir().unwrap();
    // More rows than the writers buffer (1 MiB), so that a write fails mid-stream,
    // not only the last flush.
    let bank = generate(tmp.path().join("bank"))
        .count(20_000)
        .variants(10)
        .seed(5)
        .arg("--no-histograms")
        .bank();
    for format in [
        &["jsonl"][..],
        &["csv-kaggle"],
        &["csv"],
        &["csv", "--zstd"],
    ] {
        let mut args = vec![
            "export".as_ref(),
            bank.as_os_str(),
            "--to".as_ref(),
            "-".as_ref(),
            "--format".as_ref(),
        ];
        args.extend(format.iter().map(std::ffi::OsStr::new));
        let out = run(&args, closed_pipe(), Stdio::piped());
        assert_eq!(out.status.code(), Some(0), "{format:?}: {out:?}");
        let err = crate::common::stderr_of(&out);
        assert!(
            err.contains("standard output was closed"),
            "{format:?}: {err}"
        );
        if Path::new("/dev/full").exists() {
            fails_onto_a_full_disk(&args, &format!("{format:?}"));
        }
    }
}

#[test]
fn a_closed_stderr_changes_no_exit_code() {
    let tmp = tempfile::tempdir().unwrap();
    // `generate` with its summary on (no -q) into a closed stderr: a complete bank.
    let dir = tmp.path().join("loud");
    let out = run(
        &[
            "generate".as_ref(),
            "--count".as_ref(),
            "300".as_ref(),
            "--out".as_ref(),
            dir.as_os_str(),
        ],
        Stdio::null(),
        closed_pipe(),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    verify(&dir).assert().success();

    let out = run(
        &["verify".as_ref(), dir.as_os_str()],
        Stdio::null(),
        closed_pipe(),
    );
    assert_eq!(out.status.code(), Some(0), "a clean bank: {out:?}");

    // A damaged bank still exits 1 (defects), its findings unread.
    let shard = dir.join("bank-00000.csv.zst");
    let mut bytes = std::fs::read(&shard).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&shard, bytes).unwrap();
    let out = run(
        &["verify".as_ref(), dir.as_os_str()],
        Stdio::null(),
        closed_pipe(),
    );
    assert_eq!(out.status.code(), Some(1), "a damaged bank: {out:?}");
}

#[test]
fn a_full_disk_under_stdout_is_an_error_not_a_panic() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        return; // not a Linux-like system: nothing to write to that always fails
    }
    let tmp = tempfile::tempdir().unwrap();
    let bank = small_bank(tmp.path());
    fails_onto_a_full_disk(&["stats".as_ref(), bank.as_os_str()], "stats");
    // The line commands too (regression: they said only "No space left on device").
    let puzzles = tmp.path().join("p.txt");
    let line = "..9.7.85...5..2.67.....9..15.36142.8948..57..6.17.8.4..57.436..2...6.57.8.6..7..4";
    std::fs::write(&puzzles, format!("{line}\n")).unwrap();
    for command in ["solve", "grade", "canon", "transform"] {
        fails_onto_a_full_disk(&[command.as_ref(), puzzles.as_os_str()], command);
    }
}

/// Runs every command that writes a named output with `path` as that output
/// (`--force`, and `render --txt --append`), each expected to refuse it: exit 2, and
/// `check` given the arguments and stderr.
fn every_writer_refuses(bank: &Path, path: &Path, check: impl Fn(&[&str], &str)) {
    let (bank, path) = (bank.to_str().unwrap(), path.to_str().unwrap());
    let runs = [
        vec!["export", bank, "--to", path, "--format", "csv", "--force"],
        vec!["stats", bank, "--svg", path, "--force"],
        vec!["render", bank, "--count", "1", "--pdf", path, "--force"],
        vec!["render", bank, "--count", "1", "--txt", path, "--force"],
        vec!["render", bank, "--count", "1", "--txt", path, "--append"],
    ];
    for args in runs {
        let os: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        let out = run(&os, Stdio::null(), Stdio::piped());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        check(&args, &crate::common::stderr_of(&out));
    }
}

/// Regression: `export --to /dev/null --force` wrote its temporary file and renamed it
/// over /dev/null, replacing the device with a regular file. Tested on a FIFO in a
/// temporary directory (never on a real device): refused by every command that
/// writes a named output, even with `--force`, and left a FIFO.
#[test]
fn an_output_that_is_a_pipe_is_refused_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let tmp = tempfile::tempdir().unwrap();
    let bank = small_bank(tmp.path());
    let fifo = tmp.path().join("fifo");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    every_writer_refuses(&bank, &fifo, |args, err| {
        assert!(err.contains("is not a regular file"), "{args:?}: {err}");
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{args:?} replaced the FIFO");
    });
}

/// Regression: with `--force`, an output named by a symbolic link was renamed over
/// the link, leaving a regular file where the link was and the target as it was
/// (`render --txt /dev/stdout --force` replaced the system's /dev/stdout). Refused by
/// every command that writes a named output, naming the target; link and target
/// are left as they were.
#[test]
fn an_output_that_is_a_symbolic_link_is_refused_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let bank = small_bank(tmp.path());
    let target = tmp.path().join("target.txt");
    std::fs::write(&target, "old\n").unwrap();
    let link = tmp.path().join("link.txt");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let want = format!("is a symbolic link (to {})", target.display());
    every_writer_refuses(&bank, &link, |args, err| {
        assert!(err.contains(&want), "{args:?}: {err}");
        let still_a_link = std::fs::symlink_metadata(&link).unwrap().is_symlink();
        assert!(still_a_link, "{args:?}");
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "old\n",
            "{args:?}"
        );
    });
}
