// Thread stress test of the runtime (issue 8, "Threads"): N host threads each
// run M randomly mixed operations on the device KILN_DEVICE selects (host
// here, a GPU on the device machine) and check every result against a
// reference computed in the same thread, in float64, from random data (never
// zeros). Operations: creation, elementwise arithmetic and math, reductions,
// views and copies, astype, random numbers (replayed), pool blocks of varied
// sizes held across operations, streams and events, matmul (the blas layer:
// cuBLAS on a GPU with per-thread handles, the host loop here), transfers
// with pinned buffers, DLPack round trips, and arrays handed to another
// thread and freed there. One array made before the threads start is read by
// all of them.
//
// Size: KILN_STRESS_THREADS (default 8) threads x KILN_STRESS_OPS (default
// 300, a few seconds for CI) operations each; KILN_STRESS_SEED (default 1).
// The full run of issue 8 is KILN_STRESS_OPS=10000 (8 x 10,000), also under
// ThreadSanitizer (the `tsan` presets). GPU-only parts (real streams and
// events, cuBLAS, device transfers) skip themselves with a message on a
// machine without a GPU: they run as their host forms there.
#include "expect.hpp"

#include <kiln/kiln.hpp> // before fused.hpp, as in kilnc's output
#include <kiln/detail/fused.hpp>
#include <kiln/dlpack.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

long env_long(const char *name, long fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return fallback;
  char *end = nullptr;
  long n = std::strtol(v, &end, 10);
  return end && *end == '\0' && n > 0 ? n : fallback;
}

enum op_kind {
  k_creation,
  k_elementwise64,
  k_elementwise32,
  k_integer,
  k_reduction,
  k_views,
  k_astype,
  k_random,
  k_pool,
  k_stream_event,
  k_matmul,
  k_transfer,
  k_dlpack,
  k_handoff,
  k_shared,
  k_fused,
  k_count
};
const char *kind_names[k_count] = {
    "creation", "elementwise f64", "elementwise f32", "integer", "reduction",
    "views",    "astype",          "random",          "pool",    "stream/event",
    "matmul",   "transfer",        "dlpack",          "handoff", "shared read",
    "fused kernel"};

//===----------------------------------------------------------------------===//
// Fused kernels written by hand (fused.hpp's ABI): out = x * s over float32,
// `_contig` and `_strided1` (one body: both are rank 1). Several kernels with
// a PTX module each, so that threads race to load modules on a GPU.
//===----------------------------------------------------------------------===//

void scale_host(void **args) {
  auto *x = *static_cast<float **>(args[1]);
  const std::int64_t xoff = *static_cast<std::int64_t *>(args[2]);
  const std::int64_t n = *static_cast<std::int64_t *>(args[3]);
  const std::int64_t xs = *static_cast<std::int64_t *>(args[4]);
  auto *out = *static_cast<float **>(args[6]);
  const std::int64_t ooff = *static_cast<std::int64_t *>(args[7]);
  const std::int64_t os = *static_cast<std::int64_t *>(args[9]);
  const float s = *static_cast<const float *>(args[10]);
  for (std::int64_t i = 0; i < n; ++i)
    out[ooff + i * os] = x[xoff + i * xs] * s;
}

std::string scale_ptx_entry(const std::string &entry) {
  std::string e = entry;
  std::string s = ".visible .entry " + e + "(\n";
  for (int i = 0; i < 10; ++i)
    s += "  .param .u64 p" + std::to_string(i) + ",\n";
  s += "  .param .f32 ps)\n{\n"
       "  .reg .pred %p<2>;\n  .reg .f32 %f<3>;\n  .reg .b32 %r<5>;\n  .reg .b64 %rd<16>;\n"
       "  ld.param.u64 %rd1, [p1];\n  ld.param.u64 %rd2, [p2];\n  ld.param.u64 %rd3, [p3];\n"
       "  ld.param.u64 %rd4, [p4];\n  ld.param.u64 %rd5, [p6];\n  ld.param.u64 %rd6, [p7];\n"
       "  ld.param.u64 %rd7, [p9];\n  ld.param.f32 %f1, [ps];\n"
       "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %tid.x;\n  mov.u32 %r4, %nctaid.x;\n"
       "  mul.wide.u32 %rd8, %r1, %r2;\n  cvt.u64.u32 %rd9, %r3;\n  add.s64 %rd8, %rd8, %rd9;\n"
       "  mul.wide.u32 %rd10, %r4, %r2;\n" +
       e + "_loop:\n  setp.ge.s64 %p1, %rd8, %rd3;\n  @%p1 bra " + e + "_done;\n"
       "  mad.lo.s64 %rd11, %rd8, %rd4, %rd2;\n  shl.b64 %rd11, %rd11, 2;\n  add.s64 %rd11, %rd1, %rd11;\n"
       "  ld.global.f32 %f2, [%rd11];\n  mul.f32 %f2, %f2, %f1;\n"
       "  mad.lo.s64 %rd12, %rd8, %rd7, %rd6;\n  shl.b64 %rd12, %rd12, 2;\n  add.s64 %rd12, %rd5, %rd12;\n"
       "  st.global.f32 [%rd12], %f2;\n  add.s64 %rd8, %rd8, %rd10;\n  bra " + e + "_loop;\n" +
       e + "_done:\n  ret;\n}\n";
  return s;
}

