//===- CompileTool.cpp - opscope-compile's flags and compilation ----------===//
//
// Part of opscope. `opscope-compile MODEL --input-shape NAME=DIMS ... -o
// OUT.so` writes OUT.so and OUT.weights; `--print-fusion[=json]` prints the
// ops after fusion without compiling (unless -o is also given);
// Probes go around every op by default (they cost one branch per run while
// profiling is off); `--profile=REGEX` / `--profile-types=KINDS` select ops,
// `--no-probes` leaves them out.
//
//===----------------------------------------------------------------------===//

#include "CompileTool.h"

#include "opscope/Compiler/Compiler.h"
#include "opscope/Tools/Diagnostics.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include "opscope/runtime/calibration.h"
#include "opscope/runtime/cpu.h"
#include "opscope/runtime/tuning.h"

#include "Calibration.h"
#include "Progress.h"
#include "ToolCommon.h"

#include <oneapi/dnnl/dnnl_version.h>

#include <filesystem>

#include <CLI/CLI.hpp>

using opscope::tools::kFailure;
using opscope::tools::kOk;
using opscope::tools::kUsage;
using opscope::tools::compile::Options;

namespace {

/// The model must be a regular file: a missing one is a failure (exit 1
/// with the tool's prefix), not a usage error.
bool checkModelFile(const std::string &model) {
  if (std::error_code ec; !std::filesystem::is_regular_file(model, ec)) {
    llvm::errs() << "opscope-compile: error: " << model << ": "
                 << (std::filesystem::exists(model, ec) ? "not a regular file"
                                                        : "no such file")
                 << "\n";
    return false;
  }
  return true;
}

/// This machine's tuning database (opscope-tune), unless --kernels=rules.
/// The compiler does not link oneDNN: its version is the one the tree was
/// built against, the same package the runtime loads.
void useTuningDatabase(const std::string &kernels,
                       opscope::CompileOptions &opts) {
  if (kernels == "rules")
    return;
  std::string db =
      (std::filesystem::path(opscope::tuning::defaultDirectory()) /
       opscope::tuning::thisMachine(std::to_string(DNNL_VERSION_MAJOR) + "." +
                                    std::to_string(DNNL_VERSION_MINOR) + "." +
                                    std::to_string(DNNL_VERSION_PATCH))
           .fileName())
          .string();
  if (std::filesystem::exists(db))
    opts.tuningDb = db;
  else if (kernels == "tuned")
    llvm::errs() << "opscope-compile: no tuning database for this machine ("
                 << db << "; run opscope-tune): the rules decide\n";
}

/// The tier the model is compiled for: this CPU under OPSCOPE_MAX_ISA.
/// Where it runs the sparse kernels scalar (below AVX2: the kernel table's
/// reference tier), --sparse auto keeps such ops dense unless the tuning
/// database measured them.
void targetThisCpu(opscope::CompileOptions &opts) {
  opscope::rt::IsaLevel tier = opscope::rt::tierInForce();
  opts.tier = opscope::rt::kIsaLevelNames[static_cast<int>(tier)];
  if (tier < opscope::rt::IsaLevel::Avx2)
    opts.scalarSparsePrecisions = "fp32,bf16,int8";
  // Without VNNI (AVX-VNNI or AVX-512 VNNI) oneDNN's int8 kernels
  // saturate 8-bit weights (vpmaddubsw): --precision int8 quantizes them
  // to 7 bits there, and the runtime takes other 8-bit weights on its
  // exact s16 GEMM or in f32 (docs/precision.md).
  if (!opscope::rt::hasVnni(tier))
    opts.int8WeightBits = 7;
}

/// --precision bf16 on a tier without bf16 instructions (below AVX512-BF16):
/// the products run on f32 kernels with bf16 weights and f32 activations,
/// at fp32's speed and with results nearer fp32's than a bf16 CPU's
/// (docs/precision.md). Said once, with what to use for speed.
void noteEmulatedBf16(const opscope::CompileOptions &opts) {
  using opscope::rt::IsaLevel;
  if (opts.precision != "bf16" ||
      opscope::rt::tierInForce() >= IsaLevel::Avx512CoreBf16)
    return;
  bool capped = opscope::rt::hostIsaLevel() >= IsaLevel::Avx512CoreBf16;
  llvm::errs() << "opscope-compile: note: --precision bf16: tier " << opts.tier
               << " (" << opscope::rt::hostCpu().model
               << (capped ? " under OPSCOPE_MAX_ISA" : "")
               << ") has no bf16 instructions, so bf16 runs on f32 kernels "
                  "with bf16 weights and f32 activations (block-sparse ones "
                  "rounded): fp32's time, and results nearer fp32's than a "
                  "bf16 CPU gives (docs/precision.md); for speed compile "
                  "int8\n";
}

/// --print-fusion and the probe flags (--profile, --profile-types,
/// --no-probes) into the compiler's options. Returns -1 to go on, else
/// kUsage (message printed).
int applyProbeFlags(const CLI::App &app, Options &o) {
  opscope::CompileOptions &opts = o.compile;
  if (app.count("--print-fusion"))
    opts.printFusion = o.printFusion.empty() ? "table" : o.printFusion;
  bool profiled = app.count("--profile") || o.bareProfile;
  if (o.noProbes && o.bareProfile) {
    llvm::errs() << "opscope-compile: error: --profile and --no-probes "
                    "exclude each other\n";
    return kUsage;
  }
  if (app.count("--profile-types") && !profiled) {
    llvm::errs() << "opscope-compile: error: --profile-types needs --profile "
                    "(e.g. --profile --profile-types=inner_product)\n";
    return kUsage;
  }
  if (o.noProbes)
    opts.profile.reset();
  else if (app.count("--profile"))
    opts.profile = o.profile; // "" (all) after a bare --profile too
  return -1;
}

/// --precision with the calibration flags and --keep-fp32. Returns -1 to go
/// on, else kUsage (message printed).
int checkPrecisionFlags(const Options &o) {
  const opscope::CompileOptions &opts = o.compile;
  if (opts.precision == "int8") {
    if (o.calibrationInputs.empty() && opts.calibration.empty()) {
      llvm::errs() << "opscope-compile: error: --precision int8 needs "
                      "--calibration-inputs DIR (representative inputs; "
                      "'random' only if you must) or --calibration FILE\n";
      return kUsage;
    }
    if (!opscope::calibration::Method::parse(opts.calibrationMethod)) {
      llvm::errs() << "opscope-compile: error: --calibration-method: "
                      "expected minmax or percentile:P with 50 < P <= 100, "
                      "got '"
                   << opts.calibrationMethod << "'\n";
      return kUsage;
    }
    if (o.calibrationInputs != "random" && !o.calibrationInputs.empty() &&
        !std::filesystem::is_directory(o.calibrationInputs)) {
      llvm::errs() << "opscope-compile: error: --calibration-inputs: '"
                   << o.calibrationInputs
                   << "' is not a directory (or 'random')\n";
      return kUsage;
    }
  } else if (!o.calibrationInputs.empty() || !opts.calibration.empty()) {
    llvm::errs() << "opscope-compile: error: --calibration-inputs and "
                    "--calibration need --precision int8\n";
    return kUsage;
  }
  if (!opts.keepFp32.empty()) {
    std::string why;
    if (!llvm::Regex(opts.keepFp32).isValid(why)) {
      llvm::errs() << "opscope-compile: error: --keep-fp32: invalid regex '"
                   << opts.keepFp32 << "': " << why << "\n";
      return kUsage;
    }
  }
  return -1;
}

/// NAME=... specs of `flag`, parsed into the import options. False after
/// an invalid one (message printed).
bool parseSpecs(const std::vector<std::string> &specs, const char *flag,
                std::string (*parse)(llvm::StringRef,
                                     opscope::ImportOptions &),
                opscope::ImportOptions &import) {
  for (const std::string &spec : specs) {
    std::string error = parse(spec, import);
    if (!error.empty()) {
      llvm::errs() << "opscope-compile: error: " << flag << ": " << error
                   << "\n";
      return false;
    }
  }
  return true;
}

/// The remaining flags (--emit, --no-fuse, --no-check, the byte limits,
/// --input-shape, --freeze-input) into the compiler's options. False after
/// an invalid spec (message printed).
bool applyCompileFlags(Options &o) {
  opscope::CompileOptions &opts = o.compile;
  opts.emit = o.emit == "obj"    ? opscope::CompileOptions::Emit::Object
              : o.emit == "mlir" ? opscope::CompileOptions::Emit::Mlir
                                 : opscope::CompileOptions::Emit::Library;
  opts.fuse = !o.noFuse;
  opts.import.runChecker = !o.noCheck;
  opscope::tools::parseByteCount(o.maxTensorBytes, opts.import.maxTensorBytes);
  opscope::tools::parseByteCount(o.maxTotalBytes, opts.maxTotalBytes);
  return parseSpecs(o.shapes, "--input-shape", opscope::parseInputShapeSpec,
                    opts.import) &&
         parseSpecs(o.frozen, "--freeze-input", opscope::parseFreezeInputSpec,
                    opts.import);
}

/// int8 with --calibration-inputs: calibrates in `calibrationDir` (which
/// holds the statistics until the compilation is done). False on failure
/// (message printed).
bool calibrate(Options &o, const char *argv0,
               opscope::TempDir &calibrationDir) {
  if (o.compile.precision != "int8" || o.calibrationInputs.empty())
    return true;
  std::string error;
  if (!calibrationDir.create(error) ||
      !opscope::calibrateForInt8(o.compile, o.calibrationInputs, argv0,
                                 calibrationDir, error)) {
    llvm::errs() << "opscope-compile: error: " << error << "\n";
    return false;
  }
  return true;
}

/// Compiles, with a progress line. The exit code.
int compileWithProgress(opscope::CompileOptions &opts) {
  std::string error;
  opscope::tools::Progress progress(
      "opscope-compile: " + llvm::sys::path::filename(opts.input).str(),
      opscope::kCompileSteps);
  opts.progress = [&](int step, const std::string &detail) {
    progress.update(step, detail);
  };
  bool ok = opscope::compileModel(opts, error);
  opts.progress = nullptr; // (it refers to `progress`)
  progress.finish();
  if (!ok) {
    llvm::errs() << "opscope-compile: error: " << error << "\n";
    return kFailure;
  }
  return kOk;
}

} // namespace

