// The FFT cell of the CuPy tutorials in Kiln (002): a round trip of 2^20
// complex64 values, x -> fft(x) -> ifft, and its error
// max |x - ifft(fft(x))|; the transform itself checked against float64 (the
// same data transformed in complex128 on the host), and a 2-d real transform
// of an image-sized array with fftshift'ed frequencies. On a GPU these run
// in cuFFT; on the host in pocketfft.
#include "check.hpp"

#include <kiln/fft.hpp>

#include <complex>

using c64 = std::complex<float>;

int main() {
  auto rng = kiln::random::default_rng(1);
  int rc = 0;

  // x = cp.random.random(1 << 20).astype(cp.complex64); X = fft(x); x_rec = ifft(X)
  kiln::array<c64> x = rng.random<float>({1 << 20}).astype<c64>();
  kiln::array<c64> X = kiln::fft::fft(x);
  kiln::array<c64> x_rec = kiln::fft::ifft(X);
  const float error = kiln::max(kiln::abs(x - x_rec)).item();
  std::printf("FFT round-trip error: %g\n", error);
  rc |= example::report("ifft(fft(x)) == x", error, 1e-5, x.size());

  // The transform against complex128 on the host.
  const kiln::array<std::complex<double>> reference =
      kiln::fft::fft(x.to(kiln::device::host()).astype<std::complex<double>>());
  rc |= example::report("fft(x) against float64", example::relative_error(X.to_vector(), reference.to_vector()), 1e-6,
                        x.size());

  // rfft2 of a 512 x 768 real image and back; the frequencies of its rows.
  kiln::array<float> image = rng.random<float>({512, 768});
  kiln::array<c64> spectrum = kiln::fft::rfft2(image);
  kiln::array<float> back = kiln::fft::irfft2(spectrum, {512, 768});
  rc |= example::report("irfft2(rfft2(image)) == image", example::relative_error(back.to_vector(), image.to_vector()),
                        1e-6, image.size());
  kiln::array<double> freqs = kiln::fft::fftshift(kiln::fft::fftfreq(768, 1.0 / 768));
  rc |= example::report("fftshift(fftfreq(768)) runs -384 .. 383", std::abs(freqs.to_vector().front() + 384.0), 0.0, 768);
  return rc;
}
