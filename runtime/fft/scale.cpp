//===- runtime/fft/scale.cpp - The FFTs' normalization --------------------===//
//
// A scale (and conjugate) in place: kiln_scale_<dtype> on a GPU, a loop on
// the host (where pocketfft scales on the way and this serves ihfft's
// conjugate).
//
//===----------------------------------------------------------------------===//
#include "transform.hpp"

#include "kiln/error.hpp"
#include "kiln/stream.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/gpu_kernels.hpp"

#include <complex>
#include <string>

namespace kiln::detail::fft_run {

void scale_in_place(const array_base &x, double factor, bool conj) {
  if (x.size() == 0 || (factor == 1.0 && !conj) ||
      ((x.dtype() == dtype::float32 || x.dtype() == dtype::float64) && factor == 1.0))
    return;
  if (!x.device().is_host()) {
    kernels::scale_params p{};
    p.data = x.data();
    p.n = x.size();
    p.factor = factor;
    p.conj = conj;
    cuda::make_current(x.device().index());
    kernels::gpu::scale(x.device().index(), x.dtype(), p, stream::current(x.device()).native_handle());
    return;
  }
  auto each = [&]<class T>(T *data) {
    for (std::int64_t i = 0; i < x.size(); ++i) {
      T v = data[i];
      if constexpr (is_std_complex<T>::value) {
        if (conj)
          v = std::conj(v);
        data[i] = v * typename T::value_type(factor);
      } else {
        data[i] = v * T(factor);
      }
    }
  };
  switch (x.dtype()) {
  case dtype::float32:
    return each(static_cast<float *>(x.data()));
  case dtype::float64:
    return each(static_cast<double *>(x.data()));
  case dtype::complex64:
    return each(static_cast<std::complex<float> *>(x.data()));
  case dtype::complex128:
    return each(static_cast<std::complex<double> *>(x.data()));
  default:
    throw value_error("kiln::fft: no scale for " + std::string(name(x.dtype())));
  }
}

} // namespace kiln::detail::fft_run
