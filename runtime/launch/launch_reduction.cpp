//===- runtime/launch/launch_reduction.cpp - Running a reduction kernel ---===//
//
// kiln::detail::launch_reduction: checks a call of a fused reduction kernel
// against NumPy's rules (axes, broadcasting, empty reductions), checks that
// its shapes fit the kernel's iteration space (else the caller's eager
// fallback runs), allocates the output, folds the call's axes into kept and
// reduced dimensions, picks a variant (rows, columns, general) and a
// schedule (whole kept elements per block, or the reduced extent split over
// blocks in partial/combine/output phases), and runs it on the host's thread
// pool or a GPU. docs/runtime-launch.md, "Reduction kernels".
//
//===----------------------------------------------------------------------===//
#include "kiln/detail/reduction.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/launch/gpu_launch.hpp"
#include "runtime/parallel/thread_pool.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace kiln::detail {
namespace {

enum class layout { rows, cols, general };

constexpr std::int64_t gpu_block = 256;
/// GPU columns of at most this many rows take the general layout, a thread
/// a column (see launch_reduction).
constexpr std::int64_t short_columns = 64;

/// The narrowing n (0-5, reduction_lanes_shift) of 32 lanes to 32 >> n:
/// halved while half as many lanes, `per_lane` items each, still cover
/// `items`.
int lane_narrowing(std::int64_t items, std::int64_t per_lane) {
  int n = 0;
  while (n < 5 && (std::int64_t{32} >> (n + 1)) * per_lane >= items)
    ++n;
  return n;
}

/// Blocks (of gpu_block threads) for `nk` kept elements of 32 >> narrowing
/// lanes each.
std::int64_t narrowed_units(std::int64_t nk, int narrowing) {
  const std::int64_t groups = gpu_block >> (5 - narrowing); // kept elements a block
  return (nk + groups - 1) / groups;
}
/// Reduced elements one block of a split row takes (bounds each thread's
/// sequential run: 64 per lane of its 4-wide vectors).
constexpr std::int64_t gpu_chunk = 65536;
/// GPU general layout: elements of a warp's chunk of a split kept element
/// (256 a lane, each folded in a running state: short enough to stay
/// accurate).
constexpr std::int64_t general_chunk = 8192;
/// Host: elements of a chunk of a split row, and the shortest row split.
constexpr std::int64_t host_chunk = 65536;
constexpr std::int64_t host_split_from = 1 << 17;
/// Host `_rcols` tiles (HostVariants.cpp's kHostTile).
constexpr std::int64_t host_tile = 4096;

std::string kernel_name(const reduction_kernel &k) { return k.name ? k.name : "<unnamed>"; }

/// The module of `k`'s variants for sm_80 and later (`_rrowsc` is in ptx_sm90).
launch::kernel_image image_of(const reduction_kernel &k) { return {&k, k.name, k.ptx, k.fatbin, k.fatbin_size}; }

/// One expanded memref descriptor of rank <= 8.
struct memref_fields {
  void *allocated = nullptr;
  void *aligned = nullptr;
  std::int64_t offset = 0;
  std::int64_t sizes[8] = {};
  std::int64_t strides[8] = {};
};

/// The strides of `a` over `target` (a broadcast shape of equal or higher
/// rank): 0 where `a` is broadcast or has no such axis.
std::vector<std::int64_t> aligned_strides(const array_base &a, const shape &target) {
  std::vector<std::int64_t> st(target.size(), 0);
  const shape &s = a.shape();
  const std::size_t lead = target.size() - s.size();
  for (std::size_t d = 0; d < s.size(); ++d)
    st[lead + d] = s[d] == target[lead + d] ? a.strides()[d] : 0;
  return st;
}

/// Extent of `a` on axis `d` of a shape of rank `rank` (1 if `a` lacks it).
std::int64_t extent_at(const array_base &a, std::size_t rank, std::size_t d) {
  const std::size_t lead = rank - a.shape().size();
  return d < lead ? 1 : a.shape()[d - lead];
}

/// A group of dimensions (kept or reduced) with every operand's strides.
struct dims {
  std::vector<std::int64_t> sizes;
  std::vector<std::vector<std::int64_t>> strides; ///< [operand][dim]

  /// Merges neighbours every operand walks as one dimension.
  void coalesce() {
    std::vector<std::int64_t> s;
    std::vector<std::vector<std::int64_t>> st(strides.size());
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      bool merge = !s.empty();
      for (std::size_t j = 0; merge && j < strides.size(); ++j)
        merge = st[j].back() == strides[j][d] * sizes[d];
      if (merge) {
        s.back() *= sizes[d];
        for (std::size_t j = 0; j < strides.size(); ++j)
          st[j].back() = strides[j][d];
      } else {
        s.push_back(sizes[d]);
        for (std::size_t j = 0; j < strides.size(); ++j)
          st[j].push_back(strides[j][d]);
      }
    }
    sizes = std::move(s);
    strides = std::move(st);
  }
  /// Orders the dimensions by operand `ref`'s strides, largest outermost
  /// (stable: ties keep their order).
  void sort_by(std::size_t ref) {
    std::vector<std::size_t> order(sizes.size());
    for (std::size_t d = 0; d < order.size(); ++d)
      order[d] = d;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::abs(strides[ref][a]) > std::abs(strides[ref][b]);
    });
    std::vector<std::int64_t> s;
    std::vector<std::vector<std::int64_t>> st(strides.size());
    for (std::size_t d : order) {
      s.push_back(sizes[d]);
      for (std::size_t j = 0; j < strides.size(); ++j)
        st[j].push_back(strides[j][d]);
    }
    sizes = std::move(s);
    strides = std::move(st);
  }
  /// Walks each dimension that operand `ref` walks backwards forwards, for
  /// every operand at once: their strides change sign and `shift[j]` (the
  /// element offset of operand j's first element) moves to the far end.
  void make_forward(std::size_t ref, std::vector<std::int64_t> &shift) {
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      if (strides[ref][d] >= 0)
        continue;
      for (std::size_t j = 0; j < strides.size(); ++j) {
        shift[j] += (sizes[d] - 1) * strides[j][d];
        strides[j][d] = -strides[j][d];
      }
    }
  }
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (std::int64_t x : sizes)
      n *= x;
    return n;
  }
};

