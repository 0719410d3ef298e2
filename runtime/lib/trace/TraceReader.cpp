//===- TraceReader.cpp - streaming reader of opscope trace files ----------===//
//
// Part of opscope's runtime. nlohmann::json's parse callback sees each
// element of `traceEvents` when its object closes; the reader hands it to the
// consumer and tells the parser to drop it, so a trace with millions of
// events is read in memory proportional to one event plus the header.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

using nlohmann::json;
using namespace opscope::trace;

namespace {
constexpr int kMaxTraceDepth = 32;

struct SchemaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void requireKnownKeys(const json &object, const std::set<std::string> &known,
                      const std::string &where) {
  for (const auto &[key, value] : object.items())
    if (!known.count(key))
      throw SchemaError("unknown key '" + key + "' in " + where);
}

template <typename T>
T get(const json &object, const char *key, const std::string &where) {
  auto it = object.find(key);
  if (it == object.end())
    throw SchemaError("missing key '" + std::string(key) + "' in " + where);
  try {
    return it->get<T>();
  } catch (const json::exception &) {
    throw SchemaError("key '" + std::string(key) + "' in " + where +
                      " has the wrong type");
  }
}

std::vector<int64_t> shapeOf(const json &j, const std::string &where) {
  if (!j.is_array())
    throw SchemaError("a shape in " + where + " is not an array");
  return j.get<std::vector<int64_t>>();
}

TensorInfo tensorOf(const json &j, const std::string &where) {
  requireKnownKeys(j, {"name", "shape", "dtype", "extent_axis"}, where);
  TensorInfo t;
  t.name = j.value("name", "");
  t.shape = shapeOf(get<json>(j, "shape", where), where);
  t.dtype = j.value("dtype", "");
  t.extentAxis = j.value("extent_axis", int64_t(-1));
  if (t.extentAxis < -1 || t.extentAxis >= static_cast<int64_t>(t.shape.size()))
    throw SchemaError("an extent_axis in " + where + " is not an axis of its shape");
  return t;
}

std::optional<double> optionalNumber(const json &j, const char *key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return std::nullopt;
  return it->get<double>();
}

ProbeInfo probeOf(const json &j, size_t index) {
  std::string where = "opscope.probes[" + std::to_string(index) + "]";
  requireKnownKeys(j,
                   {"id", "name", "type", "post_ops", "source_nodes", "inputs",
                    "outputs", "weight_shape", "weight_sparsity",
                    "block_sparsity", "sparse_block", "sparse_support",
                    "flops", "bytes", "live_bytes", "kernel",
                    "kernel_choice"},
                   where);
  ProbeInfo p;
  p.id = get<int64_t>(j, "id", where);
  p.name = get<std::string>(j, "name", where);
  p.type = get<std::string>(j, "type", where);
  p.postOps = j.value("post_ops", std::vector<std::string>{});
  p.sourceNodes = j.value("source_nodes", std::vector<std::string>{});
  for (const auto &t : j.value("inputs", json::array()))
    p.inputs.push_back(tensorOf(t, where + ".inputs"));
  for (const auto &t : j.value("outputs", json::array()))
    p.outputs.push_back(tensorOf(t, where + ".outputs"));
  if (j.contains("weight_shape") && !j["weight_shape"].is_null())
    p.weightShape = shapeOf(j["weight_shape"], where);
  p.weightSparsity = optionalNumber(j, "weight_sparsity");
  p.blockSparsity = optionalNumber(j, "block_sparsity");
  if (j.contains("sparse_block") && j["sparse_block"].is_string())
    p.sparseBlock = j["sparse_block"].get<std::string>();
  p.sparseSupport = j.value("sparse_support", false);
  p.flops = optionalNumber(j, "flops");
  p.bytes = optionalNumber(j, "bytes");
  if (auto live = optionalNumber(j, "live_bytes"))
    p.liveBytes = static_cast<int64_t>(*live);
  p.kernel = j.value("kernel", "");
  if (j.contains("kernel_choice") && j["kernel_choice"].is_string())
    p.kernelChoice = j["kernel_choice"].get<std::string>();
  if ((p.flops && *p.flops < 0) || (p.bytes && *p.bytes < 0))
    throw SchemaError(where + " has negative flops or bytes");
  return p;
}

TraceHeader headerOf(const json &j) {
  requireKnownKeys(j,
                   {"schema_version", "model", "machine", "run", "memory",
                    "startup", "probes", "probe_cost_ns", "dropped_events",
                    "labels", "tuning_db"},
                   "the opscope object");
  TraceHeader h;
  int64_t version = get<int64_t>(j, "schema_version", "the opscope object");
  h.schemaVersion = version == kSchemaVersion ? kSchemaVersion : -1;
  if (h.schemaVersion != kSchemaVersion)
    throw SchemaError("schema version " + std::to_string(version) +
                      " is not supported (this opscope reads version " +
                      std::to_string(kSchemaVersion) + ")");
  if (h.schemaVersion != kSchemaVersion)
    throw SchemaError("schema version " + std::to_string(h.schemaVersion) +
                      " is not supported (this opscope reads version " +
                      std::to_string(kSchemaVersion) + ")");
  h.model = j.value("model", "");
  if (j.contains("tuning_db") && j["tuning_db"].is_string())
    h.tuningDb = j["tuning_db"].get<std::string>();
  if (j.contains("machine")) {
    const json &m = j["machine"];
    requireKnownKeys(m,
                     {"cpu", "isa", "tier", "amx_available", "amx_used",
                      "threads"},
                     "opscope.machine");
    h.machine.cpu = m.value("cpu", "");
    h.machine.isa = m.value("isa", "");
    h.machine.tier = m.value("tier", "");
    h.machine.amxAvailable = m.value("amx_available", false);
    h.machine.amxUsed = m.value("amx_used", false);
    h.machine.threads = m.value("threads", int64_t(0));
  }
  if (j.contains("memory")) {
    const json &m = j["memory"];
    requireKnownKeys(m,
                     {"arena_bytes", "weight_bytes", "peak_live_bytes",
                      "peak_op", "peak_probe"},
                     "opscope.memory");
    auto bytes = [&](const char *key) -> std::optional<int64_t> {
      auto v = optionalNumber(m, key);
      if (v && *v < 0)
        throw SchemaError(std::string("opscope.memory.") + key +
                          " is negative");
      if (v)
        return static_cast<int64_t>(*v);
      return std::nullopt;
    };
    h.memory.arenaBytes = bytes("arena_bytes");
    h.memory.weightBytes = bytes("weight_bytes");
    h.memory.peakLiveBytes = bytes("peak_live_bytes");
    h.memory.peakProbe = bytes("peak_probe");
    if (m.contains("peak_op") && m["peak_op"].is_string())
      h.memory.peakOp = m["peak_op"].get<std::string>();
  }
  if (j.contains("startup")) {
    const json &st = j["startup"];
    requireKnownKeys(st,
                     {"load_ms", "map_weights_ms", "create_kernels_ms",
                      "slowest_kernel", "slowest_kernel_ms", "first_run_ms"},
                     "opscope.startup");
    h.startup.loadMs = optionalNumber(st, "load_ms");
    h.startup.mapWeightsMs = optionalNumber(st, "map_weights_ms");
    h.startup.createKernelsMs = optionalNumber(st, "create_kernels_ms");
    h.startup.slowestKernelMs = optionalNumber(st, "slowest_kernel_ms");
    h.startup.firstRunMs = optionalNumber(st, "first_run_ms");
    if (st.contains("slowest_kernel") && st["slowest_kernel"].is_string())
      h.startup.slowestKernel = st["slowest_kernel"].get<std::string>();
  }
  if (j.contains("run"))
    for (const auto &[k, v] : j["run"].items())
      h.run[k] = v.is_string() ? v.get<std::string>() : v.dump();
  if (j.contains("labels") && j["labels"].is_array())
    for (const json &l : j["labels"])
      if (l.is_string())
        h.labels.push_back(l.get<std::string>());
  h.probeCostNs = j.value("probe_cost_ns", 0.0);
  h.droppedEvents = j.value("dropped_events", int64_t(0));
  const json &probes = get<json>(j, "probes", "the opscope object");
  if (!probes.is_array())
    throw SchemaError("opscope.probes is not an array");
  for (size_t i = 0; i < probes.size(); ++i) {
    ProbeInfo p = probeOf(probes[i], i);
    if (p.id != static_cast<int64_t>(i))
      throw SchemaError("opscope.probes[" + std::to_string(i) + "] has id " +
                        std::to_string(p.id) + "; probe ids must be dense, in order");
    h.probes.push_back(std::move(p));
  }
  return h;
}
} // namespace

