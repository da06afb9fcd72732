//===- kiln/cuda_host.hpp - CUDA's device built-ins on the host -*- C++ -*-===//
//
// The prelude of CUDA C++ source kernels compiled for the host. kilnc
// compiles the source a kiln::raw_module::from_source gets as ordinary C++20
// for the host, with this header included first and include/kiln/cuda_host
// first on the include path (its cooperative_groups.h,
// cooperative_groups/reduce.h and mma.h stand in for CUDA's). It defines
// what CUDA device code expects to find: the execution-space keywords, the
// built-in variables (threadIdx, blockIdx, blockDim, gridDim, warpSize), the
// vector types, synchronization, warp shuffles and votes, atomics, CUDA's
// extra math functions and intrinsics, and the host forms of a __global__
// function that the runtime calls (docs/kernel-abi.md, "Raw kernels"):
//
//   run_thread<&k>  one thread, the form of kernels that synchronize: the
//                   runtime runs each thread of a block as a fiber, and the
//                   functions here that exchange between threads
//                   (__syncthreads, shuffles, votes...) switch fibers;
//   run_block<&k>   every thread of one block in a loop, x fastest: the fast
//                   form of kernels that never synchronize.
//
// Execution model. A block runs on one OS thread at a time, so the built-in
// variables are `inline thread_local`: the block values (blockIdx, blockDim,
// gridDim) are set once per block, threadIdx once per thread. Fibers of one
// block share the OS thread, so every function that can switch fibers saves
// the running thread's state (its raw_thread_ctx) before calling the runtime
// and restores it (threadIdx) after. `__shared__` variables are
// `static thread_local`: one copy per OS thread, that is, per running block.
// Their contents at a block's start are undefined, as on a GPU. Dynamic
// shared memory (`extern __shared__ T s[]`, which kilnc rewrites into
// `T *const s = reinterpret_cast<T *>(::kiln::cuda_host::dynamic_shared())`
// in a function, `constexpr ::kiln::cuda_host::extern_shared<T> s{}` at
// namespace scope) is the runtime's per-block buffer (16-byte aligned; these
// kernels have no static part in it, static_shared_bytes is 0).
//
// Warps are the block's threads in groups of 32 by linear index, as on a
// GPU; the last may be partial. The runtime's exchanges involve every lane
// of the warp that has not returned: the `mask` arguments of the *_sync
// functions are accepted and otherwise ignored, so full (converged) warps
// are assumed. A partial mask works when the other lanes of the warp have
// returned; when they wait elsewhere (another exchange, __syncthreads), the
// block cannot finish and the launch throws kiln::error (deadlock).
//
// Two modes. kilnc first parses the source with clang to analyse it, with
// KILN_CUDA_HOST_ANALYSIS defined: then __global__ and __shared__ carry
// annotations ("kiln.cuda.global", "kiln.cuda.shared"), every function that
// synchronizes or exchanges across threads carries "kiln.cuda.sync"
// (KILN_CUDA_SYNC), and every GPU-only construct "kiln.cuda.gpu_only:<what>"
// (KILN_CUDA_GPU_ONLY): kilnc walks the call graph for them to pick a
// kernel's host form. The real compilation (g++ or clang) has it undefined.
// __CUDACC__ and __CUDA_ARCH__ stay undefined in both, so headers such as
// libcu++'s (<cuda/std/...>) take their host paths; KILN_CUDA_HOST is 1.
//
// Semantics differ from a GPU only where the host cannot do better:
// floating-point intrinsics (__expf, __sinf, ...) are the accurate
// functions; the directed-rounding arithmetic intrinsics (__fadd_rz,
// __fmul_ru, __dsqrt_rd, ...) round exactly as named (computed from the
// exact error of the round-to-nearest result; float ones everywhere, double
// ones except results in the subnormal range, which may round as to
// nearest), without touching the floating-point environment, which the
// fibers of a block share; GPU-only constructs (clock64,
// grid-wide sync, tensor cores, ...) throw kiln::device_error naming
// themselves.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/detail/raw_kernel.hpp"
#include "kiln/error.hpp"

#include <atomic>
#include <bit>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <math.h>
#include <memory> // before __noinline__ below: libstdc++'s shared_ptr uses __attribute__((__noinline__))
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>

//===----------------------------------------------------------------------===//
// Keywords
//===----------------------------------------------------------------------===//

/// Source compiled with this prelude can test for the host compilation.
#define KILN_CUDA_HOST 1

#ifdef KILN_CUDA_HOST_ANALYSIS
/// Marks a function that synchronizes or exchanges values across threads:
/// a kernel that reaches one runs with fibers (run_thread).
#define KILN_CUDA_SYNC __attribute__((annotate("kiln.cuda.sync")))
/// Marks a function that only a GPU can run; `what` names it in kilnc's
/// messages ("kiln.cuda.gpu_only:clock64").
#define KILN_CUDA_GPU_ONLY(what) __attribute__((annotate("kiln.cuda.gpu_only:" what)))
#define __global__ __attribute__((annotate("kiln.cuda.global")))
#define __shared__ __attribute__((annotate("kiln.cuda.shared")))
#else
#define KILN_CUDA_SYNC
#define KILN_CUDA_GPU_ONLY(what)
#define __global__
/// One copy per OS thread, and an OS thread runs one block at a time.
#define __shared__ static thread_local
#endif

#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __cluster_dims__(...)
#define __align__(n) __attribute__((aligned(n)))
// __restrict__ is a keyword of g++ and clang.

//===----------------------------------------------------------------------===//
// Vector types
//===----------------------------------------------------------------------===//
//
// CUDA's vector types with CUDA's alignments (vector_types.h): e.g. float2
// 8 bytes, float4 and double2 16; the three-element types have their
// element's alignment. make_<type>N builds one. They stand in for CUDA's:
// the include guards of vector_types.h and vector_functions.h(pp) are
// defined, so CUDA's own headers included later (cuda_runtime.h; libcu++
// includes cuda_runtime_api.h when the toolkit is on the include path) use
// these instead of defining them again. (For the same reason the keyword
// macros above are defined first: CUDA's host_defines.h keeps a definition
// it finds.)

#define __VECTOR_TYPES_H__
#define __VECTOR_FUNCTIONS_H__
#define __VECTOR_FUNCTIONS_HPP__
// What the other CUDA headers (cuda_fp8.hpp, ...) use from vector_types.h.
#ifndef __NV_SILENCE_HOST_DEPRECATION_BEGIN
#define __NV_SILENCE_HOST_DEPRECATION_BEGIN                                                                            \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")
#define __NV_SILENCE_HOST_DEPRECATION_END _Pragma("GCC diagnostic pop")
#endif
#ifndef __NV_SILENCE_DEPRECATION_BEGIN
#define __NV_SILENCE_DEPRECATION_BEGIN __NV_SILENCE_HOST_DEPRECATION_BEGIN
#define __NV_SILENCE_DEPRECATION_END __NV_SILENCE_HOST_DEPRECATION_END
#endif

#define KILN_CUDA_VECTOR1(T, name, align)                                                                              \
  struct alignas(align) name##1 {                                                                                      \
    T x;                                                                                                               \
  };                                                                                                                   \
  constexpr name##1 make_##name##1(T x) noexcept { return name##1 {x}; }
#define KILN_CUDA_VECTOR2(T, name, align)                                                                              \
  struct alignas(align) name##2 {                                                                                      \
    T x, y;                                                                                                            \
  };                                                                                                                   \
  constexpr name##2 make_##name##2(T x, T y) noexcept { return name##2 {x, y}; }
#define KILN_CUDA_VECTOR3(T, name)                                                                                     \
  struct name##3 {                                                                                                     \
    T x, y, z;                                                                                                         \
  };                                                                                                                   \
  constexpr name##3 make_##name##3(T x, T y, T z) noexcept { return name##3 {x, y, z}; }
#define KILN_CUDA_VECTOR4(T, name, suffix, align)                                                                      \
  struct alignas(align) name##4##suffix {                                                                              \
    T x, y, z, w;                                                                                                      \
  };                                                                                                                   \
  constexpr name##4##suffix make_##name##4##suffix(T x, T y, T z, T w) noexcept { return name##4##suffix{x, y, z, w}; }
#define KILN_CUDA_VECTORS(T, name, a1, a2, a4)                                                                         \
  KILN_CUDA_VECTOR1(T, name, a1)                                                                                       \
  KILN_CUDA_VECTOR2(T, name, a2)                                                                                       \
  KILN_CUDA_VECTOR3(T, name)                                                                                           \
  KILN_CUDA_VECTOR4(T, name, , a4)

KILN_CUDA_VECTORS(signed char, char, 1, 2, 4)
KILN_CUDA_VECTORS(unsigned char, uchar, 1, 2, 4)
KILN_CUDA_VECTORS(short, short, 2, 4, 8)
KILN_CUDA_VECTORS(unsigned short, ushort, 2, 4, 8)
KILN_CUDA_VECTORS(int, int, 4, 8, 16)
KILN_CUDA_VECTORS(unsigned int, uint, 4, 8, 16)
KILN_CUDA_VECTORS(long, long, alignof(long), 2 * sizeof(long), 16)
KILN_CUDA_VECTORS(unsigned long, ulong, alignof(unsigned long), 2 * sizeof(unsigned long), 16)
KILN_CUDA_VECTORS(long long, longlong, 8, 16, 16)
KILN_CUDA_VECTORS(unsigned long long, ulonglong, 8, 16, 16)
KILN_CUDA_VECTORS(float, float, 4, 8, 16)
KILN_CUDA_VECTORS(double, double, 8, 16, 16)
// CUDA 13's explicitly aligned four-element types of 8-byte elements.
KILN_CUDA_VECTOR4(long, long, _16a, 16)
KILN_CUDA_VECTOR4(long, long, _32a, 32)
KILN_CUDA_VECTOR4(unsigned long, ulong, _16a, 16)
KILN_CUDA_VECTOR4(unsigned long, ulong, _32a, 32)
KILN_CUDA_VECTOR4(long long, longlong, _16a, 16)
KILN_CUDA_VECTOR4(long long, longlong, _32a, 32)
KILN_CUDA_VECTOR4(unsigned long long, ulonglong, _16a, 16)
KILN_CUDA_VECTOR4(unsigned long long, ulonglong, _32a, 32)
KILN_CUDA_VECTOR4(double, double, _16a, 16)
KILN_CUDA_VECTOR4(double, double, _32a, 32)

