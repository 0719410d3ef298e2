//===- Model.cpp - load compiled models ---------------------------------===//
//
// Part of opscope's runtime. A compiled model is dlopen'ed, its ABI version
// checked, its embedded plan parsed and its `.weights` file mmapped after
// checking size and id. Its sessions are Session.cpp's.
//
//===----------------------------------------------------------------------===//

#include "ModelImpl.h"

#include "opscope/runtime/sinks.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// XXH3-64, header-only: the .weights body checksum (the compiler's writer
// uses the same).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

using namespace opscope;
using namespace opscope::rt;
using json = nlohmann::json;

//===----------------------------------------------------------------------===//
// Plan parsing
//===----------------------------------------------------------------------===//

static Shape shapeOf(const json &j) {
  Shape s;
  for (const json &d : j)
    s.push_back(d.get<int64_t>());
  return s;
}

static DType dtypeOf(const json &j) {
  std::string name = j.get<std::string>();
  auto t = parseDType(name);
  if (!t)
    throw Error("unknown element type '" + name + "' in the model plan");
  return *t;
}

BufferRef opscope::rt::parseBufferRef(const json &j) {
  BufferRef r;
  std::string mem = j.at("mem").get<std::string>();
  if (mem == "none")
    return r;
  r.kind = mem == "arena" ? BufferRef::Arena : BufferRef::Weight;
  if (mem != "arena" && mem != "weight")
    throw Error("unknown buffer kind '" + mem + "' in the model plan");
  r.offset = j.at("offset").get<int64_t>();
  r.dtype = dtypeOf(j.at("dtype"));
  r.shape = shapeOf(j.at("shape"));
  return r;
}

std::string TensorInfo::describe() const {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + dtypeName(dtype);
}

namespace {
/// Header of a `.weights` file (64 bytes; blobs follow, 64-byte aligned).
struct WeightsHeader {
  char magic[8];
  uint64_t id;
  uint64_t fileBytes;
  /// XXH3-64 of every byte after the header.
  uint64_t checksum;
  uint8_t reserved[32];
};
static_assert(sizeof(WeightsHeader) == 64, "weights header is 64 bytes");
constexpr char kWeightsMagic[8] = {'O', 'S', 'C', 'W', 'G', 'H', 'T', '1'};

std::vector<std::string> stringList(const json &j) {
  std::vector<std::string> v;
  for (const json &s : j)
    v.push_back(s.get<std::string>());
  return v;
}

TensorInfo tensorInfo(const json &j) {
  TensorInfo t;
  t.name = j.value("name", "");
  t.dtype = dtypeOf(j.at("dtype"));
  t.shape = shapeOf(j.at("shape"));
  return t;
}
} // namespace

Model::Impl::~Impl() {
  if (weights)
    munmap(const_cast<uint8_t *>(weights), weightsMapped);
  if (handle)
    dlclose(handle);
}

