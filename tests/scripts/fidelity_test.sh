#!/usr/bin/env bash
# scripts/fidelity.sh end to end on a two-layer network with 2 trials per layer: quietly, and with
# --hog (its busy process must be gone when the script ends). Checks that the report has its
# table and its summary lines, not the figures (a test machine is not quiet).
# Usage: fidelity_test.sh path/to/qtune
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export QTUNE=${1:?usage: fidelity_test.sh path/to/qtune}
script=$here/../../scripts/fidelity.sh
out=$(mktemp)
trap 'rm -f "$out"' EXIT

expect() {  # expect PATTERN: a line of the output matches the extended regular expression
  if ! grep -Eq -- "$1" "$out"; then
    echo "FAIL: no line matches: $1" >&2
    cat "$out" >&2
    exit 1
  fi
}

check_report() {
  expect '^layer +config +tuner ms +run ms +diff +within 10% +verdicts \(3 runs\)$'
  # One row per layer: the tuner's time, the median run time, the difference, and three verdicts.
  expect '^fc +(best|other) +[0-9.]+ +[0-9.]+ +[-+][0-9.]+% +(yes|NO) +((faster|same|slower|-),){2}(faster|same|slower|-)$'
  expect '^conv_3x3 +(best|other) +[0-9.]+ +[0-9.]+ +[-+][0-9.]+% +(yes|NO) '
  expect '^layers within 10% of the tuner.s time: [0-2]/2$'
  expect '^verdict stability: [0-2]/2 layers kept one verdict over 3 runs'
  expect '^same configuration reported as a loss: [0-9]+'
  expect '^uptime before: '
  expect '^uptime after: '
}

"$script" "$here/fidelity_tiny.json" --trials 2 >"$out"
check_report
expect '^estimate vs run total: [0-9.]+ ms estimated, [0-9.]+ ms run \(median of 3\): [-+][0-9.]+%, within 10% \(quiet\): (yes|NO)$'

"$script" "$here/fidelity_tiny.json" --trials 2 --hog >"$out"
check_report
expect '^estimate vs run total: .*within 15% \(hog\): (yes|NO)$'
expect '^hog: pid [0-9]+ busy on CPU [0-9]+ while tuning$'
hog_pid=$(sed -n 's/^hog: pid \([0-9]*\) .*/\1/p' "$out")
if kill -0 "$hog_pid" 2>/dev/null; then
  echo "FAIL: the busy process $hog_pid outlived the script" >&2
  kill "$hog_pid"
  exit 1
fi

# Bad input is refused with a message naming it.
if "$script" no-such-network --trials 2 >"$out" 2>&1; then
  echo "FAIL: an unknown network was accepted" >&2
  exit 1
fi
expect 'no workloads file .*no-such-network.json'
if "$script" "$here/fidelity_tiny.json" --trials 0 >"$out" 2>&1; then
  echo "FAIL: --trials 0 was accepted" >&2
  exit 1
fi
expect "--trials: expected a positive number, got '0'"
echo "fidelity.sh: report complete, quiet and with --hog"