#undef KILN_CUDA_VECTORS
#undef KILN_CUDA_VECTOR4
#undef KILN_CUDA_VECTOR3
#undef KILN_CUDA_VECTOR2
#undef KILN_CUDA_VECTOR1

static_assert(alignof(float4) == 16 && alignof(double2) == 16 && alignof(float2) == 8 && alignof(float3) == 4);
static_assert(sizeof(char3) == 3 && alignof(short4) == 8 && alignof(int4) == 16 && sizeof(double3) == 24);

/// A launch shape: unspecified extents are 1.
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) noexcept : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) noexcept : x(v.x), y(v.y), z(v.z) {}         // NOLINT(google-explicit-constructor)
  constexpr operator uint3() const noexcept { return uint3{x, y, z}; } // NOLINT(google-explicit-constructor)
};

//===----------------------------------------------------------------------===//
// Built-in variables
//===----------------------------------------------------------------------===//
//
// Set by run_thread / run_block (and restored after each fiber switch);
// constant-initialized, so an access is a plain thread-local load.

inline thread_local uint3 threadIdx{};
inline thread_local uint3 blockIdx{};
inline thread_local dim3 blockDim{};
inline thread_local dim3 gridDim{};
constexpr int warpSize = 32;

//===----------------------------------------------------------------------===//
// The host forms of kernels (what kilnc's generated code calls)
//===----------------------------------------------------------------------===//

