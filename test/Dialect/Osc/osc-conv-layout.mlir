// RUN: opscope-opt %s -split-input-file -osc-conv-layout=report | FileCheck %s

// A chain conv -> relu -> conv -> conv (+ residual) -> add -> conv ->
// resize -> conv: the values between the convolutions stay NHWC (the relu
// and the add are element-wise on same-shaped operands, the nearest resize
// of H and W has a channels-last kernel); the graph input is reordered in by
// the first convolution and the last one writes NCHW for the function
// result. Five convolutions, ten reorders before; the boundaries keep two.
// CHECK: osc-conv-layout: 8 of 10 convolution activation reorders removed (5 convolutions; NHWC kept across 7 values)
// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = osc.conv %arg0, %{{.*}} {{{.*}}output_nhwc{{.*}}}
// CHECK-NOT: input_nhwc
// CHECK: %[[R:.*]] = osc.unary relu %[[A]]
// CHECK: %[[B:.*]] = osc.conv %[[R]], %{{.*}} {{{.*}}input_nhwc, output_nhwc{{.*}}}
// CHECK: %[[C:.*]] = osc.conv %[[B]], %{{.*}} sum(%[[R]]) post_ops [sum] {{{.*}}input_nhwc, output_nhwc{{.*}}}
// CHECK: %[[S:.*]] = osc.binary add %[[C]], %[[B]]
// CHECK: %[[D:.*]] = osc.conv %[[S]], %{{.*}} {{{.*}}input_nhwc, output_nhwc{{.*}}}
// CHECK: %[[U:.*]] = osc.resize nearest asymmetric floor %[[D]] {nhwc}
// CHECK: osc.conv %[[U]], %{{.*}} {{{.*}}input_nhwc, pads{{.*}}}
// CHECK-NOT: output_nhwc
// CHECK: return
func.func @chain(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32> {
  %w2 = osc.constant dense<0.2> : tensor<8x8x1x1xf32>
  %w = osc.constant dense<0.1> : tensor<8x8x3x3xf32>
  %a = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %r = osc.unary relu %a : tensor<1x8x16x16xf32>
  %b = osc.conv %r, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %c = osc.conv %b, %w sum(%r) post_ops [sum] {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %s = osc.binary add %c, %b : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %d = osc.conv %s, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %u = osc.resize nearest asymmetric floor %d : tensor<1x8x16x16xf32> -> tensor<1x8x32x32xf32>
  %e = osc.conv %u, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x32x32xf32>
  return %e : tensor<1x8x32x32xf32>
}

// -----

// What breaks a chain: a broadcasting add (a per-channel bias: not
// element-wise on same shapes), a value that is also a function result, a
// resize that scales the channels, and
// a residual sum whose input comes from outside the chain (the output must
// then stay NCHW too, the sum being accumulated in place).
// CHECK: osc-conv-layout: 0 of 8 convolution activation reorders removed (4 convolutions; NHWC kept across 0 values)
// CHECK-LABEL: func.func @boundaries
// CHECK-NOT: nhwc
// CHECK: return
func.func @boundaries(%x: tensor<1x8x16x16xf32>, %bias: tensor<1x8x1x1xf32>) -> (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) {
  %w = osc.constant dense<0.1> : tensor<8x8x3x3xf32>
  %a = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %ab = osc.binary add %a, %bias : (tensor<1x8x16x16xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x16x16xf32>
  %b = osc.conv %ab, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %c = osc.conv %b, %w sum(%x) post_ops [sum] {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %w16 = osc.constant dense<0.1> : tensor<8x16x3x3xf32>
  %u = osc.resize nearest asymmetric floor %c : tensor<1x8x16x16xf32> -> tensor<1x16x16x16xf32>
  %d = osc.conv %u, %w16 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x16x16x16xf32>, tensor<8x16x3x3xf32>) -> tensor<1x8x16x16xf32>
  return %b, %d : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>
}

// -----

// 2-D max and average pooling between convolutions keep the chain (oneDNN
// pools channels-last as it is; the runtime's own max pooling below
// AVX-512 too).
// CHECK: osc-conv-layout: 4 of 6 convolution activation reorders removed (3 convolutions; NHWC kept across 4 values)
// CHECK-LABEL: func.func @pooling
// CHECK: osc.conv %arg0, {{.*}}output_nhwc
// CHECK: %[[P:.*]] = osc.pool max %{{.*}} {{{.*}}nhwc{{.*}}}
// CHECK: %[[B:.*]] = osc.conv %[[P]], {{.*}}input_nhwc, output_nhwc
// CHECK: %[[Q:.*]] = osc.pool avg %[[B]] {{{.*}}nhwc{{.*}}}
// CHECK: osc.conv %[[Q]], {{.*}}input_nhwc
// CHECK-NOT: output_nhwc
// CHECK: return
func.func @pooling(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x4x4xf32> {
  %w = osc.constant dense<0.1> : tensor<8x8x3x3xf32>
  %a = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %p = osc.pool max %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x8x16x16xf32> -> tensor<1x8x8x8xf32>
  %b = osc.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %q = osc.pool avg %b {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  %c = osc.conv %q, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %c : tensor<1x8x4x4xf32>
}

// -----

// A transposed convolution (a decoder's upsampling) joins the chain like a
// convolution: its input and output stay channels-last between
// convolutions; one whose output is a function result writes NCHW.
// CHECK: osc-conv-layout: 5 of 8 convolution activation reorders removed (4 convolutions; NHWC kept across 3 values)
// CHECK-LABEL: func.func @conv_transpose
// CHECK: %[[A:.*]] = osc.conv %arg0, {{.*}}output_nhwc
// CHECK: %[[R:.*]] = osc.unary relu %[[A]]
// CHECK: %[[T:.*]] = osc.conv_transpose %[[R]], {{.*}}input_nhwc, {{.*}}output_nhwc
// CHECK: %[[C:.*]] = osc.conv %[[T]], {{.*}}input_nhwc
// CHECK-NOT: output_nhwc
// CHECK: osc.conv_transpose %[[R]], {{.*}}input_nhwc
// CHECK-NOT: output_nhwc
// CHECK: return
func.func @conv_transpose(%x: tensor<1x8x8x8xf32>) -> (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) {
  %w = osc.constant dense<0.1> : tensor<8x8x3x3xf32>
  %a = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %r = osc.unary relu %a : tensor<1x8x8x8xf32>
  %t = osc.conv_transpose %r, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %c = osc.conv %t, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %u = osc.conv_transpose %r, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  return %c, %u : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>
}

// -----

// An FPN's channel concat of convolution outputs feeding a convolution
// keeps the chain (the runtime concatenates channels-last buffers along
// their channel axis); a concat that also takes the graph input ends it.
// CHECK: osc-conv-layout: 6 of 10 convolution activation reorders removed (5 convolutions; NHWC kept across 4 values)
// CHECK-LABEL: func.func @concat
// CHECK: %[[A:.*]] = osc.conv %arg0, {{.*}}output_nhwc
// CHECK: %[[B:.*]] = osc.conv %[[A]], {{.*}}input_nhwc, output_nhwc
// CHECK: %[[C:.*]] = osc.conv %[[A]], {{.*}}input_nhwc, output_nhwc
// CHECK: %[[K:.*]] = osc.concat %[[B]], %[[C]] {axis = 1 : i64, nhwc}
// CHECK: %[[D:.*]] = osc.conv %[[K]], {{.*}}input_nhwc
// CHECK-NOT: output_nhwc
// CHECK: osc.concat %[[D]], %arg0 {axis = 1 : i64}
// CHECK-NOT: nhwc
// CHECK: return
func.func @concat(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %w = osc.constant dense<0.1> : tensor<8x8x3x3xf32>
  %w16 = osc.constant dense<0.1> : tensor<8x16x3x3xf32>
  %a = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %b = osc.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %c = osc.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %k = osc.concat %b, %c {axis = 1 : i64} : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x16x16x16xf32>
  %d = osc.conv %k, %w16 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x16x16x16xf32>, tensor<8x16x3x3xf32>) -> tensor<1x8x16x16xf32>
  %m = osc.concat %d, %x {axis = 1 : i64} : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x16x16x16xf32>
  %e = osc.conv %m, %w16 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x16x16x16xf32>, tensor<8x16x3x3xf32>) -> tensor<1x8x16x16xf32>
  return %e : tensor<1x8x16x16xf32>
}

// -----

// The sub-pixel form of a transposed convolution (osc-fuse's
// deconv-as-conv): conv -> depth_to_space -> slice (the crop) -> conv keeps
// the shuffle and the crop channels-last; a depth_to_space whose result is
// returned writes NCHW, so the convolution before it does too.
// CHECK: osc-conv-layout: 2 of 6 convolution activation reorders removed (3 convolutions; NHWC kept across 3 values)
// CHECK-LABEL: func.func @depth_to_space
// CHECK: %[[A:.*]] = osc.conv %arg0, {{.*}}output_nhwc
// CHECK: %[[D:.*]] = osc.depth_to_space %[[A]] {blocksize = 2 : i64, nhwc}
// CHECK: %[[S:.*]] = osc.slice %[[D]] {nhwc, sizes
// CHECK: osc.conv %[[S]], {{.*}}input_nhwc
// CHECK-NOT: output_nhwc
// CHECK: %[[B:.*]] = osc.conv %arg0
// CHECK-NOT: nhwc
// CHECK: osc.depth_to_space %[[B]] {blocksize = 2 : i64, crd}
// CHECK-NOT: nhwc
// CHECK: return
func.func @depth_to_space(%x: tensor<1x8x8x8xf32>) -> (tensor<1x8x14x14xf32>, tensor<1x8x16x16xf32>) {
  %w = osc.constant dense<0.1> : tensor<32x8x3x3xf32>
  %w8 = osc.constant dense<0.1> : tensor<8x8x3x3xf32>
  %a = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x8x8xf32>
  %d = osc.depth_to_space %a {blocksize = 2 : i64} : tensor<1x32x8x8xf32> -> tensor<1x8x16x16xf32>
  %s = osc.slice %d {starts = array<i64: 0, 0, 1, 1>, sizes = array<i64: 1, 8, 14, 14>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x8x16x16xf32> -> tensor<1x8x14x14xf32>
  %c = osc.conv %s, %w8 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x14x14xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x14x14xf32>
  %b = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x8x8xf32>
  %e = osc.depth_to_space %b {blocksize = 2 : i64, crd} : tensor<1x32x8x8xf32> -> tensor<1x8x16x16xf32>
  return %c, %e : tensor<1x8x14x14xf32>, tensor<1x8x16x16xf32>
}

// -----

// An int8 chain (osc-int8-chains): the u8 activation between two int8
// convolutions stays NHWC like an f32 one.
// CHECK: osc-conv-layout: 2 of 4 convolution activation reorders removed (2 convolutions; NHWC kept across 1 values)
// CHECK-LABEL: func.func @u8_chain
// CHECK: %[[A:.*]] = osc.conv %arg0, {{.*}}output_nhwc{{.*}} -> tensor<1x8x16x16xui8>
// CHECK: osc.conv %[[A]], {{.*}}input_nhwc{{.*}} : (tensor<1x8x16x16xui8>
func.func @u8_chain(%x: tensor<1x8x16x16xf32>, %w: tensor<8x8x3x3xi8>) -> tensor<1x8x16x16xf32> {
  %a = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, input_scale = 0.1 : f32, input_zero_point = 128 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>, output_scale = 0.05 : f32, output_zero_point = 0 : i32} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xi8>) -> tensor<1x8x16x16xui8>
  %b = osc.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, input_scale = 0.05 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>} : (tensor<1x8x16x16xui8>, tensor<8x8x3x3xi8>) -> tensor<1x8x16x16xf32>
  return %b : tensor<1x8x16x16xf32>
}

// -----

// One value as both the input and the residual of a convolution whose
// result must stay NCHW (a function result): the input side alone could be
// channels-last, but the residual is accumulated in the output's layout, so
// the value stays NCHW. The pass asks each use by its operand position
// (ChannelsLastOperand), not by the value.
// CHECK: osc-conv-layout: 0 of 4 convolution activation reorders removed (2 convolutions; NHWC kept across 0 values)
// CHECK-LABEL: func.func @input_and_residual
// CHECK-NOT: nhwc
// CHECK: return
func.func @input_and_residual(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %w = osc.constant dense<0.1> : tensor<8x8x3x3xf32>
  %a = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %b = osc.conv %a, %w sum(%a) post_ops [sum] {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  return %b : tensor<1x8x16x16xf32>
}
