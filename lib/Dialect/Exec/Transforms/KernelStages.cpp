//===- KernelStages.cpp - Stages of a kernel with a row reduction ---------===//
//
// A row fold of a static row length that is a multiple of kLanes runs over
// the row split into [D / kLanes, kLanes]: kLanes running values per row,
// the inner loop a plain vector add (or max), then a fold of the lanes.
// Reassociating a sum this way is what lets the code vectorise without
// fast-math flags.
//
//===----------------------------------------------------------------------===//

#include "KernelStages.h"
#include "KernelScalars.h"
#include "ScalarRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// Lanes of a split row fold: one AVX vector of f32.
constexpr int64_t kLanes = 8;

Value combine(OpBuilder &b, Location loc, RowFold fold, Value running,
              Value term) {
  if (fold == RowFold::max)
    return b.create<arith::MaximumFOp>(loc, running, term);
  return b.create<arith::AddFOp>(loc, running, term);
}

} // namespace

SmallVector<unsigned> KernelSignature::positions(InputKind kind) const {
  SmallVector<unsigned> result;
  for (auto [position, inputKind] : llvm::enumerate(inputKinds))
    if (inputKind == kind)
      result.push_back(position);
  return result;
}

AffineMap rvnn::exec::kernelInputMap(RankedTensorType type, InputKind kind,
                                     Type inputType) {
  MLIRContext *context = type.getContext();
  unsigned numDims = type.getRank();
  switch (kind) {
  case InputKind::full:
    return AffineMap::getMultiDimIdentityMap(numDims, context);
  case InputKind::row:
    return AffineMap::get(numDims, 0, getAffineDimExpr(numDims - 1, context));
  case InputKind::broadcast:
    break;
  }
  SmallVector<AffineExpr> results;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(inputType).getShape();
  for (auto [d, size] : llvm::enumerate(shape))
    results.push_back(size == 1 && type.getDimSize(d) != 1
                          ? getAffineConstantExpr(0, context)
                          : getAffineDimExpr(d, context));
  return AffineMap::get(numDims, 0, results, context);
}

Stages::Stages(OpBuilder &b, Location loc, const KernelSignature &signature,
               ValueRange inputs)
    : b(b), loc(loc), type(signature.type), numDims(type.getRank()),
      inputs(inputs), kernelSignature(signature) {
  for (auto [input, kind] : llvm::zip_equal(inputs, signature.inputKinds)) {
    inputMaps.push_back(kernelInputMap(type, kind, input.getType()));
    if (kind == InputKind::full && !like)
      like = input;
  }
}

Value Stages::rowLength() {
  if (length)
    return length;
  int64_t last = type.getShape().back();
  if (!ShapedType::isDynamic(last))
    return length = constant(static_cast<double>(last));
  Value size = b.create<tensor::DimOp>(loc, like, numDims - 1);
  Value integer =
      b.create<arith::IndexCastOp>(loc, b.getI64Type(), size).getResult();
  return length =
             b.create<arith::SIToFPOp>(loc, type.getElementType(), integer);
}

Value Stages::inverseRowLength() {
  if (!inverseLength)
    inverseLength = b.create<arith::DivFOp>(loc, constant(1.0), rowLength());
  return inverseLength;
}

SmallVector<Stages::Iterator> Stages::columnReduction() const {
  SmallVector<Iterator> kinds(numDims - 1, Iterator::reduction);
  kinds.push_back(Iterator::parallel);
  return kinds;
}

Value Stages::zeros(Value destination) {
  return b
      .create<linalg::FillOp>(loc, ValueRange{constant(0.0)},
                              ValueRange{destination})
      .getResult(0);
}

Value Stages::constant(double value) {
  Type element = type.getElementType();
  return b.create<arith::ConstantOp>(loc, element,
                                     b.getFloatAttr(element, value));
}

Value Stages::foldStart(RowFold fold, Value destination) {
  if (fold == RowFold::sum)
    return zeros(destination);
  Value lowest = constant(-std::numeric_limits<double>::infinity());
  return b.create<linalg::FillOp>(loc, lowest, destination).getResult(0);
}