void Model::Impl::parsePlan(const char *text) {
  planText = text;
  // Offsets and shapes are read as int64: a number beyond that range would
  // be undefined behaviour to convert, and no plan field is that large.
  json::parser_callback_t inRange = [](int, json::parse_event_t event,
                                       json &parsed) {
    if (event == json::parse_event_t::value && parsed.is_number_float() &&
        !(std::fabs(parsed.get<double>()) < 9.2e18))
      throw Error("a number in the model plan is out of range (" +
                  parsed.dump() + ")");
    return true;
  };
  json plan = json::parse(planText, inRange);
  name = plan.value("model", "model");
  targetTier = plan.value("target_tier", "");
  tuningDb = plan.value("tuning_db", "");
  arenaBytes = plan.at("arena_bytes").get<int64_t>();
  for (const json &in : plan.at("inputs")) {
    inputs.push_back(tensorInfo(in));
    inputOffsets.push_back(in.at("offset").get<int64_t>());
  }
  for (const json &out : plan.at("outputs")) {
    outputs.push_back(tensorInfo(out));
    outputRefs.push_back(parseBufferRef(out.at("buffer")));
    outputExtents.emplace_back();
    if (out.contains("extent")) {
      const json &e = out.at("extent");
      outputExtents.back() = parseBufferRef(e.at("buffer"));
      int64_t axis = e.at("axis").get<int64_t>();
      if (axis < 0 || axis >= static_cast<int64_t>(outputs.back().shape.size()) ||
          outputExtents.back().dtype != rt::DType::I64 ||
          outputExtents.back().elements() != 1)
        throw Error("output '" + outputs.back().name +
                    "' has a malformed run-time extent in the model plan");
      outputs.back().extentAxis = axis;
    }
  }
  int64_t index = 0;
  for (const json &o : plan.at("ops")) {
    OpDesc op;
    op.index = index++;
    op.name = o.value("name", "");
    std::string kind = o.at("kind").get<std::string>();
    auto k = parseKind<OpKind>(kind);
    if (!k)
      throw Error("op #" + std::to_string(op.index) + " '" + op.name +
                  "': unknown op kind '" + kind +
                  "' in the model plan (compiled by another opscope version?)");
    op.kind = *k;
    for (const json &r : o.at("operands"))
      op.operands.push_back(parseBufferRef(r));
    for (const json &r : o.at("results"))
      op.results.push_back(parseBufferRef(r));
    op.attrs = o.value("attrs", json::object());
    opLiveBytes.push_back(o.value("live_bytes", int64_t(-1)));
    ops.push_back(std::move(op));
  }
  for (const json &c : plan.value("controls", json::array())) {
    controlOps.push_back(parseControl(c));
    controls.push_back({c.at("kind").get<std::string>(), controlOps.back().name});
  }
  for (const json &s : plan.value("splats", json::array())) {
    Splat splat;
    splat.buffer = parseBufferRef(s.at("buffer"));
    splat.valueOffset = s.at("value_offset").get<int64_t>();
    splats.push_back(std::move(splat));
  }
  for (const json &p : plan.value("probes", json::array())) {
    ProbeInfo info;
    info.id = p.at("id").get<int64_t>();
    info.op = p.value("op", int64_t(-1));
    info.name = p.value("name", "");
    info.type = p.value("type", "");
    info.kernel = p.value("kernel", "");
    info.kernelChoice = p.value("kernel_choice", "");
    info.postOps = stringList(p.value("post_ops", json::array()));
    info.sourceNodes = stringList(p.value("source_nodes", json::array()));
    for (const json &t : p.value("inputs", json::array()))
      info.inputs.push_back(tensorInfo(t));
    for (const json &t : p.value("outputs", json::array())) {
      info.outputs.push_back(tensorInfo(t));
      int64_t axis = t.value("extent_axis", int64_t(-1));
      if (axis < -1 ||
          axis >= static_cast<int64_t>(info.outputs.back().shape.size()))
        throw Error("probe '" + info.name + "' output '" +
                    info.outputs.back().name +
                    "' has a malformed extent axis in the model plan");
      info.outputs.back().extentAxis = axis;
    }
    // The run-time extent of the op's bounded outputs, read at the probe's
    // end (checkBuffers checks that it lies in the arena).
    if (auto e = p.find("extent"); e != p.end()) {
      BufferRef r = parseBufferRef(e->at("buffer"));
      if (r.kind != BufferRef::Arena || r.dtype != rt::DType::I64 ||
          r.elements() != 1)
        throw Error("probe '" + info.name +
                    "' has a malformed run-time extent in the model plan");
      probeExtents.push_back(r);
      info.extentOffset = r.offset;
    } else {
      probeExtents.emplace_back();
    }
    // Bounded outputs and the extent buffer come together: an event of a
    // probe with one but not the other could not be reported.
    bool bounded = std::any_of(info.outputs.begin(), info.outputs.end(),
                               [](const TensorInfo &t) { return t.extentAxis >= 0; });
    if (bounded != (info.extentOffset >= 0))
      throw Error("probe '" + info.name + "' has " +
                  (bounded ? "bounded outputs without a run-time extent"
                           : "a run-time extent without a bounded output") +
                  " in the model plan");
    info.weightShape = shapeOf(p.value("weight_shape", json::array()));
    // Null when the op has no constant weight (or it is unreadable).
    auto sparsity = p.find("weight_sparsity");
    info.weightSparsity = sparsity == p.end() || sparsity->is_null()
                              ? -1.0
                              : sparsity->get<double>();
    info.sparseSupport = p.value("sparse_support", false);
    auto blocks = p.find("block_sparsity");
    info.blockSparsity = blocks == p.end() || blocks->is_null()
                             ? -1.0
                             : blocks->get<double>();
    auto block = p.find("sparse_block");
    if (block != p.end() && block->is_string())
      info.sparseBlock = block->get<std::string>();
    info.flops = p.value("flops", 0.0);
    info.bytes = p.value("bytes", 0.0);
    info.liveBytes = p.value("live_bytes", int64_t(-1));
    if (auto prec = p.find("precision"); prec != p.end() && prec->is_string())
      info.precision = prec->get<std::string>();
    if (auto sc = p.find("input_scale"); sc != p.end() && sc->is_number())
      info.inputScale = sc->get<double>();
    if (auto zp = p.find("input_zero_point"); zp != p.end() && zp->is_number())
      info.inputZeroPoint = static_cast<int64_t>(zp->get<double>());
    if (auto sc = p.find("output_scale"); sc != p.end() && sc->is_number())
      info.outputScale = sc->get<double>();
    if (auto zp = p.find("output_zero_point"); zp != p.end() && zp->is_number())
      info.outputZeroPoint = static_cast<int64_t>(zp->get<double>());
    probes.push_back(std::move(info));
  }
  const json &w = plan.at("weights");
  weightBytes = w.at("file_bytes").get<int64_t>();
  weightsId = std::stoull(w.at("id").get<std::string>(), nullptr, 16);
  checkBuffers();
}

