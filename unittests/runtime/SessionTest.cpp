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
std::unique_ptr<Model> compileTiny() {
  fs::path dir = fs::temp_directory_path() /
                 ("opscope-session-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string so = (dir / "tiny.so").string();
  std::string cmd = std::string(OPSCOPE_BIN_DIR) + "/opscope-compile " +
                    OPSCOPE_TINY_MODEL + " -o " + so + " > /dev/null";
  if (std::system(cmd.c_str()) != 0)
    return nullptr;
  return Model::load(so);
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