constexpr int num_scale_kernels = 4;
const kiln::dtype scale_dtypes[] = {kiln::dtype::float32, kiln::dtype::float32};

struct scale_kernels {
  std::string names[num_scale_kernels];
  std::string ptx[num_scale_kernels];
  kiln::detail::fused_kernel k[num_scale_kernels];
  scale_kernels() {
    for (int i = 0; i < num_scale_kernels; ++i) {
      names[i] = "stress_scale" + std::to_string(i);
      ptx[i] = ".version 7.0\n.target sm_80\n.address_size 64\n\n" + scale_ptx_entry(names[i] + "_contig") +
               scale_ptx_entry(names[i] + "_strided1");
      k[i] = kiln::detail::fused_kernel{names[i].c_str(), ptx[i].c_str(), nullptr, 0, &scale_host,
                                        {&scale_host, nullptr, nullptr, nullptr}, 1, 1, 1, scale_dtypes, 1,
                                        nullptr};
    }
  }
};
const scale_kernels &stress_kernels() {
  static const scale_kernels ks;
  return ks;
}

/// An array handed from one thread to another, with its expected values.
struct parcel {
  kiln::array<double> a;
  std::vector<double> want;
  kiln::event ready; // recorded on the sender's stream after `a` was made
};

/// The mailbox threads hand arrays through (each freed by its receiver).
struct mailbox {
  std::mutex m;
  std::deque<parcel> items;
};

struct shared_state {
  kiln::device dev;
  bool gpu = false;
  kiln::array<double> shared; // read by every thread
  std::vector<double> shared_host;
  mailbox box;
};

class worker {
public:
  worker(shared_state &g, unsigned id, std::uint64_t seed)
      : g_(g), dev_(g.dev), id_(id), rng_(seed * 1000003u + id), gen_(seed * 7919u + id) {}

  void run(long ops) {
    // A stream per thread (real CUstreams on a GPU; trivial on the host).
    kiln::stream own(dev_);
    kiln::stream_scope scope(own);
    for (long i = 0; i < ops && failures.size() < 20; ++i) {
      int k = static_cast<int>(rng_() % k_count);
      step_ = i;
      try {
        run_one(static_cast<op_kind>(k));
        ++counts[k];
      } catch (const std::exception &e) {
        fail(static_cast<op_kind>(k), std::string("exception: ") + e.what());
      }
    }
    held_.clear();
    own.synchronize();
  }

  std::vector<std::string> failures;
  std::array<long, k_count> counts{};

private:
  void fail(op_kind k, const std::string &what) {
    std::ostringstream s;
    s << "thread " << id_ << " op " << step_ << " (" << kind_names[k] << "): " << what;
    failures.push_back(s.str());
  }

