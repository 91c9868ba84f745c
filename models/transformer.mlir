// The Transformer encoder baseline for logical inference (Vaswani et al.,
// "Attention Is All You Need"; the Transformer that the design-space paper
// compares CRvNN and NDR with, model-specs §5-§7): L = 6 post-norm layers
// with their own weights,
//   x' = LN1(x + drop(SelfAttention(x))),  x <- LN2(x' + drop(FF(x')))
// (models/cells.mlir: @self_attention, @add_norm_feed_forward), over the
// Siamese batch of both sentences (@siamese_batch); each sentence is the mean
// of its final states over its real tokens, and the sentence-pair head of §7
// (@sentence_pair_head) classifies the pair.
//
// The layers are one rvnn.recurse of L fixed steps whose body takes step t's
// slice of the stacked layer weights [L, ...]: the same loop as
// models/universal_transformer.mlir, which shares one layer's weights.
//
// Hyperparameters: the design-space paper takes the Transformer's logical-
// inference settings from another paper (Chowdhury and Caragea 2024) and
// names none, so sizes and training follow the GRC models' §8 logical-
// inference settings: D = 200, feed-forward F = 800 (§8's cell size),
// dropout 0.4 on the input, 0.1 on each residual branch and 0.1 in the head;
// RAdam + Lookahead (k 5, α 0.8), lr 1e-3, weight decay 1e-2, batch 128,
// clip 1, ReduceLROnPlateau ×0.5 patience 2, early stopping patience 4.
// L = 6 layers and H = 8 heads (Dh = 25) are Vaswani et al.'s base model.
// Positions: a learned table of 128 positions added to the embeddings (the
// paper's xPos, a rotary relative encoding, has no rvnn primitive); logical
// inference's sentences have at most 25 tokens up to 12 operators.
// Initialisation: embeddings N(0, 1); linear weights and biases PyTorch's
// nn.Linear default U(±1/sqrt(fan_in)); layer norms 1 and 0; the head as the
// other sentence-pair models (Xavier, zero biases).
// Vocabulary: 12 ids (0 pad, 1-6 a-f, 7 and, 8 or, 9 not, 10 (, 11 )); labels <
// > = ^ | # v -> 0..6. Inputs: token ids and float masks [N, S1] and [N, S2].

rvnn.param @embedding : tensor<12x200xf32> init normal(1.0)
rvnn.param @positions : tensor<128x200xf32> init normal(1.0)
// Layer l's weights are row l of each stacked parameter.
rvnn.param @att_qkv_w : tensor<6x600x200xf32> init uniform(0.07071068)
rvnn.param @att_out_w : tensor<6x200x200xf32> init uniform(0.07071068)
rvnn.param @ln1_g : tensor<6x200xf32> init ones
rvnn.param @ln1_b : tensor<6x200xf32> init zeros
rvnn.param @ff1_w : tensor<6x800x200xf32> init uniform(0.07071068)
rvnn.param @ff1_b : tensor<6x800xf32> init uniform(0.07071068)
rvnn.param @ff2_w : tensor<6x200x800xf32> init uniform(0.03535534)
rvnn.param @ff2_b : tensor<6x200xf32> init uniform(0.03535534)
rvnn.param @ln2_g : tensor<6x200xf32> init ones
rvnn.param @ln2_b : tensor<6x200xf32> init zeros
rvnn.param @head_w1 : tensor<200x800xf32> init xavier_uniform
rvnn.param @head_b1 : tensor<200xf32> init zeros
rvnn.param @head_w2 : tensor<7x200xf32> init xavier_uniform
rvnn.param @head_b2 : tensor<7xf32> init zeros

// Shared cells (models/cells.mlir).
func.func private @siamese_batch(tensor<?x?xi64>, tensor<?x?xf32>,
                                 tensor<?x?xi64>, tensor<?x?xf32>)
    -> (tensor<?x?xi64>, tensor<?x?xf32>)
