// <immintrin.h> for the executor's x86 vector paths. GCC 12's avx512fintrin.h trips
// -Wmaybe-uninitialized on its own "undefined" placeholder once inlined (GCC bug 105593, fixed in
// GCC 13): silenced around the header; the kernels that inline it silence it around themselves.
#pragma once

#if defined(__x86_64__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif
