//===- Control.cpp - the steps of osc.if and osc.loop at run time ---------===//
//
// Part of opscope's runtime. The compiled schedule branches and loops
// around its kernel calls; at each step of a control op it calls
// opscope_rt_control, which lands here: read a condition, move yielded
// values into results or into the next iteration's arguments, count
// iterations. Values move by copy between planned buffers (the planner
// keeps results and body arguments apart from everything a region uses).
//
//===----------------------------------------------------------------------===//

#include "Plan.h"
#include "opscope/runtime/abi.h"

#include <cstring>

using namespace opscope;
using namespace opscope::rt;
using json = nlohmann::json;

std::vector<const BufferRef *> ControlDesc::all() const {
  std::vector<const BufferRef *> v{&cond, &maxTrip};
  for (const auto *list : {&results, &yields[0], &yields[1], &inits, &args})
    for (const BufferRef &r : *list)
      v.push_back(&r);
  return v;
}

ControlDesc opscope::rt::parseControl(const json &j) {
  ControlDesc c;
  std::string kind = j.at("kind").get<std::string>();
  if (kind != "if" && kind != "loop")
    throw Error("unknown control kind '" + kind + "' in the model plan");
  c.kind = kind == "if" ? ControlDesc::If : ControlDesc::Loop;
  c.name = j.value("name", kind);
  auto list = [&](const char *key) {
    std::vector<BufferRef> v;
    for (const json &b : j.value(key, json::array()))
      v.push_back(parseBufferRef(b));
    return v;
  };
  c.cond = parseBufferRef(j.at("cond"));
  c.results = list("results");
  if (c.kind == ControlDesc::If) {
    c.yields[0] = list("then_yields");
    c.yields[1] = list("else_yields");
    if (c.cond.kind == BufferRef::None || c.yields[0].size() != c.results.size() ||
        c.yields[1].size() != c.results.size())
      throw Error("control '" + c.name + "': an if needs a condition and "
                  "as many yields per branch as results");
  } else {
    c.maxTrip = parseBufferRef(j.at("max_trip_count"));
    c.inits = list("inits");
    c.args = list("args");
    c.yields[0] = list("yields");
    size_t n = c.inits.size();
    if (c.results.size() < n || c.args.size() != n + 2 ||
        c.yields[0].size() != c.results.size() + 1)
      throw Error("control '" + c.name + "': a loop needs a result, a body "
                  "argument and a yield for each carried value, and a yield "
                  "for each scan output");
    for (size_t j = n; j < c.results.size(); ++j) {
      size_t row = c.yields[0][j + 1].bytes(), all = c.results[j].bytes();
      int64_t rows = row ? static_cast<int64_t>(all / row) : 0;
      if (row == 0 || all % row != 0 ||
          (j > n && rows != c.scanLength))
        throw Error("control '" + c.name + "': scan output " +
                    std::to_string(j - n) +
                    " is not a whole number of yielded rows, the same for "
                    "every scan output");
      c.scanLength = rows;
    }
  }
  for (const BufferRef *r : {&c.cond, &c.maxTrip})
    if (r->kind != BufferRef::None && r->elements() != 1)
      throw Error("control '" + c.name + "': a condition or trip count has "
                  "one element");
  size_t matched =
      c.kind == ControlDesc::If ? c.results.size() : c.inits.size();
  for (size_t i = 0; i < matched; ++i)
    for (const auto &y : {c.kind == ControlDesc::If ? c.yields[0] : c.inits})
      if (y[i].bytes() != c.results[i].bytes())
        throw Error("control '" + c.name + "': result " + std::to_string(i) +
                    " and the value it takes differ in size");
  return c;
}

namespace {
/// A list of (destination, source, bytes) copies.
struct Moves {
  std::vector<uint8_t *> dst;
  std::vector<const uint8_t *> src;
  std::vector<size_t> bytes;
  /// Staged through `scratch` when a source may be another move's
  /// destination (a loop yielding its arguments in another order).
  bool staged = false;
  std::vector<uint8_t> scratch;

  void add(const Buffers &b, const BufferRef &to, const BufferRef &from) {
    dst.push_back(static_cast<uint8_t *>(b.ptr(to)));
    src.push_back(static_cast<const uint8_t *>(b.ptr(from)));
    bytes.push_back(to.bytes());
  }
  void finish() {
    size_t total = 0;
    for (size_t i = 0; i < dst.size(); ++i) {
      total += bytes[i];
      for (size_t j = 0; j < dst.size(); ++j)
        if (i != j && src[i] < dst[j] + bytes[j] && dst[j] < src[i] + bytes[i])
          staged = true;
    }
    if (staged)
      scratch.resize(total);
  }
  void run() {
    if (!staged) {
      for (size_t i = 0; i < dst.size(); ++i)
        if (dst[i] != src[i])
          std::memmove(dst[i], src[i], bytes[i]);
      return;
    }
    size_t at = 0;
    for (size_t i = 0; i < dst.size(); at += bytes[i], ++i)
      std::memcpy(scratch.data() + at, src[i], bytes[i]);
    at = 0;
    for (size_t i = 0; i < dst.size(); at += bytes[i], ++i)
      std::memcpy(dst[i], scratch.data() + at, bytes[i]);
  }
};

bool truth(const void *p) { return *static_cast<const uint8_t *>(p) != 0; }

struct IfState {
  const uint8_t *cond;
  Moves merge[2];
  int64_t begin = 0;
};

struct LoopState {
  const uint8_t *cond = nullptr;
  const int64_t *maxTrip = nullptr;
  uint8_t *condArg;
  int64_t *iterArg;
  Moves enter, next, leave;
  /// Scan outputs: row `iteration` of `rows[j]` takes `row[j]`.
  std::vector<uint8_t *> rows;
  std::vector<const uint8_t *> row;
  std::vector<size_t> rowBytes;
  int64_t scanLength = 0;
  int64_t iteration = 0, begin = 0;
};
} // namespace

