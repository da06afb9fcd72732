//===- runtime/launch/launch_elementwise.cpp - Running a fused kernel -----===//
//
// kiln::detail::launch_elementwise: checks a call of a fused kernel,
// allocates its outputs, lays the broadcast iteration space out as few
// dimensions as possible, picks the `_contig` or `_strided<R>` variant, packs
// the parameters as fused.hpp's ABI says and runs the variant on the host or
// on a GPU. The hot path allocates nothing but the outputs. See
// docs/runtime-launch.md.
//
//===----------------------------------------------------------------------===//
#include "kiln/detail/fused.hpp"
#include "runtime/array/array_internal.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/launch/gpu_launch.hpp"
#include "runtime/launch/launch_layout.hpp"
#include "runtime/parallel/thread_pool.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace kiln::detail {
namespace {

using launch::max_rank;
using launch::small_buffer;

/// Operands that fit on the stack without a heap fallback.
constexpr std::size_t inline_operands = 16;

/// One expanded memref descriptor of rank <= max_kernel_rank.
struct memref_fields {
  void *allocated;
  void *aligned;
  std::int64_t offset;
  std::int64_t sizes[max_kernel_rank];
  std::int64_t strides[max_kernel_rank];
};

std::string kernel_name(const fused_kernel &k) {
  return k.name ? k.name : "<unnamed>";
}

[[noreturn]] void throw_counts(const fused_kernel &k, std::size_t inputs,
                               std::size_t scalars, std::size_t outputs) {
  throw value_error(
      "kernel " + kernel_name(k) + " takes " + std::to_string(k.num_inputs) +
      " inputs, " + std::to_string(k.num_scalars) + " scalars and " +
      std::to_string(k.num_outputs) + " outputs; got " +
      std::to_string(inputs) + " inputs, " + std::to_string(scalars) +
      " scalars and " + std::to_string(outputs) + " outputs");
}

[[noreturn]] void throw_broadcast(std::span<const array_base *const> inputs) {
  std::string msg = "operands could not be broadcast together with shapes";
  for (const array_base *a : inputs)
    msg += " " + to_string(a->shape());
  throw shape_error(msg);
}

[[noreturn]] void throw_devices(device a, device b) {
  throw device_error("arrays are on different devices: " + a.str() + " and " +
                     b.str());
}

/// Checks the inputs and scalars of a call; returns the device it runs on.
device check_operands(const fused_kernel &k,
                      std::span<const array_base *const> inputs,
                      std::span<const void *const> scalars,
                      std::span<array_base> outputs) {
  if (inputs.size() != k.num_inputs || scalars.size() != k.num_scalars ||
      outputs.size() != k.num_outputs)
    throw_counts(k, inputs.size(), scalars.size(), outputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const array_base *a = inputs[i];
    if (!a || !a->valid())
      throw value_error("kernel " + kernel_name(k) + ": input " +
                        std::to_string(i) +
                        " is not an array (default-constructed or moved from)");
    if (k.operand_dtypes && a->dtype() != k.operand_dtypes[i])
      throw value_error(
          "kernel " + kernel_name(k) + ": input " + std::to_string(i) +
          " has dtype " + std::string(name(a->dtype())) +
          " but the kernel takes " + std::string(name(k.operand_dtypes[i])));
  }
  for (std::size_t i = 0; i < scalars.size(); ++i)
    if (!scalars[i])
      throw value_error("kernel " + kernel_name(k) + ": scalar " +
                        std::to_string(i) + " is a null pointer");
  if (!inputs.empty()) {
    const device dev = inputs[0]->device();
    for (std::size_t i = 1; i < inputs.size(); ++i)
      if (inputs[i]->device() != dev)
        throw_devices(dev, inputs[i]->device());
    return dev;
  }
  // A scalar-only call: on a given output's device, else the current one.
  for (const array_base &o : outputs)
    if (o.valid())
      return o.device();
  return current_device();
}

/// NumPy's broadcast of the input shapes into `out`; returns its rank.
int broadcast_rank_and_shape(const fused_kernel &k,
                             std::span<const array_base *const> inputs,
                             std::int64_t *out) {
  std::size_t rank = 0;
  for (const array_base *a : inputs)
    rank = std::max(rank, a->shape().size());
  if (rank > static_cast<std::size_t>(max_rank))
    throw value_error(
        "kernel " + kernel_name(k) + ": arrays of " + std::to_string(rank) +
        " dimensions exceed the limit of " + std::to_string(max_rank));
  for (std::size_t d = 0; d < rank; ++d)
    out[d] = 1;
  for (const array_base *a : inputs) {
    const shape &s = a->shape();
    const std::size_t lead = rank - s.size();
    for (std::size_t d = 0; d < s.size(); ++d) {
      const std::int64_t n = s[d];
      std::int64_t &o = out[lead + d];
      if (n == o || n == 1)
        continue;
      if (o != 1)
        throw_broadcast(inputs);
      o = n;
    }
  }
  return static_cast<int>(rank);
}

/// NumPy's order 'K' (its iterator's axis ordering): the axes, outermost
/// first, ordered as the operands' strides (`strides`: `num_operands` rows of
/// `pitch`, 0 where an operand is broadcast) order them. An axis moves
/// outside an earlier one only when every operand that steps along both
/// (and the axis has more than one element) steps further along it; ties and
/// broadcasts keep C order. `m.T() * 2 + 1` of a C-order m is
/// F-ordered, as NumPy makes it, and so one contiguous stream, not a
/// transpose. Returns false when the order is C order.
bool memory_order(const std::int64_t *out_shape, int rank, const std::int64_t *strides, int num_operands, int pitch,
                  int *perm) {
  for (int d = 0; d < rank; ++d)
    perm[d] = d;
  auto outside = [&](int a, int b) { // should axis a be outside axis b
    if (out_shape[a] <= 1 || out_shape[b] <= 1)
      return false;
    bool decided = false;
    for (int j = 0; j < num_operands; ++j) {
      const std::int64_t sa = std::abs(strides[j * pitch + a]), sb = std::abs(strides[j * pitch + b]);
      if (sa == 0 || sb == 0)
        continue;
      if (sa <= sb)
        return false;
      decided = true;
    }
    return decided;
  };
  bool moved = false;
  for (int i = 1; i < rank; ++i) {
    const int axis = perm[i];
    int at = i;
    while (at > 0 && outside(axis, perm[at - 1]))
      --at;
    if (at != i) {
      std::copy_backward(perm + at, perm + i, perm + i + 1);
      perm[at] = axis;
      moved = true;
    }
  }
  return moved;
}

/// Allocates the outputs not given (for `st`, the current stream of `dev`),
/// in the axis order `perm` (outermost first; null: C order); checks those
/// given against the call.
void prepare_outputs(const fused_kernel &k, std::span<array_base> outputs,
                     device dev, const std::int64_t *out_shape, int rank, const stream &st,
                     const int *perm = nullptr) {
  const std::span<const std::int64_t> dims(out_shape,
                                           static_cast<std::size_t>(rank));
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const kiln::dtype t = k.operand_dtypes ? k.operand_dtypes[k.num_inputs + o]
                                           : outputs[o].dtype();
    array_base &out = outputs[o];
    if (!out.valid() && perm) {
      shape buffer;
      std::vector<std::int64_t> inverse(static_cast<std::size_t>(rank));
      for (int d = 0; d < rank; ++d) {
        buffer.push_back(out_shape[perm[d]]);
        inverse[static_cast<std::size_t>(perm[d])] = d;
      }
      out = detail::transpose(detail::allocate(t, buffer, dev, st), inverse);
      continue;
    }
    if (!out.valid()) {
      out = detail::allocate(t, shape(dims), dev, st);
      continue;
    }
    const shape &s = out.shape();
    if (!std::equal(s.begin(), s.end(), dims.begin(), dims.end()))
      throw shape_error("non-broadcastable output operand with shape " +
                        to_string(s) + " doesn't match the broadcast shape " +
                        to_string(shape(dims)));
    if (out.dtype() != t)
      throw value_error("kernel " + kernel_name(k) + ": output " +
                        std::to_string(o) + " has dtype " +
                        std::string(name(out.dtype())) +
                        " but the kernel writes " + std::string(name(t)));
    if (out.device() != dev)
      throw_devices(dev, out.device());
  }
}

