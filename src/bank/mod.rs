//! The bank format and everything that reads or writes a bank (DESIGN.md, "Bank
//! layout"): a directory of zstd-compressed CSV shards and a manifest.
//!
//! * [`format`](mod@format) — the format both sides share, no I/O: [`format::COLUMNS`] and
//!   [`format::HEADER`], the one row format [`format::format_row`], shard and
//!   manifest names, [`format::Manifest`] with its typed [`format::Params`], the frame
//!   layout of a run, [`format::canonical_key`] and the seed record
//!   [`format::SeedPuzzle`].
//! * [`sink`] — the write side: shards written atomically, the manifest, the one
//!   writer thread [`sink::write_frames`] of `generate` and `merge`, seed files and
//!   `merge`'s scratch files. The only module that creates, renames or deletes files
//!   under a bank directory.
//! * [`reader`] — the read side: the manifest, the checks of a bank a command reads
//!   whole ([`reader::check_complete`], [`reader::check_bands`]), and a streaming,
//!   checksumming shard row reader (re-exported here: `bank::read_manifest`,
//!   `bank::ShardReader`, ...).
//! * [`seeds`] — the seed files of a staged run (`--stage seeds`, `--stage expand`):
//!   names, manifest, chunk layout and encoding; no I/O (`sink` writes them, `reader`
//!   reads them).
//! * [`verify`] — the checks of `verify` as pure functions (manifest, shard, ids, rows).
//! * [`merge`] — combining banks of one size: dedup, a cap per canonical form, fresh
//!   ids, within a memory budget.
//! * [`import`] — anyone's puzzle files (text lines, a CSV or Parquet column) into a bank:
//!   solved, canonicalised, deduplicated, rated and graded, ids in input order.
//! * [`stats`] — summaries of a bank and their SVG chart, rendered in memory.
//! * [`export`] — `export`: the formats (the schema read from a header, the row
//!   filter, the SQLite table and statements, the JSON Lines and Kaggle encoders),
//!   the stream that reads the shards on a thread and writes the rows
//!   ([`export::stream`], [`export::export`]), the SQLite loader and the Parquet
//!   writer.

pub mod export;
pub mod format;
pub mod import;
pub mod merge;
pub mod reader;
pub mod seeds;
pub mod sink;
pub mod stats;
pub mod verify;

pub use reader::{
    digest_file, read_manifest, shard_files, BankError, Digest, Label, RecordReader, Row, RowError,
    ShardReader,
};
