//===- Sinks.cpp - trace, CSV and summary sinks ---------------------------===//
//
// Part of opscope's runtime. The trace is streamed out event by event (a
// million events must not build a JSON tree); strings are escaped through
// nlohmann::json. OPSCOPE_PROFILE=FILE.json support lives here too: every
// session created while it is set records, and the trace of all of them is
// written when the process exits.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/sinks.h"

#include "opscope/runtime/cpu.h"
#include "opscope/runtime/file_output.h"

#include "opscope/runtime/kernels.h"
#include "opscope/runtime/sparse.h"
#include "opscope/runtime/text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

using namespace opscope;
using json = nlohmann::json;

namespace {
std::string jsonString(const std::string &s) { return json(s).dump(); }

std::string shapeText(const rt::Shape &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

/// Writes through a temporary file renamed into place (file_output.h);
/// throws naming the file.
template <typename F> void atomicWrite(const std::string &path, F &&body) {
  std::string error = writeFileAtomically(path, body);
  if (!error.empty())
    throw Error(error);
}

/// Kernel actually used for a probe's op (from the first session).
std::string kernelOf(const ProfileData &d, const ProbeInfo &p) {
  if (!d.sessions.empty() && p.op >= 0 &&
      static_cast<size_t>(p.op) < d.sessions[0]->kernelNames().size())
    return d.sessions[0]->kernelNames()[p.op];
  return p.kernel;
}

json tensorJson(const TensorInfo &t) {
  json j{{"name", t.name},
         {"shape", t.shape},
         {"dtype", rt::dtypeName(t.dtype)}};
  if (t.extentAxis >= 0) // a bound: the events carry the actual extent
    j["extent_axis"] = t.extentAxis;
  return j;
}

/// The outputs' shapes as the CSV writes them (`;`-separated), with
/// `extent` along the extent axis of each bounded output.
std::string actualShapes(const ProbeInfo &p, int64_t extent) {
  std::string out;
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    rt::Shape s = p.outputs[i].shape;
    int64_t axis = p.outputs[i].extentAxis;
    if (axis >= 0 && axis < static_cast<int64_t>(s.size()))
      s[axis] = extent;
    out += (i ? ";" : "") + shapeText(s);
  }
  return out;
}
} // namespace

bool opscope::cpuHasAmx() {
  return rt::hostIsaLevel() >= rt::IsaLevel::Avx512CoreAmx;
}

std::string opscope::kernelIsaName() {
  // The CPU's best, within the OPSCOPE_MAX_ISA / DNNL_MAX_CPU_ISA cap.
  return rt::isaLevelName(rt::cpuTier());
}

std::string opscope::kernelTierLine() {
  using rt::sparse::ValueType;
  return "tier " + kernelIsaName() + " (ISA cap " +
         rt::isaLevelName(rt::maxIsa()) + "): oneDNN's dense kernels up to " +
         kernelIsaName() + ", opscope's own " +
         rt::kernelTierName() +
         ", sparse f32 " + rt::sparseIsa(ValueType::F32) + ", bf16 " +
         rt::sparseIsa(ValueType::BF16) + ", s8 " +
         rt::sparseIsa(ValueType::S8);
}

double opscope::percentile(const std::vector<double> &sorted, double p) {
  if (sorted.empty())
    return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * sorted.size()));
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

std::vector<OpStats> opscope::opStatistics(const ProfileData &d) {
  std::vector<std::vector<double>> samples(d.model->probes().size());
  std::vector<OpStats> stats(samples.size());
  for (const Session *s : d.sessions)
    for (const ProbeEvent &e : s->profiler().events())
      if (e.probe >= 0 && e.iteration >= d.skipIterations &&
          static_cast<size_t>(e.probe) < samples.size()) {
        samples[e.probe].push_back((e.end - e.begin) / 1e6);
        if (e.extent >= 0) {
          OpStats &st = stats[e.probe];
          st.extentMin =
              st.extentMin < 0 ? e.extent : std::min(st.extentMin, e.extent);
          st.extentMax = std::max(st.extentMax, e.extent);
        }
      }
  for (size_t i = 0; i < samples.size(); ++i) {
    auto &v = samples[i];
    std::sort(v.begin(), v.end());
    OpStats &st = stats[i];
    st.count = static_cast<int64_t>(v.size());
    for (double x : v)
      st.total += x;
    st.mean = v.empty() ? 0 : st.total / v.size();
    st.p50 = percentile(v, 50);
    st.p99 = percentile(v, 99);
  }
  return stats;
}

