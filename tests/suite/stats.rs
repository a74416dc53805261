//! `stats` end to end: the per-band counts it prints match the bank as read by the
//! zstd and csv crates, the SVG it writes is a real chart, and stage latencies
//! appear (with a throughput panel) when `OUT/histograms/` holds interval logs.

use crate::common;

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use common::{factory, generate, read_bank};
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::Histogram;

fn bank(dir: &std::path::Path) -> std::path::PathBuf {
    generate(dir.join("bank"))
        .count(600)
        .seed(9)
        .shard_rows(250)
        .difficulty("easy,hard")
        .arg("--no-histograms")
        .bank()
}

/// Every file under `dir` with its size, to show that a command left a bank alone.
fn files_under(dir: &std::path::Path) -> BTreeMap<std::path::PathBuf, u64> {
    let mut files = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                todo.push(entry.path());
            } else {
                files.insert(entry.path(), meta.len());
            }
        }
    }
    files
}

#[test]
fn per_band_counts_match_the_bank_and_the_svg_is_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let out = bank(dir.path());
    let before = files_under(&out);
    let chart = dir.path().join("chart.svg");
    let output = factory()
        .arg("stats")
        .arg(&out)
        .arg("--svg")
        .arg(&chart)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains(&format!("wrote the chart to {}", chart.display())),
        "{stderr}"
    );
    // Regression (issue #11): stats wrote stats.svg into the bank it claims to only read.
    assert_eq!(files_under(&out), before, "stats wrote into the bank");

    let mut expected = BTreeMap::new();
    for row in read_bank(&out) {
        *expected.entry(row.difficulty).or_insert(0u64) += 1;
    }
    assert_eq!(expected.len(), 2, "easy and hard only");
    for band in ["easy", "medium", "hard", "expert"] {
        let n = expected.get(band).copied().unwrap_or(0);
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(band))
            .unwrap_or_else(|| panic!("no line for {band} in\n{stdout}"));
        assert_eq!(
            line.split_whitespace().nth(1),
            Some(n.to_string().as_str()),
            "{line}"
        );
    }
    assert!(stdout.contains("rows: 600"), "{stdout}");
    assert!(
        !stdout.contains("stage latencies"),
        "no histograms dir, no latency table"
    );

    let svg = std::fs::read_to_string(&chart).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(60)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("Clue counts (600 puzzles)"));
    // One bar per clue count present: at least a dozen filled rectangles.
    assert!(svg.matches("<rect").count() > 12, "{svg}");
}

/// Regression: `--svg` replaced any existing file without `--force` (every other
/// command refuses), even the bank's own manifest or a shard, losing the bank.
#[test]
fn the_chart_never_replaces_a_bank_file_and_needs_force_over_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = bank(dir.path());
    let before = files_under(&out);
    for name in ["manifest.json", "bank-00000.csv.zst"] {
        let output = factory()
            .arg("stats")
            .arg(&out)
            .arg("--force")
            .arg("--svg")
            .arg(out.join(name))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains("is a file of the bank"), "{stderr}");
    }
    assert_eq!(files_under(&out), before, "the bank is untouched");

    // Regression: a histogram file was not the bank's (`--force` replaced it, and
    // `stats` then warned that it was no interval log).
    let with_histograms = generate(dir.path().join("histograms")).count(50).bank();
    let before = files_under(&with_histograms);
    let histogram = with_histograms.join("histograms").join("fill.hlog");
    assert!(histogram.is_file(), "the bank has histograms");
    let output = factory()
        .arg("stats")
        .arg(&with_histograms)
        .arg("--force")
        .arg("--svg")
        .arg(&histogram)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8(output.stderr)
        .unwrap()
        .contains("is a file of the bank"));
    assert_eq!(files_under(&with_histograms), before);

    let chart = dir.path().join("mine.svg");
    std::fs::write(&chart, "my own drawing").unwrap();
    let output = factory()
        .arg("stats")
        .arg(&out)
        .arg("--svg")
        .arg(&chart)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(crate::common::stderr_of(&output).contains("pass --force"));
    assert!(output.stdout.is_empty(), "refused before reading the bank");
    assert_eq!(std::fs::read_to_string(&chart).unwrap(), "my own drawing");
    factory()
        .arg("stats")
        .arg(&out)
        .arg("--svg")
        .arg(&chart)
        .arg("--force")
        .assert()
        .success();
    assert!(std::fs::read_to_string(&chart).unwrap().starts_with("<svg"));

    // Regression: a missing bank or a file was "reading nosuch/manifest.json: No
    // such file or directory" (or "Not a directory").
    for (name, says) in [("nosuch", "does not exist"), ("mine.svg", "is a file")] {
        let output = factory()
            .current_dir(dir.path())
            .args(["stats", name])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        let stderr = crate::common::stderr_of(&output);
        assert!(
            stderr.contains(&format!(
                "{name} {says}, not a bank (a directory holding manifest.json"
            )),
            "{stderr}"
        );
    }

    // Regression: `--svg -` wrote the chart to a file named `-`.
    let output = factory()
        .current_dir(dir.path())
        .arg("stats")
        .arg(&out)
        .args(["--svg", "-"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(crate::common::stderr_of(&output).contains("--svg -: stats writes the chart to a file"));
    assert!(!dir.path().join("-").exists());
}

/// An interval log as the generator writes one (V2 deflate, base time, ns).
fn write_hlog(path: &std::path::Path, stage: &str, per_interval: &[u64]) {
    let mut log = Vec::new();
    let mut serializer = V2DeflateSerializer::new();
    let now = SystemTime::now();
    for (i, &n) in per_interval.iter().enumerate() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
        for k in 0..n {
            h.record(1_000 + k * 10).unwrap();
        }
        let mut builder = IntervalLogWriterBuilder::new();
        if i == 0 {
            builder.with_start_time(now).with_base_time(now);
        }
        builder
            .begin_log_with(&mut log, &mut serializer)
            .unwrap()
            .write_histogram(
                &h,
                Duration::from_secs(i as u64),
                Duration::from_secs(1),
                Tag::new(stage),
            )
            .unwrap();
    }
    std::fs::write(path, log).unwrap();
}

