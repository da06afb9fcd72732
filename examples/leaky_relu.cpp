// Leaky ReLU as a KILN_FUSE function template: one kernel per element type
// used (float and double here), selected by the template argument.
#include "check.hpp"

template <class T>
KILN_FUSE kiln::array<T> leaky_relu(const kiln::array<T> &x, T alpha) {
  return kiln::where(x > 0, x, alpha * x);
}

template <class T> int check(const char *name) {
  auto rng = kiln::random::default_rng(7);
  kiln::array<T> x = rng.normal<T>({1 << 16}, 0.0, 1.0);
  kiln::array<T> y = leaky_relu<T>(x, T(0.01));
  std::vector<T> hx = x.to_vector();
  std::vector<double> ref(hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) ref[i] = hx[i] > 0 ? double(hx[i]) : 0.01 * double(hx[i]);
  return example::report(name, example::relative_error(y.to_vector(), ref), 1e-6, ref.size());
}

int main() { return check<float>("leaky_relu<float>") | check<double>("leaky_relu<double>"); }
