//===- OutlineKernels.cpp - Kernel IR of every dispatch -------------------===//
//
// rvnn-exec-outline-kernels: for every rvnn_exec.dispatch writes the kernel
// and its compiler-derived backward as linalg.generic functions into the
// nested module marked rvnn_exec.kernels, element-level rules from
// ScalarRules.h.
//
//===----------------------------------------------------------------------===//

#include "ScalarRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
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

/// The one tensor type of a dispatch the kernel generator supports (every
/// input, result and body value of type T, body ops fusable), or an error
/// at the dispatch.
FailureOr<RankedTensorType> getKernelType(DispatchOp dispatch) {
  auto fail = [&](const Twine &why) {
    dispatch.emitOpError("cannot generate kernel '")
        << dispatch.getKernel() << "': " << why;
    return failure();
  };
  SmallVector<Type> types(dispatch.getInputs().getTypes());
  llvm::append_range(types, dispatch.getResultTypes());
  if (dispatch.getInputs().empty() || dispatch.getResults().empty())
    return fail("it needs at least one input and one result");
  auto type = cast<RankedTensorType>(types.front());
  if (!isa<Float32Type, Float64Type>(type.getElementType()))
    return fail("elements must be f32 or f64");
  if (!llvm::all_of(types, [&](Type other) { return other == type; }))
    return fail("inputs and results must have one type");
  for (Operation &op : dispatch.getBody().front().without_terminator())
    if (getFusableType(&op) != type)
      return fail("'" + op.getName().getStringRef() +
                  "' is not an elementwise op of the dispatch's type");
  return type;
}

/// Emits the scalar forward of the dispatch body at `b`, the body's block
/// arguments standing for `inputs`; records every body value's scalar.
void emitForwardScalars(OpBuilder &b, Location loc, Block &body,
                        ValueRange inputs, DenseMap<Value, Value> &scalar) {
  for (auto [argument, input] : llvm::zip_equal(body.getArguments(), inputs))
    scalar[argument] = input;
  for (Operation &op : body.without_terminator()) {
    SmallVector<Value> operands;
    for (Value operand : op.getOperands())
      operands.push_back(scalar.lookup(operand));
    scalar[op.getResult(0)] = emitScalarForward(b, loc, &op, operands);
  }
}

/// func.func @name(ins..., outs...) -> (outs' types) holding one
/// elementwise linalg.generic ins(ins) outs(outs) with body `bodyBuilder`.
void emitKernelFunction(
    OpBuilder &b, Location loc, StringRef name, RankedTensorType type,
    unsigned numIns, unsigned numOuts,
    function_ref<void(OpBuilder &, Location, ValueRange)> bodyBuilder) {
  SmallVector<Type> argTypes(numIns + numOuts, type);
  SmallVector<Type> resultTypes(numOuts, type);
  auto func = b.create<func::FuncOp>(loc, name,
                                     b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  OpBuilder fb = OpBuilder::atBlockBegin(entry);
  SmallVector<AffineMap> maps(numIns + numOuts,
                              fb.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = fb.create<linalg::GenericOp>(
      loc, resultTypes, entry->getArguments().take_front(numIns),
      entry->getArguments().drop_front(numIns), maps, iterators, bodyBuilder);
  fb.create<func::ReturnOp>(loc, generic.getResults());
}

/// @K(x..., out...) -> (y...): the dispatch body on elements.
void emitForward(OpBuilder &b, DispatchOp dispatch, RankedTensorType type) {
  Block &body = dispatch.getBody().front();
  unsigned numInputs = dispatch.getInputs().size();
  auto scalarBody = [&](OpBuilder &gb, Location loc, ValueRange args) {
    DenseMap<Value, Value> scalar;
    emitForwardScalars(gb, loc, body, args.take_front(numInputs), scalar);
    SmallVector<Value> yielded;
    for (Value result : body.getTerminator()->getOperands())
      yielded.push_back(scalar.lookup(result));
    gb.create<linalg::YieldOp>(loc, yielded);
  };
  emitKernelFunction(b, dispatch.getLoc(), dispatch.getKernel(), type,
                     numInputs, dispatch.getNumResults(), scalarBody);
}

/// @K_grad(x..., dy..., dx...) -> (dx...): recomputes the forward scalars
/// from the inputs, then reverse mode over them.
void emitBackward(OpBuilder &b, DispatchOp dispatch, RankedTensorType type,
                  StringRef name) {
  Block &body = dispatch.getBody().front();
  unsigned numInputs = dispatch.getInputs().size();
  unsigned numResults = dispatch.getNumResults();
  auto scalarBody = [&](OpBuilder &gb, Location loc, ValueRange args) {
    DenseMap<Value, Value> scalar;
    emitForwardScalars(gb, loc, body, args.take_front(numInputs), scalar);

    // Adjoints of body values, accumulated per use.
    DenseMap<Value, Value> adjoint;
    auto accumulate = [&](Value value, Value contribution) {
      Value &sum = adjoint[value];
      sum = sum ? gb.create<arith::AddFOp>(loc, sum, contribution).getResult()
                : contribution;
    };
    ValueRange dy = args.slice(numInputs, numResults);
    for (auto [result, seed] :
         llvm::zip_equal(body.getTerminator()->getOperands(), dy))
      accumulate(result, seed);
    for (Operation &op : llvm::reverse(body.without_terminator())) {
      Value dResult = adjoint.lookup(op.getResult(0));
      if (!dResult)
        continue; // On no path to a result.
      SmallVector<Value> operands;
      for (Value operand : op.getOperands())
        operands.push_back(scalar.lookup(operand));
      SmallVector<Value> contributions = emitScalarAdjoints(
          gb, loc, &op, operands, scalar.lookup(op.getResult(0)), dResult);
      for (auto [operand, contribution] :
           llvm::zip_equal(op.getOperands(), contributions))
        accumulate(operand, contribution);
    }

    // Inputs on no path to a result get 0.
    Type element = type.getElementType();
    Value zero;
    SmallVector<Value> dx;
    for (BlockArgument argument : body.getArguments()) {
      Value d = adjoint.lookup(argument);
      if (!d) {
        if (!zero)
          zero = gb.create<arith::ConstantOp>(loc, element,
                                              gb.getFloatAttr(element, 0.0));
        d = zero;
      }
      dx.push_back(d);
    }
    gb.create<linalg::YieldOp>(loc, dx);
  };
  emitKernelFunction(b, dispatch.getLoc(), name, type, numInputs + numResults,
                     numInputs, scalarBody);
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
      FailureOr<RankedTensorType> type = getKernelType(dispatch);
      if (mlir::failed(type)) {
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
      emitForward(builder, dispatch, *type);
      emitBackward(builder, dispatch, *type, gradName);
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
