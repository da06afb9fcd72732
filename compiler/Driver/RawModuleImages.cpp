//===- Driver/RawModuleImages.cpp - GPU code of CUDA source literals ------===//
#include "Driver/RawModuleImages.h"
#include "Driver/Command.h"
#include "Target/PTX/BundleFatbin.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

namespace kiln::driver {

bool bundleRawModules(std::vector<frontend::RawModuleDecl> &modules, const DriverOptions &opts,
                      const Toolchain &tc, mlir::MLIRContext &context, bool quiet) {
  if (modules.empty() || opts.cudaArchs.empty())
    return true;
  if (tc.ptxas.empty()) {
    if (!quiet)
      reportWarning("ptxas not found (set KILN_PTXAS or put it on PATH); "
                    "--cuda-arch ignored, embedding PTX only");
    return true;
  }
  for (frontend::RawModuleDecl &m : modules) {
    // A user's real architecture (sm_XX) already gave NVRTC's cubin.
    if (!m.fatbin.empty() || m.ptx.empty() || llvm::StringRef(m.target).starts_with("sm_"))
      continue;
    mlir::Location loc = mlir::FileLineColLoc::get(&context, m.file, m.line, 1);
    mlir::FailureOr<std::string> fatbin =
        ptx::bundleFatbin(loc, m.ptx, m.target, /*ptx90=*/"", opts.cudaArchs, tc.ptxas, tc.fatbinary, /*optLevel=*/3);
    if (mlir::failed(fatbin))
      return false;
    m.fatbin = std::move(*fatbin);
  }
  return true;
}

} // namespace kiln::driver
