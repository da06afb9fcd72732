// A fused call on operands that do not broadcast throws kiln::shape_error with
// NumPy's message, and the program goes on.
#include "e2e.hpp"

KILN_FUSE kiln::array<float> add(const kiln::array<float> &a, const kiln::array<float> &b) { return a + b; }

int main() {
  kiln::array<float> a = kiln::ones<float>({3, 4}), b = kiln::ones<float>({5});
  int failed = 0;
  try {
    kiln::array<float> c = add(a, b);
    std::printf("FAIL: no error for shapes (3,4) (5,)\n");
    failed = 1;
  } catch (const kiln::shape_error &e) {
    std::string want = "operands could not be broadcast together with shapes (3,4) (5,)";
    if (std::string(e.what()).find(want) == std::string::npos) {
      std::printf("FAIL: message '%s'\n", e.what());
      failed = 1;
    }
  }
  // The program continues and a good call works.
  kiln::array<float> ok = add(a, kiln::ones<float>({4}));
  std::vector<float> v = ok.to_vector();
  for (float x : v) failed |= x != 2.0f;
  std::printf("shape_errors: %s\n", failed ? "FAILED" : "OK");
  return failed;
}
