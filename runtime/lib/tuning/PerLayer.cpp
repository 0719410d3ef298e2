//===- PerLayer.cpp - the per-layer ratio file ----------------------------===//
//
// Part of opscope. See per_layer.h.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/per_layer.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

std::string
opscope::tuning::parsePerLayer(const std::string &text, const std::string &what,
                               std::map<std::string, double> &ratios) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    // e.what() starts with "[json.exception.parse_error.101] ".
    std::string msg = e.what();
    size_t end = msg.find("] ");
    return what + ": malformed JSON: " +
           (end == std::string::npos ? msg : msg.substr(end + 2));
  }
  if (!doc.is_object() || !doc.contains("layers") || !doc["layers"].is_object())
    return what + ": expected {\"layers\": {\"NODE\": RATIO, ...}} (a 'layers' "
                  "object, keyed by node or weight name)";
  std::vector<std::string> outside;
  for (const auto &[name, value] : doc["layers"].items()) {
    const nlohmann::json *ratio = &value;
    if (value.is_object() && value.contains("sparsity"))
      ratio = &value["sparsity"];
    if (!ratio->is_number())
      return what + ": layer '" + name +
             "': expected a ratio (a number) or {\"sparsity\": RATIO}, got " +
             value.dump();
    double r = ratio->get<double>();
    if (!(r > 0.0 && r < 1.0)) {
      std::ostringstream s;
      s << "'" << name << "' " << r;
      outside.push_back(s.str());
      continue;
    }
    ratios[name] = r;
  }
  if (!outside.empty()) {
    std::string list;
    for (size_t i = 0; i < outside.size(); ++i)
      list += (i ? ", " : "") + outside[i];
    return what + ": ratios must lie in (0, 1) (exclusive): " + list;
  }
  return "";
}

std::string
opscope::tuning::readPerLayer(const std::string &path, const std::string &flag,
                              std::map<std::string, double> &ratios) {
  std::string what = flag + " " + path;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return what + ": cannot read: " + std::strerror(errno);
  std::stringstream text;
  text << in.rdbuf();
  return parsePerLayer(text.str(), what, ratios);
}