namespace kiln::cuda_host {

using ::kiln::detail::raw_thread_ctx;

/// Throws kiln::device_error("<construct> cannot run on the host: ..."):
/// what a GPU-only construct does when a kernel reaches it on the host.
[[noreturn]] inline void gpu_only(const char *construct) {
  throw ::kiln::device_error(std::string(construct) +
                             " cannot run on the host: it exists only on NVIDIA GPUs (launch the kernel on a GPU, or "
                             "keep the construct out of the code that a host launch runs)");
}

namespace detail {

/// The running thread's context (the fiber's own in run_thread, the block's
/// in run_block; nullptr outside kernels).
inline thread_local raw_thread_ctx *t_ctx = nullptr;
/// The running block's dynamic shared memory.
inline thread_local unsigned char *t_shared = nullptr;

/// State of __syncthreads_count/and/or, shared by the block's threads: the
/// call of generation g counts into slot g & 1 (see block_vote()).
struct block_vote_state {
  unsigned generation;
  int yes[2];
  int no[2];
};
inline thread_local block_vote_state t_vote{};

/// Sets the block values of the built-in variables from `ctx`.
inline void enter_block(raw_thread_ctx *ctx) noexcept {
  blockIdx = uint3{ctx->block_idx[0], ctx->block_idx[1], ctx->block_idx[2]};
  blockDim = dim3(ctx->block_dim[0], ctx->block_dim[1], ctx->block_dim[2]);
  gridDim = dim3(ctx->grid_dim[0], ctx->grid_dim[1], ctx->grid_dim[2]);
  t_shared = ctx->shared;
  t_ctx = ctx;
}

/// Makes `ctx`'s thread the running one again (after a fiber switch).
inline void resume(raw_thread_ctx *ctx) noexcept {
  t_ctx = ctx;
  threadIdx = uint3{ctx->thread_idx[0], ctx->thread_idx[1], ctx->thread_idx[2]};
}

/// The parameter types of a __global__ function, without references and
/// cv-qualifiers: the types of the values `args` points to.
template <class F> struct kernel_signature {
  static_assert(sizeof(F) == 0, "run_thread / run_block take a pointer to a __global__ function returning void");
};
template <class... P> struct kernel_signature<void (*)(P...)> {
  using values = std::tuple<std::remove_cvref_t<P>...>;
  static constexpr std::size_t size = sizeof...(P);
};
template <class... P> struct kernel_signature<void (*)(P...) noexcept> : kernel_signature<void (*)(P...)> {};

/// Copies the kernel's parameter values out of `args` (kernelParams).
template <class Values, std::size_t... I> Values load_params(void **args, std::index_sequence<I...>) {
  (void)args;
  return Values(*static_cast<std::tuple_element_t<I, Values> *>(args[I])...);
}

} // namespace detail

/// The running block's dynamic shared memory (`extern __shared__`).
inline unsigned char *dynamic_shared() noexcept { return detail::t_shared; }

/// A namespace-scope `extern __shared__ T a[];`, which kilnc rewrites into
/// `constexpr ::kiln::cuda_host::extern_shared<T> a{};`: the running block's
/// dynamic shared memory as T elements, used as the array (a[i], a + k,
/// T *p = a).
template <class T> struct extern_shared {
  // NOLINTNEXTLINE(google-explicit-constructor)
  operator T *() const noexcept { return reinterpret_cast<T *>(dynamic_shared()); }
  T &operator[](std::ptrdiff_t i) const noexcept { return static_cast<T *>(*this)[i]; }
  T &operator*() const noexcept { return *static_cast<T *>(*this); }
  T *operator->() const noexcept { return static_cast<T *>(*this); }
};

/// Runs thread ctx->thread_idx of block ctx->block_idx of `Kernel` (a
/// kiln::detail::raw_host_fn): the host form of kernels that synchronize,
/// one fiber per thread.
template <auto Kernel> void run_thread(void **args, raw_thread_ctx *ctx) {
  using signature = detail::kernel_signature<decltype(Kernel)>;
  using values_t = typename signature::values;
  values_t values = detail::load_params<values_t>(args, std::make_index_sequence<signature::size>{});
  detail::enter_block(ctx);
  detail::resume(ctx);
  if ((ctx->thread_idx[0] | ctx->thread_idx[1] | ctx->thread_idx[2]) == 0)
    detail::t_vote = {}; // thread 0 runs first: a block abandoned mid-vote leaves nothing behind
  auto call = [&]<std::size_t... I>(std::index_sequence<I...>) { Kernel(std::get<I>(values)...); };
  call(std::make_index_sequence<signature::size>{});
}

/// Runs every thread of block ctx->block_idx of `Kernel` in order, x fastest
/// (a kiln::detail::raw_host_block_fn): the host form of kernels that never
/// synchronize. The parameters are copied once and the block values set
/// once, so when the kernel inlines into the loop the compiler sees that
/// only threadIdx changes. (ctx->thread_idx is not maintained: kernels read
/// threadIdx.)
template <auto Kernel> void run_block(void **args, raw_thread_ctx *ctx) {
  using signature = detail::kernel_signature<decltype(Kernel)>;
  using values_t = typename signature::values;
  values_t values = detail::load_params<values_t>(args, std::make_index_sequence<signature::size>{});
  detail::enter_block(ctx);
  const unsigned int bx = ctx->block_dim[0], by = ctx->block_dim[1], bz = ctx->block_dim[2];
  auto loop = [&]<std::size_t... I>(std::index_sequence<I...>) {
    for (unsigned int z = 0; z < bz; ++z)
      for (unsigned int y = 0; y < by; ++y) {
        threadIdx.y = y;
        threadIdx.z = z;
        // The store to threadIdx.x stays in the loop (the kernel's stores through its pointers might reach the
        // public variable, for all the compiler knows); unrolling cuts the cost of the loop around it: a saxpy
        // takes 1.22x a plain loop's time instead of 1.30x (g++ -O2). A kernel too large to inline is 4 calls.
#pragma GCC unroll 4
        for (unsigned int x = 0; x < bx; ++x) {
          threadIdx.x = x;
          Kernel(std::get<I>(values)...);
        }
      }
  };
  loop(std::make_index_sequence<signature::size>{});
}

namespace detail {

/// The running thread's index in its block, x fastest (warps are formed so).
inline unsigned int linear_thread() noexcept {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned int lane_id() noexcept { return linear_thread() & 31u; }
/// Bit i: lane i of the running thread's warp exists (the last warp of a
/// block may be partial).
inline unsigned int warp_lanes() noexcept {
  const unsigned int n = blockDim.x * blockDim.y * blockDim.z;
  const unsigned int first = linear_thread() & ~31u;
  const unsigned int count = n - first >= 32 ? 32 : n - first;
  return count == 32 ? 0xffffffffu : (1u << count) - 1;
}
/// Bits of the lanes below the running thread's (%lanemask_lt).
inline unsigned int lanes_below() noexcept { return (1u << lane_id()) - 1; }

/// kiln_raw_shfl's modes.
enum shuffle_mode : std::int32_t { shfl_idx = 0, shfl_up = 1, shfl_down = 2, shfl_xor = 3 };

/// A warp shuffle of any trivially copyable value, 8 bytes per exchange.
template <class T> T shuffle(const T &value, shuffle_mode mode, int arg, int width) {
  static_assert(std::is_trivially_copyable_v<T>, "warp shuffles move trivially copyable values");
  constexpr std::size_t words = (sizeof(T) + 7) / 8;
  std::uint64_t bits[words] = {};
  std::memcpy(bits, &value, sizeof(T));
  raw_thread_ctx *const ctx = t_ctx;
  for (std::size_t w = 0; w < words; ++w)
    bits[w] = kiln_raw_shfl(ctx, bits[w], mode, arg, width);
  resume(ctx);
  T result = value;
  std::memcpy(&result, bits, sizeof(T));
  return result;
}

/// __ballot_sync of every live lane of the warp.
inline unsigned int ballot(int predicate) {
  raw_thread_ctx *const ctx = t_ctx;
  const unsigned int bits = kiln_raw_ballot(ctx, predicate != 0);
  resume(ctx);
  return bits;
}

/// The lane of the `rank`-th set bit of `mask` (rank from 0), or 32.
inline unsigned int nth_lane(unsigned int mask, unsigned int rank) noexcept {
  for (; rank > 0 && mask; --rank)
    mask &= mask - 1;
  return mask ? static_cast<unsigned int>(std::countr_zero(mask)) : 32u;
}

/// Reduces `value` with `op` over the lanes of `members` (a group of lanes
/// of the running warp that holds the caller, within an aligned segment of
/// `span` lanes); every member gets the result. Each live lane of the warp
/// calls it at once (each with its own group's members). A full segment
/// takes a butterfly of log2(span) exchanges; otherwise a tree by rank
/// within the group, then a broadcast from its first lane.
template <class T, class Op> T reduce_lanes(T value, Op op, unsigned int members, unsigned int span) {
  const unsigned int lane = lane_id();
  const unsigned int segment = span >= 32 ? 0xffffffffu : ((1u << span) - 1) << (lane & ~(span - 1));
  if (members == segment) {
    for (unsigned int offset = span / 2; offset > 0; offset /= 2)
      value = op(value, shuffle(value, shfl_xor, static_cast<int>(offset), 32));
    return value;
  }
  const unsigned int rank = static_cast<unsigned int>(std::popcount(members & ((1u << lane) - 1)));
  const unsigned int count = static_cast<unsigned int>(std::popcount(members));
  for (unsigned int offset = 16; offset > 0; offset /= 2) {
    const bool has_source = rank + offset < count;
    const unsigned int source = has_source ? nth_lane(members, rank + offset) : lane;
    const T other = shuffle(value, shfl_idx, static_cast<int>(source), 32);
    if (has_source)
      value = op(value, other);
  }
  return shuffle(value, shfl_idx, std::countr_zero(members), 32);
}

/// The value's bits, zero-extended to 64 (for __match_*_sync).
template <class T> std::uint64_t match_bits(T value) noexcept {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "__match_*_sync compare values of up to 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

/// Counts the block's threads whose predicate is true (`yes`) and false
/// (`no`) with one barrier. The call of generation g adds into slot g & 1;
/// after the barrier the first thread to go on starts generation g + 1 and
/// clears its slot, which every thread finished reading (in generation
/// g - 1) before the barrier, and which no thread adds to before it goes on.
/// Fibers of a block never run at once, so plain memory is enough.
inline void block_vote(int predicate, int &yes, int &no) {
  block_vote_state &v = t_vote;
  const unsigned int g = v.generation;
  (predicate ? v.yes : v.no)[g & 1] += 1;
  raw_thread_ctx *const ctx = t_ctx;
  kiln_raw_syncthreads(ctx);
  resume(ctx);
  yes = v.yes[g & 1];
  no = v.no[g & 1];
  if (v.generation == g) {
    v.generation = g + 1;
    v.yes[(g + 1) & 1] = 0;
    v.no[(g + 1) & 1] = 0;
  }
}

} // namespace detail
} // namespace kiln::cuda_host

//===----------------------------------------------------------------------===//
// Synchronization, shuffles and votes
//===----------------------------------------------------------------------===//

/// Every thread of the block arrives before any goes on (threads that
/// returned do not count).
KILN_CUDA_SYNC inline void __syncthreads() {
  ::kiln::detail::raw_thread_ctx *const ctx = ::kiln::cuda_host::detail::t_ctx;
  kiln_raw_syncthreads(ctx);
  ::kiln::cuda_host::detail::resume(ctx);
}
/// __syncthreads, returning the number of threads whose predicate is true.
KILN_CUDA_SYNC inline int __syncthreads_count(int predicate) {
  int yes = 0, no = 0;
  ::kiln::cuda_host::detail::block_vote(predicate, yes, no);
  return yes;
}
/// __syncthreads, returning non-zero when every thread's predicate is true.
KILN_CUDA_SYNC inline int __syncthreads_and(int predicate) {
  int yes = 0, no = 0;
  ::kiln::cuda_host::detail::block_vote(predicate, yes, no);
  return no == 0;
}
/// __syncthreads, returning non-zero when some thread's predicate is true.
KILN_CUDA_SYNC inline int __syncthreads_or(int predicate) {
  int yes = 0, no = 0;
  ::kiln::cuda_host::detail::block_vote(predicate, yes, no);
  return yes != 0;
}
/// A named barrier that the whole block uses is __syncthreads.
KILN_CUDA_SYNC inline void __barrier_sync(unsigned int /*id*/) { __syncthreads(); }
/// A named barrier for part of a block: the runtime has no such barrier.
KILN_CUDA_GPU_ONLY("__barrier_sync_count")
inline void __barrier_sync_count(unsigned int /*id*/, unsigned int /*count*/) {
  ::kiln::cuda_host::gpu_only("__barrier_sync_count");
}

/// A rendezvous of the warp's live lanes (the mask is not read: every live
/// lane of the warp must reach it).
KILN_CUDA_SYNC inline void __syncwarp(unsigned int /*mask*/ = 0xffffffffu) {
  (void)::kiln::cuda_host::detail::shuffle(0u, ::kiln::cuda_host::detail::shfl_idx,
                                           static_cast<int>(::kiln::cuda_host::detail::lane_id()), 32);
}

/// Memory fences: the blocks of a launch run in parallel on OS threads.
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

/// `var` of lane `srcLane` of the caller's segment of `width` lanes. Values
/// of any trivially copyable type move, 8 bytes per exchange.
template <class T> KILN_CUDA_SYNC T __shfl_sync(unsigned int /*mask*/, T var, int srcLane, int width = warpSize) {
  return ::kiln::cuda_host::detail::shuffle(var, ::kiln::cuda_host::detail::shfl_idx, srcLane, width);
}
/// `var` of lane - delta (the caller's own below its segment).
template <class T>
KILN_CUDA_SYNC T __shfl_up_sync(unsigned int /*mask*/, T var, unsigned int delta, int width = warpSize) {
  return ::kiln::cuda_host::detail::shuffle(var, ::kiln::cuda_host::detail::shfl_up, static_cast<int>(delta), width);
}
/// `var` of lane + delta (the caller's own past its segment).
template <class T>
KILN_CUDA_SYNC T __shfl_down_sync(unsigned int /*mask*/, T var, unsigned int delta, int width = warpSize) {
  return ::kiln::cuda_host::detail::shuffle(var, ::kiln::cuda_host::detail::shfl_down, static_cast<int>(delta), width);
}
/// `var` of lane ^ laneMask (the caller's own past its segment's end).
template <class T> KILN_CUDA_SYNC T __shfl_xor_sync(unsigned int /*mask*/, T var, int laneMask, int width = warpSize) {
  return ::kiln::cuda_host::detail::shuffle(var, ::kiln::cuda_host::detail::shfl_xor, laneMask, width);
}

/// Bit i: lane i is in `mask`, live, and its predicate is non-zero.
KILN_CUDA_SYNC inline unsigned int __ballot_sync(unsigned int mask, int predicate) {
  return ::kiln::cuda_host::detail::ballot(predicate) & mask;
}
/// Non-zero when the predicate of some live lane in `mask` is non-zero.
KILN_CUDA_SYNC inline int __any_sync(unsigned int mask, int predicate) {
  return (::kiln::cuda_host::detail::ballot(predicate) & mask) != 0;
}
/// Non-zero when the predicate of every live lane in `mask` is non-zero.
KILN_CUDA_SYNC inline int __all_sync(unsigned int mask, int predicate) {
  return (::kiln::cuda_host::detail::ballot(!predicate) & mask) == 0;
}
/// Non-zero when the live lanes in `mask` all have the same predicate.
KILN_CUDA_SYNC inline int __uni_sync(unsigned int mask, int predicate) {
  const unsigned int yes = ::kiln::cuda_host::detail::ballot(predicate) & mask;
  const unsigned int no = ::kiln::cuda_host::detail::ballot(!predicate) & mask;
  return yes == 0 || no == 0;
}
/// The lanes of the running warp that exist (all 32 but in a partial last
/// warp). Not an exchange: lanes that returned, or diverged, are included.
inline unsigned int __activemask() { return ::kiln::cuda_host::detail::warp_lanes(); }

/// The live lanes of the warp whose `value` has the same bits as the
/// caller's (32 exchanges).
template <class T> KILN_CUDA_SYNC unsigned int __match_any_sync(unsigned int mask, T value) {
  namespace d = ::kiln::cuda_host::detail;
  const std::uint64_t bits = d::match_bits(value);
  const unsigned int live = d::ballot(1);
  unsigned int same = 0;
  for (int lane = 0; lane < 32; ++lane)
    if (d::shuffle(bits, d::shfl_idx, lane, 32) == bits && (live >> lane & 1))
      same |= 1u << lane;
  return same & mask;
}
/// `mask` when every live lane's `value` has the same bits (*pred = 1),
/// else 0 (*pred = 0).
template <class T> KILN_CUDA_SYNC unsigned int __match_all_sync(unsigned int mask, T value, int *pred) {
  namespace d = ::kiln::cuda_host::detail;
  const std::uint64_t bits = d::match_bits(value);
  const unsigned int live = d::ballot(1);
  const std::uint64_t first = d::shuffle(bits, d::shfl_idx, std::countr_zero(live), 32);
  const bool all = d::ballot(bits != first) == 0;
  *pred = all;
  return all ? mask : 0u;
}

/// Reductions over the warp's live lanes (every lane gets the result).
#define KILN_CUDA_WARP_REDUCE(name, T, op)                                                                             \
  KILN_CUDA_SYNC inline T name(unsigned int /*mask*/, T value) {                                                       \
    return ::kiln::cuda_host::detail::reduce_lanes(value, op, ::kiln::cuda_host::detail::ballot(1), 32);               \
  }
KILN_CUDA_WARP_REDUCE(__reduce_add_sync, unsigned int, [](unsigned int a, unsigned int b) { return a + b; })
KILN_CUDA_WARP_REDUCE(__reduce_add_sync, int,
                      [](int a, int b) { return static_cast<int>(static_cast<unsigned int>(a) + b); })
KILN_CUDA_WARP_REDUCE(__reduce_min_sync, unsigned int, [](unsigned int a, unsigned int b) { return a < b ? a : b; })
KILN_CUDA_WARP_REDUCE(__reduce_min_sync, int, [](int a, int b) { return a < b ? a : b; })
KILN_CUDA_WARP_REDUCE(__reduce_max_sync, unsigned int, [](unsigned int a, unsigned int b) { return a < b ? b : a; })
KILN_CUDA_WARP_REDUCE(__reduce_max_sync, int, [](int a, int b) { return a < b ? b : a; })
KILN_CUDA_WARP_REDUCE(__reduce_and_sync, unsigned int, [](unsigned int a, unsigned int b) { return a & b; })
KILN_CUDA_WARP_REDUCE(__reduce_or_sync, unsigned int, [](unsigned int a, unsigned int b) { return a | b; })
KILN_CUDA_WARP_REDUCE(__reduce_xor_sync, unsigned int, [](unsigned int a, unsigned int b) { return a ^ b; })
#undef KILN_CUDA_WARP_REDUCE

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//
//
// Real atomics (std::atomic_ref), acquire-release so that CUDA's fence
// patterns (__threadfence, then an atomic ticket) also order on weakly
// ordered CPUs. Each returns the old value. The _block and _system
// variants are the same functions.

namespace kiln::cuda_host::detail {
constexpr std::memory_order atomic_order = std::memory_order_acq_rel;
/// Replaces *p by f(*p) atomically; returns the old value.
template <class T, class F> T atomic_update(T *p, F f) {
  std::atomic_ref<T> a(*p);
  T old = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(old, f(old), atomic_order, std::memory_order_relaxed)) {
  }
  return old;
}
} // namespace kiln::cuda_host::detail

#define KILN_CUDA_ATOMIC_FETCH(name, T, member)                                                                        \
  inline T name(T *address, T val) {                                                                                   \
    return std::atomic_ref<T>(*address).member(val, ::kiln::cuda_host::detail::atomic_order);                          \
  }
KILN_CUDA_ATOMIC_FETCH(atomicAdd, int, fetch_add)
KILN_CUDA_ATOMIC_FETCH(atomicAdd, unsigned int, fetch_add)
KILN_CUDA_ATOMIC_FETCH(atomicAdd, unsigned long long, fetch_add)
KILN_CUDA_ATOMIC_FETCH(atomicAdd, float, fetch_add)
KILN_CUDA_ATOMIC_FETCH(atomicAdd, double, fetch_add)
KILN_CUDA_ATOMIC_FETCH(atomicSub, int, fetch_sub)
KILN_CUDA_ATOMIC_FETCH(atomicSub, unsigned int, fetch_sub)
KILN_CUDA_ATOMIC_FETCH(atomicExch, int, exchange)
KILN_CUDA_ATOMIC_FETCH(atomicExch, unsigned int, exchange)
KILN_CUDA_ATOMIC_FETCH(atomicExch, unsigned long long, exchange)
KILN_CUDA_ATOMIC_FETCH(atomicExch, float, exchange)
KILN_CUDA_ATOMIC_FETCH(atomicAnd, int, fetch_and)
KILN_CUDA_ATOMIC_FETCH(atomicAnd, unsigned int, fetch_and)
KILN_CUDA_ATOMIC_FETCH(atomicAnd, unsigned long long, fetch_and)
KILN_CUDA_ATOMIC_FETCH(atomicOr, int, fetch_or)
KILN_CUDA_ATOMIC_FETCH(atomicOr, unsigned int, fetch_or)
KILN_CUDA_ATOMIC_FETCH(atomicOr, unsigned long long, fetch_or)
KILN_CUDA_ATOMIC_FETCH(atomicXor, int, fetch_xor)
KILN_CUDA_ATOMIC_FETCH(atomicXor, unsigned int, fetch_xor)
KILN_CUDA_ATOMIC_FETCH(atomicXor, unsigned long long, fetch_xor)
#undef KILN_CUDA_ATOMIC_FETCH

/// Vector atomicAdd (CUDA 12, compute capability 9.0): atomic per element.
inline float2 atomicAdd(float2 *address, float2 val) {
  return float2{atomicAdd(&address->x, val.x), atomicAdd(&address->y, val.y)};
}
inline float4 atomicAdd(float4 *address, float4 val) {
  return float4{atomicAdd(&address->x, val.x), atomicAdd(&address->y, val.y), atomicAdd(&address->z, val.z),
                atomicAdd(&address->w, val.w)};
}

#define KILN_CUDA_ATOMIC_MINMAX(T)                                                                                     \
  inline T atomicMin(T *address, T val) {                                                                              \
    return ::kiln::cuda_host::detail::atomic_update(address, [val](T old) { return val < old ? val : old; });          \
  }                                                                                                                    \
  inline T atomicMax(T *address, T val) {                                                                              \
    return ::kiln::cuda_host::detail::atomic_update(address, [val](T old) { return old < val ? val : old; });          \
  }
KILN_CUDA_ATOMIC_MINMAX(int)
KILN_CUDA_ATOMIC_MINMAX(unsigned int)
KILN_CUDA_ATOMIC_MINMAX(long long)
KILN_CUDA_ATOMIC_MINMAX(unsigned long long)
#undef KILN_CUDA_ATOMIC_MINMAX

/// *address = old >= val ? 0 : old + 1.
inline unsigned int atomicInc(unsigned int *address, unsigned int val) {
  return ::kiln::cuda_host::detail::atomic_update(address,
                                                  [val](unsigned int old) { return old >= val ? 0u : old + 1; });
}
/// *address = old == 0 || old > val ? val : old - 1.
inline unsigned int atomicDec(unsigned int *address, unsigned int val) {
  return ::kiln::cuda_host::detail::atomic_update(
      address, [val](unsigned int old) { return old == 0 || old > val ? val : old - 1; });
}

/// Stores val when *address == compare; returns the old *address.
#define KILN_CUDA_ATOMIC_CAS(T)                                                                                        \
  inline T atomicCAS(T *address, T compare, T val) {                                                                   \
    std::atomic_ref<T>(*address).compare_exchange_strong(compare, val, ::kiln::cuda_host::detail::atomic_order,        \
                                                         std::memory_order_acquire);                                   \
    return compare;                                                                                                    \
  }
KILN_CUDA_ATOMIC_CAS(int)
KILN_CUDA_ATOMIC_CAS(unsigned int)
KILN_CUDA_ATOMIC_CAS(unsigned long long)
KILN_CUDA_ATOMIC_CAS(unsigned short)
#undef KILN_CUDA_ATOMIC_CAS

// The scoped variants: every scope is the whole machine on the host.
#define KILN_CUDA_ATOMIC_SCOPES(name)                                                                                  \
  template <class... A> inline auto name##_block(A... a)->decltype(name(a...)) { return name(a...); }                  \
  template <class... A> inline auto name##_system(A... a)->decltype(name(a...)) { return name(a...); }
KILN_CUDA_ATOMIC_SCOPES(atomicAdd)
KILN_CUDA_ATOMIC_SCOPES(atomicSub)
KILN_CUDA_ATOMIC_SCOPES(atomicExch)
KILN_CUDA_ATOMIC_SCOPES(atomicMin)
KILN_CUDA_ATOMIC_SCOPES(atomicMax)
KILN_CUDA_ATOMIC_SCOPES(atomicInc)
KILN_CUDA_ATOMIC_SCOPES(atomicDec)
KILN_CUDA_ATOMIC_SCOPES(atomicCAS)
KILN_CUDA_ATOMIC_SCOPES(atomicAnd)
KILN_CUDA_ATOMIC_SCOPES(atomicOr)
KILN_CUDA_ATOMIC_SCOPES(atomicXor)
#undef KILN_CUDA_ATOMIC_SCOPES

//===----------------------------------------------------------------------===//
// min and max
//===----------------------------------------------------------------------===//
//
// CUDA's overloads, non-templates so that code with `using namespace std;`
// or `using namespace cuda::std;` stays unambiguous. Mixed signed/unsigned
// pairs compare as unsigned (CUDA's rule); float ones return fminf/fmaxf's
// result (a NaN operand gives the other).

#define KILN_CUDA_MINMAX(R, A, B)                                                                                      \
  inline R min(A a, B b) {                                                                                             \
    const R x = static_cast<R>(a), y = static_cast<R>(b);                                                              \
    return y < x ? y : x;                                                                                              \
  }                                                                                                                    \
  inline R max(A a, B b) {                                                                                             \
    const R x = static_cast<R>(a), y = static_cast<R>(b);                                                              \
    return x < y ? y : x;                                                                                              \
  }
KILN_CUDA_MINMAX(int, int, int)
KILN_CUDA_MINMAX(unsigned int, unsigned int, unsigned int)
KILN_CUDA_MINMAX(unsigned int, int, unsigned int)
KILN_CUDA_MINMAX(unsigned int, unsigned int, int)
KILN_CUDA_MINMAX(long, long, long)
KILN_CUDA_MINMAX(unsigned long, unsigned long, unsigned long)
KILN_CUDA_MINMAX(unsigned long, long, unsigned long)
KILN_CUDA_MINMAX(unsigned long, unsigned long, long)
KILN_CUDA_MINMAX(long long, long long, long long)
KILN_CUDA_MINMAX(unsigned long long, unsigned long long, unsigned long long)
KILN_CUDA_MINMAX(unsigned long long, long long, unsigned long long)
KILN_CUDA_MINMAX(unsigned long long, unsigned long long, long long)
#undef KILN_CUDA_MINMAX
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline double min(float a, double b) { return std::fmin(static_cast<double>(a), b); }
inline double max(float a, double b) { return std::fmax(static_cast<double>(a), b); }
inline double min(double a, float b) { return std::fmin(a, static_cast<double>(b)); }
inline double max(double a, float b) { return std::fmax(a, static_cast<double>(b)); }

inline unsigned int umin(unsigned int a, unsigned int b) { return b < a ? b : a; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return b < a ? b : a; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return b < a ? b : a; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }

//===----------------------------------------------------------------------===//
// Math: implementations
//===----------------------------------------------------------------------===//

namespace kiln::cuda_host::math {

/// IEEE rounding directions of the *_rn/_rz/_ru/_rd intrinsics.
enum class rounding { rn, rz, ru, rd };

/// The result in direction M from `nearest` (the exact result rounded to
/// nearest) and `above`: > 0 when the exact result is above it, < 0 below,
/// 0 when it is exact.
template <rounding M, class T> T round_from(T nearest, int above) noexcept {
  if constexpr (M == rounding::rn) {
    (void)above;
    return nearest;
  } else {
    if (above == 0 || std::isnan(nearest))
      return nearest;
    constexpr T inf = std::numeric_limits<T>::infinity();
    if constexpr (M == rounding::ru)
      return above > 0 ? std::nextafter(nearest, inf) : nearest;
    else if constexpr (M == rounding::rd)
      return above < 0 ? std::nextafter(nearest, -inf) : nearest;
    else
      return (nearest > 0 && above < 0) || (nearest < 0 && above > 0) ? std::nextafter(nearest, T(0)) : nearest;
  }
}

template <class T> int sign_of(T x) noexcept { return (x > 0) - (x < 0); }

/// `above` for a result that overflowed to +-inf from finite operands.
template <class T> int overflow_above(T nearest) noexcept { return nearest > 0 ? -1 : 1; }

/// a + b rounded in direction M.
template <rounding M, class T> T add(T a, T b) noexcept {
  const T s = a + b;
  if constexpr (M == rounding::rn)
    return s;
  if (!std::isfinite(s))
    return std::isinf(s) && std::isfinite(a) && std::isfinite(b) ? round_from<M>(s, overflow_above(s)) : s;
  // Knuth's TwoSum: s + e == a + b exactly.
  const T bv = s - a;
  const T e = (a - (s - bv)) + (b - bv);
  if (s == 0 && e == 0 && M == rounding::rd) // an exact zero sum is -0 when rounding down, unless both are +0
    return a == 0 && b == 0 && !std::signbit(a) && !std::signbit(b) ? T(0) : -T(0);
  return round_from<M>(s, sign_of(e));
}

/// a * b rounded in direction M.
template <rounding M> float mul(float a, float b) noexcept {
  const double p = static_cast<double>(a) * static_cast<double>(b); // exact: 48 bits
  const float f = static_cast<float>(p);
  return round_from<M>(f, sign_of(p - static_cast<double>(f)));
}
template <rounding M> double mul(double a, double b) noexcept {
  const double p = a * b;
  if constexpr (M == rounding::rn)
    return p;
  if (!std::isfinite(p))
    return std::isinf(p) && std::isfinite(a) && std::isfinite(b) ? round_from<M>(p, overflow_above(p)) : p;
  return round_from<M>(p, sign_of(std::fma(a, b, -p)));
}

/// a / b rounded in direction M (the remainder a - q b is exact).
template <rounding M> float div(float a, float b) noexcept {
  const float q = a / b;
  if constexpr (M == rounding::rn)
    return q;
  if (!std::isfinite(q))
    return std::isinf(q) && std::isfinite(a) && b != 0 ? round_from<M>(q, overflow_above(q)) : q;
  if (std::isinf(b))
    return q;
  const double r = static_cast<double>(a) - static_cast<double>(q) * static_cast<double>(b);
  return round_from<M>(q, sign_of(r) * sign_of(b));
}
template <rounding M> double div(double a, double b) noexcept {
  const double q = a / b;
  if constexpr (M == rounding::rn)
    return q;
  if (!std::isfinite(q))
    return std::isinf(q) && std::isfinite(a) && b != 0 ? round_from<M>(q, overflow_above(q)) : q;
  if (std::isinf(b))
    return q;
  return round_from<M>(q, sign_of(std::fma(-q, b, a)) * sign_of(b));
}

/// sqrt(x) rounded in direction M.
template <rounding M> float sqrt(float x) noexcept {
  const float s = std::sqrt(x);
  if (M == rounding::rn || !std::isfinite(s) || s == 0)
    return s;
  const double r = static_cast<double>(x) - static_cast<double>(s) * static_cast<double>(s);
  return round_from<M>(s, sign_of(r));
}
template <rounding M> double sqrt(double x) noexcept {
  const double s = std::sqrt(x);
  if (M == rounding::rn || !std::isfinite(s) || s == 0)
    return s;
  return round_from<M>(s, sign_of(std::fma(-s, s, x)));
}

/// a * b + c with one rounding in direction M. Floats: the exact sum of the
/// exact product and c is s + e in doubles (TwoSum). Doubles: Boldo and
/// Muller's ErrFma gives the sign of the exact error of fma's result.
template <rounding M> float fma(float a, float b, float c) noexcept {
  const float f = std::fma(a, b, c);
  if constexpr (M == rounding::rn)
    return f;
  if (!std::isfinite(f))
    return std::isinf(f) && std::isfinite(a) && std::isfinite(b) && std::isfinite(c)
               ? round_from<M>(f, overflow_above(f))
               : f;
  const double p = static_cast<double>(a) * static_cast<double>(b), cd = c;
  const double s = p + cd;
  const double pv = s - p;
  const double e = (p - (s - pv)) + (cd - pv);
  const double df = static_cast<double>(f);
  const int above = s != df ? sign_of(s - df) : sign_of(e);
  if (f == 0 && above == 0 && M == rounding::rd)
    return p == 0 && c == 0 && !std::signbit(p) && !std::signbit(c) ? 0.0f : -0.0f;
  return round_from<M>(f, above);
}
template <rounding M> double fma(double a, double b, double c) noexcept {
  const double r1 = std::fma(a, b, c);
  if constexpr (M == rounding::rn)
    return r1;
  if (!std::isfinite(r1))
    return std::isinf(r1) && std::isfinite(a) && std::isfinite(b) && std::isfinite(c)
               ? round_from<M>(r1, overflow_above(r1))
               : r1;
  const double u1 = a * b, u2 = std::fma(a, b, -u1);
  auto two_sum = [](double x, double y, double &e) {
    const double s = x + y, yv = s - x;
    e = (x - (s - yv)) + (y - yv);
    return s;
  };
  double z = 0, beta2 = 0;
  const double alpha1 = two_sum(c, u2, z);
  const double beta1 = two_sum(u1, alpha1, beta2);
  const double gamma = (beta1 - r1) + beta2;
  const int above = sign_of(gamma + z);
  if (r1 == 0 && above == 0 && M == rounding::rd) {
    const double p = a * b;
    return p == 0 && c == 0 && !std::signbit(p) && !std::signbit(c) ? 0.0 : -0.0;
  }
  return round_from<M>(r1, above);
}

/// An integer of type I from x, rounded in direction M; NaN gives 0 and
/// values outside I's range its nearest bound (PTX's saturating cvt).
template <class I, rounding M> I to_integer(double x) noexcept {
  if (std::isnan(x))
    return 0;
  double r;
  if constexpr (M == rounding::rn) {
    r = std::floor(x); // ties to even, whatever the floating-point environment
    const double d = x - r;
    if (d > 0.5 || (d == 0.5 && std::fmod(r, 2.0) != 0))
      r += 1;
  } else if constexpr (M == rounding::rz) {
    r = std::trunc(x);
  } else if constexpr (M == rounding::ru) {
    r = std::ceil(x);
  } else {
    r = std::floor(x);
  }
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());
  const double hi = std::ldexp(1.0, std::numeric_limits<I>::digits); // 2^31, 2^32, 2^63, 2^64
  if (r < lo)
    return std::numeric_limits<I>::min();
  if (r >= hi)
    return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

__extension__ typedef __int128 int128;

/// The integer x as F, rounded in direction M.
template <class F, rounding M, class I> F from_integer(I x) noexcept {
  const F f = static_cast<F>(x);
  if constexpr (M == rounding::rn) {
    return f;
  } else {
    const int128 exact = x, rounded = static_cast<int128>(f); // f is an integer of at most 2^64
    return round_from<M>(f, exact > rounded ? 1 : exact < rounded ? -1 : 0);
  }
}

/// d as a float, rounded in direction M.
template <rounding M> float narrow(double d) noexcept {
  const float f = static_cast<float>(d);
  return round_from<M>(f, std::isnan(d) ? 0 : sign_of(d - static_cast<double>(f)));
}

/// sin(pi x) and cos(pi x), exact at integers and half-integers: x is
/// reduced exactly to r in [-1, 1] (remainder by 2), then to [-1/4, 1/4].
inline double sinpi(double x) noexcept {
  if (!std::isfinite(x))
    return x - x; // NaN
  double r = std::remainder(x, 2.0);
  if (r == 0)
    return std::copysign(0.0, x);
  if (r > 0.5)
    r = 1 - r;
  else if (r < -0.5)
    r = -1 - r;
  constexpr double pi = 3.141592653589793238462643383279502884;
  if (std::fabs(r) <= 0.25)
    return std::sin(pi * r);
  return std::copysign(std::cos(pi * (0.5 - std::fabs(r))), r);
}
inline double cospi(double x) noexcept {
  if (!std::isfinite(x))
    return x - x;
  double r = std::fabs(std::remainder(x, 2.0)); // cos is even
  double sign = 1;
  if (r > 0.5) {
    r = 1 - r;
    sign = -1;
  }
  constexpr double pi = 3.141592653589793238462643383279502884;
  if (r == 0.5)
    return 0.0;
  if (r <= 0.25)
    return sign * std::cos(pi * r);
  return sign * std::sin(pi * (0.5 - r));
}

/// y with erfc(y) == q, for q in (0, 1] (y >= 0): Giles' single-precision
/// approximation (2010) as the start, then Newton's method on
/// log(erfc(y)) - log(q), which stays well conditioned in the far tail
/// (there log erfc comes from its asymptotic series: erfc(y) underflows).
inline double erfcinv_upper(double q) noexcept {
  // Giles: erfinv(x) ~ x * p(w), w = -log((1 - x)(1 + x)), with x = 1 - q.
  const double x = 1 - q, w = -std::log(q * (2 - q));
  double p;
  if (w < 5) {
    const double t = w - 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * t;
    p = -3.5233877e-06 + p * t;
    p = -4.39150654e-06 + p * t;
    p = 0.00021858087 + p * t;
    p = -0.00125372503 + p * t;
    p = -0.00417768164 + p * t;
    p = 0.246640727 + p * t;
    p = 1.50140941 + p * t;
  } else {
    const double t = std::sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * t;
    p = 0.00134934322 + p * t;
    p = -0.00367342844 + p * t;
    p = 0.00573950773 + p * t;
    p = -0.0076224613 + p * t;
    p = 0.00943887047 + p * t;
    p = 1.00167406 + p * t;
    p = 2.83297682 + p * t;
  }
  double y = p * x > 0 ? p * x : 0.0;
  const double log_q = std::log(q);
  constexpr double two_over_sqrt_pi = 1.128379167095512573896158903121545172;
  constexpr double log_sqrt_pi = 0.5723649429247000870717136756012478;
  for (int i = 0; i < 50; ++i) {
    double log_erfc, ratio; // log(erfc(y)) and exp(-y^2) / erfc(y)
    if (y < 26) {
      const double e = std::erfc(y);
      log_erfc = std::log(e);
      ratio = std::exp(-y * y) / e;
    } else {
      // erfc(y) = exp(-y^2) / (y sqrt(pi)) * S, S = sum (-1)^n (2n-1)!! / (2y^2)^n
      const double u = 1 / (2 * y * y);
      const double s = 1 - u * (1 - 3 * u * (1 - 5 * u * (1 - 7 * u * (1 - 9 * u * (1 - 11 * u)))));
      log_erfc = -y * y - std::log(y) - log_sqrt_pi + std::log(s);
      ratio = y * 1.772453850905516027298167483341145183 / s;
    }
    const double g = log_erfc - log_q;
    const double step = g / (two_over_sqrt_pi * ratio); // g / -g'
    y += step;
    if (!(std::fabs(step) > 1e-17 * y))
      break;
  }
  return y;
}

/// erfcinv(q): y with erfc(y) == q, q in [0, 2].
inline double erfcinv(double q) noexcept {
  if (std::isnan(q) || q < 0 || q > 2)
    return std::numeric_limits<double>::quiet_NaN();
  if (q == 0)
    return std::numeric_limits<double>::infinity();
  if (q == 2)
    return -std::numeric_limits<double>::infinity();
  if (q > 1)
    return -erfcinv_upper(2 - q); // 2 - q is exact
  return erfcinv_upper(q);
}

/// erfinv(x): y with erf(y) == x, x in [-1, 1]. Small |x|: Giles' start and
/// Newton's method on erf; larger: erfcinv of 1 - |x| (exact).
inline double erfinv(double x) noexcept {
  if (std::isnan(x) || x < -1 || x > 1)
    return std::numeric_limits<double>::quiet_NaN();
  const double a = std::fabs(x);
  if (a > 0.5)
    return std::copysign(a == 1 ? std::numeric_limits<double>::infinity() : erfcinv_upper(1 - a), x);
  if (a == 0)
    return x;
  const double t = -std::log((1 - x) * (1 + x)) - 2.5;
  double p = 2.81022636e-08;
  p = 3.43273939e-07 + p * t;
  p = -3.5233877e-06 + p * t;
  p = -4.39150654e-06 + p * t;
  p = 0.00021858087 + p * t;
  p = -0.00125372503 + p * t;
  p = -0.00417768164 + p * t;
  p = 0.246640727 + p * t;
  p = 1.50140941 + p * t;
  double y = p * x;
  constexpr double two_over_sqrt_pi = 1.128379167095512573896158903121545172;
  for (int i = 0; i < 3; ++i)
    y -= (std::erf(y) - x) / (two_over_sqrt_pi * std::exp(-y * y));
  return y;
}

/// The standard normal distribution function and its inverse.
inline double normcdf(double x) noexcept { return 0.5 * std::erfc(-x * 0.70710678118654752440084436210484903928); }
inline double normcdfinv(double p) noexcept { return -1.41421356237309504880168872420969807857 * erfcinv(2 * p); }

} // namespace kiln::cuda_host::math

//===----------------------------------------------------------------------===//
// Math: CUDA's functions beyond <cmath>
//===----------------------------------------------------------------------===//
//
// <cmath> and <math.h> give the C and C++ functions, float overloads
// included, in the global namespace. Functions that a C library may also
// declare (glibc with _GNU_SOURCE: exp10, sincos; C23: rsqrt, sinpi,
// cospi) are templates with a default argument here: a library's own
// declaration, when there is one, is a better match and wins; otherwise
// these are called. Float overloads compute in double and round once.

template <class = void> inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
template <class = void> inline float rsqrt(float x) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
}
template <class = void> inline float rsqrtf(float x) { return rsqrt(x); }
template <class = void> inline double sinpi(double x) { return ::kiln::cuda_host::math::sinpi(x); }
template <class = void> inline float sinpi(float x) { return static_cast<float>(::kiln::cuda_host::math::sinpi(x)); }
template <class = void> inline float sinpif(float x) { return static_cast<float>(::kiln::cuda_host::math::sinpi(x)); }
template <class = void> inline double cospi(double x) { return ::kiln::cuda_host::math::cospi(x); }
template <class = void> inline float cospi(float x) { return static_cast<float>(::kiln::cuda_host::math::cospi(x)); }
template <class = void> inline float cospif(float x) { return static_cast<float>(::kiln::cuda_host::math::cospi(x)); }
template <class = void> inline double exp10(double x) { return std::pow(10.0, x); }
template <class = void> inline float exp10(float x) {
  return static_cast<float>(std::pow(10.0, static_cast<double>(x)));
}
template <class = void> inline float exp10f(float x) { return exp10(x); }
template <class = void> inline void sincos(double x, double *s, double *c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
template <class = void> inline void sincos(float x, float *s, float *c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
template <class = void> inline void sincosf(float x, float *s, float *c) {
  *s = std::sin(x);
  *c = std::cos(x);
}

inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
inline float rcbrt(float x) { return static_cast<float>(1.0 / std::cbrt(static_cast<double>(x))); }
inline float rcbrtf(float x) { return rcbrt(x); }
inline void sincospi(double x, double *s, double *c) {
  *s = ::kiln::cuda_host::math::sinpi(x);
  *c = ::kiln::cuda_host::math::cospi(x);
}
inline void sincospi(float x, float *s, float *c) {
  *s = static_cast<float>(::kiln::cuda_host::math::sinpi(x));
  *c = static_cast<float>(::kiln::cuda_host::math::cospi(x));
}
inline void sincospif(float x, float *s, float *c) { sincospi(x, s, c); }
inline double erfinv(double x) { return ::kiln::cuda_host::math::erfinv(x); }
inline float erfinv(float x) { return static_cast<float>(::kiln::cuda_host::math::erfinv(x)); }
inline float erfinvf(float x) { return erfinv(x); }
inline double erfcinv(double x) { return ::kiln::cuda_host::math::erfcinv(x); }
inline float erfcinv(float x) { return static_cast<float>(::kiln::cuda_host::math::erfcinv(x)); }
inline float erfcinvf(float x) { return erfcinv(x); }
inline double normcdf(double x) { return ::kiln::cuda_host::math::normcdf(x); }
inline float normcdf(float x) { return static_cast<float>(::kiln::cuda_host::math::normcdf(x)); }
inline float normcdff(float x) { return normcdf(x); }
inline double normcdfinv(double p) { return ::kiln::cuda_host::math::normcdfinv(p); }
inline float normcdfinv(float p) { return static_cast<float>(::kiln::cuda_host::math::normcdfinv(p)); }
inline float normcdfinvf(float p) { return normcdfinv(p); }
inline double rhypot(double x, double y) { return 1.0 / std::hypot(x, y); }
inline float rhypot(float x, float y) { return static_cast<float>(1.0 / std::hypot(double{x}, double{y})); }
inline float rhypotf(float x, float y) { return rhypot(x, y); }
inline double norm3d(double a, double b, double c) { return std::hypot(a, b, c); }
inline float norm3d(float a, float b, float c) {
  return static_cast<float>(std::hypot(double{a}, double{b}, double{c}));
}
inline float norm3df(float a, float b, float c) { return norm3d(a, b, c); }
inline double rnorm3d(double a, double b, double c) { return 1.0 / std::hypot(a, b, c); }
inline float rnorm3d(float a, float b, float c) {
  return static_cast<float>(1.0 / std::hypot(double{a}, double{b}, double{c}));
}
inline float rnorm3df(float a, float b, float c) { return rnorm3d(a, b, c); }
inline double norm4d(double a, double b, double c, double d) { return std::hypot(std::hypot(a, b), std::hypot(c, d)); }
inline float norm4d(float a, float b, float c, float d) {
  return static_cast<float>(std::sqrt(double{a} * a + double{b} * b + double{c} * c + double{d} * d));
}
inline float norm4df(float a, float b, float c, float d) { return norm4d(a, b, c, d); }
inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
inline float rnorm4d(float a, float b, float c, float d) {
  return static_cast<float>(1.0 / std::sqrt(double{a} * a + double{b} * b + double{c} * c + double{d} * d));
}
inline float rnorm4df(float a, float b, float c, float d) { return rnorm4d(a, b, c, d); }

/// x clamped to [0, 1]; NaN gives 0.
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f; }
inline float saturate(float x) { return __saturatef(x); }
/// x / y (exactly rounded; a GPU's fast division gives 0 for 2^126 < |y| < 2^128).
inline float fdividef(float x, float y) { return x / y; }
inline float __fdividef(float x, float y) { return x / y; }

//===----------------------------------------------------------------------===//
// Math: intrinsics
//===----------------------------------------------------------------------===//
//
// The fast intrinsics are the accurate functions. glibc's <math.h>
// declares functions of the same names and signatures (__expf, __sinf,
// ...) that its libm does not export, so these are macros naming functions
// of kiln::cuda_host::intrinsics (`::__expf` does not work; `__expf(x)` and
// `&__expf` do).

namespace kiln::cuda_host::intrinsics {
inline float expf(float x) { return std::exp(x); }
inline float exp10f(float x) { return ::exp10f(x); }
inline float logf(float x) { return std::log(x); }
inline float log2f(float x) { return std::log2(x); }
inline float log10f(float x) { return std::log10(x); }
inline float sinf(float x) { return std::sin(x); }
inline float cosf(float x) { return std::cos(x); }
inline float tanf(float x) { return std::tan(x); }
inline void sincosf(float x, float *s, float *c) { ::sincosf(x, s, c); }
inline float powf(float x, float y) { return std::pow(x, y); }
} // namespace kiln::cuda_host::intrinsics

#define __expf ::kiln::cuda_host::intrinsics::expf
#define __exp10f ::kiln::cuda_host::intrinsics::exp10f
#define __logf ::kiln::cuda_host::intrinsics::logf
#define __log2f ::kiln::cuda_host::intrinsics::log2f
#define __log10f ::kiln::cuda_host::intrinsics::log10f
#define __sinf ::kiln::cuda_host::intrinsics::sinf
#define __cosf ::kiln::cuda_host::intrinsics::cosf
#define __tanf ::kiln::cuda_host::intrinsics::tanf
#define __sincosf ::kiln::cuda_host::intrinsics::sincosf
#define __powf ::kiln::cuda_host::intrinsics::powf

// Arithmetic with a rounding direction: _rn to nearest even, _rz toward
// zero, _ru up, _rd down; exact (see the file header).
#define KILN_CUDA_ROUNDED(name, T, impl)                                                                               \
  inline T name##_rn(T a, T b) { return ::kiln::cuda_host::math::impl<::kiln::cuda_host::math::rounding::rn>(a, b); }  \
  inline T name##_rz(T a, T b) { return ::kiln::cuda_host::math::impl<::kiln::cuda_host::math::rounding::rz>(a, b); }  \
  inline T name##_ru(T a, T b) { return ::kiln::cuda_host::math::impl<::kiln::cuda_host::math::rounding::ru>(a, b); }  \
  inline T name##_rd(T a, T b) { return ::kiln::cuda_host::math::impl<::kiln::cuda_host::math::rounding::rd>(a, b); }
KILN_CUDA_ROUNDED(__fadd, float, add)
KILN_CUDA_ROUNDED(__fmul, float, mul)
KILN_CUDA_ROUNDED(__fdiv, float, div)
KILN_CUDA_ROUNDED(__dadd, double, add)
KILN_CUDA_ROUNDED(__dmul, double, mul)
KILN_CUDA_ROUNDED(__ddiv, double, div)
#undef KILN_CUDA_ROUNDED
#define KILN_CUDA_ROUNDED_SUB(name, T)                                                                                 \
  inline T name##_rn(T a, T b) { return ::kiln::cuda_host::math::add<::kiln::cuda_host::math::rounding::rn>(a, -b); }  \
  inline T name##_rz(T a, T b) { return ::kiln::cuda_host::math::add<::kiln::cuda_host::math::rounding::rz>(a, -b); }  \
  inline T name##_ru(T a, T b) { return ::kiln::cuda_host::math::add<::kiln::cuda_host::math::rounding::ru>(a, -b); }  \
  inline T name##_rd(T a, T b) { return ::kiln::cuda_host::math::add<::kiln::cuda_host::math::rounding::rd>(a, -b); }
KILN_CUDA_ROUNDED_SUB(__fsub, float)
KILN_CUDA_ROUNDED_SUB(__dsub, double)
#undef KILN_CUDA_ROUNDED_SUB
#define KILN_CUDA_ROUNDED_UNARY(name, T, impl)                                                                         \
  inline T name##_rn(T x) { return ::kiln::cuda_host::math::impl<::kiln::cuda_host::math::rounding::rn>(x); }          \
  inline T name##_rz(T x) { return ::kiln::cuda_host::math::impl<::kiln::cuda_host::math::rounding::rz>(x); }          \
  inline T name##_ru(T x) { return ::kiln::cuda_host::math::impl<::kiln::cuda_host::math::rounding::ru>(x); }          \
  inline T name##_rd(T x) { return ::kiln::cuda_host::math::impl<::kiln::cuda_host::math::rounding::rd>(x); }
KILN_CUDA_ROUNDED_UNARY(__fsqrt, float, sqrt)
KILN_CUDA_ROUNDED_UNARY(__dsqrt, double, sqrt)
#undef KILN_CUDA_ROUNDED_UNARY
#define KILN_CUDA_ROUNDED_RCP(name, T)                                                                                 \
  inline T name##_rn(T x) { return ::kiln::cuda_host::math::div<::kiln::cuda_host::math::rounding::rn>(T(1), x); }     \
  inline T name##_rz(T x) { return ::kiln::cuda_host::math::div<::kiln::cuda_host::math::rounding::rz>(T(1), x); }     \
  inline T name##_ru(T x) { return ::kiln::cuda_host::math::div<::kiln::cuda_host::math::rounding::ru>(T(1), x); }     \
  inline T name##_rd(T x) { return ::kiln::cuda_host::math::div<::kiln::cuda_host::math::rounding::rd>(T(1), x); }
KILN_CUDA_ROUNDED_RCP(__frcp, float)
KILN_CUDA_ROUNDED_RCP(__drcp, double)
#undef KILN_CUDA_ROUNDED_RCP
#define KILN_CUDA_ROUNDED_FMA(name, T)                                                                                 \
  inline T name##_rn(T a, T b, T c) {                                                                                  \
    return ::kiln::cuda_host::math::fma<::kiln::cuda_host::math::rounding::rn>(a, b, c);                               \
  }                                                                                                                    \
  inline T name##_rz(T a, T b, T c) {                                                                                  \
    return ::kiln::cuda_host::math::fma<::kiln::cuda_host::math::rounding::rz>(a, b, c);                               \
  }                                                                                                                    \
  inline T name##_ru(T a, T b, T c) {                                                                                  \
    return ::kiln::cuda_host::math::fma<::kiln::cuda_host::math::rounding::ru>(a, b, c);                               \
  }                                                                                                                    \
  inline T name##_rd(T a, T b, T c) {                                                                                  \
    return ::kiln::cuda_host::math::fma<::kiln::cuda_host::math::rounding::rd>(a, b, c);                               \
  }