  /// Random data in [-10, -0.1] U [0.1, 10]: never zero.
  std::vector<double> data(std::size_t n) {
    std::uniform_real_distribution<double> u(0.1, 10.0);
    std::vector<double> v(n);
    for (double &x : v)
      x = (rng_() & 1 ? -1.0 : 1.0) * u(rng_);
    return v;
  }
  std::int64_t dim(int lo, int hi) { return lo + static_cast<std::int64_t>(rng_() % (hi - lo + 1)); }
  /// A shape of rank 1-3; now and then a long vector (parallel host loops).
  kiln::shape random_shape() {
    if (rng_() % 16 == 0)
      return kiln::shape{dim(4096, 40000)};
    switch (rng_() % 3) {
    case 0:
      return kiln::shape{dim(1, 64)};
    case 1:
      return kiln::shape{dim(1, 12), dim(1, 12)};
    default:
      return kiln::shape{dim(1, 6), dim(1, 6), dim(1, 6)};
    }
  }
  template <class T> kiln::array<T> put(const std::vector<double> &v, const kiln::shape &s) {
    std::vector<T> t(v.begin(), v.end());
    return kiln::asarray<T>(t, s, dev_);
  }
  template <class T> std::vector<double> get(const kiln::array<T> &a) {
    if (!(a.device() == dev_))
      throw std::runtime_error("result on " + a.device().str() + ", not " + dev_.str());
    std::vector<T> v = a.to_vector();
    std::vector<double> d(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      d[i] = static_cast<double>(v[i]);
    return d;
  }

  /// `got` equals `want` within rel * scale (+ exactly for rel == 0).
  bool check(op_kind k, const std::string &what, const std::vector<double> &got, const std::vector<double> &want,
             double rel = 0, const kiln::shape *shape = nullptr, const kiln::shape *want_shape = nullptr) {
    if (shape && want_shape && !(*shape == *want_shape)) {
      fail(k, what + ": shape " + kiln::to_string(*shape) + ", want " + kiln::to_string(*want_shape));
      return false;
    }
    if (got.size() != want.size()) {
      fail(k, what + ": " + std::to_string(got.size()) + " elements, want " + std::to_string(want.size()));
      return false;
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
      double tol = rel * std::max(1.0, std::fabs(want[i]));
      bool ok = rel == 0 ? got[i] == want[i] : std::fabs(got[i] - want[i]) <= tol;
      if (!ok) {
        std::ostringstream s;
        s.precision(17);
        s << what << ": element " << i << " is " << got[i] << ", want " << want[i];
        fail(k, s.str());
        return false;
      }
    }
    return true;
  }

  void run_one(op_kind k) {
    switch (k) {
    case k_creation: return creation();
    case k_elementwise64: return elementwise64();
    case k_elementwise32: return elementwise32();
    case k_integer: return integer();
    case k_reduction: return reduction();
    case k_views: return views();
    case k_astype: return astype();
    case k_random: return random_numbers();
    case k_pool: return pool();
    case k_stream_event: return stream_event();
    case k_matmul: return matmul();
    case k_transfer: return transfer();
    case k_dlpack: return dlpack();
    case k_handoff: return handoff();
    case k_shared: return shared();
    case k_fused: return fused();
    case k_count: break;
    }
  }

  void creation() {
    kiln::shape s = random_shape();
    std::size_t n = static_cast<std::size_t>(s.numel());
    double v = data(1)[0];
    switch (rng_() % 4) {
    case 0: {
      auto a = kiln::full<double>(s, v, dev_);
      check(k_creation, "full", get(a), std::vector<double>(n, v));
      break;
    }
    case 1: {
      auto a = kiln::ones<float>(s, dev_);
      auto z = kiln::zeros<std::int32_t>(s, dev_);
      check(k_creation, "ones", get(a), std::vector<double>(n, 1.0));
      check(k_creation, "zeros", get(z), std::vector<double>(n, 0.0));
      break;
    }
    case 2: {
      std::int64_t start = dim(-50, 50), step = dim(1, 7) * (rng_() & 1 ? 1 : -1);
      std::int64_t stop = start + step * dim(1, 300);
      auto a = kiln::arange<std::int64_t>(start, stop, step, dev_);
      std::vector<double> want;
      for (std::int64_t x = start; step > 0 ? x < stop : x > stop; x += step)
        want.push_back(static_cast<double>(x));
      check(k_creation, "arange", get(a), want);
      break;
    }
    default: {
      std::int64_t num = dim(2, 500);
      double a0 = v, a1 = v + 3.5;
      auto a = kiln::linspace<double>(a0, a1, num, true, dev_);
      std::vector<double> want(static_cast<std::size_t>(num));
      for (std::int64_t i = 0; i < num; ++i)
        want[i] = a0 + i * ((a1 - a0) / static_cast<double>(num - 1));
      want.back() = a1;
      check(k_creation, "linspace", get(a), want, 1e-14);
    }
    }
  }

  void elementwise64() {
    kiln::shape s = random_shape();
    auto av = data(static_cast<std::size_t>(s.numel())), bv = data(av.size());
    auto a = put<double>(av, s), b = put<double>(bv, s);
    double c = data(1)[0];
    auto r = a * b + c - a / b;
    auto m = kiln::maximum(a, b) - kiln::where(a < b, a, b);
    std::vector<double> want(av.size()), want_m(av.size());
    for (std::size_t i = 0; i < av.size(); ++i) {
      want[i] = av[i] * bv[i] + c - av[i] / bv[i];
      want_m[i] = std::max(av[i], bv[i]) - (av[i] < bv[i] ? av[i] : bv[i]);
    }
    check(k_elementwise64, "a*b + c - a/b", get(r), want, 1e-13);
    check(k_elementwise64, "maximum - where", get(m), want_m, 1e-15);
    // A row broadcast over a matrix.
    if (s.size() == 2) {
      auto rowv = data(static_cast<std::size_t>(s[1]));
      auto row = put<double>(rowv, kiln::shape{s[1]});
      auto q = kiln::sqrt(kiln::abs(a)) * row;
      std::vector<double> wq(av.size());
      for (std::size_t i = 0; i < av.size(); ++i)
        wq[i] = std::sqrt(std::fabs(av[i])) * rowv[i % rowv.size()];
      check(k_elementwise64, "sqrt(abs(a)) * row", get(q), wq, 1e-14);
    }
  }

  void elementwise32() {
    kiln::shape s = random_shape();
    auto av = data(static_cast<std::size_t>(s.numel())), bv = data(av.size());
    auto a = put<float>(av, s), b = put<float>(bv, s);
    auto r = kiln::exp(a / 10.0f) + kiln::tanh(b) * 2.0f;
    auto lt = a < b;
    std::vector<double> want(av.size()), wlt(av.size());
    for (std::size_t i = 0; i < av.size(); ++i) {
      double fa = static_cast<float>(av[i]), fb = static_cast<float>(bv[i]);
      want[i] = std::exp(fa / 10.0) + std::tanh(fb) * 2.0;
      wlt[i] = fa < fb;
    }
    check(k_elementwise32, "exp(a/10) + tanh(b)*2", get(r), want, 2e-6);
    check(k_elementwise32, "a < b", get(lt), wlt);
  }

  void integer() {
    kiln::shape s = random_shape();
    std::size_t n = static_cast<std::size_t>(s.numel());
    std::vector<std::int32_t> av(n), bv(n);
    for (std::size_t i = 0; i < n; ++i) {
      av[i] = static_cast<std::int32_t>(rng_() % 20001) - 10000;
      do
        bv[i] = static_cast<std::int32_t>(rng_() % 201) - 100;
      while (bv[i] == 0);
    }
    auto a = kiln::asarray<std::int32_t>(av, s, dev_), b = kiln::asarray<std::int32_t>(bv, s, dev_);
    auto r = a * 3 + b;
    auto m = a % b; // Python's remainder: the sign of the divisor
    std::vector<double> wr(n), wm(n);
    for (std::size_t i = 0; i < n; ++i) {
      wr[i] = av[i] * 3 + bv[i];
      std::int32_t q = av[i] % bv[i];
      if (q != 0 && ((q < 0) != (bv[i] < 0)))
        q += bv[i];
      wm[i] = q;
    }
    check(k_integer, "a*3 + b", get(r), wr);
    check(k_integer, "a % b", get(m), wm);
  }

  void reduction() {
    kiln::shape s = random_shape();
    auto av = data(static_cast<std::size_t>(s.numel()));
    auto a = put<double>(av, s);
    const std::int64_t rank = static_cast<std::int64_t>(s.size());
    double abs_sum = 0;
    for (double x : av)
      abs_sum += std::fabs(x);
    if (rng_() % 3 == 0) { // every axis
      double sum = 0, mx = av[0];
      std::int64_t arg = 0;
      for (std::size_t i = 0; i < av.size(); ++i) {
        sum += av[i];
        if (av[i] > mx)
          mx = av[i], arg = static_cast<std::int64_t>(i);
      }
      double got_sum = kiln::sum(a).item();
      if (std::fabs(got_sum - sum) > 1e-12 * abs_sum + 1e-300)
        fail(k_reduction, "sum " + std::to_string(got_sum) + ", want " + std::to_string(sum));
      check(k_reduction, "max", {kiln::max(a).item()}, {mx});
      check(k_reduction, "argmax", {static_cast<double>(kiln::argmax(a).item())}, {static_cast<double>(arg)});
      double mean = kiln::mean(a).item();
      if (std::fabs(mean - sum / av.size()) > 1e-12 * abs_sum / av.size() + 1e-300)
        fail(k_reduction, "mean " + std::to_string(mean));
      return;
    }
    // One axis: reference by explicit index arithmetic.
    std::int64_t axis = static_cast<std::int64_t>(rng_() % rank);
    std::int64_t outer = 1, inner = 1, len = s[axis];
    for (std::int64_t d = 0; d < axis; ++d)
      outer *= s[d];
    for (std::int64_t d = axis + 1; d < rank; ++d)
      inner *= s[d];
    std::vector<double> wsum(outer * inner), wmin(outer * inner), warg(outer * inner);
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        double acc = 0, mn = av[o * len * inner + i];
        std::int64_t am = 0;
        for (std::int64_t j = 0; j < len; ++j) {
          double x = av[(o * len + j) * inner + i];
          acc += x;
          if (x < mn)
            mn = x, am = j;
        }
        wsum[o * inner + i] = acc, wmin[o * inner + i] = mn, warg[o * inner + i] = static_cast<double>(am);
      }
    bool keep = rng_() & 1;
    kiln::array<double> rs = kiln::sum(a, axis, keep);
    kiln::shape want_shape = s;
    if (keep)
      want_shape[axis] = 1;
    else
      want_shape.erase(static_cast<std::size_t>(axis));
    check(k_reduction, "sum(axis " + std::to_string(axis) + ")", get(rs), wsum, 1e-12 * std::max(1.0, abs_sum),
          &rs.shape(), &want_shape);
    kiln::array<double> mn = kiln::min(a, axis, keep);
    check(k_reduction, "min(axis)", get(mn), wmin, 0, &mn.shape(), &want_shape);
    kiln::array<std::int64_t> am = kiln::argmin(a, axis, keep);
    check(k_reduction, "argmin(axis)", get(am), warg, 0, &am.shape(), &want_shape);
  }