ReadResult opscope::trace::readTrace(const std::string &path,
                                     const ReadCallbacks &callbacks) {
  ReadResult result;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    result.error = path + ": cannot open trace";
    return result;
  }
  std::set<std::string> labels;
  std::string topKey;
  bool sawHeader = false, sawEvents = false;
  size_t eventIndex = 0;
  auto handleEvent = [&](const json &e) {
    std::string where = "traceEvents[" + std::to_string(eventIndex++) + "]";
    if (!e.is_object())
      throw SchemaError(where + " is not an object");
    std::string ph = e.value("ph", "");
    std::string cat = e.value("cat", "");
    if (ph != "X" || (cat != "op" && cat != "iteration"))
      return; // metadata, labels and other viewers' events
    const json &args = get<json>(e, "args", where);
    double ts = get<double>(e, "ts", where), dur = get<double>(e, "dur", where);
    if (dur < 0)
      throw SchemaError(where + " has a negative duration");
    const std::string *label =
        &*labels.insert(args.value("label", std::string())).first;
    if (cat == "op") {
      requireKnownKeys(args,
                       {"probe", "iteration", "label", "loop", "loop_iteration",
                        "extent", "output_shapes"},
                       where + ".args");
      OpEvent op;
      op.probe = get<int64_t>(args, "probe", where + ".args");
      op.iteration = args.value("iteration", int64_t(-1));
      op.loopIteration = args.value("loop_iteration", int64_t(-1));
      if (args.contains("extent")) {
        op.extent = get<int64_t>(args, "extent", where + ".args");
        if (op.extent < 0)
          throw SchemaError(where + " has a negative extent");
      }
      op.tid = e.value("tid", int64_t(0));
      op.tsUs = ts;
      op.durUs = dur;
      op.label = label;
      if (callbacks.onOp)
        callbacks.onOp(op);
    } else {
      IterationEvent it;
      it.iteration = get<int64_t>(args, "iteration", where + ".args");
      it.tsUs = ts;
      it.durUs = dur;
      it.label = label;
      if (callbacks.onIteration)
        callbacks.onIteration(it);
    }
  };

  json::parser_callback_t cb = [&](int depth, json::parse_event_t event,
                                   json &parsed) -> bool {
    // A trace is untrusted: the documents it holds are a few levels deep,
    // and deeper nesting would only serve to exhaust the stack in dump()
    // and copies.
    if (depth > kMaxTraceDepth)
      throw SchemaError("JSON nested deeper than " +
                        std::to_string(kMaxTraceDepth) + " levels");
    // Integers are read from numbers; one beyond int64 would be undefined
    // behaviour to convert, and no field of a trace is that large.
    if (event == json::parse_event_t::value && parsed.is_number_float() &&
        !(std::fabs(parsed.get<double>()) < 9.2e18))
      throw SchemaError("a number in the trace is out of range (" +
                        parsed.dump() + ")");
    if (depth == 1 && event == json::parse_event_t::key) {
      topKey = parsed.get<std::string>();
      if (topKey != "traceEvents" && topKey != "opscope" &&
          topKey != "displayTimeUnit" && topKey != "otherData")
        throw SchemaError("unknown top-level key '" + topKey + "'");
      return true;
    }
    if (depth == 2 && event == json::parse_event_t::object_end &&
        topKey == "traceEvents") {
      handleEvent(parsed);
      return false; // drop it: memory stays flat
    }
    if (depth == 1 && event == json::parse_event_t::object_end &&
        topKey == "opscope") {
      result.header = headerOf(parsed);
      sawHeader = true;
      return false;
    }
    if (depth == 1 && event == json::parse_event_t::array_end &&
        topKey == "traceEvents")
      sawEvents = true;
    return true;
  };

  try {
    // The callback folds each event and drops it: the returned document is
    // empty by construction.
    [[maybe_unused]] json empty = json::parse(in, cb);
  } catch (const SchemaError &e) {
    result.error = path + ": " + e.what();
    return result;
  } catch (const json::exception &e) {
    result.error = path + ": not valid JSON (truncated or not a trace?): " +
                   std::string(e.what());
    return result;
  }
  // Labels the header declares and labels events carry, each once.
  for (const std::string &l : labels)
    if (std::find(result.header.labels.begin(), result.header.labels.end(),
                  l) == result.header.labels.end())
      result.header.labels.push_back(l);
  if (!sawHeader)
    result.error = path + ": no top-level 'opscope' object; not an opscope "
                          "trace (schema in docs/trace-format.md)";
  else if (!sawEvents)
    result.error = path + ": no 'traceEvents' array";
  return result;
}