/// Everything one call needs to run.
struct call {
  const reduction_kernel &k;
  device dev;
  std::vector<const array_base *> full;  ///< full inputs, then a full output
  std::vector<const array_base *> kept;  ///< kept inputs, then a kept output
  dims kd, rd;                           ///< kept dims (full and kept operands), reduced dims (full operands)
  std::vector<std::int64_t> shift;       ///< per operand (full, then kept): elements from data() to its first
  layout lay = layout::general;
  std::int64_t nk = 1, nr = 1;
  std::int64_t outer = 1, inner = 1; ///< cols
};

/// Checks counts, arrays, dtypes and devices; returns the device.
device check_operands(const reduction_kernel &k, std::span<const array_base *const> inputs,
                      std::span<const array_base *const> kept, std::span<const void *const> scalars) {
  if (inputs.size() != k.num_inputs || kept.size() != k.num_kept_inputs || scalars.size() != k.num_scalars)
    throw value_error("kernel " + kernel_name(k) + " takes " + std::to_string(k.num_inputs) + " inputs, " +
                      std::to_string(k.num_kept_inputs) + " kept inputs and " + std::to_string(k.num_scalars) +
                      " scalars; got " + std::to_string(inputs.size()) + ", " + std::to_string(kept.size()) +
                      " and " + std::to_string(scalars.size()));
  if (inputs.empty())
    throw value_error("kernel " + kernel_name(k) + " has no full-space input");
  device dev = inputs[0] ? inputs[0]->device() : device::host();
  auto check = [&](const array_base *a, std::size_t i, std::size_t dtypeIndex) {
    if (!a || !a->valid())
      throw value_error("kernel " + kernel_name(k) + ": input " + std::to_string(i) +
                        " is not an array (default-constructed or moved from)");
    if (k.operand_dtypes && a->dtype() != k.operand_dtypes[dtypeIndex])
      throw value_error("kernel " + kernel_name(k) + ": input " + std::to_string(i) + " has dtype " +
                        std::string(name(a->dtype())) + " but the kernel takes " +
                        std::string(name(k.operand_dtypes[dtypeIndex])));
    if (a->device() != dev)
      throw device_error("arrays are on different devices: " + dev.str() + " and " + a->device().str());
  };
  for (std::size_t i = 0; i < inputs.size(); ++i)
    check(inputs[i], i, i);
  for (std::size_t i = 0; i < kept.size(); ++i)
    check(kept[i], inputs.size() + i, inputs.size() + i);
  for (std::size_t i = 0; i < scalars.size(); ++i)
    if (!scalars[i])
      throw value_error("kernel " + kernel_name(k) + ": scalar " + std::to_string(i) + " is a null pointer");
  return dev;
}

/// The rank of the broadcast of the full inputs in `mask`.
std::size_t rank_of(std::span<const array_base *const> inputs, std::uint64_t mask) {
  std::size_t r = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (mask >> i & 1)
      r = std::max(r, inputs[i]->shape().size());
  return r;
}

/// Byte offsets of the workspace arrays, as VariantCommon.cpp's Workspace
/// lays them out: per stage and component, partial [nk * split] then
/// result [nk] elements, each 16-byte aligned. Returns the total size.
std::int64_t workspace_bytes(const reduction_kernel &k, std::int64_t nk, std::int64_t split) {
  std::int64_t offset = 0;
  auto align16 = [](std::int64_t v) { return (v + 15) & ~std::int64_t(15); };
  for (int s = 0; s < k.num_stages; ++s)
    for (int c = 0; c < k.stages[s].num_components; ++c) {
      std::int64_t bytes = k.stages[s].component_bytes[c];
      offset = align16(offset) + nk * split * bytes;
      offset = align16(offset) + nk * bytes;
    }
  return offset;
}

/// The address of operand `a`'s first element as the kernel walks it
/// (operand `op`: full operands, then kept ones).
void *first_element(const call &c, const array_base *a, std::size_t op) {
  const std::int64_t shift = op < c.shift.size() ? c.shift[op] : 0;
  return static_cast<char *>(a->data()) + shift * static_cast<std::int64_t>(itemsize(a->dtype()));
}

