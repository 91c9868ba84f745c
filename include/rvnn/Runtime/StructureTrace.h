#ifndef RVNN_RUNTIME_STRUCTURETRACE_H
#define RVNN_RUNTIME_STRUCTURETRACE_H

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "rvnn/Dialect/Exec/ExecContract.h"
#include "rvnn/Runtime/Plan.h"

namespace rvnn::runtime {

/// One execution of an rvnn_exec.expose_structure op: the value a model
/// exposes as (part of) the structure it induces, with the op's attributes
/// (rvnn.expose_structure in the dialect reference says what each kind
/// means).
struct StructureRecord {
  contract::StructureKind kind;
  int64_t arity = 0;   ///< `balanced`: the reduction's arity
  int64_t factor = 1;  ///< `beam_parent`: parent beam = value / factor
  torch::Tensor value; ///< a detached copy on the CPU
  std::string where;   ///< the op's source location, for errors
};

/// The records of one forward pass, in execution order (one per loop
/// iteration for an op in a loop body).
using StructureTrace = std::vector<StructureRecord>;

/// Whether any function of `plan` has an rvnn_exec.expose_structure op, at
/// any depth.
bool exposesStructure(const Plan &plan);

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_STRUCTURETRACE_H
