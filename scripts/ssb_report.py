#!/usr/bin/env python3
"""SSB query flight 1 (Q1.1-Q1.3) on the CPU: L3 beside DuckDB, in one run
(issue 12 §3, the CPU half).

For each row order (dbgen's, and the same rows sorted by lo_orderdate):

  - `l3_ssb_bench gen` writes the lineorder columns at scale factor --sf as
    an .l3 file (default Writer options: hot profile) and as raw
    little-endian .bin files, under --workdir (never committed);
  - `l3_ssb_bench run` times each query as ScanTable (pruning and late
    materialization), as decode-then-filter and as a plain loop over
    uncompressed arrays, and checks that the three revenues agree;
  - DuckDB (from PyPI) loads the same .bin files through numpy into an
    in-memory table (not timed) and runs the same three queries, best of
    --reps runs (the median is kept in the JSON); its revenues must equal
    L3's.

Each is run with 1 thread and with --threads threads. Writes
OUT/ssb-cpu.md and OUT/ssb-cpu.json.

  python3 scripts/ssb_report.py [--sf SF] [--threads T] [--reps R]
                                [--orders dbgen,date] [--build build]

scripts/ssb_report.sh creates the virtual environment and runs this.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

COLUMNS = (("lo_orderdate", np.uint32), ("lo_discount", np.uint8), ("lo_quantity", np.uint8),
           ("lo_extendedprice", np.uint32))

# The flattened SSB queries: the date dimension's filter as a range of keys
# (the same ranges as bench/ssb_cpu.cpp).
QUERIES = {
    "Q1.1": "lo_orderdate BETWEEN 19930101 AND 19931231 AND lo_discount BETWEEN 1 AND 3 AND lo_quantity < 25",
    "Q1.2": "lo_orderdate BETWEEN 19940101 AND 19940131 AND lo_discount BETWEEN 4 AND 6 "
            "AND lo_quantity BETWEEN 26 AND 35",
    "Q1.3": "lo_orderdate BETWEEN 19940204 AND 19940210 AND lo_discount BETWEEN 5 AND 7 "
            "AND lo_quantity BETWEEN 26 AND 35",
}


def git_commit(root):
    try:
        return subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def duckdb_times(bin_dir, rows, threads, reps):
    import duckdb
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    arrays = {name: np.fromfile(os.path.join(bin_dir, name + ".bin"), dtype=dtype) for name, dtype in COLUMNS}
    for name, a in arrays.items():
        if len(a) != rows:
            raise SystemExit(f"ssb_report: {name}.bin has {len(a)} rows, expected {rows}")
    con.register("arrays", arrays)
    con.execute("CREATE TABLE lineorder AS SELECT * FROM arrays")
    con.unregister("arrays")
    del arrays
    out = {}
    for q, where in QUERIES.items():
        sql = f"SELECT sum(lo_extendedprice::BIGINT * lo_discount) AS revenue FROM lineorder WHERE {where}"
        times = []
        result = None
        for _ in range(reps + 1):  # the first run warms up and is not counted
            t0 = time.perf_counter()
            result = con.execute(sql).fetchall()[0][0]
            times.append(time.perf_counter() - t0)
        times = sorted(times[1:])
        out[q] = {"sql": sql, "revenue": str(result if result is not None else 0),
                  "seconds": times[0], "median_seconds": times[len(times) // 2]}
    con.close()
    return out


def run_bench(build, path, threads, reps, json_path):
    subprocess.run([os.path.join(build, "bin", "l3_ssb_bench"), "run", path, "--threads", str(threads),
                    "--reps", str(reps), "--json", json_path], check=True, stdout=subprocess.DEVNULL)
    with open(json_path) as f:
        return json.load(f)


def ms(s):
    return f"{s * 1e3:.2f}"


def mb(b):
    return f"{b / 1e6:.2f}"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sf", type=float, default=20)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--orders", default="dbgen,date")
    p.add_argument("--build", default=os.path.join(root, "build"))
    p.add_argument("--workdir", default=None, help="where the generated files go (default BUILD/ssb-data)")
    p.add_argument("--out", default=os.path.join(root, "docs", "results"))
    p.add_argument("--command", default="scripts/ssb_report.py")
    args = p.parse_args()
    import duckdb
    workdir = args.workdir or os.path.join(args.build, "ssb-data")
    os.makedirs(workdir, exist_ok=True)
    bench = os.path.join(args.build, "bin", "l3_ssb_bench")
    thread_counts = sorted({1, max(1, args.threads)})
    sf_text = f"{args.sf:g}"
    runs = []
    ok = True
    load_before = os.getloadavg()
    for order in args.orders.split(","):
        path = os.path.join(workdir, f"lineorder-sf{sf_text}-{order}.l3")
        bin_dir = os.path.join(workdir, f"sf{sf_text}-{order}")
        os.makedirs(bin_dir, exist_ok=True)
        gen = subprocess.run([bench, "gen", "--sf", sf_text, "--seed", str(args.seed), "--order", order,
                              "--out", path, "--bin", bin_dir], check=True, capture_output=True, text=True)
        gen_info = json.loads(gen.stdout)
        for threads in thread_counts:
            print(f"ssb_report: SF {sf_text}, {order} order, {threads} thread(s)", file=sys.stderr)
            l3 = run_bench(args.build, path, threads, args.reps, os.path.join(workdir, "bench.json"))
            duck = duckdb_times(bin_dir, l3["rows"], threads, args.reps)
            for q in l3["queries"]:
                d = duck[q["name"]]
                q["duckdb"] = d
                q["duckdb_equal"] = d["revenue"] == q["revenue"]
                ok = ok and q["duckdb_equal"] and q["results_equal"]
            runs.append({"order": order, "threads": threads, "generate": gen_info, "l3": l3})
        for name, _ in COLUMNS:
            os.remove(os.path.join(bin_dir, name + ".bin"))
        os.rmdir(bin_dir)
        os.remove(path)

    load_after = os.getloadavg()
    now = datetime.datetime.now(datetime.timezone.utc)
    doc = {"date": now.strftime("%Y-%m-%d %H:%M UTC"), "commit": git_commit(root), "command": args.command,
           "machine": {"arch": platform.machine(), "cpu": cpu_model(), "hardware_threads": os.cpu_count(),
                       "load_average_before": load_before, "load_average_after": load_after},
           "duckdb": duckdb.__version__, "numpy": np.__version__, "sf": args.sf, "seed": args.seed,
           "reps": args.reps, "runs": runs, "all_equal": ok}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "ssb-cpu.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")

    first = runs[0]["l3"]
    lines = [
        "# SSB query flight 1 on the CPU: L3 beside DuckDB",
        "",
        "Generated by `scripts/ssb_report.py`; do not edit by hand.",
        "",
        f"- Date: {doc['date']}; commit `{doc['commit']}`; command `{args.command}`",
        f"- Machine: {doc['machine']['cpu']} ({doc['machine']['arch']}), {os.cpu_count()} hardware threads; "
        f"DuckDB {duckdb.__version__}, numpy {np.__version__}; load average (1 min) {load_before[0]:.2f} "
        f"before the run, {load_after[0]:.2f} after (the machine is shared)",
        f"- Data: SSB lineorder at scale factor {sf_text} ({first['rows']:,} rows), the four columns Q1 reads, "
        f"from `l3_ssb_bench gen` (datagen `GenerateSsbLineorder`, seed {args.seed}; see datagen/README.md), "
        "written with the default Writer options (hot profile). Two row orders of the same rows: `dbgen` "
        "(orders in key order, each with a random date, as SSB's dbgen writes lineorder) and `date` "
        "(stably sorted by lo_orderdate, a table clustered on its date key).",
        "- Queries: SSB Q1.1-Q1.3 with the date dimension's filter flattened to a range of lo_orderdate keys "
        "(Q1.3, week 6 of 1994: 19940204-19940210), `sum(lo_extendedprice * lo_discount)`.",
        f"- Times: best of {args.reps} runs, in ms. **L3 scan**: `ScanTable` (most selective column first, "
        "chunk and partition pruning, the other columns read only at the selected rows, exact 128-bit sum). "
        "**decode+filter**: `ReadRows` of the four whole columns, then a plain loop. **memory loop**: the same "
        "loop over uncompressed arrays already in memory (the CPU roofline without pruning). **DuckDB**: "
        "the same query over an in-memory DuckDB table loaded from the same columns (load not timed; "
        "one warm-up run). Threads: the scan's batch workers, `ReadOptions::num_threads` for the decode, "
        "slices of the loops, DuckDB's `SET threads`.",
        "- Bytes read: payload bytes decoded (L3 scan: each partition's payload in proportion to the values "
        "decoded, spec §8.6; decode+filter: the four columns' whole payloads); the memory loop and DuckDB "
        "read the raw columns (10 bytes a row).",
        f"- Every revenue agrees across the four methods: **{'yes' if ok else 'NO'}**.",
        "",
        "Columns (hot profile):",
        "",
        "| order | column | type | raw MB | stored MB | bits/row |",
        "|---|---|---|---:|---:|---:|",
    ]
    seen = set()
    for run in runs:
        if run["order"] in seen:
            continue
        seen.add(run["order"])
        for c in run["l3"]["columns"]:
            lines.append(f"| {run['order']} | {c['name']} | {c['type']} | {mb(c['raw_bytes'])} | "
                         f"{mb(c['stored_bytes'])} | {8 * c['stored_bytes'] / run['l3']['rows']:.2f} |")
    for run in runs:
        l3 = run["l3"]
        lines += ["", f"## {run['order']} order, {run['threads']} thread{'s' if run['threads'] > 1 else ''}", "",
                  "| query | rows selected | revenue | L3 scan ms | decode+filter ms | memory loop ms | DuckDB ms | "
                  "scan MB read | decode MB read | raw MB | partitions pruned (all columns) | "
                  "scan vs decode | scan vs memory | scan vs DuckDB |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for q in l3["queries"]:
            s, dec, mem, duck = (q["scan"]["seconds"], q["decode"]["seconds"], q["memory"]["seconds"],
                                 q["duckdb"]["seconds"])
            lines.append(
                f"| {q['name']} | {q['rows_selected']:,} | {q['revenue']} | {ms(s)} | {ms(dec)} | {ms(mem)} | "
                f"{ms(duck)} | {mb(q['scan']['bytes_read'])} | {mb(q['decode']['bytes_read'])} | "
                f"{mb(q['memory']['bytes_read'])} | {q['scan']['partitions_pruned']:,} / "
                f"{q['scan']['partitions_total']:,} | {dec / s:.2f}x | {mem / s:.2f}x | {duck / s:.2f}x |")
        lines += ["", "Per column, in the scan's evaluation order (values decoded as blocks / one by one):", ""]
        for q in l3["queries"]:
            parts = []
            for c in q["scan"]["columns"]:
                sel = f"{c['rows_in']:,} -> {c['rows_out']:,} rows, " if c["rows_in"] else "aggregated, "
                parts.append(f"{c['name']} ({sel}{c['partitions_pruned']:,}/{c['partitions_total']:,} "
                             f"partitions pruned, {c['values_decoded']:,} / {c['values_taken']:,} values)")
            lines.append(f"- {q['name']}: " + "; ".join(parts))
    with open(os.path.join(args.out, "ssb-cpu.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(os.path.join(args.out, "ssb-cpu.md"))
    if not ok:
        print("ssb_report: the revenues disagree", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
