//===- Transforms/GenerateVariants.cpp - ABI variants of fused kernels ----===//
//
// The `kiln-generate-variants` pass: for every fused kiln.kernel function,
// builds the variants of docs/kernel-abi.md from the fused linalg.generic's
// body: `<name>_contig` (vector loads of 16 bytes) and `<name>_strided1..4`,
// as grid-stride gpu.func kernels in `gpu.module @kiln_kernels` and as host
// func.func loops with the same parameters.
//
//===----------------------------------------------------------------------===//
#include "Analysis/ReductionProgram.h"
#include "Conversion/RawKernels/RawKernels.h"
#include "Conversion/ReductionToVariants/ReductionVariants.h"
#include "Target/Host/EmitHostObject.h"
#include "Transforms/KernelSignature.h"
#include "Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/RegionUtils.h"

#include <functional>
#include <optional>

using namespace mlir;

namespace kiln {
namespace {

/// The highest rank with a strided variant (kiln::detail::max_kernel_rank).
constexpr unsigned kMaxRank = 4;
/// Tiles the rank-2 GPU variant copies through shared memory (measured on an
/// H100 for x.T() * 2 + 1, 16k x 16k float32, as a fraction of the device
/// copy: a linear walk 0.31, 8x8 tiles unstaged 0.57; staged 32x32 0.83,
/// 64x64 0.88; 2026-11-25, the same kernel in CUDA C: 64x64 tiles with 256
/// threads, one block a tile 0.88; with 512 threads 0.89; 512 threads on a
/// persistent grid of 2-4 blocks a multiprocessor 0.92 (the runtime's launch,
/// gpu_launch.cpp); 32x32 0.85; float4 stores from the tile 0.80).
constexpr int64_t kStageElementsLog2 = 12;
constexpr int64_t kStageElements = int64_t(1) << kStageElementsLog2;
/// A square tile's edge, and the shortest edge of a narrow or shallow one
/// (buildGpuStaged2).
constexpr int64_t kStageSquare = int64_t(1) << (kStageElementsLog2 / 2);
constexpr int64_t kStageMinEdgeLog2 = 3;
/// The most dynamic shared memory the staged variant's tiles take: inputs
/// read across the walk (transposed views) are staged in their order while
/// their tiles fit; the runtime sizes the launch by the same rule
/// (kiln::detail::launch::staged_shared_bytes). 99 KiB is what a block may
/// take on every GPU from sm_80 on, and two blocks a multiprocessor fit on
/// sm_90: a complex128 tile of 64 x 65 (65 KiB) and a float64 one, or three
/// float64.
constexpr int64_t kStagingBudget = 99 * 1024;
/// The staged variant's block size, declared on the kernel (known_block_size,
/// PTX .maxntid): the runtime launches 512-thread blocks (8 elements a thread).
constexpr int64_t kStageThreadsLog2 = 9;
constexpr int64_t kStageThreads = int64_t(1) << kStageThreadsLog2;
/// Pseudo-rank of the `_rows` variant: rank 2, inner dimension contiguous
/// (or, for an input, broadcast: inner stride 0).
constexpr unsigned kRows = kMaxRank + 1;
/// Pseudo-rank of the GPU-only `_lines2` variant: rank 2, every operand
/// along the rows (inner strides of at most 2 elements, or broadcast),
/// walked in memory order (buildGpuLines2).
constexpr unsigned kLines = kRows + 1;
/// Edge of the tiles the host's rank >= 2 strided loops walk over their last
/// two dimensions: 32 x 32 elements of one operand are 4 to 16 KiB, so the
/// tiles of several operands stay in L1 while a transposed one is read a
/// cache line per 16 (float32) elements.
constexpr int64_t kHostTile = 32;
/// Host tiles when an operand is strided along the last dimension: 128 rows
/// by 8 columns (buildHostLoops).
constexpr int64_t kHostTallTile = 128, kHostNarrowTile = 8;
/// Blocks of the host's transposing path: 8 x 8 elements, 8 vector loads an
/// operand (buildHostBlock), for bodies of at most kHostBlockBodyOps
/// operations (each block repeats the body 64 times).
constexpr int64_t kHostBlock = 8;
constexpr size_t kHostBlockBodyOps = 24;
/// Their tiles: 512 rows by 16 columns (two blocks: a whole 64-byte line of
/// float32 output a row). Measured on 4096^2 float32 m.T() * 2 + 1, alternating
/// runs of each build (2026-11-27): 2 threads on the device machine's Xeon,
/// 512 x 8 tiles 28.7-29.4 ms, 1024 x 8 26-31, 256 x 16 15.4-19.9, 512 x 16
/// 15.9-19.9 (16 threads: 3.7-3.9 and 2.3-2.6 ms for 512 x 8 and x 16); on the
/// 2-core Zen 3 build machine 512 x 8 and 512 x 16 within its noise (7.7-12.9
/// ms), 128 x 8 9.9-11.9, 16 x 16 about 20. NumPy's F-order result: 18 and
/// 12.7-17 ms. Four blocks loaded before any is stored (16 x 16 at a time):
/// Zen 3 8.4-11.6 ms, the Xeon 22.5-25: the best tile depends on the CPU.
constexpr int64_t kHostBlockTileRows = 512, kHostBlockTileCols = 16;

/// Builds the variants of one fused kernel.
class VariantBuilder {
public:
  VariantBuilder(FusedKernel kernel)
      : k(kernel), ctx(kernel.func.getContext()) {
    for (auto [i, arg] : llvm::enumerate(k.scalarArgs))
      scalarOfArg[arg] = i;
  }

  /// Parameter types: operands as memrefs of `rank` (0: contig, kRows: rank 2
  /// whose outputs have a unit inner stride and whose inputs an inner stride
  /// of 1 or 0, a column broadcast), then scalars.
  FunctionType signature(unsigned rank) const {
    SmallVector<Type> params;
    for (auto [i, t] : llvm::enumerate(k.operandTypes()))
      params.push_back(memrefType(t, rank, /*input=*/i < k.inputTypes.size()));
    for (Type t : k.scalarTypes)
      params.push_back(storageType(t));
    return FunctionType::get(ctx, params, {});
  }

  void buildGpu(OpBuilder &b, gpu::GPUModuleOp module, StringRef name,
                unsigned rank) {
    b.setInsertionPointToEnd(module.getBody());
    FunctionType type = signature(rank);
    auto func = gpu::GPUFuncOp::create(b, k.func.getLoc(), name, type);
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func->setAttr(kProgrammaticLaunchAttr, b.getUnitAttr());
    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    Location loc = k.func.getLoc();
    bindParams(b, loc, entry.getArguments().take_front(type.getNumInputs()));
    if (rank == 2) { // transposed inputs staged through shared memory
      func->setAttr(func.getKnownBlockSizeAttrName(),
                    b.getDenseI32ArrayAttr({int32_t(kStageThreads), 1, 1}));
      // Two blocks a multiprocessor (PTX .minnctapersm 2: at most 64
      // registers a thread). Uncapped, the eight elements a thread holds
      // took 128 and one block (16 warps) a multiprocessor: H200, 31
      // campaign programs with transposed operands, mean fraction of the
      // roofline 0.536 uncapped, 0.547 capped (x.T() * 2 + b-like 0.82 ->
      // 0.98; two with heavy complex bodies lost a third).
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(2));
      buildGpuStaged2(b, loc);
      gpu::ReturnOp::create(b, loc);
      return;
    }
    if (rank == kLines) { // its own thread and warp indices
      buildGpuLines2(b, loc);
      gpu::ReturnOp::create(b, loc);
      return;
    }
    Value tid = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
            gpu::BlockDimOp::create(b, loc, gpu::Dimension::x)),
        gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value stride = arith::MulIOp::create(
        b, loc, gpu::GridDimOp::create(b, loc, gpu::Dimension::x),
        gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
    if (rank == 0)
      buildGpuContig(b, loc, tid, stride);
    else if (rank == kRows)
      buildGpuRows(b, loc, tid, stride);
    else
      buildGpuStrided(b, loc, rank, tid, stride);
    gpu::ReturnOp::create(b, loc);
  }

