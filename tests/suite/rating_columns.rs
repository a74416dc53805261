//! The `rating` and `technique` columns (DESIGN.md): every 9×9 row carries the
//! technique rating of its puzzle, the same for every variant of a seed (the rating
//! is invariant under the symmetry group); sizes without a rater leave them empty;
//! `merge` keeps them; `verify` re-rates and finds a tampered rating.

use crate::common;

use std::collections::HashMap;
use std::io::Write;

use common::{generate, read_bank, resume, verify};
use sudoku_factory::engine::grid::parse_line;
use sudoku_factory::engine::rating::Rater;

#[test]
fn every_9x9_row_carries_its_puzzles_rating_and_variants_share_it() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank"))
        .count(600)
        .variants(6)
        .seed(11)
        .bank();
    let rows = read_bank(&bank);
    assert_eq!(rows.len(), 600);
    let mut rater = Rater::new();
    let mut per_class: HashMap<&str, (&str, &str)> = HashMap::new();
    let mut techniques = std::collections::HashSet::new();
    for row in &rows {
        let puzzle = parse_line(&row.puzzle, 1).unwrap();
        // Rated independently, row by row (the factory rates only the seeds).
        let r = rater.rate(&puzzle).unwrap();
        assert_eq!(row.rating, r.to_string(), "id {}", row.id);
        assert_eq!(row.technique, r.technique.name(), "id {}", row.id);
        let first = per_class
            .entry(row.canonical.as_str())
            .or_insert((row.rating.as_str(), row.technique.as_str()));
        assert_eq!(*first, (row.rating.as_str(), row.technique.as_str()));
        techniques.insert(row.technique.clone());
    }
    assert_eq!(per_class.len(), 100, "6 variants of 100 seeds");
    assert!(
        techniques.len() > 3,
        "a spread of techniques: {techniques:?}"
    );
}

#[test]
fn sizes_without_a_rater_leave_the_columns_empty() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank"))
        .size(4)
        .count(40)
        .variants(2)
        .seed(3)
        .bank();
    for row in read_bank(&bank) {
        assert_eq!((row.rating.as_str(), row.technique.as_str()), ("", ""));
    }
    verify(&bank).assert().success();
}

#[test]
fn verify_finds_a_tampered_rating_in_a_variant_row() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank"))
        .count(50)
        .variants(5)
        .seed(5)
        .bank();
    verify(&bank).assert().success();
    // Row id 2 is a variant (not the first row of its seed): give it another rating.
    let stated = read_bank(&bank)[2].rating.clone();
    tamper(&bank, 2, 6, if stated == "9.9" { "9.8" } else { "9.9" });
    let assert = verify(&bank).assert().code(1);
    let stderr = crate::common::stderr_of(&assert);
    assert!(stderr.contains("wrong rating"), "{stderr}");
    assert!(stderr.contains("(id 2): rating 9."), "{stderr}");
}

#[test]
fn verify_holds_an_earlier_raters_bank_to_consistency_not_to_todays_rater() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank"))
        .count(20)
        .variants(5)
        .seed(5)
        .bank();
    // A bank made by 0.2.0, whose rater predates this one (RATER_SINCE): its ratings
    // may differ from today's rater and are not re-rated.
    let manifest = bank.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let ours = format!("\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&ours), "{text}");
    std::fs::write(&manifest, text.replacen(&ours, "\"0.2.0\"", 1)).unwrap();
    let assert = common::factory()
        .arg("verify")
        .arg(&bank)
        .assert()
        .success();
    let stderr = crate::common::stderr_of(&assert);
    assert!(stderr.contains("predates this build"), "{stderr}");
    // A seed's first row with another rating: not re-rated, but its variants must
    // still carry the same columns.
    let stated = read_bank(&bank)[0].rating.clone();
    tamper(&bank, 0, 6, if stated == "9.9" { "9.8" } else { "9.9" });
    let assert = verify(&bank).assert().code(1);
    let stderr = crate::common::stderr_of(&assert);
    assert!(stderr.contains("wrong rating"), "{stderr}");
    assert!(!stderr.contains("(id 0): rating"), "{stderr}");
    assert!(stderr.contains("(id 1): rating"), "{stderr}");
}

