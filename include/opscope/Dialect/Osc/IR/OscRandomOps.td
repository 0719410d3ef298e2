//===- OscRandomOps.td - random draws ----------------------*- tablegen -*-===//
//
// Part of opscope. Included by OscOps.td. ONNX's RandomUniform(Like),
// RandomNormal(Like) and Bernoulli. The runtime draws with Philox4x32-10
// keyed by `seed` (runtime/include/opscope/runtime/random.h): with a seed
// every run gives the same values, without one every run new ones.
//
// These ops are not Pure: each result carries an allocation effect
// (MemAlloc on the result), so CSE never merges two draws into one, no
// folder or LICM treats a draw without operands as a constant or hoists it
// out of a loop body, yet an unused draw is still trivially dead (an
// allocation nobody reads) and goes away. docs/architecture.md, "Random
// ops".
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_IR_OSCRANDOMOPS_TD
#define OPSCOPE_DIALECT_OSC_IR_OSCRANDOMOPS_TD

def Osc_RandomFloatTensor : StaticShapeTensorOf<[F32, F64]>;

def Osc_RandomUniformOp : Osc_ExecOp<"random_uniform", "RandomUniform"> {
  let summary = "values drawn uniformly from [low, high)";
  let description = [{
    ONNX RandomUniform and RandomUniformLike (whose input gives only the
    result's shape and, by default, its element type). Each element is
    drawn independently from [low, high); `low` equal to `high` gives
    `low`. With `seed`, the values are a function of the seed and the
    result's shape only (every run, session, thread count and CPU tier
    gives the same); without it, each run draws new ones.

    ```mlir
    %r = osc.random_uniform {high = 1.000000e+00 : f32, low = 0.000000e+00 : f32,
                             seed = 0.000000e+00 : f32} : tensor<3x4xf32>
    ```
  }];
  let arguments = (ins F32Attr:$low, F32Attr:$high, OptionalAttr<F32Attr>:$seed);
  let results = (outs Res<Osc_RandomFloatTensor, "",
                          [MemAlloc<DefaultResource>]>:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def Osc_RandomNormalOp : Osc_ExecOp<"random_normal", "RandomNormal"> {
  let summary = "values drawn from a normal distribution";
  let description = [{
    ONNX RandomNormal and RandomNormalLike: each element drawn
    independently from N(mean, scale^2) (Box-Muller). `seed` as in
    osc.random_uniform.

    ```mlir
    %r = osc.random_normal {mean = 0.000000e+00 : f32, scale = 1.000000e+00 : f32}
        : tensor<8xf64>
    ```
  }];
  let arguments = (ins F32Attr:$mean, F32Attr:$scale, OptionalAttr<F32Attr>:$seed);
  let results = (outs Res<Osc_RandomFloatTensor, "",
                          [MemAlloc<DefaultResource>]>:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def Osc_BernoulliOp : Osc_ExecOp<"bernoulli", "Bernoulli"> {
  let summary = "1 with probability p, else 0, for each element p";
  let description = [{
    ONNX Bernoulli: element `i` of the result is 1 with probability
    `input[i]` (a uniform draw below it), else 0, in the result's element
    type (any osc type, i1 included). A probability at or below 0 (or NaN)
    gives 0, at or above 1 gives 1. `seed` as in osc.random_uniform.

    ```mlir
    %y = osc.bernoulli %p {seed = 0.000000e+00 : f32} : (tensor<10xf32>) -> tensor<10xf64>
    ```
  }];
  let arguments = (ins Osc_RandomFloatTensor:$input, OptionalAttr<F32Attr>:$seed);
  let results = (outs Res<Osc_Tensor, "", [MemAlloc<DefaultResource>]>:$output);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // OPSCOPE_DIALECT_OSC_IR_OSCRANDOMOPS_TD
