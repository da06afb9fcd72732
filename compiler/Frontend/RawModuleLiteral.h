//===- Frontend/RawModuleLiteral.h - CUDA source literals at build time -*- C++ -*-===//
//
// `kiln::raw_module::from_source(R"(...)", {options}, {name expressions})`
// whose source is a string literal is compiled by kilnc, with NVRTC (opened
// with dlopen, as the runtime does), when the program is built: NVRTC's
// errors and warnings become kilnc diagnostics at their line and column
// inside the literal, and the call becomes
// `::kiln::detail::raw_module_from_image(<image>())`, the image (PTX, the
// lowered names of the name expressions, cubins for --cuda-arch added by the
// driver, the host code's table) being emitted in the kernel table
// (Rewrite/KernelTable.cpp). The same source is compiled for the host too
// (RawModuleHost.h): its problems there are warnings, and its kernels then
// run only on a GPU. Without NVRTC or with --cuda-host-only the image has
// host code and the source, which NVRTC compiles at the first GPU launch.
// What is not a literal is left to NVRTC at run time (GPU only).
// docs/frontend.md, "Raw CUDA modules".
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_RAWMODULELITERAL_H
#define KILN_FRONTEND_RAWMODULELITERAL_H

#include "Frontend/RawModuleHost.h"

#include <functional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CharSourceRange;
class DiagnosticsEngine;
} // namespace clang

namespace kiln::frontend {

/// One from_source call compiled by kilnc: its module's image
/// (kiln::detail::raw_module_image).
struct RawModuleDecl {
  std::string file;     ///< where the call is (presumed file name)
  unsigned line = 0;    ///< its line
  std::string target;   ///< what NVRTC compiled for: "compute_80", or the user's -arch value
  std::string ptx;      ///< NVRTC's PTX
  /// The GPU code besides the PTX: NVRTC's cubin when the user's -arch is a
  /// real architecture (sm_XX); else cubins for --cuda-arch bundled with the
  /// PTX by the driver (fatbinary); empty: PTX only.
  std::string fatbin;
  std::vector<std::string> nameExpressions; ///< as written in the call
  std::vector<std::string> loweredNames;    ///< NVRTC's (mangled) names of them
  /// The host code (its translation unit is compiled by the driver, which
  /// empties it and sets `unsupported` when the host compiler fails).
  RawHostModule host;
  /// No GPU code was made at build time: the image carries the source and
  /// the options, for NVRTC at the first GPU launch.
  bool deferred = false;
  std::string source;
  std::vector<std::string> options;
  /// Declarator of the C++ accessor that returns the image, e.g.
  /// "const ::kiln::detail::raw_module_image &__kiln_m_1a2b_0() noexcept".
  std::string accessor;
};

struct RawModuleOptions {
  /// false: no GPU code at build time (--cuda-host-only): NVRTC compiles
  /// the source at the first GPU launch.
  bool enabled = true;
  /// Compile the sources for the host too (RawModuleHost.h), with these.
  bool host = true;
  std::string resourceDir;
  std::string kilnIncludeDir;
  std::vector<std::string> hostSystemIncludes;
  /// The libnvrtc to open first (the driver's: the CUDA toolkit's), then
  /// libnvrtc.so.13, libnvrtc.so, libnvrtc.so.12 on the library path and
  /// under $CUDA_HOME/lib64 and /usr/local/cuda/lib64; $KILN_NVRTC, when
  /// set, is the only one tried.
  std::string nvrtcLibrary;
};

/// What the frontend lends: the AST, its diagnostics, and its rewriter.
struct RawModuleContext {
  clang::ASTContext &ast;
  clang::DiagnosticsEngine &diags;
  /// Replaces a range of the main file, keeping the lines after it in place.
  std::function<void(const clang::CharSourceRange &, const std::string &)> replace;
  /// A fresh name for an image's accessor function.
  std::function<std::string()> newAccessor;
};

/// Compiles every from_source call of the main file whose source is a
/// string literal (plain or raw, concatenated, or a const variable
/// initialized with one) and whose options and name expressions are
/// braced lists of string literals (or left out), reports NVRTC's
/// diagnostics at their place in the literal, and rewrites each call that
/// compiled. Appends each image's accessor declaration to `prologue` and its
/// description to `modules`. Returns false when there were errors.
bool compileRawModuleLiterals(const RawModuleOptions &opts, RawModuleContext &ctx, std::vector<RawModuleDecl> &modules,
                              std::string &prologue);

} // namespace kiln::frontend

#endif
