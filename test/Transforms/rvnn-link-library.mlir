// rvnn-link-library fills a declared cell from the library and, since that
// cell calls other cells, adds and fills those too (transitively); library
// functions nobody calls are not copied.
// RUN: rvnn-opt %s --rvnn-link-library=path=%models/cells.mlir | FileCheck %s

// CHECK-LABEL: func.func private @faster_fasttrees_step(
// CHECK: call @step_inputs(
// CHECK: call @ordered_neurons_masked_update(
// CHECK-DAG: func.func private @step_inputs(%{{.*}}) -> (tensor<?x?xf32>, tensor<?x1xf32>) {
// CHECK-DAG: func.func private @ordered_neurons_masked_update(%{{.*}}) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
// CHECK-DAG: func.func private @ordered_neurons_cell(%{{.*}}) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
// CHECK-NOT: @grc_cell
// CHECK-NOT: @self_attention
func.func private @faster_fasttrees_step(tensor<?x?x?xf32>, tensor<?x?xf32>,
                                         index, tensor<?x?xf32>,
                                         tensor<?x?xf32>, tensor<?x?xf32>,
                                         tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>)
