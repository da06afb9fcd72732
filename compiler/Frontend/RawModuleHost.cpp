//===- Frontend/RawModuleHost.cpp - CUDA source literals for the host -----===//
//
// Two passes over one source. The analysis parses
//
//   #include <kiln/cuda_host.hpp>            (KILN_CUDA_HOST_ANALYSIS: annotations)
//   #line 1 "raw_module.cu"
//   <the source, byte for byte>
//   namespace __kiln_names { ... = &<name expression>; ... }
//
// so that its diagnostics and locations are the literal's lines and columns.
// The emission edits the same bytes (edits found by the analysis' AST and by
// a raw lexer pass) into the translation unit the driver compiles.
//
//===----------------------------------------------------------------------===//
#include "Frontend/RawModuleHost.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <optional>

namespace kiln::frontend {
namespace {

namespace cl = clang;

/// The name the analysis gives the literal's lines (#line).
constexpr llvm::StringLiteral sourceName = "raw_module.cu";
/// The prelude line before the source.
constexpr llvm::StringLiteral preamble = "#include <kiln/cuda_host.hpp>\n#line 1 \"raw_module.cu\"\n";

//===----------------------------------------------------------------------===//
// Diagnostics of the analysis
//===----------------------------------------------------------------------===//

struct Problem {
  std::string text;
  unsigned line = 0, column = 0; ///< in the source; line 0: elsewhere
  std::string file;              ///< a header's name when not the source
};

/// Keeps the errors of the analysis' parse.
class Collector : public cl::DiagnosticConsumer {
public:
  void HandleDiagnostic(cl::DiagnosticsEngine::Level level, const cl::Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < cl::DiagnosticsEngine::Error)
      return;
    Problem p;
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    p.text = text.str().str();
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      cl::SourceManager &sm = info.getSourceManager();
      cl::PresumedLoc at = sm.getPresumedLoc(sm.getExpansionLoc(info.getLocation()));
      if (at.isValid()) {
        if (llvm::StringRef(at.getFilename()) == sourceName) {
          p.line = at.getLine();
          p.column = at.getColumn() - 1;
        } else {
          p.file = at.getFilename();
          p.file += ":" + std::to_string(at.getLine());
        }
      }
    }
    problems.push_back(std::move(p));
  }
  std::vector<Problem> problems;
};

//===----------------------------------------------------------------------===//
// The analysis' AST
//===----------------------------------------------------------------------===//

/// The annotation `prefix...` a declaration (any of its declarations) has.
std::optional<std::string> annotation(const cl::Decl *d, llvm::StringRef prefix) {
  for (const cl::Decl *r : d->redecls())
    for (const auto *a : r->specific_attrs<cl::AnnotateAttr>())
      if (a->getAnnotation().starts_with(prefix))
        return a->getAnnotation().drop_front(prefix.size()).str();
  return std::nullopt;
}

bool isGlobal(const cl::FunctionDecl *f) { return annotation(f, "kiln.cuda.global").has_value(); }

/// What a kernel reaches: a synchronization, something only a GPU runs.
struct Reach {
  bool synchronizes = false;
  std::string gpuOnly;  ///< the construct ("inline PTX asm", "clock64")
  cl::SourceLocation at; ///< where (a location in the source when one is on the way)
};

class Analysis {
public:
  Analysis(cl::ASTContext &ast) : ast_(ast), sm_(ast.getSourceManager()) {}

  bool inSource(cl::SourceLocation loc) const {
    if (loc.isInvalid())
      return false;
    cl::PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(loc));
    return p.isValid() && llvm::StringRef(p.getFilename()) == sourceName;
  }

  /// What `f` reaches through the calls of its body (memoized; a recursion
  /// reaches nothing new).
  const Reach &of(const cl::FunctionDecl *f) {
    f = f->getCanonicalDecl();
    if (auto it = memo_.find(f); it != memo_.end())
      return it->second;
    memo_[f] = Reach{};
    Reach r;
    const cl::FunctionDecl *def = nullptr;
    if (f->hasBody(def) && def && !sm_.isInSystemHeader(def->getLocation()))
      Walker(*this, r).TraverseStmt(def->getBody());
    return memo_[f] = r;
  }

