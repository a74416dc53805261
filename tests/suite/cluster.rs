//! The Slurm recipe (`scripts/cluster/slurm-array.sh`) on a live single-node Slurm:
//! `scripts/cluster/local-slurm.sh` starts munge, slurmctld and slurmd from Debian's
//! packages (which `scripts/test-deps` installs), and the README's command blocks
//! run as they are written there. The merged bank must be the single run's bytes,
//! straight through and after a stage-1 task is killed mid-run and recovered as the
//! README says. The cluster is stopped even when the test fails; when it cannot
//! start, the test fails with the daemons' logs (it is not skipped).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common::{bin, generate, verify};

/// The run both phases make: several shards, so that every stage-2 worker writes some.
const COUNT: &str = "45000";
const VARIANTS: &str = "1";
const SEED: &str = "1";
const SHARD_ROWS: &str = "10000";
const WORKERS: &str = "3";
/// Longest a phase may take before the test gives up (CI's machine may be slow).
const PHASE_LIMIT: Duration = Duration::from_secs(600);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A running cluster under `dir`, stopped on drop (also when the test panics).
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Cluster {
    fn up(dir: &Path) -> Cluster {
        let out = Command::new(repo().join("scripts/cluster/local-slurm.sh"))
            .arg("up")
            .arg(dir)
            .output()
            .expect("bash runs scripts/cluster/local-slurm.sh");
        assert!(
            out.status.success(),
            "a single-node Slurm did not start on this machine, so the recipe cannot be \
             tried (scripts/test-deps installs slurm-wlm and munge):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Cluster {
            dir: dir.to_path_buf(),
            conf: dir.join("slurm.conf"),
        }
    }

    /// A Slurm client command (`squeue`, `scancel`, ...) against this cluster.
    fn client(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("SLURM_CONF", &self.conf);
        cmd
    }

    fn squeue(&self) -> String {
        let out = self.client("squeue").output().expect("squeue runs").stdout;
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Every task of `job` as `scontrol show job -o` prints it, field by field.
    fn tasks(&self, job: &str) -> Vec<HashMap<String, String>> {
        let out = self
            .client("scontrol")
            .args(["show", "job", "-o", job])
            .output()
            .expect("scontrol runs");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|line| {
                line.split(' ')
                    .filter_map(|kv| kv.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .collect()
    }

    /// The daemons' logs and every job log under `work`, for a failure message.
    fn logs(&self, work: &Path) -> String {
        let mut text = String::new();
        let mut files: Vec<PathBuf> = ["slurmctld.log", "slurmd.log"]
            .iter()
            .map(|f| self.dir.join(f))
            .collect();
        if let Ok(entries) = std::fs::read_dir(work) {
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "log")),
            );
        }
        for f in files {
            let body = std::fs::read_to_string(&f).unwrap_or_default();
            let tail: Vec<&str> = body.lines().rev().take(15).collect();
            text += &format!("--- {} (last lines)\n", f.display());
            for line in tail.iter().rev() {
                text += &format!("{line}\n");
            }
        }
        text
    }

    /// Waits until none of `jobs` is queued or running.
    fn wait(&self, jobs: &[&str], work: &Path) {
        let started = Instant::now();
        loop {
            let out = self
                .client("squeue")
                .args(["-h", "-j", &jobs.join(",")])
                .output()
                .expect("squeue runs");
            if out.status.success() && out.stdout.is_empty() {
                return;
            }
            assert!(
                started.elapsed() < PHASE_LIMIT,
                "jobs {jobs:?} still queued after {PHASE_LIMIT:?}:\n{}\n{}",
                self.squeue(),
                self.logs(work)
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(repo().join("scripts/cluster/local-slurm.sh"))
            .arg("down")
            .arg(&self.dir)
            .output();
    }
}

/// The `sh` block of README.md after the comment `<!-- tests/suite/cluster.rs runs this
/// block: NAME -->`.
fn readme_block(name: &str) -> String {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md reads");
    let marker = format!("<!-- tests/suite/cluster.rs runs this block: {name} -->");
    let after = readme
        .split_once(&marker)
        .unwrap_or_else(|| panic!("README.md has no {marker}"))
        .1;
    let body = after
        .trim_start()
        .strip_prefix("```sh\n")
        .unwrap_or_else(|| panic!("a ```sh block follows {marker}"));
    body[..body.find("```").expect("the block ends")].to_string()
}

/// Runs README `block` with bash in `work` (as a user's shell would, settings in the
/// environment), then prints the variables `show`; returns them in order.
fn run_block(
    cluster: &Cluster,
    work: &Path,
    block: &str,
    vars: &[(&str, &str)],
    show: &[&str],
) -> Vec<String> {
    let echo: Vec<String> = show.iter().map(|v| format!("${v}")).collect();
    let script = format!("set -euo pipefail\n{block}\necho {}\n", echo.join(" "));
    let out: Output = cluster
        .client("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(work)
        .env("BIN", bin())
        .env("RECIPE", repo().join("scripts/cluster/slurm-array.sh"))
        .envs([
            ("COUNT", COUNT),
            ("VARIANTS", VARIANTS),
            ("SEED", SEED),
            ("SHARD_ROWS", SHARD_ROWS),
            ("WORKERS", WORKERS),
            ("CPUS", "1"),
        ])
        .envs(vars.iter().copied())
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "the README block failed:\n{block}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    let ids: Vec<String> = printed
        .lines()
        .last()
        .unwrap_or_default()
        .split(' ')
        .map(str::to_string)
        .collect();
    assert_eq!(ids.len(), show.len(), "{printed}");
    ids
}

/// Asserts that every task of `job` completed with exit code 0; returns the earliest
/// start and the latest end (`scontrol`'s times, which sort as text).
fn completed(cluster: &Cluster, job: &str, tasks: usize) -> (String, String) {
    let all = cluster.tasks(job);
    assert_eq!(all.len(), tasks, "job {job}: {all:?}");
    for t in &all {
        assert_eq!(
            (t["JobState"].as_str(), t["ExitCode"].as_str()),
            ("COMPLETED", "0:0"),
            "job {job} task {:?}",
            t.get("ArrayTaskId")
        );
    }
    let start = all.iter().map(|t| t["StartTime"].clone()).min().unwrap();
    let end = all.iter().map(|t| t["EndTime"].clone()).max().unwrap();
    (start, end)
}

/// Asserts that `bank` holds the same files with the same bytes as `single`.
fn same_bank(single: &Path, bank: &Path) {
    let names = |dir: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".csv.zst"))
            .collect();
        v.sort();
        v
    };
    let shards = names(single);
    assert_eq!(names(bank), shards, "{}", bank.display());
    assert!(shards.len() > 1, "the run spans several shards");
    for shard in &shards {
        assert!(
            std::fs::read(single.join(shard)).unwrap() == std::fs::read(bank.join(shard)).unwrap(),
            "{shard} of {} differs from the single run's",
            bank.display()
        );
    }
    verify(bank).assert().success();
}

