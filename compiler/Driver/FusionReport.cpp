//===- Driver/FusionReport.cpp - The --fusion-report table ----------------===//
//
// A plain-text table with columns sized to their contents.
//
//===----------------------------------------------------------------------===//
#include "Driver/FusionReport.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <array>
#include <set>

namespace kiln::driver {

namespace {

/// Rows as a table: columns as wide as their contents, `numeric` ones
/// right-justified.
template <size_t N>
void printTable(llvm::raw_ostream &os, const std::vector<std::array<std::string, N>> &rows,
                const std::array<bool, N> &numeric) {
  std::array<size_t, N> width{};
  for (const auto &row : rows)
    for (size_t c = 0; c < N; ++c)
      width[c] = std::max(width[c], row[c].size());
  for (const auto &row : rows) {
    for (size_t c = 0; c < N; ++c) {
      if (numeric[c])
        os << llvm::right_justify(row[c], width[c]);
      else
        os << llvm::left_justify(row[c], width[c]);
      if (c + 1 != N)
        os << "  ";
    }
    os << "\n";
  }
}

void printRawKernels(llvm::raw_ostream &os, const std::string &source,
                     const std::vector<frontend::RawKernelDecl> &raw) {
  if (raw.empty())
    return;
  os << source << ": " << raw.size() << " raw kernel" << (raw.size() == 1 ? "" : "s") << "\n";
  // "host form": how the host device runs a block: one loop over its
  // threads, or its threads as fibers (barriers, warp functions).
  std::vector<std::array<std::string, 6>> rows;
  rows.push_back({"location", "function", "kernel", "parameter bytes", "static shared", "host form"});
  for (const frontend::RawKernelDecl &k : raw) {
    unsigned bytes = 0;
    for (unsigned b : k.paramBytes)
      bytes += b;
    rows.push_back({k.location, k.name, k.symbol,
                    std::to_string(bytes) + " B in " + std::to_string(k.paramBytes.size()),
                    std::to_string(k.staticSharedBytes) + " B",
                    k.synchronizes ? "fibers (synchronizes)" : "one loop a block"});
  }
  printTable<6>(os, rows, {false, false, false, true, true, false});
}

} // namespace

void printFusionReport(llvm::raw_ostream &os, const std::string &source,
                       const std::vector<frontend::FusionRecord> &records,
                       const std::vector<frontend::RawKernelDecl> &rawKernels) {
  if (records.empty()) {
    os << source << ": no fused expressions\n";
    printRawKernels(os, source, rawKernels);
    return;
  }
  std::set<std::string> kernels;
  unsigned ops = 0;
  for (const frontend::FusionRecord &r : records) {
    kernels.insert(r.kernel);
    ops += r.numOps;
  }
  os << source << ": " << records.size() << " fused expression"
     << (records.size() == 1 ? "" : "s") << ", " << kernels.size() << " kernel"
     << (kernels.size() == 1 ? "" : "s") << ", " << ops << " operation"
     << (ops == 1 ? "" : "s") << " fused\n";

  auto plural = [](unsigned n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  // "reduces": what a reduction kernel reduces over (a stencil kernel: its
  // convolution and boundary); "bytes/element":
  // bytes read and written per element of the iteration space (plus, for
  // reductions, per element of the kept space: kept inputs and outputs).
  constexpr size_t numColumns = 7;
  using Row = std::array<std::string, numColumns>;
  std::vector<Row> rows;
  rows.push_back({"location", "function", "kernel", "fused", "inputs", "reduces",
                  "bytes/element"});
  for (const frontend::FusionRecord &r : records) {
    std::string inputs = plural(r.numInputs, "array", "arrays");
    if (r.numScalars)
      inputs += " + " + plural(r.numScalars, "scalar", "scalars");
    if (!r.writesInto.empty())
      inputs += ", writes " + r.writesInto;
    std::string bytes = std::to_string(r.bytesPerElement) + " B";
    if (!r.reduces.empty() && r.bytesPerKept)
      bytes += " + " + std::to_string(r.bytesPerKept) + " B/kept";
    std::string fused = plural(r.numOps, "op", "ops");
    if (r.statements > 1)
      fused += " of " + std::to_string(r.statements) + " statements";
    rows.push_back({r.location, r.function, r.kernel, fused, inputs,
                    r.reduces.empty() ? "-" : r.reduces, bytes});
  }
  printTable<numColumns>(os, rows, {false, false, false, false, false, false, true});
  printRawKernels(os, source, rawKernels);
}

} // namespace kiln::driver