std::vector<double> opscope::iterationTimes(const ProfileData &d) {
  std::vector<double> v;
  for (const Session *s : d.sessions)
    for (const ProbeEvent &e : s->profiler().events())
      if (e.probe == ProbeEvent::kIteration && e.iteration >= d.skipIterations)
        v.push_back((e.end - e.begin) / 1e6);
  std::sort(v.begin(), v.end());
  return v;
}

namespace {
/// What the CSV's network rows and the terminal summary both report.
struct RunTotals {
  std::vector<OpStats> ops;
  std::vector<double> iterations; // sorted, ms
  double meanIterationMs = 0, opTimeMs = 0;
  int64_t dropped = 0;
  double coveragePercent() const {
    return meanIterationMs > 0 ? 100.0 * opTimeMs / meanIterationMs : 0;
  }
};

RunTotals runTotals(const ProfileData &d) {
  RunTotals t;
  t.ops = opStatistics(d);
  t.iterations = iterationTimes(d);
  for (double v : t.iterations)
    t.meanIterationMs += v;
  if (!t.iterations.empty())
    t.meanIterationMs /= t.iterations.size();
  for (const OpStats &s : t.ops)
    t.opTimeMs += s.mean;
  for (const Session *s : d.sessions)
    t.dropped += s->profiler().dropped();
  return t;
}
} // namespace

//===----------------------------------------------------------------------===//
// Chrome trace
//===----------------------------------------------------------------------===//

namespace {
json msOrNull(double v) { return v < 0 ? json(nullptr) : json(v); }

json memoryJson(const Model &m) {
  MemoryPeak peak = memoryPeak(m);
  return json{
      {"arena_bytes", m.arenaBytes()},
      {"weight_bytes", m.weightBytes()},
      {"peak_live_bytes", peak.bytes < 0 ? json(nullptr) : json(peak.bytes)},
      {"peak_op", peak.op < 0 ? json(nullptr) : json(peak.name)},
      {"peak_probe", peak.probe < 0 ? json(nullptr) : json(peak.probe)}};
}

/// Start-up in ms of the model and its first session.
json startupJson(const Model &m, const ProfileData &d) {
  StartupTimes t =
      startupTimes(m, d.sessions.empty() ? nullptr : d.sessions.front());
  return json{{"load_ms", msOrNull(t.loadMs)},
              {"map_weights_ms", msOrNull(t.mapWeightsMs)},
              {"create_kernels_ms", msOrNull(t.createKernelsMs)},
              {"slowest_kernel", t.slowestKernel.empty()
                                     ? json(nullptr)
                                     : json(t.slowestKernel)},
              {"slowest_kernel_ms", msOrNull(t.slowestKernelMs)},
              {"first_run_ms", msOrNull(t.firstRunMs)}};
}
} // namespace

void opscope::writeTrace(const std::string &path, const ProfileData &d) {
  atomicWrite(path, [&](std::ostream &os) { writeTrace(os, d); });
}

