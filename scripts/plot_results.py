#!/usr/bin/env python3
"""Draws the plots of docs/results from the measured JSON files.

    python3 scripts/plot_results.py [RESULTS_DIR]

Reads gpu.json (bench/gpu/l3bench) and ratios.json (bench/ratio_report) and
writes gpu_decode.png and ratios.png next to them. Needs matplotlib (Debian:
python3-matplotlib). Plots only what the JSON files hold; nothing is typed in
by hand except the reference figures quoted from the issues, which are
labelled as such.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Decode throughput of the original L3 code on the same H100 (uncompressed
# GB/s, low..high), as measured for the CUDA reader issue.
L3_CODE_GBPS = {
    "linear": (2494, 2572),
    "normal": (2036, 2346),
    "uniform40": (1209, 1356),
    "cosmos": (812, 893),
}


def load(path):
    with open(path) as f:
        return json.load(f)


def plot_gpu(gpu, out_path):
    rows = [r for r in gpu["results"] if r["rows"] >= 10_000_000]
    names = [r["dataset"] for r in rows]
    decode = [r["decode_gbps"] for r in rows]
    # The roofline bound in uncompressed GB/s: raw bytes over the time the
    # copy bandwidth needs to read the compressed and write the output bytes.
    bound = [r["raw_bytes"] / (r["roofline_ms"] * 1e-3) / 1e9 for r in rows]
    fig, ax = plt.subplots(figsize=(9, 5))
    x = range(len(rows))
    ax.bar(x, bound, width=0.7, color="#dddddd", label="roofline bound (copy bandwidth)")
    ax.bar(x, decode, width=0.45, color="#2b6cb0", label="L3 decode (this SDK)")
    for i, r in enumerate(rows):
        ax.text(i, decode[i] + 40, f"{100 * r['roofline_efficiency']:.0f}%", ha="center",
                fontsize=8)
        if r["dataset"] in L3_CODE_GBPS:
            lo, hi = L3_CODE_GBPS[r["dataset"]]
            ax.plot([i - 0.3, i + 0.3], [hi, hi], color="#c05621", lw=2,
                    label="original L3 code: best run (solid), worst (dotted)" if i == 0 else None)
            ax.plot([i - 0.3, i + 0.3], [lo, lo], color="#c05621", lw=1, ls=":")
    ax.set_xticks(list(x))
    ax.set_xticklabels([f"{r['dataset']}\n{r['type']} {r['rows'] / 1e6:.0f}M" for r in rows],
                       fontsize=8)
    ax.set_ylabel("decode throughput, uncompressed GB/s")
    ax.set_title(f"GPU decode on {gpu['device']['name']} (copy bandwidth "
                 f"{gpu['copy_bandwidth']['bytes_per_s'] / 1e9:.0f} GB/s read+write); "
                 f"labels: fraction of the roofline", fontsize=9)
    handles, labels = ax.get_legend_handles_labels()
    seen = {}
    for h, lab in zip(handles, labels):
        seen.setdefault(lab, h)
    ax.legend(seen.values(), seen.keys(), fontsize=8, loc="upper center",
              bbox_to_anchor=(0.5, -0.16), ncol=3)
    fig.tight_layout()
    fig.savefig(out_path, dpi=120)
    plt.close(fig)


def plot_ratios(ratios, out_path):
    rows = [d for d in ratios["datasets"] if d["source"] == "generated"]
    series = [
        ("L3 hot", lambda d: d["l3_hot"].get("ratio"), "#2b6cb0"),
        ("L3 archive (+zstd)", lambda d: d["l3_archive"].get("ratio"), "#63b3ed"),
        ("zstd -3", lambda d: d["zstd3"].get("ratio"), "#a0aec0"),
        ("zstd -19", lambda d: d["zstd19"].get("ratio"), "#4a5568"),
        ("original L3 code (quoted)",
         lambda d: (d.get("reference") or {}).get("original_l3_64b_per_partition"), "#c05621"),
        ("Parquet delta+zstd (quoted)",
         lambda d: (d.get("reference") or {}).get("parquet_delta_zstd"), "#d69e2e"),
    ]
    fig, ax = plt.subplots(figsize=(11.5, 4.5))
    width = 0.8 / len(series)
    for k, (label, get, color) in enumerate(series):
        xs, ys = [], []
        for i, d in enumerate(rows):
            try:
                v = get(d)
            except (KeyError, TypeError):
                v = None
            if v:
                xs.append(i - 0.4 + (k + 0.5) * width)
                ys.append(v)
        ax.bar(xs, ys, width=width, color=color, label=label)
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{d['name']}\n{d['type']} {d['rows'] / 1e6:.0f}M" for d in rows],
                       fontsize=8)
    ax.set_ylabel("compression ratio (raw / compressed), log scale")
    ax.set_title("Compression ratio, whole files, metadata counted", fontsize=9)
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(out_path, dpi=120)
    plt.close(fig)


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "docs", "results")
    gpu_json = os.path.join(results, "gpu.json")
    ratios_json = os.path.join(results, "ratios.json")
    if os.path.exists(gpu_json):
        plot_gpu(load(gpu_json), os.path.join(results, "gpu_decode.png"))
        print("wrote", os.path.join(results, "gpu_decode.png"))
    if os.path.exists(ratios_json):
        plot_ratios(load(ratios_json), os.path.join(results, "ratios.png"))
        print("wrote", os.path.join(results, "ratios.png"))


if __name__ == "__main__":
    main()
