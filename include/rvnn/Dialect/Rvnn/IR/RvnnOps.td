// Every op group, for the generated dialect reference (docs/).
include "rvnn/Dialect/Rvnn/IR/RvnnNNOps.td"
include "rvnn/Dialect/Rvnn/IR/RvnnRecursionOps.td"
include "rvnn/Dialect/Rvnn/IR/RvnnAttentionOps.td"
include "rvnn/Dialect/Rvnn/IR/RvnnGatingOps.td"
include "rvnn/Dialect/Rvnn/IR/RvnnBeamOps.td"
include "rvnn/Dialect/Rvnn/IR/RvnnStructureOps.td"
