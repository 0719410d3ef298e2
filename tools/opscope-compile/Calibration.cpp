//===- Calibration.cpp - opscope-compile --precision int8 -----------------===//
//
// Part of opscope-compile. See Calibration.h.
//
//===----------------------------------------------------------------------===//

#include "Calibration.h"

#include "opscope/runtime/calibration.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

using namespace opscope;

TempDir::~TempDir() {
  if (dir.empty())
    return;
  llvm::sys::fs::remove_directories(dir);
  llvm::sys::DontRemoveFileOnSignal(dir);
}

bool TempDir::create(std::string &error) {
  llvm::SmallString<128> p;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("opscope-calibration", p)) {
    error = "cannot create a temporary directory: " + ec.message();
    return false;
  }
  dir = p.str().str();
  llvm::sys::RemoveFileOnSignal(dir);
  return true;
}

bool opscope::calibrateForInt8(CompileOptions &opts, const std::string &inputs,
                               const char *argv0, const TempDir &tmp,
                               std::string &error) {
  // The observed model: fp32, dense, every op probed (the statistics are
  // matched to the int8 model's ops by source nodes, which these share).
  CompileOptions fp32 = opts;
  fp32.precision = "fp32";
  fp32.keepFp32.clear();
  fp32.calibration.clear();
  fp32.sparse = "never";
  fp32.tuningDb.clear();
  fp32.profile = std::string();
  fp32.probeTypes = "inner_product,conv,conv_transpose";
  fp32.printFusion.clear();
  fp32.emit = CompileOptions::Emit::Library;
  fp32.timing = false;
  std::string so = tmp.path() + "/fp32.so", stats = tmp.path() + "/calibration.json";
  fp32.output = so;
  std::string why;
  if (!compileModel(fp32, why)) {
    if (why.find("osc-insert-probes: the probe selection") !=
            std::string::npos &&
        why.find("matches no op") != std::string::npos) {
      // Nothing computes in int8: an empty calibration, and osc-precision
      // reports that nothing was converted.
      llvm::errs() << "opscope-compile: warning: --precision int8: the "
                      "model has no inner product or convolution to "
                      "quantize; nothing to calibrate, it stays fp32\n";
      calibration::Calibration empty;
      empty.model = fp32.input;
      empty.source = "no int8 op to calibrate";
      std::error_code ec;
      llvm::raw_fd_ostream os(stats, ec);
      if (ec) {
        error = "cannot write " + stats + ": " + ec.message();
        return false;
      }
      os << calibration::toText(empty);
      opts.calibration = stats;
      return true;
    }
    error = "compiling the fp32 model for calibration: " + why;
    return false;
  }
  std::string run = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&calibrateForInt8));
  llvm::SmallString<256> runner(llvm::sys::path::parent_path(run));
  llvm::sys::path::append(runner, "opscope-run");
  if (!llvm::sys::fs::can_execute(runner)) {
    error = "calibration needs opscope-run next to opscope-compile (" +
            runner.str().str() + ")";
    return false;
  }
  std::vector<std::string> args = {runner.str().str(), so, "--calibrate",
                                   stats, "--quiet"};
  if (inputs == "random") {
    llvm::errs() << "opscope-compile: warning: --calibration-inputs random: "
                    "int8 ranges come from 8 random input sets, which rarely "
                    "look like real inputs; give a directory of "
                    "representative inputs\n";
    args.insert(args.end(), {"--random", "8"});
  } else {
    args.insert(args.end(), {"--inputs", inputs});
  }
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string msg;
  int rc = llvm::sys::ExecuteAndWait(runner, argRefs, std::nullopt, {}, 0, 0,
                                     &msg);
  if (rc != 0) {
    error = "calibration run failed (" +
            (msg.empty() ? "opscope-run exited with " + std::to_string(rc)
                         : msg) +
            "; its message is above)";
    return false;
  }
  opts.calibration = stats;
  return true;
}
