//===- runtime/core/dtype.cpp - Names and sizes of element types ----------===//
#include "kiln/dtype.hpp"

namespace kiln {

std::string_view name(dtype t) noexcept {
  switch (t) {
  case dtype::bool_: return "bool";
  case dtype::int8: return "int8";
  case dtype::uint8: return "uint8";
  case dtype::int32: return "int32";
  case dtype::int64: return "int64";
  case dtype::float32: return "float32";
  case dtype::float64: return "float64";
  case dtype::complex64: return "complex64";
  case dtype::complex128: return "complex128";
  }
  return "unknown";
}

std::size_t itemsize(dtype t) noexcept {
  switch (t) {
  case dtype::bool_:
  case dtype::int8:
  case dtype::uint8: return 1;
  case dtype::int32:
  case dtype::float32: return 4;
  case dtype::int64:
  case dtype::float64:
  case dtype::complex64: return 8;
  case dtype::complex128: return 16;
  }
  return 0;
}

bool is_complex(dtype t) noexcept { return t == dtype::complex64 || t == dtype::complex128; }
bool is_floating(dtype t) noexcept { return t == dtype::float32 || t == dtype::float64; }
bool is_integer(dtype t) noexcept {
  return t == dtype::int8 || t == dtype::uint8 || t == dtype::int32 || t == dtype::int64;
}

} // namespace kiln
