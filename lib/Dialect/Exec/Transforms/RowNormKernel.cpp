//===- RowNormKernel.cpp - Kernels with a layer norm ----------------------===//
//
// Every full-size stage is a linalg.generic that reads all the dispatch's
// inputs (row operands along the last dim) plus what earlier stages
// computed, so each recomputes the elementwise scalars it needs instead of
// keeping them: temporaries are only the layer norm's input and per-row
// values. Statistics follow ATen's layer norm: biased variance of the
// centred input, rstd = 1 / sqrt(var + epsilon), both once per row.
//
// Row sums of a static row length that is a multiple of kLanes run over
// the row split into [D / kLanes, kLanes]: kLanes running sums per row, the
// inner loop a plain vector add, then a sum of the lanes. Reassociating the
// sum this way is what lets the code vectorise without fast-math flags.
//
//===----------------------------------------------------------------------===//

#include "RowNormKernel.h"
#include "KernelScalars.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

using Iterator = utils::IteratorType;
using BodyBuilder = function_ref<void(OpBuilder &, Location, ValueRange)>;
/// The terms a row sum adds at one element, given the generic's element
/// scalars (the stage's inputs, then the running sums).
using TermBuilder =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// Lanes of a split row sum: one AVX vector of f32.
constexpr int64_t kLanes = 8;

/// Builds the generics of one kernel function over `type` (rank R): the full
/// space, its rows (the first R-1 dims) and its columns (the last dim).
class Stages {
public:
  Stages(OpBuilder &b, Location loc, const KernelSignature &signature,
         ValueRange inputs)
      : b(b), loc(loc), type(signature.type), numDims(type.getRank()),
        inputs(inputs) {
    for (auto [input, row] : llvm::zip_equal(inputs, signature.rowInputs)) {
      inputMaps.push_back(row ? column() : full());
      if (!row && !like)
        like = input;
    }
    inverseRowLength = b.create<arith::DivFOp>(loc, constant(1.0), rowLength());
  }

  AffineMap full() const { return b.getMultiDimIdentityMap(numDims); }
  AffineMap rows() const { return full().getMajorSubMap(numDims - 1); }
  AffineMap column() const {
    return AffineMap::get(numDims, 0, b.getAffineDimExpr(numDims - 1));
  }
  SmallVector<Iterator> parallel() const {
    return SmallVector<Iterator>(numDims, Iterator::parallel);
  }
  /// Reduces the last dim: one value per row.
  SmallVector<Iterator> rowReduction() const {
    SmallVector<Iterator> kinds = parallel();
    kinds.back() = Iterator::reduction;
    return kinds;
  }
  /// Reduces all dims but the last: one value per column.
  SmallVector<Iterator> columnReduction() const {
    SmallVector<Iterator> kinds(numDims - 1, Iterator::reduction);
    kinds.push_back(Iterator::parallel);
    return kinds;
  }

  Value emptyFull() { return empty(type.getShape()); }
  Value emptyRows() { return empty(type.getShape().drop_back()); }
  Value zeros(Value destination) {
    return b
        .create<linalg::FillOp>(loc, ValueRange{constant(0.0)},
                                ValueRange{destination})
        .getResult(0);
  }
  Value constant(double value) {
    Type element = type.getElementType();
    return b.create<arith::ConstantOp>(loc, element,
                                       b.getFloatAttr(element, value));
  }
  Value input(unsigned position) const { return inputs[position]; }

  /// A generic over the full space reading the dispatch's inputs, then
  /// `extra` (with `extraMaps`), into `outs` (with `outMaps`).
  SmallVector<Value> generic(ValueRange extra, ArrayRef<AffineMap> extraMaps,
                             ValueRange outs, ArrayRef<AffineMap> outMaps,
                             ArrayRef<Iterator> kinds, BodyBuilder body) {
    return genericOver(/*splitRows=*/false, extra, extraMaps, outs, outMaps,
                       kinds, body);
  }

  /// A generic over the rows alone, reading and writing `[rows]` tensors.
  Value rowwise(ValueRange ins, BodyBuilder body) {
    AffineMap identity = b.getMultiDimIdentityMap(numDims - 1);
    SmallVector<AffineMap> maps(ins.size() + 1, identity);
    Value out = emptyRows();
    return b
        .create<linalg::GenericOp>(
            loc, out.getType(), ins, out, maps,
            SmallVector<Iterator>(numDims - 1, Iterator::parallel), body)
        .getResult(0);
  }