/// Every planned buffer lies inside the arena or the weights file, with an
/// element and byte count that does not overflow: kernels are bound to
/// these offsets, so a plan that says otherwise is refused at load instead
/// of writing outside the arena.
void Model::Impl::checkBuffers() const {
  if (arenaBytes < 0 || weightBytes < 0)
    throw Error("the model plan has a negative arena or weights size");
  auto check = [&](const BufferRef &r, const std::string &what) {
    if (r.kind == BufferRef::None)
      return;
    int64_t elems = 1, bytes = 0, end = 0;
    for (int64_t d : r.shape)
      if (d < 0 || __builtin_mul_overflow(elems, d, &elems))
        throw Error(what + ": shape overflows or is negative in the model plan");
    if (__builtin_mul_overflow(elems, static_cast<int64_t>(dtypeSize(r.dtype)),
                               &bytes) ||
        r.offset < 0 || __builtin_add_overflow(r.offset, bytes, &end))
      throw Error(what + ": buffer size overflows in the model plan");
    int64_t limit = r.kind == BufferRef::Arena ? arenaBytes : weightBytes;
    if (end > limit)
      throw Error(what + ": buffer [" + std::to_string(r.offset) + ", " +
                  std::to_string(end) + ") lies outside the " +
                  (r.kind == BufferRef::Arena ? "arena" : "weights file") +
                  " (" + std::to_string(limit) + " bytes)");
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    BufferRef r;
    r.kind = BufferRef::Arena;
    r.offset = inputOffsets[i];
    r.dtype = inputs[i].dtype;
    r.shape = inputs[i].shape;
    check(r, "input '" + inputs[i].name + "'");
  }
  for (size_t i = 0; i < outputRefs.size(); ++i) {
    check(outputRefs[i], "output '" + outputs[i].name + "'");
    if (outputExtents[i].kind != BufferRef::None)
      check(outputExtents[i], "extent of output '" + outputs[i].name + "'");
  }
  for (size_t i = 0; i < probeExtents.size(); ++i)
    check(probeExtents[i], "extent of probe '" + probes[i].name + "'");
  for (const OpDesc &op : ops) {
    std::string what = "op #" + std::to_string(op.index) + " '" + op.name + "'";
    for (const BufferRef &r : op.operands)
      check(r, what + " operand");
    for (const BufferRef &r : op.results)
      check(r, what + " result");
  }
  for (const ControlDesc &c : controlOps)
    for (const BufferRef *r : c.all())
      check(*r, "control '" + c.name + "'");
  for (size_t i = 0; i < splats.size(); ++i) {
    std::string what = "splat #" + std::to_string(i);
    const Splat &s = splats[i];
    if (s.buffer.kind != BufferRef::Arena)
      throw Error(what + ": a splat must be filled into the arena");
    check(s.buffer, what);
    BufferRef value;
    value.kind = BufferRef::Weight;
    value.offset = s.valueOffset;
    value.dtype = s.buffer.dtype;
    check(value, what + " value");
  }
}

