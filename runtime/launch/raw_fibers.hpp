//===- runtime/launch/raw_fibers.hpp - Fibers for raw kernels' host threads ===//
//
// The threads of one block of a synchronizing raw kernel run on the host as
// fibers: execution contexts with stacks of their own that one OS thread
// switches between cooperatively (at syncthreads, shuffles and ballots).
// `stack` is a fiber's stack (mmap'd once, with a guard page, and reused for
// every block the owner runs); `context` saves and resumes an execution:
// a fiber's or the OS thread's own. Switching saves only the callee-saved
// registers and the stack pointer (x86-64 and aarch64 assembly; ucontext
// elsewhere) and tells AddressSanitizer and ThreadSanitizer about it.
// Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>

// KILN_FIBERS_USE_UCONTEXT, defined for the whole runtime, selects the
// portable switch everywhere (15 times slower: swapcontext makes a system
// call), for tools that follow ucontext only.
#if (defined(__x86_64__) || defined(__aarch64__)) && defined(__ELF__) && !defined(KILN_FIBERS_USE_UCONTEXT)
#define KILN_FIBERS_ASM 1
#else
#include <ucontext.h>
#endif

namespace kiln::detail::fibers {

/// A fiber's stack: `size()` usable bytes above an inaccessible guard page
/// (an overflow faults instead of corrupting the neighbouring stack).
class stack {
public:
  /// Maps a stack of default_size() bytes; throws out_of_memory when the
  /// system refuses.
  stack();
  ~stack();
  stack(const stack &) = delete;
  stack &operator=(const stack &) = delete;

  /// The lowest usable address.
  void *bottom() const noexcept { return bottom_; }
  std::size_t size() const noexcept { return size_; }

  /// Usable bytes of a stack: 64 KiB, 256 KiB under a sanitizer (whose
  /// instrumentation grows frames).
  static std::size_t default_size() noexcept;

private:
  void *mapping_ = nullptr;
  std::size_t mapping_size_ = 0;
  void *bottom_ = nullptr;
  std::size_t size_ = 0;
};

/// What a fiber runs. It must not return: it ends with context::exit_to.
using entry_fn = void (*)(void *arg);

/// A suspended execution: a fiber, or the OS thread's own stack (a default
/// constructed context, filled in when the thread switches away). Not
/// copyable: a suspended execution lives in one place.
class context {
public:
  /// The calling OS thread's (or fiber's) own execution, to switch back to.
  context() noexcept;
  ~context();
  context(const context &) = delete;
  context &operator=(const context &) = delete;

  /// Makes this context start `fn(arg)` on `s` when it is next switched to.
  /// A context prepared again forgets where it was (a fiber abandoned
  /// mid-way is simply restarted).
  void prepare(const stack &s, entry_fn fn, void *arg);

  /// Suspends the running execution into *this and resumes `to`; returns
  /// when something switches back to *this.
  void switch_to(context &to);

  /// Leaves the running execution (a fiber that is done) for good and
  /// resumes `to`.
  [[noreturn]] void exit_to(context &to);

  /// Must be the first call of an entry function: completes the switch
  /// into a fresh fiber. Records the bounds of the stack it came from into
  /// `from` when they are not known yet (so that sanitizers can follow a
  /// later switch back to it).
  static void entered(context &from) noexcept;

private:
#if KILN_FIBERS_ASM
  void *sp_ = nullptr; ///< the saved stack pointer; the registers lie above it
#else
  ucontext_t uc_{};
  entry_fn fn_ = nullptr;
  void *arg_ = nullptr;
  static void ucontext_entry();
#endif
  // For the sanitizers (unused without them).
  const void *stack_bottom_ = nullptr;          ///< the stack this context runs on
  std::size_t stack_size_ = 0;                  ///< 0: not known yet
  void *fake_stack_ = nullptr;                  ///< AddressSanitizer's, while suspended
  bool started_ = false;                        ///< prepared and not exited since
  [[maybe_unused]] void *tsan_fiber_ = nullptr; ///< ThreadSanitizer's fiber
  [[maybe_unused]] bool owns_tsan_fiber_ = false;
};

} // namespace kiln::detail::fibers