  /// `numSums` row sums of `term` over the full space (reading the inputs and
  /// `extra` like generic()).
  SmallVector<Value> rowSums(ValueRange extra, ArrayRef<AffineMap> extraMaps,
                             unsigned numSums, TermBuilder term) {
    auto accumulate = [&](OpBuilder &gb, Location loc, ValueRange elements) {
      SmallVector<Value> terms = term(gb, loc, elements);
      ValueRange sums = elements.take_back(numSums);
      SmallVector<Value> next;
      for (auto [sum, t] : llvm::zip_equal(sums, terms))
        next.push_back(gb.create<arith::AddFOp>(loc, sum, t));
      gb.create<linalg::YieldOp>(loc, next);
    };
    int64_t length = type.getShape().back();
    if (ShapedType::isDynamic(length) || length % kLanes != 0) {
      SmallVector<Value> outs;
      for (unsigned i = 0; i < numSums; ++i)
        outs.push_back(zeros(emptyRows()));
      return generic(extra, extraMaps, outs,
                     SmallVector<AffineMap>(numSums, rows()), rowReduction(),
                     accumulate);
    }
    // Domain (rows..., k, l): element (rows..., k·kLanes + l), lane l.
    SmallVector<int64_t> laneShape(type.getShape().drop_back());
    laneShape.push_back(kLanes);
    SmallVector<Value> outs;
    for (unsigned i = 0; i < numSums; ++i)
      outs.push_back(zeros(empty(laneShape)));
    AffineMap lane =
        b.getMultiDimIdentityMap(numDims + 1).dropResult(numDims - 1);
    SmallVector<Iterator> kinds(numDims - 1, Iterator::parallel);
    kinds.append({Iterator::reduction, Iterator::parallel});
    SmallVector<Value> partial =
        genericOver(/*splitRows=*/true, extra, extraMaps, outs,
                    SmallVector<AffineMap>(numSums, lane), kinds, accumulate);
    // Sum of the lanes.
    SmallVector<Value> sums;
    for (Value lanes : partial)
      sums.push_back(b.create<linalg::GenericOp>(
                          loc, emptyRows().getType(), lanes, zeros(emptyRows()),
                          ArrayRef<AffineMap>{full(), rows()}, rowReduction(),
                          [](OpBuilder &gb, Location loc, ValueRange elements) {
                            gb.create<linalg::YieldOp>(
                                loc, gb.create<arith::AddFOp>(loc, elements[1],
                                                              elements[0])
                                         .getResult());
                          })
                         .getResult(0));
    return sums;
  }

