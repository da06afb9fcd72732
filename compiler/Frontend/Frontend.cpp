//===- Frontend/Frontend.cpp - kilnc's clang frontend ---------------------===//
//
// Builds the AST of the user's file with clang, then for every function of
// the main file: checks KILN_FUSE bodies, builds the tree of each array
// expression (local arrays are inlined into their consumers: in KILN_FUSE
// functions wherever possible, elsewhere along chains of consecutive plain
// statements, StatementChain.h), partitions it into fused groups (Partition.h), emits one
// kernel function per group (KernelGen.h), and rewrites each group's
// expression into a call of its kernel (KernelCall.h). Function templates
// are analysed per instantiation and rewritten once, selecting the kernel by
// template arguments.
//
//===----------------------------------------------------------------------===//
#include "Frontend/Frontend.h"
#include "Frontend/ArrayExpr.h"
#include "Frontend/FuseBodyChecker.h"
#include "Frontend/InPlaceUpdate.h"
#include "Frontend/KernelCall.h"
#include "Frontend/KernelGen.h"
#include "Frontend/Partition.h"
#include "Frontend/RankInference.h"
#include "Frontend/RawKernelGen.h"
#include "Frontend/RawKernelLaunch.h"
#include "Frontend/RawModuleLiteral.h"
#include "Frontend/ReductionCall.h"
#include "Frontend/StatementChain.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>
#include <set>
#include <cstdint>
#include <map>
#include <tuple>

using namespace clang;

namespace kiln::frontend {
namespace {

bool hasAnnotation(const FunctionDecl *fd, llvm::StringRef what) {
  for (const FunctionDecl *f : std::initializer_list<const FunctionDecl *>{fd, fd->getTemplateInstantiationPattern()}) {
    if (!f) continue;
    for (const auto *a : f->specific_attrs<AnnotateAttr>())
      if (a->getAnnotation() == what) return true;
  }
  return false;
}

/// A C identifier from a file stem.
std::string sanitize(llvm::StringRef s) {
  std::string out;
  for (char c : s) out += llvm::isAlnum(c) ? c : '_';
  return out;
}

/// Collects the functions with bodies that are spelled in the main file.
class FunctionCollector : public RecursiveASTVisitor<FunctionCollector> {
public:
  explicit FunctionCollector(SourceManager &sm) : sm_(sm) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBody() const { return true; }
  bool VisitFunctionDecl(FunctionDecl *fd) {
    if (const auto *md = dyn_cast<CXXMethodDecl>(fd); md && md->getParent()->isLambda())
      return true; // scanned with the enclosing function
    if (fd->doesThisDeclarationHaveABody() && fd->getBody() &&
        sm_.isInMainFile(sm_.getExpansionLoc(fd->getLocation())))
      functions.push_back(fd);
    return true;
  }
  std::vector<FunctionDecl *> functions;

private:
  SourceManager &sm_;
};

/// Roots of fused groups in one function body, and the locals that are
/// inlined into their consumers.
struct BodyAnalysis {
  /// Writes into arrays declared const: (where, the variable, the operation).
  std::vector<std::tuple<const Expr *, const VarDecl *, std::string>> constWrites;
  llvm::DenseMap<const VarDecl *, const Expr *> inlinedLocals;
  llvm::DenseSet<const Expr *> inlinedInits; ///< their initializers
  std::vector<const DeclStmt *> removedDecls; ///< declarations of inlined locals
  std::vector<const Expr *> roots;            ///< innermost first
};

class BodyScanner : public RecursiveASTVisitor<BodyScanner> {
public:
  explicit BodyScanner(ASTContext &ctx) : ctx_(ctx) {}
  bool VisitExpr(Expr *e) {
    llvm::SmallVector<const Expr *, 4> args;
    if (isFusableCall(e, ctx_)) {
      fusableOperands(e, ctx_, args);
      const Expr *s = stripImplicit(e);
      if (seen.insert(s).second) fusable.push_back(s);
      for (const Expr *a : args) operands.insert(stripImplicit(a));
    }
    if (auto *ref = dyn_cast<DeclRefExpr>(e)) refs.push_back(ref);
    std::string what;
    if (const VarDecl *vd = constArrayVariable(writtenArray(e, what)))
      constWrites.push_back({e, vd, what});
    return true;
  }
  /// Writes into arrays declared const (kilnc's errors).
  struct ConstWrite {
    const Expr *at;
    const VarDecl *var;
    std::string what;
  };
  std::vector<ConstWrite> constWrites;
  // A lambda's body is part of its enclosing function's text: its array
  // expressions are rewritten in place with the function's.
  std::vector<const Expr *> fusable;
  llvm::DenseSet<const Expr *> seen, operands;
  std::vector<const DeclRefExpr *> refs;

private:
  ASTContext &ctx_;
};

BodyAnalysis analyzeBody(const FunctionDecl *fd, bool fuse, bool chains, const SourceManager &sm, ASTContext &ctx) {
  BodyAnalysis a;
  BodyScanner scan(ctx);
  scan.TraverseStmt(fd->getBody());
  for (const auto &w : scan.constWrites)
    a.constWrites.emplace_back(w.at, w.var, w.what);

  // A KILN_FUSE body is one data flow: its locals are inlined into their
  // consumers, except across a write into an array (StatementChain.h).
  if (fuse) {
    StatementChains found = findFuseBodyLocals(fd->getBody(), {&scan.seen, &scan.operands, &scan.refs});
    a.inlinedLocals = std::move(found.inlined);
    a.removedDecls = std::move(found.removedDecls);
  } else if (chains) {
    StatementChains found = findStatementChains(fd->getBody(), {&scan.seen, &scan.operands, &scan.refs});
    a.inlinedLocals = std::move(found.inlined);
    a.removedDecls = std::move(found.removedDecls);
  }

  for (auto &[vd, init] : a.inlinedLocals) a.inlinedInits.insert(init);
  for (const Expr *e : scan.fusable)
    if (!scan.operands.count(e) && !a.inlinedInits.count(e)) a.roots.push_back(e);
  // Innermost first: a root inside another's leaf is rewritten before it.
  std::stable_sort(a.roots.begin(), a.roots.end(), [&](const Expr *x, const Expr *y) {
    auto len = [&](const Expr *e) {
      return sm.getFileOffset(sm.getExpansionLoc(e->getEndLoc())) - sm.getFileOffset(sm.getExpansionLoc(e->getBeginLoc()));
    };
    return len(x) < len(y);
  });
  std::sort(a.removedDecls.begin(), a.removedDecls.end());
  return a;
}

class Translator {
public:
  Translator(ASTUnit &ast, const FrontendOptions &opts, mlir::MLIRContext &ctx, FrontendResult &result)
      : ctxAST_(ast.getASTContext()), sm_(ast.getSourceManager()), diags_(ast.getDiagnostics()),
        result_(result), rewriter_(sm_, ast.getLangOpts()) {
    errorId_ = diags_.getCustomDiagID(DiagnosticsEngine::Error, "%0");
    mlir::OpBuilder b(&ctx);
    result_.module = mlir::ModuleOp::create(b.getUnknownLoc());
    llvm::SmallString<256> abs(opts.file);
    llvm::sys::fs::make_absolute(abs);
    hash_ = llvm::utohexstr(llvm::xxh3_64bits(llvm::StringRef(abs)) & 0xffffffffu, /*LowerCase=*/true);
    stem_ = sanitize(llvm::sys::path::stem(opts.file));
    fileName_ = opts.file;
    rawModuleOptions_ = opts.rawModules;
  }

