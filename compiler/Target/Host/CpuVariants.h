//===- Target/Host/CpuVariants.h - x86-64-v3 copies, vector sin/cos -*- C++
//-*-===//
//
// Two improvements of the host object that work on its LLVM IR:
//
// - CPU variants (x86-64 only): every host variant and raw kernel form gets
//   a copy compiled for x86-64-v3 (AVX2, FMA, BMI2; every x86 CPU since
//   about 2015), and its exported wrapper calls that copy when the CPU it
//   runs on has those features, the baseline (x86-64-v2) one otherwise.
//   KILN_HOST_CPU=baseline forces the baseline copies (tests).
// - float32 sin, cos (glibc 2.22) and tan, asin, atan, atan2, sinh, cosh,
//   asinh, acosh, atanh, cbrt, exp2 (glibc 2.35) through glibc's libmvec
//   (when kilnc was built where libmvec has them; its functions are within 4
//   ulps, test/e2e/math_accuracy.cpp measures each): LLVM's loop vectorizer
//   calls its vector functions, and
//   the scalar calls left (loop remainders) call the same vector function on
//   one splatted value, so an element's bits do not depend on which loop
//   computed it (the thread split's same-bits rule).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class Module;
class TargetLibraryInfoImpl;
} // namespace llvm

namespace kiln::host {

/// Whether this build of kilnc maps float32 sin/cos to libmvec (x86-64 glibc
/// hosts where libmvec was found when kilnc was configured).
bool vectorMathAvailable();

/// Whether the float32 libm function `libmName` ("log1pf") goes to libmvec.
bool hasVectorMath(llvm::StringRef libmName);

/// Adds an x86-64-v3 copy of each function named in `functions` (defined in
/// `module`) and makes every call of one dispatch on the running CPU. Call
/// before optimizing. No-op unless `module` targets x86-64.
void addCpuVariants(llvm::Module &module, llvm::ArrayRef<std::string> functions);

/// Replaces the float32 calls of `module` that libmvec has (`llvm.sin`,
/// `asinhf`, ...) by calls the
/// vectorizer maps to libmvec (`mapVectorMath` gives it the mappings).
/// Call before optimizing (after addCpuVariants). No-op unless
/// vectorMathAvailable().
void useVectorMath(llvm::Module &module);

/// The vector-function mappings of useVectorMath's calls, for the optimizer.
void mapVectorMath(llvm::TargetLibraryInfoImpl &tli);

/// After optimizing: the calls useVectorMath made that are still scalar call
/// the vector function on a splat of their argument.
void lowerScalarVectorMath(llvm::Module &module);

} // namespace kiln::host
