#!/usr/bin/env python3
"""CPU read speed of L3 beside pyarrow's Parquet reader, on the arrays of the
ratio report, measured in one run (issue: CPU reference at memory speed).

For every generated dataset (at --rows rows) and every real integer array:

  - L3 hot and archive files (build/bin/l3 compress), decoded by
    `l3_cpu_bench --file` with one thread and with --threads threads
    (ReadRows of the whole column into one buffer, the reader's chunk cache
    off, best of --reps runs; it compares the decoded bytes with the input);
  - Parquet files written by pyarrow (DELTA_BINARY_PACKED + zstd, and
    dictionary + zstd; zstd level 3) read back with
    pyarrow.parquet.read_table, use_threads False and True (pyarrow's CPU
    pool set to --threads), best of --reps runs; the values are checked once.

Speed = decoded (raw) bytes / second. Files are read from the page cache in
both cases (each is read once before timing). Writes OUT/cpu-read.md and
OUT/cpu-read.json.

  python3 scripts/cpu_read_report.py [--rows N] [--datasets a,b] [--no-real]
                                     [--threads T] [--reps R] [--build build]

scripts/cpu_read_report.sh creates the virtual environment and runs this.
"""
import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_report import DTYPES, datasets  # noqa: E402  (same arrays as peers.md)


def l3_times(build, raw_path, type_name, workdir, threads, reps):
    out = {}
    for profile in ("hot", "archive"):
        path = os.path.join(workdir, f"x.{profile}.l3")
        subprocess.run([os.path.join(build, "bin", "l3"), "compress", raw_path, "--type", type_name,
                        "--profile", profile, "-o", path], check=True, stdout=subprocess.DEVNULL)
        res = subprocess.run([os.path.join(build, "bin", "l3_cpu_bench"), "--file", path,
                              "--expect", raw_path, "--threads", str(threads), "--reps", str(reps)],
                             check=True, capture_output=True, text=True)
        r = json.loads(res.stdout)
        out[f"l3_{profile}_bytes"] = os.path.getsize(path)
        out[f"l3_{profile}_s1"] = r["seconds_1"]
        out[f"l3_{profile}_sT"] = r["seconds_T"]
        os.remove(path)
    return out


