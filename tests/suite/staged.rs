//! Staged runs (`generate --stage seeds`, then `--stage expand`): the seed stage split
//! across workers too, and still the bytes of one process — with real duplicate seeds
//! across workers, after a kill -9 in either stage, and never from a seed file that is
//! missing, damaged or from another run.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{factory, generate, resume, Gen};
use predicates::prelude::*;
use sudoku_factory::bank::format::{canonical_key, SeedPuzzle};
use sudoku_factory::bank::read_manifest;
use sudoku_factory::bank::reader::{read_seed_manifest, SeedFiles};
use sudoku_factory::bank::seeds::{
    manifest_path, ChunkHeader, ChunkLayout, HEADER_BYTES, META_BYTES,
};

/// `generate ARGS --stage seeds --workers N --worker K --out DIR`, or worker K's index
/// from `$SLURM_ARRAY_TASK_ID` when `from_env`.
fn stage1(run: &[&str], dir: &Path, n: u64, k: u64, from_env: bool) -> Command {
    stage(
        generate(dir).args(run).args(["--stage", "seeds"]),
        n,
        k,
        from_env,
    )
}

/// `generate ARGS --seeds SEEDS --workers N --worker K --out OUT`.
fn stage2(run: &[&str], seeds: &Path, out: &Path, n: u64, k: u64, from_env: bool) -> Command {
    let gen = generate(out).args(run).arg("--seeds").arg(seeds);
    stage(gen, n, k, from_env)
}

fn stage(gen: Gen, n: u64, k: u64, from_env: bool) -> Command {
    let mut cmd = gen.args(["--workers", &n.to_string()]).std_cmd();
    cmd.env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX");
    if from_env {
        cmd.env("SLURM_ARRAY_TASK_ID", k.to_string());
    } else {
        cmd.args(["--worker", &k.to_string()]);
    }
    cmd
}

/// Stage 1 of `run` split into `n` workers, into `DIR/seeds` of a new temporary
/// directory: that directory and the seeds directory.
fn seed_split(run: &[&str], n: u64) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let seeds = dir.path().join("seeds");
    run_all((0..n).map(|k| stage1(run, &seeds, n, k, false)).collect());
    (dir, seeds)
}

/// Runs the commands at once, as a job array would, and asserts that all succeeded.
fn run_all(cmds: Vec<Command>) {
    let children: Vec<_> = cmds.into_iter().map(|mut c| c.spawn().unwrap()).collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
}

/// Both stages with `n` workers each (worker 1 reading its index from
/// `SLURM_ARRAY_TASK_ID`), then `merge`: the merged bank's directory.
fn staged_bank(run: &[&str], dir: &Path, n: u64) -> PathBuf {
    let seeds = dir.join("seeds");
    run_all((0..n).map(|k| stage1(run, &seeds, n, k, k == 1)).collect());
    let outs: Vec<_> = (0..n).map(|k| dir.join(format!("w{k}"))).collect();
    run_all(
        (0..n)
            .map(|k| stage2(run, &seeds, &outs[k as usize], n, k, k == 1))
            .collect(),
    );
    let merged = dir.join("merged");
    factory()
        .arg("merge")
        .arg(&merged)
        .args(&outs)
        .arg("-q")
        .assert()
        .success();
    merged
}

/// The `n_seeds` seeds in the seed files of a stage 1 split into `workers`, read as
/// stage 2 reads them: boards only in the chunks `wanted` says yes to (a range of seeds).
fn read_seeds<const CELLS: usize>(
    seeds: &Path,
    workers: u64,
    n_seeds: u64,
    wanted: &dyn Fn(std::ops::Range<u64>) -> bool,
) -> Vec<SeedPuzzle<[u8; CELLS]>> {
    let m = read_seed_manifest(&manifest_path(seeds, 0, workers)).unwrap();
    let mut files = SeedFiles::open(seeds, &m.params, n_seeds, CELLS, wanted).unwrap();
    let mut read = Vec::new();
    files
        .read_seeds(0..n_seeds, [0u8; CELLS], wanted, &mut read)
        .unwrap();
    read
}

