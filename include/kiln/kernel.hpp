//===- kiln/kernel.hpp - Raw kernels: KILN_RAWKERNEL and kiln::launch -*- C++ -*-===//
//
// CUDA-style kernels written in C++ (docs/user-guide.md): a KILN_RAWKERNEL
// function is the body of one GPU thread; kiln::launch runs it over a grid
// of blocks on the arrays' device (a GPU, or the host, where the blocks run
// on the thread pool and a block's threads as fibers):
//
//   KILN_RAWKERNEL void saxpy(float a, const float *x, float *y, std::int64_t n) {
//     for (std::int64_t i = kiln::global_thread_id(); i < n; i += kiln::grid_stride())
//       y[i] = a * x[i] + y[i];
//   }
//   kiln::launch(saxpy, kiln::grid{256}, kiln::block{256}, 2.0f, x, y, x.size());
//
// kilnc compiles the kernel and rewrites the launch to run its code; the
// built-ins below (thread_idx(), syncthreads(), shfl(), ...) exist only for
// kilnc to translate. Compiled by another compiler, the file still builds,
// but kiln::launch of the kernel throws kiln::error, and so does a built-in
// called outside a kernel. The ABI between kilnc and the runtime is
// kiln/detail/raw_kernel.hpp.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/detail/raw_kernel.hpp"
#include "kiln/device.hpp"
#include "kiln/error.hpp"
#include "kiln/stream.hpp"

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#ifndef KILN_RAWKERNEL
#if defined(__clang__)
/// Marks a `void` function of scalar C++ that kilnc compiles as a raw kernel.
#define KILN_RAWKERNEL [[clang::annotate("kiln.rawkernel")]]
#else
#define KILN_RAWKERNEL
#endif
#endif

namespace kiln {

//===----------------------------------------------------------------------===//
// Launch shapes
//===----------------------------------------------------------------------===//

/// A thread's index or a launch's extent in three dimensions (CUDA's dim3).
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
};

namespace detail {
/// An extent of any integer type, kept exactly: kiln::launch reports a
/// negative or oversized one by its value.
template <std::integral I> constexpr std::int64_t launch_extent(I v) noexcept {
  if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(std::int64_t))
    return v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
               ? std::numeric_limits<std::int64_t>::max()
               : static_cast<std::int64_t>(v);
  else
    return static_cast<std::int64_t>(v);
}

/// One, two or three extents (the others 1), from integers of any type.
struct launch_extents {
  template <std::integral X, std::integral Y = int, std::integral Z = int>
  constexpr launch_extents(X x_, Y y_ = 1, Z z_ = 1) noexcept // NOLINT(google-explicit-constructor)
      : x(launch_extent(x_)), y(launch_extent(y_)), z(launch_extent(z_)) {}
  std::int64_t x, y, z;
};
} // namespace detail

/// The blocks of a launch: kiln::grid{n}, kiln::grid{nx, ny},
/// kiln::grid{nx, ny, nz}. Each dimension is at least 1; x is at most
/// 2^31 - 1, y and z at most 65535 (CUDA's limits, on the host too).
struct grid : detail::launch_extents {
  using launch_extents::launch_extents;
};

/// The threads of one block: kiln::block{256}, kiln::block{16, 16}. At most
/// 1024 threads in all, x and y at most 1024, z at most 64.
struct block : detail::launch_extents {
  using launch_extents::launch_extents;
};

/// Dynamic shared memory per block, in bytes (the region
/// kiln::dynamic_shared<T>() points to).
struct shared_memory {
  template <std::integral I>
  constexpr explicit shared_memory(I bytes_) noexcept : bytes(detail::launch_extent(bytes_)) {}
  std::int64_t bytes;
};

/// A kernel parameter that is an array: its elements and their number. It
/// passes as two parameters (T *data, int64 size); kiln::launch fills it
/// from a C-contiguous kiln::array<T> of the launch's device.
template <class T> class span {
public:
  using element_type = T;

  constexpr span() noexcept = default;
  constexpr span(T *data, std::int64_t size) noexcept : data_(data), size_(size) {}
  /// span<T> to span<const T>.
  template <class U>
  requires std::is_convertible_v<U (*)[], T (*)[]>
  constexpr span(span<U> other) noexcept // NOLINT(google-explicit-constructor)
      : data_(other.data()), size_(other.size()) {}

  constexpr T *data() const noexcept { return data_; }
  constexpr std::int64_t size() const noexcept { return size_; }
  constexpr T &operator[](std::int64_t i) const noexcept { return data_[i]; }

private:
  T *data_ = nullptr;
  std::int64_t size_ = 0;
};