  bool run() {
    FunctionCollector fc(sm_);
    fc.TraverseDecl(ctxAST_.getTranslationUnitDecl());
    // Templates: group instantiations by pattern.
    llvm::MapVector<const FunctionDecl *, std::vector<const FunctionDecl *>> instantiations;
    for (FunctionDecl *fd : fc.functions) {
      if (hasAnnotation(fd, "kiln.rawkernel")) {
        translateRawKernel(fd);
        continue;
      }
      bool fuse = hasAnnotation(fd, "kiln.fuse");
      if (fd->isDependentContext()) {
        if (fuse && fd->getDescribedFunctionTemplate() == nullptr && !fd->getPrimaryTemplate())
          error(fd->getLocation(), "KILN_FUSE on a member of a class template or a generic lambda is not "
                                   "supported yet; use a function template");
        // Patterns are checked through their instantiations, where calls
        // are resolved.
        continue;
      }
      if (fd->isTemplateInstantiation()) {
        if (fd->getPrimaryTemplate()) instantiations[fd->getTemplateInstantiationPattern()].push_back(fd);
        continue; // members of class templates are left to the eager runtime
      }
      if (fuse && !checkFuseBody(fd, diags_)) continue;
      translateFunction(fd, fuse);
    }
    for (auto &[pattern, insts] : instantiations) translateTemplate(pattern, insts);
    if (diags_.hasErrorOccurred()) return false;
    rewriteRawLaunches();
    rewriteRawModules();
    if (diags_.hasErrorOccurred()) return false;
    finishRewrite();
    return !diags_.hasErrorOccurred();
  }

private:
  /// Reports an error once: the instantiations of a template share the
  /// pattern's locations, and each would report it again.
  void error(SourceLocation loc, const std::string &msg) {
    if (reported_.insert({loc.getRawEncoding(), msg}).second) diags_.Report(loc, errorId_) << msg;
  }
  std::set<std::pair<unsigned, std::string>> reported_;

  /// A KILN_RAWKERNEL function: one `kiln.raw_kernel` function (RawKernelGen.h).
  /// A template is translated once per instantiation the program makes
  /// (`kiln::launch(saxpy<float>, ...)`), its pattern not at all.
  void translateRawKernel(const FunctionDecl *fd) {
    if (fd->isDependentContext())
      return;
    std::string name = "kiln_" + stem_ + "_" + hash_ + "_" + functionName(fd) + "_raw" + std::to_string(fnCounter_++);
    RawKernelInfo info;
    if (!emitRawKernel(result_.module.get(), name, *fd, ctxAST_, [&](SourceLocation at, const std::string &msg) {
          error(at, msg);
        }, info))
      return;
    PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(fd->getLocation()));
    RawKernelDecl d;
    d.symbol = name;
    llvm::raw_string_ostream nameOS(d.name);
    fd->getNameForDiagnostic(nameOS, ctxAST_.getPrintingPolicy(), /*Qualified=*/true);
    d.location = std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) + ":" + std::to_string(p.getColumn());
    d.paramBytes = info.paramBytes;
    d.staticSharedBytes = info.staticSharedBytes;
    d.synchronizes = info.synchronizes;
    std::string accessor = "__kiln_r_" + hash_ + "_" + std::to_string(accessorCounter_++);
    d.accessor = "const ::kiln::detail::raw_kernel &" + accessor + "() noexcept";
    prologue_ += d.accessor + ";\n";
    rawAccessors_[fd->getCanonicalDecl()] = accessor;
    result_.rawKernels.push_back(std::move(d));
  }

