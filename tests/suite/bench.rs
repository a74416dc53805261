//! `bench`: one row per fill × carve combination on stdout, the CSV/JSON/SVG files,
//! and the diversity figures that tell the strategies apart; with `--difficulty`, the
//! same per band, every counted puzzle in its band, beside the `sudoku` crate's row.

use crate::common;

use common::factory;

#[test]
fn bench_compares_every_combination_and_writes_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let assert = factory()
        .args([
            "bench",
            "--fill",
            "backtrack,template",
            "--carve",
            "minimal,unavoidable",
            "--count",
            "30",
            "--threads",
            "2",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert!(lines[0].starts_with("fill") && lines[0].contains("distinct_grids"));
    for (line, (f, c)) in lines[1..].iter().zip([
        ("backtrack", "minimal"),
        ("backtrack", "unavoidable"),
        ("template", "minimal"),
        ("template", "unavoidable"),
    ]) {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((words[0], words[1]), (f, c), "{line}");
    }

    let mut csv = csv::Reader::from_path(out.join("bench.csv")).unwrap();
    let headers = csv.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = csv.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(&r[col("puzzles")], "30");
        let grids: u64 = r[col("distinct_grids")].parse().unwrap();
        let expected = if &r[col("fill")] == "template" { 1 } else { 30 };
        assert_eq!(grids, expected, "{r:?}");
        // What the strategy's puzzles rate, by the default rating bands.
        let se: f64 = r[col("se_mean")].parse().unwrap();
        assert!((1.0..=9.5).contains(&se), "{r:?}");
        let shares: f64 = ["easy", "medium", "hard", "diabolical", "extreme"]
            .iter()
            .map(|b| r[col(&format!("se_{b}_%"))].parse::<f64>().unwrap())
            .sum();
        assert!((shares - 100.0).abs() < 0.3, "{r:?}");
        let hard = r[col("se_diabolical_%")].parse::<f64>().unwrap()
            + r[col("se_extreme_%")].parse::<f64>().unwrap();
        assert_eq!(r[col("us_per_se5")].is_empty(), hard == 0.0, "{r:?}");
    }
    // Minimal carving is minimal on the whole sample.
    assert_eq!(&rows[0][col("minimal")], "20/20");

    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("bench.json")).unwrap()).unwrap();
    let json = json.as_array().unwrap();
    assert_eq!(json.len(), 4);
    assert_eq!(json[2]["fill"], "template");
    assert_eq!(json[2]["distinct_grids"], 1);
    assert_eq!(json[0]["distinct_grids"], 30);
    assert!(json[0]["puzzles_per_second"].as_f64().unwrap() > 0.0);
    assert!(json[0]["ratings"]["se_mean"].as_f64().unwrap() >= 1.0);

    let svg = std::fs::read_to_string(out.join("bench.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("template+unavoidable"));
}

#[test]
fn bench_refuses_count_with_seconds() {
    let dir = tempfile::tempdir().unwrap();
    factory()
        .current_dir(dir.path())
        .args(["bench", "--count", "5", "--seconds", "1"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("--seconds"));
    assert!(!dir.path().join("bench-results").exists());
}

/// Regressions: `--seconds 1e300` panicked (exit 101), and an `--out` that is a file
/// failed only after the whole measurement.
#[test]
fn bench_refuses_bad_budgets_and_outputs_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    for s in ["1e300", "18446744073709551616", "nan", "inf", "0", "-1"] {
        factory()
            .current_dir(dir.path())
            .args(["bench", "--fill", "mrv", "--carve", "target", "--out", "b"])
            .arg(format!("--seconds={s}"))
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "--seconds {}",
                s.parse::<f64>().unwrap()
            )));
    }
    let file = dir.path().join("afile");
    std::fs::write(&file, "mine").unwrap();
    factory()
        .args([
            "bench",
            "--fill",
            "mrv",
            "--carve",
            "target",
            "--seconds",
            "1000",
        ])
        .arg("--out")
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not a directory"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    // An OUT that cannot be created fails before the measurements. Regression: after
    // them (here 1,000 s of them; the timeout catches the wait).
    factory()
        .args([
            "bench",
            "--fill",
            "mrv",
            "--carve",
            "target",
            "--seconds",
            "1000",
        ])
        .arg("--out")
        .arg(file.join("sub"))
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("afile is not a directory"));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "nothing else written"
    );
    // Regression: --threads had no bound; 100000 spent minutes starting threads.
    for command in ["bench", "generate", "verify", "stats", "merge"] {
        factory()
            .current_dir(dir.path())
            .args([command, "--threads", "100000"])
            .assert()
            .code(2)
            .stderr(predicates::str::contains("1..=1024"));
    }
}

