//===- Progress.h - one progress line for long steps ------------*- C++ -*-===//
//
// Part of opscope. Header-only, shared by every tool. A step that may take
// more than about two seconds (compiling a large model, a long run, a bench
// grid, tuning, a sensitivity profile) reports through a Progress: on a
// terminal it redraws one line on stderr, at most ten times a second, once
// the step has run for two seconds; when stderr is not a terminal it prints
// nothing, so logs and pipes stay clean.
//
// OPSCOPE_PROGRESS=always shows it from the first update even off a terminal
// (tests use it), =never hides it on a terminal; anything else is the default.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_COMMON_PROGRESS_H
#define OPSCOPE_TOOLS_COMMON_PROGRESS_H

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <unistd.h>

namespace opscope::tools {

class Progress {
public:
  /// `task` names the step ("compiling bert.onnx"); `total` is the number of
  /// units of work, 0 when unknown.
  explicit Progress(std::string task, size_t total = 0, FILE *out = stderr)
      : task_(std::move(task)), total_(total), out_(out),
        start_(Clock::now()) {
    const char *mode = std::getenv("OPSCOPE_PROGRESS");
    if (mode && std::strcmp(mode, "always") == 0) {
      enabled_ = true;
      delay_ = 0.0;
    } else if (mode && std::strcmp(mode, "never") == 0) {
      enabled_ = false;
    } else {
      enabled_ = isatty(fileno(out_)) != 0;
    }
  }
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;
  ~Progress() { finish(); }

  /// Whether this progress line is shown at all.
  bool enabled() const { return enabled_; }

  /// Seconds since the step began.
  double elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

  /// Reports `done` units finished, with an optional detail ("layer 3 of
  /// 36"). Cheap when nothing is drawn.
  void update(size_t done, const std::string &detail = "") {
    if (!enabled_)
      return;
    double s = elapsed();
    if (s < delay_ || (drawn_ && s - lastDraw_ < 0.1 && done != total_))
      return;
    lastDraw_ = s;
    drawn_ = true;
    std::string line = "\r\033[K" + task_;
    char buf[96];
    if (total_ > 0) {
      std::snprintf(buf, sizeof buf, " [%zu/%zu]", done, total_);
      line += buf;
    }
    if (!detail.empty())
      line += " " + detail;
    if (total_ > 0 && done > 0 && done < total_) {
      double left = s / double(done) * double(total_ - done);
      std::snprintf(buf, sizeof buf, " (%.0f s, ~%.0f s left)", s, left);
    } else {
      std::snprintf(buf, sizeof buf, " (%.0f s)", s);
    }
    line += buf;
    std::fputs(line.c_str(), out_);
    std::fflush(out_);
  }

  /// Clears the line (a finished step leaves no trace); idempotent.
  void finish() {
    if (drawn_) {
      // Off a terminal (OPSCOPE_PROGRESS=always) the last state stays
      // readable on its own line.
      std::fputs(isatty(fileno(out_)) ? "\r\033[K" : "\n", out_);
      std::fflush(out_);
    }
    drawn_ = false;
  }

private:
  using Clock = std::chrono::steady_clock;
  std::string task_;
  size_t total_;
  FILE *out_;
  Clock::time_point start_;
  bool enabled_ = false;
  bool drawn_ = false;
  double delay_ = 2.0;
  double lastDraw_ = 0.0;
};

} // namespace opscope::tools

#endif // OPSCOPE_TOOLS_COMMON_PROGRESS_H