//===----------------------------------------------------------------------===//
// Built-ins of KILN_RAWKERNEL functions
//===----------------------------------------------------------------------===//
//
// kilnc translates these calls; their bodies only throw (a kernel's code
// never reaches them). Shuffles and ballot act on the caller's warp (32
// threads by linear index in the block) with CUDA's semantics; `width` (a
// power of two up to 32) splits the warp into segments.

namespace detail {
/// Throws kiln::error: the built-in `name` was called outside a kernel that
/// kiln::launch runs.
[[noreturn]] void raw_builtin_outside_kernel(const char *name);
} // namespace detail

/// threadIdx: the thread's index in its block.
inline dim3 thread_idx() { detail::raw_builtin_outside_kernel("thread_idx"); }
/// blockIdx: the block's index in the grid.
inline dim3 block_idx() { detail::raw_builtin_outside_kernel("block_idx"); }
/// blockDim: the block's extent.
inline dim3 block_dim() { detail::raw_builtin_outside_kernel("block_dim"); }
/// gridDim: the grid's extent.
inline dim3 grid_dim() { detail::raw_builtin_outside_kernel("grid_dim"); }
/// block_idx().x * block_dim().x + thread_idx().x, in 64 bits.
inline std::int64_t global_thread_id() { detail::raw_builtin_outside_kernel("global_thread_id"); }
/// grid_dim().x * block_dim().x, in 64 bits: the step of a grid-stride loop.
inline std::int64_t grid_stride() { detail::raw_builtin_outside_kernel("grid_stride"); }
/// The thread's lane in its warp (0..31).
inline unsigned int lane_id() { detail::raw_builtin_outside_kernel("lane_id"); }
/// __syncthreads(): every thread of the block arrives before any goes on.
inline void syncthreads() { detail::raw_builtin_outside_kernel("syncthreads"); }

/// A block-wide shared array of N elements (__shared__ T a[N]); each call
/// site is an array of its own.
template <class T, std::size_t N> T *shared_array() { detail::raw_builtin_outside_kernel("shared_array"); }
/// The launch's dynamic shared memory (extern __shared__), as T elements.
template <class T> T *dynamic_shared() { detail::raw_builtin_outside_kernel("dynamic_shared"); }

/// Atomic read-modify-write of *p; each returns the old value.
template <class T> T atomic_add(T *p, std::type_identity_t<T> v) {
  (void)p, (void)v;
  detail::raw_builtin_outside_kernel("atomic_add");
}
template <class T> T atomic_sub(T *p, std::type_identity_t<T> v) {
  (void)p, (void)v;
  detail::raw_builtin_outside_kernel("atomic_sub");
}
template <class T> T atomic_max(T *p, std::type_identity_t<T> v) {
  (void)p, (void)v;
  detail::raw_builtin_outside_kernel("atomic_max");
}
template <class T> T atomic_min(T *p, std::type_identity_t<T> v) {
  (void)p, (void)v;
  detail::raw_builtin_outside_kernel("atomic_min");
}
template <class T> T atomic_exch(T *p, std::type_identity_t<T> v) {
  (void)p, (void)v;
  detail::raw_builtin_outside_kernel("atomic_exch");
}
/// Stores `value` to *p if *p equals `compare`; returns the old *p.
template <class T> T atomic_cas(T *p, std::type_identity_t<T> compare, std::type_identity_t<T> value) {
  (void)p, (void)compare, (void)value;
  detail::raw_builtin_outside_kernel("atomic_cas");
}