KILN_CUDA_ROUNDED_FMA(__fmaf, float)
KILN_CUDA_ROUNDED_FMA(__fma, double)
#undef KILN_CUDA_ROUNDED_FMA
/// 1 / sqrt(x), computed in double and rounded once.
inline float __frsqrt_rn(float x) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))); }

// Conversions. Float to integer saturates (NaN gives 0), as PTX's cvt.
#define KILN_CUDA_TO_INTEGER(name, From, I)                                                                            \
  inline I name##_rn(From x) {                                                                                         \
    return ::kiln::cuda_host::math::to_integer<I, ::kiln::cuda_host::math::rounding::rn>(x);                           \
  }                                                                                                                    \
  inline I name##_rz(From x) {                                                                                         \
    return ::kiln::cuda_host::math::to_integer<I, ::kiln::cuda_host::math::rounding::rz>(x);                           \
  }                                                                                                                    \
  inline I name##_ru(From x) {                                                                                         \
    return ::kiln::cuda_host::math::to_integer<I, ::kiln::cuda_host::math::rounding::ru>(x);                           \
  }                                                                                                                    \
  inline I name##_rd(From x) {                                                                                         \
    return ::kiln::cuda_host::math::to_integer<I, ::kiln::cuda_host::math::rounding::rd>(x);                           \
  }
