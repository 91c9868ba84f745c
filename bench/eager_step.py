#!/usr/bin/python3
"""Eager PyTorch baseline for `rvnn-run bench`: the same training step.

Takes the model from bench/reference/<model>.py (written in float64 for the
equivalence checks; here every parameter and mask is float32, like rvnn) and
the initial parameters from an `rvnn-run dump-grads` JSON (same --seed as the
bench, so both start from identical weights). For each data file and batch
size, from fresh parameters and a fresh optimiser, it runs --warmup untimed
then --steps timed steps of: zero the gradients, forward, cross-entropy loss,
backward, clip_grad_norm_ (the run configuration's clip), optimiser step.
Batch k takes rows kB..kB+B-1 of the file (wrapping round), padded to its
longest row: the batches rvnn-run bench times.

Optimiser: torch.optim.RAdam (lr, weight decay as L2, betas 0.9/0.999,
eps 1e-8, from the run configuration), wrapped in a plain Lookahead (k,
alpha from the configuration) when its optimiser ends in "_lookahead";
"adam"/"adamw" map to torch.optim.Adam/AdamW.

Forward mode: by default the reference's evaluation mode (no dropout), the
same arithmetic as `rvnn-run bench --eval-forward` (first-step losses
agree). With --training, references whose loss() takes `training=` (and
`dropout=`) run in training mode with dropout at their places, rates from
the configuration's hyperparameters (train_reference.config_dropout):
the work of rvnn's default training-mode step (dropout masks differ: torch's
default generator, seeded with --seed); others exit with status 3.

--option NAME=VALUE[,...] mirrors `rvnn-run bench --eval-forward --option`:
NAME is one of the model's evaluation options (rvnn.eval_option), which the
reference maps onto a keyword of its loss in its EVAL_OPTIONS (e.g.
rir_ebt_grc: rir_inference -> rir); a name it does not map is an error that
lists those it does. A reference whose loss takes `draw_seed` (RIR-EBT-GRC's
beam alignment) gets the --params dump's draw seed in every run's first step,
the seed of rvnn's first forward pass from the same --seed, so the first
losses agree; step k then takes that seed + k (other draws than rvnn's, the
same arithmetic).

Writes the table to stdout and, with --json, the JSON `rvnn-run bench`
writes (tool "eager"). Runs with Debian's python3-torch (/usr/bin/python3).
"""
import argparse
import importlib
import inspect
import json
import math
import os
import resource
import sys
import time

import torch

from listops_training import Lookahead
from logic_data import TASKS
from train_reference import config_dropout


def make_optimiser(params, training):
    name = training.get("optimiser", "radam_lookahead")
    base_name = name[:-len("_lookahead")] if name.endswith("_lookahead") else name
    kwargs = dict(lr=training.get("lr", 1e-3),
                  betas=tuple(training.get("betas", (0.9, 0.999))),
                  eps=training.get("eps", 1e-8),
                  weight_decay=training.get("weight_decay", 1e-2))
    classes = {"radam": torch.optim.RAdam, "adam": torch.optim.Adam,
               "adamw": torch.optim.AdamW}
    if base_name not in classes:
        sys.exit(f"unknown optimiser '{name}'")
    base = classes[base_name](params, **kwargs)
    if base_name != name:
        return Lookahead(base, params, training.get("lookahead_k", 5),
                         training.get("lookahead_alpha", 0.8))
    return base


def percentile(values, q):
    """Linear interpolation between closest ranks, as rvnn-run bench."""
    values = sorted(values)
    rank = q / 100 * (len(values) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(values) - 1)
    return values[low] + (rank - low) * (values[high] - values[low])


