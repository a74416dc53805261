//! `generate` end to end: the binary writes a bank, and the bank is read back with
//! independent tools (zstd and csv crates, the `sudoku` crate's solver).

use crate::common;

use common::{factory, fails_naming, generate, listing, read_bank};
use predicates::prelude::*;
use sudoku::Sudoku;

fn clues_of(s: &str) -> u16 {
    s.bytes().filter(|&b| b != b'.').count() as u16
}

fn band_of(clues: u16) -> &'static str {
    match clues {
        36.. => "easy",
        30..=35 => "medium",
        24..=29 => "hard",
        _ => "expert",
    }
}

#[test]
fn every_row_of_a_2000_row_bank_is_unique_solved_and_graded() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out).count(2000).seed(42).shard_rows(600).run();
    assert_eq!(
        listing(&out),
        [
            "bank-00000.csv.zst",
            "bank-00001.csv.zst",
            "bank-00002.csv.zst",
            "bank-00003.csv.zst",
            "histograms",
            "manifest.json"
        ]
    );
    let rows = read_bank(&out);
    assert_eq!(rows.len(), 2000);
    let mut per_band = std::collections::BTreeMap::new();
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.id, i as u64);
        let peer = Sudoku::from_str_line(&row.puzzle).expect("puzzle parses");
        assert!(peer.is_uniquely_solvable(), "row {i} is not unique");
        let solution = peer.solution().unwrap().to_str_line().to_string();
        assert_eq!(solution, row.solution, "row {i}: wrong solution column");
        assert_eq!(clues_of(&row.puzzle), row.clues, "row {i}: clue count");
        assert_eq!(band_of(row.clues), row.difficulty, "row {i}: band");
        *per_band.entry(row.difficulty.clone()).or_insert(0) += 1;
    }
    // `--difficulty any` makes every band in equal shares.
    assert_eq!(per_band.values().copied().collect::<Vec<_>>(), vec![500; 4]);
}

#[test]
fn minimal_carving_gives_minimal_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out)
        .count(200)
        .args(["--carve", "minimal"])
        .difficulty("hard,expert")
        .run();
    let rows = read_bank(&out);
    assert_eq!(rows.len(), 200);
    for row in rows.iter().step_by(10) {
        let bytes = row.puzzle.as_bytes();
        for c in (0..81).filter(|&c| bytes[c] != b'.') {
            let mut fewer = bytes.to_vec();
            fewer[c] = b'.';
            let peer = Sudoku::from_bytes_slice(
                &fewer
                    .iter()
                    .map(|&b| if b == b'.' { 0 } else { b - b'0' })
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            assert!(
                !peer.is_uniquely_solvable(),
                "row {}: clue {c} was removable",
                row.id
            );
        }
    }
}

#[test]
fn thread_count_does_not_change_a_byte() {
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: u32, name: &str| {
        generate(dir.path().join(name))
            .count(3000)
            .seed(7)
            .shard_rows(1000)
            .variants(3)
            .threads(threads)
            .bank()
    };
    let (one, two) = (run(1, "one"), run(2, "two"));
    // Everything but the timings, which are measurements, not output.
    for name in listing(&one).into_iter().filter(|n| n != "histograms") {
        let a = std::fs::read(one.join(&name)).unwrap();
        let b = std::fs::read(two.join(&name)).unwrap();
        assert!(a == b, "{name} differs between --threads 1 and --threads 2");
    }
    assert_eq!(listing(&one), listing(&two));
}

#[test]
fn a_bad_band_table_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    for (bands, message) in [
        ("easy=36-40,hard=10-20", "fewer than 17"),
        ("easy=36-40,medium=30-37", "overlap"),
        ("easy:36-40", "missing '='"),
    ] {
        generate(&out)
            .count(10)
            .args(["--bands", bands])
            .loud()
            .cmd()
            .assert()
            .code(2)
            .stderr(predicates::str::contains(message));
        assert!(!out.exists(), "{bands}: OUT was created");
    }
    generate(&out)
        .count(10)
        .difficulty("nightmare")
        .loud()
        .cmd()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown band \"nightmare\""));
    assert!(!out.exists());
}