#[test]
fn stage_latencies_and_progress_come_from_the_histograms_dir() {
    let dir = tempfile::tempdir().unwrap();
    let out = bank(dir.path());
    let hist = out.join("histograms");
    std::fs::create_dir(&hist).unwrap();
    write_hlog(&hist.join("fill.hlog"), "fill", &[100, 300]);
    std::fs::write(
        hist.join("carve.hgrm"),
        "       Value     Percentile TotalCount 1/(1-Percentile)\n\n\
         \x20     5.000 0.500000000000         50           2.00\n\
         \x20     8.000 1.000000000000        100\n\
         #[Max     =        8.000, Total count    =          100]\n",
    )
    .unwrap();
    let svg_path = dir.path().join("chart.svg");
    let output = factory()
        .arg("stats")
        .arg(&out)
        .arg("--svg")
        .arg(&svg_path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let fill = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("fill "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(fill.split_whitespace().nth(1), Some("400"), "{fill}");
    let carve = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("carve "))
        .unwrap_or_else(|| panic!("{stdout}"));
    // 5 µs at p50 in the .hgrm, printed in µs.
    assert_eq!(carve.split_whitespace().nth(2), Some("5.0"), "{carve}");
    assert!(
        !out.join("stats.svg").exists(),
        "--svg replaces the default"
    );
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("Progress per stage"));
    // Two one-second intervals of 100 and 300 fills.
    assert!(svg.contains("fill: 400 in 2.0 s (200.0/s)"), "{svg}");
    assert!(svg.contains("<polyline"));
}

#[test]
fn latencies_are_read_from_a_real_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out).count(3000).variants(10).run();
    let run = factory().arg("stats").arg(&out).assert().success();
    let stdout = String::from_utf8(run.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("stage latencies"), "{stdout}");
    for stage in ["fill", "carve", "canon", "expand", "write"] {
        assert!(
            stdout.lines().any(|l| l.trim_start().starts_with(stage)),
            "{stage} missing:\n{stdout}"
        );
    }
    assert!(stdout.contains("distinct canonical forms: 300"), "{stdout}");
}

/// A rating-graded bank's bands come in its table's order, empty ones too, and an
/// unfinished bank is said to be one. Regressions: the rating table was read as clue
/// ranges (and dropped), and an incomplete bank's stats gave no warning.
#[test]
fn rating_bands_keep_their_table_and_an_unfinished_bank_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rated");
    common::generate(&out)
        .arg("--grade")
        .arg("rating")
        .arg("--bands")
        .arg("b=1.3-9.9,a=1.0-1.2")
        .count(20)
        .run();
    // A band no row is in, and the run marked unfinished (only params and the
    // flag change: the shards and their checksums stay valid).
    let manifest = out.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let edited = text
        .replace("b=1.3-9.9,a=1.0-1.2", "b=1.3-9.4,z=9.5-9.9,a=1.0-1.2")
        .replace("\"complete\": true", "\"complete\": false");
    assert_ne!(edited, text);
    std::fs::write(&manifest, edited).unwrap();
    let run = common::factory().arg("stats").arg(&out).assert().success();
    let output = run.get_output();
    let (stdout, stderr) = (
        crate::common::stdout_of(&output),
        crate::common::stderr_of(&output),
    );
    let bands: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("rows per band"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(bands, ["b", "z", "a"], "{stdout}");
    assert!(stderr.contains("is incomplete"), "{stderr}");
    assert!(stderr.contains("20 rows in 1 shard so far"), "{stderr}");
}

