//===- runtime/launch/raw_host.cpp - Raw kernels on the host --------------===//
//
// Blocks. The grid's blocks are split over the host thread pool
// (parallel_for); each OS thread runs its blocks one after another with a
// block_runner of its own (thread-local, reused by every launch), which
// holds the block's shared memory (16-byte aligned, not cleared between
// blocks: CUDA leaves it undefined too) and, for synchronizing kernels, one
// fiber and stack per thread of the largest block seen so far.
//
// Threads. A kernel that does not synchronize has a one-block host form,
// called once per block. Otherwise each thread of the block is a fiber
// calling the one-thread host form. Fibers run until they reach a barrier:
// kiln_raw_syncthreads counts the thread in and, unless it is the last one
// the block waits for, suspends it and resumes the next ready fiber (a FIFO
// of thread indices, filled in index order). The last thread to arrive
// makes the waiting ones ready and goes on itself, so a barrier costs one
// switch per thread. Warps (the block's threads in groups of 32 by linear
// index) exchange values the same way with a barrier of their own lanes
// only: each lane stores its operand; the last to arrive computes every
// lane's result (CUDA's rules for shfl, shfl_up, shfl_down, shfl_xor and
// width segments, as PTX defines them) and wakes the others, which read only
// their own result, so a lane that runs ahead into the next exchange cannot
// disturb them.
//
// Exited threads. A thread that returns (or throws) no longer counts: a
// barrier it never reaches completes without it, and a shuffle reading its
// lane, like a shuffle reading a lane beyond a partial last warp, returns the
// caller's own value. (CUDA leaves both undefined; Kiln does not hang.)
//
// Deadlock. When no fiber is ready and some have not exited, the block's
// threads wait at barriers that cannot complete (some at syncthreads, some
// in a warp exchange): the block is abandoned and kiln::error is thrown.
//
//===----------------------------------------------------------------------===//
#include "runtime/launch/raw_host.hpp"

#include "kiln/error.hpp"
#include "runtime/launch/raw_fibers.hpp"
#include "runtime/parallel/thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace kiln::detail::raw {
namespace {

constexpr int warp_size = 32;

/// What a lane does in a warp exchange: kiln_raw_shfl's modes, and ballot.
enum exchange_mode : std::int32_t { mode_idx = 0, mode_up = 1, mode_down = 2, mode_xor = 3, mode_ballot = 4 };

/// The lane whose value `lane` receives from a shuffle, as PTX's shfl.sync
/// computes it: `width` splits the warp into segments (its c operand is
/// ((32 - width) << 8) | 0x1f, or without the 0x1f for up), the lane
/// operand counts modulo 32, and a source past the segment's end (below its
/// start for up) gives the caller's own lane. xor may read an earlier
/// segment, as on a GPU.
int shuffle_source(int lane, std::int32_t mode, std::int32_t arg, std::int32_t width) {
  const int segment = (warp_size - width) & 31;
  const int b = arg & 31;
  const int min_lane = lane & segment;
  const int max_lane = min_lane | (31 & ~segment);
  int source = lane;
  bool valid = true;
  switch (mode) {
  case mode_up:
    source = lane - b;
    valid = source >= min_lane;
    break;
  case mode_down:
    source = lane + b;
    valid = source <= max_lane;
    break;
  case mode_xor:
    source = lane ^ b;
    valid = source <= max_lane;
    break;
  default:
    source = min_lane | (b & ~segment);
    break;
  }
  return valid ? source : lane;
}

/// A 16-byte unit of shared memory: keeps the buffer 16-byte aligned.
struct alignas(16) shared_unit {
  unsigned char bytes[16];
};

/// One thread of a block, run as a fiber.
struct fiber_thread {
  raw_thread_ctx ctx{};
  fibers::stack stack;
  fibers::context context;
};

/// The lanes of one warp and the exchange (shuffle or ballot) they are in.
struct warp {
  int live = 0;              ///< lanes that have not exited
  int arrived = 0;           ///< lanes in the current exchange
  std::uint32_t present = 0; ///< bit i: lane i is in it
  std::uint64_t value[warp_size];
  std::int32_t mode[warp_size];
  std::int32_t arg[warp_size];
  std::int32_t width[warp_size];
  std::uint64_t result[warp_size];
};

/// Runs the blocks of raw kernels on one OS thread (see the file header).
class block_runner {
public:
  /// True while a launch on this OS thread uses it.
  bool busy = false;

