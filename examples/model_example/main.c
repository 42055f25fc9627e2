/* A whole quantized ONNX model through qtune's C API (qtune/qtune.h, "whole models").
 *   model_example [--threads N] MODEL.onnx [TUNING.jsonl|TUNING.db] [INPUT.npy]
 * Loads the model with its tuning data (none: the built-in defaults), feeds the model's float32
 * input from a .npy file (numpy.save's format, C order; without one, every input is filled with a
 * fixed pattern), runs it and prints each output's name, type, shape and first values, and the
 * argmax of a vector output (the class of a 1x1000 classifier). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtune/qtune.h"

static const char* const kTypeNames[] = {"uint8", "int8", "int32", "float32"};
static const size_t kTypeBytes[] = {1, 1, 4, 4};

static int fail(const char* what, qtune_status status) {
  fprintf(stderr, "model_example: %s: %s (%s)\n", what, qtune_status_string(status), qtune_last_error());
  return 1;
}

static int ends_with(const char* text, const char* suffix) {
  const size_t n = strlen(text), m = strlen(suffix);
  return n >= m && strcmp(text + n - m, suffix) == 0;
}

static void print_shape(FILE* out, const qtune_tensor_info* t) {
  fprintf(out, "[");
  for (size_t d = 0; d < t->rank; ++d) fprintf(out, d ? ",%lld" : "%lld", (long long)t->dims[d]);
  fprintf(out, "]");
}

static double element(const qtune_tensor_info* t, const void* data, size_t i) {
  switch (t->type) {
    case QTUNE_DTYPE_U8: return ((const unsigned char*)data)[i];
    case QTUNE_DTYPE_S8: return ((const signed char*)data)[i];
    case QTUNE_DTYPE_S32: { int32_t v; memcpy(&v, (const char*)data + 4 * i, 4); return v; }
    case QTUNE_DTYPE_F32: { float v; memcpy(&v, (const char*)data + 4 * i, 4); return v; }
  }
  return 0;
}

/* The .npy file into `data` (exactly t->bytes bytes): float32 little-endian, C order, the input's
 * shape. Returns 0, or 1 after printing what is wrong. */
static int read_npy(const char* path, const qtune_tensor_info* t, void* data) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "model_example: cannot open %s: %s\n", path, strerror(errno));
    return 1;
  }
  unsigned char preamble[12];
  char header[4096];
  size_t header_len = 0;
  int ok = fread(preamble, 1, 10, f) == 10 && memcmp(preamble, "\x93NUMPY", 6) == 0;
  if (ok && preamble[6] == 1) {
    header_len = preamble[8] | (size_t)preamble[9] << 8;
  } else if (ok && (preamble[6] == 2 || preamble[6] == 3) && fread(preamble + 10, 1, 2, f) == 2) {
    header_len = preamble[8] | (size_t)preamble[9] << 8 | (size_t)preamble[10] << 16 | (size_t)preamble[11] << 24;
  } else {
    ok = 0;
  }
  if (!ok || header_len >= sizeof header || fread(header, 1, header_len, f) != header_len) {
    fprintf(stderr, "model_example: %s is not a .npy file (or its header is over %zu bytes)\n", path, sizeof header);
    fclose(f);
    return 1;
  }
  header[header_len] = '\0';
  /* numpy writes {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), } */
  const char* shape = strstr(header, "'shape':");
  if (t->type != QTUNE_DTYPE_F32 || strstr(header, "'descr': '<f4'") == NULL ||
      strstr(header, "'fortran_order': False") == NULL || shape == NULL || strchr(shape, '(') == NULL) {
    fprintf(stderr, "model_example: %s: expected a float32 ('<f4') C-order array for a float32 input\n", path);
    fclose(f);
    return 1;
  }
  const char* p = strchr(shape, '(') + 1;
  size_t rank = 0;
  int shape_ok = 1;
  for (;;) {
    while (*p == ' ' || *p == ',') ++p;
    if (*p == ')') break;
    char* end = NULL;
    const long long d = strtoll(p, &end, 10);
    if (end == p || rank >= t->rank || d != t->dims[rank]) {
      shape_ok = 0;
      break;
    }
    ++rank;
    p = end;
  }
  if (!shape_ok || rank != t->rank) {
    fprintf(stderr, "model_example: %s: the array's shape is not the input's ", path);
    print_shape(stderr, t);
    fprintf(stderr, " (header: %s)\n", header);
    fclose(f);
    return 1;
  }
  const size_t got = fread(data, 1, t->bytes, f);
  fclose(f);
  if (got != t->bytes) {
    fprintf(stderr, "model_example: %s: %zu data bytes, the input takes %zu\n", path, got, t->bytes);
    return 1;
  }
  return 0;
}

