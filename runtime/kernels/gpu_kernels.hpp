//===- runtime/kernels/gpu_kernels.hpp - Launching the embedded kernels ---===//
//
// Loads the runtime's embedded CUDA module once per GPU, caches its
// functions by name, and launches the strided copy, fill and random kernels
// on a stream. The caller has made the GPU's context current. Internal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/dtype.hpp"
#include "runtime/kernels/kernels.hpp"
#include "runtime/kernels/layout.hpp"

namespace kiln::detail::kernels::gpu {

void copy(int ordinal, const loop_layout &l, void *dst, dtype to,
          const void *src, dtype from, void *stream);
void fill(int ordinal, const loop_layout &l, void *dst, std::size_t itemsize,
          const void *value, void *stream);
void random(int ordinal, void *out, dtype t, std::int64_t n, const draw &d,
            void *stream);

} // namespace kiln::detail::kernels::gpu
