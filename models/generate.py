#!/usr/bin/python3
"""Generates opscope's model corpus: deterministic ONNX models built with the
node patterns torch.onnx emits, with random (seeded) weights.

  generate.py [--out DIR] [MODEL ...]       (default: every model, into models/cache)

Models (NAME = FAMILY-opsetN[-sparse|-sparse4x4]):
  bert-mini-opset14, bert-mini-opset17 (+ -sparse; bert-mini-opset14 also
      + -sparse4x4; distilbert-opset14-sparse4x4 is built when named)
      4 layers, hidden 256, 4 heads, ffn 1024, vocab 30522; token type
      embeddings; mask as (1 - cast(mask)) * -10000 via Unsqueeze/Cast/Sub/Mul.
  bert-mini-vocab2k-opset14 (+ -sparse), built only when named: BERT-mini
      with a 2,048-word vocabulary, so that its fp32, bf16, int8 and pruned
      builds fit `make amx-bundle`'s 64 MiB (the 30,522-word embedding alone
      is 31 MB in fp32); every inner product has BERT-mini's shape.
  distilbert-opset14, distilbert-opset17 (+ -sparse)
      6 layers, hidden 768, 12 heads, ffn 3072, vocab 30522; mask as
      Where(Equal(mask, 0) expanded, -inf, scores).
  bert-mini-opset14-dynq (distilbert-opset14-dynq built when named): the
      encoder as ONNX Runtime's quantize_dynamic writes it (issue 53): every
      MatMul on a weight as DynamicQuantizeLinear -> MatMulInteger (s8
      weight per tensor, symmetric, zero point 0) -> Cast -> Mul by the
      product of the two scales, then the bias Add. "-dynq" on a CNN does
      the same to every Conv (ConvInteger, the bias added after a Reshape)
      with QUInt8 weights (asymmetric, their own zero point), as CNN
      exports have them.
  mlp-opset14    3 Gemm layers with ReLU.
  cnn-opset14    Conv/BatchNorm/ReLU/MaxPool/residual Add/GlobalAveragePool/Gemm.
  ocrdet-opset14 a PaddleOCR-like text detector (DB): a MobileNetV3-like
      backbone of depthwise-separable convolutions (BatchNorm, ReLU/HardSwish)
      down to /32, an FPN with nearest Resize upsampling and Add, the levels
      brought to /4 with linear Resize and concatenated, and a head of a 3x3
      convolution and two stride-2 ConvTransposes to a sigmoid map at full
      resolution. Input "x" [batch, 3, H, W], H and W multiples of 32.
  unet-opset14   a small U-Net (segmentation): two encoder levels of
      3x3 Conv/BatchNorm/ReLU pairs with 2x2 AveragePool between them, a
      bottleneck, a decoder of 3x3 stride-2 ConvTransposes (ReLU) whose
      outputs are concatenated with the encoder's skip connections, and a
      1x1 convolution to 2 class maps. Input "image" [batch, 3, H, W], H and
      W multiples of 4.
  isnet-opset17, u2netp-opset17 (+ -dynq) salient-segmentation networks as
      torch.onnx exports the public checkpoints (rembg's isnet-general-use
      and u2netp): residual U-blocks of 3x3 Conv+ReLU (BatchNorm folded)
      with MaxPool ceil_mode downsampling and bilinear Resize (sizes from
      Shape) back up, dilated RSU4F blocks (dilations 1/2/4/8), six side
      outputs, Sigmoids. isnet: 44 M parameters, input "input.1"
      1x3x1024x1024; u2netp: 1.1 M, 1x3x320x320.
  cnn-opset14-fp16, ppocrdet-opset14-fp16 (built only when named, until
      opscope imports them; any convolutional family's model + -fp16): the
      model through onnxconverter-common's fp16 converter with keep_io_types (convert_float16; issue 53): fp16 weights
      and values, float inputs and outputs through Casts appended at the end
      of the node list, Resize kept fp32 between Casts.
  vad-opset16    a voice-activity detector's shape: an If on the sample rate
      (Equal(sr, 16000)) whose branches frame the audio chunk (128 or 64
      samples per frame), project it, run two LSTM layers (hidden 64) from
      the state inputs h and c (2 x batch x 64) and score the last state; the
      outputs are the score and the new state (hn, cn) for the next chunk.

Encoders take input_ids and attention_mask, int64 [batch, sequence] (dynamic:
give --input-shape to opscope). Before opset 17 LayerNorm is decomposed
(ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add); at 17 it is
LayerNormalization. GELU is the Erf form. Heads are split with the
Shape/Gather/Unsqueeze/Concat/Reshape chain. "-sparse" prunes every linear
weight to 80% zero 1x4 blocks (4 consecutive input features of one output),
by block magnitude; "-sparse4x4" to 80% zero 4x4 blocks (4 consecutive
features of 4 consecutive outputs), which opscope runs on its 4x4 kernels.

A model is rewritten only when missing or produced by an older generator
(the generator's hash is stored in the model's metadata).
"""

import argparse
import hashlib
import math
import re
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
with open(__file__, "rb") as _f:
    GENERATOR_HASH = hashlib.sha256(_f.read()).hexdigest()[:16]

ENCODERS = {
    "bert-mini": dict(layers=4, hidden=256, heads=4, ffn=1024, vocab=30522,
                      max_pos=512, token_types=True, mask="cast_sub_mul"),
    "distilbert": dict(layers=6, hidden=768, heads=12, ffn=3072, vocab=30522,
                       max_pos=512, token_types=False, mask="where"),
}
# Encoders built only when named (not part of the corpus the tests walk).
ON_REQUEST_ENCODERS = {
    "bert-mini-vocab2k": dict(ENCODERS["bert-mini"], vocab=2048),
}


class Builder:
    """Accumulates nodes and initializers with torch-style names."""

    def __init__(self, seed, sparse=False, dynq=False):
        self.nodes, self.inits = [], []
        self.rng = np.random.default_rng(seed)
        self.sparse = sparse
        self.count = 0
        # quantize_dynamic's form of the encoders' linear layers (dynq_matmul):
        # the DynamicQuantizeLinear outputs of each quantized input.
        self.dynq = dynq
        self.dynq_inputs = {}

    def node(self, op, inputs, name, outputs=1, **attrs):
        outs = ["%s_output_%d" % (name, i) for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, value, name, dtype=np.int64):
        """A Constant node, as torch.onnx emits for literals."""
        arr = np.array(value, dtype=dtype)
        return self.node("Constant", [], name,
                         value=numpy_helper.from_array(arr, name + "_value"))

    def init(self, array, name):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def weight(self, shape, name, scale=0.02, prune=False):
        w = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        if prune and self.sparse == "4x4":
            w = prune_4x4(w)
        elif prune and self.sparse:
            w = prune_1x4(w)
        return self.init(w, name)