/// True when the call can skip broadcasting and coalescing: every input has
/// the shape of the first and is C-contiguous, and every output is either to
/// be allocated or a C-contiguous array of that shape, the kernel's dtype and
/// the call's device. The layout is then one dimension of unit strides, as
/// coalesce() would make it. Anything else (including every error) takes the
/// general path, which checks and reports it.
bool same_shape_contiguous(const fused_kernel &k, std::span<const array_base *const> inputs,
                           std::span<const array_base> outputs, device dev) noexcept {
  if (inputs.empty())
    return false;
  const shape &s0 = inputs[0]->shape();
  if (s0.size() > static_cast<std::size_t>(max_rank))
    return false;
  for (const array_base *a : inputs)
    if ((a != inputs[0] && a->shape() != s0) || !a->is_contiguous())
      return false;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const array_base &out = outputs[o];
    if (!out.valid())
      continue;
    const kiln::dtype t = k.operand_dtypes ? k.operand_dtypes[k.num_inputs + o] : out.dtype();
    if (out.shape() != s0 || out.dtype() != t || out.device() != dev || !out.is_contiguous())
      return false;
  }
  return true;
}

/// Runs one variant (over one block when the host loops over leading
/// dimensions) on the host or the GPU.
struct runner {
  const fused_kernel &k;
  device dev;
  void *stream = nullptr;
  host_kernel_fn host = nullptr;
  int variant = 0;
  unsigned shared_bytes = 0; ///< dynamic shared memory of a GPU launch

