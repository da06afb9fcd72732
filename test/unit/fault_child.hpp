// For death tests of faulting kernels: runs a launch that faults on a GPU in
// a child process and exits with a verdict the parent's EXPECT_EXIT reads.
#pragma once

#include <kiln/kiln.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace kiln_test {

/// In the child: `launch()` (which faults on cuda:0), then a synchronize;
/// prints the cuda_error and exits 0 when the host device still works
/// afterwards (2: no error, 3: the host broke too, 4: another exception).
/// `blocking` sets KILN_LAUNCH_BLOCKING=1 first.
template <class Launch> [[noreturn]] void fault_child(bool blocking, Launch launch) {
  if (blocking)
    setenv("KILN_LAUNCH_BLOCKING", "1", 1);
  try {
    launch();
    kiln::synchronize();
    std::fprintf(stderr, "no error\n");
    std::exit(2);
  } catch (const kiln::cuda_error &e) {
    std::fprintf(stderr, "cuda_error %d: %s\n", e.code(), e.what());
    bool host_ok = kiln::sum(kiln::ones<float>(kiln::shape{3}, kiln::device::host())).item() == 3.0f;
    std::exit(host_ok ? 0 : 3);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "another exception: %s\n", e.what());
    std::exit(4);
  }
}

} // namespace kiln_test
