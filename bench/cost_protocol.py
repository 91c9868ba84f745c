#!/usr/bin/python3
"""The RIR paper's cost protocol (Table 1, model-specs §10) on the CPU:
rvnn and the eager PyTorch references in the same run.

    bench/cost_protocol.py [MODEL ...]     # default: the eight tree models

For each model and length bucket (ListOps, tokens without round brackets):
N samples of lengths inside the bucket (`rvnn-run gen listops`), batch 1,
one training epoch over them: per sample forward, backward, clipping and
optimiser step (the config's optimiser), the forward in training mode. Two
implementations, each a fresh process that runs only that cell, both from
the same initial weights (`rvnn-run dump-grads --seed`):
  rvnn   rvnn-run bench --data BUCKET --batch-sizes 1 (generated kernels,
         dropout on)
  eager  bench/eager_step.py --training (bench/reference/<model>.py in
         float32 with dropout where the reference has a training mode;
         otherwise its evaluation mode, i.e. without dropout, marked "eval")
taking turns (rvnn first in even cells, eager first in odd ones). Each
process does WARMUP untimed steps (default 1, on the epoch's first sample)
and then the epoch: N timed steps, one per sample. Reported per cell and
implementation: seconds per sample (median and mean = total / N), the
epoch's total, minutes per 100 samples (the paper's unit: mean x 100 / 60),
and the process's peak resident set (ru_maxrss from wait4: the whole
process, start-up included), beside the authors' RTX A6000 minutes and GB
(model-specs §10).

Every process runs under bench/memcap.py: above RVNN_BENCH_MEM_GB GiB
resident (default 20; 0: no cap) it is killed and the cell reads "out of
memory"; after TIMEOUT seconds (default 1800) it is killed and the cell
reads "timeout"; larger buckets of that implementation are then not run and
read the same ("not_run" in the JSON). The run goes on and exits 0.

Settings (environment): MODELS (when no argument is given), BUCKETS
("200-250 500-600 900-1000 1500-2000"), N (3), WARMUP (1), TIMEOUT (1800),
RVNN_ARGS (more `rvnn-run bench` options, e.g. "--recompute recompute";
default none), DEVICE (cpu; cuda runs both on the GPU and reports each
cell's peak device memory, torch.cuda.max_memory_allocated and rvnn's
equal, instead of the RSS), COMPILED (a directory of compiled models,
COMPILED/<model>, for a machine without the compiler; default: compile), IMPLS ("rvnn eager"), each also per model as NAME_<model>
(e.g. N_bt_grc=1), RVNN_BENCH_MEM_GB (20), THREADS (1; also
OPENBLAS_NUM_THREADS), SEED (1), BUILD (build), PYTHON (/usr/bin/python3, with
python3-torch), OUT (bench/results/<date>-cost-protocol-cpu.json; the
markdown table is also written next to it as .md).
"""
import datetime
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREE_MODELS = ("bbt_grc", "bkt_grc", "bt_grc", "bt_grc_onesoft", "ebt_grc",
               "crvnn", "rir_grc", "rir_ebt_grc")
PAPER_BUCKETS = ("200-250", "500-600", "900-1000", "1500-2000")
# model-specs §10 (RIR paper Table 1, RTX A6000, 100 samples, batch 1, one
# epoch): minutes and GB (torch.cuda.max_memory_allocated) per bucket;
# None: out of memory there.
PUBLISHED = {
    "crvnn": ("CRvNN (no halt)", [(1.5, 1.57), (4.3, 12.2), (8.0, 42.79), None]),
    "bt_grc": ("BT-GRC", [(1.1, 1.71), (2.6, 9.82), (5.1, 27.27), None]),
    "bt_grc_onesoft": ("BT-GRC OneSoft",
                       [(1.4, 2.74), (4.0, 15.5), (7.1, 42.95), None]),
    "ebt_grc": ("EBT-GRC", [(1.2, 0.19), (3.2, 1.01), (5.5, 2.78), (10.5, 10.97)]),
    "rir_ebt_grc": ("RIR-EBT-GRC",
                    [(0.1, 0.07), (0.2, 0.14), (0.3, 0.23), (0.3, 0.43)]),
    "bbt_grc": ("BBT-GRC", [(0.02, 0.02), (0.02, 0.02), (0.03, 0.02), (0.03, 0.04)]),
    # The paper's RIR-EBT-GRC has the S4D pre-chunk layer ("-S4D" is an
    # ablation), so its Table 1 row stands beside both of rvnn's variants.
    "rir_ebt_grc_s4d": ("RIR-EBT-GRC",
                        [(0.1, 0.07), (0.2, 0.14), (0.3, 0.23), (0.3, 0.43)]),
}
OOM, TIMEOUT = "out of memory", "timeout"
PER_MODEL = ("BUCKETS", "N", "WARMUP", "TIMEOUT", "RVNN_ARGS", "IMPLS")
MEMCAP_OOM = 99  # memcap.py's status when it killed the command


