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
  yolov3tiny-opset13 (built only when named: make bench) YOLOv3-tiny as
      torch.onnx exports the Darknet port: Conv (BatchNorm folded) +
      LeakyRelu(0.1), MaxPool, the ZeroPad + stride-1 MaxPool pair, nearest
      Resize and Concat to the second head, each head reshaped and
      transposed to [1, 3, S, S, 85]. 8.9 M parameters, input "images"
      1x3x416x416.
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
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from corpus_builder import Builder, scope  # noqa: E402
from corpus_transforms import convert_float16, quantize_dynamic  # noqa: E402
from corpus_vision import cnn, ocrdet, ppocrdet, u2net, unet, yolov3tiny  # noqa: E402

# A model is rebuilt when any of the generator's files changes.
_hash = hashlib.sha256()
for _name in ("generate.py", "corpus_builder.py", "corpus_vision.py", "corpus_transforms.py"):
    with open(os.path.join(HERE, _name), "rb") as _f:
        _hash.update(_f.read())
GENERATOR_HASH = _hash.hexdigest()[:16]

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
    elif family == "yolov3tiny":
        graph = yolov3tiny(name, opset)
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


def _stamp(path):
    """What the sidecar PATH.stamp records for a model this script wrote:
    the generator's hash and the file's size and modification time. Reading
    it instead of the model keeps a call over the whole corpus (1.7 GB,
    which the tests make several times) from parsing every model."""
    st = os.stat(path)
    return "%s %d %d\n" % (GENERATOR_HASH, st.st_size, st.st_mtime_ns)


def _write_stamp(path):
    tmp = "%s.stamp.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(_stamp(path))
    os.replace(tmp, path + ".stamp")


def up_to_date(path):
    if not os.path.exists(path):
        return False
    try:
        with open(path + ".stamp") as f:
            if f.read() == _stamp(path):
                return True
    except OSError:
        pass
    try:
        m = onnx.load(path, load_external_data=False)
    except Exception:
        return False
    if m.producer_version != GENERATOR_HASH:
        return False
    _write_stamp(path)
    return True


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
        _write_stamp(path)
        print("wrote %s (%.1f MB)" % (path, os.path.getsize(path) / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
