#!/usr/bin/env bash
# One whole GPU session for the CUDA backend: build (unless a build is given),
# CPU tests (which leave their .l3 files for the GPU tests), GPU tests,
# compute-sanitizer memcheck over the GPU tests, the benchmark, and an
# Nsight Compute profile of a few kernel launches. Run from the repository
# root on a machine with a CUDA GPU:
#
#   bash bench/gpu/run_on_device.sh [OUT_DIR]
#
# Environment:
#   L3_GPU_BUILD   existing build directory with bin/l3_tests, bin/l3_gpu_tests
#                  and bin/l3bench (default: build here into build-gpu)
#   L3_DEPS        a prefix with the Debian dependencies unpacked (default .deps/usr
#                  when present)
#   L3_REAL_DATA_DIR  the real arrays (default .data/real, else ../shared/data/real)
#   L3_STEPS       steps to run (default "tests memcheck bench ncu"; "peers" adds
#                  L3 beside nvCOMP on the same arrays, see below; "pgm" the
#                  batched PGM lookups beside thrust::lower_bound; "racecheck"
#                  compute-sanitizer racecheck over the decode and PGM tests;
#                  "fuzzdiff" CPU-versus-GPU differential decode of the
#                  conformance corpus, the fuzz reproducers, L3_FUZZ_CORPUS and
#                  structure-aware mutations of all of them, then the same under
#                  memcheck; "ibp" the IBP float-column benchmark; "fuzz" a libFuzzer campaign with binaries built
#                  elsewhere, see L3_FUZZ_BUILD, whose grown corpus fuzzdiff
#                  then replays)
#   L3_FUZZ_CORPUS     directories (space separated) of fuzzed .l3 inputs for
#                      fuzzdiff, e.g. a campaign's WORK/corpus/reader
#   L3_FUZZ_MUTATIONS  mutations per input for fuzzdiff (default 20)
#   L3_FUZZ_BUILD  a clang build of the libFuzzer targets (scripts/fuzz.sh
#                  --build-dir) for the fuzz step, which runs
#                  scripts/fuzz.sh --no-build with L3_FUZZ_ARGS (default
#                  "--seconds 240 --jobs $(nproc) reader")
#   L3_BENCH_ARGS  extra l3bench arguments
#   L3_PGM_ARGS    l3_pgm_gpu_bench arguments for the pgm step (default 200M
#                  keys, 100M lookups, epsilon 64)
#   L3_PEERS_ARGS  l3bench arguments for the peers step (default: the paper
#                  datasets and the real arrays tiled to 100M values)
#   L3_IBP_ARGS    l3_ibp_gpu_bench arguments for the ibp step (IBP float columns
#                  decoded and gathered from device and pinned host memory)
#   L3_SSB_ARGS    scripts/ssb_gpu_report.py arguments for the "ssb" step (SSB
#                  Q1.1-Q1.3: the fused GPU table scan beside decode-then-filter,
#                  raw columns on the GPU, the CPU ScanTable and DuckDB; default
#                  SF 20; DuckDB from L3_WHEEL_DIR when pip cannot reach an index)
#   L3_WHEEL_DIR   a directory of wheels (nvidia-nvcomp-cu13,
#                  nvidia-libnvcomp-cu13) to install for the peers step where
#                  pip cannot reach an index
#   L3_COMMIT      commit named in the report (default: git rev-parse)
#   L3_PACK_LOGS   if set, pack the logs into OUT_DIR/logs.tar.gz
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${1:-${OUT:-out/gpu}}"
mkdir -p "$out"
steps="${L3_STEPS:-tests memcheck bench ncu}"
status=0

deps="${L3_DEPS:-$PWD/.deps/usr}"
if [ -d "$deps" ]; then
  export PATH="$deps/bin:$PATH"
  export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  prefix_args=(-DCMAKE_PREFIX_PATH="$deps"
               -DFlatBuffers_DIR="$deps/lib/x86_64-linux-gnu/cmake/flatbuffers"
               -Dzstd_DIR="$deps/lib/x86_64-linux-gnu/cmake/zstd" -DZLIB_ROOT="$deps")
