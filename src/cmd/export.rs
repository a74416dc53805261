//! `sudoku-factory export BANK --to FILE [--format F]`: one file an app or an analyst
//! opens directly — SQLite, JSON Lines, the public `quizzes,solutions` CSV or plain
//! CSV — made from a complete bank in one streaming pass.
//!
//! Two threads: a reader decompresses and splits the shards into batches of raw CSV
//! records (reused, so nothing is allocated per row), and this thread filters, encodes
//! and writes them; memory is a few batches whatever the bank's size (plus 16 bytes
//! per class with `--one-per-class`). Each shard's XXH3 and row count are checked
//! against the manifest as it is read, so a damaged bank fails the export.
//!
//! The output is written under a hidden temporary name beside FILE
//! (`.FILE.tmp-PID`), fsynced and renamed only when complete: an export that fails
//! or is killed never leaves a partial FILE (a killed one may leave its temporary
//! file, which is never mistaken for FILE). The formats themselves live in
//! [`crate::bank::export`].

use std::collections::HashSet;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::Connection;

use crate::bank::export::{
    ExportError, Field, Filter, Format, Schema, SQLITE_INDEXES, SQLITE_LOAD_PRAGMAS,
    SQLITE_USER_VERSION,
};
use crate::bank::format::{Manifest, DEFAULT_ZSTD_LEVEL, MANIFEST};
use crate::bank::reader::{check_bands, check_complete, refuse_bank_file, shard_mismatch};
use crate::bank::{self, RecordReader};
use crate::cli::ExportArgs;
use crate::engine::grid::Size;
use crate::say;
use crate::util::output::{refuse_existing, with_write_back, TempOutput, WriteBack};
use crate::util::signals::creating;

use super::Outcome;

/// Rows per batch between the reader and the writer: large enough that the channel
/// costs nothing per row, small enough that a few batches in flight are a few MiB.
const BATCH_ROWS: usize = 2048;
/// Batches in flight: the bound that keeps memory flat when the writer is slower.
const BATCHES_IN_FLIGHT: usize = 4;
/// Bytes of encoded rows gathered before one write to the output.
const WRITE_CHUNK: usize = 1 << 16;
/// How often the SQLite file's written pages are sent on to disk during the export
/// (20 ms was the fastest of 5, 10, 20 and 50 on 1M rows).
const WRITE_BACK_EVERY: std::time::Duration = std::time::Duration::from_millis(20);