void opscope::writeTrace(std::ostream &os, const ProfileData &d) {
  const Model &m = *d.model;
  // Labels of all sessions, merged by name.
  std::vector<std::string> labels;
  std::vector<std::vector<int>> labelMap;
  int64_t dropped = 0;
  for (const Session *s : d.sessions) {
    const Profiler &p = s->profiler();
    std::vector<int> map;
    for (const std::string &l : p.labels()) {
      auto it = std::find(labels.begin(), labels.end(), l);
      map.push_back(static_cast<int>(it - labels.begin()));
      if (it == labels.end())
        labels.push_back(l);
    }
    labelMap.push_back(std::move(map));
    dropped += p.dropped();
  }
  std::vector<std::string> names;
  for (const ProbeInfo &p : m.probes())
    names.push_back(jsonString(p.name));

  { // the events, then the header
    os << "{\"traceEvents\":[\n";
    os << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":"
       << jsonString(m.name()) << "}}";
    std::map<int32_t, bool> threads;
    for (const Session *s : d.sessions)
      for (const ProbeEvent &e : s->profiler().events())
        threads[e.thread] = true;
    for (auto &[tid, _] : threads)
      os << ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":" << tid
         << ",\"args\":{\"name\":\"thread " << tid << "\"}}";
    char buf[64];
    auto us = [&](int64_t ns) {
      std::snprintf(buf, sizeof(buf), "%.3f", ns / 1000.0);
      return std::string(buf);
    };
    // Start-up: the model's spans and each session's on a track of their
    // own (first runs of several instances overlap in time).
    int32_t startupTid = threads.empty() ? 0 : threads.rbegin()->first + 1;
    auto startupSpan = [&](int32_t tid, const StartupSpan &sp) {
      os << ",\n{\"ph\":\"X\",\"cat\":\"startup\",\"name\":"
         << jsonString(sp.op >= 0 ? "create kernel: " + sp.name : sp.name)
         << ",\"pid\":1,\"tid\":" << tid << ",\"ts\":" << us(sp.begin)
         << ",\"dur\":" << us(sp.end - sp.begin) << ",\"args\":{";
      if (sp.op >= 0)
        os << "\"op\":" << sp.op;
      os << "}}";
    };
    for (size_t si = 0; si < std::max<size_t>(d.sessions.size(), 1); ++si) {
      int32_t tid = startupTid + static_cast<int32_t>(si);
      os << ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":"
         << tid << ",\"args\":{\"name\":\"start-up"
         << (si ? " (instance " + std::to_string(si) + ")" : "") << "\"}}";
      if (si == 0)
        for (const StartupSpan &sp : m.startup())
          startupSpan(tid, sp);
      if (si < d.sessions.size())
        for (const StartupSpan &sp : d.sessions[si]->startup())
          startupSpan(tid, sp);
    }
    // Live arena bytes as a counter track: the value at each op's end is
    // what was live while it ran (planned at compile time).
    std::vector<int64_t> liveOf;
    for (const ProbeInfo &p : m.probes())
      liveOf.push_back(p.liveBytes);
    auto counter = [&](size_t si, const ProbeEvent &e) {
      if (e.probe < 0 || liveOf[e.probe] < 0)
        return;
      os << ",\n{\"ph\":\"C\",\"cat\":\"memory\",\"name\":\"arena live bytes"
         << (si ? " (instance " + std::to_string(si) + ")" : "")
         << "\",\"pid\":1,\"ts\":" << us(e.end) << ",\"args\":{\"bytes\":"
         << liveOf[e.probe] << "}}";
    };
    for (size_t si = 0; si < d.sessions.size(); ++si) {
      const Profiler &p = d.sessions[si]->profiler();
      for (const ProbeEvent &e : p.events()) {
        std::string label =
            e.label >= 0 ? ",\"label\":" + jsonString(labels[labelMap[si][e.label]])
                         : "";
        os << ",\n{\"ph\":\"X\",";
        const auto &controls = m.controls();
        bool isControl = e.probe == ProbeEvent::kControl && e.control >= 0 &&
                         e.control < static_cast<int32_t>(controls.size());
        if (e.probe >= 0) {
          os << "\"cat\":\"op\",\"name\":" << names[e.probe];
        } else if (isControl) {
          const Model::ControlInfo &c = controls[e.control];
          os << "\"cat\":\"control\",\"name\":"
             << jsonString(c.kind == "if"
                               ? c.name + (e.step ? " then_branch" : " else_branch")
                               : c.name + " iteration " + std::to_string(e.step));
        } else if (e.probe == ProbeEvent::kIteration) {
          os << "\"cat\":\"iteration\",\"name\":\"iteration\"";
        } else {
          os << "\"cat\":\"label\",\"name\":"
             << jsonString(labels[labelMap[si][e.label]]);
        }
        os << ",\"pid\":1,\"tid\":" << e.thread << ",\"ts\":" << us(e.begin)
           << ",\"dur\":" << us(e.end - e.begin) << ",\"args\":{";
        if (e.probe >= 0) {
          os << "\"probe\":" << e.probe << ",\"iteration\":" << e.iteration
             << label;
          // A bounded op's run-time extent and the outputs' actual shapes
          // (the probe table has the bounds).
          if (e.extent >= 0 &&
              static_cast<size_t>(e.probe) < m.probes().size())
            os << ",\"extent\":" << e.extent << ",\"output_shapes\":"
               << jsonString(actualShapes(m.probes()[e.probe], e.extent));
          if (e.control >= 0 && e.control < static_cast<int32_t>(controls.size()))
            os << ",\"loop\":" << jsonString(controls[e.control].name)
               << ",\"loop_iteration\":" << e.step;
        } else if (isControl) {
          const Model::ControlInfo &c = controls[e.control];
          os << "\"control\":" << jsonString(c.name) << ",\"iteration\":"
             << e.iteration;
          if (c.kind == "if")
            os << ",\"branch\":\"" << (e.step ? "then" : "else") << "\"";
          else
            os << ",\"loop_iteration\":" << e.step;
          os << label;
        } else if (e.probe == ProbeEvent::kIteration)
          os << "\"iteration\":" << e.iteration << label;
        os << "}}";
        counter(si, e);
      }
    }
    os << "\n],\n\"displayTimeUnit\":\"ms\",\n\"opscope\":";
    json probes = json::array();
    for (const ProbeInfo &p : m.probes()) {
      json inputs = json::array(), outputs = json::array();
      for (const TensorInfo &t : p.inputs)
        inputs.push_back(tensorJson(t));
      for (const TensorInfo &t : p.outputs)
        outputs.push_back(tensorJson(t));
      probes.push_back(json{
          {"id", p.id},
          {"name", p.name},
          {"type", p.type},
          {"post_ops", p.postOps},
          {"source_nodes", p.sourceNodes},
          {"inputs", inputs},
          {"outputs", outputs},
          {"weight_shape", p.weightShape.empty() ? json(nullptr) : json(p.weightShape)},
          {"weight_sparsity",
           p.weightSparsity < 0 ? json(nullptr) : json(p.weightSparsity)},
          {"block_sparsity",
           p.blockSparsity < 0 ? json(nullptr) : json(p.blockSparsity)},
          {"sparse_block",
           p.sparseBlock.empty() ? json(nullptr) : json(p.sparseBlock)},
          {"sparse_support", p.sparseSupport},
          {"flops", p.flops},
          {"bytes", p.bytes},
          {"live_bytes", p.liveBytes < 0 ? json(nullptr) : json(p.liveBytes)},
          {"kernel", kernelOf(d, p)}});
      // Present where the compiler chose between dense and sparse kernels
      // from a tuning database: why, and the entry that decided.
      if (!p.kernelChoice.empty())
        probes.back()["kernel_choice"] = p.kernelChoice;
    }
    json run = json::object();
    for (auto &[k, v] : d.run)
      run[k] = v;
    // AMX: whether the CPU has it, and whether a kernel that ran used it
    // (oneDNN names its AMX implementations `..._amx`).
    bool amxUsed = false;
    for (const ProbeInfo &p : m.probes())
      amxUsed |= kernelOf(d, p).find("amx") != std::string::npos;
    json header{{"schema_version", 1},
                {"model", m.name()},
                {"machine",
                 {{"cpu", rt::hostCpu().model},
                  {"isa", kernelIsaName()},
                  {"tier", kernelTierLine()},
                  {"amx_available", cpuHasAmx()},
                  {"amx_used", amxUsed},
                  {"threads", d.threads}}},
                {"run", run},
                {"memory", memoryJson(m)},
                {"startup", startupJson(m, d)},
                {"labels", labels},
                {"probe_cost_ns", d.probeCostNs},
                {"dropped_events", dropped},
                {"probes", probes}};
    if (!m.tuningDb().empty())
      header["tuning_db"] = m.tuningDb();
    os << header.dump() << "\n}\n";
  }
}

