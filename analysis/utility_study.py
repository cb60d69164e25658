#!/usr/bin/env python3
"""Tables and plots of the utility study (jobs/utility-study.sh, jobs/pubmed-study.sh).

Reads OUT/runs/*/metrics.jsonl (the --eval-real lines: the initial population, then the selection
after every iteration) and OUT/references/*.eval.json. A labelled corpus (Yelp's label1 and label2)
is scored by its classifiers' category and stars accuracy; a corpus without labels (PubMed) by
next-word accuracy and MAUVE. Writes into OUT:
  table.md, table.json      final figures per generator-labels mode, embedder, method and r/p:
                            mean +- sample s.d. over seeds, and the gain over that setting's control
  targets.md                the study's targets (issue 26 on Yelp, issue 40 on PubMed), each with
                            its measured value
  accuracy_vs_r_over_p.png  final scores against r/p, one row of panels per generator-labels mode
  iterations_<mode>.png     scores by iteration, one row of panels per method, one line per r/p
  embedders.png             pooled mode: what noise-free SecPE gains over the control, per embedder
  lengths.png               words per text, real against each method's final set (seed 1)

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
# The scores a corpus is judged by (each with a gain over the control), by its shape.
SCORES = {"labelled": ["category", "stars"], "unlabelled": ["next_word", "mauve"]}
TITLES = {"category": "category accuracy (%)", "stars": "stars accuracy (%)", "next_word": "next-word accuracy (%)",
          "mauve": "MAUVE"}
GAIN_TITLES = {"category": "category gain over control (points)", "stars": "stars gain over control (points)",
               "next_word": "next-word gain over control (points)", "mauve": "MAUVE gain over control"}
DIGITS = {"mauve": 3, "next_word": 2}
# The columns every table has after the scores.
OTHERS = [("fid", "FID", 3), ("near_duplicates", "near-duplicates (%)", 1), ("distinct_2", "distinct-2", 3),
          ("words", "mean words", 0)]


def figures(report):
    """The study's figures of one `secpe eval` report: every score its corpus has."""
    c = report["classification"]
    out = {
        "fid": report["fid"],
        "near_duplicates": 100 * report["diversity"]["synthetic"]["near_duplicate_rate"],
        "distinct_2": report["diversity"]["synthetic"]["distinct_2"],
        "words": report["length_words"]["synthetic"]["mean"],
        "lengths": report["length_words"]["synthetic"]["quantiles"],
        "real_lengths": report["length_words"]["real"]["quantiles"],
    }
    if "label1" in c and "label2" in c:
        out.update(category=100 * c["label1"]["tfidf"]["accuracy"], stars=100 * c["label2"]["tfidf"]["accuracy"],
                   majority_category=100 * c["label1"]["majority"]["accuracy"],
                   majority_stars=100 * c["label2"]["majority"]["accuracy"])
    if report.get("next_word"):  # null where not asked for (a labelled corpus)
        out["next_word"] = 100 * report["next_word"]["accuracy"]
    if report.get("mauve"):
        out["mauve"] = report["mauve"]["score"]
    return out


def any_final(runs):
    """The final figures of one run (the first read), {} without runs."""
    return next(iter(next(iter(runs.values())).values()))[-1] if runs else {}


def shape_of(runs):
    """'labelled' where the runs were scored by classifiers, else 'unlabelled' (next-word)."""
    return "labelled" if "category" in any_final(runs) else "unlabelled"


def columns(shape):
    """The table's figure columns: (figure, header, digits)."""
    return [(f, TITLES[f], DIGITS.get(f, 1)) for f in SCORES[shape]] + OTHERS


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


def table_rows(out, runs, names, shape):
    figs = [f for f, _, _ in columns(shape)]
    rows = []  # dicts: setting columns and figure summaries
    for name, file in (("real: the whole training set", "train"), ("real: N_syn random training texts", "reference"),
                       ("real: the same texts cut to the generator's word cap", "reference_cut")):
        path = os.path.join(out, "references", file + ".eval.json")
        if os.path.exists(path):
            with open(path) as f:
                report = figures(json.load(f))
            rows.append({"setting": "", "training set": name, **{k: summary([report[k]]) for k in figs}})
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
                         **{k: final(runs, key, k, 0) for k in figs}})
        name = method_name(method, rp) + (" (private records left out)" if ablation == "no-private" else "")
        row = {"setting": setting, "training set": name, **{k: final(runs, key, k) for k in figs}}
        for figure in SCORES[shape]:
            row[figure + "_gain"] = gain(runs, key, control, figure) if method != "random" else None
        rows.append(row)
    return rows


