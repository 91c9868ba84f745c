#include "rvnn/Registration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "rvnn/Codegen/Passes.h"
#include "rvnn/Conversion/Passes.h"
#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "rvnn/Dialect/Exec/Transforms/Passes.h"
#include "rvnn/Dialect/Rvnn/IR/RvnnDialect.h"
#include "rvnn/Transforms/Passes.h"
#include "rvnn/Transforms/Pipeline.h"

void rvnn::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::rvnn::RvnnDialect, mlir::rvnn::exec::ExecDialect,
                  mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  mlir::func::registerInlinerExtension(registry);
  mlir::rvnn::registerCodegenInterfaces(registry);
}

void rvnn::registerPasses() {
  mlir::registerTransformsPasses();
  mlir::rvnn::registerRvnnPasses();
  mlir::rvnn::registerRvnnConversionPasses();
  mlir::rvnn::exec::registerRvnnExecPasses();
  mlir::rvnn::registerCompilePipeline();
  mlir::rvnn::registerRvnnCodegenPasses();
  mlir::rvnn::registerLowerKernelsToLLVMPipeline();
  mlir::rvnn::registerLowerKernelsToNVVMPipelines();
}
