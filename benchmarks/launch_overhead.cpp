//===- benchmarks/launch_overhead.cpp - Where the time of a small call goes -===//
//
// The host side of one fused call, taken apart (issue 11, small calls):
//
//  1. launch_elementwise on 1000 float32 elements (out = a * x + y): checks,
//     output allocation from the pool, layout, and the launch (a host call, or
//     cuLaunchKernel of a small PTX kernel), back to back. Runs on the current
//     device (KILN_DEVICE=host|cuda:N).
//  2. On a GPU, for 2^20 float32 (`out = x * a + 1`, a vectorized `_contig`
//     kernel in PTX, the size of benchmarks/elementwise.cpp's GELU row):
//     - the driver calls one launch_elementwise makes (counted by wrapping
//       the runtime's driver table), and those of event::record;
//     - host microseconds of each part: a bare cuLaunchKernel with prepacked
//       parameters (the floor), launch_elementwise into a given output,
//       launch_elementwise allocating its output (what call_fused does), a
//       pool allocation, event::record, cuCtxGetCurrent;
//     - event-timed single calls (record, one call, record, synchronize:
//       bench::median_ms) of the same, on an idle GPU, and queued behind a
//       long kernel (the device time of the small kernel alone);
//     - the bare launch on other streams and with other grids.
//
// Prints one line per figure; the first line is the summary of part 1.
//
//===----------------------------------------------------------------------===//
#include "bench.hpp"

#include "kiln/detail/fused.hpp"
#include "runtime/cuda/driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <vector>

namespace {

using kiln::array_base;
using kiln::dtype;
using i64 = std::int64_t;
using clk = std::chrono::steady_clock;

/// The host `_contig` variant: parameters as fused.hpp's ABI (R = 1).
void saxpy_contig_host(void **args) {
  const float *x = *static_cast<float **>(args[1]);
  const float *y = *static_cast<float **>(args[6]);
  float *out = *static_cast<float **>(args[11]);
  const i64 n = *static_cast<i64 *>(args[13]);
  const float a = *static_cast<float *>(args[15]);
  for (i64 i = 0; i < n; ++i)
    out[i] = a * x[i] + y[i];
}

/// The GPU `_contig` variant, grid-stride, scalar loads (offsets are 0).
const char *const saxpy_ptx = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry bench_saxpy_contig(
  .param .u64 p_xa, .param .u64 p_x, .param .u64 p_xo, .param .u64 p_xn, .param .u64 p_xs,
  .param .u64 p_ya, .param .u64 p_y, .param .u64 p_yo, .param .u64 p_yn, .param .u64 p_ys,
  .param .u64 p_oa, .param .u64 p_o, .param .u64 p_oo, .param .u64 p_on, .param .u64 p_os,
  .param .f32 p_a)
{
  .reg .pred %p<2>;
  .reg .f32 %f<4>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [p_x];
  ld.param.u64 %rd2, [p_y];
  ld.param.u64 %rd3, [p_o];
  ld.param.u64 %rd4, [p_on];
  ld.param.f32 %f1, [p_a];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd5, %r1, %r2;
  cvt.u64.u32 %rd6, %r3;
  add.s64 %rd5, %rd5, %rd6;
  mul.wide.u32 %rd7, %r4, %r2;
loop:
  setp.ge.s64 %p1, %rd5, %rd4;
  @%p1 bra done;
  shl.b64 %rd8, %rd5, 2;
  add.s64 %rd9, %rd1, %rd8;
  add.s64 %rd10, %rd2, %rd8;
  add.s64 %rd11, %rd3, %rd8;
  ld.f32 %f2, [%rd9];
  ld.f32 %f3, [%rd10];
  fma.rn.f32 %f2, %f1, %f2, %f3;
  st.f32 [%rd11], %f2;
  add.s64 %rd5, %rd5, %rd7;
  bra loop;
done:
  ret;
}
)";

