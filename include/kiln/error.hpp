//===- kiln/error.hpp - Typed errors of the Kiln runtime ---------*- C++ -*-===//
//
// Every error the runtime reports on bad input derives from kiln::error, a
// std::runtime_error. The runtime never aborts on user error.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <stdexcept>
#include <string>

namespace kiln {

/// Base of every Kiln error.
class error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Shapes that do not fit: broadcasting, reshape, matmul dimensions.
/// Message as NumPy's, e.g. "operands could not be broadcast together with
/// shapes (3,4) (5,)".
class shape_error : public error {
public:
  using error::error;
};

/// An allocation that failed even after the pool freed its cache; names the
/// device and the number of bytes asked for.
class out_of_memory : public error {
public:
  using error::error;
};

/// A CUDA driver or library call failed; names the call, its error code and
/// the driver's message.
class cuda_error : public error {
public:
  cuda_error(const std::string &msg, int code) : error(msg), code_(code) {}
  int code() const noexcept { return code_; }

private:
  int code_;
};

/// An absent device, or arrays of two devices in one operation.
class device_error : public error {
public:
  using error::error;
};

/// An axis, index or slice out of range (NumPy's AxisError / IndexError).
/// Not named by the spec; see docs/errors.md.
class index_error : public error {
public:
  using error::error;
};

/// A bad argument value that is not a shape (NumPy's ValueError), e.g.
/// item() on an array of more than one element. See docs/errors.md.
class value_error : public error {
public:
  using error::error;
};

/// An operation NumPy has no loop for with these dtypes (NumPy's TypeError,
/// UFuncTypeError), with NumPy's message: "ufunc 'invert' not supported for
/// the input type float64", "numpy boolean subtract, the `-` operator, is
/// not supported, ...". Where the types are known at compile time kilnc
/// reports a diagnostic instead. See docs/errors.md.
class type_error : public error {
public:
  using error::error;
};

/// A linear-algebra routine that has no answer for its input, as NumPy's
/// LinAlgError, with its messages: "Singular matrix", "Matrix is not
/// positive definite", "Last 2 dimensions of the array must be square".
class linalg_error : public error {
public:
  using error::error;
};

/// CUDA source that NVRTC could not compile (kiln::raw_module::from_source),
/// or NVRTC itself missing. The message holds NVRTC's log, with the line
/// numbers of the source ("raw_module.cu(3): error: ..."). See docs/errors.md.
class compile_error : public error {
public:
  using error::error;
};

} // namespace kiln
