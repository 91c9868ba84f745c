#ifndef RVNN_ATTRS_TD
#define RVNN_ATTRS_TD

include "rvnn/Dialect/Rvnn/IR/RvnnDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Rvnn_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::mlir::rvnn";
  let genSpecializedAttr = 0;
}

class Rvnn_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Rvnn_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def Rvnn_InitKind : Rvnn_I32Enum<"InitKind", "parameter initialiser", [
  I32EnumAttrCase<"zeros", 0>,
  I32EnumAttrCase<"ones", 1>,
  I32EnumAttrCase<"constant", 2>,
  I32EnumAttrCase<"normal", 3>,
  I32EnumAttrCase<"uniform", 4>,
  I32EnumAttrCase<"xavier_uniform", 5>,
]>;
def Rvnn_InitKindAttr : Rvnn_EnumAttr<Rvnn_InitKind, "init">;

def Rvnn_HaltingPolicy : Rvnn_I32Enum<"HaltingPolicy", "recursion halting policy", [
  I32EnumAttrCase<"none", 0>,
  I32EnumAttrCase<"fixed", 1>,
  I32EnumAttrCase<"per_sample", 2>,
]>;
def Rvnn_HaltingPolicyAttr : Rvnn_EnumAttr<Rvnn_HaltingPolicy, "halting">;

def Rvnn_PoolKind : Rvnn_I32Enum<"PoolKind", "masked sequence pooling", [
  I32EnumAttrCase<"first", 0>,
  I32EnumAttrCase<"last", 1>,
  I32EnumAttrCase<"mean", 2>,
  I32EnumAttrCase<"max", 3>,
]>;
def Rvnn_PoolKindAttr : Rvnn_EnumAttr<Rvnn_PoolKind, "pool">;

def Rvnn_Direction : Rvnn_I32Enum<"Direction", "neighbour direction", [
  I32EnumAttrCase<"left", 0>,
  I32EnumAttrCase<"right", 1>,
]>;
def Rvnn_DirectionAttr : Rvnn_EnumAttr<Rvnn_Direction, "direction">;

def Rvnn_AlignMode : Rvnn_I32Enum<"AlignMode", "beam alignment sampling", [
  I32EnumAttrCase<"sample", 0>,
  I32EnumAttrCase<"uniform", 1>,
]>;
def Rvnn_AlignModeAttr : Rvnn_EnumAttr<Rvnn_AlignMode, "align">;

// What a value marked by rvnn.expose_structure says about the induced tree
// (the op's description defines each kind's shape and meaning).
def Rvnn_StructureKind : Rvnn_I32Enum<"StructureKind",
    "kind of an exposed structure value", [
  I32EnumAttrCase<"balanced", 0>,
  I32EnumAttrCase<"merge_selection", 1>,
  I32EnumAttrCase<"beam_parent", 2>,
  I32EnumAttrCase<"composition", 3>,
  I32EnumAttrCase<"existence", 4>,
]>;
def Rvnn_StructureKindAttr : Rvnn_EnumAttr<Rvnn_StructureKind, "structure">;

#endif // RVNN_ATTRS_TD
