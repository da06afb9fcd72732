//===- runtime/cuda/toolkit_library.cpp - CUDA libraries opened at run time
#include "toolkit_library.hpp"

#include "kiln/error.hpp"

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

cudaDataType data_type_of(dtype t) {
  switch (t) {
  case dtype::float32:
    return CUDA_R_32F;
  case dtype::float64:
    return CUDA_R_64F;
  case dtype::complex64:
    return CUDA_C_32F;
  case dtype::complex128:
    return CUDA_C_64F;
  default:
    throw value_error(std::string("no CUDA library routines for ") +
                      std::string(name(t)));
  }
}

} // namespace kiln::detail::cuda
