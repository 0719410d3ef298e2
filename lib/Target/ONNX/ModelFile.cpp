//===- ModelFile.cpp - reading ONNX model files, MLIR-free ----------------===//
//
// Part of opscope. Model parsing (binary or .onnxtext) and the checks on
// external data that treat a model as untrusted. Standard library, libonnx
// and protobuf only: the importer and opscope-prune share it.
//
//===----------------------------------------------------------------------===//

#include "opscope/Target/ONNX/ModelFile.h"

#include <onnx/defs/parser.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>

namespace fs = std::filesystem;
using namespace opscope;

bool onnx_model::isTextModelPath(std::string_view path) {
  auto endsWith = [&](std::string_view suffix) {
    return path.size() >= suffix.size() &&
           path.substr(path.size() - suffix.size()) == suffix;
  };
  return endsWith(".onnxtext") || endsWith(".onnxtxt");
}

bool onnx_model::parseModel(std::string_view bytes, std::string_view path,
                            bool isText, onnx::ModelProto &model,
                            std::string &error) {
  if (isText) {
    std::string text(bytes);
    try {
      auto status = onnx::OnnxParser::Parse(model, text.c_str());
      if (!status.IsOK()) {
        error = std::string(path) +
                ": cannot parse ONNX text: " + status.ErrorMessage();
        return false;
      }
    } catch (const std::exception &e) {
      // libonnx's parser throws on some malformed numbers.
      error = std::string(path) + ": cannot parse ONNX text: " + e.what();
      return false;
    }
    return true;
  }
  if (bytes.size() > static_cast<size_t>(INT_MAX) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    error = std::string(path) +
            ": not a valid ONNX protobuf (truncated or not an ONNX file)";
    return false;
  }
  return true;
}

bool onnx_model::readModelFile(const std::string &path, onnx::ModelProto &model,
                               std::string &error) {
  auto fail = [&](const std::string &why) {
    error = path + ": cannot read model: " + why;
    return false;
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return fail(std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fail(std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    // A FIFO or a device would block or never end: only regular files.
    ::close(fd);
    return fail("not a regular file");
  }
  // Mapped, not copied: a model can be hundreds of MB.
  size_t size = static_cast<size_t>(st.st_size);
  void *p =
      size ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
  int err = errno;
  ::close(fd);
  if (p == MAP_FAILED)
    return fail(std::strerror(err));
  bool ok = parseModel(std::string_view(static_cast<const char *>(p), size),
                       path, isTextModelPath(path), model, error);
  if (p)
    ::munmap(p, size);
  return ok;
}

std::string onnx_model::modelDirectory(const std::string &path) {
  return fs::path(path).parent_path().string();
}

bool onnx_model::resolveExternalData(const onnx::TensorProto &t,
                                     const std::string &modelDir,
                                     ExternalData &data, std::string &error) {
  std::string what = "tensor '" + t.name() + "'";
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      const std::string &s = kv.value();
      int64_t v = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || ec != std::errc() || end != s.data() + s.size() ||
          v < 0) {
        error = what + " has an external-data " + kv.key() + " '" + s +
                "' that is not a non-negative integer";
        return false;
      }
      (kv.key() == "offset" ? offset : length) = v;
    }
  }
  if (location.empty() || fs::path(location).is_absolute()) {
    error = what + " has an external-data location '" + location +
            "' that is not a path relative to the model's directory";
    return false;
  }
  fs::path dir = modelDir.empty() ? fs::path(".") : fs::path(modelDir);
  fs::path file = dir / location;
  std::error_code ec;
  fs::path realDir = fs::canonical(dir, ec);
  fs::path realFile = ec ? fs::path() : fs::canonical(file, ec);
  if (ec) {
    error = what + " reads external data from '" + file.string() +
            "': no such file";
    return false;
  }
  // Inside: the directory's components are a proper prefix of the file's
  // (after `..` and symbolic links, so neither can lead out).
  auto [d, f] = std::mismatch(realDir.begin(), realDir.end(), realFile.begin(),
                              realFile.end());
  if (d != realDir.end() || f == realFile.end()) {
    error = what + " has an external-data location '" + location +
            "' outside the model's directory (" + realDir.string() + ")";
    return false;
  }
  if (!fs::is_regular_file(realFile, ec)) {
    error = what + " has an external-data location '" + location +
            "' that is not a regular file";
    return false;
  }
  uint64_t size = fs::file_size(realFile, ec);
  if (ec) {
    error = what + " reads external data from '" + file.string() +
            "': " + ec.message();
    return false;
  }
  if (length < 0)
    length = static_cast<int64_t>(size) - offset;
  int64_t end = 0;
  if (length < 0 || __builtin_add_overflow(offset, length, &end) ||
      static_cast<uint64_t>(end) > size) {
    error = what + " reads past the end of external data file '" +
            file.string() + "'";
    return false;
  }
  data.location = location;
  data.path = file.string();
  data.realPath = realFile.string();
  data.offset = static_cast<uint64_t>(offset);
  data.length = static_cast<uint64_t>(length);
  return true;
}