def write_table(out, rows, runs, shape):
    scores, cols = SCORES[shape], columns(shape)
    gain_titles = [GAIN_TITLES[f] for f in scores]
    headers = ["setting (generator labels, embedder)", "training set", "seeds"] + [c[1] for c in cols[:len(scores)]] + gain_titles + \
        [c[1] for c in cols[len(scores):]]
    md = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for r in rows:
        values = [cell(r[f], d) for f, _, d in cols]
        gains = [cell(r[f + "_gain"], DIGITS.get(f, 1), sign=True) if r.get(f + "_gain") else "" for f in scores]
        md.append("| " + " | ".join([r["setting"], r["training set"], str(r[scores[0]]["n"]) if r["setting"] else ""] +
                                    values[:len(scores)] + gains + values[len(scores):]) + " |")
    if runs and shape == "labelled":
        any_run = any_final(runs)
        md.append(f"| | majority class (always the most frequent value) | | {any_run['majority_category']:.1f} | {any_run['majority_stars']:.1f} "
                  "| | | | | | |")
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "table.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("\n".join(md))


def diff(runs, a, b, figure, population_a=-1, population_b=-1):
    """Per-seed difference of `figure` between settings a and b, summarised (None: one is missing)."""
    if a not in runs or b not in runs:
        return None
    seeds = sorted(set(runs[a]) & set(runs[b]))
    return summary([runs[a][s][population_a][figure] - runs[b][s][population_b][figure] for s in seeds]) if seeds else None


def spread(runs, *keys, figure="next_word"):
    """The seeds' spread: the widest range (max - min over seeds) of `figure` among the settings."""
    ranges = [max(v) - min(v) for v in ([pops[-1][figure] for pops in runs[k].values()] for k in keys if k in runs)]
    return max(ranges) if ranges else 0.0


def labelled_targets(runs, embedder):
    """Issue 26's targets (Yelp): (name, measured, needed, met)."""
    p = ("", "pooled", embedder)
    pl = ("", "per-label", embedder)
    pc, plc = control_of(runs, p + ("secpe", "10")), control_of(runs, pl + ("secpe", "10"))
    checks = [(name, s, f">= {needed:+d}", bool(s and s["mean"] >= needed)) for name, s, needed in (
        ("pooled: SecPE r/p = 10 - control, stars", diff(runs, p + ("secpe", "10"), pc, "stars"), 8),
        ("pooled: SecPE r/p = 10 - control, category", diff(runs, p + ("secpe", "10"), pc, "category"), 2),
        ("pooled: SecPE r/p = 2 - Aug-PE r/p = 2, stars", diff(runs, p + ("secpe", "2"), p + ("augpe", "2"), "stars"), 5),
        ("pooled: SecPE r/p = 10, category at the last iteration - initial population",
         diff(runs, p + ("secpe", "10"), p + ("secpe", "10"), "category", -1, 0), 2),
        ("per-label: SecPE r/p = 10 - control, category", diff(runs, pl + ("secpe", "10"), plc, "category"), 0),
        ("per-label: SecPE r/p = 10 - control, stars", diff(runs, pl + ("secpe", "10"), plc, "stars"), 0))]
    key = pl + ("secpe", "10")
    if key in runs:
        s = final(runs, key, "near_duplicates")
        checks.append(("per-label: SecPE r/p = 10, near-duplicates (%)", s, "<= 5", s["mean"] <= 5))
    return "Targets (issue 26)", checks


def unlabelled_targets(runs, embedder):
    """Issue 40's targets (PubMed, the paper's Table 3): (name, measured, needed, met)."""
    p = ("", "pooled", embedder)
    secpe2, augpe2, control = p + ("secpe", "2"), p + ("augpe", "2"), control_of(runs, p)
    over_augpe, flat = diff(runs, secpe2, augpe2, "next_word"), diff(runs, secpe2, p + ("secpe", "none"), "next_word")
    over_control = diff(runs, p + ("secpe", "10"), control, "next_word")
    spread_a, spread_c = spread(runs, secpe2, augpe2), spread(runs, p + ("secpe", "10"), control)
    return "Targets (issue 40: the paper's Table 3 on PubMed), next-word accuracy", [
        ("SecPE r/p = 2 - Aug-PE r/p = 2", over_augpe, f"> the seeds' spread, {spread_a:.2f}",
         bool(over_augpe and over_augpe["mean"] > spread_a)),
        ("SecPE r/p = 2 - SecPE r/p = none (flat as r/p tightens)", flat, "within ±1", bool(flat and abs(flat["mean"]) <= 1)),
        ("SecPE r/p = 10 - control", over_control, f"> 0 (the seeds' spread: {spread_c:.2f})",
         bool(over_control and over_control["mean"] > 0)),
    ]


