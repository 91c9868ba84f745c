#ifndef RVNN_DIALECT_EXEC_IR_EXECDIALECT_H
#define RVNN_DIALECT_EXEC_IR_EXECDIALECT_H

#include "mlir/IR/Dialect.h"
#include "rvnn/Dialect/Rvnn/IR/RvnnDialect.h"

#include "rvnn/Dialect/Exec/IR/ExecDialect.h.inc"

#include "rvnn/Dialect/Exec/IR/ExecEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "rvnn/Dialect/Exec/IR/ExecAttrs.h.inc"

#endif // RVNN_DIALECT_EXEC_IR_EXECDIALECT_H