  void views() {
    std::int64_t r = dim(1, 20), c = dim(1, 20);
    auto av = data(static_cast<std::size_t>(r * c));
    auto a = put<double>(av, kiln::shape{r, c});
    // Transpose, then every other row of it backwards: t[j][i] = a[i][j].
    auto t = a.T();
    auto v = t.slice({kiln::range(std::nullopt, std::nullopt, -2), kiln::range(1, std::nullopt)});
    std::vector<double> want;
    for (std::int64_t j = c - 1; j >= 0; j -= 2)
      for (std::int64_t i = 1; i < r; ++i)
        want.push_back(av[i * c + j]);
    check(k_views, "T()[::-2, 1:]", get(v.copy()), want);
    check(k_views, "T()[::-2, 1:] (view)", get(v), want);
    // A reshape of the contiguous array, and a copy that must not alias.
    auto flat = a.reshape(kiln::shape{-1});
    auto cp = flat.copy();
    check(k_views, "reshape(-1)", get(flat), av);
    if (cp.data() == flat.data())
      fail(k_views, "copy() aliases its source");
    auto col = a.slice({kiln::all, c - 1});
    std::vector<double> wc;
    for (std::int64_t i = 0; i < r; ++i)
      wc.push_back(av[i * c + c - 1]);
    check(k_views, "a[:, -1]", get(col), wc);
  }

