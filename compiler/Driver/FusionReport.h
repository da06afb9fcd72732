//===- Driver/FusionReport.h - The --fusion-report table ---------*- C++
//-*-===//
//
// Prints the frontend's fusion records of one source as a table: where each
// fused expression is, its function, the kernel it became, how many
// operations were fused into it, its operands and the bytes it moves.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_FUSIONREPORT_H
#define KILN_DRIVER_FUSIONREPORT_H

#include "Frontend/Frontend.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace kiln::driver {

/// The fused expressions and their kernels, then the file's raw kernels
/// (KILN_RAWKERNEL functions, one line per instantiation).
void printFusionReport(llvm::raw_ostream &os, const std::string &source,
                       const std::vector<frontend::FusionRecord> &records,
                       const std::vector<frontend::RawKernelDecl> &rawKernels = {});

} // namespace kiln::driver

#endif
