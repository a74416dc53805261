#!/usr/bin/env bash
# Expansion throughput against the disk-and-compression limit.
#
# Generates ROWS rows from ROWS/VARIANTS seeds on 2 threads, then decompresses the
# bank to one CSV file and times `zstd -T2` compressing those same bytes at the same
# level. Prints rows/s for both, their ratio, and the generator's peak memory.
#
# Usage: scripts/bench-expansion.sh [ROWS] [VARIANTS] [LEVEL]   (default 10000000 1000 1)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-10000000}
variants=${2:-1000}
level=${3:-1}
command -v zstd >/dev/null || { apt-get update -qq && apt-get install -y -qq zstd >/dev/null; }
cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

start=$(date +%s.%N)
/usr/bin/env time -f '%M' -o "$work/rss" target/release/sudoku-factory generate \
  --count "$rows" --variants "$variants" --threads 2 --zstd-level "$level" \
  --out "$work/bank" --quiet
gen=$(echo "$(date +%s.%N) - $start" | bc)

zstd -dc "$work"/bank/*.csv.zst > "$work/bank.csv"
bytes=$(stat -c %s "$work/bank.csv")
sync
start=$(date +%s.%N)
zstd -T2 -"$level" -q -f "$work/bank.csv" -o "$work/bank.csv.zst"
sync -f "$work/bank.csv.zst"
zst=$(echo "$(date +%s.%N) - $start" | bc)

printf 'rows            %d (%d seeds x %d variants), zstd level %d, %.0f MB of CSV\n' \
  "$rows" $((rows / variants)) "$variants" "$level" "$(echo "$bytes / 1000000" | bc)"
printf 'generate -T2    %8.2f s  %10.0f rows/s  peak RSS %d MiB\n' "$gen" "$(echo "$rows / $gen" | bc)" $(( $(cat "$work/rss") / 1024 ))
printf 'zstd -T2        %8.2f s  %10.0f rows/s\n' "$zst" "$(echo "$rows / $zst" | bc)"
printf 'ratio           %8.2fx of zstd -T2\n' "$(echo "$zst / $gen" | bc -l)"
