// RUN: rvnn-opt %s -rvnn-exec-check-contract -split-input-file -verify-diagnostics | FileCheck %s

// A program of contract ops only passes unchanged.
// CHECK-LABEL: rvnn_exec.func @clean
// CHECK: rvnn_exec.elementwise <exp>
rvnn_exec.func @clean(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = rvnn_exec.elementwise <exp> %x : tensor<4xf32>
  rvnn_exec.return %e : tensor<4xf32>
}

// -----

// Every op outside the contract is named at its location.
rvnn_exec.func @leftovers(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'math.exp' is outside the execution contract (rvnn_exec)}}
  %e = math.exp %x : tensor<4xf32>
  // expected-error @+1 {{'rvnn.gelu' is outside the execution contract (rvnn_exec)}}
  %g = rvnn.gelu %e : tensor<4xf32>
  rvnn_exec.return %g : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' is outside the execution contract (rvnn_exec)}}
func.func @not_lowered() {
  // expected-error @+1 {{'func.return' is outside the execution contract (rvnn_exec)}}
  return
}
