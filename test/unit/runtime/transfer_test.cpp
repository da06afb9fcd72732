// Tests of transfers: to(), to_vector, copy_to_host / copy_from_host in C
// order for strided views, the async forms with pinned buffers, item(), and
// their errors; the staging of pageable transfers (its plan, its knobs, the
// multi-threaded copy, and both pipelines against a simulated stream that
// runs a DMA only when something waits for it); on a GPU: H2D/D2H round
// trips, strided transfers, D2D on one device, copies between two GPUs, and
// staged transfers at every chunk boundary, for every item size, ordered on
// their stream, with their fallbacks.
#include "gpu.hpp"

#include "kiln/creation.hpp"
#include "kiln/kiln.hpp"

#include <gtest/gtest.h>

#include "expect.hpp"
#include "runtime/array/staging.hpp"

#include <complex>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using kiln::array;
using kiln::shape;
const kiln::device host = kiln::device::host();



/// C order of a[::-1, 1::2] of a (rows x cols) row-major matrix.
std::vector<double> reference_view(const std::vector<double> &v, int rows,
                                   int cols) {
  std::vector<double> out;
  for (int i = rows - 1; i >= 0; --i)
    for (int j = 1; j < cols; j += 2)
      out.push_back(v[i * cols + j]);
  return out;
}

} // namespace

TEST(Transfer, HostToHostIsACopy) {
  auto v = random_doubles(20, 1);
  auto a = kiln::asarray<double>(v, {4, 5}, host);
  auto b = a.to(host);
  EXPECT_NE(b.data(), a.data());
  EXPECT_EQ(b.to_vector(), v);
  auto t = a.T().to(host);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.to_vector(), a.T().to_vector());
}

TEST(Transfer, CopyToAndFromHostInCOrderOfViews) {
  auto v = random_doubles(48, 2);
  auto a = kiln::asarray<double>(v, {6, 8}, host);
  auto view = a.slice({kiln::range(std::nullopt, std::nullopt, -1),
                       kiln::range(1, std::nullopt, 2)});
  std::vector<double> out(24);
  view.copy_to_host(out);
  EXPECT_EQ(out, reference_view(v, 6, 8));
  auto w = random_doubles(24, 3);
  view.copy_from_host(w);
  EXPECT_EQ(view.to_vector(), w);
  auto all = a.to_vector();
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 8; j += 2)
      EXPECT_EQ(all[i * 8 + j], v[i * 8 + j]) << "untouched even columns";
}

TEST(Transfer, AsyncFormsWithPinnedBuffers) {
  auto v = random_doubles(32, 4);
  auto a = kiln::asarray<double>(v, host);
  kiln::stream s(host);
  kiln::pinned_buffer<double> buf(32);
  a.copy_to_host_async(buf.span(), s);
  s.synchronize();
  EXPECT_EQ(std::vector<double>(buf.begin(), buf.end()), v);
  for (auto &x : buf)
    x *= 2;
  a.copy_from_host_async(buf, s);
  s.synchronize();
  EXPECT_EQ(a.to_vector()[5], 2 * v[5]);
  auto c = a.to_async(host, s);
  s.synchronize();
  EXPECT_EQ(c.to_vector(), a.to_vector());
}

TEST(Transfer, ErrorsAndTheProgramGoesOn) {
  auto a = kiln::zeros<float>({2, 3}, host);
  std::vector<float> small(5);
  expect_message<kiln::shape_error>(
      [&] { a.copy_to_host(small); },
      "host buffer of 5 elements does not match array of size 6");
  expect_message<kiln::shape_error>(
      [&] { a.copy_from_host(small); },
      "host buffer of 5 elements does not match array of size 6");
  expect_message<kiln::value_error>(
      [&] { a.item(); },
      "can only convert an array of size 1 to a Python scalar");
  EXPECT_THROW(a.to(kiln::device::cuda(kiln::cuda_device_count() + 1)),
               kiln::device_error);
  std::vector<float> ok(6, 1.0f);
  a.copy_from_host(ok);
  EXPECT_EQ(a.to_vector(), ok);
  EXPECT_EQ(a.slice({1, 2}).item(), 1.0f);
}

