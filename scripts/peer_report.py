#!/usr/bin/env python3
"""Compression ratios of L3 beside the codecs a user would pick instead,
measured in one run on the same arrays (issue: ratio on real columns).

For every generated dataset (at --rows rows) and every real integer array it
writes the raw little-endian array, compresses it with

  - L3, hot and archive profiles (build/bin/l3 compress), decoded back and
    compared byte for byte;
  - zstd -3 and -19 (the `zstandard` module);
  - Parquet through pyarrow: DELTA_BINARY_PACKED + zstd, and dictionary +
    zstd (the writer's default encoding), zstd level 19;
  - blosc2: byte shuffle + zstd, clevel 9;
  - Pco (pcodec) level 8, the ratio leader;
  - Vortex: the default writer and the compact writer;

and reports ratio = raw bytes / compressed bytes. A codec that cannot be
imported is reported as unavailable and the run goes on. It writes
OUT/peers.md and OUT/peers.json.

  python3 scripts/peer_report.py [--rows N] [--datasets a,b] [--no-real]
                                 [--build build] [--real-dir DIR] [--out DIR]

scripts/peer_report.sh creates the virtual environment with the peers and
runs this script.
"""
import argparse
import datetime
import gzip
import io
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
          "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}


def versions():
    out = {}
    for name in ("zstandard", "pyarrow", "blosc2", "pcodec", "vortex"):
        try:
            mod = __import__(name)
            out[name] = getattr(mod, "__version__", "?")
        except Exception as e:  # noqa: BLE001 (report and go on)
            out[name] = f"unavailable ({type(e).__name__})"
    return out


def l3_sizes(build, raw_path, type_name, workdir):
    """L3 hot and archive file sizes; checks the round trip of each."""
    out = {}
    for profile in ("hot", "archive"):
        path = os.path.join(workdir, f"x.{profile}.l3")
        back = os.path.join(workdir, f"x.{profile}.bin")
        t0 = time.time()
        subprocess.run([os.path.join(build, "bin", "l3"), "compress", raw_path, "--type", type_name,
                        "--profile", profile, "-o", path], check=True, stdout=subprocess.DEVNULL)
        encode_s = time.time() - t0
        subprocess.run([os.path.join(build, "bin", "l3"), "decompress", path, "--format", "bin",
                        "-o", back], check=True, stdout=subprocess.DEVNULL)
        with open(raw_path, "rb") as a, open(back, "rb") as b:
            same = a.read() == b.read()
        if not same:
            raise SystemExit(f"L3 {profile} round trip FAILED on {raw_path}")
        out[f"l3_{profile}"] = os.path.getsize(path)
        out[f"l3_{profile}_encode_s"] = round(encode_s, 2)
        os.remove(path)
        os.remove(back)
    return out


def peer_sizes(arr, raw, workdir):
    """Compressed bytes per peer codec, or an error string."""
    out = {}

    def attempt(name, fn):
        try:
            out[name] = fn()
        except Exception as e:  # noqa: BLE001
            out[name] = f"error: {type(e).__name__}: {str(e)[:80]}"

    def zstd(level):
        import zstandard
        return len(zstandard.ZstdCompressor(level=level).compress(raw))

    attempt("zstd-3", lambda: zstd(3))
    attempt("zstd-19", lambda: zstd(19))

    def parquet(dictionary):
        import pyarrow as pa
        import pyarrow.parquet as pq
        buf = io.BytesIO()
        kwargs = dict(compression="zstd", compression_level=19)
        if dictionary:
            kwargs["use_dictionary"] = True
        else:
            kwargs["use_dictionary"] = False
            kwargs["column_encoding"] = {"v": "DELTA_BINARY_PACKED"}
        pq.write_table(pa.table({"v": arr}), buf, **kwargs)
        return len(buf.getvalue())

    attempt("parquet_delta_zstd", lambda: parquet(False))
    attempt("parquet_dict_zstd", lambda: parquet(True))

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

    def vortex(compact):
        import pyarrow as pa
        import vortex.io as vio
        path = os.path.join(workdir, "x.vortex")
        table = pa.table({"v": arr})
        if compact:
            vio.VortexWriteOptions.compact().write(table, path)
        else:
            vio.write(table, path)
        size = os.path.getsize(path)
        os.remove(path)
        return size

    attempt("vortex", lambda: vortex(False))
    attempt("vortex_compact", lambda: vortex(True))
    return out


