#!/usr/bin/env python3
"""Read a Parquet file made by `sudoku-factory export --format parquet` with two
independent readers, DuckDB and pyarrow, and print a JSON summary on stdout:

    {"duckdb": {"rows": N, "bands": {...}, "sample": {column: text}, "types": {column: type}},
     "pyarrow": {"rows": N, "bands": {...}, "sample": {...}, "types": {...},
                 "required": {column: bool}, "row_groups": K, "compression": [...],
                 "encodings": {column: [...]}, "metadata_keys": [...],
                 "manifest_rows": N}}

usage: read-parquet.py FILE ID
ID picks the sampled row. Values of the sample are text as the bank's CSV writes them
(null as the empty string, ratings with one decimal), so that a test can compare them
with the bank's row field by field. DuckDB is asked with no option at all: the column
types are what it reads by itself.
"""
import collections
import json
import sys

import duckdb
import pyarrow.parquet as pq


def text(value):
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def with_duckdb(path, want):
    con = duckdb.connect()
    quoted = "'" + path.replace("'", "''") + "'"
    described = con.execute(f"DESCRIBE SELECT * FROM {quoted}").fetchall()
    types = {name: str(kind) for name, kind, *_ in described}
    rows = con.execute(f"SELECT count(*) FROM {quoted}").fetchall()[0][0]
    grouped = con.execute(f"SELECT difficulty, count(*) FROM {quoted} GROUP BY difficulty")
    bands = dict(grouped.fetchall())
    cursor = con.execute(f"SELECT * FROM {quoted} WHERE id = ?", [want])
    names = [d[0] for d in cursor.description]
    found = next(iter(cursor.fetchall()), None)
    sample = None if found is None else {n: text(v) for n, v in zip(names, found)}
    return {"rows": rows, "bands": bands, "sample": sample, "types": types}


def with_pyarrow(path, want):
    file = pq.ParquetFile(path)
    meta = file.metadata
    table = file.read()
    bands = collections.Counter(table.column("difficulty").to_pylist())
    ids = table.column("id").to_pylist()
    sample = None
    if want in ids:
        i = ids.index(want)
        sample = {name: text(table.column(name)[i].as_py()) for name in table.column_names}
    compression = sorted({meta.row_group(g).column(c).compression
                          for g in range(meta.num_row_groups) for c in range(meta.num_columns)})
    encodings = {meta.schema.column(c).name: sorted(meta.row_group(0).column(c).encodings)
                 for c in range(meta.num_columns)} if meta.num_row_groups else {}
    kv = {k.decode(): v.decode() for k, v in (file.schema_arrow.metadata or {}).items()}
    manifest = json.loads(kv["sudoku-factory.manifest"])
    return {
        "rows": table.num_rows,
        "bands": dict(bands),
        "sample": sample,
        "types": {f.name: str(f.type) for f in table.schema},
        "required": {f.name: not f.nullable for f in table.schema},
        "row_groups": meta.num_row_groups,
        "compression": compression,
        "encodings": encodings,
        "metadata_keys": sorted(kv),
        "manifest_rows": manifest["rows"],
    }


def main():
    path, want = sys.argv[1], int(sys.argv[2])
    print(json.dumps({"duckdb": with_duckdb(path, want), "pyarrow": with_pyarrow(path, want)}))


if __name__ == "__main__":
    main()