TEST(TransferGpu, RoundTripsMatchTheHost) {
  KILN_REQUIRE_GPU();
  kiln::device gpu = kiln::device::cuda(0);
  auto v = random_doubles(6 * 8, 5);
  auto h = kiln::asarray<double>(v, {6, 8}, host);
  auto g = h.to(gpu);
  EXPECT_EQ(g.device(), gpu);
  EXPECT_EQ(g.to_vector(), v);
  EXPECT_EQ(g.to(host).to_vector(), v);
  // Strided views: D2H and H2D through device temporaries.
  auto gview = g.slice({kiln::range(std::nullopt, std::nullopt, -1),
                        kiln::range(1, std::nullopt, 2)});
  std::vector<double> out(24);
  gview.copy_to_host(out);
  EXPECT_EQ(out, reference_view(v, 6, 8));
  EXPECT_EQ(gview.to(host).to_vector(), out);
  auto w = random_doubles(24, 6);
  gview.copy_from_host(w);
  EXPECT_EQ(gview.to_vector(), w);
  // Host views to the device.
  auto hview = h.slice({kiln::range(std::nullopt, std::nullopt, -1),
                        kiln::range(1, std::nullopt, 2)});
  EXPECT_EQ(hview.to(gpu).to_vector(), reference_view(v, 6, 8));
  // D2D on one device is a contiguous copy.
  auto d = gview.to(gpu);
  EXPECT_NE(d.data(), gview.data());
  EXPECT_TRUE(d.is_contiguous());
  EXPECT_EQ(d.to_vector(), w);
  EXPECT_EQ(kiln::full<float>({1}, 4.5f, gpu).item(), 4.5f);
  // Complex and bool round trips.
  std::vector<std::complex<float>> cv = {{1, 2}, {-3, 4}, {5, -6}};
  EXPECT_EQ(kiln::asarray<std::complex<float>>(cv, gpu).to_vector(), cv);
  std::vector<bool> bv = {true, false, false, true};
  EXPECT_EQ(kiln::asarray(bv, gpu).to_vector(), bv);
}

TEST(TransferGpu, AsyncWithPinnedMemoryOnAStream) {
  KILN_REQUIRE_GPU();
  kiln::device gpu = kiln::device::cuda(0);
  const std::size_t n = 1 << 20;
  kiln::pinned_buffer<float> in(n), out(n);
  for (std::size_t i = 0; i < n; ++i)
    in[i] = static_cast<float>(i % 1000) * 0.5f;
  kiln::stream s(gpu);
  auto g = kiln::empty<float>({static_cast<std::int64_t>(n)}, gpu);
  g.copy_from_host_async(in, s);
  auto r = g.slice({kiln::range(std::nullopt, std::nullopt, -1)});
  r.copy_to_host_async(out.span(), s);
  s.synchronize();
  for (std::size_t i = 0; i < n; i += 997)
    ASSERT_EQ(out[i], in[n - 1 - i]);
}

TEST(TransferGpu, CopiesBetweenTwoGpus) {
  KILN_REQUIRE_GPUS(2);
  kiln::device g0 = kiln::device::cuda(0), g1 = kiln::device::cuda(1);
  auto v = random_doubles(1000 * 3, 7);
  auto a = kiln::asarray<double>(v, {1000, 3}, g0);
  auto b = a.to(g1);
  EXPECT_EQ(b.device(), g1);
  EXPECT_EQ(b.to_vector(), v);
  auto t = a.T().to(g1); // non-contiguous source
  EXPECT_EQ(t.to_vector(), a.T().to(host).to_vector());
  auto back = b.to(g0);
  EXPECT_EQ(back.to_vector(), v);
  kiln::stream s(g1);
  auto c = a.to_async(g1, s);
  s.synchronize();
  EXPECT_EQ(c.to_vector(), v);
  // Arrays of two GPUs in one operation are a device_error.
  EXPECT_THROW(kiln::detail::assign(a, b, kiln::stream::current(g0)),
               kiln::device_error);
}

// ---------------------------------------------------------------------------
// Staging of pageable transfers (runtime/array/staging.hpp).

