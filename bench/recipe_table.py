#!/usr/bin/python3
"""The recipe checks of bench/compare_training.sh runs as one table.

compare_training.sh's recipe check (step 3 of its header) trains a copy of
the model without dropout and without Gumbel noise on one 128-example batch
per epoch for up to 40 epochs (LR-schedule patience 1, early stopping 15),
once with rvnn and once with the eager reference; the two must agree step
for step up to float32 rounding. Its results JSON keeps the check under
"recipe_check" (both sides' loss and learning rate at every step). This
prints one row per results file: the steps each side ran (fewer than the
epochs: early stopping fired), the largest relative loss difference over
all steps and over the first 10, the first step whose relative difference
exceeds --threshold (float32 rounding stays near 1e-7), the learning-rate
halvings on each side and whether the rate was the same at every step,
whether the early-stopping counters were the same after every evaluation,
and at how many evaluations dev accuracy was equal. --markdown prints a
Markdown table; --output writes the rows and every run's JSON into one
file, which is also an input (its runs count as given one by one; so is
logic_table.py's --output, whose runs with a recipe check count).
"""
import argparse
import datetime
import json
import sys

from logic_table import runs_of


def row_of(run, threshold):
    check = run.get("recipe_check")
    if check is None:
        return None
    model = run["settings"]["model"]
    rel = [abs(a - b) / abs(a) for a, b in check["losses"]]
    first = next((i + 1 for i, r in enumerate(rel) if r > threshold), None)
    return {"model": model,
            "steps": check["steps"],
            "max_rel_loss_diff": max(rel),
            "max_rel_loss_diff_first_10": max(rel[:10]),
            "first_step_above_threshold": first,
            "threshold": threshold,
            "lr_reductions": check["lr_reductions"],
            "lr_same_every_step": check["lr_same_every_step"],
            "early_stopping_same": check["early_stopping_same"],
            "dev_accuracy_same_evals": check["dev_accuracy_same_evals"],
            "evals": check["evals"],
            "max_dev_accuracy_diff": check["max_dev_accuracy_diff"]}


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("results", nargs="+",
                        help="compare_training.sh results JSON")
    parser.add_argument("--threshold", type=float, default=1e-6,
                        help="relative loss difference counted as a "
                             "departure (default 1e-6)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--output", help="JSON with all rows and runs")
    args = parser.parse_args()

    runs = []
    for path in args.results:
        # (An earlier --output of this script or of logic_table.py: those of
        # its runs that have a recipe check.)
        checked = [run for run in runs_of(path) if "recipe_check" in run]
        if not checked:
            sys.exit(f"{path}: no recipe_check (run with --no-recipe-check?)")
        runs += checked
    rows = [row_of(run, args.threshold) for run in runs]
    seen = set()
    for row in rows:
        if row["model"] in seen:
            sys.exit(f"{row['model']}: given twice")
        seen.add(row["model"])

    def both(pair):
        return f"{pair[0]} / {pair[1]}"

    head = ["model", "steps rvnn / eager", "max loss rel diff",
            "first 10 steps", f"first step > {args.threshold:g}",
            "LR halvings rvnn / eager", "LR same every step",
            "early stopping same", "dev equal"]
    lines = []
    for row in rows:
        lines.append([row["model"], both(row["steps"]),
                      f"{row['max_rel_loss_diff']:.1e}",
                      f"{row['max_rel_loss_diff_first_10']:.1e}",
                      str(row["first_step_above_threshold"] or "-"),
                      both(row["lr_reductions"]),
                      "yes" if row["lr_same_every_step"] else "NO",
                      "yes" if row["early_stopping_same"] else "NO",
                      f"{row['dev_accuracy_same_evals']}/{row['evals'][0]}"
                      + ("" if row["evals"][0] == row["evals"][1]
                         else f" ({row['evals'][1]} eager)")])
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|---|" + "|".join(["---:"] * (len(head) - 1)) + "|")
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(x) for x in column) for column in zip(head, *lines)]
        for line in [head] + lines:
            print("  ".join(x.ljust(w) if i == 0 else x.rjust(w)
                            for i, (x, w) in enumerate(zip(line, widths))))
    if args.output:
        with open(args.output, "w") as f:
            json.dump({"date": datetime.date.today().isoformat(),
                       "table": rows, "runs": runs}, f, indent=1)
            f.write("\n")
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
