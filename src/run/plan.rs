//! A run's plan on both sides of the manifest: the [`Job`] a command line or a
//! manifest describes, the manifest `params` that rebuild it exactly
//! (`generate --resume`, stage 2 of a staged run), whether a plan can be fulfilled at
//! all before any work starts ([`check_feasible`]: the 4×4 census, symmetric clue
//! counts, fills unsuited to a size), and where a resumed run starts
//! ([`resume_point`]). `cmd::generate` turns arguments into a [`Job`] and reports;
//! the rules live here, with their tests.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::bank::format::{self, canonical_key, key_set, KeySet, Manifest, Params};
use crate::bank::reader::SeedFiles;
use crate::bank::seeds::SeedFileError;
use crate::bank::{BankError, ShardReader};
use crate::engine::bands::{BandTable, Scale};
use crate::engine::board::Board;
use crate::engine::generate::{Carve, Fill, Symmetry};
use crate::engine::grid::Size;
use crate::engine::nxn::census::{census4, CensusQuery};
use crate::run::pipeline::{Output, Plan, Start};
use crate::run::seed::starts_digest;
use crate::util::text::counted;

/// Why a plan cannot run.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The options ask for what cannot exist (says which option to change).
    #[error("{0}")]
    Infeasible(String),
    /// A manifest does not describe a run this build can rebuild or resume.
    #[error("{0}")]
    Manifest(String),
    #[error(transparent)]
    SeedFiles(SeedFileError),
    #[error(transparent)]
    Bank(#[from] BankError),
}

/// Everything a run needs, whether from the command line or from a manifest.
pub struct Job {
    pub plan: Plan,
    pub output: Output,
    pub dir: PathBuf,
    /// Stage 2 of a staged run: the directory of stage 1's seed files.
    pub seeds: Option<PathBuf>,
    /// `--from`: the file of puzzles the climbs start from (read into `plan.starts`).
    pub from: Option<PathBuf>,
}

impl Job {
    /// The manifest's `params`: enough to rebuild this job exactly.
    pub fn params(&self) -> Params {
        let p = &self.plan;
        let selected: Vec<&str> = p
            .selected
            .iter()
            .map(|&i| p.bands.bands()[i].name.as_str())
            .collect();
        Params {
            size: p.size.side() as u64,
            count: Some(p.count),
            seed: Some(p.seed),
            variants: p.variants,
            fill: Some(p.fill.name().to_string()),
            carve: Some(p.carve.name().to_string()),
            symmetry: p.symmetry.name().to_string(),
            bands: Some(p.bands.to_string()),
            difficulty: Some(selected.join(",")),
            grade: (p.bands.scale() == Scale::Rating).then(|| Scale::Rating.name().to_string()),
            max_attempts: Some(p.max_attempts),
            shard_rows: self.output.shard_rows,
            bank_shard_rows: (self.output.bank_shard_rows != self.output.shard_rows)
                .then_some(self.output.bank_shard_rows),
            zstd_level: self.output.zstd_level,
            seed_batch: Some(format::SEED_BATCH),
            workers: self.output.workers,
            worker: self.output.worker,
            seeds: self.seeds.as_ref().map(|d| d.display().to_string()),
            merge: None,
            import: None,
            from: self.from.as_ref().map(|f| f.display().to_string()),
            from_digest: self.from.as_ref().map(|_| starts_digest(&p.starts)),
            rating: p.rate,
        }
    }

    /// Rebuilds the job a manifest was written for.
    pub fn from_manifest(dir: &Path, m: &Manifest) -> Result<Job, PlanError> {
        Job::from_params(dir, &m.version, &m.params, format::MANIFEST)
    }

