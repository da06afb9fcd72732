//===- VariantCommon.h - Shared pieces of reduction variants ----*- C++ -*-===//
//
// What every variant of a reduction kernel (docs/kernel-abi.md, "Reduction
// kernels") is built from: its parameters for each operand layout, the
// extents and kept coordinates of the iteration space, accumulator states
// of a level's stages, the workspace of split reductions, and (GPU) the
// shuffles and shared-memory trees that combine states across threads.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Analysis/ReductionProgram.h"
#include "Dialect/Kiln/IR/Combiner.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <vector>

namespace kiln::reduction {

/// How full operands are addressed.
enum class Layout {
  Rows,    ///< [kept, reduced], the reduced dimension contiguous
  Cols,    ///< [outer, reduced, inner], the inner (kept) dimension contiguous
  General, ///< [k0..k3, r0..r3], any strides
};

/// The suffix of a variant's symbols: "_rrows", "_rrowsw", "_rcols", "_rgeneral".
std::string variantSuffix(Layout layout, bool warpRows = false);

unsigned fullRank(Layout l);
unsigned keptRank(Layout l);

/// The parameter types of a variant (the same for its GPU and host forms).
mlir::FunctionType variantSignature(const ReductionProgram &p, Layout layout);

/// A variant's parameters, bound to the values of the function being built.
struct Params {
  llvm::SmallVector<mlir::Value> full, kept; ///< memrefs
  mlir::Value out;
  llvm::SmallVector<mlir::Value> scalars; ///< as stored
  mlir::Value workspace;                  ///< memref<?xi8>
  mlir::Value phase, level, split, flags; ///< index
  mlir::Value first, count;               ///< index: the virtual blocks of this launch
};

/// Binds `args` (the entry block's arguments) as Params; the i32/i64 control
/// parameters are cast to index.
Params bindParams(mlir::OpBuilder &b, mlir::Location loc, const ReductionProgram &p, mlir::ValueRange args);

/// The extents of the iteration space and the kept coordinates of a linear
/// kept index, for one layout.
class Space {
public:
  Space(mlir::OpBuilder &b, mlir::Location loc, Layout layout, const Params &params);
  Layout layout() const { return layout_; }
  mlir::Value keptExtent() const { return nk_; }
  mlir::Value reducedExtent() const { return nr_; }
  /// Cols: the outer and inner extents.
  mlir::Value outer() const { return outer_; }
  mlir::Value inner() const { return inner_; }
  /// Coordinates of linear kept index `k` in kept operands.
  llvm::SmallVector<mlir::Value> keptCoords(mlir::OpBuilder &b, mlir::Location loc, mlir::Value k) const;
  /// General: coordinates of linear reduced index `r` (the last four full dims).
  llvm::SmallVector<mlir::Value> reducedCoords(mlir::OpBuilder &b, mlir::Location loc, mlir::Value r) const;
  /// General, on a GPU: reducedCoords in 32-bit arithmetic where `fits` (the
  /// reduced extent is below 2^31; a uniform branch): a 64-bit division is
  /// some 70 instructions there, and this is one per dimension per element.
  llvm::SmallVector<mlir::Value> reducedCoordsNarrow(mlir::OpBuilder &b, mlir::Location loc, mlir::Value r,
                                                     mlir::Value fits) const;
  /// General: keptCoords likewise.
  llvm::SmallVector<mlir::Value> keptCoordsNarrow(mlir::OpBuilder &b, mlir::Location loc, mlir::Value k,
                                                  mlir::Value fits) const;
  /// General: reducedCoords for a loop's start, safe when an extent is 0
  /// (the loop then runs no element; no division by zero).
  llvm::SmallVector<mlir::Value> startReducedCoords(mlir::OpBuilder &b, mlir::Location loc, mlir::Value r) const;
  /// General: the reduced coordinates after `coords` in row-major order,
  /// an odometer step (selects, no division).
  llvm::SmallVector<mlir::Value> nextReducedCoords(mlir::OpBuilder &b, mlir::Location loc,
                                                   mlir::ArrayRef<mlir::Value> coords) const;

private:
  Layout layout_;
  mlir::Value nk_, nr_, outer_, inner_;
  llvm::SmallVector<mlir::Value> keptSizes_, reducedSizes_;
};

/// Index helpers.
mlir::Value cidx(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value minIdx(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a, mlir::Value c);
/// The end of a full-space output range [rbeg, rend): rend, or under
/// `reduction_output_once` the range cut to reduced index 0.
mlir::Value fullOutputEnd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value flags, mlir::Value rbeg, mlir::Value rend);
mlir::Value ceilDiv(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a, mlir::Value c);
mlir::Value cmpIdx(mlir::OpBuilder &b, mlir::Location loc, mlir::arith::CmpIPredicate pred, mlir::Value a,
                   mlir::Value c);
/// flags & bit != 0
mlir::Value flagSet(mlir::OpBuilder &b, mlir::Location loc, mlir::Value flags, int64_t bit);

/// Runs `then` under `cond` (an scf.if without results).
void ifThen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond, const std::function<void()> &then);

