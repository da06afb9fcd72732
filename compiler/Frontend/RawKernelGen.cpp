//===- Frontend/RawKernelGen.cpp - KILN_RAWKERNEL functions to MLIR -------===//
//
// Walks the body of a KILN_RAWKERNEL function the way a compiler's codegen
// would (clang's Sema has already typed every expression and inserted every
// conversion) and writes the raw-kernel form (RawKernelGen.h):
//
// * each parameter and local lives in an `llvm.alloca` (LLVM's SROA turns
//   them back into SSA values on both targets);
// * statements become `cf` blocks: if, for, while, do, break, continue,
//   early return;
// * `&&`, `||` and `?:` branch, so their operands are evaluated only when
//   C++ evaluates them;
// * integer operations are signed or unsigned as their clang types say.
//
// Anything else is an error at the construct: raw kernels are scalar C++
// (docs/frontend.md, "Raw kernels").
//
//===----------------------------------------------------------------------===//
#include "Frontend/RawKernelGen.h"
#include "Dialect/Kiln/IR/KilnDialect.h"
#include "Frontend/ElementType.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <array>
#include <optional>

using namespace mlir;
namespace cl = clang;

namespace kiln::frontend {
namespace {

/// An address and the type of the value stored there (i8 for a bool).
struct LValue {
  Value ptr;
  Type stored;
  bool isBool = false;
};

/// A `kiln::span<T>` parameter: its two values.
struct SpanParam {
  Value data, size;
  clang::QualType element;
};

/// Where break, continue and return go.
struct Targets {
  Block *breakTo = nullptr, *continueTo = nullptr;
};

class RawKernelEmitter {
public:
  RawKernelEmitter(ModuleOp module, cl::ASTContext &ast, const RawErrorFn &onError, RawKernelInfo &info)
      : ctx_(module.getContext()), b_(ctx_), module_(module), ast_(ast), onError_(onError), info_(info) {}

  bool emit(StringRef name, const cl::FunctionDecl &fd) {
    if (!fd.getReturnType()->isVoidType())
      return fail(fd.getReturnTypeSourceRange().getBegin(),
                  "" + where_ + " returns void (it writes its results through pointers), not '" +
                      fd.getReturnType().getAsString() + "'");
    SmallVector<Type> params;
    for (const cl::ParmVarDecl *p : fd.parameters()) {
      if (cl::QualType elem = spanElement(p->getType()); !elem.isNull()) {
        // kiln::span<T>: (T *data, int64 size), two parameter values.
        if (!valueType(elem, p->getLocation()))
          return false;
        params.append({ptrType(), b_.getI64Type()});
        info_.paramBytes.insert(info_.paramBytes.end(), {8, 8});
        continue;
      }
      Type t = valueType(p->getType(), p->getLocation());
      if (!t)
        return false;
      params.push_back(t);
      info_.paramBytes.push_back(p->getType()->isPointerType() ? 8 : std::max<unsigned>(1, t.getIntOrFloatBitWidth() / 8));
    }
    b_.setInsertionPointToEnd(module_.getBody());
    auto fn = func::FuncOp::create(b_, loc(fd.getLocation()), name, b_.getFunctionType(params, {}));
    fn->setAttr("kiln.raw_kernel", b_.getUnitAttr());
    entry_ = fn.addEntryBlock();
    b_.setInsertionPointToStart(entry_);
    unsigned next = 0;
    for (const cl::ParmVarDecl *p : fd.parameters()) {
      if (cl::QualType elem = spanElement(p->getType()); !elem.isNull()) {
        spans_[p] = {entry_->getArgument(next), entry_->getArgument(next + 1), elem};
        next += 2;
        continue;
      }
      LValue slot = local(p->getType(), p->getLocation());
      store(slot, entry_->getArgument(next++), loc(p->getLocation()));
      vars_[p] = slot;
    }
    exit_ = new Block();
    Targets t;
    if (!stmt(fd.getBody(), t))
      return abandon(fn);
    branch(exit_, loc(fd.getEndLoc()));
    fn.getBody().push_back(exit_);
    b_.setInsertionPointToEnd(exit_);
    func::ReturnOp::create(b_, loc(fd.getEndLoc()));
    // Dynamic shared memory starts after the static arrays, 16-byte aligned.
    info_.staticSharedBytes = (sharedBytes_ + 15) / 16 * 16;
    fn.walk([&](SharedMemoryOp op) {
      if (op.getDynamic())
        op.setOffset(info_.staticSharedBytes);
    });
    fn->setAttr("kiln.static_shared", b_.getI64IntegerAttr(info_.staticSharedBytes));
    if (info_.synchronizes)
      fn->setAttr("kiln.synchronizes", b_.getUnitAttr());
    return true;
  }

  /// The element function of a kiln::elementwise lambda: parameters are the
  /// operands (captured values, then arguments) in their element types,
  /// converted to the types the lambda declares; the result is `result`.
  bool emitElement(StringRef name, const cl::CXXMethodDecl &op, ArrayRef<const cl::ValueDecl *> captures,
                   ArrayRef<ElementType> operandTypes, ElementType result) {
    element_ = true;
    where_ = "a kiln::elementwise lambda";
    if (operandTypes.size() != captures.size() + op.getNumParams())
      return fail(op.getLocation(), "kilnc: internal error: the lambda's operands do not match its parameters");
    SmallVector<Type> params;
    for (ElementType t : operandTypes) {
      if (kindOf(t) == TypeKind::Complex)
        return fail(op.getLocation(), "complex arguments are not supported in " + where_ + " yet (use kiln::real, "
                                      "kiln::imag and the array operations)");
      params.push_back(kiln::frontend::valueType(*ctx_, t));
    }
    if (kindOf(result) == TypeKind::Complex)
      return fail(op.getLocation(), "a complex result is not supported in " + where_ + " yet");
    Type resultType = kiln::frontend::valueType(*ctx_, result);
    b_.setInsertionPointToEnd(module_.getBody());
    auto fn = func::FuncOp::create(b_, loc(op.getLocation()), name, b_.getFunctionType(params, {resultType}));
    fn.setPrivate();
    fn->setAttr(kElementFunctionAttr, b_.getUnitAttr());
    // llvm.func's always_inline once func-to-llvm converts it: the call is
    // per element, in loops LLVM vectorizes on the host.
    fn->setAttr("always_inline", b_.getUnitAttr());
    fn->setAttr("llvm.linkage", LLVM::LinkageAttr::get(ctx_, LLVM::Linkage::Internal));
    entry_ = fn.addEntryBlock();
    b_.setInsertionPointToStart(entry_);
    // Each operand converts, as C++ passes it, to the type of its capture
    // or parameter.
    for (auto [i, t] : llvm::enumerate(operandTypes)) {
      const cl::ValueDecl *target = i < captures.size() ? captures[i] : op.getParamDecl(i - captures.size());
      cl::QualType to = target->getType().getNonReferenceType().getUnqualifiedType();
      LValue slot = local(to, target->getLocation());
      if (!slot.ptr)
        return fn.erase(), false;
      Location l = loc(target->getLocation());
      store(slot, convert(entry_->getArgument(i), cxxType(t), to, l), l);
      vars_[target] = slot;
      if (i < captures.size())
        captured_.insert(target);
    }
    cl::QualType declared = op.getReturnType().getNonReferenceType().getUnqualifiedType();
    LValue value = local(declared, op.getLocation());
    if (!value.ptr)
      return fn.erase(), false;
    exit_ = new Block();
    returnTo_.push_back({exit_, value});
    Targets t;
    if (!stmt(op.getBody(), t))
      return abandon(fn);
    branch(exit_, loc(op.getBody()->getEndLoc()));
    fn.getBody().push_back(exit_);
    b_.setInsertionPointToEnd(exit_);
    Location l = loc(op.getBody()->getEndLoc());
    Value r = convert(load(value, l), declared, cxxType(result), l);
    func::ReturnOp::create(b_, l, r);
    return true;
  }

private:
  /// Drops a function whose body failed to translate, and its exit block,
  /// which is not in the function's region yet (the fuzzer found it leaked).
  bool abandon(func::FuncOp fn) {
    fn.erase(); // drops the branches to exit_ with the body
    delete exit_;
    exit_ = nullptr;
    return false;
  }

  /// The C++ type of a value of element type `t` (complex: null).
  cl::QualType cxxType(ElementType t) {
    switch (t) {
    case ElementType::Bool: return ast_.BoolTy;
    case ElementType::Int8: return ast_.SignedCharTy;
    case ElementType::UInt8: return ast_.UnsignedCharTy;
    case ElementType::Int32: return ast_.IntTy;
    case ElementType::Int64: return ast_.LongTy;
    case ElementType::Float32: return ast_.FloatTy;
    case ElementType::Float64: return ast_.DoubleTy;
    default: return {};
    }
  }

