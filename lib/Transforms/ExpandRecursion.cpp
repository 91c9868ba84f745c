// Expands bounded self-recursion with a compile-time-constant depth into
// straight-line calls of per-depth specialisations; see the pass description
// in Transforms/Passes.td.
#include "rvnn/Transforms/Passes.h"

#include "mlir/Analysis/CallGraph.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNEXPANDRECURSION
#include "rvnn/Transforms/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kDepthAttr = "rvnn.recursion_depth";

/// A self-recursive function and its depth argument.
struct Recursive {
  func::FuncOp func;
  unsigned depthArg;
};

/// A specialisation: function `of` at constant depth `depth`.
struct Specialised {
  func::FuncOp of;
  int64_t depth;
};

struct ExpandRecursionPass
    : public rvnn::impl::RvnnExpandRecursionBase<ExpandRecursionPass> {
  using RvnnExpandRecursionBase::RvnnExpandRecursionBase;

  LogicalResult initialize(MLIRContext *context) override {
    // The canonicalizer's patterns: they fold the depth test and take the
    // branch it selects in each specialisation.
    RewritePatternSet set(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(set);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(set, context);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override;

private:
  /// Finds the self-recursive functions; fails on mutual recursion and on
  /// recursion without a depth argument.
  LogicalResult findRecursive(ModuleOp module);
  /// The function `rec` at constant depth `depth` (created on first use).
  FailureOr<func::FuncOp> specialise(Recursive rec, int64_t depth);
  /// Points `call` (to `rec`) at its specialisation; `caller` is the
  /// specialisation the call sits in, if any.
  LogicalResult rewriteCall(func::CallOp call, Recursive rec,
                            Specialised *caller);

  FrozenRewritePatternSet patterns;
  SymbolTable *symbols = nullptr;
  llvm::DenseMap<Operation *, Recursive> recursive;
  llvm::DenseMap<std::pair<Operation *, int64_t>, func::FuncOp> specialised;
  llvm::DenseMap<Operation *, Specialised> specialisationOf;
};

LogicalResult ExpandRecursionPass::findRecursive(ModuleOp module) {
  CallGraph graph(module);
  bool ok = true;
  for (auto scc = llvm::scc_begin<const CallGraph *>(&graph); !scc.isAtEnd();
       ++scc) {
    if (!scc.hasCycle())
      continue;
    llvm::SmallVector<func::FuncOp> funcs;
    for (CallGraphNode *node : *scc)
      if (!node->isExternal())
        if (auto func = dyn_cast<func::FuncOp>(
                node->getCallableRegion()->getParentOp()))
          funcs.push_back(func);
    if (funcs.size() != 1) {
      for (func::FuncOp func : funcs)
        func.emitError("mutual recursion is not supported: @")
            << func.getSymName()
            << " is in a call cycle with other functions; write the "
               "recursion as one self-recursive function with a '"
            << kDepthAttr << "' argument";
      ok = false;
      continue;
    }
    func::FuncOp func = funcs.front();
    std::optional<unsigned> depthArg;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (func.getArgAttr(i, kDepthAttr)) {
        if (depthArg) {
          func.emitError("self-recursive function @")
              << func.getSymName() << " marks more than one argument '"
              << kDepthAttr << "'";
          ok = false;
        }
        depthArg = i;
      }
    if (!depthArg) {
      func.emitError("unbounded recursion: @")
          << func.getSymName() << " calls itself but has no argument marked '"
          << kDepthAttr
          << "' (an index that each recursive call decreases and that is 0 "
             "in the base case)";
      ok = false;
      continue;
    }
    if (!func.getArgument(*depthArg).getType().isIndex()) {
      func.emitError("the '")
          << kDepthAttr << "' argument of @" << func.getSymName()
          << " must be an index, not " << func.getArgument(*depthArg).getType();
      ok = false;
      continue;
    }
    recursive[func] = Recursive{func, *depthArg};
  }
  return success(ok);
}

FailureOr<func::FuncOp> ExpandRecursionPass::specialise(Recursive rec,
                                                        int64_t depth) {
  auto key = std::make_pair(rec.func.getOperation(), depth);
  if (auto it = specialised.find(key); it != specialised.end())
    return it->second;

  // The clone, renamed (the symbol table makes the name unique) and private.
  func::FuncOp clone = rec.func.clone();
  clone.setName((rec.func.getSymName() + "_depth" + Twine(depth)).str());
  clone.setPrivate();
  clone.removeArgAttr(rec.depthArg, kDepthAttr);
  symbols->insert(clone, rec.func->getIterator());
  specialised[key] = clone;
  specialisationOf[clone] = Specialised{rec.func, depth};

  // The depth becomes a constant and leaves the signature.
  Block &entry = clone.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  Value constant = builder.create<arith::ConstantIndexOp>(
      clone.getArgument(rec.depthArg).getLoc(), depth);
  clone.getArgument(rec.depthArg).replaceAllUsesWith(constant);
  clone.eraseArgument(rec.depthArg);

  // Fold what the constant decides: the base-case test, the branch taken,
  // the children's depths.
  GreedyRewriteConfig config;
  config.useTopDownTraversal = true;
  (void)applyPatternsAndFoldGreedily(clone, patterns, config);
  return clone;
}

LogicalResult ExpandRecursionPass::rewriteCall(func::CallOp call, Recursive rec,
                                               Specialised *caller) {
  Value depthValue = call.getOperand(rec.depthArg);
  StringRef name = rec.func.getSymName();
  bool selfCall = caller && caller->of == rec.func;
  llvm::APInt value;
  if (!matchPattern(depthValue, m_ConstantInt(&value))) {
    InFlightDiagnostic diag = call.emitError("recursion depth of the call to @")
                              << name << " is not a compile-time constant";
    if (selfCall)
      diag << " (in @" << name << " at depth " << caller->depth << ")";
    return diag;
  }
  int64_t depth = value.getSExtValue();
  if (depth < 0) {
    InFlightDiagnostic diag = call.emitError("recursion depth ")
                              << depth << " of the call to @" << name
                              << " is negative";
    if (selfCall)
      diag << ": @" << name
           << " at depth 0 still calls itself (no base case at depth 0)";
    return diag;
  }
  if (selfCall && depth >= caller->depth)
    return call.emitError("unbounded recursion: @")
           << name << " at depth " << caller->depth << " calls itself at depth "
           << depth << "; each recursive call must decrease the depth";
  if (depth > static_cast<int64_t>(maxDepth))
    return call.emitError("recursion depth ")
           << depth << " of the call to @" << name << " exceeds the limit "
           << static_cast<int64_t>(maxDepth) << " (option max-depth)";

  FailureOr<func::FuncOp> target = specialise(rec, depth);
  if (failed(target))
    return failure();
  llvm::SmallVector<Value> operands(call.getOperands());
  operands.erase(operands.begin() + rec.depthArg);
  OpBuilder builder(call);
  auto replacement =
      builder.create<func::CallOp>(call.getLoc(), *target, operands);
  call.replaceAllUsesWith(replacement.getResults());
  call.erase();
  return success();
}

void ExpandRecursionPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable table(module);
  symbols = &table;
  recursive.clear();
  specialised.clear();
  specialisationOf.clear();
  if (failed(findRecursive(module)))
    return signalPassFailure();
  if (recursive.empty())
    return;

  // Rewrite calls until none outside the recursive functions themselves is
  // left: each specialisation may add calls at smaller depths.
  while (true) {
    llvm::SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      auto callee = table.lookup<func::FuncOp>(call.getCallee());
      if (!callee || !recursive.count(callee))
        return;
      auto enclosing = call->getParentOfType<func::FuncOp>();
      if (enclosing && recursive.count(enclosing))
        return;
      calls.push_back(call);
    });
    if (calls.empty())
      break;
    for (func::CallOp call : calls) {
      Recursive rec = recursive.find(table.lookup(call.getCallee()))->second;
      Specialised *caller = nullptr;
      if (auto enclosing = call->getParentOfType<func::FuncOp>())
        if (auto it = specialisationOf.find(enclosing);
            it != specialisationOf.end())
          caller = &it->second;
      if (failed(rewriteCall(call, rec, caller)))
        return signalPassFailure();
    }
  }

  // The recursive originals are dead once no one else calls them.
  for (auto &entry : recursive) {
    func::FuncOp func = entry.second.func;
    if (!func.isPrivate())
      continue;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(func, module);
    bool usedOutside = !uses || llvm::any_of(*uses, [&](auto use) {
      return !func->isAncestor(use.getUser());
    });
    if (!usedOutside)
      table.erase(func);
  }
}

} // namespace
