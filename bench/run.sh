#!/usr/bin/env bash
# CPU benchmark: rvnn-run bench against the eager PyTorch baseline
# (bench/eager_step.py), interleaved in one run. See bench/README.md.
#
#   bench/run.sh [MODEL ...]          # default: bbt_grc
#
# For each model, length bucket (ListOps, L..L+20 tokens, 100 samples) and
# batch size, ROUNDS rounds each run these fresh processes in rotating order:
#   rvnn          rvnn-run bench (forward in training mode: dropout on)
#   eager         bench/eager_step.py --training (float32 reference with
#                 dropout; only where bench/reference/<model>.py has a
#                 training mode)
#   rvnn-nodrop   rvnn-run bench --eval-forward (no dropout)
#   eager-nodrop  bench/eager_step.py (the reference without dropout: the
#                 same arithmetic as rvnn-nodrop; first losses must agree)
# and the step times of all rounds are pooled. Prints medians and the ratios
# rvnn/eager and rvnn-nodrop/eager-nodrop, and writes
# bench/results/<date>-cpu.json (OUT=... to change).
#
# Every measured process runs under bench/memcap.py, which kills it when its
# resident memory passes RVNN_BENCH_MEM_GB GiB (default 12; 0: no cap). Such
# a cell is reported as "out of memory" (ratio n/a) and the bench goes on;
# larger cells (length and batch no smaller) of that implementation are then
# not run but reported out of memory too.
#
# Settings (environment): LENGTHS ("100 200 500"), BATCHES ("1 32"),
# ROUNDS (3), THREADS (1; also sets OPENBLAS_NUM_THREADS), SMALL_STEPS and
# SMALL_WARMUP (15/2 per round, batches < 8), LARGE_STEPS and LARGE_WARMUP
# (3/1), BUILD (build), PYTHON (/usr/bin/python3, with python3-torch),
# RVNN_BENCH_MEM_GB (12).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
rvnn=$build/bin/rvnn-run
python=${PYTHON:-/usr/bin/python3}
lengths=${LENGTHS:-"100 200 500"}
batches=${BATCHES:-"1 32"}
rounds=${ROUNDS:-3}
threads=${THREADS:-1}
small_steps=${SMALL_STEPS:-15}
small_warmup=${SMALL_WARMUP:-2}
large_steps=${LARGE_STEPS:-3}
large_warmup=${LARGE_WARMUP:-1}
mem_gib=${RVNN_BENCH_MEM_GB:-12}
seed=1
# OpenBLAS (shared by LibTorch and python3-torch) runs its own thread pool,
# which --threads does not reach: pin it too, or "1 thread" means 2 in GEMMs.
export OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads
out=${OUT:-$root/bench/results/$(date +%F)-cpu.json}

[[ $mem_gib =~ ^[0-9]+([.][0-9]+)?$ ]] ||
  { echo "run.sh: RVNN_BENCH_MEM_GB=$mem_gib is not a number of GiB" >&2; exit 1; }
# Status of memcap.py when it killed the command for passing the cap.
memcap_oom=99
cap_text="memory cap $mem_gib GiB per process"
[[ $mem_gib =~ ^0*([.]0*)?$ ]] && cap_text="no memory cap"
capped=("$python" "$root/bench/memcap.py" --limit-gib "$mem_gib" --)