  /// 1 / D, D the row length, as a scalar of the element type.
  Value inverseRowLength;

private:
  /// generic(); with `splitRows`, over (rows..., k, l) instead, every
  /// operand read along the last dim expanded to [..., D / kLanes, kLanes].
  SmallVector<Value> genericOver(bool splitRows, ValueRange extra,
                                 ArrayRef<AffineMap> extraMaps, ValueRange outs,
                                 ArrayRef<AffineMap> outMaps,
                                 ArrayRef<Iterator> kinds, BodyBuilder body) {
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
  /// An operand of the full space (`map` full, rows or column) as the split
  /// space (rows..., k, l) reads it.
  std::pair<Value, AffineMap> splitLastDim(Value operand, AffineMap map) {
    AffineMap identity = b.getMultiDimIdentityMap(numDims + 1);
    if (map == rows())
      return {operand, identity.getMajorSubMap(numDims - 1)};
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
    if (map == column())
      return {expanded, identity.getMinorSubMap(2)};
    assert(map == full() && "operands are full, rows or column");
    return {expanded, identity};
  }
  Value empty(ArrayRef<int64_t> shape) {
    SmallVector<Value> dynamic;
    for (auto [d, size] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(size))
        dynamic.push_back(b.create<tensor::DimOp>(loc, like, d));
    return b.create<tensor::EmptyOp>(loc, shape, type.getElementType(),
                                     dynamic);
  }
  Value rowLength() {
    int64_t last = type.getShape().back();
    if (!ShapedType::isDynamic(last))
      return constant(static_cast<double>(last));
    Value size = b.create<tensor::DimOp>(loc, like, numDims - 1);
    Value integer =
        b.create<arith::IndexCastOp>(loc, b.getI64Type(), size).getResult();
    return b.create<arith::SIToFPOp>(loc, type.getElementType(), integer);
  }

  OpBuilder &b;
  Location loc;
  RankedTensorType type;
  unsigned numDims;
  ValueRange inputs;
  SmallVector<AffineMap> inputMaps;
  Value like;
};

/// The layer norm's input and its per-row mean and rstd, as tensors; as
/// generic operands in this order (statsOperands, statsMaps).
struct NormInput {
  Value input, mean, rstd;
};

SmallVector<Value> statsOperands(const NormInput &norm) {
  return {norm.input, norm.mean, norm.rstd};
}
SmallVector<AffineMap> statsMaps(const Stages &s) {
  return {s.full(), s.rows(), s.rows()};
}

/// x̂ = (x - mean)·rstd at one element, the stats operands at
/// `elements[first..first+2]`.
Value normalised(OpBuilder &b, Location loc, ValueRange elements,
                 unsigned first) {
  Value centred =
      b.create<arith::SubFOp>(loc, elements[first], elements[first + 1]);
  return b.create<arith::MulFOp>(loc, centred, elements[first + 2]);
}

/// The layer norm's input (an input of the kernel, or computed from the
/// inputs by the ops before it), its row means and its rows' rstd.
NormInput emitNormInput(Stages &s, Block &body, LayerNormOp norm) {
  unsigned numInputs = body.getNumArguments();
  NormInput result;
  Value bodyInput = norm.getInput();
  if (auto argument = dyn_cast<BlockArgument>(bodyInput)) {
    result.input = s.input(argument.getArgNumber());
  } else {
    result.input = s.generic(
        {}, {}, s.emptyFull(), s.full(), s.parallel(),
        [&](OpBuilder &gb, Location loc, ValueRange elements) {
          DenseMap<Value, Value> scalar;
          emitForwardScalars(gb, loc, body, elements.take_front(numInputs),
                             scalar, nullptr, norm);
          gb.create<linalg::YieldOp>(loc, scalar.lookup(bodyInput));
        })[0];
  }
  Value inverseLength = s.inverseRowLength;
  Value sums = s.rowSums(result.input, s.full(), 1,
                         [&](OpBuilder &, Location, ValueRange elements) {
                           return SmallVector<Value>{elements[numInputs]};
                         })[0];
  result.mean = s.rowwise(sums, [&](OpBuilder &gb, Location loc,
                                    ValueRange elements) {
    gb.create<linalg::YieldOp>(
        loc,
        gb.create<arith::MulFOp>(loc, elements[0], inverseLength).getResult());
  });
  Value squares =
      s.rowSums({result.input, result.mean}, {s.full(), s.rows()}, 1,
                [&](OpBuilder &gb, Location loc, ValueRange elements) {
                  Value deviation = gb.create<arith::SubFOp>(
                      loc, elements[numInputs], elements[numInputs + 1]);
                  return SmallVector<Value>{
                      gb.create<arith::MulFOp>(loc, deviation, deviation)};
                })[0];
  Type element = getElementTypeOrSelf(squares.getType());
  double epsilon = norm.getEpsilonAttr().getValueAsDouble();
  result.rstd =
      s.rowwise(squares, [&](OpBuilder &gb, Location loc, ValueRange elements) {
        Value variance =
            gb.create<arith::MulFOp>(loc, elements[0], inverseLength);
        Value shifted = gb.create<arith::AddFOp>(
            loc, variance,
            gb.create<arith::ConstantOp>(loc, element,
                                         gb.getFloatAttr(element, epsilon)));
        Value one = gb.create<arith::ConstantOp>(loc, element,
                                                 gb.getFloatAttr(element, 1.0));
        gb.create<linalg::YieldOp>(
            loc, gb.create<arith::DivFOp>(loc, one,
                                          gb.create<math::SqrtOp>(loc, shifted))
                     .getResult());
      });
  return result;
}

/// The layer norm's scalar x̂·γ + β at one element.
Value normScalar(OpBuilder &b, Location loc, LayerNormOp norm,
                 ValueRange elements, unsigned statsAt,
                 const DenseMap<Value, Value> &scalar) {
  Value scaled =
      b.create<arith::MulFOp>(loc, normalised(b, loc, elements, statsAt),
                              scalar.lookup(norm.getGamma()));
  return b.create<arith::AddFOp>(loc, scaled, scalar.lookup(norm.getBeta()));
}

/// The body's scalars at one element of a full-space stage whose operands
/// are the dispatch's inputs, then the stats operands at `statsAt`.
void emitScalarsWithNorm(OpBuilder &b, Location loc, Block &body,
                         LayerNormOp norm, ValueRange elements,
                         unsigned statsAt, DenseMap<Value, Value> &scalar) {
  emitForwardScalars(b, loc, body, elements.take_front(body.getNumArguments()),
                     scalar, [&](Operation *) {
                       return normScalar(b, loc, norm, elements, statsAt,
                                         scalar);
                     });
}

func::FuncOp createFunction(OpBuilder &b, Location loc, StringRef name,
                            TypeRange argTypes, TypeRange resultTypes) {
  auto func = b.create<func::FuncOp>(loc, name,
                                     b.getFunctionType(argTypes, resultTypes));
  func.addEntryBlock();
  return func;
}

} // namespace