/// One accumulator of a level: stage `stage`'s values, passed through `map`
/// (none: as the stage computes them), folded with `kind`. A stage's own
/// slot folds with its combiner; the two-pass variance of a kept element a
/// group owns folds the values with `sum`, then their squared deviations.
struct Slot {
  unsigned stage;
  Combiner kind; ///< compares with a CombinerKind
  llvm::SmallVector<mlir::Type> types; ///< its state
  std::function<llvm::SmallVector<mlir::Value>(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)> map;
};

/// The states of the slots of one level: slot-major, component-minor,
/// flattened so they can travel as scf.for iteration arguments.
struct LevelStates {
  const ReductionProgram *program = nullptr;
  llvm::SmallVector<Slot> slots;
  llvm::SmallVector<mlir::Value> values;

  /// Identity states of the stages' own slots.
  static LevelStates identity(mlir::OpBuilder &b, mlir::Location loc, const ReductionProgram &p,
                              llvm::ArrayRef<unsigned> stages);
  /// Identity states of `slots`.
  static LevelStates identity(mlir::OpBuilder &b, mlir::Location loc, const ReductionProgram &p,
                              llvm::ArrayRef<Slot> slots);
  /// The same slots with other values (e.g. an scf.for's region arguments).
  LevelStates with(mlir::ValueRange v) const;
  /// The components of slot `i`.
  mlir::ValueRange of(unsigned i) const;
  llvm::SmallVector<mlir::Type> types() const;
  /// The stages of the slots.
  llvm::SmallVector<unsigned> stages() const;
  /// Folds the element at `env` into every slot.
  LevelStates update(mlir::OpBuilder &b, mlir::Location loc, ProgramEvaluator &eval, const PointEnv &env) const;
  /// merge(this, other) for every slot (this holds the earlier elements).
  LevelStates merge(mlir::OpBuilder &b, mlir::Location loc, const LevelStates &other) const;
  /// Selects `other` where `cond` is false (keeps this where true).
  LevelStates select(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond, const LevelStates &other) const;
  /// Merges `lanes` pairwise (a tree in lane order).
  static LevelStates mergeTree(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<LevelStates> lanes);
  /// Folds one vector of elements (lane l at `envs[l]`, consecutive indices)
  /// into the lanes' states: each lane its own element, except welford
  /// slots, which merge the whole vector's moments (computed exactly, two
  /// passes over registers) into lane 0: one division per vector, not per
  /// element.
  static std::vector<LevelStates> updateVector(mlir::OpBuilder &b, mlir::Location loc, ProgramEvaluator &eval,
                                                     llvm::ArrayRef<PointEnv> envs,
                                                     llvm::ArrayRef<LevelStates> lanes);
  /// Folds several elements (at `envs`, in order) into these states: in
  /// turn, except welford slots, which merge the elements' exact moments
  /// (two passes over registers) at once: one division for all of them, and
  /// no chain of dependent updates from one element to the next.
  LevelStates updateSeveral(mlir::OpBuilder &b, mlir::Location loc, ProgramEvaluator &eval,
                            llvm::ArrayRef<PointEnv> envs) const;
};

