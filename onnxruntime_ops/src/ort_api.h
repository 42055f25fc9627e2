// onnxruntime's C++ API over the C API table that RegisterCustomOps receives (Ort::InitApi):
// the library never links onnxruntime, it is given its functions.
#pragma once

#define ORT_API_MANUAL_INIT
#include <onnxruntime_cxx_api.h>
#undef ORT_API_MANUAL_INIT
