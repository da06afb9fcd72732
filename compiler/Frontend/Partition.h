//===- Frontend/Partition.h - Which operations share a kernel --*- C++ -*-===//
//
// Kiln's fusion decision at the source level: splits an expression tree into
// fused groups, each one kernel. Elementwise operations always fuse. A
// reduction fuses with the elementwise operations that produce its operand,
// with the elementwise operations that consume its result, and with other
// reductions over the same axes (softmax's max and sum, layer norm's mean
// and var), as long as every operation of the group runs over one
// iteration space: the full space the reductions read, or the kept space
// they produce. A keepdims (or all-axes) reduction's result also broadcasts
// back into the full space (`x - max(x, -1, true)`). Anything else starts a
// new group, computed first and read as a leaf ("a cut"): a reduction over
// other axes, a reduction of a reduction, a non-keepdims result combined
// with full-space data (whose broadcast NumPy aligns by trailing axes).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_PARTITION_H
#define KILN_FRONTEND_PARTITION_H

#include "Frontend/ArrayExpr.h"

namespace kiln::frontend {

/// The groups of `tree`, each group after the groups it reads (so the
/// rewriter sees inner calls first); the last one is rooted at the tree's
/// root. Leaves are assigned kernel positions in first-use order. Each
/// reduction in `ownGroup` starts a group of its own, and one in
/// `ownOperand` also reads its operand computed by a group of its own (the
/// frontend's answers to groups that fusion folds out of shape, see
/// reductionSurvivesFusion).
std::vector<std::unique_ptr<FusedGroup>> partition(const ExprTree &tree,
                                                   const llvm::DenseSet<const Node *> &ownGroup = {},
                                                   const llvm::DenseSet<const Node *> &ownOperand = {});

/// The unfused form of stencil group `g`: its producer (the operations
/// computing the convolution's image) and its consumer (the operations on
/// the convolution's result, which it reads as a leaf), each an elementwise
/// group with its own leaves; null where that side has no operation.
struct StencilParts {
  std::unique_ptr<FusedGroup> producer, consumer;
};
StencilParts stencilParts(const FusedGroup &g);

} // namespace kiln::frontend

#endif
