// RUN: rvnn-opt %s --rvnn-add-kernel-entry-points -split-input-file -verify-diagnostics | FileCheck %s

// Every defined _mlir_ciface_<name> gets rvnn_kernel_<name>(ptr): args[i] is
// the address of argument i's memref descriptor, passed on as is.
// The kernel's buffer pointers (the aligned one, second of each memref's
// pair) are noalias: the caller's destinations overlap no other argument.
// Its scalars and the C interface are as they were.
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64)
// CHECK-LABEL: llvm.func @_mlir_ciface_k(
// CHECK-NOT: noalias
// CHECK-LABEL: llvm.func @rvnn_kernel_k(
// CHECK-SAME: %[[ARGS:.*]]: !llvm.ptr)
// CHECK: %[[A0:.*]] = llvm.load %[[ARGS]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[A1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @_mlir_ciface_k(%[[A0]], %[[A1]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK: llvm.return
// Scalars are loaded from the address args[i] holds.
// CHECK-LABEL: llvm.func @rvnn_kernel_s(
// CHECK: %[[P:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[V:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK: llvm.call @_mlir_ciface_s(%[[V]])
// Declarations and functions without a C interface get nothing.
// CHECK-NOT: @rvnn_kernel_ext
// CHECK-NOT: @rvnn_kernel_plain
module {
  llvm.func @k(%a: !llvm.ptr, %a_aligned: !llvm.ptr, %a_offset: i64,
               %b: !llvm.ptr, %b_aligned: !llvm.ptr, %b_offset: i64) {
    llvm.return
  }
  llvm.func @_mlir_ciface_k(%a: !llvm.ptr, %b: !llvm.ptr) {
    %n = llvm.mlir.constant(0 : i64) : i64
    llvm.call @k(%a, %a, %n, %b, %b, %n) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> ()
    llvm.return
  }
  llvm.func @s(%x: f32) {
    llvm.return
  }
  llvm.func @_mlir_ciface_s(%x: f32) {
    llvm.call @s(%x) : (f32) -> ()
    llvm.return
  }
  llvm.func @_mlir_ciface_ext(!llvm.ptr)
  llvm.func @plain(%a: !llvm.ptr) {
    llvm.return
  }
}

// -----

// A kernel that still returns a buffer is not destination-passing.
module {
  // expected-error @+1 {{kernel 'r' returns a value that is not one of its destination arguments}}
  llvm.func @r(%a: !llvm.ptr) -> !llvm.ptr {
    llvm.return %a : !llvm.ptr
  }
  llvm.func @_mlir_ciface_r(%res: !llvm.ptr, %a: !llvm.ptr) {
    llvm.return
  }
}
