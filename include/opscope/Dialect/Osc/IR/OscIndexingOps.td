//===- OscIndexingOps.td - scans, top-k, scatters -------*- tablegen -*-===//
//
// Part of opscope. Included by OscDataMovementOps.td: the ops that compute
// or move elements by index along an axis (ONNX CumSum, TopK, GatherND,
// ScatterND, ScatterElements, ReverseSequence, TfIdfVectorizer), and those
// whose results' extent depends on the data (NonZero, Compress, Unique,
// NonMaxSuppression). Their indices are i64 (or i32) with negative values
// counting from the end where ONNX allows it; an index out of range at run
// time stops the run with an error naming the op, before anything is read
// or written out of bounds.
//
//===----------------------------------------------------------------------===//

def Osc_CumSumOp : Osc_ExecOp<"cumsum", "CumSum", [Pure], [], "1.0"> {
  let summary = "cumulative sum along an axis";
  let description = [{
    ONNX CumSum: `output[..., j, ...]` is the sum of `input` along `axis` up
    to and including `j`; with `exclusive` the element at `j` itself is left
    out (the first sum is 0), with `reverse` the sums run from the end.
    Sums are taken in the element type, in order along the axis.

    ```mlir
    %y = osc.cumsum %x {axis = 1 : i64, exclusive}
        : tensor<2x3xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Osc_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$exclusive, UnitAttr:$reverse);
  let results = (outs Osc_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Osc_TopKOp : Osc_ExecOp<"top_k", "TopK", [Pure],
    ["getExtentAxis", "getExtent"]> {
  let summary = "the k largest (or smallest) elements along an axis";
  let description = [{
    ONNX TopK: `values` holds the k largest elements of each slice along
    `axis` (the k smallest with `smallest`), in order, and `indices` their
    positions along the axis (i64). Equal values keep the lower index first,
    as ONNX specifies and ONNX Runtime does; a NaN counts as larger than
    every number (ONNX does not place NaN, and ONNX Runtime's order of a
    slice with NaNs depends on where they are). The results are always sorted (ONNX's `sorted = 0` leaves
    the order to the implementation).

    With `k` known when compiling it is the results' size along `axis`.
    With the operand `k` (one i64, read at run time) the results are
    bounded (docs/architecture.md, "Data-dependent output shapes"): they
    have the input's length along `axis`, and `count` receives k, the
    run-time extent of both along `axis`. Entries beyond it are 0. A k
    outside [0, length] stops the run with an error naming the op.

    ```mlir
    %v, %i = osc.top_k %x {axis = 1 : i64}
        : tensor<3x4xf32> -> tensor<3x2xf32>, tensor<3x2xi64>
    %bv, %bi, %n = osc.top_k %x k(%k) {axis = 1 : i64}
        : tensor<3x4xf32>, tensor<1xi64>
        -> tensor<3x4xf32>, tensor<3x4xi64>, tensor<i64>
    ```
  }];
  let arguments = (ins Osc_NumericTensor:$input,
                       Optional<StaticShapeTensorOf<[I64]>>:$k, I64Attr:$axis,
                       UnitAttr:$smallest);
  let results = (outs Osc_NumericTensor:$values,
                      StaticShapeTensorOf<[I64]>:$indices,
                      Optional<0DTensorOf<[I64]>>:$count);
  let assemblyFormat = [{
    $input (`k` `(` $k^ `)`)? attr-dict `:` type($input) (`,` type($k)^)?
    `->` type($values) `,` type($indices) (`,` type($count)^)?
  }];
  let hasVerifier = 1;
}

def Osc_GatherNDOp : Osc_ExecOp<"gather_nd", "GatherND", [Pure], []> {
  let summary = "gather slices by tuples of indices into the leading axes";
  let description = [{
    ONNX GatherND: the last axis of `indices` (length m) holds tuples that
    index axes `batch_dims` to `batch_dims + m - 1` of `data` (negative
    values count from the end); each tuple selects the slice of the
    remaining axes. The first `batch_dims` axes of `data` and `indices`
    are shared batch axes. `output.shape = indices.shape[:-1] +
    data.shape[batch_dims + m:]`.

    ```mlir
    %y = osc.gather_nd %x[%i] {batch_dims = 1 : i64}
        : (tensor<2x2x2xf32>, tensor<2x1xi64>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$data, Osc_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = [{
    $data `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_ScatterNDOp : Osc_ExecOp<"scatter_nd", "ScatterND", [Pure],
    ["getRuntimeEnums"]> {
  let summary = "data with slices replaced (or combined) at index tuples";
  let description = [{
    ONNX ScatterND: `output` is `data` with, for each tuple along the last
    axis of `indices` (m indices into the leading axes of `data`, negative
    counting from the end), the slice it selects replaced by the matching
    slice of `updates` (`updates.shape = indices.shape[:-1] +
    data.shape[m:]`), or combined with it by `reduction` (`add`, `mul`,
    `max`, `min`). Updates apply in index order, so with `none` the last of
    duplicate tuples wins (ONNX leaves duplicates undefined; ONNX Runtime
    does the same).

    ```mlir
    %y = osc.scatter_nd add %x[%i], %u
        : (tensor<4x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Osc_ScatterReduction:$reduction, Osc_Tensor:$data,
                       Osc_IndexTensor:$indices, Osc_Tensor:$updates);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = [{
    $reduction $data `[` $indices `]` `,` $updates attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_ScatterElementsOp : Osc_ExecOp<"scatter_elements", "ScatterElements",
    [Pure], ["getRuntimeEnums"]> {
  let summary = "data with single elements replaced (or combined) by index";
  let description = [{
    ONNX ScatterElements (and the deprecated Scatter): `output` is `data`
    with, for each element of `updates` (the shape of `indices`, the rank
    of `data`), the element at its own position with `axis` replaced by its
    index (negative counting from the end) replaced by the update, or
    combined with it by `reduction` (`add`, `mul`, `max`, `min`). Updates
    apply in row-major order, so with `none` the last of duplicate indices
    wins, as in ONNX Runtime.

    ```mlir
    %y = osc.scatter_elements none %x[%i], %u {axis = 1 : i64}
        : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Osc_ScatterReduction:$reduction, Osc_Tensor:$data,
                       Osc_IndexTensor:$indices, Osc_Tensor:$updates,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = [{
    $reduction $data `[` $indices `]` `,` $updates attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_ReverseSequenceOp : Osc_ExecOp<"reverse_sequence", "ReverseSequence",
    [Pure], []> {
  let summary = "reverse each batch entry's first sequence_lens time steps";
  let description = [{
    ONNX ReverseSequence: for each batch entry `b` (along `batch_axis`), the
    first `sequence_lens[b]` elements along `time_axis` in reverse order;
    the rest copied as they are. The two axes are 0 and 1 in either order.
    A length below 0 or above the time axis ends the run with an error
    naming the op.

    ```mlir
    %y = osc.reverse_sequence %x, %lens {batch_axis = 1 : i64, time_axis = 0 : i64}
        : (tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, Osc_IndexTensor:$sequence_lens,
                       I64Attr:$batch_axis, I64Attr:$time_axis);
  let results = (outs Osc_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $sequence_lens attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

// Ops whose results' extent depends on the data (docs/architecture.md,
// "Data-dependent output shapes"): each such result has its static upper
// bound as its type, and the op writes the run-time extent along one axis
// into its last result, a tensor<i64>. Entries beyond the extent are zero.

def Osc_NonZeroOp : Osc_ExecOp<"non_zero", "NonZero", [Pure],
    ["getExtentAxis", "getExtent"]> {
  let summary = "indices of the non-zero elements (run-time count)";
  let description = [{
    ONNX NonZero: `indices[d, j]` is coordinate `d` of the `j`-th non-zero
    element of `input` in row-major order. Its type is the bound: rank x
    (number of elements); `count` receives the number of non-zero elements,
    the run-time extent of `indices` along axis 1. Columns beyond it are 0.

    ```mlir
    %i, %n = osc.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input);
  let results = (outs StaticShapeTensorOf<[I64]>:$indices,
                      0DTensorOf<[I64]>:$count);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($indices) `,` type($count)
  }];
  let hasVerifier = 1;
}

def Osc_CompressOp : Osc_ExecOp<"compress", "Compress", [Pure],
    ["getExtentAxis", "getExtent"]> {
  let summary = "slices where a condition holds (run-time count)";
  let description = [{
    ONNX Compress: the slices of `input` along `axis` whose entry in
    `condition` is true, in order; without `axis`, the elements of the
    flattened input. Entries of `input` beyond `condition`'s length are
    dropped. The output's type is the bound (at most min(condition length,
    axis length) slices); `count` receives the number selected, the
    run-time extent of `output` along `axis` (0 when flattened). Slices
    beyond it are 0.

    ```mlir
    %y, %n = osc.compress %x, %c {axis = 0 : i64}
        : (tensor<3x2xf32>, tensor<3xi1>) -> (tensor<3x2xf32>, tensor<i64>)
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, Osc_BoolTensor:$condition,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs Osc_Tensor:$output, 0DTensorOf<[I64]>:$count);
  let assemblyFormat = [{
    $input `,` $condition attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Osc_UniqueOp : Osc_ExecOp<"unique", "Unique", [Pure],
    ["getExtentAxis", "getExtent"]> {
  let summary = "distinct slices along an axis (run-time count)";
  let description = [{
    ONNX Unique: the distinct slices of `input` along `axis` (without
    `axis`, the distinct elements of the flattened input), sorted ascending
    (slices compared element by element) or, with `unsorted`, in order of
    first occurrence. `indices` holds each one's first position, `counts`
    how often it occurs, and `inverse_indices` (static: one per input
    slice) the position of each input slice's value in `output`. `output`,
    `indices` and `counts` are typed by their bound (the axis length, or
    the element count); `count` receives the number of distinct slices, the
    run-time extent of `output` along `axis` (0 when flattened) and of
    `indices` and `counts`. Entries beyond it are 0. A NaN equals NaN and
    sorts after every number.

    ```mlir
    %y, %i, %inv, %c, %n = osc.unique %x
        : tensor<6xf32> -> tensor<6xf32>, tensor<6xi64>, tensor<6xi64>,
          tensor<6xi64>, tensor<i64>
    ```
  }];
  let arguments = (ins Osc_Tensor:$input, OptionalAttr<I64Attr>:$axis,
                       UnitAttr:$unsorted);
  let results = (outs Osc_Tensor:$output, StaticShapeTensorOf<[I64]>:$indices,
                      StaticShapeTensorOf<[I64]>:$inverse_indices,
                      StaticShapeTensorOf<[I64]>:$counts,
                      0DTensorOf<[I64]>:$count);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($output) `,` type($indices)
    `,` type($inverse_indices) `,` type($counts) `,` type($count)
  }];
  let hasVerifier = 1;
}

def Osc_TfIdfVectorizerOp : Osc_ExecOp<"tfidf_vectorizer", "TfIdfVectorizer",
    [Pure], ["getRuntimeEnums"]> {
  let summary = "n-gram counts of integer token sequences, weighed";
  let description = [{
    ONNX TfIdfVectorizer over integer tokens: each row of `input` (`C`, or
    `N x C`) gives one row of `output` (`max(ngram_indexes) + 1` floats, or
    `N x` that). The n-grams of `pool` (its 1-grams from `ngram_counts[0]`,
    its 2-grams from `ngram_counts[1]`, ...) with a length in
    [min_gram_length, max_gram_length] are searched in the row: an n-gram
    takes tokens `d` apart for each `d` from 1 to `max_skip_count + 1`
    (1-grams once). Each occurrence of the i-th n-gram of the pool adds to
    column `ngram_indexes[i]` 1 (`mode` tf: the count) or `weights[i]`
    (tfidf: the count times the weight), or sets the column to
    `weights[i]` (idf); without weights every weight is 1. Where n-grams
    share a column, idf keeps the weight of the last occurrence in
    ONNX Runtime's scan order.

    ```mlir
    %y = osc.tfidf_vectorizer tf %x {min_gram_length = 2 : i64,
        max_gram_length = 2 : i64, max_skip_count = 0 : i64,
        ngram_counts = array<i64: 0, 0>, ngram_indexes = array<i64: 0, 1>,
        pool = array<i64: 5, 6, 7, 8>} : tensor<12xi32> -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Osc_TfIdfMode:$mode, Osc_IndexTensor:$input,
                       I64Attr:$min_gram_length, I64Attr:$max_gram_length,
                       I64Attr:$max_skip_count,
                       DenseI64ArrayAttr:$ngram_counts,
                       DenseI64ArrayAttr:$ngram_indexes,
                       DenseI64ArrayAttr:$pool,
                       OptionalAttr<DenseF32ArrayAttr>:$weights);
  let results = (outs StaticShapeTensorOf<[F32]>:$output);
  let assemblyFormat = [{
    $mode $input attr-dict `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
}

def Osc_NonMaxSuppressionOp : Osc_ExecOp<"non_max_suppression",
    "NonMaxSuppression", [Pure, AttrSizedOperandSegments],
    ["getExtentAxis", "getExtent", "getRuntimeOperands"]> {
  let summary = "greedy non-maximum suppression of boxes (run-time count)";
  let description = [{
    ONNX NonMaxSuppression: for each batch and class, the boxes whose score
    is above `score_threshold` (all of them without it), taken by
    descending score (equal scores: lower box index first), each kept
    unless its intersection over union with a box already kept for that
    class is above `iou_threshold` (0 without it), at most
    `max_per_class` (a compile-time limit) or `max_output_boxes_per_class`
    (read at run time; a negative value counts as 0) boxes per class.
    Without either limit nothing is selected. `boxes` is batches x boxes x
    4, corners `[y1, x1, y2, x2]` in either order, or with
    `center_point_box` `[x_center, y_center, width, height]`; `scores` is
    batches x classes x boxes.

    `selected` holds one row `[batch, class, box]` per kept box, batch by
    batch, class by class, in the order kept. Its type is the bound:
    batches x classes x min(limit, boxes) rows, the limit being
    `max_per_class`, or the number of boxes when the limit is read at run
    time; `count` receives the number of rows kept, the run-time extent of
    `selected` along axis 0. Rows beyond it are 0. The thresholds are read
    at run time; an `iou_threshold` outside [0, 1] stops the run, as in
    ONNX Runtime.

    ```mlir
    %s, %n = osc.non_max_suppression %boxes, %scores
        iou_threshold(%iou) score_threshold(%st) {max_per_class = 2 : i64}
        : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xf32>, tensor<1xf32>)
        -> (tensor<2x3xi64>, tensor<i64>)
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32]>:$boxes,
                       StaticShapeTensorOf<[F32]>:$scores,
                       Optional<StaticShapeTensorOf<[I64]>>:$max_output_boxes_per_class,
                       Optional<StaticShapeTensorOf<[F32]>>:$iou_threshold,
                       Optional<StaticShapeTensorOf<[F32]>>:$score_threshold,
                       OptionalAttr<I64Attr>:$max_per_class,
                       UnitAttr:$center_point_box);
  let results = (outs StaticShapeTensorOf<[I64]>:$selected,
                      0DTensorOf<[I64]>:$count);
  let assemblyFormat = [{
    $boxes `,` $scores
    (`max_output_boxes_per_class` `(` $max_output_boxes_per_class^ `)`)?
    (`iou_threshold` `(` $iou_threshold^ `)`)?
    (`score_threshold` `(` $score_threshold^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}
