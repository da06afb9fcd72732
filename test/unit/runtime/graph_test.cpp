//===- test/unit/runtime/graph_test.cpp - CUDA graphs: kiln::capture ------===//
//
// kiln::capture / kiln::graph (kiln/graph.hpp, runtime/stream/graph.cpp,
// docs/runtime-graphs.md). Host tests (run everywhere): the host device keeps
// the callable and each launch runs it (with the stream and device current),
// against float64 references on new data each launch; empty and moved-from
// graphs; exceptions; the capture_sink of the pool. GPU tests (skip without a
// GPU): kernels and copies captured once and replayed on new data written
// into the captured arrays, against float64 references; temporaries of the
// capture owned by the graph (not reused by later arrays) until it is
// destroyed; synchronizing operations inside the lambda refused with
// cuda_error 900, the stream usable after; an exception from the lambda
// propagates and the pool's used bytes come back.
//
//===----------------------------------------------------------------------===//
#include "kiln/graph.hpp"
#include "kiln/kiln.hpp"
#include "kiln/raw_module.hpp"

#include "gpu.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/memory/caching_pool.hpp"
#include "runtime/stream/capture.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using kiln::device;

/// n random doubles in +-[0.5, 2] (never zero), from `seed`.
std::vector<double> random_doubles(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> mag(0.5, 2.0);
  std::bernoulli_distribution neg(0.5);
  std::vector<double> v(n);
  for (auto &x : v)
    x = neg(g) ? -mag(g) : mag(g);
  return v;
}

std::vector<float> to_floats(const std::vector<double> &v) { return std::vector<float>(v.begin(), v.end()); }

template <class T>
void expect_close(const std::vector<T> &got, const std::vector<double> &want, double rtol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(double(got[i]) - want[i]) <= rtol * (1 + std::abs(want[i])))) {
      if (bad++ < 5)
        ADD_FAILURE() << what << " [" << i << "]: got " << got[i] << ", want " << want[i];
    }
  EXPECT_EQ(bad, 0u) << what;
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

//===----------------------------------------------------------------------===//
// Host device: the graph is the callable
//===----------------------------------------------------------------------===//

TEST(Graph, HostCaptureRunsNothingUntilLaunch) {
  const device host = device::host();
  kiln::stream s(host);
  const std::int64_t n = 1000;
  auto x = kiln::empty<float>({n}, host), y = kiln::empty<float>({n}, host), out = kiln::empty<float>({n}, host);
  int runs = 0;
  bool stream_was_current = false, device_was_current = false;
  kiln::graph g = kiln::capture(s, [&] {
    ++runs;
    stream_was_current = kiln::stream::current(host) == s;
    device_was_current = kiln::current_device() == host;
    out.assign(x * 2.0f + y); // eager on the host
  });
  EXPECT_EQ(runs, 0); // host work runs at once, so capture only keeps it
  ASSERT_TRUE(g.valid());
  EXPECT_EQ(g.get_device(), host);
  EXPECT_EQ(g.num_nodes(), 0u);
  EXPECT_EQ(g.owned_bytes(), 0u);
  for (unsigned round = 0; round < 3; ++round) {
    // New data into the same arrays before each launch.
    const std::vector<double> xs = random_doubles(n, 10 + round), ys = random_doubles(n, 20 + round);
    x.copy_from_host(to_floats(xs));
    y.copy_from_host(to_floats(ys));
    if (round == 2)
      g.launch(); // the current stream of the host
    else
      g.launch(s);
    EXPECT_EQ(runs, int(round) + 1);
    std::vector<double> want(n);
    for (std::int64_t i = 0; i < n; ++i)
      want[i] = 2.0 * double(float(xs[i])) + double(float(ys[i]));
    expect_close(out.to_vector(), want, 1e-6, "round " + std::to_string(round));
  }
  EXPECT_TRUE(stream_was_current);
  EXPECT_TRUE(device_was_current);
  EXPECT_EQ(kiln::stream::current(host), kiln::stream::default_stream(host)); // restored
}

TEST(Graph, HostGraphKeepsItsCallable) {
  kiln::stream s(device::host());
  auto counter = std::make_shared<int>(0);
  kiln::graph g;
  {
    auto fn = [counter] { ++*counter; }; // captured by value: the graph keeps a copy
    g = kiln::capture(s, fn);
  }
  g.launch(s);
  g.launch(s);
  EXPECT_EQ(*counter, 2);
  EXPECT_EQ(counter.use_count(), 2);
  g = kiln::graph();
  EXPECT_EQ(counter.use_count(), 1);
}

