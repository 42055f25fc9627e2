#!/usr/bin/env bash
# Fleet tuning end to end on a real one-node Slurm cluster started on this machine: the job array
# of scripts/slurm/submit.sh tunes tiny_workloads.json in 4 shards, the dependent merge job joins
# them and the merged database passes `qtune query --require`. Then the robustness path: a shard
# killed mid-way with scancel leaves a valid published database, the merge of the partial shards
# names the missing layers and fails, the resubmitted shard resumes from its published database,
# and the merge after it is complete.
#
#   tests/slurm/fleet_tuning_test.sh QTUNE_BIN     (ctest: label slurm)
#
# Exits 77 (ctest SKIP_RETURN_CODE) when a cluster cannot be started here: not root, slurm-wlm or
# munge missing, the host name not resolvable, or the test's ports (16817, 16818) taken. The
# daemons it starts (slurmctld, slurmd, and munged when none was running) are stopped by PID at
# the end. QTUNE_SLURM_TEST_KEEP=1 keeps its scratch folder (logs, databases) for a look.
set -euo pipefail

qtune=${1:?usage: fleet_tuning_test.sh QTUNE_BIN}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
workloads=$here/tiny_workloads.json
ctld_port=16817
slurmd_port=16818
started=$SECONDS

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
log() { echo "[$((SECONDS - started))s] $*"; }

[ "$(id -u)" -eq 0 ] || skip "starting slurmctld, slurmd and munged needs root"
for tool in slurmctld slurmd sbatch squeue scontrol scancel sinfo munge unmunge; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/setup.sh installs slurm-wlm and munge)"
done
[ -x /usr/sbin/munged ] || skip "/usr/sbin/munged is not installed (scripts/setup.sh installs munge)"
command -v sqlite3 >/dev/null || command -v python3 >/dev/null ||
  skip "neither sqlite3 nor python3 is installed to check the databases (scripts/setup.sh installs sqlite3)"
getent hosts "$(hostname -s)" >/dev/null ||
  skip "this host's name '$(hostname -s)' does not resolve: slurmctld and slurmd could not find each other"
for port in $ctld_port $slurmd_port; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then skip "port $port is in use (another Slurm cluster?)"; fi
done
[ -x "$qtune" ] || fail "no qtune program at '$qtune'"
host=$(hostname -s)

