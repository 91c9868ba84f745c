//===- Differentiate.cpp - Reverse mode for loop bodies -------------------===//
//
// rvnn-exec-differentiate: the body of every recurse and balanced_reduce is
// outlined into a function `@F` and differentiated in reverse mode into
// `@F_fwd` (the results, then the residuals the backward needs) and `@F_bwd`
// (residuals and result cotangents to operand cotangents); the body becomes
// one rvnn_exec.call of them, which the runtime records as one backward step
// per loop iteration. Straight-line code between loops (of a function, or of
// a body that holds loops) becomes calls the same way, one per run.
//
//===----------------------------------------------------------------------===//

#include "AdjointRules.h"
#include "Rematerialize.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"
#include "rvnn/Dialect/Exec/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::rvnn::exec {
#define GEN_PASS_DEF_RVNNEXECDIFFERENTIATE
#include "rvnn/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::rvnn::exec

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// The values that can carry a cotangent of the loss: float tensors on a
/// path from a parameter or from a value marked active.
class Activity {
public:
  void markActive(Value value) { mark(value); }
  bool isActive(Value value) const { return active.contains(value); }
  const llvm::DenseSet<Value> &values() const { return active; }

  /// Propagates forward through `region`, loops included, until stable.
  void propagate(Region &region) {
    bool changed = true;
    while (changed) {
      changed = false;
      region.walk<WalkOrder::PreOrder>([&](Operation *op) {
        changed |= visit(op);
        return isa<DispatchOp, VjpOp>(op) ? WalkResult::skip()
                                          : WalkResult::advance();
      });
    }
  }

private:
  bool mark(Value value) {
    return isDifferentiableType(value.getType()) && active.insert(value).second;
  }

  bool visit(Operation *op) {
    bool changed = false;
    if (isa<ParamGetOp>(op)) {
      changed |= mark(op->getResult(0));
    } else if (auto recurse = dyn_cast<RecurseOp>(op)) {
      // Block argument 0 is the step counter; state i follows.
      Block &body = recurse.getBody().front();
      Operation *yield = body.getTerminator();
      for (auto [i, init] : llvm::enumerate(recurse.getInits()))
        if (isActive(init) || isActive(yield->getOperand(i))) {
          changed |= mark(body.getArgument(i + 1));
          changed |= mark(recurse.getResult(i));
        }
    } else if (auto reduce = dyn_cast<BalancedReduceOp>(op)) {
      Block &body = reduce.getBody().front();
      for (auto [arg, operand] :
           llvm::zip(body.getArguments(), op->getOperands()))
        if (isActive(operand))
          changed |= mark(arg);
      if (isActive(op->getOperand(0)) ||
          isActive(body.getTerminator()->getOperand(0)))
        changed |= mark(op->getResult(0));
    } else if (auto chunk = dyn_cast<ChunkOp>(op)) {
      // The chunk mask reads only the mask: a mask stays inactive.
      if (isActive(chunk.getX()))
        changed |= mark(chunk.getChunks());
      if (isActive(chunk.getMask()))
        changed |= mark(chunk.getChunkMask());
    } else if (hasDifferentiableResults(op) &&
               llvm::any_of(op->getOpOperands(), [&](OpOperand &operand) {
                 return passesCotangent(operand) && isActive(operand.get());
               })) {
      for (Value result : op->getResults())
        changed |= mark(result);
    }
    return changed;
  }

  llvm::DenseSet<Value> active;
};

/// Why a run stays on the runtime's autograd (no op: nothing to do).
struct Refusal {
  /// The op at fault and why; empty when there was nothing to differentiate.
  std::string message;

  static Refusal at(Operation *op, StringRef reason) {
    return {("'" + op->getName().getStringRef() + "' " + reason).str()};
  }
};

