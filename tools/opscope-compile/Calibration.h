//===- Calibration.h - opscope-compile --precision int8 ---------*- C++ -*-===//
//
// Part of opscope-compile. int8 needs activation ranges: with
// `--calibration-inputs DIR|random` the compiler makes them itself, as an
// observer run of the fp32 model by opscope-run (the compiler does not
// link the runtime).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_COMPILE_CALIBRATION_H
#define OPSCOPE_TOOLS_COMPILE_CALIBRATION_H

#include "opscope/Compiler/Compiler.h"

#include <string>

namespace opscope {
/// A temporary directory removed on destruction (and on SIGINT/SIGTERM).
class TempDir {
public:
  TempDir() = default;
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  /// Creates it; false with `error` set on failure.
  bool create(std::string &error);
  const std::string &path() const { return dir; }

private:
  std::string dir;
};

/// Compiles `opts`'s model in fp32 with probes into `tmp`, runs
/// `opscope-run --calibrate` (found next to `argv0`) on `inputs` (a
/// directory of input sets, or "random" for 8 random sets, with a warning)
/// and sets `opts.calibration` to the statistics written. False with
/// `error` set on failure.
bool calibrateForInt8(CompileOptions &opts, const std::string &inputs,
                      const char *argv0, const TempDir &tmp,
                      std::string &error);
} // namespace opscope

#endif
