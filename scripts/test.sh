#!/usr/bin/env bash
# Builds and runs the whole test suite:
#   1. the normal build (with the CUDA backend when nvcc is present; GPU tests
#      report "Skipped" on machines without a GPU);
#   2. a CPU-only build under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. a fuzzing smoke: the libFuzzer targets (clang, ASan + UBSan) for
#      L3_FUZZ_SMOKE_SECONDS each (default 15, about a minute for all four;
#      0 skips it). Without clang's libFuzzer it reports "SKIPPED".
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
smoke="${L3_FUZZ_SMOKE_SECONDS:-15}"
echo "== fuzzing smoke (libFuzzer, ${smoke}s per target) =="
probe="$(mktemp -d)"
if [ "$smoke" -gt 0 ] &&
   echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
     "${CXX_FUZZ:-clang++}" -x c++ -fsanitize=fuzzer,address -o "$probe/probe" - >/dev/null 2>&1; then
  CC="${CC_FUZZ:-clang}" CXX="${CXX_FUZZ:-clang++}" \
    bash scripts/fuzz.sh --seconds "$smoke" --jobs "$jobs" --workers 1
else
  echo "SKIPPED: no clang with libFuzzer (or L3_FUZZ_SMOKE_SECONDS=0)"
fi
rm -rf "$probe"
echo "== all tests passed =="
