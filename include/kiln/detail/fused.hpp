//===- kiln/detail/fused.hpp - ABI of kilnc's fused kernels ------*- C++ -*-===//
//
// What kilnc emits for a fused elementwise group and how the runtime calls
// it. docs/kernel-abi.md is the full description; in short:
//
// * One kernel is compiled into variants: `<name>_contig` (all operands
//   C-contiguous with one shape, 16-byte aligned, vector loads) and
//   `<name>_strided<R>` for R = 1..max_kernel_rank (any strides; a broadcast
//   dimension has stride 0), and `<name>_rows`: rank 2 whose inner dimension
//   is contiguous in every operand (a matrix with a row broadcast), vector
//   accesses along rows. Each exists as PTX (a `.entry`) and as a host
//   function with the same parameters.
// * Parameters, in order: each operand (inputs, then outputs) as an expanded
//   memref descriptor {T *allocated, T *aligned, i64 offset, i64 sizes[R],
//   i64 strides[R]} (R = 1 for contig), then each scalar by value.
// * GPU variants loop grid-stride over all elements: any grid is correct.
// * The host entry takes the same parameters packed as `void **args`, one
//   pointer per parameter, exactly as cuLaunchKernel's kernelParams.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace kiln::detail {

/// The largest coalesced rank a kernel has a variant for. Calls of higher
/// rank run as a host-side loop over the leading dimensions.
inline constexpr int max_kernel_rank = 4;

/// A host variant: parameters packed as for cuLaunchKernel.
using host_kernel_fn = void (*)(void **args);

/// One fused kernel, as kilnc emits it into the rewritten C++ (static data).
struct fused_kernel {
  const char *name;               ///< stem of the variants' symbols
  const char *ptx;                ///< PTX module with every variant, or nullptr
  const unsigned char *fatbin;    ///< cubins for --cuda-arch targets, or nullptr
  std::size_t fatbin_size;
  host_kernel_fn host_contig;     ///< `<name>_contig` on the host
  host_kernel_fn host_strided[max_kernel_rank]; ///< `<name>_strided1` ...
  std::uint8_t num_inputs;
  std::uint8_t num_outputs;
  std::uint8_t num_scalars;
  const kiln::dtype *operand_dtypes; ///< inputs then outputs
  std::uint8_t vector_width;      ///< elements per vector access in _contig and _rows
  host_kernel_fn host_rows = nullptr; ///< `<name>_rows`; null: no `_rows` variant
};

/// Runs `k` over the broadcast of `inputs` (all on one device, else
/// device_error; shapes must broadcast, else shape_error). Each of `outputs`
/// that is not valid() is allocated C-contiguous with the broadcast shape on
/// the inputs' device; a given output must have exactly that shape.
/// `scalars[i]` points to a value of the kernel's i-th scalar type.
void launch_elementwise(const fused_kernel &k, std::span<const array_base *const> inputs,
                        std::span<const void *const> scalars, std::span<array_base> outputs);

/// A scalar operand as kilnc passes it: the value converted by the rule the
/// compiler also applies (bool as one byte; integers that fit int32 as
/// int32, other integers as int64; float; other floating types as double;
/// std::complex<float|double>), stored in place.
struct fused_scalar {
  alignas(16) unsigned char bytes[16];
};

template <class S> fused_scalar scalar(const S &v) {
  fused_scalar out{};
  auto put = [&](const auto &x) { std::memcpy(out.bytes, &x, sizeof(x)); };
  if constexpr (std::is_same_v<S, bool>) put(static_cast<std::uint8_t>(v));
  else if constexpr (std::is_integral_v<S>) {
    if constexpr (sizeof(S) < 4 || (sizeof(S) == 4 && std::is_signed_v<S>)) put(static_cast<std::int32_t>(v));
    else put(static_cast<std::int64_t>(v));
  } else if constexpr (std::is_same_v<S, float>) put(v);
  else if constexpr (std::is_floating_point_v<S>) put(static_cast<double>(v));
  else if constexpr (std::is_same_v<S, std::complex<float>> || std::is_same_v<S, std::complex<double>>) put(v);
  else static_assert(sizeof(S) == 0, "kiln: unsupported scalar operand type");
  return out;
}

