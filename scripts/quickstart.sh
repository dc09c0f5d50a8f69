#!/usr/bin/env bash
# Installs what is missing, builds L3, and runs the demo: compresses a set of
# built-in sample columns to .l3, reads them back, checks they are lossless and
# prints the ratio and model mix of each.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DL3_BUILD_TESTS=OFF >/dev/null
cmake --build build -j "$(nproc)" --target l3 >/dev/null
exec build/bin/l3 demo "$@"
