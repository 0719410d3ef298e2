//===- Compiler.cpp - model to native library -----------------------------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/Compiler/Compiler.h"
#include "opscope/Tools/Diagnostics.h"

#include "opscope/Conversion/Passes.h"
#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/Transforms/PlanMemory.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"
#include "opscope/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cstring>
#include <mutex>

// The .weights body checksum; the runtime checks it with the same
// header-only xxHash (XXH3, 64 bits).
#define XXH_INLINE_ALL
#include <xxhash.h>

using namespace mlir;
using namespace opscope;

std::string opscope::weightsPathFor(llvm::StringRef libraryPath) {
  llvm::SmallString<256> p(libraryPath);
  llvm::sys::path::replace_extension(p, ".weights");
  return std::string(p);
}

namespace {
/// Temporary outputs, removed unless committed (renamed into place).
class TempFiles {
public:
  ~TempFiles() {
    for (auto &[tmp, dest] : files) {
      llvm::sys::fs::remove(tmp);
      llvm::sys::DontRemoveFileOnSignal(tmp);
    }
  }
  std::string add(const std::string &dest) {
    llvm::SmallString<256> tmp;
    // An interrupted compile (SIGINT, SIGTERM) removes its temporaries too:
    // a .weights.tmp can be as large as the model. The name is registered
    // before the file exists, so no signal can fall between the two.
    llvm::sys::fs::createUniquePath(dest + ".tmp-%%%%%%", tmp,
                                    /*MakeAbsolute=*/false);
    llvm::sys::RemoveFileOnSignal(tmp);
    int fd = -1;
    if (!llvm::sys::fs::openFileForWrite(tmp, fd, llvm::sys::fs::CD_CreateNew))
      llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    files.push_back({std::string(tmp), dest});
    return std::string(tmp);
  }
  std::string scratch(llvm::StringRef suffix) {
    llvm::SmallString<256> tmp;
    llvm::sys::fs::createTemporaryFile("opscope", suffix, tmp);
    llvm::sys::RemoveFileOnSignal(tmp);
    files.push_back({std::string(tmp), ""});
    return std::string(tmp);
  }
  bool commit(std::string &error) {
    for (auto &[tmp, dest] : files) {
      if (dest.empty())
        continue;
      if (std::error_code ec = llvm::sys::fs::rename(tmp, dest)) {
        error = "cannot write '" + dest + "': " + ec.message();
        return false;
      }
      llvm::sys::DontRemoveFileOnSignal(tmp);
    }
    files.erase(std::remove_if(files.begin(), files.end(),
                               [](auto &f) { return !f.second.empty(); }),
                files.end());
    return true;
  }

private:
  std::vector<std::pair<std::string, std::string>> files;
};

/// Writes the `.weights` file: a 64-byte header (magic, id, size, XXH3-64
/// checksum of everything after the header) and each constant's bytes at
/// its planned offset.
bool writeWeights(ModuleOp module, const std::string &path,
                  std::string &error) {
  auto bytes = module->getAttrOfType<IntegerAttr>(osc::kWeightsBytesAttr);
  auto id = module->getAttrOfType<StringAttr>(osc::kWeightsIdAttr);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  char header[osc::kWeightsHeaderBytes] = {'O', 'S', 'C', 'W',
                                           'G', 'H', 'T', '1'};
  uint64_t idValue = std::stoull(id.str(), nullptr, 16);
  uint64_t size = bytes.getInt();
  std::memcpy(header + 8, &idValue, 8);
  std::memcpy(header + 16, &size, 8);
  os.write(header, sizeof(header));
  uint64_t pos = sizeof(header);
  std::vector<char> storage;
  static const char zeros[64] = {};
  bool ok = true;
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(
      XXH3_createState(), &XXH3_freeState);
  XXH3_64bits_reset(state.get());
  auto write = [&](const char *p, size_t n) {
    os.write(p, n);
    XXH3_64bits_update(state.get(), p, n);
    pos += n;
  };
  module.walk([&](osc::ConstantOp c) {
    auto off = c->getAttrOfType<IntegerAttr>(osc::kWeightOffsetAttr);
    auto data = osc::constantData(c, storage);
    if (!off || !data) {
      ok = false;
      return WalkResult::interrupt();
    }
    uint64_t at = off.getInt();
    while (pos < at)
      write(zeros, std::min<uint64_t>(at - pos, sizeof(zeros)));
    write(data->data(), data->size());
    return WalkResult::advance();
  });
  while (pos < size)
    write(zeros, std::min<uint64_t>(size - pos, sizeof(zeros)));
  uint64_t checksum = XXH3_64bits_digest(state.get());
  os.seek(24);
  os.write(reinterpret_cast<const char *>(&checksum), 8);
  os.close();
  if (!ok || os.has_error()) {
    error = "cannot write the weights to '" + path + "'";
    return false;
  }
  return true;
}

bool emitObject(ModuleOp module, const std::string &path, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "opscope_model");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return false;
  }
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return false;
  // The model code is a schedule of calls: generic x86-64 is enough, and
  // keeps the library loadable on any x86-64 (kernels dispatch at run time).
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, "x86-64", "", llvm::TargetOptions(), llvm::Reloc::PIC_));
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(triple);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return false;
  }
  pm.run(*llvmModule);
  os.close();
  return !os.has_error();
}