/// The rows of `OUT/bench.csv` by column name.
fn read_csv(path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut csv = csv::Reader::from_path(path).unwrap();
    let headers = csv.headers().unwrap().clone();
    csv.records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

const PEER: bool = cfg!(feature = "sudoku-peer");

#[test]
fn bench_per_rating_band_lands_every_puzzle_in_its_rating_band() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    factory()
        .args([
            "bench",
            "--difficulty",
            "easy,diabolical",
            "--grade",
            "rating",
            "--fill",
            "backtrack",
            "--carve",
            "minimal",
            "--count",
            "8",
            "--threads",
            "2",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let rows = read_csv(&out.join("bench.csv"));
    let got: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["band"].as_str(), r["fill"].as_str()))
        .collect();
    let mut expected = vec![("easy", "backtrack")];
    if PEER {
        expected.push(("easy", "sudoku-crate"));
    }
    expected.push(("diabolical", "backtrack"));
    if PEER {
        expected.push(("diabolical", "sudoku-crate"));
    }
    assert_eq!(got, expected);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["puzzles"], "8", "{r:?}");
        // Graded by rating: every puzzle in the band it was made for, whatever its clues.
        assert_eq!(r[&format!("{}_%", r["band"])], "100.0", "{r:?}");
    }
}

#[test]
fn bench_per_band_lands_every_puzzle_in_its_band_beside_the_sudoku_crate() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let assert = factory()
        .args([
            "bench",
            "--difficulty",
            "easy,expert",
            "--fill",
            "mrv",
            "--carve",
            "target,unavoidable",
            "--count",
            "12",
            "--threads",
            "2",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();

    let rows = read_csv(&out.join("bench.csv"));
    let mut expected = Vec::new();
    for band in ["easy", "expert"] {
        expected.push((band, "mrv", "target"));
        expected.push((band, "mrv", "unavoidable"));
        if PEER {
            expected.push((band, "sudoku-crate", "generate+add"));
        }
    }
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| (r["band"].as_str(), r["fill"].as_str(), r["carve"].as_str()))
        .collect();
    assert_eq!(got, expected);
    for r in &rows {
        let band = &r["band"];
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["puzzles"], "12", "{r:?}");
        // Every counted puzzle landed in the band it was made for.
        assert_eq!(r[&format!("{band}_%")], "100.0", "{r:?}");
        let (lo, hi) = if band == "easy" { (36, 40) } else { (17, 23) };
        let min: u8 = r["clues_min"].parse().unwrap();
        let max: u8 = r["clues_max"].parse().unwrap();
        assert!(lo <= min && max <= hi, "{r:?}");
        let attempts: f64 = r["attempts_mean"].parse().unwrap();
        assert!(attempts >= 1.0, "{r:?}");
    }

    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("bench.json")).unwrap()).unwrap();
    let json = json.as_array().unwrap();
    assert_eq!(json.len(), rows.len());
    assert!(json.iter().all(|r| r["reached"] == true));
    assert_eq!(json[0]["band"], "easy");

    // The table, then one line per band naming the fastest, with the peer's ratio.
    let fastest: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("fastest in "))
        .collect();
    assert_eq!(fastest.len(), 2, "{stdout}");
    assert!(fastest[0].starts_with("fastest in easy: mrv+"), "{stdout}");
    assert!(
        fastest[1].starts_with("fastest in expert: mrv+"),
        "{stdout}"
    );
    if PEER {
        assert!(fastest.iter().all(|l| l.contains("× the sudoku crate")));
    }
    let table = stdout.split("\n\n").next().unwrap();
    assert_eq!(table.lines().count(), 1 + rows.len(), "{stdout}");
    assert!(table.starts_with("band"));
}

#[test]
fn bench_reports_minimal_in_easy_as_unreachable_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    // 1000 puzzles of 50 attempts each would be 50,000 carves: the first puzzle that
    // gives up stops the combination instead.
    let assert = factory()
        .args([
            "bench",
            "--difficulty",
            "easy",
            "--fill",
            "template",
            "--carve",
            "minimal,target",
            "--count",
            "1000",
            "--max-attempts",
            "50",
            "--threads",
            "2",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "easy: template+minimal: unreachable",
        ));
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let rows = read_csv(&out.join("bench.csv"));
    assert_eq!(rows[0]["carve"], "minimal");
    assert_eq!(rows[0]["status"], "unreachable");
    assert_eq!(rows[0]["attempts_max"], "50");
    // No figures for a band that was not reached: empty, not a misleading 0.
    assert_eq!(rows[0]["puzzles/s"], "");
    assert_eq!(rows[1]["carve"], "target");
    assert_eq!(rows[1]["status"], "ok");
    assert_eq!(rows[1]["puzzles"], "1000");
    let line = stdout.lines().nth(1).unwrap();
    assert!(
        line.starts_with("easy") && line.ends_with("unreachable"),
        "{line}"
    );
    assert!(
        stdout.contains("fastest in easy: template+target"),
        "{stdout}"
    );
}