TEST(Graph, EmptyAndMovedFromGraphsAreValueErrors) {
  kiln::graph empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_THROW(empty.launch(), kiln::value_error);
  EXPECT_THROW(empty.launch(kiln::stream(device::host())), kiln::value_error);
  EXPECT_THROW(empty.get_device(), kiln::value_error);
  try {
    empty.launch();
    FAIL();
  } catch (const kiln::value_error &e) {
    EXPECT_TRUE(contains(e.what(), "kiln::graph::launch: the graph is empty")) << e.what();
  }
  kiln::stream s(device::host());
  int runs = 0;
  kiln::graph a = kiln::capture(s, [&] { ++runs; });
  kiln::graph b = std::move(a);
  EXPECT_FALSE(a.valid()); // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_THROW(a.launch(s), kiln::value_error);
  b.launch(s);
  EXPECT_EQ(runs, 1);
  EXPECT_THROW(kiln::capture(s, std::function<void()>()), kiln::value_error);
}

TEST(Graph, HostLaunchPropagatesExceptionsAndStaysUsable) {
  kiln::stream s(device::host());
  bool fail = true;
  int runs = 0;
  kiln::graph g = kiln::capture(s, [&] {
    ++runs;
    if (fail)
      throw kiln::shape_error("boom");
  });
  EXPECT_THROW(g.launch(s), kiln::shape_error);
  EXPECT_EQ(kiln::stream::current(device::host()), kiln::stream::default_stream(device::host()));
  fail = false;
  EXPECT_NO_THROW(g.launch(s));
  EXPECT_EQ(runs, 2);
}

TEST(Graph, HostGraphOnAGpuStreamIsADeviceError) {
  KILN_REQUIRE_GPU();
  kiln::graph g = kiln::capture(kiln::stream(device::host()), [] {});
  EXPECT_THROW(g.launch(kiln::stream(device::cuda(0))), kiln::device_error);
}

TEST(Graph, NotCapturingOutsideCapture) {
  EXPECT_EQ(kiln::detail::thread_capture(), nullptr);
  EXPECT_NO_THROW(kiln::detail::check_not_capturing("anything"));
  EXPECT_NO_THROW(kiln::synchronize());
}

TEST(Graph, PoolGivesTheCapturesBlocksToItsSink) {
  // The pool's side of a capture, on a host pool (the same code as a GPU's).
  using kiln::detail::caching_pool;
  caching_pool pool(device::host(), caching_pool::backend::host);
  kiln::stream s(device::host());
  auto sink = std::make_shared<kiln::detail::capture_sink>();
  const kiln::detail::active_capture state{device::host(), nullptr, &pool, sink};
  kiln::allocation before = pool.allocate(1000, s); // 1024 bytes, before the capture
  void *const p_before = before.get();
  kiln::allocation kept;
  void *p_a = nullptr;
  {
    kiln::detail::capture_scope capturing(&state);
    EXPECT_EQ(kiln::detail::thread_capture(), &state);
    EXPECT_THROW(kiln::detail::check_not_capturing("this"), kiln::cuda_error);
    EXPECT_THROW(kiln::synchronize(), kiln::cuda_error);
    EXPECT_THROW(pool.free_all_blocks(), kiln::cuda_error);
    kiln::allocation a = pool.allocate(1000, s); // a block of the capture
    p_a = a.get();
    kept = pool.allocate(3000, s);                 // 3072, alive after the capture
    before = kiln::allocation();                   // freed while capturing: held
    a = kiln::allocation();                        // held
    EXPECT_EQ(sink->held_bytes(), 2048u);
  }
  EXPECT_EQ(kiln::detail::thread_capture(), nullptr);
  EXPECT_EQ(pool.used_bytes(), 1024u + 1024u + 3072u); // held blocks count as used
  {
    kiln::allocation b = pool.allocate(1000, s), c = pool.allocate(1000, s);
    EXPECT_NE(b.get(), p_before); // held blocks are not handed out
    EXPECT_NE(b.get(), p_a);
    EXPECT_NE(c.get(), p_before);
    EXPECT_NE(c.get(), p_a);
  }
  kept = kiln::allocation(); // a block of the capture, freed later: held too
  EXPECT_EQ(sink->held_bytes(), 1024u + 1024u + 3072u);
  EXPECT_EQ(pool.used_bytes(), 1024u + 1024u + 3072u);
  sink->close(); // the graph's end
  EXPECT_EQ(sink->held_bytes(), 0u);
  EXPECT_EQ(pool.used_bytes(), 0u);
  {
    kiln::allocation again = pool.allocate(1000, s); // the blocks are cached again
    EXPECT_TRUE(again.get() == p_before || again.get() == p_a);
  }
  EXPECT_EQ(pool.used_bytes(), 0u);
  pool.free_all_blocks();
  EXPECT_EQ(pool.total_bytes(), 0u);
}

