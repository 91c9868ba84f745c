//===- Rematerialize.cpp - Recompute cheap residuals in backward ----------===//

#include "Rematerialize.h"

#include "AdjointRules.h"
#include "ScalarRules.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::rvnn::exec {
namespace {

/// How far back a recomputation may reach: each level is one elementwise
/// pass in the backward.
constexpr unsigned kMaxChain = 3;

bool isCheapToRecompute(Operation *op, Recomputable allowed) {
  if (!isa<ElementwiseOp, GeluOp, SigmoidOp, ReluOp, GateOp, DispatchOp,
           ConcatOp>(op) ||
      drawsRandomNumbers(op))
    return false;
  if (allowed == Recomputable::elementwise)
    return true;
  WalkResult costly = op->walk([](Operation *inner) {
    return evaluatesTranscendental(inner) ? WalkResult::interrupt()
                                          : WalkResult::advance();
  });
  return !costly.wasInterrupted();
}

class Rematerializer {
public:
  Rematerializer(FuncOp backward, Recomputable allowed)
      : backward(backward), allowed(allowed) {
    backward.walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (!backward->isAncestor(operand.getParentRegion()->getParentOp()))
          read.insert(operand);
    });
  }

  void run() {
    OpBuilder builder = OpBuilder::atBlockBegin(&backward.getBody().front());
    for (Value value : read) {
      if (!recomputable(value, 0))
        continue;
      Value copy = cloneOf(value, builder);
      value.replaceUsesWithIf(copy, [&](OpOperand &use) {
        return backward->isProperAncestor(use.getOwner());
      });
    }
  }

private:
  /// Whether `value` can be computed in the backward from values it reads
  /// anyway (at `depth` > 0, such a value itself qualifies).
  bool recomputable(Value value, unsigned depth) {
    if (depth > 0 &&
        (read.contains(value) || value.getDefiningOp<ConstantOp>()))
      return true;
    Operation *def = value.getDefiningOp();
    if (!def || depth == kMaxChain || !isCheapToRecompute(def, allowed))
      return false;
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return recomputable(operand, depth + 1);
    });
  }

  /// Values the backward still reads from the forward: residuals.
  bool kept(Value value) {
    return read.contains(value) && !recomputable(value, 0);
  }

  /// The backward's copy of `value`: a kept value itself; otherwise its op,
  /// cloned once, after the copies of its operands.
  Value cloneOf(Value value, OpBuilder &builder) {
    if (kept(value))
      return value;
    if (Value copy = clones.lookupOrNull(value))
      return copy;
    Operation *def = value.getDefiningOp();
    for (Value operand : def->getOperands())
      clones.map(operand, cloneOf(operand, builder));
    builder.clone(*def, clones);
    return clones.lookup(value);
  }

  FuncOp backward;
  Recomputable allowed;
  llvm::SetVector<Value> read;
  IRMapping clones;
};

} // namespace

void rematerializeElementwise(FuncOp backward, Recomputable allowed) {
  Rematerializer(backward, allowed).run();
}

} // namespace mlir::rvnn::exec
