#!/usr/bin/env python3
"""Crash-safety test for `rvnn-run train` (test/Runtime/kill-resume.test).

Trains a reference run without interruption, then the same run again while
killing it with SIGKILL over and over: at random steps, during start-up, and
(through the test-only hook RVNN_TEST_KILL_ATOMIC_WRITE, see
lib/Runtime/Train/AtomicFile.cpp) in the middle of a checkpoint write, before
its rename and before its directory fsync. After every kill, last.pt and
best.pt (once written) must load, and the run continues with --resume. The
finished run must equal the reference bit for bit: last.pt's latest and best
parameters, best.pt's parameters (compared as `rvnn-run export` files),
results.json and the evaluation records of metrics.jsonl.

Every random choice comes from --seed (printed, random when not given), so a
failure replays with the printed command line; kill times measured in steps
replay exactly, those within a step nearly.
"""

import argparse
import hashlib
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time

STAGES = ["write", "rename", "dirsync"]


class Failure(Exception):
    pass


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise Failure("command failed (%d): %s\n%s%s" % (
            result.returncode, " ".join(map(shlex.quote, cmd)), result.stdout,
            result.stderr))
    return result


class Harness:
    def __init__(self, args):
        self.args = args
        self.tool = args.tool
        self.work = args.work
        self.config = os.path.join(self.work, "config.json")
        self.train = os.path.join(self.work, "train.tsv")
        self.dev = os.path.join(self.work, "dev.tsv")
        # Exports by the SHA-256 of the checkpoint and --latest: a kill often
        # leaves best.pt (or, killed early, last.pt too) as the last check
        # loaded it, and the same bytes load the same way again.
        self.exported = {}

    def prepare(self):
        os.makedirs(self.work, exist_ok=True)
        run([self.tool, "gen", "listops", "--count", "24", "--seed", "3",
             "--max-length", "10", "--output", self.train])
        run([self.tool, "gen", "listops", "--count", "8", "--seed", "4",
             "--max-length", "10", "--output", self.dev])
        with open(self.args.config) as f:
            config = json.load(f)
        # Small batches, a checkpoint after every step, frequent evaluations
        # (ReduceLROnPlateau and best.pt change along the way) and no early
        # stop before --max-steps.
        config["batch_size"] = 4
        config["training"].update({
            "checkpoint_every": 1, "log_every": 1, "eval_every": 4,
            "patience": 1000, "epochs": 1000})
        with open(self.config, "w") as f:
            json.dump(config, f)

    def train_cmd(self, out, resume):
        cmd = [self.tool, "train", "--config", self.config, "--model",
               self.args.model, "--train", self.train, "--dev", self.dev,
               "--test", self.dev, "--out", out, "--max-steps",
               str(self.args.steps)]
        return cmd + (["--resume"] if resume else ["--overwrite"])

    def export(self, checkpoint, latest, output):
        cmd = [self.tool, "export", "--checkpoint", checkpoint, "--format",
               "torch", "--output", output]
        run(cmd + (["--latest"] if latest else []))
        with open(output, "rb") as f:
            return f.read()

    def load_checks(self, out, tag, complete=False):
        """Exports last.pt's latest parameters and best.pt's, which reads and
        checks every parameter, and with `complete` last.pt's best ones too;
        returns the exported bytes by name. Without `complete`, a checkpoint
        byte for byte the same as one exported before is not exported again
        (its export is returned)."""
        files = {}
        for name, checkpoint, latest in [
                ("last-latest", "last.pt", True), ("last-best", "last.pt", False),
                ("best", "best.pt", False)]:
            if name == "last-best" and not complete:
                continue
            path = os.path.join(out, checkpoint)
            if not os.path.exists(path):
                continue
            if complete:
                # The final comparison's exports run whatever came before.
                files[name] = self.export(
                    path, latest,
                    os.path.join(self.work, "%s-%s.pt" % (tag, name)))
                continue
            with open(path, "rb") as f:
                key = (hashlib.sha256(f.read()).hexdigest(), latest)
            if key not in self.exported:
                self.exported[key] = self.export(
                    path, latest,
                    os.path.join(self.work, "%s-%s.pt" % (tag, name)))
            files[name] = self.exported[key]
        return files


def max_step(log_path):
    with open(log_path, errors="replace") as f:
        steps = [int(m) for m in re.findall(r"step (\d+):", f.read())]
    return max(steps) if steps else None