KILN_CUDA_TO_INTEGER(__float2int, float, int)
KILN_CUDA_TO_INTEGER(__float2uint, float, unsigned int)
KILN_CUDA_TO_INTEGER(__float2ll, float, long long)
KILN_CUDA_TO_INTEGER(__float2ull, float, unsigned long long)
KILN_CUDA_TO_INTEGER(__double2int, double, int)
KILN_CUDA_TO_INTEGER(__double2uint, double, unsigned int)
KILN_CUDA_TO_INTEGER(__double2ll, double, long long)
KILN_CUDA_TO_INTEGER(__double2ull, double, unsigned long long)
#undef KILN_CUDA_TO_INTEGER
#define KILN_CUDA_FROM_INTEGER(name, I, F)                                                                             \
  inline F name##_rn(I x) {                                                                                            \
    return ::kiln::cuda_host::math::from_integer<F, ::kiln::cuda_host::math::rounding::rn>(x);                         \
  }                                                                                                                    \
  inline F name##_rz(I x) {                                                                                            \
    return ::kiln::cuda_host::math::from_integer<F, ::kiln::cuda_host::math::rounding::rz>(x);                         \
  }                                                                                                                    \
  inline F name##_ru(I x) {                                                                                            \
    return ::kiln::cuda_host::math::from_integer<F, ::kiln::cuda_host::math::rounding::ru>(x);                         \
  }                                                                                                                    \
  inline F name##_rd(I x) { return ::kiln::cuda_host::math::from_integer<F, ::kiln::cuda_host::math::rounding::rd>(x); }
