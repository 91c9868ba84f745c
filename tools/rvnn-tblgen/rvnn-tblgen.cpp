//===- rvnn-tblgen.cpp - rvnn's TableGen driver ---------------------------===//
//
// mlir-tblgen's driver with rvnn's generators linked in: every
// mlir::GenRegistration in this binary (e.g. -gen-exec-contract from
// ExecContractGen.cpp) is selectable on the command line.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tools/mlir-tblgen/MlirTblgenMain.h"

int main(int argc, char **argv) { return mlir::MlirTblgenMain(argc, argv); }
