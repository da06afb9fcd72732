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
  // "reduces": what a reduction kernel reduces over; "bytes/element":
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
    std::string bytes = std::to_string(r.bytesPerElement) + " B";
    if (!r.reduces.empty() && r.bytesPerKept)
      bytes += " + " + std::to_string(r.bytesPerKept) + " B/kept";
    rows.push_back({r.location, r.function, r.kernel,
                    plural(r.numOps, "op", "ops"), inputs,
                    r.reduces.empty() ? "-" : r.reduces, bytes});
  }
  std::array<size_t, numColumns> width{};
  for (const Row &row : rows)
    for (size_t c = 0; c < numColumns; ++c)
      width[c] = std::max(width[c], row[c].size());
  for (const Row &row : rows) {
    for (size_t c = 0; c < numColumns; ++c) {
      bool numeric = c == 6;
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