#[test]
fn an_occupied_out_is_refused_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    let gen = |extra: &[&str]| generate(&out).count(50).args(extra).cmd().assert();
    gen(&["--seed", "1"]).success();
    let before = std::fs::read(out.join("bank-00000.csv.zst")).unwrap();
    gen(&["--seed", "2"]).code(2).stderr(
        predicates::str::contains("already holds a bank").and(predicates::str::contains("--force")),
    );
    assert_eq!(
        std::fs::read(out.join("bank-00000.csv.zst")).unwrap(),
        before
    );
    assert_eq!(
        listing(&out),
        ["bank-00000.csv.zst", "histograms", "manifest.json"]
    );
    gen(&["--seed", "2", "--force"]).success();
    assert_ne!(
        std::fs::read(out.join("bank-00000.csv.zst")).unwrap(),
        before
    );
}

#[test]
fn an_unfinished_out_is_refused_pointing_to_resume() {
    // Regression: generating into an interrupted bank said only "pass --force", which
    // throws the finished shards away; `--resume` finishes it.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out).count(50).seed(1).bank();
    let manifest = out.join("manifest.json");
    let unfinished = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("\"complete\": true", "\"complete\": false");
    std::fs::write(&manifest, &unfinished).unwrap();
    let stderr = fails_naming(
        generate(&out).count(50).seed(1).cmd(),
        &["holds an unfinished bank", "generate --resume", "--force"],
    );
    assert!(!stderr.contains("already holds a bank"), "{stderr}");
    // Refused before anything is touched.
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), unfinished);
}

#[test]
fn an_unreachable_band_is_an_error_not_a_loop() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    // Minimal puzzles practically never keep 40 clues.
    generate(&out)
        .count(4)
        .args(["--carve", "minimal", "--bands", "easy=40-40"])
        .args(["--max-attempts", "50"])
        .cmd()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("was not reached in 50 attempts"))
        .stderr(predicates::str::contains(
            "clues, fewer than the band; try --carve target",
        ));
    // The hint says what the attempts made (regression: "minimal puzzles rarely have
    // this many clues" for a band too sparse), and a band no symmetric pattern can
    // have is refused up front (it was "very rare" after every attempt).
    let hint = |name: &str, args: &[&str]| {
        let out = dir.path().join(name);
        let run = generate(&out)
            .count(1)
            .args(args)
            .args(["--max-attempts", "20"])
            .cmd()
            .assert()
            .code(2);
        crate::common::stderr_of(&run)
    };
    let sparse = hint("sparse", &["--carve", "minimal", "--bands", "x=17-18"]);
    assert!(
        sparse.contains("the sparsest of them had") && sparse.contains("widen the band"),
        "{sparse}"
    );
    let orbits = hint(
        "orbits",
        &["--symmetry", "rot90", "--bands", "x=30-31,y=32-40"],
    );
    assert!(
        orbits.contains("no rot90-symmetric 9x9 pattern has 30-31 clues (band x)"),
        "{orbits}"
    );
    assert!(
        !dir.path().join("orbits").exists(),
        "refused before any work"
    );
    assert!(!listing(&out)
        .iter()
        .any(|n| n.ends_with(".csv.zst") || n.ends_with(".tmp")));
    // Regression: the failed run's manifest said `complete: true` with 0 rows, so
    // `export` and `stats` took it for a finished (empty) bank. It is incomplete.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["complete"], false, "{manifest}");
    factory()
        .args(["export".as_ref(), out.as_os_str(), "--to".as_ref()])
        .arg(dir.path().join("x.jsonl"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is incomplete"));
    assert!(!dir.path().join("x.jsonl").exists());
}

/// Regression: the band with the highest range took every clue count above it too
/// (the rule that names a 41-clue puzzle `easy`), so `--bands tough=22-24` made
/// 25- and 26-clue `tough` puzzles. A band asked for gets its own range.
#[test]
fn a_band_gets_its_own_range_even_the_easiest() {
    let dir = tempfile::tempdir().unwrap();
    let out = generate(dir.path().join("bank"))
        .count(200)
        .variants(10)
        .seed(4)
        .args(["--carve", "minimal", "--bands", "tough=22-24"])
        .bank();
    let clues: std::collections::BTreeSet<u16> = read_bank(&out).iter().map(|r| r.clues).collect();
    assert!(clues.iter().all(|c| (22..=24).contains(c)), "{clues:?}");
}

#[test]
fn the_summary_reports_rows_bands_and_attempts() {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path().join("bank"))
        .count(40)
        .difficulty("expert")
        .loud()
        .run()
        .stderr(predicates::str::contains("wrote 40 rows"))
        .stderr(predicates::str::contains("expert 17-23"))
        .stderr(predicates::str::contains("attempts/seed"));
}
