//===- model.h - load and run a compiled model (C++ API) --------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). A `Model` is a compiled
// `model.so` with its mmapped `model.weights`: read-only, shareable between
// threads. A `Session` is one executable instance of it: the activation
// arena, every kernel (oneDNN primitives included) created once, and the
// probe buffer. Run a session from one thread at a time; run several
// sessions for concurrency.
//
//   auto model = opscope::Model::load("bert.so");
//   auto session = model->createSession();
//   std::memcpy(session->input(0), ids, model->inputs()[0].bytes());
//   session->run();
//   const float *y = static_cast<const float *>(session->output(0));
//
// Errors (missing or mismatched files, ABI version, bad inputs) throw
// opscope::Error with a message naming the file, tensor or op.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_MODEL_H
#define OPSCOPE_RUNTIME_MODEL_H

#include "opscope/runtime/generic.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace opscope {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct TensorInfo {
  std::string name;
  rt::DType dtype = rt::DType::F32;
  rt::Shape shape;
  /// An output whose size along this axis is known only after a run
  /// (docs/architecture.md, "Data-dependent output shapes"): `shape` is its
  /// static bound, Session::outputShape the shape of the last run (a probed
  /// op's output: ProbeEvent::extent the size in each execution). -1: none.
  int64_t extentAxis = -1;
  int64_t elements() const { return rt::numElements(shape); }
  size_t bytes() const { return elements() * rt::dtypeSize(dtype); }
  /// `1x128xi64`-style description for messages.
  std::string describe() const;
};

/// Static facts about one probe, joined to timings at report time.
struct ProbeInfo {
  int64_t id = 0;
  int64_t op = -1; ///< index of the probed op in the plan
  std::string name, type, kernel;
  /// Why the compiler chose the kernel (dense or sparse) and the tuning
  /// database entry that decided; "" where it made no such choice.
  std::string kernelChoice;
  std::vector<std::string> postOps, sourceNodes;
  std::vector<TensorInfo> inputs, outputs;
  rt::Shape weightShape;
  double weightSparsity = -1; ///< < 0 when the op has no constant weight
  /// Fraction of all-zero blocks of `sparseBlock` (e.g. "1x4") in the
  /// weight; < 0 when no sparse kernel exists for the op.
  double blockSparsity = -1;
  std::string sparseBlock;
  bool sparseSupport = false;
  double flops = 0, bytes = 0;
  /// What the op computes in (fp32, bf16, int8) and, for int8, the u8
  /// quantization of its input (scale < 0: none) and, inside an int8 chain,
  /// of its u8 output (the consumer's; scale < 0: an f32 output).
  std::string precision = "fp32";
  double inputScale = -1;
  int64_t inputZeroPoint = 0;
  double outputScale = -1;
  int64_t outputZeroPoint = 0;
  /// Arena bytes live while the op runs (planned at compile time); < 0 for
  /// models compiled before the plan recorded it.
  int64_t liveBytes = -1;
  /// Arena offset of the i64 run-time extent of the op's bounded outputs
  /// (those with TensorInfo::extentAxis >= 0), which the probe's end reads
  /// into ProbeEvent::extent; -1 when the op has none.
  int64_t extentOffset = -1;
};

/// One step of start-up (loading, mapping the weights, creating kernels,
/// the first run), in Profiler::now() time. `op` >= 0 marks the creation of
/// that op's kernel (a child of "create kernels").
struct StartupSpan {
  std::string name;
  int64_t begin = 0, end = 0;
  int64_t op = -1;
};

class Session;