  /// Runs block `index` of `k`'s launch over `grid` x `block`.
  void run(const raw_kernel &k, void **args, raw_dims grid, raw_dims block, raw_dims index, std::size_t shared_bytes);

  /// kiln_raw_syncthreads of the running thread.
  void syncthreads();
  /// kiln_raw_shfl / kiln_raw_ballot of the running thread.
  std::uint64_t exchange(std::uint64_t value, std::int32_t mode, std::int32_t arg, std::int32_t width);

private:
  unsigned char *shared(std::size_t bytes);
  void run_fibers(const raw_kernel &k, void **args, raw_dims grid, raw_dims block, raw_dims index,
                  unsigned char *shared);
  [[noreturn]] static void thread_main(void *thread);
  /// Suspends the running thread and resumes the next ready one (or the
  /// runner, when none is).
  void suspend();
  /// Ends the running thread (it returned or threw) and resumes the next.
  [[noreturn]] void finish();
  /// Completes the exchange of warp `w` (every live lane is in it) and
  /// makes its lanes ready, except `running` (the lane that goes on; -1:
  /// none).
  void complete_exchange(int w, int running);
  /// Completes the block barrier and makes its waiting threads ready.
  void release_block();
  void push_ready(int thread) {
    ready_[ready_tail_] = thread;
    if (++ready_tail_ == ready_.size())
      ready_tail_ = 0;
    ++ready_count_;
  }
  /// The next ready thread, or -1.
  int pop_ready() {
    if (ready_count_ == 0)
      return -1;
    const int t = ready_[ready_head_];
    if (++ready_head_ == ready_.size())
      ready_head_ = 0;
    --ready_count_;
    return t;
  }
  [[noreturn]] void throw_deadlock(raw_dims index) const;

