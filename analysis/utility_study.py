#!/usr/bin/env python3
"""Tables and plots of the utility study (jobs/utility-study.sh).

Reads OUT/runs/*/metrics.jsonl (the --eval-real lines: the initial population, then the selection
after every iteration) and OUT/{reference,reference_cut,train}.eval.json, and writes:
  OUT/table.md, OUT/table.json      final figures per method and r/p: mean +- sample s.d. over seeds
  OUT/accuracy_vs_r_over_p.png      category and stars accuracy against r/p
  OUT/fid_vs_r_over_p.png           FID against r/p
  OUT/accuracy_by_iteration.png     per-iteration curves at r/p = 10 (and the control)

usage: utility_study.py OUT
"""
import glob
import json
import os
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLUMNS = ("label1", "label2")  # category, stars
RP_ORDER = ["2", "10", "50", "none"]


def figures(report):
    """The study's figures of one `secpe eval` report."""
    c = report["classification"]
    return {
        "category": 100 * c["label1"]["tfidf"]["accuracy"],
        "stars": 100 * c["label2"]["tfidf"]["accuracy"],
        "fid": report["fid"],
        "near_duplicates": 100 * report["diversity"]["synthetic"]["near_duplicate_rate"],
        "distinct_2": report["diversity"]["synthetic"]["distinct_2"],
        "words": report["length_words"]["synthetic"]["mean"],
        "majority_category": 100 * c["label1"]["majority"]["accuracy"],
        "majority_stars": 100 * c["label2"]["majority"]["accuracy"],
    }


def read_run(folder):
    """[initial, after iteration 0, 1, ...] figures of one run."""
    lines = [json.loads(l) for l in open(os.path.join(folder, "metrics.jsonl"))]
    evals = [l for l in lines if "eval" in l]
    evals.sort(key=lambda l: -1 if l["population"] == "initial" else l["iteration"])
    return [figures(l["eval"]) for l in evals]


def summary(values):
    mean = statistics.mean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"mean": mean, "sd": sd, "n": len(values)}


def main():
    out = sys.argv[1]
    runs = {}  # (method, rp) -> {seed: [figures per population]}
    for folder in sorted(glob.glob(os.path.join(out, "runs", "*"))):
        if not os.path.exists(os.path.join(folder, "run.json")):
            continue
        m = re.fullmatch(r"(secpe|augpe)-rp(\w+)-s(\d+)|random-s(\d+)", os.path.basename(folder))
        if not m:
            continue
        key = (m.group(1), m.group(2)) if m.group(1) else ("random", "-")
        seed = int(m.group(3) or m.group(4))
        runs.setdefault(key, {})[seed] = read_run(folder)

    rows = []  # (name, {figure: summary})
    for name, file in (("real: the whole training split", "train"), ("real: random training reviews, N_syn of them", "reference"),
                       ("real: the same reviews cut to the generator's 64-word cap", "reference_cut")):
        path = os.path.join(out, file + ".eval.json")
        if os.path.exists(path):
            rows.append((name, {k: summary([v]) for k, v in figures(json.load(open(path))).items()}))
    initial = [pops[0] for per_seed in runs.values() for pops in per_seed.values()]
    if ("random", "-") in runs:  # the initial population depends on the seed only: one per seed
        initial = [pops[0] for pops in runs[("random", "-")].values()]
    if initial:
        rows.append(("generator alone (initial population)", {k: summary([f[k] for f in initial]) for k in initial[0]}))
    order = [("random", "-")] + [(m, rp) for m in ("secpe", "augpe") for rp in RP_ORDER]
    for key in order:
        if key not in runs:
            continue
        finals = [pops[-1] for pops in runs[key].values()]
        name = "random selection (no private data)" if key[0] == "random" else f"{key[0]}, r/p = {key[1]}"
        rows.append((name, {k: summary([f[k] for f in finals]) for k in finals[0]}))

    def cell(s, digits=1):
        return f"{s['mean']:.{digits}f} ± {s['sd']:.{digits}f}" if s["n"] > 1 else f"{s['mean']:.{digits}f}"

    md = ["| training set | category acc. (%) | stars acc. (%) | FID | near-duplicates (%) | distinct-2 | words |",
          "|---|---|---|---|---|---|---|"]
    for name, f in rows:
        md.append(f"| {name} | {cell(f['category'])} | {cell(f['stars'])} | {cell(f['fid'], 3)} | "
                  f"{cell(f['near_duplicates'])} | {cell(f['distinct_2'], 3)} | {cell(f['words'], 0)} |")
    if rows:
        f = rows[0][1]
        md.append(f"| majority class | {f['majority_category']['mean']:.1f} | {f['majority_stars']['mean']:.1f} | | | | |")
    open(os.path.join(out, "table.md"), "w").write("\n".join(md) + "\n")
    json.dump([{"training_set": n, **f} for n, f in rows], open(os.path.join(out, "table.json"), "w"), indent=1)
    print("\n".join(md))

    # Accuracy and FID against r/p.
    def final_series(method, figure):
        xs, ms, sds = [], [], []
        for i, rp in enumerate(RP_ORDER):
            if (method, rp) in runs:
                s = summary([pops[-1][figure] for pops in runs[(method, rp)].values()])
                xs.append(i); ms.append(s["mean"]); sds.append(s["sd"])
        return xs, ms, sds

    def flat(ax, key, figure, label, style):
        if key in runs:
            ax.axhline(statistics.mean(p[-1][figure] for p in runs[key].values()), linestyle=style, color="grey", label=label)

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, figure, title in ((axes[0], "category", "category accuracy (%)"), (axes[1], "stars", "stars accuracy (%)")):
        for method in ("secpe", "augpe"):
            xs, ms, sds = final_series(method, figure)
            if xs:
                ax.errorbar(xs, ms, yerr=sds, marker="o", capsize=3, label=method)
        flat(ax, ("random", "-"), figure, "random selection", "--")
        if initial:
            ax.axhline(statistics.mean(f[figure] for f in initial), linestyle=":", color="black", label="initial population")
        ax.set_xticks(range(len(RP_ORDER)), ["r/p = " + r for r in RP_ORDER])
        ax.set_title(title)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "accuracy_vs_r_over_p.png"), dpi=110)

    fig, ax = plt.subplots(figsize=(5, 4))
    for method in ("secpe", "augpe"):
        xs, ms, sds = final_series(method, "fid")
        if xs:
            ax.errorbar(xs, ms, yerr=sds, marker="o", capsize=3, label=method)
    flat(ax, ("random", "-"), "fid", "random selection", "--")
    ax.set_xticks(range(len(RP_ORDER)), ["r/p = " + r for r in RP_ORDER])
    ax.set_title("FID to the held-out reviews (lower is better)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fid_vs_r_over_p.png"), dpi=110)

    # Per-iteration curves.
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, figure in ((axes[0], "category"), (axes[1], "stars")):
        for key, label in ((("secpe", "10"), "secpe, r/p = 10"), (("augpe", "10"), "augpe, r/p = 10"), (("random", "-"), "random selection")):
            if key not in runs:
                continue
            per_seed = list(runs[key].values())
            steps = min(len(p) for p in per_seed)
            ax.plot(range(steps), [statistics.mean(p[t][figure] for p in per_seed) for t in range(steps)], marker=".", label=label)
        ax.set_xlabel("population (0: initial; t: after iteration t - 1)")
        ax.set_title(figure + " accuracy (%), mean over seeds")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "accuracy_by_iteration.png"), dpi=110)


if __name__ == "__main__":
    main()
