//===- Passes.td - osc dialect passes ----------------------*- tablegen -*-===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_TD
#define OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OscFoldConstants : Pass<"osc-fold-constants", "::mlir::func::FuncOp"> {
  let summary = "Fold constant sub-graphs, such as ONNX shape computations";
  let description = [{
    Evaluates every osc op whose operands are small dense constants, and
    removes what becomes dead. With static shapes, the Shape / Gather /
    Unsqueeze / Concat / Reshape chains that exporters emit to compute
    reshape targets, masks built with Equal / Where / Expand, and Cast
    chains all reduce to `osc.constant`s, leaving only the real compute.
    Weights (`dense_resource`) are never expanded; reshapes of weights share
    the weight's blob.

    ```mlir
    %s = osc.constant dense<[1, 128, 768]> : tensor<3xi64>
    %d = osc.slice %s {starts = array<i64: 2>, sizes = array<i64: 1>, steps = array<i64: 1>}
        : tensor<3xi64> -> tensor<1xi64>
    // becomes
    %d = osc.constant dense<768> : tensor<1xi64>
    ```
  }];
  let dependentDialects = ["::opscope::osc::OscDialect"];
  let statistics = [
    Statistic<"numFolded", "folded-ops", "Ops folded or removed as dead">
  ];
}

