// Buffer and view ops: allocation, casts, reshapes, slices, concatenation and
// transposition, and the add into a slice's window.
#include "Handlers.h"

#include "GradCollector.h"

#include <ATen/Dispatch.h>

#include <algorithm>
#include <limits>
#include <optional>

namespace rvnn::runtime {
namespace {

using torch::Tensor;

/// The marker for a dynamic offset, size or stride in slice's static_* arrays
/// (MLIR's ShapedType::kDynamic).
constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

/// The result shape of an op with one size operand per dynamic dim of its
/// result type, in order, from operand `first` on.
std::vector<int64_t> resultShape(const PlanOp &op, const Frame &frame,
                                 size_t first) {
  std::vector<int64_t> shape = op.resultTypes.at(0).shape;
  size_t next = first;
  for (int64_t &size : shape)
    if (size < 0 && next < op.operands.size())
      size = frame.integer(op, next++);
  if (next != op.operands.size() ||
      std::count(shape.begin(), shape.end(), -1) != 0)
    throw PlanError(op.where() + ": needs one size operand per dynamic dim "
                                 "of its result");
  return shape;
}

/// Zeros, so that GEMMs accumulating into the buffer are exact.
void alloc(Executor &executor, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0,
                  torch::zeros(resultShape(op, frame, 0),
                               torch::dtype(scalarType(op.resultTypes[0].dtype))
                                   .device(executor.context().device)));
}

void witness(Executor &executor, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0,
                  executor.invariantWitness(
                      frame.tensor(op, exec::ShapeWitnessOp::operand::like)));
}

void reshape(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0,
                  frame.tensor(op, 0).reshape(resultShape(op, frame, 1)));
}

/// The window must lie inside the source: stridedSlice's view does not
/// check.
void checkWindow(const PlanOp &op, const Tensor &source,
                 const SliceSpec &spec) {
  for (size_t d = 0; d < spec.sizes.size(); ++d) {
    const int64_t size = spec.sizes[d], offset = spec.offsets[d],
                  stride = spec.strides[d];
    const bool inside =
        size >= 0 && stride > 0 && offset >= 0 &&
        (size == 0 ? offset <= source.size(d)
                   : offset + (size - 1) * stride < source.size(d));
    if (!inside)
      throw PlanError(op.where() + ": dim " + std::to_string(d) +
                      " of the slice (offset " + std::to_string(offset) +
                      ", size " + std::to_string(size) + ", stride " +
                      std::to_string(stride) + ") is outside the source's " +
                      std::to_string(source.size(d)));
  }
}

bool isDropped(const SliceSpec &spec, size_t dim) {
  return std::binary_search(spec.dropped.begin(), spec.dropped.end(),
                            static_cast<int64_t>(dim));
}

/// The slice as ATen slices (and squeezes), which autograd differentiates.
Tensor differentiableSlice(const Tensor &source, const SliceSpec &spec,
                           bool dropDims) {
  Tensor result = source;
  for (size_t d = 0; d < spec.sizes.size(); ++d)
    result = result.slice(d, spec.offsets[d],
                          spec.offsets[d] +
                              (spec.sizes[d] - 1) * spec.strides[d] + 1,
                          spec.strides[d]);
  if (dropDims)
    for (auto d = spec.dropped.rbegin(); d != spec.dropped.rend(); ++d)
      result = result.squeeze(*d);
  return result;
}

/// The window of `whole` that `op` (a slice or add_into_window: their
/// operand groups and static_* attributes, Exec_WindowArgs) names, checked
/// to lie inside `whole`.
template <typename WindowOp>
SliceSpec windowSpec(const PlanOp &op, const Frame &frame,
                     const Tensor &whole) {
  // static_* entries of kDynamic take the next operand of their group.
  auto resolve = [&](std::string_view name, size_t group) {
    std::vector<int64_t> values = intArrayAttr(op, name);
    OperandGroup operands = operandGroup(op, group);
    size_t next = operands.begin;
    size_t end = operands.begin + operands.size;
    for (int64_t &value : values)
      if (value == kDynamic && next < end)
        value = frame.integer(op, next++);
    if (next != end || std::count(values.begin(), values.end(), kDynamic) != 0)
      throw PlanError(op.where() + ": " + std::string(name) +
                      " does not match its operands");
    return values;
  };
  using attr = typename WindowOp::attr;
  using operand = typename WindowOp::operand;
  SliceSpec spec;
  spec.offsets = resolve(attr::static_offsets, operand::offsets);
  spec.sizes = resolve(attr::static_sizes, operand::sizes);
  spec.strides = resolve(attr::static_strides, operand::strides);
  spec.dropped = intArrayAttr(op, attr::dropped_dims);
  std::sort(spec.dropped.begin(), spec.dropped.end());
  const size_t rank = static_cast<size_t>(whole.dim());
  if (spec.offsets.size() != rank || spec.sizes.size() != rank ||
      spec.strides.size() != rank)
    throw PlanError(op.where() + ": needs one offset, size and stride per "
                                 "source dim");
  checkWindow(op, whole, spec);
  for (int64_t d : spec.dropped)
    if (d < 0 || d >= static_cast<int64_t>(rank) || spec.sizes[d] != 1)
      throw PlanError(op.where() + ": dropped dim " + std::to_string(d) +
                      " is not a unit dim of the slice");
  return spec;
}

} // namespace

