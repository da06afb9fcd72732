//===- runtime/cuda/toolkit_library.hpp - CUDA libraries opened at run time
//
// What the loaders of cuBLAS, cuSOLVER, cuFFT and cuSPARSE share: opening a
// toolkit library by its soname (then in /usr/local/cuda's library folders)
// with dlopen, resolving its entry points by name, and the calling thread's
// handle of each GPU, destroyed when the thread exits. Internal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/dtype.hpp"
#include "kiln/error.hpp"
#include "runtime/cuda/driver.hpp"

#include <library_types.h>

#include <functional>
#include <map>
#include <string>

namespace kiln::detail::cuda {

/// dlopen of `soname`, then of it in /usr/local/cuda/lib64 and
/// /usr/local/cuda/targets/x86_64-linux/lib (RTLD_NOW | RTLD_LOCAL); null
/// with `why` holding each attempt's dlerror() when none loads.
void *open_toolkit_library(const char *soname, std::string &why);

/// The libraries' cudaDataType of a float32, float64, complex64 or
/// complex128 dtype; value_error for any other.
cudaDataType data_type_of(dtype t);

/// dlsym (a function, so that this header needs no <dlfcn.h>).
void *dlsym_of(void *so, const char *name);

/// `fn` = the symbol `name` of `so`, or `name` appended to `missing`.
template <class F> void resolve(void *so, F &fn, const char *name, std::string &missing) {
  if (void *p = dlsym_of(so, name))
    fn = reinterpret_cast<F>(p);
  else
    missing += (missing.empty() ? "" : ", ") + std::string(name);
}

/// A library's entry points once loaded, or why it could not be.
template <class Api> struct loaded_library {
  Api lib;
  bool ok = false;
  std::string reason;
};

/// Opens `soname` (open_toolkit_library) and fills an Api with
/// `resolve_all(so, api, missing)`; `label` names the library in the
/// reasons ("cuFFT"). Never destroyed: handles may be released at thread
/// exit, after static destructors.
template <class Api, class Resolve>
const loaded_library<Api> *load_toolkit_library(const char *label,
                                                const char *soname,
                                                Resolve &&resolve_all) {
  auto *l = new loaded_library<Api>();
  std::string errors;
  void *so = open_toolkit_library(soname, errors);
  if (!so) {
    l->reason =
        std::string(label) + " (" + soname + ") could not be loaded: " + errors;
    return l;
  }
  std::string missing;
  resolve_all(so, l->lib, missing);
  if (!missing.empty()) {
    l->reason = std::string(label) + " (" + soname + ") lacks " + missing;
    return l;
  }
  l->ok = true;
  return l;
}

/// The library's entry points, or a device_error saying why it could not be
/// loaded.
template <class Api> const Api &require(const loaded_library<Api> &l) {
  if (!l.ok)
    throw device_error(l.reason);
  return l.lib;
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