models=("$@")
[ ${#models[@]} -gt 0 ] || models=(bbt_grc)

[ -x "$rvnn" ] || { echo "run.sh: $rvnn not built (ninja -C $build rvnn-run)" >&2; exit 1; }
"$python" -c 'import torch' 2>/dev/null ||
  { echo "run.sh: $python cannot import torch (apt-get install python3-torch)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

for length in $lengths; do
  "$rvnn" gen listops --min-length "$length" --max-length $((length + 20)) \
    --count 100 --seed "$seed" --output "$work/listops-$length.tsv"
done

done_models=()
for model in "${models[@]}"; do
  config=$root/models/$model.json
  if [ ! -f "$root/models/$model.mlir" ] || [ ! -f "$config" ] ||
     [ ! -f "$root/bench/reference/$model.py" ]; then
    echo "run.sh: skipping $model (needs models/$model.mlir, models/$model.json and bench/reference/$model.py)" >&2
    continue
  fi
  mdir=$work/$model
  mkdir -p "$mdir/json"
  if ! "$rvnn" compile "$root/models/$model.mlir" -o "$mdir/model" >"$mdir/log" 2>&1 ||
     ! "$rvnn" dump-grads --config "$config" --model "$mdir/model" \
         --data "$work/listops-${lengths%% *}.tsv" --rows 1 --seed "$seed" \
         --output "$mdir/params.json" >>"$mdir/log" 2>&1; then
    echo "run.sh: skipping $model (compile or dump-grads failed):" >&2
    tail -5 "$mdir/log" >&2
    continue
  fi
  impls=(rvnn rvnn-nodrop eager-nodrop)
  if "$python" -c 'import inspect, sys; sys.path.insert(0, sys.argv[1])
import importlib; m = importlib.import_module(sys.argv[2])
sys.exit("training" not in inspect.signature(m.loss).parameters)' \
      "$root/bench/reference" "$model" 2>/dev/null; then
    impls=(rvnn eager rvnn-nodrop eager-nodrop)
  fi
  echo "== $model: ${rounds} rounds x (${impls[*]}), $threads thread(s), $cap_text"
  failed=0
  oom=()  # "impl length batch" of each cell that ran out of memory
  for length in $lengths; do
    data=$work/listops-$length.tsv
    for batch in $batches; do
      if [ "$batch" -lt 8 ]; then steps=$small_steps warmup=$small_warmup
      else steps=$large_steps warmup=$large_warmup; fi
      common=(--batch-sizes "$batch" --steps "$steps" --warmup "$warmup"
              --threads "$threads" --data "$data")
      for ((round = 0; round < rounds; ++round)); do
        for ((i = 0; i < ${#impls[@]}; ++i)); do
          impl=${impls[$(((i + round) % ${#impls[@]}))]}
          json=$mdir/json/$impl-$length-$batch-$round.json
          # Out of memory in an earlier round of this cell, or in a cell
          # no larger: do not run it (again).
          skip=
          for entry in ${oom[@]+"${oom[@]}"}; do
            read -r o_impl o_length o_batch <<<"$entry"
            if [ "$o_impl" = "$impl" ] && [ "$o_length" -le "$length" ] &&
               [ "$o_batch" -le "$batch" ]; then
              skip="$o_length $o_batch"
              [ "$skip" = "$length $batch" ] && break
            fi
          done
          if [ -n "$skip" ]; then
            if [ "$skip" != "$length $batch" ]; then
              printf '{"out_of_memory": true, "memory_cap_gib": %s, "not_run": "out of memory at length %s batch %s"}\n' \
                "$mem_gib" "${skip% *}" "${skip#* }" >"$json"
              oom+=("$impl $length $batch")
            fi
            continue
          fi
          case $impl in
            rvnn) cmd=("$rvnn" bench --config "$config" --model "$mdir/model"
                       --seed "$seed" "${common[@]}" --json "$json") ;;
            rvnn-nodrop) cmd=("$rvnn" bench --config "$config"
                              --model "$mdir/model" --seed "$seed"
                              --eval-forward "${common[@]}" --json "$json") ;;
            eager*) cmd=("$python" "$root/bench/eager_step.py" --model "$model"
                         --config "$config" --params "$mdir/params.json"
                         --seed "$seed" "${common[@]}" --json "$json")
                    [ "$impl" = eager ] && cmd+=(--training) ;;
          esac
          status=0
          "${capped[@]}" "${cmd[@]}" >"$mdir/last.log" 2>&1 || status=$?
          if [ "$status" = "$memcap_oom" ] || [ "$status" = 137 ]; then
            # 137: SIGKILL from elsewhere, in practice the kernel's OOM killer.
            by=cap
            [ "$status" = 137 ] && by=SIGKILL
            printf '{"out_of_memory": true, "memory_cap_gib": %s, "killed_by": "%s", "round": %d}\n' \
              "$mem_gib" "$by" "$round" >"$json"
            oom+=("$impl $length $batch")
            echo "run.sh: $model $impl out of memory (length $length, batch $batch, round $round):" >&2
            tail -1 "$mdir/last.log" >&2
          elif [ "$status" != 0 ]; then
            echo "run.sh: $model $impl failed (length $length, batch $batch):" >&2
            tail -5 "$mdir/last.log" >&2
            failed=1
            break 4
          fi
        done
      done
      cell_oom=
      for entry in ${oom[@]+"${oom[@]}"}; do
        [ "${entry#* }" = "$length $batch" ] && cell_oom+=" ${entry%% *}"
      done
      echo "   length $length batch $batch done ($(( $(date +%s) - start )) s)${cell_oom:+, out of memory:$cell_oom}"
    done
  done
  [ "$failed" = 0 ] && done_models+=("$model")
done

[ ${#done_models[@]} -gt 0 ] || { echo "run.sh: no model measured" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
"$python" - "$work" "$out" "$load_before" "$(( $(date +%s) - start ))" \
  "$threads" "$rounds" "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "$mem_gib" "${done_models[@]}" <<'EOF'
import glob, json, math, os, platform, sys
import torch

work, out, load_before, elapsed, threads, rounds, rev, mem_gib = sys.argv[1:9]
models = sys.argv[9:]
OOM = "out of memory"
cap = float(mem_gib) or None  # GiB; None: no cap
cap_text = (f"{OOM}: killed above the cap of {mem_gib} GiB per process"
            if cap else "no memory cap")

def pct(values, q):
    values = sorted(values)
    rank = q / 100 * (len(values) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(values) - 1)
    return values[low] + (rank - low) * (values[high] - values[low])

def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()

result = {
    "date": __import__("datetime").datetime.now().isoformat(timespec="seconds"),
    "git": rev,
    "machine": {"cpu": cpu_name(), "cores": os.cpu_count(),
                "os": platform.platform(), "torch_python": torch.__version__,
                "load_before": load_before,
                "load_after": open("/proc/loadavg").read().split()[:3]},
    "settings": {"threads": int(threads), "rounds": int(rounds),
                 "dtype": "float32",
                 "data": "ListOps L..L+20 tokens, 100 samples",
                 "rvnn": "rvnn-run bench (forward in training mode)",
                 "eager": "bench/eager_step.py --training",
                 "rvnn-nodrop": "rvnn-run bench --eval-forward",
                 "eager-nodrop": "bench/eager_step.py (no dropout)",
                 "optimiser": "the config's; eager: torch.optim.RAdam + "
                              "Lookahead, clip_grad_norm_",
                 "memory_cap_gib": cap},
    "elapsed_s": int(elapsed),
    "models": {},
}

def stats(c):
    if c["out_of_memory"]:
        # Killed above the cap (or not run after a smaller cell was): no
        # timing. Steps of rounds that finished before are kept.
        return {"result": OOM, "out_of_memory": True,
                "memory_cap_gib": cap, **c["out_of_memory"],
                "step_ms": c["step_ms"]}
    return {"median_ms": pct(c["step_ms"], 50), "p10_ms": pct(c["step_ms"], 10),
            "p90_ms": pct(c["step_ms"], 90), "steps": len(c["step_ms"]),
            "step_ms": c["step_ms"], "peak_rss_mib": c["peak_rss_mib"],
            "rss_delta_mib": c["rss_delta_mib"], "first_loss": c["first_loss"]}

def fmt(s):
    if s is None:
        return "-"
    if s.get("out_of_memory"):
        return OOM
    return f"{s['median_ms']:.1f} [{s['p10_ms']:.0f}-{s['p90_ms']:.0f}]"

def usable(s):
    return s is not None and not s.get("out_of_memory")

def ratio(a, b):
    return a["median_ms"] / b["median_ms"] if usable(a) and usable(b) else None

def fmt_ratio(r, a, b):
    if r is not None:
        return f"{r:.2f}"
    return "-" if a is None or b is None else "n/a"

def fmt_rss(s):
    return f"{s['rss_delta_mib']:.0f}" if usable(s) else "-" if s is None else "oom"

for model in models:
    cells = {}
    for path in glob.glob(f"{work}/{model}/json/*.json"):
        impl, length, batch, _ = os.path.basename(path)[:-5].rsplit("-", 3)
        with open(path) as f:
            r = json.load(f)
        cell = cells.setdefault((int(length), int(batch)), {}).setdefault(
            impl, {"step_ms": [], "peak_rss_mib": 0, "rss_delta_mib": 0,
                   "lengths": None, "first_loss": None,
                   "out_of_memory": None})
        if r.get("out_of_memory"):  # written by run.sh for a killed process
            cell["out_of_memory"] = {k: v for k, v in r.items()
                                     if k not in ("out_of_memory",
                                                  "memory_cap_gib")}
            continue
        r = r["results"][0]
        if cell["lengths"] is None:
            cell["lengths"] = f"{r['min_length']}-{r['max_length']}"
            cell["first_loss"] = r["first_loss"]
        cell["step_ms"] += r["step_ms"]
        cell["peak_rss_mib"] = max(cell["peak_rss_mib"], r["peak_rss_mib"])
        cell["rss_delta_mib"] = max(cell["rss_delta_mib"], r["rss_delta_mib"])
    rows = []
    print(f"\n{model}: ms per training step, median [p10-p90] over {rounds} "
          f"interleaved rounds, {threads} thread(s); RSS growth in MiB; "
          f"{cap_text}")
    print(f"{'lengths':>9} {'batch':>5} | {'rvnn':>19} {'eager':>19} "
          f"{'ratio':>5} | {'rvnn-nodrop':>19} {'eager-nodrop':>19} "
          f"{'ratio':>5} | {'RSS+ rvnn/eager':>15}")
    for (length, batch), cell in sorted(cells.items()):
        spans = [c["lengths"] for _, c in sorted(cell.items()) if c["lengths"]]
        row = {"length": length, "batch_size": batch,
               "lengths": (cell.get("eager-nodrop", {}).get("lengths") or
                           (spans[0] if spans else f"{length}-{length + 20}"))}
        for impl in ("rvnn", "eager", "rvnn-nodrop", "eager-nodrop"):
            row[impl] = stats(cell[impl]) if impl in cell else None
        row["ratio_rvnn_vs_eager"] = ratio(row["rvnn"], row["eager"])
        row["ratio_nodrop"] = ratio(row["rvnn-nodrop"], row["eager-nodrop"])
        a = b = None
        row["same_first_loss"] = None  # unknown when either ran out of memory
        if usable(row["rvnn-nodrop"]) and usable(row["eager-nodrop"]):
            a = row["rvnn-nodrop"]["first_loss"]
            b = row["eager-nodrop"]["first_loss"]
            row["same_first_loss"] = abs(a - b) <= 1e-4 * max(abs(b), 1e-12)
        rows.append(row)
        # RSS growth of the training-mode pair, else of the no-dropout one.
        mine, theirs = ((row["rvnn"], row["eager"]) if row["eager"] else
                        (row["rvnn-nodrop"], row["eager-nodrop"]))
        r1, r2 = row["ratio_rvnn_vs_eager"], row["ratio_nodrop"]
        print(f"{row['lengths']:>9} {batch:>5} | {fmt(row['rvnn']):>19} "
              f"{fmt(row['eager']):>19} "
              f"{fmt_ratio(r1, row['rvnn'], row['eager']):>5} | "
              f"{fmt(row['rvnn-nodrop']):>19} {fmt(row['eager-nodrop']):>19} "
              f"{fmt_ratio(r2, row['rvnn-nodrop'], row['eager-nodrop']):>5} | "
              f"{fmt_rss(mine):>7}/{fmt_rss(theirs)}"
              + ("" if row["same_first_loss"] is not False else
                 f"   NODROP FIRST LOSS DIFFERS ({a:.6g} vs {b:.6g})"))
    result["models"][model] = rows
with open(out, "w") as f:
    json.dump(result, f, indent=1)
    f.write("\n")
print(f"\nratio: rvnn / eager medians"
      f"{' (n/a: one side ran out of memory)' if cap else ''}; {cap_text}. "
      f"Load average before {load_before}, "
      f"after {' '.join(result['machine']['load_after'])}; {elapsed} s; "
      f"wrote {out}")
EOF