const dtype saxpy_dtypes[] = {dtype::float32, dtype::float32, dtype::float32};
const kiln::detail::fused_kernel saxpy_kernel = {
    "bench_saxpy", saxpy_ptx, nullptr, 0, saxpy_contig_host, {nullptr, nullptr, nullptr, nullptr}, 2, 1, 1,
    saxpy_dtypes, 1};

/// `out = x * a + 1` on the host (`_contig`).
void scale_contig_host(void **args) {
  const float *x = *static_cast<float **>(args[1]);
  float *out = *static_cast<float **>(args[6]);
  const i64 n = *static_cast<i64 *>(args[8]);
  const float a = *static_cast<float *>(args[10]);
  for (i64 i = 0; i < n; ++i)
    out[i] = x[i] * a + 1.0f;
}

/// `out = x * a + 1`, `_contig` as kilnc emits it for float32: 16-byte vector
/// accesses grid-stride over whole vectors, then the tail element by element.
const char *const scale_ptx = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry bench_scale_contig(
  .param .u64 p_xa, .param .u64 p_x, .param .u64 p_xo, .param .u64 p_xn, .param .u64 p_xs,
  .param .u64 p_oa, .param .u64 p_o, .param .u64 p_oo, .param .u64 p_on, .param .u64 p_os,
  .param .f32 p_a)
{
  .reg .pred %p<3>;
  .reg .f32 %f<10>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [p_x];
  ld.param.u64 %rd3, [p_o];
  ld.param.u64 %rd4, [p_on];
  ld.param.f32 %f1, [p_a];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd5, %r1, %r2;
  cvt.u64.u32 %rd6, %r3;
  add.s64 %rd5, %rd5, %rd6;
  mul.wide.u32 %rd7, %r4, %r2;
  shr.s64 %rd12, %rd4, 2;
  mov.u64 %rd13, %rd5;
vloop:
  setp.ge.s64 %p1, %rd13, %rd12;
  @%p1 bra tail;
  shl.b64 %rd8, %rd13, 4;
  add.s64 %rd9, %rd1, %rd8;
  add.s64 %rd10, %rd3, %rd8;
  ld.global.v4.f32 {%f2, %f3, %f4, %f5}, [%rd9];
  fma.rn.f32 %f2, %f2, %f1, 0f3F800000;
  fma.rn.f32 %f3, %f3, %f1, 0f3F800000;
  fma.rn.f32 %f4, %f4, %f1, 0f3F800000;
  fma.rn.f32 %f5, %f5, %f1, 0f3F800000;
  st.global.v4.f32 [%rd10], {%f2, %f3, %f4, %f5};
  add.s64 %rd13, %rd13, %rd7;
  bra vloop;
tail:
  shl.b64 %rd14, %rd12, 2;
  add.s64 %rd13, %rd14, %rd5;
tloop:
  setp.ge.s64 %p2, %rd13, %rd4;
  @%p2 bra done;
  shl.b64 %rd8, %rd13, 2;
  add.s64 %rd9, %rd1, %rd8;
  add.s64 %rd10, %rd3, %rd8;
  ld.global.f32 %f2, [%rd9];
  fma.rn.f32 %f2, %f2, %f1, 0f3F800000;
  st.global.f32 [%rd10], %f2;
  add.s64 %rd13, %rd13, %rd7;
  bra tloop;
done:
  ret;
}
)";

/// One thread that waits `ns` nanoseconds of the GPU's global timer: a long
/// kernel that moves no memory (the L2 stays as the small calls left it).
const char *const spin_ptx = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry bench_spin(.param .u64 p_ns)
{
  .reg .pred %p<2>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p_ns];
  mov.u64 %rd2, %globaltimer;
loop:
  mov.u64 %rd3, %globaltimer;
  sub.s64 %rd4, %rd3, %rd2;
  setp.lt.s64 %p1, %rd4, %rd1;
  @%p1 bra loop;
  ret;
}
)";

