"""Compares two bench/train_reference.py runs: their metrics records (all
but the timings) and their summaries (all but the wall time and the
resumption list). Prints what differs, or the counts; exits 1 on a
difference."""
import json
import sys

TIMINGS = ("steps_per_s", "elapsed_s")


def records(path):
    with open(path) as f:
        return [{k: v for k, v in json.loads(line).items() if k not in TIMINGS}
                for line in f]


def main(whole_metrics, parts_metrics, whole_summary, parts_summary):
    a, b = records(whole_metrics), records(parts_metrics)
    if a != b:
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                print(f"record {i} differs: {x} != {y}")
                break
        print(f"records: {len(a)} against {len(b)}")
        return 1
    rates = sorted({r["lr"] for r in a}, reverse=True)
    print(f"records: {len(a)} identical; learning rates: "
          + " ".join(f"{r:g}" for r in rates))
    with open(whole_summary) as f:
        x = json.load(f)
    with open(parts_summary) as f:
        y = json.load(f)
    ignored = ("wall_s", "resumed_after_epochs")
    differ = [k for k in x if k not in ignored and x[k] != y.get(k)]
    if differ:
        print("summary differs in " + ", ".join(differ))
        return 1
    print(f"summary identical; resumed after epochs {y['resumed_after_epochs']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