namespace st = kiln::detail::staging;

namespace {

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::vector<unsigned char> v(n);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t x = gen();
    std::memcpy(&v[i], &x, 8);
  }
  for (; i < n; ++i)
    v[i] = static_cast<unsigned char>(gen());
  return v;
}

/// Every copy staged (threshold 0), in chunks of exactly `chunk` bytes.
st::config fixed_chunk(std::size_t chunk) {
  st::config c;
  c.threshold = 0;
  c.max_chunk = chunk;
  c.min_chunk = chunk;
  return c;
}

/// A stream simulated on the host for the pipelines of staging.hpp: a
/// transfer is queued and runs, in order, only when a wait or finish needs
/// it, so a pipeline that refilled a buffer too early, or drained one before
/// its transfer, moves the wrong bytes. It also checks the protocol as it
/// goes and counts the chunks whose host copy ran while another chunk's
/// transfer was still queued (overlap).
class sim_engine {
public:
  sim_engine(const st::plan &p, bool to_device,
             std::vector<unsigned char> &host,
             std::vector<unsigned char> &device)
      : p_(p), to_device_(to_device), host_(host), device_(device),
        buffers_(static_cast<std::size_t>(p.buffers),
                 std::vector<unsigned char>(p.chunk, 0xCD)) {}

  // Host -> device.
  void fill(int b, st::range r) {
    check(b, r);
    EXPECT_FALSE(queued_for(b))
        << "buffer " << b << " refilled while its transfer is queued";
    std::memcpy(buffers_[b].data(), host_.data() + r.offset, r.size);
    host_copies(r);
  }
  void transfer(int b, st::range r) {
    check(b, r);
    if (to_device_) {
      queue_.push_back({false, b, 0, [this, b, r] {
                          std::memcpy(device_.data() + r.offset,
                                      buffers_[b].data(), r.size);
                        }});
      return;
    }
    EXPECT_FALSE(queued_for(b) || holds_[b])
        << "buffer " << b << " overwritten before drained";
    holds_[b] = true;
    queue_.push_back({false, b, 0, [this, b, r] {
                        std::memcpy(buffers_[b].data(),
                                    device_.data() + r.offset, r.size);
                        landed_[b] = r.offset;
                      }});
  }
  void record(int b) {
    check(b, {0, 0});
    queue_.push_back({true, b, ++seq_, {}});
    recorded_[b] = seq_;
  }
  void wait(int b) {
    check(b, {0, 0});
    ASSERT_NE(recorded_[b], 0u) << "wait for buffer " << b << " never recorded";
    run_until(recorded_[b]);
  }
  void finish() { run_until(seq_ + 1); }

  // Device -> host.
  void drain(int b, st::range r) {
    check(b, r);
    EXPECT_FALSE(queued_for(b)) << "buffer " << b << " drained too early";
    EXPECT_EQ(landed_[b], r.offset) << "buffer " << b << " holds another chunk";
    std::memcpy(host_.data() + r.offset, buffers_[b].data(), r.size);
    holds_[b] = false;
    host_copies(r);
  }

  bool idle() const { return queue_.empty(); }
  std::size_t host_copies_done() const { return copies_; }
  std::size_t overlapped() const { return overlapped_; }
  std::size_t covered() const { return covered_; }

private:
  struct op {
    bool is_record;
    int buffer;
    std::uint64_t seq;
    std::function<void()> run;
  };

  void check(int b, st::range r) {
    ASSERT_GE(b, 0);
    ASSERT_LT(b, p_.buffers);
    ASSERT_LE(r.size, p_.chunk);
  }
  bool queued_for(int b) const {
    for (const op &o : queue_)
      if (!o.is_record && o.buffer == b)
        return true;
    return false;
  }
  void host_copies(st::range r) {
    EXPECT_EQ(r.offset, covered_) << "chunks in order, none skipped";
    covered_ = r.offset + r.size;
    ++copies_;
    for (const op &o : queue_)
      if (!o.is_record) {
        ++overlapped_;
        break;
      }
  }
  void run_until(std::uint64_t seq) {
    while (done_seq_ < seq && !queue_.empty()) {
      op o = std::move(queue_.front());
      queue_.pop_front();
      if (o.is_record)
        done_seq_ = o.seq;
      else
        o.run();
    }
  }

