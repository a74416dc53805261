#!/usr/bin/env bash
# What the staged split buys, measured on this machine: for --variants 1 and
# --variants 100, N = 1, 2 and 4 workers of each stage run one after another (each with
# --threads 1, standing in for one single-core node), then the same bank made the
# one-stage way (`--workers N`: every worker makes all seeds) for comparison. Prints,
# per run, the CPU seconds (user + sys) of each worker and the wall time of all N
# workers run one after another; the seed stage's CPU per worker must fall as ~1/N.
# Every merged bank is checked against the 1-worker bank (identical shard checksums).
# Last, the cost of one minimal seed (`--carve minimal`, one thread), for the cost
# model in the README ("Beyond one machine").
#
# Usage: scripts/bench-staged.sh [ROWS_V1] [ROWS_V100] [MINIMAL_SEEDS]
#        (default 20000 2000000 2000; BIN=path uses that binary instead of building)
set -euo pipefail
cd "$(dirname "$0")/.."
rows_v1=${1:-20000}
rows_v100=${2:-2000000}
minimal=${3:-2000}
if [[ -n ${BIN:-} ]]; then
  bin=$BIN
else
  cargo build --release --quiet
  bin=${CARGO_TARGET_DIR:-$PWD/target}/release/sudoku-factory
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# timed LABEL CMD...: runs CMD, appends "elapsed cpu" (seconds) to $work/LABEL.
timed() {
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$work/t" "$@"
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$work/t" >>"$work/$label"
}
# row VARIANTS N MODE LABEL: one table row from $work/LABEL.
row() {
  awk -v v="$1" -v n="$2" -v mode="$3" '
    { wall += $1; cpu = cpu sep sprintf("%.2f", $2); sep = " "; if ($2 > max) max = $2 }
    END { printf "%8s %3s  %-16s %9.2f %9.2f   %s\n", v, n, mode, wall, max, cpu }' "$work/$4"
}
sums() { grep -oE '"(file|xxh3)": "[^"]*"' "$1/manifest.json" | cut -d'"' -f4 | paste - -; }
same_as() {
  if ! diff <(sums "$1") <(sums "$2") >/dev/null; then
    echo "checksums of $2 differ from $1" >&2
    exit 1
  fi
}

printf "%8s %3s  %-16s %9s %9s   %s\n" variants N mode "wall s" "max cpu" "cpu s per worker"
for variants in 1 100; do
  if [[ $variants == 1 ]]; then rows=$rows_v1; else rows=$rows_v100; fi
  args=(--count "$rows" --variants "$variants" --seed 1 --shard-rows $((rows / 8)) --threads 1 --quiet)
  for n in 1 2 4; do
    d=$work/v$variants-n$n
    parts=()
    for ((k = 0; k < n; k++)); do
      timed "s1-$variants-$n" "$bin" generate "${args[@]}" --stage seeds --workers "$n" --worker "$k" --out "$d/seeds"
    done
    for ((k = 0; k < n; k++)); do
      timed "s2-$variants-$n" "$bin" generate "${args[@]}" --seeds "$d/seeds" --workers "$n" --worker "$k" --out "$d/w$k"
      parts+=("$d/w$k")
    done
    "$bin" merge "$d/merged" "${parts[@]}" --quiet
    same_as "$work/v$variants-n1/merged" "$d/merged"
    row "$variants" "$n" "staged: seeds" "s1-$variants-$n"
    row "$variants" "$n" "staged: expand" "s2-$variants-$n"
    parts=()
    for ((k = 0; k < n; k++)); do
      timed "one-$variants-$n" "$bin" generate "${args[@]}" --workers "$n" --worker "$k" --out "$d/o$k"
      parts+=("$d/o$k")
    done
    "$bin" merge "$d/one" "${parts[@]}" --quiet
    same_as "$work/v$variants-n1/merged" "$d/one"
    row "$variants" "$n" "one-stage split" "one-$variants-$n"
  done
done

# The cost of one minimal seed: every minimal puzzle lands in one wide band.
timed minimal "$bin" generate --stage seeds --count "$minimal" --carve minimal \
  --bands minimal=17-40 --threads 1 --quiet --out "$work/minimal-seeds"
bytes=$(grep -oE '"bytes": [0-9]+' "$work/minimal-seeds/seeds-0-of-1.json" | grep -oE '[0-9]+')
awk -v n="$minimal" -v b="$bytes" '{ printf "\nminimal carve: %d seeds in %.2f CPU s = %.0f µs/seed; seed file %.1f bytes/seed\n", n, $2, $2 / n * 1e6, b / n }' "$work/minimal"
