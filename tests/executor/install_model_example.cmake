# Script of the executor.install_model_example test (tests/CMakeLists.txt): installs the "sdk"
# component of the build (with qtune::executor), builds examples/model_example against it as an
# outside project would, runs it on MobileNetV2 (64x64, QOperator form) with and without an input
# file and with a tuning file, and checks that its printed argmax of the logits is onnxruntime's.
# Arguments: BUILD_DIR, SOURCE_DIR, WORK_DIR, BUILD_TYPE, CXX_COMPILER, PYTHON, NODE, NODE_MODULES;
# in cross builds TOOLCHAIN_FILE and EMULATOR (as tests/runtime/install_example.cmake takes them).
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR CXX_COMPILER PYTHON NODE NODE_MODULES)
  if(NOT ${var})
    message(FATAL_ERROR "install_model_example: ${var} is not set")
  endif()
endforeach()

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_model_example: ${name} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component sdk)
foreach(installed include/qtune/qtune.h include/qtune/executor/model_executor.h lib/libqtune_executor.a
                  lib/libqtune_onnx_import.a)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "install_model_example: ${installed} was not installed")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()
set(toolchain)
if(TOOLCHAIN_FILE)
  set(toolchain -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_FILE})
endif()
separate_arguments(emulator UNIX_COMMAND "${EMULATOR}")
step("configure the example" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/model_example -B ${WORK_DIR}/build
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${toolchain})
step("build the example" ${CMAKE_COMMAND} --build ${WORK_DIR}/build -j2)

set(networks ${SOURCE_DIR}/tests/executor/build_networks.py)
set(model ${WORK_DIR}/mobilenet_v2.onnx)
set(input ${WORK_DIR}/input.npy)
step("build the model" ${PYTHON} ${networks} network mobilenet_v2 ${model} --form qoperator --image 64)
step("build the input" ${PYTHON} ${networks} input ${input} --shape 1,3,64,64 --network mobilenet_v2)
step("onnxruntime" ${NODE} ${SOURCE_DIR}/tests/executor/run_onnxruntime.js ${NODE_MODULES} ${model} ${WORK_DIR}/ort 1
     input=${input})
file(WRITE ${WORK_DIR}/argmax.py "import sys\nimport numpy\nsys.stdout.write(str(int(numpy.argmax(numpy.load(sys.argv[1])))))\n")
step("onnxruntime's argmax" ${PYTHON} ${WORK_DIR}/argmax.py ${WORK_DIR}/ort/logits.npy)
set(expected_argmax "${step_output}")
if(NOT expected_argmax MATCHES "^[0-9]+$")
  message(FATAL_ERROR "install_model_example: onnxruntime's argmax is not a number: '${expected_argmax}'")
endif()

set(example ${emulator} ${WORK_DIR}/build/model_example)  # the emulator's words first in a cross build
step("run model_example" ${example} ${model} ${input})
set(run_output "${step_output}")
foreach(expected "input input float32 [1,3,64,64] from ${input}" "output logits float32 [1,1000]:"
                 "output probabilities float32 [1,1000]:" "tuning none (defaults)")
  string(FIND "${run_output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "install_model_example: the example's output lacks \"${expected}\":\n${run_output}")
  endif()
endforeach()
if(NOT run_output MATCHES "output logits float32 \\[1,1000\\]:[^\n]* argmax ([0-9]+) ")
  message(FATAL_ERROR "install_model_example: no argmax printed for the logits:\n${run_output}")
endif()
if(NOT CMAKE_MATCH_1 STREQUAL expected_argmax)
  message(FATAL_ERROR "install_model_example: argmax ${CMAKE_MATCH_1}, onnxruntime's is ${expected_argmax}")
endif()

# Two threads and a (foreign, hence unused) tuning log give the same class; no input file runs on a
# fixed pattern; bad arguments fail with a message.
file(WRITE ${WORK_DIR}/empty.jsonl "")
step("run model_example with a tuning file" ${example} --threads 2 ${model} ${WORK_DIR}/empty.jsonl ${input})
if(NOT step_output MATCHES "output logits float32 \\[1,1000\\]:[^\n]* argmax ${expected_argmax} ")
  message(FATAL_ERROR "install_model_example: another class with 2 threads and a tuning file:\n${step_output}")
endif()
step("run model_example without an input" ${example} ${model})
string(FIND "${step_output}" "from a fixed pattern" at)
if(at EQUAL -1)
  message(FATAL_ERROR "install_model_example: no fixed-pattern input:\n${step_output}")
endif()
foreach(bad_run "${WORK_DIR}/missing.onnx" "${model};${WORK_DIR}/missing.jsonl" "${model};${WORK_DIR}/missing.npy"
                "--threads;0;${model}")
  execute_process(COMMAND ${example} ${bad_run} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "model_example: ")
    message(FATAL_ERROR "install_model_example: `model_example ${bad_run}` did not fail with a message (${rc}):\n${out}${err}")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
