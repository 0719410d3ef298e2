//===- OscOps.td - osc dialect operations ------------------*- tablegen -*-===//
//
// Part of opscope. Shape rules are enforced by each op's verifier (see
// lib/Dialect/Osc/IR/OscOps.cpp); the importer relies on them to reject models
// whose declared shapes contradict their graph.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_IR_OSCOPS_TD
#define OPSCOPE_DIALECT_OSC_IR_OSCOPS_TD

include "opscope/Dialect/Osc/IR/OscBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "opscope/Dialect/Osc/IR/OscInterfaces.td"

/// An op the runtime executes: `kind` is its entry in kinds.def (OpKind).
/// `facts` lists the ExecutableOpInterface methods the op implements in C++
/// (lib/Dialect/Osc/IR/OscContract.cpp); the others take the interface's
/// defaults, the FLOPs default charging `flopsPerOutputElement` per output
/// element.
class Osc_ExecOp<string mnemonic, string kind, list<Trait> traits = [],
                 list<string> facts = [], string flopsPerOutputElement = "0.0">
    : Osc_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<Osc_ExecutableOpInterface, facts>])> {
  let extraClassDeclaration = [{
    static constexpr ::opscope::rt::OpKind kRuntimeKind =
        ::opscope::rt::OpKind::}] # kind # [{;
    static constexpr double kFlopsPerOutputElement = }] #
        flopsPerOutputElement # [{;
  }];
}

/// osc-conv-layout's contract (ChannelsLastOpInterface): an op that may run
/// channels-last declares `canRunChannelsLast`; one with layout flags of its
/// own also sets them (a convolution says more: Osc_ChannelsLastConv).
defvar Osc_ChannelsLastAgnostic =
    DeclareOpInterfaceMethods<Osc_ChannelsLastOpInterface>;
defvar Osc_ChannelsLastFlagged =
    DeclareOpInterfaceMethods<Osc_ChannelsLastOpInterface, ["setChannelsLast"]>;
