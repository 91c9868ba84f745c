// The Universal Transformer for ListOps (Dehghani et al., "Universal
// Transformers"; model-specs §5-§7): the shared-layer encoder of
// models/universal_transformer.mlir, one post-norm layer applied T = 20
// times, the learned coordinate embedding (positions[s] + steps[t]) added
// before each step, then the mean over real tokens into the ListOps head of
// §7.
//
// Hyperparameters: the GRC models' §8 ListOps settings as
// models/transformer_listops.mlir (D = 128, F = 512, H = 8 heads, dropout 0.1
// on the input, on each residual branch and in the head, the same training).
// T = 20 is NDR's ListOps step count in training (§5), NDR being this model
// plus geometric attention and a gate; evaluation runs the same 20 steps,
// since the step table has a row per step. Positions: a learned table of
// 1024 positions, as models/transformer_listops.mlir. The step table starts
// at zero; other initialisation as models/transformer.mlir.
// Vocabulary: 16 ids (0 pad, ListOps' digits and operators); labels 0-9.
// Inputs: token ids and a float mask [N, S].

rvnn.param @embedding : tensor<16x128xf32> init normal(1.0)
rvnn.param @positions : tensor<1024x128xf32> init normal(1.0)
rvnn.param @step_embedding : tensor<20x128xf32> init zeros
// The one shared layer's weights, a stack of one layer for the cells.
rvnn.param @att_qkv_w : tensor<1x384x128xf32> init uniform(0.08838835)
rvnn.param @att_out_w : tensor<1x128x128xf32> init uniform(0.08838835)
rvnn.param @ln1_g : tensor<1x128xf32> init ones
rvnn.param @ln1_b : tensor<1x128xf32> init zeros
rvnn.param @ff1_w : tensor<1x512x128xf32> init uniform(0.08838835)
rvnn.param @ff1_b : tensor<1x512xf32> init uniform(0.08838835)
rvnn.param @ff2_w : tensor<1x128x512xf32> init uniform(0.04419417)
rvnn.param @ff2_b : tensor<1x128xf32> init uniform(0.04419417)
rvnn.param @ln2_g : tensor<1x128xf32> init ones
rvnn.param @ln2_b : tensor<1x128xf32> init zeros
rvnn.param @head_w1 : tensor<128x128xf32> init xavier_uniform
rvnn.param @head_b1 : tensor<128xf32> init zeros
rvnn.param @head_w2 : tensor<10x128xf32> init xavier_uniform
rvnn.param @head_b2 : tensor<10xf32> init zeros