def prune_1x4(w, ratio=0.8):
    """Zeroes `ratio` of the 1x4 blocks (4 consecutive input features of one
    output; ONNX MatMul weights are K x N) with the smallest L1 norm."""
    k, n = w.shape
    assert k % 4 == 0
    blocks = np.abs(w.reshape(k // 4, 4, n)).sum(axis=1)  # (k/4, n)
    cut = np.quantile(blocks, ratio)
    keep = blocks > cut
    return (w.reshape(k // 4, 4, n) * keep[:, None, :]).reshape(k, n)


def prune_4x4(w, ratio=0.8):
    """Zeroes `ratio` of the 4x4 blocks (4 consecutive input features of 4
    consecutive outputs) with the smallest L1 norm."""
    k, n = w.shape
    assert k % 4 == 0 and n % 4 == 0
    blocks = np.abs(w.reshape(k // 4, 4, n // 4, 4)).sum(axis=(1, 3))
    cut = np.quantile(blocks, ratio)
    keep = blocks > cut
    return (w.reshape(k // 4, 4, n // 4, 4) * keep[:, None, :, None]).reshape(k, n)


def scope(prefix):
    """torch.onnx's node scope: module path with '/', list indices kept
    (encoder.layer.0.attention -> /encoder/layer.0/attention)."""
    return "/" + re.sub(r"/(\d+)", r".\1", prefix.replace(".", "/"))


def linear(b, x, k, n, prefix):
    w = b.weight((k, n), prefix + ".weight", prune=True)
    bias = b.weight((n,), prefix + ".bias")
    if b.dynq:
        y = dynq_matmul(b, x, w, scope(prefix) + "/MatMul")
    else:
        y = b.node("MatMul", [x, w], scope(prefix) + "/MatMul")
    return b.node("Add", [bias, y], scope(prefix) + "/Add")


def dynq_matmul(b, x, w, name):
    """A MatMul as ONNX Runtime's quantize_dynamic (QInt8 weights, per
    tensor, symmetric, its defaults) writes it: DynamicQuantizeLinear of the
    input (one per input tensor, shared by the MatMuls that read it),
    MatMulInteger with the s8 weight and its zero zero point, Cast to float,
    Mul by the product of the two scales. The f32 weight initializer is
    replaced by its quantized form."""
    wf = next(i for i in b.inits if i.name == w)
    b.inits.remove(wf)
    wv = numpy_helper.to_array(wf)
    scale = np.float32(np.abs(wv).max() / 127.0)
    wq = np.clip(np.round(wv / scale), -127, 127).astype(np.int8)
    wq_name = b.init(wq, w + "_quantized")
    ws_name = b.init(np.array(scale, np.float32), w + "_scale")
    wz_name = b.init(np.array(0, np.int8), w + "_zero_point")
    if x not in b.dynq_inputs:
        outs = [x + "_quantized", x + "_scale", x + "_zero_point"]
        b.nodes.append(helper.make_node("DynamicQuantizeLinear", [x], outs,
                                        name=x + "_QuantizeLinear"))
        b.dynq_inputs[x] = outs
    xq, xs, xz = b.dynq_inputs[x]
    out = name + "_output_0"
    yi = out + "_quantized"
    b.nodes.append(helper.make_node("MatMulInteger", [xq, wq_name, xz, wz_name],
                                    [yi], name=name + "_quant"))
    yc = yi + "_cast_output"
    b.nodes.append(helper.make_node("Cast", [yi], [yc], name=yi + "_cast",
                                    to=TensorProto.FLOAT))
    sm = name + "_quant_scales_mul:0"
    b.nodes.append(helper.make_node("Mul", [xs, ws_name], [sm],
                                    name=name + "_quant_scales_mul"))
    b.nodes.append(helper.make_node("Mul", [yc, sm], [out],
                                    name=name + "_quant_output_scale_mul"))
    return out


def layer_norm(b, x, hidden, prefix, opset):
    g = b.init((1.0 + 0.1 * b.rng.standard_normal(hidden)).astype(np.float32),
               prefix + ".weight")
    beta = b.weight((hidden,), prefix + ".bias", scale=0.1)
    p = scope(prefix)
    if opset >= 17:
        return b.node("LayerNormalization", [x, g, beta], p + "/LayerNormalization",
                      axis=-1, epsilon=1e-12)
    # torch.onnx's decomposition before opset 17.
    mean = b.node("ReduceMean", [x], p + "/ReduceMean", axes=[-1])
    d = b.node("Sub", [x, mean], p + "/Sub")
    two = b.const(2.0, p + "/Constant", np.float32)
    sq = b.node("Pow", [d, two], p + "/Pow")
    var = b.node("ReduceMean", [sq], p + "/ReduceMean_1", axes=[-1])
    eps = b.const(1e-12, p + "/Constant_1", np.float32)
    ve = b.node("Add", [var, eps], p + "/Add")
    sd = b.node("Sqrt", [ve], p + "/Sqrt")
    nx = b.node("Div", [d, sd], p + "/Div")
    sc = b.node("Mul", [nx, g], p + "/Mul")
    return b.node("Add", [sc, beta], p + "/Add_1")


def gelu(b, x, prefix):
    p = scope(prefix)
    r2 = b.const(1.4142135381698608, p + "/Constant", np.float32)
    d = b.node("Div", [x, r2], p + "/Div")
    e = b.node("Erf", [d], p + "/Erf")
    one = b.const(1.0, p + "/Constant_1", np.float32)
    a = b.node("Add", [e, one], p + "/Add")
    m = b.node("Mul", [x, a], p + "/Mul")
    half = b.const(0.5, p + "/Constant_2", np.float32)
    return b.node("Mul", [m, half], p + "/Mul_1")


def split_heads(b, x, heads, dh, p, perm):
    """Reshape [b, s, h*d] -> [b, s, h, d] through the Shape chain, transpose."""
    shape = b.node("Shape", [x], p + "/Shape")
    i0 = b.const(0, p + "/Constant")
    bs = b.node("Gather", [shape, i0], p + "/Gather", axis=0)
    shape1 = b.node("Shape", [x], p + "/Shape_1")
    i1 = b.const(1, p + "/Constant_1")
    sl = b.node("Gather", [shape1, i1], p + "/Gather_1", axis=0)
    ax = b.const([0], p + "/Constant_2")
    bu = b.node("Unsqueeze", [bs, ax], p + "/Unsqueeze")
    su = b.node("Unsqueeze", [sl, ax], p + "/Unsqueeze_1")
    hd = b.const([heads, dh], p + "/Constant_3")
    target = b.node("Concat", [bu, su, hd], p + "/Concat", axis=0)
    r = b.node("Reshape", [x, target], p + "/Reshape")
    return b.node("Transpose", [r], p + "/Transpose", perm=perm)


def encoder(name, cfg, opset, sparse, dynq=False):
    b = Builder(seed=1234, sparse=sparse, dynq=dynq)
    H, nh, F = cfg["hidden"], cfg["heads"], cfg["ffn"]
    dh = H // nh
    ids, mask = "input_ids", "attention_mask"

    # Embeddings: words + positions (+ token types), LayerNorm.
    we = b.weight((cfg["vocab"], H), "embeddings.word_embeddings.weight")
    x = b.node("Gather", [we, ids], "/embeddings/word_embeddings/Gather")
    pos_buf = b.init(np.arange(cfg["max_pos"], dtype=np.int64)[None, :],
                     "embeddings.position_ids")
    shp = b.node("Shape", [ids], "/embeddings/Shape")
    one = b.const([1], "/embeddings/Constant")
    seq = b.node("Slice", [shp, one, b.const([2], "/embeddings/Constant_1"),
                           b.const([0], "/embeddings/Constant_2")],
                 "/embeddings/Slice")
    zero = b.const([0], "/embeddings/Constant_3")
    pos_ids = b.node("Slice", [pos_buf, zero, seq, one], "/embeddings/Slice_1")
    pe = b.weight((cfg["max_pos"], H), "embeddings.position_embeddings.weight")
    pos = b.node("Gather", [pe, pos_ids], "/embeddings/position_embeddings/Gather")
    x = b.node("Add", [x, pos], "/embeddings/Add")
    if cfg["token_types"]:
        tt_ids = b.node("ConstantOfShape", [shp], "/embeddings/ConstantOfShape",
                        value=numpy_helper.from_array(np.array([0], np.int64)))
        te = b.weight((2, H), "embeddings.token_type_embeddings.weight")
        tt = b.node("Gather", [te, tt_ids], "/embeddings/token_type_embeddings/Gather")
        x = b.node("Add", [x, tt], "/embeddings/Add_1")
    x = layer_norm(b, x, H, "embeddings.LayerNorm", opset)

    # Attention mask, computed once.
    if cfg["mask"] == "cast_sub_mul":
        mu = b.node("Unsqueeze", [mask, b.const([1, 2], "/Constant")], "/Unsqueeze")
        mf = b.node("Cast", [mu], "/Cast", to=TensorProto.FLOAT)
        inv = b.node("Sub", [b.const(1.0, "/Constant_1", np.float32), mf], "/Sub")
        ext = b.node("Mul", [inv, b.const(-10000.0, "/Constant_2", np.float32)], "/Mul")
    else:
        eq = b.node("Equal", [mask, b.const(0, "/Constant")], "/Equal")
        mshape = b.node("Shape", [mask], "/Shape")
        bsz = b.node("Gather", [mshape, b.const(0, "/Constant_1")], "/Gather", axis=0)
        sln = b.node("Gather", [mshape, b.const(1, "/Constant_2")], "/Gather_1", axis=0)
        u0 = b.node("Unsqueeze", [bsz, b.const([0], "/Constant_3")], "/Unsqueeze")
        u1 = b.node("Unsqueeze", [sln, b.const([0], "/Constant_4")], "/Unsqueeze_1")
        view = b.node("Concat", [u0, b.const([1, 1], "/Constant_5"), u1], "/Concat", axis=0)
        ext = b.node("Reshape", [eq, view], "/Reshape")  # [b, 1, 1, s] bool

    for l in range(cfg["layers"]):
        p = "encoder.layer.%d" % l
        q = linear(b, x, H, H, p + ".attention.self.query")
        k = linear(b, x, H, H, p + ".attention.self.key")
        v = linear(b, x, H, H, p + ".attention.self.value")
        pa = scope(p) + "/attention/self"
        qh = split_heads(b, q, nh, dh, pa + "/q", [0, 2, 1, 3])
        kh = split_heads(b, k, nh, dh, pa + "/k", [0, 2, 3, 1])
        vh = split_heads(b, v, nh, dh, pa + "/v", [0, 2, 1, 3])
        s = b.node("MatMul", [qh, kh], pa + "/MatMul")
        s = b.node("Div", [s, b.const(math.sqrt(dh), pa + "/Constant", np.float32)], pa + "/Div")
        if cfg["mask"] == "cast_sub_mul":
            s = b.node("Add", [s, ext], pa + "/Add")
        else:
            sshape = b.node("Shape", [s], pa + "/Shape")
            em = b.node("Expand", [ext, sshape], pa + "/Expand")
            ninf = b.const(-np.inf, pa + "/Constant_1", np.float32)
            s = b.node("Where", [em, ninf, s], pa + "/Where")
        pr = b.node("Softmax", [s], pa + "/Softmax", axis=-1)
        c = b.node("MatMul", [pr, vh], pa + "/MatMul_1")
        c = b.node("Transpose", [c], pa + "/Transpose_3", perm=[0, 2, 1, 3])
        cs = b.node("Shape", [c], pa + "/Shape_3")
        cb = b.node("Gather", [cs, b.const(0, pa + "/Constant_2")], pa + "/Gather_3", axis=0)
        cq = b.node("Gather", [cs, b.const(1, pa + "/Constant_3")], pa + "/Gather_4", axis=0)
        ub = b.node("Unsqueeze", [cb, b.const([0], pa + "/Constant_4")], pa + "/Unsqueeze_3")
        uq = b.node("Unsqueeze", [cq, b.const([0], pa + "/Constant_5")], pa + "/Unsqueeze_4")
        tgt = b.node("Concat", [ub, uq, b.const([H], pa + "/Constant_6")], pa + "/Concat_3", axis=0)
        c = b.node("Reshape", [c, tgt], pa + "/Reshape_3")
        o = linear(b, c, H, H, p + ".attention.output.dense")
        o = b.node("Add", [o, x], scope(p) + "/attention/output/Add")
        x = layer_norm(b, o, H, p + ".attention.output.LayerNorm", opset)
        h = linear(b, x, H, F, p + ".intermediate.dense")
        h = gelu(b, h, p + ".intermediate.intermediate_act_fn")
        o = linear(b, h, F, H, p + ".output.dense")
        o = b.node("Add", [o, x], scope(p) + "/output/Add")
        x = layer_norm(b, o, H, p + ".output.LayerNorm", opset)

    b.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"],
                                    name="/Identity"))
    dyn = ["batch", "sequence"]
    graph = helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info(ids, TensorProto.INT64, dyn),
         helper.make_tensor_value_info(mask, TensorProto.INT64, dyn)],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                       dyn + [H])],
        b.inits)
    return graph


def mlp(name, opset):
    b = Builder(seed=7)
    x = "input"
    dims = [784, 512, 256, 10]
    for i in range(3):
        w = b.weight((dims[i + 1], dims[i]), "fc%d.weight" % (i + 1), scale=0.05)
        bias = b.weight((dims[i + 1],), "fc%d.bias" % (i + 1))
        x = b.node("Gemm", [x, w, bias], "/fc%d/Gemm" % (i + 1), transB=1)
        if i < 2:
            x = b.node("Relu", [x], "/relu%d/Relu" % (i + 1))
    b.nodes.append(helper.make_node("Identity", [x], ["logits"], name="/Identity"))
    return helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 784])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        b.inits)


