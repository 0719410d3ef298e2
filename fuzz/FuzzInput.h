//===- FuzzInput.h - fuzz inputs as files -----------------------*- C++ -*-===//
//
// Part of opscope's fuzz harnesses. The readers under test take paths (they
// stat, open and mmap, as the tools do), so each input becomes an anonymous
// in-memory file, named through /proc/self/fd: no disk traffic, nothing
// left behind.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_FUZZ_FUZZINPUT_H
#define OPSCOPE_FUZZ_FUZZINPUT_H

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace opscope::fuzz {

class MemFile {
public:
  MemFile(const uint8_t *data, size_t size) {
    fd = memfd_create("opscope-fuzz", MFD_CLOEXEC);
    size_t done = 0;
    while (fd >= 0 && done < size) {
      ssize_t n = ::write(fd, data + done, size - done);
      if (n <= 0)
        break;
      done += static_cast<size_t>(n);
    }
  }
  ~MemFile() {
    if (fd >= 0)
      ::close(fd);
  }
  MemFile(const MemFile &) = delete;
  MemFile &operator=(const MemFile &) = delete;
  bool ok() const { return fd >= 0; }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd); }

private:
  int fd = -1;
};

} // namespace opscope::fuzz

#endif // OPSCOPE_FUZZ_FUZZINPUT_H
