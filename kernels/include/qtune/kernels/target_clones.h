// QTUNE_CLONED_FOR_AVX512 before a function: on x86 GCC builds the function is compiled twice, for
// the baseline and for AVX-512, and the loader picks the clone the CPU runs (an ifunc). For plain
// loops GCC vectorizes, outside the per-ISA kernels: the baseline x86-64 build does 16 bytes at a
// time, a CPU with AVX-512 64. Elsewhere it is nothing. Not for templates or inline functions.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define QTUNE_CLONED_FOR_AVX512 __attribute__((target_clones("avx512f", "default")))
#else
#define QTUNE_CLONED_FOR_AVX512
#endif