def cnn(name, opset):
    b = Builder(seed=11)

    def conv_bn(x, cin, cout, k, stride, prefix, relu=True):
        w = b.weight((cout, cin, k, k), prefix + ".conv.weight",
                     scale=math.sqrt(2.0 / (cin * k * k)))
        y = b.node("Conv", [x, w], "/%s/conv/Conv" % prefix, kernel_shape=[k, k],
                   strides=[stride, stride], pads=[k // 2] * 4)
        g = b.init((1 + 0.1 * b.rng.standard_normal(cout)).astype(np.float32), prefix + ".bn.weight")
        be = b.weight((cout,), prefix + ".bn.bias", scale=0.1)
        mu = b.weight((cout,), prefix + ".bn.running_mean", scale=0.1)
        var = b.init((1 + 0.1 * np.abs(b.rng.standard_normal(cout))).astype(np.float32),
                     prefix + ".bn.running_var")
        y = b.node("BatchNormalization", [y, g, be, mu, var], "/%s/bn/BatchNormalization" % prefix,
                   epsilon=1e-5)
        return b.node("Relu", [y], "/%s/relu/Relu" % prefix) if relu else y

    x = conv_bn("input", 3, 32, 3, 2, "stem")
    x = b.node("MaxPool", [x], "/maxpool/MaxPool", kernel_shape=[3, 3], strides=[2, 2],
               pads=[1, 1, 1, 1])
    for i, (cin, cout, stride) in enumerate([(32, 32, 1), (32, 64, 2), (64, 128, 2)]):
        p = "layer%d" % (i + 1)
        y = conv_bn(x, cin, cout, 3, stride, p + ".0")
        y = conv_bn(y, cout, cout, 3, 1, p + ".1", relu=False)
        sc = x if (cin == cout and stride == 1) else conv_bn(x, cin, cout, 1, stride, p + ".down", relu=False)
        x = b.node("Relu", [b.node("Add", [y, sc], "/%s/Add" % p)], "/%s/relu/Relu" % p)
    x = b.node("GlobalAveragePool", [x], "/avgpool/GlobalAveragePool")
    x = b.node("Flatten", [x], "/Flatten", axis=1)
    w = b.weight((10, 128), "fc.weight", scale=0.05)
    bias = b.weight((10,), "fc.bias")
    b.nodes.append(helper.make_node("Gemm", [x, w, bias], ["logits"], name="/fc/Gemm", transB=1))
    return helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 64, 64])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        b.inits)


