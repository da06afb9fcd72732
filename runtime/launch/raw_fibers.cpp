//===- runtime/launch/raw_fibers.cpp - Fiber stacks and context switches --===//
//
// A switch is a call of kiln_fiber_switch(&from.sp, to.sp): it pushes the
// callee-saved registers on the running stack, stores the stack pointer,
// loads the other one and pops that context's registers; `ret` then resumes
// it where it called kiln_fiber_switch. Everything else (caller-saved
// registers) the compiler already spilled around the call. A fresh fiber's
// stack is laid out as if it had called kiln_fiber_switch from
// kiln_fiber_start, which calls the entry function with its argument (both
// kept in callee-saved registers of that frame). As in boost.context's
// fcontext, the floating-point control state (MXCSR, x87 control word, FPCR)
// is not switched: the threads of a block share it, and kernels do not
// change it. Shadow stacks (x86 CET) are not supported by this switch.
//
// Sanitizers: AddressSanitizer must know the bounds of the stack it runs on
// (exceptions unwinding, fake stacks for use-after-return), so every switch
// is bracketed by __sanitizer_start_switch_fiber and
// __sanitizer_finish_switch_fiber; ThreadSanitizer gets a fiber per context
// and __tsan_switch_to_fiber before each switch (which orders the fibers'
// accesses, as the cooperative switch does).
//
//===----------------------------------------------------------------------===//
#include "runtime/launch/raw_fibers.hpp"

#include "kiln/error.hpp"

#include <cstdint>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define KILN_FIBERS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_FIBERS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define KILN_FIBERS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KILN_FIBERS_TSAN 1
#endif
#endif

#if KILN_FIBERS_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if KILN_FIBERS_TSAN
#include <sanitizer/tsan_interface.h>
#endif

#if KILN_FIBERS_ASM
extern "C" {
/// Saves the callee-saved registers on the running stack and its stack
/// pointer to *save_sp, then resumes the context whose stack pointer is
/// new_sp.
void kiln_fiber_switch(void **save_sp, void *new_sp);
/// Where a fresh fiber starts: calls entry(arg) from the registers its
/// initial frame loads (never returns).
void kiln_fiber_start();
}

