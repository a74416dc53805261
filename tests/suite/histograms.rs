//! Stage histograms: files in HdrHistogram's own formats that another implementation
//! reads (the Python `hdrhistogram` package, through scripts/check-hlog.py), with
//! counts that add up to the rows written; and the stage table on stderr.

use crate::common;

use std::process::Command;

use common::{generate, listing};

#[test]
fn hlog_files_decode_independently_and_count_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out)
        .count(20_000)
        .variants(50)
        .shard_rows(4000)
        .loud()
        .run()
        .stderr(predicates::str::contains("p99 µs"))
        .stderr(predicates::str::contains("carve"));
    let names = listing(&out.join("histograms"));
    for stage in ["fill", "carve", "canon", "expand", "write"] {
        assert!(
            names.contains(&format!("{stage}.hgrm")),
            "{stage}.hgrm missing"
        );
        assert!(
            names.contains(&format!("{stage}.hlog")),
            "{stage}.hlog missing"
        );
    }
    let hgrm = std::fs::read_to_string(out.join("histograms/write.hgrm")).unwrap();
    assert!(hgrm.contains("Total count    =        20000"), "{hgrm}");
    // `expand` keeps one value per block as measured (issue #11: it recorded a
    // block's average once per row, so p50 = p99 = max).
    let hgrm = std::fs::read_to_string(out.join("histograms/expand.hgrm")).unwrap();
    let blocks: u64 = crate::common::value_after(&hgrm, "Total count    =", ']')
        .expect("the .hgrm footer has a total count");
    assert!(blocks > 1 && blocks < 20000, "{hgrm}");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/check-hlog.py");
    let run = Command::new("python3")
        .arg(script)
        .arg(&out)
        .output()
        .expect("python3 runs");
    let stdout = crate::common::stdout_of(&run);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        crate::common::stderr_of(&run)
    );
    assert!(stdout.contains("write   intervals="), "{stdout}");
    assert!(stdout.contains("count=20000"), "{stdout}");
    // The script can fail: claim a different row count and it must say so.
    let wrong = Command::new("python3")
        .arg(script)
        .arg(&out)
        .args(["--rows", "19999"])
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(1));
}

#[test]
fn no_histograms_means_no_histogram_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out).count(50).arg("--no-histograms").run();
    assert_eq!(listing(&out), ["bank-00000.csv.zst", "manifest.json"]);
}
