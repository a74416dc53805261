//! Golden bytes: one small fixed run per size (4×4, 9×9, 16×16; and a symmetric 9×9
//! one and a 9×9 top rating band), whose shards must
//! hash to the constants written below.
//!
//! These constants pin the bytes a bank is made of — every puzzle, solution, band,
//! canonical form, the CSV layout and the zstd framing. DESIGN.md promises that the
//! same command and seed give the same bytes years later, so that a publisher can
//! regenerate a book from its manifest. A change to these bytes (another random
//! stream, a new column, another compression setting, a different carve) is
//! therefore never a test to "fix": it is a deliberate decision, and it ships with a
//! new manifest `version` (the crate version, `version` in Cargo.toml, which
//! `src/bank/sink.rs` writes into `manifest.json`). [`PINNED_VERSION`] below is the version
//! the constants were pinned at; update both together, in the same commit that says
//! why the bytes changed.
//!
//! Each shard is checked three ways: its size and XXH3-64 as the manifest lists them,
//! the XXH3-64 of the file recomputed here (with the `xxhash-rust` crate directly,
//! not through the code under test), and the pinned constant.
//!
//! To regenerate the constants, run
//!
//! ```sh
//! GOLDEN_PRINT=1 cargo test --release --features sudoku-peer --test suite golden -- --nocapture
//! ```
//!
//! which prints the actual values as Rust source to paste here, instead of failing on
//! a mismatch (the manifest and recomputed checksums are still checked). Without
//! `GOLDEN_PRINT` a mismatch fails.

use crate::common;

use std::path::Path;

use common::{generate, Gen};
use sudoku_factory::bank::read_manifest;

/// The crate version (`manifest.json`'s `version`) the constants below were pinned at.
const PINNED_VERSION: &str = "0.4.23";

/// One shard as pinned: file name, rows, XXH3-64 of the file (lowercase hex).
type Shard = (&'static str, u64, &'static str);

/// 4×4: 200 rows, 10 variants of each of 20 seeds, shards of 80 rows.
fn run_4x4(out: &Path) -> Gen {
    generate(out)
        .size(4)
        .count(200)
        .variants(10)
        .seed(2026)
        .shard_rows(80)
        .arg("--no-histograms")
}

const GOLDEN_4X4: &[Shard] = &[
    ("bank-00000.csv.zst", 80, "f5cf410c584fff54"),
    ("bank-00001.csv.zst", 80, "0df06a1ff4e33f76"),
    ("bank-00002.csv.zst", 40, "9b542ca46ff08443"),
];

/// 9×9: 300 rows, 10 variants of each of 30 seeds, shards of 100 rows.
fn run_9x9(out: &Path) -> Gen {
    generate(out)
        .count(300)
        .variants(10)
        .seed(2026)
        .shard_rows(100)
        .arg("--no-histograms")
}

const GOLDEN_9X9: &[Shard] = &[
    ("bank-00000.csv.zst", 100, "2cbd06a45636b47d"),
    ("bank-00001.csv.zst", 100, "b03ff6baec1cabad"),
    ("bank-00002.csv.zst", 100, "b3852e76ab1e5e07"),
];

/// 9×9 with `--symmetry rot180`: 120 rows, 6 variants of each of 20 seeds (drawn
/// from the subgroup that keeps the symmetry since 0.4.1), shards of 50 rows.
fn run_9x9_rot180(out: &Path) -> Gen {
    generate(out)
        .count(120)
        .variants(6)
        .seed(2026)
        .shard_rows(50)
        .args(["--symmetry", "rot180", "--no-histograms"])
}

const GOLDEN_9X9_ROT180: &[Shard] = &[
    ("bank-00000.csv.zst", 50, "ba36f28dcb2cad10"),
    ("bank-00001.csv.zst", 50, "b91d62d4aceab850"),
    ("bank-00002.csv.zst", 20, "a10b82a4cb5762df"),
];

/// 9×9 top rating band (`--grade rating --bands top=8.5-9.5`, seeds found by the
/// climb since 0.4.9): 12 rows, 3 variants of each of 4 seeds, shards of 5 rows.
fn run_9x9_top(out: &Path) -> Gen {
    generate(out)
        .count(12)
        .variants(3)
        .seed(2026)
        .shard_rows(5)
        .args([
            "--grade",
            "rating",
            "--bands",
            "top=8.5-9.5",
            "--no-histograms",
        ])
}

const GOLDEN_9X9_TOP: &[Shard] = &[
    ("bank-00000.csv.zst", 5, "0c4dc0a094331872"),
    ("bank-00001.csv.zst", 5, "72175239295612bd"),
    ("bank-00002.csv.zst", 2, "67de2045030c69a5"),
];

