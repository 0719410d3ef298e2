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

def Osc_MaxUnpoolOp : Osc_ExecOp<"max_unpool", "MaxUnpool", [Pure], []> {
  let summary = "scatter pooled values back to their positions";
  let description = [{
    ONNX MaxUnpool: `output` is zeros except `output.flat[indices[i]] =
    input[i]`, the indices (i64, the input's shape) flat over the whole
    output tensor as MaxPool's Indices output gives them. The output's shape
    (the same rank, batch and channels) comes from the importer: ONNX's
    formula from the kernel, strides and pads (an `output_shape` input is
    an osc.pad of the result).
    An index out of range fails the run, naming the op.

    ```mlir
    %y = osc.max_unpool %x, %i : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, StaticShapeTensorOf<[I64]>:$indices);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Osc_IndexedMaxPoolOp : Osc_ExecOp<"indexed_max_pool", "IndexedMaxPool",
    [Pure], []> {
  let summary = "max pooling with ONNX's Indices output, or over integers";
  let description = [{
    ONNX MaxPool where oneDNN's pooling (osc.pool) does not serve: when the
    Indices output is used, or on i8 and u8 elements. The window, output
    size and padding follow osc.pool (`pads` is begins then ends; padded
    cells never win). `indices`, when present, holds for each output the
    position of its maximum (the first one in window order on ties) flat
    over the whole input tensor `N x C x spatial...`: row major, or with
    `storage_order` 1 column major within each image's spatial dimensions
    (`n * C * S + c * S + h + w * H` in 2-D, where `S = H * W`), as ONNX
    Runtime computes it.

    ```mlir
    %y, %i = osc.indexed_max_pool %x {kernel = array<i64: 2, 2>,
        strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
        dilations = array<i64: 1, 1>, storage_order = 0 : i64}
        : tensor<1x3x4x4xf32> -> tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>
    ```
  }];
  let arguments = (ins Osc_NumericTensor:$input,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                       UnitAttr:$ceil_mode, I64Attr:$storage_order);
  let results = (outs Osc_NumericTensor:$output,
                      Optional<StaticShapeTensorOf<[I64]>>:$indices);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($output)
    (`,` type($indices)^)?
  }];
  let hasVerifier = 1;
}

def Osc_GridSampleOp : Osc_ExecOp<"grid_sample", "GridSample", [Pure],
    ["getRuntimeEnums"], "8.0"> {
  let summary = "sample an image at the grid's normalized coordinates";
  let description = [{
    ONNX GridSample (opsets 16 and 20): `input` is `N x C x D1 x ... x Dk`
    (k >= 1), `grid` is `N x O1 x ... x Ok x k` of coordinates in [-1, 1]
    (x, the last spatial dimension's, first), `output` is
    `N x C x O1 x ... x Ok`. Each output point interpolates its input
    channel at the grid point: `mode` nearest (rounded half to even),
    linear (2^k taps) or cubic (4^k taps, A = -0.75); `padding_mode`
    constant (zeros), edge (border) or reflect (reflection) for coordinates
    and taps outside the image; `align_corners` maps -1 and 1 to the centres
    of the corner pixels instead of their outer edges. The FLOPs charged
    are those of the 2-D linear form.

    ```mlir
    %y = osc.grid_sample linear constant %x, %g
        : (tensor<1x3x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins Osc_ResizeMode:$mode, Osc_PadMode:$padding_mode,
                       Osc_FloatTensor:$input, Osc_FloatTensor:$grid,
                       UnitAttr:$align_corners);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = [{
    $mode $padding_mode $input `,` $grid attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_RoiAlignOp : Osc_ExecOp<"roi_align", "RoiAlign", [Pure], [], "4.0"> {
  let summary = "region-of-interest pooling by bilinear sampling";
  let description = [{
    ONNX RoiAlign: for each of the `R` regions (`rois`, `R x 4` of x1, y1,
    x2, y2 in the input's coordinates times `spatial_scale`; its image is
    `batch_indices[r]`), an `output_height x output_width` grid of bins
    (the result's `R x C x OH x OW`), each the average, or with `max` the
    maximum, of `sampling_ratio` x `sampling_ratio` bilinear samples (0:
    ceil(region / bins) per bin). `half_pixel` shifts the region by -0.5
    (ONNX's coordinate_transformation_mode half_pixel, opset 16's default);
    without it a region is at least 1 x 1 (output_half_pixel, opset 10).

    ```mlir
    %y = osc.roi_align %x, %rois, %idx {half_pixel, sampling_ratio = 2 : i64, spatial_scale = 6.250000e-02 : f32}
        : (tensor<1x256x14x14xf32>, tensor<8x4xf32>, tensor<8xi64>) -> tensor<8x256x7x7xf32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input, Osc_FloatTensor:$rois,
                       Osc_IndexTensor:$batch_indices, UnitAttr:$max,
                       UnitAttr:$half_pixel, I64Attr:$sampling_ratio,
                       F32Attr:$spatial_scale);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}
