//! What `verify` checks, as pure functions over values: the manifest, one shard's
//! file facts against its manifest record, the id sequence of a shard, and every row.
//! No I/O here — `cmd::verify` reads the files and feeds these checks — so each rule
//! is unit-tested on hand-made values.
//!
//! A check never stops at the first problem: it returns [`Finding`]s, each a
//! [`Defect`] with where it was found (shard file, line, id), and the command
//! reports them all, grouped by [`Defect::kind`].

use std::fmt;

use crate::bank::format::{Manifest, ShardRecord};
use crate::bank::{Digest, Row};
use crate::engine::bands::BandTable;
use crate::engine::board::{Board, Rating};

/// One thing wrong with the bank; its `Display` is the sentence a report prints.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Defect {
    /// The manifest says the run did not finish; `hint`: which run, and how to finish it.
    // Regression: "(rerun generate)" led to a `generate` that refused the directory,
    // or to `--resume` of a merge, which cannot resume.
    #[error("the manifest says `complete: false`: {hint}")]
    Incomplete { hint: String },
    /// The manifest's parameters cannot be used (e.g. an unreadable band table).
    #[error("manifest parameters: {0}")]
    BadParams(String),
    /// The manifest's totals or shard list do not add up.
    #[error("manifest: {0}")]
    ManifestTotals(String),
    /// A shard listed in the manifest is not on disk.
    #[error("listed in the manifest but not on disk")]
    MissingShard,
    /// A `bank-*.csv.zst` file on disk that the manifest does not list.
    #[error("on disk but not listed in the manifest")]
    UnlistedShard,
    #[error("{found} bytes, the manifest says {expected}")]
    WrongSize { expected: u64, found: u64 },
    #[error("xxh3 {found}, the manifest says {expected}")]
    WrongChecksum { expected: String, found: String },
    /// The shard cannot be read to the end (corrupt compression, bad header, I/O).
    #[error("unreadable: {0}")]
    Unreadable(String),
    #[error("{found} rows, the manifest says {expected}")]
    WrongRowCount { expected: u64, found: u64 },
    /// Ids of a shard are not `first_id..=last_id` in order.
    #[error("{}", if from == to { format!("id {from} is missing") } else { format!("ids {from}..={to} are missing") })]
    MissingIds { from: u64, to: u64 },
    /// A row whose id is not among its shard's ids (`first..=last`).
    #[error("the id is not one of this shard's ids {first}..={last}")]
    IdOutsideShard { first: u64, last: u64 },
    /// A row whose id is smaller than one before it in the shard.
    #[error("the id comes after id {after} (ids increase down a shard)")]
    IdOutOfOrder { after: u64 },
    /// A row whose id an earlier row of the shard has.
    #[error("an earlier row of this shard has the same id")]
    RepeatedId,
    /// A row that cannot be parsed.
    #[error("malformed: {0}")]
    Format(String),
    /// The solution column is not a complete valid grid.
    #[error("the solution is not a complete valid grid")]
    InvalidSolution,
    /// A given of the puzzle differs from the solution (row and column from 1).
    #[error("the puzzle's given at row {row}, column {column} differs from the solution")]
    PuzzleMismatch { row: usize, column: usize },
    #[error("the puzzle has no solution")]
    NoSolution,
    #[error("the puzzle has two or more solutions")]
    MultipleSolutions,
    #[error("clues column says {stated}, the puzzle has {actual}")]
    WrongClueCount { stated: u16, actual: u16 },
    #[error("difficulty {stated:?}, the band table says {expected:?}")]
    WrongBand { stated: String, expected: String },
    #[error("the canonical column is not the puzzle's canonical form")]
    WrongCanonical,
    /// The `rating`/`technique` columns are not what the rater gives the puzzle (or,
    /// for a variant, not its seed's).
    #[error("rating {}, {}", shown(stated), match first_id {
        None => format!("the rater says {}", shown(expected)),
        Some(id) => format!("but id {id}, the first row of its canonical form, has {}", shown(expected)),
    })]
    WrongRating {
        stated: Option<Rating>,
        expected: Option<Rating>,
        /// The run's first row whose stated columns `expected` are, when no rater
        /// gave them (a bank rated by an earlier rater).
        first_id: Option<u64>,
    },
    /// The same puzzle (up to its text) appears twice in the bank.
    #[error("the same puzzle as id {of_id}")]
    Duplicate { of_id: u64 },
    /// A generated bank holds two seeds of one canonical class (their rows are two
    /// runs of one canonical form): its seeds are meant to be essentially different.
    #[error("a second seed of the canonical class of id {of_id} (a generated bank's seeds are essentially different)")]
    RepeatedClass { of_id: u64 },
}

/// A rating column as a report shows it: `4.2 x-wing`, or `(none)`.
fn shown(r: &Option<Rating>) -> String {
    match r {
        Some(r) => format!("{r} {}", r.technique.name()),
        None => "(none)".to_string(),
    }
}

impl Defect {
    /// The short name a report groups defects by.
    pub fn kind(&self) -> &'static str {
        match self {
            Defect::Incomplete { .. } => "incomplete manifest",
            Defect::BadParams(_) => "bad manifest parameters",
            Defect::ManifestTotals(_) => "manifest inconsistent",
            Defect::MissingShard => "missing shard",
            Defect::UnlistedShard => "unlisted shard",
            Defect::WrongSize { .. } => "wrong size",
            Defect::WrongChecksum { .. } => "wrong checksum",
            Defect::Unreadable(_) => "unreadable shard",
            Defect::WrongRowCount { .. } => "wrong row count",
            Defect::MissingIds { .. } => "missing ids",
            Defect::IdOutsideShard { .. } => "id outside its shard",
            Defect::IdOutOfOrder { .. } => "id out of order",
            Defect::RepeatedId => "repeated id",
            Defect::Format(_) => "malformed row",
            Defect::InvalidSolution => "invalid solution",
            Defect::PuzzleMismatch { .. } => "puzzle differs from solution",
            Defect::NoSolution => "no solution",
            Defect::MultipleSolutions => "not unique",
            Defect::WrongClueCount { .. } => "wrong clue count",
            Defect::WrongBand { .. } => "wrong band",
            Defect::WrongCanonical => "wrong canonical form",
            Defect::WrongRating { .. } => "wrong rating",
            Defect::Duplicate { .. } => "duplicate puzzle",
            Defect::RepeatedClass { .. } => "repeated canonical class",
        }
    }
}