SliceSpec sliceSpec(const PlanOp &op, const Frame &frame) {
  return windowSpec<exec::SliceOp>(
      op, frame, frame.tensor(op, exec::SliceOp::operand::source));
}

namespace {

/// Windows of at most this many elements are added row by row here: a
/// recursion step's slice cotangents are many small adds (FastTrees at
/// batch 1: five `[2, 1600]` a step), where ATen's add_ spends most of its
/// time setting up its iteration.
constexpr int64_t kRowAddedWindow = 16384;

/// The window a slice takes of a tensor, as element offset, sizes and
/// strides of its kept dims: what its view would be, without making one.
struct WindowGeometry {
  int64_t offset = 0;
  c10::SmallVector<int64_t, 6> sizes, strides;
};

WindowGeometry windowGeometry(const Tensor &source, const SliceSpec &spec,
                              bool dropDims) {
  WindowGeometry window;
  window.offset = source.storage_offset();
  for (size_t d = 0; d < spec.sizes.size(); ++d) {
    window.offset += spec.offsets[d] * source.stride(d);
    if (dropDims && isDropped(spec, d))
      continue;
    window.sizes.push_back(spec.sizes[d]);
    window.strides.push_back(source.stride(d) * spec.strides[d]);
  }
  return window;
}

/// `grad`'s window `spec` += dy one contiguous row after another, for a
/// small float or double CPU window of dy's shape (dropped dims left out)
/// whose rows are contiguous in both; false, nothing written, otherwise. No
/// view is made: a loop's slice cotangents are many small adds.
bool addRows(Tensor &grad, const SliceSpec &spec, const Tensor &dy) {
  const at::ScalarType type = grad.scalar_type();
  if ((type != at::kFloat && type != at::kDouble) || dy.scalar_type() != type ||
      !grad.device().is_cpu() || !dy.device().is_cpu() || dy.dim() == 0 ||
      dy.numel() == 0 || dy.numel() > kRowAddedWindow || dy.stride(-1) != 1)
    return false;
  const WindowGeometry window = windowGeometry(grad, spec, /*dropDims=*/true);
  if (at::IntArrayRef(window.sizes) != dy.sizes() || window.strides.back() != 1)
    return false;
  const int64_t width = dy.size(-1), rows = dy.numel() / width;
  const int64_t leading = dy.dim() - 1;
  c10::SmallVector<int64_t, 6> index(leading, 0);
  AT_DISPATCH_FLOATING_TYPES(type, "add_into_window", [&] {
    scalar_t *out =
        grad.data_ptr<scalar_t>() - grad.storage_offset() + window.offset;
    const scalar_t *in = dy.data_ptr<scalar_t>();
    for (int64_t row = 0; row < rows; ++row) {
      int64_t outOffset = 0, inOffset = 0;
      for (int64_t d = 0; d < leading; ++d) {
        outOffset += index[d] * window.strides[d];
        inOffset += index[d] * dy.stride(d);
      }
      for (int64_t i = 0; i < width; ++i)
        out[outOffset + i] += in[inOffset + i];
      for (int64_t d = leading - 1; d >= 0 && ++index[d] == dy.size(d); --d)
        index[d] = 0;
    }
  });
  return true;
}

} // namespace

void addIntoWindow(Tensor &grad, const SliceSpec &spec, Tensor dy) {
  // Row by row only into a buffer without overlapping elements, from an
  // update that is not part of it (ATen's add_ checks both).
  if (grad.is_non_overlapping_and_dense() && !dy.is_alias_of(grad) &&
      addRows(grad, spec, dy))
    return;
  for (int64_t dim : spec.dropped)
    dy = dy.unsqueeze(dim);
  stridedSlice(grad, spec).add_(dy);
}