def OscFuse : Pass<"osc-fuse", "::mlir::func::FuncOp"> {
  let summary = "Fuse decomposed ONNX patterns into kernel-sized osc ops";
  let description = [{
    Rewrites the decomposed patterns exporters emit into the ops the runtime
    executes as one kernel. Every fused op's location is a `FusedLoc` of the
    NameLocs of the ops it replaced, so profiles map back to ONNX nodes. Each
    family can be switched off for A/B comparisons:

    * `fold-scalars`: division by a constant scalar becomes a multiplication;
      a constant scalar multiply of a matmul result becomes its `scale`.
    * `fold-transposes`: a transpose swapping the two innermost dimensions of
      a matmul operand becomes a `transpose_a`/`transpose_b` flag (any other
      permutation keeps a smaller transpose).
    * `fuse-inner-product`: matmul with a constant 2-D right operand (and its
      bias Add) becomes `osc.inner_product` with an `N x K` weight.
    * `fuse-gelu`: the erf and tanh GELU formulas become `osc.gelu`.
    * `fuse-hard-swish`: hardswish written out, `x * clip(x + 3, 0, 6) / 6`
      (Paddle2ONNX, older torch exports; the division may be a multiply by
      1/6 anywhere in the product) or `x * hard_sigmoid(x)` with alpha 1/6
      and beta 1/2, becomes `osc.unary hard_swish` (then a post-op).
    * `fuse-swish`: SiLU written out, `x * sigmoid(x)` (torch exports of
      nn.SiLU: YOLOv5/v8, EfficientNet), becomes `osc.unary swish` (then a
      post-op).
    * `fuse-mish`: Mish written out, `x * tanh(softplus(x))` (ONNX's Mish
      as the importer expands it, and torch exports of nn.Mish below opset
      18: YOLOv4, CSPDarknet), becomes `osc.unary mish` (then a post-op).
    * `fuse-layer-norm`: ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add
      becomes `osc.layer_norm`.
    * `fuse-post-ops`: activations (relu, relu6, gelu, sigmoid, tanh,
      hard_swish, swish, mish, and with their parameters leaky_relu, elu,
      hard_sigmoid and a clip to finite bounds)
      and residual Adds following an inner_product or conv with no other
      users become post-ops (`sum` for the residual).
    * `fuse-attention`: an additive mask Add, or a `where(mask, -inf, x)`,
      before a softmax becomes the softmax's mask operand.
    * `fuse-conv-bn`: batch_norm after a conv or conv_transpose with
      constant parameters is folded into its weights and bias.
    * `fuse-dynamic-quant`: ONNX Runtime's quantize_dynamic layers,
      `Mul(Cast(conv_integer or matmul_integer), Mul(x_scale, w_scale))`
      with a constant weight, become the integer op's dequantizing form
      (f32 result, `weight_scale`); a following constant per-channel bias
      Add and a relu fold into it. The DynamicQuantizeLinear folds in too
      (the op takes the f32 input) when its three results feed only this
      layer; a shared one stays and each layer takes its u8 data, zero
      point and scale. Results are bitwise those of the unfused ops.
    * `deconv-as-conv`: a 2-D f32 conv_transpose with constant weights (no
      dilation, groups or `sum`, not reading a dequantized input, pads
      within the kernel's reach) becomes its sub-pixel form: a conv of
      kernel `ceil(k/s)` to `OC*s0*s1` channels, with its post-ops, a
      depth-to-space shuffle and a crop (a 1x1 conv and the shuffle when
      the kernel equals the stride and there is no padding); applied after
      the other fusions.

    ```mlir
    %m = osc.matmul %x, %w : (tensor<1x128x768xf32>, tensor<768x3072xf32>) -> tensor<1x128x3072xf32>
    %y = osc.binary add %b, %m : (tensor<3072xf32>, tensor<1x128x3072xf32>) -> tensor<1x128x3072xf32>
    // becomes
    %y = osc.inner_product %x, %wt bias(%b) : (tensor<1x128x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<1x128x3072xf32>
    ```
  }];
  let dependentDialects = ["::opscope::osc::OscDialect"];
  let options = [
    Option<"foldScalars", "fold-scalars", "bool", "true", "fold constant scalar multiplies and divides">,
    Option<"foldTransposes", "fold-transposes", "bool", "true", "fold transposes into matmul flags">,
    Option<"fuseInnerProduct", "fuse-inner-product", "bool", "true", "matmul (+ bias) with a constant weight to inner_product">,
    Option<"fuseGelu", "fuse-gelu", "bool", "true", "GELU formulas to osc.gelu">,
    Option<"fuseHardSwish", "fuse-hard-swish", "bool", "true", "hardswish formulas to osc.unary hard_swish">,
    Option<"fuseSwish", "fuse-swish", "bool", "true", "x * sigmoid(x) to osc.unary swish">,
    Option<"fuseMish", "fuse-mish", "bool", "true", "x * tanh(softplus(x)) to osc.unary mish">,
    Option<"fuseLayerNorm", "fuse-layer-norm", "bool", "true", "decomposed LayerNorm to osc.layer_norm">,
    Option<"fusePostOps", "fuse-post-ops", "bool", "true", "activations and residual sums as post-ops">,
    Option<"fuseAttention", "fuse-attention", "bool", "true", "attention masks into softmax">,
    Option<"fuseConvBn", "fuse-conv-bn", "bool", "true", "fold batch_norm into conv weights">,
    Option<"deconvAsConv", "deconv-as-conv", "bool", "true", "2-D conv_transpose as its sub-pixel conv + shuffle + crop">,
    Option<"fuseDynamicQuant", "fuse-dynamic-quant", "bool", "true", "quantize_dynamic layers (DynamicQuantizeLinear, ConvInteger/MatMulInteger, Cast, Mul, bias, relu) into one integer op">
  ];
  let statistics = [
    Statistic<"numInnerProducts", "inner-products", "matmuls turned into inner_product">,
    Statistic<"numBiases", "biases", "bias Adds fused">,
    Statistic<"numGelus", "gelus", "GELU patterns fused">,
    Statistic<"numHardSwishes", "hard-swishes", "hardswish patterns fused">,
    Statistic<"numSwishes", "swishes", "x * sigmoid(x) patterns fused">,
    Statistic<"numMishes", "mishes", "x * tanh(softplus(x)) patterns fused">,
    Statistic<"numLayerNorms", "layer-norms", "LayerNorm patterns fused">,
    Statistic<"numPostOps", "post-ops", "activations and residuals fused as post-ops">,
    Statistic<"numMasks", "masks", "attention masks fused into softmax">,
    Statistic<"numScales", "scales", "scalar multiplies folded">,
    Statistic<"numTransposes", "transposes", "transposes folded into matmul flags">,
    Statistic<"numConvBns", "conv-bns", "batch_norms folded into conv">,
    Statistic<"numDeconvs", "deconvs-as-conv", "conv_transposes rewritten as 1x1 conv + shuffle">,
    Statistic<"numDynamicQuant", "dynamic-quant", "quantize_dynamic steps fused into conv_integer / matmul_integer">
  ];
}

def OscPrecision : Pass<"osc-precision", "::mlir::func::FuncOp"> {
  let summary = "Compute inner products and convolutions in bf16 or int8: weights converted at compile time";
  let description = [{
    With `precision=bf16`, every inner product and convolution with a
    constant f32 weight
    whose source nodes do not match `keep-fp32` (a regex) gets its weight
    rounded to bf16 (nearest even) at compile time, so the `.weights` file
    holds it at half the size; the kernels round the op's f32 input to bf16
    on entry and accumulate in f32, and everything between inner products
    (LayerNorm, softmax, GELU, residual sums) stays f32. `precision=fp32`
    changes nothing. `report` prints how many ops were converted, the weight
    bytes before and after, and the number of f32-to-bf16 conversions (one
    per converted op, inside its kernel). Runs before `osc-sparse-layout`,
    which packs a bf16 weight in bf16 pairs and an int8 weight as VNNI s8
    dwords.

    With `precision=int8`, the weight is quantized per output row (an
    inner product's N, a convolution's output channel), symmetrically, to
    `i8` (`weight_scales` holds the rows' scales), and the
    op gets the `input_scale` and `input_zero_point` with which its kernel
    quantizes the f32 input to u8 on entry. Those come from `calibration`, a
    JSON file of activation statistics that `opscope-run --calibrate` records
    on the fp32 model (runtime/include/opscope/runtime/calibration.h): the
    range is the calibrated minimum and maximum (`calibration-method=minmax`)
    or the histogram's `P`th and `100-P`th percentiles (`percentile:P`),
    widened to hold 0. Ops are matched to statistics by their source nodes;
    an op without statistics stays fp32 with a warning. Matmuls of two
    activations get `compute_int8` (quantized on each run from their
    ranges) where `M N / (M + N) >= 64` for their M x N output, i.e. each
    quantized element feeds at least 64 products; the others stay fp32.

    In every precision (fp32 too), an inner product or convolution whose
    input is `dequantize_linear(quantize_linear(x))` with one constant scale
    and zero point (a QDQ model quantized by another tool) runs in int8 on
    `x` with the model's scale and zero point, its dequantized constant
    weight quantized per row again.
    ```mlir
    %y = osc.inner_product %x, %w : (tensor<1x128x768xf32>, tensor<768x768xf32>) -> tensor<1x128x768xf32>
    // becomes
    %y = osc.inner_product %x, %wb : (tensor<1x128x768xf32>, tensor<768x768xbf16>) -> tensor<1x128x768xf32>
    ```
  }];
  let dependentDialects = ["::opscope::osc::OscDialect"];
  let options = [
    Option<"precision", "precision", "std::string", "\"fp32\"", "fp32, bf16 or int8">,
    Option<"keepFp32", "keep-fp32", "std::string", "\"\"", "regex over source node names of ops kept in fp32">,
    Option<"calibration", "calibration", "std::string", "\"\"", "int8: the calibration file (opscope-run --calibrate)">,
    Option<"calibrationMethod", "calibration-method", "std::string", "\"minmax\"", "int8: minmax or percentile:P">,
    Option<"weightBits", "weight-bits", "int", "8", "int8: bits of the quantized weights, 8 ([-127, 127]) or 7 ([-64, 64]: the target CPU's int8 kernels would saturate 8-bit weights, no VNNI)">,
    Option<"report", "report", "bool", "false", "print a one-line summary to stdout">
  ];
}

def OscSparseLayout : Pass<"osc-sparse-layout", "::mlir::func::FuncOp"> {
  let summary = "Block-sparse kernels for sparse weights, transposed activations along chains";
  let description = [{
    Measures every inner product's constant weight in 1x4 blocks (four
    consecutive input features of one output) and, for those chosen by
    `mode`, packs the weight (runtime/include/opscope/runtime/sparse_format.h)
    and replaces the op by `osc.sparse_inner_product`:
    * `mode=auto` (default): the tuning library's one kernel choice
      (`tuning::choose`, docs/tuning.md "Kernel choice"), which the what-if
      and opscope-profile share. With `tuning-db` (opscope-tune's
      database), an op whose weight shape and precision have an entry (the
      op's M and one thread, else the nearest measured) is sparse when the
      sparse latency at the weight's block sparsity (measured there, within
      half a block, or interpolated between two measured ratios) is lower
      than the dense one; beyond the measured ratios a point bounds the
      answer where it can (sparse won at a lower ratio, dense at a higher).
      Ops with no usable measurement, or without `tuning-db`, are sparse
      from a block sparsity of `threshold` (0.7), unless their precision is
      in `scalar-precisions` (the target CPU runs those sparse kernels
      scalar: opscope-compile passes what the tier in force lacks), which
      keeps them dense with a note naming `tier`. Each op records why, and
      the entry that decided, in `osc.kernel_choice` (the probe table's
      `kernel_choice`). A database of another CPU or ISA, or a corrupt one,
      is an error naming the file.
    * `mode=always`: every inner product with a constant f32 weight.
    * `mode=never`: none (the pass only measures).

    With `transpose-chains` (default), activations around sparse inner
    products are kept transposed, `hidden x tokens` (Intel's "transposed
    IR"): the chain computes Y^T = W X^T, so the sparse weight is the
    streaming operand and no kernel transposes its tiles. Values whose
    layouts are tied (a layer norm's input and output, a residual `sum` and
    its product's output) are decided together: they go transposed when the
    sparse inputs and outputs, and attention head split/merge transposes,
    this saves outnumber the reorder ops it needs. Layer norms then run
    `transposed`; attention's `transpose(reshape(q))` becomes a reshape of
    q^T with the matmul's transpose flag flipped, and the context
    `reshape(transpose(P x V))` becomes `V^T x P^T` (batch 1). Reorders
    (`osc.transpose`) are inserted only where a transposed value meets a
    producer or consumer that works row-major. `report` prints one line:
    ops made sparse, activations kept transposed, and reorders inserted.
    ```mlir
    %h = osc.inner_product %x, %w1 bias(%b1) post_ops [gelu_erf] : ... -> tensor<1x128x3072xf32>
    %y = osc.inner_product %h, %w2 bias(%b2) : ... -> tensor<1x128x768xf32>
    // becomes, with both weights 80% sparse
    %h = osc.sparse_inner_product %x, %p1 bias(%b1) post_ops [gelu_erf]
        {transposed_output, weight_shape = array<i64: 3072, 768>, ...} : ... -> tensor<3072x128xf32>
    %y = osc.sparse_inner_product %h, %p2 bias(%b2)
        {transposed_input, weight_shape = array<i64: 768, 3072>, ...} : ... -> tensor<1x128x768xf32>
    ```
  }];
  let dependentDialects = ["::opscope::osc::OscDialect"];
  let options = [
    Option<"mode", "mode", "std::string", "\"auto\"", "auto, always or never">,
    Option<"threshold", "threshold", "double", "0.7", "block sparsity from which auto picks the sparse kernel">,
    Option<"transposeChains", "transpose-chains", "bool", "true", "keep activations transposed between chained sparse ops">,
    Option<"tuningDb", "tuning-db", "std::string", "\"\"", "kernel tuning database (JSON) whose measurements decide in mode=auto">,
    Option<"scalarPrecisions", "scalar-precisions", "std::string", "\"\"", "comma-separated precisions (fp32, bf16, int8) whose sparse kernels run scalar on the target CPU: mode=auto keeps those inner products dense where no tuning database entry decides">,
    Option<"tier", "tier", "std::string", "\"\"", "the target CPU's tier, named in the note scalar-precisions gives">,
    Option<"report", "report", "bool", "false", "print a one-line summary to stdout">
  ];
  let statistics = [
    Statistic<"numSparse", "sparse-ops", "inner products given a sparse kernel">,
    Statistic<"numLinks", "transposed-links", "sparse inner products reading a transposed input">,
    Statistic<"numReorders", "reorders", "transpose ops inserted at transposed-layout boundaries">
  ];
}

def OscInt8Chains : Pass<"osc-int8-chains", "::mlir::func::FuncOp"> {
  let summary = "Carry u8 activations between int8 ops instead of f32";
  let description = [{
    After `osc-precision` every int8 inner product and convolution quantizes
    its f32 input to u8 on entry. Where an int8 op's result is read only by
    another int8 op of the same kind (a convolution feeding a convolution,
    an inner product feeding an inner product: a feed-forward block's two
    layers) as its input, and the producer takes no residual sum, this
    pass makes the producer write that result in u8, quantized with the
    consumer's `input_scale` / `input_zero_point` after its bias and
    post-ops (`output_scale` / `output_zero_point` on the producer, a `ui8`
    result type), and the consumer read it as it is: the f32 tensor between
    them and the consumer's quantization pass go, and conversions remain
    only at the boundaries of such chains. The u8 values are the integers
    the consumer's own quantization would have produced, but for exact
    half steps with an odd zero point (oneDNN rounds x/scale + zero point,
    QuantizeLinear x/scale before adding it). Runs after
    `osc-sparse-layout` (block-sparse inner products keep quantizing their
    input into their own VNNI layout) and before `osc-conv-layout` (which
    keeps u8 activations channels-last like f32 ones). `report` prints how
    many int8 inputs became u8 hand-overs and how many quantizations are
    left.
    ```mlir
    %h = osc.inner_product %x, %w1 bias(%b1) post_ops [gelu_erf] {input_scale = 0.02 : f32, input_zero_point = 128 : i32, ...} : ... -> tensor<1x128x3072xf32>
    %y = osc.inner_product %h, %w2 bias(%b2) {input_scale = 0.05 : f32, input_zero_point = 3 : i32, ...} : (tensor<1x128x3072xf32>, ...) -> ...
    // becomes
    %h = osc.inner_product %x, %w1 bias(%b1) post_ops [gelu_erf] {..., output_scale = 0.05 : f32, output_zero_point = 3 : i32} : ... -> tensor<1x128x3072xui8>
    %y = osc.inner_product %h, %w2 bias(%b2) {input_scale = 0.05 : f32, input_zero_point = 3 : i32, ...} : (tensor<1x128x3072xui8>, ...) -> ...
    ```
  }];
  let dependentDialects = ["::opscope::osc::OscDialect"];
  let options = [
    Option<"report", "report", "bool", "false", "print a one-line summary to stdout">
  ];
  let statistics = [
    Statistic<"numCarried", "carried", "int8 inputs handed over in u8 by their producer">
  ];
}

def OscBf16Chains : Pass<"osc-bf16-chains", "::mlir::func::FuncOp"> {
  let summary = "Carry bf16 activations between bf16 ops instead of f32";
  let description = [{
    After `osc-precision` with `precision=bf16`, every bf16 inner product,
    convolution and `compute_bf16` matmul rounds its f32 operands to bf16
    on entry where bf16 is native (on f32 kernels, CPUs without bf16
    instructions, it reads f32 activations as they are and only the
    weights are bf16), and every value between ops is f32. Where every
    reader of a value rounds it so anyway (a bf16 inner product's or
    convolution's input, a `compute_bf16` matmul's operand), seen through
    the reshapes, transposes and depth-to-space shuffles that only move it,
    this pass makes the value bf16: its producer computes in f32 as before
    and rounds what it writes (to nearest even), the ops that only move it
    move bf16 elements, and the
    readers read them as they are. Where oneDNN computes bf16 natively the
    readers compute with the same bf16 values as before, and its
    bf16-output primitives may sum in another order than the f32-output
    ones, so results agree within rounding; where the bf16 products run on
    f32 kernels a hand-over rounds values the unchained reader takes as
    they are. The f32 tensor, half of the
    bytes moved between the ops, and (with native bf16, where the
    producer's oneDNN primitive writes bf16 itself) the readers' separate
    rounding passes go.

    Producers that write bf16: bf16 inner products and convolutions
    without a residual sum (the sum post-op reads the f32 residual stream),
    `compute_bf16`
    matmuls, softmax over the last axis (with no mask, or one that varies
    only over leading dimensions and the last one) and layer norms that are
    not transposed. A value any other op reads (a layer norm, a residual
    sum, an f32 inner product kept by `--keep-fp32`, a block-sparse kernel,
    the function's result) stays f32. In a BERT layer that makes the Q, K
    and V projections, the attention softmax, the P.V product and the
    first feed-forward layer write bf16; the layer norms stay f32 because
    their result is also the next residual sum. In a CNN, a convolution
    read only by the next convolution writes bf16. Runs after
    `osc-int8-chains`, before `osc-conv-layout` (which keeps bf16
    activations channels-last like f32 ones). `report` prints how many
    rounding inputs now read bf16, what writes it, and the activation bytes
    carried in bf16.

    `mode=auto` (the default) carries chains only when this machine
    multiplies bf16 natively (AVX512-BF16 or AMX, as `cpu.h` reads
    CPUID): without it the bf16 products run on f32 kernels over
    bf16 weights and f32 activations, so a producer cannot write bf16
    itself and each hand-over adds a rounding pass to it while its reader
    widens (docs/precision.md has the measurement). `always` and `never` force it.
    ```mlir
    %q = osc.inner_product %x, %wq bias(%bq) : (tensor<128x768xf32>, tensor<768x768xbf16>, tensor<768xf32>) -> tensor<128x768xf32>
    %t = osc.transpose %q {perm = array<i64: 1, 0>} : tensor<128x768xf32> -> tensor<768x128xf32>
    %s = osc.matmul %k, %t {compute_bf16} : (tensor<128x768xf32>, tensor<768x128xf32>) -> tensor<128x128xf32>
    // becomes
    %q = osc.inner_product %x, %wq bias(%bq) : (tensor<128x768xf32>, tensor<768x768xbf16>, tensor<768xf32>) -> tensor<128x768xbf16>
    %t = osc.transpose %q {perm = array<i64: 1, 0>} : tensor<128x768xbf16> -> tensor<768x128xbf16>
    %s = osc.matmul %k, %t {compute_bf16} : (tensor<128x768xf32>, tensor<768x128xbf16>) -> tensor<128x128xf32>
    ```
  }];
  let dependentDialects = ["::opscope::osc::OscDialect"];
  let options = [
    Option<"mode", "mode", "std::string", "\"auto\"",
           "auto (only where this CPU multiplies bf16 natively), always or never">,
    Option<"report", "report", "bool", "false", "print a one-line summary to stdout">
  ];
  let statistics = [
    Statistic<"numValues", "values", "results written in bf16">,
    Statistic<"numCarried", "carried", "bf16 op inputs read in bf16">
  ];
}

def OscConvLayout : Pass<"osc-conv-layout", "::mlir::func::FuncOp"> {
  let summary = "Keep activations channels-last (NHWC) along chains of convolutions";
  let description = [{
    oneDNN computes convolutions in its own activation layouts (channels-last
    `acdb` for the brgemm kernels on AVX-512), so a convolution reading and
    writing plain NCHW buffers reorders its input in and its output out on
    every run: two reorders per convolution. This pass finds the values that
    can stay channels-last: produced by a 2-D convolution or transposed
    convolution, or by an element-wise op (`osc.unary`, or `osc.binary`
    without broadcasting), a nearest/linear resize of H and W, a 2-D max or
    average pooling, a channel concat, a depth-to-space shuffle or a slice
    whose operands all stay channels-last, and read only by convolutions (as
    input or residual `sum`), transposed convolutions and by such ops.
    Element-wise ops do not care about the order of elements when all their
    operands share it; the runtime's 2-D resize kernel has a channels-last
    form (`osc.resize {nhwc}`), oneDNN pools channels-last, and
    `osc.depth_to_space {nhwc}` moves rows of blocksize*C values and
    `osc.slice {nhwc}` crops in memory order (the sub-pixel form of a
    transposed convolution stays in the chain). It marks each
    convolution `input_nhwc` / `output_nhwc` accordingly; the runtime then
    binds those buffers in NHWC and reorders only at the chain's boundaries
    (a graph input, a reshape or transpose, a function result, a
    broadcasting op). `report` prints how many
    of the convolutions' activation reorders it removed.

    ```mlir
    %a = osc.conv %x, %w1 ... {output_nhwc}     // x: NCHW, reordered in
    %b = osc.unary relu %a                      // element-wise, NHWC
    %c = osc.conv %b, %w2 ... {input_nhwc}      // output NCHW, reordered out
    ```
  }];
  let dependentDialects = ["::opscope::osc::OscDialect"];
  let options = [
    Option<"report", "report", "bool", "false", "print a one-line summary to stdout">
  ];
  let statistics = [
    Statistic<"numRemoved", "reorders-removed", "convolution activation reorders removed">,
    Statistic<"numKept", "reorders-kept", "convolution activation reorders left at chain boundaries">
  ];
}

def OscFusionReport : Pass<"osc-fusion-report", "::mlir::func::FuncOp"> {
  let summary = "Print the ops after fusion: type, post-ops, sources, shapes, cost, kernel";
  let description = [{
    Prints, without changing the IR, one row per op (constants excluded): id,
    type, post-ops, source ONNX nodes (count and names, from the op's
    location), input shapes (constant operands are the weight, not inputs),
    output shape, weight shape, weight sparsity (fraction of zeros), FLOPs,
    bytes moved and the kernel the runtime will use. Ids are the probe ids
    of a default compile (every executed op probed, in execution order);
    reshapes, which execute nothing, have none. `format=json` prints a JSON
    array of objects in the probe table's vocabulary (docs/profiling.md):
    `id`, `name`, `type`, `post_ops`, `source_nodes`, `inputs` and `outputs`
    (each `{name, dtype, shape}` with integer shapes), `weight_shape`
    (integers), `weight_sparsity`, `sparse_support`, `flops`, `bytes`,
    `kernel`.
  }];
  let options = [
    Option<"format", "format", "std::string", "\"table\"", "table or json">
  ];
}

def OscInsertProbes : Pass<"osc-insert-probes", "::mlir::ModuleOp"> {
  let summary = "Wrap selected ops in osc.probe regions for timing";
  let description = [{
    Wraps every selected op in an `osc.probe` region so the compiled model
    timestamps its start and end. Probe ids are dense (0, 1, ...) in
    execution order; the probe's `name` is the op's first source ONNX node.
    By default every executed op is probed; `types` and `names` (a regex over
    the op's source node names) select, `exclude-types` and `exclude-names`
    remove. Types are kinds as the reports print them (`inner_product`,
    `binary.add`, `softmax`) or their prefix before the dot (`binary`).
    Constants, reshapes (aliases, no kernel) and already-probed ops are
    never wrapped. All probes, existing ones included, are then numbered
    densely in execution order, so running the pass twice changes nothing.

    ```mlir
    %y = osc.gelu erf %x : tensor<1x128x3072xf32>
    // becomes
    %y = osc.probe 0 "ffn/gelu" -> tensor<1x128x3072xf32> {
      %g = osc.gelu erf %x : tensor<1x128x3072xf32>
      osc.yield %g : tensor<1x128x3072xf32>
    }
    ```
  }];
  let dependentDialects = ["::opscope::osc::OscDialect"];
  let options = [
    ListOption<"types", "types", "std::string", "op kinds to probe (default: all)">,
    Option<"names", "names", "std::string", "\"\"", "regex over source node names to probe">,
    ListOption<"excludeTypes", "exclude-types", "std::string", "op kinds not to probe">,
    Option<"excludeNames", "exclude-names", "std::string", "\"\"", "regex over source node names not to probe">
  ];
  let statistics = [
    Statistic<"numProbes", "probes", "probes inserted">
  ];
}

def OscPlanMemory : Pass<"osc-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Assign static arena offsets to tensors and file offsets to weights";
  let description = [{
    Liveness-based memory planning for the single function of a model. Each
    tensor an executed op produces gets a byte offset (`osc.offset`) in one
    activation arena; function arguments get `osc.arg_offsets`. A buffer is
    reused once the last op reading it (or any reshape/probe alias of it)
    has run; placement is first-fit in definition order, 64-byte aligned.
    Unary, binary and gelu ops, inner_product and sparse_inner_product with
    a `sum` post-op, and conv whose first post-op is a `sum`, write in place
    over an operand of the same shape whose last reader they are (a sum
    post-op's residual; not when the op also reads that buffer as its
    input). Function arguments and results are never overwritten.

    Constants get `osc.weight_offset`, their position in the `.weights`
    file (after a 64-byte header, each 64-byte aligned). A splat constant of
    `splat-min-bytes` or more (a ConstantOfShape, say) stays a splat: the
    file holds its one element, and the constant also gets an `osc.offset`
    in the arena, live for the whole run, which the runtime fills when a
    session is created (a 150-byte model asking for a 1 GiB splat used to
    write a 1 GiB `.weights` file). Every tensor is checked against
    `max-tensor-bytes`, and the arena and the file against
    `max-total-bytes`, with errors naming the tensor. The module gets
    `osc.arena_bytes`, `osc.weights_bytes` and `osc.weights_id` (a hash of
    the weight contents, which the runtime checks when loading).

    ```mlir
    %a = osc.unary relu %x {osc.offset = 0 : i64} : tensor<4xf32>
    %b = osc.unary neg %a {osc.offset = 0 : i64} : tensor<4xf32>  // in place
    ```
  }];
  let statistics = [
    Statistic<"peakBytes", "peak-bytes", "arena bytes (peak of live tensors)">,
    Statistic<"unplannedBytes", "unplanned-bytes", "bytes of all tensors without reuse">,
    Statistic<"numInPlace", "in-place", "ops writing over an operand">,
    Statistic<"weightBytes", "weight-bytes", "size of the .weights file">,
    Statistic<"numSplats", "arena-splats", "splat constants filled in the arena at session creation">
  ];
  let options = [
    Option<"maxTensorBytes", "max-tensor-bytes", "int64_t", "int64_t(4) << 30",
           "refuse any tensor larger than this many bytes (naming it)">,
    Option<"maxTotalBytes", "max-total-bytes", "int64_t", "int64_t(16) << 30",
           "refuse an arena or a .weights file larger than this many bytes">,
    Option<"splatMinBytes", "splat-min-bytes", "int64_t", "65536",
           "splat constants of at least this many bytes are not written "
           "out element by element: the .weights file holds one element and "
           "the runtime fills the tensor in the arena when a session starts">
  ];
}

#endif // OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_TD
