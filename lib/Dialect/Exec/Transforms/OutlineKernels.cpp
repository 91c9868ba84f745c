//===- OutlineKernels.cpp - Kernel IR of every dispatch -------------------===//
//
// rvnn-exec-outline-kernels: for every rvnn_exec.dispatch writes the kernel
// and its compiler-derived backward as linalg.generic functions into the
// nested module marked rvnn_exec.kernels, element-level rules from
// ScalarRules.h.
//
//===----------------------------------------------------------------------===//

#include "KernelScalars.h"
#include "RowReductionKernel.h"
#include "ScalarRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "rvnn/Dialect/Exec/ExecContract.h"
#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"
#include "rvnn/Dialect/Exec/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::rvnn::exec {
#define GEN_PASS_DEF_RVNNEXECOUTLINEKERNELS
#include "rvnn/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::rvnn::exec

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

constexpr StringLiteral kKernelsModuleName = "rvnn_kernels";

/// The position of the full input `bias` is added to, where the two have
/// one adjoint: `bias` broadcast and added to a block argument of `type`
/// that nothing else reads by value (a broadcast reads it for its shape).
std::optional<unsigned> fullInputOfBias(BlockArgument bias,
                                        RankedTensorType type) {
  if (!bias.hasOneUse())
    return std::nullopt;
  auto broadcast = dyn_cast<BroadcastLikeOp>(*bias.user_begin());
  if (!broadcast || !broadcast->hasOneUse())
    return std::nullopt;
  auto add = dyn_cast<ElementwiseOp>(*broadcast->user_begin());
  if (!add || add.getFn() != ElementwiseFn::add)
    return std::nullopt;
  Value other = add.getInputs()[add.getInputs()[0] == broadcast ? 1 : 0];
  auto full = dyn_cast<BlockArgument>(other);
  if (!full || full.getType() != type)
    return std::nullopt;
  auto readsForShapeOrAdds = [&](OpOperand &use) {
    return use.getOwner() == add || (isa<BroadcastLikeOp>(use.getOwner()) &&
                                     use.getOperandNumber() == 1);
  };
  if (!llvm::all_of(full.getUses(), readsForShapeOrAdds))
    return std::nullopt;
  return full.getArgNumber();
}

/// The dispatch's kernel signature (KernelStages.h), or an error at the
/// dispatch: results of one ranked type `T` (f32 or f64), inputs of type `T`
/// (one at least), row operands of the body's layer norm or broadcast
/// operands of its gates and broadcasts, body ops fusable over `T` with at most
/// one row reduction.
FailureOr<KernelSignature> getKernelSignature(DispatchOp dispatch) {
  auto fail = [&](const Twine &why) {
    dispatch.emitOpError("cannot generate kernel '")
        << dispatch.getKernel() << "': " << why;
    return failure();
  };
  if (dispatch.getInputs().empty() || dispatch.getResults().empty())
    return fail("it needs at least one input and one result");
  KernelSignature signature;
  signature.type = cast<RankedTensorType>(dispatch.getResultTypes().front());
  RankedTensorType type = signature.type;
  if (!isa<Float32Type, Float64Type>(type.getElementType()))
    return fail("elements must be f32 or f64");
  if (!llvm::all_of(dispatch.getResultTypes(),
                    [&](Type other) { return other == type; }))
    return fail("results must have one type");
  Block &body = dispatch.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (getFusableType(&op) == type)
      continue;
    if (getFusableRowReductionType(&op) == type) {
      if (signature.rowReduction)
        return fail("it holds more than one row reduction");
      signature.rowReduction = &op;
      continue;
    }
    return fail("'" + op.getName().getStringRef() +
                "' is not an elementwise op of the dispatch's type");
  }
  auto isRowOperandUse = [&](OpOperand &use) {
    return isa_and_nonnull<LayerNormOp>(signature.rowReduction) &&
           use.getOwner() == signature.rowReduction &&
           use.getOperandNumber() > 0;
  };
  for (BlockArgument argument : body.getArguments()) {
    auto usedOnlyBy = [&](auto isUse) {
      return !argument.use_empty() && llvm::all_of(argument.getUses(), isUse);
    };
    if (argument.getType() == type)
      signature.inputKinds.push_back(InputKind::full);
    else if (usedOnlyBy(isRowOperandUse))
      signature.inputKinds.push_back(InputKind::row);
    else if (isBroadcastOperand(argument.getType(), type) &&
             usedOnlyBy(isBroadcastOperandUse))
      signature.inputKinds.push_back(InputKind::broadcast);
    else
      return fail("inputs must have the results' type, or be the gamma or "
                  "beta of its layer norm, or broadcast operands of its gates "
                  "and broadcasts");
  }
  if (!llvm::is_contained(signature.inputKinds, InputKind::full))
    return fail("no input has the results' type");
  for (unsigned position : signature.positions(InputKind::broadcast))
    if (std::optional<unsigned> full =
            fullInputOfBias(body.getArgument(position), type))
      signature.adjointOfFullInput[position] = *full;
  return signature;
}

