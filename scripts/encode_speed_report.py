#!/usr/bin/env python3
"""Encode speed of `l3 compress` before and after a change, on the inputs of
scripts/encode_identity.sh (run it first, or with --inputs-only: it generates
and unpacks them; pass the same --rows to both).

  scripts/encode_speed_report.py BEFORE_BIN AFTER_BIN [--work DIR] [--rows N]
                                 [--reps R] [--threads 1,2] [--profile hot]

For each input and thread count, runs both builds' `l3 compress` R times,
alternating before and after (the machine is shared, so the two see the same
noise), and prints a Markdown table of the best wall-clock times as million
values per second. The time is the whole command: reading the input file,
encoding, writing the .l3 file. The last column says whether both builds
wrote the same bytes (they must, unless the change is meant to alter files).
"""
import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time

TYPE_BYTES = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4, "i64": 8, "u64": 8,
              "f32": 4}


def inputs(bin_dir, work, rows):
    """(name, type, path) of every input encode_identity.sh prepared."""
    folder = os.path.join(work, f"inputs-{rows}")
    listing = subprocess.run([os.path.join(bin_dir, "l3_gen"), "--list"], check=True,
                             capture_output=True, text=True).stdout
    found = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) >= 2:
            found.append((f"gen_{fields[0]}", fields[1], os.path.join(folder, f"gen_{fields[0]}.bin")))
    for name in sorted(os.listdir(folder)):
        if name.endswith(".bin") and not name.startswith("gen_"):
            stem = name[:-4]
            found.append((stem, stem.rsplit("_", 1)[1], os.path.join(folder, name)))
    missing = [path for _, _, path in found if not os.path.exists(path)]
    if missing:
        sys.exit(f"missing inputs (run scripts/encode_identity.sh first): {missing[:3]}")
    return found


def seconds(bin_dir, path, value_type, threads, profile, out):
    start = time.perf_counter()
    subprocess.run([os.path.join(bin_dir, "l3"), "compress", path, "--type", value_type,
                    "--threads", str(threads), "--profile", profile, "-o", out],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--work", default="/tmp/l3-identity")
    parser.add_argument("--rows", type=int, default=2000000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--profile", default="hot")
    parser.add_argument("--only", default="", help="comma-separated input names")
    args = parser.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]
    only = set(filter(None, args.only.split(",")))
    folder = tempfile.mkdtemp(prefix="l3-speed-")
    outs = {which: os.path.join(folder, f"{which}.l3") for which in ("before", "after")}

    header = "| input | type | values |"
    rule = "|---|---|---|"
    for t in thread_counts:
        header += f" before {t} thr M val/s | after {t} thr M val/s | speed-up |"
        rule += "---|---|---|"
    header += " same bytes |"
    rule += "---|"
    print(f"`l3 compress --profile {args.profile}`, best of {args.reps} runs each, "
          "before and after alternating; 'same bytes': both builds wrote identical files "
          "at every thread count.\n")
    print(header)
    print(rule)
    for name, value_type, path in inputs(args.before, args.work, args.rows):
        if only and name not in only:
            continue
        values = os.path.getsize(path) // TYPE_BYTES[value_type]
        row = f"| {name} | {value_type} | {values} |"
        same = True
        for t in thread_counts:
            best = {"before": float("inf"), "after": float("inf")}
            for _ in range(args.reps):
                for which in ("before", "after"):
                    s = seconds(getattr(args, which), path, value_type, t, args.profile,
                                outs[which])
                    best[which] = min(best[which], s)
            same = same and filecmp.cmp(outs["before"], outs["after"], shallow=False)
            rate_before = values / best["before"] / 1e6
            rate_after = values / best["after"] / 1e6
            row += f" {rate_before:.1f} | {rate_after:.1f} | {best['before'] / best['after']:.2f}x |"
        row += " yes |" if same else " **no** |"
        print(row, flush=True)
    for path in outs.values():
        if os.path.exists(path):
            os.remove(path)
    os.rmdir(folder)


if __name__ == "__main__":
    main()
