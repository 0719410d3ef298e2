"""Checks a model opscope-prune wrote against the model it read, with an
implementation of its own (numpy, python onnx):

  check_pruned.py IN OUT [--sparsity R] [--block RxC] [--ops REGEX]
                  [--per-layer FILE] [--same-bytes] [--sparsity-1x4]

For every prunable layer (MatMul/Gemm, constant 2-D FLOAT weight used once,
A not constant), in the [N, K] view of its weight and RxC blocks:
  * the ratio of zero blocks reached is within one block of the requested
    ratio (or stays what it was when the weight was already sparser);
  * the blocks zeroed are those of smallest L1 norm: none kept is smaller
    than one zeroed;
  * every other element keeps its bits (NaN and -0.0 included); zeroed
    elements are +0.0;
  * layers without a ratio are unchanged.
Everything else must be identical: other tensors bit for bit, and the whole
model (nodes, attributes, metadata, opsets, doc strings) field for field
once the pruned tensors' data is set aside; pruned tensors keep name,
dtype, dims and storage form (raw_data, float_data or external data, which
must then live in OUT.data next to OUT). With --same-bytes (a model without
external data, written by a deterministic protobuf serializer such as python
onnx's), OUT must also equal IN byte for byte outside the pruned weights'
data. Prints one line per layer; exits 1 on the first failure. With
--sparsity-1x4, also the pruned weights' ratio of zero 1x4 blocks (whole
blocks), overall and its per-layer range: what opscope-prune's note on
other block shapes reports.
"""
import argparse
import copy
import json
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def constants(graph):
    c = {t.name: t for t in graph.initializer}
    for n in graph.node:
        if n.op_type == "Constant" and len(n.output) == 1:
            for a in n.attribute:
                if a.name == "value" and a.HasField("t"):
                    c[n.output[0]] = a.t
    return c


def count_uses(graph, uses):
    for n in graph.node:
        for i in n.input:
            uses[i] = uses.get(i, 0) + 1
        for a in n.attribute:
            if a.HasField("g"):
                count_uses(a.g, uses)
            for g in a.graphs:
                count_uses(g, uses)
    for o in graph.output:
        uses[o.name] = uses.get(o.name, 0) + 1


def layers(model):
    g = model.graph
    c = constants(g)
    uses = {}
    count_uses(g, uses)
    out = []
    for n in g.node:
        if n.op_type not in ("MatMul", "Gemm") or len(n.input) < 2:
            continue
        if n.input[1] not in c or n.input[0] in c:
            continue
        t = c[n.input[1]]
        if t.data_type != TensorProto.FLOAT or len(t.dims) != 2 or uses[n.input[1]] > 1:
            continue
        trans = any(a.name == "transB" and a.i for a in n.attribute) if n.op_type == "Gemm" else False
        out.append((n.name or n.output[0], n.input[1], trans))
    return out


def nk_view(t, trans):
    w = numpy_helper.to_array(t)
    return w if trans else w.T


