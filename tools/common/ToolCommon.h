//===- ToolCommon.h - what every opscope tool does the same way -*- C++ -*-===//
//
// Part of opscope. Header-only, so the MLIR tools and the runtime tools
// (which link no MLIR) share it: one exit-code convention (0 ok, 1 failure,
// 2 usage, --help and --version 0), one --version text, and flag validators
// whose messages say what is expected.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_COMMON_TOOLCOMMON_H
#define OPSCOPE_TOOLS_COMMON_TOOLCOMMON_H

#include "ToolVersion.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace opscope::tools {

/// Exit codes of every opscope tool.
enum ExitCode { kOk = 0, kFailure = 1, kUsage = 2 };

/// A tool's error line, "TOOL: error: MESSAGE" on stderr, returning the
/// exit code: each tool declares `const tools::ErrorReporter fail{"TOOL"};`
/// and writes `return fail("...")` (1) or `return fail("...", kUsage)` (2).
class ErrorReporter {
public:
  explicit constexpr ErrorReporter(const char *tool) : tool_(tool) {}
  int operator()(const std::string &message, int code = kFailure) const {
    std::cerr << tool_ << ": error: " << message << "\n";
    return code;
  }

private:
  const char *tool_;
};

/// Adds --version to `app`.
inline void addVersionFlag(CLI::App &app, const std::string &tool) {
  app.set_version_flag("--version", versionText(tool));
}

/// Parses the command line. Returns -1 to go on, else the exit code:
/// 0 after --help or --version, 2 after a usage error (already printed,
/// naming the flag).
inline int parseCommandLine(CLI::App &app, int argc, char **argv) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  }
}

/// The what-if projection's database options, as opscope-analyze and
/// opscope-report take them: --precision of the entries and --db FILE.
inline void addWhatIfDatabaseOptions(CLI::App &app, std::string &precision,
                                     std::string &db) {
  app.add_option("--precision", precision,
                 "with --what-if: the precision of the database entries "
                 "(fp32, bf16, int8); default each op's own")
      ->check(CLI::IsMember({"fp32", "bf16", "int8"}));
  app.add_option("--db", db,
                 "with --what-if: tuning database (default: this machine's, "
                 "written by opscope-tune)");
}

/// The importer's input flags, as opscope-compile and opscope-translate
/// take them: --input-shape NAME=DIMS and --freeze-input NAME=FILE.pb.
inline void addImportInputOptions(CLI::App &app,
                                  std::vector<std::string> &shapes,
                                  std::vector<std::string> &frozen) {
  app.add_option("--input-shape", shapes,
                 "static shape of a graph input, NAME=DIMS (e.g. "
                 "input_ids=1x128); repeat per input")
      ->take_all();
  app.add_option("--freeze-input", frozen,
                 "replace a graph input by a constant, NAME=FILE.pb (an ONNX "
                 "TensorProto); repeat per input")
      ->take_all();
}

/// A non-negative integer flag, with a message that says so (CLI11's own
/// prints the range up to 1.8e308).
inline CLI::Validator nonNegativeInteger() {
  return CLI::Validator(
      [](std::string &s) -> std::string {
        try {
          size_t used = 0;
          long long v = std::stoll(s, &used);
          if (used == s.size() && v >= 0)
            return "";
        } catch (const std::exception &) {
        }
        return "expected a non-negative integer, got '" + s + "'";
      },
      "N>=0");
}

/// A byte count: N, or N with a binary suffix K, M, G or T (1K = 1024).
/// Returns false when `text` is none of these or overflows int64.
inline bool parseByteCount(const std::string &text, int64_t &bytes) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception &) {
    return false;
  }
  if (v <= 0)
    return false;
  int shift = 0;
  std::string suffix = text.substr(used);
  if (suffix == "K" || suffix == "k")
    shift = 10;
  else if (suffix == "M")
    shift = 20;
  else if (suffix == "G")
    shift = 30;
  else if (suffix == "T")
    shift = 40;
  else if (!suffix.empty())
    return false;
  if (v > (static_cast<long long>(INT64_MAX) >> shift))
    return false;
  bytes = static_cast<int64_t>(v) << shift;
  return true;
}

/// A positive byte-count flag (--max-tensor-bytes 8G).
inline CLI::Validator byteCount() {
  return CLI::Validator(
      [](std::string &s) -> std::string {
        int64_t bytes = 0;
        return parseByteCount(s, bytes)
                   ? ""
                   : "expected a positive byte count like 4294967296, 512M "
                     "or 4G, got '" + s + "'";
      },
      "BYTES");
}

/// A positive integer flag.
inline CLI::Validator positiveInteger() {
  return CLI::Validator(
      [](std::string &s) -> std::string {
        try {
          size_t used = 0;
          long long v = std::stoll(s, &used);
          if (used == s.size() && v > 0)
            return "";
        } catch (const std::exception &) {
        }
        return "expected a positive integer, got '" + s + "'";
      },
      "N>0");
}

/// A ratio strictly between 0 and 1 (--sparsity 0.8).
inline CLI::Validator openUnitRatio() {
  return CLI::Validator(
      [](std::string &s) -> std::string {
        try {
          size_t used = 0;
          double v = std::stod(s, &used);
          if (used == s.size() && v > 0.0 && v < 1.0)
            return "";
        } catch (const std::exception &) {
        }
        return "expected a ratio in (0, 1), e.g. 0.8, got '" + s + "'";
      },
      "RATIO");
}

} // namespace opscope::tools

#endif // OPSCOPE_TOOLS_COMMON_TOOLCOMMON_H
