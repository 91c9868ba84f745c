// Verifiers, folders and custom assembly of the execution dialect. Mirrored
// rvnn ops were verified as rvnn ops before lowering; the checks here are
// those of the contract's own ops.
#include "rvnn/Dialect/Exec/IR/ExecOps.h"

#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

#define GET_OP_CLASSES
#include "rvnn/Dialect/Exec/IR/ExecOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// One index operand per dynamic dim of `type` (alloc, reshape).
static LogicalResult verifyDynamicSizes(Operation *op, RankedTensorType type,
                                        size_t numSizes) {
  if (static_cast<int64_t>(numSizes) != type.getNumDynamicDims())
    return op->emitOpError("expects one size operand per dynamic result dim (")
           << type.getNumDynamicDims() << "), got " << numSizes;
  return success();
}

/// A view keeps its source's element type.
static LogicalResult verifyKeepsElementType(Operation *op, Type source,
                                            Type result) {
  if (getElementTypeOrSelf(source) != getElementTypeOrSelf(result))
    return op->emitOpError("changes the element type from ")
           << getElementTypeOrSelf(source) << " to "
           << getElementTypeOrSelf(result);
  return success();
}

//===----------------------------------------------------------------------===//
// Control
//===----------------------------------------------------------------------===//

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult ReturnOp::verify() {
  auto func = (*this)->getParentOfType<FuncOp>();
  if (getOperandTypes() != func.getResultTypes())
    return emitOpError("returns ")
           << getOperandTypes() << ", the function declares "
           << func.getResultTypes();
  return success();
}

/// `name` must be an rvnn_exec.func of `type` in the enclosing module.
static LogicalResult verifyFunctionRef(Operation *op,
                                       SymbolTableCollection &symbols,
                                       FlatSymbolRefAttr name,
                                       FunctionType type) {
  auto func = symbols.lookupNearestSymbolFrom<FuncOp>(op, name);
  if (!func)
    return op->emitOpError("refers to ")
           << name << ", which is not an rvnn_exec.func";
  if (func.getFunctionType() != type)
    return op->emitOpError("expects ") << name << " to have type " << type
                                       << ", it has " << func.getFunctionType();
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbols) {
  Builder builder(getContext());
  TypeRange operands = getOperands().getTypes();
  TypeRange results = getResultTypes();
  if (failed(verifyFunctionRef(*this, symbols, getCalleeAttr(),
                               builder.getFunctionType(operands, results))))
    return failure();
  auto forward =
      symbols.lookupNearestSymbolFrom<FuncOp>(*this, getForwardAttr());
  if (!forward)
    return emitOpError("refers to ")
           << getForwardAttr() << ", which is not an rvnn_exec.func";
  ArrayRef<Type> forwardResults = forward.getResultTypes();
  if (TypeRange(forward.getArgumentTypes()) != operands ||
      TypeRange(forwardResults.take_front(results.size())) != results)
    return emitOpError("expects ")
           << getForwardAttr() << " to take the operands and return the "
           << "results first, it has type " << forward.getFunctionType();
  SmallVector<Type> backwardInputs(forwardResults.drop_front(results.size()));
  llvm::append_range(backwardInputs, results);
  SmallVector<Type> grads;
  for (int64_t index : getGradInputs()) {
    if (index < 0 || index >= static_cast<int64_t>(operands.size()))
      return emitOpError("grad_inputs entry ")
             << index << " is not an operand index";
    grads.push_back(operands[index]);
  }
  return verifyFunctionRef(*this, symbols, getBackwardAttr(),
                           builder.getFunctionType(backwardInputs, grads));
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Buffers and views
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  return verifyDynamicSizes(*this, getType(), getSizes().size());
}

LogicalResult CastOp::verify() {
  if (failed(verifyKeepsElementType(*this, getSource().getType(), getType())))
    return failure();
  if (failed(verifyCompatibleShape(getSource().getType(), getType())))
    return emitOpError("casts between incompatible shapes ")
           << getSource().getType() << " and " << getType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifyKeepsElementType(*this, getSource().getType(), getType())))
    return failure();
  return verifyDynamicSizes(*this, getType(), getSizes().size());
}