  void astype() {
    kiln::shape s = random_shape();
    auto av = data(static_cast<std::size_t>(s.numel()));
    auto a = put<double>(av, s);
    std::vector<double> wf(av.size()), wi(av.size());
    for (std::size_t i = 0; i < av.size(); ++i) {
      wf[i] = static_cast<float>(av[i]);
      wi[i] = static_cast<double>(static_cast<std::int32_t>(av[i]));
    }
    check(k_astype, "astype<float>", get(a.astype<float>()), wf);
    check(k_astype, "astype<int32>", get(a.astype<std::int32_t>()), wi);
    auto z = a.astype<std::complex<double>>();
    auto zv = z.to_vector();
    for (std::size_t i = 0; i < av.size(); ++i)
      if (zv[i] != std::complex<double>(av[i], 0)) {
        fail(k_astype, "astype<complex128> element " + std::to_string(i));
        break;
      }
    auto back = z.astype<float>(); // complex to real keeps the real part
    check(k_astype, "complex128 astype<float>", get(back), wf);
  }

  void random_numbers() {
    kiln::shape s = random_shape();
    std::uint64_t off = gen_.offset();
    auto u = gen_.random<double>(s, dev_);
    auto uv = get(u);
    for (double x : uv)
      if (!(x >= 0 && x < 1)) {
        fail(k_random, "uniform draw " + std::to_string(x) + " outside [0, 1)");
        return;
      }
    // The same counters under the same seed give the same numbers.
    kiln::random::generator replay(gen_.seed());
    replay.set_offset(off);
    check(k_random, "replayed uniform", get(replay.random<double>(s, dev_)), uv);
    auto iv = get(gen_.integers<std::int32_t>(-7, 13, s, dev_));
    for (double x : iv)
      if (x < -7 || x >= 13) {
        fail(k_random, "integer draw " + std::to_string(x) + " outside [-7, 13)");
        return;
      }
    auto nv = get(gen_.normal<float>(s, 5.0f, 0.5f, dev_));
    for (double x : nv)
      if (!std::isfinite(x) || std::fabs(x - 5.0) > 10) {
        fail(k_random, "normal draw " + std::to_string(x));
        return;
      }
  }

  /// Pool blocks of varied sizes, a few kept alive across operations, each
  /// written with a pattern of its own and checked when freed: two threads
  /// handed one block would overwrite each other's pattern.
  struct held_block {
    kiln::allocation mem;         // host: the block itself
    kiln::array<std::uint8_t> gpu; // GPU: a byte array of the pool
    std::size_t bytes;
    std::uint8_t tag;
  };
  std::vector<held_block> held_;

  void verify(const held_block &b) {
    if (b.mem) {
      const auto *p = static_cast<const std::uint8_t *>(b.mem.get());
      for (std::size_t i = 0; i < b.bytes; i += std::max<std::size_t>(1, b.bytes / 64))
        if (p[i] != static_cast<std::uint8_t>(b.tag + i)) {
          fail(k_pool, "pool block of " + std::to_string(b.bytes) + " bytes was overwritten");
          return;
        }
      if (p[b.bytes - 1] != static_cast<std::uint8_t>(b.tag + b.bytes - 1))
        fail(k_pool, "last byte of a pool block was overwritten");
    } else {
      auto v = b.gpu.to_vector();
      for (std::size_t i = 0; i < b.bytes; ++i)
        if (v[i] != static_cast<std::uint8_t>(b.tag + i)) {
          fail(k_pool, "device pool block of " + std::to_string(b.bytes) + " bytes was overwritten");
          return;
        }
    }
  }

