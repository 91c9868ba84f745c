#!/usr/bin/python3
"""The logical-inference table of bench/compare_training.sh: test accuracy
per operator count for rvnn and the eager reference of each model.

Reads the results JSON of one or more logic runs of compare_training.sh
(their "test_table" rows: model, side, seed, accuracy per operator count,
best dev accuracy, steps, median time per step) and prints one table: a row
per model, side and seed, then a row "rvnn - eager" per model and seed
(points) with the mean difference over the counts and twice its sampling
standard error (test-set sampling only: the binomial error of each file's
accuracy on both sides; training noise, which a second seed would show,
comes on top), and the majority-class share of each test file. --markdown
prints the same as a Markdown table. --output writes the rows and every
run's JSON into one file; such a file is also an input (its runs count as
given one by one), so that later runs can be added to an earlier table.
Rows are grouped by model (in the order models first appear), then seed.
"""
import argparse
import datetime
import json
import math
import statistics
import sys


def pct(x):
    return f"{100 * x:.1f}"


def runs_of(path):
    """The runs of a compare_training.sh results JSON: the file itself, or
    for an earlier --output of this script (or of recipe_table.py) the runs
    it holds."""
    data = json.load(open(path))
    return data["runs"] if "table" in data and "runs" in data else [data]


def difference(rvnn, eager):
    """rvnn - eager per count and in the mean, with twice the sampling
    standard error of the mean difference (points)."""
    counts = list(rvnn["accuracy"])
    # (+ 0.0: no "-0.0" for equal accuracies.)
    per = {k: round(100 * (rvnn["accuracy"][k] - eager["accuracy"][k]), 9) + 0.0
           for k in counts}
    variance = sum(row["accuracy"][k] * (1 - row["accuracy"][k]) / row["n"][k]
                   for row in (rvnn, eager) for k in counts) / len(counts) ** 2
    return {"model": rvnn["model"], "seed": rvnn["seed"], "points": per,
            "mean_points": round(statistics.fmean(per.values()), 9) + 0.0,
            "two_se_points": 200 * math.sqrt(variance)}


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("results", nargs="+",
                        help="compare_training.sh results JSON of logic runs")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--output", help="JSON with all rows and runs")
    args = parser.parse_args()

    runs = []
    for path in args.results:
        for run in runs_of(path):
            if "test_table" not in run:
                sys.exit(f"{path}: no test_table (not a logic run)")
            runs.append(run)
    rows = [row for run in runs for row in run["test_table"]]
    seen = set()
    for row in rows:
        key = (row["model"], row["seed"], row["side"])
        if key in seen:
            sys.exit(f"{row['model']} seed {row['seed']} {row['side']}: "
                     "given twice")
        seen.add(key)
    order = list(dict.fromkeys(row["model"] for row in rows))
    rows.sort(key=lambda row: (order.index(row["model"]), row["seed"]))
    diffs = []
    for row in rows:
        if row["side"] == "eager":
            rvnn = next(r for r in rows if r["side"] == "rvnn" and
                        (r["model"], r["seed"]) == (row["model"], row["seed"]))
            diffs.append(difference(rvnn, row))
    counts = list(rows[0]["accuracy"])
    majorities = {json.dumps(run["test_majority"]) for run in runs}

    head = (["model", "side", "seed"] + counts +
            ["mean", "best dev", "steps", "ms/step"])
    lines = []
    for row in rows:
        lines.append([row["model"], row["side"], str(row["seed"])] +
                     [pct(row["accuracy"][k]) for k in counts] +
                     [pct(row["mean_accuracy"]), pct(row["best_dev_accuracy"]),
                      str(row["steps"]), f"{row['step_ms_median']:.0f}"])
        diff = next((d for d in diffs if row["side"] == "eager" and
                     (d["model"], d["seed"]) == (row["model"], row["seed"])),
                    None)
        if diff:
            lines.append([row["model"], "rvnn - eager", str(row["seed"])] +
                         [f"{diff['points'][k]:+.1f}" for k in counts] +
                         [f"{diff['mean_points']:+.1f} ± {diff['two_se_points']:.1f}",
                          "", "", ""])
    for majority in sorted(majorities):
        majority = json.loads(majority)
        lines.append(["majority class", "", ""] +
                     [pct(majority[k]) for k in counts] +
                     [pct(statistics.fmean(majority.values())), "", "", ""])

    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join(["---"] * 3 + ["---:"] * (len(head) - 3)) + "|")
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(x) for x in column) for column in zip(head, *lines)]
        for line in [head] + lines:
            print("  ".join(x.ljust(w) if i < 3 else x.rjust(w)
                            for i, (x, w) in enumerate(zip(line, widths))))
    if args.output:
        with open(args.output, "w") as f:
            json.dump({"date": datetime.date.today().isoformat(),
                       "table": rows, "differences": diffs,
                       "runs": runs}, f, indent=1)
            f.write("\n")
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
