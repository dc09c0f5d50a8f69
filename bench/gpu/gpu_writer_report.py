#!/usr/bin/env python3
"""The GPU writer's partitioner beside nvCOMP's compressors, from one session.

  python3 bench/gpu/gpu_writer_report.py PLAN.json NVCOMP.json > report.md

PLAN.json: l3_gpu_plan_bench --json (with --dump-dir DIR); NVCOMP.json:
bench/gpu/nvcomp_bench.py --dir DIR --json (same arrays, same session). One
row per column: L3's GPU and CPU (all threads) planning throughput, whether
the plans are identical, and nvCOMP Cascaded's compression throughput and
ratio (its better of the default and symmetric modes by throughput). Input
GB/s throughout. Not a test.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    plan = json.load(open(sys.argv[1]))
    nv = json.load(open(sys.argv[2]))
    cascaded = {}
    for entry in nv["results"]:
        best = None
        for c in entry["codecs"]:
            if not c["codec"].startswith("cascaded") or "encode_gbps" not in c:
                continue
            if not c.get("decoded_equals_input", False):
                continue
            if best is None or c["encode_gbps"] > best["encode_gbps"]:
                best = c
        cascaded[entry["dataset"]] = best
    print(f"- GPU: {plan['device']}; CPU threads: {plan['cpu_threads']}; commit {plan['commit']}; "
          f"nvCOMP {nv.get('nvcomp_version', '?')}")
    print()
    print("| column | type | rows | L3 GPU plan GB/s | L3 CPU plan GB/s (all threads) | plans identical "
          "| nvCOMP Cascaded compress GB/s | its mode | its ratio | L3 GPU / Cascaded |")
    print("|---|---|---:|---:|---:|---|---:|---|---:|---:|")
    for r in plan["results"]:
        c = cascaded.get(r["dataset"])
        nv_cells = ("–", "–", "–", "–") if c is None else (
            f"{c['encode_gbps']:.1f}", c["codec"], f"{c['ratio']:.2f}",
            f"{r['gpu_plan_gbps'] / c['encode_gbps']:.2f}")
        print(f"| {r['dataset']} | {r['type']} | {r['rows']} | {r['gpu_plan_gbps']:.2f} "
              f"| {r['cpu_plan_gbps']:.3f} | {'yes' if r['identical'] else '**no**'} | "
              + " | ".join(nv_cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
