//===- runtime/blas/matmul_plan.cpp - np.matmul's shape rules -------------===//
//
// Checks the operands of matmul and derives the batch and result shapes and
// each operand's strides, with NumPy's error messages.
//
//===----------------------------------------------------------------------===//
#include "matmul_plan.hpp"

#include "kiln/error.hpp"
#include "kiln/promote.hpp"
#include "runtime/ops/host_loop.hpp"

#include <string>

namespace kiln::detail::blas {
namespace {

constexpr const char *signature = "(n?,k),(k,m?)->(n?,m?)";

shape leading(const shape &s, std::size_t core) {
  shape out;
  for (std::size_t i = 0; i + core < s.size(); ++i)
    out.push_back(s[i]);
  return out;
}

/// NumPy's text for an operand whose batch dimensions failed to broadcast.
std::string remapped(const shape &s, std::size_t core) {
  std::string t = to_string(s) + "->(";
  shape lead = leading(s, core);
  for (std::size_t i = 0; i < lead.size(); ++i)
    t += std::to_string(lead[i]) + ",";
  for (std::size_t i = 0; i < core; ++i)
    t += i + 1 < core ? "newaxis," : "newaxis";
  return t + ")";
}

} // namespace

matmul_plan plan_matmul(const array_base &a, const array_base &b) {
  if (!(a.device() == b.device()))
    throw device_error("arrays are on different devices: " + a.device().str() +
                       " and " + b.device().str());
  for (int i = 0; i < 2; ++i) {
    const array_base &x = i == 0 ? a : b;
    if (x.ndim() == 0)
      throw shape_error("matmul: Input operand " + std::to_string(i) +
                        " does not have enough dimensions (has 0, gufunc core "
                        "with signature " +
                        signature + " requires 1)");
  }
  matmul_plan p;
  p.dev = a.device();
  p.result = promote_types(a.dtype(), b.dtype());
  p.a_vector = a.ndim() == 1;
  p.b_vector = b.ndim() == 1;
  const shape &as = a.shape(), &bs = b.shape();
  p.n = p.a_vector ? 1 : as[as.size() - 2];
  p.k = as.back();
  const std::int64_t kb = p.b_vector ? bs[0] : bs[bs.size() - 2];
  p.m = p.b_vector ? 1 : bs.back();
  if (kb != p.k)
    throw shape_error(std::string("matmul: Input operand 1 has a mismatch in "
                                  "its core dimension 0, with gufunc "
                                  "signature ") +
                      signature + " (size " + std::to_string(kb) +
                      " is different from " + std::to_string(p.k) + ")");
  const std::size_t a_core = p.a_vector ? 1 : 2, b_core = p.b_vector ? 1 : 2;
  try {
    p.batch = broadcast_shapes(leading(as, a_core), leading(bs, b_core));
  } catch (const shape_error &) {
    shape requested;
    if (!p.a_vector)
      requested.push_back(p.n);
    if (!p.b_vector)
      requested.push_back(p.m);
    throw shape_error("operands could not be broadcast together with remapped "
                      "shapes [original->remapped]: " +
                      remapped(as, a_core) + " " + remapped(bs, b_core) +
                      "  and requested shape " + to_string(requested));
  }
  p.out_shape = p.batch;
  if (!p.a_vector)
    p.out_shape.push_back(p.n);
  if (!p.b_vector)
    p.out_shape.push_back(p.m);
  return p;
}

operand_layout layout_of(const array_base &x, bool first,
                         const matmul_plan &p) {
  operand_layout l;
  const shape &s = x.shape(), &st = x.strides();
  if (x.ndim() == 1) {
    // A row vector (1, k) for a, a column vector (k, 1) for b.
    if (first)
      l.col_stride = st[0];
    else
      l.row_stride = st[0];
    l.batch_strides = shape::filled(p.batch.size(), 0);
    return l;
  }
  const std::size_t nd = s.size();
  l.row_stride = st[nd - 2];
  l.col_stride = st[nd - 1];
  l.batch_strides =
      host::broadcast_strides(leading(s, 2), leading(st, 2), p.batch);
  return l;
}

} // namespace kiln::detail::blas
