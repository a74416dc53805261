//! The export's stream: a reader thread decompresses the shards and splits each
//! decompressed chunk into rows (where each field ends: the chunk itself is lent, not
//! copied), and the calling thread filters, encodes and writes them; batches are
//! reused, so nothing is allocated per row, and memory is a few chunks of 256 KiB
//! whatever the bank's size (plus 16 bytes per class with `--one-per-class`). Each shard's XXH3
//! and row count are checked against the manifest as it is read, so a damaged bank
//! fails the export.
//!
//! Here are [`export`], which checks the bank and the request and hands the rows to
//! the format's writer, and the writers of the streamed formats (CSV, JSON Lines and
//! the line formats). The reader and the rows every writer reads, Parquet's and
//! SQLite's too, are in `rows`.

use std::collections::HashSet;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::sync::mpsc;

use anyhow::{anyhow, bail, Context};

use super::parquet::write_parquet;
use super::rows::{read_shards, Batch, Request, RowFailure, Rows};
use super::sqlite::write_sqlite;
use super::{ExportError, Filter, Format, Schema};
use crate::bank::format::{DEFAULT_ZSTD_LEVEL, MANIFEST};
use crate::bank::reader::{check_bands, check_complete, refuse_bank_file, Fields};
use crate::bank::{self, RecordReader};
use crate::engine::grid::Size;
use crate::util::output::{is_broken_pipe, parent_of, TempOutput, WriteBack};

/// Batches (a decompressed chunk each) in flight: the bound that keeps memory flat
/// when the writer is slower.
const BATCHES_IN_FLIGHT: usize = 4;
/// Bytes of encoded rows gathered before one write to the output.
const WRITE_CHUNK: usize = 1 << 16;

/// Where the rows go: a file (through its temporary twin, which the caller commits),
/// or a stream such as standard output for the streamed formats (a pipe has no
/// half-written state to hide), with the name messages call it by.
pub enum Destination<'a> {
    File(&'a TempOutput),
    /// One file per bucket of [`super::EXCHANGE_FILES`] (`--format sudoku-exchange`
    /// into a directory), in that order.
    Exchange(&'a [TempOutput]),
    Stream {
        name: &'a str,
        writer: Box<dyn Write + 'a>,
    },
}

/// What an export did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exported {
    /// Rows written.
    pub kept: u64,
    /// Rows of the whole bank.
    pub bank_rows: u64,
    /// The stream's reader closed it (`... --to - | head`): it wanted no more rows,
    /// which is not a failure; the rest of the bank was not read.
    pub closed: bool,
}

/// Checks the bank and the request, then streams the kept rows to `to` in bank order.
/// `on_rows(read, total)` hears, batch by batch, how many rows were read of the
/// bank's total (for a progress bar).
pub fn export(
    request: &Request<'_>,
    to: Destination<'_>,
    on_rows: &dyn Fn(u64, u64),
) -> anyhow::Result<Exported> {
    let dir = request.bank;
    if let Destination::File(file) = &to {
        refuse_bank_file(file.dest(), dir)?;
    }
    let manifest = bank::read_manifest(dir)?;
    let size = manifest
        .params
        .board_size()
        .map_err(|e| anyhow!("{}: params.{e}", dir.join(MANIFEST).display()))?;
    check_complete(dir, &manifest)?;
    if request.format == Format::CsvKaggle && size != Size::Nine {
        bail!("--format csv-kaggle: {}", ExportError::KaggleSize(size));
    }
    if request.format == Format::OpenSudoku && size != Size::Nine {
        bail!("--format opensudoku: {}", ExportError::OpenSudokuSize(size));
    }
    if request.format == Format::SudokuExchange && size != Size::Nine {
        bail!(
            "--format sudoku-exchange: {}",
            ExportError::ExchangeSize(size)
        );
    }
    check_bands(request.difficulty, &manifest, size).context("--difficulty")?;

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
        difficulty: request.difficulty.to_vec(),
        one_per_class: request.one_per_class.then(HashSet::new),
        limit: request.limit,
        kept: 0,
    };
    let streamed = matches!(to, Destination::Stream { .. });
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
            on_rows: &|n| on_rows(n, manifest.rows),
        };
        let written = match (request.format, to) {
            (Format::Sqlite, Destination::File(file)) => {
                write_sqlite(file, &mut rows, manifest, request)
            }
            (Format::Sqlite, Destination::Stream { .. } | Destination::Exchange(_)) => Err(
                anyhow!("--format sqlite writes a file it can seek in, not a stream"),
            ),
            (Format::Parquet, Destination::File(file)) => {
                write_parquet(file, &mut rows, manifest, request)
            }
            (Format::Parquet, Destination::Stream { .. } | Destination::Exchange(_)) => {
                Err(anyhow!(
                    "--format parquet writes a file (its footer is written last), not a stream"
                ))
            }
            (Format::SudokuExchange, Destination::Exchange(files)) => {
                write_exchange_files(files, &mut rows)
            }
            (_, Destination::Exchange(_)) => Err(anyhow!(
                "only --format sudoku-exchange writes one file per rating bucket"
            )),
            (Format::SudokuExchange, to) => write_lines(to, &mut rows, Lines::Exchange),
            (Format::OpenSudoku, to) => write_lines(to, &mut rows, Lines::OpenSudoku),
            (Format::Jsonl, to) => write_lines(to, &mut rows, Lines::Json(schema.json_keys())),
            (Format::CsvKaggle, to) => write_lines(to, &mut rows, Lines::Kaggle),
            (Format::Csv, to) => write_csv(to, &mut rows, header, request.zstd),
        };
        // Stop the reader if the writer stopped first (an error, or --limit reached).
        drop(batches);
        (
            written,
            reader.join().expect("the reader thread does not panic"),
        )
    });
    let closed = streamed && written.as_ref().is_err_and(is_broken_pipe);
    if !closed {
        written?;
        read?;
    }
    Ok(Exported {
        kept: filter.kept,
        bank_rows: manifest.rows,
        closed,
    })
}

