//===- Session.cpp - sessions of a compiled model, the ABI entry points ---===//
//
// Part of opscope's runtime. A session allocates one 64-byte aligned arena
// and binds one kernel per op of its model's plan; the compiled
// `opscope_model_run` then calls back into `opscope_rt_exec` for each op in
// order, and into the probe and control entry points.
//
//===----------------------------------------------------------------------===//

#include "ModelImpl.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>

#include <sys/mman.h>

using namespace opscope;
using namespace opscope::rt;

namespace {
/// The registered session observers (model.h).
struct Observers {
  std::mutex mu;
  std::vector<SessionObserver *> list;
  /// Never destroyed: observers may unregister during static destruction.
  static Observers &get() {
    static Observers *o = new Observers();
    return *o;
  }
  std::vector<SessionObserver *> snapshot() {
    std::lock_guard<std::mutex> lock(mu);
    return list;
  }
};
} // namespace

void opscope::addSessionObserver(SessionObserver *observer) {
  Observers &o = Observers::get();
  std::lock_guard<std::mutex> lock(o.mu);
  o.list.push_back(observer);
}

void opscope::removeSessionObserver(SessionObserver *observer) {
  Observers &o = Observers::get();
  std::lock_guard<std::mutex> lock(o.mu);
  o.list.erase(std::remove(o.list.begin(), o.list.end(), observer),
               o.list.end());
}

/// The per-session state compiled code receives as its context.
struct opscope_rt_context {
  std::vector<BoundKernel> kernels;
  std::vector<BoundControl> controls;
  Profiler *profiler = nullptr;
  /// First error a kernel reported during the current run.
  std::string error;
  /// Session::setBeforeOp's observer.
  std::function<void(size_t)> beforeOp;
};

extern "C" void opscope_rt_exec(opscope_rt_context *ctx, int32_t op) {
  if (!ctx->error.empty())
    return;
  if (ctx->beforeOp)
    ctx->beforeOp(static_cast<size_t>(op));
  std::string err = ctx->kernels[op]();
  if (!err.empty())
    ctx->error = std::move(err);
}

extern "C" int32_t opscope_rt_control(opscope_rt_context *ctx,
                                      int32_t control, int32_t step) {
  // After a kernel failed, loops stop (the remaining calls do nothing).
  if (!ctx->error.empty() && step == OPSCOPE_CONTROL_LOOP_TEST)
    return 0;
  return ctx->controls[control](step);
}

extern "C" void opscope_rt_probe_begin(opscope_rt_context *ctx,
                                       int32_t probe) {
  ctx->profiler->begin(probe);
}

extern "C" void opscope_rt_probe_end(opscope_rt_context *ctx, int32_t probe) {
  ctx->profiler->end(probe);
}

//===----------------------------------------------------------------------===//
// Sessions
//===----------------------------------------------------------------------===//

namespace {
int32_t threadId() {
  static std::atomic<int32_t> next{0};
  thread_local int32_t id = next++;
  return id;
}
} // namespace

struct Session::Impl {
  const Model *model = nullptr;
  uint8_t *arena = nullptr;
  opscope_rt_context ctx;
  Profiler profiler;
  std::vector<std::string> kernelNames;
  std::vector<StartupSpan> startup;
  bool ran = false;
  /// overrideWeight's private copies: op -> weight offset -> bytes.
  std::map<size_t, std::map<int64_t, std::vector<uint8_t>>> overrides;
  /// Outputs with a run-time extent: their shape after the last run, and
  /// (when the extent is not on the outermost axis, so the valid entries
  /// are not contiguous in the bound's layout) a compact copy.
  std::vector<Shape> outputShapes;
  std::vector<std::vector<uint8_t>> compacted;
  void settleExtents();
  ~Impl() { std::free(arena); }
};

Session::Session() : impl(std::make_unique<Impl>()) {}

Session::~Session() {
  for (SessionObserver *o : Observers::get().snapshot())
    o->sessionDestroyed(*this);
}

