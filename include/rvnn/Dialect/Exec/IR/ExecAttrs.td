#ifndef RVNN_EXEC_ATTRS_TD
#define RVNN_EXEC_ATTRS_TD

include "rvnn/Dialect/Exec/IR/ExecDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Exec_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::mlir::rvnn::exec";
  let genSpecializedAttr = 0;
}

class Exec_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Exec_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def Exec_IndexArithKind : Exec_I32Enum<"IndexArithKind",
    "integer arithmetic on scalars (shapes, step counters)", [
  I32EnumAttrCase<"add", 0>,
  I32EnumAttrCase<"sub", 1>,
  I32EnumAttrCase<"mul", 2>,
  I32EnumAttrCase<"floordiv", 3>,
  I32EnumAttrCase<"ceildiv", 4>,
  I32EnumAttrCase<"div", 5>,
  I32EnumAttrCase<"rem", 6>,
  I32EnumAttrCase<"max", 7>,
  I32EnumAttrCase<"min", 8>,
  I32EnumAttrCase<"bit_or", 9, "or">,
]>;
def Exec_IndexArithKindAttr : Exec_EnumAttr<Exec_IndexArithKind, "index_arith">;

// Arity 1: neg .. erf; arity 2: add .. or. `or` is logical on i1 tensors.
def Exec_ElementwiseFn : Exec_I32Enum<"ElementwiseFn",
    "elementwise function of same-shaped tensors", [
  I32EnumAttrCase<"neg", 0>,
  I32EnumAttrCase<"exp", 1>,
  I32EnumAttrCase<"log", 2>,
  I32EnumAttrCase<"tanh", 3>,
  I32EnumAttrCase<"sqrt", 4>,
  I32EnumAttrCase<"abs", 5>,
  I32EnumAttrCase<"erf", 6>,
  I32EnumAttrCase<"add", 7>,
  I32EnumAttrCase<"sub", 8>,
  I32EnumAttrCase<"mul", 9>,
  I32EnumAttrCase<"div", 10>,
  I32EnumAttrCase<"max", 11>,
  I32EnumAttrCase<"min", 12>,
  I32EnumAttrCase<"logical_or", 13, "or">,
]>;
def Exec_ElementwiseFnAttr : Exec_EnumAttr<Exec_ElementwiseFn, "fn">;

// IEEE comparisons: `o*` are false and `u*` true when either side is NaN.
def Exec_ComparePredicate : Exec_I32Enum<"ComparePredicate",
    "floating-point comparison", [
  I32EnumAttrCase<"always_false", 0, "false">,
  I32EnumAttrCase<"oeq", 1>,
  I32EnumAttrCase<"ogt", 2>,
  I32EnumAttrCase<"oge", 3>,
  I32EnumAttrCase<"olt", 4>,
  I32EnumAttrCase<"ole", 5>,
  I32EnumAttrCase<"one", 6>,
  I32EnumAttrCase<"ord", 7>,
  I32EnumAttrCase<"ueq", 8>,
  I32EnumAttrCase<"ugt", 9>,
  I32EnumAttrCase<"uge", 10>,
  I32EnumAttrCase<"ult", 11>,
  I32EnumAttrCase<"ule", 12>,
  I32EnumAttrCase<"une", 13>,
  I32EnumAttrCase<"uno", 14>,
  I32EnumAttrCase<"always_true", 15, "true">,
]>;
def Exec_ComparePredicateAttr
    : Exec_EnumAttr<Exec_ComparePredicate, "predicate">;

#endif // RVNN_EXEC_ATTRS_TD
