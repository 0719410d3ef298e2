"""The corpus's convolutional networks (models/generate.py): a small CNN, two
text detectors, a U-Net and the U2-Net / IS-Net salient-segmentation
networks, each as its exporter writes it."""

import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from corpus_builder import Builder, scope


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


def yolov3tiny(name, opset):
    """YOLOv3-tiny as torch.onnx exports Ultralytics' Darknet port in eval
    mode: every Conv carries its folded BatchNorm as a bias and is followed
    by LeakyRelu(0.1); MaxPool 2x2 stride 2 down to /32, then the
    ZeroPad2d((0, 1, 0, 1)) + MaxPool 2x2 stride 1 pair (Pad with its pads
    as a Constant); the 13x13 head and, through a 1x1 convolution, nearest
    Resize by scales 2 and Concat with the /16 route, the 26x26 head; each
    head's 1x1 convolution to 255 channels (linear) is reshaped to
    [1, 3, 85, S, S] and transposed to [1, 3, S, S, 85]. 8.9 M parameters,
    input "images" [1, 3, 416, 416]."""
    b = Builder(seed=37)
    count = [0]

    def conv(x, cin, cout, k, act=True):
        i = count[0]
        count[0] += 1
        p = "model.%d" % i
        w = b.weight((cout, cin, k, k), p + ".conv.weight",
                     scale=math.sqrt(2.0 / (cin * k * k)))
        bias = b.weight((cout,), p + ".conv.bias", scale=0.1)
        y = b.node("Conv", [x, w, bias], "/%s/conv/Conv" % p, kernel_shape=[k, k],
                   strides=[1, 1], pads=[k // 2] * 4, dilations=[1, 1], group=1)
        if act:
            y = b.node("LeakyRelu", [y], "/%s/act/LeakyRelu" % p, alpha=0.1)
        return y

    def pool(x, n):
        return b.node("MaxPool", [x], "/model.pool%d/MaxPool" % n, kernel_shape=[2, 2],
                      strides=[2, 2], pads=[0, 0, 0, 0], ceil_mode=0)

    def head(x, cin, n, size):
        y = conv(x, cin, 255, 1, act=False)
        shape = b.const([1, 3, 85, size, size], "/model.detect/Constant_%d" % n)
        y = b.node("Reshape", [y, shape], "/model.detect/Reshape_%d" % n)
        return b.node("Transpose", [y], "/model.detect/Transpose_%d" % n, perm=[0, 1, 3, 4, 2])

    x = "images"
    cin = 3
    for n, cout in enumerate([16, 32, 64, 128]):
        x = pool(conv(x, cin, cout, 3), n)
        cin = cout
    route16 = conv(x, 128, 256, 3)            # 26x26
    x = conv(pool(route16, 4), 256, 512, 3)  # 13x13
    pads = b.const([0, 0, 0, 0, 0, 0, 1, 1], "/model.pad/Constant")
    x = b.node("Pad", [x, pads], "/model.pad/Pad", mode="constant")
    x = b.node("MaxPool", [x], "/model.pool5/MaxPool", kernel_shape=[2, 2],
               strides=[1, 1], pads=[0, 0, 0, 0], ceil_mode=0)
    x = conv(x, 512, 1024, 3)
    route13 = conv(x, 1024, 256, 1)
    out13 = head(conv(route13, 256, 512, 3), 512, 0, 13)
    y = conv(route13, 256, 128, 1)
    roi = b.const(np.zeros(0, np.float32), "/model.upsample/Constant", dtype=np.float32)
    scales = b.const([1.0, 1.0, 2.0, 2.0], "/model.upsample/Constant_1", dtype=np.float32)
    y = b.node("Resize", [y, roi, scales], "/model.upsample/Resize",
               mode="nearest", coordinate_transformation_mode="asymmetric",
               nearest_mode="floor")
    y = b.node("Concat", [y, route16], "/model.route/Concat", axis=1)
    out26 = head(conv(y, 384, 256, 3), 256, 1, 26)
    b.nodes[-1].output[0] = "output26"
    # The 13x13 head's Transpose names its output too.
    for nd in b.nodes:
        if nd.name == "/model.detect/Transpose_0":
            nd.output[0] = "output13"
    return helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 416, 416])],
        [helper.make_tensor_value_info("output13", TensorProto.FLOAT, [1, 3, 13, 13, 85]),
         helper.make_tensor_value_info("output26", TensorProto.FLOAT, [1, 3, 26, 26, 85])],
        b.inits)
