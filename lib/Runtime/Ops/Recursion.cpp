#include "rvnn/Runtime/Ops/Recursion.h"

#include "PairMergeCpu.h"
#include "rvnn/Runtime/Ops/RowRuns.h"

#ifdef RVNN_RUNTIME_CUDA_KERNELS
#include "rvnn/Runtime/Cuda/PairMergeFunction.h"
#endif

#include <ATen/Dispatch.h>
#include <torch/autograd.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace rvnn::runtime::ops {

namespace {

/// Right-pads dim `dim` of `x` with `count` zeros.
torch::Tensor padRight(const torch::Tensor &x, int64_t dim, int64_t count) {
  // constant_pad_nd lists (before, after) pairs starting from the last dim.
  std::vector<int64_t> pads(2 * (x.dim() - dim), 0);
  pads.back() = count;
  return at::constant_pad_nd(x, pads, 0);
}

/// Unpaired groups worth leaving out of the reducer: with fewer, or fewer
/// than one in kSkippedShare of the groups, gathering the others and
/// scattering their parents (forward and backward) costs more than the
/// reducer's rows it saves. A GRC cell's row is ~0.8 MFLOP forward and twice
/// that backward; gathering and scattering 3400 groups of [2, 128] took
/// 0.9 ms forward and about as much backward, what the cell takes for about
/// 60 rows: break-even near one group in 50, one in 32 keeps a margin.
constexpr int64_t kFewestSkipped = 32;
constexpr int64_t kSkippedShare = 32;

/// The groups of a level split by whether they have a real child after the
/// first: `paired` ones go to the reducer, `unpaired` ones pass their first
/// child up. Indices into the level's groups, ascending.
struct GroupSplit {
  torch::Tensor paired, unpaired;
};

/// Whether leaving `unpaired` of `groups` groups out of the reducer pays.
bool worthSkipping(int64_t unpaired, int64_t groups) {
  return unpaired >= kFewestSkipped && unpaired * kSkippedShare >= groups;
}

/// The split of the groups of `mask` `[M, k]` where worthSkipping, else
/// nullopt. On the CPU one pass over the mask, and no index tensors unless
/// they are used: at batch 1 there is rarely more than one unpaired group.
std::optional<GroupSplit> splitGroups(const torch::Tensor &mask) {
  const int64_t groups = mask.size(0);
  if (!mask.device().is_cpu() || !mask.is_floating_point()) {
    const torch::Tensor paired =
        mask.narrow(1, 1, mask.size(1) - 1).ne(0).any(1);
    GroupSplit split{paired.nonzero().squeeze(1),
                     paired.logical_not().nonzero().squeeze(1)};
    if (!worthSkipping(split.unpaired.numel(), groups))
      return std::nullopt;
    return split;
  }
  const torch::Tensor m = mask.contiguous();
  const int64_t k = m.size(1);
  std::vector<int64_t> paired, unpaired;
  paired.reserve(groups);
  AT_DISPATCH_FLOATING_TYPES(m.scalar_type(), "split_groups", [&] {
    const scalar_t *row = m.data_ptr<scalar_t>();
    for (int64_t g = 0; g < groups; ++g, row += k)
      (std::any_of(row + 1, row + k,
                   [](scalar_t v) { return v != scalar_t(0); })
           ? paired
           : unpaired)
          .push_back(g);
  });
  if (!worthSkipping(static_cast<int64_t>(unpaired.size()), groups))
    return std::nullopt;
  const auto options = m.options().dtype(torch::kLong);
  return GroupSplit{torch::tensor(paired, options),
                    torch::tensor(unpaired, options)};
}

/// The children `[M, k, D]` of a level's paired groups, and the first child
/// `[U, D]` of each unpaired one. One autograd node whose backward writes
/// both cotangents into one tensor; index_select and select would each
/// build a zero tensor of the children's shape, for autograd to add. On the
/// CPU by runs of rows (RowRuns.h).
struct PartitionGroups : torch::autograd::Function<PartitionGroups> {
  static torch::autograd::variable_list
  forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &children,
          const torch::Tensor &paired, const torch::Tensor &unpaired) {
    ctx->saved_data["sizes"] = children.sizes();
    ctx->save_for_backward({paired, unpaired});
    const torch::Tensor firsts = children.select(1, 0);
    if (rowRunsTake({&children}) && rowRunsTake({&firsts}))
      return {rowRunsGather(children, rowRuns(paired)),
              rowRunsGather(firsts, rowRuns(unpaired))};
    return {children.index_select(0, paired), firsts.index_select(0, unpaired)};
  }

  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list grads) {
    // Autograd materialises the cotangent of an unused output as zeros.
    const auto rows = ctx->get_saved_variables();
    const auto sizes = ctx->saved_data["sizes"].toIntVector();
    torch::Tensor children = at::empty(sizes, grads[0].options());
    torch::Tensor firsts = children.select(1, 0);
    torch::Tensor others = children.narrow(1, 1, sizes[1] - 1);
    if (!rowRunsTake({&children, &grads[0]}) ||
        !rowRunsTake({&firsts, &grads[1]}) || !rowRunsTake({&others})) {
      children.zero_();
      children.index_copy_(0, rows[0], grads[0]);
      firsts.index_copy_(0, rows[1], grads[1]);
      return {children, torch::Tensor(), torch::Tensor()};
    }
    // Every row is written: a paired group's whole, an unpaired one's first
    // child and zeros after it.
    const std::vector<RowRun> unpaired = rowRuns(rows[1]);
    rowRunsScatter(grads[0], children, rowRuns(rows[0]));
    rowRunsScatter(grads[1], firsts, unpaired);
    rowRunsScatter(torch::Tensor(), others, unpaired);
    return {children, torch::Tensor(), torch::Tensor()};
  }
};

