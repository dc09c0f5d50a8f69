#!/usr/bin/env python3
"""SSB query flight 1 (Q1.1-Q1.3) on the GPU: L3's fused table scan beside
decode-then-filter, a plain GPU scan of uncompressed columns, the CPU
reference and DuckDB, in one run on one machine (issue 12 §3).

For each row order (dbgen's, and the same rows sorted by lo_orderdate):

  - `l3_ssb_bench gen` writes the lineorder columns at scale factor --sf as an
    .l3 file (default Writer options: hot profile) and as raw .bin files,
    under --workdir (never committed);
  - `l3_ssb_gpu_bench` times each query on the GPU: the fused scan
    (l3::cuda::DeviceTableScan), decode-then-filter (DecodeRows of the four
    columns, then a plain kernel) and the plain kernel alone over the raw
    columns in device memory, with a device-to-device copy of the raw bytes
    as the bandwidth reference; it checks every revenue against the CPU
    ScanTable;
  - `l3_ssb_bench run --threads T` times the CPU ScanTable with T threads;
  - DuckDB (an installed `duckdb` module) runs the same queries over the same
    .bin files with T threads; its revenues must equal L3's.

Writes OUT/ssb-gpu.md and OUT/ssb-gpu.json.

  python3 scripts/ssb_gpu_report.py [--sf SF] [--threads T] [--reps R]
                                    [--orders dbgen,date] [--build build-gpu]

The build directory needs l3_ssb_bench and l3_ssb_gpu_bench (a CUDA build
with -DL3_BUILD_BENCH=ON).
"""
import argparse
import datetime
import importlib.util
import json
import os
import platform
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("ssb_report", os.path.join(HERE, "ssb_report.py"))
ssb_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ssb_report)


def gpu_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             check=True, capture_output=True, text=True).stdout.strip()
        return out.splitlines()[0]
    except (OSError, subprocess.CalledProcessError):
        return "unknown GPU"


def ms(x):
    return f"{x:.3f}"