    /// Rebuilds the job of `params`, read from the manifest `label` in `dir`, written
    /// by sudoku-factory `version`.
    pub fn from_params(
        dir: &Path,
        version: &str,
        p: &Params,
        label: &str,
    ) -> Result<Job, PlanError> {
        if version != env!("CARGO_PKG_VERSION") {
            return Err(PlanError::Manifest(format!(
                "{} was written by sudoku-factory {}, this is {}; resume it with that version",
                dir.display(),
                version,
                env!("CARGO_PKG_VERSION")
            )));
        }
        // A merged bank has no generation params: it cannot be resumed (regression: it
        // was refused as "params.seed_batch is missing").
        if p.merge.is_some() {
            return Err(PlanError::Manifest(format!(
                "{} was written by merge, not generate: a merge does not resume; run the same merge again with --force",
                dir.display()
            )));
        }
        // The climbs of a --from run draw on its file: the caller reads it again and
        // checks it against the digest, which builds before 0.4.14 did not record.
        if let (Some(from), None) = (&p.from, &p.from_digest) {
            return Err(PlanError::Manifest(format!(
                "{} was made with --from {from} by a build that did not record the file's digest, so it does not resume: run it again with --force",
                dir.display()
            )));
        }
        fn need<T>(value: Option<T>, label: &str, key: &str) -> Result<T, PlanError> {
            value.ok_or_else(|| PlanError::Manifest(format!("{label}: params.{key} is missing")))
        }
        let text = |value: &Option<String>, key: &str| {
            need(value.as_deref().map(str::to_string), label, key)
        };
        let bad = |what: String| {
            move |e: &dyn std::fmt::Display| PlanError::Manifest(format!("{what}: {e}"))
        };
        if p.import.is_some() {
            return Err(PlanError::Manifest(format!(
                "{} was written by import, not generate: an import does not resume; run the same import again with --force",
                dir.display()
            )));
        }
        // What the run divides by: a hand-edited 0 would be a division by zero.
        let max_attempts = need(p.max_attempts, label, "max_attempts")?;
        for (key, value) in [
            ("variants", u64::from(p.variants)),
            ("shard_rows", p.shard_rows),
            ("bank_shard_rows", p.bank_shard_rows.unwrap_or(p.shard_rows)),
            ("workers", p.workers),
            ("max_attempts", u64::from(max_attempts)),
        ] {
            if value == 0 {
                return Err(PlanError::Manifest(format!(
                    "{label}: params.{key} is 0; it is at least 1 in a manifest generate writes"
                )));
            }
        }
        if p.worker >= p.workers {
            return Err(PlanError::Manifest(format!(
                "{label}: params.worker is {}, but params.workers is {}: workers are numbered from 0",
                p.worker, p.workers
            )));
        }
        if need(p.seed_batch, label, "seed_batch")? != format::SEED_BATCH {
            return Err(PlanError::Manifest(format!("{label}: params.seed_batch differs from this build's; the run cannot be resumed exactly")));
        }
        let size = p
            .board_size()
            .map_err(|e| PlanError::Manifest(format!("{label}: params.{e}")))?;
        let scale = p
            .scale()
            .map_err(|e| PlanError::Manifest(format!("{label}: params.{e}")))?;
        let bands = BandTable::parse_scaled(&text(&p.bands, "bands")?, size, scale)
            .map_err(|e| bad(format!("{label}: params.bands"))(&e))?;
        let selected = bands
            .select(&text(&p.difficulty, "difficulty")?)
            .map_err(|e| bad(format!("{label}: params.difficulty"))(&e))?;
        let fill_name = text(&p.fill, "fill")?;
        let fill_name = fill_name.as_str();
        let fill = Fill::from_name(fill_name).ok_or_else(|| {
            PlanError::Manifest(format!("{label}: unknown fill strategy {fill_name:?}"))
        })?;
        let carve_name = text(&p.carve, "carve")?;
        let carve_name = carve_name.as_str();
        let carve = Carve::from_name(carve_name).ok_or_else(|| {
            PlanError::Manifest(format!("{label}: unknown carve strategy {carve_name:?}"))
        })?;
        let symmetry_name = p.symmetry.as_str();
        let symmetry = Symmetry::from_name(symmetry_name).ok_or_else(|| {
            PlanError::Manifest(format!("{label}: unknown symmetry {symmetry_name:?}"))
        })?;
        Ok(Job {
            plan: Plan {
                size,
                count: need(p.count, label, "count")?,
                seed: need(p.seed, label, "seed")?,
                variants: p.variants,
                fill,
                carve,
                symmetry,
                bands,
                selected,
                max_attempts,
                rate: p.rating,
                starts: Arc::from([]),
            },
            output: Output {
                shard_rows: p.shard_rows,
                bank_shard_rows: p.bank_shard_rows.unwrap_or(p.shard_rows),
                zstd_level: p.zstd_level,
                workers: p.workers,
                worker: p.worker,
            },
            dir: dir.to_path_buf(),
            seeds: p.seeds.as_ref().map(PathBuf::from),
            from: p.from.as_ref().map(PathBuf::from),
        })
    }