  /// `kiln::launch(f, ...)` of a kernel translated here launches kilnc's
  /// kernel: `f` becomes `typed_raw_kernel<decltype(f)>(descriptor)`.
  void rewriteRawLaunches() {
    for (const RawLaunchSite &site : findRawLaunches(ctxAST_)) {
      auto it = rawAccessors_.find(site.kernel->getCanonicalDecl());
      if (it == rawAccessors_.end()) {
        if (hasAnnotation(site.kernel->getMostRecentDecl(), "kiln.rawkernel") && !site.kernel->hasBody())
          error(site.ref->getLocation(), "KILN_RAWKERNEL function '" + site.kernel->getNameAsString() +
                                             "' is defined in another file; kilnc compiles a raw kernel in the "
                                             "file that defines it, so launch it from there");
        continue;
      }
      if (fileRange(site.kernelArg->getSourceRange()).isInvalid()) {
        error(site.kernelArg->getBeginLoc(), "a raw kernel launched inside a macro cannot be rewritten by kilnc; "
                                             "expand the macro");
        continue;
      }
      std::string ref = Lexer::getSourceText(fileRange(site.ref->getSourceRange()), sm_, ctxAST_.getLangOpts()).str();
      replaceKeepingLines(site.kernelArg->getSourceRange(), "::kiln::detail::typed_raw_kernel<decltype(" + ref +
                                                                ")>(::" + it->second + "())");
    }
  }

  /// kiln::raw_module::from_source with a string literal: compiled here,
  /// the call rewritten to make its module of the image (RawModuleLiteral.h).
  void rewriteRawModules() {
    RawModuleContext ctx{ctxAST_, diags_,
                         [&](const CharSourceRange &r, const std::string &text) {
                           unsigned l0 = sm_.getSpellingLineNumber(r.getBegin());
                           unsigned l1 = sm_.getSpellingLineNumber(r.getEnd());
                           rewriter_.ReplaceText(r, text + std::string(l1 - l0, '\n'));
                         },
                         [&] { return "__kiln_m_" + hash_ + "_" + std::to_string(accessorCounter_++); }};
    compileRawModuleLiterals(rawModuleOptions_, ctx, result_.rawModules, prologue_);
  }

  std::string functionName(const FunctionDecl *fd) {
    std::string n = fd->getNameAsString();
    if (isa<CXXMethodDecl>(fd) && cast<CXXMethodDecl>(fd)->getParent()->isLambda()) n = "lambda";
    return sanitize(n.empty() ? "fn" : n);
  }

  /// The characters of `range` in the main file: the tokens themselves,
  /// also inside one macro argument (`assert(kiln::all(x > 0))`), or the
  /// whole macro call when the range is one; invalid when it spans parts of
  /// macro expansions.
  CharSourceRange fileRange(SourceRange range) {
    return Lexer::makeFileCharRange(CharSourceRange::getTokenRange(range), sm_, ctxAST_.getLangOpts());
  }

  /// Source text of `e` with the rewrites made so far. A variable is the
  /// same at every use: its original text (a shared leaf's first use may lie
  /// in text another group already replaced).
  std::string textOf(const Expr *e) {
    // A local variable by its name: an implicit capture's DeclRefExpr (a
    // lambda's `[=]` operand of kiln::elementwise) lies at the `=`.
    if (const auto *ref = dyn_cast<DeclRefExpr>(e))
      if (const auto *vd = dyn_cast<VarDecl>(ref->getDecl()); vd && vd->isLocalVarDeclOrParm() && !ref->hasQualifier())
        return vd->getNameAsString();
    CharSourceRange r = fileRange(e->getSourceRange());
    if (isa<DeclRefExpr>(e))
      return Lexer::getSourceText(r, sm_, ctxAST_.getLangOpts()).str();
    return rewriter_.getRewrittenText(r);
  }

  /// Replaces `range` by `text`, padding with newlines so that the lines
  /// after it keep their numbers (the #line at the top then holds).
  void replaceKeepingLines(SourceRange range, const std::string &text) {
    CharSourceRange r = fileRange(range);
    unsigned l0 = sm_.getSpellingLineNumber(r.getBegin());
    unsigned l1 = sm_.getSpellingLineNumber(r.getEnd());
    rewriter_.ReplaceText(r, text + std::string(l1 - l0, '\n'));
  }

  struct GroupResult {
    std::shared_ptr<ExprTree> tree; ///< owns the group's nodes
    std::unique_ptr<FusedGroup> group;
    std::string kernel;
    unsigned statements = 1; ///< statements fused into it (inlined locals' included)
    std::vector<StencilVariant>
        stencilVariants;             ///< a stencil group's raw kernels
    StencilFallback stencilFallback; ///< and its unfused form
  };

