#!/usr/bin/env bash
# Iterating nets against today's resnet at (about) equal training time, on 9x9 + 16x16 CSP
# data (docs/learners.md, "Nets that iterate"): each model's steps/s is probed on 100 steps,
# it trains BUDGET seconds' worth of steps of 32, then plays 1,000 beginner and 1,000
# intermediate games (seed 3,000,000). The probe counts compilation, so the slower models end
# up with more wall time than the budget, not less. Run alone from the repository root, after
# the data of bench/learning/learn_default.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUDGET=${BUDGET:-300}
OUT=${OUT:-runs/cmp}
D=(--data runs/data/beginner --data runs/data/intermediate)
for m in resnet-certain recur-certain recur; do
  rate=$(python -m mscsp learn train --model $m "${D[@]}" --out "$OUT/probe-$m" --steps 100 \
    --batch 32 --eval-every 1000 --fresh 2>&1 | grep -o '[0-9.]* steps/s' | tail -1 | cut -d' ' -f1)
  steps=$(python -c "print(int($rate * $BUDGET))")
  echo "$m: $rate steps/s -> $steps steps"
  python -m mscsp learn train --model $m "${D[@]}" --out "$OUT/$m" --steps "$steps" --batch 32 \
    --lr 3e-3 --eval-every $((steps / 4)) --fresh
  for p in beginner intermediate; do
    python -m mscsp play -s "learner:$OUT/$m" --preset $p --games 1000 --seed 3000000 --json \
      > "$OUT/play-$m-$p.json"
  done
done