//===----------------------------------------------------------------------===//
// CSV
//===----------------------------------------------------------------------===//

namespace {
/// Op names in the run summary are cut to this many characters: they come
/// from the model (a 10 MB node name must not print 10 MB per row).
constexpr size_t kSummaryNameWidth = 96;
template <typename F>
std::string joined(const std::vector<TensorInfo> &ts, F &&f) {
  std::string out;
  for (size_t i = 0; i < ts.size(); ++i)
    out += (i ? ";" : "") + f(ts[i]);
  return out;
}

std::string number(double v, int precision = 4) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(precision) << v;
  return os.str();
}

/// `output_extent`: the run-time extent, `MIN..MAX` when the measured
/// executions differ, empty for an op without bounded outputs.
std::string extentText(const OpStats &s) {
  if (s.extentMax < 0)
    return "";
  if (s.extentMin == s.extentMax)
    return std::to_string(s.extentMax);
  return std::to_string(s.extentMin) + ".." + std::to_string(s.extentMax);
}
} // namespace

void opscope::writeProfileCsv(const std::string &path, const ProfileData &d) {
  RunTotals t = runTotals(d);
  const std::vector<double> &iters = t.iterations;
  atomicWrite(path, [&](std::ostream &os) {
    os << "operator_type,post_op,operator_name,input_tensor_names,"
          "input_shapes,input_dtypes,output_tensor_names,output_shapes,"
          "output_dtypes,weight_shape,weight_sparse_ratio,"
          "weight_block_sparse_ratio,sparse_block,sparse_support,"
          "kernel,count,latency_mean_ms,latency_p50_ms,latency_p99_ms,"
          "gflops_per_s,output_extent\n";
    for (const ProbeInfo &p : d.model->probes()) {
      const OpStats &s = t.ops[p.id];
      std::string post;
      for (size_t i = 0; i < p.postOps.size(); ++i)
        post += (i ? ";" : "") + p.postOps[i];
      auto name = [](const TensorInfo &t) { return t.name; };
      auto shape = [](const TensorInfo &t) { return shapeText(t.shape); };
      auto dtype = [](const TensorInfo &t) {
        return std::string(rt::dtypeName(t.dtype));
      };
      double gflops = s.mean > 0 ? p.flops / (s.mean * 1e6) : 0;
      os << csvField(p.type) << ',' << csvField(post) << ','
         << csvField(p.name) << ',' << csvField(joined(p.inputs, name)) << ','
         << joined(p.inputs, shape) << ',' << joined(p.inputs, dtype) << ','
         << csvField(joined(p.outputs, name)) << ','
         << joined(p.outputs, shape) << ',' << joined(p.outputs, dtype) << ','
         << shapeText(p.weightShape) << ','
         << (p.weightSparsity < 0 ? "" : number(p.weightSparsity)) << ','
         << (p.blockSparsity < 0 ? "" : number(p.blockSparsity)) << ','
         << p.sparseBlock << ','
         << (p.sparseSupport ? "true" : "false") << ','
         << csvField(kernelOf(d, p)) << ',' << s.count << ','
         << number(s.mean) << ',' << number(s.p50) << ',' << number(s.p99)
         << ',' << number(gflops, 2) << ',' << extentText(s) << '\n';
    }
    os << "\nnetwork,iterations,latency_mean_ms,latency_p50_ms,"
          "latency_p90_ms,latency_p99_ms,op_time_mean_ms,op_coverage_percent,"
          "probe_cost_ns,dropped_events\n";
    os << csvField(d.model->name()) << ',' << iters.size() << ','
       << number(t.meanIterationMs) << ',' << number(percentile(iters, 50)) << ','
       << number(percentile(iters, 90)) << ',' << number(percentile(iters, 99))
       << ',' << number(t.opTimeMs) << ',' << number(t.coveragePercent(), 2)
       << ',' << number(d.probeCostNs, 1) << ',' << t.dropped << '\n';
  });
}