  void buildHost(OpBuilder &b, ModuleOp module, StringRef name,
                 StringRef variant, unsigned rank) {
    b.setInsertionPointToEnd(module.getBody());
    Location loc = k.func.getLoc();
    auto func = func::FuncOp::create(b, loc, name, signature(rank));
    func->setAttr(kHostVariantAttr, b.getStringAttr(variant));
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToStart(entry);
    bindParams(b, loc, entry->getArguments());
    if (rank == kRows) {
      // Every input row-contiguous (a bias add): loops over unit-stride views,
      // which LLVM vectorizes. Else (a column broadcast among the inputs) the
      // same loops over the inputs as declared.
      RowInputs inputs = rowInputs(b, loc);
      Value allUnit = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      for (Value broadcast : inputs.broadcast)
        allUnit = arith::AndIOp::create(b, loc, allUnit, arith::XOrIOp::create(b, loc, broadcast, yes));
      auto branch = scf::IfOp::create(b, loc, allUnit, /*withElseRegion=*/true);
      SmallVector<Value> declared = operands;
      b.setInsertionPointToStart(branch.thenBlock());
      std::copy(inputs.unit.begin(), inputs.unit.end(), operands.begin());
      buildHostLoops(b, loc, 2, /*tiled=*/false);
      operands = declared;
      b.setInsertionPointToStart(branch.elseBlock());
      buildHostLoops(b, loc, 2, /*tiled=*/false);
    } else {
      buildHostLoops(b, loc, std::max(rank, 1u), /*tiled=*/rank >= 2);
    }
    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, loc);
  }

private:
  /// Host loops over a rank-`loops` iteration space, innermost over the last
  /// dimension (LLVM vectorizes it). `tiled`: the last two dimensions walk
  /// kHostTile x kHostTile tiles, so that an operand contiguous along the
  /// other one (a transposed view) is read a cache line at a time instead of
  /// one line per element; no division anywhere.
  void buildHostLoops(OpBuilder &b, Location loc, unsigned loops, bool tiled) {
    OpBuilder::InsertionGuard guard(b);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    SmallVector<Value> sizes;
    for (unsigned d = 0; d < loops; ++d)
      sizes.push_back(memref::DimOp::create(b, loc, operands.front(), d));
    SmallVector<Value> indices;
    auto loop = [&](Value from, Value to, Value step) {
      auto l = scf::ForOp::create(b, loc, from, to, step);
      b.setInsertionPointToStart(l.getBody());
      return l.getInductionVar();
    };
    const unsigned plain = tiled ? loops - 2 : loops;
    for (unsigned d = 0; d < plain; ++d)
      indices.push_back(loop(zero, sizes[d], one));
    if (tiled) {
      // An operand strided along the last dimension (a transposed view; not
      // a broadcast, stride 0) is
      // read a column at a time, one cache line per row of its tile; with
      // a power-of-two row pitch those lines all fall in one L1 set (8 ways
      // on current x86), so such tiles are kHostNarrowTile columns (lines
      // in flight) by kHostTallTile rows (elements used per line). Measured
      // on a 4096^2 float32 transpose: 2x faster than 32 x 32.
      Value narrow = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
      SmallVector<memref::ExtractStridedMetadataOp> metadata;
      for (Value operand : operands) {
        auto md = memref::ExtractStridedMetadataOp::create(b, loc, operand);
        metadata.push_back(md);
        Value stride = md.getStrides()[loops - 1]; // 0 (a broadcast) and 1 read along rows
        Value strided = arith::AndIOp::create(
            b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, stride, one),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, stride, zero));
        narrow = arith::OrIOp::create(b, loc, narrow, strided);
      }
      std::optional<BlockViews> views;
      Value blocked = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
      if (hostBlocksFit()) {
        views = blockViews(b, loc, loops, metadata);
        blocked = arith::AndIOp::create(b, loc, narrow, views->all);
      }
      auto edgeOf = [&](int64_t ifBlocked, int64_t ifNarrow, int64_t otherwise) -> Value {
        auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
        return arith::SelectOp::create(b, loc, blocked, c(ifBlocked),
                                       arith::SelectOp::create(b, loc, narrow, c(ifNarrow), c(otherwise)));
      };
      Value rowEdge = edgeOf(kHostBlockTileRows, kHostTallTile, kHostTile);
      Value colEdge = edgeOf(kHostBlockTileCols, kHostNarrowTile, kHostTile);
      Value r0 = loop(zero, sizes[loops - 2], rowEdge);
      Value c0 = loop(zero, sizes[loops - 1], colEdge);
      auto end = [&](Value start, Value edge, Value size) -> Value {
        return arith::MinUIOp::create(b, loc, arith::AddIOp::create(b, loc, start, edge), size);
      };
      Value rEnd = end(r0, rowEdge, sizes[loops - 2]), cEnd = end(c0, colEdge, sizes[loops - 1]);
      Value rest = r0; // rows before it went through 8 x 8 blocks
      if (views) {
        // Tiles of a transpose (every operand along rows or columns) whose
        // columns are whole: their rows 8 at a time in 8 x 8 blocks with
        // vector accesses (buildHostBlock), the last rows % 8 element by
        // element below. A tile may be short of rows: a thread's share.
        Value wholeCols = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                                arith::SubIOp::create(b, loc, cEnd, c0), colEdge);
        Value blockRows = arith::AndIOp::create(b, loc, arith::SubIOp::create(b, loc, rEnd, r0),
                                                arith::ConstantIndexOp::create(b, loc, ~(kHostBlock - 1)));
        rest = arith::AddIOp::create(
            b, loc, r0,
            arith::SelectOp::create(b, loc, arith::AndIOp::create(b, loc, blocked, wholeCols), blockRows, zero));
        OpBuilder::InsertionGuard inBlocks(b);
        Value block = arith::ConstantIndexOp::create(b, loc, kHostBlock);
        Value rb = loop(r0, rest, block);
        Value cb = loop(c0, cEnd, block);
        buildHostBlock(b, loc, indices, rb, cb, *views);
      }
      indices.push_back(loop(rest, rEnd, one));
      indices.push_back(loop(c0, cEnd, one));
    }
    storeElement(b, loc, indices, loadElement(b, loc, indices));
  }

  /// Whether the host's tiled loops get the 8 x 8 block path: real or
  /// integer elements, and a body small enough to repeat 64 times.
  bool hostBlocksFit() const {
    for (Type t : k.operandTypes())
      if (isa<ComplexType>(t))
        return false;
    linalg::GenericOp generic = k.generic;
    return !generic || llvm::range_size(generic.getRegion().front().without_terminator()) <= kHostBlockBodyOps;
  }

  /// How each operand's 8 x 8 block is reached, decided per call from its
  /// strides: along rows (unit last stride: vector loads of rows), along
  /// columns (unit stride in the dimension before: vector loads of columns
  /// of the view with the last two dimensions swapped, then a transpose),
  /// or, an input only, one element a row (last stride 0, a column
  /// broadcast: splat). `metadata`: each operand's, as the tiled loops read it.
  struct BlockViews {
    SmallVector<Value> alongRows, splat; ///< i1 per operand
    SmallVector<Value> rowView, colView; ///< unit-stride views
    Value all;                           ///< every operand one of the three
  };
  BlockViews blockViews(OpBuilder &b, Location loc, unsigned loops,
                        ArrayRef<memref::ExtractStridedMetadataOp> metadata) {
    BlockViews v;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    v.all = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    auto eq = [&](Value x, Value y) -> Value {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
    };
    for (auto [i, t] : llvm::enumerate(k.operandTypes())) {
      memref::ExtractStridedMetadataOp md = metadata[i];
      SmallVector<OpFoldResult> sizes, strides, colSizes, colStrides;
      for (unsigned d = 0; d < loops; ++d) {
        sizes.push_back(md.getSizes()[d]);
        strides.push_back(md.getStrides()[d]);
      }
      colSizes = sizes, colStrides = strides;
      std::swap(colSizes[loops - 2], colSizes[loops - 1]);
      colStrides[loops - 2] = md.getStrides()[loops - 1];
      strides[loops - 1] = colStrides[loops - 1] = b.getIndexAttr(1);
      SmallVector<int64_t> dyn(loops, ShapedType::kDynamic), unitLast = dyn;
      unitLast.back() = 1;
      auto type = MemRefType::get(dyn, storageType(t), StridedLayoutAttr::get(ctx, ShapedType::kDynamic, unitLast));
      auto view = [&](ArrayRef<OpFoldResult> sz, ArrayRef<OpFoldResult> st) -> Value {
        return memref::ReinterpretCastOp::create(b, loc, type, md.getBaseBuffer(), OpFoldResult(md.getOffset()), sz,
                                                 st);
      };
      v.rowView.push_back(view(sizes, strides));
      v.colView.push_back(view(colSizes, colStrides));
      Value rows = eq(md.getStrides()[loops - 1], one);
      Value cols = eq(md.getStrides()[loops - 2], one);
      Value splat = i < k.inputTypes.size() ? eq(md.getStrides()[loops - 1], zero)
                                            : arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
      v.alongRows.push_back(rows);
      v.splat.push_back(splat);
      v.all = arith::AndIOp::create(b, loc, v.all,
                                    arith::OrIOp::create(b, loc, rows, arith::OrIOp::create(b, loc, cols, splat)));
    }
    return v;
  }

  /// One 8 x 8 block at (rb, cb) of the last two dimensions (`outer` indexes
  /// the others): every input's block read with 8 vector loads (and a
  /// transpose in registers where it runs along columns), the body computed
  /// a row at a time (computeVectors, else computeLanes), every output's
  /// block written with 8 vector stores.
  void buildHostBlock(OpBuilder &b, Location loc, ValueRange outer, Value rb, Value cb, const BlockViews &v) {
    constexpr int64_t n = kHostBlock;
    SmallVector<Value> offsets;
    for (int64_t j = 0; j < n; ++j)
      offsets.push_back(arith::ConstantIndexOp::create(b, loc, j));
    auto at = [&](Value major, int64_t j, Value minor) {
      SmallVector<Value> idx(outer.begin(), outer.end());
      idx.push_back(arith::AddIOp::create(b, loc, major, offsets[j]));
      idx.push_back(minor);
      return idx;
    };
    // 8 vectors of 8 (rows of `from` at major + j) as one vector<8x8>.
    auto loadBlock = [&](Value from, Value major, Value minor, VectorType row) -> Value {
      auto blockType = VectorType::get({n, n}, row.getElementType());
      Value block = arith::ConstantOp::create(b, loc, blockType, b.getZeroAttr(blockType));
      for (int64_t j = 0; j < n; ++j)
        block = vector::InsertOp::create(b, loc, vector::LoadOp::create(b, loc, row, from, at(major, j, minor)), block,
                                         j);
      return block;
    };
    auto yield = [&](Value x) { scf::YieldOp::create(b, loc, ValueRange{x}); };
    SmallVector<Value> blocks; // per input, in the output's orientation
    for (auto [i, t] : llvm::enumerate(k.inputTypes)) {
      auto row = VectorType::get({n}, storageType(t));
      auto blockType = VectorType::get({n, n}, row.getElementType());
      auto rows = scf::IfOp::create(b, loc, blockType, v.alongRows[i], /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(rows.thenBlock());
      yield(loadBlock(v.rowView[i], rb, cb, row));
      b.setInsertionPointToStart(rows.elseBlock());
      auto splat = scf::IfOp::create(b, loc, blockType, v.splat[i], /*withElseRegion=*/true);
      yield(splat.getResult(0));
      b.setInsertionPointToStart(splat.thenBlock());
      Value block = arith::ConstantOp::create(b, loc, blockType, b.getZeroAttr(blockType));
      for (int64_t j = 0; j < n; ++j) {
        Value one = memref::LoadOp::create(b, loc, operands[i], at(rb, j, cb));
        block = vector::InsertOp::create(b, loc, vector::BroadcastOp::create(b, loc, row, one), block, j);
      }
      yield(block);
      b.setInsertionPointToStart(splat.elseBlock());
      yield(vector::TransposeOp::create(b, loc, loadBlock(v.colView[i], cb, rb, row), ArrayRef<int64_t>{1, 0}));
      blocks.push_back(rows.getResult(0));
    }
    // The body a row at a time, on whole vectors where it can be, else lane
    // by lane; outputs gathered as blocks.
    const bool vectors = bodyVectorizes();
    SmallVector<Value> outBlocks;
    for (Type t : k.outputTypes) {
      auto blockType = VectorType::get({n, n}, storageType(t));
      outBlocks.push_back(arith::ConstantOp::create(b, loc, blockType, b.getZeroAttr(blockType)));
    }
    for (int64_t j = 0; j < n; ++j) {
      SmallVector<Value> rowsIn;
      for (Value block : blocks)
        rowsIn.push_back(vector::ExtractOp::create(b, loc, block, j));
      for (auto [o, row] :
           llvm::enumerate(vectors ? computeVectors(b, loc, rowsIn, n) : computeLanes(b, loc, rowsIn, n)))
        outBlocks[o] = vector::InsertOp::create(b, loc, row, outBlocks[o], j);
    }
    unsigned firstOut = k.inputTypes.size();
    for (auto [o, block] : llvm::enumerate(outBlocks)) {
      const unsigned op = firstOut + o;
      auto rows = scf::IfOp::create(b, loc, v.alongRows[op], /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(rows.thenBlock());
      for (int64_t j = 0; j < n; ++j)
        vector::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, block, j), v.rowView[op], at(rb, j, cb));
      b.setInsertionPointToStart(rows.elseBlock());
      Value t = vector::TransposeOp::create(b, loc, block, ArrayRef<int64_t>{1, 0});
      for (int64_t j = 0; j < n; ++j)
        vector::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, t, j), v.colView[op], at(cb, j, rb));
    }
  }

  FusedKernel k;
  MLIRContext *ctx;
  DenseMap<unsigned, unsigned> scalarOfArg;
  SmallVector<Value> operands; ///< memref parameters of the variant being built
  SmallVector<Value> scalars;  ///< scalar values (bool as i1)

  MemRefType memrefType(Type element, unsigned rank, bool input = false) const {
    Type stored = storageType(element);
    if (rank == 0)
      return MemRefType::get(
          {ShapedType::kDynamic}, stored,
          StridedLayoutAttr::get(ctx, ShapedType::kDynamic, {1}));
    if (rank == kRows && !input)
      return rowMajorType(stored);
    if (rank == kRows || rank == kLines)
      rank = 2; // both strides dynamic
    SmallVector<int64_t> dyn(rank, ShapedType::kDynamic);
    return MemRefType::get(
        dyn, stored, StridedLayoutAttr::get(ctx, ShapedType::kDynamic, dyn));
  }

  /// Rank 2 with a unit inner stride: what `_rows` loads vectors from.
  MemRefType rowMajorType(Type stored) const {
    SmallVector<int64_t> dyn(2, ShapedType::kDynamic);
    return MemRefType::get(dyn, stored,
                           StridedLayoutAttr::get(ctx, ShapedType::kDynamic, {ShapedType::kDynamic, 1}));
  }

  /// `_rows` inputs: whether each one is a column broadcast (inner stride 0,
  /// one element a row), and its view with a unit inner stride (valid, and
  /// used, only where it is not).
  struct RowInputs {
    SmallVector<Value> broadcast;
    SmallVector<Value> unit;
  };
  RowInputs rowInputs(OpBuilder &b, Location loc) {
    RowInputs r;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    for (auto [i, type] : llvm::enumerate(k.inputTypes)) {
      auto md = memref::ExtractStridedMetadataOp::create(b, loc, operands[i]);
      r.broadcast.push_back(
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, md.getStrides()[1], zero));
      SmallVector<OpFoldResult> sizes{md.getSizes()[0], md.getSizes()[1]};
      SmallVector<OpFoldResult> strides{md.getStrides()[0], b.getIndexAttr(1)};
      r.unit.push_back(memref::ReinterpretCastOp::create(b, loc, rowMajorType(storageType(type)),
                                                         md.getBaseBuffer(), OpFoldResult(md.getOffset()),
                                                         sizes, strides));
    }
    return r;
  }

  void bindParams(OpBuilder &b, Location loc, ValueRange params) {
    unsigned n = k.numOperands();
    operands.assign(params.begin(), params.begin() + n);
    scalars.clear();
    for (auto [i, value] : llvm::enumerate(params.drop_front(n)))
      scalars.push_back(fromStorage(b, loc, value, k.scalarTypes[i]));
  }

  /// Memory/parameter representation to computation type (i8 -> i1).
  /// (Scalars or vectors alike.)
  static Value fromStorage(OpBuilder &b, Location loc, Value value,
                           Type element) {
    if (!element.isInteger(1))
      return value;
    Value zero = arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(value.getType())));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value, zero);
  }
  static Value toStorage(OpBuilder &b, Location loc, Value value,
                         Type element) {
    if (!element.isInteger(1))
      return value;
    Type stored = storageType(element);
    if (auto vector = dyn_cast<VectorType>(value.getType()))
      stored = vector.clone(stored);
    return arith::ExtUIOp::create(b, loc, stored, value);
  }

  /// Maps the fused body's arguments to `inputs` (by kernel input) and the
  /// values it uses from outside (scalar parameters, constants cloned here)
  /// to `widen` of their value at this point.
  void bindBody(OpBuilder &b, IRMapping &map, ValueRange inputs, function_ref<Value(Value)> widen) {
    linalg::GenericOp generic = k.generic;
    Block &body = generic.getRegion().front();
    for (auto [i, input] : llvm::enumerate(k.genericInputs))
      map.map(body.getArgument(i), inputs[input]);
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(generic.getRegion(), captured);
    for (Value value : captured) {
      Value scalar = isa<BlockArgument>(value) ? scalars[scalarOfArg.lookup(cast<BlockArgument>(value).getArgNumber())]
                                               : b.clone(*value.getDefiningOp())->getResult(0);
      map.map(value, widen(scalar));
    }
  }

  /// The fused body on one element: input values in, output values out.
  SmallVector<Value> compute(OpBuilder &b, ValueRange inputs) {
    SmallVector<Value> results;
    SmallVector<Value> yields;
    if (linalg::GenericOp generic = k.generic) {
      IRMapping map;
      Block &body = generic.getRegion().front();
      bindBody(b, map, inputs, [](Value scalar) { return scalar; });
      for (Operation &op : body.without_terminator())
        b.clone(op, map);
      for (Value v : body.getTerminator()->getOperands())
        yields.push_back(map.lookupOrDefault(v));
    }
    for (const OutputSource &source : k.outputs)
      results.push_back(source.fromGeneric ? yields[source.index]
                                           : inputs[source.index]);
    return results;
  }

  /// Loads every input at `indices`, computes, and returns the outputs.
  SmallVector<Value> loadElement(OpBuilder &b, Location loc,
                                 ValueRange indices) {
    SmallVector<Value> inputs;
    for (auto [i, type] : llvm::enumerate(k.inputTypes))
      inputs.push_back(fromStorage(
          b, loc, memref::LoadOp::create(b, loc, operands[i], indices), type));
    return compute(b, inputs);
  }
  void storeElement(OpBuilder &b, Location loc, ValueRange indices,
                    ValueRange outputs) {
    unsigned base = k.inputTypes.size();
    for (auto [i, type] : llvm::enumerate(k.outputTypes))
      memref::StoreOp::create(b, loc, toStorage(b, loc, outputs[i], type),
                              operands[base + i], indices);
  }

  /// The body on `width` lanes: every input a vector<width> of its storage
  /// type, computed lane by lane (scalar code: LLVM's SLP vectorizer joins
  /// the lanes on the host), every output returned as a vector<width> of its
  /// storage type.
  SmallVector<Value> computeLanes(OpBuilder &b, Location loc, ArrayRef<Value> inputs, unsigned width) {
    SmallVector<SmallVector<Value>> lanes(width);
    for (auto [i, type] : llvm::enumerate(k.inputTypes))
      for (unsigned lane = 0; lane < width; ++lane)
        lanes[lane].push_back(
            fromStorage(b, loc, vector::ExtractOp::create(b, loc, inputs[i], int64_t(lane)), type));
    SmallVector<SmallVector<Value>> results;
    for (unsigned lane = 0; lane < width; ++lane)
      results.push_back(compute(b, lanes[lane]));
    SmallVector<Value> outputs;
    for (auto [o, type] : llvm::enumerate(k.outputTypes)) {
      SmallVector<Value> elems;
      for (unsigned lane = 0; lane < width; ++lane)
        elems.push_back(toStorage(b, loc, results[lane][o], type));
      outputs.push_back(vector::FromElementsOp::create(b, loc, VectorType::get({width}, storageType(type)), elems));
    }
    return outputs;
  }

  /// Whether the fused body runs on whole vectors on the host with the bits
  /// it has lane by lane (computeVectors): every operation an arith one that
  /// maps elementwise over vectors (select included), a constant, or a math
  /// function that lowers to vector instructions either way: the
  /// instructions' (sqrt, abs, fma, rounding, copysign) and, on float32, the
  /// polynomial approximations the host pipeline gives exp, log, log2 and
  /// tanh (host::kApproximatedF32). Library calls (sin and cos go to
  /// libmvec lane by lane, the others to libm) keep computeLanes.
  bool bodyVectorizes() const {
    linalg::GenericOp generic = k.generic;
    if (!generic)
      return true;
    static constexpr llvm::StringLiteral kInstructions[] = {"sqrt",  "absf",      "absi",  "fma",     "floor",
                                                            "ceil",  "trunc",     "round", "roundeven", "copysign"};
    for (Operation &op : generic.getRegion().front().without_terminator()) {
      if (op.getNumRegions() != 0 || op.getNumResults() != 1)
        return false;
      if (isa<arith::ConstantOp, arith::SelectOp>(op))
        continue;
      if (!OpTrait::hasElementwiseMappableTraits(&op))
        return false;
      if (isa<arith::ArithDialect>(op.getDialect()))
        continue;
      if (!isa<math::MathDialect>(op.getDialect()))
        return false;
      StringRef name = op.getName().stripDialect();
      if (!llvm::is_contained(kInstructions, name) &&
          !(llvm::is_contained(host::kApproximatedF32, name) && op.getResult(0).getType().isF32()))
        return false;
    }
    return true;
  }

  /// The body on vectors of `width` (bodyVectorizes()): every input a
  /// vector<width> of its storage type, every operation applied to whole
  /// vectors (constants and captured scalars splat), every output returned as
  /// a vector<width> of its storage type.
  SmallVector<Value> computeVectors(OpBuilder &b, Location loc, ArrayRef<Value> inputs, unsigned width) {
    auto vectorOf = [&](Type t) { return VectorType::get({int64_t(width)}, t); };
    SmallVector<Value> in;
    for (auto [i, type] : llvm::enumerate(k.inputTypes))
      in.push_back(fromStorage(b, loc, inputs[i], type));
    SmallVector<Value> yields;
    if (linalg::GenericOp generic = k.generic) {
      IRMapping map;
      Block &body = generic.getRegion().front();
      bindBody(b, map, in, [&](Value scalar) -> Value {
        return vector::BroadcastOp::create(b, loc, vectorOf(scalar.getType()), scalar);
      });
      for (Operation &op : body.without_terminator()) {
        Value result = op.getResult(0);
        if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
          map.map(result, arith::ConstantOp::create(
                              b, loc, DenseElementsAttr::get(vectorOf(result.getType()), constant.getValue())));
          continue;
        }
        SmallVector<Value> operands;
        for (Value operand : op.getOperands())
          operands.push_back(map.lookup(operand));
        OperationState state(loc, op.getName().getIdentifier(), operands, TypeRange{vectorOf(result.getType())},
                             op.getAttrs());
        map.map(result, b.create(state)->getResult(0));
      }
      for (Value v : body.getTerminator()->getOperands())
        yields.push_back(map.lookupOrDefault(v));
    }
    SmallVector<Value> outputs;
    for (auto [o, source] : llvm::enumerate(k.outputs))
      outputs.push_back(toStorage(b, loc, source.fromGeneric ? yields[source.index] : in[source.index],
                                  k.outputTypes[o]));
    return outputs;
  }

  /// Loads `width` consecutive elements of every input at `indices` (the
  /// last index advances) with aligned vector accesses, computes, and stores
  /// the outputs the same way.
  /// `rows`, when given, makes each input a `_rows` input: a column
  /// broadcast is one scalar load splat across the vector.
  void vectorStep(OpBuilder &b, Location loc, unsigned width, ValueRange indices,
                  const RowInputs *rows = nullptr) {
    SmallVector<Value> vectors;
    for (auto [i, type] : llvm::enumerate(k.inputTypes)) {
      Type stored = storageType(type);
      auto vecType = VectorType::get({width}, stored);
      auto load = [&, i = i, type = type](Value from) -> Value {
        return vector::LoadOp::create(b, loc, vecType, from, indices,
                                      /*nontemporal=*/false, llvm::Align(width * storageBytes(type)));
      };
      Value vec;
      if (!rows) {
        vec = load(operands[i]);
      } else {
        auto pick = scf::IfOp::create(b, loc, vecType, rows->broadcast[i], /*withElseRegion=*/true);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(pick.thenBlock());
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value one = memref::LoadOp::create(b, loc, operands[i], ValueRange{indices[0], zero});
        scf::YieldOp::create(b, loc, ValueRange{vector::BroadcastOp::create(b, loc, vecType, one)});
        b.setInsertionPointToStart(pick.elseBlock());
        scf::YieldOp::create(b, loc, ValueRange{load(rows->unit[i])});
        vec = pick.getResult(0);
      }
      vectors.push_back(vec);
    }
    SmallVector<Value> results = computeLanes(b, loc, vectors, width);
    unsigned firstOut = k.inputTypes.size();
    for (auto [o, type] : llvm::enumerate(k.outputTypes)) {
      vector::StoreOp::create(b, loc, results[o], operands[firstOut + o], indices,
                              /*nontemporal=*/false,
                              llvm::Align(width * storageBytes(type)));
    }
  }

  /// `_rows`: a grid-stride loop over (row, chunk of V columns) with vector
  /// accesses; the runtime guarantees columns % V == 0 and aligned rows. The
  /// row index is one division per V elements (32-bit when it fits). A
  /// column-broadcast input is one scalar load a vector, splat.
  void buildGpuRows(OpBuilder &b, Location loc, Value tid, Value stride) {
    unsigned width = vectorWidth(k);
    RowInputs inputs = rowInputs(b, loc);
    Value rows = memref::DimOp::create(b, loc, operands.front(), 0);
    Value cols = memref::DimOp::create(b, loc, operands.front(), 1);
    Value v = arith::ConstantIndexOp::create(b, loc, width);
    Value perRow = arith::DivUIOp::create(b, loc, cols, v);
    Value total = arith::MulIOp::create(b, loc, rows, perRow);
    auto branch = scf::IfOp::create(b, loc, fitsIn32Bits(b, loc, total, stride),
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    for (bool narrow : {true, false}) {
      b.setInsertionPointToStart(narrow ? branch.thenBlock() : branch.elseBlock());
      Type t = narrow ? Type(b.getI32Type()) : Type(b.getIndexType());
      auto cast = [&](Value x) -> Value {
        return narrow ? Value(arith::IndexCastUIOp::create(b, loc, t, x)) : x;
      };
      auto uncast = [&](Value x) -> Value {
        return narrow ? Value(arith::IndexCastUIOp::create(b, loc, b.getIndexType(), x)) : x;
      };
      Value perRowT = cast(perRow);
      auto loop = scf::ForOp::create(b, loc, cast(tid), cast(total), cast(stride));
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      Value q = loop.getInductionVar();
      Value row = uncast(arith::DivUIOp::create(b, loc, q, perRowT));
      Value chunk = uncast(arith::RemUIOp::create(b, loc, q, perRowT));
      Value col = arith::MulIOp::create(b, loc, chunk, v);
      if (width > 1)
        vectorStep(b, loc, width, ValueRange{row, col}, &inputs);
      else
        storeElement(b, loc, ValueRange{row, col}, loadElement(b, loc, ValueRange{row, col}));
    }
  }

  /// Grid-stride loop of `V`-element vector accesses, then a scalar tail.
  void buildGpuContig(OpBuilder &b, Location loc, Value tid, Value stride) {
    unsigned width = vectorWidth(k);
    Value n = memref::DimOp::create(b, loc, operands.front(), 0);
    Value tailStart = arith::ConstantIndexOp::create(b, loc, 0);
    if (width > 1) {
      Value v = arith::ConstantIndexOp::create(b, loc, width);
      Value chunks = arith::DivUIOp::create(b, loc, n, v);
      auto loop = scf::ForOp::create(b, loc, tid, chunks, stride);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value base = arith::MulIOp::create(b, loc, loop.getInductionVar(), v);
        vectorStep(b, loc, width, ValueRange{base});
      }
      tailStart = arith::MulIOp::create(b, loc, chunks, v);
    }
    Value first = arith::AddIOp::create(b, loc, tailStart, tid);
    auto tail = scf::ForOp::create(b, loc, first, n, stride);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(tail.getBody());
    Value i = tail.getInductionVar();
    storeElement(b, loc, i, loadElement(b, loc, i));
  }

  /// One grid-stride loop over the linear index of a rank-`rank` iteration
  /// space, in the integer type `ivType` (i32 when everything fits: integer
  /// division is much cheaper in 32 bits on a GPU).
  void buildStridedLoop(OpBuilder &b, Location loc, Type ivType, unsigned rank,
                        Value tid, Value stride, Value total,
                        ArrayRef<Value> sizes) {
    auto cast = [&](Value v) -> Value {
      return ivType.isIndex() ? v
                              : arith::IndexCastUIOp::create(b, loc, ivType, v);
    };
    SmallVector<Value> sizesT;
    for (Value s : sizes)
      sizesT.push_back(cast(s));
    auto loop =
        scf::ForOp::create(b, loc, cast(tid), cast(total), cast(stride));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value rest = loop.getInductionVar();
    SmallVector<Value> indices(rank);
    for (unsigned d = rank - 1; d > 0; --d) {
      indices[d] = arith::RemUIOp::create(b, loc, rest, sizesT[d]);
      rest = arith::DivUIOp::create(b, loc, rest, sizesT[d]);
    }
    indices[0] = rest;
    for (Value &index : indices)
      if (!ivType.isIndex())
        index = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), index);
    storeElement(b, loc, indices, loadElement(b, loc, indices));
  }

  /// Whether a grid-stride loop up to `total` can count in 32 bits: the
  /// last index plus one grid stride stays below 2^31.
  static Value fitsIn32Bits(OpBuilder &b, Location loc, Value total, Value stride) {
    Value limit = arith::ConstantIndexOp::create(b, loc, std::numeric_limits<int32_t>::max());
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                 arith::AddIOp::create(b, loc, total, stride), limit);
  }

  /// A rank-2 operand as the flat buffer under it, for addresses computed
  /// by hand: element (r, c) is view[offset + r * s0 + c * s1]. The view
  /// spans every element the operand reaches (negative strides included).
  struct FlatOperand {
    Value view, offset, s0, s1;
  };
  FlatOperand flatten(OpBuilder &b, Location loc, Value operand) {
    auto md = memref::ExtractStridedMetadataOp::create(b, loc, operand);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0), one = arith::ConstantIndexOp::create(b, loc, 1);
    Value extent = arith::AddIOp::create(b, loc, md.getOffset(), one);
    for (unsigned d = 0; d < 2; ++d) {
      Value last = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, md.getSizes()[d], one), zero);
      Value reach = arith::MulIOp::create(b, loc, arith::MaxSIOp::create(b, loc, md.getStrides()[d], zero), last);
      extent = arith::AddIOp::create(b, loc, extent, reach);
    }
    auto type = MemRefType::get({ShapedType::kDynamic}, cast<MemRefType>(operand.getType()).getElementType());
    Value view = memref::ReinterpretCastOp::create(b, loc, type, md.getBaseBuffer(), OpFoldResult(b.getIndexAttr(0)),
                                                   ArrayRef<OpFoldResult>{extent},
                                                   ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    return {view, md.getOffset(), md.getStrides()[0], md.getStrides()[1]};
  }

  /// Rank 2 through shared memory: a block takes a tile of kStageElements
  /// (TR x TC, powers of two: 64 x 64, or where there are fewer than 64
  /// columns TC the edge of 8 to 64 that pads them least, else the rows
  /// likewise), copies the tile of every input read across the walk (a
  /// transposed view: its outer stride is the smaller one, and not 0) into
  /// shared memory column by column, the order contiguous for it, waits,
  /// then computes and writes the outputs row by row, reading the other
  /// inputs there directly (in the walk's order, as coalesced as the
  /// outputs). Both global sides are coalesced; the tiles are padded by one
  /// element a row against bank conflicts. Which inputs are staged is decided
  /// from their strides at run time, in input order while the tiles fit
  /// kStagingBudget, and the tiles are packed into dynamic shared memory; the
  /// runtime sizes the launch by the same rules (launch::staged_tile and
  /// launch::staged_shared_bytes), so inputs read along the walk or
  /// broadcast cost no shared memory and never limit the others.
  ///
  /// A thread takes kPasses elements of a tile in each phase, whole rows (or
  /// columns) of the tile apart, so each of its addresses is the last one
  /// plus a step fixed for the launch: one 64-bit add an element, where 2-d
  /// indices cost two 64-bit multiplies (x.T() * 2 + 1 on 16k^2 float32,
  /// H100, 2026-11-27: 0.95 of the device copy, 0.90 with indices; the CUDA
  /// C kernel of benchmarks/staged_tiles_nvcc.cu 0.92-0.93). In a tile at
  /// the array's edge, past the edge a thread reads the tile's first element
  /// instead (no branch) and writes nothing; every read of a thread is
  /// issued before its first computation.
  void buildGpuStaged2(OpBuilder &b, Location loc) {
    static_assert(kStageElements % kStageThreads == 0);
    constexpr int64_t kPasses = kStageElements / kStageThreads;
    auto idx = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
    auto add = [&](Value x, Value y) -> Value { return arith::AddIOp::create(b, loc, x, y); };
    auto sub = [&](Value x, Value y) -> Value { return arith::SubIOp::create(b, loc, x, y); };
    auto mul = [&](Value x, Value y) -> Value { return arith::MulIOp::create(b, loc, x, y); };
    auto shl = [&](Value x, Value y) -> Value { return arith::ShLIOp::create(b, loc, x, y); };
    auto shr = [&](Value x, Value y) -> Value { return arith::ShRUIOp::create(b, loc, x, y); };
    auto andi = [&](Value x, Value y) -> Value { return arith::AndIOp::create(b, loc, x, y); };
    auto select = [&](Value c, Value x, Value y) -> Value { return arith::SelectOp::create(b, loc, c, x, y); };
    auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
      return arith::CmpIOp::create(b, loc, p, x, y);
    };
    using P = arith::CmpIPredicate;
    Value rows = memref::DimOp::create(b, loc, operands.front(), 0);
    Value cols = memref::DimOp::create(b, loc, operands.front(), 1);
    // The tile's shape: log2 of its columns (TC) and rows (TR). Of the edges
    // from 8 to 64, the one that pads a short side (fewer than 64) least
    // (33 columns: 5 tiles of 8, not one of 64 half empty), the longer on a
    // tie.
    auto fittedLog = [&](Value n) -> Value {
      Value best = idx(kStageElementsLog2 / 2), padded = idx(kStageSquare);
      for (int64_t log = kStageElementsLog2 / 2 - 1; log >= kStageMinEdgeLog2; --log) {
        Value edge = idx(int64_t(1) << log);
        Value mine = andi(add(n, sub(edge, idx(1))), idx(~((int64_t(1) << log) - 1)));
        Value better = cmp(P::ult, mine, padded);
        best = select(better, idx(log), best);
        padded = select(better, mine, padded);
      }
      return best;
    };
    Value allLog = idx(kStageElementsLog2), squareLog = idx(kStageElementsLog2 / 2);
    Value narrow = cmp(P::ult, cols, idx(kStageSquare)), shallow = cmp(P::ult, rows, idx(kStageSquare));
    Value logTC = select(narrow, fittedLog(cols), select(shallow, sub(allLog, fittedLog(rows)), squareLog));
    Value logTR = sub(allLog, logTC);
    Value one = idx(1);
    Value tc = shl(one, logTC), tr = shl(one, logTR);
    Value pitch = add(tc, one); // a tile row in shared memory
    Value threadsLog = idx(kStageThreadsLog2);
    Value tilesC = shr(add(cols, sub(tc, one)), logTC);
    Value numTiles = mul(shr(add(rows, sub(tr, one)), logTR), tilesC);
    Value tx = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value gdim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    // A thread's first element of a tile and the step between its passes:
    // in row order (the outputs, the inputs read directly) element tx of
    // the tile's rows, kStageThreads / TC rows on a pass; in column order
    // (staged inputs) element tx of its columns.
    struct Walk { Value lr, lc, dlr, dlc; };
    Walk byRows{shr(tx, logTC), andi(tx, sub(tc, one)), shl(one, sub(threadsLog, logTC)), idx(0)};
    Walk byColumns{andi(tx, sub(tr, one)), shr(tx, logTR), idx(0), shl(one, sub(threadsLog, logTR))};

    const unsigned numInputs = k.inputTypes.size();
    auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value dynamic = gpu::DynamicSharedMemoryOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), MemRefLayoutAttrInterface{}, shared));
    Value tileElements = mul(tr, pitch);
    SmallVector<FlatOperand> flat;
    SmallVector<Value> staged, tiles;
    Value used = idx(0); // bytes of shared memory the staged tiles before take
    for (auto [i, operand] : llvm::enumerate(operands)) {
      const FlatOperand &f = flat.emplace_back(flatten(b, loc, operand));
      if (i >= numInputs)
        continue;
      auto absOf = [&](Value v) -> Value { return select(cmp(P::slt, v, idx(0)), sub(idx(0), v), v); };
      Type stored = storageType(k.inputTypes[i]);
      Value bytes = mul(tileElements, idx(storageBytes(k.inputTypes[i])));
      Value across = andi(cmp(P::ne, f.s0, idx(0)), cmp(P::ult, absOf(f.s0), absOf(f.s1)));
      Value fits = cmp(P::ule, add(used, bytes), idx(kStagingBudget));
      Value on = staged.emplace_back(andi(across, fits));
      tiles.push_back(memref::ViewOp::create(
          b, loc, MemRefType::get({ShapedType::kDynamic}, stored, MemRefLayoutAttrInterface{}, shared), dynamic,
          used, ValueRange{tileElements}));
      used = select(on, add(used, bytes), used);
    }

    auto tileLoop = scf::ForOp::create(b, loc, bid, numTiles, gdim);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(tileLoop.getBody());
    Value tile = tileLoop.getInductionVar();
    Value tileRow = arith::DivUIOp::create(b, loc, tile, tilesC);
    Value tileCol = sub(tile, mul(tileRow, tilesC));
    Value r0 = shl(tileRow, logTR), c0 = shl(tileCol, logTC);
    // Pass `j` of a walk: whether its element is inside the array (edge
    // tiles only), its flat offset in operand `i` (in an edge tile that of
    // the tile's first element, which always is, where it is not: reads need
    // no branch) and its place in a tile.
    struct Pass { Value inside, offset, slot; };
    auto passesOf = [&](unsigned i, const Walk &w, bool edge) {
      const FlatOperand &f = flat[i];
      Value origin = add(f.offset, add(mul(r0, f.s0), mul(c0, f.s1)));
      Value r, c; // the element's row and column, at the edge
      if (edge) {
        r = add(r0, w.lr);
        c = add(c0, w.lc);
      }
      Value offset = add(origin, add(mul(w.lr, f.s0), mul(w.lc, f.s1)));
      Value slot = add(mul(w.lr, pitch), w.lc);
      Value step = add(mul(w.dlr, f.s0), mul(w.dlc, f.s1)), slotStep = add(mul(w.dlr, pitch), w.dlc);
      SmallVector<Pass> passes;
      for (int64_t j = 0; j < kPasses; ++j) {
        if (j) {
          offset = add(offset, step);
          slot = add(slot, slotStep);
        }
        if (!edge) {
          passes.push_back({Value(), offset, slot});
          continue;
        }
        if (j) {
          r = add(r, w.dlr);
          c = add(c, w.dlc);
        }
        Value inside = andi(cmp(P::ult, r, rows), cmp(P::ult, c, cols));
        passes.push_back({inside, select(inside, offset, origin), slot});
      }
      return passes;
    };
    auto read = [&](unsigned i, const Pass &p) -> Value {
      return memref::LoadOp::create(b, loc, flat[i].view, p.offset);
    };
    // One tile, whole (`edge` false) or at the array's edge.
    auto tileBody = [&](bool edge) {
      // Phase 1: global -> shared for the staged inputs, column by column,
      // a thread's loads all issued before its stores.
      for (unsigned i = 0; i < numInputs; ++i) {
        auto ifStaged = scf::IfOp::create(b, loc, staged[i], /*withElseRegion=*/false);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ifStaged.thenBlock());
        SmallVector<Pass> passes = passesOf(i, byColumns, edge);
        SmallVector<Value> values;
        for (const Pass &p : passes)
          values.push_back(read(i, p));
        for (auto [p, v] : llvm::zip(passes, values))
          memref::StoreOp::create(b, loc, v, tiles[i], p.slot);
      }
      gpu::BarrierOp::create(b, loc);
      // Phase 2: every input's elements of the thread's rows (from its tile,
      // or from memory), then the outputs computed and written row by row.
      SmallVector<SmallVector<Pass>> outs;
      for (unsigned o = 0; o < k.outputTypes.size(); ++o)
        outs.push_back(passesOf(numInputs + o, byRows, edge));
      ArrayRef<Pass> out = outs.front();
      SmallVector<SmallVector<Value>> values(kPasses);
      for (auto [i, type] : llvm::enumerate(k.inputTypes)) {
        SmallVector<Type> types(kPasses, storageType(type));
        auto from = scf::IfOp::create(b, loc, types, staged[i], /*withElseRegion=*/true);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(from.thenBlock());
        SmallVector<Value> yields;
        for (const Pass &p : out)
          yields.push_back(memref::LoadOp::create(b, loc, tiles[i], p.slot));
        scf::YieldOp::create(b, loc, yields);
        b.setInsertionPointToStart(from.elseBlock());
        yields.clear();
        for (const Pass &p : passesOf(i, byRows, edge))
          yields.push_back(read(i, p));
        scf::YieldOp::create(b, loc, yields);
        for (int64_t j = 0; j < kPasses; ++j)
          values[j].push_back(from.getResult(j));
      }
      for (int64_t j = 0; j < kPasses; ++j) {
        SmallVector<Value> inputs;
        for (auto [i, type] : llvm::enumerate(k.inputTypes))
          inputs.push_back(fromStorage(b, loc, values[j][i], type));
        SmallVector<Value> results = compute(b, inputs);
        OpBuilder::InsertionGuard g(b);
        if (edge) {
          auto ifIn = scf::IfOp::create(b, loc, out[j].inside, /*withElseRegion=*/false);
          b.setInsertionPointToStart(ifIn.thenBlock());
        }
        for (auto [o, type] : llvm::enumerate(k.outputTypes))
          memref::StoreOp::create(b, loc, toStorage(b, loc, results[o], type), flat[numInputs + o].view,
                                  outs[o][j].offset);
      }
    };
    Value whole = andi(cmp(P::ule, add(r0, tr), rows), cmp(P::ule, add(c0, tc), cols));
    auto branch = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(branch.thenBlock());
      tileBody(false);
      b.setInsertionPointToStart(branch.elseBlock());
      tileBody(true);
    }
    // The next tile overwrites the buffers only after every thread read them.
    gpu::BarrierOp::create(b, loc);
  }

  /// `_lines2` (GPU only): rank 2 where every operand runs along the rows
  /// (the runtime checks: inner strides of at most 2 elements, or 0), walked
  /// in memory order. Tiles pay off only where an operand runs along the
  /// columns; rows of a few elements left most of a tile's threads idle
  /// (x[::2] of a (37.8M, 3) array: 0.17 of the roofline), and rows whose
  /// length is no multiple of the vector width cannot take `_rows`.
  ///
  /// A warp takes kRun x 32 consecutive elements a step, lane l element e at
  /// 32 e + l, so each access is coalesced across the warp. The row and
  /// column of a lane's first element cost one division; each next one adds
  /// 32 to the column and wraps once where the rows have at least 32
  /// elements, else divides. Every load of a whole step before its stores
  /// (an output may alias an input: nothing moves a load past a store).
  /// 32-bit index math where the indices fit.
  static constexpr int64_t kRun = 4;
  void buildGpuLines2(OpBuilder &b, Location loc) {
    Value rows = memref::DimOp::create(b, loc, operands.front(), 0);
    Value cols = memref::DimOp::create(b, loc, operands.front(), 1);
    Value total = arith::MulIOp::create(b, loc, rows, cols);
    auto idx = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value bdim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
    Value global = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), bdim), tid);
    Value warp = arith::ShRUIOp::create(b, loc, global, idx(5));
    Value lane = arith::AndIOp::create(b, loc, tid, idx(31));
    Value warps = arith::ShRUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, gpu::GridDimOp::create(b, loc, gpu::Dimension::x), bdim), idx(5));
    const int64_t per = 32 * kRun;
    Value steps = arith::DivUIOp::create(b, loc, arith::AddIOp::create(b, loc, total, idx(per - 1)), idx(per));
    Value reach = arith::MulIOp::create(b, loc, warps, idx(per));
    auto branch = scf::IfOp::create(b, loc, fitsIn32Bits(b, loc, total, reach), /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    for (bool narrow : {true, false}) {
      b.setInsertionPointToStart(narrow ? branch.thenBlock() : branch.elseBlock());
      Type iv = narrow ? Type(b.getI32Type()) : Type(b.getIndexType());
      auto cast = [&](Value v) -> Value { return narrow ? arith::IndexCastUIOp::create(b, loc, iv, v) : v; };
      auto widen = [&](Value v) -> Value {
        return narrow ? arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v) : v;
      };
      auto constant = [&](int64_t v) -> Value {
        return narrow ? Value(arith::ConstantIntOp::create(b, loc, iv, v))
                      : Value(arith::ConstantIndexOp::create(b, loc, v));
      };
      Value colsT = cast(cols), totalT = cast(total), laneT = cast(lane);
      Value wide = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, colsT, constant(32));
      auto loop = scf::ForOp::create(b, loc, cast(warp), cast(steps), cast(warps));
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      Value base = arith::MulIOp::create(b, loc, loop.getInductionVar(), constant(per));
      auto rowCol = [&](Value flat) -> std::pair<Value, Value> {
        Value r = arith::DivUIOp::create(b, loc, flat, colsT);
        return {r, arith::SubIOp::create(b, loc, flat, arith::MulIOp::create(b, loc, r, colsT))};
      };
      SmallVector<Value> flats;
      for (int64_t e = 0; e < kRun; ++e)
        flats.push_back(arith::AddIOp::create(b, loc, base, arith::AddIOp::create(b, loc, laneT, constant(32 * e))));
      // Each element's (row, col): stepped (rows of 32 or more) or divided.
      SmallVector<Type> types(2 * kRun, iv);
      auto how = scf::IfOp::create(b, loc, types, wide, /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(how.thenBlock());
        auto [row, col] = rowCol(flats[0]);
        SmallVector<Value> yields{row, col};
        for (int64_t e = 1; e < kRun; ++e) {
          Value next = arith::AddIOp::create(b, loc, col, constant(32));
          Value wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, next, colsT);
          col = arith::SelectOp::create(b, loc, wrap, arith::SubIOp::create(b, loc, next, colsT), next);
          row = arith::SelectOp::create(b, loc, wrap, arith::AddIOp::create(b, loc, row, constant(1)), row);
          yields.append({row, col});
        }
        scf::YieldOp::create(b, loc, yields);
        b.setInsertionPointToStart(how.elseBlock());
        yields.clear();
        for (Value flat : flats) {
          auto [r, c] = rowCol(flat);
          yields.append({r, c});
        }
        scf::YieldOp::create(b, loc, yields);
      }
      SmallVector<SmallVector<Value>> at;
      for (int64_t e = 0; e < kRun; ++e)
        at.push_back({widen(how.getResult(2 * e)), widen(how.getResult(2 * e + 1))});
      Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                          arith::AddIOp::create(b, loc, base, constant(per)), totalT);
      auto run = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
      b.setInsertionPointToStart(run.thenBlock());
      SmallVector<SmallVector<Value>> results;
      for (int64_t e = 0; e < kRun; ++e)
        results.push_back(loadElement(b, loc, at[e]));
      for (int64_t e = 0; e < kRun; ++e)
        storeElement(b, loc, at[e], results[e]);
      b.setInsertionPointToStart(run.elseBlock());
      for (int64_t e = 0; e < kRun; ++e) {
        auto in = scf::IfOp::create(b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, flats[e], totalT),
                                    /*withElseRegion=*/false);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(in.thenBlock());
        storeElement(b, loc, at[e], loadElement(b, loc, at[e]));
      }
    }
  }

  void buildGpuStrided(OpBuilder &b, Location loc, unsigned rank, Value tid,
                       Value stride) {
    SmallVector<Value> sizes;
    Value total = arith::ConstantIndexOp::create(b, loc, 1);
    for (unsigned d = 0; d < rank; ++d) {
      sizes.push_back(memref::DimOp::create(b, loc, operands.front(), d));
      total = arith::MulIOp::create(b, loc, total, sizes.back());
    }
    if (rank == 1) { // no division: the index type is as cheap as it gets
      buildStridedLoop(b, loc, b.getIndexType(), rank, tid, stride, total,
                       sizes);
      return;
    }
    // 32-bit index math when the linear index and its grid stride fit.
    auto branch = scf::IfOp::create(b, loc, fitsIn32Bits(b, loc, total, stride),
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    buildStridedLoop(b, loc, b.getI32Type(), rank, tid, stride, total, sizes);
    b.setInsertionPointToStart(branch.elseBlock());
    buildStridedLoop(b, loc, b.getIndexType(), rank, tid, stride, total, sizes);
  }
};