# --- the cluster --------------------------------------------------------------------------------
scratch=$(mktemp -d /tmp/qtune-slurm-test.XXXXXX)
munged_pid=""
cancelled_job="" cancelled_log=""  # the shard run 2 cancels: named first if the test fails
# What slurmd logged on the cancelled shard's batch step (at SlurmdDebug=verbose, every signal).
cancelled_step_log() { grep -F "[$cancelled_job.batch]" "$scratch/log/d.log" 2>/dev/null | tail -n 30; }
keep_scratch=${QTUNE_SLURM_TEST_KEEP:-0}  # 1: keep the scratch folder (logs, databases) to look into
teardown() {
  local status=$?
  set +e
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$scratch/slurmctld.pid" ]; then
    # Our jobs end before the daemons: slurmd's step daemons would outlive it.
    scancel --quiet --user="$(id -un)" 2>/dev/null
    for _ in $(seq 100); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  if ((status != 0 && status != 77)); then
    # The cancelled shard first (its log, then what slurmd did to its processes): CI shows the
    # head and the tail of a long output.
    if [ -n "$cancelled_log" ]; then
      echo "--- the cancelled shard's log $cancelled_log"; cat "$cancelled_log" 2>/dev/null
      echo "--- slurmd on the cancelled shard (job $cancelled_job)"
      cancelled_step_log
    fi
    echo "--- slurmctld log (tail)"; tail -n 20 "$scratch/log/ctld.log" 2>/dev/null
    echo "--- slurmd log (tail)"; tail -n 20 "$scratch/log/d.log" 2>/dev/null
    for f in "$scratch"/run*/logs/*.out; do
      [ -f "$f" ] && [ "$f" != "$cancelled_log" ] && { echo "--- $f"; tail -n 30 "$f"; }
    done
  fi
  local pids=()
  for pidfile in "$scratch/slurmd.pid" "$scratch/slurmctld.pid"; do
    [ -f "$pidfile" ] && pids+=("$(cat "$pidfile")")
  done
  [ -z "$munged_pid" ] || pids+=("$munged_pid")
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  done
  ((keep_scratch)) || rm -rf "$scratch"
  exit "$status"
}
trap teardown EXIT

# munge: reuse a running daemon, otherwise start one (and stop it at the end).
if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  log "munged already running: reusing it"
else
  mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    chown munge:munge /etc/munge/munge.key
    chmod 400 /etc/munge/munge.key
  fi
  runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid
  for _ in $(seq 50); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
  munged_pid=$(cat /run/munge/munged.pid)
  munge -n | unmunge >/dev/null || fail "munged started but munge -n | unmunge fails"
  log "started munged (pid $munged_pid)"
fi

mkdir -p "$scratch/state" "$scratch/spool" "$scratch/log" "$scratch/nodelocal"
# SlurmdDebug=verbose: slurmd logs each signal it sends to each process of a step, for the report
# of a failure.
cat >"$scratch/slurm.conf" <<CONF
ClusterName=qtunetest
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
StateSaveLocation=$scratch/state
SlurmdSpoolDir=$scratch/spool
SlurmctldPidFile=$scratch/slurmctld.pid
SlurmdPidFile=$scratch/slurmd.pid
SlurmctldLogFile=$scratch/log/ctld.log
SlurmdLogFile=$scratch/log/d.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
KillWait=10
SlurmdDebug=verbose
NodeName=$host CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$scratch/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 150); do
  [[ $(sinfo -h -N -o %t 2>/dev/null) == idle ]] && break
  sleep 0.2
done
[[ $(sinfo -h -N -o %t 2>/dev/null) == idle ]] || fail "the node did not become idle: $(sinfo -N 2>&1)"
log "cluster up: node $host idle"

# The jobs' node-local disk ($TMPDIR, passed on by sbatch --export=ALL).
export TMPDIR=$scratch/nodelocal

# --- helpers ------------------------------------------------------------------------------------
job_field() {  # job_field ID FIELD: e.g. JobState, ExitCode (of a job or one array task)
  scontrol show job -o "$1" 2>/dev/null | head -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}
wait_job() {  # wait_job ID SECONDS: until the job has ended and its processes are gone; prints its state
  local deadline=$((SECONDS + $2)) state
  while :; do
    state=$(job_field "$1" JobState)
    # A cancelled job is CANCELLED at once, while its processes still run their exit traps:
    # squeue lists it (as completing) until they are gone.
    case $state in
      COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)
        if [ -z "$(squeue -h -j "$1" -o %t 2>/dev/null)" ]; then echo "$state"; return; fi ;;
    esac
    ((SECONDS < deadline)) || fail "job $1 still '$state' after $2 s"
    sleep 0.3
  done
}
submit() {  # submit ARGS...: sets $array and $merge, the ids of the array job and the merge job
  local out
  out=$("$source_dir/scripts/slurm/submit.sh" --qtune "$qtune" --workloads "$workloads" "$@") ||
    fail "submit.sh $* failed: $out"
  read -r array merge < <(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\)$/\1 \2/p' <<<"$out")
  [ -n "${merge:-}" ] || fail "submit.sh printed no job ids: $out"
}
sql() {  # sql DB QUERY: the first column of the first row (sqlite3, else Python's sqlite3)
  if command -v sqlite3 >/dev/null; then
    sqlite3 -readonly "$1" "$2"
  else
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"
  fi
}
integrity() { sql "$1" 'PRAGMA integrity_check'; }  # "ok" or SQLite's list of problems
# Distinct (layer, configuration) pairs measured: the trials (a configuration measured again to
# confirm it counts once).
trials() { sql "$1" 'SELECT count(DISTINCT workload_id || "/" || config_id) FROM measurements'; }
measurements() {  # the measurements of a database, one JSON line each, sorted
  "$qtune" export --db "$1" --all | sort
}
tuned_layers() {  # how many layers of the network a database has tuned for this target
  { "$qtune" query --db "$1" --require "$workloads" || true; } | sed -n '1s/^.*: \([0-9]*\) of [0-9]* layers.*$/\1/p'
}
no_temporary_files() {  # publishing renames its temporary copies: none may be left
  if compgen -G "$1/.*.tmp.*" >/dev/null || compgen -G "$1/shards/.*.tmp.*" >/dev/null; then
    fail "temporary files left in $1: $(ls -a "$1" "$1/shards")"
  fi
}
distinct_layers=7  # tiny_workloads.json: eight layers, two of them identical

# --- 1. four shards, merged ---------------------------------------------------------------------
submit --shards 4 --results "$scratch/run1" --tune-args "--trials 3 --confirm 0"
log "run 1: array job $array (4 shards), merge job $merge"
state=$(wait_job "$merge" 150)
[ "$state" = COMPLETED ] || fail "merge job $merge ended $state (exit $(job_field "$merge" ExitCode))"
log "run 1: merge job $state"
total=0
for shard in 0 1 2 3; do
  db=$scratch/run1/shards/shard-$shard-of-4.db
  [ -f "$db" ] || fail "shard $shard published no database"
  [ "$(integrity "$db")" = ok ] || fail "shard $shard: integrity_check: $(integrity "$db")"
  total=$((total + $(tuned_layers "$db")))
done
((total == distinct_layers)) || fail "the shards tuned $total layers in all, expected each of the $distinct_layers exactly once"
merged=$scratch/run1/merged.db
[ "$(integrity "$merged")" = ok ] || fail "merged.db: integrity_check: $(integrity "$merged")"
"$qtune" query --db "$merged" --require "$workloads" || fail "the merged database does not have every layer"
[ "$(trials "$merged")" -eq $((distinct_layers * 3)) ] || fail "merged.db: $(trials "$merged") trials, expected $((distinct_layers * 3))"
no_temporary_files "$scratch/run1"
log "run 1: merged database complete (every layer tuned once, integrity ok)"

# --- 2. a shard killed mid-way, merged partially, resubmitted -----------------------------------
# Two shards: shard 0 is the 3x3 conv alone (the largest layer), shard 1 the six others. The
# scheduler gives each layer a first round of 8 trials in turn, so killing shard 1 soon after its
# first measurement (within about 40 trials) leaves layers without any.
tune_args="--trials 10 --confirm 0"
partial_name="shard-1-of-2.db"
# cancel_shard_1 RESULTS: submits the two shards into RESULTS and cancels shard 1 mid-way. Returns
# 0 when the cancelled shard published its database; 1 when its script was gone without running
# its SIGTERM handler at all (no line of it in the shard's log): killed outright, which no script
# survives and which this test is not about; fails on anything else, and so when the handler ran
# and published nothing.
cancel_shard_1() {
  local results=$1 deadline count=0 first_seen="" live state
  # A task killed outright leaves its node-local folder behind; the next one must not be taken
  # for it.
  rm -rf "$TMPDIR"/qtune-$partial_name.*
  submit --shards 2 --results "$results" --tune-args "$tune_args"
  log "run 2: array job $array (2 shards), merge job $merge"
  # The cancel waits until the task has run half a second past its first measurement as well:
  # cancelled right after its launch, while slurmctld still counted the launch as in progress, a
  # task was gone without publishing, sooner than a publish takes (seen once in CI; the timings:
  # docs/measurements.md, "Fleet tuning test").
  deadline=$((SECONDS + 60))
  until ((count > 0)) && [ -n "$first_seen" ] && (($(date +%s%N) - first_seen >= 500000000)); do
    ((SECONDS < deadline)) || fail "shard 1 measured nothing within 60 s"
    sleep 0.1
    live=$(compgen -G "$TMPDIR/qtune-$partial_name.*/$partial_name" | head -n 1 || true)
    [ -n "$live" ] || continue
    count=$(sql "$live" 'SELECT count(*) FROM measurements' 2>/dev/null || echo 0)
    if ((count > 0)) && [ -z "$first_seen" ]; then first_seen=$(date +%s%N); fi
  done
  [ "$(job_field "${array}_1" JobState)" = RUNNING ] || fail "shard 1 is $(job_field "${array}_1" JobState), not RUNNING, before the cancel"
  cancelled_job=$(job_field "${array}_1" JobId)
  cancelled_log=$results/logs/tune-${array}_1.out
  scancel "${array}_1"
  log "run 2: cancelled shard 1 (task ${array}_1) after its first measurement"
  state=$(wait_job "${array}_1" 60)
  [ "$state" = CANCELLED ] || fail "shard 1 ended $state, expected CANCELLED"
  [ -f "$results/shards/$partial_name" ] && return 0
  grep -q '^tune-array: shard 1/2: SIGTERM' "$cancelled_log" && fail "the killed shard published no database"
  # Seen twice in CI and never in about 45 runs on the same machine, with and without load: the
  # task gone right after slurmd's "CANCELLED" line, without a published database (too soon for
  # publishing; the timings: docs/measurements.md, "Fleet tuning test"). The cause is not known;
  # the report below (slurmd logs every signal it sends, SlurmdDebug=verbose) is for finding it.
  log "run 2: WARNING: shard 1's script was gone without running its SIGTERM handler; its log and slurmd's lines on it:"
  sed 's/^/    /' "$cancelled_log"
  cancelled_step_log | sed 's/^/    /'
  state=$(wait_job "$merge" 120)
  log "run 2: its merge job ended $state; once more, into a new results folder"
  return 1
}
results=$scratch/run2
if ! cancel_shard_1 "$results"; then
  results=$scratch/run2-again
  cancel_shard_1 "$results" || fail "the killed shard published no database, twice without running its SIGTERM handler"
