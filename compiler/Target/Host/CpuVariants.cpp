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

/// libmvec's float32 functions: the scalar stand-in useVectorMath calls,
/// the vector function and its width, per CPU level.
struct VectorMathFn {
  StringLiteral scalar, vector, vabi;
  unsigned width;
  Intrinsic::ID intrinsic;
  bool v3;
};
constexpr VectorMathFn kVectorMath[] = {
    {"kiln.vm.sinf.b4", "_ZGVbN4v_sinf", "_ZGV_LLVM_N4v", 4, Intrinsic::sin, false},
    {"kiln.vm.cosf.b4", "_ZGVbN4v_cosf", "_ZGV_LLVM_N4v", 4, Intrinsic::cos, false},
    {"kiln.vm.sinf.d8", "_ZGVdN8v_sinf", "_ZGV_LLVM_N8v", 8, Intrinsic::sin, true},
    {"kiln.vm.cosf.d8", "_ZGVdN8v_cosf", "_ZGV_LLVM_N8v", 8, Intrinsic::cos, true},
};

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
    const bool v3 = isV3(f);
    SmallVector<CallInst *> calls;
    for (Instruction &inst : instructions(f))
      if (auto *call = dyn_cast<IntrinsicInst>(&inst))
        if ((call->getIntrinsicID() == Intrinsic::sin || call->getIntrinsicID() == Intrinsic::cos) &&
            call->getType()->isFloatTy())
          calls.push_back(call);
    for (CallInst *call : calls) {
      Intrinsic::ID id = cast<IntrinsicInst>(call)->getIntrinsicID();
      const VectorMathFn *fn = llvm::find_if(kVectorMath, [&](const VectorMathFn &e) {
        return e.intrinsic == id && e.v3 == v3;
      });
      FunctionCallee scalar = m.getOrInsertFunction(fn->scalar, FunctionType::get(f32, {f32}, false));
      setPure(cast<Function>(scalar.getCallee()));
      IRBuilder<> b(call);
      CallInst *replacement = b.CreateCall(scalar, {call->getArgOperand(0)});
      replacement->setDoesNotAccessMemory();
      call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
    }
  }
}

void mapVectorMath(TargetLibraryInfoImpl &tli) {
  if (!vectorMathAvailable())
    return;
  SmallVector<VecDesc> descs;
  for (const VectorMathFn &fn : kVectorMath)
    descs.emplace_back(fn.scalar, fn.vector, ElementCount::getFixed(fn.width), /*Masked=*/false, fn.vabi,
                       std::nullopt);
  tli.addVectorizableFunctions(descs);
}

void lowerScalarVectorMath(Module &m) {
  LLVMContext &ctx = m.getContext();
  Type *f32 = Type::getFloatTy(ctx);
  for (const VectorMathFn &fn : kVectorMath) {
    Function *scalar = m.getFunction(fn.scalar);
    if (!scalar)
      continue;
    auto *vecType = FixedVectorType::get(f32, fn.width);
    FunctionCallee vector = m.getOrInsertFunction(fn.vector, FunctionType::get(vecType, {vecType}, false));
    if (auto *decl = dyn_cast<Function>(vector.getCallee()))
      setPure(decl);
    SmallVector<CallInst *> calls;
    for (User *user : scalar->users())
      if (auto *call = dyn_cast<CallInst>(user))
        calls.push_back(call);
    for (CallInst *call : calls) {
      IRBuilder<> b(call);
      Value *splat = b.CreateVectorSplat(fn.width, call->getArgOperand(0));
      CallInst *vcall = b.CreateCall(vector, {splat});
      vcall->setDoesNotAccessMemory();
      call->replaceAllUsesWith(b.CreateExtractElement(vcall, uint64_t(0)));
      call->eraseFromParent();
    }
    if (scalar->use_empty())
      scalar->eraseFromParent();
  }
}

} // namespace kiln::host
