#!/usr/bin/env bash
# The Arm half of the end-to-end session (ctest qtune_cli.qemu-session of the aarch64 tree): the
# cross-built qtune, under qemu's "max" CPU (every Arm family: NEON, dotprod, i8mm), names the CPU,
# tunes a tiny network, runs it with what won and exports that. import_on_x86.sh (scripts/test.sh, after the aarch64
# ctest) imports that log on the x86 side and checks it covers the network.
#   emulated_session.sh QTUNE WORKLOADS OUT_DIR EMULATOR...
set -euo pipefail
qtune="$1" workloads="$2" out="$3"
shift 3
emulator=("$@")
rm -rf "$out"
mkdir -p "$out"
run() { "${emulator[@]}" "$qtune" "$@"; }

run targets | tee "$out/targets.txt"
# The CPU is named from MIDR (qemu's own model under "max") with its int8 extensions from HWCAP,
# and marked as emulated, in the report and in the key the results are recorded under.
grep -q "^cpu: .*MIDR implementer 0x.*asimd asimddp i8mm \[emulated\]" "$out/targets.txt"
grep -q "^emulation: " "$out/targets.txt"
grep -q "kernel instruction sets usable here: scalar neon dotprod i8mm$" "$out/targets.txt"
run targets --key > "$out/target_key.txt"
grep -q "cpu=.*\[emulated\];isas=scalar,neon,dotprod,i8mm;" "$out/target_key.txt"

run tune --db "$out/arm.db" --workloads "$workloads" --trials 2 --quiet 2> "$out/tune_stderr.txt" ||
  { cat "$out/tune_stderr.txt"; exit 1; }
cat "$out/tune_stderr.txt"
grep -q "EMULATED CPU" "$out/tune_stderr.txt"
run export --db "$out/arm.db" -o "$out/arm_best.jsonl"
# One best configuration per layer, each recorded under the emulated Arm target.
test "$(wc -l < "$out/arm_best.jsonl")" -eq 3
test "$(grep -c '"target":"arch=aarch64;cpu=[^"]*\[emulated\];isas=scalar,neon,dotprod,i8mm;' "$out/arm_best.jsonl")" -eq 3
# The depthwise layer's default (always measured) runs the NEON depthwise kernels, not the scalar
# fallback, and it measured correct.
run export --db "$out/arm.db" --all -o "$out/arm_all.jsonl"
# (grep -q would exit at the first match and, under pipefail, fail the pipeline when the grep before
# it is then killed writing: CI saw that once; the last grep reads everything instead.)
grep '"config":"algo=depthwise;' "$out/arm_all.jsonl" | grep 'isa=neon' | grep '"error":null' > /dev/null

# The runtime on the Arm target runs every layer with its own tuned configuration.
run run --workloads "$workloads" --db "$out/arm.db" --repetitions 2 --no-store > "$out/run.txt" 2> "$out/run_stderr.txt" ||
  { cat "$out/run.txt" "$out/run_stderr.txt"; exit 1; }
cat "$out/run.txt"
grep -q "EMULATED CPU" "$out/run_stderr.txt"
grep -q "^every layer ran its own tuned configuration$" "$out/run.txt"
cp "$workloads" "$out/workloads.json"
echo "emulated session: $(wc -l < "$out/arm_best.jsonl") best configurations in $out/arm_best.jsonl"
