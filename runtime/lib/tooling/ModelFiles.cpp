//===- ModelFiles.cpp - model path kinds and the compile cache -------------===//
//
// Part of opscope's runtime tooling.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/tooling/model_files.h"

#include "opscope/runtime/sinks.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>

using namespace opscope::tooling;
namespace fs = std::filesystem;

ModelFileKind opscope::tooling::classifyModelFile(const std::string &path) {
  std::string ext = fs::path(path).extension().string();
  if (ext == ".so")
    return ModelFileKind::Library;
  if (ext == ".onnx")
    return ModelFileKind::Onnx;
  if (ext == ".onnxtext")
    return ModelFileKind::OnnxText;
  if (ext == ".mlir")
    return ModelFileKind::Mlir;
  return ModelFileKind::Unknown;
}

std::string opscope::tooling::defaultCacheDir() {
  if (const char *dir = std::getenv("OPSCOPE_CACHE_DIR"); dir && *dir)
    return dir;
  const char *home = std::getenv("HOME");
  return (fs::path(home && *home ? home : "/tmp") / ".cache/opscope/compiled")
      .string();
}

std::string opscope::tooling::siblingToolPath(const std::string &name) {
  std::error_code ec;
  const char *dir = std::getenv("OPSCOPE_TOOL_DIR");
  fs::path tool =
      (dir && *dir ? fs::path(dir)
                   : fs::read_symlink("/proc/self/exe", ec).parent_path()) /
      name;
  return !ec && fs::exists(tool) ? tool.string() : std::string();
}

namespace {
/// The opscope-compile a cache miss runs: the request's, else
/// siblingToolPath's, else the first on PATH, else the bare name (execvp
/// then fails and says so).
std::string compilerPath(const CompileRequest &r) {
  if (!r.compiler.empty())
    return r.compiler;
  std::string compiler = opscope::tooling::siblingToolPath("opscope-compile");
  if (!compiler.empty())
    return compiler;
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t begin = 0; begin <= dirs.size();) {
    size_t end = dirs.find(':', begin);
    if (end == std::string::npos)
      end = dirs.size();
    fs::path candidate =
        fs::path(dirs.substr(begin, end - begin)) / "opscope-compile";
    if (end > begin && access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
    begin = end + 1;
  }
  return "opscope-compile";
}
} // namespace

std::string opscope::tooling::cachedLibraryPath(const CompileRequest &r,
                                                const std::string &cacheDir,
                                                std::string &error) {
  struct stat st;
  if (stat(r.model.c_str(), &st) != 0) {
    error = r.model + ": " + std::strerror(errno);
    return "";
  }
  std::string key = fs::absolute(r.model).string() + "|" +
                    std::to_string(st.st_size) + "|" +
                    std::to_string(st.st_mtime) + "|" + (r.noFuse ? "n" : "") +
                    (r.noProbes ? "p" : "");
  for (const std::string &s : r.inputShapes)
    key += "|" + s;
  for (const std::string &f : r.extraFlags)
    key += "|flag:" + f;
  // The tier the build is for (the CPU under OPSCOPE_MAX_ISA): the compiler
  // chooses kernels and layouts from this machine's tuning database and
  // CPU, so a library built under one cap is not reused under another.
  key += "|tier:" + kernelIsaName();
  // And the compiler that builds it: a new opscope-compile (an upgrade, a
  // rebuild) compiles again instead of reusing an older one's library. (No
  // compiler found: the key says so, and the compile will fail anyway.)
  std::string compiler = compilerPath(r);
  struct stat cst;
  key += stat(compiler.c_str(), &cst) == 0
             ? "|compiler:" + compiler + "|" + std::to_string(cst.st_size) +
                   "|" + std::to_string(cst.st_mtime)
             : std::string("|compiler:?");
  std::ostringstream hex;
  hex << std::hex << std::hash<std::string>()(key);
  return (fs::path(cacheDir) /
          (fs::path(r.model).stem().string() + "-" + hex.str() + ".so"))
      .string();
}

std::vector<std::string>
opscope::tooling::compileCommand(const CompileRequest &r,
                                 const std::string &out) {
  std::vector<std::string> args = {compilerPath(r), r.model, "-o", out};
  for (const std::string &s : r.inputShapes) {
    args.push_back("--input-shape");
    args.push_back(s);
  }
  if (r.noProbes)
    args.push_back("--no-probes");
  if (r.noFuse)
    args.push_back("--no-fuse");
  args.insert(args.end(), r.extraFlags.begin(), r.extraFlags.end());
  return args;
}

std::string opscope::tooling::compileIntoCache(const CompileRequest &r,
                                               const std::string &cacheDir,
                                               std::string &error) {
  std::string out = cachedLibraryPath(r, cacheDir, error);
  if (out.empty())
    return "";
  if (fs::exists(out) && fs::exists(fs::path(out).replace_extension(".weights")))
    return out;
  std::error_code ec;
  fs::create_directories(cacheDir, ec);
  if (ec) {
    error = cacheDir + ": " + ec.message();
    return "";
  }
  std::vector<std::string> args = compileCommand(r, out);
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    error = "compiling " + r.model + " failed" +
            (WIFEXITED(status) && WEXITSTATUS(status) == 127
                 ? " (opscope-compile not found next to this tool or on PATH)"
                 : " (see the messages above)");
    return "";
  }
  return out;
}
