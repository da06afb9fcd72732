# Toolchain file that sends every C++ source of a project through kilnc:
#   cmake -DCMAKE_TOOLCHAIN_FILE=<prefix>/lib/cmake/Kiln/kiln-toolchain.cmake ...
# The host compiler stays CMake's choice; kilnc runs as its launcher, every
# C++ executable and shared library links libkiln_runtime.a, and the Kiln
# headers are on the include path. Lives in <prefix>/<libdir>/cmake/Kiln.
get_filename_component(_kiln_libdir "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
get_filename_component(_kiln_prefix "${_kiln_libdir}/.." ABSOLUTE)
set(KILN_KILNC "${_kiln_prefix}/bin/kilnc")
set(KILN_RUNTIME_LIBRARY "${_kiln_libdir}/libkiln_runtime.a")
set(KILN_INCLUDE_DIR "${_kiln_prefix}/include")
if(NOT EXISTS "${KILN_KILNC}" OR NOT EXISTS "${KILN_RUNTIME_LIBRARY}")
  message(FATAL_ERROR "kiln-toolchain.cmake: expected ${KILN_KILNC} and "
                      "${KILN_RUNTIME_LIBRARY}; use the file of a Kiln installation")
endif()

# kilnc first, then a launcher given on the command line (e.g. ccache).
set(_kiln_launcher "${KILN_KILNC};--launcher")
if(DEFINED CACHE{CMAKE_CXX_COMPILER_LAUNCHER} AND
   NOT "$CACHE{CMAKE_CXX_COMPILER_LAUNCHER}" MATCHES "--launcher")
  list(APPEND _kiln_launcher $CACHE{CMAKE_CXX_COMPILER_LAUNCHER})
endif()
set(CMAKE_CXX_COMPILER_LAUNCHER "${_kiln_launcher}")

set(CMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES "${KILN_INCLUDE_DIR}")
set(CMAKE_CXX_STANDARD_LIBRARIES "\"${KILN_RUNTIME_LIBRARY}\" -ldl -lpthread")
# Kiln's headers are C++20.
if(NOT DEFINED CMAKE_CXX_STANDARD)
  set(CMAKE_CXX_STANDARD 20)
endif()
