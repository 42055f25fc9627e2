#!/usr/bin/env bash
# Builds the fuzz preset (clang, libFuzzer, ASan + UBSan; only the parsers, the database opener and
# the libraries they need) and runs every target of tests/fuzz for a bounded time. Any crash, leak,
# sanitizer report or failed invariant fails the script; libFuzzer saves the input as
# build/fuzz/artifacts/<target>/crash-*, which then belongs in tests/fuzz/regressions/<target>/ and
# in a GoogleTest case.
#   scripts/fuzz.sh                       every target, QTUNE_FUZZ_SECONDS (default 30) each,
#                                         QTUNE_FUZZ_JOBS (default: the cores) at a time
#   scripts/fuzz.sh log_line config_key   only these targets
# The seed corpora in tests/fuzz/corpus/<target>/ are read, never written: new inputs go to a
# scratch corpus under build/fuzz/corpus/ that is kept between local runs.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${QTUNE_FUZZ_SECONDS:-30}"
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(log_line workload_file workload_key config_key database_open npy_file)
fi

cmake --preset fuzz >/dev/null
# The model reader's target exists where the fuzz build found Debian's ONNX and protobuf.
if (($# == 0)) && grep -q '^onnx_model_fuzzer:' build/fuzz/tests/fuzz/Makefile 2>/dev/null; then
  targets+=(onnx_model)
fi
cmake --build --preset fuzz --target "${targets[@]/%/_fuzzer}"

# One target: the inputs that once crashed it, each once, then the bounded run and its summary;
# returns 1 on a finding.
fuzz_one() {
  local target="$1"
  local binary="build/fuzz/tests/fuzz/${target}_fuzzer"
  local seeds="tests/fuzz/corpus/${target}"
  local regressions="tests/fuzz/regressions/${target}"
  local scratch="build/fuzz/corpus/${target}"
  local artifacts="build/fuzz/artifacts/${target}/"
  local max_len=16384  # a log line, a key, a workload file or a small .npy file
  if [ "$target" = database_open ]; then max_len=65536; fi  # a small database of 512-byte pages
  if [ "$target" = onnx_model ]; then max_len=32768; fi     # the edge models of build_networks.py
  mkdir -p "$scratch" "$artifacts"
  if compgen -G "${regressions}/*" >/dev/null; then
    echo "fuzz: ${target}: replaying $(ls "$regressions" | wc -l) regression input(s)"
    "$binary" -runs=1 "$regressions"/* >"build/fuzz/${target}.regressions.log" 2>&1 || {
      tail -n 60 "build/fuzz/${target}.regressions.log"
      echo "fuzz: ${target} FAILED on a regression input (${regressions})"
      return 1
    }
  fi
  echo "fuzz: ${target}: ${seconds} s"
  # -timeout: one input may take at most 10 s; -rss_limit_mb: a leak or an unbounded allocation
  # is a failure, not a slow machine. The final stat lines give the executions and the coverage.
  "$binary" "$scratch" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
    -artifact_prefix="$artifacts" -print_final_stats=1 2>"build/fuzz/${target}.log" || {
    tail -n 60 "build/fuzz/${target}.log"
    echo "fuzz: ${target} FAILED (input saved under ${artifacts})"
    return 1
  }
  grep -aE '^#[0-9]+[[:space:]]+DONE|^stat::average_exec_per_sec|^stat::peak_rss_mb' "build/fuzz/${target}.log" |
    sed "s/^/fuzz: ${target}: /"
}

# The targets side by side, one per core (QTUNE_FUZZ_JOBS): a libFuzzer run uses one core, so one
# after the other they left the other idle for the whole fuzzing time of CI.
lanes="${QTUNE_FUZZ_JOBS:-$(nproc)}"
failed=0
running=0
for target in "${targets[@]}"; do
  if ((running >= lanes)); then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
