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
  # qtune-ort's onnxruntime headers are fetched from the Debian archive below.
  curl
  # scripts/arm-mca.py (ctest kernels.arm_mca_floors in the aarch64 build): llvm-mca-19 and
  # llvm-objdump-19, whose models of Neoverse and Cortex cores predict the Arm kernels' speed.
  llvm-19
)
# onnxruntime, the reference runner of the ONNX tests, comes from npm and needs Node.js.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
# The aarch64 cross build (preset aarch64: the whole project, tests under qemu) links SQLite,
# GoogleTest and Google Benchmark for arm64 from Debian's multiarch archive; the host and arm64
# packages install side by side. The peers of `qtune bench` on Arm (oneDNN, XNNPACK) are unpacked
# into .deps/arm64 below; apt installs their shared libraries' own dependencies here. On a native
# arm64 machine these are the plain packages above, and nothing of the cross build is needed.
cross_arm64=0
if [ "$(dpkg --print-architecture)" != arm64 ]; then
  cross_arm64=1
  packages+=(libsqlite3-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64 libbenchmark-dev:arm64
             libgomp1:arm64 libcpuinfo0:arm64
             # The model reader and the executor on Arm (protoc stays the host's); ONNX is below.
             libprotobuf-dev:arm64)
fi

missing=()
for p in "${packages[@]}"; do
  # Not grep -q at the end of a pipe: under pipefail its early exit can fail the pipe (SIGPIPE).
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" > /dev/null; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  if [[ " ${missing[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -x arm64 > /dev/null; then
    "${sudo_cmd[@]}" dpkg --add-architecture arm64
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages present"
fi

# The arm64 peers for the cross build, unpacked (not installed) into .deps/arm64, which
# cmake/toolchain-aarch64.cmake searches before the system directories. They cannot be installed
# next to the host's: Debian's libxnnpack and libpthreadpool are not Multi-Arch: same (apt would
# remove the x86 XNNPACK the x86 bench compares against), and libdnnl-dev:arm64's dnnl_config.h
# differs from the amd64 one (no OpenCL GPU runtime), so dpkg refuses to share /usr/include.
# Project-local and ignored by git; nothing is done when they are unpacked already (their
# versions are listed in .deps/arm64/unpacked-packages; delete the directory to refresh them).
# ONNX for arm64 too: libonnx-dev:arm64 needs libonnxifi:arm64, whose /usr/lib/libonnxifi.so is
# the amd64 package's path with other contents (dpkg refuses it, Debian 12's 1.12.0-2+b4).
repo_dir="$(cd "$(dirname "$0")/.." && pwd)"
if ((cross_arm64)); then
  arm64_peers=(libdnnl2 libdnnl-dev libxnnpack0 libxnnpack-dev libpthreadpool0 libpthreadpool-dev
               libonnx1 libonnxifi libonnx-dev)
  arm64_root="$repo_dir/.deps/arm64"
  unpacked="$(cut -d' ' -f1 "$arm64_root/unpacked-packages" 2>/dev/null | xargs || true)"
  if [ "$unpacked" != "${arm64_peers[*]}" ]; then
    echo "setup: unpacking arm64 ${arm64_peers[*]} into $arm64_root"
    download_dir="$(mktemp -d)"
    chmod a+rwx "$download_dir"  # apt-get download fetches as the unprivileged _apt user
    (cd "$download_dir" && apt-get download -qq "${arm64_peers[@]/%/:arm64}")
    rm -rf "$arm64_root"
    mkdir -p "$arm64_root"
    for p in "${arm64_peers[@]}"; do
      deb="$(echo "$download_dir/${p}"_*_arm64.deb)"
      dpkg-deb -x "$deb" "$arm64_root"
      echo "$p $(dpkg-deb -f "$deb" Version)" >>"$arm64_root/unpacked-packages"
    done
    rm -rf "$download_dir"
  else
    echo "setup: arm64 peers present in $arm64_root"
  fi
fi

# onnxruntime for the ONNX tests (tests/onnx_import): the npm package carries the CPU libraries for
# linux x64 and arm64; its install script only downloads extras (GPU providers), so it is skipped.
# Project-local and ignored by git; nothing is done when the pinned version is already there.
onnxruntime_version=1.30.0
node_dir="$repo_dir/.deps/node"
installed="$(cat "$node_dir/node_modules/onnxruntime-node/package.json" 2>/dev/null | grep -o '"version": *"[^"]*"' | grep -o '[0-9][^"]*' || true)"
if [ "$installed" != "$onnxruntime_version" ]; then
  echo "setup: installing onnxruntime-node $onnxruntime_version into $node_dir"
  mkdir -p "$node_dir"
  (cd "$node_dir" && npm install --ignore-scripts --no-audit --no-fund --silent "onnxruntime-node@$onnxruntime_version")
else
  echo "setup: onnxruntime-node $onnxruntime_version present"
fi

# onnxruntime's C API headers for qtune-ort (tools/qtune_ort), which loads the library above: the
# npm package carries no headers and Debian 12 has no onnxruntime, so Debian 13's
# libonnxruntime-dev is fetched at a pinned version and checksum and only its headers are unpacked
# into .deps/onnxruntime-dev (not installed; the C API is versioned, and the 1.30 library serves
# the 1.21 headers' API version). Delete the directory to fetch them again.
ort_dev_deb="libonnxruntime-dev_1.21.0+dfsg-1_amd64.deb"
ort_dev_sha256="14f7d959d5deacbcf1504830d4189f91fc67382b399ed9ae9d3aa9c4050ced08"
ort_dev_dir="$repo_dir/.deps/onnxruntime-dev"
if [ "$(dpkg --print-architecture)" = amd64 ] && [ ! -f "$ort_dev_dir/include/onnxruntime/onnxruntime_c_api.h" ]; then
  echo "setup: fetching onnxruntime's C API headers ($ort_dev_deb) into $ort_dev_dir"
  ort_download="$(mktemp -d)"
  curl -fsSL --retry 3 -o "$ort_download/$ort_dev_deb" "http://deb.debian.org/debian/pool/main/o/onnxruntime/$ort_dev_deb"
  echo "$ort_dev_sha256  $ort_download/$ort_dev_deb" | sha256sum --check --quiet
  dpkg-deb -x "$ort_download/$ort_dev_deb" "$ort_download/root"
  rm -rf "$ort_dev_dir"
  mkdir -p "$ort_dev_dir"
  cp -r "$ort_download/root/usr/include" "$ort_dev_dir/include"
  rm -rf "$ort_download"
else
  echo "setup: onnxruntime's C API headers present in $ort_dev_dir (or not an amd64 host)"
fi