const dtype scale_dtypes[] = {dtype::float32, dtype::float32};
const kiln::detail::fused_kernel scale_kernel = {
    "bench_scale", scale_ptx, nullptr, 0, scale_contig_host, {nullptr, nullptr, nullptr, nullptr}, 1, 1, 1,
    scale_dtypes, 4};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median host microseconds of one call of `f`, calls back to back in
/// batches of `batch` (the GPU work of a batch is waited for outside the
/// timed region).
template <class F> double host_us_back_to_back(F &&f, int batch = 100, int batches = 200) {
  for (int i = 0; i < 200; ++i)
    f();
  kiln::synchronize();
  std::vector<double> t;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = clk::now();
    for (int i = 0; i < batch; ++i)
      f();
    const auto t1 = clk::now();
    kiln::synchronize();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
  }
  return median(t);
}

/// Median host microseconds of one call of `f` made with the GPU idle (each
/// call waited for before the next): the situation of an event-timed call.
template <class F> double host_us_isolated(F &&f, int reps = 300) {
  for (int i = 0; i < 20; ++i)
    f();
  kiln::synchronize();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = clk::now();
    f();
    const auto t1 = clk::now();
    kiln::synchronize();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  return median(t);
}

/// Busy-waits `us` microseconds on the host.
void host_spin(double us) {
  const auto t0 = clk::now();
  while (std::chrono::duration<double, std::micro>(clk::now() - t0).count() < us) {
  }
}

void line(const char *what, double us, const char *note = "") {
  std::printf("  %-64s %8.2f us%s%s\n", what, us, *note ? "  " : "", note);
  std::fflush(stdout);
}

// ---- Driver calls per call: every entry of the runtime's table wrapped ----

