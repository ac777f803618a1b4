# SPDX-License-Identifier: GPL-2.0-only
#
# Standalone build of the rocev2 module against an installed ns-3 (Debian's
# libns3-dev, ns-3.37). It supplies what an ns-3 source tree would:
#   - the module-name variables that CMakeLists.txt links against;
#   - build_lib() and build_lib_example() with the in-tree signatures;
#   - an ns-3 test runner whose suites ctest runs one by one;
#   - the GoogleTest binary and a smoke run of every example (ctest).
# Standalone-only logic lives here, never in CMakeLists.txt: ns-3's in-tree
# dependency scanner reads CMakeLists.txt as text.

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type: Release or Debug" FORCE)
endif()
option(ROCEV2_GTEST "Build the GoogleTest unit tests (gtest/)" ON)
option(ROCEV2_LTO "Release builds: link-time optimisation of the module library" ON)
option(ROCEV2_SANITIZE "AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included) \
build; with Clang also the libFuzzer harnesses of fuzz/ (./rocev2 test --sanitize, ./rocev2 fuzz)" OFF)
option(ROCEV2_MPI "Build with ns-3's MPI module from ROCEV2_NS3_MPI_DIR (./rocev2 setup --mpi, \
./rocev2 build --mpi)" OFF)
set(ROCEV2_NS3_MPI_DIR "" CACHE PATH "Where ./rocev2 setup --mpi installed ns-3's MPI module")
set(ROCEV2_TEST_FULLNESS EXTENSIVE CACHE STRING
    "ns-3 test fullness that ctest runs: QUICK, EXTENSIVE or TAKES_FOREVER")

# Debian's ns3ConfigVersion.cmake demands an exact version match: ask for none.
find_package(ns3 REQUIRED)
# The job-file reader (helper/workload/roce-job-helper.cc) uses nlohmann-json, a
# header-only library in /usr/include (Debian nlohmann-json3-dev).
find_package(nlohmann_json 3 REQUIRED)
# The Chakra execution-trace reader needs protobuf (cmake/rocev2-chakra.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/rocev2-chakra.cmake)
# The Python bindings (pybind11), when pybind11-dev is installed.
include(${CMAKE_CURRENT_LIST_DIR}/rocev2-python.cmake)
# The libFuzzer harnesses of the input readers (sanitizer builds with Clang).
include(${CMAKE_CURRENT_LIST_DIR}/rocev2-fuzz.cmake)

set(_rocev2_ns3_modules core network internet traffic-control applications stats
    point-to-point)
foreach(_mod ${_rocev2_ns3_modules})
  if(NOT TARGET ns3::lib${_mod})
    message(FATAL_ERROR "ns-3 module '${_mod}' not found (ns3::lib${_mod}); "
                        "install libns3-dev (./rocev2 setup)")
  endif()
  set(lib${_mod} ns3::lib${_mod})
endforeach()

# ns-3's MPI module, built from Debian's source package against the installed
# ns-3 (cmake/ns3-mpi), as the variables an ns-3 tree with --enable-mpi sets.
set(ENABLE_MPI OFF)
if(ROCEV2_MPI)
  set(_mpi_lib ${ROCEV2_NS3_MPI_DIR}/lib/libns3-mpi.so)
  if(NOT EXISTS ${_mpi_lib})
    message(FATAL_ERROR "ROCEV2_MPI: ${_mpi_lib} not found; run './rocev2 setup --mpi'")
  endif()
  find_package(MPI REQUIRED COMPONENTS CXX)
  add_library(ns3::libmpi SHARED IMPORTED)
  set_target_properties(ns3::libmpi PROPERTIES
    IMPORTED_LOCATION ${_mpi_lib}
    INTERFACE_INCLUDE_DIRECTORIES ${ROCEV2_NS3_MPI_DIR}/include
    INTERFACE_COMPILE_DEFINITIONS NS3_MPI
    INTERFACE_LINK_LIBRARIES "MPI::MPI_CXX;ns3::libcore;ns3::libnetwork")
  set(libmpi ns3::libmpi)
  set(ENABLE_MPI ON)
endif()