fi
partial=$results/shards/$partial_name
[ "$(integrity "$partial")" = ok ] || fail "killed shard: integrity_check: $(integrity "$partial")"
partial_lines=$(measurements "$partial")
partial_trials=$(trials "$partial")
log "run 2: the killed shard published a valid database with $partial_trials trial(s)"

state=$(wait_job "$merge" 120)
[ "$state" = FAILED ] || fail "the merge of a partial run ended $state; expected FAILED (layers missing)"
merge_log=$results/logs/merge-$merge.out
grep -q '^missing:' "$merge_log" || fail "the merge job's log names no missing layers"
missing_names=$(sed -n '/^missing:/,/^[^ ]/{/^  /p}' "$merge_log" | awk '{print $1}' | sort -u | tr '\n' ' ')
[ -n "$missing_names" ] || fail "the merge job's log lists no missing layer under 'missing:'"
log "run 2: merge of the partial run failed the gate as it should; missing: $missing_names"
if "$qtune" query --db "$results/merged.db" --require "$workloads" >/dev/null; then
  fail "query --require passes on the partial merge"
fi

submit --shards 2 --results "$results" --tune-args "$tune_args" --array 1
log "run 2: resubmitted shard 1 (array job $array), merge job $merge"
state=$(wait_job "$merge" 150)
[ "$state" = COMPLETED ] || fail "the merge after the resubmission ended $state"
resumed_log=$results/logs/tune-${array}_1.out
grep -q 'resuming from' "$resumed_log" || fail "the resubmitted shard did not start from its published database"
final_lines=$(measurements "$partial")
lost=$(comm -23 <(echo "$partial_lines") <(echo "$final_lines") | wc -l)
((lost == 0)) || fail "$lost measurement(s) of the killed run are missing after the resumption"
shard1_layers=$((distinct_layers - 1))
[ "$(trials "$partial")" -eq $((shard1_layers * 10)) ] ||
  fail "shard 1 has $(trials "$partial") trials, expected $shard1_layers layers x 10"
# The session plans only the trials the published database did not have.
planned=$(sed -n 's/^tuning .* up to \([0-9]*\) new trials.*$/\1/p' "$resumed_log")
((planned == shard1_layers * 10 - partial_trials)) ||
  fail "the resumed shard planned '$planned' new trials, expected $((shard1_layers * 10 - partial_trials)) (it did not continue from the $partial_trials done)"
"$qtune" query --db "$results/merged.db" --require "$workloads" || fail "the merged database is incomplete after the resubmission"
[ "$(integrity "$results/merged.db")" = ok ] || fail "merged.db: integrity_check failed"
no_temporary_files "$results"
log "run 2: resumed shard 1 kept its $partial_trials earlier trial(s) and planned $planned more; merged database complete"
log "PASS"