void Model::Impl::mapWeights(const std::string &file, uint64_t id,
                             uint64_t bytes) {
  weightsPath = file;
  if (bytes < sizeof(WeightsHeader))
    throw Error(file + ": the model plan expects a weights file of " +
                std::to_string(bytes) + " bytes, smaller than its header");
  // A FIFO or device named .weights would block or never end.
  struct stat pre;
  if (::stat(file.c_str(), &pre) == 0 && !S_ISREG(pre.st_mode))
    throw Error(file + ": the model's weights are not a regular file");
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw Error(file + ": cannot open the model's weights: " +
                std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) != bytes) {
    ::close(fd);
    throw Error(file + ": weights file has " + std::to_string(st.st_size) +
                " bytes, the model expects " + std::to_string(bytes) +
                " (was it written by another compilation?)");
  }
  void *p = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED)
    throw Error(file + ": cannot map the weights: " + std::strerror(errno));
  weights = static_cast<const uint8_t *>(p);
  weightsMapped = bytes;
  packed = std::make_unique<PackedWeightCache>(weights, weightsMapped);
  WeightsHeader h;
  std::memcpy(&h, weights, sizeof(h));
  if (std::memcmp(h.magic, kWeightsMagic, 8) != 0)
    throw Error(file + ": not an opscope weights file (bad magic)");
  if (h.id != id || h.fileBytes != bytes)
    throw Error(file + ": weights belong to another compilation (id mismatch)");
  // The id says which compilation the file belongs to; the checksum that
  // its body is what that compilation wrote (a flipped bit in a weight
  // would otherwise go unnoticed). XXH3 reads ~10 GB/s: docs/security.md
  // has the cost on the largest corpus model.
  if (XXH3_64bits(weights + sizeof(h), bytes - sizeof(h)) != h.checksum)
    throw Error(file + ": the weights are corrupt (checksum mismatch): the "
                       "file changed after it was written; recompile the "
                       "model");
}

Model::Model() : impl(std::make_unique<Impl>()) {}
Model::~Model() = default;

namespace {
/// dlopen hands back a library already loaded under the same name without
/// looking at the file, so a model recompiled to the path of one still
/// loaded (a notebook's compile(..., output="m.so") run twice, with a
/// session of the first still open) would run the old code and probe table.
/// The file each name was loaded from is remembered; a name whose file has
/// changed since loads through a fresh name (a symlink in a private
/// directory), which glibc maps anew, since it matches loaded libraries by
/// name and then by device and inode (the compiler renames a new file into
/// place, so a recompiled one has a new inode).
std::mutex libraryMutex;
std::map<std::string, std::pair<dev_t, ino_t>> libraryFiles;

void *openLibrary(const std::string &path, const struct stat &st) {
  std::lock_guard<std::mutex> lock(libraryMutex);
  auto id = std::make_pair(st.st_dev, st.st_ino);
  bool stale = false;
  if (void *loaded = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
    auto it = libraryFiles.find(path);
    stale = it != libraryFiles.end() && it->second != id;
    dlclose(loaded);
  }
  if (!stale) {
    void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h)
      libraryFiles[path] = id;
    return h;
  }
  char dir[] = "/tmp/opscope-model-XXXXXX";
  if (!mkdtemp(dir))
    return nullptr;
  char *real = realpath(path.c_str(), nullptr);
  std::string link = std::string(dir) + "/model.so";
  void *h = nullptr;
  if (real && symlink(real, link.c_str()) == 0) {
    h = dlopen(link.c_str(), RTLD_NOW | RTLD_LOCAL);
    unlink(link.c_str());
  }
  std::free(real);
  rmdir(dir);
  return h;
}
} // namespace

