#!/usr/bin/env bash
# Installs the Debian bookworm packages Linkscope needs to build, test and run. Idempotent: when
# every package is present it changes nothing and does not touch the network.
#   packaging/install-deps.sh [--benchmarks]   (--benchmarks: also scikit-learn, see below)
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config
  # GUI
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev libqt6opengl6-dev libqt6sql6-sqlite libgl-dev
  libxkbcommon-dev fonts-dejavu-core
  # Qt's SVG plugins: they draw the application icon (resources/icons) in the window
  libqt6svg6
  # Qt SVG's QSvgGenerator: "Save plot…" writes every chart as SVG (ui/plot_export.h)
  qt6-svg-dev
  # engine
  libtorch-dev libfaiss-dev nlohmann-json3-dev libicu-dev zlib1g-dev libpugixml-dev
  libsqlitecpp-dev libcli11-dev
  # cblas.h and libblas.so: the engine's inner products without LibTorch (core/util/inner_products.cpp)
  libblas-dev
  # An optimized BLAS for LibTorch's and FAISS's matrix products: without it Debian resolves
  # libblas.so.3 to the reference BLAS, about 0.5 GFLOP/s (FAISS batches, BERT layers)
  libopenblas0-pthread
  # headless GUI runs and tests; python3 runs the hostile-input suite (tests/hostile)
  xvfb xauth python3
  # the libFuzzer targets of every reader (tests/fuzz; .ci/run fuzzes each for 10 s): clang 16,
  # the first clang that compiles core (C++20 lambdas capturing structured bindings)
  clang-16 libclang-rt-16-dev
  # the .deb and its checks (tests/packaging): CPack's DEB generator reads file types with file,
  # and the desktop entry and AppStream metadata are validated
  file desktop-file-utils appstream
  # the C++ layout check of .ci/run (tools/check_format.sh), pinned to one version
  clang-format-14
  # a team's shared project: the PostgreSQL client library, and a server the tests start themselves
  postgresql libpq-dev
  # batch linking on a cluster: the tests start a one-node Slurm (munge, slurmctld, slurmd); GNU
  # parallel runs the same shards on a workstation
  slurm-wlm munge parallel
  # XLM-R's tokenizer is a SentencePiece model (opened as a private module: see
  # core/encoder/sentencepiece_module.cpp)
  libsentencepiece-dev
  # reference files written independently of our code in the tests: torch's own .bin files,
  # sentencepiece's own token ids, numpy forwards
  python3-torch python3-sentencepiece python3-numpy
)
# --benchmarks: also what only the benchmarks use, never the build or the tests: scikit-learn, the
# peer that benchmarks/sklearn_sparse.py and benchmarks/startup time against (they skip it where
# it is absent).
if [ "${1:-}" = "--benchmarks" ]; then
  packages+=(python3-sklearn)
elif [ $# -gt 0 ]; then
  echo "usage: install-deps.sh [--benchmarks]" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
