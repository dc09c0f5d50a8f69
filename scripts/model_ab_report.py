#!/usr/bin/env python3
"""Ratios of L3 (hot profile, or --profile archive) with and without one
model, beside zstd, Parquet, blosc2, Pco and Vortex measured in the same run
on the same arrays.

    scripts/model_ab_report.py --build BUILD --disable patched-for \
        [--profile hot|archive] [--rows N] [--real-dir DIR] [--out FILE.md]

Each array is written twice by the same `l3` binary: with the defaults and
with `l3 compress --disable MODEL`; both files are decoded back and compared
byte for byte. The arrays: every generator dataset of `l3_gen` at --rows rows
and the real integer arrays of --real-dir (the adult census columns of the
CSV files, the raw .bin.gz arrays). The peers are those of
scripts/peer_report.py, with its settings (peer_sizes), from the Python
packages of the environment that runs this script; a codec that is missing
or fails shows as "-".
"""
import argparse
import csv
import gzip
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_report import peer_sizes, versions  # noqa: E402

GENERATED = ["linear:u32", "normal:u32", "poisson:u64", "cosmos:i32", "polylog:u64", "exp:u64",
             "poly:u64", "uniform40:u64", "stepwise:u32", "runs:u32", "sorted_noise:u64",
             "timestamps:i64"]
ADULT_COLUMNS = ["Age", "fnlwgt", "Education_Num", "Capital_Gain", "Capital_Loss",
                 "Hours_per_week"]
DTYPES = {"u8": "<u1", "u16": "<u2", "u32": "<u4", "u64": "<u8", "i8": "<i1", "i16": "<i2",
          "i32": "<i4", "i64": "<i8"}


# The peers' columns: the codecs and settings of peer_report.py, whose
# peer_sizes() measures them.
PEERS = [("zstd-3", "zstd -3"), ("zstd-19", "zstd -19"),
         ("parquet_delta_zstd", "Parquet DELTA"), ("parquet_dict_zstd", "Parquet dict"),
         ("blosc2_shuffle_zstd", "blosc2"), ("pco", "Pco"), ("vortex", "Vortex"),
         ("vortex_compact", "Vortex compact")]


def arrays(args, tmp):
    for spec in GENERATED:
        name, ty = spec.split(":")
        path = os.path.join(tmp, name + ".bin")
        subprocess.run([os.path.join(args.build, "bin", "l3_gen"), "--dataset", name, "--rows",
                        str(args.rows), "--out", path], check=True, capture_output=True)
        yield name, ty, np.fromfile(path, dtype=DTYPES[ty])
    if not args.real_dir:
        return
    for split in ["test", "train"]:
        path = os.path.join(args.real_dir, "mlcourse_adult_%s.csv.gz" % split)
        if not os.path.exists(path):
            continue
        with gzip.open(path, "rt") as f:
            rows = list(csv.DictReader(f, delimiter=";"))
        for col in ADULT_COLUMNS:
            values = []
            for r in rows:
                try:
                    values.append(int(float(r[col])))
                except (TypeError, ValueError):
                    pass
            yield "adult_%s:%s" % (split, col), "u32", np.array(values, dtype="<u4")
    for file in sorted(os.listdir(args.real_dir)):
        if not file.endswith(".bin.gz") or "f32" in file:
            continue
        ty = file[:-len(".bin.gz")].rsplit("_", 1)[-1]
        if ty not in DTYPES:
            continue
        with gzip.open(os.path.join(args.real_dir, file)) as f:
            yield file[:-len(".bin.gz")], ty, np.frombuffer(f.read(), dtype=DTYPES[ty])


def l3_bytes(args, tmp, ty, a, extra):
    raw = os.path.join(tmp, "in.bin")
    out = os.path.join(tmp, "out.l3")
    back = os.path.join(tmp, "back.bin")
    a.tofile(raw)
    l3 = os.path.join(args.build, "bin", "l3")
    subprocess.run([l3, "compress", "--type", ty, raw, "-o", out] + extra, check=True,
                   capture_output=True)
    subprocess.run([l3, "decompress", out, "-o", back], check=True, capture_output=True)
    with open(raw, "rb") as x, open(back, "rb") as y:
        if x.read() != y.read():
            sys.exit("model_ab_report: %s did not round-trip" % out)
    return os.path.getsize(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--disable", required=True)
    p.add_argument("--rows", type=int, default=2000000)
    p.add_argument("--real-dir", default="")
    p.add_argument("--out", default="")
    p.add_argument("--profile", choices=["hot", "archive"], default="hot")
    args = p.parse_args()
    profile = ["--profile", args.profile]
    lines = ["| dataset | type | rows | L3 %s | L3 %s without %s | change | %s |" % (
        args.profile, args.profile, args.disable, " | ".join(title for _, title in PEERS)),
        "|---|---|---:|---:|---:|---:|" + "---:|" * len(PEERS)]
    with tempfile.TemporaryDirectory() as tmp:
        for name, ty, a in arrays(args, tmp):
            raw = a.nbytes
            with_model = raw / l3_bytes(args, tmp, ty, a, profile)
            without = raw / l3_bytes(args, tmp, ty, a, profile + ["--disable", args.disable])
            sizes = peer_sizes(a, a.tobytes(), tmp)
            ratios = ["%.3g" % (raw / sizes[key]) if isinstance(sizes.get(key), int) else "-"
                      for key, _ in PEERS]
            lines.append("| %s | %s | %d | %.3g | %.3g | %+.1f%% | %s |" % (
                name, ty, len(a), with_model, without, 100 * (with_model / without - 1),
                " | ".join(ratios)))
            print(lines[-1], flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    found = ", ".join("%s %s" % item for item in versions().items())
    header = [
        "- Command: `scripts/model_ab_report.py %s`" % " ".join(sys.argv[1:]),
        "- Commit: `%s`; date %s UTC; %s" % (
            commit, time.strftime("%Y-%m-%d %H:%M", time.gmtime()), found),
        "- Ratio = raw bytes / whole-file bytes (L3: the whole `.l3` file, %s profile, both "
        "decoded back and compared byte for byte). Peers as in peers.md: zstd one frame of "
        "the raw array; Parquet (pyarrow) DELTA_BINARY_PACKED or dictionary, + zstd 19; "
        "blosc2 shuffle + zstd 9; Pco level 8; Vortex default and compact writers." % args.profile,
        "",
    ]
    text = "\n".join(header + lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
