//===- RowReductionKernel.cpp - Kernels with a row reduction --------------===//

#include "RowReductionKernel.h"
#include "KernelScalars.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

std::unique_ptr<RowReductionRule> emitStatistics(Stages &s, Block &body,
                                                 Operation *reduction) {
  if (auto norm = dyn_cast<LayerNormOp>(reduction))
    return emitLayerNormStatistics(s, body, norm);
  return emitSoftmaxStatistics(s, body, reduction);
}

/// The body's scalars at one element of a full-space stage whose operands
/// are the dispatch's inputs, then the rule's operands.
void emitScalarsWithReduction(OpBuilder &b, Location loc, Block &body,
                              const RowReductionRule &rule, ValueRange elements,
                              DenseMap<Value, Value> &scalar) {
  emitForwardScalars(
      b, loc, body, elements.take_front(body.getNumArguments()), scalar,
      [&](Operation *) { return rule.result(b, loc, elements, scalar); });
}

} // namespace

void rvnn::exec::emitRowReductionKernel(OpBuilder &b, DispatchOp dispatch,
                                        const KernelSignature &signature) {
  Location loc = dispatch.getLoc();
  Block &body = dispatch.getBody().front();
  KernelFunction kernel = beginForwardKernel(b, dispatch);
  OpBuilder &fb = kernel.builder;
  Stages s(fb, loc, signature, kernel.inputs);
  std::unique_ptr<RowReductionRule> rule =
      emitStatistics(s, body, signature.rowReduction);
  SmallVector<Value> results = emitBodyResults(
      s, body, rule->operands, rule->maps, kernel.outs,
      [&](OpBuilder &gb, Location loc, ValueRange elements,
          DenseMap<Value, Value> &scalar) {
        emitScalarsWithReduction(gb, loc, body, *rule, elements, scalar);
      });
  fb.create<func::ReturnOp>(loc, results);
}

void rvnn::exec::emitRowReductionKernelGrad(OpBuilder &b, DispatchOp dispatch,
                                            const KernelSignature &signature,
                                            StringRef name) {
  Location loc = dispatch.getLoc();
  Block &body = dispatch.getBody().front();
  Operation *reduction = signature.rowReduction;
  unsigned numInputs = dispatch.getInputs().size();
  unsigned numResults = dispatch.getNumResults();
  KernelFunction kernel = beginBackwardKernel(b, dispatch, name);
  OpBuilder &fb = kernel.builder;
  ValueRange dys = kernel.dys, dxs = kernel.outs;
  Stages s(fb, loc, signature, kernel.inputs);
  s.keepTranscendentals();
  std::unique_ptr<RowReductionRule> rule = emitStatistics(s, body, reduction);
  auto scalars = [&](OpBuilder &gb, Location loc, ValueRange elements,
                     DenseMap<Value, Value> &scalar) {
    emitScalarsWithReduction(gb, loc, body, *rule, elements, scalar);
  };

  // 1. d: the reduction output's cotangent, from the ops after it; one that
  //    only a result reads is that result's cotangent.
  Value d = emitReductionCotangent(s, body, reduction, rule->operands,
                                   rule->maps, dys, scalars);

  // 2. The row sums of its rule, from a stage reading d after the operands.
  SmallVector<Value> withD(rule->operands);
  withD.push_back(d);
  SmallVector<AffineMap> withDMaps(rule->maps);
  withDMaps.push_back(s.full());
  const unsigned dAt = numInputs + rule->operands.size();
  const unsigned numSums = rule->numBackwardSums();
  SmallVector<Value> rowSums =
      s.rowSums(withD, withDMaps, numSums,
                [&](OpBuilder &gb, Location loc, ValueRange elements) {
                  return rule->backwardTerms(gb, loc, elements, elements[dAt]);
                });

  // 3. The row operands' cotangents.
  SmallVector<Value> grads(numInputs);
  rule->rowOperandCotangents(s, body, withD, withDMaps, dxs, grads);

  // 4. Reverse mode over the whole body, the reduction's operands through
  //    its rule, reading the transcendental scalars the first stage kept.
  rule->beginAdjoints(s);
  SmallVector<Value> last(rule->operands);
  llvm::append_range(last, dys);
  llvm::append_range(last, rowSums);
  SmallVector<AffineMap> lastMaps(rule->maps);
  lastMaps.append(numResults, s.full());
  lastMaps.append(numSums, s.rows());
  for (auto [value, tensor] : s.keptValues()) {
    last.push_back(tensor);
    lastMaps.push_back(s.full());
  }
  const unsigned dyAt = dAt, sumsAt = dyAt + numResults,
                 keptAt = sumsAt + numSums;
  auto inputAdjoints = [&](OpBuilder &gb, Location loc, ValueRange elements,
                           ArrayRef<unsigned> positions) {
    DenseMap<Value, Value> scalar, adjoint;
    for (auto [i, kept] : llvm::enumerate(s.keptValues()))
      scalar[kept.first] = elements[keptAt + i];
    scalars(gb, loc, elements, scalar);
    emitReverseSweep(gb, loc, body, elements.slice(dyAt, numResults), scalar,
                     adjoint, [&](Operation *, Value dResult) {
                       return rule->adjoints(gb, loc, elements, dResult,
                                             elements.slice(sumsAt, numSums),
                                             scalar);
                     });
    return argumentAdjoints(gb, loc, body, positions, adjoint);
  };
  s.inputCotangents(last, lastMaps, dxs, inputAdjoints, grads);
  fb.create<func::ReturnOp>(loc, grads);
}