else
  prefix_args=()
fi
if [ -z "${L3_REAL_DATA_DIR:-}" ]; then
  if [ -d .data/real ]; then export L3_REAL_DATA_DIR="$PWD/.data/real"
  else export L3_REAL_DATA_DIR="$PWD/../shared/data/real"; fi
fi
commit="${L3_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv | tee "$out/nvidia-smi.txt"

build="${L3_GPU_BUILD:-}"
if [ -z "$build" ]; then
  build=build-gpu
  echo "== build"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DL3_BUILD_TESTS=ON -DL3_BUILD_TOOLS=OFF -DL3_BUILD_BENCH=ON "${prefix_args[@]}" \
        >"$out/build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" --target l3_tests l3_gpu_tests l3_conformance_gpu_check l3bench l3_pgm_gpu_bench l3_ibp_gpu_bench l3_fuzz_replay_gpu_diff l3_ssb_bench l3_ssb_gpu_bench >>"$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; exit 1; }
fi
bin="$build/bin"

if [[ " $steps " == *" tests "* ]]; then
  echo "== CPU tests (writing their .l3 files for the GPU tests)"
  export L3_TEST_FILES_DIR="$PWD/$build/test-files"
  mkdir -p "$L3_TEST_FILES_DIR"
  "$bin/l3_tests" --no-version >"$out/cpu-tests.log" 2>&1 || { echo "CPU tests FAILED"; status=1; }
  tail -3 "$out/cpu-tests.log"
  echo "   $(find "$L3_TEST_FILES_DIR" -name '*.l3' | wc -l) .l3 files in $L3_TEST_FILES_DIR"
  echo "== GPU tests"
  "$bin/l3_gpu_tests" --no-version 2>&1 | tee "$out/gpu-tests.log" | tail -15
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "GPU tests FAILED"; status=1; }
  echo "== conformance corpus through the CUDA backend (bit-exact against the expected values)"
  "$bin/l3_conformance_gpu_check" conformance 2>&1 | tee "$out/conformance-gpu.log" | tail -3
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "conformance GPU check FAILED"; status=1; }
fi

if [[ " $steps " == *" memcheck "* ]]; then
  echo "== compute-sanitizer memcheck over the GPU tests"
  timeout "${L3_MEMCHECK_TIMEOUT:-300}" compute-sanitizer --tool memcheck --error-exitcode 3 \
    --print-limit 20 "$bin/l3_gpu_tests" --no-version 2>&1 | tee "$out/memcheck.log" | tail -4
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "memcheck FAILED"; status=1; }
fi

if [[ " $steps " == *" racecheck "* ]]; then
  echo "== compute-sanitizer racecheck over the decode and PGM tests (corrupt device tables included)"
  timeout "${L3_RACECHECK_TIMEOUT:-400}" compute-sanitizer --tool racecheck --racecheck-report all \
    --error-exitcode 3 --print-limit 20 "$bin/l3_gpu_tests" --no-version \
    --source-file='*gpu_decode_test.cpp,*gpu_pgm_test.cpp' 2>&1 | tee "$out/racecheck.log" | tail -4
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "racecheck FAILED"; status=1; }
fi

if [[ " $steps " == *" fuzz "* ]]; then
  echo "== libFuzzer campaign (${L3_FUZZ_ARGS:---seconds 240 --jobs $(nproc) reader})"
  # shellcheck disable=SC2086
  bash scripts/fuzz.sh --no-build --build-dir "${L3_FUZZ_BUILD:-build-fuzz}" \
    --work-dir "$build/fuzz-work" ${L3_FUZZ_ARGS:---seconds 240 --jobs $(nproc) reader} \
    2>&1 | tee "$out/fuzz.log" | tail -30
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzz campaign FAILED"; status=1; }
  mkdir -p "$out/fuzz" && cp -r "$build/fuzz-work/logs" "$build/fuzz-work/artifacts" "$out/fuzz/"
  echo "   corpus: $(ls "$build/fuzz-work/corpus/reader" 2>/dev/null | wc -l) inputs"
