//===- OscQuantOps.td - the osc quantization ops -----------*- tablegen -*-===//
//
// Part of opscope. Included by OscOps.td (which defines Osc_ExecOp); split
// from it to keep each file readable.
//
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Quantization (ONNX QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
// MatMulInteger, ConvInteger; QLinearMatMul and QLinearConv are imported as
// their compositions)
//===----------------------------------------------------------------------===//

def Osc_QuantizeLinearOp : Osc_ExecOp<"quantize_linear", "QuantizeLinear",
    [Pure], ["getRuntimeOperands"], "3.0"> {
  let summary = "affine quantization of f32 to u8 or i8";
  let description = [{
    `output = saturate(round_half_even(input / scale) + zero_point)`, as ONNX
    QuantizeLinear. `scale` and `zero_point` are 0-D (per tensor) or 1-D of
    the size of dimension `axis` (per axis); the result's element type (`ui8`
    or `i8`) is the zero point's, `ui8` without one.

    ```mlir
    %q = osc.quantize_linear %x, %s, %zp {axis = 1 : i64}
        : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input, Osc_FloatTensor:$scale,
                       Optional<Osc_Tensor>:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_DequantizeLinearOp : Osc_ExecOp<"dequantize_linear",
    "DequantizeLinear", [Pure], ["getRuntimeOperands"], "2.0"> {
  let summary = "u8, i8 or i32 to f32: (input - zero_point) * scale";
  let description = [{
    ONNX DequantizeLinear: `output = (input - zero_point) * scale` in f32,
    with `scale` and `zero_point` per tensor (0-D) or per `axis` (1-D). The
    importer folds it when the input is a constant (quantized weights become
    f32 weights).

    ```mlir
    %x = osc.dequantize_linear %q, %s, %zp : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, Osc_FloatTensor:$scale,
                       Optional<Osc_Tensor>:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_DynamicQuantizeLinearOp : Osc_ExecOp<"dynamic_quantize_linear",
    "DynamicQuantizeLinear", [Pure], [], "4.0"> {
  let summary = "u8 quantization with a scale and zero point from the data";
  let description = [{
    ONNX DynamicQuantizeLinear: the range `[min(0, min x), max(0, max x)]`
    gives `scale = range / 255` and `zero_point = saturate(round(-min /
    scale))`; the quantized data is `saturate(round(input / scale) +
    zero_point)` (`ui8`). ONNX's three results are three ops (`part` =
    0: the data, 1: the scale, `tensor<f32>`, 2: the zero point,
    `tensor<ui8>`): the runtime's memory plan has one buffer per op, and
    each recomputes the range, which costs one pass over the input.

    ```mlir
    %s = osc.dynamic_quantize_linear %x {part = 1 : i64} : (tensor<3x4xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input, I64Attr:$part);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Osc_ConvIntegerOp : Osc_ExecOp<"conv_integer", "ConvInteger",
    [Pure, AttrSizedOperandSegments], ["getRuntimeOperands", "getFlops"]> {
  let summary = "u8/i8 N-d convolution (NCHW) with zero points, i32 result";
  let description = [{
    ONNX ConvInteger: `(input - input_zero_point) * (weight -
    weight_zero_point)` convolved and accumulated in i32, in `N x C x
    spatial...` layout with an `OC x C/groups x kernel...` weight (1 to 3
    spatial dimensions). The input zero point is per tensor; the weight's
    per tensor or per output channel (OC). Padding reads the input zero
    point (a padded element contributes nothing). `pads`, `strides`,
    `dilations` and `groups` are those of `osc.conv`; auto-padding is
    resolved by the importer. QLinearConv is imported as conv_integer,
    dequantize_linear (scale input_scale x weight_scale per output channel),
    the bias and quantize_linear.

    Dequantizing form (`osc-fuse`'s `fuse-dynamic-quant`, ONNX Runtime's
    `quantize_dynamic` layers): with `weight_scale` the result is f32,
    `float(sums) * (input_scale * weight_scale[oc]) (+ bias[oc])`, then
    the `post_ops` (only `relu`), in that order and in f32 without
    contraction, so that it equals Cast -> Mul -> Add -> Relu bit for bit.
    `weight_scale` and `bias` have one element or one per output channel
    (any shape, e.g. `1 x OC x 1 x 1`). An f32 `input` is quantized by the
    op itself as DynamicQuantizeLinear does (one range pass, one quantize
    pass): no `input_zero_point` or `input_scale` then. A ui8 input
    (a DynamicQuantizeLinear shared with other consumers) takes its scale
    as `input_scale`.

    ```mlir
    %y = osc.conv_integer %x, %w input_zero_point(%xz)
        {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
         dilations = array<i64: 1, 1>}
        : (tensor<1x8x16x16xui8>, tensor<16x8x3x3xi8>, tensor<ui8>)
        -> tensor<1x16x16x16xi32>
    %z = osc.conv_integer %f, %w weight_zero_point(%wz) weight_scale(%ws)
        bias(%b) post_ops [relu]
        {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
         dilations = array<i64: 1, 1>}
        : (tensor<1x8x16x16xf32>, tensor<16x8x3x3xui8>, tensor<ui8>,
           tensor<f32>, tensor<1x16x1x1xf32>) -> tensor<1x16x16x16xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, Osc_Tensor:$weight,
                       Optional<Osc_Tensor>:$input_zero_point,
                       Optional<Osc_Tensor>:$weight_zero_point,
                       Optional<Osc_FloatTensor>:$input_scale,
                       Optional<Osc_FloatTensor>:$weight_scale,
                       Optional<Osc_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DefaultValuedAttr<Osc_PostOpList, "{}">:$post_ops);
  let results = (outs Osc_Tensor:$output);
  let builders = [
    // The integer form (i32 sums), as the importer creates it.
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::mlir::Value":$weight, "::mlir::Value":$input_zero_point,
                   "::mlir::Value":$weight_zero_point,
                   "::mlir::DenseI64ArrayAttr":$strides,
                   "::mlir::DenseI64ArrayAttr":$pads,
                   "::mlir::DenseI64ArrayAttr":$dilations,
                   "::mlir::IntegerAttr":$groups), [{
      build($_builder, $_state, output, input, weight, input_zero_point,
            weight_zero_point, nullptr, nullptr, nullptr, strides, pads,
            dilations, groups, nullptr);
    }]>
  ];
  let assemblyFormat = [{
    $input `,` $weight (`input_zero_point` `(` $input_zero_point^ `)`)?
    (`weight_zero_point` `(` $weight_zero_point^ `)`)?
    (`input_scale` `(` $input_scale^ `)`)?
    (`weight_scale` `(` $weight_scale^ `)`)? (`bias` `(` $bias^ `)`)?
    (`post_ops` custom<PostOps>($post_ops)^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_MatMulIntegerOp : Osc_ExecOp<"matmul_integer", "MatMulInteger",
    [Pure, AttrSizedOperandSegments], ["getRuntimeOperands", "getFlops"]> {
  let summary = "u8/i8 matrix product with zero points, i32 result";
  let description = [{
    ONNX MatMulInteger: `(lhs - lhs_zero_point) x (rhs - rhs_zero_point)`
    accumulated in i32, batch dimensions broadcast as in MatMul. The lhs zero
    point is per tensor or per row (M), the rhs's per tensor or per column
    (N).

    Dequantizing form (`fuse-dynamic-quant`), as `osc.conv_integer`'s: with
    `rhs_scale` the result is f32, `float(sums) * (lhs_scale *
    rhs_scale[n]) (+ bias[n])` then the `post_ops` (only `relu`), equal
    bit for bit to Cast -> Mul -> Add -> Relu; `rhs_scale` and `bias` have
    one element or one per column (N). An f32 `lhs` is quantized by the op
    itself (DynamicQuantizeLinear, one range pass and one quantize pass),
    without `lhs_zero_point` or `lhs_scale`.

    ```mlir
    %y = osc.matmul_integer %a, %b lhs_zero_point(%azp) rhs_zero_point(%bzp)
        : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<ui8>, tensor<ui8>) -> tensor<4x2xi32>
    %z = osc.matmul_integer %x, %b rhs_zero_point(%bzp) rhs_scale(%bs) bias(%c)
        : (tensor<4x3xf32>, tensor<3x2xi8>, tensor<i8>, tensor<f32>, tensor<2xf32>)
        -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$lhs, Osc_Tensor:$rhs,
                       Optional<Osc_Tensor>:$lhs_zero_point,
                       Optional<Osc_Tensor>:$rhs_zero_point,
                       Optional<Osc_FloatTensor>:$lhs_scale,
                       Optional<Osc_FloatTensor>:$rhs_scale,
                       Optional<Osc_FloatTensor>:$bias,
                       DefaultValuedAttr<Osc_PostOpList, "{}">:$post_ops);
  let results = (outs Osc_Tensor:$output);
  let builders = [
    // The integer form (i32 sums), as the importer creates it.
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$lhs,
                   "::mlir::Value":$rhs, "::mlir::Value":$lhs_zero_point,
                   "::mlir::Value":$rhs_zero_point), [{
      build($_builder, $_state, output, lhs, rhs, lhs_zero_point,
            rhs_zero_point, nullptr, nullptr, nullptr, nullptr);
    }]>
  ];
  let assemblyFormat = [{
    $lhs `,` $rhs (`lhs_zero_point` `(` $lhs_zero_point^ `)`)?
    (`rhs_zero_point` `(` $rhs_zero_point^ `)`)?
    (`lhs_scale` `(` $lhs_scale^ `)`)? (`rhs_scale` `(` $rhs_scale^ `)`)?
    (`bias` `(` $bias^ `)`)?
    (`post_ops` custom<PostOps>($post_ops)^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}