pub fn run(args: &ExportArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let to_stdout = args.to.as_os_str() == "-";
    let (format, zstd) = resolve_format(args, to_stdout)?;
    let dir = &args.bank;
    if !to_stdout {
        refuse_existing(&args.to, args.force)?;
        refuse_bank_file(&args.to, dir)?;
    }
    let manifest = bank::read_manifest(dir)?;
    let size = manifest
        .params
        .board_size()
        .map_err(|e| anyhow!("{}: params.{e}", dir.join(MANIFEST).display()))?;
    check_complete(dir, &manifest)?;
    if format == Format::CsvKaggle && size != Size::Nine {
        bail!("--format csv-kaggle: {}", ExportError::KaggleSize(size));
    }
    check_bands(&args.difficulty, &manifest, size)?;

    // The first shard's header fixes the columns every shard must have.
    let paths: Vec<PathBuf> = manifest.shards.iter().map(|s| dir.join(&s.file)).collect();
    let mut first = match paths.first() {
        Some(path) => {
            let mut reader = RecordReader::open(path)?;
            reader.read_header()?;
            Some(reader)
        }
        None => None,
    };
    let header = match &first {
        Some(reader) => reader.header().clone(),
        None => csv::ByteRecord::from(bank::format::COLUMNS.to_vec()),
    };
    let schema = Schema::from_header(&header, size)
        .map_err(|e| anyhow!("{}: {e}", paths.first().map_or(dir, |p| p).display()))?;

    let mut filter = Filter {
        difficulty: args.difficulty.clone(),
        one_per_class: args.one_per_class.then(HashSet::new),
        limit: args.limit,
        kept: 0,
    };
    let bar = progress(args.quiet, manifest.rows);
    let output = if to_stdout {
        Output::Stdout
    } else {
        Output::File(TempOutput::new(&args.to)?)
    };

    let (to_writer, batches) = mpsc::sync_channel::<Batch>(BATCHES_IN_FLIGHT);
    let (recycle, recycled) = mpsc::channel::<Batch>();
    let (written, read) = std::thread::scope(|scope| {
        let (manifest, paths, header) = (&manifest, &paths, &header);
        let first = first.take();
        // The sender moves into the reader: when it is done, the channel closes.
        let reader =
            scope.spawn(move || read_shards(manifest, paths, first, header, &to_writer, &recycled));
        let mut rows = Rows {
            batches: &batches,
            recycle: &recycle,
            paths,
            schema: &schema,
            filter: &mut filter,
            bar: &bar,
        };
        let written = match (format, &output) {
            (Format::Sqlite, Output::File(file)) => write_sqlite(file, &mut rows, manifest, args),
            (Format::Sqlite, Output::Stdout) => unreachable!("refused by resolve_format"),
            (Format::Jsonl, _) => write_lines(&output, &mut rows, Lines::Json(schema.json_keys())),
            (Format::CsvKaggle, _) => write_lines(&output, &mut rows, Lines::Kaggle),
            (Format::Csv, _) => write_csv(&output, &mut rows, header, zstd),
        };
        // Stop the reader if the writer stopped first (an error, or --limit reached).
        drop(batches);
        (
            written,
            reader.join().expect("the reader thread does not panic"),
        )
    });
    bar.finish_and_clear();
    // A reader that closed standard output (`... --to - | head`) wanted no more rows:
    // not a failure, and the rest of the bank is not read.
    let closed = to_stdout && written.as_ref().is_err_and(super::is_broken_pipe);
    if !closed {
        written?;
        read?;
    }
    let name = output.name();
    output.commit()?;

    if !args.quiet {
        let secs = started.elapsed().as_secs_f64();
        say!(
            "sudoku-factory: exported {} of {} rows to {} ({}) in {secs:.2} s, {:.0} rows/s{}",
            filter.kept,
            manifest.rows,
            name,
            format.name(),
            filter.kept as f64 / secs.max(1e-9),
            if closed {
                " (standard output was closed: stopped there)"
            } else {
                ""
            }
        );
    }
    Ok(Outcome::Clean)
}

/// `--format`, or the one FILE's extension implies; and whether to compress. Standard
/// output (`--to -`) takes the streamed formats, named by `--format`.
fn resolve_format(args: &ExportArgs, to_stdout: bool) -> anyhow::Result<(Format, bool)> {
    let inferred = Format::infer(&args.to);
    let format = match (args.format, inferred) {
        (Some(f), _) => Format::from(f),
        (None, _) if to_stdout => bail!(
            "--to - writes to standard output: pass --format jsonl, csv-kaggle or csv"
        ),
        (None, Some((f, _))) => f,
        (None, None) => bail!(
            "cannot tell the format from the name {}: pass --format sqlite, jsonl, csv-kaggle or csv (or name it .sqlite, .db, .jsonl, .csv or .csv.zst)",
            args.to.display()
        ),
    };
    // An explicit format must fit a name that implies one (a Kaggle CSV is a CSV,
    // but not a compressed one): JSON Lines in `x.csv.zst` helps no one.
    if let (Some(_), Some((named, zst))) = (args.format, inferred) {
        let fits = match named {
            Format::Csv => format == Format::Csv || (format == Format::CsvKaggle && !zst),
            named => named == format,
        };
        if !fits {
            let what = match (named, zst) {
                (Format::Sqlite, _) => "a SQLite database",
                (Format::Jsonl, _) => "JSON Lines",
                (_, true) => "zstd-compressed CSV",
                _ => "CSV",
            };
            let ext = match format {
                Format::Sqlite => ".sqlite",
                Format::Jsonl => ".jsonl",
                Format::CsvKaggle | Format::Csv => ".csv",
            };
            bail!(
                "--format {} does not fit the name {}, which says {what}: name it {ext}, or leave --format out",
                format.name(),
                args.to.display()
            );
        }
    }
    if to_stdout && format == Format::Sqlite {
        bail!(
            "--format sqlite cannot go to standard output (--to -): SQLite writes a file it can seek in; name one, e.g. --to puzzles.sqlite"
        );
    }
    let zstd = args.zstd || (format == Format::Csv && inferred == Some((Format::Csv, true)));
    if zstd && format != Format::Csv {
        bail!(
            "--zstd compresses --format csv only, not {} ({})",
            format.name(),
            args.to.display()
        );
    }
    Ok((format, zstd))
}

