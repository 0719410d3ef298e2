//===- Analysis.cpp - per-op statistics, rows, diff -----------------------===//
//
// Part of opscope's runtime.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/analysis.h"
#include "opscope/runtime/whatif.h"

#include "Provenance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

using namespace opscope;
using namespace opscope::analysis;

//===----------------------------------------------------------------------===//
// Distribution
//===----------------------------------------------------------------------===//

static constexpr double kBucketRatio = 1.005;

static int32_t bucketOf(double v) {
  if (v <= 0.0)
    return INT32_MIN;
  return static_cast<int32_t>(std::floor(std::log(v) / std::log(kBucketRatio)));
}

void Distribution::add(double v) {
  if (n == 0 || v < lo)
    lo = v;
  if (n == 0 || v > hi)
    hi = v;
  ++n;
  total += v;
  if (buckets.empty()) {
    samples.push_back(v);
    if (samples.size() > kExactSamples)
      spill();
  } else {
    ++buckets[bucketOf(v)];
  }
}

void Distribution::spill() {
  for (double v : samples)
    ++buckets[bucketOf(v)];
  samples.clear();
  samples.shrink_to_fit();
}

double Distribution::percentile(double p) const {
  if (n == 0)
    return 0.0;
  int64_t rank = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(p / 100.0 * static_cast<double>(n))));
  if (buckets.empty()) {
    std::vector<double> sorted(samples);
    std::nth_element(sorted.begin(), sorted.begin() + (rank - 1), sorted.end());
    return sorted[rank - 1];
  }
  int64_t seen = 0;
  for (const auto &[bucket, count] : buckets) {
    seen += count;
    if (seen >= rank) {
      if (bucket == INT32_MIN)
        return 0.0;
      // Geometric middle of the bucket, kept inside the observed range.
      double mid = std::pow(kBucketRatio, bucket + 0.5);
      return std::clamp(mid, lo, hi);
    }
  }
  return hi;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

bool EventFilter::keeps(const std::string &l, int64_t iteration) const {
  if (label ? l != *label : !includeWarmUp && l == trace::kWarmUpLabel)
    return false;
  return iteration < 0 || iteration >= skipIterations;
}

std::string analysis::loadProfile(const std::string &path,
                                  const EventFilter &filter, Profile &profile) {
  auto keep = [&](const std::string *label, int64_t iteration) {
    return filter.keeps(*label, iteration);
  };
  trace::ReadCallbacks callbacks;
  int64_t maxProbe = -1; // over every event, filtered or not
  callbacks.onOp = [&](const trace::OpEvent &e) {
    if (e.probe < 0)
      throw std::runtime_error("negative probe id");
    // Validate before sizing anything by it (the header, with the probe
    // table, may come after the events).
    if (e.probe >= (int64_t(1) << 24))
      throw std::runtime_error("probe id " + std::to_string(e.probe) +
                               " is beyond any probe table");
    maxProbe = std::max(maxProbe, e.probe);
    if (!keep(e.label, e.iteration))
      return;
    if (static_cast<size_t>(e.probe) >= profile.ops.size())
      profile.ops.resize(e.probe + 1);
    profile.ops[e.probe].add(e.durUs);
    if (e.extent >= 0) {
      if (static_cast<size_t>(e.probe) >= profile.extents.size())
        profile.extents.resize(e.probe + 1, {-1, -1});
      auto &[lo, hi] = profile.extents[e.probe];
      lo = lo < 0 ? e.extent : std::min(lo, e.extent);
      hi = std::max(hi, e.extent);
    }
    ++profile.opEvents;
    profile.opTimeUs += e.durUs;
  };
  callbacks.onIteration = [&](const trace::IterationEvent &e) {
    if (keep(e.label, e.iteration))
      profile.iterations.add(e.durUs);
  };
  trace::ReadResult r;
  try {
    r = trace::readTrace(path, callbacks);
  } catch (const std::exception &e) {
    return path + ": " + e.what();
  }
  if (!r.error.empty())
    return r.error;
  profile.header = std::move(r.header);
  if (filter.label) {
    const auto &labels = profile.header.labels;
    if (std::find(labels.begin(), labels.end(), *filter.label) ==
        labels.end()) {
      std::string list;
      for (const std::string &l : labels)
        list += (list.empty() ? "'" : ", '") + l + "'";
      return path + ": no events under label '" + *filter.label +
             "'; the trace's labels are " + (list.empty() ? "none" : list);
    }
  }
  if (maxProbe >= static_cast<int64_t>(profile.header.probes.size()))
    return path + ": an op event names probe " + std::to_string(maxProbe) +
           ", which is not in the probe table";
  profile.ops.resize(profile.header.probes.size());
  profile.extents.resize(profile.header.probes.size(), {-1, -1});
  return "";
}

