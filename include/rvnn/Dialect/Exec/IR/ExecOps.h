#ifndef RVNN_DIALECT_EXEC_IR_EXECOPS_H
#define RVNN_DIALECT_EXEC_IR_EXECOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"

#define GET_OP_CLASSES
#include "rvnn/Dialect/Exec/IR/ExecOps.h.inc"

#endif // RVNN_DIALECT_EXEC_IR_EXECOPS_H
