#!/usr/bin/env bash
# What the tuner promises against what runs (issue 19, docs/measurement-protocol.md), reproducibly:
# tunes a network into a fresh database, runs it three times with `qtune run`, and prints per layer
# the tuner's recorded time against the median of the three runs, the end-of-tune estimate against
# the runs' total, and whether each layer kept one verdict (faster / same / slower) over the runs.
#
#   scripts/fidelity.sh <network> [--hog] [--trials N] [--keep DIR]
#
# <network>: workloads/<network>.json, or the path of a workloads file.
# --hog: a CPU-bound process pinned to the last CPU (the core the tuner does not get) from just
#        before tuning until just after it, as a busy neighbour; the runs are quiet either way.
# --trials N: trials per layer (default 32).
# --keep DIR: keep the database and every command's output in DIR (default: a temporary folder,
#        removed at exit).
# QTUNE names the qtune program (default: build/release/tools/qtune of this checkout).
#
# Needs python3 (standard library only), taskset (util-linux) and uptime (procps): scripts/setup.sh.
# Timings are only as good as the machine is quiet: `uptime` before and after says how loaded it was.
set -euo pipefail

usage() {
  echo "usage: scripts/fidelity.sh <network> [--hog] [--trials N] [--keep DIR]" >&2
  exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
qtune=${QTUNE:-$root/build/release/tools/qtune}
network=""
hog=0
trials=32
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --hog) hog=1 ;;
    --trials)
      [ $# -ge 2 ] || usage
      trials=$2
      shift
      ;;
    --keep)
      [ $# -ge 2 ] || usage
      keep=$2
      shift
      ;;
    -*) echo "fidelity.sh: unknown option $1" >&2; usage ;;
    *)
      [ -z "$network" ] || usage
      network=$1
      ;;
  esac
  shift
done
[ -n "$network" ] || usage
case "$trials" in '' | *[!0-9]*) echo "fidelity.sh: --trials: expected a positive number, got '$trials'" >&2; exit 2 ;; esac
[ "$trials" -gt 0 ] || { echo "fidelity.sh: --trials: expected a positive number, got '$trials'" >&2; exit 2; }
if [ -f "$network" ]; then
  workloads=$network
else
  workloads=$root/workloads/$network.json
fi
[ -f "$workloads" ] || { echo "fidelity.sh: no workloads file $workloads (give a name in workloads/ or a path)" >&2; exit 2; }
[ -x "$qtune" ] || { echo "fidelity.sh: no qtune program at $qtune (build it, or set QTUNE)" >&2; exit 2; }
for tool in python3 taskset uptime; do
  command -v "$tool" >/dev/null || { echo "fidelity.sh: $tool is missing (scripts/setup.sh installs it)" >&2; exit 2; }
done

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
  [ ! -e "$work/tuning.db" ] || { echo "fidelity.sh: $work/tuning.db exists: the tuning must start from a fresh database" >&2; exit 2; }
else
  work=$(mktemp -d)
