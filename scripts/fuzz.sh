#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang, ASan and UBSan, prepares
# their seed corpora from conformance/ (and the CLI test data), and runs a
# fuzzing campaign of a given length per target. docs/fuzzing.md explains
# the targets and how to keep what a campaign finds.
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--build-dir DIR] [--work-dir DIR]
#                   [--no-build] [TARGET...] [-- LIBFUZZER_OPTION...]
#
#   --seconds N    campaign length per target (default 60)
#   --jobs J       parallel build jobs and libFuzzer workers per target
#                  (default 1; J > 1 runs J workers with -fork=J)
#   --workers W    libFuzzer workers per target when it differs from --jobs
#   --build-dir    the clang build (default build-fuzz)
#   --work-dir     corpora, crash reproducers and logs (default build-fuzz/work):
#                  WORK/corpus/TARGET grows from run to run, new crashes land in
#                  WORK/artifacts/TARGET, each run's output in WORK/logs
#   --no-build     reuse the binaries of an earlier run
#   TARGET         reader, zstd, npy, csv (default: all four)
#   options after "--" go to every libFuzzer run (e.g. -max_len=65536)
#
# Prints, per target, libFuzzer's final statistics (executions, coverage:
# the last "cov:"/"ft:" line and -print_final_stats=1) and exits non-zero if a
# target crashed, timed out or ran out of memory.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
jobs=1
workers=
build_dir=build-fuzz
work_dir=
build=1
targets=()
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --work-dir) work_dir="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    reader|zstd|npy|csv) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=(reader zstd npy csv)
work_dir="${work_dir:-$build_dir/work}"

if [[ $build -eq 1 ]]; then
  echo "== configure and build ($build_dir: clang, libFuzzer, ASan + UBSan) =="
  CC="${CC:-clang}" CXX="${CXX:-clang++}" \
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DL3_FUZZ=ON -DL3_SANITIZE=ON -DL3_CUDA=OFF -DL3_BUILD_TESTS=OFF \
      -DL3_BUILD_BENCH=OFF -DL3_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build "$build_dir" -j "$jobs" --target l3_fuzz_seeds \
    $(printf 'l3_fuzz_%s ' "${targets[@]}")
fi
bin="$build_dir/bin"

echo "== seed corpora ($work_dir/seeds) =="
conf=(conformance/valid conformance/invalid conformance/deep conformance/future)
seeds="$work_dir/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/reader" "$work_dir/logs"
cp conformance/{valid,invalid,deep,future}/*.l3 "$seeds/reader/"
echo "reader: $(ls "$seeds/reader" | wc -l) .l3 files"
# Only the targets asked for: a reader campaign needs no l3_fuzz_seeds.
for t in "${targets[@]}"; do
  case "$t" in
    zstd) "$bin/l3_fuzz_seeds" zstd "$seeds/zstd" "${conf[@]}" ;;
    npy) "$bin/l3_fuzz_seeds" npy "$seeds/npy" conformance/writer-inputs ;;
    csv) "$bin/l3_fuzz_seeds" csv "$seeds/csv" conformance/writer-inputs tools/tests/data ;;
  esac
done

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
for t in "${targets[@]}"; do
  corpus="$work_dir/corpus/$t"
  artifacts="$work_dir/artifacts/$t"
  log="$work_dir/logs/$t.log"
  mkdir -p "$corpus" "$artifacts"
  parallel=()
  [[ "${workers:-$jobs}" -gt 1 ]] && parallel=(-fork="${workers:-$jobs}")
  echo "== $t: ${seconds}s =="
  # The corpus directory comes first: new inputs are written there; the seeds
  # and the committed reproducers are read.
  set +e
  "$bin/l3_fuzz_$t" "$corpus" "$seeds/$t" "fuzz/regressions/$t" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${parallel[@]}" "${extra[@]}" >"$log" 2>&1
  rc=$?
  set -e
  { grep -E '^#[0-9]+[[:space:]]' "$log" || true; } | sed -n '1p;$p'
  # (libFuzzer prints its final statistics twice after a crash.)
  { grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
      "$log" || true; } | awk '!seen[$0]++'
  if [[ $rc -ne 0 ]]; then
    echo "$t: libFuzzer exited with $rc; see $log and $artifacts" >&2
    grep -E 'ERROR|fuzz property violated|SUMMARY' "$log" | head -5 >&2 || true
    status=1
  fi
done
exit "$status"
