/* The layer both examples run: a 96 x 80 x 256 GEMM, u8 activations with a zero point, int8
 * weights with zero zero point, per-channel scales, TFLite rounding, s8 output. Shared so that
 * the C example asks for exactly the workload the C++ example tuned. */
#ifndef QTUNE_EXAMPLE_LAYER_H_
#define QTUNE_EXAMPLE_LAYER_H_

#include <stdint.h>

enum { LAYER_M = 96, LAYER_N = 80, LAYER_K = 256 };
static const int32_t kLayerActivationZeroPoint = 128;
static const int32_t kLayerOutputZeroPoint = -5;

/* Deterministic data (a linear congruential generator: the same in C and C++). */
static inline uint32_t layer_next(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}
static inline double layer_scale(int channel) { return 0.0004 * (1.0 + 0.01 * channel); }

#endif