/// A defect and where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The shard file name, or `manifest.json` for bank-wide defects.
    pub file: String,
    /// 1-based line in the decompressed shard, when the defect is a row's.
    pub line: Option<u64>,
    pub id: Option<u64>,
    pub defect: Defect,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, " line {line}")?;
        }
        if let Some(id) = self.id {
            write!(f, " (id {id})")?;
        }
        write!(f, ": {}", self.defect)
    }
}

impl Finding {
    /// A defect of a whole file.
    pub fn file(file: &str, defect: Defect) -> Finding {
        Finding {
            file: file.to_string(),
            line: None,
            id: None,
            defect,
        }
    }
}

/// The rows of `count` that worker `worker` of `workers` holds: its shards `worker`,
/// `worker + workers`, ... of `shard_rows` rows each, the bank's last shard shorter.
/// In closed form (a hand-edited manifest may claim any count).
fn worker_share(count: u64, shard_rows: u64, workers: u64, worker: u64) -> u64 {
    let shards = count.div_ceil(shard_rows);
    if worker >= shards {
        return 0;
    }
    let owned = (shards - 1 - worker) / workers + 1;
    let last = shards - 1;
    let short = if last % workers == worker {
        shard_rows - (count - last * shard_rows)
    } else {
        0
    };
    (u128::from(owned) * u128::from(shard_rows) - u128::from(short))
        .try_into()
        .unwrap_or(u64::MAX)
}

/// The manifest's own consistency: complete, totals, shards contiguous, usable
/// parameters. Returns the band table of the bank when the manifest names one (a
/// merged bank whose inputs disagree on it names none, and that is no defect).
pub fn check_manifest(manifest: &Manifest, findings: &mut Vec<Finding>) -> Option<BandTable> {
    let here = crate::bank::format::MANIFEST;
    if !manifest.complete {
        let hint = if manifest.params.merge.is_some() {
            "the merge did not finish (run the same merge again with --force)"
        } else if manifest.params.import.is_some() {
            "the import did not finish (run the same import again with --force)"
        } else {
            "the run did not finish (finish it with `generate --resume DIR`)"
        };
        let hint = hint.to_string();
        findings.push(Finding::file(here, Defect::Incomplete { hint }));
    }
    let rows: u64 = manifest.shards.iter().map(|s| s.rows).sum();
    let bytes: u64 = manifest.shards.iter().map(|s| s.bytes).sum();
    if rows != manifest.rows {
        findings.push(Finding::file(
            here,
            Defect::ManifestTotals(format!(
                "`rows` is {}, its shards hold {rows}",
                manifest.rows
            )),
        ));
    }
    if bytes != manifest.bytes {
        findings.push(Finding::file(
            here,
            Defect::ManifestTotals(format!(
                "`bytes` is {}, its shards hold {bytes}",
                manifest.bytes
            )),
        ));
    }
    // Worker K of N (`--workers N --worker K`) holds only the shards K, K+N, ...:
    // its ids jump from one to the next, and it holds its shards' share of `count`.
    let p = &manifest.params;
    let (workers, worker) = (p.workers.max(1), p.worker);
    let shard_rows = p.shard_rows.max(1);
    let mut next_id = 0u64;
    for (k, shard) in manifest.shards.iter().enumerate() {
        if workers > 1 {
            next_id = (worker + k as u64 * workers).saturating_mul(shard_rows);
        }
        let (first, last, rows) = (shard.first_id, shard.last_id, shard.rows);
        // What is wrong, said as such (a range of u64::MAX ids overflowed here). A
        // range that does not fit the rows is one defect: the next shard is held to
        // the id its rows lead to.
        let fits = last >= first && (last - first).checked_add(1) == Some(rows);
        let wrong = if first != next_id {
            Some(format!("starts at id {first}, expected {next_id}"))
        } else if last < first {
            Some(format!("ends at id {last}, before its first id {first}"))
        } else if !fits {
            Some(format!("claims ids {first}..={last} for its {rows} rows"))
        } else {
            None
        };
        if let Some(wrong) = wrong {
            findings.push(Finding::file(
                here,
                Defect::ManifestTotals(format!("shard {} {wrong}", shard.file)),
            ));
        }
        next_id = if fits {
            last.saturating_add(1)
        } else {
            first.saturating_add(rows)
        };
    }
    if let Some(count) = manifest.params.count {
        // A worker's share: the rows of the shards it owns.
        let share = if workers > 1 {
            worker_share(count, shard_rows, workers, worker)
        } else {
            count
        };
        if manifest.complete && share != manifest.rows {
            let of = if workers > 1 {
                format!("the {share} of worker {worker} of {workers} (--count {count})")
            } else {
                format!("the {count} asked for")
            };
            findings.push(Finding::file(
                here,
                Defect::ManifestTotals(format!(
                    "complete, but holds {} rows of {of}",
                    manifest.rows
                )),
            ));
        }
    }
    let size = match manifest.params.board_size() {
        Ok(size) => size,
        Err(e) => {
            findings.push(Finding::file(here, Defect::BadParams(e)));
            return None;
        }
    };
    let scale = match manifest.params.scale() {
        Ok(scale) => scale,
        Err(e) => {
            findings.push(Finding::file(here, Defect::BadParams(e)));
            return None;
        }
    };
    match manifest.params.bands.as_deref() {
        Some(spec) => match BandTable::parse_scaled(spec, size, scale) {
            Ok(table) => Some(table),
            Err(e) => {
                findings.push(Finding::file(
                    here,
                    Defect::BadParams(format!("bands: {e}")),
                ));
                None
            }
        },
        // A merge of banks with different band tables (or scales) has none: each row's
        // band was its input's, and nothing here says which input a row came from.
        None if manifest.params.merge.is_some() => None,
        None => {
            findings.push(Finding::file(
                here,
                Defect::BadParams("no `bands` table; bands are not checked".to_string()),
            ));
            None
        }
    }
}