//===----------------------------------------------------------------------===//
// Terminal summary
//===----------------------------------------------------------------------===//

void opscope::printProfileSummary(std::ostream &os, const ProfileData &d,
                                  int top) {
  RunTotals t = runTotals(d);
  const std::vector<OpStats> &stats = t.ops;
  double opSum = t.opTimeMs;
  os << "profile: " << t.iterations.size() << " iterations, "
     << d.model->probes().size() << " probes, probe cost "
     << number(d.probeCostNs, 1) << " ns, " << t.dropped << " dropped events\n";
  os << "op time per iteration: " << number(opSum, 3) << " ms ("
     << number(t.coveragePercent(), 1) << "% of iteration wall time)\n";
  std::vector<size_t> order(stats.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return stats[a].mean > stats[b].mean;
  });
  size_t shown = std::min<size_t>(std::max(top, 0), order.size());
  // The type column is as wide as its longest entry (post-ops included), so
  // a long fused type never runs into the name.
  auto typeOf = [&](size_t id) {
    const ProbeInfo &p = d.model->probes()[id];
    std::string type = p.type;
    for (const std::string &po : p.postOps)
      type += "+" + po;
    return type;
  };
  size_t typeWidth = 4;
  for (size_t i = 0; i < shown; ++i)
    typeWidth = std::max(typeWidth, typeOf(order[i]).size());
  os << "top " << shown << " ops by self time (mean per iteration):\n";
  os << "  " << std::left << std::setw(5) << "id" << std::right
     << std::setw(10) << "self ms" << std::setw(8) << "%" << std::setw(8)
     << "cum %" << "  " << std::left << std::setw(typeWidth + 2) << "type"
     << "name\n";
  double cum = 0;
  for (size_t i = 0; i < shown; ++i) {
    const OpStats &s = stats[order[i]];
    const ProbeInfo &p = d.model->probes()[order[i]];
    double pct = opSum > 0 ? 100.0 * s.mean / opSum : 0;
    cum += pct;
    os << "  " << std::left << std::setw(5) << p.id << std::right
       << std::setw(10) << number(s.mean, 3) << std::setw(8) << number(pct, 1)
       << std::setw(8) << number(cum, 1) << "  " << std::left
       << std::setw(typeWidth + 2) << typeOf(order[i])
       << shortenMiddle(p.name, kSummaryNameWidth) << "\n";
  }
  os << std::right;
}