//===----------------------------------------------------------------------===//
// GPU
//===----------------------------------------------------------------------===//

constexpr const char *kernels_source = R"(
extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}
extern "C" __global__ void scale_shift(double *x, double a, double b, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = a * x[i] + b;
}
)";

/// The test module, or nullptr (and a skip) without NVRTC.
const kiln::raw_module *test_module() {
  static const kiln::raw_module m = [] {
    if (kiln::detail::nvrtc_version().empty())
      return kiln::raw_module();
    return kiln::raw_module::from_source(kernels_source);
  }();
  return m.valid() ? &m : nullptr;
}

kiln::detail::caching_pool &gpu_pool() {
  return static_cast<kiln::detail::caching_pool &>(kiln::get_default_memory_pool(device::cuda(0)));
}

bool capturing(const kiln::stream &s) {
  const auto &api = kiln::detail::cuda::require_driver();
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  KILN_CU(api, cuStreamIsCapturing, static_cast<CUstream>(s.native_handle()), &st);
  return st != CU_STREAM_CAPTURE_STATUS_NONE;
}

TEST(Graph, GpuReplaysKernelsAndCopiesOnNewData) {
  KILN_REQUIRE_GPU();
  const kiln::raw_module *m = test_module();
  if (!m)
    GTEST_SKIP() << "no NVRTC here to compile the test kernels";
  const device gpu = device::cuda(0);
  kiln::stream s(gpu);
  kiln::stream_scope on_s(s); // data written and read back on s
  const std::int64_t n = 100003;
  const auto saxpy = m->function("saxpy"), scale_shift = m->function("scale_shift");
  auto x = kiln::empty<float>({n}, gpu), y = kiln::empty<float>({n}, gpu), out = kiln::empty<float>({n}, gpu);
  auto y_copy = kiln::empty<float>({n}, gpu);
  kiln::graph g = kiln::capture(s, [&] {
    EXPECT_EQ(kiln::stream::current(gpu), s);
    kiln::launch(saxpy, kiln::grid{40}, kiln::block{256}, 1.5f, x, y, n); // y = 1.5 x + y
    y_copy.assign(y);                                                    // a device copy
    auto t = y.astype<double>(); // a temporary: the graph owns its memory
    kiln::launch(scale_shift, kiln::grid{(n + 255) / 256}, kiln::block{256}, t, -0.25, 3.0, n);
    out.assign(t); // float64 -> float32
  });
  EXPECT_FALSE(capturing(s));
  EXPECT_GE(g.num_nodes(), 4u);
  EXPECT_GE(g.owned_bytes(), std::size_t(n) * 8); // t, freed at the end of the lambda
  // Arrays made after the capture must not get t's memory: they keep their
  // values across launches.
  auto guard_d = kiln::full<double>({n}, 1e30, gpu);
  auto guard_f = kiln::full<float>({2 * n}, -7.0f, gpu);
  for (unsigned round = 0; round < 2; ++round) {
    const std::vector<double> xs = random_doubles(n, 100 + round), ys = random_doubles(n, 200 + round);
    x.copy_from_host(to_floats(xs)); // new data into the captured arrays
    y.copy_from_host(to_floats(ys));
    g.launch(s);
    s.synchronize();
    std::vector<double> want_y(n), want_out(n);
    for (std::int64_t i = 0; i < n; ++i) {
      want_y[i] = 1.5 * double(float(xs[i])) + double(float(ys[i]));
      want_out[i] = -0.25 * want_y[i] + 3.0;
    }
    const std::string r = " (round " + std::to_string(round) + ")";
    expect_close(y.to_vector(), want_y, 1e-6, "y" + r);
    expect_close(y_copy.to_vector(), want_y, 1e-6, "y_copy" + r);
    expect_close(out.to_vector(), want_out, 1e-6, "out" + r);
  }
  for (double v : guard_d.to_vector())
    ASSERT_EQ(v, 1e30);
  for (float v : guard_f.to_vector())
    ASSERT_EQ(v, -7.0f);
}