KILN_CUDA_FROM_INTEGER(__int2float, int, float)
KILN_CUDA_FROM_INTEGER(__uint2float, unsigned int, float)
KILN_CUDA_FROM_INTEGER(__ll2float, long long, float)
KILN_CUDA_FROM_INTEGER(__ull2float, unsigned long long, float)
KILN_CUDA_FROM_INTEGER(__ll2double, long long, double)
KILN_CUDA_FROM_INTEGER(__ull2double, unsigned long long, double)
#undef KILN_CUDA_FROM_INTEGER
inline double __int2double_rn(int x) { return x; }
inline double __uint2double_rn(unsigned int x) { return x; }
inline float __double2float_rn(double x) {
  return ::kiln::cuda_host::math::narrow<::kiln::cuda_host::math::rounding::rn>(x);
}
inline float __double2float_rz(double x) {
  return ::kiln::cuda_host::math::narrow<::kiln::cuda_host::math::rounding::rz>(x);
}
inline float __double2float_ru(double x) {
  return ::kiln::cuda_host::math::narrow<::kiln::cuda_host::math::rounding::ru>(x);
}
inline float __double2float_rd(double x) {
  return ::kiln::cuda_host::math::narrow<::kiln::cuda_host::math::rounding::rd>(x);
}

// Reinterpretations.
inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
inline unsigned int __float_as_uint(float x) { return std::bit_cast<unsigned int>(x); }
inline float __uint_as_float(unsigned int x) { return std::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return std::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return std::bit_cast<double>(x); }
/// The high and low 32 bits of a double, and the double of two halves.
inline int __double2hiint(double x) { return static_cast<int>(std::bit_cast<unsigned long long>(x) >> 32); }
inline int __double2loint(double x) { return static_cast<int>(std::bit_cast<unsigned long long>(x) & 0xffffffffu); }
inline double __hiloint2double(int hi, int lo) {
  return std::bit_cast<double>(static_cast<unsigned long long>(static_cast<unsigned int>(hi)) << 32 |
                               static_cast<unsigned int>(lo));
}

