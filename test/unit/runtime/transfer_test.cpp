// Tests of transfers: to(), to_vector, copy_to_host / copy_from_host in C
// order for strided views, the async forms with pinned buffers, item(), and
// their errors; on a GPU: H2D/D2H round trips, strided transfers, D2D on one
// device, and copies between two GPUs.
#include "gpu.hpp"

#include "kiln/creation.hpp"
#include "kiln/kiln.hpp"

#include <gtest/gtest.h>

#include "expect.hpp"

#include <complex>
#include <random>
#include <string>
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
