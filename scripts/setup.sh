#!/usr/bin/env bash
# Installs everything qtune needs from Debian packages. Idempotent: when every package is
# already present it only checks and returns (no apt-get update, no network).
#   scripts/setup.sh          # build + test + peer-comparison dependencies, Arm cross toolchain
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libsqlite3-dev nlohmann-json3-dev libbenchmark-dev libgtest-dev libgmock-dev
  libdnnl-dev libxnnpack-dev libpthreadpool-dev libgemmlowp-dev
  # Debian's oneDNN is built with the OpenCL GPU runtime: its CMake package requires OpenCL's
  # headers and link library even though qtune only uses the CPU engine.
  ocl-icd-opencl-dev
  g++-aarch64-linux-gnu qemu-user
  # Fleet tuning (scripts/slurm): tests/slurm starts a one-node Slurm cluster and checks the
  # databases it produces with the sqlite3 shell.
  slurm-wlm munge sqlite3
  # The fuzz build (preset fuzz): clang with libFuzzer and the sanitizer runtimes.
  clang libclang-rt-14-dev
  # Quantized ONNX models in (onnx_import/): the ONNX protobuf definitions and shape inference for
  # C++, python3-onnx to build the test models (/usr/bin/python3), and ONNX's node tests.
  libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx python3-numpy libonnx-testdata
  # scripts/fidelity.sh: python3 (standard library) reads qtune's JSON, taskset pins its busy
  # process, uptime says how loaded the machine was.
  python3 util-linux procps
)
# onnxruntime, the reference runner of the ONNX tests, comes from npm and needs Node.js.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
# The aarch64 cross build (preset aarch64: the whole project, tests under qemu) links SQLite,
# GoogleTest and Google Benchmark for arm64 from Debian's multiarch archive; the host and arm64
# packages install side by side. (Debian's arm64 oneDNN and XNNPACK are not installed: the peers of
# `qtune bench` are compared on x86 only.) On a native arm64 machine these are the plain packages
# above, and nothing of the cross build is needed.
if [ "$(dpkg --print-architecture)" != arm64 ]; then
  packages+=(libsqlite3-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64 libbenchmark-dev:arm64)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  if [[ " ${missing[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${sudo_cmd[@]}" dpkg --add-architecture arm64
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages present"
fi

# onnxruntime for the ONNX tests (tests/onnx_import): the npm package carries the CPU libraries for
# linux x64 and arm64; its install script only downloads extras (GPU providers), so it is skipped.
# Project-local and ignored by git; nothing is done when the pinned version is already there.
onnxruntime_version=1.30.0
node_dir="$(cd "$(dirname "$0")/.." && pwd)/.deps/node"
installed="$(cat "$node_dir/node_modules/onnxruntime-node/package.json" 2>/dev/null | grep -o '"version": *"[^"]*"' | grep -o '[0-9][^"]*' || true)"
if [ "$installed" != "$onnxruntime_version" ]; then
  echo "setup: installing onnxruntime-node $onnxruntime_version into $node_dir"
  mkdir -p "$node_dir"
  (cd "$node_dir" && npm install --ignore-scripts --no-audit --no-fund --silent "onnxruntime-node@$onnxruntime_version")
else
  echo "setup: onnxruntime-node $onnxruntime_version present"
fi
