//===- runtime/kernels/kernels.cpp - Host loops and backend dispatch ------===//
//
// The host versions of the runtime's kernels (templated C++ loops over the
// merged layout, dispatched on the dtype pair), and the entry points of
// kernels.hpp that send work to them or to the GPU kernels by device.
//
//===----------------------------------------------------------------------===//
#include "runtime/kernels/kernels.hpp"

#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/element.hpp"
#include "runtime/kernels/gpu_kernels.hpp"
#include "runtime/kernels/layout.hpp"
#include "runtime/kernels/philox.hpp"

#include <cstring>

namespace kiln::detail::kernels {

// element.hpp mirrors kiln::dtype for the CUDA sources (nvcc sees no C++20
// headers); the two must agree code for code.
#define KILN_SAME_CODE(name)                                                   \
  static_assert(static_cast<int>(code::name) == static_cast<int>(kiln::dtype::name));
KILN_SAME_CODE(bool_)
KILN_SAME_CODE(int8)
KILN_SAME_CODE(uint8)
KILN_SAME_CODE(int32)
KILN_SAME_CODE(int64)
KILN_SAME_CODE(float32)
KILN_SAME_CODE(float64)
KILN_SAME_CODE(complex64)
KILN_SAME_CODE(complex128)
#undef KILN_SAME_CODE
static_assert(num_codes == static_cast<int>(kiln::dtype::complex128) + 1);

namespace {

template <class T> struct tag { using type = T; };

/// Calls f(tag<T>{}) with the element type T of dtype `t`.
template <class F> void visit(dtype t, F &&f) {
  switch (static_cast<code>(t)) {
  case code::bool_:
    return f(tag<bool>{});
  case code::int8:
    return f(tag<std::int8_t>{});
  case code::uint8:
    return f(tag<std::uint8_t>{});
  case code::int32:
    return f(tag<std::int32_t>{});
  case code::int64:
    return f(tag<std::int64_t>{});
  case code::float32:
    return f(tag<float>{});
  case code::float64:
    return f(tag<double>{});
  case code::complex64:
    return f(tag<complex64_t>{});
  case code::complex128:
    return f(tag<complex128_t>{});
  }
}

/// Runs body(offset0, offset1, inner_count, inner_stride0, inner_stride1)
/// for every row of the innermost merged dimension.
template <class Body> void for_each_row(const loop_layout &l, Body &&body) {
  if (l.n == 0)
    return;
  int rank = l.rank();
  if (rank == 0) {
    body(0, 0, 1, 0, 0);
    return;
  }
  const std::int64_t inner = l.shape[rank - 1];
  const std::int64_t s0 = l.strides[0][rank - 1], s1 = l.strides[1][rank - 1];
  kiln::shape idx = kiln::shape::filled(static_cast<std::size_t>(rank - 1), 0);
  std::int64_t o0 = 0, o1 = 0;
  while (true) {
    body(o0, o1, inner, s0, s1);
    int d = rank - 2;
    for (; d >= 0; --d) {
      o0 += l.strides[0][d];
      o1 += l.strides[1][d];
      if (++idx[d] < l.shape[d])
        break;
      o0 -= idx[d] * l.strides[0][d];
      o1 -= idx[d] * l.strides[1][d];
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

template <class To, class From>
void host_copy(const loop_layout &l, void *dst_, const void *src_) {
  To *dst = static_cast<To *>(dst_);
  const From *src = static_cast<const From *>(src_);
  for_each_row(l, [&](std::int64_t o0, std::int64_t o1, std::int64_t n,
                      std::int64_t s0, std::int64_t s1) {
    To *d = dst + o0;
    const From *s = src + o1;
    if (s0 == 1 && s1 == 1) {
      for (std::int64_t i = 0; i < n; ++i)
        d[i] = convert<To>(s[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i)
        d[i * s0] = convert<To>(s[i * s1]);
    }
  });
}

struct bytes16 {
  std::uint64_t a, b;
};

template <class T>
void host_fill(const loop_layout &l, void *dst_, const void *value) {
  T *dst = static_cast<T *>(dst_);
  T v;
  std::memcpy(&v, value, sizeof(T));
  for_each_row(l, [&](std::int64_t o0, std::int64_t, std::int64_t n,
                      std::int64_t s0, std::int64_t) {
    T *d = dst + o0;
    for (std::int64_t i = 0; i < n; ++i)
      d[i * s0] = v;
  });
}

void host_random(void *out, dtype t, std::int64_t n, const draw &d) {
  switch (d.dist) {
  case distribution::uniform:
    if (t == dtype::float32) {
      float *o = static_cast<float *>(out);
      for (std::int64_t i = 0; i < n; ++i)
        o[i] =
            draw_uniform_f32(d.offset + static_cast<std::uint64_t>(i), d.seed);
    } else {
      double *o = static_cast<double *>(out);
      for (std::int64_t i = 0; i < n; ++i)
        o[i] =
            draw_uniform_f64(d.offset + static_cast<std::uint64_t>(i), d.seed);
    }
    return;
  case distribution::normal:
    if (t == dtype::float32) {
      float *o = static_cast<float *>(out);
      float mean = static_cast<float>(d.mean), sd = static_cast<float>(d.std);
      for (std::int64_t i = 0; i < n; ++i)
        o[i] = draw_normal_f32(d.offset + static_cast<std::uint64_t>(i), d.seed,
                               mean, sd);
    } else {
      double *o = static_cast<double *>(out);
      for (std::int64_t i = 0; i < n; ++i)
        o[i] = draw_normal_f64(d.offset + static_cast<std::uint64_t>(i), d.seed,
                               d.mean, d.std);
    }
    return;
  case distribution::integers:
    visit(t, [&](auto tg) {
      using T = typename decltype(tg)::type;
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        T *o = static_cast<T *>(out);
        for (std::int64_t i = 0; i < n; ++i)
          o[i] = static_cast<T>(
              draw_integer(d.offset + static_cast<std::uint64_t>(i), d.seed,
                           d.low, d.range));
      }
    });
    return;
  }
}

} // namespace

void copy_cast(const array_base &dst, const array_base &src, const stream &s) {
  loop_layout l = make_layout(dst.shape(), dst.strides(), &src.strides());
  if (l.n == 0)
    return;
  if (dst.device().is_cuda()) {
    cuda::make_current(dst.device().index());
    gpu::copy(dst.device().index(), l, dst.data(), dst.dtype(), src.data(),
              src.dtype(), s.native_handle());
    return;
  }
  visit(dst.dtype(), [&](auto to) {
    visit(src.dtype(), [&](auto from) {
      host_copy<typename decltype(to)::type, typename decltype(from)::type>(
          l, dst.data(), src.data());
    });
  });
}

void fill(const array_base &dst, const void *value, const stream &s) {
  loop_layout l = make_layout(dst.shape(), dst.strides());
  if (l.n == 0)
    return;
  std::size_t size = itemsize(dst.dtype());
  if (dst.device().is_cuda()) {
    cuda::make_current(dst.device().index());
    gpu::fill(dst.device().index(), l, dst.data(), size, value,
              s.native_handle());
    return;
  }
  switch (size) {
  case 1:
    return host_fill<std::uint8_t>(l, dst.data(), value);
  case 2:
    return host_fill<std::uint16_t>(l, dst.data(), value);
  case 4:
    return host_fill<std::uint32_t>(l, dst.data(), value);
  case 8:
    return host_fill<std::uint64_t>(l, dst.data(), value);
  default:
    return host_fill<bytes16>(l, dst.data(), value);
  }
}

void random(const array_base &out, const draw &d, const stream &s) {
  std::int64_t n = out.size();
  if (n == 0)
    return;
  if (out.device().is_cuda()) {
    cuda::make_current(out.device().index());
    gpu::random(out.device().index(), out.data(), out.dtype(), n, d,
                s.native_handle());
    return;
  }
  host_random(out.data(), out.dtype(), n, d);
}

} // namespace kiln::detail::kernels