/// The parameters of one variant, packed as cuLaunchKernel's kernelParams.
class packed_args {
public:
  packed_args(const call &c, std::span<const void *const> scalars, const array_base *workspace) {
    const unsigned fr = c.lay == layout::rows ? 2 : c.lay == layout::cols ? 3 : 8;
    const unsigned kr = c.lay == layout::rows ? 1 : c.lay == layout::cols ? 2 : 4;
    fields_.resize(c.full.size() + c.kept.size() + 1);
    std::size_t f = 0;
    // Full operands: inputs first, then a full output; kept likewise. The
    // kernel ABI orders inputs, kept inputs, then the output.
    const std::size_t numFullInputs = c.k.num_inputs, numKeptInputs = c.k.num_kept_inputs;
    auto fill = [&](const array_base *a, std::size_t op, bool isFull) {
      memref_fields &m = fields_[f++];
      m.allocated = m.aligned = first_element(c, a, isFull ? op : c.full.size() + op);
      const dims &kd = c.kd;
      std::int64_t *sz = m.sizes, *st = m.strides;
      const std::vector<std::int64_t> &ks = isFull ? kd.strides[op] : kd.strides[c.full.size() + op];
      if (c.lay == layout::rows) {
        sz[0] = kd.sizes.empty() ? 1 : kd.sizes[0];
        st[0] = kd.sizes.empty() ? 0 : ks[0];
        if (isFull) {
          sz[1] = c.rd.sizes[0];
          st[1] = c.rd.strides[op][0];
        }
      } else if (c.lay == layout::cols) {
        const bool two = kd.sizes.size() == 2;
        sz[0] = two ? kd.sizes[0] : 1;
        st[0] = two ? ks[0] : 0;
        const std::int64_t innerSize = kd.sizes.back(), innerStride = ks.back();
        if (isFull) {
          sz[1] = c.rd.sizes[0];
          st[1] = c.rd.strides[op][0];
          sz[2] = innerSize;
          st[2] = innerStride;
        } else {
          sz[1] = innerSize;
          st[1] = innerStride;
        }
      } else {
        // Leading kept (and reduced) dimensions pad with size 1.
        const std::size_t nkd = kd.sizes.size(), nrd = c.rd.sizes.size();
        for (unsigned d = 0; d < 4; ++d) {
          const bool real = d >= 4 - nkd;
          sz[d] = real ? kd.sizes[d - (4 - nkd)] : 1;
          st[d] = real ? ks[d - (4 - nkd)] : 0;
          if (isFull) {
            const bool rreal = d >= 4 - nrd;
            sz[4 + d] = rreal ? c.rd.sizes[d - (4 - nrd)] : 1;
            st[4 + d] = rreal ? c.rd.strides[op][d - (4 - nrd)] : 0;
          }
        }
      }
      args_.push_back(&m.allocated);
      args_.push_back(&m.aligned);
      args_.push_back(&m.offset);
      const unsigned rank = isFull ? fr : kr;
      for (unsigned d = 0; d < rank; ++d)
        args_.push_back(&m.sizes[d]);
      for (unsigned d = 0; d < rank; ++d)
        args_.push_back(&m.strides[d]);
    };
    for (std::size_t i = 0; i < numFullInputs; ++i)
      fill(c.full[i], i, true);
    for (std::size_t i = 0; i < numKeptInputs; ++i)
      fill(c.kept[i], i, false);
    if (c.k.kept_output)
      fill(c.kept.back(), c.kept.size() - 1, false);
    else
      fill(c.full.back(), c.full.size() - 1, true);
    for (const void *s : scalars)
      args_.push_back(const_cast<void *>(s));
    memref_fields &ws = fields_[f];
    ws.allocated = ws.aligned = workspace ? workspace->data() : nullptr;
    ws.sizes[0] = workspace ? workspace->size() : 0;
    ws.strides[0] = 1;
    args_.push_back(&ws.allocated);
    args_.push_back(&ws.aligned);
    args_.push_back(&ws.offset);
    args_.push_back(&ws.sizes[0]);
    args_.push_back(&ws.strides[0]);
    for (std::int32_t *p : {&phase, &level, &split, &flags})
      args_.push_back(p);
    args_.push_back(&first);
    args_.push_back(&count);
  }

  void **data() { return args_.data(); }
  std::size_t size() const { return args_.size(); }

  std::int32_t phase = 0, level = 0, split = 1, flags = 0;
  std::int64_t first = 0, count = 0;

private:
  std::vector<memref_fields> fields_;
  std::vector<void *> args_;
};

/// Whether every full operand's vector accesses are aligned in this layout.
bool vectors_aligned(const call &c) {
  const std::int64_t width = std::max<int>(c.k.vector_width, 1);
  if (width <= 1)
    return false;
  for (std::size_t j = 0; j < c.full.size(); ++j) {
    const std::int64_t item = static_cast<std::int64_t>(itemsize(c.full[j]->dtype()));
    const std::int64_t align = width * item;
    if (reinterpret_cast<std::uintptr_t>(first_element(c, c.full[j], j)) % align)
      return false;
    auto ok = [&](std::int64_t stride) { return (stride * item) % align == 0; };
    if (c.lay == layout::rows) {
      if (!c.kd.sizes.empty() && !ok(c.kd.strides[j][0]))
        return false;
    } else if (c.lay == layout::cols) {
      if (c.kd.sizes.size() == 2 && !ok(c.kd.strides[j][0]))
        return false;
      if (!ok(c.rd.strides[j][0]))
        return false;
    }
  }
  return true;
}