    /// Seeds of the whole run.
    pub fn n_seeds(&self) -> u64 {
        self.plan.count.div_ceil(u64::from(self.plan.variants))
    }

    /// Opens and checks stage 1's seed files, for stage 2 (`None` for a whole run).
    pub fn seed_files(&self) -> Result<Option<SeedFiles>, PlanError> {
        let Some(dir) = &self.seeds else {
            return Ok(None);
        };
        let files = SeedFiles::open(
            dir,
            &self.params(),
            self.n_seeds(),
            self.plan.size.side().pow(2),
            &|seeds| self.writes_rows_of(seeds),
        )
        .map_err(PlanError::SeedFiles)?;
        Ok(Some(files))
    }

    /// True when this worker writes rows of a seed of `seeds` (a variant of one
    /// falls in one of its shards): of the other seeds, stage 2 needs only the
    /// metadata. Asked once per chunk of seeds, in constant time: the seeds' ids are
    /// one range, and a range of shards at least as long as the worker count holds
    /// one of every worker's.
    pub fn writes_rows_of(&self, seeds: std::ops::Range<u64>) -> bool {
        let (plan, output) = (&self.plan, &self.output);
        let k = u64::from(plan.variants);
        let (first, end) = (seeds.start * k, plan.count.min(seeds.end * k));
        if first >= end {
            return false;
        }
        let (a, b) = (first / output.shard_rows, (end - 1) / output.shard_rows);
        b - a + 1 >= output.workers || (a..=b).any(|s| output.owns(s))
    }
}

/// Refuses, before any work, what a board size cannot deliver: a fill strategy that
/// cannot finish on it, and on 4×4 (where every puzzle is known, [`census4`]) more
/// essentially different seeds than exist in a band, or more variants per seed than
/// some puzzle of the band has.
pub fn check_feasible(plan: &Plan) -> Result<(), PlanError> {
    if let Some(reason) = crate::engine::generate::fill::unsuitable(plan.fill, plan.size) {
        return Err(PlanError::Infeasible(format!(
            "--fill {} on {} boards: {reason}",
            plan.fill.name(),
            plan.size
        )));
    }
    // A symmetric pattern is a union of orbits: rot90 cannot make 30 clues on 9x9.
    if plan.symmetry != Symmetry::None && plan.bands.scale() == Scale::Clues {
        let n = plan.size.side();
        for &i in &plan.selected {
            let band = &plan.bands.bands()[i];
            let top = usize::from(band.hi).min(n * n);
            if !(usize::from(band.lo)..=top).any(|c| plan.symmetry.can_have(n, c)) {
                return Err(PlanError::Infeasible(format!(
                    "no {}-symmetric {} pattern has {}-{top} clues (band {}): its clues come in orbits; choose another band with --difficulty or --bands, or another --symmetry",
                    plan.symmetry.name(),
                    plan.size,
                    band.lo,
                    band.name
                )));
            }
        }
    }
    if plan.size != Size::Four {
        return Ok(());
    }
    let census = census4();
    let k = u64::from(plan.variants);
    let n_seeds = plan.count.div_ceil(k);
    let n_selected = plan.selected.len() as u64;
    let table = plan.bands.bands();
    for (pos, &i) in plan.selected.iter().enumerate() {
        let band = &table[i];
        // Seed j goes to band selected[j % n_selected], within the band's own range
        // (`BandTable::accepts`: the top band takes no puzzle above it either).
        let wanted = n_seeds / n_selected + u64::from((pos as u64) < n_seeds % n_selected);
        let hi = band.hi;
        let query = CensusQuery {
            clues: band.lo..=hi,
            minimal_only: plan.carve == Carve::Minimal,
            symmetry: plan.symmetry,
        };
        let kind = match (plan.carve == Carve::Minimal, plan.symmetry) {
            (false, Symmetry::None) => String::new(),
            (true, Symmetry::None) => " minimal".to_string(),
            (false, s) => format!(" {}-symmetric", s.name()),
            (true, s) => format!(" minimal {}-symmetric", s.name()),
        };
        let exist = census.count(&query) as u64;
        if exist == 0 {
            return Err(PlanError::Infeasible(format!(
                "no{kind} 4x4 puzzle with {}-{hi} clues exists (band {}): choose another band with --difficulty{}",
                band.lo,
                band.name,
                match (plan.carve == Carve::Minimal, plan.symmetry) {
                    (false, Symmetry::None) => "",
                    (true, Symmetry::None) => ", or another --carve",
                    (false, _) => ", or another --symmetry",
                    (true, _) => ", or another --carve or --symmetry",
                }
            )));
        }
        if wanted > exist {
            return Err(PlanError::Infeasible(format!(
                "only {exist} essentially different{kind} 4x4 puzzles with {}-{hi} clues exist (band {}), \
                 but --count {} at --variants {k} needs {} there; \
                 raise --variants (each seed gives that many symmetric variants) or ask for fewer puzzles",
                band.lo,
                band.name,
                plan.count,
                counted(wanted, "distinct seed"),
            )));
        }
        // Only then: with a symmetry this enumerates each matching class (< 1 s).
        let fewest = if k > 1 {
            census.min_variants(&query)
        } else {
            None
        };
        if let Some(fewest) = fewest.filter(|&fewest| k > fewest as u64) {
            let kept = if plan.symmetry == Symmetry::None {
                String::new()
            } else {
                format!(" that keep its {} symmetry", plan.symmetry.name())
            };
            return Err(PlanError::Infeasible(format!(
                "--variants {k} is more than some{kind} 4x4 puzzles with {}-{hi} clues (band {}) have: \
                 as few as {fewest} distinct puzzles{kept} are equivalent to one of them; use --variants {fewest} or fewer",
                band.lo,
                band.name,
            )));
        }
    }
    Ok(())
}

