// Tests of DLPack interop: export keeps the buffer alive until the deleter
// runs, import adopts foreign memory without copying and calls its deleter
// once, strided and 0-d tensors round-trip, and bad tensors are errors.
#include "gpu.hpp"

#include "kiln/creation.hpp"
#include "kiln/dlpack.h"
#include "kiln/kiln.hpp"

#include <gtest/gtest.h>

#include <complex>
#include <random>
#include <string>
#include <vector>

namespace {

using kiln::array;
using kiln::shape;
const kiln::device host = kiln::device::host();

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-5.0f, 5.0f);
  std::vector<float> v(n);
  for (auto &x : v)
    x = u(gen);
  return v;
}

/// A foreign tensor over caller memory that counts deleter calls.
struct foreign {
  std::vector<std::int64_t> shape, strides;
  DLManagedTensor t{};
  int deleted = 0;
};

DLManagedTensor *make_foreign(foreign &f, void *data, DLDataType dt,
                              DLDevice dev) {
  f.t.dl_tensor.data = data;
  f.t.dl_tensor.device = dev;
  f.t.dl_tensor.ndim = static_cast<std::int32_t>(f.shape.size());
  f.t.dl_tensor.dtype = dt;
  f.t.dl_tensor.shape = f.shape.data();
  f.t.dl_tensor.strides = f.strides.empty() ? nullptr : f.strides.data();
  f.t.dl_tensor.byte_offset = 0;
  f.t.manager_ctx = &f;
  f.t.deleter = [](DLManagedTensor *self) {
    ++static_cast<foreign *>(self->manager_ctx)->deleted;
  };
  return &f.t;
}

} // namespace

TEST(DLPack, ExportDescribesTheArrayAndKeepsItAlive) {
  auto v = random_floats(12, 1);
  DLManagedTensor *t;
  {
    auto a = kiln::asarray<float>(v, {3, 4}, host);
    t = a.T().to_dlpack();
  }
  const DLTensor &d = t->dl_tensor;
  EXPECT_EQ(d.device.device_type, kDLCPU);
  EXPECT_EQ(d.ndim, 2);
  EXPECT_EQ(d.dtype.code, kDLFloat);
  EXPECT_EQ(d.dtype.bits, 32);
  EXPECT_EQ(d.dtype.lanes, 1);
  EXPECT_EQ(d.shape[0], 4);
  EXPECT_EQ(d.shape[1], 3);
  EXPECT_EQ(d.strides[0], 1);
  EXPECT_EQ(d.strides[1], 4);
  const float *p =
      static_cast<const float *>(d.data) + d.byte_offset / sizeof(float);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(p[i * d.strides[0] + j * d.strides[1]], v[j * 4 + i]);
  t->deleter(t); // frees the export and its reference on the buffer
}

TEST(DLPack, ImportSharesMemoryAndCallsTheDeleterOnce) {
  auto v = random_floats(24, 2);
  foreign f;
  f.shape = {4, 3};
  f.strides = {1, 8}; // column-major-like view of v with a gap
  {
    auto a = kiln::from_dlpack<float>(
        make_foreign(f, v.data(), {kDLFloat, 32, 1}, {kDLCPU, 0}));
    EXPECT_EQ(a.shape(), (shape{4, 3}));
    EXPECT_EQ(a.data(), v.data());
    auto got = a.to_vector();
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(got[i * 3 + j], v[i + 8 * j]);
    auto view = a.slice({1});
    a = array<float>();
    EXPECT_EQ(f.deleted, 0) << "a view still holds the tensor";
    v[1 + 8] = 42.0f; // writes by the producer are visible: no copy
    EXPECT_EQ(view.to_vector()[1], 42.0f);
  }
  EXPECT_EQ(f.deleted, 1);
}

TEST(DLPack, RoundTripOfEveryDtype) {
  auto check = [](auto value) {
    using T = decltype(value);
    auto a = kiln::full<T>({2, 3}, value, host);
    auto b = kiln::from_dlpack<T>(a.to_dlpack());
    EXPECT_EQ(b.data(), a.data());
    EXPECT_EQ(b.to_vector(), a.to_vector());
  };
  check(true);
  check(std::int8_t(-5));
  check(std::uint8_t(200));
  check(std::int32_t(-7));
  check(std::int64_t(1) << 40);
  check(1.5f);
  check(-2.25);
  check(std::complex<float>(1, -2));
  check(std::complex<double>(-3, 4));
  auto s = kiln::full<double>({}, 3.5, host);
  auto s2 = kiln::from_dlpack<double>(s.to_dlpack());
  EXPECT_EQ(s2.ndim(), 0);
  EXPECT_EQ(s2.item(), 3.5);
}

TEST(DLPack, BadTensorsAreErrorsAndStayWithTheCaller) {
  std::vector<std::uint16_t> half(4);
  foreign f;
  f.shape = {4};
  try {
    kiln::detail::from_dlpack(
        make_foreign(f, half.data(), {kDLFloat, 16, 1}, {kDLCPU, 0}));
    ADD_FAILURE() << "no error";
  } catch (const kiln::value_error &e) {
    EXPECT_EQ(std::string(e.what()),
              "unsupported DLPack dtype (code 2, bits 16, lanes 1)");
  }
  EXPECT_EQ(f.deleted, 0);
  foreign g;
  g.shape = {4};
  float x[4] = {};
  try {
    kiln::detail::from_dlpack(
        make_foreign(g, x, {kDLFloat, 32, 1}, {kDLVulkan, 0}));
    ADD_FAILURE() << "no error";
  } catch (const kiln::device_error &e) {
    EXPECT_EQ(std::string(e.what()), "unsupported DLPack device type 7");
  }
  EXPECT_THROW(kiln::detail::from_dlpack(nullptr), kiln::value_error);
  // Wrong element type for the typed form.
  foreign h;
  h.shape = {4};
  EXPECT_THROW(kiln::from_dlpack<double>(
                   make_foreign(h, x, {kDLFloat, 32, 1}, {kDLCPU, 0})),
               kiln::value_error);
  EXPECT_EQ(h.deleted, 1)
      << "the adopted tensor is released when the typed view fails";
  // The program goes on.
  foreign k;
  k.shape = {4};
  EXPECT_EQ(kiln::from_dlpack<float>(
                make_foreign(k, x, {kDLFloat, 32, 1}, {kDLCPU, 0}))
                .size(),
            4);
}

TEST(DLPack, WrapAdoptsCallerMemory) {
  auto v = std::make_shared<std::vector<float>>(random_floats(6, 3));
  auto a = kiln::wrap(v->data(), {2, 3}, host, v);
  std::weak_ptr<std::vector<float>> w = v;
  auto expect = *v;
  v.reset();
  EXPECT_FALSE(w.expired()) << "the array owns the memory now";
  EXPECT_EQ(a.to_vector(), expect);
  a = array<float>();
  EXPECT_TRUE(w.expired());
}

TEST(DLPackGpu, ExportAndImportOnTheDevice) {
  KILN_REQUIRE_GPU();
  kiln::device gpu = kiln::device::cuda(0);
  auto v = random_floats(12, 4);
  auto a = kiln::asarray<float>(v, {3, 4}, gpu);
  DLManagedTensor *t = a.to_dlpack();
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(t->dl_tensor.device.device_id, 0);
  auto b = kiln::from_dlpack<float>(t);
  EXPECT_EQ(b.device(), gpu);
  EXPECT_EQ(b.data(), a.data());
  EXPECT_EQ(b.to_vector(), v);
}