/// Asserts that the shards of `b` are those of `a`, byte for byte, and no others.
fn assert_same_shards(a: &Path, b: &Path) {
    let (ma, mb) = (read_manifest(a).unwrap(), read_manifest(b).unwrap());
    assert!(ma.complete && mb.complete);
    let names = |m: &sudoku_factory::bank::format::Manifest| {
        m.shards.iter().map(|s| s.file.clone()).collect::<Vec<_>>()
    };
    assert_eq!(names(&ma), names(&mb));
    for s in &ma.shards {
        assert!(
            std::fs::read(a.join(&s.file)).unwrap() == std::fs::read(b.join(&s.file)).unwrap(),
            "{} differs",
            s.file
        );
    }
}

fn single_bank(run: &[&str], dir: &Path) -> PathBuf {
    generate(dir.join("single")).args(run).bank()
}

const V1: &[&str] = &[
    "--count",
    "3000",
    "--variants",
    "1",
    "--seed",
    "5",
    "--shard-rows",
    "500",
];

#[test]
fn three_workers_per_stage_make_the_single_bank_at_variants_1() {
    let dir = tempfile::tempdir().unwrap();
    let single = single_bank(V1, dir.path());
    let merged = staged_bank(V1, dir.path(), 3);
    assert_same_shards(&single, &merged);
    // Each stage-1 worker made only its share: 8 of the 24 chunks of 128 seeds.
    for (k, chunks) in [(0, 8), (1, 8), (2, 8)] {
        let m = read_seed_manifest(&manifest_path(&dir.path().join("seeds"), k, 3)).unwrap();
        assert!(m.complete);
        assert_eq!(m.chunks, chunks, "worker {k}");
    }
}

/// Stage 1 rates every seed and its file carries the rating (the rating is per seed:
/// it divides by N there, where stage 2 gave it all to the worker of the first shard).
/// Whichever stage is told `--no-rating`, stage 2 writes the single run's bytes: it
/// reads the ratings it has, rates a seed the file has none for, and leaves the
/// columns empty when it is not to rate.
#[test]
fn seed_files_carry_ratings_and_either_stage_may_skip_them() {
    let dir = tempfile::tempdir().unwrap();
    let no_rating: Vec<&str> = V1.iter().copied().chain(["--no-rating"]).collect();
    for (stage1_run, stage2_run, name) in [
        (V1, &no_rating[..], "rated-seeds"),
        (&no_rating[..], V1, "unrated-seeds"),
    ] {
        let d = dir.path().join(name);
        let seeds = d.join("seeds");
        run_all(vec![stage1(stage1_run, &seeds, 1, 0, false)]);
        let read = read_seeds::<81>(&seeds, 1, 3000, &|_| true);
        let rated = read.iter().filter(|s| s.rating.is_some()).count();
        let want = if stage1_run == V1 { 3000 } else { 0 };
        assert_eq!(rated, want, "{name}: seeds with a rating in the file");
        // A worker that writes no rows of a seed reads its metadata and key alone,
        // without its boards; the key is its canonical form's.
        let meta = read_seeds::<81>(&seeds, 1, 3000, &|seeds| seeds.end > 2900);
        for (j, (full, bare)) in read.iter().zip(&meta).enumerate() {
            assert_eq!(full.key, Some(canonical_key(&full.canonical)));
            assert_eq!(
                (bare.key, bare.rating, bare.band),
                (full.key, full.rating, full.band)
            );
            // Chunks of 128 seeds: 2816.. is the chunk that holds 2900.
            let boards = if j >= 2816 { full.canonical } else { [0; 81] };
            assert_eq!(bare.canonical, boards, "seed {j}");
        }
        let out = d.join("w0");
        run_all(vec![stage2(stage2_run, &seeds, &out, 1, 0, false)]);
        let single = single_bank(stage2_run, &d);
        assert_same_shards(&single, &out);
    }
}

/// A run of fewer shards than workers — here one shard of the default million rows,
/// 3 workers — gives each worker a third of the rows, in shards of a third (issue
/// #36: stage 2 gave every row to worker 0), and each part verifies; the merge cuts
/// the rows back into the bank's shard size, with the single run's bytes.
#[test]
fn a_run_of_fewer_shards_than_workers_splits_its_rows_evenly() {
    let run = ["--count", "3000", "--variants", "1", "--seed", "5"];
    let dir = tempfile::tempdir().unwrap();
    let single = single_bank(&run, dir.path());
    let merged = staged_bank(&run, dir.path(), 3);
    assert_same_shards(&single, &merged);
    assert_eq!(read_manifest(&merged).unwrap().params.bank_shard_rows, None);
    for k in 0..3 {
        let part = dir.path().join(format!("w{k}"));
        let m = read_manifest(&part).unwrap();
        assert_eq!(m.rows, 1000, "worker {k}");
        assert_eq!(
            (m.params.shard_rows, m.params.bank_shard_rows),
            (1000, Some(1_000_000))
        );
        assert_eq!(m.shards[0].first_id, 1000 * k);
        common::verify(&part).assert().success();
    }
}