std::unique_ptr<Session> Model::createSession(size_t probeCapacity) const {
  std::unique_ptr<Session> s(new Session());
  Session::Impl &S = *s->impl;
  S.model = this;
  int64_t createBegin = Profiler::now();
  size_t bytes = (std::max<int64_t>(impl->arenaBytes, 64) + 63) / 64 * 64;
  // From 2 MiB up the arena is 2 MiB aligned and advised to transparent
  // huge pages (Linux's `madvise` mode): IS-Net-dynq's 348 MiB arena took
  // 89000 of the 178000 page faults of opscope-run's one-inference run
  // (4.55 s; 3.80 s with huge pages, on a 2-vCPU Zen 5 VM). Advice only: a
  // refusal changes nothing.
  constexpr size_t kHuge = size_t(2) << 20;
  bool huge = bytes >= kHuge;
  size_t allocated = huge ? (bytes + kHuge - 1) / kHuge * kHuge : bytes;
  S.arena = static_cast<uint8_t *>(
      std::aligned_alloc(huge ? kHuge : 64, allocated));
  if (!S.arena)
    throw Error("cannot allocate the " + std::to_string(bytes) +
                "-byte activation arena");
#if defined(MADV_HUGEPAGE)
  if (huge)
    madvise(S.arena, bytes, MADV_HUGEPAGE);
#endif
  std::memset(S.arena, 0, bytes);
  // Splat constants, before any kernel (some pack their weights at init).
  for (const Impl::Splat &splat : impl->splats) {
    uint8_t *dst = S.arena + splat.buffer.offset;
    size_t total = splat.buffer.bytes(), elem = dtypeSize(splat.buffer.dtype);
    if (total == 0)
      continue;
    std::memcpy(dst, impl->weights + splat.valueOffset, elem);
    for (size_t done = elem; done < total;) { // doubling copies
      size_t n = std::min(done, total - done);
      std::memcpy(dst + done, dst, n);
      done += n;
    }
  }
  Buffers buffers{S.arena, impl->weights};
  PackedWeightScope sharing(impl->packed.get());
  S.startup.push_back({"create kernels", createBegin, 0});
  for (const OpDesc &op : impl->ops) {
    std::string kernel;
    int64_t t0 = Profiler::now();
    S.ctx.kernels.push_back(makeKernel(op, buffers, kernel));
    S.startup.push_back({op.name, t0, Profiler::now(), op.index});
    S.kernelNames.push_back(kernel);
  }
  for (size_t c = 0; c < impl->controlOps.size(); ++c)
    S.ctx.controls.push_back(makeControl(impl->controlOps[c],
                                         static_cast<int32_t>(c), buffers,
                                         S.profiler));
  S.startup.front().end = Profiler::now();
  S.ctx.profiler = &S.profiler;
  S.profiler.reset(impl->probes.size(),
                   probeCapacity ? probeCapacity : size_t(1) << 20);
  // Probe ids are the probes' indices (dense, in execution order).
  for (size_t i = 0; i < impl->probes.size(); ++i)
    if (impl->probes[i].extentOffset >= 0)
      S.profiler.extents[i] = reinterpret_cast<const int64_t *>(
          S.arena + impl->probes[i].extentOffset);
  for (SessionObserver *o : Observers::get().snapshot())
    o->sessionCreated(*s);
  return s;
}

const Model &Session::model() const { return *impl->model; }

void *Session::input(size_t i) {
  return impl->arena + impl->model->impl->inputOffsets.at(i);
}

const void *Session::output(size_t i) const {
  const BufferRef &r = impl->model->impl->outputRefs.at(i);
  if (i < impl->compacted.size() && !impl->compacted[i].empty())
    return impl->compacted[i].data();
  return Buffers{impl->arena, impl->model->impl->weights}.ptr(r);
}

rt::Shape Session::outputShape(size_t i) const {
  if (i < impl->outputShapes.size())
    return impl->outputShapes[i];
  return impl->model->impl->outputs.at(i).shape;
}

