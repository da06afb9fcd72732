# Finds what Kiln builds on and fails with a message naming what is missing
# and how to get it (scripts/setup.sh installs all of it on Debian).

set(KILN_LLVM_ROOT "/usr/lib/llvm-22" CACHE PATH "Prefix of LLVM, Clang and MLIR 22")

# CUDA 13: headers (cuda.h) for the run-time loader, nvcc for the runtime's
# own kernels, ptxas to validate emitted PTX. Nothing links libcuda.
if(NOT CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
find_package(CUDAToolkit 13)
if(NOT CUDAToolkit_FOUND)
  message(FATAL_ERROR
    "Kiln needs the CUDA 13 toolkit (cuda.h, nvcc, ptxas), looked for in "
    "/usr/local/cuda. Install it there or pass -DCUDAToolkit_ROOT=<prefix>. "
    "No GPU is needed to build.")
endif()
find_program(KILN_NVCC nvcc HINTS "${CUDAToolkit_BIN_DIR}" REQUIRED)
find_program(KILN_PTXAS ptxas HINTS "${CUDAToolkit_BIN_DIR}")
message(STATUS "Kiln: CUDA ${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR}")

if(KILN_BUILD_COMPILER)
  find_package(LLVM CONFIG PATHS "${KILN_LLVM_ROOT}/lib/cmake/llvm" NO_DEFAULT_PATH)
  find_package(MLIR CONFIG PATHS "${KILN_LLVM_ROOT}/lib/cmake/mlir" NO_DEFAULT_PATH)
  find_package(Clang CONFIG PATHS "${KILN_LLVM_ROOT}/lib/cmake/clang" NO_DEFAULT_PATH)
  set(_kiln_missing "")
  if(NOT LLVM_FOUND OR NOT LLVM_VERSION_MAJOR EQUAL 22)
    list(APPEND _kiln_missing "LLVM 22 (llvm-22-dev)")
  endif()
  if(NOT MLIR_FOUND)
    list(APPEND _kiln_missing "MLIR 22 (libmlir-22-dev mlir-22-tools)")
  endif()
  if(NOT Clang_FOUND)
    list(APPEND _kiln_missing "Clang 22 (libclang-22-dev clang-22)")
  endif()
  if(_kiln_missing)
    list(JOIN _kiln_missing ", " _kiln_missing)
    message(FATAL_ERROR
      "Kiln's compiler needs ${_kiln_missing} under ${KILN_LLVM_ROOT}. "
      "Run ./scripts/setup.sh, or set KILN_LLVM_ROOT, or configure with "
      "-DKILN_BUILD_COMPILER=OFF to build only the runtime.")
  endif()
  message(STATUS "Kiln: LLVM ${LLVM_PACKAGE_VERSION} at ${KILN_LLVM_ROOT}")
  find_program(KILN_LIT lit HINTS "${KILN_LLVM_ROOT}/bin" NO_DEFAULT_PATH)
  find_program(KILN_FILECHECK FileCheck HINTS "${KILN_LLVM_ROOT}/bin" NO_DEFAULT_PATH)
endif()

if(KILN_BUILD_TESTS)
  find_package(GTest)
  if(NOT GTest_FOUND)
    message(FATAL_ERROR "Kiln's unit tests need GoogleTest (libgtest-dev); "
                        "run ./scripts/setup.sh or pass -DKILN_BUILD_TESTS=OFF.")
  endif()
endif()