def env(name, default, model=None):
    """NAME_<model> if set, else NAME, else default."""
    if model and f"{name}_{model}" in os.environ:
        return os.environ[f"{name}_{model}"]
    return os.environ.get(name, default)


def published(model, bucket):
    """(minutes, GB), OOM, or None where the paper has no figure."""
    if model not in PUBLISHED or bucket not in PAPER_BUCKETS:
        return None
    cell = PUBLISHED[model][1][PAPER_BUCKETS.index(bucket)]
    return {"minutes": cell[0], "gb": cell[1],
            "s_per_sample": cell[0] * 60 / 100} if cell else OOM


def parse_bucket(text):
    low, _, high = text.partition("-")
    if not (low.isdigit() and high.isdigit() and 0 < int(low) <= int(high)):
        sys.exit(f"cost_protocol.py: bucket '{text}' is not LOW-HIGH tokens")
    return int(low), int(high)


def run_capped(cmd, log, cap, timeout):
    """Runs cmd under memcap.py; returns (status, peak RSS MiB, seconds),
    status "ok", OOM, TIMEOUT or "failed (exit N)"."""
    start = time.monotonic()
    with open(log, "w") as out:
        child = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "bench", "memcap.py"),
             "--limit-gib", cap, "--", *cmd],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = False
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > timeout:
            # memcap and the command share its new process group.
            os.killpg(child.pid, signal.SIGKILL)
            _, status, usage = os.wait4(child.pid, 0)
            timed_out = True
            break
        time.sleep(0.1)
    child.returncode = code = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    peak = usage.ru_maxrss / 1024  # KiB: memcap and its waited-for command
    if timed_out:
        return TIMEOUT, peak, seconds
    if code in (MEMCAP_OOM, 137, -9):
        return OOM, peak, seconds
    return ("ok" if code == 0 else f"failed (exit {code})"), peak, seconds


def check(cmd, log):
    with open(log, "a") as out:
        if subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode:
            with open(log) as f:
                sys.exit(f"cost_protocol.py: {' '.join(cmd[:2])} failed:\n"
                         + "".join(f.readlines()[-5:]))


def summarise(tool_json, n):
    with open(tool_json) as f:
        result = json.load(f)
    cell = result["results"][0]
    steps = [ms / 1e3 for ms in cell["step_ms"]]
    return {"forward_mode": result["forward_mode"],
            "lengths": f"{cell['min_length']}-{cell['max_length']}",
            "samples": n, "step_s": steps,
            "median_s": statistics.median(steps),
            "mean_s": sum(steps) / len(steps), "total_s": sum(steps),
            "minutes_per_100": sum(steps) / len(steps) * 100 / 60,
            "tool_peak_rss_mib": cell["peak_rss_mib"],
            **({"peak_device_mib": cell["peak_device_mib"]}
               if "peak_device_mib" in cell else {}),
            "first_loss": cell["first_loss"]}


def fmt_impl(r):
    if r is None:
        return "-", "-"
    if r["result"] != "ok":
        return r["result"], "-"
    mode = "" if r["forward_mode"] == "train" else " (eval)"
    args = f" ({' '.join(r['rvnn_args'])})" if r.get("rvnn_args") else ""
    return (f"{r['median_s']:.3g} / {r['mean_s']:.3g}{mode}{args}",
            f"{r.get('peak_device_mib', r['peak_rss_mib']):.0f}")


def table(result):
    lines = [
        "| model | bucket | N | lengths | rvnn s/sample median / mean | rvnn peak MiB "
        "| eager s/sample median / mean | eager peak MiB | eager / rvnn "
        "| paper GPU min per 100 (s/sample), GB |",
        "|---|---|---|---|---|---|---|---|---|---|"]
    for model, cells in result["models"].items():
        for c in cells:
            r, e = c["impls"].get("rvnn"), c["impls"].get("eager")
            ratio = (f"{e['mean_s'] / r['mean_s']:.2f}"
                     if r and e and r["result"] == e["result"] == "ok" else "-")
            lengths = next((i["lengths"] for i in (r, e)
                            if i and i["result"] == "ok"), "-")
            p = c["published"]
            paper = ("OOM" if p == OOM else "-" if p is None else
                     f"{p['minutes']:g} ({p['s_per_sample']:.2g}), {p['gb']:g}")
            lines.append(f"| {model} | {c['bucket']} | {c['samples']} | {lengths} | "
                         + " | ".join(fmt_impl(r)) + " | "
                         + " | ".join(fmt_impl(e)) + f" | {ratio} | {paper} |")
    return "\n".join(lines)