#[test]
fn bench_takes_a_band_table_and_all() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    factory()
        .args([
            "bench",
            "--difficulty",
            "all",
            "--bands",
            "roomy=40-45,tight=26-27",
            "--fill",
            "backtrack",
            "--carve",
            "target",
            "--count",
            "5",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let rows = read_csv(&out.join("bench.csv"));
    let bands: Vec<&str> = rows.iter().map(|r| r["band"].as_str()).collect();
    let per_band = if PEER { 2 } else { 1 };
    assert_eq!(bands.len(), 2 * per_band);
    assert!(bands[..per_band].iter().all(|&b| b == "roomy"));
    assert!(bands[per_band..].iter().all(|&b| b == "tight"));
    for r in &rows {
        assert_eq!(r[&format!("{}_%", r["band"])], "100.0", "{r:?}");
    }
    assert!(!rows[0].contains_key("easy_%"));
}

#[test]
fn bench_refuses_an_unknown_band_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    factory()
        .current_dir(dir.path())
        .args(["bench", "--difficulty", "easy,nightmare", "--count", "5"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--difficulty: unknown band \"nightmare\" (known: easy=36-40,medium=30-35,hard=24-29,expert=17-23)",
        ));
    assert!(!dir.path().join("bench-results").exists());
    // A band table or an attempt bound means nothing without --difficulty.
    for extra in [["--bands", "default"], ["--max-attempts", "5"]] {
        factory()
            .current_dir(dir.path())
            .args(["bench", "--count", "5"])
            .args(extra)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("--difficulty"));
    }
    assert!(!dir.path().join("bench-results").exists());
}

/// 25x25 without `--difficulty` carves to the end (minutes a puzzle): said before
/// the work starts. Regression: it ran for minutes, silent, past `--seconds 1`.
#[test]
fn bench_on_25x25_carving_to_the_end_says_it_takes_minutes() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(common::bin())
        .args(["bench", "--size", "25", "--seconds", "1", "--fill", "mrv"])
        .args(["--carve", "target", "--threads", "1", "--out"])
        .arg(dir.path().join("out"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The first line of stderr, or nothing if none comes within a minute.
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufReader::new(stderr).read_line(&mut line);
        let _ = tx.send(line);
    });
    let first = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .unwrap_or_default();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first.contains("takes minutes"), "{first}");
    assert!(first.contains("--difficulty"), "{first}");
}

/// `scripts/rating-cost`, what the rating costs the factory's own jobs: on small jobs
/// it prints the default job's rated/unrated CPU ratio, the minimal puzzles' rates
/// (with the `sudoku` crate's row when the binary has it) and the top rating band's
/// seeds per CPU second, and exits 0 when every round wrote the same bytes. A binary
/// whose banks change from run to run (a wrapper that draws a new `--seed` each
/// time) makes it name the workloads and exit 1. (Its figures are not checked: speed
/// lives in benchmarks.)
#[test]
fn the_rating_cost_script_measures_the_jobs_and_checks_their_bytes() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/rating-cost");
    let run = |binary: &std::path::Path, rounds: &str, top: &str| {
        std::process::Command::new(script)
            .arg(binary)
            .args([
                "--rounds",
                rounds,
                "--job-count",
                "2000",
                "--minimal-count",
                "100",
                "--top-count",
                top,
            ])
            .output()
            .expect("python3 runs the script")
    };
    let out = run(&common::bin(), "1", "2");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}{err}");
    let ratio: f64 = common::value_after(&text, "rated/unrated ", 'x')
        .unwrap_or_else(|| panic!("a rated/unrated ratio: {text}"));
    assert!(ratio > 0.0, "{text}");
    assert!(text.contains(" us a puzzle"), "{text}");
    let crate_row = if cfg!(feature = "sudoku-peer") {
        "the sudoku crate, unrated "
    } else {
        "no sudoku crate row"
    };
    assert!(text.contains(crate_row), "{text}");
    assert!(text.contains(" seeds per CPU s "), "{text}");
    assert!(
        text.ends_with("same bank bytes every round: yes\n"),
        "{text}"
    );

    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("reseeding");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n[ \"$1\" = generate ] && exec '{}' \"$@\" --seed \"$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')\"\nexec '{}' \"$@\"\n",
            common::bin().display(),
            common::bin().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The top band's run fixes its own seed: left out here.
    let out = run(&wrapper, "2", "0");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.ends_with("same bank bytes every round: NO: job, job-unrated, min, min-unrated\n"),
        "{text}"
    );
}
