#!/usr/bin/env bash
# Ratios of L3 beside zstd, Parquet (pyarrow), blosc2, Pco and Vortex, measured
# in one run on the same arrays: writes docs/results/peers.md and peers.json.
# The peers are installed from PyPI into a virtual environment in the build
# directory; one that cannot be installed is reported as unavailable.
#
#   scripts/peer_report.sh [--rows N] [--datasets a,b] [--no-real]
#
# The build directory is $L3_BUILD_DIR, default build/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${L3_BUILD_DIR:-$root/build}"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" --target l3_cli l3_gen >/dev/null
venv="$build/peers-venv"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --upgrade pip >/dev/null 2>&1 || true
"$venv/bin/pip" install -q numpy >/dev/null
for pkg in zstandard pyarrow blosc2 pcodec vortex-data; do
  "$venv/bin/pip" install -q "$pkg" >/dev/null 2>&1 || echo "peer_report: could not install $pkg; reported as unavailable" >&2
done
exec "$venv/bin/python" "$root/scripts/peer_report.py" --build "$build" \
  --command "scripts/peer_report.sh${*:+ $*}" "$@"