/// Unrolls `loop` by `factor` (several iterations' loads in flight) and
/// returns the values its results had: those of the remainder loop when the
/// unrolling made one. With `maskedTail` the remainder (fewer than `factor`
/// iterations) is not a loop but `factor - 1` copies of the body, each
/// reading at a valid iteration and kept only where its own is one, so that
/// a thread's few elements (a short column, a short row's tail) are read
/// all at once instead of one latency after the other.
llvm::SmallVector<mlir::Value> unrollLoop(mlir::scf::ForOp loop, unsigned factor, bool maskedTail = false);

/// for (iv = start; iv < end; iv += step), as a loop from 0 over the trip
/// count (so that it unrolls safely when start > end): `body` gets iv and
/// the iteration arguments and returns the yielded values.
mlir::scf::ForOp stridedLoop(mlir::OpBuilder &b, mlir::Location loc, mlir::Value start, mlir::Value end,
                             mlir::Value step, mlir::ValueRange inits,
                             const std::function<llvm::SmallVector<mlir::Value>(mlir::Value, mlir::ValueRange)> &body);

/// The full inputs any of `stages` reads (as a bit mask), and the full
/// inputs of a mask as a list.
std::uint64_t inputsOf(const ReductionProgram &p, llvm::ArrayRef<unsigned> stages);
llvm::SmallVector<unsigned> maskBits(std::uint64_t mask, unsigned n);

/// The workspace of split launches: for every stage and state component, an
/// array of partial states [kept * split] and one of results [kept], each
/// 16-byte aligned, in stage order (docs/kernel-abi.md).
class Workspace {
public:
  Workspace(mlir::OpBuilder &b, mlir::Location loc, const ReductionProgram &p, mlir::Value ws, mlir::Value nk,
            mlir::Value split);
  mlir::Value loadPartial(mlir::OpBuilder &b, mlir::Location loc, unsigned stage, unsigned comp,
                          mlir::Value slot) const;
  void storePartial(mlir::OpBuilder &b, mlir::Location loc, unsigned stage, unsigned comp, mlir::Value slot,
                    mlir::Value v) const;
  mlir::Value loadResult(mlir::OpBuilder &b, mlir::Location loc, unsigned stage, unsigned comp, mlir::Value k) const;
  void storeResult(mlir::OpBuilder &b, mlir::Location loc, unsigned stage, unsigned comp, mlir::Value k,
                   mlir::Value v) const;
  /// Loads the results of every stage below `level` at `k` into `env`.
  void loadResults(mlir::OpBuilder &b, mlir::Location loc, unsigned level, mlir::Value k, PointEnv &env) const;

private:
  mlir::Value view(mlir::OpBuilder &b, mlir::Location loc, unsigned stage, unsigned comp, bool result) const;
  const ReductionProgram &p_;
  mlir::Value ws_;
  /// Per (stage, component): byte offsets of the partial and result arrays
  /// and their lengths.
  llvm::SmallVector<llvm::SmallVector<std::pair<mlir::Value, mlir::Value>>> offsets_;
  mlir::Value partialLength_, resultLength_;
};

/// A state component as it lives in memory (i1 as i8) and back.
mlir::Value toMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
mlir::Value fromMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type t);
mlir::Type memoryType(mlir::Type t);

/// `kept` with each full input `inputs[j]` bound to `elems[j][lane]` (as the
/// vector loads of a variant give them) at reduced index `r`.
PointEnv laneEnv(const ReductionProgram &p, const PointEnv &kept, llvm::ArrayRef<unsigned> inputs,
                 llvm::ArrayRef<llvm::SmallVector<mlir::Value>> elems, unsigned lane, mlir::Value r);

