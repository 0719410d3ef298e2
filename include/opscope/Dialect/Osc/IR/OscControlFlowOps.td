//===- OscControlFlowOps.td - osc.if and osc.loop ----------*- tablegen -*-===//
//
// Part of opscope. Included by OscOps.td; split from it to keep each file
// readable. Control flow decided at run time: the lowering turns these ops
// into conditional and looping sub-schedules of the plan (docs/runtime.md,
// "Control flow").
//
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def Osc_IfOp : Osc_Op<"if", [RecursiveMemoryEffects, NoRegionArguments,
                             SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "runs one of two regions, chosen at run time";
  let description = [{
    ONNX `If` whose condition is known only at run time. `cond` is a
    one-element boolean tensor; when it is true the `then` region runs,
    otherwise the `else` region. Each region yields the op's results with
    the same static types (ONNX allows branches of different shapes; osc
    plans static shapes, so the importer rejects those by node name). Ops
    inside the regions are scheduled, probed and planned like top-level
    ops; an `If` whose condition folds to a constant is replaced by the
    taken region (canonicalization, run by `osc-fold-constants`).

    ```mlir
    %r = osc.if %c : tensor<i1> -> tensor<5xf32> {
      osc.yield %a : tensor<5xf32>
    } else {
      osc.yield %b : tensor<5xf32>
    }
    ```
  }];
  let arguments = (ins Osc_BoolTensor:$cond);
  let results = (outs Variadic<Osc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion,
                        SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $cond `:` type($cond) (`->` type($results)^)? $thenRegion `else`
    $elseRegion attr-dict
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Osc_LoopOp : Osc_Op<"loop", [RecursiveMemoryEffects,
                                 AttrSizedOperandSegments]> {
  let summary = "repeats its body while a trip count and a condition allow";
  let description = [{
    ONNX `Loop` with loop-carried values. The body's block arguments are
    the iteration number (`tensor<i64>`, from 0), the condition
    (`tensor<i1>`) and the carried values; it yields the next condition
    and the next carried values, whose types must equal the carried ones.
    The loop runs while the iteration number is below `max_trip_count`
    (when given) and the condition is true (`cond` when given is its first
    value; absent means true). The first results are the carried values
    after the last iteration (the initial values when the body never runs).

    Scan outputs: the body may yield further values after the carried ones;
    each further result stacks them, one row per iteration, along a new
    leading dimension whose length is the loop's static length (it must
    equal a constant `max_trip_count`). The loop stops at that length;
    rows of iterations that did not run are zero. ONNX `Scan`, and `Loop`
    scan outputs with a constant trip count, import as this.

    ```mlir
    %r = osc.loop max_trip_count(%n : tensor<i64>) cond(%c : tensor<i1>)
        iter_args(%x0 : tensor<2xf32>) -> tensor<2xf32> {
    ^bb0(%i: tensor<i64>, %cin: tensor<i1>, %x: tensor<2xf32>):
      %y = osc.binary add %x, %x : ...
      osc.yield %cin, %y : tensor<i1>, tensor<2xf32>
    }
    ```
  }];
  let arguments = (ins Optional<StaticShapeTensorOf<[I64]>>:$max_trip_count,
                       Optional<Osc_BoolTensor>:$cond,
                       Variadic<Osc_Tensor>:$inits);
  let results = (outs Variadic<Osc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`max_trip_count` `(` $max_trip_count^ `:` type($max_trip_count) `)`)?
    (`cond` `(` $cond^ `:` type($cond) `)`)?
    (`iter_args` `(` $inits^ `:` type($inits) `)`)?
    (`->` type($results)^)? $body attr-dict
  }];
  let hasVerifier = 1;
}