def blocks_of(w, r, c):
    n, k = w.shape
    return w.reshape(n // r, r, k // c, c).transpose(0, 2, 1, 3).reshape(n // r, k // c, r * c)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("inp")
    p.add_argument("out")
    p.add_argument("--sparsity", type=float)
    p.add_argument("--block", default="1x4")
    p.add_argument("--ops")
    p.add_argument("--per-layer")
    p.add_argument("--same-bytes", action="store_true")
    p.add_argument("--sparsity-1x4", action="store_true")
    a = p.parse_args()
    r, c = (int(v) for v in a.block.split("x"))
    per = {}
    if a.per_layer:
        for k, v in json.load(open(a.per_layer))["layers"].items():
            per[k] = v["sparsity"] if isinstance(v, dict) else v

    raw_in = onnx.load(a.inp, load_external_data=False)
    raw_out = onnx.load(a.out, load_external_data=False)
    m_in, m_out = onnx.load(a.inp), onnx.load(a.out)
    ci, co = constants(m_in.graph), constants(m_out.graph)
    ri, ro = constants(raw_in.graph), constants(raw_out.graph)
    pruned = set()
    zero14, blocks14 = [], []
    for name, weight, trans in layers(m_in):
        if a.ops and not (re.search(a.ops, name) or re.search(a.ops, weight)):
            continue
        target = per.get(name, per.get(weight, a.sparsity))
        wi, wo = nk_view(ci[weight], trans), nk_view(co[weight], trans)
        ti, to = ri[weight], ro[weight]
        for field in ("name", "data_type", "dims", "data_location"):
            if getattr(ti, field) != getattr(to, field):
                fail("%s: %s changed" % (weight, field))
        if ti.HasField("raw_data") != to.HasField("raw_data") or \
                len(ti.float_data) != len(to.float_data):
            fail("%s: storage form changed" % weight)
        if ti.data_location == TensorProto.EXTERNAL:
            loc = dict((e.key, e.value) for e in to.external_data)["location"]
            if loc != os.path.basename(a.out) + ".data":
                fail("%s: external data in '%s', not next to OUT" % (weight, loc))
        bi, bo = wi.view(np.uint32), wo.view(np.uint32)
        if target is None:
            if not np.array_equal(bi, bo):
                fail("%s: changed without a ratio" % name)
            print("layer %s unchanged" % name)
            continue
        pruned.add(weight)
        blk_i, blk_o = blocks_of(wi, r, c), blocks_of(wo, r, c)
        nblocks = blk_i.shape[0] * blk_i.shape[1]
        zero_i = (blk_i == 0).all(axis=2)
        zero_o = (blk_o == 0).all(axis=2)
        before, reached = zero_i.mean(), zero_o.mean()
        if before > target:
            if reached != before:
                fail("%s: already at %.4f, now %.4f" % (name, before, reached))
        elif abs(reached - target) > 1.0 / nblocks + 1e-12:
            fail("%s: reached %.4f for %.4f, more than one block (1/%d) off" %
                 (name, reached, target, nblocks))
        newly = zero_o & ~zero_i
        bits_i, bits_o = blocks_of(bi, r, c), blocks_of(bo, r, c)
        if not np.array_equal(bits_i[~newly], bits_o[~newly]):
            fail("%s: elements outside the zeroed blocks changed" % name)
        if (bits_o[newly] != 0).any():
            fail("%s: zeroed elements are not +0.0" % name)
        l1 = np.abs(blk_i.astype(np.float64)).sum(axis=2)
        l1 = np.where(np.isnan(l1), np.inf, l1)
        kept = ~zero_o
        if newly.any() and kept.any() and l1[newly].max() > l1[kept].min():
            fail("%s: zeroed a block of L1 %g but kept one of %g" %
                 (name, l1[newly].max(), l1[kept].min()))
        print("layer %s blocks %d target %.4f reached %.4f ok" % (name, nblocks, target, reached))
        k4 = wo.shape[1] // 4 * 4
        if k4:
            z = (blocks_of(wo[:, :k4], 1, 4) == 0).all(axis=2)
            zero14.append(int(z.sum()))
            blocks14.append(z.size)

    if a.sparsity_1x4 and blocks14:
        each = [z / b for z, b in zip(zero14, blocks14)]
        lo, hi = "%.4f" % min(each), "%.4f" % max(each)
        print("1x4 block sparsity %.4f (%s per layer)" %
              (sum(zero14) / sum(blocks14), lo if lo == hi else lo + "-" + hi))

    if a.same_bytes:
        src, dst = open(a.inp, "rb").read(), open(a.out, "rb").read()
        if len(src) != len(dst):
            fail("OUT has %d bytes, IN %d" % (len(dst), len(src)))
        expect = bytearray(src)
        for w in pruned:
            key = numpy_helper.to_array(ci[w]).astype("<f4").tobytes()
            i = src.find(key[:65536])
            if i < 0 or src.find(key[:65536], i + 1) >= 0 or src[i:i + len(key)] != key:
                fail("%s: cannot locate its data in IN" % w)
            expect[i:i + len(key)] = numpy_helper.to_array(co[w]).astype("<f4").tobytes()
        if bytes(expect) != dst:
            fail("OUT differs from IN outside the pruned weights' bytes")
        print("same bytes outside the pruned weights")

    # Everything else, field for field: set the pruned tensors' data aside.
    for m in (m_in, m_out):
        for w, t in constants(m.graph).items():
            if w in pruned:
                t.ClearField("raw_data")
                t.ClearField("float_data")
    for w in ci:
        if w not in pruned and ci[w].SerializeToString() != co[w].SerializeToString():
            fail("tensor %s changed" % w)
    if m_in != m_out:
        fail("the model changed outside the pruned weights")
    print("identical: everything but %d pruned weights" % len(pruned))


main()
