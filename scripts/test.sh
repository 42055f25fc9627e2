#!/usr/bin/env bash
# The test command of README.md: set up, build, and run the whole test suite.
#   scripts/test.sh            release build + tests, then the ASan/UBSan build + tests
#   QTUNE_SKIP_ASAN=1 scripts/test.sh   release only (quick local loop)
#   QTUNE_SKIP_AARCH64=1 scripts/test.sh  without the aarch64 cross build (its tests run under qemu)
#   QTUNE_SKIP_FUZZ=1 scripts/test.sh   without the libFuzzer runs of the input parsers (scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release
if [ "${QTUNE_SKIP_FUZZ:-0}" != 1 ]; then
  # The parsers and the database opener under libFuzzer, a bounded time each; a crash fails.
  scripts/fuzz.sh
fi
if [ "${QTUNE_SKIP_ASAN:-0}" != 1 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan
  ctest --preset asan
fi
if [ "${QTUNE_SKIP_AARCH64:-0}" != 1 ]; then
  # Kernels-only cross build; ctest runs the kernel tests once per emulated CPU model.
  cmake --preset aarch64 >/dev/null
  cmake --build --preset aarch64
  ctest --preset aarch64
fi
