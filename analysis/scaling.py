#!/usr/bin/env python3
"""Table and plots of a scaling study (jobs/scaling-study.sh): one evolution iteration's votes,
SecPE against Aug-PE, from the `secpe bench histogram` JSON files in OUT.

Writes OUT/scaling.md (every point: ranks, records M, candidates N, the centres K asked per label
and the centres in all (a label with fewer public records than K gets one centre per record, so
the total is below K x labels), seconds per iteration of each method, their ratio, bytes sent per
iteration and rank, strong- and weak-scaling efficiency) and OUT/scaling.png (log-log time
against M, N and K per label with each method's cost model drawn through its largest point, and
time against ranks). Every file the study writes is publishable: the datasets are synthetic
embeddings and the benchmark's noise key never leaves memory.

Cost models: Aug-PE is proportional to sum over labels of M_l * N_l * d (its vote GFLOP), SecPE's
votes to sum over labels of K_l * N_l * d (its vote GFLOP), plus the sampling and release.

usage: scaling.py OUT
"""
import glob
import json
import os
import re
import sys

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def clusters_asked(j):
    """K per label as asked: the benchmark's own field, else (older JSON) its --clusters option."""
    s = j["figures"].get("secpe", {})
    if "clusters_per_label_requested" in s:
        return s["clusters_per_label_requested"]
    m = re.search(r"--clusters[ =](\d+)", j.get("command", ""))
    return int(m.group(1)) if m else None


def short(n):
    """12000 -> '12k', 1939290 -> '1.94M': tick labels that fit side by side."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if n >= size:
            return f"{n / size:.3g}{suffix}"
    return str(n)


def load(out):
    points = []
    for path in sorted(glob.glob(os.path.join(out, "*.json"))):
        j = json.load(open(path))
        if j.get("benchmark") != "histogram":
            continue
        f = j["figures"]
        s, a = f.get("secpe", {}), f.get("augpe", {})
        augpe = a.get("iteration_seconds")
        points.append({
            "name": os.path.splitext(os.path.basename(path))[0],
            "study": re.sub(r"-.*", "", os.path.basename(path)),
            "ranks": j["ranks"],
            "records": f["records"],
            "candidates": f["candidates_total"],
            "clusters_asked": clusters_asked(j),
            "clusters": s.get("clusters_total"),
            "secpe": s.get("iteration_seconds_median"),
            "secpe_gflop": s.get("vote_gflop"),
            "secpe_bytes": s.get("bytes_sent_per_iteration_rank"),
            "augpe": augpe if augpe is not None else a.get("iteration_seconds_cost_model"),
            "augpe_gflop": a.get("vote_gflop"),
            "augpe_bytes": a.get("bytes_sent_rank"),
            "core": j["machine"]["openblas_core"]["name"],
        })
    return points


def main():
    out = sys.argv[1]
    points = load(out)
    if not points:
        sys.exit(f"scaling.py: no histogram benchmark JSON in {out}")
    strong = sorted((p for p in points if p["study"] == "strong"), key=lambda p: p["ranks"])
    weak = sorted((p for p in points if p["study"] == "weak"), key=lambda p: p["ranks"])

    def eff(p, m):
        """Strong: t_1 / (r t_r); weak (same work per rank): t_1 / t_r."""
        series = strong if p["study"] == "strong" else weak if p["study"] == "weak" else []
        if not series:
            return None
        first = series[0]
        return first[m] * first["ranks"] / (p["ranks"] * p[m]) if p["study"] == "strong" else first[m] / p[m]

    rows = ["| point | ranks | records M | candidates N (all labels) | centres K asked per label | centres in all (after capping) | "
            "SecPE s/iter | Aug-PE s/iter | Aug-PE / SecPE | SecPE MB/iter/rank | efficiency SecPE / Aug-PE |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in sorted(points, key=lambda p: (p["study"], p["ranks"], p["records"], p["candidates"], p["clusters_asked"] or 0)):
        e = (f"{eff(p, 'secpe'):.2f} / {eff(p, 'augpe'):.2f}" if eff(p, "secpe") else "")
        rows.append(f"| {p['name']} | {p['ranks']} | {p['records']} | {p['candidates']} | {p['clusters_asked']} | {p['clusters']} | "
                    f"{p['secpe']:.3f} | {p['augpe']:.3f} | {p['augpe'] / p['secpe']:.1f} | {p['secpe_bytes'] / 1e6:.1f} | {e} |")
    text = "\n".join(rows) + f"\n\nOpenBLAS core: {points[0]['core']}\n"
    open(os.path.join(out, "scaling.md"), "w").write(text)
    print(text)

    fig, axes = plt.subplots(1, 4, figsize=(17, 4))
    for ax, study, key, label in ((axes[0], "records", "records", "records M"), (axes[1], "synthetic", "candidates", "candidates N (all labels)"),
                                  (axes[2], "clusters", "clusters_asked", "centres K asked per label")):
        ps = sorted((p for p in points if p["study"] == study), key=lambda p: p[key])
        if not ps:
            ax.set_visible(False)
            continue
        for method, colour in (("secpe", "tab:blue"), ("augpe", "tab:orange")):
            xs = [p[key] for p in ps]
            ax.loglog(xs, [p[method] for p in ps], "o", color=colour, label=f"{method} (measured)")
            ref = ps[-1]
            ax.loglog(xs, [ref[method] * p[method + "_gflop"] / ref[method + "_gflop"] for p in ps], "-", color=colour,
                      alpha=0.6, label=f"{method} cost model")
        ax.set_xlabel(label)
        ax.set_ylabel("seconds per iteration")
        # One labelled tick per measured point, in short form, and no minor labels: log axes
        # otherwise print overlapping labels such as 3x10^4 4x10^4 6x10^4.
        ax.set_xticks(xs, [short(x) for x in xs])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.tick_params(axis="x", labelrotation=30)
        ax.legend(fontsize=7)
    if strong:
        ax = axes[3]
        rs = [p["ranks"] for p in strong]
        for method, colour in (("secpe", "tab:blue"), ("augpe", "tab:orange")):
            ax.loglog(rs, [p[method] for p in strong], "o-", color=colour, label=f"{method}")
            ax.loglog(rs, [strong[0][method] * strong[0]["ranks"] / r for r in rs], ":", color=colour, alpha=0.6,
                      label=f"{method} ideal")
        ax.set_xlabel("ranks (fixed data)")
        ax.set_ylabel("seconds per iteration")
        ax.set_xticks(rs, [str(r) for r in rs])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.legend(fontsize=7)
    else:
        axes[3].set_visible(False)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"), dpi=100)


if __name__ == "__main__":
    main()