fn progress(quiet: bool, total: u64) -> ProgressBar {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        // Drawn only when stderr is a terminal.
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} rows  {per_sec}  ETA {eta}",
        )
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    bar
}

/// Raw records of one shard, reused from batch to batch.
struct Batch {
    shard: usize,
    records: Vec<csv::ByteRecord>,
    len: usize,
}

/// The reader thread: every listed shard in order, in batches; each shard's header,
/// row count and XXH3 checked against the manifest. Returns early (and fine) when
/// the writer hangs up.
fn read_shards(
    manifest: &Manifest,
    paths: &[PathBuf],
    mut first: Option<RecordReader>,
    header: &csv::ByteRecord,
    batches: &mpsc::SyncSender<Batch>,
    recycled: &mpsc::Receiver<Batch>,
) -> anyhow::Result<()> {
    for (k, (shard, path)) in manifest.shards.iter().zip(paths).enumerate() {
        let mut reader = match first.take() {
            Some(reader) => reader,
            None => RecordReader::open(path)?,
        };
        reader.read_header()?;
        if reader.header() != header {
            bail!(
                "{}: its header differs from the first shard's ({})",
                path.display(),
                paths[0].display()
            );
        }
        let mut rows = 0u64;
        loop {
            let mut batch = recycled.try_recv().unwrap_or_else(|_| Batch {
                shard: k,
                records: Vec::with_capacity(BATCH_ROWS),
                len: 0,
            });
            batch.shard = k;
            batch.len = 0;
            while batch.len < BATCH_ROWS {
                if batch.records.len() == batch.len {
                    batch.records.push(csv::ByteRecord::new());
                }
                if !reader.next_record(&mut batch.records[batch.len])? {
                    break;
                }
                batch.len += 1;
            }
            rows += batch.len as u64;
            let last = batch.len < BATCH_ROWS;
            if batch.len > 0 && batches.send(batch).is_err() {
                return Ok(());
            }
            if last {
                break;
            }
        }
        let digest = reader.finish()?;
        if let Some(what) = shard_mismatch(shard, rows, &digest) {
            bail!("{}: {what} (run `sudoku-factory verify`)", path.display());
        }
    }
    Ok(())
}

/// Why one row could not be written: the row is bad (named by shard and line), or
/// the output failed.
enum RowFailure {
    Bad(ExportError),
    Write(anyhow::Error),
}

impl From<ExportError> for RowFailure {
    fn from(e: ExportError) -> Self {
        RowFailure::Bad(e)
    }
}

/// The writer's side of the stream: batches in, kept rows out to a format.
struct Rows<'a> {
    batches: &'a mpsc::Receiver<Batch>,
    recycle: &'a mpsc::Sender<Batch>,
    paths: &'a [PathBuf],
    schema: &'a Schema,
    filter: &'a mut Filter,
    bar: &'a ProgressBar,
}

impl Rows<'_> {
    /// Runs `per_row` on every row the filter keeps, in bank order.
    fn each(
        &mut self,
        mut per_row: impl FnMut(&csv::ByteRecord) -> Result<(), RowFailure>,
    ) -> anyhow::Result<()> {
        while let Ok(batch) = self.batches.recv() {
            for record in &batch.records[..batch.len] {
                if !self.filter.keep(self.schema, record) {
                    continue;
                }
                match per_row(record) {
                    Ok(()) => {}
                    Err(RowFailure::Write(e)) => return Err(e),
                    Err(RowFailure::Bad(e)) => {
                        let line = record.position().map_or(0, |p| p.line());
                        bail!("{}, line {line}: {e}", self.paths[batch.shard].display());
                    }
                }
            }
            self.bar.inc(batch.len as u64);
            let _ = self.recycle.send(batch);
            if self.filter.full() {
                break;
            }
        }
        Ok(())
    }
}

/// Where the rows go: FILE (through its temporary twin) or standard output
/// (`--to -`, the streamed formats: a pipe has no half-written state to hide).
enum Output {
    File(TempOutput),
    Stdout,
}