fi
hog_pid=""
stop_hog() {
  if [ -n "$hog_pid" ]; then
    kill "$hog_pid" 2>/dev/null || true
    wait "$hog_pid" 2>/dev/null || true
    hog_pid=""
  fi
}
cleanup() {
  stop_hog
  if [ -z "$keep" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

db=$work/tuning.db
echo "fidelity: $workloads, $trials trials per layer, $([ "$hog" = 1 ] && echo "tuned beside a CPU-bound process" || echo "tuned quietly"), runs quiet"
echo "qtune: $qtune"
echo "uptime before: $(uptime)"

if [ "$hog" = 1 ]; then
  hog_cpu=$(($(nproc) - 1))
  taskset -c "$hog_cpu" sh -c 'while :; do :; done' &
  hog_pid=$!
  echo "hog: pid $hog_pid busy on CPU $hog_cpu while tuning"
fi
start=$(date +%s)
"$qtune" tune --db "$db" --workloads "$workloads" --trials "$trials" --quiet >"$work/tune.txt" 2>"$work/tune.err" || {
  echo "fidelity.sh: qtune tune failed:" >&2
  cat "$work/tune.err" >&2
  exit 1
}
stop_hog
echo "tuning: $(($(date +%s) - start)) s"
grep -E '^(network estimate|machine)' "$work/tune.txt" | sed 's/^/  /' || true

"$qtune" query --db "$db" --json >"$work/query.json"
for i in 1 2 3; do
  "$qtune" run --db "$db" --workloads "$workloads" --json --repetitions 10 --no-store >"$work/run$i.jsonl" 2>"$work/run$i.err" || {
    echo "fidelity.sh: qtune run $i failed:" >&2
    cat "$work/run$i.err" >&2
    exit 1
  }
done

python3 - "$work" "$hog" <<'PYTHON'
import json
import re
import statistics
import sys

work, hog = sys.argv[1], sys.argv[2] == "1"

# The tuner's recorded time of each layer's best configuration (records' best: qtune query).
best = {b["workload"]: b for b in json.load(open(f"{work}/query.json"))["best"]}

# The end-of-tune estimate: "network estimate (...): X ms with default configurations -> Y ms tuned".
estimate_ms = None
for line in open(f"{work}/tune.txt"):
    m = re.search(r"network estimate .*-> ([0-9.]+) ms tuned", line)
    if m:
        estimate_ms = float(m.group(1))

runs = []
for i in (1, 2, 3):
    layers, total = [], None
    for line in open(f"{work}/run{i}.jsonl"):
        line = line.strip()
        if not line:
            continue
        obj = json.loads(line)
        if obj.get("type") == "layer":
            layers.append(obj)
        elif obj.get("type") == "total":
            total = obj
    if total is None:
        sys.exit(f"fidelity.sh: qtune run {i} printed no total line")
    runs.append((layers, total))

names = [l["layer"] for l in runs[0][0]]
print()
print(f"{'layer':<34}{'config':>9}{'tuner ms':>11}{'run ms':>11}{'diff':>9}  within 10%  verdicts (3 runs)")
within = 0
compared = 0
stable = 0
unstable = []
same_config_losses = []
for index, name in enumerate(names):
    per_run = [run[0][index] for run in runs]
    if any(r["layer"] != name for r in per_run):
        sys.exit("fidelity.sh: the three runs list different layers")
    run_ms = statistics.median(r["tuned_ns"] for r in per_run) / 1e6
    verdicts = [r["verdict_vs_default"] for r in per_run]
    if len(set(verdicts)) == 1:
        stable += 1
    else:
        unstable.append(name)
    for r in per_run:
        if r["config"] == r["default_config"] and r["verdict_vs_default"] == "slower":
            same_config_losses.append(name)
    b = best.get(per_run[0]["workload"])
    if b is None:
        print(f"{name[:33]:<34}{'-':>9}{'-':>11}{run_ms:>11.4f}{'-':>9}  -           {','.join(verdicts)}  (not tuned)")
        continue
    tuner_ms = b["stats"]["median_ns"] / 1e6
    diff = run_ms / tuner_ms - 1
    ok = abs(diff) <= 0.10
    within += ok
    compared += 1
    config = "best" if b["config"] == per_run[0]["config"] else "other"
    print(f"{name[:33]:<34}{config:>9}{tuner_ms:>11.4f}{run_ms:>11.4f}{100 * diff:>+8.1f}%  {'yes' if ok else 'NO ':<10}  {','.join(verdicts)}")

run_total_ms = statistics.median(run[1]["tuned_ns"] for run in runs) / 1e6
limit = 0.15 if hog else 0.10
print()
print(f"layers within 10% of the tuner's time: {within}/{compared}"
      + ("" if compared == len(names) else f" ({len(names) - compared} layer(s) without a tuned configuration)"))
if estimate_ms is None:
    print("estimate vs run total: the tuning printed no network estimate")
else:
    diff = run_total_ms / estimate_ms - 1
    print(f"estimate vs run total: {estimate_ms:.3f} ms estimated, {run_total_ms:.3f} ms run (median of 3): "
          f"{100 * diff:+.1f}%, within {round(100 * limit)}% ({'hog' if hog else 'quiet'}): {'yes' if abs(diff) <= limit else 'NO'}")
print(f"verdict stability: {stable}/{len(names)} layers kept one verdict over 3 runs"
      + (": unstable " + ", ".join(unstable) if unstable else ""))
print(f"same configuration reported as a loss: {len(set(same_config_losses))}"
      + (": " + ", ".join(sorted(set(same_config_losses))) if same_config_losses else ""))
print("runs: " + "; ".join(f"tuned {run[1]['tuned_ns'] / 1e6:.3f} ms, {run[1]['disturbed_layers']} disturbed layer(s)"
                           for run in runs))
PYTHON
echo "uptime after: $(uptime)"
if [ -n "$keep" ]; then echo "kept: $work"; fi