def ocrdet(name, opset):
    b = Builder(seed=13)

    def bn(y, c, prefix):
        g = b.init((1 + 0.1 * b.rng.standard_normal(c)).astype(np.float32), prefix + ".bn.weight")
        be = b.weight((c,), prefix + ".bn.bias", scale=0.1)
        mu = b.weight((c,), prefix + ".bn.running_mean", scale=0.1)
        var = b.init((1 + 0.1 * np.abs(b.rng.standard_normal(c))).astype(np.float32),
                     prefix + ".bn.running_var")
        return b.node("BatchNormalization", [y, g, be, mu, var], scope(prefix) + "/bn/BatchNormalization",
                      epsilon=1e-5)

    def conv(x, cin, cout, k, stride, prefix, groups=1, act="Relu", norm=True):
        w = b.weight((cout, cin // groups, k, k), prefix + ".conv.weight",
                     scale=math.sqrt(2.0 / (cin // groups * k * k)))
        inputs = [x, w] if norm else [x, w, b.weight((cout,), prefix + ".conv.bias", scale=0.1)]
        y = b.node("Conv", inputs, scope(prefix) + "/conv/Conv", kernel_shape=[k, k],
                   strides=[stride, stride], pads=[k // 2] * 4, group=groups)
        if norm:
            y = bn(y, cout, prefix)
        return b.node(act, [y], scope(prefix) + "/act/" + act) if act else y

    def resize(x, factor, mode, prefix):
        scales = b.init(np.array([1, 1, factor, factor], dtype=np.float32), prefix + ".scales")
        attrs = dict(mode=mode)
        if mode == "nearest":
            attrs.update(coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        else:
            attrs.update(coordinate_transformation_mode="half_pixel")
        return b.node("Resize", [x, "", scales], scope(prefix) + "/Resize", **attrs)

    x = conv("x", 3, 16, 3, 2, "backbone.stem", act="HardSwish")
    # (out channels, stride) of the depthwise-separable blocks; the last
    # block of each stride is a pyramid level (/4, /8, /16, /32).
    blocks = [(16, 1), (24, 2), (24, 1), (40, 2), (40, 1), (96, 2), (96, 1), (160, 2), (160, 1)]
    cin, levels = 16, []
    for i, (cout, stride) in enumerate(blocks):
        p = "backbone.blocks.%d" % i
        y = conv(x, cin, cin, 3, stride, p + ".dw", groups=cin)
        y = conv(y, cin, cout, 1, 1, p + ".pw", act="HardSwish" if cout >= 96 else "Relu")
        if stride == 1 and cin == cout:
            y = b.node("Add", [y, x], scope(p) + "/Add")
        x, cin = y, cout
        if i + 1 == len(blocks) or blocks[i + 1][1] == 2:
            levels.append((x, cout))
    levels = levels[1:]  # the /2 block is not a level
    # FPN: laterals to 96 channels, top-down with nearest x2 upsampling.
    lat = [conv(f, c, 96, 1, 1, "neck.lateral.%d" % i, act=None, norm=False)
           for i, (f, c) in enumerate(levels)]
    top = lat[-1]
    merged = [top]
    for i in range(len(lat) - 2, -1, -1):
        top = b.node("Add", [lat[i], resize(top, 2.0, "nearest", "neck.up.%d" % i)],
                     "/neck/top_down.%d/Add" % i)
        merged.insert(0, top)
    outs = []
    for i, m in enumerate(merged):
        y = conv(m, 96, 24, 3, 1, "neck.smooth.%d" % i, act=None, norm=False)
        if i:
            y = resize(y, float(2 ** i), "linear", "neck.to4.%d" % i)
        outs.append(y)
    y = b.node("Concat", outs, "/neck/Concat", axis=1)
    # DB head: probability map at full resolution.
    y = conv(y, 96, 24, 3, 1, "head.conv")
    for i, cout in enumerate([24, 1]):
        w = b.weight((24, cout, 2, 2), "head.deconv.%d.weight" % i, scale=math.sqrt(2.0 / 96))
        bias = b.weight((cout,), "head.deconv.%d.bias" % i, scale=0.1)
        y = b.node("ConvTranspose", [y, w, bias], "/head/deconv.%d/ConvTranspose" % i,
                   kernel_shape=[2, 2], strides=[2, 2])
        if i == 0:
            y = b.node("Relu", [bn(y, 24, "head.deconv.0")], "/head/deconv.0/Relu")
    b.nodes.append(helper.make_node("Sigmoid", [y], ["maps"], name="/head/Sigmoid"))
    return helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "height", "width"])],
        [helper.make_tensor_value_info("maps", TensorProto.FLOAT, ["batch", 1, "height", "width"])],
        b.inits)


def ppocrdet(name, opset):
    """A PP-OCR-style text detector as Paddle2ONNX exports it: MobileNetV3
    (large, scale 0.5) backbone with hardswish written as
    Add(x, 3) -> Clip(0, 6) -> Mul(x, .) -> Div(., 6) (Clip's min and max
    Constant nodes, as Paddle2ONNX's helper writes them), squeeze-excite with
    GlobalAveragePool and HardSigmoid(0.2, 0.5), Conv and BatchNormalization
    kept apart, a DBFPN neck (nearest Resize by scales, Concat) and the DB
    head (two ConvTranspose, Sigmoid). Names follow Paddle2ONNX's
    `p2o.Op.N` nodes and Paddle's `conv2d_N.tmp_0` tensors."""
    b = Builder(seed=29)
    count = {}

    def node(op, inputs, **attrs):
        n = count.get(op, 0)
        count[op] = n + 1
        out = "%s_%d.tmp_0" % (op.lower(), n)
        b.nodes.append(helper.make_node(op, inputs, [out], name="p2o.%s.%d" % (op, n), **attrs))
        return out

    def constant(value):
        n = count.get("helper", 0)
        count["helper"] = n + 1
        out = "p2o.helper.constant.%d" % n
        b.nodes.append(helper.make_node(
            "Constant", [], [out], name="p2o.Constant.%d" % n,
            value=numpy_helper.from_array(np.array(value, dtype=np.float32), out)))
        return out

    def hardswish(x):
        y = node("Add", [x, constant(3.0)])
        y = node("Clip", [y, constant(0.0), constant(6.0)])
        y = node("Mul", [x, y])
        return node("Div", [y, constant(6.0)])

    def conv_bn(x, cin, cout, k, stride, prefix, groups=1, act=None):
        w = b.weight((cout, cin // groups, k, k), prefix + "_weights",
                     scale=math.sqrt(2.0 / (cin // groups * k * k)))
        y = node("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride],
                 pads=[(k - 1) // 2] * 4, group=groups, dilations=[1, 1])
        g = b.init((1 + 0.1 * b.rng.standard_normal(cout)).astype(np.float32), prefix + "_bn_scale")
        be = b.weight((cout,), prefix + "_bn_offset", scale=0.1)
        mu = b.weight((cout,), prefix + "_bn_mean", scale=0.1)
        var = b.init((1 + 0.1 * np.abs(b.rng.standard_normal(cout))).astype(np.float32),
                     prefix + "_bn_variance")
        y = node("BatchNormalization", [y, g, be, mu, var], epsilon=1e-5, momentum=0.9)
        if act == "relu":
            y = node("Relu", [y])
        elif act == "hardswish":
            y = hardswish(y)
        return y

    def se(x, c, prefix):
        mid = c // 4
        y = node("GlobalAveragePool", [x])
        w1, b1 = b.weight((mid, c, 1, 1), prefix + "_1_weights", scale=math.sqrt(2.0 / c)), \
            b.weight((mid,), prefix + "_1_offset", scale=0.1)
        y = node("Relu", [node("Conv", [y, w1, b1], kernel_shape=[1, 1], strides=[1, 1],
                               pads=[0, 0, 0, 0], group=1, dilations=[1, 1])])
        w2, b2 = b.weight((c, mid, 1, 1), prefix + "_2_weights", scale=math.sqrt(2.0 / mid)), \
            b.weight((c,), prefix + "_2_offset", scale=0.1)
        y = node("Conv", [y, w2, b2], kernel_shape=[1, 1], strides=[1, 1], pads=[0, 0, 0, 0],
                 group=1, dilations=[1, 1])
        y = node("HardSigmoid", [y], alpha=0.2, beta=0.5)
        return node("Mul", [x, y])

    def divisible(v):
        return max(8, int(v + 4) // 8 * 8)

    def dyn(i):
        return "p2o.DynamicDimension.%d" % i

    # MobileNetV3 large: kernel, expansion, out, squeeze-excite, act, stride.
    cfg = [(3, 16, 16, False, "relu", 1), (3, 64, 24, False, "relu", 2),
           (3, 72, 24, False, "relu", 1), (5, 72, 40, True, "relu", 2),
           (5, 120, 40, True, "relu", 1), (5, 120, 40, True, "relu", 1),
           (3, 240, 80, False, "hardswish", 2), (3, 200, 80, False, "hardswish", 1),
           (3, 184, 80, False, "hardswish", 1), (3, 184, 80, False, "hardswish", 1),
           (3, 480, 112, True, "hardswish", 1), (3, 672, 112, True, "hardswish", 1),
           (5, 672, 160, True, "hardswish", 2), (5, 960, 160, True, "hardswish", 1),
           (5, 960, 160, True, "hardswish", 1)]
    scale = 0.5
    cin = divisible(16 * scale)
    x = conv_bn("x", 3, cin, 3, 2, "conv1", act="hardswish")
    levels = []
    for i, (k, exp, out, use_se, act, stride) in enumerate(cfg):
        mid, cout = divisible(exp * scale), divisible(out * scale)
        p = "conv%d" % (i + 2)
        if stride == 2 and i > 1:  # the /4, /8 and /16 features
            levels.append((x, cin))
        y = conv_bn(x, cin, mid, 1, 1, p + "_expand", act=act)
        y = conv_bn(y, mid, mid, k, stride, p + "_depthwise", groups=mid, act=act)
        if use_se:
            y = se(y, mid, p + "_se")
        y = conv_bn(y, mid, cout, 1, 1, p + "_linear")
        if stride == 1 and cin == cout:
            y = node("Add", [x, y])
        x, cin = y, cout
    last = divisible(960 * scale)
    levels.append((conv_bn(x, cin, last, 1, 1, "conv_last", act="hardswish"), last))
    # DBFPN: 1x1 laterals to 256, top-down nearest x2 with Add, 3x3 to 64,
    # nearest to 1/4 and Concat.
    inner = []
    for i, (f, c) in enumerate(levels):
        w = b.weight((256, c, 1, 1), "neck_in%d_weights" % i, scale=math.sqrt(2.0 / c))
        inner.append(node("Conv", [f, w], kernel_shape=[1, 1], strides=[1, 1], pads=[0, 0, 0, 0],
                          group=1, dilations=[1, 1]))

    def upsample(t, factor):
        scales = b.init(np.array([1, 1, factor, factor], dtype=np.float32),
                        "p2o.scales.%d" % count.setdefault("scales", 0))
        count["scales"] += 1
        return node("Resize", [t, "", scales], mode="nearest",
                    coordinate_transformation_mode="asymmetric", nearest_mode="floor")

    for i in range(len(inner) - 2, -1, -1):
        inner[i] = node("Add", [inner[i], upsample(inner[i + 1], 2.0)])
    outs = []
    for i, t in enumerate(inner):
        w = b.weight((64, 256, 3, 3), "neck_p%d_weights" % i, scale=math.sqrt(2.0 / (256 * 9)))
        y = node("Conv", [t, w], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1],
                 group=1, dilations=[1, 1])
        outs.append(upsample(y, float(2 ** i)) if i else y)
    y = node("Concat", outs[::-1], axis=1)
    # DB head: probability map at full resolution.
    y = conv_bn(y, 256, 64, 3, 1, "binarize_conv1", act="relu")
    for i, cout in enumerate([64, 1]):
        w = b.weight((64, cout, 2, 2), "binarize_conv%d_weights" % (i + 2), scale=math.sqrt(2.0 / 256))
        bias = b.weight((cout,), "binarize_conv%d_offset" % (i + 2), scale=0.1)
        y = node("ConvTranspose", [y, w, bias], kernel_shape=[2, 2], strides=[2, 2],
                 pads=[0, 0, 0, 0], group=1, dilations=[1, 1])
        if i == 0:
            g = b.init((1 + 0.1 * b.rng.standard_normal(64)).astype(np.float32), "binarize_bn2_scale")
            be = b.weight((64,), "binarize_bn2_offset", scale=0.1)
            mu = b.weight((64,), "binarize_bn2_mean", scale=0.1)
            var = b.init((1 + 0.1 * np.abs(b.rng.standard_normal(64))).astype(np.float32),
                         "binarize_bn2_variance")
            y = node("Relu", [node("BatchNormalization", [y, g, be, mu, var], epsilon=1e-5,
                                   momentum=0.9)])
    b.nodes.append(helper.make_node("Sigmoid", [y], ["sigmoid_0.tmp_0"], name="p2o.Sigmoid.0"))
    return helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [dyn(0), 3, dyn(1), dyn(2)])],
        [helper.make_tensor_value_info("sigmoid_0.tmp_0", TensorProto.FLOAT,
                                       [dyn(3), 1, dyn(4), dyn(5)])],
        b.inits)


def unet(name, opset):
    b = Builder(seed=17)

    def conv_bn(x, cin, cout, prefix):
        w = b.weight((cout, cin, 3, 3), prefix + ".conv.weight",
                     scale=math.sqrt(2.0 / (cin * 9)))
        y = b.node("Conv", [x, w], scope(prefix) + "/conv/Conv", kernel_shape=[3, 3],
                   strides=[1, 1], pads=[1, 1, 1, 1])
        g = b.init((1 + 0.1 * b.rng.standard_normal(cout)).astype(np.float32), prefix + ".bn.weight")
        be = b.weight((cout,), prefix + ".bn.bias", scale=0.1)
        mu = b.weight((cout,), prefix + ".bn.running_mean", scale=0.1)
        var = b.init((1 + 0.1 * np.abs(b.rng.standard_normal(cout))).astype(np.float32),
                     prefix + ".bn.running_var")
        y = b.node("BatchNormalization", [y, g, be, mu, var], scope(prefix) + "/bn/BatchNormalization",
                   epsilon=1e-5)
        return b.node("Relu", [y], scope(prefix) + "/relu/Relu")

    def block(x, cin, cout, prefix):
        return conv_bn(conv_bn(x, cin, cout, prefix + ".0"), cout, cout, prefix + ".1")

    def up(x, cin, cout, prefix):
        # PyTorch's ConvTranspose2d(cin, cout, 3, stride=2, padding=1,
        # output_padding=1): doubles H and W.
        w = b.weight((cin, cout, 3, 3), prefix + ".weight", scale=math.sqrt(2.0 / (cin * 9)))
        bias = b.weight((cout,), prefix + ".bias", scale=0.1)
        y = b.node("ConvTranspose", [x, w, bias], scope(prefix) + "/ConvTranspose",
                   kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])
        return b.node("Relu", [y], scope(prefix) + "/Relu")

    def pool(x, prefix):
        return b.node("AveragePool", [x], scope(prefix) + "/AveragePool",
                      kernel_shape=[2, 2], strides=[2, 2])

    e1 = block("image", 3, 16, "enc1")
    e2 = block(pool(e1, "pool1"), 16, 32, "enc2")
    m = block(pool(e2, "pool2"), 32, 64, "mid")
    d2 = block(b.node("Concat", [up(m, 64, 32, "up2"), e2], "/dec2/Concat", axis=1), 64, 32, "dec2")
    d1 = block(b.node("Concat", [up(d2, 32, 16, "up1"), e1], "/dec1/Concat", axis=1), 32, 16, "dec1")
    w = b.weight((2, 16, 1, 1), "head.weight", scale=0.2)
    bias = b.weight((2,), "head.bias", scale=0.1)
    b.nodes.append(helper.make_node("Conv", [d1, w, bias], ["mask"], name="/head/Conv",
                                    kernel_shape=[1, 1]))
    return helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, "height", "width"])],
        [helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", 2, "height", "width"])],
        b.inits)


# He-style gains of the BatchNorm-folded weights: activations keep their
# scale through the U-blocks and the side outputs' logits spread the masks
# over (0, 1), as a trained network's do.
BODY_GAIN = math.sqrt(2.0)
SIDE_GAIN = 0.2


def u2net(name, opset, variant):
    """U2-Net (Qin et al. 2020) as torch.onnx exports the public salient
    object / background-removal checkpoints (rembg's u2net.onnx and
    u2netp.onnx, IS-Net's family): BatchNorm folded into each Conv (eval
    mode), residual U-blocks RSU7..RSU4 of 3x3 Conv+ReLU with MaxPool 2x2
    stride 2 ceil_mode between levels and bilinear Resize back (sizes read
    from the skip tensor's Shape; half_pixel, as torch writes
    align_corners=False), RSU4F blocks with dilations 1/2/4/8 instead of pooling, six
    side outputs upsampled to the input, each through a Sigmoid.
    "isnet": IS-Net (DIS, rembg's isnet-general-use), 44 M parameters, a
    stride-2 3x3 Conv to 64 channels before the U-blocks, input
    1x3x1024x1024. "u2netp": U2-Net's 1.1 M-parameter network (rembg's
    u2netp), 16/64 channels, the side outputs also fused by a 1x1 Conv,
    input 1x3x320x320."""
    b = Builder(seed=41)
    count = {}

    def fresh(op):
        n = count.get(op, 0)
        count[op] = n + 1
        return n

    def conv(x, cin, cout, prefix, dirate=1, k=3, relu=True, gain=BODY_GAIN):
        # BatchNorm folded: the weight's scale and a bias.
        w = b.weight((cout, cin, k, k), "onnx::Conv_%d" % (1000 + fresh("w")),
                     scale=gain * math.sqrt(1.0 / (cin * k * k)))
        bias = b.weight((cout,), "onnx::Conv_%d" % (1000 + fresh("w")), scale=0.05)
        pad = dirate * (k // 2)
        y = b.node("Conv", [x, w, bias], prefix + "/Conv", kernel_shape=[k, k],
                   strides=[1, 1], pads=[pad] * 4, dilations=[dirate, dirate], group=1)
        if relu:
            y = b.node("Relu", [y], prefix.replace("conv_s1", "relu_s1") + "/Relu")
        return y

    def rebn(x, cin, cout, prefix, dirate=1):
        return conv(x, cin, cout, prefix + "/conv_s1", dirate)

    def pool(x, prefix):
        return b.node("MaxPool", [x], prefix + "/MaxPool", kernel_shape=[2, 2],
                      strides=[2, 2], pads=[0, 0, 0, 0], ceil_mode=1)

    def upsample_like(src, tar, prefix):
        # F.interpolate(src, size=tar.shape[2:], mode="bilinear"): the
        # sizes from the target's Shape, concatenated with the source's
        # batch and channels.
        p = prefix + "/Resize_%d" % fresh("up")
        ss = b.node("Shape", [src], p + "/Shape")
        nc = b.node("Slice", [ss, b.init(np.array([0], np.int64), p + ".s0"),
                              b.init(np.array([2], np.int64), p + ".e0")], p + "/Slice")
        ts = b.node("Shape", [tar], p + "/Shape_1")
        hw = b.node("Slice", [ts, b.init(np.array([2], np.int64), p + ".s1"),
                              b.init(np.array([4], np.int64), p + ".e1")], p + "/Slice_1")
        sizes = b.node("Concat", [nc, hw], p + "/Concat", axis=0)
        return b.node("Resize", [src, "", "", sizes], p, mode="linear",
                      coordinate_transformation_mode="half_pixel",
                      nearest_mode="floor", cubic_coeff_a=-0.75)

    def cat(a, c, prefix):
        return b.node("Concat", [a, c], prefix + "/Concat_%d" % fresh("cat"), axis=1)

    def rsu(x, levels, cin, mid, cout, p):
        hxin = rebn(x, cin, cout, p + "/rebnconvin")
        hx = [rebn(hxin, cout, mid, p + "/rebnconv1")]
        for i in range(2, levels):
            hx.append(rebn(pool(hx[-1], p + "/pool%d" % (i - 1)), mid, mid, p + "/rebnconv%d" % i))
        top = rebn(hx[-1], mid, mid, p + "/rebnconv%d" % levels, dirate=2)
        d = rebn(cat(top, hx[-1], p), 2 * mid, mid, p + "/rebnconv%dd" % (levels - 1))
        for i in range(levels - 2, 0, -1):
            up = upsample_like(d, hx[i - 1], p)
            d = rebn(cat(up, hx[i - 1], p), 2 * mid, cout if i == 1 else mid, p + "/rebnconv%dd" % i)
        return b.node("Add", [d, hxin], p + "/Add")

    def rsu4f(x, cin, mid, cout, p):
        hxin = rebn(x, cin, cout, p + "/rebnconvin")
        hx1 = rebn(hxin, cout, mid, p + "/rebnconv1", 1)
        hx2 = rebn(hx1, mid, mid, p + "/rebnconv2", 2)
        hx3 = rebn(hx2, mid, mid, p + "/rebnconv3", 4)
        hx4 = rebn(hx3, mid, mid, p + "/rebnconv4", 8)
        d = rebn(cat(hx4, hx3, p), 2 * mid, mid, p + "/rebnconv3d", 4)
        d = rebn(cat(d, hx2, p), 2 * mid, mid, p + "/rebnconv2d", 2)
        d = rebn(cat(d, hx1, p), 2 * mid, cout, p + "/rebnconv1d", 1)
        return b.node("Add", [d, hxin], p + "/Add")

    small = variant == "u2netp"
    size = 320 if small else 1024
    if small:
        enc = [(7, 3, 16, 64), (6, 64, 16, 64), (5, 64, 16, 64), (4, 64, 16, 64),
               (0, 64, 16, 64), (0, 64, 16, 64)]
        dec = [(0, 128, 16, 64), (4, 128, 16, 64), (5, 128, 16, 64), (6, 128, 16, 64),
               (7, 128, 16, 64)]
    else:
        enc = [(7, 64, 32, 64), (6, 64, 32, 128), (5, 128, 64, 256), (4, 256, 128, 512),
               (0, 512, 256, 512), (0, 512, 256, 512)]
        dec = [(0, 1024, 256, 512), (4, 1024, 128, 256), (5, 512, 64, 128), (6, 256, 32, 64),
               (7, 128, 16, 64)]

    def stage(x, spec, p):
        levels, cin, mid, cout = spec
        return rsu4f(x, cin, mid, cout, p) if levels == 0 else rsu(x, levels, cin, mid, cout, p)

    x, hs = "input.1", []
    if not small:
        w = b.weight((64, 3, 3, 3), "conv_in.weight", scale=math.sqrt(2.0 / 27))
        x = b.node("Conv", [x, w, b.weight((64,), "conv_in.bias", scale=0.05)], "/conv_in/Conv",
                   kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], dilations=[1, 1],
                   group=1)
    for i, spec in enumerate(enc):
        if i:
            x = pool(x, "/pool%d%d" % (i, i + 1))
        x = stage(x, spec, "/stage%d" % (i + 1))
        hs.append(x)
    d = hs[-1]
    ds = []
    for j, spec in enumerate(dec):
        i = 5 - j  # stage5d .. stage1d
        up = upsample_like(d, hs[i - 1], "")
        d = stage(cat(up, hs[i - 1], ""), spec, "/stage%dd" % i)
        ds.append(d)
    # Side outputs, coarsest last: side1 from stage1d ... side6 from stage6.
    feats = ds[::-1] + [hs[-1]]
    sides = []
    for i, f in enumerate(feats):
        c = dec[-1 - i][3] if i < 5 else enc[-1][3]
        s = conv(f, c, 1, "/side%d" % (i + 1), relu=False, gain=SIDE_GAIN)
        if i or not small:
            s = upsample_like(s, sides[0] if i else "input.1", "")
        sides.append(s)
    if small:
        sides.insert(0, conv(b.node("Concat", sides, "/Concat", axis=1), 6, 1, "/outconv", k=1,
                             relu=False))
    outs = []
    for i, s in enumerate(sides):
        out = str(1959 + i)  # torch's numbered output names
        b.nodes.append(helper.make_node("Sigmoid", [s], [out], name="/Sigmoid_%d" % i))
        outs.append(helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1, size, size]))
    return helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info("input.1", TensorProto.FLOAT, [1, 3, size, size])],
        outs, b.inits)