def interrupt(h, rng, out, index):
    """Starts the run (resumed when last.pt exists), kills it as the seeded
    generator says, and returns a description of the kill."""
    resume = os.path.exists(os.path.join(out, "last.pt"))
    env = dict(os.environ)
    env.pop("RVNN_TEST_KILL_ATOMIC_WRITE", None)
    roll = rng.random()
    if roll < 0.4:
        # The n-th atomic write of the process: 1 is the metrics file, then
        # checkpoints (best.pt before last.pt at an improving evaluation).
        writer, stage = rng.randint(1, 6), rng.choice(STAGES)
        env["RVNN_TEST_KILL_ATOMIC_WRITE"] = "%d:%s" % (writer, stage)
        mode = "hook: atomic write %d at '%s'" % (writer, stage)
    elif roll < 0.55:
        delay = rng.uniform(0.0, 0.4)
        mode = "start-up: %.3f s after launch" % delay
    else:
        extra_steps, delay = rng.randint(0, 3), rng.uniform(0.0, 0.05)
        mode = "%d step(s) after its first, then %.3f s" % (extra_steps, delay)
    log_path = os.path.join(h.work, "interruption-%02d.log" % index)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(h.train_cmd(out, resume), stdout=log,
                                stderr=subprocess.STDOUT, env=env)
        start = time.monotonic()
        if mode.startswith("start-up"):
            time.sleep(delay)
            proc.kill()
        elif not mode.startswith("hook"):
            first = None
            while proc.poll() is None:
                if time.monotonic() - start > 120:
                    proc.kill()
                    raise Failure("run %d made no progress in 120 s" % index)
                step = max_step(log_path)
                if first is None:
                    first = step
                elif step is not None and step >= first + extra_steps:
                    time.sleep(delay)
                    proc.kill()
                    break
                time.sleep(0.002)
        code = proc.wait()
    with open(log_path, errors="replace") as f:
        log_text = f.read()
    if code != -signal.SIGKILL:
        raise Failure("run %d (%s) was not killed but exited with %d "
                      "(a finished run: raise --steps):\n%s" %
                      (index, mode, code, log_text))
    resumed = re.search(r"resumed from .* at epoch \d+, step (\d+)", log_text)
    reached = max_step(log_path)
    return "%s%s; killed %s" % (
        ("--resume" + (" at step %s" % resumed.group(1) if resumed else ""))
        if resume else "fresh",
        ", logged up to step %d" % reached if reached is not None else "",
        mode)


def metrics(out):
    records = []
    with open(os.path.join(out, "metrics.jsonl")) as f:
        for number, line in enumerate(f, 1):
            try:
                records.append(json.loads(line))
            except ValueError:
                raise Failure("%s/metrics.jsonl:%d is not JSON: %r" %
                              (out, number, line))
    return records


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", required=True, help="rvnn-run")
    parser.add_argument("--model", required=True, help="compiled model dir")
    parser.add_argument("--config", required=True, help="run configuration")
    parser.add_argument("--work", required=True, help="scratch directory")
    parser.add_argument("--seed", type=int,
                        default=random.SystemRandom().randrange(1 << 31))
    parser.add_argument("--interruptions", type=int, default=20)
    parser.add_argument("--steps", type=int, default=120,
                        help="training steps; more than an interruption's "
                        "progress (at most 5 steps) times --interruptions")
    args = parser.parse_args()
    replay = " ".join(map(shlex.quote, [sys.executable] + sys.argv +
                          ["--seed", str(args.seed)]))
    print("kill-resume seed %d" % args.seed, flush=True)
    rng = random.Random(args.seed)
    h = Harness(args)
    try:
        h.prepare()
        reference = os.path.join(h.work, "reference")
        started = time.monotonic()
        run(h.train_cmd(reference, resume=False))
        print("reference run: %.1f s" % (time.monotonic() - started),
              flush=True)
        expected = h.load_checks(reference, "reference", complete=True)

        out = os.path.join(h.work, "interrupted")
        had_last = False
        for index in range(1, args.interruptions + 1):
            what = interrupt(h, rng, out, index)
            loaded = h.load_checks(out, "check")
            if had_last and "last-latest" not in loaded:
                raise Failure("last.pt disappeared after interruption %d" %
                              index)
            had_last = had_last or "last-latest" in loaded
            print("interruption %2d: %s; %s" % (
                index, what,
                "last.pt and best.pt load" if "best" in loaded else
                "last.pt loads" if had_last else "no checkpoint yet"),
                flush=True)
        final = run(h.train_cmd(out, resume=had_last))
        print("final run: " + final.stdout.splitlines()[0], flush=True)

        got = h.load_checks(out, "interrupted", complete=True)
        for name in sorted(expected):
            if got.get(name) != expected[name]:
                raise Failure("%s differs from the uninterrupted run's" % name)
        for name in ["results.json"]:
            with open(os.path.join(reference, name)) as a, \
                    open(os.path.join(out, name)) as b:
                if a.read() != b.read():
                    raise Failure(name + " differs from the uninterrupted "
                                  "run's")
        ref_records, records = metrics(reference), metrics(out)
        evals = [r for r in records if r["type"] == "eval"]
        if evals != [r for r in ref_records if r["type"] == "eval"]:
            raise Failure("metrics.jsonl's evaluation records differ")
        steps = [(r["epoch"], r["step"]) for r in records
                 if r["type"] == "train"]
        if steps != [(r["epoch"], r["step"]) for r in ref_records
                     if r["type"] == "train"]:
            raise Failure("metrics.jsonl's training records are not one per "
                          "step, in order")
    except Failure as failure:
        print("FAIL: %s\nreplay: %s" % (failure, replay))
        return 1
    print("PASS: %d interruptions, then identical to the uninterrupted run "
          "(%s, results.json, %d evaluations)" % (
              args.interruptions, ", ".join(sorted(expected)), len(evals)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
