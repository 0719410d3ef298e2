//===- file_output.h - files written whole or not at all --------*- C++ -*-===//
//
// Part of opscope. The one way the runtime, the analysis and tuning
// libraries and the tools write a result file (trace, CSV, .npy, tuning
// database, machine figures, reports, profiles): into NAME.tmp.PID, then
// renamed into place. An error or an interrupted run leaves the old file
// or none, never half of one, and no temporary behind. Header-only, so the
// static libraries that do not link the runtime share it.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_FILE_OUTPUT_H
#define OPSCOPE_RUNTIME_FILE_OUTPUT_H

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

namespace opscope {

/// Writes `path` through a temporary renamed into place; `write` fills the
/// stream (opened binary). Returns "" or an error naming the file.
inline std::string
writeFileAtomically(const std::string &path,
                    const std::function<void(std::ostream &)> &write) {
  // The PID keeps two processes writing the same file (a tuning database
  // shared by parallel sweeps) off each other's temporary.
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return path + ": cannot write: " + std::strerror(errno);
    try {
      write(out);
    } catch (...) { // what `write` throws is the caller's; no temporary
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
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

/// Writes `text` to `path` whole or not at all.
inline std::string writeFileAtomically(const std::string &path,
                                       const std::string &text) {
  return writeFileAtomically(path, [&](std::ostream &out) {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
}

} // namespace opscope

#endif // OPSCOPE_RUNTIME_FILE_OUTPUT_H
