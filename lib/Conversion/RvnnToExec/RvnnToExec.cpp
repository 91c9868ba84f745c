// rvnn + upstream (func, arith, math, tensor, linalg) -> rvnn_exec. One
// pattern per upstream family, one generic pattern for the rvnn ops the
// contract mirrors; see the pass description in Conversion/Passes.td.
#include "rvnn/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNLOWERTOEXEC
#include "rvnn/Conversion/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;
namespace ex = mlir::rvnn::exec;

namespace {

/// `rvnn.X` -> `rvnn_exec.X` when the contract mirrors X: operands,
/// attributes, result types and regions move over unchanged.
struct MirrorRvnnOp : public ConversionPattern {
  MirrorRvnnOp(MLIRContext *context)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<rvnn::RvnnDialect>(op->getDialect()))
      return failure();
    std::string name = (ex::ExecDialect::getDialectNamespace() + "." +
                        op->getName().stripDialect())
                           .str();
    if (!RegisteredOperationName::lookup(name, op->getContext()))
      return rewriter.notifyMatchFailure(op, "not mirrored by the contract");
    OperationState state(op->getLoc(), name, operands, op->getResultTypes(),
                         op->getAttrs());
    for (size_t i = 0; i < op->getNumRegions(); ++i)
      state.addRegion();
    Operation *mirrored = rewriter.create(state);
    for (auto [from, to] : llvm::zip(op->getRegions(), mirrored->getRegions()))
      rewriter.inlineRegionBefore(from, to, to.end());
    rewriter.replaceOp(op, mirrored->getResults());
    return success();
  }
};

struct LowerFunc : public OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (func.isExternal())
      return rewriter.notifyMatchFailure(func, "has no body");
    auto lowered = rewriter.create<ex::FuncOp>(
        func.getLoc(), func.getSymName(), func.getFunctionType(),
        func.getArgAttrsAttr(), func.getResAttrsAttr());
    rewriter.inlineRegionBefore(func.getBody(), lowered.getBody(),
                                lowered.getBody().end());
    rewriter.eraseOp(func);
    return success();
  }
};

/// Ops that become one contract op with the same operands and results.
template <typename From, typename To>
struct LowerOneToOne : public OpConversionPattern<From> {
  using OpConversionPattern<From>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<To>(op, op->getResultTypes(),
                                    adaptor.getOperands());
    return success();
  }
};

struct LowerConstant : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ex::ConstantOp>(op, op.getValue());
    return success();
  }
};

/// arith on integer scalars (shapes, step counters).
template <typename From, ex::IndexArithKind kind>
struct LowerIndexArith : public OpConversionPattern<From> {
  using OpConversionPattern<From>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<ShapedType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "not a scalar");
    rewriter.replaceOpWithNewOp<ex::IndexArithOp>(
        op, op.getType(), kind, adaptor.getLhs(), adaptor.getRhs());
    return success();
  }
};

/// arith / math on tensors (arith.ori on i1 tensors is logical or).
template <typename From, ex::ElementwiseFn fn>
struct LowerElementwise : public OpConversionPattern<From> {
  using OpConversionPattern<From>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "not a tensor");
    rewriter.replaceOpWithNewOp<ex::ElementwiseOp>(op, op.getType(), fn,
                                                   adaptor.getOperands());
    return success();
  }
};

struct LowerCompare : public OpConversionPattern<arith::CmpFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::CmpFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The contract's predicates are arith's, in arith's order.
    std::optional<ex::ComparePredicate> predicate =
        ex::symbolizeComparePredicate(
            arith::stringifyCmpFPredicate(op.getPredicate()));
    if (!predicate)
      return rewriter.notifyMatchFailure(op, "unknown predicate");
    rewriter.replaceOpWithNewOp<ex::CompareOp>(
        op, op.getType(), *predicate, adaptor.getLhs(), adaptor.getRhs());
    return success();
  }
};

struct LowerUIToFP : public OpConversionPattern<arith::UIToFPOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::UIToFPOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getIn().getType()).isInteger(1) ||
        !isa<RankedTensorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "only i1 tensors to float");
    rewriter.replaceOpWithNewOp<ex::ConvertOp>(op, op.getType(),
                                               adaptor.getIn());
    return success();
  }
};

struct LowerEmpty : public OpConversionPattern<tensor::EmptyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::EmptyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ex::AllocOp>(op, op.getType(),
                                             adaptor.getDynamicSizes());
    return success();
  }
};

struct LowerExtractSlice : public OpConversionPattern<tensor::ExtractSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::ExtractSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // A named copy: set_bits() ranges over the bit vector, which a
    // temporary would no longer hold by the loop's first step (ASan's
    // stack-use-after-scope).
    llvm::SmallBitVector droppedDims = op.getDroppedDims();
    SmallVector<int64_t> dropped;
    for (int dim : droppedDims.set_bits())
      dropped.push_back(dim);
    rewriter.replaceOpWithNewOp<ex::SliceOp>(
        op, op.getType(), adaptor.getSource(), adaptor.getOffsets(),
        adaptor.getSizes(), adaptor.getStrides(), op.getStaticOffsets(),
        op.getStaticSizes(), op.getStaticStrides(), dropped);
    return success();
  }
};

struct LowerConcat : public OpConversionPattern<tensor::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ex::ConcatOp>(op, op.getType(),
                                              adaptor.getInputs(), op.getDim());
    return success();
  }
};

struct LowerExpandShape : public OpConversionPattern<tensor::ExpandShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::ExpandShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ex::ReshapeOp>(
        op, op.getType(), adaptor.getSrc(), adaptor.getOutputShape());
    return success();
  }
};

