# Sanitizers and fuzzing for the whole build (the `asan` preset).
#
#   KILN_SANITIZE=address,undefined  compiles and links every target with
#       -fsanitize=<list> -fno-omit-frame-pointer (and, with `undefined`,
#       -fno-sanitize-recover=undefined: a UBSan report stops the program).
#       kiln_runtime carries -fsanitize to whatever links it (kiln_target()
#       programs, install consumers), and kilnc built here compiles and links
#       the programs it builds with the same compiler and flags.
#   KILN_FUZZ=ON  instruments the compiler's sources with
#       -fsanitize=fuzzer-no-link and builds the libFuzzer target kiln-fuzz
#       (test/fuzz). Needs clang (libclang-rt-22-dev has libFuzzer).
include_guard(GLOBAL)

set(KILN_SANITIZE "" CACHE STRING
    "Sanitizers for every target, e.g. address,undefined (empty: none)")
option(KILN_FUZZ "Build kiln-fuzz, the libFuzzer target over kilnc (clang)" OFF)

set(KILN_SANITIZE_COMPILE_FLAGS "")
set(KILN_SANITIZE_LINK_FLAGS "")
if(KILN_SANITIZE)
  set(KILN_SANITIZE_COMPILE_FLAGS -fsanitize=${KILN_SANITIZE} -fno-omit-frame-pointer)
  if(KILN_SANITIZE MATCHES "undefined")
    list(APPEND KILN_SANITIZE_COMPILE_FLAGS -fno-sanitize-recover=undefined)
  endif()
  set(KILN_SANITIZE_LINK_FLAGS -fsanitize=${KILN_SANITIZE})
  add_compile_options(${KILN_SANITIZE_COMPILE_FLAGS})
  add_link_options(${KILN_SANITIZE_LINK_FLAGS})
  message(STATUS "Kiln: sanitizers ${KILN_SANITIZE}")
endif()

if(KILN_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "KILN_FUZZ needs clang (libFuzzer); configure with "
                      "CMAKE_CXX_COMPILER=clang++-22, or use the asan preset")
endif()
