//===- runtime/blas/matmul.cpp - matmul and dot ---------------------------===//
//
// The entry points of kiln/linalg.hpp: np.matmul (cuBLAS for float and
// complex arrays on a GPU, else the host loop; integer products on a GPU run
// on the host and are copied back) and np.dot, which reduces to matmul.
//
//===----------------------------------------------------------------------===//
#include "matmul_plan.hpp"

#include "kiln/error.hpp"
#include "kiln/linalg.hpp"
#include "kiln/ops.hpp"

#include <string>
#include <vector>

namespace kiln::detail {

array_base matmul(const array_base &a, const array_base &b) {
  const blas::matmul_plan p = blas::plan_matmul(a, b);
  if (p.dev.is_host()) {
    array_base out = detail::empty(p.result, p.out_shape, p.dev);
    blas::host_matmul(p, a, b, out);
    return out;
  }
  if (is_floating(p.result) || is_complex(p.result)) {
    array_base out = detail::empty(p.result, p.out_shape, p.dev);
    blas::gpu_matmul(p, a, b, out);
    return out;
  }
  // cuBLAS has no integer GEMM of NumPy's semantics: compute on the host.
  const stream s = stream::current(p.dev);
  const array_base ha = detail::to_device(a, device::host(), s);
  const array_base hb = detail::to_device(b, device::host(), s);
  blas::matmul_plan hp = p;
  hp.dev = device::host();
  array_base out = detail::empty(p.result, p.out_shape, device::host());
  blas::host_matmul(hp, ha, hb, out);
  return detail::to_device(out, p.dev, s);
}

array_base dot(const array_base &a, const array_base &b) {
  if (!(a.device() == b.device()))
    throw device_error("arrays are on different devices: " + a.device().str() +
                       " and " + b.device().str());
  if (a.ndim() == 0 || b.ndim() == 0)
    return eager(op::multiply, {a, b});
  const std::int64_t ka = a.shape().back();
  const std::int64_t bdim = b.ndim() == 1 ? 0 : b.ndim() - 2;
  const std::int64_t kb = b.shape()[static_cast<std::size_t>(bdim)];
  if (ka != kb)
    throw shape_error(
        "shapes " + to_string(a.shape()) + " and " + to_string(b.shape()) +
        " not aligned: " + std::to_string(ka) + " (dim " +
        std::to_string(a.ndim() - 1) + ") != " + std::to_string(kb) + " (dim " +
        std::to_string(bdim) + ")");
  // Up to 2-d, and any a with a 1-d b, dot is matmul.
  if (b.ndim() == 1 || (a.ndim() <= 2 && b.ndim() <= 2))
    return matmul(a, b);

  // dot(a, b)[i..., j..., m] = sum_k a[i..., k] * b[j..., k, m]:
  // (P, K) @ (K, Q*M) with b's contracted axis moved to the front.
  const shape &as = a.shape(), &bs = b.shape();
  const std::size_t bn = bs.size();
  std::int64_t P = 1, Q = 1;
  shape out;
  for (std::size_t i = 0; i + 1 < as.size(); ++i) {
    P *= as[i];
    out.push_back(as[i]);
  }
  std::vector<std::int64_t> axes{static_cast<std::int64_t>(bn - 2)};
  for (std::size_t i = 0; i + 2 < bn; ++i) {
    Q *= bs[i];
    out.push_back(bs[i]);
    axes.push_back(static_cast<std::int64_t>(i));
  }
  axes.push_back(static_cast<std::int64_t>(bn - 1));
  const std::int64_t M = bs[bn - 1];
  out.push_back(M);
  const array_base a2 = detail::reshape(a, shape{P, ka});
  const array_base b2 =
      detail::reshape(detail::transpose(b, axes), shape{ka, Q * M});
  return detail::reshape(matmul(a2, b2), out);
}

} // namespace kiln::detail