void rvnn::exec::emitRowNormKernel(OpBuilder &b, DispatchOp dispatch,
                                   const KernelSignature &signature) {
  Location loc = dispatch.getLoc();
  Block &body = dispatch.getBody().front();
  auto norm = cast<LayerNormOp>(signature.rowNorm);
  unsigned numInputs = dispatch.getInputs().size();
  SmallVector<Type> argTypes(dispatch.getInputs().getTypes());
  llvm::append_range(argTypes, dispatch.getResultTypes());
  func::FuncOp func = createFunction(b, loc, dispatch.getKernel(), argTypes,
                                     dispatch.getResultTypes());
  OpBuilder fb = OpBuilder::atBlockBegin(&func.front());
  ValueRange args = func.getArguments();
  Stages s(fb, loc, signature, args.take_front(numInputs));
  NormInput input = emitNormInput(s, body, norm);

  SmallVector<AffineMap> outMaps(dispatch.getNumResults(), s.full());
  SmallVector<Value> results = s.generic(
      statsOperands(input), statsMaps(s), args.drop_front(numInputs), outMaps,
      s.parallel(), [&](OpBuilder &gb, Location loc, ValueRange elements) {
        DenseMap<Value, Value> scalar;
        emitScalarsWithNorm(gb, loc, body, norm, elements, numInputs, scalar);
        SmallVector<Value> yielded;
        for (Value result : body.getTerminator()->getOperands())
          yielded.push_back(scalar.lookup(result));
        gb.create<linalg::YieldOp>(loc, yielded);
      });
  fb.create<func::ReturnOp>(loc, results);
}