# The same strictness as ns-3's in-tree debug builds, plus -Wextra.
add_compile_options(-Wall -Wextra -Werror)
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  # In-tree debug builds define these; imported targets do not.
  add_compile_definitions(NS3_LOG_ENABLE NS3_ASSERT_ENABLE)
endif()
if(ROCEV2_SANITIZE)
  # Every undefined-behaviour report is an error (no recovery); -O1 keeps the
  # suites quick enough, frame pointers keep the reports' stacks whole.
  set(_rocev2_sanitizers -fsanitize=address,undefined -fno-sanitize-recover=undefined)
  add_compile_options(${_rocev2_sanitizers} -O1 -fno-omit-frame-pointer)
  add_link_options(${_rocev2_sanitizers})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # Coverage for libFuzzer in the library; the harnesses add -fsanitize=fuzzer.
    # Line tables are all the reports' stacks need (file:line per frame); they
    # compile the build about 12 % faster than Debug's full -g.
    add_compile_options(-fsanitize=fuzzer-no-link -gline-tables-only)
    set(ROCEV2_FUZZ ON)
  else()
    # GCC 12 reports a false -Wmaybe-uninitialized inside std::regex under
    # -fsanitize=address.
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()

enable_testing()
set(ROCEV2_STANDALONE ON)
set(ROCEV2_INCLUDE_DIR ${CMAKE_BINARY_DIR}/include)