#[test]
fn the_readme_slurm_recipe_runs_on_a_live_cluster_and_recovers_a_killed_task() {
    let tmp = tempfile::tempdir().unwrap();
    let single = generate(tmp.path().join("single"))
        .count(COUNT.parse().unwrap())
        .variants(VARIANTS.parse().unwrap())
        .seed(SEED.parse().unwrap())
        .shard_rows(SHARD_ROWS.parse().unwrap())
        .bank();
    let cluster = Cluster::up(&tmp.path().join("cluster"));
    let submit = readme_block("submit");

    // Straight through: three stages, each waiting for the one before.
    let work = tmp.path().join("straight");
    std::fs::create_dir(&work).unwrap();
    let started = Instant::now();
    let jobs = run_block(&cluster, &work, &submit, &[], &["jid1", "jid2", "jid3"]);
    // The queue once stage 1 runs (the README shows it).
    let mut picture = cluster.squeue();
    while !picture.contains(" R ") && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
        picture = cluster.squeue();
    }
    cluster.wait(&[&jobs[0], &jobs[1], &jobs[2]], &work);
    eprintln!(
        "slurm, straight through: {:.1} s\n{picture}",
        started.elapsed().as_secs_f64()
    );
    let (_, seeds_end) = completed(&cluster, &jobs[0], 3);
    let (expand_start, expand_end) = completed(&cluster, &jobs[1], 3);
    let (merge_start, _) = completed(&cluster, &jobs[2], 1);
    assert!(seeds_end <= expand_start && expand_end <= merge_start);
    same_bank(&single, &work.join("sudoku-bank"));

    // Task 1 of stage 1 killed once its seed file holds a chunk; recovered as the
    // README says (the same index again, which resumes; stage 2 pointed at it).
    let work = tmp.path().join("killed");
    std::fs::create_dir(&work).unwrap();
    let started = Instant::now();
    let jobs = run_block(&cluster, &work, &submit, &[], &["jid1", "jid2", "jid3"]);
    let part = work.join("sudoku-bank-parts/seeds/seeds-1-of-3.bin.part");
    while std::fs::metadata(&part).map_or(0, |m| m.len()) == 0 {
        assert!(
            started.elapsed() < PHASE_LIMIT,
            "{} never grew:\n{}\n{}",
            part.display(),
            cluster.squeue(),
            cluster.logs(&work)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let task = format!("{}_1", jobs[0]);
    let out = cluster.client("scancel").arg(&task).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    // The task is gone mid-run: its seed file is still the partial one.
    let states = || cluster.tasks(&task);
    let began = Instant::now();
    while states()[0]["JobState"] != "CANCELLED" {
        assert!(began.elapsed() < PHASE_LIMIT, "{:?}", states());
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        part.exists(),
        "task 1 was cancelled after it finished its seed file"
    );
    let recover = readme_block("recover");
    let vars = [("jid2", jobs[1].as_str()), ("K", "1")];
    let again = run_block(&cluster, &work, &recover, &vars, &["jid1b"]);
    cluster.wait(&[&jobs[0], &jobs[1], &jobs[2], &again[0]], &work);
    eprintln!(
        "slurm, with task 1 of stage 1 killed and resubmitted: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    completed(&cluster, &again[0], 1);
    completed(&cluster, &jobs[1], 3);
    completed(&cluster, &jobs[2], 1);
    same_bank(&single, &work.join("sudoku-bank"));
}

/// The Kubernetes recipe cannot run here (no cluster in CI): each of its Jobs — the
/// file as it is (stage 1), after the header's `sed` (stage 2), and the merge Job in
/// its trailing comment — is checked against the Kubernetes API schema
/// (`kubernetes-validate --strict`, from scripts/requirements-test.txt), and the
/// worker count is checked to agree everywhere. A misspelt field must be refused, so
/// the check is known to bite.
#[test]
fn the_kubernetes_recipe_is_valid_against_the_api_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let recipe = repo().join("scripts/cluster/k8s-indexed-job.yaml");
    let sed = |expr: &[&str], to: &str| {
        let out = Command::new("sed")
            .args(expr)
            .arg(&recipe)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let path = tmp.path().join(to);
        std::fs::write(&path, out.stdout).unwrap();
        path
    };
    let seeds = sed(&[""], "seeds.yaml");
    // The header's commands, as a user runs them.
    let expand = sed(
        &["s/sudoku-bank-seeds/sudoku-bank-expand/; s/value: seeds }/value: expand }/"],
        "expand.yaml",
    );
    let merge = sed(&["-n", "/^# --- merge/,$s/^#  //p"], "merge.yaml");
    let misspelt = tmp.path().join("misspelt.yaml");
    std::fs::write(
        &misspelt,
        std::fs::read_to_string(&seeds)
            .unwrap()
            .replace("completionMode:", "completionMod:"),
    )
    .unwrap();

    let validate = |file: &Path| {
        Command::new(crate::common::test_python().with_file_name("kubernetes-validate"))
            .args(["--strict", "--kubernetes-version", "1.37"])
            .arg(file)
            .output()
            .expect("kubernetes-validate runs (scripts/test-deps installs it)")
    };
    for file in [&seeds, &expand, &merge] {
        let out = validate(file);
        assert!(
            out.status.success(),
            "{}:\n{}{}",
            file.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = validate(&misspelt);
    assert!(!out.status.success(), "a misspelt field passed: {out:?}");

    // The worker count: WORKERS = completions = parallelism in both Jobs, the stage
    // each Job names, and one merge input per worker.
    let check = r#"
import re, sys, yaml
def job(path):
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    assert len(docs) == 1, path
    return docs[0]
for path, stage in ((sys.argv[1], "seeds"), (sys.argv[2], "expand")):
    spec = job(path)["spec"]
    env = {e["name"]: e["value"] for e in spec["template"]["spec"]["containers"][0]["env"]}
    workers = int(env["WORKERS"])
    assert (env["STAGE"], spec["completions"], spec["parallelism"]) == (stage, workers, workers), (path, env, spec)
    assert spec["completionMode"] == "Indexed", path
args = job(sys.argv[3])["spec"]["template"]["spec"]["containers"][0]["args"][0]
inputs = re.findall(r"/bank/parts/w(\d+)", args)
assert inputs == [str(k) for k in range(workers)], inputs
print("ok", workers)
"#;
    let out = Command::new(crate::common::test_python())
        .arg("-c")
        .arg(check)
        .args([&seeds, &expand, &merge])
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stdout.starts_with(b"ok 8"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
