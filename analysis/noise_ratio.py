#!/usr/bin/env python3
"""Appendix B.1 of the SecPE paper, reproduced with `secpe privacy --simulate`.

N = 8000 records, m secrets, each record holds each secret independently with probability 0.01.
Plots the noise ratio sigma_GDP / sigma_secret (Aug-PE's record-level noise over SecPE's
secret-level noise for the same (p, r), mu_GDP = Phi^-1(1-p) - Phi^-1(1-r); larger is better for
secret protection) against r/p in [2, 400] (m = 400) and against m in [100, 1000] (r/p = 10), for
SecPE's exact and paper calibrations. SecPE samples with the LP weights themselves as
probabilities (--private-batch 0: rho_i = w_i, so sum_(i holds j) rho_i <= eta_j).

usage: noise_ratio.py SECPE_BINARY OUT_DIR [--iterations T]
Writes OUT_DIR/noise_ratio.json and the PNGs OUT_DIR/noise_ratio_vs_r_over_p.png and
OUT_DIR/noise_ratio_vs_secrets.png.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def study(secpe, secrets, r_over_p, iterations):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([secpe, "privacy", "--simulate", "--records", "8000", "--secrets", str(secrets),
                        "--inclusion", "0.01", "--iterations", str(iterations), "--p", "1e-4",
                        "--r-over-p", str(r_over_p), "--private-batch", "0", "--summary-only", "--out", out.name],
                       check=True, stdout=subprocess.DEVNULL)
        result = json.load(open(out.name))
    return {"secrets": secrets, "r_over_p": r_over_p, "sigma": result["sigma"],
            "noise_ratio": {k: result["sigma_ratio"][k] for k in ("exact", "paper")},
            "noise_ratio_per_signal": {k: result["noise_ratio"][k] for k in ("exact", "paper")},
            "group_ratio": {k: result["group_sigma_ratio"][k] for k in ("exact", "paper")},
            "batch_used": result["batch_used"]}


def plot(points, x_key, x_label, title, path, log_x):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    xs = [p[x_key] for p in points]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(xs, [p["group_ratio"]["exact"] for p in points], "o-", color="C0", label="GDP with group privacy / SecPE exact")
    ax.plot(xs, [p["group_ratio"]["paper"] for p in points], "s--", color="C0", label="GDP with group privacy / SecPE paper")
    ax.plot(xs, [p["noise_ratio"]["exact"] for p in points], "o-", color="C1", label="record-level GDP / SecPE exact")
    ax.plot(xs, [p["noise_ratio"]["paper"] for p in points], "s--", color="C1", label="record-level GDP / SecPE paper")
    ax.set_yscale("log")
    ax.axhline(1.0, color="grey", lw=0.8)
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel(x_label)
    ax.set_ylabel("noise ratio  sigma_GDP / sigma_secret")
    ax.legend(fontsize=7)
    ax.set_title(title)
    ax.grid(True, alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("secpe")
    ap.add_argument("out_dir")
    ap.add_argument("--iterations", type=int, default=10)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    vs_r = [study(a.secpe, 400, k, a.iterations) for k in (2, 5, 10, 20, 50, 100, 200, 400)]
    vs_m = [study(a.secpe, m, 10, a.iterations) for m in (100, 200, 300, 400, 500, 600, 800, 1000)]
    json.dump({"iterations": a.iterations, "vs_r_over_p": vs_r, "vs_secrets": vs_m},
              open(os.path.join(a.out_dir, "noise_ratio.json"), "w"), indent=2)
    plot(vs_r, "r_over_p", "r / p  (p = 1e-4)", "N = 8000, m = 400, inclusion 0.01, T = %d" % a.iterations,
         os.path.join(a.out_dir, "noise_ratio_vs_r_over_p.png"), True)
    plot(vs_m, "secrets", "secrets m", "N = 8000, r/p = 10, inclusion 0.01, T = %d" % a.iterations,
         os.path.join(a.out_dir, "noise_ratio_vs_secrets.png"), False)
    for name, pts, key in (("r/p", vs_r, "r_over_p"), ("m", vs_m, "secrets")):
        for p in pts:
            print("%s = %-5s record-level: exact %.4g paper %.4g   group: exact %.4g paper %.4g" % (
                name, p[key], p["noise_ratio"]["exact"], p["noise_ratio"]["paper"], p["group_ratio"]["exact"], p["group_ratio"]["paper"]))


if __name__ == "__main__":
    sys.exit(main())