class Model {
public:
  /// Loads `soPath` and its weights (default: the same path with `.weights`).
  static std::unique_ptr<Model> load(const std::string &soPath,
                                     const std::string &weightsPath = "");
  /// The loader without a library: a model from its plan (the JSON text a
  /// compiled model embeds) and its weights file, checked as load() checks
  /// them. Its sessions bind kernels but cannot run (there is no compiled
  /// schedule): for the plan/weights fuzz harness and tests.
  static std::unique_ptr<Model> fromPlan(const std::string &planText,
                                         const std::string &weightsPath);
  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  const std::string &name() const;
  const std::string &path() const;
  /// The mapped `.weights` file (shared by every session, and by every
  /// process that maps it).
  const std::string &weightsPath() const;
  const std::vector<TensorInfo> &inputs() const;
  const std::vector<TensorInfo> &outputs() const;
  /// Index of the input/output called `name`, or -1.
  int inputIndex(const std::string &name) const;
  int outputIndex(const std::string &name) const;
  const std::vector<ProbeInfo> &probes() const;
  /// Control flow decided at run time (osc.if, osc.loop), by the index
  /// ProbeEvent::control carries.
  struct ControlInfo {
    std::string kind; ///< "if" or "loop"
    std::string name; ///< the ONNX node (`/If`, `vad/Loop`)
  };
  const std::vector<ControlInfo> &controls() const;
  int64_t arenaBytes() const;
  int64_t weightBytes() const;
  size_t numOps() const;
  /// The embedded plan (JSON text), for tools that print it.
  const std::string &planText() const;
  /// The tier the model was compiled for (cpu.h's level names: "avx2",
  /// "avx512_core_amx"); "" for a plan that does not record it.
  const std::string &targetTier() const;
  /// The tuning database the compiler chose kernels from ("" when none:
  /// the threshold rule, or --kernels rules).
  const std::string &tuningDb() const;
  /// "" when the model was compiled for the tier this process runs, else
  /// a sentence naming both (the layouts and choices are the other's).
  std::string tierMismatch() const;
  /// Plan op `op`'s name (its first source node) and the arena bytes live
  /// while it runs (< 0: not recorded by the compiler).
  const std::string &opName(size_t op) const;
  int64_t opLiveBytes(size_t op) const;
  /// Parameters: elements of the floating-point constants the ops read
  /// (weights, biases, embedding tables), each tensor once.
  int64_t parameterCount() const;
  /// The operand of plan op `op` that is its 2-D floating-point constant
  /// weight (an inner product's N x K), or -1.
  int weightOperand(size_t op) const;
  /// For an integer model input that a gather uses directly as indices
  /// into a constant table (token ids into an embedding): the table's size
  /// along the gathered axis, the smallest over such gathers. -1 otherwise.
  /// Random sample inputs draw such an input from the table's rows: ids
  /// drawn from [0, 2) make every sample nearly the same sentence.
  int64_t indexBound(size_t input) const;
  /// Constant weights packed into kernel layouts (oneDNN's blocked ones),
  /// shared by this model's sessions: how many tensors were packed, and how
  /// many times a later session took a packed tensor instead of packing it
  /// again (packed_weights.h).
  struct PackedWeightStats {
    size_t tensors = 0;
    int64_t reused = 0;
  };
  PackedWeightStats packedWeightStats() const;
  /// Start-up of the model: "load" (library and plan) and "map weights"
  /// (mmap and checksum).
  const std::vector<StartupSpan> &startup() const;

  /// Creates an instance: arena, kernels, probe buffer of `probeCapacity`
  /// events (0: the default, 1M events).
  std::unique_ptr<Session> createSession(size_t probeCapacity = 0) const;

  struct Impl;

private:
  Model();
  std::unique_ptr<Impl> impl;
  friend class Session;
};

/// One recorded probe execution or labelled span. Times are ns since the
/// session's profiler epoch.
struct ProbeEvent {
  /// `probe` values of events that are not op executions.
  static constexpr int32_t kLabelSpan = -1, kIteration = -2, kControl = -3;
  int64_t begin = 0, end = 0;
  int32_t probe = 0;   ///< probe id, kLabelSpan, kIteration or kControl
  int32_t label = -1;  ///< index into Profiler::labels(), -1 for none
  int32_t thread = 0;  ///< small dense id of the recording thread
  int32_t iteration = 0;
  /// Op events: the innermost loop running (its index in Model::controls())
  /// and its iteration, -1 outside loops. kControl events: the control op,
  /// and the branch an If took (1 then, 0 else) or a loop's iteration.
  int32_t control = -1, step = -1;
  /// Op events of an op with bounded outputs (ProbeInfo::extentOffset):
  /// the run-time extent this execution produced along each bounded
  /// output's extent axis. -1 otherwise.
  int64_t extent = -1;
};

/// The probe sink of one session: a preallocated buffer, no locks.
class Profiler {
public:
  /// Starts recording (probes of a probed model and spans).
  void enable(bool on);
  bool enabled() const { return on; }
  /// The iteration recorded with every event; Session::run records one
  /// iteration span per run while enabled and then increments it.
  void setIteration(int32_t i) { iteration = i; }
  int32_t currentIteration() const { return iteration; }
  /// Thread id recorded with events (set by Session::run).
  int32_t threadId() const { return thread; }

  /// A labelled span: records [construction, destruction) when enabled, and
  /// labels every probe event recorded inside it.
  class Span {
  public:
    Span(Profiler &p, const std::string &label);
    ~Span();
    Span(const Span &) = delete;
    Span &operator=(const Span &) = delete;

  private:
    Profiler &p;
    int32_t label, outer;
    int64_t begin;
  };
  Span record(const std::string &label) { return Span(*this, label); }

  const std::vector<ProbeEvent> &events() const { return buffer; }
  /// Labels, by the index events carry.
  const std::vector<std::string> &labels() const { return labelNames; }
  /// Events that did not fit in the buffer.
  int64_t dropped() const { return droppedCount; }
  void clear();

  // Hot path, called by the compiled model through the ABI.
  void begin(int32_t probe) { starts[probe] = now(); }
  /// An op without a bounded output pays one untaken branch for its extent.
  void end(int32_t probe) {
    int64_t t = now();
    const int64_t *x = extents[probe];
    push(starts[probe], t, probe, x ? *x : -1);
  }
  void push(int64_t b, int64_t e, int32_t probe, int64_t extent = -1) {
    if (buffer.size() == buffer.capacity()) {
      ++droppedCount;
      return;
    }
    buffer.push_back({b, e, probe, label, thread, iteration, loopControl,
                      loopIteration, extent});
  }