/// __shfl_sync: `v` of lane `src_lane` of the caller's segment.
template <class T> T shfl(T v, int src_lane, int width = 32) {
  (void)v, (void)src_lane, (void)width;
  detail::raw_builtin_outside_kernel("shfl");
}
/// __shfl_up_sync: `v` of lane - delta (the caller's own below the segment).
template <class T> T shfl_up(T v, unsigned delta, int width = 32) {
  (void)v, (void)delta, (void)width;
  detail::raw_builtin_outside_kernel("shfl_up");
}
/// __shfl_down_sync: `v` of lane + delta (the caller's own past the segment).
template <class T> T shfl_down(T v, unsigned delta, int width = 32) {
  (void)v, (void)delta, (void)width;
  detail::raw_builtin_outside_kernel("shfl_down");
}
/// __shfl_xor_sync: `v` of lane ^ lane_mask (the caller's own past the
/// segment).
template <class T> T shfl_xor(T v, int lane_mask, int width = 32) {
  (void)v, (void)lane_mask, (void)width;
  detail::raw_builtin_outside_kernel("shfl_xor");
}
/// __ballot_sync: bit i set when lane i's predicate is true.
inline unsigned int ballot(bool predicate) {
  (void)predicate;
  detail::raw_builtin_outside_kernel("ballot");
}

//===----------------------------------------------------------------------===//
// Launching
//===----------------------------------------------------------------------===//