/// @K(x..., out...) -> (y...): the dispatch body on elements.
void emitForward(OpBuilder &b, DispatchOp dispatch,
                 const KernelSignature &signature) {
  Block &body = dispatch.getBody().front();
  KernelFunction kernel = beginForwardKernel(b, dispatch);
  Stages s(kernel.builder, dispatch.getLoc(), signature, kernel.inputs);
  SmallVector<Value> results = emitBodyResults(
      s, body, {}, {}, kernel.outs,
      [&](OpBuilder &gb, Location loc, ValueRange elements,
          DenseMap<Value, Value> &scalar) {
        emitForwardScalars(gb, loc, body,
                           elements.take_front(body.getNumArguments()), scalar);
      });
  kernel.builder.create<func::ReturnOp>(dispatch.getLoc(), results);
}

/// @K_grad(x..., dy..., dx...) -> (dx...): recomputes the forward scalars
/// from the inputs, then reverse mode over them.
void emitBackward(OpBuilder &b, DispatchOp dispatch,
                  const KernelSignature &signature, StringRef name) {
  Block &body = dispatch.getBody().front();
  unsigned numInputs = dispatch.getInputs().size();
  unsigned numResults = dispatch.getNumResults();
  KernelFunction kernel = beginBackwardKernel(b, dispatch, name);
  Stages s(kernel.builder, dispatch.getLoc(), signature, kernel.inputs);
  auto inputAdjoints = [&](OpBuilder &gb, Location loc, ValueRange elements,
                           ArrayRef<unsigned> positions) {
    DenseMap<Value, Value> scalar, adjoint;
    emitForwardScalars(gb, loc, body, elements.take_front(numInputs), scalar);
    emitReverseSweep(gb, loc, body, elements.slice(numInputs, numResults),
                     scalar, adjoint);
    return argumentAdjoints(gb, loc, body, positions, adjoint);
  };
  SmallVector<Value> grads(numInputs);
  s.inputCotangents(kernel.dys, SmallVector<AffineMap>(numResults, s.full()),
                    kernel.outs, inputAdjoints, grads);
  kernel.builder.create<func::ReturnOp>(dispatch.getLoc(), grads);
}

struct OutlineKernelsPass
    : public mlir::rvnn::exec::impl::RvnnExecOutlineKernelsBase<
          OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
      if (isa<ModuleOp>(op) && op.hasAttr(ExecDialect::kKernelsAttrName))
        op.erase();

    SmallVector<DispatchOp> dispatches;
    module.walk([&](DispatchOp dispatch) { dispatches.push_back(dispatch); });
    if (dispatches.empty())
      return;

    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto kernels =
        builder.create<ModuleOp>(module.getLoc(), kKernelsModuleName);
    kernels->setAttr(ExecDialect::kKernelsAttrName, builder.getUnitAttr());
    builder.setInsertionPointToEnd(kernels.getBody());

    llvm::StringMap<DispatchOp> byKernel;
    llvm::StringSet<> symbols;
    bool failed = false;
    for (DispatchOp dispatch : dispatches) {
      StringRef name = dispatch.getKernel();
      auto [it, inserted] = byKernel.try_emplace(name, dispatch);
      if (!inserted) {
        DispatchOp first = it->second;
        if (first.getOperandTypes() != dispatch.getOperandTypes() ||
            first.getResultTypes() != dispatch.getResultTypes() ||
            !OperationEquivalence::isRegionEquivalentTo(
                &first.getBody(), &dispatch.getBody(),
                OperationEquivalence::IgnoreLocations)) {
          dispatch.emitOpError("kernel '")
              << name << "' differs from the dispatch of the same name at "
              << first.getLoc();
          failed = true;
        }
        continue;
      }
      FailureOr<KernelSignature> signature = getKernelSignature(dispatch);
      if (mlir::failed(signature)) {
        failed = true;
        continue;
      }
      std::string gradName =
          (name + ::rvnn::contract::kKernelGradSuffix.data()).str();
      if (!symbols.insert(name).second || !symbols.insert(gradName).second) {
        dispatch.emitOpError("kernel symbol '")
            << name << "' or '" << gradName << "' is already taken";
        failed = true;
        continue;
      }
      if (signature->rowReduction) {
        emitRowReductionKernel(builder, dispatch, *signature);
        emitRowReductionKernelGrad(builder, dispatch, *signature, gradName);
        continue;
      }
      emitForward(builder, dispatch, *signature);
      emitBackward(builder, dispatch, *signature, gradName);
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
