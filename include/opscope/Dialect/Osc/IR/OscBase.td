//===- OscBase.td - osc dialect definition and shared constraints -*- tablegen -*-===//
//
// Part of opscope. The osc dialect is opscope's tensor-level model IR: ONNX is
// imported into it, fusion and layout passes rewrite it, and it is lowered onto
// the runtime ABI.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_IR_OSCBASE_TD
#define OPSCOPE_DIALECT_OSC_IR_OSCBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Osc_Dialect : Dialect {
  let name = "osc";
  let cppNamespace = "::opscope::osc";
  let summary = "opscope's tensor-level model dialect";
  let description = [{
    The `osc` dialect models inference graphs at the granularity performance
    engineers profile: one op per kernel the runtime executes. Ops work on
    ranked tensors with fully static shapes (the importer specialises dynamic
    dimensions from user-given input shapes), so every op's FLOPs, bytes moved
    and memory footprint are known at compile time.

    Large constants (weights) are `osc.constant` ops holding `dense_resource`
    blobs, which keeps printed IR small. Every op imported from ONNX carries a
    `NameLoc` with the ONNX node name; fused ops carry a `FusedLoc` of all source
    node names, which is how profiles map back to the original model.

    Fusible compute ops (`osc.inner_product`, `osc.conv`, `osc.conv_transpose`)
    take an ordered list of post-ops (`post_ops [gelu_erf, sum]`), mirroring
    oneDNN's post-op chains. `osc.probe` wraps ops whose execution is timed.
  }];
  let dependentDialects = [];
  // Folders return constant attributes; the dialect turns them into osc.constant.
  let hasConstantMaterializer = 1;
  // #osc.post_op<...>, the elements of a post-op list.
  let useDefaultAttributePrinterParser = 1;
}

class Osc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Osc_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Type constraints. All tensors are ranked with static shapes.
//===----------------------------------------------------------------------===//

def Osc_FloatElement : AnyTypeOf<[F16, BF16, F32, F64]>;
def Osc_IntElement : AnyTypeOf<[I8, UI8, I16, I32, I64, UI16, UI32, UI64]>;

def Osc_FloatTensor : StaticShapeTensorOf<[F16, BF16, F32, F64]>;
def Osc_NumericTensor
    : StaticShapeTensorOf<[F16, BF16, F32, F64, I8, UI8, I16, I32, I64, UI16,
                           UI32, UI64]>;
def Osc_BoolTensor : StaticShapeTensorOf<[I1]>;
def Osc_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def Osc_Tensor
    : StaticShapeTensorOf<[F16, BF16, F32, F64, I1, I8, UI8, I16, I32, I64,
                           UI16, UI32, UI64]>;

//===----------------------------------------------------------------------===//
// Enums. Plain integer enums: op assembly formats print them as keywords.
//===----------------------------------------------------------------------===//