/// Consecutive ops of one block that become one call: a loop body (its
/// results are what it yields) or a run of straight-line code of a function
/// (its results are the values read after it).
struct Run {
  Location loc;
  Block *block;
  SmallVector<Operation *> ops;
  /// The callee's leading arguments (a loop body's block arguments); the
  /// values the ops capture follow.
  SmallVector<Value> leadingInputs;
  SmallVector<Value> results;
  std::string name;
  /// What its backward recomputes instead of keeping.
  Recomputable recomputable = Recomputable::elementwise;
};

/// Differentiates one run of `parent`.
class RunDifferentiator {
public:
  RunDifferentiator(Run run, FuncOp parent, const Activity &outer,
                    SymbolTable &symbols)
      : run(std::move(run)), parent(parent), outer(outer), symbols(symbols) {}

  /// Replaces the run with a call of the derived functions, or leaves it
  /// unchanged and returns why.
  std::optional<Refusal> differentiate() {
    std::optional<Refusal> refusal = outline();
    if (!refusal)
      refusal = derive();
    if (refusal) {
      for (FuncOp func : {primal, forward, backward})
        if (func)
          symbols.erase(func);
      return refusal;
    }
    replaceRun();
    return std::nullopt;
  }

private:
  /// A new function named `name` placed after `after`, renamed if taken.
  FuncOp createFunction(const Twine &name, FunctionType type,
                        Operation *after) {
    OpBuilder builder(after->getContext());
    builder.setInsertionPointAfter(after);
    auto func = builder.create<FuncOp>(run.loc, name.str(), type, ArrayAttr(),
                                       ArrayAttr());
    symbols.insert(func);
    return func;
  }

  /// The values the run reads or hands on from outside it, in order of
  /// first use.
  llvm::SetVector<Value> capturedValues() {
    llvm::DenseSet<Operation *> members(run.ops.begin(), run.ops.end());
    llvm::SetVector<Value> captured;
    auto capture = [&](Value value) {
      Operation *def = value.getDefiningOp();
      if (!def)
        def = value.getParentBlock()->getParentOp();
      Operation *member = run.block->findAncestorOpInBlock(*def);
      if (!member || !members.contains(member))
        captured.insert(value);
    };
    for (Operation *op : run.ops)
      op->walk([&](Operation *inner) {
        llvm::for_each(inner->getOperands(), capture);
      });
    llvm::for_each(run.results, capture);
    return captured;
  }

  /// `@F`: the run over its leading inputs and the values it captures
  /// (constants are cloned in instead).
  std::optional<Refusal> outline() {
    for (Operation *op : run.ops)
      if (op->getNumRegions() && !isa<DispatchOp>(op))
        return Refusal::at(op, "holds a nested region");
    for (Value result : run.results)
      if (!isa<RankedTensorType>(result.getType()))
        return Refusal::at(result.getDefiningOp(),
                           "hands a scalar to the code after it");
    inputs = run.leadingInputs;
    SmallVector<Operation *> constants;
    for (Value value : capturedValues()) {
      if (llvm::is_contained(inputs, value))
        continue;
      if (auto constant = value.getDefiningOp<ConstantOp>())
        constants.push_back(constant);
      else
        inputs.push_back(value);
    }
    auto type =
        FunctionType::get(parent.getContext(), ValueRange(inputs).getTypes(),
                          ValueRange(run.results).getTypes());
    primal = createFunction(run.name, type, parent);
    Block *entry = primal.addEntryBlock();
    IRMapping mapping;
    mapping.map(inputs, entry->getArguments());
    OpBuilder builder = OpBuilder::atBlockEnd(entry);
    for (Operation *constant : constants)
      builder.clone(*constant, mapping);
    for (Operation *op : run.ops)
      builder.clone(*op, mapping);
    SmallVector<Value> results;
    for (Value value : run.results)
      results.push_back(mapping.lookup(value));
    builder.create<ReturnOp>(run.loc, results);
    return std::nullopt;
  }

