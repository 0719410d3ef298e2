//===- WhatIf.cpp - projected latency of a pruned model, and its check ----===//
//
// Part of opscope's runtime. See whatif.h and docs/opscope-analyze.md,
// "What-if".
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/whatif.h"

#include "Provenance.h"

#include "opscope/runtime/per_layer.h"

#include <oneapi/dnnl/dnnl_version.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

using namespace opscope;
using namespace opscope::analysis;

static std::string percentText(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", std::round(ratio * 1e4) / 1e2);
  return buf;
}

/// A perf ratio as the tables print it: 0.62x.
static std::string formatRatio(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", ratio);
  return buf;
}

static std::string ratioList(const std::set<double> &ratios) {
  std::string s;
  for (double r : ratios) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", r);
    s += (s.empty() ? "" : ",") + std::string(buf);
  }
  return s;
}

static std::string trimmed(const std::string &s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string analysis::kernelPrecision(const std::string &kernel) {
  if (kernel.find(":bf16") != std::string::npos)
    return "bf16";
  if (kernel.find(":s8") != std::string::npos ||
      kernel.find(":int8") != std::string::npos ||
      kernel.find(":u8") != std::string::npos)
    return "int8";
  return "fp32";
}

std::string analysis::checkDatabaseMachine(const Profile &profile,
                                           const std::string &tracePath,
                                           const tuning::Database &db,
                                           const std::string &dbPath) {
  const trace::MachineInfo &m = profile.header.machine;
  bool sameCpu = trimmed(db.key.cpu) == trimmed(m.cpu);
  std::optional<rt::IsaLevel> tier = rt::parseIsaLevel(m.isa);
  if (!tier) {
    // A trace without a tier: the CPU's AMX is all it says.
    if (sameCpu && db.key.amx == m.amxAvailable)
      return "";
    return dbPath + ": tuning database of another machine: measured on " +
           db.key.describe() + ", the trace " + tracePath + " on " +
           trimmed(m.cpu) + (m.amxAvailable ? " (AMX)" : " (no AMX)") +
           "; refusing to use it (give --db the database of the machine "
           "the trace was recorded on, or run opscope-tune there)";
  }
  // The database's flags are the CPU's within the cap it was measured
  // under (thisMachine); the trace's tier is the same CPU within its cap.
  // They must name the same tier, or the figures are another tier's.
  tuning::MachineKey want = db.key;
  want.avx2 = want.avx512f = want.vnni = want.bf16 = want.amx = want.avxVnni =
      true;
  want = want.atTier(*tier);
  if (sameCpu && want == db.key)
    return "";
  return dbPath + ": tuning database of another " +
         (sameCpu ? "tier" : "machine") + ": measured on " +
         db.key.describe() + ", the trace " + tracePath + " on " +
         trimmed(m.cpu) + " at tier " + m.isa +
         "; refusing to use it (give --db the database of the machine and "
         "tier the trace was recorded on, or run opscope-tune there under "
         "the same OPSCOPE_MAX_ISA)";
}

namespace {
/// Ops that need a measurement the database lacks, grouped by problem.
struct Missing {
  struct Problem {
    std::vector<std::string> ops;
    std::set<double> sparsities; // what opscope-tune must measure
    std::string why;
  };
  using Key =
      std::tuple<int64_t, std::string, int64_t, int64_t>; // m, precision, n, k
  /// In the order the ops first appear.
  std::vector<std::pair<Key, Problem>> byProblem;
  size_t ops = 0;
  Problem &at(const Key &key) {
    for (auto &[k, p] : byProblem)
      if (k == key)
        return p;
    byProblem.push_back({key, Problem()});
    return byProblem.back().second;
  }
};

std::string opList(const std::vector<std::string> &ops) {
  std::string s;
  size_t shown = std::min<size_t>(ops.size(), 3);
  for (size_t i = 0; i < shown; ++i)
    s += (i ? ", '" : "'") + ops[i] + "'";
  if (ops.size() > shown)
    s += " and " + std::to_string(ops.size() - shown) + " more";
  return s;
}

std::string missingMessage(const Missing &missing, const std::string &dbName,
                           const std::string &dbFlag, int threads,
                           const std::string &block) {
  std::ostringstream os;
  os << "no usable measurement in " << dbName << " for " << missing.ops
     << (missing.ops == 1 ? " op" : " ops")
     << " (weight shape, M, precision, threads " << threads << ", "
     << block << " blocks); nothing is projected without one:";
  // One opscope-tune command per (M, precision): its shapes, and every
  // sparsity the entries must hold (opscope-tune replaces an entry, so the
  // ratios it already has are measured again).
  std::vector<std::pair<std::pair<int64_t, std::string>,
                        std::pair<std::vector<std::string>, std::set<double>>>>
      commands;
  auto commandFor = [&](const std::pair<int64_t, std::string> &key)
      -> std::pair<std::vector<std::string>, std::set<double>> & {
    for (auto &[k, c] : commands)
      if (k == key)
        return c;
    commands.push_back({key, {}});
    return commands.back().second;
  };
  for (const auto &[key, problem] : missing.byProblem) {
    auto [m, precision, n, k] = key;
    os << "\n  " << n << "x" << k << " M=" << m << " " << precision << ": "
       << problem.why << " (" << (problem.ops.size() == 1 ? "op " : "ops ")
       << opList(problem.ops) << ")";
    auto &c = commandFor({m, precision});
    c.first.push_back(std::to_string(n) + "x" + std::to_string(k));
    c.second.insert(problem.sparsities.begin(), problem.sparsities.end());
  }
  os << "\nmeasure them with:";
  for (const auto &[key, c] : commands) {
    os << "\n  opscope-tune --shape ";
    for (size_t i = 0; i < c.first.size(); ++i)
      os << (i ? "," : "") << c.first[i];
    os << " --m " << key.first << " --precision " << key.second
       << " --sparsity " << ratioList(c.second) << " --threads " << threads;
    if (block != "1x4")
      os << " --block " << block;
    if (!dbFlag.empty())
      os << " --db " << dbFlag;
  }
  return os.str();
}
} // namespace

std::string analysis::projectWhatIf(const Profile &profile,
                                    const tuning::Database &db,
                                    const WhatIfRequest &request, WhatIf &out) {
  const auto &probes = profile.header.probes;
  double iterations = static_cast<double>(iterationCount(profile));
  out = WhatIf();
  out.model = profile.header.model;
  out.threads =
      static_cast<int>(std::max<int64_t>(1, profile.header.machine.threads));
  out.cpu = trimmed(profile.header.machine.cpu);
  auto capable = [](const trace::ProbeInfo &p) {
    return p.sparseSupport && p.weightShape.size() == 2 &&
           p.weightShape[0] > 0 && p.weightShape[1] > 0 && !p.outputs.empty();
  };

  // Per-layer keys: ONNX node names of sparse-capable ops, each op named
  // at most once.
  std::map<int64_t, std::string> keyOf; // probe id -> key
  std::vector<std::string> unknown, notCapable, twice;
  for (const auto &[key, ratio] : request.perLayer) {
    bool found = false;
    for (const auto &p : probes) {
      bool named = p.name == key ||
                   std::find(p.sourceNodes.begin(), p.sourceNodes.end(), key) !=
                       p.sourceNodes.end();
      if (!named)
        continue;
      found = true;
      if (!capable(p)) {
        notCapable.push_back("'" + key + "' (op '" + p.name + "', " + p.type +
                             ")");
        continue;
      }
      auto [it, inserted] = keyOf.emplace(p.id, key);
      if (!inserted)
        twice.push_back("'" + it->second + "' and '" + key + "' (op '" +
                        p.name + "')");
    }
    if (!found)
      unknown.push_back("'" + key + "'");
  }
  std::string what = "--what-if " + request.perLayerFile;
  auto joinAll = [](const std::vector<std::string> &v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + v[i];
    return s;
  };
  if (!unknown.empty())
    return what + ": " + joinAll(unknown) +
           (unknown.size() == 1 ? " names" : " name") +
           " no op of the trace (keys are the ONNX node names of the ops' "
           "source_nodes; weight names are not in a trace)";
  if (!notCapable.empty())
    return what + ": not sparse-capable: " + joinAll(notCapable);
  if (!twice.empty())
    return what + ": one op named twice: " + joinAll(twice);

  Missing missing;
  std::vector<std::string> otherPrecision;
  std::map<const tuning::Entry *, size_t> entryIndex;
  std::vector<const tuning::Entry *> usedEntries;
  for (size_t id = 0; id < probes.size(); ++id) {
    const trace::ProbeInfo &p = probes[id];
    const Distribution &d = profile.ops[id];
    if (!d.count())
      continue;
    WhatIfOp op;
    op.probe = &p;
    op.count = d.count();
    op.measuredUs = d.sum() / iterations;
    op.meanUs = d.mean();
    op.p50Us = d.percentile(50);
    op.p99Us = d.percentile(99);
    op.projectedUs = op.measuredUs;
    op.projectedMeanUs = op.meanUs;
    op.sparseCapable = capable(p);
    op.currentRatio = p.blockSparsity;
    if (!op.sparseCapable) {
      op.basis = "kept: not sparse-capable";
      out.ops.push_back(std::move(op));
      continue;
    }
    op.n = p.weightShape[0];
    op.k = p.weightShape[1];
    int64_t outElements = 1;
    for (int64_t dim : p.outputs[0].shape)
      outElements *= dim;
    op.m = outElements / op.n;
    op.precision = kernelPrecision(p.kernel);
    op.ranSparse = p.kernel.find("sparse") != std::string::npos;
    if (request.sparsity)
      op.targetRatio = request.sparsity;
    else if (auto it = keyOf.find(p.id); it != keyOf.end())
      op.targetRatio = request.perLayer.at(it->second);
    if (!op.targetRatio) {
      op.basis = "kept: not in the per-layer file";
      out.ops.push_back(std::move(op));
      continue;
    }
    if (!request.precision.empty() && op.precision != request.precision) {
      otherPrecision.push_back("'" + p.name + "' (" + op.precision + ", " +
                               p.kernel + ")");
      out.ops.push_back(std::move(op));
      continue;
    }
    // The compiler's own choice (tuning::choose) at the target ratio, and,
    // for an op that ran sparse, at the ratio it ran at.
    tuning::Query q;
    q.n = op.n;
    q.k = op.k;
    q.m = op.m;
    q.precision = op.precision;
    q.threads = out.threads;
    q.block = request.block;
    q.sparsity = *op.targetRatio;
    tuning::Choice target = tuning::choose(&db, q);
    std::optional<tuning::Choice> current;
    if (op.ranSparse && op.currentRatio) {
      q.sparsity = *op.currentRatio;
      current = tuning::choose(&db, q);
    }
    const tuning::Entry *e = target.entry;
    std::set<double> needed{*op.targetRatio};
    if (op.ranSparse && op.currentRatio)
      needed.insert(*op.currentRatio);
    op.perfRatio = target.perfRatio;
    if (current)
      op.currentPerfRatio = current->perfRatio;
    // Projected on the sparse kernel: the compiler's choice, or every op
    // under --force-sparse. Either needs the ratio at the target; an op
    // the database keeps dense below its lowest measured ratio (where
    // dense already won) keeps its dense time without one.
    op.projectedSparse = request.forceSparse || target.sparse;
    bool denseByBound = !op.projectedSparse &&
                        target.basis == tuning::Choice::Basis::BoundBelow;
    std::string why;
    if (!e) {
      why = "no entry";
    } else {
      std::string range =
          e->sparse.empty()
              ? std::string("no sparse measurement")
              : "measured " + percentText(e->sparse.front().sparsity) + "-" +
                    percentText(e->sparse.back().sparsity);
      if (!op.perfRatio && !denseByBound)
        why = percentText(*op.targetRatio) + " is outside the " + range +
              " (never extrapolated)";
      else if (op.ranSparse && !op.currentPerfRatio)
        why = "the op runs sparse at " +
              (op.currentRatio ? percentText(*op.currentRatio)
                               : std::string("an unknown ratio")) +
              ", outside the " + range;
      else
        op.basis = target.basisText;
      for (const auto &pt : e->sparse)
        needed.insert(pt.sparsity);
    }
    if (!why.empty()) {
      auto &problem = missing.at({op.m, op.precision, op.n, op.k});
      problem.ops.push_back(p.name);
      problem.sparsities.insert(needed.begin(), needed.end());
      problem.why = why;
      ++missing.ops;
      out.ops.push_back(std::move(op));
      continue;
    }
    for (const std::string &miss : target.misses)
      op.basis += "; " + miss;
    // Dense time at this shape: measured, or (an op that ran sparse) its
    // measured time times its current perf ratio.
    double toDense = op.ranSparse ? *op.currentPerfRatio : 1.0;
    double factor = toDense / (op.projectedSparse ? *op.perfRatio : 1.0);
    if (!op.projectedSparse)
      op.basis += op.perfRatio
                      ? "; kept dense (sparse " + formatRatio(*op.perfRatio) +
                            ")"
                      : std::string("; kept dense");
    op.projectedUs = op.measuredUs * factor;
    op.projectedMeanUs = op.meanUs * factor;
    if (!entryIndex.count(e)) {
      entryIndex[e] = usedEntries.size();
      usedEntries.push_back(e);
    }
    out.ops.push_back(std::move(op));
  }
  if (!otherPrecision.empty())
    return "--precision " + request.precision + ": " +
           std::to_string(otherPrecision.size()) +
           " sparse-capable ops of the trace run in another precision: " +
           joinAll(otherPrecision) +
           " (a projection scales an op's measured latency, so it needs a "
           "trace of that precision, e.g. opscope-compile --precision " +
           request.precision + ")";
  if (missing.ops)
    return missingMessage(missing,
                          request.dbFlag.empty() ? "this machine's tuning "
                                                   "database"
                                                 : request.dbFlag,
                          request.dbFlag, out.threads, request.block);
  for (const auto *e : usedEntries)
    out.entries.push_back(*e);
  for (const WhatIfOp &op : out.ops) {
    out.totals.measuredUs += op.measuredUs;
    out.totals.projectedUs += op.projectedUs;
    if (op.sparseCapable)
      out.totals.sparseCapableUs += op.measuredUs;
  }
  return "";
}

std::string analysis::checkWhatIf(const WhatIf &whatIf, const Profile &measured,
                                  const std::string &measuredPath, Check &out) {
  out = Check();
  std::string what = "--check " + measuredPath;
  // The projection is for the trace's machine and thread count; a
  // measurement of another says nothing about its error.
  const trace::MachineInfo &machine = measured.header.machine;
  if (trimmed(machine.cpu) != whatIf.cpu)
    return what + ": recorded on " + trimmed(machine.cpu) +
           ", the projected trace on " + whatIf.cpu +
           "; compare traces of one machine";
  int threads = static_cast<int>(std::max<int64_t>(1, machine.threads));
  if (threads != whatIf.threads)
    return what + ": recorded with " + std::to_string(threads) +
           " threads, the projected trace with " +
           std::to_string(whatIf.threads) +
           "; compare runs with the same --threads";
  double iterations = static_cast<double>(iterationCount(measured));
  struct Slot {
    const trace::ProbeInfo *probe;
    const WhatIfOp *op; // null for the measured trace's ops
    double us;
  };
  std::vector<Slot> slots;
  for (const WhatIfOp &op : whatIf.ops)
    slots.push_back({op.probe, &op, op.projectedUs});
  for (size_t id = 0; id < measured.header.probes.size(); ++id)
    if (measured.ops[id].count())
      slots.push_back({&measured.header.probes[id], nullptr,
                       measured.ops[id].sum() / iterations});
  std::vector<const trace::ProbeInfo *> probes;
  for (const Slot &s : slots)
    probes.push_back(s.probe);
  std::vector<size_t> group = groupByProvenance(probes);

  std::map<size_t, CheckRow> byGroup;
  std::map<size_t, std::vector<const Slot *>> members;
  std::vector<size_t> order;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!byGroup.count(group[i]))
      order.push_back(group[i]);
    CheckRow &row = byGroup[group[i]];
    members[group[i]].push_back(&slots[i]);
    const Slot &s = slots[i];
    bool projected = s.op != nullptr;
    std::string &names = projected ? row.projected : row.measured;
    names += (names.empty() ? "" : " + ") + s.probe->name;
    auto &t = projected ? row.projectedUs : row.measuredUs;
    t = t.value_or(0.0) + s.us;
    if (row.type.empty())
      row.type = s.probe->type;
    else if (row.type.find(s.probe->type) == std::string::npos)
      row.type += "," + s.probe->type;
    if (projected && s.op->targetRatio && !row.targetRatio)
      row.targetRatio = s.op->targetRatio;
    if (!projected && s.probe->sparseSupport && s.probe->blockSparsity &&
        !row.measuredRatio)
      row.measuredRatio = s.probe->blockSparsity;
  }

  // A trace of another model: a projected sparse op with no counterpart,
  // or one whose counterpart has another weight shape.
  for (size_t g : order) {
    const auto &ms = members[g];
    for (const Slot *s : ms) {
      if (!s->op || !s->op->sparseCapable || !s->op->targetRatio)
        continue;
      const Slot *other = nullptr;
      for (const Slot *t : ms)
        if (!t->op && t->probe->weightShape.size() == 2)
          other = t;
      if (!other)
        return what + ": op '" + s->probe->name + "' of the projection (" +
               std::to_string(s->op->n) + "x" + std::to_string(s->op->k) +
               " weight) has no counterpart with a weight in it (ops are "
               "matched by ONNX source nodes): is it a trace of the same "
               "model?";
      if (other->probe->weightShape[0] != s->op->n ||
          other->probe->weightShape[1] != s->op->k)
        return what + ": op '" + s->probe->name + "' has a " +
               std::to_string(s->op->n) + "x" + std::to_string(s->op->k) +
               " weight, its counterpart '" + other->probe->name + "' a " +
               std::to_string(other->probe->weightShape[0]) + "x" +
               std::to_string(other->probe->weightShape[1]) +
               " one: is it a trace of the same model?";
    }
  }
  size_t both = 0;
  for (size_t g : order)
    if (byGroup[g].projectedUs && byGroup[g].measuredUs)
      ++both;
  if (both == 0)
    return what + ": no op matches an op of the projected trace by ONNX "
                  "source nodes or name: is it a trace of the same model?";

  for (size_t g : order) {
    CheckRow r = byGroup[g];
    if (r.projectedUs && r.measuredUs && *r.measuredUs > 0)
      r.errorPercent = 100.0 * (*r.projectedUs - *r.measuredUs) / *r.measuredUs;
    out.rows.push_back(std::move(r));
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const CheckRow &a, const CheckRow &b) {
                     auto err = [](const CheckRow &r) {
                       return std::fabs(r.projectedUs.value_or(0.0) -
                                        r.measuredUs.value_or(0.0));
                     };
                     return err(a) > err(b);
                   });
  CheckRow total;
  total.projected = total.measured = "total";
  total.isTotal = true;
  double p = 0, m = 0;
  for (const CheckRow &r : out.rows) {
    p += r.projectedUs.value_or(0.0);
    m += r.measuredUs.value_or(0.0);
  }
  total.projectedUs = p;
  total.measuredUs = m;
  if (m > 0)
    total.errorPercent = 100.0 * (p - m) / m;
  out.rows.push_back(std::move(total));
  // Per-op medians: an op's executions per iteration are measuredUs /
  // meanUs, so its median-based time is p50 x projectedUs / meanUs.
  for (const WhatIfOp &op : whatIf.ops)
    if (op.meanUs > 0)
      out.medianProjectedUs += op.p50Us * op.projectedUs / op.meanUs;
  for (const Distribution &d : measured.ops)
    if (d.count())
      out.medianMeasuredUs += d.percentile(50) * d.count() / iterations;
  return "";
}

