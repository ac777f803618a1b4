# SPDX-License-Identifier: GPL-2.0-only
#
# libFuzzer harnesses of the module's input readers (fuzz/rocev2-fuzz-<name>.cc),
# built in a sanitizer build with Clang (-DROCEV2_SANITIZE=ON, which sets
# ROCEV2_FUZZ), into <build>/fuzz/. Standalone build only. With them, ctest runs:
#   fuzz/<name>-corpus   the harness over its seed corpus fuzz/corpus/<name>/
#                        once (-runs=0): every seed must pass clean;
#   fuzz/planted-crash   the job-file harness built with a planted heap
#                        overflow (ROCEV2_FUZZ_PLANTED_BUG) must report it on
#                        fuzz/planted/, and the real harness must not.
# ./rocev2 fuzz runs them for a while (utils/rocev2-fuzz.py).
#
# Run as a script (cmake -P), this file is the planted-crash test itself.

# The harnesses, and those that read Chakra traces (they link <lib>-chakra).
set(ROCEV2_FUZZ_HARNESSES hpcc-topology hpcc-flows hpcc-config fault-file job-file chakra-et
    chakra-groups command-line)
set(ROCEV2_FUZZ_CHAKRA_HARNESSES chakra-et chakra-groups)

if(CMAKE_SCRIPT_MODE_FILE)
  # cmake -DPLANTED=<harness> -DHARNESS=<harness> -DINPUT=<file> -DARTIFACTS=<dir> -P <this>
  foreach(_var PLANTED HARNESS INPUT ARTIFACTS)
    if(NOT DEFINED ${_var})
      message(FATAL_ERROR "planted-crash: -D${_var}=... is missing")
    endif()
  endforeach()
  file(MAKE_DIRECTORY ${ARTIFACTS})
  execute_process(COMMAND ${PLANTED} -artifact_prefix=${ARTIFACTS}/ ${INPUT}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(_rc EQUAL 0 OR NOT _err MATCHES "ERROR: AddressSanitizer: heap-buffer-overflow")
    message(FATAL_ERROR "planted-crash: ${PLANTED} did not report the planted heap overflow "
                        "(exit ${_rc}):\n${_err}")
  endif()
  message(STATUS "planted-crash: the planted overflow is reported (exit ${_rc})")
  execute_process(COMMAND ${HARNESS} -artifact_prefix=${ARTIFACTS}/ ${INPUT}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0 OR _err MATCHES "Sanitizer")
    message(FATAL_ERROR "planted-crash: ${HARNESS} is not clean on ${INPUT} (exit ${_rc}):\n"
                        "${_err}")
  endif()
  message(STATUS "planted-crash: ${HARNESS} is clean on the same input")
  return()
endif()

# rocev2_add_fuzzers(<library target>): the harnesses, the target
# rocev2-fuzzers that builds them all, and their ctest tests.
function(rocev2_add_fuzzers lib)
  if(NOT ROCEV2_FUZZ)
    return()
  endif()
  set(_src ${CMAKE_SOURCE_DIR}/fuzz)
  set(_out ${CMAKE_BINARY_DIR}/fuzz)
  add_custom_target(rocev2-fuzzers)
  set(_variants)
  foreach(_name ${ROCEV2_FUZZ_HARNESSES})
    list(APPEND _variants "${_name}:rocev2-fuzz-${_name}:")
  endforeach()
  # The harness with the planted bug, for fuzz/planted-crash.
  list(APPEND _variants "job-file:rocev2-fuzz-job-file-planted:ROCEV2_FUZZ_PLANTED_BUG")
  foreach(_variant ${_variants})
    string(REPLACE ":" ";" _parts "${_variant}")
    list(GET _parts 0 _name)
    list(GET _parts 1 _target)
    add_executable(${_target} ${_src}/rocev2-fuzz-${_name}.cc)
    if(_name IN_LIST ROCEV2_FUZZ_CHAKRA_HARNESSES)
      target_link_libraries(${_target} PRIVATE ${lib}-chakra)
    endif()
    target_link_libraries(${_target} PRIVATE ${lib})
    target_include_directories(${_target} PRIVATE ${CMAKE_SOURCE_DIR}/examples)
    list(LENGTH _parts _n)
    if(_n GREATER 2)
      list(GET _parts 2 _define)
      target_compile_definitions(${_target} PRIVATE ${_define})
    endif()
    target_link_options(${_target} PRIVATE -fsanitize=fuzzer)
    set_target_properties(${_target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${_out})
    add_dependencies(rocev2-fuzzers ${_target})
  endforeach()

  # Sanitizer reports name functions and lines when the symbolizer is found.
  find_program(ROCEV2_LLVM_SYMBOLIZER NAMES llvm-symbolizer-15 llvm-symbolizer)
  set(_env)
  if(ROCEV2_LLVM_SYMBOLIZER)
    set(_env "ASAN_SYMBOLIZER_PATH=${ROCEV2_LLVM_SYMBOLIZER}")
  endif()

  # Each seed corpus once: any crash, sanitizer report, leak or timeout fails.
  # libFuzzer refuses an -artifact_prefix folder that does not exist.
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz-artifacts)
  foreach(_name ${ROCEV2_FUZZ_HARNESSES})
    add_test(NAME fuzz/${_name}-corpus
             COMMAND rocev2-fuzz-${_name} -runs=0 -timeout=60
                     -artifact_prefix=${CMAKE_BINARY_DIR}/fuzz-artifacts/corpus-${_name}-
                     ${_src}/corpus/${_name}
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    set_tests_properties(fuzz/${_name}-corpus PROPERTIES TIMEOUT 600 ENVIRONMENT "${_env}")
  endforeach()
  add_test(NAME fuzz/planted-crash
           COMMAND ${CMAKE_COMMAND} -DPLANTED=$<TARGET_FILE:rocev2-fuzz-job-file-planted>
                   -DHARNESS=$<TARGET_FILE:rocev2-fuzz-job-file>
                   -DINPUT=${_src}/planted/job-file-heap-overflow.json
                   -DARTIFACTS=${CMAKE_BINARY_DIR}/fuzz-artifacts/planted
                   -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(fuzz/planted-crash PROPERTIES TIMEOUT 300 ENVIRONMENT "${_env}")
endfunction()