/// After a run: each output's extent, read from its buffer (clamped to the
/// bound: a kernel never writes more), and the compact copy of an output
/// whose extent axis is not the outermost (the bound's layout leaves gaps
/// after each row's valid prefix).
void Session::Impl::settleExtents() {
  const Model::Impl &M = *model->impl;
  outputShapes.resize(M.outputs.size());
  compacted.resize(M.outputs.size());
  Buffers buffers{arena, M.weights};
  for (size_t i = 0; i < M.outputs.size(); ++i) {
    const TensorInfo &info = M.outputs[i];
    outputShapes[i] = info.shape;
    compacted[i].clear();
    if (info.extentAxis < 0)
      continue;
    int64_t axis = info.extentAxis, bound = info.shape[axis];
    int64_t n = *static_cast<const int64_t *>(buffers.ptr(M.outputExtents[i]));
    n = std::clamp<int64_t>(n, 0, bound);
    outputShapes[i][axis] = n;
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= info.shape[d];
    if (outer == 1 || n == bound)
      continue;
    size_t row = rt::numElements(info.shape) / std::max<int64_t>(outer, 1) /
                 std::max<int64_t>(bound, 1) * rt::dtypeSize(info.dtype);
    const uint8_t *src =
        static_cast<const uint8_t *>(buffers.ptr(M.outputRefs[i]));
    // A non-empty copy marks it compacted, even when it holds no elements.
    compacted[i].resize(std::max<size_t>(outer * n * row, 1));
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(compacted[i].data() + o * n * row, src + o * bound * row,
                  n * row);
  }
}

void Session::run() {
  if (!impl->model->impl->run)
    throw Error("this model has no compiled schedule (Model::fromPlan)");
  impl->ctx.error.clear();
  Profiler &p = impl->profiler;
  p.thread = threadId();
  int64_t t0 = impl->ran ? 0 : Profiler::now();
  if (!p.enabled()) {
    impl->model->impl->run(&impl->ctx, 0);
  } else {
    t0 = Profiler::now();
    impl->model->impl->run(&impl->ctx, 1);
    p.push(t0, Profiler::now(), ProbeEvent::kIteration);
    p.setIteration(p.currentIteration() + 1);
  }
  if (!impl->ran) {
    impl->ran = true;
    impl->startup.push_back({"first run", t0, Profiler::now()});
  }
  if (!impl->ctx.error.empty())
    throw Error(impl->ctx.error);
  impl->settleExtents();
}

Profiler &Session::profiler() { return impl->profiler; }
const Profiler &Session::profiler() const { return impl->profiler; }

const std::vector<std::string> &Session::kernelNames() const {
  return impl->kernelNames;
}

const std::vector<StartupSpan> &Session::startup() const {
  return impl->startup;
}

void Session::setBeforeOp(std::function<void(size_t)> fn) {
  impl->ctx.beforeOp = std::move(fn);
}

const void *Session::operand(size_t op, size_t i, TensorInfo *info) const {
  const auto &ops = impl->model->impl->ops;
  if (op >= ops.size() || i >= ops[op].operands.size())
    return nullptr;
  const BufferRef &r = ops[op].operands[i];
  if (r.kind == BufferRef::None)
    return nullptr;
  if (info) {
    info->name.clear();
    info->dtype = r.dtype;
    info->shape = r.shape;
  }
  return Buffers{impl->arena, impl->model->impl->weights}.ptr(r);
}

void Session::overrideWeight(size_t op, size_t i, const void *data,
                             size_t bytes) {
  const Model::Impl &M = *impl->model->impl;
  if (op >= M.ops.size() || i >= M.ops[op].operands.size())
    throw Error("overrideWeight: op #" + std::to_string(op) +
                " has no operand " + std::to_string(i));
  const OpDesc &desc = M.ops[op];
  const BufferRef &r = desc.operands[i];
  if (r.kind != BufferRef::Weight)
    throw Error("overrideWeight: operand " + std::to_string(i) + " of op '" +
                desc.name + "' is not a constant of the model");
  if (bytes != r.bytes())
    throw Error("overrideWeight: operand " + std::to_string(i) + " of op '" +
                desc.name + "' holds " + std::to_string(r.bytes()) +
                " bytes, not " + std::to_string(bytes));
  auto &mine = impl->overrides[op];
  auto &copy = mine[r.offset];
  copy.assign(static_cast<const uint8_t *>(data),
              static_cast<const uint8_t *>(data) + bytes);
  // Without the model's packed-weight scope: the kernel packs the private
  // copy for this session only.
  Buffers buffers{impl->arena, M.weights, &mine};
  impl->ctx.kernels[op] = makeKernel(desc, buffers, impl->kernelNames[op]);
}

void Session::clearWeightOverrides() {
  Model::Impl &M = *impl->model->impl;
  PackedWeightScope sharing(M.packed.get());
  Buffers buffers{impl->arena, M.weights};
  for (auto &[op, copies] : impl->overrides)
    impl->ctx.kernels[op] =
        makeKernel(M.ops[op], buffers, impl->kernelNames[op]);
  impl->overrides.clear();
}
