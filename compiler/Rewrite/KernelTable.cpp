//===- Rewrite/KernelTable.cpp - Kernel definitions in rewritten C++ ------===//
#include "Rewrite/KernelTable.h"

#include "Frontend/ElementType.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

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

/// `text` as a string literal, one piece a line. Host compilers take a large
/// literal in a fraction of the time and memory of the same bytes as an
/// initializer list (GCC 12: ~180 bytes of memory a byte of a list), which
/// matters for files of many kernels (1,000 small kernels are ~40 MB of PTX).
/// Octal escapes for anything but printable ASCII, `?` escaped against
/// trigraphs.
static std::string stringLiteral(const std::string &text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16 + 4);
  out += '"';
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += i + 1 < text.size() ? "\\n\"\n\"" : "\\n";
    } else if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += char(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      out += '\\';
      out += char('0' + (c >> 6));
      out += char('0' + ((c >> 3) & 7));
      out += char('0' + (c & 7));
    }
  }
  out += '"';
  return out;
}

/// A C string literal (the empty-axis message; plain ASCII).
static std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

/// The operand dtypes of a kernel: inputs, kept inputs (reductions), outputs.
static std::string dtypeList(const frontend::KernelDecl &k) {
  std::string s;
  bool first = true;
  static const std::vector<frontend::ElementType> none;
  for (const auto *list :
       {&k.inputs, &k.keptInputs, &k.outputs, k.stencil() ? &k.scalars : &none})
    for (frontend::ElementType t : *list) {
      s += (first ? "::kiln::dtype::" : ", ::kiln::dtype::") + std::string(frontend::runtimeDTypeName(t));
      first = false;
    }
  return s;
}

/// kiln::detail::fused_kernel for an elementwise kernel.
static std::string elementwiseEntry(const frontend::KernelDecl &k, const std::string &id, bool ptx, bool fatbin,
                                    bool withHost) {
  std::string s = "const ::kiln::detail::fused_kernel kiln_kernel_" + id + " = {\n";
  s += "  \"" + k.name + "\",\n";
  s += ptx ? "  reinterpret_cast<const char *>(kiln_ptx),\n" : "  nullptr,\n";
  s += fatbin ? "  kiln_fatbin, sizeof(kiln_fatbin),\n" : "  nullptr, 0,\n";
  if (withHost) {
    s += "  " + k.name + "_contig_host,\n  {";
    for (int r = 1; r <= 4; ++r) s += (r > 1 ? ", " : "") + k.name + "_strided" + std::to_string(r) + "_host";
    s += "},\n";
  } else {
    s += "  nullptr,\n  {nullptr, nullptr, nullptr, nullptr},\n";
  }
  s += "  " + std::to_string(k.inputs.size()) + ", " + std::to_string(k.outputs.size()) + ", " +
       std::to_string(k.scalars.size()) + ",\n";
  s += "  kiln_types_" + id + ",\n  " + std::to_string(contigVectorWidth(k)) + ",\n";
  s += withHost ? "  " + k.name + "_rows_host};\n" : "  nullptr};\n";
  return s;
}

/// kiln::detail::reduction_kernel (with its stages) for a reduction kernel.
static std::string reductionEntry(const frontend::KernelDecl &k, const std::string &id, bool ptx, bool fatbin,
                                  bool withHost, bool ptxSm90) {
  const frontend::ReductionDescriptor &d = k.descriptor;
  std::string s;
  for (size_t i = 0; i < d.stages.size(); ++i) {
    s += "const std::uint8_t kiln_bytes_" + id + "_" + std::to_string(i) + "[] = {";
    for (size_t c = 0; c < d.stages[i].componentBytes.size(); ++c)
      s += (c ? ", " : "") + std::to_string(d.stages[i].componentBytes[c]);
    s += "};\n";
  }
  s += "const ::kiln::detail::reduction_stage kiln_stages_" + id + "[] = {";
  for (size_t i = 0; i < d.stages.size(); ++i)
    s += std::string(i ? ", " : "") + "{" + std::to_string(d.stages[i].fullInputs) + "ull, " +
         std::to_string(d.stages[i].level) + ", " + std::to_string(d.stages[i].componentBytes.size()) + ", kiln_bytes_" +
         id + "_" + std::to_string(i) + ", " + std::to_string(d.stages[i].shapeInputs) + "ull}";
  s += "};\n";
  s += "const ::kiln::detail::reduction_kernel kiln_kernel_" + id + " = {\n";
  s += "  \"" + k.name + "\",\n";
  s += ptx ? "  reinterpret_cast<const char *>(kiln_ptx),\n" : "  nullptr,\n";
  s += fatbin ? "  kiln_fatbin, sizeof(kiln_fatbin),\n" : "  nullptr, 0,\n";
  if (withHost)
    s += "  {" + k.name + "_rrows_host, " + k.name + "_rcols_host, " + k.name + "_rgeneral_host},\n";
  else
    s += "  {nullptr, nullptr, nullptr},\n";
  s += "  " + std::to_string(k.inputs.size()) + ", " + std::to_string(k.keptInputs.size()) + ", " +
       std::to_string(k.scalars.size()) + ",\n";
  s += "  kiln_types_" + id + ", " + (k.keptOutput ? "true" : "false") + ",\n";
  s += "  " + std::to_string(d.stages.size()) + ", kiln_stages_" + id + ", " + std::to_string(d.numLevels) + ", " +
       std::to_string(d.mapInputs) + "ull,\n";
  s += "  " + (d.emptyError.empty() ? std::string("nullptr") : quoted(d.emptyError)) + ", " +
       std::to_string(d.vectorWidth) + ", " + (d.singleAxis ? "true" : "false") + ",\n";
  s += ptxSm90 ? "  reinterpret_cast<const char *>(kiln_ptx_sm90),\n" : "  nullptr,\n";
  s += "  " + std::to_string(d.mapShapeInputs) + "ull};\n";
  return s;
}