def quantize_dynamic(graph, weight_type="QInt8"):
    """What ONNX Runtime's quantize_dynamic (per tensor; QInt8 weights
    symmetric with zero point 0, its default, or QUInt8 weights asymmetric
    over [min(w, 0), max(w, 0)] with their own zero point, what CNN exports
    use: ONNX Runtime's ConvInteger runs s8 weights about 8x slower than u8
    on the CPU, 2.9 s against 0.37 s for u2netp at 320x320) writes for every
    Conv and MatMul
    whose weight is an initializer: DynamicQuantizeLinear of the input (one
    per input tensor, named <input>_QuantizeLinear and shared by its
    consumers), ConvInteger / MatMulInteger with the s8 weight
    (<w>_quantized, <w>_scale, <w>_zero_point), Cast of the i32 result to
    float, Mul of the two scales (<node>_quant_scales_mul) and Mul of the
    cast result by it; a Conv's bias is added after a Reshape to
    [1, -1, 1, 1] (<out>_bias_add). The quantized weights replace the float
    ones; the nodes are emitted in the place of the node they replace."""
    inits = {i.name: i for i in graph.initializer}
    nodes, quantized = [], {}
    new_inits = []
    for n in graph.node:
        if n.op_type not in ("Conv", "MatMul") or n.input[1] not in inits:
            nodes.append(n)
            continue
        x, w = n.input[0], n.input[1]
        if x not in quantized:
            outs = [x + "_quantized", x + "_scale", x + "_zero_point"]
            nodes.append(helper.make_node("DynamicQuantizeLinear", [x], outs,
                                          name=x + "_QuantizeLinear"))
            quantized[x] = outs
        xq, xs, xz = quantized[x]
        wv = numpy_helper.to_array(inits[w])
        if weight_type == "QUInt8":
            lo, hi = min(float(wv.min()), 0.0), max(float(wv.max()), 0.0)
            scale = np.float32((hi - lo) / 255.0)
            zp = np.uint8(np.clip(np.round(-lo / scale), 0, 255))
            wq = np.clip(np.round(wv / scale) + zp, 0, 255).astype(np.uint8)
        else:
            scale = np.float32(np.abs(wv).max()) / np.float32(127.0)
            zp = np.int8(0)
            wq = np.clip(np.round(wv / scale), -127, 127).astype(np.int8)
        new_inits += [numpy_helper.from_array(wq, w + "_quantized"),
                      numpy_helper.from_array(np.array(scale, np.float32), w + "_scale"),
                      numpy_helper.from_array(np.array(zp), w + "_zero_point")]
        graph.initializer.remove(inits[w])
        out = n.output[0]
        yi = out + "_output_quantized"
        integer = "ConvInteger" if n.op_type == "Conv" else "MatMulInteger"
        nodes.append(helper.make_node(integer, [xq, w + "_quantized", xz, w + "_zero_point"],
                                      [yi], name=n.name + "_quant"))
        if n.op_type == "Conv":
            nodes[-1].attribute.extend(n.attribute)
        yc = yi + "_cast_output"
        nodes.append(helper.make_node("Cast", [yi], [yc], name=yi + "_cast", to=TensorProto.FLOAT))
        sm = n.name + "_quant_scales_mul:0"
        nodes.append(helper.make_node("Mul", [xs, w + "_scale"], [sm],
                                      name=n.name + "_quant_scales_mul"))
        has_bias = n.op_type == "Conv" and len(n.input) > 2 and n.input[2]
        scaled = out + "quant_scaled_output" if has_bias else out
        nodes.append(helper.make_node("Mul", [yc, sm], [scaled],
                                      name=n.name + "_quant_output_scale_mul"))
        if has_bias:
            shape = out + "_bias_reshape_shape"
            new_inits.append(numpy_helper.from_array(
                np.array([1, -1] + [1] * (wv.ndim - 2), np.int64), shape))
            nodes.append(helper.make_node("Reshape", [n.input[2], shape],
                                          [out + "_bias_reshape_output"]))
            nodes.append(helper.make_node("Add", [scaled, out + "_bias_reshape_output"], [out],
                                          name=out + "_bias_add"))
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(new_inits)
    return graph