namespace counting {
namespace cu = kiln::detail::cuda;

template <class Sig> struct wrap;
template <class R, class... A> struct wrap<R (*)(A...)> {
  template <R (**Orig)(A...), long *Count> static R call(A... a) {
    ++*Count;
    return (*Orig)(a...);
  }
};

#define KILN_CUDA_FN(name)                                                                                             \
  decltype(&::name) orig_##name = nullptr;                                                                             \
  long count_##name = 0;
#include "runtime/cuda/driver_functions.def"
#undef KILN_CUDA_FN

void install() {
  auto &api = const_cast<cu::driver_api &>(cu::require_driver()); // a heap object, never const
#define KILN_CUDA_FN(name)                                                                                             \
  orig_##name = api.name;                                                                                              \
  count_##name = 0;                                                                                                    \
  if (orig_##name)                                                                                                     \
    api.name = &wrap<decltype(&::name)>::call<&orig_##name, &count_##name>;
#include "runtime/cuda/driver_functions.def"
#undef KILN_CUDA_FN
}

void uninstall() {
  auto &api = const_cast<cu::driver_api &>(cu::require_driver());
#define KILN_CUDA_FN(name)                                                                                             \
  if (orig_##name)                                                                                                     \
    api.name = orig_##name;
#include "runtime/cuda/driver_functions.def"
#undef KILN_CUDA_FN
}

/// Runs `f` `n` times with the table wrapped and prints the calls per run.
template <class F> void report(const char *what, F &&f, int n = 100) {
  f(); // first use outside the count
  kiln::synchronize();
  install();
  for (int i = 0; i < n; ++i)
    f();
  uninstall();
  kiln::synchronize();
  std::printf("  driver calls per %s:", what);
  long total = 0;
#define KILN_CUDA_FN(name)                                                                                             \
  if (count_##name) {                                                                                                  \
    std::printf(" %s %.2f", #name, double(count_##name) / n);                                                          \
    total += count_##name;                                                                                             \
  }
#include "runtime/cuda/driver_functions.def"
#undef KILN_CUDA_FN
  std::printf("  (total %.2f)\n", double(total) / n);
  std::fflush(stdout);
}

} // namespace counting

void part1() {
  constexpr i64 n = 1000;
  constexpr int batch = 100;
  constexpr int batches = 300;
  const kiln::device dev = kiln::current_device();
  const kiln::stream s = kiln::stream::current(dev);

  array_base x = kiln::detail::empty(dtype::float32, kiln::shape{n}, dev);
  array_base y = kiln::detail::empty(dtype::float32, kiln::shape{n}, dev);
  std::vector<float> host(n);
  for (i64 i = 0; i < n; ++i)
    host[i] = static_cast<float>(i % 17) * 0.25f;
  kiln::detail::copy_from_host(x, host.data(), s, false);
  kiln::detail::copy_from_host(y, host.data(), s, false);

  const array_base *in[] = {&x, &y};
  const float a = 2.0f;
  const void *scalars[] = {&a};
  auto call = [&] {
    array_base out[1];
    kiln::detail::launch_elementwise(saxpy_kernel, in, scalars, out);
  };

  for (int i = 0; i < 1000; ++i) // warm up: module load, pool, caches
    call();
  s.synchronize();

  std::vector<double> per_call_us;
  per_call_us.reserve(batches);
  for (int b = 0; b < batches; ++b) {
    const auto t0 = clk::now();
    for (int i = 0; i < batch; ++i)
      call();
    const auto t1 = clk::now();
    s.synchronize(); // outside the timed region: host time per call only
    per_call_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
  }
  std::sort(per_call_us.begin(), per_call_us.end());
  std::printf("launch_elementwise: %lld float32 elements on %s: median %.2f us "
              "per call "
              "(host time incl. output allocation; min %.2f us, p90 %.2f us)\n",
              static_cast<long long>(n), dev.str().c_str(), per_call_us[batches / 2], per_call_us.front(),
              per_call_us[batches * 9 / 10]);
  std::fflush(stdout);
}

/// Raw driver state for the bare launches of part 2.
struct raw_launch {
  const kiln::detail::cuda::driver_api &api;
  CUfunction f = nullptr;
  void *params[11];
  void *x_aligned, *o_aligned;
  i64 offset = 0, size, stride = 1;
  float a = 2.0f;
  unsigned char buffer[88];

  raw_launch(const kiln::detail::cuda::driver_api &api_, CUmodule m, void *x, void *o, i64 n)
      : api(api_), x_aligned(x), o_aligned(o), size(n) {
    kiln::detail::cuda::check(api.cuModuleGetFunction(&f, m, "bench_scale_contig"), "cuModuleGetFunction");
    void **p = params;
    for (void **ptr : {&x_aligned, &o_aligned}) {
      *p++ = ptr; // allocated
      *p++ = ptr; // aligned
      *p++ = &offset;
      *p++ = &size;
      *p++ = &stride;
    }
    *p++ = &a;
    // The same parameters packed into one buffer (CU_LAUNCH_PARAM_BUFFER_POINTER).
    std::memset(buffer, 0, sizeof buffer);
    auto put = [&](std::size_t at, const void *v, std::size_t bytes) { std::memcpy(buffer + at, v, bytes); };
    for (int j = 0; j < 2; ++j) {
      void *ptr = j == 0 ? x_aligned : o_aligned;
      put(40 * j + 0, &ptr, 8);
      put(40 * j + 8, &ptr, 8);
      put(40 * j + 16, &offset, 8);
      put(40 * j + 24, &size, 8);
      put(40 * j + 32, &stride, 8);
    }
    put(80, &a, 4);
  }

  void launch(unsigned grid, unsigned block, CUstream s) const {
    kiln::detail::cuda::check(
        api.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, const_cast<void **>(params), nullptr),
        "cuLaunchKernel");
  }
  void launch_buffer(unsigned grid, unsigned block, CUstream s) const {
    std::size_t bytes = 84;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, const_cast<unsigned char *>(buffer),
                     CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes, CU_LAUNCH_PARAM_END};
    kiln::detail::cuda::check(api.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, nullptr, extra),
                              "cuLaunchKernel");
  }
};