# build_lib(LIBNAME n SOURCE_FILES ... HEADER_FILES ... LIBRARIES_TO_LINK ... TEST_SOURCES ...)
function(build_lib)
  cmake_parse_arguments(BLIB "" "LIBNAME"
                        "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK;TEST_SOURCES" ${ARGN})
  set(_name ${BLIB_LIBNAME})

  # Public headers appear as ns3/<file>.h, as in an ns-3 build tree.
  set(_module_header "// Generated by the rocev2 standalone build.\n")
  string(APPEND _module_header "#ifndef ROCEV2_MODULE_H\n#define ROCEV2_MODULE_H\n")
  foreach(_h ${BLIB_HEADER_FILES})
    get_filename_component(_base ${_h} NAME)
    configure_file(${CMAKE_SOURCE_DIR}/${_h} ${ROCEV2_INCLUDE_DIR}/ns3/${_base} COPYONLY)
    string(APPEND _module_header "#include \"ns3/${_base}\"\n")
  endforeach()
  string(APPEND _module_header "#endif\n")
  file(WRITE ${ROCEV2_INCLUDE_DIR}/ns3/${_name}-module.h.tmp "${_module_header}")
  configure_file(${ROCEV2_INCLUDE_DIR}/ns3/${_name}-module.h.tmp
                 ${ROCEV2_INCLUDE_DIR}/ns3/${_name}-module.h COPYONLY)

  add_library(${_name} SHARED ${BLIB_SOURCE_FILES})
  # Calls between the library's own functions bind inside it: no PLT hop, and
  # the compiler may inline them (1.3 % fewer instructions on the incasts).
  # Calls into ns-3's libraries load their target from the GOT instead of
  # jumping through the PLT (-fno-plt).
  target_compile_options(${_name} PRIVATE -fno-semantic-interposition -fno-plt)
  target_link_options(${_name} PRIVATE -Wl,-Bsymbolic-functions)
  # Release: link-time optimisation inlines across the library's files (with
  # -fno-plt: 2.2 % fewer instructions on incast-64, 13 % less wall time on
  # incast-2x200; bench/README.md). It makes each relink of the library take
  # tens of seconds: -DROCEV2_LTO=OFF for a quicker edit-build cycle.
  if(ROCEV2_LTO AND CMAKE_BUILD_TYPE STREQUAL "Release")
    include(CheckIPOSupported)
    check_ipo_supported(RESULT _rocev2_ipo OUTPUT _rocev2_ipo_why LANGUAGES CXX)
    if(_rocev2_ipo)
      set_property(TARGET ${_name} PROPERTY INTERPROCEDURAL_OPTIMIZATION TRUE)
    else()
      message(STATUS "rocev2: no link-time optimisation (${_rocev2_ipo_why})")
    endif()
  endif()
  target_include_directories(${_name} PUBLIC ${ROCEV2_INCLUDE_DIR})
  target_link_libraries(${_name} PUBLIC ${BLIB_LIBRARIES_TO_LINK})
  set_target_properties(${_name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  set(lib${_name} ${_name} PARENT_SCOPE)
  set(lib${_name} ${_name})
  if(_name STREQUAL "rocev2")
    rocev2_add_chakra_reader(${_name})
  endif()
  rocev2_write_user_program_flags(${_name})
  rocev2_add_attributes_program(${_name})

  # ns-3 test runner: one ctest test per TestSuite found in the test sources.
  if(BLIB_TEST_SOURCES)
    set(_runner ${_name}-test-runner)
    add_executable(${_runner} test/standalone-test-runner.cc ${BLIB_TEST_SOURCES})
    target_link_libraries(${_runner} PRIVATE ${_name})
    set_target_properties(${_runner} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
    set(_suite_sources ${BLIB_TEST_SOURCES})
    if(_name STREQUAL "rocev2")
      rocev2_add_chakra_tests(${_runner} ${_name})
      list(APPEND _suite_sources ${ROCEV2_CHAKRA_TEST_SOURCES})
    endif()
    foreach(_src ${_suite_sources})
      file(STRINGS ${CMAKE_SOURCE_DIR}/${_src} _lines REGEX "TestSuite\\(\"[a-z0-9-]+\"")
      foreach(_line ${_lines})
        string(REGEX REPLACE ".*TestSuite\\(\"([a-z0-9-]+)\".*" "\\1" _suite "${_line}")
        add_test(NAME suite/${_suite}
                 COMMAND ${_runner} --suite=${_suite} --fullness=${ROCEV2_TEST_FULLNESS}
                 WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
        if(_suite MATCHES "^rocev2-hpcc-parity")
          # The longest suites at TAKES_FOREVER (5 to 12 min each): ctest
          # starts them first so that the others fill the second core.
          set_tests_properties(suite/${_suite} PROPERTIES COST 1000)
        endif()
      endforeach()
    endforeach()
  endif()

  if(EXISTS ${CMAKE_SOURCE_DIR}/examples/CMakeLists.txt)
    add_subdirectory(${CMAKE_SOURCE_DIR}/examples ${CMAKE_BINARY_DIR}/examples-build)
  endif()
  rocev2_register_example_tests()
  if(_name STREQUAL "rocev2")
    rocev2_add_chakra_examples(${_name})
    rocev2_add_python(${_name})
    rocev2_add_fuzzers(${_name})
  endif()
  if(ROCEV2_GTEST AND EXISTS ${CMAKE_SOURCE_DIR}/gtest/CMakeLists.txt)
    add_subdirectory(${CMAKE_SOURCE_DIR}/gtest ${CMAKE_BINARY_DIR}/gtest-build)
  endif()
  if(EXISTS ${CMAKE_SOURCE_DIR}/bench/CMakeLists.txt)
    add_subdirectory(${CMAKE_SOURCE_DIR}/bench ${CMAKE_BINARY_DIR}/bench-build)
  endif()
endfunction()

# Compile and link flags for users' own programs (`./rocev2 run FILE.cc|FOLDER`),
# the same as an example's: written at generate time into
# build/rocev2-run/{cxx,compile.rsp,link.rsp}; the .rsp files are GCC response
# files, one quoted argument per line. Programs link the module and the ns-3
# modules of _rocev2_ns3_modules.
function(rocev2_write_user_program_flags lib)
  set(_dir ${CMAKE_BINARY_DIR}/rocev2-run)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" _config)
  separate_arguments(_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_config}}")
  get_directory_property(_options DIRECTORY ${CMAKE_SOURCE_DIR} COMPILE_OPTIONS)
  get_directory_property(_defs DIRECTORY ${CMAKE_SOURCE_DIR} COMPILE_DEFINITIONS)
  set(_compile ${_flags} ${CMAKE_CXX17_STANDARD_COMPILE_OPTION} ${_options})
  foreach(_d ${_defs})
    list(APPEND _compile -D${_d})
  endforeach()
  list(APPEND _compile -I${ROCEV2_INCLUDE_DIR})
  set(_link -Wl,-rpath,${CMAKE_BINARY_DIR}/lib)
  # The Chakra trace reader's library, loaded only by programs that use it.
  if(TARGET ${lib}-chakra)
    list(APPEND _link -Wl,--push-state,--as-needed "$<TARGET_LINKER_FILE:${lib}-chakra>"
         -Wl,--pop-state)
  endif()
  list(APPEND _link "$<TARGET_LINKER_FILE:${lib}>")
  set(_system_dirs)
  foreach(_mod ${_rocev2_ns3_modules})
    get_target_property(_inc ns3::lib${_mod} INTERFACE_INCLUDE_DIRECTORIES)
    if(_inc)
      list(APPEND _system_dirs ${_inc})
    endif()
    list(APPEND _link "$<TARGET_LINKER_FILE:ns3::lib${_mod}>")
  endforeach()
  list(REMOVE_DUPLICATES _system_dirs)
  # As CMake does: never name the compiler's own include folders (an
  # -isystem /usr/include breaks libstdc++'s #include_next).
  foreach(_inc ${_system_dirs})
    if(NOT _inc IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      list(APPEND _compile -isystem ${_inc})
    endif()
  endforeach()
  foreach(_kind compile link)
    set(_text "")
    foreach(_arg ${_${_kind}})
      string(REPLACE "\\" "\\\\" _arg "${_arg}")
      string(REPLACE "\"" "\\\"" _arg "${_arg}")
      string(APPEND _text "\"${_arg}\"\n")
    endforeach()
    file(GENERATE OUTPUT ${_dir}/${_kind}.rsp CONTENT "${_text}")
  endforeach()
  file(GENERATE OUTPUT ${_dir}/cxx CONTENT "${CMAKE_CXX_COMPILER}\n")
endfunction()

# build/bin/rocev2-attributes: prints the attributes and trace sources of every
# TypeId of the module as reStructuredText (./rocev2 attributes). Standalone only.
function(rocev2_add_attributes_program lib)
  set(_src ${CMAKE_SOURCE_DIR}/utils/rocev2-attributes.cc)
  if(EXISTS ${_src})
    add_executable(rocev2-attributes ${_src})
    target_link_libraries(rocev2-attributes PRIVATE ${lib} ${libcore})
    set_target_properties(rocev2-attributes PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                                       ${CMAKE_BINARY_DIR}/bin)
  endif()
endfunction()

# build_lib_example(NAME n SOURCE_FILES ... HEADER_FILES ... LIBRARIES_TO_LINK ...)
function(build_lib_example)
  cmake_parse_arguments(BLE "" "NAME" "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK" ${ARGN})
  add_executable(${BLE_NAME} ${BLE_SOURCE_FILES})
  target_link_libraries(${BLE_NAME} PRIVATE ${BLE_LIBRARIES_TO_LINK})
  set_target_properties(${BLE_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples)
endfunction()

# Smoke runs of the examples listed in test/examples-to-run.py, the file that
# ns-3's test.py reads in-tree. Entries look like ("name --arg=1", "True", "True").
function(rocev2_register_example_tests)
  set(_file ${CMAKE_SOURCE_DIR}/test/examples-to-run.py)
  if(NOT EXISTS ${_file})
    return()
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_file})
  file(STRINGS ${_file} _lines REGEX "^[ \t]*\\(\"rocev2-")
  set(_n 0)
  foreach(_line ${_lines})
    string(REGEX REPLACE "^[ \t]*\\(\"([^\"]+)\".*" "\\1" _cmd "${_line}")
    separate_arguments(_args UNIX_COMMAND "${_cmd}")
    list(POP_FRONT _args _exe)
    math(EXPR _n "${_n} + 1")
    add_test(NAME example/${_exe}-${_n}
             COMMAND ${CMAKE_BINARY_DIR}/examples/${_exe} ${_args}
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  endforeach()
endfunction()

# Repository-level checks (wscript lists, pcap decoding, ...), registered with ctest.
include(${CMAKE_CURRENT_LIST_DIR}/rocev2-checks.cmake OPTIONAL)
