//===- RowReductionKernel.h - Kernels with a row reduction ------*- C++ -*-===//
//
// The kernel IR of a dispatch whose body holds a row reduction (a layer
// norm, a softmax or a masked softmax along the last dim; ScalarRules.h)
// among its elementwise ops, for the forward and for its compiler-derived
// backward. One driver writes both from the stages of KernelStages.h; each
// kind of reduction brings its statistics and its rules (RowReductionRule:
// LayerNormRule.cpp, SoftmaxRule.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef RVNN_LIB_DIALECT_EXEC_TRANSFORMS_ROWREDUCTIONKERNEL_H
#define RVNN_LIB_DIALECT_EXEC_TRANSFORMS_ROWREDUCTIONKERNEL_H

#include "KernelStages.h"

#include <memory>

namespace mlir::rvnn::exec {

/// What a row reduction adds to the stages of its kernel. Its stage
/// operands (`operands`, with `maps`) are the reduction's full-size operands
/// (materialised unless they are inputs), then its per-row statistics. Every
/// full-space stage reads them right after the dispatch's inputs, so at one
/// element they begin at `elements[numInputs]`.
class RowReductionRule {
public:
  explicit RowReductionRule(unsigned numInputs) : numInputs(numInputs) {}
  virtual ~RowReductionRule() = default;

  /// The reduction's result at one element; `scalar` holds the body's
  /// scalars computed before it.
  virtual Value result(OpBuilder &b, Location loc, ValueRange elements,
                       const DenseMap<Value, Value> &scalar) const = 0;

  /// How many row sums the backward needs.
  virtual unsigned numBackwardSums() const = 0;
  /// The terms of those row sums at one element, given the reduction
  /// output's cotangent `d` there.
  virtual SmallVector<Value> backwardTerms(OpBuilder &b, Location loc,
                                           ValueRange elements,
                                           Value d) const = 0;
  /// The cotangents of the row operands (a layer norm's gamma and beta),
  /// into `grads` at their positions, from a stage reading the operands and
  /// `d` (`withD`, with `withDMaps`); none by default.
  virtual void rowOperandCotangents(Stages &s, Block &body, ValueRange withD,
                                    ArrayRef<AffineMap> withDMaps,
                                    ValueRange dxs,
                                    MutableArrayRef<Value> grads) const {}
  /// Builds, before the backward's last stage, what adjoints() reads from
  /// outside the stage.
  virtual void beginAdjoints(Stages &s) {}
  /// The contributions to the reduction's operands at one element, given
  /// `d` and the row sums `sums` there (null for an operand that gets none
  /// here: a row operand).
  virtual SmallVector<Value>
  adjoints(OpBuilder &b, Location loc, ValueRange elements, Value d,
           ValueRange sums, const DenseMap<Value, Value> &scalar) const = 0;

  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;

protected:
  /// Where the stage operands begin in a stage's elements.
  unsigned numInputs;
};

/// Emits the statistics of the body's layer norm `norm` (its input, row
/// mean and rstd, as ATen computes them) and returns its rule.
std::unique_ptr<RowReductionRule>
emitLayerNormStatistics(Stages &s, Block &body, LayerNormOp norm);
/// Emits the statistics of the body's softmax or masked softmax (its
/// operands, the row max, 1 / Σ exp(x - max) and, masked, the masked
/// probabilities' sum) and returns its rule.
std::unique_ptr<RowReductionRule> emitSoftmaxStatistics(Stages &s, Block &body,
                                                        Operation *softmax);

/// Writes `func.func @K(x..., out...) -> (out...)` at `b`: the reduction's
/// statistics, then one elementwise generic of the whole body into the outs.
void emitRowReductionKernel(OpBuilder &b, DispatchOp dispatch,
                            const KernelSignature &signature);

/// Writes `func.func @<name>(x..., dy..., dx...) -> (dx...)`: the forward's
/// statistics again, the reduction output's cotangent (reverse mode over the
/// ops after it), the row sums of its rule, the row operands' cotangents,
/// then reverse mode over the whole body into every input's cotangent.
void emitRowReductionKernelGrad(OpBuilder &b, DispatchOp dispatch,
                                const KernelSignature &signature,
                                StringRef name);

} // namespace mlir::rvnn::exec

#endif // RVNN_LIB_DIALECT_EXEC_TRANSFORMS_ROWREDUCTIONKERNEL_H