bool linkLibrary(const std::string &object, const std::string &library,
                 std::string &error) {
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc) {
    error = "no C compiler driver ('cc') on PATH to link the model library";
    return false;
  }
  // Runtime entry points stay undefined: they resolve against
  // libopscope_runtime.so in the process that loads the model.
  llvm::SmallVector<llvm::StringRef> args = {*cc, "-shared", "-o", library,
                                             object};
  std::string msg;
  int rc = llvm::sys::ExecuteAndWait(*cc, args, std::nullopt, {}, 0, 0, &msg);
  if (rc != 0) {
    error = "linking '" + library + "' failed" + (msg.empty() ? "" : ": " + msg);
    return false;
  }
  return true;
}
} // namespace

namespace {
bool compileInContext(const CompileOptions &opts, MLIRContext &context,
                      std::string &error);
} // namespace

bool opscope::compileModel(const CompileOptions &opts, std::string &error) {
  // Pass names are needed to parse --fuse-options pipelines.
  static std::once_flag passesRegistered;
  std::call_once(passesRegistered, [] { registerAllPasses(); });
  DialectRegistry registry;
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A failing pass names its op; the whole function it sits in would bury
  // the message.
  context.printOpOnDiagnostic(false);
  // Errors from the importer and the passes become the one message the
  // tool prints (formatted without MLIR's loc(...) prefix); the stage's own
  // summary ("cannot load ...") is used only when nothing said more.
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error) {
      llvm::errs() << (diag.getSeverity() == DiagnosticSeverity::Warning
                           ? "warning: "
                           : "note: ")
                   << formatDiagnostic(diag) << "\n";
      return success();
    }
    diagnostics += (diagnostics.empty() ? "" : "\n") + formatDiagnostic(diag);
    return success();
  });
  if (compileInContext(opts, context, error))
    return true;
  if (!diagnostics.empty())
    error = diagnostics;
  return false;
}

