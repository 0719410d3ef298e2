//===- ONNXSignal.cpp - DFT and STFT --------------------------------------===//
//
// Part of opscope. DFT (opset 17, and 20 with the axis as an input) and STFT
// (opset 17) as products with a constant DFT matrix: with static shapes the
// transform's length is known, so each output bin is a dot product of the
// signal with one row of cosines and sines, and the whole transform one
// osc.matmul (the tier's GEMM) over the signal's interleaved real and
// imaginary parts. That is O(n^2) per frame where an FFT is O(n log n):
// the frame lengths of audio front ends (400-2048 points) keep the matrix
// within a few MiB. STFT cuts its frames with one osc.gather of constant
// indices and applies the window with osc.binary mul.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

#include <cmath>
#include <numeric>
#include <vector>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

/// Largest DFT matrix (input values x output values) built at import.
static constexpr int64_t kDftMatrixBudget = int64_t(1) << 24;

/// The DFT of `x` ([..., n, c], c = 1 real or 2 complex) along its
/// second-to-last axis as [..., m, 2]: `length` points (the signal cut or
/// padded with zeros to it), m = length / 2 + 1 bins when `onesided`, else
/// length; `inverse` conjugates the kernel and divides by length. Null
/// after an error naming the node.
static Value dftAlongRows(NodeContext &c, Value x, int64_t length,
                          bool onesided, bool inverse) {
  auto xt = typeOf(x);
  int64_t rank = xt.getRank(), n = xt.getDimSize(rank - 2),
          ch = xt.getDimSize(rank - 1);
  int64_t m = onesided ? length / 2 + 1 : length;
  if (n * ch * m * 2 > kDftMatrixBudget) {
    c.error() << "a DFT of " << n << " points into " << m
              << " bins needs a matrix over the import budget ("
              << kDftMatrixBudget << " values)";
    return {};
  }
  // W[(k, a), (j, b)]: input point k's part a (0 real, 1 imaginary) into
  // bin j's part b; theta = 2 pi j k / length, sigma = +1 inverse, -1 not.
  double sigma = inverse ? 1 : -1, scale = inverse ? 1.0 / length : 1.0;
  constexpr double kPi = 3.14159265358979323846;
  std::vector<double> w(n * ch * m * 2, 0.0);
  for (int64_t k = 0; k < std::min(n, length); ++k)
    for (int64_t j = 0; j < m; ++j) {
      double theta = 2 * kPi * double((j * k) % length) / double(length);
      double cs = std::cos(theta) * scale, sn = std::sin(theta) * scale;
      double *row = &w[(k * ch) * m * 2 + j * 2];
      row[0] = cs;           // real into real
      row[1] = sigma * sn;   // real into imaginary
      if (ch == 2) {
        row[m * 2] = -sigma * sn; // imaginary into real
        row[m * 2 + 1] = cs;      // imaginary into imaginary
      }
    }
  Type elem = elemOf(x);
  auto wType = tensorOf({n * ch, m * 2}, elem);
  Value matrix;
  if (elem.isF64()) {
    matrix = c.create<ConstantOp>(wType,
                                  DenseElementsAttr::get(wType, ArrayRef(w)));
  } else {
    std::vector<float> wf(w.begin(), w.end());
    matrix = c.create<ConstantOp>(wType,
                                  DenseElementsAttr::get(wType, ArrayRef(wf)));
  }
  SmallVector<int64_t> lead(xt.getShape().drop_back(2));
  int64_t batch = std::accumulate(lead.begin(), lead.end(), int64_t(1),
                                  std::multiplies<int64_t>());
  Value flat = reshape(c, x, {batch, n * ch});
  Value y = c.create<MatMulOp>(tensorOf({batch, m * 2}, elem), flat, matrix,
                               UnitAttr(), UnitAttr(),
                               c.b.getF32FloatAttr(1.0f));
  lead.append({m, 2});
  return reshape(c, y, lead);
}

/// Moves axis `from` of `x` to position `to`, the others keeping their order.
static Value moveAxis(NodeContext &c, Value x, int64_t from, int64_t to) {
  if (from == to)
    return x;
  auto xt = typeOf(x);
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < xt.getRank(); ++i)
    if (i != from)
      perm.push_back(i);
  perm.insert(perm.begin() + to, from);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(xt.getDimSize(p));
  return c.create<TransposeOp>(tensorOf(shape, elemOf(x)), x,
                               i64Array(c, perm));
}

