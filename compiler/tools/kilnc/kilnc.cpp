//===- tools/kilnc/kilnc.cpp - The kilnc compiler driver ------------------===//
//
// kilnc: compiles C++ array code into fused CUDA kernels and host code
// (SPEC.md section 2). Everything happens in the KilnDriver library.
//
//===----------------------------------------------------------------------===//
#include "Driver/Driver.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return kiln::driver::runKilnc(argc, const_cast<const char **>(argv));
}
