#!/usr/bin/env bash
# Regenerates docs/results/ratios.md and docs/results/ratios.json: L3 against
# zstd and the reference figures on every generated dataset (paper sizes) and
# every real integer array. Takes two to three hours on 2 cores, most of it
# zstd -19; zstd results are cached in the build directory, so a rerun after
# an SDK change takes about half an hour.
#
#   scripts/ratio_report.sh                       # the full report
#   scripts/ratio_report.sh --quick --no-zstd19   # CI smoke: 10M rows each
#   scripts/ratio_report.sh --datasets linear,cosmos --out /tmp/r
#
# Options are passed to build/bin/l3_ratio_report (see bench/ratio_report.cpp).
# The build directory is $L3_BUILD_DIR, default build/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${L3_BUILD_DIR:-$root/build}"

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" --target l3_ratio_report >/dev/null

cd "$root"
exec "$build/bin/l3_ratio_report" --command "scripts/ratio_report.sh${*:+ $*}" \
  --out docs/results --zstd-cache "$build/ratio_report_zstd_cache.json" "$@"
