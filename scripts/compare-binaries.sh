#!/usr/bin/env bash
# Side-by-side speed of two sudoku-factory binaries on the 9x9 workloads that matter,
# run alternately (A B A B ...) so that background load hits both alike. Prints the
# median wall time and the median CPU time (user + system: the work done, less
# sensitive to other load on the machine) of each, the ratios new/old, and whether
# the two wrote identical shards.
#
# Usage: scripts/compare-binaries.sh OLD_BINARY NEW_BINARY [RUNS]   (RUNS default 3)
# Build an old binary from a commit with e.g.
#   git worktree add --detach /tmp/old COMMIT &&
#   (cd /tmp/old && CARGO_TARGET_DIR=/tmp/old-target cargo build --release --bin sudoku-factory)
set -euo pipefail
old=${1:?old binary}; new=${2:?new binary}; runs=${3:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

workloads=(
  "minimal carve, 1 thread, 20,000 seeds|generate --count 20000 --variants 1 --carve minimal --bands wide=17-81 --threads 1 --no-histograms"
  "generate --count 20000 (seeds only)|generate --count 20000 --variants 1"
  "2M-row expansion (10,000 seeds x 200)|generate --count 2000000 --variants 200"
)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
checksums() { python3 -c 'import json,sys; print(" ".join(s["xxh3"] for s in json.load(open(sys.argv[1]))["shards"]))' "$1/manifest.json"; }

printf '%-40s %8s %8s %8s %9s %9s %8s  %s\n' workload "old s" "new s" new/old "old cpu" "new cpu" new/old "same bytes"
for w in "${workloads[@]}"; do
  name=${w%%|*}; args=${w#*|}
  : > "$work/old.t"; : > "$work/new.t"
  for _ in $(seq "$runs"); do
    for which in old new; do
      bin=$old; [ "$which" = new ] && bin=$new
      rm -rf "$work/$which"
      /usr/bin/time -f '%e %U %S' -a -o "$work/$which.t" "$bin" $args --seed 7 -q --out "$work/$which" >/dev/null
    done
  done
  o=$(awk '{print $1}' "$work/old.t" | median); n=$(awk '{print $1}' "$work/new.t" | median)
  oc=$(awk '{print $2 + $3}' "$work/old.t" | median); nc=$(awk '{print $2 + $3}' "$work/new.t" | median)
  same=no; [ "$(checksums "$work/old")" = "$(checksums "$work/new")" ] && same=yes
  printf '%-40s %8s %8s %8.3f %9s %9s %8.3f  %s\n' "$name" "$o" "$n" "$(echo "$n / $o" | bc -l)" \
    "$oc" "$nc" "$(echo "$nc / $oc" | bc -l)" "$same"
done
