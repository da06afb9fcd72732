//===- Frontend/RawKernelLaunch.cpp - kiln::launch call sites -------------===//
#include "Frontend/RawKernelLaunch.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

namespace kiln::frontend {
namespace {

namespace cl = clang;

bool isKilnLaunch(const cl::FunctionDecl *f) {
  if (!f || f->getNameAsString() != "launch")
    return false;
  const auto *ns = llvm::dyn_cast<cl::NamespaceDecl>(f->getDeclContext()->getEnclosingNamespaceContext());
  return ns && ns->getName() == "kiln" && llvm::isa<cl::TranslationUnitDecl>(ns->getDeclContext());
}

class LaunchFinder : public cl::RecursiveASTVisitor<LaunchFinder> {
public:
  explicit LaunchFinder(cl::SourceManager &sm) : sm_(sm) {}
  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitCallExpr(cl::CallExpr *call) {
    if (call->getNumArgs() == 0 || !isKilnLaunch(call->getDirectCallee()) ||
        !sm_.isInMainFile(sm_.getExpansionLoc(call->getBeginLoc())))
      return true;
    const cl::Expr *arg = call->getArg(0);
    const cl::Expr *e = arg->IgnoreParenImpCasts();
    if (const auto *addr = llvm::dyn_cast<cl::UnaryOperator>(e); addr && addr->getOpcode() == cl::UO_AddrOf)
      e = addr->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *ref = llvm::dyn_cast<cl::DeclRefExpr>(e))
      if (const auto *fd = llvm::dyn_cast<cl::FunctionDecl>(ref->getDecl()))
        sites.push_back({arg, ref, fd});
    return true;
  }

  std::vector<RawLaunchSite> sites;

private:
  cl::SourceManager &sm_;
};

} // namespace

std::vector<RawLaunchSite> findRawLaunches(clang::ASTContext &ast) {
  LaunchFinder finder(ast.getSourceManager());
  finder.TraverseDecl(ast.getTranslationUnitDecl());
  return std::move(finder.sites);
}

} // namespace kiln::frontend
