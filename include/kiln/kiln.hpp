//===- kiln/kiln.hpp - Everything a Kiln program includes --------*- C++ -*-===//
//
// The public API of Kiln (docs/user-guide.md, SPEC.md section 1): arrays,
// devices, memory pools, streams, creation and transfers, random numbers,
// elementwise operations, reductions, matmul and norms, and the markers kilnc looks for.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/axes.hpp"
#include "kiln/compound.hpp"
#include "kiln/creation.hpp"
#include "kiln/device.hpp"
#include "kiln/dtype.hpp"
#include "kiln/elementwise.hpp"
#include "kiln/error.hpp"
#include "kiln/graph.hpp"
#include "kiln/indexing.hpp"
#include "kiln/kernel.hpp"
#include "kiln/linalg.hpp"
#include "kiln/memory.hpp"
#include "kiln/ops.hpp"
#include "kiln/print.hpp"
#include "kiln/random.hpp"
#include "kiln/raw_module.hpp"
#include "kiln/reduce.hpp"
#include "kiln/reductions.hpp"
#include "kiln/shape.hpp"
#include "kiln/shaping.hpp"
#include "kiln/stream.hpp"

// The markers are attributes kilnc (a clang tool) reads; other compilers see
// nothing, so a file compiles everywhere (without kilnc, array code runs on
// the eager runtime).
#if defined(__clang__)
/// Marks a function (or function template) whose body kilnc compiles into as
/// few fused kernels as the data flow allows.
#define KILN_FUSE [[clang::annotate("kiln.fuse")]]
/// Marks a `void` function of scalar C++ that kilnc compiles as a raw kernel.
#define KILN_RAWKERNEL [[clang::annotate("kiln.rawkernel")]]
#else
#define KILN_FUSE
#define KILN_RAWKERNEL
#endif
