#!/usr/bin/python3
"""The codegen issue's acceptance table from a bench/run.sh results JSON.

One Markdown row per model and cell (length bucket, batch size): the
generated path's and eager PyTorch's no-dropout training steps (medians),
their ratio g/e against the target (at most 1/2 at batch 1, 1/1.3 at batch
32; none at other batch sizes), replay/e (the step's own BLAS calls
replayed by themselves, over eager's step: the g/e the step would have if
all but its products took no time), floor/g (the forward's GEMM FLOPs x3
at the measured SGEMM rate, over the generated step), forward dispatches
per recursion step, and memory growth: the generated path's and eager's
(eager in training mode where the reference has one), and the recompute
policy's with its ratio to eager's.

The verdict column: "met"; "bounded by the BLAS" when replay/e is above
the target (no compilation of the rest of the step can meet it); "missed"
otherwise; "eager out of memory" when the eager step could not run under
run.sh's memory cap.
"""
import argparse
import json
import sys

TARGETS = {1: 0.5, 32: 1 / 1.3}


def fmt(value, spec):
    return format(value, spec) if isinstance(value, (int, float)) else "-"


def usable(run):
    return bool(run) and not run.get("out_of_memory") and \
        run.get("median_ms") is not None


def verdict(ratio, replay, target, eager_oom):
    if eager_oom:
        return "eager out of memory"
    if target is None or ratio is None:
        return "-"
    if ratio <= target:
        return "met"
    if replay is not None and replay > target:
        return "bounded by the BLAS"
    return "missed"


def memory(cell):
    """Memory growth (MiB) of the generated path, eager and the recompute
    policy; eager in training mode where it ran, else without dropout."""
    eager = cell.get("eager") if usable(cell.get("eager")) else \
        cell.get("eager-nodrop")
    eager_mib = eager.get("rss_delta_mib") if usable(eager) else None
    rvnn, recompute = cell.get("rvnn") or {}, cell.get("rvnn-rc") or {}
    return (rvnn.get("rss_delta_mib"), eager_mib,
            recompute.get("rss_delta_mib"))


def row(model, cell):
    g, e = cell.get("rvnn-nodrop"), cell.get("eager-nodrop")
    profile = cell.get("profile_nodrop") or {}
    target = TARGETS.get(cell["batch_size"])
    ratio = g["median_ms"] / e["median_ms"] if usable(g) and usable(e) \
        else None
    replay = profile.get("gemm_replay_over_eager")
    eager_oom = bool(e and e.get("out_of_memory"))
    g_mib, e_mib, rc_mib = memory(cell)
    rc_over_e = rc_mib / e_mib if rc_mib is not None and e_mib else None
    return [model, cell["lengths"], str(cell["batch_size"]),
            fmt(g["median_ms"] if usable(g) else None, ".1f"),
            "out of memory" if eager_oom else
            fmt(e["median_ms"] if usable(e) else None, ".1f"),
            f"**{fmt(ratio, '.2f')}**", fmt(target, ".2f"),
            fmt(replay, ".2f"), fmt(profile.get("gemm_floor_fraction"), ".2f"),
            fmt(profile.get("dispatches_per_step_generated"), ".0f"),
            f"{fmt(g_mib, '.0f')} / {fmt(e_mib, '.0f')}",
            f"{fmt(rc_mib, '.0f')} ({fmt(rc_over_e, '.2f')})",
            verdict(ratio, replay, target, eager_oom)]


HEADER = ["model", "tokens", "batch", "g ms", "e ms", "g/e", "target",
          "replay/e", "floor/g", "dispatches/step", "RSS+ g / e MiB",
          "RSS+ rc MiB (rc/e)", "verdict"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="a bench/run.sh results JSON")
    args = parser.parse_args()
    try:
        with open(args.results) as f:
            data = json.load(f)
        models = data["models"]
        rows = [row(model, cell) for model, entry in models.items()
                for cell in entry["cells"]]
    except (OSError, ValueError) as error:
        sys.exit(f"acceptance_table.py: {args.results}: {error}")
    except (KeyError, TypeError) as error:
        sys.exit(f"acceptance_table.py: {args.results}: not a bench/run.sh "
                 f"results JSON (no field {error})")
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER))
    for cells in rows:
        print("| " + " | ".join(cells) + " |")
    counts = {}
    for cells in rows:
        counts[cells[-1]] = counts.get(cells[-1], 0) + 1
    print("\n" + ", ".join(f"{v}: {n}" for v, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