def vad(name, opset):
    b = Builder(seed=5)
    hidden = 64

    def branch(frame, tag):
        """One sample rate's network, as a subgraph reading the outer inputs."""
        sub = Builder(seed=0)
        sub.rng = b.rng
        p = "/%s" % tag
        shape = b.init(np.array([0, -1, frame], dtype=np.int64), tag + ".frames")
        x = sub.node("Reshape", ["input", shape], p + "/Reshape")
        wf = b.weight((frame, hidden), tag + ".proj.weight", scale=0.1)
        bf = b.weight((hidden,), tag + ".proj.bias", scale=0.1)
        x = sub.node("Relu", [sub.node("Add", [sub.node("MatMul", [x, wf], p + "/proj/MatMul"), bf],
                                       p + "/proj/Add")], p + "/Relu")
        x = sub.node("Transpose", [x], p + "/Transpose", perm=[1, 0, 2])
        states = []
        for layer in range(2):
            lp = "%s.lstm%d" % (tag, layer)
            starts = b.init(np.array([layer], dtype=np.int64), lp + ".start")
            ends = b.init(np.array([layer + 1], dtype=np.int64), lp + ".end")
            axes = b.init(np.array([0], dtype=np.int64), lp + ".axes")
            h0 = sub.node("Slice", ["h", starts, ends, axes], "%s/lstm%d/Slice_h" % (p, layer))
            c0 = sub.node("Slice", ["c", starts, ends, axes], "%s/lstm%d/Slice_c" % (p, layer))
            w = b.weight((1, 4 * hidden, hidden), lp + ".weight_ih", scale=0.15)
            r = b.weight((1, 4 * hidden, hidden), lp + ".weight_hh", scale=0.15)
            bias = b.weight((1, 8 * hidden), lp + ".bias", scale=0.1)
            y, hn, cn = sub.node("LSTM", [x, w, r, bias, "", h0, c0], "%s/lstm%d/LSTM" % (p, layer),
                                 outputs=3, hidden_size=hidden)
            x = sub.node("Squeeze", [y, b.init(np.array([1], dtype=np.int64), lp + ".squeeze")],
                         "%s/lstm%d/Squeeze" % (p, layer))
            states.append((hn, cn))
        last = sub.node("Squeeze", [states[-1][0], b.init(np.array([0], dtype=np.int64), tag + ".last")],
                        p + "/Squeeze_last")
        wo = b.weight((1, hidden), tag + ".out.weight", scale=0.3)
        bo = b.weight((1,), tag + ".out.bias", scale=0.1)
        score = sub.node("Sigmoid", [sub.node("Gemm", [last, wo, bo], p + "/out/Gemm", transB=1)],
                         p + "/out/Sigmoid")
        hn = sub.node("Concat", [states[0][0], states[1][0]], p + "/Concat_h", axis=0)
        cn = sub.node("Concat", [states[0][1], states[1][1]], p + "/Concat_c", axis=0)
        outs = [helper.make_tensor_value_info(score, TensorProto.FLOAT, ["batch", 1]),
                helper.make_tensor_value_info(hn, TensorProto.FLOAT, [2, "batch", hidden]),
                helper.make_tensor_value_info(cn, TensorProto.FLOAT, [2, "batch", hidden])]
        return helper.make_graph(sub.nodes, tag, [], outs)

    k = b.const(16000, "/Constant")
    cond = b.node("Equal", ["sr", k], "/Equal")
    b.nodes.append(helper.make_node("If", [cond], ["output", "hn", "cn"], name="/If",
                                    then_branch=branch(128, "sr16k"),
                                    else_branch=branch(64, "sr8k")))
    return helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", "samples"]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, []),
         helper.make_tensor_value_info("h", TensorProto.FLOAT, [2, "batch", hidden]),
         helper.make_tensor_value_info("c", TensorProto.FLOAT, [2, "batch", hidden])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", 1]),
         helper.make_tensor_value_info("hn", TensorProto.FLOAT, [2, "batch", hidden]),
         helper.make_tensor_value_info("cn", TensorProto.FLOAT, [2, "batch", hidden])],
        b.inits)