namespace detail {

/// A raw kernel kilnc compiled, typed with its C++ function's signature:
/// kilnc rewrites `kiln::launch(f, ...)` into a launch of
/// `typed_raw_kernel<void(P...)>(descriptor)`, so that the arguments are
/// checked against f's parameters at compile time.
template <class Signature> class typed_raw_kernel;

template <class... P> class typed_raw_kernel<void(P...)> {
public:
  constexpr explicit typed_raw_kernel(const raw_kernel &k) noexcept : kernel_(&k) {}
  constexpr const raw_kernel &descriptor() const noexcept { return *kernel_; }

private:
  const raw_kernel *kernel_;
};

/// Throws kiln::error: kiln::launch was given a C++ function, which runs
/// only when kilnc compiled its file.
[[noreturn]] void raw_kernel_not_compiled();

/// The extents of a grid or block (`what`) of `k`'s launch as launch_raw
/// takes them; value_error for a dimension below 1 or above CUDA's limit.
raw_dims raw_launch_dims(const raw_kernel &k, const char *what, const launch_extents &e);
/// Dynamic shared memory of `k`'s launch; value_error when negative.
std::size_t raw_launch_shared(const raw_kernel &k, std::int64_t bytes);
/// Throws kiln::error unless `k` takes `count` parameter values of
/// `bytes[i]` bytes each (kilnc and this header agree).
void check_raw_signature(const raw_kernel &k, const std::uint8_t *bytes, std::size_t count);
/// Checks array argument `index` of `k`'s launch on `dev`: device_error on
/// another device, value_error when it is not C-contiguous.
void check_raw_array(const raw_kernel &k, std::size_t index, const array_base &a, device dev);

template <class T> inline constexpr bool is_raw_span = false;
template <class T> inline constexpr bool is_raw_span<span<T>> = true;
template <class T> inline constexpr bool is_raw_array = false;
template <element E> inline constexpr bool is_raw_array<array<E>> = true;

/// Checks, at compile time, argument number I (type A) for its parameter
/// of type P; the compiler's notes name I, P and A. Returns false (after
/// the static_assert's message) so that nothing more is instantiated.
template <std::size_t I, class P, class A> constexpr bool raw_argument_fits() {
  if constexpr (std::is_reference_v<P>) {
    static_assert(!std::is_reference_v<P>, "kiln::launch: a KILN_RAWKERNEL function takes its parameters by value");
    return false;
  } else if constexpr (std::is_pointer_v<P> && is_raw_array<A>) {
    constexpr bool ok = std::is_same_v<typename A::value_type, std::remove_cv_t<std::remove_pointer_t<P>>>;
    static_assert(ok, "kiln::launch: a kiln::array passed for a pointer parameter must have exactly the parameter's "
                      "element type (kiln::array<float> for float * or const float *)");
    return ok;
  } else if constexpr (std::is_pointer_v<P>) {
    constexpr bool ok = std::is_convertible_v<const A &, P>;
    static_assert(ok, "kiln::launch: a pointer parameter takes a kiln::array of its element type or a pointer that "
                      "converts to it");
    return ok;
  } else if constexpr (is_raw_span<P> && is_raw_array<A>) {
    constexpr bool ok = std::is_same_v<typename A::value_type, std::remove_cv_t<typename P::element_type>>;
    static_assert(ok, "kiln::launch: a kiln::array passed for a kiln::span parameter must have exactly the span's "
                      "element type (kiln::array<float> for kiln::span<float> or kiln::span<const float>)");
    return ok;
  } else if constexpr (is_raw_span<P>) {
    constexpr bool ok = std::is_convertible_v<const A &, P>;
    static_assert(ok, "kiln::launch: a kiln::span<T> parameter takes a kiln::array<T> or a kiln::span that converts "
                      "to it");
    return ok;
  } else if constexpr (is_raw_array<A>) {
    static_assert(!is_raw_array<A>, "kiln::launch: a kiln::array cannot be passed for a scalar parameter (declare "
                                    "the parameter as a pointer or a kiln::span)");
    return false;
  } else {
    constexpr bool ok = std::is_convertible_v<const A &, P>;
    static_assert(ok, "kiln::launch: an argument does not convert to the type of its scalar parameter");
    return ok;
  }
}

/// Checks a launch's arguments against the parameters P at compile time.
template <class... P> struct raw_parameters {
  template <class... A> static constexpr bool accept() {
    static_assert(sizeof...(A) == sizeof...(P),
                  "kiln::launch: the number of kernel arguments differs from the kernel's number of parameters");
    if constexpr (sizeof...(A) == sizeof...(P))
      return accept_each<A...>(std::index_sequence_for<P...>{});
    else
      return false;
  }
  template <class... A, std::size_t... I> static constexpr bool accept_each(std::index_sequence<I...>) {
    return (raw_argument_fits<I, P, A>() & ... & true); // every argument checked, each reported
  }
};

/// The parameter values (launch_raw's `args`) for one parameter of type P.
template <class P> struct raw_slot {
  static constexpr std::size_t count = 1;
  P value;
  template <class A> raw_slot(const A &a, const raw_kernel &, std::size_t, device) : value(static_cast<P>(a)) {}
  static constexpr std::uint8_t bytes(std::size_t) noexcept { return sizeof(P); }
  void put(void **&out) noexcept { *out++ = &value; }
};

template <class T> struct raw_slot<T *> {
  static constexpr std::size_t count = 1;
  T *value;
  template <class A> raw_slot(const A &a, const raw_kernel &k, std::size_t index, device dev) {
    if constexpr (is_raw_array<A>) {
      check_raw_array(k, index, a, dev);
      value = a.data();
    } else {
      value = a;
    }
  }
  static constexpr std::uint8_t bytes(std::size_t) noexcept { return sizeof(T *); }
  void put(void **&out) noexcept { *out++ = &value; }
};

template <class T> struct raw_slot<span<T>> {
  static constexpr std::size_t count = 2;
  T *data;
  std::int64_t size;
  template <class A> raw_slot(const A &a, const raw_kernel &k, std::size_t index, device dev) {
    if constexpr (is_raw_array<A>) {
      check_raw_array(k, index, a, dev);
      data = a.data();
      size = a.size();
    } else {
      const span<T> s = a;
      data = s.data();
      size = s.size();
    }
  }
  static constexpr std::uint8_t bytes(std::size_t i) noexcept { return i == 0 ? sizeof(T *) : sizeof(std::int64_t); }
  void put(void **&out) noexcept {
    *out++ = &data;
    *out++ = &size;
  }
  static void sizes(std::uint32_t *&out) noexcept {
    *out++ = sizeof(T *);
    *out++ = sizeof(std::int64_t);
  }
};

/// The bytes of each parameter value of a kernel with parameters P (one
/// more element than values, so that none is empty).
template <class... P> constexpr auto raw_signature() {
  std::array<std::uint8_t, (raw_slot<P>::count + ... + 0) + 1> bytes{};
  std::size_t n = 0;
  auto add = [&]<class Q>() {
    for (std::size_t i = 0; i < raw_slot<Q>::count; ++i)
      bytes[n++] = raw_slot<Q>::bytes(i);
  };
  (add.template operator()<P>(), ...);
  return bytes;
}

/// The device a launch runs on: its first array argument's, else the
/// stream's, else the current device.
template <class... A> device raw_launch_device(const stream *s, const A &...args) {
  const array_base *first = nullptr;
  auto note = [&](const auto &a) {
    if constexpr (is_raw_array<std::remove_cvref_t<decltype(a)>>)
      if (!first)
        first = &a;
  };
  (note(args), ...);
  (void)note; // a launch without arguments
  return first ? first->device() : s ? s->get_device() : current_device();
}

/// The launch every kiln::launch of a compiled kernel comes to: marshals
/// the arguments into parameter values and calls launch_raw.
template <class... P, class... A>
void launch_typed(const raw_kernel &k, const grid &g, const block &b, std::int64_t shared, const stream *s,
                  const A &...args) {
  constexpr std::size_t count = (raw_slot<P>::count + ... + 0);
  static constexpr auto signature = raw_signature<P...>();
  check_raw_signature(k, signature.data(), count);
  const raw_dims grid_dims = raw_launch_dims(k, "grid", g);
  const raw_dims block_dims = raw_launch_dims(k, "block", b);
  const std::size_t shared_bytes = raw_launch_shared(k, shared);
  const device dev = raw_launch_device(s, args...);
  std::size_t index = 0;
  std::tuple<raw_slot<P>...> slots{raw_slot<P>(args, k, index++, dev)...};
  void *values[count + 1];
  void **out = values;
  std::apply([&](auto &...slot) { (slot.put(out), ...); }, slots);
  launch_raw(k, dev, grid_dims, block_dims, shared_bytes, s, values);
}

} // namespace detail