func.func private @self_attention(tensor<?x?x?xf32>, tensor<?x?xf32>, index,
                                  index, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
    -> tensor<?x?x?xf32>
func.func private @add_norm_feed_forward(
    tensor<?x?x?xf32>, tensor<?x?x?xf32>, index, tensor<?x?xf32>,
    tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>,
    tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
func.func private @sentence_pair_head(tensor<?x?xf32>, tensor<?x?xf32>,
                                      tensor<?xf32>, tensor<?x?xf32>,
                                      tensor<?xf32>) -> tensor<?x?xf32>

func.func @forward(%tokens1: tensor<?x?xi64>, %mask1: tensor<?x?xf32>,
                   %tokens2: tensor<?x?xi64>, %mask2: tensor<?x?xf32>)
    -> tensor<?x7xf32> {
  %c1 = arith.constant 1 : index
  %heads = arith.constant 8 : index
  %pair:2 = func.call @siamese_batch(%tokens1, %mask1, %tokens2, %mask2)
      : (tensor<?x?xi64>, tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xf32>)
      -> (tensor<?x?xi64>, tensor<?x?xf32>)
  %s = tensor.dim %pair#0, %c1 : tensor<?x?xi64>

  // Embeddings plus the first S rows of the position table, dropout 0.4.
  %table = rvnn.param_get @embedding : tensor<12x200xf32>
  %emb = rvnn.embedding %table, %pair#0
      : (tensor<12x200xf32>, tensor<?x?xi64>) -> tensor<?x?x200xf32>
  %pos_all = rvnn.param_get @positions : tensor<128x200xf32>
  %pos = tensor.extract_slice %pos_all[0, 0] [%s, 200] [1, 1]
      : tensor<128x200xf32> to tensor<?x200xf32>
  %pos_b = rvnn.broadcast_like %pos, %emb
      : (tensor<?x200xf32>, tensor<?x?x200xf32>) -> tensor<?x?x200xf32>
  %summed = arith.addf %emb, %pos_b : tensor<?x?x200xf32>
  %x0 = rvnn.dropout %summed {rate = 4.000000e-01 : f64}
      : tensor<?x?x200xf32>

  // The stacked layer weights, cast once for the cells.
  %att_qkv_w_s = rvnn.param_get @att_qkv_w : tensor<6x600x200xf32>
  %att_qkv_w = tensor.cast %att_qkv_w_s
      : tensor<6x600x200xf32> to tensor<?x?x?xf32>
  %att_out_w_s = rvnn.param_get @att_out_w : tensor<6x200x200xf32>
  %att_out_w = tensor.cast %att_out_w_s
      : tensor<6x200x200xf32> to tensor<?x?x?xf32>
  %ln1_g_s = rvnn.param_get @ln1_g : tensor<6x200xf32>
  %ln1_g = tensor.cast %ln1_g_s : tensor<6x200xf32> to tensor<?x?xf32>
  %ln1_b_s = rvnn.param_get @ln1_b : tensor<6x200xf32>
  %ln1_b = tensor.cast %ln1_b_s : tensor<6x200xf32> to tensor<?x?xf32>
  %ff1_w_s = rvnn.param_get @ff1_w : tensor<6x800x200xf32>
  %ff1_w = tensor.cast %ff1_w_s : tensor<6x800x200xf32> to tensor<?x?x?xf32>
  %ff1_b_s = rvnn.param_get @ff1_b : tensor<6x800xf32>
  %ff1_b = tensor.cast %ff1_b_s : tensor<6x800xf32> to tensor<?x?xf32>
  %ff2_w_s = rvnn.param_get @ff2_w : tensor<6x200x800xf32>
  %ff2_w = tensor.cast %ff2_w_s : tensor<6x200x800xf32> to tensor<?x?x?xf32>
  %ff2_b_s = rvnn.param_get @ff2_b : tensor<6x200xf32>
  %ff2_b = tensor.cast %ff2_b_s : tensor<6x200xf32> to tensor<?x?xf32>
  %ln2_g_s = rvnn.param_get @ln2_g : tensor<6x200xf32>
  %ln2_g = tensor.cast %ln2_g_s : tensor<6x200xf32> to tensor<?x?xf32>
  %ln2_b_s = rvnn.param_get @ln2_b : tensor<6x200xf32>
  %ln2_b = tensor.cast %ln2_b_s : tensor<6x200xf32> to tensor<?x?xf32>

  // Layer t at step t.
  %h = rvnn.recurse (%state = %x0) : tensor<?x?x200xf32>
      halting <fixed> steps = 6 {
  ^bb0(%t: index, %state: tensor<?x?x200xf32>):
    %layer_in = tensor.cast %state : tensor<?x?x200xf32> to tensor<?x?x?xf32>
    %att = func.call @self_attention(%layer_in, %pair#1, %heads, %t,
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
    %next = tensor.cast %next_d : tensor<?x?x?xf32> to tensor<?x?x200xf32>
    rvnn.yield %next : tensor<?x?x200xf32>
  }

  // Each sentence: the mean of its final states over its real tokens.
  %encodings = rvnn.pool mean %h, %pair#1
      : (tensor<?x?x200xf32>, tensor<?x?xf32>) -> tensor<?x200xf32>
  %enc_d = tensor.cast %encodings : tensor<?x200xf32> to tensor<?x?xf32>
  %head_w1 = rvnn.param_get @head_w1 : tensor<200x800xf32>
  %head_b1 = rvnn.param_get @head_b1 : tensor<200xf32>
  %head_w2 = rvnn.param_get @head_w2 : tensor<7x200xf32>
  %head_b2 = rvnn.param_get @head_b2 : tensor<7xf32>
  %w1 = tensor.cast %head_w1 : tensor<200x800xf32> to tensor<?x?xf32>
  %b1 = tensor.cast %head_b1 : tensor<200xf32> to tensor<?xf32>
  %w2 = tensor.cast %head_w2 : tensor<7x200xf32> to tensor<?x?xf32>
  %b2 = tensor.cast %head_b2 : tensor<7xf32> to tensor<?xf32>
  %logits_d = func.call @sentence_pair_head(%enc_d, %w1, %b1, %w2, %b2)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>,
         tensor<?xf32>) -> tensor<?x?xf32>
  %logits = tensor.cast %logits_d : tensor<?x?xf32> to tensor<?x7xf32>
  return %logits : tensor<?x7xf32>
}
