#!/usr/bin/env bash
# Export speed next to the read limit: rows/s of `export --format sqlite`,
# `--format jsonl` and `--format parquet` on a 1M-row bank beside `zstdcat
# BANK/*.csv.zst | wc -l` on the same bank (reading the shards is all an export must do
# at least), the ratios, and each export's peak memory (max RSS from /usr/bin/time -v);
# then the Parquet file's size next to the shards', and DuckDB's `count(*) GROUP BY
# difficulty` on each (DuckDB from target/test-python, which scripts/test-deps makes).
#
#   scripts/bench-export.sh [BANK]     # default: makes a 1,000,000-row bank (--variants 1000)
#   RUNS=5 ROWS=2000000 scripts/bench-export.sh
#
# Goals (issues #14, #35): sqlite >= 0.3x the limit, jsonl >= 0.7x, peak RSS <= 64 MiB;
# parquet >= 0.5x.
# Under the sqlite line, SQLite's own floor for the same file (benches/sqlite_floor.rs):
# what the bundled SQLite alone takes to load those rows and build the two indexes.
# Each figure is the best of RUNS runs (default 3): on a shared machine the best run
# is the one least disturbed by other work. An export's time includes its fsync of
# FILE before the rename (durability the limit, which writes nothing, does not pay);
# the same two exports into /dev/shm follow, without the disk.
set -euo pipefail
# A BANK given is read from where the script was called.
arg_bank=${1:+$(realpath -m -- "$1")}
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
ROWS=${ROWS:-1000000}
need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need zstdcat zstd
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }

cargo build --release --features sudoku-peer -q
bin="${CARGO_TARGET_DIR:-target}/release/sudoku-factory"
work=$(mktemp -d)
# The same exports to memory too (/dev/shm, where it is a tmpfs): an export fsyncs FILE
# before its rename and the limit writes nothing, so on a slow disk the first figures
# measure the disk; these measure the export's own work.
mem=$(mktemp -d -p /dev/shm 2>/dev/null || true)
trap 'rm -rf "$work" ${mem:+"$mem"}' EXIT

bank=$arg_bank
if [ -z "$bank" ]; then
    bank="$work/bank"
    echo "making a $ROWS-row bank in $bank ..." >&2
    "$bin" generate --count "$ROWS" --variants 1000 --out "$bank" --no-histograms -q
fi
rows=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"])' "$bank/manifest.json")

# best_of CMD...: runs CMD RUNS times under /usr/bin/time -v; prints "SECONDS MAX_RSS_KB"
# of the fastest run.
# Exports write a fresh FILE each run (no --force: replacing the last run's file would
# time the freeing of its blocks too) and it is removed between runs, untimed.
best_of() {
    local best="" rss=0
    for _ in $(seq "$RUNS"); do
        rm -f "$work"/out.* ${mem:+"$mem"/out.*}
        /usr/bin/time -v -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
        local wall kb
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$work/time")
        kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time")
        if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$wall; fi
        [ "$kb" -gt "$rss" ] && rss=$kb
    done
    echo "$best $rss"
}

read -r limit_s _ < <(best_of bash -c "zstdcat '$bank'/*.csv.zst | wc -l")
read -r sqlite_s sqlite_kb < <(best_of "$bin" export "$bank" --to "$work/out.sqlite" -q)
# SQLite's own floor for that file (benches/sqlite_floor.rs): its rows copied as bytes,
# bound through a prepared statement from memory, and its two indexes built, with the
# export's pragmas and none of our code per row.
floor=$(cargo bench --features sudoku-peer -q --bench sqlite_floor -- "$work/out.sqlite" 2>/dev/null)
read -r jsonl_s jsonl_kb < <(best_of "$bin" export "$bank" --to "$work/out.jsonl" -q)
read -r parquet_s parquet_kb < <(best_of "$bin" export "$bank" --to "$work/out.parquet" -q)

echo "bank: $bank ($rows rows), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), best of $RUNS"
awk -v rows="$rows" -v l="$limit_s" -v s="$sqlite_s" -v sk="$sqlite_kb" -v j="$jsonl_s" -v jk="$jsonl_kb" 'BEGIN {
    printf "%-31s %7.2f s %12.0f rows/s\n", "zstdcat | wc -l (the limit)", l, rows / l
    printf "%-31s %7.2f s %12.0f rows/s  %5.2fx the limit (goal 0.30x)  max RSS %5.1f MiB\n", "export --format sqlite", s, rows / s, l / s, sk / 1024
    printf "%-31s %7.2f s %12.0f rows/s  %5.2fx the limit (goal 0.70x)  max RSS %5.1f MiB\n", "export --format jsonl", j, rows / j, l / j, jk / 1024
}'
awk -v rows="$rows" -v l="$limit_s" -v p="$parquet_s" -v pk="$parquet_kb" 'BEGIN {
    printf "%-31s %7.2f s %12.0f rows/s  %5.2fx the limit (goal 0.50x)  max RSS %5.1f MiB\n", "export --format parquet", p, rows / p, l / p, pk / 1024
}'
echo "$floor" | awk -v l="$limit_s" '/ s / { printf "  %s  %5.2fx the limit\n", $0, l / $(NF - 3) }'
if [ -n "$mem" ]; then
    read -r sqlite_m _ < <(best_of "$bin" export "$bank" --to "$mem/out.sqlite" -q)
    read -r jsonl_m _ < <(best_of "$bin" export "$bank" --to "$mem/out.jsonl" -q)
    awk -v rows="$rows" -v l="$limit_s" -v s="$sqlite_m" -v j="$jsonl_m" 'BEGIN {
        printf "%-31s %7.2f s %12.0f rows/s  %5.2fx the limit\n", "  the same to /dev/shm: sqlite", s, rows / s, l / s
        printf "%-31s %7.2f s %12.0f rows/s  %5.2fx the limit\n", "  the same to /dev/shm: jsonl", j, rows / j, l / j
    }'
fi

# The Parquet file against the shards: size, and DuckDB's GROUP BY on each (best of RUNS
# inside one DuckDB process; the CSV read as DuckDB reads any CSV, types guessed).
"$bin" export "$bank" --to "$work/out.parquet" -q
python=target/test-python/bin/python
if "$python" -c 'import duckdb' 2>/dev/null; then
    "$python" - "$bank" "$work/out.parquet" "$RUNS" <<'PY'
import glob, os, sys, time
import duckdb
bank, parquet, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
shards = sorted(glob.glob(os.path.join(bank, "*.csv.zst")))
csv_bytes = sum(os.path.getsize(s) for s in shards)
pq_bytes = os.path.getsize(parquet)
print(f"{'size: zstd CSV shards':31} {csv_bytes / 1e6:9.1f} MB")
print(f"{'size: parquet':31} {pq_bytes / 1e6:9.1f} MB  {pq_bytes / csv_bytes:5.2f}x the shards")
con = duckdb.connect()
def best(sql):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        con.execute(sql).fetchall()
        times.append(time.perf_counter() - t)
    return min(times)
q = "SELECT difficulty, count(*) FROM {} GROUP BY difficulty"
listed = "[" + ", ".join("'" + s + "'" for s in shards) + "]"
c = best(q.format(f"read_csv({listed})"))
p = best(q.format(f"read_parquet('{parquet}')"))
print(f"{'duckdb GROUP BY on the shards':31} {c:7.3f} s")
print(f"{'duckdb GROUP BY on parquet':31} {p:7.3f} s  {c / p:5.1f}x faster")
PY
else
    echo "(no DuckDB in target/test-python: run scripts/test-deps for the size and query lines)"
fi
