#!/usr/bin/env bash
# The x86 half of the end-to-end session: the log exported under qemu by emulated_session.sh is
# imported into a fresh database here, must cover every layer of its network for the Arm target
# (`qtune query --require`, exit 0), and reports.
#   import_on_x86.sh QTUNE SESSION_DIR
set -euo pipefail
qtune="$1" session="$2"
key="$(cat "$session/target_key.txt")"
db="$session/x86_import.db"
rm -f "$db"
"$qtune" import --db "$db" "$session/arm_best.jsonl"
"$qtune" query --db "$db" --require "$session/workloads.json" --target "$key"
"$qtune" report --db "$db" --workloads "$session/workloads.json" --target "$key" --format md -o "$session/report.md"
grep -q "\[emulated\]" "$session/report.md"
echo "x86 import of the emulated Arm session: query --require passed, report in $session/report.md"
