# SPDX-License-Identifier: GPL-2.0-only
#
# The Python bindings (python/): the pybind11 extension rocev2._rocev2
# (Debian pybind11-dev) and the package python/rocev2, put together in
# build/python/rocev2 so that PYTHONPATH=build/python makes `import rocev2`
# work (./rocev2 run-python sets it). Standalone build only, against
# Debian's Python 3 (ROCEV2_PYTHON, default /usr/bin/python3: the one with
# python3-numpy and python3-matplotlib). Without pybind11 the bindings and
# their tests are left out, with a message.
# rocev2_add_python(<library target>) is called once the library and its
# Chakra library exist (rocev2-standalone.cmake).

set(ROCEV2_PYTHON /usr/bin/python3 CACHE FILEPATH "Python 3 for the bindings and their tests")
get_filename_component(_rocev2_python_root ${CMAKE_CURRENT_LIST_DIR} DIRECTORY)

function(rocev2_add_python lib)
set(_rocev2_root ${_rocev2_python_root})
if(ROCEV2_SANITIZE)
  # An instrumented extension would need the sanitizer runtime preloaded into python3.
  message(STATUS "rocev2: no Python bindings in a sanitizer build")
  return()
endif()
if(NOT TARGET ${lib}-chakra OR NOT EXISTS ${ROCEV2_PYTHON})
  message(STATUS "rocev2: no Python bindings (needs the standalone build and ${ROCEV2_PYTHON})")
  return()
endif()
set(Python_EXECUTABLE ${ROCEV2_PYTHON})
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 CONFIG QUIET)
if(NOT pybind11_FOUND)
  message(STATUS "rocev2: no Python bindings (install pybind11-dev: ./rocev2 setup)")
  return()
endif()

set(_py_out ${CMAKE_BINARY_DIR}/python/rocev2)
pybind11_add_module(rocev2-python MODULE NO_EXTRAS
  ${_rocev2_root}/python/rocev2-bindings-core.cc
  ${_rocev2_root}/python/rocev2-bindings-runs.cc)
target_link_libraries(rocev2-python PRIVATE ${lib}-chakra ${lib})
set_target_properties(rocev2-python PROPERTIES OUTPUT_NAME _rocev2
                                               LIBRARY_OUTPUT_DIRECTORY ${_py_out})
# The package's Python files, copied next to the extension at build time.
file(GLOB _py_sources CONFIGURE_DEPENDS ${_rocev2_root}/python/rocev2/*.py)
foreach(_src ${_py_sources})
  get_filename_component(_name ${_src} NAME)
  add_custom_command(TARGET rocev2-python POST_BUILD
                     COMMAND ${CMAKE_COMMAND} -E copy_if_different ${_src} ${_py_out}/${_name})
endforeach()

# The Python tests (python/tests, unittest), one ctest test per file.
file(GLOB _py_tests CONFIGURE_DEPENDS ${_rocev2_root}/python/tests/test_*.py)
foreach(_test ${_py_tests})
  get_filename_component(_name ${_test} NAME_WE)
  add_test(NAME python/${_name}
           COMMAND ${ROCEV2_PYTHON} -m unittest -v ${_name}
           WORKING_DIRECTORY ${_rocev2_root}/python/tests)
  set_tests_properties(python/${_name} PROPERTIES
    ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;ROCEV2_BUILD=${CMAKE_BINARY_DIR};ROCEV2_ROOT=${_rocev2_root};MPLBACKEND=Agg")
endforeach()
endfunction()
