#!/usr/bin/env bash
# SSB query flight 1 (Q1.1-Q1.3) on the CPU: L3's ScanTable beside
# decode-then-filter, a loop over uncompressed arrays and DuckDB, on the same
# generated lineorder columns in one run: writes docs/results/ssb-cpu.md and
# ssb-cpu.json. DuckDB and numpy are installed from PyPI into a virtual
# environment in the build directory; the data (6M rows per scale factor) is
# generated under the build directory and removed afterwards.
#
#   scripts/ssb_report.sh [--sf SF] [--threads T] [--reps R] [--orders dbgen,date]
#
# The default scale factor is 20 (120M rows, about 1.2 GB of raw columns
# twice over and as much again for DuckDB); --sf 1 suits a small machine.
# The build directory is $L3_BUILD_DIR, default build/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${L3_BUILD_DIR:-$root/build}"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" --target l3_ssb_bench >/dev/null
venv="$build/ssb-venv"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --upgrade pip >/dev/null 2>&1 || true
"$venv/bin/pip" install -q numpy duckdb >/dev/null
exec "$venv/bin/python" "$root/scripts/ssb_report.py" --build "$build" \
  --command "scripts/ssb_report.sh${*:+ $*}" "$@"
