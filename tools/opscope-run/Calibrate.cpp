//===- Calibrate.cpp - opscope-run --calibrate ----------------------------===//
//
// Part of opscope-run. The statistics osc-precision quantizes int8 inner
// products and convolutions with: collected through Session::setBeforeOp
// on the ops the probe table names (a model compiled with --no-probes has
// none to observe), in two passes over the inputs so that the histograms'
// bins span the whole range seen.
//
//===----------------------------------------------------------------------===//

#include "Calibrate.h"
#include "Progress.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

using namespace opscope;

namespace {
struct Observed {
  size_t op = 0;
  calibration::TensorStats stats;
  double width = 0; ///< histogram bin width (pass 2)
};

void feed(Session &s, const Model &model,
          const std::vector<rt::HostTensor> &set) {
  for (size_t i = 0; i < model.inputs().size(); ++i)
    std::memcpy(s.input(i), set[i].data.data(), set[i].data.size());
}
} // namespace

calibration::Calibration
opscope::calibrate(const Model &model,
                   const std::vector<std::vector<rt::HostTensor>> &sets,
                   const std::string &source, int bins) {
  if (model.probes().empty())
    throw Error(model.path() +
                " has no probes: calibration observes the probed ops; "
                "compile the fp32 model without --no-probes");
  std::vector<Observed> observed;
  std::map<size_t, size_t> byOp;
  for (const ProbeInfo &p : model.probes()) {
    if ((p.type != "inner_product" && p.type != "sparse_inner_product" &&
         p.type != "conv" && p.type != "conv_transpose") ||
        p.op < 0 || byOp.count(p.op))
      continue;
    Observed o;
    o.op = static_cast<size_t>(p.op);
    o.stats.op = p.name;
    o.stats.sourceNodes = p.sourceNodes;
    o.stats.min = std::numeric_limits<double>::infinity();
    o.stats.max = -std::numeric_limits<double>::infinity();
    byOp[o.op] = observed.size();
    observed.push_back(std::move(o));
  }
  if (observed.empty())
    throw Error(model.path() +
                ": no probed inner product or (transposed) convolution to "
                "calibrate (int8 quantizes those only)");
  auto session = model.createSession();
  bool secondPass = false;
  std::string error;
  session->setBeforeOp([&](size_t op) {
    auto it = byOp.find(op);
    if (it == byOp.end())
      return;
    Observed &o = observed[it->second];
    TensorInfo info;
    const void *p = session->operand(op, 0, &info);
    if (!p || info.dtype != rt::DType::F32) {
      if (error.empty())
        error = "op '" + o.stats.op + "': its input is not f32";
      return;
    }
    const float *x = static_cast<const float *>(p);
    int64_t n = info.elements();
    if (!secondPass) {
      double lo = o.stats.min, hi = o.stats.max;
      for (int64_t i = 0; i < n; ++i) {
        if (!std::isfinite(x[i]))
          continue;
        lo = std::min<double>(lo, x[i]);
        hi = std::max<double>(hi, x[i]);
      }
      o.stats.min = lo;
      o.stats.max = hi;
      o.stats.count += n;
      return;
    }
    auto &h = o.stats.histogram;
    int64_t last = static_cast<int64_t>(h.size()) - 1;
    for (int64_t i = 0; i < n; ++i) {
      if (!std::isfinite(x[i]))
        continue;
      int64_t b = o.width > 0 ? static_cast<int64_t>((x[i] - o.stats.min) /
                                                     o.width)
                              : 0;
      ++h[std::clamp<int64_t>(b, 0, last)];
    }
  });
  opscope::tools::Progress progress("opscope-run: calibrating",
                                    2 * sets.size());
  size_t done = 0;
  for (const auto &set : sets) {
    feed(*session, model, set);
    session->run();
    progress.update(++done, "ranges");
  }
  for (Observed &o : observed) {
    if (!(o.stats.min <= o.stats.max)) // never finite
      o.stats.min = o.stats.max = 0;
    o.stats.histogram.assign(bins, 0);
    o.width = (o.stats.max - o.stats.min) / bins;
  }
  secondPass = true;
  for (const auto &set : sets) {
    feed(*session, model, set);
    session->run();
    progress.update(++done, "histograms");
  }
  progress.finish();
  session->setBeforeOp(nullptr);
  if (!error.empty())
    throw Error(model.path() + ": " + error);
  calibration::Calibration c;
  c.model = model.name();
  c.source = source;
  c.sets = static_cast<int64_t>(sets.size());
  c.bins = bins;
  for (Observed &o : observed)
    c.tensors.push_back(std::move(o.stats));
  return c;
}
