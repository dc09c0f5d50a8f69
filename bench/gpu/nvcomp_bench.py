#!/usr/bin/env python3
"""nvCOMP's GPU codecs on the arrays l3bench measured, in the same run.

l3bench --dump-dir DIR writes each column it measures to DIR/<name>.bin with
DIR/manifest.json; this program compresses each with nvCOMP's codecs that a
GPU user would pick for integer columns (Cascaded in both modes, Bitcomp, ANS,
GPU zstd, LZ4, GDeflate), checks that each decodes back to the same bytes, and
times the decode and the encode (the data already in device memory) with CUDA
events (warm-up, then the median of --reps runs).
It measures a device-to-device copy in the same process, so a decode is also
reported as a fraction of the copy roofline, counted as l3bench counts it:
(compressed bytes read + decoded bytes written) / copy bandwidth.

  python3 bench/gpu/nvcomp_bench.py --dir DIR [--reps N] [--json FILE]

Needs CuPy and the nvidia-nvcomp-cu13 package (pip install
nvidia-nvcomp-cu13; it pulls nvidia-libnvcomp-cu13). Not a test.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

DTYPES = {"u8": "|u1", "i8": "|i1", "u16": "<u2", "i16": "<i2", "u32": "<u4", "i32": "<i4",
          "u64": "<u8", "i64": "<i8"}


def codec_configs(typestr):
    """(label, Codec keyword arguments) for one column type."""
    from nvidia import nvcomp
    configs = [
        ("cascaded", dict(algorithm="Cascaded", data_type=typestr)),
        ("cascaded-symmetric",
         dict(algorithm="Cascaded", data_type=typestr, mode=nvcomp.CascadedMode.SYMMETRIC)),
        ("bitcomp", dict(algorithm="Bitcomp", data_type=typestr)),
        ("bitcomp-sparse", dict(algorithm="Bitcomp", data_type=typestr, algorithm_type=1)),
        ("ans", dict(algorithm="ANS")),
        ("zstd", dict(algorithm="Zstd")),
        ("lz4", dict(algorithm="LZ4", data_type=typestr)),
        ("gdeflate", dict(algorithm="GDeflate")),
    ]
    return configs


def time_ms(cp, stream, fn, warmup, reps):
    for _ in range(warmup):
        fn()
    stream.synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(reps):
        start.record(stream)
        fn()
        stop.record(stream)
        stop.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(out))


def copy_bandwidth(cp, stream, reps):
    """Bytes read + written per second by a 1 GiB device-to-device copy."""
    n = 1 << 30
    a = cp.empty(n, dtype=cp.uint8)
    b = cp.empty(n, dtype=cp.uint8)
    a.fill(1)
    ms = time_ms(cp, stream, lambda: cp.cuda.runtime.memcpyAsync(
        b.data.ptr, a.data.ptr, n, cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr), 3, reps)
    del a, b
    return 2 * n / (ms * 1e-3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, help="directory written by l3bench --dump-dir")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--codecs", help="comma-separated subset of the codec labels")
    args = ap.parse_args()

    try:
        import cupy as cp
        from nvidia import nvcomp
    except ImportError as e:
        print(f"nvcomp_bench: cannot import CuPy or nvCOMP ({e}); nothing measured", file=sys.stderr)
        return 2

    manifest = json.load(open(os.path.join(args.dir, "manifest.json")))
    # One stream for nvCOMP, the copy and the events (nvCOMP otherwise makes its own).
    stream = cp.cuda.Stream(non_blocking=True)
    bps = copy_bandwidth(cp, stream, args.reps)
    dev = cp.cuda.runtime.getDeviceProperties(0)
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "nvcomp_version": nvcomp.__version__, "cupy_version": cp.__version__,
              "device": dev["name"].decode(), "copy_bytes_per_s": bps, "reps": args.reps,
              "command": " ".join(["bench/gpu/nvcomp_bench.py"] + sys.argv[1:]), "results": []}
    print(f"nvcomp {nvcomp.__version__} on {report['device']}; device copy {bps / 1e9:.0f} GB/s")
    wanted = set(args.codecs.split(",")) if args.codecs else None
    all_ok = True
    for col in manifest["columns"]:
        typestr = DTYPES[col["type"]]
        host = np.fromfile(os.path.join(args.dir, col["file"]), dtype=np.dtype(typestr))
        data = cp.asarray(host)
        raw = data.nbytes
        entry = {"dataset": col["dataset"], "type": col["type"], "rows": int(host.size),
                 "raw_bytes": raw, "codecs": []}
        for label, kwargs in codec_configs(typestr):
            if wanted and label not in wanted:
                continue
            r = {"codec": label}
            try:
                codec = nvcomp.Codec(cuda_stream=stream.ptr, **kwargs)
                source = nvcomp.as_array(data)
                encoded = codec.encode(source)
                stream.synchronize()
                # Compression of data already in device memory (the GPU
                # writer's peer): warm-up, then the median of --reps.
                encode_ms = time_ms(cp, stream, lambda: codec.encode(source), 1, args.reps)
                comp = int(encoded.buffer_size)
                out = cp.empty(raw, dtype=cp.uint8)
                codec.decode(encoded, out=out)
                stream.synchronize()
                same = bool(cp.array_equal(out, data.view(cp.uint8)))
                # A config parsed once keeps header parsing and its host sync
                # out of the timed decode.
                config = codec.decompression_config(encoded)
                ms = time_ms(cp, stream,
                             lambda: codec.decode(encoded, out=out, decompression_config=config),
                             3, args.reps)
                roof_ms = (comp + raw) / bps * 1e3
                r.update(compressed_bytes=comp, ratio=raw / comp, decode_ms=ms,
                         encode_ms=encode_ms, encode_gbps=raw / (encode_ms * 1e-3) / 1e9,
                         decode_gbps=raw / (ms * 1e-3) / 1e9, roofline_efficiency=roof_ms / ms,
                         decoded_equals_input=same)
                all_ok &= same
                print(f"  {col['dataset']:<44} {label:<19} ratio {raw / comp:8.2f}  "
                      f"{raw / (ms * 1e-3) / 1e9:7.0f} GB/s  {100 * roof_ms / ms:5.1f}%"
                      f"  encode {raw / (encode_ms * 1e-3) / 1e9:6.1f} GB/s"
                      f"{'' if same else '  MISMATCH'}", flush=True)
                del encoded, out, codec, config, source
            except Exception as e:  # a codec that refuses a type is reported, not fatal
                r["error"] = f"{type(e).__name__}: {e}"
                print(f"  {col['dataset']:<44} {label:<19} error: {r['error']}", flush=True)
            entry["codecs"].append(r)
            cp.get_default_memory_pool().free_all_blocks()
        report["results"].append(entry)
        del data
        cp.get_default_memory_pool().free_all_blocks()
    # A codec whose stream does not decode back is nvCOMP's problem, not a
    # failure of this run: it is recorded (decoded_equals_input) and reported.
    report["all_checks_passed"] = all_ok
    if not all_ok:
        print("nvcomp_bench: some nvCOMP streams did not decode back to their input "
              "(decoded_equals_input: false); they are never counted as a result")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
