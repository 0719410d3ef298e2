#!/usr/bin/env bash
# Installs everything opscope needs on Debian 12, as root. Idempotent: a second
# run checks and returns quickly. The Makefile's `deps` target calls this; it is
# the only place the project installs anything.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build ccache git
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools clang-19
  libdnnl-dev libcli11-dev libonnx-dev libprotobuf-dev protobuf-compiler
  libonnx-testdata libgtest-dev libbenchmark-dev nlohmann-json3-dev
  python3-onnx python3-numpy python3-pandas zlib1g-dev libzstd-dev bc time pkgconf
  libxxhash-dev
  # opscope-sweep: Dask distributed (LocalCluster, dask-scheduler,
  # dask-worker) and YAML specs
  python3-distributed python3-yaml
  # make fuzz / make check-sanitize: clang's libFuzzer and sanitizer
  # runtimes, and the omp.h clang compiles the runtime against
  libclang-rt-19-dev libomp-19-dev
  # opscope-report's browser check in make test
  chromium-headless-shell
  # make test's run on an emulated AVX2-only CPU (ctest label emulated_avx2)
  qemu-user
  # the Python API's extension (python/src, pybind11) and its notebook,
  # executed by make test (examples/notebooks, pandas plots via matplotlib)
  pybind11-dev python3-dev jupyter-nbconvert python3-ipykernel python3-matplotlib
)

missing=()
# Node.js/npm may come from the machine image rather than Debian; only ask
# Debian for them when no npm is on PATH (Debian's nodejs conflicts with others).
if ! command -v npm >/dev/null 2>&1; then PKGS+=(nodejs npm); fi

for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: run as root (or install them) and retry" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all Debian packages present"
fi

# npm packages pinned in third_party/node/package.json, installed with
# --ignore-scripts: ONNX Runtime (onnxruntime-node: the numeric reference and
# performance peer; its install scripts only fetch GPU providers, the CPU
# library ships in the package) and Chart.js (compiled into opscope-report's
# pages, docs/report.md).
NODE_DIR="$(cd "$(dirname "$0")/.." && pwd)/third_party/node"
node_missing=()
for p in onnxruntime-node chart.js; do
  [ -f "$NODE_DIR/node_modules/$p/package.json" ] || node_missing+=("$p")
done
if [ ${#node_missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${node_missing[*]} (npm ci, --ignore-scripts)"
  (cd "$NODE_DIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
else
  echo "install-deps: npm packages present (onnxruntime-node, chart.js)"
fi
