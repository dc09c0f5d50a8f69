#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages L3 builds with, when they are missing.
# Nothing else is downloaded: the build itself never touches the network.
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config flatbuffers-compiler libflatbuffers-dev
          libzstd-dev zlib1g-dev nlohmann-json3-dev doctest-dev
          clang)  # clang: the fuzzing smoke of scripts/test.sh (libFuzzer)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