bool onnx_model::readExternalData(const onnx::TensorProto &t,
                                  const ExternalData &data, std::string &bytes,
                                  std::string &error) {
  std::string what = "tensor '" + t.name() + "'";
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(
      std::fopen(data.realPath.c_str(), "rb"), &std::fclose);
  if (!f) {
    error = what + " reads external data from '" + data.path +
            "': " + std::strerror(errno);
    return false;
  }
  bytes.resize(data.length);
  if (::fseeko(f.get(), static_cast<off_t>(data.offset), SEEK_SET) != 0 ||
      std::fread(bytes.data(), 1, bytes.size(), f.get()) != bytes.size()) {
    error =
        what + " reads past the end of external data file '" + data.path + "'";
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Every tensor of a model
//===----------------------------------------------------------------------===//

using TensorFn = std::function<void(onnx::TensorProto &)>;
static void visitGraph(onnx::GraphProto &graph, const TensorFn &fn);

static void visitSparse(onnx::SparseTensorProto &s, const TensorFn &fn) {
  // has_ checks throughout: mutable_x() would add an absent field and
  // change the model.
  if (s.has_values())
    fn(*s.mutable_values());
  if (s.has_indices())
    fn(*s.mutable_indices());
}

static void visitNode(onnx::NodeProto &node, const TensorFn &fn) {
  for (auto &a : *node.mutable_attribute()) {
    if (a.has_t())
      fn(*a.mutable_t());
    for (auto &t : *a.mutable_tensors())
      fn(t);
    if (a.has_sparse_tensor())
      visitSparse(*a.mutable_sparse_tensor(), fn);
    for (auto &s : *a.mutable_sparse_tensors())
      visitSparse(s, fn);
    if (a.has_g())
      visitGraph(*a.mutable_g(), fn);
    for (auto &g : *a.mutable_graphs())
      visitGraph(g, fn);
  }
}

static void visitGraph(onnx::GraphProto &graph, const TensorFn &fn) {
  for (auto &t : *graph.mutable_initializer())
    fn(t);
  for (auto &s : *graph.mutable_sparse_initializer())
    visitSparse(s, fn);
  for (auto &n : *graph.mutable_node())
    visitNode(n, fn);
}

void onnx_model::forEachTensor(onnx::ModelProto &model, const TensorFn &fn) {
  if (model.has_graph())
    visitGraph(*model.mutable_graph(), fn);
  for (auto &f : *model.mutable_functions())
    for (auto &n : *f.mutable_node())
      visitNode(n, fn);
}

bool onnx_model::loadExternalData(onnx::ModelProto &model,
                                  const std::string &modelDir,
                                  std::vector<onnx::TensorProto *> &moved,
                                  std::string &error) {
  bool ok = true;
  forEachTensor(model, [&](onnx::TensorProto &t) {
    if (!ok || t.data_location() != onnx::TensorProto::EXTERNAL)
      return;
    ExternalData data;
    std::string bytes;
    if (!resolveExternalData(t, modelDir, data, error) ||
        !readExternalData(t, data, bytes, error)) {
      ok = false;
      return;
    }
    t.set_raw_data(std::move(bytes));
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
    moved.push_back(&t);
  });
  return ok;
}

//===----------------------------------------------------------------------===//
// Writing, atomically
//===----------------------------------------------------------------------===//

std::string onnx_model::externalDataPathFor(const std::string &path) {
  return path + ".data";
}

namespace {
/// Temporaries that SIGINT, SIGTERM and SIGHUP remove (a data file can be
/// as large as the model). Fixed storage: the handler may only unlink.
constexpr int kMaxTemps = 4;
char tempPaths[kMaxTemps][4096];
volatile sig_atomic_t tempUsed[kMaxTemps];

extern "C" void removeTempsAndDie(int sig) {
  for (int i = 0; i < kMaxTemps; ++i)
    if (tempUsed[i])
      ::unlink(tempPaths[i]);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

/// A temporary next to `dest`, renamed onto it by commit(), removed
/// otherwise.
class TempFile {
public:
  explicit TempFile(std::string dest) : dest(std::move(dest)) {}
  ~TempFile() { discard(); }

  /// Creates the file; false with `error` naming `dest` on failure.
  bool create(std::string &error) {
    std::string pattern = dest + ".tmp-XXXXXX";
    if (pattern.size() >= sizeof(tempPaths[0])) {
      error = "cannot write '" + dest + "': path too long";
      return false;
    }
    static bool handlers = [] {
      for (int sig : {SIGINT, SIGTERM, SIGHUP})
        ::signal(sig, removeTempsAndDie);
      return true;
    }();
    (void)handlers;
    for (slot = 0; slot < kMaxTemps && tempUsed[slot]; ++slot)
      ;
    if (slot == kMaxTemps) {
      error = "cannot write '" + dest + "': too many temporary files";
      return false;
    }
    std::memcpy(tempPaths[slot], pattern.c_str(), pattern.size() + 1);
    int fd = ::mkstemp(tempPaths[slot]);
    if (fd < 0) {
      error = "cannot write '" + dest + "': " + std::strerror(errno);
      slot = -1;
      return false;
    }
    tempUsed[slot] = 1;
    // mkstemp makes 0600; the output gets the mode any new file would.
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    file = ::fdopen(fd, "wb");
    if (!file) {
      error = "cannot write '" + dest + "': " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    return true;
  }

  std::FILE *stream() { return file; }

  /// Flushes and closes; false with `error` on a write error (disk full).
  bool close(std::string &error) {
    bool bad = std::ferror(file) != 0;
    int err = errno;
    if (std::fclose(file) != 0 && !bad) {
      bad = true;
      err = errno;
    }
    file = nullptr;
    if (bad)
      error = "cannot write '" + dest + "': " + std::strerror(err);
    return !bad;
  }

  bool commit(std::string &error) {
    if (::rename(tempPaths[slot], dest.c_str()) != 0) {
      error = "cannot write '" + dest + "': " + std::strerror(errno);
      return false;
    }
    tempUsed[slot] = 0;
    slot = -1;
    return true;
  }

  void discard() {
    if (file)
      std::fclose(file);
    file = nullptr;
    if (slot >= 0 && tempUsed[slot]) {
      ::unlink(tempPaths[slot]);
      tempUsed[slot] = 0;
    }
    slot = -1;
  }

private:
  std::string dest;
  int slot = -1;
  std::FILE *file = nullptr;
};
} // namespace

bool onnx_model::writeModelFile(
    onnx::ModelProto &model, const std::vector<onnx::TensorProto *> &external,
    const std::string &path, std::string &error) {
  std::string dataPath = externalDataPathFor(path);
  TempFile dataFile(dataPath), modelFile(path);
  if (!external.empty()) {
    if (!dataFile.create(error))
      return false;
    std::string location = fs::path(dataPath).filename().string();
    uint64_t offset = 0;
    static const char zeros[64] = {};
    for (onnx::TensorProto *t : external) {
      // 64-byte aligned, so the importer's mapped blobs are aligned too.
      uint64_t pad = (64 - offset % 64) % 64;
      std::fwrite(zeros, 1, pad, dataFile.stream());
      offset += pad;
      const std::string &raw = t->raw_data();
      std::fwrite(raw.data(), 1, raw.size(), dataFile.stream());
      t->clear_external_data();
      auto add = [&](const char *key, const std::string &value) {
        auto *kv = t->add_external_data();
        kv->set_key(key);
        kv->set_value(value);
      };
      add("location", location);
      add("offset", std::to_string(offset));
      add("length", std::to_string(raw.size()));
      t->set_data_location(onnx::TensorProto::EXTERNAL);
      offset += raw.size();
      t->clear_raw_data();
    }
    if (!dataFile.close(error))
      return false;
  }
  if (model.ByteSizeLong() > static_cast<size_t>(INT_MAX)) {
    error = "cannot write '" + path +
            "': the model is larger than 2 GB, more than protobuf can write "
            "(store its weights as external data)";
    return false;
  }
  if (!modelFile.create(error))
    return false;
  std::string bytes = model.SerializeAsString();
  std::fwrite(bytes.data(), 1, bytes.size(), modelFile.stream());
  if (!modelFile.close(error))
    return false;
  if (!external.empty() && !dataFile.commit(error))
    return false;
  return modelFile.commit(error);
}
