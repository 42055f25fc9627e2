#!/usr/bin/env bash
# `qtune bench` on Arm with the peer libraries (ctest qtune_cli.qemu-bench-peers of the aarch64
# tree): the cross-built qtune under qemu times a small GEMM and a small conv2d next to the arm64
# builds of the peers compiled in, in the same run, and says the timings are emulated. The figures
# themselves mean nothing under emulation; what this proves is that every peer builds, runs on
# aarch64 and is reported.
#   bench_peers.sh QTUNE OUT_DIR "PEERS" EMULATOR...     PEERS: e.g. "onednn xnnpack"
set -euo pipefail
qtune="$1" out="$2" peers="$3"
shift 3
emulator=("$@")
rm -rf "$out"
mkdir -p "$out"
quick=(--min-time 0.001 --repetitions 1)

# One operator's bench: the table on stdout, the emulation warning on stderr.
bench() {
  local name="$1"
  shift
  "${emulator[@]}" "$qtune" bench "$@" "${quick[@]}" > "$out/$name.txt" 2> "$out/$name.stderr" ||
    { cat "$out/$name.txt" "$out/$name.stderr"; exit 1; }
  cat "$out/$name.txt" "$out/$name.stderr"
  grep -q "EMULATED CPU" "$out/$name.stderr" ||
    { echo "bench_peers: $name: the timings are not labelled as emulated"; exit 1; }
}

# A peer's row: "  <peer> (<its implementation>)  threads  GOP/s ...", timed (no "error:").
expect_peer_row() {
  local name="$1" peer="$2"
  grep -q "^  $peer (" "$out/$name.txt" || { echo "bench_peers: $name: no $peer row"; exit 1; }
  if grep "^  $peer (" "$out/$name.txt" | grep "error:" > /dev/null; then  # not grep -q: see emulated_session.sh
    echo "bench_peers: $name: the $peer row has an error"
    exit 1
  fi
}

bench gemm --m 9 --n 13 --k 20
for peer in $peers; do expect_peer_row gemm "$peer"; done
# Every Arm family of the emulated CPU is timed with the peers in the same table.
grep -q "isa=i8mm" "$out/gemm.txt" || { echo "bench_peers: gemm: no i8mm variant"; exit 1; }

# oneDNN is the only peer with a convolution (XNNPACK's int8 operators here are fully connected).
bench conv2d --op conv2d --input 1,6,6,8 --out-c 8 --kernel 3x3 --isa neon
if [[ " $peers " == *" onednn "* ]]; then expect_peer_row conv2d onednn; fi
echo "bench_peers: the rows of $peers are present, timings labelled as emulated"
