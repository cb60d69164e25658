#!/usr/bin/env python3
"""Tables and plots of the utility study (jobs/utility-study.sh).

Reads OUT/runs/*/metrics.jsonl (the --eval-real lines: the initial population, then the selection
after every iteration) and OUT/references/*.eval.json, and writes into OUT:
  table.md, table.json      final figures per generator-labels mode, embedder, method and r/p:
                            mean +- sample s.d. over seeds, and the gain over that setting's control
  targets.md                the study's targets (issue 26), each with its measured value
  accuracy_vs_r_over_p.png  final accuracy against r/p, one row of panels per generator-labels mode
  iterations_<mode>.png     accuracy by iteration, one row of panels per method, one line per r/p
  embedders.png             pooled mode: what noise-free SecPE gains over the control, per embedder

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

RP_ORDER = ["2", "10", "50", "none"]
MODES = ["pooled", "prompt", "per-label"]
EMBEDDERS = ["ppmi-sif", "tfidf-svd", "hashing"]
NAME = re.compile(r"(?:abl-(?P<ablation>no-private|half-private)-)?(?P<mode>per-label|pooled|prompt)-"
                  r"(?P<embedder>ppmi-sif|tfidf-svd|hashing)-(?P<method>secpe|augpe|random)(?:-rp(?P<rp>\w+))?-s(?P<seed>\d+)")
FIGURES = ["category", "stars", "fid", "near_duplicates", "distinct_2", "words"]


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
    with open(os.path.join(folder, "metrics.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    evals = [line for line in lines if "eval" in line]
    evals.sort(key=lambda line: -1 if line["population"] == "initial" else line["iteration"])
    return [figures(line["eval"]) for line in evals]


def summary(values):
    return {"mean": statistics.mean(values), "sd": statistics.stdev(values) if len(values) > 1 else 0.0, "n": len(values)}


def read_runs(out):
    """{(ablation, mode, embedder, method, rp): {seed: [figures per population]}}, and each
    generator-labels mode's name in the tables (pooled with its latent topics, when it has them)."""
    runs, mode_names = {}, {}
    for folder in sorted(glob.glob(os.path.join(out, "runs", "*"))):
        m = NAME.fullmatch(os.path.basename(folder))
        if not m or not os.path.exists(os.path.join(folder, "run.json")):
            continue
        key = (m["ablation"] or "", m["mode"], m["embedder"], m["method"], m["rp"] or "-")
        runs.setdefault(key, {})[int(m["seed"])] = read_run(folder)
        with open(os.path.join(folder, "run.json")) as f:
            run = json.load(f)
        # The topics used (--generator-topics auto resolved; runs before it record the option only).
        topics = run.get("summary", {}).get("generator_topics")
        if topics is None:
            topics = int(run["options"].get("generator-topics", "0"))
        mode_names[m["mode"]] = f"{m['mode']} ({topics} topics)" if topics else m["mode"]
    return runs, mode_names


def final(runs, key, figure, population=-1):
    """Summary over seeds of `figure` at `population` (-1: the final one; 0: the initial)."""
    return summary([pops[population][figure] for pops in runs[key].values()])


def cell(s, digits=1, sign=False):
    fmt = f"{{:{'+' if sign else ''}.{digits}f}}"
    text = fmt.format(s["mean"])
    return f"{text} ± {s['sd']:.{digits}f}" if s["n"] > 1 else text


def gain(runs, key, control, figure):
    """Per-seed difference to the control of the same seeds, summarised."""
    seeds = sorted(set(runs[key]) & set(runs.get(control, {})))
    if not seeds:
        return None
    return summary([runs[key][s][-1][figure] - runs[control][s][-1][figure] for s in seeds])


def control_of(runs, key):
    """The control of a setting: random selection with the same generator labels (and dataset,
    for the half-private ablation); it embeds nothing, so the study runs it with one embedder."""
    ablation = key[0] if key[0] == "half-private" else ""
    for k in sorted(runs):
        if k[0] == ablation and k[1] == key[1] and k[3] == "random":
            return k
    return None


def method_name(method, rp):
    if method == "random":
        return "control: random selection (no private data)"
    return f"{'SecPE' if method == 'secpe' else 'Aug-PE'}, r/p = {rp}"