BoundControl opscope::rt::makeControl(const ControlDesc &d, int32_t index,
                                      const Buffers &b, Profiler &profiler) {
  Profiler *p = &profiler;
  if (d.kind == ControlDesc::If) {
    auto s = std::make_shared<IfState>();
    s->cond = static_cast<const uint8_t *>(b.ptr(d.cond));
    for (int br = 0; br < 2; ++br) {
      for (size_t i = 0; i < d.results.size(); ++i)
        s->merge[br].add(b, d.results[i], d.yields[br][i]);
      s->merge[br].finish();
    }
    return [s, p, index](int32_t step) -> int32_t {
      if (step == OPSCOPE_CONTROL_IF_COND) {
        if (p->enabled())
          s->begin = Profiler::now();
        return truth(s->cond) ? 1 : 0;
      }
      int branch = step == OPSCOPE_CONTROL_IF_THEN_END ? 0 : 1;
      s->merge[branch].run();
      if (p->enabled())
        p->pushControl(s->begin, Profiler::now(), index, 1 - branch);
      return 0;
    };
  }
  auto s = std::make_shared<LoopState>();
  if (d.cond.kind != BufferRef::None)
    s->cond = static_cast<const uint8_t *>(b.ptr(d.cond));
  if (d.maxTrip.kind != BufferRef::None)
    s->maxTrip = static_cast<const int64_t *>(b.ptr(d.maxTrip));
  s->iterArg = static_cast<int64_t *>(b.ptr(d.args[0]));
  s->condArg = static_cast<uint8_t *>(b.ptr(d.args[1]));
  for (size_t i = 0; i < d.inits.size(); ++i) {
    s->enter.add(b, d.args[i + 2], d.inits[i]);
    s->leave.add(b, d.results[i], d.args[i + 2]);
  }
  for (size_t i = 0; i <= d.inits.size(); ++i)
    s->next.add(b, d.args[i + 1], d.yields[0][i]);
  for (size_t j = d.inits.size(); j < d.results.size(); ++j) {
    s->rows.push_back(static_cast<uint8_t *>(b.ptr(d.results[j])));
    s->row.push_back(static_cast<const uint8_t *>(b.ptr(d.yields[0][j + 1])));
    s->rowBytes.push_back(d.yields[0][j + 1].bytes());
  }
  s->scanLength = d.scanLength;
  s->enter.finish();
  s->next.finish();
  s->leave.finish();
  return [s, p, index](int32_t step) -> int32_t {
    switch (step) {
    case OPSCOPE_CONTROL_LOOP_BEGIN:
      s->enter.run();
      *s->condArg = s->cond ? truth(s->cond) : 1;
      s->iteration = 0;
      p->enterLoop(index);
      return 0;
    case OPSCOPE_CONTROL_LOOP_TEST:
      if ((s->maxTrip && s->iteration >= *s->maxTrip) || !*s->condArg ||
          (!s->rows.empty() && s->iteration >= s->scanLength))
        return 0;
      *s->iterArg = s->iteration;
      p->setLoopIteration(static_cast<int32_t>(s->iteration));
      if (p->enabled())
        s->begin = Profiler::now();
      return 1;
    case OPSCOPE_CONTROL_LOOP_NEXT:
      // Scan rows first: a row may be a body argument `next` overwrites.
      for (size_t j = 0; j < s->rows.size(); ++j)
        std::memcpy(s->rows[j] + s->iteration * s->rowBytes[j], s->row[j],
                    s->rowBytes[j]);
      s->next.run();
      if (p->enabled())
        p->pushControl(s->begin, Profiler::now(), index,
                       static_cast<int32_t>(s->iteration));
      ++s->iteration;
      return 0;
    case OPSCOPE_CONTROL_LOOP_END:
      s->leave.run();
      for (size_t j = 0; j < s->rows.size(); ++j) // rows never run: zero
        std::memset(s->rows[j] + s->iteration * s->rowBytes[j], 0,
                    (s->scanLength - s->iteration) * s->rowBytes[j]);
      p->exitLoop();
      return 0;
    default:
      return 0;
    }
  };
}