/// Puts the stage results of `states` (whose slots are the stages' own)
/// into `env` (kept values of the point).
void bindResults(const LevelStates &states, PointEnv &env);

/// Whole kept elements a thread group owns: every stage of `level` folded
/// over the group's elements by `accumulate` and merged by `reduce`, welford
/// stages as two passes (the sum of the values, then of their squared
/// deviations from the mean: exact, and no division per element). Binds the
/// results into `env`. `count` is the number of elements (index).
/// `reduce` gets the pass (0 or 1) too.
void foldLevel(mlir::OpBuilder &b, mlir::Location loc, const ReductionProgram &p, unsigned level,
               mlir::Value count, PointEnv &env,
               const std::function<LevelStates(const LevelStates &)> &accumulate,
               const std::function<LevelStates(const LevelStates &, unsigned pass)> &reduce);

//===----------------------------------------------------------------------===//
// GPU
//===----------------------------------------------------------------------===//

/// gpu.shuffle of any state component (split into 32-bit words).
mlir::Value shuffle(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Value offset,
                    mlir::gpu::ShuffleMode mode);

/// Merges the states of the 32 lanes of each warp into lane 0 (a tree:
/// lane i takes lane i + 16, then i + 8, ...; deterministic).
/// Every state shuffled across the warp (`offset`: i32, per lane for IDX).
LevelStates shuffleStates(mlir::OpBuilder &b, mlir::Location loc, const LevelStates &s, mlir::Value offset,
                          mlir::gpu::ShuffleMode mode);
LevelStates warpReduce(mlir::OpBuilder &b, mlir::Location loc, const LevelStates &s, unsigned lanes = 32);

/// Lane 0's states in every lane.
LevelStates broadcastLane0(mlir::OpBuilder &b, mlir::Location loc, const LevelStates &s);

/// Shared-memory buffers of one block reduce: per state component, 32 partial
/// slots and one result slot (workgroup attributions of the gpu.func).
struct BlockReduceBuffers {
  llvm::SmallVector<mlir::Value> partial, result;
};

/// The workgroup memref types BlockReduceBuffers need for states of
/// `types` (flattened components).
llvm::SmallVector<mlir::Type> blockReduceBufferTypes(mlir::MLIRContext *ctx, llvm::ArrayRef<mlir::Type> types);

/// The BlockReduceBuffers of `n` components among `func`'s workgroup
/// attributions, laid out by blockReduceBufferTypes from `next` (advanced
/// past them).
BlockReduceBuffers takeBlockReduceBuffers(mlir::gpu::GPUFuncOp func, unsigned &next, unsigned n);

/// Runs `body(u)` for the virtual units [first, first + count) that unit
/// `id` of `stride` takes: first + id, stepping by stride.
void forEachVirtualUnit(mlir::OpBuilder &b, mlir::Location loc, const Params &params, mlir::Value id,
                        mlir::Value stride, const std::function<void(mlir::Value)> &body);

/// Runs `body(vb)` for this GPU block's virtual blocks: first + blockIdx.x,
/// stepping by gridDim.x, below first + count.
void forEachVirtualBlock(mlir::OpBuilder &b, mlir::Location loc, const Params &params,
                         const std::function<void(mlir::Value)> &body);

/// The flattened state types of the stages of `level`, and of each pass
/// foldLevel makes over them (one, or two with a welford stage).
llvm::SmallVector<mlir::Type> stageStateTypes(const ReductionProgram &p, unsigned level);
llvm::SmallVector<llvm::SmallVector<mlir::Type>> foldPassTypes(const ReductionProgram &p, unsigned level);

/// Merges the states of all threads of a block of `warps` warps: warp trees,
/// then warp 0 over the warps' results; every thread gets the result.
/// `lane`/`warp` are the thread's lane and warp (index).
LevelStates blockReduce(mlir::OpBuilder &b, mlir::Location loc, const LevelStates &s, unsigned warps,
                        const BlockReduceBuffers &buf, mlir::Value lane, mlir::Value warp);

} // namespace kiln::reduction
