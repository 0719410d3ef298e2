// One BERT-style encoder layer (hidden 64, 2 heads, ffn 256, seq 8) written
// directly in the osc dialect, as the importer and fusion passes will produce
// it. `make demo` round-trips it through opscope-opt.
func.func @encoder_layer(%x: tensor<1x8x64xf32>, %mask: tensor<1x1x1x8xf32>) -> tensor<1x8x64xf32> {
  %wqkv = osc.constant dense<0.01> : tensor<192x64xf32>
  %bqkv = osc.constant dense<0.0> : tensor<192xf32>
  %wo = osc.constant dense<0.01> : tensor<64x64xf32>
  %bo = osc.constant dense<0.0> : tensor<64xf32>
  %w1 = osc.constant dense<0.01> : tensor<256x64xf32>
  %b1 = osc.constant dense<0.0> : tensor<256xf32>
  %w2 = osc.constant dense<0.01> : tensor<64x256xf32>
  %b2 = osc.constant dense<0.0> : tensor<64xf32>
  %g = osc.constant dense<1.0> : tensor<64xf32>
  %be = osc.constant dense<0.0> : tensor<64xf32>

  // Attention: fused QKV projection, head split, scaled scores, masked softmax.
  %qkv = osc.inner_product %x, %wqkv bias(%bqkv)
      : (tensor<1x8x64xf32>, tensor<192x64xf32>, tensor<192xf32>) -> tensor<1x8x192xf32>
  %heads = osc.reshape %qkv : tensor<1x8x192xf32> -> tensor<1x8x3x2x32xf32>
  %t = osc.transpose %heads {perm = array<i64: 2, 0, 3, 1, 4>}
      : tensor<1x8x3x2x32xf32> -> tensor<3x1x2x8x32xf32>
  %q = osc.slice %t {starts = array<i64: 0, 0, 0, 0, 0>, sizes = array<i64: 1, 1, 2, 8, 32>, steps = array<i64: 1, 1, 1, 1, 1>}
      : tensor<3x1x2x8x32xf32> -> tensor<1x1x2x8x32xf32>
  %k = osc.slice %t {starts = array<i64: 1, 0, 0, 0, 0>, sizes = array<i64: 1, 1, 2, 8, 32>, steps = array<i64: 1, 1, 1, 1, 1>}
      : tensor<3x1x2x8x32xf32> -> tensor<1x1x2x8x32xf32>
  %v = osc.slice %t {starts = array<i64: 2, 0, 0, 0, 0>, sizes = array<i64: 1, 1, 2, 8, 32>, steps = array<i64: 1, 1, 1, 1, 1>}
      : tensor<3x1x2x8x32xf32> -> tensor<1x1x2x8x32xf32>
  %q4 = osc.reshape %q : tensor<1x1x2x8x32xf32> -> tensor<1x2x8x32xf32>
  %k4 = osc.reshape %k : tensor<1x1x2x8x32xf32> -> tensor<1x2x8x32xf32>
  %v4 = osc.reshape %v : tensor<1x1x2x8x32xf32> -> tensor<1x2x8x32xf32>
  %s = osc.matmul %q4, %k4 transpose_b {scale = 0.176776692 : f32}
      : (tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>) -> tensor<1x2x8x8xf32>
  %p = osc.softmax %s mask(%mask) {axis = 3 : i64}
      : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
  %ctx = osc.matmul %p, %v4 : (tensor<1x2x8x8xf32>, tensor<1x2x8x32xf32>) -> tensor<1x2x8x32xf32>
  %ct = osc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x8x32xf32> -> tensor<1x8x2x32xf32>
  %c = osc.reshape %ct : tensor<1x8x2x32xf32> -> tensor<1x8x64xf32>

  // Output projection with the residual as a sum post-op, then LayerNorm.
  %o = osc.inner_product %c, %wo bias(%bo) sum(%x) post_ops [sum]
      : (tensor<1x8x64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %ln1 = osc.layer_norm %o, %g, %be {axis = 2 : i64, epsilon = 1.0e-12 : f32}
      : (tensor<1x8x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>

  // FFN: GELU as a post-op, residual sum, LayerNorm.
  %h = osc.inner_product %ln1, %w1 bias(%b1) post_ops [gelu_erf]
      : (tensor<1x8x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<1x8x256xf32>
  %f = osc.inner_product %h, %w2 bias(%b2) sum(%ln1) post_ops [sum]
      : (tensor<1x8x256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %y = osc.layer_norm %f, %g, %be {axis = 2 : i64, epsilon = 1.0e-12 : f32}
      : (tensor<1x8x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
  return %y : tensor<1x8x64xf32>
}
