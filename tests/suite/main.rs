//! The integration tests, as one test binary: one release link instead of one per
//! file, which was the largest part of CI's time (25 links). Each module is what was
//! a file of its own (`cargo test --test suite golden::` runs one of them), and they
//! share the helpers of [`common`] (running the binary, reading a bank, the message
//! helpers).

mod common;

mod bench;
mod calibrate_rating;
mod cluster;
mod expand;
mod export;
mod generate;
mod golden;
mod grade;
mod hints;
mod histograms;
mod import;
mod laws;
mod licences;
mod merge;
mod pipes;
mod play_page;
mod rating_columns;
mod render;
mod resume;
mod sizes;
mod solve;
mod staged;
mod stats;
mod strategies;
mod symmetry;
mod tidy;
mod verify;
mod workers;