def datasets(args, workdir):
    """(name, type, raw path) for the generated and real arrays."""
    gen = os.path.join(args.build, "bin", "l3_gen")
    listing = subprocess.run([gen, "--list"], check=True, capture_output=True, text=True).stdout
    wanted = set(args.datasets.split(",")) if args.datasets else None
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, type_name = fields[0], fields[1]
        if wanted and name not in wanted:
            continue
        path = os.path.join(workdir, f"{name}.bin")
        subprocess.run([gen, "--dataset", name, "--rows", str(args.rows), "--out", path], check=True,
                       stdout=subprocess.DEVNULL)
        yield name, type_name, path
    if args.no_real:
        return
    for file in sorted(os.listdir(args.real_dir)):
        if not file.endswith(".bin.gz"):
            continue
        type_name = file[:-len(".bin.gz")].rsplit("_", 1)[-1]
        if type_name not in DTYPES:
            continue  # float arrays belong to the float-column work
        name = file[:-len(".bin.gz")]
        if wanted and name not in wanted:
            continue
        path = os.path.join(workdir, f"{name}.bin")
        with gzip.open(os.path.join(args.real_dir, file), "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        yield name, type_name, path


PEERS = ["zstd-3", "zstd-19", "parquet_delta_zstd", "parquet_dict_zstd", "blosc2_shuffle_zstd",
         "pco", "vortex", "vortex_compact"]
ARCHIVE_PEERS = ["zstd-19", "parquet_delta_zstd", "parquet_dict_zstd", "blosc2_shuffle_zstd",
                 "vortex", "vortex_compact", "pco"]
# The archive profile's targets in issue 8: zstd -19, both Parquet encodings,
# blosc2 and Vortex's default writer (Pco and Vortex compact are reported
# beside them).
TARGET_PEERS = ["zstd-19", "parquet_delta_zstd", "parquet_dict_zstd", "blosc2_shuffle_zstd", "vortex"]


def ratio(raw_bytes, size):
    return raw_bytes / size if isinstance(size, int) and size > 0 else None


def fmt(x):
    if x is None:
        return "–"
    return f"{x:.3g}" if x < 1000 else f"{x:.0f}"


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def dataset_arguments(rows, command):
    """The arguments every report over the ratio report's arrays takes:
    which arrays (datasets()), the build, where the report goes."""
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=rows)
    p.add_argument("--datasets", default="")
    p.add_argument("--no-real", action="store_true")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--real-dir", default=os.environ.get("L3_REAL_DATA_DIR",
                                                       os.path.join(ROOT, "..", "shared", "data", "real")))
    p.add_argument("--out", default=os.path.join(ROOT, "docs", "results"))
    p.add_argument("--command", default=command)
    return p


def git_commit():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip() or "unknown"


