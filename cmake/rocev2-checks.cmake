# SPDX-License-Identifier: GPL-2.0-only
#
# Repository-level checks of the standalone build, run by ctest with the tests.
# Included at the end of rocev2-standalone.cmake.

find_program(ROCEV2_PYTHON3 python3)
if(NOT ROCEV2_PYTHON3)
  message(WARNING "python3 not found: the check/* tests are not registered")
  return()
endif()

get_filename_component(_rocev2_root ${CMAKE_CURRENT_LIST_DIR} DIRECTORY)

# wscript-compat/ must list exactly the sources, headers, test sources and
# examples that CMakeLists.txt and examples/CMakeLists.txt list.
add_test(NAME check/wscript-lists
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-wscript.py --root ${_rocev2_root})