#[test]
fn no_rating_leaves_the_columns_empty_and_verify_and_merge_accept_it() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank"))
        .count(40)
        .variants(4)
        .seed(5)
        .arg("--no-rating")
        .bank();
    for row in read_bank(&bank) {
        assert_eq!((row.rating.as_str(), row.technique.as_str()), ("", ""));
    }
    let manifest = std::fs::read_to_string(bank.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"rating\": false"), "{manifest}");
    verify(&bank).assert().success();
    let merged = dir.path().join("merged");
    common::factory()
        .args(["merge", "-q"])
        .arg(&merged)
        .arg(&bank)
        .assert()
        .success();
    verify(&merged).assert().success();
    // The same run rated: same puzzles, the columns filled.
    let rated = read_bank(
        &generate(dir.path().join("rated"))
            .count(40)
            .variants(4)
            .seed(5)
            .bank(),
    );
    let unrated = read_bank(&bank);
    for (a, b) in rated.iter().zip(&unrated) {
        assert_eq!((&a.puzzle, &a.canonical), (&b.puzzle, &b.canonical));
        assert!(!a.rating.is_empty());
    }
}

/// The default rating table of `--grade rating`, written out independently.
fn rating_band(rating: &str) -> &'static str {
    let r: f64 = rating.parse().unwrap();
    match r {
        r if r < 1.45 => "easy",
        r if r < 2.45 => "medium",
        r if r < 4.95 => "hard",
        r if r < 6.95 => "diabolical",
        _ => "extreme",
    }
}

/// The clue ceiling of each band of the default rating table, written out
/// independently: easy 45, medium 40, the others 36.
fn clue_ceiling(band: &str) -> u16 {
    match band {
        "easy" => 45,
        "medium" => 40,
        _ => 36,
    }
}

/// Replaces field `field` of row `id` in the bank's only shard with `value`.
fn tamper(bank: &std::path::Path, id: usize, field: usize, value: &str) {
    let shard = bank.join("bank-00000.csv.zst");
    let text =
        String::from_utf8(zstd::decode_all(std::fs::File::open(&shard).unwrap()).unwrap()).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fields: Vec<String> = lines[id + 1].split(',').map(str::to_string).collect();
    assert_eq!(fields[0], id.to_string());
    fields[field] = value.to_string();
    lines[id + 1] = fields.join(",");
    let mut out = zstd::Encoder::new(std::fs::File::create(&shard).unwrap(), 3).unwrap();
    for l in &lines {
        writeln!(out, "{l}").unwrap();
    }
    out.finish().unwrap();
}

#[test]
fn grade_rating_lands_every_seed_in_its_rating_band_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let run = ["--grade", "rating", "--count", "200", "--variants", "2"];
    let bank = generate(dir.path().join("bank"))
        .args(run)
        .seed(4)
        .threads(2)
        .bank();
    let rows = read_bank(&bank);
    let mut per_band: HashMap<String, usize> = HashMap::new();
    let mut rater = Rater::new();
    let mut classes = std::collections::HashSet::new();
    for row in &rows {
        assert_eq!(
            row.difficulty,
            rating_band(&row.rating),
            "id {}: {}",
            row.id,
            row.rating
        );
        // The seed (its class's first row) is rated; its variants inherit. (The rater
        // is not exactly invariant on chain steps: a few variants in ten thousand rate
        // 0.1-0.2 apart, so variants are not re-rated here.)
        if classes.insert(row.canonical.clone()) {
            let r = rater.rate(&parse_line(&row.puzzle, 1).unwrap()).unwrap();
            assert_eq!(row.rating, r.to_string(), "id {}", row.id);
        }
        // Regression: `easy` puzzles had up to 76 clues.
        assert!(
            row.clues <= clue_ceiling(&row.difficulty),
            "id {}: {} clues in {}",
            row.id,
            row.clues,
            row.difficulty
        );
        *per_band.entry(row.difficulty.clone()).or_default() += 1;
    }
    assert_eq!(classes.len(), 100);
    for band in ["easy", "medium", "hard", "diabolical", "extreme"] {
        assert_eq!(per_band.get(band), Some(&40), "{band}: {per_band:?}");
    }
    let manifest = std::fs::read_to_string(bank.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"grade\": \"rating\""), "{manifest}");
    assert!(manifest.contains("extreme=7.0+"), "{manifest}");
    verify(&bank).assert().success();

    let one_thread = generate(dir.path().join("one"))
        .args(run)
        .seed(4)
        .threads(1)
        .bank();
    assert!(
        std::fs::read(bank.join("bank-00000.csv.zst")).unwrap()
            == std::fs::read(one_thread.join("bank-00000.csv.zst")).unwrap(),
        "same bytes with 1 and 2 threads"
    );

    // A row whose band disagrees with its (correct) rating is a defect.
    let wrong = if rows[0].difficulty == "easy" {
        "extreme"
    } else {
        "easy"
    };
    tamper(&bank, 0, 4, wrong);
    let assert = verify(&bank).assert().code(1);
    let stderr = crate::common::stderr_of(&assert);
    assert!(stderr.contains("wrong band"), "{stderr}");
}