/// The level's parents: `fromPaired` `[P, D]` at rows `paired`,
/// `fromUnpaired` `[U, D]` at rows `unpaired`. Its backward gathers the two
/// cotangents; index_copy's would clone the whole cotangent and zero the
/// copied rows first. On the CPU by runs of rows (RowRuns.h).
struct InterleaveRows : torch::autograd::Function<InterleaveRows> {
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               const torch::Tensor &fromPaired,
                               const torch::Tensor &fromUnpaired,
                               const torch::Tensor &paired,
                               const torch::Tensor &unpaired) {
    ctx->save_for_backward({paired, unpaired});
    torch::Tensor rows =
        at::empty({paired.numel() + unpaired.numel(), fromPaired.size(1)},
                  fromPaired.options());
    if (rowRunsTake({&rows, &fromPaired, &fromUnpaired})) {
      rowRunsScatter(fromPaired, rows, rowRuns(paired));
      rowRunsScatter(fromUnpaired, rows, rowRuns(unpaired));
      return rows;
    }
    rows.index_copy_(0, paired, fromPaired);
    rows.index_copy_(0, unpaired, fromUnpaired);
    return rows;
  }

  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list grads) {
    const auto rows = ctx->get_saved_variables();
    if (rowRunsTake({&grads[0]}))
      return {rowRunsGather(grads[0], rowRuns(rows[0])),
              rowRunsGather(grads[0], rowRuns(rows[1])), torch::Tensor(),
              torch::Tensor()};
    return {grads[0].index_select(0, rows[0]),
            grads[0].index_select(0, rows[1]), torch::Tensor(),
            torch::Tensor()};
  }
};

/// The parents of `children` `[M, k, D]` (mask `[M, k]`). The reducer gives
/// a group whose children after the first are all padding its first child
/// (rvnn.balanced_reduce's contract), so where enough groups are such (at
/// batch 32, lengths 100-120, about a tenth: the batch's padding), they pass
/// their first child up and the reducer runs on the others only.
torch::Tensor reduceGroups(const torch::Tensor &children,
                           const torch::Tensor &mask,
                           const ChunkReducer &reducer) {
  const int64_t groups = children.size(0), d = children.size(2);
  auto check = [&](const torch::Tensor &parents, int64_t rows) {
    TORCH_CHECK(parents.dim() == 2 && parents.size(0) == rows &&
                    parents.size(1) == d,
                "balanced_reduce: the reducer must return [", rows, ", ", d,
                "], got ", parents.sizes());
    return parents;
  };
  const std::optional<GroupSplit> worthSplitting = splitGroups(mask);
  if (!worthSplitting)
    return check(reducer(children, mask), groups);
  const GroupSplit &split = *worthSplitting;
  if (split.paired.numel() == 0)
    return children.select(1, 0);
  const auto parts =
      PartitionGroups::apply(children, split.paired, split.unpaired);
  const torch::Tensor parents =
      check(reducer(parts[0], mask.index_select(0, split.paired)),
            split.paired.numel());
  return InterleaveRows::apply(parents, parts[1], split.paired, split.unpaired);
}

} // namespace

