#!/usr/bin/env bash
# CPU benchmark: rvnn-run bench (generated kernels and the ATen reference
# path) against the eager PyTorch baseline (bench/eager_step.py),
# interleaved in one run. See bench/README.md.
#
#   bench/run.sh [MODEL ...]          # default: bbt_grc
#
# For each model, length bucket (L..L+20 tokens, 100 samples; ListOps, or
# logical-inference pairs for a "logic" config) and batch size, ROUNDS
# rounds each run these fresh processes in rotating order:
#   rvnn             rvnn-run bench (generated kernels; forward in training
#                    mode: dropout on)
#   rvnn-ref         the same with --kernels reference (fused elementwise
#                    chains and compiled backward functions run as ATen ops
#                    with ATen autograd)
#   rvnn-rc          rvnn with --recompute recompute (each compiled call
#                    keeps only its inputs; backward reruns its forward)
#   eager            bench/eager_step.py --training (float32 reference with
#                    dropout; only where bench/reference/<model>.py has a
#                    training mode)
#   rvnn-nodrop      rvnn-run bench --eval-forward --profile (no dropout)
#   rvnn-ref-nodrop  the same with --kernels reference
#   eager-nodrop     bench/eager_step.py (the reference without dropout: the
#                    same arithmetic as rvnn-nodrop; first losses must agree)
# (eager and eager-nodrop where bench/reference has the model) and the step
# times of all rounds are pooled. Prints medians, the
# ratios generated/eager, reference/eager and generated/reference of both
# trios, recompute's time and memory growth against eager's, and the profile of the no-dropout rvnn runs (dispatches per
# recursion step, backward autograd nodes, GEMM floor and replay, each also
# against eager's step), and writes
# bench/results/<date>-cpu.json (OUT=... to change).
#
# Every measured process runs under bench/memcap.py, which kills it when its
# resident memory passes RVNN_BENCH_MEM_GB GiB (default 12; 0: no cap). Such
# a cell is reported as "out of memory" (ratio n/a) and the bench goes on;
# larger cells (length and batch no smaller) of that implementation are then
# not run but reported out of memory too.
#
# Settings (environment): LENGTHS ("100 200 500"), BATCHES ("1 32"), and per
# model LENGTHS_<model> / BATCHES_<model> (e.g. LENGTHS_ndr=100), SKIP
# (cells not to run, "model:length:batch ...", e.g. "crvnn:200:32"),
# ROUNDS (3), THREADS (1; also sets OPENBLAS_NUM_THREADS), SMALL_STEPS and
# SMALL_WARMUP (15/2 per round, batches < 8), LARGE_STEPS and LARGE_WARMUP
# (3/1), BUILD (build), PYTHON (/usr/bin/python3, with python3-torch),
# RVNN_BENCH_MEM_GB (12), OPENBLAS_CORETYPE (unset: OpenBLAS's own choice,
# unless that is its generic Prescott kernels on a CPU with AVX2 or AVX-512;
# see below).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
rvnn=$build/bin/rvnn-run
python=${PYTHON:-/usr/bin/python3}
lengths=${LENGTHS:-"100 200 500"}
batches=${BATCHES:-"1 32"}
skip_cells=" ${SKIP:-} "
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
# OpenBLAS picks its kernels by CPU model, and one it does not know (seen:
# a recent Xeon with AVX-512) gets its generic Prescott (SSE3) kernels,
# several times slower: eager's products and rvnn's BLAS calls would be
# measured on those. Unless OPENBLAS_CORETYPE names kernels, name the
# widest the CPU's flags allow.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  blas_core=$("$python" -c 'import ctypes
corename = ctypes.CDLL("libblas.so.3").openblas_get_corename
corename.restype = ctypes.c_char_p
print(corename().decode())' 2>/dev/null || true)
  if [ "${blas_core,,}" = prescott ]; then
    if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
    elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell; fi
    [ -z "${OPENBLAS_CORETYPE:-}" ] ||
      echo "run.sh: OpenBLAS detected Prescott kernels on a CPU with wider vectors: OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE" >&2
  fi
fi
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

