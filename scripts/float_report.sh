#!/usr/bin/env bash
# Ratios of L3 float columns beside zstd, Parquet, blosc2, Pco and Vortex on the
# real float arrays, measured in one run: writes docs/results/floats.md and
# floats.json. The peers are installed from PyPI into the same virtual
# environment as scripts/peer_report.sh uses; one that cannot be installed is
# reported as n/a.
#
#   scripts/float_report.sh
#
# The build directory is $L3_BUILD_DIR, default build/; the arrays come from
# $L3_REAL_DATA_DIR (default ../shared/data/real).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${L3_BUILD_DIR:-$root/build}"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" --target l3_cli >/dev/null
venv="$build/peers-venv"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q numpy >/dev/null 2>&1 || true
for pkg in zstandard pyarrow blosc2 pcodec vortex-data; do
  "$venv/bin/pip" install -q "$pkg" >/dev/null 2>&1 || echo "float_report: could not install $pkg; reported as n/a" >&2
done
cd "$root"
exec "$venv/bin/python" "$root/scripts/float_report.py" --build "$build" \
  --real-dir "${L3_REAL_DATA_DIR:-$root/../shared/data/real}" --command "scripts/float_report.sh"
