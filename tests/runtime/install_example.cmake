# Script of the runtime.install_example test (see CMakeLists.txt). Arguments: BUILD_DIR,
# EXAMPLE_DIR, WORK_DIR, BUILD_TYPE, CXX_COMPILER.
foreach(var BUILD_DIR EXAMPLE_DIR WORK_DIR CXX_COMPILER)
  if(NOT ${var})
    message(FATAL_ERROR "install_example: ${var} is not set")
  endif()
endforeach()

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_example: ${name} failed (${rc}):\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component sdk)
foreach(installed include/qtune/qtune.h include/qtune/runtime/runtime.h lib/cmake/qtune/qtuneConfig.cmake)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "install_example: ${installed} was not installed")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()
# The example is compiled with the compiler that built the libraries; the C compiler is its own.
step("configure the example" ${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
     -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
step("build the example" ${CMAKE_COMMAND} --build ${WORK_DIR}/build -j2)
step("run gemm_example_cxx" ${WORK_DIR}/build/gemm_example_cxx ${WORK_DIR}/best.jsonl ${WORK_DIR}/expected_config.txt)
step("run gemm_example_c" ${WORK_DIR}/build/gemm_example_c ${WORK_DIR}/best.jsonl ${WORK_DIR}/expected_config.txt)
file(REMOVE_RECURSE ${WORK_DIR})