Tensor stridedSlice(const Tensor &source, const SliceSpec &spec,
                    bool dropDims) {
  if (torch::GradMode::is_enabled() && source.requires_grad())
    return differentiableSlice(source, spec, dropDims);
  // One as_strided view rather than a slice per dim and a squeeze per dropped
  // dim: the executor runs thousands of slices per step and each ATen view op
  // costs a TensorImpl. (Not under autograd: as_strided's backward is slow
  // and assumes a source without overlapping elements.)
  const WindowGeometry window = windowGeometry(source, spec, dropDims);
  return source.as_strided(window.sizes, window.strides, window.offset);
}

namespace {

/// A strided slice; `dropped_dims` are unit dims of the slice the result
/// drops.
void slice(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0,
                  stridedSlice(frame.tensor(op, 0), sliceSpec(op, frame),
                               /*dropDims=*/true));
}

/// `into` with `update` added into a window of it. In `into`'s buffer when
/// this op is its last reader (Frame::takeTensor) and nothing else holds it:
/// the compiled backward's slice cotangents join their source's that way;
/// otherwise in a copy.
void addIntoWindowOp(Executor &, const PlanOp &op, Frame &frame) {
  using AddIntoWindow = exec::AddIntoWindowOp;
  const Tensor update = frame.tensor(op, AddIntoWindow::operand::update);
  Tensor into = frame.takeTensor(op, AddIntoWindow::operand::into);
  SliceSpec spec = windowSpec<AddIntoWindow>(op, frame, into);
  std::vector<int64_t> windowSizes;
  for (size_t d = 0; d < spec.sizes.size(); ++d)
    if (!isDropped(spec, d))
      windowSizes.push_back(spec.sizes[d]);
  if (update.sizes() != windowSizes)
    throw PlanError(op.where() + ": update of shape " +
                    c10::str(update.sizes()) + " for a window of shape " +
                    c10::str(at::IntArrayRef(windowSizes)));
  Tensor sum =
      soleHolder(into) ? into : into.clone(at::MemoryFormat::Contiguous);
  addIntoWindow(sum, spec, update);
  frame.setResult(op, 0, sum);
}

/// `inputs` joined along `dim` as a view, where they already lie side by
/// side in one buffer in their order: one storage, the same sizes but
/// along `dim` and the same strides, each starting where the one before
/// ends (the gradients a kernel wrote into windows of one buffer,
/// DispatchOps.cpp). Not under autograd: the view's backward would not
/// reach the inputs.
std::optional<Tensor> adjacentView(const std::vector<Tensor> &inputs,
                                   int64_t dim) {
  if (inputs.size() < 2 || inputs.front().dim() == 0)
    return std::nullopt;
  const Tensor &first = inputs.front();
  dim = c10::maybe_wrap_dim(dim, first.dim());
  int64_t next = first.storage_offset(), size = 0;
  for (const Tensor &input : inputs) {
    if (!input.is_alias_of(first) || input.strides() != first.strides() ||
        input.storage_offset() != next ||
        (torch::GradMode::is_enabled() && input.requires_grad()))
      return std::nullopt;
    for (int64_t d = 0; d < first.dim(); ++d)
      if (d != dim && input.size(d) != first.size(d))
        return std::nullopt;
    next += input.size(dim) * first.stride(dim);
    size += input.size(dim);
  }
  std::vector<int64_t> sizes = first.sizes().vec();
  sizes[dim] = size;
  return first.as_strided(sizes, first.strides(), first.storage_offset());
}

void concat(Executor &, const PlanOp &op, Frame &frame) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < op.operands.size(); ++i)
    inputs.push_back(frame.tensor(op, i));
  const auto dim = attrAs<int64_t>(op, exec::ConcatOp::attr::dim);
  std::optional<Tensor> view = adjacentView(inputs, dim);
  frame.setResult(op, 0, view ? *view : torch::cat(inputs, dim));
}

/// Result dim i is input dim permutation[i].
void transpose(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0,
                  frame.tensor(op, 0).permute(
                      intArrayAttr(op, exec::TransposeOp::attr::permutation)));
}

} // namespace

void registerViewOps(OpRegistry &r) {
  r[exec::AllocOp::name] = alloc;
  r[exec::ShapeWitnessOp::name] = witness;
  r[exec::CastOp::name] = tensors<1>([](const Tensor &a) { return a; });
  r[exec::ReshapeOp::name] = reshape;
  r[exec::SliceOp::name] = slice;
  r[exec::AddIntoWindowOp::name] = addIntoWindowOp;
  r[exec::ConcatOp::name] = concat;
  r[exec::TransposeOp::name] = transpose;
}

bool soleHolder(const Tensor &tensor) {
  return tensor.use_count() == 1 && tensor.storage().use_count() == 1 &&
         tensor.is_non_overlapping_and_dense() && !tensor.requires_grad();
}

} // namespace rvnn::runtime
