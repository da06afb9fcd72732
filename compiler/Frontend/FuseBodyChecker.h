//===- Frontend/FuseBodyChecker.h - What a KILN_FUSE body may hold -*- C++ -*-===//
//
// Reports, as clang errors at the construct, everything in a KILN_FUSE
// function that kilnc cannot compile into kernels: loops, control flow,
// exceptions, I/O, calls to arbitrary functions, a non-array return type.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_FUSEBODYCHECKER_H
#define KILN_FRONTEND_FUSEBODYCHECKER_H

namespace clang {
class FunctionDecl;
class DiagnosticsEngine;
} // namespace clang

namespace kiln::frontend {

/// Returns false after reporting each unsupported construct of `fd`.
bool checkFuseBody(const clang::FunctionDecl *fd, clang::DiagnosticsEngine &diags);

} // namespace kiln::frontend

#endif
