"""Rewrites of whole corpus models as users' tools write them
(models/generate.py): ONNX Runtime's quantize_dynamic and
onnxconverter-common's fp16 converter."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


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
