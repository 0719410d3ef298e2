//===- TuningTest.cpp - the kernel tuning database ------------------------===//
//
// Part of opscope. Round trip, merge, refusal of foreign, corrupt and
// other-version databases, and atomic writes (tuning.h).
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/tuning.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace opscope::tuning;

namespace {
MachineKey key() {
  MachineKey k;
  k.cpu = "Test CPU @ 2.0GHz";
  k.avx512f = k.vnni = true;
  k.onednn = "3.1.0";
  return k;
}

Entry entry(int64_t n, int64_t k, int64_t m, const char *prec, double dense,
            std::vector<SparsePoint> sparse) {
  Entry e;
  e.n = n, e.k = k, e.m = m, e.precision = prec, e.denseMs = dense;
  e.denseImpl = "brgemm:avx512_core";
  e.sparseImpl = "opscope:sparse_1x4:avx512:f32";
  e.sparse = std::move(sparse);
  return e;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("opscope-tuning-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read(const fs::path &p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const fs::path &p, const std::string &s) {
  std::ofstream(p) << s;
}

/// The message of the Error `f` throws, or "" when it does not throw.
template <typename F> std::string errorOf(F f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(Tuning, RoundTrip) {
  TempDir dir;
  Database db;
  db.key = key();
  db.merge(entry(768, 3072, 128, "int8", 0.67,
                 {{0.7, 0.44, 1.5, 1.6}, {0.9, 0.22, 2.9, 3.1}}));
  Entry f32 = entry(768, 768, 128, "fp32", 0.65, {{0.8, 0.26, 2.4, 2.5}});
  f32.matmulMs = 0.61;
  f32.matmulImpl = "brg:avx512_core";
  db.merge(f32);
  fs::path p = dir.path / "sub" / db.key.fileName();
  save(p.string(), db);
  MachineKey k = key();
  Database back = load(p.string(), &k);
  EXPECT_EQ(back.key, db.key);
  ASSERT_EQ(back.entries.size(), 2u);
  const Entry *e = back.find(768, 3072, 128, "int8");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->denseMs, 0.67);
  EXPECT_EQ(e->denseImpl, "brgemm:avx512_core");
  ASSERT_EQ(e->sparse.size(), 2u);
  EXPECT_EQ(e->sparse[1].sparsity, 0.9);
  EXPECT_EQ(e->sparse[1].ms, 0.22);
  EXPECT_EQ(e->sparse[1].ratioMin, 2.9);
  EXPECT_EQ(e->sparse[1].ratioMax, 3.1);
  // The matmul candidate (fp32) is kept; an entry without it has none.
  EXPECT_EQ(e->matmulMs, 0);
  EXPECT_FALSE(e->matmulFaster());
  const Entry *f = back.find(768, 768, 128, "fp32");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->matmulMs, 0.61);
  EXPECT_EQ(f->matmulImpl, "brg:avx512_core");
  EXPECT_TRUE(f->matmulFaster()); // 6% faster
  // Within 3% the two are a tie: the tier's default decides.
  Entry tie = *f;
  tie.matmulMs = 0.64; // 1.5% faster
  EXPECT_FALSE(tie.matmulFaster());
  tie.matmulMs = 0.628; // 3.4% faster
  EXPECT_TRUE(tie.matmulFaster());
  EXPECT_EQ(back.find(768, 3072, 128, "fp32"), nullptr);
  EXPECT_EQ(back.find(768, 3072, 64, "int8"), nullptr);
  EXPECT_EQ(back.find(768, 3072, 128, "int8", 2), nullptr);
  // Serialization is stable: saving what was loaded gives the same bytes.
  EXPECT_EQ(serialize(back), read(p));
}

TEST(Tuning, FileNameFollowsTheKey) {
  MachineKey a = key(), b = key();
  EXPECT_EQ(a.fileName(), "Test_CPU___2_0GHz-avx512f_vnni-onednn3.1.0.json");
  b.amx = true;
  EXPECT_NE(a.fileName(), b.fileName());
  b = key();
  b.onednn = "3.2.0";
  EXPECT_NE(a.fileName(), b.fileName());
  EXPECT_NE(a, b);
}

/// The key follows OPSCOPE_MAX_ISA: a capped process measures another
/// tier, so it gets another file (before, every cap shared the CPU's).
TEST(Tuning, KeyFollowsTheIsaCap) {
  const char *old = std::getenv("OPSCOPE_MAX_ISA");
  std::string saved = old ? old : "";
  setenv("OPSCOPE_MAX_ISA", "sse41", 1);
  MachineKey capped = thisMachine("2.6.3");
  EXPECT_FALSE(capped.avx2 || capped.avx512f || capped.vnni || capped.bf16 ||
               capped.amx);
  EXPECT_NE(capped.fileName().find("-noavx2-onednn2.6.3.json"),
            std::string::npos)
      << capped.fileName();
  setenv("OPSCOPE_MAX_ISA", "avx2", 1);
  MachineKey avx2 = thisMachine("2.6.3");
  EXPECT_FALSE(avx2.avx512f || avx2.vnni || avx2.bf16 || avx2.amx);
  if (avx2.avx2) { // a CPU with AVX2: another tier than the sse41 cap's
    EXPECT_NE(avx2, capped);
  }
  if (old)
    setenv("OPSCOPE_MAX_ISA", saved.c_str(), 1);
  else
    unsetenv("OPSCOPE_MAX_ISA");
  // A file written before avx2 was keyed reads as an AVX2 machine's.
  Database db;
  db.key = key();
  nlohmann::json j = nlohmann::json::parse(serialize(db));
  ASSERT_TRUE(j["machine"].contains("avx2"));
  j["machine"].erase("avx2");
  std::string text = j.dump();
  std::string dir = ::testing::TempDir() + "tuning-avx2-" +
                    std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/old.json") << text;
  Database back = load(dir + "/old.json", &db.key);
  EXPECT_TRUE(back.key.avx2);
  std::filesystem::remove_all(dir);
}

/// AVX-VNNI keys only the avx2_vnni tier: an AVX-512 CPU that has it keys
/// as before at its AVX-512 tiers, and another file at avx2_vnni than at
/// avx2; a file from before the flag reads as without it.
TEST(Tuning, AvxVnniKeysOnlyItsTier) {
  MachineKey cpu = key(); // avx512f + vnni
  cpu.avx2 = cpu.avxVnni = true;
  EXPECT_EQ(cpu.fileName(), key().fileName());
  EXPECT_EQ(cpu, key());
  MachineKey vnniTier = cpu.atTier(opscope::rt::IsaLevel::Avx2Vnni);
  MachineKey avx2Tier = cpu.atTier(opscope::rt::IsaLevel::Avx2);
  EXPECT_TRUE(vnniTier.avxVnniTier());
  EXPECT_FALSE(avx2Tier.avxVnniTier());
  EXPECT_NE(vnniTier, avx2Tier);
  EXPECT_EQ(vnniTier.fileName(), "Test_CPU___2_0GHz-avx_vnni-onednn3.1.0.json");
  EXPECT_EQ(avx2Tier.fileName(), "Test_CPU___2_0GHz-noavx512-onednn3.1.0.json");
  // oneDNN's AVX-512 caps hold no avx2_vnni bit.
  MachineKey noAvx512 = cpu;
  noAvx512.avx512f = noAvx512.vnni = false;
  EXPECT_TRUE(noAvx512.atTier(opscope::rt::IsaLevel::All).avxVnniTier());
  EXPECT_FALSE(
      noAvx512.atTier(opscope::rt::IsaLevel::Avx512Core).avxVnniTier());
  // Saved and loaded, the tier's flag survives; a file without it reads
  // as without.
  Database db;
  db.key = vnniTier;
  nlohmann::json j = nlohmann::json::parse(serialize(db));
  EXPECT_EQ(j["machine"]["avx_vnni"], true);
  std::string dir =
      ::testing::TempDir() + "tuning-avxvnni-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/new.json") << j.dump();
  EXPECT_EQ(load(dir + "/new.json", &vnniTier).key, vnniTier);
  j["machine"].erase("avx_vnni");
  std::ofstream(dir + "/old.json") << j.dump();
  EXPECT_EQ(load(dir + "/old.json", &avx2Tier).key, avx2Tier);
  std::filesystem::remove_all(dir);
}

