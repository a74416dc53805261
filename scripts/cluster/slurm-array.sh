#!/usr/bin/env bash
# A bank made by Slurm job arrays, in two stages that each divide by N, then a merge
# (README, "Beyond one machine", has the commands as tests/suite/cluster.rs runs them):
#
#   export BIN=$PWD/target/release/sudoku-factory COUNT=100000000 WORKERS=8
#   jid1=$(sbatch --parsable --array=0-$((WORKERS - 1)) scripts/cluster/slurm-array.sh seeds)
#   jid2=$(sbatch --parsable --array=0-$((WORKERS - 1)) --dependency=afterok:$jid1 \
#     scripts/cluster/slurm-array.sh expand)
#   sbatch --parsable --dependency=afterok:$jid2 --output=sudoku-bank-merge-%j.log \
#     scripts/cluster/slurm-array.sh merge
#
# * seeds:  task K of N runs `generate --stage seeds` (the binary reads K from
#           $SLURM_ARRAY_TASK_ID): the seed chunks K, K+N, ... into
#           $PARTS/seeds/seeds-K-of-N.bin — the expensive fill, carve and rating,
#           divided by N.
# * expand: task K reads every seed file (checked: same run, complete, checksums),
#           resolves duplicate seeds in seed order exactly as one process does, and
#           writes only the shards K, K+N, ... into $PARTS/wK.
# * merge:  one job (not an array) combines $PARTS/w0 .. $PARTS/w(N-1) into $OUT,
#           byte-identical to a single-process run.
# * (no argument): the one-stage split: every task makes all seeds itself and expands
#           its own shards — fine when VARIANTS is large and the seeds are cheap.
#
# Settings come from the environment (sbatch passes it on): COUNT, SEED, VARIANTS,
# SHARD_ROWS, WORKERS (default: the array's size; for the merge, the worker count
# $PARTS/w0 was made with), PARTS (a directory on a shared file system), OUT (the
# merged bank), BIN, and EXTRA (more generate options, e.g. "--carve minimal"; the same
# in every stage). The two arrays may have different sizes. Threads per task: the
# job's --cpus-per-task. The array is given at submission (there is no #SBATCH
# --array: a merge submitted without one must stay one job). A task that was killed
# and submitted again (`sbatch --array=K ...`) or requeued resumes where it stopped
# (`generate --resume`); a finished one exits at once.
#SBATCH --job-name=sudoku-bank
#SBATCH --cpus-per-task=8
#SBATCH --mem=2G
#SBATCH --time=04:00:00
#SBATCH --output=sudoku-bank-%A_%a.log
set -euo pipefail

BIN=${BIN:-sudoku-factory}
COUNT=${COUNT:-100000000}
SEED=${SEED:-1}
VARIANTS=${VARIANTS:-1000}
SHARD_ROWS=${SHARD_ROWS:-1000000}
PARTS=${PARTS:-$PWD/sudoku-bank-parts}
OUT=${OUT:-$PWD/sudoku-bank}
THREADS=${SLURM_CPUS_PER_TASK:-1}
read -r -a EXTRA <<<"${EXTRA:-}"
stage=${1:-}
run=(--count "$COUNT" --seed "$SEED" --variants "$VARIANTS" --shard-rows "$SHARD_ROWS" "${EXTRA[@]}")

if [[ $stage == merge ]]; then
  if [[ ${SLURM_ARRAY_TASK_COUNT:-1} -gt 1 ]]; then
    echo "$0 merge: submit the merge as one job, not an array (N merges would race for $OUT)" >&2
    exit 2
  fi
  if [[ -z ${WORKERS:-} ]]; then
    WORKERS=$(sed -n 's/^ *"workers": \([0-9]*\),*$/\1/p' "$PARTS/w0/manifest.json" | head -n 1)
    [[ -n $WORKERS ]] || { echo "$0 merge: set WORKERS (no worker count in $PARTS/w0/manifest.json)" >&2; exit 2; }
  fi
  dirs=()
  for ((k = 0; k < WORKERS; k++)); do dirs+=("$PARTS/w$k"); done
  exec "$BIN" merge "$OUT" "${dirs[@]}" --threads "$THREADS"
fi

if [[ -n ${SLURM_ARRAY_TASK_MAX:-} ]]; then
  WORKERS=${WORKERS:-$((SLURM_ARRAY_TASK_MAX + 1))}
fi

if [[ -z ${SLURM_ARRAY_TASK_ID:-} ]]; then
  echo "$0 ${stage:-}: submit it as an array, one task per worker: sbatch --array=0-<N-1> ..." >&2
  exit 2
fi
mkdir -p "$PARTS"
if [[ $stage == seeds ]]; then
  seeds=$PARTS/seeds
  if [[ -f $seeds/seeds-$SLURM_ARRAY_TASK_ID-of-$WORKERS.json ]]; then
    exec "$BIN" generate --stage seeds --resume "$seeds" --workers "$WORKERS" \
      --threads "$THREADS" --quiet
  fi
  exec "$BIN" generate --stage seeds "${run[@]}" --workers "$WORKERS" \
    --threads "$THREADS" --out "$seeds" --quiet
fi

dir=$PARTS/w$SLURM_ARRAY_TASK_ID
if [[ -f $dir/manifest.json ]]; then
  exec "$BIN" generate --resume "$dir" --threads "$THREADS" --quiet
fi
case $stage in
  expand) from=(--seeds "$PARTS/seeds") ;;
  '') from=() ;;
  *) echo "usage: $0 [seeds|expand|merge]" >&2; exit 2 ;;
esac
exec "$BIN" generate "${run[@]}" "${from[@]}" --workers "$WORKERS" --threads "$THREADS" \
  --out "$dir" --quiet
