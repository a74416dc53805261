//! sudoku-factory: banks of uniquely solvable, graded Sudoku puzzles.
//!
//! # Code map
//!
//! The crate is a library with a thin binary (`src/main.rs`), so that benches and
//! tests link the same code the command runs. Four layers, each a directory:
//!
//! * [`engine`] — the puzzle logic, pure, one engine for every size:
//!   [`engine::grid`] (sizes, text format), [`engine::nxn`] (the box `Shape` with its
//!   kernel hooks, the generic solver and canonical form, the symmetry group),
//!   [`engine::solve`] and [`engine::canon`] (the hand-tuned 9×9 kernels),
//!   [`engine::generate`] (fill and carve strategies, written once),
//!   [`engine::grade`] (bands by clues), [`engine::rating`] (the technique rating on
//!   the Sudoku Explainer scale), [`engine::board`] (the `Board` trait the pipeline uses).
//! * [`run`] — the main job: [`run::rng`] (one stream per item), [`run::seed`] (making
//!   one seed), [`run::pipeline`] (rayon wiring and ordering), [`run::timing`]
//!   (stage histograms).
//! * [`bank`] — the bank format and its readers and writers: [`bank::sink`] (params,
//!   row format, shards, manifest, the writer thread, seed files), [`bank::reader`],
//!   [`bank::seeds`] (the seed files of a staged run: format only),
//!   [`bank::verify`], [`bank::merge`], [`bank::stats`], [`bank::export`] (the export
//!   formats: schema, filter, encoders).
//! * [`bench`] — `bench`: every fill × carve combination measured on one budget
//!   (speed, latency, clues, bands, minimality, diversity), beside the `sudoku`
//!   crate's generator (`bench::peer`, feature `sudoku-peer`), and rendered; no I/O.
//! * [`render`] — puzzles for people: the selection of a book's puzzles, the page
//!   layout as a display list, its PDF, SVG and PNG writers, and the offline HTML play
//!   page ([`render::html`]); no I/O.
//! * [`cli`] — clap types, the only module that knows clap; [`cmd`] — one file per
//!   subcommand, the I/O edge; [`signals`] — on Ctrl-C, SIGTERM or SIGHUP, the
//!   unfinished temporary files registered with it are removed before the run ends.
//!
//! Each directory's `mod.rs` maps its own files.
//!
//! Architecture invariants:
//!
//! * The puzzle logic (`engine`, `run::seed`, `run::rng`) does no I/O, never sees a
//!   clap type, and draws randomness only from an `rng` it is handed.
//! * One engine: strategies, the symmetry group and the row format are written once
//!   over a `Shape`; the hand-tuned 9×9 kernels (`solve`, `canon`) plug in as
//!   `Box3`'s hooks, resolved at compile time, and depend on nothing but `grid` (and
//!   the one `Verdict` type), so other sizes cannot slow them down.
//! * Hot paths (solver, carve, transform, canonical form, row formatting) allocate
//!   nothing per puzzle and take no lock per row.
//! * `bank::reader`, `bank::verify` and `bank::stats` only read a bank; `verify` and
//!   `stats` do no I/O (their commands in `cmd` feed them rows and files).
//! * Only `bank::sink` creates, renames or deletes bank files (and merge's scratch
//!   files); a file under a final name is always complete. `signals` deletes only the
//!   temporary files and directories writers registered with it. `cmd` writes only the files
//!   a user names (`stats --svg`, `bench --out`, `export --to`, `render`'s outputs), and
//!   `export` and `render` each file under a temporary name renamed when complete.
//! * Output bytes depend only on the options and `--seed`, never on `--threads`.
//!
//! `tests/tidy.rs` checks these invariants on the source: I/O and printing only in
//! `main`, `cmd`, `signals`, `bank::sink` and `bank::reader`; no mutable global state in the
//! puzzle logic; every `#[ignore]` with a reason; every module in a code map.

pub mod bank;
pub mod bench;
pub mod cli;
pub mod cmd;
pub mod engine;
pub mod render;
pub mod run;
pub mod signals;
