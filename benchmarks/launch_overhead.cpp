//===- benchmarks/launch_overhead.cpp - Host time of one fused call -------===//
//
// Measures the host time of kiln::detail::launch_elementwise on 1000 float32
// elements (out = a * x + y): checks, output allocation from the pool, layout,
// and the launch (a host call, or cuLaunchKernel of a small PTX kernel). Runs
// on the current device (KILN_DEVICE=host|cuda:N) and prints one line.
//
//===----------------------------------------------------------------------===//
#include "kiln/detail/fused.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using kiln::array_base;
using kiln::dtype;
using i64 = std::int64_t;

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
    "bench_saxpy",
    saxpy_ptx,
    nullptr,
    0,
    saxpy_contig_host,
    {nullptr, nullptr, nullptr, nullptr},
    2,
    1,
    1,
    saxpy_dtypes,
    1};

} // namespace

int main() {
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
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i)
      call();
    const auto t1 = std::chrono::steady_clock::now();
    s.synchronize(); // outside the timed region: host time per call only
    per_call_us.push_back(
        std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
  }
  std::sort(per_call_us.begin(), per_call_us.end());
  std::printf("launch_elementwise: %lld float32 elements on %s: median %.2f us "
              "per call "
              "(host time incl. output allocation; min %.2f us, p90 %.2f us)\n",
              static_cast<long long>(n), dev.str().c_str(),
              per_call_us[batches / 2], per_call_us.front(),
              per_call_us[batches * 9 / 10]);
  return 0;
}