impl Output {
    /// What the summary calls it.
    fn name(&self) -> String {
        match self {
            Output::File(file) => file.dest().display().to_string(),
            Output::Stdout => "standard output".to_string(),
        }
    }

    /// What error messages call it: the file being written.
    fn writing(&self) -> String {
        match self {
            Output::File(file) => format!("writing {}", file.tmp().display()),
            Output::Stdout => "writing to standard output".to_string(),
        }
    }

    /// The writer of a streamed format (written in chunks of [`WRITE_CHUNK`] or more,
    /// so one dynamic call per chunk).
    fn create_streamed(&self) -> anyhow::Result<Box<dyn Write>> {
        Ok(match self {
            Output::File(file) => Box::new(WriteBack::new(file.create()?)),
            Output::Stdout => Box::new(io::stdout().lock()),
        })
    }

    fn write_error(&self, e: impl Into<anyhow::Error>) -> RowFailure {
        RowFailure::Write(e.into().context(self.writing()))
    }

    fn commit(self) -> anyhow::Result<()> {
        match self {
            Output::File(file) => Ok(file.commit()?),
            Output::Stdout => Ok(()),
        }
    }
}

/// A text format encoded row by row into a reused buffer.
enum Lines {
    /// JSON Lines, with each column's `"name":` made once.
    Json(Vec<Vec<u8>>),
    /// `quizzes,solutions`.
    Kaggle,
}

fn write_lines(output: &Output, rows: &mut Rows<'_>, lines: Lines) -> anyhow::Result<()> {
    let mut file = output.create_streamed()?;
    let mut buf = Vec::with_capacity(2 * WRITE_CHUNK);
    if let Lines::Kaggle = lines {
        buf.extend_from_slice(b"quizzes,solutions\n");
    }
    let schema = rows.schema;
    rows.each(|record| {
        match &lines {
            Lines::Json(keys) => schema.write_json(record, keys, &mut buf)?,
            Lines::Kaggle => schema.write_kaggle(record, &mut buf)?,
        }
        if buf.len() >= WRITE_CHUNK {
            file.write_all(&buf).map_err(|e| output.write_error(e))?;
            buf.clear();
        }
        Ok(())
    })?;
    file.write_all(&buf)
        .and_then(|()| file.flush())
        .with_context(|| output.writing())
}

/// The plain or zstd-compressed output of `--format csv`.
enum CsvOut {
    Plain(BufWriter<Box<dyn Write>>),
    Zstd(zstd::Encoder<'static, BufWriter<Box<dyn Write>>>),
}

impl Write for CsvOut {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            CsvOut::Plain(w) => w.write(buf),
            CsvOut::Zstd(w) => w.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            CsvOut::Plain(w) => w.flush(),
            CsvOut::Zstd(w) => w.flush(),
        }
    }
}

fn write_csv(
    output: &Output,
    rows: &mut Rows<'_>,
    header: &csv::ByteRecord,
    zstd: bool,
) -> anyhow::Result<()> {
    let file = BufWriter::with_capacity(1 << 20, output.create_streamed()?);
    let out = if zstd {
        // The shards' default level: on these rows, mostly random digits, the
        // fastest level is also smaller than the levels up to 9.
        CsvOut::Zstd(zstd::Encoder::new(file, DEFAULT_ZSTD_LEVEL).context("starting zstd")?)
    } else {
        CsvOut::Plain(file)
    };
    let mut csv = csv::WriterBuilder::new()
        .buffer_capacity(WRITE_CHUNK)
        .from_writer(out);
    csv.write_byte_record(header)
        .with_context(|| output.writing())?;
    let schema = rows.schema;
    rows.each(|record| {
        schema.check(record)?;
        csv.write_byte_record(record)
            .map_err(|e| output.write_error(e))
    })?;
    let finished = csv
        .into_inner()
        .map_err(|e| e.into_error())
        .and_then(|out| match out {
            CsvOut::Plain(w) => Ok(w),
            CsvOut::Zstd(w) => w.finish(),
        })
        .and_then(|w| w.into_inner().map_err(|e| e.into_error()))
        .and_then(|mut sink| sink.flush());
    finished.with_context(|| output.writing())
}