fi

if [[ " $steps " == *" fuzzdiff "* ]]; then
  conf=(conformance/valid conformance/invalid conformance/deep conformance/future fuzz/regressions/reader)
  # shellcheck disable=SC2206
  extra=(${L3_FUZZ_CORPUS:-})
  # The corpus of a fuzz step that ran before, in this session or an earlier one.
  [ -d "$build/fuzz-work/corpus/reader" ] && extra+=("$build/fuzz-work/corpus/reader")
  echo "== CPU-versus-GPU differential decode: corpus, fuzzed inputs and ${L3_FUZZ_MUTATIONS:-20} mutations of each"
  "$bin/l3_fuzz_replay_gpu_diff" --mutate "${L3_FUZZ_MUTATIONS:-20}" "${conf[@]}" "${extra[@]}" \
    2>&1 | tee "$out/fuzzdiff.log" | tail -3
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzzdiff FAILED"; status=1; }
  # Under memcheck: the conformance corpus and the reproducers, and with
  # L3_FUZZ_MEMCHECK_ALL=1 the fuzzed inputs too.
  memcheck_inputs=("${conf[@]}")
  [ -n "${L3_FUZZ_MEMCHECK_ALL:-}" ] && memcheck_inputs+=("${extra[@]}")
  echo "== ${memcheck_inputs[*]} and 2 mutations of each under compute-sanitizer memcheck"
  timeout "${L3_MEMCHECK_TIMEOUT:-300}" compute-sanitizer --tool memcheck --error-exitcode 3 \
    --print-limit 20 "$bin/l3_fuzz_replay_gpu_diff" --mutate 2 "${memcheck_inputs[@]}" \
    2>&1 | tee "$out/fuzzdiff-memcheck.log" | tail -4
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzzdiff memcheck FAILED"; status=1; }
fi

if [[ " $steps " == *" bench "* ]]; then
  echo "== benchmark"
  # shellcheck disable=SC2086
  "$bin/l3bench" --real --sweep --commit "$commit" --json "$out/gpu.json" --md "$out/gpu.md" \
    ${L3_BENCH_ARGS:-} 2>&1 | tee "$out/bench.log" | grep -E '^(==|   ratio)' | head -16
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "benchmark FAILED or found a mismatch"; status=1; }
fi

if [[ " $steps " == *" peers "* ]]; then
  echo "== L3 beside nvCOMP on the same arrays"
  if [ -n "${L3_WHEEL_DIR:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/l3-peers-site \
      "$L3_WHEEL_DIR"/*.whl >"$out/pip.log" 2>&1 || tail -5 "$out/pip.log"
    export PYTHONPATH="/tmp/l3-peers-site${PYTHONPATH:+:$PYTHONPATH}"
  fi
  arrays="$build/peer-arrays"
  rm -rf "$arrays" && mkdir -p "$arrays"
  # shellcheck disable=SC2086
  "$bin/l3bench" --commit "$commit" --dump-dir "$arrays" --json "$out/gpu-peers-l3.json" \
    ${L3_PEERS_ARGS:---real --real-rows 100000000 --reps 5 --queries 1000000} 2>&1 |
    tee "$out/peers-l3.log" | grep -E '^(==|   ratio)' | head -30
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "l3bench (peers) FAILED or found a mismatch"; status=1; }
  PYTHONUNBUFFERED=1 python3 bench/gpu/nvcomp_bench.py --dir "$arrays" --reps 5 \
    --json "$out/nvcomp.json" 2>&1 | tee "$out/nvcomp.log" | tail -20
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "nvcomp_bench FAILED or found a mismatch"; status=1; }
  python3 bench/gpu/gpu_peers_report.py "$out/gpu-peers-l3.json" "$out/nvcomp.json" \
    >"$out/gpu-peers.md" && cat "$out/gpu-peers.md"
  rm -rf "$arrays"