# make_data TASK L: writes $work/TASK-L.tsv (once), 100 samples of L..L+20
# tokens. Logic: the length of a pair is that of its longer formula, round
# brackets included (they are tokens, as rvnn-run reads it: a formula of n
# operators has about 5n + 1); pairs are drawn with L/6..L/4 operators in
# the larger formula and the first 100 in range kept.
make_data() {
  local task=$1 length=$2 file=$work/$1-$2.tsv
  [ -f "$file" ] && return 0
  case $task in
    listops)
      "$rvnn" gen listops --min-length "$length" --max-length $((length + 20)) \
        --count 100 --seed "$seed" --output "$file" ;;
    logic)
      "$rvnn" gen logic --count 3000 --seed "$seed" --min-ops $((length / 6)) \
        --max-ops $((length / 4)) --output - |
        awk -F'\t' -v lo="$length" -v hi=$((length + 20)) '
          function tokens(s,  word) { return split(s, word, " ") }
          kept < 100 {
            m = tokens($2); if (tokens($3) > m) m = tokens($3)
            if (m >= lo && m <= hi) { print; kept++ }
          }' >"$file"
      [ "$(wc -l <"$file")" -eq 100 ] ||
        { echo "run.sh: fewer than 100 logic pairs of $length..$((length + 20)) tokens" >&2
          rm -f "$file"; return 1; } ;;
    *) echo "run.sh: unknown task $task" >&2; return 1 ;;
  esac
}

done_models=()
for model in "${models[@]}"; do
  config=$root/models/$model.json
  if [ ! -f "$root/models/$model.mlir" ] || [ ! -f "$config" ]; then
    echo "run.sh: skipping $model (needs models/$model.mlir and models/$model.json)" >&2
    continue
  fi
  var=LENGTHS_$model; model_lengths=${!var:-$lengths}
  var=BATCHES_$model; model_batches=${!var:-$batches}
  task=$("$python" -c 'import json, sys
print(json.load(open(sys.argv[1])).get("task", "listops"))' "$config")
  for length in $model_lengths; do make_data "$task" "$length"; done
  first_data=$work/$task-${model_lengths%% *}.tsv
  mdir=$work/$model
  mkdir -p "$mdir/json"
  if ! "$rvnn" compile "$root/models/$model.mlir" -o "$mdir/model" >"$mdir/log" 2>&1 ||
     ! "$rvnn" dump-grads --config "$config" --model "$mdir/model" \
         --data "$first_data" --rows 1 --seed "$seed" \
         --output "$mdir/params.json" >>"$mdir/log" 2>&1; then
    echo "run.sh: skipping $model (compile or dump-grads failed):" >&2
    tail -5 "$mdir/log" >&2
    continue
  fi
  # The no-dropout trio evaluates with the model's evaluation options
  # (rvnn.eval_option) at their training values, so that it does training's
  # arithmetic (RIR-EBT-GRC: rir_inference=1, the RIR forward, not the
  # non-RIR inference it evaluates with by default); eager_step.py maps them
  # onto its reference's loss keywords.
  train_options=$("$python" -c 'import re, sys
ops = re.findall(r"rvnn\.eval_option\s+\"(\w+)\"\s*\{([^}]*)\}", open(sys.argv[1]).read())
values = {name: re.search(r"training\s*=\s*(-?\d+)", attrs)[1] for name, attrs in ops}
print(",".join(name + "=" + value for name, value in values.items()))' "$root/models/$model.mlir")
  nodrop_options=()
  [ -z "$train_options" ] || nodrop_options=(--option "$train_options")
  # The eager baselines need bench/reference/<model>.py; eager (dropout)
  # also a training mode.
  impls=(rvnn rvnn-ref rvnn-rc rvnn-nodrop rvnn-ref-nodrop)
  no_eager=
  if [ ! -f "$root/bench/reference/$model.py" ]; then
    no_eager="no bench/reference/$model.py"
  elif "$python" -c 'import inspect, sys; sys.path.insert(0, sys.argv[1])
import importlib; m = importlib.import_module(sys.argv[2])
sys.exit("training" not in inspect.signature(m.loss).parameters)' \
      "$root/bench/reference" "$model" 2>/dev/null; then
    impls=(rvnn rvnn-ref rvnn-rc eager rvnn-nodrop rvnn-ref-nodrop eager-nodrop)
  else
    impls=(rvnn rvnn-ref rvnn-rc rvnn-nodrop rvnn-ref-nodrop eager-nodrop)
  fi
  echo "== $model: ${rounds} rounds x (${impls[*]}), $threads thread(s), $cap_text${no_eager:+; no eager: $no_eager}${train_options:+; no-dropout trio with --option $train_options}"
  failed=0
  oom=()  # "impl length batch" of each cell that ran out of memory
  for length in $model_lengths; do
    data=$work/$task-$length.tsv
    for batch in $model_batches; do
      if [[ $skip_cells == *" $model:$length:$batch "* ]]; then
        echo "   length $length batch $batch skipped (SKIP)"
        echo "$length $batch" >>"$mdir/skipped"
        continue
      fi
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
            rvnn*)
              cmd=("$rvnn" bench --config "$config" --model "$mdir/model"
                   --seed "$seed" "${common[@]}" --json "$json")
              if [[ $impl == *-ref* ]]; then cmd+=(--kernels reference); fi
              if [ "$impl" = rvnn-rc ]; then cmd+=(--recompute recompute); fi
              if [[ $impl == *-nodrop ]]; then
                cmd+=(--eval-forward --profile ${nodrop_options[@]+"${nodrop_options[@]}"})
              fi ;;
            eager*)
              cmd=("$python" "$root/bench/eager_step.py" --model "$model"
                   --config "$config" --params "$mdir/params.json"
                   --seed "$seed" "${common[@]}" --json "$json")
              if [ "$impl" = eager ]; then cmd+=(--training)
              else cmd+=(${nodrop_options[@]+"${nodrop_options[@]}"}); fi ;;
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
  if [ "$failed" = 0 ]; then
    printf '%s\n' "$task" "$no_eager" >"$mdir/meta"
    done_models+=("$model")
  fi