  /// `@F_fwd` and `@F_bwd` from `@F`.
  std::optional<Refusal> derive() {
    forward = cast<FuncOp>(primal->clone());
    forward.setName((primal.getName() + "_fwd").str());
    OpBuilder builder(primal);
    builder.setInsertionPointAfter(primal);
    builder.insert(forward);
    symbols.insert(forward);
    splitDropouts();

    Block &fwdBlock = forward.getBody().front();
    Activity inner;
    for (auto [input, arg] : llvm::zip(inputs, fwdBlock.getArguments()))
      if (outer.isActive(input))
        inner.markActive(arg);
    inner.propagate(forward.getBody());

    auto fwdReturn = cast<ReturnOp>(fwdBlock.getTerminator());
    backward =
        createFunction(primal.getName() + "_bwd",
                       FunctionType::get(parent.getContext(),
                                         fwdReturn->getOperandTypes(), {}),
                       forward);
    Block *bwdBlock = backward.addEntryBlock();
    builder.setInsertionPointToEnd(bwdBlock);
    ReverseSweep sweep(builder, inner.values());
    for (auto [result, cotangent] :
         llvm::zip(fwdReturn->getOperands(), bwdBlock->getArguments()))
      sweep.accumulate(result, cotangent);
    SmallVector<Operation *> ops;
    for (Operation &op : fwdBlock.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      SmallVector<Value> cotangents;
      for (Value result : op->getResults())
        cotangents.push_back(sweep.adjointOf(result));
      if (llvm::all_of(cotangents, [](Value v) { return !v; }))
        continue;
      if (failed(sweep.differentiate(op, cotangents)))
        return Refusal::at(sweep.failedOp, sweep.failureReason);
    }

    SmallVector<Value> grads;
    for (auto [index, arg] : llvm::enumerate(fwdBlock.getArguments()))
      if (Value grad = sweep.adjointOf(arg)) {
        // A rule may give a less static type than the input's (a state that
        // grows by concatenation); the call hands on the input's.
        if (grad.getType() != arg.getType())
          grad = builder.create<CastOp>(run.loc, arg.getType(), grad);
        gradInputs.push_back(index);
        grads.push_back(grad);
      }
    if (grads.empty())
      return Refusal{};
    builder.create<ReturnOp>(run.loc, grads);
    // Parameters stay alive without the residuals.
    llvm::DenseSet<Value> parameters;
    for (auto [input, arg] : llvm::zip(inputs, fwdBlock.getArguments()))
      if (input.getDefiningOp<ParamGetOp>())
        parameters.insert(arg);
    sweep.passShapeWitnesses(parameters);
    rematerializeElementwise(backward, run.recomputable);
    redrawMasks(*bwdBlock);
    passResiduals(*bwdBlock, fwdReturn);
    return std::nullopt;
  }

  /// Dropout becomes its mask times the input, so that the backward reuses
  /// the mask the forward drew. The mask reads only a shape: it is drawn as
  /// early as that shape is known (looking through same-typed ops) without
  /// passing another draw, so that the op producing the input can fuse with
  /// the product.
  void splitDropouts() {
    forward.walk([](DropoutOp dropout) {
      Value input = dropout.getInput();
      Value shape = input;
      while (Operation *def = shape.getDefiningOp()) {
        if (!def->hasTrait<OpTrait::SameOperandsAndResultType>() ||
            def->getNumOperands() == 0 || drawsRandomNumbers(def))
          break;
        shape = def->getOperand(0);
      }
      OpBuilder builder(dropout);
      for (Operation *before = dropout->getPrevNode(); before;
           before = before->getPrevNode()) {
        if (drawsRandomNumbers(before) ||
            llvm::is_contained(before->getResults(), shape))
          break;
        builder.setInsertionPoint(before);
      }
      Location loc = dropout.getLoc();
      Value mask = builder.create<DropoutMaskOp>(
          loc, dropout.getType(), shape, dropout.getRateAttr(),
          dropout.getRescaleAttr(), dropout.getSharedDimsAttr());
      builder.setInsertionPoint(dropout);
      Value product = builder.create<ElementwiseOp>(
          loc, dropout.getType(), ElementwiseFn::mul, ValueRange{input, mask});
      dropout.replaceAllUsesWith(product);
      dropout.erase();
    });
  }