/// A collapse's dynamic result size is the product of its group's source
/// sizes, computed with dim and index_arith.
struct LowerCollapseShape
    : public OpConversionPattern<tensor::CollapseShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::CollapseShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType sourceType = op.getSrcType();
    auto index = [&](int64_t value) {
      return rewriter.create<ex::ConstantOp>(loc, rewriter.getIndexAttr(value))
          .getResult();
    };
    SmallVector<Value> sizes;
    for (auto [dim, group] : llvm::enumerate(op.getReassociationIndices())) {
      if (!op.getType().isDynamicDim(dim))
        continue;
      int64_t staticProduct = 1;
      Value product;
      for (int64_t source : group) {
        if (!sourceType.isDynamicDim(source)) {
          staticProduct *= sourceType.getDimSize(source);
          continue;
        }
        Value size =
            rewriter.create<ex::DimOp>(loc, adaptor.getSrc(), index(source));
        product = product ? rewriter.create<ex::IndexArithOp>(
                                loc, ex::IndexArithKind::mul, product, size)
                          : size;
      }
      if (staticProduct != 1)
        product = rewriter.create<ex::IndexArithOp>(
            loc, ex::IndexArithKind::mul, product, index(staticProduct));
      sizes.push_back(product);
    }
    rewriter.replaceOpWithNewOp<ex::ReshapeOp>(op, op.getType(),
                                               adaptor.getSrc(), sizes);
    return success();
  }
};

struct LowerLinear : public OpConversionPattern<rvnn::LinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(rvnn::LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ex::GemmOp>(
        op, op.getType(), adaptor.getInput(), adaptor.getWeight(),
        adaptor.getBias(), /*accumulator=*/Value(), /*lhs_band=*/Value(),
        /*transpose_rhs=*/true);
    return success();
  }
};

/// linalg contractions in destination-passing style: init + lhs·rhs.
template <typename Contraction>
struct LowerContraction : public OpConversionPattern<Contraction> {
  using OpConversionPattern<Contraction>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Contraction op, typename Contraction::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not on tensors");
    rewriter.replaceOpWithNewOp<ex::GemmOp>(
        op, op->getResult(0).getType(), adaptor.getInputs()[0],
        adaptor.getInputs()[1], /*bias=*/Value(), adaptor.getOutputs()[0],
        /*lhs_band=*/Value(), /*transpose_rhs=*/false);
    return success();
  }
};

struct LowerTranspose : public OpConversionPattern<linalg::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(linalg::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not on tensors");
    rewriter.replaceOpWithNewOp<ex::TransposeOp>(op, op->getResult(0).getType(),
                                                 adaptor.getInput(),
                                                 op.getPermutation());
    return success();
  }
};

void populateLowerToExecPatterns(RewritePatternSet &patterns) {
  using K = ex::IndexArithKind;
  using F = ex::ElementwiseFn;
  MLIRContext *context = patterns.getContext();
  patterns.add<MirrorRvnnOp>(context);
  patterns
      .add<LowerFunc, LowerOneToOne<func::ReturnOp, ex::ReturnOp>,
           LowerConstant, LowerIndexArith<arith::AddIOp, K::add>,
           LowerIndexArith<arith::SubIOp, K::sub>,
           LowerIndexArith<arith::MulIOp, K::mul>,
           LowerIndexArith<arith::FloorDivSIOp, K::floordiv>,
           LowerIndexArith<arith::CeilDivSIOp, K::ceildiv>,
           LowerIndexArith<arith::DivSIOp, K::div>,
           LowerIndexArith<arith::RemSIOp, K::rem>,
           LowerIndexArith<arith::MaxSIOp, K::max>,
           LowerIndexArith<arith::MinSIOp, K::min>,
           LowerIndexArith<arith::OrIOp, K::bit_or>,
           LowerElementwise<arith::OrIOp, F::logical_or>,
           LowerElementwise<arith::NegFOp, F::neg>,
           LowerElementwise<math::ExpOp, F::exp>,
           LowerElementwise<math::LogOp, F::log>,
           LowerElementwise<math::TanhOp, F::tanh>,
           LowerElementwise<math::SqrtOp, F::sqrt>,
           LowerElementwise<math::AbsFOp, F::abs>,
           LowerElementwise<math::ErfOp, F::erf>,
           LowerElementwise<arith::AddFOp, F::add>,
           LowerElementwise<arith::SubFOp, F::sub>,
           LowerElementwise<arith::MulFOp, F::mul>,
           LowerElementwise<arith::DivFOp, F::div>,
           LowerElementwise<arith::MaximumFOp, F::max>,
           LowerElementwise<arith::MinimumFOp, F::min>, LowerCompare,
           LowerUIToFP, LowerOneToOne<tensor::DimOp, ex::DimOp>,
           LowerOneToOne<tensor::CastOp, ex::CastOp>, LowerEmpty,
           LowerExtractSlice, LowerConcat, LowerExpandShape, LowerCollapseShape,
           LowerLinear, LowerContraction<linalg::MatmulOp>,
           LowerContraction<linalg::BatchMatmulOp>,
           LowerContraction<linalg::MatvecOp>, LowerTranspose>(context);
}

struct LowerToExecPass
    : public rvnn::impl::RvnnLowerToExecBase<LowerToExecPass> {
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addLegalDialect<ex::ExecDialect>();
    target.addLegalOp<ModuleOp>();
    RewritePatternSet patterns(&getContext());
    populateLowerToExecPatterns(patterns);
    if (failed(
            applyFullConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