TEST(Graph, GpuLaunchesQueueInStreamOrder) {
  KILN_REQUIRE_GPU();
  const kiln::raw_module *m = test_module();
  if (!m)
    GTEST_SKIP() << "no NVRTC here to compile the test kernels";
  const device gpu = device::cuda(0);
  kiln::stream s(gpu);
  kiln::stream_scope on_s(s);
  const std::int64_t n = 1 << 16;
  const std::vector<double> xs = random_doubles(n, 1), ys = random_doubles(n, 2);
  auto x = kiln::asarray<float>(to_floats(xs), gpu), y = kiln::asarray<float>(to_floats(ys), gpu);
  const auto saxpy = m->function("saxpy");
  kiln::graph g = kiln::capture(s, [&] { kiln::launch(saxpy, kiln::grid{64}, kiln::block{256}, 0.5f, x, y, n); });
  for (int i = 0; i < 5; ++i)
    g.launch(); // the current stream: s
  std::vector<double> want(n);
  for (std::int64_t i = 0; i < n; ++i) {
    float v = float(ys[i]);
    for (int k = 0; k < 5; ++k)
      v = 0.5f * float(xs[i]) + v;
    want[i] = v;
  }
  expect_close(y.to_vector(), want, 1e-6, "y after 5 launches");
  // On another stream (the default one): ordered by the user, as in CUDA.
  s.synchronize();
  g.launch(kiln::stream::default_stream(gpu));
  kiln::synchronize(gpu);
}

TEST(Graph, GpuTemporariesBelongToTheGraphUntilDestroyed) {
  KILN_REQUIRE_GPU();
  const device gpu = device::cuda(0);
  kiln::stream s(gpu);
  auto &pool = gpu_pool();
  const std::int64_t n = 1 << 20; // 4 MiB of float32
  auto out = kiln::empty<float>({n}, gpu);
  kiln::synchronize(gpu);
  const std::size_t used0 = pool.used_bytes();
  {
    kiln::graph g = kiln::capture(s, [&] {
      auto a = kiln::full<float>({n}, 2.5f, gpu);
      auto b = a.astype<double>();
      out.assign(b);
    });
    EXPECT_GE(g.owned_bytes(), std::size_t(n) * 12);                  // a and b
    EXPECT_EQ(pool.used_bytes(), used0 + g.owned_bytes()); // held, not cached
    {
      kiln::stream_scope on_s(s);
      auto other = kiln::full<float>({n}, 9.0f, gpu); // not one of a's blocks
      out.fill(0.0f);
      g.launch(s);
      for (float v : out.to_vector())
        ASSERT_EQ(v, 2.5f);
      for (float v : other.to_vector())
        ASSERT_EQ(v, 9.0f);
    }
  }
  EXPECT_EQ(pool.used_bytes(), used0); // back to the pool with the graph
}

