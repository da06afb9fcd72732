//===- kiln-opt.cpp - mlir-opt with Kiln's passes -------------------------===//
//
// Runs any MLIR pass and Kiln's passes (kiln-fuse-kernels,
// kiln-verify-fused-kernels, kiln-generate-variants) on .mlir files: the
// tool behind the lit tests of test/lit/Transforms.
//
//===----------------------------------------------------------------------===//
#include "Pipeline/Pipeline.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kiln::pipeline::registerDialects(registry);
  kiln::pipeline::registerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
