//===- Subprocess.h - run another tool and read its output ------*- C++ -*-===//
//
// Part of opscope. Header-only, shared by the tools that drive others
// (opscope-bench runs node and opscope-report, opscope-profile runs
// opscope-prune): fork and exec without a shell (no quoting of paths),
// stdout captured, stderr passed through.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_COMMON_SUBPROCESS_H
#define OPSCOPE_TOOLS_COMMON_SUBPROCESS_H

#include <sys/wait.h>
#include <unistd.h>

#include "opscope/runtime/tooling/model_files.h"

#include <string>
#include <vector>

namespace opscope::tools {

/// Runs `args`, capturing stdout; the exit status, or -1 when it could not
/// start. stderr passes through.
inline int runCapture(const std::vector<std::string> &args, std::string &out) {
  int pipefd[2];
  if (pipe(pipefd) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], STDOUT_FILENO);
    close(pipefd[0]);
    close(pipefd[1]);
    std::vector<char *> argv;
    for (const std::string &a : args)
      argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(pipefd[1]);
  if (pid < 0) {
    close(pipefd[0]);
    return -1;
  }
  char buf[4096];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;)
    out.append(buf, n);
  close(pipefd[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status);
}

/// The path of another opscope tool: tooling::siblingToolPath's (next to
/// the running executable, or in $OPSCOPE_TOOL_DIR), else the bare name
/// (found on PATH).
inline std::string siblingTool(const std::string &name) {
  std::string tool = tooling::siblingToolPath(name);
  return tool.empty() ? name : tool;
}

} // namespace opscope::tools

#endif // OPSCOPE_TOOLS_COMMON_SUBPROCESS_H
