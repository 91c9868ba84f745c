// Refines dynamic result dims from operand shapes. Cells are written fully
// dynamic and inlined into models with static hidden sizes; this pass
// recovers those sizes so later passes see static shapes.
#include "rvnn/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/TensorInferTypeOpInterfaceImpl.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNINFERSHAPES
#include "rvnn/Transforms/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

/// The most static type that both `a` and `b` describe; null when rank,
/// element type, encoding or a static dim disagree.
static RankedTensorType join(RankedTensorType a, RankedTensorType b) {
  if (a.getRank() != b.getRank() || a.getElementType() != b.getElementType() ||
      a.getEncoding() != b.getEncoding())
    return {};
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape())) {
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return {};
    dims.push_back(ShapedType::isDynamic(x) ? y : x);
  }
  return RankedTensorType::get(dims, a.getElementType(), a.getEncoding());
}

/// Elementwise upstream ops (arith.addf, math.tanh) and rvnn ops such as
/// rvnn.softmax: every operand and result must have the one same type.
static bool isSameType(Operation *op) {
  return op->hasTrait<OpTrait::SameOperandsAndResultType>();
}

/// Ops whose result types this pass recomputes. Region ops and terminators
/// are excluded: their types are tied to block arguments or to the parent op,
/// which must stay unchanged. A tensor.cast that loosens a type (as models
/// write at a shared cell's dynamic signature) is refined back to its source
/// type, so static shapes flow through inlined cells.
static bool isRefinable(Operation *op) {
  return op->isRegistered() && op->getNumRegions() == 0 &&
         op->getNumResults() > 0 && !op->hasTrait<OpTrait::IsTerminator>() &&
         (isSameType(op) || isa<tensor::CastOp>(op) ||
          isa<InferShapedTypeOpInterface, InferTypeOpInterface,
              ReifyRankedShapedTypeOpInterface>(op));
}

static SmallVector<OpFoldResult> outputShape(tensor::ExpandShapeOp op) {
  Builder b(op.getContext());
  return getMixedValues(op.getStaticOutputShape(), op.getOutputShape(), b);
}

/// tensor.expand_shape also keeps its result sizes as operands and a static
/// list: a dim this pass made static becomes a static size there too.
static void syncOutputShape(tensor::ExpandShapeOp op) {
  SmallVector<OpFoldResult> sizes = outputShape(op);
  Builder b(op.getContext());
  for (auto [size, dim] : llvm::zip(sizes, op.getResultType().getShape()))
    if (!ShapedType::isDynamic(dim))
      size = b.getIndexAttr(dim);
  SmallVector<Value> dynamicSizes;
  SmallVector<int64_t> staticSizes;
  dispatchIndexOpFoldResults(sizes, dynamicSizes, staticSizes);
  op.getOutputShapeMutable().assign(dynamicSizes);
  op.setStaticOutputShape(staticSizes);
}

namespace {
struct InferShapesPass
    : public rvnn::impl::RvnnInferShapesBase<InferShapesPass> {
  using RvnnInferShapesBase::RvnnInferShapesBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    RvnnInferShapesBase::getDependentDialects(registry);
    // collapse_shape/expand_shape implement ReifyRankedShapedTypeOpInterface
    // only through these external models.
    tensor::registerInferTypeOpInterfaceExternalModels(registry);
  }

  /// Type of each value before this pass refined it; values not in the map
  /// still have their original type.
  DenseMap<Value, Type> original;
  DenseSet<Operation *> visited;
  bool failedAny = false;
  /// Whether the last inferResults used InferShapedTypeOpInterface.
  bool shapedInferred = false;

  Type originalType(Value v) {
    Type type = original.lookup(v);
    return type ? type : v.getType();
  }

  void castUse(OpOperand &use, Type type) {
    OpBuilder b(use.getOwner());
    use.set(
        b.create<tensor::CastOp>(use.getOwner()->getLoc(), type, use.get()));
  }

  /// Result types refined from the operands' current types; null entries keep
  /// the current type. Fails only on a contradiction (reported on `op`).
  LogicalResult inferResults(Operation *op, SmallVectorImpl<Type> &types);
  void refine(Operation *op);
  void finishFunction(func::FuncOp func, ModuleOp module);

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != module)
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      visited.insert(op);
      if (isRefinable(op))
        refine(op);
    }
    module->walk([&](func::FuncOp func) { finishFunction(func, module); });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace

LogicalResult InferShapesPass::inferResults(Operation *op,
                                            SmallVectorImpl<Type> &types) {
  types.assign(op->getNumResults(), Type());
  shapedInferred = false;
  auto joinResult = [&](unsigned i,
                        RankedTensorType inferred) -> LogicalResult {
    auto current = dyn_cast<RankedTensorType>(op->getResult(i).getType());
    if (!current)
      return success();
    if (RankedTensorType joined = join(current, inferred)) {
      types[i] = joined;
      return success();
    }
    return op->emitOpError("rvnn-infer-shapes: result #")
           << i << " has type " << current << " but its operands imply "
           << inferred;
  };

  if (auto castOp = dyn_cast<tensor::CastOp>(op)) {
    auto source = dyn_cast<RankedTensorType>(castOp.getSource().getType());
    return source ? joinResult(0, source) : success();
  }

  // One type for all operands and results: the join of them all. Operands
  // less static than the join get a cast so the trait still holds.
  if (isSameType(op)) {
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    for (Type t : op->getOperandTypes())
      if (type && isa<RankedTensorType>(t))
        type = join(type, cast<RankedTensorType>(t));
      else
        type = {};
    if (!type) {
      if (llvm::all_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>))
        return op->emitOpError("rvnn-infer-shapes: operand types ")
               << op->getOperandTypes() << " conflict";
      return success(); // scalars or unranked tensors: nothing to refine
    }
    for (OpOperand &operand : op->getOpOperands())
      if (operand.get().getType() != type)
        castUse(operand, type);
    types.assign(op->getNumResults(), type);
    return success();
  }

  // Inference failing is not a contradiction: some ops implement the
  // interfaces only partially (for example, reification without inference).
  if (auto shaped = dyn_cast<InferShapedTypeOpInterface>(op)) {
    SmallVector<ShapedTypeComponents> components;
    if (succeeded(shaped.inferReturnTypeComponents(
            op->getContext(), std::nullopt, op->getOperands(),
            op->getAttrDictionary(), op->getPropertiesStorage(),
            op->getRegions(), components)) &&
        components.size() == op->getNumResults()) {
      shapedInferred = true;
      for (auto [i, c] : llvm::enumerate(components)) {
        auto current = dyn_cast<RankedTensorType>(op->getResult(i).getType());
        if (!current || !c.hasRank())
          continue;
        Type element =
            c.getElementType() ? c.getElementType() : current.getElementType();
        auto encoding =
            c.getAttribute() ? c.getAttribute() : current.getEncoding();
        if (failed(joinResult(
                i, RankedTensorType::get(c.getDims(), element, encoding))))
          return failure();
      }
      return success();
    }
  }

  if (auto inferable = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> inferred;
    if (succeeded(inferable.inferReturnTypes(
            op->getContext(), std::nullopt, op->getOperands(),
            op->getAttrDictionary(), op->getPropertiesStorage(),
            op->getRegions(), inferred)) &&
        inferred.size() == op->getNumResults()) {
      for (auto [i, t] : llvm::enumerate(inferred))
        if (auto ranked = dyn_cast<RankedTensorType>(t))
          if (failed(joinResult(i, ranked)))
            return failure();
      return success();
    }
  }

  // Its output sizes: upstream reifies them from the source's sizes, which
  // say nothing where the source's dims merge several of the result's.
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    auto dims = llvm::map_to_vector(outputShape(expand), [](OpFoldResult size) {
      return getConstantIntValue(size).value_or(ShapedType::kDynamic);
    });
    return joinResult(0, expand.getResultType().clone(dims));
  }

  if (isa<ReifyRankedShapedTypeOpInterface>(op)) {
    // Reification may build scratch IR (tensor.dim, affine.apply) right
    // before `op`; it is folded here to read constant sizes, then erased.
    Operation *before = op->getPrevNode();
    OpBuilder b(op);
    ReifiedRankedShapedTypeDims shapes;
    LogicalResult reified = reifyResultShapes(b, op, shapes);
    SmallPtrSet<Operation *, 8> scratch;
    for (Operation *it = op->getPrevNode(); it != before;
         it = it->getPrevNode())
      scratch.insert(it);
    auto staticSize = [&](OpFoldResult size) {
      Operation *def = nullptr;
      if (auto value = dyn_cast<Value>(size))
        def = value.getDefiningOp();
      SmallVector<OpFoldResult> folded;
      if (def && scratch.contains(def) && def->getNumResults() == 1 &&
          succeeded(def->fold(folded)) && folded.size() == 1)
        size = folded.front();
      return getConstantIntValue(size).value_or(ShapedType::kDynamic);
    };
    SmallVector<RankedTensorType> inferred(op->getNumResults());
    if (succeeded(reified) && shapes.size() == op->getNumResults()) {
      for (auto [i, sizes] : llvm::enumerate(shapes)) {
        auto current = dyn_cast<RankedTensorType>(op->getResult(i).getType());
        if (current && sizes.size() == size_t(current.getRank()))
          inferred[i] = current.clone(llvm::map_to_vector(sizes, staticSize));
      }
    }
    while (op->getPrevNode() != before)
      op->getPrevNode()->erase();
    for (auto [i, t] : llvm::enumerate(inferred))
      if (t && failed(joinResult(i, t)))
        return failure();
  }
  return success();
}

