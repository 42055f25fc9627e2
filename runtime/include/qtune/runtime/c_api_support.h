// How the definitions of the C API (qtune/qtune.h) turn C++ failures into a status and the
// thread's last error: shared by the runtime's functions (runtime/src/c_api.cc) and the whole-model
// functions of the executor library (executor/src/c_api_model.cc), so that both report alike and
// qtune_last_error() returns the message of whichever was called last. Not an application API.
#pragma once

#include <stdexcept>
#include <string>

#include "qtune/qtune.h"

namespace qtune::runtime::c_api {

// Failures the C layer detects itself, each mapped to its own status code. Everything else maps
// by type: std::out_of_range -> OUT_OF_RANGE, std::invalid_argument -> INVALID_ARGUMENT,
// std::bad_alloc -> OUT_OF_MEMORY, any other exception -> INTERNAL.
struct NullArgument : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
struct WrongOperator : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
struct FileProblem : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ModelProblem : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// NullArgument "<what> must not be NULL" when pointer is null.
inline void require(const void* pointer, const char* what) {
  if (pointer == nullptr) throw NullArgument(std::string(what) + " must not be NULL");
}

// The calling thread's last error ("" after a success), as qtune_last_error() returns it.
void set_last_error(std::string message);

// Inside a catch block only: the status of the exception being handled; sets the last error to
// "<function>: <message>".
qtune_status status_of_current_exception(const char* function) noexcept;

// Runs `body`, turning every exception into a status and a message (never across the C boundary).
template <typename Body>
qtune_status guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    set_last_error({});
    return QTUNE_OK;
  } catch (...) {
    return status_of_current_exception(function);
  }
}

}  // namespace qtune::runtime::c_api
