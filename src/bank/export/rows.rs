//! The export's rows, the side every format's writer shares: what is asked
//! ([`Request`]), the reader thread that decompresses the shards into reused batches
//! and checks each one's XXH3 and row count against the manifest ([`read_shards`]),
//! and the writer's view of those batches ([`Rows`]): the rows the filter keeps, in
//! bank order. A writer (the streamed formats in `stream`, `parquet`, `sqlite`) says
//! why a row failed with a [`RowFailure`].

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use anyhow::bail;

use super::{ExportError, Filter, Format, Schema};
use crate::bank::format::Manifest;
use crate::bank::reader::{shard_mismatch, Fields, RawRow, RawRows};
use crate::bank::RecordReader;

/// What to export, and how.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The bank's directory.
    pub bank: &'a Path,
    pub format: Format,
    /// Compress `--format csv` with zstd.
    pub zstd: bool,
    /// Keep only these bands (empty: all).
    pub difficulty: &'a [String],
    /// Keep the first row of each canonical form.
    pub one_per_class: bool,
    /// Stop after this many rows.
    pub limit: Option<u64>,
}

/// Raw rows of one shard, reused from batch to batch.
pub(super) struct Batch {
    shard: usize,
    rows: RawRows,
}

/// The reader thread: every listed shard in order, in batches; each shard's header,
/// row count and XXH3 checked against the manifest. Returns early (and fine) when
/// the writer hangs up.
pub(super) fn read_shards(
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
                rows: RawRows::default(),
            });
            batch.shard = k;
            if !reader.read_rows(&mut batch.rows)? {
                break;
            }
            rows += batch.rows.len() as u64;
            if batches.send(batch).is_err() {
                return Ok(());
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
pub(super) enum RowFailure {
    Bad(ExportError),
    Write(anyhow::Error),
}

impl From<ExportError> for RowFailure {
    fn from(e: ExportError) -> Self {
        RowFailure::Bad(e)
    }
}

/// The writer's side of the stream: batches in, kept rows out to a format.
pub(super) struct Rows<'a> {
    pub(super) batches: &'a mpsc::Receiver<Batch>,
    pub(super) recycle: &'a mpsc::Sender<Batch>,
    pub(super) paths: &'a [PathBuf],
    pub(super) schema: &'a Schema,
    pub(super) filter: &'a mut Filter,
    pub(super) on_rows: &'a dyn Fn(u64),
}

impl Rows<'_> {
    /// Runs `per_row` on every row the filter keeps, in bank order.
    pub(super) fn each(
        &mut self,
        mut per_row: impl FnMut(&RawRow<'_>) -> Result<(), RowFailure>,
    ) -> anyhow::Result<()> {
        while let Ok(batch) = self.batches.recv() {
            for i in 0..batch.rows.len() {
                let record = batch.rows.row(i);
                if !self.filter.keep(self.schema, &record) {
                    continue;
                }
                match per_row(&record) {
                    Ok(()) => {}
                    Err(RowFailure::Write(e)) => return Err(e),
                    Err(RowFailure::Bad(e)) => {
                        let line = record.line();
                        bail!("{}, line {line}: {e}", self.paths[batch.shard].display());
                    }
                }
            }
            (self.on_rows)(batch.rows.len() as u64);
            let _ = self.recycle.send(batch);
            if self.filter.full() {
                break;
            }
        }
        Ok(())
    }
}