SmallVector<Value> Stages::generic(ValueRange extra,
                                   ArrayRef<AffineMap> extraMaps,
                                   ValueRange outs, ArrayRef<AffineMap> outMaps,
                                   ArrayRef<Iterator> kinds, BodyBuilder body) {
  return genericOver(/*splitRows=*/false, extra, extraMaps, outs, outMaps,
                     kinds, body);
}

Value Stages::rowwise(ValueRange ins, BodyBuilder body) {
  AffineMap identity = b.getMultiDimIdentityMap(numDims - 1);
  SmallVector<AffineMap> maps(ins.size() + 1, identity);
  Value out = emptyRows();
  return b
      .create<linalg::GenericOp>(
          loc, out.getType(), ins, out, maps,
          SmallVector<Iterator>(numDims - 1, Iterator::parallel), body)
      .getResult(0);
}

SmallVector<Value> Stages::rowFolds(ValueRange extra,
                                    ArrayRef<AffineMap> extraMaps,
                                    ArrayRef<RowFold> folds, TermBuilder term) {
  unsigned numFolds = folds.size();
  auto accumulate = [&](OpBuilder &gb, Location loc, ValueRange elements) {
    SmallVector<Value> terms = term(gb, loc, elements);
    ValueRange running = elements.take_back(numFolds);
    SmallVector<Value> next;
    for (auto [fold, value, t] : llvm::zip_equal(folds, running, terms))
      next.push_back(combine(gb, loc, fold, value, t));
    gb.create<linalg::YieldOp>(loc, next);
  };
  SmallVector<Iterator> rowReduction = parallel();
  rowReduction.back() = Iterator::reduction;
  int64_t rowSize = type.getShape().back();
  if (ShapedType::isDynamic(rowSize) || rowSize % kLanes != 0) {
    SmallVector<Value> outs;
    for (RowFold fold : folds)
      outs.push_back(foldStart(fold, emptyRows()));
    return generic(extra, extraMaps, outs,
                   SmallVector<AffineMap>(numFolds, rows()), rowReduction,
                   accumulate);
  }
  // Domain (rows..., k, l): element (rows..., k·kLanes + l), lane l.
  SmallVector<int64_t> laneShape(type.getShape().drop_back());
  laneShape.push_back(kLanes);
  SmallVector<Value> outs;
  for (RowFold fold : folds)
    outs.push_back(foldStart(fold, empty(laneShape)));
  AffineMap lane =
      b.getMultiDimIdentityMap(numDims + 1).dropResult(numDims - 1);
  SmallVector<Iterator> kinds(numDims - 1, Iterator::parallel);
  kinds.append({Iterator::reduction, Iterator::parallel});
  SmallVector<Value> partial =
      genericOver(/*splitRows=*/true, extra, extraMaps, outs,
                  SmallVector<AffineMap>(numFolds, lane), kinds, accumulate);
  // The fold of the lanes.
  SmallVector<Value> results;
  for (auto [fold, lanes] : llvm::zip_equal(folds, partial)) {
    RowFold laneFold = fold; // A copy the body lambda can capture.
    results.push_back(
        b.create<linalg::GenericOp>(
             loc, emptyRows().getType(), lanes,
             foldStart(laneFold, emptyRows()),
             ArrayRef<AffineMap>{full(), rows()}, rowReduction,
             [laneFold](OpBuilder &gb, Location loc, ValueRange elements) {
               gb.create<linalg::YieldOp>(
                   loc, combine(gb, loc, laneFold, elements[1], elements[0]));
             })
            .getResult(0));
  }
  return results;
}