/// Size and checksum of a shard file against its record.
pub fn check_digest(record: &ShardRecord, digest: &Digest, findings: &mut Vec<Finding>) {
    if digest.bytes != record.bytes {
        findings.push(Finding::file(
            &record.file,
            Defect::WrongSize {
                expected: record.bytes,
                found: digest.bytes,
            },
        ));
    }
    let found = digest.hex();
    if !found.eq_ignore_ascii_case(&record.xxh3) {
        findings.push(Finding::file(
            &record.file,
            Defect::WrongChecksum {
                expected: record.xxh3.clone(),
                found,
            },
        ));
    }
}

/// Follows the ids of one shard, which must run `first_id..=last_id` in order, each
/// once. Each bad row is one defect, whatever follows it: an id outside the range, an
/// id repeated, an id behind the one before it (two swapped rows: one defect), and a
/// gap, reported where it was seen unless the missing ids turn up later.
#[derive(Debug)]
pub struct IdSequence {
    first_id: u64,
    last_id: u64,
    expected_rows: u64,
    rows: u64,
    /// The highest in-range id read so far.
    highest: Option<u64>,
    /// Bit `id - first_id` for every in-range id read; empty when the range is too
    /// large to track (a damaged manifest, reported on its own).
    seen: Vec<u64>,
    /// Gaps as seen: (first missing id, last missing id, line, id of that line).
    gaps: Vec<(u64, u64, u64, u64)>,
}

/// Ranges up to this many ids are tracked id by id (a bit each: 8 MiB at most).
const MAX_TRACKED_IDS: u64 = 1 << 26;

impl IdSequence {
    pub fn new(record: &ShardRecord) -> IdSequence {
        let span = record
            .last_id
            .checked_sub(record.first_id)
            .and_then(|d| d.checked_add(1))
            .filter(|&n| n <= MAX_TRACKED_IDS)
            .unwrap_or(0);
        IdSequence {
            first_id: record.first_id,
            last_id: record.last_id,
            expected_rows: record.rows,
            rows: 0,
            highest: None,
            seen: vec![0; span.div_ceil(64) as usize],
            gaps: Vec::new(),
        }
    }

    /// Marks `id` (in range) as read; false when it already was.
    fn mark(&mut self, id: u64) -> bool {
        let Some(word) = self.seen.get_mut(((id - self.first_id) / 64) as usize) else {
            return true;
        };
        let bit = 1u64 << ((id - self.first_id) % 64);
        let fresh = *word & bit == 0;
        *word |= bit;
        fresh
    }

    fn was_seen(&self, id: u64) -> bool {
        self.seen
            .get(((id - self.first_id) / 64) as usize)
            .is_some_and(|w| w >> ((id - self.first_id) % 64) & 1 != 0)
    }

    /// Takes the id of the next row (`None` when the row's id could not be read).
    pub fn push(&mut self, file: &str, line: u64, id: Option<u64>, findings: &mut Vec<Finding>) {
        self.rows += 1;
        // An unreadable id was already reported as a malformed row.
        let Some(id) = id else { return };
        let mut report = |defect| {
            findings.push(Finding {
                file: file.to_string(),
                line: Some(line),
                id: Some(id),
                defect,
            })
        };
        if id < self.first_id || id > self.last_id {
            report(Defect::IdOutsideShard {
                first: self.first_id,
                last: self.last_id,
            });
            return;
        }
        if !self.mark(id) {
            report(Defect::RepeatedId);
            return;
        }
        let next = self.highest.map_or(self.first_id, |h| h + 1);
        match self.highest {
            Some(h) if id < h => report(Defect::IdOutOfOrder { after: h }),
            _ => {
                if id > next {
                    self.gaps.push((next, id - 1, line, id));
                }
                self.highest = Some(id);
            }
        }
    }

    /// After the last row: the ids that never came (where their gap was seen), ids
    /// missing at the end, and the row count.
    pub fn finish(&self, file: &str, findings: &mut Vec<Finding>) {
        let tracked = !self.seen.is_empty();
        for &(from, to, line, id) in &self.gaps {
            let mut report = |from, to| {
                findings.push(Finding {
                    file: file.to_string(),
                    line: Some(line),
                    id: Some(id),
                    defect: Defect::MissingIds { from, to },
                })
            };
            if !tracked {
                report(from, to);
                continue;
            }
            // The ids of the gap that did not turn up later, as ranges.
            let mut start = None;
            for i in from..=to {
                match (self.was_seen(i), start) {
                    (false, None) => start = Some(i),
                    (true, Some(s)) => {
                        report(s, i - 1);
                        start = None;
                    }
                    _ => {}
                }
            }
            if let Some(s) = start {
                report(s, to);
            }
        }
        let next = self.highest.map_or(self.first_id, |h| h + 1);
        if next <= self.last_id && self.first_id <= self.last_id {
            findings.push(Finding::file(
                file,
                Defect::MissingIds {
                    from: next,
                    to: self.last_id,
                },
            ));
        }
        if self.rows != self.expected_rows {
            findings.push(Finding::file(
                file,
                Defect::WrongRowCount {
                    expected: self.expected_rows,
                    found: self.rows,
                },
            ));
        }
    }
}

