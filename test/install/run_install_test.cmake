# Run by ctest (test `install`): installs the Kiln build into WORK_DIR/prefix
# and builds and runs the consumer projects against that prefix only.
cmake_minimum_required(VERSION 3.25)

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "[${name}] ${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: step '${name}' failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

run_step(install ${CMAKE_COMMAND} --install ${KILN_BUILD_DIR} --prefix ${prefix})
foreach(file bin/kilnc include/kiln/kiln.hpp ${KILN_INSTALL_LIBDIR}/libkiln_runtime.a
             ${KILN_INSTALL_LIBDIR}/cmake/Kiln/KilnConfig.cmake
             ${KILN_INSTALL_LIBDIR}/cmake/Kiln/KilnTargets.cmake
             ${KILN_INSTALL_LIBDIR}/cmake/Kiln/KilnTarget.cmake
             ${KILN_INSTALL_LIBDIR}/cmake/Kiln/kiln-toolchain.cmake)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "install test: ${prefix}/${file} was not installed")
  endif()
endforeach()
run_step(version ${prefix}/bin/kilnc --version)
if(NOT step_output MATCHES "^kilnc version ")
  message(FATAL_ERROR "install test: unexpected kilnc --version: ${step_output}")
endif()

# Nothing of the build or source tree may leak into the consumers.
set(common -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release)

# 1. find_package(Kiln) + kiln_target().
run_step(configure-package ${CMAKE_COMMAND} ${common} -S ${KILN_TEST_DIR}/consumer
         -B ${WORK_DIR}/package -DCMAKE_PREFIX_PATH=${prefix})
run_step(build-package ${CMAKE_COMMAND} --build ${WORK_DIR}/package)
run_step(run-package ${WORK_DIR}/package/kiln_consumer)
if(NOT step_output MATCHES "consumer: OK")
  message(FATAL_ERROR "install test: the kiln_target() consumer printed: ${step_output}")
endif()

# 2. The toolchain file: every C++ source through kilnc, runtime linked.
run_step(configure-toolchain ${CMAKE_COMMAND} ${common} -S ${KILN_TEST_DIR}/toolchain_consumer
         -B ${WORK_DIR}/toolchain
         -DCMAKE_TOOLCHAIN_FILE=${prefix}/${KILN_INSTALL_LIBDIR}/cmake/Kiln/kiln-toolchain.cmake)
run_step(build-toolchain ${CMAKE_COMMAND} --build ${WORK_DIR}/toolchain)
run_step(run-toolchain ${WORK_DIR}/toolchain/kiln_toolchain_consumer)
if(NOT step_output MATCHES "consumer: OK")
  message(FATAL_ERROR "install test: the toolchain consumer printed: ${step_output}")
endif()

# 3. The installed kilnc on its own finds the installed headers and runtime.
run_step(kilnc-link ${prefix}/bin/kilnc ${KILN_TEST_DIR}/consumer/main.cpp
         -o ${WORK_DIR}/direct)
run_step(run-direct ${WORK_DIR}/direct)
if(NOT step_output MATCHES "consumer: OK")
  message(FATAL_ERROR "install test: the kilnc-built program printed: ${step_output}")
endif()
