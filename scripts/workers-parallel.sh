#!/usr/bin/env bash
# The worker/merge flow end to end on this machine, with GNU parallel: N worker
# processes (`generate --workers N --worker K`) into separate directories, then
# `merge`, then the merged shards' checksums compared with a single-process run of the
# same command. Prints the wall time of both ways; exits 1 if the checksums differ.
#
# Usage: scripts/workers-parallel.sh [ROWS] [VARIANTS] [N] [SEED]
#        (default 200000 100 2 1; SHARD_ROWS=10000 in the environment sets shard size)
#
# The cores are shared: each worker gets cores/N threads (at least 1), the single
# run gets them all. On one machine this measures the cost of the split (every
# worker recomputes the seed population), not a speed-up; across machines the
# expansion is what divides by N.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-200000}
variants=${2:-100}
n=${3:-2}
seed=${4:-1}
shard_rows=${SHARD_ROWS:-10000}
command -v parallel >/dev/null || { apt-get update -qq && apt-get install -y -qq parallel >/dev/null; }
cargo build --release --quiet
bin=$PWD/target/release/sudoku-factory
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cores=$(nproc)
threads=$((cores / n > 0 ? cores / n : 1))
args=(--count "$rows" --variants "$variants" --seed "$seed" --shard-rows "$shard_rows" --quiet)

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# "file xxh3" per shard, from a manifest.
sums() { grep -oE '"(file|xxh3)": "[^"]*"' "$1/manifest.json" | cut -d'"' -f4 | paste - -; }

t=$(now)
"$bin" generate "${args[@]}" --out "$work/single"
single=$(since "$t")

t=$(now)
seq 0 $((n - 1)) | parallel -j "$n" --halt now,fail=1 \
  "$bin" generate "${args[@]}" --workers "$n" --worker {} --threads "$threads" --out "$work/w{}"
workers=$(since "$t")
t=$(now)
dirs=()
for ((k = 0; k < n; k++)); do dirs+=("$work/w$k"); done
"$bin" merge "$work/merged" "${dirs[@]}" --quiet
merge=$(since "$t")

echo "rows=$rows variants=$variants workers=$n cores=$cores (threads per worker: $threads)"
echo "single process:           ${single} s"
echo "$n workers (parallel):     ${workers} s"
echo "merge:                    ${merge} s"
echo "workers + merge:          $(awk -v a="$workers" -v b="$merge" 'BEGIN { printf "%.2f", a + b }') s"
if diff <(sums "$work/single") <(sums "$work/merged") >/dev/null; then
  echo "checksums: identical ($(sums "$work/single" | wc -l) shards)"
else
  echo "checksums: DIFFERENT" >&2
  diff <(sums "$work/single") <(sums "$work/merged") >&2 || true
  exit 1
fi