  void pool() {
    if (rng_() % 16 == 0) {
      // Return every cached block to the system while other threads
      // allocate and free (their live blocks must survive it).
      auto &p = kiln::get_default_memory_pool(dev_);
      p.free_all_blocks();
      if (p.used_bytes() > p.total_bytes())
        fail(k_pool, "used_bytes() > total_bytes()");
      for (const held_block &h : held_)
        verify(h);
      return;
    }
    if (held_.size() >= 6 || (!held_.empty() && rng_() % 3 == 0)) {
      std::size_t k = rng_() % held_.size();
      verify(held_[k]);
      held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(k));
      return;
    }
    static const std::size_t sizes[] = {1, 7, 512, 513, 4096, 70000, 1 << 20};
    std::size_t bytes = sizes[rng_() % std::size(sizes)] + rng_() % 64;
    held_block b{nullptr, {}, bytes, static_cast<std::uint8_t>(rng_())};
    if (dev_.is_host()) {
      b.mem = kiln::get_default_memory_pool(dev_).allocate(bytes);
      auto *p = static_cast<std::uint8_t *>(b.mem.get());
      for (std::size_t i = 0; i < bytes; ++i)
        p[i] = static_cast<std::uint8_t>(b.tag + i);
    } else {
      std::vector<std::uint8_t> v(bytes);
      for (std::size_t i = 0; i < bytes; ++i)
        v[i] = static_cast<std::uint8_t>(b.tag + i);
      b.gpu = kiln::asarray<std::uint8_t>(v, kiln::shape{static_cast<std::int64_t>(bytes)}, dev_);
    }
    held_.push_back(std::move(b));
  }

  void stream_event() {
    kiln::stream s(dev_);
    kiln::stream_scope scope(s);
    kiln::event e0(dev_), e1(dev_);
    e0.record();
    kiln::shape sh = random_shape();
    auto av = data(static_cast<std::size_t>(sh.numel()));
    auto a = put<double>(av, sh);
    auto r = a * a;
    e1.record(s);
    e1.synchronize();
    if (!e1.query() || !e0.query())
      fail(k_stream_event, "a synchronized event is not complete");
    if (kiln::elapsed_ms(e0, e1) < 0)
      fail(k_stream_event, "negative elapsed time");
    // Another stream waits for the event, then reads r.
    kiln::stream other(dev_);
    e1.wait(other);
    std::vector<double> want(av.size());
    for (std::size_t i = 0; i < av.size(); ++i)
      want[i] = av[i] * av[i];
    {
      kiln::stream_scope on_other(other);
      check(k_stream_event, "a*a after event", get(r), want, 1e-15);
    }
    s.synchronize();
    if (!s.query())
      fail(k_stream_event, "a synchronized stream is busy");
  }

  void matmul() {
    std::int64_t m = dim(1, 24), kk = dim(1, 24), n = dim(1, 24);
    auto av = data(static_cast<std::size_t>(m * kk)), bv = data(static_cast<std::size_t>(kk * n));
    std::vector<double> want(static_cast<std::size_t>(m * n), 0.0);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (std::int64_t p = 0; p < kk; ++p)
          acc += av[i * kk + p] * bv[p * n + j];
        want[i * n + j] = acc;
      }
    kiln::shape want_shape{m, n};
    if (rng_() & 1) {
      auto c = kiln::matmul(put<double>(av, {m, kk}), put<double>(bv, {kk, n}));
      check(k_matmul, "matmul f64", get(c), want, 1e-12, &c.shape(), &want_shape);
    } else {
      auto c = kiln::matmul(put<float>(av, {m, kk}), put<float>(bv, {kk, n}));
      // float32 inputs: compare with the product of the rounded inputs, within
      // the rounding bound of a float32 dot product of length k.
      auto got = get(c);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          double w = 0, mass = 0;
          for (std::int64_t p = 0; p < kk; ++p) {
            double prod = static_cast<double>(static_cast<float>(av[i * kk + p])) * static_cast<float>(bv[p * n + j]);
            w += prod, mass += std::fabs(prod);
          }
          double g = got[static_cast<std::size_t>(i * n + j)];
          if (std::fabs(g - w) > 1.2e-7 * static_cast<double>(kk + 1) * mass) {
            fail(k_matmul, "matmul f32 (" + std::to_string(i) + ", " + std::to_string(j) + "): " + std::to_string(g) +
                               ", want " + std::to_string(w));
            return;
          }
        }
      if (!(c.shape() == want_shape))
        fail(k_matmul, "matmul f32 shape " + kiln::to_string(c.shape()));
    }
  }

  void transfer() {
    kiln::shape s = random_shape();
    auto av = data(static_cast<std::size_t>(s.numel()));
    auto a = put<double>(av, s);
    // To the host and back to the device (both host copies without a GPU).
    auto h = a.to(kiln::device::host());
    auto back = h.to(dev_);
    check(k_transfer, "to(host).to(dev)", get(back), av);
    // Asynchronous copy into a pinned buffer on this thread's stream.
    kiln::pinned_buffer<double> pin(av.size());
    kiln::stream st = kiln::stream::current(dev_);
    a.copy_to_host_async(pin.span(), st);
    st.synchronize();
    check(k_transfer, "copy_to_host_async", std::vector<double>(pin.begin(), pin.end()), av);
    // And from pinned memory into a new array.
    auto b = kiln::empty<double>(s, dev_);
    b.copy_from_host_async(pin, st);
    st.synchronize();
    check(k_transfer, "copy_from_host_async", get(b), av);
  }

  void dlpack() {
    kiln::shape s = random_shape();
    auto av = data(static_cast<std::size_t>(s.numel()));
    auto a = put<double>(av, s);
    DLManagedTensor *t = a.to_dlpack();
    auto b = kiln::from_dlpack<double>(t); // takes ownership: deleter at b's death
    if (b.data() != a.data())
      fail(k_dlpack, "from_dlpack copied");
    check(k_dlpack, "round trip", get(b), av, 0, &b.shape(), &s);
  }

  /// Sends an array to the mailbox and takes one (usually another thread's):
  /// it is read, then freed, here.
  void handoff() {
    kiln::shape s = random_shape();
    auto av = data(static_cast<std::size_t>(s.numel()));
    parcel mine{put<double>(av, s), av, kiln::event(dev_)};
    mine.ready.record(); // orders the sender's work before the receiver's
    std::optional<parcel> theirs;
    {
      std::lock_guard<std::mutex> lock(g_.box.m);
      g_.box.items.push_back(std::move(mine));
      if (g_.box.items.size() > 4) {
        theirs = std::move(g_.box.items.front());
        g_.box.items.pop_front();
      }
    }
    if (theirs) {
      theirs->ready.wait(kiln::stream::current(dev_));
      auto r = theirs->a * 2.0;
      std::vector<double> want(theirs->want.size());
      for (std::size_t i = 0; i < want.size(); ++i)
        want[i] = theirs->want[i] * 2.0;
      check(k_handoff, "received array * 2", get(r), want);
    }
  }

  void shared() {
    double c = data(1)[0];
    auto r = g_.shared * c + 1.0;
    double got = kiln::sum(r).item();
    double want = 0, mag = 0;
    for (double x : g_.shared_host)
      want += x * c + 1.0, mag += std::fabs(x * c) + 1.0;
    if (std::fabs(got - want) > 1e-12 * mag)
      fail(k_shared, "sum(shared * c + 1) " + std::to_string(got) + ", want " + std::to_string(want));
    auto v = g_.shared.slice({kiln::range(3, 40, 3)});
    std::vector<double> wv;
    for (int i = 3; i < 40; i += 3)
      wv.push_back(g_.shared_host[i]);
    check(k_shared, "shared[3:40:3]", get(v), wv);
  }

  /// A hand-written fused kernel through launch_elementwise, on a
  /// contiguous array (_contig) or a strided view (_strided1).
  void fused() {
    const auto &ks = stress_kernels();
    const auto &k = ks.k[rng_() % num_scale_kernels];
    std::int64_t n = dim(1, 3000);
    auto xv = data(static_cast<std::size_t>(n));
    auto x = put<float>(xv, kiln::shape{n});
    const bool strided = rng_() & 1;
    kiln::array<float> in = strided ? x.slice({kiln::range(std::nullopt, std::nullopt, -2)}) : x;
    const float s = static_cast<float>(data(1)[0]);
    auto out = kiln::detail::call_fused<float>(k, {kiln::detail::in(in)}, {kiln::detail::scalar(s)});
    std::vector<double> want;
    for (std::int64_t i = strided ? n - 1 : 0; strided ? i >= 0 : i < n; i += strided ? -2 : 1)
      want.push_back(static_cast<double>(static_cast<float>(xv[i]) * s));
    check(k_fused, std::string(k.name) + (strided ? " strided" : " contig"), get(out), want);
  }

  shared_state &g_;
  kiln::device dev_;
  unsigned id_;
  std::mt19937_64 rng_;
  kiln::random::generator gen_;
  long step_ = 0;
};

