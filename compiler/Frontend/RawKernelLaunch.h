//===- Frontend/RawKernelLaunch.h - kiln::launch call sites -----*- C++ -*-===//
//
// Where the program launches a raw kernel: `kiln::launch(saxpy, grid, block,
// ...)` names the C++ function, which kilnc replaces by the kernel it
// compiled (a `kiln::detail::typed_raw_kernel` of the function's type over
// its descriptor), so that the launch checks its arguments against the
// kernel's parameters at compile time and runs kilnc's code.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_RAWKERNELLAUNCH_H
#define KILN_FRONTEND_RAWKERNELLAUNCH_H

#include <vector>

namespace clang {
class ASTContext;
class DeclRefExpr;
class Expr;
class FunctionDecl;
} // namespace clang

namespace kiln::frontend {

struct RawLaunchSite {
  const clang::Expr *kernelArg;    ///< the launch's first argument, as written
  const clang::DeclRefExpr *ref;   ///< the function it names
  const clang::FunctionDecl *kernel;
};

/// Every call of kiln::launch in the main file whose first argument names a
/// function (`f` or `&f`), outside templates' dependent code.
std::vector<RawLaunchSite> findRawLaunches(clang::ASTContext &ast);

} // namespace kiln::frontend

#endif