defvar Osc_ChannelsLastConv =
    DeclareOpInterfaceMethods<Osc_ChannelsLastOpInterface,
        ["setChannelsLast", "convertsLayout", "getChannelsLastOperand"]>;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Osc_ConstantOp : Osc_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "constant tensor or weight";
  let description = [{
    A compile-time tensor. Model weights use `dense_resource` blobs so that
    printed IR stays readable; small constants may be `dense`. The result type
    is the attribute's type.

    ```mlir
    %w = osc.constant dense_resource<encoder.0.ffn.w> : tensor<3072x768xf32>
    %eps = osc.constant dense<9.99999974E-6> : tensor<f32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

def Osc_MatMulOp : Osc_ExecOp<"matmul", "MatMul", [Pure],
    ["getWeightOperand", "getFlops"]> {
  let summary = "batched matrix multiplication with numpy batch broadcasting";
  let description = [{
    `output = scale * op(lhs) x op(rhs)` where `op` transposes the two innermost
    dimensions when `transpose_a` / `transpose_b` is set. Both operands have
    rank >= 2; leading (batch) dimensions broadcast like numpy. `scale` lets
    fusion fold a constant scalar multiply (e.g. attention's 1/sqrt(d)) into
    the product. With `compute_bf16` (`osc-precision` with `precision=bf16`)
    both operands are rounded to bf16 on entry and the product accumulates
    in f32; inside a bf16 chain (`osc-bf16-chains`) either operand and the
    result may be `bf16`, an operand then read as it is and the result
    rounded to nearest even. With `compute_int8` (`precision=int8`) both are quantized on
    every run from the ranges they have then (dynamic, per tensor, as ONNX
    Runtime's DynamicQuantizeLinear + MatMulInteger do): `lhs` to u8 with a
    zero point, `rhs` symmetrically to s8; the product accumulates in int32
    and is scaled back to f32.

    ```mlir
    %s = osc.matmul %q, %k transpose_b {scale = 1.250000e-01 : f32}
        : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x128x128xf32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$lhs, Osc_FloatTensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       DefaultValuedAttr<F32Attr, "1.0f">:$scale,
                       UnitAttr:$compute_bf16, UnitAttr:$compute_int8);
  let results = (outs Osc_FloatTensor:$output);
  let builders = [
    // f32 compute, as the importer and the fusion patterns create it.
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$lhs,
                   "::mlir::Value":$rhs, "::mlir::UnitAttr":$transpose_a,
                   "::mlir::UnitAttr":$transpose_b, "::mlir::FloatAttr":$scale), [{
      build($_builder, $_state, output, lhs, rhs, transpose_a, transpose_b,
            scale, ::mlir::UnitAttr(), ::mlir::UnitAttr());
    }]>
  ];
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_InnerProductOp : Osc_ExecOp<"inner_product", "InnerProduct",
    [Pure, AttrSizedOperandSegments],
    ["getRuntimeOperands", "getWeightOperand", "getFlops", "getInPlaceOperand"]> {
  let summary = "fully connected layer with bias and post-ops";
  let description = [{
    `output[..., n] = post_ops(sum_k input[..., k] * weight[n, k] + bias[n])`.
    The weight is laid out `N x K` (output features by input features, as
    oneDNN and PyTorch's Linear store it); `input` has rank >= 2 and all but
    its last dimension are rows. `post_ops` apply in order; a `sum` post-op
    adds `sum_input` (same shape as the output), which is how a residual Add
    is fused.

    int8 (`osc-precision` with `precision=int8`): the weight is `i8`,
    quantized per output row symmetrically, `weight[n, k] ~= weight_scales[n]
    * w8[n, k]`; the f32 input is quantized to u8 on entry with the
    calibrated `input_scale` and `input_zero_point` (`x ~= input_scale * (u8 -
    input_zero_point)`); accumulation is int32 and the output, bias and
    post-ops are f32. Inside an int8 chain (`osc-int8-chains`) the input may
    be `ui8` already (quantized by the inner product before), and a `ui8`
    result is written quantized with `output_scale` / `output_zero_point`
    (the next inner product's input quantization) after the bias and
    post-ops. With a bf16 weight the input and the result may be `bf16`
    inside a bf16 chain (`osc-bf16-chains`): a bf16 input is read as it
    is, a bf16 result is the f32 one rounded to nearest even after the bias
    and post-ops (no sum then).

    `dense_kernel = "matmul"` (set by `osc-sparse-layout` from the tuning
    database, where oneDNN's matmul primitive measured faster than its inner
    product on this shape) runs an f32 op on the matmul primitive. Without
    it the runtime picks by tier at load (the matmul on the AMX tier;
    docs/tuning.md).

    ```mlir
    %y = osc.inner_product %x, %w bias(%b) sum(%res) post_ops [gelu_erf, sum]
        : (tensor<1x128x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>,
           tensor<1x128x3072xf32>) -> tensor<1x128x3072xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, Osc_Tensor:$weight,
                       Optional<Osc_FloatTensor>:$bias,
                       Optional<Osc_FloatTensor>:$sum_input,
                       DefaultValuedAttr<Osc_PostOpList, "{}">:$post_ops,
                       OptionalAttr<F32Attr>:$input_scale,
                       OptionalAttr<I32Attr>:$input_zero_point,
                       OptionalAttr<DenseF32ArrayAttr>:$weight_scales,
                       OptionalAttr<StrAttr>:$dense_kernel,
                       OptionalAttr<F32Attr>:$output_scale,
                       OptionalAttr<I32Attr>:$output_zero_point);
  let results = (outs Osc_Tensor:$output);
  let builders = [
    // f32/bf16 (no quantization), as the fusion patterns create it.
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::mlir::Value":$weight, "::mlir::Value":$bias,
                   "::mlir::Value":$sum_input, "::mlir::ArrayAttr":$post_ops), [{
      build($_builder, $_state, output, input, weight, bias, sum_input,
            post_ops, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    }]>
  ];
  let assemblyFormat = [{
    $input `,` $weight (`bias` `(` $bias^ `)`)? (`sum` `(` $sum_input^ `)`)?
    (`post_ops` custom<PostOps>($post_ops)^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_SparseInnerProductOp : Osc_ExecOp<"sparse_inner_product",
    "SparseInnerProduct", [Pure, AttrSizedOperandSegments],
    ["getRuntimeOperands", "getWeightOperand", "getFlops", "getBytesMoved",
     "getInPlaceOperand"]> {
  let summary = "inner product with a block-sparse packed weight";
  let description = [{
    `osc.inner_product` whose `N x K` weight (`weight_shape`) is packed in
    blocks of `block_rows` x 4 (runtime/include/opscope/runtime/
    sparse_format.h): `packed` is the blob, a constant 1-D `i8` tensor
    written to `.weights` as is. `osc-sparse-layout` creates it from inner
    products whose weight is sparse enough, recording the weight's
    `block_sparsity` (fraction of all-zero 1x4 blocks), `weight_sparsity`
    (fraction of zero elements) and `nonzero_blocks` (non-zero 1x4 blocks).
    `block_rows` is 4 when the weight's non-zero 1x4 blocks line up in 4x4
    blocks (pruned with `opscope-prune --block 4x4`): the kernels then load
    each activation vector once for four outputs.

    The activations may be transposed: with `transposed_input` the input is
    `K x M` instead of `[..., K]`; with `transposed_output` the result (and
    the `sum` post-op's input) is `N x M` instead of `[..., N]`. The pass
    keeps chains of sparse inner products in that layout (Y^T = W X^T); the
    kernels transpose their tiles at a chain's ends.

    A blob of s8 values (from an int8 inner product) carries its per-row
    scales itself; the op then has the `input_scale` and `input_zero_point`
    with which the kernel quantizes its f32 input to u8.

    ```mlir
    %y = osc.sparse_inner_product %x, %packed bias(%b) post_ops [gelu_erf]
        {weight_shape = array<i64: 3072, 768>, block_sparsity = 0.8,
         weight_sparsity = 0.8, nonzero_blocks = 117964 : i64,
         transposed_output}
        : (tensor<1x128x768xf32>, tensor<1492352xi8>, tensor<3072xf32>)
        -> tensor<3072x128xf32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input, Osc_Tensor:$packed,
                       Optional<Osc_FloatTensor>:$bias,
                       Optional<Osc_FloatTensor>:$sum_input,
                       DefaultValuedAttr<Osc_PostOpList, "{}">:$post_ops,
                       DenseI64ArrayAttr:$weight_shape,
                       F64Attr:$block_sparsity, F64Attr:$weight_sparsity,
                       I64Attr:$nonzero_blocks,
                       UnitAttr:$transposed_input, UnitAttr:$transposed_output,
                       OptionalAttr<F32Attr>:$input_scale,
                       OptionalAttr<I32Attr>:$input_zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$block_rows);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $packed (`bias` `(` $bias^ `)`)? (`sum` `(` $sum_input^ `)`)?
    (`post_ops` custom<PostOps>($post_ops)^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_ConvOp : Osc_ExecOp<"conv", "Conv", [Pure, AttrSizedOperandSegments,
    Osc_ChannelsLastConv],
    ["getRuntimeOperands", "getWeightOperand", "getFlops",
     "getInPlaceOperand"]> {
  let summary = "N-d convolution (NCHW) with bias and post-ops";
  let description = [{
    Convolution over 1 to 3 spatial dimensions in `N x C x spatial...` layout.
    The weight is `OC x C/groups x kernel...`. `pads` holds the begin pads of
    every spatial dimension followed by the end pads (ONNX order); auto-padding
    is resolved by the importer. Each output spatial size is
    `floor((in + pad_begin + pad_end - dilation * (k - 1) - 1) / stride) + 1`.

    `input_nhwc` / `output_nhwc` (set by `osc-conv-layout`, 2 spatial
    dimensions only): the input / output buffer holds the tensor
    channels-last (`N x H x W x C` in memory) although its type stays
    `N x C x H x W`, so that chained convolutions pass activations in the
    layout oneDNN computes in instead of reordering at every op. A `sum`
    input is in the output's layout.

    Precision (`osc-precision`), as for `osc.inner_product`: a bf16 weight
    makes the convolution round its f32 input to bf16 on entry and
    accumulate in f32; an i8 weight, quantized per output channel
    symmetrically (`weight[o, ...] ~= weight_scales[o] * w8[o, ...]`), makes
    it quantize its f32 input to u8 with `input_scale` and
    `input_zero_point` on entry (padding contributes nothing, as zero in
    f32 does) and accumulate in int32; bias, post-ops and output stay f32.
    Along a chain of int8 convolutions the activations stay u8
    (`osc-int8-chains`): an input of type `ui8` is already quantized with
    `input_scale` / `input_zero_point` (by a convolution whose
    `output_scale` / `output_zero_point` are those), and a `ui8` result is written
    quantized with `output_scale` / `output_zero_point` (the consumer's
    input quantization) after the bias and post-ops, so no f32 tensor is
    written or read between them. With a bf16 weight, the input and the
    result may be `bf16` inside a bf16 chain (`osc-bf16-chains`): a bf16
    input is read as it is, a bf16 result is the f32 one rounded to
    nearest even (no sum then).

    ```mlir
    %y = osc.conv %x, %w bias(%b) post_ops [relu]
        {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>,
         dilations = array<i64: 1, 1>, groups = 1 : i64}
        : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>)
        -> tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, Osc_Tensor:$weight,
                       Optional<Osc_FloatTensor>:$bias,
                       Optional<Osc_FloatTensor>:$sum_input,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DefaultValuedAttr<Osc_PostOpList, "{}">:$post_ops,
                       UnitAttr:$input_nhwc, UnitAttr:$output_nhwc,
                       OptionalAttr<F32Attr>:$input_scale,
                       OptionalAttr<I32Attr>:$input_zero_point,
                       OptionalAttr<DenseF32ArrayAttr>:$weight_scales,
                       OptionalAttr<F32Attr>:$output_scale,
                       OptionalAttr<I32Attr>:$output_zero_point);
  let results = (outs Osc_Tensor:$output);
  let builders = [
    // f32 NCHW, as the importer and the fusion patterns create it.
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::mlir::Value":$weight, "::mlir::Value":$bias,
                   "::mlir::Value":$sum_input,
                   "::mlir::DenseI64ArrayAttr":$strides,
                   "::mlir::DenseI64ArrayAttr":$pads,
                   "::mlir::DenseI64ArrayAttr":$dilations,
                   "::mlir::IntegerAttr":$groups,
                   "::mlir::ArrayAttr":$post_ops), [{
      build($_builder, $_state, output, input, weight, bias, sum_input,
            strides, pads, dilations, groups, post_ops, nullptr, nullptr,
            nullptr, nullptr, nullptr, nullptr, nullptr);
    }]>
  ];
  let assemblyFormat = [{
    $input `,` $weight (`bias` `(` $bias^ `)`)? (`sum` `(` $sum_input^ `)`)?
    (`post_ops` custom<PostOps>($post_ops)^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_ConvTransposeOp : Osc_ExecOp<"conv_transpose", "ConvTranspose",
    [Pure, Osc_ChannelsLastConv],
    ["getRuntimeOperands", "getWeightOperand", "getFlops"]> {
  let summary = "N-d transposed convolution (NCHW) with bias";
  let description = [{
    The gradient-of-convolution operator used for upsampling. The weight is
    `C x OC/groups x kernel...`. Each output spatial size is
    `stride * (in - 1) + output_padding + dilation * (k - 1) + 1 - pad_begin - pad_end`.

    Precision (`osc-precision`): a bf16 weight makes it round its f32 input
    to bf16 on entry and accumulate in f32; an i8 weight, quantized per
    output channel symmetrically (output channel `o = g * OC/groups + j`
    covers `weight[g * C/groups .. (g + 1) * C/groups - 1, j, ...]`, scale
    `weight_scales[o]`), makes it quantize its f32 input to u8 with
    `input_scale` / `input_zero_point` on entry and accumulate in int32;
    bias, post-ops and output stay f32.

    `input_nhwc` / `output_nhwc` (set by `osc-conv-layout`, 2 spatial
    dimensions only), as on `osc.conv`: the buffer holds the tensor
    channels-last, so a decoder's upsampling stays in the chain of
    convolutions around it.

    ```mlir
    %y = osc.conv_transpose %x, %w
        {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
         dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}
        : (tensor<1x8x16x16xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x32x32xf32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input, Osc_Tensor:$weight,
                       Optional<Osc_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DefaultValuedAttr<Osc_PostOpList, "{}">:$post_ops,
                       OptionalAttr<F32Attr>:$input_scale,
                       OptionalAttr<I32Attr>:$input_zero_point,
                       OptionalAttr<DenseF32ArrayAttr>:$weight_scales,
                       UnitAttr:$input_nhwc, UnitAttr:$output_nhwc);
  let results = (outs Osc_FloatTensor:$output);
  let builders = [
    // f32, as the importer and the fusion patterns create it.
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::mlir::Value":$weight, "::mlir::Value":$bias,
                   "::mlir::DenseI64ArrayAttr":$strides,
                   "::mlir::DenseI64ArrayAttr":$pads,
                   "::mlir::DenseI64ArrayAttr":$dilations,
                   "::mlir::DenseI64ArrayAttr":$output_padding,
                   "::mlir::IntegerAttr":$groups,
                   "::mlir::ArrayAttr":$post_ops), [{
      build($_builder, $_state, output, input, weight, bias, strides, pads,
            dilations, output_padding, groups, post_ops, nullptr, nullptr,
            nullptr, nullptr, nullptr);
    }]>
  ];
  let assemblyFormat = [{
    $input `,` $weight (`bias` `(` $bias^ `)`)?
    (`post_ops` custom<PostOps>($post_ops)^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_PoolOp : Osc_ExecOp<"pool", "Pool", [Pure, Osc_ChannelsLastFlagged],
    ["getRuntimeEnums", "getKindSuffix", "getFlops"]> {
  let summary = "max or average pooling over a window";
  let description = [{
    Windowed pooling in `N x C x spatial...` layout. Each output spatial size is
    `(in + pad_begin + pad_end - dilation * (k - 1) - 1) / stride + 1`, rounded
    down, or up when `ceil_mode` is set (a last window that would start in the
    end padding is dropped, as in ONNX and PyTorch). For `avg`,
    `count_include_pad` decides whether padded cells count in the divisor.
    `nhwc` (set by `osc-conv-layout` on 2-D pooling): the input and
    output buffers hold the tensor channels-last.

    ```mlir
    %y = osc.pool max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
        pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
        : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Osc_PoolKind:$kind, Osc_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                       UnitAttr:$ceil_mode, UnitAttr:$count_include_pad,
                       UnitAttr:$nhwc);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = [{
    $kind $input attr-dict `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
}

def Osc_GlobalPoolOp : Osc_ExecOp<"global_pool", "GlobalPool", [Pure],
    ["getRuntimeEnums", "getKindSuffix", "getFlops"]> {
  let summary = "max or average over all spatial positions";
  let description = [{
    Reduces every spatial dimension of an `N x C x spatial...` tensor to 1.

    ```mlir
    %y = osc.global_pool avg %x : tensor<1x512x7x7xf32> -> tensor<1x512x1x1xf32>
    ```
  }];
  let arguments = (ins Osc_PoolKind:$kind, Osc_FloatTensor:$input);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = [{
    $kind $input attr-dict `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization and activations
//===----------------------------------------------------------------------===//

def Osc_BatchNormOp : Osc_ExecOp<"batch_norm", "BatchNorm", [Pure],
    [], "2.0"> {
  let summary = "inference-mode batch normalization";
  let description = [{
    `output = scale * (input - mean) / sqrt(variance + epsilon) + bias`, per
    channel (dimension 1). All four parameters have shape `C`. Fusion folds it
    into a preceding convolution's weights.

    ```mlir
    %y = osc.batch_norm %x, %g, %b, %m, %v {epsilon = 9.99999974E-6 : f32}
        : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>,
           tensor<64xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input, Osc_FloatTensor:$scale,
                       Osc_FloatTensor:$bias, Osc_FloatTensor:$mean,
                       Osc_FloatTensor:$variance,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Osc_LayerNormOp : Osc_ExecOp<"layer_norm", "LayerNorm", [Pure],
    ["getRuntimeOperands"], "8.0"> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    Normalizes over dimensions `[axis, rank)`:
    `output = (input - mean) / sqrt(var + epsilon) * scale + bias`. `scale` and
    the optional `bias` have exactly the normalized shape `input.shape[axis:]`.
    `axis` is non-negative (the importer normalizes ONNX's negative axes).
    The result may be `bf16` for an f32 input when not `transposed`
    (`osc-bf16-chains`: computed in f32, rounded to nearest even on the way
    out).

    With `transposed` (set by `osc-sparse-layout` inside a chain of sparse
    inner products) the input is the transpose of a 2-D `tokens x hidden`
    activation, `hidden x tokens`: each column is normalized over its
    `hidden` elements, `scale` and `bias` have `hidden` elements, and `axis`
    is 1 (the hidden axis of the untransposed tensor).

    ```mlir
    %y = osc.layer_norm %x, %gamma, %beta {axis = 2 : i64, epsilon = 9.99999996E-13 : f32}
        : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input, Osc_FloatTensor:$scale,
                       Optional<Osc_FloatTensor>:$bias, I64Attr:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon,
                       UnitAttr:$transposed);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Osc_SoftmaxOp : Osc_ExecOp<"softmax", "Softmax", [Pure],
    ["getRuntimeOperands", "getFlops"]> {
  let summary = "softmax along one axis, with an optional additive mask";
  let description = [{
    `output = softmax(input + mask, axis)`; with `log` set, log-softmax. The
    mask (typically an attention mask of 0 and -10000 or -inf) broadcasts to the
    input like numpy. Fusion folds the mask Add of attention into this op.
    Over the last axis the result may be `bf16` for an f32 input
    (`osc-bf16-chains`: computed in f32, rounded to nearest even on the way
    out).

    ```mlir
    %p = osc.softmax %s mask(%m) {axis = 3 : i64}
        : (tensor<1x12x128x128xf32>, tensor<1x1x1x128xf32>) -> tensor<1x12x128x128xf32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input, Optional<Osc_FloatTensor>:$mask,
                       I64Attr:$axis, UnitAttr:$log);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = [{
    $input (`mask` `(` $mask^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_GeluOp : Osc_ExecOp<"gelu", "Gelu", [Pure, SameOperandsAndResultType],
    ["getRuntimeEnums", "getKindSuffix", "getInPlaceOperand"], "8.0"> {
  let summary = "Gaussian error linear unit (erf or tanh formulation)";
  let description = [{
    `erf`: `0.5 * x * (1 + erf(x / sqrt(2)))`.
    `tanh`: `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.

    ```mlir
    %y = osc.gelu erf %x : tensor<1x128x3072xf32>
    ```
  }];
  let arguments = (ins Osc_GeluApprox:$approximation, Osc_FloatTensor:$input);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = "$approximation $input attr-dict `:` type($input)";
}

def Osc_UnaryOp : Osc_ExecOp<"unary", "Unary", [Pure, SameOperandsAndResultType,
    Osc_ChannelsLastAgnostic],
    ["getRuntimeEnums", "getKindSuffix", "getInPlaceOperand",
     "propagateExtent"], "1.0"> {
  let summary = "elementwise unary function";
  let description = [{
    One elementwise function per op, chosen by `kind`. Parameters follow
    oneDNN's eltwise convention: `leaky_relu` and `elu` take `alpha`;
    `hard_sigmoid` computes `max(0, min(1, alpha * x + beta))`; `clip` clamps to
    `[alpha, beta]`. Kinds that take no parameter reject them. `abs`, `neg` and
    `relu` also accept integer tensors; `not` takes booleans; the rest take
    floating-point tensors.

    ```mlir
    %y = osc.unary relu %x : tensor<1x64x56x56xf32>
    %c = osc.unary clip %x {alpha = 0.000000e+00 : f32, beta = 6.000000e+00 : f32} : tensor<8xf32>
    ```
  }];
  let arguments = (ins Osc_UnaryKind:$kind, Osc_Tensor:$input,
                       OptionalAttr<F32Attr>:$alpha, OptionalAttr<F32Attr>:$beta);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_BinaryOp : Osc_ExecOp<"binary", "Binary", [Pure, Osc_ChannelsLastAgnostic],
    ["getRuntimeEnums", "getKindSuffix", "getInPlaceOperand",
     "propagateExtent"], "1.0"> {
  let summary = "elementwise binary function with numpy broadcasting";
  let description = [{
    Both operands have the same element type; their shapes broadcast like numpy
    and the result has the broadcast shape. `and`, `or` and `xor` take boolean
    tensors, the arithmetic kinds numeric ones. `shl` and `shr` (ONNX
    BitShift) take unsigned integers; a shift by the bit width or more gives
    0.

    ```mlir
    %y = osc.binary add %x, %b
        : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Osc_BinaryKind:$kind, Osc_Tensor:$lhs, Osc_Tensor:$rhs);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_CompareOp : Osc_ExecOp<"compare", "Compare", [Pure],
    ["getRuntimeEnums", "getKindSuffix"], "1.0"> {
  let summary = "elementwise comparison with numpy broadcasting";
  let description = [{
    Produces an `i1` tensor of the broadcast shape.

    ```mlir
    %m = osc.compare eq %ids, %zero
        : (tensor<1x128xi64>, tensor<i64>) -> tensor<1x128xi1>
    ```
  }];
  let arguments = (ins Osc_CompareKind:$kind, Osc_Tensor:$lhs, Osc_Tensor:$rhs);
  let results = (outs Osc_BoolTensor:$output);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_WhereOp : Osc_ExecOp<"where", "Where", [Pure],
    [], "1.0"> {
  let summary = "elementwise select with numpy broadcasting";
  let description = [{
    `output = condition ? on_true : on_false`; the three shapes broadcast.

    ```mlir
    %y = osc.where %c, %x, %ninf
        : (tensor<1x1x1x128xi1>, tensor<1x12x128x128xf32>, tensor<f32>)
        -> tensor<1x12x128x128xf32>
    ```
  }];
  let arguments = (ins Osc_BoolTensor:$condition, Osc_Tensor:$on_true,
                       Osc_Tensor:$on_false);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_ReduceOp : Osc_ExecOp<"reduce", "Reduce", [Pure],
    ["getRuntimeEnums", "getKindSuffix", "getFlops"]> {
  let summary = "reduction over a set of axes";
  let description = [{
    Reduces `input` over `axes` (non-negative, unique, non-empty). With
    `keep_dims` the reduced dimensions stay as size 1.

    ```mlir
    %m = osc.reduce mean %x {axes = array<i64: 2>, keep_dims}
        : tensor<1x128x768xf32> -> tensor<1x128x1xf32>
    ```
  }];
  let arguments = (ins Osc_ReduceKind:$kind, Osc_NumericTensor:$input,
                       DenseI64ArrayAttr:$axes, UnitAttr:$keep_dims);
  let results = (outs Osc_NumericTensor:$output);
  let assemblyFormat = [{
    $kind $input attr-dict `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_ArgReduceOp : Osc_ExecOp<"arg_reduce", "ArgReduce", [Pure],
    ["getFlops"]> {
  let summary = "index of the largest (or smallest) element along an axis";
  let description = [{
    ONNX ArgMax, or ArgMin with `min`: the i64 index of the first extreme
    element along `axis` (non-negative), or of the last with
    `select_last_index`. With `keep_dims` the axis stays as size 1.

    ```mlir
    %i = osc.arg_reduce %x {axis = 1 : i64, keep_dims}
        : tensor<2x10xf32> -> tensor<2x1xi64>
    ```
  }];
  let arguments = (ins Osc_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$keep_dims, UnitAttr:$min,
                       UnitAttr:$select_last_index);
  let results = (outs StaticShapeTensorOf<[I64]>:$output);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
}

include "opscope/Dialect/Osc/IR/OscDataMovementOps.td"
include "opscope/Dialect/Osc/IR/OscVisionOps.td"
include "opscope/Dialect/Osc/IR/OscLinalgOps.td"
include "opscope/Dialect/Osc/IR/OscControlFlowOps.td"
include "opscope/Dialect/Osc/IR/OscRandomOps.td"

//===----------------------------------------------------------------------===//
// Profiling
//===----------------------------------------------------------------------===//

def Osc_ProbeOp : Osc_Op<"probe", [
    SingleBlockImplicitTerminator<"YieldOp">,
    RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<RegionBranchOpInterface>]> {
  let summary = "times the execution of the ops it wraps";
  let description = [{
    A profiling probe in region form: the runtime records a begin timestamp
    before the body and an end timestamp after it, under the dense probe id
    `id`. The body's yielded values are the probe's results. The region form
    pairs begin and end by construction (no unmatched or interleaved probes
    can be expressed) and keeps the timed ops lexically inside the probe, so
    no later rewrite can move them out of it. The static facts about the
    probed op (shapes, FLOPs, kernel, source nodes) live in the probe table
    built by `osc-insert-probes`, keyed by `id`; `name` is for readers.

    ```mlir
    %y = osc.probe 3 "encoder.0.ffn.fc1" -> tensor<1x128x3072xf32> {
      %0 = osc.inner_product %x, %w bias(%b) post_ops [gelu_erf]
          : (tensor<1x128x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>)
          -> tensor<1x128x3072xf32>
      osc.yield %0 : tensor<1x128x3072xf32>
    }
    ```
  }];
  let arguments = (ins I64Attr:$id, StrAttr:$name);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $id $name (`->` type($results)^)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def Osc_YieldOp : Osc_Op<"yield", [Pure, ReturnLike, Terminator,
                                     ParentOneOf<["ProbeOp", "IfOp", "LoopOp"]>]> {
  let summary = "returns values from an osc.probe, osc.if or osc.loop body";
  let description = [{
    ```mlir
    osc.yield %0 : tensor<1x128x3072xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // OPSCOPE_DIALECT_OSC_IR_OSCOPS_TD
