/* qtune C API: per-layer dispatch of tuned int8 kernels for applications in C or any language
 * with a C FFI.
 *
 *   qtune_runtime* rt = NULL;
 *   if (qtune_runtime_create_from_file("best.jsonl", &rt) != QTUNE_OK) puts(qtune_last_error());
 *   qtune_op* op = NULL;
 *   qtune_gemm_prepare(rt, &desc, weights, bias, &op);     // chooses and packs, once per layer
 *   qtune_gemm_run(op, a, lda, c, ldc);                      // many times, from any thread
 *   qtune_op_destroy(op);
 *   qtune_runtime_destroy(rt);
 *
 * Every function that can fail returns a qtune_status; QTUNE_OK is 0. The message of the most
 * recent call made by the calling thread is returned by qtune_last_error() ("" after a success).
 * No exception crosses this interface; null pointers, bad shapes and bad files are errors.
 * Operators own their packed weights and stay valid after their runtime is destroyed.
 * qtune_*_run on one operator may be called concurrently from several threads. */
#ifndef QTUNE_QTUNE_H_
#define QTUNE_QTUNE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum qtune_status {
  QTUNE_OK = 0,
  QTUNE_ERROR_NULL_ARGUMENT = 1,    /* a required pointer was null */
  QTUNE_ERROR_INVALID_ARGUMENT = 2, /* bad shape, quantization parameters, strides or enum value */
  QTUNE_ERROR_FILE = 3,             /* cannot open, or not a valid tuning database / log */
  QTUNE_ERROR_WRONG_OPERATOR = 4,   /* e.g. qtune_gemm_run on a conv2d operator */
  QTUNE_ERROR_OUT_OF_RANGE = 5,     /* an index past the end */
  QTUNE_ERROR_OUT_OF_MEMORY = 6,
  QTUNE_ERROR_INTERNAL = 7,
  QTUNE_ERROR_MODEL = 8             /* not an ONNX model, damaged, or an operation qtune cannot run */
} qtune_status;

/* Element types. F32 appears only as a whole model's input or output type (qtune_model_*). */
typedef enum qtune_dtype { QTUNE_DTYPE_U8 = 0, QTUNE_DTYPE_S8 = 1, QTUNE_DTYPE_S32 = 2, QTUNE_DTYPE_F32 = 3 } qtune_dtype;

/* Requantization rounding (docs/requantization.md): part of the model, never a speed knob. */
typedef enum qtune_rounding {
  QTUNE_ROUNDING_TFLITE = 0,
  QTUNE_ROUNDING_UPWARD = 1,
  QTUNE_ROUNDING_TONEAREST = 2,
  QTUNE_ROUNDING_ARM = 3,
  QTUNE_ROUNDING_FP32 = 4
} qtune_rounding;

/* Where the configuration of an operator came from. */
typedef enum qtune_config_source {
  QTUNE_SOURCE_TUNED = 0,     /* tuned for exactly this layer on this CPU */
  QTUNE_SOURCE_NEAREST = 1,   /* the nearest tuned shape's configuration, adapted */
  QTUNE_SOURCE_HEURISTIC = 2  /* the built-in default */
} qtune_config_source;

/* Quantization of one operator (TFLite / PyTorch int8 scheme). */
typedef struct qtune_quant_desc {
  qtune_dtype a_type;            /* activations: U8 or S8 */
  int32_t a_zero_point;
  const int32_t* b_zero_points;  /* weight zero points: NULL (all 0), 1 value, or one per output channel */
  size_t b_zero_point_count;
  qtune_dtype out_type;          /* S32 (raw accumulators), U8 or S8 (requantized) */
  qtune_rounding rounding;       /* requantized outputs only */
  const double* scales;          /* requantized outputs only: 1 value or one per output channel */
  size_t scale_count;
  int32_t out_zero_point;        /* requantized outputs only */
  int32_t qmin, qmax;            /* clamp bounds in the output type (a fused ReLU narrows them) */
} qtune_quant_desc;

