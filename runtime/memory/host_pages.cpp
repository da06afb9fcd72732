//===- runtime/memory/host_pages.cpp - Host blocks on huge pages ---------===//
#include "runtime/memory/host_pages.hpp"

#include <cstdint>
#include <limits>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#define KILN_HOST_MMAP 1
#endif

namespace kiln::detail {
namespace {

#if KILN_HOST_MMAP
constexpr std::size_t huge_page = std::size_t(2) << 20;

std::size_t mapped_size(std::size_t size) { return (size + huge_page - 1) & ~(huge_page - 1); }

/// A mapping of mapped_size(size) bytes at a 2 MiB boundary: one of that
/// size plus 2 MiB, trimmed at both ends. The hint is best effort: with
/// transparent huge pages off (or on "never") the block is ordinary pages.
void *map_huge(std::size_t size) noexcept {
  if (size > std::numeric_limits<std::size_t>::max() / 2) // no such memory; keeps the sums below exact
    return nullptr;
  const std::size_t length = mapped_size(size);
  void *raw = mmap(nullptr, length + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + huge_page - 1) & ~std::uintptr_t(huge_page - 1);
  if (aligned > start)
    munmap(raw, aligned - start);
  if (const std::uintptr_t tail = start + huge_page - aligned) // the slack after the block
    munmap(reinterpret_cast<void *>(aligned + length), tail);
  void *p = reinterpret_cast<void *>(aligned);
  (void)madvise(p, length, MADV_HUGEPAGE);
  return p;
}
#endif

} // namespace

void *allocate_host_pages(std::size_t size, std::size_t alignment) noexcept {
#if KILN_HOST_MMAP
  if (size >= huge_page_threshold)
    return map_huge(size);
#endif
  return ::operator new(size, std::align_val_t{alignment}, std::nothrow);
}

void free_host_pages(void *p, std::size_t size, std::size_t alignment) noexcept {
#if KILN_HOST_MMAP
  if (size >= huge_page_threshold) {
    munmap(p, mapped_size(size));
    return;
  }
#endif
  ::operator delete(p, std::align_val_t{alignment});
}

} // namespace kiln::detail