TEST(ThreadStress, MixedOperationsFromManyThreads) {
  const long threads = env_long("KILN_STRESS_THREADS", 8);
  const long ops = env_long("KILN_STRESS_OPS", 300);
  const long seed = env_long("KILN_STRESS_SEED", 1);
  shared_state g;
  g.dev = kiln::current_device(); // KILN_DEVICE picks it
  auto &pool = kiln::get_default_memory_pool(g.dev);
  const std::size_t used_before = pool.used_bytes();
  g.gpu = g.dev.is_cuda();
  if (!g.gpu)
    std::printf("[ stress   ] no GPU selected (device %s): real streams/events, cuBLAS and device transfers "
                "are not exercised; their host forms run\n",
                g.dev.str().c_str());
  {
    std::mt19937_64 r(static_cast<std::uint64_t>(seed));
    std::uniform_real_distribution<double> u(0.5, 2.0);
    g.shared_host.resize(50000);
    for (double &x : g.shared_host)
      x = u(r);
    g.shared = kiln::asarray<double>(g.shared_host, kiln::shape{50000}, g.dev);
    kiln::synchronize();
  }
  std::vector<std::unique_ptr<worker>> workers;
  for (long t = 0; t < threads; ++t)
    workers.push_back(std::make_unique<worker>(g, static_cast<unsigned>(t), static_cast<std::uint64_t>(seed)));
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool_threads;
  for (long t = 0; t < threads; ++t)
    pool_threads.emplace_back([&, t] {
      // Each thread selects its device itself (the current device is per
      // thread), as a user thread would.
      kiln::device_scope ds(g.dev);
      workers[t]->run(ops);
    });
  for (auto &t : pool_threads)
    t.join();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::array<long, k_count> total{};
  long all = 0;
  for (auto &w : workers) {
    for (int k = 0; k < k_count; ++k)
      total[k] += w->counts[k], all += w->counts[k];
    for (const std::string &f : w->failures)
      ADD_FAILURE() << f;
  }
  std::printf("[ stress   ] %ld threads x %ld ops on %s: %ld checked in %.2f s (", threads, ops, g.dev.str().c_str(),
              all, secs);
  for (int k = 0; k < k_count; ++k)
    std::printf("%s%s %ld", k ? ", " : "", kind_names[k], total[k]);
  std::printf(")\n");
  EXPECT_EQ(all, threads * ops);

  // Everything the threads allocated went back to the pool (the mailbox
  // still holds its last few arrays).
  g.box.items.clear();
  g.shared = kiln::array<double>();
  kiln::synchronize();
  EXPECT_EQ(pool.used_bytes(), used_before);
  pool.free_all_blocks();
  EXPECT_EQ(pool.total_bytes(), pool.used_bytes());
}