/// kiln::detail::raw_kernel for a KILN_RAWKERNEL function.
static std::string rawEntry(const frontend::RawKernelDecl &k, const std::string &id, bool ptx, bool fatbin,
                            bool withHost) {
  std::string s;
  if (!k.paramBytes.empty()) {
    s += "const std::uint8_t kiln_raw_bytes_" + id + "[] = {";
    for (size_t i = 0; i < k.paramBytes.size(); ++i) s += (i ? ", " : "") + std::to_string(k.paramBytes[i]);
    s += "};\n";
  }
  s += "const ::kiln::detail::raw_kernel kiln_raw_" + id + " = {\n";
  s += "  " + quoted(k.name) + ", \"" + k.symbol + "\",\n";
  s += ptx ? "  reinterpret_cast<const char *>(kiln_ptx),\n" : "  nullptr,\n";
  s += fatbin ? "  kiln_fatbin, sizeof(kiln_fatbin),\n" : "  nullptr, 0,\n";
  s += withHost ? "  " + k.symbol + "_host, " + (k.synchronizes ? "nullptr" : k.symbol + "_host_block") + ",\n"
                : "  nullptr, nullptr,\n";
  s += "  " + std::to_string(k.paramBytes.size()) + ", " +
       (k.paramBytes.empty() ? std::string("nullptr") : "kiln_raw_bytes_" + id) + ", " +
       std::to_string(k.staticSharedBytes) + "u, " + (k.synchronizes ? "true" : "false") + "};\n";
  return s;
}

/// The elementwise KernelDecl of one side of a stencil group's unfused form.
static frontend::KernelDecl partDecl(const frontend::StencilPart &p) {
  frontend::KernelDecl d;
  d.name = p.name;
  d.inputs = p.inputs;
  d.scalars = p.scalars;
  d.outputs = {p.output};
  return d;
}