#[test]
fn a_shard_that_fails_its_checksum_is_named_and_exits_1() {
    // Regression: a shard rewritten with other rows (valid zstd, a checksum the
    // manifest does not list) was summarised without a word, exit 0.
    let dir = tempfile::tempdir().unwrap();
    let out = bank(dir.path());
    let manifest = std::fs::read(out.join("manifest.json")).unwrap();
    common::rewrite_shard(&out, "bank-00000.csv.zst", |lines| {
        lines[1] = lines[1]
            .replace(",easy,", ",hard,")
            .replace(",medium,", ",hard,");
    });
    std::fs::write(out.join("manifest.json"), manifest).unwrap();
    let run = factory().arg("stats").arg(&out).output().unwrap();
    let stderr = common::stderr_of(&run);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("bank-00000.csv.zst"), "{stderr}");
    assert!(stderr.contains("sudoku-factory verify"), "{stderr}");
    // The JSON names it too.
    let run = factory()
        .args(["stats", "--json"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let problems = json["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p.as_str().unwrap().contains("bank-00000.csv.zst")),
        "{json}"
    );
}

/// `stats --json` read back: every figure agrees with the bank as the csv crate
/// reads it, and the rating bins meet the bands' edges.
#[test]
fn stats_json_agrees_with_the_bank_and_its_bins_meet_the_band_edges() {
    let dir = tempfile::tempdir().unwrap();
    let out = generate(dir.path().join("rated"))
        .args(["--grade", "rating"])
        .count(200)
        .variants(2)
        .seed(3)
        .bank();
    let rows = read_bank(&out);
    let run = factory()
        .args(["stats", "--json"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", common::stderr_of(&run));
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let n = |v: &serde_json::Value| v.as_u64().unwrap();
    assert_eq!(n(&json["rows"]), rows.len() as u64);
    assert_eq!(json["complete"], true);
    assert_eq!(json["problems"].as_array().unwrap().len(), 0);
    // Bands in the table's order, each with its rows per rating.
    let names: Vec<&str> = json["bands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["easy", "medium", "hard", "diabolical", "extreme"]);
    let mut expected: BTreeMap<(String, String), u64> = BTreeMap::new();
    for row in &rows {
        *expected
            .entry((row.difficulty.clone(), row.rating.clone()))
            .or_default() += 1;
    }
    let mut stated: BTreeMap<(String, String), u64> = BTreeMap::new();
    for band in json["bands"].as_array().unwrap() {
        let name = band["name"].as_str().unwrap().to_string();
        let ratings = band["ratings"].as_array().unwrap();
        let sum: u64 = ratings.iter().map(|r| n(&r["rows"])).sum();
        assert_eq!(sum, n(&band["rows"]), "{name}");
        for r in ratings {
            let rating = format!("{:.1}", r["rating"].as_f64().unwrap());
            stated.insert((name.clone(), rating), n(&r["rows"]));
        }
    }
    assert_eq!(stated, expected);
    // Clue counts.
    let mut clues: BTreeMap<u64, u64> = BTreeMap::new();
    for row in &rows {
        *clues.entry(u64::from(row.clues)).or_default() += 1;
    }
    let stated: BTreeMap<u64, u64> = json["clues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (n(&c["clues"]), n(&c["rows"])))
        .collect();
    assert_eq!(stated, clues);
    // Bins: every rated row in one, none across an edge of the default table.
    let bins = json["rating_bins"].as_array().unwrap();
    let in_bins: u64 = bins.iter().map(|b| n(&b["rows"])).sum();
    assert_eq!(in_bins, n(&json["rated_rows"]));
    assert_eq!(in_bins, rows.len() as u64);
    for b in bins {
        let from = (b["from"].as_f64().unwrap() * 10.0).round() as u64;
        let to = b["to"]
            .as_f64()
            .map_or(u64::MAX, |t| (t * 10.0).round() as u64);
        for edge in [15, 25, 50, 70] {
            assert!(!(from < edge && edge <= to), "{b} straddles {edge}");
        }
    }
    assert_eq!(
        n(&json["distinct_canonical"]),
        100,
        "100 seeds, 2 variants each"
    );
    // The text report has the same table.
    let text = factory().arg("stats").arg(&out).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("ratings per band"), "{text}");
    assert!(text.contains("    1.5-1.9 "), "{text}");
}