def main():
    root = os.path.dirname(HERE)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sf", type=float, default=20)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--orders", default="dbgen,date")
    p.add_argument("--build", default=os.path.join(root, "build-gpu"))
    p.add_argument("--workdir", default=None)
    p.add_argument("--out", default=os.path.join(root, "docs", "results"))
    p.add_argument("--command", default="scripts/ssb_gpu_report.py")
    p.add_argument("--commit", default=None)
    args = p.parse_args()
    import duckdb
    workdir = args.workdir or os.path.join(args.build, "ssb-data")
    os.makedirs(workdir, exist_ok=True)
    bench = os.path.join(args.build, "bin", "l3_ssb_bench")
    gpu_bench = os.path.join(args.build, "bin", "l3_ssb_gpu_bench")
    sf_text = f"{args.sf:g}"
    runs = []
    ok = True
    for order in args.orders.split(","):
        path = os.path.join(workdir, f"lineorder-sf{sf_text}-{order}.l3")
        bin_dir = os.path.join(workdir, f"sf{sf_text}-{order}")
        os.makedirs(bin_dir, exist_ok=True)
        print(f"ssb_gpu_report: SF {sf_text}, {order} order: generating", file=sys.stderr, flush=True)
        gen = subprocess.run([bench, "gen", "--sf", sf_text, "--seed", str(args.seed), "--order", order,
                              "--out", path, "--bin", bin_dir], check=True, capture_output=True, text=True)
        gen_info = json.loads(gen.stdout)
        gpu_json = os.path.join(workdir, "gpu.json")
        print(f"ssb_gpu_report: {order}: GPU", file=sys.stderr, flush=True)
        g = subprocess.run([gpu_bench, path, "--reps", str(args.reps), "--json", gpu_json],
                           capture_output=True, text=True)
        sys.stderr.write(g.stdout + g.stderr)
        if g.returncode not in (0, 1):
            raise SystemExit(f"l3_ssb_gpu_bench failed ({g.returncode})")
        with open(gpu_json) as f:
            gpu = json.load(f)
        print(f"ssb_gpu_report: {order}: CPU ScanTable, {args.threads} threads", file=sys.stderr, flush=True)
        cpu = ssb_report.run_bench(args.build, path, args.threads, args.reps, os.path.join(workdir, "cpu.json"))
        print(f"ssb_gpu_report: {order}: DuckDB, {args.threads} threads", file=sys.stderr, flush=True)
        duck = ssb_report.duckdb_times(bin_dir, gpu["rows"], args.threads, args.reps)
        for q in gpu["queries"]:
            c = next(x for x in cpu["queries"] if x["name"] == q["name"])
            d = duck[q["name"]]
            q["cpu_scan"] = c["scan"]
            q["duckdb"] = d
            q["all_equal"] = q["results_equal"] and c["revenue"] == q["revenue"] and d["revenue"] == q["revenue"]
            ok = ok and q["all_equal"]
        runs.append({"order": order, "generate": gen_info, "gpu": gpu, "cpu_columns": cpu["columns"]})
        for name, _ in ssb_report.COLUMNS:
            os.remove(os.path.join(bin_dir, name + ".bin"))
        os.rmdir(bin_dir)
        os.remove(path)

    now = datetime.datetime.now(datetime.timezone.utc)
    doc = {"date": now.strftime("%Y-%m-%d %H:%M UTC"),
           "commit": args.commit or ssb_report.git_commit(root), "command": args.command,
           "machine": {"gpu": gpu_name(), "cpu": ssb_report.cpu_model(), "hardware_threads": os.cpu_count()},
           "duckdb": duckdb.__version__, "sf": args.sf, "seed": args.seed, "reps": args.reps,
           "threads": args.threads, "runs": runs, "all_equal": ok}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "ssb-gpu.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    first = runs[0]["gpu"]
    lines = [
        "# SSB query flight 1 on the GPU: L3's fused scan beside decode-then-filter, raw columns and DuckDB",
        "",
        "Generated by `scripts/ssb_gpu_report.py`; do not edit by hand.",
        "",
        f"- Date: {doc['date']}; commit `{doc['commit']}`; command `{args.command}`",
        f"- Machine: {doc['machine']['gpu']}; {doc['machine']['cpu']}, {os.cpu_count()} hardware threads; "
        f"DuckDB {duckdb.__version__}",
        f"- Data: SSB lineorder at scale factor {sf_text} ({first['rows']:,} rows), the four columns Q1 reads "
        f"(raw {first['raw_bytes'] / 1e6:.0f} MB), from `l3_ssb_bench gen` (seed {args.seed}), default Writer "
        "options (hot profile); `dbgen` order and the same rows sorted by lo_orderdate (`date`).",
        "- Queries: SSB Q1.1-Q1.3 with the date filter flattened to a range of lo_orderdate keys, "
        "`sum(lo_extendedprice * lo_discount)` (as docs/results/ssb-cpu.md).",
        f"- GPU times: median of {args.reps} runs after a warm-up, CUDA events, columns already in device "
        "memory. **L3 fused**: `l3::cuda::DeviceTableScan::Run` (one kernel: partitions pruned by bounds, "
        "tiles decoded into shared memory only where rows are still selected, predicates and the exact "
        "128-bit sum in the same kernel, then a one-block reduction). **decode+filter**: `DecodeRows` of "
        "the four whole columns into device arrays, then the plain kernel. **raw scan**: the plain kernel "
        "alone over the uncompressed columns in device memory (reads every row: the roofline of a scan "
        "without pruning). The copy reference is a device-to-device copy of the raw columns.",
        f"- CPU times (same machine): best of {args.reps} runs, {args.threads} threads: the CPU reference "
        "`ScanTable` and DuckDB over an in-memory table of the same columns (load not timed).",
        f"- Every revenue agrees (GPU fused, decode+filter, raw scan, CPU ScanTable, DuckDB): "
        f"**{'yes' if ok else 'NO'}**.",
    ]
    for run in runs:
        g = run["gpu"]
        lines += ["", f"## {run['order']} order", "",
                  f"Compressed columns {g['compressed_bytes'] / 1e6:.1f} MB (raw {g['raw_bytes'] / 1e6:.1f} MB); "
                  f"device-to-device copy {g['copy_gbps']:.0f} GB/s (read + write) on {g['gpu']}.", "",
                  "| query | rows selected | revenue | L3 fused ms | decode+filter ms | raw scan ms | "
                  "CPU ScanTable ms | DuckDB ms | fused MB decoded | fused vs raw scan | fused vs DuckDB |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for q in g["queries"]:
            f_ms, d_ms, r_ms = q["fused"]["ms"], q["decode"]["ms"], q["raw"]["ms"]
            c_ms = q["cpu_scan"]["seconds"] * 1e3
            k_ms = q["duckdb"]["seconds"] * 1e3
            lines.append(f"| {q['name']} | {q['rows_selected']:,} | {q['revenue']} | {ms(f_ms)} | {ms(d_ms)} | "
                         f"{ms(r_ms)} | {ms(c_ms)} | {ms(k_ms)} | {q['fused']['bytes_read'] / 1e6:.2f} | "
                         f"{r_ms / f_ms:.2f}x | {k_ms / f_ms:.1f}x |")
        lines += ["", "Fused scan, per column in evaluation order (rows in -> out, partitions pruned / "
                  "all-match / total, values of the tiles decoded):", ""]
        for q in g["queries"]:
            parts = []
            for c in q["fused"]["columns"]:
                sel = f"{c['rows_in']:,} -> {c['rows_out']:,}, " if c["rows_in"] else "aggregated, "
                parts.append(f"{c['name']} ({sel}{c['partitions_pruned']:,} / {c['partitions_all_match']:,} / "
                             f"{c['partitions_total']:,}, {c['values_decoded']:,} values)")
            lines.append(f"- {q['name']}: " + "; ".join(parts))
    with open(os.path.join(args.out, "ssb-gpu.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(os.path.join(args.out, "ssb-gpu.md"))
    if not ok:
        print("ssb_gpu_report: the revenues disagree", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
