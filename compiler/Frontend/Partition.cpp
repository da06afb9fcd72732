//===- Frontend/Partition.cpp - Which operations share a kernel -----------===//
//
// Two walks per group. The first, bottom-up, finds each node's space and
// cuts what cannot share the group's iteration space (Partition.h lists the
// rules). The second, top-down, settles the space of nodes that could run in
// either (elementwise operations on leaves only take their consumer's) and
// numbers the leaves per space.
//
//===----------------------------------------------------------------------===//
#include "Frontend/Partition.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <functional>

namespace kiln::frontend {
namespace {

/// Where a node's values live within a reduction group.
enum class Space {
  None,  ///< a scalar or constant
  Any,   ///< arrays with no reduction below: runs in its consumer's space
  Full,  ///< the space the reductions read
  Kept,  ///< the space the reductions produce (NumPy shape: axes removed)
  KeptB, ///< kept, and broadcastable into the full space (keepdims or all axes)
};

class Partitioner {
public:
  Partitioner(const ExprTree &tree, const llvm::DenseSet<const Node *> &ownGroup,
              const llvm::DenseSet<const Node *> &ownOperand)
      : tree_(tree), ownGroup_(ownGroup), ownOperand_(ownOperand) {}

  std::vector<std::unique_ptr<FusedGroup>> run() {
    formGroup(tree_.rootNode);
    return std::move(groups_);
  }

private:
  struct GroupState {
    FusedGroup *group;
    bool hasSpec = false;
    const Node *specFrom =
        nullptr; ///< the reduction whose axes and keepdims the group took
    llvm::DenseMap<const Node *, Space> space{}; // {}: the constructor is explicit (clang)
    /// Kept values whose NumPy shape is the keepdims shape (the reduced
    /// axes kept as 1), not the shape with them removed.
    llvm::DenseSet<const Node *> keepdimsShape{};
    std::vector<const Node *> cutNodes;
    /// The group's convolution (a stencil group has one, and no reductions).
    const Node *stencil = nullptr;
  };

  /// Builds the group rooted at `root`, after the groups it cuts off.
  void formGroup(const Node *root) {
    if (groupOfExpr_.count(root->expr))
      return; // the same source expression, inlined twice: one kernel
    auto group = std::make_unique<FusedGroup>();
    group->root = root->expr;
    group->rootNode = const_cast<Node *>(root);
    GroupState st{group.get()};
    Space rootSpace = analyze(root, st);
    for (const Node *c : st.cutNodes)
      formGroup(c);
    groupOfExpr_[root->expr] = group.get();
    group->stencil = st.stencil;
    // Reductions with constant keepdims may differ in it (logsumexp's
    // max(x, -1, true) and max(x, -1)): the call's keepdims is then the
    // shape of the group's value.
    // (A value in the full space has the full shape, whatever keepdims.)
    if (group->keepdims.kind == KeepdimsSpec::Kind::Constant && isKept(rootSpace))
      group->keepdims.value = st.keepdimsShape.count(root);
    settle(root, rootSpace == Space::Kept || rootSpace == Space::KeptB ? Space::Kept : Space::Full, st);
    group->isReduction = !group->reductions.empty();
    // The reduction the group took its axes from may have been cut off
    // after (a keepdims mean beside a kept all(x, -1) without it): its axes
    // argument then lies in text the cut group's call replaced. Any
    // reduction left in the group has the same axes (difftest seed 43 #142).
    if (group->isReduction && st.specFrom &&
        !llvm::is_contained(group->reductions, st.specFrom)) {
      const Node *r = group->reductions.front();
      group->axes = r->axes;
      if (group->keepdims.kind != KeepdimsSpec::Kind::Constant)
        group->keepdims = r->keepdims;
    }
    groups_.push_back(std::move(group));
  }

  void cut(const Node *n, GroupState &st) {
    st.group->cuts.insert(n);
    st.cutNodes.push_back(n);
  }

  static bool isKept(Space s) { return s == Space::Kept || s == Space::KeptB; }

  Space analyze(const Node *n, GroupState &st) {
    Space s = analyzeNode(n, st);
    st.space[n] = s;
    return s;
  }

