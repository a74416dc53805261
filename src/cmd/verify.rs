//! `sudoku-factory verify OUT`: read a whole bank back and check it against its
//! manifest and against the rules of a row (the checks live in [`crate::bank::verify`]).
//!
//! Shards are checked in parallel, and inside a shard rows are read in chunks by one
//! thread (reading is cheap) and checked in parallel (solving and the canonical form
//! are not). Duplicate puzzles are found across the whole bank with one map of 128-bit
//! puzzle hashes, filled once per chunk so that no lock is taken per row; seeds of one
//! canonical class, from each shard's runs of one canonical form. A run of one seed
//! that a chunk's or a shard's edge splits is held to its first row's rating across
//! the edge (the shards' opening runs once every shard is read). Exit code 0
//! when clean, 1 on any defect, 2 when the bank cannot be read at all.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::Path;
use std::sync::Mutex;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::bank::format::ShardRecord;
use crate::bank::verify::{self, Defect, Finding, IdSequence, RatingCheck, RunHead};
use crate::bank::{self, BankError, Row, RowError, ShardReader};
use crate::cli::VerifyArgs;
use crate::engine::bands::BandTable;
use crate::engine::board::{Board, Rating};
use crate::say;
use crate::util::text::counted;

use super::Outcome;

/// Rows read before a chunk is checked in parallel: large enough to feed every
/// core, small enough that the reader thread's buffer stays a few hundred KiB.
const CHUNK: usize = 2048;
/// Defect lines printed per kind; the counts are always complete.
const SHOWN_PER_KIND: usize = 20;

/// The keys are already 128-bit hashes: hashing them again would be wasted work.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u128(&mut self, key: u128) {
        self.0 = key as u64;
    }
}

/// Puzzle hash -> the smallest id seen with it, and where that row is.
type Seen = Mutex<HashMap<u128, (u64, Place), BuildHasherDefault<KeyHasher>>>;

/// A row's shard (its index in the manifest) and line, packed into the 8 bytes an
/// entry of [`Seen`] has spare (its `u128` key pads a lone `u64` value to 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place(u64);

impl Place {
    const LINE_BITS: u32 = 40;
    const UNKNOWN: Place = Place(u64::MAX);

    /// `UNKNOWN` past 2^24 shards or 2^40 lines.
    fn new(shard: u32, line: u64) -> Place {
        if shard >= 1 << (64 - Self::LINE_BITS) || line >= (1 << Self::LINE_BITS) - 1 {
            return Self::UNKNOWN;
        }
        Place(u64::from(shard) << Self::LINE_BITS | line)
    }

    /// The shard index and line, if known.
    fn get(self) -> Option<(usize, u64)> {
        let shard = (self.0 >> Self::LINE_BITS) as usize;
        (self != Self::UNKNOWN).then_some((shard, self.0 & ((1 << Self::LINE_BITS) - 1)))
    }
}

/// Defects found so far: every count, and the first few of each kind to print.
#[derive(Default)]
struct Tally {
    counts: BTreeMap<&'static str, u64>,
    shown: Vec<Finding>,
}

impl Tally {
    fn add(&mut self, finding: Finding) {
        let n = self.counts.entry(finding.defect.kind()).or_insert(0);
        *n += 1;
        if *n as usize <= SHOWN_PER_KIND {
            self.shown.push(finding);
        }
    }

    fn merge(&mut self, other: Tally) {
        for (kind, n) in other.counts {
            *self.counts.entry(kind).or_insert(0) += n;
        }
        self.shown.extend(other.shown);
    }

    fn total(&self) -> u64 {
        self.counts.values().sum()
    }
}