std::unique_ptr<Model> Model::load(const std::string &soPath,
                                   const std::string &weightsPath) {
  std::unique_ptr<Model> m(new Model());
  Impl &I = *m->impl;
  I.path = soPath;
  int64_t loadBegin = Profiler::now();
  struct stat st;
  if (stat(soPath.c_str(), &st) != 0)
    throw Error(soPath + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw Error(soPath + ": not a regular file");
  // Resolve relative to the working directory: dlopen would search the
  // library path for names without a slash.
  std::string openPath =
      soPath.find('/') == std::string::npos ? "./" + soPath : soPath;
  I.handle = openLibrary(openPath, st);
  if (!I.handle) {
    const char *why = dlerror();
    throw Error(soPath + ": cannot load the compiled model: " +
                (why ? why : "cannot give the recompiled library a new name "
                             "under /tmp"));
  }
  auto *version =
      static_cast<const int32_t *>(dlsym(I.handle, OPSCOPE_SYM_ABI_VERSION));
  if (!version)
    throw Error(soPath + ": not an opscope compiled model (no " +
                std::string(OPSCOPE_SYM_ABI_VERSION) + ")");
  if (*version != OPSCOPE_ABI_VERSION)
    throw Error(soPath + ": compiled for runtime ABI version " +
                std::to_string(*version) + ", this runtime implements " +
                std::to_string(OPSCOPE_ABI_VERSION) + "; recompile the model");
  auto *plan = static_cast<const char *>(dlsym(I.handle, OPSCOPE_SYM_PLAN));
  I.run = reinterpret_cast<opscope_model_run_fn>(
      dlsym(I.handle, OPSCOPE_SYM_RUN));
  if (!plan || !I.run)
    throw Error(soPath + ": compiled model lacks its plan or entry point");
  try {
    I.parsePlan(plan);
  } catch (const Error &e) {
    throw Error(soPath + ": " + e.what());
  } catch (const json::exception &e) {
    throw Error(soPath + ": corrupt model plan: " + e.what());
  } catch (const std::logic_error &e) { // stoull on a bad weights id
    throw Error(soPath + ": corrupt model plan: bad weights id");
  }
  std::string wPath = weightsPath;
  if (wPath.empty()) {
    wPath = soPath;
    size_t dot = wPath.rfind(".so");
    if (dot != std::string::npos && dot + 3 == wPath.size())
      wPath.resize(dot);
    wPath += ".weights";
  }
  int64_t mapBegin = Profiler::now();
  I.startup.push_back({"load", loadBegin, mapBegin});
  I.mapWeights(wPath, I.weightsId, I.weightBytes);
  I.startup.push_back({"map weights", mapBegin, Profiler::now()});
  return m;
}

std::unique_ptr<Model> Model::fromPlan(const std::string &planText,
                                       const std::string &weightsPath) {
  std::unique_ptr<Model> m(new Model());
  Impl &I = *m->impl;
  I.path = "<plan>";
  try {
    I.parsePlan(planText.c_str());
  } catch (const json::exception &e) {
    throw Error("corrupt model plan: " + std::string(e.what()));
  } catch (const std::logic_error &e) { // stoull on a bad weights id
    throw Error("corrupt model plan: bad weights id");
  }
  I.mapWeights(weightsPath, I.weightsId, I.weightBytes);
  return m;
}

const std::string &Model::name() const { return impl->name; }
const std::string &Model::path() const { return impl->path; }
const std::string &Model::weightsPath() const { return impl->weightsPath; }
const std::vector<TensorInfo> &Model::inputs() const { return impl->inputs; }
const std::vector<TensorInfo> &Model::outputs() const { return impl->outputs; }
const std::vector<ProbeInfo> &Model::probes() const { return impl->probes; }
const std::vector<Model::ControlInfo> &Model::controls() const {
  return impl->controls;
}
int64_t Model::arenaBytes() const { return impl->arenaBytes; }
int64_t Model::weightBytes() const { return impl->weightBytes; }
size_t Model::numOps() const { return impl->ops.size(); }
const std::string &Model::planText() const { return impl->planText; }
const std::string &Model::targetTier() const { return impl->targetTier; }
const std::string &Model::tuningDb() const { return impl->tuningDb; }
std::string Model::tierMismatch() const {
  std::string here = kernelIsaName();
  if (impl->targetTier.empty() || impl->targetTier == here)
    return "";
  return path() + " was compiled for tier " + impl->targetTier +
         ", and this process runs tier " + here +
         " (this CPU under OPSCOPE_MAX_ISA): its int8 weight range and "
         "sparse or dense choices are the other tier's, which can be "
         "slower here; compile it again on this machine (or under the same "
         "OPSCOPE_MAX_ISA) for this tier's";
}
const std::string &Model::opName(size_t op) const {
  return impl->ops.at(op).name;
}
int64_t Model::opLiveBytes(size_t op) const {
  return op < impl->opLiveBytes.size() ? impl->opLiveBytes[op] : -1;
}
int64_t Model::parameterCount() const {
  std::set<int64_t> seen;
  int64_t n = 0;
  for (const OpDesc &op : impl->ops)
    for (const BufferRef &r : op.operands)
      if (r.kind == BufferRef::Weight &&
          (r.dtype == DType::F32 || r.dtype == DType::BF16) &&
          seen.insert(r.offset).second)
        n += r.elements();
  return n;
}

int Model::weightOperand(size_t op) const {
  if (op >= impl->ops.size())
    return -1;
  const OpDesc &d = impl->ops[op];
  for (size_t i = 0; i < d.operands.size(); ++i)
    if (d.operands[i].kind == BufferRef::Weight &&
        d.operands[i].dtype == DType::F32 && d.operands[i].shape.size() == 2)
      return static_cast<int>(i);
  return -1;
}

int64_t Model::indexBound(size_t input) const {
  if (input >= impl->inputs.size())
    return -1;
  const TensorInfo &in = impl->inputs[input];
  if (in.dtype != DType::I64 && in.dtype != DType::I32)
    return -1;
  int64_t at = impl->inputOffsets[input];
  int64_t end = at + static_cast<int64_t>(in.bytes());
  int64_t bound = -1;
  // In execution order, until an op writes over the input's bytes (the
  // arena reuses them once the input is dead).
  for (const OpDesc &d : impl->ops) {
    if (d.kind == OpKind::Gather && d.operands.size() == 2 &&
        d.operands[0].kind == BufferRef::Weight &&
        d.operands[1].kind == BufferRef::Arena &&
        d.operands[1].offset == at && d.operands[1].dtype == in.dtype &&
        d.operands[1].shape == in.shape) {
      const Shape &table = d.operands[0].shape;
      int64_t axis = d.attrs.value("axis", int64_t(0));
      if (axis < 0)
        axis += static_cast<int64_t>(table.size());
      if (axis >= 0 && axis < static_cast<int64_t>(table.size()) &&
          table[axis] > 0)
        bound = bound < 0 ? table[axis] : std::min(bound, table[axis]);
    }
    for (const BufferRef &r : d.results)
      if (r.kind == BufferRef::Arena && r.offset < end &&
          r.offset + static_cast<int64_t>(r.bytes()) > at)
        return bound;
  }
  return bound;
}

Model::PackedWeightStats Model::packedWeightStats() const {
  PackedWeightStats stats;
  if (impl->packed) {
    stats.tensors = impl->packed->size();
    stats.reused = impl->packed->hits();
  }
  return stats;
}

const std::vector<StartupSpan> &Model::startup() const {
  return impl->startup;
}

int Model::inputIndex(const std::string &name) const {
  for (size_t i = 0; i < impl->inputs.size(); ++i)
    if (impl->inputs[i].name == name)
      return static_cast<int>(i);
  return -1;
}

int Model::outputIndex(const std::string &name) const {
  for (size_t i = 0; i < impl->outputs.size(); ++i)
    if (impl->outputs[i].name == name)
      return static_cast<int>(i);
  return -1;
}