/* C[m][n] = sum_k (A[m][k] - za) * (B[k][n] - zb[n]) + bias[n], optionally requantized. */
typedef struct qtune_gemm_desc {
  int64_t m, n, k;
  size_t ldb;   /* row stride of B (K x N int8) in elements; 0 means n */
  qtune_quant_desc quant;
  int threads;  /* thread budget of the layer, >= 1 */
} qtune_gemm_desc;

/* NHWC convolution; weights HWIO (KH x KW x C_in/groups x C_out), output N x OH x OW x C_out. */
typedef struct qtune_conv2d_desc {
  int64_t batch, in_h, in_w, in_c, out_c;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  int64_t pad_top, pad_bottom, pad_left, pad_right;
  int64_t groups;
  qtune_quant_desc quant;
  int threads;
} qtune_conv2d_desc;

typedef struct qtune_runtime qtune_runtime;
typedef struct qtune_op qtune_op;

/* --- errors ------------------------------------------------------------------------------- */
const char* qtune_last_error(void);                  /* never NULL; valid until the thread's next call */
const char* qtune_status_string(qtune_status status); /* "ok", "null argument", ... */
const char* qtune_version_string(void);               /* "0.1.0" */

/* --- runtimes ----------------------------------------------------------------------------- */
/* No tuning data: every operator gets the built-in default. */
qtune_status qtune_runtime_create(qtune_runtime** out);
/* A tuning database or a JSON-lines best-config log (told apart by content), for this CPU. */
qtune_status qtune_runtime_create_from_file(const char* path, qtune_runtime** out);
/* The same, using the entries of another target key (e.g. a log made on a similar machine). */
qtune_status qtune_runtime_create_from_file_for_target(const char* path, const char* target_key,
                                                       qtune_runtime** out);
void qtune_runtime_destroy(qtune_runtime* rt); /* NULL is ignored */

/* Warnings (configurations this CPU cannot run, ...) go to stderr unless a callback is set;
 * callback NULL restores stderr. The callback may be called from any thread that prepares. */
typedef void (*qtune_warning_callback)(const char* message, void* user_data);
qtune_status qtune_runtime_set_warning_callback(qtune_runtime* rt, qtune_warning_callback callback,
                                                void* user_data);

const char* qtune_runtime_target_key(const qtune_runtime* rt); /* NULL when rt is NULL */
size_t qtune_runtime_tuned_count(const qtune_runtime* rt);     /* tuned workloads for the target */

/* Layers prepared so far that did not get their own tuned configuration. The strings stay valid
 * until the runtime is destroyed. */
size_t qtune_runtime_fallback_count(qtune_runtime* rt);
qtune_status qtune_runtime_fallback(qtune_runtime* rt, size_t index, const char** workload_key,
                                    const char** config_key, const char** reason);

/* --- operators ---------------------------------------------------------------------------- */
/* weights: B (K x N, row stride desc->ldb) / HWIO; bias: N (out_c) int32 values or NULL. */
qtune_status qtune_gemm_prepare(qtune_runtime* rt, const qtune_gemm_desc* desc, const int8_t* weights,
                                const int32_t* bias, qtune_op** out);
/* A: M x K (u8/s8) row stride lda >= K; C: M x N of out_type, row stride ldc >= N (elements). */
qtune_status qtune_gemm_run(const qtune_op* op, const void* a, size_t lda, void* c, size_t ldc);

qtune_status qtune_conv2d_prepare(qtune_runtime* rt, const qtune_conv2d_desc* desc, const int8_t* weights,
                                  const int32_t* bias, qtune_op** out);
qtune_status qtune_conv2d_run(const qtune_op* op, const void* input, void* output);

void qtune_op_destroy(qtune_op* op); /* NULL is ignored */

/* What was chosen; NULL when op is NULL. Strings live as long as the operator. */
const char* qtune_op_config_key(const qtune_op* op);
const char* qtune_op_workload_key(const qtune_op* op);
const char* qtune_op_fallback_reason(const qtune_op* op); /* "" when tuned */
qtune_config_source qtune_op_config_source(const qtune_op* op);

/* The scalar definitions every kernel matches bit for bit (for checking results). */
qtune_status qtune_gemm_reference(const qtune_gemm_desc* desc, const void* a, size_t lda, const int8_t* weights,
                                  const int32_t* bias, void* c, size_t ldc);
