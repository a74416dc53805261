//! sudoku-factory: banks of uniquely solvable, graded Sudoku puzzles.
//!
//! # Code map
//!
//! The crate is a library with a thin binary (`src/main.rs`), so that benches and
//! tests link the same code the command runs. Modules follow the pipeline:
//!
//! * [`grid`] — the 9×9 board (`[u8; 81]`, 0 = empty), the sizes, and the one-line
//!   text format of every size.
//! * [`nxn`] — the engine for the other sizes (4×4, 16×16, 25×25): solver, fill,
//!   carve, symmetry group and canonical form over a `Shape`, so the 9×9 path keeps
//!   its hand-tuned code.
//! * [`solve`] — the counting solver (digit bitboards, singles, MRV branching) and the
//!   carve step's uniqueness test. The hot loop of everything.
//! * [`generate`] — making a seed: [`generate::fill`] strategies build complete grids,
//!   [`generate::carve`] strategies remove clues while the solution stays unique.
//! * [`transform`] — the Sudoku symmetry group as a value type (expansion).
//! * [`canon`] — the exact pattern-first canonical form (deduplication, the
//!   `canonical` column).
//! * [`grade`] — difficulty bands by clue count.
//! * [`rating`] — the technique rating on the Sudoku Explainer scale: a logical
//!   solver applying the easiest technique at each step (singles to dynamic forcing
//!   chains); the puzzle's rating is its hardest step. No I/O, no allocation per step.
//! * [`rng`] — one PCG stream per (seed, purpose, item): the determinism contract.
//! * [`board`] — the `Board` trait: what the pipeline, `bench` and the commands need
//!   from a size, implemented by the 9×9 fast path (`Nine`) and the `nxn` engine
//!   (`Nxn<S>`). Code over `B: Board` is monomorphised, so the 9×9 path pays nothing.
//! * [`pipeline`] — rayon wiring and ordering: seeds, deduplication, expansion,
//!   blocks of rows to the writer thread. No puzzle logic.
//! * [`timing`] — one HdrHistogram per pipeline stage, recorded by the thread that
//!   consumes the workers' results (no lock, no atomic), rendered as `.hgrm`/`.hlog`.
//! * [`sink`] — shards and manifest: the only place that writes bank files.
//! * [`bank`] — reading a bank back: the manifest and a streaming shard row reader.
//! * [`verify`] — the checks of `verify` as pure functions (manifest, shard, ids, rows).
//! * [`merge`] — combining banks (the workers of one run, or different runs): dedup,
//!   a cap per canonical form, fresh ids, within a memory budget (spilling partitions
//!   to `sink`'s hidden scratch directory under OUT).
//! * [`stats`] — summaries of a bank (bands, clue counts, canonical forms, stage
//!   latencies from `OUT/histograms/`) and their SVG chart, rendered in memory.
//! * [`benchmark`] — `bench`: every fill × carve combination measured on one budget
//!   (speed, latency, clues, bands, minimality, diversity), carved to the end or per
//!   difficulty band beside the `sudoku` crate's generator (`benchmark::peer`,
//!   feature `sudoku-peer`), and rendered; no I/O.
//! * [`cli`] — clap types, the only module that knows clap; [`cmd`] — one file per
//!   subcommand, the I/O edge.
//!
//! Architecture invariants:
//!
//! * The puzzle logic (`grid`, `solve`, `generate`, `transform`, `canon`, `grade`,
//!   `nxn`) does no I/O, never sees a clap type, and draws randomness only from an
//!   `rng` it is handed.
//! * The 9×9 code never depends on `nxn` or `board`: other sizes were added beside it,
//!   so its speed cannot regress through them.
//! * Hot paths (solver, carve, transform, canonical form, row formatting) allocate
//!   nothing per puzzle and take no lock per row.
//! * `bank`, `verify` and `stats` only read a bank; `verify` and `stats` do no I/O
//!   (their commands in `cmd` feed them rows and files).
//! * Only `sink` creates, renames or deletes bank files (and merge's scratch files);
//!   a file under a final name is always complete.
//!
//! `tests/tidy.rs` checks these invariants on the source: I/O and printing only in
//! `main`, `cmd`, `sink` and `bank`; no mutable global state in the puzzle logic;
//! every `#[ignore]` with a reason; every module in this code map.
//! * Output bytes depend only on the options and `--seed`, never on `--threads`.

pub mod bank;
pub mod benchmark;
pub mod board;
pub mod canon;
pub mod cli;
pub mod cmd;
pub mod generate;
pub mod grade;
pub mod grid;
pub mod merge;
pub mod nxn;
pub mod pipeline;
pub mod rating;
pub mod rng;
pub mod sink;
pub mod solve;
pub mod stats;
pub mod timing;
pub mod transform;
pub mod verify;
