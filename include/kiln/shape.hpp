//===- kiln/shape.hpp - Shapes and strides -----------------------*- C++ -*-===//
//
// kiln::shape is a small vector of int64_t with inline room for the common
// ranks, used for both shapes and strides (strides count elements).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

namespace kiln {

class shape {
public:
  static constexpr std::size_t inline_rank = 6;

  shape() noexcept = default;
  shape(std::initializer_list<std::int64_t> dims) { assign(dims.begin(), dims.size()); }
  explicit shape(std::span<const std::int64_t> dims) { assign(dims.data(), dims.size()); }
  /// A shape of `rank` dimensions, each `value`.
  static shape filled(std::size_t rank, std::int64_t value) {
    shape s;
    s.resize(rank, value);
    return s;
  }
  shape(const shape &o) { assign(o.data(), o.size()); }
  shape(shape &&o) noexcept { take(o); }
  shape &operator=(const shape &o) {
    if (this != &o) assign(o.data(), o.size());
    return *this;
  }
  shape &operator=(shape &&o) noexcept {
    if (this != &o) { release(); take(o); }
    return *this;
  }
  ~shape() { release(); }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::int64_t *data() noexcept { return heap_ ? heap_ : inline_; }
  const std::int64_t *data() const noexcept { return heap_ ? heap_ : inline_; }
  std::int64_t &operator[](std::size_t i) noexcept { return data()[i]; }
  std::int64_t operator[](std::size_t i) const noexcept { return data()[i]; }
  std::int64_t *begin() noexcept { return data(); }
  std::int64_t *end() noexcept { return data() + size_; }
  const std::int64_t *begin() const noexcept { return data(); }
  const std::int64_t *end() const noexcept { return data() + size_; }
  std::int64_t back() const noexcept { return data()[size_ - 1]; }
  operator std::span<const std::int64_t>() const noexcept { return {data(), size_}; }

  void push_back(std::int64_t v) {
    reserve(size_ + 1);
    data()[size_++] = v;
  }
  void insert(std::size_t pos, std::int64_t v) {
    reserve(size_ + 1);
    std::int64_t *d = data();
    std::copy_backward(d + pos, d + size_, d + size_ + 1);
    d[pos] = v;
    ++size_;
  }
  void erase(std::size_t pos) {
    std::int64_t *d = data();
    std::copy(d + pos + 1, d + size_, d + pos);
    --size_;
  }
  void resize(std::size_t n, std::int64_t value = 0) {
    reserve(n);
    std::int64_t *d = data();
    for (std::size_t i = size_; i < n; ++i) d[i] = value;
    size_ = n;
  }
  void clear() noexcept { size_ = 0; }
  void reserve(std::size_t n) {
    if (n <= capacity()) return;
    std::size_t cap = std::max(n, 2 * capacity());
    auto *h = new std::int64_t[cap];
    std::copy(data(), data() + size_, h);
    delete[] heap_;
    heap_ = h;
    heap_cap_ = cap;
  }

  /// Product of the dimensions (1 for a 0-d shape).
  std::int64_t numel() const noexcept {
    std::int64_t n = 1;
    for (auto d : *this) n *= d;
    return n;
  }

  friend bool operator==(const shape &a, const shape &b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

private:
  std::size_t capacity() const noexcept { return heap_ ? heap_cap_ : inline_rank; }
  void assign(const std::int64_t *p, std::size_t n) {
    size_ = 0;
    reserve(n);
    std::copy(p, p + n, data());
    size_ = n;
  }
  void take(shape &o) noexcept {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = o.heap_;
      heap_cap_ = o.heap_cap_;
      o.heap_ = nullptr;
    } else {
      std::copy(o.inline_, o.inline_ + o.size_, inline_);
    }
    o.size_ = 0;
  }
  void release() noexcept {
    delete[] heap_;
    heap_ = nullptr;
  }

  std::int64_t inline_[inline_rank];
  std::int64_t *heap_ = nullptr;
  std::size_t heap_cap_ = 0;
  std::size_t size_ = 0;
};

/// NumPy's text for a shape: "(3,4)", "(5,)", "()".
std::string to_string(const shape &s);

/// C-order (row-major) strides in elements for a shape.
shape contiguous_strides(const shape &s);

/// The NumPy broadcast of two shapes; throws shape_error with NumPy's message.
shape broadcast_shapes(const shape &a, const shape &b);

} // namespace kiln