def parquet_times(arr, workdir, threads, reps):
    import pyarrow as pa
    import pyarrow.parquet as pq
    pa.set_cpu_count(threads)
    out = {}
    for name, dictionary in (("parquet_delta", False), ("parquet_dict", True)):
        path = os.path.join(workdir, f"x.{name}.parquet")
        kwargs = dict(compression="zstd", compression_level=3, use_dictionary=dictionary)
        if not dictionary:
            kwargs["column_encoding"] = {"v": "DELTA_BINARY_PACKED"}
        pq.write_table(pa.table({"v": arr}), path, **kwargs)
        back = pq.read_table(path, use_threads=False).column("v").to_numpy()
        if not np.array_equal(back, arr):
            raise SystemExit(f"pyarrow read back other values from {path}")
        for key, use_threads in (("s1", False), ("sT", True)):
            best = math.inf
            for _ in range(reps):
                t0 = time.perf_counter()
                pq.read_table(path, use_threads=use_threads)
                best = min(best, time.perf_counter() - t0)
            out[f"{name}_{key}"] = best
        out[f"{name}_bytes"] = os.path.getsize(path)
        os.remove(path)
    return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--datasets", default="")
    p.add_argument("--no-real", action="store_true")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--build", default=os.path.join(root, "build"))
    p.add_argument("--real-dir", default=os.environ.get("L3_REAL_DATA_DIR",
                                                        os.path.join(root, "..", "shared", "data", "real")))
    p.add_argument("--out", default=os.path.join(root, "docs", "results"))
    p.add_argument("--command", default="scripts/cpu_read_report.sh")
    args = p.parse_args()

    import pyarrow
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name, type_name, raw_path in datasets(args, workdir):
            with open(raw_path, "rb") as f:
                raw = f.read()
            arr = np.frombuffer(raw, dtype=DTYPES[type_name])
            rec = {"dataset": name, "type": type_name, "rows": int(arr.size), "raw_bytes": len(raw)}
            rec.update(l3_times(args.build, raw_path, type_name, workdir, args.threads, args.reps))
            rec.update(parquet_times(arr, workdir, args.threads, args.reps))
            rows.append(rec)
            print(f"{name}: L3 hot {len(raw) / rec['l3_hot_s1'] / 1e9:.2f} GB/s, Parquet DELTA "
                  f"{len(raw) / rec['parquet_delta_s1'] / 1e9:.2f}, dict "
                  f"{len(raw) / rec['parquet_dict_s1'] / 1e9:.2f} (1 thread)", flush=True)
            os.remove(raw_path)

    def gbs(rec, key):
        return rec["raw_bytes"] / rec[key] / 1e9

    t = args.threads
    lines = [
        "# CPU read speed: L3 beside pyarrow's Parquet reader",
        "",
        "Generated by `scripts/cpu_read_report.py`; do not edit by hand.",
        "",
        f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
        f"commit `{git_commit(root)}`; command `{args.command}`",
        f"- Machine: {platform.machine()}, {os.cpu_count()} hardware threads; pyarrow {pyarrow.__version__}",
        f"- Generated datasets at {args.rows:,} rows; real integer arrays whole. Best of {args.reps} runs.",
        "- GB/s = decoded (raw) bytes per second. L3: `l3_cpu_bench --file` (Reader::ReadRows of the "
        "whole column into one buffer; chunk cache off, so archive files are decompressed every run; "
        "`ReadOptions::num_threads` 1 and T); the decoded bytes are compared with the input. "
        "Parquet: `pyarrow.parquet.read_table`, `use_threads` False and True (CPU pool of T threads), "
        "zstd level 3; values checked once. Both read files in the page cache.",
        "",
        f"| dataset | type | L3 hot 1 thr | L3 hot {t} thr | L3 archive 1 thr | L3 archive {t} thr | "
        f"Parquet DELTA 1 thr | Parquet DELTA {t} thr | Parquet dict 1 thr | Parquet dict {t} thr | "
        f"hot / best Parquet, 1 thr | hot / best Parquet, {t} thr | archive / best Parquet, 1 thr |",
        "|---|---|" + "---:|" * 11,
    ]
    summary = {"hot1": [], "hotT": [], "arch1": []}
    for r in rows:
        best1 = max(gbs(r, "parquet_delta_s1"), gbs(r, "parquet_dict_s1"))
        bestT = max(gbs(r, "parquet_delta_sT"), gbs(r, "parquet_dict_sT"))
        h1, hT, a1 = gbs(r, "l3_hot_s1") / best1, gbs(r, "l3_hot_sT") / bestT, gbs(r, "l3_archive_s1") / best1
        summary["hot1"].append(h1)
        summary["hotT"].append(hT)
        summary["arch1"].append(a1)
        lines.append(
            f"| {r['dataset']} | {r['type']} | {gbs(r, 'l3_hot_s1'):.2f} | {gbs(r, 'l3_hot_sT'):.2f} | "
            f"{gbs(r, 'l3_archive_s1'):.2f} | {gbs(r, 'l3_archive_sT'):.2f} | "
            f"{gbs(r, 'parquet_delta_s1'):.2f} | {gbs(r, 'parquet_delta_sT'):.2f} | "
            f"{gbs(r, 'parquet_dict_s1'):.2f} | {gbs(r, 'parquet_dict_sT'):.2f} | "
            f"{h1:.2f} | {hT:.2f} | {a1:.2f} |")

    def geo(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

    lines += [
        "",
        "Geometric means over the datasets above:",
        "",
        f"- L3 hot / best Parquet read, 1 thread: {geo(summary['hot1']):.2f} "
        f"(faster on {sum(x > 1 for x in summary['hot1'])} of {len(rows)})",
        f"- L3 hot / best Parquet read, {t} threads: {geo(summary['hotT']):.2f} "
        f"(faster on {sum(x > 1 for x in summary['hotT'])} of {len(rows)})",
        f"- L3 archive / best Parquet read, 1 thread: {geo(summary['arch1']):.2f} "
        f"(faster on {sum(x > 1 for x in summary['arch1'])} of {len(rows)})",
        "",
    ]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "cpu-read.md"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(args.out, "cpu-read.json"), "w") as f:
        json.dump({"command": args.command, "threads": t, "reps": args.reps, "rows": rows}, f, indent=1)
    print("\n".join(lines))


def git_commit(root):
    try:
        return subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except Exception:  # noqa: BLE001
        return "unknown"


if __name__ == "__main__":
    main()
