// A model whose one parameter (40000 x 40000 floats, 6 GB) is above the
// per-parameter limit of the runtime (test/Runtime/limits.test).
rvnn.param @embedding : tensor<16x40000xf32> init normal(1.0)
rvnn.param @huge : tensor<40000x40000xf32> init xavier_uniform

func.func @forward(%tokens: tensor<?x?xi64>, %mask: tensor<?x?xf32>)
    -> tensor<?x10xf32> {
  %table = rvnn.param_get @embedding : tensor<16x40000xf32>
  %w = rvnn.param_get @huge : tensor<40000x40000xf32>
  %x = rvnn.embedding %table, %tokens
      : (tensor<16x40000xf32>, tensor<?x?xi64>) -> tensor<?x?x40000xf32>
  %y = rvnn.linear %x, %w
      : (tensor<?x?x40000xf32>, tensor<40000x40000xf32>) -> tensor<?x?x40000xf32>
  %r = tensor.extract_slice %y[0, 0, 0] [1, 1, 10] [1, 1, 1] : tensor<?x?x40000xf32> to tensor<1x10xf32>
  %c = tensor.cast %r : tensor<1x10xf32> to tensor<?x10xf32>
  return %c : tensor<?x10xf32>
}