void opscope::tools::compile::addOptions(CLI::App &app, Options &o) {
  opscope::CompileOptions &opts = o.compile;
  // (No CLI::ExistingFile check: a missing model is a failure, exit 1 with
  // the tool's prefix, as in every other tool, not a usage error.)
  app.add_option("model", opts.input, "model: .onnx, .onnxtext or .mlir")
      ->required();
  addImportInputOptions(app, o.shapes, o.frozen);
  app.add_option("-o,--output", opts.output,
                 "output library (OUT.so; OUT.weights is written next to it)");
  app.add_option("--emit", o.emit, "what to write: lib (default), obj or mlir")
      ->check(CLI::IsMember({"lib", "obj", "mlir"}));
  app.add_flag("--no-fuse", o.noFuse,
               "skip fusion (constant folding only), for A/B comparisons");
  app.add_option("--fuse-options", opts.fuseOptions,
                 "osc-fuse options, e.g. 'fuse-gelu=false fuse-attention=false'");
  auto *prof = app.add_option("--profile", o.profile,
                              "probe only the ops whose source node matches "
                              "REGEX (--profile=REGEX; every op is probed by "
                              "default)")
                   ->expected(0, 1)
                   ->default_str("");
  auto *profTypes = app.add_option(
      "--profile-types", opts.probeTypes,
      "with --profile: only these op kinds (comma-separated, e.g. "
      "inner_product,softmax)");
  auto *noProbesFlag = app.add_flag(
      "--no-probes", o.noProbes,
      "compile without probes (OPSCOPE_PROFILE and --profile then have "
      "nothing to record)");
  noProbesFlag->excludes(prof)->excludes(profTypes);
  app.add_option("--print-fusion", o.printFusion,
                 "print the ops after fusion (table or json) "
                 "and stop unless -o is given")
      ->expected(0, 1)
      ->default_str("table")
      ->check(CLI::IsMember({"table", "json"}));
  app.add_option("--precision", opts.precision,
                 "what inner products compute in: fp32 (default), bf16 or "
                 "int8 (weights converted at compile time; int8 needs "
                 "--calibration-inputs or --calibration)")
      ->check(CLI::IsMember({"fp32", "bf16", "int8"}));
  auto *calInputs = app.add_option(
      "--calibration-inputs", o.calibrationInputs,
      "int8: a directory of input sets (one subdirectory per set, NAME.npy "
      "per input) to calibrate activation ranges on, or 'random'");
  auto *calFile = app.add_option(
      "--calibration", opts.calibration,
      "int8: statistics from an earlier `opscope-run --calibrate`");
  calInputs->excludes(calFile);
  app.add_option("--calibration-method", opts.calibrationMethod,
                 "int8: minmax (default) or percentile:P (e.g. "
                 "percentile:99.99)");
  app.add_option("--keep-fp32", opts.keepFp32,
                 "with --precision: keep the ops whose source node matches "
                 "REGEX in fp32");
  app.add_option("--sparse", opts.sparse,
                 "block-sparse kernels: auto (weights whose 1x4 block "
                 "sparsity reaches --sparse-threshold), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--sparse-threshold", opts.sparseThreshold,
                 "block sparsity from which --sparse=auto runs a weight "
                 "sparse (default 0.7)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_flag("--no-sparse-chains", opts.noSparseChains,
               "do not keep activations transposed between chained sparse "
               "ops (for A/B comparisons)");
  app.add_flag("--no-conv-layout", opts.noConvLayout,
               "convolutions read and write NCHW buffers, reordering around "
               "each one (osc-conv-layout off; for A/B comparisons)");
  app.add_flag("--no-int8-chains", opts.noInt8Chains,
               "int8: every int8 op quantizes its f32 input itself, none "
               "hands u8 to the next (osc-int8-chains off; for A/B "
               "comparisons)");
  app.add_option("--bf16-chains", opts.bf16Chains,
                 "bf16: values every reader rounds to bf16 are written in "
                 "bf16 by their producer (osc-bf16-chains): auto (only where "
                 "this CPU multiplies bf16 natively; the default), always or "
                 "never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--kernels", o.kernels,
                 "how --sparse=auto chooses: tuned (this machine's "
                 "opscope-tune database decides where it has an entry; the "
                 "default when the database exists) or rules "
                 "(--sparse-threshold)")
      ->check(CLI::IsMember({"tuned", "rules"}));
  app.add_flag("--no-check", o.noCheck, "skip the ONNX model checker");
  app.add_option("--max-tensor-bytes", o.maxTensorBytes,
                 "refuse any tensor larger than this (bytes, or with a K/M/G "
                 "suffix; default 4G)")
      ->check(opscope::tools::byteCount());
  app.add_option("--max-total-bytes", o.maxTotalBytes,
                 "refuse an activation arena or a .weights file larger than "
                 "this (default 16G)")
      ->check(opscope::tools::byteCount());
  app.add_flag("--timing", opts.timing, "print the time of each phase");
}