  Space analyzeNode(const Node *n, GroupState &st) {
    if (st.group->cuts.count(n))
      return Space::Any;
    // A node some other group already computes (an outer group cut it:
    // `sum(minimum(x > sum(y, 0, true), prod(z, -1)), -1)`, where this group
    // is the cut minimum) is read from that group, not computed again.
    if (n != st.group->rootNode && groupOfExpr_.count(n->expr)) {
      cut(n, st);
      return Space::Any;
    }
    switch (n->kind) {
    case Node::Kind::Input:
      return Space::Any;
    case Node::Kind::Scalar:
    case Node::Kind::Constant:
      return Space::None;
    case Node::Kind::Reduce:
      return analyzeReduce(n, st);
    case Node::Kind::Stencil:
      return analyzeStencil(n, st);
    case Node::Kind::Op:
      break;
    }
    llvm::SmallVector<Space, 4> spaces;
    bool anyFull = false, anyKept = false, anyKeptB = false, anyArray = false;
    for (const Node *c : n->operands) {
      Space s = analyze(c, st);
      spaces.push_back(s);
      anyFull |= s == Space::Full;
      anyKept |= s == Space::Kept;
      anyKeptB |= s == Space::KeptB;
      anyArray |= s == Space::Any;
    }
    // A broadcastable kept value next to data of the full space (or data of
    // either space, which then is taken as full: `x - max(x, -1, true)`).
    if (anyFull || (anyKeptB && anyArray)) {
      for (auto [c, s] : llvm::zip(n->operands, spaces))
        if (s == Space::Kept)
          cut(c, st); // NumPy would align it with the trailing axes
      return Space::Full;
    }
    if (anyKept) {
      // A kept value with the reduced axes removed next to one that
      // broadcasts like keepdims: NumPy aligns them by trailing axes (an
      // outer product, `sum(x, -1) + max(x, -1, true)`), not kept element
      // by kept element. The broadcastable one is computed first.
      for (auto [c, s] : llvm::zip(n->operands, spaces))
        if (s == Space::KeptB)
          cut(c, st);
      return Space::Kept;
    }
    if (anyKeptB) {
      for (const Node *c : n->operands)
        if (st.keepdimsShape.count(c))
          st.keepdimsShape.insert(n);
      return Space::KeptB;
    }
    return anyArray ? Space::Any : Space::None;
  }

  /// Constant axes that are the leading axes 0 .. k-1 of the operand: the
  /// result without them broadcasts back as the keepdims result does (NumPy
  /// aligns by trailing axes, and those are the kept ones), `x - mean(x, 0)`.
  static bool leadingAxes(const AxesSpec &a) {
    if (a.kind != AxesSpec::Kind::Constant || a.constants.empty())
      return false;
    std::vector<long long> sorted(a.constants);
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] != static_cast<long long>(i))
        return false;
    return true;
  }

  /// A convolution joins a group without reductions or another convolution
  /// (else it is a kernel of its own): elementwise producers of its image
  /// and consumers of its result share its one space, the image's shape. A
  /// filter computed by operations is computed first.
  Space analyzeStencil(const Node *n, GroupState &st) {
    // (An update's destination is written by an elementwise kernel: a
    // convolution under it is computed first.)
    bool updateRoot = tree_.update && st.group->rootNode == tree_.rootNode;
    if (n != st.group->rootNode && (st.stencil || st.hasSpec || updateRoot)) {
      cut(n, st);
      return Space::Any;
    }
    st.stencil = n;
    analyze(n->operands[0], st);
    if (n->operands[1]->kind != Node::Kind::Input)
      cut(n->operands[1], st);
    analyze(n->operands[1], st);
    analyze(n->operands[2], st);
    return Space::Any;
  }

  Space analyzeReduce(const Node *n, GroupState &st) {
    FusedGroup &g = *st.group;
    if (n != g.rootNode && st.stencil) { // a stencil group has no reductions
      cut(n, st);
      return Space::Any;
    }
    if (n != g.rootNode && ownGroup_.count(n)) {
      cut(n, st);
      return Space::Any;
    }
    // The same axes; keepdims the same, or constants (it only shapes values).
    bool constantKeepdims = n->keepdims.kind == KeepdimsSpec::Kind::Constant &&
                            g.keepdims.kind == KeepdimsSpec::Kind::Constant;
    if (st.hasSpec && !(n->axes.sameAs(g.axes) && (constantKeepdims || n->keepdims.sameAs(g.keepdims)))) {
      cut(n, st); // other axes: a kernel of its own
      return Space::Any;
    }
    if (!st.hasSpec) {
      st.hasSpec = true;
      st.specFrom = n;
      g.axes = n->axes;
      g.keepdims = n->keepdims;
    }
    const Node *operand = n->operands[0];
    if (ownOperand_.count(n) && operand->kind == Node::Kind::Op) {
      // Computed by kernels of its own, reductions inside included: the
      // reduction reads a real array, nothing of its operand left to fold
      // (campaign seed 5038 #86: max(real(minimum(imag(u8), max(u8, -1))),
      // 0) folds to a reduction of the constant 0 with no input).
      cut(operand, st);
      st.space[operand] = Space::Any;
    } else if (isKept(analyze(operand, st))) {
      cut(operand, st); // a reduction of a reduction's result
      st.space[operand] = Space::Any;
    }
    for (size_t i = 1; i < n->operands.size(); ++i)
      analyze(n->operands[i], st);
    bool keepdims = n->keepdims.kind == KeepdimsSpec::Kind::Constant && n->keepdims.value;
    bool broadcastable = n->axes.kind == AxesSpec::Kind::All || keepdims ||
                         (n->keepdims.kind == KeepdimsSpec::Kind::Constant && leadingAxes(n->axes));
    if (keepdims)
      st.keepdimsShape.insert(n);
    return broadcastable ? Space::KeptB : Space::Kept;
  }