#[test]
fn three_workers_per_stage_make_the_single_bank_at_variants_50() {
    let run = [
        "--count",
        "30000",
        "--variants",
        "50",
        "--seed",
        "8",
        "--shard-rows",
        "2000",
    ];
    let dir = tempfile::tempdir().unwrap();
    let single = single_bank(&run, dir.path());
    let merged = staged_bank(&run, dir.path(), 3);
    assert_same_shards(&single, &merged);
}

#[test]
fn duplicate_seeds_across_workers_are_resolved_as_one_process_does() {
    // 1500 seeds in a band of only 2020 classes, over two seed batches: duplicates
    // are everywhere, within a batch and across batches, across workers' chunks.
    let run = [
        "--size",
        "4",
        "--difficulty",
        "medium",
        "--count",
        "1500",
        "--variants",
        "1",
        "--seed",
        "3",
        "--shard-rows",
        "200",
    ];
    let dir = tempfile::tempdir().unwrap();
    let single = single_bank(&run, dir.path());
    let merged = staged_bank(&run, dir.path(), 3);
    assert_same_shards(&single, &merged);

    // The first-round seeds in the files collide across workers: find such a pair.
    let seeds = dir.path().join("seeds");
    let first = read_seeds::<16>(&seeds, 3, 1500, &|_| true);
    let m = read_seed_manifest(&manifest_path(&seeds, 0, 3)).unwrap();
    let layout = ChunkLayout {
        n_seeds: 1500,
        chunk_seeds: m.chunk_seeds,
        workers: 3,
    };
    let worker = |j: u64| layout.worker_of(j / m.chunk_seeds);
    let mut owner: HashMap<[u8; 16], u64> = HashMap::new();
    let (mut cross_worker, mut cross_batch) = (0, 0);
    for (j, s) in first.iter().enumerate() {
        let j = j as u64;
        if let Some(&i) = owner.get(&s.canonical) {
            cross_worker += u64::from(worker(i) != worker(j));
            cross_batch += u64::from(i / 1024 != j / 1024);
        } else {
            owner.insert(s.canonical, j);
        }
    }
    assert!(
        cross_worker > 0,
        "no duplicate spans two workers' seed files"
    );
    assert!(cross_batch > 0, "no duplicate spans two seed batches");

    // And stage 2 says it replaced them (every worker the same number).
    let loud = generate(dir.path().join("loud"))
        .args(run)
        .args(["--seeds"])
        .arg(&seeds)
        .args(["--workers", "3", "--worker", "0"])
        .loud()
        .run();
    let stderr = crate::common::stderr_of(&loud);
    let dropped: u64 = crate::common::value_after(
        &stderr,
        "seeds: 1500 read from the seed files (1 puzzles per seed), ",
        ' ',
    )
    .unwrap_or_else(|| panic!("no seed count in the summary:\n{stderr}"));
    assert!(
        dropped >= cross_worker,
        "{dropped} < {cross_worker}\n{stderr}"
    );
}

/// Spawns `cmd`, waits until `ready()` (or 120 s), then kills it with SIGKILL.
/// Returns whether it was still running when killed.
fn kill_when(cmd: Command, ready: impl Fn() -> bool) -> bool {
    common::signal_when(cmd, ready, libc::SIGKILL).is_some()
}

