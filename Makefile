# opscope top-level driver. `make demo` and `make test` are the two commands a
# new checkout needs; both install missing packages first and are idempotent.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
LLVM_DIR ?= /usr/lib/llvm-19
JOBS ?= $(shell nproc)
# ccache hashes paths under the checkout relative to it, so a fresh clone at
# another path reuses what an earlier build compiled (ctest's clang-compile
# and runtime-standalone pass the same base to scripts/check_clang.py).
export CCACHE_BASEDIR ?= $(CURDIR)
# Leaks are not checked: MLIR's and oneDNN's process-lifetime caches are
# reported as leaks at exit; memory errors still abort.
ASAN_OPTIONS_TEST ?= detect_leaks=0:abort_on_error=0:detect_odr_violation=0

CMAKE_FLAGS := -G Ninja \
  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
  -DLLVM_DIR=$(LLVM_DIR)/lib/cmake/llvm \
  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/build/utils/lit/lit.py

.PHONY: all deps configure build test demo bench docs clean fuzz check-sanitize sanitize-build amx-bundle

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	@scripts/run-tests.sh $(BUILD_DIR) $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD_DIR)

bench: build
	@scripts/bench.sh $(BUILD_DIR)

# A folder under 64 MiB that measures AMX on a bare x86-64 Linux (the
# device machine, or any AMX host): tools, libraries, BERT-mini builds and
# run-amx.sh (docs/benchmarks.md, "AMX").
amx-bundle: build
	@scripts/make-amx-bundle.sh $(BUILD_DIR)

docs: build
	cmake --build $(BUILD_DIR) --target opscope-docs-update

clean:
	rm -rf $(BUILD_DIR)

# ASan+UBSan build (clang-19, RelWithDebInfo; LLVM and MLIR as Debian's
# shared libraries and without precompiled headers, as it was measured and
# fuzzed) in its own directory, shared by
# `make check-sanitize` and `make fuzz`: the libraries also carry libFuzzer's
# coverage instrumentation, so one sanitizer build serves both (docs/security.md).
SANITIZE_DIR ?= build-sanitize
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
  -fno-omit-frame-pointer -fsanitize=fuzzer-no-link
# Clang's own OpenMP runtime would be a second one next to oneDNN's libgomp.
# (libomp-19-dev provides the omp.h clang compiles against; the code links
# GCC's libgomp, as oneDNN does.)
GOMP := $(shell gcc -print-file-name=libgomp.so)
SANITIZE_CMAKE_FLAGS := $(CMAKE_FLAGS) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_C_FLAGS="$(SANITIZE_FLAGS)" -DCMAKE_CXX_FLAGS="$(SANITIZE_FLAGS)" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined -fsanitize-link-c++-runtime -lstdc++" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DOpenMP_C_FLAGS=-fopenmp=libgomp -DOpenMP_CXX_FLAGS=-fopenmp=libgomp \
  -DOpenMP_C_LIB_NAMES=gomp -DOpenMP_CXX_LIB_NAMES=gomp -DOpenMP_gomp_LIBRARY=$(GOMP) \
  -DOPSCOPE_FUZZ=ON -DOPSCOPE_PYTHON_EXTENSION=OFF -DOPSCOPE_STATIC_LLVM=OFF \
  -DOPSCOPE_PCH=OFF
# How long each fuzz harness runs under `make fuzz`, in seconds.
FUZZ_SECONDS ?= 60

$(SANITIZE_DIR)/build.ninja:
	cmake -S . -B $(SANITIZE_DIR) $(SANITIZE_CMAKE_FLAGS)

sanitize-build: deps $(SANITIZE_DIR)/build.ninja
	cmake --build $(SANITIZE_DIR) -j $(JOBS)

# The whole ctest suite (the fuzz regression corpus is one of its tests)
# under ASan+UBSan. Not part of `make test`: it takes far longer.
# Two lit tests are left out: they link a program with the system `cc`
# against the installed runtime, which cannot link an ASan-instrumented
# library (the sanitizer runtimes come with clang's driver).
# Tools/amx-bundle.test packs the build's binaries for other machines and
# runs them under env -i (no ASAN_OPTIONS): not a sanitizer matter.
SANITIZE_LIT_FILTER_OUT ?= Tools/install.test|docs-commands.test|Tools/amx-bundle.test
# The suite runs once per entry: natively, then under each OPSCOPE_MAX_ISA
# cap (oneDNN follows it), so the AVX2 tier's kernels, tails and masks are
# sanitized on an AVX-512 host too. The ISA-independent checks (clang,
# layering, generated docs) run natively only. make test's own capped runs
# (ctest label avx2) are left to the loop, which sets the cap itself; the
# dense tests under the avx512_core cap (label avx512_core) set theirs, in
# each pass. -LE avx2 is a regular expression: it also leaves out the
# labels avx2_vnni and emulated_avx2 (sanitized binaries under qemu-user
# would check the emulator's memory map, not the code).
SANITIZE_ISAS ?= native avx2
SANITIZE_ISA_INDEPENDENT := clang-compile|runtime-standalone|docs-up-to-date
check-sanitize: sanitize-build
	@status=0; for isa in $(SANITIZE_ISAS); do \
	  if [ $$isa = native ]; then cap=; skip='^$$'; else cap=$$isa; skip='$(SANITIZE_ISA_INDEPENDENT)'; fi; \
	  echo "== check-sanitize: $$isa"; \
	  (cd $(SANITIZE_DIR) && env $${cap:+OPSCOPE_MAX_ISA=$$cap} ASAN_OPTIONS=$(ASAN_OPTIONS_TEST) \
	    LIT_FILTER_OUT='$(SANITIZE_LIT_FILTER_OUT)' \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    ctest --output-on-failure -j $(JOBS) -E "$$skip" -LE avx2) || status=1; \
	done; exit $$status

# Each libFuzzer harness for FUZZ_SECONDS, one after another, from its seed
# corpus; crashes land in $(SANITIZE_DIR)/fuzz/<harness>/ (scripts/fuzz.sh).
fuzz: sanitize-build
	scripts/fuzz.sh $(SANITIZE_DIR) $(FUZZ_SECONDS)
