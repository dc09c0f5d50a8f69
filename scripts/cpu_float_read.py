#!/usr/bin/env python3
"""CPU read speed of IBP float columns (spec §11.2.3) beside the readers a
user would pick instead, in one run (issue: CPU reference at memory speed).

For every real float array (gzip'd raw little-endian rows, `NAME_RxW_f32`)
and a generated embedding table (--table-rows x --table-width bf16-rounded
N(0, 0.05^2) values in f32, as l3_ibp_gpu_bench makes it):

  - the array written by `l3 compress --float-encoding ibp` and read back by
    `l3_cpu_bench --file F --expect RAW` (ReadRows of every row into one
    buffer, best of --reps, one thread and --threads threads; the decoded
    bytes are compared with the input), with the build --build and, when
    given, the build --before (the same file, so an A/B of the readers);
  - Parquet (pyarrow; the values as one flat float column, zstd level 3,
    BYTE_STREAM_SPLIT) read by pyarrow.parquet.read_table with use_threads
    False and True;
  - blosc2 (shuffle + zstd level 3) decompressed with one thread and with
    --threads threads.

Speed = decoded (raw) bytes / second; every file is read from memory or the
page cache. Prints a Markdown table and writes --json when given.

  scripts/cpu_float_read.py --build BUILD [--before BUILD] [--real-dir DIR]
      [--table-rows N] [--table-width W] [--threads T] [--reps R] [--json F]

Needs numpy, pyarrow and blosc2 (scripts/float_report.sh installs them in
BUILD/peers-venv).
"""
import argparse
import glob
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def best(reps, fn):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def l3_read(build, path, raw_path, threads, reps):
    res = subprocess.run([os.path.join(build, "bin", "l3_cpu_bench"), "--file", path, "--expect",
                          raw_path, "--threads", str(threads), "--reps", str(reps)],
                         check=True, capture_output=True, text=True)
    r = json.loads(res.stdout)
    return r["seconds_1"], r["seconds_T"]


def peers(arr, threads, reps):
    out = {}
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
        buf = io.BytesIO()
        pq.write_table(pa.table({"x": arr.ravel()}), buf, compression="zstd",
                       compression_level=3, use_dictionary=False,
                       column_encoding={"x": "BYTE_STREAM_SPLIT"})
        data = buf.getvalue()
        check = pq.read_table(io.BytesIO(data)).column(0).to_numpy()
        assert check.tobytes() == arr.tobytes()
        pa.set_cpu_count(threads)
        for t, key in ((False, "parquet_s1"), (True, "parquet_sT")):
            out[key] = best(reps, lambda: pq.read_table(io.BytesIO(data), use_threads=t))
        out["parquet_bytes"] = len(data)
    except Exception as e:  # a peer that fails is reported, not fatal
        print(f"cpu_float_read: parquet: {e}", file=sys.stderr)
    try:
        import blosc2
        raw = arr.tobytes()
        packed = blosc2.compress(raw, typesize=arr.dtype.itemsize, clevel=3,
                                 codec=blosc2.Codec.ZSTD, filter=blosc2.Filter.SHUFFLE)
        assert blosc2.decompress(packed) == raw
        for n, key in ((1, "blosc2_s1"), (threads, "blosc2_sT")):
            blosc2.set_nthreads(n)
            out[key] = best(reps, lambda: blosc2.decompress(packed))
        out["blosc2_bytes"] = len(packed)
    except Exception as e:
        print(f"cpu_float_read: blosc2: {e}", file=sys.stderr)
    return out


def embedding_table(rows, width):
    rng = np.random.default_rng(2026)
    bits = rng.normal(0.0, 0.05, rows * width).astype(np.float32).view(np.uint32)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # bf16, nearest even
    return bits.astype(np.uint32).view(np.float32).reshape(rows, width)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--before")
    ap.add_argument("--real-dir", default=os.environ.get("L3_REAL_DATA_DIR", ""))
    ap.add_argument("--table-rows", type=int, default=200000)
    ap.add_argument("--table-width", type=int, default=768)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()

    arrays = []
    for path in sorted(glob.glob(os.path.join(args.real_dir, "*_f32.bin.gz"))):
        name = os.path.basename(path)[: -len(".bin.gz")]
        m = re.search(r"_(\d+)x(\d+)_f32$", name)
        if not m:
            continue
        with gzip.open(path, "rb") as f:
            arr = np.frombuffer(f.read(), dtype="<f4").reshape(-1, int(m.group(2)))
        arrays.append((name, arr))
    if args.table_rows > 0:
        arrays.append((f"embedding_bf16_in_f32_{args.table_rows}x{args.table_width}",
                       embedding_table(args.table_rows, args.table_width)))

    results = []
    t = args.threads
    head = "| array | rows x width | MB | L3 IBP ratio |"
    if args.before:
        head += " L3 before, 1 thr GB/s |"
    head += (f" L3, 1 thr GB/s | L3, {t} thr GB/s | Parquet ratio | Parquet 1 / {t} thr GB/s"
             f" | blosc2 ratio | blosc2 1 / {t} thr GB/s |")
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    with tempfile.TemporaryDirectory() as work:
        for name, arr in arrays:
            raw_path = os.path.join(work, "x.bin")
            arr.tofile(raw_path)
            l3_path = os.path.join(work, "x.l3")
            subprocess.run([os.path.join(args.build, "bin", "l3"), "compress", raw_path, "--type",
                            "f32", "--row-width", str(arr.shape[1]), "--float-encoding", "ibp",
                            "-o", l3_path], check=True, stdout=subprocess.DEVNULL)
            raw_bytes = arr.nbytes
            r = {"array": name, "rows": arr.shape[0], "width": arr.shape[1], "raw_bytes": raw_bytes,
                 "l3_bytes": os.path.getsize(l3_path)}
            r["l3_s1"], r["l3_sT"] = l3_read(args.build, l3_path, raw_path, t, args.reps)
            if args.before:
                r["before_s1"], r["before_sT"] = l3_read(args.before, l3_path, raw_path, t,
                                                         args.reps)
            r.update(peers(arr, t, args.reps))
            results.append(r)

            def gbs(key):
                return f"{raw_bytes / r[key] / 1e9:.2f}" if r.get(key) else "n/a"

            def ratio(key):
                return f"{raw_bytes / r[key]:.2f}" if r.get(key) else "n/a"

            row = (f"| {name} | {arr.shape[0]} x {arr.shape[1]} | {raw_bytes / 1e6:.1f} | "
                   f"{ratio('l3_bytes')} |")
            if args.before:
                row += f" {gbs('before_s1')} |"
            row += (f" {gbs('l3_s1')} | {gbs('l3_sT')} | {ratio('parquet_bytes')} | "
                    f"{gbs('parquet_s1')} / {gbs('parquet_sT')} | {ratio('blosc2_bytes')} | "
                    f"{gbs('blosc2_s1')} / {gbs('blosc2_sT')} |")
            print(row, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": t, "reps": args.reps, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
