// Test helpers for GPU tests: skip, with a message, where no GPU is present.
#pragma once

#include <gtest/gtest.h>
#include <kiln/device.hpp>

#define KILN_REQUIRE_GPU()                                                     \
  do {                                                                         \
    if (::kiln::cuda_device_count() == 0)                                      \
      GTEST_SKIP() << "no CUDA GPU or driver on this machine";                 \
  } while (0)

#define KILN_REQUIRE_GPUS(n)                                                   \
  do {                                                                         \
    if (::kiln::cuda_device_count() < (n))                                     \
      GTEST_SKIP() << "needs " << (n) << " CUDA GPUs, found "                  \
                   << ::kiln::cuda_device_count();                             \
  } while (0)