TEST(Graph, GpuSynchronizingInsideCaptureIsRefusedAndTheStreamWorksAfter) {
  KILN_REQUIRE_GPU();
  const device gpu = device::cuda(0);
  kiln::stream s(gpu);
  auto &pool = gpu_pool();
  const std::int64_t n = 4099;
  const std::vector<double> xs = random_doubles(n, 3);
  auto x = kiln::asarray<float>(to_floats(xs), gpu);
  auto one = kiln::full<float>({1}, 1.0f, gpu);
  kiln::synchronize(gpu);
  const std::size_t used0 = pool.used_bytes();
  struct refused {
    const char *name;
    std::function<void()> op;
    const char *message;
  };
  const std::vector<refused> cases = {
      {"to_vector", [&] { (void)x.to_vector(); }, "a copy from the GPU to the host"},
      {"item", [&] { (void)one.item(); }, "item() (it reads the GPU's result on the host)"},
      {"copy_from_host", [&] { x.copy_from_host(to_floats(xs)); }, "a synchronous copy from the host to the GPU"},
      {"stream::synchronize", [&] { s.synchronize(); }, "stream::synchronize is not allowed inside kiln::capture"},
      {"kiln::synchronize", [&] { kiln::synchronize(); }, "kiln::synchronize is not allowed inside kiln::capture"},
      {"an eager operation", [&] { (void)(x + x); }, "not allowed inside kiln::capture"},
      {"free_all_blocks", [&] { kiln::get_default_memory_pool(gpu).free_all_blocks(); }, "free_all_blocks"},
      // A CUDA call that CUDA itself refuses while capturing.
      {"cuStreamSynchronize",
       [&] {
         const auto &api = kiln::detail::cuda::require_driver();
         KILN_CU(api, cuStreamSynchronize, static_cast<CUstream>(s.native_handle()));
       },
       "kiln::capture: an operation inside the lambda is not allowed"},
  };
  for (const refused &c : cases) {
    SCOPED_TRACE(c.name);
    try {
      kiln::graph g = kiln::capture(s, [&] {
        auto tmp = kiln::full<float>({n}, 1.0f, gpu); // captured work before the refusal
        tmp.assign(x);
        c.op();
      });
      ADD_FAILURE() << "no error";
    } catch (const kiln::cuda_error &e) {
      EXPECT_TRUE(contains(e.what(), c.message)) << e.what();
      EXPECT_TRUE(e.code() >= 900 && e.code() <= 908) << e.code();
    }
    EXPECT_FALSE(capturing(s));
    EXPECT_EQ(kiln::detail::thread_capture(), nullptr);
    EXPECT_EQ(kiln::stream::current(gpu), kiln::stream::default_stream(gpu));
    EXPECT_EQ(pool.used_bytes(), used0);
    // The stream works after.
    {
      kiln::stream_scope on_s(s);
      auto y = x.astype<double>();
      std::vector<double> want(xs.begin(), xs.end());
      for (auto &w : want)
        w = double(float(w));
      expect_close(y.to_vector(), want, 0, "after the refused capture");
    }
    EXPECT_EQ(pool.used_bytes(), used0);
  }
}

TEST(Graph, GpuExceptionInsideLambdaPropagatesAndThePoolIsIntact) {
  KILN_REQUIRE_GPU();
  const device gpu = device::cuda(0);
  kiln::stream s(gpu);
  auto &pool = gpu_pool();
  kiln::synchronize(gpu);
  const std::size_t used0 = pool.used_bytes();
  auto keep = kiln::empty<float>({1}, gpu);
  try {
    kiln::graph g = kiln::capture(s, [&] {
      auto a = kiln::full<float>({1 << 18}, 1.0f, gpu);
      auto b = kiln::full<double>({1 << 18}, 2.0, gpu);
      keep = a; // a block allocated during the capture, alive after it
      throw std::runtime_error("boom from the lambda");
    });
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "boom from the lambda");
  }
  EXPECT_FALSE(capturing(s));
  keep = kiln::empty<float>({1}, gpu); // frees the captured block: back to the pool
  EXPECT_EQ(pool.used_bytes(), used0 + 512);
  // Capturing again on the same stream works.
  kiln::stream_scope on_s(s);
  auto out = kiln::empty<float>({1000}, gpu);
  kiln::graph g = kiln::capture(s, [&] { out.fill(4.0f); });
  g.launch();
  for (float v : out.to_vector())
    ASSERT_EQ(v, 4.0f);
}

TEST(Graph, GpuRefusedCaptures) {
  KILN_REQUIRE_GPU();
  const device gpu = device::cuda(0);
  EXPECT_THROW(kiln::capture(kiln::stream::default_stream(gpu), [] {}), kiln::value_error);
  try {
    kiln::capture(kiln::stream::default_stream(gpu), [] {});
  } catch (const kiln::value_error &e) {
    EXPECT_TRUE(contains(e.what(), "kiln::capture needs a stream made with kiln::stream(cuda:0)")) << e.what();
  }
  kiln::stream s(gpu), t(gpu);
  EXPECT_THROW(kiln::capture(s, [&] { kiln::capture(t, [] {}); }), kiln::value_error); // nested
  EXPECT_FALSE(capturing(s));
  EXPECT_FALSE(capturing(t));
  // An empty capture is an empty graph.
  kiln::graph g = kiln::capture(s, [] {});
  EXPECT_EQ(g.num_nodes(), 0u);
  EXPECT_EQ(g.get_device(), gpu);
  g.launch(s);
  s.synchronize();
  EXPECT_THROW(g.launch(kiln::stream(device::host())), kiln::device_error);
}

} // namespace