impl Destination<'_> {
    /// What error messages call it: the file being written.
    fn writing(&self) -> String {
        match self {
            Destination::File(file) => format!("writing {}", file.tmp().display()),
            Destination::Exchange(files) => match files.first() {
                Some(file) => format!("writing {}", parent_of(file.dest()).display()),
                None => "writing nothing".to_string(),
            },
            Destination::Stream { name, .. } => format!("writing to {name}"),
        }
    }
}

/// The writer of a streamed format (written in chunks of [`WRITE_CHUNK`] or more, so
/// one dynamic call per chunk), and what errors call it.
fn stream_writer<'a>(to: Destination<'a>) -> anyhow::Result<(Box<dyn Write + 'a>, String)> {
    let writing = to.writing();
    Ok(match to {
        Destination::File(file) => (Box::new(WriteBack::new(file.create()?)), writing),
        Destination::Stream { writer, .. } => (writer, writing),
        Destination::Exchange(_) => bail!("{writing}: one stream cannot hold several files"),
    })
}

/// A failure to write, said with what was being written.
fn write_error(writing: &str, e: impl Into<anyhow::Error>) -> RowFailure {
    RowFailure::Write(e.into().context(writing.to_string()))
}

/// A text format encoded row by row into a reused buffer.
enum Lines {
    /// JSON Lines, with each column's `"name":` made once.
    Json(Vec<Vec<u8>>),
    /// `quizzes,solutions`.
    Kaggle,
    /// The Sudoku Exchange puzzle bank's lines, every row in one file.
    Exchange,
    /// OpenSudoku `<game>` elements.
    OpenSudoku,
}

fn write_lines(to: Destination<'_>, rows: &mut Rows<'_>, lines: Lines) -> anyhow::Result<()> {
    let (mut file, writing) = stream_writer(to)?;
    let mut buf = Vec::with_capacity(2 * WRITE_CHUNK);
    if let Lines::Kaggle = lines {
        buf.extend_from_slice(b"quizzes,solutions\n");
    }
    let schema = rows.schema;
    rows.each(|record| {
        match &lines {
            Lines::Json(keys) => schema.write_json(record, keys, &mut buf)?,
            Lines::Kaggle => schema.write_kaggle(record, &mut buf)?,
            Lines::Exchange => {
                schema.write_exchange(record, &mut buf)?;
            }
            Lines::OpenSudoku => schema.write_opensudoku(record, &mut buf)?,
        }
        if buf.len() >= WRITE_CHUNK {
            file.write_all(&buf).map_err(|e| write_error(&writing, e))?;
            buf.clear();
        }
        Ok(())
    })?;
    file.write_all(&buf)
        .and_then(|()| file.flush())
        .with_context(|| writing.clone())
}

/// `--format sudoku-exchange` into a directory: each row to the file of its rating's
/// bucket ([`super::EXCHANGE_FILES`]), through a reused buffer per file.
fn write_exchange_files(files: &[TempOutput], rows: &mut Rows<'_>) -> anyhow::Result<()> {
    let mut outs = Vec::with_capacity(files.len());
    for file in files {
        let writing = format!("writing {}", file.tmp().display());
        outs.push((
            WriteBack::new(file.create()?),
            Vec::with_capacity(2 * WRITE_CHUNK),
            writing,
        ));
    }
    let mut line = Vec::with_capacity(128);
    let schema = rows.schema;
    rows.each(|record| {
        line.clear();
        let tenths = schema.write_exchange(record, &mut line)?;
        let bucket = super::EXCHANGE_FILES
            .iter()
            .position(|&(_, below)| tenths < below)
            .unwrap_or(super::EXCHANGE_FILES.len() - 1);
        let (file, buf, writing) = &mut outs[bucket];
        buf.extend_from_slice(&line);
        if buf.len() >= WRITE_CHUNK {
            file.write_all(buf).map_err(|e| write_error(writing, e))?;
            buf.clear();
        }
        Ok(())
    })?;
    for (mut file, buf, writing) in outs {
        file.write_all(&buf)
            .and_then(|()| file.flush())
            .with_context(|| writing.clone())?;
    }
    Ok(())
}

/// The plain or zstd-compressed output of `--format csv`.
enum CsvOut<'a> {
    Plain(BufWriter<Box<dyn Write + 'a>>),
    Zstd(zstd::Encoder<'static, BufWriter<Box<dyn Write + 'a>>>),
}

impl Write for CsvOut<'_> {
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
    to: Destination<'_>,
    rows: &mut Rows<'_>,
    header: &csv::ByteRecord,
    zstd: bool,
) -> anyhow::Result<()> {
    let (file, writing) = stream_writer(to)?;
    let file = BufWriter::with_capacity(1 << 20, file);
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
        .with_context(|| writing.clone())?;
    let schema = rows.schema;
    rows.each(|record| {
        schema.check(record)?;
        csv.write_record((0..record.len()).map(|i| record.get(i).unwrap_or_default()))
            .map_err(|e| write_error(&writing, e))
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
    finished.with_context(|| writing)
}
