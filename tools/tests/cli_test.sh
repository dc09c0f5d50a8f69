#!/usr/bin/env bash
# End-to-end tests of build/bin/l3 and build/bin/l3dump, run by ctest (label
# "cli"): cli_test.sh BIN_DIR GROUP, GROUP one of basics, roundtrip, errors,
# golden. Each check prints "ok" or "FAIL" with the command; the script exits
# nonzero if any check failed.
#
# Golden outputs: golden/cases.txt lists "NAME|ARGS..." per line; the output
# of "l3dump ARGS" (or "l3 ARGS" for names starting with l3_) run inside
# data/ must equal golden/NAME exactly. To regenerate them after a deliberate
# change of the output or of the fixed files:
#   L3_REGEN_GOLDENS=1 tools/tests/cli_test.sh build/bin golden
set -uo pipefail

bin="$(cd "${1:?usage: cli_test.sh BIN_DIR GROUP}" && pwd)"
group="${2:?usage: cli_test.sh BIN_DIR GROUP}"
here="$(cd "$(dirname "$0")" && pwd)"
data="$here/data"
l3="$bin/l3"
l3dump="$bin/l3dump"
work="$(mktemp -d "${TMPDIR:-/tmp}/l3-cli-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"

failures=0
checks=0
pass() { checks=$((checks + 1)); }
fail() {
  checks=$((checks + 1))
  failures=$((failures + 1))
  echo "FAIL: $*"
}

# run CMD...: runs a command, keeping its stdout, stderr and exit code.
run() {
  "$@" > out.txt 2> err.txt
  rc=$?
  last_cmd="$*"
}

# expect_ok CMD...: exit code 0 and nothing on stderr.
expect_ok() {
  run "$@"
  if [ "$rc" -ne 0 ] || [ -s err.txt ]; then
    fail "$last_cmd: exit $rc, stderr: $(head -c 300 err.txt)"
  else
    pass
  fi
}

# expect_error CODE SUBSTRING CMD...: exit code CODE, exactly one line on
# stderr containing SUBSTRING, nothing on stdout.
expect_error() {
  local code="$1" substring="$2"
  shift 2
  run "$@"
  local lines
  lines=$(wc -l < err.txt)
  if [ "$rc" -ne "$code" ]; then
    fail "$last_cmd: exit $rc, expected $code; stderr: $(head -c 300 err.txt)"
  elif [ "$lines" -ne 1 ]; then
    fail "$last_cmd: $lines lines on stderr, expected one: $(head -c 300 err.txt)"
  elif ! grep -qF -- "$substring" err.txt; then
    fail "$last_cmd: stderr '$(cat err.txt)' lacks '$substring'"
  elif [ -s out.txt ] && [ "${allow_stdout:-0}" != 1 ]; then
    fail "$last_cmd: unexpected stdout: $(head -c 200 out.txt)"
  else
    pass
  fi
}