//===----------------------------------------------------------------------===//
// Integer intrinsics
//===----------------------------------------------------------------------===//

/// Set bits; leading zeros (32 / 64 for 0); the 1-based position of the
/// least significant set bit (0 for 0); bits reversed.
inline int __popc(unsigned int x) { return std::popcount(x); }
inline int __popcll(unsigned long long x) { return std::popcount(x); }
inline int __clz(int x) { return std::countl_zero(static_cast<unsigned int>(x)); }
inline int __clzll(long long x) { return std::countl_zero(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned int>(x)) + 1; }
inline int __ffsll(long long x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1; }
inline unsigned long long __brevll(unsigned long long x) {
  x = (x >> 1 & 0x5555555555555555ull) | (x & 0x5555555555555555ull) << 1;
  x = (x >> 2 & 0x3333333333333333ull) | (x & 0x3333333333333333ull) << 2;
  x = (x >> 4 & 0x0f0f0f0f0f0f0f0full) | (x & 0x0f0f0f0f0f0f0f0full) << 4;
  x = (x >> 8 & 0x00ff00ff00ff00ffull) | (x & 0x00ff00ff00ff00ffull) << 8;
  x = (x >> 16 & 0x0000ffff0000ffffull) | (x & 0x0000ffff0000ffffull) << 16;
  return x >> 32 | x << 32;
}
inline unsigned int __brev(unsigned int x) { return static_cast<unsigned int>(__brevll(x) >> 32); }
/// The position of the `offset`-th set bit of `mask` counted from bit
/// `base` (toward the msb for offset > 0, the lsb for offset < 0; offset 0:
/// base itself if set), or 0xffffffff (PTX's fns).
inline unsigned int __fns(unsigned int mask, unsigned int base, int offset) {
  if (offset == 0)
    return base < 32 && (mask >> base & 1) ? base : 0xffffffffu;
  int count = (offset > 0 ? offset : -offset) - 1;
  const int step = offset > 0 ? 1 : -1;
  for (int pos = static_cast<int>(base); pos >= 0 && pos < 32; pos += step)
    if (mask >> pos & 1) {
      if (count == 0)
        return static_cast<unsigned int>(pos);
      --count;
    }
  return 0xffffffffu;
}
/// Byte n of the result is byte (s >> 4n) & 7 of the eight bytes of y:x.
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long bytes = static_cast<unsigned long long>(y) << 32 | x;
  unsigned int result = 0;
  for (int n = 0; n < 4; ++n)
    result |= static_cast<unsigned int>(bytes >> (8 * ((s >> (4 * n)) & 7)) & 0xff) << (8 * n);
  return result;
}
/// Products of the low 24 bits (sign-extended for __mul24), low 32 bits.
inline int __mul24(int x, int y) {
  const long long a = static_cast<int>(static_cast<unsigned int>(x) << 8) >> 8;
  const long long b = static_cast<int>(static_cast<unsigned int>(y) << 8) >> 8;
  return static_cast<int>(static_cast<unsigned int>(a * b));
}
inline unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xffffffu) * (y & 0xffffffu); }
/// The high halves of full products.
inline int __mulhi(int x, int y) { return static_cast<int>((static_cast<long long>(x) * y) >> 32); }
inline unsigned int __umulhi(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(x) * y) >> 32);
}
inline long long __mul64hi(long long x, long long y) {
  return static_cast<long long>((static_cast<::kiln::cuda_host::math::int128>(x) * y) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  __extension__ typedef unsigned __int128 uint128;
  return static_cast<unsigned long long>((static_cast<uint128>(x) * y) >> 64);
}
/// |x - y| + z.
inline unsigned int __sad(int x, int y, unsigned int z) {
  const long long d = static_cast<long long>(x) - y;
  return static_cast<unsigned int>(d < 0 ? -d : d) + z;
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return (x > y ? x - y : y - x) + z; }
/// (x + y) >> 1 and (x + y + 1) >> 1 without overflow.
inline int __hadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y) >> 1); }
inline int __rhadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1); }
inline unsigned int __uhadd(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(x) + y) >> 1);
}
inline unsigned int __urhadd(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}
/// hi:lo shifted left by shift & 31 (_lc: min(shift, 32)), high 32 bits;
/// shifted right, low 32 bits.
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = static_cast<unsigned long long>(hi) << 32 | lo;
  return static_cast<unsigned int>((v << (shift & 31)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = static_cast<unsigned long long>(hi) << 32 | lo;
  return static_cast<unsigned int>((v << (shift < 32 ? shift : 32)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = static_cast<unsigned long long>(hi) << 32 | lo;
  return static_cast<unsigned int>(v >> (shift & 31));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = static_cast<unsigned long long>(hi) << 32 | lo;
  return static_cast<unsigned int>(v >> (shift < 32 ? shift : 32));
}
/// Four-way byte dot products plus c.
inline int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; ++i)
    c += static_cast<signed char>(static_cast<unsigned int>(a) >> (8 * i)) *
         static_cast<signed char>(static_cast<unsigned int>(b) >> (8 * i));
  return c;
}
inline unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
  for (int i = 0; i < 4; ++i)
    c += (a >> (8 * i) & 0xffu) * (b >> (8 * i) & 0xffu);
  return c;
}

