#!/usr/bin/env python3
"""Read a file made by `sudoku-factory export` with Python's own modules (sqlite3, json,
csv) -- an independent reader -- and print a JSON summary on stdout:

    {"rows": N, "bands": {"easy": n, ...}, "sample": {column: text, ...} | null,
     "integrity": "ok", "user_version": 1, "meta": {key: value}}   (the last three: sqlite)

usage: read-export.py FILE FORMAT [ID]
FORMAT is sqlite, jsonl, csv or csv-kaggle; ID picks the sampled row (for csv-kaggle,
which has no id column: the row's position, 0-based). Every value of the sample is
text as the bank's CSV writes it (NULL/null as the empty string), so that a test can
compare it with the bank's row field by field.
"""
import collections
import csv
import json
import sqlite3
import sys


def text(value):
    return "" if value is None else str(value)


def later_writes(path, row):
    """What an app's own later INSERTs meet (rolled back, the file unchanged): a copy of
    `row` under a new id, and copies with a short puzzle or too many clues, which the
    table's CHECK constraints must refuse."""
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("BEGIN")
    new_id = con.execute("SELECT max(id) + 1 FROM puzzles").fetchone()[0]
    cells = len(row["puzzle"])
    tries = {
        "copy": {"id": new_id},
        "short_puzzle": {"id": new_id + 1, "puzzle": row["puzzle"][1:]},
        "too_many_clues": {"id": new_id + 2, "clues": cells + 1},
    }
    result = {}
    for name, change in tries.items():
        values = {**row, **change}
        marks = ", ".join("?" for _ in values)
        try:
            con.execute(f"INSERT INTO puzzles ({', '.join(values)}) VALUES ({marks})",
                        list(values.values()))
            result[name] = "accepted"
        except sqlite3.IntegrityError as e:
            result[name] = f"refused: {e}"
    con.execute("ROLLBACK")
    con.close()
    return result


def main():
    path, fmt = sys.argv[1], sys.argv[2]
    want = int(sys.argv[3]) if len(sys.argv) > 3 else None
    bands = collections.Counter()
    sample = None
    out = {}
    rows = 0
    if fmt == "sqlite":
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        out["integrity"] = con.execute("PRAGMA integrity_check").fetchone()[0]
        out["user_version"] = con.execute("PRAGMA user_version").fetchone()[0]
        out["meta"] = dict(con.execute("SELECT key, value FROM meta"))
        rows = con.execute("SELECT count(*) FROM puzzles").fetchone()[0]
        bands.update(dict(con.execute("SELECT difficulty, count(*) FROM puzzles GROUP BY 1")))
        cur = con.execute("SELECT * FROM puzzles WHERE id = ?", (want,))
        found = cur.fetchone()
        if found is not None:
            names = [d[0] for d in cur.description]
            sample = {n: text(v) for n, v in zip(names, found)}
        out["columns"] = [r[1] for r in con.execute("PRAGMA table_info(puzzles)")]
        if found is not None:
            out["writes"] = later_writes(path, dict(zip(names, found)))
        out["indexes"] = sorted(r[1] for r in con.execute("PRAGMA index_list(puzzles)"))
    elif fmt == "jsonl":
        with open(path, encoding="utf-8") as f:
            for line in f:
                obj = json.loads(line)
                rows += 1
                bands[obj["difficulty"]] += 1
                if obj["id"] == want:
                    if not isinstance(obj["id"], int) or not isinstance(obj["clues"], int):
                        sys.exit(f"{path}: id and clues must be JSON numbers: {line}")
                    sample = {k: text(v) for k, v in obj.items()}
    elif fmt in ("csv", "csv-kaggle"):
        with open(path, newline="", encoding="utf-8") as f:
            for i, row in enumerate(csv.DictReader(f)):
                rows += 1
                if "difficulty" in row:
                    bands[row["difficulty"]] += 1
                key = i if fmt == "csv-kaggle" else int(row["id"])
                if key == want:
                    sample = dict(row)
    else:
        sys.exit(f"unknown format {fmt}")
    out.update(rows=rows, bands=dict(bands), sample=sample)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
