// The FastTrees Transformer for logical inference (Pung and Chan,
// "FastTrees: Parallel Latent Tree-Induction for Faster Sequence Encoding",
// §3.3; model-specs §6): the Transformer encoder of models/transformer.mlir
// with the FastTrees module placed right after each self-attention:
//   Y' = FastTrees(SelfAttention(x)),  x' = LN1(x + drop(Y')),
//   x <- LN2(x' + drop(FF(x')))
//   FastTrees(X) = F⊙X,  F = σ(Fh X)⊙(A⊙B) + (A - A⊙B),
//   A = cumax(Fa X),  B = 1 - cumax(Fb X)        (@fasttrees_module)
// with Fa, Fb, Fh position-wise linears D -> D, a tree-structured forget gate
// over the features of each position. L = 6 layers with their own weights
// are one rvnn.recurse of 6 fixed steps over the stacked layer weights; the
// Siamese batch, mean pooling over real tokens and the sentence-pair head
// (§7) are models/transformer.mlir's.
//
// Hyperparameters: the FastTrees paper runs its Transformer module on
// translation, agreement and mathematical language understanding only
// (Tensor2Tensor's Transformer Base defaults) and gives no logical-inference
// settings, so everything follows models/transformer.mlir (the GRC models'
// §8 logical-inference settings: D = 200, F = 800, dropout 0.4 on the input,
// 0.1 on each residual branch and 0.1 in the head; H = 8 heads, L = 6 as
// Transformer Base). Fa, Fb, Fh use nn.Linear's initialisation
// U(±1/sqrt(D)), like the other linears.
// Vocabulary: 12 ids (0 pad, 1-6 a-f, 7 and, 8 or, 9 not, 10 (, 11 )); labels <
// > = ^ | # v -> 0..6. Inputs: token ids and float masks [N, S1] and [N, S2].

rvnn.param @embedding : tensor<12x200xf32> init normal(1.0)
rvnn.param @positions : tensor<128x200xf32> init normal(1.0)
// Layer l's weights are row l of each stacked parameter.
rvnn.param @att_qkv_w : tensor<6x600x200xf32> init uniform(0.07071068)
rvnn.param @att_out_w : tensor<6x200x200xf32> init uniform(0.07071068)
// Fa, Fb, Fh of each layer's FastTrees module, stacked [3D, D].
rvnn.param @ft_w : tensor<6x600x200xf32> init uniform(0.07071068)
rvnn.param @ft_b : tensor<6x600xf32> init uniform(0.07071068)
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
func.func private @fasttrees_module(tensor<?x?x?xf32>, index,
                                    tensor<?x?x?xf32>, tensor<?x?xf32>)
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
  %ft_w_s = rvnn.param_get @ft_w : tensor<6x600x200xf32>
  %ft_w = tensor.cast %ft_w_s : tensor<6x600x200xf32> to tensor<?x?x?xf32>
  %ft_b_s = rvnn.param_get @ft_b : tensor<6x600xf32>
  %ft_b = tensor.cast %ft_b_s : tensor<6x600xf32> to tensor<?x?xf32>
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
    %gated = func.call @fasttrees_module(%att, %t, %ft_w, %ft_b)
        : (tensor<?x?x?xf32>, index, tensor<?x?x?xf32>, tensor<?x?xf32>)
        -> tensor<?x?x?xf32>
    %next_d = func.call @add_norm_feed_forward(
        %layer_in, %gated, %t, %ln1_g, %ln1_b, %ff1_w, %ff1_b, %ff2_w,
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
