//===- text.h - text for terminals -----------------------------*- C++ -*-===//
//
// Part of opscope's runtime. Names come from models and traces, which are
// untrusted: a 10 MB model name once padded every row of a table to 10 MB.
// Terminal output cuts them with this.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_TEXT_H
#define OPSCOPE_RUNTIME_TEXT_H

#include <cstddef>
#include <iomanip>
#include <sstream>
#include <string>

namespace opscope {

/// `s` cut to `max` characters in the middle ("/encoder/lay...ense/MatMul"),
/// keeping both ends, which carry the scope and the op; 0 keeps it whole.
inline std::string shortenMiddle(const std::string &s, size_t max) {
  if (max == 0 || s.size() <= max || max < 9)
    return s;
  size_t head = (max - 3) / 2, tail = max - 3 - head;
  return s.substr(0, head) + "..." + s.substr(s.size() - tail);
}

/// One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a
/// newline, quotes doubled.
inline std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string q = "\"";
  for (char c : s)
    q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// `v` with `digits` decimals ("12.346"), as tables and CSVs print times.
inline std::string fixed(double v, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

} // namespace opscope

#endif // OPSCOPE_RUNTIME_TEXT_H