/// Where a resumed run starts, and the dedup state of the seed batches before it,
/// rebuilt from the `canonical` column of the complete shards (variant 0 of each seed).
/// A worker's earlier seeds are in other workers' shards: it recomputes them instead.
pub fn resume_point(job: &Job, manifest: &Manifest) -> Result<Start, PlanError> {
    let out = &job.output;
    let n_shards = job.plan.count.div_ceil(out.shard_rows);
    let mut owned = (0..n_shards).filter(|&s| out.owns(s));
    for listed in &manifest.shards {
        let expected = owned.next().map(format::shard_name);
        if expected.as_deref() != Some(listed.file.as_str()) {
            return Err(PlanError::Manifest(format!(
                "manifest.json lists {} where {} was expected; it was not written by a run that can be resumed",
                listed.file,
                expected.unwrap_or_else(|| "no further shard".into())
            )));
        }
    }
    let id = owned.next().map_or(job.plan.count, |s| s * out.shard_rows);
    // A worker's earlier seeds are elsewhere; stage 2 re-reads them from the seed
    // files (cheap) rather than from the shards.
    if out.workers > 1 || job.seeds.is_some() {
        return Ok(Start { id, seen: None });
    }
    let below = format::batch_start_id(id, job.plan.variants);
    let seen = crate::with_board!(job.plan.size, B => seen_below::<B>(job, manifest, below))?;
    Ok(Start {
        id,
        seen: Some(seen),
    })
}