/// Runs a KILN_RAWKERNEL function over `g` blocks of `b` threads, with
/// `args` for its parameters: a kiln::array for a pointer or kiln::span
/// parameter (its elements, which must be C-contiguous and on the launch's
/// device: the first array argument's, else the stream's or the current
/// device), a pointer or span as is, and a scalar converted to the
/// parameter's type. Optionally `shared` bytes of dynamic shared memory and
/// a stream (default: the device's current stream). A GPU launch is
/// asynchronous, as every Kiln launch; a host launch returns when done.
/// kilnc's rewritten source calls the typed_raw_kernel forms; the function
/// pointer forms (the same file compiled without kilnc) check the arguments
/// and throw kiln::error.
template <class... P, class... A>
void launch(detail::typed_raw_kernel<void(P...)> kernel, const grid &g, const block &b, const A &...args) {
  if constexpr (detail::raw_parameters<P...>::template accept<A...>())
    detail::launch_typed<P...>(kernel.descriptor(), g, b, 0, nullptr, args...);
}
template <class... P, class... A>
void launch(detail::typed_raw_kernel<void(P...)> kernel, const grid &g, const block &b, const shared_memory &shared,
            const A &...args) {
  if constexpr (detail::raw_parameters<P...>::template accept<A...>())
    detail::launch_typed<P...>(kernel.descriptor(), g, b, shared.bytes, nullptr, args...);
}
template <class... P, class... A>
void launch(detail::typed_raw_kernel<void(P...)> kernel, const grid &g, const block &b, const stream &s,
            const A &...args) {
  if constexpr (detail::raw_parameters<P...>::template accept<A...>())
    detail::launch_typed<P...>(kernel.descriptor(), g, b, 0, &s, args...);
}
template <class... P, class... A>
void launch(detail::typed_raw_kernel<void(P...)> kernel, const grid &g, const block &b, const shared_memory &shared,
            const stream &s, const A &...args) {
  if constexpr (detail::raw_parameters<P...>::template accept<A...>())
    detail::launch_typed<P...>(kernel.descriptor(), g, b, shared.bytes, &s, args...);
}