SmallVector<Value>
Stages::broadcastCotangents(ArrayRef<unsigned> positions, ValueRange extra,
                            ArrayRef<AffineMap> extraMaps, ValueRange dxs,
                            ArrayRef<Value> grads, AdjointBuilder adjoints) {
  SmallVector<Value> cotangents;
  for (unsigned position : positions) {
    AffineMap map = inputMaps[position];
    // The dims the input is broadcast along are reduced.
    SmallVector<Iterator> kinds(numDims, Iterator::reduction);
    for (AffineExpr result : map.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(result))
        kinds[dim.getPosition()] = Iterator::parallel;
    auto shared = kernelSignature.adjointOfFullInput.find(position);
    bool summed = shared != kernelSignature.adjointOfFullInput.end();
    SmallVector<Value> reads(extra);
    SmallVector<AffineMap> readMaps(extraMaps);
    if (summed) {
      reads.push_back(grads[shared->second]);
      readMaps.push_back(full());
    }
    // The element's adjoint, given the generic's element scalars (the
    // dispatch's inputs, then `reads`).
    auto adjoint = [&](OpBuilder &gb, Location loc, ValueRange elements) {
      ValueRange read = elements.take_front(inputs.size() + reads.size());
      return summed ? read.back() : adjoints(gb, loc, read, position)[0];
    };
    if (numDims >= 2 && kinds.back() == Iterator::reduction &&
        llvm::count(kinds, Iterator::reduction) == 1) {
      // One value per row (a gate's g): a row fold, so that it vectorises.
      cotangents.push_back(writeRows(
          rowSums(reads, readMaps, 1,
                  [&](OpBuilder &gb, Location loc, ValueRange elements) {
                    return SmallVector<Value>{adjoint(gb, loc, elements)};
                  })[0],
          dxs[position], map));
      continue;
    }
    cotangents.push_back(
        generic(reads, readMaps, zeros(dxs[position]), map, kinds,
                [&](OpBuilder &gb, Location loc, ValueRange elements) {
                  gb.create<linalg::YieldOp>(
                      loc, gb.create<arith::AddFOp>(loc, elements.back(),
                                                    adjoint(gb, loc, elements))
                               .getResult());
                })[0]);
  }
  return cotangents;
}

Value Stages::writeRows(Value rowValues, Value destination, AffineMap map) {
  // `map` reads no last dim: the same results over the row dims alone.
  AffineMap rowsOnly =
      AffineMap::get(numDims - 1, 0, map.getResults(), b.getContext());
  return b
      .create<linalg::GenericOp>(
          loc, destination.getType(), rowValues, destination,
          ArrayRef<AffineMap>{b.getMultiDimIdentityMap(numDims - 1), rowsOnly},
          SmallVector<Iterator>(numDims - 1, Iterator::parallel),
          [](OpBuilder &gb, Location loc, ValueRange elements) {
            gb.create<linalg::YieldOp>(loc, elements[0]);
          })
      .getResult(0);
}

void Stages::inputCotangents(ValueRange extra, ArrayRef<AffineMap> extraMaps,
                             ValueRange dxs, AdjointBuilder adjoints,
                             MutableArrayRef<Value> grads) {
  SmallVector<unsigned> fullPositions =
      kernelSignature.positions(InputKind::full);
  SmallVector<unsigned> broadcastPositions =
      kernelSignature.positions(InputKind::broadcast);
  SmallVector<Value> outs;
  for (unsigned position : fullPositions)
    outs.push_back(dxs[position]);
  // Every kernel has a full input: the results' shape comes from one.
  assert(!outs.empty() && "a kernel has a full input");
  SmallVector<Value> fullGrads = generic(
      extra, extraMaps, outs, SmallVector<AffineMap>(outs.size(), full()),
      parallel(), [&](OpBuilder &gb, Location loc, ValueRange elements) {
        gb.create<linalg::YieldOp>(
            loc,
            adjoints(gb, loc, elements.drop_back(outs.size()), fullPositions));
      });
  for (auto [position, grad] : llvm::zip_equal(fullPositions, fullGrads))
    grads[position] = grad;
  SmallVector<Value> broadcastGrads = broadcastCotangents(
      broadcastPositions, extra, extraMaps, dxs, grads, adjoints);
  for (auto [position, grad] :
       llvm::zip_equal(broadcastPositions, broadcastGrads))
    grads[position] = grad;
}

