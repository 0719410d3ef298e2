// RUN: opscope-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of every osc op (and the parser errors of the
// custom syntax). Messages are checked in full where they name shapes.

func.func @case0() {
  // expected-error @+1 {{result #0 must be statically shaped tensor}}
  %0 = osc.constant dense<1.0> : vector<4xf32>
  return
}

// -----

func.func @case1(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{lhs element type 'f32' differs from rhs element type 'f16'}}
  %0 = osc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case2(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{operands must have rank >= 2}}
  %0 = osc.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case3(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{contraction dimensions differ: lhs has K=3, rhs has K=4 (lhs 2x3, rhs 4x5)}}
  %0 = osc.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @case4(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{contraction dimensions differ}}
  %0 = osc.matmul %a, %b transpose_b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case5(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) {
  // expected-error @+1 {{batch dimensions 2 and 3 do not broadcast}}
  %0 = osc.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @case6(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{result shape 2x5 does not match the expected shape 2x4}}
  %0 = osc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @case7(%v: tensor<16xf32>, %w: tensor<8x16xf32>) {
  // expected-error @+1 {{input must have rank >= 2, got shape 16}}
  %0 = osc.inner_product %v, %w : (tensor<16xf32>, tensor<8x16xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @case8(%x: tensor<4x16xf32>, %w: tensor<2x8x16xf32>) {
  // expected-error @+1 {{weight must be N x K, got shape 2x8x16}}
  %0 = osc.inner_product %x, %w : (tensor<4x16xf32>, tensor<2x8x16xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @case9(%x: tensor<4x16xf32>, %w: tensor<8x15xf32>) {
  // expected-error @+1 {{weight shape 8x15 has K=15 but the input's last dimension is 16}}
  %0 = osc.inner_product %x, %w : (tensor<4x16xf32>, tensor<8x15xf32>) -> tensor<4x8xf32>
  return
}

// -----

// A bf16 weight with f32 activations is the --precision bf16 form; any
// other mix is an error, as is a bf16 result.
func.func @case10(%x: tensor<4x16xf32>, %w: tensor<8x16xf16>) {
  // expected-error @+1 {{input element type 'f32' differs from weight element type 'f16'}}
  %0 = osc.inner_product %x, %w : (tensor<4x16xf32>, tensor<8x16xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @case10_bf16_result(%x: tensor<4x16xf32>, %w: tensor<8x16xbf16>) {
  // expected-error @+1 {{a bf16 inner_product has f32 or bf16 input and result, got 'f32' and 'f16'}}
  %0 = osc.inner_product %x, %w : (tensor<4x16xf32>, tensor<8x16xbf16>) -> tensor<4x8xf16>
  return
}

// -----

// bf16 chains (osc-bf16-chains): a bf16 result cannot take the f32 residual.
func.func @bf16_result_sum(%x: tensor<4x16xbf16>, %w: tensor<8x16xbf16>, %r: tensor<4x8xf32>) {
  // expected-error @+1 {{a bf16 result cannot take a sum post-op}}
  %0 = osc.inner_product %x, %w sum(%r) post_ops [sum] : (tensor<4x16xbf16>, tensor<8x16xbf16>, tensor<4x8xf32>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @bf16_conv_result_sum(%x: tensor<1x4x8x8xbf16>, %w: tensor<6x4x3x3xbf16>, %s: tensor<1x6x6x6xf32>) {
  // expected-error @+1 {{a bf16 result cannot take a sum post-op}}
  %0 = osc.conv %x, %w sum(%s) post_ops [sum] {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xbf16>, tensor<6x4x3x3xbf16>, tensor<1x6x6x6xf32>) -> tensor<1x6x6x6xbf16>
  return
}

// -----

// bf16 activations need a bf16 weight.
func.func @bf16_input_f32_weight(%x: tensor<4x16xbf16>, %w: tensor<8x16xf32>) {
  // expected-error @+1 {{input element type 'bf16' differs from weight element type 'f32'}}
  %0 = osc.inner_product %x, %w : (tensor<4x16xbf16>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return
}

// -----

// A matmul reads bf16 operands only when it computes in bf16.
func.func @bf16_matmul_operand(%a: tensor<4x8xbf16>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{lhs element type 'bf16' differs from rhs element type 'f32'}}
  %0 = osc.matmul %a, %b : (tensor<4x8xbf16>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @bf16_matmul_const_rhs(%a: tensor<4x8xbf16>) {
  %b = osc.constant dense<1.0> : tensor<8x4xbf16>
  // expected-error @+1 {{a compute_bf16 matmul's constant rhs must be f32}}
  %0 = osc.matmul %a, %b {compute_bf16} : (tensor<4x8xbf16>, tensor<8x4xbf16>) -> tensor<4x4xf32>
  return
}

// -----

func.func @bf16_input_bias(%x: tensor<4x16xbf16>, %w: tensor<8x16xbf16>, %b: tensor<8xbf16>) {
  // expected-error @+1 {{the bias must be f32 with a 'bf16' input, got 'tensor<8xbf16>'}}
  %0 = osc.inner_product %x, %w bias(%b) : (tensor<4x16xbf16>, tensor<8x16xbf16>, tensor<8xbf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @bf16_matmul_f16(%a: tensor<4x8xbf16>, %b: tensor<8x4xf16>) {
  // expected-error @+1 {{a compute_bf16 matmul's rhs is f32 or bf16, got 'f16'}}
  %0 = osc.matmul %a, %b {compute_bf16} : (tensor<4x8xbf16>, tensor<8x4xf16>) -> tensor<4x4xf32>
  return
}

// -----

// softmax and layer norm write bf16 for an f32 input only, softmax over
// the last axis only, a transposed layer norm never.
func.func @bf16_softmax_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{a bf16 result needs the softmax over the last axis with no mask or one that varies only over leading dimensions and the last one}}
  %0 = osc.softmax %x {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @bf16_softmax_mask(%x: tensor<2x4x8xf32>, %m: tensor<1x4x8xf32>) {
  // expected-error @+1 {{a bf16 result needs the softmax over the last axis}}
  %0 = osc.softmax %x mask(%m) {axis = 2 : i64} : (tensor<2x4x8xf32>, tensor<1x4x8xf32>) -> tensor<2x4x8xbf16>
  return
}

// -----

func.func @bf16_softmax_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result type must equal the input type (or be its shape in bf16 for an f32 input), got 'tensor<8x4xbf16>' for 'tensor<4x8xf32>'}}
  %0 = osc.softmax %x {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<8x4xbf16>
  return
}

// -----

func.func @bf16_layer_norm_transposed(%x: tensor<8x4xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{a transposed layer norm's result type must equal the input type}}
  %0 = osc.layer_norm %x, %g {axis = 1 : i64, transposed} : (tensor<8x4xf32>, tensor<8xf32>) -> tensor<8x4xbf16>
  return
}

// -----

func.func @case11(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias shape 4 must be 8 (one value per output channel)}}
  %0 = osc.inner_product %x, %w bias(%b) : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @case12(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>, %r: tensor<4x8xf32>) {
  // expected-error @+1 {{result shape 4x16 does not match the expected shape 4x8}}
  %0 = osc.inner_product %x, %w : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @case13(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>, %r: tensor<4x8xf32>) {
  // expected-error @+1 {{at most one 'sum' post-op is allowed, found 2}}
  %0 = osc.inner_product %x, %w sum(%r) post_ops [sum, sum] : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @case14(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>, %r: tensor<4x8xf32>) {
  // expected-error @+1 {{'sum' post-op requires a sum(...) operand}}
  %0 = osc.inner_product %x, %w post_ops [relu, sum] : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @case15(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>, %r: tensor<4x8xf32>) {
  // expected-error @+1 {{sum(...) operand given without a 'sum' post-op}}
  %0 = osc.inner_product %x, %w sum(%r) post_ops [relu] : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @case16(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %s: tensor<1x8xf32>) {
  // expected-error @+1 {{sum operand type 'tensor<1x8xf32>' must equal the result type 'tensor<4x8xf32>'}}
  %0 = osc.inner_product %x, %w sum(%s) post_ops [sum] : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @case17(%x: tensor<1x4xf32>, %w: tensor<6x4xf32>) {
  // expected-error @+1 {{input must be N x C x spatial... with 1 to 3 spatial dimensions, got shape 1x4}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4xf32>, tensor<6x4xf32>) -> tensor<1x6xf32>
  return
}

// -----

func.func @case18(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3xf32>) {
  // expected-error @+1 {{weight must be OC x C/groups x kernel... of rank 4, got shape 6x4x3}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case19(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{expects 2 strides (one per spatial dimension), got 1}}
  %0 = osc.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case20(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{expects 2 dilations (one per spatial dimension), got 3}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case21(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{expects 4 pads (begin pads of every spatial dimension, then end pads), got 2}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case22(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{strides must be positive}}
  %0 = osc.conv %x, %w {strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case23(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{dilations must be positive}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, -1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case24(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{pads must be non-negative}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case25(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{groups must be positive, got 0}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 0} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case26(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @+1 {{input channels (4) and output channels (6) must both be divisible by groups (4)}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 4} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case27(%x: tensor<1x4x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+1 {{weight shape 6x3x3x3 expects 3 input channels with groups=1, input has 4}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case28(%x: tensor<1x4x2x2xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{kernel window does not fit spatial dimension 0 (input 1x4x2x2, kernel 6x4x3x3)}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x1x1xf32>
  return
}

// -----

func.func @case29(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{result shape 1x6x8x8 does not match the expected shape 1x6x6x6}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case30(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias shape 4 must be 6 (one value per output channel)}}
  %0 = osc.conv %x, %w bias(%b) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<4xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @case31(%x: tensor<1x8x4x4xf32>, %w: tensor<8x2x2x2xf32>) {
  // expected-error @+1 {{expects 2 output_padding values, got 1}}
  %0 = osc.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0>} : (tensor<1x8x4x4xf32>, tensor<8x2x2x2xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @case32(%x: tensor<1x8x4x4xf32>, %w: tensor<4x2x2x2xf32>) {
  // expected-error @+1 {{weight shape 4x2x2x2 expects 4 input channels, input has 8}}
  %0 = osc.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x4x4xf32>, tensor<4x2x2x2xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @case33(%x: tensor<1x8x4x4xf32>, %w: tensor<8x2x2x2xf32>) {
  // expected-error @+1 {{input channels (8) must be divisible by a positive groups (3)}}
  %0 = osc.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 3} : (tensor<1x8x4x4xf32>, tensor<8x2x2x2xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case34(%x: tensor<1x8x4x4xf32>, %w: tensor<8x2x2x2xf32>) {
  // expected-error @+1 {{result shape 1x2x9x9 does not match the expected shape 1x2x8x8}}
  %0 = osc.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x4x4xf32>, tensor<8x2x2x2xf32>) -> tensor<1x2x9x9xf32>
  return
}

// -----

func.func @case35(%x: tensor<1x8x4x4xf32>, %w: tensor<8x2x2x2xf32>) {
  // expected-error @+1 {{padding leaves no output in spatial dimension 0}}
  %0 = osc.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x4x4xf32>, tensor<8x2x2x2xf32>) -> tensor<1x2x1x1xf32>
  return
}

// -----

func.func @case36(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{expects 2 kernel sizes, got 1}}
  %0 = osc.pool max %x {kernel = array<i64: 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @case37(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{kernel sizes must be positive}}
  %0 = osc.pool max %x {kernel = array<i64: 2, 0>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @case38(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{pooling window does not fit spatial dimension 0 of input 1x4x8x8}}
  %0 = osc.pool avg %x {kernel = array<i64: 9, 9>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @case39(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{result shape 1x4x5x5 does not match the expected shape 1x4x4x4}}
  %0 = osc.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x5x5xf32>
  return
}

// -----

func.func @case40(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'f16'}}
  %0 = osc.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf16>
  return
}

// -----

func.func @case41(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{input must be N x C x spatial... with 1 to 3 spatial dimensions, got shape 4x8}}
  %0 = osc.pool max %x {kernel = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @case42(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{input must be N x C x spatial..., got shape 4x8}}
  %0 = osc.global_pool avg %x : tensor<4x8xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @case43(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{result shape 1x4x1 does not match the expected shape 1x4x1x1}}
  %0 = osc.global_pool max %x : tensor<1x4x8x8xf32> -> tensor<1x4x1xf32>
  return
}

// -----

func.func @case44(%x: tensor<8xf32>, %c: tensor<8xf32>) {
  // expected-error @+1 {{input must be N x C x ..., got shape 8}}
  %0 = osc.batch_norm %x, %c, %c, %c, %c : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @case45(%x: tensor<1x4x2x2xf32>, %c: tensor<4xf32>, %d: tensor<3xf32>) {
  // expected-error @+1 {{mean shape 3 must be 4 (one value per channel)}}
  %0 = osc.batch_norm %x, %c, %c, %d, %c : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return
}

// -----

func.func @case46(%x: tensor<1x4x2x2xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{result type must equal the input type}}
  %0 = osc.batch_norm %x, %c, %c, %c, %c : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x1xf32>
  return
}

// -----

func.func @case47(%x: tensor<2x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{axis 3 is out of range for input of rank 3}}
  %0 = osc.layer_norm %x, %g {axis = 3 : i64} : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

func.func @case48(%x: tensor<2x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{scale shape 16 must equal the normalized shape 8x16}}
  %0 = osc.layer_norm %x, %g {axis = 1 : i64} : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

func.func @case49(%x: tensor<2x8x16xf32>, %g: tensor<16xf32>, %h: tensor<8xf32>) {
  // expected-error @+1 {{bias shape 8 must equal the normalized shape 16}}
  %0 = osc.layer_norm %x, %g, %h {axis = 2 : i64} : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

func.func @case50(%x: tensor<2x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{result type must equal the input type}}
  %0 = osc.layer_norm %x, %g {axis = 2 : i64} : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x16x8xf32>
  return
}

// -----

func.func @case51(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{axis -1 is out of range for input of rank 3}}
  %0 = osc.softmax %x {axis = -1 : i64} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @case52(%x: tensor<2x4x8xf32>, %m: tensor<4x1x8xf32>) {
  // expected-error @+1 {{mask shape 4x1x8 does not broadcast to the input shape 2x4x8}}
  %0 = osc.softmax %x mask(%m) {axis = 2 : i64} : (tensor<2x4x8xf32>, tensor<4x1x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @case53(%x: tensor<2x4x8xf32>, %m: tensor<2x4x8x1xf32>) {
  // expected-error @+1 {{mask shape 2x4x8x1 does not broadcast to the input shape 2x4x8}}
  %0 = osc.softmax %x mask(%m) {axis = 2 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8x1xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @case54(%x: tensor<2x4x8xf32>, %m: tensor<8xf16>) {
  // expected-error @+1 {{mask element type 'f16' differs from input element type 'f32'}}
  %0 = osc.softmax %x mask(%m) {axis = 2 : i64} : (tensor<2x4x8xf32>, tensor<8xf16>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @case55(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{result type must equal the input type}}
  %0 = osc.softmax %x {axis = 2 : i64} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf16>
  return
}

// -----

func.func @case56(%x: tensor<4xi32>) {
  // expected-error @+1 {{must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = osc.gelu erf %x : tensor<4xi32>
  return
}

// -----

func.func @case57(%x: tensor<4xf32>) {
  // expected-error @+1 {{'not' requires a boolean (i1) tensor, got 'f32'}}
  %0 = osc.unary not %x : tensor<4xf32>
  return
}

// -----

func.func @case58(%x: tensor<4xi1>) {
  // expected-error @+1 {{'relu' does not accept boolean tensors}}
  %0 = osc.unary relu %x : tensor<4xi1>
  return
}

// -----

func.func @case59(%x: tensor<4xi32>) {
  // expected-error @+1 {{'exp' requires a floating-point tensor, got 'i32'}}
  %0 = osc.unary exp %x : tensor<4xi32>
  return
}

// -----

func.func @case60(%x: tensor<4xf32>) {
  // expected-error @+1 {{'leaky_relu' requires an alpha attribute}}
  %0 = osc.unary leaky_relu %x : tensor<4xf32>
  return
}

// -----

func.func @case61(%x: tensor<4xf32>) {
  // expected-error @+1 {{'relu' does not take alpha}}
  %0 = osc.unary relu %x {alpha = 1.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @case62(%x: tensor<4xf32>) {
  // expected-error @+1 {{'clip' requires a beta attribute}}
  %0 = osc.unary clip %x {alpha = 1.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @case63(%x: tensor<4xf32>) {
  // expected-error @+1 {{'elu' does not take beta}}
  %0 = osc.unary elu %x {alpha = 1.0 : f32, beta = 2.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @case64(%x: tensor<4xf32>) {
  // expected-error @+1 {{clip bounds are empty: alpha (min) 6.000000e+00 > beta (max) 0.000000e+00}}
  %0 = osc.unary clip %x {alpha = 6.0 : f32, beta = 0.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @case65(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "osc.unary"(%x) <{kind = 3 : i32}> : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @case66(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{lhs element type 'f32' differs from rhs element type 'f16'}}
  %0 = osc.binary add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @case67(%a: tensor<4xf32>) {
  // expected-error @+1 {{'and' requires boolean (i1) operands}}
  %0 = osc.binary and %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case68(%a: tensor<4xi1>) {
  // expected-error @+1 {{'add' does not accept boolean operands}}
  %0 = osc.binary add %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @case69(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operand shapes (3, 4) are not broadcast-compatible}}
  %0 = osc.binary mul %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case70(%a: tensor<2x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{result shape 2x1 does not match the expected shape 2x3}}
  %0 = osc.binary sub %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @case71(%a: tensor<3xf32>) {
  // expected-error @+1 {{lhs element type 'f32' differs from result element type 'f16'}}
  %0 = osc.binary div %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf16>
  return
}

// -----

func.func @case72(%a: tensor<4xi64>, %b: tensor<4xi32>) {
  // expected-error @+1 {{lhs element type 'i64' differs from rhs element type 'i32'}}
  %0 = osc.compare eq %a, %b : (tensor<4xi64>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @case73(%a: tensor<4xi64>, %b: tensor<5xi64>) {
  // expected-error @+1 {{operand shapes (4, 5) are not broadcast-compatible}}
  %0 = osc.compare lt %a, %b : (tensor<4xi64>, tensor<5xi64>) -> tensor<5xi1>
  return
}

// -----

func.func @case74(%a: tensor<4xi64>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = osc.compare gt %a, %a : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @case75(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{on_true element type 'f32' differs from on_false element type 'f16'}}
  %0 = osc.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @case76(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand shapes (3, 4, 4) are not broadcast-compatible}}
  %0 = osc.where %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case77(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = osc.where %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case78(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{axes must not be empty}}
  %0 = osc.reduce sum %x {axes = array<i64>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @case79(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{axis 3 is out of range for input of rank 3}}
  %0 = osc.reduce sum %x {axes = array<i64: 3>} : tensor<2x3x4xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @case80(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{axis 1 appears more than once}}
  %0 = osc.reduce max %x {axes = array<i64: 1, 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @case81(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{result shape 2x1x4 does not match the expected shape 2x4}}
  %0 = osc.reduce mean %x {axes = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  return
}

// -----

func.func @case82(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{result shape 2x4 does not match the expected shape 2x1x4}}
  %0 = osc.reduce mean %x {axes = array<i64: 1>, keep_dims} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @case83(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{cannot reshape 2x3 (6 elements) to 7 (7 elements)}}
  %0 = osc.reshape %x : tensor<2x3xf32> -> tensor<7xf32>
  return
}

// -----

func.func @case84(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'i32'}}
  %0 = osc.reshape %x : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

func.func @case85(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{perm has 2 entries but the input has rank 3}}
  %0 = osc.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  return
}

// -----

func.func @case86(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{perm is not a permutation of [0, 3)}}
  %0 = osc.transpose %x {perm = array<i64: 0, 0, 1>} : tensor<2x3x4xf32> -> tensor<2x2x3xf32>
  return
}

// -----

func.func @case87(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{result shape 2x3x4 does not match the expected shape 2x4x3}}
  %0 = osc.transpose %x {perm = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @case88(%x: tensor<3x1xf32>) {
  // expected-error @+1 {{input shape 3x1 does not broadcast to 2x4}}
  %0 = osc.broadcast_to %x : tensor<3x1xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @case89(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{input shape 1x4 does not broadcast to 4}}
  %0 = osc.broadcast_to %x : tensor<1x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @case90(%d: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{axis 2 is out of range for data of rank 2}}
  %0 = osc.gather %d[%i] {axis = 2 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<10x3xf32>
  return
}

// -----

func.func @case91(%d: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{result shape 10x3 does not match the expected shape 3x4}}
  %0 = osc.gather %d[%i] : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<10x3xf32>
  return
}

// -----

func.func @case92(%d: tensor<10x4xf32>, %f: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = osc.gather %d[%f] : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @case93() {
  // expected-error @+1 {{needs at least one input}}
  %0 = osc.concat {axis = 0 : i64} : () -> tensor<2x3xf32>
  return
}

// -----

func.func @case94(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{axis 2 is out of range for inputs of rank 2}}
  %0 = osc.concat %a, %b {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
  return
}

// -----

func.func @case95(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{input 1 shape 2x4 differs from input 0 shape 2x3 outside axis 0}}
  %0 = osc.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case96(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{result shape 2x8 does not match the expected shape 2x7}}
  %0 = osc.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @case97(%a: tensor<2x3xf32>, %c: tensor<2x4xf16>) {
  // expected-error @+1 {{input element type 'f16' differs from result element type 'f32'}}
  %0 = osc.concat %a, %c {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x4xf16>) -> tensor<2x7xf32>
  return
}

// -----

func.func @case98(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{starts, sizes and steps need 2 entries each (the input rank)}}
  %0 = osc.slice %x {starts = array<i64: 0>, sizes = array<i64: 1, 1>, steps = array<i64: 1, 1>} : tensor<4x5xf32> -> tensor<1x1xf32>
  return
}

// -----

func.func @case99(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{step of dimension 1 is zero}}
  %0 = osc.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 1, 1>, steps = array<i64: 1, 0>} : tensor<4x5xf32> -> tensor<1x1xf32>
  return
}

// -----

func.func @case100(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{size of dimension 0 is negative}}
  %0 = osc.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: -1, 1>, steps = array<i64: 1, 1>} : tensor<4x5xf32> -> tensor<1x1xf32>
  return
}

// -----

func.func @case101(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{slice of dimension 0 (start 2, size 2, step 2) reads outside [0, 4)}}
  %0 = osc.slice %x {starts = array<i64: 2, 0>, sizes = array<i64: 2, 5>, steps = array<i64: 2, 1>} : tensor<4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @case102(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{slice of dimension 1 (start 1, size 3, step -1) reads outside [0, 5)}}
  %0 = osc.slice %x {starts = array<i64: 0, 1>, sizes = array<i64: 1, 3>, steps = array<i64: 1, -1>} : tensor<4x5xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @case103(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{result shape 2x1 does not match the expected shape 1x2}}
  %0 = osc.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 1, 2>, steps = array<i64: 1, 1>} : tensor<4x5xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @case104(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects 4 pads (begin pads of every dimension, then end pads), got 2}}
  %0 = osc.pad constant %x {pads = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @case105(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{pads must be non-negative}}
  %0 = osc.pad constant %x {pads = array<i64: 0, -1, 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @case106(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reflect padding of dimension 0 must be smaller than its size 2}}
  %0 = osc.pad reflect %x {pads = array<i64: 2, 0, 0, 0>} : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @case107(%x: tensor<0x3xf32>) {
  // expected-error @+1 {{edge padding of empty dimension 0}}
  %0 = osc.pad edge %x {pads = array<i64: 1, 0, 0, 0>} : tensor<0x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @case108(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result shape 4x4 does not match the expected shape 4x5}}
  %0 = osc.pad constant %x {pads = array<i64: 1, 1, 1, 1>} : tensor<2x3xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @case109(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = osc.cast %x : tensor<2x3xf32> -> tensor<3x2xi32>
  return
}

// -----

func.func @case110(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{result rank 3 differs from input rank 4}}
  %0 = osc.resize nearest asymmetric floor %x : tensor<1x3x4x4xf32> -> tensor<3x8x8xf32>
  return
}

// -----

func.func @case111(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{expects 4 scales, got 2}}
  %0 = osc.resize linear half_pixel floor %x {scales = array<f32: 2.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @case112(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{scales must be positive}}
  %0 = osc.resize linear half_pixel floor %x {scales = array<f32: 1.0, 1.0, 0.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @case113(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{result dimensions must be positive}}
  %0 = osc.resize linear half_pixel floor %x : tensor<1x3x4x4xf32> -> tensor<1x3x0x8xf32>
  return
}

// -----

func.func @case114(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'mode' [nearest, linear, cubic]}}
  %0 = osc.resize bilinear half_pixel floor %x : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @case115(%x: tensor<4xf32>) {
  // expected-error @+1 {{probe id must be non-negative, got -1}}
  %0 = osc.probe -1 "x" -> tensor<4xf32> {
    %r = osc.unary relu %x : tensor<4xf32>
    osc.yield %r : tensor<4xf32>
  }
  return
}

// -----

func.func @case116(%x: tensor<4xf32>) {
  // expected-error @+1 {{body must contain the probed op}}
  osc.probe 0 "x" {
  }
  return
}

// -----

func.func @case117(%x: tensor<4xf32>) {
  // expected-error @+1 {{yields 1 value(s) whose types differ from the probe's result types}}
  %0 = osc.probe 0 "x" -> tensor<4xf16> {
    %r = osc.unary relu %x : tensor<4xf32>
    osc.yield %r : tensor<4xf32>
  }
  return
}

// -----

func.func @case118() {
  // expected-error @+1 {{expects parent op to be one of 'osc.probe, osc.if, osc.loop'}}
  osc.yield
  return
}

// -----

func.func @case119(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>, %r: tensor<4x8xf32>) {
  // expected-error @+1 {{unknown post-op 'softsign'}}
  %0 = osc.inner_product %x, %w post_ops [softsign] : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @case120(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{lhs element type 'f32' differs from result element type 'f16'}}
  %0 = osc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf16>
  return
}

// -----

func.func @case121(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'bf16'}}
  %0 = osc.inner_product %x, %w : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @case122(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf16>) {
  // expected-error @+1 {{bias element type 'f16' differs from input element type 'f32'}}
  %0 = osc.inner_product %x, %w bias(%b) : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @case123(%x: tensor<1x4x8xf32>, %w: tensor<6x4x3xf16>) {
  // expected-error @+1 {{input element type 'f32' differs from weight element type 'f16'}}
  %0 = osc.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<1x4x8xf32>, tensor<6x4x3xf16>) -> tensor<1x6x6xf32>
  return
}

// -----

func.func @case124(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'f16'}}
  %0 = osc.conv_transpose %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, output_padding = array<i64: 0>} : (tensor<1x4x8xf32>, tensor<4x2x3xf32>) -> tensor<1x2x10xf16>
  return
}

// -----

func.func @case125(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias shape 4 must be 2 (one value per output channel)}}
  %0 = osc.conv_transpose %x, %w bias(%b) {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, output_padding = array<i64: 0>} : (tensor<1x4x8xf32>, tensor<4x2x3xf32>, tensor<4xf32>) -> tensor<1x2x10xf32>
  return
}

// -----

func.func @case126(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error @+1 {{expected ':'}}
  %0 = osc.conv_transpose %x, %w sum(%x) post_ops [sum] {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, output_padding = array<i64: 0>} : (tensor<1x4x8xf32>, tensor<4x2x3xf32>) -> tensor<1x2x10xf32>
  return
}

// -----

func.func @case127(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error @+1 {{'sum' post-op requires a sum(...) operand}}
  %0 = osc.conv_transpose %x, %w post_ops [sum] {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, output_padding = array<i64: 0>} : (tensor<1x4x8xf32>, tensor<4x2x3xf32>) -> tensor<1x2x10xf32>
  return
}

// -----

func.func @case128(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'f16'}}
  %0 = osc.global_pool avg %x : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf16>
  return
}

// -----

func.func @case129(%x: tensor<1x4x2x2xf32>, %c: tensor<4xf16>) {
  // expected-error @+1 {{scale element type 'f16' differs from input element type 'f32'}}
  %0 = osc.batch_norm %x, %c, %c, %c, %c : (tensor<1x4x2x2xf32>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<1x4x2x2xf32>
  return
}

// -----

func.func @case130(%x: tensor<2x8xf32>, %g: tensor<8xbf16>) {
  // expected-error @+1 {{scale element type 'bf16' differs from input element type 'f32'}}
  %0 = osc.layer_norm %x, %g {axis = 1 : i64} : (tensor<2x8xf32>, tensor<8xbf16>) -> tensor<2x8xf32>
  return
}

// -----

func.func @case131(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'i32'}}
  %0 = osc.reduce sum %x {axes = array<i64: 0>} : tensor<2x3xf32> -> tensor<3xi32>
  return
}

// -----

func.func @case132(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'f16'}}
  %0 = osc.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf16>
  return
}

// -----

func.func @case133(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'i64'}}
  %0 = osc.broadcast_to %x : tensor<1x3xf32> -> tensor<2x3xi64>
  return
}

// -----

func.func @case134(%d: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{data element type 'f32' differs from result element type 'f16'}}
  %0 = osc.gather %d[%i] : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf16>
  return
}

// -----

func.func @case135(%x: tensor<4xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'i32'}}
  %0 = osc.slice %x {starts = array<i64: 0>, sizes = array<i64: 1>, steps = array<i64: 1>} : tensor<4xf32> -> tensor<1xi32>
  return
}

// -----

func.func @case136(%x: tensor<4xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'f16'}}
  %0 = osc.pad constant %x {pads = array<i64: 1, 1>} : tensor<4xf32> -> tensor<6xf16>
  return
}

// -----

func.func @case137(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{input element type 'f32' differs from result element type 'f16'}}
  %0 = osc.resize nearest asymmetric floor %x : tensor<1x4xf32> -> tensor<1x8xf16>
  return
}

// -----

func.func @case138(%c: tensor<4xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{on_true element type 'f32' differs from result element type 'f16'}}
  %0 = osc.where %c, %a, %a : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @resource_size() {
  // expected-error @+1 {{resource 'short' holds 8 bytes but 'tensor<4xf32>' needs 16}}
  %0 = osc.constant dense_resource<short> : tensor<4xf32>
  return
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F00000040"
    }
  }
#-}

// -----

func.func @sparse_packed_type(%x: tensor<4x8xf32>, %p: tensor<64xf32>) {
  // expected-error @+1 {{packed weight must be a 1-D i8 tensor, got 'tensor<64xf32>'}}
  %0 = osc.sparse_inner_product %x, %p {block_sparsity = 0.5 : f64, weight_sparsity = 0.5 : f64, nonzero_blocks = 2 : i64, weight_shape = array<i64: 2, 8>} : (tensor<4x8xf32>, tensor<64xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @sparse_k(%x: tensor<4x7xf32>, %p: tensor<64xi8>) {
  // expected-error @+1 {{input must be [..., K] with K=8, got shape 4x7}}
  %0 = osc.sparse_inner_product %x, %p {block_sparsity = 0.5 : f64, weight_sparsity = 0.5 : f64, nonzero_blocks = 2 : i64, weight_shape = array<i64: 2, 8>} : (tensor<4x7xf32>, tensor<64xi8>) -> tensor<4x2xf32>
  return
}

// -----

func.func @sparse_transposed_input(%x: tensor<4x8xf32>, %p: tensor<64xi8>) {
  // expected-error @+1 {{transposed input must be K x M with K=8, got shape 4x8}}
  %0 = osc.sparse_inner_product %x, %p {block_sparsity = 0.5 : f64, weight_sparsity = 0.5 : f64, nonzero_blocks = 2 : i64, weight_shape = array<i64: 2, 8>, transposed_input} : (tensor<4x8xf32>, tensor<64xi8>) -> tensor<4x2xf32>
  return
}

// -----

func.func @sparse_transposed_output(%x: tensor<4x8xf32>, %p: tensor<64xi8>) {
  // expected-error @+1 {{transposed result must be N x M with N=2, got shape 4x2}}
  %0 = osc.sparse_inner_product %x, %p {block_sparsity = 0.5 : f64, weight_sparsity = 0.5 : f64, nonzero_blocks = 2 : i64, weight_shape = array<i64: 2, 8>, transposed_output} : (tensor<4x8xf32>, tensor<64xi8>) -> tensor<4x2xf32>
  return
}

// -----

func.func @sparse_tokens(%x: tensor<4x8xf32>, %p: tensor<64xi8>) {
  // expected-error @+1 {{input 4x8 and result 3x2 do not have the same number of tokens}}
  %0 = osc.sparse_inner_product %x, %p {block_sparsity = 0.5 : f64, weight_sparsity = 0.5 : f64, nonzero_blocks = 2 : i64, weight_shape = array<i64: 2, 8>} : (tensor<4x8xf32>, tensor<64xi8>) -> tensor<3x2xf32>
  return
}

// -----

func.func @sparse_ratio(%x: tensor<4x8xf32>, %p: tensor<64xi8>) {
  // expected-error @+1 {{sparsities must be fractions in [0, 1]}}
  %0 = osc.sparse_inner_product %x, %p {block_sparsity = 1.5 : f64, weight_sparsity = 0.5 : f64, nonzero_blocks = 2 : i64, weight_shape = array<i64: 2, 8>} : (tensor<4x8xf32>, tensor<64xi8>) -> tensor<4x2xf32>
  return
}

// -----

func.func @sparse_blocks(%x: tensor<4x8xf32>, %p: tensor<64xi8>) {
  // expected-error @+1 {{nonzero_blocks 5 out of range for 2x8}}
  %0 = osc.sparse_inner_product %x, %p {block_sparsity = 0.5 : f64, weight_sparsity = 0.5 : f64, nonzero_blocks = 5 : i64, weight_shape = array<i64: 2, 8>} : (tensor<4x8xf32>, tensor<64xi8>) -> tensor<4x2xf32>
  return
}

// -----

func.func @rnn_weight(%x: tensor<5x2x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>) {
  // expected-error @+1 {{weight shape 1x12x4 must be 1x16x4}}
  %y, %h, %c = osc.rnn lstm %x, %w, %r {hidden_size = 4 : i64, activations = ["sigmoid", "tanh", "tanh"], activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>} : (tensor<5x2x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @rnn_gru_cell_state(%x: tensor<5x2x4xf32>, %w: tensor<1x9x4xf32>, %r: tensor<1x9x3xf32>) {
  // expected-error @+1 {{initial_c, peepholes, output_c and input_forget are LSTM's; this is a gru cell}}
  %y, %h, %c = osc.rnn gru %x, %w, %r {hidden_size = 3 : i64, activations = ["sigmoid", "tanh"], activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>} : (tensor<5x2x4xf32>, tensor<1x9x4xf32>, tensor<1x9x3xf32>) -> (tensor<5x1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>)
  return
}

// -----

func.func @rnn_activations(%x: tensor<5x2x4xf32>, %w: tensor<1x3x4xf32>, %r: tensor<1x3x3xf32>) {
  // expected-error @+1 {{unknown activation 'swish'}}
  %y, %h = osc.rnn rnn %x, %w, %r {hidden_size = 3 : i64, activations = ["swish"], activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>} : (tensor<5x2x4xf32>, tensor<1x3x4xf32>, tensor<1x3x3xf32>) -> (tensor<5x1x2x3xf32>, tensor<1x2x3xf32>)
  return
}

// -----

func.func @arg_reduce_shape(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{result shape 2x10 does not match the expected shape 2x1}}
  %0 = osc.arg_reduce %x {axis = 1 : i64, keep_dims} : tensor<2x10xf32> -> tensor<2x10xi64>
  return
}

// -----

func.func @gather_elements_rank(%x: tensor<3x3xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{indices 3 must have the rank of data 3x3}}
  %0 = osc.gather_elements %x[%i] {axis = 0 : i64} : (tensor<3x3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @if_branch_types(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'osc.if' op the else region yields 1 value(s) whose types differ from 1 expected}}
  %r = osc.if %c : tensor<i1> -> tensor<4xf32> {
    osc.yield %x : tensor<4xf32>
  } else {
    osc.yield %y : tensor<2xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @if_condition(%c: tensor<2xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'osc.if' op condition must have one element, got 'tensor<2xi1>'}}
  %r = osc.if %c : tensor<2xi1> -> tensor<4xf32> {
    osc.yield %x : tensor<4xf32>
  } else {
    osc.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @loop_carried_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'osc.loop' op the body yields a condition or carried value whose type differs from the loop's (tensor<i1>, then the carried values' types)}}
  %r = osc.loop iter_args(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4xf32>):
    %w = osc.reshape %v : tensor<4xf32> -> tensor<2x2xf32>
    osc.yield %c, %w : tensor<i1>, tensor<2x2xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @loop_arguments(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'osc.loop' op body arguments must be (tensor<i64> iteration, tensor<i1> condition, the carried values' types)}}
  %r = osc.loop iter_args(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%i: tensor<i32>, %c: tensor<i1>, %v: tensor<4xf32>):
    osc.yield %c, %v : tensor<i1>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @conv_nhwc_1d(%x: tensor<1x4x8xf32>, %w: tensor<4x4x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{'osc.conv' op input_nhwc and output_nhwc need 2 spatial dimensions, got 1}}
  %y = osc.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, output_nhwc} : (tensor<1x4x8xf32>, tensor<4x4x3xf32>) -> tensor<1x4x6xf32>
  return %y : tensor<1x4x6xf32>
}

// -----

func.func @conv_transpose_nhwc_1d(%x: tensor<1x4x8xf32>, %w: tensor<4x4x3xf32>) -> tensor<1x4x10xf32> {
  // expected-error @+1 {{'osc.conv_transpose' op input_nhwc and output_nhwc need 2 spatial dimensions, got 1}}
  %y = osc.conv_transpose %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, output_padding = array<i64: 0>, input_nhwc} : (tensor<1x4x8xf32>, tensor<4x4x3xf32>) -> tensor<1x4x10xf32>
  return %y : tensor<1x4x10xf32>
}

// -----

func.func @pool_nhwc_3d(%x: tensor<1x4x8x8x8xf32>) -> tensor<1x4x4x4x4xf32> {
  // expected-error @+1 {{'osc.pool' op nhwc needs a 2-D pooling}}
  %y = osc.pool avg %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, nhwc} : tensor<1x4x8x8x8xf32> -> tensor<1x4x4x4x4xf32>
  return %y : tensor<1x4x4x4x4xf32>
}

// -----

func.func @resize_nhwc_channels(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+1 {{'osc.resize' op nhwc needs a nearest or linear resize of the last two dimensions of a 4-D tensor}}
  %y = osc.resize nearest asymmetric floor %x {nhwc} : tensor<1x4x8x8xf32> -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @concat_nhwc_rank(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'osc.concat' op nhwc needs 4-D inputs, got rank 2}}
  %y = osc.concat %a, %b {axis = 1 : i64, nhwc} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @loop_scan_shape(%x: tensor<4xf32>) -> tensor<3x2xf32> {
  %n = osc.constant dense<3> : tensor<i64>
  // expected-error @+1 {{'osc.loop' op scan output 0 is 'tensor<3x2xf32>'; it must stack the yielded 'tensor<4xf32>' along a new leading dimension}}
  %r:2 = osc.loop max_trip_count(%n : tensor<i64>) iter_args(%x : tensor<4xf32>) -> tensor<4xf32>, tensor<3x2xf32> {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4xf32>):
    osc.yield %c, %v, %v : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#1 : tensor<3x2xf32>
}

// -----

func.func @loop_scan_length(%x: tensor<4xf32>) -> tensor<5x4xf32> {
  %n = osc.constant dense<3> : tensor<i64>
  // expected-error @+1 {{'osc.loop' op scan output 0 has 5 rows but the trip count is 3}}
  %r:2 = osc.loop max_trip_count(%n : tensor<i64>) iter_args(%x : tensor<4xf32>) -> tensor<4xf32>, tensor<5x4xf32> {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4xf32>):
    osc.yield %c, %v, %v : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#1 : tensor<5x4xf32>
}

// -----

func.func @loop_scan_yields(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  %n = osc.constant dense<3> : tensor<i64>
  // expected-error @+1 {{'osc.loop' op the body yields 2 value(s); expected 3 (condition, carried values, scan outputs)}}
  %r:2 = osc.loop max_trip_count(%n : tensor<i64>) iter_args(%x : tensor<4xf32>) -> tensor<4xf32>, tensor<3x4xf32> {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4xf32>):
    osc.yield %c, %v : tensor<i1>, tensor<4xf32>
  }
  return %r#1 : tensor<3x4xf32>
}

// -----

// int8 convolutions (osc-precision): an i8 weight needs its quantization.
func.func @conv_i8_unquantized(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xi8>) {
  // expected-error @+1 {{an i8 weight needs input_scale, input_zero_point and weight_scales}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xi8>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_i8_scales(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xi8>) {
  // expected-error @+1 {{weight_scales has 2 entries, the weight 6 rows}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xi8>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_scales_f32(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{input_scale, input_zero_point and weight_scales belong to an i8 weight, got 'tensor<6x4x3x3xf32>'}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, input_scale = 0.1 : f32} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_i8_zero_point(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xi8>) {
  // expected-error @+1 {{input_zero_point must be in [0, 255] (u8), got 300}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, input_scale = 0.1 : f32, input_zero_point = 300 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xi8>) -> tensor<1x6x6x6xf32>
  return
}

// -----

// int8 chains: a ui8 result carries the consumer's quantization.
func.func @conv_u8_result_unquantized(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xi8>) {
  // expected-error @+1 {{a ui8 result needs output_scale and output_zero_point, and only it has them}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xi8>) -> tensor<1x6x6x6xui8>
  return
}

// -----

func.func @conv_f32_result_output_scale(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xi8>) {
  // expected-error @+1 {{a ui8 result needs output_scale and output_zero_point, and only it has them}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>, output_scale = 0.5 : f32, output_zero_point = 3 : i32} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xi8>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_u8_result_sum(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xi8>, %s: tensor<1x6x6x6xf32>) {
  // expected-error @+1 {{a ui8 result cannot take a sum post-op}}
  %0 = osc.conv %x, %w sum(%s) post_ops [sum] {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>, output_scale = 0.5 : f32, output_zero_point = 3 : i32} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xi8>, tensor<1x6x6x6xf32>) -> tensor<1x6x6x6xui8>
  return
}

// -----

func.func @conv_u8_input_f32_weight(%x: tensor<1x4x8x8xui8>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{input element type 'ui8' differs from weight element type 'f32'}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xui8>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @ip_u8_result_unquantized(%x: tensor<1x4x8xf32>, %w: tensor<8x8xi8>) {
  // expected-error @+1 {{a ui8 result needs output_scale and output_zero_point, and only it has them}}
  %0 = osc.inner_product %x, %w {input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>} : (tensor<1x4x8xf32>, tensor<8x8xi8>) -> tensor<1x4x8xui8>
  return
}

// -----

func.func @ip_u8_result_zero_point(%x: tensor<1x4x8xf32>, %w: tensor<8x8xi8>) {
  // expected-error @+1 {{output_zero_point must be in [0, 255] (u8), got 300}}
  %0 = osc.inner_product %x, %w {input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>, output_scale = 0.5 : f32, output_zero_point = 300 : i32} : (tensor<1x4x8xf32>, tensor<8x8xi8>) -> tensor<1x4x8xui8>
  return
}

// -----

func.func @ip_u8_input_f32_weight(%x: tensor<1x4x8xui8>, %w: tensor<8x8xf32>) {
  // expected-error @+1 {{input element type 'ui8' differs from weight element type 'f32'}}
  %0 = osc.inner_product %x, %w : (tensor<1x4x8xui8>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  return
}

// -----

// A ui8 input is read with the reader's quantization: its producer must
// have written it with the same.
func.func @ip_u8_input_mismatch(%x: tensor<1x4x8xf32>, %w: tensor<8x8xi8>) {
  %h = osc.inner_product %x, %w {input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>, output_scale = 0.5 : f32, output_zero_point = 3 : i32} : (tensor<1x4x8xf32>, tensor<8x8xi8>) -> tensor<1x4x8xui8>
  // expected-error @+1 {{a ui8 input must be written by another inner_product whose output_scale and output_zero_point are this op's input_scale and input_zero_point}}
  %0 = osc.inner_product %h, %w {input_scale = 0.25 : f32, input_zero_point = 3 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>} : (tensor<1x4x8xui8>, tensor<8x8xi8>) -> tensor<1x4x8xf32>
  return
}

// -----

// An osc.if's value comes from either branch: it is not the u8 hand-over of
// an int8 chain even when one branch's producer would match.
func.func @ip_u8_input_from_if(%c: tensor<i1>, %x: tensor<1x4x8xf32>, %w: tensor<8x8xi8>) {
  %r = osc.if %c : tensor<i1> -> tensor<1x4x8xui8> {
    %a = osc.inner_product %x, %w {input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>, output_scale = 0.5 : f32, output_zero_point = 3 : i32} : (tensor<1x4x8xf32>, tensor<8x8xi8>) -> tensor<1x4x8xui8>
    osc.yield %a : tensor<1x4x8xui8>
  } else {
    %b = osc.inner_product %x, %w {input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>, output_scale = 0.25 : f32, output_zero_point = 9 : i32} : (tensor<1x4x8xf32>, tensor<8x8xi8>) -> tensor<1x4x8xui8>
    osc.yield %b : tensor<1x4x8xui8>
  }
  // expected-error @+1 {{a ui8 input must be written by another inner_product}}
  %0 = osc.inner_product %r, %w {input_scale = 0.5 : f32, input_zero_point = 3 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>} : (tensor<1x4x8xui8>, tensor<8x8xi8>) -> tensor<1x4x8xf32>
  return
}

// -----

// Nor is an osc.loop's: its second result is the body's third yield operand
// (the first is the condition), here the unquantized %b, not %p.
func.func @ip_u8_input_from_loop(%n: tensor<i64>, %x: tensor<1x4x8xf32>, %w: tensor<8x8xi8>, %u: tensor<1x4x8xui8>) {
  %r:2 = osc.loop max_trip_count(%n : tensor<i64>) iter_args(%u, %u : tensor<1x4x8xui8>, tensor<1x4x8xui8>) -> tensor<1x4x8xui8>, tensor<1x4x8xui8> {
  ^bb0(%i: tensor<i64>, %cin: tensor<i1>, %a: tensor<1x4x8xui8>, %b: tensor<1x4x8xui8>):
    %p = osc.inner_product %x, %w {input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>, output_scale = 0.5 : f32, output_zero_point = 3 : i32} : (tensor<1x4x8xf32>, tensor<8x8xi8>) -> tensor<1x4x8xui8>
    osc.yield %cin, %p, %b : tensor<i1>, tensor<1x4x8xui8>, tensor<1x4x8xui8>
  }
  // expected-error @+1 {{a ui8 input must be written by another inner_product}}
  %0 = osc.inner_product %r#1, %w {input_scale = 0.5 : f32, input_zero_point = 3 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>} : (tensor<1x4x8xui8>, tensor<8x8xi8>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @conv_u8_argument(%x: tensor<1x4x8x8xui8>, %w: tensor<6x4x3x3xi8>) {
  // expected-error @+1 {{a ui8 input must be written by another conv}}
  %0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, input_scale = 0.1 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>} : (tensor<1x4x8x8xui8>, tensor<6x4x3x3xi8>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @depth_to_space_channels(%x: tensor<1x6x4x4xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{channels (6) must be a multiple of blocksize^2 (4)}}
  %0 = osc.depth_to_space %x {blocksize = 2 : i64} : tensor<1x6x4x4xf32> -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

func.func @depth_to_space_shape(%x: tensor<1x8x4x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{result shape 1x2x8x4 does not match the expected shape 1x2x8x8}}
  %0 = osc.depth_to_space %x {blocksize = 2 : i64} : tensor<1x8x4x4xf32> -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// -----

func.func @slice_nhwc_rank(%x: tensor<4x5xf32>) -> tensor<1x1xf32> {
  // expected-error @+1 {{nhwc needs a 4-D input, got rank 2}}
  %0 = osc.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 1, 1>, steps = array<i64: 1, 1>, nhwc} : tensor<4x5xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

func.func @post_op_arity(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>) {
  // expected-error @+1 {{post-op 'leaky_relu' takes 1 parameter(s), 0 given}}
  %0 = osc.inner_product %x, %w post_ops [leaky_relu] : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @post_op_extra_parameter(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>) {
  // expected-error @+1 {{post-op 'relu' takes 0 parameter(s), 1 given}}
  %0 = osc.inner_product %x, %w post_ops [relu(0.5)] : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @post_op_clip_bounds(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>) {
  // expected-error @+1 {{post-op 'clip' needs min <= max}}
  %0 = osc.inner_product %x, %w post_ops [clip(2.0, 1.0)] : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @post_op_generic_arity(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>) {
  // expected-error @+1 {{post-op 'hard_sigmoid' takes 2 parameter(s), 1 given}}
  %0 = "osc.inner_product"(%x, %w) <{post_ops = [#osc.post_op<hard_sigmoid, 2.000000e-01 : f32>], operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return
}
