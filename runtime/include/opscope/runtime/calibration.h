//===- calibration.h - int8 calibration statistics -------------*- C++ -*-===//
//
// Part of opscope (header-only: `opscope-run --calibrate` writes the
// statistics, the compiler's osc-precision reads them; the compiler does
// not link the runtime). A calibration is a profile of tensor statistics:
// for the input of every inner product of an fp32 model, the minimum and
// maximum over the calibration inputs and a histogram between them. The
// quantization parameters (u8 scale and zero point) are chosen from it at
// compile time, by min-max or by a percentile.
//
// File (JSON, docs/precision.md):
//   {"schema": "opscope-calibration", "version": 1, "model": "...",
//    "source": "DIR or random ...", "sets": 8, "bins": 2048,
//    "tensors": [{"op": "/l0/q/MatMul", "source_nodes": ["/l0/q/MatMul", ...],
//                 "tensor": "input", "count": 98304, "min": -3.1,
//                 "max": 4.2, "histogram": [...]}]}
// The histogram has `bins` equal bins over [min, max].
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_CALIBRATION_H
#define OPSCOPE_RUNTIME_CALIBRATION_H

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace opscope::calibration {

inline constexpr const char *kSchema = "opscope-calibration";
inline constexpr int kVersion = 1;
inline constexpr int kDefaultBins = 2048;

/// Statistics of one observed tensor.
struct TensorStats {
  std::string op;                       ///< the op's name (probe table)
  std::vector<std::string> sourceNodes; ///< provenance: the match key
  std::string tensor = "input";
  int64_t count = 0;
  double min = 0, max = 0;
  std::vector<int64_t> histogram; ///< equal bins over [min, max]

  /// The key osc-precision matches ops by: the source nodes, joined.
  std::string key() const { return joinKey(sourceNodes); }
  static std::string joinKey(const std::vector<std::string> &nodes) {
    std::string k;
    for (const std::string &n : nodes)
      k += (k.empty() ? "" : "\n") + n;
    return k;
  }
};

struct Calibration {
  std::string model, source;
  int64_t sets = 0;
  int bins = kDefaultBins;
  std::vector<TensorStats> tensors;
};

inline nlohmann::json toJson(const Calibration &c) {
  nlohmann::json j = {{"schema", kSchema}, {"version", kVersion},
                      {"model", c.model},  {"source", c.source},
                      {"sets", c.sets},    {"bins", c.bins}};
  nlohmann::json ts = nlohmann::json::array();
  for (const TensorStats &t : c.tensors)
    ts.push_back({{"op", t.op},
                  {"source_nodes", t.sourceNodes},
                  {"tensor", t.tensor},
                  {"count", t.count},
                  {"min", t.min},
                  {"max", t.max},
                  {"histogram", t.histogram}});
  j["tensors"] = std::move(ts);
  return j;
}

/// The file's text: one line per tensor (histograms are long).
inline std::string toText(const Calibration &c) {
  nlohmann::json j = toJson(c);
  nlohmann::json tensors = std::move(j["tensors"]);
  j.erase("tensors");
  std::string head = j.dump(1);
  head.pop_back(); // the closing brace
  head.erase(head.find_last_not_of(" \n") + 1);
  std::string out = head + ",\n \"tensors\": [";
  for (size_t i = 0; i < tensors.size(); ++i)
    out += (i ? ",\n  " : "\n  ") + tensors[i].dump();
  return out + "\n ]\n}\n";
}

/// Parses a calibration; an error message (naming what is wrong) on failure.
inline std::optional<Calibration> fromJson(const nlohmann::json &j,
                                           std::string &error) {
  try {
    if (!j.is_object() || j.value("schema", "") != kSchema) {
      error = "not an opscope calibration (schema is not '" +
              std::string(kSchema) + "')";
      return std::nullopt;
    }
    if (j.at("version").get<int>() != kVersion) {
      error = "calibration version " + j.at("version").dump() +
              " is not supported (expected " + std::to_string(kVersion) + ")";
      return std::nullopt;
    }
    Calibration c;
    c.model = j.value("model", "");
    c.source = j.value("source", "");
    c.sets = j.value("sets", int64_t(0));
    c.bins = j.at("bins").get<int>();
    if (c.bins < 1 || c.bins > (1 << 20)) {
      error = "bins out of range";
      return std::nullopt;
    }
    for (const auto &t : j.at("tensors")) {
      TensorStats s;
      s.op = t.at("op").get<std::string>();
      s.sourceNodes = t.at("source_nodes").get<std::vector<std::string>>();
      s.tensor = t.value("tensor", "input");
      s.count = t.at("count").get<int64_t>();
      s.min = t.at("min").get<double>();
      s.max = t.at("max").get<double>();
      s.histogram = t.at("histogram").get<std::vector<int64_t>>();
      if (!std::isfinite(s.min) || !std::isfinite(s.max) || s.min > s.max ||
          s.count < 0 ||
          (!s.histogram.empty() &&
           static_cast<int>(s.histogram.size()) != c.bins)) {
        error = "tensor '" + s.op + "': inconsistent statistics";
        return std::nullopt;
      }
      c.tensors.push_back(std::move(s));
    }
    return c;
  } catch (const std::exception &e) {
    error = std::string("malformed calibration: ") + e.what();
    return std::nullopt;
  }
}

/// How the range is chosen: min-max, or the `percentile` (e.g. 99.99) of
/// the histogram at the top and 100 - percentile at the bottom.
struct Method {
  bool percentile = false;
  double value = 100;
  /// "minmax" or "percentile:P" with 50 < P <= 100; nullopt otherwise.
  static std::optional<Method> parse(const std::string &s) {
    if (s == "minmax")
      return Method{};
    const std::string prefix = "percentile:";
    if (s.compare(0, prefix.size(), prefix) != 0)
      return std::nullopt;
    std::string num = s.substr(prefix.size());
    char *end = nullptr;
    double p = std::strtod(num.c_str(), &end);
    if (num.empty() || *end || !(p > 50) || !(p <= 100))
      return std::nullopt;
    return Method{true, p};
  }
  std::string str() const {
    if (!percentile)
      return "minmax";
    char buf[64];
    std::snprintf(buf, sizeof buf, "percentile:%g", value);
    return buf;
  }
};

/// The value below which `fraction` of the histogram's mass lies (linear
/// within a bin).
inline double quantile(const TensorStats &s, double fraction) {
  if (s.histogram.empty() || s.max <= s.min)
    return fraction < 0.5 ? s.min : s.max;
  int64_t total = 0;
  for (int64_t c : s.histogram)
    total += c;
  if (total == 0)
    return fraction < 0.5 ? s.min : s.max;
  double target = fraction * static_cast<double>(total), acc = 0;
  double width = (s.max - s.min) / static_cast<double>(s.histogram.size());
  for (size_t b = 0; b < s.histogram.size(); ++b) {
    double c = static_cast<double>(s.histogram[b]);
    if (acc + c >= target && c > 0)
      return s.min + width * (b + (target - acc) / c);
    acc += c;
  }
  return s.max;
}

/// u8 asymmetric quantization of a tensor: x ~= scale * (q - zeroPoint).
struct U8Params {
  float scale = 1;
  int32_t zeroPoint = 0;
  double lo = 0, hi = 0; ///< the range covered (contains 0)
};

inline U8Params chooseU8(const TensorStats &s, const Method &m) {
  double lo = s.min, hi = s.max;
  if (m.percentile && m.value < 100) {
    lo = quantile(s, 1 - m.value / 100);
    hi = quantile(s, m.value / 100);
  }
  // The range must hold 0 exactly (zero padding, ReLU outputs).
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  U8Params p;
  p.lo = lo;
  p.hi = hi;
  double scale = (hi - lo) / 255.0;
  if (!(scale > 0) || !std::isfinite(scale))
    scale = 1;
  p.scale = static_cast<float>(scale);
  double zp = std::nearbyint(-lo / scale);
  p.zeroPoint = static_cast<int32_t>(std::clamp(zp, 0.0, 255.0));
  return p;
}

} // namespace opscope::calibration

#endif // OPSCOPE_RUNTIME_CALIBRATION_H