# onnxconverter-common's float16.DEFAULT_OP_BLOCK_LIST: ops its converter
# leaves in fp32, with Casts around them.
FP16_OP_BLOCK_LIST = [
    "ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper", "DictVectorizer",
    "FeatureVectorizer", "Imputer", "LabelEncoder", "LinearClassifier", "LinearRegressor",
    "Normalizer", "OneHotEncoder", "RandomUniformLike", "SVMClassifier", "SVMRegressor",
    "Scaler", "TreeEnsembleClassifier", "TreeEnsembleRegressor", "ZipMap",
    "NonMaxSuppression", "TopK", "RoiAlign", "Resize", "Range", "CumSum", "Min", "Max",
    "Upsample"]


def convert_float16(model, keep_io_types=True):
    """What onnxconverter-common's float16.convert_float_to_float16(model,
    keep_io_types=...) writes (issue 53): shape inference first, then every
    float initializer (except those only blocked ops read), Constant-node
    tensor and value_info becomes FLOAT16, Casts to FLOAT become Casts to
    FLOAT16, and ops of FP16_OP_BLOCK_LIST stay fp32 with Casts around them.
    With keep_io_types the graph's float inputs and outputs stay FLOAT, read
    and written through Cast nodes graph_input_cast<i> / graph_output_cast<i>.
    Every Cast the converter adds is appended at the end of the node list, as
    it does: the result is not topologically sorted."""
    F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16
    model = onnx.shape_inference.infer_shapes(model)
    g = model.graph
    blocked = [n for n in g.node if n.op_type in FP16_OP_BLOCK_LIST]
    rename = {}
    added = []
    if keep_io_types:
        for i, vi in enumerate(g.input):
            if vi.type.tensor_type.elem_type != F32:
                continue
            out = "graph_input_cast_%d" % i
            rename[vi.name] = out
            info = g.value_info.add()
            info.CopyFrom(vi)
            info.name = out
            info.type.tensor_type.elem_type = F16
            added.append(helper.make_node("Cast", [vi.name], [out], to=F16,
                                          name="graph_input_cast%d" % i))
        for i, vi in enumerate(g.output):
            if vi.type.tensor_type.elem_type != F32:
                continue
            src = "graph_output_cast_%d" % i
            rename[vi.name] = src
            info = g.value_info.add()
            info.CopyFrom(vi)
            info.name = src
            info.type.tensor_type.elem_type = F16
            added.append(helper.make_node("Cast", [src], [vi.name], to=F32,
                                          name="graph_output_cast%d" % i))
    else:
        for vi in list(g.input) + list(g.output):
            if vi.type.tensor_type.elem_type == F32:
                vi.type.tensor_type.elem_type = F16
    for n in g.node:
        n.input[:] = [rename.get(x, x) for x in n.input]
        n.output[:] = [rename.get(x, x) for x in n.output]
    # Initializers read only by blocked ops stay fp32 (the converter's
    # InitializerTracker); the rest become fp16.
    readers = {}
    for n in g.node:
        for x in n.input:
            readers.setdefault(x, []).append(n)
    for t in g.initializer:
        users = readers.get(t.name, [])
        if t.data_type == F32 and not (users and all(u.op_type in FP16_OP_BLOCK_LIST for u in users)):
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name))
    for n in g.node:
        if n.op_type in FP16_OP_BLOCK_LIST:
            continue
        for a in n.attribute:
            if a.name == "value" and a.t.data_type == F32:
                a.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(a.t).astype(np.float16), a.t.name))
            if n.op_type == "Cast" and a.name == "to" and a.i == F32:
                a.i = F16
    fp16_values = set()
    for vi in g.value_info:
        if vi.type.tensor_type.elem_type == F32:
            vi.type.tensor_type.elem_type = F16
        if vi.type.tensor_type.elem_type == F16:
            fp16_values.add(vi.name)
    # Blocked ops: fp16 inputs cast to fp32 before, fp32 outputs cast back.
    for n in blocked:
        for i, x in enumerate(n.input):
            if x in fp16_values:
                out = "%s_input_cast_%d" % (n.name, i)
                info = g.value_info.add()
                info.CopyFrom(next(v for v in g.value_info if v.name == x))
                info.name = out
                info.type.tensor_type.elem_type = F32
                added.append(helper.make_node("Cast", [x], [out], to=F32,
                                              name="%s_input_cast%d" % (n.name, i)))
                n.input[i] = out
        for i, y in enumerate(n.output):
            if y in fp16_values:
                src = "%s_output_cast_%d" % (n.name, i)
                info = g.value_info.add()
                info.CopyFrom(next(v for v in g.value_info if v.name == y))
                info.name = src
                info.type.tensor_type.elem_type = F32
                added.append(helper.make_node("Cast", [src], [y], to=F16,
                                              name="%s_output_cast%d" % (n.name, i)))
                n.output[i] = src
    g.node.extend(added)
    return model