def geo(xs):
    """Geometric mean, None for no values."""
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main():
    root = ROOT
    args = dataset_arguments(20_000_000, "scripts/peer_report.sh").parse_args()

    results = []
    workdir = tempfile.mkdtemp(prefix="l3-peers-")
    try:
        for name, type_name, path in datasets(args, workdir):
            raw = open(path, "rb").read()
            arr = np.frombuffer(raw, dtype=DTYPES[type_name])
            row = {"dataset": name, "type": type_name, "rows": int(arr.size), "raw_bytes": len(raw)}
            row.update(l3_sizes(args.build, path, type_name, workdir))
            row.update(peer_sizes(arr, raw, workdir))
            results.append(row)
            print(f"{name}: L3 hot {fmt(ratio(len(raw), row['l3_hot']))}, archive "
                  f"{fmt(ratio(len(raw), row['l3_archive']))}, pco {fmt(ratio(len(raw), row.get('pco')))}",
                  flush=True)
            os.remove(path)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    commit = git_commit()
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": commit, "command": args.command, "rows": args.rows,
            "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} hardware threads",
            "versions": versions()}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "peers.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)

    lines = ["# L3 beside the codecs users pick instead", "",
             "Generated by `scripts/peer_report.sh` (scripts/peer_report.py); do not edit by hand.", "",
             f"- Date: {meta['date']}; commit `{commit}`; command `{args.command}`",
             f"- Machine: {meta['machine']}",
             "- Versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()),
             f"- Generated datasets at {args.rows:,} rows; real integer arrays whole.",
             "- Ratio = raw bytes / compressed bytes. L3 counts the whole `.l3` file; every L3 file was "
             "decoded back and compared byte for byte. Parquet: pyarrow, zstd level 19. blosc2: "
             "shuffle + zstd, clevel 9. Pco: level 8. Vortex: default and compact writers, whole files.",
             "- *best peer* is the best of zstd -19, both Parquet encodings, blosc2, Pco and both "
             "Vortex writers; *target peers* are the archive profile's targets: zstd -19, both "
             "Parquet encodings, blosc2 and Vortex's default writer. The hot profile's targets are "
             "zstd -3 and nvCOMP's GPU codecs (docs/results/gpu-peers.md for the GPU side).", "",
             "| dataset | type | L3 hot | L3 archive | zstd -3 | zstd -19 | Parquet DELTA | Parquet dict "
             "| blosc2 | Pco | Vortex | Vortex compact | archive / target peers | archive / best peer "
             "| archive / Pco |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    hot_vs_zstd3 = []
    archive_vs_best = []
    archive_vs_targets = []
    archive_vs_pco = []
    for r in results:
        raw = r["raw_bytes"]
        ratios = {k: ratio(raw, r.get(k)) for k in ["l3_hot", "l3_archive"] + PEERS}
        best = max([ratios[k] for k in ARCHIVE_PEERS if ratios[k]], default=None)
        rel_best = ratios["l3_archive"] / best if best else None
        target = max([ratios[k] for k in TARGET_PEERS if ratios[k]], default=None)
        rel_target = ratios["l3_archive"] / target if target else None
        if rel_target:
            archive_vs_targets.append(rel_target)
        rel_pco = ratios["l3_archive"] / ratios["pco"] if ratios["pco"] else None
        if ratios["zstd-3"]:
            hot_vs_zstd3.append(ratios["l3_hot"] / ratios["zstd-3"])
        if rel_best:
            archive_vs_best.append(rel_best)
        if rel_pco:
            archive_vs_pco.append(rel_pco)
        lines.append(f"| {r['dataset']} | {r['type']} | " +
                     " | ".join(fmt(ratios[k]) for k in ["l3_hot", "l3_archive"] + PEERS) +
                     f" | {fmt(rel_target)} | {fmt(rel_best)} | {fmt(rel_pco)} |")

    lines += ["", "Geometric means over the datasets above:", "",
              f"- L3 hot / zstd -3: {fmt(geo(hot_vs_zstd3))} "
              f"(L3 hot below zstd -3 on {sum(1 for x in hot_vs_zstd3 if x < 1)} of {len(hot_vs_zstd3)})",
              f"- L3 archive / target peers: {fmt(geo(archive_vs_targets))} "
              f"(at least every target peer on {sum(1 for x in archive_vs_targets if x >= 1)} "
              f"of {len(archive_vs_targets)})",
              f"- L3 archive / best peer: {fmt(geo(archive_vs_best))} "
              f"(at least the best peer on {sum(1 for x in archive_vs_best if x >= 1)} of {len(archive_vs_best)})",
              f"- L3 archive / Pco: {fmt(geo(archive_vs_pco))} "
              f"(within 10% of Pco on {sum(1 for x in archive_vs_pco if x >= 0.9)} of {len(archive_vs_pco)})", ""]
    with open(os.path.join(args.out, "peers.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines[-6:]))


if __name__ == "__main__":
    sys.exit(main())
