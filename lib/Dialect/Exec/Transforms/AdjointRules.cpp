//===- AdjointRules.cpp - Reverse-mode rules of the execution ops ---------===//
//
// Elementwise arithmetic and views are differentiated into contract ops (so
// the backward fuses like the forward); every other differentiable op gets
// an rvnn_exec.vjp, which the runtime serves with a generated backward
// kernel or ATen's backward.
//
//===----------------------------------------------------------------------===//

#include "AdjointRules.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

bool mlir::rvnn::exec::isDifferentiableType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

bool mlir::rvnn::exec::hasDifferentiableResults(Operation *op) {
  return !isa<ConstantOp, DimOp, IndexArithOp, CompareOp, ConvertOp, AllocOp,
              DropoutMaskOp, ArgMaxOp, OneHotOp>(op);
}

bool mlir::rvnn::exec::drawsRandomNumbers(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<mlir::rvnn::RandomGeneratorResource>(e.getResource());
  });
}

LogicalResult ReverseSweep::fail(Operation *op, StringRef why) {
  failedOp = op;
  failureReason = why.str();
  return failure();
}

void ReverseSweep::accumulate(Value primal, Value cotangent) {
  if (!isActive(primal))
    return;
  Value &slot = adjoints[primal];
  slot = slot ? backward
                    .create<ElementwiseOp>(cotangent.getLoc(), slot.getType(),
                                           ElementwiseFn::add,
                                           ValueRange{slot, cotangent})
                    .getResult()
              : cotangent;
}

Value ReverseSweep::sizeOf(Value primal, int64_t dim) {
  auto type = cast<RankedTensorType>(primal.getType());
  if (!type.isDynamicDim(dim))
    return backward.create<ConstantOp>(
        primal.getLoc(), backward.getIndexAttr(type.getDimSize(dim)));
  Value &size = sizes[{primal, dim}];
  if (size)
    return size;
  OpBuilder primalSide(primal.getContext());
  if (Operation *def = primal.getDefiningOp())
    primalSide.setInsertionPointAfter(def);
  else
    primalSide.setInsertionPointToStart(primal.getParentBlock());
  Value index = primalSide.create<ConstantOp>(primal.getLoc(),
                                              primalSide.getIndexAttr(dim));
  size = primalSide.create<DimOp>(primal.getLoc(), primal, index);
  return size;
}

SmallVector<Value> ReverseSweep::dynamicSizes(Value primal) {
  auto type = cast<RankedTensorType>(primal.getType());
  SmallVector<Value> result;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      result.push_back(sizeOf(primal, dim));
  return result;
}

Value ReverseSweep::zerosLike(Value primal) {
  return backward.create<AllocOp>(primal.getLoc(), primal.getType(),
                                  dynamicSizes(primal));
}

LogicalResult ReverseSweep::differentiateElementwise(Operation *op,
                                                     Value cotangent) {
  auto elementwise = cast<ElementwiseOp>(op);
  Location loc = op->getLoc();
  Type type = elementwise.getType();
  auto apply = [&](ElementwiseFn fn, ValueRange inputs) -> Value {
    return backward.create<ElementwiseOp>(loc, type, fn, inputs);
  };
  Value lhs = elementwise.getInputs()[0];
  Value rhs =
      elementwise.getInputs().size() > 1 ? elementwise.getInputs()[1] : Value();
  Value result = elementwise.getResult();
  switch (elementwise.getFn()) {
  case ElementwiseFn::add:
    accumulate(lhs, cotangent);
    accumulate(rhs, cotangent);
    return success();
  case ElementwiseFn::sub:
    accumulate(lhs, cotangent);
    if (isActive(rhs))
      accumulate(rhs, apply(ElementwiseFn::neg, cotangent));
    return success();
  case ElementwiseFn::mul:
    if (isActive(lhs))
      accumulate(lhs, apply(ElementwiseFn::mul, {cotangent, rhs}));
    if (isActive(rhs))
      accumulate(rhs, apply(ElementwiseFn::mul, {cotangent, lhs}));
    return success();
  case ElementwiseFn::div: {
    Value scaled = apply(ElementwiseFn::div, {cotangent, rhs});
    accumulate(lhs, scaled);
    // d(a/b)/db = -(a/b)/b.
    if (isActive(rhs))
      accumulate(rhs, apply(ElementwiseFn::neg,
                            apply(ElementwiseFn::mul, {scaled, result})));
    return success();
  }
  case ElementwiseFn::neg:
    accumulate(lhs, apply(ElementwiseFn::neg, cotangent));
    return success();
  case ElementwiseFn::exp:
    accumulate(lhs, apply(ElementwiseFn::mul, {cotangent, result}));
    return success();
  case ElementwiseFn::log:
    accumulate(lhs, apply(ElementwiseFn::div, {cotangent, lhs}));
    return success();
  default:
    return emitVjp(op, cotangent);
  }
}

LogicalResult ReverseSweep::differentiateView(Operation *op, Value cotangent) {
  Location loc = op->getLoc();
  Value source = op->getOperand(0);
  if (!isActive(source))
    return success();
  Type sourceType = source.getType();
  if (isa<ReshapeOp>(op)) {
    accumulate(source, backward.create<ReshapeOp>(loc, sourceType, cotangent,
                                                  dynamicSizes(source)));
  } else if (isa<CastOp>(op)) {
    accumulate(source, backward.create<CastOp>(loc, sourceType, cotangent));
  } else if (auto transpose = dyn_cast<TransposeOp>(op)) {
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    SmallVector<int64_t> inverse(permutation.size());
    for (auto [resultDim, sourceDim] : llvm::enumerate(permutation))
      inverse[sourceDim] = resultDim;
    accumulate(source, backward.create<TransposeOp>(loc, sourceType, cotangent,
                                                    inverse));
  } else if (isa<BroadcastLikeOp>(op)) {
    accumulate(source, backward.create<SumToLikeOp>(loc, sourceType, cotangent,
                                                    source));
  }
  return success();
}