#[test]
fn a_seed_worker_killed_mid_run_resumes_into_the_same_seed_file() {
    let run = ["--count", "12000", "--seed", "4", "--threads", "1"];
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean");
    assert!(stage1(&run, &clean, 2, 0, false)
        .status()
        .unwrap()
        .success());

    let crashed = dir.path().join("crashed");
    let part = crashed.join("seeds-0-of-2.bin.part");
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    // Killed after a few chunks, mid-way through the 47 of its file.
    let killed = kill_when(stage1(&run, &crashed, 2, 0, false), || size(&part) > 40_000);
    assert!(killed, "the worker finished before it could be killed");
    assert!(!crashed.join("seeds-0-of-2.bin").exists());
    let m = read_seed_manifest(&manifest_path(&crashed, 0, 2)).unwrap();
    assert!(!m.complete);
    // Stage 2 refuses the unfinished file, naming it, and writes nothing.
    let out = dir.path().join("too-early");
    generate(&out)
        .args(run)
        .arg("--seeds")
        .arg(&crashed)
        .cmd()
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "seeds-0-of-2.json is not complete",
        ));
    assert!(!out.exists());
    // Resume as a requeued array task would: its index from the environment.
    let mut again = resume(&crashed)
        .args(["--stage", "seeds", "--workers", "2", "--threads", "1"])
        .cmd();
    again.env("SLURM_ARRAY_TASK_ID", "0").assert().success();
    assert!(!part.exists());
    assert_eq!(
        std::fs::read(crashed.join("seeds-0-of-2.bin")).unwrap(),
        std::fs::read(clean.join("seeds-0-of-2.bin")).unwrap()
    );
    assert_eq!(
        read_seed_manifest(&manifest_path(&crashed, 0, 2)).unwrap(),
        read_seed_manifest(&manifest_path(&clean, 0, 2)).unwrap()
    );
}

#[test]
fn an_expand_worker_killed_mid_run_resumes_into_the_same_shards() {
    let run = [
        "--count",
        "300000",
        "--variants",
        "100",
        "--seed",
        "6",
        "--shard-rows",
        "5000",
        "--threads",
        "1",
    ];
    let dir = tempfile::tempdir().unwrap();
    let single = single_bank(&run, dir.path());
    let seeds = dir.path().join("seeds");
    run_all((0..2).map(|k| stage1(&run, &seeds, 2, k, false)).collect());
    let w0 = dir.path().join("w0");
    let listed = || read_manifest(&w0).map(|m| m.shards.len()).unwrap_or(0);
    let killed = kill_when(stage2(&run, &seeds, &w0, 2, 0, false), || listed() >= 3);
    assert!(killed, "the worker finished before it could be killed");
    // Regression: stage 1's files not found on resume (a relative --seeds read from
    // another directory) gave "reading seeds: No such file or directory".
    let away = dir.path().join("seeds-moved");
    std::fs::rename(&seeds, &away).unwrap();
    resume(&w0)
        .cmd()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("are not found from here"));
    std::fs::rename(&away, &seeds).unwrap();
    resume(&w0).args(["--threads", "1"]).run();
    let m = read_manifest(&w0).unwrap();
    assert!(m.complete);
    assert_eq!(m.shards.len(), 30);
    for s in &m.shards {
        assert!(
            std::fs::read(w0.join(&s.file)).unwrap()
                == std::fs::read(single.join(&s.file)).unwrap(),
            "{} differs",
            s.file
        );
    }
}

/// Regression for the reads of a stage-2 worker: it reads the boards of the chunks it
/// writes rows of, and only the header and metadata of the others (every worker used
/// to read every seed file whole, twice). Damaged boards stop the workers that use
/// them, before they write anything; damaged metadata (which deduplication reads)
/// stops every worker; a worker that does not use the damaged boards makes its
/// shards as before.
#[test]
fn a_damaged_chunk_stops_the_workers_that_read_it() {
    // 600 seeds in 5 chunks of 128 (chunks 0 and 3 in worker 0's file), 2 shards:
    // stage-2 worker 0 writes seeds 0..300 (chunks 0-2), worker 1 seeds 300..600.
    let run = ["--count", "600", "--seed", "9", "--shard-rows", "300"];
    let (dir, seeds) = seed_split(&run, 3);
    let expand = |k: u64, out: &Path| {
        assert_cmd::Command::from_std(stage2(&run, &seeds, out, 2, k, false)).assert()
    };
    let before = dir.path().join("before");
    expand(0, &before).success();

    // Chunk 3 is the second record of worker 0's file; its boards end the file.
    let bin = seeds.join("seeds-0-of-3.bin");
    let good = std::fs::read(&bin).unwrap();
    let header = |at: usize| {
        let head: &[u8; HEADER_BYTES] = good[at..at + HEADER_BYTES].try_into().unwrap();
        ChunkHeader::decode(head).unwrap()
    };
    let second = header(0).record_bytes() as usize;
    let h = header(second);
    assert_eq!(
        (h.chunk, second + h.record_bytes() as usize),
        (3, good.len())
    );
    let damaged = |at: usize| {
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        std::fs::write(&bin, &bad).unwrap();
    };
    let refused = |k: u64, what: &str| {
        let out = dir.path().join(format!("refused-{k}"));
        expand(k, &out).code(2).stderr(
            predicate::str::contains("seeds-0-of-3.bin")
                .and(predicate::str::contains("corrupt"))
                .and(predicate::str::contains(what)),
        );
        assert!(!out.exists(), "worker {k} wrote before it found the damage");
    };

    // A byte of chunk 3's boards: worker 1 refuses; worker 0 never reads them.
    damaged(good.len() - 1);
    refused(1, "chunk 3: its boards are damaged");
    let after = dir.path().join("after");
    expand(0, &after).success();
    assert_same_shards(&before, &after);

    // A byte of chunk 3's metadata: both refuse, worker 0 too (it needs the keys).
    damaged(second + HEADER_BYTES + META_BYTES + 3);
    refused(0, "chunk 3 is missing or damaged");
    refused(1, "chunk 3 is missing or damaged");

    // A file cut short by a byte.
    std::fs::write(&bin, &good[..good.len() - 1]).unwrap();
    refused(0, "its size differs from its manifest");
}

