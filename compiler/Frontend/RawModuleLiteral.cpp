//===- Frontend/RawModuleLiteral.cpp - CUDA source literals at build time -===//
//
// Finds `kiln::raw_module::from_source(...)` calls, reads their arguments as
// literals, compiles each source with NVRTC (dlopen'ed once per kilnc
// process), maps NVRTC's log back into the literal, and rewrites the call.
//
// NVRTC's log names lines of the program ("raw_module.cu(3): error: msg"),
// then echoes the line, indented by two spaces, and a caret line whose `^`
// stands under the column (tabs copied, so the caret's index is a byte
// offset); "detected during instantiation of ... at line 8" lines follow
// some errors. The byte of the literal's text at (line, column) is then
// located in the user's file by StringLiteral::getLocationOfByte, which
// follows escapes, raw strings and concatenated pieces.
//
//===----------------------------------------------------------------------===//
#include "Frontend/RawModuleLiteral.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace kiln::frontend {
namespace {

namespace cl = clang;

//===----------------------------------------------------------------------===//
// NVRTC, opened with dlopen (its C API, declared here: kilnc does not need
// the CUDA headers)
//===----------------------------------------------------------------------===//

using nvrtcProgram = void *;
constexpr int NVRTC_SUCCESS = 0;

struct Nvrtc {
  const char *(*nvrtcGetErrorString)(int) = nullptr;
  int (*nvrtcVersion)(int *, int *) = nullptr;
  int (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                            const char *const *) = nullptr;
  int (*nvrtcDestroyProgram)(nvrtcProgram *) = nullptr;
  int (*nvrtcAddNameExpression)(nvrtcProgram, const char *) = nullptr;
  int (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *) = nullptr;
  int (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *) = nullptr;
  int (*nvrtcGetProgramLog)(nvrtcProgram, char *) = nullptr;
  int (*nvrtcGetPTXSize)(nvrtcProgram, size_t *) = nullptr;
  int (*nvrtcGetPTX)(nvrtcProgram, char *) = nullptr;
  int (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *) = nullptr;
  int (*nvrtcGetCUBIN)(nvrtcProgram, char *) = nullptr;
  int (*nvrtcGetLoweredName)(nvrtcProgram, const char *, const char **) = nullptr;
  int major = 0, minor = 0;
  std::string path;