  runner(const fused_kernel &k_, device dev_, int variant_, void *stream_)
      : k(k_), dev(dev_), variant(variant_) {
    if (dev.is_host()) {
      host = variant == launch::contig_variant  ? k.host_contig
             : variant == launch::rows_variant  ? k.host_rows
             : variant == launch::lines_variant ? k.host_strided[1]
                                                : k.host_strided[variant - 1];
      if (!host)
        throw kiln::error("kernel " + kernel_name(k) +
                          " was built without a host variant (" +
                          kernel_name(k) + launch::variant_suffix(variant) +
                          ")");
    } else {
      cuda::make_current(dev.index());
      stream = stream_;
    }
  }

  void operator()(void **args, std::int64_t n) const {
    if (host)
      host(args);
    else
      launch::launch_on_gpu(k, dev.index(), variant, n, args, stream, shared_bytes);
  }
};

/// Points `args` (kernel-abi.md's packing, cuLaunchKernel's kernelParams)
/// at each operand's fields of `fields` (rank `kernel_rank`), then at each
/// scalar.
void pack_args(void **args, memref_fields *fields, int num_operands, int kernel_rank,
               std::span<const void *const> scalars) {
  for (int j = 0; j < num_operands; ++j) {
    memref_fields &f = fields[j];
    *args++ = &f.allocated;
    *args++ = &f.aligned;
    *args++ = &f.offset;
    for (int d = 0; d < kernel_rank; ++d)
      *args++ = &f.sizes[d];
    for (int d = 0; d < kernel_rank; ++d)
      *args++ = &f.strides[d];
  }
  for (const void *s : scalars)
    *args++ = const_cast<void *>(s);
}

/// Host work below this many elements a thread runs on the calling thread
/// alone: waking the pool costs about what 2^15 float32 elements take.
constexpr std::int64_t host_parallel_grain = std::int64_t(1) << 15;

/// Runs the host variant `fn` over the operands `fields` (rank `kernel_rank`,
/// `item[j]` bytes an element) split along their first dimension across the
/// host backend's threads (runtime/parallel): each range gets its own copy
/// of the fields, its first dimension cut to the range and its base moved to
/// the range's first element. The ranges write disjoint outputs.
void run_host_split(host_kernel_fn fn, const memref_fields *fields, const std::int64_t *item,
                    int num_operands, int kernel_rank, std::span<const void *const> scalars) {
  std::int64_t per_row = 1;
  for (int d = 1; d < kernel_rank; ++d)
    per_row *= fields[0].sizes[d];
  const std::int64_t grain = std::max<std::int64_t>(1, host_parallel_grain / std::max<std::int64_t>(per_row, 1));
  parallel::parallel_for(fields[0].sizes[0], grain, [&](std::int64_t begin, std::int64_t end) {
    small_buffer<memref_fields, inline_operands> part(num_operands);
    small_buffer<void *, inline_operands *(3 + 2 * max_kernel_rank) + 8> args(
        static_cast<std::size_t>(num_operands) * (3 + 2 * kernel_rank) + scalars.size());
    for (int j = 0; j < num_operands; ++j) {
      memref_fields &f = part[j];
      f = fields[j];
      f.aligned = f.allocated = static_cast<char *>(f.aligned) + begin * f.strides[0] * item[j];
      f.sizes[0] = end - begin;
    }
    pack_args(args.data(), part.data(), num_operands, kernel_rank, scalars);
    fn(args.data());
  });
}

} // namespace