  st::plan p_;
  bool to_device_;
  std::vector<unsigned char> &host_;
  std::vector<unsigned char> &device_;
  std::vector<std::vector<unsigned char>> buffers_;
  std::deque<op> queue_;
  std::uint64_t seq_ = 0, done_seq_ = 0;
  std::uint64_t recorded_[st::max_buffers] = {};
  bool holds_[st::max_buffers] = {};
  std::size_t landed_[st::max_buffers] = {};
  std::size_t copies_ = 0, overlapped_ = 0, covered_ = 0;
};

/// Byte sizes around the boundaries of chunks of `c` bytes.
std::vector<std::size_t> boundary_sizes(std::size_t c) {
  std::vector<std::size_t> v = {1,     2,         3,         777,
                                c - 1, c,         c + 1,     c * 2 - 1,
                                c * 2, c * 2 + 1, c * 5 / 2, c * 10 + 3};
  std::vector<std::size_t> out;
  for (std::size_t n : v)
    if (n > 0)
      out.push_back(n);
  return out;
}

} // namespace

TEST(Staging, PlanKeepsSmallCopiesOnTheDriverPath) {
  const st::config c;
  EXPECT_FALSE(st::make_plan(0, c).staged);
  EXPECT_FALSE(st::make_plan(1, c).staged);
  EXPECT_FALSE(st::make_plan(st::threshold_bytes - 1, c).staged);
  st::plan p = st::make_plan(st::threshold_bytes, c);
  EXPECT_TRUE(p.staged);
  EXPECT_EQ(p.chunk, st::min_chunk_bytes);
  EXPECT_EQ(p.chunks, 4u);
  EXPECT_EQ(p.buffers, 2);
  p = st::make_plan(std::size_t(1) << 30, c); // the benchmark's 1 GiB
  EXPECT_EQ(p.chunk, st::max_chunk_bytes);
  EXPECT_EQ(p.chunks, (std::size_t(1) << 30) / st::max_chunk_bytes);
  EXPECT_EQ(p.buffers, 2);
  st::config off = c;
  off.max_chunk = 0;
  EXPECT_FALSE(st::make_plan(std::size_t(1) << 30, off).staged);
  // A fixed chunk: one buffer for one chunk, two beyond.
  p = st::make_plan(5, fixed_chunk(7));
  EXPECT_TRUE(p.staged);
  EXPECT_EQ(p.chunk, 7u);
  EXPECT_EQ(p.chunks, 1u);
  EXPECT_EQ(p.buffers, 1);
  p = st::make_plan(8, fixed_chunk(7));
  EXPECT_EQ(p.chunks, 2u);
  EXPECT_EQ(p.buffers, 2);
}

TEST(Staging, PlanChunksArePowersOfTwoThatCoverTheCopyExactly) {
  const st::config c;
  std::mt19937_64 gen(11);
  std::vector<std::size_t> sizes = {
      st::threshold_bytes,         st::threshold_bytes + 1,
      4 * st::max_chunk_bytes - 1, 4 * st::max_chunk_bytes,
      4 * st::max_chunk_bytes + 1, (std::size_t(1) << 30) + 3,
      std::size_t(100) << 30};
  for (int i = 0; i < 2000; ++i)
    sizes.push_back(st::threshold_bytes + gen() % (std::size_t(4) << 30));
  for (std::size_t n : sizes) {
    const st::plan p = st::make_plan(n, c);
    ASSERT_TRUE(p.staged) << n;
    EXPECT_EQ(p.chunk & (p.chunk - 1), 0u) << n;
    EXPECT_GE(p.chunk, st::min_chunk_bytes) << n;
    EXPECT_LE(p.chunk, st::max_chunk_bytes) << n;
    // At least target_chunks chunks unless the chunk is already the largest.
    if (p.chunk < st::max_chunk_bytes) {
      EXPECT_GE(p.chunks, st::target_chunks) << n;
    }
    EXPECT_EQ(p.chunks, st::ceil_div(n, p.chunk)) << n;
    // Contiguous, in order, none empty, the last one ends at n.
    const st::range last = st::chunk_range(p, n, p.chunks - 1);
    EXPECT_GT(last.size, 0u) << n;
    EXPECT_LE(last.size, p.chunk) << n;
    EXPECT_EQ(last.offset + last.size, n) << n;
    if (p.chunks > 1) {
      const st::range prev = st::chunk_range(p, n, p.chunks - 2);
      EXPECT_EQ(prev.size, p.chunk);
      EXPECT_EQ(prev.offset + prev.size, last.offset);
    }
  }
}

