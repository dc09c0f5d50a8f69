#!/usr/bin/env bash
# Byte-identity check of the writer: compresses every l3_gen dataset and every
# array of shared/data/real (integers, and f32 ones, which the writer maps into
# the same integer models or IBP) with the hot and archive profiles
# and prints one "sha256  name" line per .l3 file, sorted. Run it with the
# tools of two builds and compare the lists: the files must be identical
# (determinism is a format property).
#
#   scripts/encode_identity.sh BIN_DIR [--rows N] [--threads T] [--data DIR] [--work DIR]
#                              [--inputs-only]
#
# BIN_DIR holds l3 and l3_gen. The generated and unpacked inputs are cached in
# --work (default /tmp/l3-identity) and reused when present, so that both
# builds compress the same input bytes. --inputs-only prepares them and stops
# (for scripts/encode_speed_report.py).
set -euo pipefail

bin=${1:?usage: encode_identity.sh BIN_DIR [--rows N] [--threads T] [--data DIR] [--work DIR] [--inputs-only]}
shift
rows=2000000
threads=1
data=$(cd "$(dirname "$0")/.." && pwd)/../shared/data/real
work=/tmp/l3-identity
inputs_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --inputs-only) inputs_only=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

inputs=$work/inputs-$rows
out=$(mktemp -d "${TMPDIR:-/tmp}/l3-identity-out.XXXXXX")
trap 'rm -rf "$out"' EXIT
mkdir -p "$inputs"

# name type path, one line per input.
list=()
while read -r name type _; do
  [ -n "$name" ] || continue
  f=$inputs/gen_$name.bin
  [ -s "$f" ] || "$bin/l3_gen" --dataset "$name" --rows "$rows" --out "$f" 2>/dev/null
  list+=("gen_$name $type $f")
done < <("$bin/l3_gen" --list)

for gz in "$data"/*_{u16,i16,u32,i32,u64,i64,f32}.bin.gz; do
  [ -e "$gz" ] || continue
  base=$(basename "$gz" .bin.gz)
  f=$inputs/$base.bin
  [ -s "$f" ] || gunzip -c "$gz" > "$f"
  list+=("$base ${base##*_} $f")
done

[ "$inputs_only" = 1 ] && exit 0

for entry in "${list[@]}"; do
  read -r name type path <<< "$entry"
  for profile in hot archive; do
    target=$out/$name.$profile.l3
    "$bin/l3" compress "$path" --type "$type" --profile "$profile" --threads "$threads" \
      -o "$target" > /dev/null 2>&1 || { echo "FAILED $name $profile" >&2; exit 1; }
  done
done
(cd "$out" && sha256sum -- *.l3 | sort -k2)
