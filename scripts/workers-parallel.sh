#!/usr/bin/env bash
# The worker/merge flow end to end on this machine, with GNU parallel, both ways:
# the one-stage split (N processes `generate --workers N --worker K`, each making all
# seeds) and the staged split (N processes `--stage seeds`, then N processes
# `--seeds DIR`), each into separate directories, then `merge`; the merged shards'
# checksums are compared with a single-process run of the same command. Prints the
# wall times; exits 1 if any checksums differ.
#
# Usage: scripts/workers-parallel.sh [ROWS] [VARIANTS] [N] [SEED]
#        (default 200000 100 2 1; SHARD_ROWS=10000 in the environment sets shard size,
#        BIN=path a binary to use instead of building one)
#
# The cores are shared: each worker gets cores/N threads (at least 1), the single
# run gets them all. On one machine this measures the cost of the split, not a
# speed-up; across machines the one-stage split divides the expansion by N, the
# staged split the seeds too (scripts/bench-staged.sh measures the CPU per worker).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-200000}
variants=${2:-100}
n=${3:-2}
seed=${4:-1}
shard_rows=${SHARD_ROWS:-10000}
command -v parallel >/dev/null || { apt-get update -qq && apt-get install -y -qq parallel >/dev/null; }
if [[ -n ${BIN:-} ]]; then
  bin=$BIN
else
  cargo build --release --quiet
  bin=${CARGO_TARGET_DIR:-$PWD/target}/release/sudoku-factory
fi
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

t=$(now)
seq 0 $((n - 1)) | parallel -j "$n" --halt now,fail=1 \
  "$bin" generate "${args[@]}" --stage seeds --workers "$n" --worker {} --threads "$threads" --out "$work/seeds"
stage1=$(since "$t")
t=$(now)
seq 0 $((n - 1)) | parallel -j "$n" --halt now,fail=1 \
  "$bin" generate "${args[@]}" --seeds "$work/seeds" --workers "$n" --worker {} --threads "$threads" --out "$work/s{}"
stage2=$(since "$t")
sdirs=()
for ((k = 0; k < n; k++)); do sdirs+=("$work/s$k"); done
"$bin" merge "$work/staged" "${sdirs[@]}" --quiet

echo "rows=$rows variants=$variants workers=$n cores=$cores (threads per worker: $threads)"
echo "single process:           ${single} s"
echo "$n workers (parallel):     ${workers} s"
echo "merge:                    ${merge} s"
echo "workers + merge:          $(awk -v a="$workers" -v b="$merge" 'BEGIN { printf "%.2f", a + b }') s"
echo "staged: seeds ($n workers): ${stage1} s; expand ($n workers): ${stage2} s"
status=0
for way in merged staged; do
  if diff <(sums "$work/single") <(sums "$work/$way") >/dev/null; then
    echo "checksums ($way): identical ($(sums "$work/single" | wc -l) shards)"
  else
    echo "checksums ($way): DIFFERENT" >&2
    diff <(sums "$work/single") <(sums "$work/$way") >&2 || true
    status=1
  fi
done
exit $status
