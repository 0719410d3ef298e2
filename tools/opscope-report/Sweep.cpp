//===- Sweep.cpp - an opscope-sweep results directory as page data --------===//
//
// Part of opscope. See Sweep.h. The figures are the ones opscope-sweep
// recorded per point (computed from each point's trace as opscope-analyze
// computes them); this file only groups them: per configuration and tier,
// and the fastest configuration of each workload on each tier.
//
//===----------------------------------------------------------------------===//

#include "Sweep.h"

#include "opscope/runtime/cpu.h"


#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// A tier's place among OPSCOPE_MAX_ISA's values (cpu.h), lowest first;
/// unknown names last.
size_t tierRank(const std::string &tier) {
  std::optional<opscope::rt::IsaLevel> level = opscope::rt::parseIsaLevel(tier);
  return level ? static_cast<size_t>(*level)
               : std::size(opscope::rt::kIsaLevelNames);
}

std::string number(double v, const char *format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string cell(const std::optional<double> &v, const char *format) {
  return v ? number(*v, format) : "-";
}

std::optional<double> optionalNumber(const json &r, const char *key) {
  auto it = r.find(key);
  if (it == r.end() || it->is_null())
    return std::nullopt;
  return it->get<double>();
}

struct Point {
  std::string id, model, precision, tier, host, cpu, status, stage, error,
      topOp;
  int64_t batch = 0, threads = 0;
  std::optional<int64_t> seq;
  double sparsity = 0;
  std::optional<double> p50, p99, throughput;

  /// "bert-mini b1 s16": what is computed.
  std::string workload() const {
    return model + " b" + std::to_string(batch) +
           (seq ? " s" + std::to_string(*seq) : "");
  }
  /// "int8 p0.8 t1": how (as opscope.sweep_spec.configuration).
  std::string configuration() const {
    return precision + " " +
           (sparsity == 0 ? std::string("dense") : number(sparsity, "p%g")) +
           " t" + std::to_string(threads);
  }
  /// The order of opscope.load_sweep's frame (a missing seq last).
  auto key() const {
    return std::make_tuple(model, batch, !seq.has_value(), seq.value_or(0),
                           precision, sparsity, threads, tier, host);
  }
};

std::string readPoint(const fs::path &file, Point &p) {
  std::ifstream in(file);
  if (!in)
    return file.string() + ": cannot open";
  try {
    json r = json::parse(in);
    if (r.value("schema", "") != "opscope-sweep-result/1")
      return file.string() + ": not an opscope-sweep result (schema '" +
             r.value("schema", "") + "')";
    p.id = r.at("point").get<std::string>();
    p.model = r.at("model").get<std::string>();
    p.batch = r.at("batch").get<int64_t>();
    if (!r.at("seq").is_null())
      p.seq = r.at("seq").get<int64_t>();
    p.precision = r.at("precision").get<std::string>();
    p.sparsity = r.at("sparsity").get<double>();
    p.threads = r.at("threads").get<int64_t>();
    p.tier = r.at("tier").is_null() ? "-" : r.at("tier").get<std::string>();
    p.host = r.at("host").get<std::string>();
    p.cpu = r.value("cpu", json()).is_string() ? r["cpu"].get<std::string>() : "";
    p.status = r.at("status").get<std::string>();
    p.stage = r.at("stage").is_null() ? "" : r.at("stage").get<std::string>();
    p.error = r.at("error").is_null() ? "" : r.at("error").get<std::string>();
    p.p50 = optionalNumber(r, "latency_p50_ms");
    p.p99 = optionalNumber(r, "latency_p99_ms");
    p.throughput = optionalNumber(r, "throughput_samples_per_s");
    const json &top = r.at("top_ops");
    if (!top.empty())
      p.topOp = top.at(0).at("name").get<std::string>();
    if (p.status == "ok" && !p.p50)
      return file.string() + ": a finished point without latency_p50_ms";
  } catch (const json::exception &e) {
    return file.string() + ": not an opscope-sweep result: " + e.what();
  }
  return "";
}

} // namespace