torch::Tensor balancedReduce(const torch::Tensor &h, const torch::Tensor &mask,
                             int64_t arity, const ChunkReducer &reducer) {
  TORCH_CHECK(arity >= 2, "balanced_reduce: arity must be >= 2, got ", arity);
  TORCH_CHECK(h.dim() == 3 && mask.dim() == 2,
              "balanced_reduce: expects h [N, S, D] and mask [N, S]");
  const int64_t n = h.size(0);
  const int64_t d = h.size(2);
  // The state as rows [N·L, D], sample-major: each level's children are a
  // view of it, and its parents are the next state as they come, so a level
  // adds one view to autograd's graph (a node to run in backward), two
  // where its samples need padding.
  torch::Tensor rows = h.reshape({n * h.size(1), d});
  torch::Tensor stateMask = mask;
  for (int64_t length = h.size(1); length > 1;) {
    const int64_t pad = (arity - length % arity) % arity;
    const int64_t groups = (length + pad) / arity;
    torch::Tensor padded = rows;
    if (pad > 0) {
      // One sample pads its rows; several pad each sample's.
      padded = n == 1 ? padRight(rows, 0, pad)
                      : padRight(rows.reshape({n, length, d}), 1, pad);
      stateMask = padRight(stateMask, 1, pad);
    }
    auto children = padded.reshape({n * groups, arity, d});
    auto childMask = stateMask.reshape({n * groups, arity});
    rows = reduceGroups(children, childMask, reducer);
    stateMask = childMask.select(1, 0).reshape({n, groups});
    length = groups;
  }
  return rows;
}

std::tuple<torch::Tensor, torch::Tensor> chunk(const torch::Tensor &x,
                                               const torch::Tensor &mask,
                                               int64_t size, int64_t dim) {
  TORCH_CHECK(size >= 2, "chunk: size must be >= 2, got ", size);
  TORCH_CHECK(dim >= 1 && dim < x.dim(), "chunk: dim ", dim,
              " must name a non-batch dim of a rank-", x.dim(), " tensor");
  const int64_t length = x.size(dim);
  TORCH_CHECK(mask.dim() == 2 && mask.size(1) == length,
              "chunk: mask must be [N, ", length, "], got ", mask.sizes());
  // RIR's rule: a sequence shorter than one and a half chunks stays whole.
  if (length < size + size / 2)
    return {x, mask};
  const int64_t count = (length + size - 1) / size;
  const int64_t pad = count * size - length;
  auto padded = pad > 0 ? padRight(x, dim, pad) : x;
  auto paddedMask = pad > 0 ? padRight(mask, 1, pad) : mask;

  std::vector<int64_t> split(x.sizes().begin(), x.sizes().end());
  split[dim] = size;
  split.insert(split.begin() + dim, count);
  // [N, ..., S1, size, ...] → [N, S1, ..., size, ...]: chunk-major per sample.
  auto chunks = padded.reshape(split).movedim(dim, 1);
  std::vector<int64_t> merged(chunks.sizes().begin() + 1, chunks.sizes().end());
  merged[0] = x.size(0) * count;
  return {chunks.reshape(merged), paddedMask.reshape({-1, size})};
}

torch::Tensor chunkBackward(const torch::Tensor &grad, torch::IntArrayRef sizes,
                            int64_t size, int64_t dim) {
  const int64_t length = sizes[dim];
  if (length < size + size / 2)
    return grad;
  const int64_t count = (length + size - 1) / size;
  // [N·S1, ..., size, ...] → [N, S1, ..., size, ...] → [N, ..., S1, size, ...]
  std::vector<int64_t> split(grad.sizes().begin(), grad.sizes().end());
  split[0] = sizes[0];
  split.insert(split.begin() + 1, count);
  std::vector<int64_t> padded(sizes.begin(), sizes.end());
  padded[dim] = count * size;
  return grad.reshape(split).movedim(1, dim).reshape(padded).narrow(dim, 0,
                                                                    length);
}