//===----------------------------------------------------------------------===//
// Loads and stores with cache hints (plain accesses on the host)
//===----------------------------------------------------------------------===//

template <class T> inline T __ldg(const T *p) { return *p; }
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldcs(const T *p) { return *p; }
template <class T> inline T __ldlu(const T *p) { return *p; }
template <class T> inline T __ldcv(const T *p) { return *p; }
template <class T> inline void __stcg(T *p, std::type_identity_t<T> v) { *p = v; }
template <class T> inline void __stcs(T *p, std::type_identity_t<T> v) { *p = v; }
template <class T> inline void __stwb(T *p, std::type_identity_t<T> v) { *p = v; }
template <class T> inline void __stwt(T *p, std::type_identity_t<T> v) { *p = v; }

//===----------------------------------------------------------------------===//
// Others
//===----------------------------------------------------------------------===//
//
// printf and assert are C's (<cstdio>, <cassert>); clock() is C's too (the
// process's processor time).

/// Yields the OS thread (lets other blocks run; a spin loop waiting for a
/// thread of the same block never ends: its fibers switch only at exchanges).
inline void __nanosleep(unsigned int /*ns*/) { std::this_thread::yield(); }
/// Ends the launch with kiln::error.
[[noreturn]] inline void __trap() { throw ::kiln::error("__trap() called in a kernel"); }
[[noreturn]] inline void __brkpt() { throw ::kiln::error("__brkpt() called in a kernel"); }

// GPU-only: each throws kiln::device_error naming itself.
KILN_CUDA_GPU_ONLY("clock64") inline long long clock64() { ::kiln::cuda_host::gpu_only("clock64"); }
KILN_CUDA_GPU_ONLY("__globaltimer") inline unsigned long long __globaltimer() {
  ::kiln::cuda_host::gpu_only("__globaltimer");
}
KILN_CUDA_GPU_ONLY("__prof_trigger") inline void __prof_trigger(int /*counter*/) {
  ::kiln::cuda_host::gpu_only("__prof_trigger");
}
#define KILN_CUDA_ADDRESS_SPACE(name)                                                                                  \
  KILN_CUDA_GPU_ONLY(#name) inline unsigned int name(const void * /*ptr*/) { ::kiln::cuda_host::gpu_only(#name); }
KILN_CUDA_ADDRESS_SPACE(__isGlobal)
KILN_CUDA_ADDRESS_SPACE(__isShared)
KILN_CUDA_ADDRESS_SPACE(__isConstant)
KILN_CUDA_ADDRESS_SPACE(__isLocal)
KILN_CUDA_ADDRESS_SPACE(__isGridConstant)
#undef KILN_CUDA_ADDRESS_SPACE
#define KILN_CUDA_CVTA(name)                                                                                           \
  KILN_CUDA_GPU_ONLY(#name) inline std::size_t name(const void * /*ptr*/) { ::kiln::cuda_host::gpu_only(#name); }
KILN_CUDA_CVTA(__cvta_generic_to_global)
KILN_CUDA_CVTA(__cvta_generic_to_shared)
KILN_CUDA_CVTA(__cvta_generic_to_constant)
KILN_CUDA_CVTA(__cvta_generic_to_local)
#undef KILN_CUDA_CVTA