  /// How many statements a group's operations come from: its root's, and
  /// one for each inlined local whose initializer it computes.
  static unsigned statementsOf(const FusedGroup &g, const llvm::DenseSet<const Expr *> &inits) {
    llvm::DenseSet<const Expr *> found;
    llvm::SmallVector<const Node *, 16> work{g.rootNode};
    llvm::DenseSet<const Node *> visited;
    while (!work.empty()) {
      const Node *n = work.pop_back_val();
      if (!visited.insert(n).second) continue;
      if (inits.count(n->expr)) found.insert(n->expr);
      if (n != g.rootNode && g.cuts.count(n)) continue; // another group's
      work.append(n->operands.begin(), n->operands.end());
    }
    return found.size() + (inits.count(g.root) ? 0 : 1);
  }

  /// Removes the kernel functions of a group built before a retry.
  void eraseKernels(const GroupResult &r) {
    auto erase = [&](const std::string &symbol) {
      mlir::SymbolTable::lookupSymbolIn(result_.module.get(), symbol)->erase();
    };
    if (r.stencilVariants.empty()) {
      erase(r.kernel);
      return;
    }
    for (const StencilVariant &v : r.stencilVariants)
      erase(v.symbol);
    for (const StencilPart *p :
         {&r.stencilFallback.producer, &r.stencilFallback.consumer})
      if (!p->name.empty())
        erase(p->name);
  }

  /// The unfused form of stencil group `g` (`<name>_p` and `<name>_c`, the
  /// producer's and the consumer's elementwise kernels), which the runtime
  /// runs where none of the stencil kernels applies.
  bool emitStencilFallback(const std::string &name, const FusedGroup &g,
                           const NodeErrorFn &onError, StencilFallback &fb) {
    StencilParts parts = stencilParts(g);
    auto fill = [&](const std::unique_ptr<FusedGroup> &part,
                    const std::string &kernel, StencilPart &out) {
      if (!part)
        return true;
      if (!emitElementwiseKernel(result_.module.get(), kernel, *part, sm_,
                                 onError))
        return false;
      out.name = kernel;
      out.inputs = part->inputTypes;
      out.scalars = part->scalarTypes;
      out.output = part->rootNode->type;
      for (const Node *n : part->inputs)
        out.inputMap.push_back(
            n == g.stencil ? -1 : static_cast<int>(g.inputIndex.lookup(n)));
      for (const Node *n : part->scalars)
        out.scalarMap.push_back(static_cast<int>(g.scalarIndex.lookup(n)));
      return true;
    };
    if (!fill(parts.producer, name + "_p", fb.producer) ||
        !fill(parts.consumer, name + "_c", fb.consumer))
      return false;
    if (!parts.producer) // the image is one of the group's inputs
      fb.producer.inputMap = {
          static_cast<int>(g.inputIndex.lookup(g.stencil->operands[0]))};
    fb.correlate = g.stencil->correlate;
    fb.boundary = static_cast<int>(g.stencil->boundary);
    const Node *fillNode = g.stencil->operands[2];
    if (fillNode->kind == Node::Kind::Scalar) {
      fb.fillScalar = static_cast<int>(g.scalarIndex.lookup(fillNode));
    } else {
      fb.fillRe = fillNode->constant.real(); // an integer constant's too
      fb.fillIm = fillNode->constant.imag();
    }
    return true;
  }

