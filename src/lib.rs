//! sudoku-factory: banks of uniquely solvable, graded Sudoku puzzles.
//!
//! # Code map
//!
//! The crate is a library with a thin binary (`src/main.rs`), so that benches and
//! tests link the same code the command runs. Layers, each a directory, imports
//! pointing down only (`util` ← `engine` ← `bank` ← `run` ← `cmd`):
//!
//! * [`util`] — what every layer may use and which uses nothing of the crate:
//!   [`util::output`] (the one atomic writer: temporary twin, fsync, rename, and the
//!   refusals every named output shares), [`util::text`] (`counted`, [`say!`]),
//!   [`util::signals`] (on Ctrl-C, SIGTERM or SIGHUP the unfinished temporary files
//!   registered with it are removed before the run ends).
//! * [`engine`] — the puzzle logic, pure, one engine for every size:
//!   [`engine::grid`] (sizes, text format, the input checks), [`engine::nxn`] (the box
//!   `Shape` with its kernel hooks, the generic solver and canonical form, the
//!   symmetry group), [`engine::nxn::solve::nine`] and [`engine::nxn::canon::nine`] (the hand-tuned 9×9
//!   kernels `Box3` plugs in), [`engine::generate`] (fill and carve strategies),
//!   [`engine::bands`] (**the band tables**: clue ranges, or rating ranges),
//!   [`engine::rating`] (the technique rating on the Sudoku Explainer scale),
//!   [`engine::board`] (the `Board` trait the pipeline uses).
//! * [`bank`] — the bank on disk. [`bank::format`] is **the format**: the columns
//!   (`COLUMNS`, `HEADER`) and the one row formatter, shard and manifest names, the
//!   typed `Manifest` and `Params`, the frame layout, the canonical key, the seed
//!   record; writers and readers depend on it, never on each other. [`bank::sink`]
//!   writes bank files (shards, manifest, seed files, merge's scratch), [`bank::reader`]
//!   reads them and checks a bank is complete before a command reads it whole
//!   (`check_complete`), [`bank::seeds`] encodes stage-1 seed files, and
//!   [`bank::verify`], [`bank::merge`], [`bank::stats`], [`bank::export`] are the
//!   library of those commands.
//! * [`run`] — the main job: [`run::rng`] (one stream per item), [`run::seed`] (making
//!   one seed), [`run::pipeline`] (rayon wiring and ordering), [`run::timing`]
//!   (stage histograms).
//! * [`render`] — puzzles for people: selection, page layout as a display list, its
//!   PDF, SVG and PNG writers, the offline HTML play page; no I/O.
//! * [`bench`](mod@bench) — `bench`: every fill × carve combination measured on one budget,
//!   beside the `sudoku` crate's generator (`bench::peer`, feature `sudoku-peer`).
//! * [`cli`] — clap types, the only module that knows clap; [`cmd`] — **one file per
//!   subcommand** (`cmd/export.rs` is `sudoku-factory export`), the I/O edge: arguments
//!   in, one library call, a report out. Only `main` imports `cmd`, and no command
//!   imports another (shared edge helpers live in `cmd/mod.rs`).
//!
//! Each directory's `mod.rs` maps its own files. Where to find things: a column →
//! `bank::format`; a band table → `engine::bands`; how an output file is written →
//! `util::output`; a subcommand → `cmd/NAME.rs` and its arguments in `cli.rs`.
//!
//! Architecture invariants:
//!
//! * Imports point down: `engine` imports only `engine`, `util` only `util`, `bank`
//!   `engine` and `util`, `run` those and `bank`, `render` `engine` and `util`.
//!   Within a layer, no files of one directory import each other in a circle: what
//!   two share lives in a third below both (the rater is picked by `board`, above
//!   both `nxn` and `rating`).
//! * The puzzle logic (`engine`, `run::seed`, `run::rng`) does no I/O, never sees a
//!   clap type, and draws randomness only from an `rng` it is handed.
//! * One engine: strategies, the symmetry group and the row format are written once
//!   over a `Shape`; the hand-tuned 9×9 kernels (`solve::nine`, `canon::nine`) plug in as
//!   `Box3`'s hooks, resolved at compile time, and depend on nothing but `grid` (and
//!   the one `Verdict` type), so other sizes cannot slow them down.
//! * Hot paths (solver, carve, transform, canonical form, row formatting, the input
//!   checks) allocate nothing per puzzle and take no lock per row.
//! * Only `bank::sink` creates, renames or deletes bank files (and merge's scratch
//!   files); every other file is written through `util::output`, under a temporary
//!   name renamed when complete: a file under a final name is always complete.
//!   `signals` deletes only the temporary files writers registered with it.
//! * Output bytes depend only on the options and `--seed`, never on `--threads`.
//!
//! `tests/suite/tidy.rs` checks these invariants on the source: the import directions
//! (naming the offending line) and the absence of circles; I/O and printing only in
//! `main`, `cmd`, `util`, `bank::sink` and `bank::reader`; no mutable global state in
//! the puzzle logic; every `#[ignore]` with a reason; every module in a code map.
//!
//! These docs link private items too: read them with `cargo doc --document-private-items
//! --open`.

// The architecture docs name private items on purpose (see above).
#![allow(rustdoc::private_intra_doc_links)]

pub mod bank;
pub mod bench;
pub mod cli;
pub mod cmd;
pub mod engine;
pub mod render;
pub mod run;
pub mod util;
