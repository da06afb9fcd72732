//===- runtime/parallel/thread_pool.cpp - The host backend's threads ------===//
//
// One process-wide pool of num_threads() - 1 workers, started on the first
// parallel_for that needs them. It runs one loop (a "job") at a time: the
// caller publishes it, wakes as many workers as it takes and runs chunks
// itself. A job is cut into up to 4 chunks a thread (never shorter than the
// grain), which every participant claims from one atomic counter, so a worker
// that wakes late, or is descheduled, costs nothing but its share. Idle
// workers spin for 100 us (pause, then yield now and then, for machines with
// more threads than cores) and then sleep on a condition variable:
// back-to-back loops, such as one host kernel after another, find them awake.
// A worker that a job did not take (it had its threads) sleeps at once, and
// a caller wakes only the sleepers it needs beyond the spinning workers, so
// small loops on a big machine keep only their own threads busy.
//
// Protocol. `epoch_` is odd while a job is open and even when none is; only
// the caller holding `dispatch_mutex_` writes it and the job's fields. A
// worker that sees a new odd epoch enters (`users_` + 1), checks the epoch
// again and only then reads the fields and takes a slot (the first
// `threads - 1` workers in take part); the caller closes the job (epoch even)
// once every chunk is done and, before it writes the next job's fields, waits
// until no worker is inside (`users_` == 0). The sequentially consistent
// enter-then-check and close-then-check make the fields race-free without a
// lock. When the caller has to wait for chunks it sleeps on its own condition
// variable, woken by the worker that finishes the last chunk.
//
// Concurrent callers: a caller that finds the pool busy (try_lock fails) runs
// its loop inline rather than waiting, so no caller ever blocks on another,
// and a loop body that waits for another thread's loop cannot deadlock.
//
// Lifetime. The pool is created with `new` and never freed: it is only
// stopped. A handler that std::atexit registers when the first pool is
// created (so it runs before the destructors of statics constructed before
// that) stops the workers and joins them; from then on parallel_for runs
// inline, which is what a static destructor calling it gets. Not freeing the
// pool keeps a user thread that is still inside parallel_for during exit
// safe: it finishes its loop alone. exit() called from a loop body on a
// worker detaches that worker instead of joining it. In a child of fork()
// (which has no workers) the pool is abandoned, never touched again, and the
// next parallel_for starts a new one.
//
//===----------------------------------------------------------------------===//
#include "runtime/parallel/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <pthread.h>

namespace kiln::detail::parallel {
namespace {

/// Chunks a participating thread gets, on average, when `grain` allows.
constexpr std::int64_t chunks_per_thread = 4;
/// How long an idle worker spins for a new job before it sleeps.
constexpr std::chrono::microseconds worker_spin{100};
/// How long a caller spins for the last chunks before it sleeps.
constexpr std::chrono::microseconds caller_spin{100};

/// True on a worker for its whole life, and on a caller while it runs a job:
/// parallel_for then runs inline.
thread_local bool t_in_parallel_region = false;

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

/// Spins until `ready()` or for `budget`, yielding the CPU now and then (so a
/// machine with more threads than cores makes progress); returns whether
/// `ready()` became true.
template <class Ready>
bool spin_until(Ready &&ready, std::chrono::microseconds budget) {
  auto deadline = std::chrono::steady_clock::now() + budget;
  for (unsigned i = 1;; ++i) {
    if (ready())
      return true;
    cpu_relax();
    if (i % 64 == 0) {
      if (std::chrono::steady_clock::now() >= deadline)
        return ready();
      std::this_thread::yield();
    }
  }
}

/// Sets t_in_parallel_region for a scope.
class region_scope {
public:
  region_scope() { t_in_parallel_region = true; }
  ~region_scope() { t_in_parallel_region = false; }
  region_scope(const region_scope &) = delete;
  region_scope &operator=(const region_scope &) = delete;
};

class pool {
public:
  explicit pool(int workers);
  pool(const pool &) = delete;
  pool &operator=(const pool &) = delete;

  /// Threads a job can use: the workers that started and the caller.
  int size() const { return static_cast<int>(workers_.size()) + 1; }

  /// Runs `fn` over [0, count) on `threads` threads (2 <= threads <= size(),
  /// count / grain >= threads) and returns true; or returns false at once,
  /// running nothing, when another caller has the pool.
  bool try_run(std::int64_t count, std::int64_t grain, int threads,
               const range_fn &fn);

  /// Stops and joins the workers (the calling one, if it is one, is
  /// detached). Jobs after this run on their caller alone.
  void stop();

  /// The next pool in the list of stopped or abandoned ones.
  pool *next_retired = nullptr;

private:
  void worker_main();
  /// Waits for an open job newer than `seen`, spinning first if `spin`;
  /// returns its epoch, or 0 when stopped.
  std::uint64_t wait_for_job(std::uint64_t seen, bool spin);
  /// Claims and runs chunks of the open job until none is left.
  void run_chunks();
  void wait_for_chunks();