/// An array operand: a pointer valid until the end of the full-expression.
inline const array_base *in(const array_base &a) noexcept { return &a; }

/// Runs `k` with `dst` as its one output, written in place: kilnc's
/// `x += a * y` and `elementwise_into`, NumPy's `ufunc(..., out=dst)`. The
/// inputs broadcast to dst's shape (else shape_error, NumPy's
/// "non-broadcastable output operand"); dst must be writeable (else
/// value_error); an input that overlaps dst other than as dst itself is
/// copied first.
void launch_elementwise_into(const fused_kernel &k, const array_base &dst, std::span<const array_base *const> inputs,
                             std::span<const void *const> scalars);
/// As launch_elementwise_into for kilnc's `dst.assign(value)` (NumPy's
/// `dst[...] = value`): the inputs broadcast together to the value's shape,
/// which must broadcast into dst's (else shape_error, "could not broadcast
/// input array from shape (3,) into shape (2,4)", as array::assign).
void launch_elementwise_assign(const fused_kernel &k, const array_base &dst,
                               std::span<const array_base *const> inputs, std::span<const void *const> scalars);

/// True when every array of `arrays` has the shape of `mask`: kilnc's
/// masked update `x[m] = f(w[m], ...)` then runs as one kernel writing
/// where(m, f(w, ...), x) into x; otherwise the statement runs as written.
inline bool masked_update_applies(const array_base &mask, std::initializer_list<const array_base *> arrays) {
  for (const array_base *a : arrays)
    if (a->shape() != mask.shape() || !a->valid())
      return false;
  return mask.valid();
}

/// Pointers to the packed scalars, as the launchers take them.
struct scalar_pointers {
  const void *ptrs[16];
  std::size_t n = 0;
  explicit scalar_pointers(std::initializer_list<fused_scalar> scalars) {
    for (const fused_scalar &s : scalars) {
      if (n == 16) throw value_error("kiln: a fused kernel takes at most 16 scalar operands");
      ptrs[n++] = s.bytes;
    }
  }
  std::span<const void *const> span() const noexcept { return {ptrs, n}; }
};

/// The form kilnc's rewritten code calls: one output of element type Out.
template <element Out>
array<Out> call_fused(const fused_kernel &k, std::initializer_list<const array_base *> inputs,
                      std::initializer_list<fused_scalar> scalars) {
  scalar_pointers sp(scalars);
  array_base out[1];
  launch_elementwise(k, std::span<const array_base *const>(inputs.begin(), inputs.size()), sp.span(), out);
  return array<Out>(std::move(out[0]));
}

/// The form of an in-place update: writes into `dst`, returns it (the value
/// of `x += ...` in C++).
template <class D>
const D &call_fused_into(const fused_kernel &k, const D &dst, std::initializer_list<const array_base *> inputs,
                         std::initializer_list<fused_scalar> scalars) {
  scalar_pointers sp(scalars);
  launch_elementwise_into(k, dst, std::span<const array_base *const>(inputs.begin(), inputs.size()), sp.span());
  return dst;
}

/// The form of `dst.assign(value)` with a fused value: writes into `dst`,
/// returns it (array::assign's value).
template <class D>
const D &call_fused_assign(const fused_kernel &k, const D &dst, std::initializer_list<const array_base *> inputs,
                           std::initializer_list<fused_scalar> scalars) {
  scalar_pointers sp(scalars);
  launch_elementwise_assign(k, dst, std::span<const array_base *const>(inputs.begin(), inputs.size()), sp.span());
  return dst;
}

} // namespace kiln::detail