  /// Builds the groups of one (non-dependent) function and their kernels.
  /// Returns false on error. A plain function whose chains of statements
  /// make a tree too deep to fuse is built again without chains.
  bool buildGroups(const FunctionDecl *fd, bool fuse, const std::string &kernelPrefix,
                   std::vector<GroupResult> &out, BodyAnalysis &analysis, bool chains = true) {
    analysis = analyzeBody(fd, fuse, chains, sm_, ctxAST_);
    for (const auto &[at, var, what] : analysis.constWrites)
      error(at->getBeginLoc(), "'" + var->getNameAsString() + "' is a const kiln::array; code kilnc compiles does not "
                               "write into it (" + what + "): declare it without const (an array is a handle, so a "
                               "non-const copy writes into the same data)");
    if (!analysis.constWrites.empty())
      return false;
    TreeBuilder tb(ctxAST_, &analysis.inlinedLocals);
    RankInference ranks(ctxAST_, fd);
    unsigned k = 0;
    for (const Expr *root : analysis.roots) {
      if ((root->getBeginLoc().isMacroID() && sm_.isMacroBodyExpansion(root->getBeginLoc())) ||
          fileRange(root->getSourceRange()).isInvalid()) {
        if (fuse) error(root->getBeginLoc(), "array expressions inside macros cannot be fused; expand the macro");
        continue; // outside KILN_FUSE the eager runtime computes it
      }
      std::shared_ptr<ExprTree> tree = tb.build(root);
      if (!tree && tb.failure() == TreeBuilder::Failure::TooDeep && !fuse && !analysis.inlinedLocals.empty()) {
        for (const GroupResult &r : out)
          eraseKernels(r);
        out.clear();
        return buildGroups(fd, fuse, kernelPrefix, out, analysis, /*chains=*/false);
      }
      if (!tree && tb.failure() == TreeBuilder::Failure::TooDeep) {
        if (!fuse) continue; // the eager runtime computes it
        error(root->getBeginLoc(), "this array expression nests operations more than " +
                                       std::to_string(TreeBuilder::MaxDepth) +
                                       " deep, more than kilnc fuses into one kernel; split it into "
                                       "several statements");
        return false;
      }
      if (!tree && tb.failure() == TreeBuilder::Failure::Diagnostic) {
        error(tb.failureLocation(), tb.failureMessage());
        return false;
      }
      if (!tree) {
        error(root->getBeginLoc(), "this array expression has an operand kilnc cannot pass to a kernel "
                                   "(neither a kiln::array nor an arithmetic or complex scalar)");
        return false;
      }
      if (!checkReductions(*tree, ranks))
        return false;
      if (!emitElementFunctions(*tree))
        return false;
      // A group whose reductions fusion folds away (`isinf(all(x))`) or
      // leaves in no form the variant generators take (a reduction of a
      // folded constant, `sum(isinf(u8) / isinf(u8))`) gives its reductions
      // groups of their own, then their operands too, and the tree is
      // partitioned again.
      llvm::DenseSet<const Node *> ownGroup, ownOperand;
      for (bool again = true; again;) {
        again = false;
        unsigned first = k;
        std::size_t firstOut = out.size();
        for (std::unique_ptr<FusedGroup> &g : frontend::partition(*tree, ownGroup, ownOperand)) {
          if (g->inputs.empty() && g->keptInputs.empty()) continue;
          std::string name = kernelPrefix + "_" + std::to_string(k++);
          auto onError = [&](const Node &n, const std::string &msg) { error(n.expr->getBeginLoc(), msg); };
          std::vector<StencilVariant> variants;
          StencilFallback fallback;
          bool ok =
              g->stencil ? emitStencilKernels(result_.module.get(), name, *g,
                                              sm_, onError, variants) &&
                               emitStencilFallback(name, *g, onError, fallback)
              : g->isReduction ? emitReductionKernel(result_.module.get(), name,
                                                     *g, sm_, onError)
                               : emitElementwiseKernel(result_.module.get(),
                                                       name, *g, sm_, onError);
          if (!ok) return false;
          // Reductions first get groups of their own, then operands of
          // their own; a group that still fails is the pipeline's to report.
          auto widen = [&](llvm::DenseSet<const Node *> &set) {
            bool grew = false;
            for (const Node *r : g->reductions)
              grew |= set.insert(r).second;
            return grew;
          };
          if (g->isReduction && !reductionSurvivesFusion(result_.module.get(), name) &&
              (widen(ownGroup) || widen(ownOperand))) {
            for (size_t i = firstOut; i < out.size(); ++i)
              eraseKernels(out[i]);
            mlir::SymbolTable::lookupSymbolIn(result_.module.get(), name)
                ->erase(); // this group's
            out.resize(firstOut);
            k = first;
            again = true;
            break;
          }
          unsigned statements = statementsOf(*g, analysis.inlinedInits);
          out.push_back({tree, std::move(g), name, statements,
                         std::move(variants), std::move(fallback)});
        }
      }
    }
    return true;
  }

