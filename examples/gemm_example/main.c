/* qtune's C API in a C application.
 *   gemm_example_c <best-config log> <file holding the configuration key expected for the layer>
 * Loads the log, prepares the layer, checks that the tuned configuration was chosen, runs it and
 * compares with qtune_gemm_reference; then checks that errors are reported, not crashed on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"
#include "qtune/qtune.h"

static int fail(const char* what, qtune_status status) {
  fprintf(stderr, "gemm_example_c: %s: %s (%s)\n", what, qtune_status_string(status), qtune_last_error());
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: gemm_example_c <best-config log> <expected configuration key file>\n");
    return 2;
  }
  char expected[1024] = {0};
  FILE* f = fopen(argv[2], "r");
  if (f == NULL || fgets(expected, sizeof expected, f) == NULL) {
    fprintf(stderr, "gemm_example_c: cannot read %s\n", argv[2]);
    if (f != NULL) fclose(f);
    return 1;
  }
  fclose(f);

  static uint8_t a[LAYER_M * LAYER_K];
  static int8_t b[LAYER_K * LAYER_N];
  static int32_t bias[LAYER_N];
  static int8_t got[LAYER_M * LAYER_N], want[LAYER_M * LAYER_N];
  uint32_t state = 12345;
  for (size_t i = 0; i < sizeof a; ++i) a[i] = (uint8_t)layer_next(&state);
  for (size_t i = 0; i < sizeof b; ++i) b[i] = (int8_t)layer_next(&state);
  for (int i = 0; i < LAYER_N; ++i) bias[i] = (int32_t)(layer_next(&state) % 2001) - 1000;
  double scales[LAYER_N];
  for (int c = 0; c < LAYER_N; ++c) scales[c] = layer_scale(c);

  qtune_gemm_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.m = LAYER_M;
  desc.n = LAYER_N;
  desc.k = LAYER_K;
  desc.quant.a_type = QTUNE_DTYPE_U8;
  desc.quant.a_zero_point = kLayerActivationZeroPoint;
  desc.quant.out_type = QTUNE_DTYPE_S8;
  desc.quant.rounding = QTUNE_ROUNDING_TFLITE;
  desc.quant.scales = scales;
  desc.quant.scale_count = LAYER_N;
  desc.quant.out_zero_point = kLayerOutputZeroPoint;
  desc.quant.qmin = -128;
  desc.quant.qmax = 127;
  desc.threads = 1;

  qtune_runtime* rt = NULL;
  qtune_status status = qtune_runtime_create_from_file(argv[1], &rt);
  if (status != QTUNE_OK) return fail("qtune_runtime_create_from_file", status);
  qtune_op* op = NULL;
  status = qtune_gemm_prepare(rt, &desc, b, bias, &op);
  if (status != QTUNE_OK) return fail("qtune_gemm_prepare", status);
  printf("layer: %s configuration %s\n", qtune_op_config_source(op) == QTUNE_SOURCE_TUNED ? "tuned" : "fallback",
         qtune_op_config_key(op));
  int failed = 0;
  if (strcmp(qtune_op_config_key(op), expected) != 0 || qtune_op_config_source(op) != QTUNE_SOURCE_TUNED) {
    fprintf(stderr, "gemm_example_c: expected the tuned configuration %s\n", expected);
    failed = 1;
  }
  status = qtune_gemm_run(op, a, LAYER_K, got, LAYER_N);
  if (status != QTUNE_OK) return fail("qtune_gemm_run", status);
  status = qtune_gemm_reference(&desc, a, LAYER_K, b, bias, want, LAYER_N);
  if (status != QTUNE_OK) return fail("qtune_gemm_reference", status);
  if (memcmp(got, want, sizeof got) != 0) {
    fprintf(stderr, "gemm_example_c: result differs from the reference\n");
    failed = 1;
  }

  /* Errors come back as statuses with a message. */
  qtune_runtime* missing = NULL;
  if (qtune_runtime_create_from_file("/nonexistent/qtune.db", &missing) != QTUNE_ERROR_FILE || missing != NULL) {
    fprintf(stderr, "gemm_example_c: a missing file was not reported\n");
    failed = 1;
  }
  if (qtune_gemm_run(op, NULL, LAYER_K, got, LAYER_N) != QTUNE_ERROR_NULL_ARGUMENT) {
    fprintf(stderr, "gemm_example_c: a null input was not reported\n");
    failed = 1;
  }
  desc.k = 0;
  qtune_op* bad = NULL;
  if (qtune_gemm_prepare(rt, &desc, b, bias, &bad) != QTUNE_ERROR_INVALID_ARGUMENT || bad != NULL) {
    fprintf(stderr, "gemm_example_c: a bad shape was not reported\n");
    failed = 1;
  }
  qtune_op_destroy(op);
  qtune_runtime_destroy(rt);
  if (!failed) printf("gemm_example_c: ok\n");
  return failed;
}
