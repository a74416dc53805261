//! Running the main job: which work happens where and in what order.
//!
//! * [`rng`] — one PCG stream per (seed, purpose, item): the determinism contract.
//! * [`seed`] — making one seed of a run: fill, carve into its band, retry, then the
//!   canonical form.
//! * [`pipeline`] — rayon wiring and ordering: seed batches, deduplication,
//!   expansion, blocks of rows to the writer. No puzzle logic.
//! * [`timing`] — one HdrHistogram per stage, recorded by the thread that consumes
//!   the workers' results (no lock, no atomic), rendered as `.hgrm`/`.hlog`.

pub mod pipeline;
pub mod rng;
pub mod seed;
pub mod timing;