TEST(Staging, EnvironmentKnobs) {
  st::config d = st::parse_env(nullptr, nullptr);
  EXPECT_EQ(d.threshold, st::threshold_bytes);
  EXPECT_EQ(d.max_chunk, st::max_chunk_bytes);
  EXPECT_EQ(d.min_chunk, st::min_chunk_bytes);
  EXPECT_EQ(d.threads, st::default_threads);
  st::config c = st::parse_env(" 32 ", "3");
  EXPECT_EQ(c.max_chunk, 32 * st::mib);
  EXPECT_EQ(c.min_chunk, st::min_chunk_bytes);
  EXPECT_EQ(c.threads, 3);
  c = st::parse_env("1", "+16");
  EXPECT_EQ(c.max_chunk, st::mib);
  EXPECT_EQ(c.min_chunk, st::mib); // lowered to the largest chunk
  EXPECT_EQ(c.threads, 16);
  c = st::parse_env("0", nullptr); // staging off
  EXPECT_EQ(c.max_chunk, 0u);
  EXPECT_FALSE(st::make_plan(std::size_t(1) << 30, c).staged);
  for (const char *bad : {"", " ", "-1", "abc", "16M", "1025", "99999999999"})
    EXPECT_EQ(st::parse_env(bad, nullptr).max_chunk, st::max_chunk_bytes)
        << bad;
  for (const char *bad : {"", "0", "-1", "abc", "4x", "4097", "99999999999"})
    EXPECT_EQ(st::parse_env(nullptr, bad).threads, st::default_threads) << bad;
}

TEST(Staging, ParallelCopyIsExactAtEveryAlignment) {
  const std::vector<std::size_t> sizes = {
      0, 1, 7, 4095, 4096, 4097, 65537, 262145, 3 << 20, (3 << 20) + 13};
  for (std::size_t n : sizes)
    for (std::size_t src_off : {0, 1, 5})
      for (std::size_t dst_off : {0, 3})
        for (int threads : {1, 2, 8}) {
          auto src =
              random_bytes(n + src_off + 1, static_cast<unsigned>(n + 1));
          std::vector<unsigned char> dst(n + dst_off + 1, 0xAB);
          st::parallel_copy(dst.data() + dst_off, src.data() + src_off, n,
                            threads);
          ASSERT_EQ(std::memcmp(dst.data() + dst_off, src.data() + src_off, n),
                    0)
              << n << " " << src_off << " " << dst_off << " " << threads;
          ASSERT_EQ(dst[n + dst_off], 0xAB) << "wrote past the end";
          if (dst_off) {
            ASSERT_EQ(dst[0], 0xAB) << "wrote before the start";
          }
        }
}

