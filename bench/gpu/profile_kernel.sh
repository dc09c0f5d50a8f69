#!/usr/bin/env bash
# Nsight Compute profile of one launch of a kernel, with its source-level
# hot spots, as text:
#
#   bench/gpu/profile_kernel.sh OUT_PREFIX KERNEL_REGEX SKIP -- COMMAND [ARGS...]
#
# Profiles launch SKIP+1 of the kernels whose name matches KERNEL_REGEX in
# COMMAND with the full section set and writes OUT_PREFIX.txt: the details
# page, then the SASS instructions with the most warp-stall samples and,
# for each, its executed instructions and the stall reasons sampled there.
set -uo pipefail
[ $# -ge 5 ] && [ "$4" = "--" ] || { sed -n 2,10p "$0"; exit 2; }
prefix="$1"; regex="$2"; skip="$3"; shift 4
rep="$prefix.ncu-rep"
ncu --set full --import-source yes --kernel-name "regex:$regex" --launch-skip "$skip" \
    --launch-count 1 -f -o "${rep%.ncu-rep}" "$@" >"$prefix.log" 2>&1 ||
  { echo "ncu failed:"; tail -20 "$prefix.log"; exit 1; }
{
  ncu -i "$rep" --page details
  echo
  echo "== hot SASS instructions (warp-stall samples)"
  ncu -i "$rep" --page source --print-source sass --csv 2>&1 | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
head = None
for i, r in enumerate(rows):
    if any("Warp Stall Sampling (All" in c for c in r):
        head, body = r, rows[i + 1:]
        break
if head is None:
    print("\n".join(",".join(r) for r in rows[:80])); sys.exit()
col = {c: j for j, c in enumerate(head)}
key = next(c for c in head if c.startswith("Warp Stall Sampling (All"))
def num(r, c):
    try: return float(r[col[c]].replace(",", ""))
    except (KeyError, ValueError, IndexError): return 0.0
total = sum(num(r, key) for r in body) or 1.0
body.sort(key=lambda r: -num(r, key))
src = next((c for c in head if c in ("Source", "# Source")), head[1])
execd = next((c for c in head if c.startswith("Instructions Executed")), None)
reasons = [c for c in head if c.startswith("stall_") or c.startswith("smsp__pcsamp")]
print(f"{total:.0f} samples; columns: {len(head)}")
for r in body[:45]:
    extra = sorted(((num(r, c), c) for c in reasons if num(r, c) > 0), reverse=True)[:3]
    print(f"{100 * num(r, key) / total:5.1f}%  exec={num(r, execd) if execd else 0:.0f}  "
          f"{r[col[src]][:70]:70s} " + " ".join(f"{c}={v:.0f}" for v, c in extra))
'
} >"$prefix.txt" 2>&1
grep -E "Duration|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible" \
  "$prefix.txt" | head -10