private:
  class Walker : public cl::RecursiveASTVisitor<Walker> {
  public:
    Walker(Analysis &a, Reach &r) : a_(a), r_(r) {}
    bool shouldVisitTemplateInstantiations() const { return true; }
    bool shouldVisitImplicitCode() const { return true; }

    bool VisitGCCAsmStmt(cl::GCCAsmStmt *s) {
      gpuOnly("inline PTX asm", s->getAsmLoc());
      return true;
    }
    bool VisitMSAsmStmt(cl::MSAsmStmt *s) {
      gpuOnly("inline asm", s->getAsmLoc());
      return true;
    }
    bool VisitCallExpr(cl::CallExpr *c) {
      if (const cl::FunctionDecl *f = c->getDirectCallee())
        callee(f, c->getBeginLoc());
      return true;
    }
    bool VisitCXXConstructExpr(cl::CXXConstructExpr *e) {
      callee(e->getConstructor(), e->getBeginLoc());
      return true;
    }
    bool VisitDeclRefExpr(cl::DeclRefExpr *e) { // a function whose address is taken may be called
      if (const auto *f = llvm::dyn_cast<cl::FunctionDecl>(e->getDecl()))
        callee(f, e->getBeginLoc());
      return true;
    }

  private:
    void gpuOnly(const std::string &what, cl::SourceLocation at) {
      if (!r_.gpuOnly.empty())
        return;
      r_.gpuOnly = what;
      r_.at = at;
    }
    void callee(const cl::FunctionDecl *f, cl::SourceLocation at) {
      if (!f)
        return;
      if (annotation(f, "kiln.cuda.sync"))
        r_.synchronizes = true;
      if (std::optional<std::string> what = annotation(f, "kiln.cuda.gpu_only:")) {
        gpuOnly(*what, at);
        return;
      }
      const Reach &inner = a_.of(f);
      r_.synchronizes |= inner.synchronizes;
      if (!inner.gpuOnly.empty() && r_.gpuOnly.empty()) {
        r_.gpuOnly = inner.gpuOnly;
        // Name the place in the source: the call when the construct is in
        // a header, else the construct itself.
        r_.at = a_.inSource(inner.at) ? inner.at : at;
      }
    }
    Analysis &a_;
    Reach &r_;
  };

  cl::ASTContext &ast_;
  cl::SourceManager &sm_;
  std::map<const cl::FunctionDecl *, Reach> memo_;
};

/// The source's __global__ functions (not templates: their instantiations
/// are named by name expressions), the edits their host form needs, and
/// the name expressions' functions.
class Finder : public cl::RecursiveASTVisitor<Finder> {
public:
  explicit Finder(Analysis &a) : a_(a) {}
  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitFunctionDecl(cl::FunctionDecl *f) {
    if (a_.inSource(f->getLocation()) && isGlobal(f) && f->isThisDeclarationADefinition() &&
        !f->isDependentContext() && !f->getDescribedFunctionTemplate())
      kernels.push_back(f);
    return true;
  }
  bool VisitVarDecl(cl::VarDecl *v) {
    if (a_.inSource(v->getLocation()) && annotation(v, "kiln.cuda.shared") && v->hasExternalStorage())
      externShared.push_back(v);
    if (v->getName().starts_with("__kiln_name_"))
      nameProbes.push_back(v);
    return true;
  }
  bool VisitGCCAsmStmt(cl::GCCAsmStmt *s) {
    if (a_.inSource(s->getAsmLoc()))
      asms.push_back(s);
    return true;
  }

  std::vector<const cl::FunctionDecl *> kernels;
  std::vector<const cl::VarDecl *> externShared;
  std::vector<const cl::VarDecl *> nameProbes;
  std::vector<const cl::GCCAsmStmt *> asms;

private:
  Analysis &a_;
};

//===----------------------------------------------------------------------===//
// Edits of the source
//===----------------------------------------------------------------------===//

struct Edit {
  size_t offset = 0, length = 0;
  std::string text;
};

std::string applyEdits(std::string source, std::vector<Edit> edits) {
  std::sort(edits.begin(), edits.end(), [](const Edit &a, const Edit &b) { return a.offset > b.offset; });
  size_t limit = source.size();
  for (const Edit &e : edits) {
    if (e.offset + e.length > limit) // overlapping: keep the later one
      continue;
    source.replace(e.offset, e.length, e.text);
    limit = e.offset;
  }
  return source;
}

