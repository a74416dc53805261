//! Deterministic workers: N processes, each writing its own shards, together make
//! exactly the bank one process makes.

mod common;

use common::{generate, Gen};
use std::collections::BTreeMap;
use std::path::Path;
use sudoku_factory::bank::read_manifest;

/// The run split across workers: 12 shards.
fn the_run(out: &Path) -> Gen {
    generate(out)
        .count(12_000)
        .variants(4)
        .shard_rows(1000)
        .seed(21)
}

/// file name -> (rows, bytes, xxh3) from a manifest.
fn records(dir: &Path) -> BTreeMap<String, (u64, u64, String)> {
    let m = read_manifest(dir).unwrap();
    assert!(m.complete, "{} is not complete", dir.display());
    m.shards
        .into_iter()
        .map(|s| (s.file, (s.rows, s.bytes, s.xxh3)))
        .collect()
}

#[test]
fn three_worker_processes_make_the_single_process_bank() {
    let dir = tempfile::tempdir().unwrap();
    let single = the_run(&dir.path().join("single")).bank();

    // Three real processes at once; worker 2 learns its index from the environment
    // as a Kubernetes Indexed Job would give it.
    let children: Vec<_> = (0..3)
        .map(|k| {
            let mut cmd = the_run(&dir.path().join(format!("w{k}")))
                .args(["--workers", "3"])
                .std_cmd();
            if k == 2 {
                cmd.env("JOB_COMPLETION_INDEX", "2");
            } else {
                cmd.args(["--worker", &k.to_string()]);
            }
            cmd.spawn().unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let mut union = BTreeMap::new();
    for k in 0..3 {
        let w = dir.path().join(format!("w{k}"));
        let recs = records(&w);
        assert_eq!(recs.len(), 4, "worker {k} should own 4 of 12 shards");
        for (file, rec) in recs {
            let index: u64 = file[5..10].parse().unwrap();
            assert_eq!(index % 3, k, "{file} is not worker {k}'s");
            assert_eq!(
                std::fs::read(w.join(&file)).unwrap(),
                std::fs::read(single.join(&file)).unwrap()
            );
            assert!(union.insert(file, rec).is_none());
        }
    }
    assert_eq!(union, records(&single));
}

#[test]
fn a_worker_index_out_of_range_or_missing_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w");
    generate(&out)
        .count(10)
        .args(["--workers", "3", "--worker", "3"])
        .loud()
        .cmd()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("out of range"));
    generate(&out)
        .count(10)
        .args(["--workers", "3"])
        .loud()
        .cmd()
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--workers needs --worker"));
    // Regression: an index from the scheduler was blamed on `--worker`, never given.
    generate(&out)
        .count(10)
        .args(["--workers", "3"])
        .cmd()
        .env("SLURM_ARRAY_TASK_ID", "5")
        .env_remove("JOB_COMPLETION_INDEX")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "$SLURM_ARRAY_TASK_ID 5 is out of range for --workers 3",
        ));
    assert!(!out.exists());
}
