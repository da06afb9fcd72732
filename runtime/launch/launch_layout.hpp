//===- runtime/launch/launch_layout.hpp - Broadcast and coalesced layout --===//
//
// The iteration space of one elementwise launch: the broadcast output shape,
// each operand's strides over it (0 on broadcast dimensions), with size-1
// dimensions dropped and adjacent dimensions merged where every operand is
// contiguous across them. Internal to the runtime; everything lives on the
// stack for the common case (see small_buffer).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace kiln::detail::launch {

/// NumPy's limit on the number of dimensions (NPY_MAXDIMS).
inline constexpr int max_rank = 64;

/// Room for `n` values of T: on the stack when n <= N, else on the heap.
template <class T, std::size_t N> class small_buffer {
public:
  explicit small_buffer(std::size_t n)
      : heap_(n <= N ? nullptr : std::make_unique<T[]>(n)),
        data_(n <= N ? inline_ : heap_.get()) {}
  small_buffer(const small_buffer &) = delete;
  small_buffer &operator=(const small_buffer &) = delete;

  T *data() noexcept { return data_; }
  T &operator[](std::size_t i) noexcept { return data_[i]; }

private:
  T inline_[N];
  std::unique_ptr<T[]> heap_;
  T *data_;
};

/// Drops the size-1 dimensions of `sizes[0..rank)` and merges dimension d
/// into the one kept before it when, for every operand j, that one's stride
/// equals stride_j[d] * sizes[d] (so the pair walks memory as one dimension).
/// `strides` holds `num_operands` rows of `pitch` strides each; both arrays
/// are rewritten in place. Returns the new rank, at least 1 (a size-1 space
/// becomes one dimension of size 1 and stride 1).
inline int coalesce(int rank, std::int64_t *sizes, std::int64_t *strides,
                    int num_operands, int pitch) noexcept {
  int out = 0;
  for (int d = 0; d < rank; ++d) {
    const std::int64_t n = sizes[d];
    if (n == 1)
      continue;
    bool merge = out > 0;
    for (int j = 0; merge && j < num_operands; ++j) {
      const std::int64_t *row = strides + j * pitch;
      merge = row[out - 1] == row[d] * n;
    }
    if (merge) {
      sizes[out - 1] *= n;
      for (int j = 0; j < num_operands; ++j)
        strides[j * pitch + out - 1] = strides[j * pitch + d];
    } else {
      sizes[out] = n;
      for (int j = 0; j < num_operands; ++j)
        strides[j * pitch + out] = strides[j * pitch + d];
      ++out;
    }
  }
  if (out == 0) {
    sizes[0] = 1;
    for (int j = 0; j < num_operands; ++j)
      strides[j * pitch] = 1;
    out = 1;
  }
  return out;
}

} // namespace kiln::detail::launch