  /// A dropout mask the backward reads is drawn again there, from the
  /// stream position where the forward drew it and a witness of its shape:
  /// between the passes it costs an integer instead of a tensor the size of
  /// the masked value (under the recompute policy the forward's own rerun
  /// redraws it anyway).
  void redrawMasks(Block &bwdBlock) {
    llvm::SetVector<DropoutMaskOp> masks;
    backward.walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (auto mask = operand.getDefiningOp<DropoutMaskOp>())
          if (!backward->isAncestor(mask))
            masks.insert(mask);
    });
    OpBuilder redraws = OpBuilder::atBlockBegin(&bwdBlock);
    for (DropoutMaskOp mask : masks) {
      Location loc = mask.getLoc();
      OpBuilder builder(mask);
      Value position = builder.create<DrawPositionOp>(loc);
      Value shape = builder.create<ShapeWitnessOp>(loc, mask.getInput());
      Value redrawn = redraws.create<RedrawDropoutMaskOp>(
          loc, mask.getType(), shape, mask.getRateAttr(), mask.getRescaleAttr(),
          mask.getSharedDimsAttr(), position);
      mask.getResult().replaceUsesWithIf(redrawn, [&](OpOperand &use) {
        return backward->isProperAncestor(use.getOwner());
      });
    }
  }

  /// Turns the primal values the backward uses into residuals: results of
  /// `@F_fwd` after its own, arguments of `@F_bwd` before the cotangents.
  /// Constants are cloned instead.
  void passResiduals(Block &bwdBlock, ReturnOp fwdReturn) {
    llvm::SetVector<Value> residuals;
    backward.walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (!backward->isAncestor(operand.getParentRegion()->getParentOp()))
          residuals.insert(operand);
    });
    OpBuilder builder = OpBuilder::atBlockBegin(&bwdBlock);
    SmallVector<Value> passed;
    for (Value residual : residuals) {
      Value local;
      if (Operation *constant = residual.getDefiningOp<ConstantOp>()) {
        local = builder.clone(*constant)->getResult(0);
      } else {
        local = bwdBlock.insertArgument(passed.size(), residual.getType(),
                                        residual.getLoc());
        passed.push_back(residual);
      }
      residual.replaceUsesWithIf(local, [&](OpOperand &use) {
        return backward->isProperAncestor(use.getOwner());
      });
    }
    fwdReturn->insertOperands(fwdReturn->getNumOperands(), passed);
    forward.setType(FunctionType::get(parent.getContext(),
                                      forward.getArgumentTypes(),
                                      fwdReturn->getOperandTypes()));
    backward.setType(
        FunctionType::get(parent.getContext(), bwdBlock.getArgumentTypes(),
                          bwdBlock.getTerminator()->getOperandTypes()));
  }

  /// The run becomes one call; what read its results reads the call's.
  void replaceRun() {
    OpBuilder builder(run.ops.back()->getContext());
    builder.setInsertionPointAfter(run.ops.back());
    auto call = builder.create<CallOp>(
        run.loc, ValueRange(run.results).getTypes(), primal.getName(),
        forward.getName(), backward.getName(), gradInputs, inputs);
    llvm::DenseSet<Operation *> members(run.ops.begin(), run.ops.end());
    for (auto [old, replacement] : llvm::zip(run.results, call.getResults()))
      old.replaceUsesWithIf(replacement, [&](OpOperand &use) {
        Operation *user = run.block->findAncestorOpInBlock(*use.getOwner());
        return user && user != call && !members.contains(user);
      });
    for (Operation *op : llvm::reverse(run.ops))
      op->erase();
  }

  Run run;
  FuncOp parent;
  const Activity &outer;
  SymbolTable &symbols;
  SmallVector<Value> inputs;
  SmallVector<int64_t> gradInputs;
  FuncOp primal, forward, backward;
};