std::string opscope::report::readSweep(const std::string &dir,
                                       json &data) {
  fs::path root(dir), points = root / "points";
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return dir + ": no such directory";
  if (!fs::exists(root / "sweep.json", ec) || !fs::is_directory(points, ec))
    return dir + ": not an opscope-sweep results directory (no sweep.json "
                 "and points/)";
  std::vector<fs::path> files;
  for (const fs::directory_entry &e : fs::directory_iterator(points, ec)) {
    std::string name = e.path().filename().string();
    // Folders being written are renamed into place whole (".tmp-*").
    if (!name.empty() && name[0] != '.' && e.is_directory())
      files.push_back(e.path() / "result.json");
  }
  if (ec)
    return points.string() + ": " + ec.message();
  std::vector<Point> rows;
  for (const fs::path &f : files) {
    Point p;
    if (std::string err = readPoint(f, p); !err.empty())
      return err;
    rows.push_back(std::move(p));
  }
  if (rows.empty())
    return dir + ": no finished points yet";
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Point &a, const Point &b) { return a.key() < b.key(); });

  // Tiers lowest first; what each is (CPU models, hosts).
  std::vector<std::string> tiers;
  std::map<std::string, std::set<std::string>> cpus, hosts;
  std::map<std::string, int> okByTier, pointsByTier;
  std::set<std::string> models;
  for (const Point &p : rows) {
    if (std::find(tiers.begin(), tiers.end(), p.tier) == tiers.end())
      tiers.push_back(p.tier);
    if (!p.cpu.empty())
      cpus[p.tier].insert(p.cpu);
    hosts[p.tier].insert(p.host);
    ++pointsByTier[p.tier];
    okByTier[p.tier] += p.status == "ok";
    models.insert(p.model);
  }
  std::stable_sort(tiers.begin(), tiers.end(),
                   [](const std::string &a, const std::string &b) {
                     return std::make_pair(tierRank(a), a) <
                            std::make_pair(tierRank(b), b);
                   });

  // Per configuration (workload and configuration) and tier: the fastest
  // host's figures (several hosts may share a tier).
  std::vector<std::string> labels;
  std::map<std::string, std::map<std::string, const Point *>> fastest;
  for (const Point &p : rows) {
    std::string label = p.workload() + " \xc2\xb7 " + p.configuration();
    if (std::find(labels.begin(), labels.end(), label) == labels.end())
      labels.push_back(label);
    const Point *&f = fastest[label][p.tier];
    if (p.status == "ok" && (!f || *p.p50 < *f->p50))
      f = &p;
  }
  json latency = json::object(), throughput = json::object();
  for (const std::string &t : tiers) {
    json l = json::array(), s = json::array();
    for (const std::string &label : labels) {
      const Point *f = fastest[label][t];
      l.push_back(f ? json(*f->p50) : json(nullptr));
      s.push_back(f && f->throughput ? json(*f->throughput) : json(nullptr));
    }
    latency[t] = l;
    throughput[t] = s;
  }

  // The best configuration of each workload on each tier: the lowest p50
  // (the first in the frame's order on a tie, as pandas' idxmin).
  json bestRows = json::array(), bestValues = json::array();
  for (const std::string &t : tiers) {
    std::vector<std::string> workloads;
    std::map<std::string, const Point *> best, slowest;
    for (const Point &p : rows) {
      if (p.tier != t || p.status != "ok")
        continue;
      std::string w = p.workload();
      if (!best.count(w))
        workloads.push_back(w);
      if (!best.count(w) || *p.p50 < *best[w]->p50)
        best[w] = &p;
      if (!slowest.count(w) || *p.p50 > *slowest[w]->p50)
        slowest[w] = &p;
    }
    for (const std::string &w : workloads) {
      const Point &b = *best[w];
      double speedup = *slowest[w]->p50 / *b.p50;
      bestRows.push_back({t, w, b.configuration(), cell(b.p50, "%.3f"),
                          cell(b.throughput, "%.1f"),
                          cell(slowest[w]->p50, "%.3f"),
                          number(speedup, "%.2fx")});
      bestValues.push_back({{"tier", t},
                            {"model", b.model},
                            {"batch", b.batch},
                            {"seq", b.seq ? json(*b.seq) : json(nullptr)},
                            {"configuration", b.configuration()},
                            {"point", b.id},
                            {"host", b.host},
                            {"latency_p50_ms", *b.p50},
                            {"slowest_p50_ms", *slowest[w]->p50}});
    }
  }

  json pointRows = json::array();
  int ok = 0;
  for (const Point &p : rows) {
    ok += p.status == "ok";
    pointRows.push_back(
        {p.id, p.tier, p.host, p.status, cell(p.p50, "%.3f"),
         cell(p.p99, "%.3f"), cell(p.throughput, "%.1f"),
         p.topOp.empty() ? "-" : p.topOp,
         p.status == "ok" ? "" : p.stage + ": " + p.error});
  }
  json tierInfo = json::array();
  for (const std::string &t : tiers)
    tierInfo.push_back({{"tier", t},
                        {"cpus", cpus[t]},
                        {"hosts", hosts[t]},
                        {"points", pointsByTier[t]},
                        {"ok", okByTier[t]}});
  std::string title;
  for (const std::string &m : models)
    title += (title.empty() ? "" : ", ") + m;
  data["header"] = {{"model", title}};
  data["sweep"] = {
      {"dir", dir},
      {"tiers", tierInfo},
      {"counts", {{"points", rows.size()}, {"ok", ok}, {"failed", rows.size() - ok}}},
      {"configurations", labels},
      {"latency_p50_ms", latency},
      {"throughput_samples_per_s", throughput},
      {"best",
       {{"columns", {"tier", "workload", "best configuration", "p50 ms",
                     "samples/s", "slowest p50 ms", "speed-up"}},
        {"rows", bestRows},
        {"values", bestValues}}},
      {"points",
       {{"columns", {"point", "tier", "host", "status", "p50 ms", "p99 ms",
                     "samples/s", "top op", "error"}},
        {"rows", pointRows}}}};
  return "";
}
