//===- KernelScalars.cpp - A dispatch body on scalars ---------------------===//

#include "KernelScalars.h"
#include "ScalarRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

void rvnn::exec::emitForwardScalars(OpBuilder &b, Location loc, Block &body,
                                    ValueRange inputs,
                                    DenseMap<Value, Value> &scalar,
                                    RowReductionScalar rowReduction,
                                    Operation *stopAt) {
  for (auto [argument, input] : llvm::zip_equal(body.getArguments(), inputs))
    scalar[argument] = input;
  for (Operation &op : body.without_terminator()) {
    if (&op == stopAt)
      return;
    if (scalar.count(op.getResult(0)))
      continue; // Kept by an earlier stage.
    if (getFusableRowReductionType(&op)) {
      assert(rowReduction && "a row reduction needs its row statistics");
      scalar[op.getResult(0)] = rowReduction(&op);
      continue;
    }
    SmallVector<Value> operands;
    for (Value operand : op.getOperands())
      operands.push_back(scalar.lookup(operand));
    scalar[op.getResult(0)] = emitScalarForward(b, loc, &op, operands);
  }
}

void rvnn::exec::emitReverseSweep(OpBuilder &b, Location loc, Block &body,
                                  ValueRange seeds,
                                  const DenseMap<Value, Value> &scalar,
                                  DenseMap<Value, Value> &adjoint,
                                  RowReductionAdjoint rowReduction) {
  auto accumulate = [&](Value value, Value contribution) {
    Value &sum = adjoint[value];
    sum = sum ? b.create<arith::AddFOp>(loc, sum, contribution).getResult()
              : contribution;
  };
  for (auto [result, seed] :
       llvm::zip_equal(body.getTerminator()->getOperands(), seeds))
    accumulate(result, seed);
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    Value dResult = adjoint.lookup(op.getResult(0));
    if (!dResult)
      continue; // On no path to a result.
    if (getFusableRowReductionType(&op)) {
      assert(rowReduction && "a row reduction needs its row statistics");
      SmallVector<Value> contributions = rowReduction(&op, dResult);
      if (contributions.empty())
        return;
      for (auto [operand, contribution] :
           llvm::zip_equal(op.getOperands(), contributions))
        if (contribution)
          accumulate(operand, contribution);
      continue;
    }
    SmallVector<Value> operands;
    for (Value operand : op.getOperands())
      operands.push_back(scalar.lookup(operand));
    SmallVector<Value> contributions = emitScalarAdjoints(
        b, loc, &op, operands, scalar.lookup(op.getResult(0)), dResult);
    // Null: an operand read for its shape only.
    for (auto [operand, contribution] :
         llvm::zip_equal(op.getOperands(), contributions))
      if (contribution)
        accumulate(operand, contribution);
  }
}

SmallVector<Value>
rvnn::exec::argumentAdjoints(OpBuilder &b, Location loc, Block &body,
                             ArrayRef<unsigned> positions,
                             const DenseMap<Value, Value> &adjoint) {
  Value zero;
  SmallVector<Value> adjoints;
  for (unsigned position : positions) {
    Value d = adjoint.lookup(body.getArgument(position));
    if (!d) {
      if (!zero) {
        Type element = getElementTypeOrSelf(body.getArgument(position));
        zero = b.create<arith::ConstantOp>(loc, element,
                                           b.getFloatAttr(element, 0.0));
      }
      d = zero;
    }
    adjoints.push_back(d);
  }
  return adjoints;
}
