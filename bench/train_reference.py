#!/usr/bin/python3
"""Trains an eager PyTorch reference model (bench/reference/<model>.py) the
way `rvnn-run train` trains the compiled model, for comparing the two.

Same inputs as rvnn: the run configuration (models/<name>.json: batch size
and the "training" block), the initial parameters from an `rvnn-run
dump-grads --seed S` JSON (the weights `rvnn-run train --seed S` starts
from), and the same data files: ListOps (`label<TAB>sequence`) or, for a
"task": "logic" configuration, logical-inference pairs
(`relation<TAB>formula<TAB>formula`, bench/logic_data.py). Float32
throughout.

The recipe, re-implemented here from include/rvnn/Runtime/Train/*.h and
tools/rvnn-run/Train.cpp (not shared code):
  * batches: each epoch, shuffle the examples, cut them into chunks of
    5 x batch_size, sort each chunk by length (stable), split it into
    batches of batch_size, shuffle the batches (rvnn's
    lengthBucketedBatches; a pair's length is its longer sentence's);
    padded on the right with a 0/1 mask (each sentence of a pair to the
    longest of its side, as rvnn's pair batches);
  * step: zero the gradients, training-mode loss (dropout at the §8 places,
    rates from the configuration's hyperparameters dropout_in, dropout_cell,
    dropout_out and a model's other dropout_<place>, config_dropout; rvnn
    compiles its rates into the model), backward,
    clipping to `clip` (clip_grad_norm_'s, the norm summed in float64 as
    rvnn sums it), RAdam (torch.optim.RAdam: lr, weight_decay
    as L2 added to the gradient, betas 0.9/0.999, eps 1e-8) inside
    Lookahead (k, alpha: slow weights start at the initial parameters;
    after every k-th fast step slow += alpha (fast - slow), fast = slow);
  * after every epoch: accuracy on dev (evaluation mode, batches of
    batch_size in file order), which drives ReduceLROnPlateau
    (torch.optim.lr_scheduler.ReduceLROnPlateau with lr_schedule's mode,
    factor, patience, threshold, cooldown, min_lr) and early stopping
    (`patience` evaluations without a strict improvement);
  * epochs / max_steps as rvnn: max_steps stops before the step that would
    exceed it, and a partial epoch is not evaluated;
  * at the end the best evaluation's parameters are restored; then each
    --test file is scored like dev (`rvnn-run eval`: batches of batch_size
    in file order), for logic also by operator count (a pair's count is its
    larger formula's, as lib/Runtime/Report/OperatorCount.cpp counts).
Batch order, dropout masks and the training-mode draws of models that draw
(BT-GRC's and RIR-EBT-GRC's Gumbel top-k noise, RIR-EBT-GRC's beam
alignment) come from Python's and torch's generators (seeded with --seed),
so they differ from rvnn's. --no-noise turns the Gumbel top-k noise off
(the reference's loss(noise=False)), for a model compiled with
`gumbel = false` (compare_training.sh's recipe check).

Writes --metrics, JSON lines like rvnn's metrics.jsonl: training records
{"type": "train", epoch, step, loss (mean since the last record), lr,
grad_norm, steps_per_s, elapsed_s} every log_every steps and evaluation
records {"type": "eval", epoch, step, dev: {accuracy, n}, improved, best,
bad_evals, lr, elapsed_s}. steps_per_s covers the time since the previous
training record (an evaluation in between counts, as in rvnn); elapsed_s is
seconds since training began. --results gets a summary JSON (with
"tests": per --test file its accuracy, n, majority-class share and, for
logic, accuracy and n by operator count).

--checkpoint FILE makes a run resumable, as `rvnn-run train --resume` is:
after every evaluation the whole training state (parameters, RAdam,
Lookahead, the LR schedule, early stopping, the best parameters, torch's
generator, the records so far) is written to FILE atomically; a later run
with the same FILE, model, seed, noise option and inputs (the files'
SHA-256) continues from it after that evaluation and ends where an
uninterrupted run ends (CPU, same thread count). A run killed mid-epoch
repeats that epoch from its start. --epochs and --max-steps may differ from
the interrupted run's (to train further).
Runs with Debian's python3-torch (/usr/bin/python3).
"""
import argparse
import dataclasses
import hashlib
import importlib
import inspect
import json
import math
import os
import random
import sys
import time

