#!/usr/bin/env bash
# The main job, end to end on built-in data: installs what is missing, builds,
# generates ListOps (train <= 100 tokens; tests at 200-300 and 500-600),
# compiles BBT-GRC, trains it briefly on the CPU, prints accuracy by length
# bucket for dev and the longer test sets, and the trees the model induces
# over three dev rows (drawn into out/demo-MODEL/trees). Set RVNN_MODEL to
# another model of models/ and RVNN_STEPS for a longer run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
model=${RVNN_MODEL:-bbt_grc}
steps=${RVNN_STEPS:-600}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

run="$root/build/bin/rvnn-run"
out="$root/out/demo-$model"
mkdir -p "$out"
echo "rvnn: generating ListOps into $out"
"$run" gen listops --split train --count 4000 --seed 1 --output "$out/train.tsv"
"$run" gen listops --split train --count 300 --seed 2 --output "$out/dev.tsv"
"$run" gen listops --split 200-300 --count 200 --seed 3 --output "$out/test-200-300.tsv"
"$run" gen listops --split 500-600 --count 100 --seed 4 --output "$out/test-500-600.tsv"

echo "rvnn: compiling models/$model.mlir"
"$run" compile "$root/models/$model.mlir" -o "$out/compiled"

echo "rvnn: training $model for $steps steps on the CPU (fused ops run generated kernels)"
"$run" train --config "$root/models/$model.json" --model "$out/compiled" \
  --train "$out/train.tsv" --dev "$out/dev.tsv" \
  --test "$out/test-200-300.tsv,$out/test-500-600.tsv" \
  --out "$out/run" --max-steps "$steps" --overwrite

echo "rvnn: evaluating the best checkpoint on the 500-600 test set"
"$run" eval --config "$root/models/$model.json" --model "$out/compiled" \
  --checkpoint "$out/run/best.pt" --data "$out/test-500-600.tsv"

# NDR exposes no tree (rvnn-run parse refuses it).
if grep -q 'rvnn.expose_structure' "$root/models/$model.mlir"; then
  echo "rvnn: the trees $model induces over three dev rows (SVGs in $out/trees)"
  "$run" parse --model "$out/compiled" --checkpoint "$out/run/best.pt" \
    --data "$out/dev.tsv" --rows 1:3 --svg "$out/trees"
fi
