# Common settings for qtune's own targets: C++20, strict warnings as errors, optional sanitizers.
# Third-party code (GoogleTest built from source, Debian headers) is never compiled with -Werror.

set(QTUNE_WARNINGS -Wall -Wextra -Werror)
set(QTUNE_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
if(QTUNE_FUZZ)
  # libFuzzer's coverage instrumentation in every qtune library; the fuzz targets link its driver.
  list(PREPEND QTUNE_SANITIZER_FLAGS -fsanitize=fuzzer-no-link)
  # The GCC builds are the warning gate; clang's extra warnings must not stop the fuzz run.
  set(QTUNE_WARNINGS -Wall -Wextra)
endif()

function(qtune_defaults target)
  target_compile_options(${target} PRIVATE ${QTUNE_WARNINGS})
  target_compile_features(${target} PUBLIC cxx_std_20)
  if(QTUNE_SANITIZE)
    target_compile_options(${target} PRIVATE ${QTUNE_SANITIZER_FLAGS})
    # For code that forces inlining for speed only (kernels/src/gemm/gemm_ukernel_template.h).
    target_compile_definitions(${target} PRIVATE QTUNE_SANITIZED_BUILD)
    target_link_options(${target} PUBLIC ${QTUNE_SANITIZER_FLAGS})
  endif()
endfunction()

# qtune_library(<name> SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
# One library per top-level folder; public headers live in <folder>/include/qtune/<folder>/.
function(qtune_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  if(NOT ARG_SOURCES)
    # A folder whose implementation has not landed yet still exports its headers.
    add_library(qtune_${name} INTERFACE)
    add_library(qtune::${name} ALIAS qtune_${name})
    target_include_directories(qtune_${name} INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)
    target_link_libraries(qtune_${name} INTERFACE ${ARG_DEPS})
    return()
  endif()
  add_library(qtune_${name} STATIC ${ARG_SOURCES})
  add_library(qtune::${name} ALIAS qtune_${name})
  target_include_directories(qtune_${name}
    PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(qtune_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  qtune_defaults(qtune_${name})
endfunction()

# qtune_isa_sources(<target> <flags-list> <sources...>)
# Each instruction set is compiled in its own translation units with its own flags, so that the
# rest of the library stays baseline and a variant is only ever called after run-time detection.
#
# Sanitized builds compile them at -Og: instrumented at -O1 they were the largest part of that
# build's time, and -Og keeps every sanitizer check (docs/measurements.md, Build and test times).
function(qtune_isa_sources target flags)
  target_sources(${target} PRIVATE ${ARGN})
  if(QTUNE_SANITIZE)
    list(APPEND flags -Og)
  endif()
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${flags}")
endfunction()
