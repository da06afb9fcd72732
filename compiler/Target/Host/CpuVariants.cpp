//===- Target/Host/CpuVariants.cpp - x86-64-v3 copies, vector sin/cos -----===//
//
// CpuVariants.h says what these do. The CPU test is emitted into each object
// (cpuid and xgetbv, no runtime library function): an internal
// `kiln.host_cpu_level()` returns 3 when the CPU and the OS support every
// x86-64-v3 feature (AVX, AVX2, FMA, F16C, MOVBE, XSAVE, BMI1, BMI2, LZCNT
// and the OS saving YMM registers) and KILN_HOST_CPU is not `baseline`, 2
// otherwise; it is computed once and cached.
//
//===----------------------------------------------------------------------===//
#include "Target/Host/CpuVariants.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <array>
#include <string>
#include <vector>

using namespace llvm;

namespace kiln::host {
namespace {

constexpr StringLiteral kV3Cpu = "x86-64-v3";
constexpr StringLiteral kV3Suffix = ".x86_64_v3";

bool isX86_64(const Module &m) {
  return Triple(m.getTargetTriple()).getArch() == Triple::x86_64;
}

bool isV3(const Function &f) {
  return f.getFnAttribute("target-cpu").getValueAsString() == kV3Cpu;
}

/// `cpuid` with eax = leaf, ecx = 0: {eax, ebx, ecx, edx}.
Value *cpuid(IRBuilder<> &b, uint32_t leaf) {
  Type *i32 = b.getInt32Ty();
  auto *result = StructType::get(b.getContext(), {i32, i32, i32, i32});
  auto *type = FunctionType::get(result, {i32, i32}, false);
  InlineAsm *asmCall = InlineAsm::get(
      type, "cpuid", "={ax},={bx},={cx},={dx},{ax},{cx},~{dirflag},~{fpsr},~{flags}",
      /*hasSideEffects=*/true);
  return b.CreateCall(asmCall, {b.getInt32(leaf), b.getInt32(0)});
}

/// xgetbv with ecx = 0: XCR0's low half. (Spelled as bytes: the baseline
/// assembler refuses the mnemonic without the XSAVE feature.)
Value *xgetbv0(IRBuilder<> &b) {
  Type *i32 = b.getInt32Ty();
  auto *result = StructType::get(b.getContext(), {i32, i32});
  auto *type = FunctionType::get(result, {i32}, false);
  InlineAsm *asmCall = InlineAsm::get(type, ".byte 0x0f, 0x01, 0xd0",
                                      "={ax},={dx},{cx},~{dirflag},~{fpsr},~{flags}",
                                      /*hasSideEffects=*/true);
  return b.CreateExtractValue(b.CreateCall(asmCall, {b.getInt32(0)}), 0);
}

/// `(value & mask) == mask`
Value *hasAll(IRBuilder<> &b, Value *value, uint32_t mask) {
  return b.CreateICmpEQ(b.CreateAnd(value, mask), b.getInt32(mask));
}

/// The internal `i32 kiln.host_cpu_level()` of `m` (created on first use).
Function *cpuLevelFunction(Module &m) {
  if (Function *f = m.getFunction("kiln.host_cpu_level"))
    return f;
  LLVMContext &ctx = m.getContext();
  Type *i32 = Type::getInt32Ty(ctx);
  auto *ptr = PointerType::getUnqual(ctx);
  auto *cache = new GlobalVariable(m, i32, false, GlobalValue::InternalLinkage,
                                   ConstantInt::get(i32, 0), "kiln.host_cpu_level.cache");
  cache->setAlignment(Align(4));

  // The detection, out of line.
  Function *detect = Function::Create(FunctionType::get(i32, false), GlobalValue::InternalLinkage,
                                      "kiln.host_cpu_detect", m);
  detect->addFnAttr(Attribute::NoInline);
  detect->addFnAttr(Attribute::Cold);
  detect->addFnAttr(Attribute::NoUnwind);
  {
    auto block = [&](const char *name) { return BasicBlock::Create(ctx, name, detect); };
    BasicBlock *entry = block("entry");
    BasicBlock *baseline = block("baseline"), *v3 = block("v3");
    IRBuilder<> b(baseline);
    b.CreateRet(b.getInt32(2));
    b.SetInsertPoint(v3);
    b.CreateRet(b.getInt32(3));
    // Each step: compute a condition in `at`, go on to `next` when it holds.
    auto step = [&](BasicBlock *at, const char *nextName, auto condition) {
      b.SetInsertPoint(at);
      BasicBlock *next = nextName ? block(nextName) : v3;
      b.CreateCondBr(condition(), next, baseline);
      return next;
    };
    FunctionCallee getenvFn = m.getOrInsertFunction("getenv", FunctionType::get(ptr, {ptr}, false));
    FunctionCallee strcmpFn = m.getOrInsertFunction("strcmp", FunctionType::get(i32, {ptr, ptr}, false));
    // KILN_HOST_CPU=baseline: the baseline copies.
    BasicBlock *checkEnv = block("env");
    BasicBlock *hardware = block("cpuid0");
    b.SetInsertPoint(entry);
    Value *env = b.CreateCall(getenvFn, {b.CreateGlobalString("KILN_HOST_CPU", "kiln.host_cpu.env")});
    b.CreateCondBr(b.CreateIsNotNull(env), checkEnv, hardware);
    b.SetInsertPoint(checkEnv);
    Value *cmp = b.CreateCall(strcmpFn, {env, b.CreateGlobalString("baseline", "kiln.host_cpu.baseline")});
    b.CreateCondBr(b.CreateICmpEQ(cmp, b.getInt32(0)), baseline, hardware);
    BasicBlock *at = hardware;
    at = step(at, "cpuid1", [&] { return b.CreateICmpUGE(b.CreateExtractValue(cpuid(b, 0), 0), b.getInt32(7)); });
    // cpuid(1).ecx: FMA 12, MOVBE 22, XSAVE 26, OSXSAVE 27, AVX 28, F16C 29.
    at = step(at, "xcr0", [&] {
      return hasAll(b, b.CreateExtractValue(cpuid(b, 1), 2),
                    (1u << 12) | (1u << 22) | (1u << 26) | (1u << 27) | (1u << 28) | (1u << 29));
    });
    // The OS saves XMM and YMM state (XCR0 bits 1 and 2).
    at = step(at, "cpuid7", [&] { return hasAll(b, xgetbv0(b), 0x6); });
    // cpuid(7, 0).ebx: BMI1 3, AVX2 5, BMI2 8.
    at = step(at, "cpuidext", [&] {
      return hasAll(b, b.CreateExtractValue(cpuid(b, 7), 1), (1u << 3) | (1u << 5) | (1u << 8));
    });
    at = step(at, "cpuidext1", [&] {
      return b.CreateICmpUGE(b.CreateExtractValue(cpuid(b, 0x80000000u), 0), b.getInt32(0x80000001u));
    });
    // cpuid(0x80000001).ecx: LZCNT (ABM) 5.
    step(at, nullptr, [&] { return hasAll(b, b.CreateExtractValue(cpuid(b, 0x80000001u), 2), 1u << 5); });
  }

  Function *f = Function::Create(FunctionType::get(i32, false), GlobalValue::InternalLinkage,
                                 "kiln.host_cpu_level", m);
  f->addFnAttr(Attribute::NoUnwind);
  BasicBlock *entry = BasicBlock::Create(ctx, "entry", f);
  BasicBlock *known = BasicBlock::Create(ctx, "known", f);
  BasicBlock *unknown = BasicBlock::Create(ctx, "unknown", f);
  IRBuilder<> b(entry);
  LoadInst *cached = b.CreateAlignedLoad(i32, cache, Align(4));
  cached->setAtomic(AtomicOrdering::Monotonic);
  b.CreateCondBr(b.CreateIsNotNull(cached), known, unknown);
  b.SetInsertPoint(known);
  b.CreateRet(cached);
  b.SetInsertPoint(unknown);
  Value *level = b.CreateCall(detect);
  StoreInst *store = b.CreateAlignedStore(level, cache, Align(4));
  store->setAtomic(AtomicOrdering::Monotonic);
  b.CreateRet(level);
  return f;
}

/// A float32 function libmvec has: its libm name (what convert-math-to-libm
/// calls), the LLVM intrinsic convert-math-to-llvm may use instead, its
/// arity, and the glibc that brought it.
struct VectorMathFn {
  StringLiteral name;
  Intrinsic::ID intrinsic;
  unsigned arity;
  bool glibc235; ///< glibc 2.35's additions (sin and cos: 2.22)
};
constexpr VectorMathFn kVectorMath[] = {
    {"sinf", Intrinsic::sin, 1, false},
    {"cosf", Intrinsic::cos, 1, false},
    {"tanf", Intrinsic::tan, 1, true},
    {"asinf", Intrinsic::asin, 1, true},
    {"atanf", Intrinsic::atan, 1, true},
    {"atan2f", Intrinsic::atan2, 2, true},
    {"sinhf", Intrinsic::sinh, 1, true},
    {"coshf", Intrinsic::cosh, 1, true},
    {"log1pf", Intrinsic::not_intrinsic, 1, true},
    {"expm1f", Intrinsic::not_intrinsic, 1, true},
    {"asinhf", Intrinsic::not_intrinsic, 1, true},
    {"acoshf", Intrinsic::not_intrinsic, 1, true},
    {"atanhf", Intrinsic::not_intrinsic, 1, true},
    {"cbrtf", Intrinsic::not_intrinsic, 1, true},
    {"exp2f", Intrinsic::exp2, 1, true},
};

/// The two widths of each: SSE's 4 lanes (`_ZGVbN4v_sinf`, the baseline
/// copy of a kernel) and AVX2's 8 (`_ZGVdN8v_sinf`, the x86-64-v3 copy).
struct VectorMathWidth {
  char isa; ///< the vector ABI's ISA letter
  unsigned width;
  bool v3;
};
constexpr VectorMathWidth kWidths[] = {{'b', 4, false}, {'d', 8, true}};

bool available(const VectorMathFn &fn) {
#ifdef KILN_HOST_LIBMVEC_235
  return true;
#else
  return !fn.glibc235;
#endif
}

/// `kiln.vm.sinf.d8`: the scalar stand-in useVectorMath calls.
std::string standIn(const VectorMathFn &fn, const VectorMathWidth &w) {
  return ("kiln.vm." + fn.name + "." + Twine(w.isa) + Twine(w.width)).str();
}
/// `_ZGVdN8vv_atan2f`: the vector function, and its LLVM vector ABI string.
std::string vectorName(const VectorMathFn &fn, const VectorMathWidth &w) {
  return ("_ZGV" + Twine(w.isa) + "N" + Twine(w.width) +
          std::string(fn.arity, 'v') + "_" + fn.name)
      .str();
}
std::string vectorAbi(const VectorMathFn &fn, const VectorMathWidth &w) {
  return ("_ZGV_LLVM_N" + Twine(w.width) + std::string(fn.arity, 'v')).str();
}

/// The libmvec function a float32 call computes, if any.
const VectorMathFn *vectorMathOf(const CallInst &call) {
  if (!call.getType()->isFloatTy())
    return nullptr;
  for (const VectorMathFn &fn : kVectorMath) {
    if (!available(fn))
      continue;
    if (const auto *ii = dyn_cast<IntrinsicInst>(&call)) {
      if (fn.intrinsic != Intrinsic::not_intrinsic &&
          ii->getIntrinsicID() == fn.intrinsic)
        return &fn;
    } else if (const Function *callee = call.getCalledFunction();
               callee && callee->getName() == fn.name &&
               call.arg_size() == fn.arity) {
      return &fn;
    }
  }
  return nullptr;
}

/// Pure, like the intrinsic it stands for (no errno: libmvec sets none).
void setPure(Function *f) {
  f->setDoesNotThrow();
  f->setDoesNotAccessMemory();
  f->setWillReturn();
  f->setNoSync();
}

} // namespace

bool vectorMathAvailable() {
#ifdef KILN_HOST_LIBMVEC
  return true;
#else
  return false;
#endif
}

bool hasVectorMath(StringRef libmName) {
  return vectorMathAvailable() &&
         llvm::any_of(kVectorMath, [&](const VectorMathFn &fn) {
           return fn.name == libmName && available(fn);
         });
}

void addCpuVariants(Module &m, ArrayRef<std::string> functions) {
  if (!isX86_64(m))
    return;
  Function *level = nullptr;
  for (const std::string &name : functions) {
    Function *f = m.getFunction(name);
    if (!f || f->isDeclaration())
      continue;
    ValueToValueMapTy map;
    Function *v3 = CloneFunction(f, map);
    v3->setName(name + kV3Suffix.str());
    v3->setLinkage(GlobalValue::InternalLinkage);
    v3->addFnAttr("target-cpu", kV3Cpu);
    v3->removeFnAttr("tune-cpu");
    SmallVector<CallInst *> calls;
    for (User *user : f->users())
      if (auto *call = dyn_cast<CallInst>(user); call && call->getCalledFunction() == f)
        calls.push_back(call);
    if (!calls.empty() && !level)
      level = cpuLevelFunction(m);
    for (CallInst *call : calls) {
      IRBuilder<> b(call);
      Value *useV3 = b.CreateICmpEQ(b.CreateCall(level), b.getInt32(3));
      Instruction *thenTerm = nullptr, *elseTerm = nullptr;
      SplitBlockAndInsertIfThenElse(useV3, call->getIterator(), &thenTerm, &elseTerm);
      auto *callV3 = cast<CallInst>(call->clone());
      callV3->setCalledFunction(v3);
      callV3->insertBefore(thenTerm->getIterator());
      BasicBlock *tail = call->getParent();
      call->moveBefore(elseTerm->getIterator());
      if (!call->getType()->isVoidTy()) {
        PHINode *phi = PHINode::Create(call->getType(), 2, "", tail->begin());
        call->replaceUsesWithIf(phi, [&](Use &u) { return u.getUser() != phi; });
        phi->addIncoming(callV3, callV3->getParent());
        phi->addIncoming(call, call->getParent());
      }
    }
  }
}

void useVectorMath(Module &m) {
  if (!vectorMathAvailable() || !isX86_64(m))
    return;
  LLVMContext &ctx = m.getContext();
  Type *f32 = Type::getFloatTy(ctx);
  for (Function &f : m) {
    if (f.isDeclaration())
      continue;
    const VectorMathWidth &w = kWidths[isV3(f) ? 1 : 0];
    SmallVector<std::pair<CallInst *, const VectorMathFn *>> calls;
    for (Instruction &inst : instructions(f))
      if (auto *call = dyn_cast<CallInst>(&inst))
        if (const VectorMathFn *fn = vectorMathOf(*call))
          calls.push_back({call, fn});
    for (auto [call, fn] : calls) {
      SmallVector<Type *, 2> params(fn->arity, f32);
      FunctionCallee scalar = m.getOrInsertFunction(
          standIn(*fn, w), FunctionType::get(f32, params, false));
      setPure(cast<Function>(scalar.getCallee()));
      IRBuilder<> b(call);
      SmallVector<Value *, 2> args(call->args());
      CallInst *replacement = b.CreateCall(scalar, args);
      replacement->setDoesNotAccessMemory();
      call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
    }
  }
}

void mapVectorMath(TargetLibraryInfoImpl &tli) {
  if (!vectorMathAvailable())
    return;
  // (VecDesc keeps StringRefs: the names live as long as kilnc.)
  static const std::vector<std::array<std::string, 3>> names = [] {
    std::vector<std::array<std::string, 3>> v;
    for (const VectorMathFn &fn : kVectorMath)
      if (available(fn))
        for (const VectorMathWidth &w : kWidths)
          v.push_back({standIn(fn, w), vectorName(fn, w), vectorAbi(fn, w)});
    return v;
  }();
  SmallVector<VecDesc> descs;
  for (const VectorMathFn &fn : kVectorMath)
    if (available(fn))
      for (const VectorMathWidth &w : kWidths) {
        const auto &n = *llvm::find_if(
            names, [&](const auto &e) { return e[0] == standIn(fn, w); });
        descs.emplace_back(n[0], n[1], ElementCount::getFixed(w.width),
                           /*Masked=*/false, n[2], std::nullopt);
      }
  tli.addVectorizableFunctions(descs);
}

void lowerScalarVectorMath(Module &m) {
  LLVMContext &ctx = m.getContext();
  Type *f32 = Type::getFloatTy(ctx);
  for (const VectorMathFn &fn : kVectorMath)
    for (const VectorMathWidth &w : kWidths) {
      Function *scalar = m.getFunction(standIn(fn, w));
      if (!scalar)
        continue;
      auto *vecType = FixedVectorType::get(f32, w.width);
      SmallVector<Type *, 2> params(fn.arity, vecType);
      FunctionCallee vector = m.getOrInsertFunction(
          vectorName(fn, w), FunctionType::get(vecType, params, false));
      if (auto *decl = dyn_cast<Function>(vector.getCallee()))
        setPure(decl);
      SmallVector<CallInst *> calls;
      for (User *user : scalar->users())
        if (auto *call = dyn_cast<CallInst>(user))
          calls.push_back(call);
      for (CallInst *call : calls) {
        IRBuilder<> b(call);
        SmallVector<Value *, 2> splats;
        for (Value *arg : call->args())
          splats.push_back(b.CreateVectorSplat(w.width, arg));
        CallInst *vcall = b.CreateCall(vector, splats);
        vcall->setDoesNotAccessMemory();
        call->replaceAllUsesWith(b.CreateExtractElement(vcall, uint64_t(0)));
        call->eraseFromParent();
      }
      if (scalar->use_empty())
        scalar->eraseFromParent();
    }
}

} // namespace kiln::host