/// `extern "C"` (dropped, or an inline namespace before a brace) and
/// `#include` lines at namespace scope (moved out of the anonymous
/// namespace in place), found by lexing the source raw.
void lexicalEdits(llvm::StringRef source, std::vector<Edit> &edits) {
  cl::LangOptions lo;
  lo.CPlusPlus = lo.CPlusPlus11 = lo.CPlusPlus14 = lo.CPlusPlus17 = lo.CPlusPlus20 = true;
  lo.LineComment = true;
  lo.RawStringLiterals = true;
  cl::Lexer lex(cl::SourceLocation(), lo, source.begin(), source.begin(), source.end());
  auto offsetOf = [&](const cl::Token &t) { return static_cast<size_t>(t.getLocation().getRawEncoding()); };
  int depth = 0;
  std::optional<size_t> externAt; // an `extern` just seen
  std::optional<std::pair<size_t, size_t>> linkage; // `extern "C"` just seen: [begin, end)
  cl::Token t;
  while (true) {
    lex.LexFromRawLexer(t);
    if (t.is(cl::tok::eof))
      break;
    if (t.is(cl::tok::hash) && t.isAtStartOfLine()) {
      const size_t begin = offsetOf(t);
      cl::Token word;
      lex.LexFromRawLexer(word);
      const bool include = word.is(cl::tok::raw_identifier) && !word.isAtStartOfLine() &&
                           (word.getRawIdentifier() == "include" || word.getRawIdentifier() == "include_next");
      // The directive ends at the first newline not escaped by a backslash.
      size_t end = begin;
      while (end < source.size() && !(source[end] == '\n' && source[end - 1] != '\\'))
        ++end;
      if (include && depth == 0)
        edits.push_back({begin, end - begin, "} // namespace\n" + source.substr(begin, end - begin).str() +
                                                 "\nnamespace {"});
      if (end >= source.size())
        break;
      lex.seek(static_cast<unsigned>(end), /*IsAtStartOfLine=*/true);
      continue;
    }
    if (linkage) {
      const bool brace = t.is(cl::tok::l_brace);
      edits.push_back({linkage->first, linkage->second - linkage->first,
                       brace ? "inline namespace __kiln_extern_c" : ""});
      linkage.reset();
    }
    if (t.is(cl::tok::raw_identifier) && t.getRawIdentifier() == "extern") {
      externAt = offsetOf(t);
      continue;
    }
    if (externAt && t.is(cl::tok::string_literal) &&
        llvm::StringRef(t.getLiteralData(), t.getLength()) == "\"C\"") {
      linkage = {{*externAt, offsetOf(t) + t.getLength()}};
      externAt.reset();
      continue;
    }
    externAt.reset();
    if (t.is(cl::tok::l_brace))
      ++depth;
    else if (t.is(cl::tok::r_brace) && depth > 0)
      --depth;
  }
}

//===----------------------------------------------------------------------===//
// The whole
//===----------------------------------------------------------------------===//