  std::vector<shared_unit> shared_;
  std::vector<std::unique_ptr<fiber_thread>> threads_;
  std::vector<warp> warps_;
  std::vector<int> ready_; ///< FIFO ring of ready threads (each once at most)
  std::size_t ready_head_ = 0;
  std::size_t ready_tail_ = 0;
  std::size_t ready_count_ = 0;
  std::vector<int> block_waiters_; ///< threads suspended at syncthreads
  int threads_in_block_ = 0;
  int live_ = 0; ///< threads that have not exited
  int current_ = -1;
  const raw_kernel *kernel_ = nullptr;
  void **args_ = nullptr;
  std::exception_ptr error_; ///< the first exception a thread threw
  fibers::context main_;     ///< the OS thread's own stack
};

unsigned char *block_runner::shared(std::size_t bytes) {
  const std::size_t units = bytes / sizeof(shared_unit) + 1;
  if (shared_.size() < units)
    shared_.resize(units);
  return shared_.front().bytes;
}

void block_runner::run(const raw_kernel &k, void **args, raw_dims grid, raw_dims block, raw_dims index,
                       std::size_t shared_bytes) {
  unsigned char *memory = shared(shared_bytes);
  if (!k.host_block) {
    run_fibers(k, args, grid, block, index, memory);
    return;
  }
  raw_thread_ctx ctx{};
  ctx.block_idx[0] = index.x, ctx.block_idx[1] = index.y, ctx.block_idx[2] = index.z;
  ctx.block_dim[0] = block.x, ctx.block_dim[1] = block.y, ctx.block_dim[2] = block.z;
  ctx.grid_dim[0] = grid.x, ctx.grid_dim[1] = grid.y, ctx.grid_dim[2] = grid.z;
  ctx.shared = memory;
  ctx.scheduler = nullptr; // the one-block form never synchronizes
  k.host_block(args, &ctx);
}

void block_runner::run_fibers(const raw_kernel &k, void **args, raw_dims grid, raw_dims block, raw_dims index,
                              unsigned char *memory) {
  const int n = static_cast<int>(block.x * block.y * block.z);
  while (static_cast<int>(threads_.size()) < n)
    threads_.push_back(std::make_unique<fiber_thread>());
  const int num_warps = (n + warp_size - 1) / warp_size;
  if (static_cast<int>(warps_.size()) < num_warps)
    warps_.resize(static_cast<std::size_t>(num_warps));
  for (int w = 0; w < num_warps; ++w) {
    warps_[w].live = std::min(warp_size, n - w * warp_size);
    warps_[w].arrived = 0;
    warps_[w].present = 0;
  }
  ready_.resize(static_cast<std::size_t>(n));
  ready_head_ = ready_tail_ = ready_count_ = 0;
  block_waiters_.clear();
  block_waiters_.reserve(static_cast<std::size_t>(n));
  threads_in_block_ = live_ = n;
  kernel_ = &k;
  args_ = args;
  error_ = nullptr;

  for (int i = 0; i < n; ++i) {
    fiber_thread &t = *threads_[i];
    const std::uint32_t linear = static_cast<std::uint32_t>(i);
    t.ctx.thread_idx[0] = linear % block.x;
    t.ctx.thread_idx[1] = linear / block.x % block.y;
    t.ctx.thread_idx[2] = linear / (block.x * block.y);
    t.ctx.block_idx[0] = index.x, t.ctx.block_idx[1] = index.y, t.ctx.block_idx[2] = index.z;
    t.ctx.block_dim[0] = block.x, t.ctx.block_dim[1] = block.y, t.ctx.block_dim[2] = block.z;
    t.ctx.grid_dim[0] = grid.x, t.ctx.grid_dim[1] = grid.y, t.ctx.grid_dim[2] = grid.z;
    t.ctx.shared = memory;
    t.ctx.scheduler = this;
    t.context.prepare(t.stack, &block_runner::thread_main, &t);
    push_ready(i);
  }

  current_ = pop_ready();
  main_.switch_to(threads_[current_]->context);
  // Back on the OS thread's stack: every thread exited, or none can go on.
  if (live_ > 0)
    throw_deadlock(index);
  if (error_) {
    std::exception_ptr e = std::move(error_);
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void block_runner::thread_main(void *thread) {
  fiber_thread &t = *static_cast<fiber_thread *>(thread);
  block_runner &r = *static_cast<block_runner *>(t.ctx.scheduler);
  fibers::context::entered(r.main_);
  try {
    r.kernel_->host(r.args_, &t.ctx);
  } catch (...) {
    if (!r.error_)
      r.error_ = std::current_exception();
  }
  r.finish();
}

void block_runner::suspend() {
  const int self = current_;
  const int next = pop_ready();
  current_ = next;
  threads_[self]->context.switch_to(next >= 0 ? threads_[next]->context : main_);
}

void block_runner::finish() {
  const int self = current_;
  --live_;
  const int w = self / warp_size;
  warp &wp = warps_[w];
  --wp.live;
  if (wp.arrived > 0 && wp.arrived == wp.live)
    complete_exchange(w, -1);
  if (!block_waiters_.empty() && static_cast<int>(block_waiters_.size()) == live_)
    release_block();
  const int next = pop_ready();
  current_ = next;
  threads_[self]->context.exit_to(next >= 0 ? threads_[next]->context : main_);
}

void block_runner::release_block() {
  for (int t : block_waiters_)
    push_ready(t);
  block_waiters_.clear();
}

void block_runner::syncthreads() {
  if (static_cast<int>(block_waiters_.size()) + 1 == live_) {
    release_block(); // the last to arrive goes on
    return;
  }
  block_waiters_.push_back(current_);
  suspend();
}

std::uint64_t block_runner::exchange(std::uint64_t value, std::int32_t mode, std::int32_t arg, std::int32_t width) {
  const int w = current_ / warp_size;
  const int lane = current_ % warp_size;
  warp &wp = warps_[w];
  wp.value[lane] = value;
  wp.mode[lane] = mode;
  wp.arg[lane] = arg;
  wp.width[lane] = width;
  wp.present |= std::uint32_t{1} << lane;
  if (++wp.arrived == wp.live)
    complete_exchange(w, lane); // the last to arrive goes on
  else
    suspend();
  return wp.result[lane];
}

void block_runner::complete_exchange(int w, int running) {
  warp &wp = warps_[w];
  std::uint32_t ballot = 0;
  for (int lane = 0; lane < warp_size; ++lane)
    if ((wp.present >> lane & 1) && wp.mode[lane] == mode_ballot && wp.value[lane] != 0)
      ballot |= std::uint32_t{1} << lane;
  for (int lane = 0; lane < warp_size; ++lane) {
    if (!(wp.present >> lane & 1))
      continue;
    if (wp.mode[lane] == mode_ballot) {
      wp.result[lane] = ballot;
    } else {
      const int source = shuffle_source(lane, wp.mode[lane], wp.arg[lane], wp.width[lane]);
      wp.result[lane] = wp.value[(wp.present >> source & 1) ? source : lane];
    }
    if (lane != running)
      push_ready(w * warp_size + lane);
  }
  wp.arrived = 0;
  wp.present = 0;
}

void block_runner::throw_deadlock(raw_dims index) const {
  int in_warps = 0;
  for (int w = 0; w * warp_size < threads_in_block_; ++w)
    in_warps += warps_[w].arrived;
  throw kiln::error("kernel '" + std::string(kernel_->name ? kernel_->name : "<unnamed>") + "' cannot finish block (" +
                    std::to_string(index.x) + ", " + std::to_string(index.y) + ", " + std::to_string(index.z) +
                    ") on the host: " + std::to_string(block_waiters_.size()) +
                    " of its threads wait at syncthreads() and " + std::to_string(in_warps) +
                    " in a warp shuffle or ballot that the others never reach (every thread of a block, or of a "
                    "warp, must reach the same barriers; CUDA leaves this undefined)");
}

/// The OS thread's block_runner, created on its first launch; a launch made
/// while it is in use (from inside a kernel's host form) gets one of its own.
thread_local std::unique_ptr<block_runner> t_runner;

class runner_lease {
public:
  runner_lease() {
    if (!t_runner)
      t_runner = std::make_unique<block_runner>();
    if (t_runner->busy) {
      own_ = std::make_unique<block_runner>();
      runner_ = own_.get();
    } else {
      runner_ = t_runner.get();
    }
    runner_->busy = true;
  }
  ~runner_lease() { runner_->busy = false; }
  runner_lease(const runner_lease &) = delete;
  runner_lease &operator=(const runner_lease &) = delete;

  block_runner *operator->() const noexcept { return runner_; }

private:
  std::unique_ptr<block_runner> own_;
  block_runner *runner_ = nullptr;
};

block_runner &runner_of(raw_thread_ctx *ctx, const char *function) {
  if (!ctx || !ctx->scheduler) {
    // Generated code cannot unwind an exception: this is a kilnc bug.
    std::fprintf(stderr,
                 "kiln: %s called by a thread that the runtime did not start as a fiber (a raw kernel with a "
                 "one-block host form must not synchronize)\n",
                 function);
    std::abort();
  }
  return *static_cast<block_runner *>(ctx->scheduler);
}

} // namespace

void run_on_host(const raw_kernel &k, raw_dims grid, raw_dims block, std::size_t shared_bytes, void **args) {
  const std::int64_t gx = grid.x, gxy = gx * grid.y;
  const std::int64_t blocks = gxy * grid.z;
  parallel::parallel_for(blocks, 1, [&](std::int64_t begin, std::int64_t end) {
    runner_lease runner;
    for (std::int64_t b = begin; b < end; ++b) {
      const raw_dims index{static_cast<std::uint32_t>(b % gx), static_cast<std::uint32_t>(b % gxy / gx),
                           static_cast<std::uint32_t>(b / gxy)};
      runner->run(k, args, grid, block, index, shared_bytes);
    }
  });
}

} // namespace kiln::detail::raw

using kiln::detail::raw_thread_ctx;
using kiln::detail::raw::runner_of;

extern "C" void kiln_raw_syncthreads(raw_thread_ctx *ctx) { runner_of(ctx, "kiln_raw_syncthreads").syncthreads(); }

extern "C" std::uint64_t kiln_raw_shfl(raw_thread_ctx *ctx, std::uint64_t value, std::int32_t mode, std::int32_t arg,
                                       std::int32_t width) {
  return runner_of(ctx, "kiln_raw_shfl").exchange(value, mode & 3, arg, width);
}

extern "C" std::uint32_t kiln_raw_ballot(raw_thread_ctx *ctx, std::int32_t predicate) {
  return static_cast<std::uint32_t>(
      runner_of(ctx, "kiln_raw_ballot").exchange(predicate != 0, kiln::detail::raw::mode_ballot, 0, 32));
}