/// Builds kept and reduced dimensions and picks the layout; false if none
/// fits (more than four non-mergeable dimensions of either kind).
bool plan_layout(call &c, const shape &S, std::uint64_t A, const shape &keptShape, bool keepdims) {
  const std::size_t rank = S.size();
  const std::size_t numFull = c.full.size(), numKept = c.kept.size();
  std::vector<std::vector<std::int64_t>> fullStrides(numFull), keptStrides(numKept);
  for (std::size_t j = 0; j < numFull; ++j)
    fullStrides[j] = aligned_strides(*c.full[j], S);
  for (std::size_t j = 0; j < numKept; ++j)
    keptStrides[j] = aligned_strides(*c.kept[j], keptShape);
  c.kd.strides.assign(numFull + numKept, {});
  c.rd.strides.assign(numFull, {});
  std::size_t keptPos = 0; // position of the next kept dim in keptShape
  for (std::size_t d = 0; d < rank; ++d) {
    const bool reduced = A >> d & 1;
    if (reduced) {
      if (keepdims)
        ++keptPos;
      if (S[d] == 1)
        continue;
      c.rd.sizes.push_back(S[d]);
      for (std::size_t j = 0; j < numFull; ++j)
        c.rd.strides[j].push_back(fullStrides[j][d]);
      continue;
    }
    const std::size_t kp = keptPos++;
    if (S[d] == 1)
      continue;
    c.kd.sizes.push_back(S[d]);
    for (std::size_t j = 0; j < numFull; ++j)
      c.kd.strides[j].push_back(fullStrides[j][d]);
    for (std::size_t j = 0; j < numKept; ++j)
      c.kd.strides[numFull + j].push_back(keptStrides[j][kp]);
  }
  // The kept dimensions in the memory order of the first input of the full
  // shape: then neighbours that every operand walks as one merge, whatever
  // the order of the logical axes (`max(x.T(), 0)` of a 3-d x, its output allocated in
  // the inputs' order: one kept dimension, rows). Each operand is addressed
  // by its own strides, so the order of the kept index is the kernel's own.
  // The reduced dimensions too, unless an argmax/argmin's index counts
  // them in NumPy's order: `sum(x.T())` is then one contiguous row (NumPy
  // also sums in memory order).
  if (numFull > 0) {
    std::size_t ref = 0; // the first operand of the full shape (no broadcast axes)
    while (ref + 1 < numFull && c.full[ref]->shape() != S)
      ++ref;
    c.kd.sort_by(ref);
    // Reversed views walk forwards: `sum(x[::-1])` is then a contiguous row.
    c.shift.assign(numFull + numKept, 0);
    c.kd.make_forward(ref, c.shift);
    if (!c.k.single_axis) {
      c.rd.sort_by(ref);
      c.rd.make_forward(ref, c.shift);
    }
  }
  c.kd.coalesce();
  c.rd.coalesce();
  c.nk = c.kd.numel();
  c.nr = c.rd.numel();
  if (c.rd.sizes.empty()) { // nothing reduced (axes {} or size-1 axes): one element
    c.rd.sizes.push_back(1);
    for (auto &st : c.rd.strides)
      st.push_back(1);
  }
  const bool oneReduced = c.rd.sizes.size() == 1;
  bool rows = oneReduced && c.kd.sizes.size() <= 1;
  // (The rows' memrefs have a unit inner stride: a stepped row is general.)
  for (std::size_t j = 0; rows && j < numFull; ++j)
    rows = c.rd.sizes[0] == 1 || c.rd.strides[j][0] == 1;
  if (rows) {
    c.lay = layout::rows;
    return true;
  }
  bool cols = oneReduced && !c.kd.sizes.empty() && c.kd.sizes.size() <= 2;
  for (std::size_t j = 0; cols && j < numFull; ++j)
    cols = c.kd.strides[j].back() == 1;
  if (cols) {
    c.lay = layout::cols;
    c.inner = c.kd.sizes.back();
    c.outer = c.kd.sizes.size() == 2 ? c.kd.sizes[0] : 1;
    return true;
  }
  if (c.kd.sizes.size() <= 4 && c.rd.sizes.size() <= 4) {
    c.lay = layout::general;
    return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// One launch: `units` virtual blocks of `phase` (and `level`).
struct launcher {
  call &c;
  packed_args &args;
  int gpu = -1; ///< GPU ordinal, or -1 for the host
  void *stream = nullptr;

  const char *suffix(bool warp) const {
    switch (c.lay) {
    case layout::rows:
      return warp ? "_rrowsw" : "_rrows";
    case layout::cols:
      return "_rcols";
    case layout::general:
      return "_rgeneral";
    }
    return "";
  }

  /// `_rrowsc` (sm_90): `clusters` clusters of `cluster` blocks, each with
  /// `shared` bytes of dynamic shared memory, take the rows in turn.
  void run_clusters(std::int64_t clusters, unsigned cluster, unsigned shared) {
    args.phase = static_cast<std::int32_t>(reduction_phase::whole);
    args.level = 0;
    args.first = 0;
    args.count = c.nk;
    const unsigned grid = static_cast<unsigned>(clusters) * cluster;
    launch::kernel_image image{&c.k.ptx_sm90, c.k.name, c.k.ptx_sm90, nullptr, 0};
    launch::launch_cluster_entry(image, gpu, 0, "_rrowsc", grid, gpu_block, cluster, shared, args.data(), stream);
  }

  void run(reduction_phase phase, int level, std::int64_t blocks, bool warp = false) {
    if (blocks <= 0)
      return;
    args.phase = static_cast<std::int32_t>(phase);
    args.level = level;
    if (gpu >= 0) {
      args.first = 0;
      args.count = blocks;
      const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>(blocks, 0x7fffffff));
      const int slot = c.lay == layout::rows ? (warp ? 1 : 0) : c.lay == layout::cols ? 2 : 3;
      launch::launch_entry(image_of(c.k), gpu, slot, suffix(warp), grid, gpu_block, 0, args.data(), stream);
      return;
    }
    const host_kernel_fn fn = c.k.host[c.lay == layout::rows ? 0 : c.lay == layout::cols ? 1 : 2];
    if (!fn)
      throw kiln::error("kernel " + kernel_name(c.k) + " was built without host variants");
    // Each task gets its own copy of the parameters with its block range.
    const std::size_t n = args.size();
    parallel::parallel_for(blocks, 1, [&](std::int64_t begin, std::int64_t end) {
      std::vector<void *> mine(args.data(), args.data() + n);
      std::int64_t first = begin, count = end - begin;
      mine[n - 2] = &first;
      mine[n - 1] = &count;
      fn(mine.data());
    });
  }
};

/// Full inputs that `_rrowsc` keeps in shared memory: those read by the
/// first level and again later (GpuClusterRows.cpp's clusterCachedInputs).
std::uint64_t cluster_cached_inputs(const reduction_kernel &k) {
  std::uint64_t first = 0, later = k.kept_output ? 0 : k.map_inputs;
  for (int j = 0; j < k.num_stages; ++j)
    (k.stages[j].level == 0 ? first : later) |= k.stages[j].full_inputs;
  return first & later;
}

/// Blocks per row and dynamic shared memory per block for `_rrowsc`, or
/// {0, 0} where one block per row serves: on sm_90 and later, for rows
/// whose cached inputs pass `cluster_from` bytes (re-reading them would
/// then miss L2), in clusters of up to 8 blocks of at most
/// `cluster_block_bytes` each.
constexpr std::int64_t cluster_from = 64 * 1024;
constexpr std::int64_t cluster_block_bytes = 64 * 1024;
constexpr std::int64_t cluster_block_limit = 200 * 1024;

std::pair<unsigned, unsigned> cluster_plan(const call &c, int gpu) {
  const reduction_kernel &k = c.k;
  if (!k.ptx_sm90 || c.lay != layout::rows || launch::compute_capability(gpu) < 90)
    return {0, 0};
  const std::uint64_t cached = cluster_cached_inputs(k);
  std::int64_t rowBytes = 0;
  for (int i = 0; i < k.num_inputs; ++i)
    if (cached >> i & 1)
      rowBytes += c.nr * static_cast<std::int64_t>(itemsize(k.operand_dtypes[i]));
  if (rowBytes <= cluster_from)
    return {0, 0};
  unsigned blocks = 2;
  while (blocks < 8 && rowBytes > cluster_block_bytes * blocks)
    blocks *= 2;
  // Each block's chunk, a whole number of vectors, and its cache (inputs
  // 16-byte aligned), as the kernel lays it out.
  const std::int64_t v = std::max<int>(k.vector_width, 1);
  const std::int64_t chunk = ((c.nr + blocks - 1) / blocks + v - 1) / v * v;
  std::int64_t shared = 0;
  for (int i = 0; i < k.num_inputs; ++i)
    if (cached >> i & 1)
      shared = (shared + chunk * static_cast<std::int64_t>(itemsize(k.operand_dtypes[i])) + 15) / 16 * 16;
  if (shared > cluster_block_limit)
    return {0, 0};
  return {blocks, static_cast<unsigned>(shared)};
}

/// The output, its axes in NumPy's order 'K': in the memory order of the
/// first full input of the full shape (largest stride outermost), so that
/// the output walks memory as the inputs do. A C-order result of a
/// transposed input (`x.T() - max(x.T(), -1, true)`, `max(x.T(), 0)` of a
/// 3-d x) left no layout every operand shares but `_rgeneral`, one kept
/// element at a time through strided memory: 10-20x NumPy's time on the
/// host (campaign seed 1), where NumPy's own result follows its input.
/// `full` says the output has the full shape S (else the kept shape of
/// the reduced axes A, with or without keepdims).
array_base allocate_output(dtype t, const shape &out_shape, const shape &S, std::uint64_t A, bool keepdims, bool full,
                           std::span<const array_base *const> inputs, device dev) {
  const array_base *ref = nullptr;
  for (const array_base *a : inputs)
    if (a->shape() == S) {
      ref = a;
      break;
    }
  // The full axis of each output axis.
  std::vector<std::size_t> axis_of;
  for (std::size_t d = 0; d < S.size(); ++d)
    if (full || keepdims || !(A >> d & 1))
      axis_of.push_back(d);
  if (!ref || axis_of.size() != out_shape.size() || out_shape.size() < 2)
    return detail::empty(t, out_shape, dev);
  std::vector<std::int64_t> perm(out_shape.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    perm[i] = static_cast<std::int64_t>(i);
  auto key = [&](std::int64_t i) -> std::int64_t {
    const std::size_t d = axis_of[static_cast<std::size_t>(i)];
    return out_shape[static_cast<std::size_t>(i)] == 1 ? -1 : std::abs(ref->strides()[d]);
  };
  std::stable_sort(perm.begin(), perm.end(), [&](std::int64_t a, std::int64_t b) { return key(a) > key(b); });
  if (std::is_sorted(perm.begin(), perm.end()))
    return detail::empty(t, out_shape, dev); // C order already
  shape buffer_shape;
  for (std::int64_t i : perm)
    buffer_shape.push_back(out_shape[static_cast<std::size_t>(i)]);
  std::vector<std::int64_t> inverse(perm.size());
  for (std::size_t j = 0; j < perm.size(); ++j)
    inverse[static_cast<std::size_t>(perm[j])] = static_cast<std::int64_t>(j);
  return detail::transpose(detail::empty(t, buffer_shape, dev), inverse);
}

} // namespace

bool launch_reduction(const reduction_kernel &k, std::span<const array_base *const> inputs,
                      std::span<const array_base *const> keptInputs, std::span<const void *const> scalars,
                      const axes &ax, bool keepdims, array_base &out) {
  const device dev = check_operands(k, inputs, keptInputs, scalars);
  if (k.single_axis && !ax.is_all() && ax.list().size() != 1)
    return false; // NumPy's error comes from the eager form
  // A full input that nothing reads any more (the compiler folded it away:
  // `where(i != i, x, mean(y))` with integer i) still shapes NumPy's answer,
  // but no stage's operand rank says so: the eager form settles it.
  std::uint64_t read = k.map_inputs;
  for (int j = 0; j < k.num_stages; ++j)
    read |= k.stages[j].full_inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!(read >> i & 1))
      return false;

  // The full space: the broadcast of the full inputs.
  std::size_t rank = 0;
  for (const array_base *a : inputs)
    rank = std::max(rank, a->shape().size());
  shape S = shape::filled(rank, 1);
  for (const array_base *a : inputs) {
    const std::size_t lead = rank - a->shape().size();
    for (std::size_t d = 0; d < a->shape().size(); ++d) {
      const std::int64_t n = a->shape()[d];
      std::int64_t &o = S[lead + d];
      if (n == o || n == 1)
        continue;
      if (o != 1)
        return false; // NumPy may still accept it (0-d results), else the eager form raises
      o = n;
    }
  }

  // The reduced axes, as NumPy numbers them for each stage's operand (whose
  // rank may be lower), aligned to S; every stage must reduce the same.
  std::uint64_t A = 0;
  for (int j = 0; j < k.num_stages; ++j) {
    const std::size_t r = rank_of(inputs, k.stages[j].shape_inputs | k.stages[j].full_inputs);
    std::uint64_t mask = 0;
    if (r < rank) {
      // A stage of lower rank than the full space (an input of fewer
      // dimensions, a cut reduction's 0-d result) need not take the axes
      // NumPy applies to a higher-rank operand: the eager form decides
      // (difftest seed 7205 #185, mean(sqrt(mean(x, 0) - all(y)), 0, true)).
      try {
        mask = normalize_axes(ax, static_cast<std::int64_t>(r)) << (rank - r);
      } catch (const index_error &) {
        return false;
      }
    } else {
      mask = normalize_axes(ax, static_cast<std::int64_t>(r)) << (rank - r);
    }
    if (j > 0 && mask != A)
      return false;
    A = mask;
  }
  // NumPy's result of a full-space output lacks the leading axes that
  // neither the reductions' results nor the output map's operands have:
  // `sum(t, 0) + b` with a 1-d b is 1-d. When those axes are reduced ones
  // (or of extent 1), the output map's operands may lack them: the result is
  // then kept-shaped, written through a view broadcast along them (once per
  // kept element: reduction_output_once).
  std::size_t drop = 0;
  if (!k.kept_output) {
    std::size_t r = 0;
    for (std::size_t d = 0; d < rank; ++d)
      r += keepdims || !(A >> d & 1);
    r = std::max(r, rank_of(inputs, k.map_inputs | k.map_shape_inputs));
    drop = rank - r;
    for (std::size_t d = 0; d < drop; ++d)
      if (S[d] != 1 && !(A >> d & 1))
        drop = 0;
  }
  // No stage may see a broadcast along a reduced axis, nor may the output
  // map (NumPy would then reduce or write fewer elements), but along the
  // leading axes NumPy's result drops.
  for (std::size_t d = 0; d < rank; ++d) {
    if (!(A >> d & 1) || S[d] == 1)
      continue;
    for (int j = 0; j < k.num_stages; ++j) {
      std::int64_t e = 1; // the stage's broadcast extent (0 for an empty axis)
      for (std::size_t i = 0; i < inputs.size(); ++i)
        if ((k.stages[j].shape_inputs | k.stages[j].full_inputs) >> i & 1)
          if (const std::int64_t x = extent_at(*inputs[i], rank, d); x != 1)
            e = x;
      if (e != S[d])
        return false;
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (((k.map_inputs | k.map_shape_inputs) >> i & 1) && extent_at(*inputs[i], rank, d) != S[d] && d >= drop)
        return false;
  }
  // The kept shape (NumPy's result shape of the reductions).
  shape keptShape;
  std::int64_t nk = 1, nr = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    if (A >> d & 1) {
      nr *= S[d];
      if (keepdims)
        keptShape.push_back(1);
    } else {
      nk *= S[d];
      keptShape.push_back(S[d]);
    }
  }
  for (const array_base *a : keptInputs) {
    if (a->shape().size() > keptShape.size())
      return false;
    const std::size_t lead = keptShape.size() - a->shape().size();
    for (std::size_t d = 0; d < a->shape().size(); ++d)
      if (a->shape()[d] != 1 && a->shape()[d] != keptShape[lead + d])
        return false;
  }
  if (nr == 0 && nk > 0 && k.empty_error)
    throw value_error(k.empty_error);

  const dtype outType = k.operand_dtypes[k.num_inputs + k.num_kept_inputs];
  array_base result; // set when the output is a broadcast view of it
  bool dropsReduced = false;
  for (std::size_t d = 0; d < drop; ++d)
    dropsReduced |= S[d] != 1;
  if (dropsReduced) {
    result = detail::empty(outType, shape(std::span<const std::int64_t>(S.data() + drop, rank - drop)), dev);
    out = detail::broadcast_to(result, S);
  } else {
    out = allocate_output(outType, k.kept_output ? keptShape : S, S, A, keepdims, !k.kept_output, inputs, dev);
  }
  // A full-space result has NumPy's rank: that of the output map's operands
  // and of the reductions' results, which may lack leading axes of S (of
  // extent 1, checked above): `min(a) != t` of a (1,) and a 0-d t is 0-d.
  shape resultShape = out.shape();
  if (!k.kept_output) {
    std::size_t r = keptShape.size();
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if ((k.map_inputs | k.map_shape_inputs) >> i & 1)
        r = std::max(r, inputs[i]->shape().size());
    if (r < rank)
      resultShape = shape(std::span<const std::int64_t>(S.data() + (rank - r), r));
  }
  auto finish = [&] {
    if (dropsReduced)
      out = result;
    else if (resultShape != out.shape())
      out = detail::reshape(out, resultShape);
    return true;
  };
  if (out.size() == 0)
    return finish();

  call c{k, dev, {}, {}, {}, {}};
  c.full.assign(inputs.begin(), inputs.end());
  c.kept.assign(keptInputs.begin(), keptInputs.end());
  (k.kept_output ? c.kept : c.full).push_back(&out);
  if (!plan_layout(c, S, A, keptShape, keepdims))
    return false; // more than four non-mergeable dimensions: the eager form
  // Short columns on a GPU (layer norm over the middle axis of a (56743, 8,
  // 128) array: 8 rows): `_rcols` would merge a block's 8 thread rows
  // through shared memory for every tile of 256 elements; the general
  // layout gives each column a thread (below), which reads it down with no
  // merge, neighbouring threads neighbouring columns.
  if (!dev.is_host() && c.lay == layout::cols && c.nr <= short_columns && c.nk >= 8192)
    c.lay = layout::general;

  // A full-space output that, like every input its map reads, does not vary
  // along the reduced dimensions (the broadcast view above: kilnc could not
  // prove an operand's rank) is a kept result in disguise: each kept element
  // is written once, not once per reduced element from every thread.
  bool outputOnce = !k.kept_output && c.lay != layout::cols && c.nr > 1;
  for (std::size_t d = 0; outputOnce && d < c.rd.sizes.size(); ++d) {
    outputOnce = c.rd.sizes[d] == 1 || c.rd.strides[c.full.size() - 1][d] == 0;
    for (std::size_t j = 0; outputOnce && j < k.num_inputs; ++j)
      if (k.map_inputs >> j & 1)
        outputOnce = c.rd.strides[j][d] == 0;
  }

  // The schedule: whole kept elements per block, or a split reduced extent.
  bool warp = false;
  int narrowing = 0; // `_rrowsw`, `_rcols`, general: 32 >> narrowing lanes (reduction_lanes_shift)
  std::int64_t split = 1;
  std::pair<unsigned, unsigned> cluster{0, 0}; // `_rrowsc`: blocks per row, shared bytes
  int gpu = -1;
  void *stream = nullptr;
  std::int64_t units = c.nk; // virtual blocks of the whole phase
  // GPU `_rcols`: 32 >> narrowing threads across a tile of as many vectors
  // of columns, narrower where the kept rows are (an inner dimension of 7).
  const std::int64_t v = std::max<int>(k.vector_width, 1);
  if (c.lay == layout::cols && !dev.is_host())
    narrowing = lane_narrowing(c.inner, v);
  const std::int64_t tile = dev.is_host() ? host_tile : (std::int64_t{32} >> narrowing) * v;
  const std::int64_t tiles = c.lay == layout::cols ? c.outer * ((c.inner + tile - 1) / tile) : 0;
  if (!dev.is_host()) {
    gpu = dev.index();
    cuda::make_current(gpu);
    stream = kiln::stream::current(dev).native_handle();
    const std::int64_t target = 4 * launch::multiprocessor_count(gpu);
    if (c.lay == layout::rows) {
      warp = c.nr <= 1024;
      if (!warp && !outputOnce && c.nk >= launch::multiprocessor_count(gpu)) // else splitting the rows fills the GPU better
        cluster = cluster_plan(c, gpu);
      if (!warp && cluster.first == 0 && c.nk < target && c.nr >= 2 * gpu_chunk)
        split = std::max((target + c.nk - 1) / c.nk, (c.nr + gpu_chunk - 1) / gpu_chunk);
      // (Rounding the chunks up to whole waves measured slower on an H100:
      // sum of 2^28 float32, 0.368 ms against 0.354 ms. The chunk size
      // hardly matters: 8 Ki to 256 Ki elements a block, 0.354-0.365 ms.)
      if (warp) {
        // Lanes per kept element: about four items (vectors where the rows
        // are aligned for them, else elements) a lane, at most a warp.
        narrowing = lane_narrowing(vectors_aligned(c) ? c.nr / v : c.nr, 4);
        units = narrowed_units(c.nk, narrowing);
      } else {
        units = c.nk;
      }
    } else if (c.lay == layout::cols) {
      units = tiles;
      // Few column tiles: split the rows so that the blocks make one full
      // wave (as many as are resident at once), equal shares each: a
      // partial second wave would leave most of the GPU idle at the end.
      const std::int64_t wave =
          launch::blocks_per_multiprocessor(image_of(k), gpu, 2, "_rcols", gpu_block, 0) * launch::multiprocessor_count(gpu);
      if (tiles < wave && c.nr >= 1024)
        split = std::min<std::int64_t>(wave / tiles, c.nr / 64);
    } else {
      units = (c.nk + 7) / 8;
      // Few long kept elements: a warp per chunk of general_chunk elements,
      // enough chunks for 4 blocks (32 warps) a multiprocessor.
      if (c.nk < 8 * target && c.nr >= 2 * general_chunk)
        split = std::max((8 * target + c.nk - 1) / c.nk, (c.nr + general_chunk - 1) / general_chunk);
      if (split == 1) {
        // Whole kept elements: a thread each where, in every full operand,
        // neighbouring kept elements lie closer in memory than neighbouring
        // reduced ones (min(x[:, ::2], 0): a warp then reads 32 neighbouring
        // columns, where a warp a column read 32 rows apart), else lanes
        // enough for about four elements each, at most a warp.
        bool columns = !c.kd.sizes.empty() && !c.rd.sizes.empty() && c.nk >= 32;
        for (std::size_t j = 0; columns && j < c.full.size(); ++j) {
          const std::int64_t keptStep = std::abs(c.kd.strides[j].back()), reducedStep = std::abs(c.rd.strides[j].back());
          columns = reducedStep == 0 || (keptStep > 0 && keptStep < reducedStep); // (broadcast: either way)
        }
        narrowing = columns ? 5 : lane_narrowing(c.nr, 4);
        units = narrowed_units(c.nk, narrowing);
      }
    }
  } else {
    // Host: the split depends only on the shape, so the bits never depend
    // on the number of threads.
    if (c.lay != layout::cols && c.nk < 64 && c.nr >= host_split_from)
      split = (c.nr + host_chunk - 1) / host_chunk;
    if (c.lay == layout::cols) {
      units = tiles;
      // Fewer than 16 tiles (of 4096 columns): split the rows into chunks
      // of at least 256 (16 tasks or more, and long columns into 64 chunks).
      if (tiles < 16 && c.nr >= 512)
        split = std::min<std::int64_t>(c.nr >= host_split_from ? 64 : (16 + tiles - 1) / tiles, c.nr / 256);
    }
  }
  split = std::max<std::int64_t>(split, 1);

  array_base workspace;
  if (split > 1)
    workspace = detail::empty(dtype::uint8, shape{workspace_bytes(k, c.nk, split)}, dev);
  packed_args args(c, scalars, split > 1 ? &workspace : nullptr);
  args.split = static_cast<std::int32_t>(split);
  args.flags = (vectors_aligned(c) ? reduction_vectors : 0) | (outputOnce ? reduction_output_once : 0) |
               narrowing << reduction_lanes_shift;
  launcher run{c, args, gpu, stream};
  if (cluster.first > 0) {
    const std::int64_t clusters = std::min<std::int64_t>(c.nk, 8 * launch::multiprocessor_count(gpu));
    run.run_clusters(clusters, cluster.first, cluster.second);
    return finish();
  }
  if (split == 1) {
    run.run(reduction_phase::whole, 0, units, warp);
    return finish();
  }
  const std::int64_t splitUnits = (c.lay == layout::cols ? tiles : c.nk) * split;
  std::int64_t combineUnits = c.lay == layout::cols && gpu >= 0 ? (c.nk + gpu_block - 1) / gpu_block : c.nk;
  std::int64_t splitBlocks = splitUnits;
  if (c.lay == layout::general && gpu >= 0) { // 8 warps a block, a unit each
    splitBlocks = (splitUnits + 7) / 8;
    combineUnits = (c.nk + 7) / 8;
  }
  for (int level = 0; level < k.num_levels; ++level) {
    run.run(reduction_phase::partial, level, splitBlocks);
    run.run(reduction_phase::combine, level, combineUnits);
  }
  if (!k.kept_output)
    run.run(reduction_phase::output, 0, splitBlocks);
  return finish();
}

} // namespace kiln::detail