  /// Settles `n` (reached from a consumer in space `ctx`) and numbers leaves.
  void settle(const Node *n, Space ctx, GroupState &st) {
    FusedGroup &g = *st.group;
    bool isCut = g.cuts.count(n) && n != g.rootNode;
    Space s = isCut ? Space::Any : st.space.lookup(n);
    Space here = (s == Space::Any || s == Space::None) ? ctx : (isKept(s) ? Space::Kept : Space::Full);
    if (isCut || n->kind == Node::Kind::Input) {
      bool kept = here == Space::Kept;
      auto &index = kept ? g.keptInputIndex : g.inputIndex;
      if (!index.count(n)) {
        auto &list = kept ? g.keptInputs : g.inputs;
        index[n] = list.size();
        list.push_back(n);
        (kept ? g.keptInputTypes : g.inputTypes).push_back(n->type);
      }
      return;
    }
    if (n->kind == Node::Kind::Scalar) {
      if (!g.scalarIndex.count(n)) {
        g.scalarIndex[n] = g.scalars.size();
        g.scalars.push_back(n);
        g.scalarTypes.push_back(n->type);
      }
      return;
    }
    if (n->kind == Node::Kind::Constant)
      return;
    if (here == Space::Kept)
      g.keptSpace.insert(n);
    if (!settled_.insert(n).second)
      return;
    ++g.numOps;
    if (n->kind == Node::Kind::Stencil) { // the filter is read whole, as `taps`
      g.taps = n->operands[1];
      settle(n->operands[0], here, st);
      settle(n->operands[2], here, st);
      return;
    }
    // A reduction reads the full space; operations pass their space down.
    Space childCtx = n->kind == Node::Kind::Reduce ? Space::Full : here;
    for (const Node *c : n->operands)
      settle(c, childCtx, st);
    if (n->kind == Node::Kind::Reduce)
      g.reductions.push_back(n); // after the reductions its operand reads
  }

  const ExprTree &tree_;
  const llvm::DenseSet<const Node *> &ownGroup_, &ownOperand_;
  std::vector<std::unique_ptr<FusedGroup>> groups_;
  llvm::DenseMap<const clang::Expr *, FusedGroup *> groupOfExpr_;
  llvm::DenseSet<const Node *> settled_;
};

/// The elementwise group of `root`'s operations in stencil group `g`, with
/// `asLeaf` (the convolution, for the consumer) and g's cuts read as
/// leaves, numbered in first-use order as settle() numbers them.
std::unique_ptr<FusedGroup> subgroup(const FusedGroup &g, const Node *root,
                                     const Node *asLeaf) {
  if (root->kind != Node::Kind::Op ||
      (root != g.rootNode && g.cuts.count(root)))
    return nullptr;
  auto sg = std::make_unique<FusedGroup>();
  sg->root = root->expr;
  sg->rootNode = const_cast<Node *>(root);
  sg->cuts = g.cuts;
  if (asLeaf)
    sg->cuts.insert(asLeaf);
  llvm::DenseSet<const Node *> seen;
  std::function<void(const Node *)> walk = [&](const Node *n) {
    if (n->kind == Node::Kind::Input || (n != root && sg->cuts.count(n))) {
      if (!sg->inputIndex.count(n)) {
        sg->inputIndex[n] = sg->inputs.size();
        sg->inputs.push_back(n);
        sg->inputTypes.push_back(n->type);
      }
      return;
    }
    if (n->kind == Node::Kind::Scalar) {
      if (!sg->scalarIndex.count(n)) {
        sg->scalarIndex[n] = sg->scalars.size();
        sg->scalars.push_back(n);
        sg->scalarTypes.push_back(n->type);
      }
      return;
    }
    if (n->kind == Node::Kind::Constant || !seen.insert(n).second)
      return;
    ++sg->numOps;
    for (const Node *o : n->operands)
      walk(o);
  };
  walk(root);
  return sg;
}

} // namespace

StencilParts stencilParts(const FusedGroup &g) {
  StencilParts parts;
  parts.producer = subgroup(g, g.stencil->operands[0], nullptr);
  if (g.rootNode != g.stencil)
    parts.consumer = subgroup(g, g.rootNode, g.stencil);
  return parts;
}

std::vector<std::unique_ptr<FusedGroup>> partition(const ExprTree &tree,
                                                   const llvm::DenseSet<const Node *> &ownGroup,
                                                   const llvm::DenseSet<const Node *> &ownOperand) {
  return Partitioner(tree, ownGroup, ownOperand).run();
}

} // namespace kiln::frontend
