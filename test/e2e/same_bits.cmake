# Runs `${EXE} --hash` (an end-to-end program that prints one hash of every
# result's bits) on the host backend under several KILN_NUM_THREADS and
# fails unless every run prints the same hash: splitting the work across
# threads must not change a bit. ctest: cmake -DEXE=<program> -P same_bits.cmake
# (-DHOST_CPU=baseline: with KILN_HOST_CPU=baseline, the kernels' baseline copies)
set(_first "")
foreach(threads 1 2 7)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env KILN_DEVICE=host KILN_NUM_THREADS=${threads} KILN_HOST_CPU=${HOST_CPU} ${EXE} --hash
                  OUTPUT_VARIABLE _hash RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${EXE} --hash failed with KILN_NUM_THREADS=${threads}: ${_rc}")
  endif()
  message(STATUS "KILN_NUM_THREADS=${threads}: ${_hash}")
  if(_first STREQUAL "")
    set(_first "${_hash}")
  elseif(NOT _hash STREQUAL _first)
    message(FATAL_ERROR "KILN_NUM_THREADS=${threads} gives ${_hash}, KILN_NUM_THREADS=1 gave ${_first}")
  endif()
endforeach()
