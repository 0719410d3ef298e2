//===- FileOutput.h - files written whole or not at all ---------*- C++ -*-===//
//
// Part of opscope. Header-only, for the tools that write reports, CSVs and
// profiles: a file is written to NAME.tmp and renamed into place, so an
// error (or an interrupted run) leaves the old file or none, never half of
// one.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_COMMON_FILEOUTPUT_H
#define OPSCOPE_TOOLS_COMMON_FILEOUTPUT_H

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace opscope::tools {

/// Writes `text` to `path` through a temporary renamed into place. Returns
/// "" or an error naming the file; a failure leaves no file behind.
inline std::string writeFileAtomically(const std::string &path, const std::string &text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return path + ": cannot write: " + std::strerror(errno);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return path + ": write failed";
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string err = std::strerror(errno);
    std::remove(tmp.c_str());
    return path + ": cannot rename into place: " + err;
  }
  return "";
}

} // namespace opscope::tools

#endif // OPSCOPE_TOOLS_COMMON_FILEOUTPUT_H