done

[ ${#done_models[@]} -gt 0 ] || { echo "run.sh: no model measured" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
"$python" - "$work" "$out" "$load_before" "$(( $(date +%s) - start ))" \
  "$threads" "$rounds" \
  "$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)" \
  "$mem_gib" "$small_steps/$small_warmup $large_steps/$large_warmup" \
  "${done_models[@]}" <<'EOF'
import glob, json, math, os, platform, statistics, sys
import torch

(work, out, load_before, elapsed, threads, rounds, rev, mem_gib,
 steps) = sys.argv[1:10]
models = sys.argv[10:]
OOM = "out of memory"
cap = float(mem_gib) or None  # GiB; None: no cap
cap_text = (f"{OOM}: killed above the cap of {mem_gib} GiB per process"
            if cap else "no memory cap")
IMPLS = ("rvnn", "rvnn-ref", "eager",
         "rvnn-nodrop", "rvnn-ref-nodrop", "eager-nodrop", "rvnn-rc")
# (name, numerator, denominator); g: generated kernels, r: reference, e: eager
RATIOS = (("g/e", "rvnn", "eager"), ("r/e", "rvnn-ref", "eager"),
          ("g/r", "rvnn", "rvnn-ref"),
          ("g/e", "rvnn-nodrop", "eager-nodrop"),
          ("r/e", "rvnn-ref-nodrop", "eager-nodrop"),
          ("g/r", "rvnn-nodrop", "rvnn-ref-nodrop"),
          ("rc/e", "rvnn-rc", "eager"))

def pct(values, q):
    values = sorted(values)
    rank = q / 100 * (len(values) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(values) - 1)
    return values[low] + (rank - low) * (values[high] - values[low])

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()

small, large = steps.split()
result = {
    "date": __import__("datetime").datetime.now().isoformat(timespec="seconds"),
    "git": rev,
    "machine": {"cpu": cpu_name(), "cores": os.cpu_count(),
                "os": platform.platform(), "torch_python": torch.__version__,
                "load_before": load_before,
                "load_after": open("/proc/loadavg").read().split()[:3]},
    "settings": {"threads": int(threads), "rounds": int(rounds),
                 "steps_warmup_batch_lt_8": small,
                 "steps_warmup_batch_ge_8": large,
                 "dtype": "float32",
                 "data": "L..L+20 tokens, 100 samples (ListOps; logic: "
                         "pairs, length of the longer formula)",
                 "rvnn": "rvnn-run bench (generated kernels, forward in "
                         "training mode)",
                 "rvnn-ref": "rvnn-run bench --kernels reference",
                 "rvnn-rc": "rvnn-run bench --recompute recompute",
                 "eager": "bench/eager_step.py --training",
                 "rvnn-nodrop": "rvnn-run bench --eval-forward --profile",
                 "rvnn-ref-nodrop": "rvnn-run bench --kernels reference "
                                    "--eval-forward --profile",
                 "eager-nodrop": "bench/eager_step.py (no dropout)",
                 "ratios": "g/e, r/e, g/r: medians of generated (rvnn), "
                           "reference (rvnn-ref) and eager, per trio",
                 "optimiser": "the config's; eager: torch.optim.RAdam + "
                              "Lookahead, clip_grad_norm_",
                 "memory_cap_gib": cap,
                 # Which OpenBLAS kernels eager and rvnn's BLAS calls ran
                 # (null: OpenBLAS's own choice).
                 "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE")},
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
    s = {"median_ms": pct(c["step_ms"], 50), "p10_ms": pct(c["step_ms"], 10),
         "p90_ms": pct(c["step_ms"], 90), "steps": len(c["step_ms"]),
         "step_ms": c["step_ms"], "peak_rss_mib": c["peak_rss_mib"],
         "rss_delta_mib": c["rss_delta_mib"], "first_loss": c["first_loss"]}
    if c["kernels"]:  # rvnn: per-process medians, then their median
        s["kernels"] = c["kernels"]
        for key in ("forward_median_ms", "backward_median_ms",
                    "optimiser_median_ms"):
            s[key] = median(r.get(key) for r in c["rounds"])
    if c["profile"]:  # --profile: counts from the first round
        s["profile"] = c["profile"]
        for key in ("gemm_floor_ms", "gemm_floor_fraction", "sgemm_gflops",
                    "gemm_replay_ms", "gemm_replay_fraction"):
            s[key] = median(r.get(key) for r in c["rounds"])
        s["gemm_floor_fraction_rounds"] = [r.get("gemm_floor_fraction")
                                           for r in c["rounds"]]
    return s

def usable(s):
    return s is not None and not s.get("out_of_memory")

def fmt(s):
    if s is None:
        return "-"
    if s.get("out_of_memory"):
        return OOM
    m = s["median_ms"]
    return (f"{m:.1f} [{s['p10_ms']:.0f}-{s['p90_ms']:.0f}]" if m < 1000 else
            f"{m:.0f} [{s['p10_ms']:.0f}-{s['p90_ms']:.0f}]")

def fmt_ratio(r, a, b):
    if r is not None:
        return f"{r:.2f}"
    return "-" if a is None or b is None else "n/a"

def fmt_rss(s):
    return f"{s['rss_delta_mib']:.0f}" if usable(s) else "-" if s is None else "oom"

def fmt_num(v, spec):
    return "-" if v is None else format(v, spec)

def profile(s, key):
    return s["profile"].get(key) if usable(s) and "profile" in s else None

for model in models:
    with open(f"{work}/{model}/meta") as f:
        task, no_eager = (f.read().split("\n") + [""])[:2]
    cells = {}
    def round_of(path):
        return int(path[:-5].rsplit("-", 1)[1])
    for path in sorted(glob.glob(f"{work}/{model}/json/*.json"), key=round_of):
        impl, length, batch, _ = os.path.basename(path)[:-5].rsplit("-", 3)
        with open(path) as f:
            r = json.load(f)
        cell = cells.setdefault((int(length), int(batch)), {}).setdefault(
            impl, {"step_ms": [], "peak_rss_mib": 0, "rss_delta_mib": 0,
                   "lengths": None, "first_loss": None, "rounds": [],
                   "kernels": None, "profile": None, "out_of_memory": None})
        if r.get("out_of_memory"):  # written by run.sh for a killed process
            cell["out_of_memory"] = {k: v for k, v in r.items()
                                     if k not in ("out_of_memory",
                                                  "memory_cap_gib")}
            continue
        kernels, sgemm = r.get("kernels"), r.get("sgemm_gflops")
        r = r["results"][0]
        if cell["lengths"] is None:
            cell["lengths"] = f"{r['min_length']}-{r['max_length']}"
            cell["first_loss"] = r["first_loss"]
            cell["kernels"] = kernels
            cell["profile"] = r.get("profile")
        cell["step_ms"] += r["step_ms"]
        cell["peak_rss_mib"] = max(cell["peak_rss_mib"], r["peak_rss_mib"])
        cell["rss_delta_mib"] = max(cell["rss_delta_mib"], r["rss_delta_mib"])
        cell["rounds"].append({**{k: r.get(k) for k in (
            "forward_median_ms", "backward_median_ms", "optimiser_median_ms",
            "gemm_floor_ms", "gemm_floor_fraction", "gemm_replay_fraction")},
            "gemm_replay_ms": (r.get("profile") or {}).get("gemm_replay_ms"),
            "sgemm_gflops": sgemm})
    rows = []
    for (length, batch), cell in sorted(cells.items()):
        spans = [c["lengths"] for _, c in sorted(cell.items()) if c["lengths"]]
        row = {"length": length, "batch_size": batch,
               "lengths": (cell.get("eager-nodrop", {}).get("lengths") or
                           (spans[0] if spans else f"{length}-{length + 20}"))}
        for impl in IMPLS:
            row[impl] = stats(cell[impl]) if impl in cell else None
        row["ratios"] = {}
        for name, a, b in RATIOS:
            ok = usable(row[a]) and usable(row[b])
            row["ratios"][f"{a}/{b}"] = (
                row[a]["median_ms"] / row[b]["median_ms"] if ok else None)
        # Same arithmetic without dropout: every no-dropout run's first loss
        # against eager-nodrop's (or, without it, generated's), 1e-4 relative.
        base = next((i for i in ("eager-nodrop", "rvnn-nodrop")
                     if usable(row[i])), None)
        others = [i for i in ("rvnn-nodrop", "rvnn-ref-nodrop", "eager-nodrop")
                  if i != base and row[i] is not None]
        row["first_losses"] = {i: row[i]["first_loss"] for i in
                               ("rvnn-nodrop", "rvnn-ref-nodrop", "eager-nodrop")
                               if usable(row[i])}
        row["same_first_loss"] = None  # unknown when one ran out of memory
        if base and others and all(usable(row[i]) for i in others):
            b = row[base]["first_loss"]
            row["same_first_loss"] = all(
                abs(row[i]["first_loss"] - b) <= 1e-4 * max(abs(b), 1e-12)
                for i in others)
        g, r = row["rvnn-nodrop"], row["rvnn-ref-nodrop"]
        e = row["eager-nodrop"]

        def over_eager(key):
            # The g/e of a step that were nothing but its GEMMs: at or above
            # the target, no compilation of the rest can meet it.
            if not (usable(g) and usable(e) and g.get(key)):
                return None
            return g[key] / e["median_ms"]
        row["profile_nodrop"] = {
            "recursion_steps": profile(g, "recursion_steps"),
            "dispatches_per_step_generated": profile(g, "forward_dispatches_per_step"),
            "dispatches_per_step_reference": profile(r, "forward_dispatches_per_step"),
            "backward_nodes_generated": profile(g, "backward_nodes"),
            "backward_nodes_reference": profile(r, "backward_nodes"),
            "gemm_floor_ms": g.get("gemm_floor_ms") if usable(g) else None,
            "gemm_floor_fraction": g.get("gemm_floor_fraction") if usable(g) else None,
            "gemm_replay_ms": g.get("gemm_replay_ms") if usable(g) else None,
            "gemm_replay_fraction": g.get("gemm_replay_fraction") if usable(g) else None,
            "gemm_floor_over_eager": over_eager("gemm_floor_ms"),
            "gemm_replay_over_eager": over_eager("gemm_replay_ms"),
            "sgemm_gflops": g.get("sgemm_gflops") if usable(g) else None}
        rows.append(row)

    def ratio_cell(row, a, b):
        return fmt_ratio(row["ratios"][f"{a}/{b}"], row[a], row[b])
    print(f"\n{model} ({task}): ms per training step, median [p10-p90] over "
          f"{rounds} interleaved rounds, {threads} thread(s); {cap_text}"
          + (f"; no eager: {no_eager}" if no_eager else ""))
    for title, trio, ratios in (("training mode (dropout on)", IMPLS[:3], RATIOS[:3]),
                                ("no dropout", IMPLS[3:6], RATIOS[3:6])):
        print(f"  {title}: generated = {trio[0]}, reference = {trio[1]}, "
              f"eager = {trio[2]}")
        print(f"{'lengths':>9} {'batch':>5} | {'generated':>17} "
              f"{'reference':>17} {'eager':>17} | {'g/e':>5} {'r/e':>5} "
              f"{'g/r':>5}"
              + (" | RSS+ MiB g/r/e" if trio[0] == "rvnn" else ""))
        for row in rows:
            line = (f"{row['lengths']:>9} {row['batch_size']:>5} | "
                    + " ".join(f"{fmt(row[i]):>17}" for i in trio) + " | "
                    + " ".join(f"{ratio_cell(row, a, b):>5}"
                               for _, a, b in ratios))
            if trio[0] == "rvnn":
                line += " | " + "/".join(fmt_rss(row[i]) for i in trio)
            elif row["same_first_loss"] is False:
                line += f"   NODROP FIRST LOSSES DIFFER {row['first_losses']}"
            print(line)
    print("  recompute policy (dropout on): rc = rvnn --recompute recompute; "
          "memory growth (RSS+) against eager's")
    print(f"{'lengths':>9} {'batch':>5} | {'recompute':>17} {'eager':>17} | "
          f"{'rc/e':>5} | {'RSS+ MiB rc/g/e':>17} {'rc/e mem':>8}")
    for row in rows:
        rc, e = row["rvnn-rc"], row["eager"]
        mem = (f"{rc['rss_delta_mib'] / e['rss_delta_mib']:.2f}"
               if usable(rc) and usable(e) and e["rss_delta_mib"] > 0 else "-")
        print(f"{row['lengths']:>9} {row['batch_size']:>5} | {fmt(rc):>17} "
              f"{fmt(e):>17} | {ratio_cell(row, 'rvnn-rc', 'eager'):>5} | "
              + f"{'/'.join(fmt_rss(row[i]) for i in ('rvnn-rc', 'rvnn', 'eager')):>17}"
              + f" {mem:>8}")
    print("  profile of the no-dropout runs (--profile): forward dispatches "
          "per recursion step, backward autograd nodes, generated run's "
          "forward/backward/optimiser medians, GEMM floor and GEMM replay "
          "(fraction: of the step; /e: of eager's no-dropout step, the g/e "
          "left if all but the GEMMs took no time)")
    print(f"{'lengths':>9} {'batch':>5} | {'rec':>4} | {'disp/step g':>11} "
          f"{'r':>5} | {'bwd nodes g':>11} {'r':>6} | {'fwd/bwd/opt ms g':>22} | "
          f"{'floor ms':>8} {'fraction':>8} {'SGEMM GF/s':>10} | "
          f"{'replay ms':>9} {'fraction':>8} | {'floor/e':>7} {'replay/e':>8}")
    for row in rows:
        p, g = row["profile_nodrop"], row["rvnn-nodrop"]
        split = ("/".join(fmt_num(g.get(k), ".1f") for k in (
            "forward_median_ms", "backward_median_ms", "optimiser_median_ms"))
            if usable(g) else fmt(g))
        print(f"{row['lengths']:>9} {row['batch_size']:>5} | "
              f"{fmt_num(p['recursion_steps'], 'd'):>4} | "
              f"{fmt_num(p['dispatches_per_step_generated'], '.1f'):>11} "
              f"{fmt_num(p['dispatches_per_step_reference'], '.1f'):>5} | "
              f"{fmt_num(p['backward_nodes_generated'], 'd'):>11} "
              f"{fmt_num(p['backward_nodes_reference'], 'd'):>6} | "
              f"{split:>22} | {fmt_num(p['gemm_floor_ms'], '.2f'):>8} "
              f"{fmt_num(p['gemm_floor_fraction'], '.3f'):>8} "
              f"{fmt_num(p['sgemm_gflops'], '.1f'):>10} | "
              f"{fmt_num(p['gemm_replay_ms'], '.2f'):>9} "
              f"{fmt_num(p['gemm_replay_fraction'], '.3f'):>8} | "
              f"{fmt_num(p['gemm_floor_over_eager'], '.3f'):>7} "
              f"{fmt_num(p['gemm_replay_over_eager'], '.3f'):>8}")
    skipped = []
    if os.path.exists(f"{work}/{model}/skipped"):
        with open(f"{work}/{model}/skipped") as f:
            skipped = [dict(zip(("length", "batch_size"), map(int, l.split())))
                       for l in f if l.strip()]
        print("  skipped (SKIP): " + ", ".join(
            f"length {s['length']} batch {s['batch_size']}" for s in skipped))
    result["models"][model] = {"task": task, "no_eager": no_eager or None,
                               "skipped": skipped, "cells": rows}
with open(out, "w") as f:
    json.dump(result, f, indent=1)
    f.write("\n")
print(f"\ng/e, r/e, g/r: medians of generated kernels, reference path and "
      f"eager{' (n/a: one side ran out of memory)' if cap else ''}; "
      f"{cap_text}. Load average before {load_before}, "
      f"after {' '.join(result['machine']['load_after'])}; {elapsed} s; "
      f"wrote {out}")
EOF
