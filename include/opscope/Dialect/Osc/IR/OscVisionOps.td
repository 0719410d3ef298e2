//===- OscVisionOps.td - the osc image ops -----------------*- tablegen -*-===//
//
// Part of opscope. Included by OscOps.td (which defines Osc_ExecOp); split
// from it to keep each file readable. The per-image ops of vision and
// style-transfer models that have no composition of other osc ops as fast.
//
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Image ops (ONNX InstanceNormalization, ...)
//===----------------------------------------------------------------------===//

def Osc_InstanceNormOp : Osc_ExecOp<"instance_norm", "InstanceNorm", [Pure],
    [], "7.0"> {
  let summary = "instance normalization: per sample and channel";
  let description = [{
    ONNX InstanceNormalization. Each sample's channel (dimension 1 of an
    `N x C x spatial...` input, at least 2-D) is normalized over its spatial
    positions, then scaled and shifted by the channel's `scale` and `bias`
    (`C` elements each):
    `output = scale[c] * (input - mean) / sqrt(var + epsilon) + bias[c]`,
    with the biased variance.

    ```mlir
    %y = osc.instance_norm %x, %s, %b {epsilon = 9.99999974E-6 : f32}
        : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input, Osc_FloatTensor:$scale,
                       Osc_FloatTensor:$bias,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Osc_LrnOp : Osc_ExecOp<"lrn", "Lrn", [Pure, SameOperandsAndResultType],
    [], "12.0"> {
  let summary = "local response normalization across channels";
  let description = [{
    ONNX LRN on an `N x C x ...` input (at least 2-D): each element is
    divided by `(bias + alpha / size * square_sum)^beta`, where `square_sum`
    sums the squares of the same position in channels
    `[c - floor((size - 1) / 2), c + ceil((size - 1) / 2)]` (those that
    exist). `size` is at least 1. The FLOPs charged per element are those
    of the common `size = 5`.

    ```mlir
    %y = osc.lrn %x {alpha = 9.99999974E-5 : f32, beta = 7.500000e-01 : f32,
                     bias = 1.000000e+00 : f32, size = 5 : i64}
        : tensor<1x96x55x55xf32> -> tensor<1x96x55x55xf32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input, F32Attr:$alpha, F32Attr:$beta,
                       F32Attr:$bias, I64Attr:$size);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}