def all_models():
    names = []
    for fam in ENCODERS:
        for opset in (14, 17):
            for sparse in (False, True):
                names.append("%s-opset%d%s" % (fam, opset, "-sparse" if sparse else ""))
    # distilbert-opset14-sparse4x4 only on request (make bench): the corpus
    # checks the 4x4 path on the smaller encoder.
    # distilbert-opset14-dynq only on request too (make bench).
    return names + ["bert-mini-opset14-sparse4x4", "bert-mini-opset14-dynq", "mlp-opset14", "cnn-opset14", "ocrdet-opset14", "ppocrdet-opset14", "unet-opset14", "u2netp-opset17", "u2netp-opset17-dynq", "isnet-opset17", "isnet-opset17-dynq", "vad-opset16"]


def build(name):
    if name.endswith("-fp16"):
        # A CNN family's model through the fp16 converter (convert_float16).
        # Not checked: ONNX's checker rejects the converter's node order.
        base = name[:-len("-fp16")]
        family = base.split("-opset")[0]
        if family in ENCODERS or family in ON_REQUEST_ENCODERS or family in ("mlp", "vad") \
                or base.endswith(("-dynq", "-sparse", "-sparse4x4")):
            raise SystemExit("'%s': -fp16 applies to the convolutional families only" % name)
        model = convert_float16(build(base))
        model.graph.name = name
        return model
    parts = name.split("-")
    dynq = parts[-1] == "dynq"
    if dynq:
        parts = parts[:-1]
    sparse = {"sparse": True, "sparse4x4": "4x4"}.get(parts[-1], False)
    if sparse:
        parts = parts[:-1]
    opset = int(parts[-1][len("opset"):])
    family = "-".join(parts[:-1])
    if family in ENCODERS or family in ON_REQUEST_ENCODERS:
        cfg = ENCODERS.get(family) or ON_REQUEST_ENCODERS[family]
        graph = encoder(name, cfg, opset, sparse, dynq)
    elif family == "mlp":
        graph = mlp(name, opset)
    elif family == "cnn":
        graph = cnn(name, opset)
    elif family == "ocrdet":
        graph = ocrdet(name, opset)
    elif family == "ppocrdet":
        graph = ppocrdet(name, opset)
    elif family == "unet":
        graph = unet(name, opset)
    elif family in ("isnet", "u2netp"):
        graph = u2net(name, opset, family)
    elif family == "vad":
        graph = vad(name, opset)
    else:
        raise SystemExit("unknown model '%s' (known: %s)" % (name, ", ".join(all_models())))
    if dynq and family not in ENCODERS and family not in ON_REQUEST_ENCODERS:
        if family in ("mlp", "vad"):
            raise SystemExit("'%s': -dynq applies to the encoders and the CNNs" % name)
        graph = quantize_dynamic(graph, "QUInt8")
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="opscope-models", producer_version=GENERATOR_HASH)
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=False)
    return model


def up_to_date(path):
    if not os.path.exists(path):
        return False
    try:
        m = onnx.load(path, load_external_data=False)
    except Exception:
        return False
    return m.producer_version == GENERATOR_HASH


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(HERE, "cache"))
    parser.add_argument("--list", action="store_true", help="list the models")
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    if args.list:
        print("\n".join(all_models()))
        return 0
    os.makedirs(args.out, exist_ok=True)
    for name in args.models or all_models():
        path = os.path.join(args.out, name + ".onnx")
        if up_to_date(path):
            continue
        model = build(name)
        tmp = "%s.tmp.%d" % (path, os.getpid())  # concurrent generators
        onnx.save(model, tmp)
        os.replace(tmp, path)  # atomic: never a half-written model
        print("wrote %s (%.1f MB)" % (path, os.path.getsize(path) / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
