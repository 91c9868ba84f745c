// The Transformer encoder baseline for ListOps (Vaswani et al., "Attention Is
// All You Need"; model-specs §5-§7): the encoder of models/transformer.mlir,
// L = 6 post-norm layers with their own weights,
//   x' = LN1(x + drop(SelfAttention(x))),  x <- LN2(x' + drop(FF(x')))
// as one rvnn.recurse over the stacked layer weights [L, ...]; the mean of
// the final states over real tokens goes to the ListOps head of §7.
//
// Hyperparameters: the design-space paper's Transformer takes LRA's ListOps
// settings (Tay et al. 2021), which this repository does not record, so
// sizes and training follow the GRC models' §8 ListOps settings: D = 128,
// feed-forward F = 512 (§8's cell size), dropout 0.1 on the input, on each
// residual branch and in the head; RAdam + Lookahead (k 5, α 0.8), lr 1e-3,
// weight decay 1e-2, batch 128, clip 1, ReduceLROnPlateau ×0.5 patience 2,
// early stopping patience 4. L = 6 and H = 8 heads (Dh = 16) as
// models/transformer.mlir. Positions: a learned table of 1024 positions (the
// length-generalisation buckets reach 1000 tokens; rows past the training
// lengths stay at their initial values, which is what a learned absolute
// encoding gives a Transformer there). Initialisation as
// models/transformer.mlir; the head as the other ListOps models (Xavier,
// zero biases).
// Vocabulary: 16 ids (0 pad, ListOps' digits and operators); labels 0-9.
// Inputs: token ids and a float mask [N, S].

rvnn.param @embedding : tensor<16x128xf32> init normal(1.0)
rvnn.param @positions : tensor<1024x128xf32> init normal(1.0)
// Layer l's weights are row l of each stacked parameter.
rvnn.param @att_qkv_w : tensor<6x384x128xf32> init uniform(0.08838835)
rvnn.param @att_out_w : tensor<6x128x128xf32> init uniform(0.08838835)
rvnn.param @ln1_g : tensor<6x128xf32> init ones
rvnn.param @ln1_b : tensor<6x128xf32> init zeros
rvnn.param @ff1_w : tensor<6x512x128xf32> init uniform(0.08838835)
rvnn.param @ff1_b : tensor<6x512xf32> init uniform(0.08838835)
rvnn.param @ff2_w : tensor<6x128x512xf32> init uniform(0.04419417)
rvnn.param @ff2_b : tensor<6x128xf32> init uniform(0.04419417)
rvnn.param @ln2_g : tensor<6x128xf32> init ones
rvnn.param @ln2_b : tensor<6x128xf32> init zeros
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

  // Embeddings plus the first S rows of the position table, dropout 0.1.
  %table = rvnn.param_get @embedding : tensor<16x128xf32>
  %emb = rvnn.embedding %table, %tokens
      : (tensor<16x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
  %pos_all = rvnn.param_get @positions : tensor<1024x128xf32>
  %pos = tensor.extract_slice %pos_all[0, 0] [%s, 128] [1, 1]
      : tensor<1024x128xf32> to tensor<?x128xf32>
  %pos_b = rvnn.broadcast_like %pos, %emb
      : (tensor<?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %summed = arith.addf %emb, %pos_b : tensor<?x?x128xf32>
  %x0 = rvnn.dropout %summed {rate = 1.000000e-01 : f64}
      : tensor<?x?x128xf32>

  // The stacked layer weights, cast once for the cells.
  %att_qkv_w_s = rvnn.param_get @att_qkv_w : tensor<6x384x128xf32>
  %att_qkv_w = tensor.cast %att_qkv_w_s
      : tensor<6x384x128xf32> to tensor<?x?x?xf32>
  %att_out_w_s = rvnn.param_get @att_out_w : tensor<6x128x128xf32>
  %att_out_w = tensor.cast %att_out_w_s
      : tensor<6x128x128xf32> to tensor<?x?x?xf32>
  %ln1_g_s = rvnn.param_get @ln1_g : tensor<6x128xf32>
  %ln1_g = tensor.cast %ln1_g_s : tensor<6x128xf32> to tensor<?x?xf32>
  %ln1_b_s = rvnn.param_get @ln1_b : tensor<6x128xf32>
  %ln1_b = tensor.cast %ln1_b_s : tensor<6x128xf32> to tensor<?x?xf32>
  %ff1_w_s = rvnn.param_get @ff1_w : tensor<6x512x128xf32>
  %ff1_w = tensor.cast %ff1_w_s : tensor<6x512x128xf32> to tensor<?x?x?xf32>
  %ff1_b_s = rvnn.param_get @ff1_b : tensor<6x512xf32>
  %ff1_b = tensor.cast %ff1_b_s : tensor<6x512xf32> to tensor<?x?xf32>
  %ff2_w_s = rvnn.param_get @ff2_w : tensor<6x128x512xf32>
  %ff2_w = tensor.cast %ff2_w_s : tensor<6x128x512xf32> to tensor<?x?x?xf32>
  %ff2_b_s = rvnn.param_get @ff2_b : tensor<6x128xf32>
  %ff2_b = tensor.cast %ff2_b_s : tensor<6x128xf32> to tensor<?x?xf32>
  %ln2_g_s = rvnn.param_get @ln2_g : tensor<6x128xf32>
  %ln2_g = tensor.cast %ln2_g_s : tensor<6x128xf32> to tensor<?x?xf32>
  %ln2_b_s = rvnn.param_get @ln2_b : tensor<6x128xf32>
  %ln2_b = tensor.cast %ln2_b_s : tensor<6x128xf32> to tensor<?x?xf32>

  // Layer t at step t.
  %h = rvnn.recurse (%state = %x0) : tensor<?x?x128xf32>
      halting <fixed> steps = 6 {
  ^bb0(%t: index, %state: tensor<?x?x128xf32>):
    %layer_in = tensor.cast %state : tensor<?x?x128xf32> to tensor<?x?x?xf32>
    %att = func.call @self_attention(%layer_in, %mask, %heads, %t,
                                     %att_qkv_w, %att_out_w)
        : (tensor<?x?x?xf32>, tensor<?x?xf32>, index, index, tensor<?x?x?xf32>,
           tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
    %next_d = func.call @add_norm_feed_forward(
        %layer_in, %att, %t, %ln1_g, %ln1_b, %ff1_w, %ff1_b, %ff2_w,
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
