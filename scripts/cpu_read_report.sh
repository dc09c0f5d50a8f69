#!/usr/bin/env bash
# CPU read speed of L3 beside pyarrow's Parquet reader on the arrays of the
# ratio report, in one run: writes docs/results/cpu-read.md and cpu-read.json.
# pyarrow is installed from PyPI into the peers' virtual environment in the
# build directory (scripts/peer_report.sh uses the same one).
#
#   scripts/cpu_read_report.sh [--rows N] [--datasets a,b] [--no-real] [--threads T] [--reps R]
#
# The build directory is $L3_BUILD_DIR, default build/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${L3_BUILD_DIR:-$root/build}"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" --target l3_cli l3_gen l3_cpu_bench >/dev/null
venv="$build/peers-venv"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q numpy pyarrow >/dev/null
exec "$venv/bin/python" "$root/scripts/cpu_read_report.py" --build "$build" \
  --command "scripts/cpu_read_report.sh${*:+ $*}" "$@"