TEST(Tuning, MergeReplacesTheSameProblemAndKeepsOthers) {
  Database db;
  db.key = key();
  db.merge(entry(768, 768, 128, "fp32", 0.65, {{0.8, 0.26, 2.4, 2.5}}));
  db.merge(entry(768, 768, 128, "bf16", 0.33, {{0.8, 0.13, 2.4, 2.5}}));
  db.merge(entry(768, 768, 128, "fp32", 0.60, {{0.9, 0.16, 3.7, 3.9}}));
  ASSERT_EQ(db.entries.size(), 2u);
  const Entry *e = db.find(768, 768, 128, "fp32");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->denseMs, 0.60);
  ASSERT_EQ(e->sparse.size(), 1u);
  EXPECT_EQ(e->sparse[0].sparsity, 0.9);
  EXPECT_NE(db.find(768, 768, 128, "bf16"), nullptr);
}

TEST(Tuning, RefusesAnotherMachine) {
  TempDir dir;
  Database db;
  db.key = key();
  fs::path p = dir.path / "db.json";
  save(p.string(), db);
  for (int change = 0; change < 3; ++change) {
    MachineKey here = key();
    if (change == 0)
      here.cpu = "Other CPU";
    else if (change == 1)
      here.amx = true;
    else
      here.onednn = "3.4.1";
    std::string msg = errorOf([&] { load(p.string(), &here); });
    EXPECT_NE(msg.find(p.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("another machine"), std::string::npos) << msg;
  }
  // Without an expected key (reading, e.g. to print it) it loads.
  EXPECT_EQ(errorOf([&] { load(p.string()); }), "");
}

TEST(Tuning, RefusesCorruptAndOtherVersions) {
  TempDir dir;
  Database db;
  db.key = key();
  db.merge(entry(8, 8, 1, "fp32", 0.1, {{0.5, 0.1, 1, 1}}));
  std::string good = serialize(db);
  struct Case {
    std::string text, expect;
  };
  auto replace = [&](const std::string &from, const std::string &to) {
    std::string s = good;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  std::vector<Case> cases = {
      {"", "not a JSON object"},
      {good.substr(0, good.size() / 2), "not a JSON object"},
      {"[1, 2]", "not a JSON object"},
      {"{}", "opscope-tuning"},
      {replace("\"version\": 1", "\"version\": 2"), "schema version 2"},
      {replace("\"version\": 1", "\"version\": \"1\""), "version"},
      {replace("\"cpu\"", "\"model\""), "'cpu'"},
      {replace("\"dense_ms\": 0.1", "\"dense_ms\": -1"), "dense_ms"},
      {replace("\"precision\": \"fp32\"", "\"precision\": \"fp16\""),
       "fp16"},
      {replace("\"sparsity\": 0.5", "\"sparsity\": 1.5"), "sparsity"},
      {replace("\"n\": 8", "\"n\": 0"), "'n'"},
  };
  for (const Case &c : cases) {
    fs::path p = dir.path / "bad.json";
    write(p, c.text);
    std::string msg = errorOf([&] { load(p.string()); });
    EXPECT_NE(msg.find(p.string()), std::string::npos) << c.text;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
  }
  std::string msg =
      errorOf([&] { load((dir.path / "missing.json").string()); });
  EXPECT_NE(msg.find("missing.json"), std::string::npos) << msg;
}

TEST(Tuning, SaveIsAtomic) {
  TempDir dir;
  Database db;
  db.key = key();
  db.merge(entry(8, 8, 1, "fp32", 0.1, {}));
  fs::path p = dir.path / "db.json";
  save(p.string(), db);
  std::string before = read(p);
  // A directory where the file should go: the rename fails, the
  // temporary is removed, nothing else changes.
  fs::path blocked = dir.path / "blocked.json";
  fs::create_directories(blocked / "x");
  std::string msg = errorOf([&] { save(blocked.string(), db); });
  EXPECT_NE(msg.find(blocked.string()), std::string::npos) << msg;
  // An unwritable directory: the temporary cannot be created.
  fs::path ro = dir.path / "ro";
  fs::create_directories(ro);
  chmod(ro.c_str(), 0555);
  if (access(ro.c_str(), W_OK) != 0) { // not root
    msg = errorOf([&] { save((ro / "db.json").string(), db); });
    EXPECT_NE(msg.find("db.json"), std::string::npos) << msg;
  }
  chmod(ro.c_str(), 0755);
  size_t files = 0;
  for (const auto &e : fs::recursive_directory_iterator(dir.path)) {
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos)
        << e.path();
    files += e.is_regular_file();
  }
  EXPECT_EQ(files, 1u);
  EXPECT_EQ(read(p), before);
}

TEST(Tuning, DefaultDirectoryFollowsTheEnvironment) {
  const char *old = std::getenv("OPSCOPE_CACHE_DIR");
  std::string saved = old ? old : "";
  setenv("OPSCOPE_CACHE_DIR", "/some/cache", 1);
  EXPECT_EQ(defaultDirectory(), "/some/cache/tuning");
  unsetenv("OPSCOPE_CACHE_DIR");
  EXPECT_NE(defaultDirectory().find(".cache/opscope/tuning"),
            std::string::npos);
  if (old)
    setenv("OPSCOPE_CACHE_DIR", saved.c_str(), 1);
}