  /// The element function of every kiln::elementwise lambda in `tree`, one
  /// per call operator and operand types (RawKernelGen.h).
  bool emitElementFunctions(ExprTree &tree) {
    for (const auto &node : tree.nodes) {
      Node &n = *node;
      if (n.kind == Node::Kind::Reduce && n.reduce == ReduceKind::Custom && n.combineSymbol.empty()) {
        // kiln::reduce's combine: (A, A) -> A.
        std::string name = "kiln_" + stem_ + "_" + hash_ + "_combine" + std::to_string(fnCounter_++);
        if (!emitElementFunction(result_.module.get(), name, *n.combineOperator, {}, {n.type, n.type}, n.type,
                                 ctxAST_, [&](SourceLocation at, const std::string &msg) { error(at, msg); }))
          return false;
        n.combineSymbol = name;
        continue;
      }
      if (n.kind != Node::Kind::Op || n.op != OpKind::Lambda || !n.lambdaSymbol.empty())
        continue;
      std::vector<ElementType> types;
      std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(n.callOperator->getCanonicalDecl()));
      for (const Node *o : n.operands) {
        types.push_back(o->type);
        key += "," + std::to_string(static_cast<int>(o->type));
      }
      key += "->" + std::to_string(static_cast<int>(n.type));
      std::string &symbol = elementFunctions_[key];
      if (symbol.empty()) {
        std::string name = "kiln_" + stem_ + "_" + hash_ + "_lambda" + std::to_string(fnCounter_++);
        if (!emitElementFunction(result_.module.get(), name, *n.callOperator, n.captures, types, n.type, ctxAST_,
                                 [&](SourceLocation at, const std::string &msg) { error(at, msg); }))
          return false;
        symbol = name;
      }
      n.lambdaSymbol = symbol;
    }
    return true;
  }

  /// What NumPy would raise for a reduction's constant axes, reported at
  /// compile time: duplicates, several axes for argmax/argmin, and (where
  /// the operand's rank is known) an axis out of range.
  bool checkReductions(const ExprTree &tree, RankInference &ranks) {
    bool ok = true;
    for (const auto &node : tree.nodes) {
      const Node &n = *node;
      if (n.kind != Node::Kind::Reduce || n.axes.kind != AxesSpec::Kind::Constant || !n.axes.expr)
        continue;
      SourceLocation at = n.axes.expr->getBeginLoc();
      const std::vector<long long> &axes = n.axes.constants;
      if ((n.reduce == ReduceKind::ArgMax || n.reduce == ReduceKind::ArgMin) && axes.size() != 1) {
        error(at, std::string(reduceName(n.reduce)) + " takes a single axis or kiln::all, not a list of " +
                      std::to_string(axes.size()) + " axes");
        ok = false;
        continue;
      }
      // kiln::reduce's operand node is its map (a lambda node of the call
      // itself): the rank is the reduced array's.
      const Expr *operand = n.operands[0]->expr;
      if (n.reduce == ReduceKind::Custom)
        if (auto call = classifyReduction(n.expr)) operand = call->operand;
      std::optional<unsigned> rank = ranks.rankOf(operand);
      std::vector<long long> normalized;
      for (long long a : axes) {
        if (rank && (a >= static_cast<long long>(*rank) || a < -static_cast<long long>(*rank))) {
          error(at, "axis " + std::to_string(a) + " is out of bounds for array of dimension " + std::to_string(*rank));
          ok = false;
          break;
        }
        long long v = rank && a < 0 ? a + *rank : a;
        if (std::find(normalized.begin(), normalized.end(), v) != normalized.end() && (rank || a >= 0)) {
          error(at, "duplicate value in 'axis'");
          ok = false;
          break;
        }
        normalized.push_back(v);
      }
    }
    return ok;
  }

  KernelDecl declOf(const GroupResult &r) {
    const FusedGroup &g = *r.group;
    KernelDecl d;
    d.name = r.kernel;
    d.reduction = g.isReduction;
    d.inputs = g.inputTypes;
    d.keptInputs = g.keptInputTypes;
    d.scalars = g.scalarTypes;
    d.outputs = {g.rootNode->type};
    d.keptOutput = g.isReduction && g.keptSpace.count(g.rootNode);
    d.stencilVariants = r.stencilVariants;
    d.stencilFallback = r.stencilFallback;
    if (g.stencil)
      d.keptInputs = {g.taps->type};
    return d;
  }

  static const char *descriptorType(const FusedGroup &g) {
    return g.stencil       ? "::kiln::detail::stencil_kernel"
           : g.isReduction ? "::kiln::detail::reduction_kernel"
                           : "::kiln::detail::fused_kernel";
  }

  /// What a reduction group reduces over, for --fusion-report.
  std::string reducesText(const FusedGroup &g) {
    if (g.stencil) { // the convolution and its boundary
      static const char *const boundaries[] = {"fill", "wrap", "symm"};
      return std::string(g.stencil->correlate ? "correlate2d "
                                              : "convolve2d ") +
             boundaries[static_cast<int>(g.stencil->boundary)];
    }
    if (!g.isReduction) return "";
    std::string s;
    switch (g.axes.kind) {
    case AxesSpec::Kind::All:
      s = "all axes";
      break;
    case AxesSpec::Kind::Constant:
      if (g.axes.constants.size() == 1) {
        s = "axis " + std::to_string(g.axes.constants[0]);
      } else {
        s = "axes {";
        for (size_t i = 0; i < g.axes.constants.size(); ++i)
          s += (i ? "," : "") + std::to_string(g.axes.constants[i]);
        s += "}";
      }
      break;
    case AxesSpec::Kind::RunTime:
      s = "axes " + textOf(g.axes.expr);
      break;
    }
    if (g.keepdims.kind == KeepdimsSpec::Kind::RunTime || g.keepdims.value) s += ", keepdims";
    return s;
  }

  void record(const FunctionDecl *fd, const GroupResult &r) {
    const FusedGroup &g = *r.group;
    FusionRecord rec;
    PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(g.root->getBeginLoc()));
    rec.location = std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) + ":" + std::to_string(p.getColumn());
    rec.function = fd->getQualifiedNameAsString();
    rec.kernel = r.kernel;
    rec.numOps = g.numOps;
    rec.statements = r.statements;
    rec.numInputs = g.inputs.size() + g.keptInputs.size();
    rec.numScalars = g.scalars.size();
    bool keptOut = g.isReduction && g.keptSpace.count(g.rootNode);
    unsigned bytes = keptOut ? 0 : byteSize(g.rootNode->type);
    for (ElementType t : g.inputTypes) bytes += byteSize(t);
    rec.bytesPerElement = bytes;
    if (g.stencil)
      rec.reduces = reducesText(g);
    if (g.isReduction) {
      unsigned kept = keptOut ? byteSize(g.rootNode->type) : 0;
      for (ElementType t : g.keptInputTypes) kept += byteSize(t);
      rec.bytesPerKept = kept;
      rec.reduces = reducesText(g);
    }
    if (r.tree->update && g.root == r.tree->root && !g.isReduction) {
      const Expr *written = r.tree->maskedSubscript ? r.tree->maskedSubscript : r.tree->update;
      rec.writesInto = Lexer::getSourceText(fileRange(written->getSourceRange()), sm_, ctxAST_.getLangOpts()).str();
    }
    result_.report.push_back(rec);
  }

  /// The call that replaces a group's expression. The root of an update in
  /// place (`x += ...`, `x.assign(...)`, elementwise_into) runs its kernel with the
  /// destination as the output; a reduction kernel, which allocates its
  /// result, has it written into the destination after. A destination that
  /// is not a variable (`x.slice(...)`) is evaluated once, as a lambda's
  /// parameter.
  std::string callText(const GroupResult &r, const std::string &outType, const std::string &kernelRef) {
    const Expr *dst = r.tree->update;
    if (!dst || r.group->root != r.tree->root)
      return kernelCallText(*r.group, outType, kernelRef, [&](const Expr *e) { return textOf(e); });
    if (r.tree->mask) {
      // x[m] = ...: fused where x, m and every w of w[m] have m's shape;
      // otherwise the statement as written (NumPy's errors, leading-axis
      // masks).
      std::string shapes = "{::kiln::detail::in(" + textOf(dst) + ")";
      for (const Expr *w : r.tree->maskedBases)
        shapes += ", ::kiln::detail::in(" + textOf(w) + ")";
      return "(::kiln::detail::masked_update_applies(" + textOf(r.tree->mask) + ", " + shapes +
             "}) ? static_cast<void>(" +
             kernelCallIntoText(*r.group, textOf(dst), kernelRef, [&](const Expr *e) { return textOf(e); }) +
             ") : static_cast<void>(" + textOf(r.tree->root) + "))";
    }
    bool named = isa<DeclRefExpr>(dst);
    std::string dstText = named ? textOf(dst) : "__kiln_d";
    TextOf leafText = [&](const Expr *e) { return !named && stripImplicit(e) == dst ? dstText : textOf(e); };
    std::string write =
        r.group->isReduction || r.group->stencil
            ? "::kiln::detail::write_update(" + dstText + ", " +
                  kernelCallText(*r.group, outType, kernelRef, leafText) + ")"
            : kernelCallIntoText(*r.group, dstText, kernelRef, leafText,
                                 r.tree->assignedValue != nullptr);
    if (!named)
      write = "[&](const auto &__kiln_d) -> decltype(auto) { return " + write + "; }(" + textOf(dst) + ")";
    return r.tree->updateIsVoid ? "static_cast<void>(" + write + ")" : write;
  }

  void translateFunction(const FunctionDecl *fd, bool fuse) {
    std::string prefix = "kiln_" + stem_ + "_" + hash_ + "_" + functionName(fd) + "_" + std::to_string(fnCounter_++);
    std::vector<GroupResult> groups;
    BodyAnalysis analysis;
    if (!buildGroups(fd, fuse, prefix, groups, analysis)) return;
    for (auto &r : groups) {
      std::string accessor = "__kiln_k_" + hash_ + "_" + std::to_string(accessorCounter_++);
      KernelDecl d = declOf(r);
      d.accessor = std::string("const ") + descriptorType(*r.group) + " &" + accessor + "() noexcept";
      prologue_ += d.accessor + ";\n";
      replaceKeepingLines(r.group->root->getSourceRange(),
                          callText(r, cxxSpelling(r.group->rootNode->type), "::" + accessor + "()"));
      record(fd, r);
      result_.kernels.push_back(std::move(d));
    }
    removeDecls(analysis);
  }

  void removeDecls(const BodyAnalysis &analysis) {
    for (const DeclStmt *ds : analysis.removedDecls) replaceKeepingLines(ds->getSourceRange(), "");
  }

  void translateTemplate(const FunctionDecl *pattern, const std::vector<const FunctionDecl *> &insts) {
    const FunctionTemplateDecl *ftd = pattern->getDescribedFunctionTemplate();
    bool fuse = hasAnnotation(pattern, "kiln.fuse");
    if (!ftd) return;
    // Template parameter names, used to select the kernel in the rewritten body.
    std::vector<std::string> params;
    for (const NamedDecl *p : *ftd->getTemplateParameters()) {
      const auto *tp = dyn_cast<TemplateTypeParmDecl>(p);
      if (!tp || tp->isParameterPack() || p->getName().empty()) {
        if (fuse)
          error(p->getLocation(), "kilnc supports KILN_FUSE templates whose parameters are named types; "
                                  "this parameter is not");
        return;
      }
      params.push_back(p->getNameAsString());
    }
    if (fuse && !checkFuseBody(insts.front(), diags_)) return;

    std::string prefix = "kiln_" + stem_ + "_" + hash_ + "_" + functionName(pattern) + "_" + std::to_string(fnCounter_++);
    std::vector<std::vector<GroupResult>> perInst;
    BodyAnalysis analysis;
    for (size_t i = 0; i < insts.size(); ++i) {
      std::vector<GroupResult> groups;
      if (!buildGroups(insts[i], fuse, prefix + "_i" + std::to_string(i), groups, analysis)) return;
      if (i && groups.size() != perInst[0].size()) {
        error(insts[i]->getPointOfInstantiation(),
              "this instantiation fuses into a different number of kernels than the first; kilnc cannot "
              "rewrite the template once for both");
        return;
      }
      perInst.push_back(std::move(groups));
    }
    if (perInst.empty()) return;
    PrintingPolicy pp(ctxAST_.getLangOpts());
    pp.FullyQualifiedName = true;
    pp.SuppressScope = false;
    std::string argList = llvm::join(params, ", ");
    for (size_t j = 0; j < perInst[0].size(); ++j) {
      std::string sel = "__kiln_t_" + hash_ + "_" + std::to_string(accessorCounter_++);
      prologue_ += "template <class...> struct " + sel + ";\n";
      for (size_t i = 0; i < insts.size(); ++i) {
        const TemplateArgumentList *args = insts[i]->getTemplateSpecializationArgs();
        std::vector<std::string> argTexts;
        for (const TemplateArgument &ta : args->asArray()) argTexts.push_back(ta.getAsType().getCanonicalType().getAsString(pp));
        std::string spec = sel + "<" + llvm::join(argTexts, ", ") + ">";
        const GroupResult &r = perInst[i][j];
        prologue_ += "template <> struct " + spec + " { using out = " + cxxSpelling(r.group->rootNode->type) +
                     "; static const " + descriptorType(*r.group) + " &get() noexcept; };\n";
        KernelDecl d = declOf(r);
        d.accessor = std::string("const ") + descriptorType(*r.group) + " &" + spec + "::get() noexcept";
        record(insts[i], r);
        result_.kernels.push_back(std::move(d));
      }
      const GroupResult &r0 = perInst[0][j];
      std::string ref = "::" + sel + "<" + argList + ">";
      replaceKeepingLines(r0.group->root->getSourceRange(),
                          callText(r0, "typename " + ref + "::out", ref + "::get()"));
    }
    removeDecls(analysis);
  }

  void finishRewrite() {
    FileID main = sm_.getMainFileID();
    std::string head =
        "// Rewritten by kilnc from " + fileName_ +
        ": fused array expressions call kernels.\n"
        "#include <kiln/kiln.hpp>\n#include <kiln/detail/fused.hpp>\n#include "
        "<kiln/detail/reduction.hpp>\n"
        "#include <kiln/detail/raw_kernel.hpp>\n#include "
        "<kiln/detail/stencil.hpp>\n" +
        prologue_ + "#line 1 \"" + fileName_ + "\"\n";
    if (!result_.kernels.empty() || !result_.rawKernels.empty() || !result_.rawModules.empty())
      rewriter_.InsertTextBefore(sm_.getLocForStartOfFile(main), head);
    else rewriter_.InsertTextBefore(sm_.getLocForStartOfFile(main), "#line 1 \"" + fileName_ + "\"\n");
    const llvm::RewriteBuffer *buf = rewriter_.getRewriteBufferFor(main);
    if (buf) result_.rewrittenSource = std::string(buf->begin(), buf->end());
    else result_.rewrittenSource = sm_.getBufferData(main).str();
  }

  ASTContext &ctxAST_;
  SourceManager &sm_;
  DiagnosticsEngine &diags_;
  FrontendResult &result_;
  Rewriter rewriter_;
  unsigned errorId_;
  std::string hash_, stem_, fileName_, prologue_;
  RawModuleOptions rawModuleOptions_;
  unsigned fnCounter_ = 0, accessorCounter_ = 0;
  llvm::DenseMap<const FunctionDecl *, std::string> rawAccessors_; ///< canonical decl -> accessor
  std::map<std::string, std::string> elementFunctions_; ///< lambda and operand types -> element function
};

} // namespace

