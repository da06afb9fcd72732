//===- kiln/array.hpp - The n-d array ----------------------------*- C++ -*-===//
//
// kiln::array<T> is an n-d array on one device: a reference-counted buffer
// with a shape, strides (in elements) and an offset. Views share the buffer
// and never copy; reshape of a non-contiguous view copies, as NumPy does.
// array_base is the untyped part that the runtime's own functions take.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/axes.hpp"
#include "kiln/device.hpp"
#include "kiln/dtype.hpp"
#include "kiln/error.hpp"
#include "kiln/memory.hpp"
#include "kiln/promote.hpp"
#include "kiln/shape.hpp"
#include "kiln/stream.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

struct DLManagedTensor;

namespace kiln {

/// A slice of one axis: start, stop and step as in Python (`a:b:step`);
/// std::nullopt for an open end.
struct range {
  std::optional<std::int64_t> start, stop;
  std::int64_t step = 1;
  range(std::optional<std::int64_t> start_, std::optional<std::int64_t> stop_,
        std::int64_t step_ = 1)
      : start(start_), stop(stop_), step(step_) {}
};
/// One item of x.slice({...}): a range, the whole axis, or an integer index
/// (which drops the axis).
class slice_arg {
public:
  slice_arg(range r) : v_(r) {}
  slice_arg(all_t) : v_(all_t{}) {}
  template <class I>
    requires std::is_integral_v<I>
  slice_arg(I i) : v_(static_cast<std::int64_t>(i)) {}
  const std::variant<range, all_t, std::int64_t> &get() const noexcept { return v_; }

private:
  std::variant<range, all_t, std::int64_t> v_;
};

class array_base {
public:
  array_base() = default;

  const kiln::shape &shape() const noexcept { return shape_; }
  const kiln::shape &strides() const noexcept { return strides_; }
  std::int64_t ndim() const noexcept { return static_cast<std::int64_t>(shape_.size()); }
  std::int64_t size() const noexcept { return shape_.numel(); }
  std::int64_t nbytes() const noexcept { return size() * static_cast<std::int64_t>(itemsize(dtype_)); }
  kiln::dtype dtype() const noexcept { return dtype_; }
  kiln::device device() const noexcept { return device_; }
  /// Offset of element 0 from the start of the buffer, in elements.
  std::int64_t offset() const noexcept { return offset_; }
  /// C-contiguous (row-major, no gaps).
  bool is_contiguous() const noexcept;
  /// Address of element (0, ..., 0) on the array's device.
  void *data() const noexcept {
    return static_cast<char *>(storage_.get()) + offset_ * static_cast<std::int64_t>(itemsize(dtype_));
  }
  /// The shared buffer; null for a default-constructed array.
  const allocation &storage() const noexcept { return storage_; }
  bool valid() const noexcept { return storage_ != nullptr || size() == 0; }
  /// False for a view NumPy makes read-only (broadcast_to's, and views of
  /// it): writing into it is a value_error, never silent aliasing.
  bool writeable() const noexcept { return !read_only_; }
  /// Marks this array (a view) read-only; views of it stay read-only.
  array_base &mark_read_only() noexcept {
    read_only_ = true;
    return *this;
  }

