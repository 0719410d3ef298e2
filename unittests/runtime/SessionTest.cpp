//===- SessionTest.cpp - sessions of one compiled model -------------------===//
//
// Part of opscope. Session::overrideWeight (what opscope-profile's loss
// profile runs on): a private copy of one op's weight changes that session's
// output only; other sessions, the mapped weights and the shared packed
// weights stay as they were, and clearing the override gives the model's
// output back. The model is test/Tools/opscope-run/Inputs/tiny.onnxtext
// (MatMul + Add + Relu fused into one inner product, and a Gather),
// compiled by the opscope-compile of this build.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/model.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

using namespace opscope;
namespace fs = std::filesystem;

namespace {
/// Compiles `source` with `flags` into a fresh directory; "" on failure.
std::string compile(const std::string &source, const std::string &name,
                    const std::string &flags = "") {
  fs::path dir = fs::temp_directory_path() /
                 ("opscope-session-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string so = (dir / (name + ".so")).string();
  std::string cmd = std::string(OPSCOPE_BIN_DIR) + "/opscope-compile " +
                    source + " -o " + so + " " + flags + " > /dev/null";
  return std::system(cmd.c_str()) == 0 ? so : "";
}

std::unique_ptr<Model> compileTiny() {
  std::string so = compile(OPSCOPE_TINY_MODEL, "tiny");
  return so.empty() ? nullptr : Model::load(so);
}

std::vector<float> runY(Session &s, const float *x) {
  std::memcpy(s.input(0), x, 8 * sizeof(float));
  int64_t idx[2] = {0, 1};
  std::memcpy(s.input(1), idx, sizeof idx);
  s.run();
  const float *y = static_cast<const float *>(s.output(0));
  return std::vector<float>(y, y + 6);
}
} // namespace

TEST(Session, WeightOverrideIsPrivateToTheSession) {
  std::unique_ptr<Model> model = compileTiny();
  ASSERT_TRUE(model) << "opscope-compile failed";
  auto a = model->createSession(), b = model->createSession();
  const float x[8] = {1, 2, 3, 4, -1, 0.5f, 2, 1};
  std::vector<float> want = runY(*a, x);
  ASSERT_EQ(runY(*b, x), want);

  // The inner product's weight: the operand of op 0 with a 2-D shape.
  size_t op = 0, weight = 0;
  TensorInfo info;
  bool found = false;
  for (size_t i = 0; i < 4 && !found; ++i)
    if (a->operand(op, i, &info) && info.shape.size() == 2 &&
        info.shape != std::vector<int64_t>{2, 4}) {
      weight = i;
      found = true;
    }
  ASSERT_TRUE(found);
  const float *mapped = static_cast<const float *>(a->operand(op, weight));
  std::vector<float> before(mapped, mapped + info.elements());

  // A zero weight: y = relu(bias) in session a only.
  std::vector<float> zeros(info.elements(), 0.0f);
  a->overrideWeight(op, weight, zeros.data(), zeros.size() * sizeof(float));
  std::vector<float> got = runY(*a, x);
  const float relu[3] = {0.5f, 0.0f, 0.0f}; // relu(b), b = {0.5, -0.5, 0}
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c)
      EXPECT_FLOAT_EQ(got[r * 3 + c], relu[c]);
  EXPECT_EQ(runY(*b, x), want) << "another session changed";
  auto c = model->createSession(); // created after the override
  EXPECT_EQ(runY(*c, x), want);
  EXPECT_EQ(std::vector<float>(mapped, mapped + info.elements()), before)
      << "the mapped weights changed";

  a->clearWeightOverrides();
  EXPECT_EQ(runY(*a, x), want);

  // Bad calls throw, naming the op.
  EXPECT_THROW(a->overrideWeight(op, weight, zeros.data(), 4), Error);
  EXPECT_THROW(a->overrideWeight(op, 99, zeros.data(), 4), Error);
  EXPECT_THROW(a->overrideWeight(99, 0, zeros.data(), 4), Error);
}

