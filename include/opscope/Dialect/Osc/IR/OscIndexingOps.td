//===- OscIndexingOps.td - scans, top-k, scatters -------*- tablegen -*-===//
//
// Part of opscope. Included by OscDataMovementOps.td: the ops that compute
// or move elements by index along an axis (ONNX CumSum, TopK, GatherND,
// ScatterND, ScatterElements, ReverseSequence). Their indices are i64 (or
// i32) with negative values counting from the end where ONNX allows it; an
// index out of range at run time stops the run with an error naming the
// op, before anything is read or written out of bounds.
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