std::string quoted(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

class HostCompiler {
public:
  HostCompiler(const RawHostInput &in, RawHostModule &out) : in_(in), out_(out) {}

  void run() {
    out_.symbol = in_.symbol;
    out_.flags = hostFlagsOfNvrtcOptions(in_.options);
    std::string code = preamble.str() + in_.source + "\n#line 1 \"<name expressions>\"\nnamespace __kiln_names {\n";
    for (size_t i = 0; i < in_.names.size(); ++i)
      code += "inline auto *const __kiln_name_" + std::to_string(i) + " = " + addressOf(in_.names[i]) + ";\n";
    code += "}\n";
    const size_t sourceOffset = preamble.size();

    std::vector<std::string> args = {"-xc++", "-std=c++20", "-w", "-DKILN_CUDA_HOST_ANALYSIS=1"};
    if (!in_.resourceDir.empty())
      args.insert(args.end(), {"-resource-dir", in_.resourceDir});
    if (!in_.kilnIncludeDir.empty())
      args.insert(args.end(), {"-isystem", in_.kilnIncludeDir + "/kiln/cuda_host", "-isystem", in_.kilnIncludeDir});
    for (const std::string &dir : in_.systemIncludes)
      args.insert(args.end(), {"-isystem", dir});
    args.insert(args.end(), out_.flags.begin(), out_.flags.end());
    Collector collector;
    std::unique_ptr<cl::ASTUnit> unit = cl::tooling::buildASTFromCodeWithArgs(
        code, args, "raw_module_host.cpp", "kilnc", std::make_shared<cl::PCHContainerOperations>(),
        cl::tooling::getClangStripDependencyFileAdjuster(), cl::tooling::FileContentMappings(), &collector);
    if (!unit || !collector.problems.empty()) {
      fail(collector.problems);
      return;
    }
    cl::ASTContext &ast = unit->getASTContext();
    cl::SourceManager &sm = ast.getSourceManager();
    Analysis analysis(ast);
    Finder finder(analysis);
    finder.TraverseDecl(ast.getTranslationUnitDecl());

    // Byte offsets in the source of a location in it (nullopt: in a macro).
    auto offset = [&](cl::SourceLocation loc) -> std::optional<size_t> {
      if (loc.isInvalid() || !loc.isFileID() || !sm.isInMainFile(loc))
        return std::nullopt;
      const size_t o = sm.getFileOffset(loc);
      if (o < sourceOffset || o > sourceOffset + in_.source.size())
        return std::nullopt;
      return o - sourceOffset;
    };
    auto tokenEnd = [&](cl::SourceLocation loc) {
      return cl::Lexer::getLocForEndOfToken(loc, 0, sm, ast.getLangOpts());
    };

    std::vector<Edit> edits;
    lexicalEdits(in_.source, edits);
    cl::PrintingPolicy pp = ast.getPrintingPolicy();
    pp.SuppressTagKeyword = true;
    for (const cl::VarDecl *v : finder.externShared) {
      std::optional<size_t> b = offset(v->getBeginLoc()), e = offset(tokenEnd(v->getEndLoc()));
      const cl::ArrayType *array = ast.getAsArrayType(v->getType());
      if (!b || !e || *e <= *b || !array)
        continue; // left as written: the host compile rejects it, and says so
      const std::string element = array->getElementType().getAsString(pp);
      const std::string name = v->getName().str();
      edits.push_back({*b, *e - *b,
                       v->isLocalExternDecl() || v->isLocalVarDecl()
                           ? element + " *const " + name + " = reinterpret_cast<" + element +
                                 " *>(::kiln::cuda_host::dynamic_shared())"
                           : "constexpr ::kiln::cuda_host::extern_shared<" + element + "> " + name + "{}"});
    }
    for (const cl::GCCAsmStmt *s : finder.asms) {
      std::optional<size_t> b = offset(s->getAsmLoc()), e = offset(tokenEnd(s->getEndLoc()));
      if (b && e && *e > *b)
        edits.push_back({*b, *e - *b, "((void)0)"});
    }

    // The kernels: the name expressions', then the other plain ones.
    std::unique_ptr<cl::MangleContext> mangler(ast.createMangleContext());
    auto mangled = [&](const cl::FunctionDecl *f) {
      if (!mangler->shouldMangleDeclName(f))
        return f->getName().str();
      std::string s;
      llvm::raw_string_ostream os(s);
      mangler->mangleName(cl::GlobalDecl(f), os);
      return s;
    };
    std::vector<const cl::FunctionDecl *> seen;
    for (size_t i = 0; i < finder.nameProbes.size() && i < in_.names.size(); ++i) {
      const cl::VarDecl *probe = finder.nameProbes[i];
      const cl::FunctionDecl *f = nullptr;
      if (const cl::Expr *init = probe->getInit())
        if (const auto *u = llvm::dyn_cast<cl::UnaryOperator>(init->IgnoreParenImpCasts()))
          if (const auto *ref = llvm::dyn_cast<cl::DeclRefExpr>(u->getSubExpr()->IgnoreParens()))
            f = llvm::dyn_cast<cl::FunctionDecl>(ref->getDecl());
      if (!f || !isGlobal(f)) {
        in_.warn(0, 0, "the name expression '" + in_.names[i] +
                           "' names no __global__ function in the host compilation; it runs only on a GPU");
        continue;
      }
      RawHostKernel k = describe(f, analysis, ast, pp);
      k.name = in_.names[i];
      k.symbol = i < in_.loweredNames.size() ? in_.loweredNames[i] : mangled(f);
      k.address = addressOf(in_.names[i]);
      out_.kernels.push_back(std::move(k));
      seen.push_back(f->getCanonicalDecl());
    }
    for (const cl::FunctionDecl *f : finder.kernels) {
      if (llvm::is_contained(seen, f->getCanonicalDecl()))
        continue;
      RawHostKernel k = describe(f, analysis, ast, pp);
      k.name = f->isExternC() ? f->getName().str() : "";
      k.symbol = f->isExternC() ? f->getName().str() : mangled(f);
      // As written from the translation unit's anonymous namespace: the
      // source's own anonymous and inline namespaces left out.
      auto qualifiedName = [&](const cl::FunctionDecl *g) {
        cl::PrintingPolicy written = pp;
        written.SuppressUnwrittenScope = true;
        std::string q;
        llvm::raw_string_ostream qs(q);
        g->printQualifiedName(qs, written);
        return q;
      };
      const std::string qualified = qualifiedName(f);
      const bool overloaded = std::count_if(finder.kernels.begin(), finder.kernels.end(), [&](const auto *g) {
                                return qualifiedName(g) == qualified;
                              }) > 1;
      if (overloaded) {
        std::string params;
        for (const cl::ParmVarDecl *p : f->parameters())
          params += (params.empty() ? "" : ", ") + p->getType().getAsString(pp);
        k.address = "static_cast<void (*)(" + params + ")>(&" + qualified + ")";
      } else {
        k.address = "&" + qualified;
      }
      out_.kernels.push_back(std::move(k));
    }
    emit(applyEdits(in_.source, std::move(edits)));
  }

private:
  /// `&expr` for a name expression ("scale<float>", "&f", "::ns::k<1>"),
  /// valid inside the anonymous namespace.
  static std::string addressOf(llvm::StringRef expr) {
    expr = expr.trim();
    if (expr.starts_with("&"))
      expr = expr.drop_front().ltrim();
    if (expr.starts_with("::"))
      expr = expr.drop_front(2);
    return "&" + expr.str();
  }

  RawHostKernel describe(const cl::FunctionDecl *f, Analysis &analysis, cl::ASTContext &ast,
                         const cl::PrintingPolicy &pp) {
    RawHostKernel k;
    const Reach &r = analysis.of(f);
    k.synchronizes = r.synchronizes;
    std::string name;
    llvm::raw_string_ostream os(name);
    f->getNameForDiagnostic(os, pp, /*Qualified=*/true);
    k.signature = name + "(";
    for (const cl::ParmVarDecl *p : f->parameters()) {
      k.paramBytes.push_back(static_cast<std::uint32_t>(ast.getTypeSizeInChars(p->getType()).getQuantity()));
      std::string param;
      llvm::raw_string_ostream ps(param);
      p->getType().print(ps, pp, p->getName());
      k.signature += (p->getFunctionScopeIndex() ? ", " : "") + param;
    }
    k.signature += ")";
    if (!r.gpuOnly.empty()) {
      cl::SourceManager &sm = ast.getSourceManager();
      cl::PresumedLoc at = sm.getPresumedLoc(sm.getExpansionLoc(r.at.isValid() ? r.at : f->getLocation()));
      const bool inSource = at.isValid() && llvm::StringRef(at.getFilename()) == sourceName;
      const std::string where =
          in_.warn(inSource ? at.getLine() : 0, inSource ? at.getColumn() - 1 : 0,
                   "kernel '" + name + "' uses " + r.gpuOnly +
                       ", which cannot run on a CPU: it runs only on a GPU (a launch on the host raises "
                       "kiln::device_error)");
      k.unsupported = r.gpuOnly + " at " + where;
    }
    return k;
  }

  void fail(const std::vector<Problem> &problems) {
    std::string first = problems.empty() ? "the analysis failed" : problems.front().text;
    std::string where;
    size_t shown = 0;
    for (const Problem &p : problems) {
      if (shown == 3)
        break;
      std::string text = "this CUDA source does not compile for the host (its kernels run only on a GPU): " +
                         (p.file.empty() ? "" : p.file + ": ") + p.text;
      if (shown == 2 && problems.size() > 3)
        text += " (and " + std::to_string(problems.size() - 3) + " more)";
      std::string at = in_.warn(p.line, p.column, text);
      if (shown == 0)
        where = at;
      ++shown;
    }
    out_.unsupported = "it does not compile for the host: " + first + (where.empty() ? "" : " (at " + where + ")");
    out_.kernels.clear();
  }

  void emit(const std::string &edited) {
    std::string &s = out_.translationUnit;
    s = "// The host code of the CUDA source at " + in_.origin +
        ", written by kilnc (docs/kernel-abi.md, \"Raw CUDA modules on the host\").\n"
        "#include <kiln/cuda_host.hpp>\n"
        "#include <kiln/raw_module.hpp>\n"
        "#include <cstdint>\n"
        "namespace {\n";
    s += edited;
    s += "\n} // namespace\n\nnamespace {\n";
    for (size_t i = 0; i < out_.kernels.size(); ++i) {
      const RawHostKernel &k = out_.kernels[i];
      if (k.paramBytes.empty())
        continue;
      s += "const std::uint32_t __kiln_params_" + std::to_string(i) + "[] = {";
      for (size_t j = 0; j < k.paramBytes.size(); ++j)
        s += (j ? ", " : "") + std::to_string(k.paramBytes[j]) + "u";
      s += "};\n";
    }
    s += "const ::kiln::detail::raw_host_entry __kiln_entries[] = {\n";
    for (size_t i = 0; i < out_.kernels.size(); ++i) {
      const RawHostKernel &k = out_.kernels[i];
      const bool runs = k.unsupported.empty();
      s += "  {" + (k.name.empty() ? std::string("nullptr") : quoted(k.name)) + ", " + quoted(k.symbol) + ",\n   ";
      s += runs ? "&::kiln::cuda_host::run_thread<" + k.address + ">, " : std::string("nullptr, ");
      s += runs && !k.synchronizes ? "&::kiln::cuda_host::run_block<" + k.address + ">,\n   "
                                   : std::string("nullptr,\n   ");
      s += std::to_string(k.paramBytes.size()) + ", " +
           (k.paramBytes.empty() ? std::string("nullptr") : "__kiln_params_" + std::to_string(i)) + ", " +
           quoted(k.signature) + ", " + (runs ? std::string("nullptr") : quoted(k.unsupported)) + "},\n";
    }
    if (out_.kernels.empty())
      s += "  {nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr, nullptr},\n";
    s += "};\n} // namespace\n\n";
    s += "extern const ::kiln::detail::raw_host_module " + out_.symbol + ";\n";
    s += "const ::kiln::detail::raw_host_module " + out_.symbol + " = {__kiln_entries, " +
         std::to_string(out_.kernels.size()) + "};\n";
  }

  const RawHostInput &in_;
  RawHostModule &out_;
};

} // namespace

