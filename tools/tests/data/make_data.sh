#!/usr/bin/env bash
# Regenerates the fixed .l3 files of the CLI tests from small.csv. Run it only
# when the format itself changes: the files are committed so that tuning the
# encoder never changes the golden outputs. Afterwards regenerate the goldens:
#   tools/tests/data/make_data.sh build/bin
#   L3_REGEN_GOLDENS=1 tools/tests/cli_test.sh build/bin golden
set -euo pipefail
bin="$(cd "${1:?usage: make_data.sh BIN_DIR}" && pwd)"
cd "$(dirname "$0")"

# The source columns, from integer arithmetic only (small.csv is committed;
# this is the command that made it).
{
  echo "id,temp,status,big"
  for ((i = 0; i < 300; i++)); do
    echo "$((1000 + 3 * i)),$(((i * 37) % 41 - 20 + i / 20)),$(((i / 45) % 3 * 100)),$((1152921504606846976 + i * i * i))"
  done
} > small.csv

# Four columns (u16 line, i8 noise, u8 runs, u64 above 2^53), small partitions.
"$bin/l3" compress small.csv -o small.l3 --partition-rows 32 --max-partition-rows 96 --threads 1
# Two columns, three chunks, archive profile (zstd segments).
"$bin/l3" compress small.csv --columns id,status -o archive.l3 --chunk-rows 128 \
  --profile archive --zstd-level 3 --metadata source=small.csv --threads 1
# A newer minor version with an optional feature bit this SDK does not know:
# readers must open it as usual (spec §4.4).
"$bin/l3_testfile" small.l3 future_optional.l3 --minor 7 --optional-bit 9
# A required feature bit this SDK does not know: readers must refuse it;
# l3dump --allow-unknown still lists it.
"$bin/l3_testfile" small.l3 future_required.l3 --minor 7 --required-bit 12
# A chunk in an encoding this SDK does not know (9): readers must refuse it
# (UNSUPPORTED_FEATURE); l3dump --allow-unknown shows it as an opaque record.
"$bin/l3_testfile" small.l3 future_encoding.l3 --minor 7 --encoding 9
ls -l ./*.l3
