//===- test/printing/print_cases.cpp - Arrays printed for print_test.py ---===//
//
// Reads cases from the manifest named by argv[1], one a line:
//   <dtype> <ndim> <d0> ... <view> <precision> <threshold> <edgeitems>
//   <linewidth> <suppress> <data file>
// builds each array from its C-ordered bytes on the current device (view "T"
// prints its transpose, "step" every other element of the last axis), sets
// the print options, and writes "@@ <i>", then kiln::array_str, "@@repr",
// kiln::repr, "@@stream" and what std::cout << x writes, for
// print_test.py to compare with NumPy's str and repr.
//
//===----------------------------------------------------------------------===//
#include <kiln/kiln.hpp>
#include <kiln/print.hpp>

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

template <class T>
kiln::array_base load(const std::string &path, const kiln::shape &s) {
  std::ifstream f(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                                std::istreambuf_iterator<char>());
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty())
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return kiln::asarray<T>(std::span<const T>(v.data(), v.size()), s,
                          kiln::device::host());
}

kiln::array_base load(const std::string &dtype, const std::string &path,
                      const kiln::shape &s) {
  if (dtype == "bool") {
    std::ifstream f(path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                                  std::istreambuf_iterator<char>());
    std::vector<std::uint8_t> raw(bytes.begin(), bytes.end());
    return kiln::asarray<std::uint8_t>(
               std::span<const std::uint8_t>(raw.data(), raw.size()), s,
               kiln::device::host())
        .astype<bool>();
  }
  if (dtype == "int8")
    return load<std::int8_t>(path, s);
  if (dtype == "uint8")
    return load<std::uint8_t>(path, s);
  if (dtype == "int32")
    return load<std::int32_t>(path, s);
  if (dtype == "int64")
    return load<std::int64_t>(path, s);
  if (dtype == "float32")
    return load<float>(path, s);
  if (dtype == "float64")
    return load<double>(path, s);
  if (dtype == "complex64")
    return load<std::complex<float>>(path, s);
  return load<std::complex<double>>(path, s);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: print_cases MANIFEST\n");
    return 2;
  }
  std::ifstream manifest(argv[1]);
  std::string line;
  int index = 0;
  while (std::getline(manifest, line)) {
    std::istringstream in(line);
    std::string dtype, view, path;
    int ndim = 0;
    in >> dtype >> ndim;
    std::vector<std::int64_t> dims(static_cast<std::size_t>(ndim));
    for (auto &d : dims)
      in >> d;
    int precision = 8, edgeitems = 3, linewidth = 75, suppress = 0;
    std::int64_t threshold = 1000;
    in >> view >> precision >> threshold >> edgeitems >> linewidth >>
        suppress >> path;
    kiln::array_base x = load(dtype, path, kiln::shape(dims));
    x = kiln::detail::to_device(x, kiln::current_device(),
                                kiln::stream::current(kiln::current_device()));
    if (view == "T")
      x = kiln::detail::transpose(x, {});
    else if (view == "step") { // x[..., ::2]
      std::vector<kiln::slice_arg> args(static_cast<std::size_t>(ndim - 1),
                                        kiln::slice_arg(kiln::all));
      args.emplace_back(kiln::range(std::nullopt, std::nullopt, 2));
      x = kiln::detail::slice(x, args);
    }
    kiln::set_printoptions({.precision = precision,
                            .threshold = threshold,
                            .edgeitems = edgeitems,
                            .linewidth = linewidth,
                            .suppress = suppress != 0});
    std::ostringstream streamed;
    streamed << x;
    std::cout << "@@ " << index++ << "\n"
              << kiln::array_str(x) << "\n@@repr\n"
              << kiln::repr(x) << "\n@@stream\n"
              << streamed.str() << "\n";
  }
  return 0;
}
