//===- GenerateReductionVariants.cpp - Every variant of a reduction -------===//
//
// Names and builds the variants of one fused reduction kernel K: GPU
// `K_rrows`, `K_rrowsw`, `K_rcols`, `K_rgeneral`; host `K_rrows`, `K_rcols`,
// `K_rgeneral` (exported by the host object as `<name>_host`).
//
//===----------------------------------------------------------------------===//
#include "Conversion/ReductionToVariants/ReductionVariants.h"

using namespace mlir;

namespace kiln::reduction {

void generateReductionVariants(OpBuilder &b, ModuleOp module, gpu::GPUModuleOp gpuModule,
                               function_ref<gpu::GPUModuleOp()> sm90Module, const ReductionProgram &p) {
  std::string stem = mlir::func::FuncOp(p.func).getSymName().str();
  buildGpuRows(b, gpuModule, p, stem + variantSuffix(Layout::Rows), /*warp=*/false);
  buildGpuRows(b, gpuModule, p, stem + variantSuffix(Layout::Rows, /*warpRows=*/true), /*warp=*/true);
  buildGpuCols(b, gpuModule, p, stem + variantSuffix(Layout::Cols));
  buildGpuGeneral(b, gpuModule, p, stem + variantSuffix(Layout::General));
  if (wantsClusterRows(p))
    buildGpuClusterRows(b, sm90Module(), p, stem + "_rrowsc");
  for (Layout l : {Layout::Rows, Layout::Cols, Layout::General})
    buildHost(b, module, p, l, stem + variantSuffix(l));
}

} // namespace kiln::reduction
