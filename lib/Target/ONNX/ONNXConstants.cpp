//===- ONNXConstants.cpp - ops folded to constants at import -------------===//
//
// Part of opscope. Converters for the ops that shape sub-graphs are made of
// (Shape, Size, ConstantOfShape, Range) and for the signal-processing
// tables (the window ops, MelWeightMatrix): with static shapes their inputs
// are constants, and they fold to constants at import.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <limits>
#include <type_traits>
#include <vector>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;

/// Largest Range (in elements) folded into a constant at import.
static constexpr int64_t kRangeFoldBudget = int64_t(1) << 20;
using llvm::SmallVectorImpl;

/// A constant of `shape` whose element i (row-major) is value(i), converted
/// to `elem` (integers saturate at the type's edges, no UB). Null after an
/// error naming the node when `elem` is not a type a fold writes.
static Value foldedConstant(NodeContext &c, ArrayRef<int64_t> shape, Type elem,
                            llvm::function_ref<double(int64_t)> value) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<char> raw;
  auto fill = [&](auto zero) {
    using T = decltype(zero);
    raw.resize(n * sizeof(T));
    for (int64_t i = 0; i < n; ++i) {
      double x = value(i);
      T v;
      if constexpr (std::is_integral_v<T>) {
        using L = std::numeric_limits<T>;
        v = x >= static_cast<double>(L::max())   ? L::max()
            : x <= static_cast<double>(L::min()) ? L::min()
                                                 : static_cast<T>(x);
      } else {
        v = static_cast<T>(x);
      }
      std::memcpy(raw.data() + i * sizeof(T), &v, sizeof(T));
    }
  };
  if (elem.isF32())
    fill(float());
  else if (elem.isF64())
    fill(double());
  else if (elem.isUnsignedInteger(64))
    fill(uint64_t());
  else if (elem.isUnsignedInteger(32))
    fill(uint32_t());
  else if (elem.isUnsignedInteger(16))
    fill(uint16_t());
  else if (elem.isUnsignedInteger(8))
    fill(uint8_t());
  else if (elem.isInteger(64))
    fill(int64_t());
  else if (elem.isInteger(32))
    fill(int32_t());
  else if (elem.isInteger(16))
    fill(int16_t());
  else if (elem.isInteger(8))
    fill(int8_t());
  else {
    c.error() << "a constant of " << elem << " is not supported";
    return {};
  }
  return c.b.create<ConstantOp>(
      c.loc, DenseElementsAttr::getFromRawBuffer(tensorOf(shape, elem), raw));
}

/// The element type output_datatype names (FLOAT when absent); null after
/// an error naming the node.
static Type outputDatatype(NodeContext &c) {
  int64_t dt = c.intAttr("output_datatype", onnx::TensorProto::FLOAT);
  Type elem = elementTypeFor(static_cast<int32_t>(dt), c.b.getContext());
  if (!elem || elem.isInteger(1))
    c.error() << "output_datatype " << onnxTypeName(static_cast<int32_t>(dt))
              << " is not supported";
  return elem && !elem.isInteger(1) ? elem : Type();
}

/// HannWindow, HammingWindow, BlackmanWindow (opset 17): a0 - a1 cos(2 pi
/// k / N) + a2 cos(4 pi k / N) for k < size, N = size when periodic (the
/// default), size - 1 when symmetric. Folded: size is a constant.
static Converter windowConverter(double a0, double a1, double a2) {
  return [=](NodeContext &c, SmallVectorImpl<Value> &out) -> LogicalResult {
    std::optional<double> size = constScalar(c, 0, "size");
    if (!size)
      return failure();
    if (!(*size >= 0 && *size <= static_cast<double>(kRangeFoldBudget))) {
      c.error() << "size " << *size << " is outside 0.." << kRangeFoldBudget;
      return failure();
    }
    Type elem = outputDatatype(c);
    if (!elem)
      return failure();
    int64_t n = static_cast<int64_t>(*size);
    double denom = c.intAttr("periodic", 1) ? n : n - 1;
    constexpr double kPi = 3.14159265358979323846;
    Value w = foldedConstant(c, {n}, elem, [&](int64_t k) {
      double x = denom > 0 ? 2 * kPi * k / denom : 0;
      return a0 - a1 * std::cos(x) + a2 * std::cos(2 * x);
    });
    if (!w)
      return failure();
    out.push_back(w);
    return success();
  };
}

