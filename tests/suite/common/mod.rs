//! Helpers shared by the integration tests: run the binary, spell a `generate` run
//! once (the [`Gen`] builder), read a bank back.
#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use assert_cmd::assert::Assert;
use assert_cmd::Command;

/// The binary under test.
pub fn factory() -> Command {
    Command::cargo_bin("sudoku-factory").expect("the binary is built by cargo test")
}

/// The path of the binary under test, for commands that are not `assert_cmd`'s.
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("sudoku-factory")
}

/// `generate ... --out OUT -q`: a builder, so that each test states only the options
/// it is about. Nothing is passed that the test does not ask for, except `-q` (most
/// tests do not read the summary; [`Gen::loud`] leaves it out) — in particular no
/// `--seed`: a test that wants a fixed seed says which.
pub fn generate(out: impl AsRef<Path>) -> Gen {
    Gen::new(Target::Out(out.as_ref().to_path_buf()))
}

/// `generate --resume DIR -q`: continue the bank in `dir` (options such as
/// [`Gen::threads`] still apply; those the manifest fixes are refused by the binary).
pub fn resume(dir: impl AsRef<Path>) -> Gen {
    Gen::new(Target::Resume(dir.as_ref().to_path_buf()))
}

/// Where a [`Gen`] writes: a new bank, or the one it resumes.
#[derive(Clone, Debug)]
enum Target {
    Out(PathBuf),
    Resume(PathBuf),
}

/// One `generate` command line under construction; see [`generate`] and [`resume`].
#[derive(Clone, Debug)]
#[must_use = "a Gen does nothing until .run(), .bank(), .cmd() or .std_cmd()"]
pub struct Gen {
    target: Target,
    args: Vec<OsString>,
    quiet: bool,
}

impl Gen {
    fn new(target: Target) -> Gen {
        Gen {
            target,
            args: Vec::new(),
            quiet: true,
        }
    }

    /// `--count N`.
    pub fn count(self, n: u64) -> Gen {
        self.opt("--count", n)
    }

    /// `--variants K`.
    pub fn variants(self, k: u64) -> Gen {
        self.opt("--variants", k)
    }

    /// `--size N` (4, 9, 16 or 25).
    pub fn size(self, n: usize) -> Gen {
        self.opt("--size", n)
    }

    /// `--seed S`.
    pub fn seed(self, s: u64) -> Gen {
        self.opt("--seed", s)
    }

    /// `--threads T`.
    pub fn threads(self, t: u32) -> Gen {
        self.opt("--threads", t)
    }

    /// `--shard-rows N`.
    pub fn shard_rows(self, n: u64) -> Gen {
        self.opt("--shard-rows", n)
    }

    /// `--difficulty BANDS`.
    pub fn difficulty(self, bands: &str) -> Gen {
        self.args(["--difficulty", bands])
    }

    /// Any other argument, passed as it is.
    pub fn arg(self, arg: impl AsRef<OsStr>) -> Gen {
        self.args([arg])
    }

    /// Any other arguments, passed as they are.
    pub fn args<I, S>(mut self, args: I) -> Gen
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// Leaves `-q` out: for tests that read the summary or the stage table on stderr,
    /// or that must run the command line exactly as a user would type it.
    pub fn loud(mut self) -> Gen {
        self.quiet = false;
        self
    }

    fn opt(self, name: &str, value: impl ToString) -> Gen {
        self.args([name.to_string(), value.to_string()])
    }

    /// The whole argument list after the binary's name, starting with `generate`
    /// (for a wrapper such as `bash -c 'ulimit ...; exec "$@"'`).
    pub fn argv(&self) -> Vec<OsString> {
        let mut argv = vec![OsString::from("generate")];
        argv.extend(self.args.iter().cloned());
        if self.quiet {
            argv.push("-q".into());
        }
        let (flag, dir) = match &self.target {
            Target::Out(dir) => ("--out", dir),
            Target::Resume(dir) => ("--resume", dir),
        };
        argv.push(flag.into());
        argv.push(dir.clone().into_os_string());
        argv
    }

    /// The bank directory: OUT, or the directory being resumed.
    pub fn dir(&self) -> &Path {
        match &self.target {
            Target::Out(dir) | Target::Resume(dir) => dir,
        }
    }

    /// The command, not yet run: for tests that expect a failure, read the exit code or
    /// stderr, or set the environment.
    pub fn cmd(&self) -> Command {
        let mut cmd = factory();
        cmd.args(self.argv());
        cmd
    }

    /// The command as a plain `std::process::Command`, for tests that spawn it and
    /// kill it or run several at once.
    pub fn std_cmd(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(bin());
        cmd.args(self.argv());
        cmd
    }

    /// Runs the command and asserts that it succeeded; the returned `Assert` holds the
    /// output and takes further checks (`.stderr(...)`).
    pub fn run(&self) -> Assert {
        self.cmd().assert().success()
    }

    /// Runs the command, asserts that it succeeded, and returns the bank directory.
    pub fn bank(&self) -> PathBuf {
        self.run();
        self.dir().to_path_buf()
    }
}

/// `verify DIR -q`, not yet run.
pub fn verify(dir: impl AsRef<Path>) -> Command {
    let mut cmd = factory();
    cmd.arg("verify").arg(dir.as_ref()).arg("-q");
    cmd
}

/// One CSV row of a bank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub id: u64,
    pub puzzle: String,
    pub solution: String,
    pub clues: u16,
    pub difficulty: String,
    pub canonical: String,
    /// The `rating` and `technique` columns (empty on sizes without a rater).
    pub rating: String,
    pub technique: String,
}