/// A band's own clue range (`@LO-HI`) holds both ways: puzzles are walked up to
/// the floor and never kept above the ceiling.
#[test]
fn a_rating_bands_clue_range_bounds_its_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("bank");
    let run = generate(&bank)
        .args(["--grade", "rating", "--variants", "1"])
        .args(["--bands", "easy=1.0-1.4@30-34,medium=1.5-2.4@24-27"])
        .count(60)
        .seed(5)
        .loud()
        .cmd()
        .assert()
        .success();
    let rows = read_bank(&bank);
    assert_eq!(rows.len(), 60);
    // The summary counts each band's seeds per rating, as the bank does.
    let summary = crate::common::stderr_of(&run);
    let counts = |band: &str| -> Vec<(String, usize)> {
        let line = summary
            .lines()
            .skip_while(|l| !l.contains("seeds per rating, per band:"))
            .find(|l| l.split_whitespace().next() == Some(band))
            .unwrap_or_else(|| panic!("no {band} line in {summary}"));
        line.split_whitespace()
            .skip(1)
            .collect::<Vec<_>>()
            .chunks(2)
            .map(|p| {
                (
                    p[0].trim_end_matches(':').to_string(),
                    p[1].parse().unwrap(),
                )
            })
            .collect()
    };
    for band in ["easy", "medium"] {
        let mut in_bank: Vec<(String, usize)> = Vec::new();
        for row in rows.iter().filter(|r| r.difficulty == band) {
            match in_bank.iter_mut().find(|(r, _)| *r == row.rating) {
                Some((_, n)) => *n += 1,
                None => in_bank.push((row.rating.clone(), 1)),
            }
        }
        in_bank.sort();
        assert_eq!(counts(band), in_bank, "{band}");
    }
    for row in &rows {
        let range = if row.difficulty == "easy" {
            30..=34
        } else {
            24..=27
        };
        assert!(
            range.contains(&row.clues),
            "id {}: {} clues in {}",
            row.id,
            row.clues,
            row.difficulty
        );
        assert_eq!(row.difficulty, rating_band(&row.rating), "id {}", row.id);
    }
    let manifest = std::fs::read_to_string(bank.join("manifest.json")).unwrap();
    assert!(manifest.contains("easy=1.0-1.4@30-34"), "{manifest}");
    verify(&bank).assert().success();
}

