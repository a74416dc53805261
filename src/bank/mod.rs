//! The bank format and everything that reads or writes a bank (DESIGN.md, "Bank
//! layout"): a directory of zstd-compressed CSV shards and a manifest.
//!
//! * [`sink`] — the write side and the format: [`sink::Params`] (the manifest's typed
//!   parameters), the one row format [`sink::format_row`], shards written atomically,
//!   the manifest, the one writer thread [`sink::write_frames`] of `generate` and
//!   `merge`, and `merge`'s scratch files. The only module that creates, renames or
//!   deletes files under a bank directory.
//! * [`reader`] — the read side: the manifest and a streaming, checksumming shard row
//!   reader (re-exported here: `bank::read_manifest`, `bank::ShardReader`, ...).
//! * [`seeds`] — the seed files of a staged run (`--stage seeds`, `--stage expand`):
//!   names, manifest, chunk layout and encoding; no I/O (`sink` writes them, `reader`
//!   reads them).
//! * [`verify`] — the checks of `verify` as pure functions (manifest, shard, ids, rows).
//! * [`merge`] — combining banks of one size: dedup, a cap per canonical form, fresh
//!   ids, within a memory budget.
//! * [`stats`] — summaries of a bank and their SVG chart, rendered in memory.
//! * [`export`] — `export`'s formats without I/O: the schema read from a header, the
//!   row filter, the SQLite table and statements, the JSON Lines and Kaggle encoders.

pub mod export;
pub mod merge;
pub mod reader;
pub mod seeds;
pub mod sink;
pub mod stats;
pub mod verify;

pub use reader::{
    digest_file, read_manifest, shard_files, BankError, Digest, Label, RecordReader, Row, RowError,
    ShardReader, COLUMNS,
};