fi

if [[ " $steps " == *" pgm "* ]]; then
  echo "== PGM lookups on the GPU beside thrust::lower_bound"
  # shellcheck disable=SC2086
  "$bin/l3_pgm_gpu_bench" --commit "$commit" --json "$out/pgm-gpu.json" --md "$out/pgm-gpu.md" \
    ${L3_PGM_ARGS:-} 2>&1 | tee "$out/pgm.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "l3_pgm_gpu_bench FAILED or found a mismatch"; status=1; }
fi

if [[ " $steps " == *" ssb "* ]]; then
  echo "== SSB Q1.1-Q1.3: fused GPU table scan, decode+filter, raw scan, CPU ScanTable, DuckDB"
  if [ -n "${L3_WHEEL_DIR:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/l3-ssb-site \
      "$L3_WHEEL_DIR"/duckdb*.whl >"$out/pip-ssb.log" 2>&1 || tail -5 "$out/pip-ssb.log"
    export PYTHONPATH="/tmp/l3-ssb-site${PYTHONPATH:+:$PYTHONPATH}"
  fi
  # shellcheck disable=SC2086
  PYTHONUNBUFFERED=1 python3 scripts/ssb_gpu_report.py --build "$build" --out "$out" --commit "$commit" \
    --command "L3_SSB_ARGS=\"${L3_SSB_ARGS:-}\" L3_STEPS=ssb bash bench/gpu/run_on_device.sh OUT" ${L3_SSB_ARGS:-} 2>&1 | tee "$out/ssb.log" | tail -40
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "SSB report FAILED or found a mismatch"; status=1; }
fi

if [[ " $steps " == *" ibp "* ]]; then
  echo "== IBP float columns: decode and gather from device and pinned host memory"
  # shellcheck disable=SC2086
  "$bin/l3_ibp_gpu_bench" --real-dir "$L3_REAL_DATA_DIR" --commit "$commit" --json "$out/ibp-gpu.json" \
    --md "$out/ibp-gpu.md" ${L3_IBP_ARGS:-} 2>&1 | tee "$out/ibp.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "l3_ibp_gpu_bench FAILED or found a mismatch"; status=1; }
fi

if [[ " $steps " == *" ncu "* ]]; then
  echo "== Nsight Compute: one decode launch of each of three datasets, one Take launch"
  for ds in linear uniform40 exp; do
    ncu --kernel-name regex:DecodeRowsKernel --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
        --section WarpStateStats --section SchedulerStats --section LaunchStats \
        "$bin/l3bench" --datasets "$ds" --reps 1 --queries 1000 --scale "${L3_NCU_SCALE:-0.25}" \
        >"$out/ncu-$ds.txt" 2>&1 || echo "ncu on $ds failed"
    grep -E "DecodeRowsKernel|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Issue Slots Busy|No Eligible" \
      "$out/ncu-$ds.txt" | head -14
  done
  ncu --kernel-name regex:TakeKernel --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      "$bin/l3bench" --datasets linear --reps 1 --scale 0.25 >"$out/ncu-take.txt" 2>&1 ||
    echo "ncu on Take failed"
  grep -E "TakeKernel|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|L1/TEX Hit|L2 Hit" \
    "$out/ncu-take.txt" | head -8
fi
# Optionally keep OUT_DIR to a few files: the reports plus one archive of the logs.
if [ -n "${L3_PACK_LOGS:-}" ]; then
  (cd "$out" && tar czf logs.tar.gz ./*.txt ./*.log && rm -f ./*.txt ./*.log)
fi
exit $status