  std::string resultText(int r) const {
    const char *s = nvrtcGetErrorString ? nvrtcGetErrorString(r) : nullptr;
    return std::string(s ? s : "NVRTC_ERROR") + " (" + std::to_string(r) + ")";
  }
};

/// Where to look for libnvrtc: $KILN_NVRTC alone when set (as the runtime
/// does), else `preferred` (the driver's: the toolkit's) first.
std::vector<std::string> nvrtcCandidates(const std::string &preferred) {
  std::vector<std::string> out;
  if (const char *forced = std::getenv("KILN_NVRTC"); forced && *forced)
    return {forced};
  if (!preferred.empty())
    out.push_back(preferred);
  const std::vector<std::string> names = {"libnvrtc.so.13", "libnvrtc.so", "libnvrtc.so.12"};
  out.insert(out.end(), names.begin(), names.end());
  std::vector<std::string> dirs;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    dirs.push_back(std::string(home) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  for (const std::string &d : dirs)
    for (const std::string &n : names)
      out.push_back(d + "/" + n);
  return out;
}

/// The NVRTC of this kilnc process (loaded once per `preferred`; the shared
/// library is never unloaded, the table is owned by the cache), or nullptr
/// with `whyNot` set.
const Nvrtc *loadNvrtc(const std::string &preferred, std::string &whyNot) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::unique_ptr<Nvrtc>, std::string>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = loaded.try_emplace(preferred, nullptr, "");
  if (!fresh) {
    whyNot = it->second.second;
    return it->second.first.get();
  }
  auto fail = [&](std::string why) -> const Nvrtc * {
    it->second.second = why;
    whyNot = std::move(why);
    return nullptr;
  };
  void *handle = nullptr;
  auto lib = std::make_unique<Nvrtc>();
  std::string firstError, tried;
  for (const std::string &name : nvrtcCandidates(preferred)) {
    tried += (tried.empty() ? "" : ", ") + name;
    if ((handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      lib->path = name;
      break;
    }
    if (firstError.empty())
      if (const char *e = dlerror())
        firstError = e;
  }
  if (!handle)
    return fail("NVRTC could not be loaded (tried " + tried + (firstError.empty() ? "" : "; " + firstError) + ")");
  std::string missing;
#define KILN_NVRTC_SYM(name)                                                                                    \
  if (void *p = dlsym(handle, #name))                                                                          \
    lib->name = reinterpret_cast<decltype(lib->name)>(p);                                                      \
  else                                                                                                         \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
  KILN_NVRTC_SYM(nvrtcGetErrorString)
  KILN_NVRTC_SYM(nvrtcVersion)
  KILN_NVRTC_SYM(nvrtcCreateProgram)
  KILN_NVRTC_SYM(nvrtcDestroyProgram)
  KILN_NVRTC_SYM(nvrtcAddNameExpression)
  KILN_NVRTC_SYM(nvrtcCompileProgram)
  KILN_NVRTC_SYM(nvrtcGetProgramLogSize)
  KILN_NVRTC_SYM(nvrtcGetProgramLog)
  KILN_NVRTC_SYM(nvrtcGetPTXSize)
  KILN_NVRTC_SYM(nvrtcGetPTX)
  KILN_NVRTC_SYM(nvrtcGetCUBINSize)
  KILN_NVRTC_SYM(nvrtcGetCUBIN)
  KILN_NVRTC_SYM(nvrtcGetLoweredName)
#undef KILN_NVRTC_SYM
  if (!missing.empty())
    return fail("the NVRTC library " + lib->path + " lacks " + missing + " (CUDA 12 or newer needed)");
  if (lib->nvrtcVersion(&lib->major, &lib->minor) != NVRTC_SUCCESS)
    return fail("nvrtcVersion failed in " + lib->path);
  it->second.first = std::move(lib);
  return it->second.first.get();
}

/// The architecture the options name (-arch/--gpu-architecture, "=value" or
/// the next option), if they do: the runtime's rule (runtime/nvrtc/target.cpp).
std::optional<std::string> userArch(const std::vector<std::string> &options) {
  for (size_t i = 0; i < options.size(); ++i) {
    llvm::StringRef o = options[i];
    for (llvm::StringRef flag : {"--gpu-architecture", "-arch"}) {
      if (!o.starts_with(flag))
        continue;
      llvm::StringRef rest = o.drop_front(flag.size());
      if (rest.empty())
        return i + 1 < options.size() ? options[i + 1] : std::string();
      if (rest.front() == '=')
        return rest.drop_front().str();
    }
  }
  return std::nullopt;
}

/// One compilation's results.
struct Compiled {
  int result = NVRTC_SUCCESS;
  std::string log, ptx, cubin;
  std::vector<std::string> lowered;
  std::string loweringFailed; ///< the name expression NVRTC could not lower
};

constexpr const char *programName = "raw_module.cu";

Compiled compile(const Nvrtc &lib, const std::string &source, const std::vector<std::string> &options,
                 const std::vector<std::string> &names) {
  Compiled out;
  nvrtcProgram prog = nullptr;
  out.result = lib.nvrtcCreateProgram(&prog, source.c_str(), programName, 0, nullptr, nullptr);
  if (out.result != NVRTC_SUCCESS)
    return out;
  llvm::scope_exit destroy([&] { lib.nvrtcDestroyProgram(&prog); });
  for (const std::string &n : names)
    if ((out.result = lib.nvrtcAddNameExpression(prog, n.c_str())) != NVRTC_SUCCESS) {
      out.loweringFailed = n;
      return out;
    }
  std::vector<const char *> argv;
  for (const std::string &o : options)
    argv.push_back(o.c_str());
  out.result = lib.nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  size_t size = 0;
  if (lib.nvrtcGetProgramLogSize(prog, &size) == NVRTC_SUCCESS && size > 1) {
    out.log.resize(size);
    if (lib.nvrtcGetProgramLog(prog, out.log.data()) != NVRTC_SUCCESS)
      out.log.clear();
    while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n'))
      out.log.pop_back();
  }
  if (out.result != NVRTC_SUCCESS)
    return out;
  if (lib.nvrtcGetPTXSize(prog, &size) == NVRTC_SUCCESS && size > 1) {
    out.ptx.resize(size);
    if (lib.nvrtcGetPTX(prog, out.ptx.data()) != NVRTC_SUCCESS)
      out.ptx.clear();
    while (!out.ptx.empty() && out.ptx.back() == '\0')
      out.ptx.pop_back();
  }
  if (lib.nvrtcGetCUBINSize(prog, &size) == NVRTC_SUCCESS && size > 0) {
    out.cubin.resize(size);
    if (lib.nvrtcGetCUBIN(prog, out.cubin.data()) != NVRTC_SUCCESS)
      out.cubin.clear();
  }
  for (const std::string &n : names) {
    const char *lowered = nullptr;
    if (lib.nvrtcGetLoweredName(prog, n.c_str(), &lowered) != NVRTC_SUCCESS || !lowered) {
      out.loweringFailed = n;
      return out;
    }
    out.lowered.emplace_back(lowered);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// The calls and their arguments
//===----------------------------------------------------------------------===//

bool isFromSource(const cl::FunctionDecl *f) {
  const auto *m = llvm::dyn_cast_or_null<cl::CXXMethodDecl>(f);
  if (!m || !m->isStatic() || m->getNameAsString() != "from_source")
    return false;
  const cl::CXXRecordDecl *cls = m->getParent();
  if (!cls || cls->getName() != "raw_module")
    return false;
  const auto *ns = llvm::dyn_cast<cl::NamespaceDecl>(cls->getDeclContext());
  return ns && ns->getName() == "kiln" && llvm::isa<cl::TranslationUnitDecl>(ns->getDeclContext());
}

class CallFinder : public cl::RecursiveASTVisitor<CallFinder> {
public:
  explicit CallFinder(cl::SourceManager &sm) : sm_(sm) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool VisitCallExpr(cl::CallExpr *call) {
    if (call->getNumArgs() >= 1 && isFromSource(call->getDirectCallee()) &&
        sm_.isInMainFile(sm_.getExpansionLoc(call->getBeginLoc())))
      calls.push_back(call);
    return true;
  }
  std::vector<const cl::CallExpr *> calls;

private:
  cl::SourceManager &sm_;
};

/// `e` without the wrappers a conversion or a temporary puts around it.
const cl::Expr *peel(const cl::Expr *e) {
  while (e) {
    e = e->IgnoreParens();
    if (const auto *c = llvm::dyn_cast<cl::ImplicitCastExpr>(e))
      e = c->getSubExpr();
    else if (const auto *m = llvm::dyn_cast<cl::MaterializeTemporaryExpr>(e))
      e = m->getSubExpr();
    else if (const auto *b = llvm::dyn_cast<cl::CXXBindTemporaryExpr>(e))
      e = b->getSubExpr();
    else if (const auto *w = llvm::dyn_cast<cl::ExprWithCleanups>(e))
      e = w->getSubExpr();
    else
      return e;
  }
  return e;
}

/// The string literal `e` is: a literal (through the implicit conversions to
/// const char * and std::string_view or std::string), or a const variable
/// initialized with one; nullptr otherwise.
const cl::StringLiteral *literalOf(const cl::Expr *e, cl::ASTContext &ast, int depth = 0) {
  e = peel(e);
  if (!e || depth > 8)
    return nullptr;
  if (const auto *s = llvm::dyn_cast<cl::StringLiteral>(e))
    return s->isOrdinary() || s->isUTF8() ? s : nullptr;
  if (const auto *c = llvm::dyn_cast<cl::CXXConstructExpr>(e))
    return c->getNumArgs() >= 1 ? literalOf(c->getArg(0), ast, depth + 1) : nullptr;
  if (const auto *ref = llvm::dyn_cast<cl::DeclRefExpr>(e))
    if (const auto *vd = llvm::dyn_cast<cl::VarDecl>(ref->getDecl()))
      if (vd->getType().isConstant(ast) && vd->getInit())
        return literalOf(vd->getInit(), ast, depth + 1);
  return nullptr;
}

/// The strings of a braced list of string literals (`{"-std=c++17"}`, `{}`),
/// or of a left-out argument (none); nullopt for anything else.
std::optional<std::vector<std::string>> literalList(const cl::Expr *arg, cl::ASTContext &ast) {
  std::vector<std::string> out;
  if (llvm::isa<cl::CXXDefaultArgExpr>(arg))
    return out;
  const cl::Expr *e = peel(arg);
  if (const auto *f = llvm::dyn_cast<cl::CXXFunctionalCastExpr>(e))
    e = peel(f->getSubExpr());
  const auto *ctor = llvm::dyn_cast_or_null<cl::CXXConstructExpr>(e);
  if (!ctor)
    return std::nullopt;
  if (ctor->getNumArgs() == 0)
    return out; // {}
  const auto *list = llvm::dyn_cast<cl::CXXStdInitializerListExpr>(peel(ctor->getArg(0)));
  if (!list || ctor->getNumArgs() > 2) // (initializer_list, allocator = default)
    return std::nullopt;
  const auto *inits = llvm::dyn_cast<cl::InitListExpr>(peel(list->getSubExpr()));
  if (!inits)
    return std::nullopt;
  for (const cl::Expr *init : inits->inits()) {
    const cl::StringLiteral *s = literalOf(init, ast);
    if (!s)
      return std::nullopt;
    out.push_back(s->getString().str());
  }
  return out;
}

//===----------------------------------------------------------------------===//
// NVRTC's log as diagnostics
//===----------------------------------------------------------------------===//

struct Message {
  enum Kind { Error, Warning, Note } kind = Error;
  /// Where NVRTC says it is: "" for the program (the literal), else the
  /// file it names ("__nv_name_map": the name expressions; a header).
  std::string file;
  std::optional<unsigned> line;   ///< 1-based line (of the program, or of `file`)
  std::optional<unsigned> column; ///< 0-based byte of that line of the program
  std::string text;
};

llvm::SmallVector<llvm::StringRef> splitLines(llvm::StringRef s) {
  llvm::SmallVector<llvm::StringRef> lines;
  s.split(lines, '\n');
  return lines;
}

/// The text of line `line` (1-based) of `source`, if it has one.
std::optional<llvm::StringRef> sourceLine(llvm::StringRef source, unsigned line) {
  llvm::SmallVector<llvm::StringRef> lines = splitLines(source);
  if (line == 0 || line > lines.size())
    return std::nullopt;
  return lines[line - 1].rtrim('\r');
}

/// NVRTC's log, message by message.
std::vector<Message> parseLog(llvm::StringRef log, llvm::StringRef source) {
  std::vector<Message> out;
  static const llvm::Regex located("^(.+)\\(([0-9]+)\\): (catastrophic error|error|warning|remark)( #[^:]*)?: (.*)$");
  static const llvm::Regex during("^(.*) at line ([0-9]+)$");
  llvm::SmallVector<llvm::StringRef> lines = splitLines(log);
  for (size_t i = 0; i < lines.size(); ++i) {
    llvm::StringRef l = lines[i].rtrim('\r');
    llvm::SmallVector<llvm::StringRef, 6> m;
    if (located.match(l, &m)) {
      Message msg;
      msg.kind = m[3] == "warning" || m[3] == "remark" ? Message::Warning : Message::Error;
      msg.text = m[5].str();
      if (!m[4].empty())
        msg.text += " [NVRTC" + m[4].str() + "]";
      unsigned n = 0;
      if (!m[2].getAsInteger(10, n))
        msg.line = n;
      if (m[1] != programName)
        msg.file = m[1].str();
      // The echoed line and the caret under the column (of the program's
      // lines only: others are not the literal's).
      if (i + 2 < lines.size() && lines[i + 1].starts_with("  ") && lines[i + 2].trim(" \t") == "^") {
        llvm::StringRef echo = lines[i + 1], caret = lines[i + 2];
        std::optional<llvm::StringRef> text = msg.file.empty() && msg.line ? sourceLine(source, *msg.line) : std::nullopt;
        if (text && echo.consume_front("  ") && echo == *text && caret.size() >= 3)
          msg.column = static_cast<unsigned>(caret.find('^')) - 2;
        i += 2;
      }
      out.push_back(std::move(msg));
      // "detected during instantiation of ... at line 8": notes.
      while (i + 1 < lines.size() && lines[i + 1].starts_with(" ") && !lines[i + 1].trim().empty()) {
        Message note;
        note.kind = Message::Note;
        note.text = lines[++i].trim().str();
        llvm::SmallVector<llvm::StringRef, 3> d;
        unsigned at = 0;
        if (during.match(note.text, &d) && !d[2].getAsInteger(10, at)) {
          note.line = at;
          note.text = d[1].str();
        }
        out.push_back(std::move(note));
      }
      continue;
    }
    llvm::StringRef t = l.trim();
    if (t.empty() || t.starts_with("Remark: ") || t.contains("detected in the compilation of"))
      continue;
    Message msg;
    msg.kind = t.contains("warning") && !t.contains("error") ? Message::Warning : Message::Error;
    (void)(t.consume_front("nvrtc: error: ") || t.consume_front("nvrtc: warning: ") || t.consume_front("error: "));
    msg.text = t.str();
    out.push_back(std::move(msg));
  }
  return out;
}

class Compiler {
public:
  Compiler(const RawModuleOptions &opts, RawModuleContext &ctx)
      : opts_(opts), ctx_(ctx), sm_(ctx.ast.getSourceManager()) {
    errorId_ = ctx.diags.getCustomDiagID(cl::DiagnosticsEngine::Error, "%0");
    warningId_ = ctx.diags.getCustomDiagID(cl::DiagnosticsEngine::Warning, "%0");
    noteId_ = ctx.diags.getCustomDiagID(cl::DiagnosticsEngine::Note, "%0");
  }

  bool run(std::vector<RawModuleDecl> &modules, std::string &prologue) {
    CallFinder finder(sm_);
    finder.TraverseDecl(ctx_.ast.getTranslationUnitDecl());
    bool ok = true;
    for (const cl::CallExpr *call : finder.calls)
      ok &= one(call, modules, prologue);
    return ok;
  }

private:
  void report(cl::SourceLocation at, unsigned id, const std::string &text) { ctx_.diags.Report(at, id) << text; }

  /// The place of (line, column) of the program inside the literal: the
  /// column's byte, else the line's first non-blank one.
  cl::SourceLocation locate(const cl::StringLiteral *lit, std::optional<unsigned> line,
                            std::optional<unsigned> column) {
    if (!line)
      return lit->getBeginLoc();
    llvm::StringRef s = lit->getString();
    size_t start = 0;
    for (unsigned l = 1; l < *line; ++l) {
      size_t nl = s.find('\n', start);
      if (nl == llvm::StringRef::npos)
        return lit->getBeginLoc();
      start = nl + 1;
    }
    size_t end = std::min(s.find('\n', start), s.size());
    size_t at = start;
    if (column)
      at = std::min<size_t>(start + *column, end);
    else
      while (at < end && (s[at] == ' ' || s[at] == '\t'))
        ++at;
    return lit->getLocationOfByte(static_cast<unsigned>(at), sm_, ctx_.ast.getLangOpts(), ctx_.ast.getTargetInfo());
  }

  /// Leaves the call to run time, with a warning saying why.
  void leave(cl::SourceLocation at, const std::string &why) {
    report(at, warningId_,
           why + "; kiln::raw_module::from_source compiles this CUDA source at run time, with NVRTC");
  }

  bool one(const cl::CallExpr *call, std::vector<RawModuleDecl> &modules, std::string &prologue) {
    const cl::StringLiteral *lit = literalOf(call->getArg(0), ctx_.ast);
    if (!lit)
      return true; // a string known at run time: NVRTC at run time, as written
    cl::CharSourceRange range = cl::Lexer::makeFileCharRange(cl::CharSourceRange::getTokenRange(call->getSourceRange()),
                                                             sm_, ctx_.ast.getLangOpts());
    if (range.isInvalid()) {
      leave(call->getBeginLoc(), "kilnc cannot rewrite a from_source call spread over a macro's expansion");
      return true;
    }
    std::vector<std::string> lists[2];
    for (unsigned a = 1; a <= 2; ++a) {
      if (call->getNumArgs() <= a)
        continue;
      std::optional<std::vector<std::string>> l = literalList(call->getArg(a), ctx_.ast);
      if (!l) {
        leave(call->getArg(a)->getBeginLoc(),
              std::string("the ") + (a == 1 ? "options" : "name expressions") +
                  " are not a braced list of string literals (kilnc compiles a literal source at build time when "
                  "they are)");
        return true;
      }
      lists[a - 1] = std::move(*l);
    }
    const std::vector<std::string> &userOptions = lists[0], &names = lists[1];
    const std::string source = lit->getString().str();
    const Nvrtc *lib = nullptr;
    if (opts_.enabled && !nvrtcUnavailable_) {
      std::string whyNot;
      lib = loadNvrtc(opts_.nvrtcLibrary, whyNot);
      if (!lib) {
        nvrtcUnavailable_ = true;
        report(call->getBeginLoc(), warningId_,
               whyNot + " (set KILN_NVRTC to libnvrtc.so of the CUDA toolkit); this CUDA source is compiled by NVRTC "
                        "at its first launch on a GPU");
      }
    }
    RawModuleDecl d;
    cl::PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(call->getBeginLoc()));
    d.file = p.isValid() ? p.getFilename() : "";
    d.line = p.isValid() ? p.getLine() : 0;
    d.nameExpressions = names;
    const std::string accessor = ctx_.newAccessor();
    if (lib && !compileForGpu(*lib, call, lit, source, userOptions, names, d))
      return false;
    if (opts_.host)
      compileForHost(call, lit, source, userOptions, names, accessor, d);
    if (!lib) {
      if (d.host.translationUnit.empty())
        return true; // neither GPU nor host code here: NVRTC at run time, as written (warned)
      d.deferred = true;
      d.source = source;
      d.options = userOptions;
      d.target = "";
      if (d.loweredNames.empty()) // kilnc's own mangling of the name expressions, until NVRTC's
        for (const std::string &n : names) {
          auto k = std::find_if(d.host.kernels.begin(), d.host.kernels.end(),
                                [&](const RawHostKernel &h) { return h.name == n; });
          d.loweredNames.push_back(k == d.host.kernels.end() ? n : k->symbol);
        }
    }
    d.accessor = "const ::kiln::detail::raw_module_image &" + accessor + "() noexcept";
    prologue += d.accessor + ";\n";
    ctx_.replace(range, "::kiln::detail::raw_module_from_image(::" + accessor + "())");
    modules.push_back(std::move(d));
    return true;
  }

  /// The host code of the literal (warnings, never errors).
  void compileForHost(const cl::CallExpr *call, const cl::StringLiteral *lit, const std::string &source,
                      const std::vector<std::string> &options, const std::vector<std::string> &names,
                      const std::string &accessor, RawModuleDecl &d) {
    RawHostInput in;
    in.source = source;
    in.options = options;
    in.names = names;
    in.loweredNames = d.loweredNames;
    in.symbol = accessor + "_host";
    in.origin = d.file + ":" + std::to_string(d.line);
    in.resourceDir = opts_.resourceDir;
    in.kilnIncludeDir = opts_.kilnIncludeDir;
    in.systemIncludes = opts_.hostSystemIncludes;
    in.warn = [&](unsigned line, unsigned column, const std::string &text) {
      cl::SourceLocation at = line ? locate(lit, line, column) : call->getBeginLoc();
      report(at, warningId_, text);
      cl::PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(at));
      return p.isValid() ? std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) + ":" +
                               std::to_string(p.getColumn())
                         : std::string("the CUDA source");
    };
    compileRawModuleForHost(in, d.host);
  }

  /// The GPU code of the literal, by NVRTC: false after an error.
  bool compileForGpu(const Nvrtc &nvrtc, const cl::CallExpr *call, const cl::StringLiteral *lit,
                     const std::string &source, const std::vector<std::string> &userOptions,
                     const std::vector<std::string> &names, RawModuleDecl &d) {
    const Nvrtc *lib = &nvrtc;
    std::vector<std::string> options = userOptions;
    std::optional<std::string> arch = userArch(options);
    if (!arch)
      options.push_back("-arch=compute_80");
    // The toolkit's libcu++ (<cuda/std/...>), as for the host compilation.
    for (const std::string &dir : opts_.hostSystemIncludes)
      options.push_back("--include-path=" + dir);
    Compiled c = compile(*lib, source, options, names);
    cl::SourceLocation optionsAt = call->getNumArgs() > 1 && !userOptions.empty() ? call->getArg(1)->getBeginLoc()
                                                                                   : call->getBeginLoc();
    bool failed = c.result != NVRTC_SUCCESS || !c.loweringFailed.empty();
    bool reported = false;
    cl::SourceLocation namesAt = call->getNumArgs() > 2 && !names.empty() ? call->getArg(2)->getBeginLoc()
                                                                          : call->getBeginLoc();
    cl::SourceLocation last;
    for (const Message &m : parseLog(c.log, source)) {
      cl::SourceLocation at = optionsAt;
      std::string text = m.text;
      if (m.file == "__nv_name_map") { // NVRTC's code for the name expressions
        at = namesAt;
        text += " (in the name expressions)";
      } else if (!m.file.empty()) { // a header the source includes
        at = call->getBeginLoc();
        text = m.file + (m.line ? "(" + std::to_string(*m.line) + ")" : std::string()) + ": " + text;
      } else if (m.line) {
        at = locate(lit, m.line, m.column);
      } else if (m.kind == Message::Note) {
        at = last;
      }
      if (m.kind == Message::Note) {
        if (at.isValid())
          report(at, noteId_, text);
        continue;
      }
      report(at, m.kind == Message::Error ? errorId_ : warningId_, text);
      last = at;
      reported |= m.kind == Message::Error;
    }
    if (!c.loweringFailed.empty()) {
      report(call->getNumArgs() > 2 ? call->getArg(2)->getBeginLoc() : call->getBeginLoc(), errorId_,
             "the name expression '" + c.loweringFailed +
                 "' names no __global__ function of the CUDA source (a template instantiation such as "
                 "\"scale<float>\", or a kernel's name)");
      return false;
    }
    if (failed) {
      if (!reported)
        report(call->getBeginLoc(), errorId_,
               "NVRTC could not compile the CUDA source: " + lib->resultText(c.result) +
                   (c.log.empty() ? std::string() : "\n" + c.log));
      return false;
    }
    if (c.ptx.empty() && c.cubin.empty()) {
      report(optionsAt, errorId_,
             "NVRTC produced neither PTX nor a cubin (an option such as -dlto asks for another output, which "
             "kiln::raw_module cannot load)");
      return false;
    }

    d.target = arch ? *arch : "compute_80";
    d.ptx = std::move(c.ptx);
    d.fatbin = std::move(c.cubin); // a user's sm_XX target: NVRTC's cubin
    d.loweredNames = std::move(c.lowered);
    return true;
  }

  const RawModuleOptions &opts_;
  RawModuleContext &ctx_;
  cl::SourceManager &sm_;
  unsigned errorId_ = 0, warningId_ = 0, noteId_ = 0;
  bool nvrtcUnavailable_ = false;
};

} // namespace

bool compileRawModuleLiterals(const RawModuleOptions &opts, RawModuleContext &ctx, std::vector<RawModuleDecl> &modules,
                              std::string &prologue) {
  return Compiler(opts, ctx).run(modules, prologue);
}

} // namespace kiln::frontend
