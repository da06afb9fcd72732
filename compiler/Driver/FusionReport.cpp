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

void printFusionReport(llvm::raw_ostream &os, const std::string &source,
                       const std::vector<frontend::FusionRecord> &records) {
  if (records.empty()) {
    os << source << ": no fused expressions\n";
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
  constexpr size_t numColumns = 6;
  using Row = std::array<std::string, numColumns>;
  std::vector<Row> rows;
  rows.push_back(
      {"location", "function", "kernel", "fused", "inputs", "bytes/element"});
  for (const frontend::FusionRecord &r : records) {
    std::string inputs = plural(r.numInputs, "array", "arrays");
    if (r.numScalars)
      inputs += " + " + plural(r.numScalars, "scalar", "scalars");
    rows.push_back({r.location, r.function, r.kernel,
                    plural(r.numOps, "op", "ops"), inputs,
                    std::to_string(r.bytesPerElement) + " B"});
  }
  std::array<size_t, numColumns> width{};
  for (const Row &row : rows)
    for (size_t c = 0; c < numColumns; ++c)
      width[c] = std::max(width[c], row[c].size());
  for (const Row &row : rows) {
    for (size_t c = 0; c < numColumns; ++c) {
      bool numeric = c == 5;
      bool last = c + 1 == numColumns;
      if (numeric)
        os << llvm::right_justify(row[c], width[c]);
      else
        os << llvm::left_justify(row[c], width[c]);
      if (!last)
        os << "  ";
    }
    os << "\n";
  }
}

} // namespace kiln::driver