  std::vector<std::thread> workers_;
  std::mutex dispatch_mutex_;

  // Written by the caller while no worker is inside (see the file header).
  const range_fn *fn_ = nullptr;
  std::int64_t chunks_ = 0;
  std::int64_t chunk_size_ = 0; // count / chunks_
  std::int64_t long_chunks_ = 0; // count % chunks_: these get one more
  std::exception_ptr error_;     // the first exception, set once a job

  alignas(64) std::atomic<std::uint64_t> epoch_{0};
  std::atomic<bool> stop_{false};
  alignas(64) std::atomic<int> users_{0};
  std::atomic<int> slots_{0}; // workers the open job still takes
  alignas(64) std::atomic<std::int64_t> next_chunk_{0};
  alignas(64) std::atomic<std::int64_t> pending_{0};
  std::atomic<bool> failed_{false};
  alignas(64) std::atomic<int> spinning_{0}; // workers spinning for a job
  std::atomic<int> sleepers_{0};
  std::mutex wake_mutex_;
  std::condition_variable wake_cv_;
  std::atomic<bool> caller_sleeping_{false};
  std::mutex done_mutex_;
  std::condition_variable done_cv_;
};

pool::pool(int workers) {
  workers_.reserve(static_cast<std::size_t>(std::max(workers, 0)));
  for (int i = 0; i < workers; ++i) {
    try {
      workers_.emplace_back([this] { worker_main(); });
    } catch (const std::system_error &) {
      break; // out of threads: run with the ones that started
    }
    pthread_setname_np(workers_.back().native_handle(), "kiln-worker");
  }
}

bool pool::try_run(std::int64_t count, std::int64_t grain, int threads,
                   const range_fn &fn) {
  std::unique_lock<std::mutex> lock(dispatch_mutex_, std::try_to_lock);
  if (!lock.owns_lock())
    return false;
  region_scope region;

  // Workers may still be inside the previous (closed) job, finding nothing.
  while (users_.load() != 0)
    spin_until([&] { return users_.load() == 0; }, worker_spin);

  fn_ = &fn;
  chunks_ = std::min(count / grain, threads * chunks_per_thread);
  chunk_size_ = count / chunks_;
  long_chunks_ = count % chunks_;
  error_ = nullptr;
  slots_.store(threads - 1, std::memory_order_relaxed);
  failed_.store(false, std::memory_order_relaxed);
  next_chunk_.store(0, std::memory_order_relaxed);
  pending_.store(chunks_, std::memory_order_relaxed);
  std::uint64_t open = epoch_.load(std::memory_order_relaxed) + 1;
  epoch_.store(open); // publishes the fields above
  // Wake the workers the job takes beyond those spinning, no more: a small
  // job on a big machine does not wake every core. (A worker that stops
  // spinning now counts as a sleeper here, or sees the job itself.)
  int wanted = threads - 1 - spinning_.load();
  int sleeping = sleepers_.load();
  if (wanted > 0 && sleeping > 0) {
    { std::lock_guard<std::mutex> wake(wake_mutex_); }
    if (wanted >= sleeping)
      wake_cv_.notify_all();
    else
      for (int i = 0; i < wanted; ++i)
        wake_cv_.notify_one();
  }

  run_chunks();
  wait_for_chunks();
  epoch_.store(open + 1); // closed
  std::exception_ptr error = std::move(error_);
  error_ = nullptr;
  lock.unlock();
  if (error)
    std::rethrow_exception(error);
  return true;
}

void pool::run_chunks() {
  for (;;) {
    std::int64_t i = next_chunk_.fetch_add(1, std::memory_order_relaxed);
    if (i >= chunks_)
      return;
    if (!failed_.load(std::memory_order_relaxed)) {
      std::int64_t begin = i * chunk_size_ + std::min(i, long_chunks_);
      std::int64_t end = begin + chunk_size_ + (i < long_chunks_ ? 1 : 0);
      try {
        (*fn_)(begin, end);
      } catch (...) {
        if (!failed_.exchange(true))
          error_ = std::current_exception();
      }
    }
    if (pending_.fetch_sub(1) == 1 && caller_sleeping_.load()) {
      std::lock_guard<std::mutex> done(done_mutex_);
      done_cv_.notify_one();
    }
  }
}

void pool::wait_for_chunks() {
  auto done = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  if (spin_until(done, caller_spin))
    return;
  std::unique_lock<std::mutex> lock(done_mutex_);
  caller_sleeping_.store(true);
  while (pending_.load() != 0)
    done_cv_.wait(lock);
  caller_sleeping_.store(false, std::memory_order_relaxed);
}

std::uint64_t pool::wait_for_job(std::uint64_t seen, bool spin) {
  std::uint64_t epoch = 0;
  auto ready = [&] {
    epoch = epoch_.load();
    return stop_.load() || ((epoch & 1) != 0 && epoch != seen);
  };
  if (spin) {
    spinning_.fetch_add(1);
    if (spin_until(ready, worker_spin)) {
      spinning_.fetch_sub(1);
      return stop_.load() ? 0 : epoch;
    }
  }
  std::unique_lock<std::mutex> lock(wake_mutex_);
  // A sleeper first, then no longer a spinner, then the last look: a caller
  // that publishes a job meanwhile either counts this worker as asleep (and
  // wakes it) or the look finds the job.
  sleepers_.fetch_add(1);
  if (spin)
    spinning_.fetch_sub(1);
  while (!ready())
    wake_cv_.wait(lock);
  sleepers_.fetch_sub(1);
  return stop_.load() ? 0 : epoch;
}

void pool::worker_main() {
  t_in_parallel_region = true;
  std::uint64_t seen = 0;
  bool spin = true;
  while (std::uint64_t epoch = wait_for_job(seen, spin)) {
    seen = epoch;
    users_.fetch_add(1);
    if (epoch_.load() == epoch) {
      // Not taken (the job had enough workers): sleep at once next time
      // rather than spin, since jobs like it will not need this worker.
      spin = slots_.fetch_sub(1) > 0;
      if (spin)
        run_chunks();
    } else {
      spin = true; // too late for that job: the next may come soon
    }
    users_.fetch_sub(1, std::memory_order_release);
  }
}

void pool::stop() {
  stop_.store(true);
  {
    std::lock_guard<std::mutex> wake(wake_mutex_);
  }
  wake_cv_.notify_all();
  for (std::thread &t : workers_) {
    if (t.get_id() == std::this_thread::get_id())
      t.detach(); // exit() called from a loop body on this worker
    else if (t.joinable())
      t.join();
  }
}

// The process's pool. Constant-initialized globals whose destruction does
// nothing (std::mutex's is trivial in libstdc++), so that they still work
// during static destruction.
constinit std::mutex g_create_mutex;
constinit std::atomic<pool *> g_pool{nullptr};
constinit std::atomic<bool> g_shut_down{false};
constinit bool g_hooks_installed = false; // under g_create_mutex
/// Stopped and abandoned pools: never freed (a thread may still be in one),
/// kept reachable for leak checkers.
constinit pool *g_retired = nullptr;

void retire(pool *p) {
  if (!p)
    return;
  p->next_retired = g_retired;
  g_retired = p;
}

void shut_down_at_exit() {
  pool *p = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_create_mutex);
    g_shut_down.store(true);
    p = g_pool.exchange(nullptr);
    retire(p);
  }
  if (p)
    p->stop();
}