/// A window (Exec_WindowArgs) of `whole` whose elements `part` holds: one
/// static entry per dim of `whole` and one operand per dynamic entry, only
/// static unit dims of the window dropped, `part` of `whole`'s rank less
/// those and of its element type.
template <typename WindowOp>
static LogicalResult verifyWindow(WindowOp op, RankedTensorType whole,
                                  RankedTensorType part) {
  int64_t rank = whole.getRank();
  auto checkGroup = [&](StringRef name, ArrayRef<int64_t> statics,
                        size_t numOperands) -> LogicalResult {
    if (static_cast<int64_t>(statics.size()) != rank)
      return op.emitOpError("expects ")
             << rank << " static " << name << ", got " << statics.size();
    if (static_cast<size_t>(llvm::count(statics, ShapedType::kDynamic)) !=
        numOperands)
      return op.emitOpError("expects one ")
             << name << " operand per dynamic entry, got " << numOperands;
    return success();
  };
  if (failed(checkGroup("offsets", op.getStaticOffsets(),
                        op.getOffsets().size())) ||
      failed(checkGroup("sizes", op.getStaticSizes(), op.getSizes().size())) ||
      failed(
          checkGroup("strides", op.getStaticStrides(), op.getStrides().size())))
    return failure();
  for (int64_t dim : op.getDroppedDims())
    if (dim < 0 || dim >= rank || op.getStaticSizes()[dim] != 1)
      return op.emitOpError("drops dim ")
             << dim << ", which is not a static unit dim of the slice";
  if (part.getRank() + static_cast<int64_t>(op.getDroppedDims().size()) != rank)
    return op.emitOpError("window rank ")
           << part.getRank() << " does not match rank " << rank << " less "
           << op.getDroppedDims().size() << " dropped dims";
  return verifyKeepsElementType(op, whole, part);
}

LogicalResult SliceOp::verify() {
  return verifyWindow(*this, getSource().getType(),
                      cast<RankedTensorType>(getType()));
}

LogicalResult AddIntoWindowOp::verify() {
  return verifyWindow(*this, cast<RankedTensorType>(getInto().getType()),
                      cast<RankedTensorType>(getUpdate().getType()));
}

//===----------------------------------------------------------------------===//
// Library calls
//===----------------------------------------------------------------------===//

/// A band names, for each row of a batched `[B, M, K]` lhs, the columns the
/// product reads: `[B, M, 2]` with the lhs's leading sizes.
LogicalResult GemmOp::verify() {
  Value band = getLhsBand();
  if (!band)
    return success();
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  if (lhs.getRank() != 3 || rhs.getRank() != 3 || getTransposeRhs())
    return emitOpError("takes a band only for a batched product [B, M, K] · "
                       "[B, K, N], got ")
           << lhs << " · " << (getTransposeRhs() ? "transposed " : "") << rhs;
  auto bandType = cast<RankedTensorType>(band.getType());
  SmallVector<int64_t> expected{lhs.getDimSize(0), lhs.getDimSize(1), 2};
  if (failed(verifyCompatibleShape(bandType.getShape(), expected)))
    return emitOpError("band ")
           << bandType << " does not match lhs " << lhs
           << ": expected [B, M, 2] with the lhs's B and M";
  return success();
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

LogicalResult ElementwiseOp::verify() {
  size_t arity = getFn() <= ElementwiseFn::erf ? 1 : 2;
  if (getInputs().size() != arity)
    return emitOpError("'")
           << stringifyElementwiseFn(getFn()) << "' takes " << arity
           << " operand(s), got " << getInputs().size();
  bool isBool = getElementTypeOrSelf(getType()).isInteger(1);
  if (isBool != (getFn() == ElementwiseFn::logical_or))
    return emitOpError("'") << stringifyElementwiseFn(getFn())
                            << "' is not defined on " << getType();
  return success();
}

LogicalResult DispatchOp::verify() {
  Block &body = getBody().front();
  if (body.getArgumentTypes() != getInputs().getTypes())
    return emitOpError("body arguments ")
           << body.getArgumentTypes() << " do not match the inputs "
           << getInputs().getTypes();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield->getOperandTypes() != getResultTypes())
    return emitOpError("body must end in rvnn_exec.yield of the results ")
           << getResultTypes();
  return success();
}

LogicalResult VjpOp::verify() {
  Block &body = getBody().front();
  if (body.getArgumentTypes() != getPrimals().getTypes())
    return emitOpError("body arguments ")
           << body.getArgumentTypes() << " do not match the primals "
           << getPrimals().getTypes();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield->getOperandTypes() != getCotangents().getTypes())
    return emitOpError("body must yield one result per cotangent, of types ")
           << getCotangents().getTypes();
  if (getGradInputs().size() != getGrads().size())
    return emitOpError("has ") << getGrads().size() << " results for "
                               << getGradInputs().size() << " grad_inputs";
  for (auto [index, grad] : llvm::zip(getGradInputs(), getGrads())) {
    if (index < 0 || index >= static_cast<int64_t>(getPrimals().size()))
      return emitOpError("grad_inputs entry ")
             << index << " is not a primal index";
    if (getPrimals()[index].getType() != grad.getType())
      return emitOpError("result for primal ")
             << index << " has type " << grad.getType() << ", the primal "
             << getPrimals()[index].getType();
  }
  return success();
}
