// A small model for the golden plan: a parameter, a GEMM, a loop with
// per-sample halting and views.
rvnn.param @w : tensor<4x4xf32> init xavier_uniform
rvnn.param @b : tensor<4xf32> init zeros

func.func @forward(%x: tensor<?x2x4xf32>, %halt: tensor<?xi1>)
    -> tensor<?x4xf32> {
  %flat = tensor.collapse_shape %x [[0, 1], [2]]
      : tensor<?x2x4xf32> into tensor<?x4xf32>
  %w = rvnn.param_get @w : tensor<4x4xf32>
  %b = rvnn.param_get @b : tensor<4xf32>
  %h = rvnn.recurse (%s = %flat) : tensor<?x4xf32> halting <per_sample> steps = 3 {
  ^bb0(%t: index, %s: tensor<?x4xf32>):
    %y = rvnn.linear %s, %w, %b
        : (tensor<?x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    %z = math.tanh %y : tensor<?x4xf32>
    rvnn.yield %z halt %halt : tensor<?x4xf32>, tensor<?xi1>
  }
  return %h : tensor<?x4xf32>
}