#[test]
fn a_missing_damaged_or_foreign_seed_file_stops_stage_2_naming_it() {
    let run = ["--count", "600", "--seed", "9", "--shard-rows", "100"];
    let (dir, seeds) = seed_split(&run, 3);
    let out = dir.path().join("out");
    let expand = |run: &[&str]| {
        let mut cmd = generate(&out)
            .args(run)
            .arg("--seeds")
            .arg(&seeds)
            .args(["--workers", "2", "--worker", "0"])
            .cmd();
        cmd.assert().code(2)
    };

    // Regression: stage 1 of another split (2 workers) into the same directory ran
    // to the end, and only stage 2 refused the mix. Now it is refused before any
    // work, with or without --force, and nothing is written.
    let mut other_split = stage1(&run, &seeds, 2, 0, false);
    other_split.arg("--force");
    assert_cmd::Command::from_std(other_split)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("seed files of a stage-1 split into 3 workers")
                .and(predicate::str::contains("seeds-")),
        );
    assert!(!seeds.join("seeds-0-of-2.json").exists());

    // Another run's options (here --seed): refused, naming the first file checked.
    let mut other = run;
    other[3] = "10";
    expand(&other).stderr(
        predicate::str::contains("seeds-0-of-3.json")
            .and(predicate::str::contains("another run (seed differs)")),
    );

    // Seed files of another version (their layout may differ): refused, saying so.
    let manifest = seeds.join("seeds-1-of-3.json");
    let good = std::fs::read_to_string(&manifest).unwrap();
    let this = format!("\"version\": \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(good.contains(&this), "{good}");
    std::fs::write(&manifest, good.replace(&this, "\"version\": \"0.4.4\"")).unwrap();
    expand(&run).stderr(
        predicate::str::contains("seeds-1-of-3.json was made by sudoku-factory 0.4.4")
            .and(predicate::str::contains("make them again")),
    );
    std::fs::write(&manifest, good).unwrap();

    // A damaged byte in the middle of worker 2's file.
    let bin = seeds.join("seeds-2-of-3.bin");
    let good = std::fs::read(&bin).unwrap();
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x40;
    std::fs::write(&bin, &bad).unwrap();
    expand(&run).stderr(
        predicate::str::contains("seeds-2-of-3.bin").and(predicate::str::contains("corrupt")),
    );
    std::fs::write(&bin, &good).unwrap();

    // A missing data file, then a missing manifest.
    let manifest = seeds.join("seeds-1-of-3.json");
    let data = seeds.join("seeds-1-of-3.bin");
    std::fs::rename(&data, dir.path().join("aside")).unwrap();
    expand(&run).stderr(predicate::str::contains("seeds-1-of-3.bin is missing"));
    std::fs::rename(dir.path().join("aside"), &data).unwrap();
    std::fs::remove_file(&manifest).unwrap();
    expand(&run).stderr(predicate::str::contains("seeds-1-of-3.json is missing"));
    // Nothing was written for any of them.
    assert!(!out.exists());

    // An empty directory holds no seed files at all.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    generate(&out)
        .args(run)
        .arg("--seeds")
        .arg(&empty)
        .cmd()
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no seed files"));
}
