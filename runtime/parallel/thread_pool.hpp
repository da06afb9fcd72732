//===- runtime/parallel/thread_pool.hpp - The host backend's threads ------===//
//
// num_threads() and parallel_for(count, grain, fn): [0, count) split into
// contiguous ranges that a lazily started pool of worker threads and the
// calling thread run together. Internal to the runtime (the host launcher and
// host reductions use it). The rules are in docs/runtime-threads.md; the
// design is described in thread_pool.cpp.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

namespace kiln::detail::parallel {

/// The largest thread count KILN_NUM_THREADS may ask for.
inline constexpr int max_num_threads = 4096;

/// The thread count for KILN_NUM_THREADS=`env` on a machine with `hardware`
/// hardware threads: `env` when it is a decimal integer in [1,
/// max_num_threads] (surrounding spaces and a leading '+' allowed), else
/// max(hardware, 1). A null, empty or invalid `env` ("0", "-2", "four",
/// "3x", "99999") is ignored: the default applies.
int parse_num_threads(const char *env, int hardware) noexcept;

/// The number of threads the host backend uses, the calling thread included:
/// parse_num_threads(getenv("KILN_NUM_THREADS"),
/// std::thread::hardware_concurrency()), read once, on first use.
int num_threads();

/// A non-owning reference to a callable `void(std::int64_t, std::int64_t)`:
/// two pointers, no allocation. The callable must outlive the reference.
class range_fn {
public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, range_fn> &&
             std::is_object_v<std::remove_reference_t<F>> &&
             std::is_invocable_v<F &, std::int64_t, std::int64_t>)
  range_fn(F &&f) noexcept // NOLINT(google-explicit-constructor)
      : object_(const_cast<void *>(
            static_cast<const void *>(std::addressof(f)))),
        call_(&call<std::remove_reference_t<F>>) {}

  void operator()(std::int64_t begin, std::int64_t end) const {
    call_(object_, begin, end);
  }

private:
  template <class F>
  static void call(void *object, std::int64_t begin, std::int64_t end) {
    (*static_cast<F *>(object))(begin, end);
  }

  void *object_;
  void (*call_)(void *, std::int64_t, std::int64_t);
};

/// The out-of-line part of parallel_for, for count > max(grain, 0): runs
/// `fn` over ranges of [0, count) on at most `max_threads` threads.
void run_parallel(std::int64_t count, std::int64_t grain, int max_threads,
                  range_fn fn);

/// Calls `fn(begin, end)` over disjoint contiguous ranges that cover [0,
/// count) exactly once, each range at least `grain` long (a grain below 1
/// counts as 1), on up to `max_threads` threads (clamped to [1,
/// num_threads()]); the calling thread takes part. `fn` may run concurrently
/// on several threads (on disjoint ranges), in no particular order. Nothing
/// is called when count <= 0; a range is never empty.
///
/// Runs inline, as one call fn(0, count) on the calling thread, when count <=
/// grain, when max_threads or num_threads() is 1, when called from inside
/// `fn` of another parallel_for (nested loops run inline: no deadlock), when
/// another thread is using the pool at that moment (concurrent callers do not
/// wait for each other), and during static destruction once the pool has
/// been shut down.
///
/// If `fn` throws, ranges not yet started are skipped, the ranges already
/// running finish, and then the first exception thrown is rethrown here; the
/// pool stays usable.
template <class F>
void parallel_for_limited(std::int64_t count, std::int64_t grain,
                          int max_threads, F &&fn) {
  if (count <= 0)
    return;
  if (count <= grain || max_threads <= 1) {
    fn(std::int64_t{0}, count);
    return;
  }
  if constexpr (std::is_function_v<std::remove_reference_t<F>>) {
    auto *f = &fn;
    run_parallel(count, grain, max_threads, range_fn(f));
  } else {
    run_parallel(count, grain, max_threads, range_fn(fn));
  }
}

/// parallel_for_limited on every thread of num_threads(): the host backend's
/// loop over elements (or blocks of them).
template <class F>
void parallel_for(std::int64_t count, std::int64_t grain, F &&fn) {
  parallel_for_limited(count, grain, max_num_threads, fn);
}

} // namespace kiln::detail::parallel
