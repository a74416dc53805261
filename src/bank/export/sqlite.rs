//! `--format sqlite`: the database is loaded in one transaction into the output's
//! temporary twin, with its indexes, a `meta` table (the manifest, and how this file
//! was exported) and `user_version`.

use anyhow::Context;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::Connection;

use super::rows::{Request, RowFailure, Rows};
use super::{Field, SQLITE_INDEXES, SQLITE_LOAD_PRAGMAS, SQLITE_USER_VERSION};
use crate::bank::format::Manifest;
use crate::util::output::{with_write_back, TempOutput};
use crate::util::signals::creating;

/// How often the SQLite file's written pages are sent on to disk during the export
/// (20 ms was the fastest of 5, 10, 20 and 50 on 1M rows).
const WRITE_BACK_EVERY: std::time::Duration = std::time::Duration::from_millis(20);

pub(super) fn write_sqlite(
    output: &TempOutput,
    rows: &mut Rows<'_>,
    manifest: &Manifest,
    request: &Request<'_>,
) -> anyhow::Result<()> {
    // Created here (SQLite takes an empty file as a new database) so that the
    // writeback has it from the start.
    let file = output.create()?;
    with_write_back(&file, WRITE_BACK_EVERY, || {
        load_sqlite(output, rows, manifest, request)
    })
}

/// The database: table, rows in one transaction, indexes, `meta`, `user_version`.
fn load_sqlite(
    output: &TempOutput,
    rows: &mut Rows<'_>,
    manifest: &Manifest,
    request: &Request<'_>,
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
        for (key, value) in meta_rows(manifest, request, rows.filter.kept) {
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
fn meta_rows(manifest: &Manifest, request: &Request<'_>, kept: u64) -> Vec<(&'static str, String)> {
    let params = serde_json::to_string(&manifest.params).expect("params serialise");
    let export = serde_json::json!({
        "tool": env!("CARGO_PKG_NAME"),
        "version": env!("CARGO_PKG_VERSION"),
        "bank": request.bank.display().to_string(),
        "difficulty": request.difficulty,
        "one_per_class": request.one_per_class,
        "limit": request.limit,
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