/// 16×16: 12 rows, 3 variants of each of 4 seeds, shards of 5 rows.
fn run_16x16(out: &Path) -> Gen {
    generate(out)
        .size(16)
        .count(12)
        .variants(3)
        .seed(2026)
        .shard_rows(5)
        .arg("--no-histograms")
}

const GOLDEN_16X16: &[Shard] = &[
    ("bank-00000.csv.zst", 5, "02f5406c1226332b"),
    ("bank-00001.csv.zst", 5, "a479b89919ee5a12"),
    ("bank-00002.csv.zst", 2, "bfe3a5c97b36755c"),
];

/// Whether to print the actual values instead of failing on a mismatch.
fn printing() -> bool {
    std::env::var_os("GOLDEN_PRINT").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The shards of the complete bank in `dir`, each checked against the manifest's size
/// and checksum by an XXH3-64 recomputed here.
fn shards(dir: &Path) -> Vec<(String, u64, String)> {
    let manifest = read_manifest(dir).unwrap();
    assert!(manifest.complete, "{} is not complete", dir.display());
    assert!(
        manifest.shards.len() >= 2,
        "a golden run should span several shards"
    );
    manifest
        .shards
        .into_iter()
        .map(|s| {
            let bytes = std::fs::read(dir.join(&s.file)).unwrap();
            assert_eq!(bytes.len() as u64, s.bytes, "{}: size", s.file);
            let xxh3 = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes));
            assert_eq!(xxh3, s.xxh3, "{}: the manifest's checksum", s.file);
            (s.file, s.rows, xxh3)
        })
        .collect()
}

/// Compares the bank in `dir` with the pinned `golden` shards (or prints it as the
/// constant `name` under `GOLDEN_PRINT`).
fn assert_golden(name: &str, dir: &Path, golden: &[Shard]) {
    let actual = shards(dir);
    let version = read_manifest(dir).unwrap().version;
    if printing() {
        println!("// manifest version {version}");
        println!("const {name}: &[Shard] = &[");
        for (file, rows, xxh3) in &actual {
            println!("    ({file:?}, {rows}, {xxh3:?}),");
        }
        println!("];");
        return;
    }
    let golden: Vec<(String, u64, String)> = golden
        .iter()
        .map(|&(file, rows, xxh3)| (file.to_string(), rows, xxh3.to_string()))
        .collect();
    assert_eq!(
        actual, golden,
        "{name}: the bank's bytes changed. If that is deliberate, bump the crate version \
         and PINNED_VERSION, and regenerate the constants with GOLDEN_PRINT=1 (see the top \
         of tests/suite/golden.rs)"
    );
    assert_eq!(
        version, PINNED_VERSION,
        "the manifest version changed: check that the golden bytes are still those of \
         this version, then update PINNED_VERSION"
    );
}

#[test]
fn a_4x4_run_makes_the_pinned_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_4x4(&dir.path().join("bank")).bank();
    assert_golden("GOLDEN_4X4", &out, GOLDEN_4X4);
}

/// Makes `run` on 1 and on 2 threads: the first must be the pinned `golden`, and the
/// thread count must change no byte (same records, same files).
fn assert_golden_on_1_and_2_threads(name: &str, run: fn(&Path) -> Gen, golden: &[Shard]) {
    let dir = tempfile::tempdir().unwrap();
    let one = run(&dir.path().join("one")).threads(1).bank();
    let two = run(&dir.path().join("two")).threads(2).bank();
    assert_golden(name, &one, golden);
    let records = shards(&one);
    assert_eq!(records, shards(&two), "{name}: --threads 1 and 2 differ");
    for (file, _, _) in &records {
        assert!(
            std::fs::read(one.join(file)).unwrap() == std::fs::read(two.join(file)).unwrap(),
            "{name}: {file} differs between --threads 1 and --threads 2"
        );
    }
}

#[test]
fn a_9x9_run_makes_the_pinned_bytes_on_1_and_2_threads() {
    assert_golden_on_1_and_2_threads("GOLDEN_9X9", run_9x9, GOLDEN_9X9);
}

#[test]
fn a_symmetric_9x9_run_makes_the_pinned_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_9x9_rot180(&dir.path().join("bank")).bank();
    assert_golden("GOLDEN_9X9_ROT180", &out, GOLDEN_9X9_ROT180);
}

#[test]
fn a_top_rating_band_run_makes_the_pinned_bytes_on_1_and_2_threads() {
    assert_golden_on_1_and_2_threads("GOLDEN_9X9_TOP", run_9x9_top, GOLDEN_9X9_TOP);
}

#[test]
fn a_16x16_run_makes_the_pinned_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_16x16(&dir.path().join("bank")).bank();
    assert_golden("GOLDEN_16X16", &out, GOLDEN_16X16);
}
