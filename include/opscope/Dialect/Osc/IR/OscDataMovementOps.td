//===- OscDataMovementOps.td - the osc data-movement ops ---*- tablegen -*-===//
//
// Part of opscope. Included by OscOps.td (which defines Osc_ExecOp); split
// from it to keep each file readable. The quantization, recurrent and
// indexing ops are included from here so the op reference keeps its order.
//
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Osc_ReshapeOp : Osc_Op<"reshape", [Pure]> {
  let summary = "reinterpret a tensor with another shape";
  let description = [{
    Same element type and element count; row-major order is preserved.
    ONNX Reshape, Flatten, Squeeze and Unsqueeze all import to this op.

    ```mlir
    %y = osc.reshape %x : tensor<1x128x768xf32> -> tensor<1x128x12x64xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_TransposeOp : Osc_ExecOp<"transpose", "Transpose", [Pure],
    ["propagateExtent"]> {
  let summary = "permute dimensions";
  let description = [{
    `output.shape[i] = input.shape[perm[i]]`.

    ```mlir
    %y = osc.transpose %x {perm = array<i64: 0, 2, 1, 3>}
        : tensor<1x128x12x64xf32> -> tensor<1x12x128x64xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_DepthToSpaceOp : Osc_ExecOp<"depth_to_space", "DepthToSpace",
    [Pure, Osc_ChannelsLastFlagged],
    []> {
  let summary = "move channel blocks into spatial blocks (ONNX DepthToSpace)";
  let description = [{
    An N x C*b*b x H x W input becomes N x C x H*b x W*b, `b` the
    `blocksize`. Output (c, h*b + i, w*b + j) reads input channel
    (i*b + j)*C + c (ONNX's DCR mode, the default) or c*b*b + i*b + j
    (`crd`). The sub-pixel form of a transposed convolution
    (`osc-fuse`'s deconv-as-conv) ends with one in DCR order.

    `nhwc` (set by `osc-conv-layout`): input and result buffers hold them
    channels-last, inside a chain of convolutions. In DCR order each
    input pixel's channels are then b rows of b*C contiguous values that
    land contiguously in the output.

    ```mlir
    %y = osc.depth_to_space %x {blocksize = 2 : i64}
        : tensor<1x96x160x160xf32> -> tensor<1x24x320x320xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, I64Attr:$blocksize, UnitAttr:$crd,
                       UnitAttr:$nhwc);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Osc_BroadcastToOp : Osc_ExecOp<"broadcast_to", "BroadcastTo", [Pure],
    []> {
  let summary = "numpy-style broadcast to a larger shape";
  let description = [{
    Materializes `input` broadcast to the result shape (ONNX Expand after its
    shape operand is folded). The result shape must be the numpy broadcast of
    the input shape and itself.

    ```mlir
    %y = osc.broadcast_to %m : tensor<1x1x1x128xf32> -> tensor<1x12x128x128xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_GatherOp : Osc_ExecOp<"gather", "Gather", [Pure],
    ["getBytesMoved", "propagateExtent"]> {
  let summary = "gather slices along an axis by index";
  let description = [{
    `output.shape = data.shape[:axis] + indices.shape + data.shape[axis+1:]`.
    Negative indices count from the end, as in ONNX. Embedding lookups are
    gathers on axis 0.

    ```mlir
    %e = osc.gather %table[%ids] {axis = 0 : i64}
        : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$data, Osc_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = [{
    $data `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_GatherElementsOp : Osc_ExecOp<"gather_elements", "GatherElements",
    [Pure], []> {
  let summary = "gather single elements along an axis by index";
  let description = [{
    ONNX GatherElements: `output` has the shape of `indices` (same rank as
    `data`, no larger along any other axis); each element is `data` at the
    index's own position with `axis` replaced by the index's value (negative
    counts from the end).

    ```mlir
    %y = osc.gather_elements %x[%i] {axis = 1 : i64}
        : (tensor<3x3xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$data, Osc_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = [{
    $data `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_ConcatOp : Osc_ExecOp<"concat", "Concat",
    [Pure, Osc_ChannelsLastFlagged],
    []> {
  let summary = "concatenate tensors along an axis";
  let description = [{
    All inputs have the same rank and element type and agree on every
    dimension but `axis`.

    `nhwc` (set by `osc-conv-layout`): 4-D inputs and result whose buffers
    hold them channels-last, inside a chain of convolutions (an FPN's
    channel concat); `axis` still counts in the NCHW type.

    ```mlir
    %y = osc.concat %a, %b {axis = 1 : i64}
        : (tensor<1x64x28x28xf32>, tensor<1x32x28x28xf32>) -> tensor<1x96x28x28xf32>
    ```
  }];
  let arguments = (ins Variadic<Osc_Tensor>:$inputs, I64Attr:$axis,
                       UnitAttr:$nhwc);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_SliceOp : Osc_ExecOp<"slice", "Slice",
    [Pure, Osc_ChannelsLastFlagged],
    []> {
  let summary = "strided slice with static bounds";
  let description = [{
    For every dimension `d`, takes `sizes[d]` elements starting at
    `starts[d]` with stride `steps[d]` (non-zero, may be negative). The result
    shape is `sizes`. The importer clamps and normalizes ONNX's
    starts/ends/axes/steps into this full-rank form.

    `nhwc` (set by `osc-conv-layout`): 4-D input and result buffers hold
    them channels-last, inside a chain of convolutions (the crop of a
    transposed convolution's sub-pixel form); the attributes still count
    in the NCHW types.

    ```mlir
    %y = osc.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 1, 768>,
                       steps = array<i64: 1, 1>}
        : tensor<128x768xf32> -> tensor<1x768xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$steps,
                       UnitAttr:$nhwc);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Osc_PadOp : Osc_ExecOp<"pad", "Pad", [Pure],
    ["getRuntimeEnums"]> {
  let summary = "pad a tensor (constant, reflect or edge)";
  let description = [{
    `pads` holds the begin pads of every dimension followed by the end pads
    (ONNX order), all non-negative. `value` is the fill for `constant` mode.

    ```mlir
    %y = osc.pad constant %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>}
        : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
    ```
  }];
  let arguments = (ins Osc_PadMode:$mode, Osc_Tensor:$input,
                       DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<F32Attr, "0.0f">:$value);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = [{
    $mode $input attr-dict `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
}

include "opscope/Dialect/Osc/IR/OscQuantOps.td"
include "opscope/Dialect/Osc/IR/OscRecurrentOps.td"
include "opscope/Dialect/Osc/IR/OscIndexingOps.td"

def Osc_CastOp : Osc_ExecOp<"cast", "Cast", [Pure, SameOperandsAndResultShape],
    ["propagateExtent"], "1.0"> {
  let summary = "convert element type";
  let description = [{
    Elementwise conversion between element types of the same shape: float to
    int truncates toward zero, anything to `i1` tests for non-zero.

    ```mlir
    %m = osc.cast %mask : tensor<1x128xi64> -> tensor<1x128xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Osc_ResizeOp : Osc_ExecOp<"resize", "Resize",
    [Pure, Osc_ChannelsLastFlagged],
    ["getRuntimeEnums", "getFlops"]> {
  let summary = "resize by interpolation to the result shape";
  let description = [{
    Resizes every dimension to the result shape. `scales` (one per dimension)
    is the factor used to map output to input coordinates; when absent it is
    `output / input`. Coordinate transformation, nearest rounding and the
    cubic coefficient follow ONNX Resize; the format spells them in that order
    (`mode coordinate_transformation_mode nearest_mode`).

    `tf_crop_and_resize` maps the output onto the box `roi` (starts, then
    ends, one per dimension, as fractions of `input - 1`); an output
    whose coordinate falls outside the input in any dimension is
    `extrapolation_value`. Other transformations have no `roi`.

    `nhwc` (set by `osc-conv-layout`): a nearest or linear resize of the two
    spatial dimensions of an `N x C x H x W` tensor whose input and output
    buffers hold it channels-last, inside a chain of convolutions.

    ```mlir
    %y = osc.resize nearest asymmetric floor %x
        : tensor<1x64x28x28xf32> -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Osc_ResizeMode:$mode,
      Osc_CoordinateTransform:$coordinate_transformation_mode,
      Osc_NearestMode:$nearest_mode, Osc_FloatTensor:$input,
      DefaultValuedAttr<F32Attr, "-0.75f">:$cubic_coeff_a,
      UnitAttr:$exclude_outside,
      OptionalAttr<DenseF32ArrayAttr>:$scales, UnitAttr:$nhwc,
      OptionalAttr<DenseF32ArrayAttr>:$roi,
      DefaultValuedAttr<F32Attr, "0.0f">:$extrapolation_value);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = [{
    $mode $coordinate_transformation_mode $nearest_mode $input attr-dict
    `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
}