/// Median milliseconds between two raw events around `f` on `s` (idle GPU,
/// or after `before` queued something long).
template <class F, class B>
double event_us(const kiln::detail::cuda::driver_api &api, CUstream s, F &&f, B &&before, int reps = 200) {
  CUevent e0, e1;
  kiln::detail::cuda::check(api.cuEventCreate(&e0, CU_EVENT_DEFAULT), "cuEventCreate");
  kiln::detail::cuda::check(api.cuEventCreate(&e1, CU_EVENT_DEFAULT), "cuEventCreate");
  for (int i = 0; i < 10; ++i)
    f();
  kiln::synchronize();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    before();
    api.cuEventRecord(e0, s);
    f();
    api.cuEventRecord(e1, s);
    api.cuEventSynchronize(e1);
    float ms = 0;
    api.cuEventElapsedTime(&ms, e0, e1);
    t.push_back(ms * 1e3);
  }
  api.cuEventDestroy(e0);
  api.cuEventDestroy(e1);
  kiln::synchronize();
  return median(t);
}

void part2() {
  namespace cu = kiln::detail::cuda;
  const kiln::device dev = kiln::current_device();
  if (!dev.is_cuda())
    return;
  const cu::driver_api &api = cu::require_driver();
  const kiln::stream ks = kiln::stream::current(dev);
  const CUstream legacy = static_cast<CUstream>(ks.native_handle());
  constexpr i64 n = i64(1) << 20;
  constexpr i64 big = i64(1) << 28; // 1 GiB: a long kernel to queue behind

  array_base x = kiln::detail::empty(dtype::float32, kiln::shape{n}, dev);
  array_base given = kiln::detail::empty(dtype::float32, kiln::shape{n}, dev);
  array_base bx = kiln::detail::empty(dtype::float32, kiln::shape{big}, dev);
  array_base bo = kiln::detail::empty(dtype::float32, kiln::shape{big}, dev);
  {
    std::vector<float> host(n);
    for (i64 i = 0; i < n; ++i)
      host[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f - 0.5f;
    kiln::detail::copy_from_host(x, host.data(), ks, false);
  }
  const array_base *in[] = {&x};
  const float a = 2.0f;
  const void *scalars[] = {&a};
  auto call_alloc = [&] {
    array_base out[1];
    kiln::detail::launch_elementwise(scale_kernel, in, scalars, out);
  };
  array_base kept[1]; // the benchmark's pattern: `outs = f(xs)` keeps the last result
  auto call_assign = [&] {
    array_base out[1];
    kiln::detail::launch_elementwise(scale_kernel, in, scalars, out);
    kept[0] = std::move(out[0]);
  };
  auto call_given = [&] {
    array_base out[1] = {given};
    kiln::detail::launch_elementwise(scale_kernel, in, scalars, out);
  };
  call_given();
  ks.synchronize();

  // Check the output once (the kernel and the launcher agree).
  {
    std::vector<float> hx(n), ho(n);
    kiln::detail::copy_to_host(x, hx.data(), ks, false);
    kiln::detail::copy_to_host(given, ho.data(), ks, false);
    i64 bad = 0;
    for (i64 i = 0; i < n; ++i)
      bad += ho[i] != hx[i] * a + 1.0f;
    std::printf("check: out = x * 2 + 1 on 2^20 float32: %lld wrong elements\n", static_cast<long long>(bad));
    if (bad)
      std::exit(1);
  }

  // The module the runtime loaded for scale_kernel is not reachable from
  // here: load the same PTX once more for the bare launches.
  cu::make_current(dev.index());
  CUmodule m = nullptr;
  cu::check(api.cuModuleLoadData(&m, scale_ptx), "cuModuleLoadData");
  raw_launch raw(api, m, x.data(), given.data(), n);
  raw_launch raw_big(api, m, bx.data(), bo.data(), big);
  const unsigned block = 256;
  const unsigned grid = static_cast<unsigned>(n / (block * 4)); // the launcher's grid: one vector a thread
  auto bare = [&] { raw.launch(grid, block, legacy); };
  auto long_kernel = [&] { raw_big.launch(132 * 8, 256, legacy); };
  auto nothing = [] {};

  std::printf("2^20 float32, out = x * 2 + 1 (%s, stream %p):\n", dev.str().c_str(), static_cast<void *>(legacy));
  counting::report("launch_elementwise (given output)", call_given);
  counting::report("launch_elementwise (allocating)", call_alloc);
  counting::report("launch_elementwise (allocating, result kept)", call_assign);
  {
    kiln::event e;
    counting::report("event::record", [&] { e.record(); });
  }
  counting::report("bare cuLaunchKernel", bare);

  std::printf(" host time, back to back (median us per call):\n");
  line("bare cuLaunchKernel (kernelParams)", host_us_back_to_back(bare));
  line("bare cuLaunchKernel (CU_LAUNCH_PARAM_BUFFER_POINTER)",
       host_us_back_to_back([&] { raw.launch_buffer(grid, block, legacy); }));
  line("launch_elementwise, given output", host_us_back_to_back(call_given));
  line("launch_elementwise, allocating", host_us_back_to_back(call_alloc));
  line("launch_elementwise, allocating, result kept", host_us_back_to_back(call_assign));
  std::printf(" host time, GPU idle before each call (median us):\n");
  line("bare cuLaunchKernel", host_us_isolated(bare));
  line("launch_elementwise, given output", host_us_isolated(call_given));
  line("launch_elementwise, allocating, result kept", host_us_isolated(call_assign));
  {
    kiln::event e;
    line("event::record", host_us_isolated([&] { e.record(); }));
  }
  {
    auto &pool = kiln::get_default_memory_pool(dev);
    line("pool allocate + free, 4 MiB",
         host_us_back_to_back([&] { auto mem = pool.allocate(std::size_t(4) << 20, ks); }));
    line("detail::empty + free, 2^20 float32",
         host_us_back_to_back([&] { auto e = kiln::detail::empty(dtype::float32, kiln::shape{n}, dev); }));
    line("kiln::stream::current", host_us_back_to_back([&] { auto s = kiln::stream::current(dev); }));
    line("cuCtxGetCurrent", host_us_back_to_back([&] {
           CUcontext c;
           api.cuCtxGetCurrent(&c);
         }));
  }

  std::printf(" event-timed single call, GPU idle (median us; record, call, record):\n");
  line("nothing between the events", event_us(api, legacy, nothing, nothing));
  line("bare cuLaunchKernel", event_us(api, legacy, bare, nothing));
  line("launch_elementwise, given output", event_us(api, legacy, call_given, nothing));
  line("launch_elementwise, allocating, result kept", event_us(api, legacy, call_assign, nothing));
  {
    kiln::event e0, e1;
    line("bench::median_ms of launch_elementwise (kiln::event)", 1e3 * bench::median_ms(call_assign, 200, 10));
  }
  std::printf(" event-timed, queued behind a 1 GiB kernel (device time of the small kernel):\n");
  line("nothing between the events", event_us(api, legacy, nothing, long_kernel, 50));
  line("bare cuLaunchKernel, grid 1024 x 256", event_us(api, legacy, bare, long_kernel, 50));
  for (auto [g, b] : {std::pair{528u, 256u}, {264u, 512u}, {2048u, 128u}, {132u * 16, 128u}, {4096u, 64u}}) {
    char what[96];
    std::snprintf(what, sizeof what, "bare cuLaunchKernel, grid %u x %u", g, b);
    line(what, event_us(api, legacy, [&] { raw.launch(g, b, legacy); }, long_kernel, 50));
  }
  std::printf(" event-timed single bare launch, GPU idle, other grids and streams:\n");
  for (auto [g, b] : {std::pair{528u, 256u}, {264u, 512u}, {2048u, 128u}, {132u * 16, 128u}}) {
    char what[96];
    std::snprintf(what, sizeof what, "grid %u x %u", g, b);
    line(what, event_us(api, legacy, [&] { raw.launch(g, b, legacy); }, nothing));
  }
  {
    CUstream nb = nullptr;
    cu::check(api.cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    line("non-blocking stream: host, back to back", host_us_back_to_back([&] { raw.launch(grid, block, nb); }));
    line("non-blocking stream: event-timed", event_us(api, nb, [&] { raw.launch(grid, block, nb); }, nothing));
    const CUstream per_thread = CU_STREAM_PER_THREAD;
    line("per-thread stream: host, back to back",
         host_us_back_to_back([&] { raw.launch(grid, block, per_thread); }));
    line("per-thread stream: event-timed",
         event_us(api, per_thread, [&] { raw.launch(grid, block, per_thread); }, nothing));
    line("legacy stream, param buffer: event-timed",
         event_us(api, legacy, [&] { raw.launch_buffer(grid, block, legacy); }, nothing));
    api.cuStreamSynchronize(nb);
    api.cuStreamDestroy(nb);
  }
  // What the event-timed figure is made of.
  {
    CUmodule sm = nullptr;
    cu::check(api.cuModuleLoadData(&sm, spin_ptx), "cuModuleLoadData");
    CUfunction spin = nullptr;
    cu::check(api.cuModuleGetFunction(&spin, sm, "bench_spin"), "cuModuleGetFunction");
    unsigned long long ns = 200000; // 200 us
    void *spin_args[] = {&ns};
    auto spin_kernel = [&] {
      cu::check(api.cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, legacy, spin_args, nullptr), "cuLaunchKernel");
    };
    std::printf(" is host time between the events visible? (event-timed, GPU idle):\n");
    line("host spin 5 us between the events", event_us(api, legacy, [] { host_spin(5); }, nothing));
    line("host spin 5 us, then the bare launch", event_us(api, legacy, [&] { host_spin(5); bare(); }, nothing));
    line("bare launch, then host spin 5 us", event_us(api, legacy, [&] { bare(); host_spin(5); }, nothing));
    line("bare launch, then host spin 2 us", event_us(api, legacy, [&] { bare(); host_spin(2); }, nothing));
    line("bare launch, then host spin 1 us", event_us(api, legacy, [&] { bare(); host_spin(1); }, nothing));
    std::printf(" an empty kernel (n = 0, grid 1 x 32):\n");
    raw_launch empty(api, m, x.data(), given.data(), 0);
    auto empty_kernel = [&] { empty.launch(1, 32, legacy); };
    line("host, back to back", host_us_back_to_back(empty_kernel));
    line("event-timed, GPU idle", event_us(api, legacy, empty_kernel, nothing));
    line("event-timed, queued behind a 200 us spin kernel", event_us(api, legacy, empty_kernel, spin_kernel, 50));
    std::printf(" queued behind a 200 us spin kernel (L2 warm: the small kernel's device time):\n");
    line("nothing between the events", event_us(api, legacy, nothing, spin_kernel, 50));
    line("2^20 bare, grid 1024 x 256 (the launcher's)", event_us(api, legacy, bare, spin_kernel, 50));
    for (auto [g, b] : {std::pair{528u, 256u}, {2112u, 128u}, {132u, 1024u}, {264u, 256u}}) {
      char what[96];
      std::snprintf(what, sizeof what, "2^20 bare, grid %u x %u", g, b);
      line(what, event_us(api, legacy, [&] { raw.launch(g, b, legacy); }, spin_kernel, 50));
    }
    line("launch_elementwise 2^20, result kept", event_us(api, legacy, call_assign, spin_kernel, 50));
    raw_launch small(api, m, x.data(), given.data(), i64(1) << 16);
    for (auto [g, b] : {std::pair{64u, 256u}, {171u, 96u}, {132u, 128u}, {512u, 32u}}) {
      char what[96];
      std::snprintf(what, sizeof what, "2^16 bare, grid %u x %u", g, b);
      line(what, event_us(api, legacy, [&] { small.launch(g, b, legacy); }, spin_kernel, 50));
    }
    for (auto [g, b] : {std::pair{64u, 256u}, {171u, 96u}}) {
      char what[96];
      std::snprintf(what, sizeof what, "2^16 bare, grid %u x %u, GPU idle", g, b);
      line(what, event_us(api, legacy, [&] { small.launch(g, b, legacy); }, nothing));
    }
    std::printf(" other ways to launch the same kernel (2^20):\n");
    {
      CUlaunchConfig config{};
      config.gridDimX = grid;
      config.gridDimY = config.gridDimZ = 1;
      config.blockDimX = block;
      config.blockDimY = config.blockDimZ = 1;
      config.hStream = legacy;
      auto ex = [&] { cu::check(api.cuLaunchKernelEx(&config, raw.f, raw.params, nullptr), "cuLaunchKernelEx"); };
      line("cuLaunchKernelEx: host, back to back", host_us_back_to_back(ex));
      line("cuLaunchKernelEx: event-timed", event_us(api, legacy, ex, nothing));
    }
    {
      CUstream cs = nullptr;
      cu::check(api.cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
      cu::check(api.cuStreamBeginCapture(cs, CU_STREAM_CAPTURE_MODE_RELAXED), "cuStreamBeginCapture");
      raw.launch(grid, block, cs);
      CUgraph g = nullptr;
      cu::check(api.cuStreamEndCapture(cs, &g), "cuStreamEndCapture");
      CUgraphExec ge = nullptr;
      cu::check(api.cuGraphInstantiateWithFlags(&ge, g, 0), "cuGraphInstantiateWithFlags");
      auto gl = [&] { cu::check(api.cuGraphLaunch(ge, legacy), "cuGraphLaunch"); };
      line("one-kernel graph, cuGraphLaunch: host, back to back", host_us_back_to_back(gl));
      line("one-kernel graph, cuGraphLaunch: event-timed", event_us(api, legacy, gl, nothing));
      // What a launcher through a cached one-kernel graph would pay: new
      // parameters for the node (cuGraphExecKernelNodeSetParams, not in the
      // runtime's table: looked up here), then the launch.
      using set_params_fn = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS *);
      void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
      auto set_params = lib ? reinterpret_cast<set_params_fn>(dlsym(lib, "cuGraphExecKernelNodeSetParams_v2")) : nullptr;
      CUgraphNode node = nullptr;
      std::size_t count = 1;
      if (set_params && api.cuGraphGetNodes(g, &node, &count) == CUDA_SUCCESS && count == 1) {
        CUDA_KERNEL_NODE_PARAMS kp{};
        kp.func = raw.f;
        kp.gridDimX = grid;
        kp.gridDimY = kp.gridDimZ = 1;
        kp.blockDimX = block;
        kp.blockDimY = kp.blockDimZ = 1;
        kp.kernelParams = raw.params;
        auto sp = [&] { cu::check(set_params(ge, node, &kp), "cuGraphExecKernelNodeSetParams"); };
        auto spl = [&] {
          sp();
          gl();
        };
        line("cuGraphExecKernelNodeSetParams alone: host, back to back", host_us_back_to_back(sp));
        line("set params + cuGraphLaunch: host, back to back", host_us_back_to_back(spl));
        line("set params + cuGraphLaunch: event-timed", event_us(api, legacy, spl, nothing));
      } else {
        std::printf("  (cuGraphExecKernelNodeSetParams_v2 not found)\n");
      }
      api.cuGraphExecDestroy(ge);
      api.cuGraphDestroy(g);
      api.cuStreamDestroy(cs);
    }
    kiln::synchronize();
    api.cuModuleUnload(sm);
  }
  kiln::synchronize();
  api.cuModuleUnload(m);
}

} // namespace

int main() {
  part1();
  part2();
  return 0;
}