/// The signal's last axis holds 1 (real) or 2 (complex) values.
static LogicalResult checkSignal(NodeContext &c, Value x, int64_t minRank) {
  if (failed(requireFloat(c, x, "input")))
    return failure();
  auto xt = typeOf(x);
  if (xt.getRank() < minRank ||
      (xt.getShape().back() != 1 && xt.getShape().back() != 2)) {
    c.error() << "input " << formatShape(xt.getShape()) << " must have rank "
              << minRank << " or more and a last axis of 1 (real) or 2 "
              << "(complex) values";
    return failure();
  }
  return success();
}

void opscope::onnx_import::addSignalConverters(
    llvm::StringMap<Converter> &m) {
  m["DFT"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(checkSignal(c, x, 2)))
      return failure();
    auto xt = typeOf(x);
    int64_t rank = xt.getRank();
    // The axis: an attribute (default 1) until opset 20, then input 2
    // (default -2, negative counting from the back).
    int64_t axis = c.opset >= 20 ? -2 : c.intAttr("axis", 1);
    if (c.opset >= 20 && c.hasInput(2)) {
      auto a = constIntScalar(c, 2, "axis");
      if (failed(a))
        return failure();
      axis = *a;
    }
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis > rank - 2) {
      c.error() << "axis " << axis << " is out of range for input "
                << formatShape(xt.getShape())
                << " (its last axis holds the real and imaginary parts)";
      return failure();
    }
    int64_t n = xt.getDimSize(axis), length = n;
    if (c.hasInput(1)) {
      auto l = constIntScalar(c, 1, "dft_length");
      if (failed(l))
        return failure();
      length = *l;
    }
    bool inverse = c.intAttr("inverse", 0), onesided = c.intAttr("onesided", 0);
    if (length < 1) {
      c.error() << "dft_length " << length << " must be positive";
      return failure();
    }
    if (onesided && (inverse || xt.getShape().back() == 2)) {
      c.error() << "onesided applies to a forward DFT of a real signal";
      return failure();
    }
    Value v = moveAxis(c, x, axis, rank - 2);
    v = dftAlongRows(c, v, length, onesided, inverse);
    if (!v)
      return failure();
    out.push_back(moveAxis(c, v, rank - 2, axis));
    return success();
  };
  m["STFT"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value signal = c.input(0);
    if (failed(checkSignal(c, signal, 3)))
      return failure();
    auto st = typeOf(signal);
    if (st.getRank() != 3) {
      c.error() << "signal " << formatShape(st.getShape())
                << " must be [batch, length, 1 or 2]";
      return failure();
    }
    auto step = constIntScalar(c, 1, "frame_step");
    if (failed(step))
      return failure();
    Value window = c.input(2);
    int64_t frameLength = -1;
    if (c.hasInput(3)) {
      auto l = constIntScalar(c, 3, "frame_length");
      if (failed(l))
        return failure();
      frameLength = *l;
    }
    if (window) {
      auto wt = typeOf(window);
      if (wt.getRank() != 1 || wt.getElementType() != st.getElementType() ||
          (frameLength >= 0 && wt.getDimSize(0) != frameLength)) {
        c.error() << "window " << formatShape(wt.getShape())
                  << " must be one axis of frame_length values of the "
                     "signal's type";
        return failure();
      }
      frameLength = wt.getDimSize(0);
    }
    int64_t length = st.getDimSize(1);
    if (frameLength < 1 || frameLength > length || *step < 1) {
      c.error() << "needs frame_length (or a window) in 1.." << length
                << " and a positive frame_step (got " << frameLength << " and "
                << *step << ")";
      return failure();
    }
    bool onesided = c.intAttr("onesided", 1);
    if (onesided && st.getDimSize(2) == 2) {
      c.error() << "onesided applies to a real signal";
      return failure();
    }
    // Frame f is samples f * step .. f * step + frameLength - 1.
    int64_t frames = (length - frameLength) / *step + 1;
    std::vector<int64_t> index(frames * frameLength);
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t k = 0; k < frameLength; ++k)
        index[f * frameLength + k] = f * *step + k;
    auto it = tensorOf({frames, frameLength}, c.b.getI64Type());
    Value indices =
        c.create<ConstantOp>(it, DenseElementsAttr::get(it, ArrayRef(index)));
    int64_t batch = st.getDimSize(0), ch = st.getDimSize(2);
    Value framed = c.create<GatherOp>(
        tensorOf({batch, frames, frameLength, ch}, st.getElementType()),
        signal, indices, c.b.getI64IntegerAttr(1));
    if (window) {
      auto product = binary(c, BinaryKind::mul, framed,
                            reshape(c, window, {frameLength, 1}));
      if (failed(product))
        return failure();
      framed = *product;
    }
    Value y = dftAlongRows(c, framed, frameLength, onesided, false);
    if (!y)
      return failure();
    out.push_back(y);
    return success();
  };
}