#[test]
fn grade_rating_refuses_what_it_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in [
        // Regression: named `--bands` though none was given.
        (
            &["--grade", "rating", "--size", "16"][..],
            "--grade rating: rating bands need a 9x9 board",
        ),
        (&["--grade", "rating", "--no-rating"][..], "--no-rating"),
        (
            &["--grade", "rating", "--bands", "easy=1.0-x"][..],
            "HI is not a rating",
        ),
        (
            &["--grade", "rating", "--difficulty", "expert"][..],
            "unknown band",
        ),
        (
            &["--grade", "rating", "--bands", "easy=1.0-1.4@16-30"][..],
            "no 9x9 puzzle with fewer than 17 clues",
        ),
        // Regression (0.4.10): a band above the rater's highest rating (11.4 then)
        // was searched until --max-attempts ran out; since 0.4.12 the rater has
        // SE's whole scale, and the table stops at 11.9.
        (
            &["--grade", "rating", "--bands", "easy=1.0-2.0,top=12.0+"][..],
            "no puzzle rates 12.0 or more on the SE scale",
        ),
    ] {
        let assert = generate(dir.path().join("bank"))
            .count(10)
            .args(args)
            .cmd()
            .assert()
            .code(2);
        let stderr = crate::common::stderr_of(&assert);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(
            !dir.path().join("bank").exists(),
            "{args:?}: nothing written"
        );
    }
}

/// Three published puzzles rated 9.0–9.2 (the table of `tests/suite/grade.rs`).
const HARD_STARTS: [&str; 3] = [
    "6..5......1...3.8...2.7.9....3..5.......9.1..7..4....25....27...8.....1...46....3",
    "2.....9....34......7..5..8.9...1......5...7...8...3..2.6..7..1......85....42....3",
    "6.......1.2.....4...7...8....41.59..381697425..93.26....6...7...9.....8.1.......3",
];

/// `--from`: the climbs start from the puzzles given. Every row lands in the band
/// with its true rating, none is one of the starts in disguise, 1 and 2 threads
/// write the same bytes, and the manifest names the file.
#[test]
fn from_climbs_near_the_puzzles_given_and_never_gives_one_back() {
    use sudoku_factory::engine::board::{Board, Nine};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hard.txt");
    let [a, b, c] = HARD_STARTS;
    // A comment, a blank line and ratings after the puzzles are skipped.
    std::fs::write(&file, format!("# rated 9.0+\n{a} 9.2\n\n{b}  9.2\n{c}\n")).unwrap();
    let run = |threads: u32, name: &str| {
        let out = dir.path().join(name);
        generate(&out)
            .count(6)
            .threads(threads)
            .args([
                "--grade", "rating", "--bands", "top=9.0+", "--carve", "minimal",
            ])
            .arg("--from")
            .arg(&file)
            .run();
        out
    };
    let (one, two) = (run(1, "one"), run(2, "two"));
    let shard = |out: &std::path::Path| std::fs::read(out.join("bank-00000.csv.zst")).unwrap();
    assert_eq!(
        shard(&one),
        shard(&two),
        "the thread count changed the bytes"
    );
    let canonical = |text: &str| -> String {
        let cells = Nine::canonical_form(&parse_line(text, 1).unwrap());
        cells.iter().map(|&v| char::from(b'0' + v)).collect()
    };
    let starts: Vec<String> = HARD_STARTS.iter().map(|p| canonical(p)).collect();
    let rows = read_bank(&one);
    assert_eq!(rows.len(), 6);
    let mut rater = Rater::new();
    for row in &rows {
        let rating = rater.rate(&parse_line(&row.puzzle, 1).unwrap()).unwrap();
        assert_eq!(row.rating, format!("{rating}"), "{}", row.puzzle);
        assert!(rating.rating >= 90, "{} rates {rating}", row.puzzle);
        assert_eq!(row.canonical, canonical(&row.puzzle));
        assert!(
            !starts.contains(&row.canonical),
            "a start came back: {}",
            row.puzzle
        );
    }
    let manifest = sudoku_factory::bank::read_manifest(&one).unwrap();
    assert_eq!(manifest.params.from, Some(file.display().to_string()));
    assert_eq!(manifest.params.from_digest.map(|d| d.len()), Some(32));
    verify(&one).assert().success();
}

