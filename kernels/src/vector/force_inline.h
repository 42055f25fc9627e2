// QTUNE_FORCE_INLINE: always_inline for code inlined by force only for speed (a tile's epilogue,
// whose accumulators must stay in registers), and nothing in sanitizer builds (QTUNE_SANITIZED_BUILD,
// cmake/QtuneTargets.cmake). There the sanitizers instrument every forced copy: with each epilogue
// inlined into every tile form, the depthwise and GEMM translation units compiled for minutes, and
// what the sanitizers check (the loads, stores and arithmetic) is the same in one shared copy.
// See docs/measurements.md, "Build and test times".
#pragma once

#if defined(QTUNE_SANITIZED_BUILD)
#define QTUNE_FORCE_INLINE
#else
#define QTUNE_FORCE_INLINE __attribute__((always_inline))
#endif
