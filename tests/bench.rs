//! `bench`: one row per fill × carve combination on stdout, the CSV/JSON/SVG files,
//! and the diversity figures that tell the strategies apart.

mod common;

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
