//===- runtime/linalg/lapack.cpp - Loading LAPACKE ------------------------===//
//
// Opens LAPACKE once and resolves the routines of lapack.hpp for the four
// types (LAPACKE_sgetrf ... LAPACKE_zgeev).
// LAPACKE calls the LAPACK that Debian's alternatives name (OpenBLAS's, whose
// kernels the CPU BLAS loader has chosen when it ran first; the solvers load
// it first for that reason).
//
//===----------------------------------------------------------------------===//
#include "lapack.hpp"

#include "kiln/error.hpp"
#include "runtime/blas/host_blas.hpp"

#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace kiln::detail::lapack {
namespace {

struct loaded {
  routines types[4]; // float32, float64, complex64, complex128
  bool ok = false;
  std::string reason;
};

loaded *load() {
  auto *l = new loaded(); // never destroyed: used until the process ends
  (void)host_blas::get(); // OpenBLAS first, with its kernels chosen for the CPU
  std::vector<std::string> candidates = {"liblapacke.so.3", "liblapacke.so"};
  if (const char *forced = std::getenv("KILN_LAPACKE"); forced && *forced)
    candidates = {forced};
  void *so = nullptr;
  std::string errors;
  for (const std::string &path : candidates) {
    if ((so = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)))
      break;
    const char *why = dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(why ? why : path);
  }
  if (!so) {
    l->reason = "LAPACKE could not be loaded (" + errors +
                "); install it (Debian: liblapacke3, with libopenblas0 for speed), or name it with KILN_LAPACKE";
    return l;
  }
  std::string missing;
  const char prefixes[] = {'s', 'd', 'c', 'z'};
  for (int t = 0; t < 4; ++t) {
    auto resolve = [&](auto &fn, const char *name) {
      const std::string symbol = std::string("LAPACKE_") + prefixes[t] + name;
      if (void *p = dlsym(so, symbol.c_str()))
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
      else
        missing += (missing.empty() ? "" : ", ") + symbol;
    };
    const bool complex = t >= 2;
    resolve(l->types[t].getrf, "getrf");
    resolve(l->types[t].getrs, "getrs");
    resolve(l->types[t].getri, "getri");
    resolve(l->types[t].potrf, "potrf");
    resolve(l->types[t].potrs, "potrs");
    resolve(l->types[t].trtrs, "trtrs");
    resolve(l->types[t].geqrf, "geqrf");
    resolve(l->types[t].orgqr, complex ? "ungqr" : "orgqr");
    resolve(l->types[t].gesdd, "gesdd");
    resolve(l->types[t].syevd, complex ? "heevd" : "syevd");
    if (complex)
      resolve(l->types[t].geev, "geev");
  }
  if (!missing.empty()) {
    l->reason = "the LAPACKE library lacks " + missing;
    return l;
  }
  // LAPACKE checks its inputs for NaNs by default and returns an argument
  // error without computing: NumPy's LAPACK computes (inv gives NaNs).
  if (void *set_nancheck = dlsym(so, "LAPACKE_set_nancheck"))
    reinterpret_cast<void (*)(int)>(set_nancheck)(0);
  l->ok = true;
  return l;
}

} // namespace

const routines &require(dtype t) {
  static const loaded *l = load();
  if (!l->ok)
    throw kiln::error("kiln::linalg: " + l->reason);
  switch (t) {
  case dtype::float32:
    return l->types[0];
  case dtype::float64:
    return l->types[1];
  case dtype::complex64:
    return l->types[2];
  case dtype::complex128:
    return l->types[3];
  default:
    throw value_error(std::string("kiln::linalg: no LAPACK routines for ") + std::string(name(t)));
  }
}

} // namespace kiln::detail::lapack