/// The 128-bit key under which a puzzle (cells of any size) is deduplicated across
/// the bank.
#[inline]
pub fn puzzle_key(puzzle: &[u8]) -> u128 {
    twox_hash::XxHash3_128::oneshot(puzzle)
}

/// A run of rows with one canonical form and consecutive ids: in a generated bank,
/// the variants of one seed. A chunk or shard boundary can cut a seed's rows into
/// runs that continue each other; [`repeated_classes`] joins them.
/// 40 bytes a seed (the key as two halves: a `u128` would align the struct to 48).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassRun {
    /// The canonical form's key (the one `generate` deduplicates seeds by).
    pub key: [u64; 2],
    pub first_id: u64,
    /// Where the run starts: its first row's line, in the manifest's shard `shard`.
    pub line: u64,
    pub shard: u32,
}

/// Appends the runs of `rows`, rows of shard `shard` in file order. Rows without a
/// canonical form belong to no run.
pub fn class_runs<C: AsRef<[u8]>>(rows: &[&Row<C>], shard: u32, runs: &mut Vec<ClassRun>) {
    let mut last: Option<[u64; 2]> = None;
    for row in rows {
        let key = row.canonical.as_ref().map(|canonical| {
            let key = crate::bank::format::canonical_key(canonical.as_ref());
            [(key >> 64) as u64, key as u64]
        });
        if let Some(key) = key.filter(|&key| last != Some(key)) {
            runs.push(ClassRun {
                key,
                first_id: row.id,
                line: row.line,
                shard,
            });
        }
        last = key;
    }
}

/// Each canonical class found in two places: a second seed of that class, reported
/// where it starts. Runs of one class with no other class's run between them (in id
/// order) are one seed's rows, cut by a chunk or shard boundary or by a missing id
/// (a defect of its own); two seeds of a class side by side cannot be told apart.
/// The order of `runs` does not matter (shards are read in parallel).
pub fn repeated_classes(mut runs: Vec<ClassRun>, shards: &[ShardRecord]) -> Vec<Finding> {
    runs.sort_unstable_by_key(|r| r.first_id);
    runs.dedup_by_key(|r| r.key);
    runs.sort_unstable_by_key(|r| (r.key, r.first_id));
    let mut findings = Vec::new();
    for class in runs.chunk_by(|a, b| a.key == b.key) {
        for run in &class[1..] {
            findings.push(Finding {
                file: shards[run.shard as usize].file.clone(),
                line: Some(run.line),
                id: Some(run.first_id),
                defect: Defect::RepeatedClass {
                    of_id: class[0].first_id,
                },
            });
        }
    }
    findings
}

/// Checks one row of a bank of boards `B` on its own (everything but ids and
/// duplicates): solution, puzzle, uniqueness, clue count, band, canonical form.
/// Allocates only to report a defect.
pub fn check_row<B: Board>(
    row: &Row<B::Cells>,
    bands: Option<&BandTable>,
    rating: RatingCheck,
    mut report: impl FnMut(Defect),
) -> Option<Option<Rating>> {
    let (puzzle, solution) = (row.puzzle.as_ref(), row.solution.as_ref());
    let solution_ok = solution.iter().all(|&v| v != 0) && B::is_consistent(&row.solution);
    if !solution_ok {
        report(Defect::InvalidSolution);
    }
    if let Some(cell) = (0..puzzle.len()).find(|&c| puzzle[c] != 0 && puzzle[c] != solution[c]) {
        let side = B::SIZE.side();
        report(Defect::PuzzleMismatch {
            row: cell / side + 1,
            column: cell % side + 1,
        });
    }
    // When the solution is valid and agrees with every given, a unique puzzle's one
    // solution is that grid; so uniqueness is all that is left to check.
    let unique = match B::count_solutions(&row.puzzle, 2) {
        1 => true,
        0 => {
            report(Defect::NoSolution);
            false
        }
        _ => {
            report(Defect::MultipleSolutions);
            false
        }
    };
    let actual = puzzle.iter().filter(|&&v| v != 0).count() as u16;
    if actual != row.clues {
        report(Defect::WrongClueCount {
            stated: row.clues,
            actual,
        });
    }
    if let Some(table) = bands {
        // A rating table grades by the stated rating (checked against the rater below).
        let expected = table
            .grade_puzzle(actual, row.rating.map(|r| r.rating))
            .map(|i| table.bands()[i].name.as_str());
        if expected != Some(row.difficulty.as_str()) {
            report(Defect::WrongBand {
                stated: row.difficulty.as_str().to_string(),
                expected: expected.unwrap_or("(no band)").to_string(),
            });
        }
    }
    if let Some(canonical) = &row.canonical {
        if B::canonical_form(&row.puzzle) != *canonical {
            report(Defect::WrongCanonical);
        }
    }
    let (expected, first_id) = match rating {
        // A puzzle that is not unique has no rating; that defect is reported above.
        _ if !unique => return None,
        RatingCheck::Skip | RatingCheck::Rest { .. } => return None,
        RatingCheck::Rerate => (B::rate(&row.puzzle), None),
        RatingCheck::SameAs {
            rating,
            first_id,
            by_rater,
        } => (rating, (!by_rater).then_some(first_id)),
    };
    if row.rating != expected {
        report(Defect::WrongRating {
            stated: row.rating,
            expected,
            first_id,
        });
    }
    matches!(rating, RatingCheck::Rerate).then_some(expected)
}

