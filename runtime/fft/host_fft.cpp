//===- runtime/fft/host_fft.cpp - FFTs in pocketfft on the host -----------===//
//
// pocketfft (the header NumPy and SciPy vendor; scripts/setup.sh installs
// it from NumPy's source distribution) reads the input through its strides
// (any view, no copy), transforms every axis in one call, scales on the way,
// and spreads the batch over the host backend's threads (its own pool; one
// long 1-d transform runs on one thread, as in NumPy).
//
//===----------------------------------------------------------------------===//
#include "transform.hpp"

#include "kiln/error.hpp"
#include "runtime/parallel/thread_pool.hpp"

#include <complex>

#if KILN_HAVE_POCKETFFT
#define POCKETFFT_CACHE_SIZE 16 // plans of the last 16 lengths
#include <pocketfft/pocketfft_hdronly.h>
#endif

namespace kiln::detail::fft_run {

#if KILN_HAVE_POCKETFFT
namespace {

pocketfft::shape_t sizes(const shape &s) { return {s.begin(), s.end()}; }

pocketfft::stride_t byte_strides(const array_base &x) {
  pocketfft::stride_t out;
  for (std::int64_t st : x.strides())
    out.push_back(static_cast<std::ptrdiff_t>(st * static_cast<std::int64_t>(itemsize(x.dtype()))));
  return out;
}

template <class R> array_base run(const transform &t) {
  using C = std::complex<R>;
  const pocketfft::shape_t axes(t.axes.begin(), t.axes.end());
  const std::size_t threads = static_cast<std::size_t>(parallel::num_threads());
  const R fct = static_cast<R>(t.scale);
  const shape out_shape = t.out_shape();
  array_base out = empty(t.k == kind::c2r ? (sizeof(R) == 4 ? dtype::float32 : dtype::float64)
                                          : (sizeof(R) == 4 ? dtype::complex64 : dtype::complex128),
                         out_shape, device::host());
  if (out.size() == 0)
    return out;
  switch (t.k) {
  case kind::c2c:
    pocketfft::c2c<R>(sizes(t.in.shape()), byte_strides(t.in), byte_strides(out), axes, t.forward,
                      static_cast<const C *>(t.in.data()), static_cast<C *>(out.data()), fct, threads);
    break;
  case kind::r2c:
    pocketfft::r2c<R>(sizes(t.in.shape()), byte_strides(t.in), byte_strides(out), axes, true,
                      static_cast<const R *>(t.in.data()), static_cast<C *>(out.data()), fct, threads);
    break;
  case kind::c2r:
    pocketfft::c2r<R>(sizes(out_shape), byte_strides(t.in), byte_strides(out), axes, false,
                      static_cast<const C *>(t.in.data()), static_cast<R *>(out.data()), fct, threads);
    break;
  }
  return out;
}

} // namespace

array_base run_host(const transform &t) {
  const dtype real = real_type(t.in.dtype());
  return real == dtype::float32 ? run<float>(t) : run<double>(t);
}
#else
array_base run_host(const transform &) {
  throw kiln::error("kiln::fft: this kiln_runtime was built without pocketfft, the host's FFT library; run "
                    "scripts/setup.sh (it installs the header) and rebuild");
}
#endif

} // namespace kiln::detail::fft_run
