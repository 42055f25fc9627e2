// <immintrin.h> for the executor's x86 vector paths. GCC 12's avx512fintrin.h trips
// -Wmaybe-uninitialized on its own "undefined" placeholder once inlined (GCC bug 105593, fixed in
// GCC 13): silenced around the header, and by the kernels that inline it around themselves
// (QTUNE_GCC105593_BEGIN ... QTUNE_GCC105593_END).
#pragma once

#define QTUNE_GCC105593_BEGIN                                  \
  _Pragma("GCC diagnostic push")                               \
  _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"") \
  _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")
#define QTUNE_GCC105593_END _Pragma("GCC diagnostic pop")

#if defined(__x86_64__)
QTUNE_GCC105593_BEGIN
#include <immintrin.h>
QTUNE_GCC105593_END
#endif