def write_targets(out, runs, embedder, shape):
    """The study's targets for `embedder` (the study's first), each with its measured value."""
    title, checks = (labelled_targets if shape == "labelled" else unlabelled_targets)(runs, embedder)
    md = [f"{title}, with the {embedder} embedder: mean ± s.d. over seeds of the per-seed difference", "",
          "| target | measured (points) | needed | met |", "|---|---|---|---|"]
    for name, s, needed, met in checks:
        md.append(f"| {name} | {cell(s, 2 if shape == 'unlabelled' else 1, sign=True) if s else 'not run'} | {needed} | "
                  f"{'yes' if met else 'no'} |")
    with open(os.path.join(out, "targets.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


def categorical_axis(ax, labels):
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlim(-0.5, len(labels) - 0.5)


def plot_accuracy_vs_rp(out, runs, names, embedder, shape):
    modes = [m for m in MODES if any(k[0] == "" and k[1] == m and k[2] == embedder for k in runs)]
    if not modes:
        return
    fig, axes = plt.subplots(len(modes), 2, figsize=(10, 3.4 * len(modes)), squeeze=False)
    for row, mode in zip(axes, modes):
        present = [rp for rp in RP_ORDER if any(("", mode, embedder, m, rp) in runs for m in ("secpe", "augpe"))]
        for ax, figure in zip(row, SCORES[shape]):
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
            ax.set_title(f"{names[mode]} generator, {embedder}: {TITLES[figure]}", fontsize=10)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "accuracy_vs_r_over_p.png"), dpi=100)
    plt.close(fig)


def plot_iterations(out, runs, names, embedder, shape):
    for mode in MODES:
        methods = [m for m in ("secpe", "augpe") if any(k[:4] == ("", mode, embedder, m) for k in runs)]
        if not methods:
            continue
        fig, axes = plt.subplots(len(methods), 2, figsize=(10, 3.4 * len(methods)), squeeze=False)
        control = control_of(runs, ("", mode))
        for row, method in zip(axes, methods):
            for ax, figure in zip(row, SCORES[shape]):
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
                ax.set_title(f"{method_name(method, 'x').split(',')[0]}, {names[mode]} generator, {embedder}: {TITLES[figure]}",
                             fontsize=10)
                ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"iterations_{mode}.png"), dpi=100)
        plt.close(fig)


def plot_embedders(out, runs, shape):
    control = control_of(runs, ("", "pooled"))
    present = [e for e in EMBEDDERS if ("", "pooled", e, "secpe", "none") in runs]
    if not present or not control:
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, figure in zip(axes, SCORES[shape]):
        for shift, (method, rp) in zip((-0.2, 0.0, 0.2), (("secpe", "none"), ("secpe", "10"), ("secpe", "2"))):
            gains = [gain(runs, ("", "pooled", e, method, rp), control, figure)
                     if ("", "pooled", e, method, rp) in runs else None for e in present]
            xs = [i + shift for i, g in enumerate(gains) if g]
            if xs:
                ax.bar(xs, [g["mean"] for g in gains if g], width=0.2, yerr=[g["sd"] for g in gains if g], capsize=3,
                       label=f"SecPE, r/p = {rp}")
        ax.axhline(0, color="black", linewidth=0.8)
        categorical_axis(ax, present)
        ax.set_title(f"pooled generator: {GAIN_TITLES[figure]}", fontsize=10)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "embedders.png"), dpi=100)
    plt.close(fig)


def length_box(label, quantiles):
    """A box of words per text from an eval report's quantiles: median, quartiles, whiskers at 5 and 95 %."""
    return {"label": label, "med": quantiles["p50"], "q1": quantiles["p25"], "q3": quantiles["p75"],
            "whislo": quantiles["p5"], "whishi": quantiles["p95"]}


def plot_lengths(out, runs, names, embedder):
    """Words per text of the real held-out texts against each setting's final set, at its first seed."""
    mode = next((m for m in MODES if any(k[0] in ("", "no-private") and k[1] == m and k[2] == embedder for k in runs)), None)
    if mode is None:
        return
    keys = sorted((k for k in runs if k[0] in ("", "no-private") and k[1] == mode and k[2] in (embedder,)),
                  key=lambda k: (k[0], ["random", "secpe", "augpe"].index(k[3]), RP_ORDER.index(k[4]) if k[4] in RP_ORDER else -1))
    first = runs[keys[0]][min(runs[keys[0]])]
    boxes = [length_box("real held-out texts", first[-1]["real_lengths"]), length_box("initial population", first[0]["lengths"])]
    for key in keys:
        pops = runs[key][min(runs[key])]
        boxes.append(length_box(method_name(key[3], key[4]).split(" (")[0] + (", no private" if key[0] else ""), pops[-1]["lengths"]))
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(boxes) + 1.2))
    ax.bxp(boxes[::-1], vert=False, showfliers=False)
    ax.set_xlabel("words per text (box: quartiles and median; whiskers: 5 % and 95 %)")
    ax.set_title(f"{names[mode]} generator, {embedder}: lengths of the final sets (first seed)", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "lengths.png"), dpi=100)
    plt.close(fig)


def main():
    out = sys.argv[1]
    runs, names = read_runs(out)
    shape = shape_of(runs)
    write_table(out, table_rows(out, runs, names, shape), runs, shape)
    # The study's main embedder (the first of its EMBEDDERS) is the one its controls ran with.
    controls = [k for k in runs if k[0] == "" and k[3] == "random"]
    if not controls:
        return
    first = controls[0][2]
    write_targets(out, runs, first, shape)
    plot_accuracy_vs_rp(out, runs, names, first, shape)
    plot_iterations(out, runs, names, first, shape)
    plot_embedders(out, runs, shape)
    plot_lengths(out, runs, names, first)


if __name__ == "__main__":
    main()
