//===- runtime/blas/host_blas.cpp - Loading a CPU BLAS --------------------===//
//
// Opens the BLAS once ($KILN_BLAS alone when set, else OpenBLAS's sonames,
// then the reference names that Debian's alternatives point at OpenBLAS),
// resolves the four gemm entry points, and gives OpenBLAS Kiln's thread
// count and (unless the user did) the kernels for the CPU. A library that
// lacks one of the entry points is not used.
//
//===----------------------------------------------------------------------===//
#include "host_blas.hpp"

#include "runtime/parallel/thread_pool.hpp"

#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace kiln::detail::host_blas {
namespace {

struct loaded {
  api lib;
  bool ok = false;
  std::string reason;
};

/// OpenBLAS chooses its kernels for the CPU when it is loaded, from its own
/// table of CPUs: an OpenBLAS older than the CPU (Debian 12's 0.3.21 on a
/// Sapphire Rapids Xeon) falls back to its SSE3 "Prescott" kernels, 4x
/// slower than its AVX2 ones. Unless the user chose (OPENBLAS_CORETYPE),
/// name the newest kernels the CPU can run before the library loads.
void choose_openblas_kernels() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (std::getenv("OPENBLAS_CORETYPE"))
    return;
  __builtin_cpu_init();
  const char *core = nullptr;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq"))
    core = "SkylakeX";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    core = "Haswell";
  else if (__builtin_cpu_supports("avx"))
    core = "Sandybridge";
  if (core)
    setenv("OPENBLAS_CORETYPE", core, /*overwrite=*/0);
#endif
}

loaded *load() {
  auto *l = new loaded(); // never destroyed: used until the process ends
  choose_openblas_kernels();
  std::vector<std::string> candidates;
  if (const char *forced = std::getenv("KILN_BLAS"); forced && *forced) {
    if (std::string(forced) == "none") {
      l->reason = "KILN_BLAS=none";
      return l;
    }
    candidates.push_back(forced);
  } else {
    candidates = {"libopenblas.so.0", "libopenblas.so", "libcblas.so.3", "libblas.so.3"};
  }
  std::string errors;
  for (const std::string &path : candidates) {
    void *so = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!so) {
      const char *why = dlerror();
      errors += (errors.empty() ? "" : "; ") + std::string(why ? why : path);
      continue;
    }
    api lib;
    lib.sgemm = reinterpret_cast<decltype(lib.sgemm)>(dlsym(so, "cblas_sgemm"));
    lib.dgemm = reinterpret_cast<decltype(lib.dgemm)>(dlsym(so, "cblas_dgemm"));
    lib.cgemm = reinterpret_cast<decltype(lib.cgemm)>(dlsym(so, "cblas_cgemm"));
    lib.zgemm = reinterpret_cast<decltype(lib.zgemm)>(dlsym(so, "cblas_zgemm"));
    if (!lib.sgemm || !lib.dgemm || !lib.cgemm || !lib.zgemm) {
      errors += (errors.empty() ? "" : "; ") + path + " lacks the CBLAS gemm functions";
      dlclose(so);
      continue;
    }
    // OpenBLAS's own pool: as many threads as Kiln's.
    using set_threads_fn = void (*)(int);
    if (auto set = reinterpret_cast<set_threads_fn>(dlsym(so, "openblas_set_num_threads")))
      set(parallel::num_threads());
    lib.path = path;
    l->lib = lib;
    l->ok = true;
    return l;
  }
  l->reason = "no CPU BLAS could be loaded (" + errors + ")";
  return l;
}

const loaded &library() {
  static const loaded *l = load();
  return *l;
}

} // namespace

const api *get() {
  const loaded &l = library();
  return l.ok ? &l.lib : nullptr;
}

std::string unavailable_reason() { return library().reason; }

} // namespace kiln::detail::host_blas