/// How [`check_row`] checks the rating columns. Rating is costly (≈ 0.2 ms for a
/// minimal puzzle against µs for the other checks), and a bank rates each seed once:
/// its variants carry the seed's rating (their own may differ by 0.1, SE's path
/// depending on the orientation). So `verify` re-rates the first row of every run of
/// rows sharing a canonical form (a seed and its variants) and holds the rest of the
/// run to the rater's rating of that row; a bank rated by an earlier rater, to the
/// row's stated one. A run that goes on past a chunk or a shard is held, there, to
/// what its first row gave ([`RunHead`]): its first row there is a variant.
#[derive(Clone, Copy, Debug)]
pub enum RatingCheck {
    /// No rating to check: a bank from before the rating columns (version 0.1.0), or
    /// the first row of a run in a bank rated by an earlier rater.
    Skip,
    /// Rate the puzzle and compare.
    Rerate,
    /// A row of a run whose first row is `rows[first]` of [`rating_checks`]: resolved
    /// into [`RatingCheck::SameAs`] once that row is checked (alone, it checks nothing).
    Rest { first: usize },
    /// The row must carry `rating`: the rater's rating of its run's first row (id
    /// `first_id`) when `by_rater`, else that row's stated one.
    SameAs {
        rating: Option<Rating>,
        first_id: u64,
        by_rater: bool,
    },
}

/// The run of one canonical form that the rows before a chunk ended with: what its
/// rows in the chunk must carry ([`RatingCheck::SameAs`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RunHead<C> {
    pub canonical: C,
    pub rating: Option<Rating>,
    /// The id of the run's first row.
    pub first_id: u64,
    /// `rating` is the rater's (else the first row's stated one).
    pub by_rater: bool,
}

impl<C: Clone> RunHead<C> {
    /// The run `first` starts, `rerated` as [`check_row`] returned it (see [`held_to`]).
    pub fn of(first: &Row<C>, rerated: Option<Option<Rating>>) -> Option<RunHead<C>> {
        Some(RunHead {
            canonical: first.canonical.clone()?,
            rating: rerated.unwrap_or(first.rating),
            first_id: first.id,
            by_rater: rerated.is_some(),
        })
    }
}

impl<C> RunHead<C> {
    /// What a row that goes on with this run is held to.
    pub fn check(&self) -> RatingCheck {
        RatingCheck::SameAs {
            rating: self.rating,
            first_id: self.first_id,
            by_rater: self.by_rater,
        }
    }
}

/// How many rows the run of one canonical form that `rows` open with holds (a row
/// without a canonical form is a run of its own).
pub fn opening_run_len<C: PartialEq>(rows: &[&Row<C>]) -> usize {
    match rows.first() {
        None => 0,
        Some(first) if first.canonical.is_none() => 1,
        Some(first) => rows
            .iter()
            .take_while(|row| row.canonical == first.canonical)
            .count(),
    }
}

/// The [`RatingCheck`] of each row of `rows` (in id order): the rows that go on with
/// `carried`, the run before them, are held to it; where a run of one canonical form
/// starts (or the row has none), [`RatingCheck::Rerate`] (`Skip` for a bank rated by
/// an earlier rater, `rerate` false); after it, [`RatingCheck::Rest`]. With
/// `defer_first`, every row of the run the rows open with ([`opening_run_len`]) is
/// `Skip`: that run may go on from rows not seen here, and its caller checks it.
pub fn rating_checks<C: PartialEq>(
    rows: &[&Row<C>],
    rated_bank: bool,
    rerate: bool,
    carried: Option<&RunHead<C>>,
    defer_first: bool,
) -> Vec<RatingCheck> {
    let mut first: Option<usize> = None;
    let mut carried = carried;
    let deferred = if defer_first {
        opening_run_len(rows)
    } else {
        0
    };
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            if !rated_bank || i < deferred {
                return RatingCheck::Skip;
            }
            if let Some(head) = carried {
                if row.canonical.as_ref() == Some(&head.canonical) {
                    return head.check();
                }
                carried = None;
            }
            match first {
                Some(f) if row.canonical.is_some() && rows[f].canonical == row.canonical => {
                    RatingCheck::Rest { first: f }
                }
                _ => {
                    first = Some(i);
                    if rerate {
                        RatingCheck::Rerate
                    } else {
                        RatingCheck::Skip
                    }
                }
            }
        })
        .collect()
}

/// The check of a [`RatingCheck::Rest`] row once its run's first row `first` was
/// checked: held to `rerated`, the rater's rating of it, when it was re-rated (a
/// wrong first row is then one defect, not one per row of its run), else to its
/// stated rating.
pub fn held_to<C>(first: &Row<C>, rerated: Option<Option<Rating>>) -> RatingCheck {
    RatingCheck::SameAs {
        rating: rerated.unwrap_or(first.rating),
        first_id: first.id,
        by_rater: rerated.is_some(),
    }
}