/// The hand-written PTX of the fused kernels assembles (checked without a
/// GPU too, where the toolkit's ptxas is found).
TEST(ThreadStress, KernelPtxAssemblesWithPtxas) {
  const char *ptxas = nullptr;
  for (const char *c : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"})
    if (FILE *f = std::fopen(c, "r")) {
      std::fclose(f);
      ptxas = c;
      break;
    }
  if (!ptxas)
    GTEST_SKIP() << "ptxas not found";
  const std::string path = ::testing::TempDir() + "kiln_stress_scale_" + std::to_string(::getpid()) + ".ptx";
  FILE *f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(stress_kernels().ptx[0].c_str(), f);
  std::fclose(f);
  const std::string cmd = std::string(ptxas) + " -arch=sm_80 " + path + " -o " + path + ".cubin";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << stress_kernels().ptx[0];
  std::remove(path.c_str());
  std::remove((path + ".cubin").c_str());
}

/// Many threads asking for the same never-used state at once: the default
/// pools, the device default, properties and the pinned pool are created
/// lazily under a race.
TEST(ThreadStress, FirstUseFromManyThreadsAtOnce) {
  std::atomic<int> ready{0};
  std::atomic<int> bad{0};
  const kiln::device dev = kiln::current_device();
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&] {
      ready.fetch_add(1);
      while (ready.load() < 8) {
      }
      try {
        kiln::device d = kiln::current_device();
        if (!(d == dev))
          ++bad;
        auto &p = kiln::get_default_memory_pool(d);
        auto &q = kiln::get_default_pinned_memory_pool();
        if (&p != &kiln::get_default_memory_pool(d) || &q != &kiln::get_default_pinned_memory_pool())
          ++bad;
        if (kiln::properties(d).multiprocessors < 1)
          ++bad;
        kiln::pinned_buffer<int> pin(100);
        pin[99] = 1;
        auto x = kiln::arange<double>(1.0, 101.0, 1.0, d);
        if (kiln::sum(x).item() != 5050.0)
          ++bad;
      } catch (...) {
        ++bad;
      }
    });
  for (auto &t : ts)
    t.join();
  EXPECT_EQ(bad.load(), 0);
}

} // namespace
