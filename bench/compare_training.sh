#!/usr/bin/env bash
# Trains a model (default BBT-GRC) twice from the same initial weights on
# the same generated data with the same hyperparameters -- once with rvnn
# (rvnn-run train on the compiled model) and once with the independent eager
# PyTorch reference (bench/train_reference.py over
# bench/reference/<model>.py) -- and compares dev accuracy per epoch and at
# the end; for logical inference also test accuracy per operator count.
# See bench/TRAINING.md.
#
# The task is the run configuration's (models/<model>.json "task"):
# ListOps (rvnn-run gen listops) or logical inference (rvnn-run gen logic:
# train and dev with --min-ops..--max-ops operators, and one test file per
# count in --test-ops, each with exactly that many operators).
#
# Steps:
#   1. generate train and dev data (and for logic the test files);
#   2. compile models/<model>.mlir; write a copy of models/<model>.json with
#      log_every 1 (per-step timings and losses) and --patience's
#      early-stopping patience, if given; nothing else changes;
#   3. recipe check (skip with --no-recipe-check): compile a copy of the
#      model without dropout and without Gumbel top-k noise (`gumbel =
#      false`; the reference with --no-noise) and train both implementations
#      on one 128-example batch per epoch (so batch order, dropout and
#      noise, the random parts, drop out; RIR-EBT-GRC's beam alignment
#      still draws, but only on sequences long enough to be chunked, 45+
#      tokens at chunk 30) for up to 40 epochs, with the LR schedule's
#      patience cut to 1 and early stopping's to 15 so that both act; the
#      two runs must then agree step for step up to float32 rounding:
#      checks that optimiser, Lookahead, clipping, weight decay, LR
#      schedule, early stopping and evaluation are the same recipe (for
#      the beam models, BT-GRC and RIR-EBT-GRC, only up to beam scores tied
#      in exact arithmetic that the two float32 implementations rank
#      differently: each such tie moves one example's loss at the step
#      where it falls; bench/TRAINING.md);
#   4. for each seed S: dump-grads --seed S (initial weights), rvnn-run
#      train --seed S, then train_reference.py --seed S from those weights,
#      one after the other (never concurrently); for logic, both then score
#      each test file with their best parameters (rvnn-run eval on best.pt;
#      train_reference.py --test);
#   5. print a side-by-side table of dev accuracy per epoch, the best dev
#      accuracy (what both report after restoring the best parameters) and
#      its difference, time per step; for logic a table of test accuracy
#      per operator count (model, side, accuracy at each count, each test
#      file's majority-class share, time per step); write the results JSON.
#
# Usage: bench/compare_training.sh [options]
#   --model "NAME ..." models/NAME.mlir + .json, reference
#                     bench/reference/NAME.py (default bbt_grc); several
#                     logic models (quoted, space-separated) run one after
#                     the other with the same options and data, each in
#                     --work/NAME, and end with one table of them all
#                     (bench/logic_table.py; with --seeds "" one table of
#                     their recipe checks, bench/recipe_table.py)
#   --train-count N   training examples (default 4000)
#   --dev-count N     dev examples (default 2000)
#   --max-length N    ListOps tokens per example at most (default 30)
#   --max-depth N     ListOps nesting depth at most (default 3)
#   --min-ops N       logic: fewest operators in train and dev (default 0)
#   --max-ops N       logic: most operators in train and dev (default 6)
#   --test-ops "K ..." logic: a test file for each operator count
#                     (default "7 8 9 10 11 12")
#   --test-count N    logic: pairs per test file (default 1000)
#   --data-seed N     data generation seed (dev uses N + 1000, the test
#                     file of K operators N + 2000 + K) (default 1)
#   --seeds "S ..."   initialisation/dropout/batch-order seeds (default "1 2 3");
#                     --seeds "" runs only the recipe check
#   --epochs N        epochs at most, early stopping aside (default 40)
#   --max-steps N     optimiser steps at most (default 0: no cap)
#   --patience N      early-stopping patience for both (default: the
#                     config's); --patience 0 turns early stopping off (a
#                     fixed budget of --epochs / --max-steps)
#   --lr-patience N   the LR schedule's (ReduceLROnPlateau) patience for both
#                     (default: the config's); a value above --epochs
#                     leaves the learning rate constant (schedule off)
#   --threads N       intra-op threads for both (OMP_NUM_THREADS) (default 1,
#                     LibTorch's default on this machine)
#   --work DIR        working directory (default: a new /tmp/rvnn-train-cmp.*)
#   --results FILE    JSON output (default
#                     bench/results/training-compare-<date>.json)
#   --no-recipe-check skip step 3
#   --recipe-dev-count N  the recipe check evaluates on the first N dev
#                     examples (default: all; it evaluates after each of its
#                     up to 40 one-batch epochs, which dominates its time for
#                     slow models)
#   --reuse           with --work of an earlier run with the same options:
#                     keep its recipe check and the seeds it finished (to
#                     add seeds to a run), and continue an interrupted
#                     seed: a side that finished is kept, rvnn resumes from
#                     its last.pt (`rvnn-run train --resume`), eager from
#                     its checkpoint (train_reference.py --checkpoint,
#                     written after every evaluation); the wall time of
#                     each process that ran to its end is added to the
#                     side's
#   --report-only     skip steps 1-4: step 5 again over an earlier --work
#                     directory (same options as that run)
# Environment: RVNN (default build/bin/rvnn-run), PYTHON (default
# /usr/bin/python3, Debian's python3-torch).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RVNN=${RVNN:-$ROOT/build/bin/rvnn-run}
PYTHON=${PYTHON:-/usr/bin/python3}
MODEL=bbt_grc
TRAIN_COUNT=4000
DEV_COUNT=2000
MAX_LENGTH=30
MAX_DEPTH=3
MIN_OPS=0
MAX_OPS=6
TEST_OPS="7 8 9 10 11 12"
TEST_COUNT=1000
DATA_SEED=1
SEEDS="1 2 3"
EPOCHS=40
MAX_STEPS=0
PATIENCE=
LR_PATIENCE=
THREADS=1
WORK=
RESULTS=
RECIPE_CHECK=1
RECIPE_DEV_COUNT=0
REPORT_ONLY=0
REUSE=0

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
ARGS=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL=$2; shift 2 ;;
    --train-count) TRAIN_COUNT=$2; shift 2 ;;
    --dev-count) DEV_COUNT=$2; shift 2 ;;
    --max-length) MAX_LENGTH=$2; shift 2 ;;
    --max-depth) MAX_DEPTH=$2; shift 2 ;;
    --min-ops) MIN_OPS=$2; shift 2 ;;
    --max-ops) MAX_OPS=$2; shift 2 ;;
    --test-ops) TEST_OPS=$2; shift 2 ;;
    --test-count) TEST_COUNT=$2; shift 2 ;;
    --data-seed) DATA_SEED=$2; shift 2 ;;
    --seeds) SEEDS=$2; shift 2 ;;
    --epochs) EPOCHS=$2; shift 2 ;;
    --max-steps) MAX_STEPS=$2; shift 2 ;;
    --patience) PATIENCE=$2; shift 2 ;;
    --lr-patience) LR_PATIENCE=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --results) RESULTS=$2; shift 2 ;;
    --no-recipe-check) RECIPE_CHECK=0; shift ;;
    --recipe-dev-count) RECIPE_DEV_COUNT=$2; shift 2 ;;
    --report-only) REPORT_ONLY=1; shift ;;
    --reuse) REUSE=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare_training.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