def table_rows(out, runs, names):
    rows = []  # dicts: setting columns and figure summaries
    for name, file in (("real: the whole training split", "train"), ("real: N_syn random training reviews", "reference"),
                       ("real: the same reviews cut to 64 words", "reference_cut")):
        path = os.path.join(out, "references", file + ".eval.json")
        if os.path.exists(path):
            with open(path) as f:
                rows.append({"setting": "", "training set": name, **{k: summary([v]) for k, v in figures(json.load(f)).items()}})
    order = sorted(runs, key=lambda k: (k[0] != "", k[0], MODES.index(k[1]), EMBEDDERS.index(k[2]),
                                        ["random", "secpe", "augpe"].index(k[3]), RP_ORDER.index(k[4]) if k[4] in RP_ORDER else -1))
    seen_initial = set()
    for key in order:
        ablation, mode, embedder, method, rp = key
        setting = f"{names[mode]}, {embedder}" + (f", ablation {ablation}" if ablation else "")
        control = control_of(runs, key)
        if (ablation, mode) not in seen_initial and method == "random":
            seen_initial.add((ablation, mode))
            rows.append({"setting": setting, "training set": "generator alone (initial population)",
                         **{k: final(runs, key, k, 0) for k in FIGURES}})
        name = method_name(method, rp) + (" (private records left out)" if ablation == "no-private" else "")
        row = {"setting": setting, "training set": name, **{k: final(runs, key, k) for k in FIGURES}}
        for figure in ("category", "stars"):
            row[figure + "_gain"] = gain(runs, key, control, figure) if method != "random" else None
        rows.append(row)
    return rows


def write_table(out, rows, runs):
    md = ["| setting (generator labels, embedder) | training set | seeds | category accuracy (%) | stars accuracy (%) | "
          "category gain over control (points) | stars gain over control (points) | FID | near-duplicates (%) | distinct-2 | mean words |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        gains = [cell(r[f + "_gain"], sign=True) if r.get(f + "_gain") else "" for f in ("category", "stars")]
        md.append(f"| {r['setting']} | {r['training set']} | {r['category']['n'] if r['setting'] else ''} | {cell(r['category'])} | "
                  f"{cell(r['stars'])} | {gains[0]} | {gains[1]} | "
                  f"{cell(r['fid'], 3)} | {cell(r['near_duplicates'])} | {cell(r['distinct_2'], 3)} | {cell(r['words'], 0)} |")
    if runs:
        any_run = next(iter(next(iter(runs.values())).values()))[-1]
        md.append(f"| | majority class (always the most frequent value) | | {any_run['majority_category']:.1f} | {any_run['majority_stars']:.1f} "
                  "| | | | | | |")
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "table.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("\n".join(md))


def write_targets(out, runs, embedder):
    """Issue 26's targets for `embedder` (the study's first), each with its measured value."""
    def diff(a, b, figure, population_a=-1, population_b=-1):
        if a not in runs or b not in runs:
            return None
        seeds = sorted(set(runs[a]) & set(runs[b]))
        return summary([runs[a][s][population_a][figure] - runs[b][s][population_b][figure] for s in seeds]) if seeds else None

    p = ("", "pooled", embedder)
    pl = ("", "per-label", embedder)
    pc, plc = control_of(runs, p + ("secpe", "10")), control_of(runs, pl + ("secpe", "10"))
    checks = [
        ("pooled: SecPE r/p = 10 - control, stars", diff(p + ("secpe", "10"), pc, "stars"), 8),
        ("pooled: SecPE r/p = 10 - control, category", diff(p + ("secpe", "10"), pc, "category"), 2),
        ("pooled: SecPE r/p = 2 - Aug-PE r/p = 2, stars", diff(p + ("secpe", "2"), p + ("augpe", "2"), "stars"), 5),
        ("pooled: SecPE r/p = 10, category at the last iteration - initial population",
         diff(p + ("secpe", "10"), p + ("secpe", "10"), "category", -1, 0), 2),
        ("per-label: SecPE r/p = 10 - control, category", diff(pl + ("secpe", "10"), plc, "category"), 0),
        ("per-label: SecPE r/p = 10 - control, stars", diff(pl + ("secpe", "10"), plc, "stars"), 0),
    ]
    md = [f"Targets (issue 26) with the {embedder} embedder: mean ± s.d. over seeds of the per-seed difference", "",
          "| target | measured (points) | needed | met |", "|---|---|---|---|"]
    for name, s, needed in checks:
        md.append(f"| {name} | {cell(s, sign=True) if s else 'not run'} | >= {needed:+d} | {'yes' if s and s['mean'] >= needed else 'no'} |")
    key = pl + ("secpe", "10")
    if key in runs:
        s = final(runs, key, "near_duplicates")
        md.append(f"| per-label: SecPE r/p = 10, near-duplicates (%) | {cell(s)} | <= 5 | {'yes' if s['mean'] <= 5 else 'no'} |")
    with open(os.path.join(out, "targets.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


def categorical_axis(ax, labels):
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlim(-0.5, len(labels) - 0.5)


def plot_accuracy_vs_rp(out, runs, names, embedder):
    modes = [m for m in MODES if any(k[0] == "" and k[1] == m and k[2] == embedder for k in runs)]
    if not modes:
        return
    fig, axes = plt.subplots(len(modes), 2, figsize=(10, 3.4 * len(modes)), squeeze=False)
    for row, mode in zip(axes, modes):
        present = [rp for rp in RP_ORDER if any(("", mode, embedder, m, rp) in runs for m in ("secpe", "augpe"))]
        for ax, figure in zip(row, ("category", "stars")):
            for method, marker in (("secpe", "o"), ("augpe", "s")):
                pts = [(i, final(runs, ("", mode, embedder, method, rp), figure)) for i, rp in enumerate(present)
                       if ("", mode, embedder, method, rp) in runs]
                if pts:
                    ax.errorbar([i for i, _ in pts], [s["mean"] for _, s in pts], yerr=[s["sd"] for _, s in pts], marker=marker,
                                capsize=3, label=method_name(method, "x").split(",")[0])
            control = control_of(runs, ("", mode))
            if control:
                s = final(runs, control, figure)
                ax.axhline(s["mean"], linestyle="--", color="grey", label="control (random selection)")
                ax.axhline(final(runs, control, figure, 0)["mean"], linestyle=":", color="black", label="initial population")
            categorical_axis(ax, ["r/p = " + rp for rp in present])
            ax.set_title(f"{names[mode]} generator, {embedder}: {figure} accuracy (%)", fontsize=10)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "accuracy_vs_r_over_p.png"), dpi=100)
    plt.close(fig)


def plot_iterations(out, runs, names, embedder):
    for mode in MODES:
        methods = [m for m in ("secpe", "augpe") if any(k[:4] == ("", mode, embedder, m) for k in runs)]
        if not methods:
            continue
        fig, axes = plt.subplots(len(methods), 2, figsize=(10, 3.4 * len(methods)), squeeze=False)
        control = control_of(runs, ("", mode))
        for row, method in zip(axes, methods):
            for ax, figure in zip(row, ("category", "stars")):
                for rp in RP_ORDER:
                    key = ("", mode, embedder, method, rp)
                    if key not in runs:
                        continue
                    per_seed = list(runs[key].values())
                    steps = min(len(p) for p in per_seed)
                    ax.plot(range(steps), [statistics.mean(p[t][figure] for p in per_seed) for t in range(steps)], marker=".",
                            label=f"r/p = {rp}")
                if control:
                    per_seed = list(runs[control].values())
                    steps = min(len(p) for p in per_seed)
                    ax.plot(range(steps), [statistics.mean(p[t][figure] for p in per_seed) for t in range(steps)], linestyle="--",
                            color="grey", label="control (random selection)")
                ax.set_xlabel("population (0: initial; t: after t iterations)")
                ax.set_title(f"{method_name(method, 'x').split(',')[0]}, {names[mode]} generator, {embedder}: {figure} accuracy (%)",
                             fontsize=10)
                ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"iterations_{mode}.png"), dpi=100)
        plt.close(fig)