// Shared cells (models/cells.mlir).
func.func private @self_attention(tensor<?x?x?xf32>, tensor<?x?xf32>, index,
                                  index, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
    -> tensor<?x?x?xf32>
func.func private @add_norm_feed_forward(
    tensor<?x?x?xf32>, tensor<?x?x?xf32>, index, tensor<?x?xf32>,
    tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>,
    tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>

func.func @forward(%tokens: tensor<?x?xi64>, %mask: tensor<?x?xf32>)
    -> tensor<?x10xf32> {
  %c1 = arith.constant 1 : index
  %heads = arith.constant 8 : index
  %s = tensor.dim %tokens, %c1 : tensor<?x?xi64>

  // Embeddings, dropout 0.1.
  %table = rvnn.param_get @embedding : tensor<16x128xf32>
  %emb = rvnn.embedding %table, %tokens
      : (tensor<16x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
  %pos_all = rvnn.param_get @positions : tensor<1024x128xf32>
  %pos = tensor.extract_slice %pos_all[0, 0] [%s, 128] [1, 1]
      : tensor<1024x128xf32> to tensor<?x128xf32>
  %x0 = rvnn.dropout %emb {rate = 1.000000e-01 : f64} : tensor<?x?x128xf32>
  %steps = rvnn.param_get @step_embedding : tensor<20x128xf32>
  %shared = arith.constant 0 : index

  // The stacked layer weights, cast once for the cells.
  %att_qkv_w_s = rvnn.param_get @att_qkv_w : tensor<1x384x128xf32>
  %att_qkv_w = tensor.cast %att_qkv_w_s
      : tensor<1x384x128xf32> to tensor<?x?x?xf32>
  %att_out_w_s = rvnn.param_get @att_out_w : tensor<1x128x128xf32>
  %att_out_w = tensor.cast %att_out_w_s
      : tensor<1x128x128xf32> to tensor<?x?x?xf32>
  %ln1_g_s = rvnn.param_get @ln1_g : tensor<1x128xf32>
  %ln1_g = tensor.cast %ln1_g_s : tensor<1x128xf32> to tensor<?x?xf32>
  %ln1_b_s = rvnn.param_get @ln1_b : tensor<1x128xf32>
  %ln1_b = tensor.cast %ln1_b_s : tensor<1x128xf32> to tensor<?x?xf32>
  %ff1_w_s = rvnn.param_get @ff1_w : tensor<1x512x128xf32>
  %ff1_w = tensor.cast %ff1_w_s : tensor<1x512x128xf32> to tensor<?x?x?xf32>
  %ff1_b_s = rvnn.param_get @ff1_b : tensor<1x512xf32>
  %ff1_b = tensor.cast %ff1_b_s : tensor<1x512xf32> to tensor<?x?xf32>
  %ff2_w_s = rvnn.param_get @ff2_w : tensor<1x128x512xf32>
  %ff2_w = tensor.cast %ff2_w_s : tensor<1x128x512xf32> to tensor<?x?x?xf32>
  %ff2_b_s = rvnn.param_get @ff2_b : tensor<1x128xf32>
  %ff2_b = tensor.cast %ff2_b_s : tensor<1x128xf32> to tensor<?x?xf32>
  %ln2_g_s = rvnn.param_get @ln2_g : tensor<1x128xf32>
  %ln2_g = tensor.cast %ln2_g_s : tensor<1x128xf32> to tensor<?x?xf32>
  %ln2_b_s = rvnn.param_get @ln2_b : tensor<1x128xf32>
  %ln2_b = tensor.cast %ln2_b_s : tensor<1x128xf32> to tensor<?x?xf32>

  // The shared layer, 20 steps, each after adding the coordinate embedding
  // positions[s] + steps[t].
  %h = rvnn.recurse (%state = %x0) : tensor<?x?x128xf32>
      halting <fixed> steps = 20 {
  ^bb0(%t: index, %state: tensor<?x?x128xf32>):
    %step = tensor.extract_slice %steps[%t, 0] [1, 128] [1, 1]
        : tensor<20x128xf32> to tensor<1x128xf32>
    %step_b = rvnn.broadcast_like %step, %pos
        : (tensor<1x128xf32>, tensor<?x128xf32>) -> tensor<?x128xf32>
    %coord = arith.addf %pos, %step_b : tensor<?x128xf32>
    %coord_b = rvnn.broadcast_like %coord, %state
        : (tensor<?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
    %input = arith.addf %state, %coord_b : tensor<?x?x128xf32>
    %layer_in = tensor.cast %input : tensor<?x?x128xf32> to tensor<?x?x?xf32>
    %att = func.call @self_attention(%layer_in, %mask, %heads, %shared,
                                     %att_qkv_w, %att_out_w)
        : (tensor<?x?x?xf32>, tensor<?x?xf32>, index, index, tensor<?x?x?xf32>,
           tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
    %next_d = func.call @add_norm_feed_forward(
        %layer_in, %att, %shared, %ln1_g, %ln1_b, %ff1_w, %ff1_b, %ff2_w,
        %ff2_b, %ln2_g, %ln2_b)
        : (tensor<?x?x?xf32>, tensor<?x?x?xf32>, index, tensor<?x?xf32>,
           tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>,
           tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
        -> tensor<?x?x?xf32>
    %next = tensor.cast %next_d : tensor<?x?x?xf32> to tensor<?x?x128xf32>
    rvnn.yield %next : tensor<?x?x128xf32>
  }

  // The mean of the final states over real tokens, then the ListOps head
  // (§7): dropout -> Linear(D, D) -> GELU -> dropout -> Linear(D, 10).
  %pooled = rvnn.pool mean %h, %mask
      : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  %head_w1 = rvnn.param_get @head_w1 : tensor<128x128xf32>
  %head_b1 = rvnn.param_get @head_b1 : tensor<128xf32>
  %head_w2 = rvnn.param_get @head_w2 : tensor<10x128xf32>
  %head_b2 = rvnn.param_get @head_b2 : tensor<10xf32>
  %f0 = rvnn.dropout %pooled {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
  %f1 = rvnn.linear %f0, %head_w1, %head_b1
      : (tensor<?x128xf32>, tensor<128x128xf32>, tensor<128xf32>)
      -> tensor<?x128xf32>
  %f2 = rvnn.gelu %f1 : tensor<?x128xf32>
  %f3 = rvnn.dropout %f2 {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
  %logits = rvnn.linear %f3, %head_w2, %head_b2
      : (tensor<?x128xf32>, tensor<10x128xf32>, tensor<10xf32>)
      -> tensor<?x10xf32>
  return %logits : tensor<?x10xf32>
}
