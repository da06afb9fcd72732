//===- Driver/RawModuleImages.h - GPU code of CUDA source literals -*- C++ -*-===//
//
// The driver's part of kiln::raw_module::from_source with a string literal
// (Frontend/RawModuleLiteral.h compiles it to PTX): with --cuda-arch, each
// module whose PTX is for a virtual architecture (compute_80 unless the
// user's options chose) gets cubins for those GPUs, bundled with its PTX by
// ptxas and fatbinary as the fused kernels' are (Target/PTX/BundleFatbin.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_RAWMODULEIMAGES_H
#define KILN_DRIVER_RAWMODULEIMAGES_H

#include "Driver/Options.h"
#include "Driver/Toolchain.h"
#include "Frontend/RawModuleLiteral.h"

#include <vector>

namespace mlir {
class MLIRContext;
}

namespace kiln::driver {

/// Adds the --cuda-arch cubins to `modules` (their `fatbin`). Without
/// ptxas, warns (unless `quiet`: the fused kernels' stage says so) and
/// leaves them PTX only. Returns false when ptxas or fatbinary failed
/// (reported on stderr).
bool bundleRawModules(std::vector<frontend::RawModuleDecl> &modules, const DriverOptions &opts,
                      const Toolchain &tc, mlir::MLIRContext &context, bool quiet);

} // namespace kiln::driver

#endif