void rvnn::exec::emitRowNormKernelGrad(OpBuilder &b, DispatchOp dispatch,
                                       const KernelSignature &signature,
                                       StringRef name) {
  Location loc = dispatch.getLoc();
  Block &body = dispatch.getBody().front();
  auto norm = cast<LayerNormOp>(signature.rowNorm);
  unsigned numInputs = dispatch.getInputs().size();
  unsigned numResults = dispatch.getNumResults();
  SmallVector<Type> argTypes(dispatch.getInputs().getTypes());
  llvm::append_range(argTypes, dispatch.getResultTypes());
  llvm::append_range(argTypes, dispatch.getInputs().getTypes());
  func::FuncOp func =
      createFunction(b, loc, name, argTypes, dispatch.getInputs().getTypes());
  OpBuilder fb = OpBuilder::atBlockBegin(&func.front());
  ValueRange args = func.getArguments();
  ValueRange dys = args.slice(numInputs, numResults);
  ValueRange dxs = args.drop_front(numInputs + numResults);
  Stages s(fb, loc, signature, args.take_front(numInputs));
  NormInput input = emitNormInput(s, body, norm);
  const unsigned statsAt = numInputs, dyAt = statsAt + 3;
  unsigned gammaAt = cast<BlockArgument>(norm.getGamma()).getArgNumber();

  // 1. dŷ: the layer norm output's cotangent, from the ops after it; a norm
  //    that only a result reads has that result's cotangent.
  SmallVector<Value> withDy = statsOperands(input);
  llvm::append_range(withDy, dys);
  SmallVector<AffineMap> withDyMaps = statsMaps(s);
  withDyMaps.append(numResults, s.full());
  Value dNorm;
  if (norm->hasOneUse() && *norm->user_begin() == body.getTerminator())
    dNorm = dys[norm->use_begin()->getOperandNumber()];
  else
    dNorm = s.generic(
        withDy, withDyMaps, s.emptyFull(), s.full(), s.parallel(),
        [&](OpBuilder &gb, Location loc, ValueRange elements) {
          DenseMap<Value, Value> scalar, adjoint;
          emitScalarsWithNorm(gb, loc, body, norm, elements, statsAt, scalar);
          Value dResult;
          emitReverseSweep(gb, loc, body, elements.slice(dyAt, numResults),
                           scalar, adjoint, [&](Operation *, Value d) {
                             dResult = d;
                             return Value();
                           });
          gb.create<linalg::YieldOp>(loc, dResult ? dResult : s.constant(0));
        })[0];

  // Stage operands from here: the stats, then dŷ.
  SmallVector<Value> withDNorm = statsOperands(input);
  withDNorm.push_back(dNorm);
  SmallVector<AffineMap> withDNormMaps = statsMaps(s);
  withDNormMaps.push_back(s.full());

  // 2. Per row: Σ dŷ·γ and Σ dŷ·γ·x̂.
  SmallVector<Value> rowSums =
      s.rowSums(withDNorm, withDNormMaps, 2,
                [&](OpBuilder &gb, Location loc, ValueRange elements) {
                  Value g = gb.create<arith::MulFOp>(loc, elements[dyAt],
                                                     elements[gammaAt]);
                  Value gx = gb.create<arith::MulFOp>(
                      loc, g, normalised(gb, loc, elements, statsAt));
                  return SmallVector<Value>{g, gx};
                });

  // 3. The row operands' cotangents: column sums of dŷ·x̂ (gamma) and dŷ
  //    (beta).
  SmallVector<unsigned> rowPositions, fullPositions;
  for (auto [position, row] : llvm::enumerate(signature.rowInputs))
    (row ? rowPositions : fullPositions).push_back(position);
  SmallVector<Value> rowGrads;
  if (!rowPositions.empty()) {
    SmallVector<Value> outs;
    for (unsigned position : rowPositions)
      outs.push_back(s.zeros(dxs[position]));
    rowGrads = s.generic(
        withDNorm, withDNormMaps, outs,
        SmallVector<AffineMap>(rowPositions.size(), s.column()),
        s.columnReduction(),
        [&](OpBuilder &gb, Location loc, ValueRange elements) {
          Value dy = elements[dyAt];
          Value dGamma = gb.create<arith::MulFOp>(
              loc, dy, normalised(gb, loc, elements, statsAt));
          ValueRange sums = elements.take_back(rowPositions.size());
          SmallVector<Value> next;
          for (auto [sum, position] : llvm::zip_equal(sums, rowPositions)) {
            BlockArgument argument = body.getArgument(position);
            Value total = sum;
            if (argument == norm.getGamma())
              total = gb.create<arith::AddFOp>(loc, total, dGamma);
            if (argument == norm.getBeta())
              total = gb.create<arith::AddFOp>(loc, total, dy);
            next.push_back(total);
          }
          gb.create<linalg::YieldOp>(loc, next);
        });
  }

  // 4. Reverse mode over the whole body, the layer norm's input through
  //    rstd·(dŷ·γ - Σ dŷ·γ / D - x̂·Σ dŷ·γ·x̂ / D).
  SmallVector<Value> last(withDy);
  llvm::append_range(last, rowSums);
  SmallVector<AffineMap> lastMaps(withDyMaps);
  lastMaps.append({s.rows(), s.rows()});
  const unsigned rowSumsAt = dyAt + numResults;
  SmallVector<Value> fullOuts;
  for (unsigned position : fullPositions)
    fullOuts.push_back(dxs[position]);
  Value inverseLength = s.inverseRowLength;
  SmallVector<Value> fullGrads = s.generic(
      last, lastMaps, fullOuts,
      SmallVector<AffineMap>(fullOuts.size(), s.full()), s.parallel(),
      [&](OpBuilder &gb, Location loc, ValueRange elements) {
        DenseMap<Value, Value> scalar, adjoint;
        emitScalarsWithNorm(gb, loc, body, norm, elements, statsAt, scalar);
        emitReverseSweep(gb, loc, body, elements.slice(dyAt, numResults),
                         scalar, adjoint, [&](Operation *, Value d) -> Value {
                           Value g = gb.create<arith::MulFOp>(
                               loc, d, scalar.lookup(norm.getGamma()));
                           Value meanG = gb.create<arith::MulFOp>(
                               loc, elements[rowSumsAt], inverseLength);
                           Value meanGx = gb.create<arith::MulFOp>(
                               loc, elements[rowSumsAt + 1], inverseLength);
                           Value xhat = normalised(gb, loc, elements, statsAt);
                           Value centred = gb.create<arith::SubFOp>(
                               loc, gb.create<arith::SubFOp>(loc, g, meanG),
                               gb.create<arith::MulFOp>(loc, xhat, meanGx));
                           return gb.create<arith::MulFOp>(
                               loc, elements[statsAt + 2], centred);
                         });
        gb.create<linalg::YieldOp>(
            loc, argumentAdjoints(gb, loc, body, fullPositions, adjoint));
      });

  SmallVector<Value> grads(numInputs);
  for (auto [position, grad] : llvm::zip_equal(fullPositions, fullGrads))
    grads[position] = grad;
  for (auto [position, grad] : llvm::zip_equal(rowPositions, rowGrads))
    grads[position] = grad;
  fb.create<func::ReturnOp>(loc, grads);
}
