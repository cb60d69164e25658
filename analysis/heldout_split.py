#!/usr/bin/env python3
"""Deterministic held-out split of an Aug-PE CSV for utility studies.

Record i (0-based, in file order) goes to the evaluation split when i % every == every - 1, else to
the training split: 5,000 dev reviews give 4,000 / 1,000. With --every 0 every record is for training
(the held-out records come in a file of their own, as PubMed's dev.csv) and EVAL gets the header only. Also writes a reference sample of real
training reviews (seeded) of the synthetic set's size, to train the "real reviews" reference row,
and optionally the same reviews cut to the built-in generator's word cap (--cut-words, its
--max-words): how far any selection of texts of the generator's length could go.

usage: heldout_split.py IN.csv TRAIN.csv EVAL.csv [--every 5] [--reference REF.csv --size N --seed S
                        [--reference-cut CUT.csv --cut-words 64]]
"""
import argparse
import csv
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("train")
    ap.add_argument("eval")
    ap.add_argument("--every", type=int, default=5)
    ap.add_argument("--reference")
    ap.add_argument("--size", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reference-cut")
    ap.add_argument("--cut-words", type=int, default=64)
    a = ap.parse_args()
    csv.field_size_limit(sys.maxsize)
    with open(a.input, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    held_out = (lambda i: i % a.every == a.every - 1) if a.every > 0 else (lambda i: False)
    train = [r for i, r in enumerate(body) if not held_out(i)]
    held = [r for i, r in enumerate(body) if held_out(i)]
    for path, part in ((a.train, train), (a.eval, held)):
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(part)
    if a.reference:
        sample = random.Random(a.seed).sample(train, min(a.size, len(train)))
        with open(a.reference, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(sample)
        if a.reference_cut:
            text = header.index("text")
            with open(a.reference_cut, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(header)
                for r in sample:
                    w.writerow(r[:text] + [" ".join(r[text].split()[: a.cut_words])] + r[text + 1 :])
    print(f"{a.input}: {len(train)} training and {len(held)} held-out records")


if __name__ == "__main__":
    main()