//===----------------------------------------------------------------------===//
// The probe table
//===----------------------------------------------------------------------===//

void opscope::printProbeTable(std::ostream &os, const Model &model) {
  const auto &probes = model.probes();
  if (probes.empty()) {
    os << model.name() << ": no probes (compiled with --no-probes)\n";
    return;
  }
  os << "id\ttype\tpost_ops\tname\tsource_nodes\tinputs\toutputs\t"
        "weight_shape\tweight_sparsity\tblock_sparsity\tsparse_support\t"
        "flops\tbytes\tkernel\tprecision\n";
  auto tensors = [](const std::vector<TensorInfo> &ts) {
    std::string s;
    for (const TensorInfo &t : ts)
      s += (s.empty() ? "" : ";") + t.name + ":" + t.describe();
    return s;
  };
  for (const ProbeInfo &p : probes) {
    std::string post, src, wshape;
    for (auto &x : p.postOps)
      post += (post.empty() ? "" : ",") + x;
    for (auto &x : p.sourceNodes)
      src += (src.empty() ? "" : ";") + x;
    for (size_t i = 0; i < p.weightShape.size(); ++i)
      wshape += (i ? "x" : "") + std::to_string(p.weightShape[i]);
    os << p.id << '\t' << p.type << '\t' << post << '\t' << p.name << '\t'
       << p.sourceNodes.size() << ":" << src << '\t' << tensors(p.inputs)
       << '\t' << tensors(p.outputs) << '\t' << wshape << '\t'
       << (p.weightSparsity < 0 ? std::string("")
                                : std::to_string(p.weightSparsity))
       << '\t'
       << (p.blockSparsity < 0 ? std::string("")
                               : std::to_string(p.blockSparsity) + " (" +
                                     p.sparseBlock + ")")
       << '\t' << (p.sparseSupport ? "yes" : "no") << '\t'
       << static_cast<int64_t>(p.flops) << '\t'
       << static_cast<int64_t>(p.bytes) << '\t' << p.kernel << '\t'
       << p.precision;
    if (p.inputScale > 0) {
      char q[160];
      std::snprintf(q, sizeof q, " (input u8 scale %.6g zero point %lld",
                    p.inputScale, static_cast<long long>(p.inputZeroPoint));
      os << q;
      if (p.outputScale > 0) {
        std::snprintf(q, sizeof q, "; output u8 scale %.6g zero point %lld",
                      p.outputScale,
                      static_cast<long long>(p.outputZeroPoint));
        os << q;
      }
      os << ')';
    }
    os << '\n';
  }
}