def proc_status_mib(field):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return float(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_rss_mib():
    hwm = proc_status_mib("VmHWM")
    if hwm is not None:
        return hwm
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def parse_options(parser, text):
    """"rir_inference=1,..." -> {"rir_inference": 1}, as rvnn-run's --option."""
    options = {}
    for item in filter(None, text.split(",")):
        name, equals, value = item.partition("=")
        if not equals or not name:
            parser.error(f"--option: expected NAME=VALUE, got '{item}'")
        try:
            number = int(value)
        except ValueError:
            parser.error(f"--option: the value of '{name}' must be an "
                         f"integer, got '{value}'")
        if name in options:
            parser.error(f"--option: '{name}' is given twice")
        options[name] = number
    return options


def option_keywords(model, reference, options):
    """The loss keywords of the evaluation options (the reference's
    EVAL_OPTIONS: option name -> keyword)."""
    known = getattr(reference, "EVAL_OPTIONS", {})
    for name in options:
        if name not in known:
            sys.exit(f"eager_step.py: bench/reference/{model}.py has no "
                     f"evaluation option '{name}' ("
                     + (f"it has: {', '.join(sorted(known))}" if known
                        else "it has none") + ")")
    return {known[name]: value for name, value in options.items()}


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--model", required=True,
                        help="bench/reference module (bbt_grc, ...)")
    parser.add_argument("--config", required=True,
                        help="run configuration (models/<model>.json)")
    parser.add_argument("--params", required=True,
                        help="rvnn-run dump-grads JSON with the initial weights")
    parser.add_argument("--data", required=True,
                        help="comma-separated ListOps files, one bucket each")
    parser.add_argument("--batch-sizes", default="1")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra-op threads (0: PyTorch's default)")
    parser.add_argument("--training", action="store_true",
                        help="forward in training mode (dropout)")
    parser.add_argument("--seed", type=int, default=1,
                        help="dropout generator seed")
    parser.add_argument("--option", default="",
                        help="NAME=VALUE,...: the model's evaluation options, "
                             "as rvnn-run bench --option")
    parser.add_argument("--device", default="cpu",
                        help="cpu or cuda[:N]: the device of every tensor "
                        "(torch.set_default_device, so the references' own "
                        "factory calls allocate there too)")
    parser.add_argument("--json", help="also write the results as JSON")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    options = parse_options(parser, args.option)
    if options and args.training:
        parser.error("--option sets evaluation options: not with --training "
                     "(as rvnn-run bench, which needs --eval-forward for it)")
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    on_gpu = device.type == "cuda"
    if device.type != "cpu":
        torch.set_default_device(device)  # PyTorch >= 2.0

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "reference"))
    reference = importlib.import_module(args.model)
    with open(args.config) as f:
        config = json.load(f)
    task = config.get("task", "listops")
    if task not in TASKS:
        sys.exit(f"{args.config}: task {task!r} is not supported "
                 f"(supported: {', '.join(TASKS)})")
    read_rows, make_rows_batch, row_length = TASKS[task]
    training = config.get("training", {})
    clip = training.get("clip", 1.0)
    mode = {}
    if args.training:
        if "training" not in inspect.signature(reference.loss).parameters:
            print(f"eager_step.py: bench/reference/{args.model}.py has no "
                  "training mode", file=sys.stderr)
            return 3
        mode["training"] = True
        if "dropout" in inspect.signature(reference.loss).parameters:
            mode["dropout"] = config_dropout(config.get("hyperparameters", {}))
    mode.update(option_keywords(args.model, reference, options))
    torch.manual_seed(args.seed)
    with open(args.params) as f:
        dump = json.load(f)
    initial = {name: torch.tensor(entry["values"], dtype=torch.float32)
               .reshape(entry["shape"])
               for name, entry in dump["params"].items()}
    draw_seed = None
    if "draw_seed" in inspect.signature(reference.loss).parameters:
        draw_seed = dump.get("draw_seed", 0)
    batch_sizes = [int(b) for b in args.batch_sizes.split(",") if b]

    results = []
    for path in [p for p in args.data.split(",") if p]:
        rows = read_rows(path)
        lengths = [row_length(ids) for ids, _ in rows]
        for batch_size in batch_sizes:
            batches = [make_rows_batch([rows[(k * batch_size + j) % len(rows)]
                                        for j in range(batch_size)])
                       for k in range(args.warmup + args.steps)]
            params = {name: value.clone().requires_grad_()
                      for name, value in initial.items()}
            plist = list(params.values())
            optimiser = make_optimiser(plist, training)

            peak_reset = reset_peak_rss()
            if on_gpu:
                torch.cuda.reset_peak_memory_stats(device)
            start_rss = proc_status_mib("VmRSS") or 0.0
            step_ms, losses = [], []
            for k, (inputs, labels) in enumerate(batches):
                start = time.perf_counter()
                optimiser.zero_grad()
                if draw_seed is not None:
                    mode["draw_seed"] = (draw_seed + k) % 2**64
                loss = reference.loss(params, inputs, labels, **mode)
                loss.backward()
                if clip > 0:
                    torch.nn.utils.clip_grad_norm_(plist, clip)
                optimiser.step()
                value = loss.item()
                stop = time.perf_counter()
                if not math.isfinite(value):
                    sys.exit(f"{path}: non-finite loss at step {k}")
                losses.append(value)
                if k >= args.warmup:
                    step_ms.append((stop - start) * 1e3)
            peak = peak_rss_mib()
            cell = {
                "bucket": path, "min_length": min(lengths),
                "max_length": max(lengths), "batch_size": batch_size,
                "median_ms": percentile(step_ms, 50),
                "p10_ms": percentile(step_ms, 10),
                "p90_ms": percentile(step_ms, 90),
                "step_ms": step_ms, "first_loss": losses[0],
                "last_loss": losses[-1], "peak_rss_mib": peak,
                "rss_delta_mib": peak - start_rss,
                "peak_rss_reset": peak_reset}
            if on_gpu:
                cell["peak_device_mib"] = (
                    torch.cuda.max_memory_allocated(device) / 2**20)
            results.append(cell)

    print(f"eager bench: {args.model}, torch {torch.__version__}, "
          f"{training.get('optimiser', 'radam_lookahead')} (torch.optim), "
          f"clip {clip}, forward in "
          f"{'training' if args.training else 'evaluation'} mode, "
          f"{torch.get_num_threads()} thread(s), {args.warmup} "
          f"warm-up + {args.steps} timed steps")
    print(f"{'bucket':<24}{'lengths':>10}{'batch':>7}{'median ms':>12}"
          f"{'p10 ms':>10}{'p90 ms':>10}{'peak RSS MiB':>14}{'RSS +MiB':>11}")
    for r in results:
        name = r["bucket"] if len(r["bucket"]) <= 23 else "..." + r["bucket"][-20:]
        span = f"{r['min_length']}-{r['max_length']}"
        print(f"{name:<24}{span:>10}"
              f"{r['batch_size']:>7}{r['median_ms']:>12.2f}{r['p10_ms']:>10.2f}"
              f"{r['p90_ms']:>10.2f}{r['peak_rss_mib']:>14.1f}"
              f"{r['rss_delta_mib']:>11.1f}")
    if args.json:
        out = {"tool": "eager", "model": args.model, "config": args.config,
               "device": str(device), "threads": torch.get_num_threads(),
               "optimiser": training.get("optimiser", "radam_lookahead"),
               "clip": clip,
               "forward_mode": "train" if args.training else "eval",
               "options": options,
               "dropout": mode.get("dropout"),
               "dtype": "float32", "torch": torch.__version__,
               "warmup": args.warmup, "steps": args.steps, "results": results}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