pub fn run(args: &VerifyArgs) -> anyhow::Result<Outcome> {
    let dir = &args.out;
    let manifest = bank::read_manifest(dir)?;
    let on_disk = bank::shard_files(dir)?;
    let threads = args.threads.map_or(0, |t| t as usize);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;

    let size = manifest.params.board_size().map_err(|e| {
        anyhow::anyhow!(
            "{}: params.{e}",
            dir.join(crate::bank::format::MANIFEST).display()
        )
    })?;
    if let Some(asked) = args.size {
        if asked != size {
            anyhow::bail!(
                "{} holds {size} puzzles, not {asked} (--size); leave --size out to check it as {size}",
                dir.display()
            );
        }
    }
    let mut tally = Tally::default();
    let mut findings = Vec::new();
    let bands = verify::check_manifest(&manifest, &mut findings);
    for name in &on_disk {
        if !manifest.shards.iter().any(|s| &s.file == name) {
            findings.push(Finding::file(name, Defect::UnlistedShard));
        }
    }
    findings.into_iter().for_each(|f| tally.add(f));

    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(manifest.rows), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} rows  {per_sec}  ETA {eta}",
        )
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    // A merge keeps `bands` only when its inputs agree on one table.
    if manifest.params.bands.is_none() && manifest.params.merge.is_some() && !args.quiet {
        say!(
            "sudoku-factory: note: {} merges banks with different band tables; bands are not checked",
            dir.display()
        );
    }
    // Another program's manifest of the same layout is checked as ours, with a word.
    if manifest.tool != env!("CARGO_PKG_NAME") && !args.quiet {
        say!(
            "sudoku-factory: note: {} was made by {:?}, not sudoku-factory; it is checked as a sudoku-factory bank",
            dir.display(),
            manifest.tool
        );
    }
    // A newer build's bank may hold what this one does not know to check.
    let (version, this) = (manifest.version.as_str(), env!("CARGO_PKG_VERSION"));
    let key = crate::bank::format::version_key;
    if key(version) > key(this) && !args.quiet {
        say!(
            "sudoku-factory: note: {} was made by sudoku-factory {version:?}, {} this build ({this}); it is checked as this build knows banks",
            dir.display(),
            if key(version) == key("") { "a version unlike" } else { "newer than" }
        );
    }
    let rated_by = manifest.rated_by();
    let rated = rated_by != "0.1.0" && manifest.params.rating;
    let rerate = verify::same_rater(rated_by);
    if rated && !rerate && !args.quiet {
        say!(
            "sudoku-factory: note: {} was rated by sudoku-factory {rated_by}, whose rater predates this build's ({}+); its rating columns are checked for consistency, not re-rated",
            dir.display(),
            crate::engine::rating::RATER_SINCE
        );
    }
    let seen = Seen::default();
    let duplicates = Mutex::new(Vec::new());
    let checked = ShardCheck {
        dir,
        bands: bands.as_ref(),
        rated,
        rerate,
        // A merge may keep several seeds of a class (`--max-per-class`); a generated
        // bank never does.
        classes: manifest.params.merge.is_none(),
        seen: &seen,
        duplicates: &duplicates,
        shards: &manifest.shards,
        bar: &bar,
    };
    let mut per_shard: Vec<ShardChecked> = pool.install(|| {
        crate::with_board!(size, B => manifest
            .shards
            .par_iter()
            .enumerate()
            .map(|(i, r)| checked.run::<B>(i as u32, r))
            .collect())
    });
    bar.finish_and_clear();
    opening_ratings(&mut per_shard, &manifest.shards, &mut tally);
    let mut rows = 0;
    let mut runs = Vec::with_capacity(per_shard.iter().map(|s| s.runs.len()).sum());
    for shard in per_shard {
        tally.merge(shard.tally);
        rows += shard.rows;
        runs.extend(shard.runs);
    }
    // A copied row is a duplicate; saying that its class repeats adds nothing.
    let mut duplicates = duplicates
        .into_inner()
        .expect("no thread panics holding it");
    duplicates.sort_unstable();
    for finding in verify::repeated_classes(runs, &manifest.shards) {
        if finding
            .id
            .is_none_or(|id| duplicates.binary_search(&id).is_err())
        {
            tally.add(finding);
        }
    }

    tally
        .shown
        .sort_by(|a, b| (&a.file, a.id, a.line).cmp(&(&b.file, b.id, b.line)));
    // Each shard kept its first few per kind; print the first few of the bank.
    let mut printed: BTreeMap<&'static str, usize> = BTreeMap::new();
    for finding in &tally.shown {
        let n = printed.entry(finding.defect.kind()).or_insert(0);
        *n += 1;
        if *n <= SHOWN_PER_KIND {
            say!("{finding}");
        }
    }
    let total = tally.total();
    if total == 0 {
        if !args.quiet {
            say!(
                "sudoku-factory: {} is clean: {}, {} checked",
                dir.display(),
                counted(manifest.shards.len() as u64, "shard"),
                counted(rows, "row")
            );
        }
        return Ok(Outcome::Clean);
    }
    say!(
        "sudoku-factory: {} has {} in {}, {} checked",
        dir.display(),
        counted(total, "defect"),
        counted(manifest.shards.len() as u64, "shard"),
        counted(rows, "row")
    );
    for (kind, n) in &tally.counts {
        let more = n.saturating_sub(SHOWN_PER_KIND as u64);
        if more > 0 {
            say!("  {kind:<30} {n:>10}  ({more} not shown)");
        } else {
            say!("  {kind:<30} {n:>10}");
        }
    }
    Ok(Outcome::Defects)
}