  /// True (after the error) if `lhs`, which is being written, names a
  /// captured variable of an elementwise lambda.
  bool writesCapture(const cl::Expr *lhs) {
    const auto *ref = dyn_cast<cl::DeclRefExpr>(lhs->IgnoreParenImpCasts());
    if (!element_ || !ref || !captured_.count(ref->getDecl()))
      return false;
    fail(lhs->getExprLoc(), "a kiln::elementwise lambda cannot assign to the captured variable '" +
                                ref->getDecl()->getNameAsString() + "' (copy it into a local)");
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Types and places
  //===--------------------------------------------------------------------===//

  Location loc(cl::SourceLocation at) {
    cl::PresumedLoc p = ast_.getSourceManager().getPresumedLoc(ast_.getSourceManager().getExpansionLoc(at));
    if (p.isInvalid())
      return UnknownLoc::get(ctx_);
    return FileLineColLoc::get(ctx_, p.getFilename(), p.getLine(), p.getColumn());
  }

  bool fail(cl::SourceLocation at, const std::string &msg) {
    onError_(at, msg);
    return false;
  }

  Type ptrType() { return LLVM::LLVMPointerType::get(ctx_); }

  /// The MLIR type of a value of C++ type `q` (a pointer is an opaque
  /// pointer); null after an error for a type raw kernels do not take.
  Type valueType(cl::QualType q, cl::SourceLocation at) {
    q = q.getCanonicalType();
    if (q->isPointerType() && element_) {
      fail(at, "pointers are not supported in " + where_ + " (it takes and returns element values)");
      return {};
    }
    if (q->isPointerType()) {
      if (!valueType(q->getPointeeType(), at))
        return {};
      return ptrType();
    }
    if (q->isBooleanType())
      return b_.getI1Type();
    if (q->isIntegerType() && !q->isEnumeralType())
      return b_.getIntegerType(static_cast<unsigned>(ast_.getTypeSize(q)));
    if (q->isSpecificBuiltinType(cl::BuiltinType::Float))
      return b_.getF32Type();
    if (q->isSpecificBuiltinType(cl::BuiltinType::Double))
      return b_.getF64Type();
    fail(at, "type '" + q.getAsString() + "' is not supported in " + where_ +
                 (element_ ? " (scalars: bool, integers, float, double)"
                           : " (scalars: bool, integers, float, double; pointers to them)"));
    return {};
  }

  /// How a value of `t` is stored in memory (bool as a byte).
  Type storedType(Type t) { return t.isInteger(1) ? b_.getI8Type() : t; }

  /// T of `kiln::span<T>` (also const and by reference), else null.
  static cl::QualType spanElement(cl::QualType q) {
    q = q.getNonReferenceType().getCanonicalType();
    const auto *spec = dyn_cast_or_null<cl::ClassTemplateSpecializationDecl>(q->getAsCXXRecordDecl());
    if (!spec || spec->getName() != "span" || spec->getTemplateArgs().size() != 1)
      return {};
    const auto *ns = dyn_cast<cl::NamespaceDecl>(spec->getDeclContext());
    if (!ns || ns->getName() != "kiln" || !isa<cl::TranslationUnitDecl>(ns->getDeclContext()))
      return {};
    return spec->getTemplateArgs()[0].getAsType();
  }

  /// The span parameter `e` names, or null.
  const SpanParam *spanOf(const cl::Expr *e) {
    const auto *ref = dyn_cast<cl::DeclRefExpr>(e->IgnoreParenImpCasts());
    auto it = ref ? spans_.find(ref->getDecl()) : spans_.end();
    return it == spans_.end() ? nullptr : &it->second;
  }

  /// s[i] on a span parameter: the element's place.
  std::optional<LValue> spanSubscript(const cl::Expr *e, Location l) {
    const auto *op = dyn_cast<cl::CXXOperatorCallExpr>(e);
    if (!op || op->getOperator() != cl::OO_Subscript || op->getNumArgs() != 2)
      return std::nullopt;
    const SpanParam *span = spanOf(op->getArg(0));
    if (!span)
      return std::nullopt;
    Value index = rvalue(op->getArg(1));
    if (!index)
      return LValue{};
    return element(span->data, index, op->getArg(1)->getType(), span->element, l);
  }

  /// s.size() and s.data() on a span parameter, or null.
  Value spanMember(const cl::CallExpr *call) {
    const auto *mc = dyn_cast<cl::CXXMemberCallExpr>(call);
    const SpanParam *span = mc ? spanOf(mc->getImplicitObjectArgument()) : nullptr;
    if (!span)
      return {};
    std::string method = mc->getMethodDecl()->getNameAsString();
    if (method == "size")
      return span->size;
    if (method == "data")
      return span->data;
    fail(call->getExprLoc(), "kiln::span has size(), data() and [] in " + where_ + ", not '" + method + "'");
    return {};
  }

  LValue local(cl::QualType q, cl::SourceLocation at) {
    Type t = valueType(q, at);
    if (!t)
      return {};
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(entry_);
    Location l = loc(at);
    Value one = LLVM::ConstantOp::create(b_, l, b_.getI64Type(), b_.getI64IntegerAttr(1));
    Value ptr = LLVM::AllocaOp::create(b_, l, ptrType(), storedType(t), one, 0);
    return {ptr, storedType(t), t.isInteger(1)};
  }

  Value load(const LValue &lv, Location l) {
    Value v = LLVM::LoadOp::create(b_, l, lv.stored, lv.ptr);
    return lv.isBool ? arith::CmpIOp::create(b_, l, arith::CmpIPredicate::ne, v, zero(lv.stored, l)).getResult() : v;
  }

  void store(const LValue &lv, Value v, Location l) {
    if (lv.isBool)
      v = arith::ExtUIOp::create(b_, l, b_.getI8Type(), v);
    LLVM::StoreOp::create(b_, l, v, lv.ptr);
  }

  Value zero(Type t, Location l) {
    if (isa<FloatType>(t))
      return arith::ConstantOp::create(b_, l, b_.getFloatAttr(t, 0.0));
    return arith::ConstantOp::create(b_, l, b_.getIntegerAttr(t, 0));
  }

  /// Ends the current block with a branch to `to` (unless it already ends)
  /// and continues in a fresh block that nothing reaches (code after a
  /// break or return).
  void branch(Block *to, Location l) {
    Block *cur = b_.getInsertionBlock();
    if (cur->empty() || !cur->back().hasTrait<OpTrait::IsTerminator>())
      cf::BranchOp::create(b_, l, to);
  }

  Block *newBlock() {
    Block *blk = new Block();
    b_.getInsertionBlock()->getParent()->push_back(blk);
    return blk;
  }

  void startIn(Block *blk) { b_.setInsertionPointToEnd(blk); }

  void deadBlock() { startIn(newBlock()); }

  //===--------------------------------------------------------------------===//
  // Statements
  //===--------------------------------------------------------------------===//

  bool stmt(const cl::Stmt *s, const Targets &t) {
    if (!s)
      return true;
    Location l = loc(s->getBeginLoc());
    if (const auto *cs = dyn_cast<cl::CompoundStmt>(s)) {
      for (const cl::Stmt *c : cs->body())
        if (!stmt(c, t))
          return false;
      return true;
    }
    if (isa<cl::NullStmt>(s))
      return true;
    if (const auto *ds = dyn_cast<cl::DeclStmt>(s)) {
      for (const cl::Decl *d : ds->decls()) {
        const auto *vd = dyn_cast<cl::VarDecl>(d);
        if (!vd)
          return fail(d->getLocation(), "only variable declarations are supported in " + where_);
        if (vd->isStaticLocal())
          return fail(vd->getLocation(), "static local variables are not supported in " + where_ + " "
                                         "(use kiln::shared_array for memory a block shares)");
        if (const auto *uo = dyn_cast_or_null<cl::UnaryOperator>(vd->getInit() ? vd->getInit()->IgnoreImplicit() : nullptr);
            uo && uo->getOpcode() == cl::UO_AddrOf)
          if (const auto *ref = dyn_cast<cl::DeclRefExpr>(uo->getSubExpr()->IgnoreParens());
              ref && isa<cl::FunctionDecl>(ref->getDecl()))
            return fail(uo->getExprLoc(), "taking the address of '" + ref->getDecl()->getQualifiedNameAsString() +
                                              "' is not supported in " + where_ + " (call it)");
        if (isDim3(vd->getType())) {
          // `auto t = kiln::thread_idx();`: the three coordinates, read-only.
          if (!dim3Local(vd))
            return false;
          continue;
        }
        LValue slot = local(vd->getType(), vd->getLocation());
        if (!slot.ptr)
          return false;
        vars_[vd] = slot;
        if (const cl::Expr *init = vd->getInit()) {
          Value v = rvalue(init);
          if (!v)
            return false;
          store(slot, v, loc(vd->getLocation()));
        }
      }
      return true;
    }
    if (const auto *is = dyn_cast<cl::IfStmt>(s)) {
      if (is->getInit() || is->getConditionVariable() || is->isConsteval())
        return fail(is->getBeginLoc(), "an if with an initializer or a declaration is not supported in " + where_);
      Value c = condition(is->getCond());
      if (!c)
        return false;
      Block *then = newBlock(), *join = newBlock();
      Block *otherwise = is->getElse() ? newBlock() : join;
      cf::CondBranchOp::create(b_, l, c, then, otherwise);
      startIn(then);
      if (!stmt(is->getThen(), t))
        return false;
      branch(join, l);
      if (is->getElse()) {
        startIn(otherwise);
        if (!stmt(is->getElse(), t))
          return false;
        branch(join, l);
      }
      startIn(join);
      return true;
    }
    if (const auto *fs = dyn_cast<cl::ForStmt>(s)) {
      if (fs->getConditionVariable())
        return fail(fs->getBeginLoc(), "a for condition that declares a variable is not supported");
      if (!stmt(fs->getInit(), t))
        return false;
      return loop(fs->getCond(), fs->getBody(), fs->getInc(), /*bodyFirst=*/false, l);
    }
    if (const auto *ws = dyn_cast<cl::WhileStmt>(s)) {
      if (ws->getConditionVariable())
        return fail(ws->getBeginLoc(), "a while condition that declares a variable is not supported");
      return loop(ws->getCond(), ws->getBody(), nullptr, false, l);
    }
    if (const auto *dsm = dyn_cast<cl::DoStmt>(s))
      return loop(dsm->getCond(), dsm->getBody(), nullptr, true, l);
    if (isa<cl::BreakStmt>(s)) {
      if (!t.breakTo)
        return fail(s->getBeginLoc(), "break outside a loop is not supported in " + where_);
      branch(t.breakTo, l);
      deadBlock();
      return true;
    }
    if (isa<cl::ContinueStmt>(s)) {
      branch(t.continueTo, l);
      deadBlock();
      return true;
    }
    if (const auto *rs = dyn_cast<cl::ReturnStmt>(s)) {
      if (rs->getRetValue() && !returnTo_.empty()) { // an inlined helper's value
        Value v = rvalue(rs->getRetValue());
        if (!v)
          return false;
        store(returnTo_.back().second, v, l);
      }
      branch(returnTo_.empty() ? exit_ : returnTo_.back().first, l);
      deadBlock();
      return true;
    }
    if (const auto *e = dyn_cast<cl::Expr>(s))
      return static_cast<bool>(effect(e));
    return fail(s->getBeginLoc(), std::string("a ") + describe(s) + " is not supported in " + where_);
  }

  static std::string describe(const cl::Stmt *s) {
    return llvm::StringSwitch<std::string>(s->getStmtClassName())
        .Case("SwitchStmt", "switch statement")
        .Case("GotoStmt", "goto")
        .Case("CXXTryStmt", "try block")
        .Case("CXXForRangeStmt", "range-based for loop")
        .Case("GCCAsmStmt", "asm statement")
        .Default(std::string("'") + s->getStmtClassName() + "'");
  }

  /// A loop: for (;cond; inc) body, while (cond) body, do body while (cond).
  bool loop(const cl::Expr *cond, const cl::Stmt *body, const cl::Expr *inc, bool bodyFirst, Location l) {
    Block *head = newBlock(), *bodyBlk = newBlock(), *step = newBlock(), *exit = newBlock();
    branch(bodyFirst ? bodyBlk : head, l);
    startIn(head);
    if (cond) {
      Value c = condition(cond);
      if (!c)
        return false;
      cf::CondBranchOp::create(b_, l, c, bodyBlk, exit);
    } else {
      cf::BranchOp::create(b_, l, bodyBlk);
    }
    startIn(bodyBlk);
    if (!stmt(body, Targets{exit, step}))
      return false;
    branch(step, l);
    startIn(step);
    if (inc && !effect(inc))
      return false;
    backEdge(head, cond && !isConstantCondition(cond), inc && hasRuntimeBound(cond) && !synchronizes(body), l);
    startIn(exit);
    return true;
  }

  /// True when `s` calls a built-in every thread of a block or warp must
  /// reach together (syncthreads, the shuffles, ballot), directly or in a
  /// helper it calls. Such a loop is not unrolled with a remainder (the
  /// unroller must not duplicate a convergent call; asked to, LLVM warned
  /// "loop not unrolled" with no location, issue 24).
  static bool synchronizes(const cl::Stmt *s, unsigned depth = 0) {
    struct Finder : cl::RecursiveASTVisitor<Finder> {
      unsigned depth;
      bool found = false;
      bool VisitCallExpr(cl::CallExpr *call) {
        const cl::FunctionDecl *fd = call->getDirectCallee();
        if (!fd) return true;
        if (inKilnNamespace(fd, /*nested=*/true)) {
          llvm::StringRef name = fd->getIdentifier() ? fd->getName() : "";
          found |= name == "syncthreads" || name.starts_with("shfl") || name == "ballot";
        } else if (const cl::Stmt *body = fd->getBody(); body && depth < 16 && !fd->isInStdNamespace()) {
          found |= synchronizes(body, depth + 1);
        }
        return !found;
      }
    };
    Finder f;
    f.depth = depth;
    f.TraverseStmt(const_cast<cl::Stmt *>(s));
    return f.found;
  }

  /// The branch from a loop's end to its head. A C++ loop whose condition
  /// is not a constant may be assumed to terminate ([intro.progress]; clang
  /// marks it `llvm.loop.mustprogress`): with that, LLVM computes the trip
  /// count of a grid-stride loop and unrolls it.
  void backEdge(Block *head, bool mustProgress, bool unroll, Location l) {
    Block *cur = b_.getInsertionBlock();
    if (!cur->empty() && cur->back().hasTrait<OpTrait::IsTerminator>())
      return;
    if (!mustProgress) {
      cf::BranchOp::create(b_, l, head);
      return;
    }
    // A counted loop with a bound known only at run time (a grid-stride
    // loop) is unrolled by 4 with a remainder, as nvcc does: four loads in
    // flight a thread instead of one (LLVM's NVPTX target does not unroll
    // runtime trip counts by itself).
    LLVM::LoopUnrollAttr unrollBy4;
    if (unroll)
      unrollBy4 = LLVM::LoopUnrollAttr::get(ctx_, {}, b_.getI32IntegerAttr(4), {}, {}, {}, {}, {});
    auto annotation = LLVM::LoopAnnotationAttr::get(ctx_, {}, {}, {}, unrollBy4, {}, {}, {}, {}, {}, {},
                                                    BoolAttr::get(ctx_, true), {}, {}, {}, {});
    LLVM::BrOp::create(b_, l, ValueRange{}, annotation, head);
  }

  /// A comparison of two values neither of which is a constant (i < n).
  bool hasRuntimeBound(const cl::Expr *cond) {
    const auto *cmp = cond ? dyn_cast<cl::BinaryOperator>(cond->IgnoreParenImpCasts()) : nullptr;
    if (!cmp || !cmp->isRelationalOp())
      return false;
    auto constant = [&](const cl::Expr *e) { return !e->isValueDependent() && e->isEvaluatable(ast_); };
    return !constant(cmp->getLHS()) && !constant(cmp->getRHS());
  }

  bool isConstantCondition(const cl::Expr *cond) {
    bool value = false;
    return !cond->isValueDependent() && cond->EvaluateAsBooleanCondition(value, ast_);
  }

  /// A condition as i1 (clang has converted it to bool).
  Value condition(const cl::Expr *e) { return rvalue(e); }

  /// An expression evaluated for its effects; null after an error.
  bool effect(const cl::Expr *e) {
    e = e->IgnoreParens();
    if (const auto *c = dyn_cast<cl::ExprWithCleanups>(e))
      e = c->getSubExpr();
    if (const auto *call = dyn_cast<cl::CallExpr>(e); call && call->getType()->isVoidType())
      return callVoid(call);
    if (const auto *cast = dyn_cast<cl::CStyleCastExpr>(e); cast && cast->getType()->isVoidType())
      return true; // (void)x
    return static_cast<bool>(rvalue(e));
  }

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  bool isUnsigned(cl::QualType q) { return q->isUnsignedIntegerOrEnumerationType() || q->isBooleanType(); }

  /// Converts `v` of C++ type `from` to C++ type `to`.
  Value convert(Value v, cl::QualType from, cl::QualType to, Location l) {
    Type target = valueType(to, {});
    if (!target || v.getType() == target)
      return v;
    Type source = v.getType();
    if (target.isInteger(1)) { // to bool: != 0
      if (isa<FloatType>(source))
        return arith::CmpFOp::create(b_, l, arith::CmpFPredicate::UNE, v, zero(source, l));
      if (isa<LLVM::LLVMPointerType>(source)) {
        Value null = LLVM::ZeroOp::create(b_, l, ptrType());
        return LLVM::ICmpOp::create(b_, l, LLVM::ICmpPredicate::ne, v, null);
      }
      return arith::CmpIOp::create(b_, l, arith::CmpIPredicate::ne, v, zero(source, l));
    }
    if (isa<FloatType>(target)) {
      if (isa<FloatType>(source))
        return target.getIntOrFloatBitWidth() > source.getIntOrFloatBitWidth()
                   ? arith::ExtFOp::create(b_, l, target, v).getResult()
                   : arith::TruncFOp::create(b_, l, target, v).getResult();
      return isUnsigned(from) ? arith::UIToFPOp::create(b_, l, target, v).getResult()
                              : arith::SIToFPOp::create(b_, l, target, v).getResult();
    }
    if (isa<FloatType>(source))
      return isUnsigned(to) ? arith::FPToUIOp::create(b_, l, target, v).getResult()
                            : arith::FPToSIOp::create(b_, l, target, v).getResult();
    unsigned tw = target.getIntOrFloatBitWidth(), sw = source.getIntOrFloatBitWidth();
    if (tw < sw)
      return arith::TruncIOp::create(b_, l, target, v);
    return isUnsigned(from) ? arith::ExtUIOp::create(b_, l, target, v).getResult()
                            : arith::ExtSIOp::create(b_, l, target, v).getResult();
  }

  Value rvalue(const cl::Expr *e) {
    Location l = loc(e->getExprLoc());
    e = e->IgnoreParens();
    if (const auto *c = dyn_cast<cl::ExprWithCleanups>(e))
      return rvalue(c->getSubExpr());
    if (const auto *d = dyn_cast<cl::CXXDefaultArgExpr>(e)) // shfl_down(v, d) and its width = 32
      return rvalue(d->getExpr());
    if (const auto *m = dyn_cast<cl::MaterializeTemporaryExpr>(e)) // a value bound to a const reference
      return rvalue(m->getSubExpr());
    if (const auto *lit = dyn_cast<cl::IntegerLiteral>(e)) {
      Type t = valueType(e->getType(), e->getExprLoc());
      return arith::ConstantOp::create(b_, l, b_.getIntegerAttr(t, lit->getValue().getSExtValue()));
    }
    if (const auto *lit = dyn_cast<cl::CharacterLiteral>(e)) {
      Type t = valueType(e->getType(), e->getExprLoc());
      return arith::ConstantOp::create(b_, l, b_.getIntegerAttr(t, lit->getValue()));
    }
    if (const auto *lit = dyn_cast<cl::FloatingLiteral>(e)) {
      Type t = valueType(e->getType(), e->getExprLoc());
      if (!t)
        return {};
      return arith::ConstantOp::create(b_, l, b_.getFloatAttr(t, lit->getValueAsApproximateDouble()));
    }
    if (const auto *lit = dyn_cast<cl::CXXBoolLiteralExpr>(e))
      return arith::ConstantOp::create(b_, l, b_.getBoolAttr(lit->getValue()));
    if (const auto *cast = dyn_cast<cl::CastExpr>(e))
      return castExpr(cast, l);
    if (const auto *bo = dyn_cast<cl::BinaryOperator>(e))
      return binary(bo, l);
    if (const auto *uo = dyn_cast<cl::UnaryOperator>(e))
      return unary(uo, l);
    if (const auto *co = dyn_cast<cl::ConditionalOperator>(e))
      return conditional(co, l);
    if (const auto *call = dyn_cast<cl::CallExpr>(e))
      return callValue(call, l);
    if (const auto *me = dyn_cast<cl::MemberExpr>(e))
      return member(me, l);
    if (e->isGLValue()) {
      LValue lv = lvalue(e);
      return lv.ptr ? load(lv, l) : Value();
    }
    std::string what = isa<cl::CXXThrowExpr>(e)                         ? "exceptions ('throw')"
                       : isa<cl::CXXNewExpr>(e) || isa<cl::CXXDeleteExpr>(e) ? "'new' and 'delete'"
                       : isa<cl::LambdaExpr>(e)                              ? "a lambda"
                                                 : std::string("this expression ('") + e->getStmtClassName() + "')";
    fail(e->getExprLoc(), what + (isa<cl::CXXThrowExpr>(e) || isa<cl::CXXNewExpr>(e) || isa<cl::CXXDeleteExpr>(e)
                                      ? " are"
                                      : " is") +
                              " not supported in " + where_);
    return {};
  }

  Value castExpr(const cl::CastExpr *c, Location l) {
    const cl::Expr *sub = c->getSubExpr();
    switch (c->getCastKind()) {
    case cl::CK_LValueToRValue: {
      if (const auto *me = dyn_cast<cl::MemberExpr>(sub->IgnoreParens())) // thread_idx().x
        return member(me, l);
      if (const auto *co = dyn_cast<cl::ConditionalOperator>(sub->IgnoreParens()))
        return conditional(co, l); // `a > b ? a : b` of two places: the value chosen
      if (Value v = namedConstant(c, sub, l))
        return v; // a constant the body names without capturing it (const int n = 4)
      if (const auto *call = dyn_cast<cl::CallExpr>(sub->IgnoreParens()); call && !isa<cl::CXXOperatorCallExpr>(call))
        return callValue(call, l); // a helper returning a reference to const (std::max)
      LValue lv = lvalue(sub);
      return lv.ptr ? load(lv, l) : Value();
    }
    case cl::CK_NoOp:
    case cl::CK_ArrayToPointerDecay:
      return rvalue(sub);
    case cl::CK_IntegralCast:
    case cl::CK_IntegralToFloating:
    case cl::CK_FloatingToIntegral:
    case cl::CK_FloatingCast:
    case cl::CK_IntegralToBoolean:
    case cl::CK_FloatingToBoolean:
    case cl::CK_PointerToBoolean:
    case cl::CK_BooleanToSignedIntegral: {
      Value v = rvalue(sub);
      return v ? convert(v, sub->getType(), c->getType(), l) : Value();
    }
    case cl::CK_NullToPointer:
      return LLVM::ZeroOp::create(b_, l, ptrType());
    case cl::CK_BitCast:
      if (c->getType()->isPointerType() && sub->getType()->isPointerType())
        return rvalue(sub);
      break;
    default:
      break;
    }
    fail(c->getExprLoc(), std::string("the conversion '") + c->getCastKindName() +
                              "' is not supported in " + where_);
    return {};
  }

  /// The value of `read` (an lvalue-to-rvalue read of `place`) when
  /// `place` names a variable outside the function that C++ lets it read
  /// without capturing (a constant), else null.
  Value namedConstant(const cl::Expr *read, const cl::Expr *place, Location l) {
    const auto *ref = dyn_cast<cl::DeclRefExpr>(place->IgnoreParens());
    if (!ref || vars_.count(ref->getDecl()))
      return {};
    const auto *vd = dyn_cast<cl::VarDecl>(ref->getDecl());
    cl::Expr::EvalResult r;
    if (!vd || !vd->isUsableInConstantExpressions(ast_) || !read->EvaluateAsRValue(r, ast_))
      return {};
    Type t = valueType(read->getType(), read->getExprLoc());
    if (!t)
      return {};
    if (r.Val.isInt())
      return arith::ConstantOp::create(b_, l, b_.getIntegerAttr(t, r.Val.getInt().getSExtValue()));
    if (r.Val.isFloat() && isa<FloatType>(t))
      return arith::ConstantOp::create(b_, l, b_.getFloatAttr(t, r.Val.getFloat().convertToDouble()));
    return {};
  }

  LValue lvalue(const cl::Expr *e) {
    e = e->IgnoreParens();
    Location l = loc(e->getExprLoc());
    if (std::optional<LValue> lv = spanSubscript(e, l))
      return *lv;
    if (const auto *ref = dyn_cast<cl::DeclRefExpr>(e)) {
      auto it = vars_.find(ref->getDecl());
      if (it != vars_.end())
        return it->second;
      fail(e->getExprLoc(), "'" + ref->getDecl()->getNameAsString() +
                                "' is not a parameter or local of " + std::string(element_ ? "the lambda" : "the kernel") +
                                " (globals are not supported in " + where_ + ")");
      return {};
    }
    if (const auto *sub = dyn_cast<cl::ArraySubscriptExpr>(e)) {
      Value base = rvalue(sub->getBase()), index = rvalue(sub->getIdx());
      if (!base || !index)
        return {};
      return element(base, index, sub->getIdx()->getType(), e->getType(), l);
    }
    if (const auto *uo = dyn_cast<cl::UnaryOperator>(e); uo && uo->getOpcode() == cl::UO_Deref) {
      Value base = rvalue(uo->getSubExpr());
      Type t = valueType(e->getType(), e->getExprLoc());
      if (!base || !t)
        return {};
      return {base, storedType(t), t.isInteger(1)};
    }
    if (const auto *bo = dyn_cast<cl::BinaryOperator>(e); bo && (bo->isAssignmentOp())) {
      if (!binary(bo, l))
        return {};
      return lvalue(bo->getLHS());
    }
    if (const auto *uo = dyn_cast<cl::UnaryOperator>(e); uo && uo->isPrefix() && uo->isIncrementDecrementOp()) {
      if (!unary(uo, l))
        return {};
      return lvalue(uo->getSubExpr());
    }
    fail(e->getExprLoc(), std::string("this place ('") + e->getStmtClassName() +
                              "') is not supported in " + where_);
    return {};
  }

  /// The address of base[index] for elements of C++ type `elem`.
  LValue element(Value base, Value index, cl::QualType indexType, cl::QualType elem, Location l) {
    Type t = valueType(elem, {});
    if (!t)
      return {};
    Value i64 = index.getType().isInteger(64) ? index
                : isUnsigned(indexType)      ? arith::ExtUIOp::create(b_, l, b_.getI64Type(), index).getResult()
                                             : arith::ExtSIOp::create(b_, l, b_.getI64Type(), index).getResult();
    Value ptr = LLVM::GEPOp::create(b_, l, ptrType(), storedType(t), base, ValueRange{i64});
    return {ptr, storedType(t), t.isInteger(1)};
  }

  Value arithmetic(cl::BinaryOperatorKind op, Value a, Value x, cl::QualType type, cl::SourceLocation at,
                   Location l) {
    bool f = isa<FloatType>(a.getType()), u = isUnsigned(type);
    if (isa<LLVM::LLVMPointerType>(a.getType())) {
      fail(at, "pointer arithmetic is not supported in " + where_ + " (index the pointer: p[i])");
      return {};
    }
    // Signed overflow is undefined in C++ (clang marks these nsw): LLVM
    // then knows a grid-stride loop's trip count and unrolls it.
    arith::IntegerOverflowFlags ov = u ? arith::IntegerOverflowFlags::none : arith::IntegerOverflowFlags::nsw;
    switch (op) {
    case cl::BO_Add: return f ? arith::AddFOp::create(b_, l, a, x).getResult() : arith::AddIOp::create(b_, l, a, x, ov).getResult();
    case cl::BO_Sub: return f ? arith::SubFOp::create(b_, l, a, x).getResult() : arith::SubIOp::create(b_, l, a, x, ov).getResult();
    case cl::BO_Mul: return f ? arith::MulFOp::create(b_, l, a, x).getResult() : arith::MulIOp::create(b_, l, a, x, ov).getResult();
    case cl::BO_Div:
      return f ? arith::DivFOp::create(b_, l, a, x).getResult()
             : u ? arith::DivUIOp::create(b_, l, a, x).getResult() : arith::DivSIOp::create(b_, l, a, x).getResult();
    case cl::BO_Rem:
      return f ? arith::RemFOp::create(b_, l, a, x).getResult()
             : u ? arith::RemUIOp::create(b_, l, a, x).getResult() : arith::RemSIOp::create(b_, l, a, x).getResult();
    case cl::BO_Shl: return arith::ShLIOp::create(b_, l, a, x);
    case cl::BO_Shr: return u ? arith::ShRUIOp::create(b_, l, a, x).getResult() : arith::ShRSIOp::create(b_, l, a, x).getResult();
    case cl::BO_And: return arith::AndIOp::create(b_, l, a, x);
    case cl::BO_Or: return arith::OrIOp::create(b_, l, a, x);
    case cl::BO_Xor: return arith::XOrIOp::create(b_, l, a, x);
    default: break;
    }
    fail(at, "this operator is not supported in " + where_);
    return {};
  }

  Value compare(cl::BinaryOperatorKind op, Value a, Value x, cl::QualType operandType, Location l) {
    if (isa<FloatType>(a.getType())) {
      arith::CmpFPredicate p = op == cl::BO_LT   ? arith::CmpFPredicate::OLT
                               : op == cl::BO_LE ? arith::CmpFPredicate::OLE
                               : op == cl::BO_GT ? arith::CmpFPredicate::OGT
                               : op == cl::BO_GE ? arith::CmpFPredicate::OGE
                               : op == cl::BO_EQ ? arith::CmpFPredicate::OEQ
                                                 : arith::CmpFPredicate::UNE;
      return arith::CmpFOp::create(b_, l, p, a, x);
    }
    bool u = isUnsigned(operandType);
    arith::CmpIPredicate p = op == cl::BO_LT   ? (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
                             : op == cl::BO_LE ? (u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
                             : op == cl::BO_GT ? (u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                             : op == cl::BO_GE ? (u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge)
                             : op == cl::BO_EQ ? arith::CmpIPredicate::eq
                                               : arith::CmpIPredicate::ne;
    if (isa<LLVM::LLVMPointerType>(a.getType()))
      return LLVM::ICmpOp::create(b_, l, op == cl::BO_EQ ? LLVM::ICmpPredicate::eq : LLVM::ICmpPredicate::ne, a, x);
    return arith::CmpIOp::create(b_, l, p, a, x);
  }

  Value binary(const cl::BinaryOperator *bo, Location l) {
    cl::BinaryOperatorKind op = bo->getOpcode();
    if (op == cl::BO_LAnd || op == cl::BO_LOr)
      return shortCircuit(bo, l);
    if (op == cl::BO_Comma) {
      if (!effect(bo->getLHS()))
        return {};
      return rvalue(bo->getRHS());
    }
    if (bo->isAssignmentOp() && writesCapture(bo->getLHS()))
      return {};
    if (op == cl::BO_Assign) {
      Value v = rvalue(bo->getRHS());
      if (!v)
        return {};
      LValue dst = lvalue(bo->getLHS());
      if (!dst.ptr)
        return {};
      store(dst, v, l);
      return v;
    }
    if (const auto *ca = dyn_cast<cl::CompoundAssignOperator>(bo)) {
      // x op= y: computed in the computation type, converted back to x's
      // (y is evaluated first, as C++17 sequences it).
      Value y = rvalue(bo->getRHS());
      if (!y)
        return {};
      LValue dst = lvalue(bo->getLHS());
      if (!dst.ptr)
        return {};
      Value x = convert(load(dst, l), bo->getLHS()->getType(), ca->getComputationLHSType(), l);
      Value r = arithmetic(cl::BinaryOperator::getOpForCompoundAssignment(op), x, y, ca->getComputationResultType(),
                           bo->getOperatorLoc(), l);
      if (!r)
        return {};
      r = convert(r, ca->getComputationResultType(), bo->getLHS()->getType(), l);
      store(dst, r, l);
      return r;
    }
    Value a = rvalue(bo->getLHS()), x = rvalue(bo->getRHS());
    if (!a || !x)
      return {};
    if (bo->isComparisonOp())
      return compare(op, a, x, bo->getLHS()->getType(), l);
    return arithmetic(op, a, x, bo->getType(), bo->getOperatorLoc(), l);
  }

  /// a && b, a || b: b only when C++ evaluates it.
  Value shortCircuit(const cl::BinaryOperator *bo, Location l) {
    Value a = rvalue(bo->getLHS());
    if (!a)
      return {};
    Block *rhs = newBlock(), *join = newBlock();
    join->addArgument(b_.getI1Type(), l);
    bool isAnd = bo->getOpcode() == cl::BO_LAnd;
    Value decided = arith::ConstantOp::create(b_, l, b_.getBoolAttr(!isAnd));
    if (isAnd)
      cf::CondBranchOp::create(b_, l, a, rhs, ValueRange{}, join, ValueRange{decided});
    else
      cf::CondBranchOp::create(b_, l, a, join, ValueRange{decided}, rhs, ValueRange{});
    startIn(rhs);
    Value x = rvalue(bo->getRHS());
    if (!x)
      return {};
    cf::BranchOp::create(b_, l, join, ValueRange{x});
    startIn(join);
    return join->getArgument(0);
  }

  Value conditional(const cl::ConditionalOperator *co, Location l) {
    Value c = rvalue(co->getCond());
    Type t = valueType(co->getType(), co->getExprLoc());
    if (!c || !t)
      return {};
    Block *yes = newBlock(), *no = newBlock(), *join = newBlock();
    join->addArgument(t, l);
    cf::CondBranchOp::create(b_, l, c, yes, no);
    for (auto [blk, e] : {std::pair{yes, co->getTrueExpr()}, std::pair{no, co->getFalseExpr()}}) {
      startIn(blk);
      Value v = rvalue(e);
      if (!v)
        return {};
      cf::BranchOp::create(b_, l, join, ValueRange{v});
    }
    startIn(join);
    return join->getArgument(0);
  }

  Value unary(const cl::UnaryOperator *uo, Location l) {
    const cl::Expr *sub = uo->getSubExpr();
    switch (uo->getOpcode()) {
    case cl::UO_Minus: {
      Value v = rvalue(sub);
      if (!v)
        return {};
      return isa<FloatType>(v.getType()) ? arith::NegFOp::create(b_, l, v).getResult()
                                          : arith::SubIOp::create(b_, l, zero(v.getType(), l), v).getResult();
    }
    case cl::UO_Plus:
      return rvalue(sub);
    case cl::UO_LNot: {
      Value v = rvalue(sub);
      return v ? arith::XOrIOp::create(b_, l, v, arith::ConstantOp::create(b_, l, b_.getBoolAttr(true))).getResult()
               : Value();
    }
    case cl::UO_Not: {
      Value v = rvalue(sub);
      if (!v)
        return {};
      Value ones = arith::ConstantOp::create(b_, l, b_.getIntegerAttr(v.getType(), -1));
      return arith::XOrIOp::create(b_, l, v, ones);
    }
    case cl::UO_Deref: {
      LValue lv = lvalue(uo);
      return lv.ptr ? load(lv, l) : Value();
    }
    case cl::UO_PreInc:
    case cl::UO_PreDec:
    case cl::UO_PostInc:
    case cl::UO_PostDec: {
      if (writesCapture(sub))
        return {};
      LValue lv = lvalue(sub);
      if (!lv.ptr)
        return {};
      if (lv.isBool || isa<LLVM::LLVMPointerType>(lv.stored))
        return fail(uo->getExprLoc(), "++ and -- of a bool or a pointer are not supported in " + where_),
               Value();
      Value old = load(lv, l);
      Type t = old.getType();
      Value one = isa<FloatType>(t) ? arith::ConstantOp::create(b_, l, b_.getFloatAttr(t, 1.0)).getResult()
                                    : arith::ConstantOp::create(b_, l, b_.getIntegerAttr(t, 1)).getResult();
      bool inc = uo->isIncrementOp();
      arith::IntegerOverflowFlags ov =
          isUnsigned(sub->getType()) ? arith::IntegerOverflowFlags::none : arith::IntegerOverflowFlags::nsw;
      Value now = isa<FloatType>(t)
                      ? (inc ? arith::AddFOp::create(b_, l, old, one).getResult() : arith::SubFOp::create(b_, l, old, one).getResult())
                      : (inc ? arith::AddIOp::create(b_, l, old, one, ov).getResult()
                             : arith::SubIOp::create(b_, l, old, one, ov).getResult());
      store(lv, now, l);
      return uo->isPrefix() ? now : old;
    }
    case cl::UO_AddrOf: {
      // &p[i] and &*p name memory the pointer already reaches (atomics take
      // them); the address of a local or parameter is not supported.
      const cl::Expr *place = uo->getSubExpr()->IgnoreParens();
      bool memory = isa<cl::ArraySubscriptExpr>(place) ||
                    (isa<cl::UnaryOperator>(place) && cast<cl::UnaryOperator>(place)->getOpcode() == cl::UO_Deref) ||
                    (isa<cl::CXXOperatorCallExpr>(place) && spanOf(cast<cl::CXXOperatorCallExpr>(place)->getArg(0)));
      if (!memory) {
        fail(uo->getExprLoc(), "taking the address ('&') of a local, a parameter or a built-in is not supported in " + where_ +
                               " (&p[i] of a pointer or span element is)");
        return {};
      }
      return lvalue(place).ptr;
    }
    default:
      break;
    }
    fail(uo->getExprLoc(), "this operator is not supported in " + where_);
    return {};
  }

  //===--------------------------------------------------------------------===//
  // Calls: built-ins, <cmath>, helpers (inlined)
  //===--------------------------------------------------------------------===//

  /// The name of a function of namespace kiln, or "".
  static std::string kilnName(const cl::FunctionDecl *f) {
    if (!f)
      return "";
    const auto *ns = dyn_cast<cl::NamespaceDecl>(f->getDeclContext()->getEnclosingNamespaceContext());
    return ns && ns->getName() == "kiln" && isa<cl::TranslationUnitDecl>(ns->getDeclContext()) ? f->getNameAsString()
                                                                                            : "";
  }

  /// thread_idx().x and friends: the index op of `fn` along `dim` as i32.
  Value dimension(StringRef fn, StringRef field, Location l) {
    gpu::Dimension d = field == "x" ? gpu::Dimension::x : field == "y" ? gpu::Dimension::y : gpu::Dimension::z;
    Value v = fn == "thread_idx"  ? gpu::ThreadIdOp::create(b_, l, d).getResult()
              : fn == "block_idx" ? gpu::BlockIdOp::create(b_, l, d).getResult()
              : fn == "block_dim" ? gpu::BlockDimOp::create(b_, l, d).getResult()
                                  : gpu::GridDimOp::create(b_, l, d).getResult();
    return arith::IndexCastUIOp::create(b_, l, b_.getI32Type(), v);
  }

  /// `kiln::dim3`, the type of thread_idx() and friends.
  static bool isDim3(cl::QualType q) {
    const auto *rd = q.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
    const auto *ns = rd ? dyn_cast<cl::NamespaceDecl>(rd->getDeclContext()) : nullptr;
    return ns && rd->getName() == "dim3" && ns->getName() == "kiln" && isa<cl::TranslationUnitDecl>(ns->getDeclContext());
  }

  /// A local kiln::dim3 initialized by a built-in (or another such local).
  bool dim3Local(const cl::VarDecl *vd) {
    const cl::Expr *init = vd->getInit() ? vd->getInit()->IgnoreImplicit() : nullptr;
    if (const auto *ctor = dyn_cast_or_null<cl::CXXConstructExpr>(init); ctor && ctor->getNumArgs() == 1)
      init = ctor->getArg(0)->IgnoreImplicit();
    if (const auto *ref = dyn_cast_or_null<cl::DeclRefExpr>(init); ref && dims_.count(ref->getDecl())) {
      dims_[vd] = dims_[ref->getDecl()];
      return true;
    }
    const auto *call = dyn_cast_or_null<cl::CallExpr>(init);
    std::string fn = call ? kilnName(call->getDirectCallee()) : "";
    if (fn != "thread_idx" && fn != "block_idx" && fn != "block_dim" && fn != "grid_dim")
      return fail(vd->getLocation(), "a kiln::dim3 local is initialized by kiln::thread_idx(), block_idx(), "
                                     "block_dim() or grid_dim() in " + where_);
    Location l = loc(vd->getLocation());
    auto &xyz = dims_[vd];
    const StringRef fields[] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i)
      xyz[i] = dimension(fn, fields[i], l);
    return true;
  }

  Value member(const cl::MemberExpr *me, Location l) {
    if (const auto *call = dyn_cast<cl::CallExpr>(me->getBase()->IgnoreImplicit()); call && element_) {
      std::string fn = kilnName(call->getDirectCallee());
      if (!fn.empty())
        return builtin(fn, call, l);
    }
    if (const auto *ref = dyn_cast<cl::DeclRefExpr>(me->getBase()->IgnoreImplicit()); ref && dims_.count(ref->getDecl())) {
      StringRef field = me->getMemberDecl()->getName();
      return dims_[ref->getDecl()][field == "x" ? 0 : field == "y" ? 1 : 2];
    }
    const auto *call = dyn_cast<cl::CallExpr>(me->getBase()->IgnoreImplicit());
    std::string fn = call ? kilnName(call->getDirectCallee()) : "";
    if (fn == "thread_idx" || fn == "block_idx" || fn == "block_dim" || fn == "grid_dim")
      return dimension(fn, me->getMemberDecl()->getName(), l);
    fail(me->getExprLoc(), "member access is supported on kiln::thread_idx(), block_idx(), block_dim() and "
                           "grid_dim() only in " + where_);
    return {};
  }

  Value index64(gpu::Dimension d, bool block, Location l) {
    Value v = block ? gpu::BlockIdOp::create(b_, l, d).getResult() : gpu::ThreadIdOp::create(b_, l, d).getResult();
    return arith::IndexCastUIOp::create(b_, l, b_.getI64Type(), v);
  }

  bool callVoid(const cl::CallExpr *call) {
    Location l = loc(call->getExprLoc());
    std::string fn = kilnName(call->getDirectCallee());
    if (!fn.empty() && element_)
      return static_cast<bool>(builtin(fn, call, l));
    if (fn == "syncthreads") {
      gpu::BarrierOp::create(b_, l);
      info_.synchronizes = true;
      return true;
    }
    return static_cast<bool>(callValue(call, l, /*allowVoid=*/true));
  }

  Value callValue(const cl::CallExpr *call, Location l, bool allowVoid = false) {
    if (std::optional<LValue> lv = spanSubscript(call, l))
      return lv->ptr ? load(*lv, l) : Value();
    if (isa<cl::CXXMemberCallExpr>(call) && spanOf(cast<cl::CXXMemberCallExpr>(call)->getImplicitObjectArgument()))
      return spanMember(call);
    const cl::FunctionDecl *callee = call->getDirectCallee();
    if (!callee) {
      fail(call->getExprLoc(), "only direct calls are supported in " + where_ + " (no function "
                               "pointers, lambdas or virtual calls)");
      return {};
    }
    if (const auto *md = dyn_cast<cl::CXXMethodDecl>(callee); md && md->isVirtual()) {
      fail(call->getExprLoc(), "a virtual call is not supported in " + where_);
      return {};
    }
    std::string kfn = kilnName(callee);
    if (!kfn.empty())
      return builtin(kfn, call, l);
    if (isIO(callee)) {
      fail(call->getExprLoc(), "input/output ('" + callee->getQualifiedNameAsString() + "') is not supported in " +
                                   where_ + " (write results to memory)");
      return {};
    }
    if (Value v = cmath(callee, call, l))
      return v;
    if (failed_)
      return {};
    return inlineCall(callee, call, l, allowVoid);
  }

  Value builtin(const std::string &fn, const cl::CallExpr *call, Location l) {
    if (element_) {
      fail(call->getExprLoc(), "kiln::" + fn + " is not supported in " + where_ +
                                   " (it runs once per element; thread built-ins belong in a KILN_RAWKERNEL "
                                   "function)");
      return {};
    }
    if (fn == "global_thread_id") {
      Value bid = index64(gpu::Dimension::x, true, l), tid = index64(gpu::Dimension::x, false, l);
      Value bdim = arith::IndexCastUIOp::create(b_, l, b_.getI64Type(), gpu::BlockDimOp::create(b_, l, gpu::Dimension::x));
      auto nuw = arith::IntegerOverflowFlags::nuw | arith::IntegerOverflowFlags::nsw;
      return arith::AddIOp::create(b_, l, arith::MulIOp::create(b_, l, bid, bdim, nuw), tid, nuw);
    }
    if (fn == "grid_stride") {
      Value g = arith::IndexCastUIOp::create(b_, l, b_.getI64Type(), gpu::GridDimOp::create(b_, l, gpu::Dimension::x));
      Value bdim = arith::IndexCastUIOp::create(b_, l, b_.getI64Type(), gpu::BlockDimOp::create(b_, l, gpu::Dimension::x));
      return arith::MulIOp::create(b_, l, g, bdim, arith::IntegerOverflowFlags::nuw | arith::IntegerOverflowFlags::nsw);
    }
    if (fn == "lane_id")
      return arith::IndexCastUIOp::create(b_, l, b_.getI32Type(), gpu::LaneIdOp::create(b_, l, nullptr));
    if (fn == "shared_array" || fn == "dynamic_shared") {
      const cl::TemplateArgumentList *args = call->getDirectCallee()->getTemplateSpecializationArgs();
      Type t = args ? valueType(args->get(0).getAsType(), call->getExprLoc()) : Type();
      if (!t)
        return {};
      unsigned bytes = std::max(1u, storedType(t).getIntOrFloatBitWidth() / 8);
      if (fn == "dynamic_shared")
        return SharedMemoryOp::create(b_, l, ptrType(), b_.getI64IntegerAttr(0), b_.getUnitAttr());
      std::uint64_t n = args->get(1).getAsIntegral().getZExtValue();
      sharedBytes_ = (sharedBytes_ + bytes - 1) / bytes * bytes; // aligned to the element
      Value p = SharedMemoryOp::create(b_, l, ptrType(), b_.getI64IntegerAttr(sharedBytes_), UnitAttr());
      sharedBytes_ += n * bytes;
      return p;
    }
    if (fn.starts_with("atomic_"))
      return atomic(fn, call, l);
    if (fn == "shfl" || fn == "shfl_up" || fn == "shfl_down" || fn == "shfl_xor")
      return shuffle(fn, call, l);
    if (fn == "ballot" && call->getNumArgs() == 1) {
      Value p = rvalue(call->getArg(0));
      if (!p)
        return {};
      p = convert(p, call->getArg(0)->getType(), ast_.BoolTy, l);
      info_.synchronizes = true;
      return BallotOp::create(b_, l, b_.getI32Type(), p);
    }
    fail(call->getExprLoc(), "kiln::" + fn + " is not supported in " + where_ + " yet");
    return {};
  }

  Value atomic(const std::string &fn, const cl::CallExpr *call, Location l) {
    if (call->getNumArgs() < 2)
      return fail(call->getExprLoc(), "kiln::" + fn + " takes a pointer and a value"), Value();
    Value p = rvalue(call->getArg(0)), v = rvalue(call->getArg(1));
    if (!p || !v)
      return {};
    bool f = isa<FloatType>(v.getType()), u = isUnsigned(call->getArg(1)->getType());
    if (fn == "atomic_cas") {
      Value desired = call->getNumArgs() > 2 ? rvalue(call->getArg(2)) : Value();
      if (!desired)
        return {};
      auto pair = LLVM::AtomicCmpXchgOp::create(b_, l, p, v, desired, LLVM::AtomicOrdering::monotonic,
                                                LLVM::AtomicOrdering::monotonic);
      return LLVM::ExtractValueOp::create(b_, l, pair, ArrayRef<int64_t>{0});
    }
    std::optional<LLVM::AtomicBinOp> op;
    if (fn == "atomic_add") op = f ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
    else if (fn == "atomic_sub") op = f ? LLVM::AtomicBinOp::fsub : LLVM::AtomicBinOp::sub;
    else if (fn == "atomic_exch") op = LLVM::AtomicBinOp::xchg;
    else if (fn == "atomic_max" && !f) op = u ? LLVM::AtomicBinOp::umax : LLVM::AtomicBinOp::max;
    else if (fn == "atomic_min" && !f) op = u ? LLVM::AtomicBinOp::umin : LLVM::AtomicBinOp::min;
    if (!op || v.getType().isInteger(1)) {
      fail(call->getExprLoc(), "kiln::" + fn + " on this type is not supported (max/min take integers; "
                               "no atomics on bool)");
      return {};
    }
    return LLVM::AtomicRMWOp::create(b_, l, *op, p, v, LLVM::AtomicOrdering::monotonic);
  }

  Value shuffle(const std::string &fn, const cl::CallExpr *call, Location l) {
    Value v = rvalue(call->getArg(0)), arg = rvalue(call->getArg(1));
    Value width = call->getNumArgs() > 2 ? rvalue(call->getArg(2)) : Value();
    if (!v || !arg)
      return {};
    unsigned bits = v.getType().getIntOrFloatBitWidth();
    if (bits != 32 && bits != 64) {
      fail(call->getExprLoc(), "kiln::" + fn + " takes 32- or 64-bit values (int, unsigned, float, int64, double), "
                               "not " + std::to_string(bits) + "-bit ones");
      return {};
    }
    if (!width)
      width = arith::ConstantOp::create(b_, l, b_.getI32IntegerAttr(32));
    arg = convert(arg, call->getArg(1)->getType(), ast_.IntTy, l);
    width = convert(width, call->getArgs()[call->getNumArgs() > 2 ? 2 : 1]->getType(), ast_.IntTy, l);
    gpu::ShuffleMode mode = fn == "shfl"        ? gpu::ShuffleMode::IDX
                            : fn == "shfl_up"   ? gpu::ShuffleMode::UP
                            : fn == "shfl_down" ? gpu::ShuffleMode::DOWN
                                                : gpu::ShuffleMode::XOR;
    info_.synchronizes = true;
    // CUDA: a lane whose source is outside its segment keeps its own value.
    auto shuffle32 = [&](Value x) {
      auto s = gpu::ShuffleOp::create(b_, l, x, arg, width, mode);
      return arith::SelectOp::create(b_, l, s.getValid(), s.getShuffleResult(), x).getResult();
    };
    if (bits == 32)
      return shuffle32(v);
    // 64 bits as two 32-bit shuffles of the halves, as CUDA's
    // __shfl_*_sync(double) does.
    Type i32 = b_.getI32Type(), i64 = b_.getI64Type();
    Value word = isa<FloatType>(v.getType()) ? arith::BitcastOp::create(b_, l, i64, v).getResult() : v;
    Value c32 = arith::ConstantOp::create(b_, l, b_.getI64IntegerAttr(32));
    Value lo = shuffle32(arith::TruncIOp::create(b_, l, i32, word));
    Value hi = shuffle32(arith::TruncIOp::create(b_, l, i32, arith::ShRUIOp::create(b_, l, word, c32)));
    Value joined = arith::OrIOp::create(b_, l, arith::ShLIOp::create(b_, l, arith::ExtUIOp::create(b_, l, i64, hi), c32),
                                        arith::ExtUIOp::create(b_, l, i64, lo));
    return isa<FloatType>(v.getType()) ? arith::BitcastOp::create(b_, l, v.getType(), joined).getResult() : joined;
  }

  /// <cmath> functions on float and double; null if `callee` is not one.
  Value cmath(const cl::FunctionDecl *callee, const cl::CallExpr *call, Location l) {
    std::string name = callee->getNameAsString();
    const cl::DeclContext *dc = callee->getDeclContext()->getEnclosingNamespaceContext();
    bool std = isa<cl::TranslationUnitDecl>(dc) || (isa<cl::NamespaceDecl>(dc) && cast<cl::NamespaceDecl>(dc)->isStdNamespace());
    if (!std || !ast_.getSourceManager().isInSystemHeader(callee->getLocation()) ||
        !call->getType()->isRealFloatingType())
      return {};
    if (name.size() > 1 && name.back() == 'f' && name != "erf")
      name.pop_back(); // sqrtf -> sqrt
    static const llvm::StringSet<> known = {
        "sqrt",  "rsqrt", "exp",   "exp2",  "log",  "log2",    "log10",
        "sin",   "cos",   "tan",   "tanh",  "erf",  "fabs",    "abs",
        "floor", "ceil",  "round", "trunc", "pow",  "atan2",   "fmin",
        "fmax",  "sinh",  "cosh",  "asin",  "acos", "atan",    "asinh",
        "acosh", "atanh", "expm1", "log1p", "cbrt", "copysign"};
    if (!known.contains(name) && callee->hasBody())
      return {}; // a template of the standard library (std::max, std::min): its body is inlined
    SmallVector<Value> args;
    for (const cl::Expr *a : call->arguments()) {
      Value v = rvalue(a);
      if (!v)
        return failed_ = true, Value();
      args.push_back(v);
    }
    auto one = [&](auto tag) -> Value {
      using Op = decltype(tag);
      return args.size() == 1 ? Op::create(b_, l, args[0]).getResult() : Value();
    };
    auto two = [&](auto tag) -> Value {
      using Op = decltype(tag);
      return args.size() == 2 ? Op::create(b_, l, args[0], args[1]).getResult() : Value();
    };
    Value r = llvm::StringSwitch<std::function<Value()>>(name)
                  .Case("sqrt", [&] { return one(math::SqrtOp()); })
                  .Case("rsqrt", [&] { return one(math::RsqrtOp()); })
                  .Case("exp", [&] { return one(math::ExpOp()); })
                  .Case("exp2", [&] { return one(math::Exp2Op()); })
                  .Case("log", [&] { return one(math::LogOp()); })
                  .Case("log2", [&] { return one(math::Log2Op()); })
                  .Case("log10", [&] { return one(math::Log10Op()); })
                  .Case("sin", [&] { return one(math::SinOp()); })
                  .Case("cos", [&] { return one(math::CosOp()); })
                  .Case("tan", [&] { return one(math::TanOp()); })
                  .Case("tanh", [&] { return one(math::TanhOp()); })
                  .Case("erf", [&] { return one(math::ErfOp()); })
                  .Case("fabs", [&] { return one(math::AbsFOp()); })
                  .Case("abs", [&] { return one(math::AbsFOp()); })
                  .Case("floor", [&] { return one(math::FloorOp()); })
                  .Case("ceil", [&] { return one(math::CeilOp()); })
                  .Case("round", [&] { return one(math::RoundOp()); })
                  .Case("trunc", [&] { return one(math::TruncOp()); })
                  .Case("pow", [&] { return two(math::PowFOp()); })
                  .Case("atan2", [&] { return two(math::Atan2Op()); })
                  .Case("fmin", [&] { return two(arith::MinNumFOp()); })
                  .Case("fmax", [&] { return two(arith::MaxNumFOp()); })
                  .Case("sinh", [&] { return one(math::SinhOp()); })
                  .Case("cosh", [&] { return one(math::CoshOp()); })
                  .Case("asin", [&] { return one(math::AsinOp()); })
                  .Case("acos", [&] { return one(math::AcosOp()); })
                  .Case("atan", [&] { return one(math::AtanOp()); })
                  .Case("asinh", [&] { return one(math::AsinhOp()); })
                  .Case("acosh", [&] { return one(math::AcoshOp()); })
                  .Case("atanh", [&] { return one(math::AtanhOp()); })
                  .Case("expm1", [&] { return one(math::ExpM1Op()); })
                  .Case("log1p", [&] { return one(math::Log1pOp()); })
                  .Case("cbrt", [&] { return one(math::CbrtOp()); })
                  .Case("copysign", [&] { return two(math::CopySignOp()); })
                  .Default([] { return Value(); })();
    if (!r) {
      fail(call->getExprLoc(), "'" + callee->getNameAsString() + "' is not among the <cmath> functions " + where_ + " supports");
      failed_ = true;
    }
    return r;
  }

  /// A call of a helper function of the subset, inlined: its parameters
  /// become locals, its returns branch to the code after the call.
  Value inlineCall(const cl::FunctionDecl *callee, const cl::CallExpr *call, Location l, bool allowVoid) {
    const cl::FunctionDecl *def = nullptr;
    if (!callee->hasBody(def) || !def) {
      fail(call->getExprLoc(), "'" + callee->getQualifiedNameAsString() +
                                   "' has no body kilnc can see; " + where_ + " calls built-ins, "
                                   "<cmath> functions and helpers defined in the same file");
      return {};
    }
    if (llvm::is_contained(inlining_, def)) {
      fail(call->getExprLoc(), "'" + def->getNameAsString() +
                                   "' calls itself (recursion is not supported in " + where_ + ")");
      return {};
    }
    if (isa<cl::CXXMethodDecl>(def)) {
      fail(call->getExprLoc(), "member functions are not supported in " + where_);
      return {};
    }
    SmallVector<Value> args;
    for (const cl::Expr *a : call->arguments()) {
      Value v = rvalue(a);
      if (!v)
        return {};
      args.push_back(v);
    }
    for (auto [p, v] : llvm::zip(def->parameters(), args)) {
      if (!isConstRefOrValue(p->getType()))
        return fail(p->getLocation(), "a helper's parameter that is a non-const reference is not supported in " +
                                          where_),
               Value();
      LValue slot = local(p->getType().getNonReferenceType().getUnqualifiedType(), p->getLocation());
      if (!slot.ptr)
        return {};
      store(slot, v, l);
      vars_[p] = slot;
    }
    bool isVoid = def->getReturnType()->isVoidType();
    LValue result;
    if (!isVoid) {
      if (!isConstRefOrValue(def->getReturnType()))
        return fail(call->getExprLoc(), "a helper returning a non-const reference is not supported in " + where_),
               Value();
      result = local(def->getReturnType().getNonReferenceType().getUnqualifiedType(), def->getLocation());
      if (!result.ptr)
        return {};
    }
    Block *after = newBlock();
    inlining_.push_back(def);
    returnTo_.push_back({after, result});
    bool ok = stmt(def->getBody(), Targets{});
    returnTo_.pop_back();
    inlining_.pop_back();
    if (!ok)
      return {};
    branch(after, l);
    startIn(after);
    if (isVoid) {
      if (!allowVoid)
        fail(call->getExprLoc(), "a void call used as a value");
      // A value for callers that only check for failure.
      return allowVoid ? arith::ConstantOp::create(b_, l, b_.getBoolAttr(true)).getResult() : Value();
    }
    return load(result, l);
  }

  /// The C and C++ library's input and output: printf and friends, streams.
  static bool isIO(const cl::FunctionDecl *f) {
    static const llvm::StringSet<> names = {"printf", "fprintf", "sprintf", "snprintf", "puts", "fputs", "putchar",
                                            "scanf", "fscanf", "fwrite", "fread", "getline", "getchar"};
    if (f->getIdentifier() && names.contains(f->getName()))
      return true;
    if (const auto *md = dyn_cast<cl::CXXMethodDecl>(f))
      return md->getParent()->isInStdNamespace() && md->getParent()->getName().contains("stream");
    return f->isInStdNamespace() && (f->getOverloadedOperator() == cl::OO_LessLess ||
                                     f->getOverloadedOperator() == cl::OO_GreaterGreater);
  }

  /// A value, or a reference to const that reads like one.
  static bool isConstRefOrValue(cl::QualType q) {
    return !q->isReferenceType() || q.getNonReferenceType().isConstQualified();
  }

  MLIRContext *ctx_;
  OpBuilder b_;
  ModuleOp module_;
  cl::ASTContext &ast_;
  const RawErrorFn &onError_;
  RawKernelInfo &info_;
  Block *entry_ = nullptr, *exit_ = nullptr;
  llvm::DenseMap<const cl::Decl *, LValue> vars_;
  llvm::DenseMap<const cl::Decl *, SpanParam> spans_; ///< kiln::span parameters
  llvm::DenseMap<const cl::Decl *, std::array<Value, 3>> dims_; ///< kiln::dim3 locals
  std::vector<const cl::FunctionDecl *> inlining_;
  std::vector<std::pair<Block *, LValue>> returnTo_;
  std::uint64_t sharedBytes_ = 0;
  bool failed_ = false;
  bool element_ = false; ///< an elementwise lambda's element function
  std::string where_ = "a KILN_RAWKERNEL function"; ///< for messages
  llvm::DenseSet<const cl::Decl *> captured_;       ///< a lambda's captures
};

} // namespace

bool emitElementFunction(ModuleOp module, StringRef name, const cl::CXXMethodDecl &callOperator,
                         ArrayRef<const cl::ValueDecl *> captures, ArrayRef<ElementType> operandTypes,
                         ElementType result, cl::ASTContext &ast, const RawErrorFn &onError) {
  RawKernelInfo unused;
  return RawKernelEmitter(module, ast, onError, unused).emitElement(name, callOperator, captures, operandTypes, result);
}

bool emitRawKernel(ModuleOp module, StringRef name, const cl::FunctionDecl &fd, cl::ASTContext &ast,
                   const RawErrorFn &onError, RawKernelInfo &info) {
  return RawKernelEmitter(module, ast, onError, info).emit(name, fd);
}

} // namespace kiln::frontend