// fork(): no creation in flight while forking; the child abandons the pool
// (its workers do not exist there) and starts a new one when it needs one.
void before_fork() { g_create_mutex.lock(); }
void after_fork_in_parent() { g_create_mutex.unlock(); }
void after_fork_in_child() {
  g_create_mutex.unlock();
  retire(g_pool.exchange(nullptr));
}

/// The pool, created on first use; null after shutdown at exit.
pool *get_pool() {
  if (pool *p = g_pool.load(std::memory_order_acquire))
    return p;
  if (g_shut_down.load())
    return nullptr;
  std::lock_guard<std::mutex> lock(g_create_mutex);
  if (g_shut_down.load())
    return nullptr;
  pool *p = g_pool.load(std::memory_order_relaxed);
  if (!p) {
    if (!g_hooks_installed) {
      g_hooks_installed = true;
      std::atexit(shut_down_at_exit);
      pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
    }
    p = new pool(num_threads() - 1);
    g_pool.store(p, std::memory_order_release);
  }
  return p;
}

} // namespace

int parse_num_threads(const char *env, int hardware) noexcept {
  int fallback = std::max(hardware, 1);
  if (!env)
    return fallback;
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
           c == '\v';
  };
  const char *p = env;
  while (is_space(*p))
    ++p;
  if (*p == '+')
    ++p;
  if (*p < '0' || *p > '9')
    return fallback;
  long long value = 0;
  for (; *p >= '0' && *p <= '9'; ++p) {
    value = value * 10 + (*p - '0');
    if (value > max_num_threads)
      return fallback;
  }
  while (is_space(*p))
    ++p;
  if (*p != '\0' || value < 1)
    return fallback;
  return static_cast<int>(value);
}

int num_threads() {
  static const int n = [] {
    unsigned hw = std::thread::hardware_concurrency();
    int hardware = static_cast<int>(std::min<unsigned>(hw, 1u << 20));
    return parse_num_threads(std::getenv("KILN_NUM_THREADS"), hardware);
  }();
  return n;
}

void run_parallel(std::int64_t count, std::int64_t grain, int max_threads,
                  range_fn fn) {
  grain = std::max<std::int64_t>(grain, 1);
  int threads = std::min(max_threads, num_threads());
  if (count > grain && threads > 1 && !t_in_parallel_region) {
    if (pool *p = get_pool()) {
      threads = static_cast<int>(
          std::min<std::int64_t>({threads, p->size(), count / grain}));
      if (threads > 1 && p->try_run(count, grain, threads, fn))
        return;
    }
  }
  fn(0, count);
}

} // namespace kiln::detail::parallel
