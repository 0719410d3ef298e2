//===- TuningDatabase.cpp - the kernel tuning database --------------------===//
//
// Part of opscope. See tuning.h and docs/tuning.md.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/tuning.h"

#include "opscope/runtime/cpu.h"
#include "opscope/runtime/file_output.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>
#include <unistd.h>

namespace fs = std::filesystem;
using json = nlohmann::ordered_json; // the file reads in schema order

namespace opscope::tuning {

bool MachineKey::operator==(const MachineKey &o) const {
  return std::tie(cpu, avx2, avx512f, vnni, bf16, amx, onednn) ==
             std::tie(o.cpu, o.avx2, o.avx512f, o.vnni, o.bf16, o.amx,
                      o.onednn) &&
         avxVnniTier() == o.avxVnniTier();
}

static std::string flagList(const MachineKey &k, const char *sep) {
  std::string s;
  auto add = [&](bool on, const char *name) {
    if (on)
      s += (s.empty() ? "" : sep) + std::string(name);
  };
  add(k.avx512f, "avx512f");
  add(k.vnni, "vnni");
  add(k.bf16, "bf16");
  add(k.amx, "amx");
  add(k.avxVnniTier(), "avx_vnni");
  if (s.empty())
    return k.avx2 ? "noavx512" : "noavx2";
  return s;
}

std::string MachineKey::describe() const {
  return cpu + " (" + flagList(*this, " ") + ", oneDNN " + onednn + ")";
}

std::string MachineKey::fileName() const {
  std::string c = cpu;
  for (char &ch : c)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return c + "-" + flagList(*this, "_") + "-onednn" + onednn + ".json";
}

MachineKey thisMachine(const std::string &onednnVersion) {
  MachineKey k;
  k.onednn = onednnVersion;
  // cpu.h's one reading of the CPU: its name, and the flags its levels
  // imply (the tiers opscope runs, which is what a measurement depends on).
  const rt::HostCpu &host = rt::hostCpu();
  k.cpu = host.model;
  k.avx2 = host.best >= rt::IsaLevel::Avx2;
  k.avx512f = host.best >= rt::IsaLevel::Avx512Core;
  k.vnni = host.best >= rt::IsaLevel::Avx512CoreVnni;
  k.bf16 = host.best >= rt::IsaLevel::Avx512CoreBf16;
  k.amx = host.best >= rt::IsaLevel::Avx512CoreAmx;
  k.avxVnni = host.avxVnni;
  // A capped process measures (and runs) the capped tier: its database is
  // that tier's, not the CPU's best.
  return k.atTier(rt::isaCapFromEnvironment().level);
}

MachineKey MachineKey::atTier(rt::IsaLevel level) const {
  MachineKey k = *this;
  k.avx2 = avx2 && level >= rt::IsaLevel::Avx2;
  k.avx512f = avx512f && level >= rt::IsaLevel::Avx512Core;
  k.vnni = vnni && level >= rt::IsaLevel::Avx512CoreVnni;
  k.bf16 = bf16 && level >= rt::IsaLevel::Avx512CoreBf16;
  k.amx = amx && level >= rt::IsaLevel::Avx512CoreAmx;
  // As cpu.h's levelWithin: AVX-VNNI is within the cap only where the cap
  // is avx2_vnni or none (avxVnniTier() then asks for no AVX-512).
  k.avxVnni = avxVnni &&
              (level == rt::IsaLevel::Avx2Vnni || level == rt::IsaLevel::All);
  return k;
}

bool Entry::sameProblem(const Entry &o) const {
  return std::tie(n, k, m, precision, block, threads) ==
         std::tie(o.n, o.k, o.m, o.precision, o.block, o.threads);
}

const Entry *Database::find(int64_t n, int64_t k, int64_t m,
                            const std::string &precision, int threads,
                            const std::string &block) const {
  Entry probe;
  probe.n = n, probe.k = k, probe.m = m, probe.precision = precision,
  probe.threads = threads, probe.block = block;
  for (const Entry &e : entries)
    if (e.sameProblem(probe))
      return &e;
  return nullptr;
}

void Database::merge(const Entry &e) {
  for (Entry &old : entries)
    if (old.sameProblem(e)) {
      old = e;
      return;
    }
  entries.push_back(e);
}

std::string defaultDirectory() {
  if (const char *d = std::getenv("OPSCOPE_CACHE_DIR"); d && *d)
    return (fs::path(d) / "tuning").string();
  const char *home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".cache" / "opscope" /
          "tuning")
      .string();
}

