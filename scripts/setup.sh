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
)
# The aarch64 cross build (preset aarch64, tests under qemu) links Google Benchmark for arm64 from
# Debian's multiarch archive; the host and arm64 packages install side by side.
packages+=(libbenchmark-dev:arm64)

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
