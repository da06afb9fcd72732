//===- kiln/graph.hpp - CUDA graphs: capture once, launch many ---*- C++ -*-===//
//
// kiln::capture(s, fn) records the GPU work that ordinary Kiln code in `fn`
// queues (fused kernels, the runtime's kernels, raw kernels, device copies)
// as a CUDA graph instead of running it; graph::launch replays it with one
// driver call (CuPy's stream capture: Stream.begin_capture/end_capture and
// Graph.launch). Memory allocated inside `fn` belongs to the graph until the
// graph is destroyed. On the host device the graph keeps `fn` and launch runs
// it again. See docs/runtime-graphs.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/stream.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace kiln {

class graph;

namespace detail {
/// The runtime's side of kiln::capture (runtime/stream/graph.cpp).
graph capture_function(const stream &s, std::function<void()> fn);
} // namespace detail

/// A captured sequence of GPU work (a CUgraph and its CUgraphExec), or on
/// the host device the captured callable. Move-only.
class graph {
public:
  /// An empty graph: launch() is a value_error.
  graph() noexcept;
  graph(graph &&) noexcept;
  graph &operator=(graph &&) noexcept;
  graph(const graph &) = delete;
  graph &operator=(const graph &) = delete;
  /// Destroys the graph and gives the memory it owns back to the pool (after
  /// waiting for its launches on streams other than the capturing one).
  ~graph();

  /// Queues the captured work on `s` (a stream of the graph's device; the
  /// default stream is allowed). On the host device: runs the callable now,
  /// with `s` current.
  void launch(const stream &s) const;
  /// Queues the captured work on the calling thread's current stream of the
  /// graph's device.
  void launch() const;

  bool valid() const noexcept { return impl_ != nullptr; }
  /// The device the graph was captured on (value_error when empty).
  device get_device() const;
  /// Nodes of the CUDA graph (kernels, copies, memsets, ...); 0 on the host.
  std::size_t num_nodes() const;
  /// Bytes of pool memory the graph owns now: blocks allocated during the
  /// capture and blocks freed during it, kept until the graph is destroyed.
  std::size_t owned_bytes() const;

  struct impl;

private:
  explicit graph(std::unique_ptr<impl> p) noexcept;
  friend graph detail::capture_function(const stream &, std::function<void()>);
  std::unique_ptr<impl> impl_;
};

/// Records the GPU work that `fn()` issues as a graph, without running it.
/// While `fn` runs, `s` is the current stream and `s`'s device the current
/// device of the calling thread. `s` must be a stream made with
/// kiln::stream(dev) (CUDA cannot capture the default stream). Operations
/// that wait for the GPU (to_vector, item, synchronize, ...) are not allowed
/// inside `fn`: they throw cuda_error (code 900,
/// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) and the capture is abandoned. An
/// exception from `fn` abandons the capture and propagates. On the host
/// device `fn` is not run now: the graph keeps a copy and launch runs it.
template <class F> graph capture(const stream &s, F &&fn) {
  static_assert(std::is_invocable_v<F &>, "kiln::capture takes a callable with no arguments");
  return detail::capture_function(s, std::function<void()>(std::forward<F>(fn)));
}

} // namespace kiln
