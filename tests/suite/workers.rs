//! Deterministic workers: N processes, each writing its own shards, together make
//! exactly the bank one process makes.

use crate::common;

use common::{generate, verify, Gen};
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

/// Regression: `verify` reported every worker's bank as inconsistent (exit 1: "shard
/// bank-00001.csv.zst claims ids 500..=999 ..., expected to start at id 0", "holds
/// 1500 rows of the 3000 asked for"): a worker's shards are K, K+N, ..., and it holds
/// their share of `--count` (none, for a worker past the last shard). A worker's bank
/// that lost a shard from its manifest is still a defect.
#[test]
fn verify_checks_a_workers_bank_against_its_own_shards() {
    let dir = tempfile::tempdir().unwrap();
    // 5 rows for 4 workers: shards of 2 rows (a bank of fewer shards than workers
    // splits its rows), 3 of them, so worker 3 has none.
    for (count, k, shards) in [(2300, 0, 2), (2300, 1, 1), (5, 3, 0)] {
        let w = dir.path().join(format!("w{count}-{k}"));
        let w = generate(&w)
            .count(count)
            .shard_rows(500)
            .seed(4)
            .args(["--workers", "4", "--worker", &k.to_string()])
            .bank();
        assert_eq!(records(&w).len(), shards, "worker {k} of --count {count}");
        verify(&w).assert().code(0);
        // Regression: `stats` warned "no histogram data" about the empty expand and
        // write histograms of a worker that has no rows to write.
        let out = common::factory().arg("stats").arg(&w).assert().success();
        let stderr = crate::common::stderr_of(&out);
        assert!(!stderr.contains("warning"), "worker {k}: {stderr}");
    }
    let w = dir.path().join("w2300-0");
    let mut dropped = serde_json::Value::Null;
    crate::common::edit_manifest(&w, |m| {
        dropped = m["shards"].as_array_mut().unwrap().remove(1);
        let rows = dropped["rows"].as_u64().unwrap();
        m["rows"] = (m["rows"].as_u64().unwrap() - rows).into();
        m["bytes"] = (m["bytes"].as_u64().unwrap() - dropped["bytes"].as_u64().unwrap()).into();
    });
    std::fs::remove_file(w.join(dropped["file"].as_str().unwrap())).unwrap();
    let out = verify(&w).assert().code(1);
    let stderr = crate::common::stderr_of(&out);
    let stdout = crate::common::stdout_of(&out);
    assert!(
        format!("{stdout}{stderr}").contains("worker 0 of 4"),
        "{stdout}{stderr}"
    );
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
