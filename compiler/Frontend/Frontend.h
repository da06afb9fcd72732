//===- Frontend/Frontend.h - kilnc's clang frontend ------------*- C++ -*-===//
//
// Parses one C++ file with the user's compile flags, finds KILN_FUSE
// functions and array expressions, translates each fused group into a
// `kiln.kernel` function in an MLIR module, and rewrites the source so that
// each group becomes a call into kiln_runtime.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_FRONTEND_H
#define KILN_FRONTEND_FRONTEND_H

#include "Frontend/RawModuleLiteral.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::frontend {

/// Element types as the runtime names them (kiln::dtype's enumerator names).
enum class ElementType { Bool, Int8, UInt8, Int32, Int64, Float32, Float64, Complex64, Complex128 };

/// Text of the kiln::dtype enumerator, e.g. "float32", "bool_".
const char *runtimeDTypeName(ElementType t);

/// What the runtime must know of a reduction kernel's program (filled in
/// from the fused MLIR, pipeline::reductionDescriptor).
struct ReductionDescriptor {
  struct Stage {
    unsigned long long fullInputs = 0; ///< bit i: reads full input i
    unsigned long long shapeInputs = 0; ///< bit i: NumPy's operand is computed from full input i
    unsigned level = 0;
    std::vector<unsigned> componentBytes;
  };
  std::vector<Stage> stages;
  unsigned numLevels = 0;
  unsigned long long mapInputs = 0; ///< full inputs the output map reads
  unsigned long long mapShapeInputs = 0; ///< full inputs NumPy's output-map operands are computed from
  std::string emptyError;           ///< NumPy's message for an empty axis, or ""
  unsigned vectorWidth = 1;
  bool singleAxis = false;          ///< argmax/argmin inside: one axis or all
};

/// One kernel of a stencil group (StencilGen.cpp): a raw kernel for filters
/// of kh x kw, `rows` outputs a thread.
struct StencilVariant {
  std::string symbol;
  unsigned kh = 0, kw = 0, rows = 1;
  std::vector<unsigned> paramBytes; ///< bytes of each parameter value
  /// The GPU-only tiled kernel of the same parameters (empty: none) and its
  /// shared memory.
  std::string tiledSymbol;
  unsigned tiledShared = 0;
};

/// One side of a stencil group's unfused form: an elementwise kernel (name
/// empty: none, the side has no operation) and, for each of its operands,
/// the group's input or scalar it is (-1: the convolution's result).
struct StencilPart {
  std::string name;
  std::vector<ElementType> inputs, scalars;
  ElementType output = ElementType::Float32;
  std::vector<int> inputMap, scalarMap;
};

/// What the runtime runs where no stencil kernel applies (another filter
/// size, operands of other shapes): the producer's kernel, the runtime's
/// convolution, the consumer's kernel. Without a producer, the image is the
/// group's input producer.inputMap[0].
struct StencilFallback {
  StencilPart producer, consumer;
  bool correlate = false;
  int boundary = 0;    ///< kiln::signal::boundary
  int fillScalar = -1; ///< the group's scalar that is the fill value, or -1
  double fillRe = 0, fillIm = 0; ///< else the constant fill value
};

/// One fused kernel: what the rewritten C++ needs to describe it.
struct KernelDecl {
  std::string name;                  ///< MLIR function name = variant stem
  /// The reduction family (kiln::detail::reduction_kernel); else elementwise
  /// (kiln::detail::fused_kernel).
  bool reduction = false;
  std::vector<ElementType> inputs;   ///< array operands (of the full space)
  std::vector<ElementType> keptInputs; ///< reduction kernels: kept-space arrays
  std::vector<ElementType> outputs;  ///< results
  std::vector<ElementType> scalars;  ///< scalar operands, in order
  bool keptOutput = false;           ///< reduction kernels: the result is kept-space
  ReductionDescriptor descriptor;    ///< reduction kernels, after fusion
  /// The stencil family (kiln::detail::stencil_kernel): its raw kernels;
  /// `keptInputs` holds the filter's type.
  std::vector<StencilVariant> stencilVariants;
  StencilFallback stencilFallback;
  bool stencil() const { return !stencilVariants.empty(); }
  /// Declarator of the C++ accessor that returns the kernel's descriptor,
  /// e.g. "const ::kiln::detail::fused_kernel &__kiln_k_1a2b_0() noexcept".
  std::string accessor;
};

/// One KILN_RAWKERNEL function: what the rewritten C++ needs to describe it
/// (kiln::detail::raw_kernel, include/kiln/detail/raw_kernel.hpp).
struct RawKernelDecl {
  std::string symbol;   ///< the MLIR function: PTX entry and host-form stem
  std::string name;     ///< the C++ function, for messages
  std::string location; ///< file:line:col of its name
  std::vector<unsigned> paramBytes; ///< bytes of each parameter value
  std::uint32_t staticSharedBytes = 0;
  bool synchronizes = false;
  /// Declarator of the C++ accessor that returns the descriptor, e.g.
  /// "const ::kiln::detail::raw_kernel &__kiln_r_1a2b_0() noexcept".
  std::string accessor;
};

/// One line of --fusion-report.
struct FusionRecord {
  std::string location;   ///< file:line:col of the fused expression
  std::string function;   ///< enclosing C++ function
  std::string kernel;     ///< kernel name
  unsigned numOps = 0;    ///< elementwise operations fused
  unsigned statements = 1; ///< source statements fused (locals inlined into their consumers)
  unsigned numInputs = 0, numScalars = 0;
  unsigned bytesPerElement = 0; ///< bytes read + written per element (of the full space)
  /// Reduction kernels: what they reduce over ("axis -1", "all axes", ...)
  /// and the bytes read + written per element of the kept space.
  std::string reduces;
  unsigned bytesPerKept = 0;
  /// An update in place (`x += ...`): the destination as written, whose
  /// elements the kernel writes instead of a new array's.
  std::string writesInto;
};

struct FrontendOptions {
  std::string file;                     ///< the source to compile
  /// When set, the source's text: `file` is then only its name and nothing is
  /// read from disk for it (the fuzzer compiles in memory).
  std::optional<std::string> contents;
  std::vector<std::string> compileArgs; ///< flags for clang (-I, -D, -std, ...)
  std::string resourceDir;              ///< clang's resource dir (builtin headers)
  std::string kilnIncludeDir;           ///< where <kiln/kiln.hpp> lives
  /// kiln::raw_module::from_source with a string literal, compiled here
  /// (RawModuleLiteral.h).
  RawModuleOptions rawModules;
};

struct FrontendResult {
  mlir::OwningOpRef<mlir::ModuleOp> module; ///< kiln.kernel functions
  /// The KILN_RAWKERNEL functions translated into `module` (`kiln.raw_kernel`).
  std::vector<RawKernelDecl> rawKernels;
  /// The from_source calls compiled here, rewritten to make their modules of
  /// these images.
  std::vector<RawModuleDecl> rawModules;
  std::string rewrittenSource;              ///< the file, kernels called; #line kept
  std::vector<KernelDecl> kernels;
  std::vector<FusionRecord> report;
};

/// Runs the frontend. Diagnostics (clang-style, file:line:col with source line
/// and caret) go to stderr; returns false when there were errors.
bool translate(const FrontendOptions &opts, mlir::MLIRContext &ctx, FrontendResult &result);

} // namespace kiln::frontend

#endif