SmallVector<Value> Stages::bodyValues(Block &body, ArrayRef<Value> values,
                                      Operation *stopAt) {
  SmallVector<Value> tensors(values.size());
  llvm::SetVector<Value> computed;
  for (auto [value, tensor] : llvm::zip_equal(values, tensors)) {
    if (auto argument = dyn_cast<BlockArgument>(value))
      tensor = input(argument.getArgNumber());
    else
      computed.insert(value);
  }
  if (computed.empty())
    return tensors;
  if (keepTranscendental)
    for (Operation &op : body.without_terminator()) {
      if (&op == stopAt)
        break;
      if (evaluatesTranscendental(&op))
        computed.insert(op.getResult(0));
    }
  unsigned numInputs = body.getNumArguments();
  SmallVector<Value> outs;
  for (size_t i = 0; i < computed.size(); ++i)
    outs.push_back(emptyFull());
  SmallVector<Value> results = generic(
      {}, {}, outs, SmallVector<AffineMap>(outs.size(), full()), parallel(),
      [&](OpBuilder &gb, Location loc, ValueRange elements) {
        DenseMap<Value, Value> scalar;
        emitForwardScalars(gb, loc, body, elements.take_front(numInputs),
                           scalar, nullptr, stopAt);
        SmallVector<Value> yielded;
        for (Value value : computed)
          yielded.push_back(scalar.lookup(value));
        gb.create<linalg::YieldOp>(loc, yielded);
      });
  for (auto [value, tensor] : llvm::zip_equal(values, tensors))
    if (!tensor)
      tensor = results[llvm::find(computed.getArrayRef(), value) -
                       computed.getArrayRef().begin()];
  if (keepTranscendental)
    for (auto [value, tensor] : llvm::zip_equal(computed, results))
      if (evaluatesTranscendental(value.getDefiningOp()))
        kept.emplace_back(value, tensor);
  return tensors;
}

SmallVector<Value> Stages::genericOver(bool splitRows, ValueRange extra,
                                       ArrayRef<AffineMap> extraMaps,
                                       ValueRange outs,
                                       ArrayRef<AffineMap> outMaps,
                                       ArrayRef<Iterator> kinds,
                                       BodyBuilder body) {
  SmallVector<Value> ins(inputs);
  llvm::append_range(ins, extra);
  SmallVector<AffineMap> maps(inputMaps);
  llvm::append_range(maps, extraMaps);
  if (splitRows)
    for (auto [operand, map] : llvm::zip_equal(ins, maps))
      std::tie(operand, map) = splitLastDim(operand, map);
  llvm::append_range(maps, outMaps);
  return b
      .create<linalg::GenericOp>(loc, ValueRange(outs).getTypes(), ins, outs,
                                 maps, kinds, body)
      .getResults();
}

/// An operand of the full space as the split space (rows..., k, l) reads
/// it: a read of the last dim becomes (k, l) of the operand's last dim
/// expanded to [D / kLanes, kLanes].
std::pair<Value, AffineMap> Stages::splitLastDim(Value operand, AffineMap map) {
  MLIRContext *context = b.getContext();
  SmallVector<AffineExpr> results;
  bool readsLastDim = false;
  for (AffineExpr result : map.getResults()) {
    if (result != getAffineDimExpr(numDims - 1, context)) {
      results.push_back(result);
      continue;
    }
    readsLastDim = true;
    results.append({getAffineDimExpr(numDims - 1, context),
                    getAffineDimExpr(numDims, context)});
  }
  AffineMap split = AffineMap::get(numDims + 1, 0, results, context);
  if (!readsLastDim)
    return {operand, split};
  assert(map.getResults().back() == getAffineDimExpr(numDims - 1, context) &&
         "the last dim is read as the operand's last dim");
  auto shaped = cast<RankedTensorType>(operand.getType());
  SmallVector<int64_t> shape(shaped.getShape().drop_back());
  shape.append({shaped.getShape().back() / kLanes, kLanes});
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 1 < shaped.getRank(); ++d)
    groups.push_back({d});
  groups.push_back({shaped.getRank() - 1, shaped.getRank()});
  Value expanded = b.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get(shape, shaped.getElementType()), operand,
      groups);
  return {expanded, split};
}

