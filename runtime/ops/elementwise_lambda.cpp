//===- runtime/ops/elementwise_lambda.cpp - kiln::elementwise, eager ------===//
//
// The one out-of-line piece of kiln/elementwise.hpp's eager form: what a
// lambda on GPU arrays says when its file was not compiled by kilnc.
//
//===----------------------------------------------------------------------===//
#include "kiln/elementwise.hpp"

namespace kiln::detail {

void elementwise_needs_kilnc(const device &dev) {
  throw device_error("kiln::elementwise: the lambda runs on " + dev.str() +
                     " only in a file compiled by kilnc (an ordinary C++ compiler runs lambdas on the host); "
                     "compile this file with kilnc, or move the arrays to the host first");
}

} // namespace kiln::detail