namespace {
bool compileInContext(const CompileOptions &opts, MLIRContext &context,
                      std::string &error) {
  DefaultTimingManager tm;
  tm.setEnabled(opts.timing);
  TimingScope root = tm.getRootScope();

  // Progress: one call per stage, and per pass inside the pass managers.
  auto stage = [&](int step, const std::string &detail) {
    if (opts.progress)
      opts.progress(step, detail);
  };
  struct PassProgress : PassInstrumentation {
    std::function<void(const std::string &)> onPass;
    void runBeforePass(Pass *pass, Operation *) override {
      onPass(pass->getName().str());
    }
  };
  auto watch = [&](PassManager &pm, int step, const std::string &name) {
    if (!opts.progress)
      return;
    auto pi = std::make_unique<PassProgress>();
    pi->onPass = [&, step, name](const std::string &pass) {
      stage(step, name + ": " + pass);
    };
    pm.addInstrumentation(std::move(pi));
  };

  // Load.
  stage(0, "load");
  OwningOpRef<ModuleOp> module;
  {
    TimingScope t = root.nest("load");
    llvm::StringRef in = opts.input;
    if (in.ends_with(".mlir")) {
      module = parseSourceFile<ModuleOp>(in, &context);
    } else {
      module = importONNXFile(in, opts.import, &context);
    }
    if (!module) {
      error = "cannot load '" + opts.input + "'";
      return false;
    }
  }
  std::string stem = llvm::sys::path::stem(opts.input).str();
  if (!(*module)->hasAttr("osc.model"))
    (*module)->setAttr("osc.model", StringAttr::get(&context, stem));
  // The tier the layouts, the int8 weight range and the sparse choices are
  // made for; the plan records it and the runtime reports a mismatch.
  if (!opts.tier.empty())
    (*module)->setAttr("osc.target_tier", StringAttr::get(&context, opts.tier));
  // The tuning database the kernel choices were made from; the plan, and
  // through it every trace's header, names it.
  if (!opts.tuningDb.empty() && opts.sparse == "auto")
    (*module)->setAttr("osc.tuning_db",
                       StringAttr::get(&context, opts.tuningDb));

  // The table report names the tier the layouts and precisions are chosen
  // for (this CPU under OPSCOPE_MAX_ISA, cpu.h), before the passes' lines.
  if (opts.printFusion == "table" && !opts.tier.empty())
    llvm::outs() << "target tier: " << opts.tier
                 << " (this CPU under OPSCOPE_MAX_ISA)\n";

  // Optimise (and report).
  {
    PassManager pm(&context);
    TimingScope t = root.nest("optimize");
    pm.enableTiming(t);
    stage(1, "optimize");
    watch(pm, 1, "optimize");
    if (opts.fuse) {
      if (opts.fuseOptions.empty()) {
        osc::buildOscOptimizationPipeline(pm);
      } else {
        std::string pipeline = "func.func(osc-fold-constants,osc-fuse{" +
                               opts.fuseOptions + "},cse,osc-fold-constants)";
        if (failed(parsePassPipeline(pipeline, pm))) {
          error = "invalid fusion options '" + opts.fuseOptions + "'";
          return false;
        }
      }
    } else {
      pm.nest<func::FuncOp>().addPass(osc::createOscFoldConstants());
    }
    // Precision (weights converted once), then block-sparse kernels and
    // the transposed layout along their chains.
    osc::OscPrecisionOptions po;
    po.precision = opts.precision;
    po.keepFp32 = opts.keepFp32;
    po.calibration = opts.calibration;
    po.calibrationMethod = opts.calibrationMethod;
    po.weightBits = opts.int8WeightBits;
    po.report = opts.printFusion == "table";
    pm.nest<func::FuncOp>().addPass(osc::createOscPrecision(po));
    osc::OscSparseLayoutOptions so;
    so.mode = opts.sparse;
    so.threshold = opts.sparseThreshold;
    so.transposeChains = !opts.noSparseChains;
    so.tuningDb = opts.tuningDb;
    so.scalarPrecisions = opts.scalarSparsePrecisions;
    so.tier = opts.tier;
    so.report = !opts.printFusion.empty() && opts.printFusion == "table";
    pm.nest<func::FuncOp>().addPass(osc::createOscSparseLayout(so));
    // u8 hand-overs between int8 ops (after the sparse decisions: block-
    // sparse kernels quantize into their own layout).
    if (!opts.noInt8Chains) {
      osc::OscInt8ChainsOptions co;
      co.report = so.report;
      pm.nest<func::FuncOp>().addPass(osc::createOscInt8Chains(co));
    }
    // bf16 hand-overs where every reader rounds to bf16 anyway.
    {
      osc::OscBf16ChainsOptions bo;
      bo.mode = opts.bf16Chains;
      bo.report = so.report;
      pm.nest<func::FuncOp>().addPass(osc::createOscBf16Chains(bo));
    }
    if (!opts.noConvLayout) {
      osc::OscConvLayoutOptions lo;
      lo.report = so.report;
      pm.nest<func::FuncOp>().addPass(osc::createOscConvLayout(lo));
    }
    if (failed(pm.run(*module))) {
      error = "optimisation failed";
      return false;
    }
  }
  if (!opts.printFusion.empty()) {
    // The pass prints to stdout; the report is the tool's output.
    PassManager pm(&context);
    osc::OscFusionReportOptions ro;
    ro.format = opts.printFusion;
    pm.nest<func::FuncOp>().addPass(osc::createOscFusionReport(ro));
    if (failed(pm.run(*module))) {
      error = "fusion report failed";
      return false;
    }
    if (opts.output.empty())
      return true;
  }

  // Refuse what the runtime cannot execute now, naming the tensor, rather
  // than when a session is created.
  {
    auto tensorOf = [](Value v) { return cast<RankedTensorType>(v.getType()); };
    std::string unsupported;
    module->walk([&](Operation *op) {
      if (!unsupported.empty() || !osc::isExecuted(op))
        return;
      SmallVector<Value> values(op->getOperands());
      values.append(op->result_begin(), op->result_end());
      for (Value v : values) {
        auto t = dyn_cast<RankedTensorType>(v.getType());
        if (!t || !(t.getElementType().isF16() || t.getElementType().isBF16()))
          continue;
        // An fp16 model computes in f32 (the importer widens its weights
        // and values); casts convert its f16 graph inputs and outputs. The
        // cast kernel converts f16 and bf16 from and to every type (through
        // f32).
        if (isa<osc::CastOp>(op))
          continue;
        // --precision bf16: inner products and convolutions hold bf16
        // weights; inside bf16 chains (osc-bf16-chains) bf16 inner
        // products and matmuls read and write bf16, softmax and layer
        // norms write it, transposes move it.
        if (t.getElementType().isBF16() &&
            ((isa<osc::InnerProductOp>(op) &&
              tensorOf(cast<osc::InnerProductOp>(op).getWeight())
                  .getElementType()
                  .isBF16() &&
              v != cast<osc::InnerProductOp>(op).getSumInput()) ||
             (isa<osc::ConvOp>(op) &&
              tensorOf(cast<osc::ConvOp>(op).getWeight())
                  .getElementType()
                  .isBF16() &&
              v != cast<osc::ConvOp>(op).getSumInput()) ||
             (isa<osc::ConvTransposeOp>(op) &&
              v == cast<osc::ConvTransposeOp>(op).getWeight()) ||
             (isa<osc::MatMulOp>(op) &&
              cast<osc::MatMulOp>(op).getComputeBf16()) ||
             (isa<osc::SoftmaxOp, osc::LayerNormOp>(op) &&
              v == op->getResult(0)) ||
             isa<osc::TransposeOp, osc::DepthToSpaceOp>(op)))
          continue;
        std::string type;
        llvm::raw_string_ostream os(type);
        os << t.getElementType();
        unsupported = "tensor '" + osc::tensorName(v) + "' (used by " +
                      osc::kindOf(op) + " '" + osc::tensorName(op->getResult(0)) +
                      "') has element type " + type +
                      "; the runtime computes f32 (and integer types for "
                      "elementwise and data movement), not f16/bf16 yet";
        return;
      }
    });
    if (!unsupported.empty()) {
      error = unsupported;
      return false;
    }
  }

  // Probe and plan.
  std::vector<std::string> probeTypes;
  {
    PassManager pm(&context);
    TimingScope t = root.nest("probe+plan");
    pm.enableTiming(t);
    stage(2, "probe+plan");
    watch(pm, 2, "probe+plan");
    if (opts.profile) {
      osc::OscInsertProbesOptions po;
      po.names = *opts.profile;
      llvm::SmallVector<llvm::StringRef> parts;
      llvm::StringRef(opts.probeTypes).split(parts, ',', -1, false);
      for (llvm::StringRef p : parts)
        probeTypes.push_back(p.str());
      po.types = probeTypes;
      pm.addPass(osc::createOscInsertProbes(po));
    }
    osc::OscPlanMemoryOptions plan;
    plan.maxTensorBytes = opts.import.maxTensorBytes;
    plan.maxTotalBytes = opts.maxTotalBytes;
    pm.addPass(osc::createOscPlanMemory(plan));
    if (failed(pm.run(*module))) {
      error = opts.profile ? "probe insertion or memory planning failed"
                           : "memory planning failed";
      return false;
    }
  }

  TempFiles temps;
  if (opts.emit == CompileOptions::Emit::Mlir) {
    std::string tmp = temps.add(opts.output);
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec) {
      error = "cannot write '" + opts.output + "': " + ec.message();
      return false;
    }
    OpPrintingFlags flags;
    flags.enableDebugInfo(true, false);
    module->print(os, flags);
    os.close();
    return temps.commit(error);
  }

  {
    TimingScope t = root.nest("write weights");
    stage(3, "write weights");
    if (!writeWeights(*module, temps.add(weightsPathFor(opts.output)), error))
      return false;
  }
  {
    PassManager pm(&context);
    TimingScope t = root.nest("lower");
    pm.enableTiming(t);
    stage(4, "lower");
    watch(pm, 4, "lower");
    buildOscLowerToLLVMPipeline(pm);
    if (failed(pm.run(*module))) {
      error = "lowering to LLVM failed";
      return false;
    }
  }
  {
    TimingScope t = root.nest("codegen+link");
    stage(5, "codegen+link");
    if (opts.emit == CompileOptions::Emit::Object) {
      if (!emitObject(*module, temps.add(opts.output), error))
        return false;
    } else {
      std::string object = temps.scratch("o");
      if (!emitObject(*module, object, error) ||
          !linkLibrary(object, temps.add(opts.output), error))
        return false;
    }
  }
  stage(kCompileSteps, "done");
  return temps.commit(error);
}
} // namespace