int64_t chunkDepth(int64_t length, int64_t size) {
  TORCH_CHECK(size >= 2, "chunk_depth: size must be >= 2, got ", size);
  int64_t depth = 0;
  // Each round is one chunk() with one item left per chunk.
  for (; length > 1; ++depth)
    length = length < size + size / 2 ? 1 : (length + size - 1) / size;
  return depth;
}

torch::Tensor unchunk(const torch::Tensor &x, const torch::Tensor &ref,
                      int64_t dim) {
  const int64_t rank = x.dim() + 1;
  if (dim < 0)
    dim += rank;
  TORCH_CHECK(dim >= 1 && dim < rank, "unchunk: dim out of range");
  const int64_t n = ref.size(0);
  TORCH_CHECK(n > 0 && x.size(0) % n == 0, "unchunk: leading dim ", x.size(0),
              " is not a multiple of the batch ", n);
  std::vector<int64_t> split(x.sizes().begin(), x.sizes().end());
  split[0] = x.size(0) / n;
  split.insert(split.begin(), n);
  return x.reshape(split).movedim(1, dim);
}

torch::Tensor unchunkBackward(const torch::Tensor &grad,
                              torch::IntArrayRef sizes, int64_t dim) {
  if (dim < 0)
    dim += grad.dim();
  return grad.movedim(dim, 1).reshape(sizes);
}

torch::Tensor pairMerge(const torch::Tensor &h, const torch::Tensor &cand,
                        const torch::Tensor &sel) {
  const int64_t pairs = h.size(-2) - 1;
  TORCH_CHECK(sel.size(-1) == pairs, "pair_merge: sel must have ", pairs,
              " entries along its last dim, got ", sel.size(-1));
  TORCH_CHECK(cand.size(-2) == pairs || cand.size(-2) == 1,
              "pair_merge: cand must have ", pairs, " or 1 rows, got ",
              cand.size(-2));
  // CUDA operands run on the CUDA kernels (lib/Runtime/Cuda), CPU ones on
  // the CPU kernel (PairMergeCpu.cpp); pairMergeReference stays the
  // reference they are tested against, and serves everything else (half
  // types, broadcast leading dims, very long rows on CUDA).
#ifdef RVNN_RUNTIME_CUDA_KERNELS
  if (cuda::pairMergeKernelTakes(h, cand, sel))
    return cuda::pairMerge(h, cand, sel);
#endif
  if (pairMergeCpuTakes(h, cand, sel))
    return pairMergeCpu(h, cand, sel);
  return pairMergeReference(h, cand, sel);
}

std::optional<std::vector<torch::Tensor>>
pairMergeBackward(const torch::Tensor &h, const torch::Tensor &cand,
                  const torch::Tensor &sel, const torch::Tensor &dy,
                  bool wantSel) {
  if (!pairMergeCpuTakes(h, cand, sel) || dy.scalar_type() != h.scalar_type())
    return std::nullopt;
  return pairMergeCpuBackward(h, cand, sel, dy, wantSel);
}

torch::Tensor pairMergeReference(const torch::Tensor &h,
                                 const torch::Tensor &cand,
                                 const torch::Tensor &sel) {
  const int64_t pairs = h.size(-2) - 1;
  auto c = sel.cumsum(-1);
  auto left = (1 - c).unsqueeze(-1);
  auto right = (c - sel).unsqueeze(-1);
  return sel.unsqueeze(-1) * cand + left * h.narrow(-2, 0, pairs) +
         right * h.narrow(-2, 1, pairs);
}

torch::Tensor freezeHalted(const torch::Tensor &halted,
                           const torch::Tensor &newState,
                           const torch::Tensor &oldState) {
  TORCH_CHECK(halted.dim() == 1 && halted.size(0) == newState.size(0),
              "freezeHalted: halted must be [N] with N = the state's dim 0");
  std::vector<int64_t> rows(newState.dim(), 1);
  rows[0] = halted.size(0);
  return at::where(halted.to(at::kBool).view(rows), oldState, newState);
}

} // namespace rvnn::runtime::ops