// The probe's end reads the run-time extent of a bounded op into its event
// (docs/architecture.md, "In the profile"). extents.onnxtext: NonZero (3 of
// its bound's 12 columns), the Transpose carrying that extent, a Relu
// without one, Compress (2 of 5 boxes) and the Mul carrying it; a second
// run with other inputs changes the extents.
TEST(Session, ProbesRecordRunTimeExtents) {
  std::string so = compile(OPSCOPE_EXTENTS_MODEL, "extents", "--profile");
  ASSERT_FALSE(so.empty()) << "opscope-compile failed";
  std::unique_ptr<Model> model = Model::load(so);
  const std::vector<ProbeInfo> &probes = model->probes();
  ASSERT_EQ(probes.size(), 5u);
  const int64_t axes[5] = {1, 0, -1, 0, 0}; // of each probe's output 0
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(probes[i].outputs.at(0).extentAxis, axes[i]) << probes[i].name;
    EXPECT_EQ(probes[i].extentOffset >= 0, axes[i] >= 0) << probes[i].name;
  }
  // The producers' second output is the extent itself, not bounded.
  EXPECT_EQ(probes[0].outputs.at(1).extentAxis, -1);
  // NonZero and its Transpose read one buffer, as do Compress and Mul.
  EXPECT_EQ(probes[0].extentOffset, probes[1].extentOffset);
  EXPECT_EQ(probes[3].extentOffset, probes[4].extentOffset);

  auto s = model->createSession();
  auto feed = [&](const std::vector<float> &x, const std::vector<bool> &keep) {
    std::memcpy(s->input(0), x.data(), x.size() * sizeof(float));
    float *boxes = static_cast<float *>(s->input(1));
    for (int i = 0; i < 20; ++i)
      boxes[i] = static_cast<float>(i);
    bool *k = static_cast<bool *>(s->input(2));
    for (int i = 0; i < 5; ++i)
      k[i] = keep[i];
  };
  std::vector<float> x(12, 0.0f);
  x[1] = 1, x[8] = -2, x[11] = 5;
  feed(x, {false, true, false, true, false});
  s->profiler().enable(true);
  s->run();
  x.assign(12, 0.0f); // no nonzero; every box kept
  feed(x, {true, true, true, true, true});
  s->run();
  std::vector<std::vector<int64_t>> extents(5);
  for (const ProbeEvent &e : s->profiler().events())
    if (e.probe >= 0)
      extents.at(e.probe).push_back(e.extent);
  const std::vector<std::vector<int64_t>> want = {
      {3, 0}, {3, 0}, {-1, -1}, {2, 5}, {2, 5}};
  EXPECT_EQ(extents, want);
  EXPECT_EQ(s->outputShape(0), (std::vector<int64_t>{0, 2}));

  std::string weights = so.substr(0, so.size() - 3) + ".weights";
  auto loadError = [&](const std::string &plan) -> std::string {
    try {
      Model::fromPlan(plan, weights);
    } catch (const Error &e) {
      return e.what();
    }
    return "";
  };
  // A probe extent without a bounded output (nz's extent_axis removed) is
  // refused at load, as is one outside the arena.
  std::string plan = model->planText();
  size_t axis = plan.find("\"extent_axis\":1,");
  ASSERT_NE(axis, std::string::npos);
  std::string unbounded = plan;
  unbounded.erase(axis, std::string("\"extent_axis\":1,").size());
  EXPECT_NE(loadError(unbounded).find("probe 'nz' has a run-time extent "
                                      "without a bounded output"),
            std::string::npos)
      << loadError(unbounded);
  size_t at = plan.find("\"extent\":{\"buffer\":{");
  ASSERT_NE(at, std::string::npos);
  size_t offset = plan.find("\"offset\":", at);
  ASSERT_NE(offset, std::string::npos);
  size_t end = plan.find_first_of(",}", offset);
  plan.replace(offset, end - offset, "\"offset\":999999999");
  EXPECT_NE(loadError(plan).find("extent of probe 'nz': buffer"),
            std::string::npos)
      << loadError(plan);
}