fn write_sqlite(
    output: &TempOutput,
    rows: &mut Rows<'_>,
    manifest: &Manifest,
    args: &ExportArgs,
) -> anyhow::Result<()> {
    // Created here (SQLite takes an empty file as a new database) so that the
    // writeback has it from the start.
    let file = output.create()?;
    with_write_back(&file, WRITE_BACK_EVERY, || {
        load_sqlite(output, rows, manifest, args)
    })
}

/// The database: table, rows in one transaction, indexes, `meta`, `user_version`.
fn load_sqlite(
    output: &TempOutput,
    rows: &mut Rows<'_>,
    manifest: &Manifest,
    args: &ExportArgs,
) -> anyhow::Result<()> {
    let path = output.tmp();
    let context = || format!("writing the SQLite database {}", path.display());
    // Under the sweep's lock: SQLite creates the file again if a signal removed it.
    let mut conn = creating(|| Connection::open(path)).with_context(context)?;
    for (name, value) in SQLITE_LOAD_PRAGMAS {
        conn.pragma_update(None, name, value)
            .with_context(context)?;
    }
    let schema = rows.schema;
    let tx = conn.transaction().with_context(context)?;
    tx.execute_batch(&schema.create_table_sql())
        .with_context(context)?;
    {
        let mut insert = tx.prepare(&schema.insert_sql()).with_context(context)?;
        let n = schema.columns.len();
        rows.each(|record| {
            schema.check_len(record)?;
            for i in 0..n {
                let at = i + 1;
                match schema.field(record, i)? {
                    Field::Null => insert.raw_bind_parameter(at, rusqlite::types::Null),
                    Field::Integer(v) => insert.raw_bind_parameter(at, v),
                    Field::Real(v, _) => insert.raw_bind_parameter(at, v),
                    Field::Text(t) => {
                        insert.raw_bind_parameter(at, ToSqlOutput::Borrowed(ValueRef::Text(t)))
                    }
                }
                .map_err(|e| {
                    RowFailure::Write(
                        anyhow::Error::new(e)
                            .context(format!("writing {}", output.tmp().display())),
                    )
                })?;
            }
            insert.raw_execute().map_err(|e| {
                RowFailure::Write(
                    anyhow::Error::new(e).context(format!("writing {}", output.tmp().display())),
                )
            })?;
            Ok(())
        })?;
    }
    for sql in SQLITE_INDEXES {
        tx.execute_batch(sql).with_context(context)?;
    }
    tx.execute_batch("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        .with_context(context)?;
    {
        let mut meta = tx
            .prepare("INSERT INTO meta (key, value) VALUES (?1, ?2)")
            .with_context(context)?;
        for (key, value) in meta_rows(manifest, args, rows.filter.kept) {
            meta.execute((key, value)).with_context(context)?;
        }
    }
    tx.pragma_update(None, "user_version", SQLITE_USER_VERSION)
        .with_context(context)?;
    tx.commit().with_context(context)?;
    conn.close().map_err(|(_, e)| e).with_context(context)
}

/// The `meta` table: the bank's manifest (tool, version, seed, params as JSON, the
/// whole manifest) and how this file was exported from it.
fn meta_rows(manifest: &Manifest, args: &ExportArgs, kept: u64) -> Vec<(&'static str, String)> {
    let params = serde_json::to_string(&manifest.params).expect("params serialise");
    let export = serde_json::json!({
        "tool": env!("CARGO_PKG_NAME"),
        "version": env!("CARGO_PKG_VERSION"),
        "bank": args.bank.display().to_string(),
        "difficulty": args.difficulty,
        "one_per_class": args.one_per_class,
        "limit": args.limit,
        "rows": kept,
    });
    let mut rows = vec![
        ("tool", manifest.tool.clone()),
        ("version", manifest.version.clone()),
        ("size", manifest.params.size.to_string()),
        ("params", params),
        ("bank_rows", manifest.rows.to_string()),
        ("rows", kept.to_string()),
        ("export", export.to_string()),
        (
            "manifest",
            serde_json::to_string(manifest).expect("the manifest serialises"),
        ),
    ];
    if let Some(seed) = manifest.params.seed {
        rows.push(("seed", seed.to_string()));
    }
    rows
}
