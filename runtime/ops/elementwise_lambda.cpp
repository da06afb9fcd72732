//===- runtime/ops/elementwise_lambda.cpp - kiln::elementwise, eager ------===//
//
// The out-of-line pieces of the eager forms of kiln/elementwise.hpp and
// kiln/reduce.hpp: what lambdas on GPU arrays say when their file was not
// compiled by kilnc.
//
//===----------------------------------------------------------------------===//
#include "kiln/elementwise.hpp"
#include "kiln/reduce.hpp"

namespace kiln::detail {

void elementwise_needs_kilnc(const device &dev) {
  throw device_error("kiln::elementwise: the lambda runs on " + dev.str() +
                     " only in a file compiled by kilnc (an ordinary C++ compiler runs lambdas on the host); "
                     "compile this file with kilnc, or move the arrays to the host first");
}

void reduce_needs_kilnc(const device &dev) {
  throw device_error("kiln::reduce: the lambdas run on " + dev.str() +
                     " only in a file compiled by kilnc (an ordinary C++ compiler runs them on the host); "
                     "compile this file with kilnc, or move the array to the host first");
}

} // namespace kiln::detail
