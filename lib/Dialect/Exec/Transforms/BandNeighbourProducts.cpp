// rvnn-exec-band-neighbour-products: batched products whose lhs is a
// neighbour matrix read only its band (rvnn_exec.neighbour_band).
#include "rvnn/Dialect/Exec/IR/ExecOps.h"
#include "rvnn/Dialect/Exec/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::rvnn::exec {
#define GEN_PASS_DEF_RVNNEXECBANDNEIGHBOURPRODUCTS
#include "rvnn/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::rvnn::exec

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// A gemm that reads `matrix` as its batched, untransposed lhs and has no
/// band yet.
bool takesBand(GemmOp gemm, Value matrix) {
  return gemm.getLhs() == matrix && !gemm.getLhsBand() &&
         !gemm.getTransposeRhs() &&
         cast<RankedTensorType>(gemm.getLhs().getType()).getRank() == 3 &&
         cast<RankedTensorType>(gemm.getRhs().getType()).getRank() == 3;
}

/// Gives the products of `retrieve`'s matrix its band.
void bandProducts(NeighbourRetrieveOp retrieve) {
  SmallVector<GemmOp> gemms;
  for (Operation *user : retrieve.getResult().getUsers())
    if (auto gemm = dyn_cast<GemmOp>(user);
        gemm && takesBand(gemm, retrieve.getResult()))
      gemms.push_back(gemm);
  if (gemms.empty())
    return;
  OpBuilder builder(retrieve.getContext());
  builder.setInsertionPointAfter(retrieve);
  auto existType = cast<RankedTensorType>(retrieve.getExist().getType());
  auto bandType = RankedTensorType::get(
      {existType.getDimSize(0), existType.getDimSize(1), 2},
      builder.getI64Type());
  Value band = builder.create<NeighbourBandOp>(
      retrieve.getLoc(), bandType, retrieve.getExist(), retrieve.getMask(),
      retrieve.getDirectionAttr());
  for (GemmOp gemm : gemms)
    gemm.getLhsBandMutable().assign(band);
}

struct BandNeighbourProductsPass
    : public rvnn::exec::impl::RvnnExecBandNeighbourProductsBase<
          BandNeighbourProductsPass> {
  void runOnOperation() override { getOperation().walk(bandProducts); }
};

} // namespace