def write(result, out, started):
    """Writes the JSON and the markdown table next to it; returns the table."""
    result["machine"]["load_after"] = open("/proc/loadavg").read().split()[:3]
    result["elapsed_s"] = round(time.monotonic() - started)
    markdown = table(result)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    with open(os.path.splitext(out)[0] + ".md", "w") as f:
        f.write(markdown + "\n")
    return markdown


def main():
    models = sys.argv[1:] or env("MODELS", " ".join(TREE_MODELS)).split()
    if any(m.startswith("-") for m in models):
        print(__doc__)
        return 0 if models[0] in ("-h", "--help") else 2
    build = env("BUILD", os.path.join(ROOT, "build"))
    rvnn = os.path.join(build, "bin", "rvnn-run")
    python = env("PYTHON", "/usr/bin/python3")
    cap = env("RVNN_BENCH_MEM_GB", "20")
    threads, seed = env("THREADS", "1"), env("SEED", "1")
    device, compiled = env("DEVICE", "cpu"), env("COMPILED", "")
    out = env("OUT", os.path.join(
        ROOT, "bench", "results",
        f"{datetime.date.today().isoformat()}-cost-protocol-"
        f"{device.split(':')[0]}.json"))
    if not os.access(rvnn, os.X_OK):
        sys.exit(f"cost_protocol.py: {rvnn} not built (ninja -C {build} rvnn-run)")
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = threads

    work = tempfile.mkdtemp(prefix="rvnn-cost-")
    load_before = open("/proc/loadavg").read().split()[:3]
    started = time.monotonic()
    result = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "git": subprocess.run(["git", "-C", ROOT, "describe", "--always",
                               "--dirty"], capture_output=True,
                              text=True).stdout.strip() or "unknown",
        "machine": {"cpu": next((line.split(":", 1)[1].strip() for line in
                                 open("/proc/cpuinfo")
                                 if line.startswith("model name")),
                                platform.machine()),
                    "cores": os.cpu_count(), "os": platform.platform(),
                    **({"gpu": subprocess.run(
                        ["nvidia-smi", "--query-gpu=name,driver_version",
                         "--format=csv,noheader"], capture_output=True,
                        text=True).stdout.strip()} if device != "cpu" else {}),
                    "load_before": load_before},
        "settings": {"samples": env("N", "3"), "warmup": env("WARMUP", "1"),
                     "timeout_s": env("TIMEOUT", "1800"),
                     "rvnn_args": env("RVNN_ARGS", ""),
                     "per_model": {f"{k}_{m}": os.environ[f"{k}_{m}"]
                                   for m in models for k in PER_MODEL
                                   if f"{k}_{m}" in os.environ},
                     "batch_size": 1, "threads": int(threads),
                     "seed": int(seed), "memory_cap_gib": float(cap) or None,
                     "dtype": "float32",
                     "rvnn": "rvnn-run bench (generated kernels, training "
                             "mode: dropout on)",
                     "eager": "bench/eager_step.py --training where the "
                              "reference has a training mode, else its "
                              "evaluation mode (forward_mode eval)",
                     "device": device,
                     "peak_rss": "ru_maxrss of the cell's process (wait4)",
                     "peak_device": "on a GPU: the tools' peak_device_mib "
                                    "(caching allocator, allocated bytes), "
                                    "shown in the table instead of the RSS",
                     "published": "model-specs §10, RTX A6000, 100 samples"},
        "models": {}}
    cell_index = 0
    for model in models:
        config = os.path.join(ROOT, "models", f"{model}.json")
        if not os.path.exists(config):
            sys.exit(f"cost_protocol.py: no models/{model}.json")
        with open(config) as f:
            if json.load(f).get("task", "listops") != "listops":
                sys.exit(f"cost_protocol.py: {model} is not a ListOps model")
        mdir = os.path.join(work, model)
        os.makedirs(mdir)
        log = os.path.join(mdir, "log")
        tiny = os.path.join(mdir, "tiny.tsv")
        model_dir = os.path.join(mdir, "model")
        if compiled:
            model_dir = os.path.join(compiled, model)
        else:
            check([rvnn, "compile", os.path.join(ROOT, "models",
                                                 f"{model}.mlir"),
                   "-o", model_dir], log)
        # The initial weights (and the first pass's draw seed) do not depend
        # on the data: dump them from one short sample.
        check([rvnn, "gen", "listops", "--count", "1", "--min-length", "8",
               "--max-length", "12", "--seed", seed, "--output", tiny], log)
        check([rvnn, "dump-grads", "--config", config, "--model",
               model_dir, "--data", tiny, "--rows", "1",
               "--seed", seed, "--output", os.path.join(mdir, "params.json")],
              log)
        eager_training = subprocess.run(
            [python, "-c", "import inspect, importlib, sys; "
             "sys.path.insert(0, sys.argv[1]); "
             "m = importlib.import_module(sys.argv[2]); "
             "sys.exit('training' not in inspect.signature(m.loss).parameters)",
             os.path.join(ROOT, "bench", "reference"), model],
            capture_output=True).returncode == 0
        buckets = sorted(env("BUCKETS", " ".join(PAPER_BUCKETS), model).split(),
                         key=parse_bucket)
        n, warmup = int(env("N", "3", model)), int(env("WARMUP", "1", model))
        timeout = float(env("TIMEOUT", "1800", model))
        rvnn_args = env("RVNN_ARGS", "", model).split()
        impls = env("IMPLS", "rvnn eager", model).split()
        if n < 1 or not set(impls) <= {"rvnn", "eager"}:
            sys.exit("cost_protocol.py: N must be at least 1 and IMPLS "
                     "within 'rvnn eager'")
        stopped = {}  # impl -> why larger buckets are not run
        cells = []
        print(f"== {model}: buckets {' '.join(buckets)}, N {n}, warm-up "
              f"{warmup}, eager in "
              f"{'training' if eager_training else 'evaluation'} mode"
              + (f", rvnn-run bench {' '.join(rvnn_args)}" if rvnn_args else ""),
              flush=True)
        for bucket in buckets:
            low, high = parse_bucket(bucket)
            data = os.path.join(mdir, f"{bucket}.tsv")
            check([rvnn, "gen", "listops", "--count", str(n), "--min-length",
                   str(low), "--max-length", str(high), "--seed", seed,
                   "--output", data], log)
            common = ["--data", data, "--batch-sizes", "1", "--warmup",
                      str(warmup), "--steps", str(n), "--threads", threads,
                      "--seed", seed, "--device", device]
            cell = {"bucket": bucket, "samples": n, "warmup": warmup,
                    "impls": {},
                    "published": published(model, bucket)}
            order = impls if cell_index % 2 == 0 else impls[::-1]
            cell_index += 1
            for impl in order:
                if impl in stopped:
                    cell["impls"][impl] = {"result": stopped[impl][0],
                                           "not_run": stopped[impl][1]}
                    continue
                tool_json = os.path.join(mdir, f"{impl}-{bucket}.json")
                if impl == "rvnn":
                    cmd = [rvnn, "bench", "--config", config, "--model",
                           model_dir, *common, *rvnn_args]
                else:
                    cmd = [python, os.path.join(ROOT, "bench", "eager_step.py"),
                           "--model", model, "--config", config, "--params",
                           os.path.join(mdir, "params.json"), *common]
                    if eager_training:
                        cmd.append("--training")
                status, peak, seconds = run_capped(
                    cmd + ["--json", tool_json],
                    os.path.join(mdir, f"{impl}-{bucket}.log"), cap, timeout)
                entry = {"result": status, "peak_rss_mib": peak,
                         "process_s": seconds}
                if impl == "rvnn":
                    entry["rvnn_args"] = rvnn_args
                if status == "ok":
                    entry.update(summarise(tool_json, n))
                else:
                    with open(os.path.join(mdir, f"{impl}-{bucket}.log")) as f:
                        entry["log_tail"] = f.read()[-2000:]
                    if status in (OOM, TIMEOUT):
                        stopped[impl] = (status, f"{status} at {bucket}")
                cell["impls"][impl] = entry
                shown = (f"{entry['mean_s']:.3g} s/sample, {peak:.0f} MiB"
                         + (f", device {entry['peak_device_mib']:.0f} MiB"
                            if "peak_device_mib" in entry else "")
                         if status == "ok" else status)
                print(f"   {bucket} {impl}: {shown} "
                      f"({time.monotonic() - started:.0f} s)", flush=True)
            cells.append(cell)
            result["models"][model] = cells
            write(result, out, started)  # after every cell: a stopped run keeps them
    markdown = write(result, out, started)
    cap_text = f"memory cap {cap} GiB" if float(cap) else "no memory cap"
    print(f"\nCost protocol: batch 1, N samples per bucket (after "
          f"{env('WARMUP', '1')} warm-up step(s) unless set per model), "
          f"{threads} thread(s), {cap_text}, timeout {env('TIMEOUT', '1800')} "
          f"s per process; s/sample of the training step on {device}, peak "
          f"{'device memory' if device != 'cpu' else 'RSS of the process'}; "
          f"(eval): the eager reference has no training mode. Load "
          f"{' '.join(load_before)} before, "
          f"{' '.join(result['machine']['load_after'])} after; "
          f"{result['elapsed_s']} s.\n")
    print(markdown)
    print(f"\nwrote {out}")
    subprocess.run(["rm", "-rf", work])
    return 0


if __name__ == "__main__":
    sys.exit(main())