template <class... P, class... A> void launch(void (*kernel)(P...), const grid &, const block &, const A &...) {
  (void)kernel;
  if constexpr (detail::raw_parameters<P...>::template accept<A...>())
    detail::raw_kernel_not_compiled();
}
template <class... P, class... A>
void launch(void (*kernel)(P...), const grid &, const block &, const shared_memory &, const A &...) {
  (void)kernel;
  if constexpr (detail::raw_parameters<P...>::template accept<A...>())
    detail::raw_kernel_not_compiled();
}
template <class... P, class... A>
void launch(void (*kernel)(P...), const grid &, const block &, const stream &, const A &...) {
  (void)kernel;
  if constexpr (detail::raw_parameters<P...>::template accept<A...>())
    detail::raw_kernel_not_compiled();
}
template <class... P, class... A>
void launch(void (*kernel)(P...), const grid &, const block &, const shared_memory &, const stream &, const A &...) {
  (void)kernel;
  if constexpr (detail::raw_parameters<P...>::template accept<A...>())
    detail::raw_kernel_not_compiled();
}

//===----------------------------------------------------------------------===//
// Launching CUDA source (kiln::raw_function, kiln/raw_module.hpp)
//===----------------------------------------------------------------------===//

class raw_function;

namespace detail {

/// A checked launch shape of a raw_function.
struct raw_launch_shape {
  raw_dims grid, block;
  std::size_t shared = 0;
};

/// The checks of a launch of CUDA source before its arguments are
/// marshalled: value_error for an empty function or a shape out of CUDA's
/// limits, device_error when `dev` is the host and the kernel has no host
/// code (saying why), or `s` is a stream of another device.
raw_launch_shape check_cuda_source_launch(const raw_function &f, const grid &g, const block &b,
                                          std::int64_t shared, device dev, const stream *s);
/// Checks array argument `index` of a launch of `f` on `dev` (as
/// check_raw_array: device_error on another device, value_error when not
/// C-contiguous).
void check_cuda_source_array(const raw_function &f, std::size_t index, const array_base &a, device dev);
/// Checks the sizes of a launch's `count` parameter values against the
/// kernel's parameters when kilnc compiled the source (and so knows them):
/// value_error naming the kernel's declaration on a mismatch. No check for
/// a source compiled at run time.
void check_cuda_source_params(const raw_function &f, const std::uint32_t *bytes, std::size_t count);
/// Runs `f` on `dev` with the parameter values `args` (cuLaunchKernel's
/// kernelParams): queued on a GPU, or run on the host by the host code
/// kilnc compiled. kiln::error "raw_module has no kernel 'x'" when the code
/// has no such entry point, cuda_error naming the kernel when CUDA fails.
void launch_cuda_source(const raw_function &f, device dev, const raw_launch_shape &shape, const stream *s,
                        void **args);

template <class A> inline constexpr bool is_launch_shape_argument = false;
template <> inline constexpr bool is_launch_shape_argument<grid> = true;
template <> inline constexpr bool is_launch_shape_argument<block> = true;
template <> inline constexpr bool is_launch_shape_argument<shared_memory> = true;
template <> inline constexpr bool is_launch_shape_argument<dim3> = true;

/// Whether an argument of type A passes to CUDA source by value, in its own
/// type: an arithmetic scalar (not long double, which CUDA lacks), an enum,
/// a pointer, nullptr, or a trivially copyable struct (std::complex, a
/// struct of parameters), its bytes as the kernel's parameter.
template <class A>
inline constexpr bool is_cuda_source_value =
    (std::is_arithmetic_v<A> && !std::is_same_v<A, long double>) || std::is_enum_v<A> || std::is_pointer_v<A> ||
    std::is_null_pointer_v<A> ||
    (std::is_class_v<A> && std::is_trivially_copyable_v<A> && std::is_standard_layout_v<A> &&
     !is_launch_shape_argument<A>);

/// The parameter values of one argument of a launch of CUDA source: a value
/// as is (above).
template <class A> struct cuda_source_slot {
  static_assert(!is_launch_shape_argument<A>,
                "kiln::launch: kiln::grid, kiln::block and kiln::shared_memory come first, in that order, before "
                "the kernel's arguments (then optionally a kiln::stream)");
  static_assert(is_launch_shape_argument<A> || is_cuda_source_value<A>,
                "kiln::launch of CUDA source: an argument must be a kiln::array, a kiln::span, a pointer, an "
                "arithmetic scalar, an enum or a trivially copyable struct");
  static constexpr std::size_t count = 1;
  A value;
  cuda_source_slot(const A &a, const raw_function &, std::size_t, device) : value(a) {}
  void put(void **&out) noexcept { *out++ = &value; }
  static void sizes(std::uint32_t *&out) noexcept { *out++ = sizeof(A); }
};

/// A kiln::array: its device pointer, after checking its device and layout.
template <element E> struct cuda_source_slot<array<E>> {
  static constexpr std::size_t count = 1;
  E *value;
  cuda_source_slot(const array<E> &a, const raw_function &f, std::size_t index, device dev) {
    check_cuda_source_array(f, index, a, dev);
    value = a.data();
  }
  void put(void **&out) noexcept { *out++ = &value; }
  static void sizes(std::uint32_t *&out) noexcept { *out++ = sizeof(E *); }
};

/// A kiln::span: two parameter values, its data pointer then its size (an
/// int64: the kernel declares `T *data, long long size`).
template <class T> struct cuda_source_slot<span<T>> {
  static constexpr std::size_t count = 2;
  T *data;
  std::int64_t size;
  cuda_source_slot(const span<T> &s, const raw_function &, std::size_t, device) : data(s.data()), size(s.size()) {}
  void put(void **&out) noexcept {
    *out++ = &data;
    *out++ = &size;
  }
  static void sizes(std::uint32_t *&out) noexcept {
    *out++ = sizeof(T *);
    *out++ = sizeof(std::int64_t);
  }
};

/// Every kiln::launch of a raw_function comes here (I: the arguments'
/// numbers, for messages).
template <class... A, std::size_t... I>
void launch_cuda_source(std::index_sequence<I...>, const raw_function &f, const grid &g, const block &b,
                        std::int64_t shared, const stream *s, const A &...args) {
  constexpr std::size_t count = (cuda_source_slot<A>::count + ... + 0);
  const device dev = raw_launch_device(s, args...);
  const raw_launch_shape shape = check_cuda_source_launch(f, g, b, shared, dev, s);
  std::uint32_t bytes[count + 1];
  std::uint32_t *size = bytes;
  (cuda_source_slot<A>::sizes(size), ...);
  check_cuda_source_params(f, bytes, count);
  std::tuple<cuda_source_slot<A>...> slots{cuda_source_slot<A>(args, f, I, dev)...}; // in order
  void *values[count + 1];
  void **out = values;
  std::apply([&](auto &...slot) { (slot.put(out), ...); }, slots);
  launch_cuda_source(f, dev, shape, s, values);
}

} // namespace detail

