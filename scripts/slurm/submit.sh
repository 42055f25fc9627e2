#!/usr/bin/env bash
# Fleet tuning on a Slurm cluster: submits one array task per shard (tune-array.sbatch) and the
# merge job (merge.sbatch) that runs after all of them have ended, successfully or not.
#
#   scripts/slurm/submit.sh --workloads workloads/resnet50.json --shards 16 --results /shared/qtune/resnet50 \
#       [--qtune /shared/bin/qtune] [--tune-args "--trials 64"] [--constraint FEATURE] [--array LIST]
#       [--cpus N] [--time LIMIT] [--sbatch-args "ARGS"]
#
#   --workloads FILE   the network (every task splits the whole file the same way)
#   --shards N         N shards, array tasks 0..N-1
#   --results DIR      shared folder: shards/shard-I-of-N.db, merged.db, logs/
#   --qtune PATH       the qtune program, visible on every node (default: `qtune` on PATH, else
#                      this checkout's build/release/tools/qtune)
#   --tune-args ARGS   more `qtune tune` options, e.g. "--trials 64 --strategy model"
#   --constraint F     only nodes with feature F (one CPU type: run this script once per type,
#                      each with its own --results, then `qtune merge` the merged databases)
#   --array LIST       array tasks to run (default 0-(N-1)); resubmit killed or failed shards,
#                      once they have ended, with e.g. --array 3,7: they resume from their
#                      published databases (two runs of one shard at once would overwrite
#                      each other's publication)
#   --cpus N           CPUs per task (default 1; match the --threads of the workloads)
#   --time LIMIT       time limit per task (sbatch --time)
#   --sbatch-args ARGS more sbatch options for both jobs, e.g. "--partition tune --exclusive"
#
# Prints "array job <id>, merge job <id>" last. Both jobs write their logs to DIR/logs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit "${1:-0}"; }
fail() { echo "submit: $*" >&2; exit 2; }

workloads="" shards="" results="" qtune="" tune_args="" constraint="" array="" cpus=1 time_limit="" sbatch_args=""
while (($#)); do
  case $1 in
    --workloads|--shards|--results|--qtune|--tune-args|--constraint|--array|--cpus|--time|--sbatch-args)
      (($# >= 2)) || fail "option $1 needs a value"
      case $1 in
        --workloads) workloads=$2 ;; --shards) shards=$2 ;; --results) results=$2 ;; --qtune) qtune=$2 ;;
        --tune-args) tune_args=$2 ;; --constraint) constraint=$2 ;; --array) array=$2 ;; --cpus) cpus=$2 ;;
        --time) time_limit=$2 ;; --sbatch-args) sbatch_args=$2 ;;
      esac
      shift 2 ;;
    -h|--help) usage 0 ;;
    *) fail "unknown argument '$1' (see --help)" ;;
  esac
done
[ -n "$workloads" ] || fail "--workloads FILE is required"
[ -n "$shards" ] || fail "--shards N is required"
[ -n "$results" ] || fail "--results DIR is required"
[[ $shards =~ ^[1-9][0-9]*$ ]] || fail "--shards: expected a positive integer, got '$shards'"
[[ $cpus =~ ^[1-9][0-9]*$ ]] || fail "--cpus: expected a positive integer, got '$cpus'"
[ -f "$workloads" ] || fail "--workloads: no such file '$workloads'"
if [ -z "$qtune" ]; then
  qtune=$(command -v qtune || true)
  [ -n "$qtune" ] || qtune=$here/../../build/release/tools/qtune
fi
[ -x "$qtune" ] || fail "--qtune: '$qtune' is not an executable (build it, or give --qtune PATH)"
array=${array:-0-$((shards - 1))}

"$qtune" tune --help | grep -- '--shard' > /dev/null || fail "'$qtune' has no 'tune --shard' (an older build?)"

# The jobs read these from their environment (sbatch --export=ALL); they run elsewhere, so every
# path is absolute.
QTUNE_BIN=$(cd "$(dirname "$qtune")" && pwd)/$(basename "$qtune")
QTUNE_WORKLOADS=$(cd "$(dirname "$workloads")" && pwd)/$(basename "$workloads")
mkdir -p "$results/shards" "$results/logs"
QTUNE_RESULTS=$(cd "$results" && pwd)
QTUNE_SHARDS=$shards
QTUNE_TUNE_ARGS=$tune_args
export QTUNE_BIN QTUNE_WORKLOADS QTUNE_RESULTS QTUNE_SHARDS QTUNE_TUNE_ARGS

common=()
[ -z "$constraint" ] || common+=(--constraint="$constraint")
# shellcheck disable=SC2206  # a list of sbatch options
[ -z "$sbatch_args" ] || common+=($sbatch_args)
task_options=(--array="$array" --cpus-per-task="$cpus" --output="$QTUNE_RESULTS/logs/tune-%A_%a.out")
[ -z "$time_limit" ] || task_options+=(--time="$time_limit")

array_job=$(sbatch --parsable --export=ALL "${common[@]}" "${task_options[@]}" "$here/tune-array.sbatch")
array_job=${array_job%%;*}  # --parsable prints "id;cluster" on multi-cluster setups
merge_job=$(sbatch --parsable --export=ALL "${common[@]}" --dependency="afterany:$array_job" \
  --output="$QTUNE_RESULTS/logs/merge-%j.out" "$here/merge.sbatch")
merge_job=${merge_job%%;*}
echo "submit: shards $array of $shards of $QTUNE_WORKLOADS into $QTUNE_RESULTS"
echo "array job $array_job, merge job $merge_job"
