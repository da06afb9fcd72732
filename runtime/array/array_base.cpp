//===- runtime/array/array_base.cpp - Array parts, allocation, wrapping ---===//
//
// array_base::from_parts and is_contiguous, detail::empty (C-contiguous
// memory from the device's pool), detail::wrap (memory the caller owns), and
// the helpers of array_internal.hpp.
//
//===----------------------------------------------------------------------===//
#include "runtime/array/array_internal.hpp"

#include <string>

namespace kiln {

array_base array_base::from_parts(allocation storage, kiln::dtype t,
                                  kiln::device dev, kiln::shape shape,
                                  kiln::shape strides, std::int64_t offset) {
  if (static_cast<unsigned>(t) > static_cast<unsigned>(kiln::dtype::complex128))
    throw value_error("invalid dtype code " +
                      std::to_string(static_cast<unsigned>(t)));
  array_base a;
  a.storage_ = std::move(storage);
  a.dtype_ = t;
  a.device_ = dev;
  a.shape_ = std::move(shape);
  a.strides_ = std::move(strides);
  a.offset_ = offset;
  return a;
}

bool array_base::is_contiguous() const noexcept {
  if (size() == 0)
    return true;
  std::int64_t expected = 1;
  for (std::size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1)
      continue; // the stride of a length-1 axis never matters
    if (strides_[i] != expected)
      return false;
    expected *= shape_[i];
  }
  return true;
}

namespace detail {
namespace {

/// value_error for negative dimensions; value_error when the byte count
/// does not fit in 63 bits. Returns the byte count.
std::int64_t checked_nbytes(kiln::dtype t, const kiln::shape &s) {
  std::int64_t n = static_cast<std::int64_t>(itemsize(t));
  for (std::int64_t d : s)
    if (d < 0)
      throw value_error("negative dimensions are not allowed");
  for (std::int64_t d : s)
    if (__builtin_mul_overflow(n, d, &n))
      throw value_error("array is too big; the shape " + to_string(s) + " of " +
                        std::string(name(t)) + " does not fit in memory");
  return n;
}

} // namespace

array_base allocate(kiln::dtype t, const kiln::shape &s, device dev,
                    const stream &st) {
  std::int64_t nbytes = checked_nbytes(t, s);
  allocation mem;
  if (nbytes > 0)
    mem = get_default_memory_pool(dev).allocate(
        static_cast<std::size_t>(nbytes), st);
  return array_base::from_parts(std::move(mem), t, dev, s,
                                contiguous_strides(s), 0);
}

array_base empty(kiln::dtype t, const shape &s, device dev) {
  checked_nbytes(t, s);
  check_device(dev);
  return allocate(t, s, dev, stream::current(dev));
}

array_base wrap(void *ptr, kiln::dtype t, const shape &s, device dev,
                std::shared_ptr<void> owner) {
  std::int64_t nbytes = checked_nbytes(t, s);
  check_device(dev);
  if (!ptr && nbytes > 0)
    throw value_error("wrap: a null pointer for an array of " + to_string(s) +
                      " elements");
  // Aliasing constructor: shares ownership with `owner` (possibly none) and
  // points at `ptr`.
  allocation storage(std::move(owner), ptr);
  return array_base::from_parts(std::move(storage), t, dev, s,
                                contiguous_strides(s), 0);
}

void check_same_device(device a, device b) {
  if (!(a == b))
    throw device_error("arrays are on different devices: " + a.str() + " and " +
                       b.str());
}

std::string shape_repr(const kiln::shape &s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

void check_stream(device dev, const stream &s) {
  device sd = s.get_device();
  if (dev.is_cuda() && !(sd == dev))
    throw device_error("a stream of " + sd.str() +
                       " cannot run work on an array of " + dev.str());
}

std::pair<const char *, const char *> byte_extent(const array_base &x) {
  const char *base = static_cast<const char *>(x.data());
  if (x.size() == 0)
    return {base, base};
  std::int64_t lo = 0, hi = 0;
  for (std::size_t i = 0; i < x.shape().size(); ++i) {
    std::int64_t span = (x.shape()[i] - 1) * x.strides()[i];
    (span < 0 ? lo : hi) += span;
  }
  std::int64_t item = static_cast<std::int64_t>(itemsize(x.dtype()));
  return {base + lo * item, base + (hi + 1) * item};
}

bool may_overlap(const array_base &x, const array_base &y) {
  if (x.size() == 0 || y.size() == 0 || !(x.device() == y.device()))
    return false;
  auto [a0, a1] = byte_extent(x);
  auto [b0, b1] = byte_extent(y);
  return a0 < b1 && b0 < a1;
}

} // namespace detail
} // namespace kiln