/// Reads every shard of the bank in `dir`, in shard order, with the zstd and csv
/// crates (not with our own code), checking the header of each.
pub fn read_bank(dir: &Path) -> Vec<Row> {
    let mut shards: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".csv.zst"))
        .collect();
    shards.sort();
    let mut rows = Vec::new();
    for shard in shards {
        let bytes = zstd::decode_all(std::fs::File::open(&shard).unwrap()).unwrap();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        // DESIGN.md's columns, spelt here independently of the product's list.
        let design = "id,puzzle,solution,clues,difficulty,canonical,rating,technique";
        assert_eq!(
            reader.headers().unwrap(),
            design.split(',').collect::<Vec<_>>()
        );
        for rec in reader.records() {
            let rec = rec.unwrap();
            rows.push(Row {
                id: rec[0].parse().unwrap(),
                puzzle: rec[1].to_string(),
                solution: rec[2].to_string(),
                clues: rec[3].parse().unwrap(),
                difficulty: rec[4].to_string(),
                canonical: rec[5].to_string(),
                rating: rec[6].to_string(),
                technique: rec[7].to_string(),
            });
        }
    }
    rows
}

/// Every file name in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Starts `cmd`, waits until `ready()` (or 120 s), then sends it `signal` and waits for
/// it. Returns its exit status, or `None` when it had finished before the signal.
pub fn signal_when(
    mut cmd: std::process::Command,
    ready: impl Fn() -> bool,
    signal: i32,
) -> Option<std::process::ExitStatus> {
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !ready() && std::time::Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on our own child's PID, which has not been waited for yet.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    Some(child.wait().unwrap())
}

/// Lets `edit` change `dir/manifest.json` as JSON, and writes it back; returns the
/// bytes written.
pub fn edit_manifest(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let path = dir.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut manifest);
    let bytes = serde_json::to_vec_pretty(&manifest).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    bytes
}

/// Copies the files of the bank `from` (its shards and manifest, not its
/// subdirectories) into the new directory `to`.
pub fn copy_bank(from: &Path, to: &Path) {
    std::fs::create_dir(to).unwrap();
    for name in listing(from) {
        if from.join(&name).is_file() {
            std::fs::copy(from.join(&name), to.join(&name)).unwrap();
        }
    }
}

/// Decompresses `file`, lets `edit` change its lines (header included), compresses
/// it again and makes the manifest agree with the new file's size and checksum.
pub fn rewrite_shard(out: &Path, file: &str, edit: impl FnOnce(&mut Vec<String>)) {
    let path = out.join(file);
    let plain = zstd::decode_all(std::fs::File::open(&path).unwrap()).unwrap();
    let mut lines: Vec<String> = String::from_utf8(plain)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    edit(&mut lines);
    let text = lines.join("\n") + "\n";
    let packed = zstd::encode_all(text.as_bytes(), 3).unwrap();
    std::fs::write(&path, &packed).unwrap();

    edit_manifest(out, |manifest| {
        let shards = manifest["shards"].as_array_mut().unwrap();
        let record = shards.iter_mut().find(|s| s["file"] == file).unwrap();
        let old = record["bytes"].as_u64().unwrap();
        record["bytes"] = (packed.len() as u64).into();
        record["xxh3"] = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&packed)).into();
        let total = manifest["bytes"].as_u64().unwrap() - old + packed.len() as u64;
        manifest["bytes"] = total.into();
    });
}

/// What a finished command printed: from a `std::process::Output` or an `assert_cmd`
/// assertion alike.
pub trait Printed {
    fn printed(&self) -> &std::process::Output;
}

impl Printed for std::process::Output {
    fn printed(&self) -> &std::process::Output {
        self
    }
}

impl<T: Printed> Printed for &T {
    fn printed(&self) -> &std::process::Output {
        (*self).printed()
    }
}

impl Printed for assert_cmd::assert::Assert {
    fn printed(&self) -> &std::process::Output {
        self.get_output()
    }
}

/// The value printed in `text` right after `marker`, up to the next `end` (spaces
/// around it trimmed): a figure read from a summary or a report. `None` when the
/// marker is missing or what follows does not parse.
pub fn value_after<T: std::str::FromStr>(text: &str, marker: &str, end: char) -> Option<T> {
    let rest = text.split(marker).nth(1)?;
    rest.split(end).next()?.trim().parse().ok()
}

/// A command's stderr as text (lossy: a test's message never fails on bad UTF-8).
pub fn stderr_of(out: &impl Printed) -> String {
    String::from_utf8_lossy(&out.printed().stderr).into_owned()
}

/// A command's stdout as text (lossy).
pub fn stdout_of(out: &impl Printed) -> String {
    String::from_utf8_lossy(&out.printed().stdout).into_owned()
}

/// Runs `cmd`, expects exit 2 (bad usage or input) and a message naming each of
/// `names`, and returns stderr.
pub fn fails_naming(mut cmd: assert_cmd::Command, names: &[&str]) -> String {
    let out = cmd.output().unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for name in names {
        assert!(stderr.contains(name), "{name:?} not in: {stderr}");
    }
    stderr
}

/// The Python of the virtual environment `scripts/test-deps` makes (DuckDB, pyarrow):
/// the README's test command runs that first.
pub fn test_python() -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-python/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test-deps (the README's test command does)",
        python.display()
    );
    python
}
