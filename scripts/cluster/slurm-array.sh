#!/usr/bin/env bash
# A bank made by a Slurm job array: task K of N runs `generate --workers N` (the
# binary reads K from $SLURM_ARRAY_TASK_ID) into its own directory PARTS/wK, writing
# only the shards K, K+N, ... with the bytes one process would write. A second,
# dependent job merges the N directories into the finished bank.
#
#   jid=$(sbatch --parsable --array=0-7 scripts/cluster/slurm-array.sh)
#   sbatch --dependency=afterok:$jid scripts/cluster/slurm-array.sh merge
#
# Settings come from the environment (sbatch passes it on): COUNT, SEED, VARIANTS,
# SHARD_ROWS, WORKERS (default: the array's size, 8 for the merge step), PARTS (a
# directory on a shared file system), OUT (the merged bank), BIN. Keep --array at
# 0-(WORKERS-1). A requeued or re-submitted task resumes its directory where it
# stopped (`generate --resume`); a finished one exits at once.
#
# Every task recomputes the whole seed population (later seeds are deduplicated
# against earlier ones), then expands only its own shards: this pays off when
# VARIANTS is large. See "Beyond one machine" in the README.
#SBATCH --job-name=sudoku-bank
#SBATCH --array=0-7
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
if [[ -n ${SLURM_ARRAY_TASK_MAX:-} ]]; then
  WORKERS=${WORKERS:-$((SLURM_ARRAY_TASK_MAX + 1))}
else
  WORKERS=${WORKERS:-8}
fi

if [[ ${1:-} == merge ]]; then
  dirs=()
  for ((k = 0; k < WORKERS; k++)); do dirs+=("$PARTS/w$k"); done
  exec "$BIN" merge "$OUT" "${dirs[@]}" --threads "$THREADS"
fi

: "${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=0-$((WORKERS - 1))}"
dir=$PARTS/w$SLURM_ARRAY_TASK_ID
mkdir -p "$PARTS"
if [[ -f $dir/manifest.json ]]; then
  exec "$BIN" generate --resume "$dir" --threads "$THREADS" --quiet
fi
exec "$BIN" generate --count "$COUNT" --seed "$SEED" --variants "$VARIANTS" \
  --shard-rows "$SHARD_ROWS" --workers "$WORKERS" --threads "$THREADS" \
  --out "$dir" --quiet
