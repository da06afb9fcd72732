//===- Rewrite/KernelTable.cpp - Kernel definitions in rewritten C++ ------===//
#include "Rewrite/KernelTable.h"

#include "Frontend/ElementType.h"

#include <algorithm>

namespace kiln::rewrite {

unsigned contigVectorWidth(const frontend::KernelDecl &k) {
  unsigned widest = 1;
  for (const auto *list : {&k.inputs, &k.outputs})
    for (frontend::ElementType t : *list) {
      if (frontend::kindOf(t) == frontend::TypeKind::Complex) return 1; // complex: scalar accesses
      widest = std::max(widest, frontend::byteSize(t));
    }
  return 16 / widest;
}

/// Bytes as a C array initializer, 24 a line.
static std::string byteArray(const std::string &data) {
  static const char *hex = "0123456789abcdef";
  std::string out;
  out.reserve(data.size() * 5 + data.size() / 24 + 4);
  for (size_t i = 0; i < data.size(); ++i) {
    auto c = static_cast<unsigned char>(data[i]);
    out += "0x";
    out += hex[c >> 4];
    out += hex[c & 15];
    out += (i + 1) % 24 == 0 ? ",\n" : ",";
  }
  return out;
}

std::string emitKernelTable(const KernelTableInput &in) {
  const auto &kernels = *in.kernels;
  if (kernels.empty()) return "";
  std::string s = "\n#line 1 \"<kilnc: kernel table>\"\n"
                  "// Kernels compiled by kilnc (docs/kernel-abi.md).\n";
  bool ptx = in.ptx && !in.ptx->empty();
  bool fatbin = in.fatbin && !in.fatbin->empty();
  if (in.withHost) {
    s += "extern \"C\" {\n";
    for (const auto &k : kernels) {
      s += "void " + k.name + "_contig_host(void **);\n";
      for (int r = 1; r <= 4; ++r) s += "void " + k.name + "_strided" + std::to_string(r) + "_host(void **);\n";
      s += "void " + k.name + "_rows_host(void **);\n";
    }
    s += "}\n";
  }
  s += "namespace {\n";
  // The PTX is NUL-terminated text for cuModuleLoadData; a byte array keeps
  // any size portable across host compilers.
  if (ptx) s += "alignas(8) const unsigned char kiln_ptx[] = {\n" + byteArray(*in.ptx) + "0x00};\n";
  if (fatbin) s += "alignas(8) const unsigned char kiln_fatbin[] = {\n" + byteArray(*in.fatbin) + "};\n";
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto &k = kernels[i];
    std::string id = std::to_string(i);
    s += "const ::kiln::dtype kiln_types_" + id + "[] = {";
    bool first = true;
    for (const auto *list : {&k.inputs, &k.outputs})
      for (frontend::ElementType t : *list) {
        s += (first ? "::kiln::dtype::" : ", ::kiln::dtype::") + std::string(frontend::runtimeDTypeName(t));
        first = false;
      }
    s += "};\n";
    s += "const ::kiln::detail::fused_kernel kiln_kernel_" + id + " = {\n";
    s += "  \"" + k.name + "\",\n";
    s += ptx ? "  reinterpret_cast<const char *>(kiln_ptx),\n" : "  nullptr,\n";
    s += fatbin ? "  kiln_fatbin, sizeof(kiln_fatbin),\n" : "  nullptr, 0,\n";
    if (in.withHost) {
      s += "  " + k.name + "_contig_host,\n  {";
      for (int r = 1; r <= 4; ++r) s += (r > 1 ? ", " : "") + k.name + "_strided" + std::to_string(r) + "_host";
      s += "},\n";
    } else {
      s += "  nullptr,\n  {nullptr, nullptr, nullptr, nullptr},\n";
    }
    s += "  " + std::to_string(k.inputs.size()) + ", " + std::to_string(k.outputs.size()) + ", " +
         std::to_string(k.scalars.size()) + ",\n";
    s += "  kiln_types_" + id + ",\n  " + std::to_string(contigVectorWidth(k)) + ",\n";
    s += in.withHost ? "  " + k.name + "_rows_host};\n" : "  nullptr};\n";
  }
  s += "} // namespace\n";
  for (size_t i = 0; i < kernels.size(); ++i)
    s += kernels[i].accessor + " { return kiln_kernel_" + std::to_string(i) + "; }\n";
  return s;
}

} // namespace kiln::rewrite