/// The body of `loop`, a run of its own.
Run loopBody(Operation *loop, FuncOp func) {
  Block &body = loop->getRegion(0).front();
  Run run{loop->getLoc(), &body, {}, {}, {}, (func.getName() + "_body").str()};
  for (Operation &op : body.without_terminator())
    run.ops.push_back(&op);
  llvm::append_range(run.leadingInputs, body.getArguments());
  llvm::append_range(run.results, body.getTerminator()->getOperands());
  if (isa<BalancedReduceOp>(loop))
    run.recomputable = Recomputable::arithmetic;
  return run;
}

/// Parameter reads, constants and the sizes computed from the function's
/// arguments alone move to the start of `block`, in order: a parameter must
/// be read outside any call for the call's backward to reach it, and a size
/// read after a run must not be computed inside it (a call hands on tensors
/// only). Returns the first op after them.
Operation *hoistLeaves(Block &block) {
  // Parameter reads in loop bodies too: every run then reads parameters
  // through its operands.
  SmallVector<ParamGetOp> nested;
  block.walk([&](ParamGetOp get) {
    if (get->getBlock() != &block)
      nested.push_back(get);
  });
  for (ParamGetOp get : nested)
    get->moveBefore(&block, block.begin());
  llvm::DenseSet<Value> available(block.args_begin(), block.args_end());
  SmallVector<Operation *> leaves;
  for (Operation &op : block) {
    bool leaf = isa<ParamGetOp, ConstantOp>(op) ||
                (isa<DimOp, IndexArithOp>(op) &&
                 llvm::all_of(op.getOperands(), [&](Value operand) {
                   return available.contains(operand);
                 }));
    if (!leaf)
      continue;
    leaves.push_back(&op);
    available.insert(op.result_begin(), op.result_end());
  }
  Operation *next = &block.front();
  for (Operation *leaf : leaves) {
    if (leaf == next) {
      next = leaf->getNextNode();
      continue;
    }
    leaf->moveBefore(next);
  }
  return next;
}

/// Whether `op` computes sizes: pure, with index results only.
bool computesSizes(Operation *op) {
  return op->getNumRegions() == 0 && isPure(op) &&
         llvm::all_of(op->getResultTypes(),
                      [](Type type) { return isa<IndexType>(type); });
}

/// A call hands on tensors only, so the sizes that the code after `run`
/// reads and the run computes are computed again right after the run (from
/// the run's tensors) for those readers; the run then keeps them only where
/// it reads them itself.
void recomputeSizesAfter(Run &run) {
  Block &block = *run.block;
  llvm::DenseSet<Operation *> members(run.ops.begin(), run.ops.end());
  auto afterRun = [&](Operation *user) {
    return !members.contains(block.findAncestorOpInBlock(*user));
  };
  // The size ops the code after the run reads, and the ones they read, last
  // first.
  llvm::SetVector<Operation *> wanted;
  for (Operation *op : llvm::reverse(run.ops))
    if (computesSizes(op) && llvm::any_of(op->getUsers(), [&](Operation *user) {
          return afterRun(user) || wanted.contains(user);
        }))
      wanted.insert(op);
  if (wanted.empty())
    return;
  OpBuilder builder(run.ops.back()->getContext());
  builder.setInsertionPointAfter(run.ops.back());
  IRMapping recomputed;
  for (Operation *op : llvm::reverse(wanted)) {
    Operation *copy = builder.clone(*op, recomputed);
    op->replaceUsesWithIf(copy->getResults(), [&](OpOperand &use) {
      return afterRun(use.getOwner());
    });
  }
  for (Operation *op : wanted)
    if (op->use_empty()) {
      llvm::erase(run.ops, op);
      op->erase();
    }
}