namespace {
[[noreturn]] void refuse(const std::string &path, const std::string &why) {
  throw Error(path + ": not a usable tuning database: " + why);
}

const json &field(const json &obj, const char *name, const std::string &path,
                  const std::string &where) {
  auto it = obj.find(name);
  if (it == obj.end())
    refuse(path, where + " has no '" + name + "'");
  return *it;
}

double number(const json &obj, const char *name, const std::string &path,
              const std::string &where, double lo) {
  const json &v = field(obj, name, path, where);
  if (!v.is_number() || !(v.get<double>() >= lo))
    refuse(path, where + "'s '" + name + "' is not a number >= " +
                     std::to_string(lo).substr(0, 3));
  return v.get<double>();
}

std::string text(const json &obj, const char *name, const std::string &path,
                 const std::string &where) {
  const json &v = field(obj, name, path, where);
  if (!v.is_string())
    refuse(path, where + "'s '" + name + "' is not a string");
  return v.get<std::string>();
}

bool flag(const json &obj, const char *name, const std::string &path) {
  const json &v = field(obj, name, path, "machine");
  if (!v.is_boolean())
    refuse(path, std::string("machine's '") + name + "' is not a boolean");
  return v.get<bool>();
}
} // namespace

Database parse(const std::string &textIn, const std::string &path,
               const MachineKey *expected) {
  json j = json::parse(textIn, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    refuse(path, "not a JSON object");
  auto schema = j.find("schema");
  if (schema == j.end() || !schema->is_string() ||
      *schema != "opscope-tuning")
    refuse(path, "no \"schema\": \"opscope-tuning\"");
  auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer())
    refuse(path, "no integer 'version'");
  if (*version != kSchemaVersion)
    refuse(path, "schema version " + version->dump() + ", this opscope "
                 "reads version " + std::to_string(kSchemaVersion) +
                 " (re-run opscope-tune)");
  Database db;
  const json &m = field(j, "machine", path, "the file");
  if (!m.is_object())
    refuse(path, "'machine' is not an object");
  db.key.cpu = text(m, "cpu", path, "machine");
  db.key.onednn = text(m, "onednn", path, "machine");
  // A file from before avx2 was keyed says nothing of it: it matches.
  db.key.avx2 = m.contains("avx2") ? flag(m, "avx2", path)
                : expected         ? expected->avx2
                                   : true;
  db.key.avx512f = flag(m, "avx512f", path);
  db.key.vnni = flag(m, "avx512_vnni", path);
  db.key.bf16 = flag(m, "avx512_bf16", path);
  db.key.amx = flag(m, "amx", path);
  db.key.avxVnni = m.contains("avx_vnni") && flag(m, "avx_vnni", path);
  const json &entries = field(j, "entries", path, "the file");
  if (!entries.is_array())
    refuse(path, "'entries' is not an array");
  for (size_t i = 0; i < entries.size(); ++i) {
    const json &e = entries[i];
    std::string where = "entry " + std::to_string(i);
    if (!e.is_object())
      refuse(path, where + " is not an object");
    Entry out;
    out.n = static_cast<int64_t>(number(e, "n", path, where, 1));
    out.k = static_cast<int64_t>(number(e, "k", path, where, 1));
    out.m = static_cast<int64_t>(number(e, "m", path, where, 1));
    out.threads = static_cast<int>(number(e, "threads", path, where, 1));
    out.precision = text(e, "precision", path, where);
    if (out.precision != "fp32" && out.precision != "bf16" &&
        out.precision != "int8")
      refuse(path, where + "'s precision '" + out.precision +
                       "' is not fp32, bf16 or int8");
    out.block = text(e, "block", path, where);
    out.denseMs = number(e, "dense_ms", path, where, 0);
    out.denseImpl = text(e, "dense_impl", path, where);
    out.sparseImpl = text(e, "sparse_impl", path, where);
    if (e.contains("matmul_ms")) {
      out.matmulMs = number(e, "matmul_ms", path, where, 0);
      out.matmulImpl = text(e, "matmul_impl", path, where);
    }
    const json &sp = field(e, "sparse", path, where);
    if (!sp.is_array())
      refuse(path, where + "'s 'sparse' is not an array");
    for (const json &p : sp) {
      if (!p.is_object())
        refuse(path, where + "'s 'sparse' holds a non-object");
      SparsePoint pt;
      pt.sparsity = number(p, "sparsity", path, where, 0);
      if (pt.sparsity >= 1)
        refuse(path, where + " has a sparsity >= 1");
      pt.ms = number(p, "ms", path, where, 0);
      pt.ratioMin = number(p, "ratio_min", path, where, 0);
      pt.ratioMax = number(p, "ratio_max", path, where, 0);
      out.sparse.push_back(pt);
    }
    std::sort(out.sparse.begin(), out.sparse.end(),
              [](const SparsePoint &a, const SparsePoint &b) {
                return a.sparsity < b.sparsity;
              });
    db.merge(out);
  }
  return db;
}

