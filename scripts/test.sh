#!/usr/bin/env bash
# Builds and runs the whole test suite:
#   1. the normal build (with the CUDA backend when nvcc is present; GPU tests
#      report "Skipped" on machines without a GPU);
#   2. a CPU-only build under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
jobs="$(nproc)"

echo "== build (RelWithDebInfo) =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DL3_BUILD_TESTS=ON >/dev/null
cmake --build build -j "$jobs"
echo "== tests =="
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== build (ASan + UBSan, CPU only) =="
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DL3_SANITIZE=ON -DL3_CUDA=OFF \
      -DL3_BUILD_BENCH=OFF -DL3_BUILD_TESTS=ON >/dev/null
cmake --build build-asan -j "$jobs"
echo "== tests under ASan + UBSan =="
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE gpu
echo "== all tests passed =="