/// Whether `op` is a loop the pass differentiates body by body.
bool isLoop(Operation *op) { return isa<RecurseOp, BalancedReduceOp>(op); }

/// The maximal runs of straight-line code of `block` (a function's body or a
/// loop body holding loops) from `start` on, between its loops, each with the
/// values read after it (its terminator included) as results and named
/// `name`.
SmallVector<Run> straightLineRuns(Block &block, Operation *start, Location loc,
                                  StringRef name) {
  SmallVector<Run> runs;
  auto startRun = [&] {
    runs.push_back(Run{loc, &block, {}, {}, {}, name.str()});
  };
  startRun();
  for (Operation &op : llvm::make_range(Block::iterator(start), block.end())) {
    if (op.hasTrait<OpTrait::IsTerminator>() || isLoop(&op)) {
      if (!runs.back().ops.empty())
        startRun();
      continue;
    }
    if (runs.back().ops.empty())
      runs.back().loc = op.getLoc();
    runs.back().ops.push_back(&op);
  }
  runs.pop_back();
  for (Run &run : runs)
    recomputeSizesAfter(run);
  llvm::erase_if(runs, [](const Run &run) { return run.ops.empty(); });
  for (Run &run : runs) {
    llvm::DenseSet<Operation *> members(run.ops.begin(), run.ops.end());
    for (Operation *op : run.ops)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !members.contains(block.findAncestorOpInBlock(*user));
            }))
          run.results.push_back(result);
  }
  return runs;
}

struct RvnnExecDifferentiate
    : public mlir::rvnn::exec::impl::RvnnExecDifferentiateBase<
          RvnnExecDifferentiate> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<FuncOp> functions(module.getOps<FuncOp>());
    for (FuncOp func : functions) {
      Block &entry = func.getBody().front();
      Operation *start = hoistLeaves(entry);
      Activity activity;
      activity.propagate(func.getBody());
      // Inner loops first: an outer body then holds their calls.
      SmallVector<Operation *> loops;
      func.walk([&](Operation *op) {
        if (isLoop(op))
          loops.push_back(op);
      });
      for (Operation *loop : loops) {
        Block &body = loop->getRegion(0).front();
        bool holdsLoop =
            llvm::any_of(body, [](Operation &op) { return isLoop(&op); });
        if (holdsLoop)
          differentiateRuns(body, &body.front(), loop->getLoc(),
                            (func.getName() + "_body_part").str(), func,
                            activity, symbols);
        else
          differentiate(loopBody(loop, func), loop, func, activity, symbols);
      }
      differentiateRuns(entry, start, func.getLoc(),
                        (func.getName() + "_part").str(), func, activity,
                        symbols);
    }
  }

  /// Differentiates each straight-line run of `block` from `start` on.
  void differentiateRuns(Block &block, Operation *start, Location loc,
                         StringRef name, FuncOp func, const Activity &activity,
                         SymbolTable &symbols) {
    // Last first: a run's inputs are still the values the analysis saw.
    SmallVector<Run> runs = straightLineRuns(block, start, loc, name);
    for (Run &run : llvm::reverse(runs)) {
      Operation *first = run.ops.front();
      differentiate(std::move(run), first, func, activity, symbols);
    }
  }

  /// Differentiates `run`, or remarks at `anchor` why it stays on the
  /// runtime's autograd.
  void differentiate(Run run, Operation *anchor, FuncOp func,
                     const Activity &activity, SymbolTable &symbols) {
    std::optional<Refusal> refusal =
        RunDifferentiator(std::move(run), func, activity, symbols)
            .differentiate();
    if (!refusal) {
      ++numDifferentiated;
      return;
    }
    if (refusal->message.empty())
      return;
    ++numKept;
    anchor->emitRemark("stays on ATen autograd: ") << refusal->message;
  }
};

} // namespace
