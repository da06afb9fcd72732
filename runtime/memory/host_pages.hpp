//===- runtime/memory/host_pages.hpp - Host blocks on huge pages -*- C++ -*-===//
//
// Host memory for the host pool's blocks. A block of at least
// huge_page_threshold bytes is mapped on its own, aligned to 2 MiB, and
// advised to the kernel's transparent huge pages (Linux madvise
// MADV_HUGEPAGE, as NumPy does for its arrays of 4 MiB or more): a strided
// or transposed walk of a big array then misses the TLB once per 2 MiB
// instead of once per 4 KiB page. Smaller blocks, and every block where
// mmap is missing, come from aligned operator new. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>

namespace kiln::detail {

/// Blocks this big or bigger get their own huge-page mapping (NumPy's
/// threshold for madvise).
inline constexpr std::size_t huge_page_threshold = std::size_t(4) << 20;

/// `size` bytes aligned to `alignment` (a power of two, at most 4 KiB), or
/// nullptr when the system has no memory for them.
void *allocate_host_pages(std::size_t size, std::size_t alignment) noexcept;

/// Frees a block of `allocate_host_pages(size, alignment)`.
void free_host_pages(void *p, std::size_t size, std::size_t alignment) noexcept;

} // namespace kiln::detail