for name in $MODEL; do
  for f in "models/$name.mlir" "models/$name.json" "bench/reference/$name.py"; do
    [ -f "$ROOT/$f" ] || { echo "compare_training.sh: no $f for --model $name" >&2; exit 2; }
  done
done
MODELS=($MODEL)
[ ${#MODELS[@]} -gt 0 ] || { echo "compare_training.sh: --model needs a name" >&2; exit 2; }
task_of() {
  "$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1])).get("task", "listops"))' "$1"
}
TASK=$(task_of "$ROOT/models/${MODELS[0]}.json")
[ -x "$RVNN" ] || { echo "no rvnn-run at $RVNN (build it, or set RVNN)" >&2; exit 1; }
if [ "$REPORT_ONLY" = 1 ]; then
  # (Several models: each of its model directories.)
  [ -n "$WORK" ] && { [ ${#MODELS[@]} -gt 1 ] || [ -f "$WORK/config.json" ]; } ||
    { echo "--report-only needs the --work directory of an earlier run" >&2; exit 2; }
  # (Several models: each model's run decides for its own directory.)
  [ ${#MODELS[@]} -gt 1 ] || [ -f "$WORK/nodrop/eager.jsonl" ] || RECIPE_CHECK=0
fi
[ -n "$WORK" ] || WORK=$(mktemp -d /tmp/rvnn-train-cmp.XXXXXX)
[ -n "$RESULTS" ] || RESULTS=$ROOT/bench/results/training-compare-$(date +%F).json
mkdir -p "$WORK" "$(dirname "$RESULTS")"
export OMP_NUM_THREADS=$THREADS
CONFIG=$ROOT/models/$MODEL.json
echo "work directory: $WORK ($OMP_NUM_THREADS thread(s) each)"

# Several models: this script once per model (later options override the
# earlier ones), then one table of their test accuracies; a model whose run
# fails is reported and left out of the table.
if [ ${#MODELS[@]} -gt 1 ]; then
  for name in "${MODELS[@]}"; do
    [ "$(task_of "$ROOT/models/$name.json")" = logic ] ||
      { echo "compare_training.sh: several --model names need logic models; $name is not" >&2; exit 2; }
  done
  finished=() failed=()
  for name in "${MODELS[@]}"; do
    echo "=== $name"
    if "$0" "${ARGS[@]}" --model "$name" --work "$WORK/$name" \
         --results "$WORK/$name/results.json"; then
      finished+=("$WORK/$name/results.json")
    else
      failed+=("$name")
    fi
  done
  [ ${#failed[@]} = 0 ] || echo "compare_training.sh: failed: ${failed[*]}" >&2
  if [ ${#finished[@]} != 0 ]; then
    if [ -n "${SEEDS// }" ]; then
      "$PYTHON" "$ROOT/bench/logic_table.py" --output "$RESULTS" "${finished[@]}"
    elif [ "$RECIPE_CHECK" = 1 ]; then
      # --seeds "": the recipe checks only, as one table.
      "$PYTHON" "$ROOT/bench/recipe_table.py" --output "$RESULTS" "${finished[@]}"
    fi
  fi
  [ ${#failed[@]} = 0 ]
  exit
fi

# What the work directory's runs depend on, for --reuse and --report-only.
OPTIONS="model=$MODEL train=$TRAIN_COUNT dev=$DEV_COUNT"
if [ "$TASK" = logic ]; then
  OPTIONS+=" min_ops=$MIN_OPS max_ops=$MAX_OPS test_ops=$TEST_OPS test_count=$TEST_COUNT"
else
  OPTIONS+=" max_length=$MAX_LENGTH max_depth=$MAX_DEPTH"
fi
OPTIONS+=" data_seed=$DATA_SEED epochs=$EPOCHS"
OPTIONS+=" max_steps=$MAX_STEPS patience=$PATIENCE threads=$THREADS"
# (Only when given, so that work directories of earlier runs still match.)
[ -z "$LR_PATIENCE" ] || OPTIONS+=" lr_patience=$LR_PATIENCE"
if [ "$REUSE" = 1 ] || [ "$REPORT_ONLY" = 1 ]; then
  if [ -f "$WORK/options" ] && [ "$(cat "$WORK/options")" != "$OPTIONS" ]; then
    echo "$WORK was run with other options: $(cat "$WORK/options")" >&2
    exit 2
  fi
fi
echo "$OPTIONS" > "$WORK/options"

now() { date +%s.%N; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

if [ "$REPORT_ONLY" = 0 ]; then
# 1. Data.
if [ "$TASK" = logic ]; then
  gen() { "$RVNN" gen logic "$@"; }
  gen --count "$TRAIN_COUNT" --min-ops "$MIN_OPS" --max-ops "$MAX_OPS" \
    --seed "$DATA_SEED" --output "$WORK/train.tsv"
  gen --count "$DEV_COUNT" --min-ops "$MIN_OPS" --max-ops "$MAX_OPS" \
    --seed $((DATA_SEED + 1000)) --output "$WORK/dev.tsv"
  for k in $TEST_OPS; do
    gen --count "$TEST_COUNT" --min-ops "$k" --max-ops "$k" \
      --seed $((DATA_SEED + 2000 + k)) --output "$WORK/test-$k.tsv"
  done
else
  gen() { "$RVNN" gen listops --max-length "$MAX_LENGTH" --max-depth "$MAX_DEPTH" "$@"; }
  gen --count "$TRAIN_COUNT" --seed "$DATA_SEED" --output "$WORK/train.tsv"
  gen --count "$DEV_COUNT" --seed $((DATA_SEED + 1000)) --output "$WORK/dev.tsv"
fi

# 2. Model and the logging-only config copy. The reference takes its dropout
# rates from the config's hyperparameters (train_reference.config_dropout);
# rvnn's are compiled into the model (its plan's dropout ops): check that
# the nonzero rates agree.
"$RVNN" compile "$ROOT/models/$MODEL.mlir" -o "$WORK/model" >/dev/null
"$PYTHON" - "$ROOT" "$CONFIG" "$WORK" "$PATIENCE" "$EPOCHS" "$LR_PATIENCE" <<'EOF'
import json, sys
root, config_path, work, patience, epochs, lr_patience = sys.argv[1:]
sys.path.insert(0, f"{root}/bench")
from train_reference import config_dropout

config = json.load(open(config_path))


def dropout_rates(node):
    if isinstance(node, dict):
        if node.get("op") == "rvnn_exec.dropout":
            yield float(node["attrs"]["rate"])
        for value in node.values():
            yield from dropout_rates(value)
    elif isinstance(node, list):
        for value in node:
            yield from dropout_rates(value)


rates = set(dropout_rates(json.load(open(f"{work}/model/plan.json")))) - {0.0}
wanted = set(config_dropout(config["hyperparameters"]).values()) - {0.0}
if rates != wanted:
    sys.exit(f"dropout rates in the model {sorted(rates)} differ from the "
             f"config's {sorted(wanted)}: the reference would train differently")
config["model"] = "model"  # informational only
config["training"]["log_every"] = 1
if patience == "0":
    # More evaluations than epochs: early stopping never fires.
    config["training"]["patience"] = int(epochs) + 1
elif patience:
    config["training"]["patience"] = int(patience)
if lr_patience:
    config["training"].setdefault("lr_schedule", {})["patience"] = int(lr_patience)
json.dump(config, open(f"{work}/config.json", "w"), indent=2)
# Recipe check: no dropout; the LR schedule's patience cut to 1 and early
# stopping's to 15 so that, on this tiny run, the LR is halved many times
# and early stopping fires within the 40 epochs.
for place in config_dropout(config["hyperparameters"]):
    config["hyperparameters"]["dropout_" + place] = 0.0
config["training"]["patience"] = 15
config["training"].setdefault("lr_schedule", {})["patience"] = 1
json.dump(config, open(f"{work}/config-nodrop.json", "w"), indent=2)
EOF

# 3. Recipe check.
if [ "$RECIPE_CHECK" = 1 ] && [ "$REUSE" = 1 ] && [ -f "$WORK/nodrop/eager.jsonl" ]; then
  echo "recipe check: reusing $WORK/nodrop"
elif [ "$RECIPE_CHECK" = 1 ]; then
  mkdir -p "$WORK/nodrop"
  for f in "$MODEL.mlir" cells.mlir; do
    sed -e 's/\(rvnn\.dropout .*rate = \)[0-9.e+-]*/\10.000000e+00/' \
        -e 's/gumbel = true/gumbel = false/g' \
      "$ROOT/models/$f" > "$WORK/nodrop/$f"
  done
  "$RVNN" compile "$WORK/nodrop/$MODEL.mlir" -o "$WORK/nodrop/model" >/dev/null
  head -n 128 "$WORK/train.tsv" > "$WORK/nodrop/train-128.tsv"
  recipe_dev=$WORK/dev.tsv
  if [ "$RECIPE_DEV_COUNT" != 0 ]; then
    recipe_dev=$WORK/nodrop/dev-$RECIPE_DEV_COUNT.tsv
    head -n "$RECIPE_DEV_COUNT" "$WORK/dev.tsv" > "$recipe_dev"
  fi
  "$RVNN" dump-grads --config "$WORK/config-nodrop.json" --model "$WORK/nodrop/model" \
    --data "$WORK/nodrop/train-128.tsv" --rows 1 --seed 1 --output "$WORK/nodrop/init.json"
  "$RVNN" train --config "$WORK/config-nodrop.json" --model "$WORK/nodrop/model" \
    --train "$WORK/nodrop/train-128.tsv" --dev "$recipe_dev" --out "$WORK/nodrop/rvnn" \
    --epochs 40 --seed 1 --overwrite > "$WORK/nodrop/rvnn.log" 2>&1
  "$PYTHON" "$ROOT/bench/train_reference.py" --model "$MODEL" \
    --config "$WORK/config-nodrop.json" --params "$WORK/nodrop/init.json" \
    --train "$WORK/nodrop/train-128.tsv" --dev "$recipe_dev" \
    --metrics "$WORK/nodrop/eager.jsonl" --epochs 40 --seed 1 --no-noise \
    > "$WORK/nodrop/eager.log" 2>&1
fi

# 4. The trainings, one after the other.
test_files=() test_args=()
if [ "$TASK" = logic ]; then
  for k in $TEST_OPS; do test_files+=("$WORK/test-$k.tsv"); done
  test_args=(--test "${test_files[@]}")
fi
for seed in $SEEDS; do
  if [ "$REUSE" = 1 ] && [ -f "$WORK/rvnn-$seed/results.json" ] &&
     [ -f "$WORK/eager-$seed.json" ] &&
     { [ "$TASK" != logic ] || [ -f "$WORK/rvnn-$seed-tests.txt" ]; }; then
    echo "seed $seed: reusing the earlier runs"
    continue
  fi
  # One "start end" line per process in .wall, "before" and "after" load
  # averages in .load; a resumed side appends to them.
  if [ "$REUSE" = 0 ]; then
    for side in rvnn eager; do
      rm -f "$WORK/$side-$seed.wall" "$WORK/$side-$seed.load" "$WORK/$side-$seed.log"
    done
    rm -f "$WORK/eager-$seed.ckpt"
  fi
  if [ "$REUSE" = 0 ] || [ ! -f "$WORK/init-$seed.json" ]; then
    echo "seed $seed: initial weights"
    "$RVNN" dump-grads --config "$CONFIG" --model "$WORK/model" --data "$WORK/train.tsv" \
      --rows 1 --seed "$seed" --output "$WORK/init-$seed.json"
  fi
  steps_arg=()
  [ "$MAX_STEPS" != 0 ] && steps_arg=(--max-steps "$MAX_STEPS")

  if [ "$REUSE" = 1 ] && [ -f "$WORK/rvnn-$seed/results.json" ]; then
    echo "seed $seed: reusing rvnn's finished run"
  else
    start_arg=(--overwrite)
    if [ "$REUSE" = 1 ] && [ -f "$WORK/rvnn-$seed/last.pt" ]; then
      start_arg=(--resume)
    fi
    echo "seed $seed: rvnn-run train ${start_arg[*]} (load $(loadavg))"
    loadavg >> "$WORK/rvnn-$seed.load"
    start=$(now)
    "$RVNN" train --config "$WORK/config.json" --model "$WORK/model" \
      --train "$WORK/train.tsv" --dev "$WORK/dev.tsv" --out "$WORK/rvnn-$seed" \
      --epochs "$EPOCHS" "${steps_arg[@]}" --seed "$seed" "${start_arg[@]}" \
      >> "$WORK/rvnn-$seed.log" 2>&1
    echo "$start $(now)" >> "$WORK/rvnn-$seed.wall"
    loadavg >> "$WORK/rvnn-$seed.load"
    grep -E '^(stopped|trained)' "$WORK/rvnn-$seed.log" | tail -n 2 || true
  fi
  # The test files with the best parameters, as the reference scores them.
  if [ "$TASK" = logic ] && [ ! -f "$WORK/rvnn-$seed-tests.txt" ]; then
    for file in "${test_files[@]}"; do
      "$RVNN" eval --config "$WORK/config.json" --model "$WORK/model" \
        --checkpoint "$WORK/rvnn-$seed/best.pt" --data "$file"
    done > "$WORK/rvnn-$seed-tests.tmp"
    mv "$WORK/rvnn-$seed-tests.tmp" "$WORK/rvnn-$seed-tests.txt"
  fi

  if [ "$REUSE" = 1 ] && [ -f "$WORK/eager-$seed.json" ]; then
    echo "seed $seed: reusing eager's finished run"
    continue
  fi
  echo "seed $seed: eager reference (load $(loadavg))"
  loadavg >> "$WORK/eager-$seed.load"
  start=$(now)
  "$PYTHON" "$ROOT/bench/train_reference.py" --model "$MODEL" \
    --config "$WORK/config.json" --params "$WORK/init-$seed.json" \
    --train "$WORK/train.tsv" --dev "$WORK/dev.tsv" \
    --metrics "$WORK/eager-$seed.jsonl" --results "$WORK/eager-$seed.json" \
    --checkpoint "$WORK/eager-$seed.ckpt" \
    --epochs "$EPOCHS" "${steps_arg[@]}" --seed "$seed" \
    "${test_args[@]}" >> "$WORK/eager-$seed.log" 2>&1
  echo "$start $(now)" >> "$WORK/eager-$seed.wall"
  loadavg >> "$WORK/eager-$seed.load"
  grep '^trained' "$WORK/eager-$seed.log" | tail -n 1
done

fi

# 5. Tables and the results JSON.
SETTINGS="{\"model\": \"$MODEL\", \"train_count\": $TRAIN_COUNT,
  \"dev_count\": $DEV_COUNT, \"max_length\": $MAX_LENGTH,
  \"max_depth\": $MAX_DEPTH, \"data_seed\": $DATA_SEED,
  \"dev_data_seed\": $((DATA_SEED + 1000)), \"epochs\": $EPOCHS,
  \"max_steps\": $MAX_STEPS, \"patience_option\": \"$PATIENCE\",
  \"lr_patience_option\": \"$LR_PATIENCE\",
  \"threads\": $THREADS, \"recipe_dev_count\": $RECIPE_DEV_COUNT,
  \"work\": \"$WORK\""
if [ "$TASK" = logic ]; then
  SETTINGS+=", \"task\": \"logic\", \"min_ops\": $MIN_OPS, \"max_ops\": $MAX_OPS,
  \"test_ops\": [$(echo $TEST_OPS | sed 's/ /, /g')], \"test_count\": $TEST_COUNT,
  \"test_data_seeds\": \"data_seed + 2000 + operators\""
fi
SETTINGS+="}"
"$PYTHON" - "$WORK" "$RESULTS" "$CONFIG" "$RECIPE_CHECK" "$SEEDS" "$SETTINGS" <<'EOF'
import datetime, json, os, statistics, sys

work, results_path, config_path, recipe_check, seeds, settings = sys.argv[1:]
seeds = [int(s) for s in seeds.split()]
settings = json.loads(settings)


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def summarise(records, wall_file, load_file):
    """Per-step times from the log_every=1 training records (each covers the
    time since the previous record, so the first step of an epoch also
    carries the previous evaluation, checkpointing and batch building)."""
    train = [r for r in records if r["type"] == "train"]
    evals = [r for r in records if r["type"] == "eval"]
    seconds = [1 / r["steps_per_s"] for r in train]
    elapsed, total = {}, 0.0
    for r, s in zip(train, seconds):
        total += s
        elapsed[r["step"]] = total
    first_of_epoch = {e["step"] + 1 for e in evals}
    inner = [s for r, s in zip(train, seconds) if r["step"] not in first_of_epoch]
    curve = [{"epoch": e["epoch"] + 1, "step": e["step"],
              "dev_accuracy": e["dev"]["accuracy"], "lr": e["lr"],
              "elapsed_s": round(elapsed.get(e["step"], 0.0), 2)}
             for e in evals]
    # Mean training loss over each epoch's steps.
    steps_of = {}
    for r in train:
        steps_of.setdefault(r["epoch"], []).append(r["loss"])
    for point in curve:
        losses = steps_of.get(point["epoch"] - 1, [])
        point["train_loss"] = statistics.fmean(losses) if losses else None
    # First occurrence of the maximum, as early stopping counts it.
    best = None
    if evals:
        top = max(e["dev"]["accuracy"] for e in evals)
        best = next(e for e in evals if e["dev"]["accuracy"] == top)
    processes = [[float(x) for x in line.split()]
                 for line in open(wall_file).read().splitlines() if line]
    loads = [line for line in open(load_file).read().splitlines() if line]
    return {
        "curve": curve,
        "steps": train[-1]["step"] if train else 0,
        "epochs": len(evals),
        "best_dev_accuracy": best["dev"]["accuracy"] if best else None,
        "best_step": best["step"] if best else None,
        "best_epoch": best["epoch"] + 1 if best else None,
        "last_dev_accuracy": evals[-1]["dev"]["accuracy"] if evals else None,
        "last5_mean_dev_accuracy": statistics.fmean(
            e["dev"]["accuracy"] for e in evals[-5:]) if evals else None,
        "step_ms_median": 1000 * statistics.median(seconds),
        "step_ms_mean": 1000 * statistics.fmean(seconds),
        "step_ms_mean_within_epoch": 1000 * statistics.fmean(inner),
        "training_loop_s": round(total, 2),
        "process_wall_s": round(sum(end - start for start, end in processes), 2),
        "processes": len(processes),
        "loadavg_before": loads[0], "loadavg_after": loads[-1],
    }


def pct(x):
    return "   -  " if x is None else f"{100 * x:6.2f}"


out = {"date": datetime.date.today().isoformat(), "settings": settings,
       "machine": {"nproc": os.cpu_count(), "uname": " ".join(os.uname())},
       "config": json.load(open(config_path)),
       "config_used": json.load(open(f"{work}/config.json"))}

with open(f"{work}/train.tsv") as f:
    train_seqs = {line.split("\t", 1)[1] for line in f if "\t" in line}
with open(f"{work}/dev.tsv") as f:
    dev_seqs = [line.split("\t", 1)[1] for line in f if "\t" in line]
out["dev_in_train"] = sum(s in train_seqs for s in dev_seqs)

if recipe_check == "1":
    a = [r for r in load(f"{work}/nodrop/rvnn/metrics.jsonl")]
    b = load(f"{work}/nodrop/eager.jsonl")
    ta = [r for r in a if r["type"] == "train"]
    tb = [r for r in b if r["type"] == "train"]
    ea = [r for r in a if r["type"] == "eval"]
    eb = [r for r in b if r["type"] == "eval"]
    rel = [abs(x["loss"] - y["loss"]) / abs(x["loss"]) for x, y in zip(ta, tb)]
    check = {
        "steps": [len(ta), len(tb)],
        "max_rel_loss_diff": max(rel),
        "max_rel_loss_diff_first_10": max(rel[:10]),
        "lr_same_every_step": all(x["lr"] == y["lr"] for x, y in zip(ta, tb)),
        "lr_reductions": [len({x["lr"] for x in ta}) - 1,
                          len({y["lr"] for y in tb}) - 1],
        "early_stopping_same": ([x["bad_evals"] for x in ea] ==
                                [y["bad_evals"] for y in eb]),
        "dev_accuracy_same_evals": sum(x["dev"]["accuracy"] == y["dev"]["accuracy"]
                                       for x, y in zip(ea, eb)),
        "evals": [len(ea), len(eb)],
        "max_dev_accuracy_diff": max(abs(x["dev"]["accuracy"] - y["dev"]["accuracy"])
                                     for x, y in zip(ea, eb)),
        "losses": [[x["loss"], y["loss"]] for x, y in zip(ta, tb)],
        "lrs": [[x["lr"], y["lr"]] for x, y in zip(ta, tb)],
    }
    out["recipe_check"] = check
    print(f"\nrecipe check (no dropout, no Gumbel noise, one 128-example batch per epoch, "
          f"{len(ta)} / {len(tb)} steps): loss max relative difference "
          f"{check['max_rel_loss_diff']:.2e} (first 10 steps "
          f"{check['max_rel_loss_diff_first_10']:.2e}), lr schedule "
          f"{'identical' if check['lr_same_every_step'] else 'DIFFERENT'} "
          f"({check['lr_reductions'][0]} reductions), early stopping "
          f"{'identical' if check['early_stopping_same'] else 'DIFFERENT'}, dev "
          f"accuracy equal at {check['dev_accuracy_same_evals']}/{len(ea)} "
          f"evaluations (max difference "
          f"{100 * check['max_dev_accuracy_diff']:.2f} points)")

runs = []
for seed in seeds:
    r = summarise(load(f"{work}/rvnn-{seed}/metrics.jsonl"),
                  f"{work}/rvnn-{seed}.wall", f"{work}/rvnn-{seed}.load")
    e = summarise(load(f"{work}/eager-{seed}.jsonl"),
                  f"{work}/eager-{seed}.wall", f"{work}/eager-{seed}.load")
    r["results_json"] = json.load(open(f"{work}/rvnn-{seed}/results.json"))
    e["results_json"] = json.load(open(f"{work}/eager-{seed}.json"))
    diff = r["best_dev_accuracy"] - e["best_dev_accuracy"]
    runs.append({"seed": seed, "rvnn": r, "eager": e,
                 "best_dev_difference_points": 100 * diff})
    print(f"\nseed {seed}: dev accuracy (%) per epoch")
    print(f"{'epoch':>5} {'step':>5} {'rvnn':>7} {'eager':>7} {'diff':>6}")
    by_epoch = {}
    for side, data in (("rvnn", r), ("eager", e)):
        for p in data["curve"]:
            by_epoch.setdefault(p["epoch"], {})[side] = p
    for epoch in sorted(by_epoch):
        row = by_epoch[epoch]
        step = (row.get("rvnn") or row.get("eager"))["step"]
        ra = row["rvnn"]["dev_accuracy"] if "rvnn" in row else None
        ea_ = row["eager"]["dev_accuracy"] if "eager" in row else None
        d = f"{100 * (ra - ea_):+6.2f}" if ra is not None and ea_ is not None else "    - "
        print(f"{epoch:5d} {step:5d} {pct(ra):>7} {pct(ea_):>7} {d}")
    for side, data in (("rvnn", r), ("eager", e)):
        print(f"  {side:5}: best {pct(data['best_dev_accuracy']).strip()}% at "
              f"epoch {data['best_epoch']} (step {data['best_step']}), "
              f"{data['steps']} steps, stopped: "
              f"{data['results_json']['stop_reason']}; step "
              f"{data['step_ms_median']:.0f} ms median, "
              f"{data['step_ms_mean']:.0f} ms mean; "
              f"{data['process_wall_s']:.0f} s wall")
    common = [(row["rvnn"]["dev_accuracy"], row["eager"]["dev_accuracy"])
              for row in by_epoch.values() if "rvnn" in row and "eager" in row]
    runs[-1]["common_epochs"] = len(common)
    runs[-1]["curve_mean_difference_points"] = 100 * statistics.fmean(
        a - b for a, b in common)
    runs[-1]["curve_mean_abs_difference_points"] = 100 * statistics.fmean(
        abs(a - b) for a, b in common)
    runs[-1]["last5_difference_points"] = 100 * (
        r["last5_mean_dev_accuracy"] - e["last5_mean_dev_accuracy"])
    print(f"  best dev accuracy difference (rvnn - eager): {100 * diff:+.2f} "
          f"points; mean of the last 5 evaluations {pct(r['last5_mean_dev_accuracy']).strip()}% vs "
          f"{pct(e['last5_mean_dev_accuracy']).strip()}%; over the {len(common)} "
          f"epochs both ran: mean difference "
          f"{runs[-1]['curve_mean_difference_points']:+.2f}, mean |difference| "
          f"{runs[-1]['curve_mean_abs_difference_points']:.2f} points")

# Logic: test accuracy per operator count, one row per seed and side.
test_ops = settings.get("test_ops", [])


def rvnn_test_accuracy(path, name):
    """The "all" row of `rvnn-run eval`'s table for data file `name` (the
    percentage has two decimals: back to the count of right answers)."""
    for line in open(path):
        fields = line.split()
        if fields[:2] == [name, "all"]:
            n = int(fields[2])
            return round(float(fields[3]) / 100 * n) / n, n
    sys.exit(f"{path}: no accuracy for {name}")


if test_ops:
    majority = {}
    for k in test_ops:
        with open(f"{work}/test-{k}.tsv") as f:
            labels = [line.split("\t", 1)[0] for line in f if "\t" in line]
        majority[str(k)] = max(labels.count(c) for c in set(labels)) / len(labels)
    out["test_majority"] = majority
    out["test_table"] = []
    for run in runs:
        for side in ("rvnn", "eager"):
            accuracy, n = {}, {}
            for k in test_ops:
                name = f"test-{k}.tsv"
                if side == "rvnn":
                    accuracy[str(k)], n[str(k)] = rvnn_test_accuracy(
                        f"{work}/rvnn-{run['seed']}-tests.txt", name)
                    continue
                test = run["eager"]["results_json"]["tests"][name]
                # Each file holds one operator count, so its accuracy is
                # that count's (as rvnn-run reports by operator count).
                if list(test.get("by_operator_count", {})) != [str(k)]:
                    sys.exit(f"{name}: operator counts "
                             f"{list(test.get('by_operator_count', {}))}, "
                             f"expected only {k}")
                accuracy[str(k)], n[str(k)] = test["accuracy"], test["n"]
            out["test_table"].append({
                "model": settings["model"], "side": side, "seed": run["seed"],
                "accuracy": accuracy, "n": n,
                "mean_accuracy": statistics.fmean(accuracy.values()),
                "best_dev_accuracy": run[side]["best_dev_accuracy"],
                "steps": run[side]["steps"],
                "step_ms_median": run[side]["step_ms_median"],
                "majority": majority})

out["runs"] = runs
if not runs:  # --seeds "": the recipe check only
    with open(results_path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {results_path}")
    sys.exit(0)
rb = [x["rvnn"]["best_dev_accuracy"] for x in runs]
eb_ = [x["eager"]["best_dev_accuracy"] for x in runs]
summary = {
    "rvnn_best_dev_mean": statistics.fmean(rb),
    "eager_best_dev_mean": statistics.fmean(eb_),
    "difference_of_means_points": 100 * (statistics.fmean(rb) - statistics.fmean(eb_)),
    "rvnn_best_dev_sd": statistics.stdev(rb) if len(rb) > 1 else None,
    "eager_best_dev_sd": statistics.stdev(eb_) if len(eb_) > 1 else None,
    "max_abs_per_seed_difference_points": max(abs(x["best_dev_difference_points"]) for x in runs),
    "rvnn_last5_mean": statistics.fmean(x["rvnn"]["last5_mean_dev_accuracy"] for x in runs),
    "eager_last5_mean": statistics.fmean(x["eager"]["last5_mean_dev_accuracy"] for x in runs),
    "curve_mean_difference_points": statistics.fmean(
        x["curve_mean_difference_points"] for x in runs),
    "rvnn_steps": [x["rvnn"]["steps"] for x in runs],
    "eager_steps": [x["eager"]["steps"] for x in runs],
    "rvnn_step_ms_median": statistics.median(x["rvnn"]["step_ms_median"] for x in runs),
    "eager_step_ms_median": statistics.median(x["eager"]["step_ms_median"] for x in runs),
}
out["runs"] = runs
out["summary"] = summary
print(f"\nover seeds {seeds}: best dev accuracy rvnn "
      f"{100 * summary['rvnn_best_dev_mean']:.2f}% vs eager "
      f"{100 * summary['eager_best_dev_mean']:.2f}% "
      f"(difference {summary['difference_of_means_points']:+.2f} points; "
      f"largest per-seed difference {summary['max_abs_per_seed_difference_points']:.2f})")
print(f"mean of the last 5 evaluations: rvnn "
      f"{100 * summary['rvnn_last5_mean']:.2f}% vs eager "
      f"{100 * summary['eager_last5_mean']:.2f}%; mean per-epoch curve "
      f"difference {summary['curve_mean_difference_points']:+.2f} points")
print(f"time per step (median of the runs' medians): rvnn "
      f"{summary['rvnn_step_ms_median']:.0f} ms, eager "
      f"{summary['eager_step_ms_median']:.0f} ms")
with open(results_path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(f"wrote {results_path}")
EOF
if [ "$TASK" = logic ] && [ -n "${SEEDS// }" ]; then
  "$PYTHON" "$ROOT/bench/logic_table.py" "$RESULTS"
fi
