#!/usr/bin/env python3
"""The GPU writer beside nvCOMP's compressors, from one session.

  python3 bench/gpu/gpu_writer_report.py ENCODE.json NVCOMP.json > report.md

ENCODE.json: l3_gpu_encode_bench --json (with --dump-dir DIR); NVCOMP.json:
bench/gpu/nvcomp_bench.py --dir DIR --json (same arrays, same session). One
row per column: L3's ratio, GPU chunk encoder and CPU chunk encoder (all
threads) throughput, whether the chunks are identical, and nvCOMP
Cascaded's compression throughput and ratio in its default and its
symmetric mode (a stream that does not decode back to its input is shown as
"mismatch"). Input GB/s throughout. Not a test.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    plan = json.load(open(sys.argv[1]))
    nv = json.load(open(sys.argv[2]))
    modes = {}
    for entry in nv["results"]:
        modes[entry["dataset"]] = {c["codec"]: c for c in entry["codecs"]}

    def cells(dataset, label):
        c = modes.get(dataset, {}).get(label)
        if c is None or "encode_gbps" not in c:
            return "–", "–"
        if not c.get("decoded_equals_input", False):
            return "mismatch", "–"
        return f"{c['encode_gbps']:.1f}", f"{c['ratio']:.2f}"

    print(f"- GPU: {plan['device']}; CPU threads: {plan['cpu_threads']}; commit {plan['commit']}; "
          f"nvCOMP {nv.get('nvcomp_version', '?')}")
    print()
    print("| column | type | rows | L3 ratio | L3 GPU encode GB/s | L3 GPU plan GB/s "
          "| L3 CPU encode GB/s (all threads) | chunks identical "
          "| Cascaded compress GB/s | Cascaded ratio | Cascaded symmetric compress GB/s "
          "| Cascaded symmetric ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for r in plan["results"]:
        default = cells(r["dataset"], "cascaded")
        symmetric = cells(r["dataset"], "cascaded-symmetric")
        raw = r["rows"] * int(r["type"][1:]) // 8
        print(f"| {r['dataset']} | {r['type']} | {r['rows']} | {raw / r['encoded_bytes']:.2f} "
              f"| {r['gpu_encode_gbps']:.2f} | {r['gpu_plan_gbps']:.2f} "
              f"| {r['cpu_encode_gbps']:.3f} | {'yes' if r['identical'] else '**no**'} | "
              + " | ".join(default + symmetric) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