LogicalResult ReverseSweep::differentiateConcat(Operation *op,
                                                Value cotangent) {
  auto concat = cast<ConcatOp>(op);
  Location loc = op->getLoc();
  int64_t axis = concat.getDim();
  auto resultType = cast<RankedTensorType>(concat.getType());
  int64_t rank = resultType.getRank();
  // Input i is the slice of the cotangent at the sum of the sizes before it.
  Value offset = backward.create<ConstantOp>(loc, backward.getIndexAttr(0));
  for (auto [index, input] : llvm::enumerate(concat.getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    if (isActive(input)) {
      SmallVector<int64_t> staticOffsets(rank, 0), staticSizes(type.getShape());
      staticOffsets[axis] = ShapedType::kDynamic;
      SmallVector<Value> offsets{offset};
      SmallVector<Value> sizes = dynamicSizes(input);
      accumulate(input, backward.create<SliceOp>(loc, type, cotangent, offsets,
                                                 sizes, ValueRange{},
                                                 staticOffsets, staticSizes,
                                                 SmallVector<int64_t>(rank, 1),
                                                 ArrayRef<int64_t>{}));
    }
    if (index + 1 < concat.getInputs().size())
      offset = backward.create<IndexArithOp>(loc, IndexArithKind::add, offset,
                                             sizeOf(input, axis));
  }
  return success();
}

LogicalResult ReverseSweep::differentiateGate(GateOp gate, Value cotangent) {
  // gate = g*new + (1-g)*old, g broadcast to new's type.
  Location loc = gate.getLoc();
  Value g = gate.getG(), newValue = gate.getNewValue(),
        oldValue = gate.getOldValue();
  Type type = newValue.getType();
  auto apply = [&](ElementwiseFn fn, ValueRange inputs) -> Value {
    return backward.create<ElementwiseOp>(loc, type, fn, inputs);
  };
  Value broadcastG =
      g.getType() == type
          ? g
          : backward.create<BroadcastLikeOp>(loc, type, g, cotangent)
                .getResult();
  Value towardsNew = apply(ElementwiseFn::mul, {cotangent, broadcastG});
  accumulate(newValue, towardsNew);
  if (isActive(oldValue))
    accumulate(oldValue, apply(ElementwiseFn::sub, {cotangent, towardsNew}));
  if (isActive(g)) {
    Value towardsG =
        apply(ElementwiseFn::mul,
              {cotangent, apply(ElementwiseFn::sub, {newValue, oldValue})});
    accumulate(g,
               g.getType() == type
                   ? towardsG
                   : backward.create<SumToLikeOp>(loc, g.getType(), towardsG, g)
                         .getResult());
  }
  return success();
}

LogicalResult ReverseSweep::emitVjp(Operation *op, ArrayRef<Value> cotangents) {
  if (drawsRandomNumbers(op))
    return fail(op, "draws random numbers");
  if (op->getNumRegions() && !isa<DispatchOp>(op))
    return fail(op, "holds a region");
  SmallVector<int64_t> gradInputs;
  SmallVector<Type> gradTypes;
  for (auto [index, operand] : llvm::enumerate(op->getOperands()))
    if (isActive(operand)) {
      gradInputs.push_back(index);
      gradTypes.push_back(operand.getType());
    }
  SmallVector<Value> complete;
  for (auto [result, cotangent] : llvm::zip(op->getResults(), cotangents))
    complete.push_back(cotangent ? cotangent : zerosLike(result));

  Location loc = op->getLoc();
  auto vjp = backward.create<VjpOp>(loc, gradTypes, op->getOperands(), complete,
                                    gradInputs);
  Block *body = backward.createBlock(&vjp.getBody());
  IRMapping mapping;
  for (Value operand : op->getOperands())
    mapping.map(operand, body->addArgument(operand.getType(), loc));
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  Operation *primal = inner.clone(*op, mapping);
  inner.create<YieldOp>(loc, primal->getResults());
  backward.setInsertionPointAfter(vjp);
  for (auto [index, grad] : llvm::zip(gradInputs, vjp.getGrads()))
    accumulate(op->getOperand(index), grad);
  return success();
}

LogicalResult ReverseSweep::differentiate(Operation *op,
                                          ArrayRef<Value> cotangents) {
  if (!hasDifferentiableResults(op) ||
      llvm::none_of(op->getOperands(), [&](Value v) { return isActive(v); }))
    return success();
  if (isa<DropoutOp>(op))
    return fail(op, "must be split into dropout_mask and a product first");
  if (isa<ElementwiseOp>(op))
    return differentiateElementwise(op, cotangents.front());
  if (isa<ReshapeOp, CastOp, TransposeOp, BroadcastLikeOp>(op))
    return differentiateView(op, cotangents.front());
  if (isa<ConcatOp>(op))
    return differentiateConcat(op, cotangents.front());
  if (auto gate = dyn_cast<GateOp>(op))
    return differentiateGate(gate, cotangents.front());
  return emitVjp(op, cotangents);
}
