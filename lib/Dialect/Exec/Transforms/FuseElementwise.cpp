//===- FuseElementwise.cpp - Group elementwise chains into dispatches -----===//
//
// rvnn-exec-fuse-elementwise: within each block, fusable elementwise ops
// (ScalarRules.h) of one tensor type that feed each other form groups, with
// at most one row reduction of that type (a layer norm, whose gamma and beta
// become the kernel's row operands, or a softmax along the last dim); each
// group of two or more ops (or a lone gelu or layer norm) whose results are
// not needed before its last op becomes one rvnn_exec.dispatch at the last
// op's place.
//
//===----------------------------------------------------------------------===//

#include "ScalarRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"
#include "rvnn/Dialect/Exec/Transforms/Passes.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::rvnn::exec {
#define GEN_PASS_DEF_RVNNEXECFUSEELEMENTWISE
#include "rvnn/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::rvnn::exec

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// Members of a group, in block order.
using Group = SmallVector<Operation *>;

class BlockFuser {
public:
  BlockFuser(Block &block, bool loneKernels)
      : block(block), loneKernels(loneKernels) {
    unsigned next = 0;
    for (Operation &op : block)
      position[&op] = next++;
  }

  /// Fuses the valid groups of the block; appends the new dispatches.
  void run(SmallVectorImpl<DispatchOp> &created) {
    // A broadcast outside a kernel stays a view; one enters a kernel only
    // as the bias rvnn-exec-fuse-linear-epilogue moves there.
    Group fusable;
    for (Operation &op : block)
      if (getKernelMemberType(&op) && !isa<BroadcastLikeOp>(op))
        fusable.push_back(&op);

    SmallVector<Group> worklist = components(fusable);
    SmallVector<Group> accepted;
    // Cut invalid groups until every part is valid; parts only shrink.
    while (!worklist.empty()) {
      Group group = worklist.pop_back_val();
      if (group.size() < 2 && !worthAKernelAlone(group.front()))
        continue;
      std::optional<size_t> cut = secondRowReduction(group);
      if (!cut)
        cut = firstEarlyUse(group);
      if (!cut) {
        accepted.push_back(std::move(group));
        continue;
      }
      Group prefix(group.begin(), group.begin() + *cut);
      Group suffix(group.begin() + *cut, group.end());
      for (ArrayRef<Operation *> part : {ArrayRef(prefix), ArrayRef(suffix)})
        for (Group &component : components(part))
          worklist.push_back(std::move(component));
    }
    llvm::sort(accepted, [&](const Group &a, const Group &b) {
      return position[a.back()] < position[b.back()];
    });
    for (const Group &group : accepted)
      if (DispatchOp dispatch = fuse(group))
        created.push_back(dispatch);
  }

private:
  /// Whether `op` alone is worth a dispatch: with loneKernels, a gelu, whose
  /// generated kernel (a vectorised polynomial erf) runs forward and
  /// backward about 2.5x faster than ATen's CPU gelu (EBT-GRC's scorer,
  /// docs/passes.md), or a layer norm, whose generated row loop beats
  /// ATen's (bench/README.md, session 39); any other lone op is one ATen
  /// call either way.
  bool worthAKernelAlone(Operation *op) const {
    return loneKernels && isa<GeluOp, LayerNormOp>(op);
  }
  /// Splits `ops` (in block order) into the connected components of the
  /// producer-consumer relation between ops of the same tensor type.
  SmallVector<Group> components(ArrayRef<Operation *> ops) {
    llvm::SmallPtrSet<Operation *, 16> members(ops.begin(), ops.end());
    llvm::EquivalenceClasses<Operation *> classes;
    for (Operation *op : ops) {
      classes.insert(op);
      for (Value operand : op->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (producer && members.contains(producer) &&
            getKernelMemberType(producer) == getKernelMemberType(op))
          classes.unionSets(producer, op);
      }
    }
    SmallVector<Group> groups;
    DenseMap<Operation *, size_t> groupOfLeader;
    for (Operation *op : ops) {
      Operation *leader = classes.getLeaderValue(op);
      auto [it, inserted] = groupOfLeader.try_emplace(leader, groups.size());
      if (inserted)
        groups.emplace_back();
      groups[it->second].push_back(op);
    }
    return groups;
  }

  /// The index of the group's second row reduction, if any: a kernel holds
  /// at most one (the parts are cut before it).
  static std::optional<size_t> secondRowReduction(ArrayRef<Operation *> group) {
    bool seen = false;
    for (auto [index, op] : llvm::enumerate(group)) {
      if (!getFusableRowReductionType(op))
        continue;
      if (seen)
        return index;
      seen = true;
    }
    return std::nullopt;
  }