/// kiln::detail::stencil_kernel for a stencil group: its raw kernels and
/// the elementwise kernels of its unfused form.
static std::string stencilEntry(const frontend::KernelDecl &k,
                                const std::string &id, bool ptx, bool fatbin,
                                bool withHost) {
  std::string s, list;
  for (size_t v = 0; v < k.stencilVariants.size(); ++v) {
    const frontend::StencilVariant &sv = k.stencilVariants[v];
    frontend::RawKernelDecl raw;
    raw.symbol = sv.symbol;
    raw.name = k.name;
    raw.paramBytes = sv.paramBytes;
    std::string rid = "s" + id + "_" + std::to_string(v);
    s += rawEntry(raw, rid, ptx, fatbin, withHost);
    std::string tiled = "nullptr";
    if (!sv.tiledSymbol.empty()) {
      // GPU-only: no host form, its shared memory static.
      frontend::RawKernelDecl t = raw;
      t.symbol = sv.tiledSymbol;
      t.staticSharedBytes = sv.tiledShared;
      t.synchronizes = true;
      s += rawEntry(t, rid + "t", ptx, fatbin, /*withHost=*/false);
      tiled = "&kiln_raw_" + rid + "t";
    }
    list += (v ? ", {&kiln_raw_" : "{&kiln_raw_") + rid + ", " +
            std::to_string(sv.kh) + ", " + std::to_string(sv.kw) + ", " +
            std::to_string(sv.rows) + ", " + tiled + "}";
  }
  const frontend::StencilFallback &fb = k.stencilFallback;
  auto part = [&](const frontend::StencilPart &p, const std::string &pid) {
    auto indices = [&](const std::vector<int> &map, const char *what) {
      if (map.empty())
        return std::string("nullptr");
      std::string name = "kiln_stencil_" + std::string(what) + "_" + pid;
      s += "const std::int8_t " + name + "[] = {";
      for (size_t i = 0; i < map.size(); ++i)
        s += (i ? ", " : "") + std::to_string(map[i]);
      s += "};\n";
      return name;
    };
    std::string kernel = "nullptr";
    if (!p.name.empty()) {
      frontend::KernelDecl d = partDecl(p);
      s += "const ::kiln::dtype kiln_types_" + pid + "[] = {" + dtypeList(d) +
           "};\n";
      s += elementwiseEntry(d, pid, ptx, fatbin, withHost);
      kernel = "&kiln_kernel_" + pid;
    }
    std::string inputs = indices(p.inputMap, "inputs"),
                scalars = indices(p.scalarMap, "scalars");
    return "{" + kernel + ", " + std::to_string(p.inputMap.size()) + ", " +
           std::to_string(p.scalarMap.size()) + ", " + inputs + ", " + scalars +
           "}";
  };
  std::string producer = part(fb.producer, id + "p"),
              consumer = part(fb.consumer, id + "c");
  s += "const ::kiln::detail::stencil_kernel kiln_kernel_" + id + " = {\n";
  s += "  \"" + k.name + "\",\n  {" + list + "},\n";
  s += "  " + std::to_string(k.inputs.size()) + ", " +
       std::to_string(k.scalars.size()) + ", kiln_types_" + id + ",\n";
  s += "  " + producer + ",\n  " + consumer + ",\n";
  s += "  " + std::string(fb.correlate ? "true" : "false") + ", " +
       std::to_string(fb.boundary) + ", " + std::to_string(fb.fillScalar) +
       ", " + llvm::formatv("{0:e16}", fb.fillRe).str() + ", " +
       llvm::formatv("{0:e16}", fb.fillIm).str() + "};\n";
  return s;
}

/// kiln::detail::raw_module_image of a CUDA source literal kilnc compiled
/// (its own PTX, fatbin and names: raw_module_from_image keys modules by
/// their addresses).
static std::string rawModuleEntry(const frontend::RawModuleDecl &m, const std::string &id) {
  std::string s;
  if (!m.ptx.empty())
    s += "alignas(8) const char kiln_module_ptx_" + id + "[] =\n" + stringLiteral(m.ptx) + ";\n";
  if (!m.fatbin.empty())
    s += "alignas(8) const unsigned char kiln_module_fatbin_" + id + "[] = {\n" + byteArray(m.fatbin) + "};\n";
  if (!m.nameExpressions.empty()) {
    s += "const char *const kiln_module_names_" + id + "[] = {";
    for (size_t i = 0; i < m.nameExpressions.size(); ++i)
      s += (i ? ", " : "") + stringLiteral(m.nameExpressions[i]);
    s += "};\nconst char *const kiln_module_lowered_" + id + "[] = {";
    for (size_t i = 0; i < m.loweredNames.size(); ++i)
      s += (i ? ", " : "") + stringLiteral(m.loweredNames[i]);
    s += "};\n";
  }
  const bool names = !m.nameExpressions.empty();
  s += "const ::kiln::detail::raw_module_image kiln_module_" + id + " = {\n";
  s += "  " + (m.ptx.empty() ? std::string("nullptr") : "kiln_module_ptx_" + id) + ",\n";
  s += m.fatbin.empty() ? std::string("  nullptr, 0,\n")
                        : "  kiln_module_fatbin_" + id + ", sizeof(kiln_module_fatbin_" + id + "),\n";
  s += names ? "  kiln_module_names_" + id + ", kiln_module_lowered_" + id + ", " +
                   std::to_string(m.nameExpressions.size()) + ",\n"
             : std::string("  nullptr, nullptr, 0,\n");
  s += "  " + stringLiteral(m.file + ":" + std::to_string(m.line)) + ",\n";
  const bool host = !m.host.translationUnit.empty();
  s += host ? "  &::" + m.host.symbol + ", nullptr,\n" : "  nullptr, " + stringLiteral(m.host.unsupported) + ",\n";
  if (m.deferred) {
    s += "  " + stringLiteral(m.source) + ",\n";
    s += m.options.empty() ? std::string("  nullptr, 0};\n")
                           : "  kiln_module_options_" + id + ", " + std::to_string(m.options.size()) + "};\n";
  } else {
    s += "  nullptr, nullptr, 0};\n";
  }
  if (m.deferred && !m.options.empty()) {
    std::string list = "const char *const kiln_module_options_" + id + "[] = {";
    for (size_t i = 0; i < m.options.size(); ++i)
      list += (i ? ", " : "") + stringLiteral(m.options[i]);
    s.insert(s.find("const ::kiln::detail::raw_module_image"), list + "};\n");
  }
  return s;
}