void launch_elementwise(const fused_kernel &k,
                        std::span<const array_base *const> inputs,
                        std::span<const void *const> scalars,
                        std::span<array_base> outputs) {
  const device dev = check_operands(k, inputs, scalars, outputs);
  // The stream outputs are allocated for and the kernel runs on (once a call).
  const stream st = stream::current(dev);

  const int num_operands = static_cast<int>(inputs.size() + outputs.size());
  small_buffer<const array_base *, inline_operands> operands(num_operands);
  for (int j = 0; j < num_operands; ++j)
    operands[j] = j < static_cast<int>(inputs.size()) ? inputs[j] : &outputs[j - static_cast<int>(inputs.size())];

  // Strides of every operand over the output shape, in elements: row j (of
  // `pitch` entries, the broadcast rank) belongs to operand j.
  std::size_t input_rank = 1;
  for (const array_base *a : inputs)
    input_rank = std::max(input_rank, a->shape().size());
  const int pitch = static_cast<int>(std::min<std::size_t>(input_rank, max_rank));
  small_buffer<std::int64_t, inline_operands * 8> strides(static_cast<std::size_t>(num_operands) * pitch);
  std::int64_t out_shape[max_rank];
  int r = 1; // the coalesced rank
  if (same_shape_contiguous(k, inputs, outputs, dev)) {
    // Fast path (the common small call: operands of one shape, C-contiguous):
    // one dimension of unit strides, outputs allocated with the inputs' shape.
    const shape &s0 = inputs[0]->shape();
    for (std::size_t o = 0; o < outputs.size(); ++o)
      if (!outputs[o].valid())
        outputs[o] = detail::allocate(k.operand_dtypes ? k.operand_dtypes[k.num_inputs + o] : outputs[o].dtype(), s0,
                                      dev, st);
    out_shape[0] = s0.numel();
    if (out_shape[0] == 0)
      return;
    for (int j = 0; j < num_operands; ++j)
      strides[j * pitch] = 1;
  } else {
    const int rank = broadcast_rank_and_shape(k, inputs, out_shape);
    auto fill_strides = [&](int j) {
      const array_base *a = operands[j];
      const shape &s = a->shape();
      const shape &sst = a->strides();
      const int lead = rank - static_cast<int>(s.size());
      std::int64_t *row = strides.data() + j * pitch;
      for (int d = 0; d < rank; ++d) {
        const int e = d - lead;
        row[d] = (e < 0 || s[e] != out_shape[d]) ? 0 : sst[e];
      }
    };
    const int num_inputs = static_cast<int>(inputs.size());
    for (int j = 0; j < num_inputs; ++j)
      fill_strides(j);
    // The walk's order: the given outputs' memory order where there are
    // any (an update `y.T() += x` writes y in its own order; inputs are read
    // through the transposing variants, which stage their tiles, but writes
    // across rows would scatter), else the inputs' (order 'K', which the new
    // outputs take too).
    int perm[max_rank];
    const bool given = std::any_of(outputs.begin(), outputs.end(), [](const array_base &o) { return o.valid(); });
    bool reordered = !given && memory_order(out_shape, rank, strides.data(), num_inputs, pitch, perm);
    prepare_outputs(k, outputs, dev, out_shape, rank, st, reordered ? perm : nullptr);

    std::int64_t numel = 1;
    for (int d = 0; d < rank; ++d)
      numel *= out_shape[d];
    if (numel == 0)
      return;
    for (int j = num_inputs; j < num_operands; ++j)
      fill_strides(j);
    if (given)
      reordered = memory_order(out_shape, rank, strides.data() + num_inputs * pitch, num_operands - num_inputs, pitch,
                               perm);
    if (reordered) {
      // Walk the space in that memory order (a fused kernel maps each
      // element on its own, so any order gives the same result): the
      // dimensions then coalesce as the memory does.
      std::int64_t tmp[max_rank];
      auto permute = [&](std::int64_t *v) {
        for (int d = 0; d < rank; ++d)
          tmp[d] = v[perm[d]];
        std::copy(tmp, tmp + rank, v);
      };
      permute(out_shape);
      for (int j = 0; j < num_operands; ++j)
        permute(strides.data() + j * pitch);
    }
    r = launch::coalesce(rank, out_shape, strides.data(), num_operands, pitch);
  }
  std::int64_t *sizes = out_shape; // coalesced in place

  // `_contig` needs one dimension, unit strides and vector-aligned addresses.
  bool contig = r == 1;
  const std::uintptr_t width = std::max<std::uintptr_t>(k.vector_width, 1);
  for (int j = 0; contig && j < num_operands; ++j) {
    const std::uintptr_t align = width * itemsize(operands[j]->dtype());
    contig = strides[j * pitch] == 1 &&
             reinterpret_cast<std::uintptr_t>(operands[j]->data()) % align == 0;
  }
  // `_rows` (kernels that have it): rank 2, every operand's inner dimension
  // contiguous, whole vectors per row, vector-aligned row starts -- except
  // that an input may be a column broadcast (inner stride 0: one element a
  // row, read as a scalar): `m * col`, an outer product.
  bool rows = !contig && r == 2 && k.host_rows && sizes[1] % width == 0;
  for (int j = 0; rows && j < num_operands; ++j) {
    const std::uintptr_t item = itemsize(operands[j]->dtype());
    const std::uintptr_t align = width * item;
    const bool column = j < static_cast<int>(inputs.size()) && strides[j * pitch + 1] == 0;
    rows = column || (strides[j * pitch + 1] == 1 &&
                      reinterpret_cast<std::uintptr_t>(operands[j]->data()) % align == 0 &&
                      (static_cast<std::uintptr_t>(strides[j * pitch]) * item) % align == 0);
  }
  // `_lines2` (GPU): rank 2 with every operand along the rows -- inner
  // strides of at most 2 elements either way, or broadcast -- walked in
  // memory order instead of the transposing tiles of `_strided2`.
  bool lines = !contig && !rows && r == 2 && !dev.is_host();
  for (int j = 0; lines && j < num_operands; ++j)
    lines = std::abs(strides[j * pitch + 1]) <= 2;
  const int kernel_rank = contig ? 1 : std::min(r, max_kernel_rank);
  const int outer = r - kernel_rank; // leading dimensions looped on the host
  runner run(k, dev,
             contig  ? launch::contig_variant
             : rows  ? launch::rows_variant
             : lines ? launch::lines_variant
                     : kernel_rank,
             st.native_handle());
  small_buffer<std::int64_t, inline_operands> item(num_operands); // bytes an element
  for (int j = 0; j < num_operands; ++j)
    item[j] = static_cast<std::int64_t>(itemsize(operands[j]->dtype()));
  if (run.variant == 2 && !run.host) // `_strided2` stages the inputs read across its walk
    run.shared_bytes = launch::staged_shared_bytes(sizes[0], sizes[1], static_cast<int>(inputs.size()),
                                                   strides.data(), pitch, item.data());

  // Parameters: each operand's expanded memref, then each scalar pointer.
  const int fields_per_operand = 3 + 2 * kernel_rank;
  small_buffer<memref_fields, inline_operands> fields(num_operands);
  small_buffer<void *, inline_operands *(3 + 2 * max_kernel_rank) + 8> args(
      static_cast<std::size_t>(num_operands) * fields_per_operand +
      scalars.size());
  std::int64_t inner_numel = 1;
  for (int d = outer; d < r; ++d)
    inner_numel *= sizes[d];
  for (int j = 0; j < num_operands; ++j) {
    memref_fields &f = fields[j];
    // kernel-abi.md: `allocated` is not read; it gets the same pointer.
    f.aligned = f.allocated = operands[j]->data();
    f.offset = 0;
    for (int d = 0; d < kernel_rank; ++d) {
      f.sizes[d] = sizes[outer + d];
      f.strides[d] = strides[j * pitch + outer + d];
    }
  }
  pack_args(args.data(), fields.data(), num_operands, kernel_rank, scalars);

  // One block: the GPU launch, or the host variant on the host's threads.
  auto block = [&] {
    if (run.host && inner_numel >= 2 * host_parallel_grain)
      run_host_split(run.host, fields.data(), item.data(), num_operands, kernel_rank, scalars);
    else
      run(args.data(), inner_numel);
  };
  if (outer == 0) {
    block();
    return;
  }

  // Rank above max_kernel_rank: one `_strided<max>` launch per index of the
  // leading `outer` dimensions, each with its block's base addresses.
  std::int64_t index[max_rank] = {};
  small_buffer<char *, inline_operands> base(num_operands);
  for (int j = 0; j < num_operands; ++j)
    base[j] = static_cast<char *>(operands[j]->data());
  for (;;) {
    block();
    int d = outer - 1;
    for (; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
    for (int j = 0; j < num_operands; ++j) {
      std::int64_t off = 0;
      for (int e = 0; e < outer; ++e)
        off += index[e] * strides[j * pitch + e];
      fields[j].aligned = fields[j].allocated = base[j] + off * item[j];
    }
  }
}

} // namespace kiln::detail