/// `--from` refuses, before writing anything, a file it cannot climb from (naming
/// the line, and the column of a bad character) and runs it cannot serve.
#[test]
fn a_from_file_that_cannot_start_climbs_is_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    let refuse = |text: &str, extra: &[&str], names: &[&str]| {
        let file = dir.path().join("starts.txt");
        std::fs::write(&file, text).unwrap();
        let mut gen = generate(&out).count(2).arg("--from").arg(&file);
        if !extra.contains(&"--grade") {
            gen = gen.args(["--grade", "rating", "--bands", "top=9.0+"]);
        }
        common::fails_naming(gen.args(extra).cmd(), names);
        assert!(!out.exists(), "nothing is written");
    };
    let [a, ..] = HARD_STARTS;
    refuse(
        &format!("{a}\n  12..x\n"),
        &[],
        &["--from", "line 2, column 7", "'x'"],
    );
    // Regression: `puzzle,rating` was refused at the comma, though the help says
    // what follows the puzzle is ignored; line 1 now passes, and line 2 is named.
    refuse(
        &format!("{a},8.5\n{a};8.5\n  12..x\n"),
        &[],
        &["--from", "line 3, column 7", "'x'"],
    );
    let empty = ".".repeat(81);
    refuse(
        &format!("# c\n{a}\n{empty}\n"),
        &[],
        &["line 3", "no unique solution"],
    );
    refuse("# only a comment\n\n", &[], &["no puzzle in it"]);
    refuse(
        &format!("{a}\n"),
        &["--grade", "clues"],
        &["needs --grade rating"],
    );
    refuse(
        &format!("{a}\n"),
        &["--symmetry", "rot180", "--carve", "minimal"],
        &["--symmetry"],
    );
    refuse(&format!("{a}\n"), &["--workers", "2"], &["one process"]);
}

/// A `--from` run resumes into the same bytes from its file's puzzles: the run is
/// cut back to its first shard (what a run killed there leaves; these climbs are too
/// quick to kill mid-way reliably) and resumed from another directory than the one
/// whose relative `--from` it was given. The same puzzles in another order are
/// refused, naming the file, and nothing is written.
#[test]
fn a_from_run_resumes_into_the_same_bytes_only_from_the_same_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hard.txt");
    let [a, b, c] = HARD_STARTS;
    std::fs::write(&file, format!("{a}\n{b}\n{c}\n")).unwrap();
    // Given relative to where the run starts, recorded absolute.
    let clean = dir.path().join("clean");
    generate(&clean)
        .count(6)
        .variants(1)
        .shard_rows(2)
        .args([
            "--grade", "rating", "--bands", "top=9.0+", "--from", "hard.txt",
        ])
        .cmd()
        .current_dir(dir.path())
        .assert()
        .success();
    let shards = [
        "bank-00000.csv.zst",
        "bank-00001.csv.zst",
        "bank-00002.csv.zst",
    ];
    let cut = |name: &str| {
        let out = dir.path().join(name);
        std::fs::create_dir(&out).unwrap();
        let text = std::fs::read_to_string(clean.join("manifest.json")).unwrap();
        let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
        let first = m["shards"][0].clone();
        (m["shards"], m["rows"], m["bytes"]) = (
            serde_json::json!([first]),
            first["rows"].clone(),
            first["bytes"].clone(),
        );
        m["complete"] = serde_json::json!(false);
        std::fs::write(out.join("manifest.json"), m.to_string()).unwrap();
        std::fs::copy(clean.join(shards[0]), out.join(shards[0])).unwrap();
        out
    };
    let resumed = cut("resumed");
    let elsewhere = tempfile::tempdir().unwrap();
    let mut cmd = resume(&resumed).cmd();
    cmd.current_dir(elsewhere.path()).assert().success();
    for s in shards {
        assert_eq!(
            std::fs::read(resumed.join(s)).unwrap(),
            std::fs::read(clean.join(s)).unwrap(),
            "{s}"
        );
    }
    verify(&resumed).assert().success();

    std::fs::write(&file, format!("{b}\n{a}\n{c}\n")).unwrap();
    let refused = cut("refused");
    common::fails_naming(
        resume(&refused).cmd(),
        &["--from", "hard.txt", "changed since the run started"],
    );
    assert_eq!(
        common::listing(&refused),
        ["bank-00000.csv.zst", "manifest.json"]
    );
}
