// RUN: rvnn-opt %s --rvnn-approximate-math | FileCheck %s

// f32 exp, tanh, erf and log become polynomials (arith + math.fma/floor/absf):
// no transcendental math op, hence no libm call, is left.
// CHECK-LABEL: func.func @f32_scalar
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.log
// CHECK: math.fma
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.log
// CHECK: return
func.func @f32_scalar(%x: f32) -> (f32, f32, f32, f32) {
  %e = math.exp %x : f32
  %t = math.tanh %x : f32
  %r = math.erf %x : f32
  %l = math.log %x : f32
  return %e, %t, %r, %l : f32, f32, f32, f32
}

// Inside a linalg.generic body on tensors, as kernels have them.
// CHECK-LABEL: func.func @f32_kernel
// CHECK: linalg.generic
// CHECK-NOT: math.tanh
// CHECK: linalg.yield
func.func @f32_kernel(%x: tensor<?xf32>, %out: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%out : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// f64 is left alone (lowered to libm later); exact ops are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.tanh %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f32
// CHECK: math.absf %{{.*}} : f32
func.func @untouched(%x: f64, %y: f32) -> (f64, f64, f32, f32) {
  %e = math.exp %x : f64
  %t = math.tanh %x : f64
  %s = math.sqrt %y : f32
  %a = math.absf %y : f32
  return %e, %t, %s, %a : f64, f64, f32, f32
}
