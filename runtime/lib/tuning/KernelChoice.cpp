//===- KernelChoice.cpp - dense or sparse, from the tuning database -------===//
//
// Part of opscope. The one decision between an inner product's dense and
// sparse kernels that the compiler, the what-if, opscope-profile and its
// recommendation share (tuning.h, docs/tuning.md "Kernel choice").
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/tuning.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace opscope::tuning {

namespace {
std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", std::round(ratio * 1e4) / 1e2);
  return buf;
}

/// A weight's own sparsity, to a ten-thousandth of a percent: 0.79999661
/// is "79.9997%", not the "80%" of the point it was pruned to.
std::string weightPercent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", std::round(ratio * 1e6) / 1e4);
  return buf;
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", v);
  return buf;
}

std::vector<SparsePoint> usablePoints(const Entry &e) {
  std::vector<SparsePoint> points;
  for (const SparsePoint &p : e.sparse)
    if (p.ms > 0)
      points.push_back(p);
  std::sort(points.begin(), points.end(),
            [](const SparsePoint &a, const SparsePoint &b) {
              return a.sparsity < b.sparsity;
            });
  return points;
}

/// The query's entry, else the same weight, precision and block at the
/// nearest thread count, then the nearest M (by ratio: M 96 is nearer 128
/// than 64). Entries without a usable sparse point do not stand in.
const Entry *lookup(const Database &db, const Query &q,
                    const std::string &block, std::vector<std::string> &misses) {
  if (const Entry *e = db.find(q.n, q.k, q.m, q.precision, q.threads, block))
    return e;
  const Entry *best = nullptr;
  auto distance = [&](const Entry &e) {
    return std::make_pair(std::abs(e.threads - q.threads),
                          std::fabs(std::log(static_cast<double>(e.m) /
                                             static_cast<double>(q.m))));
  };
  std::vector<int64_t> ms;
  std::vector<int> threads;
  for (const Entry &e : db.entries) {
    if (e.n != q.n || e.k != q.k || e.precision != q.precision ||
        e.block != block || usablePoints(e).empty())
      continue;
    ms.push_back(e.m);
    threads.push_back(e.threads);
    if (!best || distance(e) < distance(*best))
      best = &e;
  }
  if (!best)
    return nullptr;
  auto list = [](auto values) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    std::string s;
    for (auto v : values)
      s += (s.empty() ? "" : ", ") + std::to_string(v);
    return s;
  };
  if (best->threads != q.threads)
    misses.push_back(std::to_string(q.threads) + " thread" +
                     (q.threads == 1 ? "" : "s") +
                     " not measured: the nearest, " +
                     std::to_string(best->threads) + " (measured " +
                     list(threads) + ")");
  if (best->m != q.m)
    misses.push_back("M " + std::to_string(q.m) +
                     " not measured: the nearest, M " +
                     std::to_string(best->m) + " (measured " + list(ms) + ")");
  return best;
}

std::string withMisses(std::string text, const std::vector<std::string> &misses) {
  for (const std::string &m : misses)
    text += "; " + m;
  return text;
}
} // namespace

namespace {
/// perfRatioAt, and whether the ratio was measured (else interpolated).
std::optional<double> ratioAt(const Entry &e, double s, std::string &basis,
                              double tolerance, bool &measured) {
  std::vector<SparsePoint> points = usablePoints(e);
  auto ratio = [&](const SparsePoint &p) { return e.denseMs / p.ms; };
  // The nearest point within the tolerance (two could be, on a tiny weight).
  const SparsePoint *at = nullptr;
  for (const SparsePoint &p : points)
    if (std::fabs(p.sparsity - s) <= tolerance &&
        (!at || std::fabs(p.sparsity - s) < std::fabs(at->sparsity - s)))
      at = &p;
  measured = at != nullptr;
  if (at) {
    basis = "measured at " + percent(at->sparsity);
    return ratio(*at);
  }
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const SparsePoint &lo = points[i], &hi = points[i + 1];
    if (lo.sparsity < s && s < hi.sparsity) {
      double t = (s - lo.sparsity) / (hi.sparsity - lo.sparsity);
      basis = "interpolated " + percent(lo.sparsity) + "-" +
              percent(hi.sparsity);
      return ratio(lo) + t * (ratio(hi) - ratio(lo));
    }
  }
  return std::nullopt;
}
} // namespace

std::optional<double> perfRatioAt(const Entry &e, double s, std::string &basis,
                                  double tolerance) {
  bool measured = false;
  return ratioAt(e, s, basis, tolerance, measured);
}

double sameSparsity(int64_t n, int64_t k) {
  double blocks = std::max<double>(1.0, static_cast<double>(n) *
                                            static_cast<double>(k) / 4.0);
  return 0.5 / blocks + 1e-9;
}

