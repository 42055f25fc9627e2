# Cross build for aarch64 Linux on an x86-64 Debian host, tests run under qemu user emulation.
#   cmake --preset aarch64            (or -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake)
# Needs g++-aarch64-linux-gnu and qemu-user; Google Benchmark for arm64 comes from Debian's
# multiarch package libbenchmark-dev:arm64 (scripts/setup.sh installs it), the peers from
# .deps/arm64 (below). GoogleTest is built
# from /usr/src/googletest by the top-level CMakeLists.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(QTUNE_AARCH64_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${QTUNE_AARCH64_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${QTUNE_AARCH64_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${QTUNE_AARCH64_TRIPLE})

# GCC 12.2's aarch64 libstdc++ inlining raises bogus -Wrestrict errors on ordinary string
# concatenation ("literal" + std::string, GCC bug 105329, fixed in GCC 12.3/13) that the x86-64
# build does not see; with -Werror they would break the cross build of correct code.
set(CMAKE_CXX_FLAGS_INIT "-Wno-restrict")

# Headers and libraries come from the cross sysroot and from the arm64 multiarch directories
# (/usr/lib/aarch64-linux-gnu, arch-independent /usr/include and /usr/share/cmake). The host's
# x86-64 library directory must never be searched: an x86 libgtest or libbenchmark would be
# "found" and then fail at link time.
set(CMAKE_FIND_ROOT_PATH /usr/${QTUNE_AARCH64_TRIPLE})
# The arm64 peers of `qtune bench` (oneDNN, XNNPACK, pthreadpool) and ONNX (the model reader; its
# CMake package is found there, protobuf in the multiarch directories, protoc is the host's) are
# unpacked by scripts/setup.sh into .deps/arm64 because they cannot be installed next to the
# host's. That root is searched
# first: its dnnl_config.h (no GPU runtime) must win over the host's x86 one in /usr/include.
get_filename_component(QTUNE_AARCH64_PEERS_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.deps/arm64" ABSOLUTE)
if(EXISTS "${QTUNE_AARCH64_PEERS_ROOT}/usr")
  list(PREPEND CMAKE_FIND_ROOT_PATH "${QTUNE_AARCH64_PEERS_ROOT}")
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
list(APPEND CMAKE_IGNORE_PREFIX_PATH /usr/lib/x86_64-linux-gnu)
list(APPEND CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/cmake
     /usr/lib/x86_64-linux-gnu/cmake/GTest /usr/lib/x86_64-linux-gnu/cmake/benchmark)

# ctest and gtest_discover_tests run the binaries through qemu; the CPU model is chosen per test
# with the QEMU_CPU environment variable (default: qemu's "max", every extension on).
# -L sets the root the emulated dynamic loader resolves paths in. When Debian's multiarch arm64
# libc is installed (libbenchmark-dev:arm64 pulls it in) the root must be "/": the cross sysroot's
# ld.so (libc6-arm64-cross) would otherwise load the multiarch libc.so.6 of a different build
# through the shared ld.so.cache, and that mismatch deadlocks the first std::thread join. Without
# the multiarch libc the cross sysroot is the only arm64 root there is.
find_program(QTUNE_QEMU_AARCH64 qemu-aarch64 REQUIRED)
if(EXISTS /lib/ld-linux-aarch64.so.1)
  set(QTUNE_AARCH64_LOADER_ROOT /)
else()
  set(QTUNE_AARCH64_LOADER_ROOT /usr/${QTUNE_AARCH64_TRIPLE})
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${QTUNE_QEMU_AARCH64};-L;${QTUNE_AARCH64_LOADER_ROOT}")
