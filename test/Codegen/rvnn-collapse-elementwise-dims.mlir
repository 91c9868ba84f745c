// RUN: rvnn-opt %s --rvnn-collapse-elementwise-dims -split-input-file | FileCheck %s

// An elementwise kernel of rank 3 on buffers: one flat dimension over
// collapsed views of its operands.
// CHECK-LABEL: func.func @rank3(
// CHECK-SAME: %[[X:.*]]: memref<?x?x128xf32>, %[[OUT:.*]]: memref<?x?x128xf32>)
// CHECK-DAG: %[[CX:.*]] = memref.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : memref<?x?x128xf32> into memref<?xf32>
// CHECK-DAG: %[[CO:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1, 2]] : memref<?x?x128xf32> into memref<?xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-SAME: ins(%[[CX]] : memref<?xf32>) outs(%[[CO]] : memref<?xf32>)
// CHECK: math.tanh
// CHECK: return
#id3 = affine_map<(i, j, k) -> (i, j, k)>
func.func @rank3(%x: memref<?x?x128xf32>, %out: memref<?x?x128xf32>) {
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<?x?x128xf32>) outs(%out : memref<?x?x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// A broadcast (non-identity map), a reduction, a body that reads its index
// and an op on tensors are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: collapse_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: linalg.index
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-SAME: tensor<?x8xf32>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @left_alone(%x: memref<?x8xf32>, %b: memref<?xf32>, %out: memref<?x8xf32>, %sum: memref<?xf32>,
                      %t: tensor<?x8xf32>) -> tensor<?x8xf32> {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<?x8xf32>, memref<?xf32>) outs(%out : memref<?x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x8xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%a: f32, %s: f32):
    %n = arith.addf %a, %s : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x8xf32>) outs(%out : memref<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %s = arith.addf %a, %f : f32
    linalg.yield %s : f32
  }
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x8xf32>) outs(%t : tensor<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
