#!/usr/bin/env bash
# The test command of README.md: set up, build, and run the whole test suite.
#   scripts/test.sh            release build + tests, then the ASan/UBSan build + tests
#   QTUNE_SKIP_ASAN=1 scripts/test.sh   release only (quick local loop)
#   QTUNE_SKIP_AARCH64=1 scripts/test.sh  without the aarch64 cross build (its tests and an
#                                         end-to-end tuning session run under qemu)
#   QTUNE_SKIP_FUZZ=1 scripts/test.sh   without the libFuzzer runs of the input parsers (scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage's wall time, printed as it ends and again at the end: where CI's minutes go.
stages=()
stage_start=$SECONDS
stage_done() {
  local line
  line="$(printf 'test.sh: %-22s %5d s' "$1" $((SECONDS - stage_start)))"
  echo "$line"
  stages+=("$line")
  stage_start=$SECONDS
}
trap 'if ((${#stages[@]})); then printf "%s\n" "${stages[@]}" "test.sh: total $SECONDS s"; fi' EXIT

scripts/setup.sh
stage_done setup
cmake --preset release >/dev/null
cmake --build --preset release
stage_done "release build"
ctest --preset release
stage_done "release tests"
if [ "${QTUNE_SKIP_FUZZ:-0}" != 1 ]; then
  # The parsers and the database opener under libFuzzer, a bounded time each; a crash fails.
  scripts/fuzz.sh
  stage_done fuzz
fi
if [ "${QTUNE_SKIP_ASAN:-0}" != 1 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan
  stage_done "asan build"
  ctest --preset asan
  stage_done "asan tests"
fi
if [ "${QTUNE_SKIP_AARCH64:-0}" != 1 ]; then
  # The whole project cross-built; ctest runs the whole suite once per emulated CPU model
  # (cortex-a72, neoverse-n1, max; the whole-model executor's and the model reader's tests under
  # max only, against the host's onnxruntime) and the Arm half of the end-to-end session (tune, export).
  cmake --preset aarch64 >/dev/null
  cmake --build --preset aarch64
  stage_done "aarch64 build"
  ctest --preset aarch64
  stage_done "aarch64 tests"
  # Its x86 half: the exported Arm log imported here, `qtune query --require` and `qtune report`.
  tests/arm/import_on_x86.sh build/release/tools/qtune build/aarch64/arm-session
  stage_done "aarch64 import"
fi
