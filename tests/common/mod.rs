//! Helpers shared by the integration tests: run the binary, read a bank back.
#![allow(dead_code)]

use std::path::Path;

use assert_cmd::Command;

/// The binary under test.
pub fn factory() -> Command {
    Command::cargo_bin("sudoku-factory").expect("the binary is built by cargo test")
}

/// One CSV row of a bank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub id: u64,
    pub puzzle: String,
    pub solution: String,
    pub clues: u16,
    pub difficulty: String,
    pub canonical: String,
}

/// Reads every shard of the bank in `dir`, in shard order, with the zstd and csv
/// crates (not with our own code), checking the header of each.
pub fn read_bank(dir: &Path) -> Vec<Row> {
    let mut shards: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".csv.zst"))
        .collect();
    shards.sort();
    let mut rows = Vec::new();
    for shard in shards {
        let bytes = zstd::decode_all(std::fs::File::open(&shard).unwrap()).unwrap();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        assert_eq!(
            reader.headers().unwrap(),
            vec![
                "id",
                "puzzle",
                "solution",
                "clues",
                "difficulty",
                "canonical"
            ]
        );
        for rec in reader.records() {
            let rec = rec.unwrap();
            rows.push(Row {
                id: rec[0].parse().unwrap(),
                puzzle: rec[1].to_string(),
                solution: rec[2].to_string(),
                clues: rec[3].parse().unwrap(),
                difficulty: rec[4].to_string(),
                canonical: rec[5].to_string(),
            });
        }
    }
    rows
}

/// Every file name in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