Value Stages::empty(ArrayRef<int64_t> shape) {
  SmallVector<Value> dynamic;
  for (auto [d, size] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(size))
      dynamic.push_back(b.create<tensor::DimOp>(loc, like, d));
  return b.create<tensor::EmptyOp>(loc, shape, type.getElementType(), dynamic);
}

SmallVector<Value> rvnn::exec::emitBodyResults(Stages &s, Block &body,
                                               ValueRange stats,
                                               ArrayRef<AffineMap> statsMaps,
                                               ValueRange outs,
                                               BodyScalars scalars) {
  return s.generic(stats, statsMaps, outs,
                   SmallVector<AffineMap>(outs.size(), s.full()), s.parallel(),
                   [&](OpBuilder &gb, Location loc, ValueRange elements) {
                     DenseMap<Value, Value> scalar;
                     scalars(gb, loc, elements, scalar);
                     SmallVector<Value> yielded;
                     for (Value result : body.getTerminator()->getOperands())
                       yielded.push_back(scalar.lookup(result));
                     gb.create<linalg::YieldOp>(loc, yielded);
                   });
}

Value rvnn::exec::emitReductionCotangent(Stages &s, Block &body,
                                         Operation *reduction, ValueRange stats,
                                         ArrayRef<AffineMap> statsMaps,
                                         ValueRange dys, BodyScalars scalars) {
  if (reduction->hasOneUse() &&
      reduction->user_begin()->hasTrait<OpTrait::IsTerminator>())
    return dys[reduction->use_begin()->getOperandNumber()];
  SmallVector<Value> operands(stats);
  llvm::append_range(operands, dys);
  SmallVector<AffineMap> maps(statsMaps);
  maps.append(dys.size(), s.full());
  unsigned dyAt = body.getNumArguments() + stats.size();
  return s.generic(
      operands, maps, s.emptyFull(), s.full(), s.parallel(),
      [&](OpBuilder &gb, Location loc, ValueRange elements) {
        DenseMap<Value, Value> scalar, adjoint;
        scalars(gb, loc, elements, scalar);
        Value dResult;
        emitReverseSweep(gb, loc, body, elements.slice(dyAt, dys.size()),
                         scalar, adjoint, [&](Operation *, Value d) {
                           dResult = d;
                           return SmallVector<Value>();
                         });
        gb.create<linalg::YieldOp>(loc, dResult ? dResult : s.constant(0));
      })[0];
}

namespace {

/// `func.func @name(argTypes...) -> (resultTypes...)` at `b`, its entry
/// block's builder and arguments.
std::pair<OpBuilder, ValueRange> beginFunction(OpBuilder &b, Location loc,
                                               StringRef name,
                                               TypeRange argTypes,
                                               TypeRange resultTypes) {
  auto func = b.create<func::FuncOp>(loc, name,
                                     b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  return {OpBuilder::atBlockBegin(entry), entry->getArguments()};
}

} // namespace

KernelFunction rvnn::exec::beginForwardKernel(OpBuilder &b,
                                              DispatchOp dispatch) {
  SmallVector<Type> argTypes(dispatch.getInputs().getTypes());
  llvm::append_range(argTypes, dispatch.getResultTypes());
  auto [builder, args] =
      beginFunction(b, dispatch.getLoc(), dispatch.getKernel(), argTypes,
                    dispatch.getResultTypes());
  unsigned numInputs = dispatch.getInputs().size();
  return {builder, args.take_front(numInputs), {}, args.drop_front(numInputs)};
}

KernelFunction rvnn::exec::beginBackwardKernel(OpBuilder &b,
                                               DispatchOp dispatch,
                                               StringRef name) {
  SmallVector<Type> argTypes(dispatch.getInputs().getTypes());
  llvm::append_range(argTypes, dispatch.getResultTypes());
  llvm::append_range(argTypes, dispatch.getInputs().getTypes());
  auto [builder, args] = beginFunction(b, dispatch.getLoc(), name, argTypes,
                                       dispatch.getInputs().getTypes());
  unsigned numInputs = dispatch.getInputs().size();
  unsigned numResults = dispatch.getNumResults();
  return {builder, args.take_front(numInputs),
          args.slice(numInputs, numResults),
          args.drop_front(numInputs + numResults)};
}