//===----------------------------------------------------------------------===//
// OPSCOPE_PROFILE
//===----------------------------------------------------------------------===//

namespace {
/// OPSCOPE_PROFILE=FILE.json: every session records, and writes its trace
/// when destroyed; the second and later sessions of a process write
/// FILE.1.json, FILE.2.json, ... A session observer (model.h), registered
/// when this library is loaded: the model loader does not know about it.
class EnvProfile : public SessionObserver {
public:
  EnvProfile() {
    if (const char *p = std::getenv("OPSCOPE_PROFILE"); p && *p) {
      path = p;
      addSessionObserver(this);
    }
  }
  ~EnvProfile() override {
    if (!path.empty())
      removeSessionObserver(this);
  }

  void sessionCreated(Session &session) override {
    if (session.model().probes().empty())
      std::fprintf(stderr,
                   "opscope: OPSCOPE_PROFILE: model '%s' has no probes (it "
                   "was compiled with --no-probes): the trace will show "
                   "iterations but no ops\n",
                   session.model().name().c_str());
    session.profiler().enable(true);
    std::lock_guard<std::mutex> lock(mu);
    recording.insert(&session);
  }

  void sessionDestroyed(const Session &session) override {
    std::unique_lock<std::mutex> lock(mu);
    if (!recording.erase(&session))
      return;
    std::string out = path;
    if (written > 0) {
      size_t dot = out.rfind('.');
      std::string n = "." + std::to_string(written);
      out = dot == std::string::npos ? out + n
                                     : out.substr(0, dot) + n + out.substr(dot);
    }
    ++written;
    lock.unlock();
    ProfileData d;
    d.model = &session.model();
    d.sessions = {&session};
    d.threads = static_cast<int>(std::thread::hardware_concurrency());
    d.probeCostNs = Profiler::probeCostNs();
    d.run = {{"source", "OPSCOPE_PROFILE"}};
    try {
      writeTrace(out, d);
    } catch (const std::exception &ex) {
      std::fprintf(stderr, "opscope: OPSCOPE_PROFILE: %s\n", ex.what());
    }
  }

private:
  std::mutex mu;
  std::string path;
  std::set<const Session *> recording;
  int written = 0;
};

EnvProfile envProfile; // registers itself when OPSCOPE_PROFILE is set
} // namespace