def Osc_PostOpKind : I32EnumAttr<"PostOpKind", "fused post-operation", [
    I32EnumAttrCase<"relu", 0>,
    I32EnumAttrCase<"gelu_erf", 1>,
    I32EnumAttrCase<"gelu_tanh", 2>,
    I32EnumAttrCase<"sigmoid", 3>,
    I32EnumAttrCase<"tanh", 4>,
    I32EnumAttrCase<"hard_swish", 5>,
    I32EnumAttrCase<"sum", 6>,
    I32EnumAttrCase<"relu6", 7>,
    I32EnumAttrCase<"swish", 8>,
    // With parameters (alpha, then beta, as osc.unary's).
    I32EnumAttrCase<"leaky_relu", 9>,
    I32EnumAttrCase<"elu", 10>,
    I32EnumAttrCase<"hard_sigmoid", 11>,
    I32EnumAttrCase<"clip", 12>,
    // Mish, x * tanh(softplus(x)) (YOLOv4 and CSPDarknet exports).
    I32EnumAttrCase<"mish", 13>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_PostOpAttr : AttrDef<Osc_Dialect, "PostOp"> {
  let mnemonic = "post_op";
  let summary = "a fused post-operation and its parameters";
  let description = [{
    One element of a post-op list: the kind and, for the kinds that take
    them, alpha and beta as f32 (as `osc.unary`'s: `leaky_relu`'s slope,
    `elu`'s alpha, `hard_sigmoid`'s alpha and beta, `clip`'s finite bounds).
    Ops print their lists as `post_ops [relu, leaky_relu(0.1), sum]`.
  }];
  let parameters = (ins EnumParameter<Osc_PostOpKind>:$kind,
                        OptionalParameter<"::mlir::FloatAttr">:$alpha,
                        OptionalParameter<"::mlir::FloatAttr">:$beta);
  let assemblyFormat = "`<` $kind (`,` $alpha^)? (`,` $beta^)? `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "PostOpKind":$kind), [{
      return $_get($_ctxt, kind, ::mlir::FloatAttr(), ::mlir::FloatAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// How many parameters `kind` takes (the runtime's table).
    static int parameterCount(PostOpKind kind);
    /// `kind` with its parameters as f32 (only the first
    /// parameterCount(kind) of alpha and beta are kept).
    static PostOpAttr get(::mlir::MLIRContext *ctx, PostOpKind kind,
                          double alpha, double beta);
  }];
}

def Osc_PostOpList
    : TypedArrayAttrBase<Osc_PostOpAttr, "ordered list of post-operations">;

def Osc_UnaryKind : I32EnumAttr<"UnaryKind", "elementwise unary function", [
    I32EnumAttrCase<"relu", 0>,
    I32EnumAttrCase<"leaky_relu", 1>,
    I32EnumAttrCase<"elu", 2>,
    I32EnumAttrCase<"tanh", 3>,
    I32EnumAttrCase<"sigmoid", 4>,
    I32EnumAttrCase<"erf", 5>,
    I32EnumAttrCase<"exp", 6>,
    I32EnumAttrCase<"log", 7>,
    I32EnumAttrCase<"sqrt", 8>,
    I32EnumAttrCase<"reciprocal", 9>,
    I32EnumAttrCase<"neg", 10>,
    I32EnumAttrCase<"abs", 11>,
    I32EnumAttrCase<"floor", 12>,
    I32EnumAttrCase<"ceil", 13>,
    I32EnumAttrCase<"softplus", 14>,
    I32EnumAttrCase<"hard_sigmoid", 15>,
    I32EnumAttrCase<"hard_swish", 16>,
    I32EnumAttrCase<"clip", 17>,
    I32EnumAttrCase<"not_", 18, "not">,
    I32EnumAttrCase<"softsign", 19>,
    I32EnumAttrCase<"round", 20>,
    I32EnumAttrCase<"sin", 21>,
    I32EnumAttrCase<"cos", 22>,
    I32EnumAttrCase<"tan", 23>,
    I32EnumAttrCase<"asin", 24>,
    I32EnumAttrCase<"acos", 25>,
    I32EnumAttrCase<"atan", 26>,
    I32EnumAttrCase<"sinh", 27>,
    I32EnumAttrCase<"cosh", 28>,
    I32EnumAttrCase<"asinh", 29>,
    I32EnumAttrCase<"acosh", 30>,
    I32EnumAttrCase<"atanh", 31>,
    I32EnumAttrCase<"sign", 32>,
    I32EnumAttrCase<"selu", 33>,
    I32EnumAttrCase<"thresholded_relu", 34>,
    I32EnumAttrCase<"shrink", 35>,
    I32EnumAttrCase<"celu", 36>,
    // SiLU, x * sigmoid(x): torch exports nn.SiLU as Sigmoid and Mul
    // (YOLOv5/v8, EfficientNet); fuse-swish makes it one op.
    I32EnumAttrCase<"swish", 37>,
    // Mish, x * tanh(softplus(x)): ONNX's Mish (opset 18) is that function,
    // and torch exports nn.Mish below opset 18 as Softplus, Tanh and Mul
    // (YOLOv4, CSPDarknet); fuse-mish makes it one op.
    I32EnumAttrCase<"mish", 38>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_BinaryKind : I32EnumAttr<"BinaryKind", "elementwise binary function", [
    I32EnumAttrCase<"add", 0>,
    I32EnumAttrCase<"sub", 1>,
    I32EnumAttrCase<"mul", 2>,
    I32EnumAttrCase<"div", 3>,
    I32EnumAttrCase<"pow", 4>,
    I32EnumAttrCase<"max", 5>,
    I32EnumAttrCase<"min", 6>,
    I32EnumAttrCase<"and_", 7, "and">,
    I32EnumAttrCase<"or_", 8, "or">,
    I32EnumAttrCase<"xor_", 9, "xor">,
    I32EnumAttrCase<"mod", 10>,
    I32EnumAttrCase<"fmod", 11>,
    I32EnumAttrCase<"shl", 12>,
    I32EnumAttrCase<"shr", 13>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_CompareKind : I32EnumAttr<"CompareKind", "elementwise comparison", [
    I32EnumAttrCase<"eq", 0>,
    I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>,
    I32EnumAttrCase<"ge", 5>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_ReduceKind : I32EnumAttr<"ReduceKind", "reduction", [
    I32EnumAttrCase<"mean", 0>,
    I32EnumAttrCase<"sum", 1>,
    I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"prod", 4>,
    I32EnumAttrCase<"sum_square", 5>,
    I32EnumAttrCase<"l2", 6>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_PoolKind : I32EnumAttr<"PoolKind", "pooling function", [
    I32EnumAttrCase<"max", 0>,
    I32EnumAttrCase<"avg", 1>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_GeluApprox : I32EnumAttr<"GeluApproximation", "GELU formulation", [
    I32EnumAttrCase<"erf", 0>,
    I32EnumAttrCase<"tanh", 1>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_PadMode : I32EnumAttr<"PadMode", "padding mode", [
    I32EnumAttrCase<"constant", 0>,
    I32EnumAttrCase<"reflect", 1>,
    I32EnumAttrCase<"edge", 2>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_ResizeMode : I32EnumAttr<"ResizeMode", "resize interpolation", [
    I32EnumAttrCase<"nearest", 0>,
    I32EnumAttrCase<"linear", 1>,
    I32EnumAttrCase<"cubic", 2>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_CoordinateTransform
    : I32EnumAttr<"CoordinateTransform", "resize coordinate transformation", [
    I32EnumAttrCase<"half_pixel", 0>,
    I32EnumAttrCase<"pytorch_half_pixel", 1>,
    I32EnumAttrCase<"align_corners", 2>,
    I32EnumAttrCase<"asymmetric", 3>,
    I32EnumAttrCase<"half_pixel_symmetric", 4>,
    I32EnumAttrCase<"tf_half_pixel_for_nn", 5>,
    I32EnumAttrCase<"tf_crop_and_resize", 6>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_NearestMode : I32EnumAttr<"NearestMode", "resize nearest rounding", [
    I32EnumAttrCase<"round_prefer_floor", 0>,
    I32EnumAttrCase<"round_prefer_ceil", 1>,
    I32EnumAttrCase<"floor", 2>,
    I32EnumAttrCase<"ceil", 3>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_RnnCell : I32EnumAttr<"RnnCell", "recurrent cell", [
    I32EnumAttrCase<"lstm", 0>,
    I32EnumAttrCase<"gru", 1>,
    I32EnumAttrCase<"rnn", 2>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_ScatterReduction
    : I32EnumAttr<"ScatterReduction", "how a scatter combines an update", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"add", 1>,
    I32EnumAttrCase<"mul", 2>,
    I32EnumAttrCase<"max", 3>,
    I32EnumAttrCase<"min", 4>
  ]> {
  let cppNamespace = "::opscope::osc";
}

def Osc_TfIdfMode : I32EnumAttr<"TfIdfMode", "how an n-gram count is weighed", [
    I32EnumAttrCase<"tf", 0>,
    I32EnumAttrCase<"idf", 1>,
    I32EnumAttrCase<"tfidf", 2>
  ]> {
  let cppNamespace = "::opscope::osc";
}

#endif // OPSCOPE_DIALECT_OSC_IR_OSCBASE_TD