TEST(Staging, PipelinesOnASimulatedStream) {
  for (std::size_t chunk : {1, 7, 4096, 4097}) {
    for (std::size_t n : boundary_sizes(chunk)) {
      const st::plan p = st::make_plan(n, fixed_chunk(chunk));
      ASSERT_TRUE(p.staged);
      ASSERT_EQ(p.chunk, chunk);
      // Host -> device.
      auto host = random_bytes(n, static_cast<unsigned>(n * 31 + chunk));
      std::vector<unsigned char> device(n, 0xEE);
      sim_engine h2d(p, true, host, device);
      st::run_h2d(h2d, p, n);
      EXPECT_TRUE(h2d.idle()) << "H2D returned with transfers queued";
      EXPECT_EQ(h2d.host_copies_done(), p.chunks);
      EXPECT_EQ(h2d.covered(), n);
      EXPECT_EQ(h2d.overlapped(), p.chunks - 1)
          << "every chunk after the first is copied while the previous one "
             "is on the bus";
      ASSERT_EQ(device, host) << "H2D chunk " << chunk << " size " << n;
      // Device -> host.
      auto dev2 = random_bytes(n, static_cast<unsigned>(n * 17 + chunk));
      std::vector<unsigned char> out(n, 0xEE);
      sim_engine d2h(p, false, out, dev2);
      st::run_d2h(d2h, p, n);
      EXPECT_TRUE(d2h.idle()) << "D2H returned with transfers queued";
      EXPECT_EQ(d2h.host_copies_done(), p.chunks);
      EXPECT_EQ(d2h.covered(), n);
      EXPECT_EQ(d2h.overlapped(), p.chunks - 1)
          << "every chunk but the last is drained while the next one is on "
             "the bus";
      ASSERT_EQ(out, dev2) << "D2H chunk " << chunk << " size " << n;
    }
  }
}