std::vector<std::string> hostFlagsOfNvrtcOptions(const std::vector<std::string> &options) {
  std::vector<std::string> out;
  struct Spelling {
    llvm::StringRef shortForm, longForm, flag;
  };
  static const Spelling spellings[] = {{"-D", "--define-macro", "-D"},
                                       {"-U", "--undefine-macro", "-U"},
                                       {"-I", "--include-path", "-I"},
                                       {"-include", "--pre-include", "-include"}};
  for (size_t i = 0; i < options.size(); ++i) {
    llvm::StringRef o = options[i];
    for (const Spelling &s : spellings) {
      std::optional<std::string> value;
      if (o == s.shortForm || o == s.longForm) {
        if (i + 1 < options.size())
          value = options[++i];
      } else if (o.starts_with(s.longForm) && o.drop_front(s.longForm.size()).starts_with("=")) {
        value = o.drop_front(s.longForm.size() + 1).str();
      } else if (s.shortForm.size() == 2 && o.starts_with(s.shortForm)) {
        value = o.drop_front(2).str();
      }
      if (!value)
        continue;
      if (s.flag == "-include")
        out.insert(out.end(), {"-include", *value});
      else
        out.push_back(s.flag.str() + *value);
      break;
    }
  }
  return out;
}

void compileRawModuleForHost(const RawHostInput &in, RawHostModule &out) { HostCompiler(in, out).run(); }

} // namespace kiln::frontend
