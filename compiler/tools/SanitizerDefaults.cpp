//===- tools/SanitizerDefaults.cpp - ASan defaults of the compiler tools --===//
//
// Linked into kilnc, kiln-opt, kiln-translate and the fuzz targets in a
// sanitized build (KILN_SANITIZE, the asan preset).
//
// allow_user_poisoning=0: LLVM's headers (BumpPtrAllocator, used by clang's
// ASTContext and MLIR) poison a new slab and unpoison each allocation when the
// including code is ASan-instrumented. Kiln's code is, the Debian LLVM, clang
// and MLIR libraries are not: a slab that Kiln's inlined copy poisons is then
// handed out by the libraries' uninstrumented copy without unpoisoning, and
// the next memset is a false use-after-poison (found by kiln-fuzz in
// clang::ASTContext::CreateTypeSourceInfo). Kiln itself poisons nothing by
// hand, so this drops only those LLVM annotations; every other ASan check
// stays. ASAN_OPTIONS given at run time still override it.
//
//===----------------------------------------------------------------------===//
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_ASAN 1
#endif
#endif
#if !defined(KILN_ASAN) && defined(__SANITIZE_ADDRESS__)
#define KILN_ASAN 1
#endif

#ifdef KILN_ASAN
extern "C" const char *__asan_default_options() { return "allow_user_poisoning=0"; }
#endif