int opscope::tools::compile::rewriteCommandLine(
    int argc, char **argv, Options &o, std::vector<std::string> &args) {
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--print-fusion")
      a = "--print-fusion=table";
    if (a == "--profile") {
      o.bareProfile = true; // every op; selected in run()
      // `--profile REGEX` (a space, not '='): the regex would be read as a
      // second model or another flag's value; say what was meant.
      if (i + 1 < argc) {
        llvm::StringRef next = argv[i + 1];
        bool model = next.ends_with(".onnx") || next.ends_with(".onnxtext") ||
                     next.ends_with(".mlir");
        // (args holds the program and, when it came first, the model.)
        if (!next.starts_with("-") && !model && args.size() > 1) {
          llvm::errs() << "opscope-compile: error: --profile takes its "
                          "regex after '=': --profile='"
                       << next << "' (got '--profile " << next << "')\n";
          return kUsage;
        }
      }
    } else {
      args.push_back(std::move(a));
    }
  }
  return -1;
}

int opscope::tools::compile::run(const CLI::App &app, Options &o) {
  if (!checkModelFile(o.compile.input))
    return kFailure;
  useTuningDatabase(o.kernels, o.compile);
  targetThisCpu(o.compile);
  if (int code = applyProbeFlags(app, o); code >= 0)
    return code;
  if (int code = checkPrecisionFlags(o); code >= 0)
    return code;
  noteEmulatedBf16(o.compile);
  if (o.compile.output.empty() && o.compile.printFusion.empty()) {
    llvm::errs() << "opscope-compile: error: -o OUT.so is required (or "
                    "--print-fusion)\n";
    return kUsage;
  }
  if (!applyCompileFlags(o))
    return kUsage;
  // The statistics in calibrationDir are read by the compilation; the
  // directory goes when the run is over. (CLI11 names the app after
  // argv[0] when it parses.)
  opscope::TempDir calibrationDir;
  if (!calibrate(o, app.get_name().c_str(), calibrationDir))
    return kFailure;
  return compileWithProgress(o.compile);
}
