//===- OscLinalgOps.td - the osc linear-algebra ops --------*- tablegen -*-===//
//
// Part of opscope. Included by OscOps.td (which defines Osc_ExecOp); split
// from it to keep each file readable.
//
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Linear algebra (ONNX Einsum's general form, Det)
//===----------------------------------------------------------------------===//

def Osc_EinsumOp : Osc_ExecOp<"einsum", "Einsum", [Pure], [], "2.0"> {
  let summary = "Einstein summation, general form";
  let description = [{
    ONNX Einsum as labels: `labels` holds each input's labels (one small
    non-negative integer per dimension, in order) and then the output's.
    `output[out labels] = sum over the other labels of the product of the
    inputs`: a label repeated within an input takes that input's diagonal, a
    label of size 1 in an input broadcasts against the others. Output labels
    are distinct and each appears in an input. The importer lowers f32
    equations to transposes, reshapes, matmuls and reductions instead
    (docs/importer.md); this op is the form for other element types, and
    its kernel loops over every label. The FLOPs charged are 2 per output
    element, a lower bound.

    ```mlir
    // "bij,bjk->bik" on f64
    %y = osc.einsum %a, %b {labels = array<i64: 1, 8, 9, 1, 9, 10, 1, 8, 10>}
        : (tensor<5x2x3xf64>, tensor<5x3x4xf64>) -> tensor<5x2x4xf64>
    ```
  }];
  let arguments = (ins Variadic<Osc_NumericTensor>:$inputs,
                       DenseI64ArrayAttr:$labels);
  let results = (outs Osc_NumericTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasVerifier = 1;
}

def Osc_DetOp : Osc_ExecOp<"det", "Det", [Pure], ["getFlops"]> {
  let summary = "determinants of square matrices";
  let description = [{
    ONNX Det: the determinant of each `n x n` matrix of a `... x n x n`
    input; the result has the leading dimensions. LU factorisation with
    partial pivoting, in double (2/3 n^3 FLOPs a matrix).

    ```mlir
    %d = osc.det %x : tensor<3x4x4xf32> -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Osc_FloatTensor:$input);
  let results = (outs Osc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}