/// What every shard's check shares.
struct ShardCheck<'a> {
    dir: &'a Path,
    bands: Option<&'a BandTable>,
    /// The bank has the rating columns (made after version 0.1.0).
    rated: bool,
    /// The bank was rated by this build's rater: re-rate to check the columns.
    rerate: bool,
    /// Check that no canonical class has two seeds (a generated bank).
    classes: bool,
    seen: &'a Seen,
    /// The ids reported as duplicate puzzles.
    duplicates: &'a Mutex<Vec<u64>>,
    shards: &'a [ShardRecord],
    bar: &'a ProgressBar,
}

/// What one shard's check found.
#[derive(Default)]
struct ShardChecked {
    tally: Tally,
    rows: u64,
    /// Its runs of one canonical form, for the bank-wide check of classes.
    runs: Vec<verify::ClassRun>,
    /// The run it opens with, whose ratings wait for the shard before (that run
    /// may have begun there); none for the first shard.
    opening: Option<Opening>,
    /// The run it ends with, as the next shard's opening rows must carry it.
    closing: Option<RunHead<Vec<u8>>>,
}

/// The run a shard opens with, as its ratings are checked once the shard before is
/// ([`opening_ratings`]).
struct Opening {
    /// Its first row's id.
    id: u64,
    canonical: Option<Vec<u8>>,
    /// Its first row's stated rating and, when the bank is re-rated, the rater's.
    stated: Option<Rating>,
    own: Option<Option<Rating>>,
    /// Line, id and stated rating of each of its rows that has one to check (not
    /// those that are not unique: said already).
    rows: Vec<(u64, u64, Option<Rating>)>,
}

/// The ratings of the shards' opening runs, in shard order: one that goes on with the
/// run the shard before ends with carries that run's rating (its first row's own may
/// differ by 0.1, as a variant's); any other, its first row's own. Pushes the wrong
/// rows into `tally`.
fn opening_ratings(per_shard: &mut [ShardChecked], shards: &[ShardRecord], tally: &mut Tally) {
    let mut before: Option<RunHead<Vec<u8>>> = None;
    for (shard, record) in per_shard.iter_mut().zip(shards) {
        if let Some(open) = &shard.opening {
            let head = before
                .as_ref()
                .filter(|h| open.canonical.as_ref() == Some(&h.canonical));
            let (expected, first_id, by_rater) = match (head, open.own) {
                (Some(h), _) => (h.rating, h.first_id, h.by_rater),
                (None, Some(own)) => (own, open.id, true),
                (None, None) => (open.stated, open.id, false),
            };
            for &(line, id, stated) in &open.rows {
                if stated != expected {
                    tally.add(Finding {
                        file: record.file.clone(),
                        line: Some(line),
                        id: Some(id),
                        defect: Defect::WrongRating {
                            stated,
                            expected,
                            first_id: (!by_rater).then_some(first_id),
                        },
                    });
                }
            }
            // A shard that is one run goes on with what its first row was found to be.
            if let Some(closing) = shard.closing.as_mut().filter(|c| c.first_id == open.id) {
                (closing.rating, closing.first_id, closing.by_rater) =
                    (expected, first_id, by_rater);
            }
        }
        before = shard.closing.clone();
    }
}