/// Whether a bank made by sudoku-factory `version` was rated by this build's rater:
/// [`crate::engine::rating::RATER_SINCE`] is the first version whose rater gives
/// today's ratings. An unreadable version counts as current.
pub fn same_rater(version: &str) -> bool {
    use crate::bank::format::version_key;
    version_key(version) >= version_key(crate::engine::rating::RATER_SINCE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defects of a shard of ids 100..=109 whose rows carry `ids` (line i + 1 for
    /// the i-th), as (line, id, message); `None` for a shard-level one.
    fn id_defects(ids: &[u64]) -> Vec<(Option<u64>, Option<u64>, String)> {
        let record = ShardRecord {
            file: "bank-00000.csv.zst".into(),
            first_id: 100,
            last_id: 109,
            rows: 10,
            bytes: 0,
            xxh3: String::new(),
        };
        let mut seq = IdSequence::new(&record);
        let mut found = Vec::new();
        for (i, &id) in ids.iter().enumerate() {
            seq.push(&record.file, i as u64 + 1, Some(id), &mut found);
        }
        seq.finish(&record.file, &mut found);
        found
            .into_iter()
            .map(|f| (f.line, f.id, f.defect.to_string()))
            .collect()
    }

    /// One bad row is one defect (two when it also leaves a gap), never one per row
    /// after it. Regression: an id beyond the shard, or two swapped rows, made every
    /// following row "id N where id M was expected".
    #[test]
    fn each_bad_id_is_one_defect() {
        let clean: Vec<u64> = (100..110).collect();
        assert_eq!(id_defects(&clean), vec![]);
        let mut swapped = clean.clone();
        swapped.swap(3, 4);
        assert_eq!(
            id_defects(&swapped),
            vec![(
                Some(5),
                Some(103),
                "the id comes after id 104 (ids increase down a shard)".into()
            )]
        );
        let mut beyond = clean.clone();
        beyond[3] = 9999;
        assert_eq!(
            id_defects(&beyond),
            vec![
                (
                    Some(4),
                    Some(9999),
                    "the id is not one of this shard's ids 100..=109".into()
                ),
                (Some(5), Some(104), "id 103 is missing".into()),
            ]
        );
        let mut repeated = clean.clone();
        repeated[5] = 104;
        assert_eq!(
            id_defects(&repeated),
            vec![
                (
                    Some(6),
                    Some(104),
                    "an earlier row of this shard has the same id".into()
                ),
                (Some(7), Some(106), "id 105 is missing".into()),
            ]
        );
        let dropped: Vec<u64> = (100..110).filter(|&i| !(103..=104).contains(&i)).collect();
        assert_eq!(
            id_defects(&dropped),
            vec![
                (Some(4), Some(105), "ids 103..=104 are missing".into()),
                (None, None, "8 rows, the manifest says 10".into()),
            ]
        );
        assert_eq!(
            id_defects(&clean[..7]),
            vec![
                (None, None, "ids 107..=109 are missing".into()),
                (None, None, "7 rows, the manifest says 10".into()),
            ]
        );
    }

    /// The closed form agrees with counting shard by shard, and needs no loop for a
    /// count of 10^18 rows in one-row shards.
    #[test]
    fn a_workers_share_is_its_shards_rows() {
        for count in [0u64, 1, 999, 1000, 1001, 2300, 4000] {
            for shard_rows in [1u64, 7, 500, 1000] {
                for workers in 1u64..=5 {
                    for worker in 0..workers {
                        let counted: u64 = (0..count.div_ceil(shard_rows))
                            .filter(|s| s % workers == worker)
                            .map(|s| shard_rows.min(count - s * shard_rows))
                            .sum();
                        assert_eq!(
                            worker_share(count, shard_rows, workers, worker),
                            counted,
                            "{count} {shard_rows} {workers} {worker}"
                        );
                    }
                }
            }
        }
        assert_eq!(
            worker_share(1_000_000_000_000_000_000, 1, 4, 1),
            250_000_000_000_000_000
        );
    }
    use crate::bank::Label;
    use crate::engine::board::Nine;
    use crate::engine::grid::parse_line;
    use crate::engine::nxn::solve::nine::{self as solve, Verdict};

    // The minimal puzzle of DESIGN.md, its solution and canonical form.
    const PUZZLE: &str =
        "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";
    const CANON: &str =
        "000000001002001000003040050004000602010070508200600040050200700408700000701308000";

    fn good_row() -> Row {
        let puzzle = parse_line(PUZZLE, 1).unwrap();
        let Verdict::Unique(solution) = solve::solve(&puzzle) else {
            panic!("the example is unique")
        };
        Row {
            line: 2,
            id: 0,
            puzzle,
            solution,
            clues: 26,
            difficulty: Label::new("hard"),
            canonical: Some(parse_line(CANON, 1).unwrap()),
            rating: Nine::rate(&puzzle),
        }
    }

    fn defects(row: &Row) -> Vec<Defect> {
        let table = BandTable::default_9x9();
        let mut out = Vec::new();
        check_row::<Nine>(row, Some(&table), RatingCheck::Rerate, |d| out.push(d));
        out
    }

    fn record(first_id: u64, rows: u64) -> ShardRecord {
        ShardRecord {
            file: "bank-00000.csv.zst".into(),
            first_id,
            last_id: first_id + rows - 1,
            rows,
            bytes: 100,
            xxh3: "00000000000000ff".into(),
        }
    }

    #[test]
    fn a_wrong_or_missing_rating_is_found() {
        let good = good_row();
        assert!(good.rating.is_some(), "the example is rated");
        let mut wrong = good.clone();
        wrong.rating = Some(Rating {
            rating: 12,
            technique: crate::engine::rating::Technique::HiddenSingle,
        });
        assert_eq!(
            defects(&wrong),
            vec![Defect::WrongRating {
                stated: wrong.rating,
                expected: good.rating,
                first_id: None,
            }]
        );
        let mut missing = good.clone();
        missing.rating = None;
        assert_eq!(defects(&missing).len(), 1);
        // A variant is held to its run's first row; a bank without the columns is not.
        let table = BandTable::default_9x9();
        let mut out = Vec::new();
        let held = held_to(&good, None);
        check_row::<Nine>(&missing, Some(&table), held, |d| out.push(d));
        check_row::<Nine>(&missing, Some(&table), RatingCheck::Skip, |d| out.push(d));
        assert_eq!(out.len(), 1);
        let rows = [&good, &wrong, &missing];
        let checks = rating_checks(&rows, true, true, None, false);
        assert!(matches!(checks[0], RatingCheck::Rerate));
        assert!(matches!(checks[1], RatingCheck::Rest { first: 0 }));
        assert!(matches!(
            rating_checks(&rows, false, true, None, false)[0],
            RatingCheck::Skip
        ));
        // An earlier rater's bank: its first row is not re-rated, the rest of the
        // run must still agree with it.
        let earlier = rating_checks(&rows, true, false, None, false);
        assert!(matches!(earlier[0], RatingCheck::Skip));
        assert!(matches!(earlier[1], RatingCheck::Rest { first: 0 }));
        assert!(same_rater(crate::engine::rating::RATER_SINCE));
        assert!(same_rater("1.0.0"));
        assert!(!same_rater("0.2.0"));
    }

    /// Regression: a run that went on past a chunk or a shard had its first row there,
    /// a variant, re-rated; a variant may rate 0.1 from its seed, whose rating the
    /// whole run carries, so a fresh bank failed `verify`. Those rows are held to the
    /// run's head, and a shard's opening run waits for the shard before it.
    #[test]
    fn a_run_that_goes_on_past_a_chunk_is_held_to_its_head() {
        let good = good_row();
        let mut other = good.clone();
        other.canonical = Some([0; 81]);
        let head = RunHead::of(
            &good,
            Some(Some(Rating {
                rating: 72,
                technique: crate::engine::rating::Technique::Aic,
            })),
        )
        .unwrap();
        let rows = [&good, &good, &other, &other];
        let checks = rating_checks(&rows, true, true, Some(&head), false);
        for check in &checks[..2] {
            assert!(matches!(
                check,
                RatingCheck::SameAs {
                    rating: Some(Rating { rating: 72, .. }),
                    first_id: 0,
                    by_rater: true
                }
            ));
        }
        assert!(matches!(checks[2], RatingCheck::Rerate));
        assert!(matches!(checks[3], RatingCheck::Rest { first: 2 }));
        // A shard's first chunk: its opening run is left to the caller.
        let opening = rating_checks(&rows, true, true, None, true);
        assert_eq!(opening_run_len(&rows), 2);
        assert!(matches!(opening[0], RatingCheck::Skip));
        assert!(matches!(opening[1], RatingCheck::Skip));
        assert!(matches!(opening[2], RatingCheck::Rerate));
        assert!(matches!(opening[3], RatingCheck::Rest { first: 2 }));
        // Without a canonical form there is no run to carry.
        let mut loose = good.clone();
        loose.canonical = None;
        assert_eq!(RunHead::of(&loose, None), None);
    }

    /// A run whose first row is wrong is one defect: the rest is held to the rater's
    /// rating of that row, not to its stated one. Regression: the correct rows were
    /// reported, each with "the rater says" the first row's wrong rating.
    #[test]
    fn a_wrong_first_row_is_one_defect_and_held_rows_say_whose_rating() {
        let table = BandTable::default_9x9();
        let good = good_row();
        let mut wrong_first = good.clone();
        wrong_first.rating = Some(Rating {
            rating: 99,
            technique: crate::engine::rating::Technique::HiddenSingle,
        });
        let mut found = Vec::new();
        let rerated = check_row::<Nine>(&wrong_first, Some(&table), RatingCheck::Rerate, |d| {
            found.push(d)
        });
        assert_eq!(rerated, Some(good.rating));
        let rest = held_to(&wrong_first, rerated);
        check_row::<Nine>(&good, Some(&table), rest, |d| found.push(d));
        assert_eq!(found.len(), 1, "{found:?}");
        // Not re-rated (an earlier rater's bank): held to the stated rating, and the
        // message names the row it comes from, not a rater.
        let rest = held_to(&wrong_first, None);
        let mut found = Vec::new();
        check_row::<Nine>(&good, Some(&table), rest, |d| found.push(d));
        assert_eq!(
            found.iter().map(ToString::to_string).collect::<Vec<_>>(),
            vec![format!(
                "rating {} {}, but id {}, the first row of its canonical form, has 9.9 hidden-single",
                good.rating.unwrap(),
                good.rating.unwrap().technique.name(),
                wrong_first.id
            )]
        );
    }

    #[test]
    fn a_good_row_has_no_defect() {
        assert_eq!(defects(&good_row()), vec![]);
    }

    #[test]
    fn each_column_lie_is_caught() {
        let mut row = good_row();
        row.clues = 27;
        row.difficulty = Label::new("easy");
        row.canonical.as_mut().unwrap()[80] = 1;
        assert_eq!(
            defects(&row),
            vec![
                Defect::WrongClueCount {
                    stated: 27,
                    actual: 26
                },
                Defect::WrongBand {
                    stated: "easy".into(),
                    expected: "hard".into()
                },
                Defect::WrongCanonical,
            ]
        );
    }

    #[test]
    fn a_removed_clue_that_breaks_uniqueness_is_caught() {
        let mut row = good_row();
        // Every clue of this minimal puzzle is needed: dropping one gives 2+ solutions.
        let c = row.puzzle.iter().position(|&v| v != 0).unwrap();
        row.puzzle[c] = 0;
        row.clues = 25;
        row.canonical = None;
        assert_eq!(defects(&row), vec![Defect::MultipleSolutions]);
    }

    #[test]
    fn a_puzzle_that_contradicts_its_solution_is_caught() {
        let mut row = good_row();
        let c = row.puzzle.iter().position(|&v| v == 0).unwrap();
        row.puzzle[c] = row.solution[c] % 9 + 1;
        row.clues = 27;
        row.canonical = None;
        let found = defects(&row);
        let (row_of, column) = (c / 9 + 1, c % 9 + 1);
        assert!(
            found.contains(&Defect::PuzzleMismatch {
                row: row_of,
                column
            }),
            "{found:?}"
        );
        row.solution.swap(0, 1);
        assert!(defects(&row).contains(&Defect::InvalidSolution));
    }

    #[test]
    fn ids_report_gaps_once_and_counts() {
        let mut findings = Vec::new();
        let rec = record(10, 5);
        let mut seq = IdSequence::new(&rec);
        for (line, id) in [(2, 10), (3, 11), (4, 13), (5, 14)] {
            seq.push(&rec.file, line, Some(id), &mut findings);
        }
        seq.finish(&rec.file, &mut findings);
        let kinds: Vec<_> = findings.iter().map(|f| f.defect.clone()).collect();
        assert_eq!(
            kinds,
            vec![
                Defect::MissingIds { from: 12, to: 12 },
                Defect::WrongRowCount {
                    expected: 5,
                    found: 4
                }
            ]
        );
        assert_eq!(
            findings[0].to_string(),
            "bank-00000.csv.zst line 4 (id 13): id 12 is missing"
        );
    }

    #[test]
    fn ids_report_a_truncated_tail_and_a_repeat() {
        let mut findings = Vec::new();
        let rec = record(0, 4);
        let mut seq = IdSequence::new(&rec);
        for (line, id) in [(2, 0), (3, 0), (4, 1)] {
            seq.push(&rec.file, line, Some(id), &mut findings);
        }
        seq.finish(&rec.file, &mut findings);
        let kinds: Vec<_> = findings.iter().map(|f| f.defect.clone()).collect();
        assert_eq!(
            kinds,
            vec![
                Defect::RepeatedId,
                Defect::MissingIds { from: 2, to: 3 },
                Defect::WrongRowCount {
                    expected: 4,
                    found: 3
                }
            ]
        );
    }

    /// Rows with ids `ids` whose canonical forms are `classes` (`None`: no form).
    fn class_rows(ids: &[u64], classes: &[Option<u8>]) -> Vec<Row> {
        ids.iter()
            .zip(classes)
            .map(|(&id, class)| {
                let mut row = good_row();
                row.id = id;
                row.line = id + 2;
                row.canonical = class.map(|c| {
                    let mut cells = row.canonical.unwrap();
                    cells[80] = c;
                    cells
                });
                row
            })
            .collect()
    }

    fn runs_of(rows: &[Row], shard: u32) -> Vec<ClassRun> {
        let mut runs = Vec::new();
        class_runs(&rows.iter().collect::<Vec<_>>(), shard, &mut runs);
        runs
    }

    #[test]
    fn a_seed_cut_by_chunks_or_shards_is_one_class_run() {
        // Seeds A (ids 0-3), B (4-5), C (6-8); A cut after id 1, C across two shards.
        let a = Some(1);
        let (b, c) = (Some(2), Some(3));
        let first = class_rows(&[0, 1], &[a, a]);
        let second = class_rows(&[2, 3, 4, 5, 6], &[a, a, b, b, c]);
        let third = class_rows(&[7, 8], &[c, c]);
        let mut runs = runs_of(&third, 1);
        runs.extend(runs_of(&second, 0));
        runs.extend(runs_of(&first, 0));
        assert_eq!(runs.len(), 5);
        assert_eq!((runs[0].first_id, runs[0].line, runs[0].shard), (7, 9, 1));
        let shards = [record(0, 7), record(7, 2)];
        assert_eq!(repeated_classes(runs, &shards), vec![]);
    }

    #[test]
    fn a_second_seed_of_a_class_is_reported_where_it_starts() {
        // A at 0-1, B at 2-3, A again at 4-5 (and a row with no form between).
        let (a, b) = (Some(1), Some(2));
        let rows = class_rows(&[0, 1, 2, 3, 4, 5, 6], &[a, a, b, b, None, a, a]);
        let mut shards = [record(0, 7)];
        shards[0].file = "bank-00004.csv.zst".into();
        let found = repeated_classes(runs_of(&rows, 0), &shards);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].to_string(),
            "bank-00004.csv.zst line 7 (id 5): a second seed of the canonical class of id 0 \
             (a generated bank's seeds are essentially different)"
        );
        assert_eq!(found[0].defect.kind(), "repeated canonical class");
        // Rows out of id order (a defect of their own) do not split a seed in two.
        let rows = class_rows(&[0, 1, 3, 2, 4], &[a, a, b, a, b]);
        assert_eq!(runs_of(&rows, 0).len(), 4);
        assert_eq!(repeated_classes(runs_of(&rows, 0), &shards), vec![]);
    }

    #[test]
    fn digest_mismatches_are_reported() {
        let mut findings = Vec::new();
        let rec = record(0, 1);
        check_digest(
            &rec,
            &Digest {
                bytes: 100,
                xxh3: 0xff,
            },
            &mut findings,
        );
        assert!(findings.is_empty(), "{findings:?}");
        check_digest(
            &rec,
            &Digest {
                bytes: 99,
                xxh3: 0xfe,
            },
            &mut findings,
        );
        assert_eq!(findings.len(), 2);
        assert_eq!(findings[0].defect.kind(), "wrong size");
        assert_eq!(findings[1].defect.kind(), "wrong checksum");
    }

    #[test]
    fn the_manifest_must_add_up_and_be_complete() {
        let shards = vec![record(0, 3), {
            let mut r = record(4, 2);
            r.file = "bank-00001.csv.zst".into();
            r
        }];
        let manifest = Manifest {
            tool: "sudoku-factory".into(),
            version: "0".into(),
            params: crate::bank::format::Params {
                bands: Some("default".into()),
                count: Some(5),
                ..Default::default()
            },
            shards,
            rows: 5,
            bytes: 200,
            complete: false,
        };
        let mut findings = Vec::new();
        let table = check_manifest(&manifest, &mut findings);
        assert_eq!(table, Some(BandTable::default_9x9()));
        let kinds: Vec<_> = findings.iter().map(|f| f.defect.kind()).collect();
        // Incomplete, and shard 1 starts at 4 instead of 3.
        assert_eq!(kinds, vec!["incomplete manifest", "manifest inconsistent"]);
        assert!(findings[1].to_string().contains("bank-00001.csv.zst"));
    }
}
