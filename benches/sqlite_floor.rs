//! SQLite's own floor for `export --format sqlite` (issue #14): how fast the bundled
//! SQLite builds the exported file when none of our code touches a row.
//!
//! ```text
//! cargo bench --bench sqlite_floor -- FILE.sqlite
//! ```
//!
//! `FILE` is a finished export (`scripts/bench-export.sh` passes the one it timed).
//! Into a fresh database beside it, with the export's own pragmas and statements
//! ([`SQLITE_LOAD_PRAGMAS`], [`SQLITE_INDEXES`]), in one transaction as the export
//! does, this times:
//!
//! * `copy`: `INSERT INTO puzzles SELECT * FROM` FILE's table. Same schema, so SQLite
//!   copies each stored record as bytes (its transfer optimisation): no record is
//!   built, nothing is bound. The cheapest way any load can fill the table.
//! * `indexes`: the export's two `CREATE INDEX`, on that copy.
//! * `bind`: the per-row cost of the only public way to load rows one by one, a
//!   prepared statement: as many rows as FILE holds, bound and stepped (FILE's first
//!   4,096 rows held in memory and cycled, ids renumbered, into another fresh
//!   database), with no reading, parsing or checking.
//!
//! `bind + indexes` is the least an export through SQLite's API can take; each phase
//! is the best of three. Without FILE (as under a plain `cargo bench`) it says how to
//! run it and exits.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::types::Value;
use rusqlite::Connection;
use sudoku_factory::bank::export::{SQLITE_INDEXES, SQLITE_LOAD_PRAGMAS};

const RUNS: usize = 3;
/// Rows held in memory for `bind`.
const RING: usize = 4096;

fn main() {
    // `cargo bench` passes `--bench`; the file is the first other argument.
    let Some(file) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("sqlite_floor: usage: cargo bench --bench sqlite_floor -- FILE.sqlite");
        return;
    };
    let file = PathBuf::from(file);
    let source = Connection::open(&file).expect("opens FILE");
    let table: String = source
        .query_row(
            "SELECT sql FROM sqlite_schema WHERE name = 'puzzles'",
            [],
            |r| r.get(0),
        )
        .expect("FILE has a puzzles table");
    let rows: i64 = source
        .query_row("SELECT count(*) FROM puzzles", [], |r| r.get(0))
        .expect("counts FILE's rows");
    let ring = first_rows(&source);
    drop(source);

    let scratch = file.with_extension("floor.sqlite");
    let mut copy = Duration::MAX;
    let mut indexes = Duration::MAX;
    let mut bind = Duration::MAX;
    for _ in 0..RUNS {
        let (c, i) = copy_and_index(&file, &scratch, &table);
        copy = copy.min(c);
        indexes = indexes.min(i);
        bind = bind.min(bind_rows(&scratch, &table, &ring, rows));
    }
    let _ = std::fs::remove_file(&scratch);

    let line = |what: &str, d: Duration| {
        let s = d.as_secs_f64();
        println!("{what:<44} {s:7.3} s {:12.0} rows/s", rows as f64 / s);
    };
    println!(
        "SQLite {} floor for {} ({rows} rows), best of {RUNS}",
        rusqlite::version(),
        file.display()
    );
    line("copy (records as bytes, nothing bound)", copy);
    line("bind (prepared statement, rows in memory)", bind);
    line("indexes (the export's two CREATE INDEX)", indexes);
    line("copy + indexes", copy + indexes);
    line("bind + indexes (the floor through the API)", bind + indexes);
}

/// FILE's first rows, every column as SQLite stored it.
fn first_rows(source: &Connection) -> Vec<Vec<Value>> {
    let mut select = source
        .prepare(&format!("SELECT * FROM puzzles ORDER BY id LIMIT {RING}"))
        .expect("prepares the select");
    let n = select.column_count();
    select
        .query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .expect("reads rows")
        .collect::<Result<_, _>>()
        .expect("reads rows")
}

/// A fresh database at `path` with the export's pragmas, in a transaction, holding
/// the empty `puzzles` table.
fn fresh(path: &Path, table: &str) -> Connection {
    let _ = std::fs::remove_file(path);
    let conn = Connection::open(path).expect("creates the scratch database");
    for (name, value) in SQLITE_LOAD_PRAGMAS {
        conn.pragma_update(None, name, value)
            .expect("sets a pragma");
    }
    conn.execute_batch("BEGIN").expect("begins");
    conn.execute_batch(table).expect("creates the table");
    conn
}

fn copy_and_index(file: &Path, scratch: &Path, table: &str) -> (Duration, Duration) {
    let conn = fresh(scratch, table);
    conn.execute(
        "ATTACH ?1 AS source",
        [file.to_str().expect("a UTF-8 path")],
    )
    .expect("attaches FILE");
    let started = Instant::now();
    conn.execute_batch("INSERT INTO puzzles SELECT * FROM source.puzzles")
        .expect("copies");
    let copied = started.elapsed();
    let started = Instant::now();
    for sql in SQLITE_INDEXES {
        conn.execute_batch(sql).expect("indexes");
    }
    let indexed = started.elapsed();
    conn.execute_batch("COMMIT").expect("commits");
    (copied, indexed)
}

fn bind_rows(scratch: &Path, table: &str, ring: &[Vec<Value>], rows: i64) -> Duration {
    let conn = fresh(scratch, table);
    let n = ring[0].len();
    let marks: Vec<String> = (1..=n).map(|i| format!("?{i}")).collect();
    let mut insert = conn
        .prepare(&format!(
            "INSERT INTO puzzles VALUES ({})",
            marks.join(", ")
        ))
        .expect("prepares the insert");
    let started = Instant::now();
    for id in 0..rows {
        let row = &ring[id as usize % ring.len()];
        insert.raw_bind_parameter(1, id).expect("binds");
        for (at, value) in row.iter().enumerate().skip(1) {
            insert.raw_bind_parameter(at + 1, value).expect("binds");
        }
        insert.raw_execute().expect("inserts");
    }
    let took = started.elapsed();
    drop(insert);
    conn.execute_batch("COMMIT").expect("commits");
    took
}
