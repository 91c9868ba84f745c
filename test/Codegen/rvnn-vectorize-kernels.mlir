// RUN: rvnn-opt %s --split-input-file --rvnn-vectorize-kernels | FileCheck %s

// An elementwise kernel over rows of 128: a loop over the rows and one over
// chunks of 16; a row operand [128] is read a chunk at a time, a per-row
// scalar ([?, 1]) once and broadcast.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}}
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %[[C128]] step %[[C16]]
// CHECK: %[[X:.*]] = vector.load %{{.*}} : memref<1x16xf32, strided<[?, 1], offset: ?>>, vector<16xf32>
// CHECK: %[[B:.*]] = vector.load %{{.*}} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: %[[S:.*]] = memref.load
// CHECK: %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<16xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[B]] : vector<16xf32>
// CHECK: %[[E:.*]] = math.exp %[[SUM]] : vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[E]], %[[SV]] : vector<16xf32>
// CHECK: vector.store %[[P]], %{{.*}} : memref<1x16xf32, strided<[?, 1], offset: ?>>, vector<16xf32>
// CHECK-NOT: linalg.generic
func.func @elementwise(%x: memref<?x128xf32, strided<[?, 1], offset: ?>>,
                       %b: memref<128xf32, strided<[1], offset: ?>>,
                       %m: memref<?x1xf32, strided<[?, 1], offset: ?>>,
                       %y: memref<?x128xf32, strided<[?, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, 0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %m : memref<?x128xf32, strided<[?, 1], offset: ?>>,
                       memref<128xf32, strided<[1], offset: ?>>,
                       memref<?x1xf32, strided<[?, 1], offset: ?>>)
      outs(%y : memref<?x128xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%a: f32, %c: f32, %s: f32, %o: f32):
    %0 = arith.addf %a, %c : f32
    %1 = math.exp %0 : f32
    %2 = arith.mulf %1, %s : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// A row fold split into lanes ([rows, D / 8, 8] -> [rows, 8]): the folded
// dim is a loop, in order, and each step adds a vector of 8 lanes (no
// gather, no transpose, no multi-reduction left).
// CHECK-LABEL: func.func @split_fold
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C16]] step %{{.*}}
// CHECK: %[[X:.*]] = vector.load %{{.*}} : memref<1x1x8xf32, strided<[128, 8, 1], offset: ?>>, vector<8xf32>
// CHECK: %[[ACC:.*]] = vector.load %[[OUT:.*]][{{.*}}] : memref<1x8xf32, strided<[8, 1], offset: ?>>, vector<8xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[ACC]] : vector<8xf32>
// CHECK: vector.store %[[SUM]], %[[OUT]]
// CHECK-NOT: vector.transpose
// CHECK-NOT: vector.multi_reduction
// CHECK-NOT: vector.gather
func.func @split_fold(%x: memref<?x16x8xf32>, %acc: memref<?x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d2)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<?x16x8xf32>) outs(%acc : memref<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %o, %a : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// The fold of the lanes (a reduction over the innermost dim) adds them to
// the running value one after another, lane 0 first: the scalar loop's
// order, so the same bits.
// CHECK-LABEL: func.func @lane_fold
// CHECK: scf.for
// CHECK: %[[LANES:.*]] = vector.transpose %{{.*}}, [1, 0] : vector<1x8xf32> to vector<8x1xf32>
// CHECK: %[[L0:.*]] = vector.extract %[[LANES]][0]
// CHECK: %[[S0:.*]] = arith.addf %[[L0]], %{{.*}} : vector<1xf32>
// CHECK: %[[L1:.*]] = vector.extract %[[LANES]][1]
// CHECK: %[[S1:.*]] = arith.addf %[[L1]], %[[S0]] : vector<1xf32>
// CHECK-COUNT-6: arith.addf
// CHECK-NOT: arith.addf
// CHECK: memref.store
func.func @lane_fold(%x: memref<?x8xf32>, %acc: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x8xf32>) outs(%acc : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %o, %a : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Left to the scalar loops: an innermost extent that is not a multiple of
// 8, a dynamic one, and f64 (whose math becomes libm calls).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : memref<?x100xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : memref<?x?xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : memref<?x128xf64>)
// CHECK-NOT: vector.
func.func @left_alone(%x: memref<?x100xf32>, %y: memref<?x100xf32>,
                      %d: memref<?x?xf32>, %e: memref<?x?xf32>,
                      %f: memref<?x128xf64>, %g: memref<?x128xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x100xf32>) outs(%y : memref<?x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%d : memref<?x?xf32>) outs(%e : memref<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%f : memref<?x128xf64>) outs(%g : memref<?x128xf64>) {
  ^bb0(%a: f64, %o: f64):
    %0 = math.exp %a : f64
    linalg.yield %0 : f64
  }
  return
}
