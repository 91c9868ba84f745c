// RUN: rvnn-opt %s --pass-pipeline='builtin.module(func.func(rvnn-fuse-kernel-rows))' -split-input-file | FileCheck %s

// Two stages over rows (a row sum, then x - mean written out) and a column
// sum (a gamma gradient): one loop over the rows, each stage on one row,
// the destination and the column sum carried.
// CHECK-LABEL: func.func @centre(
// CHECK-SAME: %[[X:.*]]: tensor<?x8xf32>, %[[OUT:.*]]: tensor<?x8xf32>, %[[COL:.*]]: tensor<8xf32>)
// CHECK: %[[COL0:.*]] = linalg.fill {{.*}} outs(%[[COL]] : tensor<8xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[I:.*]] = %c0{{.*}} to %[[N]] step %c1{{.*}} iter_args(%[[O:.*]] = %[[OUT]], %[[C:.*]] = %[[COL0]])
// CHECK-DAG: %[[OROW:.*]] = tensor.extract_slice %[[O]][%[[I]], 0] [1, 8] [1, 1] : tensor<?x8xf32> to tensor<1x8xf32>
// CHECK-DAG: %[[XROW:.*]] = tensor.extract_slice %[[X]][%[[I]], 0] [1, 8] [1, 1] : tensor<?x8xf32> to tensor<1x8xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1xf32>
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<1xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[XROW]] : tensor<1x8xf32>) outs(%[[Z]] : tensor<1xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[XROW]], %[[SUM]] : tensor<1x8xf32>, tensor<1xf32>) outs(%[[OROW]] : tensor<1x8xf32>)
// CHECK: %[[CN:.*]] = linalg.generic {{.*}} ins(%[[XROW]] : tensor<1x8xf32>) outs(%[[C]] : tensor<8xf32>)
// CHECK: %[[ON:.*]] = tensor.insert_slice %[[Y]] into %[[O]][%[[I]], 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<?x8xf32>
// CHECK: scf.yield %[[ON]], %[[CN]] : tensor<?x8xf32>, tensor<8xf32>
// CHECK: return %[[LOOP]]#0, %[[LOOP]]#1
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @centre(%x: tensor<?x8xf32>, %out: tensor<?x8xf32>, %col: tensor<8xf32>)
    -> (tensor<?x8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x8xf32>) outs(%z : tensor<?xf32>) {
  ^bb0(%a: f32, %s: f32):
    %t = arith.addf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<?x8xf32>, tensor<?xf32>) outs(%out : tensor<?x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %t = arith.subf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  %col0 = linalg.fill ins(%zero : f32) outs(%col : tensor<8xf32>) -> tensor<8xf32>
  %colsum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%col0 : tensor<8xf32>) {
  ^bb0(%a: f32, %s: f32):
    %t = arith.addf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %y, %colsum : tensor<?x8xf32>, tensor<8xf32>
}

// -----

// A row split into [16, 8] for a vectorised row sum keeps dim 0 alone: the
// reshape is of one row.
// CHECK-LABEL: func.func @split_row
// CHECK: scf.for
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [1, 16, 8] : tensor<1x128xf32> into tensor<1x16x8xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8xf32>)
// CHECK: tensor.insert_slice
#id3 = affine_map<(i, k, l) -> (i, k, l)>
#lanes = affine_map<(i, k, l) -> (i, l)>
#id2 = affine_map<(i, j) -> (i, j)>
#row2 = affine_map<(i, j) -> (i)>
func.func @split_row(%x: tensor<?x128xf32>, %out: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x128xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %split = tensor.expand_shape %x [[0], [1, 2]] output_shape [%n, 16, 8] : tensor<?x128xf32> into tensor<?x16x8xf32>
  %lanes = linalg.generic {indexing_maps = [#id3, #lanes], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%split : tensor<?x16x8xf32>) outs(%z : tensor<?x8xf32>) {
  ^bb0(%a: f32, %s: f32):
    %t = arith.addf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  %e2 = tensor.empty(%n) : tensor<?xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%lanes : tensor<?x8xf32>) outs(%z2 : tensor<?xf32>) {
  ^bb0(%a: f32, %s: f32):
    %t = arith.addf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<?x128xf32>, tensor<?xf32>) outs(%out : tensor<?x128xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %t = arith.mulf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

// One stage is one pass already: left alone.
// CHECK-LABEL: func.func @one_stage
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x8xf32>)
#id = affine_map<(i, j) -> (i, j)>
func.func @one_stage(%x: tensor<?x8xf32>, %out: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%out : tensor<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// A stage over rows that reads a column sum needs all rows summed first:
// left alone.
// CHECK-LABEL: func.func @reads_column_sum
// CHECK-NOT: scf.for
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @reads_column_sum(%x: tensor<?x8xf32>, %col: tensor<8xf32>, %out: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %colsum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%col : tensor<8xf32>) {
  ^bb0(%a: f32, %s: f32):
    %t = arith.addf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %colsum : tensor<?x8xf32>, tensor<8xf32>) outs(%out : tensor<?x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %t = arith.divf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// A stage that reads its row index, and a returned tensor with rows that
// is no destination argument: left alone.
// CHECK-LABEL: func.func @reads_index
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @fresh_result
// CHECK-NOT: scf.for
#id = affine_map<(i, j) -> (i, j)>
func.func @reads_index(%x: tensor<?x8xf32>, %out: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%out : tensor<?x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  %b = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%a : tensor<?x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %t = arith.addf %o, %f : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  return %b : tensor<?x8xf32>
}
func.func @fresh_result(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  return %b : tensor<?x8xf32>
}