bool translate(const FrontendOptions &opts, mlir::MLIRContext &ctx, FrontendResult &result) {
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  if (opts.contents) {
    buffer = llvm::MemoryBuffer::getMemBuffer(*opts.contents, opts.file);
  } else {
    auto read = llvm::MemoryBuffer::getFile(opts.file);
    if (!read) {
      llvm::errs() << "kilnc: error: cannot read '" << opts.file << "': " << read.getError().message() << "\n";
      return false;
    }
    buffer = std::move(*read);
  }
  std::vector<std::string> args = {"-xc++"};
  bool hasStd = false;
  for (const std::string &a : opts.compileArgs) hasStd |= llvm::StringRef(a).starts_with("-std=");
  if (!hasStd) args.push_back("-std=c++20");
  if (!opts.resourceDir.empty()) args.insert(args.end(), {"-resource-dir", opts.resourceDir});
  if (!opts.kilnIncludeDir.empty()) args.push_back("-I" + opts.kilnIncludeDir);
  args.insert(args.end(), opts.compileArgs.begin(), opts.compileArgs.end());
  args.push_back("-D__KILNC__=1");
  // kilnc parses on a large stack (driver::CompileStackSize); clang's warning
  // assumes its own 8 MiB.
  args.push_back("-Wno-stack-exhausted");

  DiagnosticOptions diagOpts;
  diagOpts.ShowColors = false;
  TextDiagnosticPrinter printer(llvm::errs(), diagOpts);
  std::unique_ptr<ASTUnit> ast = tooling::buildASTFromCodeWithArgs(
      buffer->getBuffer(), args, opts.file, "kilnc", std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(), tooling::FileContentMappings(), &printer);
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) return false;

  // Kiln's own diagnostics go through the same printer, with source lines.
  ast->getDiagnostics().setClient(&printer, /*ShouldOwnClient=*/false);
  printer.BeginSourceFile(ast->getLangOpts(), &ast->getPreprocessor());
  Translator t(*ast, opts, ctx, result);
  bool ok = t.run();
  printer.EndSourceFile();
  return ok;
}

} // namespace kiln::frontend
