#!/usr/bin/env python3
"""Ratios of L3 float columns (spec §11.2) beside the codecs a user would pick
instead, on the real float arrays, in one run: writes docs/results/floats.md
and floats.json. Run through scripts/float_report.sh, which installs the peers.

L3 is measured through the CLI (the whole .l3 file, every file decoded back
and compared byte for byte): the hot profile with each float encoding (auto:
the smaller per chunk; ibp: Invariant Bit Packing, any row found in O(1);
integer: the order-preserving integer form) and the archive profile. Peers:
zstd -3/-19, Parquet (BYTE_STREAM_SPLIT + zstd, and plain + zstd), blosc2
(shuffle + zstd), Pco level 8 and Vortex, each over the array as one flat
float column. None of the peers can return one row without decompressing a
block; IBP can, which is why it is reported beside them and not instead.
"""
import argparse
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def peers(arr, workdir):
    out = {}

    def attempt(name, fn):
        try:
            out[name] = fn()
        except Exception as e:  # a peer that fails is reported, not fatal
            out[name] = None
            print(f"float_report: {name}: {e}", file=sys.stderr)

    raw = arr.tobytes()

    def zstd(level):
        import zstandard
        return len(zstandard.ZstdCompressor(level=level).compress(raw))

    attempt("zstd-3", lambda: zstd(3))
    attempt("zstd-19", lambda: zstd(19))

    def parquet(split):
        import pyarrow as pa
        import pyarrow.parquet as pq
        buf = io.BytesIO()
        kwargs = dict(compression="zstd", compression_level=19, use_dictionary=False)
        if split:
            kwargs["column_encoding"] = {"v": "BYTE_STREAM_SPLIT"}
        pq.write_table(pa.table({"v": arr}), buf, **kwargs)
        return len(buf.getvalue())

    attempt("parquet_split_zstd", lambda: parquet(True))
    attempt("parquet_plain_zstd", lambda: parquet(False))

    def blosc():
        import blosc2
        return len(blosc2.pack_array2(arr, cparams={"codec": blosc2.Codec.ZSTD, "clevel": 9,
                                                   "filters": [blosc2.Filter.SHUFFLE],
                                                   "typesize": arr.dtype.itemsize}))

    attempt("blosc2_shuffle_zstd", blosc)

    def pco():
        from pcodec import ChunkConfig, standalone
        return len(standalone.simple_compress(arr, ChunkConfig(compression_level=8)))

    attempt("pco", pco)

    def vortex():
        import pyarrow as pa
        import vortex.io as vio
        path = os.path.join(workdir, "x.vortex")
        vio.write(pa.table({"v": arr}), path)
        size = os.path.getsize(path)
        os.remove(path)
        return size

    attempt("vortex", vortex)
    return out


def l3_sizes(l3, path, dtype, width, workdir):
    out = {}
    runs = [("l3_hot_auto", ["--float-encoding", "auto"]), ("l3_hot_ibp", ["--float-encoding", "ibp"]),
            ("l3_hot_integer", ["--float-encoding", "integer"]),
            ("l3_archive_auto", ["--float-encoding", "auto", "--profile", "archive"])]
    for name, extra in runs:
        f = os.path.join(workdir, "x.l3")
        back = os.path.join(workdir, "back.bin")
        subprocess.run([l3, "compress", "--type", dtype, "--row-width", str(width), path, "-o", f] + extra,
                       check=True)
        subprocess.run([l3, "decompress", f, "-o", back], check=True)
        with open(path, "rb") as a, open(back, "rb") as b:
            if a.read() != b.read():
                raise SystemExit(f"float_report: {name} did not decode {path} back byte for byte")
        out[name] = os.path.getsize(f)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--real-dir", default=os.environ.get("L3_REAL_DATA_DIR", "../shared/data/real"))
    ap.add_argument("--md", default="docs/results/floats.md")
    ap.add_argument("--json", default="docs/results/floats.json")
    ap.add_argument("--command", default="scripts/float_report.sh")
    args = ap.parse_args()
    l3 = os.path.join(args.build, "bin", "l3")
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for file in sorted(os.listdir(args.real_dir)):
            m = re.search(r"_(\d+)x(\d+)(?:_[a-z]+)?_(f32|f64)\.bin\.gz$", file)
            if not m:
                continue
            n, width, dtype = int(m.group(1)), int(m.group(2)), m.group(3)
            path = os.path.join(workdir, "in.bin")
            with gzip.open(os.path.join(args.real_dir, file), "rb") as src:
                data = src.read()
            with open(path, "wb") as dst:
                dst.write(data)
            arr = np.frombuffer(data, dtype=np.float32 if dtype == "f32" else np.float64)
            sizes = l3_sizes(l3, path, dtype, width, workdir)
            sizes.update(peers(arr, workdir))
            rows.append({"dataset": file[:-len(".bin.gz")], "rows": n, "row_width": width,
                         "raw_bytes": len(data), "bytes": sizes})
            print(file, {k: (round(len(data) / v, 2) if v else None) for k, v in sizes.items()})
    cols = list(rows[0]["bytes"].keys()) if rows else []
    md = ["# L3 float columns beside the peers (CPU, ratios)", "",
          "Generated by `scripts/float_report.py` (run `" + args.command + "`); do not edit by hand.", "",
          "Ratio = raw bytes / compressed bytes (L3: the whole .l3 file, decoded back and compared "
          "byte for byte). Only `l3_hot_ibp` finds any row in O(1) without decompressing a block; "
          "the integer form and every peer decode blocks.", "",
          "| dataset | rows x width | " + " | ".join(cols) + " |",
          "|---|---|" + "---:|" * len(cols)]
    for r in rows:
        cells = []
        for c in cols:
            v = r["bytes"][c]
            cells.append(f"{r['raw_bytes'] / v:.2f}" if v else "n/a")
        md.append(f"| {r['dataset']} | {r['rows']} x {r['row_width']} | " + " | ".join(cells) + " |")
    with open(args.md, "w") as f:
        f.write("\n".join(md) + "\n")
    with open(args.json, "w") as f:
        json.dump({"command": args.command, "results": rows}, f, indent=2)


if __name__ == "__main__":
    main()
