//===- Rewrite/KernelTable.h - Kernel definitions in rewritten C++ -*- C++ -*-===//
//
// Emits the C++ that defines each kernel of a translation unit: the PTX (and
// fatbin) as data, declarations of the host variants, and one
// kiln::detail::fused_kernel (reduction_kernel, raw_kernel) object per kernel,
// and one kiln::detail::raw_module_image per string literal of CUDA source
// kilnc compiled. The driver appends it to the rewritten source.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REWRITE_KERNELTABLE_H
#define KILN_REWRITE_KERNELTABLE_H

#include "Frontend/Frontend.h"

#include <string>

namespace kiln::rewrite {

struct KernelTableInput {
  const std::vector<frontend::KernelDecl> *kernels;
  const std::vector<frontend::RawKernelDecl> *rawKernels = nullptr;
  /// kiln::raw_module images of from_source calls kilnc compiled.
  const std::vector<frontend::RawModuleDecl> *rawModules = nullptr;
  const std::string *ptx;     ///< empty: no GPU code
  const std::string *ptxSm90 = nullptr; ///< sm_90 variants (clusters); empty/null: none
  const std::vector<std::string> *clusterKernels = nullptr; ///< kernels with `_rrowsc` in ptxSm90
  const std::string *fatbin;  ///< empty: none
  bool withHost = true;       ///< host variants are linked in
};

/// Elements per vector access of a kernel's `_contig` variant: 16 bytes over
/// the widest operand, 1 with a complex operand (the variant generator's rule,
/// kiln::pipeline::contigVectorWidth).
unsigned contigVectorWidth(const frontend::KernelDecl &k);

/// C++ source defining every kernel (appended after the user's code).
std::string emitKernelTable(const KernelTableInput &in);

} // namespace kiln::rewrite

#endif
