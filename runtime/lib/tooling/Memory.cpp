//===- Memory.cpp - resident memory of this process -----------------------===//
//
// Part of opscope's runtime tooling.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/tooling/memory.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace opscope::tooling;

namespace {
/// "VmRSS:     1234 kB" -> 1234 * 1024.
int64_t kiloBytes(const std::string &line) {
  std::istringstream in(line.substr(line.find(':') + 1));
  int64_t kb = -1;
  in >> kb;
  return kb < 0 ? -1 : kb * 1024;
}
} // namespace

ProcessMemory opscope::tooling::readProcessMemory(const std::string &mapped) {
  ProcessMemory m;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0)
      m.rss = kiloBytes(line);
    else if (line.rfind("VmHWM:", 0) == 0)
      m.peakRss = kiloBytes(line);
    else if (line.rfind("RssAnon:", 0) == 0)
      m.anon = kiloBytes(line);
    else if (line.rfind("RssFile:", 0) == 0)
      m.file = kiloBytes(line);
  }
  if (mapped.empty())
    return m;
  std::error_code ec;
  std::string target = std::filesystem::canonical(mapped, ec).string();
  if (ec)
    return m;
  // smaps: a header line per mapping (address perms offset dev inode
  // path), then "Key: value kB" lines.
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
        line.find(':') > line.find(' ')) {
      size_t slash = line.find('/');
      inside = slash != std::string::npos && line.substr(slash) == target;
      if (inside && m.mappedRss < 0)
        m.mappedRss = m.mappedPss = 0;
      continue;
    }
    if (!inside)
      continue;
    if (line.rfind("Rss:", 0) == 0)
      m.mappedRss += kiloBytes(line);
    else if (line.rfind("Pss:", 0) == 0)
      m.mappedPss += kiloBytes(line);
  }
  return m;
}

std::string opscope::tooling::formatMiB(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  return buf;
}