std::string serialize(const Database &db) {
  json j;
  j["schema"] = "opscope-tuning";
  j["version"] = kSchemaVersion;
  j["machine"] = {{"cpu", db.key.cpu},
                  {"avx2", db.key.avx2},
                  {"avx512f", db.key.avx512f},
                  {"avx512_vnni", db.key.vnni},
                  {"avx512_bf16", db.key.bf16},
                  {"amx", db.key.amx},
                  {"avx_vnni", db.key.avxVnniTier()},
                  {"onednn", db.key.onednn}};
  std::vector<Entry> sorted = db.entries;
  std::sort(sorted.begin(), sorted.end(), [](const Entry &a, const Entry &b) {
    return std::tie(a.precision, a.n, a.k, a.m, a.block, a.threads) <
           std::tie(b.precision, b.n, b.k, b.m, b.block, b.threads);
  });
  json entries = json::array();
  for (const Entry &e : sorted) {
    json sp = json::array();
    for (const SparsePoint &p : e.sparse)
      sp.push_back({{"sparsity", p.sparsity},
                    {"ms", p.ms},
                    {"ratio_min", p.ratioMin},
                    {"ratio_max", p.ratioMax}});
    entries.push_back({{"n", e.n},
                       {"k", e.k},
                       {"m", e.m},
                       {"precision", e.precision},
                       {"block", e.block},
                       {"threads", e.threads},
                       {"dense_ms", e.denseMs},
                       {"dense_impl", e.denseImpl},
                       {"sparse_impl", e.sparseImpl},
                       {"sparse", sp}});
    if (e.matmulMs > 0) {
      entries.back()["matmul_ms"] = e.matmulMs;
      entries.back()["matmul_impl"] = e.matmulImpl;
    }
  }
  j["entries"] = entries;
  return j.dump(2) + "\n";
}

Database load(const std::string &path, const MachineKey *expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot read the tuning database");
  std::ostringstream ss;
  ss << in.rdbuf();
  Database db = parse(ss.str(), path, expected);
  if (expected && db.key != *expected)
    throw Error(path + ": tuning database of another machine: measured on " +
                db.key.describe() + ", this is " + expected->describe() +
                "; refusing to use it (re-run opscope-tune here)");
  return db;
}

bool tryLoad(const std::string &path, const MachineKey *expected,
             Database &out, std::string &error) {
  try {
    out = load(path, expected);
    return true;
  } catch (const std::exception &e) {
    error = e.what();
    return false;
  }
}

void save(const std::string &path, const Database &db) {
  fs::path p(path);
  std::error_code ec;
  if (p.has_parent_path())
    fs::create_directories(p.parent_path(), ec);
  if (ec)
    throw Error(path + ": cannot create the directory: " + ec.message());
  std::string error = writeFileAtomically(path, serialize(db));
  if (!error.empty())
    throw Error(path + ": cannot write the tuning database: " +
                error.substr(path.size() + 2));
}

} // namespace opscope::tuning