  /// Assembles an array from its parts (no checks beyond the dtype).
  static array_base from_parts(allocation storage, kiln::dtype t, kiln::device dev,
                               kiln::shape shape, kiln::shape strides, std::int64_t offset);

protected:
  allocation storage_;
  kiln::dtype dtype_ = kiln::dtype::float32;
  kiln::device device_;
  kiln::shape shape_;
  kiln::shape strides_;
  std::int64_t offset_ = 0;
  bool read_only_ = false;
};

namespace detail {
// Untyped operations of the runtime (runtime/array/). Each checks its input
// and throws the typed error a user should see.
array_base empty(kiln::dtype t, const shape &s, device dev);
array_base reshape(const array_base &x, const shape &s);
array_base transpose(const array_base &x, std::span<const std::int64_t> axes);
array_base slice(const array_base &x, std::span<const slice_arg> args);
array_base broadcast_to(const array_base &x, const shape &s);
/// A C-contiguous copy, with the element type converted to `t`.
array_base copy(const array_base &x, kiln::dtype t);
/// dst[...] = src, broadcasting src, converting its element type.
void assign(const array_base &dst, const array_base &src, const stream &s);
/// Every element of dst = *value (a value of dst's dtype).
void fill(const array_base &dst, const void *value, const stream &s);
array_base to_device(const array_base &x, device dev, const stream &s);
/// C-order copy of all elements into / from host memory of x.nbytes().
void copy_to_host(const array_base &x, void *host, const stream &s, bool async);
void copy_from_host(const array_base &x, const void *host, const stream &s, bool async);
/// The single element of a size-1 array, to host memory.
void item(const array_base &x, void *out);
DLManagedTensor *to_dlpack(const array_base &x);
array_base from_dlpack(DLManagedTensor *t);
array_base wrap(void *ptr, kiln::dtype t, const shape &s, device dev, std::shared_ptr<void> owner);
} // namespace detail

template <element E> class mask_proxy;  // kiln/indexing.hpp
template <element E> class index_proxy; // kiln/indexing.hpp

template <element E> class array : public array_base {
public:
  using value_type = E;

  /// An empty 0-element array on the host (a placeholder to assign to).
  array() { dtype_ = dtype_of<E>; shape_ = kiln::shape{0}; strides_ = kiln::shape{1}; }
  /// Adopts an untyped array; throws value_error if its dtype is not E's.
  explicit array(array_base b) : array_base(std::move(b)) {
    if (dtype_ != dtype_of<E>)
      throw value_error("array of dtype " + std::string(name(dtype_)) +
                        " cannot be viewed as " + std::string(name(dtype_of<E>)));
  }

  E *data() const noexcept { return static_cast<E *>(array_base::data()); }

  // Views: share the buffer.
  array reshape(const kiln::shape &s) const { return array(detail::reshape(*this, s)); }
  array transpose(std::span<const std::int64_t> axes) const { return array(detail::transpose(*this, axes)); }
  array transpose(std::initializer_list<std::int64_t> axes) const {
    return transpose(std::span<const std::int64_t>(axes.begin(), axes.size()));
  }
  array transpose() const { return array(detail::transpose(*this, {})); }
  /// The transpose (all axes reversed), as NumPy's `x.T`.
  array T() const { return transpose(); }
  array slice(std::initializer_list<slice_arg> args) const {
    return array(detail::slice(*this, std::span<const slice_arg>(args.begin(), args.size())));
  }

  // NumPy's advanced indexing (kiln/indexing.hpp): `x[mask]` with a bool
  // array, `x[idx]` with an integer array (along axis 0). Each is a proxy
  // that converts to a new array (a gather) and takes `=` and `op=` (a
  // scatter into this array).
  mask_proxy<E> operator[](const array<bool> &mask) const;
  template <element I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  index_proxy<E> operator[](const array<I> &idx) const;

  // Writes into this array (or view): NumPy's `x[...] = src` and `x.fill(v)`.
  /// Every element of this array (or view) set to `v`, converted to E as
  /// NumPy's x.fill(v) does.
  template <class S>
    requires std::is_arithmetic_v<S> || is_std_complex<S>::value
  const array &fill(const S &v) const {
    const E value = static_cast<E>(v);
    detail::fill(*this, &value, stream::current(device_));
    return *this;
  }
  /// `src` broadcast into this array's shape and converted to E (NumPy's
  /// `x[...] = src`, unsafe casting as setitem's); an overlapping `src` is
  /// read first. Plain `=` between arrays stays a handle copy, as in Python.
  template <element U> const array &assign(const array<U> &src) const {
    detail::assign(*this, src, stream::current(device_));
    return *this;
  }
  template <class S>
    requires std::is_arithmetic_v<S> || is_std_complex<S>::value
  const array &assign(const S &v) const {
    return fill(v);
  }

  // Copies.
  array copy() const { return array(detail::copy(*this, dtype_of<E>)); }
  template <element U> array<U> astype() const { return array<U>(detail::copy(*this, dtype_of<U>)); }
  /// The single element of a 0-d or size-1 array (synchronizes).
  E item() const {
    E v;
    detail::item(*this, &v);
    return v;
  }
  /// NumPy's x.item(i): the element at flat index i in C order; and
  /// x.item(i, j, ...) with one index an axis: the element there. Negative
  /// indices count from the end (synchronizes).
  template <class... I>
  requires(sizeof...(I) > 0 && (std::is_integral_v<I> && ...)) E item(I... idx)
  const {
    if constexpr (sizeof...(I) == 1) {
      if (ndim() != 1)
        return at_flat(static_cast<std::int64_t>(idx)...).item();
    }
    if (static_cast<std::int64_t>(sizeof...(I)) != ndim())
      throw value_error("incorrect number of indices for array");
    return (*this)(idx...).item();
  }
  /// x(i, j, ...): a view of the element (or, with fewer indices than axes,
  /// of the sub-array) there, NumPy's x[i, j] as a 0-d array; negative
  /// indices count from the end.
  template <class... I>
  requires(sizeof...(I) > 0 && (std::is_integral_v<I> && ...)) array
  operator()(I... idx) const {
    return slice({slice_arg(idx)...});
  }
  /// np.dot(x, y) (defined in kiln/linalg.hpp).
  template <element U> array<promote_t<E, U>> dot(const array<U> &y) const;

  // Reductions, as NumPy's methods (defined in kiln/reductions.hpp). `ax`
  // is kiln::all (every axis), one axis or a list {0, 2}.
  array<sum_result_t<E>> sum(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array<sum_result_t<E>> prod(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array<mean_result_t<E>> mean(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array max(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array min(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array<std::int64_t> argmax(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array<std::int64_t> argmin(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array<bool> all(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array<bool> any(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array<var_result_t<E>> var(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array<var_result_t<E>> var(const kiln::axes &ax, kiln::ddof d, bool keepdims = false) const;
  array<var_result_t<E>> std(const kiln::axes &ax = kiln::all, bool keepdims = false) const;
  array<var_result_t<E>> std(const kiln::axes &ax, kiln::ddof d, bool keepdims = false) const;

  // Transfers.
  std::vector<E> to_vector() const {
    if constexpr (std::is_same_v<E, bool>) { // std::vector<bool> has no data()
      std::vector<unsigned char> bytes(static_cast<std::size_t>(size()));
      detail::copy_to_host(*this, bytes.data(), stream::current(device_), false);
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<E> v(static_cast<std::size_t>(size()));
      detail::copy_to_host(*this, v.data(), stream::current(device_), false);
      return v;
    }
  }
  void copy_to_host(std::span<E> out) const { check_span(out.size()); detail::copy_to_host(*this, out.data(), stream::current(device_), false); }
  void copy_from_host(std::span<const E> in) const { check_span(in.size()); detail::copy_from_host(*this, in.data(), stream::current(device_), false); }
  /// Queued on `s`; `out` should be pinned (pinned_buffer) and must live until `s` is synchronized.
  void copy_to_host_async(std::span<E> out, const stream &s) const { check_span(out.size()); detail::copy_to_host(*this, out.data(), s, true); }
  void copy_from_host_async(std::span<const E> in, const stream &s) const { check_span(in.size()); detail::copy_from_host(*this, in.data(), s, true); }
  array to(kiln::device dev) const { return array(detail::to_device(*this, dev, stream::current(dev.is_host() ? device_ : dev))); }
  array to_async(kiln::device dev, const stream &s) const { return array(detail::to_device(*this, dev, s)); }

  DLManagedTensor *to_dlpack() const { return detail::to_dlpack(*this); }

private:
  /// The 0-d view of the element at flat index i (C order).
  array at_flat(std::int64_t i) const {
    const std::int64_t n = size();
    if (i < -n || i >= n)
      throw index_error("index " + std::to_string(i) +
                        " is out of bounds for size " + std::to_string(n));
    if (i < 0)
      i += n;
    std::vector<slice_arg> at;
    at.reserve(static_cast<std::size_t>(ndim()));
    for (std::int64_t d = ndim() - 1; d >= 0; --d) {
      const std::int64_t extent = shape()[static_cast<std::size_t>(d)];
      at.push_back(slice_arg(i % extent));
      i /= extent;
    }
    std::reverse(at.begin(), at.end());
    return array(
        detail::slice(*this, std::span<const slice_arg>(at.data(), at.size())));
  }

  void check_span(std::size_t n) const {
    if (static_cast<std::int64_t>(n) != size())
      throw shape_error("host buffer of " + std::to_string(n) + " elements does not match array of size " +
                        std::to_string(size()));
  }
};

template <element T> array<T> broadcast_to(const array<T> &x, const shape &s) {
  return array<T>(detail::broadcast_to(x, s));
}

/// Adopts memory the caller owns: `owner` is kept alive as long as the array.
template <element T>
array<T> wrap(T *ptr, const shape &s, device dev, std::shared_ptr<void> owner = nullptr) {
  return array<T>(detail::wrap(ptr, dtype_of<T>, s, dev, std::move(owner)));
}

template <element T> array<T> from_dlpack(DLManagedTensor *t) { return array<T>(detail::from_dlpack(t)); }

} // namespace kiln
