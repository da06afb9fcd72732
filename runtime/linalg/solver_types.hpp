//===- runtime/linalg/solver_types.hpp - The solvers' element types ------===//
//
// LAPACK and cuSOLVER have routines for four element types; with_type calls
// a generic lambda with the C++ type of a dtype among them, for the host
// (solvers.cpp) and the GPU (gpu_solvers.cpp) halves alike. Internal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/dtype.hpp"
#include "kiln/error.hpp"

#include <complex>
#include <string>

namespace kiln::detail::linalg_types {

using c64 = std::complex<float>;
using c128 = std::complex<double>;

/// Calls f.template operator()<R>() for R the float32, float64, complex64 or
/// complex128 type of `t`; value_error for any other dtype.
template <class F> void with_type(dtype t, F &&f) {
  switch (t) {
  case dtype::float32:
    return f.template operator()<float>();
  case dtype::float64:
    return f.template operator()<double>();
  case dtype::complex64:
    return f.template operator()<c64>();
  case dtype::complex128:
    return f.template operator()<c128>();
  default:
    throw value_error(std::string("kiln::linalg: no solver for ") + std::string(name(t)));
  }
}

} // namespace kiln::detail::linalg_types