qtune_status qtune_conv2d_reference(const qtune_conv2d_desc* desc, const void* input, const int8_t* weights,
                                    const int32_t* bias, void* output);

/* --- whole models ------------------------------------------------------------------------- */
/* A quantized ONNX model run end to end (qtune/executor/model_executor.h): every convolution and
 * matrix product prepared from the tuning data, every activation in one planned arena.
 *
 *   qtune_model* model = NULL;
 *   if (qtune_model_load("net.onnx", "best.jsonl", 2, &model) != QTUNE_OK) puts(qtune_last_error());
 *   qtune_tensor_info in;  qtune_model_input_info(model, 0, &in);   // name, type, shape, bytes
 *   qtune_model_run(model, inputs, outputs);                         // caller-owned buffers
 *   qtune_model_destroy(model);
 *
 * Declared where the library is there: the qtune::executor target (built when qtune found ONNX
 * and protobuf) defines QTUNE_HAVE_MODEL_API for the code that links it. */
#if defined(QTUNE_HAVE_MODEL_API)

typedef struct qtune_model qtune_model;

/* One input or output. Tensors are dense and row-major over dims, in ONNX's layout (NCHW images),
 * elements in native byte order. The strings and dims stay valid until the model is destroyed. */
typedef struct qtune_tensor_info {
  const char* name;
  qtune_dtype type;     /* U8, S8, S32 or F32 */
  size_t rank;
  const int64_t* dims;  /* rank values (NULL when rank is 0) */
  size_t bytes;         /* the size of its buffer: product of dims * element size */
} qtune_tensor_info;

/* Reads, checks and compiles the model. tuning_path: a tuning database or JSON-lines log, as
 * qtune_runtime_create_from_file takes (this CPU's entries); NULL: every layer gets the built-in
 * default. threads >= 1: every operation's thread budget. Errors: QTUNE_ERROR_FILE (model or
 * tuning file missing or unreadable, or a bad tuning file), QTUNE_ERROR_MODEL (not an ONNX model,
 * damaged, dynamic input shapes, or an operation outside the supported set; the message names the
 * node and field), QTUNE_ERROR_INVALID_ARGUMENT (threads < 1). *out is NULL after a failure. */
qtune_status qtune_model_load(const char* model_path, const char* tuning_path, int threads, qtune_model** out);
void qtune_model_destroy(qtune_model* model); /* NULL is ignored */

size_t qtune_model_input_count(const qtune_model* model);  /* 0 when model is NULL */
size_t qtune_model_output_count(const qtune_model* model); /* the graph's outputs, in its order */
qtune_status qtune_model_input_info(const qtune_model* model, size_t index, qtune_tensor_info* info);
qtune_status qtune_model_output_info(const qtune_model* model, size_t index, qtune_tensor_info* info);

/* Runs the model: inputs[i] holds input i (qtune_model_input_info(i).bytes bytes), outputs[i]
 * receives output i; buffers belong to the caller and must not overlap. Calls on one model from
 * several threads are serialized (a model owns one arena); load a model per thread to run in
 * parallel. */
qtune_status qtune_model_run(const qtune_model* model, const void* const* inputs, void* const* outputs);

/* Bytes of the activations' arena the model allocated once at load (0 when model is NULL). */
size_t qtune_model_arena_bytes(const qtune_model* model);
/* The compiled operations, in run order: step `index`'s name (its ONNX node's; "<tensor> to NHWC"
 * for a layout conversion the executor adds), op type ("QLinearConv", ..., "layout") and, for a
 * convolution or matrix product, the runtime's choice: "tuned <config key>", "nearest <config
 * key>" or "heuristic <config key>" ("" for other steps). Strings live as long as the model; NULL
 * output pointers are skipped. */
size_t qtune_model_step_count(const qtune_model* model); /* 0 when model is NULL */
qtune_status qtune_model_step_info(const qtune_model* model, size_t index, const char** name, const char** op_type,
                                   const char** selection);

#endif /* QTUNE_HAVE_MODEL_API */

#ifdef __cplusplus
}
#endif

#endif /* QTUNE_QTUNE_H_ */
