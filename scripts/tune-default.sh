#!/usr/bin/env bash
# The README's first command: set up, build, and run a real tuning session on the built-in default
# workload (workloads/default.json: a handful of layers including InceptionV3's 75x75x80 3x3->192)
# into a SQLite database, then print the summary.
#   scripts/tune-default.sh [extra qtune tune options]      e.g. --trials 40 --strategy random
# Environment: QTUNE_DB (default qtune.db), QTUNE_TRIALS (default 24 per layer).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target qtune
db="${QTUNE_DB:-qtune.db}"
./build/release/tools/qtune targets
./build/release/tools/qtune tune --db "$db" --workloads workloads/default.json \
  --strategy model --trials "${QTUNE_TRIALS:-24}" --early-stop 12 "$@"
echo
echo "database: $db   (try: ./build/release/tools/qtune query --db $db)"