import torch

from listops_training import Lookahead
from logic_data import TASKS, operator_count


def clip_grad_norm(params, max_norm):
    """torch.nn.utils.clip_grad_norm_ with the norm summed in float64, as
    rvnn sums it (lib/Runtime/Train/ClipGradNorm.cpp). torch 1.13's float32
    norm of a large CPU tensor is not that accurate (FastTrees' gradients:
    2.7e-5 relative low on the 400x1600 head weight, 7.7e-5 on the
    1600x400 recurrent one, 1.9e-5 on the total), which scaled every
    clipped step by a slightly different factor than rvnn's and made the
    recipe check's losses drift apart (bench/TRAINING.md). Same
    coefficient max_norm / (norm + 1e-6), applied only below 1 (torch's
    clamped factor 1 leaves the gradients as they are). Returns the norm."""
    grads = [p.grad for p in params if p.grad is not None]
    total = math.sqrt(sum(g.double().square().sum().item() for g in grads))
    coefficient = max_norm / (total + 1e-6)
    if coefficient < 1:
        for g in grads:
            g.mul_(coefficient)
    return total


def config_dropout(hyperparameters):
    """The dropout rates of a run configuration's hyperparameters by place,
    the reference's `dropout` dict: dropout_in, dropout_cell and
    dropout_out (0.1 where absent, §8's rate) and any other dropout_<place>
    a model has (Ordered Memory's dropout_memory, before its attention)."""
    rates = {place: 0.1 for place in ("in", "cell", "out")}
    rates.update({name[len("dropout_"):]: float(rate)
                  for name, rate in hyperparameters.items()
                  if name.startswith("dropout_")})
    return rates


def bucketed_batches(rows, batch_size, rng, make_batch, length,
                     chunk_batches=5):
    order = list(range(len(rows)))
    rng.shuffle(order)
    chunk = batch_size * chunk_batches
    batches = []
    for start in range(0, len(order), chunk):
        # sorted() is stable: equal lengths keep the shuffled order.
        part = sorted(order[start:start + chunk], key=lambda i: length(rows[i][0]))
        for begin in range(0, len(part), batch_size):
            batches.append([rows[i] for i in part[begin:begin + batch_size]])
    rng.shuffle(batches)
    return [make_batch(batch) for batch in batches]


def ordered_batches(rows, batch_size, make_batch):
    return [make_batch(rows[start:start + batch_size])
            for start in range(0, len(rows), batch_size)]


@torch.no_grad()
def predict(reference, params, batches):
    """Per example, in batch order: whether the prediction is right."""
    right = []
    for inputs, labels in batches:
        predicted = reference.logits(params, inputs).argmax(-1)
        right += (predicted == labels).tolist()
    return right


def evaluate(reference, params, batches):
    right = predict(reference, params, batches)
    return sum(right) / len(right) if right else float("nan")


def score_test(reference, params, rows, batch_size, make_batch, task):
    """A test file's accuracy, n, majority-class share and, for logic,
    accuracy by operator count."""
    right = predict(reference, params,
                    ordered_batches(rows, batch_size, make_batch))
    labels = [label for _, label in rows]
    result = {"accuracy": sum(right) / len(right), "n": len(right),
              "majority": max(labels.count(c) for c in set(labels)) / len(labels)}
    if task == "logic":
        by_count = {}
        for (sides, _), ok in zip(rows, right):
            by_count.setdefault(operator_count(sides), []).append(ok)
        result["by_operator_count"] = {
            str(count): {"accuracy": sum(oks) / len(oks), "n": len(oks)}
            for count, oks in sorted(by_count.items())}
    return result