  // Control flow, called by the runtime's control steps.
  void enterLoop(int32_t control) {
    loops.push_back({loopControl, loopIteration});
    loopControl = control;
    loopIteration = -1;
  }
  void setLoopIteration(int32_t i) { loopIteration = i; }
  void exitLoop() {
    loopControl = loops.back().first;
    loopIteration = loops.back().second;
    loops.pop_back();
  }
  /// A kControl event: an If's branch or one loop iteration.
  void pushControl(int64_t b, int64_t e, int32_t control, int32_t value) {
    if (buffer.size() == buffer.capacity()) {
      ++droppedCount;
      return;
    }
    buffer.push_back({b, e, ProbeEvent::kControl, label, thread, iteration,
                      control, value});
  }

  /// The timestamp source: TSC scaled to ns when the TSC is invariant,
  /// CLOCK_MONOTONIC otherwise (see docs/trace-format.md).
  static int64_t now();
  /// The name of the source in use ("tsc" or "clock_monotonic").
  static const char *clockName();
  /// Measured cost of one begin/end pair in ns (median of repeated runs).
  static double probeCostNs();

private:
  friend class Session;
  friend class Model;
  void reset(size_t numProbes, size_t capacity);
  bool on = false;
  int32_t iteration = 0, label = -1, thread = 0;
  int32_t loopControl = -1, loopIteration = -1;
  std::vector<std::pair<int32_t, int32_t>> loops; // enclosing loops' state
  std::vector<int64_t> starts;
  /// Per probe: its op's run-time extent in the session's arena, or null.
  std::vector<const int64_t *> extents;
  std::vector<ProbeEvent> buffer;
  std::vector<std::string> labelNames;
  int64_t droppedCount = 0;
};

/// Hears of every session's creation and destruction. This is how code
/// outside the model loader takes part in a session's life without the
/// loader knowing it: OPSCOPE_PROFILE's trace writer (sinks) is one, an
/// embedding application's own recorder can be another.
class SessionObserver {
public:
  virtual ~SessionObserver() = default;
  /// The session is ready to run (kernels built, profiler sized).
  virtual void sessionCreated(Session &session) {}
  /// The session is about to be destroyed; it can still be read.
  virtual void sessionDestroyed(const Session &session) {}
};
/// Registers an observer (not owned) for sessions created from now on, in
/// every model of the process; thread-safe.
void addSessionObserver(SessionObserver *observer);
void removeSessionObserver(SessionObserver *observer);

class Session {
public:
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  const Model &model() const;
  /// Arena buffers of the inputs and outputs: write inputs, run, read
  /// outputs (valid until the next run).
  void *input(size_t i);
  const void *output(size_t i) const;
  /// The shape of output `i` after the last run: its TensorInfo's shape,
  /// except along an extentAxis, where it is the extent the run produced.
  /// output(i) then holds exactly that many elements, row-major.
  rt::Shape outputShape(size_t i) const;
  /// Runs once. Probes record when the profiler is enabled.
  void run();
  Profiler &profiler();
  const Profiler &profiler() const;
  /// oneDNN implementation or opscope kernel name of each op.
  const std::vector<std::string> &kernelNames() const;
  /// Start-up of this session: "create kernels" (arena, kernels and packed
  /// weights), one span per op's kernel inside it, and "first run" once the
  /// session has run (profiled or not).
  const std::vector<StartupSpan> &startup() const;

  /// Calls `fn(op)` just before op `op` (an index into the plan's ops, as
  /// ProbeInfo::op) runs, on the thread running the session; an empty
  /// function removes it. For observers that read activations (int8
  /// calibration, `opscope-run --calibrate`); costs one branch per op when
  /// unset.
  void setBeforeOp(std::function<void(size_t op)> fn);
  /// The buffer of operand `i` of op `op` (valid during the run), or
  /// nullptr when the op has no such operand; `info` receives its element
  /// type and shape.
  const void *operand(size_t op, size_t i, TensorInfo *info = nullptr) const;

  /// Gives this session a private copy of op `op`'s constant operand `i`
  /// (`bytes` bytes of its element type and shape) and rebuilds only that
  /// op's kernel on it: the model's mapped weights, its shared packed
  /// weights and every other session stay as they are. This is how
  /// opscope-profile measures one layer pruned without recompiling.
  /// Throws Error when the operand is not a constant of the model or the
  /// size differs.
  void overrideWeight(size_t op, size_t i, const void *data, size_t bytes);
  /// Drops every override: those ops take the model's weights again.
  void clearWeightOverrides();

  struct Impl;

private:
  friend class Model;
  Session();
  std::unique_ptr<Impl> impl;
};

} // namespace opscope

#endif // OPSCOPE_RUNTIME_MODEL_H