namespace {

/// Replaces the staging configuration for the life of the scope.
class staging_scope {
public:
  explicit staging_scope(const st::config &c)
      : old_(st::set_config_for_testing(c)) {}
  ~staging_scope() { st::set_config_for_testing(old_); }
  staging_scope(const staging_scope &) = delete;
  staging_scope &operator=(const staging_scope &) = delete;

private:
  st::config old_;
};

template <class T> std::vector<T> random_values(std::size_t n, unsigned seed) {
  auto bytes = random_bytes(n * sizeof(T), seed); // any bits: NaNs included
  std::vector<T> v(n);
  if (n)
    std::memcpy(static_cast<void *>(v.data()), bytes.data(), bytes.size());
  return v;
}

template <class T>
bool same_bytes(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() &&
         (a.empty() ||
          std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// H2D and D2H of n elements of T through every public entry point:
/// copy_from_host / copy_to_host, to_vector, asarray, to(gpu) and to(host).
template <class T> void round_trip(std::size_t n, unsigned seed) {
  SCOPED_TRACE(testing::Message() << sizeof(T) << "-byte items, n = " << n);
  const kiln::device gpu = kiln::device::cuda(0);
  const auto v = random_values<T>(n, seed);
  const auto len = static_cast<std::int64_t>(n);
  auto g = kiln::empty<T>({len}, gpu);
  g.copy_from_host(std::span<const T>(v));
  std::vector<T> out = random_values<T>(n, seed + 1);
  g.copy_to_host(std::span<T>(out));
  EXPECT_TRUE(same_bytes(out, v)) << "copy_from_host / copy_to_host";
  EXPECT_TRUE(same_bytes(g.to_vector(), v)) << "to_vector";
  auto a = kiln::asarray<T>(v, gpu);
  EXPECT_TRUE(same_bytes(a.to(host).to_vector(), v)) << "asarray, to(host)";
  auto h = kiln::asarray<T>(v, host);
  EXPECT_TRUE(same_bytes(h.to(gpu).to_vector(), v)) << "to(gpu)";
}

template <class T> void round_trips_around(std::size_t chunk, unsigned seed) {
  const std::size_t sz = sizeof(T);
  for (std::size_t bytes :
       {std::size_t(0), std::size_t(1), sz * 3 + 1, chunk - 1, chunk, chunk + 1,
        chunk + sz, 2 * chunk - sz, 2 * chunk + sz, chunk * 5 / 2})
    round_trip<T>(st::ceil_div(bytes, sz), seed++);
}

} // namespace

TEST(TransferGpu, StagedRoundTripsAtChunkBoundariesForEveryItemSize) {
  KILN_REQUIRE_GPU();
  // An odd chunk, so chunks split items and start at odd addresses.
  const std::size_t chunk = (std::size_t(1) << 20) + 1;
  staging_scope scope(fixed_chunk(chunk));
  round_trips_around<std::uint8_t>(chunk, 100);
  round_trips_around<std::int8_t>(chunk, 200);
  round_trips_around<std::int32_t>(chunk, 300);
  round_trips_around<float>(chunk, 400);
  round_trips_around<std::int64_t>(chunk, 500);
  round_trips_around<double>(chunk, 600);
  round_trips_around<std::complex<float>>(chunk, 700);
  round_trips_around<std::complex<double>>(chunk, 800);
  // bool: asarray(std::vector<bool>) and to_vector go through bytes.
  std::mt19937 gen(9);
  std::vector<bool> bv(chunk * 5 / 2);
  for (std::size_t i = 0; i < bv.size(); ++i)
    bv[i] = gen() & 1;
  EXPECT_EQ(kiln::asarray(bv, kiln::device::cuda(0)).to_vector(), bv);
}

TEST(TransferGpu, StagedRoundTripsWithTheDefaultPlan) {
  KILN_REQUIRE_GPU();
  staging_scope scope(st::config{}); // whatever the environment says
  const std::size_t big = 4 * st::max_chunk_bytes;
  for (std::size_t bytes :
       {st::threshold_bytes - 1, st::threshold_bytes, st::threshold_bytes + 1,
        big - 1, big, big + 1, big * 5 / 2 + 3, (std::size_t(100) << 20) + 5})
    round_trip<std::uint8_t>(bytes, static_cast<unsigned>(bytes));
  round_trip<float>((std::size_t(100) << 20) / 4 + 1, 77); // ~100 MiB
  round_trip<std::complex<double>>(big / 16 + 1, 78);
}

TEST(TransferGpu, StagedCopiesTakeThePinnedPoolsBuffersAndGiveThemBack) {
  KILN_REQUIRE_GPU();
  const std::size_t chunk = std::size_t(1) << 20;
  staging_scope scope(fixed_chunk(chunk));
  kiln::memory_pool &pinned = kiln::get_default_pinned_memory_pool();
  pinned.free_all_blocks();
  const std::size_t used = pinned.used_bytes();
  const auto v = random_values<float>(3 * chunk / 4 + 5, 1); // > 3 chunks
  auto g = kiln::asarray<float>(v, kiln::device::cuda(0));
  EXPECT_GE(pinned.total_bytes(), 2 * chunk) << "two staging buffers";
  EXPECT_EQ(pinned.used_bytes(), used) << "given back";
  const std::size_t total = pinned.total_bytes();
  EXPECT_TRUE(same_bytes(g.to_vector(), v));
  EXPECT_EQ(pinned.total_bytes(), total) << "the cached buffers are reused";
  EXPECT_EQ(pinned.used_bytes(), used);
}

TEST(TransferGpu, StagedCopiesFallBackWhenNoPinnedMemoryIsLeft) {
  KILN_REQUIRE_GPU();
  staging_scope scope(fixed_chunk(std::size_t(1) << 20));
  kiln::memory_pool &pinned = kiln::get_default_pinned_memory_pool();
  pinned.free_all_blocks();
  const std::size_t limit = pinned.get_limit();
  pinned.set_limit(4096); // far less than two staging buffers
  const auto v = random_values<double>(1 << 20, 2);
  std::vector<double> out(v.size());
  try {
    auto g = kiln::asarray<double>(v, kiln::device::cuda(0));
    g.copy_to_host(std::span<double>(out));
  } catch (...) {
    pinned.set_limit(limit);
    throw;
  }
  EXPECT_LE(pinned.total_bytes(), 4096u);
  pinned.set_limit(limit);
  EXPECT_TRUE(same_bytes(out, v));
}

TEST(TransferGpu, PinnedHostMemoryWithTheSynchronousFormsIsCopiedDirectly) {
  KILN_REQUIRE_GPU();
  staging_scope scope(fixed_chunk(std::size_t(1) << 20));
  const std::size_t n = 3 << 20;
  kiln::pinned_buffer<float> in(n), out(n);
  const auto v = random_values<float>(n, 3);
  std::memcpy(in.data(), v.data(), n * sizeof(float));
  kiln::memory_pool &pinned = kiln::get_default_pinned_memory_pool();
  pinned.free_all_blocks();
  const std::size_t total = pinned.total_bytes();
  auto g =
      kiln::empty<float>({static_cast<std::int64_t>(n)}, kiln::device::cuda(0));
  g.copy_from_host(std::span<const float>(in.data(), n));
  g.copy_to_host(out.span());
  EXPECT_EQ(pinned.total_bytes(), total) << "no staging buffers taken";
  EXPECT_EQ(std::memcmp(out.data(), v.data(), n * sizeof(float)), 0);
}

TEST(TransferGpu, StagedCopiesOfStridedViews) {
  KILN_REQUIRE_GPU();
  staging_scope scope(fixed_chunk((std::size_t(1) << 20) + 3));
  const kiln::device gpu = kiln::device::cuda(0);
  const std::int64_t rows = 1000, cols = 2001;
  const auto v = random_values<double>(rows * cols, 4);
  auto g = kiln::asarray<double>(v, {rows, cols}, gpu);
  auto view = g.slice({kiln::range(std::nullopt, std::nullopt, -1),
                       kiln::range(1, std::nullopt, 2)});
  std::vector<double> expected;
  for (std::int64_t i = rows - 1; i >= 0; --i)
    for (std::int64_t j = 1; j < cols; j += 2)
      expected.push_back(v[i * cols + j]);
  std::vector<double> out(expected.size());
  view.copy_to_host(std::span<double>(out));
  EXPECT_TRUE(same_bytes(out, expected));
  EXPECT_TRUE(same_bytes(view.to(host).to_vector(), expected));
  const auto w = random_values<double>(expected.size(), 5);
  view.copy_from_host(std::span<const double>(w));
  EXPECT_TRUE(same_bytes(view.to_vector(), w));
  const auto all = g.to_vector();
  for (std::int64_t i = 0; i < rows; i += 7)
    for (std::int64_t j = 0; j < cols; j += 2)
      ASSERT_EQ(std::memcmp(&all[i * cols + j], &v[i * cols + j], 8), 0)
          << "even columns untouched";
}

TEST(TransferGpu, StagedCopiesAreOrderedOnTheCurrentStream) {
  KILN_REQUIRE_GPU();
  staging_scope scope(fixed_chunk(std::size_t(1) << 20));
  const kiln::device gpu = kiln::device::cuda(0);
  kiln::stream s(gpu);
  kiln::stream_scope current(s);
  const std::int64_t n = 16 << 20; // 64 MiB of float
  auto g = kiln::empty<float>({n}, gpu);
  // Work queued before a D2H: the copy sees its result.
  for (int i = 1; i <= 8; ++i) {
    const float value = static_cast<float>(i);
    kiln::detail::fill(g, &value, s);
  }
  std::vector<float> out(static_cast<std::size_t>(n));
  g.copy_to_host(std::span<float>(out));
  for (std::size_t i = 0; i < out.size(); i += 4099)
    ASSERT_EQ(out[i], 8.0f) << i;
  ASSERT_EQ(out.back(), 8.0f);
  // Work queued before an H2D: the copy lands after it.
  for (int i = 1; i <= 8; ++i) {
    const float value = static_cast<float>(-i);
    kiln::detail::fill(g, &value, s);
  }
  const auto v = random_values<float>(static_cast<std::size_t>(n), 6);
  g.copy_from_host(std::span<const float>(v));
  EXPECT_TRUE(same_bytes(g.to_vector(), v));
}

TEST(TransferGpu, StagedCopiesFromTwoThreadsAtOnce) {
  KILN_REQUIRE_GPU();
  staging_scope scope(fixed_chunk(std::size_t(1) << 20));
  const kiln::device gpu = kiln::device::cuda(0);
  std::vector<std::vector<float>> inputs, outputs(2);
  for (unsigned t = 0; t < 2; ++t)
    inputs.push_back(random_values<float>((10u << 20) + t, 10 + t));
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      kiln::stream s(gpu);
      kiln::stream_scope current(s);
      for (int rep = 0; rep < 3; ++rep)
        outputs[t] = kiln::asarray<float>(inputs[t], gpu).to_vector();
    });
  for (auto &th : threads)
    th.join();
  for (unsigned t = 0; t < 2; ++t)
    EXPECT_TRUE(same_bytes(outputs[t], inputs[t])) << t;
}