#if defined(__x86_64__)
// Frame (from the saved stack pointer up): r15 r14 r13 r12 rbx rbp, return
// address. A fresh fiber: r13 = entry, r12 = arg, return to
// kiln_fiber_start with the stack 16-byte aligned there.
asm(R"(
  .text
  .p2align 4
  .globl kiln_fiber_switch
  .hidden kiln_fiber_switch
  .type kiln_fiber_switch, @function
kiln_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size kiln_fiber_switch, .-kiln_fiber_switch

  .p2align 4
  .globl kiln_fiber_start
  .hidden kiln_fiber_start
  .type kiln_fiber_start, @function
kiln_fiber_start:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size kiln_fiber_start, .-kiln_fiber_start
)");
#elif defined(__aarch64__)
// Frame (160 bytes from the saved stack pointer): x19..x28, x29, x30 (the
// return address), d8..d15. A fresh fiber: x19 = arg, x20 = entry, x30 =
// kiln_fiber_start.
asm(R"(
  .text
  .p2align 4
  .globl kiln_fiber_switch
  .hidden kiln_fiber_switch
  .type kiln_fiber_switch, %function
kiln_fiber_switch:
  sub sp, sp, #160
  stp x19, x20, [sp, #0]
  stp x21, x22, [sp, #16]
  stp x23, x24, [sp, #32]
  stp x25, x26, [sp, #48]
  stp x27, x28, [sp, #64]
  stp x29, x30, [sp, #80]
  stp d8, d9, [sp, #96]
  stp d10, d11, [sp, #112]
  stp d12, d13, [sp, #128]
  stp d14, d15, [sp, #144]
  mov x9, sp
  str x9, [x0]
  mov sp, x1
  ldp x19, x20, [sp, #0]
  ldp x21, x22, [sp, #16]
  ldp x23, x24, [sp, #32]
  ldp x25, x26, [sp, #48]
  ldp x27, x28, [sp, #64]
  ldp x29, x30, [sp, #80]
  ldp d8, d9, [sp, #96]
  ldp d10, d11, [sp, #112]
  ldp d12, d13, [sp, #128]
  ldp d14, d15, [sp, #144]
  add sp, sp, #160
  ret
  .size kiln_fiber_switch, .-kiln_fiber_switch

  .p2align 4
  .globl kiln_fiber_start
  .hidden kiln_fiber_start
  .type kiln_fiber_start, %function
kiln_fiber_start:
  mov x0, x19
  blr x20
  brk #0
  .size kiln_fiber_start, .-kiln_fiber_start
)");
#endif
#endif // KILN_FIBERS_ASM

namespace kiln::detail::fibers {

//===----------------------------------------------------------------------===//
// Stacks
//===----------------------------------------------------------------------===//

std::size_t stack::default_size() noexcept {
#if KILN_FIBERS_ASAN || KILN_FIBERS_TSAN
  return 256 * 1024;
#else
  return 64 * 1024;
#endif
}

stack::stack() {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  size_ = (default_size() + page - 1) / page * page;
  mapping_size_ = size_ + page;
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
  flags |= MAP_NORESERVE; // pages are committed as the fiber touches them
#endif
#ifdef MAP_STACK
  flags |= MAP_STACK;
#endif
  void *p = mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED)
    throw out_of_memory("out of memory mapping " + std::to_string(mapping_size_) +
                        " bytes for the stack of a raw kernel's host thread");
  mapping_ = p;
  // The guard page at the low end: an overflowing fiber faults. Without it
  // (mprotect refused) the stack still works.
  (void)mprotect(p, page, PROT_NONE);
  bottom_ = static_cast<char *>(p) + page;
}

stack::~stack() { munmap(mapping_, mapping_size_); }

//===----------------------------------------------------------------------===//
// Contexts
//===----------------------------------------------------------------------===//

context::context() noexcept {
#if KILN_FIBERS_TSAN
  tsan_fiber_ = __tsan_get_current_fiber();
#endif
}

context::~context() {
#if KILN_FIBERS_TSAN
  if (owns_tsan_fiber_)
    __tsan_destroy_fiber(tsan_fiber_);
#endif
}

void context::prepare(const stack &s, entry_fn fn, void *arg) {
#if KILN_FIBERS_ASAN
  // A fiber abandoned mid-way (a deadlocked block) left its frames' redzones
  // poisoned; the new one starts on a clean stack.
  if (started_)
    __asan_unpoison_memory_region(s.bottom(), s.size());
#endif
#if KILN_FIBERS_TSAN
  if (!owns_tsan_fiber_) {
    tsan_fiber_ = __tsan_create_fiber(0);
    owns_tsan_fiber_ = true;
  }
#endif
  stack_bottom_ = s.bottom();
  stack_size_ = s.size();
  fake_stack_ = nullptr;
  started_ = true;
#if KILN_FIBERS_ASM
  const std::uintptr_t top = (reinterpret_cast<std::uintptr_t>(s.bottom()) + s.size()) & ~std::uintptr_t{15};
#if defined(__x86_64__)
  // r15 r14 r13 r12 rbx rbp ret, then 16 bytes so that kiln_fiber_start
  // runs with the stack 16-byte aligned (its call pushes the return address).
  void **frame = reinterpret_cast<void **>(top - 72);
  for (int i = 0; i < 9; ++i)
    frame[i] = nullptr;
  frame[2] = reinterpret_cast<void *>(fn);
  frame[3] = arg;
  frame[6] = reinterpret_cast<void *>(&kiln_fiber_start);
#elif defined(__aarch64__)
  // x19..x28, x29 (0: the end of the frame chain), x30, d8..d15.
  void **frame = reinterpret_cast<void **>(top - 160);
  for (int i = 0; i < 20; ++i)
    frame[i] = nullptr;
  frame[0] = arg;
  frame[1] = reinterpret_cast<void *>(fn);
  frame[11] = reinterpret_cast<void *>(&kiln_fiber_start);
#endif
  sp_ = frame;
#else
  getcontext(&uc_);
  uc_.uc_stack.ss_sp = s.bottom();
  uc_.uc_stack.ss_size = s.size();
  uc_.uc_link = nullptr;
  makecontext(&uc_, &context::ucontext_entry, 0);
  fn_ = fn;
  arg_ = arg;
#endif
}

#if !KILN_FIBERS_ASM
namespace {
/// The context being switched to: a fresh one reads its entry from it.
thread_local context *t_resuming = nullptr;
} // namespace

void context::ucontext_entry() {
  context *c = t_resuming;
  c->fn_(c->arg_);
}
#endif

void context::switch_to(context &to) {
#if KILN_FIBERS_ASAN
  __sanitizer_start_switch_fiber(&fake_stack_, to.stack_bottom_, to.stack_size_);
#endif
#if KILN_FIBERS_TSAN
  __tsan_switch_to_fiber(to.tsan_fiber_, 0);
#endif
#if KILN_FIBERS_ASM
  kiln_fiber_switch(&sp_, to.sp_);
#else
  t_resuming = &to;
  swapcontext(&uc_, &to.uc_);
#endif
#if KILN_FIBERS_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_, nullptr, nullptr);
#endif
}

void context::exit_to(context &to) {
  started_ = false;
#if KILN_FIBERS_ASAN
  // Null: this fiber never resumes, so AddressSanitizer frees its fake stack.
  __sanitizer_start_switch_fiber(nullptr, to.stack_bottom_, to.stack_size_);
#endif
#if KILN_FIBERS_TSAN
  __tsan_switch_to_fiber(to.tsan_fiber_, 0);
#endif
#if KILN_FIBERS_ASM
  // The dead stack pointer goes to sp_ (never read again before prepare):
  // not to a local, which under AddressSanitizer lives in the fake stack
  // just freed.
  kiln_fiber_switch(&sp_, to.sp_);
#else
  t_resuming = &to;
  setcontext(&to.uc_);
#endif
  __builtin_unreachable();
}

void context::entered([[maybe_unused]] context &from) noexcept {
#if KILN_FIBERS_ASAN
  const void *bottom = nullptr;
  std::size_t size = 0;
  __sanitizer_finish_switch_fiber(nullptr, &bottom, &size);
  if (from.stack_size_ == 0) {
    from.stack_bottom_ = bottom;
    from.stack_size_ = size;
  }
#endif
}

} // namespace kiln::detail::fibers