void opscope::onnx_import::addConstantConverters(
    llvm::StringMap<Converter> &m) {
  m["HannWindow"] = windowConverter(0.5, 0.5, 0);
  m["HammingWindow"] = windowConverter(25.0 / 46, 21.0 / 46, 0);
  m["BlackmanWindow"] = windowConverter(0.42, 0.5, 0.08);
  // MelWeightMatrix (opset 17): [dft_length / 2 + 1, num_mel_bins]
  // triangular filters between the mel-spaced points of lower..upper hertz,
  // as ONNX's reference computes them (the points floored to DFT bins).
  m["MelWeightMatrix"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto bins = constScalar(c, 0, "num_mel_bins"),
         dft = constScalar(c, 1, "dft_length"),
         rate = constScalar(c, 2, "sample_rate"),
         lower = constScalar(c, 3, "lower_edge_hertz"),
         upper = constScalar(c, 4, "upper_edge_hertz");
    if (!bins || !dft || !rate || !lower || !upper)
      return failure();
    if (!(*bins >= 1 && *dft >= 1 && *rate > 0 && *bins <= 65536 &&
          *dft <= 1 << 20 && *lower >= 0 && *upper > *lower)) {
      c.error() << "needs num_mel_bins in 1..65536, dft_length in 1.." << (1 << 20)
                << ", sample_rate > 0 and 0 <= lower_edge_hertz < "
                   "upper_edge_hertz";
      return failure();
    }
    Type elem = outputDatatype(c);
    if (!elem)
      return failure();
    int64_t mels = static_cast<int64_t>(*bins);
    int64_t length = static_cast<int64_t>(*dft);
    int64_t spectrum = length / 2 + 1;
    auto toMel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
    double lowMel = toMel(*lower), step = (toMel(*upper) - lowMel) / (mels + 2);
    std::vector<int64_t> point(mels + 2);
    for (int64_t i = 0; i < mels + 2; ++i) {
      double hz = 700 * (std::pow(10.0, (i * step + lowMel) / 2595) - 1);
      point[i] = static_cast<int64_t>(std::floor((length + 1) * hz / *rate));
    }
    std::vector<double> weights(spectrum * mels, 0.0);
    auto set = [&](int64_t bin, int64_t mel, double w) {
      if (bin >= 0 && bin < spectrum)
        weights[bin * mels + mel] = w;
    };
    for (int64_t i = 0; i < mels; ++i) {
      int64_t left = point[i], center = point[i + 1], right = point[i + 2];
      if (center == left)
        set(center, i, 1);
      else
        for (int64_t j = left; j <= center; ++j)
          set(j, i, double(j - left) / double(center - left));
      for (int64_t j = center; j < right; ++j)
        set(j, i, double(right - j) / double(right - center));
    }
    Value w = foldedConstant(c, {spectrum, mels}, elem,
                             [&](int64_t i) { return weights[i]; });
    if (!w)
      return failure();
    out.push_back(w);
    return success();
  };
  m["Shape"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto shape = typeOf(c.input(0)).getShape();
    int64_t rank = shape.size();
    int64_t start = c.intAttr("start", 0), end = c.intAttr("end", rank);
    if (start < 0)
      start += rank;
    if (end < 0)
      end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    SmallVector<int64_t> dims(shape.begin() + start, shape.begin() + end);
    out.push_back(c.b.create<ConstantOp>(
        c.loc, DenseElementsAttr::get(
                   tensorOf({static_cast<int64_t>(dims.size())},
                            c.b.getI64Type()),
                   ArrayRef<int64_t>(dims))));
    return success();
  };
  m["Size"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(splat(c, {}, c.b.getI64Type(),
                        typeOf(c.input(0)).getNumElements()));
    return success();
  };
  m["ConstantOfShape"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto shape = c.requireConstInts(0, "shape");
    if (failed(shape))
      return failure();
    if (llvm::any_of(*shape, [](int64_t d) { return d < 0; })) {
      c.error() << "shape " << formatShape(*shape)
                << " has a negative dimension";
      return failure();
    }
    Type elem = c.b.getF32Type();
    Attribute value = c.b.getF32FloatAttr(0.0f);
    if (const onnx::AttributeProto *a = c.attr("value")) {
      const onnx::TensorProto &t = a->t();
      elem = elementTypeFor(t.data_type(), c.b.getContext());
      if (!elem) {
        c.error() << "value of type " << onnxTypeName(t.data_type())
                  << " is not supported";
        return failure();
      }
      std::string err;
      ElementsAttr decoded =
          decodeTensor(t, c.modelDirectory(), c.b.getContext(), err);
      if (!decoded || decoded.getNumElements() != 1) {
        c.error() << "value must be a one-element tensor"
                  << (err.empty() ? "" : ": ") << err;
        return failure();
      }
      value = decoded.getValues<Attribute>()[0];
    }
    // A splat stays a splat (one element, whatever the shape): the
    // importer's size check and the memory planner decide what it costs.
    out.push_back(c.b.create<ConstantOp>(
        c.loc, DenseElementsAttr::get(tensorOf(*shape, elem), value)));
    return success();
  };
  m["Range"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Type elem = elemOf(c.input(0));
    auto start = c.constFloats(0), limit = c.constFloats(1),
         delta = c.constFloats(2);
    if (!start || !limit || !delta || start->size() != 1 ||
        limit->size() != 1 || delta->size() != 1 || (*delta)[0] == 0.0) {
      c.error() << "start, limit and delta must be constant scalars (delta "
                   "non-zero)";
      return failure();
    }
    // Folded into a constant at import, within a budget: opscope has no
    // run-time Range kernel, so a longer range is refused rather than
    // materialised element by element (2^24 took 26 s and 2.3 GB).
    double count = std::ceil(((*limit)[0] - (*start)[0]) / (*delta)[0]);
    if (!(count <= static_cast<double>(kRangeFoldBudget))) {
      auto diag = c.error() << "Range of ";
      if (std::isfinite(count) && std::fabs(count) < 1e18)
        diag << static_cast<int64_t>(count);
      else
        diag << count;
      diag << " elements is larger than the fold budget (" << kRangeFoldBudget
           << " elements), and opscope has no run-time Range kernel";
      return failure();
    }
    int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
    double first = (*start)[0], step = (*delta)[0];
    Value folded = foldedConstant(c, {n}, elem,
                                  [&](int64_t i) { return first + i * step; });
    if (!folded)
      return failure();
    out.push_back(folded);
    return success();
  };
}