std::string emitKernelTable(const KernelTableInput &in) {
  const auto &kernels = *in.kernels;
  static const std::vector<frontend::RawKernelDecl> none;
  static const std::vector<frontend::RawModuleDecl> noModules;
  const auto &raw = in.rawKernels ? *in.rawKernels : none;
  const auto &modules = in.rawModules ? *in.rawModules : noModules;
  if (kernels.empty() && raw.empty() && modules.empty()) return "";
  std::string s = "\n#line 1 \"<kilnc: kernel table>\"\n"
                  "// Kernels compiled by kilnc (docs/kernel-abi.md).\n";
  bool ptx = in.ptx && !in.ptx->empty();
  bool fatbin = in.fatbin && !in.fatbin->empty();
  if (in.withHost) {
    s += "extern \"C\" {\n";
    for (const auto &k : kernels) {
      if (k.stencil()) {
        for (const frontend::StencilVariant &v : k.stencilVariants)
          s += "void " + v.symbol +
               "_host(void **, ::kiln::detail::raw_thread_ctx *);\nvoid " +
               v.symbol +
               "_host_block(void **, ::kiln::detail::raw_thread_ctx *);\n";
        for (const frontend::StencilPart *p :
             {&k.stencilFallback.producer, &k.stencilFallback.consumer}) {
          if (p->name.empty())
            continue;
          s += "void " + p->name + "_contig_host(void **);\n";
          for (int r = 1; r <= 4; ++r)
            s += "void " + p->name + "_strided" + std::to_string(r) +
                 "_host(void **);\n";
          s += "void " + p->name + "_rows_host(void **);\n";
        }
        continue;
      }
      if (k.reduction) {
        for (const char *v : {"_rrows", "_rcols", "_rgeneral"})
          s += "void " + k.name + v + "_host(void **);\n";
        continue;
      }
      s += "void " + k.name + "_contig_host(void **);\n";
      for (int r = 1; r <= 4; ++r) s += "void " + k.name + "_strided" + std::to_string(r) + "_host(void **);\n";
      s += "void " + k.name + "_rows_host(void **);\n";
    }
    for (const auto &k : raw) {
      s += "void " + k.symbol + "_host(void **, ::kiln::detail::raw_thread_ctx *);\n";
      if (!k.synchronizes) s += "void " + k.symbol + "_host_block(void **, ::kiln::detail::raw_thread_ctx *);\n";
    }
    s += "}\n";
  }
  for (const auto &m : modules)
    if (!m.host.translationUnit.empty()) // defined by the literal's host object (Frontend/RawModuleHost.h)
      s += "extern const ::kiln::detail::raw_host_module " + m.host.symbol + ";\n";
  s += "namespace {\n";
  // The PTX is NUL-terminated text for cuModuleLoadData: a string literal.
  if (ptx) s += "alignas(8) const char kiln_ptx[] =\n" + stringLiteral(*in.ptx) + ";\n";
  if (fatbin) s += "alignas(8) const unsigned char kiln_fatbin[] = {\n" + byteArray(*in.fatbin) + "};\n";
  bool ptxSm90 = ptx && in.ptxSm90 && !in.ptxSm90->empty();
  if (ptxSm90) s += "alignas(8) const char kiln_ptx_sm90[] =\n" + stringLiteral(*in.ptxSm90) + ";\n";
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto &k = kernels[i];
    std::string id = std::to_string(i);
    s += "const ::kiln::dtype kiln_types_" + id + "[] = {" + dtypeList(k) + "};\n";
    bool cluster = ptxSm90 && in.clusterKernels && llvm::is_contained(*in.clusterKernels, k.name);
    s += k.stencil() ? stencilEntry(k, id, ptx, fatbin, in.withHost)
         : k.reduction
             ? reductionEntry(k, id, ptx, fatbin, in.withHost, cluster)
             : elementwiseEntry(k, id, ptx, fatbin, in.withHost);
  }
  for (size_t i = 0; i < raw.size(); ++i) s += rawEntry(raw[i], std::to_string(i), ptx, fatbin, in.withHost);
  for (size_t i = 0; i < modules.size(); ++i) s += rawModuleEntry(modules[i], std::to_string(i));
  s += "} // namespace\n";
  for (size_t i = 0; i < kernels.size(); ++i)
    s += kernels[i].accessor + " { return kiln_kernel_" + std::to_string(i) + "; }\n";
  for (size_t i = 0; i < raw.size(); ++i)
    s += raw[i].accessor + " { return kiln_raw_" + std::to_string(i) + "; }\n";
  for (size_t i = 0; i < modules.size(); ++i)
    s += modules[i].accessor + " { return kiln_module_" + std::to_string(i) + "; }\n";
  return s;
}

} // namespace kiln::rewrite
