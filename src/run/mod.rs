//! Running the main job: which work happens where and in what order.
//!
//! * [`rng`] — one PCG stream per (seed, purpose, item): the determinism contract.
//! * [`seed`] — making one seed of a run: fill, carve into its band, retry, then the
//!   canonical form.
//! * [`plan`] — a run's plan on both sides of the manifest: the job a command line or
//!   a manifest describes, the `params` that rebuild it, whether it can be fulfilled
//!   at all (the 4×4 census, symmetric clue counts), where a resumed run starts.
//! * [`pipeline`] — rayon wiring and ordering: seed batches, deduplication,
//!   expansion, blocks of rows to the writer. No puzzle logic.
//! * [`timing`] — one HdrHistogram per stage, recorded by the thread that consumes
//!   the workers' results (no lock, no atomic), rendered as `.hgrm`/`.hlog`.

pub mod pipeline;
pub mod plan;
pub mod rng;
pub mod seed;
pub mod timing;
