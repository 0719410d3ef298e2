//===- ImportBench.cpp - ONNX import speed --------------------------------===//
//
// Part of opscope. `bench-import MODEL.onnx:NAME=DIMS[,NAME=DIMS...] ...`
// times importing each model into a verified osc module (in memory, no
// printing), and reports the model size and the process's peak RSS.
//
//===----------------------------------------------------------------------===//

#include "opscope/InitAll.h"
#include "opscope/Target/ONNX/ImportONNX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>
#include <sys/resource.h>

static void importModel(benchmark::State &state, std::string path,
                        opscope::ImportOptions options) {
  mlir::DialectRegistry registry;
  opscope::registerAllDialects(registry);
  uint64_t bytes = 0;
  llvm::sys::fs::file_size(path, bytes);
  for (auto _ : state) {
    // A fresh context per import: what a tool invocation pays.
    mlir::MLIRContext context(registry);
    auto module = opscope::importONNXFile(path, options, &context);
    if (!module) {
      state.SkipWithError("import failed");
      return;
    }
    benchmark::DoNotOptimize(module.get());
  }
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  state.counters["model_MB"] = bytes / 1e6;
  state.counters["peak_RSS_MB"] = usage.ru_maxrss / 1e3;
}

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (argc < 2) {
    llvm::errs() << "usage: bench-import [benchmark flags] "
                    "MODEL.onnx:NAME=DIMS[,NAME=DIMS...] ...\n";
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    auto [path, shapes] = llvm::StringRef(argv[i]).split(':');
    opscope::ImportOptions options;
    llvm::SmallVector<llvm::StringRef> specs;
    shapes.split(specs, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef spec : specs) {
      std::string error = opscope::parseInputShapeSpec(spec, options);
      if (!error.empty()) {
        llvm::errs() << "bench-import: " << error << "\n";
        return 2;
      }
    }
    std::string name = "import/" + llvm::sys::path::stem(path).str() + "/" +
                       shapes.str();
    benchmark::RegisterBenchmark(name.c_str(), importModel, path.str(),
                                 options)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(5);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
