//===- runtime/cuda/toolkit_library.hpp - CUDA libraries opened at run time
//
// What the loaders of cuBLAS, cuSOLVER, cuFFT and cuSPARSE share: opening a
// toolkit library by its soname (then in /usr/local/cuda's library folders)
// with dlopen, resolving its entry points by name, and the calling thread's
// handle of each GPU, destroyed when the thread exits. Internal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/cuda/driver.hpp"

#include <functional>
#include <map>
#include <string>

namespace kiln::detail::cuda {

/// dlopen of `soname`, then of it in /usr/local/cuda/lib64 and
/// /usr/local/cuda/targets/x86_64-linux/lib (RTLD_NOW | RTLD_LOCAL); null
/// with `why` holding each attempt's dlerror() when none loads.
void *open_toolkit_library(const char *soname, std::string &why);

/// dlsym (a function, so that this header needs no <dlfcn.h>).
void *dlsym_of(void *so, const char *name);

/// `fn` = the symbol `name` of `so`, or `name` appended to `missing`.
template <class F> void resolve(void *so, F &fn, const char *name, std::string &missing) {
  if (void *p = dlsym_of(so, name))
    fn = reinterpret_cast<F>(p);
  else
    missing += (missing.empty() ? "" : ", ") + std::string(name);
}

/// The calling thread's handle of a library for each GPU: made on first
/// use (the GPU's context current) and destroyed at thread exit. `Handle`
/// is the library's handle type; create and destroy its functions.
template <class Handle> class thread_handles {
public:
  using create_fn = std::function<Handle()>;
  using destroy_fn = std::function<void(Handle)>;

  Handle get(int ordinal, const create_fn &create, destroy_fn destroy) {
    if (auto it = by_device_.find(ordinal); it != by_device_.end())
      return it->second;
    const Handle h = create();
    by_device_.emplace(ordinal, h);
    destroy_ = std::move(destroy);
    return h;
  }

  ~thread_handles() {
    for (auto &[ordinal, h] : by_device_) {
      try {
        make_current(ordinal);
        destroy_(h); // errors at thread exit are not reportable
      } catch (...) {
      }
    }
  }

private:
  std::map<int, Handle> by_device_;
  destroy_fn destroy_;
};

} // namespace kiln::detail::cuda