/// The canonical keys of the seeds (variant 0 rows) below id `below`, read back from
/// the complete shards of a bank of boards `B`.
fn seen_below<B: Board>(job: &Job, manifest: &Manifest, below: u64) -> Result<KeySet, PlanError> {
    let k = u64::from(job.plan.variants);
    let mut seen = key_set(0);
    for shard in manifest.shards.iter().filter(|s| s.first_id < below) {
        let mut reader = ShardReader::open(&job.dir.join(&shard.file))?;
        reader.read_header()?;
        while let Some(row) = reader.next_row_of(B::SIZE, B::empty()) {
            let row = row?.map_err(|e| PlanError::Manifest(format!("{}: {e}", shard.file)))?;
            if row.id >= below {
                break;
            }
            if row.id % k == 0 {
                let canonical = row.canonical.ok_or_else(|| {
                    PlanError::Manifest(format!(
                        "{}: row {} has no canonical form",
                        shard.file, row.id
                    ))
                })?;
                seen.insert(canonical_key(canonical.as_ref()));
            }
        }
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `--from` run read back from its manifest names its file (for the caller to
    /// read and check against the digest); one written without the digest is
    /// refused, saying why.
    #[test]
    fn a_from_run_resumes_only_with_the_digest_of_its_file() {
        let mut params = job(Size::Nine, 10, 1, "easy=36-40", "any").params();
        params.from = Some("hard.txt".to_string());
        let version = env!("CARGO_PKG_VERSION");
        let err = Job::from_params(Path::new("bank"), version, &params, "m")
            .err()
            .expect("refused");
        assert!(
            err.to_string()
                .contains("--from hard.txt by a build that did not record the file's digest"),
            "{err}"
        );
        params.from_digest = Some("0".repeat(32));
        let job = Job::from_params(Path::new("bank"), version, &params, "m").unwrap();
        assert_eq!(job.from, Some(PathBuf::from("hard.txt")));
        assert!(job.plan.starts.is_empty(), "the caller reads the file");
    }

    fn job(size: Size, count: u64, variants: u32, bands: &str, difficulty: &str) -> Job {
        let bands = BandTable::parse_for(bands, size).unwrap();
        let selected = bands.select(difficulty).unwrap();
        Job {
            plan: Plan {
                size,
                count,
                seed: 7,
                variants,
                fill: Fill::Backtrack,
                carve: Carve::Target,
                symmetry: Symmetry::None,
                bands,
                selected,
                max_attempts: 20,
                rate: true,
                starts: Arc::from([]),
            },
            output: Output {
                shard_rows: 1000,
                bank_shard_rows: 1000,
                zstd_level: 1,
                workers: 1,
                worker: 0,
            },
            dir: PathBuf::from("out"),
            seeds: None,
            from: None,
        }
    }

    /// A stage-2 worker asked once per seed, twice for every seed of the run (#36);
    /// the answer for a range must be whether any of its rows is this worker's.
    #[test]
    fn a_range_of_seeds_is_wanted_when_one_of_its_seeds_is() {
        for (count, variants, shard_rows, workers) in [
            (1000, 1, 100, 3),
            (997, 7, 50, 4),
            (30, 10, 1000, 2),
            (5000, 3, 7, 5),
        ] {
            let mut j = job(Size::Nine, count, variants, "default", "easy");
            j.output.shard_rows = shard_rows;
            j.output.workers = workers;
            let n_seeds = count.div_ceil(u64::from(variants)) + 2;
            for worker in 0..workers {
                j.output.worker = worker;
                for start in 0..n_seeds {
                    for len in [0, 1, 2, 5, 17, 64] {
                        let seeds = start..start + len;
                        let k = u64::from(variants);
                        let each = seeds.clone().any(|s| {
                            (s * k..(s + 1) * k)
                                .any(|id| id < count && j.output.owns(id / shard_rows))
                        });
                        assert_eq!(j.writes_rows_of(seeds.clone()), each, "{seeds:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_manifest_rebuilds_the_job_that_wrote_it() {
        let original = job(Size::Nine, 5000, 10, "default", "hard,expert");
        let params = original.params();
        let version = env!("CARGO_PKG_VERSION");
        let again = Job::from_params(Path::new("out"), version, &params, "m").unwrap();
        assert_eq!(again.params(), params);
        assert_eq!(again.n_seeds(), 500);
        assert_eq!(again.plan.selected, original.plan.selected);
    }

    #[test]
    fn a_manifest_that_cannot_be_resumed_says_why() {
        let mut params = job(Size::Nine, 100, 1, "default", "easy").params();
        let e = Job::from_params(Path::new("b"), "0.0.1", &params, "m")
            .err()
            .unwrap();
        assert!(e.to_string().contains("resume it with that version"), "{e}");
        let version = env!("CARGO_PKG_VERSION");
        params.fill = None;
        let e = Job::from_params(Path::new("b"), version, &params, "m")
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "m: params.fill is missing");
        params.merge = Some(format::MergeParams {
            order: "id".into(),
            max_per_class: None,
            layout_variants: 1,
            inputs: Vec::new(),
        });
        let e = Job::from_params(Path::new("b"), version, &params, "m")
            .err()
            .unwrap();
        assert!(e.to_string().contains("run the same merge again"), "{e}");
    }

    #[test]
    fn an_impossible_4x4_request_is_refused_before_any_work() {
        // Every 4x4 class with 4-5 clues, asked as 10,000 distinct seeds: too many.
        let plan = job(Size::Four, 10_000, 1, "few=4-5", "few").plan;
        let e = check_feasible(&plan).unwrap_err().to_string();
        assert!(e.contains("essentially different"), "{e}");
        assert!(e.contains("raise --variants"), "{e}");
        // A few seeds of the same band are fine.
        assert!(check_feasible(&job(Size::Four, 10, 1, "few=4-5", "few").plan).is_ok());
    }
}