# expect_only_files DIR FILE...: DIR holds exactly these files.
expect_only_files() {
  local dir="$1"
  shift
  local actual expected
  actual=$(cd "$dir" && ls -A | sort | tr '\n' ' ')
  expected=""
  [ $# -gt 0 ] && expected=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  if [ "$actual" != "$expected" ]; then
    fail "files in $dir: '$actual', expected '$expected'"
  else
    pass
  fi
}

same_bytes() {
  if cmp -s "$1" "$2"; then pass; else fail "$1 and $2 differ"; fi
}

# to_le WIDTH: the numbers on standard input as little-endian values of WIDTH
# bytes (bash arithmetic and one printf: no python or xxd needed).
octal=()
for ((i = 0; i < 256; i++)); do octal[i]=$(printf '\\%03o' "$i"); done
to_le() {
  local width="$1" v i bytes=""
  while read -r v; do
    for ((i = 0; i < width; i++)); do
      bytes+="${octal[(v >> (8 * i)) & 255]}"
    done
  done
  printf "$bytes"
}

# mknpy FILE DICT: a version 1.0 .npy file with a 128-byte preamble holding
# DICT, followed by the bytes on standard input.
mknpy() {
  local dict="$2" pad
  pad=$((128 - 10 - ${#dict} - 1))
  { printf '\x93NUMPY\x01\x00\x76\x00%s' "$dict"; printf '%*s' "$pad" ''; printf '\n'; cat; } > "$1"
}

group_basics() {
  for tool in "$l3" "$l3dump"; do
    expect_ok "$tool" --help
    grep -q "Exit codes" out.txt && pass || fail "$tool --help lacks the exit codes"
    expect_ok "$tool" --version
    grep -q "format 1.1" out.txt && pass || fail "$tool --version: $(cat out.txt)"
  done
  for cmd in compress decompress cat validate info demo; do
    expect_ok "$l3" "$cmd" --help
    grep -q "^Usage: l3 $cmd" out.txt && pass || fail "l3 $cmd --help: $(head -1 out.txt)"
    expect_ok "$l3" "$cmd" --version
  done
  # A column name with a terminal escape: text output shows it as \x1b, JSON
  # escapes it, and neither passes the raw byte through.
  printf '\001\000\000\000\002\000\000\000' > esc.bin
  expect_ok "$l3" compress esc.bin --type u32 --name "$(printf 'a\033[31mb')" -o esc.l3
  expect_ok "$l3dump" esc.l3
  if grep -q "$(printf '\033')" out.txt; then fail "l3dump printed a raw ESC byte"; else pass; fi
  grep -q 'a\\x1b\[31mb' out.txt && pass || fail "l3dump text does not show the escape as \\x1b"
  expect_ok "$l3dump" --json esc.l3
  if grep -q "$(printf '\033')" out.txt; then fail "l3dump --json printed a raw ESC byte"; else pass; fi
  expect_ok "$l3" info esc.l3
  if grep -q "$(printf '\033')" out.txt; then fail "l3 info printed a raw ESC byte"; else pass; fi
  expect_error 2 "unknown command 'frobnicate'" "$l3" frobnicate
  expect_error 2 "unknown option '--bogus'" "$l3" info --bogus x.l3
  expect_error 2 "unknown option '--bogus'" "$l3dump" --bogus x.l3
  run "$l3"
  [ "$rc" -eq 2 ] && grep -q "^Usage: l3 COMMAND" err.txt && [ ! -s out.txt ] && pass ||
    fail "l3 without arguments: exit $rc"

  # The quick-start job, small.
  run "$l3" demo --rows 5000
  if [ "$rc" -eq 0 ] && grep -q "all columns are lossless" out.txt; then
    pass
  elif grep -q "no l3::datagen" err.txt; then
    echo "skipped: l3 demo (built without l3::datagen)"
  else
    fail "l3 demo: exit $rc: $(cat err.txt)"
  fi

  # info and validate on the fixed files.
  expect_ok "$l3" info "$data/small.l3"
  grep -q "300 rows, 4 columns" out.txt && pass || fail "l3 info: $(cat out.txt)"
  expect_ok "$l3" validate "$data/small.l3" "$data/archive.l3"
  [ "$(grep -c ': OK (structural' out.txt)" -eq 2 ] && pass || fail "validate: $(cat out.txt)"
  expect_ok "$l3" validate --deep --quiet "$data/small.l3"
  [ ! -s out.txt ] && pass || fail "validate --quiet printed $(cat out.txt)"
  # Unknown optional features and a newer minor version are readable.
  expect_ok "$l3" validate --deep "$data/future_optional.l3"
  expect_ok "$l3" cat "$data/future_optional.l3" --column id --rows 0:2
  [ "$(cat out.txt)" = $'1000\n1003' ] && pass || fail "cat future_optional: $(cat out.txt)"
}

group_pgm() {
  # A sorted u32 column with duplicate runs: l3 lookup against the expected
  # lower bounds, computed here from the values themselves.
  for ((i = 0; i < 3000; i++)); do echo $((i / 3 * 5)); done | to_le 4 > sorted.bin
  expect_ok "$l3" compress --pgm --pgm-epsilon 8 --chunk-rows 1000 --type u32 sorted.bin -o sorted.l3
  expect_ok "$l3" lookup sorted.l3 --column sorted 0 5 6 4995 5000 4294967295
  local want
  want=$(printf '0\t0\tfound\n5\t3\tfound\n6\t6\tabsent\n4995\t2997\tfound\n5000\t3000\tabsent\n4294967295\t3000\tabsent')
  if [ "$(cat out.txt)" = "$want" ]; then pass; else fail "l3 lookup printed: $(cat out.txt)"; fi
  run "$l3dump" sorted.l3
  if grep -q "pgm              epsilon 8, recursive 4" out.txt; then pass; else fail "l3dump shows no pgm line"; fi
  # An unsorted column with --pgm fails and leaves no file.
  printf '3\n1\n2\n' | to_le 4 > unsorted.bin
  expect_error 11 "non-decreasing" "$l3" compress --pgm --type u32 unsorted.bin -o unsorted.l3
  if [ -e unsorted.l3 ]; then fail "unsorted.l3 was left behind"; else pass; fi
  expect_ok "$l3" compress --type u32 sorted.bin -o plain.l3
  expect_error 17 "no PGM index" "$l3" lookup plain.l3 --column sorted 5
}

group_scan() {
  # Sorted i32 dates in chunks of 1000 rows and a price column: l3 scan
  # against counts and sums computed here, and pruning by statistics.
  for ((i = 0; i < 4000; i++)); do echo $((19940000 + i / 10)); done | to_le 4 > date.bin
  for ((i = 0; i < 4000; i++)); do echo $(((i * 37) % 1000 - 500)); done | to_le 4 > price.bin
  expect_ok "$l3" compress --chunk-rows 1000 --type i32 date.bin price.bin -o dp.l3
  local count=0 sum=0 d p
  for ((i = 0; i < 4000; i++)); do
    d=$((19940000 + i / 10)); p=$(((i * 37) % 1000 - 500))
    if [ "$d" -ge 19940120 ] && [ "$d" -lt 19940150 ]; then count=$((count + 1)); sum=$((sum + p)); fi
  done
  expect_ok "$l3" scan dp.l3 --where 'date >= 19940120' --where 'date < 19940150' --sum price --rows rows.bin
  grep -q "^count	$count\$" out.txt && pass || fail "scan count: $(cat out.txt) (want $count)"
  grep -q "^sum	$sum\$" out.txt && pass || fail "scan sum: $(cat out.txt) (want $sum)"
  grep -q "^chunks	4 (3 pruned by statistics)\$" out.txt && pass || fail "scan pruning: $(cat out.txt)"
  [ "$(stat -c %s rows.bin)" -eq $((8 * count)) ] && pass || fail "rows.bin has $(stat -c %s rows.bin) bytes"
  expect_ok "$l3" scan dp.l3 --where 'date in 19940001,19940399,5'
  grep -q "^count	20\$" out.txt && pass || fail "scan in: $(cat out.txt)"
  expect_ok "$l3" scan dp.l3 --where 'date > 2147483647'
  grep -q "^count	0\$" out.txt && pass || fail "scan past the type: $(cat out.txt)"
  expect_error 2 "OP" "$l3" scan dp.l3 --where 'date ~ 3'
  # Two columns ANDed (ScanTable): the count and the sum of a product.
  count=0 sum=0
  local product=0 min=999999 max=-999999
  for ((i = 0; i < 4000; i++)); do
    d=$((19940000 + i / 10)); p=$(((i * 37) % 1000 - 500))
    if [ "$d" -ge 19940120 ] && [ "$d" -le 19940349 ] && [ "$p" -lt 3 ]; then
      count=$((count + 1)); product=$((product + p * d))
      [ "$p" -lt "$min" ] && min=$p
      [ "$p" -gt "$max" ] && max=$p
    fi
  done
  expect_ok "$l3" scan dp.l3 --where 'date >= 19940120' --where 'date <= 19940349' --where 'price < 3' \
    --sum-product 'price * date' --rows rows2.bin
  grep -q "^count	$count\$" out.txt && pass || fail "scan two columns count: $(cat out.txt) (want $count)"
  grep -q "^sum	$product\$" out.txt && pass || fail "scan sum-product: $(cat out.txt) (want $product)"
  grep -q "^min	$min\$" out.txt && grep -q "^max	$max\$" out.txt && pass ||
    fail "scan table min/max: $(cat out.txt) (want $min, $max)"
  grep -q "^column	date: [0-9]* -> [0-9]* rows; chunks 4 (1 pruned)" out.txt && pass || fail "scan table stats: $(cat out.txt)"
  [ "$(stat -c %s rows2.bin)" -eq $((8 * count)) ] && pass || fail "rows2.bin has $(stat -c %s rows2.bin) bytes"
  expect_ok "$l3" scan dp.l3 --where 'date > 2147483647' --where 'price < 3' --sum price
  grep -q "^count	0\$" out.txt && grep -q "^sum	0\$" out.txt && grep -q "^min	-\$" out.txt && pass ||
    fail "scan table empty: $(cat out.txt)"
  expect_error 2 "A*B" "$l3" scan dp.l3 --where 'date > 1' --sum-product price
  expect_error 2 "exclude" "$l3" scan dp.l3 --where 'date > 1' --sum price --sum-product 'price*date'
}

group_roundtrip() {
  # Raw, every type, with values at both ends of the range.
  local types=(i8 i16 i32 i64 u8 u16 u32 u64)
  local widths=(1 2 4 8 1 2 4 8)
  for k in "${!types[@]}"; do
    local t="${types[$k]}" w="${widths[$k]}"
    local bits=$((8 * w))
    {
      for ((i = 0; i < 700; i++)); do
        if [ "$t" = i64 ] || [ "$t" = u64 ]; then
          echo $(((i * 2654435761) ^ (i << 40)))
        else
          echo $(((i * 7 + (i % 13) * 1000) & ((1 << bits) - 1)))
        fi
      done
      echo -1  # all ones: the maximum of an unsigned type, -1 of a signed one
      echo 0
    } | to_le "$w" > "raw_$t.bin"
    expect_ok "$l3" compress --type "$t" "raw_$t.bin" -o "raw_$t.l3"
    expect_ok "$l3" decompress "raw_$t.l3" -o "back_$t.bin"
    same_bytes "raw_$t.bin" "back_$t.bin"
    expect_ok "$l3" validate --deep "raw_$t.l3"
  done

  # .npy: inferred dtype; the output is byte-identical to the input because
  # l3 writes the same header NumPy does.
  expect_ok "$l3" decompress "$data/small.l3" --column big -o big.npy
  head -c 10 big.npy | grep -q "NUMPY" && pass || fail "big.npy has no npy magic"
  expect_ok "$l3" compress big.npy -o big.l3
  expect_ok "$l3" decompress big.l3 -o big2.npy
  same_bytes big.npy big2.npy
  expect_ok "$l3" cat big.l3 --rows 299:300
  [ "$(cat out.txt)" = "1152921504633577875" ] && pass || fail "u64 value: $(cat out.txt)"
  # Big-endian .npy: values are swapped on input.
  printf '\x00\x00\x00\x01\xff\xff\xff\xfe\x00\x01\x00\x00' |
    mknpy be.npy "{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }"
  expect_ok "$l3" compress be.npy -o be.l3
  expect_ok "$l3" cat be.l3
  [ "$(cat out.txt)" = $'1\n-2\n65536' ] && pass || fail "big-endian npy: $(cat out.txt)"

  # CSV: all columns, types inferred (u16, i8, u8, u64), back to CSV.
  expect_ok "$l3" compress "$data/small.csv" -o small.l3
  expect_ok "$l3" decompress small.l3 -o small.csv
  same_bytes "$data/small.csv" small.csv
  expect_ok "$l3dump" --json small.l3
  grep -q '"physical_type": "i8"' out.txt && grep -q '"physical_type": "u16"' out.txt && pass ||
    fail "CSV type inference"
  # --infer wide, --columns with types, TSV, a header-less file.
  expect_ok "$l3" compress "$data/small.csv" --infer wide --columns temp,id:u32 -o wide.l3
  expect_ok "$l3dump" --json wide.l3
  [ "$(grep -c '"physical_type"' out.txt)" -eq 2 ] && grep -q '"physical_type": "i64"' out.txt &&
    grep -q '"physical_type": "u32"' out.txt && pass || fail "--infer wide / --columns types"
  tr ',' '\t' < "$data/small.csv" | tail -n +2 > noheader.tsv
  expect_ok "$l3" compress noheader.tsv -o tsv.l3
  expect_ok "$l3" decompress tsv.l3 --no-header -o tsv_back.tsv
  same_bytes noheader.tsv tsv_back.tsv
  expect_ok "$l3" cat tsv.l3 --column col3 --rows 2
  [ "$(cat out.txt)" = "1152921504606846984" ] && pass || fail "headerless column name"

  # Several inputs into one file; raw from standard input.
  seq 0 299 | to_le 4 > seq.bin
  expect_ok "$l3" compress --type u32 seq.bin big.npy --name seq --name big -o multi.l3
  expect_ok "$l3" cat multi.l3 --rows 1:3 --header
  [ "$(cat out.txt)" = $'seq,big\n1,1152921504606846977\n2,1152921504606846984' ] && pass ||
    fail "multi-column cat: $(cat out.txt)"
  expect_ok "$l3" compress --format raw --type u32 - -o stdin.l3 < seq.bin
  "$l3" compress --type u32 seq.bin -o seq.l3 && "$l3" compress --type u32 seq.bin -o - > stdout.l3 &&
    cmp -s seq.l3 stdout.l3 && pass ||
    fail "compress -o - differs from a file output"
  expect_ok "$l3" decompress stdin.l3 --format bin -o - > stdin_back.bin
  expect_ok "$l3" decompress stdin.l3 -o stdin_back.bin
  same_bytes seq.bin stdin_back.bin
  expect_ok "$l3" cat - --rows 299: < stdin.l3
  [ "$(cat out.txt)" = "299" ] && pass || fail "l3 cat - : $(cat out.txt)"

  # Row slicing: decompress, cat, every output format.
  seq 100 299 | to_le 4 > tail.bin
  expect_ok "$l3" decompress multi.l3 --column seq --rows 100: -o slice.bin
  same_bytes tail.bin slice.bin
  expect_ok "$l3" decompress multi.l3 --column 0 --rows 100:300 -o slice.npy
  expect_ok "$l3" compress slice.npy -o slice.l3
  expect_ok "$l3" cat slice.l3 --rows :1
  [ "$(cat out.txt)" = "100" ] && pass || fail "--rows slice via npy: $(cat out.txt)"
  expect_ok "$l3" decompress multi.l3 --rows 5:5 -o empty.csv
  [ "$(cat empty.csv)" = "seq,big" ] && pass || fail "empty row range: $(cat empty.csv)"
  expect_ok "$l3" cat "$data/archive.l3" --rows 126:131 --column status
  [ "$(tr '\n' ' ' < out.txt)" = "200 200 200 200 200 " ] && pass ||
    fail "slice across chunks: $(cat out.txt)"

  # Writer options reach the file.
  expect_ok "$l3" compress "$data/small.csv" -o opts.l3 --chunk-rows 100 --values-per-lane 32 \
    --partition-rows 64 --max-partition-rows 64 --tau 3 --merge-rounds 0 --no-bounds --no-stats \
    --profile archive --zstd-level 1 --threads 1 --disable poly2,poly3 --metadata k=v
  expect_ok "$l3dump" --json opts.l3
  grep -q '"values_per_lane": 32' out.txt && grep -q '"bounds": null' out.txt &&
    grep -q '"statistics": null' out.txt && grep -q '"compression": "zstd"' out.txt &&
    grep -q '"num_chunks": 3' out.txt && grep -q '"key": "k"' out.txt && pass ||
    fail "writer options not reflected in the file"
  expect_ok "$l3" validate --deep opts.l3
  expect_ok "$l3" decompress opts.l3 -o opts.csv
  same_bytes "$data/small.csv" opts.csv
  # Same input and options give the same bytes, whatever the thread count.
  expect_ok "$l3" compress "$data/small.csv" -o t1.l3 --threads 1
  expect_ok "$l3" compress "$data/small.csv" -o t2.l3 --threads 2
  same_bytes t1.l3 t2.l3
  # Decoding with several threads writes the same bytes as with one.
  run "$l3" demo --rows 300000 --out demo.l3  # demo reports on stderr
  [ "$rc" -eq 0 ] && pass || fail "$last_cmd: exit $rc"
  for c in linear cosmos timestamps; do
    expect_ok "$l3" decompress demo.l3 --column "$c" -o "${c}_1.bin" --threads 1
    expect_ok "$l3" decompress demo.l3 --column "$c" -o "${c}_3.bin" --threads 3
    same_bytes "${c}_1.bin" "${c}_3.bin"
  done
  expect_error 2 "--threads" "$l3" decompress demo.l3 -o t4.bin --threads -1

  # Floats (spec §11.2): random bit patterns (NaN payloads, -0, subnormals,
  # infinities among them) in every float type and both float encodings, a
  # tensor column of row width 3, raw and .npy, byte for byte.
  for t in f16 bf16 f32 f64; do
    case $t in f16 | bf16) w=2 ;; f32) w=4 ;; f64) w=8 ;; esac
    seq 1 1200 | while read -r i; do echo $(((i * 2654435761 + (i << 29)) ^ (i * 40503))); done |
      to_le "$w" > "float_$t.bin"
    for enc in ibp integer; do
      expect_ok "$l3" compress --type "$t" --row-width 3 --float-encoding "$enc" "float_$t.bin" \
        -o "float_$t.l3"
      expect_ok "$l3" decompress "float_$t.l3" -o "float_$t.back"
      same_bytes "float_$t.bin" "float_$t.back"
      expect_ok "$l3" validate --deep "float_$t.l3"
      # l3dump names every float type.
      "$l3dump" "float_$t.l3" > out.txt 2>&1
      grep -q "column 0 \"float_$t\": $t\[3\]" out.txt && pass ||
        fail "l3dump names a $t column: $(grep 'column 0' out.txt | head -1)"
    done
  done
  expect_ok "$l3" decompress float_f32.l3 -o float_f32.npy
  expect_ok "$l3" compress float_f32.npy -o float_npy.l3
  expect_ok "$l3" decompress float_npy.l3 -o float_npy.back
  same_bytes float_f32.bin float_npy.back
  printf 'x\n1.5\n-0\n1e-300\n-inf\n0.1\n' > float.csv
  expect_ok "$l3" compress --columns x:f64 float.csv -o float_csv.l3
  expect_ok "$l3" decompress float_csv.l3 -o float_back.csv
  printf 'x\n1.5\n-0\n1e-300\n-inf\n0.1\n' > float_expected.csv
  same_bytes float_expected.csv float_back.csv
}

group_errors() {
  seq 0 9 | to_le 4 > ten.bin
  printf 'x,y\n1,2\n' > ok.csv

  # Usage errors (exit 2).
  expect_error 2 "no output file" "$l3" compress --type u32 ten.bin
  expect_error 2 "raw input needs --type" "$l3" compress ten.bin -o x.l3
  expect_error 2 "'int128' is not a type" "$l3" compress --type int128 ten.bin -o x.l3
  expect_error 2 "--row-width 2 for ten.bin: only float columns have rows of several values" \
    "$l3" compress --type u32 --row-width 2 ten.bin -o x.l3
  expect_error 3 "'ten' has 10 values, not a whole number of rows of 3" \
    "$l3" compress --type f32 --row-width 3 ten.bin -o x.l3
  expect_error 2 "CSV reads f32 and f64 floats" "$l3" compress --columns x:f16 ok.csv -o x.l3
  expect_error 2 "--values-per-lane: 48 is not a power of two" \
    "$l3" compress --type u32 ten.bin -o x.l3 --values-per-lane 48
  expect_error 2 "--profile: 'warm' is not hot or archive" \
    "$l3" compress --type u32 ten.bin -o x.l3 --profile warm
  expect_error 2 "--chunk-rows: 'many' is not an unsigned integer" \
    "$l3" compress --type u32 ten.bin -o x.l3 --chunk-rows many
  expect_error 2 "no column 'nope'" "$l3" compress ok.csv --columns nope -o x.l3
  expect_error 2 "two columns are named 'ten'" "$l3" compress --type u32 ten.bin ten.bin -o x.l3
  expect_error 2 "is also an input" "$l3" compress --type u32 ten.bin -o ten.bin
  expect_error 2 "needs --format" "$l3" compress --type u32 - -o x.l3
  expect_only_files . ten.bin ok.csv out.txt err.txt
  "$l3" compress --type u32 ten.bin -o ten.l3
  expect_error 2 "no column 'zz' (it has 1: ten)" "$l3" decompress ten.l3 --column zz -o x.bin
  expect_error 2 "no column '3'" "$l3" cat ten.l3 --column 3
  expect_error 2 "--rows 5:11: past the end (10 rows)" "$l3" cat ten.l3 --rows 5:11
  expect_error 2 "--rows 6:5: the start is after the end" "$l3" decompress ten.l3 --rows 6:5 -o x.bin
  # An unknown extension writes raw values, as compress reads it as raw.
  expect_ok "$l3" decompress ten.l3 -o x.txt
  cmp -s x.txt ten.bin && pass || fail "decompress -o x.txt did not write the raw values"
  rm -f x.txt
  expect_error 2 "raw and .npy outputs hold one column" \
    "$l3" decompress "$data/small.l3" --column id --column big -o x.npy

  # Missing and unreadable files (IO_ERROR, 12).
  expect_error 12 "cannot open missing.bin: No such file or directory" \
    "$l3" compress --type u32 missing.bin -o x.l3
  expect_error 12 "cannot open missing.l3: No such file or directory" "$l3" info missing.l3
  expect_error 12 "cannot open missing.l3" "$l3dump" missing.l3
  expect_error 12 "Is a directory" "$l3" validate .
  if [ "$(id -u)" -ne 0 ]; then
    cp ten.bin locked.bin && chmod 000 locked.bin
    expect_error 12 "cannot open locked.bin: Permission denied" "$l3" compress --type u32 locked.bin -o x.l3
    rm -f locked.bin
  fi
  expect_error 12 "cannot create nodir/x.bin: No such file or directory" "$l3" decompress ten.l3 -o nodir/x.bin

  # Bad input data (3).
  head -c 39 ten.bin > odd.bin
  expect_error 3 "odd.bin: 39 bytes is not a multiple of 4 (u32)" "$l3" compress --type u32 odd.bin -o x.l3
  expect_error 3 "odd.bin: 39 bytes is not a multiple of 8 (i64)" "$l3" compress --type i64 odd.bin -o x.l3
  expect_error 3 "39 bytes is not a multiple of 4 (u32)" \
    "$l3" compress --format raw --type u32 - -o x.l3 < odd.bin
  printf 'a,b\n1,2\n3,4\n5,abc\n' > bad.csv
  expect_error 3 "bad.csv:4:3: 'abc' is not an integer (column 'b'; give the column a float type" \
    "$l3" compress bad.csv -o x.l3
  expect_error 3 "bad.csv:4:3: 'abc' is not a number (column 'b', f64)" \
    "$l3" compress --columns b:f64 bad.csv -o x.l3
  printf 'a,b\n1,2\n3\n' > short.csv
  expect_error 3 "short.csv:3:1: 1 fields, expected 2" "$l3" compress short.csv -o x.l3
  printf 'a\n1\n300\n' > range.csv
  expect_error 3 "range.csv:3:1: 300 is out of range for u8 [0, 255] (column 'a')" \
    "$l3" compress range.csv --type u8 -o x.l3
  expect_error 3 "range.csv:3:1: 300 is out of range for i8" "$l3" compress range.csv --columns a:i8 -o x.l3
  printf 'a\n-1\n18446744073709551615\n' > both.csv
  expect_error 3 "no integer type holds both" "$l3" compress both.csv -o x.l3
  printf 'a,b\n1,2\n\n3, \n' > empty_field.csv
  expect_error 3 "empty_field.csv:4:3: empty field in column 'b'" "$l3" compress empty_field.csv -o x.l3
  : > empty.csv
  expect_error 3 "empty.csv: no data" "$l3" compress empty.csv -o x.l3
  expect_error 3 "columns differ in length: 'ten' has 10 rows, 'seq' has 11" \
    "$l3" compress --type u32 ten.bin <(seq 0 10 | to_le 4) --name ten --name seq -o x.l3
  # .npy: unsupported dtypes, shapes, truncation, junk.
  head -c 16 /dev/zero | mknpy c8.npy "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }"
  expect_error 3 "c8.npy: unsupported dtype '<c8' (L3 columns are integers i1..i8, u1..u8 or floats f2, f4, f8)" \
    "$l3" compress c8.npy -o x.l3
  head -c 2 /dev/zero | mknpy bool.npy "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }"
  expect_error 3 "unsupported dtype '|b1'" "$l3" compress bool.npy -o x.l3
  head -c 16 /dev/zero | mknpy twod.npy "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 2), }"
  expect_error 3 "twod.npy: array of shape (2, 2) is not one-dimensional" "$l3" compress twod.npy -o x.l3
  head -c 12 /dev/zero | mknpy trunc.npy "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }"
  expect_error 3 "trunc.npy: truncated: the header announces 4 values (16 bytes) but 12 bytes follow" \
    "$l3" compress trunc.npy -o x.l3
  head -c 12 /dev/zero | mknpy extra.npy "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }"
  expect_error 3 "extra.npy: 4 bytes follow the 2 values" "$l3" compress extra.npy -o x.l3
  expect_error 3 "ten.bin: not a .npy file (bad magic)" "$l3" compress --format npy ten.bin -o x.l3
  expect_error 2 "--type applies to raw and CSV inputs" "$l3" compress --type u32 extra.npy -o x.l3

  # Truncated and corrupt .l3 files: the SDK's error class, as 10 + code.
  local f="$data/small.l3" size
  size=$(stat -c %s "$f")
  head -c 100 "$f" > tiny.l3
  expect_error 14 "tiny.l3: TRUNCATED" "$l3" info tiny.l3
  head -c $((size - 64)) "$f" > cut.l3
  expect_error 14 "cut.l3: TRUNCATED" "$l3dump" cut.l3
  expect_error 14 "TRUNCATED" "$l3" validate cut.l3
  printf 'this is not an l3 file, just text, long enough to have a postscript area..........................................................................' > text.l3
  expect_error 13 "text.l3: NOT_L3" "$l3" cat text.l3
  expect_error 13 "standard input: NOT_L3" "$l3" info - < text.l3
  flip() {  # flip IN OUT OFFSET: inverts one byte
    cp "$1" "$2"
    local byte
    byte=$(od -An -tu1 -j "$3" -N1 "$2" | tr -d ' ')
    printf "\\$(printf '%03o' $((byte ^ 255)))" | dd of="$2" bs=1 seek="$3" conv=notrunc status=none
  }
  flip "$f" footer_flip.l3 $((size - 200))
  expect_error 15 "footer_flip.l3: CHECKSUM_MISMATCH" "$l3" info footer_flip.l3
  flip "$f" ps_flip.l3 $((size - 60))
  expect_error 15 "CHECKSUM_MISMATCH" "$l3dump" ps_flip.l3
  flip "$f" header_flip.l3 20
  expect_error 18 "header_flip.l3: CORRUPT_FRAMING" "$l3" validate header_flip.l3
  # A payload byte: the file opens; decoding and --verify find it.
  local payload
  payload=$("$l3dump" --json --column temp "$f" | grep -A1 '"payload": {' | grep -o '[0-9]\+' | head -1)
  flip "$f" payload_flip.l3 $((payload + 3))
  expect_error 15 "CHECKSUM_MISMATCH" "$l3" validate payload_flip.l3
  expect_error 15 "CHECKSUM_MISMATCH" "$l3" decompress payload_flip.l3 --column temp -o x.bin
  allow_stdout=1 expect_error 15 "CHECKSUM_MISMATCH" "$l3dump" --verify payload_flip.l3
  grep -q "segments FAILED" out.txt && pass || fail "l3dump --verify output lacks FAILED"
  "$bin/l3_testfile" "$f" v2.l3 --major 2
  expect_error 16 "v2.l3: UNSUPPORTED_VERSION" "$l3" info v2.l3
  expect_error 17 "future_required.l3: UNSUPPORTED_FEATURE" "$l3" validate "$data/future_required.l3"
  expect_error 17 "(l3dump --allow-unknown lists it anyway)" "$l3dump" "$data/future_required.l3"
  expect_error 17 "future_encoding.l3: UNSUPPORTED_FEATURE" "$l3" cat "$data/future_encoding.l3"
  expect_error 17 "(l3dump --allow-unknown lists it anyway)" "$l3dump" "$data/future_encoding.l3"
  "$bin/l3_testfile" "$f" badtype.l3 --physical-type 42
  expect_error 20 "badtype.l3: CORRUPT_METADATA" "$l3" info badtype.l3
  expect_error 20 "badtype.l3: CORRUPT_METADATA" "$l3dump" badtype.l3
  expect_ok "$l3dump" --allow-unknown badtype.l3
  grep -q 'column 0 "id": unknown(42)' out.txt && grep -q "(opaque: not interpreted" out.txt && pass ||
    fail "l3dump --allow-unknown on an unknown physical type: $(head -c 300 out.txt)"

  # No partial output: failures leave no file (and no temporary) behind,
  # and never replace an existing file.
  mkdir clean && cd clean
  expect_error 3 "'abc' is not an integer" "$l3" compress ../bad.csv -o x.l3
  expect_error 3 "not a multiple of 4" "$l3" compress --format raw --type u32 - -o x.l3 < ../odd.bin
  expect_error 15 "CHECKSUM_MISMATCH" "$l3" decompress ../payload_flip.l3 --column temp -o x.bin
  expect_error 15 "CHECKSUM_MISMATCH" "$l3" decompress ../payload_flip.l3 -o x.csv
  rm -f out.txt err.txt
  expect_only_files .
  echo keep > x.csv
  expect_error 15 "CHECKSUM_MISMATCH" "$l3" decompress ../payload_flip.l3 -o x.csv
  [ "$(cat x.csv)" = keep ] && pass || fail "a failed decompress replaced an existing file"
  cd ..
  # Killed while writing: the temporary file goes too (SIGTERM handler).
  mkdir killed
  echo keep > killed/big.l3
  (cd killed && exec "$l3" compress --format raw --type u64 --chunk-rows 65536 - -o big.l3 < /dev/zero 2> /dev/null) &
  local pid=$!
  sleep 0.5
  kill -TERM "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  local killed_rc=$?
  [ "$killed_rc" -eq 143 ] && pass || fail "l3 compress after SIGTERM: exit $killed_rc, expected 143"
  [ "$(cat killed/big.l3)" = keep ] && pass || fail "an interrupted compress changed the target"
  rm -f killed/big.l3
  expect_only_files killed
}

group_golden() {
  local regen="${L3_REGEN_GOLDENS:-0}" name args
  cd "$data"
  while IFS='|' read -r name args; do
    [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
    local tool="$l3dump"
    [ "${name:0:3}" = "l3_" ] && tool="$l3"
    # shellcheck disable=SC2086  # ARGS is a word list
    "$tool" $args > "$work/actual" 2> "$work/stderr"
    local rc=$?
    if [ "$regen" = 1 ]; then
      cp "$work/actual" "$here/golden/$name"
      echo "regenerated $name (exit $rc)"
      pass
    elif [ "$rc" -ne 0 ]; then
      fail "golden $name: exit $rc: $(cat "$work/stderr")"
    elif ! diff -u "$here/golden/$name" "$work/actual" > "$work/diff"; then
      fail "golden $name differs:"
      head -40 "$work/diff"
    else
      pass
    fi
  done < "$here/golden/cases.txt"
  cd "$work"
}

case "$group" in
  basics) group_basics ;;
  roundtrip) group_roundtrip ;;
  errors) group_errors ;;
  golden) group_golden ;;
  pgm) group_pgm ;;
  scan) group_scan ;;
  *) echo "unknown group $group" >&2; exit 2 ;;
esac
echo "$group: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