struct GenerateVariantsPass
    : PassWrapper<GenerateVariantsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GenerateVariantsPass)
  StringRef getArgument() const final { return "kiln-generate-variants"; }
  StringRef getDescription() const final {
    return "Generate the GPU and host variants (_contig, _strided1..4, _rows) of "
           "fused kernels";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, gpu::GPUDialect, memref::MemRefDialect,
                    scf::SCFDialect, vector::VectorDialect, func::FuncDialect,
                    math::MathDialect, complex::ComplexDialect,
                    linalg::LinalgDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<FusedKernel, 4> kernels;
    std::vector<ReductionProgram> reductions;
    bool ok = true;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func->hasAttr(kReductionKernelAttr)) {
        FailureOr<ReductionProgram> program = analyzeReductionProgram(func);
        if (failed(program))
          ok = false;
        else
          reductions.push_back(std::move(*program));
        continue;
      }
      if (!func->hasAttr(kKernelAttr))
        continue;
      FailureOr<FusedKernel> kernel = analyzeFusedKernel(func);
      if (failed(kernel))
        ok = false;
      else
        kernels.push_back(*kernel);
    }
    if (!ok)
      return signalPassFailure();
    if (kernels.empty() && reductions.empty())
      return;

    OpBuilder b(module.getContext());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    gpu::GPUModuleOp gpuModule;
    for (auto existing : module.getOps<gpu::GPUModuleOp>())
      if (existing.getName() == kGpuModuleName)
        gpuModule = existing;
    if (!gpuModule) {
      b.setInsertionPointToEnd(module.getBody());
      gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kGpuModuleName);
    }
    SymbolTable symbols(module);
    for (FusedKernel &kernel : kernels) {
      VariantBuilder builder(kernel);
      StringRef name = kernel.func.getSymName();
      for (unsigned rank = 0; rank <= kLines; ++rank) {
        std::string variant = rank == 0        ? "contig"
                              : rank == kRows  ? "rows"
                              : rank == kLines ? "lines2"
                                               : "strided" + std::to_string(rank);
        std::string symbol = (name + "_" + variant).str();
        if (symbols.lookup(symbol)) {
          kernel.func.emitError() << "kiln.kernel @" << name << ": symbol @"
                                  << symbol << " already exists";
          return signalPassFailure();
        }
        builder.buildGpu(b, gpuModule, symbol, rank);
        if (rank != kLines) // the host's _strided2 walks such rows as well
          builder.buildHost(b, module, symbol, variant, rank);
      }
    }
    gpu::GPUModuleOp sm90Module;
    auto getSm90Module = [&] {
      if (!sm90Module) {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointAfter(gpuModule);
        sm90Module = gpu::GPUModuleOp::create(b, module.getLoc(), kGpuModuleSm90Name);
      }
      return sm90Module;
    };
    for (const ReductionProgram &program : reductions)
      reduction::generateReductionVariants(b, module, gpuModule, getSm90Module, program);
    for (auto m : module.getOps<gpu::GPUModuleOp>())
      copyElementFunctions(module, m);
  }

  /// The element functions of kiln::elementwise lambdas (func.func marked
  /// kiln.element_function) that the GPU kernels call, copied into their
  /// gpu.module: the PTX is compiled from the gpu.module alone.
  static void copyElementFunctions(ModuleOp module, gpu::GPUModuleOp gpuModule) {
    SmallVector<StringRef> callees;
    gpuModule.walk([&](func::CallOp call) { callees.push_back(call.getCallee()); });
    OpBuilder b = OpBuilder::atBlockBegin(gpuModule.getBody());
    for (StringRef callee : callees) {
      if (gpuModule.lookupSymbol(callee))
        continue;
      auto fn = module.lookupSymbol<func::FuncOp>(callee);
      if (fn && fn->hasAttr(kElementFunctionAttr))
        b.clone(*fn);
    }
  }
};

} // namespace

std::unique_ptr<Pass> createGenerateVariantsPass() {
  return std::make_unique<GenerateVariantsPass>();
}

void registerKilnPasses() {
  PassRegistration<GenerateVariantsPass>();
  registerPass([] { return createFuseKernelsPass(); });
  registerPass([] { return createOnlineLogSumExpPass(); });
  registerPass([] { return createVerifyFusedKernelsPass(); });
  registerPass([] { return createExpandCombinePass(); });
  registerPass([] { return createRawKernelsToGPUPass(); });
  registerPass([] { return createRawKernelsToHostPass(); });
  registerPass([] { return createProgrammaticLaunchPass(); });
}

} // namespace kiln
