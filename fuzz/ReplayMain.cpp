//===- ReplayMain.cpp - run a fuzz harness on files -----------------------===//
//
// Part of opscope. Builds without libFuzzer link this instead: each
// argument is a file (or a directory of files) passed once to
// LLVMFuzzerTestOneInput, so every build can replay the regression corpus
// (test/fuzz-regressions) through the harnesses.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void runFile(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  std::printf("replay %s (%zu bytes)\n", p.c_str(), bytes.size());
  std::fflush(stdout);
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                         bytes.size());
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto &e : std::filesystem::directory_iterator(p))
        if (e.is_regular_file())
          runFile(e.path());
    } else {
      runFile(p);
    }
  }
  return 0;
}