def plot_embedders(out, runs):
    control = control_of(runs, ("", "pooled"))
    present = [e for e in EMBEDDERS if ("", "pooled", e, "secpe", "none") in runs]
    if not present or not control:
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, figure in zip(axes, ("category", "stars")):
        for shift, (method, rp) in zip((-0.2, 0.0, 0.2), (("secpe", "none"), ("secpe", "10"), ("secpe", "2"))):
            gains = [gain(runs, ("", "pooled", e, method, rp), control, figure)
                     if ("", "pooled", e, method, rp) in runs else None for e in present]
            xs = [i + shift for i, g in enumerate(gains) if g]
            if xs:
                ax.bar(xs, [g["mean"] for g in gains if g], width=0.2, yerr=[g["sd"] for g in gains if g], capsize=3,
                       label=f"SecPE, r/p = {rp}")
        ax.axhline(0, color="black", linewidth=0.8)
        categorical_axis(ax, present)
        ax.set_title(f"pooled generator: {figure} accuracy gain over the control (points)", fontsize=10)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "embedders.png"), dpi=100)
    plt.close(fig)


def main():
    out = sys.argv[1]
    runs, names = read_runs(out)
    write_table(out, table_rows(out, runs, names), runs)
    # The study's main embedder (the first of its EMBEDDERS) is the one its controls ran with.
    controls = [k for k in runs if k[0] == "" and k[3] == "random"]
    if not controls:
        return
    first = controls[0][2]
    write_targets(out, runs, first)
    plot_accuracy_vs_rp(out, runs, names, first)
    plot_iterations(out, runs, names, first)
    plot_embedders(out, runs)


if __name__ == "__main__":
    main()