def run_identity(args):
    """What a checkpoint must match to be resumed by this run."""
    inputs = hashlib.sha256()
    for path in (args.config, args.params, args.train, args.dev):
        with open(path, "rb") as f:
            inputs.update(hashlib.sha256(f.read()).digest())
    return {"model": args.model, "seed": args.seed,
            "no_noise": args.no_noise, "inputs_sha256": inputs.hexdigest()}


@dataclasses.dataclass
class Progress:
    """The training loop's bookkeeping: with the parameters, the optimiser's
    state and torch's generator, what a checkpoint holds."""
    best: float = -math.inf
    best_step: int = -1
    bad_evals: int = 0
    best_params: list = None
    step: int = 0
    epoch: int = 0
    loss_sum: float = 0.0  # since the last training record
    norm_sum: float = 0.0
    logged: int = 0
    stop_reason: str = "epochs"
    stop: bool = False
    history: list = dataclasses.field(default_factory=list)  # the records
    resumed_after: list = dataclasses.field(default_factory=list)
    elapsed_s: float = 0.0


def save_checkpoint(path, identity, plist, inner, optimiser, plateau,
                    progress):
    """torch.save to a temporary file, then an atomic rename: a kill at any
    point leaves the previous checkpoint or the new one."""
    state = {"identity": identity, "params": [p.detach() for p in plist],
             "inner": inner.state_dict(), "slow": optimiser.slow,
             "fast_steps": optimiser.fast_steps,
             "plateau": plateau.state_dict(),
             "torch_rng": torch.get_rng_state()}
    state.update({field.name: getattr(progress, field.name)
                  for field in dataclasses.fields(Progress)})
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def restore_checkpoint(path, identity, plist, inner, optimiser, plateau):
    """The state save_checkpoint wrote, put back; returns its Progress."""
    state = torch.load(path)
    if state.get("identity") != identity:
        sys.exit(f"{path}: checkpoint of another run ({state.get('identity')}); "
                 f"this run is {identity}: remove it or pass another "
                 f"--checkpoint")
    with torch.no_grad():
        for p, saved in zip(plist, state["params"]):
            p.copy_(saved)
    inner.load_state_dict(state["inner"])
    optimiser.slow, optimiser.fast_steps = state["slow"], state["fast_steps"]
    plateau.load_state_dict(state["plateau"])
    torch.set_rng_state(state["torch_rng"])
    return Progress(**{field.name: state[field.name]
                       for field in dataclasses.fields(Progress)})


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--model", default="bbt_grc",
                        help="bench/reference module (needs logits() and "
                             "loss() with training=)")
    parser.add_argument("--config", required=True, help="models/<name>.json")
    parser.add_argument("--params", required=True,
                        help="rvnn-run dump-grads JSON (initial parameters)")
    parser.add_argument("--train", required=True)
    parser.add_argument("--dev", required=True)
    parser.add_argument("--test", nargs="+", default=[],
                        help="files to score after training (best parameters)")
    parser.add_argument("--metrics", required=True, help="JSON-lines output")
    parser.add_argument("--results", help="summary JSON output")
    parser.add_argument("--seed", type=int, default=1,
                        help="batch order and dropout")
    parser.add_argument("--epochs", type=int, default=0,
                        help="epochs at most (0: config)")
    parser.add_argument("--max-steps", type=int, default=0,
                        help="optimiser steps at most (0: config)")
    parser.add_argument("--log-every", type=int, default=-1,
                        help="steps between training records (-1: config's "
                             "log_every, else rvnn's default 50)")
    parser.add_argument("--no-noise", action="store_true",
                        help="no Gumbel noise in the training-mode top-ks "
                             "(references whose loss takes noise=)")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads (0: torch's default)")
    parser.add_argument("--checkpoint",
                        help="training state after every evaluation; resumed "
                             "from when the file exists")
    args = parser.parse_args()

    with open(args.config) as f:
        config = json.load(f)
    task = config.get("task", "listops")
    if task not in TASKS:
        sys.exit(f"{args.config}: task {task!r} is not supported "
                 f"(expected one of {', '.join(TASKS)})")
    read_rows, make_batch, row_length = TASKS[task]
    training = config["training"]
    if training.get("optimiser") != "radam_lookahead":
        sys.exit("only the radam_lookahead optimiser is implemented")
    batch_size = config["batch_size"]
    lr = training.get("lr", 1e-3)
    weight_decay = training.get("weight_decay", 0.0)
    betas = tuple(training.get("betas", (0.9, 0.999)))
    eps = training.get("eps", 1e-8)
    k = training.get("lookahead_k", 5)
    alpha = training.get("lookahead_alpha", 0.8)
    clip = training.get("clip", 1.0)
    epochs = args.epochs or training.get("epochs", 100)
    max_steps = args.max_steps or training.get("max_steps", 0)
    patience = training.get("patience", 4)
    log_every = (args.log_every if args.log_every >= 0
                 else training.get("log_every", 50))
    schedule = {"mode": "max", "factor": 0.5, "patience": 2,
                "threshold": 1e-4, "threshold_mode": "rel", "cooldown": 0,
                "min_lr": 0.0}
    schedule.update(training.get("lr_schedule", {}))

    # Dropout rates: the run configuration's hyperparameters (the model's
    # own rates are compiled into rvnn's model; the two must agree).
    dropout = config_dropout(config.get("hyperparameters", {}))

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    batch_rng_seed = args.seed * 1000003

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "reference"))
    reference = importlib.import_module(args.model)
    mode = {"training": True, "dropout": dropout}
    if args.no_noise and "noise" in inspect.signature(reference.loss).parameters:
        mode["noise"] = False

    with open(args.params) as f:
        dump = json.load(f)
    names = list(dump["params"])
    params = {name: torch.tensor(entry["values"], dtype=torch.float32)
              .reshape(entry["shape"]).requires_grad_()
              for name, entry in dump["params"].items()}
    plist = [params[name] for name in names]

    train_rows = read_rows(args.train)
    dev_batches = ordered_batches(read_rows(args.dev), batch_size, make_batch)

    inner = torch.optim.RAdam(plist, lr=lr, betas=betas, eps=eps,
                              weight_decay=weight_decay)
    optimiser = Lookahead(inner, plist, k, alpha)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(
        inner, mode=schedule["mode"], factor=schedule["factor"],
        patience=schedule["patience"], threshold=schedule["threshold"],
        threshold_mode=schedule["threshold_mode"],
        cooldown=schedule["cooldown"], min_lr=schedule["min_lr"])

    run = Progress()
    identity = run_identity(args) if args.checkpoint else None
    if args.checkpoint and os.path.exists(args.checkpoint):
        run = restore_checkpoint(args.checkpoint, identity, plist, inner,
                                 optimiser, plateau)
        run.resumed_after.append(run.epoch)
        print(f"resuming {args.checkpoint} after epoch {run.epoch}, step "
              f"{run.step}", file=sys.stderr)

    metrics = open(args.metrics, "w")
    for entry in run.history:
        metrics.write(json.dumps(entry) + "\n")
    metrics.flush()

    def record(entry):
        run.history.append(entry)
        metrics.write(json.dumps(entry) + "\n")
        metrics.flush()

    start, log_start = time.perf_counter() - run.elapsed_s, time.perf_counter()
    print(f"eager {args.model}: {len(train_rows)} training examples, "
          f"{torch.get_num_threads()} thread(s), dropout {dropout}"
          f"{', no Gumbel noise' if mode.get('noise') is False else ''}",
          file=sys.stderr)
    while not run.stop and run.epoch < epochs:
        if max_steps and run.step >= max_steps:
            run.stop_reason = "max_steps"
            break
        batches = bucketed_batches(train_rows, batch_size,
                                   random.Random(batch_rng_seed + run.epoch),
                                   make_batch, row_length)
        for inputs, labels in batches:
            if max_steps and run.step >= max_steps:
                run.stop, run.stop_reason = True, "max_steps"
                break
            for p in plist:
                p.grad = None
            loss = reference.loss(params, inputs, labels, **mode)
            value = loss.item()
            if not math.isfinite(value):
                sys.exit(f"training loss is {value} at epoch {run.epoch + 1}, "
                         f"step {run.step + 1}")
            loss.backward()
            if clip > 0:
                run.norm_sum += clip_grad_norm(plist, clip)
            optimiser.step()
            run.step += 1
            run.loss_sum += value
            run.logged += 1
            if log_every > 0 and run.step % log_every == 0:
                now = time.perf_counter()
                entry = {"type": "train", "epoch": run.epoch, "step": run.step,
                         "loss": run.loss_sum / run.logged,
                         "lr": inner.param_groups[0]["lr"],
                         "steps_per_s": run.logged / (now - log_start),
                         "elapsed_s": now - start}
                if clip > 0:
                    entry["grad_norm"] = run.norm_sum / run.logged
                record(entry)
                if run.step % max(log_every, 50) == 0:
                    print(f"epoch {run.epoch + 1} step {run.step}: loss "
                          f"{entry['loss']:.5g}, {entry['steps_per_s']:.3g} "
                          f"steps/s", file=sys.stderr)
                run.loss_sum = run.norm_sum = 0.0
                run.logged = 0
                log_start = time.perf_counter()
        if run.stop:
            break
        finished = run.epoch
        run.epoch += 1
        accuracy = evaluate(reference, params, dev_batches)
        plateau.step(accuracy)
        improved = accuracy > run.best
        if improved:
            run.best, run.best_step, run.bad_evals = accuracy, run.step, 0
            run.best_params = [p.detach().clone() for p in plist]
        else:
            run.bad_evals += 1
        record({"type": "eval", "epoch": finished, "step": run.step,
                "dev": {"accuracy": accuracy,
                        "n": sum(l.numel() for _, l in dev_batches)},
                "improved": improved, "best": run.best,
                "bad_evals": run.bad_evals, "lr": inner.param_groups[0]["lr"],
                "elapsed_s": time.perf_counter() - start})
        print(f"eval epoch {finished + 1} step {run.step}: dev accuracy "
              f"{accuracy:.4g} (best {run.best:.4g} at step {run.best_step}), "
              f"lr {inner.param_groups[0]['lr']:.3g}", file=sys.stderr)
        if run.bad_evals >= patience:
            run.stop, run.stop_reason = True, "early_stopping"
        if args.checkpoint:
            run.elapsed_s = time.perf_counter() - start
            save_checkpoint(args.checkpoint, identity, plist, inner,
                            optimiser, plateau, run)
    wall = time.perf_counter() - start
    metrics.close()

    if run.best_params is not None:
        with torch.no_grad():
            for p, saved in zip(plist, run.best_params):
                p.copy_(saved)
    final = evaluate(reference, params, dev_batches)
    print(f"trained {run.step} steps, {run.epoch} epochs (stopped: "
          f"{run.stop_reason}); dev accuracy {100 * final:.2f}%",
          file=sys.stderr)
    tests = {}
    for path in args.test:
        tests[os.path.basename(path)] = score_test(
            reference, params, read_rows(path), batch_size, make_batch, task)
        print(f"{os.path.basename(path)}: accuracy "
              f"{100 * tests[os.path.basename(path)]['accuracy']:.2f}%",
              file=sys.stderr)
    if args.results:
        with open(args.results, "w") as f:
            json.dump({"steps": run.step, "epochs": run.epoch,
                       "stop_reason": run.stop_reason,
                       "best_dev_accuracy": run.best,
                       "best_step": run.best_step,
                       "dev_accuracy": final, "wall_s": wall,
                       "tests": tests,
                       "resumed_after_epochs": run.resumed_after,
                       "threads": torch.get_num_threads(),
                       "torch": torch.__version__}, f, indent=2)
            f.write("\n")
    return 0

if __name__ == "__main__":
    sys.exit(main())