impl ShardCheck<'_> {
    /// Checks shard `index` of the manifest: file, header, ids, rows, duplicates.
    fn run<B: Board>(&self, index: u32, record: &ShardRecord) -> ShardChecked {
        let mut checked = ShardChecked::default();
        let file = record.file.as_str();
        let path = self.dir.join(file);
        if !path.is_file() {
            checked.tally.add(Finding::file(file, Defect::MissingShard));
            return checked;
        }
        let mut reader = match ShardReader::open(&path) {
            Ok(r) => r,
            Err(e) => {
                checked
                    .tally
                    .add(Finding::file(file, Defect::Unreadable(e.to_string())));
                return checked;
            }
        };
        let mut findings = Vec::new();
        let mut ids = IdSequence::new(record);
        let mut chunk: Vec<Result<Row<B::Cells>, RowError>> = Vec::with_capacity(CHUNK);
        let mut broken = false;
        if let Err(e) = reader.read_header() {
            findings.push(Finding::file(file, Defect::Unreadable(e.to_string())));
            // A header of other column names or order: its rows cannot be read by
            // position, and each would be a defect of the header's. A first line that
            // names no column is a row where the header should be: read on.
            if let BankError::Header { found, .. } = &e {
                broken = found
                    .split(',')
                    .any(|name| bank::format::COLUMNS.contains(&name.trim()));
            }
        }
        // The run the last chunk ended with; the first chunk of every shard but the
        // first leaves its opening run's rating to `opening_ratings`.
        let mut head: Option<RunHead<B::Cells>> = None;
        let mut first_chunk = true;
        while !broken {
            chunk.clear();
            while chunk.len() < CHUNK {
                match reader.next_row_of(B::SIZE, B::empty()) {
                    None => break,
                    Some(Ok(row)) => chunk.push(row),
                    Some(Err(e)) => {
                        findings.push(Finding::file(file, Defect::Unreadable(e.to_string())));
                        broken = true;
                        break;
                    }
                }
            }
            if chunk.is_empty() {
                break;
            }
            checked.rows += chunk.len() as u64;
            let defer = first_chunk && index > 0;
            let (next, opening) = self.check_chunk::<B>(
                index,
                file,
                &chunk,
                (&mut ids, &mut findings),
                head.take(),
                defer,
            );
            head = next;
            if defer {
                checked.opening = opening;
            }
            first_chunk = false;
            if self.classes {
                let good: Vec<&Row<B::Cells>> =
                    chunk.iter().filter_map(|item| item.as_ref().ok()).collect();
                verify::class_runs(&good, index, &mut checked.runs);
            }
            self.bar.inc(chunk.len() as u64);
            findings.drain(..).for_each(|f| checked.tally.add(f));
        }
        // A shard that stopped early has fewer rows than its record: the id check
        // would only repeat what `Unreadable` says.
        if !broken && !reader.is_broken() {
            ids.finish(file, &mut findings);
        }
        match reader.finish() {
            Ok(digest) => verify::check_digest(record, &digest, &mut findings),
            Err(e) => findings.push(Finding::file(file, Defect::Unreadable(e.to_string()))),
        }
        findings.into_iter().for_each(|f| checked.tally.add(f));
        checked.closing = head.map(|h| RunHead {
            canonical: h.canonical.as_ref().to_vec(),
            rating: h.rating,
            first_id: h.first_id,
            by_rater: h.by_rater,
        });
        checked
    }

    /// Checks one chunk of shard `shard`, whose rows before it ended with the run
    /// `carried`; with `defer`, the ratings of the run it opens with are not checked
    /// here (that run is returned, for [`opening_ratings`]). Returns the run the
    /// chunk ends with too.
    fn check_chunk<B: Board>(
        &self,
        shard: u32,
        file: &str,
        chunk: &[Result<Row<B::Cells>, RowError>],
        (ids, findings): (&mut IdSequence, &mut Vec<Finding>),
        carried: Option<RunHead<B::Cells>>,
        defer: bool,
    ) -> (Option<RunHead<B::Cells>>, Option<Opening>) {
        for item in chunk {
            let (line, id) = match item {
                Ok(row) => (row.line, Some(row.id)),
                Err(e) => {
                    findings.push(Finding {
                        file: file.to_string(),
                        line: Some(e.line),
                        id: e.id,
                        defect: Defect::Format(e.reason.clone()),
                    });
                    (e.line, e.id)
                }
            };
            ids.push(file, line, id, findings);
        }
        let bands = self.bands;
        let good: Vec<&Row<B::Cells>> =
            chunk.iter().filter_map(|item| item.as_ref().ok()).collect();
        let checks = verify::rating_checks(&good, self.rated, self.rerate, carried.as_ref(), defer);
        let check = |i: usize, rating: RatingCheck| {
            let row = good[i];
            let mut found = Vec::new();
            let rerated = verify::check_row::<B>(row, bands, rating, |defect| {
                found.push(Finding {
                    file: file.to_string(),
                    line: Some(row.line),
                    id: Some(row.id),
                    defect,
                })
            });
            (found, rerated)
        };
        // First the rows that start a run (re-rated), then the rest of each run, held
        // to the rater's rating of its first row.
        let firsts: Vec<(Vec<Finding>, Option<Option<Rating>>)> = checks
            .par_iter()
            .enumerate()
            .map(|(i, &rating)| match rating {
                RatingCheck::Rest { .. } => (Vec::new(), None),
                _ => check(i, rating),
            })
            .collect();
        let rests: Vec<Vec<Finding>> = checks
            .par_iter()
            .enumerate()
            .map(|(i, &rating)| match rating {
                RatingCheck::Rest { first } => {
                    check(i, verify::held_to(good[first], firsts[first].1)).0
                }
                _ => Vec::new(),
            })
            .collect();
        // A deferred chunk's opening run, checked by `opening_ratings`.
        let opening_len = if defer && self.rated {
            verify::opening_run_len(&good)
        } else {
            0
        };
        // The run the chunk ends with: the one carried in, or one begun here.
        let ends_with = match good.len().checked_sub(1).map(|last| (last, checks[last])) {
            None | Some((_, RatingCheck::SameAs { .. })) => carried,
            Some((last, _)) if last < opening_len => RunHead::of(good[0], None),
            Some((_, RatingCheck::Rest { first })) | Some((first, _)) => {
                RunHead::of(good[first], firsts[first].1)
            }
        };
        let opening = good.first().filter(|_| opening_len > 0).map(|first| {
            let unique = |i: usize| {
                !firsts[i]
                    .0
                    .iter()
                    .any(|f| matches!(f.defect, Defect::NoSolution | Defect::MultipleSolutions))
            };
            Opening {
                id: first.id,
                canonical: first.canonical.map(|c| c.as_ref().to_vec()),
                stated: first.rating,
                own: (self.rerate && unique(0)).then(|| B::rate(&first.puzzle)),
                rows: (0..opening_len)
                    .filter(|&i| unique(i))
                    .map(|i| (good[i].line, good[i].id, good[i].rating))
                    .collect(),
            }
        });
        let row_findings = firsts
            .into_iter()
            .zip(rests)
            .flat_map(|((first, _), rest)| first.into_iter().chain(rest));
        findings.extend(row_findings);
        let keys: Vec<(u128, (u64, Place))> = chunk
            .par_iter()
            .filter_map(|item| item.as_ref().ok())
            .map(|row| {
                let key = verify::puzzle_key(row.puzzle.as_ref());
                (key, (row.id, Place::new(shard, row.line)))
            })
            .collect();
        let mut seen = self.seen.lock().expect("no thread panics holding the map");
        for (key, (id, place)) in keys {
            let first = seen.entry(key).or_insert((id, place));
            if first.0 == id {
                continue;
            }
            // Blame the larger id, whichever shard was read first, so that the report
            // does not depend on thread timing.
            let (kept, blamed) = if first.0 <= id {
                (first.0, (id, place))
            } else {
                (id, std::mem::replace(first, (id, place)))
            };
            self.duplicates
                .lock()
                .expect("no thread panics holding it")
                .push(blamed.0);
            let (file, line) = match blamed.1.get() {
                Some((shard, line)) => (self.shards[shard].file.as_str(), Some(line)),
                None => (self.file_of(blamed.0).unwrap_or(file), None),
            };
            findings.push(Finding {
                file: file.to_string(),
                line,
                id: Some(blamed.0),
                defect: Defect::Duplicate { of_id: kept },
            });
        }
        (ends_with, opening)
    }

    /// The shard whose manifest record holds `id`.
    fn file_of(&self, id: u64) -> Option<&str> {
        self.shards
            .iter()
            .find(|s| (s.first_id..=s.last_id).contains(&id))
            .map(|s| s.file.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::bank::format::MANIFEST;

    #[test]
    fn a_place_packs_shard_and_line_or_is_unknown() {
        assert_eq!(Place::new(3, 12).get(), Some((3, 12)));
        assert_eq!(Place::new(0, 0).get(), Some((0, 0)));
        let (shards, lines) = (1 << 24, 1 << 40);
        assert_eq!(
            Place::new(shards - 1, lines - 2).get(),
            Some((shards as usize - 1, lines - 2))
        );
        assert_eq!(Place::new(shards, 5).get(), None);
        assert_eq!(Place::new(5, lines - 1).get(), None);
        assert_eq!(std::mem::size_of::<(u128, (u64, Place))>(), 32);
    }

    #[test]
    fn the_tally_counts_everything_but_keeps_a_few() {
        let mut tally = Tally::default();
        for i in 0..(SHOWN_PER_KIND as u64 + 5) {
            tally.add(Finding::file(MANIFEST, Defect::Duplicate { of_id: i }));
        }
        tally.add(Finding::file(
            MANIFEST,
            Defect::Incomplete {
                hint: "the run did not finish".to_string(),
            },
        ));
        assert_eq!(tally.total(), SHOWN_PER_KIND as u64 + 6);
        assert_eq!(tally.shown.len(), SHOWN_PER_KIND + 1);
        assert_eq!(tally.counts["duplicate puzzle"], SHOWN_PER_KIND as u64 + 5);
    }
}
