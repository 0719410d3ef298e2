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
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
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
