//===- runtime/cuda/toolkit_library.cpp - CUDA libraries opened at run time
#include "toolkit_library.hpp"

#include <dlfcn.h>

namespace kiln::detail::cuda {

void *open_toolkit_library(const char *soname, std::string &why) {
  const std::string candidates[] = {soname, std::string("/usr/local/cuda/lib64/") + soname,
                                    std::string("/usr/local/cuda/targets/x86_64-linux/lib/") + soname};
  why.clear();
  for (const std::string &path : candidates) {
    if (void *so = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
      return so;
    const char *error = dlerror();
    why += (why.empty() ? "" : "; ") + (error ? std::string(error) : path);
  }
  return nullptr;
}

void *dlsym_of(void *so, const char *name) { return dlsym(so, name); }

} // namespace kiln::detail::cuda