/// Runs kernel `f` of CUDA source (kiln::raw_module::function) over `g`
/// blocks of `b` threads, optionally with `shared` bytes of dynamic shared
/// memory (extern __shared__) and on stream `s`. The launch's device is the
/// first array argument's, else the stream's, else the current device. On
/// the host it runs the host code kilnc compiled from a string-literal
/// source (blocks over the thread pool); a kernel without host code (a
/// source compiled at run time, inline PTX asm, ...) is a device_error
/// saying why. A kiln::array passes its data pointer (it must be
/// C-contiguous and on the launch's device), a kiln::span two values (data
/// pointer, int64 size), and anything else its own C++ type's bytes: pass
/// exactly the type the kernel declares (2.0f for a float, not 2.0). When
/// kilnc compiled the source the sizes are checked against the kernel's
/// parameters (value_error); a source compiled at run time has no signature
/// to check against.
template <class... A> void launch(const raw_function &f, const grid &g, const block &b, const A &...args) {
  detail::launch_cuda_source(std::index_sequence_for<A...>{}, f, g, b, 0, nullptr, args...);
}
template <class... A>
void launch(const raw_function &f, const grid &g, const block &b, const shared_memory &shared, const A &...args) {
  detail::launch_cuda_source(std::index_sequence_for<A...>{}, f, g, b, shared.bytes, nullptr, args...);
}
template <class... A>
void launch(const raw_function &f, const grid &g, const block &b, const stream &s, const A &...args) {
  detail::launch_cuda_source(std::index_sequence_for<A...>{}, f, g, b, 0, &s, args...);
}
template <class... A>
void launch(const raw_function &f, const grid &g, const block &b, const shared_memory &shared, const stream &s,
            const A &...args) {
  detail::launch_cuda_source(std::index_sequence_for<A...>{}, f, g, b, shared.bytes, &s, args...);
}

} // namespace kiln