int64_t analysis::iterationCount(const Profile &p) {
  if (p.iterations.count())
    return p.iterations.count();
  int64_t most = 0;
  for (const auto &d : p.ops)
    most = std::max(most, d.count());
  return std::max<int64_t>(most, 1);
}

//===----------------------------------------------------------------------===//
// Rows
//===----------------------------------------------------------------------===//

static std::string join(const std::vector<std::string> &parts,
                        const char *sep) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i)
    s += (i ? sep : "") + parts[i];
  return s;
}

static std::string shapeText(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

/// Shapes, `,`-separated. A bounded output with a run-time extent in
/// [lo, hi] (lo >= 0) shows its actual shape and its bound: `3x2 (bound
/// 12x2)`, `2..5x4 (bound 5x4)` when executions differ.
static std::string tensorsText(const std::vector<trace::TensorInfo> &ts,
                               std::pair<int64_t, int64_t> extent = {-1, -1}) {
  std::vector<std::string> parts;
  for (const auto &t : ts) {
    int64_t axis = t.extentAxis;
    if (extent.first < 0 || axis < 0 ||
        axis >= static_cast<int64_t>(t.shape.size())) {
      parts.push_back(shapeText(t.shape));
      continue;
    }
    std::string s;
    for (size_t i = 0; i < t.shape.size(); ++i) {
      s += i ? "x" : "";
      if (static_cast<int64_t>(i) != axis)
        s += std::to_string(t.shape[i]);
      else if (extent.first == extent.second)
        s += std::to_string(extent.first);
      else
        s += std::to_string(extent.first) + ".." + std::to_string(extent.second);
    }
    parts.push_back(s + " (bound " + shapeText(t.shape) + ")");
  }
  return join(parts, ",");
}

std::optional<double> analysis::parseTimeUs(const std::string &text) {
  size_t pos = 0;
  double v;
  try {
    v = std::stod(text, &pos);
  } catch (...) {
    return std::nullopt;
  }
  std::string unit = text.substr(pos);
  if (v < 0)
    return std::nullopt;
  if (unit.empty() || unit == "ms")
    return v * 1e3;
  if (unit == "us")
    return v;
  if (unit == "s")
    return v * 1e6;
  if (unit == "ns")
    return v * 1e-3;
  return std::nullopt;
}

static const std::set<std::string> kOrderKeys = {
    "time", "count", "flops", "bytes", "gflops", "bandwidth", "name", "id",
    "mean", "p50",   "p99",   "type",  "peak"};

std::string analysis::parseOrderBy(const std::string &text, Options &options) {
  std::string key = text;
  options.ascending = !key.empty() && key[0] == '+';
  if (options.ascending)
    key = key.substr(1);
  if (!kOrderKeys.count(key)) {
    std::vector<std::string> keys(kOrderKeys.begin(), kOrderKeys.end());
    return "unknown key '" + key + "' (keys: " + join(keys, ", ") + ")";
  }
  options.orderBy = key;
  return "";
}

/// The --type and --name filters, shared by the tables and the diff.
static bool selected(const trace::ProbeInfo &p, const Options &options) {
  if (!options.types.empty() &&
      std::find(options.types.begin(), options.types.end(), p.type) ==
          options.types.end())
    return false;
  return !options.name || std::regex_search(p.name, *options.name);
}

static void addRoofline(Row &row, const Machine &m) {
  if (!row.flops || !row.bytes || !row.gflops || *row.bytes <= 0)
    return;
  row.intensity = *row.flops / *row.bytes;
  double peak = m.peakFor(row.int8Share);
  double attainable = std::min(peak, *row.intensity * m.bandwidthGBs);
  row.attainableGflops = attainable;
  if (attainable > 0)
    row.peakPercent = 100.0 * *row.gflops / attainable;
  row.bound = *row.intensity * m.bandwidthGBs < peak ? "memory" : "compute";
}

static std::optional<double> sortValue(const Row &r, const std::string &key) {
  if (key == "time")
    return r.timeUs;
  if (key == "count")
    return static_cast<double>(r.count);
  if (key == "flops")
    return r.flops;
  if (key == "bytes")
    return r.bytes;
  if (key == "gflops")
    return r.gflops;
  if (key == "bandwidth")
    return r.gbs;
  if (key == "mean")
    return r.meanUs;
  if (key == "p50")
    return r.p50Us;
  if (key == "p99")
    return r.p99Us;
  if (key == "peak")
    return r.peakPercent;
  if (key == "id" && r.id)
    return static_cast<double>(*r.id);
  return std::nullopt;
}

std::vector<Row> analysis::buildRows(const Profile &profile,
                                     const Options &options) {
  const auto &probes = profile.header.probes;
  double iterations = static_cast<double>(iterationCount(profile));
  std::vector<Row> rows;
  for (size_t id = 0; id < probes.size(); ++id) {
    const trace::ProbeInfo &p = probes[id];
    const Distribution &d = profile.ops[id];
    if (!d.count())
      continue;
    if (!selected(p, options))
      continue;
    Row r;
    r.id = p.id;
    r.name = p.name;
    r.type = p.type;
    r.postOps = join(p.postOps, "+");
    r.kernel = p.kernel;
    r.precision = kernelPrecision(p.kernel);
    r.int8Share = r.precision == "int8" ? 1.0 : 0.0;
    r.inputs = tensorsText(p.inputs);
    r.outputs = tensorsText(
        p.outputs, id < profile.extents.size() ? profile.extents[id]
                                               : std::pair<int64_t, int64_t>{-1, -1});
    r.count = d.count();
    r.timeUs = d.sum() / iterations;
    r.meanUs = d.mean();
    r.p50Us = d.percentile(50);
    r.p99Us = d.percentile(99);
    r.flops = p.flops;
    r.bytes = p.bytes;
    if (p.flops && d.mean() > 0)
      r.gflops = *p.flops / (d.mean() * 1e3);
    if (p.bytes && d.mean() > 0)
      r.gbs = *p.bytes / (d.mean() * 1e3);
    if (options.minTimeUs && r.timeUs < *options.minTimeUs)
      continue;
    if (options.maxTimeUs && r.timeUs > *options.maxTimeUs)
      continue;
    rows.push_back(std::move(r));
  }

  if (options.aggregateBy) {
    const std::string &by = *options.aggregateBy;
    std::map<std::string, std::vector<const Row *>> groups;
    std::vector<std::string> order;
    for (const Row &r : rows) {
      std::string key = by == "type"     ? r.type
                        : by == "name"   ? r.name
                        : by == "kernel" ? r.kernel
                                         : r.inputs + " -> " + r.outputs;
      if (!groups.count(key))
        order.push_back(key);
      groups[key].push_back(&r);
    }
    std::vector<Row> grouped;
    for (const std::string &key : order) {
      const auto &members = groups[key];
      Row g;
      g.name = key;
      g.type = by == "type" ? key : "";
      std::set<std::string> types, kernels, precisions;
      double flops = 0, int8Flops = 0, bytes = 0, execTimeUs = 0;
      bool allFlops = true, allBytes = true;
      std::vector<double> times;
      for (const Row *m : members) {
        types.insert(m->type);
        kernels.insert(m->kernel);
        precisions.insert(m->precision);
        g.count += m->count;
        times.push_back(m->timeUs);
        // Totals per iteration, so mean throughput weighs ops by time.
        double execs = m->count / iterations;
        if (m->flops) {
          flops += *m->flops * execs;
          int8Flops += *m->flops * execs * m->int8Share;
        } else
          allFlops = false;
        if (m->bytes)
          bytes += *m->bytes * execs;
        else
          allBytes = false;
        execTimeUs += m->timeUs;
      }
      switch (options.aggregate) {
      case Aggregate::Sum:
        g.timeUs = std::accumulate(times.begin(), times.end(), 0.0);
        break;
      case Aggregate::Mean:
        g.timeUs = std::accumulate(times.begin(), times.end(), 0.0) /
                   static_cast<double>(times.size());
        break;
      case Aggregate::Max:
        g.timeUs = *std::max_element(times.begin(), times.end());
        break;
      case Aggregate::Min:
        g.timeUs = *std::min_element(times.begin(), times.end());
        break;
      }
      if (by != "type")
        g.type = join(std::vector<std::string>(types.begin(), types.end()), ",");
      g.precision = precisions.size() == 1 ? *precisions.begin() : "mixed";
      if (flops > 0)
        g.int8Share = int8Flops / flops;
      if (by == "kernel")
        g.kernel = key;
      if (allFlops) {
        g.flops = flops;
        if (execTimeUs > 0)
          g.gflops = flops / (execTimeUs * 1e3);
      }
      if (allBytes) {
        g.bytes = bytes;
        if (execTimeUs > 0)
          g.gbs = bytes / (execTimeUs * 1e3);
      }
      g.inputs = std::to_string(members.size()) + " ops";
      grouped.push_back(std::move(g));
    }
    rows = std::move(grouped);
  }

  if (options.roofline)
    for (Row &r : rows)
      addRoofline(r, *options.roofline);

  // Missing values sort last in both directions; ties keep probe order.
  const std::string &key = options.orderBy;
  bool textKey = key == "name" || key == "type";
  std::stable_sort(rows.begin(), rows.end(), [&](const Row &a, const Row &b) {
    if (textKey) {
      const std::string &x = key == "name" ? a.name : a.type;
      const std::string &y = key == "name" ? b.name : b.type;
      return options.ascending ? x < y : x > y;
    }
    auto x = sortValue(a, key), y = sortValue(b, key);
    if (!x || !y)
      return x.has_value() && !y.has_value();
    return options.ascending ? *x < *y : *x > *y;
  });

  // Percentages are of the whole profile's op time, so filtered views still
  // say how much of the model they cover.
  double whole = profile.opTimeUs / iterations;
  double cum = 0;
  if (options.top && rows.size() > options.top)
    rows.resize(options.top);
  for (Row &r : rows) {
    cum += r.timeUs;
    r.percent = whole > 0 ? 100.0 * r.timeUs / whole : 0.0;
    r.cumUs = cum;
    r.cumPercent = whole > 0 ? 100.0 * cum / whole : 0.0;
  }
  return rows;
}

//===----------------------------------------------------------------------===//
// Diff
//===----------------------------------------------------------------------===//

std::vector<DiffRow> analysis::diffProfiles(const Profile &before,
                                            const Profile &after,
                                            const Options &options) {
  struct Slot {
    const trace::ProbeInfo *probe;
    double timeUs;
    bool isAfter;
  };
  std::vector<Slot> slots;
  auto add = [&](const Profile &p, bool isAfter) {
    double iterations = static_cast<double>(iterationCount(p));
    for (size_t id = 0; id < p.header.probes.size(); ++id) {
      const auto &probe = p.header.probes[id];
      if (!selected(probe, options))
        continue;
      slots.push_back({&probe, p.ops[id].sum() / iterations, isAfter});
    }
  };
  add(before, false);
  add(after, true);
  std::vector<const trace::ProbeInfo *> probes;
  for (const Slot &s : slots)
    probes.push_back(s.probe);
  std::vector<size_t> group = groupByProvenance(probes);
  std::map<size_t, DiffRow> byRoot;
  std::vector<size_t> order;
  for (size_t i = 0; i < slots.size(); ++i) {
    size_t root = group[i];
    if (!byRoot.count(root))
      order.push_back(root);
    DiffRow &row = byRoot[root];
    std::string &names = slots[i].isAfter ? row.after : row.before;
    names += (names.empty() ? "" : " + ") + slots[i].probe->name;
    std::optional<double> &t = slots[i].isAfter ? row.afterUs : row.beforeUs;
    t = t.value_or(0.0) + slots[i].timeUs;
    if (row.type.empty())
      row.type = slots[i].probe->type;
    else if (row.type.find(slots[i].probe->type) == std::string::npos)
      row.type += "," + slots[i].probe->type;
  }
  std::vector<DiffRow> rows;
  for (size_t root : order) {
    DiffRow r = byRoot[root];
    r.deltaUs = r.afterUs.value_or(0.0) - r.beforeUs.value_or(0.0);
    if (r.beforeUs && *r.beforeUs > 0 && r.afterUs)
      r.deltaPercent = 100.0 * r.deltaUs / *r.beforeUs;
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const DiffRow &a, const DiffRow &b) {
                     return std::fabs(a.deltaUs) > std::fabs(b.deltaUs);
                   });
  // The total covers every selected op, not only the rows --top keeps.
  DiffRow total;
  total.before = total.after = "total";
  total.isTotal = true;
  double b = 0, a = 0;
  for (const DiffRow &r : rows) {
    b += r.beforeUs.value_or(0.0);
    a += r.afterUs.value_or(0.0);
  }
  total.beforeUs = b;
  total.afterUs = a;
  total.deltaUs = a - b;
  if (b > 0)
    total.deltaPercent = 100.0 * (a - b) / b;
  if (options.top && rows.size() > options.top)
    rows.resize(options.top);
  rows.push_back(std::move(total));
  return rows;
}
