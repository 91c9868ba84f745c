// RUN: rvnn-opt %s --rvnn-gpu-kernel-entry-points -split-input-file -verify-diagnostics | FileCheck %s

// Outlining passed the kernel's operands in the order the body first used
// them (y, then x, then out, collapsed views) plus a constant. The entry
// point takes @k's arguments in @k's order, recomputes the views and the
// constant, and the host code and the outlined module are gone.
// CHECK: module attributes {gpu.container_module} {
// CHECK-NOT: func.func
// CHECK-NOT: gpu.module @k_kernel
// CHECK-LABEL: gpu.module @rvnn_kernels {
// CHECK: gpu.func @rvnn_kernel_k(%[[X:.*]]: memref<?x128xf32>, %[[Y:.*]]: memref<?x128xf32>, %[[OUT:.*]]: memref<?x128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
// CHECK-DAG: %[[CY:.*]] = memref.collapse_shape %[[Y]] {{\[}}[0, 1]]
// CHECK-DAG: %[[CX:.*]] = memref.collapse_shape %[[X]] {{\[}}[0, 1]]
// CHECK-DAG: %[[CO:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1]]
// CHECK-DAG: %[[C2:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[A:.*]] = memref.load %[[CY]]
// CHECK: %[[B:.*]] = memref.load %[[CX]]
// CHECK: arith.mulf %[[B]], %[[C2]]
// CHECK: memref.store %{{.*}}, %[[CO]]
// CHECK: gpu.return
// CHECK-NOT: func.func
module attributes {gpu.container_module} {
  func.func @k(%x: memref<?x128xf32>, %y: memref<?x128xf32>, %out: memref<?x128xf32>) -> memref<?x128xf32> {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %two = arith.constant 2.0 : f32
    %cx = memref.collapse_shape %x [[0, 1]] : memref<?x128xf32> into memref<?xf32>
    %cy = memref.collapse_shape %y [[0, 1]] : memref<?x128xf32> into memref<?xf32>
    %co = memref.collapse_shape %out [[0, 1]] : memref<?x128xf32> into memref<?xf32>
    %c0 = arith.constant 0 : index
    %n = memref.dim %cx, %c0 : memref<?xf32>
    %blocks = arith.ceildivui %n, %c128 : index
    gpu.launch_func @k_kernel::@k_kernel blocks in (%blocks, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%cy : memref<?xf32>, %cx : memref<?xf32>, %two : f32, %co : memref<?xf32>)
    return %out : memref<?x128xf32>
  }
  gpu.module @k_kernel {
    gpu.func @k_kernel(%a: memref<?xf32>, %b: memref<?xf32>, %s: f32, %o: memref<?xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %i = gpu.thread_id x
      %va = memref.load %a[%i] : memref<?xf32>
      %vb = memref.load %b[%i] : memref<?xf32>
      %m = arith.mulf %vb, %s : f32
      %v = arith.addf %va, %m : f32
      memref.store %v, %o[%i] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// An argument the kernel does not read is still a parameter: the signature
// is the kernel function's, whatever the body uses.
// CHECK-LABEL: gpu.func @rvnn_kernel_unused(%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>) kernel
module attributes {gpu.container_module} {
  func.func @unused(%x: memref<?xf32>, %out: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @unused_kernel::@unused_kernel blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%out : memref<?xf32>)
    return
  }
  gpu.module @unused_kernel {
    gpu.func @unused_kernel(%o: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %o[%i] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// Host work (an allocation and a copy) would be lost: the runtime only
// launches the kernel.
module attributes {gpu.container_module} {
  // expected-error @+1 {{kernel 'copies' needs 'memref.alloc' on the host, which rvnn-cuda-v1 cannot express}}
  func.func @copies(%x: memref<?xf32>, %out: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %t = memref.alloc(%n) : memref<?xf32>
    memref.copy %x, %t : memref<?xf32> to memref<?xf32>
    return
  }
}

// -----

// The launch shape the ABI fixes: blocks of (128, 1, 1) threads.
module attributes {gpu.container_module} {
  // expected-error @+1 {{kernel 'shape' is not launched on (n, 1, 1) blocks of (128, 1, 1) threads}}
  func.func @shape(%out: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @shape_kernel::@shape_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%out : memref<?xf32>)
    return
  }
  gpu.module @shape_kernel {
    gpu.func @shape_kernel(%o: memref<?xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// A kernel that returns a new buffer is not destination-passing.
module attributes {gpu.container_module} {
  // expected-error @+1 {{kernel 'fresh' returns a buffer that is not one of its arguments}}
  func.func @fresh(%x: memref<4xf32>) -> memref<4xf32> {
    %t = memref.get_global @g : memref<4xf32>
    return %t : memref<4xf32>
  }
  memref.global "private" constant @g : memref<4xf32> = dense<0.0>
}