std::string analysis::parseWhatIf(const std::string &value,
                                  const std::string &flag,
                                  WhatIfRequest &request) {
  // A number is a ratio (checked here, before any file is read); anything
  // else names a per-layer file.
  try {
    size_t used = 0;
    double v = std::stod(value, &used);
    if (used == value.size()) {
      if (!(v > 0.0 && v < 1.0))
        return flag + ": expected a ratio in (0, 1), e.g. 0.8, or a "
                      "per-layer FILE.json, got '" + value + "'";
      request.sparsity = v;
      return "";
    }
  } catch (const std::exception &) {
  }
  request.perLayerFile = value;
  return "";
}

std::string analysis::projectWithDatabase(const Profile &profile,
                                          const std::string &tracePath,
                                          std::string &dbPath,
                                          WhatIfRequest &request,
                                          WhatIf &out) {
  if (!request.sparsity) {
    std::string err = tuning::readPerLayer(request.perLayerFile, "--what-if",
                                           request.perLayer);
    if (!err.empty())
      return err;
    if (request.perLayer.empty())
      return "--what-if " + request.perLayerFile + ": names no layer";
  }
  if (!dbPath.empty())
    request.dbFlag = dbPath;
  tuning::Database db;
  try {
    if (dbPath.empty()) {
      // The analysis tools do not link oneDNN: the version is the one the
      // tree was built against, the package the runtime loads.
      tuning::MachineKey here = tuning::thisMachine(
          std::to_string(DNNL_VERSION_MAJOR) + "." +
          std::to_string(DNNL_VERSION_MINOR) + "." +
          std::to_string(DNNL_VERSION_PATCH));
      // The database of the tier the trace ran at (a trace recorded under
      // OPSCOPE_MAX_ISA=avx2 reads the avx2 figures, whatever this
      // process's cap).
      if (std::optional<rt::IsaLevel> tier =
              rt::parseIsaLevel(profile.header.machine.isa))
        here = here.atTier(*tier);
      dbPath = (std::filesystem::path(tuning::defaultDirectory()) /
                here.fileName())
                   .string();
      if (!std::filesystem::exists(dbPath))
        return "no tuning database for this machine (" + dbPath +
               "): measure the model's weight shapes with `opscope-tune "
               "MODEL.so` (or `opscope-tune MODEL.onnx --input-shape "
               "NAME=DIMS ...`) first, or give --db FILE";
      db = tuning::load(dbPath, &here);
    } else {
      db = tuning::load(dbPath);
    }
  } catch (const tuning::Error &e) {
    return e.what();
  }
  std::string err = checkDatabaseMachine(profile, tracePath, db, dbPath);
  if (!err.empty())
    return err;
  err = projectWhatIf(profile, db, request, out);
  if (!err.empty())
    return tracePath + ": " + err;
  return "";
}
