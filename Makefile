# opscope top-level driver. `make demo` and `make test` are the two commands a
# new checkout needs; both install missing packages first and are idempotent.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
LLVM_DIR ?= /usr/lib/llvm-19
JOBS ?= $(shell nproc)

CMAKE_FLAGS := -G Ninja \
  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
  -DLLVM_DIR=$(LLVM_DIR)/lib/cmake/llvm \
  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/build/utils/lit/lit.py

.PHONY: all deps configure build test demo bench docs clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD_DIR)

bench: build
	@scripts/bench.sh $(BUILD_DIR)

docs: build
	cmake --build $(BUILD_DIR) --target opscope-docs-update

clean:
	rm -rf $(BUILD_DIR)
