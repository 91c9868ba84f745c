// A compiled module: the program in rvnn_exec and, beside it, the kernel IR
// of its dispatches (forward and backward) in a kernels module; f32 only, so
// its CUDA code needs no libdevice wherever it is compiled.
module {
  rvnn_exec.param @b : tensor<4xf32> init <zeros>
  rvnn_exec.func @forward(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %t = rvnn_exec.elementwise <tanh> %x : tensor<?x4xf32>
    rvnn_exec.return %t : tensor<?x4xf32>
  }
  module @rvnn_kernels attributes {rvnn_exec.kernels} {
    func.func @ew_tanh(%x: tensor<?x4xf32>, %out: tensor<?x4xf32>)
        -> tensor<?x4xf32> {
      %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                            affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
          ins(%x : tensor<?x4xf32>) outs(%out : tensor<?x4xf32>) {
      ^bb0(%a: f32, %o: f32):
        %t = math.tanh %a : f32
        linalg.yield %t : f32
      } -> tensor<?x4xf32>
      return %r : tensor<?x4xf32>
    }
    func.func @ew_tanh_grad(%x: tensor<?x4xf32>, %dout: tensor<?x4xf32>,
                            %din: tensor<?x4xf32>) -> tensor<?x4xf32> {
      %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                            affine_map<(i, j) -> (i, j)>,
                                            affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
          ins(%x, %dout : tensor<?x4xf32>, tensor<?x4xf32>)
          outs(%din : tensor<?x4xf32>) {
      ^bb0(%a: f32, %g: f32, %o: f32):
        %one = arith.constant 1.0 : f32
        %t = math.tanh %a : f32
        %t2 = arith.mulf %t, %t : f32
        %d = arith.subf %one, %t2 : f32
        %v = arith.mulf %g, %d : f32
        linalg.yield %v : f32
      } -> tensor<?x4xf32>
      return %r : tensor<?x4xf32>
    }
  }
}
