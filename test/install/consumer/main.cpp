// The install test's program: a KILN_FUSE function and a plain fused
// statement on random data, checked against float64 references.
#include <kiln/kiln.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

KILN_FUSE kiln::array<float> squared_diff(const kiln::array<float> &x,
                                          const kiln::array<float> &y) {
  return (x - y) * (x - y);
}

int main() {
  const std::int64_t n = 4099;
  auto rng = kiln::random::default_rng(7);
  kiln::array<float> x = rng.random<float>({n}),
                     y = rng.normal<float>({n}, 0.0f, 1.0f);
  kiln::array<float> d = squared_diff(x, y);
  kiln::array<float> e = 0.5f * x + y;

  std::vector<float> hx = x.to_vector(), hy = y.to_vector(), hd = d.to_vector(),
                     he = e.to_vector();
  double worst = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    double diff = double(hx[i]) - double(hy[i]);
    double refD = diff * diff, refE = 0.5 * double(hx[i]) + double(hy[i]);
    worst = std::max(worst, std::abs(hd[i] - refD) / (std::abs(refD) + 1e-6));
    worst = std::max(worst,
                     std::abs(he[i] - refE) / (0.5 * std::abs(double(hx[i])) +
                                               std::abs(double(hy[i])) + 1e-6));
  }
  bool ok = worst < 1e-5;
  std::printf("consumer: %s (n=%lld, device=%s, max relative error %.3g)\n",
              ok ? "OK" : "FAILED", static_cast<long long>(n),
              kiln::current_device().str().c_str(), worst);
  return ok ? 0 : 1;
}