void InferShapesPass::refine(Operation *op) {
  SmallVector<Value> oldOperands(op->getOperands());
  SmallVector<Type> oldTypes(op->getResultTypes());
  SmallVector<Type> types;
  if (failed(inferResults(op, types))) {
    failedAny = true;
    return;
  }
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    if (type)
      result.setType(type);
  auto expand = dyn_cast<tensor::ExpandShapeOp>(op);
  SmallVector<Value> oldSizes;
  DenseI64ArrayAttr oldStaticSizes;
  if (expand) {
    oldSizes = llvm::to_vector(expand.getOutputShape());
    oldStaticSizes = expand.getStaticOutputShapeAttr();
    syncOutputShape(expand);
  }

  // Refined operands (or results) may still break a constraint the
  // interfaces do not express; check the op alone, quietly.
  std::string message;
  LogicalResult verified = success();
  {
    ScopedDiagnosticHandler quiet(op->getContext(), [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    verified = verify(op, /*verifyRecursively=*/false);
  }
  if (failed(verified)) {
    // Keep the IR valid and go on. For shape-inferring ops this usually means
    // the refined operand shapes contradict each other (a runtime error), so
    // say so; other ops may just require types the interfaces cannot express.
    if (shapedInferred)
      op->emitWarning("rvnn-infer-shapes: refined operand types ")
          << op->getOperandTypes() << " do not verify (" << message
          << "); keeping the original types";
    // Give the op back its original operand and result types.
    for (auto [operand, old] : llvm::zip(op->getOpOperands(), oldOperands)) {
      Operation *inserted =
          operand.get() != old ? operand.get().getDefiningOp() : nullptr;
      operand.set(old);
      if (inserted && inserted->use_empty())
        inserted->erase();
      if (old.getType() != originalType(old))
        castUse(operand, originalType(old));
    }
    for (auto [result, type] : llvm::zip(op->getResults(), oldTypes))
      result.setType(type);
    if (expand) {
      expand.getOutputShapeMutable().assign(oldSizes);
      expand.setStaticOutputShapeAttr(oldStaticSizes);
    }
    return;
  }

  // Users that will not be refined themselves get the old type back.
  for (auto [result, oldType] : llvm::zip(op->getResults(), oldTypes)) {
    if (result.getType() == oldType)
      continue;
    original.try_emplace(result, oldType);
    for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
      Operation *user = use.getOwner();
      if (auto castOp = dyn_cast<tensor::CastOp>(user);
          castOp &&
          tensor::CastOp::areCastCompatible(result.getType(), castOp.getType()))
        continue;
      if (isa<func::ReturnOp>(user))
        continue; // finishFunction decides
      if (isRefinable(user) && !visited.contains(user))
        continue;
      castUse(use, oldType);
    }
  }
}

void InferShapesPass::finishFunction(func::FuncOp func, ModuleOp module) {
  if (func.isExternal())
    return;
  SmallVector<func::ReturnOp> returns;
  for (Block &block : func.getBody())
    if (auto ret = dyn_cast<func::ReturnOp>(block.getTerminator()))
      returns.push_back(ret);
  // Callers would need updating too; keep the signature when there are any.
  bool updatable = SymbolTable::symbolKnownUseEmpty(func, module);
  SmallVector<Type> results(func.getResultTypes());
  for (auto [i, result] : llvm::enumerate(results)) {
    // The refined type if every return agrees on it, else the declared one.
    Type declared = result;
    if (updatable && !returns.empty())
      result = returns.front().getOperand(i).getType();
    for (func::ReturnOp ret : returns)
      if (ret.getOperand(i).getType() != result)
        result = declared;
    for (func::ReturnOp ret : returns)
      if (ret.getOperand(i).getType() != result)
        castUse(ret->getOpOperand(i), result);
  }
  func.setFunctionType(
      FunctionType::get(&getContext(), func.getArgumentTypes(), results));
}