std::string describeProblem(const Entry &e) {
  return std::to_string(e.n) + "x" + std::to_string(e.k) +
         " M=" + std::to_string(e.m) + " " + e.precision + " " + e.block +
         ", " + std::to_string(e.threads) + " thread" +
         (e.threads == 1 ? "" : "s");
}

std::string unsteadiness(const Entry &e, double slack) {
  std::vector<SparsePoint> points = usablePoints(e);
  for (size_t i = 0; i + 1 < points.size(); ++i)
    for (size_t j = i + 1; j < points.size(); ++j)
      if (points[j].sparsity > points[i].sparsity &&
          points[j].ms > points[i].ms * (1.0 + slack))
        return "the sparse kernel measured slower at " +
               percent(points[j].sparsity) + " (" + ms(points[j].ms) +
               ") than at " + percent(points[i].sparsity) + " (" +
               ms(points[i].ms) + ")";
  return "";
}

Choice choose(const Database *db, const Query &q) {
  Choice c;
  auto threshold = [&](const std::string &why) {
    c.basis = Choice::Basis::Threshold;
    c.sparse = q.sparsity >= q.threshold && !q.scalarSparse;
    char t[32];
    std::snprintf(t, sizeof t, "%g", q.threshold);
    c.basisText = why;
    std::string rule = std::string("threshold ") + t;
    if (q.sparsity >= q.threshold && q.scalarSparse)
      rule += ", kept dense: scalar sparse kernels on this tier";
    c.reason = withMisses(why.empty() ? rule : rule + " (" + why + ")",
                          c.misses);
    return c;
  };
  if (!db)
    return threshold("");

  const Entry *e = nullptr;
  if (q.block == "4x4") {
    std::vector<std::string> misses4;
    e = lookup(*db, q, "4x4", misses4);
    if (e)
      c.misses = misses4;
    else
      c.misses.push_back("no 4x4 entry: the 1x4 kernel's, an upper bound");
  }
  if (!e)
    e = lookup(*db, q, "1x4", c.misses);
  if (!e) {
    c.misses.clear();
    return threshold("no entry for " + std::to_string(q.n) + "x" +
                     std::to_string(q.k) + " " + q.precision +
                     " at any M or thread count");
  }
  c.entry = e;
  c.denseMs = e->denseMs;
  std::string entryText = "entry " + describeProblem(*e);
  std::vector<SparsePoint> points = usablePoints(*e);
  if (points.empty())
    return threshold("no sparse measurement in " + entryText);

  bool measured = false;
  if (auto r = ratioAt(*e, q.sparsity, c.basisText, sameSparsity(q.n, q.k),
                       measured)) {
    c.perfRatio = r;
    c.basis = measured ? Choice::Basis::Measured : Choice::Basis::Interpolated;
    c.sparseMs = e->denseMs / *r;
    c.sparse = *r > 1.0;
  } else {
    // Outside the measured range: the sparse kernel only gets faster with
    // more zero blocks, so a point where sparse won bounds every sparser
    // weight, and one where dense won every denser weight.
    const SparsePoint &lo = points.front(), &hi = points.back();
    if (q.sparsity > hi.sparsity && hi.ms < e->denseMs) {
      c.basis = Choice::Basis::BoundAbove;
      c.sparse = true;
      c.sparseMs = hi.ms;
      c.basisText = "at " + percent(hi.sparsity) +
                    ", the highest measured: " + weightPercent(q.sparsity) +
                    " is only faster";
    } else if (q.sparsity < lo.sparsity && lo.ms >= e->denseMs) {
      c.basis = Choice::Basis::BoundBelow;
      c.sparse = false;
      c.sparseMs = lo.ms;
      c.basisText = "at " + percent(lo.sparsity) +
                    ", the lowest measured: " + weightPercent(q.sparsity) +
                    " is only slower";
    } else {
      std::string range = percent(lo.sparsity);
      if (hi.sparsity != lo.sparsity)
        range += "-" + percent(hi.sparsity);
      return threshold(weightPercent(q.sparsity) + " is outside the measured " +
                       range +
                       ", where " +
                       (q.sparsity < lo.sparsity ? "sparse won"
                                                 : "dense won") +
                       "; " + entryText);
    }
  }
  std::string compare =
      c.sparse ? "sparse " + ms(c.sparseMs) + " < dense " + ms(c.denseMs)
               : "dense " + ms(c.denseMs) + " <= sparse " + ms(c.sparseMs);
  c.reason = withMisses("tuned: " + compare + " (" + c.basisText + "; " +
                            entryText + ")",
                        c.misses);
  return c;
}

} // namespace opscope::tuning