  /// One past the first member whose result is used outside the group
  /// before the group's last op (where the dispatch goes), if any: the cut
  /// point. Inputs need no check: a member's operands are defined before the
  /// member.
  std::optional<size_t> firstEarlyUse(ArrayRef<Operation *> group) {
    llvm::SmallPtrSet<Operation *, 16> members(group.begin(), group.end());
    unsigned end = position[group.back()];
    for (auto [index, op] : llvm::enumerate(group))
      for (Operation *user : op->getUsers()) {
        if (members.contains(user))
          continue;
        Operation *ancestor = block.findAncestorOpInBlock(*user);
        if (!ancestor || position[ancestor] < end)
          return index + 1;
      }
    return std::nullopt;
  }

  /// Replaces `group` by one dispatch (named later) at its last op.
  DispatchOp fuse(ArrayRef<Operation *> group) {
    llvm::SmallPtrSet<Operation *, 16> members(group.begin(), group.end());
    auto outside = [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    };
    llvm::SetVector<Value> inputs;
    SmallVector<Value> results;
    SmallVector<Location> locations;
    for (Operation *op : group) {
      for (Value operand : op->getOperands())
        if (!members.contains(operand.getDefiningOp()))
          inputs.insert(operand);
      Value result = op->getResult(0);
      if (llvm::any_of(result.getUses(), outside))
        results.push_back(result);
      locations.push_back(op->getLoc());
    }
    // A group nobody reads is dead code: leave it to the canonicalizer.
    if (results.empty())
      return {};

    OpBuilder builder(group.back());
    Location loc = builder.getFusedLoc(locations);
    auto dispatch = builder.create<DispatchOp>(
        loc, ValueRange(results).getTypes(), builder.getStringAttr(""),
        inputs.getArrayRef());
    SmallVector<Location> argLocations;
    for (Value input : inputs)
      argLocations.push_back(input.getLoc());
    Block *body = builder.createBlock(
        &dispatch.getBody(), {}, ValueRange(inputs.getArrayRef()).getTypes(),
        argLocations);
    IRMapping mapping;
    mapping.map(inputs.getArrayRef(), body->getArguments());
    for (Operation *op : group)
      builder.clone(*op, mapping);
    SmallVector<Value> yielded;
    for (Value result : results)
      yielded.push_back(mapping.lookup(result));
    builder.create<YieldOp>(loc, yielded);

    for (auto [result, replacement] :
         llvm::zip_equal(results, dispatch.getResults()))
      result.replaceUsesWithIf(replacement, outside);
    for (Operation *op : llvm::reverse(group))
      op->erase();
    return dispatch;
  }

  Block &block;
  const bool loneKernels;
  DenseMap<Operation *, unsigned> position;
};

bool isKernelsModule(Operation *op) {
  return isa<ModuleOp>(op) && op->hasAttr(ExecDialect::kKernelsAttrName);
}

struct FuseElementwisePass
    : public rvnn::exec::impl::RvnnExecFuseElementwiseBase<
          FuseElementwisePass> {
  using RvnnExecFuseElementwiseBase::RvnnExecFuseElementwiseBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Blocks of the program: not the kernel IR, not existing dispatches.
    SmallVector<Block *> blocks;
    llvm::StringSet<> takenNames;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != module && isKernelsModule(op))
        return WalkResult::skip();
      if (auto dispatch = dyn_cast<DispatchOp>(op)) {
        takenNames.insert(dispatch.getKernel());
        return WalkResult::skip();
      }
      for (Region &region : op->getRegions())
        for (Block &block : region)
          blocks.push_back(&block);
      return WalkResult::advance();
    });

    SmallVector<DispatchOp> created;
    for (Block *block : blocks)
      BlockFuser(*block, loneKernels).run(created);
    if (created.empty())
      return;

    // Name the new kernels in program order.
    llvm::SmallPtrSet<Operation *, 16> unnamed;
    for (DispatchOp dispatch : created)
      unnamed.insert(dispatch);
    unsigned counter = 0;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != module && isKernelsModule(op))
        return WalkResult::skip();
      auto dispatch = dyn_cast<DispatchOp>(op);
      if (!dispatch)
        return WalkResult::advance();
      if (unnamed.contains(op)) {
        auto function = op->getParentOfType<FunctionOpInterface>();
        std::string prefix =
            (function ? function.getName() : StringRef("kernel")).str() + "_k";
        std::string name;
        do
          name = prefix + std::to_string(counter++);
        while (takenNames.contains(name));
        takenNames.insert(name);
        dispatch.setKernel(name);
      }
      return WalkResult::skip();
    });
  }
};

} // namespace