/* A fixed pattern: floats in [-1, 1), integers over their range. */
static void fill(const qtune_tensor_info* t, void* data) {
  const size_t n = t->bytes / kTypeBytes[t->type];
  uint32_t state = 12345;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    if (t->type == QTUNE_DTYPE_F32) {
      const float v = (float)(state >> 8) / 8388608.0f - 1.0f;
      memcpy((char*)data + 4 * i, &v, 4);
    } else if (t->type == QTUNE_DTYPE_S32) {
      const int32_t v = (int32_t)(state >> 16) - 32768;
      memcpy((char*)data + 4 * i, &v, 4);
    } else {
      ((unsigned char*)data)[i] = (unsigned char)(state >> 24);
    }
  }
}

int main(int argc, char** argv) {
  int threads = 1, first = 1;
  if (argc > 2 && strcmp(argv[1], "--threads") == 0) {
    threads = atoi(argv[2]);
    first = 3;
  }
  const char *model_path = NULL, *tuning_path = NULL, *input_path = NULL;
  for (int i = first; i < argc; ++i) {
    if (model_path == NULL) model_path = argv[i];
    else if (ends_with(argv[i], ".npy") && input_path == NULL) input_path = argv[i];
    else if (!ends_with(argv[i], ".npy") && tuning_path == NULL) tuning_path = argv[i];
    else {
      model_path = NULL; /* one argument too many */
      break;
    }
  }
  if (model_path == NULL) {
    fprintf(stderr, "usage: model_example [--threads N] MODEL.onnx [TUNING.jsonl|TUNING.db] [INPUT.npy]\n");
    return 2;
  }

  qtune_model* model = NULL;
  qtune_status status = qtune_model_load(model_path, tuning_path, threads, &model);
  if (status != QTUNE_OK) return fail("qtune_model_load", status);
  const size_t n_in = qtune_model_input_count(model), n_out = qtune_model_output_count(model);
  printf("%s: %zu inputs, %zu outputs, %zu steps, arena %zu bytes, %d thread(s), tuning %s\n", model_path, n_in, n_out,
         qtune_model_step_count(model), qtune_model_arena_bytes(model), threads,
         tuning_path != NULL ? tuning_path : "none (defaults)");
  if (input_path != NULL && n_in != 1) {
    fprintf(stderr, "model_example: the model has %zu inputs; an input file feeds a model of one\n", n_in);
    qtune_model_destroy(model);
    return 1;
  }

  void** inputs = calloc(n_in ? n_in : 1, sizeof *inputs);
  void** outputs = calloc(n_out ? n_out : 1, sizeof *outputs);
  qtune_tensor_info* out_info = calloc(n_out ? n_out : 1, sizeof *out_info);
  int failed = inputs == NULL || outputs == NULL || out_info == NULL;
  for (size_t i = 0; i < n_in && !failed; ++i) {
    qtune_tensor_info t;
    status = qtune_model_input_info(model, i, &t);
    if (status != QTUNE_OK) {
      failed = fail("qtune_model_input_info", status);
      break;
    }
    inputs[i] = malloc(t.bytes ? t.bytes : 1);
    if (inputs[i] == NULL) {
      failed = 1;
      break;
    }
    printf("input %s %s ", t.name, kTypeNames[t.type]);
    print_shape(stdout, &t);
    printf(" from %s\n", input_path != NULL ? input_path : "a fixed pattern");
    if (input_path != NULL) failed = read_npy(input_path, &t, inputs[i]);
    else fill(&t, inputs[i]);
  }
  for (size_t i = 0; i < n_out && !failed; ++i) {
    status = qtune_model_output_info(model, i, &out_info[i]);
    if (status != QTUNE_OK) {
      failed = fail("qtune_model_output_info", status);
      break;
    }
    outputs[i] = malloc(out_info[i].bytes ? out_info[i].bytes : 1);
    if (outputs[i] == NULL) failed = 1;
  }
  if (!failed) {
    status = qtune_model_run(model, (const void* const*)inputs, outputs);
    if (status != QTUNE_OK) failed = fail("qtune_model_run", status);
  }
  for (size_t i = 0; i < n_out && !failed; ++i) {
    const qtune_tensor_info* t = &out_info[i];
    const size_t n = t->bytes / kTypeBytes[t->type];
    printf("output %s %s ", t->name, kTypeNames[t->type]);
    print_shape(stdout, t);
    printf(":");
    for (size_t k = 0; k < n && k < 6; ++k) printf(" %.6g", element(t, outputs[i], k));
    if (n > 6) printf(" ...");
    /* A vector (every dimension 1 but the last): its largest element, e.g. the class of 1x1000. */
    if (t->rank > 0 && n > 1 && (size_t)t->dims[t->rank - 1] == n) {
      size_t best = 0;
      for (size_t k = 1; k < n; ++k)
        if (element(t, outputs[i], k) > element(t, outputs[i], best)) best = k;
      printf("  argmax %zu (%.6g)", best, element(t, outputs[i], best));
    }
    printf("\n");
  }
  for (size_t i = 0; i < n_in && inputs != NULL; ++i) free(inputs[i]);
  for (size_t i = 0; i < n_out && outputs != NULL; ++i) free(outputs[i]);
  free(inputs);
  free(outputs);
  free(out_info);
  qtune_model_destroy(model);
  return failed;
}
